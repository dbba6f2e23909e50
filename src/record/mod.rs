//! Finished games and how they are written: PGN, CSV rows and tuning positions, plus reading a
//! run's output back for `--resume`.

mod csv;
mod pgn;
mod positions;

pub use self::csv::{
    read_finished_games, write_games_csv, write_games_csv_header, FinishedGame, GamesCsvError,
    GAMES_CSV_HEADER,
};
pub use self::pgn::{escape_tag_value, split_pgn_games, write_pgn, PgnGameText};
pub use self::positions::{sample_positions, TrainingPosition};

use crate::board::{Color, GameResult, Move, Position};
use crate::search::Score;
use std::time::{Duration, SystemTime};

/// Why a game ended, as a PGN `Termination` tag groups it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Termination {
    /// Ended by the rules on the board (mate, stalemate, repetition, fifty moves, material).
    Normal,
    Adjudication,
    TimeForfeit,
    IllegalMove,
    /// The engine crashed or closed its pipe.
    Abandoned,
    /// The engine stopped answering.
    StalledConnection,
}

impl Termination {
    /// The PGN `Termination` tag value (as cutechess and fastchess write it).
    pub fn tag(self) -> &'static str {
        match self {
            Termination::Normal => "normal",
            Termination::Adjudication => "adjudication",
            Termination::TimeForfeit => "time forfeit",
            Termination::IllegalMove => "illegal move",
            Termination::Abandoned => "abandoned",
            Termination::StalledConnection => "stalled connection",
        }
    }

    /// Whether the game says something about the engines' chess (used for tuning data).
    pub fn is_played_out(self) -> bool {
        matches!(self, Termination::Normal | Termination::Adjudication)
    }
}

/// One engine move and what the engine said about it.
#[derive(Clone, Debug)]
pub struct PlayedMove {
    pub mv: Move,
    /// From the mover's point of view.
    pub score: Option<Score>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub time: Duration,
}

/// A finished game with everything the writers and the statistics need.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// 1-based; games 2k-1 and 2k form pair k (same opening, colours reversed).
    pub game_id: u64,
    pub pair_id: u64,
    /// 1-based round (opening) number.
    pub round: u64,
    pub event: String,
    pub white: String,
    pub black: String,
    /// Indices of the engines in the configuration.
    pub white_engine: usize,
    pub black_engine: usize,
    pub opening_id: usize,
    /// The position the game (book moves included) starts from.
    pub start: Position,
    pub book_moves: Vec<Move>,
    pub moves: Vec<PlayedMove>,
    pub result: GameResult,
    pub termination: Termination,
    /// Human reason, e.g. `White mates`, `Draw by 3-fold repetition`.
    pub reason: String,
    pub time_control: String,
    pub started: SystemTime,
    pub duration: Duration,
}

impl GameRecord {
    /// Plies in the movetext, book moves included.
    pub fn plies(&self) -> usize {
        self.book_moves.len() + self.moves.len()
    }

    /// The score of the engine playing `color`: 1, 0.5 or 0.
    pub fn score_for(&self, color: Color) -> f64 {
        match (self.result, color) {
            (GameResult::Draw, _) => 0.5,
            (GameResult::WhiteWins, Color::White) | (GameResult::BlackWins, Color::Black) => 1.0,
            _ => 0.0,
        }
    }

    /// The score of engine `engine` (a configuration index) in this game.
    pub fn score_of_engine(&self, engine: usize) -> f64 {
        if engine == self.white_engine {
            self.score_for(Color::White)
        } else {
            self.score_for(Color::Black)
        }
    }
}
