//! Small value types of the board: colours, piece kinds, squares, files and ranks.

use std::fmt;
use std::ops::Not;

/// A side of the board.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
#[repr(u8)]
pub enum Color {
    /// The side that moves first; its pieces start on ranks 1 and 2.
    White = 0,
    /// The side that moves second; its pieces start on ranks 7 and 8.
    Black = 1,
}

impl Color {
    /// Both colours, White first (the order of `index`).
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    /// 0 for White, 1 for Black: the index into per-colour arrays.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// +1 for White, -1 for Black: the sign of a white-relative score.
    #[inline(always)]
    pub const fn sign(self) -> i32 {
        match self {
            Color::White => 1,
            Color::Black => -1,
        }
    }

    /// The rank this side's pieces start on, seen from this side (rank 1 for White, 8 for Black).
    #[inline(always)]
    pub const fn back_rank(self) -> Rank {
        match self {
            Color::White => Rank::First,
            Color::Black => Rank::Eighth,
        }
    }
}

impl Not for Color {
    type Output = Color;
    #[inline(always)]
    fn not(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::White => "white",
            Color::Black => "black",
        })
    }
}

/// The kind of a piece, without its colour.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
#[repr(u8)]
pub enum PieceKind {
    /// A pawn (index 0).
    Pawn = 0,
    /// A knight (index 1).
    Knight = 1,
    /// A bishop (index 2).
    Bishop = 2,
    /// A rook (index 3).
    Rook = 3,
    /// A queen (index 4).
    Queen = 4,
    /// A king (index 5).
    King = 5,
}

impl PieceKind {
    /// Every kind in index order, pawn to king.
    pub const ALL: [PieceKind; 6] = [
        PieceKind::Pawn,
        PieceKind::Knight,
        PieceKind::Bishop,
        PieceKind::Rook,
        PieceKind::Queen,
        PieceKind::King,
    ];
    /// The pieces a pawn may promote to, strongest first.
    pub const PROMOTIONS: [PieceKind; 4] = [
        PieceKind::Queen,
        PieceKind::Rook,
        PieceKind::Bishop,
        PieceKind::Knight,
    ];

    /// 0 (pawn) to 5 (king): the index into per-kind arrays.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The kind with this index (0 = pawn .. 5 = king); panics on an index above 5.
    #[inline(always)]
    pub const fn from_index(i: usize) -> PieceKind {
        PieceKind::ALL[i]
    }

    /// Lower-case letter as used by FEN for Black and by UCI for promotions.
    pub const fn char(self) -> char {
        match self {
            PieceKind::Pawn => 'p',
            PieceKind::Knight => 'n',
            PieceKind::Bishop => 'b',
            PieceKind::Rook => 'r',
            PieceKind::Queen => 'q',
            PieceKind::King => 'k',
        }
    }

    /// Parses a piece letter in either case.
    pub fn from_char(c: char) -> Option<PieceKind> {
        Some(match c.to_ascii_lowercase() {
            'p' => PieceKind::Pawn,
            'n' => PieceKind::Knight,
            'b' => PieceKind::Bishop,
            'r' => PieceKind::Rook,
            'q' => PieceKind::Queen,
            'k' => PieceKind::King,
            _ => return None,
        })
    }
}

/// A coloured piece.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Piece {
    /// The side the piece belongs to.
    pub color: Color,
    /// What kind of piece it is.
    pub kind: PieceKind,
}

impl Piece {
    /// A piece of `color` and `kind`.
    pub const fn new(color: Color, kind: PieceKind) -> Piece {
        Piece { color, kind }
    }

    /// FEN letter: upper case for White.
    pub fn char(self) -> char {
        match self.color {
            Color::White => self.kind.char().to_ascii_uppercase(),
            Color::Black => self.kind.char(),
        }
    }

    /// Parses a FEN piece letter: upper case for White, lower case for Black.
    pub fn from_char(c: char) -> Option<Piece> {
        let kind = PieceKind::from_char(c)?;
        let color = if c.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        };
        Some(Piece { color, kind })
    }
}

