//! A scriptable UCI engine for the arena tests: it plays the first legal move (by the sparring
//! board's move order) and misbehaves on request, so the runner's handling of crashes, hangs,
//! garbage, double answers, slow starts and leftover child processes can be tested without
//! putting test modes into the real engine.
//!
//! Options (all optional, combinable):
//! - `--crash-after N`    exit with status 3 when asked for move N+1
//! - `--hang-after N`     stop answering (sleep) when asked for move N+1
//! - `--illegal-after N`  answer move N+1 with a move that is not legal
//! - `--garbage-after N`  answer move N+1 with a garbage `info` line and `bestmove ~~garbage~~`
//! - `--double-bestmove`  answer every `go` with two `bestmove` lines (the second one stale)
//! - `--no-uciok`         never answer `uci` with `uciok`
//! - `--no-readyok`       never answer `isready` with `readyok`
//! - `--exit-on CMD`      exit with status 5 (saying nothing) on receiving command CMD (`uci`,
//!   `isready`, `go`...)
//! - `--bestmove TEXT`    answer every `go` with `bestmove TEXT` (e.g. `(none)` or `0000`)
//! - `--info TEXT`        send `info TEXT` before every `bestmove` (repeatable: in order); in
//!   TEXT, `{best}` is the move it plays, `{other}` another legal move, `{line3}` three plies
//!   from the position, its move first and then each side's first legal move (for PV tests)
//! - `--bare`           leave out the `info depth 1 score cp 0 nodes 1` line sent before the
//!   `--info` lines
//! - `--play-mate`        play a mating move when there is one (else the first legal move)
//! - `--report-affinity`  send `info string affinity <Cpus_allowed_list>` (its own, from
//!   /proc/self/status) before every `bestmove`
//! - `--huge-info BYTES`  send an `info string` line of BYTES bytes before every `bestmove`
//! - `--stderr-flood BYTES` write BYTES bytes to standard error on every `go` (in lines of 1 KB,
//!   then as many again with no line break), before answering
//! - `--spawn-child FILE` at start-up, start a long `sleep` child (as a wrapper script that does
//!   not `exec` would leave behind) and append its pid to FILE
//! - `--max-starts N FILE` count start-ups in FILE; exit at once (no handshake) after N of them
//! - `--option NAME`      declare a string option NAME
//! - `--declare SPEC`     declare an option by the text after `option name `, e.g.
//!   `Hash type spin default 16 min 1 max 64`
//! - `--stderr TEXT`      write TEXT to standard error on every `go`
//! - `--log FILE`         append every command received to FILE
//! - `--name TEXT`        the `id name` to give (default `mock`)
//! - `--ponder`           declare the `Ponder` option and predict the reply with every move
//!   (`bestmove M ponder P`, P the opponent's first legal move, what another mock plays); take
//!   `go ponder` silently, answering at `ponderhit` or `stop`
//! - `--ponder-miss`      as `--ponder`, predicting the opponent's last legal move instead
//! - `--ignore-stop`      never answer `stop` while pondering

use sparring::board::{Move, Position};
use std::io::{BufRead, Write};

#[derive(Default)]
struct Script {
    crash_after: Option<u64>,
    hang_after: Option<u64>,
    illegal_after: Option<u64>,
    garbage_after: Option<u64>,
    double_bestmove: bool,
    no_uciok: bool,
    no_readyok: bool,
    exit_on: Option<String>,
    bestmove: Option<String>,
    info: Vec<String>,
    huge_info: Option<usize>,
    stderr_flood: Option<usize>,
    spawn_child: Option<String>,
    max_starts: Option<(u64, String)>,
    options: Vec<String>,
    declared: Vec<String>,
    stderr: Option<String>,
    log: Option<String>,
    name: Option<String>,
    ponder: bool,
    play_mate: bool,
    bare: bool,
    report_affinity: bool,
    ponder_miss: bool,
    ignore_stop: bool,
}

