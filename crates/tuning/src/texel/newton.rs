//! Gauss-Newton steps with Levenberg-Marquardt damping for the Texel loss. The evaluation is
//! linear in the weights, so the loss is a least-squares problem in q through the sigmoid: one
//! pass over the data builds the Gauss-Newton matrix JᵀJ and the gradient, a dense solve gives the
//! step, and a second pass checks the step lowers the loss (else the damping grows). A handful of
//! iterations reach the minimum Adam approaches over hundreds of epochs.
//!
//! The matrix is dense (2n × 2n for n weight pairs), so this suits evaluations of up to about a
//! thousand parameters; `MAX_WEIGHTS` guards it. Sums are taken over a fixed number of parts
//! added in order, so results do not depend on the thread count.

use super::data::Dataset;
use super::model::{coefficients, l2_penalty, loss_with, predict, predict_final, LN10_400};
use super::packed::Extra;
use super::train::EpochStats;
use super::tunable::Finaliser;
use rayon::prelude::*;
use std::time::Instant;

/// The most weights (two per pair) the dense matrix is built for.
pub const MAX_WEIGHTS: usize = 2048;

/// Fixed parts the data is summed in (the result does not depend on the thread count).
const PARTS: usize = 8;

/// Options of a Gauss-Newton run.
#[derive(Clone, Debug)]
pub(crate) struct NewtonOptions {
    /// The sigmoid's scale (base 10, as `model::sigmoid`).
    pub k: f64,
    /// The most iterations (each two passes over the data).
    pub iterations: usize,
    /// Stop when an accepted step lowers the loss by less than this.
    pub tolerance: f64,
    /// Weights that keep their value (per pair).
    pub frozen: Vec<bool>,
    /// Bounds per pair (both halves); a step is projected into them.
    pub bounds: Vec<Option<(f64, f64)>>,
    /// L2 penalty toward the start, as `TrainOptions::l2`: the minimised loss is
    /// MSE + l2 × Σ ((w − w_start) / 100)² (0 = plain least squares).
    pub l2: f64,
}

/// The L2 penalty's pull toward the start weights, for the loss, gradient and matrix.
struct Penalty<'a> {
    anchor: &'a [[f64; 2]],
    l2: f64,
}

impl Penalty<'_> {
    fn of(&self, w: &[[f64; 2]]) -> f64 {
        l2_penalty(w, self.anchor, self.l2)
    }

    /// Adds the penalty's gradient and (exact) second derivative to `g` and `h`.
    fn add_to(&self, w: &[[f64; 2]], h: &mut [f64], g: &mut [f64]) {
        if self.l2 == 0.0 {
            return;
        }
        // d/dw of l2 × ((w − a) / 100)²: 2 × l2 / 100² × (w − a), and its second derivative.
        let per_cp = self.l2 / 1e4;
        let n = g.len();
        for (i, (w, a)) in w.iter().zip(self.anchor).enumerate() {
            for half in 0..2 {
                let j = 2 * i + half;
                g[j] += 2.0 * per_cp * (w[half] - a[half]);
                h[j * n + j] += 2.0 * per_cp;
            }
        }
    }
}

/// What a run gives: the weights and the loss after each iteration (iteration 0 the start).
#[derive(Clone, Debug)]
pub(crate) struct NewtonResult {
    /// The final weights.
    pub weights: Vec<[f64; 2]>,
    /// Training loss after each iteration, with wall time since the start.
    pub history: Vec<EpochStats>,
}

