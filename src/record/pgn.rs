//! PGN export format: the Seven Tag Roster first, SetUp/FEN for a non-standard start, SAN movetext
//! wrapped under 80 columns, `{book}` on book moves and `{+0.32/12 0.510s}` on engine moves, the
//! reason the game ended in the last comment.

use super::GameRecord;
use crate::board::{Color, Position};
use crate::search::Score;
use std::collections::HashSet;
use std::io::{self, Write};
use std::time::{SystemTime, UNIX_EPOCH};

const MAX_LINE: usize = 79;

fn escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The calendar date `YYYY.MM.DD` (UTC) of a time, by the days-to-civil conversion.
pub(crate) fn pgn_date(time: SystemTime) -> String {
    let days = time
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 86_400) as i64;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + if month <= 2 { 1 } else { 0 };
    format!("{year:04}.{month:02}.{day:02}")
}

/// A score from the mover's point of view as runners print it: `+0.32`, `-1.05`, `0.00`, `+M5`.
pub(crate) fn format_score(score: Score) -> String {
    match score {
        Score::Cp(0) => "0.00".to_string(),
        Score::Cp(cp) => format!("{:+.2}", cp as f64 / 100.0),
        // Mates are written in plies, as cutechess and fastchess do.
        Score::Mate(n) if n > 0 => format!("+M{}", 2 * n - 1),
        Score::Mate(n) => format!("-M{}", -2 * n),
    }
}

/// Writes one game.
pub fn write_pgn(record: &GameRecord, out: &mut impl Write) -> io::Result<()> {
    let mut tags: Vec<(&str, String)> = vec![
        ("Event", record.event.clone()),
        ("Site", "?".to_string()),
        ("Date", pgn_date(record.started)),
        ("Round", record.round.to_string()),
        ("White", record.white.clone()),
        ("Black", record.black.clone()),
        ("Result", record.result.to_string()),
    ];
    let start_fen = record.start.to_fen();
    if start_fen != Position::START_FEN {
        tags.push(("SetUp", "1".to_string()));
        tags.push(("FEN", start_fen));
    }
    tags.push(("TimeControl", record.time_control.clone()));
    tags.push(("Termination", record.termination.tag().to_string()));
    tags.push(("PlyCount", record.plies().to_string()));
    tags.push(("GameDuration", format_duration(record.duration.as_secs())));
    tags.push(("OpeningIndex", record.opening_id.to_string()));
    tags.push(("GameId", record.game_id.to_string()));
    for (name, value) in tags {
        writeln!(out, "[{name} \"{}\"]", escape(&value))?;
    }
    writeln!(out)?;

    let mut tokens: Vec<String> = Vec::new();
    let mut pos = record.start.clone();
    let mut need_number = true;
    let total = record.plies();
    let book = record.book_moves.iter().map(|&mv| (mv, None));
    let played = record.moves.iter().map(|m| (m.mv, Some(m)));
    for (ply, (mv, info)) in book.chain(played).enumerate() {
        let number = pos.fullmove_number();
        if pos.side_to_move() == Color::White {
            tokens.push(format!("{number}."));
        } else if need_number {
            tokens.push(format!("{number}..."));
        }
        tokens.push(pos.san(mv));
        let mut comment = match info {
            None => "book".to_string(),
            Some(m) => {
                let score = m.score.map(format_score).unwrap_or_default();
                let depth = m.depth.map_or(String::new(), |d| d.to_string());
                format!("{score}/{depth} {:.3}s", m.time.as_secs_f64())
            }
        };
        if ply + 1 == total {
            comment.push_str(", ");
            comment.push_str(&record.reason);
        }
        push_comment(&mut tokens, &comment);
        // A comment interrupts the move pair, so Black's next move repeats its number.
        need_number = true;
        pos.make_move(mv);
    }
    if total == 0 {
        push_comment(&mut tokens, &record.reason);
    }
    tokens.push(record.result.to_string());

    let mut line = String::new();
    for token in tokens {
        if !line.is_empty() && line.len() + 1 + token.len() > MAX_LINE {
            writeln!(out, "{line}")?;
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&token);
    }
    writeln!(out, "{line}")?;
    writeln!(out)?;
    Ok(())
}

/// Adds a `{comment}` as words, so long comments wrap like the rest of the movetext.
fn push_comment(tokens: &mut Vec<String>, text: &str) {
    let cleaned = text.replace(['{', '}'], "");
    let words: Vec<&str> = cleaned.split_whitespace().collect();
    match words.len() {
        0 => tokens.push("{}".to_string()),
        1 => tokens.push(format!("{{{}}}", words[0])),
        n => {
            tokens.push(format!("{{{}", words[0]));
            tokens.extend(words[1..n - 1].iter().map(|w| w.to_string()));
            tokens.push(format!("{}}}", words[n - 1]));
        }
    }
}

fn format_duration(seconds: u64) -> String {
    format!(
        "{:02}:{:02}:{:02}",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    )
}

/// Keeps the games of a PGN text whose `GameId` tag is in `keep` (for resuming a run: a game
/// written to the PGN but not yet to the CSV is dropped and played again).
pub fn keep_games(text: &str, keep: &HashSet<u64>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut game = String::new();
    let flush = |game: &mut String, out: &mut String| {
        let id = game.lines().find_map(|l| {
            l.strip_prefix("[GameId \"")
                .and_then(|r| r.strip_suffix("\"]"))
                .and_then(|n| n.parse::<u64>().ok())
        });
        if id.is_some_and(|id| keep.contains(&id)) {
            out.push_str(game);
        }
        game.clear();
    };
    for line in text.split_inclusive('\n') {
        if line.starts_with("[Event ") && !game.is_empty() {
            flush(&mut game, &mut out);
        }
        game.push_str(line);
    }
    if !game.is_empty() {
        flush(&mut game, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn dates_scores_and_durations() {
        assert_eq!(pgn_date(UNIX_EPOCH), "1970.01.01");
        assert_eq!(
            pgn_date(UNIX_EPOCH + Duration::from_secs(1_795_305_600)),
            "2026.11.22"
        );
        assert_eq!(
            pgn_date(UNIX_EPOCH + Duration::from_secs(951_782_400)),
            "2000.02.29"
        );
        assert_eq!(format_score(Score::Cp(32)), "+0.32");
        assert_eq!(format_score(Score::Cp(-105)), "-1.05");
        assert_eq!(format_score(Score::Cp(0)), "0.00");
        assert_eq!(format_score(Score::Mate(3)), "+M5");
        assert_eq!(format_score(Score::Mate(-2)), "-M4");
        assert_eq!(format_duration(3723), "01:02:03");
    }
}
