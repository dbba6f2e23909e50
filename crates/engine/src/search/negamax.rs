//! The main search: a principal-variation negamax. Each node goes through the same phases —
//! draws and mate distance, the transposition table, static evaluation and node pruning
//! (`pruning.rs`), then the move loop with move pruning and late-move reductions — and stores
//! its result in the table.

use super::history::{piece_to, PieceTo};
use super::picker::{captured, MovePicker};
use super::syzygy::{floor_window, TbVerdict};
use super::tt::{score_from_tt, score_to_tt, Bound, TtEntry};
use super::{RootMove, Searcher, INFINITY, MAX_PLY};
use crate::board::{Move, MoveList, Position};
use crate::score::MATE;

/// What a node knows once its table entry and static evaluation are in, for the phases after.
#[derive(Clone, Copy)]
pub(super) struct Node {
    /// The position's key, pushed on the repetition stack under each move.
    pub key: u64,
    pub ply: usize,
    /// The remaining depth, check extension (and later internal reduction) applied.
    pub depth: i32,
    pub root: bool,
    /// Whether the window is open (a principal-variation node) rather than a null window.
    pub(crate) pv_node: bool,
    pub in_check: bool,
    /// Whether the static evaluation is better than two plies ago, the side's previous node.
    pub(crate) improving: bool,
    /// The static evaluation (-INFINITY in check).
    pub(crate) static_eval: i32,
    /// What a tablebase probe said that did not settle the node (`TbVerdict::None` mostly).
    pub tb: TbVerdict,
    /// The table entry that did not settle the node, its score made relative to this ply.
    pub tt: Option<TtEntry>,
}

/// A move about to be searched, with what pruning and reductions ask about it.
#[derive(Clone, Copy)]
pub(super) struct Candidate {
    pub mv: Move,
    pub quiet: bool,
    pub gives_check: bool,
    /// Its piece and destination, for the move stack.
    pub moved: PieceTo,
    /// The quiet histories' opinion of the move (0 for captures and promotions).
    pub history: i32,
}

impl Searcher {
    /// The score of `pos` searched `depth` plies deep in the window (`alpha`, `beta`) at `ply`;
    /// `after_null` forbids a second null move in a row.
    pub(super) fn negamax(
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
            if let Some(score) = self.settled_early(pos, in_check, ply, &mut alpha, &mut beta) {
                return score;
            }
        }

