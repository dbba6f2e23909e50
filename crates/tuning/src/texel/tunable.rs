//! The seam between the Texel tuner and any evaluation: an evaluation that names its parameters
//! and traces a position into sparse coefficients (`TunableEval`) can be tuned by the same data
//! loading, K fit, optimisers, validation and outputs as sparring's own.
//!
//! The model the tuner fits for one position (White's view, centipawns):
//!
//! ```text
//! q = (mg·phase + eg·scale·(phase_max − phase)) / phase_max + remainder
//! mg = Σ count_i · w_i.mg,   eg = Σ count_i · w_i.eg
//! ```
//!
//! with `count_i` White's occurrences of parameter i minus Black's, `scale` the endgame scale
//! (1 when the evaluation has none) and `remainder` the untuned rest of the evaluation. An
//! untapered evaluation traces `phase = phase_max`, so q = mg + remainder.
//!
//! An evaluation may also declare finalisers (`TunableEval::finalisers`): named non-linear
//! functions the tuner knows, each applied per side to a linear sub-sum of parameters (king
//! safety, say). For finaliser f and side s, x_s = Σ count_i · w_i over the side's coefficients
//! of f (mg and eg sums apart); the middlegame sum gains f.mg(x_W.mg) − f.mg(x_B.mg) and the
//! endgame sum f.eg(x_W.eg) − f.eg(x_B.eg), before the blend. The tuner differentiates through
//! them (chain rule); an evaluation without finalisers takes the linear path unchanged.

use super::packed::{Coef, Extra};
use super::selection::PackSource;
use crate::board::{Color, Position};
use crate::error::{ErrorClass, Failure};
use crate::eval::{evaluate_with, Accumulator, EvalParams, MAX_PHASE};

/// One parameter as the evaluation declares it.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamSpec {
    /// A name unique within the evaluation, e.g. `material.knight` or `bishop_pair`.
    pub name: String,
    /// The starting (middlegame, endgame) values; equal for an untapered evaluation.
    pub start: (f64, f64),
    /// The range the value must stay in, if any (both halves of a tapered pair).
    pub bounds: Option<(f64, f64)>,
}

impl ParamSpec {
    /// A tapered parameter without bounds.
    pub fn tapered(name: impl Into<String>, mg: f64, eg: f64) -> ParamSpec {
        ParamSpec {
            name: name.into(),
            start: (mg, eg),
            bounds: None,
        }
    }
}

/// A non-linear function a finaliser applies to one side's sum x (centipawns). The constant's
/// sign is the term's sign: `Quadratic(-720.0)` is Ethereal's king safety −max(x, 0)·x/720.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FinalKind {
    /// f(x) = x.
    Linear,
    /// f(x) = max(x, 0)·x / c.
    Quadratic(f64),
    /// f(x) = max(x, 0) / c.
    Relu(f64),
}

impl FinalKind {
    /// f(x).
    #[inline]
    pub fn value(self, x: f64) -> f64 {
        match self {
            FinalKind::Linear => x,
            FinalKind::Quadratic(c) => x.max(0.0) * x / c,
            FinalKind::Relu(c) => x.max(0.0) / c,
        }
    }

    /// f'(x) (0 at the kink of `Relu` and `Quadratic`).
    #[inline]
    pub(crate) fn slope(self, x: f64) -> f64 {
        match self {
            FinalKind::Linear => 1.0,
            FinalKind::Quadratic(c) if x > 0.0 => 2.0 * x / c,
            FinalKind::Relu(c) if x > 0.0 => 1.0 / c,
            FinalKind::Quadratic(_) | FinalKind::Relu(_) => 0.0,
        }
    }
}

/// A finaliser as the evaluation declares it: its functions of the middlegame and endgame sums
/// (equal for an untapered evaluation, whose endgame half is unused).
#[derive(Clone, Debug, PartialEq)]
pub struct Finaliser {
    /// A name unique among the finalisers, e.g. `king_safety`.
    pub name: String,
    /// Applied to the side's middlegame sum.
    pub mg: FinalKind,
    /// Applied to the side's endgame sum.
    pub eg: FinalKind,
}

/// One coefficient of one side's sum of a finaliser.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FinalTerm {
    /// The finaliser's index (declaration order).
    pub finaliser: u32,
    /// Whose sum: White's counts add to White's x, Black's to Black's.
    pub side: Color,
    /// The parameter index.
    pub index: u32,
    /// The side's own count of the parameter (not a difference).
    pub count: i32,
}

