//! The maximum-likelihood fit of one rated group: Newton's method on the log-likelihood of the
//! logistic model, in natural units (`theta = elo * ln 10 / 400`), with step halving.
//!
//! The log-likelihood is concave and, on a strongly connected group, has one maximum up to a
//! common shift; the Newton system is the group's weighted Laplacian, solved with one engine
//! held fixed. Newton converges in a handful of steps where the per-engine (diagonal) update
//! needs hundreds, which is what makes a thousand bootstrap fits cheap.

use super::tally::Tallies;

/// A step below this (natural units, about 2e-8 Elo) ends the fit.
const TOLERANCE: f64 = 1e-10;

/// Newton steps before giving up (a strongly connected group needs fewer than 20).
const MAX_STEPS: usize = 200;

/// `ln(1 + e^x)` without overflow.
fn softplus(x: f64) -> f64 {
    if x > 0.0 {
        x + (-x).exp().ln_1p()
    } else {
        x.exp().ln_1p()
    }
}

/// The expected score of `i` against `j`.
fn expected(theta: &[f64], i: usize, j: usize) -> f64 {
    1.0 / (1.0 + (theta[j] - theta[i]).exp())
}

/// The log-likelihood of the group's games among themselves.
fn log_likelihood(tallies: &Tallies, group: &[usize], theta: &[f64]) -> f64 {
    let mut total = 0.0;
    for (k, &i) in group.iter().enumerate() {
        for &j in &group[k + 1..] {
            if tallies.games(i, j) > 0.0 {
                let d = theta[i] - theta[j];
                total -= tallies.points(i, j) * softplus(-d) + tallies.points(j, i) * softplus(d);
            }
        }
    }
    total
}

/// The Newton step for every engine of `group` but the first (held at 0): the solution of
/// `L step = gradient` with `L` the Laplacian weighted by each pairing's games times
/// `p (1 - p)`. None when the system is not positive definite (not a connected group).
fn newton_step(tallies: &Tallies, group: &[usize], theta: &[f64]) -> Option<Vec<f64>> {
    let m = group.len();
    let mut gradient = vec![0.0; m];
    let mut laplacian = vec![0.0; m * m];
    for a in 0..m {
        for b in 0..m {
            let (i, j) = (group[a], group[b]);
            let games = tallies.games(i, j);
            if a == b || games == 0.0 {
                continue;
            }
            let p = expected(theta, i, j);
            gradient[a] += tallies.points(i, j) - games * p;
            let weight = games * p * (1.0 - p);
            laplacian[a * m + a] += weight;
            laplacian[a * m + b] -= weight;
        }
    }
    // Holding the first engine fixed removes the Laplacian's null space (a common shift).
    let reduced: Vec<f64> = (1..m)
        .flat_map(|a| (1..m).map(move |b| (a, b)))
        .map(|(a, b)| laplacian[a * m + b])
        .collect();
    let mut step = vec![0.0];
    step.extend(crate::stats::cholesky_solve(
        reduced,
        gradient[1..].to_vec(),
    )?);
    Some(step)
}

/// Fits `theta` of a strongly connected `group` (starting from its values there), then
/// centres the group on 0. False when the fit does not converge (which a strongly connected
/// group never does).
pub(super) fn fit_group(tallies: &Tallies, group: &[usize], theta: &mut [f64]) -> bool {
    if group.len() < 2 {
        return false;
    }
    for _ in 0..MAX_STEPS {
        let Some(step) = newton_step(tallies, group, theta) else {
            return false;
        };
        let before = log_likelihood(tallies, group, theta);
        let mut scale = 1.0;
        let mut trial = theta.to_vec();
        // Halve a step that lowers the likelihood (Newton overshoots far from the maximum);
        // the slack lets rounding pass at the maximum itself.
        loop {
            for (&i, s) in group.iter().zip(&step) {
                trial[i] = theta[i] + scale * s;
            }
            let after = log_likelihood(tallies, group, &trial);
            if after >= before - 1e-12 * before.abs() || scale < 1e-9 {
                break;
            }
            scale /= 2.0;
        }
        let largest = step.iter().fold(0.0f64, |m, s| m.max((scale * s).abs()));
        theta.copy_from_slice(&trial);
        if !largest.is_finite() {
            return false;
        }
        if largest < TOLERANCE {
            let mean = group.iter().map(|&i| theta[i]).sum::<f64>() / group.len() as f64;
            group.iter().for_each(|&i| theta[i] -= mean);
            return true;
        }
    }
    false
}
