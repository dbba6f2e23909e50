//! Training positions in the text format NNUE trainers read: bullet's `<FEN> | <score> | <result>`
//! (github.com/jw1912/bullet, docs/3-data.md; parsed by `bulletformat::ChessBoard::from_str`).
//! The score is the engine's, in centipawns from White's point of view, a whole number (bullet
//! reads an `i16`); the result is White's: `1.0`, `0.5` or `0.0`. bullet reads only the board
//! and side-to-move fields of the FEN; the whole FEN is written so other tools can use it too.
//!
//! A training line becomes a bullet line only if it carries a score (`ce`) and a game result:
//! bullet has no "no score" and no fractional result, and inventing either would teach the net
//! something the games did not say.

use super::positions::{Outcome, PositionLineError, TrainingPosition, MAX_TRAINING_SCORE};
use crate::board::{Color, FenError, GameResult, Position};
use crate::error::{ErrorClass, Failure};
use std::fmt;
use std::io::{BufRead, BufReader, Read, Write};
use thiserror::Error;

/// One position as bullet's text loader reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BulletPosition {
    /// The whole six-field FEN.
    pub fen: String,
    /// The engine's score in centipawns from White's point of view.
    pub white_score: i32,
    /// The game's result.
    pub result: GameResult,
}

/// Why a position cannot be written (or read) as a bullet line.
#[derive(Error, Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum BulletError {
    /// The training line itself is bad.
    #[error(transparent)]
    Line(#[from] PositionLineError),
    /// The line's FEN does not describe a position.
    #[error("bad FEN: {0}")]
    Fen(#[from] FenError),
    /// No `ce`: bullet needs a score for every position.
    #[error("no search score (`ce`): bullet's format needs one for every position")]
    NoScore,
    /// A label that is not a game result (bullet takes 1.0, 0.5 or 0.0 only).
    #[error("label {label} is not a game result: bullet's format takes 1.0, 0.5 or 0.0")]
    NotAResult {
        /// White's expected score as written.
        label: f32,
    },
    /// A bullet line that is not `<FEN> | <score> | <result>`.
    #[error("expected `<FEN> | <score> | <result>`, found `{found}`")]
    Malformed {
        /// The line.
        found: String,
    },
    /// A score that is not a whole number within the mate-score range.
    #[error("bad score `{found}`: expected a whole number of centipawns from -{MAX_TRAINING_SCORE} to {MAX_TRAINING_SCORE}")]
    BadScore {
        /// The field as written.
        found: String,
    },
    /// A result that is not 1.0, 0.5 or 0.0.
    #[error("bad result `{found}`: expected 1.0, 0.5 or 0.0")]
    BadResult {
        /// The field as written.
        found: String,
    },
}

impl ErrorClass for BulletError {
    fn class(&self) -> Failure {
        match self {
            BulletError::Line(source) => source.class(),
            BulletError::Fen(source) => source.class(),
            BulletError::NoScore
            | BulletError::NotAResult { .. }
            | BulletError::Malformed { .. }
            | BulletError::BadScore { .. }
            | BulletError::BadResult { .. } => Failure::BadInput,
        }
    }
}

impl BulletPosition {
    /// The bullet form of a training line: its score turned to White's side, its result.
    pub fn from_training(line: &TrainingPosition) -> Result<BulletPosition, BulletError> {
        let position = line.position()?;
        let score = line.score.ok_or(BulletError::NoScore)?;
        let result = match line.result {
            Outcome::Result(result) => result,
            Outcome::Expected(label) => return Err(BulletError::NotAResult { label }),
        };
        let white_score = match position.side_to_move() {
            Color::White => score,
            Color::Black => -score,
        };
        Ok(BulletPosition {
            fen: position.to_fen(),
            white_score,
            result,
        })
    }

    /// Reads a bullet line (`<FEN> | <score> | <result>`, spaces around `|` optional). Accepts
    /// what this module writes; bullet itself also accepts `1`, `0`, `1/2` and bracketed results.
    pub fn parse(line: &str) -> Result<BulletPosition, BulletError> {
        let malformed = || BulletError::Malformed {
            found: line.to_string(),
        };
        let mut fields = line.trim().split('|').map(str::trim);
        let (Some(fen), Some(score), Some(result), None) =
            (fields.next(), fields.next(), fields.next(), fields.next())
        else {
            return Err(malformed());
        };
        let position = Position::from_fen_lenient(fen)?;
        let white_score = score
            .parse::<i32>()
            .ok()
            .filter(|cp| cp.abs() <= MAX_TRAINING_SCORE)
            .ok_or_else(|| BulletError::BadScore {
                found: score.to_string(),
            })?;
        let result = match result {
            "1.0" => GameResult::WhiteWins,
            "0.5" => GameResult::Draw,
            "0.0" => GameResult::BlackWins,
            _ => {
                return Err(BulletError::BadResult {
                    found: result.to_string(),
                })
            }
        };
        Ok(BulletPosition {
            fen: position.to_fen(),
            white_score,
            result,
        })
    }
}

/// `<FEN> | <score> | <result>`, as bullet's docs write it.
impl fmt::Display for BulletPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let result = match self.result {
            GameResult::WhiteWins => "1.0",
            GameResult::Draw => "0.5",
            GameResult::BlackWins => "0.0",
        };
        write!(f, "{} | {} | {result}", self.fen, self.white_score)
    }
}

