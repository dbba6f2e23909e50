//! The search thread of the UCI engine: `go` starts a search on its own thread, so that the
//! command loop keeps answering `stop`, `ponderhit`, `isready` and `quit`; every `go` gets
//! exactly one `bestmove`, even when the search panics.

use super::output::bestmove_line_in;
use super::output::info_line_in;
use super::output::Output;
use super::parse::{parse_go, parse_position, GoCommand, GoWarning};
use super::{UciEngine, CURRMOVE_AFTER, DEFAULT_HASH_MB};
use crate::board::{CastlingNotation, Position};
use crate::search::{RootMove, SearchLimits, Searcher};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

/// The search running on its own thread, and how to reach it.
pub(super) struct RunningSearch {
    /// The searcher comes back when the search ends; `None` when the search panicked (it was
    /// answered with a fallback `bestmove`, and the engine builds a new searcher).
    pub(super) handle: JoinHandle<Option<Searcher>>,
    pub(super) stop: Arc<AtomicBool>,
    pub(super) ponder: Arc<AtomicBool>,
    /// `go infinite`, or `go` without limits: ends only on `stop`.
    pub(super) infinite: bool,
    /// `go ponder` before its `ponderhit`: ends only on `stop` or `ponderhit`.
    pub(super) pondering: bool,
}

impl UciEngine {
    /// Whether the running search ends only when told (`go infinite`, or `go ponder` before
    /// `ponderhit`): commands that change the engine's state stop such a search, but wait for a
    /// finite one rather than cut it short.
    pub(super) fn search_waits(&self) -> bool {
        self.running
            .as_ref()
            .is_some_and(|r| r.infinite || r.pondering)
    }

    /// Waits for a running search; with `stop`, asks it to finish first.
    pub(super) fn finish_search(&mut self, stop: bool) {
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
    pub(super) fn fresh_searcher(&self) -> Searcher {
        let mut searcher = Searcher::try_new(self.params.clone(), self.hash_mb)
            .unwrap_or_else(|_| Searcher::new(self.params.clone(), DEFAULT_HASH_MB));
        searcher.set_search_params(self.search_params.clone());
        searcher.set_evaluator(&self.evaluator());
        searcher.set_tablebases(self.search_tablebases());
        searcher
    }

    pub(super) fn set_position(&mut self, args: &[&str]) {
        self.previous_keys.clear();
        self.position = parse_position(args, &mut self.previous_keys);
        if let Err(e) = &self.position {
            self.out.line(&format!("info string position refused: {e}"));
        }
    }

    pub(super) fn go(&mut self, args: &[&str]) {
        let GoCommand {
            mut limits,
            ponder,
            searchmoves,
            mut warnings,
        } = parse_go(args, self.move_overhead);
        let Some(position) = self.position_to_search(&warnings) else {
            return;
        };
        resolve_searchmoves(&position, &searchmoves, &mut limits, &mut warnings);
        self.print_go_warnings(&warnings);
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
        self.announce_root_moves(&mut searcher, &position);
        let infinite = runs_until_told(&limits);
        let job = SearchJob {
            searcher,
            position,
            keys: self.previous_keys.clone(),
            limits,
            out: self.out.clone(),
            show_multipv: self.multipv > 1,
            castling: self.castling,
            #[cfg(test)]
            panic_in_search: std::mem::take(&mut self.panic_next_search),
        };
        let spawned = std::thread::Builder::new()
            .name("search".into())
            .stack_size(crate::search::SEARCH_THREAD_STACK)
            .spawn(move || job.run());
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

    /// The position `go` searches; without one, writes the warnings, the reason and
    /// `bestmove 0000`, and gives `None`.
    fn position_to_search(&self, warnings: &[GoWarning]) -> Option<Position> {
        match &self.position {
            Ok(pos) => Some(pos.clone()),
            Err(e) => {
                self.print_go_warnings(warnings);
                self.out
                    .line(&format!("info string no position to search: {e}"));
                self.out.line("bestmove 0000");
                None
            }
        }
    }

    /// Writes each warning of a `go` command on its own `info string` line.
    fn print_go_warnings(&self, warnings: &[GoWarning]) {
        for warning in warnings {
            self.out.line(&format!("info string go: {warning}"));
        }
    }

    /// Makes `searcher` announce each root move (`currmove`) once the search has run
    /// `CURRMOVE_AFTER`, counted from now.
    fn announce_root_moves(&self, searcher: &mut Searcher, position: &Position) {
        let started = Instant::now();
        let announcer = self.out.clone();
        let castling = self.castling;
        let root_position = position.clone();
        searcher.set_root_move_listener(Some(Box::new(move |root: &RootMove| {
            if started.elapsed() >= CURRMOVE_AFTER {
                announcer.line(&format!(
                    "info depth {} currmove {} currmovenumber {}",
                    root.depth,
                    root_position.uci(root.mv, castling),
                    root.number
                ));
            }
        })));
    }
}

/// Fills `limits.searchmoves` with the legal moves among `searchmoves`, adding a warning for
/// each move refused, and one more when none is left.
fn resolve_searchmoves(
    position: &Position,
    searchmoves: &[String],
    limits: &mut SearchLimits,
    warnings: &mut Vec<GoWarning>,
) {
    for text in searchmoves {
        match position.parse_uci_move(text) {
            Ok(mv) => limits.searchmoves.push(mv),
            Err(e) => warnings.push(GoWarning::BadSearchMove(e)),
        }
    }
    if !searchmoves.is_empty() && limits.searchmoves.is_empty() {
        warnings.push(GoWarning::NoSearchMoves);
    }
}

/// Whether a search with these limits ends only when told: `go infinite`, or `go` without
/// any limit.
fn runs_until_told(limits: &SearchLimits) -> bool {
    limits.infinite
        || (limits.depth.is_none()
            && limits.nodes.is_none()
            && limits.movetime.is_none()
            && limits.clock.is_none())
}

/// Everything the search thread takes with it: the searcher, what to search and where to write.
struct SearchJob {
    searcher: Searcher,
    position: Position,
    keys: Vec<u64>,
    limits: SearchLimits,
    out: Output,
    show_multipv: bool,
    castling: CastlingNotation,
    /// Test hook: the search panics, to exercise the fallback `bestmove`.
    #[cfg(test)]
    panic_in_search: bool,
}

impl SearchJob {
    /// Runs the search on the calling thread and writes its `bestmove`; gives the searcher
    /// back, or `None` when the search panicked (answered with a fallback `bestmove`).
    fn run(mut self) -> Option<Searcher> {
        let searched = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            #[cfg(test)]
            if self.panic_in_search {
                panic!("test hook: the search panics");
            }
            self.searcher
                .search(&self.position, &self.keys, &self.limits, |info| {
                    self.out.line(&info_line_in(
                        info,
                        self.show_multipv,
                        &self.position,
                        self.castling,
                    ));
                })
        }));
        match searched {
            Ok(result) => {
                self.out.line(&bestmove_line_in(
                    result.best_move,
                    result.ponder,
                    &self.position,
                    self.castling,
                ));
                Some(self.searcher)
            }
            // Every `go` gets its `bestmove`, even now: a legal move keeps the game going.
            Err(_) => {
                self.out
                    .line("info string search thread panicked; starting afresh");
                let fallback = self.position.legal_moves().iter().next().copied();
                self.out.line(&match fallback {
                    Some(mv) => bestmove_line_in(mv, None, &self.position, self.castling),
                    None => "bestmove 0000".to_string(),
                });
                None
            }
        }
    }
}
