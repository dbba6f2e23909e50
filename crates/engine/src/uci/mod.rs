//! The UCI front end: reads commands, keeps the position, runs searches on a worker thread so
//! that `stop`, `ponderhit`, `isready` and `quit` are answered while it thinks, and writes
//! `info`/`bestmove`. Every `go` gets exactly one `bestmove`. Unknown or malformed input is
//! reported on `info string` and otherwise ignored; nothing a GUI sends ends the engine but
//! `quit` or the end of the input.
//!
//! Main type: [`UciEngine`] (`UciEngine::new(output)`, then [`UciEngine::handle`] per line or
//! [`UciEngine::run`] over a reader); [`parse_go`] and [`parse_position`] read the two
//! commands that carry data, for other front ends.

use crate::board::{CastlingNotation, Position};
use crate::error::{ErrorClass, Failure};
use crate::eval::{EvalParams, WeightsError};
use crate::nnue::Network;
use crate::search::{max_hash_mb, Evaluator, SearchParams, Searcher, MAX_PROBE_LIMIT};
use crate::tablebase::Tablebases;
use std::io::{BufRead, Write};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub mod genfens;
mod options;
mod output;
mod parse;
mod search_thread;
mod tunable;
pub use output::info_line;
pub use output::info_line_in;
pub use parse::{parse_go, parse_position, GoCommand, GoWarning, PositionError};
pub use tunable::openbench_lines;

