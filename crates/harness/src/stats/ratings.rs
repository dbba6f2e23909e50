//! Joint ratings of several engines from all their games: the maximum-likelihood fit of one
//! logistic Elo curve to every game (Bradley–Terry on the Elo scale, a draw half a point, no
//! colour term), as Ordo does by default, with 95 % error bars from a bootstrap over game
//! pairs: [`JointRatings::fit`].
//!
//! Why not each engine's score against the field: turning a pooled score into Elo treats the
//! field as one opponent of average strength, and since the logistic curve flattens at the
//! ends, wins against a much weaker panel member and losses to a much stronger one pull the
//! pooled score towards 50 %: differences between engines come out compressed. The joint fit
//! weighs each game by the rating of the opponent it was played against. It assumes that games
//! are independent, that one logistic curve links every rating difference to the expected
//! score, and that a draw is worth half a win.
//!
//! The ratings have mean 0 over the rated engines, or put one anchor engine at a given value.
//! An engine that won (or lost) everything against the others has no finite rating: it is
//! reported as [`Rating::PlusInfinity`] (or `MinusInfinity`) and the rest are fitted without it.

mod graph;
mod newton;
mod tally;

use super::Outcome;
use crate::error::{ErrorClass, Failure};
use crate::rng::Rng;
use graph::{connected_groups, places, Place};
use std::f64::consts::LN_10;
use std::fmt;
use tally::{PairGroups, Tallies};
use thiserror::Error;

/// Bootstrap resamples by default. The ends of a 95 % percentile interval are order statistics
/// whose Monte Carlo error shrinks as 1/sqrt(resamples): at 1000 their standard error is about
/// 4 % of the half-width (at 200 about 10 %), and a thousand fits of an 800-game gauntlet take
/// some 20 ms.
pub const DEFAULT_RESAMPLES: u32 = 1000;

/// The fewest resamples accepted: each tail of the interval then holds at least two of them.
pub(crate) const MIN_RESAMPLES: u32 = 100;

/// The most resamples accepted (a bound on time and memory, far past any use).
pub(crate) const MAX_RESAMPLES: u32 = 100_000;

/// The bootstrap's seed by default: the runner and `sparring ratings` use it, so rating a run
/// again gives its ratings.csv.
pub const DEFAULT_SEED: u64 = 1;

/// Elo per natural-log unit of the logistic model.
const ELO_PER_UNIT: f64 = 400.0 / LN_10;

/// One game for the fit: the engines (indices into the names) and White's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RatedGame {
    /// The engine playing White.
    pub white: usize,
    /// The engine playing Black.
    pub black: usize,
    /// White's result.
    pub outcome: Outcome,
    /// The pair (same opening, colours reversed) the game belongs to: the bootstrap draws a
    /// pair's games together.
    pub pair: u64,
}

/// An engine's rating, or why it has no finite one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rating {
    /// The maximum-likelihood rating in Elo.
    Finite(f64),
    /// It took points from the rated engines and they took none from it (directly or through
    /// other engines): every finite rating is too low.
    PlusInfinity,
    /// The rated engines took points from it and it took none from them.
    MinusInfinity,
    /// Nothing links it to the rated engines in either direction (only through engines rated
    /// ±∞): any rating fits.
    Undetermined,
}

impl Rating {
    /// The finite value, if it has one.
    pub fn value(self) -> Option<f64> {
        match self {
            Rating::Finite(v) => Some(v),
            Rating::PlusInfinity | Rating::MinusInfinity | Rating::Undetermined => None,
        }
    }

    /// As a bootstrap sample: ±∞, or NaN (undetermined, which no interval may ignore).
    fn as_sample(self) -> f64 {
        match self {
            Rating::Finite(v) => v,
            Rating::PlusInfinity => f64::INFINITY,
            Rating::MinusInfinity => f64::NEG_INFINITY,
            Rating::Undetermined => f64::NAN,
        }
    }

    fn from_sample(value: f64) -> Rating {
        if value.is_nan() {
            Rating::Undetermined
        } else if value == f64::INFINITY {
            Rating::PlusInfinity
        } else if value == f64::NEG_INFINITY {
            Rating::MinusInfinity
        } else {
            Rating::Finite(value)
        }
    }

    /// The order of the ranking: +∞, finite ones high to low, -∞, undetermined.
    fn sort_key(self) -> (u8, f64) {
        match self {
            Rating::PlusInfinity => (0, 0.0),
            Rating::Finite(v) => (1, -v),
            Rating::MinusInfinity => (2, 0.0),
            Rating::Undetermined => (3, 0.0),
        }
    }
}

