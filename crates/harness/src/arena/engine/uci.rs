//! The UCI protocol over an engine process: the handshake (`uci`/`uciok`, options,
//! `isready`/`readyok`), the `position` and `go` commands, and the engine's `info` and
//! `bestmove` lines read into typed values. Numbers out of any sane range are clamped or
//! ignored, so no engine output can overflow a counter downstream.

use super::fastchess_options::{fastchess_spin, BadSpin, FastchessSpin};
use super::process::EngineProcess;
use crate::arena::engine::player::{EngineReply, GoRequest, PlayerError};
use crate::board::{CastlingNotation, Move, Position};
use crate::score::{Score, MATE};
use regex::Regex;
use std::time::{Duration, Instant};

/// An option an engine declared with `option name N type T ...`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeclaredOption {
    /// Its name (may hold spaces).
    pub name: String,
    /// `check`, `spin`, `combo`, `button` or `string`.
    pub kind: String,
    /// Its current value: the declared default, or the value sent.
    pub value: Option<String>,
    /// A spin's bounds.
    pub min: Option<i64>,
    /// A spin's upper bound.
    pub max: Option<i64>,
    /// A combo's values.
    pub vars: Vec<String>,
    /// For a spin: how fastchess builds it from the declared default, min and max, or the
    /// text of the exception that stops fastchess's run (min above max, a default outside
    /// them, a value that is not a number). None for other kinds and xboard options.
    pub(crate) fastchess_spin: Option<Result<FastchessSpin, BadSpin>>,
}

impl DeclaredOption {
    /// Reads the part of an `option` line after `option `; None when it names no option.
    pub fn parse(line: &str) -> Option<DeclaredOption> {
        const KEYWORDS: [&str; 6] = ["name", "type", "default", "min", "max", "var"];
        let mut option = DeclaredOption::default();
        let mut key: Option<&str> = None;
        let mut words: Vec<&str> = Vec::new();
        // The first word of each of default, min and max, as fastchess reads a spin's.
        let mut numbers: [String; 3] = Default::default();
        let tokens = line.split_whitespace().skip(1);
        let mut finish = |key: Option<&str>, words: &mut Vec<&str>, option: &mut DeclaredOption| {
            let text = words.join(" ");
            let first = words.first().copied().unwrap_or("").to_string();
            words.clear();
            match key {
                Some("name") => option.name = text,
                Some("type") => option.kind = text,
                Some("default") => {
                    numbers[0] = first;
                    option.value = Some(text);
                }
                Some("min") => {
                    numbers[1] = first;
                    option.min = text.parse().ok();
                }
                Some("max") => {
                    numbers[2] = first;
                    option.max = text.parse().ok();
                }
                Some("var") if !text.is_empty() => option.vars.push(text),
                _ => {}
            }
        };
        for token in tokens {
            // A keyword ends the previous field; inside a name only `type` does.
            let is_keyword = KEYWORDS.contains(&token) && (key != Some("name") || token == "type");
            if is_keyword {
                finish(key, &mut words, &mut option);
                key = Some(token);
            } else {
                words.push(token);
            }
        }
        finish(key, &mut words, &mut option);
        if option.kind == "spin" {
            let [default, min, max] = numbers;
            option.fastchess_spin =
                Some(
                    fastchess_spin(&default, &min, &max).map_err(|what| BadSpin {
                        default,
                        min,
                        max,
                        what,
                    }),
                );
        }
        (!option.name.is_empty()).then_some(option)
    }

