//! The parameterised evaluation. Every weight is a named, tapered (mg, eg) parameter of an
//! `EvalParams`; one walk over the position (`evaluate_with`) serves both the search (summing
//! weights) and the Texel tuner (recording which weights applied how often), so the two can
//! never disagree.
//!
//! Main items: [`EvalParams`] (the weights: built in, read from a weights TOML, or tuned) and
//! [`evaluate`] (a position's score for the side to move); [`trace`] gives the [`Trace`] the tuner
//! fits.

mod defaults;
mod params;
mod pawn_table;
mod scale;
mod terms;
mod weights_file;

pub use params::{layout, EvalParams, ParamGroup};
pub use pawn_table::{PawnTable, PawnTerms};
pub use scale::{EndgameScale, SCALE_NORMAL};
pub use terms::{evaluate_with, phase};
pub use weights_file::{MaterialLimit, WeightsError, MAX_WEIGHT};

use crate::board::Position;
use crate::score::MATE_BOUND;

/// The phase of a position with all pieces on the board; the phase is clamped to it.
pub const MAX_PHASE: i32 = 24;

/// The largest magnitude an evaluation takes, whatever the weights: the blend that ends every
/// evaluation (`taper_scaled`) clamps to ±`MAX_EVAL`, as engines do, so no evaluation can pass
/// for a mate (from `score::MATE_BOUND`) or for the search's tablebase scores just inside it
/// (a tablebase win is `MATE_BOUND - 1` less the ply it is found at, up to 128 plies; the
/// search asserts that `MAX_EVAL` is one below the least of them). 31,741 centipawns.
pub const MAX_EVAL: i32 = MATE_BOUND - 1 - 128 - 1;

/// Receives the evaluation walk's output: one call per applied weight.
pub trait Accumulator {
    /// Parameter `index` (currently `weight`) occurs `count` times more for White than for Black.
    fn add(&mut self, index: usize, count: i32, weight: (i32, i32));
}

/// Sums count × weight into middlegame and endgame totals: the search's accumulator.
#[derive(Copy, Clone, Default, Debug, PartialEq, Eq)]
pub(crate) struct ScoreAccumulator {
    /// Middlegame total in centipawns, from White's point of view.
    pub mg: i32,
    /// Endgame total in centipawns, from White's point of view.
    pub eg: i32,
}

impl Accumulator for ScoreAccumulator {
    #[inline(always)]
    fn add(&mut self, _index: usize, count: i32, weight: (i32, i32)) {
        self.mg += count * weight.0;
        self.eg += count * weight.1;
    }
}

/// Blends a middlegame and an endgame score by the phase, rounding once: the plain blend,
/// without the endgame scale or the clamp of `taper_scaled` (an external engine's trace adds its
/// remainder after it). The evaluation itself ends in `taper_scaled`.
#[inline(always)]
pub fn taper(mg: i32, eg: i32, phase: i32) -> i32 {
    (mg * phase + eg * (MAX_PHASE - phase)) / MAX_PHASE
}

/// The last step of every evaluation: `taper` with the endgame score scaled by `scale / 128`,
/// rounded once, then clamped to ±`MAX_EVAL`. The search's score (`evaluate_cached`), the
/// tuner's (`evaluate_white`, `Trace::score`, the integer loss of the written weights) and so
/// SPSA's games all end here, so the clamp has this one definition. With `scale` 128 and a
/// result inside the clamp it equals `taper` exactly (the common factor 128 divides out).
#[inline(always)]
pub fn taper_scaled(mg: i32, eg: i32, phase: i32, scale: i32) -> i32 {
    let (mg, eg, phase, scale) = (mg as i64, eg as i64, phase as i64, scale as i64);
    let max = MAX_PHASE as i64;
    let normal = SCALE_NORMAL as i64;
    let blended = (mg * phase * normal + eg * scale * (max - phase)) / (max * normal);
    blended.clamp(-MAX_EVAL as i64, MAX_EVAL as i64) as i32
}

