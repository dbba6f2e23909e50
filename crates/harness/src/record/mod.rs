//! Finished games and how they are written: PGN, CSV rows and tuning positions, plus reading a
//! run's output back for `--resume`.
//!
//! Main type: [`GameRecord`], one finished game (start, [`PlayedMove`]s, result and
//! [`Termination`]), which the writers here turn into PGN, CSV and position lines.

pub mod bullet;
mod csv;
mod pgn;
mod pgn_results;
mod positions;

pub(crate) use self::csv::{read_finished_games, write_games_csv, FinishedGame};
pub use self::csv::{write_games_csv_header, GamesCsvError};
pub use self::pgn::{
    lan, split_pgn_games, utc_date, write_pgn, MoveData, PgnGameText, PgnNotation, PgnStyle,
};
pub(crate) use self::pgn_results::parse_pgn_results;
pub use self::pgn_results::{read_pgn_results, PgnGameResult, PgnResultsError};
pub(crate) use self::positions::sample_positions;
pub use self::positions::{
    BadPositionId, Outcome, PositionId, PositionLineError, PositionsResolve, TrainingPosition,
    MAX_TRAINING_SCORE,
};

use crate::board::{Color, GameResult, Move, Position};
use crate::score::Score;
use std::time::{Duration, SystemTime};

/// Why a game ended, as a PGN `Termination` tag groups it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Termination {
    /// Ended by the rules on the board (mate, stalemate, repetition, fifty moves, material).
    Normal,
    /// Ended by an adjudication: the runner's rule that did it, or None for an engine's own
    /// word (an xboard resignation or false result claim) or a game read back naming no rule.
    Adjudication(Option<AdjudicationRule>),
    /// A side ran out of time.
    TimeForfeit,
    /// A side played a move that is not legal (or not a move).
    IllegalMove,
    /// The engine crashed or closed its pipe.
    Abandoned,
    /// The engine stopped answering.
    StalledConnection,
}

/// The runner's adjudication rules, as `[adjudication]` configures them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AdjudicationRule {
    /// The Syzygy tables' verdict (`tablebase`).
    Tablebase,
    /// The score-based draw rule (`draw`).
    Draw,
    /// The score-based resign rule (`resign`).
    Resign,
    /// The maximal game length (`max_moves`).
    MaxMoves,
}

impl AdjudicationRule {
    /// The rule that ended a game written earlier, from its termination tag and reason (games.csv
    /// stores no rule): the inverse of the arbiter's reason texts, kept in this one place.
    pub(crate) fn from_stored(termination_tag: &str, reason: &str) -> Option<AdjudicationRule> {
        if termination_tag != "adjudication" {
            return None;
        }
        if reason.ends_with(": SyzygyTB") {
            Some(AdjudicationRule::Tablebase)
        } else if reason.ends_with(": maximal game length") {
            Some(AdjudicationRule::MaxMoves)
        } else if reason.ends_with(" wins by adjudication") {
            Some(AdjudicationRule::Resign)
        } else if reason == "Draw by adjudication" {
            Some(AdjudicationRule::Draw)
        } else {
            None
        }
    }
}

impl Termination {
    /// The PGN `Termination` tag value (as cutechess and fastchess write it).
    pub fn tag(self) -> &'static str {
        match self {
            Termination::Normal => "normal",
            Termination::Adjudication(_) => "adjudication",
            Termination::TimeForfeit => "time forfeit",
            Termination::IllegalMove => "illegal move",
            Termination::Abandoned => "abandoned",
            Termination::StalledConnection => "stalled connection",
        }
    }

    /// Whether the game says something about the engines' chess (used for tuning data).
    pub(crate) fn is_played_out(self) -> bool {
        matches!(self, Termination::Normal | Termination::Adjudication(_))
    }
}