impl fmt::Display for Rating {
    /// The value with the formatter's precision (never `-0.0`); `inf`, `-inf` or `n/a`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = match self {
            Rating::Finite(v) => super::fixed(*v, f.precision().unwrap_or(1)),
            Rating::PlusInfinity => "inf".to_string(),
            Rating::MinusInfinity => "-inf".to_string(),
            Rating::Undetermined => "n/a".to_string(),
        };
        // Not `pad`, which would cut the text to the precision.
        let width = f.width().unwrap_or(0);
        match f.align() {
            Some(fmt::Alignment::Left) => write!(f, "{text:<width$}"),
            Some(fmt::Alignment::Center) => write!(f, "{text:^width$}"),
            _ => write!(f, "{text:>width$}"),
        }
    }
}

/// A 95 % bootstrap interval; an end may be infinite (never NaN).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    /// The 2.5 % point.
    pub lower: f64,
    /// The 97.5 % point.
    pub upper: f64,
}

impl Interval {
    /// Half its width (the `±` of a table); ∞ when an end is infinite.
    pub fn half_width(&self) -> f64 {
        if self.lower.is_finite() && self.upper.is_finite() {
            (self.upper - self.lower) / 2.0
        } else {
            f64::INFINITY
        }
    }
}

/// One engine's result of the fit.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineRating {
    /// Its name.
    pub name: String,
    /// Its rating.
    pub rating: Rating,
    /// The 95 % bootstrap interval of its rating (relative to the mean or the anchor).
    pub interval: Interval,
    /// Games it played.
    pub games: u64,
    /// Points it scored in them.
    pub points: f64,
}

impl EngineRating {
    /// Points per game.
    pub fn score(&self) -> Option<f64> {
        (self.games > 0).then(|| self.points / self.games as f64)
    }
}

/// One engine's rating minus another's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Difference {
    /// The difference of the ratings.
    pub estimate: Rating,
    /// Its 95 % bootstrap interval, from the same resamples (so the correlation of the two
    /// ratings, through common opponents and pairs, is accounted for).
    pub interval: Interval,
}

/// An engine held at a given rating instead of the mean being 0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Anchor {
    /// Its index in the names.
    pub engine: usize,
    /// Its rating.
    pub rating: f64,
}

/// How to fit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RatingOptions {
    /// An engine held at a rating; None: the rated engines' mean is 0.
    pub anchor: Option<Anchor>,
    /// Bootstrap resamples ([`MIN_RESAMPLES`] to [`MAX_RESAMPLES`]).
    pub resamples: u32,
    /// The bootstrap's seed.
    pub seed: u64,
}

impl Default for RatingOptions {
    fn default() -> Self {
        RatingOptions {
            anchor: None,
            resamples: DEFAULT_RESAMPLES,
            seed: DEFAULT_SEED,
        }
    }
}

/// Why there are no joint ratings.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum RatingsError {
    /// No game was given.
    #[error("no finished games to rate")]
    NoGames,
    /// A game names an engine past the list of names.
    #[error("a game names engine {index}, but only {engines} engines are named")]
    EngineIndex {
        /// The index given.
        index: usize,
        /// The number of names.
        engines: usize,
    },
    /// A game of an engine against itself.
    #[error("{name} plays itself in a game: such a game says nothing about a rating")]
    SameEngine {
        /// The engine.
        name: String,
    },
    /// The games fall apart into groups that never met.
    #[error("the games do not connect the engines: {}", groups_text(.groups))]
    Disconnected {
        /// The groups, each one's engines by name.
        groups: Vec<Vec<String>>,
    },
    /// No two engines have each taken points from the other, directly or through others.
    #[error(
        "no finite ratings: the results order the engines strictly (no two have each taken \
         points from the other, directly or through others)"
    )]
    NoFiniteFit,
    /// The anchor's index is past the list of names.
    #[error("the anchor is engine {index}, but only {engines} engines are named")]
    AnchorIndex {
        /// The index given.
        index: usize,
        /// The number of names.
        engines: usize,
    },
    /// The anchor's rating is NaN or infinite.
    #[error("the anchor's rating must be a finite number, got {0}")]
    AnchorValue(f64),
    /// The anchor has no finite rating.
    #[error("the anchor {name} has no finite rating ({rating}): anchor a rated engine")]
    AnchorNotRated {
        /// The anchor's name.
        name: String,
        /// What it has instead.
        rating: Rating,
    },
    /// A resample count out of range.
    #[error("resamples must be from {MIN_RESAMPLES} to {MAX_RESAMPLES}, got {0}")]
    Resamples(u32),
    /// Newton's method did not converge (never seen: the fit is concave).
    #[error("the rating fit did not converge")]
    NotConverged,
}

