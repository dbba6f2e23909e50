//! `Move`: a 16-bit move (from, to, and four flag bits), and its UCI long-algebraic form;
//! `UciMove`: that form read without a position.

use super::notation::MoveParseError;
use super::types::{PieceKind, Square};
use std::fmt;
use std::mem::MaybeUninit;
use std::str::FromStr;

/// A UCI long-algebraic move as text says it (`e2e4`, `e7e8q`, `e1h1`), read without a position.
/// A [`Move`] carries flags (capture, en passant, castling) only a position can supply:
/// [`Position::resolve`](super::Position::resolve) turns a `UciMove` into the legal `Move` it
/// names, or says why there is none.
///
/// ```
/// use sparring_chess::board::{Position, UciMove};
///
/// let text: UciMove = "e7e8q".parse()?;
/// assert_eq!(text.to_string(), "e7e8q");
/// assert!("e7e9".parse::<UciMove>().is_err());
///
/// let pos: Position = "8/4P3/8/8/8/k7/8/K7 w - - 0 1".parse()?;
/// let promotion = pos.resolve(text)?;
/// assert!(promotion.is_promotion());
/// assert!(Position::startpos().resolve(text).is_err(), "no pawn on e7 to promote");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct UciMove {
    /// The square the piece leaves (the king's, for castling).
    pub from: Square,
    /// The square named second: the king's destination, or its own rook's square for castling
    /// written king takes rook.
    pub to: Square,
    /// The piece a pawn promotes to, if the text names one (q, r, b or n, either case).
    pub promotion: Option<PieceKind>,
}

impl FromStr for UciMove {
    type Err = MoveParseError;

    /// Reads two square names and an optional promotion letter; anything else (the null move
    /// `0000` included) is [`MoveParseError::Malformed`].
    fn from_str(text: &str) -> Result<UciMove, MoveParseError> {
        let text = text.trim();
        let malformed = || MoveParseError::Malformed {
            text: text.to_string(),
        };
        if !text.is_ascii() || !(4..=5).contains(&text.len()) {
            return Err(malformed());
        }
        let from = Square::parse(&text[0..2]).ok_or_else(malformed)?;
        let to = Square::parse(&text[2..4]).ok_or_else(malformed)?;
        let promotion = match text[4..].chars().next() {
            None => None,
            Some(c) => Some(
                PieceKind::from_char(c)
                    .filter(|k| PieceKind::PROMOTIONS.contains(k))
                    .ok_or_else(malformed)?,
            ),
        };
        Ok(UciMove {
            from,
            to,
            promotion,
        })
    }
}

impl fmt::Display for UciMove {
    /// The UCI text, promotion letter in lower case.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from, self.to)?;
        if let Some(kind) = self.promotion {
            write!(f, "{}", kind.char())?;
        }
        Ok(())
    }
}

/// A move packed in 16 bits: from square (bits 0-5), to square (6-11), kind flags (12-15).
/// Castling is encoded as the king's move to its castling square (e1g1, e1c1) with a flag for the
/// side, as UCI writes standard castling; the rook is the position's castling rook of that side
/// (`Position::castling_rook`). In Chess960 that keeps castling apart from a plain king move to
/// the same square (flags differ), and a king that does not move castles as g1g1 with the flag.
/// `Position::uci` writes the Chess960 king-takes-rook form.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default)]
pub struct Move(u16);

impl Move {
    /// Flags of a non-capturing move that is not a double push, castling or promotion.
    pub const QUIET: u16 = 0;
    /// Flags of a pawn's two-square advance from its start rank.
    pub const DOUBLE_PUSH: u16 = 1;
    /// Flags of king-side castling (`O-O`: king to g1/g8, rook to f1/f8).
    pub const KING_CASTLE: u16 = 2;
    /// Flags of queen-side castling (`O-O-O`: king to c1/c8, rook to d1/d8).
    pub const QUEEN_CASTLE: u16 = 3;
    /// Flags of an ordinary capture; its bit (4) is also set in en-passant and capturing
    /// promotion flags.
    pub const CAPTURE: u16 = 4;
    /// Flags of an en-passant capture (`CAPTURE | 1`).
    pub const EN_PASSANT: u16 = 5;
    /// Promotion flags are `PROMOTION | (piece - 1)`, plus `CAPTURE` for a capturing promotion.
    pub const PROMOTION: u16 = 8;

