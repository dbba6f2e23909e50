//! `games.csv`: one row per finished game, appended as each game ends; read back for `--resume`.
//! Written and read with the `csv` crate, so names and reasons with commas, quotes or line breaks
//! round-trip.

use super::GameRecord;
use crate::board::GameResult;
use crate::error::{ErrorClass, Failure};
use serde::{Deserialize, Serialize};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The header row of `games.csv`.
pub(crate) const GAMES_CSV_HEADER: &str = "game_id,pair_id,round,white,black,opening_id,start_fen,result,termination,plies,duration_ms,reason";

/// One `games.csv` row as it is stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct GamesCsvRow {
    game_id: u64,
    pair_id: u64,
    round: u64,
    white: String,
    black: String,
    opening_id: usize,
    start_fen: String,
    result: String,
    termination: String,
    plies: usize,
    duration_ms: u64,
    reason: String,
}

/// Why `games.csv` could not be read back.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum GamesCsvError {
    /// The file could not be read.
    #[error("{}: cannot read: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// The first line is not the header sparring writes.
    #[error("{}: line 1: not a sparring games.csv header", path.display())]
    Header {
        /// The file.
        path: PathBuf,
    },
    /// A row (not the last) cannot be read.
    #[error("{}: line {line}: {message}", path.display())]
    Row {
        /// The file.
        path: PathBuf,
        /// 1-based line where the row starts.
        line: u64,
        /// What is wrong with it.
        message: String,
    },
    /// Two rows have one game id.
    #[error("{}: line {line}: game {game_id} is listed twice", path.display())]
    Duplicate {
        /// The file.
        path: PathBuf,
        /// 1-based line of the second row.
        line: u64,
        /// The id listed twice.
        game_id: u64,
    },
}

impl ErrorClass for GamesCsvError {
    fn class(&self) -> Failure {
        match self {
            GamesCsvError::Header { .. }
            | GamesCsvError::Row { .. }
            | GamesCsvError::Duplicate { .. } => Failure::BadInput,
            GamesCsvError::Io { .. } => Failure::FailedRun,
        }
    }
}

/// A row writer without a header (rows are appended to an existing file).
fn row_writer<W: Write>(out: W) -> csv::Writer<W> {
    csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(out)
}

/// Writes the header row.
pub fn write_games_csv_header(out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "{GAMES_CSV_HEADER}")
}

impl GameRecord {
    /// Appends this game's `games.csv` row.
    pub fn write_csv_row(&self, out: &mut impl Write) -> io::Result<()> {
        let mut writer = row_writer(out);
        writer.serialize(FinishedGame::from(self).to_row())?;
        writer.flush()
    }
}

impl From<&GameRecord> for FinishedGame {
    /// The game as its `games.csv` row records it.
    fn from(record: &GameRecord) -> FinishedGame {
        FinishedGame {
            game_id: record.game_id,
            pair_id: record.pair_id,
            round: record.round,
            white: record.white.clone(),
            black: record.black.clone(),
            opening_id: record.opening_id,
            start_fen: record.start.to_fen(),
            result: record.result,
            termination: record.termination.tag().to_string(),
            plies: record.plies(),
            duration_ms: record.duration.as_millis().min(u64::MAX as u128) as u64,
            reason: record.reason.clone(),
        }
    }
}

/// A game already played, as `games.csv` records it (what `--resume` needs, and enough to write
/// the row again when the file is repaired).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FinishedGame {
    /// 1-based id in the schedule.
    pub game_id: u64,
    /// The pair (same opening, colours reversed) the game belongs to.
    pub pair_id: u64,
    /// 1-based round.
    pub round: u64,
    /// White's configured name.
    pub white: String,
    /// Black's configured name.
    pub black: String,
    /// The opening's index in the book.
    pub opening_id: usize,
    /// The position the game started from (before book moves).
    pub start_fen: String,
    /// How it ended.
    pub result: GameResult,
    /// The PGN `Termination` tag value.
    pub termination: String,
    /// Plies played, book moves included.
    pub plies: usize,
    /// How long it took.
    pub duration_ms: u64,
    /// Why it ended, in words.
    pub reason: String,
}

