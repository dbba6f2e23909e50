//! Polyglot opening books (.bin): 16-byte big-endian entries (key, move, weight, learn) sorted by
//! key. Lookups binary-search the key; moves are checked for legality since keys can collide.

use crate::board::attacks::pawn_attacks;
use crate::board::{zobrist, Move, PieceKind, Position, Square};
use crate::rng::Rng;

/// One book entry as stored.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct PolyglotEntry {
    /// The Polyglot Zobrist key of the position the move is for.
    pub key: u64,
    /// The Polyglot move encoding (castling as king-takes-rook).
    pub raw_move: u16,
    /// Relative frequency of the move; 0 means never play it.
    pub weight: u16,
    /// Learning data some tools write; read and kept, never used here.
    pub learn: u32,
}

impl PolyglotEntry {
    /// The entry as 16 big-endian bytes, as in a `.bin` file.
    pub fn to_bytes(self) -> [u8; 16] {
        let mut out = [0u8; 16];
        out[..8].copy_from_slice(&self.key.to_be_bytes());
        out[8..10].copy_from_slice(&self.raw_move.to_be_bytes());
        out[10..12].copy_from_slice(&self.weight.to_be_bytes());
        out[12..].copy_from_slice(&self.learn.to_be_bytes());
        out
    }

    fn from_bytes(b: &[u8]) -> PolyglotEntry {
        PolyglotEntry {
            key: u64::from_be_bytes(b[..8].try_into().expect("8 bytes")),
            raw_move: u16::from_be_bytes([b[8], b[9]]),
            weight: u16::from_be_bytes([b[10], b[11]]),
            learn: u32::from_be_bytes(b[12..16].try_into().expect("4 bytes")),
        }
    }
}

/// A legal book move for a position and its weight.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct BookMove {
    /// The move, checked legal in the position it was looked up for.
    pub mv: Move,
    /// The entry's weight (above zero).
    pub weight: u16,
}

/// How a book move is chosen when several are stored.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum BookPick {
    /// At random in proportion to the weights (as cutechess and python-chess `weighted_choice`).
    #[default]
    Weighted,
    /// The highest weight (the first one stored on ties): one fixed line.
    Best,
}

/// Why bytes are not a Polyglot book.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
#[non_exhaustive]
pub enum PolyglotFormatError {
    /// The length is not a multiple of 16.
    Size(usize),
    /// Entry `n` has a smaller key than entry `n - 1`.
    Unsorted(usize),
}

impl PolyglotFormatError {
    /// The error of the book file `path` (which the bytes came from).
    pub fn in_file(self, path: &std::path::Path) -> super::OpeningsError {
        let path = path.to_path_buf();
        match self {
            PolyglotFormatError::Size(size) => super::OpeningsError::PolyglotSize { path, size },
            PolyglotFormatError::Unsorted(entry) => {
                super::OpeningsError::PolyglotUnsorted { path, entry }
            }
        }
    }
}

/// A whole book in memory (16 bytes per entry, as on disk).
#[derive(Clone, Debug, Default)]
pub struct PolyglotBook {
    entries: Vec<PolyglotEntry>,
}

/// The deepest line drawn from a book without a ply limit: books with cycles would go on forever.
pub(crate) const MAX_BOOK_PLIES: usize = 256;

impl PolyglotBook {
    /// Reads a book from the bytes of a `.bin` file, checking length and key order.
    pub fn from_bytes(bytes: &[u8]) -> Result<PolyglotBook, PolyglotFormatError> {
        if bytes.len() % 16 != 0 {
            return Err(PolyglotFormatError::Size(bytes.len()));
        }
        let entries: Vec<PolyglotEntry> = bytes
            .chunks_exact(16)
            .map(PolyglotEntry::from_bytes)
            .collect();
        if let Some(i) = entries.windows(2).position(|w| w[0].key > w[1].key) {
            return Err(PolyglotFormatError::Unsorted(i + 1));
        }
        Ok(PolyglotBook { entries })
    }

    /// Reads and checks the book file at `path` (an engine's own book, cutechess's `book=`).
    pub fn load(path: &std::path::Path) -> Result<PolyglotBook, super::OpeningsError> {
        let bytes = super::read_book_file(path)?;
        PolyglotBook::from_bytes(&bytes).map_err(|e| e.in_file(path))
    }

    /// Builds a book from entries in any order (sorted by key here, stable, so the order of
    /// a position's moves is kept): for tests and tools that write books.
    pub fn from_entries(mut entries: Vec<PolyglotEntry>) -> PolyglotBook {
        entries.sort_by_key(|e| e.key);
        PolyglotBook { entries }
    }