    /// The "no move" value (a1a1), written `0000` in UCI.
    pub const NULL: Move = Move(0);

    /// Packs a move from its squares and flags (one of the flag constants); nothing is validated.
    #[inline(always)]
    pub const fn new(from: Square, to: Square, flags: u16) -> Move {
        Move(from.index() as u16 | (to.index() as u16) << 6 | flags << 12)
    }

    /// Flags for a promotion to `kind` (knight..queen), capturing or not.
    #[inline(always)]
    pub const fn promotion_flags(kind: PieceKind, capture: bool) -> u16 {
        Move::PROMOTION | (kind.index() as u16 - 1) | if capture { Move::CAPTURE } else { 0 }
    }

    /// The square the moving piece leaves (the king's square for castling).
    #[inline(always)]
    pub const fn from(self) -> Square {
        Square::from_index((self.0 & 63) as usize)
    }

    /// The square the moving piece lands on (g1/c1/g8/c8 for castling: the king's square).
    #[inline(always)]
    pub const fn to(self) -> Square {
        Square::from_index((self.0 >> 6 & 63) as usize)
    }

    /// The four flag bits (`QUIET`, `CAPTURE`, `PROMOTION | ...`, ...) without the squares.
    #[inline(always)]
    pub const fn flags(self) -> u16 {
        self.0 >> 12
    }

    /// The raw 16 bits, e.g. for a transposition-table entry.
    #[inline(always)]
    pub const fn bits(self) -> u16 {
        self.0
    }

    /// Rebuilds a move from `bits`. Nothing is validated: a move read from a transposition table
    /// must be checked for legality before it is played.
    #[inline(always)]
    pub const fn from_bits(bits: u16) -> Move {
        Move(bits)
    }

    /// Whether this is `Move::NULL`.
    #[inline(always)]
    pub const fn is_null(self) -> bool {
        self.0 == 0
    }

    /// Captures, en passant included.
    #[inline(always)]
    pub const fn is_capture(self) -> bool {
        self.flags() & Move::CAPTURE != 0
    }

    /// Whether the move promotes a pawn, capturing or not.
    #[inline(always)]
    pub const fn is_promotion(self) -> bool {
        self.flags() & Move::PROMOTION != 0
    }

    /// Neither a capture nor a promotion.
    #[inline(always)]
    pub const fn is_quiet(self) -> bool {
        self.flags() & (Move::CAPTURE | Move::PROMOTION) == 0
    }

    /// Whether the move is an en-passant capture.
    #[inline(always)]
    pub const fn is_en_passant(self) -> bool {
        self.flags() == Move::EN_PASSANT
    }

    /// Whether the move is castling, on either side.
    #[inline(always)]
    pub const fn is_castle(self) -> bool {
        matches!(self.flags(), Move::KING_CASTLE | Move::QUEEN_CASTLE)
    }

    /// Where the rook lands if this is castling: f1/f8 on the king side, d1/d8 on the queen side.
    #[inline(always)]
    pub const fn castle_rook_to(self) -> Square {
        let rank_base = self.from().index() & !7;
        Square::from_index(
            rank_base
                + if self.flags() == Move::KING_CASTLE {
                    5
                } else {
                    3
                },
        )
    }

    /// Whether the move is a pawn's two-square advance.
    #[inline(always)]
    pub const fn is_double_push(self) -> bool {
        self.flags() == Move::DOUBLE_PUSH
    }

    /// The piece a promotion turns the pawn into (knight..queen); `None` for other moves.
    #[inline(always)]
    pub const fn promotion(self) -> Option<PieceKind> {
        if self.is_promotion() {
            Some(PieceKind::from_index((self.flags() & 3) as usize + 1))
        } else {
            None
        }
    }
}

impl fmt::Display for Move {
    /// UCI long algebraic notation: `e2e4`, `e7e8q`, `e1g1`, and `0000` for the null move.
    /// Castling is written as the king's move, right for standard chess; Chess960 castling needs
    /// the position (`Position::uci`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_null() {
            return f.write_str("0000");
        }
        write!(f, "{}{}", self.from(), self.to())?;
        if let Some(kind) = self.promotion() {
            write!(f, "{}", kind.char())?;
        }
        Ok(())
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Move({self}, flags {})", self.flags())
    }
}

