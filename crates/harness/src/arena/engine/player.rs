//! Players: the in-process engine and external UCI and xboard engines behind one trait. The arbiter trusts
//! neither: it checks every move, and every failure becomes a scored, explained game.

use crate::board::{CastlingNotation, Move, Position};
use crate::error::{ErrorClass, Failure};
use crate::eval::EvalParams;
use crate::record::MoveDetails;
use crate::score::Score;
use crate::search::{SearchLimits, Searcher};
use regex::Regex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::Duration;
use thiserror::Error;

/// One move request: the game so far and the limits for this move.
pub struct GoRequest<'a> {
    /// The position the game started from (the opening's start, not the current one).
    pub start: &'a Position,
    /// Every move played since `start`, opening moves included, in order.
    pub moves: &'a [Move],
    /// The search limits for this move (nodes, depth, movetime or the clocks).
    pub limits: &'a SearchLimits,
    /// How long to wait for the answer before the engine counts as stalled (or out of time).
    pub deadline: Duration,
}

impl GoRequest<'_> {
    /// The position to move in: `start` after `moves`.
    pub fn position(&self) -> Position {
        let mut pos = self.start.clone();
        for &mv in self.moves {
            pos.make_move(mv);
        }
        pos
    }

    /// The side to move.
    pub fn side_to_move(&self) -> crate::board::Color {
        let first = self.start.side_to_move();
        if self.moves.len() % 2 == 0 {
            first
        } else {
            !first
        }
    }
}

/// What a player answered: its move as text (checked by the arbiter) and what it said about it.
#[derive(Clone, Debug, Default)]
pub struct EngineReply {
    /// The move in UCI notation (`e2e4`, `e7e8q`), unchecked.
    pub bestmove: String,
    /// From the mover's point of view.
    pub score: Option<Score>,
    /// The depth of the last completed iteration, in plies, if reported.
    pub depth: Option<u32>,
    /// Nodes searched for this move, if reported.
    pub nodes: Option<u64>,
    /// The rest of what it reported (seldepth, nps, PV, the lines `match_line` keeps).
    pub(crate) details: MoveDetails,
    /// Every line an external UCI engine wrote for this move, trimmed, in order, from the
    /// first after `go` to the `bestmove` line included: what the compliance checks read
    /// (`game::compliance`). Empty for players that write no lines (built-in, book, xboard).
    pub output: Vec<String>,
    /// From the moment the engine had the `go` (its `readyok` read) to its `bestmove` line:
    /// the elapsed time of fastchess's latency report. None for players without lines.
    pub(crate) answer_time: Option<Duration>,
}

