//! The search thread of the UCI engine: `go` starts a search on its own thread, so that the
//! command loop keeps answering `stop`, `ponderhit`, `isready` and `quit`; every `go` gets
//! exactly one `bestmove`, even when the search panics.

use super::output::bestmove_line_in;
use super::output::info_line_in;
use super::parse::{parse_go, parse_position, GoCommand, GoWarning};
use super::{UciEngine, CURRMOVE_AFTER, DEFAULT_HASH_MB};
use crate::search::{RootMove, Searcher};
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
                        out.line(&info_line_in(info, show_multipv, &position, castling));
                    })
                }));
                match searched {
                    Ok(result) => {
                        out.line(&bestmove_line_in(
                            result.best_move,
                            result.ponder,
                            &position,
                            castling,
                        ));
                        Some(searcher)
                    }
                    // Every `go` gets its `bestmove`, even now: a legal move keeps the game going.
                    Err(_) => {
                        out.line("info string search thread panicked; starting afresh");
                        let fallback = position.legal_moves().iter().next().copied();
                        out.line(&match fallback {
                            Some(mv) => bestmove_line_in(mv, None, &position, castling),
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
