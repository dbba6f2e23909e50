//! The match runner: configuration, players (in-process and external UCI engines), the game
//! arbiter with adjudication, the schedule, and the tournament loop with its progress report.
//!
//! Start at [`MatchConfig`] (a match's TOML, parsed) and [`run_tournament`], which reports
//! [`Event`]s and returns a [`TournamentSummary`]; or play one game with [`play_game`] between two
//! [`Player`]s: the in-process [`BuiltinPlayer`], or an external [`UciPlayer`] / [`XboardPlayer`].
//! [`merge_shards`] joins the outputs of a match run in shards.

// The runner's rooms, as fastchess has them: the engine processes and their protocols, the
// game under its arbiter, the matchmaking that schedules, runs, shards and merges games, and
// what a run writes and reports. `config` is the match file they all read.
pub mod config;
pub mod engine;
pub mod game;
pub(crate) mod matchmaking;
pub(crate) mod output;

pub use config::{
    EngineKind, MatchConfig, PgnMode, Protocol, ResultsFormat, Seeds, TimeControl, TournamentKind,
    Variant,
};
pub use engine::player::{BuiltinPlayer, EngineReply, GoRequest, Player, PlayerError};
pub use engine::{UciCommand, UciPlayer};
pub use game::adjudication::AdjudicationCounts;
pub use game::{play_game, GameSetup};
pub use matchmaking::lock::{host_name, LockError, OutputLock, LOCK_FILE};
pub use matchmaking::manifest::{
    file_hash, settings_hash, Fingerprint, ManifestError, SliceKeyError,
};
pub use matchmaking::merge::{merge_shards, MergeError, MergeOptions, MergeReport, MissingGames};
pub use matchmaking::schedule::{
    open_book, openings_of, BookRequest, BookSetupError, Chess960Starts, GameSpec, OpeningSource,
    Schedule, Shard, ShardError, Slice, StartPosition, Wave, WaveError,
};
pub(crate) use matchmaking::tournament::EngineFactory;
pub use matchmaking::tournament::{
    check_engines, run_tournament, ArenaError, RunOptions, TournamentSummary,
};
pub use output::events::Event;
pub use output::figures::FiguresError;
pub use output::match_page::{write_match_report, LiveTables, RunState};
pub use output::pairing::{ranking, EngineFigures, PairingStats, Standing};
pub use output::ratings::joint_ratings;
pub use output::ratings_sources::{
    gather_rated_games, Disagreement, GatherError, GatherNote, GatheredGames, RatingsSource,
    SourceFormat,
};
pub use output::report::{general_format, results_heading, EngineFacts};
