//! `games.csv`: one row per finished game, appended as each game ends; read back for `--resume`.

use super::GameRecord;
use crate::board::GameResult;
use std::io::{self, Write};
use std::path::Path;

pub const GAMES_CSV_HEADER: &str = "game_id,pair_id,round,white,black,opening_id,start_fen,result,termination,plies,duration_ms,reason";

/// Quotes a field when it holds a comma, quote or line break (RFC 4180).
pub fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

impl GameRecord {
    pub fn write_csv_row(&self, out: &mut impl Write) -> io::Result<()> {
        writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{}",
            self.game_id,
            self.pair_id,
            self.round,
            csv_field(&self.white),
            csv_field(&self.black),
            self.opening_id,
            csv_field(&self.start.to_fen()),
            self.result,
            csv_field(self.termination.tag()),
            self.plies(),
            self.duration.as_millis(),
            csv_field(&self.reason)
        )
    }
}

/// What `--resume` needs of a game already played.
#[derive(Clone, Debug, PartialEq)]
pub struct FinishedGame {
    pub game_id: u64,
    pub pair_id: u64,
    pub white: String,
    pub black: String,
    pub result: GameResult,
    pub termination: String,
    pub reason: String,
}

/// Splits one CSV line into fields, honouring quotes.
fn split_csv(line: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(std::mem::take(&mut field)),
            _ => field.push(c),
        }
    }
    fields.push(field);
    fields
}

/// Reads the finished games of `games.csv`. A last line cut short by a killed run (no line end)
/// is ignored, so that game is played again.
pub fn read_finished_games(path: &Path) -> Result<Vec<FinishedGame>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("{}: cannot read: {e}", path.display())),
    };
    let complete = match text.rfind('\n') {
        Some(end) => &text[..=end],
        None => "",
    };
    let mut games = Vec::new();
    for (number, line) in complete.lines().enumerate() {
        if number == 0 {
            if line != GAMES_CSV_HEADER {
                return Err(format!(
                    "{}: line 1: not a sparring games.csv header",
                    path.display()
                ));
            }
            continue;
        }
        if line.trim().is_empty() {
            continue;
        }
        let f = split_csv(line);
        let bad = |what: &str| format!("{}: line {}: {what}", path.display(), number + 1);
        if f.len() != 12 {
            return Err(bad(&format!("expected 12 fields, found {}", f.len())));
        }
        let result = match f[7].as_str() {
            "1-0" => GameResult::WhiteWins,
            "0-1" => GameResult::BlackWins,
            "1/2-1/2" => GameResult::Draw,
            other => return Err(bad(&format!("bad result '{other}'"))),
        };
        games.push(FinishedGame {
            game_id: f[0].parse().map_err(|_| bad("bad game_id"))?,
            pair_id: f[1].parse().map_err(|_| bad("bad pair_id"))?,
            white: f[3].clone(),
            black: f[4].clone(),
            result,
            termination: f[8].clone(),
            reason: f[11].clone(),
        });
    }
    Ok(games)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_round_trips() {
        let fields = ["plain", "with,comma", "with \"quote\"", ""];
        let line: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
        assert_eq!(split_csv(&line.join(",")), fields);
    }
}
