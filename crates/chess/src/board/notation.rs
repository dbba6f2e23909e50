//! Move notation: UCI long algebraic (`e2e4`, `e7e8q`) and SAN (`Nf3`, `exd5`, `O-O`, `e8=Q+`).
//! Every text is resolved against the legal moves of the position, so a parsed move is always legal
//! and carries the right flags (capture, en passant, castling, promotion).

use super::attacks::{bishop_attacks, king_attacks, knight_attacks, pawn_attacks, rook_attacks};
use super::bitboard::Bitboard;
use super::moves::{Move, MoveList, UciMove};
use super::position::Position;
use super::types::{File, PieceKind, Rank, Square};
use thiserror::Error;

/// How castling is written in UCI move text: the two conventions the `UCI_Chess960` option
/// switches between.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CastlingNotation {
    /// Standard chess: the king's step (`e1g1`). Castling that no king's step can name (a
    /// Chess960 start) is still written king takes own rook, the only unambiguous text.
    #[default]
    Standard,
    /// `UCI_Chess960`: every castling move is king takes own rook (`e1h1`, `b1a1`).
    Chess960,
}

impl CastlingNotation {
    /// The notation an on/off Chess960 setting (the `UCI_Chess960` option, a config's variant)
    /// asks for.
    pub const fn chess960_if(on: bool) -> CastlingNotation {
        if on {
            CastlingNotation::Chess960
        } else {
            CastlingNotation::Standard
        }
    }
}

/// Why a UCI move text was refused.
#[derive(Error, Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum MoveParseError {
    /// Not two square names plus an optional promotion letter (q, r, b or n, either case).
    #[error("'{text}' is not a UCI move: expected two squares and an optional promotion letter, like e2e4 or e7e8q")]
    Malformed {
        /// The text as given (trimmed).
        text: String,
    },
    /// Well formed, but no legal move of the position matches (the null move `0000` included).
    #[error("'{text}' is not legal here: {reason}")]
    Illegal {
        /// The text as given (trimmed).
        text: String,
        /// Why no legal move matches, in words (e.g. "the from square is empty").
        reason: &'static str,
    },
}

/// Why a SAN move text was refused.
#[derive(Error, Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SanError {
    /// Not SAN syntax: empty, non-ASCII, no destination square, or a promotion by a piece.
    #[error("'{text}' is not a SAN move: {reason}")]
    Malformed {
        /// The text as given (trimmed).
        text: String,
        /// What is wrong with the syntax, in words.
        reason: &'static str,
    },
    /// Well formed, but no legal move of the position matches.
    #[error("'{text}' is not legal here: {reason}")]
    Illegal {
        /// The text as given (trimmed).
        text: String,
        /// Why no legal move matches, in words (e.g. "it would leave the king in check").
        reason: &'static str,
    },
    /// More than one legal move fits; the candidates are in UCI form.
    #[error("'{text}' is ambiguous: it could be {}", candidates.join(", "))]
    Ambiguous {
        /// The text as given (trimmed).
        text: String,
        /// The matching legal moves in UCI form (`e7e8q`, ...).
        candidates: Vec<String>,
    },
}

