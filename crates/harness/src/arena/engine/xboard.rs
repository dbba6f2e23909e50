//! The xboard protocol (CECP, version 2) over an engine process: the feature handshake, the
//! commands that set up a game and its time control, and the engine's lines read into typed
//! values (moves in coordinate or SAN notation, thinking output, result claims). The player on
//! top is `xboard_player`.

use super::process::EngineProcess;
use super::uci::{DeclaredOption, MAX_REPORTED_MATE, MAX_REPORTED_NODES};
use crate::arena::engine::player::{EngineReply, PlayerError};
use crate::board::{CastlingNotation, Color, Move, Position};
use crate::score::{Score, MATE};
use crate::search::SearchLimits;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// How long an engine may stay silent after `protover 2` before it counts as a protocol 1
/// engine (xboard's and cutechess's way): a version 2 engine answers with `feature` at once.
pub(crate) const PROTOVER_WAIT: Duration = Duration::from_secs(2);

/// What the engine declared with `feature` (the protocol's defaults where it said nothing).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Features {
    /// `ping=1`: it answers `ping N` with `pong N` once every earlier command is done.
    pub ping: bool,
    /// `setboard=1`: it takes positions as `setboard FEN` (else the `edit` command).
    pub setboard: bool,
    /// `san=1`: moves are sent to it in SAN.
    pub san: bool,
    /// `usermove=1`: moves are sent as `usermove MOVE`.
    pub usermove: bool,
    /// `time=0` turns off the `time`/`otim` commands.
    pub time: bool,
    /// `nps=1`: it takes `nps N` (node-count thinking, how a node limit is given).
    pub nps: bool,
    /// `memory=1`: it takes `memory MB`.
    pub memory: bool,
    /// `smp=1`: it takes `cores N`.
    pub(crate) smp: bool,
    /// `myname="..."`.
    pub(crate) myname: Option<String>,
    /// `variants="normal,fischerandom,..."`; None: standard chess only.
    pub(crate) variants: Option<Vec<String>>,
    /// `option="NAME -TYPE ..."` declarations, as UCI-like options.
    pub options: Vec<DeclaredOption>,
    /// Whether it answered `protover 2` at all (a version 1 engine does not).
    pub(crate) protover2: bool,
    /// `reuse=0` asks for a fresh process for every game.
    pub(crate) reuse: bool,
    /// `name=1`: it wants its opponent's name (`computer`, `name NAME`) with every game.
    pub name: bool,
    /// `egt="syzygy,..."`: the endgame table formats it reads (`egtpath FORMAT PATH`).
    pub egt: Vec<String>,
}

impl Default for Features {
    fn default() -> Features {
        Features {
            ping: false,
            setboard: false,
            san: false,
            usermove: false,
            time: true,
            nps: false,
            memory: false,
            smp: false,
            myname: None,
            variants: None,
            options: Vec::new(),
            protover2: false,
            reuse: true,
            name: false,
            egt: Vec::new(),
        }
    }
}

impl Features {
    /// Whether it plays variant `name` (`normal` is always played).
    pub(super) fn plays(&self, name: &str) -> bool {
        name == "normal"
            || self
                .variants
                .as_ref()
                .is_some_and(|v| v.iter().any(|x| x == name))
    }

    /// Takes one `name=value`; whether the feature is one sparring uses (`accepted`) or not.
    fn set(&mut self, name: &str, value: &str) -> bool {
        let on = value == "1";
        match name {
            "ping" => self.ping = on,
            "setboard" => self.setboard = on,
            "san" => self.san = on,
            "usermove" => self.usermove = on,
            "time" => self.time = on,
            "nps" => self.nps = on,
            "memory" => self.memory = on,
            "smp" => self.smp = on,
            "myname" => self.myname = Some(value.to_string()),
            "variants" => {
                self.variants = Some(value.split(',').map(|v| v.trim().to_string()).collect());
            }
            "option" => match parse_option(value) {
                Some(option) => self.options.push(option),
                None => return false,
            },
            "reuse" => self.reuse = value != "0",
            "name" => self.name = on,
            "egt" => self.egt = value.split(',').map(|v| v.trim().to_string()).collect(),
            // Known and harmless: the `done` marker (answered by the handshake) and others.
            "done" | "colors" | "draw" | "debug" => {}
            _ => return false,
        }
        true
    }
}

