//! FEN parsing and writing. Parsing checks every field and says which one is wrong and why.

use super::bitboard::Bitboard;
use super::position::Position;
use super::types::{CastlingRights, Color, File, Piece, PieceKind, Rank, Square};
use thiserror::Error;

/// How strictly to validate a FEN.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum FenMode {
    /// Reject positions that cannot arise in a game (impossible checks, too many pieces).
    Strict,
    /// Accept any position that is legal to search: one king each, no pawn on a back rank, the side
    /// not to move not in check. The perft suite's double check by two bishops needs this.
    Lenient,
}

/// How a FEN writes its castling field: the two dialects GUIs and engines exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CastlingField {
    /// X-FEN: `KQkq` for the outermost rook on each side, the rook's file letter only where that
    /// would be ambiguous (standard FEN in standard chess).
    #[default]
    XFen,
    /// Shredder-FEN: the file letter of every castling rook (`HAha` in standard chess).
    Shredder,
}

/// What is wrong with a FEN, naming the field (1 = placement .. 6 = fullmove number).
#[derive(Error, Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FenError {
    /// The text does not split into 4, 5 or 6 whitespace-separated fields.
    #[error("expected 4 to 6 space-separated fields, found {found}")]
    FieldCount {
        /// How many fields there were.
        found: usize,
    },
    /// The placement field does not have exactly 8 ranks separated by '/'.
    #[error("field 1 (piece placement): expected 8 ranks separated by '/', found {found}")]
    RankCount {
        /// How many '/'-separated parts there were.
        found: usize,
    },
    /// A placement character is neither a piece letter (PNBRQK, pnbrqk) nor a digit 1-8.
    #[error("field 1 (piece placement): bad piece letter '{ch}' on rank {rank}")]
    BadPiece {
        /// The rank's digit ('8' for the first rank written).
        rank: char,
        /// The offending character.
        ch: char,
    },
    /// A rank's pieces and empty-square digits add up to more than 8 squares.
    #[error("field 1 (piece placement): rank {rank} describes more than 8 squares")]
    RankTooLong {
        /// The rank's digit.
        rank: char,
    },
    /// A rank's pieces and empty-square digits add up to fewer than 8 squares.
    #[error("field 1 (piece placement): rank {rank} describes {squares} squares, not 8")]
    RankTooShort {
        /// The rank's digit.
        rank: char,
        /// How many squares it describes.
        squares: usize,
    },
    /// A side has no king.
    #[error("field 1 (piece placement): {color} has no king")]
    MissingKing {
        /// The side without a king.
        color: Color,
    },
    /// A side has more than one king.
    #[error("field 1 (piece placement): {color} has {count} kings")]
    ExtraKing {
        /// The side with several kings.
        color: Color,
        /// How many kings it has.
        count: u32,
    },
    /// A pawn stands on the first or eighth rank.
    #[error("field 1 (piece placement): pawn on {square}, a first or last rank square")]
    PawnOnBackRank {
        /// The first such pawn's square (lowest index first).
        square: Square,
    },
    /// Strict mode only: a side has more than 8 pawns or more than 16 pieces in all.
    #[error("field 1 (piece placement): {color} has {count} {what}, more than a game allows")]
    TooManyPieces {
        /// The side with too many.
        color: Color,
        /// How many it has.
        count: u32,
        /// What was counted: "pawns" or "pieces" (all pieces, king and pawns included).
        what: &'static str,
    },
    /// The side-to-move field is not `w` or `b`.
    #[error("field 2 (side to move): expected 'w' or 'b', found '{found}'")]
    BadSideToMove {
        /// The field as written.
        found: String,
    },
    /// The side that just moved is in check, so its king could be captured.
    #[error("field 2 (side to move): the side not to move ({color}) is in check")]
    OpponentInCheck {
        /// The side not to move, whose king is attacked.
        color: Color,
    },
    /// Strict mode only: the side to move is checked by three or more pieces, or by a pair no move
    /// can produce (two pawns, two knights, pawn and knight, two bishops).
    #[error("field 2 (side to move): the check on the {color} king ({checkers} checkers) cannot arise in a game")]
    ImpossibleCheck {
        /// The side to move, which is in check.
        color: Color,
        /// How many pieces give check.
        checkers: u32,
    },
    /// The castling field is not `-` or a set of letters from `KQkq` (X-FEN) and the file letters
    /// `A`-`H`/`a`-`h` (Shredder-FEN), at most one right per side of each king.
    #[error("field 3 (castling): '{found}' is not '-' or a set of the letters KQkq or castling rook files (A-H, a-h), at most one per side of each king")]
    BadCastling {
        /// The field as written.
        found: String,
    },
    /// A castling right is given but no king and rook stand where it needs them: the king on its
    /// back rank and a rook of its colour on the named file (or, for `K`/`Q`, anywhere on that
    /// side of the king) on the same rank.
    #[error("field 3 (castling): right '{right}' needs {needs}")]
    CastlingMismatch {
        /// The right's letter (`K`, `Q`, `k`, `q` or a file letter).
        right: char,
        /// The side the right belongs to.
        color: Color,
        /// What is missing, in words (e.g. "the white king on rank 1").
        needs: String,
    },
    /// The en-passant field is not `-` or a square name.
    #[error("field 4 (en passant): '{found}' is not '-' or a square")]
    BadEnPassant {
        /// The field as written.
        found: String,
    },
    /// The en-passant square could not follow a double pawn push: wrong rank, no pawn in front of
    /// it, or an occupied square the pawn passed over.
    #[error("field 4 (en passant): {square} is impossible: {reason}")]
    ImpossibleEnPassant {
        /// The square as written.
        square: Square,
        /// Which of those checks failed, in words.
        reason: &'static str,
    },
    /// The halfmove clock is not a whole number from 0 to 65535.
    #[error("field 5 (halfmove clock): '{found}' is not a number from 0 to 65535")]
    BadHalfmoveClock {
        /// The field as written.
        found: String,
    },
    /// The fullmove number is not a whole number from 1 to 65535.
    #[error("field 6 (fullmove number): '{found}' is not a number from 1 to 65535")]
    BadFullmoveNumber {
        /// The field as written.
        found: String,
    },
}