    /// Refuses a value the declaration does not allow.
    pub(crate) fn check_value(&self, value: &str) -> Result<(), PlayerError> {
        let refuse = |allowed: String| PlayerError::OptionValue {
            name: self.name.clone(),
            value: value.to_string(),
            allowed,
        };
        match self.kind.as_str() {
            "spin" => match self.fastchess_spin {
                // Declared with decimals (fastchess's double spin): it takes decimals.
                Some(Ok(FastchessSpin::Float { min, max })) => match value.trim().parse::<f64>() {
                    Ok(v) if v >= min && v <= max => Ok(()),
                    _ => Err(refuse(format!("a spin from {min} to {max}"))),
                },
                _ => {
                    let (min, max) = (self.min.unwrap_or(i64::MIN), self.max.unwrap_or(i64::MAX));
                    match value.trim().parse::<i64>() {
                        Ok(v) if (min..=max).contains(&v) => Ok(()),
                        _ => Err(refuse(format!("a spin from {min} to {max}"))),
                    }
                }
            },
            "combo" if !self.vars.is_empty() => {
                if self
                    .vars
                    .iter()
                    .any(|v| v.eq_ignore_ascii_case(value.trim()))
                {
                    Ok(())
                } else {
                    Err(refuse(format!("a combo of {}", self.vars.join(", "))))
                }
            }
            "check" => match value.trim() {
                "true" | "false" => Ok(()),
                _ => Err(refuse("a check: true or false".to_string())),
            },
            // A button is pressed (`true`); there is no other value to send it.
            "button" if value.trim() != "true" => Err(refuse("a button: true".to_string())),
            _ => Ok(()),
        }
    }
}

/// A configured option value that fastchess does not send to the engine: the value its
/// declaration does not accept, as fastchess's option checks decide (`engine/option/` at the
/// commit fishtest pins). fastchess warns and plays on without it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefusedOption {
    /// The option's name as configured.
    pub name: String,
    /// The configured value.
    pub value: String,
    /// None: a value of the right kind outside what the declaration allows (fastchess's
    /// `Invalid value for option`). Some: a value fastchess cannot read as the declared number,
    /// with the text of the exception it reports (`Failed to set option`: `stoi`).
    pub unreadable: Option<String>,
    /// What the declaration allows, in words (`a spin from 1 to 64`).
    pub allowed: String,
}

impl RefusedOption {
    /// As the error a strict run stops with.
    pub(crate) fn to_error(&self) -> PlayerError {
        PlayerError::OptionValue {
            name: self.name.clone(),
            value: self.value.clone(),
            allowed: self.allowed.clone(),
        }
    }
}

/// Refuses option names and values that hold a line break: sent in a `setoption` line, the
/// rest would reach the engine as a command of its own.
pub(crate) fn check_options(options: &[(String, String)]) -> Result<(), PlayerError> {
    for (name, value) in options {
        for (what, text) in [("the name", name), ("the value", value)] {
            if text.contains(['\n', '\r']) {
                return Err(PlayerError::BadOption {
                    name: name.replace(['\n', '\r'], " "),
                    what,
                });
            }
        }
    }
    Ok(())
}

/// What the handshake learnt: the engine's name (if it gave one) and its options.
pub(crate) struct Handshake {
    pub(crate) id_name: Option<String>,
    pub declared: Vec<DeclaredOption>,
}

/// Sends `uci` and reads up to `uciok` (by `deadline`).
pub(crate) fn handshake(
    process: &mut EngineProcess,
    deadline: Instant,
) -> Result<Handshake, PlayerError> {
    process.send("uci")?;
    let mut found = Handshake {
        id_name: None,
        declared: Vec::new(),
    };
    loop {
        let line = process.recv_until(deadline)?;
        let line = line.trim();
        if let Some(name) = line.strip_prefix("id name ") {
            found.id_name = Some(name.trim().to_string());
        } else if line.starts_with("option ") {
            found.declared.extend(DeclaredOption::parse(line));
        } else if line == "uciok" {
            return Ok(found);
        }
    }
}

/// Reads lines until `readyok`, by `deadline` (whatever comes before it is stale).
pub(crate) fn wait_ready(
    process: &mut EngineProcess,
    deadline: Instant,
) -> Result<(), PlayerError> {
    loop {
        if process.recv_until(deadline)?.trim() == "readyok" {
            return Ok(());
        }
    }
}

