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