    /// The book in `.bin` file form.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.entries.iter().flat_map(|e| e.to_bytes()).collect()
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when the book has no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The stored entries for a key, in file order (binary search on the sorted keys).
    pub fn entries_for(&self, key: u64) -> &[PolyglotEntry] {
        let first = self.entries.partition_point(|e| e.key < key);
        let len = self.entries[first..].partition_point(|e| e.key == key);
        &self.entries[first..first + len]
    }

    /// The legal moves the book holds for `pos` with a weight above zero, highest weight first
    /// (file order on ties). `key` is the position's Polyglot key (see [`polyglot_key`]).
    pub fn moves_for_key(&self, pos: &Position, key: u64) -> Vec<BookMove> {
        let mut moves: Vec<BookMove> = self
            .entries_for(key)
            .iter()
            .filter(|e| e.weight > 0)
            .filter_map(|e| {
                decode_move(pos, e.raw_move).map(|mv| BookMove {
                    mv,
                    weight: e.weight,
                })
            })
            .collect();
        moves.sort_by_key(|m| std::cmp::Reverse(m.weight));
        moves
    }

    /// [`moves_for_key`](Self::moves_for_key) with the key computed from the position alone.
    pub fn moves(&self, pos: &Position) -> Vec<BookMove> {
        self.moves_for_key(pos, pos.key())
    }

    /// Picks one of `moves` (as returned by `moves_for_key`): the first for `Best`, or at random in
    /// proportion to the weights.
    pub fn pick(moves: &[BookMove], pick: BookPick, rng: &mut Rng) -> Option<Move> {
        match pick {
            BookPick::Best => moves.first().map(|m| m.mv),
            BookPick::Weighted => {
                let total: u64 = moves.iter().map(|m| u64::from(m.weight)).sum();
                if total == 0 {
                    return None;
                }
                let mut r = rng.below(total);
                for m in moves {
                    if r < u64::from(m.weight) {
                        return Some(m.mv);
                    }
                    r -= u64::from(m.weight);
                }
                None
            }
        }
    }

    /// A book line from `start`: up to `plies` moves (or [`MAX_BOOK_PLIES`]), ending early where
    /// the book has no move or a position repeats.
    pub fn line(
        &self,
        start: &Position,
        plies: Option<usize>,
        pick: BookPick,
        rng: &mut Rng,
    ) -> Vec<Move> {
        let mut pos = start.clone();
        let mut key = polyglot_key(&pos, None);
        let mut seen = vec![pos.key()];
        let mut line = Vec::new();
        while line.len() < plies.unwrap_or(MAX_BOOK_PLIES).min(MAX_BOOK_PLIES) {
            let moves = self.moves_for_key(&pos, key);
            let Some(mv) = PolyglotBook::pick(&moves, pick, rng) else {
                break;
            };
            pos.make_move(mv);
            if seen.contains(&pos.key()) {
                break;
            }
            seen.push(pos.key());
            line.push(mv);
            key = polyglot_key(&pos, double_push_target(mv));
        }
        line
    }
}

/// What a walk of a book from a start position found: the distinct book positions reached and the
/// entries met that are not legal moves where they are stored (key collisions or a broken book).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BookWalk {
    /// Distinct positions (by Polyglot key) that have at least one entry with weight above zero.
    pub positions: usize,
    /// (entry index in the file, the position's FEN, the raw move) for each illegal entry.
    pub illegal: Vec<(usize, String, u16)>,
}

impl PolyglotBook {
    /// Visits every position reachable from `start` by book moves (weight above zero), at most
    /// `plies` deep, breadth first.
    pub fn walk(&self, start: &Position, plies: Option<usize>) -> BookWalk {
        let mut walk = BookWalk::default();
        let mut seen = std::collections::HashSet::new();
        let mut frontier = vec![(start.clone(), polyglot_key(start, None))];
        let mut depth = 0;
        while !frontier.is_empty() {
            let mut next = Vec::new();
            for (pos, key) in frontier {
                if !seen.insert(key) {
                    continue;
                }
                let first = self.entries.partition_point(|e| e.key < key);
                let entries = self.entries_for(key);
                if entries.iter().all(|e| e.weight == 0) {
                    continue;
                }
                walk.positions += 1;
                for (i, entry) in entries.iter().enumerate() {
                    match decode_move(&pos, entry.raw_move) {
                        None => walk.illegal.push((first + i, pos.to_fen(), entry.raw_move)),
                        Some(mv) if entry.weight > 0 && plies.map_or(true, |p| depth < p) => {
                            let child = pos.after(mv);
                            let key = polyglot_key(&child, double_push_target(mv));
                            next.push((child, key));
                        }
                        Some(_) => {}
                    }
                }
            }
            frontier = next;
            depth += 1;
        }
        walk
    }
}