/// The `name=value` pairs of a `feature` line's arguments: a value is a quoted string or one
/// word. Malformed text is skipped up to the next space.
pub(crate) fn parse_features(args: &str) -> Vec<(String, String)> {
    let mut pairs = Vec::new();
    let mut rest = args.trim_start();
    while !rest.is_empty() {
        let Some(eq) = rest.find('=') else { break };
        let name = rest[..eq].trim();
        let after = &rest[eq + 1..];
        let (value, tail) = if let Some(quoted) = after.strip_prefix('"') {
            match quoted.find('"') {
                Some(end) => (&quoted[..end], &quoted[end + 1..]),
                None => (quoted, ""),
            }
        } else {
            let end = after.find(char::is_whitespace).unwrap_or(after.len());
            (&after[..end], &after[end..])
        };
        // A name holding a space is the tail of garbage before it: keep its last word.
        let name = name.rsplit(char::is_whitespace).next().unwrap_or(name);
        if !name.is_empty() {
            pairs.push((name.to_string(), value.to_string()));
        }
        rest = tail.trim_start();
    }
    pairs
}

/// An `option` feature's value (`Hash -spin 64 1 1024`, `Resign -check 0`,
/// `Style -combo Solid /// *Normal`, `Book -file x.bin`, `Clear -button`) as a declared option
/// with UCI's kinds (`slider` is a spin; `file` and `path` are strings; `save` a button).
pub(crate) fn parse_option(text: &str) -> Option<DeclaredOption> {
    let dash = text.find(" -")?;
    let name = text[..dash].trim();
    let rest = &text[dash + 2..];
    let (kind, args) = rest.split_once(' ').unwrap_or((rest, ""));
    let mut option = DeclaredOption {
        name: name.to_string(),
        ..DeclaredOption::default()
    };
    match kind {
        "spin" | "slider" => {
            let numbers: Vec<i64> = args
                .split_whitespace()
                .filter_map(|t| t.parse().ok())
                .collect();
            let [value, min, max] = numbers[..] else {
                return None;
            };
            option.kind = "spin".into();
            option.value = Some(value.to_string());
            (option.min, option.max) = (Some(min), Some(max));
        }
        "check" => {
            option.kind = "check".into();
            let on = args.trim() == "1";
            option.value = Some(on.to_string());
        }
        "combo" => {
            option.kind = "combo".into();
            for choice in args.split("///").map(str::trim).filter(|c| !c.is_empty()) {
                let plain = choice.strip_prefix('*').unwrap_or(choice);
                if choice.starts_with('*') || option.value.is_none() {
                    option.value = Some(plain.to_string());
                }
                option.vars.push(plain.to_string());
            }
        }
        "string" | "file" | "path" => {
            option.kind = "string".into();
            option.value = Some(args.to_string());
        }
        "button" | "save" => option.kind = "button".into(),
        _ => return None,
    }
    (!option.name.is_empty()).then_some(option)
}

/// Sends `xboard` and `protover 2` and reads the features up to `done=1`, answering each with
/// `accepted` or `rejected`. `done=0` asks for more time: then the wait lasts until `deadline`.
/// An engine silent for `PROTOVER_WAIT` speaks protocol 1 and gets the defaults.
pub(crate) fn handshake(
    process: &mut EngineProcess,
    deadline: Instant,
) -> Result<Features, PlayerError> {
    process.send("xboard\nprotover 2")?;
    let mut features = Features::default();
    let mut wait_until = deadline.min(Instant::now() + PROTOVER_WAIT);
    loop {
        let line = match process.recv_until(wait_until) {
            Ok(line) => line,
            // Silence: a protocol 1 engine, or a version 2 one that never said done=1.
            Err(PlayerError::Timeout { .. }) if wait_until < deadline => return Ok(features),
            Err(e) => return Err(e),
        };
        let Some(args) = line.trim().strip_prefix("feature ") else {
            continue;
        };
        features.protover2 = true;
        let mut answers = Vec::new();
        let mut done = None;
        for (name, value) in parse_features(args) {
            if name == "done" {
                done = Some(value == "1");
            }
            let verdict = if features.set(&name, &value) {
                "accepted"
            } else {
                "rejected"
            };
            answers.push(format!("{verdict} {name}"));
        }
        if !answers.is_empty() {
            process.send(&answers.join("\n"))?;
        }
        match done {
            Some(true) => return Ok(features),
            Some(false) => wait_until = deadline,
            None => {}
        }
    }
}

