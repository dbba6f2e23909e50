//! Chess960 (Fischer Random) and Double Fischer Random start positions by Scharnagl number.
//!
//! The numbering is Reinhard Scharnagl's direct derivation (Wikipedia "Chess960 numbering
//! scheme"; python-chess `Board.from_chess960_pos` uses the same): number 518 is the standard
//! start. In Double Fischer Random White and Black get independent back ranks; OpenBench's
//! `DFRC.epd` lists pair (w, b) on line `960 * w + b`.

use super::position::Position;
use super::types::PieceKind;
use thiserror::Error;

/// How many Chess960 start positions there are (numbers 0 to 959).
pub const COUNT: u16 = 960;

/// The Scharnagl number of the standard start position.
pub const STANDARD: u16 = 518;

/// A start-position number outside 0..=959.
#[derive(Error, Debug, Clone, Copy, PartialEq, Eq)]
#[error("Chess960 start position number {0} is out of range: numbers run from 0 to 959")]
pub struct NumberOutOfRange(pub u16);

/// The back rank of start position `n`, a-file first.
pub fn back_rank(n: u16) -> Result<[PieceKind; 8], NumberOutOfRange> {
    if n >= COUNT {
        return Err(NumberOutOfRange(n));
    }
    let mut rank: [Option<PieceKind>; 8] = [None; 8];
    let mut n = usize::from(n);
    // Light-squared bishop on b, d, f or h; dark-squared bishop on a, c, e or g.
    rank[2 * (n % 4) + 1] = Some(PieceKind::Bishop);
    n /= 4;
    rank[2 * (n % 4)] = Some(PieceKind::Bishop);
    n /= 4;
    let queen = n % 6;
    n /= 6;
    place_on_nth_empty(&mut rank, queen, PieceKind::Queen);
    // The two knights on the five squares left; the code enumerates the ten pairs in order.
    const KNIGHT_PAIRS: [(usize, usize); 10] = [
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 3),
        (2, 4),
        (3, 4),
    ];
    let (first, second) = KNIGHT_PAIRS[n];
    // Place the later one first so the earlier one's index still counts the same empty squares.
    place_on_nth_empty(&mut rank, second, PieceKind::Knight);
    place_on_nth_empty(&mut rank, first, PieceKind::Knight);
    for kind in [PieceKind::Rook, PieceKind::King, PieceKind::Rook] {
        place_on_nth_empty(&mut rank, 0, kind);
    }
    Ok(rank.map(|k| k.expect("all eight squares are filled")))
}

fn place_on_nth_empty(rank: &mut [Option<PieceKind>; 8], nth: usize, kind: PieceKind) {
    let square = rank
        .iter()
        .enumerate()
        .filter(|(_, k)| k.is_none())
        .nth(nth)
        .map(|(i, _)| i)
        .expect("enough empty squares");
    rank[square] = Some(kind);
}

/// The FEN of the position with White's back rank `white` and Black's `black` (each a-file
/// first), pawns in front, all four castling rights (X-FEN `KQkq`), White to move.
fn fen_of(white: [PieceKind; 8], black: [PieceKind; 8]) -> String {
    let letters = |rank: [PieceKind; 8], upper: bool| -> String {
        rank.iter()
            .map(|k| {
                let c = k.char();
                if upper {
                    c.to_ascii_uppercase()
                } else {
                    c
                }
            })
            .collect()
    };
    format!(
        "{}/pppppppp/8/8/8/8/PPPPPPPP/{} w KQkq - 0 1",
        letters(black, false),
        letters(white, true)
    )
}

/// Chess960 start position number `n` (0..=959): both sides get the same back rank.
pub fn start_position(n: u16) -> Result<Position, NumberOutOfRange> {
    dfrc_start_position(n, n)
}

/// The FEN of Chess960 start position `n` (X-FEN: castling `KQkq`).
pub fn start_fen(n: u16) -> Result<String, NumberOutOfRange> {
    dfrc_start_fen(n, n)
}

/// The Double Fischer Random start position with White's back rank from number `white` and
/// Black's from number `black`.
pub fn dfrc_start_position(white: u16, black: u16) -> Result<Position, NumberOutOfRange> {
    let fen = dfrc_start_fen(white, black)?;
    Ok(Position::from_fen(&fen).expect("every Chess960 back rank makes a valid position"))
}

/// The FEN of the Double Fischer Random start position (`white`, `black`).
pub fn dfrc_start_fen(white: u16, black: u16) -> Result<String, NumberOutOfRange> {
    Ok(fen_of(back_rank(white)?, back_rank(black)?))
}

/// The Scharnagl number of a back rank (a-file first), or `None` if it is not a Chess960 array
/// (bishops on one colour, king not between the rooks, wrong pieces).
pub fn number_of(rank: [PieceKind; 8]) -> Option<u16> {
    (0..COUNT).find(|&n| back_rank(n).ok() == Some(rank))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn letters(n: u16) -> String {
        back_rank(n)
            .unwrap()
            .iter()
            .map(|k| k.char().to_ascii_uppercase())
            .collect()
    }

    /// Values from the research notes (docs/research/chess960-and-spsa.md, A2), which agree
    /// with python-chess `Board.from_chess960_pos` for all 960 numbers.
    #[test]
    fn known_numbers() {
        for (n, rank) in [
            (0, "BBQNNRKR"),
            (1, "BQNBNRKR"),
            (2, "BQNNRBKR"),
            (3, "BQNNRKRB"),
            (4, "QBBNNRKR"),
            (100, "QBBNRNKR"),
            (500, "RBBQNKNR"),
            (518, "RNBQKBNR"),
            (959, "RKRNNQBB"),
        ] {
            assert_eq!(letters(n), rank, "number {n}");
        }
        assert_eq!(
            start_position(STANDARD).unwrap(),
            Position::startpos(),
            "518 is the standard start"
        );
        assert_eq!(back_rank(960), Err(NumberOutOfRange(960)));
    }

    #[test]
    fn every_number_is_a_distinct_array_that_numbers_back_and_castles_with_its_rooks() {
        use crate::board::{Color, File, Square};
        let mut seen = std::collections::HashSet::new();
        for n in 0..COUNT {
            let rank = back_rank(n).unwrap();
            assert!(seen.insert(rank), "number {n} repeats an array");
            assert_eq!(number_of(rank), Some(n));
            let pos = start_position(n).unwrap();
            assert_eq!(pos.to_fen(), start_fen(n).unwrap(), "X-FEN writes KQkq");
            let rooks: Vec<usize> = (0..8).filter(|&f| rank[f] == PieceKind::Rook).collect();
            for color in Color::ALL {
                let on = |f: usize| Some(Square::new(File::from_index(f), color.back_rank()));
                assert_eq!(pos.castling_rook(color, false), on(rooks[0]), "{n}");
                assert_eq!(pos.castling_rook(color, true), on(rooks[1]), "{n}");
            }
        }
    }
}
