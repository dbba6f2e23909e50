//! The UCI front end: reads commands, keeps the position, runs searches on a worker thread so
//! that `stop`, `ponderhit`, `isready` and `quit` are answered while it thinks, and writes
//! `info`/`bestmove`. Every `go` gets exactly one `bestmove`. Unknown or malformed input is
//! reported on `info string` and otherwise ignored; nothing a GUI sends ends the engine but
//! `quit` or the end of the input.

use crate::board::{FenError, Move, MoveParseError, Position};
use crate::eval::{EvalParams, WeightsError};
use crate::search::{
    max_hash_mb, Clock, RootMove, SearchInfo, SearchLimits, SearchParams, Searcher,
};
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

mod tunable;
pub use tunable::openbench_lines;

/// The author the engine gives in `id author`.
pub const ENGINE_AUTHOR: &str = "the sparring developers";

const DEFAULT_HASH_MB: usize = 16;
const DEFAULT_MOVE_OVERHEAD_MS: u64 = 10;
const MAX_MOVE_OVERHEAD_MS: u64 = 5000;
/// More principal variations than any position has legal moves is pointless.
const MAX_MULTIPV: usize = 256;
/// Root moves are announced (`currmove`) only once a search has run this long, as Stockfish
/// does, so that short searches stay quiet.
const CURRMOVE_AFTER: Duration = Duration::from_secs(1);

/// Why the engine cannot start or go on.
#[derive(Debug, thiserror::Error)]
pub enum UciError {
    /// The weights file given at start cannot be used.
    #[error("cannot load weights: {0}")]
    Weights(#[from] WeightsError),
    /// Standard input failed (not: a line that is not UTF-8, which is skipped).
    #[error("cannot read commands: {0}")]
    Input(#[source] std::io::Error),
}

/// Why a `position` command was refused; the engine then has no position until the next valid
/// one, and `go` answers `bestmove 0000`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// Neither `startpos` nor `fen` follows `position`.
    #[error("expected 'startpos' or 'fen'")]
    MissingSetup,
    /// `position fen` with nothing after it.
    #[error("'position fen' needs a FEN")]
    MissingFen,
    /// The FEN does not parse.
    #[error("bad FEN: {0}")]
    BadFen(#[from] FenError),
    /// A move of the `moves` list is malformed or illegal.
    #[error("move {number} of the move list: {source}")]
    BadMove {
        /// 1 for the first move after `moves`.
        number: usize,
        /// Why the move text was refused.
        #[source]
        source: MoveParseError,
    },
}

/// A part of `go` that was ignored; reported on `info string`, the search runs regardless.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GoWarning {
    /// A parameter that takes a value came last or before another parameter.
    #[error("'{key}' needs a value; ignored")]
    MissingValue {
        /// The parameter, e.g. `depth`.
        key: String,
    },
    /// A value that is not a whole number, or too large for the parameter.
    #[error("'{key}' expects a whole number in range, found '{text}'; ignored")]
    BadNumber {
        /// The parameter, e.g. `nodes`.
        key: String,
        /// The value as given.
        text: String,
    },
    /// A number with a fraction where a whole number belongs: the fraction is dropped.
    #[error("'{key}' expects a whole number, found '{text}'; using {whole}")]
    Fraction {
        /// The parameter, e.g. `wtime`.
        key: String,
        /// The value as given.
        text: String,
        /// The whole part, which is used.
        whole: i128,
    },
    /// A token that is no `go` parameter.
    #[error("unknown go parameter '{token}'; ignored")]
    Unknown {
        /// The word as given.
        token: String,
    },
    /// A `searchmoves` entry that is not a legal move in the position.
    #[error("searchmoves: {0}; ignored")]
    BadSearchMove(MoveParseError),
    /// `searchmoves` named no legal move at all.
    #[error("no legal move among the searchmoves; searching every move")]
    NoSearchMoves,
}

/// A parsed `go` command. `limits.searchmoves` is empty: the move texts need the position.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GoCommand {
    /// The limits understood (MultiPV and searchmoves are filled in by the engine).
    pub limits: SearchLimits,
    /// `go ponder`: search without time limits until `ponderhit` or `stop`.
    pub ponder: bool,
    /// The `searchmoves` texts, in order.
    pub searchmoves: Vec<String>,
    /// What was ignored, in order.
    pub warnings: Vec<GoWarning>,
}

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

