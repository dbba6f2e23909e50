//! Endgame scaling: material configurations that are hard to win (opposite-coloured bishops, a
//! pawnless side a minor piece ahead, few pawns) shrink the endgame half of the evaluation of
//! the side ahead. The factors are the `[scale]` table of a weights file, out of 128.

use crate::board::{Bitboard, Color, PieceKind, Position};
use serde::{Deserialize, Serialize};

/// The full factor: the endgame score unchanged.
pub const SCALE_NORMAL: i32 = 128;

/// Light squares (b1, d1, ..., a2, ...): a bishop's colour.
const LIGHT_SQUARES: u64 = 0x55AA_55AA_55AA_55AA;

/// The endgame scale factors, each out of `SCALE_NORMAL` (128 = no scaling). A weights file
/// without a `[scale]` table reads as `EndgameScale::NEUTRAL`, so older files evaluate as they
/// always did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EndgameScale {
    /// Opposite-coloured bishops and pawns only.
    pub ocb_bishops: i32,
    /// Opposite-coloured bishops and one knight each, pawns aside.
    pub ocb_knights: i32,
    /// Opposite-coloured bishops and one rook each, pawns aside.
    pub ocb_rooks: i32,
    /// The side ahead has no pawns and at most a minor piece's worth more material (KR v KB,
    /// KB v K and pawns, KRB v KR), or only two knights.
    pub pawnless: i32,
    /// Any other position: `base + per_pawn × the pawns of the side ahead`, at most 128.
    pub base: i32,
    /// See `base`.
    pub per_pawn: i32,
}

impl EndgameScale {
    /// No scaling anywhere: every factor 128.
    pub const NEUTRAL: EndgameScale = EndgameScale {
        ocb_bishops: SCALE_NORMAL,
        ocb_knights: SCALE_NORMAL,
        ocb_rooks: SCALE_NORMAL,
        pawnless: SCALE_NORMAL,
        base: SCALE_NORMAL,
        per_pawn: 0,
    };

    /// The classical hand-set factors (docs/strength.md row 5): opposite bishops 64 / 106 / 96,
    /// a pawnless small edge 16, otherwise 96 + 8 per pawn of the side ahead.
    pub const CLASSICAL: EndgameScale = EndgameScale {
        ocb_bishops: 64,
        ocb_knights: 106,
        ocb_rooks: 96,
        pawnless: 16,
        base: 96,
        per_pawn: 8,
    };

    /// Whether every factor is 128 (the evaluation is the plain blend).
    pub fn is_neutral(&self) -> bool {
        *self == EndgameScale::NEUTRAL
    }

    /// Each factor with its key, in file order.
    pub fn fields(&self) -> [(&'static str, i32); 6] {
        [
            ("ocb_bishops", self.ocb_bishops),
            ("ocb_knights", self.ocb_knights),
            ("ocb_rooks", self.ocb_rooks),
            ("pawnless", self.pawnless),
            ("base", self.base),
            ("per_pawn", self.per_pawn),
        ]
    }

    /// The factor (0..=128) for the endgame score `eg` (White's view) of `pos`: chosen by the
    /// material of the side `eg` favours.
    #[inline]
    pub fn factor(&self, pos: &Position, eg: i32) -> i32 {
        if eg == 0 || self.is_neutral() {
            return SCALE_NORMAL;
        }
        let strong = if eg > 0 { Color::White } else { Color::Black };
        let weak = !strong;
        let count = |c: Color, k: PieceKind| pos.colored(c, k).len() as i32;
        let strong_pawns = count(strong, PieceKind::Pawn);
        let [sn, sb, sr, sq] = minor_major(pos, strong);
        let [wn, wb, wr, wq] = minor_major(pos, weak);
        if sb == 1 && wb == 1 && opposite_bishops(pos) && sq + wq == 0 {
            match (sn, wn, sr, wr) {
                (0, 0, 0, 0) => return self.ocb_bishops,
                (1, 1, 0, 0) => return self.ocb_knights,
                (0, 0, 1, 1) => return self.ocb_rooks,
                _ => {}
            }
        }
        if strong_pawns == 0 {
            let units = |n: i32, b: i32, r: i32, q: i32| 3 * (n + b) + 5 * r + 9 * q;
            let edge = units(sn, sb, sr, sq) - units(wn, wb, wr, wq);
            let two_knights = sn == 2 && sb + sr + sq == 0;
            if edge <= 3 || two_knights {
                return self.pawnless;
            }
        }
        (self.base + self.per_pawn * strong_pawns).clamp(0, SCALE_NORMAL)
    }
}

/// Knights, bishops, rooks and queens of `color`.
#[inline(always)]
fn minor_major(pos: &Position, color: Color) -> [i32; 4] {
    [
        PieceKind::Knight,
        PieceKind::Bishop,
        PieceKind::Rook,
        PieceKind::Queen,
    ]
    .map(|k| pos.colored(color, k).len() as i32)
}

/// Whether the bishops on the board (one each) stand on squares of different colours.
#[inline(always)]
fn opposite_bishops(pos: &Position) -> bool {
    let bishops = pos.pieces(PieceKind::Bishop);
    let light = (bishops & Bitboard(LIGHT_SQUARES)).len();
    light == 1 && bishops.len() == 2
}

#[cfg(test)]
mod tests {
    use super::*;

    fn factor(fen: &str, eg: i32) -> i32 {
        EndgameScale::CLASSICAL.factor(&Position::from_fen(fen).unwrap(), eg)
    }

    #[test]
    fn each_configuration_gets_its_factor() {
        // Opposite bishops (c1 dark, c8 light), White a pawn up.
        assert_eq!(factor("2b1k3/8/4p3/8/3P4/4P3/8/2B1K3 w - - 0 1", 50), 64);
        // Same-coloured bishops: the pawn count rule (2 pawns: 96 + 16).
        assert_eq!(factor("3bk3/8/4p3/8/3P4/4P3/8/2B1K3 w - - 0 1", 50), 112);
        // Opposite bishops with a rook each; with a knight each.
        assert_eq!(factor("r1b1k3/8/8/8/3P4/8/8/R1B1K3 w - - 0 1", 50), 96);
        assert_eq!(factor("n1b1k3/8/8/8/3P4/8/8/N1B1K3 w - - 0 1", 50), 106);
        // KR v KB: the pawnless side ahead is only a minor's worth up.
        assert_eq!(factor("4kb2/8/8/8/8/8/8/R3K3 w - - 0 1", 50), 16);
        // KR v K is won: base with no pawns.
        assert_eq!(factor("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", 50), 96);
        // Black ahead is read from Black's material; two knights scale.
        assert_eq!(factor("4k3/8/8/8/8/8/8/2n1K1n1 w - - 0 1", -50), 16);
        // Many pawns: no scaling; a level endgame is never scaled.
        assert_eq!(
            factor("4k3/pppp4/8/8/8/8/PPPPP3/4K3 w - - 0 1", 50),
            SCALE_NORMAL
        );
        assert_eq!(factor("2b1k3/8/8/8/3P4/8/8/2B1K3 w - - 0 1", 0), 128);
        // Neutral factors change nothing.
        let pos = Position::from_fen("4kb2/8/8/8/8/8/8/R3K3 w - - 0 1").unwrap();
        assert_eq!(EndgameScale::NEUTRAL.factor(&pos, 50), SCALE_NORMAL);
    }
}
