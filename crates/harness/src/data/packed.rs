//! The two 32-byte board records: marlinformat's `PackedBoard` (White-relative, castling rights
//! as "unmoved rook" code 6, Chess960 included) and bulletformat's `ChessBoard` (flipped so the
//! side to move is White; castling, en passant, clocks and the real side to move are lost).
//! Layouts: docs/research/nnue-formats.md §1 and §3. Decoding checks every field and builds
//! the position through FEN, so a damaged record is refused, never a panic.

use crate::board::{Color, GameResult, PieceKind, Position, Square};

/// The size of both records.
pub(crate) const RECORD: usize = 32;

/// marlinformat's nibble code of a rook that still carries a castling right.
const UNMOVED_ROOK: u8 = 6;

/// A field of a record that cannot be decoded: its byte offset within the record, its name and
/// why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BadField {
    /// Byte offset of the field within the record (or game).
    pub at: usize,
    /// The field's name as the specification calls it.
    pub field: &'static str,
    /// What is wrong.
    pub reason: String,
}

impl BadField {
    pub(crate) fn new(at: usize, field: &'static str, reason: impl Into<String>) -> BadField {
        BadField {
            at,
            field,
            reason: reason.into(),
        }
    }
}

/// The formats' result byte: 0 Black won, 1 draw, 2 White won (White-relative).
pub(crate) const fn wdl(result: GameResult) -> u8 {
    match result {
        GameResult::BlackWins => 0,
        GameResult::Draw => 1,
        GameResult::WhiteWins => 2,
    }
}

/// The result of a result byte, if it is one.
pub(crate) const fn result_of(wdl: u8) -> Option<GameResult> {
    match wdl {
        0 => Some(GameResult::BlackWins),
        1 => Some(GameResult::Draw),
        2 => Some(GameResult::WhiteWins),
        _ => None,
    }
}

/// Packs `pieces` (square, nibble) in increasing square order into occupancy and nibbles
/// (low nibble first). `None` if there are more than 32.
fn pack_board(pieces: &[(usize, u8)], out: &mut [u8; RECORD]) -> Option<()> {
    if pieces.len() > 32 {
        return None;
    }
    let occupancy = pieces.iter().fold(0u64, |occ, &(sq, _)| occ | 1 << sq);
    out[..8].copy_from_slice(&occupancy.to_le_bytes());
    for (i, &(_, nibble)) in pieces.iter().enumerate() {
        out[8 + i / 2] |= nibble << (4 * (i % 2));
    }
    Some(())
}

/// The (square, nibble) pairs of a record's occupancy and nibbles, lowest square first.
fn unpack_board(bytes: &[u8; RECORD]) -> Result<Vec<(usize, u8)>, BadField> {
    let occupancy = u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"));
    if occupancy.count_ones() > 32 {
        let reason = format!("{} squares occupied, at most 32", occupancy.count_ones());
        return Err(BadField::new(0, "occupancy", reason));
    }
    let squares = (0..64).filter(|sq| occupancy >> sq & 1 == 1);
    Ok(squares
        .enumerate()
        .map(|(i, sq)| (sq, bytes[8 + i / 2] >> (4 * (i % 2)) & 15))
        .collect())
}

