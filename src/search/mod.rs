//! The search: iterative deepening with aspiration windows over a principal-variation search with
//! a transposition table, quiescence, null-move pruning, late-move reductions, futility and
//! reverse-futility pruning, razoring and check extensions. Single-threaded and deterministic
//! under node or depth limits.

pub mod bench_positions;
mod history;
mod limits;
pub mod params;
mod tt;

/// Reported scores and the mate score live below the search (`crate::score`); re-exported here.
pub use crate::score::{Score, MATE, MATE_BOUND};
pub use limits::{Clock, SearchLimits, TimeBudget};
pub use params::{ParamKind, SearchParamSpec, SearchParams, SEARCH_PARAMS};
pub use tt::{max_hash_mb, Bound, TableAllocError, TranspositionTable};

use history::{piece_to, Histories, PieceTo, NO_PIECE_TO};

use crate::board::see::{see_ge, SEE_VALUES};
use crate::board::{GenMode, Move, MoveList, PieceKind, Position};
use crate::eval::{evaluate, EvalParams};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The deepest ply the search reaches (quiescence included).
pub const MAX_PLY: usize = 128;

/// The stack a searching thread gets: a search MAX_PLY deep through quiescence (every pawn
/// promoting, say) overflows the 2 MiB default in an unoptimised build.
pub const SEARCH_THREAD_STACK: usize = 64 << 20;
// A mate found anywhere in the tree must score beyond the bound every evaluation stays inside.
const _: () = assert!(MATE_BOUND == MATE - MAX_PLY as i32 - 1);
/// Static evaluations are clamped to this, strictly inside the non-mate range, so that no
/// weights can make an evaluation look like a mate or escape the search window.
pub const MAX_EVAL: i32 = MATE_BOUND - 1;
const INFINITY: i32 = 32_500;

/// The reported form of an internal score: mate scores become moves to mate.
fn reported_score(score: i32) -> Score {
    if score >= MATE_BOUND {
        Score::Mate((MATE - score + 1) / 2)
    } else if score <= -MATE_BOUND {
        Score::Mate(-(MATE + score + 1) / 2)
    } else {
        Score::Cp(score)
    }
}

/// Progress after each completed iteration.
#[derive(Clone, Debug)]
pub struct SearchInfo {
    /// The completed iteration's depth in plies (0 when the root has no legal move).
    pub depth: u32,
    /// The deepest ply reached in this iteration, quiescence included.
    pub seldepth: u32,
    /// The line's score from the side to move's point of view.
    pub score: Score,
    /// Nodes searched since the search started.
    pub nodes: u64,
    /// Time since the search started.
    pub time: Duration,
    /// Transposition table fill in permille (UCI `hashfull`).
    pub hashfull: u32,
    /// The principal variation, starting with the root move.
    pub pv: Vec<Move>,
    /// Which principal variation this is, from 1 (the best) to the MultiPV count.
    pub multipv: u32,
}

impl SearchInfo {
    /// Nodes per second so far.
    pub fn nps(&self) -> u64 {
        (self.nodes as f64 / self.time.as_secs_f64().max(1e-6)) as u64
    }
}

/// A root move about to be searched (UCI `currmove`), given to the root-move listener.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RootMove {
    /// The iteration's depth.
    pub depth: u32,
    /// The move.
    pub mv: Move,
    /// 1 for the first move searched in this iteration (and principal variation), and so on.
    pub number: u32,
}

/// Sees every root move as its search starts; set with `Searcher::set_root_move_listener`.
pub type RootMoveListener = Box<dyn FnMut(&RootMove) + Send>;

/// The outcome of a search.
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// Always a legal move when the position has one; `Move::NULL` only when it has none.
    pub best_move: Move,
    /// The expected reply (the principal variation's second move), for UCI `bestmove .. ponder`.
    pub ponder: Option<Move>,
    /// The best move's score from the side to move's point of view.
    pub score: Score,
    /// Depth in plies of the last completed iteration (0 when the root has no legal move).
    pub depth: u32,
    /// The deepest ply reached in that iteration, quiescence included.
    pub seldepth: u32,
    /// Nodes searched in the whole search, including an aborted last iteration.
    pub nodes: u64,
    /// Wall-clock time of the whole search.
    pub time: Duration,
    /// The principal variation of the last completed iteration.
    pub pv: Vec<Move>,
}

