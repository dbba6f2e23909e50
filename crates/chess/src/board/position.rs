//! `Position`: piece placement as bitboards plus a square-indexed mailbox, the side to move,
//! castling rights, en-passant square, clocks and the incrementally updated Zobrist key.

use super::attacks::{
    between, bishop_attacks, king_attacks, knight_attacks, pawn_attacks, rook_attacks,
};
use super::bitboard::Bitboard;
use super::moves::Move;
use super::types::{CastlingRights, Color, File, Piece, PieceKind, Rank, Square};
use super::zobrist;

/// A chess position, standard or Chess960. Equality compares every field that describes the
/// position, the key included, so a test can check that make followed by unmake restores the
/// position bit for bit (the castling tables derived from the rook squares are not compared).
#[derive(Clone, Debug)]
pub struct Position {
    pub(super) pieces: [Bitboard; 6],
    pub(super) colors: [Bitboard; 2],
    pub(super) mailbox: [Option<PieceKind>; 64],
    pub(super) side: Color,
    pub(super) castling: CastlingRights,
    /// The castling rook's square of each right (index `CastlingRights::index`); a right not held
    /// keeps the standard corner. Kings and castling rooks never move while a right is held, so
    /// these and the three tables below stay fixed for a whole game.
    pub(super) castling_rooks: [Square; 4],
    /// Squares that must be empty (apart from the castling king and rook) for each right.
    pub(super) castling_paths: [Bitboard; 4],
    /// Squares the king passes and lands on for each right: none may be attacked.
    pub(super) castling_king_paths: [Bitboard; 4],
    /// The rights that survive a move touching each square (a king or castling rook leaving, or
    /// a castling rook being captured): the standard table in standard chess.
    pub(super) castling_keep: [u8; 64],
    /// Zobrist key of every set of rights: Polyglot's keys, plus one key per right whose rook is
    /// not in the standard corner (`zobrist::castling_file_key`).
    pub(super) castling_keys: [u64; 16],
    /// Set only when an en-passant capture is legal, so the key and repetition checks see it only
    /// when it changes the position's possibilities.
    pub(super) ep_square: Option<Square>,
    pub(super) halfmove_clock: u16,
    /// Wider than FEN needs so that no game can overflow it.
    pub(super) fullmove_number: u32,
    pub(super) key: u64,
}

/// What `make_move` needs to remember so that `unmake_move` restores the position exactly.
#[derive(Copy, Clone, Debug)]
pub struct Undo {
    captured: Option<PieceKind>,
    castling: CastlingRights,
    ep_square: Option<Square>,
    halfmove_clock: u16,
    key: u64,
}

impl PartialEq for Position {
    fn eq(&self, other: &Position) -> bool {
        let held_rooks_equal = (0..4).all(|i| {
            self.castling.0 & (1 << i) == 0 || self.castling_rooks[i] == other.castling_rooks[i]
        });
        self.pieces == other.pieces
            && self.colors == other.colors
            && self.mailbox == other.mailbox
            && self.side == other.side
            && self.castling == other.castling
            && held_rooks_equal
            && self.ep_square == other.ep_square
            && self.halfmove_clock == other.halfmove_clock
            && self.fullmove_number == other.fullmove_number
            && self.key == other.key
    }
}

impl Eq for Position {}

/// The standard corners: the rook square of each right (WK h1, WQ a1, BK h8, BQ a8).
const STANDARD_CASTLING_ROOKS: [Square; 4] = [
    Square::new(File::H, Rank::First),
    Square::new(File::A, Rank::First),
    Square::new(File::H, Rank::Eighth),
    Square::new(File::A, Rank::Eighth),
];

/// Where the king and the rook of a castling right stand afterwards: g and f on the king side,
/// c and d on the queen side, on `color`'s back rank, wherever they started (Chess960 rules).
#[inline(always)]
pub(super) const fn castling_destinations(color: Color, king_side: bool) -> (Square, Square) {
    let rank = color.back_rank();
    if king_side {
        (Square::new(File::G, rank), Square::new(File::F, rank))
    } else {
        (Square::new(File::C, rank), Square::new(File::D, rank))
    }
}

