//! Generalized SPRT as run by fishtest (`stats/LLRcalc.py`, `stat_util.py`) and
//! fastchess (`sprt.cpp`): the log-likelihood ratio is the exact GLLR of the
//! multinomial maximum-likelihood distributions under H0 and H1, not the older
//! variance-based approximation.

use std::fmt;
use std::str::FromStr;

use super::elo::{score_from_elo, NELO_PER_T};
use super::{Pentanomial, StatsError, Wdl};

/// How `elo0`/`elo1` are expressed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum SprtModel {
    /// Normalized Elo (nElo), fishtest's and fastchess's default.
    #[default]
    Normalized,
    /// Logistic Elo, tested through the expected score.
    Logistic,
    /// Legacy BayesElo; needs WDL counts to estimate the draw Elo.
    BayesElo,
}

impl FromStr for SprtModel {
    type Err = StatsError;

    fn from_str(s: &str) -> Result<Self, StatsError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "normalized" | "nelo" => Ok(SprtModel::Normalized),
            "logistic" => Ok(SprtModel::Logistic),
            "bayeselo" | "bayesian" => Ok(SprtModel::BayesElo),
            _ => Err(StatsError::UnknownModel(s.to_string())),
        }
    }
}

impl fmt::Display for SprtModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SprtModel::Normalized => "normalized",
            SprtModel::Logistic => "logistic",
            SprtModel::BayesElo => "bayeselo",
        })
    }
}

/// Outcome of comparing an LLR with the SPRT bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SprtDecision {
    /// LLR at or below the lower bound: elo0 is accepted.
    AcceptH0,
    /// LLR at or above the upper bound: elo1 is accepted.
    AcceptH1,
    /// Keep playing.
    Continue,
}

impl fmt::Display for SprtDecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SprtDecision::AcceptH0 => "H0 accepted",
            SprtDecision::AcceptH1 => "H1 accepted",
            SprtDecision::Continue => "continue",
        })
    }
}

/// Validated SPRT design: H0 `elo = elo0` against H1 `elo = elo1`, with error
/// rates `alpha` (false positive) and `beta` (false negative).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SprtParams {
    elo0: f64,
    elo1: f64,
    alpha: f64,
    beta: f64,
    model: SprtModel,
}

impl SprtParams {
    /// Checks the design: `alpha`, `beta` in (0, 0.5) (an error rate of one half or more is no
    /// better than a coin toss, and infinite bounds at 0), and finite `elo0 < elo1`.
    pub fn new(
        elo0: f64,
        elo1: f64,
        alpha: f64,
        beta: f64,
        model: SprtModel,
    ) -> Result<Self, StatsError> {
        for (name, value) in [("alpha", alpha), ("beta", beta)] {
            if !(value > 0.0 && value < 0.5) {
                return Err(StatsError::BadProbability { name, value });
            }
        }
        for (name, value) in [("elo0", elo0), ("elo1", elo1)] {
            if !value.is_finite() {
                return Err(StatsError::NonFiniteElo { name, value });
            }
        }
        if elo0 >= elo1 {
            return Err(StatsError::EloOrder { elo0, elo1 });
        }
        Ok(SprtParams {
            elo0,
            elo1,
            alpha,
            beta,
            model,
        })
    }

    /// The Elo difference of H0, in the units of [`model`](Self::model).
    pub fn elo0(&self) -> f64 {
        self.elo0
    }

    /// The Elo difference of H1, in the units of [`model`](Self::model).
    pub fn elo1(&self) -> f64 {
        self.elo1
    }

    /// Chance of accepting H1 when H0 holds (false positive rate).
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// Chance of accepting H0 when H1 holds (false negative rate).
    pub fn beta(&self) -> f64 {
        self.beta
    }

    /// How `elo0` and `elo1` are expressed.
    pub fn model(&self) -> SprtModel {
        self.model
    }

    /// Wald's lower bound `ln(beta / (1 - alpha))`; crossing it accepts H0.
    pub fn lower_bound(&self) -> f64 {
        (self.beta / (1.0 - self.alpha)).ln()
    }

    /// Wald's upper bound `ln((1 - beta) / alpha)`; crossing it accepts H1.
    pub fn upper_bound(&self) -> f64 {
        ((1.0 - self.beta) / self.alpha).ln()
    }

    /// Decision for an LLR; bounds are inclusive, as in fastchess.
    pub fn decision(&self, llr: f64) -> SprtDecision {
        if llr >= self.upper_bound() {
            SprtDecision::AcceptH1
        } else if llr <= self.lower_bound() {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        }
    }

