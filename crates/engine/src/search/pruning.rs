//! The search's selectivity: the nodes it cuts before searching a move (reverse futility,
//! razoring, null move, ProbCut), the moves it skips (late-move, futility, history and SEE pruning) and
//! how much it reduces the late ones (late-move reductions). Every margin is a tuned constant
//! of `SearchParams`.

use super::history::{piece_to, NO_PIECE_TO};
use super::negamax::{Candidate, Node};
use super::params;
use super::picker::MovePicker;
use super::tt::{score_to_tt, Bound};
use super::Searcher;
use super::TB_WIN_BOUND;
use crate::board::see::see_ge;
use crate::board::{GenMode, Move, MoveList, PieceKind, Position};

impl Searcher {
    /// A score for a non-PV node outside check without searching its moves, when its static
    /// evaluation is far enough from the window or passing still beats beta.
    #[inline]
    pub(super) fn prune_node(
        &mut self,
        pos: &mut Position,
        node: &Node,
        alpha: i32,
        beta: i32,
        after_null: bool,
    ) -> Option<i32> {
        let tuning = &self.tuning;
        let (depth, static_eval) = (node.depth, node.static_eval);
        // Reverse futility: far above beta at low depth, assume a move holds it.
        let margin = tuning.rfp_margin * depth
            - if node.improving {
                tuning.rfp_improving
            } else {
                0
            };
        if depth <= tuning.rfp_max_depth
            && static_eval - margin >= beta
            && beta.abs() < TB_WIN_BOUND
        {
            return Some(static_eval);
        }
        // Razoring: far below alpha near the leaves, ask quiescence whether anything helps.
        if depth <= tuning.razor_max_depth
            && static_eval + tuning.razor_base + tuning.razor_per_depth * depth <= alpha
        {
            let score = self.quiescence(pos, alpha, alpha + 1, node.ply);
            if score <= alpha {
                return Some(score);
            }
        }
        // Null move: if passing still beats beta, a real move will too (not in pawn
        // endings, where zugzwang makes passing an advantage, nor when the table already knows
        // the node's moves fall short of beta).
        let tuning = &self.tuning;
        let table_says_below = node
            .tt
            .is_some_and(|e| e.bound == Bound::Upper && e.score < beta);
        if !after_null
            && depth >= tuning.nmp_min_depth
            && static_eval >= beta
            && !table_says_below
            && pos.has_non_pawn_material(pos.side_to_move())
        {
            if let Some(score) = self.null_move(pos, node, beta) {
                return Some(score);
            }
        }
        self.probcut(pos, node, beta)
    }

    /// ProbCut: from `probcut.min_depth`, a capture that wins enough to lift a shallow search
    /// a margin above beta (asked of quiescence first, then of a null window `probcut.reduction`
    /// plies shallower) is taken as proof that the node fails high.
    #[inline]
    fn probcut(&mut self, pos: &mut Position, node: &Node, beta: i32) -> Option<i32> {
        let tuning = &self.tuning;
        let (depth, ply) = (node.depth, node.ply);
        if depth < tuning.probcut_min_depth || beta.abs() >= TB_WIN_BOUND - tuning.probcut_margin {
            return None;
        }
        let raised = beta + tuning.probcut_margin;
        let reduced = depth - tuning.probcut_reduction;
        // An entry as deep as the verification that scored below the mark: no capture will.
        if node
            .tt
            .is_some_and(|e| e.depth > reduced && e.score < raised)
        {
            return None;
        }
        let mut moves = pos.moves(GenMode::Noisy);
        let mut scores = [0; MoveList::CAPACITY];
        let tt_move = node.tt.map_or(Move::NULL, |e| e.mv);
        let mut picker = MovePicker::new(self, pos, &mut moves, &mut scores, tt_move, ply);
        while let Some(mv) = picker.next() {
            let under_promotion = matches!(mv.promotion(), Some(k) if k != PieceKind::Queen);
            if under_promotion || !see_ge(pos, mv, raised - node.static_eval) {
                continue;
            }
            self.moved[ply] = piece_to(pos, mv);
            let undo = self.make(pos, mv);
            self.keys.push(node.key);
            let mut score = -self.quiescence(pos, -raised, -raised + 1, ply + 1);
            if score >= raised {
                score = -self.negamax(pos, reduced, -raised, -raised + 1, ply + 1, false);
            }
            self.keys.pop();
            self.unmake(pos, mv, undo);
            if self.aborted {
                return Some(0);
            }
            if score >= raised {
                let stored = score_to_tt(score, ply);
                let eval = node.static_eval;
                self.tt
                    .store(node.key, mv, stored, eval, reduced + 1, Bound::Lower);
                return Some(score);
            }
        }
        None
    }