/// Plays one `go`: sends the position, `isready` and `go` in one write, skips what comes
/// before `readyok` (a second `bestmove` for the previous go, late info lines, so it can never
/// be taken as this answer), then reads `info` lines up to `bestmove`, all by `deadline`.
/// `keep` are fastchess's `match_line` patterns: for each, the last line of this go that
/// matches it goes into the reply's details. Also gives the engine's `ponder` move, if any.
pub(crate) fn go(
    process: &mut EngineProcess,
    request: &GoRequest<'_>,
    chess960: bool,
    keep: &[Regex],
    deadline: Instant,
) -> Result<(EngineReply, Option<String>), PlayerError> {
    let commands = format!(
        "{}\nisready\n{}",
        position_command(
            request.start,
            request.moves,
            CastlingNotation::chess960_if(chess960),
        ),
        go_command(request)
    );
    process.send(&commands)?;
    wait_ready(process, deadline)?;
    read_reply(process, keep, deadline)
}

/// The most lines of one move kept for the compliance checks: a flood of `info` lines costs
/// no more memory than this (the older half is dropped when it fills).
const MAX_KEPT_LINES: usize = 4096;

/// Reads `info` lines up to `bestmove` by `deadline`: the reply, and the move the engine
/// expects in answer (`bestmove e2e4 ponder e7e5`), if it names one.
pub(crate) fn read_reply(
    process: &mut EngineProcess,
    keep: &[Regex],
    deadline: Instant,
) -> Result<(EngineReply, Option<String>), PlayerError> {
    let mut reply = EngineReply::default();
    let mut kept: Vec<Option<String>> = vec![None; keep.len()];
    let asked = Instant::now();
    loop {
        let line = process.recv_until(deadline)?;
        let trimmed = line.trim();
        if reply.output.len() == MAX_KEPT_LINES {
            // A flood: the oldest half goes (amortised), the newest lines matter most.
            reply.output.drain(..MAX_KEPT_LINES / 2);
        }
        reply.output.push(trimmed.to_string());
        for (pattern, slot) in keep.iter().zip(&mut kept) {
            if pattern.is_match(trimmed) {
                *slot = Some(trimmed.to_string());
            }
        }
        if trimmed.starts_with("info ") {
            parse_info(trimmed).apply(&mut reply);
        } else if let Some(best) = parse_bestmove(trimmed) {
            reply.bestmove = best.to_string();
            reply.details.lines = kept.into_iter().flatten().collect();
            reply.answer_time = Some(asked.elapsed());
            return Ok((reply, parse_ponder(trimmed)));
        }
    }
}

/// The `ponder` move of a `bestmove` line, as written; None when it names none.
pub(crate) fn parse_ponder(line: &str) -> Option<String> {
    let mut words = line.split_whitespace().skip(2);
    (words.next() == Some("ponder"))
        .then(|| words.next().map(str::to_string))
        .flatten()
}

/// The `position` command. In Chess960 the start is always a FEN (X-FEN) and castling is king
/// takes own rook, as `UCI_Chess960` asks; in standard chess it is the king's step.
pub(crate) fn position_command(
    start: &Position,
    moves: &[Move],
    castling: CastlingNotation,
) -> String {
    let chess960 = castling == CastlingNotation::Chess960;
    let fen = start.to_fen();
    let mut text = if fen == Position::START_FEN && !chess960 {
        "position startpos".to_string()
    } else {
        format!("position fen {fen}")
    };
    if !moves.is_empty() {
        text.push_str(" moves");
        if chess960 || start.has_chess960_castling() {
            // Castling text depends on the castling rook: replay the moves.
            let mut pos = start.clone();
            for &mv in moves {
                text.push(' ');
                text.push_str(&pos.uci(mv, castling));
                pos.make_move(mv);
            }
        } else {
            for mv in moves {
                text.push(' ');
                text.push_str(&mv.to_string());
            }
        }
    }
    text
}