/// The search running on its own thread, and how to reach it.
struct RunningSearch {
    /// The searcher comes back when the search ends; `None` when the search panicked (it was
    /// answered with a fallback `bestmove`, and the engine builds a new searcher).
    handle: JoinHandle<Option<Searcher>>,
    stop: Arc<AtomicBool>,
    ponder: Arc<AtomicBool>,
    /// `go infinite`, or `go` without limits: ends only on `stop`.
    infinite: bool,
    /// `go ponder` before its `ponderhit`: ends only on `stop` or `ponderhit`.
    pondering: bool,
}

/// The UCI engine's state between commands.
pub struct UciEngine {
    out: Output,
    /// The position to search, or why the last `position` command was refused.
    position: Result<Position, PositionError>,
    /// Keys of the positions before `position`, for repetition detection.
    previous_keys: Vec<u64>,
    /// The searcher while no search runs (it lives on the search thread meanwhile).
    searcher: Option<Searcher>,
    running: Option<RunningSearch>,
    params: Arc<EvalParams>,
    /// The search constants configured (`--search FILE`, the tunable options): kept here as
    /// well as in the searcher, so a searcher rebuilt after a panic keeps them.
    search_params: SearchParams,
    hash_mb: usize,
    /// The largest Hash this machine can have, advertised in the option's `max`.
    max_hash_mb: usize,
    move_overhead: Duration,
    multipv: usize,
    /// `UCI_Chess960`: castling is read and written king takes own rook (`e1h1`).
    chess960: bool,
    /// Whether the search constants are UCI options (`sparring uci --tunable`).
    tunable: bool,
    /// Tests: the next search thread panics, to test the recovery deterministically.
    #[cfg(test)]
    panic_next_search: bool,
}

impl UciEngine {
    /// An engine with the built-in weights writing to `out`.
    pub fn new(out: Box<dyn Write + Send>) -> UciEngine {
        UciEngine::with_params(out, EvalParams::default())
    }

    /// An engine with the evaluation weights `params`.
    pub fn with_params(out: Box<dyn Write + Send>, params: EvalParams) -> UciEngine {
        let params = Arc::new(params);
        UciEngine {
            out: Output(Arc::new(Mutex::new(out))),
            position: Ok(Position::startpos()),
            previous_keys: Vec::new(),
            searcher: Some(Searcher::new(params.clone(), DEFAULT_HASH_MB)),
            running: None,
            params,
            search_params: SearchParams::default(),
            hash_mb: DEFAULT_HASH_MB,
            max_hash_mb: max_hash_mb().max(DEFAULT_HASH_MB),
            move_overhead: Duration::from_millis(DEFAULT_MOVE_OVERHEAD_MS),
            multipv: 1,
            chess960: false,
            tunable: false,
            #[cfg(test)]
            panic_next_search: false,
        }
    }

    /// Starts with the weights file at `path` instead of the built-in defaults.
    pub fn with_weights(
        out: Box<dyn Write + Send>,
        path: &std::path::Path,
    ) -> Result<UciEngine, UciError> {
        Ok(UciEngine::with_params(out, EvalParams::load(path)?))
    }