/// FEN's placement field from (square, piece letter) pairs.
fn placement(pieces: &[(usize, char)]) -> String {
    let mut board = [None; 64];
    for &(sq, letter) in pieces {
        board[sq] = Some(letter);
    }
    let mut fen = String::new();
    for rank in (0..8).rev() {
        let mut empty = 0;
        for file in 0..8 {
            match board[rank * 8 + file] {
                Some(letter) => {
                    if empty > 0 {
                        fen.push(char::from(b'0' + empty));
                    }
                    empty = 0;
                    fen.push(letter);
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
    fen
}

/// The FEN letter of a nibble's colour bit and piece code (0-5).
fn letter(nibble: u8) -> char {
    let kind = PieceKind::from_index(usize::from(nibble & 7)).char();
    if nibble & 8 == 0 {
        kind.to_ascii_uppercase()
    } else {
        kind
    }
}

fn is_castling_rook(pos: &Position, color: Color, sq: Square) -> bool {
    [true, false]
        .into_iter()
        .any(|king_side| pos.castling_rook(color, king_side) == Some(sq))
}

/// A position as a marlinformat `PackedBoard` with its White-relative score and the game's
/// result; `None` if it has more than 32 pieces. The fullmove number is written ≥ 1.
pub(crate) fn pack_marlin(
    pos: &Position,
    white_score: i16,
    result: GameResult,
) -> Option<[u8; RECORD]> {
    let pieces: Vec<(usize, u8)> = pos
        .occupied()
        .into_iter()
        .map(|sq| {
            let piece = pos.piece_on(sq).expect("an occupied square has a piece");
            let mut code = piece.kind.index() as u8;
            if piece.kind == PieceKind::Rook && is_castling_rook(pos, piece.color, sq) {
                code = UNMOVED_ROOK;
            }
            (sq.index(), (piece.color.index() as u8) << 3 | code)
        })
        .collect();
    let mut out = [0; RECORD];
    pack_board(&pieces, &mut out)?;
    let ep = pos.en_passant_square().map_or(64, |sq| sq.index() as u8);
    out[24] = ep | u8::from(pos.side_to_move() == Color::Black) << 7;
    out[25] = pos.halfmove_clock().min(255) as u8;
    let fullmove = pos.fullmove_number().clamp(1, u32::from(u16::MAX)) as u16;
    out[26..28].copy_from_slice(&fullmove.to_le_bytes());
    out[28..30].copy_from_slice(&white_score.to_le_bytes());
    out[30] = wdl(result);
    Some(out)
}

/// The Shredder-FEN castling field of a marlinformat board: per colour, a code-6 rook below
/// its king is the queen-side right, one above it the king-side right.
fn castling_field(pieces: &[(usize, u8)]) -> Result<String, BadField> {
    let mut field = String::new();
    for color in [0u8, 8] {
        let king = pieces.iter().find(|&&(_, n)| n == color | 5).map(|p| p.0);
        let back_rank = if color == 0 { 0 } else { 7 };
        for &(sq, _) in pieces.iter().filter(|&&(_, n)| n == color | UNMOVED_ROOK) {
            if !king.is_some_and(|k| k / 8 == back_rank && sq / 8 == back_rank) {
                let reason = format!("an unmoved rook (code 6) on {sq} with no king on its rank");
                return Err(BadField::new(8, "pieces", reason));
            }
            // Shredder-FEN names the rook's file; which side it is follows from the king's file.
            let file = char::from(b'a' + (sq % 8) as u8);
            field.push(if color == 0 {
                file.to_ascii_uppercase()
            } else {
                file
            });
        }
    }
    Ok(if field.is_empty() { "-".into() } else { field })
}

/// Decodes a marlinformat `PackedBoard`: the position, its White-relative score and the game's
/// result.
pub(crate) fn unpack_marlin(bytes: &[u8; RECORD]) -> Result<(Position, i16, GameResult), BadField> {
    let pieces = unpack_board(bytes)?;
    if let Some(&(sq, _)) = pieces.iter().find(|&&(_, n)| n & 7 == 7) {
        return Err(BadField::new(
            8,
            "pieces",
            format!("piece code 7 on square {sq}"),
        ));
    }
    let letters: Vec<(usize, char)> = pieces
        .iter()
        .map(|&(sq, n)| {
            (
                sq,
                letter(if n & 7 == UNMOVED_ROOK { n & 8 | 3 } else { n }),
            )
        })
        .collect();
    let black = bytes[24] & 0x80 != 0;
    let ep = usize::from(bytes[24] & 0x7f);
    if ep > 64 {
        return Err(BadField::new(
            24,
            "stm_ep_square",
            format!("en-passant square {ep}"),
        ));
    }
    // Any square may be stored; one that cannot be a double push's target is no right at all.
    let ep_field = match ep {
        sq if (black && sq / 8 == 2) || (!black && sq / 8 == 5) => {
            Square::from_index(sq).to_string()
        }
        _ => "-".to_string(),
    };
    let fullmove = u16::from_le_bytes([bytes[26], bytes[27]]).max(1);
    let fen = format!(
        "{} {} {} {ep_field} {} {fullmove}",
        placement(&letters),
        if black { 'b' } else { 'w' },
        castling_field(&pieces)?,
        bytes[25],
    );
    let pos = Position::from_fen_lenient(&fen)
        .map_err(|e| BadField::new(8, "pieces", format!("not a position ({fen}): {e}")))?;
    let score = i16::from_le_bytes([bytes[28], bytes[29]]);
    let result = result_of(bytes[30])
        .ok_or_else(|| BadField::new(30, "wdl", format!("{} is not 0, 1 or 2", bytes[30])))?;
    Ok((pos, score, result))
}

/// A position as a bulletformat `ChessBoard`: flipped (`sq ^ 56`, colours swapped) when Black is
/// to move, score and result turned to the side to move's; `None` with more than 32 pieces.
pub(crate) fn pack_bullet(
    pos: &Position,
    white_score: i16,
    result: GameResult,
) -> Option<[u8; RECORD]> {
    let stm = pos.side_to_move();
    let flip = if stm == Color::Black { 56 } else { 0 };
    let mut pieces: Vec<(usize, u8)> = pos
        .occupied()
        .into_iter()
        .map(|sq| {
            let piece = pos.piece_on(sq).expect("an occupied square has a piece");
            let theirs = u8::from(piece.color != stm) << 3;
            (sq.index() ^ flip, theirs | piece.kind.index() as u8)
        })
        .collect();
    pieces.sort_unstable();
    let mut out = [0; RECORD];
    pack_board(&pieces, &mut out)?;
    let (score, result) = match stm {
        Color::White => (white_score, wdl(result)),
        Color::Black => (white_score.saturating_neg(), 2 - wdl(result)),
    };
    out[24..26].copy_from_slice(&score.to_le_bytes());
    out[26] = result;
    let king = |color: Color| (pos.colored(color, PieceKind::King).first()).map(|sq| sq.index());
    out[27] = king(stm).map_or(64, |sq| (sq ^ flip) as u8);
    out[28] = king(!stm).map_or(64, |sq| (sq ^ flip ^ 56) as u8);
    Some(out)
}

/// Decodes a bulletformat `ChessBoard` as the position it describes with the side to move
/// playing White (the record does not say which colour it really was), its score and result
/// from that side's point of view (so White-relative on the returned board).
pub(crate) fn unpack_bullet(bytes: &[u8; RECORD]) -> Result<(Position, i16, GameResult), BadField> {
    let pieces = unpack_board(bytes)?;
    if let Some(&(sq, n)) = pieces.iter().find(|&&(_, n)| n & 7 > 5) {
        let reason = format!("piece code {} on square {sq}", n & 7);
        return Err(BadField::new(8, "pcs", reason));
    }
    let letters: Vec<(usize, char)> = pieces.iter().map(|&(sq, n)| (sq, letter(n))).collect();
    let fen = format!("{} w - - 0 1", placement(&letters));
    let pos = Position::from_fen_lenient(&fen)
        .map_err(|e| BadField::new(8, "pcs", format!("not a position ({fen}): {e}")))?;
    let kings = [Color::White, Color::Black].map(|c| pos.king_square(c).index() as u8);
    if bytes[27] != kings[0] || bytes[28] != kings[1] ^ 56 {
        let reason = format!(
            "king squares {} and {} do not match the pieces",
            bytes[27], bytes[28]
        );
        return Err(BadField::new(27, "ksq", reason));
    }
    let score = i16::from_le_bytes([bytes[24], bytes[25]]);
    let result = result_of(bytes[26])
        .ok_or_else(|| BadField::new(26, "result", format!("{} is not 0, 1 or 2", bytes[26])))?;
    Ok((pos, score, result))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(text: &str) -> [u8; RECORD] {
        let bytes: Vec<u8> = text
            .split_whitespace()
            .map(|b| u8::from_str_radix(b, 16).unwrap())
            .collect();
        bytes.try_into().unwrap()
    }

    fn marlin(fen: &str, score: i16, result: GameResult) -> [u8; RECORD] {
        pack_marlin(&Position::from_fen(fen).unwrap(), score, result).unwrap()
    }

    #[test]
    fn marlinformat_matches_the_notes_test_vectors_and_reads_back() {
        let cases = [
            (Position::START_FEN, 0, GameResult::WhiteWins,
             "ff ff 00 00 00 00 ff ff 16 42 25 61 00 00 00 00 88 88 88 88 9e ca ad e9 40 00 01 00 00 00 02 00"),
            ("r3k2r/8/8/8/8/8/8/R3K2R b Kq - 3 20", -57, GameResult::BlackWins,
             "91 00 00 00 00 00 00 91 53 e6 bd 00 00 00 00 00 00 00 00 00 00 00 00 00 c0 03 14 00 c7 ff 00 00"),
        ];
        for (fen, score, result, bytes) in cases {
            assert_eq!(marlin(fen, score, result), hex(bytes), "{fen}");
            let (pos, s, r) = unpack_marlin(&hex(bytes)).unwrap();
            assert_eq!((pos.to_fen().as_str(), s, r), (fen, score, result));
        }
        let ep = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3";
        assert_eq!(
            marlin(ep, 31, GameResult::Draw)[24..],
            [0x2d, 0, 3, 0, 0x1f, 0, 1, 0]
        );
    }

    #[test]
    fn bulletformat_matches_the_notes_test_vectors() {
        let start = Position::startpos();
        assert_eq!(
            pack_bullet(&start, 35, GameResult::WhiteWins).unwrap(),
            hex("ff ff 00 00 00 00 ff ff 13 42 25 31 00 00 00 00 88 88 88 88 9b ca ad b9 23 00 02 04 04 00 00 00")
        );
        let e4 = Position::from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1")
            .unwrap();
        let bytes = hex("ff ff 00 00 10 00 ef ff 13 42 25 31 00 00 00 00 88 88 88 88 9b ca ad b9 ec ff 00 04 04 00 00 00");
        assert_eq!(pack_bullet(&e4, 20, GameResult::WhiteWins).unwrap(), bytes);
        // Read back: the side to move plays White, score and result are its own.
        let (pos, score, result) = unpack_bullet(&bytes).unwrap();
        assert_eq!(
            pos.to_fen(),
            "rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"
        );
        assert_eq!((score, result), (-20, GameResult::BlackWins));
    }

    #[test]
    fn damaged_fields_are_named() {
        let mut bytes = marlin(Position::START_FEN, 0, GameResult::Draw);
        bytes[30] = 3;
        assert_eq!(unpack_marlin(&bytes).unwrap_err().field, "wdl");
        bytes[30] = 1;
        bytes[8] = 0x17;
        assert_eq!(unpack_marlin(&bytes).unwrap_err().field, "pieces");
        let bytes = [0xff; RECORD];
        assert_eq!(unpack_marlin(&bytes).unwrap_err().field, "occupancy");
        assert_eq!(unpack_bullet(&bytes).unwrap_err().field, "occupancy");
    }
}
