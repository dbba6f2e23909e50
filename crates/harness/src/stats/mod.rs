//! Match statistics as reported by chess match runners (fastchess, cutechess-cli,
//! fishtest, OpenBench), always from the first engine's point of view.
//!
//! * [`Wdl`] counts single games; [`Pentanomial`] counts game *pairs* (same
//!   opening, colours reversed) by pair score 0, ½, 1, 1½, 2.
//! * [`EloEstimate`] gives logistic Elo ± 95% error, LOS, normalized Elo (nElo)
//!   and the draw ratio, from either kind of counts.
//! * [`SprtParams`] runs the generalized SPRT exactly as fishtest and fastchess
//!   do (maximum-likelihood GLLR, logistic / normalized / BayesElo models).
//! * [`report_wdl`] and [`report_ptnml`] build the `key: value` lines printed by
//!   `sparring stats`.
//! * [`JointRatings`] fits the ratings of several engines jointly from all their games
//!   (maximum likelihood, as Ordo), with bootstrap error bars over game pairs.

mod elo;
mod math;
mod ratings;
mod report;
mod sprt;

#[cfg(test)]
mod reference_tests;

use crate::error::{ErrorClass, Failure};
use std::fmt;
use std::ops::{Add, AddAssign};
use std::str::FromStr;

use thiserror::Error;

pub use elo::{elo_from_score, nelo_from_t, score_from_elo, EloEstimate, NELO_PER_T};
pub use math::cholesky_solve;
pub use ratings::{
    Anchor, Difference, EngineRating, Interval, JointRatings, RatedGame, Rating, RatingOptions,
    RatingsError, DEFAULT_RESAMPLES, DEFAULT_SEED,
};
pub use report::{fixed, report_ptnml, report_wdl};
pub use sprt::{llr_logistic, llr_normalized, SprtDecision, SprtModel, SprtParams};

/// Everything that can be wrong with user-supplied statistics input.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum StatsError {
    /// A `W,D,L` or `LL,LD,DD,WD,WW` string had the wrong number of fields.
    #[error("expected {expected} comma-separated counts ({format}), found {found}")]
    FieldCount {
        /// The expected layout, `W,D,L` or `LL,LD,DD,WD,WW`.
        format: &'static str,
        /// Number of counts the layout has (3 or 5).
        expected: usize,
        /// Number of comma-separated fields given.
        found: usize,
    },
    /// One field of a counts string was not a non-negative integer.
    #[error("{field} count {value:?} is not a non-negative integer")]
    BadCount {
        /// Which count it is (`wins`, `draws`, `losses`, `LL`, ... `WW`).
        field: &'static str,
        /// The text given for it.
        value: String,
    },
    /// A single game score other than 0, 0.5 or 1.
    #[error("game score {0} is not 0, 0.5 or 1")]
    BadScore(f64),
    /// alpha or beta outside the open interval (0, 1).
    #[error("{name} must lie strictly between 0 and 0.5, got {value}")]
    BadProbability {
        /// `alpha` or `beta`.
        name: &'static str,
        /// The value given.
        value: f64,
    },
    /// elo0 or elo1 is NaN or infinite.
    #[error("{name} must be a finite number, got {value}")]
    NonFiniteElo {
        /// `elo0` or `elo1`.
        name: &'static str,
        /// The value given.
        value: f64,
    },
    /// The SPRT hypotheses are in the wrong order.
    #[error("elo0 ({elo0}) must be less than elo1 ({elo1})")]
    EloOrder {
        /// The H0 Elo given.
        elo0: f64,
        /// The H1 Elo given, not above `elo0`.
        elo1: f64,
    },
    /// An SPRT model name that is not known.
    #[error("unknown SPRT model {0:?} (expected normalized, logistic or bayeselo)")]
    UnknownModel(String),
    /// The counts are each valid but their total does not fit in 64 bits.
    #[error("the {format} counts add up to more than {} games", u64::MAX)]
    CountOverflow {
        /// The layout parsed, `W,D,L` or `LL,LD,DD,WD,WW`.
        format: &'static str,
    },
    /// BayesElo needs the draw rate of single games, which pairs do not give.
    #[error("the BayesElo SPRT model needs win/draw/loss counts, not pentanomial pairs")]
    BayesEloNeedsWdl,
}

