//! The results any runner's PGN holds (cutechess-cli's, fastchess's, sparring's, a GUI's): for
//! each game its players, result, round and start FEN, read from the tag pairs alone, so a file
//! whose moves another tool would reject still rates. The games are split by the opening suites'
//! PGN splitter (`openings::split_pgn_games`), so both readers agree on where a game ends.

use crate::board::GameResult;
use crate::error::{ErrorClass, Failure};
use crate::openings::{split_pgn_games, PgnTagValue, RawPgnGame};
use std::io;
use std::path::{Path, PathBuf};

/// One game of a PGN as its tags tell it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgnGameResult {
    /// The 1-based line where the game starts (its first tag).
    pub line: usize,
    /// The `White` tag.
    pub white: String,
    /// The `Black` tag.
    pub black: String,
    /// The `Result` tag; None for `*` (a game not finished).
    pub result: Option<GameResult>,
    /// The `Round` tag, unless absent or unknown (`?`, `-`, empty).
    pub round: Option<String>,
    /// The `FEN` tag, if any.
    pub fen: Option<String>,
    /// The `GameId` tag sparring writes (the game's id in its run), if any and a number.
    pub game_id: Option<u64>,
}

/// Why a PGN's results cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum PgnResultsError {
    /// The file could not be read.
    #[error("{}: cannot read: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// A line that starts like a tag pair but is not `[Name "value"]`.
    #[error("{}: line {line}: malformed tag pair (expected [Name \"value\"])", path.display())]
    MalformedTag {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
    },
    /// A game without one of the tags a rating needs.
    #[error("{}: line {line}: the game starting here has no {tag} tag", path.display())]
    MissingTag {
        /// The file.
        path: PathBuf,
        /// 1-based line where the game starts.
        line: usize,
        /// `White`, `Black` or `Result`.
        tag: &'static str,
    },
    /// A `Result` tag that is none of `1-0`, `0-1`, `1/2-1/2`, `*`.
    #[error("{}: line {line}: Result {found:?} is none of 1-0, 0-1, 1/2-1/2, *", path.display())]
    BadResult {
        /// The file.
        path: PathBuf,
        /// 1-based line of the tag.
        line: usize,
        /// The value as written.
        found: String,
    },
    /// A game whose White and Black name one player: it says nothing about any rating.
    #[error("{}: line {line}: White and Black are both {name:?}", path.display())]
    SamePlayer {
        /// The file.
        path: PathBuf,
        /// 1-based line where the game starts.
        line: usize,
        /// The name.
        name: String,
    },
}

impl ErrorClass for PgnResultsError {
    fn class(&self) -> Failure {
        match self {
            PgnResultsError::Io { .. } => Failure::FailedRun,
            PgnResultsError::MalformedTag { .. }
            | PgnResultsError::MissingTag { .. }
            | PgnResultsError::BadResult { .. }
            | PgnResultsError::SamePlayer { .. } => Failure::BadInput,
        }
    }
}