impl Position {
    /// The move's UCI text. With [`CastlingNotation::Chess960`] castling is written king takes own
    /// rook (`e1h1`, `b1a1`, `g1h1` for a king that stays), as `UCI_Chess960` asks. With
    /// [`CastlingNotation::Standard`] standard castling is the king's step (`e1g1`, as `Display`
    /// writes it) and any other castling is still king takes rook, the only unambiguous text
    /// (python-chess does the same). `mv` must be a move of this position.
    ///
    /// ```
    /// use sparring_chess::board::{CastlingNotation, Position};
    ///
    /// let pos: Position = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1".parse()?;
    /// let castle = pos.parse_uci_move("e1g1")?;
    /// assert_eq!(pos.uci(castle, CastlingNotation::Standard), "e1g1");
    /// assert_eq!(pos.uci(castle, CastlingNotation::Chess960), "e1h1");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn uci(&self, mv: Move, notation: CastlingNotation) -> String {
        if !mv.is_castle() {
            return mv.to_string();
        }
        let rook = self.castle_rook_from(self.side_to_move(), mv);
        let standard = mv.from().file() == File::E && matches!(rook.file(), File::A | File::H);
        if notation == CastlingNotation::Chess960 || !standard {
            format!("{}{rook}", mv.from())
        } else {
            mv.to_string()
        }
    }

    /// Parses a UCI long-algebraic move (`e2e4`, `e7e8q`, `e1g1`) and returns the legal move it
    /// names: [`UciMove`]'s `FromStr`, then [`Position::resolve`]. A malformed text is
    /// [`MoveParseError::Malformed`]; a well-formed one no legal move matches (the null move
    /// `0000` included) is [`MoveParseError::Illegal`].
    pub fn parse_uci_move(&self, text: &str) -> Result<Move, MoveParseError> {
        if text.trim() == "0000" {
            return Err(MoveParseError::Illegal {
                text: "0000".to_string(),
                reason: "the null move only passes the turn",
            });
        }
        self.resolve(text.parse()?)
    }

    /// The legal move `text` names here, with the flags the position supplies, or
    /// [`MoveParseError::Illegal`] saying why there is none. Castling is accepted in both forms,
    /// in standard chess and Chess960 alike: king takes own rook (`e1h1`, `b1a1`; what Polyglot
    /// books and `UCI_Chess960` GUIs send), and the king's move to its castling square (`e1g1`)
    /// when no plain king move has that text.
    ///
    /// ```
    /// use sparring_chess::board::{Position, UciMove};
    ///
    /// let pos: Position = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1".parse()?;
    /// let short = pos.resolve("e1g1".parse()?)?;
    /// assert!(short.is_castle());
    /// assert_eq!(pos.resolve("e1h1".parse::<UciMove>()?)?, short, "king takes rook: the same move");
    /// assert!(pos.resolve("e1e3".parse()?).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn resolve(&self, text: UciMove) -> Result<Move, MoveParseError> {
        let UciMove {
            from,
            to,
            promotion,
        } = text;
        let legal = self.legal_moves();
        let us = self.side_to_move();
        let king_takes_rook = self.colored(us, PieceKind::King).has(from)
            && self.colored(us, PieceKind::Rook).has(to)
            && promotion.is_none();
        let found = if king_takes_rook {
            legal
                .iter()
                .copied()
                .find(|m| m.is_castle() && m.from() == from && self.castle_rook_from(us, *m) == to)
        } else {
            // A plain move first: in Chess960 a king may reach its castling square both ways
            // (`f1g1`), and then the text means the plain move. The king's-square form of
            // castling (`e1g1`) is accepted whenever the king moves.
            let exact = |castle: bool| {
                legal.iter().copied().find(|m| {
                    m.from() == from
                        && m.to() == to
                        && m.promotion() == promotion
                        && m.is_castle() == castle
                        && (!castle || from != to)
                })
            };
            exact(false).or_else(|| exact(true))
        };
        found.ok_or_else(|| MoveParseError::Illegal {
            text: text.to_string(),
            reason: self.why_illegal(&legal, from, to, promotion),
        })
    }

    /// A short explanation of why no legal move goes from `from` to `to` with this promotion.
    fn why_illegal(
        &self,
        legal: &MoveList,
        from: Square,
        to: Square,
        promotion: Option<PieceKind>,
    ) -> &'static str {
        let us = self.side_to_move();
        if !self.color(us).has(from) {
            return if self.occupied().has(from) {
                "the piece on the from square belongs to the side not to move"
            } else {
                "the from square is empty"
            };
        }
        let kind = self.kind_on(from).expect("occupied square");
        if promotion.is_none()
            && legal
                .iter()
                .any(|m| m.from() == from && m.to() == to && !m.is_castle())
        {
            return "a pawn reaching the last rank must name its promotion piece (q, r, b or n)";
        }
        if kind == PieceKind::King
            && from.rank() == us.back_rank()
            && to.rank() == from.rank()
            && ((from.file() == File::E && matches!(to.file(), File::C | File::G))
                || self.colored(us, PieceKind::Rook).has(to))
        {
            return "castling is not possible here (right lost, path blocked, or king in or through check)";
        }
        self.why_unreachable(kind, Bitboard::from_square(from), to, promotion)
    }

    /// Why none of `movers` (pieces of `kind` of the side to move) has a legal move to `to` with
    /// this promotion: a promotion off the last rank, an own piece in the way, no such piece, a
    /// move that would leave the king in check, or a square the pieces do not reach.
    fn why_unreachable(
        &self,
        kind: PieceKind,
        movers: Bitboard,
        to: Square,
        promotion: Option<PieceKind>,
    ) -> &'static str {
        let us = self.side_to_move();
        if promotion.is_some()
            && (kind != PieceKind::Pawn || to.rank() != Rank::Eighth.relative_to(us))
        {
            return "only a pawn reaching the last rank can promote";
        }
        if self.color(us).has(to) {
            return "the destination holds a piece of the side to move";
        }
        if movers.is_empty() {
            return "the side to move has no such piece";
        }
        if movers
            .into_iter()
            .any(|from| self.pseudo_reaches(kind, from, to))
        {
            "it would leave the king in check"
        } else if movers.has_several() {
            "none of those pieces can move to that square"
        } else {
            "the piece cannot move to that square"
        }
    }

    /// Whether the piece of the side to move on `from` could move to `to` if its king's safety
    /// were ignored (used only to explain an illegal move).
    fn pseudo_reaches(&self, kind: PieceKind, from: Square, to: Square) -> bool {
        let us = self.side_to_move();
        let occupied = self.occupied();
        let targets = match kind {
            PieceKind::Pawn => {
                let single = Bitboard::from_square(from).forward(us) & !occupied;
                let double =
                    single.forward(us) & !occupied & Bitboard::rank(Rank::Fourth.relative_to(us));
                let mut victims = self.color(!us);
                if let Some(ep) = self.en_passant_square() {
                    victims = victims.with(ep);
                }
                single | double | (pawn_attacks(us, from) & victims)
            }
            PieceKind::Knight => knight_attacks(from),
            PieceKind::Bishop => bishop_attacks(from, occupied),
            PieceKind::Rook => rook_attacks(from, occupied),
            PieceKind::Queen => bishop_attacks(from, occupied) | rook_attacks(from, occupied),
            PieceKind::King => king_attacks(from),
        };
        (targets & !self.color(us)).has(to)
    }

    /// The move in Standard Algebraic Notation: `Nf3`, `Nbd7`, `R1e2`, `Qh4xe1`, `exd5`, `e8=Q+`,
    /// `O-O`, `Qh4#`. Disambiguation considers only legal moves, as the PGN standard requires.
    /// `mv` must be legal here (checked in debug builds).
    pub fn san(&self, mv: Move) -> String {
        debug_assert!(self.is_legal(mv), "san: {mv} is not legal in {self}");
        let (from, to) = (mv.from(), mv.to());
        let kind = self
            .kind_on(from)
            .expect("san: no piece on the from square");
        let mut san = String::with_capacity(8);
        if mv.is_castle() {
            san.push_str(if mv.flags() == Move::KING_CASTLE {
                "O-O"
            } else {
                "O-O-O"
            });
        } else if kind == PieceKind::Pawn {
            if mv.is_capture() {
                san.push(from.file().char());
                san.push('x');
            }
            push_square(&mut san, to);
            if let Some(piece) = mv.promotion() {
                san.push('=');
                san.push(piece.char().to_ascii_uppercase());
            }
        } else {
            san.push(kind.char().to_ascii_uppercase());
            let rivals = self.rivals(kind, from, to);
            if rivals.is_nonempty() {
                if (rivals & Bitboard::file(from.file())).is_empty() {
                    san.push(from.file().char());
                } else if (rivals & Bitboard::rank(from.rank())).is_empty() {
                    san.push(from.rank().char());
                } else {
                    push_square(&mut san, from);
                }
            }
            if mv.is_capture() {
                san.push('x');
            }
            push_square(&mut san, to);
        }
        let after = self.after(mv);
        if after.in_check() {
            san.push(if after.has_legal_moves() { '+' } else { '#' });
        }
        san
    }

    /// The other pieces of the side to move of this kind that can legally move to `to`.
    fn rivals(&self, kind: PieceKind, from: Square, to: Square) -> Bitboard {
        let mut rivals = Bitboard::EMPTY;
        self.generate_piece_moves::<true, true>(|pm| {
            if pm.kind == kind && pm.from != from && pm.to.has(to) {
                rivals = rivals.with(pm.from);
            }
        });
        rivals
    }

    /// Parses a SAN move and returns the legal move it names. Accepts the common variants found in
    /// real PGN files: `0-0`/`0-0-0`, missing or extra `+`/`#`, annotations (`!`, `?`, `!?`, ...), a
    /// promotion without `=` (`e8Q`, `e8q`), an `e.p.` suffix, over-disambiguation (`Ng1f3`), a
    /// missing or superfluous `x`, an optional `P` for pawns, and castling written as the king's
    /// step (`Kg1`). `b` is always a file and `B` a bishop, so `bxc3` and `Bxc3` differ.
    pub fn parse_san(&self, text: &str) -> Result<Move, SanError> {
        let text = text.trim();
        let malformed = |reason| SanError::Malformed {
            text: text.to_string(),
            reason,
        };
        let body = strip_decorations(text);
        if body.is_empty() {
            return Err(malformed("there is no move"));
        }
        if !body.is_ascii() {
            return Err(malformed("it contains characters SAN does not use"));
        }
        let legal = self.legal_moves();

        if let Some(flag) = castling_flag(body) {
            return legal
                .iter()
                .copied()
                .find(|m| m.flags() == flag)
                .ok_or_else(|| SanError::Illegal {
                    text: text.to_string(),
                    reason: "castling is not possible here (right lost, path blocked, or king in or through check)",
                });
        }

        let shape = SanShape::parse(body.as_bytes()).map_err(malformed)?;
        self.resolve_san(text, &legal, &shape)
    }

    /// The one legal move that fits `shape`, or why none or several do; `text` is the move as
    /// given, for the error.
    #[inline]
    fn resolve_san(
        &self,
        text: &str,
        legal: &MoveList,
        shape: &SanShape,
    ) -> Result<Move, SanError> {
        let mut candidates: Vec<Move> = legal
            .iter()
            .filter(|m| self.san_fits(shape, **m))
            .copied()
            .collect();
        // In Chess960 `Kg1` may be a plain king move and castling at once: the plain move wins.
        if candidates.iter().any(|m| !m.is_castle()) {
            candidates.retain(|m| !m.is_castle());
        }
        match candidates[..] {
            [mv] => Ok(mv),
            [] => {
                let movers = self.colored(self.side_to_move(), shape.kind)
                    & shape.from_file.map_or(Bitboard::FULL, Bitboard::file)
                    & shape.from_rank.map_or(Bitboard::FULL, Bitboard::rank);
                Err(SanError::Illegal {
                    text: text.to_string(),
                    reason: self.why_unreachable(shape.kind, movers, shape.to, shape.promotion),
                })
            }
            _ => Err(SanError::Ambiguous {
                text: text.to_string(),
                candidates: candidates.iter().map(Move::to_string).collect(),
            }),
        }
    }

    /// Whether the legal move `m` is one that `shape` describes.
    #[inline]
    fn san_fits(&self, shape: &SanShape, m: Move) -> bool {
        m.to() == shape.to
            && self.kind_on(m.from()) == Some(shape.kind)
            && shape.from_file.map_or(true, |f| m.from().file() == f)
            && shape.from_rank.map_or(true, |r| m.from().rank() == r)
            && (shape.promotion.is_none() || m.promotion() == shape.promotion)
    }
}