/// One position's evaluation as a linear form (see the module documentation).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LinearTrace {
    /// The game phase: `phase_max` with every piece on, 0 in a pawn ending (not clamped: the
    /// model blends with whatever the evaluation uses).
    pub phase: i32,
    /// (parameter index, White-minus-Black count); zero counts and repeats are allowed.
    pub coefficients: Vec<(u32, i32)>,
    /// The untuned rest of the evaluation in centipawns, White's view, added after the blend.
    pub remainder: f64,
    /// The factor the endgame half is multiplied by (1 = none).
    pub eg_scale: f64,
    /// The finalisers' per-side coefficients (empty for an evaluation without finalisers).
    pub finals: Vec<FinalTerm>,
}

impl LinearTrace {
    /// Empties the trace for the next position (endgame scale 1).
    pub fn clear(&mut self) {
        self.phase = 0;
        self.coefficients.clear();
        self.remainder = 0.0;
        self.eg_scale = 1.0;
        self.finals.clear();
    }

    /// Sorts the coefficients by index, merging repeats and dropping zeros.
    pub fn normalize(&mut self) {
        self.coefficients.sort_unstable_by_key(|&(i, _)| i);
        let mut merged: Vec<(u32, i32)> = Vec::with_capacity(self.coefficients.len());
        for &(i, c) in &self.coefficients {
            match merged.last_mut() {
                Some(last) if last.0 == i => last.1 += c,
                _ => merged.push((i, c)),
            }
        }
        merged.retain(|&(_, c)| c != 0);
        self.coefficients = merged;
    }

    /// The model's value of this trace for weights `w` (one (mg, eg) pair per parameter).
    pub fn value(&self, w: &[(f64, f64)], phase_max: i32) -> f64 {
        self.value_with(w, phase_max, &[])
    }

    /// `value` (which leaves `finals` out) with the evaluation's finalisers applied to the
    /// trace's `finals`; terms of a finaliser beyond `finalisers` are left out too (an index
    /// out of range panics: check them first).
    pub fn value_with(&self, w: &[(f64, f64)], phase_max: i32, finalisers: &[Finaliser]) -> f64 {
        let (mut mg, mut eg) = (0.0, 0.0);
        for &(i, c) in &self.coefficients {
            mg += c as f64 * w[i as usize].0;
            eg += c as f64 * w[i as usize].1;
        }
        // x per finaliser and side: [White mg, White eg, Black mg, Black eg].
        let mut x = vec![[0.0f64; 4]; finalisers.len()];
        for t in &self.finals {
            let side = if t.side == Color::White { 0 } else { 2 };
            let Some(sums) = x.get_mut(t.finaliser as usize) else {
                continue;
            };
            sums[side] += t.count as f64 * w[t.index as usize].0;
            sums[side + 1] += t.count as f64 * w[t.index as usize].1;
        }
        for (f, x) in finalisers.iter().zip(&x) {
            mg += f.mg.value(x[0]) - f.mg.value(x[2]);
            eg += f.eg.value(x[1]) - f.eg.value(x[3]);
        }
        let pm = self.phase as f64 / phase_max as f64;
        mg * pm + eg * self.eg_scale * (1.0 - pm) + self.remainder
    }
}

/// Why a position could not be traced (an external engine failing, say). Loading stops on it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct TraceError {
    /// What went wrong, naming the engine.
    pub message: String,
    /// Whether the run failed (an engine that died or cannot start: exit status 1) rather than
    /// the evaluation answering wrongly (bad input: exit status 2).
    pub run_failed: bool,
}

impl ErrorClass for TraceError {
    fn class(&self) -> Failure {
        if self.run_failed {
            Failure::FailedRun
        } else {
            Failure::BadInput
        }
    }
}

impl TraceError {
    /// A wrong answer: bad input.
    pub fn bad(message: impl Into<String>) -> TraceError {
        TraceError {
            message: message.into(),
            run_failed: false,
        }
    }
}

/// An evaluation the Texel tuner can tune: it names its parameters and traces positions.
pub trait TunableEval: Sync {
    /// Every parameter, in index order.
    fn params(&self) -> Vec<ParamSpec>;