use output::Output;
use search_thread::RunningSearch;

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
#[non_exhaustive]
pub enum UciError {
    /// The weights file given at start cannot be used.
    #[error("cannot load weights: {0}")]
    Weights(#[from] WeightsError),
    /// Standard input failed (not: a line that is not UTF-8, which is skipped).
    #[error("cannot read commands: {0}")]
    Input(#[source] std::io::Error),
}

impl ErrorClass for UciError {
    fn class(&self) -> Failure {
        match self {
            UciError::Weights(source) => source.class(),
            UciError::Input(_) => Failure::FailedRun,
        }
    }
}

/// A command the engine answers beyond UCI's own, added by a layer above it (the tuner's
/// `tunetrace`): the engine stays below the tuners and still speaks their protocol.
pub trait ExtraCommand: Send {
    /// The lines that answer `args` (the words after the command's name) for an engine whose
    /// hand-crafted weights are `params` and which plays with `evaluator` (the network when
    /// `EvalFile` names one, else those weights).
    fn answer(&mut self, args: &[&str], params: &EvalParams, evaluator: &Evaluator) -> Vec<String>;
}

/// The UCI engine's state between commands.
pub struct UciEngine {
    /// Commands beyond UCI's own, by name ([`UciEngine::add_command`]).
    extra_commands: Vec<(String, Box<dyn ExtraCommand>)>,
    out: Output,
    /// The position to search, or why the last `position` command was refused.
    position: Result<Position, PositionError>,
    /// Keys of the positions before `position`, for repetition detection.
    previous_keys: Vec<u64>,
    /// The searcher while no search runs (it lives on the search thread meanwhile).
    searcher: Option<Searcher>,
    running: Option<RunningSearch>,
    params: Arc<EvalParams>,
    /// The network of `EvalFile` (or `--net`), which the search evaluates with instead of the
    /// hand-crafted evaluation of `params` when present.
    net: Option<Arc<Network>>,
    /// The network the engine started with (`<default>` for `EvalFile` goes back to it; None
    /// when it started with the hand-crafted evaluation).
    start_net: Option<Arc<Network>>,
    /// The search constants configured (`--search FILE`, the tunable options): kept here as
    /// well as in the searcher, so a searcher rebuilt after a panic keeps them.
    search_params: SearchParams,
    hash_mb: usize,
    /// The largest Hash this machine can have, advertised in the option's `max`.
    max_hash_mb: usize,
    move_overhead: Duration,
    multipv: usize,
    /// `UCI_Chess960`: castling is written king takes own rook (`e1h1`) when on.
    castling: CastlingNotation,
    /// Whether the search constants are UCI options (`sparring uci --tunable`).
    tunable: bool,
    /// The Syzygy tables of `SyzygyPath`, if any loaded.
    tablebases: Option<Tablebases>,
    /// `SyzygyProbeLimit`: the most pieces a probed position has.
    probe_limit: u32,
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
            // OpenBench's opening generator for datagen workloads (`genfens`).
            extra_commands: vec![(
                "genfens".to_string(),
                Box::new(genfens::GenfensCommand) as Box<dyn ExtraCommand>,
            )],
            out: Output(Arc::new(Mutex::new(out))),
            position: Ok(Position::startpos()),
            previous_keys: Vec::new(),
            searcher: Some(Searcher::new(params.clone(), DEFAULT_HASH_MB)),
            running: None,
            params,
            net: None,
            start_net: None,
            search_params: SearchParams::default(),
            hash_mb: DEFAULT_HASH_MB,
            max_hash_mb: max_hash_mb().max(DEFAULT_HASH_MB),
            move_overhead: Duration::from_millis(DEFAULT_MOVE_OVERHEAD_MS),
            multipv: 1,
            castling: CastlingNotation::Standard,
            tunable: false,
            tablebases: None,
            probe_limit: MAX_PROBE_LIMIT,
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

    /// An engine evaluating with `evaluator`: the hand-crafted evaluation with its weights, or
    /// a network (the built-in weights then stay for `Weights`-free uses such as `tunetrace`).
    pub fn with_evaluator(out: Box<dyn Write + Send>, evaluator: Evaluator) -> UciEngine {
        match evaluator {
            Evaluator::Hce(params) => UciEngine::with_params(out, Arc::unwrap_or_clone(params)),
            Evaluator::Net(net) => {
                let mut engine = UciEngine::new(out);
                engine.start_net = Some(net.clone());
                engine.set_network(Some(net));
                engine
            }
        }
    }

    /// The evaluation the engine plays with: the network when one is set, else the
    /// hand-crafted evaluation with the configured weights.
    pub fn evaluator(&self) -> Evaluator {
        match &self.net {
            Some(net) => Evaluator::Net(net.clone()),
            None => Evaluator::Hce(self.params.clone()),
        }
    }

    /// Evaluates with `net` from the next search on (None: the hand-crafted evaluation).
    fn set_network(&mut self, net: Option<Arc<Network>>) {
        self.net = net;
        let evaluator = self.evaluator();
        if let Some(s) = self.searcher.as_mut() {
            s.set_evaluator(&evaluator);
        }
    }

    /// Answers `name ...` with `command` from now on (e.g. the tuner's `tunetrace`).
    pub fn add_command(&mut self, name: &str, command: Box<dyn ExtraCommand>) {
        self.extra_commands.push((name.to_string(), command));
    }

    /// The evaluation weights the engine plays with.
    pub fn params(&self) -> &EvalParams {
        &self.params
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
            _ => self.extra_command(command, args, line),
        }
        true
    }

    /// A command added with [`UciEngine::add_command`], or the note that it is unknown.
    fn extra_command(&mut self, command: &str, args: &[&str], line: &str) {
        let evaluator = self.evaluator();
        let found = self
            .extra_commands
            .iter_mut()
            .find(|(name, _)| name == command);
        let lines = match found {
            Some((_, handler)) => handler.answer(args, &self.params, &evaluator),
            None => vec![format!("info string unknown command: {}", line.trim())],
        };
        for line in lines {
            self.out.line(&line);
        }
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
        self.out
            .line("option name EvalFile type string default <default>");
        self.out.line("option name Clear Hash type button");
        self.out
            .line("option name UCI_Chess960 type check default false");
        self.out
            .line("option name SyzygyPath type string default <empty>");
        self.out.line(&format!(
            "option name SyzygyProbeLimit type spin default {MAX_PROBE_LIMIT} min 0 max {MAX_PROBE_LIMIT}"
        ));
        self.declare_tunable();
        self.out.line("uciok");
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