/// What a SAN move other than castling says, before it is matched against the legal moves.
struct SanShape {
    /// The moving piece (a pawn when no piece letter is given).
    kind: PieceKind,
    /// The from file, when given or implied (a pawn push stays on its file).
    from_file: Option<File>,
    /// The from rank, when given.
    from_rank: Option<Rank>,
    /// The destination square.
    to: Square,
    /// The promotion piece, when given.
    promotion: Option<PieceKind>,
}

impl SanShape {
    /// Reads a non-empty ASCII SAN body (decorations stripped, not castling); the error is the
    /// reason for [`SanError::Malformed`].
    #[inline]
    fn parse(body: &[u8]) -> Result<SanShape, &'static str> {
        let (kind, rest) = split_piece_letter(body);
        let (rest, promotion) = split_promotion(rest);
        if promotion.is_some() && kind != PieceKind::Pawn {
            return Err("only a pawn can promote");
        }

        let [middle @ .., file, rank] = rest else {
            return Err("there is no destination square");
        };
        let to = match (
            File::from_char(*file as char),
            Rank::from_char(*rank as char),
        ) {
            (Some(f), Some(r)) => Square::new(f, r),
            _ => return Err("there is no destination square"),
        };
        let (middle, capture) = match middle {
            [m @ .., b'x' | b':'] => (m, true),
            [m @ .., b'-'] => (m, false),
            m => (m, false),
        };
        let (mut from_file, from_rank) = parse_san_origin(middle)?;
        // A pawn move without a file (`e4`) is a push; a capture names the pawn's file (`exd5`).
        if kind == PieceKind::Pawn && from_file.is_none() && !capture {
            from_file = Some(to.file());
        }
        Ok(SanShape {
            kind,
            from_file,
            from_rank,
            to,
            promotion,
        })
    }
}

