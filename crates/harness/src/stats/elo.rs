//! Elo, normalized Elo and LOS estimates from WDL or pentanomial counts, using the
//! same formulas as fastchess (`elo_wdl.cpp`, `elo_pentanomial.cpp`) and fishtest
//! (`stat_util.get_elo`).

use std::f64::consts::LN_10;

use super::math::{normal_cdf, normal_quantile};
use super::{Pentanomial, Wdl};

/// nElo per unit of t-value, `800 / ln 10` (fishtest's `nelo_divided_by_nt`).
pub const NELO_PER_T: f64 = 800.0 / LN_10;

/// Logistic Elo difference for an expected score; ±∞ at scores 1 and 0.
pub fn elo_from_score(score: f64) -> f64 {
    if score >= 1.0 {
        f64::INFINITY
    } else if score <= 0.0 {
        f64::NEG_INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// Expected score for a logistic Elo difference (inverse of [`elo_from_score`]).
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Normalized Elo for a t-value `(score - 0.5) / sigma`, with `sigma` the
/// standard deviation of one game's score.
pub fn nelo_from_t(t: f64) -> f64 {
    t * NELO_PER_T
}

/// Summary statistics of a match, from the first engine's point of view.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EloEstimate {
    /// Games played (twice the number of pairs for pentanomial data).
    pub games: u64,
    /// Mean points per game.
    pub score: f64,
    /// Logistic Elo difference; ±∞ when one side scored everything.
    pub elo: f64,
    /// Half-width of the 95% Elo confidence interval; ∞ when an end of the
    /// score interval reaches 0 or 1.
    pub elo_error: f64,
    /// Likelihood of superiority, P(true score > 0.5), in [0, 1].
    pub los: f64,
    /// Normalized Elo: `(score - 0.5) / sigma_per_game * 800 / ln 10`.
    pub nelo: f64,
    /// Half-width of the 95% nElo confidence interval.
    pub nelo_error: f64,
    /// Drawn games per game (WDL), or pairs scoring exactly 1 per pair (pentanomial).
    pub draw_ratio: f64,
}

impl EloEstimate {
    /// Trinomial estimate: every game is treated as an independent sample.
    pub(crate) fn from_wdl(wdl: Wdl) -> Option<Self> {
        let counts = wdl.to_array();
        let s = Sample::new(&[0.0, 0.5, 1.0], &counts)?;
        Some(s.estimate(wdl.games(), 1.0, wdl.draws as f64 / s.n))
    }

    /// Pentanomial estimate: every game pair is one sample, which removes the
    /// opening bias from the variance (the default for paired games).
    pub(crate) fn from_ptnml(p: Pentanomial) -> Option<Self> {
        let counts = p.to_array();
        let s = Sample::new(&[0.0, 0.25, 0.5, 0.75, 1.0], &counts)?;
        // A pair score is the mean of two games, so one game's variance is twice it.
        Some(s.estimate(p.games(), 2.0, p.dd as f64 / s.n))
    }
}

/// Empirical mean and variance of a discrete score distribution.
struct Sample {
    n: f64,
    mean: f64,
    var: f64,
}

impl Sample {
    fn new(values: &[f64], counts: &[u64]) -> Option<Self> {
        let total = counts
            .iter()
            .try_fold(0u64, |total, &count| total.checked_add(count))?;
        if total == 0 {
            return None;
        }
        let n = total as f64;
        let mean = values
            .iter()
            .zip(counts)
            .map(|(v, &c)| v * c as f64)
            .sum::<f64>()
            / n;
        let var = values
            .iter()
            .zip(counts)
            .map(|(v, &c)| c as f64 * (v - mean).powi(2))
            .sum::<f64>()
            / n;
        Some(Sample { n, mean, var })
    }

    /// `games_per_sample` converts the sample variance to a per-game variance for nElo.
    fn estimate(&self, games: u64, games_per_sample: f64, draw_ratio: f64) -> EloEstimate {
        let z = normal_quantile(0.975);
        let stderr = (self.var / self.n).sqrt();
        let (lo, hi) = (self.mean - z * stderr, self.mean + z * stderr);
        let (elo_lo, elo_hi) = (elo_from_score(lo), elo_from_score(hi));
        let elo_error = if elo_lo.is_finite() && elo_hi.is_finite() {
            (elo_hi - elo_lo) / 2.0
        } else {
            f64::INFINITY
        };

        let excess = self.mean - 0.5;
        let sigma_game = (games_per_sample * self.var).sqrt();
        let (los, nelo) = if stderr > 0.0 {
            (
                normal_cdf(excess / stderr),
                nelo_from_t(excess / sigma_game),
            )
        } else if excess > 0.0 {
            // No spread at all: the sign of the excess score decides everything.
            (1.0, f64::INFINITY)
        } else if excess < 0.0 {
            (0.0, f64::NEG_INFINITY)
        } else {
            (0.5, 0.0)
        };
        // fastchess maps the score interval through the nElo line; the variance
        // cancels, leaving z / sqrt(games_per_sample * samples) t-units.
        let nelo_error = nelo_from_t(z / (games_per_sample * self.n).sqrt());

        EloEstimate {
            games,
            score: self.mean,
            elo: elo_from_score(self.mean),
            elo_error,
            los,
            nelo,
            nelo_error,
            draw_ratio,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_score_round_trip() {
        assert_eq!(elo_from_score(0.5), 0.0);
        for &e in &[-600.0, -35.5, 0.1, 10.0, 400.0] {
            assert!((elo_from_score(score_from_elo(e)) - e).abs() < 1e-9);
        }
        // 400 Elo is 10:1 odds by definition of the logistic scale.
        assert!((score_from_elo(400.0) - 10.0 / 11.0).abs() < 1e-15);
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
    }

    #[test]
    fn no_games_gives_none() {
        assert_eq!(EloEstimate::from_wdl(Wdl::default()), None);
        assert_eq!(EloEstimate::from_ptnml(Pentanomial::default()), None);
    }

    #[test]
    fn one_sided_results_are_infinite_not_nan() {
        let all_wins = EloEstimate::from_wdl(Wdl::new(10, 0, 0)).unwrap();
        assert_eq!(all_wins.elo, f64::INFINITY);
        assert_eq!(all_wins.elo_error, f64::INFINITY);
        assert_eq!(all_wins.los, 1.0);
        assert_eq!(all_wins.nelo, f64::INFINITY);
        assert!(all_wins.nelo_error.is_finite());

        let all_losses = EloEstimate::from_ptnml(Pentanomial::new(7, 0, 0, 0, 0)).unwrap();
        assert_eq!(all_losses.elo, f64::NEG_INFINITY);
        assert_eq!(all_losses.los, 0.0);
        assert_eq!(all_losses.nelo, f64::NEG_INFINITY);

        let all_draws = EloEstimate::from_wdl(Wdl::new(0, 9, 0)).unwrap();
        assert_eq!(
            (all_draws.elo, all_draws.elo_error, all_draws.nelo),
            (0.0, 0.0, 0.0)
        );
        assert_eq!((all_draws.los, all_draws.draw_ratio), (0.5, 1.0));

        // Score interval pokes past 1: error is unbounded, Elo itself is finite.
        let lopsided = EloEstimate::from_wdl(Wdl::new(10, 0, 1)).unwrap();
        assert!(lopsided.elo.is_finite());
        assert_eq!(lopsided.elo_error, f64::INFINITY);
    }

    #[test]
    fn swapping_sides_negates_elo() {
        let w = Wdl::new(136, 111, 96);
        let (a, b) = (w.estimate().unwrap(), w.flipped().estimate().unwrap());
        assert!((a.elo + b.elo).abs() < 1e-9);
        assert!((a.nelo + b.nelo).abs() < 1e-9);
        assert!((a.elo_error - b.elo_error).abs() < 1e-9);
        assert!((a.los + b.los - 1.0).abs() < 1e-12);

        let p = Pentanomial::new(34, 54, 63, 64, 75);
        let (a, b) = (p.estimate().unwrap(), p.flipped().estimate().unwrap());
        assert!((a.elo + b.elo).abs() < 1e-9);
        assert!((a.nelo + b.nelo).abs() < 1e-9);
        assert!((a.los + b.los - 1.0).abs() < 1e-12);
    }

    #[test]
    fn error_shrinks_with_more_games() {
        let small = Wdl::new(30, 40, 20).estimate().unwrap();
        let big = Wdl::new(300, 400, 200).estimate().unwrap();
        assert!((small.elo - big.elo).abs() < 1e-9);
        assert!(big.elo_error < small.elo_error);
        assert!(big.los > small.los);
    }
}
