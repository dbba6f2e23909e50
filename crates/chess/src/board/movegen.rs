//! Strictly legal move generation. Checkers, the check mask and the pinned pieces are computed once
//! per position; a pinned piece moves only along its pin ray, in check only captures of the checker
//! and blocks are produced, and king moves are tested against attacks with the king lifted off the
//! board. No move is made and then tested.

use super::attacks::{
    between, bishop_attacks, king_attacks, knight_attacks, line, pawn_attacks, queen_attacks,
    rook_attacks,
};
use super::bitboard::Bitboard;
use super::moves::{Move, MoveList};
use super::position::Position;
use super::types::{Color, File, PieceKind, Rank, Square};

/// The legal destinations of one piece. Pawn moves to the last rank stand for four promotions.
#[derive(Copy, Clone, Debug)]
pub struct PieceMoves {
    /// The kind of the moving piece.
    pub kind: PieceKind,
    /// The square the piece moves from.
    pub from: Square,
    /// The legal destinations; for castling the castling rook's square (so that castling and a
    /// plain king move to the king's castling square stay apart in Chess960; `push_piece_moves`
    /// turns it into the castling `Move`), for en passant the empty square the pawn moves to.
    pub to: Bitboard,
}

impl PieceMoves {
    /// Whether these are promotions: pawn moves that reach the first or last rank.
    #[inline(always)]
    fn promotes(&self) -> bool {
        const BACK_RANKS: u64 = 0xFF00_0000_0000_00FF;
        self.kind == PieceKind::Pawn && self.to.0 & BACK_RANKS != 0
    }

    /// How many moves these are (each promotion square counts four).
    #[inline(always)]
    pub fn len(&self) -> usize {
        let n = self.to.len() as usize;
        if self.promotes() {
            4 * n
        } else {
            n
        }
    }

    /// Whether the piece has no legal destination.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.to.is_empty()
    }
}

/// Receives each piece's legal destinations from the generator. Any `FnMut(PieceMoves)` closure
/// is one.
trait PieceMovesVisitor {
    /// Called once per piece that has a legal destination.
    fn visit(&mut self, moves: PieceMoves);
}

impl<F: FnMut(PieceMoves)> PieceMovesVisitor for F {
    #[inline(always)]
    fn visit(&mut self, moves: PieceMoves) {
        self(moves)
    }
}

/// Expands each piece's destinations into a move list. A type of its own, not a closure, so that
/// its expansion is inlined at every call in the generator, where the piece kind is known and
/// `push_piece_moves`'s match folds away.
struct ListFiller<'a> {
    position: &'a Position,
    list: &'a mut MoveList,
}

impl PieceMovesVisitor for ListFiller<'_> {
    #[inline(always)]
    fn visit(&mut self, moves: PieceMoves) {
        self.position.push_piece_moves(moves, self.list);
    }
}

/// Which moves to produce.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum GenMode {
    /// Every legal move.
    All,
    /// Captures (en passant included) and promotions: the quiescence search's moves.
    Noisy,
    /// Everything else.
    Quiet,
}

impl Position {
    /// Calls `visitor` with the legal destinations of each piece of the side to move.
    /// `NOISY` selects captures and promotions, `QUIET` the rest; both together give every move.
    #[inline(always)]
    pub fn generate_piece_moves<const NOISY: bool, const QUIET: bool>(
        &self,
        visit: impl FnMut(PieceMoves),
    ) {
        self.visit_piece_moves::<NOISY, QUIET>(visit)
    }