fn parse_args() -> Script {
    let mut script = Script::default();
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || {
            args.next()
                .unwrap_or_else(|| panic!("{flag} needs a value"))
        };
        let mut count = || -> Option<u64> { Some(value().parse().expect("a count")) };
        match flag.as_str() {
            "--crash-after" => script.crash_after = count(),
            "--hang-after" => script.hang_after = count(),
            "--illegal-after" => script.illegal_after = count(),
            "--garbage-after" => script.garbage_after = count(),
            "--double-bestmove" => script.double_bestmove = true,
            "--no-uciok" => script.no_uciok = true,
            "--no-readyok" => script.no_readyok = true,
            "--exit-on" => script.exit_on = Some(value()),
            "--bestmove" => script.bestmove = Some(value()),
            "--info" => script.info.push(value()),
            "--huge-info" => script.huge_info = Some(value().parse().expect("a size")),
            "--stderr-flood" => script.stderr_flood = Some(value().parse().expect("a size")),
            "--spawn-child" => script.spawn_child = Some(value()),
            "--max-starts" => {
                let n = count().expect("a count");
                script.max_starts = Some((n, value()));
            }
            "--option" => script.options.push(value()),
            "--declare" => script.declared.push(value()),
            "--stderr" => script.stderr = Some(value()),
            "--log" => script.log = Some(value()),
            "--name" => script.name = Some(value()),
            "--ponder" => script.ponder = true,
            "--ponder-miss" => (script.ponder, script.ponder_miss) = (true, true),
            "--ignore-stop" => script.ignore_stop = true,
            "--play-mate" => script.play_mate = true,
            "--bare" => script.bare = true,
            "--report-affinity" => script.report_affinity = true,
            other => panic!("mock_engine: unknown argument {other}"),
        }
    }
    script
}

/// The position a `position` command describes, or None when it cannot be read.
fn parse_position(line: &str) -> Option<Position> {
    let rest = line.strip_prefix("position")?.trim();
    let (mut pos, moves) = if let Some(after) = rest.strip_prefix("startpos") {
        (Position::startpos(), after)
    } else {
        let fen_and_moves = rest.strip_prefix("fen")?.trim();
        let (fen, moves) = match fen_and_moves.split_once(" moves") {
            Some((fen, moves)) => (fen, moves),
            None => (fen_and_moves, ""),
        };
        (Position::from_fen(fen.trim()).ok()?, moves)
    };
    let moves = moves.trim().strip_prefix("moves").unwrap_or(moves);
    for text in moves.split_whitespace() {
        let mv = pos.parse_uci_move(text).ok()?;
        pos.make_move(mv);
    }
    Some(pos)
}

/// ` ponder P` for `--ponder` after `best` in `pos` (empty otherwise, or with no reply).
fn prediction(script: &Script, pos: &Position, best: &str) -> String {
    let Some(mv) = script
        .ponder
        .then(|| pos.parse_uci_move(best).ok())
        .flatten()
    else {
        return String::new();
    };
    let mut after = pos.clone();
    after.make_move(mv);
    let replies = after.legal_moves();
    let predicted = if script.ponder_miss {
        replies.iter().last()
    } else {
        replies.iter().next()
    };
    predicted.map_or(String::new(), |m| format!(" ponder {m}"))
}

/// `--info` text with `{best}`, `{other}` and `{line3}` filled in for `pos`, where the engine
/// plays `best`.
fn fill_in(text: &str, pos: &Position, best: Option<Move>) -> String {
    let name = |m: Option<Move>| m.map_or("0000".to_string(), |m| m.to_string());
    let other = pos.legal_moves().iter().copied().find(|&m| Some(m) != best);
    let mut line = Vec::new();
    let mut walk = pos.clone();
    let mut next = best;
    while let (Some(mv), true) = (next, line.len() < 3) {
        line.push(mv.to_string());
        walk.make_move(mv);
        next = walk.legal_moves().iter().next().copied();
    }
    text.replace("{best}", &name(best))
        .replace("{other}", &name(other))
        .replace("{line3}", &line.join(" "))
}

fn hang() -> ! {
    loop {
        std::thread::sleep(std::time::Duration::from_secs(3600));
    }
}

/// Writes `bytes` bytes of lines to standard error, then as many again with no line break.
fn flood_stderr(bytes: usize) {
    let mut err = std::io::stderr().lock();
    let line = format!("{}\n", "e".repeat(1023));
    for _ in 0..bytes / 1024 {
        let _ = err.write_all(line.as_bytes());
    }
    let _ = err.write_all("f".repeat(bytes).as_bytes());
    let _ = err.write_all(b"\n");
    let _ = err.flush();
}