/// Why a player could not start or could not answer a move request.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PlayerError {
    /// The engine process could not be started (missing or non-executable command, bad working
    /// directory), exited during the UCI handshake, or was asked for while the runner shuts down.
    #[error("cannot start `{command}`: {reason}")]
    Spawn {
        /// The configured `uci.command`.
        command: String,
        /// The operating system's error, how the engine exited, or that the runner is ending.
        reason: String,
    },
    /// The engine started but did not send `uciok` or `readyok` within the start-up timeout.
    #[error("`{command}` did not answer `{expected}` within {waited_ms} ms")]
    Handshake {
        /// The configured `uci.command`.
        command: String,
        /// The reply waited for: `uciok` or `readyok`.
        expected: String,
        /// How long the runner waited, in milliseconds.
        waited_ms: u128,
    },
    /// The engine exited or closed its output.
    #[error("the engine disconnected{detail}")]
    Disconnected {
        /// Extra context, with its own leading space (e.g. " (the built-in search panicked)"), or
        /// empty.
        detail: String,
    },
    /// No answer in time: a hang (without a clock) or a flag fall (with one).
    #[error("no answer within {waited_ms} ms")]
    Timeout {
        /// The deadline that passed, in milliseconds.
        waited_ms: u128,
    },
    /// The built-in engine's hash table cannot be allocated.
    #[error("{0}")]
    Table(#[from] crate::search::TableAllocError),
    /// A configured option value the engine's own declaration does not allow (a spin outside
    /// its min/max, a combo value not among its vars, a check that is not true or false).
    #[error("option `{name}` = `{value}`: the engine declares {allowed}")]
    OptionValue {
        /// The option's name.
        name: String,
        /// The configured value.
        value: String,
        /// What the engine's `option` line allows, e.g. "a spin from 1 to 1024".
        allowed: String,
    },
    /// The engine declares a spin option fastchess cannot build (min above max, a default
    /// outside them, a bound or default that is not a number): fastchess stops its run there.
    #[error("the engine declares option `{option}` as a spin with default {}, min {}, max {}: {} (fastchess stops its run on this declaration)", shown(&spin.default), shown(&spin.min), shown(&spin.max), spin.what)]
    BadDeclaration {
        /// The option's name.
        option: String,
        /// What it declares and fastchess's exception text.
        spin: Box<super::BadSpin>,
    },
    /// Chess960 data generation with an engine that does not declare `UCI_Chess960`: it would
    /// read and write castling in the standard form, which is ambiguous in Chess960 (a match
    /// warns instead, as fastchess does).
    #[error(
        "`{command}` does not declare the UCI option UCI_Chess960, which a Chess960 run needs"
    )]
    NoChess960 {
        /// The configured `uci.command`.
        command: String,
    },
    /// A setting the engine cannot play (an xboard engine without `nps` for a node limit,
    /// without `fischerandom` for Chess960, without `setboard` for a Chess960 start).
    #[error("`{command}` cannot play this match: {what}")]
    Unsupported {
        /// The configured command.
        command: String,
        /// What it lacks, with the feature that would give it.
        what: String,
    },
    /// The engine resigned (xboard `resign`, or a claim that its opponent won).
    #[error("the engine resigned")]
    Resigned,
    /// The engine claimed a result and its claims are trusted (cutechess's `trust`): the
    /// game ends with the claimed result, unchecked.
    #[error("trusted result claim: {claim}")]
    TrustedClaim {
        /// The claimed result.
        result: crate::board::GameResult,
        /// The claim as the engine wrote it.
        claim: String,
    },
    /// The engine claimed a result the board does not show (xboard `1-0`, `1/2-1/2`...): it
    /// loses, as in cutechess.
    #[error("invalid result claim: {claim}")]
    InvalidClaim {
        /// The claim as the engine wrote it.
        claim: String,
    },
    /// The engine refused a legal move it was sent (xboard `Illegal move` or `Error`): its
    /// board no longer agrees with the arbiter's.
    #[error("it refused a legal move: {line}")]
    Refused {
        /// The engine's line.
        line: String,
    },
    /// An option name or value that would break the UCI line it is sent on.
    #[error("option `{name}`: {what} holds a line break, which would inject a UCI command")]
    BadOption {
        /// The option's name, line breaks replaced by spaces.
        name: String,
        /// Which part holds the line break: "the name" or "the value".
        what: &'static str,
    },
}

impl ErrorClass for PlayerError {
    fn class(&self) -> Failure {
        match self {
            PlayerError::Table(source) => source.class(),
            // The configuration asks for something this engine does not allow or cannot play.
            PlayerError::OptionValue { .. }
            | PlayerError::NoChess960 { .. }
            | PlayerError::BadDeclaration { .. }
            | PlayerError::Unsupported { .. }
            | PlayerError::BadOption { .. } => Failure::BadInput,
            PlayerError::Spawn { .. }
            | PlayerError::Handshake { .. }
            | PlayerError::Disconnected { .. }
            | PlayerError::Timeout { .. }
            | PlayerError::Resigned
            | PlayerError::InvalidClaim { .. }
            | PlayerError::TrustedClaim { .. }
            | PlayerError::Refused { .. } => Failure::FailedRun,
        }
    }
}

/// A declared field for a message: `none` when absent.
fn shown(text: &str) -> &str {
    if text.is_empty() {
        "none"
    } else {
        text
    }
}

