//! `sparring datagen`: self-play games for NNUE training data. One engine (the built-in one in
//! process, or any UCI engine as a process) plays itself from random, verified openings at a
//! soft node limit; every position's score (White's view) and the game's result go to a data
//! file in one of the [`DataFormat`](crate::data::DataFormat)s.
//!
//! The pieces: [`config`] (the TOML file and the command line's overrides), [`opening`] (random
//! plies from the seed and the game number, and the verification search), [`game`] (one game
//! through the arbiter, an engine against itself) and [`run`] (workers, the reorder buffer that
//! writes games in game order, the state file that makes `--resume` exact, and shards).
//! docs/datagen.md is the user's guide.

pub(crate) mod config;
pub(crate) mod game;
pub(crate) mod opening;
pub(crate) mod page;
pub(crate) mod run;

pub use config::{DatagenConfig, DatagenEngine, DatagenVariant, Overrides, ScoreAdjudication};
pub use page::write_datagen_report;
pub use run::{run_datagen, DatagenEvent, DatagenOptions, DatagenSummary, STATE_FILE};

use crate::error::{ErrorClass, Failure};
use std::path::PathBuf;
use thiserror::Error;

/// Why a datagen run cannot start or go on.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum DatagenError {
    /// The configuration file is wrong (file, line and key in the message).
    #[error(transparent)]
    Config(#[from] crate::toml_config::ConfigError),
    /// A command-line value that cannot be used.
    #[error("{flag} {value}: expected {expected}")]
    BadFlag {
        /// The flag.
        flag: String,
        /// The value given.
        value: String,
        /// What it accepts.
        expected: String,
    },
    /// A setting neither the file nor the command line gives.
    #[error("missing {0}")]
    Missing(String),
    /// The run's directory cannot be made or written.
    #[error("{}: {source}", path.display())]
    Unwritable {
        /// The file or directory.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The directory holds a run and `--resume` was not given.
    #[error("{} already holds a datagen run: give --resume to continue it, or another --out", dir.display())]
    Exists {
        /// The run's directory.
        dir: PathBuf,
    },
    /// `--resume` with settings that differ from the run's.
    #[error("cannot resume {}: the configuration differs in {}", dir.display(), keys.join(", "))]
    Changed {
        /// The run's directory.
        dir: PathBuf,
        /// The keys whose values differ.
        keys: Vec<String>,
    },
    /// `--resume` in a directory without a run's state.
    #[error("cannot resume {}: no datagen run there (no run.toml and state.toml)", dir.display())]
    NothingToResume {
        /// The directory.
        dir: PathBuf,
    },
    /// The state file says more bytes are complete than the data file holds.
    #[error("{}: the state records {expected} complete bytes, the file holds {found}", path.display())]
    Truncated {
        /// The data file.
        path: PathBuf,
        /// Bytes the state records.
        expected: u64,
        /// Bytes in the file.
        found: u64,
    },
    /// Writing the data or the state failed during the run.
    #[error("writing {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The engine cannot start (checked before any game) or could not be restarted.
    #[error("the engine cannot start: {0}")]
    Engine(#[from] crate::arena::PlayerError),
    /// The Syzygy tables of `--tb` cannot be opened.
    #[error("adjudication tables: {0}")]
    Tablebase(#[from] crate::tablebase::TablebaseError),
    /// The weights file of the built-in engine cannot be used.
    #[error("engine weights: {0}")]
    Weights(#[from] crate::eval::WeightsError),
    /// The built-in engine's network cannot be loaded.
    #[error("engine.builtin.net: {0}")]
    Network(#[from] crate::nnue::NetworkError),
    /// Another process holds the directory.
    #[error(transparent)]
    Lock(#[from] crate::arena::LockError),
    /// `--shard` is malformed.
    #[error(transparent)]
    Shard(#[from] crate::arena::ShardError),
    /// No opening passed the verification search (a window the engine never scores within).
    #[error(
        "game {game}: no random opening scored within the verification window in {attempts} tries"
    )]
    NoOpening {
        /// The 0-based game number.
        game: u64,
        /// Openings tried.
        attempts: usize,
    },
}

impl ErrorClass for DatagenError {
    fn class(&self) -> Failure {
        match self {
            DatagenError::Config(e) => e.class(),
            DatagenError::Engine(e) => e.class(),
            DatagenError::Tablebase(e) => e.class(),
            DatagenError::Weights(e) => e.class(),
            DatagenError::Network(e) => e.class(),
            DatagenError::Lock(e) => e.class(),
            DatagenError::Shard(e) => e.class(),
            DatagenError::BadFlag { .. }
            | DatagenError::Missing(_)
            | DatagenError::Unwritable { .. }
            | DatagenError::Exists { .. }
            | DatagenError::Changed { .. }
            | DatagenError::NothingToResume { .. } => Failure::BadInput,
            DatagenError::Truncated { .. }
            | DatagenError::Write { .. }
            | DatagenError::NoOpening { .. } => Failure::FailedRun,
        }
    }
}