    /// Reads commands until `quit` or the end of the input; a search still running is stopped
    /// and answered first. A line that is not UTF-8 is skipped with an `info string`; only a
    /// failing input is an error.
    pub fn run(&mut self, mut input: impl BufRead) -> Result<(), UciError> {
        let mut line = Vec::new();
        let outcome = loop {
            line.clear();
            match input.read_until(b'\n', &mut line) {
                Ok(0) => break Ok(()),
                Ok(_) => {}
                Err(e) => break Err(UciError::Input(e)),
            }
            match std::str::from_utf8(&line) {
                Ok(text) => {
                    if !self.handle(text) {
                        break Ok(());
                    }
                }
                Err(_) => self
                    .out
                    .line("info string skipped an input line that is not UTF-8"),
            }
        };
        self.finish_search(true);
        outcome
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
                self.finish_search(self.search_waits());
                if let Some(s) = self.searcher.as_mut() {
                    s.clear();
                }
            }
            "setoption" => {
                self.finish_search(self.search_waits());
                self.set_option(args);
            }
            "position" => {
                self.finish_search(self.search_waits());
                self.set_position(args);
            }
            "go" => {
                self.finish_search(self.search_waits());
                self.go(args);
            }
            "stop" => self.finish_search(true),
            "ponderhit" => {
                if let Some(running) = self.running.as_mut() {
                    running.ponder.store(false, Ordering::Relaxed);
                    running.pondering = false;
                }
            }
            "quit" => return false,
            "debug" | "register" => {}
            "d" => match &self.position {
                Ok(pos) => self.out.line(&format!(
                    "info string fen {} key {:016x}",
                    pos.to_fen(),
                    pos.key()
                )),
                Err(e) => self.out.line(&format!("info string no position: {e}")),
            },
            _ => self
                .out
                .line(&format!("info string unknown command: {}", line.trim())),
        }
        true
    }

    fn identify(&self) {
        self.out.line(&format!("id name {}", crate::ENGINE_NAME));
        self.out.line(&format!("id author {ENGINE_AUTHOR}"));
        self.out.line(&format!(
            "option name Hash type spin default {DEFAULT_HASH_MB} min 1 max {}",
            self.max_hash_mb
        ));
        self.out
            .line("option name Threads type spin default 1 min 1 max 1");
        self.out.line(&format!(
            "option name MultiPV type spin default 1 min 1 max {MAX_MULTIPV}"
        ));
        self.out.line(&format!(
            "option name Move Overhead type spin default {DEFAULT_MOVE_OVERHEAD_MS} min 0 max {MAX_MOVE_OVERHEAD_MS}"
        ));
        self.out
            .line("option name Weights type string default <builtin>");
        self.out.line("option name Clear Hash type button");
        self.out
            .line("option name UCI_Chess960 type check default false");
        self.declare_tunable();
        self.out.line("uciok");
    }

    /// Whether the running search ends only when told (`go infinite`, or `go ponder` before
    /// `ponderhit`): commands that change the engine's state stop such a search, but wait for a
    /// finite one rather than cut it short.
    fn search_waits(&self) -> bool {
        self.running
            .as_ref()
            .is_some_and(|r| r.infinite || r.pondering)
    }

    /// Waits for a running search; with `stop`, asks it to finish first.
    fn finish_search(&mut self, stop: bool) {
        if let Some(running) = self.running.take() {
            if stop {
                running.stop.store(true, Ordering::Relaxed);
            }
            match running.handle.join() {
                Ok(Some(searcher)) => self.searcher = Some(searcher),
                // The thread said so and answered the `go` already.
                Ok(None) => self.searcher = Some(self.fresh_searcher()),
                Err(_) => {
                    self.out
                        .line("info string search thread panicked; starting afresh");
                    self.searcher = Some(self.fresh_searcher());
                }
            }
        }
    }

    /// A new searcher with everything configured: the weights, the search constants and the
    /// hash size in use (not the defaults), so a restart after a panic changes no setting.
    fn fresh_searcher(&self) -> Searcher {
        let mut searcher = Searcher::try_new(self.params.clone(), self.hash_mb)
            .unwrap_or_else(|_| Searcher::new(self.params.clone(), DEFAULT_HASH_MB));
        searcher.set_search_params(self.search_params.clone());
        searcher
    }

    fn load_weights(&mut self, path: &str) -> Result<(), WeightsError> {
        let params = if is_builtin_weights(path) {
            EvalParams::default()
        } else {
            EvalParams::load(path)?
        };
        self.params = Arc::new(params);
        if let Some(s) = self.searcher.as_mut() {
            s.set_params(self.params.clone());
        }
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
        let name_end = value_at.unwrap_or(args.len()).max(name_at + 1);
        let name = args[name_at + 1..name_end].join(" ");
        let value = value_at
            .map(|v| args[v + 1..].join(" "))
            .unwrap_or_default();
        match name.to_ascii_lowercase().as_str() {
            "hash" => self.set_hash(&value),
            "threads" => {
                if value != "1" {
                    self.out
                        .line("info string only Threads 1 is supported; keeping 1");
                }
            }
            "multipv" => match value.parse::<usize>() {
                Ok(n) if (1..=MAX_MULTIPV).contains(&n) => self.multipv = n,
                _ => self.out.line(&format!(
                    "info string bad MultiPV value '{value}': expected 1 to {MAX_MULTIPV}"
                )),
            },
            "move overhead" => match value.parse::<u64>() {
                Ok(ms) if ms <= MAX_MOVE_OVERHEAD_MS => {
                    self.move_overhead = Duration::from_millis(ms)
                }
                _ => self.out.line(&format!(
                    "info string bad Move Overhead value '{value}': expected 0 to {MAX_MOVE_OVERHEAD_MS}"
                )),
            },
            // A device or directory would block the engine reading it (/dev/zero never ends).
            "weights"
                if !is_builtin_weights(&value)
                    && std::fs::metadata(&value).is_ok_and(|m| !m.is_file()) =>
            {
                self.out.line(&format!(
                    "info string cannot load weights: {value}: not a file; keeping the current weights"
                ))
            }
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
            "uci_chess960" => match value.to_ascii_lowercase().as_str() {
                "true" => self.chess960 = true,
                "false" => self.chess960 = false,
                _ => self.out.line(&format!(
                    "info string bad UCI_Chess960 value '{value}': expected true or false"
                )),
            },
            other if self.set_tunable_option(other, &value) => {}
            _ => self
                .out
                .line(&format!("info string unknown option '{name}'")),
        }
    }

    /// A new table of the size asked for; on any failure the old table stays.
    fn set_hash(&mut self, value: &str) {
        let keeping = self.hash_mb;
        let max = self.max_hash_mb;
        let mb = match value.parse::<usize>() {
            Ok(mb) if (1..=max).contains(&mb) => mb,
            _ => {
                return self.out.line(&format!(
                "info string bad Hash value '{value}': expected 1 to {max}; keeping {keeping} MB"
            ))
            }
        };
        let Some(searcher) = self.searcher.as_mut() else {
            return;
        };
        match searcher.try_set_hash_mb(mb) {
            Ok(()) => self.hash_mb = mb,
            Err(e) => self
                .out
                .line(&format!("info string {e}; keeping {keeping} MB")),
        }
    }

    fn set_position(&mut self, args: &[&str]) {
        self.previous_keys.clear();
        self.position = parse_position(args, &mut self.previous_keys);
        if let Err(e) = &self.position {
            self.out.line(&format!("info string position refused: {e}"));
        }
    }

    fn go(&mut self, args: &[&str]) {
        let GoCommand {
            mut limits,
            ponder,
            searchmoves,
            mut warnings,
        } = parse_go(args, self.move_overhead);
        let position = match &self.position {
            Ok(pos) => pos.clone(),
            Err(e) => {
                for warning in &warnings {
                    self.out.line(&format!("info string go: {warning}"));
                }
                self.out
                    .line(&format!("info string no position to search: {e}"));
                self.out.line("bestmove 0000");
                return;
            }
        };
        for text in &searchmoves {
            match position.parse_uci_move(text) {
                Ok(mv) => limits.searchmoves.push(mv),
                Err(e) => warnings.push(GoWarning::BadSearchMove(e)),
            }
        }
        if !searchmoves.is_empty() && limits.searchmoves.is_empty() {
            warnings.push(GoWarning::NoSearchMoves);
        }
        for warning in &warnings {
            self.out.line(&format!("info string go: {warning}"));
        }
        limits.multipv = self.multipv;
        let Some(mut searcher) = self.searcher.take() else {
            // Unreachable: the searcher is back from every finished search.
            self.out.line("info string no searcher available");
            self.out.line("bestmove 0000");
            return;
        };
        // Set here, not on the search thread, so a `stop` or `ponderhit` sent right after `go`
        // is not lost.
        let stop = searcher.stop_handle();
        stop.store(false, Ordering::Relaxed);
        let ponder_flag = searcher.ponder_handle();
        ponder_flag.store(ponder, Ordering::Relaxed);
        let started = Instant::now();
        let announcer = self.out.clone();
        let chess960 = self.chess960;
        let root_position = position.clone();
        searcher.set_root_move_listener(Some(Box::new(move |root: &RootMove| {
            if started.elapsed() >= CURRMOVE_AFTER {
                announcer.line(&format!(
                    "info depth {} currmove {} currmovenumber {}",
                    root.depth,
                    root_position.uci(root.mv, chess960),
                    root.number
                ));
            }
        })));
        let out = self.out.clone();
        let keys = self.previous_keys.clone();
        let show_multipv = self.multipv > 1;
        // A search without any limit (`go` alone) ends only when told, like `go infinite`.
        let infinite = limits.infinite
            || (limits.depth.is_none()
                && limits.nodes.is_none()
                && limits.movetime.is_none()
                && limits.clock.is_none());
        #[cfg(test)]
        let panic_in_search = std::mem::take(&mut self.panic_next_search);
        let spawned = std::thread::Builder::new()
            .name("search".into())
            .stack_size(crate::search::SEARCH_THREAD_STACK)
            .spawn(move || {
                let searched = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    #[cfg(test)]
                    if panic_in_search {
                        panic!("test hook: the search panics");
                    }
                    searcher.search(&position, &keys, &limits, |info| {
                        out.line(&info_line_in(info, show_multipv, &position, chess960));
                    })
                }));
                match searched {
                    Ok(result) => {
                        out.line(&bestmove_line_in(
                            result.best_move,
                            result.ponder,
                            &position,
                            chess960,
                        ));
                        Some(searcher)
                    }
                    // Every `go` gets its `bestmove`, even now: a legal move keeps the game going.
                    Err(_) => {
                        out.line("info string search thread panicked; starting afresh");
                        let fallback = position.legal_moves().iter().next().copied();
                        out.line(&match fallback {
                            Some(mv) => bestmove_line_in(mv, None, &position, chess960),
                            None => "bestmove 0000".to_string(),
                        });
                        None
                    }
                }
            });
        // As `std::thread::spawn` does, a thread that cannot be made is fatal.
        let handle = spawned.expect("the search thread starts");
        self.running = Some(RunningSearch {
            handle,
            stop,
            ponder: ponder_flag,
            infinite,
            pondering: ponder,
        });
    }
}

