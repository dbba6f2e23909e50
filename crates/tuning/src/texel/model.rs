//! The model the tuner fits and its loss: the evaluation is linear in the weights, blended by
//! phase, and mapped to an expected score by σ(q) = 1 / (1 + 10^(−K·q/400)); the loss is the mean
//! squared error against the labels.
//!
//! The model blends with real numbers, q = mg·φ/24 + eg·(24−φ)/24, where the engine divides the
//! integer blend by 24 and truncates; the two differ by less than one centipawn.
//! `engine_loss` evaluates rounded weights exactly as the engine does.
//!
//! Work is split into fixed chunks of positions whose partial sums are added in chunk order, so
//! losses and gradients are bit-for-bit the same for any number of threads.

use super::data::Dataset;
use super::packed::{Coef, Entry, Extra};
use super::tunable::Finaliser;
use crate::eval::{taper_scaled, SCALE_NORMAL};
use rayon::prelude::*;
use std::ops::Range;

/// Positions per parallel work item (fixed, so results never depend on the thread count).
pub const CHUNK: usize = 8192;

/// The range searched when K is fitted.
pub const K_RANGE: (f64, f64) = (0.01, 10.0);

/// ln(10)/400: 10^(−K·q/400) = e^(−K·LN10_400·q).
pub(crate) const LN10_400: f64 = std::f64::consts::LN_10 / 400.0;

/// The expected score (White's view) of a White-view evaluation `q` in centipawns.
#[inline]
pub fn sigmoid(k: f64, q: f64) -> f64 {
    1.0 / (1.0 + (-k * LN10_400 * q).exp())
}

/// The weight pair of coefficient `c`, unchecked: this is the innermost loop.
///
/// # Safety
/// `c.index < w.len()`. Every coefficient a `Dataset` holds indexes below its `num_params`
/// (they come from `ParamSelection::pack`), and every public entry point here asserts
/// `w.len() == data.num_params()`.
#[inline(always)]
unsafe fn weight(w: &[[f64; 2]], c: &Coef) -> [f64; 2] {
    debug_assert!((c.index as usize) < w.len());
    *w.get_unchecked(c.index as usize)
}

/// The model's evaluation of one position: the tuned part from `w` plus the frozen constant,
/// blended with `inv = 1 / phase_max`, and for an extended set the remainder and endgame scale.
/// Returns (q, middlegame factor, endgame factor). Coefficients are taken two at a time into
/// separate sums, which halves the chain of dependent additions (the loop is latency-bound
/// otherwise).
#[inline(always)]
pub(super) fn predict<const EXT: bool>(
    coeffs: &[Coef],
    e: &Entry,
    x: &Extra,
    w: &[[f64; 2]],
    inv: f64,
) -> (f64, f64, f64) {
    let (mut mg0, mut eg0) = (e.frozen.0 as f64, e.frozen.1 as f64);
    let (mut mg1, mut eg1) = (0.0, 0.0);
    let mut pairs = coeffs.chunks_exact(2);
    for pair in &mut pairs {
        let (a, b) = (&pair[0], &pair[1]);
        // SAFETY: see `weight`.
        let (wa, wb) = unsafe { (weight(w, a), weight(w, b)) };
        let (na, nb) = (a.count as f64, b.count as f64);
        mg0 += na * wa[0];
        eg0 += na * wa[1];
        mg1 += nb * wb[0];
        eg1 += nb * wb[1];
    }
    if let [c] = pairs.remainder() {
        // SAFETY: see `weight`.
        let wc = unsafe { weight(w, c) };
        let n = c.count as f64;
        mg0 += n * wc[0];
        eg0 += n * wc[1];
    }
    let pm = e.phase as f64 * inv;
    if EXT {
        let pe = (1.0 - pm) * x.eg_scale as f64;
        (
            (mg0 + mg1) * pm + (eg0 + eg1) * pe + x.remainder as f64,
            pm,
            pe,
        )
    } else {
        ((mg0 + mg1) * pm + (eg0 + eg1) * (1.0 - pm), pm, 1.0 - pm)
    }
}

/// The model's evaluation of position `i` of `data` under weights `w` (White's view, cp).
pub(crate) fn predict_one(data: &Dataset, i: usize, w: &[[f64; 2]]) -> f64 {
    check_weights(data, w);
    let e = &data.entries()[i];
    let inv = 1.0 / data.phase_max() as f64;
    let coeffs = coefficients(data.coeffs(), e);
    match data.extras().get(i) {
        Some(x) => predict::<true>(coeffs, e, x, w, inv).0,
        None => predict::<false>(coeffs, e, &Extra::default(), w, inv).0,
    }
}