/// A line that was not converted: file, 1-based line and why.
#[derive(Error, Debug, Clone, PartialEq)]
#[error("{file}:{line}: {kind}")]
pub struct BulletLineError {
    /// The input file, as given.
    pub file: String,
    /// 1-based line number.
    pub line: usize,
    /// Why.
    pub kind: BulletError,
}

impl ErrorClass for BulletLineError {
    fn class(&self) -> Failure {
        self.kind.class()
    }
}

/// What a conversion did.
#[derive(Clone, Debug, Default)]
pub struct BulletReport {
    /// Lines written.
    pub written: usize,
    /// Lines not converted (bad, without a score, or with a fractional label) ...
    pub skipped: usize,
    /// ... of which the first `MAX_KEPT_BULLET_ERRORS` are kept.
    pub errors: Vec<BulletLineError>,
}

/// How many unconverted lines a `BulletReport` keeps verbatim.
pub(crate) const MAX_KEPT_BULLET_ERRORS: usize = 1000;

/// A conversion that could not read its input or write its output.
#[derive(Error, Debug)]
#[non_exhaustive]
pub enum ConvertError {
    /// The input cannot be read.
    #[error("{file}: cannot read: {error}")]
    Read {
        /// The input, as given.
        file: String,
        /// The operating system's reason.
        error: std::io::Error,
    },
    /// The output cannot be written.
    #[error("{file}: cannot write: {error}")]
    Write {
        /// The output, as given.
        file: String,
        /// The operating system's reason.
        error: std::io::Error,
    },
}

impl ErrorClass for ConvertError {
    fn class(&self) -> Failure {
        match self {
            ConvertError::Read { .. } | ConvertError::Write { .. } => Failure::FailedRun,
        }
    }
}

/// Streams training lines from `input` (named `source` in errors) to bullet lines on `output`
/// (named `output_name`), one line at a time: memory does not grow with the file. Blank and
/// comment lines are passed over; lines that cannot be converted are counted in `report`.
pub fn write_bullet_lines(
    input: impl Read,
    source: &str,
    output: &mut impl Write,
    output_name: &str,
    report: &mut BulletReport,
) -> Result<(), ConvertError> {
    let mut reader = BufReader::with_capacity(1 << 16, input);
    let mut bytes = Vec::new();
    let mut number = 0;
    loop {
        bytes.clear();
        let read = reader
            .read_until(b'\n', &mut bytes)
            .map_err(|error| ConvertError::Read {
                file: source.to_string(),
                error,
            })?;
        if read == 0 {
            return Ok(());
        }
        number += 1;
        let converted = std::str::from_utf8(&bytes)
            .map_err(|_| BulletError::Line(PositionLineError::NotUtf8))
            .and_then(|text| Ok(TrainingPosition::parse(text)?))
            .and_then(|line| line.map(|p| BulletPosition::from_training(&p)).transpose());
        match converted {
            Ok(None) => {}
            Ok(Some(position)) => {
                writeln!(output, "{position}").map_err(|error| ConvertError::Write {
                    file: output_name.to_string(),
                    error,
                })?;
                report.written += 1;
            }
            Err(kind) => {
                report.skipped += 1;
                if report.errors.len() < MAX_KEPT_BULLET_ERRORS {
                    report.errors.push(BulletLineError {
                        file: source.to_string(),
                        line: number,
                        kind,
                    });
                }
            }
        }
    }
}

/// The bullet file a run writes next to (or instead of) positions.epd.
pub(crate) const BULLET_FILE: &str = "positions.bullet";

/// Which game each run of lines in `positions.bullet` belongs to: a bullet line has no room
/// for an id, and resume and merge must keep a game's lines together.
pub(crate) const BULLET_INDEX_FILE: &str = "positions.bullet.games.csv";

/// The header of `positions.bullet.games.csv`: one row per game, in the order the game's lines
/// are in `positions.bullet`.
pub(crate) const BULLET_INDEX_HEADER: &str = "game_id,lines";

/// A game's training positions as bullet lines, and how many could not be written (no score,
/// or a label that is not a game result: see the module documentation).
pub(crate) fn bullet_lines(positions: &[TrainingPosition]) -> (String, usize) {
    let mut text = String::new();
    let mut skipped = 0;
    for p in positions {
        match BulletPosition::from_training(p) {
            Ok(line) => {
                text.push_str(&line.to_string());
                text.push('\n');
            }
            Err(_) => skipped += 1,
        }
    }
    (text, skipped)
}