/// Whether a `Weights` value names the built-in weights (empty or `<builtin>`).
fn is_builtin_weights(value: &str) -> bool {
    value.is_empty() || value == "<builtin>"
}

/// Parses the arguments of `position`; `keys` receives the keys of the positions before the
/// result, for repetition detection.
pub fn parse_position(args: &[&str], keys: &mut Vec<u64>) -> Result<Position, PositionError> {
    let moves_at = args.iter().position(|&t| t == "moves");
    let setup = &args[..moves_at.unwrap_or(args.len())];
    let mut pos = match setup.first() {
        Some(&"startpos") => Position::startpos(),
        Some(&"fen") if setup.len() == 1 => return Err(PositionError::MissingFen),
        Some(&"fen") => Position::from_fen_lenient(&setup[1..].join(" "))?,
        _ => return Err(PositionError::MissingSetup),
    };
    if let Some(at) = moves_at {
        for (i, text) in args[at + 1..].iter().enumerate() {
            let mv = pos
                .parse_uci_move(text)
                .map_err(|source| PositionError::BadMove {
                    number: i + 1,
                    source,
                })?;
            keys.push(pos.key());
            pos.make_move(mv);
        }
    }
    Ok(pos)
}

/// Every word `go` knows; a value never is one of them.
const GO_KEYWORDS: [&str; 12] = [
    "searchmoves",
    "ponder",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "depth",
    "nodes",
    "mate",
    "movetime",
    "infinite",
];