/// `predict_one` for an evaluation with finalisers (`predict_one` itself when there are none).
pub(crate) fn predict_one_with(
    data: &Dataset,
    i: usize,
    w: &[[f64; 2]],
    finals: &[Finaliser],
) -> f64 {
    if finals.is_empty() {
        return predict_one(data, i, w);
    }
    check_weights(data, w);
    let e = &data.entries()[i];
    let x = data.extras().get(i).copied().unwrap_or_default();
    let inv = 1.0 / data.phase_max() as f64;
    predict_final(coefficients(data.coeffs(), e), e, &x, w, inv, finals, None).0
}

/// The model's evaluation of one position of a set whose evaluation declares finalisers (the
/// layout `packed::FINAL_MARK` describes): (q, middlegame factor, endgame factor). With `row`,
/// also every coefficient's (parameter, ∂q/∂w.mg, ∂q/∂w.eg), the chain rule through the
/// finalisers; a parameter may appear more than once.
pub(super) fn predict_final(
    coeffs: &[Coef],
    e: &Entry,
    x: &Extra,
    w: &[[f64; 2]],
    inv: f64,
    finals: &[Finaliser],
    mut row: Option<&mut Vec<(usize, f64, f64)>>,
) -> (f64, f64, f64) {
    let pm = e.phase as f64 * inv;
    let pe = (1.0 - pm) * x.eg_scale as f64;
    let (mut mg, mut eg) = (e.frozen.0 as f64, e.frozen.1 as f64);
    let split = coeffs.iter().position(|c| c.count == 0);
    let (linear, mut rest) = coeffs.split_at(split.unwrap_or(coeffs.len()));
    for c in linear {
        let (n, wc) = (c.count as f64, w[c.index as usize]);
        mg += n * wc[0];
        eg += n * wc[1];
        if let Some(row) = row.as_deref_mut() {
            row.push((c.index as usize, n * pm, n * pe));
        }
    }
    // Each group: the marker, the header (2·finaliser + side), the members up to the next marker.
    while let [_, header, tail @ ..] = rest {
        let len = tail.iter().position(|c| c.count == 0).unwrap_or(tail.len());
        let (members, next) = tail.split_at(len);
        rest = next;
        let group = header.count as usize;
        let Some(f) = finals.get(group / 2) else {
            continue;
        };
        let sign = if group % 2 == 0 { 1.0 } else { -1.0 };
        let (mut xm, mut xe) = (0.0, 0.0);
        for c in members {
            let (n, wc) = (c.count as f64, w[c.index as usize]);
            xm += n * wc[0];
            xe += n * wc[1];
        }
        mg += sign * f.mg.value(xm);
        eg += sign * f.eg.value(xe);
        if let Some(row) = row.as_deref_mut() {
            let (dm, de) = (sign * f.mg.slope(xm) * pm, sign * f.eg.slope(xe) * pe);
            for c in members {
                let n = c.count as f64;
                row.push((c.index as usize, n * dm, n * de));
            }
        }
    }
    (mg * pm + eg * pe + x.remainder as f64, pm, pe)
}

/// The coefficients of entry `e` (an entry of `data`).
#[inline(always)]
pub(super) fn coefficients<'a>(all: &'a [Coef], e: &Entry) -> &'a [Coef] {
    &all[e.offset as usize..e.offset as usize + e.len as usize]
}

/// Sum of squared residuals over `entries`; with `GRAD`, also adds Σ r·σ(1−σ)·count·(phase
/// factor) to `grad` (the gradient up to the factor −2c/N applied by the caller).
#[inline(always)]
fn chunk_pass_body<const GRAD: bool, const EXT: bool>(
    all: &[Coef],
    entries: &[Entry],
    extras: &[Extra],
    w: &[[f64; 2]],
    (c, inv): (f64, f64),
    grad: &mut [[f64; 2]],
) -> f64 {
    let mut sum = 0.0;
    let plain = Extra::default();
    for (j, e) in entries.iter().enumerate() {
        let coeffs = coefficients(all, e);
        let x = if EXT { &extras[j] } else { &plain };
        let (q, pm, pe) = predict::<EXT>(coeffs, e, x, w, inv);
        let s = 1.0 / (1.0 + (-c * q).exp());
        let r = e.label() as f64 - s;
        sum += r * r;
        if GRAD {
            let g = r * s * (1.0 - s);
            let (gm, ge) = (g * pm, g * pe);
            for co in coeffs {
                let n = co.count as f64;
                debug_assert!((co.index as usize) < grad.len());
                // SAFETY: as for `weight`; `grad` has one pair per weight pair (asserted by the
                // public entry points).
                let slot = unsafe { grad.get_unchecked_mut(co.index as usize) };
                slot[0] += n * gm;
                slot[1] += n * ge;
            }
        }
    }
    sum
}