impl FinishedGame {
    fn to_row(&self) -> GamesCsvRow {
        GamesCsvRow {
            game_id: self.game_id,
            pair_id: self.pair_id,
            round: self.round,
            white: self.white.clone(),
            black: self.black.clone(),
            opening_id: self.opening_id,
            start_fen: self.start_fen.clone(),
            result: self.result.to_string(),
            termination: self.termination.clone(),
            plies: self.plies,
            duration_ms: self.duration_ms,
            reason: self.reason.clone(),
        }
    }
}

/// Writes a whole `games.csv` (header and rows), e.g. when `--resume` drops rows.
pub(crate) fn write_games_csv(out: &mut impl Write, games: &[FinishedGame]) -> io::Result<()> {
    write_games_csv_header(out)?;
    let mut writer = row_writer(out);
    for game in games {
        writer.serialize(game.to_row())?;
    }
    writer.flush()
}

/// Reads the finished games of `games.csv` (none when the file does not exist). A last row cut
/// short by a killed run (no line end, or too few fields) is ignored, so that game is played
/// again; a game id listed twice is an error.
pub(crate) fn read_finished_games(path: &Path) -> Result<Vec<FinishedGame>, GamesCsvError> {
    let text = match std::fs::read(path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(GamesCsvError::Io {
                path: path.to_path_buf(),
                source,
            })
        }
    };
    if text.is_empty() {
        return Ok(Vec::new());
    }
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .from_reader(text.as_slice());
    let header_ok = reader
        .headers()
        .is_ok_and(|h| h.iter().collect::<Vec<_>>().join(",") == GAMES_CSV_HEADER);
    if !header_ok {
        return Err(GamesCsvError::Header {
            path: path.to_path_buf(),
        });
    }
    let records: Vec<_> = reader.into_records().collect();
    let last = records.len().saturating_sub(1);
    let cut_off = last_row_cut_off(&text, records.last());
    let mut games: Vec<FinishedGame> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (i, record) in records.into_iter().enumerate() {
        let line = match &record {
            Ok(r) => r.position().map_or(0, |p| p.line()),
            Err(e) => e.position().map_or(0, |p| p.line()),
        };
        let bad = |message: String| GamesCsvError::Row {
            path: path.to_path_buf(),
            line,
            message,
        };
        let parsed = record.map_err(|e| e.to_string()).and_then(|r| {
            if r.len() != 12 {
                return Err(format!("expected 12 fields, found {}", r.len()));
            }
            r.deserialize::<GamesCsvRow>(None)
                .map_err(|e| field_message(&e))
        });
        let row = match parsed {
            Ok(row) => row,
            // The row being written when the run was killed.
            Err(_) if i == last && cut_off => break,
            Err(message) => return Err(bad(message)),
        };
        if i == last && cut_off {
            break;
        }
        if !seen.insert(row.game_id) {
            return Err(GamesCsvError::Duplicate {
                path: path.to_path_buf(),
                line,
                game_id: row.game_id,
            });
        }
        games.push(finished_game(row).map_err(bad)?);
    }
    Ok(games)
}

/// A row's deserialize error naming the column, e.g. ``field `plies`: invalid digit found in
/// string``, instead of the csv crate's field number and byte offset.
fn field_message(error: &csv::Error) -> String {
    match error.kind() {
        csv::ErrorKind::Deserialize { err, .. } => {
            let name = err
                .field()
                .and_then(|i| GAMES_CSV_HEADER.split(',').nth(i as usize));
            match name {
                Some(name) => format!("field `{name}`: {}", err.kind()),
                None => err.kind().to_string(),
            }
        }
        _ => error.to_string(),
    }
}