/// The `go` command for a request's limits.
pub(crate) fn go_command(request: &GoRequest<'_>) -> String {
    let limits = request.limits;
    let mut text = "go".to_string();
    if let Some(n) = limits.nodes {
        text.push_str(&format!(" nodes {n}"));
    }
    if let Some(d) = limits.depth {
        text.push_str(&format!(" depth {d}"));
    }
    if let Some(t) = limits.movetime {
        text.push_str(&format!(" movetime {}", t.as_millis()));
    }
    if let Some(c) = &limits.clock {
        text.push_str(&format!(
            " wtime {} btime {} winc {} binc {}",
            c.white_time.as_millis(),
            c.black_time.as_millis(),
            c.white_increment.as_millis(),
            c.black_increment.as_millis()
        ));
        if let Some(m) = c.moves_to_go {
            text.push_str(&format!(" movestogo {m}"));
        }
    }
    text
}

/// The most nodes one move's report may claim (2^48, about 2.8e14): a larger figure is taken
/// as garbage, so the per-engine sums over millions of moves cannot overflow.
pub(crate) const MAX_REPORTED_NODES: u64 = 1 << 48;
/// Mate distances beyond this many moves are clamped (the longest known mates are ~550).
pub(crate) const MAX_REPORTED_MATE: i32 = 1000;

/// What one `info` line says about the final evaluation; None where it says nothing usable.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct InfoLine {
    /// `depth`, in plies.
    pub depth: Option<u32>,
    /// `nodes`, up to `MAX_REPORTED_NODES`.
    pub nodes: Option<u64>,
    /// `score cp` (clamped to ±`MATE`) or `score mate` (clamped to ±`MAX_REPORTED_MATE`).
    pub score: Option<Score>,
    /// `seldepth`, in plies.
    pub seldepth: Option<u32>,
    /// `nps`.
    pub nps: Option<u64>,
    /// `hashfull`, in permille.
    pub hashfull: Option<u32>,
    /// `tbhits`.
    pub tbhits: Option<u64>,
    /// `time`, in milliseconds.
    pub(crate) time_ms: Option<u64>,
    /// The moves after `pv`, as written (empty when the line has none).
    pub pv: Vec<String>,
}

impl InfoLine {
    /// Overwrites the reply's fields this line gives.
    pub(super) fn apply(&self, reply: &mut EngineReply) {
        reply.depth = self.depth.or(reply.depth);
        reply.nodes = self.nodes.or(reply.nodes);
        reply.score = self.score.or(reply.score);
        let d = &mut reply.details;
        d.seldepth = self.seldepth.or(d.seldepth);
        d.nps = self.nps.or(d.nps);
        d.hashfull = self.hashfull.or(d.hashfull);
        d.tbhits = self.tbhits.or(d.tbhits);
        if let Some(ms) = self.time_ms {
            d.engine_time = Some(Duration::from_millis(ms));
        }
        if !self.pv.is_empty() {
            d.pv.clone_from(&self.pv);
        }
    }
}

/// A whole number, saturated to the i64 range when it has too many digits; None when not one.
fn saturating_int(token: &str) -> Option<i64> {
    let digits = token.strip_prefix(['-', '+']).unwrap_or(token);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(token.parse().unwrap_or(if token.starts_with('-') {
        i64::MIN
    } else {
        i64::MAX
    }))
}