    /// Passes and searches the reply with a reduced null window above beta: the score when
    /// passing holds beta (mates and tablebase wins unproven, as beta), or when the search was aborted.
    #[inline]
    fn null_move(&mut self, pos: &mut Position, node: &Node, beta: i32) -> Option<i32> {
        let tuning = &self.tuning;
        let (depth, static_eval, ply) = (node.depth, node.static_eval, node.ply);
        let r = tuning.nmp_base
            + depth / tuning.nmp_depth_divisor
            + ((static_eval - beta) / tuning.nmp_eval_divisor).min(tuning.nmp_eval_max);
        let undo = pos.make_null_move();
        self.moved[ply] = NO_PIECE_TO;
        self.keys.push(node.key);
        let score = -self.negamax(pos, depth - 1 - r, -beta, -beta + 1, ply + 1, true);
        self.keys.pop();
        pos.unmake_null_move(undo);
        if self.aborted {
            return Some(0);
        }
        if score >= beta {
            return Some(if score >= TB_WIN_BOUND { beta } else { score });
        }
        None
    }

    /// How many quiet moves a node tries before late-move pruning skips the rest.
    #[inline]
    pub(super) fn late_move_limit(&self, node: &Node) -> usize {
        let depth = (node.depth.max(0) as usize).min(params::LMP_SIZE - 1);
        self.tuning.tables.lmp[node.improving as usize][depth]
    }

    /// Whether a node skips `candidate` given the best score so far; `late` says the
    /// late-move limit of quiet moves has been tried. Never at the root, in check, for a move
    /// that gives check, or before a line out of mate is known.
    #[inline]
    pub(super) fn prunes_move(
        &self,
        pos: &Position,
        node: &Node,
        candidate: &Candidate,
        alpha: i32,
        best_score: i32,
        late: bool,
    ) -> bool {
        if node.root || node.in_check || candidate.gives_check || best_score <= -TB_WIN_BOUND {
            return false;
        }
        let tuning = &self.tuning;
        let (depth, mv) = (node.depth, candidate.mv);
        if !candidate.quiet {
            // Captures that lose material at low depth.
            return depth <= tuning.see_max_depth
                && !see_ge(pos, mv, -tuning.see_capture_margin * depth);
        }
        // Late-move pruning and futility: quiet moves late in the list or far below alpha at
        // low depth rarely matter.
        if depth <= tuning.lmp_max_depth && late {
            return true;
        }
        if depth <= tuning.futility_max_depth
            && node.static_eval + tuning.futility_base + tuning.futility_per_depth * depth <= alpha
        {
            return true;
        }
        // History pruning: a quiet move that keeps failing in this line.
        if depth <= tuning.history_prune_max_depth
            && candidate.history < -tuning.history_prune_margin * depth
        {
            return true;
        }
        // Quiet SEE pruning: a move that gives material away for nothing.
        depth <= tuning.see_quiet_max_depth && !see_ge(pos, mv, -tuning.see_quiet_margin * depth)
    }

    /// The late-move reduction of the `searched`th move: late quiet moves that give no check
    /// are searched shallower, less at PV nodes and for killers and well-liked moves.
    #[inline]
    pub(super) fn reduction(&self, node: &Node, candidate: &Candidate, searched: usize) -> i32 {
        let tuning = &self.tuning;
        let depth = node.depth;
        if depth < tuning.lmr_min_depth
            || searched <= tuning.lmr_min_moves as usize
            || !candidate.quiet
            || candidate.gives_check
        {
            return 0;
        }
        let last = params::LMR_SIZE - 1;
        let mut reduction = tuning.tables.lmr[(depth as usize).min(last)][searched.min(last)];
        if node.pv_node {
            reduction -= tuning.lmr_pv;
        }
        if !node.improving {
            reduction += tuning.lmr_not_improving;
        }
        if self.killers[node.ply].contains(&candidate.mv) {
            reduction -= tuning.lmr_killer;
        }
        reduction -= candidate.history / tuning.lmr_history_divisor;
        // At least one ply is left to search.
        let new_depth = depth - 1;
        reduction.clamp(0, (new_depth - 1).max(0))
    }
}