/// An engine the arbiter can play games with: the built-in engine or an external UCI process.
pub trait Player: Send {
    /// The name the engine gives itself (UCI `id name`), for the PGN.
    fn id_name(&self) -> &str;
    /// Prepares for a new game (clears tables; UCI `ucinewgame`).
    fn new_game(&mut self) -> Result<(), PlayerError>;
    /// Asks for a move.
    fn go(&mut self, request: &GoRequest<'_>) -> Result<EngineReply, PlayerError>;
    /// The current value of an option the engine declared (UCI names are case-insensitive):
    /// its default, or the value sent to it. None when it has no such option.
    fn option_value(&self, _name: &str) -> Option<String> {
        None
    }
    /// The configured options the engine did not declare in its `option name` lines.
    fn undeclared_options(&self) -> Vec<String> {
        Vec::new()
    }
    /// The configured option values the engine's declarations do not accept, which were not
    /// sent (fastchess's `Invalid value for option` and `Failed to set option`).
    fn refused_options(&self) -> Vec<super::RefusedOption> {
        Vec::new()
    }
    /// The game the engine plays next, for its lines in the engine log.
    fn set_log_game(&mut self, _game_id: u64) {}
    /// Switches the engine to Chess960 before its first game (UCI: `setoption name
    /// UCI_Chess960 value true`, and castling written king takes rook). A UCI engine that does
    /// not declare the option is not sent it and lists it in `undeclared_options` (fastchess
    /// warns and plays on). The built-in engine needs nothing: it gets moves, not text.
    fn enable_chess960(&mut self) -> Result<(), PlayerError> {
        Ok(())
    }
    /// Keeps, with each move's reply, the last line of the engine's output that matches each
    /// pattern (fastchess's `-pgnout match_line=`). The built-in engine writes no lines.
    fn keep_lines(&mut self, _patterns: Arc<[Regex]>) {}
    /// The player's move was just played and its opponent is to move in `request`'s game (the
    /// limits are the player's own, as they stand now): a pondering engine may think on the
    /// reply it predicted (UCI `go ponder`). Nothing it does here can play a move.
    fn ponder(&mut self, _request: &GoRequest<'_>) -> Result<(), PlayerError> {
        Ok(())
    }
    /// The opponent of the coming game, by its configured name (an xboard engine with
    /// `feature name=1` is told it), before `new_game`.
    fn set_opponent(&mut self, _name: &str) {}
    /// The game is over: a pondering engine stops thinking (UCI `stop`, its move discarded).
    /// A failure leaves the player `needs_restart`.
    fn stop_pondering(&mut self) {}
    /// Whether the player is out of step with its engine (it ignored `stop` after a game) and
    /// should be started afresh before its next game.
    fn needs_restart(&self) -> bool {
        false
    }
}

/// What the built-in player's search thread does: the real searcher, or a stand-in in tests.
pub(crate) trait SearchBackend: Send {
    /// Forgets everything learnt in the previous game.
    fn clear(&mut self);
    /// Searches `pos` (reached through positions with the Zobrist `keys`) within `limits`.
    fn search(&mut self, pos: &Position, keys: &[u64], limits: &SearchLimits) -> EngineReply;
    /// The flag that asks a running search to stop, if the backend has one.
    fn stop_handle(&self) -> Option<Arc<AtomicBool>>;
}

impl SearchBackend for Searcher {
    fn clear(&mut self) {
        Searcher::clear(self);
    }