    /// Whether parameters are (middlegame, endgame) pairs blended by the phase.
    fn tapered(&self) -> bool {
        true
    }

    /// The phase of a position with every piece on the board (the blend's divisor).
    fn phase_max(&self) -> i32;

    /// The non-linear finalisers the traces' `finals` feed, in index order (none by default:
    /// the evaluation is linear in its parameters).
    fn finalisers(&self) -> Vec<Finaliser> {
        Vec::new()
    }

    /// Traces `pos` into `out` (which the caller has cleared).
    fn trace(&self, pos: &Position, out: &mut LinearTrace) -> Result<(), TraceError>;
}

/// sparring's own evaluation: its parameters with their weights, traced by the same walk
/// (`evaluate_with`) that the search scores with.
impl TunableEval for EvalParams {
    fn params(&self) -> Vec<ParamSpec> {
        (0..self.len())
            .map(|i| {
                let (mg, eg) = self.get(i);
                ParamSpec {
                    name: self.name(i),
                    start: (mg as f64, eg as f64),
                    bounds: Some((
                        -(crate::eval::MAX_WEIGHT as f64),
                        crate::eval::MAX_WEIGHT as f64,
                    )),
                }
            })
            .collect()
    }

    fn phase_max(&self) -> i32 {
        MAX_PHASE
    }

    fn trace(&self, pos: &Position, out: &mut LinearTrace) -> Result<(), TraceError> {
        // Also sums the endgame half, which picks the endgame scale factor.
        struct Collect<'a>(&'a mut LinearTrace, i32);
        impl Accumulator for Collect<'_> {
            #[inline]
            fn add(&mut self, index: usize, count: i32, weight: (i32, i32)) {
                if count != 0 {
                    self.0.coefficients.push((index as u32, count));
                    self.1 += count * weight.1;
                }
            }
        }
        let mut collect = Collect(out, 0);
        let phase = evaluate_with(pos, self, &mut collect);
        let eg = collect.1;
        out.phase = phase;
        out.eg_scale = self.scale().factor(pos, eg) as f64 / crate::eval::SCALE_NORMAL as f64;
        Ok(())
    }
}

/// Tunes every parameter of an evaluation: the `PackSource` the data loader packs with.
pub struct EvalSelection<'e, E: TunableEval + ?Sized> {
    eval: &'e E,
    specs: Vec<ParamSpec>,
    finalisers: Vec<Finaliser>,
    phase_max: i32,
}

impl<'e, E: TunableEval + ?Sized> EvalSelection<'e, E> {
    /// Every parameter of `eval`, from its starting values.
    pub fn new(eval: &'e E) -> EvalSelection<'e, E> {
        let specs = eval.params();
        let finalisers = eval.finalisers();
        let phase_max = if eval.tapered() {
            eval.phase_max().max(1)
        } else {
            1
        };
        EvalSelection {
            eval,
            specs,
            finalisers,
            phase_max,
        }
    }

    /// The parameters as declared.
    pub fn specs(&self) -> &[ParamSpec] {
        &self.specs
    }

    /// The finalisers as declared (empty: the evaluation is linear).
    pub fn finalisers(&self) -> &[Finaliser] {
        &self.finalisers
    }

    /// The starting weights (parameter order).
    pub fn start_weights(&self) -> Vec<[f64; 2]> {
        self.specs.iter().map(|s| [s.start.0, s.start.1]).collect()
    }

    /// The blend's divisor (1 for an untapered evaluation).
    pub fn phase_max(&self) -> i32 {
        self.phase_max
    }

    /// Whether the evaluation is tapered.
    pub fn tapered(&self) -> bool {
        self.eval.tapered()
    }
}

/// Packs positions through `TunableEval::trace`.
pub struct TracePacker<'s, 'e, E: TunableEval + ?Sized> {
    selection: &'s EvalSelection<'e, E>,
    trace: LinearTrace,
}

impl<E: TunableEval + ?Sized> PackSource for EvalSelection<'_, E> {
    type Packer<'s>
        = TracePacker<'s, 's, E>
    where
        Self: 's;

    fn num_params(&self) -> usize {
        self.specs.len()
    }

    fn packer(&self) -> TracePacker<'_, '_, E> {
        TracePacker {
            // SAFETY-free narrowing of the lifetime 'e to the borrow of self.
            selection: shorten(self),
            trace: LinearTrace::default(),
        }
    }