    /// LLR of single-game WDL counts under this design.
    pub fn llr_wdl(&self, wdl: Wdl) -> f64 {
        let counts = wdl.to_array();
        match self.model {
            SprtModel::Normalized => llr_normalized(&counts, self.elo0, self.elo1),
            SprtModel::Logistic => llr_logistic(&counts, self.elo0, self.elo1),
            SprtModel::BayesElo => {
                // fishtest: estimate the draw Elo from the (regularized) data, then
                // test the equivalent expected scores.
                let (_, pdf) = results_to_pdf(&counts);
                let (p_loss, p_win) = (pdf[0].1, pdf[2].1);
                let draw_elo = 200.0 * ((1.0 - p_loss) / p_loss * (1.0 - p_win) / p_win).log10();
                let s0 = bayeselo_to_score(self.elo0, draw_elo);
                let s1 = bayeselo_to_score(self.elo1, draw_elo);
                llr_expected_score(&counts, s0, s1)
            }
        }
    }

    /// LLR of game-pair counts; fails only for the BayesElo model, which needs
    /// the single-game draw rate.
    pub fn llr_ptnml(&self, p: Pentanomial) -> Result<f64, StatsError> {
        let counts = p.to_array();
        match self.model {
            SprtModel::Normalized => Ok(llr_normalized(&counts, self.elo0, self.elo1)),
            SprtModel::Logistic => Ok(llr_logistic(&counts, self.elo0, self.elo1)),
            SprtModel::BayesElo => Err(StatsError::BayesEloNeedsWdl),
        }
    }
}

/// Expected score for BayesElo `elo` given the draw Elo.
fn bayeselo_to_score(elo: f64, draw_elo: f64) -> f64 {
    let p_win = 1.0 / (1.0 + 10f64.powf((draw_elo - elo) / 400.0));
    let p_loss = 1.0 / (1.0 + 10f64.powf((draw_elo + elo) / 400.0));
    p_win + 0.5 * (1.0 - p_win - p_loss)
}

/// fishtest's `LLR_logistic`: GLLR for "expected score = L(elo1)" against
/// "= L(elo0)". `counts` are ordered by ascending score: `[L, D, W]` or the
/// five pentanomial buckets.
pub fn llr_logistic(counts: &[u64], elo0: f64, elo1: f64) -> f64 {
    llr_expected_score(counts, score_from_elo(elo0), score_from_elo(elo1))
}

/// fishtest's `LLR_normalized`: GLLR for "t-value = nelo1 / (800/ln 10)" against
/// nelo0, where t = (score - 0.5) / sigma per game. Pentanomial t-values are per
/// pair, hence the factor √2. `counts` as in [`llr_logistic`].
pub fn llr_normalized(counts: &[u64], nelo0: f64, nelo1: f64) -> f64 {
    let per_pair = if counts.len() == 5 {
        std::f64::consts::SQRT_2
    } else {
        1.0
    };
    let (t0, t1) = (per_pair * nelo0 / NELO_PER_T, per_pair * nelo1 / NELO_PER_T);
    let (n, pdf) = results_to_pdf(counts);
    match (mle_t_value(&pdf, 0.5, t0), mle_t_value(&pdf, 0.5, t1)) {
        (Some(p0), Some(p1)) => n * mean_log_ratio(&pdf, &p0, &p1),
        // Hypotheses the discrete support cannot reach: fall back to fishtest's
        // closed-form `LLR_normalized_alt`.
        _ => {
            let (mu, var) = mean_var(&pdf);
            let sigma_game = (per_pair * per_pair * var).sqrt();
            let games = n * per_pair * per_pair;
            let nt = (mu - 0.5) / sigma_game;
            let (nt0, nt1) = (nelo0 / NELO_PER_T, nelo1 / NELO_PER_T);
            games / 2.0 * ((1.0 + (nt - nt0).powi(2)) / (1.0 + (nt - nt1).powi(2))).ln()
        }
    }
}

fn llr_expected_score(counts: &[u64], s0: f64, s1: f64) -> f64 {
    let (n, pdf) = results_to_pdf(counts);
    match (mle_expected(&pdf, s0), mle_expected(&pdf, s1)) {
        (Some(p0), Some(p1)) => n * mean_log_ratio(&pdf, &p0, &p1),
        // Only for scores at exactly 0 or 1: use fishtest's `LLR_alt2`.
        _ => {
            let (mu, var) = mean_var(&pdf);
            n * (s1 - s0) * (2.0 * mu - s0 - s1) / var / 2.0
        }
    }
}