    fn search(&mut self, pos: &Position, keys: &[u64], limits: &SearchLimits) -> EngineReply {
        self.stop_handle().store(false, Ordering::Relaxed);
        let mut hashfull = None;
        let result = Searcher::search(self, pos, keys, limits, |info| {
            hashfull = Some(info.hashfull)
        });
        // The figures the UCI front end's last info line would give.
        let details = MoveDetails {
            seldepth: Some(result.seldepth),
            nps: Some((result.nodes as f64 / result.time.as_secs_f64().max(1e-6)) as u64),
            hashfull,
            tbhits: result.tbhits,
            engine_time: Some(result.time),
            pv: uci_line(pos, &result.pv),
            lines: Vec::new(),
            time_left: None,
            from_book: false,
        };
        EngineReply {
            // Not `Display`: a Chess960 castle written as the king's step (`f1g1`) would read
            // as a plain king move; `uci` writes such castling king takes rook.
            bestmove: pos.uci(result.best_move, CastlingNotation::Standard),
            score: Some(result.score),
            depth: Some(result.depth),
            nodes: Some(result.nodes),
            details,
            ..EngineReply::default()
        }
    }

    fn stop_handle(&self) -> Option<Arc<AtomicBool>> {
        Some(Searcher::stop_handle(self))
    }
}

/// A line of moves from `pos` in UCI notation (Chess960 castling as king takes rook).
fn uci_line(pos: &Position, moves: &[Move]) -> Vec<String> {
    let mut pos = pos.clone();
    let notation = CastlingNotation::chess960_if(pos.has_chess960_castling());
    moves
        .iter()
        .map(|&mv| {
            let text = pos.uci(mv, notation);
            pos.make_move(mv);
            text
        })
        .collect()
}

enum Job {
    NewGame,
    Search(Box<SearchJob>),
}

struct SearchJob {
    pos: Position,
    keys: Vec<u64>,
    limits: SearchLimits,
}

enum Answer {
    Cleared,
    Moved(Box<EngineReply>),
}

/// The project's engine, in process: its own searcher and table (weights shared read-only) on a
/// thread of its own, so the arbiter waits for it with the same deadline as for an external
/// engine. A search that overruns its deadline (a search that ignores its limits) loses the
/// game as a stalled connection; its thread is abandoned and the player is not used again.
pub struct BuiltinPlayer {
    jobs: Sender<Job>,
    answers: Receiver<Answer>,
    stop: Option<Arc<AtomicBool>>,
    /// Set when the search thread missed a deadline or died: the player cannot be trusted.
    broken: bool,
}

impl BuiltinPlayer {
    /// A player with its own searcher of `hash_mb` megabytes.
    pub fn new(params: Arc<EvalParams>, hash_mb: usize) -> Result<BuiltinPlayer, PlayerError> {
        // Fallible: a table the machine cannot give is an error, not an abort.
        let searcher = Searcher::try_new(params, hash_mb)?;
        Ok(BuiltinPlayer::with_backend(Box::new(searcher)))
    }

    pub(crate) fn with_backend(mut backend: Box<dyn SearchBackend>) -> BuiltinPlayer {
        let (jobs, job_rx) = mpsc::channel::<Job>();
        let (answer_tx, answers) = mpsc::channel::<Answer>();
        let stop = backend.stop_handle();
        let spawned = std::thread::Builder::new()
            .name("builtin player".into())
            .stack_size(crate::search::SEARCH_THREAD_STACK)
            .spawn(move || {
                for job in job_rx {
                    let answer = match job {
                        Job::NewGame => {
                            backend.clear();
                            Answer::Cleared
                        }
                        Job::Search(job) => Answer::Moved(Box::new(backend.search(
                            &job.pos,
                            &job.keys,
                            &job.limits,
                        ))),
                    };
                    if answer_tx.send(answer).is_err() {
                        break;
                    }
                }
            });
        // As `std::thread::spawn` does, a thread that cannot be made is fatal.
        spawned.expect("the builtin player's thread starts");
        BuiltinPlayer {
            jobs,
            answers,
            stop,
            broken: false,
        }
    }