/// Reads the results of every game of the PGN file at `path`.
pub fn read_pgn_results(path: &Path) -> Result<Vec<PgnGameResult>, PgnResultsError> {
    let bytes = std::fs::read(path).map_err(|source| PgnResultsError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_pgn_results(&bytes, path)
}

/// The results of every game of a PGN text; `path` names the file in errors. Bytes that are not
/// UTF-8 (Latin-1 names) are read lossily; movetext is not checked, tag pairs are.
pub(crate) fn parse_pgn_results(
    bytes: &[u8],
    path: &Path,
) -> Result<Vec<PgnGameResult>, PgnResultsError> {
    split_pgn_games(bytes, 0)
        .into_iter()
        .map(|game| finish(game, path))
        .collect()
}

/// The game's result record, or why its tags cannot rate it.
fn finish(game: RawPgnGame<'_>, path: &Path) -> Result<PgnGameResult, PgnResultsError> {
    if let Some(line) = game.malformed_tag {
        return Err(PgnResultsError::MalformedTag {
            path: path.to_path_buf(),
            line,
        });
    }
    let missing = |tag| PgnResultsError::MissingTag {
        path: path.to_path_buf(),
        line: game.first_line,
        tag,
    };
    let value = |tag: Option<PgnTagValue>| tag.map(|t| t.value);
    let white = value(game.white).ok_or_else(|| missing("White"))?;
    let black = value(game.black).ok_or_else(|| missing("Black"))?;
    let PgnTagValue {
        value: found,
        line: result_line,
    } = game.result.ok_or_else(|| missing("Result"))?;
    let result = match found.as_str() {
        "1-0" => Some(GameResult::WhiteWins),
        "0-1" => Some(GameResult::BlackWins),
        "1/2-1/2" => Some(GameResult::Draw),
        "*" => None,
        _ => {
            return Err(PgnResultsError::BadResult {
                path: path.to_path_buf(),
                line: result_line,
                found,
            })
        }
    };
    if white == black {
        return Err(PgnResultsError::SamePlayer {
            path: path.to_path_buf(),
            line: game.first_line,
            name: white,
        });
    }
    Ok(PgnGameResult {
        line: game.first_line,
        white,
        black,
        result,
        round: value(game.round).filter(|r| !matches!(r.as_str(), "" | "?" | "-")),
        fen: value(game.fen),
        game_id: value(game.game_id).and_then(|id| id.trim().parse().ok()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Vec<PgnGameResult>, PgnResultsError> {
        parse_pgn_results(text.as_bytes(), Path::new("t.pgn"))
    }

    #[test]
    fn games_are_split_at_the_tags_after_movetext_and_comments_hide_tag_lines() {
        let text = "[Event \"x\"]\r\n[Round \"3\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\
                    [FEN \"8/8/8/8/8/8/8/K6k w - - 0 1\"] [GameId \"12\"]\n\n1. e4 {a comment\n[White \"not a tag\"]\n\
                    } e5 ; rest {\n2. Nf3 1-0\n\n[White \"b\"] [Black \"a\"]\n[Result \"*\"]\n[Round \"?\"]\n\n*\n\
                    [White \"c\\\"q\\\\\"][Black \"a\"][Result \"1/2-1/2\"]\n1/2-1/2\n";
        let games = parse(text).unwrap();
        assert_eq!(games.len(), 3);
        assert_eq!(
            games[0],
            PgnGameResult {
                line: 1,
                white: "a".into(),
                black: "b".into(),
                result: Some(GameResult::WhiteWins),
                round: Some("3".into()),
                fen: Some("8/8/8/8/8/8/8/K6k w - - 0 1".into()),
                game_id: Some(12),
            }
        );
        assert_eq!(
            (games[1].line, games[1].result, games[1].round.clone()),
            (13, None, None)
        );
        assert_eq!(games[1].game_id, None);
        assert_eq!(games[2].white, "c\"q\\");
        assert_eq!(games[2].result, Some(GameResult::Draw));
        assert_eq!(parse("").unwrap(), vec![]);
        // A Latin-1 name is read lossily, not refused.
        let latin1 = b"[White \"M\xfcller\"]\n[Black \"b\"]\n[Result \"0-1\"]\n0-1\n";
        let games = parse_pgn_results(latin1, Path::new("t.pgn")).unwrap();
        assert_eq!(games[0].white, "M\u{fffd}ller");
    }

    #[test]
    fn bad_games_are_refused_naming_the_line_and_tag() {
        let message = |text: &str| parse(text).unwrap_err().to_string();
        assert_eq!(
            message("[White \"a\"]\n[Result \"1-0\"]\n1-0\n"),
            "t.pgn: line 1: the game starting here has no Black tag"
        );
        assert_eq!(
            message("[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n1-0\n\n1. e4 *\n"),
            "t.pgn: line 6: the game starting here has no White tag"
        );
        assert_eq!(
            message("[White \"a\"]\n[Black \"b\"]\n[Result \"2-0\"]\n"),
            "t.pgn: line 3: Result \"2-0\" is none of 1-0, 0-1, 1/2-1/2, *"
        );
        assert_eq!(
            message("[White \"a\"]\n[Black \"b\n"),
            "t.pgn: line 2: malformed tag pair (expected [Name \"value\"])"
        );
        assert_eq!(
            message("[White \"a\"]\n[Black \"a\"]\n[Result \"1-0\"]\n"),
            "t.pgn: line 1: White and Black are both \"a\""
        );
    }
}