/// The piece a SAN body starts with and the rest; a pawn when there is no piece letter.
#[inline]
fn split_piece_letter(body: &[u8]) -> (PieceKind, &[u8]) {
    match body {
        [letter @ (b'N' | b'B' | b'R' | b'Q' | b'K' | b'P'), rest @ ..] => (
            PieceKind::from_char(*letter as char).expect("piece letter"),
            rest,
        ),
        _ => (PieceKind::Pawn, body),
    }
}

/// Splits off a promotion: a trailing piece letter after the destination's rank (or after `=`).
#[inline]
fn split_promotion(rest: &[u8]) -> (&[u8], Option<PieceKind>) {
    if let [head @ .., last] = rest {
        if let Some(piece) = promotion_kind(*last as char) {
            match head {
                [h @ .., b'='] if h.last().is_some_and(u8::is_ascii_digit) => {
                    return (h, Some(piece));
                }
                [.., d] if d.is_ascii_digit() => return (head, Some(piece)),
                _ => {}
            }
        }
    }
    (rest, None)
}

/// The from file and rank written before the destination (with any `x` or `-` removed): none,
/// a file, a rank or a square.
#[inline]
fn parse_san_origin(middle: &[u8]) -> Result<(Option<File>, Option<Rank>), &'static str> {
    let file_of = |c: &u8| File::from_char(*c as char);
    let rank_of = |c: &u8| Rank::from_char(*c as char);
    Ok(match middle {
        [] => (None, None),
        [c] if file_of(c).is_some() => (file_of(c), None),
        [c] if rank_of(c).is_some() => (None, rank_of(c)),
        [f, r] if file_of(f).is_some() && rank_of(r).is_some() => (file_of(f), rank_of(r)),
        _ => {
            return Err(
                "the characters before the destination square are not a file, rank or square",
            )
        }
    })
}

