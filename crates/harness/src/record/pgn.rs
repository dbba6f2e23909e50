//! PGN export format: the Seven Tag Roster first, SetUp/FEN for a non-standard start, SAN movetext
//! wrapped under 80 columns, `{book}` on book moves and `{+0.32/12 0.510s}` on engine moves
//! (with the figures `MoveData` asks for, as fastchess writes them), the reason the game ended
//! in the last comment. [`PgnStyle`] asks for minimal output (tags and moves only) or moves in
//! LAN or UCI instead of SAN.

use super::{GameRecord, PlayedMove};
use crate::board::{CastlingNotation, Color, Move, Position};
use crate::score::Score;
use std::io::{self, Write};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

const MAX_LINE: usize = 79;

/// The figures written in each engine move's PGN comment after `score/depth time`, in
/// fastchess's order and spelling: `tl=`, `latency=`, `n=`, `sd=`, `nps=`, `hashfull=`,
/// `tbhits=`, `pv="..."`, then `line="..."` for each `match_lines` pattern that matched.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MoveData {
    /// `tl=`: the mover's clock after the move (`timeleft=true`).
    pub timeleft: bool,
    /// `latency=`: the arbiter's time minus the time the engine reported.
    pub latency: bool,
    /// `n=`: nodes.
    pub nodes: bool,
    /// `sd=`: selective depth.
    pub seldepth: bool,
    /// `nps=`: nodes per second.
    pub nps: bool,
    /// `hashfull=`: hash table fill, permille.
    pub hashfull: bool,
    /// `tbhits=`: tablebase hits.
    pub tbhits: bool,
    /// `pv="..."`: the principal variation, as the engine wrote it.
    pub pv: bool,
    /// Regular expressions: for each, the last line of the engine's output for the move that
    /// matches it is written as `line="..."` (fastchess's `match_line`).
    pub match_lines: Vec<String>,
}

/// How the movetext spells moves (fastchess's `-pgnout notation=`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PgnNotation {
    /// Standard algebraic notation: `Nf3`, `exd5`, `e8=Q+`, `O-O` (the default).
    #[default]
    San,
    /// Long algebraic notation as fastchess writes it: the piece letter, the from square, `x`
    /// for a capture (no `-` otherwise), the to square, `=Q`, `+`/`#`; castling `O-O`/`O-O-O`.
    Lan,
    /// The moves as UCI sends them: `e2e4`, `e7e8q`, `e1g1` (king takes rook in Chess960), no
    /// check marks.
    Uci,
}

impl PgnNotation {
    /// The key's value: `san`, `lan` or `uci`.
    pub fn name(self) -> &'static str {
        match self {
            PgnNotation::San => "san",
            PgnNotation::Lan => "lan",
            PgnNotation::Uci => "uci",
        }
    }

    /// The notation a key's value names, if any.
    pub fn from_name(name: &str) -> Option<PgnNotation> {
        [PgnNotation::San, PgnNotation::Lan, PgnNotation::Uci]
            .into_iter()
            .find(|n| n.name() == name)
    }
}

/// The shape of the PGN the runner writes besides the move comments' figures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PgnStyle {
    /// Minimal output (cutechess's `-pgnout min`, fastchess's `min=true`): the Seven Tag
    /// Roster, `Variant`/`SetUp`/`FEN` when needed and `GameId` (which `--resume` and merge
    /// match games by), and no comments.
    pub minimal: bool,
    /// How moves are spelled.
    pub notation: PgnNotation,
}

/// A move in long algebraic notation as fastchess spells it (see [`PgnNotation::Lan`]).
pub fn lan(pos: &Position, mv: Move) -> String {
    let san = pos.san(mv);
    if mv.is_castle() {
        return san;
    }
    let mut out = String::with_capacity(10);
    let piece = san.chars().next().filter(char::is_ascii_uppercase);
    out.extend(piece);
    out.push_str(&mv.from().to_string());
    if mv.is_capture() {
        out.push('x');
    }
    out.push_str(&mv.to().to_string());
    if let Some(promoted) = mv.promotion() {
        out.push('=');
        out.push(promoted.char().to_ascii_uppercase());
    }
    // The check mark is the SAN's: `+` or `#`.
    out.extend(san.chars().last().filter(|c| matches!(c, '+' | '#')));
    out
}

