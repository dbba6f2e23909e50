//! Which parameters a run tunes. Tuned parameters get compact indices 0..n (what the packed
//! data stores); the rest are frozen at their starting values and folded into per-position
//! constants when the data is loaded.

use super::packed::{Coef, Extra};
use super::tunable::TraceError;
use crate::board::Position;
use crate::eval::{
    evaluate_with, Accumulator, EvalParams, ParamGroup, Trace, MAX_PHASE, MAX_WEIGHT, SCALE_NORMAL,
};

/// What the data loader packs positions with: sparring's own `ParamSelection` (its fast path,
/// `Packer`), or any `TunableEval` through `tunable::EvalSelection`.
pub trait PackSource: Sync {
    /// A packer for one run of lines (it may keep scratch space between positions).
    type Packer<'a>: PositionPacker
    where
        Self: 'a;

    /// The number of tuned parameters (compact indices are below it).
    fn num_params(&self) -> usize;

    /// A new packer.
    fn packer(&self) -> Self::Packer<'_>;

    /// Whether positions carry an `Extra` (remainder, endgame scale) beside their entry.
    fn extended(&self) -> bool {
        false
    }

    /// The blend's divisor: the phase with every piece on the board.
    fn phase_max(&self) -> i32 {
        MAX_PHASE
    }

    /// The weights positions are resolved through their quiescence line with.
    fn resolver(&self) -> EvalParams;
}

/// Packs one position at a time.
pub trait PositionPacker {
    /// Appends the nonzero tuned coefficients of `pos` to `out`.
    fn pack(&mut self, pos: &Position, out: &mut Vec<Coef>) -> Result<PackedPosition, TraceError>;
}

/// What packing one position gives besides its coefficients.
#[derive(Clone, Copy, Debug)]
pub struct PackedPosition {
    /// Middlegame and endgame sums of the frozen parameters.
    pub frozen: (i32, i32),
    /// Coefficients appended.
    pub len: usize,
    /// The phase.
    pub phase: i32,
    /// Remainder and endgame scale (used only when the source is `extended`).
    pub extra: Extra,
}

impl PackSource for ParamSelection {
    type Packer<'a> = Packer<'a>;

    fn num_params(&self) -> usize {
        self.len()
    }

    fn packer(&self) -> Packer<'_> {
        Packer::new(self)
    }

    fn resolver(&self) -> EvalParams {
        self.start.clone()
    }

    /// Weights with endgame scaling carry each position's scale factor.
    fn extended(&self) -> bool {
        !self.start.scale().is_neutral()
    }
}

impl PositionPacker for Packer<'_> {
    #[inline]
    fn pack(&mut self, pos: &Position, out: &mut Vec<Coef>) -> Result<PackedPosition, TraceError> {
        let (frozen, len, phase) = Packer::pack(self, pos, out);
        let eg_scale = self.selection.start.scale().factor(pos, self.eg_total);
        Ok(PackedPosition {
            frozen,
            len,
            phase,
            extra: Extra {
                remainder: 0.0,
                eg_scale: eg_scale as f32 / SCALE_NORMAL as f32,
            },
        })
    }
}

/// Marks a parameter that is not tuned in `ParamSelection::slot`.
const FROZEN: u16 = u16::MAX;

/// The tuned parameters and the starting weights of every parameter.
#[derive(Clone, Debug)]
pub struct ParamSelection {
    start: EvalParams,
    /// Parameter indices tuned, ascending; position k is compact index k.
    tuned: Vec<usize>,
    /// For each parameter, its compact index or `FROZEN`.
    slot: Vec<u16>,
}

impl ParamSelection {
    /// Tunes every parameter of the given groups.
    pub fn groups(start: EvalParams, groups: &[ParamGroup]) -> ParamSelection {
        let chosen: Vec<bool> = (0..start.len())
            .map(|i| groups.contains(&start.group(i)))
            .collect();
        ParamSelection::with(start, |i| chosen[i])
    }

    /// Tunes the parameters for which `tuned(index)` is true.
    pub fn with(start: EvalParams, tuned: impl Fn(usize) -> bool) -> ParamSelection {
        let tuned: Vec<usize> = (0..start.len()).filter(|&i| tuned(i)).collect();
        let mut slot = vec![FROZEN; start.len()];
        for (k, &i) in tuned.iter().enumerate() {
            slot[i] = k as u16;
        }
        ParamSelection { start, tuned, slot }
    }

    /// The number of tuned parameters (each an (mg, eg) pair).
    pub fn len(&self) -> usize {
        self.tuned.len()
    }

    /// Whether nothing is tuned.
    pub fn is_empty(&self) -> bool {
        self.tuned.is_empty()
    }

    /// The starting weights of all parameters (frozen ones keep these).
    pub fn start(&self) -> &EvalParams {
        &self.start
    }

    /// The parameter index of each compact index.
    pub fn tuned(&self) -> &[usize] {
        &self.tuned
    }

    /// The compact index of parameter `i`, if it is tuned.
    pub fn compact_index(&self, i: usize) -> Option<usize> {
        (self.slot[i] != FROZEN).then_some(self.slot[i] as usize)
    }

