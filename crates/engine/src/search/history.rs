//! What the search learns about moves while it runs, for ordering and reductions: the butterfly
//! history (side, from, to), continuation histories (this move's piece and square after the
//! previous move's, one and two plies back), counter moves (the quiet reply that refuted a
//! piece's move to a square) and the capture history (piece, square, victim).
//!
//! Every table is updated with the same gravity formula (`entry += delta - entry·|delta|/divisor`),
//! which keeps each entry within the divisor, so the tables are stored as `i16`.

use crate::board::{Move, PieceKind, Position};

/// A move's piece and destination, `piece·64 + to` with `piece = colour·6 + kind`: the index of
/// continuation and counter-move tables.
pub(crate) type PieceTo = usize;

/// No move (the root, or a null move) in the move stack.
pub(crate) const NO_PIECE_TO: PieceTo = usize::MAX;

const PIECE_TO: usize = 12 * 64;

/// The piece-to index of `mv` in `pos` (before it is made).
#[inline]
pub(crate) fn piece_to(pos: &Position, mv: Move) -> PieceTo {
    let piece = pos.piece_on(mv.from()).expect("a move starts from a piece");
    (piece.color.index() * 6 + piece.kind.index()) * 64 + mv.to().index()
}

/// One learnt-statistics update: the gravity formula on an `i16` entry.
#[inline]
fn apply(entry: &mut i16, delta: i32, divisor: i32) {
    let value = *entry as i32;
    *entry = (value + delta - value * delta.abs() / divisor) as i16;
}

/// The histories of one searcher.
pub(crate) struct Histories {
    butterfly: Box<[[[i16; 64]; 64]; 2]>,
    /// `continuation[0]`: after the previous move (counter-move history); `[1]`: after the move
    /// two plies back (follow-up history). Indexed `[previous piece-to][piece-to]`.
    continuation: [Box<[[i16; PIECE_TO]]>; 2],
    counter: Box<[Move; PIECE_TO]>,
    /// Indexed `[piece-to][victim kind]`.
    capture: Box<[[i16; 6]; PIECE_TO]>,
}

impl Default for Histories {
    fn default() -> Histories {
        Histories::new()
    }
}

impl Histories {
    /// Empty tables.
    pub(super) fn new() -> Histories {
        let table = || vec![[0i16; PIECE_TO]; PIECE_TO].into_boxed_slice();
        Histories {
            butterfly: Box::new([[[0; 64]; 64]; 2]),
            continuation: [table(), table()],
            counter: Box::new([Move::NULL; PIECE_TO]),
            capture: Box::new([[0; 6]; PIECE_TO]),
        }
    }

    /// Forgets everything (a new game).
    pub(super) fn clear(&mut self) {
        self.butterfly.iter_mut().flatten().for_each(|r| r.fill(0));
        for table in &mut self.continuation {
            table.iter_mut().for_each(|r| r.fill(0));
        }
        self.counter.fill(Move::NULL);
        self.capture.iter_mut().for_each(|r| r.fill(0));
    }

    /// The quiet move's score: butterfly plus the continuation histories after the moves
    /// `previous` (one and two plies back; `NO_PIECE_TO` where there is none).
    #[inline]
    pub(super) fn quiet(
        &self,
        side: usize,
        mv: Move,
        moved: PieceTo,
        previous: [PieceTo; 2],
    ) -> i32 {
        let mut score = self.butterfly[side][mv.from().index()][mv.to().index()] as i32;
        for (table, &prev) in self.continuation.iter().zip(&previous) {
            if prev != NO_PIECE_TO {
                score += table[prev][moved] as i32;
            }
        }
        score
    }

    /// The quiet move that last refuted the previous move (`Move::NULL` if none).
    #[inline]
    pub(crate) fn counter_move(&self, previous: PieceTo) -> Move {
        if previous == NO_PIECE_TO {
            Move::NULL
        } else {
            self.counter[previous]
        }
    }

    /// The capture history of `moved` taking a `victim`.
    #[inline]
    pub(super) fn capture(&self, moved: PieceTo, victim: PieceKind) -> i32 {
        self.capture[moved][victim.index()] as i32
    }

    /// A quiet move refuted the node (`delta > 0`) or was tried before the refutation (`< 0`).
    pub(crate) fn update_quiet(
        &mut self,
        side: usize,
        mv: Move,
        moved: PieceTo,
        previous: [PieceTo; 2],
        delta: i32,
        divisor: i32,
    ) {
        apply(
            &mut self.butterfly[side][mv.from().index()][mv.to().index()],
            delta,
            divisor,
        );
        for (table, &prev) in self.continuation.iter_mut().zip(&previous) {
            if prev != NO_PIECE_TO {
                apply(&mut table[prev][moved], delta, divisor);
            }
        }
    }

    /// Records `mv` as the refutation of the previous move.
    pub(crate) fn set_counter(&mut self, previous: PieceTo, mv: Move) {
        if previous != NO_PIECE_TO {
            self.counter[previous] = mv;
        }
    }

    /// A capture refuted the node (`delta > 0`) or was tried before the refutation (`< 0`).
    pub(crate) fn update_capture(
        &mut self,
        moved: PieceTo,
        victim: PieceKind,
        delta: i32,
        divisor: i32,
    ) {
        apply(&mut self.capture[moved][victim.index()], delta, divisor);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Position;

    #[test]
    fn updates_stay_within_the_divisor_and_clear_forgets() {
        let pos = Position::startpos();
        let mv = pos.legal_moves().iter().copied().next().unwrap();
        let moved = piece_to(&pos, mv);
        let previous = [moved, NO_PIECE_TO];
        let mut h = Histories::new();
        for _ in 0..1000 {
            h.update_quiet(0, mv, moved, previous, 1600, 16384);
        }
        let score = h.quiet(0, mv, moved, previous);
        assert!(score > 2 * 16000 && score <= 2 * 16384, "{score}");
        for _ in 0..1000 {
            h.update_quiet(0, mv, moved, previous, -1600, 16384);
        }
        assert!(h.quiet(0, mv, moved, previous) >= -2 * 16384);
        h.set_counter(moved, mv);
        assert_eq!(h.counter_move(moved), mv);
        assert_eq!(h.counter_move(NO_PIECE_TO), Move::NULL);
        h.update_capture(moved, PieceKind::Queen, 500, 16384);
        assert!(h.capture(moved, PieceKind::Queen) > 0);
        h.clear();
        assert_eq!(h.quiet(0, mv, moved, previous), 0);
        assert_eq!(h.counter_move(moved), Move::NULL);
        assert_eq!(h.capture(moved, PieceKind::Queen), 0);
    }
}
