//! Compact storage for a suite: every opening packed into one byte arena (start position in about
//! 30 bytes, or one byte for the standard start, then 2 bytes per move), so a 240,000-line suite
//! costs a few megabytes instead of a `Position` (about 150 bytes) per line.

use crate::board::{Bitboard, Color, Move, Position, Square};

/// Tag byte: the opening starts from the standard start position.
const TAG_STARTPOS: u8 = 0;
/// Tag byte: a packed position follows.
const TAG_PACKED: u8 = 1;

/// The arena outgrew the 32-bit offsets.
#[derive(Debug)]
pub(crate) struct TooLarge;

/// Openings in insertion order.
#[derive(Default, Clone, Debug)]
pub(crate) struct Store {
    data: Vec<u8>,
    /// End offset of each record in `data`.
    ends: Vec<u32>,
}

impl Store {
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// Bytes held, for reporting memory use.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.data.capacity() + self.ends.capacity() * 4
    }

    pub(crate) fn push(&mut self, start: &Position, moves: &[Move]) -> Result<(), TooLarge> {
        if is_standard_start(start) {
            self.data.push(TAG_STARTPOS);
        } else {
            self.data.push(TAG_PACKED);
            pack_position(start, &mut self.data);
        }
        for mv in moves {
            self.data.extend_from_slice(&mv.bits().to_le_bytes());
        }
        let end = u32::try_from(self.data.len()).map_err(|_| TooLarge)?;
        self.ends.push(end);
        Ok(())
    }

    /// Appends another store's openings after this one's (merging chunks loaded in parallel).
    pub(crate) fn append(&mut self, other: &Store) -> Result<(), TooLarge> {
        let base = self.data.len();
        self.data.extend_from_slice(&other.data);
        for &end in &other.ends {
            let end = u32::try_from(base + end as usize).map_err(|_| TooLarge)?;
            self.ends.push(end);
        }
        Ok(())
    }

    pub(crate) fn shrink_to_fit(&mut self) {
        self.data.shrink_to_fit();
        self.ends.shrink_to_fit();
    }

    /// The `index`-th opening's start position and moves.
    pub(crate) fn get(&self, index: usize) -> (Position, Vec<Move>) {
        let begin = if index == 0 {
            0
        } else {
            self.ends[index - 1] as usize
        };
        let record = &self.data[begin..self.ends[index] as usize];
        let (start, rest) = match record[0] {
            TAG_STARTPOS => (Position::startpos(), &record[1..]),
            _ => unpack_position(&record[1..]),
        };
        let moves = rest
            .chunks_exact(2)
            .map(|b| Move::from_bits(u16::from_le_bytes([b[0], b[1]])))
            .collect();
        (start, moves)
    }
}

fn is_standard_start(pos: &Position) -> bool {
    thread_local! {
        static START: Position = Position::startpos();
    }
    START.with(|start| pos == start)
}

/// Occupancy (8 bytes), a 4-bit piece code per occupied square in square order, side and castling
/// (1 byte), en-passant square (1 byte, 255 for none), halfmove clock (2) and fullmove number (4).
fn pack_position(pos: &Position, out: &mut Vec<u8>) {
    let occupied = pos.occupied();
    out.extend_from_slice(&occupied.0.to_le_bytes());
    let mut pending: Option<u8> = None;
    for sq in occupied {
        let piece = pos.piece_on(sq).expect("occupied square");
        let code = piece.color.index() as u8 * 6 + piece.kind.index() as u8;
        match pending.take() {
            None => pending = Some(code),
            Some(low) => out.push(low | code << 4),
        }
    }
    if let Some(low) = pending {
        out.push(low);
    }
    let side = (pos.side_to_move() == Color::Black) as u8;
    // Bit 5 says the rights' rook files follow, one byte each: only a Chess960 right needs them.
    let chess960 = pos.has_chess960_castling();
    out.push(side | pos.castling_rights().0 << 1 | u8::from(chess960) << 5);
    if chess960 {
        for color in Color::ALL {
            for king_side in [true, false] {
                if let Some(rook) = pos.castling_rook(color, king_side) {
                    out.push(rook.file().index() as u8);
                }
            }
        }
    }
    out.push(pos.en_passant_square().map_or(255, |sq| sq.index() as u8));
    out.extend_from_slice(&pos.halfmove_clock().to_le_bytes());
    out.extend_from_slice(&pos.fullmove_number().to_le_bytes());
}