/// A searcher owns its transposition table and move-ordering state; one per game or UCI session.
pub struct Searcher {
    params: Arc<EvalParams>,
    tt: TranspositionTable,
    stop: Arc<AtomicBool>,
    /// Set from outside while the search ponders (time limits off); cleared on `ponderhit`.
    ponder: Arc<AtomicBool>,
    /// Whether this search still ponders, as last seen; the clock starts when this turns false.
    pondering: bool,
    /// The hard time limit, applied from `clock_start`.
    hard_budget: Option<Duration>,
    /// When the time budget began: the search's start, or the `ponderhit`.
    clock_start: Instant,
    /// The root moves this search may play (`searchmoves`); empty means all.
    root_allowed: Vec<Move>,
    /// Root moves already taken by better principal variations of this iteration (MultiPV).
    root_excluded: Vec<Move>,
    /// Whether either root list applies, so the unrestricted search pays one test at the root.
    root_restricted: bool,
    root_listener: Option<RootMoveListener>,
    histories: Histories,
    /// The piece and destination of the move made at each ply of the current path
    /// (`NO_PIECE_TO` for a null move), for the continuation histories and counter moves.
    moved: [PieceTo; MAX_PLY + 2],
    killers: [[Move; 2]; MAX_PLY + 2],
    /// The tuned constants, with their derived tables (late-move reductions, pruning counts).
    tuning: SearchParams,
    pv: Box<[[Move; MAX_PLY + 1]; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
    static_evals: [i32; MAX_PLY + 2],
    /// Keys of the game's earlier positions and of the current search path, for repetitions.
    keys: Vec<u64>,
    nodes: u64,
    seldepth: usize,
    node_limit: u64,
    deadline: Option<Instant>,
    aborted: bool,
    /// Limits apply only once the first iteration is complete, so there is always a searched move.
    limits_armed: bool,
    /// The depth of the iteration under way, for the root-move listener.
    iteration_depth: u32,
}

impl Searcher {
    /// A searcher with a `hash_mb` table; aborts like any allocation when memory is short (sizes
    /// a user chose go through `try_new`).
    pub fn new(params: Arc<EvalParams>, hash_mb: usize) -> Searcher {
        Searcher::with_table(params, TranspositionTable::new(hash_mb))
    }

    /// A searcher with a `hash_mb` table, or the reason that table cannot be had.
    pub fn try_new(params: Arc<EvalParams>, hash_mb: usize) -> Result<Searcher, TableAllocError> {
        Ok(Searcher::with_table(
            params,
            TranspositionTable::try_new(hash_mb)?,
        ))
    }

    fn with_table(params: Arc<EvalParams>, tt: TranspositionTable) -> Searcher {
        Searcher {
            params,
            tt,
            stop: Arc::new(AtomicBool::new(false)),
            ponder: Arc::new(AtomicBool::new(false)),
            pondering: false,
            hard_budget: None,
            clock_start: Instant::now(),
            root_allowed: Vec::new(),
            root_excluded: Vec::new(),
            root_restricted: false,
            root_listener: None,
            histories: Histories::new(),
            moved: [NO_PIECE_TO; MAX_PLY + 2],
            killers: [[Move::NULL; 2]; MAX_PLY + 2],
            tuning: SearchParams::default(),
            pv: Box::new([[Move::NULL; MAX_PLY + 1]; MAX_PLY + 1]),
            pv_len: [0; MAX_PLY + 1],
            static_evals: [0; MAX_PLY + 2],
            keys: Vec::with_capacity(1024),
            nodes: 0,
            seldepth: 0,
            node_limit: u64::MAX,
            deadline: None,
            aborted: false,
            limits_armed: false,
            iteration_depth: 0,
        }
    }