    fn extended(&self) -> bool {
        true
    }

    fn phase_max(&self) -> i32 {
        self.phase_max
    }

    fn resolver(&self) -> EvalParams {
        EvalParams::default()
    }
}

/// `EvalSelection` is covariant in its lifetime: a longer borrow serves as a shorter one.
fn shorten<'s, 'e: 's, E: TunableEval + ?Sized>(
    s: &'s EvalSelection<'e, E>,
) -> &'s EvalSelection<'s, E> {
    s
}

impl<E: TunableEval + ?Sized> super::selection::PositionPacker for TracePacker<'_, '_, E> {
    fn pack(
        &mut self,
        pos: &Position,
        out: &mut Vec<Coef>,
    ) -> Result<super::selection::PackedPosition, TraceError> {
        let n = self.selection.specs.len();
        self.trace.clear();
        self.selection.eval.trace(pos, &mut self.trace)?;
        let t = &mut self.trace;
        t.coefficients.sort_unstable_by_key(|&(i, _)| i);
        let before = out.len();
        for &(i, c) in &t.coefficients {
            if i as usize >= n {
                return Err(TraceError::bad(format!(
                    "coefficient index {i} is out of range: the evaluation declares {n} parameters"
                )));
            }
            let merge = out.len() > before;
            match out.last_mut() {
                Some(last) if merge && last.index as u32 == i => {
                    let sum = last.count as i32 + c;
                    last.count = i16::try_from(sum).map_err(|_| count_error(i, sum))?;
                }
                _ => out.push(Coef {
                    index: i as u16,
                    count: i16::try_from(c).map_err(|_| count_error(i, c))?,
                }),
            }
        }
        // Repeated indices may have summed to zero.
        let mut kept = before;
        for k in before..out.len() {
            if out[k].count != 0 {
                out[kept] = out[k];
                kept += 1;
            }
        }
        out.truncate(kept);
        if !t.finals.is_empty() {
            pack_finals(&mut t.finals, n, self.selection.finalisers.len(), out)?;
        }
        let phase = if self.selection.tapered() { t.phase } else { 1 };
        if !(0..=255).contains(&phase) {
            return Err(TraceError::bad(format!(
                "phase {phase} is outside 0 to 255"
            )));
        }
        Ok(super::selection::PackedPosition {
            frozen: (0, 0),
            len: out.len() - before,
            phase,
            extra: Extra {
                remainder: t.remainder as f32,
                eg_scale: t.eg_scale as f32,
            },
        })
    }
}

/// Appends the finalisers' per-side groups after the linear coefficients, as `packed::FINAL_MARK`
/// describes: a marker, a header naming the group, then its nonzero members by index.
fn pack_finals(
    finals: &mut [FinalTerm],
    params: usize,
    declared: usize,
    out: &mut Vec<Coef>,
) -> Result<(), TraceError> {
    let side = |c: Color| u32::from(c != Color::White);
    finals.sort_unstable_by_key(|t| (t.finaliser, side(t.side), t.index));
    let mut rest = &finals[..];
    while let Some(first) = rest.first() {
        let (f, s) = (first.finaliser, first.side);
        if f as usize >= declared.min(super::packed::MAX_FINALISERS) {
            return Err(TraceError::bad(format!(
                "a coefficient group of finaliser {f}: the evaluation declares {declared} finalisers"
            )));
        }
        let len = rest
            .iter()
            .position(|t| (t.finaliser, t.side) != (f, s))
            .unwrap_or(rest.len());
        let (group, next) = rest.split_at(len);
        rest = next;
        let mut members: Vec<(u32, i32)> = Vec::with_capacity(group.len());
        for t in group {
            if t.index as usize >= params {
                return Err(TraceError::bad(format!(
                    "finaliser {f} coefficient index {} is out of range: the evaluation declares {params} parameters",
                    t.index
                )));
            }
            match members.last_mut() {
                Some(last) if last.0 == t.index => last.1 += t.count,
                _ => members.push((t.index, t.count)),
            }
        }
        members.retain(|&(_, c)| c != 0);
        if members.is_empty() {
            continue;
        }
        out.push(super::packed::FINAL_MARK);
        out.push(Coef {
            index: 0,
            count: (2 * f + side(s)) as i16,
        });
        for (i, c) in members {
            out.push(Coef {
                index: i as u16,
                count: i16::try_from(c).map_err(|_| count_error(i, c))?,
            });
        }
    }
    Ok(())
}