/// The square a double pawn push passed over, for [`polyglot_key`].
pub(crate) fn double_push_target(mv: Move) -> Option<Square> {
    mv.is_double_push()
        .then(|| Square::from_index((mv.from().index() + mv.to().index()) / 2))
}

/// The Polyglot key of `pos`. Our `Position::key` holds the en-passant term only when the capture
/// is legal; Polyglot wants it whenever a pawn of the side to move stands beside the pawn that
/// just advanced two squares, pinned or not. `double_push_target` is the square that pawn passed
/// (a FEN's en-passant field, or the middle square of the last move); without it the two keys agree
/// unless a pinned pawn is the only capturer.
pub fn polyglot_key(pos: &Position, double_push_target: Option<Square>) -> u64 {
    let Some(ep) = double_push_target else {
        return pos.key();
    };
    if pos.en_passant_square().is_some() {
        return pos.key();
    }
    let us = pos.side_to_move();
    // The pushed pawn stands one step beyond the target square, seen from the side that pushed it.
    let pushed_rank_ok = ep.rank().relative_to(us).index() == 5;
    let capturers = pawn_attacks(!us, ep) & pos.colored(us, PieceKind::Pawn);
    if pushed_rank_ok && capturers.is_nonempty() {
        pos.key() ^ zobrist::en_passant_key(ep.file())
    } else {
        pos.key()
    }
}

/// The legal move a Polyglot move encoding names in `pos`, or None (keys can collide).
/// King-takes-rook castling (e1h1) becomes the king's two-square step (e1g1).
pub(crate) fn decode_move(pos: &Position, raw: u16) -> Option<Move> {
    let to = Square::from_index((raw & 63) as usize);
    let from = Square::from_index((raw >> 6 & 63) as usize);
    let promotion = match raw >> 12 & 7 {
        0 => None,
        1 => Some(PieceKind::Knight),
        2 => Some(PieceKind::Bishop),
        3 => Some(PieceKind::Rook),
        4 => Some(PieceKind::Queen),
        _ => return None,
    };
    let mut text = format!("{from}{to}");
    if let Some(kind) = promotion {
        text.push(kind.char());
    }
    // parse_uci_move maps the king-takes-rook form only when the king stands on e1/e8 and its own
    // rook on the destination, as the format asks.
    pos.parse_uci_move(&text).ok()
}

