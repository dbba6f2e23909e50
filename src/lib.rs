//! sparring: a chess-engine developer's toolkit — an engine library (board, evaluation, search,
//! UCI), a match runner and a Texel tuner, in one crate.
//!
//! Data flows one way: [`board`] ← [`eval`] ← [`search`] ← players ([`arena::Player`]) ←
//! [`arena`] → [`record`] → [`tune`] → weights TOML → [`eval`]. [`stats`] turns results into Elo,
//! LOS, SPRT verdicts and joint ratings; [`openings`] reads EPD, PGN and Polyglot books; [`tablebase`] probes
//! Syzygy tables; [`uci`] is the engine's protocol loop. The `sparring` binary (feature `cli`, on
//! by default) is a thin command line over these; `default-features = false` builds the library
//! alone, without clap, indicatif or anyhow.
//!
//! Paths: a type lives in its subsystem's module (`sparring::board::Position`,
//! `sparring::search::Searcher`) and nowhere else; the crate root re-exports nothing, so a name
//! says which subsystem it belongs to. The deliberate exception is inside a subsystem: `arena`
//! and `tune` keep public submodules for their details (`arena::config`, `tune::spsa`) and
//! re-export those submodules' main types at the subsystem root as its front door. The fixtures
//! of `sparring bench` and `benches/` (`board::perft_suite`, `search::bench_positions`) are
//! public only because the binary and the benchmarks are other crates: hidden from the docs,
//! not API.
//!
//! # A position, its legal moves and perft
//!
//! ```
//! use sparring::board::{perft::perft, Position};
//!
//! // "Kiwipete", the classic move-generator test position.
//! let mut pos: Position =
//!     "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1".parse()?;
//! assert_eq!(pos.legal_moves().len(), 48);
//! assert_eq!(perft(&mut pos, 2), 2039);
//!
//! let castle = pos.parse_uci_move("e1g1")?;
//! assert_eq!(pos.san(castle), "O-O");
//! pos.try_play(castle)?;
//! assert_eq!(pos.to_fen(), "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R4RK1 b kq - 1 1");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # A search with limits
//!
//! ```
//! use sparring::board::Position;
//! use sparring::eval::EvalParams;
//! use sparring::search::{SearchLimits, Searcher};
//! use std::sync::Arc;
//!
//! let mut searcher = Searcher::new(Arc::new(EvalParams::default()), 16);
//! let pos: Position = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1".parse()?;
//! let limits = SearchLimits { depth: Some(4), ..SearchLimits::default() };
//! // The callback sees each iteration's `info`; `&[]`: no earlier positions to repeat
//! // (`Searcher::search_game` searches a `board::Game`, its history included).
//! let result = searcher.search(&pos, &[], &limits, |_info| {});
//! assert_eq!(pos.san(result.best_move), "Rd8#");
//! assert_eq!(result.score, sparring::score::Score::Mate(1));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Two built-in players through one game
//!
//! The arbiter ([`arena::play_game`]) keeps the real position and the clocks, checks every move
//! and ends the game by the rules or by adjudication.
//!
//! ```
//! use sparring::arena::config::Adjudication;
//! use sparring::arena::{play_game, BuiltinPlayer, GameSetup, TimeControl};
//! use sparring::board::{GameResult, Position};
//! use sparring::eval::EvalParams;
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
//! println!("{} after {} plies: {}", record.result, record.plies(), record.reason);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # A small tournament in code
//!
//! The same configuration `sparring match` reads, from a string; the run writes its PGN, CSV and
//! summary into the output directory and reports progress through events.
//!
//! ```
//! use sparring::arena::{openings_of, run_tournament, Event, MatchConfig, RunOptions};
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
//!     builtin = {{ weights = "{}/configs/weights/handset.toml", hash_mb = 1 }}
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
//! let wdl = summary.pairings[0].wdl;
//! assert_eq!(wdl.wins + wdl.draws + wdl.losses, 2);
//! std::fs::remove_dir_all(&out)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Texel-tuning a handful of positions
//!
//! Any [`tune::TunableEval`] can be tuned; the built-in evaluation is one, traced by the same walk
//! the search scores with. Labels are game results from White's view (1, 0.5, 0).
//!
//! ```
//! use sparring::board::Position;
//! use sparring::eval::EvalParams;
//! use sparring::tune::any::{fit, AnyOptions};
//! use sparring::tune::{Dataset, EvalSelection, KSetting};
//!
//! let eval = EvalParams::default();
//! let fens = [
//!     "4k3/8/8/8/8/8/4P3/3QK3 w - - 0 1", // a queen up: White won
//!     "3qk3/4p3/8/8/8/8/8/4K3 w - - 0 1", // a queen down: Black won
//!     "4k3/4p3/8/8/8/8/4P3/4K3 w - - 0 1", // level: drawn
//! ];
//! let positions: Vec<Position> = fens.iter().map(|f| f.parse()).collect::<Result<_, _>>()?;
//! let data = Dataset::from_positions(&positions, &[1.0, 0.0, 0.5], &EvalSelection::new(&eval));
//! let options = AnyOptions { k: KSetting::Fixed(1.0), epochs: 20, ..AnyOptions::default() };
//! let empty = Dataset::from_positions(&[], &[], &EvalSelection::new(&eval));
//! let fit = fit(&eval, &data, &empty, &options, &mut |_epoch| {})?;
//! let last = fit.history.last().expect("one entry per epoch");
//! assert!(last.train_mse <= fit.start_mse);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]
#![warn(clippy::undocumented_unsafe_blocks)]
// Every function fits on a screen (issue 22); the threshold, 120 lines, is in clippy.toml.
#![warn(clippy::too_many_lines)]

pub mod arena;
pub mod board;
pub mod error;
pub mod eval;
pub mod files;
pub mod openings;
pub mod record;
pub mod rng;
pub mod score;
pub mod search;
pub mod stats;
pub mod tablebase;
pub mod toml_config;
pub mod tune;
pub mod uci;

pub use error::{ErrorClass, Failure};

/// The name the built-in engine gives itself (UCI `id name`, PGN player tags of its own games).
pub const ENGINE_NAME: &str = concat!("sparring ", env!("CARGO_PKG_VERSION"));

/// The number of threads the machine can run at once (1 if it cannot say): the bound on every
/// configured or requested thread count, and what a thread count of 0 means.
pub fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