impl ErrorClass for StatsError {
    fn class(&self) -> Failure {
        match self {
            StatsError::FieldCount { .. }
            | StatsError::BadCount { .. }
            | StatsError::BadScore(_)
            | StatsError::BadProbability { .. }
            | StatsError::NonFiniteElo { .. }
            | StatsError::EloOrder { .. }
            | StatsError::UnknownModel(_)
            | StatsError::CountOverflow { .. }
            | StatsError::BayesEloNeedsWdl => Failure::BadInput,
        }
    }
}

/// Result of one game for the first engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The first engine lost (0 points).
    Loss,
    /// A draw (½ point).
    Draw,
    /// The first engine won (1 point).
    Win,
}

impl Outcome {
    /// Points scored: 0, 0.5 or 1.
    pub fn score(self) -> f64 {
        match self {
            Outcome::Loss => 0.0,
            Outcome::Draw => 0.5,
            Outcome::Win => 1.0,
        }
    }

    /// Parses a numeric game score; only 0, 0.5 and 1 are valid.
    pub fn from_score(score: f64) -> Result<Self, StatsError> {
        if score == 0.0 {
            Ok(Outcome::Loss)
        } else if score == 0.5 {
            Ok(Outcome::Draw)
        } else if score == 1.0 {
            Ok(Outcome::Win)
        } else {
            Err(StatsError::BadScore(score))
        }
    }

    /// Half-points scored (0, 1 or 2), which makes pair sums exact.
    fn half_points(self) -> u8 {
        match self {
            Outcome::Loss => 0,
            Outcome::Draw => 1,
            Outcome::Win => 2,
        }
    }
}

/// Win/draw/loss counts of single games.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Wdl {
    /// Games the first engine won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games the first engine lost.
    pub losses: u64,
}

impl Wdl {
    /// Counts from wins, draws and losses of the first engine.
    pub const fn new(wins: u64, draws: u64, losses: u64) -> Self {
        Wdl {
            wins,
            draws,
            losses,
        }
    }

    /// Games played; saturates at `u64::MAX` (parsed counts never get there: see
    /// [`Wdl::checked_games`]).
    pub fn games(&self) -> u64 {
        self.checked_games().unwrap_or(u64::MAX)
    }

    /// Games played, `None` if the total does not fit in a `u64`.
    pub(crate) fn checked_games(&self) -> Option<u64> {
        self.wins.checked_add(self.draws)?.checked_add(self.losses)
    }

    /// Mean points per game, `None` without games.
    pub fn score(&self) -> Option<f64> {
        let n = self.games();
        (n > 0).then(|| (self.wins as f64 + 0.5 * self.draws as f64) / n as f64)
    }

    /// Counts seen from the second engine's side.
    pub fn flipped(self) -> Self {
        Wdl::new(self.losses, self.draws, self.wins)
    }

    /// The counts of both, `None` when a count or the number of games would not fit in a
    /// `u64` (the same limit parsing applies, see [`StatsError::CountOverflow`]).
    pub fn checked_add(self, rhs: Wdl) -> Option<Wdl> {
        let sum = Wdl::new(
            self.wins.checked_add(rhs.wins)?,
            self.draws.checked_add(rhs.draws)?,
            self.losses.checked_add(rhs.losses)?,
        );
        sum.checked_games().map(|_| sum)
    }

