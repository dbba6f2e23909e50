//! Training data for network trainers: self-play games and positions in the formats bullet and
//! other NNUE trainers read — viriformat (whole games as moves), marlinformat (32-byte packed
//! positions), bulletformat (bullet's 32-byte side-to-move-relative boards) and bullet's text
//! `FEN | score | result` — with readers that name the byte offset of a damaged record, and the
//! tools over them (information, conversion with filters, shuffling, interleaving).
//! docs/research/nnue-formats.md holds the specifications as we read them.
//!
//! A producer (`sparring datagen`, a converter) hands each finished game to a [`GameWriter`] as a
//! [`DataGame`]; the writer's format decides what it keeps (viriformat keeps the whole game, the
//! others one record per position).

use crate::board::{GameResult, Move, Position};
use crate::score::Score;

/// The data formats sparring writes and reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DataFormat {
    /// Viridithas's game format: a marlinformat start position, then (move, score) pairs, then
    /// four zero bytes.
    Viriformat,
    /// One 32-byte marlinformat `PackedBoard` per position, scores and results White-relative.
    Marlinformat,
    /// One 32-byte bulletformat `ChessBoard` per position, relative to the side to move.
    Bulletformat,
    /// bullet's text format, one `FEN | score | result` line per position, White-relative.
    Text,
}

impl DataFormat {
    /// Every format, in the order the command line lists them.
    pub const ALL: [DataFormat; 4] = [
        DataFormat::Viriformat,
        DataFormat::Bulletformat,
        DataFormat::Marlinformat,
        DataFormat::Text,
    ];

    /// The name on the command line and in configuration files.
    pub const fn name(self) -> &'static str {
        match self {
            DataFormat::Viriformat => "viriformat",
            DataFormat::Marlinformat => "marlinformat",
            DataFormat::Bulletformat => "bulletformat",
            DataFormat::Text => "text",
        }
    }

    /// The data file's name in a datagen run directory (`data.viriformat`, ..., `data.txt`).
    pub const fn file_name(self) -> &'static str {
        match self {
            DataFormat::Viriformat => "data.viriformat",
            DataFormat::Marlinformat => "data.marlinformat",
            DataFormat::Bulletformat => "data.bulletformat",
            DataFormat::Text => "data.txt",
        }
    }

    /// The format named `name`, if any.
    pub fn from_name(name: &str) -> Option<DataFormat> {
        DataFormat::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// One finished self-play game as the data formats need it: where it started, each move with
/// the engine's score for the position before it (from White's point of view), and the result.
#[derive(Debug, Clone, PartialEq)]
pub struct DataGame {
    /// The position the recorded moves start from (after any random opening plies).
    pub start: Position,
    /// Each move played, with the searching engine's score of the position it was played from,
    /// White-relative (a mate score stays a mate: each format converts it by its convention).
    pub moves: Vec<(Move, Score)>,
    /// How the game ended (by the rules, or by adjudication, whose verdict counts as the result).
    pub result: GameResult,
}

/// Where finished games go: a data file of one format.
pub trait GameWriter: Send {
    /// Appends one whole game (a game is written whole or not at all: callers write games in
    /// game order, and a resume cuts a half-written game at the end of the file).
    fn write_game(&mut self, game: &DataGame) -> std::io::Result<()>;

    /// Flushes what is buffered to the file.
    fn flush(&mut self) -> std::io::Result<()>;
}

pub(crate) mod packed;
mod read;
mod tools;
pub(crate) mod viri;
mod write;

pub use read::{guess_format, DataError, DataReader, Record, Sample, Samples, ViriGame};
pub use tools::{
    convert, count_records, info, interleave, shuffle, ConvertReport, DataInfo, Filter, RandomSkip,
    ShuffleOptions, FILTER_NAMES, SCORE_EDGES,
};
pub use write::game_writer;

/// A mate score's magnitude before the distance is taken off (`Score::Mate` in `n` moves is
/// `MATE_CP` minus its distance in plies).
pub(crate) const MATE_CP: i32 = 32_000;

/// The least magnitude a mate score is written with: viriformat's default filter drops
/// `|score| >= 31339`, so every mate score is dropped by it, however long the mate.
pub const MATE_FLOOR: i32 = 31_339;

/// The one conversion of a White-relative [`Score`] to the formats' i16 centipawns, used by
/// every writer. Centipawns are clamped into i16. A mate is `±(32000 − plies)`, the sign
/// White's (the score is White-relative), plies `2n − 1` for `Mate(n)` with `n > 0` and `2|n|`
/// for `n < 0` (exact with White to move), the magnitude kept at least [`MATE_FLOOR`].
/// `Mate(0)` (mated already: no move is played from it) is −32000. docs/datagen.md.
pub fn centipawns(score: Score) -> i16 {
    let value = match score {
        Score::Cp(cp) => cp,
        Score::Mate(n) if n > 0 => MATE_CP
            .saturating_sub(n.saturating_mul(2) - 1)
            .max(MATE_FLOOR),
        Score::Mate(n) => -MATE_CP
            .saturating_sub(n.saturating_abs().saturating_mul(2))
            .max(MATE_FLOOR),
    };
    value.clamp(-i32::from(i16::MAX), i32::from(i16::MAX)) as i16
}

/// One training position as every format can hold it: the board, the White-relative score in
/// centipawns and the game's result. (A bulletformat record gives the board with its side to
/// move as White, the only way it stores it.)
#[derive(Debug, Clone, PartialEq)]
pub struct DataPosition {
    /// The position (for bulletformat input: flipped so the side to move is White).
    pub position: Position,
    /// The score, centipawns, White-relative.
    pub white_score: i16,
    /// The game's result.
    pub result: GameResult,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_scores_are_32000_less_the_plies_and_never_below_the_floor() {
        assert_eq!(centipawns(Score::Cp(-57)), -57);
        assert_eq!(centipawns(Score::Cp(99_999)), i16::MAX, "clamped into i16");
        assert_eq!(centipawns(Score::Mate(1)), 31_999, "mate in 1: one ply");
        assert_eq!(
            centipawns(Score::Mate(-3)),
            -31_994,
            "mated in 3: six plies"
        );
        assert_eq!(centipawns(Score::Mate(0)), -32_000);
        assert_eq!(centipawns(Score::Mate(1000)), 31_339, "the floor");
        assert_eq!(centipawns(Score::Mate(i32::MIN)), -31_339);
    }
}