/// Empirical distribution `(score, probability)` of regularized counts: empty
/// buckets get 1e-3 so every log stays finite (fishtest `regularize`, fastchess
/// `regularize`). Returns the regularized total as well.
fn results_to_pdf(counts: &[u64]) -> (f64, Vec<(f64, f64)>) {
    let reg: Vec<f64> = counts
        .iter()
        .map(|&c| if c == 0 { 1e-3 } else { c as f64 })
        .collect();
    let n: f64 = reg.iter().sum();
    let last = (counts.len() - 1) as f64;
    let pdf = reg
        .iter()
        .enumerate()
        .map(|(i, &c)| (i as f64 / last, c / n))
        .collect();
    (n, pdf)
}

fn mean_var(pdf: &[(f64, f64)]) -> (f64, f64) {
    let mu: f64 = pdf.iter().map(|&(a, p)| a * p).sum();
    let var = pdf.iter().map(|&(a, p)| p * (a - mu).powi(2)).sum();
    (mu, var)
}

/// `Σ p̂ᵢ (ln p1ᵢ - ln p0ᵢ)`: the GLLR per sample.
fn mean_log_ratio(pdf: &[(f64, f64)], p0: &[f64], p1: &[f64]) -> f64 {
    pdf.iter()
        .zip(p0.iter().zip(p1))
        .map(|(&(_, p), (&q0, &q1))| p * (q1.ln() - q0.ln()))
        .sum()
}

/// Root of the secular equation `Σ pᵢ aᵢ / (1 + x aᵢ) = 0` on the interval where
/// every `1 + x aᵢ > 0`. The left side falls strictly from +∞ to -∞ there, so
/// bisection down to adjacent floats finds it deterministically. `None` unless
/// the `aᵢ` straddle zero.
fn secular(a: &[f64], p: &[f64]) -> Option<f64> {
    let min = a.iter().copied().fold(f64::INFINITY, f64::min);
    let max = a.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !(min < 0.0 && max > 0.0) {
        return None;
    }
    let f = |x: f64| -> f64 {
        a.iter()
            .zip(p)
            .map(|(&ai, &pi)| pi * ai / (1.0 + x * ai))
            .sum()
    };
    let (mut lo, mut hi) = (-1.0 / max, -1.0 / min);
    for _ in 0..2000 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        let value = f(mid);
        if value > 0.0 {
            lo = mid;
        } else if value < 0.0 {
            hi = mid;
        } else {
            return Some(mid);
        }
    }
    Some(0.5 * (lo + hi))
}

/// Maximum-likelihood distribution on the same support with expected score `s`
/// (Van den Bergh, "support_MLE_multinomial", Proposition 1.1). `None` also when the
/// root lies closer to a pole than a float resolves (a bucket of 1e-3 regularized
/// games beside 10^18 real ones): the distribution then has an infinite or negative
/// entry, and its LLR would be infinite with the wrong sign.
fn mle_expected(pdf: &[(f64, f64)], s: f64) -> Option<Vec<f64>> {
    let shifted: Vec<f64> = pdf.iter().map(|&(a, _)| a - s).collect();
    let probs: Vec<f64> = pdf.iter().map(|&(_, p)| p).collect();
    let x = secular(&shifted, &probs)?;
    let q: Vec<f64> = pdf
        .iter()
        .zip(&shifted)
        .map(|(&(_, p), &d)| p / (1.0 + x * d))
        .collect();
    let valid =
        q.iter().all(|&v| v.is_finite() && v > 0.0) && (q.iter().sum::<f64>() - 1.0).abs() < 1e-6;
    valid.then_some(q)
}