/// Parses the arguments of `go`. Never fails: what cannot be used becomes a warning and is
/// ignored, so that every `go` is answered.
pub fn parse_go(args: &[&str], move_overhead: Duration) -> GoCommand {
    let mut command = GoCommand {
        limits: SearchLimits {
            move_overhead,
            ..Default::default()
        },
        ..Default::default()
    };
    let limits = &mut command.limits;
    let mut clock = Clock::default();
    let mut has_clock = false;
    let mut i = 0;
    while i < args.len() {
        let key = args[i];
        i += 1;
        match key {
            "infinite" => limits.infinite = true,
            "ponder" => command.ponder = true,
            "searchmoves" => {
                while i < args.len() && !GO_KEYWORDS.contains(&args[i]) {
                    command.searchmoves.push(args[i].to_string());
                    i += 1;
                }
            }
            "wtime" | "btime" | "winc" | "binc" | "movestogo" | "depth" | "nodes" | "mate"
            | "movetime" => {
                let Some(&text) = args.get(i).filter(|t| !GO_KEYWORDS.contains(t)) else {
                    command.warnings.push(GoWarning::MissingValue {
                        key: key.to_string(),
                    });
                    continue;
                };
                i += 1;
                // Some GUIs send negative clock times when a player is already over time.
                let value = match parse_whole(text) {
                    Some((whole, false)) => Some(whole),
                    Some((whole, true)) => {
                        command.warnings.push(GoWarning::Fraction {
                            key: key.to_string(),
                            text: text.to_string(),
                            whole,
                        });
                        Some(whole)
                    }
                    None => None,
                }
                .map(|v| v.max(0));
                let ms = || {
                    value
                        .and_then(|v| u64::try_from(v).ok())
                        .map(Duration::from_millis)
                };
                let count = || value.and_then(|v| u32::try_from(v).ok());
                let understood = match key {
                    "wtime" => ms().map(|t| clock.white_time = t),
                    "btime" => ms().map(|t| clock.black_time = t),
                    "winc" => ms().map(|t| clock.white_increment = t),
                    "binc" => ms().map(|t| clock.black_increment = t),
                    "movestogo" => count().map(|n| clock.moves_to_go = Some(n)),
                    "depth" => count().map(|d| limits.depth = Some(d.max(1))),
                    "mate" => count().map(|n| limits.depth = Some(n.saturating_mul(2).max(1))),
                    "movetime" => ms().map(|t| limits.movetime = Some(t)),
                    _ => value
                        .and_then(|v| u64::try_from(v).ok())
                        .map(|n| limits.nodes = Some(n.max(1))),
                };
                match understood {
                    Some(()) => has_clock |= matches!(key, "wtime" | "btime"),
                    None => command.warnings.push(GoWarning::BadNumber {
                        key: key.to_string(),
                        text: text.to_string(),
                    }),
                }
            }
            other => command.warnings.push(GoWarning::Unknown {
                token: other.to_string(),
            }),
        }
    }
    if has_clock {
        limits.clock = Some(clock);
    }
    command
}

