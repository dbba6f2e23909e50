//! sparring-engine: the built-in chess engine — an evaluation whose every weight is a parameter
//! ([`eval::EvalParams`], loaded from TOML), a PVS alpha-beta search whose tuned constants are a
//! [`search::SearchParams`] file, Syzygy probing ([`tablebase`]) and the UCI loop ([`uci`]).
//! It sits on `sparring-chess` and knows nothing of matches or tuning: the runner and the tuners
//! above it use it, never the reverse.
//!
//! # A search with limits
//!
//! ```
//! use sparring_chess::board::Position;
//! use sparring_engine::eval::EvalParams;
//! use sparring_engine::score::Score;
//! use sparring_engine::search::{SearchLimits, Searcher};
//! use std::sync::Arc;
//!
//! let mut searcher = Searcher::new(Arc::new(EvalParams::default()), 16);
//! let pos: Position = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1".parse()?;
//! let limits = SearchLimits { depth: Some(4), ..SearchLimits::default() };
//! // The callback sees each iteration's `info`; `&[]`: no earlier positions to repeat
//! // (`Searcher::search_game` searches a `board::Game`, its history included).
//! let result = searcher.search(&pos, &[], &limits, |_info| {});
//! assert_eq!(pos.san(result.best_move), "Rd8#");
//! assert_eq!(result.score, Score::Mate(1));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The engine over UCI, in process
//!
//! ```
//! use sparring_engine::uci::UciEngine;
//! use std::io::Write;
//! use std::sync::{Arc, Mutex};
//!
//! /// Collects what the engine writes (it owns its output, as it would own standard output).
//! #[derive(Clone, Default)]
//! struct Captured(Arc<Mutex<Vec<u8>>>);
//! impl Write for Captured {
//!     fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
//!         self.0.lock().unwrap().write(bytes)
//!     }
//!     fn flush(&mut self) -> std::io::Result<()> {
//!         Ok(())
//!     }
//! }
//!
//! let output = Captured::default();
//! let mut engine = UciEngine::new(Box::new(output.clone()));
//! engine.run("uci\nposition startpos moves e2e4\ngo depth 3\nquit\n".as_bytes())?;
//! let text = String::from_utf8(output.0.lock().unwrap().clone())?;
//! assert!(text.contains("uciok"));
//! assert!(text.lines().any(|line| line.starts_with("bestmove ")));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]
// A type a public item hands out must have a public path too (issue 46: a narrow surface).
#![warn(unnameable_types)]
#![warn(clippy::undocumented_unsafe_blocks)]
// Every function fits on a screen (issue 22); the threshold, 120 lines, is in clippy.toml.
#![warn(clippy::too_many_lines)]

// The chess layer's modules under the names this crate's code uses (`crate::board::Position`).
use sparring_chess::{board, error, rng};

pub mod eval;
pub mod nnue;
pub mod score;
pub mod search;
pub mod tablebase;
pub mod toml_config;
pub mod uci;

/// The name the built-in engine gives itself (UCI `id name`, PGN player tags of its own games).
pub const ENGINE_NAME: &str = concat!("sparring ", env!("CARGO_PKG_VERSION"));

/// The number of threads the machine can run at once (1 if it cannot say): the bound on every
/// configured or requested thread count, and what a thread count of 0 means.
pub fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The class of a type-erased error if its type is one of this crate's error types (see
/// [`sparring_chess::error::class_of`]).
pub fn class_of(err: &(dyn std::error::Error + 'static)) -> Option<sparring_chess::Failure> {
    use sparring_chess::error::class;
    let classes = [
        class::<eval::WeightsError>,
        class::<nnue::NetworkError>,
        class::<search::TableAllocError>,
        class::<search::SearchParamError>,
        class::<tablebase::TablebaseError>,
        class::<toml_config::ConfigError>,
        class::<uci::UciError>,
        class::<uci::PositionError>,
    ];
    classes.iter().find_map(|class| class(err))
}
