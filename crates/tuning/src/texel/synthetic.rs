//! Synthetic training data for tests and benchmarks: positions from seeded random playouts,
//! labelled by a known evaluation, so a tuner can be checked against the answer it should find.

use super::model::sigmoid;
use crate::board::Position;
use crate::eval::{evaluate_white, EvalParams};
use crate::rng::Rng;
use rayon::prelude::*;

/// Plies played from the start before positions are kept (random openings are all alike).
const SKIP_PLIES: usize = 8;
/// A playout is abandoned after this many plies.
const MAX_PLIES: usize = 160;
/// Positions generated per independent stream; streams run in parallel.
const PER_STREAM: usize = 4096;

/// `count` positions from random playouts seeded by `seed`: every position from ply 8 on, a new
/// game when one ends. The same seed gives the same positions for any thread count.
pub fn playout_positions(seed: u64, count: usize) -> Vec<Position> {
    let streams = count.div_ceil(PER_STREAM);
    let parts: Vec<Vec<Position>> = (0..streams)
        .into_par_iter()
        .map(|stream| {
            let want = PER_STREAM.min(count - stream * PER_STREAM);
            let mut rng = Rng::derive(seed, stream as u64);
            let mut out = Vec::with_capacity(want);
            while out.len() < want {
                let mut pos = Position::startpos();
                for ply in 0..MAX_PLIES {
                    let moves = pos.legal_moves();
                    if moves.is_empty() || pos.halfmove_clock() >= 100 || out.len() == want {
                        break;
                    }
                    let mv = moves.as_slice()[rng.below(moves.len() as u64) as usize];
                    pos.make_move(mv);
                    if ply + 1 >= SKIP_PLIES {
                        out.push(pos.clone());
                    }
                }
            }
            out
        })
        .collect();
    parts.into_iter().flatten().collect()
}

/// The expected score of each position under `params`: σ(K·eval/400), White's view.
pub fn soft_labels(positions: &[Position], params: &EvalParams, k: f64) -> Vec<f32> {
    positions
        .par_iter()
        .map(|pos| sigmoid(k, evaluate_white(pos, params) as f64) as f32)
        .collect()
}

/// Game results drawn from the soft labels with `seed`: 1, 0 or 0.5 (draws likeliest near
/// equality), with the expected result equal to the soft label.
pub fn sampled_results(soft: &[f32], seed: u64) -> Vec<f32> {
    let mut rng = Rng::new(seed);
    soft.iter()
        .map(|&p| {
            let p = p as f64;
            // P(draw) = min(p, 1 − p), P(win) = p − P(draw)/2: the expected score stays p.
            let draw = p.min(1.0 - p);
            let u = rng.next_f64();
            if u < draw {
                0.5
            } else if u < draw + (p - draw / 2.0) {
                1.0
            } else {
                0.0
            }
        })
        .collect()
}

/// The result of a label as EPD writes it.
pub fn result_string(label: f32) -> &'static str {
    if label >= 0.75 {
        "1-0"
    } else if label <= 0.25 {
        "0-1"
    } else {
        "1/2-1/2"
    }
}
