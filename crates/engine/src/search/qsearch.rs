//! Quiescence search: below the main search's horizon, only captures and queen promotions (every
//! move when in check) are searched, so a static evaluation is only trusted in a quiet position.

use super::history::piece_to;
use super::picker::MovePicker;
use super::tt::{score_from_tt, score_to_tt, Bound};
use super::{Searcher, INFINITY, MAX_PLY};
use crate::board::see::{see_ge, SEE_VALUES};
use crate::board::{GenMode, Move, MoveList, PieceKind, Position};
use crate::score::MATE;

impl Searcher {
    /// The quiescence score of `pos` in the window (`alpha`, `beta`) at `ply`.
    pub(super) fn quiescence(
        &mut self,
        pos: &mut Position,
        mut alpha: i32,
        beta: i32,
        ply: usize,
    ) -> i32 {
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

        // Standing pat: outside check the side to move may decline every capture.
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
        let mut scores = [0; MoveList::CAPACITY];
        let mut picker = MovePicker::new(self, pos, &mut moves, &mut scores, Move::NULL, ply);
        let original_alpha = alpha;
        let mut best_move = Move::NULL;
        while let Some(mv) = picker.next() {
            if !in_check && self.futile_capture(pos, mv, stand_pat, alpha) {
                continue;
            }
            self.moved[ply] = piece_to(pos, mv);
            let undo = self.make(pos, mv);
            self.tt.prefetch(pos.key());
            let score = -self.quiescence(pos, -beta, -alpha, ply + 1);
            self.unmake(pos, mv, undo);
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

    /// Whether quiescence outside check skips `mv`: under-promotions, captures that cannot
    /// raise the stand-pat score to alpha even winning the victim (delta pruning), and captures
    /// that lose material.
    #[inline]
    fn futile_capture(&self, pos: &Position, mv: Move, stand_pat: i32, alpha: i32) -> bool {
        if matches!(mv.promotion(), Some(k) if k != PieceKind::Queen) {
            return true;
        }
        if !mv.is_promotion() {
            let victim = pos.kind_on(mv.to()).map_or(100, |k| SEE_VALUES[k.index()]);
            if stand_pat + victim + self.tuning.qsearch_delta_margin <= alpha {
                return true;
            }
        }
        !see_ge(pos, mv, -self.tuning.qsearch_see_margin)
    }
}
