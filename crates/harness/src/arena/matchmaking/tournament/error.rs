//! Why a run could not start or had to stop.

use crate::arena::engine::player::PlayerError;
use crate::arena::matchmaking::lock::LockError;
use crate::arena::matchmaking::manifest::ManifestError;
use crate::arena::matchmaking::schedule::WaveError;
use crate::error::{ErrorClass, Failure};
use crate::eval::WeightsError;
use crate::nnue::NetworkError;
use crate::record::bullet::BulletIndexError;
use crate::record::GamesCsvError;
use crate::toml_config::ConfigError;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why a run could not start or had to stop.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ArenaError {
    /// An engine did not start before the games (or its settings cannot be sent to it).
    #[error("engine `{name}`: {source}")]
    EngineStart {
        /// The engine's configured name.
        name: String,
        /// Why it did not start.
        source: PlayerError,
    },
    /// A configured option value the engine's own `option` line does not allow; refused
    /// before the first game.
    #[error("engine `{name}`: {source}")]
    OptionValue {
        /// The engine's configured name.
        name: String,
        /// The option, its value and what the engine allows.
        source: PlayerError,
    },
    /// With `strict_options`, an option the engine did not declare.
    #[error("engine `{name}` does not declare option `{option}` (strict options: the run stops)")]
    UndeclaredOption {
        /// The engine's configured name.
        name: String,
        /// The option's configured name.
        option: String,
    },
    /// An engine failed to start `tournament.max_restarts` times in a row during the run.
    #[error("engine `{name}` failed to restart {attempts} times in a row ({source}): the run stops; the games played so far are saved, and --resume continues")]
    EngineRestart {
        /// The engine's configured name.
        name: String,
        /// How many starts were tried.
        attempts: u32,
        /// Why the last one failed.
        source: PlayerError,
    },
    /// `compliance.affinity` (`-use-affinity`) names CPUs the machine does not let the runner
    /// use, or too few for the concurrent games; or pinning failed.
    #[error("compliance.affinity (-use-affinity) `{affinity}`: {reason}")]
    Affinity {
        /// The configured CPUs (`auto` or the list).
        affinity: String,
        /// What is wrong.
        reason: String,
    },
    /// A built-in engine's weights file could not be loaded.
    #[error("engine `{name}`: weights: {source}")]
    Weights {
        /// The engine's configured name.
        name: String,
        /// What was wrong with the file; boxed to keep the error small.
        source: Box<WeightsError>,
    },
    /// A built-in engine's network file could not be loaded.
    #[error("engine `{name}`: net: {source}")]
    Network {
        /// The engine's configured name.
        name: String,
        /// What was wrong with the file; boxed to keep the error small.
        source: Box<NetworkError>,
    },
    /// An external engine's own book (`book`) could not be loaded.
    #[error("engine `{name}`: book: {source}")]
    EngineBook {
        /// The engine's configured name.
        name: String,
        /// What was wrong with the file; boxed to keep the error small.
        source: Box<crate::openings::OpeningsError>,
    },
    /// A built-in engine's search constants file could not be loaded.
    #[error("engine `{name}`: search: {source}")]
    SearchParams {
        /// The engine's configured name.
        name: String,
        /// What was wrong with the file (its path, line and key); boxed to keep the error small.
        source: Box<ConfigError>,
    },
    /// A built-in engine's table cannot fit in this machine.
    #[error("{config}: engine `{name}`: hash_mb = {hash_mb} is more than this machine can give a table ({available_mb} MB)")]
    HashTooLarge {
        /// The configuration file.
        config: String,
        /// The engine's configured name.
        name: String,
        /// The table size asked for.
        hash_mb: usize,
        /// The largest table this machine can have (`search::max_hash_mb`).
        available_mb: usize,
    },
    /// Reading or writing an output file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// `output.dir` names something that is not a directory.
    #[error("{config}: output.dir: {} exists and is not a directory; the output directory must be a directory or not exist yet", dir.display())]
    OutputNotDirectory {
        /// The configuration file.
        config: String,
        /// The path it names.
        dir: PathBuf,
    },
    /// The output files of the run to resume disagree or are damaged.
    #[error("cannot resume: {}: {problem}", path.display())]
    Resume {
        /// The damaged file (games.pgn, games.csv or a bullet file).
        path: PathBuf,
        /// What is wrong with it and what to do.
        problem: String,
    },
    /// The positions.bullet index of the run to resume is damaged.
    #[error("cannot resume: {}: {source}", path.display())]
    ResumeBulletIndex {
        /// The index file.
        path: PathBuf,
        /// What is wrong with it.
        #[source]
        source: BulletIndexError,
    },
    /// `games.csv` of the run to resume cannot be read.
    #[error("cannot resume: {0}")]
    GamesCsv(#[from] GamesCsvError),
    /// The run fingerprint does not match (or cannot be read or written).
    #[error("cannot resume: {0}")]
    Manifest(#[from] ManifestError),
    /// A wave past the end of the schedule, or of no pairs.
    #[error("--wave: {0}")]
    Wave(#[from] WaveError),
    /// The output directory is locked by another run.
    #[error(transparent)]
    Lock(#[from] LockError),
    /// A new run into a directory that holds results.
    #[error("{dir} already holds the results of a run: pass --resume to continue it, or choose another output directory")]
    OutputExists {
        /// The output directory.
        dir: String,
    },
    /// Shards and waves split whole pairs, so a run ending in single games is played whole.
    #[error("tournament.single_last_game: a run with an odd number of games per pairing cannot be split into shards or waves; play it whole")]
    UnpairedSlice,
}

impl ErrorClass for ArenaError {
    fn class(&self) -> Failure {
        use Failure::{BadInput, FailedRun};
        match self {
            ArenaError::EngineStart { source, .. } | ArenaError::OptionValue { source, .. } => {
                source.class()
            }
            ArenaError::Weights { source, .. } => source.class(),
            ArenaError::Network { source, .. } => source.class(),
            ArenaError::EngineBook { source, .. } => source.class(),
            ArenaError::SearchParams { source, .. } => source.class(),
            ArenaError::GamesCsv(source) => source.class(),
            ArenaError::Manifest(source) => source.class(),
            ArenaError::Wave(source) => source.class(),
            ArenaError::Lock(source) => source.class(),
            ArenaError::ResumeBulletIndex { source, .. } => source.class(),
            ArenaError::UndeclaredOption { .. }
            | ArenaError::HashTooLarge { .. }
            | ArenaError::OutputNotDirectory { .. }
            | ArenaError::Resume { .. }
            | ArenaError::OutputExists { .. }
            | ArenaError::UnpairedSlice
            | ArenaError::Affinity { .. } => BadInput,
            // An engine that kept failing to start mid-run: the run failed, whatever the cause.
            ArenaError::EngineRestart { .. } | ArenaError::Io { .. } => FailedRun,
        }
    }
}

pub(super) fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> ArenaError + '_ {
    move |source| ArenaError::Io {
        path: path.display().to_string(),
        source,
    }
}