    fn ask(&mut self, job: Job, deadline: Duration) -> Result<Answer, PlayerError> {
        if self.broken || self.jobs.send(job).is_err() {
            self.broken = true;
            return Err(PlayerError::Disconnected {
                detail: " (the built-in search stopped)".to_string(),
            });
        }
        match self.answers.recv_timeout(deadline) {
            Ok(answer) => Ok(answer),
            Err(RecvTimeoutError::Timeout) => {
                self.broken = true;
                if let Some(stop) = &self.stop {
                    stop.store(true, Ordering::Relaxed);
                }
                Err(PlayerError::Timeout {
                    waited_ms: deadline.as_millis(),
                })
            }
            Err(RecvTimeoutError::Disconnected) => {
                self.broken = true;
                Err(PlayerError::Disconnected {
                    detail: " (the built-in search panicked)".to_string(),
                })
            }
        }
    }

    /// A player with its own searcher of `hash_mb` megabytes and the search constants `search`
    /// (the SPSA tuner plays perturbed constants in process).
    pub fn with_search_params(
        params: Arc<EvalParams>,
        search: crate::search::SearchParams,
        hash_mb: usize,
    ) -> Result<BuiltinPlayer, PlayerError> {
        let searcher = Searcher::with_search_params(params, search, hash_mb)?;
        Ok(BuiltinPlayer::with_backend(Box::new(searcher)))
    }
}

/// How long clearing the tables for a new game may take.
const NEW_GAME_DEADLINE: Duration = Duration::from_secs(60);

impl Player for BuiltinPlayer {
    fn id_name(&self) -> &str {
        sparring_engine::ENGINE_NAME
    }

    fn new_game(&mut self) -> Result<(), PlayerError> {
        self.ask(Job::NewGame, NEW_GAME_DEADLINE).map(|_| ())
    }

    fn go(&mut self, request: &GoRequest<'_>) -> Result<EngineReply, PlayerError> {
        let mut pos = request.start.clone();
        let mut keys = Vec::with_capacity(request.moves.len());
        for &mv in request.moves {
            keys.push(pos.key());
            pos.make_move(mv);
        }
        let job = Job::Search(Box::new(SearchJob {
            pos,
            keys,
            limits: request.limits.clone(),
        }));
        match self.ask(job, request.deadline)? {
            Answer::Moved(reply) => Ok(*reply),
            Answer::Cleared => Err(PlayerError::Disconnected {
                detail: " (the built-in search answered out of turn)".to_string(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A search that never ends and ignores the stop flag (as a search whose evaluation left the
    /// score range once did).
    struct RunawaySearch;

    impl SearchBackend for RunawaySearch {
        fn clear(&mut self) {}
        fn search(&mut self, _: &Position, _: &[u64], _: &SearchLimits) -> EngineReply {
            loop {
                std::thread::sleep(Duration::from_secs(3600));
            }
        }
        fn stop_handle(&self) -> Option<Arc<AtomicBool>> {
            None
        }
    }

    #[test]
    fn a_runaway_builtin_search_is_a_timeout_not_a_hang() {
        let mut player = BuiltinPlayer::with_backend(Box::new(RunawaySearch));
        player.new_game().unwrap();
        let start = Position::startpos();
        let limits = SearchLimits::nodes(100);
        let request = GoRequest {
            start: &start,
            moves: &[],
            limits: &limits,
            deadline: Duration::from_millis(50),
        };
        assert_eq!(
            player.go(&request).unwrap_err(),
            PlayerError::Timeout { waited_ms: 50 }
        );
        // Broken from now on: no second wait on the abandoned thread.
        assert!(matches!(
            player.go(&request),
            Err(PlayerError::Disconnected { .. })
        ));
    }

    #[test]
    fn the_builtin_player_answers_within_its_limits() {
        let mut player = BuiltinPlayer::new(Arc::new(EvalParams::default()), 1).unwrap();
        player.new_game().unwrap();
        let start = Position::startpos();
        let limits = SearchLimits::nodes(500);
        let request = GoRequest {
            start: &start,
            moves: &[],
            limits: &limits,
            deadline: Duration::from_secs(600),
        };
        let reply = player.go(&request).unwrap();
        assert!(start.parse_uci_move(&reply.bestmove).is_ok(), "{reply:?}");
    }
}