/// A fixed-capacity list of moves, large enough for any legal position (218 is the known maximum),
/// so generating moves never allocates.
// The unused slots stay uninitialised: a zeroed array cost a 520-byte memset per node, 3.5 % of
// perft with every leaf made (perf, session 28). Hand-written so the board crate needs no crate
// beyond thiserror.
#[derive(Clone)]
pub struct MoveList {
    moves: [MaybeUninit<Move>; MoveList::CAPACITY],
    len: usize,
}

impl MoveList {
    /// How many moves the list can hold; more than the 218 of the richest known position.
    pub const CAPACITY: usize = 256;

    /// An empty list.
    #[inline(always)]
    pub fn new() -> MoveList {
        MoveList {
            moves: [MaybeUninit::uninit(); MoveList::CAPACITY],
            len: 0,
        }
    }

    /// Appends a move; panics if the list already holds `CAPACITY` moves.
    #[inline(always)]
    pub fn push(&mut self, mv: Move) {
        self.moves[self.len].write(mv);
        self.len += 1;
    }

    /// How many moves the list holds.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the list holds no move.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The moves held, in the order they were pushed.
    #[inline(always)]
    pub fn as_slice(&self) -> &[Move] {
        // SAFETY: `push` is the only writer and it initialises slot `len` before counting it, so
        // the first `len` slots hold moves; `MaybeUninit<Move>` has `Move`'s layout.
        unsafe { std::slice::from_raw_parts(self.moves.as_ptr().cast::<Move>(), self.len) }
    }

    /// The moves held, mutable (e.g. for sorting by score in place).
    #[inline(always)]
    pub fn as_mut_slice(&mut self) -> &mut [Move] {
        // SAFETY: as in `as_slice`; the borrow of `self` is exclusive for the slice's lifetime.
        unsafe { std::slice::from_raw_parts_mut(self.moves.as_mut_ptr().cast::<Move>(), self.len) }
    }

    /// Whether `mv` is in the list (a linear scan).
    pub fn contains(&self, mv: Move) -> bool {
        self.as_slice().contains(&mv)
    }

    /// Iterates the moves in the order they were pushed.
    pub fn iter(&self) -> std::slice::Iter<'_, Move> {
        self.as_slice().iter()
    }
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList::new()
    }
}

impl std::ops::Deref for MoveList {
    type Target = [Move];
    fn deref(&self) -> &[Move] {
        self.as_slice()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_round_trips() {
        let e7 = Square::parse("e7").unwrap();
        let d8 = Square::parse("d8").unwrap();
        let mv = Move::new(e7, d8, Move::promotion_flags(PieceKind::Knight, true));
        assert_eq!(mv.from(), e7);
        assert_eq!(mv.to(), d8);
        assert!(mv.is_capture() && mv.is_promotion() && !mv.is_quiet());
        assert_eq!(mv.promotion(), Some(PieceKind::Knight));
        assert_eq!(mv.to_string(), "e7d8n");
        assert_eq!(Move::NULL.to_string(), "0000");
        let ep = Move::new(e7, d8, Move::EN_PASSANT);
        assert!(ep.is_capture() && ep.is_en_passant() && ep.promotion().is_none());
    }

    #[test]
    fn a_move_list_holds_what_was_pushed_up_to_its_capacity() {
        let mut list = MoveList::new();
        assert!(list.is_empty() && list.as_slice().is_empty());
        let moves: Vec<Move> = (0..MoveList::CAPACITY)
            .map(|i| Move::new(Square::from_index(i % 64), Square::from_index(i / 4), 0))
            .collect();
        for &mv in &moves {
            list.push(mv);
        }
        assert_eq!(list.len(), MoveList::CAPACITY);
        assert_eq!(list.as_slice(), moves.as_slice());
        let copy = list.clone();
        list.as_mut_slice().reverse();
        assert_eq!(list.first(), moves.last());
        assert_eq!(copy.as_slice(), moves.as_slice());
        let full = std::panic::catch_unwind(move || {
            let mut list = list;
            list.push(Move::NULL);
        });
        assert!(
            full.is_err(),
            "a push past the capacity must panic, not write out of bounds"
        );
    }
}