/// Parses a FEN strictly, as [`Position::from_fen`].
///
/// ```
/// use sparring_chess::board::Position;
///
/// let pos: Position = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1".parse()?;
/// assert_eq!(pos.legal_moves().len(), 20);
/// assert!("not a fen".parse::<Position>().is_err());
/// # Ok::<(), sparring_chess::board::FenError>(())
/// ```
impl std::str::FromStr for Position {
    type Err = FenError;

    fn from_str(fen: &str) -> Result<Position, FenError> {
        Position::from_fen(fen)
    }
}

impl Position {
    /// Parses a FEN strictly (positions that can arise in a game). Four fields are accepted, the
    /// clocks then default to 0 and 1.
    pub fn from_fen(fen: &str) -> Result<Position, FenError> {
        Position::from_fen_with(fen, FenMode::Strict)
    }

    /// Parses a FEN accepting positions that are legal to search but unreachable in a game.
    pub fn from_fen_lenient(fen: &str) -> Result<Position, FenError> {
        Position::from_fen_with(fen, FenMode::Lenient)
    }

    /// Parses a FEN with the validation of `mode`. Four fields are accepted, the clocks then
    /// default to 0 and 1.
    pub fn from_fen_with(fen: &str, mode: FenMode) -> Result<Position, FenError> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        if !(4..=6).contains(&fields.len()) {
            return Err(FenError::FieldCount {
                found: fields.len(),
            });
        }
        let mut pos = Position::empty();
        parse_placement(&mut pos, fields[0])?;
        check_material(&pos, mode)?;

