//! Which parameters a run tunes. Tuned parameters get compact indices 0..n (what the packed
//! data stores); the rest are frozen at their starting values and folded into per-position
//! constants when the data is loaded.

use super::data::Coef;
use crate::eval::{EvalParams, ParamGroup, Trace};

/// Marks a parameter that is not tuned in `ParamSelection::slot`.
const FROZEN: u16 = u16::MAX;

/// The largest magnitude a written weight may have (the weights file refuses larger ones).
pub const MAX_OUTPUT_WEIGHT: i32 = 30_000;

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
        let round = |w: f64| {
            (w.round() as i64).clamp(-(MAX_OUTPUT_WEIGHT as i64), MAX_OUTPUT_WEIGHT as i64) as i32
        };
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