    /// Counts one more game (a count already at `u64::MAX` stays there).
    pub fn record(&mut self, outcome: Outcome) {
        let count = match outcome {
            Outcome::Win => &mut self.wins,
            Outcome::Draw => &mut self.draws,
            Outcome::Loss => &mut self.losses,
        };
        *count = count.saturating_add(1);
    }

    /// Counts ordered by ascending score (losses, draws, wins), as fishtest stores them.
    pub fn to_array(self) -> [u64; 3] {
        [self.losses, self.draws, self.wins]
    }

    /// Elo, LOS, nElo and draw ratio from these games; `None` without games.
    pub fn estimate(&self) -> Option<EloEstimate> {
        EloEstimate::from_wdl(*self)
    }
}

/// Each count saturates at `u64::MAX` instead of overflowing (no panic in debug builds, no
/// wrap to a small count in release builds); [`Wdl::checked_add`] says when that happens.
impl Add for Wdl {
    type Output = Wdl;
    fn add(self, rhs: Wdl) -> Wdl {
        Wdl::new(
            self.wins.saturating_add(rhs.wins),
            self.draws.saturating_add(rhs.draws),
            self.losses.saturating_add(rhs.losses),
        )
    }
}

impl AddAssign for Wdl {
    fn add_assign(&mut self, rhs: Wdl) {
        *self = *self + rhs;
    }
}

impl fmt::Display for Wdl {
    /// Same `W,D,L` form that [`Wdl::from_str`] reads.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{},{}", self.wins, self.draws, self.losses)
    }
}

impl FromStr for Wdl {
    type Err = StatsError;

    /// Parses `"W,D,L"`, e.g. `"136,111,96"`; spaces around numbers are allowed.
    fn from_str(s: &str) -> Result<Self, StatsError> {
        const FORMAT: &str = "W,D,L";
        let [w, d, l] = parse_counts(s, FORMAT, ["wins", "draws", "losses"])?;
        let wdl = Wdl::new(w, d, l);
        match wdl.checked_games() {
            Some(_) => Ok(wdl),
            None => Err(StatsError::CountOverflow { format: FORMAT }),
        }
    }
}

/// Bucket of a game pair by its total score for the first engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PairBucket {
    /// 0 points: two losses.
    LL,
    /// ½ point: a loss and a draw.
    LD,
    /// 1 point: two draws or a win and a loss.
    DD,
    /// 1½ points: a win and a draw.
    WD,
    /// 2 points: two wins.
    WW,
}

impl PairBucket {
    /// Classifies a pair by the outcomes of its two games (order does not matter).
    pub fn from_outcomes(first: Outcome, second: Outcome) -> Self {
        match first.half_points() + second.half_points() {
            0 => PairBucket::LL,
            1 => PairBucket::LD,
            2 => PairBucket::DD,
            3 => PairBucket::WD,
            _ => PairBucket::WW,
        }
    }

    /// Classifies a pair by its two game scores, each 0, 0.5 or 1.
    pub fn from_scores(first: f64, second: f64) -> Result<Self, StatsError> {
        Ok(Self::from_outcomes(
            Outcome::from_score(first)?,
            Outcome::from_score(second)?,
        ))
    }
}

/// Counts of game pairs by pair score 0, ½, 1, 1½, 2 (fishtest's `Ptnml(0-2)`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Pentanomial {
    /// Pairs scoring 0: two losses.
    pub ll: u64,
    /// Pairs scoring ½: a loss and a draw.
    pub ld: u64,
    /// Pairs scoring 1: two draws, or a win and a loss.
    pub dd: u64,
    /// Pairs scoring 1½: a win and a draw.
    pub wd: u64,
    /// Pairs scoring 2: two wins.
    pub ww: u64,
}

impl Pentanomial {
    /// Counts in ascending pair score, the order of fishtest's `Ptnml(0-2)`.
    pub const fn new(ll: u64, ld: u64, dd: u64, wd: u64, ww: u64) -> Self {
        Pentanomial { ll, ld, dd, wd, ww }
    }