/// Reads `score`, `depth`, `nodes` and the other figures from an `info` line. Lines with bound scores, other PV
/// lines (`multipv` other than 1) and `info string` lines describe no final evaluation.
pub(crate) fn parse_info(line: &str) -> InfoLine {
    let mut info = InfoLine::default();
    let tokens: Vec<&str> = line.split_whitespace().collect();
    if tokens
        .iter()
        .any(|&t| t == "lowerbound" || t == "upperbound" || t == "string")
    {
        return info;
    }
    if let Some(i) = tokens.iter().position(|&t| t == "multipv") {
        if tokens.get(i + 1) != Some(&"1") {
            return info;
        }
    }
    let mut i = 1;
    while i < tokens.len() {
        let next = tokens.get(i + 1).copied().unwrap_or("");
        match tokens[i] {
            "depth" => {
                info.depth = next.parse().ok().or(info.depth);
                i += 1;
            }
            "nodes" => {
                let nodes = next
                    .parse::<u64>()
                    .ok()
                    .filter(|&n| n <= MAX_REPORTED_NODES);
                info.nodes = nodes.or(info.nodes);
                i += 1;
            }
            "seldepth" | "hashfull" => {
                let value = next.parse::<u32>().ok();
                if tokens[i] == "seldepth" {
                    info.seldepth = value.or(info.seldepth);
                } else {
                    info.hashfull = value.or(info.hashfull);
                }
                i += 1;
            }
            "nps" | "tbhits" | "time" => {
                let value = next
                    .parse::<u64>()
                    .ok()
                    .filter(|&n| n <= MAX_REPORTED_NODES);
                match tokens[i] {
                    "nps" => info.nps = value.or(info.nps),
                    "tbhits" => info.tbhits = value.or(info.tbhits),
                    _ => info.time_ms = value.or(info.time_ms),
                }
                i += 1;
            }
            "score" => {
                let value = tokens.get(i + 2).and_then(|t| saturating_int(t));
                let clamp =
                    |v: i64, bound: i32| v.clamp(-i64::from(bound), i64::from(bound)) as i32;
                match (next, value) {
                    ("cp", Some(v)) => info.score = Some(Score::Cp(clamp(v, MATE))),
                    ("mate", Some(v)) => {
                        info.score = Some(Score::Mate(clamp(v, MAX_REPORTED_MATE)));
                    }
                    _ => {}
                }
                i += 2;
            }
            "pv" => {
                info.pv = tokens[i + 1..].iter().map(|t| t.to_string()).collect();
                break;
            }
            _ => {}
        }
        i += 1;
    }
    info
}

