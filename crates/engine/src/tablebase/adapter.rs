//! The prober's view of sparring's attack tables: pyrrhic-rs generates moves through this.

use crate::board::attacks;
use crate::board::{Bitboard, Color, Square};

/// pyrrhic-rs's `EngineAdapter` over `board::attacks` (squares a1 = 0 .. h8 = 63 in both).
#[derive(Clone, Copy, Debug)]
pub(super) struct Attacks;

fn square(index: u64) -> Square {
    Square::from_index((index & 63) as usize)
}

impl pyrrhic_rs::EngineAdapter for Attacks {
    fn pawn_attacks(color: pyrrhic_rs::Color, sq: u64) -> u64 {
        let color = match color {
            pyrrhic_rs::Color::White => Color::White,
            pyrrhic_rs::Color::Black => Color::Black,
        };
        attacks::pawn_attacks(color, square(sq)).0
    }

    fn knight_attacks(sq: u64) -> u64 {
        attacks::knight_attacks(square(sq)).0
    }

    fn bishop_attacks(sq: u64, occupied: u64) -> u64 {
        attacks::bishop_attacks(square(sq), Bitboard(occupied)).0
    }

    fn rook_attacks(sq: u64, occupied: u64) -> u64 {
        attacks::rook_attacks(square(sq), Bitboard(occupied)).0
    }

    fn queen_attacks(sq: u64, occupied: u64) -> u64 {
        attacks::queen_attacks(square(sq), Bitboard(occupied)).0
    }

    fn king_attacks(sq: u64) -> u64 {
        attacks::king_attacks(square(sq)).0
    }
}