/// A tag value as the PGN standard wants it between quotes: backslash and quote escaped, and line
/// breaks, tabs and other control characters (which no tag may hold) replaced by spaces.
pub(crate) fn escape_tag_value(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// The UTC calendar date (year, month 1-12, day 1-31) of a number of seconds since the Unix
/// epoch, by Howard Hinnant's days-to-civil conversion: one definition for the PGN `Date` tag
/// and the dialect's time-stamped output directory.
pub fn utc_date(secs: u64) -> (i64, i64, i64) {
    let days = (secs / 86_400) as i64;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// The calendar date `YYYY.MM.DD` (UTC) of a time.
pub(crate) fn pgn_date(time: SystemTime) -> String {
    let secs = time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (year, month, day) = utc_date(secs);
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

/// `0.510s`: seconds with three decimals, as fastchess writes times.
fn seconds(d: Duration) -> String {
    format!("{:.3}s", d.as_secs_f64())
}

/// An engine move's comment: `score/depth time`, then the asked-for figures in fastchess's order
/// and spelling (`tl=`, `latency=`, `n=`, `sd=`, `nps=`, `hashfull=`, `tbhits=`, `pv="..."`,
/// `line="..."`), joined by `, `. A figure the engine did not report is written as 0, as
/// fastchess does.
pub(crate) fn move_comment(m: &PlayedMove, data: &MoveData) -> String {
    let score = m.score.map(format_score).unwrap_or_default();
    let depth = m.depth.unwrap_or(0);
    let d = &m.details;
    let mut parts = vec![format!("{score}/{depth} {}", seconds(m.time))];
    if data.timeleft {
        parts.push(format!("tl={}", seconds(d.time_left.unwrap_or_default())));
    }
    if data.latency {
        // fastchess: its measured time minus the engine's own `time`, whole milliseconds.
        let ms = |t: Duration| t.as_millis() as i64;
        let latency = ms(m.time) - d.engine_time.map_or(0, ms);
        parts.push(format!("latency={:.3}s", latency as f64 / 1000.0));
    }
    if data.nodes {
        parts.push(format!("n={}", m.nodes.unwrap_or(0)));
    }
    if data.seldepth {
        parts.push(format!("sd={}", d.seldepth.unwrap_or(0)));
    }
    if data.nps {
        parts.push(format!("nps={}", d.nps.unwrap_or(0)));
    }
    if data.hashfull {
        parts.push(format!("hashfull={}", d.hashfull.unwrap_or(0)));
    }
    if data.tbhits {
        parts.push(format!("tbhits={}", d.tbhits.unwrap_or(0)));
    }
    if data.pv {
        parts.push(format!("pv=\"{}\"", d.pv.join(" ")));
    }
    for line in &d.lines {
        parts.push(format!("line=\"{line}\""));
    }
    parts.join(", ")
}

/// Writes one game; `data` says what the engine moves' comments hold, `style` whether there are
/// comments and how moves are spelled.
pub fn write_pgn(
    record: &GameRecord,
    data: &MoveData,
    style: PgnStyle,
    out: &mut impl Write,
) -> io::Result<()> {
    let mut tags: Vec<(&str, String)> = vec![
        ("Event", record.event.clone()),
        ("Site", record.site.clone()),
        ("Date", pgn_date(record.started)),
        ("Round", record.round.to_string()),
        ("White", record.white.clone()),
        ("Black", record.black.clone()),
        ("Result", record.result.to_string()),
    ];
    let start_fen = record.start.to_fen();
    // A Chess960 game names its start even when it is the standard one (Scharnagl 518), as
    // fastchess does: python-chess reads the variant from the tag, others from the FEN.
    let chess960 = record.chess960 || record.start.has_chess960_castling();
    if chess960 {
        tags.push(("Variant", "Chess960".to_string()));
    }
    if chess960 || start_fen != Position::START_FEN {
        tags.push(("SetUp", "1".to_string()));
        tags.push(("FEN", start_fen));
    }
    if !style.minimal {
        tags.push(("TimeControl", record.time_control.clone()));
        tags.push(("Termination", record.termination.tag().to_string()));
        tags.push(("PlyCount", record.plies().to_string()));
        tags.push(("GameDuration", format_duration(record.duration.as_secs())));
        tags.push(("OpeningIndex", record.opening_id.to_string()));
    }
    tags.push(("GameId", record.game_id.to_string()));
    for (name, value) in tags {
        writeln!(out, "[{name} \"{}\"]", escape_tag_value(&value))?;
    }
    writeln!(out)?;
    let tokens = movetext(record, data, style, chess960);
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

/// The movetext's tokens: move numbers, moves, comments' words, the result.
fn movetext(record: &GameRecord, data: &MoveData, style: PgnStyle, chess960: bool) -> Vec<String> {
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
        tokens.push(match style.notation {
            PgnNotation::San => pos.san(mv),
            PgnNotation::Lan => lan(&pos, mv),
            PgnNotation::Uci => pos.uci(mv, CastlingNotation::chess960_if(chess960)),
        });
        pos.make_move(mv);
        if style.minimal {
            need_number = false;
            continue;
        }
        let mut comment = match info {
            None => "book".to_string(),
            // An engine's own book move: cutechess's comment for it.
            Some(m) if m.details.from_book => "book".to_string(),
            Some(m) => move_comment(m, data),
        };
        if ply + 1 == total {
            comment.push_str(", ");
            comment.push_str(&record.reason);
        }
        push_comment(&mut tokens, &comment);
        // A comment interrupts the move pair, so Black's next move repeats its number.
        need_number = true;
    }
    if total == 0 && !style.minimal {
        push_comment(&mut tokens, &record.reason);
    }
    tokens.push(record.result.to_string());
    tokens
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

/// One game of a PGN file the runner wrote, for checking it on `--resume`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgnGameText<'a> {
    /// The `GameId` tag, if the game has one.
    pub game_id: Option<u64>,
    /// The game's text, tags to the blank line after the movetext.
    pub text: &'a str,
    /// Whether the movetext ends with the result the `Result` tag names (a game cut off by a
    /// killed run does not).
    pub complete: bool,
}

/// Splits a PGN text written by the runner into its games (each starts with an `[Event ` line:
/// tag values never hold line breaks, so that line cannot occur inside a game).
pub fn split_pgn_games(text: &str) -> Vec<PgnGameText<'_>> {
    let mut starts: Vec<usize> = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if line.starts_with("[Event ") || (starts.is_empty() && !line.trim().is_empty()) {
            starts.push(offset);
        }
        offset += line.len();
    }
    let mut games = Vec::new();
    for (i, &start) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(text.len());
        let game = &text[start..end];
        let tag = |name: &str| {
            let prefix = format!("[{name} \"");
            game.lines()
                .find_map(|l| l.strip_prefix(prefix.as_str())?.strip_suffix("\"]"))
        };
        let game_id = tag("GameId").and_then(|n| n.parse::<u64>().ok());
        let last_token = game.split_whitespace().last();
        let complete = game.ends_with('\n')
            && tag("Result").is_some_and(|r| {
                matches!(r, "1-0" | "0-1" | "1/2-1/2" | "*") && last_token == Some(r)
            });
        games.push(PgnGameText {
            game_id,
            text: game,
            complete,
        });
    }
    games
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn dates_scores_and_durations() {
        assert_eq!(pgn_date(UNIX_EPOCH), "1970.01.01");
        assert_eq!(utc_date(951_782_400), (2000, 2, 29));
        assert_eq!(utc_date(4_107_628_799), (2100, 3, 1));
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

    #[test]
    fn move_comments_hold_the_asked_figures_in_fastchess_order() {
        use crate::board::{Move, Position};
        use crate::record::MoveDetails;
        let mv: Move = Position::startpos().parse_uci_move("e2e4").unwrap();
        let mut m = PlayedMove {
            mv,
            score: Some(Score::Cp(-7)),
            depth: Some(12),
            nodes: Some(34_567),
            time: Duration::from_millis(510),
            details: MoveDetails {
                seldepth: Some(17),
                nps: Some(1_234_000),
                hashfull: Some(45),
                tbhits: None,
                engine_time: Some(Duration::from_millis(498)),
                pv: vec!["e2e4".into(), "e7e5".into()],
                lines: vec!["info string pgncomment x".into()],
                time_left: Some(Duration::from_millis(9_490)),
                from_book: false,
            },
        };
        // The kept lines exist only when `match_lines` asked for them.
        let mut plain = m.clone();
        plain.details.lines.clear();
        assert_eq!(
            move_comment(&plain, &MoveData::default()),
            "-0.07/12 0.510s"
        );
        let all = MoveData {
            timeleft: true,
            latency: true,
            nodes: true,
            seldepth: true,
            nps: true,
            hashfull: true,
            tbhits: true,
            pv: true,
            match_lines: vec!["^info string".into()],
        };
        assert_eq!(
            move_comment(&m, &all),
            "-0.07/12 0.510s, tl=9.490s, latency=0.012s, n=34567, sd=17, nps=1234000, \
             hashfull=45, tbhits=0, pv=\"e2e4 e7e5\", line=\"info string pgncomment x\""
        );
        // Nothing reported: fastchess writes an empty score and zeros.
        m.score = None;
        m.depth = None;
        m.nodes = None;
        m.details = MoveDetails::default();
        let openbench = MoveData {
            nodes: true,
            seldepth: true,
            ..MoveData::default()
        };
        assert_eq!(move_comment(&m, &openbench), "/0 0.510s, n=0, sd=0");
    }

    /// A game with castling giving check, captures by a pawn and the king, a check and a
    /// capturing promotion with check; its first move from the book.
    fn notation_game(chess960: bool) -> GameRecord {
        use crate::board::GameResult;
        use crate::record::Termination;
        let start: Position = "r4k2/1P6/8/3p4/4P3/8/8/R3K2R w KQ - 0 1".parse().unwrap();
        let mut pos = start.clone();
        let mut moves = Vec::new();
        for uci in ["e1g1", "f8e7", "e4d5", "e7d6", "f1f6", "d6d5", "b7a8q"] {
            let mv = pos.parse_uci_move(uci).unwrap();
            moves.push(mv);
            pos.make_move(mv);
        }
        let played = moves[1..].iter().map(|&mv| PlayedMove {
            mv,
            score: Some(Score::Cp(32)),
            depth: Some(12),
            nodes: None,
            time: Duration::from_millis(510),
            details: Default::default(),
        });
        GameRecord {
            game_id: 7,
            pair_id: 4,
            round: 1,
            event: "e".into(),
            site: "s".into(),
            white: "w".into(),
            black: "b".into(),
            white_engine: 0,
            black_engine: 1,
            opening_id: 3,
            start,
            chess960,
            book_moves: vec![moves[0]],
            moves: played.collect(),
            result: GameResult::Draw,
            termination: Termination::Normal,
            reason: "Draw by fiat".into(),
            time_control: "40/60".into(),
            started: UNIX_EPOCH,
            duration: Duration::from_secs(3),
            clock_left: [None, None],
            at_fault: None,
        }
    }

    fn written(record: &GameRecord, minimal: bool, notation: PgnNotation) -> String {
        let mut out = Vec::new();
        let style = PgnStyle { minimal, notation };
        write_pgn(record, &MoveData::default(), style, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn each_notation_spells_castling_captures_promotions_and_checks() {
        let game = notation_game(false);
        let movetext = |notation| {
            let text = written(&game, true, notation);
            text.split("\n\n").nth(1).unwrap().trim().to_string()
        };
        assert_eq!(
            movetext(PgnNotation::San),
            "1. O-O+ Ke7 2. exd5 Kd6 3. Rf6+ Kxd5 4. bxa8=Q+ 1/2-1/2"
        );
        // fastchess's LAN: from square always, `x` for captures, no `-`; castling stays O-O.
        assert_eq!(
            movetext(PgnNotation::Lan),
            "1. O-O+ Kf8e7 2. e4xd5 Ke7d6 3. Rf1f6+ Kd6xd5 4. b7xa8=Q+ 1/2-1/2"
        );
        assert_eq!(
            movetext(PgnNotation::Uci),
            "1. e1g1 f8e7 2. e4d5 e7d6 3. f1f6 d6d5 4. b7a8q 1/2-1/2"
        );
        // The opening-book PGN reader (parse_san) reads LAN back to the same moves.
        let mut pos = game.start.clone();
        let all = game.book_moves.iter().copied();
        for mv in all.chain(game.moves.iter().map(|m| m.mv)) {
            assert_eq!(pos.parse_san(&lan(&pos, mv)).unwrap(), mv);
            pos.make_move(mv);
        }
        // In Chess960, UCI castling is king takes rook, as UCI_Chess960 engines send it.
        let text = written(&notation_game(true), true, PgnNotation::Uci);
        assert!(text.contains("[Variant \"Chess960\"]"), "{text}");
        assert!(text.contains("\n1. e1h1 f8e7 2."), "{text}");
    }

    #[test]
    fn minimal_output_has_the_roster_setup_and_game_id_and_no_comments() {
        let game = notation_game(false);
        assert_eq!(
            written(&game, true, PgnNotation::San),
            "[Event \"e\"]\n[Site \"s\"]\n[Date \"1970.01.01\"]\n[Round \"1\"]\n\
             [White \"w\"]\n[Black \"b\"]\n[Result \"1/2-1/2\"]\n[SetUp \"1\"]\n\
             [FEN \"r4k2/1P6/8/3p4/4P3/8/8/R3K2R w KQ - 0 1\"]\n[GameId \"7\"]\n\n\
             1. O-O+ Ke7 2. exd5 Kd6 3. Rf6+ Kxd5 4. bxa8=Q+ 1/2-1/2\n\n"
        );
        // The full output keeps its tags and comments, in any notation.
        let full = written(&game, false, PgnNotation::Lan);
        for part in [
            "[TimeControl \"40/60\"]",
            "[PlyCount \"7\"]",
            "1. O-O+ {book} 1... Kf8e7 {+0.32/12 0.510s}",
            "4. b7xa8=Q+ {+0.32/12 0.510s, Draw by fiat} 1/2-1/2",
        ] {
            assert!(full.contains(part), "{part} in {full}");
        }
        // What `--resume` and merge read is there in minimal output too.
        let text = written(&game, true, PgnNotation::Uci);
        let games = split_pgn_games(&text);
        assert_eq!((games[0].game_id, games[0].complete), (Some(7), true));
    }

    #[test]
    fn tag_values_are_escaped_and_kept_on_one_line() {
        assert_eq!(
            escape_tag_value("a \"quoted\" \\ path\nwith\r\tbreaks"),
            "a \\\"quoted\\\" \\\\ path with  breaks"
        );
        assert_eq!(escape_tag_value("plain name 1.0"), "plain name 1.0");
    }

    #[test]
    fn split_games_knows_a_cut_off_game() {
        let text = "[Event \"e\"]\n[Result \"1-0\"]\n[GameId \"1\"]\n\n1. e4 {book} 1-0\n\n\
                    [Event \"e\"]\n[Result \"0-1\"]\n[GameId \"2\"]\n\n1. e4 e5 {book} 2. Qh5";
        let games = split_pgn_games(text);
        assert_eq!(games.len(), 2);
        assert_eq!((games[0].game_id, games[0].complete), (Some(1), true));
        assert_eq!((games[1].game_id, games[1].complete), (Some(2), false));
        assert_eq!(games[0].text.len() + games[1].text.len(), text.len());
    }
}