/// The body compiled for AVX2 + FMA. Rust never fuses a multiply and an add by itself, so the
/// results are bit-for-bit those of the generic build; the newer encodings are only faster.
///
/// # Safety
/// The CPU must support AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn chunk_pass_avx2<const GRAD: bool, const EXT: bool>(
    all: &[Coef],
    entries: &[Entry],
    extras: &[Extra],
    w: &[[f64; 2]],
    scales: (f64, f64),
    grad: &mut [[f64; 2]],
) -> f64 {
    chunk_pass_body::<GRAD, EXT>(all, entries, extras, w, scales, grad)
}

/// `chunk_pass_body` in the best build the CPU supports; `extras` empty for a set that is not
/// extended. `scales` = (c = K·ln10/400, 1/phase_max).
fn chunk_pass<const GRAD: bool>(
    all: &[Coef],
    entries: &[Entry],
    extras: &[Extra],
    w: &[[f64; 2]],
    scales: (f64, f64),
    grad: &mut [[f64; 2]],
) -> f64 {
    if extras.is_empty() {
        chunk_pass_best::<GRAD, false>(all, entries, extras, w, scales, grad)
    } else {
        chunk_pass_best::<GRAD, true>(all, entries, extras, w, scales, grad)
    }
}

#[inline(always)]
fn chunk_pass_best<const GRAD: bool, const EXT: bool>(
    all: &[Coef],
    entries: &[Entry],
    extras: &[Extra],
    w: &[[f64; 2]],
    scales: (f64, f64),
    grad: &mut [[f64; 2]],
) -> f64 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the features were just detected.
        return unsafe { chunk_pass_avx2::<GRAD, EXT>(all, entries, extras, w, scales, grad) };
    }
    chunk_pass_body::<GRAD, EXT>(all, entries, extras, w, scales, grad)
}

/// The extras of `range` of `data` (empty when the set is not extended).
fn extras_of(data: &Dataset, range: Range<usize>) -> &[Extra] {
    if data.extended() {
        &data.extras()[range]
    } else {
        &[]
    }
}

/// Chunks of the extras matching `entries.par_chunks(CHUNK)` (empty ones when not extended).
fn extra_chunk(extras: &[Extra], chunk: usize) -> &[Extra] {
    if extras.is_empty() {
        &[]
    } else {
        &extras[chunk * CHUNK..((chunk + 1) * CHUNK).min(extras.len())]
    }
}

fn check_weights(data: &Dataset, w: &[[f64; 2]]) {
    assert_eq!(
        w.len(),
        data.num_params(),
        "one weight pair per tuned parameter"
    );
}

/// The L2 penalty toward `anchor` (`TrainOptions::l2`): l2 × Σ ((w − anchor) / 100)² over both
/// halves of every weight; Adam and Gauss-Newton minimise the error plus this.
pub(super) fn l2_penalty(w: &[[f64; 2]], anchor: &[[f64; 2]], l2: f64) -> f64 {
    let sum: f64 = w
        .iter()
        .zip(anchor)
        .map(|(w, a)| ((w[0] - a[0]) / 100.0).powi(2) + ((w[1] - a[1]) / 100.0).powi(2))
        .sum();
    l2 * sum
}

/// The mean squared error of the model with weights `w` over all of `data`.
pub fn loss(data: &Dataset, w: &[[f64; 2]], k: f64) -> f64 {
    check_weights(data, w);
    if data.is_empty() {
        return 0.0;
    }
    let scales = (k * LN10_400, 1.0 / data.phase_max() as f64);
    let extras = extras_of(data, 0..data.len());
    let sums: Vec<f64> = data
        .entries()
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(i, chunk)| {
            let x = extra_chunk(extras, i);
            chunk_pass::<false>(data.coeffs(), chunk, x, w, scales, &mut [])
        })
        .collect();
    sums.iter().sum::<f64>() / data.len() as f64
}