/// Maximum-likelihood distribution with t-value `(mu - reference) / sigma = t`,
/// by the fixed-point iteration of Van den Bergh, "normalized_elo_practical",
/// Section 4.1, started from the uniform distribution as fishtest does.
fn mle_t_value(pdf: &[(f64, f64)], reference: f64, t: f64) -> Option<Vec<f64>> {
    let probs: Vec<f64> = pdf.iter().map(|&(_, p)| p).collect();
    let mut current: Vec<(f64, f64)> = pdf
        .iter()
        .map(|&(a, _)| (a, 1.0 / pdf.len() as f64))
        .collect();
    for _ in 0..100 {
        let (mu, var) = mean_var(&current);
        let sigma = var.sqrt();
        let phi: Vec<f64> = pdf
            .iter()
            .map(|&(a, _)| a - reference - t * sigma * (1.0 + ((mu - a) / sigma).powi(2)) / 2.0)
            .collect();
        let x = secular(&phi, &probs)?;
        let mut change: f64 = 0.0;
        for ((slot, &(_, p)), &f) in current.iter_mut().zip(pdf).zip(&phi) {
            let next = p / (1.0 + x * f);
            change = change.max((next - slot.1).abs());
            slot.1 = next;
        }
        if change < 1e-13 {
            break;
        }
    }
    Some(current.into_iter().map(|(_, p)| p).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(elo0: f64, elo1: f64, model: SprtModel) -> SprtParams {
        SprtParams::new(elo0, elo1, 0.05, 0.05, model).unwrap()
    }

    #[test]
    fn bounds_follow_alpha_and_beta() {
        let p = params(0.0, 2.0, SprtModel::Normalized);
        // fishtest and fastchess both print (-2.94, 2.94) for alpha = beta = 0.05.
        assert!((p.lower_bound() - (0.05f64 / 0.95).ln()).abs() < 1e-15);
        assert!((p.lower_bound() + 2.944_438_979_166_44).abs() < 1e-12);
        assert!((p.upper_bound() - 2.944_438_979_166_44).abs() < 1e-12);

        let p = SprtParams::new(0.0, 5.0, 0.1, 0.2, SprtModel::Logistic).unwrap();
        assert!((p.lower_bound() - (0.2f64 / 0.9).ln()).abs() < 1e-15);
        assert!((p.upper_bound() - 8f64.ln()).abs() < 1e-15);
        assert_eq!(p.decision(p.upper_bound()), SprtDecision::AcceptH1);
        assert_eq!(p.decision(p.lower_bound()), SprtDecision::AcceptH0);
        assert_eq!(p.decision(0.0), SprtDecision::Continue);
        assert_eq!(SprtDecision::AcceptH0.to_string(), "H0 accepted");
    }

    #[test]
    fn rejects_invalid_designs() {
        use SprtModel::Normalized as N;
        assert_eq!(
            SprtParams::new(0.0, 2.0, 0.0, 0.05, N),
            Err(StatsError::BadProbability {
                name: "alpha",
                value: 0.0
            })
        );
        assert!(matches!(
            SprtParams::new(0.0, 2.0, 0.05, 1.0, N),
            Err(StatsError::BadProbability { name: "beta", .. })
        ));
        assert!(matches!(
            SprtParams::new(0.0, 2.0, f64::NAN, 0.05, N),
            Err(StatsError::BadProbability { name: "alpha", .. })
        ));
        // Error rates of one half or more are refused (issue 21: they were accepted).
        assert_eq!(
            SprtParams::new(0.0, 2.0, 0.05, 0.5, N),
            Err(StatsError::BadProbability {
                name: "beta",
                value: 0.5
            })
        );
        assert_eq!(
            SprtParams::new(2.0, 2.0, 0.05, 0.05, N),
            Err(StatsError::EloOrder {
                elo0: 2.0,
                elo1: 2.0
            })
        );
        assert!(matches!(
            SprtParams::new(0.0, f64::INFINITY, 0.05, 0.05, N),
            Err(StatsError::NonFiniteElo { name: "elo1", .. })
        ));
        assert_eq!(
            SprtParams::new(5.0, -1.5, 0.05, 0.05, N)
                .unwrap_err()
                .to_string(),
            "elo0 (5) must be less than elo1 (-1.5)"
        );
    }

    #[test]
    fn parses_models() {
        assert_eq!("Normalized".parse(), Ok(SprtModel::Normalized));
        assert_eq!("logistic".parse(), Ok(SprtModel::Logistic));
        assert_eq!("bayesian".parse(), Ok(SprtModel::BayesElo));
        assert_eq!("BayesElo".parse(), Ok(SprtModel::BayesElo));
        assert_eq!(
            "gaussian".parse::<SprtModel>(),
            Err(StatsError::UnknownModel("gaussian".into()))
        );
        for m in [
            SprtModel::Normalized,
            SprtModel::Logistic,
            SprtModel::BayesElo,
        ] {
            assert_eq!(m.to_string().parse(), Ok(m));
        }
    }

    #[test]
    fn mle_hits_the_requested_statistic() {
        let (_, pdf) = results_to_pdf(&[127, 4883, 10311 + 401, 5150, 104]);
        let p = mle_expected(&pdf, 0.52).unwrap();
        let fitted: Vec<(f64, f64)> = pdf.iter().map(|&(a, _)| a).zip(p).collect();
        let (mu, _) = mean_var(&fitted);
        assert!((mu - 0.52).abs() < 1e-12);

        let p = mle_t_value(&pdf, 0.5, 0.05).unwrap();
        let fitted: Vec<(f64, f64)> = pdf.iter().map(|&(a, _)| a).zip(p).collect();
        let (mu, var) = mean_var(&fitted);
        assert!(((mu - 0.5) / var.sqrt() - 0.05).abs() < 1e-10);
        assert!((fitted.iter().map(|&(_, p)| p).sum::<f64>() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn llr_grows_with_wins() {
        for model in [
            SprtModel::Normalized,
            SprtModel::Logistic,
            SprtModel::BayesElo,
        ] {
            let p = params(0.0, 5.0, model);
            let mut last = f64::NEG_INFINITY;
            for wins in (900..=1100).step_by(20) {
                let llr = p.llr_wdl(Wdl::new(wins, 2000, 1000));
                assert!(llr > last, "{model}: {llr} after {last}");
                last = llr;
            }
        }
        for model in [SprtModel::Normalized, SprtModel::Logistic] {
            let p = params(0.0, 5.0, model);
            let mut last = f64::NEG_INFINITY;
            for ww in (90..=110).step_by(2) {
                let llr = p
                    .llr_ptnml(Pentanomial::new(100, 1000, 3000, 1000, ww))
                    .unwrap();
                assert!(llr > last, "{model}: {llr} after {last}");
                last = llr;
            }
        }
    }

    #[test]
    fn llr_is_antisymmetric_under_mirrored_hypotheses() {
        // Swapping sides and mirroring [elo0, elo1] to [-elo1, -elo0] swaps H0/H1.
        let w = Wdl::new(1200, 2100, 1100);
        let p = Pentanomial::new(90, 1100, 2900, 1050, 110);
        for model in [SprtModel::Normalized, SprtModel::Logistic] {
            let a = params(-1.0, 3.0, model);
            let b = params(-3.0, 1.0, model);
            assert!((a.llr_wdl(w) + b.llr_wdl(w.flipped())).abs() < 1e-7);
            let (x, y) = (a.llr_ptnml(p).unwrap(), b.llr_ptnml(p.flipped()).unwrap());
            assert!((x + y).abs() < 1e-7, "{model}: {x} vs {y}");
        }
    }

    #[test]
    fn degenerate_data_stays_finite() {
        for model in [
            SprtModel::Normalized,
            SprtModel::Logistic,
            SprtModel::BayesElo,
        ] {
            let p = params(0.0, 2.0, model);
            for w in [Wdl::default(), Wdl::new(0, 50, 0), Wdl::new(0, 0, 50)] {
                assert!(p.llr_wdl(w).is_finite(), "{model} {w}");
            }
        }
        let p = params(0.0, 2.0, SprtModel::Normalized);
        assert!(p.llr_ptnml(Pentanomial::default()).unwrap().abs() < 1e-3);
        assert_eq!(
            params(0.0, 2.0, SprtModel::BayesElo).llr_ptnml(Pentanomial::new(1, 2, 3, 4, 5)),
            Err(StatsError::BayesEloNeedsWdl)
        );
        // Hypotheses far outside what nElo can express still give a number.
        let wild = params(-5000.0, 5000.0, SprtModel::Normalized);
        assert!(wild.llr_wdl(Wdl::new(10, 10, 10)).is_finite());
    }

    /// Regression (issue 21 sweep): all draws in counts near u64::MAX made the logistic LLR
    /// +infinity (H1 accepted for a score of exactly one half): the empty buckets' 1e-3 put
    /// the MLE's root closer to its pole than a float resolves.
    #[test]
    fn all_draws_at_huge_counts_never_accept_h1() {
        let max = u64::MAX;
        for model in [SprtModel::Normalized, SprtModel::Logistic] {
            let p = params(0.0, 5.0, model);
            for llr in [
                p.llr_wdl(Wdl::new(0, max, 0)),
                p.llr_wdl(Wdl::new(0, 1 << 40, 0)),
                p.llr_ptnml(Pentanomial::new(0, 0, max / 2, 0, 0)).unwrap(),
                p.llr_ptnml(Pentanomial::new(0, 0, 1 << 40, 0, 0)).unwrap(),
            ] {
                assert!(llr.is_finite(), "{model}: {llr}");
                assert_eq!(p.decision(llr), SprtDecision::AcceptH0, "{model}: {llr}");
            }
            // The mirror: hypotheses below zero are accepted as H1, at the same counts.
            let mirrored = params(-5.0, 0.0, model);
            let llr = mirrored.llr_wdl(Wdl::new(0, max, 0));
            assert_eq!(
                mirrored.decision(llr),
                SprtDecision::AcceptH1,
                "{model}: {llr}"
            );
        }
    }
}