fn main() {
    let script = parse_args();
    if let Some((allowed, file)) = &script.max_starts {
        let starts = std::fs::read_to_string(file)
            .ok()
            .and_then(|t| t.trim().parse::<u64>().ok())
            .unwrap_or(0)
            + 1;
        std::fs::write(file, starts.to_string()).expect("write the start count");
        if starts > *allowed {
            std::process::exit(1);
        }
    }
    if let Some(file) = &script.spawn_child {
        // Deliberately never waited for: it is the leftover the runner must clean up.
        #[allow(clippy::zombie_processes)]
        let child = std::process::Command::new("sleep")
            .arg("600")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("spawn sleep");
        let mut pids = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(file)
            .expect("open the pid file");
        writeln!(pids, "{}", child.id()).expect("write the child's pid");
    }
    let mut log = script.log.as_ref().map(|path| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .expect("open the log")
    });
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut position = Position::startpos();
    let mut searches = 0u64;
    // The position a `go ponder` thinks on, until `ponderhit` or `stop`.
    let mut pondering: Option<Position> = None;
    let due = |after: Option<u64>, n: u64| after.is_some_and(|a| n > a);
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        if let Some(log) = log.as_mut() {
            let _ = writeln!(log, "{line}");
        }
        let line = line.trim();
        let mut reply = String::new();
        let command = line.split_whitespace().next().unwrap_or("");
        if script.exit_on.as_deref() == Some(command) {
            std::process::exit(5);
        }
        match command {
            "uci" => {
                let name = script.name.as_deref().unwrap_or("mock");
                reply.push_str(&format!("id name {name}\nid author sparring tests\n"));
                for option in &script.options {
                    reply.push_str(&format!("option name {option} type string default x\n"));
                }
                if script.ponder {
                    reply.push_str("option name Ponder type check default false\n");
                }
                for spec in &script.declared {
                    reply.push_str(&format!("option name {spec}\n"));
                }
                if !script.no_uciok {
                    reply.push_str("uciok\n");
                }
            }
            "isready" if !script.no_readyok => reply.push_str("readyok\n"),
            "position" => position = parse_position(line).unwrap_or_else(Position::startpos),
            "go" if line.split_whitespace().nth(1) == Some("ponder") => {
                pondering = Some(position.clone());
            }
            "ponderhit" | "stop" => {
                let ignored = command == "stop" && script.ignore_stop;
                if let Some(pos) = pondering.take().filter(|_| !ignored) {
                    let best = pos.legal_moves().iter().next().copied();
                    let best = best.map_or("0000".to_string(), |m| m.to_string());
                    reply.push_str(&format!("info depth 2 score cp 7 nodes 2\nbestmove {best}"));
                    reply.push_str(&prediction(&script, &pos, &best));
                    reply.push('\n');
                }
            }
            "go" => {
                searches += 1;
                if let Some(text) = &script.stderr {
                    eprintln!("{text}");
                }
                if let Some(bytes) = script.stderr_flood {
                    flood_stderr(bytes);
                }
                let legal = position.legal_moves();
                let mating = legal.iter().copied().find(|&m| {
                    let mut after = position.clone();
                    after.make_move(m);
                    after.is_checkmate()
                });
                let first: Option<Move> = match mating.filter(|_| script.play_mate) {
                    Some(mate) => Some(mate),
                    None => legal.iter().next().copied(),
                };
                // Sent last before `bestmove`, so what they report is the final word.
                let mut extra = String::new();
                for text in &script.info {
                    let text = fill_in(text, &position, first);
                    extra.push_str(&format!("info {text}\n"));
                }
                if script.report_affinity {
                    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
                    let cpus = status
                        .lines()
                        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
                        .map_or("unknown", str::trim)
                        .to_string();
                    extra.push_str(&format!("info string affinity {cpus}\n"));
                }
                if let Some(bytes) = script.huge_info {
                    extra.push_str("info string ");
                    extra.push_str(&"x".repeat(bytes));
                    extra.push('\n');
                }
                if due(script.crash_after, searches) {
                    std::process::exit(3);
                }
                if due(script.hang_after, searches) {
                    hang();
                }
                let best = match &script.bestmove {
                    Some(text) => text.clone(),
                    None => first.map_or("0000".to_string(), |m| m.to_string()),
                };
                if due(script.garbage_after, searches) {
                    reply.push_str("info depth banana score cp\nbestmove ~~garbage~~\n");
                } else if due(script.illegal_after, searches) {
                    // A move from the first rank to the eighth is never legal in these games'
                    // middlegames for both sides at once; a1a8 with the a-file blocked is safe.
                    let illegal = ["a1a8", "h1h8", "a8a1", "h8h1"]
                        .into_iter()
                        .find(|t| position.parse_uci_move(t).is_err())
                        .unwrap_or("a1a1");
                    reply.push_str(&format!("bestmove {illegal}\n"));
                } else {
                    let default_info = if script.bare {
                        ""
                    } else {
                        "info depth 1 score cp 0 nodes 1\n"
                    };
                    reply.push_str(&format!(
                        "{default_info}{extra}bestmove {best}{}\n",
                        prediction(&script, &position, &best)
                    ));
                    if script.double_bestmove {
                        // A stale second answer: taken as the next move it would be illegal
                        // (the same from-square is empty after the first move).
                        reply.push_str(&format!("bestmove {best}\n"));
                    }
                }
            }
            "quit" => break,
            _ => {}
        }
        if !reply.is_empty() {
            // One write, so a double answer arrives in one piece.
            if out
                .write_all(reply.as_bytes())
                .and_then(|_| out.flush())
                .is_err()
            {
                break;
            }
        }
    }
}
