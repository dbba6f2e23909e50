//! The UCI front end: reads commands, keeps the position, runs searches on a worker thread so
//! that `stop`, `isready` and `quit` are answered while it thinks, and writes `info`/`bestmove`.
//! Unknown or malformed commands are reported on `info string` and otherwise ignored.

use crate::board::Position;
use crate::eval::EvalParams;
use crate::search::{Clock, SearchInfo, SearchLimits, Searcher};
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

pub const ENGINE_NAME: &str = concat!("sparring ", env!("CARGO_PKG_VERSION"));
pub const ENGINE_AUTHOR: &str = "the sparring developers";

const DEFAULT_HASH_MB: usize = 16;
const MAX_HASH_MB: usize = 65_536;
const DEFAULT_MOVE_OVERHEAD_MS: u64 = 10;

/// Output shared by the command loop and the search thread; each line is flushed at once.
#[derive(Clone)]
struct Output(Arc<Mutex<Box<dyn Write + Send>>>);

impl Output {
    fn line(&self, text: &str) {
        let mut out = self.0.lock().unwrap_or_else(|e| e.into_inner());
        // A closed pipe means the GUI is gone; there is nobody left to tell.
        let _ = writeln!(out, "{text}");
        let _ = out.flush();
    }
}

/// Deliberate misbehaviour for testing match runners (ours included): after `after` searches the
/// engine crashes, hangs, plays an illegal move or answers garbage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    pub kind: FaultKind,
    pub after: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// Exit at once with status 3.
    Crash,
    /// Stop answering anything.
    Hang,
    /// Answer a well-formed move that is not legal.
    Illegal,
    /// Answer text that is no move at all.
    Garbage,
}

impl std::str::FromStr for Fault {
    type Err = String;

    /// `crash:10`, `hang:0`, `illegal:5`, `garbage:2`.
    fn from_str(text: &str) -> Result<Fault, String> {
        let (kind, after) = text
            .split_once(':')
            .ok_or_else(|| format!("'{text}': expected MODE:N, e.g. crash:10"))?;
        let kind = match kind {
            "crash" => FaultKind::Crash,
            "hang" => FaultKind::Hang,
            "illegal" => FaultKind::Illegal,
            "garbage" => FaultKind::Garbage,
            other => {
                return Err(format!(
                    "unknown fault '{other}': crash, hang, illegal or garbage"
                ))
            }
        };
        let after = after
            .parse()
            .map_err(|_| format!("'{after}': expected a number of searches"))?;
        Ok(Fault { kind, after })
    }
}

/// The UCI engine's state between commands.
pub struct UciEngine {
    out: Output,
    position: Position,
    /// Keys of the positions before `position`, for repetition detection.
    previous_keys: Vec<u64>,
    searcher: Option<Searcher>,
    running: Option<JoinHandle<Searcher>>,
    /// The running search's stop flag, reachable while the searcher lives on its thread.
    stop_flag: Option<Arc<AtomicBool>>,
    /// Whether the running search waits for `stop` (go infinite); others end by themselves.
    running_infinite: bool,
    hash_mb: usize,
    move_overhead: Duration,
    weights: String,
    fault: Option<Fault>,
    searches: u32,
}

impl UciEngine {
    pub fn new(out: Box<dyn Write + Send>) -> UciEngine {
        UciEngine {
            out: Output(Arc::new(Mutex::new(out))),
            position: Position::startpos(),
            previous_keys: Vec::new(),
            searcher: Some(Searcher::new(
                Arc::new(EvalParams::default()),
                DEFAULT_HASH_MB,
            )),
            running: None,
            stop_flag: None,
            running_infinite: false,
            hash_mb: DEFAULT_HASH_MB,
            move_overhead: Duration::from_millis(DEFAULT_MOVE_OVERHEAD_MS),
            weights: String::new(),
            fault: None,
            searches: 0,
        }
    }

    /// Makes the engine misbehave on purpose (see `Fault`).
    pub fn set_fault(&mut self, fault: Option<Fault>) {
        self.fault = fault;
    }

    /// Acts out the fault if its time has come; true if the search must not run.
    fn misbehave(&mut self) -> bool {
        self.searches += 1;
        let Some(fault) = self.fault else {
            return false;
        };
        if self.searches <= fault.after {
            return false;
        }
        match fault.kind {
            FaultKind::Crash => std::process::exit(3),
            FaultKind::Hang => loop {
                std::thread::sleep(Duration::from_secs(3600));
            },
            FaultKind::Illegal => {
                let legal = self.position.legal_moves();
                let illegal = (0..64 * 64)
                    .map(|i| {
                        let from = crate::board::Square::from_index(i / 64);
                        let to = crate::board::Square::from_index(i % 64);
                        format!("{from}{to}")
                    })
                    .find(|text| {
                        text[..2] != text[2..] && !legal.iter().any(|m| m.to_string() == *text)
                    })
                    .unwrap_or_else(|| "a1a2".to_string());
                self.out.line(&format!("bestmove {illegal}"));
            }
            FaultKind::Garbage => {
                self.out.line("info depth banana score cp");
                self.out.line("bestmove ~~garbage~~");
            }
        }
        true
    }