fn count_error(index: u32, count: i32) -> TraceError {
    TraceError::bad(format!(
        "coefficient {index} has count {count}, outside -32768 to 32767"
    ))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::eval::{evaluate_white, ParamGroup};
    use crate::texel::selection::ParamSelection;
    use crate::texel::synthetic::playout_positions;
    use crate::texel::{loss, Dataset};

    /// The trait's trace of sparring's own evaluation, times its weights, is its evaluation up
    /// to the engine's integer rounding of the blend.
    #[test]
    fn the_own_trace_times_the_weights_is_the_evaluation() {
        let mut params = EvalParams::default();
        params.set_scale(crate::eval::EndgameScale {
            base: 100,
            per_pawn: 7,
            ..crate::eval::EndgameScale::NEUTRAL
        });
        let w: Vec<(f64, f64)> = params.params().iter().map(|s| s.start).collect();
        let mut t = LinearTrace::default();
        for pos in playout_positions(5, 400) {
            t.clear();
            params.trace(&pos, &mut t).unwrap();
            let value = t.value(&w, params.phase_max());
            let eval = evaluate_white(&pos, &params) as f64;
            assert!(
                (value - eval).abs() < 1.0,
                "{} {value} {eval}",
                pos.to_fen()
            );
        }
    }

    /// Packed through the trait or through the fast path, the same positions give the same loss.
    #[test]
    fn the_trait_path_packs_as_the_fast_path_does() {
        let positions = playout_positions(7, 300);
        let labels: Vec<f32> = (0..positions.len()).map(|i| (i % 3) as f32 / 2.0).collect();
        // Without endgame scaling, and with it (then the fast path carries the factors too).
        let mut scaled = EvalParams::default();
        scaled.set_scale(crate::eval::EndgameScale::CLASSICAL);
        let mut neutral = EvalParams::default();
        neutral.set_scale(crate::eval::EndgameScale::NEUTRAL);
        for params in [neutral, scaled] {
            let all = ParamGroup::ALL;
            let fast = ParamSelection::groups(params.clone(), &all);
            assert_eq!(fast.len(), params.len(), "every group is every parameter");
            let generic = EvalSelection::new(&params);
            let a = Dataset::from_positions(&positions, &labels, &fast);
            let b = Dataset::from_positions(&positions, &labels, &generic);
            assert!(b.extended());
            assert_eq!(a.extended(), !params.scale().is_neutral());
            let (la, lb) = (
                loss(&a, &fast.start_weights(), 1.1),
                loss(&b, &generic.start_weights(), 1.1),
            );
            assert!((la - lb).abs() < 1e-12, "{la} {lb}");
        }
    }
}

/// An evaluation with finalisers for the tuner's tests: material (pawn, knight, bishop) linear,
/// and per side a "danger" sum of its knights in the enemy half and its queens (parameters 3
/// and 4) through `Quadratic(-80)` (middlegame) and `Relu(3)` (endgame).
#[cfg(test)]
pub(crate) struct FinalToy;

#[cfg(test)]
impl TunableEval for FinalToy {
    fn params(&self) -> Vec<ParamSpec> {
        [
            (90.0, 110.0),
            (300.0, 280.0),
            (310.0, 300.0),
            (35.0, 20.0),
            (-12.0, 45.0),
        ]
        .iter()
        .enumerate()
        .map(|(i, &(mg, eg))| ParamSpec::tapered(format!("p{i}"), mg, eg))
        .collect()
    }

    fn phase_max(&self) -> i32 {
        MAX_PHASE
    }

    fn finalisers(&self) -> Vec<Finaliser> {
        vec![Finaliser {
            name: "danger".to_string(),
            mg: FinalKind::Quadratic(-80.0),
            eg: FinalKind::Relu(3.0),
        }]
    }