impl Position {
    /// The standard starting position.
    pub fn startpos() -> Position {
        Position::from_fen(Position::START_FEN).expect("the start position is valid")
    }

    /// The standard starting position as FEN.
    pub const START_FEN: &'static str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    /// An empty board with White to move; a building block for parsers.
    pub(super) fn empty() -> Position {
        Position {
            pieces: [Bitboard::EMPTY; 6],
            colors: [Bitboard::EMPTY; 2],
            mailbox: [None; 64],
            side: Color::White,
            castling: CastlingRights::NONE,
            castling_rooks: STANDARD_CASTLING_ROOKS,
            castling_paths: [Bitboard::EMPTY; 4],
            castling_king_paths: [Bitboard::EMPTY; 4],
            castling_keep: [15; 64],
            castling_keys: zobrist::CASTLING_KEYS,
            ep_square: None,
            halfmove_clock: 0,
            fullmove_number: 1,
            key: 0,
        }
    }

    /// The colour whose turn it is.
    #[inline(always)]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// The castling rights still held by both sides (not whether castling is possible right now).
    #[inline(always)]
    pub fn castling_rights(&self) -> CastlingRights {
        self.castling
    }

    /// The square of the rook `color` may castle with on the king side (`king_side`, the h-file
    /// side, `O-O`) or the queen side (`O-O-O`); `None` if that right is lost. In standard chess
    /// this is a corner; in Chess960 any back-rank square on that side of the king.
    #[inline]
    pub fn castling_rook(&self, color: Color, king_side: bool) -> Option<Square> {
        let i = CastlingRights::index(color, king_side);
        (self.castling.0 & (1 << i) != 0).then_some(self.castling_rooks[i])
    }

    /// Whether some castling right held needs Chess960 rules to describe: a king off the e-file
    /// or a castling rook off its corner. A standard position never does.
    pub fn has_chess960_castling(&self) -> bool {
        (0..4).any(|i| {
            self.castling.0 & (1 << i) != 0
                && (self.castling_rooks[i] != STANDARD_CASTLING_ROOKS[i]
                    || self
                        .king_square(if i < 2 { Color::White } else { Color::Black })
                        .file()
                        != File::E)
        })
    }

    /// The square the rook of castling move `mv` by `us` starts on (the castling right's rook).
    #[inline(always)]
    pub(super) fn castle_rook_from(&self, us: Color, mv: Move) -> Square {
        self.castling_rooks[CastlingRights::index(us, mv.flags() == Move::KING_CASTLE)]
    }

    /// Sets the castling rights and their rook squares (one per right, ignored for rights not
    /// held) and derives the generation paths, the keep table and the castling keys. The kings
    /// and rooks must already stand on the board; the key is not updated.
    pub(super) fn set_castling(&mut self, rights: CastlingRights, rooks: [Square; 4]) {
        self.castling = rights;
        self.castling_keep = [15; 64];
        self.castling_paths = [Bitboard::EMPTY; 4];
        self.castling_king_paths = [Bitboard::EMPTY; 4];
        let mut extra = [0u64; 4];
        for (i, &held_rook) in rooks.iter().enumerate() {
            let color = if i < 2 { Color::White } else { Color::Black };
            let king_side = i % 2 == 0;
            if rights.0 & (1 << i) == 0 {
                self.castling_rooks[i] = STANDARD_CASTLING_ROOKS[i];
                continue;
            }
            let rook = held_rook;
            self.castling_rooks[i] = rook;
            let king = self.king_square(color);
            let (king_to, rook_to) = castling_destinations(color, king_side);
            let king_path = between(king, king_to).with(king_to);
            let rook_path = between(rook, rook_to).with(rook_to);
            self.castling_king_paths[i] = king_path;
            self.castling_paths[i] = (between(king, rook) | king_path | rook_path)
                .without(king)
                .without(rook);
            self.castling_keep[rook.index()] &= !(1 << i);
            self.castling_keep[king.index()] &= !(1 << i);
            extra[i] = zobrist::castling_file_key(i, rook.file());
        }
        for mask in 0..16 {
            let mut key = zobrist::CASTLING_KEYS[mask];
            for (i, e) in extra.iter().enumerate() {
                if mask & (1 << i) != 0 {
                    key ^= e;
                }
            }
            self.castling_keys[mask] = key;
        }
    }

