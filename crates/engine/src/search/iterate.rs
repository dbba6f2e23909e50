//! The search driver: sets up a search from its limits, deepens one iteration at a time (each
//! principal variation of MultiPV in turn, inside an aspiration window), reports each completed
//! iteration, and decides when to stop: limits, `stop`, pondering and `ponderhit`.

use super::limits::TimeBudget;
use super::{SearchInfo, SearchLimits, SearchResult, Searcher, INFINITY, MAX_PLY, TB_WIN_BOUND};
use crate::board::{Game, Move, MoveList, Position};
use crate::score::{Score, MATE, MATE_BOUND};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// The reported form of an internal score: mate scores become moves to mate; a tablebase win
/// stays a centipawn score just below every mate's (`Score::as_cp`).
fn reported_score(score: i32) -> Score {
    if score >= MATE_BOUND {
        Score::Mate((MATE - score + 1) / 2)
    } else if score <= -MATE_BOUND {
        Score::Mate(-(MATE + score + 1) / 2)
    } else {
        Score::Cp(score)
    }
}

impl Searcher {
    /// Searches the current position of `game`, its earlier positions counting for repetitions:
    /// [`Searcher::search`] with the game's position and keys.
    ///
    /// ```
    /// use sparring_chess::board::{Game, Position};
    /// use sparring_engine::eval::EvalParams;
    /// use sparring_engine::search::{SearchLimits, Searcher};
    /// use std::sync::Arc;
    ///
    /// let mut game = Game::new(Position::startpos());
    /// for text in ["e2e4", "e7e5", "g1f3"] {
    ///     let mv = game.position().parse_uci_move(text)?;
    ///     game.play(mv)?;
    /// }
    /// let mut searcher = Searcher::new(Arc::new(EvalParams::default()), 1);
    /// let result = searcher.search_game(&game, &SearchLimits::depth(3), |_info| {});
    /// assert!(game.position().is_legal(result.best_move));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn search_game(
        &mut self,
        game: &Game,
        limits: &SearchLimits,
        report: impl FnMut(&SearchInfo),
    ) -> SearchResult {
        self.search(game.position(), game.keys(), limits, report)
    }

    /// Searches `pos`. `previous_keys` are the keys of the game's positions before `pos`, oldest
    /// first, for repetition detection (`&[]` for none; [`Game::keys`] for a game, or
    /// [`Searcher::search_game`]); a slice because a UCI `position` command or an arena request
    /// brings keys without a `Game`. `report` sees each completed iteration, once per
    /// principal variation under MultiPV; a root without moves is reported at depth 0 (mate 0
    /// when mated, cp 0 in stalemate).
    pub fn search(
        &mut self,
        pos: &Position,
        previous_keys: &[u64],
        limits: &SearchLimits,
        mut report: impl FnMut(&SearchInfo),
    ) -> SearchResult {
        let start = Instant::now();
        let budget = self.start_search(pos, previous_keys, limits, start);
        let mut pos = pos.clone();
        self.reset_accumulators(&pos);

        let legal = pos.legal_moves();
        let mut root_count = self.restrict_root(&legal, limits);
        self.root_tb_score = self.narrow_root_by_tables(&pos, &legal);
        if self.root_tb_score.is_some() && !self.root_allowed.is_empty() {
            root_count = self.root_allowed.len();
        }
        let mut result = SearchResult {
            best_move: self
                .root_allowed
                .first()
                .or(legal.first())
                .copied()
                .unwrap_or(Move::NULL),
            ponder: None,
            score: Score::Cp(0),
            depth: 0,
            seldepth: 0,
            nodes: 0,
            time: Duration::ZERO,
            pv: Vec::new(),
            tbhits: self.tbhits_so_far(),
        };
        if legal.is_empty() {
            result.score = if pos.in_check() {
                Score::Mate(0)
            } else {
                Score::Cp(0)
            };
            report(&SearchInfo {
                depth: 0,
                seldepth: 0,
                score: result.score,
                nodes: 0,
                time: start.elapsed(),
                hashfull: self.tt.hashfull(),
                pv: Vec::new(),
                multipv: 1,
                tbhits: self.tbhits_so_far(),
            });
            self.wait_for_release(limits);
            result.time = start.elapsed();
            return result;
        }

        let max_depth = limits
            .depth
            .unwrap_or(MAX_PLY as u32 - 1)
            .clamp(1, MAX_PLY as u32 - 1);
        // The previous iteration's score of each principal variation, its aspiration centre.
        let mut scores = vec![0; limits.multipv.clamp(1, root_count)];
        for depth in 1..=max_depth {
            self.iteration_depth = depth;
            if !self.iteration(
                &mut pos,
                depth,
                &mut scores,
                start,
                &mut result,
                &mut report,
            ) {
                break;
            }
            let only_move = root_count == 1;
            let best = result.best_move;
            if self.iteration_ends_search(depth, scores[0], best, only_move, limits, budget) {
                break;
            }
        }
        self.root_allowed.clear();
        self.root_excluded.clear();
        self.root_restricted = false;
        self.wait_for_release(limits);
        result.nodes = self.nodes;
        result.tbhits = self.tbhits_so_far();
        result.time = start.elapsed();
        result
    }

    /// The tablebase hits of this search, when tables are in use.
    fn tbhits_so_far(&self) -> Option<u64> {
        self.tablebases.as_ref().map(|_| self.tbhits)
    }

    /// The score to report for a line that scored `score`: the root's tablebase score when the
    /// root is in the tables and the search found no mate or tablebase score itself.
    fn shown_score(&self, score: i32) -> Score {
        match self.root_tb_score {
            Some(tb) if score.abs() < TB_WIN_BOUND => reported_score(tb),
            _ => reported_score(score),
        }
    }

    /// Resets the counters and limits for a search of `pos` starting at `start`, and keeps the
    /// game's keys that can still repeat; the time budget, if the limits set one.
    fn start_search(
        &mut self,
        pos: &Position,
        previous_keys: &[u64],
        limits: &SearchLimits,
        start: Instant,
    ) -> Option<TimeBudget> {
        self.tt.new_search();
        self.nodes = 0;
        self.tbhits = 0;
        self.trend.clear();
        self.aborted = false;
        self.limits_armed = false;
        self.node_limit = limits.nodes.unwrap_or(u64::MAX);
        let budget = limits.time_budget(pos.side_to_move(), &self.tuning);
        self.hard_budget = budget.map(|b| b.hard);
        self.pondering = self.ponder.load(Ordering::Relaxed);
        self.clock_start = start;
        self.deadline = match self.pondering {
            true => None,
            false => self.hard_budget.and_then(|hard| start.checked_add(hard)),
        };
        // Only positions since the last irreversible move can repeat.
        let window = (pos.halfmove_clock() as usize).min(previous_keys.len());
        self.keys.clear();
        self.keys
            .extend_from_slice(&previous_keys[previous_keys.len() - window..]);
        budget
    }

    /// Applies `searchmoves` (the legal ones, once each); how many root moves may be searched.
    fn restrict_root(&mut self, legal: &MoveList, limits: &SearchLimits) -> usize {
        self.root_allowed.clear();
        for &mv in &limits.searchmoves {
            if legal.iter().any(|&l| l == mv) && !self.root_allowed.contains(&mv) {
                self.root_allowed.push(mv);
            }
        }
        self.root_excluded.clear();
        match self.root_allowed.len() {
            0 => legal.len(),
            n => n,
        }
    }

    /// One iteration: each principal variation in turn, every root move already taken by a
    /// better line excluded; false when the search was aborted before the iteration completed.
    fn iteration(
        &mut self,
        pos: &mut Position,
        depth: u32,
        scores: &mut [i32],
        start: Instant,
        result: &mut SearchResult,
        report: &mut impl FnMut(&SearchInfo),
    ) -> bool {
        self.root_excluded.clear();
        for (line, line_score) in scores.iter_mut().enumerate() {
            self.root_restricted = !self.root_allowed.is_empty() || !self.root_excluded.is_empty();
            self.seldepth = 0;
            let score = self.aspiration(pos, depth as i32, *line_score);
            if self.aborted {
                return false;
            }
            *line_score = score;
            let info = SearchInfo {
                depth,
                seldepth: self.seldepth as u32,
                score: self.shown_score(score),
                nodes: self.nodes,
                time: start.elapsed(),
                hashfull: self.tt.hashfull(),
                pv: self.reported_pv(pos),
                multipv: line as u32 + 1,
                tbhits: self.tbhits_so_far(),
            };
            if line == 0 {
                self.limits_armed = true;
                *result = SearchResult {
                    best_move: info.pv.first().copied().unwrap_or(result.best_move),
                    ponder: info.pv.get(1).copied(),
                    score: info.score,
                    depth,
                    seldepth: info.seldepth,
                    nodes: self.nodes,
                    time: info.time,
                    pv: info.pv.clone(),
                    tbhits: info.tbhits,
                };
            }
            report(&info);
            match info.pv.first() {
                Some(&mv) => self.root_excluded.push(mv),
                None => break,
            }
        }
        true
    }

    /// Whether the search stops after completing the iteration at `depth` whose best line
    /// (`best`) scored `score`; `only_move` when the root has one move to choose.
    fn iteration_ends_search(
        &mut self,
        depth: u32,
        score: i32,
        best: Move,
        only_move: bool,
        limits: &SearchLimits,
        budget: Option<TimeBudget>,
    ) -> bool {
        // A mate found within the full-width depth will not change with more depth.
        if score.abs() >= MATE_BOUND && MATE - score.abs() <= depth as i32 {
            return true;
        }
        let factor = self.trend.soft_factor(&self.tuning, depth, best, score);
        self.observe_ponderhit();
        if limits.infinite || self.pondering {
            return false;
        }
        // Under a clock, do not start an iteration past a share of the soft budget (one that
        // would likely not finish within it), scaled by how settled the search is; a forced
        // move needs no thought. A fixed move time is spent in full.
        match budget.and_then(|b| b.soft) {
            Some(_) if only_move => true,
            Some(soft) => self.clock_start.elapsed().as_secs_f64() >= soft.as_secs_f64() * factor,
            None => false,
        }
    }

    /// UCI: under `go infinite` the result is given only after `stop`, and a pondering search's
    /// only after `ponderhit` or `stop`, even when there is nothing left to search.
    fn wait_for_release(&mut self, limits: &SearchLimits) {
        loop {
            if self.stop.load(Ordering::Relaxed) {
                return;
            }
            self.observe_ponderhit();
            if !limits.infinite && !self.pondering {
                return;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Notices a `ponderhit`: the time budget starts now.
    fn observe_ponderhit(&mut self) {
        if self.pondering && !self.ponder.load(Ordering::Relaxed) {
            self.pondering = false;
            self.clock_start = Instant::now();
            self.deadline = self
                .hard_budget
                .and_then(|hard| self.clock_start.checked_add(hard));
        }
    }

    /// Whether the root may search `mv` (searchmoves, and MultiPV lines already taken).
    pub(super) fn root_may_search(&self, mv: Move) -> bool {
        (self.root_allowed.is_empty() || self.root_allowed.contains(&mv))
            && !self.root_excluded.contains(&mv)
    }

    /// One iteration, first with a narrow window around the last score, widening on failure.
    fn aspiration(&mut self, pos: &mut Position, depth: i32, previous: i32) -> i32 {
        let tuning = &self.tuning;
        let (growth, max_window) = (tuning.aspiration_growth, tuning.aspiration_max_window);
        let mut delta = tuning.aspiration_window;
        let (mut alpha, mut beta) =
            if depth >= tuning.aspiration_min_depth && previous.abs() < TB_WIN_BOUND {
                (previous - delta, previous + delta)
            } else {
                (-INFINITY, INFINITY)
            };
        loop {
            let score = self.negamax(pos, depth, alpha, beta, 0, false);
            if self.aborted {
                return score;
            }
            // A full window cannot fail; evaluations are clamped, but never loop on a bound.
            if alpha <= -INFINITY && beta >= INFINITY {
                return score;
            }
            if score <= alpha {
                beta = (alpha + beta) / 2;
                alpha = (score - delta).max(-INFINITY);
            } else if score >= beta {
                beta = (score + delta).min(INFINITY);
            } else {
                return score;
            }
            delta = delta.saturating_mul(growth);
            if delta > max_window {
                alpha = -INFINITY;
                beta = INFINITY;
            }
        }
    }

    /// Node and time limits; the clock and the stop flag are read every 1024 nodes.
    #[inline]
    pub(super) fn out_of_budget(&mut self) -> bool {
        if !self.limits_armed {
            return false;
        }
        if self.nodes >= self.node_limit {
            self.aborted = true;
        } else if self.nodes & 1023 == 0 {
            if self.stop.load(Ordering::Relaxed) {
                self.aborted = true;
                return true;
            }
            if self.pondering {
                self.observe_ponderhit();
            }
            if let Some(deadline) = self.deadline {
                if Instant::now() >= deadline {
                    self.aborted = true;
                }
            }
        }
        self.aborted
    }
}
