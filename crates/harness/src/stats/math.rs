//! Special functions needed by the statistics: erf, erfc and the standard
//! normal distribution, written here to keep the crate free of maths deps.

use std::f64::consts::{FRAC_2_SQRT_PI, PI, SQRT_2};

/// Error function, accurate to a few ulps over the whole real line.
#[cfg(test)]
pub(crate) fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    let a = x.abs();
    let value = if a < 2.0 {
        erf_series(a)
    } else {
        1.0 - erfc(a)
    };
    value.copysign(x)
}

/// Complementary error function `1 - erf(x)`, without cancellation for large `x`.
pub(crate) fn erfc(x: f64) -> f64 {
    if x.is_nan() {
        f64::NAN
    } else if x < 0.0 {
        2.0 - erfc(-x)
    } else if x < 2.0 {
        1.0 - erf_series(x)
    } else if x > 27.3 {
        // exp(-x²) underflows; erfc is below the smallest subnormal.
        0.0
    } else {
        erfc_continued_fraction(x)
    }
}

/// `erf(x) = 2/√π · e^{-x²} · Σ (2x²)ⁿ x / (1·3·…·(2n+1))`; every term is
/// positive, so there is no cancellation for `0 <= x < 2`.
fn erf_series(x: f64) -> f64 {
    let two_x2 = 2.0 * x * x;
    let mut term = x;
    let mut sum = x;
    let mut n = 0.0;
    while term > sum * 1e-17 {
        n += 1.0;
        term *= two_x2 / (2.0 * n + 1.0);
        sum += term;
    }
    FRAC_2_SQRT_PI * (-x * x).exp() * sum
}

/// Laplace's continued fraction `erfc(x) = e^{-x²}/√π · 1/(x + ½/(x + 1/(x + 3⁄2/(x + …))))`,
/// evaluated bottom-up; 80 levels are far more than needed for `x >= 2`.
fn erfc_continued_fraction(x: f64) -> f64 {
    let mut tail = x;
    for k in (1..=80).rev() {
        tail = x + (k as f64 / 2.0) / tail;
    }
    (-x * x).exp() / PI.sqrt() / tail
}

/// Standard normal cumulative distribution function Φ.
pub(crate) fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / SQRT_2)
}

/// Standard normal quantile Φ⁻¹(p): Acklam's rational approximation refined by
/// one Halley step, good to about 1e-15. Returns ±∞ at 0/1 and NaN outside [0, 1].
pub(crate) fn normal_quantile(p: f64) -> f64 {
    if p.is_nan() || !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p == 0.0 {
        return f64::NEG_INFINITY;
    }
    if p == 1.0 {
        return f64::INFINITY;
    }
    const A: [f64; 6] = [
        -3.969683028665376e+01,
        2.209460984245205e+02,
        -2.759285104469687e+02,
        1.38357751867269e+02,
        -3.066479806614716e+01,
        2.506628277459239e+00,
    ];
    const B: [f64; 5] = [
        -5.447609879822406e+01,
        1.615858368580409e+02,
        -1.556989798598866e+02,
        6.680131188771972e+01,
        -1.328068155288572e+01,
    ];
    const C: [f64; 6] = [
        -7.784894002430293e-03,
        -3.223964580411365e-01,
        -2.400758277161838e+00,
        -2.549732539343734e+00,
        4.374664141464968e+00,
        2.938163982698783e+00,
    ];
    const D: [f64; 4] = [
        7.784695709041462e-03,
        3.224671290700398e-01,
        2.445134137142996e+00,
        3.754408661907416e+00,
    ];
    const P_LOW: f64 = 0.02425;

    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    let x = if p < P_LOW {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - P_LOW {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    };
    // Halley refinement against the accurate CDF.
    let e = normal_cdf(x) - p;
    let u = e * (2.0 * PI).sqrt() * (x * x / 2.0).exp();
    x - u / (1.0 + x * u / 2.0)
}

/// Solves the symmetric positive definite system `a x = b` (`a` row-major, n × n) by Cholesky;
/// None if `a` is not definite. Shared by the Texel tuner's and the ratings fit's Newton steps.
pub fn cholesky_solve(mut a: Vec<f64>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    for j in 0..n {
        let mut d = a[j * n + j];
        for k in 0..j {
            d -= a[j * n + k] * a[j * n + k];
        }
        if d <= 0.0 || !d.is_finite() {
            return None;
        }
        let d = d.sqrt();
        a[j * n + j] = d;
        for i in j + 1..n {
            let mut s = a[i * n + j];
            for k in 0..j {
                s -= a[i * n + k] * a[j * n + k];
            }
            a[i * n + j] = s / d;
        }
    }
    for i in 0..n {
        let mut s = b[i];
        for k in 0..i {
            s -= a[i * n + k] * b[k];
        }
        b[i] = s / a[i * n + i];
    }
    for i in (0..n).rev() {
        let mut s = b[i];
        for k in i + 1..n {
            s -= a[k * n + i] * b[k];
        }
        b[i] = s / a[i * n + i];
    }
    Some(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * b.abs().max(1e-300)
    }

    #[test]
    fn erf_matches_tabulated_values() {
        // Reference values: Abramowitz & Stegun table 7.1 / standard high-precision tables.
        assert_eq!(erf(0.0), 0.0);
        assert!(close(erf(0.5), 0.520_499_877_813_046_5, 1e-14));
        assert!(close(erf(1.0), 0.842_700_792_949_714_9, 1e-14));
        assert!(close(erf(2.0), 0.995_322_265_018_952_7, 1e-14));
        assert!(close(erf(-1.5), -0.966_105_146_475_310_7, 1e-14));
        assert!(close(erfc(2.0), 4.677_734_981_047_266e-3, 1e-13));
        assert!(close(erfc(2.5), 4.069_520_174_449_59e-4, 1e-12));
        assert!(close(erfc(3.0), 2.209_049_699_858_544e-5, 1e-12));
        assert!(close(erfc(5.0), 1.537_459_794_428_034_8e-12, 1e-12));
        assert!(close(erfc(-1.0), 1.842_700_792_949_715, 1e-14));
        assert_eq!(erfc(40.0), 0.0);
        assert_eq!(erf(f64::INFINITY), 1.0);
        assert!(erf(f64::NAN).is_nan());
    }

    #[test]
    fn normal_quantile_inverts_cdf() {
        // 1.959963984540054 is fastchess's CI95ZSCORE (app/src/matchmaking/elo/elo.hpp).
        assert!(close(normal_quantile(0.975), 1.959_963_984_540_054, 1e-14));
        assert!(close(normal_quantile(0.95), 1.644_853_626_951_472_2, 1e-14));
        assert!(close(
            normal_quantile(0.001),
            -3.090_232_306_167_813_5,
            1e-13
        ));
        assert_eq!(normal_quantile(0.5), 0.0);
        for &p in &[1e-10, 0.01, 0.2, 0.5, 0.7, 0.99, 1.0 - 1e-9] {
            assert!(close(normal_cdf(normal_quantile(p)), p, 1e-12), "p = {p}");
        }
        assert_eq!(normal_quantile(0.0), f64::NEG_INFINITY);
        assert_eq!(normal_quantile(1.0), f64::INFINITY);
        assert!(normal_quantile(1.5).is_nan());
    }
}
