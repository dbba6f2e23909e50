//! The joint ratings of a run with three or more engines ([`crate::stats::JointRatings`]): its
//! games as the fit takes them, fitted at the end of a run, a resumed run and a merge alike.

use crate::board::GameResult;
use crate::record::{FinishedGame, PgnGameResult};
use crate::stats::{Anchor, JointRatings, Outcome, RatedGame, RatingOptions, RatingsError};
use std::collections::HashMap;

/// The file the joint ratings are written to, beside ranking.csv.
pub(crate) const RATINGS_FILE: &str = "ratings.csv";

/// A run has joint ratings from this many engines on: with two, the pairing's own Elo is the
/// whole story.
pub(crate) const RATED_FROM_ENGINES: usize = 3;

/// White's outcome of a game result.
pub(crate) fn white_outcome(result: GameResult) -> Outcome {
    match result {
        GameResult::WhiteWins => Outcome::Win,
        GameResult::Draw => Outcome::Draw,
        GameResult::BlackWins => Outcome::Loss,
    }
}

/// `games` as the fit takes them, engines indexed by `names`; a name not there yet is added at
/// the end (so names read from games.csv come in the order the engines first appear).
pub(crate) fn rated_games(names: &mut Vec<String>, games: &[FinishedGame]) -> Vec<RatedGame> {
    games
        .iter()
        .map(|g| RatedGame {
            white: engine_index(names, &g.white),
            black: engine_index(names, &g.black),
            outcome: white_outcome(g.result),
            pair: g.pair_id,
        })
        .collect()
}

/// The finished games of a PGN (any runner's) as the fit takes them, engines indexed by `names`
/// as [`rated_games`] does; games marked `*` are left out. A PGN does not say which games form
/// a pair, so a pair is two games sharing their round, start FEN and players with the colours
/// reversed (sparring and fastchess give both games of a pair one round); any other game is a
/// pair of its own, so a runner that numbers every game gets its games resampled one by one.
/// Pair ids count from `first_pair`.
pub(crate) fn rated_pgn_games(
    names: &mut Vec<String>,
    games: &[PgnGameResult],
    first_pair: u64,
) -> Vec<RatedGame> {
    let finished: Vec<(&PgnGameResult, GameResult)> = games
        .iter()
        .filter_map(|g| g.result.map(|r| (g, r)))
        .collect();
    let pairs = infer_pairs(&finished, first_pair);
    finished
        .iter()
        .zip(pairs)
        .map(|((g, result), pair)| RatedGame {
            white: engine_index(names, &g.white),
            black: engine_index(names, &g.black),
            outcome: white_outcome(*result),
            pair,
        })
        .collect()
}

/// Each game's pair id, counted from `first`: the two games of a group sharing round, start FEN
/// and players share one when their colours are reversed; every other game has its own.
fn infer_pairs(games: &[(&PgnGameResult, GameResult)], first: u64) -> Vec<u64> {
    type PairKey<'a> = (&'a str, Option<&'a str>, &'a str, &'a str);
    fn key(g: &PgnGameResult) -> Option<PairKey<'_>> {
        let (low, high) = if g.white < g.black {
            (&g.white, &g.black)
        } else {
            (&g.black, &g.white)
        };
        let round = g.round.as_deref()?;
        Some((round, g.fen.as_deref(), low, high))
    }
    let mut groups: HashMap<PairKey<'_>, Vec<usize>> = HashMap::new();
    for (i, (g, _)) in games.iter().enumerate() {
        if let Some(k) = key(g) {
            groups.entry(k).or_default().push(i);
        }
    }
    let mut pair_of: Vec<Option<u64>> = vec![None; games.len()];
    let mut next = first;
    for (i, (g, _)) in games.iter().enumerate() {
        if pair_of[i].is_some() {
            continue;
        }
        pair_of[i] = Some(next);
        if let Some(&[a, b]) = key(g).and_then(|k| groups.get(&k)).map(Vec::as_slice) {
            if games[a].0.white == games[b].0.black {
                pair_of[b] = Some(next);
            }
        }
        next += 1;
    }
    pair_of.into_iter().map(|p| p.unwrap_or(first)).collect()
}

/// The index of `name` in `names`, added at the end if it is not there yet (so engines are
/// numbered in the order they first appear).
fn engine_index(names: &mut Vec<String>, name: &str) -> usize {
    match names.iter().position(|n| n == name) {
        Some(i) => i,
        None => {
            names.push(name.to_string());
            names.len() - 1
        }
    }
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
pub(crate) fn run_ratings(
    names: &[String],
    games: &[RatedGame],
) -> Option<Result<JointRatings, RatingsError>> {
    (names.len() >= RATED_FROM_ENGINES)
        .then(|| joint_ratings(names, games, &RatingOptions::default()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(white: &str, black: &str, result: Option<GameResult>, round: &str) -> PgnGameResult {
        PgnGameResult {
            line: 1,
            white: white.into(),
            black: black.into(),
            result,
            round: Some(round.to_string()).filter(|r| !r.is_empty()),
            fen: None,
            game_id: None,
        }
    }

    #[test]
    fn pgn_games_pair_by_round_and_players_with_colours_reversed() {
        use GameResult::{BlackWins, Draw, WhiteWins};
        let games = [
            game("a", "b", Some(WhiteWins), "1"),
            game("c", "a", Some(Draw), "1"),
            game("b", "a", Some(BlackWins), "1"),
            game("a", "b", None, "2"),
            // Same colours twice: not a pair.
            game("a", "c", Some(Draw), "2"),
            game("a", "c", Some(Draw), "2"),
            // No round: a pair of its own.
            game("b", "c", Some(WhiteWins), ""),
            game("c", "b", Some(WhiteWins), ""),
        ];
        let mut names = vec!["c".to_string()];
        let rated = rated_pgn_games(&mut names, &games, 10);
        assert_eq!(names, ["c", "a", "b"]);
        let pairs: Vec<u64> = rated.iter().map(|g| g.pair).collect();
        assert_eq!(pairs, [10, 11, 10, 12, 13, 14, 15]);
        let seen: Vec<(usize, usize, Outcome)> = rated
            .iter()
            .map(|g| (g.white, g.black, g.outcome))
            .collect();
        assert_eq!(seen[0], (1, 2, Outcome::Win));
        assert_eq!(seen[1], (0, 1, Outcome::Draw));
        assert_eq!(seen[2], (2, 1, Outcome::Loss));
    }
}