    /// The en-passant target square, present only when an en-passant capture is legal.
    #[inline(always)]
    pub fn en_passant_square(&self) -> Option<Square> {
        self.ep_square
    }

    /// Half-moves since the last capture or pawn move (the fifty-move counter).
    #[inline(always)]
    pub fn halfmove_clock(&self) -> u16 {
        self.halfmove_clock
    }

    /// The FEN fullmove number, increased after each Black move.
    #[inline(always)]
    pub fn fullmove_number(&self) -> u32 {
        self.fullmove_number
    }

    /// The Zobrist key, equal to the Polyglot book key of the position.
    #[inline(always)]
    pub fn key(&self) -> u64 {
        self.key
    }

    /// All pieces of one kind, both colours.
    #[inline(always)]
    pub fn pieces(&self, kind: PieceKind) -> Bitboard {
        self.pieces[kind.index()]
    }

    /// All pieces of one colour.
    #[inline(always)]
    pub fn color(&self, color: Color) -> Bitboard {
        self.colors[color.index()]
    }

    /// The pieces of one colour and kind.
    #[inline(always)]
    pub fn colored(&self, color: Color, kind: PieceKind) -> Bitboard {
        self.pieces[kind.index()] & self.colors[color.index()]
    }

    /// Every occupied square, both colours.
    #[inline(always)]
    pub fn occupied(&self) -> Bitboard {
        self.colors[0] | self.colors[1]
    }

    /// The kind of the piece on `sq`, if any.
    #[inline(always)]
    pub fn kind_on(&self, sq: Square) -> Option<PieceKind> {
        self.mailbox[sq.index()]
    }

    /// The colour of the piece on `sq`, if any.
    #[inline(always)]
    pub fn color_on(&self, sq: Square) -> Option<Color> {
        if self.colors[0].has(sq) {
            Some(Color::White)
        } else if self.colors[1].has(sq) {
            Some(Color::Black)
        } else {
            None
        }
    }

    /// The piece on `sq`, if any.
    #[inline(always)]
    pub fn piece_on(&self, sq: Square) -> Option<Piece> {
        Some(Piece::new(self.color_on(sq)?, self.kind_on(sq)?))
    }

    /// The square of `color`'s king (every valid position has exactly one).
    #[inline(always)]
    pub fn king_square(&self, color: Color) -> Square {
        self.colored(color, PieceKind::King).single()
    }

    /// Pieces of both colours that attack `sq`, with `occupied` as the blockers.
    #[inline(always)]
    pub fn attackers_to(&self, sq: Square, occupied: Bitboard) -> Bitboard {
        let diagonal = self.pieces(PieceKind::Bishop) | self.pieces(PieceKind::Queen);
        let straight = self.pieces(PieceKind::Rook) | self.pieces(PieceKind::Queen);
        (pawn_attacks(Color::White, sq) & self.colored(Color::Black, PieceKind::Pawn))
            | (pawn_attacks(Color::Black, sq) & self.colored(Color::White, PieceKind::Pawn))
            | (knight_attacks(sq) & self.pieces(PieceKind::Knight))
            | (king_attacks(sq) & self.pieces(PieceKind::King))
            | (bishop_attacks(sq, occupied) & diagonal)
            | (rook_attacks(sq, occupied) & straight)
    }

