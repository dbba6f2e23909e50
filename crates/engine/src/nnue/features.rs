//! bullet's `Chess768` inputs: one feature per (colour relative to the perspective, piece kind,
//! square seen from the perspective), 2 × 6 × 64 = 768 in all.

use crate::board::{Color, Piece, Position};

/// How many input features a perspective has.
pub const FEATURES: usize = 768;

/// The feature a `piece` on `square` activates for `perspective`: `384·[the piece is the
/// perspective's opponent's] + 64·kind + square`, the square flipped top to bottom (a1 ↔ a8)
/// for Black's perspective, as bullet's `Chess768` numbers them.
#[inline(always)]
pub(crate) fn feature_index(
    perspective: Color,
    piece: Piece,
    square: crate::board::Square,
) -> usize {
    let theirs = usize::from(piece.color != perspective);
    let square = match perspective {
        Color::White => square,
        Color::Black => square.flip_rank(),
    };
    384 * theirs + 64 * piece.kind as usize + square.index()
}

/// Every feature active in `pos` for `perspective`, in square order (at most 32).
pub fn active_features(pos: &Position, perspective: Color) -> impl Iterator<Item = usize> + '_ {
    pos.occupied().iter().map(move |square| {
        let piece = pos
            .piece_on(square)
            .expect("an occupied square holds a piece");
        feature_index(perspective, piece, square)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Square;

    /// The research notes' vectors (docs/research/nnue-formats.md §4.1), start position.
    #[test]
    fn start_position_features_match_bullets_numbering() {
        let pos = Position::startpos();
        let index = |name: &str, perspective| {
            let square: Square = name.parse().unwrap();
            feature_index(perspective, pos.piece_on(square).unwrap(), square)
        };
        assert_eq!(
            (index("a1", Color::White), index("a1", Color::Black)),
            (192, 632)
        );
        assert_eq!(
            (index("e1", Color::White), index("e1", Color::Black)),
            (324, 764)
        );
        assert_eq!(
            (index("e8", Color::White), index("e8", Color::Black)),
            (764, 324)
        );
        assert_eq!(active_features(&pos, Color::White).count(), 32);
    }
}