/// A line of the engine's, as far as the arbiter cares.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum EngineLine {
    /// `move MOVE` (or protocol 1's `1. ... MOVE`): the text of its move.
    Move(String),
    /// Thinking output: `ply score time nodes pv`.
    Thinking(Thinking),
    /// `pong N`.
    Pong(u64),
    /// `1-0 {...}`, `0-1 {...}`, `1/2-1/2 {...}` or `* {...}`: a result claim, as written.
    Claim(String),
    /// `resign`.
    Resign,
    /// `Illegal move: MOVE` or `Illegal move (REASON): MOVE`: it refused a move it was sent.
    Illegal(String),
    /// `Error (TYPE): COMMAND`.
    Error(String),
    /// Anything else (`tellics`, `telluser`, `offer draw`, `#` comments...).
    Other,
}

/// One line of thinking output.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Thinking {
    /// The search depth, in plies.
    pub depth: u32,
    /// The score from the engine's side: centipawns, or a mate as `100000 + N` moves.
    pub score: Option<Score>,
    /// The time searched, in centiseconds.
    pub(crate) time_cs: Option<u64>,
    /// Nodes searched.
    pub nodes: Option<u64>,
    /// The principal variation as written (any notation, move numbers included).
    pub pv: Vec<String>,
}

/// Reads one line of the engine's.
pub(crate) fn classify(line: &str) -> EngineLine {
    let line = line.trim();
    let mut words = line.split_whitespace();
    let Some(first) = words.next() else {
        return EngineLine::Other;
    };
    match first {
        "move" => EngineLine::Move(words.next().unwrap_or("").to_string()),
        "pong" => words
            .next()
            .and_then(|n| n.parse().ok())
            .map_or(EngineLine::Other, EngineLine::Pong),
        "1-0" | "0-1" | "1/2-1/2" | "*" => EngineLine::Claim(line.to_string()),
        "resign" => EngineLine::Resign,
        "Illegal" => EngineLine::Illegal(line.to_string()),
        "Error" => EngineLine::Error(line.to_string()),
        _ if first.starts_with(|c: char| c.is_ascii_digit()) && first.contains('.') => {
            // Protocol 1's move format: `1. ... e2e4`.
            match (words.next(), words.next()) {
                (Some("..."), Some(mv)) => EngineLine::Move(mv.to_string()),
                _ => EngineLine::Other,
            }
        }
        _ if first.starts_with(|c: char| c.is_ascii_digit()) => {
            parse_thinking(line).map_or(EngineLine::Other, EngineLine::Thinking)
        }
        _ => EngineLine::Other,
    }
}

/// Reads a thinking line `ply score time nodes pv...`; None when it is not one.
pub(crate) fn parse_thinking(line: &str) -> Option<Thinking> {
    let mut words = line.split_whitespace();
    // A ply may carry a mark (`12&`, `7.`): the digits count.
    let ply = words.next()?;
    let digits: String = ply.chars().take_while(char::is_ascii_digit).collect();
    let depth = digits.parse().ok()?;
    let number = |w: Option<&str>| w.and_then(|t| t.parse::<i64>().ok());
    let score = number(words.next()).map(xboard_score);
    let time_cs = number(words.next()).and_then(|t| u64::try_from(t).ok());
    let nodes = number(words.next())
        .and_then(|n| u64::try_from(n).ok())
        .filter(|&n| n <= MAX_REPORTED_NODES);
    Some(Thinking {
        depth,
        score,
        time_cs,
        nodes,
        pv: words.map(str::to_string).collect(),
    })
}

/// A CECP score: `100000 + N` is a mate in N moves (`-100000 - N` being mated); anything else
/// is centipawns, clamped to the mate bound.
fn xboard_score(value: i64) -> Score {
    let magnitude = value.unsigned_abs();
    if (100_000..100_000 + MAX_REPORTED_MATE as u64).contains(&magnitude) {
        let moves = (magnitude - 100_000) as i32;
        return Score::Mate(if value < 0 { -moves } else { moves });
    }
    Score::Cp(value.clamp(-i64::from(MATE), i64::from(MATE)) as i32)
}