    /// Starts with the weights file at `path` instead of the built-in defaults.
    pub fn with_weights(out: Box<dyn Write + Send>, path: &str) -> Result<UciEngine, String> {
        let mut engine = UciEngine::new(out);
        engine.load_weights(path)?;
        Ok(engine)
    }

    /// Reads commands until `quit` or the end of the input.
    pub fn run(&mut self, input: impl BufRead) {
        for line in input.lines() {
            let Ok(line) = line else { break };
            if !self.handle(&line) {
                break;
            }
        }
        self.finish_search(true);
    }

    /// Handles one command line; false on `quit`.
    pub fn handle(&mut self, line: &str) -> bool {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let Some(&command) = tokens.first() else {
            return true;
        };
        let args = &tokens[1..];
        match command {
            "uci" => self.identify(),
            "isready" => self.out.line("readyok"),
            "ucinewgame" => {
                self.finish_search(self.running_infinite);
                if let Some(s) = self.searcher.as_mut() {
                    s.clear();
                }
            }
            "setoption" => {
                self.finish_search(self.running_infinite);
                self.set_option(args);
            }
            "position" => {
                self.finish_search(self.running_infinite);
                self.set_position(args);
            }
            "go" => {
                self.finish_search(self.running_infinite);
                self.go(args);
            }
            "stop" => self.finish_search(true),
            "ponderhit" => {}
            "quit" => return false,
            "debug" | "register" => {}
            "d" => self.out.line(&format!(
                "info string fen {} key {:016x}",
                self.position.to_fen(),
                self.position.key()
            )),
            _ => self
                .out
                .line(&format!("info string unknown command: {}", line.trim())),
        }
        true
    }

    fn identify(&self) {
        self.out.line(&format!("id name {ENGINE_NAME}"));
        self.out.line(&format!("id author {ENGINE_AUTHOR}"));
        self.out.line(&format!(
            "option name Hash type spin default {DEFAULT_HASH_MB} min 1 max {MAX_HASH_MB}"
        ));
        self.out
            .line("option name Threads type spin default 1 min 1 max 1");
        self.out.line(&format!(
            "option name Move Overhead type spin default {DEFAULT_MOVE_OVERHEAD_MS} min 0 max 5000"
        ));
        self.out
            .line("option name Weights type string default <builtin>");
        self.out.line("option name Clear Hash type button");
        self.out.line("uciok");
    }

    /// Waits for a running search; with `stop`, asks it to finish first. Commands that change
    /// the engine's state wait for a finite search rather than cut it short.
    fn finish_search(&mut self, stop: bool) {
        if let Some(handle) = self.running.take() {
            if stop {
                if let Some(flag) = &self.stop_flag {
                    flag.store(true, Ordering::Relaxed);
                }
            }
            match handle.join() {
                Ok(searcher) => self.searcher = Some(searcher),
                Err(_) => {
                    self.out
                        .line("info string search thread panicked; starting afresh");
                    self.searcher = Some(self.new_searcher(Arc::new(EvalParams::default())));
                }
            }
        }
    }

    fn new_searcher(&self, params: Arc<EvalParams>) -> Searcher {
        Searcher::new(params, self.hash_mb)
    }

    fn load_weights(&mut self, path: &str) -> Result<(), String> {
        let params = if path.is_empty() || path == "<builtin>" {
            EvalParams::default()
        } else {
            EvalParams::load(path).map_err(|e| e.to_string())?
        };
        if let Some(s) = self.searcher.as_mut() {
            s.set_params(Arc::new(params));
        }
        self.weights = path.to_string();
        Ok(())
    }

    fn set_option(&mut self, args: &[&str]) {
        // setoption name <name with spaces> [value <value with spaces>]
        let name_at = args.iter().position(|&t| t == "name");
        let value_at = args.iter().position(|&t| t == "value");
        let Some(name_at) = name_at else {
            self.out
                .line("info string malformed setoption: expected 'name'");
            return;
        };
        let name_end = value_at.unwrap_or(args.len());
        let name = args[name_at + 1..name_end].join(" ");
        let value = value_at
            .map(|v| args[v + 1..].join(" "))
            .unwrap_or_default();
        match name.to_ascii_lowercase().as_str() {
            "hash" => match value.parse::<usize>() {
                Ok(mb) if (1..=MAX_HASH_MB).contains(&mb) => {
                    self.hash_mb = mb;
                    if let Some(s) = self.searcher.as_mut() {
                        s.set_hash_mb(mb);
                    }
                }
                _ => self.out.line(&format!(
                    "info string bad Hash value '{value}': expected 1 to {MAX_HASH_MB}"
                )),
            },
            "threads" => {
                if value != "1" {
                    self.out
                        .line("info string only Threads 1 is supported; keeping 1");
                }
            }
            "move overhead" => match value.parse::<u64>() {
                Ok(ms) if ms <= 5000 => self.move_overhead = Duration::from_millis(ms),
                _ => self.out.line(&format!(
                    "info string bad Move Overhead value '{value}': expected 0 to 5000"
                )),
            },
            "weights" => {
                if let Err(e) = self.load_weights(&value) {
                    self.out
                        .line(&format!("info string cannot load weights: {e}"));
                }
            }
            "clear hash" => {
                if let Some(s) = self.searcher.as_mut() {
                    s.clear();
                }
            }
            _ => self
                .out
                .line(&format!("info string unknown option '{name}'")),
        }
    }