    /// The generator behind [`Position::generate_piece_moves`], generic over the visitor.
    #[inline(always)]
    fn visit_piece_moves<const NOISY: bool, const QUIET: bool>(
        &self,
        mut visitor: impl PieceMovesVisitor,
    ) {
        let us = self.side;
        let them = !us;
        let ours = self.color(us);
        let theirs = self.color(them);
        let occupied = ours | theirs;
        let king = self.king_square(us);
        let checkers = self.attackers_to(king, occupied) & theirs;

        // Captures land on enemy pieces, quiet moves on empty squares.
        let mode_mask = match (NOISY, QUIET) {
            (true, true) => !ours,
            (true, false) => theirs,
            (false, true) => !occupied,
            (false, false) => return,
        };

        // King: every step is tested with the king lifted off, so it cannot hide behind itself
        // on a checking slider's ray.
        let without_king = occupied.without(king);
        let mut king_to = Bitboard::EMPTY;
        for to in king_attacks(king) & mode_mask {
            if !self.is_attacked(to, them, without_king) {
                king_to = king_to.with(to);
            }
        }
        if QUIET && checkers.is_empty() {
            king_to |= self.castling_targets(us, king, occupied);
        }
        if king_to.is_nonempty() {
            visitor.visit(PieceMoves {
                kind: PieceKind::King,
                from: king,
                to: king_to,
            });
        }
        if checkers.has_several() {
            return; // Double check: only the king may move.
        }

        let check_mask = match checkers.first() {
            Some(checker) => between(king, checker).with(checker),
            None => Bitboard::FULL,
        };
        let pinned = self.pinned(us);
        let target = mode_mask & check_mask;

        for from in self.colored(us, PieceKind::Knight) & !pinned {
            let to = knight_attacks(from) & target;
            if to.is_nonempty() {
                visitor.visit(PieceMoves {
                    kind: PieceKind::Knight,
                    from,
                    to,
                });
            }
        }
        let sliders = [
            (
                PieceKind::Bishop,
                bishop_attacks as fn(Square, Bitboard) -> Bitboard,
            ),
            (PieceKind::Rook, rook_attacks),
            (PieceKind::Queen, queen_attacks),
        ];
        for (kind, attacks) in sliders {
            for from in self.colored(us, kind) {
                let mut to = attacks(from, occupied) & target;
                if pinned.has(from) {
                    to &= line(king, from);
                }
                if to.is_nonempty() {
                    visitor.visit(PieceMoves { kind, from, to });
                }
            }
        }

        let promotion_rank = Position::promotion_rank(us);
        let double_push_rank = Bitboard::rank(Rank::Fourth.relative_to(us));
        for from in self.colored(us, PieceKind::Pawn) {
            let mut to = Bitboard::EMPTY;
            let single = Bitboard::from_square(from).forward(us) & !occupied;
            let pushes = single | (single.forward(us) & !occupied & double_push_rank);
            let captures = pawn_attacks(us, from) & theirs;
            if NOISY {
                to |= (captures | (pushes & promotion_rank)) & check_mask;
            }
            if QUIET {
                to |= pushes & !promotion_rank & check_mask;
            }
            if pinned.has(from) {
                to &= line(king, from);
            }
            // En passant is rare and has its own subtleties (the rank pin, capturing a checking
            // pawn), so it is checked by simulating the capture.
            if NOISY {
                if let Some(ep) = self.ep_square {
                    if pawn_attacks(us, from).has(ep) && self.en_passant_legal_from(from, ep) {
                        to = to.with(ep);
                    }
                }
            }
            if to.is_nonempty() {
                visitor.visit(PieceMoves {
                    kind: PieceKind::Pawn,
                    from,
                    to,
                });
            }
        }
    }

    /// The castling rooks' squares (king takes own rook) of the castling moves open to the king:
    /// the right is held, every square the king and the rook pass or land on is empty apart from
    /// the two of them, and no square the king passes or lands on is attacked once king and rook
    /// have moved (so a rook that shielded its king along the back rank cannot castle away). The
    /// caller has checked the king is not in check. Standard and Chess960 castling alike.
    #[inline(always)]
    fn castling_targets(&self, us: Color, king: Square, occupied: Bitboard) -> Bitboard {
        let mut targets = Bitboard::EMPTY;
        let first = 2 * us.index();
        for i in first..first + 2 {
            if self.castling.0 & (1 << i) == 0 {
                continue;
            }
            let rook = self.castling_rooks[i];
            let others = occupied.without(king).without(rook);
            if (self.castling_paths[i] & others).is_nonempty() {
                continue;
            }
            let rook_to = if i % 2 == 0 {
                Square::new(File::F, us.back_rank())
            } else {
                Square::new(File::D, us.back_rank())
            };
            let after = others.with(rook_to);
            if self.castling_king_paths[i]
                .into_iter()
                .all(|sq| !self.is_attacked(sq, !us, after))
            {
                targets = targets.with(rook);
            }
        }
        targets
    }