/// The linear form of one position's evaluation: which parameters applied and how often
/// (White minus Black), plus the phase. The Texel tuner stores these instead of positions.
#[derive(Clone, Default, Debug, PartialEq, Eq)]
pub struct Trace {
    /// Game phase, 0 (pawn endgame) to `MAX_PHASE` (all pieces on the board).
    pub phase: i32,
    /// The endgame scale factor out of `SCALE_NORMAL`, fixed by the traced weights (the side
    /// ahead in the endgame chooses it).
    pub eg_scale: i32,
    /// (parameter index, count) pairs; `trace` returns them sorted by index, without zeros
    /// or repeated indices.
    pub coefficients: Vec<(u16, i16)>,
}

impl Accumulator for Trace {
    #[inline]
    fn add(&mut self, index: usize, count: i32, _weight: (i32, i32)) {
        if count != 0 {
            let count = i16::try_from(count).expect("evaluation counts fit in i16");
            self.coefficients.push((index as u16, count));
        }
    }
}

impl Trace {
    /// The middlegame and endgame sums of count × weight, before blending (White's view).
    pub fn mg_eg(&self, params: &EvalParams) -> (i32, i32) {
        let w = params.as_slice();
        let (mut mg, mut eg) = (0, 0);
        for &(i, c) in &self.coefficients {
            let (wm, we) = w[i as usize];
            mg += c as i32 * wm;
            eg += c as i32 * we;
        }
        (mg, eg)
    }

    /// The evaluation this trace gives under `params`, White's view; equals `evaluate_white`
    /// of the traced position exactly.
    pub fn score(&self, params: &EvalParams) -> i32 {
        let (mg, eg) = self.mg_eg(params);
        taper_scaled(mg, eg, self.phase, self.eg_scale)
    }

    /// Sorts by index, merges repeated indices and drops zero counts.
    fn normalize(&mut self) {
        self.coefficients.sort_unstable_by_key(|&(i, _)| i);
        let mut merged: Vec<(u16, i16)> = Vec::with_capacity(self.coefficients.len());
        for &(i, c) in &self.coefficients {
            match merged.last_mut() {
                Some(last) if last.0 == i => last.1 += c,
                _ => merged.push((i, c)),
            }
        }
        merged.retain(|&(_, c)| c != 0);
        self.coefficients = merged;
    }
}

/// The evaluation in centipawns from White's point of view.
#[inline]
pub fn evaluate_white(pos: &Position, params: &EvalParams) -> i32 {
    let mut acc = ScoreAccumulator::default();
    let phase = evaluate_with(pos, params, &mut acc);
    let scale = params.scale().factor(pos, acc.eg);
    taper_scaled(acc.mg, acc.eg, phase, scale)
}

/// The evaluation in centipawns from the side to move's point of view (what negamax wants).
#[inline]
pub fn evaluate(pos: &Position, params: &EvalParams) -> i32 {
    evaluate_white(pos, params) * pos.side_to_move().sign()
}

/// `evaluate` with the pawn-structure terms looked up in (or added to) `table`, which must only
/// hold entries made with these `params`: the same score, for the search.
#[inline]
pub fn evaluate_cached(pos: &Position, params: &EvalParams, table: &mut PawnTable) -> i32 {
    let mut acc = ScoreAccumulator::default();
    let phase = terms::evaluate_with_table(pos, params, table, &mut acc);
    let scale = params.scale().factor(pos, acc.eg);
    taper_scaled(acc.mg, acc.eg, phase, scale) * pos.side_to_move().sign()
}

/// The evaluation of `pos` as a sparse linear form, for the tuner. `params` only supplies the
/// weights the walk passes along; the coefficients do not depend on them.
pub fn trace(pos: &Position, params: &EvalParams) -> Trace {
    let mut t = Trace {
        phase: 0,
        eg_scale: SCALE_NORMAL,
        coefficients: Vec::with_capacity(64),
    };
    t.phase = evaluate_with(pos, params, &mut t);
    t.normalize();
    t.eg_scale = params.scale().factor(pos, t.mg_eg(params).1);
    t
}
