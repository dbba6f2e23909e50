//! The match runner: configuration, players (in-process and external UCI engines), the game
//! arbiter with adjudication, the schedule, and the tournament loop with its progress report.
//!
//! Start at [`MatchConfig`] (a match's TOML, parsed) and [`run_tournament`], which reports
//! [`Event`]s and returns a [`TournamentSummary`]; or play one game with [`play_game`] between two
//! [`Player`]s: the in-process [`BuiltinPlayer`], or an external [`UciPlayer`] / [`XboardPlayer`].
//! [`merge_shards`] joins the outputs of a match run in shards.

mod adjudication;
pub mod config;
pub mod engine;
pub mod engine_log;
pub mod events;
mod figures;
mod game;
pub mod lock;
pub mod manifest;
pub mod merge;
mod pairing;
pub mod player;
pub mod ratings;
mod report;
pub mod schedule;
#[cfg(test)]
mod scripted;
mod tournament;

pub use adjudication::AdjudicationCounts;
pub use config::{
    EngineKind, MatchConfig, PgnMode, Protocol, ResultsFormat, Seeds, TimeControl, TournamentKind,
    Variant,
};
pub use engine::{UciCommand, UciPlayer, XboardPlayer};
pub use events::Event;
pub use figures::FiguresError;
pub use game::{play_game, GameSetup};
pub use lock::{LockError, OutputLock};
pub use manifest::{Fingerprint, ManifestError};
pub use merge::{merge_shards, MergeError, MergeOptions, MergeReport, MissingGames};
pub use pairing::{ranking, EngineFigures, PairingStats, Standing};
pub use player::{BuiltinPlayer, EngineReply, GoRequest, Player, PlayerError};
pub use ratings::{joint_ratings, rated_games, RATINGS_FILE};
pub use report::{
    fastchess_time_control, general_format, results_heading, write_ranking, write_ratings,
    write_summary, EngineFacts,
};
pub use schedule::{
    open_book, openings_of, BookRequest, BookSetupError, Chess960Starts, GameSpec, OpeningSource,
    Schedule, Shard, ShardError, StartPosition,
};
pub use tournament::{
    check_engines, run_tournament, ArenaError, EngineFactory, RunOptions, TournamentSummary,
};