/// `loss` for an evaluation with finalisers (`loss` itself when there are none).
pub(crate) fn loss_with(data: &Dataset, w: &[[f64; 2]], k: f64, finals: &[Finaliser]) -> f64 {
    if finals.is_empty() {
        return loss(data, w, k);
    }
    let mut none = [];
    final_pass(data, 0..data.len(), w, k, finals, &mut none)
}

/// `loss_and_gradient` for an evaluation with finalisers (`loss_and_gradient` itself when there
/// are none): the gradient through the finalisers by the chain rule.
pub(crate) fn loss_and_gradient_with(
    data: &Dataset,
    range: Range<usize>,
    w: &[[f64; 2]],
    k: f64,
    grad: &mut [[f64; 2]],
    finals: &[Finaliser],
) -> f64 {
    if finals.is_empty() {
        return loss_and_gradient(data, range, w, k, grad);
    }
    assert_eq!(grad.len(), w.len());
    final_pass(data, range, w, k, finals, grad)
}

/// The finaliser path's loss over `range`, and its gradient into `grad` unless `grad` is empty.
fn final_pass(
    data: &Dataset,
    range: Range<usize>,
    w: &[[f64; 2]],
    k: f64,
    finals: &[Finaliser],
    grad: &mut [[f64; 2]],
) -> f64 {
    check_weights(data, w);
    grad.fill([0.0, 0.0]);
    let with_grad = !grad.is_empty();
    if range.is_empty() {
        return 0.0;
    }
    let c = k * LN10_400;
    let inv = 1.0 / data.phase_max() as f64;
    let (n, end) = (range.len(), range.end);
    let parts: Vec<(f64, Vec<[f64; 2]>)> = range
        .step_by(CHUNK)
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|lo| {
            let mut g = vec![[0.0; 2]; if with_grad { w.len() } else { 0 }];
            let mut row = Vec::new();
            let mut sum = 0.0;
            for i in lo..(lo + CHUNK).min(end) {
                let e = &data.entries()[i];
                let x = data.extras().get(i).copied().unwrap_or_default();
                let coeffs = coefficients(data.coeffs(), e);
                row.clear();
                let slot = with_grad.then_some(&mut row);
                let (q, _, _) = predict_final(coeffs, e, &x, w, inv, finals, slot);
                let s = 1.0 / (1.0 + (-c * q).exp());
                let r = e.label() as f64 - s;
                sum += r * r;
                let d = r * s * (1.0 - s);
                for &(j, am, ae) in &row {
                    g[j][0] += d * am;
                    g[j][1] += d * ae;
                }
            }
            (sum, g)
        })
        .collect();
    // dE/dw = −(2c/N) Σ r·σ(1−σ)·∂q/∂w.
    let scale = -2.0 * c / n as f64;
    let mut sum = 0.0;
    for (s, g) in &parts {
        sum += s;
        for (out, part) in grad.iter_mut().zip(g) {
            out[0] += part[0] * scale;
            out[1] += part[1] * scale;
        }
    }
    sum / n as f64
}

/// The mean squared error over positions `range` of `data`, and its gradient with respect to
/// every tuned (mg, eg) weight, written to `grad`.
pub fn loss_and_gradient(
    data: &Dataset,
    range: Range<usize>,
    w: &[[f64; 2]],
    k: f64,
    grad: &mut [[f64; 2]],
) -> f64 {
    check_weights(data, w);
    assert_eq!(grad.len(), w.len());
    grad.fill([0.0, 0.0]);
    let entries = &data.entries()[range.clone()];
    if entries.is_empty() {
        return 0.0;
    }
    let c = k * LN10_400;
    let scales = (c, 1.0 / data.phase_max() as f64);
    let extras = extras_of(data, range);
    let parts: Vec<(f64, Vec<[f64; 2]>)> = entries
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(i, chunk)| {
            let mut g = vec![[0.0; 2]; w.len()];
            let x = extra_chunk(extras, i);
            let sum = chunk_pass::<true>(data.coeffs(), chunk, x, w, scales, &mut g);
            (sum, g)
        })
        .collect();
    let n = entries.len() as f64;
    // dE/dw = −(2c/N) Σ r·σ(1−σ)·count·factor.
    let scale = -2.0 * c / n;
    let mut sum = 0.0;
    for (s, g) in &parts {
        sum += s;
        for (out, part) in grad.iter_mut().zip(g) {
            out[0] += part[0];
            out[1] += part[1];
        }
    }
    for g in grad.iter_mut() {
        g[0] *= scale;
        g[1] *= scale;
    }
    sum / n
}