    /// The flag that stops a running search from another thread (UCI `stop`). The search does not
    /// clear it: whoever starts a search that may be stopped clears it first.
    pub fn stop_handle(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// The pondering flag: set it before a search starts to ponder (no time limits, and no
    /// result before it is cleared or the search stopped); clear it on `ponderhit`, after which
    /// the search goes on under its time limits counted from that moment.
    pub fn ponder_handle(&self) -> Arc<AtomicBool> {
        self.ponder.clone()
    }

    /// Installs (or with None removes) the listener that sees each root move as it is searched.
    pub fn set_root_move_listener(&mut self, listener: Option<RootMoveListener>) {
        self.root_listener = listener;
    }

    /// Replaces the evaluation weights for later searches; the table keeps its entries (see
    /// [`clear`](Self::clear)).
    pub fn set_params(&mut self, params: Arc<EvalParams>) {
        self.params = params;
    }

    /// The evaluation weights in use.
    pub fn params(&self) -> &EvalParams {
        &self.params
    }

    /// A searcher with the search constants `search` instead of the defaults.
    pub fn with_search_params(
        params: Arc<EvalParams>,
        search: SearchParams,
        hash_mb: usize,
    ) -> Result<Searcher, TableAllocError> {
        let mut searcher = Searcher::try_new(params, hash_mb)?;
        searcher.set_search_params(search);
        Ok(searcher)
    }

    /// Replaces the search constants for later searches.
    pub fn set_search_params(&mut self, search: SearchParams) {
        self.tuning = search;
    }

    /// The search constants in use.
    pub fn search_params(&self) -> &SearchParams {
        &self.tuning
    }

    /// Replaces the table by one of `hash_mb`; on failure the old table stays.
    pub fn try_set_hash_mb(&mut self, hash_mb: usize) -> Result<(), TableAllocError> {
        self.tt = TranspositionTable::try_new(hash_mb)?;
        Ok(())
    }

    /// The quiescence search of `pos` with a full window and no limits: its score (side to move's
    /// view) and principal variation, the captures and promotions that resolve the position.
    /// Texel's tuning method evaluates the position at the end of this line, where a static
    /// evaluation means something.
    pub fn quiescence_pv(&mut self, pos: &Position) -> (i32, Vec<Move>) {
        self.nodes = 0;
        self.aborted = false;
        self.limits_armed = false;
        self.keys.clear();
        let mut pos = pos.clone();
        let score = self.quiescence(&mut pos, -INFINITY, INFINITY, 0);
        (score, self.pv[0][..self.pv_len[0]].to_vec())
    }

    /// Forgets everything learnt (UCI `ucinewgame`): table, history and killers.
    pub fn clear(&mut self) {
        self.tt.clear();
        self.histories.clear();
        self.killers = [[Move::NULL; 2]; MAX_PLY + 2];
    }

    /// Searches `pos`. `previous_keys` are the keys of the game's positions before `pos`, oldest
    /// first, for repetition detection. `report` sees each completed iteration, once per
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
        self.tt.new_search();
        self.nodes = 0;
        self.aborted = false;
        self.limits_armed = false;
        self.node_limit = limits.nodes.unwrap_or(u64::MAX);
        let budget = limits.time_budget(pos.side_to_move());
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
        let mut pos = pos.clone();

        let legal = pos.legal_moves();
        self.root_allowed.clear();
        for &mv in &limits.searchmoves {
            if legal.iter().any(|&l| l == mv) && !self.root_allowed.contains(&mv) {
                self.root_allowed.push(mv);
            }
        }
        self.root_excluded.clear();
        let root_count = match self.root_allowed.len() {
            0 => legal.len(),
            n => n,
        };
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
            });
            self.wait_for_release(limits);
            result.time = start.elapsed();
            return result;
        }
        let lines = limits.multipv.clamp(1, root_count);
        let max_depth = limits
            .depth
            .unwrap_or(MAX_PLY as u32 - 1)
            .clamp(1, MAX_PLY as u32 - 1);
        // The previous iteration's score of each principal variation, its aspiration centre.
        let mut scores = vec![0; lines];
        'deepening: for depth in 1..=max_depth {
            self.iteration_depth = depth;
            self.root_excluded.clear();
            for (line, line_score) in scores.iter_mut().enumerate() {
                self.root_restricted =
                    !self.root_allowed.is_empty() || !self.root_excluded.is_empty();
                self.seldepth = 0;
                let score = self.aspiration(&mut pos, depth as i32, *line_score);
                if self.aborted {
                    break 'deepening;
                }
                *line_score = score;
                let pv: Vec<Move> = self.pv[0][..self.pv_len[0]].to_vec();
                let info = SearchInfo {
                    depth,
                    seldepth: self.seldepth as u32,
                    score: reported_score(score),
                    nodes: self.nodes,
                    time: start.elapsed(),
                    hashfull: self.tt.hashfull(),
                    pv,
                    multipv: line as u32 + 1,
                };
                if line == 0 {
                    self.limits_armed = true;
                    result = SearchResult {
                        best_move: info.pv.first().copied().unwrap_or(result.best_move),
                        ponder: info.pv.get(1).copied(),
                        score: info.score,
                        depth,
                        seldepth: info.seldepth,
                        nodes: self.nodes,
                        time: info.time,
                        pv: info.pv.clone(),
                    };
                }
                report(&info);
                match info.pv.first() {
                    Some(&mv) => self.root_excluded.push(mv),
                    None => break,
                }
            }
            // A mate found within the full-width depth will not change with more depth.
            let score = scores[0];
            if score.abs() >= MATE_BOUND && MATE - score.abs() <= depth as i32 {
                break;
            }
            self.observe_ponderhit();
            if limits.infinite || self.pondering {
                continue;
            }
            // Under a clock, do not start an iteration that is unlikely to finish within the
            // soft budget; a fixed move time is spent in full.
            if let Some(soft) = budget.and_then(|b| b.soft) {
                if self.clock_start.elapsed() >= soft / 2 {
                    break;
                }
            }
        }
        self.root_allowed.clear();
        self.root_excluded.clear();
        self.root_restricted = false;
        self.wait_for_release(limits);
        result.nodes = self.nodes;
        result.time = start.elapsed();
        result
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
    fn root_may_search(&self, mv: Move) -> bool {
        (self.root_allowed.is_empty() || self.root_allowed.contains(&mv))
            && !self.root_excluded.contains(&mv)
    }

    /// One iteration, first with a narrow window around the last score, widening on failure.
    fn aspiration(&mut self, pos: &mut Position, depth: i32, previous: i32) -> i32 {
        let tuning = &self.tuning;
        let (growth, max_window) = (tuning.aspiration_growth, tuning.aspiration_max_window);
        let mut delta = tuning.aspiration_window;
        let (mut alpha, mut beta) =
            if depth >= tuning.aspiration_min_depth && previous.abs() < MATE_BOUND {
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
    fn out_of_budget(&mut self) -> bool {
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

    /// A repetition of any position since the last irreversible move scores as a draw.
    fn is_repetition(&self, pos: &Position) -> bool {
        let key = pos.key();
        let window = (pos.halfmove_clock() as usize).min(self.keys.len());
        self.keys[self.keys.len() - window..]
            .iter()
            .rev()
            .skip(1)
            .step_by(2)
            .any(|&k| k == key)
    }

    /// The static evaluation, clamped inside the non-mate range whatever the weights.
    fn evaluate(&self, pos: &Position) -> i32 {
        evaluate(pos, &self.params).clamp(-MAX_EVAL, MAX_EVAL)
    }

    fn update_pv(&mut self, ply: usize, mv: Move) {
        self.pv[ply][ply] = mv;
        let child_len = self.pv_len[ply + 1].max(ply + 1);
        for i in ply + 1..child_len {
            self.pv[ply][i] = self.pv[ply + 1][i];
        }
        self.pv_len[ply] = child_len;
    }

    fn negamax(
        &mut self,
        pos: &mut Position,
        mut depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
        after_null: bool,
    ) -> i32 {
        self.pv_len[ply] = ply;
        let in_check = pos.in_check();
        if in_check {
            depth += self.tuning.check_extension; // Look further when in check.
        }
        if depth <= 0 {
            return self.quiescence(pos, alpha, beta, ply);
        }
        if self.out_of_budget() {
            return 0;
        }
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        let root = ply == 0;
        let pv_node = beta - alpha > 1;

        if !root {
            if pos.halfmove_clock() >= 100 || self.is_repetition(pos) {
                // A mate on the hundredth half-move still counts.
                if !in_check || pos.has_legal_moves() {
                    return 0;
                }
            }
            if pos.is_insufficient_material() {
                return 0;
            }
            if ply >= MAX_PLY - 1 {
                return self.evaluate(pos);
            }
            // Mate-distance pruning: no score here can beat a shorter mate already found.
            alpha = alpha.max(-MATE + ply as i32);
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }

        let key = pos.key();
        let entry = self.tt.probe(key);
        let tt_move = entry.map_or(Move::NULL, |e| e.mv);
        if let Some(e) = entry {
            if !pv_node && e.depth >= depth {
                let score = score_from_tt(e.score, ply);
                if e.bound.settles(score, alpha, beta) {
                    return score;
                }
            }
        }

        let static_eval = if in_check {
            -INFINITY
        } else if let Some(e) = entry {
            e.eval
        } else {
            self.evaluate(pos)
        };
        self.static_evals[ply] = static_eval;
        let improving = !in_check && ply >= 2 && static_eval > self.static_evals[ply - 2];
        self.killers[ply + 1] = [Move::NULL; 2];

        let tuning = &self.tuning;
        if !pv_node && !in_check {
            // Reverse futility: far above beta at low depth, assume a move holds it.
            let margin =
                tuning.rfp_margin * depth - if improving { tuning.rfp_improving } else { 0 };
            if depth <= tuning.rfp_max_depth
                && static_eval - margin >= beta
                && beta.abs() < MATE_BOUND
            {
                return static_eval;
            }
            // Razoring: far below alpha near the leaves, ask quiescence whether anything helps.
            if depth <= tuning.razor_max_depth
                && static_eval + tuning.razor_base + tuning.razor_per_depth * depth <= alpha
            {
                let score = self.quiescence(pos, alpha, alpha + 1, ply);
                if score <= alpha {
                    return score;
                }
            }
            // Null move: if passing still beats beta, a real move will too (not in pawn
            // endings, where zugzwang makes passing an advantage).
            let tuning = &self.tuning;
            if !after_null
                && depth >= tuning.nmp_min_depth
                && static_eval >= beta
                && pos.has_non_pawn_material(pos.side_to_move())
            {
                let r = tuning.nmp_base
                    + depth / tuning.nmp_depth_divisor
                    + ((static_eval - beta) / tuning.nmp_eval_divisor).min(tuning.nmp_eval_max);
                let undo = pos.make_null_move();
                self.moved[ply] = NO_PIECE_TO;
                self.keys.push(key);
                let score = -self.negamax(pos, depth - 1 - r, -beta, -beta + 1, ply + 1, true);
                self.keys.pop();
                pos.unmake_null_move(undo);
                if self.aborted {
                    return 0;
                }
                if score >= beta {
                    return if score >= MATE_BOUND { beta } else { score };
                }
            }
        }

        // Without a table move, a PV node searches one ply less first (internal reduction).
        if pv_node && tt_move.is_null() && depth >= self.tuning.iir_min_depth {
            depth -= 1;
        }

        let mut moves = pos.legal_moves();
        if moves.is_empty() {
            return if in_check { -MATE + ply as i32 } else { 0 };
        }
        let mut scores = [0i32; MoveList::CAPACITY];
        self.score_moves(pos, &moves, &mut scores, tt_move, ply);

        let side = pos.side_to_move().index();
        let previous = self.previous_moves(ply);
        let original_alpha = alpha;
        let mut best_score = -INFINITY;
        let mut best_move = Move::NULL;
        let mut quiets_tried = MoveList::new();
        let mut captures_tried = MoveList::new();
        let mut searched = 0usize;
        let lmp_limit = self.tuning.tables.lmp[improving as usize]
            [(depth.max(0) as usize).min(params::LMP_SIZE - 1)];

        for index in 0..moves.len() {
            let mv = pick_next(moves.as_mut_slice(), &mut scores, index);
            if root && self.root_restricted && !self.root_may_search(mv) {
                continue;
            }
            let quiet = mv.is_quiet();
            let gives_check = pos.gives_check(mv);
            let moved = piece_to(pos, mv);
            let history = match quiet {
                true => self.histories.quiet(side, mv, moved, previous),
                false => 0,
            };
            if !root && !in_check && !gives_check && best_score > -MATE_BOUND {
                let tuning = &self.tuning;
                if quiet {
                    // Late-move pruning and futility: quiet moves late in the list or far below
                    // alpha at low depth rarely matter.
                    if depth <= tuning.lmp_max_depth && quiets_tried.len() >= lmp_limit {
                        continue;
                    }
                    if depth <= tuning.futility_max_depth
                        && static_eval + tuning.futility_base + tuning.futility_per_depth * depth
                            <= alpha
                    {
                        continue;
                    }
                    // History pruning: a quiet move that keeps failing in this line.
                    if depth <= tuning.history_prune_max_depth
                        && history < -tuning.history_prune_margin * depth
                    {
                        continue;
                    }
                    // Quiet SEE pruning: a move that gives material away for nothing.
                    if depth <= tuning.see_quiet_max_depth
                        && !see_ge(pos, mv, -tuning.see_quiet_margin * depth)
                    {
                        continue;
                    }
                } else if depth <= tuning.see_max_depth
                    && !see_ge(pos, mv, -tuning.see_capture_margin * depth)
                {
                    continue; // Captures that lose material at low depth.
                }
            }

            let undo = pos.make_move(mv);
            self.tt.prefetch(pos.key());
            self.keys.push(key);
            self.moved[ply] = moved;
            searched += 1;
            if root {
                if let Some(listener) = self.root_listener.as_mut() {
                    listener(&RootMove {
                        depth: self.iteration_depth,
                        mv,
                        number: searched as u32,
                    });
                }
            }
            let new_depth = depth - 1;
            let mut score;
            if searched == 1 {
                score = -self.negamax(pos, new_depth, -beta, -alpha, ply + 1, false);
            } else {
                let mut reduction = 0;
                let tuning = &self.tuning;
                if depth >= tuning.lmr_min_depth
                    && searched > tuning.lmr_min_moves as usize
                    && quiet
                    && !gives_check
                {
                    let last = params::LMR_SIZE - 1;
                    reduction = tuning.tables.lmr[(depth as usize).min(last)][searched.min(last)];
                    if pv_node {
                        reduction -= tuning.lmr_pv;
                    }
                    if !improving {
                        reduction += tuning.lmr_not_improving;
                    }
                    if self.killers[ply].contains(&mv) {
                        reduction -= tuning.lmr_killer;
                    }
                    reduction -= history / tuning.lmr_history_divisor;
                    reduction = reduction.clamp(0, (new_depth - 1).max(0));
                }
                score = -self.negamax(
                    pos,
                    new_depth - reduction,
                    -alpha - 1,
                    -alpha,
                    ply + 1,
                    false,
                );
                if score > alpha && reduction > 0 {
                    score = -self.negamax(pos, new_depth, -alpha - 1, -alpha, ply + 1, false);
                }
                if score > alpha && score < beta {
                    score = -self.negamax(pos, new_depth, -beta, -alpha, ply + 1, false);
                }
            }
            self.keys.pop();
            pos.unmake_move(mv, undo);
            if self.aborted {
                return 0;
            }

            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = mv;
                    alpha = score;
                    self.update_pv(ply, mv);
                    if score >= beta {
                        self.reward_cutoff(pos, mv, &quiets_tried, &captures_tried, depth, ply);
                        break;
                    }
                }
            }
            if quiet {
                quiets_tried.push(mv);
            } else if captured(pos, mv).is_some() {
                captures_tried.push(mv);
            }
        }
        // Every move was pruned (possible only outside check): fall back to the static score.
        if searched == 0 {
            return static_eval;
        }

        // A restricted root's result is not the position's: keep it out of the table.
        if !(root && self.root_restricted) {
            let bound = Bound::of(best_score, original_alpha, beta);
            self.tt.store(
                key,
                best_move,
                score_to_tt(best_score, ply),
                static_eval,
                depth,
                bound,
            );
        }
        best_score
    }

    /// The piece-to indices of the moves one and two plies before `ply`.
    #[inline]
    fn previous_moves(&self, ply: usize) -> [PieceTo; 2] {
        let back = |n: usize| match ply.checked_sub(n) {
            Some(p) => self.moved[p],
            None => NO_PIECE_TO,
        };
        [back(1), back(2)]
    }

    /// The histories after `mv` refuted the node at `ply`: a quiet refutation becomes a killer
    /// and the counter move, and gains history while the quiet moves tried before it lose; a
    /// capture gains capture history; the captures tried before either lose.
    fn reward_cutoff(
        &mut self,
        pos: &Position,
        mv: Move,
        quiets: &MoveList,
        captures: &MoveList,
        depth: i32,
        ply: usize,
    ) {
        let tuning = &self.tuning;
        let depth_squared = depth.saturating_mul(depth);
        // An update no larger than the divisor keeps every entry within about the divisor, and
        // the parameter ranges keep entry * update within 32 bits.
        let divisor = tuning.history_divisor;
        let bonus = tuning
            .history_bonus_scale
            .saturating_mul(depth_squared)
            .min(tuning.history_bonus_max)
            .min(divisor);
        let malus = tuning
            .history_malus_scale
            .saturating_mul(depth_squared)
            .min(tuning.history_malus_max)
            .min(divisor);
        let side = pos.side_to_move().index();
        let previous = self.previous_moves(ply);
        let histories = &mut self.histories;
        if mv.is_quiet() {
            if self.killers[ply][0] != mv {
                self.killers[ply][1] = self.killers[ply][0];
                self.killers[ply][0] = mv;
            }
            histories.set_counter(previous[0], mv);
            histories.update_quiet(side, mv, piece_to(pos, mv), previous, bonus, divisor);
            for &m in quiets.iter() {
                histories.update_quiet(side, m, piece_to(pos, m), previous, -malus, divisor);
            }
        } else if let Some(victim) = captured(pos, mv) {
            histories.update_capture(piece_to(pos, mv), victim, bonus, divisor);
        }
        for &m in captures.iter() {
            if let Some(victim) = captured(pos, m) {
                histories.update_capture(piece_to(pos, m), victim, -malus, divisor);
            }
        }
    }

    /// Ordering keys: table move, winning captures and queen promotions by MVV-LVA, killers,
    /// history for the other quiet moves, losing captures last.
    fn score_moves(
        &self,
        pos: &Position,
        moves: &MoveList,
        scores: &mut [i32],
        tt_move: Move,
        ply: usize,
    ) {
        let side = pos.side_to_move().index();
        let previous = self.previous_moves(ply);
        let counter = self.histories.counter_move(previous[0]);
        for (i, &mv) in moves.iter().enumerate() {
            scores[i] = if mv == tt_move {
                100_000_000
            } else if !mv.is_quiet() {
                let victim = captured(pos, mv).unwrap_or(PieceKind::Pawn);
                let attacker = pos.kind_on(mv.from()).unwrap_or(PieceKind::Pawn);
                // Capture history breaks ties between victims of about the same value.
                let learnt = self.histories.capture(piece_to(pos, mv), victim) / 64;
                let mvv_lva = 16 * SEE_VALUES[victim.index()] / 10 - attacker.index() as i32;
                let key = mvv_lva + learnt;
                match mv.promotion() {
                    Some(PieceKind::Queen) => 20_000_000 + key,
                    Some(_) => -20_000_000 + key,
                    None if see_ge(pos, mv, 0) => 10_000_000 + key,
                    None => -10_000_000 + key,
                }
            } else if self.killers[ply][0] == mv {
                9_000_000
            } else if self.killers[ply][1] == mv {
                8_000_000
            } else if mv == counter {
                7_000_000
            } else {
                self.histories.quiet(side, mv, piece_to(pos, mv), previous)
            };
        }
    }

    fn quiescence(&mut self, pos: &mut Position, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.pv_len[ply] = ply;
        if self.out_of_budget() {
            return 0;
        }
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        if ply >= MAX_PLY - 1 {
            return self.evaluate(pos);
        }
        let in_check = pos.in_check();
        let key = pos.key();
        let entry = self.tt.probe(key);
        if let Some(e) = entry {
            let score = score_from_tt(e.score, ply);
            if beta - alpha == 1 && e.bound.settles(score, alpha, beta) {
                return score;
            }
        }

        let mut best_score;
        let stand_pat;
        if in_check {
            stand_pat = -INFINITY;
            best_score = -INFINITY;
        } else {
            stand_pat = entry.map_or_else(|| self.evaluate(pos), |e| e.eval);
            if stand_pat >= beta {
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
            best_score = stand_pat;
        }

        let mut moves = pos.moves(if in_check {
            GenMode::All
        } else {
            GenMode::Noisy
        });
        if in_check && moves.is_empty() {
            return -MATE + ply as i32;
        }
        let mut scores = [0i32; MoveList::CAPACITY];
        self.score_moves(pos, &moves, &mut scores, Move::NULL, ply);
        let original_alpha = alpha;
        let mut best_move = Move::NULL;
        for index in 0..moves.len() {
            let mv = pick_next(moves.as_mut_slice(), &mut scores, index);
            if !in_check {
                if matches!(mv.promotion(), Some(k) if k != PieceKind::Queen) {
                    continue;
                }
                if !mv.is_promotion() {
                    // Delta pruning: even winning the victim cannot reach alpha.
                    let victim = pos.kind_on(mv.to()).map_or(100, |k| SEE_VALUES[k.index()]);
                    if stand_pat + victim + self.tuning.qsearch_delta_margin <= alpha {
                        continue;
                    }
                }
                if !see_ge(pos, mv, -self.tuning.qsearch_see_margin) {
                    continue;
                }
            }
            self.moved[ply] = piece_to(pos, mv);
            let undo = pos.make_move(mv);
            self.tt.prefetch(pos.key());
            let score = -self.quiescence(pos, -beta, -alpha, ply + 1);
            pos.unmake_move(mv, undo);
            if self.aborted {
                return 0;
            }
            if score > best_score {
                best_score = score;
                if score > alpha {
                    alpha = score;
                    best_move = mv;
                    self.update_pv(ply, mv);
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        let bound = Bound::of(best_score, original_alpha, beta);
        let eval = if in_check { 0 } else { stand_pat };
        self.tt
            .store(key, best_move, score_to_tt(best_score, ply), eval, 0, bound);
        best_score
    }
}

/// The kind a capture takes (a pawn for en passant); None for quiet moves and promotions
/// that capture nothing.
#[inline]
fn captured(pos: &Position, mv: Move) -> Option<PieceKind> {
    if mv.is_quiet() {
        None
    } else if mv.is_en_passant() {
        Some(PieceKind::Pawn)
    } else {
        pos.kind_on(mv.to())
    }
}

/// Selection sort step: moves the best remaining move to `index` and returns it.
#[inline]
fn pick_next(moves: &mut [Move], scores: &mut [i32], index: usize) -> Move {
    let mut best = index;
    for i in index + 1..moves.len() {
        if scores[i] > scores[best] {
            best = i;
        }
    }
    moves.swap(index, best);
    scores.swap(index, best);
    moves[index]
}

/// Mate scores are stored relative to the node, not the root, so they stay true elsewhere.
fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}
