//! sparring: a chess-engine developer's toolkit — an engine library (board, evaluation, search,
//! UCI), a match runner and a Texel tuner, in one crate.

#![warn(missing_docs)]
#![warn(clippy::undocumented_unsafe_blocks)]
// Every function fits on a screen (issue 22); the threshold, 120 lines, is in clippy.toml.
#![warn(clippy::too_many_lines)]

pub mod arena;
pub mod board;
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

/// The name the built-in engine gives itself (UCI `id name`, PGN player tags of its own games).
pub const ENGINE_NAME: &str = concat!("sparring ", env!("CARGO_PKG_VERSION"));

/// The number of threads the machine can run at once (1 if it cannot say): the bound on every
/// configured or requested thread count, and what a thread count of 0 means.
pub fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
