//! `Bitboard`: a set of squares as the 64 bits of a word, bit i for square i (a1 = bit 0).

use super::types::{Color, File, Rank, Square};
use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// A set of squares: bit i of the word is set when square i (a1 = 0, h8 = 63) is in the set.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(pub u64);

impl Bitboard {
    /// No squares.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// All 64 squares.
    pub const FULL: Bitboard = Bitboard(!0);
    /// The 32 light squares (b1, h1, a2, a8, ...; a1 is dark).
    pub const LIGHT_SQUARES: Bitboard = Bitboard(0x55AA_55AA_55AA_55AA);
    /// The 32 dark squares (a1, h8, b2, ...).
    pub const DARK_SQUARES: Bitboard = Bitboard(0xAA55_AA55_AA55_AA55);

    /// The set holding only `sq`.
    #[inline(always)]
    pub const fn from_square(sq: Square) -> Bitboard {
        Bitboard(1 << sq.index())
    }

    /// Every square of one file (a1..a8 for the a-file).
    #[inline(always)]
    pub const fn file(file: File) -> Bitboard {
        Bitboard(0x0101_0101_0101_0101 << file.index())
    }

    /// Every square of one rank (a1..h1 for the first rank).
    #[inline(always)]
    pub const fn rank(rank: Rank) -> Bitboard {
        Bitboard(0xFF << (rank.index() * 8))
    }

    /// Whether no square is set.
    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether at least one square is set.
    #[inline(always)]
    pub const fn is_nonempty(self) -> bool {
        self.0 != 0
    }

    /// Whether `sq` is in the set.
    #[inline(always)]
    pub const fn has(self, sq: Square) -> bool {
        self.0 & (1 << sq.index()) != 0
    }

    /// How many squares are set (population count).
    #[inline(always)]
    pub const fn len(self) -> u32 {
        self.0.count_ones()
    }

    /// More than one square set.
    #[inline(always)]
    pub const fn has_several(self) -> bool {
        self.0 & self.0.wrapping_sub(1) != 0
    }

    /// The lowest square, if any.
    #[inline(always)]
    pub const fn first(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square::from_index(self.0.trailing_zeros() as usize))
        }
    }

    /// The only square of a one-square set (unspecified for other sets).
    #[inline(always)]
    pub const fn single(self) -> Square {
        Square::from_index(self.0.trailing_zeros() as usize & 63)
    }

    /// The set with `sq` added.
    #[inline(always)]
    pub const fn with(self, sq: Square) -> Bitboard {
        Bitboard(self.0 | 1 << sq.index())
    }

    /// The set with `sq` removed.
    #[inline(always)]
    pub const fn without(self, sq: Square) -> Bitboard {
        Bitboard(self.0 & !(1 << sq.index()))
    }

    /// One rank towards the opponent of `color` (north for White).
    #[inline(always)]
    pub const fn forward(self, color: Color) -> Bitboard {
        match color {
            Color::White => Bitboard(self.0 << 8),
            Color::Black => Bitboard(self.0 >> 8),
        }
    }

    /// One file towards the a-file, dropping what falls off the board.
    #[inline(always)]
    pub const fn west(self) -> Bitboard {
        Bitboard((self.0 >> 1) & !0x8080_8080_8080_8080)
    }

    /// One file towards the h-file, dropping what falls off the board.
    #[inline(always)]
    pub const fn east(self) -> Bitboard {
        Bitboard((self.0 << 1) & !0x0101_0101_0101_0101)
    }

    /// The squares of the set from a1 upwards, lowest index first.
    pub fn iter(self) -> BitboardIter {
        BitboardIter(self.0)
    }
}

impl IntoIterator for Bitboard {
    type Item = Square;
    type IntoIter = BitboardIter;
    #[inline(always)]
    fn into_iter(self) -> BitboardIter {
        BitboardIter(self.0)
    }
}

/// Iterates the squares of a bitboard from a1 upwards.
pub struct BitboardIter(u64);

impl Iterator for BitboardIter {
    type Item = Square;
    #[inline(always)]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let sq = Square::from_index(self.0.trailing_zeros() as usize);
        self.0 &= self.0 - 1;
        Some(sq)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for BitboardIter {}

macro_rules! bit_op {
    ($trait:ident, $f:ident, $assign:ident, $fa:ident, $op:tt) => {
        impl $trait for Bitboard {
            type Output = Bitboard;
            #[inline(always)]
            fn $f(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $assign for Bitboard {
            #[inline(always)]
            fn $fa(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}
bit_op!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bit_op!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bit_op!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline(always)]
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

impl From<Square> for Bitboard {
    #[inline(always)]
    fn from(sq: Square) -> Bitboard {
        Bitboard::from_square(sq)
    }
}

impl fmt::Debug for Bitboard {
    /// Prints the board rank 8 first, so a set reads as a diagram.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Bitboard({:#018x})", self.0)?;
        for rank in Rank::ALL.iter().rev() {
            for file in File::ALL {
                let c = if self.has(Square::new(file, *rank)) {
                    'X'
                } else {
                    '.'
                };
                write!(f, "{c}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}