    /// The tuned parameters' starting weights as floats (compact order).
    pub fn start_weights(&self) -> Vec<[f64; 2]> {
        self.tuned
            .iter()
            .map(|&i| {
                let (mg, eg) = self.start.get(i);
                [mg as f64, eg as f64]
            })
            .collect()
    }

    /// A full parameter set: the starting weights with the tuned ones replaced by `weights`
    /// rounded to integers (and clamped to what a weights file may hold).
    pub fn to_params(&self, weights: &[[f64; 2]]) -> EvalParams {
        assert_eq!(weights.len(), self.tuned.len());
        let round =
            |w: f64| (w.round() as i64).clamp(-(MAX_WEIGHT as i64), MAX_WEIGHT as i64) as i32;
        let mut params = self.start.clone();
        for (&i, w) in self.tuned.iter().zip(weights) {
            params.set(i, (round(w[0]), round(w[1])));
        }
        params
    }

    /// Appends the tuned coefficients of `trace` (compact indices) to `out` and returns the
    /// frozen terms' (mg, eg) sums with the starting weights, and how many were appended.
    pub fn pack(&self, trace: &Trace, out: &mut Vec<Coef>) -> ((i32, i32), usize) {
        let w = self.start.as_slice();
        let (mut mg, mut eg) = (0i32, 0i32);
        let before = out.len();
        for &(i, count) in &trace.coefficients {
            let slot = self.slot[i as usize];
            if slot == FROZEN {
                let (wm, we) = w[i as usize];
                mg += count as i32 * wm;
                eg += count as i32 * we;
            } else {
                out.push(Coef { index: slot, count });
            }
        }
        ((mg, eg), out.len() - before)
    }
}

/// Packs positions straight from the evaluation walk (`evaluate_with`, the path that scores
/// them and that `eval::trace` records): frozen weights are summed on the spot and tuned counts
/// gathered in a dense scratch array, so nothing is allocated or sorted per position.
pub struct Packer<'a> {
    selection: &'a ParamSelection,
    /// Count per compact index, valid where `stamp` equals `generation`.
    dense: Vec<i32>,
    stamp: Vec<u32>,
    generation: u32,
    /// Compact indices touched in the current position, in first-touch order.
    touched: Vec<u16>,
    frozen: (i32, i32),
    /// The endgame sum of every weight (tuned or not) at the starting values: it picks the
    /// endgame scale factor, which stays fixed while tuning.
    eg_total: i32,
}

impl Accumulator for Packer<'_> {
    #[inline]
    fn add(&mut self, index: usize, count: i32, weight: (i32, i32)) {
        if count == 0 {
            return;
        }
        self.eg_total += count * weight.1;
        let slot = self.selection.slot[index];
        if slot == FROZEN {
            self.frozen.0 += count * weight.0;
            self.frozen.1 += count * weight.1;
            return;
        }
        let s = slot as usize;
        if self.stamp[s] != self.generation {
            self.stamp[s] = self.generation;
            self.dense[s] = 0;
            self.touched.push(slot);
        }
        self.dense[s] += count;
    }
}

impl<'a> Packer<'a> {
    /// A packer for the parameters `selection` tunes.
    pub fn new(selection: &'a ParamSelection) -> Packer<'a> {
        Packer {
            selection,
            dense: vec![0; selection.len()],
            stamp: vec![0; selection.len()],
            generation: 0,
            touched: Vec::with_capacity(64),
            frozen: (0, 0),
            eg_total: 0,
        }
    }

    /// Evaluates `pos` with the starting weights, appends its nonzero tuned coefficients to
    /// `out` and returns (frozen (mg, eg) sums, coefficients appended, phase).
    pub fn pack(&mut self, pos: &Position, out: &mut Vec<Coef>) -> ((i32, i32), usize, i32) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            // After 2^32 positions the stamps could collide: start them afresh.
            self.stamp.fill(0);
            self.generation = 1;
        }
        self.touched.clear();
        self.frozen = (0, 0);
        self.eg_total = 0;
        let phase = evaluate_with(pos, &self.selection.start, self);
        let before = out.len();
        for &slot in &self.touched {
            let count = self.dense[slot as usize];
            if count != 0 {
                let count = i16::try_from(count).expect("evaluation counts fit in i16");
                out.push(Coef { index: slot, count });
            }
        }
        (self.frozen, out.len() - before, phase)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::trace;
    use crate::texel::synthetic::playout_positions;

    #[test]
    fn packer_agrees_with_the_trace() {
        let selection = ParamSelection::groups(
            EvalParams::default(),
            &[ParamGroup::Pst, ParamGroup::Mobility, ParamGroup::Tempo],
        );
        let mut packer = Packer::new(&selection);
        for pos in playout_positions(3, 3000) {
            let t = trace(&pos, selection.start());
            let mut expected = Vec::new();
            let (frozen, _) = selection.pack(&t, &mut expected);
            let mut got = Vec::new();
            let (pfrozen, len, phase) = packer.pack(&pos, &mut got);
            assert_eq!((pfrozen, len, phase), (frozen, expected.len(), t.phase));
            got.sort_by_key(|c| c.index);
            assert_eq!(got, expected, "{}", pos.to_fen());
        }
    }
}