/// The move of a `bestmove` line, as written (`(none)` and `0000` included: the arbiter
/// refuses them as moves); None when the line is no `bestmove` line.
pub(crate) fn parse_bestmove(line: &str) -> Option<&str> {
    let mut words = line.split_whitespace();
    (words.next() == Some("bestmove")).then(|| words.next().unwrap_or(""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_lines_are_read_and_values_checked() {
        let hash =
            DeclaredOption::parse("option name Hash type spin default 16 min 1 max 1024").unwrap();
        assert_eq!(
            (hash.name.as_str(), hash.kind.as_str(), hash.min, hash.max),
            ("Hash", "spin", Some(1), Some(1024))
        );
        assert_eq!(hash.value.as_deref(), Some("16"));
        assert!(hash.check_value("1024").is_ok());
        let err = hash.check_value("2048").unwrap_err().to_string();
        assert_eq!(
            err,
            "option `Hash` = `2048`: the engine declares a spin from 1 to 1024"
        );
        assert!(hash.check_value("lots").is_err());
        assert!(
            hash.check_value("16.5").is_err(),
            "an integer spin takes integers"
        );
        // A spin declared with decimals takes decimals within its bounds (SPSA's floats).
        let lr =
            DeclaredOption::parse("option name Lr type spin default 0.5 min 0 max 1.5").unwrap();
        for ok in ["0.75", "0", "1.5", " 0.3000000000000001", "1"] {
            assert!(lr.check_value(ok).is_ok(), "{ok}");
        }
        for bad in ["1.6", "-0.1", "abc", "NaN", ""] {
            let err = lr.check_value(bad).unwrap_err().to_string();
            assert!(
                err.ends_with("the engine declares a spin from 0 to 1.5"),
                "{err}"
            );
        }
        let style = DeclaredOption::parse(
            "option name Play Style type combo default Normal var Solid var Normal var Risky",
        )
        .unwrap();
        assert_eq!(style.name, "Play Style");
        assert_eq!(style.vars, ["Solid", "Normal", "Risky"]);
        assert!(style.check_value("risky").is_ok());
        assert!(style
            .check_value("Wild")
            .unwrap_err()
            .to_string()
            .contains("a combo of Solid, Normal, Risky"));
        let check = DeclaredOption::parse("option name Ponder type check default false").unwrap();
        assert!(check.check_value("true").is_ok());
        assert!(check.check_value("yes").is_err());
        let path =
            DeclaredOption::parse("option name SyzygyPath type string default <empty>").unwrap();
        assert_eq!(path.value.as_deref(), Some("<empty>"));
        assert!(path.check_value("anything at all").is_ok());
        assert!(DeclaredOption::parse("option type spin").is_none());
    }

    #[test]
    fn info_lines_give_the_last_exact_score() {
        let mut reply = EngineReply::default();
        let mut read = |line: &str| parse_info(line).apply(&mut reply);
        read("info depth 12 seldepth 17 multipv 1 score cp 31 nodes 12345 nps 1 pv e2e4 e7e5");
        read("info depth 13 score cp 50 lowerbound nodes 20000");
        assert_eq!(reply.score, Some(Score::Cp(31)), "bound scores are ignored");
        assert_eq!((reply.depth, reply.nodes), (Some(12), Some(12345)));
        let mut read = |line: &str| parse_info(line).apply(&mut reply);
        read("info depth 14 multipv 2 score cp -5");
        assert_eq!(reply.score, Some(Score::Cp(31)), "other PV lines too");
        let mut read = |line: &str| parse_info(line).apply(&mut reply);
        read("info depth 15 score mate -3 nodes 30000");
        assert_eq!(reply.score, Some(Score::Mate(-3)));
        assert_eq!(reply.details.seldepth, Some(17));
        assert_eq!(reply.details.nps, Some(1));
        assert_eq!(reply.details.pv, vec!["e2e4", "e7e5"]);
        let mut read = |line: &str| parse_info(line).apply(&mut reply);
        read("info string score cp 999");
        assert_eq!(reply.score, Some(Score::Mate(-3)));
    }

    #[test]
    fn numbers_out_of_range_are_clamped_or_ignored() {
        let info = parse_info("info depth 99999999999999999999 score cp 9999999999999 nodes 1e30");
        let expected = InfoLine {
            depth: None,
            nodes: None,
            score: Some(Score::Cp(MATE)),
            ..InfoLine::default()
        };
        assert_eq!(info, expected);
        let info = parse_info("info score cp -99999999999999999999999 nodes 18446744073709551615");
        assert_eq!((info.score, info.nodes), (Some(Score::Cp(-MATE)), None));
        let info = parse_info("info score mate -2147483648 depth 4294967295");
        assert_eq!(info.score, Some(Score::Mate(-MAX_REPORTED_MATE)));
        assert_eq!(info.depth, Some(u32::MAX));
        for junk in [
            "info score cp",
            "info score cp 1.5",
            "info score mate +-3",
            "info score",
        ] {
            assert_eq!(parse_info(junk).score, None, "{junk}");
        }
        // Every clamped score can be turned into one number without overflow.
        assert_eq!(Score::Mate(-MAX_REPORTED_MATE).as_cp(), -MATE + 2000);
    }

    #[test]
    fn bestmove_lines_give_the_move_as_written() {
        assert_eq!(parse_bestmove("bestmove e2e4 ponder e7e5"), Some("e2e4"));
        assert_eq!(parse_bestmove("bestmove (none)"), Some("(none)"));
        assert_eq!(parse_bestmove("bestmove 0000"), Some("0000"));
        assert_eq!(parse_bestmove("bestmove"), Some(""));
        assert_eq!(parse_bestmove("bestmoves e2e4"), None);
        assert_eq!(parse_bestmove("info bestmove e2e4"), None);
        assert_eq!(
            parse_ponder("bestmove e2e4 ponder e7e5").as_deref(),
            Some("e7e5")
        );
        assert_eq!(parse_ponder("bestmove e2e4"), None);
        assert_eq!(parse_ponder("bestmove e2e4 ponder"), None);
    }
}