impl Thinking {
    /// Overwrites the reply's figures with this line's; `pos` (the position searched) turns the
    /// principal variation into UCI moves as far as it reads.
    pub(super) fn apply(
        &self,
        reply: &mut EngineReply,
        pos: &Position,
        castling: CastlingNotation,
    ) {
        reply.depth = Some(self.depth);
        reply.score = self.score.or(reply.score);
        reply.nodes = self.nodes.or(reply.nodes);
        if let Some(cs) = self.time_cs {
            reply.details.engine_time = Some(Duration::from_millis(cs.saturating_mul(10)));
        }
        let mut pos = pos.clone();
        let mut pv = Vec::new();
        for word in &self.pv {
            // Move numbers (`12.`, `12...`) and bare marks are no moves.
            if word.ends_with('.') || word.chars().all(|c| !c.is_ascii_alphanumeric()) {
                continue;
            }
            let Some(mv) = parse_move(&pos, word) else {
                break;
            };
            pv.push(pos.uci(mv, castling));
            pos.make_move(mv);
        }
        if !pv.is_empty() {
            reply.details.pv = pv;
        }
    }
}

/// The legal move an engine's text names: coordinates (`e2e4`, `e7e8q`, `e1g1`, king takes
/// rook) or SAN (`Nf3`, `O-O`, `e8=Q`).
pub(crate) fn parse_move(pos: &Position, text: &str) -> Option<Move> {
    let text = text.trim();
    let mut coordinates = text.to_string();
    if coordinates.len() == 5 && coordinates.is_ascii() {
        // Some engines write the promotion piece in upper case.
        coordinates.make_ascii_lowercase();
    }
    pos.parse_uci_move(&coordinates)
        .ok()
        .or_else(|| pos.parse_san(text).ok())
}

/// The text of `mv` for the engine: SAN when it asked for it, else coordinates; castling in
/// Chess960 is `O-O`/`O-O-O`, as xboard writes it in its random variants.
pub(super) fn move_text(pos: &Position, mv: Move, san: bool, castling: CastlingNotation) -> String {
    if san {
        return pos.san(mv);
    }
    if castling == CastlingNotation::Chess960 && mv.is_castle() {
        let san = pos.san(mv);
        return san.trim_end_matches(['+', '#']).to_string();
    }
    pos.uci(mv, CastlingNotation::Standard)
}

/// The `edit` commands that set up `pos` on an engine without `setboard` (after `new` and
/// `force`; a Black-to-move position first gets a dummy move, as the protocol asks). Castling
/// rights follow from kings and rooks on their home squares; an en-passant right is lost.
pub(crate) fn edit_commands(pos: &Position, usermove: bool) -> String {
    let mut text = String::new();
    if pos.side_to_move() == Color::Black {
        text.push_str(if usermove {
            "usermove a2a3\n"
        } else {
            "a2a3\n"
        });
    }
    text.push_str("edit\n#\n");
    for color in [Color::White, Color::Black] {
        if color == Color::Black {
            text.push_str("c\n");
        }
        for i in 0..64 {
            let sq = crate::board::Square::from_index(i);
            if let Some(piece) = pos.piece_on(sq).filter(|p| p.color == color) {
                let _ = writeln!(text, "{}{sq}", piece.kind.char().to_ascii_uppercase());
            }
        }
    }
    text.push('.');
    text
}

/// Seconds in xboard's forms: `level` wants minutes or `min:sec`, `st` plain seconds.
fn level_base(base: Duration) -> String {
    let secs = base.as_secs();
    if secs % 60 == 0 {
        (secs / 60).to_string()
    } else {
        format!("{}:{:02}", secs / 60, secs % 60)
    }
}

/// A duration as seconds, with decimals only when needed (`5`, `0.5`).
fn seconds(duration: Duration) -> String {
    crate::arena::config::seconds_text(duration)
}

