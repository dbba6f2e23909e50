//! The search: iterative deepening with aspiration windows over a principal-variation search with
//! a transposition table, quiescence, null-move pruning, late-move reductions, futility and
//! reverse-futility pruning, razoring and check extensions. Single-threaded and deterministic
//! under node or depth limits.
//! under node or depth limits.
//!
//! Main types: [`Searcher`] (owns the transposition table and what the search learns;
//! [`Searcher::search`], [`Searcher::search_game`]), [`SearchLimits`] (depth, nodes, time),
//! [`SearchInfo`] (each iteration's report) and [`SearchResult`]; [`SearchParams`] are the
//! tunable search constants.
//!
//! One phase per file: `iterate` (the driver: limits, iterative deepening, aspiration, reports),
//! `negamax` (the main search's node), `pruning` (what it cuts, skips and reduces), `qsearch`
//! (quiescence), `picker` (move ordering and what cutoffs teach it), `history` and `tt` (what
//! the search learns and remembers), `limits` and `params` (what the caller sets).

// Fixtures of `sparring bench`, tests/ and benches/ (the binary and benches are other crates,
// so public), not library API.
#[doc(hidden)]
pub mod bench_positions;
mod evaluator;
mod history;
mod iterate;
mod limits;
mod negamax;
mod params;
mod picker;
mod pruning;
mod qsearch;
mod reported_pv;
mod syzygy;
mod time;
mod tt;

/// Reported scores and the mate score live below the search (`crate::score`); re-exported here.
use crate::score::{Score, MATE, MATE_BOUND};
pub use evaluator::Evaluator;
pub use limits::{Clock, SearchLimits};
pub use params::{ParamKind, SearchParamError, SearchParamSpec, SearchParams, SEARCH_PARAMS};
pub use syzygy::SearchTablebases;
pub(crate) use syzygy::MAX_PROBE_LIMIT;
pub(crate) use tt::TranspositionTable;
pub use tt::{max_hash_mb, TableAllocError};

use history::{Histories, PieceTo, NO_PIECE_TO};

use crate::board::{Move, Position};
use crate::eval::{EvalParams, PawnTable};
use crate::nnue::AccumulatorStack;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The deepest ply the search reaches (quiescence included).
pub const MAX_PLY: usize = 128;

/// The stack a searching thread gets: a search MAX_PLY deep through quiescence (every pawn
/// promoting, say) overflows the 2 MiB default in an unoptimised build.
pub const SEARCH_THREAD_STACK: usize = 64 << 20;
// A mate found anywhere in the tree must score beyond the bound every evaluation stays inside.
const _: () = assert!(MATE_BOUND == MATE - MAX_PLY as i32 - 1);
/// A tablebase win scores this less the ply it is found at: just inside the mate range, so
/// every mate the search can see is worth more and every evaluation less.
pub(crate) const TB_WIN: i32 = MATE_BOUND - 1;
/// Scores at or beyond this magnitude (and below `MATE_BOUND`) are tablebase wins or losses.
pub const TB_WIN_BOUND: i32 = TB_WIN - MAX_PLY as i32;
/// Static evaluations never exceed this (the evaluation clamps to it, `eval::MAX_EVAL`),
/// strictly inside the non-mate, non-tablebase range, so that no weights can make an evaluation
/// look like a mate or a tablebase win or escape the search window.
pub use crate::eval::MAX_EVAL;
const _: () = assert!(MAX_EVAL == TB_WIN_BOUND - 1);
const INFINITY: i32 = 32_500;

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
    /// Tablebase probes that answered so far (UCI `tbhits`); None when no tables are in use.
    pub tbhits: Option<u64>,
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
pub(crate) type RootMoveListener = Box<dyn FnMut(&RootMove) + Send>;

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
    /// Tablebase probes that answered in the whole search; None when no tables are in use.
    pub tbhits: Option<u64>,
}

/// A searcher owns its transposition table and move-ordering state; one per game or UCI session.
pub struct Searcher {
    params: Arc<EvalParams>,
    tt: TranspositionTable,
    /// The pawn-structure terms of `params`, cached (cleared when the weights change).
    pawn_table: PawnTable,
    /// The network and its accumulators when the search evaluates with a net (`Evaluator`).
    net: Option<Box<AccumulatorStack>>,
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
    /// The Syzygy tables probed, if any.
    tablebases: Option<SearchTablebases>,
    /// Positions with at most this many pieces are probed; 0 without tables, so a node pays
    /// one comparison when none are loaded.
    tb_pieces: u32,
    /// Tablebase probes that answered in this search.
    tbhits: u64,
    /// The root's tablebase score when the root is in the tables.
    root_tb_score: Option<i32>,
    /// The iterations' best moves, scores and root-move nodes, for time management.
    trend: time::IterationTrend,
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
            pawn_table: PawnTable::new(),
            net: None,
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
            tablebases: None,
            tb_pieces: 0,
            tbhits: 0,
            root_tb_score: None,
            trend: time::IterationTrend::default(),
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
    pub(crate) fn set_params(&mut self, params: Arc<EvalParams>) {
        self.params = params;
        self.pawn_table.clear();
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
        self.reset_accumulators(&pos);
        let score = self.quiescence(&mut pos, -INFINITY, INFINITY, 0);
        (score, self.pv[0][..self.pv_len[0]].to_vec())
    }

    /// Forgets everything learnt (UCI `ucinewgame`): table, history and killers.
    pub fn clear(&mut self) {
        self.tt.clear();
        self.histories.clear();
        self.killers = [[Move::NULL; 2]; MAX_PLY + 2];
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

    /// The principal variation at `ply` becomes `mv` followed by the child's.
    fn update_pv(&mut self, ply: usize, mv: Move) {
        self.pv[ply][ply] = mv;
        let child_len = self.pv_len[ply + 1].max(ply + 1);
        for i in ply + 1..child_len {
            self.pv[ply][i] = self.pv[ply + 1][i];
        }
        self.pv_len[ply] = child_len;
    }
}