/// A whole number, or a decimal one cut to its whole part (true when a fraction was dropped).
fn parse_whole(text: &str) -> Option<(i128, bool)> {
    if let Ok(whole) = text.parse::<i128>() {
        return Some((whole, false));
    }
    let (whole, fraction) = text.split_once('.')?;
    if whole.is_empty() || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((whole.parse().ok()?, true))
}

/// An `info` line for a completed iteration (with `multipv k` when several lines are shown), or
/// `info depth 0 score ...` for a root without moves.
pub fn info_line(info: &SearchInfo, show_multipv: bool) -> String {
    info_line_in(info, show_multipv, &Position::startpos(), false)
}

/// `info_line` for a search from `root`, with castling in the `UCI_Chess960` form when
/// `chess960` is on (the principal variation is replayed to find each castling rook).
pub fn info_line_in(
    info: &SearchInfo,
    show_multipv: bool,
    root: &Position,
    chess960: bool,
) -> String {
    if info.depth == 0 {
        return format!("info depth 0 score {}", info.score);
    }
    let pv = line_text(root, &info.pv, chess960);
    let multipv = if show_multipv {
        format!(" multipv {}", info.multipv)
    } else {
        String::new()
    };
    format!(
        "info depth {} seldepth {}{multipv} score {} nodes {} nps {} hashfull {} time {} pv {}",
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

/// The UCI texts of a line of moves from `root` (replayed: a castling text names its rook).
fn line_text(root: &Position, line: &[Move], chess960: bool) -> Vec<String> {
    let mut pos = root.clone();
    let mut texts = Vec::with_capacity(line.len());
    for &mv in line {
        // A line from the search is legal; stop at anything else rather than corrupt `pos`.
        if !pos.is_legal(mv) {
            break;
        }
        texts.push(pos.uci(mv, chess960));
        pos.make_move(mv);
    }
    texts
}

/// `bestmove_line` from `root`, with castling in the `UCI_Chess960` form when `chess960` is on.
fn bestmove_line_in(best: Move, ponder: Option<Move>, root: &Position, chess960: bool) -> String {
    if best.is_null() {
        return bestmove_line(best, ponder);
    }
    let mut line = vec![best];
    line.extend(ponder);
    let texts = line_text(root, &line, chess960);
    match &texts[..] {
        [best, ponder] => format!("bestmove {best} ponder {ponder}"),
        [best] => format!("bestmove {best}"),
        _ => bestmove_line(best, ponder),
    }
}

/// `bestmove <move> [ponder <move>]`; `bestmove 0000` when the root has no move.
fn bestmove_line(best: Move, ponder: Option<Move>) -> String {
    match ponder {
        Some(ponder) if !best.is_null() => format!("bestmove {best} ponder {ponder}"),
        _ => format!("bestmove {best}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Output the test reads back while the engine still holds its writer.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Captured {
        fn lines(&self) -> Vec<String> {
            String::from_utf8(self.0.lock().unwrap().clone())
                .unwrap()
                .lines()
                .map(str::to_string)
                .collect()
        }
    }

    /// A search thread that panics is answered with a legal `bestmove`, and the searcher built
    /// in its place keeps the configured search constants, weights and hash size (it used to
    /// start over with the built-in search constants, losing `--search FILE` and setoption).
    #[test]
    fn a_panicked_search_restarts_with_the_configured_settings() {
        let out = Captured::default();
        let mut weights = EvalParams::default();
        let queen = weights.index_of("material.queen").unwrap();
        weights.set(queen, (1234, 1234));
        let mut engine = UciEngine::with_params(Box::new(out.clone()), weights.clone());
        let mut search = SearchParams {
            lmr_base: 1.5,
            lmr_min_depth: 5,
            ..SearchParams::default()
        };
        search.refresh_tables();
        assert_ne!(search, SearchParams::default());
        engine.set_search_params(search.clone());
        engine.set_tunable(true);
        assert!(engine.handle("setoption name search.lmr.pv value 3"));
        search.lmr_pv = 3;
        search.refresh_tables();
        assert!(engine.handle("setoption name Hash value 2"));

        engine.panic_next_search = true;
        assert!(engine.handle("position startpos moves e2e4"));
        assert!(engine.handle("go depth 2"));
        engine.finish_search(false);
        let lines = out.lines();
        let answer = lines
            .iter()
            .rposition(|l| l.starts_with("bestmove"))
            .unwrap();
        assert_eq!(
            lines[answer - 1],
            "info string search thread panicked; starting afresh"
        );
        let mv = lines[answer].strip_prefix("bestmove ").unwrap();
        let after_e4 = parse_position(&["startpos", "moves", "e2e4"], &mut Vec::new()).unwrap();
        assert!(after_e4.parse_uci_move(mv).is_ok(), "{mv} is not legal");

        let searcher = engine.searcher.as_ref().expect("a new searcher");
        assert_eq!(searcher.search_params(), &search);
        assert_eq!(searcher.params(), &weights);
        assert_eq!(engine.hash_mb, 2);
        assert_eq!(engine.search_params, search);

        // The next search runs normally on the new searcher.
        assert!(engine.handle("go depth 1"));
        engine.finish_search(false);
        let lines = out.lines();
        assert!(lines.last().unwrap().starts_with("bestmove "), "{lines:?}");
        assert_eq!(
            lines.iter().filter(|l| l.starts_with("bestmove")).count(),
            2,
            "one bestmove per go: {lines:?}"
        );
    }

    /// Eight pawns a side one step from promoting: quiescence runs deep enough here to
    /// overflow a default 2 MiB thread stack in an unoptimised build; the search thread has room.
    #[test]
    fn a_deep_quiescence_search_answers() {
        let out = Captured::default();
        let mut engine = UciEngine::new(Box::new(out.clone()));
        assert!(engine.handle("position fen 8/PPPPPPPP/8/2k1K3/8/8/pppppppp/8 w - - 0 1"));
        assert!(engine.handle("go depth 1"));
        engine.finish_search(false);
        let lines = out.lines();
        let mv = lines.last().unwrap().strip_prefix("bestmove ").unwrap();
        let mv = mv.split(' ').next().unwrap();
        assert!(
            mv.len() == 5 && mv.ends_with(['q', 'r', 'b', 'n']),
            "{lines:?}"
        );
    }

    /// `setoption name Weights value /dev/zero` blocked the engine for ever reading the device;
    /// a path that is not a file is refused and the weights kept.
    #[cfg(unix)]
    #[test]
    fn weights_that_are_not_a_file_are_refused_without_blocking() {
        let out = Captured::default();
        let mut engine = UciEngine::new(Box::new(out.clone()));
        for path in ["/dev/zero", "/"] {
            assert!(engine.handle(&format!("setoption name Weights value {path}")));
            assert_eq!(
                out.lines().last().unwrap(),
                &format!(
                    "info string cannot load weights: {path}: not a file; keeping the current weights"
                )
            );
        }
        assert_eq!(engine.params.as_ref(), &EvalParams::default());
        assert!(engine.handle("setoption name Weights value /no/such/file.toml"));
        assert!(out.lines().last().unwrap().contains("No such file"));
    }
}