/// The Gauss-Newton matrix (symmetric, full) and gradient of the mean squared error. With
/// finalisers (`FINAL`), the Jacobian's rows are the chain rule through them at `w`.
fn build<const FINAL: bool>(
    data: &Dataset,
    w: &[[f64; 2]],
    k: f64,
    finals: &[Finaliser],
) -> (Vec<f64>, Vec<f64>, f64) {
    let n = 2 * w.len();
    let c = k * LN10_400;
    let inv = 1.0 / data.phase_max() as f64;
    let len = data.len();
    let parts: Vec<(Vec<f64>, Vec<f64>, f64)> = (0..PARTS)
        .into_par_iter()
        .map(|p| {
            let (lo, hi) = (p * len / PARTS, (p + 1) * len / PARTS);
            let mut h = vec![0.0; n * n];
            let mut g = vec![0.0; n];
            let mut sum = 0.0;
            let mut idx: Vec<(usize, f64)> = Vec::with_capacity(128);
            let mut row: Vec<(usize, f64, f64)> = Vec::new();
            let plain = Extra::default();
            for i in lo..hi {
                let e = &data.entries()[i];
                let coeffs = coefficients(data.coeffs(), e);
                let (q, pm, pe) = match data.extras().get(i) {
                    Some(x) if FINAL => {
                        row.clear();
                        predict_final(coeffs, e, x, w, inv, finals, Some(&mut row))
                    }
                    Some(x) => predict::<true>(coeffs, e, x, w, inv),
                    None => predict::<false>(coeffs, e, &plain, w, inv),
                };
                let s = 1.0 / (1.0 + (-c * q).exp());
                let r = e.label() as f64 - s;
                sum += r * r;
                // dr/dw = −σ'·c·a with a = ∂q/∂w (the coefficient times its phase factor
                // when linear).
                let d = s * (1.0 - s) * c;
                idx.clear();
                if FINAL {
                    for &(j, am, ae) in &row {
                        idx.push((2 * j, am * d));
                        idx.push((2 * j + 1, ae * d));
                    }
                } else {
                    for co in coeffs {
                        let a = co.count as f64;
                        idx.push((2 * co.index as usize, a * pm * d));
                        idx.push((2 * co.index as usize + 1, a * pe * d));
                    }
                }
                // The upper triangle only (mirrored below): half the work of the full product.
                for (p, &(j, aj)) in idx.iter().enumerate() {
                    g[j] -= r * aj;
                    h[j * n + j] += aj * aj;
                    for &(l, al) in &idx[p + 1..] {
                        // Each unordered pair once; a repeated index lands on the diagonal twice.
                        let v = aj * al;
                        let (lo, hi) = if j <= l { (j, l) } else { (l, j) };
                        h[lo * n + hi] += if j == l { 2.0 * v } else { v };
                    }
                }
            }
            (h, g, sum)
        })
        .collect();
    let (mut h, mut g, mut sum) = (vec![0.0; n * n], vec![0.0; n], 0.0);
    for (ph, pg, ps) in parts {
        sum += ps;
        h.iter_mut().zip(&ph).for_each(|(a, b)| *a += b);
        g.iter_mut().zip(&pg).for_each(|(a, b)| *a += b);
    }
    for j in 0..n {
        for l in j + 1..n {
            h[l * n + j] = h[j * n + l];
        }
    }
    // Of the mean: E = (1/N) Σ r², ∇E = (2/N) Σ r·dr/dw, H ≈ (2/N) Σ (dr/dw)(dr/dw)ᵀ.
    let scale = 2.0 / len.max(1) as f64;
    h.iter_mut().for_each(|x| *x *= scale);
    g.iter_mut().for_each(|x| *x *= scale);
    (h, g, sum / len.max(1) as f64)
}

/// Minimises the mean squared error on `data` from weights `start` (one pair per tuned
/// parameter); `on_iteration` sees each iteration's statistics. With a non-empty `validation`
/// set its error is reported too, but the converged weights are kept: a few Gauss-Newton steps
/// fit a linear model, and a small validation set's noise should not undo them.
pub(crate) fn gauss_newton(
    data: &Dataset,
    validation: &Dataset,
    start: Vec<[f64; 2]>,
    options: &NewtonOptions,
    on_iteration: &mut dyn FnMut(&EpochStats),
) -> NewtonResult {
    gauss_newton_with(data, validation, start, options, &[], on_iteration)
}