/// The time control commands for a game whose first request is `limits` (at an engine's first
/// move its clock shows the base time and moves to go the moves per period): `level`, `st`,
/// `sd` or `st 1` with `nps`. Err: a node limit the engine cannot take (no `feature nps=1`).
pub(crate) fn limit_commands(
    limits: &SearchLimits,
    me: Color,
    nps: bool,
) -> Result<String, String> {
    if let Some(nodes) = limits.nodes {
        if !nps {
            return Err(format!(
                "a node limit ({nodes} nodes): it declares no `feature nps=1`"
            ));
        }
        return Ok(format!("st 1\nnps {nodes}"));
    }
    if let Some(depth) = limits.depth {
        return Ok(format!("sd {depth}\nst 86400"));
    }
    if let Some(movetime) = limits.movetime {
        return Ok(format!("st {}", seconds(movetime)));
    }
    match &limits.clock {
        Some(clock) => {
            let (base, increment) = match me {
                Color::White => (clock.white_time, clock.white_increment),
                Color::Black => (clock.black_time, clock.black_increment),
            };
            let moves = clock.moves_to_go.unwrap_or(0);
            Ok(format!(
                "level {moves} {} {}",
                level_base(base),
                seconds(increment)
            ))
        }
        None => Ok("st 86400".to_string()),
    }
}