/// One engine move and what the engine said about it.
#[derive(Clone, Debug)]
pub struct PlayedMove {
    /// The move.
    pub mv: Move,
    /// From the mover's point of view.
    pub score: Option<Score>,
    /// The search depth it reported.
    pub depth: Option<u32>,
    /// The nodes it reported.
    pub nodes: Option<u64>,
    /// How long it took, as the arbiter measured.
    pub time: Duration,
    /// The rest of what the engine reported, for the PGN's move comments.
    pub(crate) details: MoveDetails,
}

/// What an engine's `info` lines said about its move beyond score, depth and nodes, and the
/// mover's clock after it: the figures fastchess's `-pgnout nodes=true seldepth=true ...` write.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct MoveDetails {
    /// `seldepth`.
    pub seldepth: Option<u32>,
    /// `nps`.
    pub nps: Option<u64>,
    /// `hashfull`, in permille.
    pub hashfull: Option<u32>,
    /// `tbhits`.
    pub tbhits: Option<u64>,
    /// `time`: the search time the engine reported (the latency is the arbiter's time minus it).
    pub(crate) engine_time: Option<Duration>,
    /// The principal variation as the engine wrote it (unchecked UCI moves).
    pub pv: Vec<String>,
    /// For each `match_line` pattern, the last line of the engine's output for this move that
    /// matched it, in the patterns' order.
    pub lines: Vec<String>,
    /// The mover's clock after the move (increment added); None without a clock.
    pub time_left: Option<Duration>,
    /// The move came from the engine's own book (cutechess's `book=`), not its search.
    pub(crate) from_book: bool,
}

/// A finished game with everything the writers and the statistics need.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// 1-based; games 2k-1 and 2k form pair k (same opening, colours reversed).
    pub game_id: u64,
    /// The pair the game belongs to.
    pub pair_id: u64,
    /// 1-based round (opening) number.
    pub round: u64,
    /// The PGN `Event` tag.
    pub event: String,
    /// The PGN `Site` tag (`?` when unknown).
    pub site: String,
    /// White's configured name.
    pub white: String,
    /// Black's configured name.
    pub black: String,
    /// Indices of the engines in the configuration.
    pub(crate) white_engine: usize,
    /// Index of Black's engine in the configuration.
    pub(crate) black_engine: usize,
    /// The opening's index in the book.
    pub opening_id: usize,
    /// The position the game (book moves included) starts from.
    pub start: Position,
    /// A Chess960 game: the PGN gets `Variant "Chess960"` and always `SetUp`/`FEN`.
    pub chess960: bool,
    /// The opening's moves, played before the engines took over.
    pub book_moves: Vec<Move>,
    /// The engines' moves.
    pub moves: Vec<PlayedMove>,
    /// How it ended.
    pub result: GameResult,
    /// Why it ended, as the PGN tag groups it.
    pub termination: Termination,
    /// Human reason, e.g. `White mates`, `Draw by 3-fold repetition`.
    pub reason: String,
    /// The PGN `TimeControl` tag value.
    pub time_control: String,
    /// When the game started (the PGN `Date`).
    pub started: SystemTime,
    /// How long it took.
    pub(crate) duration: Duration,
    /// Per colour (White first): the time left on its clock when the game ended, for a side
    /// that played on a clock.
    pub(crate) clock_left: [Option<Duration>; 2],
    /// The side whose engine failed (crash, stall, time loss, illegal move), if one did.
    pub(crate) at_fault: Option<Color>,
}

impl GameRecord {
    /// Plies in the movetext, book moves included.
    pub fn plies(&self) -> usize {
        self.book_moves.len() + self.moves.len()
    }

    /// The score of the engine playing `color`: 1, 0.5 or 0.
    pub(crate) fn score_for(&self, color: Color) -> f64 {
        match (self.result, color) {
            (GameResult::Draw, _) => 0.5,
            (GameResult::WhiteWins, Color::White) | (GameResult::BlackWins, Color::Black) => 1.0,
            _ => 0.0,
        }
    }

    /// The score of engine `engine` (a configuration index) in this game.
    pub(crate) fn score_of_engine(&self, engine: usize) -> f64 {
        if engine == self.white_engine {
            self.score_for(Color::White)
        } else {
            self.score_for(Color::Black)
        }
    }
}