/// Whether the last row of `text` was cut short by a kill: no line end after it, or quotes
/// that do not pair up (a kill can cut it just after a line break inside a quoted field).
fn last_row_cut_off(text: &[u8], last: Option<&csv::Result<csv::StringRecord>>) -> bool {
    let last_start = match last {
        Some(Ok(r)) => r.position().map_or(0, |p| p.byte() as usize),
        _ => 0,
    };
    let odd_quotes = text[last_start.min(text.len())..]
        .iter()
        .filter(|&&b| b == b'"')
        .count()
        % 2
        == 1;
    !text.ends_with(b"\n") || odd_quotes
}

/// A games.csv row as the game it records (its result checked).
fn finished_game(row: GamesCsvRow) -> Result<FinishedGame, String> {
    let result = match row.result.as_str() {
        "1-0" => GameResult::WhiteWins,
        "0-1" => GameResult::BlackWins,
        "1/2-1/2" => GameResult::Draw,
        other => {
            return Err(format!(
                "field `result`: bad result '{other}' (expected 1-0, 0-1 or 1/2-1/2)"
            ))
        }
    };
    Ok(FinishedGame {
        game_id: row.game_id,
        pair_id: row.pair_id,
        round: row.round,
        white: row.white,
        black: row.black,
        opening_id: row.opening_id,
        start_fen: row.start_fen,
        result,
        termination: row.termination,
        plies: row.plies,
        duration_ms: row.duration_ms,
        reason: row.reason,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(id: u64, white: &str, reason: &str) -> FinishedGame {
        FinishedGame {
            game_id: id,
            pair_id: id.div_ceil(2),
            round: 1,
            white: white.to_string(),
            black: "b".to_string(),
            opening_id: 1,
            start_fen: crate::board::Position::START_FEN.to_string(),
            result: GameResult::Draw,
            termination: "normal".to_string(),
            plies: 10,
            duration_ms: 5,
            reason: reason.to_string(),
        }
    }

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("sparring-csv-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("games.csv")
    }

    #[test]
    fn names_with_quotes_commas_and_line_breaks_round_trip() {
        let path = temp("roundtrip");
        let games = vec![
            game(1, "plain", "Draw by 3-fold repetition"),
            game(2, "with, comma \"and quote\"", "two\nlines\r\nand more"),
        ];
        let mut bytes = Vec::new();
        write_games_csv(&mut bytes, &games).unwrap();
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(read_finished_games(&path).unwrap(), games);
        // A row cut inside its quoted reason (a kill mid-write) is dropped, not misread.
        let cut = bytes.len() - 8;
        std::fs::write(&path, &bytes[..cut]).unwrap();
        assert_eq!(read_finished_games(&path).unwrap(), games[..1]);
        let after_break = bytes.windows(5).position(|w| w == b"two\nl").unwrap() + 4;
        std::fs::write(&path, &bytes[..after_break]).unwrap();
        assert_eq!(read_finished_games(&path).unwrap(), games[..1]);
    }

    #[test]
    fn a_damaged_row_is_refused_naming_its_line_and_field() {
        let path = temp("damaged");
        let mut bytes = Vec::new();
        write_games_csv(&mut bytes, &[game(1, "a", "x"), game(2, "a", "y")]).unwrap();
        let text = String::from_utf8(bytes).unwrap();
        for (from, to, message) in [
            (
                ",10,",
                ",1o,",
                "line 2: field `plies`: invalid digit found in string",
            ),
            (
                ",1/2-1/2,",
                ",1-1,",
                "line 2: field `result`: bad result '1-1'",
            ),
        ] {
            std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
            let err = read_finished_games(&path).unwrap_err();
            assert!(err.to_string().contains(message), "{err}");
            assert!(err.to_string().starts_with(&path.display().to_string()));
        }
    }

    #[test]
    fn a_game_listed_twice_is_refused() {
        let path = temp("dup");
        let mut bytes = Vec::new();
        write_games_csv(&mut bytes, &[game(1, "a", "x"), game(1, "a", "x")]).unwrap();
        std::fs::write(&path, &bytes).unwrap();
        let err = read_finished_games(&path).unwrap_err();
        assert!(
            matches!(err, GamesCsvError::Duplicate { game_id: 1, .. }),
            "{err}"
        );
        assert!(err.to_string().contains("game 1 is listed twice"), "{err}");
    }
}
