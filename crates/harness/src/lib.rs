//! sparring-harness: the match runner — engine processes and their protocols (UCI, xboard),
//! games under an arbiter with clocks and adjudication, matchmaking (round robins, gauntlets,
//! shards, waves, SPRT), opening suites and books ([`openings`]), records of games and training
//! positions ([`record`]) and the statistics that turn results into Elo, LOS, SPRT verdicts and
//! joint ratings ([`stats`]). It plays any engine, the built-in one in process through
//! `sparring-engine`; it knows nothing of tuning.
//!
//! # Two built-in players through one game
//!
//! The arbiter ([`arena::play_game`]) keeps the real position and the clocks, checks every move
//! and ends the game by the rules or by adjudication.
//!
//! ```
//! use sparring_chess::board::{GameResult, Position};
//! use sparring_engine::eval::EvalParams;
//! use sparring_harness::arena::config::Adjudication;
//! use sparring_harness::arena::{play_game, BuiltinPlayer, GameSetup, TimeControl};
//! use std::sync::Arc;
//! use std::time::Duration;
//!
//! let mut white = BuiltinPlayer::new(Arc::new(EvalParams::default()), 4)?;
//! let mut black = BuiltinPlayer::new(Arc::new(EvalParams::handset()), 4)?;
//! let start = Position::startpos();
//! let nodes = TimeControl::Nodes(2_000);
//! let adjudication = Adjudication { max_moves: Some(40), ..Adjudication::default() };
//! let setup = GameSetup {
//!     game_id: 1,
//!     pair_id: 1,
//!     round: 1,
//!     event: "doc example",
//!     site: "here",
//!     opening_id: 0,
//!     start: &start,
//!     book_moves: &[],
//!     names: ["default", "handset"],
//!     engines: [0, 1],
//!     time_controls: [&nodes, &nodes],
//!     margin: Duration::from_millis(100),
//!     timeout: Duration::from_secs(60),
//!     adjudication: &adjudication,
//!     engine_log: None,
//! };
//! let record = play_game(&setup, [&mut white, &mut black]);
//! assert!(record.plies() > 0 && record.plies() <= 80);
//! assert!(matches!(record.result, GameResult::WhiteWins | GameResult::BlackWins | GameResult::Draw));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # A small tournament in code
//!
//! The same configuration `sparring match` reads, from a string; the run writes its PGN, CSV and
//! summary into the output directory and reports progress through events.
//!
//! ```
//! use sparring_harness::arena::{openings_of, run_tournament, Event, MatchConfig, RunOptions};
//!
//! let out = std::env::temp_dir().join(format!("sparring-doc-tournament-{}", std::process::id()));
//! let toml = format!(
//!     r#"
//!     [tournament]
//!     kind = "round-robin"
//!     rounds = 1
//!     concurrency = 1
//!     [time_control]
//!     nodes = 500
//!     [adjudication]
//!     max_moves = 30
//!     [output]
//!     dir = "{}"
//!     [[engine]]
//!     name = "default"
//!     builtin = {{ hash_mb = 1 }}
//!     [[engine]]
//!     name = "handset"
//!     builtin = {{ weights = "{}/../../configs/weights/handset.toml", hash_mb = 1 }}
//!     "#,
//!     out.display(),
//!     env!("CARGO_MANIFEST_DIR"),
//! );
//! let config = MatchConfig::parse(&toml, "inline.toml")?;
//! let (openings, _bad_lines) = openings_of(&config)?;
//! let mut games = 0;
//! let summary = run_tournament(&config, openings, &RunOptions::default(), &mut |event| {
//!     if let Event::GameFinished { .. } = event {
//!         games += 1;
//!     }
//! })?;
//! assert_eq!((summary.games_played, games), (2, 2)); // one colour-reversed pair
//! std::fs::remove_dir_all(&out)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Elo, LOS and an SPRT from counts
//!
//! ```
//! use sparring_harness::stats::{llr_logistic, Wdl};
//!
//! let wdl = Wdl::new(60, 100, 40);
//! let estimate = wdl.estimate().expect("games were played");
//! assert!(estimate.elo > 30.0 && estimate.elo < 40.0);
//! assert!(estimate.los > 0.9);
//! // The log-likelihood ratio of H1 (+5 Elo) against H0 (0 Elo) on these counts.
//! assert!(llr_logistic(&wdl.to_array(), 0.0, 5.0) > 0.0);
//! ```

#![warn(missing_docs)]
// A type a public item hands out must have a public path too (issue 46: a narrow surface).
#![warn(unnameable_types)]
#![warn(clippy::undocumented_unsafe_blocks)]
// Every function fits on a screen (issue 22); the threshold, 120 lines, is in clippy.toml.
#![warn(clippy::too_many_lines)]

// The lower layers' modules under the names this crate's code uses (`crate::board::Position`).
use sparring_chess::{board, error, rng};
use sparring_engine::{available_cores, eval, nnue, score, search, tablebase, toml_config};

pub mod arena;
pub mod data;
pub mod datagen;
pub mod files;
pub mod openings;
pub mod page;
pub mod record;
pub mod stats;

/// The class of a type-erased error if its type is one of this crate's error types (see
/// [`sparring_chess::error::class_of`]).
pub fn class_of(err: &(dyn std::error::Error + 'static)) -> Option<sparring_chess::Failure> {
    use sparring_chess::error::class;
    let classes = [
        class::<arena::ArenaError>,
        class::<datagen::DatagenError>,
        class::<arena::MergeError>,
        class::<arena::GatherError>,
        class::<arena::FiguresError>,
        class::<arena::ManifestError>,
        class::<arena::matchmaking::manifest::SliceKeyError>,
        class::<arena::LockError>,
        class::<arena::PlayerError>,
        class::<arena::matchmaking::schedule::BookSetupError>,
        class::<arena::matchmaking::schedule::ShardError>,
        class::<arena::matchmaking::schedule::WaveError>,
        class::<data::DataError>,
        class::<openings::OpeningsError>,
        class::<page::ReportError>,
        class::<openings::BadLine>,
        class::<openings::BadLineReason>,
        class::<openings::FormatNameError>,
        class::<openings::generate::GenerateError>,
        class::<openings::EpdOperationError>,
        class::<record::GamesCsvError>,
        class::<record::PgnResultsError>,
        class::<record::PositionLineError>,
        class::<record::bullet::BulletError>,
        class::<record::bullet::BulletLineError>,
        class::<record::bullet::BulletIndexError>,
        class::<record::bullet::ConvertError>,
        class::<stats::StatsError>,
        class::<stats::RatingsError>,
    ];
    classes.iter().find_map(|class| class(err))
}