/// The Polyglot encoding of a legal move of `pos` (castling as king-takes-rook).
pub fn encode_move(mv: Move) -> u16 {
    let (from, mut to) = (mv.from(), mv.to());
    if mv.is_castle() {
        let rook_file = if mv.flags() == Move::KING_CASTLE {
            7
        } else {
            0
        };
        to = Square::from_index(to.index() & !7 | rook_file);
    }
    let promotion = match mv.promotion() {
        None => 0,
        Some(PieceKind::Knight) => 1,
        Some(PieceKind::Bishop) => 2,
        Some(PieceKind::Rook) => 3,
        Some(_) => 4,
    };
    (to.index() as u16) | (from.index() as u16) << 6 | promotion << 12
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_move_encodings() {
        let start = Position::startpos();
        let e4 = start.parse_uci_move("e2e4").unwrap();
        assert_eq!(encode_move(e4), 0x031c);
        assert_eq!(decode_move(&start, 0x031c), Some(e4));
        let castle = Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
        let oo = castle.parse_uci_move("e1g1").unwrap();
        assert_eq!(encode_move(oo), 0x0107);
        assert_eq!(decode_move(&castle, 0x0107), Some(oo));
        let ooo = castle.parse_uci_move("e1c1").unwrap();
        assert_eq!(decode_move(&castle, encode_move(ooo)), Some(ooo));
        // A move that is not legal here decodes to None.
        assert_eq!(decode_move(&start, 0x0d24), None);
    }

    #[test]
    fn pinned_en_passant_capturer_still_counts_for_the_key() {
        // After ...d7d5, exd6 would expose the king on a5 to the rook on h5 (a rank pin).
        let before = Position::from_fen("4k3/3p4/8/K3P2r/8/8/8/8 b - - 0 1").unwrap();
        let mv = before.parse_uci_move("d7d5").unwrap();
        let after = before.after(mv);
        assert_eq!(after.en_passant_square(), None);
        let d6 = Square::parse("d6").unwrap();
        let key = polyglot_key(&after, Some(d6));
        assert_eq!(key, after.key() ^ zobrist::en_passant_key(d6.file()));
        // A legal capture is in both keys already.
        let e4 = Position::startpos().after(Position::startpos().parse_uci_move("e2e4").unwrap());
        assert_eq!(polyglot_key(&e4, Square::parse("e3")), e4.key());
    }

    /// Polyglot keys after a double push, from python-chess 1.x `chess.polyglot.zobrist_hash`
    /// (which follows the spec: the en-passant file counts when a pawn of the side to move
    /// stands beside the pushed pawn, legal capture or not): captures on the a and h files,
    /// pawns on the far edge that a file wrap-around would wrongly count, rank and file pins
    /// of the capturer, and pushes with no capturer. Each key is checked twice: after playing
    /// the push, and from the FEN with its en-passant field.
    #[test]
    // A table of keys from python-chess, one row per case: splitting it would hide nothing.
    #[allow(clippy::too_many_lines)]
    fn en_passant_keys_match_python_chess_at_the_edges_and_under_pins() {
        let cases: &[(&str, &str, u64)] = &[
            // no capturer
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                "e2e4",
                0x823c9b50fd114196,
            ),
            // legal capture
            (
                "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3",
                "f7f5",
                0x22a48b5a8e47ff78,
            ),
            // pinned capturer
            (
                "4k3/3p4/8/K3P2r/8/8/8/8 b - - 0 2",
                "d7d5",
                0x200429d3a5ab9df1,
            ),
            // pinned capturer
            (
                "4k3/3p4/8/r3P2K/8/8/8/8 b - - 0 2",
                "d7d5",
                0x6a40b34573bd36b6,
            ),
            // legal capture
            (
                "4k3/p7/8/1P6/8/8/8/4K3 b - - 0 2",
                "a7a5",
                0xd12426dce223f648,
            ),
            // legal capture
            (
                "4k3/7p/8/6P1/8/8/8/4K3 b - - 0 2",
                "h7h5",
                0x05f8dce145a3e0ea,
            ),
            // no capturer
            (
                "4k3/p7/8/8/7P/8/8/4K3 b - - 0 2",
                "a7a5",
                0x9ff2a59112d665cf,
            ),
            // no capturer
            (
                "4k3/7p/P7/8/8/8/8/4K3 b - - 0 2",
                "h7h5",
                0x0caa80abb02d74ed,
            ),
            // legal capture
            (
                "4k3/8/8/8/1p6/8/P7/4K3 w - - 0 2",
                "a2a4",
                0xdc916218d4682c51,
            ),
            // legal capture
            (
                "4k3/8/8/8/6p1/8/7P/4K3 w - - 0 2",
                "h2h4",
                0x855dd67d91afd9d7,
            ),
            // no capturer
            (
                "4k3/8/8/8/7p/8/P7/4K3 w - - 0 2",
                "a2a4",
                0x054ae533c0a7e37e,
            ),
            // no capturer
            (
                "4k3/8/8/8/8/p7/7P/4K3 w - - 0 2",
                "h2h4",
                0x2e6a16d74d44ce20,
            ),
            // pinned capturer
            (
                "8/8/8/8/k3p2Q/8/3P4/4K3 w - - 0 2",
                "d2d4",
                0x83bf25e378cb17d0,
            ),
            // pinned capturer
            (
                "8/8/8/8/Q3p2k/8/3P4/4K3 w - - 0 2",
                "d2d4",
                0x71a3e26416718665,
            ),
            // legal capture
            (
                "4k3/3p4/8/2b1P3/8/8/8/K7 b - - 0 2",
                "d7d5",
                0x6febd4dee4fdd099,
            ),
            // pinned capturer
            (
                "4k3/3pr3/8/4P3/8/8/8/4K3 b - - 0 2",
                "d7d5",
                0x290994037ba17b4a,
            ),
            // legal capture
            (
                "r3k2r/8/8/8/3p4/8/4P3/R3K2R w KQkq - 0 1",
                "e2e4",
                0x54099f2faba7a7db,
            ),
        ];
        for &(before, push, expected) in cases {
            let before = Position::from_fen_lenient(before).unwrap();
            let mv = before.parse_uci_move(push).unwrap();
            let after = before.after(mv);
            assert_eq!(
                polyglot_key(&after, double_push_target(mv)),
                expected,
                "{push} from {}",
                before.to_fen()
            );
            let target = double_push_target(mv).unwrap();
            // The FEN with the en-passant field always written (to_fen omits it when the
            // capture is not legal).
            let fields: Vec<String> = after.to_fen().split(' ').map(str::to_string).collect();
            let fen = format!(
                "{} {} {} {} {} {}",
                fields[0], fields[1], fields[2], target, fields[4], fields[5]
            );
            let from_fen = Position::from_fen_lenient(&fen).unwrap();
            assert_eq!(polyglot_key(&from_fen, Some(target)), expected, "{fen}");
        }
    }
}
