//! viriformat's moves: `from | to << 6 | promotion << 12 | kind << 14`, castling written as the
//! king taking its own rook (standard chess and Chess960 alike), en passant to the empty target
//! square (docs/research/nnue-formats.md §2).

use crate::board::{Move, Position};

const EN_PASSANT: u16 = 1 << 14;
const CASTLING: u16 = 2 << 14;
const PROMOTION: u16 = 3 << 14;

/// The viriformat bits of the legal move `mv` in `pos`.
pub(crate) fn encode_move(pos: &Position, mv: Move) -> u16 {
    let from = mv.from().index() as u16;
    let to = mv.to().index() as u16;
    let bits = if mv.is_castle() {
        let king_side = mv.flags() == Move::KING_CASTLE;
        let rook = pos.castling_rook(pos.side_to_move(), king_side);
        rook.map_or(to, |sq| sq.index() as u16) << 6 | CASTLING
    } else if mv.is_en_passant() {
        to << 6 | EN_PASSANT
    } else if let Some(piece) = mv.promotion() {
        to << 6 | (piece.index() as u16 - 1) << 12 | PROMOTION
    } else {
        to << 6
    };
    from | bits
}

/// The legal move of `pos` whose viriformat bits are `bits`, if there is one.
pub(crate) fn decode_move(pos: &Position, bits: u16) -> Option<Move> {
    if bits == 0 {
        return None;
    }
    let moves = pos.legal_moves();
    moves
        .iter()
        .copied()
        .find(|&mv| encode_move(pos, mv) == bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(fen: &str, uci: &str) -> u16 {
        let pos = Position::from_fen(fen).unwrap();
        let mv = pos.parse_uci_move(uci).unwrap();
        let bits = encode_move(&pos, mv);
        assert_eq!(decode_move(&pos, bits), Some(mv), "{uci} decodes back");
        bits
    }

    #[test]
    fn moves_match_the_notes_test_vectors() {
        assert_eq!(bits(Position::START_FEN, "e2e4"), 0x070C);
        let castles = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
        assert_eq!(bits(castles, "e1g1"), 0x81C4, "O-O is king takes rook");
        let black = "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1";
        assert_eq!(bits(black, "e8c8"), 0x8E3C);
        let ep = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3";
        assert_eq!(bits(ep, "e5f6"), 0x4B64);
        assert_eq!(bits("7k/4P3/8/8/8/8/8/4K3 w - - 0 1", "e7e8q"), 0xFF34);
        assert_eq!(bits("4k3/8/8/8/8/8/1p6/R3K3 b Q - 0 1", "b2a1n"), 0xC009);
        assert_eq!(decode_move(&Position::startpos(), 0), None);
    }
}