    /// Expands one piece's destinations into moves with their flags.
    #[inline(always)]
    pub fn push_piece_moves(&self, pm: PieceMoves, list: &mut MoveList) {
        let theirs = self.color(!self.side);
        match pm.kind {
            PieceKind::Pawn => {
                let promotes = pm.promotes();
                for to in pm.to {
                    let capture = theirs.has(to);
                    if promotes {
                        for kind in PieceKind::PROMOTIONS {
                            list.push(Move::new(pm.from, to, Move::promotion_flags(kind, capture)));
                        }
                    } else if capture {
                        list.push(Move::new(pm.from, to, Move::CAPTURE));
                    } else if Some(to) == self.ep_square && to.file() != pm.from.file() {
                        list.push(Move::new(pm.from, to, Move::EN_PASSANT));
                    } else if to.index().abs_diff(pm.from.index()) == 16 {
                        list.push(Move::new(pm.from, to, Move::DOUBLE_PUSH));
                    } else {
                        list.push(Move::new(pm.from, to, Move::QUIET));
                    }
                }
            }
            PieceKind::King => {
                let ours = self.color(self.side);
                for to in pm.to {
                    // A destination holding an own rook is castling with that rook; the move
                    // names the king's castling square (g or c file).
                    if ours.has(to) {
                        let (flags, king_file) = if to > pm.from {
                            (Move::KING_CASTLE, File::G)
                        } else {
                            (Move::QUEEN_CASTLE, File::C)
                        };
                        let king_to = Square::new(king_file, pm.from.rank());
                        list.push(Move::new(pm.from, king_to, flags));
                        continue;
                    }
                    let flags = if theirs.has(to) {
                        Move::CAPTURE
                    } else {
                        Move::QUIET
                    };
                    list.push(Move::new(pm.from, to, flags));
                }
            }
            _ => {
                for to in pm.to {
                    let flags = if theirs.has(to) {
                        Move::CAPTURE
                    } else {
                        Move::QUIET
                    };
                    list.push(Move::new(pm.from, to, flags));
                }
            }
        }
    }

    /// Every legal move.
    pub fn legal_moves(&self) -> MoveList {
        self.moves(GenMode::All)
    }

    /// The legal moves of one generation mode.
    #[inline]
    pub fn moves(&self, mode: GenMode) -> MoveList {
        let mut list = MoveList::new();
        self.moves_into(mode, &mut list);
        list
    }

    /// Appends the legal moves of one mode to `list`.
    #[inline]
    pub fn moves_into(&self, mode: GenMode, list: &mut MoveList) {
        let filler = ListFiller {
            position: self,
            list,
        };
        match mode {
            GenMode::All => self.visit_piece_moves::<true, true>(filler),
            GenMode::Noisy => self.visit_piece_moves::<true, false>(filler),
            GenMode::Quiet => self.visit_piece_moves::<false, true>(filler),
        }
    }

    /// The number of legal moves, counted without building a move list (bulk counting).
    #[inline]
    pub fn count_legal_moves(&self) -> u64 {
        let mut n = 0;
        self.generate_piece_moves::<true, true>(|pm| n += pm.len() as u64);
        n
    }

    /// Whether the side to move has at least one legal move.
    pub fn has_legal_moves(&self) -> bool {
        let mut any = false;
        self.generate_piece_moves::<true, true>(|_| any = true);
        any
    }

    /// Whether `mv` is a legal move here (for moves from outside: a table, a GUI, a book).
    pub fn is_legal(&self, mv: Move) -> bool {
        if mv.is_null() || !self.color(self.side).has(mv.from()) {
            return false;
        }
        let mut found = false;
        // Castling is listed under its rook's square, so a king's moves are always expanded.
        self.generate_piece_moves::<true, true>(|pm| {
            if pm.from == mv.from() && (pm.to.has(mv.to()) || mv.is_castle()) {
                let mut list = MoveList::new();
                self.push_piece_moves(pm, &mut list);
                found |= list.contains(mv);
            }
        });
        found
    }
}