    /// Whether `by` attacks `sq`, with `occupied` as the blockers.
    #[inline(always)]
    pub fn is_attacked(&self, sq: Square, by: Color, occupied: Bitboard) -> bool {
        let theirs = self.color(by);
        if (knight_attacks(sq) & theirs & self.pieces(PieceKind::Knight)).is_nonempty()
            || (pawn_attacks(!by, sq) & theirs & self.pieces(PieceKind::Pawn)).is_nonempty()
            || (king_attacks(sq) & theirs & self.pieces(PieceKind::King)).is_nonempty()
        {
            return true;
        }
        let diagonal = (self.pieces(PieceKind::Bishop) | self.pieces(PieceKind::Queen)) & theirs;
        let straight = (self.pieces(PieceKind::Rook) | self.pieces(PieceKind::Queen)) & theirs;
        (bishop_attacks(sq, occupied) & diagonal).is_nonempty()
            || (rook_attacks(sq, occupied) & straight).is_nonempty()
    }

    /// The enemy pieces giving check to the side to move.
    #[inline(always)]
    pub fn checkers(&self) -> Bitboard {
        let king = self.king_square(self.side);
        self.attackers_to(king, self.occupied()) & self.color(!self.side)
    }

    /// Whether the side to move's king is attacked.
    #[inline(always)]
    pub fn in_check(&self) -> bool {
        self.is_attacked(self.king_square(self.side), !self.side, self.occupied())
    }

    /// Pieces of `color` pinned to their own king (they may move only along the pin ray).
    #[inline(always)]
    pub fn pinned(&self, color: Color) -> Bitboard {
        let king = self.king_square(color);
        let theirs = self.color(!color);
        let snipers = (rook_attacks(king, theirs)
            & (self.pieces(PieceKind::Rook) | self.pieces(PieceKind::Queen)))
            | (bishop_attacks(king, theirs)
                & (self.pieces(PieceKind::Bishop) | self.pieces(PieceKind::Queen)));
        let occupied = self.occupied();
        let mut pinned = Bitboard::EMPTY;
        for sniper in snipers & theirs {
            let blockers = between(king, sniper) & occupied;
            if blockers.is_nonempty() && !blockers.has_several() {
                pinned |= blockers;
            }
        }
        pinned
    }

    /// Whether the side to move can legally capture en passant onto `ep` with some pawn. The
    /// capture is simulated, which covers the pins a rank-wise en passant exposes.
    pub(super) fn en_passant_legal(&self, ep: Square) -> bool {
        let us = self.side;
        let capturers = pawn_attacks(!us, ep) & self.colored(us, PieceKind::Pawn);
        capturers
            .into_iter()
            .any(|from| self.en_passant_legal_from(from, ep))
    }

    /// Whether the pawn on `from` may legally capture en passant onto `ep`.
    #[inline]
    pub(super) fn en_passant_legal_from(&self, from: Square, ep: Square) -> bool {
        let us = self.side;
        let victim = Square::from_index(ep.index() ^ 8);
        let occupied = (self.occupied().without(from).without(victim)).with(ep);
        let king = self.king_square(us);
        let theirs = self.color(!us).without(victim);
        let diagonal = (self.pieces(PieceKind::Bishop) | self.pieces(PieceKind::Queen)) & theirs;
        let straight = (self.pieces(PieceKind::Rook) | self.pieces(PieceKind::Queen)) & theirs;
        (bishop_attacks(king, occupied) & diagonal).is_empty()
            && (rook_attacks(king, occupied) & straight).is_empty()
            && (knight_attacks(king) & theirs & self.pieces(PieceKind::Knight)).is_empty()
            && (pawn_attacks(us, king) & theirs & self.pieces(PieceKind::Pawn)).is_empty()
    }

    #[inline(always)]
    fn toggle(&mut self, color: Color, kind: PieceKind, sq: Square) {
        let bit = Bitboard::from_square(sq);
        self.pieces[kind.index()] ^= bit;
        self.colors[color.index()] ^= bit;
    }