/// `gauss_newton` for an evaluation with finalisers: the model is no longer linear in the
/// weights, so each iteration's Jacobian is taken afresh at the current weights (the damping
/// keeps the steps where that linearisation holds).
pub(crate) fn gauss_newton_with(
    data: &Dataset,
    validation: &Dataset,
    start: Vec<[f64; 2]>,
    options: &NewtonOptions,
    finals: &[Finaliser],
    on_iteration: &mut dyn FnMut(&EpochStats),
) -> NewtonResult {
    assert!(
        2 * start.len() <= MAX_WEIGHTS,
        "too many weights for a dense Gauss-Newton step"
    );
    let started = Instant::now();
    let anchor = start.clone();
    let penalty = Penalty {
        anchor: &anchor,
        l2: options.l2,
    };
    let loss = |data: &Dataset, w: &[[f64; 2]], k: f64| loss_with(data, w, k, finals);
    let objective = |w: &[[f64; 2]]| loss(data, w, options.k) + penalty.of(w);
    let mut w = start;
    let mut lambda = 1e-3;
    let mut history: Vec<EpochStats> = Vec::new();
    let mut record = |epoch, mse, w: &[[f64; 2]], history: &mut Vec<EpochStats>| {
        history.push(EpochStats {
            epoch,
            train_mse: mse,
            validation_mse: (!validation.is_empty()).then(|| loss(validation, w, options.k)),
            best_epoch: epoch,
            seconds: started.elapsed().as_secs_f64(),
        });
        on_iteration(history.last().expect("just pushed"));
    };
    let mut current = objective(&w);
    record(0, loss(data, &w, options.k), &w, &mut history);
    for iteration in 1..=options.iterations {
        let step = step(data, &w, current, &mut lambda, options, &penalty, finals);
        let (next, improved) = match step {
            Some((trial, next)) => {
                let gain = current - next;
                w = trial;
                (next, gain >= options.tolerance)
            }
            None => (current, false),
        };
        current = next;
        // The history shows the plain error (the penalty is the optimiser's own business).
        record(iteration, loss(data, &w, options.k), &w, &mut history);
        if !improved {
            break;
        }
    }
    NewtonResult {
        weights: w,
        history,
    }
}