/// Rebuilds a packed position (through its FEN: `Position` has no public field setters) and
/// returns the bytes after it.
fn unpack_position(bytes: &[u8]) -> (Position, &[u8]) {
    let occupied = Bitboard(u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes")));
    let count = occupied.0.count_ones() as usize;
    let codes = &bytes[8..8 + count.div_ceil(2)];
    let tail = &bytes[8 + count.div_ceil(2)..];
    let mut board = [None; 64];
    for (i, sq) in occupied.into_iter().enumerate() {
        let code = (codes[i / 2] >> (4 * (i % 2))) & 15;
        let color = if code >= 6 {
            Color::Black
        } else {
            Color::White
        };
        let kind = crate::board::PieceKind::from_index(code as usize % 6);
        board[sq.index()] = Some(crate::board::Piece::new(color, kind).char());
    }
    let mut fen = String::with_capacity(90);
    for rank in (0..8).rev() {
        let mut empty = 0u8;
        for file in 0..8 {
            match board[rank * 8 + file] {
                Some(c) => {
                    if empty > 0 {
                        fen.push(char::from(b'0' + empty));
                        empty = 0;
                    }
                    fen.push(c);
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            fen.push(char::from(b'0' + empty));
        }
        if rank > 0 {
            fen.push('/');
        }
    }
    let side = if tail[0] & 1 == 0 { "w" } else { "b" };
    let rights = crate::board::CastlingRights((tail[0] >> 1) & 15);
    let (castling, tail) = if tail[0] & 32 == 0 {
        (rights.to_string(), tail)
    } else {
        // Shredder-FEN letters: the rook's file, upper case for White.
        let held = rights.0.count_ones() as usize;
        let mut field = String::with_capacity(held);
        for (i, &file) in tail[1..1 + held].iter().enumerate() {
            let letter = char::from(b'a' + file);
            let white = i < (rights.0 & 3).count_ones() as usize;
            field.push(if white {
                letter.to_ascii_uppercase()
            } else {
                letter
            });
        }
        (field, &tail[held..])
    };
    let ep = match tail[1] {
        255 => "-".to_string(),
        i => Square::from_index(i as usize).to_string(),
    };
    let halfmove = u16::from_le_bytes([tail[2], tail[3]]);
    let fullmove = u32::from_le_bytes(tail[4..8].try_into().expect("4 bytes"));
    // FEN caps the fullmove number at 65535; a start position read from a FEN never exceeds it.
    let fen = format!(
        "{fen} {side} {castling} {ep} {halfmove} {}",
        fullmove.min(65535)
    );
    let pos = Position::from_fen_lenient(&fen).expect("a stored position was valid when stored");
    (pos, &tail[8..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_positions_and_moves() {
        let mut store = Store::default();
        let fens = [
            Position::START_FEN,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "8/8/8/8/8/8/8/K6k b - - 99 300",
            // Chess960 rights with an inner rook: the files must survive, not just the sides.
            "1r2kr1r/pppppppp/8/8/8/8/PPPPPPPP/RR2K2R w BHbf - 0 1",
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            "QQQQQQQQ/QQQQQQQQ/QQQQQQQQ/8/8/8/8/K6k b - - 0 1",
        ];
        let mut expected = Vec::new();
        for fen in fens {
            let pos = Position::from_fen_lenient(fen).unwrap();
            let moves: Vec<Move> = pos.legal_moves().iter().take(3).copied().collect();
            store.push(&pos, &moves[..1.min(moves.len())]).unwrap();
            expected.push((pos, moves[..1.min(moves.len())].to_vec()));
        }
        let mut merged = Store::default();
        merged.append(&store).unwrap();
        merged.append(&store).unwrap();
        assert_eq!(merged.len(), 2 * fens.len());
        for i in 0..merged.len() {
            let (pos, moves) = merged.get(i);
            assert_eq!(pos, expected[i % fens.len()].0, "{}", fens[i % fens.len()]);
            assert_eq!(moves, expected[i % fens.len()].1);
        }
        assert_eq!(store.data[0], TAG_STARTPOS);
    }
}