    /// Pairs played; saturates at `u64::MAX` (parsed counts never get there: see
    /// [`Pentanomial::checked_games`]).
    pub fn pairs(&self) -> u64 {
        self.checked_pairs().unwrap_or(u64::MAX)
    }

    /// Pairs played, `None` if the total does not fit in a `u64`.
    pub(crate) fn checked_pairs(&self) -> Option<u64> {
        self.to_array()
            .iter()
            .try_fold(0u64, |total, &count| total.checked_add(count))
    }

    /// Games played (two per pair); saturates at `u64::MAX`.
    pub fn games(&self) -> u64 {
        self.checked_games().unwrap_or(u64::MAX)
    }

    /// Games played, `None` if the total does not fit in a `u64`.
    pub(crate) fn checked_games(&self) -> Option<u64> {
        self.checked_pairs()?.checked_mul(2)
    }

    /// Mean points per game, `None` without pairs.
    pub fn score(&self) -> Option<f64> {
        // Quarter points per pair, summed in 128 bits: exact for any counts.
        let [ll, ld, dd, wd, ww] = self.to_array().map(u128::from);
        let pairs = ll + ld + dd + wd + ww;
        let quarters = ld + 2 * dd + 3 * wd + 4 * ww;
        (pairs > 0).then(|| quarters as f64 / (4 * pairs) as f64)
    }

    /// Pairs won (1½ or 2) per pair lost (0 or ½), fishtest's "PairsRatio".
    /// Infinite when no pair was lost, `None` when no pair was won or lost.
    pub fn pairs_ratio(&self) -> Option<f64> {
        // Summed in 128 bits: two counts near `u64::MAX` must not overflow.
        let (won, lost) = (
            u128::from(self.wd) + u128::from(self.ww),
            u128::from(self.ll) + u128::from(self.ld),
        );
        match (won, lost) {
            (0, 0) => None,
            (_, 0) => Some(f64::INFINITY),
            _ => Some(won as f64 / lost as f64),
        }
    }

    /// The counts of both, `None` when a count or the number of games (two per pair) would
    /// not fit in a `u64` (the same limit parsing applies, see [`StatsError::CountOverflow`]).
    pub fn checked_add(self, rhs: Pentanomial) -> Option<Pentanomial> {
        let (a, b) = (self.to_array(), rhs.to_array());
        let mut sum = [0u64; 5];
        for (i, total) in sum.iter_mut().enumerate() {
            *total = a[i].checked_add(b[i])?;
        }
        let [ll, ld, dd, wd, ww] = sum;
        let sum = Pentanomial::new(ll, ld, dd, wd, ww);
        sum.checked_games().map(|_| sum)
    }

    /// Counts one more pair (a count already at `u64::MAX` stays there).
    pub fn record(&mut self, bucket: PairBucket) {
        let count = match bucket {
            PairBucket::LL => &mut self.ll,
            PairBucket::LD => &mut self.ld,
            PairBucket::DD => &mut self.dd,
            PairBucket::WD => &mut self.wd,
            PairBucket::WW => &mut self.ww,
        };
        *count = count.saturating_add(1);
    }

    /// Counts one more pair given its two game outcomes.
    pub fn record_pair(&mut self, first: Outcome, second: Outcome) {
        self.record(PairBucket::from_outcomes(first, second));
    }

    /// Counts seen from the second engine's side.
    pub fn flipped(self) -> Self {
        Pentanomial::new(self.ww, self.wd, self.dd, self.ld, self.ll)
    }

    /// Counts ordered by ascending pair score, as fishtest stores them.
    pub fn to_array(self) -> [u64; 5] {
        [self.ll, self.ld, self.dd, self.wd, self.ww]
    }

    /// Elo, LOS, nElo and pair draw ratio; `None` without pairs.
    pub fn estimate(&self) -> Option<EloEstimate> {
        EloEstimate::from_ptnml(*self)
    }
}