/// `time` and `otim`, in centiseconds, for the engine playing `me`.
pub(crate) fn time_commands(limits: &SearchLimits, me: Color) -> String {
    let cs = |d: Duration| d.as_millis() / 10;
    let (mine, theirs) = match (&limits.clock, limits.movetime) {
        (Some(c), _) => match me {
            Color::White => (cs(c.white_time), cs(c.black_time)),
            Color::Black => (cs(c.black_time), cs(c.white_time)),
        },
        (None, Some(t)) => (cs(t), cs(t)),
        // `st 1` with `nps`: one second of node-count time.
        (None, None) if limits.nodes.is_some() => (100, 100),
        (None, None) => (8_640_000, 8_640_000),
    };
    format!("time {mine}\notim {theirs}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Clock;

    #[test]
    fn feature_lines_are_read_with_quoted_values() {
        let pairs = parse_features(
            r#"myname="Fairy-Max 5.0b" setboard=0 ping=1 option="Resign Threshold -spin 800 200 1200" done=0"#,
        );
        let names: Vec<&str> = pairs.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["myname", "setboard", "ping", "option", "done"]);
        assert_eq!(pairs[0].1, "Fairy-Max 5.0b");
        assert_eq!(pairs[3].1, "Resign Threshold -spin 800 200 1200");
        let mut features = Features::default();
        for (n, v) in &pairs {
            features.set(n, v);
        }
        assert!(features.ping && !features.setboard && features.time);
        let spin = &features.options[0];
        assert_eq!(
            (spin.kind.as_str(), spin.min, spin.max),
            ("spin", Some(200), Some(1200))
        );
        assert!(!features.set("sigint", "1"), "signals are refused");
    }

    #[test]
    fn option_features_become_declared_options() {
        let combo = parse_option("Style -combo Solid /// *Normal /// Risky").unwrap();
        assert_eq!(combo.vars, ["Solid", "Normal", "Risky"]);
        assert_eq!(combo.value.as_deref(), Some("Normal"));
        let check = parse_option("Resign -check 1").unwrap();
        assert_eq!(check.value.as_deref(), Some("true"));
        let file = parse_option("Ini File -file /usr/share/fmax.ini").unwrap();
        assert_eq!(
            (file.kind.as_str(), file.value.as_deref()),
            ("string", Some("/usr/share/fmax.ini"))
        );
        assert_eq!(parse_option("Clear Hash -button").unwrap().kind, "button");
        assert!(parse_option("Broken -spin 1 2").is_none());
        assert!(parse_option("no type here").is_none());
    }

    #[test]
    fn engine_lines_are_classified() {
        assert_eq!(classify("move e2e4"), EngineLine::Move("e2e4".into()));
        assert_eq!(classify("1. ... Nf3"), EngineLine::Move("Nf3".into()));
        assert_eq!(classify("pong 7"), EngineLine::Pong(7));
        assert_eq!(classify("resign"), EngineLine::Resign);
        assert_eq!(
            classify("0-1 {Black mates}"),
            EngineLine::Claim("0-1 {Black mates}".into())
        );
        assert!(matches!(
            classify("Illegal move: e2e5"),
            EngineLine::Illegal(_)
        ));
        assert!(matches!(
            classify("Error (unknown command): foo"),
            EngineLine::Error(_)
        ));
        assert_eq!(classify("tellics say hello"), EngineLine::Other);
        let EngineLine::Thinking(t) = classify(" 9&    -35    120   45678 Nf3 d5 g3") else {
            panic!("a thinking line");
        };
        assert_eq!(
            (t.depth, t.score, t.time_cs, t.nodes),
            (9, Some(Score::Cp(-35)), Some(120), Some(45678))
        );
        assert_eq!(t.pv, ["Nf3", "d5", "g3"]);
        let mate = parse_thinking("12 100003 50 1000 e2e4").unwrap();
        assert_eq!(mate.score, Some(Score::Mate(3)));
        let mated = parse_thinking("12 -100002 50 1000 e2e4").unwrap();
        assert_eq!(mated.score, Some(Score::Mate(-2)));
        let huge = parse_thinking("3 99999999999 1 99999999999999999999").unwrap();
        assert_eq!((huge.score, huge.nodes), (Some(Score::Cp(MATE)), None));
    }

    #[test]
    fn thinking_pv_in_san_becomes_uci() {
        let pos = Position::startpos();
        let t = parse_thinking("4 20 10 500 1. e4 e5 2. Nf3 Nc6 Zz9").unwrap();
        let mut reply = EngineReply::default();
        t.apply(&mut reply, &pos, CastlingNotation::Standard);
        assert_eq!(reply.details.pv, ["e2e4", "e7e5", "g1f3", "b8c6"]);
        assert_eq!(reply.details.engine_time, Some(Duration::from_millis(100)));
    }

    #[test]
    fn moves_are_read_and_written_in_both_notations() {
        let pos = Position::startpos();
        let e4 = parse_move(&pos, "e2e4").unwrap();
        assert_eq!(parse_move(&pos, "e4"), Some(e4));
        assert_eq!(move_text(&pos, e4, true, CastlingNotation::Standard), "e4");
        assert_eq!(
            move_text(&pos, e4, false, CastlingNotation::Standard),
            "e2e4"
        );
        let promo = Position::from_fen("8/4P3/8/8/8/8/8/k1K5 w - - 0 1").unwrap();
        assert!(parse_move(&promo, "e7e8Q").is_some());
        assert!(parse_move(&pos, "e2e5").is_none());
        let castle = Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
        let short = parse_move(&castle, "O-O").unwrap();
        assert_eq!(parse_move(&castle, "e1g1"), Some(short));
        assert_eq!(
            move_text(&castle, short, false, CastlingNotation::Chess960),
            "O-O"
        );
        assert_eq!(
            move_text(&castle, short, false, CastlingNotation::Standard),
            "e1g1"
        );
    }

    #[test]
    fn time_controls_map_to_level_st_sd_and_nps() {
        let ms = Duration::from_millis;
        let clock = SearchLimits {
            clock: Some(Clock {
                white_time: ms(90_000),
                black_time: ms(60_000),
                white_increment: ms(500),
                black_increment: ms(0),
                moves_to_go: Some(40),
            }),
            ..Default::default()
        };
        assert_eq!(
            limit_commands(&clock, Color::White, false).unwrap(),
            "level 40 1:30 0.5"
        );
        assert_eq!(
            limit_commands(&clock, Color::Black, false).unwrap(),
            "level 40 1 0"
        );
        assert_eq!(time_commands(&clock, Color::Black), "time 6000\notim 9000");
        let nodes = SearchLimits::nodes(5000);
        assert_eq!(
            limit_commands(&nodes, Color::White, true).unwrap(),
            "st 1\nnps 5000"
        );
        assert!(limit_commands(&nodes, Color::White, false)
            .unwrap_err()
            .contains("feature nps=1"));
        assert_eq!(
            limit_commands(&SearchLimits::depth(7), Color::White, false).unwrap(),
            "sd 7\nst 86400"
        );
        let movetime = SearchLimits::movetime(ms(250));
        assert_eq!(
            limit_commands(&movetime, Color::White, false).unwrap(),
            "st 0.25"
        );
        assert_eq!(time_commands(&movetime, Color::White), "time 25\notim 25");
    }

    #[test]
    fn edit_sets_up_a_position_piece_by_piece() {
        let pos = Position::from_fen("4k3/8/8/8/8/8/4P3/4K3 b - - 0 1").unwrap();
        assert_eq!(
            edit_commands(&pos, false),
            "a2a3\nedit\n#\nKe1\nPe2\nc\nKe8\n."
        );
    }
}