/// One damped step from `w` (loss `current`): the new weights and their loss, raising the
/// damping until a step lowers the loss; None when no step does.
fn step(
    data: &Dataset,
    w: &[[f64; 2]],
    current: f64,
    lambda: &mut f64,
    options: &NewtonOptions,
    penalty: &Penalty<'_>,
    finals: &[Finaliser],
) -> Option<(Vec<[f64; 2]>, f64)> {
    let n = 2 * w.len();
    let (mut h, mut g, _) = if finals.is_empty() {
        build::<false>(data, w, options.k, finals)
    } else {
        build::<true>(data, w, options.k, finals)
    };
    penalty.add_to(w, &mut h, &mut g);
    let fixed =
        |j: usize| options.frozen.get(j / 2).copied().unwrap_or(false) || h[j * n + j] == 0.0;
    // A few tries at most in practice.
    for _ in 0..30 {
        let mut a = h.clone();
        for j in 0..n {
            if fixed(j) {
                // A weight the data never moves (or that is frozen) keeps its value.
                for l in 0..n {
                    a[j * n + l] = 0.0;
                    a[l * n + j] = 0.0;
                }
                a[j * n + j] = 1.0;
            } else {
                a[j * n + j] = h[j * n + j] * (1.0 + *lambda);
            }
        }
        let rhs: Vec<f64> = (0..n).map(|j| if fixed(j) { 0.0 } else { -g[j] }).collect();
        let Some(delta) = crate::stats::cholesky_solve(a, rhs) else {
            *lambda *= 10.0;
            continue;
        };
        let trial: Vec<[f64; 2]> = w
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let clamp = |x: f64| match options.bounds.get(i).copied().flatten() {
                    Some((lo, hi)) => x.clamp(lo, hi),
                    None => x,
                };
                [clamp(p[0] + delta[2 * i]), clamp(p[1] + delta[2 * i + 1])]
            })
            .collect();
        let next = loss_with(data, &trial, options.k, finals) + penalty.of(&trial);
        if next < current {
            *lambda = (*lambda / 3.0).max(1e-9);
            return Some((trial, next));
        }
        *lambda *= 4.0;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::{EvalParams, ParamGroup};
    use crate::texel::{synthetic, ParamSelection};

    /// The Gauss-Newton matrix as the plain (un-mirrored) outer product of every position.
    fn full_product(data: &Dataset, w: &[[f64; 2]], k: f64) -> Vec<f64> {
        let n = 2 * w.len();
        let c = k * LN10_400;
        let inv = 1.0 / data.phase_max() as f64;
        let mut h = vec![0.0; n * n];
        for (i, e) in data.entries().iter().enumerate() {
            let coeffs = coefficients(data.coeffs(), e);
            let (q, pm, pe) = match data.extras().get(i) {
                Some(x) => predict::<true>(coeffs, e, x, w, inv),
                None => predict::<false>(coeffs, e, &Extra::default(), w, inv),
            };
            let s = 1.0 / (1.0 + (-c * q).exp());
            let d = s * (1.0 - s) * c;
            let mut grad = vec![0.0; n];
            for co in coeffs {
                grad[2 * co.index as usize] += co.count as f64 * pm * d;
                grad[2 * co.index as usize + 1] += co.count as f64 * pe * d;
            }
            for j in 0..n {
                for l in 0..n {
                    h[j * n + l] += grad[j] * grad[l];
                }
            }
        }
        let scale = 2.0 / data.len() as f64;
        h.iter_mut().for_each(|x| *x *= scale);
        h
    }

    #[test]
    fn the_triangle_built_matrix_is_the_full_outer_product() {
        let positions = synthetic::playout_positions(11, 300);
        let params = EvalParams::default();
        let labels = synthetic::soft_labels(&positions, &params, 1.0);
        let selection = ParamSelection::groups(params, &[ParamGroup::Material, ParamGroup::Pieces]);
        let data = Dataset::from_positions(&positions, &labels, &selection);
        let w = selection.start_weights();
        let (h, _, _) = build::<false>(&data, &w, 1.0, &[]);
        let expected = full_product(&data, &w, 1.0);
        let largest = expected.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        assert!(largest > 0.0);
        for (a, b) in h.iter().zip(&expected) {
            assert!((a - b).abs() <= 1e-12 * largest, "{a} vs {b}");
        }
    }

    /// With finalisers, the Jacobian's gradient is the chain-rule gradient Adam uses, and the
    /// iterations (the Jacobian re-taken at each) find the weights that labelled the data.
    #[test]
    fn gauss_newton_through_finalisers_finds_the_labelling_weights() {
        use crate::texel::model::loss_and_gradient_with;
        use crate::texel::tunable::{final_tests::toy_set, FinalToy, TunableEval};
        let (_, data, start) = toy_set(3000);
        let finals = FinalToy.finalisers();
        let (_, g, _) = build::<true>(&data, &start, 1.0, &finals);
        let mut grad = vec![[0.0; 2]; start.len()];
        loss_and_gradient_with(&data, 0..data.len(), &start, 1.0, &mut grad, &finals);
        for (a, b) in g.iter().zip(grad.iter().flatten()) {
            assert!((a - b).abs() <= 1e-12, "{a} vs {b}");
        }
        let options = NewtonOptions {
            k: 1.0,
            iterations: 30,
            tolerance: 1e-15,
            frozen: Vec::new(),
            bounds: Vec::new(),
            l2: 0.0,
        };
        let empty = Dataset::default();
        let r = gauss_newton_with(&data, &empty, start, &options, &finals, &mut |_| {});
        let (first, last) = (&r.history[0], r.history.last().unwrap());
        assert!(
            last.train_mse < first.train_mse / 10.0,
            "{first:?} {last:?}"
        );
        let truth = [[50.0, 30.0], [-5.0, 60.0]];
        for (w, t) in r.weights[3..].iter().zip(truth) {
            for half in 0..2 {
                assert!(
                    (w[half] - t[half]).abs() < 2.0,
                    "{:?} vs {truth:?}",
                    r.weights
                );
            }
        }
    }

    #[test]
    fn cholesky_solves_a_small_system() {
        // [[4, 2], [2, 3]] x = [2, 1] → x = [0.5, 0].
        let x = crate::stats::cholesky_solve(vec![4.0, 2.0, 2.0, 3.0], vec![2.0, 1.0]).unwrap();
        assert!((x[0] - 0.5).abs() < 1e-12 && x[1].abs() < 1e-12, "{x:?}");
        assert!(crate::stats::cholesky_solve(vec![1.0, 2.0, 2.0, 1.0], vec![1.0, 1.0]).is_none());
    }
}