/// Each count saturates at `u64::MAX` instead of overflowing (no panic in debug builds, no
/// wrap to a small count in release builds); [`Pentanomial::checked_add`] says when that
/// happens.
impl Add for Pentanomial {
    type Output = Pentanomial;
    fn add(self, rhs: Pentanomial) -> Pentanomial {
        let (a, b) = (self.to_array(), rhs.to_array());
        let [ll, ld, dd, wd, ww] = std::array::from_fn(|i| a[i].saturating_add(b[i]));
        Pentanomial::new(ll, ld, dd, wd, ww)
    }
}

impl AddAssign for Pentanomial {
    fn add_assign(&mut self, rhs: Pentanomial) {
        *self = *self + rhs;
    }
}

impl fmt::Display for Pentanomial {
    /// Same `LL,LD,DD,WD,WW` form that [`Pentanomial::from_str`] reads.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [a, b, c, d, e] = self.to_array();
        write!(f, "{a},{b},{c},{d},{e}")
    }
}

impl FromStr for Pentanomial {
    type Err = StatsError;

    /// Parses `"LL,LD,DD,WD,WW"` (ascending pair score, like fishtest's
    /// `Ptnml(0-2)` line), e.g. `"134,5897,13530,6129,118"`.
    fn from_str(s: &str) -> Result<Self, StatsError> {
        const FORMAT: &str = "LL,LD,DD,WD,WW";
        let [ll, ld, dd, wd, ww] = parse_counts(s, FORMAT, ["LL", "LD", "DD", "WD", "WW"])?;
        let ptnml = Pentanomial::new(ll, ld, dd, wd, ww);
        match ptnml.checked_games() {
            Some(_) => Ok(ptnml),
            None => Err(StatsError::CountOverflow { format: FORMAT }),
        }
    }
}