        pos.side = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            other => {
                return Err(FenError::BadSideToMove {
                    found: other.to_string(),
                })
            }
        };
        let (rights, rooks) = parse_castling(&pos, fields[2])?;
        pos.set_castling(rights, rooks);
        let ep = parse_en_passant(&pos, fields[3])?;

        // Clocks are plain digits: Rust's integer parsing would also take a leading '+'.
        let digits = |field: &str| !field.is_empty() && field.bytes().all(|b| b.is_ascii_digit());
        if let Some(field) = fields.get(4) {
            pos.halfmove_clock = field
                .parse()
                .ok()
                .filter(|_| digits(field))
                .ok_or_else(|| FenError::BadHalfmoveClock {
                    found: field.to_string(),
                })?;
        }
        if let Some(field) = fields.get(5) {
            // Move numbers start at 1 (the PGN standard's FEN definition); both modes refuse 0, as
            // the message says, rather than silently renumbering the game.
            let n: u16 = field
                .parse()
                .ok()
                .filter(|&n| n >= 1 && digits(field))
                .ok_or_else(|| FenError::BadFullmoveNumber {
                    found: field.to_string(),
                })?;
            pos.fullmove_number = u32::from(n);
        }

        let them = !pos.side;
        if pos.is_attacked(pos.king_square(them), pos.side, pos.occupied()) {
            return Err(FenError::OpponentInCheck { color: them });
        }
        if mode == FenMode::Strict {
            check_checkers(&pos)?;
        }
        // Keep the en-passant square only when the capture is legal (as the key wants).
        pos.ep_square = ep.filter(|&sq| pos.en_passant_legal(sq));
        pos.key = pos.compute_key();
        Ok(pos)
    }

    /// The position as a six-field FEN. The en-passant square is written only when the capture is
    /// legal, as python-chess and most engines do. The castling field is X-FEN: `KQkq` when each
    /// castling rook is the outermost rook on its side of the king (always so in standard chess
    /// and at every Chess960 start), the rook's file letter otherwise.
    pub fn to_fen(&self) -> String {
        self.to_fen_with(CastlingField::XFen)
    }

    /// The position as FEN with a Shredder-FEN castling field: the file letter of every castling
    /// rook (upper case for White), White's king side first (`HAha` in standard chess), as
    /// python-chess's `shredder_fen` writes it and GUIs send to engines in Chess960.
    pub fn to_shredder_fen(&self) -> String {
        self.to_fen_with(CastlingField::Shredder)
    }

    /// The castling field alone, in the dialect `style` names.
    pub fn castling_field(&self, style: CastlingField) -> String {
        if self.castling.0 == 0 {
            return "-".to_string();
        }
        let mut field = String::with_capacity(4);
        for color in Color::ALL {
            for king_side in [true, false] {
                let Some(rook) = self.castling_rook(color, king_side) else {
                    continue;
                };
                let outermost = if style == CastlingField::Shredder {
                    false
                } else {
                    let rank = Bitboard::rank(color.back_rank());
                    let rooks = self.colored(color, PieceKind::Rook) & rank;
                    let beyond =
                        rooks
                            .into_iter()
                            .any(|sq| if king_side { sq > rook } else { sq < rook });
                    !beyond
                };
                let letter = match (outermost, king_side) {
                    (true, true) => 'K',
                    (true, false) => 'Q',
                    (false, _) => rook.file().char().to_ascii_uppercase(),
                };
                field.push(match color {
                    Color::White => letter,
                    Color::Black => letter.to_ascii_lowercase(),
                });
            }
        }
        field
    }

    fn to_fen_with(&self, style: CastlingField) -> String {
        let mut fen = String::with_capacity(90);
        for rank in Rank::ALL.iter().rev() {
            let mut empty = 0;
            for file in File::ALL {
                match self.piece_on(Square::new(file, *rank)) {
                    Some(piece) => {
                        if empty > 0 {
                            fen.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        fen.push(piece.char());
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                fen.push(char::from(b'0' + empty));
            }
            if *rank != Rank::First {
                fen.push('/');
            }
        }
        let side = if self.side == Color::White { 'w' } else { 'b' };
        let ep = self
            .ep_square
            .map_or_else(|| "-".to_string(), |s| s.to_string());
        fen.push_str(&format!(
            " {side} {} {ep} {} {}",
            self.castling_field(style),
            self.halfmove_clock,
            self.fullmove_number
        ));
        fen
    }
}

fn parse_placement(pos: &mut Position, field: &str) -> Result<(), FenError> {
    let ranks: Vec<&str> = field.split('/').collect();
    if ranks.len() != 8 {
        return Err(FenError::RankCount { found: ranks.len() });
    }
    for (i, text) in ranks.iter().enumerate() {
        let rank = Rank::from_index(7 - i);
        let mut file = 0usize;
        for ch in text.chars() {
            if let Some(d) = ch.to_digit(10).filter(|d| (1..=8).contains(d)) {
                file += d as usize;
            } else {
                let piece = Piece::from_char(ch).ok_or(FenError::BadPiece {
                    rank: rank.char(),
                    ch,
                })?;
                if file >= 8 {
                    return Err(FenError::RankTooLong { rank: rank.char() });
                }
                pos.put_piece(piece, Square::new(File::from_index(file), rank));
                file += 1;
            }
            if file > 8 {
                return Err(FenError::RankTooLong { rank: rank.char() });
            }
        }
        if file < 8 {
            return Err(FenError::RankTooShort {
                rank: rank.char(),
                squares: file,
            });
        }
    }
    Ok(())
}

fn check_material(pos: &Position, mode: FenMode) -> Result<(), FenError> {
    for color in Color::ALL {
        match pos.colored(color, PieceKind::King).len() {
            0 => return Err(FenError::MissingKing { color }),
            1 => {}
            count => return Err(FenError::ExtraKing { color, count }),
        }
        if mode == FenMode::Strict {
            let pawns = pos.colored(color, PieceKind::Pawn).len();
            if pawns > 8 {
                return Err(FenError::TooManyPieces {
                    color,
                    count: pawns,
                    what: "pawns",
                });
            }
            let pieces = pos.color(color).len();
            if pieces > 16 {
                return Err(FenError::TooManyPieces {
                    color,
                    count: pieces,
                    what: "pieces",
                });
            }
        }
    }
    let back_ranks = Bitboard::rank(Rank::First) | Bitboard::rank(Rank::Eighth);
    if let Some(square) = (pos.pieces(PieceKind::Pawn) & back_ranks).first() {
        return Err(FenError::PawnOnBackRank { square });
    }
    Ok(())
}

/// Reads an X-FEN or Shredder-FEN castling field, in any order: `K`/`Q` (lower case for Black)
/// name the outermost rook on that side of the king, a file letter names the rook on that file.
/// Returns the rights and the rook square of each (standard corners for rights not held).
fn parse_castling(pos: &Position, field: &str) -> Result<(CastlingRights, [Square; 4]), FenError> {
    let bad = || FenError::BadCastling {
        found: field.to_string(),
    };
    let mut rooks = [
        Square::new(File::H, Rank::First),
        Square::new(File::A, Rank::First),
        Square::new(File::H, Rank::Eighth),
        Square::new(File::A, Rank::Eighth),
    ];
    if field == "-" {
        return Ok((CastlingRights::NONE, rooks));
    }
    let mut rights = CastlingRights::NONE;
    for ch in field.chars() {
        if !ch.is_ascii_alphabetic() {
            return Err(bad());
        }
        let color = if ch.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        };
        let rank = color.back_rank();
        let mismatch = |needs: String| FenError::CastlingMismatch {
            right: ch,
            color,
            needs,
        };
        let named_file = match ch.to_ascii_lowercase() {
            'k' | 'q' => None,
            c => Some(File::from_char(c).ok_or_else(bad)?),
        };
        let king = pos.king_square(color);
        if king.rank() != rank {
            return Err(mismatch(format!("the {color} king on rank {rank}")));
        }
        let back_rooks = pos.colored(color, PieceKind::Rook) & Bitboard::rank(rank);
        let (king_side, rook) =
            match named_file {
                Some(file) => {
                    let rook = Square::new(file, rank);
                    if !back_rooks.has(rook) {
                        return Err(mismatch(format!("a {color} rook on {rook}")));
                    }
                    if file == king.file() {
                        return Err(bad());
                    }
                    (file > king.file(), rook)
                }
                None => {
                    let king_side = ch.eq_ignore_ascii_case(&'k');
                    let beyond = back_rooks.into_iter().filter(|&sq| {
                        if king_side {
                            sq > king
                        } else {
                            sq < king
                        }
                    });
                    let outermost = if king_side {
                        beyond.max()
                    } else {
                        beyond.min()
                    };
                    let side = if king_side { "king" } else { "queen" };
                    let rook = outermost.ok_or_else(|| {
                        mismatch(format!(
                        "a {color} rook on rank {rank} on the {side} side of the king on {king}"
                    ))
                    })?;
                    (king_side, rook)
                }
            };
        let i = CastlingRights::index(color, king_side);
        if rights.0 & (1 << i) != 0 {
            return Err(bad());
        }
        rights.0 |= 1 << i;
        rooks[i] = rook;
    }
    Ok((rights, rooks))
}

/// The en-passant square as written; whether a capture is possible is decided later.
fn parse_en_passant(pos: &Position, field: &str) -> Result<Option<Square>, FenError> {
    if field == "-" {
        return Ok(None);
    }
    let square = Square::parse(field).ok_or_else(|| FenError::BadEnPassant {
        found: field.to_string(),
    })?;
    let us = pos.side;
    let impossible = |reason| Err(FenError::ImpossibleEnPassant { square, reason });
    if square.rank() != Rank::Sixth.relative_to(us) {
        return impossible("it is not on the rank behind a pawn that just advanced two squares");
    }
    let pushed = Square::from_index(square.index() ^ 8);
    let origin = Square::from_index(pushed.index() ^ 16);
    if pos.piece_on(pushed) != Some(Piece::new(!us, PieceKind::Pawn)) {
        return impossible("no pawn of the side that just moved stands in front of it");
    }
    if pos.occupied().has(square) || pos.occupied().has(origin) {
        return impossible("the squares the pawn passed over are not empty");
    }
    Ok(Some(square))
}

/// Checks that cannot arise in a game: three or more checkers, or two of kinds that can never
/// give check together (a discovered check is by a slider, so two pawns, two knights, a pawn and
/// a knight, or two bishops are impossible).
fn check_checkers(pos: &Position) -> Result<(), FenError> {
    let checkers = pos.checkers();
    let count = checkers.len();
    let impossible = match count {
        0 | 1 => false,
        2 => {
            let kinds: Vec<PieceKind> = checkers.iter().filter_map(|s| pos.kind_on(s)).collect();
            let (a, b) = (kinds[0].min(kinds[1]), kinds[0].max(kinds[1]));
            matches!(
                (a, b),
                (PieceKind::Pawn, PieceKind::Pawn)
                    | (PieceKind::Knight, PieceKind::Knight)
                    | (PieceKind::Pawn, PieceKind::Knight)
                    | (PieceKind::Bishop, PieceKind::Bishop)
            )
        }
        _ => true,
    };
    if impossible {
        return Err(FenError::ImpossibleCheck {
            color: pos.side,
            checkers: count,
        });
    }
    Ok(())
}
