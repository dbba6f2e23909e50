//! sparring: a chess-engine developer's toolkit — an engine library (board, evaluation, search,
//! UCI), a match runner and a Texel tuner, in one crate.

#![warn(missing_docs)]
#![warn(clippy::undocumented_unsafe_blocks)]

pub mod arena;
pub mod board;
pub mod eval;
pub mod openings;
pub mod record;
pub mod rng;
pub mod score;
pub mod search;
pub mod stats;
pub mod toml_config;
pub mod tune;
pub mod uci;

/// The name the built-in engine gives itself (UCI `id name`, PGN player tags of its own games).
pub const ENGINE_NAME: &str = concat!("sparring ", env!("CARGO_PKG_VERSION"));