    /// Moves `us`'s piece between `from` and `to` (either way: the update is its own inverse), as
    /// `kind` on `from` and `placed` on `to`. One update per bitboard: toggling the two squares
    /// one after the other made each board word a chain of two read-modify-writes, which the
    /// every-leaf perft profile showed as its hottest instructions.
    #[inline(always)]
    fn shift(&mut self, us: Color, kind: PieceKind, placed: PieceKind, from: Square, to: Square) {
        let (from_bit, to_bit) = (Bitboard::from_square(from), Bitboard::from_square(to));
        self.colors[us.index()] ^= from_bit | to_bit;
        if kind == placed {
            self.pieces[kind.index()] ^= from_bit | to_bit;
        } else {
            self.pieces[kind.index()] ^= from_bit;
            self.pieces[placed.index()] ^= to_bit;
        }
    }

    /// Places a piece on an empty square (used by parsers and editors; keeps the key in step).
    pub(super) fn put_piece(&mut self, piece: Piece, sq: Square) {
        debug_assert!(self.mailbox[sq.index()].is_none());
        self.toggle(piece.color, piece.kind, sq);
        self.mailbox[sq.index()] = Some(piece.kind);
        self.key ^= zobrist::piece_key(piece, sq);
    }

    /// The key computed from scratch; the incremental key must always equal it.
    pub fn compute_key(&self) -> u64 {
        let mut key = 0;
        for sq in self.occupied() {
            key ^= zobrist::piece_key(self.piece_on(sq).expect("occupied"), sq);
        }
        key ^= self.castling_keys[self.castling.0 as usize];
        if let Some(ep) = self.ep_square {
            key ^= zobrist::en_passant_key(ep.file());
        }
        if self.side == Color::White {
            key ^= zobrist::WHITE_TO_MOVE_KEY;
        }
        key
    }

    /// Plays a legal move (as produced by the move generator) and returns what undoes it.
    /// The behaviour for an illegal move is unspecified (it may corrupt the position): the search's
    /// hot path skips the check that [`Position::try_play`] makes.
    #[inline(always)]
    pub fn make_move(&mut self, mv: Move) -> Undo {
        let us = self.side;
        let them = !us;
        let (from, to) = (mv.from(), mv.to());
        let kind = self.mailbox[from.index()].expect("make_move: no piece on the from square");
        let mut undo = Undo {
            captured: None,
            castling: self.castling,
            ep_square: self.ep_square,
            halfmove_clock: self.halfmove_clock,
            key: self.key,
        };
        let mut key = self.key ^ zobrist::WHITE_TO_MOVE_KEY;
        if let Some(ep) = self.ep_square.take() {
            key ^= zobrist::en_passant_key(ep.file());
        }
        self.halfmove_clock = self.halfmove_clock.saturating_add(1);

        if mv.is_castle() {
            // Lift both, then place both: in Chess960 either destination may be the other's
            // start square, and the king may not move at all.
            let (king_to, rook_from, rook_to) =
                (to, self.castle_rook_from(us, mv), mv.castle_rook_to());
            self.toggle(us, PieceKind::King, from);
            self.toggle(us, PieceKind::Rook, rook_from);
            self.mailbox[from.index()] = None;
            self.mailbox[rook_from.index()] = None;
            self.toggle(us, PieceKind::King, king_to);
            self.toggle(us, PieceKind::Rook, rook_to);
            self.mailbox[king_to.index()] = Some(PieceKind::King);
            self.mailbox[rook_to.index()] = Some(PieceKind::Rook);
            let (king, rook) = (
                Piece::new(us, PieceKind::King),
                Piece::new(us, PieceKind::Rook),
            );
            key ^= zobrist::piece_key(king, from)
                ^ zobrist::piece_key(king, king_to)
                ^ zobrist::piece_key(rook, rook_from)
                ^ zobrist::piece_key(rook, rook_to);
        } else {
            if mv.is_capture() {
                let (victim_sq, victim) = if mv.is_en_passant() {
                    (Square::from_index(to.index() ^ 8), PieceKind::Pawn)
                } else {
                    (
                        to,
                        self.mailbox[to.index()].expect("capture of an empty square"),
                    )
                };
                self.toggle(them, victim, victim_sq);
                self.mailbox[victim_sq.index()] = None;
                key ^= zobrist::piece_key(Piece::new(them, victim), victim_sq);
                undo.captured = Some(victim);
                self.halfmove_clock = 0;
            }

            let placed = mv.promotion().unwrap_or(kind);
            self.shift(us, kind, placed, from, to);
            self.mailbox[from.index()] = None;
            self.mailbox[to.index()] = Some(placed);
            key ^= zobrist::piece_key(Piece::new(us, kind), from)
                ^ zobrist::piece_key(Piece::new(us, placed), to);

            if kind == PieceKind::Pawn {
                self.halfmove_clock = 0;
            }
        }

        // Most moves lose no right (none left, or neither square is a king's or a rook's
        // start): the keys are looked up only when one is lost.
        let keep = self.castling_keep[from.index()] & self.castling_keep[to.index()];
        if self.castling.0 & !keep != 0 {
            let kept = CastlingRights(self.castling.0 & keep);
            key ^=
                self.castling_keys[self.castling.0 as usize] ^ self.castling_keys[kept.0 as usize];
            self.castling = kept;
        }
        self.side = them;
        if us == Color::Black {
            self.fullmove_number += 1;
        }

        // Record the en-passant square only if the opponent can really use it.
        if mv.is_double_push() {
            let ep = Square::from_index((from.index() + to.index()) / 2);
            if (pawn_attacks(us, ep) & self.colored(them, PieceKind::Pawn)).is_nonempty()
                && self.en_passant_legal(ep)
            {
                self.ep_square = Some(ep);
                key ^= zobrist::en_passant_key(ep.file());
            }
        }
        self.key = key;
        undo
    }