/// The piece a promotion letter names (either case); kings and pawns are not promotion pieces.
fn promotion_kind(c: char) -> Option<PieceKind> {
    PieceKind::from_char(c).filter(|k| PieceKind::PROMOTIONS.contains(k))
}

/// `Move::KING_CASTLE` or `Move::QUEEN_CASTLE` for the castling spellings (letter O or digit 0).
fn castling_flag(body: &str) -> Option<u16> {
    match body {
        "O-O" | "0-0" | "o-o" => Some(Move::KING_CASTLE),
        "O-O-O" | "0-0-0" | "o-o-o" => Some(Move::QUEEN_CASTLE),
        _ => None,
    }
}

/// Removes what follows the move proper: check and mate signs, annotation glyphs and `e.p.`.
fn strip_decorations(mut text: &str) -> &str {
    loop {
        let stripped = text.trim_end_matches(['+', '#', '!', '?']).trim_end();
        let stripped = stripped.strip_suffix("e.p.").unwrap_or(stripped).trim_end();
        if stripped.len() == text.len() {
            return stripped;
        }
        text = stripped;
    }
}

fn push_square(s: &mut String, sq: Square) {
    s.push(sq.file().char());
    s.push(sq.rank().char());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen).unwrap()
    }

    #[test]
    fn strips_decorations() {
        assert_eq!(strip_decorations("Nf3+!?"), "Nf3");
        assert_eq!(strip_decorations("exd6 e.p.+"), "exd6");
        assert_eq!(strip_decorations("exd6e.p."), "exd6");
        assert_eq!(strip_decorations("Qh4#"), "Qh4");
        assert_eq!(strip_decorations("O-O??"), "O-O");
    }

    #[test]
    fn uci_forms() {
        let p = Position::startpos();
        assert_eq!(p.parse_uci_move("e2e4").unwrap().to_string(), "e2e4");
        assert!(p.parse_uci_move("e2e4").unwrap().is_double_push());
        let castle = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
        for (text, uci) in [
            ("e1g1", "e1g1"),
            ("e1h1", "e1g1"),
            ("e1c1", "e1c1"),
            ("e1a1", "e1c1"),
        ] {
            let mv = castle.parse_uci_move(text).unwrap();
            assert!(mv.is_castle(), "{text}");
            assert_eq!(mv.to_string(), uci);
        }
    }

    #[test]
    fn pawn_file_b_and_bishop_are_told_apart() {
        let p = pos("4k3/8/8/8/8/2n5/1P6/4BK2 w - - 0 1");
        assert_eq!(p.parse_san("bxc3").unwrap().to_string(), "b2c3");
        assert_eq!(p.parse_san("Bxc3").unwrap().to_string(), "e1c3");
        assert_eq!(p.parse_san("Bc3").unwrap().to_string(), "e1c3");
    }
}
