//! The trainer's speed measurement (`sparring train bench`): positions per second of whole
//! optimisation steps (gradient and AdamW) on synthetic positions reached by seeded random play,
//! so the measurement needs no data file; and the same batches written out for other trainers
//! (docs/research/train_torch_bench.py times PyTorch on them).

use super::model::{FloatNet, TrainPosition, MAX_ACTIVE};
use super::optim::{batch_gradient, AdamW, AdamWSettings, GradientBuffers};
use crate::board::{GameResult, Position};
use crate::rng::Rng;
use std::time::Instant;

/// `count` positions from seeded random games (up to 120 plies each, restarted at the end of
/// a game), scores drawn in ±600 cp and results at random.
pub fn synthetic_positions(count: usize, seed: u64) -> Vec<TrainPosition> {
    let mut rng = Rng::derive(seed, 0x6265_6e63);
    let mut out = Vec::with_capacity(count);
    let mut pos = Position::startpos();
    let mut plies = 0;
    while out.len() < count {
        let moves = pos.legal_moves();
        if moves.is_empty() || plies >= 120 {
            pos = Position::startpos();
            plies = 0;
            continue;
        }
        let mv = moves[rng.below(moves.len() as u64) as usize];
        pos.make_move(mv);
        plies += 1;
        let score = rng.below(1201) as i16 - 600;
        let result = [
            GameResult::WhiteWins,
            GameResult::Draw,
            GameResult::BlackWins,
        ][rng.below(3) as usize];
        out.push(TrainPosition::new(&pos, score, result));
    }
    out
}

/// Seconds for `steps` optimisation steps over `batches` in turn on a rayon pool of `threads`
/// (one warm-up step first, not timed).
pub fn time_steps(
    hidden: usize,
    batches: &[Vec<TrainPosition>],
    steps: usize,
    threads: usize,
) -> Result<f64, rayon::ThreadPoolBuildError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    Ok(pool.install(|| {
        let mut net = FloatNet::init(hidden, 1);
        let mut adam = AdamW::new(AdamWSettings::default(), net.params.len());
        let mut buffers = GradientBuffers::new(net.params.len());
        let mut step = |batch: &[TrainPosition]| {
            batch_gradient(&net, batch, 0.75, &mut buffers);
            adam.step(&mut net.params, &buffers.total, 0.001);
        };
        step(&batches[0]);
        let clock = Instant::now();
        for i in 0..steps {
            step(&batches[i % batches.len()]);
        }
        clock.elapsed().as_secs_f64()
    }))
}

/// The bytes of one position in the bench's exchange file: score (i16), result (u8, half
/// points), count (u8), then 32 stm and 32 nstm features (u16), little-endian; 132 bytes.
pub fn exchange_record(p: &TrainPosition) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + 4 * MAX_ACTIVE);
    out.extend_from_slice(&p.score.to_le_bytes());
    out.push(p.result);
    out.push(p.count);
    for f in p.stm.iter().chain(&p.nstm) {
        out.extend_from_slice(&f.to_le_bytes());
    }
    out
}

/// The median of `values` (the mean of the middle two for an even count).
pub fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthetic_positions_are_seeded_and_records_are_132_bytes() {
        let a = synthetic_positions(50, 3);
        assert_eq!(a, synthetic_positions(50, 3));
        assert!(a.iter().all(|p| p.count >= 2 && p.result <= 2));
        assert_eq!(exchange_record(&a[0]).len(), 132);
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
    }
}