    /// Takes back `mv`, which must be the last move made, with the record `make_move` returned.
    #[inline(always)]
    pub fn unmake_move(&mut self, mv: Move, undo: Undo) {
        let them = self.side;
        let us = !them;
        self.side = us;
        if us == Color::Black {
            self.fullmove_number -= 1;
        }
        let (from, to) = (mv.from(), mv.to());
        if mv.is_castle() {
            let (king_to, rook_from, rook_to) =
                (to, self.castle_rook_from(us, mv), mv.castle_rook_to());
            self.toggle(us, PieceKind::King, king_to);
            self.toggle(us, PieceKind::Rook, rook_to);
            self.mailbox[king_to.index()] = None;
            self.mailbox[rook_to.index()] = None;
            self.toggle(us, PieceKind::King, from);
            self.toggle(us, PieceKind::Rook, rook_from);
            self.mailbox[from.index()] = Some(PieceKind::King);
            self.mailbox[rook_from.index()] = Some(PieceKind::Rook);
        } else {
            let placed = self.mailbox[to.index()].expect("unmake_move: no piece on the to square");
            let kind = if mv.is_promotion() {
                PieceKind::Pawn
            } else {
                placed
            };
            self.shift(us, kind, placed, from, to);
            self.mailbox[to.index()] = None;
            self.mailbox[from.index()] = Some(kind);
            if let Some(victim) = undo.captured {
                let victim_sq = if mv.is_en_passant() {
                    Square::from_index(to.index() ^ 8)
                } else {
                    to
                };
                self.toggle(them, victim, victim_sq);
                self.mailbox[victim_sq.index()] = Some(victim);
            }
        }
        self.castling = undo.castling;
        self.ep_square = undo.ep_square;
        self.halfmove_clock = undo.halfmove_clock;
        self.key = undo.key;
    }