    fn trace(&self, pos: &Position, out: &mut LinearTrace) -> Result<(), TraceError> {
        use crate::board::PieceKind::{Bishop, Knight, Pawn, Queen};
        let n = |c, k| pos.colored(c, k).len() as i32;
        for (i, k) in [Pawn, Knight, Bishop].into_iter().enumerate() {
            out.coefficients
                .push((i as u32, n(Color::White, k) - n(Color::Black, k)));
        }
        for side in [Color::White, Color::Black] {
            let advanced = pos
                .colored(side, Knight)
                .iter()
                .filter(|sq| sq.rank().relative_to(side).index() >= 4)
                .count() as i32;
            for (index, count) in [(3, advanced), (4, n(side, Queen))] {
                out.finals.push(FinalTerm {
                    finaliser: 0,
                    side,
                    index,
                    count,
                });
            }
        }
        out.phase = crate::eval::phase(pos).min(MAX_PHASE);
        Ok(())
    }
}

#[cfg(test)]
pub(crate) mod final_tests {
    use super::*;
    use crate::texel::model::{loss_and_gradient_with, loss_with, predict_one_with};
    use crate::texel::synthetic::playout_positions;
    use crate::texel::Dataset;

    /// A data set of the finaliser toy, labelled by other weights than its start.
    pub(crate) fn toy_set(count: usize) -> (Vec<Position>, Dataset, Vec<[f64; 2]>) {
        let positions = playout_positions(9, count);
        let truth = [
            (100.0, 120.0),
            (320.0, 290.0),
            (300.0, 320.0),
            (50.0, 30.0),
            (-5.0, 60.0),
        ];
        let finals = FinalToy.finalisers();
        let mut t = LinearTrace::default();
        let labels: Vec<f32> = positions
            .iter()
            .map(|pos| {
                t.clear();
                FinalToy.trace(pos, &mut t).unwrap();
                let q = t.value_with(&truth, MAX_PHASE, &finals);
                crate::texel::sigmoid(1.0, q) as f32
            })
            .collect();
        let selection = EvalSelection::new(&FinalToy);
        let data = Dataset::from_positions(&positions, &labels, &selection);
        (positions, data, selection.start_weights())
    }

    /// The packed groups (marker, header, members) give the trace's own value.
    #[test]
    fn packed_finaliser_groups_give_the_traces_value() {
        let (positions, data, start) = toy_set(400);
        let finals = FinalToy.finalisers();
        let w: Vec<(f64, f64)> = start.iter().map(|w| (w[0] + 3.0, w[1] - 7.0)).collect();
        let wa: Vec<[f64; 2]> = w.iter().map(|&(m, e)| [m, e]).collect();
        let mut t = LinearTrace::default();
        let mut nonlinear = 0;
        for (i, pos) in positions.iter().enumerate() {
            t.clear();
            FinalToy.trace(pos, &mut t).unwrap();
            let expected = t.value_with(&w, MAX_PHASE, &finals);
            nonlinear += usize::from((expected - t.value(&w, MAX_PHASE)).abs() > 1.0);
            let packed = predict_one_with(&data, i, &wa, &finals);
            assert!((packed - expected).abs() < 1e-9, "{i}: {packed} {expected}");
        }
        assert!(nonlinear > 100, "the finaliser matters: {nonlinear}");
    }

    /// The chain rule through the finalisers is the loss's derivative.
    #[test]
    fn the_chain_rule_gradient_matches_finite_differences() {
        let (_, data, start) = toy_set(600);
        let finals = FinalToy.finalisers();
        let mut grad = vec![[0.0; 2]; start.len()];
        let l = loss_and_gradient_with(&data, 0..data.len(), &start, 1.0, &mut grad, &finals);
        assert!((l - loss_with(&data, &start, 1.0, &finals)).abs() < 1e-15);
        let largest = grad.iter().flatten().fold(0.0f64, |m, g| m.max(g.abs()));
        assert!(largest > 0.0);
        let h = 1e-3;
        for (i, g) in grad.iter().enumerate() {
            for half in 0..2 {
                let at = |d: f64| {
                    let mut w = start.clone();
                    w[i][half] += d;
                    loss_with(&data, &w, 1.0, &finals)
                };
                let fd = (at(h) - at(-h)) / (2.0 * h);
                assert!(
                    (fd - g[half]).abs() <= 1e-6 * largest,
                    "weight {i}.{half}: chain rule {} vs finite difference {fd}",
                    g[half]
                );
                assert!(g[half] != 0.0, "weight {i}.{half} has a gradient");
            }
        }
    }
}