        let key = pos.key();
        let entry = self.tt.probe(key);
        let tt_move = entry.map_or(Move::NULL, |e| e.mv);
        if let Some(score) = table_cutoff(entry, pv_node, depth, alpha, beta, ply) {
            return score;
        }
        // Without tables this is the only cost a node pays for them.
        let mut tb = TbVerdict::None;
        if self.tb_pieces != 0 && !root {
            tb = self.probe_in_tree(pos, depth, ply, alpha, beta);
            if let TbVerdict::Cut(score) = tb {
                return score;
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
        let mut node = Node {
            key,
            ply,
            depth,
            root,
            pv_node,
            in_check,
            improving,
            static_eval,
            tb,
            tt: entry.map(|e| TtEntry {
                score: score_from_tt(e.score, ply),
                ..e
            }),
        };

        if !pv_node && !in_check {
            if let Some(score) = self.prune_node(pos, &node, alpha, beta, after_null) {
                return score;
            }
        }
        // Without a table move, a PV node searches one ply less first (internal reduction).
        if pv_node && tt_move.is_null() && depth >= self.tuning.iir_min_depth {
            node.depth -= 1;
        }
        self.search_moves(pos, &node, tt_move, alpha, beta)
    }

    /// A score known without searching a non-root node: a draw by the fifty-move rule,
    /// repetition or material, the evaluation at the deepest ply, or a window closed by
    /// mate-distance pruning (which narrows `alpha` and `beta` otherwise).
    #[inline]
    fn settled_early(
        &mut self,
        pos: &Position,
        in_check: bool,
        ply: usize,
        alpha: &mut i32,
        beta: &mut i32,
    ) -> Option<i32> {
        if pos.halfmove_clock() >= 100 || self.is_repetition(pos) {
            // A mate on the hundredth half-move still counts.
            if !in_check || pos.has_legal_moves() {
                return Some(0);
            }
        }
        if pos.is_insufficient_material() {
            return Some(0);
        }
        if ply >= MAX_PLY - 1 {
            return Some(self.evaluate(pos));
        }
        // Mate-distance pruning: no score here can beat a shorter mate already found.
        *alpha = (*alpha).max(-MATE + ply as i32);
        *beta = (*beta).min(MATE - ply as i32 - 1);
        if *alpha >= *beta {
            return Some(*alpha);
        }
        None
    }

    /// The move loop: each legal move in order, pruned, reduced or searched, the best kept; the
    /// node's score, stored in the table.
    #[inline]
    fn search_moves(
        &mut self,
        pos: &mut Position,
        node: &Node,
        tt_move: Move,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
        let ply = node.ply;
        let mut moves = pos.legal_moves();
        if moves.is_empty() {
            return if node.in_check { -MATE + ply as i32 } else { 0 };
        }
        let mut scores = [0; MoveList::CAPACITY];
        let mut picker = MovePicker::new(self, pos, &mut moves, &mut scores, tt_move, ply);
        let side = pos.side_to_move().index();
        let previous = self.previous_moves(ply);
        let original_alpha = alpha;
        // A won tablebase position: a PV node's score is at least the win (Stockfish's way).
        let (mut best_score, raised_alpha) = match node.pv_node {
            true => floor_window(node.tb, alpha),
            false => (-INFINITY, alpha),
        };
        alpha = raised_alpha;
        let mut best_move = Move::NULL;
        let mut quiets_tried = MoveList::new();
        let mut captures_tried = MoveList::new();
        let mut searched = 0usize;
        let lmp_limit = self.late_move_limit(node);

        while let Some(mv) = picker.next() {
            if node.root && self.root_restricted && !self.root_may_search(mv) {
                continue;
            }
            let candidate = self.candidate(pos, mv, side, previous);
            let late = quiets_tried.len() >= lmp_limit;
            if self.prunes_move(pos, node, &candidate, alpha, best_score, late) {
                continue;
            }

            let undo = self.make(pos, mv);
            self.tt.prefetch(pos.key());
            self.keys.push(node.key);
            self.moved[ply] = candidate.moved;
            searched += 1;
            if node.root {
                self.announce_root_move(mv, searched);
            }
            let nodes_before = self.nodes;
            let score = self.search_move(pos, node, &candidate, searched, alpha, beta);
            if node.root {
                self.trend.add_root_nodes(mv, self.nodes - nodes_before);
            }
            self.keys.pop();
            self.unmake(pos, mv, undo);
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
                        let depth = node.depth;
                        self.reward_cutoff(pos, mv, &quiets_tried, &captures_tried, depth, ply);
                        break;
                    }
                }
            }
            if candidate.quiet {
                quiets_tried.push(mv);
            } else if captured(pos, mv).is_some() {
                captures_tried.push(mv);
            }
        }
        // Every move was pruned (possible only outside check): fall back to the static score.
        if searched == 0 {
            return node.static_eval;
        }
        // A lost tablebase position: a PV node's score is at most the loss.
        if let (true, TbVerdict::Cap(cap)) = (node.pv_node, node.tb) {
            best_score = best_score.min(cap);
        }
        // A restricted root's result is not the position's: keep it out of the table.
        if !(node.root && self.root_restricted) {
            let mut bound = Bound::of(best_score, original_alpha, beta);
            // The tables' floor, unbeaten by any move, is only a lower bound.
            if best_move.is_null() && bound == Bound::Exact {
                bound = Bound::Lower;
            }
            let score = score_to_tt(best_score, ply);
            let (key, eval) = (node.key, node.static_eval);
            self.tt
                .store(key, best_move, score, eval, node.depth, bound);
        }
        best_score
    }

    /// What pruning, reductions and the move stack ask about `mv` before it is made.
    #[inline]
    fn candidate(
        &self,
        pos: &Position,
        mv: Move,
        side: usize,
        previous: [PieceTo; 2],
    ) -> Candidate {
        let quiet = mv.is_quiet();
        let moved = piece_to(pos, mv);
        let history = match quiet {
            true => self.histories.quiet(side, mv, moved, previous),
            false => 0,
        };
        Candidate {
            mv,
            quiet,
            gives_check: pos.gives_check(mv),
            moved,
            history,
        }
    }

    /// The move just made, searched: the first move with the full window, the others with a
    /// null window (reduced when late and quiet) and searched again when they beat alpha.
    #[inline]
    fn search_move(
        &mut self,
        pos: &mut Position,
        node: &Node,
        candidate: &Candidate,
        searched: usize,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        let new_depth = node.depth - 1;
        let ply = node.ply;
        if searched == 1 {
            return -self.negamax(pos, new_depth, -beta, -alpha, ply + 1, false);
        }
        let reduction = self.reduction(node, candidate, searched);
        let mut score = -self.negamax(
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
        score
    }

    /// Tells the root-move listener, if any, that `mv` is being searched.
    fn announce_root_move(&mut self, mv: Move, searched: usize) {
        if let Some(listener) = self.root_listener.as_mut() {
            listener(&RootMove {
                depth: self.iteration_depth,
                mv,
                number: searched as u32,
            });
        }
    }
}

/// The table entry's score when it is deep enough and its bound settles the window (never at
/// PV nodes, whose line the table does not hold).
#[inline]
fn table_cutoff(
    entry: Option<TtEntry>,
    pv_node: bool,
    depth: i32,
    alpha: i32,
    beta: i32,
    ply: usize,
) -> Option<i32> {
    let e = entry?;
    if !pv_node && e.depth >= depth {
        let score = score_from_tt(e.score, ply);
        if e.bound.settles(score, alpha, beta) {
            return Some(score);
        }
    }
    None
}