fn groups_text(groups: &[Vec<String>]) -> String {
    let listed: Vec<String> = groups
        .iter()
        .map(|g| format!("{{{}}}", g.join(", ")))
        .collect();
    format!("no game links {}", listed.join(" with "))
}

impl ErrorClass for RatingsError {
    fn class(&self) -> Failure {
        match self {
            RatingsError::NoGames
            | RatingsError::EngineIndex { .. }
            | RatingsError::SameEngine { .. }
            | RatingsError::Disconnected { .. }
            | RatingsError::NoFiniteFit
            | RatingsError::AnchorIndex { .. }
            | RatingsError::AnchorValue(_)
            | RatingsError::AnchorNotRated { .. }
            | RatingsError::Resamples(_) => Failure::BadInput,
            RatingsError::NotConverged => Failure::FailedRun,
        }
    }
}

/// The fitted ratings, their bootstrap intervals, and the resamples behind them (so the
/// interval of any two engines' difference can be read).
#[derive(Clone, Debug)]
pub struct JointRatings {
    engines: Vec<EngineRating>,
    /// Resample `r`'s rating of engine `e` at `r * engines + e`: ±∞ for an engine outside
    /// that resample's rated group, NaN when undetermined.
    samples: Vec<f64>,
    options: RatingOptions,
}

impl JointRatings {
    /// Fits the ratings of `names` (indexed as in the games) to `games` and bootstraps their
    /// intervals. Every engine must have played, and the games must connect them all.
    pub fn fit(
        names: &[String],
        games: &[RatedGame],
        options: &RatingOptions,
    ) -> Result<JointRatings, RatingsError> {
        check_input(names, games, options)?;
        let n = names.len();
        let groups = PairGroups::new(games);
        let tallies = groups.tallies(n);
        let all: Vec<usize> = (0..n).collect();
        let connected = connected_groups(&tallies, &all);
        if connected.len() > 1 {
            let named = |g: &Vec<usize>| g.iter().map(|&i| names[i].clone()).collect();
            return Err(RatingsError::Disconnected {
                groups: connected.iter().map(named).collect(),
            });
        }
        let (rated, place) = places(&tallies, &all);
        if rated.len() < 2 {
            return Err(RatingsError::NoFiniteFit);
        }
        let mut theta = vec![0.0; n];
        if !newton::fit_group(&tallies, &rated, &mut theta) {
            return Err(RatingsError::NotConverged);
        }
        if let Some(anchor) = options.anchor {
            if place[anchor.engine] != Place::Rated {
                let unanchored = placed_values(&theta, &rated, &place, None);
                return Err(RatingsError::AnchorNotRated {
                    name: names[anchor.engine].clone(),
                    rating: Rating::from_sample(unanchored[anchor.engine]),
                });
            }
        }
        let point = placed_values(&theta, &rated, &place, options.anchor);
        let samples = bootstrap(&groups, &tallies, (&rated, &theta), &point, options)?;
        let engines = (0..n)
            .map(|e| EngineRating {
                name: names[e].clone(),
                rating: Rating::from_sample(point[e]),
                interval: interval((0..samples.len() / n).map(|r| samples[r * n + e])),
                games: (0..n).map(|j| tallies.games(e, j)).sum::<f64>() as u64,
                points: (0..n).map(|j| tallies.points(e, j)).sum(),
            })
            .collect();
        Ok(JointRatings {
            engines,
            samples,
            options: *options,
        })
    }

    /// Every engine, in the order of the names.
    pub fn engines(&self) -> &[EngineRating] {
        &self.engines
    }

    /// The engines best first: +∞, then by rating, then -∞ and undetermined (ties keep the
    /// names' order).
    pub fn ranked(&self) -> Vec<&EngineRating> {
        let mut ranked: Vec<&EngineRating> = self.engines.iter().collect();
        ranked.sort_by(|a, b| {
            let (x, y) = (a.rating.sort_key(), b.rating.sort_key());
            x.0.cmp(&y.0).then(x.1.total_cmp(&y.1))
        });
        ranked
    }

    /// The index of the engine called `name`.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.engines.iter().position(|e| e.name == name)
    }

    /// Engine `a`'s rating minus engine `b`'s, with its interval.
    pub fn difference(&self, a: usize, b: usize) -> Difference {
        let n = self.engines.len();
        let estimate = self.engines[a].rating.as_sample() - self.engines[b].rating.as_sample();
        let resamples = self.samples.len() / n;
        Difference {
            estimate: Rating::from_sample(estimate),
            interval: interval(
                (0..resamples).map(|r| self.samples[r * n + a] - self.samples[r * n + b]),
            ),
        }
    }

    /// The options of the fit.
    pub fn options(&self) -> &RatingOptions {
        &self.options
    }
}