macro_rules! enum_with_index {
    ($(#[$meta:meta])* $name:ident, [$($variant:ident),*], $chars:expr) => {
        $(#[$meta])*
        #[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
        #[repr(u8)]
        pub enum $name { $(
            #[doc = concat!("The ", stringify!($variant), " ", stringify!($name), ".")]
            $variant
        ),* }

        impl $name {
            /// All eight values in board order (a..h or 1..8).
            pub const ALL: [$name; 8] = [$($name::$variant),*];

            /// 0..7 in board order: the index into per-file or per-rank arrays.
            #[inline(always)]
            pub const fn index(self) -> usize {
                self as usize
            }

            /// The value with this index (0..7); panics on an index above 7.
            #[inline(always)]
            pub const fn from_index(i: usize) -> $name {
                $name::ALL[i]
            }

            /// The letter or digit used in square names (`a`..`h` or `1`..`8`).
            pub const fn char(self) -> char {
                $chars[self as usize]
            }

            /// Parses the letter or digit used in square names; `None` for anything else.
            pub fn from_char(c: char) -> Option<$name> {
                $chars.iter().position(|&x| x == c).map($name::from_index)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}", self.char())
            }
        }
    };
}

enum_with_index!(
    /// A file (column) a..h.
    File,
    [A, B, C, D, E, F, G, H],
    ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']
);
enum_with_index!(
    /// A rank (row) 1..8.
    Rank,
    [First, Second, Third, Fourth, Fifth, Sixth, Seventh, Eighth],
    ['1', '2', '3', '4', '5', '6', '7', '8']
);

impl Rank {
    /// The same rank seen from the other side (rank 1 <-> rank 8).
    pub const fn relative_to(self, color: Color) -> Rank {
        match color {
            Color::White => self,
            Color::Black => Rank::from_index(7 - self.index()),
        }
    }
}

/// A square, a1 = 0, b1 = 1, ..., h8 = 63.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Square(u8);

impl Square {
    /// The square on `file` and `rank`.
    #[inline(always)]
    pub const fn new(file: File, rank: Rank) -> Square {
        Square((rank as u8) << 3 | file as u8)
    }

    /// Panics (in debug) on an index above 63.
    #[inline(always)]
    pub const fn from_index(i: usize) -> Square {
        debug_assert!(i < 64);
        Square(i as u8)
    }

    /// 0 (a1) .. 63 (h8): the index into per-square arrays and the bit in a `Bitboard`.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The file (column) the square is on.
    #[inline(always)]
    pub const fn file(self) -> File {
        File::from_index((self.0 & 7) as usize)
    }

    /// The rank (row) the square is on.
    #[inline(always)]
    pub const fn rank(self) -> Rank {
        Rank::from_index((self.0 >> 3) as usize)
    }

    /// Mirror top to bottom (a1 <-> a8): the square as seen by the other side.
    #[inline(always)]
    pub const fn flip_rank(self) -> Square {
        Square(self.0 ^ 56)
    }

    /// The square `delta` steps away in index order, or None if off the board index range.
    #[inline(always)]
    pub const fn offset(self, delta: i8) -> Option<Square> {
        let i = self.0 as i16 + delta as i16;
        if i >= 0 && i < 64 {
            Some(Square(i as u8))
        } else {
            None
        }
    }

    /// Every square, a1 first.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..64).map(Square)
    }

    /// Parses a square name like "e4".
    pub fn parse(s: &str) -> Option<Square> {
        let mut chars = s.chars();
        let file = File::from_char(chars.next()?)?;
        let rank = Rank::from_char(chars.next()?)?;
        if chars.next().is_some() {
            return None;
        }
        Some(Square::new(file, rank))
    }
}

/// A square name that is not a file letter a-h followed by a rank digit 1-8.
#[derive(thiserror::Error, Debug, Clone, PartialEq, Eq)]
#[error("'{text}' is not a square: expected a file a-h and a rank 1-8, like e4")]
pub struct SquareParseError {
    /// The text as given.
    pub text: String,
}

/// Parses a square name like `e4`, as [`Square::parse`] with a typed error.
///
/// ```
/// use sparring_chess::board::{File, Rank, Square};
///
/// let e4: Square = "e4".parse()?;
/// assert_eq!(e4, Square::new(File::E, Rank::Fourth));
/// assert!("i9".parse::<Square>().is_err());
/// # Ok::<(), sparring_chess::board::SquareParseError>(())
/// ```
impl std::str::FromStr for Square {
    type Err = SquareParseError;

    fn from_str(text: &str) -> Result<Square, SquareParseError> {
        Square::parse(text).ok_or_else(|| SquareParseError {
            text: text.to_string(),
        })
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file(), self.rank())
    }
}

/// Castling rights as four bits: white king side, white queen side, black king side, black queen
/// side. The king side is the h-file side of the king (`O-O`), the queen side the a-file side
/// (`O-O-O`); in Chess960 the rook of each right is kept by the `Position`
/// (`Position::castling_rook`), so these bits alone do not say which rook may castle.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct CastlingRights(pub u8);

impl CastlingRights {
    /// Bit of White's right to castle king side (e1g1).
    pub const WHITE_KING_SIDE: u8 = 1;
    /// Bit of White's right to castle queen side (e1c1).
    pub const WHITE_QUEEN_SIDE: u8 = 2;
    /// Bit of Black's right to castle king side (e8g8).
    pub const BLACK_KING_SIDE: u8 = 4;
    /// Bit of Black's right to castle queen side (e8c8).
    pub const BLACK_QUEEN_SIDE: u8 = 8;
    /// No castling rights (FEN `-`).
    pub const NONE: CastlingRights = CastlingRights(0);
    /// All four castling rights (FEN `KQkq`).
    pub const ALL: CastlingRights = CastlingRights(15);

    /// The bit for one side's king-side (`king_side`) or queen-side right.
    #[inline(always)]
    pub const fn bit(color: Color, king_side: bool) -> u8 {
        match (color, king_side) {
            (Color::White, true) => Self::WHITE_KING_SIDE,
            (Color::White, false) => Self::WHITE_QUEEN_SIDE,
            (Color::Black, true) => Self::BLACK_KING_SIDE,
            (Color::Black, false) => Self::BLACK_QUEEN_SIDE,
        }
    }

    /// The bit number (0..4) of one side's king-side or queen-side right: `bit` is `1 << index`.
    #[inline(always)]
    pub const fn index(color: Color, king_side: bool) -> usize {
        2 * color.index() + if king_side { 0 } else { 1 }
    }

    /// Whether `color` may still castle on the king side (`king_side`) or the queen side.
    #[inline(always)]
    pub const fn has(self, color: Color, king_side: bool) -> bool {
        self.0 & Self::bit(color, king_side) != 0
    }
}

impl fmt::Display for CastlingRights {
    /// The bits as `KQkq` letters (`-` for none): the FEN field when every castling rook is the
    /// outermost rook on its side, which `Position::to_fen` checks (X-FEN).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == 0 {
            return f.write_str("-");
        }
        for (bit, c) in [(1, 'K'), (2, 'Q'), (4, 'k'), (8, 'q')] {
            if self.0 & bit != 0 {
                write!(f, "{c}")?;
            }
        }
        Ok(())
    }
}