    fn set_position(&mut self, args: &[&str]) {
        let moves_at = args.iter().position(|&t| t == "moves");
        let setup = &args[..moves_at.unwrap_or(args.len())];
        let start = match setup.first() {
            Some(&"startpos") => Ok(Position::startpos()),
            Some(&"fen") => Position::from_fen_lenient(&setup[1..].join(" "))
                .map_err(|e| format!("bad FEN: {e}")),
            _ => Err("expected 'startpos' or 'fen'".to_string()),
        };
        let mut pos = match start {
            Ok(pos) => pos,
            Err(e) => {
                self.out
                    .line(&format!("info string malformed position: {e}"));
                return;
            }
        };
        let mut keys = Vec::new();
        if let Some(at) = moves_at {
            for text in &args[at + 1..] {
                match pos.parse_uci_move(text) {
                    Ok(mv) => {
                        keys.push(pos.key());
                        pos.make_move(mv);
                    }
                    Err(_) => {
                        self.out.line(&format!(
                            "info string illegal move '{text}' in position command; ignoring it and the moves after it"
                        ));
                        break;
                    }
                }
            }
        }
        self.position = pos;
        self.previous_keys = keys;
    }

    fn go(&mut self, args: &[&str]) {
        let limits = match parse_go(args, self.move_overhead) {
            Ok(limits) => limits,
            Err(e) => {
                self.out.line(&format!("info string malformed go: {e}"));
                return;
            }
        };
        if self.misbehave() {
            return;
        }
        let Some(mut searcher) = self.searcher.take() else {
            return;
        };
        // Cleared here, not on the search thread, so a `stop` sent right after `go` is not lost.
        let flag = searcher.stop_handle();
        flag.store(false, Ordering::Relaxed);
        self.stop_flag = Some(flag);
        self.running_infinite = limits.infinite;
        let out = self.out.clone();
        let position = self.position.clone();
        let keys = self.previous_keys.clone();
        self.running = Some(std::thread::spawn(move || {
            let result = searcher.search(&position, &keys, &limits, |info| {
                out.line(&info_line(info));
            });
            let mut line = format!("bestmove {}", result.best_move);
            if let Some(ponder) = result.ponder {
                line.push_str(&format!(" ponder {ponder}"));
            }
            out.line(&line);
            searcher
        }));
    }
}

/// Parses the arguments of `go`.
pub fn parse_go(args: &[&str], move_overhead: Duration) -> Result<SearchLimits, String> {
    let mut limits = SearchLimits {
        move_overhead,
        ..Default::default()
    };
    let mut clock = Clock::default();
    let mut has_clock = false;
    let mut i = 0;
    while i < args.len() {
        let key = args[i];
        let mut number = || -> Result<u64, String> {
            i += 1;
            let text = args
                .get(i)
                .ok_or_else(|| format!("'{key}' needs a value"))?;
            // Some GUIs send negative clock times when a player is already over time.
            text.parse::<i64>()
                .map(|v| v.max(0) as u64)
                .map_err(|_| format!("'{key}' expects a number, found '{text}'"))
        };
        match key {
            "depth" => limits.depth = Some(number()?.max(1) as u32),
            "nodes" => limits.nodes = Some(number()?.max(1)),
            "movetime" => limits.movetime = Some(Duration::from_millis(number()?)),
            "mate" => limits.depth = Some((2 * number()? as u32).max(1)),
            "wtime" => {
                clock.white_time = Duration::from_millis(number()?);
                has_clock = true;
            }
            "btime" => {
                clock.black_time = Duration::from_millis(number()?);
                has_clock = true;
            }
            "winc" => clock.white_increment = Duration::from_millis(number()?),
            "binc" => clock.black_increment = Duration::from_millis(number()?),
            "movestogo" => clock.moves_to_go = Some(number()? as u32),
            "infinite" => limits.infinite = true,
            "ponder" => {}
            "searchmoves" => return Err("searchmoves is not supported".to_string()),
            other => return Err(format!("unknown parameter '{other}'")),
        }
        i += 1;
    }
    if has_clock {
        limits.clock = Some(clock);
    }
    Ok(limits)
}

/// An `info` line for a completed iteration.
pub fn info_line(info: &SearchInfo) -> String {
    let pv: Vec<String> = info.pv.iter().map(|m| m.to_string()).collect();
    format!(
        "info depth {} seldepth {} score {} nodes {} nps {} hashfull {} time {} pv {}",
        info.depth,
        info.seldepth,
        info.score,
        info.nodes,
        info.nps(),
        info.hashfull,
        info.time.as_millis(),
        pv.join(" ")
    )
}