/// The mean squared error of integer weights `w` (compact order) evaluated exactly as the engine
/// does, with the integer phase blend: what the written weights file will score.
pub(crate) fn engine_loss(data: &Dataset, w: &[(i32, i32)], k: f64) -> f64 {
    assert_eq!(w.len(), data.num_params());
    if data.is_empty() {
        return 0.0;
    }
    if data.extended() {
        // Another engine's integer blend is not known: its rounded weights in the real model.
        let wf: Vec<[f64; 2]> = w.iter().map(|&(m, e)| [m as f64, e as f64]).collect();
        return loss(data, &wf, k);
    }
    let sums: Vec<f64> = data
        .entries()
        .par_chunks(CHUNK)
        .map(|chunk| {
            let mut sum = 0.0;
            for e in chunk {
                let (mut mg, mut eg) = e.frozen;
                for co in coefficients(data.coeffs(), e) {
                    let (wm, we) = w[co.index as usize];
                    mg += co.count as i32 * wm;
                    eg += co.count as i32 * we;
                }
                // The engine's blend and clamp (sparring's own entries are unscaled).
                let q = taper_scaled(mg, eg, e.phase as i32, SCALE_NORMAL) as f64;
                let r = e.label() as f64 - sigmoid(k, q);
                sum += r * r;
            }
            sum
        })
        .collect();
    sums.iter().sum::<f64>() / data.len() as f64
}

/// Fits K: the value in `K_RANGE` minimising the mean squared error of weights `w` on `data`,
/// by golden-section search (the error is unimodal in K for any sensible evaluation).
/// Returns (K, error at K).
pub fn fit_k(data: &Dataset, w: &[[f64; 2]]) -> (f64, f64) {
    fit_k_with(data, w, &[])
}

/// `fit_k` for an evaluation with finalisers.
pub(crate) fn fit_k_with(data: &Dataset, w: &[[f64; 2]], finals: &[Finaliser]) -> (f64, f64) {
    check_weights(data, w);
    // The evaluations do not depend on K: compute them once.
    let evals: Vec<(f64, f32)> = (0..data.len())
        .into_par_iter()
        .map(|i| {
            (
                predict_one_with(data, i, w, finals),
                data.entries()[i].label(),
            )
        })
        .collect();
    let mse = |k: f64| -> f64 {
        let sums: Vec<f64> = evals
            .par_chunks(CHUNK)
            .map(|chunk| {
                chunk
                    .iter()
                    .map(|&(q, label)| {
                        let r = label as f64 - sigmoid(k, q);
                        r * r
                    })
                    .sum()
            })
            .collect();
        sums.iter().sum::<f64>() / evals.len().max(1) as f64
    };
    golden_section(mse, K_RANGE.0, K_RANGE.1, 1e-6)
}

/// Minimises a unimodal `f` on [lo, hi] to within `tol`; returns (argmin, min).
pub(crate) fn golden_section(
    f: impl Fn(f64) -> f64,
    mut lo: f64,
    mut hi: f64,
    tol: f64,
) -> (f64, f64) {
    let inv_phi = (5f64.sqrt() - 1.0) / 2.0;
    let mut a = hi - inv_phi * (hi - lo);
    let mut b = lo + inv_phi * (hi - lo);
    let (mut fa, mut fb) = (f(a), f(b));
    while hi - lo > tol {
        if fa <= fb {
            hi = b;
            b = a;
            fb = fa;
            a = hi - inv_phi * (hi - lo);
            fa = f(a);
        } else {
            lo = a;
            a = b;
            fa = fb;
            b = lo + inv_phi * (hi - lo);
            fb = f(b);
        }
    }
    if fa <= fb {
        (a, fa)
    } else {
        (b, fb)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sigmoid_is_the_base_10_logistic() {
        assert_eq!(sigmoid(1.0, 0.0), 0.5);
        assert!((sigmoid(1.0, 400.0) - 10.0 / 11.0).abs() < 1e-12);
        assert!((sigmoid(2.0, -200.0) - 1.0 / 11.0).abs() < 1e-12);
    }

    #[test]
    fn golden_section_finds_a_parabola_minimum() {
        let (x, fx) = golden_section(|x| (x - 1.3) * (x - 1.3) + 2.0, 0.0, 10.0, 1e-9);
        assert!((x - 1.3).abs() < 1e-6, "{x}");
        assert!((fx - 2.0).abs() < 1e-12);
    }
}
