//! sparring: a chess-engine developer's toolkit — an engine library (board, evaluation, search,
//! UCI), a match runner and tuners — as a workspace whose crates are its layers, lowest first:
//!
//! | crate | layer | holds |
//! | --- | --- | --- |
//! | [`sparring_chess`] | chess | [`board`] (rules, moves, FEN/SAN/UCI, Chess960, perft), [`rng`], the error policy ([`ErrorClass`]) |
//! | [`sparring_engine`] | engine | [`eval`], [`search`], [`score`], [`tablebase`], [`uci`], [`toml_config`] |
//! | [`sparring_harness`] | runner | [`arena`] (engines, games, matchmaking, outputs), [`openings`], [`record`], [`data`] (training-data formats and tools), [`stats`] |
//! | [`sparring_tuning`] | tuners | [`texel`] (Texel tuning, the trace protocol), [`spsa`], [`ladder`] (the self-play loop) |
//! | `sparring` | command line | this front door, and the binary (feature `cli`) |
//!
//! Each crate uses only the crates above it in the table, so data flows one way; this crate
//! re-exports their modules under one roof, so `sparring::board::Position` and
//! `sparring_chess::board::Position` are the same type. A user who wants the board alone
//! depends on `sparring-chess`, which needs nothing but `std` and `thiserror`.
//! `default-features = false` builds this front door without the command line's crates (clap,
//! indicatif, anyhow, serde_json).
//!
//! Each crate's own page has runnable examples of its layer; two that cross them:
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
//! Any [`texel::TunableEval`] can be tuned; the built-in evaluation is one, traced by the same walk
//! the search scores with. Labels are game results from White's view (1, 0.5, 0).
//!
//! ```
//! use sparring::board::Position;
//! use sparring::eval::EvalParams;
//! use sparring::texel::any::{fit, AnyOptions};
//! use sparring::texel::{Dataset, EvalSelection, KSetting};
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

pub use sparring_chess::{board, error, rng, ErrorClass, Failure};
pub use sparring_engine::{
    available_cores, eval, nnue, score, search, tablebase, toml_config, uci, ENGINE_NAME,
};
pub use sparring_harness::{arena, data, datagen, files, openings, page, record, stats};
pub use sparring_tuning::{ladder, spsa, texel, train};
pub use {sparring_chess, sparring_engine, sparring_harness, sparring_tuning};

/// The class of a type-erased error if its type (not its sources) is one of the workspace's
/// error types, asking each crate's own `class_of` in turn; `None` for any other error.
pub fn class_of(err: &(dyn std::error::Error + 'static)) -> Option<Failure> {
    sparring_tuning::class_of(err)
        .or_else(|| sparring_harness::class_of(err))
        .or_else(|| sparring_engine::class_of(err))
        .or_else(|| sparring_chess::error::class_of(err))
}

#[cfg(test)]
mod class_tests;
