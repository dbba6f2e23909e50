//! Move ordering: the keys that sort a node's moves (table move, captures by MVV-LVA and capture
//! history, killers, counter move, quiet histories), the picker that hands them out best first,
//! and the learning after a cutoff that sharpens those keys.

use super::history::{piece_to, PieceTo, NO_PIECE_TO};
use super::Searcher;
use crate::board::see::{see_ge, SEE_VALUES};
use crate::board::{Move, MoveList, PieceKind, Position};

/// Hands out a node's moves best first, one selection-sort step at a time: a cutoff usually
/// comes early, so sorting the whole list would be wasted work.
pub(super) struct MovePicker<'a> {
    moves: &'a mut [Move],
    /// The moves' ordering keys, index for index; the caller's array, so that the hot path
    /// never copies a kilobyte of keys into the picker.
    scores: &'a mut [i32; MoveList::CAPACITY],
    index: usize,
}

impl<'a> MovePicker<'a> {
    /// A picker over `moves` ordered by `searcher`'s keys at `ply`, `tt_move` first; `scores`
    /// is room for the keys.
    // Always inlined, here and below: the hot loop must not pay for a call.
    #[inline(always)]
    pub(super) fn new(
        searcher: &Searcher,
        pos: &Position,
        moves: &'a mut MoveList,
        scores: &'a mut [i32; MoveList::CAPACITY],
        tt_move: Move,
        ply: usize,
    ) -> MovePicker<'a> {
        let moves = moves.as_mut_slice();
        searcher.score_moves(pos, moves, scores, tt_move, ply);
        MovePicker {
            moves,
            scores,
            index: 0,
        }
    }

    /// The best move not yet handed out, or None when all have been.
    #[inline(always)]
    pub(super) fn next(&mut self) -> Option<Move> {
        let index = self.index;
        if index >= self.moves.len() {
            return None;
        }
        self.index += 1;
        Some(pick_next(self.moves, self.scores, index))
    }
}

/// Selection sort step: moves the best remaining move to `index` and returns it; of equal
/// keys the first, as a scan keeping the first strictly greater key would.
#[inline(always)]
fn pick_next(moves: &mut [Move], scores: &mut [i32], index: usize) -> Move {
    let rest = &scores[index..moves.len()];
    // Two passes instead of one: the maximum vectorises, and the search for it stops early.
    let top = rest.iter().copied().max().unwrap_or(i32::MIN);
    let best = index + rest.iter().position(|&s| s == top).unwrap_or(0);
    moves.swap(index, best);
    scores.swap(index, best);
    moves[index]
}

/// The kind a capture takes (a pawn for en passant); None for quiet moves and promotions
/// that capture nothing.
#[inline]
pub(super) fn captured(pos: &Position, mv: Move) -> Option<PieceKind> {
    if mv.is_quiet() {
        None
    } else if mv.is_en_passant() {
        Some(PieceKind::Pawn)
    } else {
        pos.kind_on(mv.to())
    }
}

impl Searcher {
    /// The piece-to indices of the moves one and two plies before `ply`.
    #[inline]
    pub(super) fn previous_moves(&self, ply: usize) -> [PieceTo; 2] {
        let back = |n: usize| match ply.checked_sub(n) {
            Some(p) => self.moved[p],
            None => NO_PIECE_TO,
        };
        [back(1), back(2)]
    }

    /// Ordering keys: table move, winning captures and queen promotions by MVV-LVA, killers,
    /// history for the other quiet moves, losing captures last.
    fn score_moves(
        &self,
        pos: &Position,
        moves: &[Move],
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
                self.capture_key(pos, mv)
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

    /// A capture's or promotion's key: queen promotions and captures that do not lose material
    /// above the killers, the others below every quiet move.
    #[inline]
    fn capture_key(&self, pos: &Position, mv: Move) -> i32 {
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
    }

    /// The histories after `mv` refuted the node at `ply`: a quiet refutation becomes a killer
    /// and the counter move, and gains history while the quiet moves tried before it lose; a
    /// capture gains capture history; the captures tried before either lose.
    pub(super) fn reward_cutoff(
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// The selection step as it was written first: keep the first strictly greater key.
    fn pick_by_scan(moves: &mut [Move], scores: &mut [i32], index: usize) -> Move {
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

    #[test]
    fn picking_hands_out_moves_in_the_order_a_first_greater_scan_does() {
        let mut rng = Rng::new(19);
        for _ in 0..2000 {
            let len = 1 + rng.below(80) as usize;
            // Few distinct keys, so ties are common and their order is what is checked.
            let keys: Vec<i32> = (0..len).map(|_| rng.below(6) as i32 - 3).collect();
            let moves: Vec<Move> = (0..len).map(|i| Move::from_bits(i as u16 + 1)).collect();
            let (mut m1, mut s1) = (moves.clone(), keys.clone());
            let (mut m2, mut s2) = (moves, keys);
            for index in 0..len {
                assert_eq!(
                    pick_next(&mut m1, &mut s1, index),
                    pick_by_scan(&mut m2, &mut s2, index)
                );
            }
            assert_eq!(m1, m2);
        }
    }
}