/// What is wrong with a `positions.bullet.games.csv` index (its line numbers are the index's;
/// the caller names the index file).
#[derive(Error, Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BulletIndexError {
    /// The first line is not the index header.
    #[error("line 1: not the `{BULLET_INDEX_HEADER}` header")]
    Header,
    /// A row (not the last) that is not `game_id,lines`.
    #[error("line {line}: expected `game_id,lines`")]
    Row {
        /// The index line (1-based).
        line: usize,
    },
    /// A row listing more lines than the positions file holds.
    #[error("line {line}: game {game} has {count} line(s), but {bullet} ends before them")]
    Short {
        /// The index line (1-based).
        line: usize,
        /// The game the row lists.
        game: u64,
        /// The lines it lists.
        count: usize,
        /// The positions file, as the caller named it.
        bullet: String,
    },
}

impl ErrorClass for BulletIndexError {
    fn class(&self) -> Failure {
        match self {
            // A damaged file of a run the user pointed at: input to repair or replay.
            BulletIndexError::Header
            | BulletIndexError::Row { .. }
            | BulletIndexError::Short { .. } => Failure::BadInput,
        }
    }
}

/// Splits a run's `positions.bullet` into its games' lines with `positions.bullet.games.csv`:
/// (game id, the game's lines), in file order. Lines after the last complete index row (a game
/// being written when the run was killed) and a cut-off last index row are left out; an index
/// that lists more lines than the file holds, or a row that is not `id,count`, is an error
/// (`line N: ...` of the index; the caller names the index file).
pub(crate) fn bullet_lines_by_game(
    bullet: &str,
    bullet_name: &str,
    index: &str,
) -> Result<Vec<(u64, String)>, BulletIndexError> {
    let mut games = Vec::new();
    let mut lines = bullet.split_inclusive('\n').filter(|l| l.ends_with('\n'));
    let rows: Vec<&str> = index.split_inclusive('\n').collect();
    for (i, row) in rows.iter().enumerate() {
        if i == 0 {
            if row.trim_end() != BULLET_INDEX_HEADER {
                return Err(BulletIndexError::Header);
            }
            continue;
        }
        let parsed = row
            .trim_end()
            .split_once(',')
            .and_then(|(id, n)| Some((id.parse::<u64>().ok()?, n.parse::<usize>().ok()?)));
        let (id, count) = match parsed {
            Some(fields) if row.ends_with('\n') => fields,
            // The row being written when the run was killed.
            _ if i + 1 == rows.len() => break,
            _ => return Err(BulletIndexError::Row { line: i + 1 }),
        };
        let mut text = String::new();
        for _ in 0..count {
            let line = lines.next().ok_or_else(|| BulletIndexError::Short {
                line: i + 1,
                game: id,
                count,
                bullet: bullet_name.to_string(),
            })?;
            text.push_str(line);
        }
        games.push((id, text));
    }
    Ok(games)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_turn_to_whites_side() {
        let line = TrainingPosition::parse(
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - ce -30; c9 \"0-1\";",
        )
        .unwrap()
        .unwrap();
        let bullet = BulletPosition::from_training(&line).unwrap();
        assert_eq!(
            bullet.to_string(),
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 | 30 | 0.0"
        );
        assert_eq!(BulletPosition::parse(&bullet.to_string()), Ok(bullet));
    }

    #[test]
    fn the_index_splits_the_bullet_file_by_game_and_drops_a_cut_tail() {
        let index = "game_id,lines\n3,2\n1,1\n";
        let bullet = "a\nb\nc\nd (a game being written)\n";
        assert_eq!(
            bullet_lines_by_game(bullet, "b", index).unwrap(),
            vec![(3, "a\nb\n".to_string()), (1, "c\n".to_string())]
        );
        // A row cut by a kill is not a game yet.
        let cut = format!("{index}5,");
        assert_eq!(bullet_lines_by_game(bullet, "b", &cut).unwrap().len(), 2);
        let short = "game_id,lines\n3,9\n";
        assert_eq!(
            bullet_lines_by_game(bullet, "b", short)
                .unwrap_err()
                .to_string(),
            "line 2: game 3 has 9 line(s), but b ends before them"
        );
        let bad = "game_id,lines\nx,1\n2,1\n";
        assert_eq!(
            bullet_lines_by_game(bullet, "b", bad),
            Err(BulletIndexError::Row { line: 2 })
        );
        assert_eq!(
            bullet_lines_by_game(bullet, "b", "lines\n"),
            Err(BulletIndexError::Header)
        );
        let none = TrainingPosition::parse(
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - c9 \"0-1\";",
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            bullet_lines(&[none]),
            (String::new(), 1),
            "no score: skipped"
        );
    }
}
