//! The joint ratings of a run with three or more engines ([`crate::stats::JointRatings`]): its
//! games as the fit takes them, fitted at the end of a run, a resumed run and a merge alike.

use crate::board::GameResult;
use crate::record::FinishedGame;
use crate::stats::{Anchor, JointRatings, Outcome, RatedGame, RatingOptions, RatingsError};

/// The file the joint ratings are written to, beside ranking.csv.
pub const RATINGS_FILE: &str = "ratings.csv";

/// A run has joint ratings from this many engines on: with two, the pairing's own Elo is the
/// whole story.
pub const RATED_FROM_ENGINES: usize = 3;

/// White's outcome of a game result.
pub fn white_outcome(result: GameResult) -> Outcome {
    match result {
        GameResult::WhiteWins => Outcome::Win,
        GameResult::Draw => Outcome::Draw,
        GameResult::BlackWins => Outcome::Loss,
    }
}

/// `games` as the fit takes them, engines indexed by `names`; a name not there yet is added at
/// the end (so names read from games.csv come in the order the engines first appear).
pub fn rated_games(names: &mut Vec<String>, games: &[FinishedGame]) -> Vec<RatedGame> {
    let mut index_of = |name: &str| match names.iter().position(|n| n == name) {
        Some(i) => i,
        None => {
            names.push(name.to_string());
            names.len() - 1
        }
    };
    games
        .iter()
        .map(|g| RatedGame {
            white: index_of(&g.white),
            black: index_of(&g.black),
            outcome: white_outcome(g.result),
            pair: g.pair_id,
        })
        .collect()
}

/// The joint ratings of the engines of `names` that played in `games` (one that played none,
/// in a shard or a run stopped early, is left out rather than refused as unconnected).
pub fn joint_ratings(
    names: &[String],
    games: &[RatedGame],
    options: &RatingOptions,
) -> Result<JointRatings, RatingsError> {
    let mut played = vec![false; names.len()];
    for g in games {
        for e in [g.white, g.black] {
            if let Some(p) = played.get_mut(e) {
                *p = true;
            }
        }
    }
    // Old index -> new index, for the engines kept (in their order).
    let mut new_index = vec![usize::MAX; names.len()];
    let mut kept = Vec::new();
    for (i, name) in names.iter().enumerate() {
        if played[i] {
            new_index[i] = kept.len();
            kept.push(name.clone());
        }
    }
    let remap = |i: usize| new_index.get(i).copied().unwrap_or(i);
    let games: Vec<RatedGame> = games
        .iter()
        .map(|g| RatedGame {
            white: remap(g.white),
            black: remap(g.black),
            ..*g
        })
        .collect();
    let mut options = *options;
    options.anchor = match options.anchor {
        Some(a) if a.engine < names.len() && !played[a.engine] => {
            return Err(RatingsError::AnchorNotRated {
                name: names[a.engine].clone(),
                rating: crate::stats::Rating::Undetermined,
            })
        }
        Some(a) => Some(Anchor {
            engine: remap(a.engine),
            ..a
        }),
        None => None,
    };
    JointRatings::fit(&kept, &games, &options)
}

/// A run's joint ratings with the defaults (so `sparring ratings DIR` gives the same), or None
/// for a run of fewer than three engines.
pub fn run_ratings(
    names: &[String],
    games: &[RatedGame],
) -> Option<Result<JointRatings, RatingsError>> {
    (names.len() >= RATED_FROM_ENGINES)
        .then(|| joint_ratings(names, games, &RatingOptions::default()))
}