/// Splits a comma-separated list into exactly `N` non-negative counts.
fn parse_counts<const N: usize>(
    s: &str,
    format: &'static str,
    names: [&'static str; N],
) -> Result<[u64; N], StatsError> {
    let s = s.trim();
    let fields: Vec<&str> = if s.is_empty() {
        Vec::new()
    } else {
        s.split(',').map(str::trim).collect()
    };
    if fields.len() != N {
        return Err(StatsError::FieldCount {
            format,
            expected: N,
            found: fields.len(),
        });
    }
    let mut counts = [0u64; N];
    for ((count, field), name) in counts.iter_mut().zip(&fields).zip(names) {
        // `u64::from_str` accepts a leading '+'; a count should be plain digits.
        let digits_only = !field.is_empty() && field.bytes().all(|b| b.is_ascii_digit());
        *count =
            field
                .parse()
                .ok()
                .filter(|_| digits_only)
                .ok_or_else(|| StatsError::BadCount {
                    field: name,
                    value: (*field).to_string(),
                })?;
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Adding counts near `u64::MAX` neither panics (debug) nor wraps (release): `+` saturates
    /// each count, `checked_add` refuses, and `record` stays at the maximum.
    #[test]
    fn adding_counts_saturates_or_is_refused_instead_of_overflowing() {
        let big = Wdl::new(u64::MAX - 1, 3, 0);
        let sum = big + Wdl::new(5, 4, 2);
        assert_eq!(sum, Wdl::new(u64::MAX, 7, 2));
        assert_eq!(big.checked_add(Wdl::new(5, 0, 0)), None);
        // Every count fits but the number of games does not: refused like a parsed line.
        assert_eq!(
            Wdl::new(u64::MAX / 2, 0, 0).checked_add(Wdl::new(0, u64::MAX / 2 + 2, 0)),
            None
        );
        assert_eq!(
            Wdl::new(1, 2, 3).checked_add(Wdl::new(4, 5, 6)),
            Some(Wdl::new(5, 7, 9))
        );
        let mut at_max = Wdl::new(u64::MAX, 0, 0);
        at_max += Wdl::new(1, 1, 1);
        assert_eq!(at_max, Wdl::new(u64::MAX, 1, 1));
        at_max.record(Outcome::Win);
        assert_eq!(at_max.wins, u64::MAX);

        let big = Pentanomial::new(0, u64::MAX, 1, 0, 0);
        assert_eq!(
            big + Pentanomial::new(1, 1, 1, 1, 1),
            Pentanomial::new(1, u64::MAX, 2, 1, 1)
        );
        assert_eq!(big.checked_add(Pentanomial::new(0, 1, 0, 0, 0)), None);
        // Pairs that fit but games (two per pair) that do not.
        assert_eq!(
            Pentanomial::new(u64::MAX / 2, 0, 0, 0, 0).checked_add(Pentanomial::new(0, 0, 0, 0, 1)),
            None
        );
        assert_eq!(
            Pentanomial::new(1, 2, 3, 4, 5).checked_add(Pentanomial::new(5, 4, 3, 2, 1)),
            Some(Pentanomial::new(6, 6, 6, 6, 6))
        );
        let mut at_max = Pentanomial::new(0, 0, 0, 0, u64::MAX);
        at_max += Pentanomial::new(0, 0, 0, 0, 9);
        at_max.record(PairBucket::WW);
        assert_eq!(at_max.ww, u64::MAX);
        assert_eq!(
            Pentanomial::new(u64::MAX, u64::MAX, 0, u64::MAX, 1).pairs_ratio(),
            Some((u64::MAX as f64 + 1.0) / (2.0 * u64::MAX as f64))
        );
        // Estimates from saturated counts are numbers, not panics.
        assert!(at_max.estimate().is_some());
        assert!(Wdl::new(u64::MAX, 0, 0).estimate().is_some());
    }

    #[test]
    fn parses_wdl_and_reports_what_is_wrong() {
        assert_eq!(" 136, 111 ,96 ".parse::<Wdl>(), Ok(Wdl::new(136, 111, 96)));
        assert_eq!(
            "1,2".parse::<Wdl>(),
            Err(StatsError::FieldCount {
                format: "W,D,L",
                expected: 3,
                found: 2
            })
        );
        assert_eq!(
            "".parse::<Wdl>().unwrap_err(),
            StatsError::FieldCount {
                format: "W,D,L",
                expected: 3,
                found: 0
            }
        );
        let err = "1,x,3".parse::<Wdl>().unwrap_err();
        assert_eq!(
            err,
            StatsError::BadCount {
                field: "draws",
                value: "x".into()
            }
        );
        assert_eq!(
            err.to_string(),
            "draws count \"x\" is not a non-negative integer"
        );
        assert!("1,-2,3".parse::<Wdl>().is_err());
        assert!("1,+2,3".parse::<Wdl>().is_err());
        assert!("1,,3".parse::<Wdl>().is_err());
        assert!("1,2.5,3".parse::<Wdl>().is_err());
    }

    #[test]
    fn parses_pentanomial_and_round_trips() {
        let p: Pentanomial = "134,5897,13530,6129,118".parse().unwrap();
        assert_eq!(p, Pentanomial::new(134, 5897, 13530, 6129, 118));
        assert_eq!(p.to_string().parse::<Pentanomial>(), Ok(p));
        assert_eq!(
            "1,2,3,4".parse::<Pentanomial>(),
            Err(StatsError::FieldCount {
                format: "LL,LD,DD,WD,WW",
                expected: 5,
                found: 4
            })
        );
        assert_eq!(
            "1,2,3,4,99999999999999999999".parse::<Pentanomial>(),
            Err(StatsError::BadCount {
                field: "WW",
                value: "99999999999999999999".into()
            })
        );
        let w = Wdl::new(1, 2, 3);
        assert_eq!(w.to_string().parse::<Wdl>(), Ok(w));
    }

    #[test]
    fn counts_whose_total_overflows_are_refused() {
        let max = u64::MAX;
        assert_eq!(
            format!("{max},1,0").parse::<Wdl>(),
            Err(StatsError::CountOverflow { format: "W,D,L" })
        );
        assert_eq!(format!("{max},0,0").parse::<Wdl>(), Ok(Wdl::new(max, 0, 0)));
        // Pairs fit, but twice as many games do not.
        let half = max / 2 + 1;
        let err = format!("0,0,{half},0,0")
            .parse::<Pentanomial>()
            .unwrap_err();
        assert_eq!(
            err,
            StatsError::CountOverflow {
                format: "LL,LD,DD,WD,WW"
            }
        );
        assert_eq!(
            err.to_string(),
            "the LL,LD,DD,WD,WW counts add up to more than 18446744073709551615 games"
        );
        assert!(format!("{max},{max},0,0,0").parse::<Pentanomial>().is_err());
        assert_eq!(Wdl::new(max, max, 0).checked_games(), None);
        assert_eq!(Wdl::new(max, max, 0).games(), max);
        // Large but valid pair counts score exactly (no wrapped quarter points).
        let p: Pentanomial = format!("0,0,0,0,{}", max / 2).parse().unwrap();
        assert_eq!(p.score(), Some(1.0));
    }

    #[test]
    fn classifies_pairs() {
        use Outcome::*;
        assert_eq!(PairBucket::from_outcomes(Loss, Loss), PairBucket::LL);
        assert_eq!(PairBucket::from_outcomes(Draw, Loss), PairBucket::LD);
        assert_eq!(PairBucket::from_outcomes(Win, Loss), PairBucket::DD);
        assert_eq!(PairBucket::from_outcomes(Loss, Win), PairBucket::DD);
        assert_eq!(PairBucket::from_outcomes(Draw, Draw), PairBucket::DD);
        assert_eq!(PairBucket::from_outcomes(Win, Draw), PairBucket::WD);
        assert_eq!(PairBucket::from_outcomes(Win, Win), PairBucket::WW);
        assert_eq!(PairBucket::from_scores(0.5, 1.0), Ok(PairBucket::WD));
        assert_eq!(
            PairBucket::from_scores(0.25, 1.0),
            Err(StatsError::BadScore(0.25))
        );

        let mut p = Pentanomial::default();
        p.record_pair(Win, Loss);
        p.record_pair(Win, Win);
        p.record(PairBucket::LD);
        assert_eq!(p, Pentanomial::new(0, 1, 1, 0, 1));
        assert_eq!(p.pairs(), 3);
        assert_eq!(p.games(), 6);
        assert_eq!(p.score(), Some(3.5 / 6.0));
    }

    #[test]
    fn adds_and_flips_counts() {
        let mut a = Wdl::new(1, 2, 3);
        a += Wdl::new(10, 20, 30);
        assert_eq!(a, Wdl::new(11, 22, 33));
        a.record(Outcome::Win);
        assert_eq!(a.flipped(), Wdl::new(33, 22, 12));
        assert_eq!(a.to_array(), [33, 22, 12]);
        assert_eq!(Wdl::default().score(), None);

        let p = Pentanomial::new(1, 2, 3, 4, 5) + Pentanomial::new(1, 1, 1, 1, 1);
        assert_eq!(p, Pentanomial::new(2, 3, 4, 5, 6));
        assert_eq!(p.flipped(), Pentanomial::new(6, 5, 4, 3, 2));
        assert_eq!(Pentanomial::new(1, 1, 5, 3, 0).pairs_ratio(), Some(1.5));
        assert_eq!(
            Pentanomial::new(0, 0, 5, 3, 0).pairs_ratio(),
            Some(f64::INFINITY)
        );
        assert_eq!(Pentanomial::new(0, 0, 5, 0, 0).pairs_ratio(), None);
    }
}