    /// Whether the legal move `mv` gives check, without making it. Castling, en passant and
    /// promotions are rare and are played on a copy; other moves are decided from attack sets.
    #[inline]
    pub fn gives_check(&self, mv: Move) -> bool {
        if mv.is_castle() || mv.is_en_passant() || mv.is_promotion() {
            return self.after(mv).in_check();
        }
        let us = self.side;
        let king = self.king_square(!us);
        let (from, to) = (mv.from(), mv.to());
        let occupied = self.occupied().without(from).with(to);
        let direct = match self.mailbox[from.index()] {
            Some(PieceKind::Pawn) => pawn_attacks(us, to).has(king),
            Some(PieceKind::Knight) => knight_attacks(to).has(king),
            _ => false,
        };
        if direct {
            return true;
        }
        // Sliders: the moved piece itself, or one it uncovers, now sees the king.
        // `to` may hold a captured enemy slider: clear it, then add the mover by its kind.
        let ours = self.color(us).without(from).without(to);
        let mut diagonal = (self.pieces(PieceKind::Bishop) | self.pieces(PieceKind::Queen)) & ours;
        let mut straight = (self.pieces(PieceKind::Rook) | self.pieces(PieceKind::Queen)) & ours;
        match self.mailbox[from.index()] {
            Some(PieceKind::Bishop) => diagonal = diagonal.with(to),
            Some(PieceKind::Rook) => straight = straight.with(to),
            Some(PieceKind::Queen) => {
                diagonal = diagonal.with(to);
                straight = straight.with(to);
            }
            _ => {}
        }
        (bishop_attacks(king, occupied) & diagonal).is_nonempty()
            || (rook_attacks(king, occupied) & straight).is_nonempty()
    }

    /// Passes the move to the opponent (for null-move pruning). Not legal when in check.
    #[inline]
    pub fn make_null_move(&mut self) -> Undo {
        let undo = Undo {
            captured: None,
            castling: self.castling,
            ep_square: self.ep_square,
            halfmove_clock: self.halfmove_clock,
            key: self.key,
        };
        if let Some(ep) = self.ep_square.take() {
            self.key ^= zobrist::en_passant_key(ep.file());
        }
        self.key ^= zobrist::WHITE_TO_MOVE_KEY;
        self.halfmove_clock = self.halfmove_clock.saturating_add(1);
        self.side = !self.side;
        undo
    }

    /// Takes back a null move with the record `make_null_move` returned.
    #[inline]
    pub fn unmake_null_move(&mut self, undo: Undo) {
        self.side = !self.side;
        self.ep_square = undo.ep_square;
        self.halfmove_clock = undo.halfmove_clock;
        self.key = undo.key;
    }

    /// Plays a move on a copy of the position.
    pub fn after(&self, mv: Move) -> Position {
        let mut next = self.clone();
        next.make_move(mv);
        next
    }

    /// True if the side to move has any non-pawn, non-king material (null-move pruning is unsafe
    /// in pawn endings because of zugzwang).
    #[inline]
    pub fn has_non_pawn_material(&self, color: Color) -> bool {
        (self.color(color) & !(self.pieces(PieceKind::Pawn) | self.pieces(PieceKind::King)))
            .is_nonempty()
    }

    /// The rank a pawn of `color` promotes on.
    #[inline(always)]
    pub(super) fn promotion_rank(color: Color) -> Bitboard {
        Bitboard::rank(Rank::Eighth.relative_to(color))
    }
}

impl std::fmt::Display for Position {
    /// Writes the FEN.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_fen())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `gives_check` agrees with making the move, over every move of positions along playouts.
    #[test]
    fn gives_check_matches_make_move() {
        let fens = [
            Position::START_FEN,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "3k4/8/8/2KPp2r/8/8/8/8 w - e6 0 1",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut checked = 0;
        for fen in fens {
            for _ in 0..40 {
                let mut pos = Position::from_fen(fen).unwrap();
                for _ in 0..60 {
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    for &mv in moves.iter() {
                        assert_eq!(pos.gives_check(mv), pos.after(mv).in_check(), "{pos} {mv}");
                        checked += 1;
                    }
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    pos.make_move(moves[(seed % moves.len() as u64) as usize]);
                }
            }
        }
        assert!(checked > 100_000);
    }
}