/// Refuses what the fit cannot take: no games, indices past the names, self-play, a bad
/// anchor or resample count.
fn check_input(
    names: &[String],
    games: &[RatedGame],
    options: &RatingOptions,
) -> Result<(), RatingsError> {
    if games.is_empty() {
        return Err(RatingsError::NoGames);
    }
    let engines = names.len();
    for g in games {
        if let Some(&index) = [g.white, g.black].iter().find(|&&i| i >= engines) {
            return Err(RatingsError::EngineIndex { index, engines });
        }
        if g.white == g.black {
            return Err(RatingsError::SameEngine {
                name: names[g.white].clone(),
            });
        }
    }
    if let Some(anchor) = options.anchor {
        if anchor.engine >= engines {
            return Err(RatingsError::AnchorIndex {
                index: anchor.engine,
                engines,
            });
        }
        if !anchor.rating.is_finite() {
            return Err(RatingsError::AnchorValue(anchor.rating));
        }
    }
    if !(MIN_RESAMPLES..=MAX_RESAMPLES).contains(&options.resamples) {
        return Err(RatingsError::Resamples(options.resamples));
    }
    Ok(())
}

/// Every engine's value in Elo: the fitted group's from `theta` (centred on 0, or shifted to
/// the anchor), the others ±∞ or NaN by their place. All NaN when the anchor is outside the
/// group (nothing is then relative to it).
fn placed_values(
    theta: &[f64],
    group: &[usize],
    place: &[Place],
    anchor: Option<Anchor>,
) -> Vec<f64> {
    let shift = match anchor {
        None => 0.0,
        Some(a) if place[a.engine] == Place::Rated => a.rating - theta[a.engine] * ELO_PER_UNIT,
        Some(_) => return vec![f64::NAN; theta.len()],
    };
    let mut values: Vec<f64> = place
        .iter()
        .map(|p| match p {
            Place::Rated => f64::NAN,
            Place::Above => f64::INFINITY,
            Place::Below => f64::NEG_INFINITY,
            Place::Apart => f64::NAN,
        })
        .collect();
    for &i in group {
        values[i] = theta[i] * ELO_PER_UNIT + shift;
    }
    values
}

/// The values of every resample, `resamples × engines`: each draws as many pairs as there are,
/// with replacement, and fits the engines the full fit rated (warm-started at its ratings).
/// Engines the full fit did not rate keep their ±∞ or NaN: a resample only drops results.
fn bootstrap(
    groups: &PairGroups,
    tallies: &Tallies,
    (rated, theta): (&[usize], &[f64]),
    point: &[f64],
    options: &RatingOptions,
) -> Result<Vec<f64>, RatingsError> {
    let n = tallies.n;
    let mut rng = Rng::new(options.seed);
    let mut drawn = Tallies::new(n);
    let mut samples = Vec::with_capacity(options.resamples as usize * n);
    for _ in 0..options.resamples {
        drawn.clear();
        for _ in 0..groups.len() {
            groups.add_to(rng.below(groups.len() as u64) as usize, &mut drawn);
        }
        let (group, place) = places(&drawn, rated);
        let mut fitted = theta.to_vec();
        if group.len() >= 2 && !newton::fit_group(&drawn, &group, &mut fitted) {
            return Err(RatingsError::NotConverged);
        }
        let values = if group.len() >= 2 {
            placed_values(&fitted, &group, &place, options.anchor)
        } else {
            vec![f64::NAN; n]
        };
        let unrated = |e: usize| !rated.contains(&e);
        samples.extend((0..n).map(|e| if unrated(e) { point[e] } else { values[e] }));
    }
    Ok(samples)
}

/// The 95 % percentile interval of `values`: the values with 2.5 % of them below and 2.5 %
/// above. An undetermined (NaN) value counts as -∞ for the lower end and +∞ for the upper, so
/// it widens the interval rather than vanish.
fn interval(values: impl Iterator<Item = f64> + Clone) -> Interval {
    let end = |fill: f64, from_top: bool| {
        let mut sorted: Vec<f64> = values
            .clone()
            .map(|v| if v.is_nan() { fill } else { v })
            .collect();
        sorted.sort_by(f64::total_cmp);
        let k = sorted.len() / 40;
        match from_top {
            false => sorted.get(k).copied(),
            true => sorted.len().checked_sub(k + 1).map(|i| sorted[i]),
        }
        .unwrap_or(fill)
    };
    Interval {
        lower: end(f64::NEG_INFINITY, false),
        upper: end(f64::INFINITY, true),
    }
}

#[cfg(test)]
mod tests;
