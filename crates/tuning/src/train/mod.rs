//! The CPU trainer of `sparring train`: bullet's simple network `(768 → N)x2 → 1` (Chess768
//! inputs, SCReLU, one output) fitted with bullet's AdamW to `λ·result + (1 − λ)·σ(score / 400)`
//! on minibatches of sparse inputs, streamed from any data format sparring writes
//! ([`data`]), in parallel with rayon and deterministically (the same weights on any number of
//! threads), with checkpoints a resume continues bit for bit. It writes bullet's `quantised.bin`
//! through the engine's [`Network`](crate::nnue::Network) (one definition of the format), the
//! float `raw.bin`, `history.csv`, `loss.svg` and `checkpoint.bin`. docs/train.md.

pub mod bench;
pub(crate) mod checkpoint;
pub(crate) mod config;
pub(crate) mod data;
pub(crate) mod model;
pub(crate) mod optim;
mod output;
mod run;
mod validate;

pub use config::TrainConfig;
pub use data::DataSpec;
pub use model::{FloatNet, QuantiseError, TrainPosition};
pub use optim::{LambdaSchedule, StepLr};
pub use run::{train, Event, TrainOptions, TrainOutcome};
pub use validate::{validate, NetLoss, Validation};

use crate::error::{ErrorClass, Failure};
use crate::toml_config::ConfigError;
use thiserror::Error;

/// One superbatch's line of `history.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct HistoryRow {
    /// The superbatch (1-based).
    pub superbatch: usize,
    /// Training positions seen in it.
    pub positions: u64,
    /// Mean training loss over its batches (weights as they were at each batch).
    pub train_loss: f64,
    /// Mean loss on the held-out positions after it; `None` without any.
    pub validation_loss: Option<f64>,
    /// The learning rate it ran with.
    pub lr: f64,
    /// λ, the result's share of the target.
    pub lambda: f64,
    /// Training positions per second in it (reading included).
    pub positions_per_second: f64,
    /// Seconds since the run started (the time before a resume included).
    pub elapsed: f64,
}

/// Why training failed.
#[derive(Error, Debug)]
#[non_exhaustive]
pub enum TrainError {
    /// The configuration is wrong.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A data file cannot be read, or a record is damaged.
    #[error(transparent)]
    Data(#[from] sparring_harness::data::DataError),
    /// The filters and the validation split left nothing to train on.
    #[error("{config}: no training positions: the filters and data.validation_fraction leave none of {files} file(s)")]
    NoTrainingData {
        /// The configuration.
        config: String,
        /// How many data files were read.
        files: usize,
    },
    /// `--validate` found no held-out positions.
    #[error("{config}: no validation positions: data.validation_fraction holds out none of {files} file(s)")]
    NoValidationData {
        /// The configuration.
        config: String,
        /// How many data files were read.
        files: usize,
    },
    /// A net to start from (`model.init`) or to score (`--validate`) is unreadable, neither a
    /// raw.bin nor a quantised net, or (`model.init`) not of the configured size.
    #[error("{file}: {role}: {reason}")]
    Init {
        /// The file.
        file: String,
        /// Where it was named: `model.init` or `--validate`.
        role: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// The output directory already holds a run, and `--resume` was not given.
    #[error("{dir}: holds a training run (checkpoint.bin): continue it with --resume, or choose another --out")]
    ExistingRun {
        /// The directory.
        dir: String,
    },
    /// `--resume` with no checkpoint, a damaged one, or one of another configuration.
    #[error("{file}: cannot resume: {reason}")]
    Checkpoint {
        /// The checkpoint file.
        file: String,
        /// What is wrong.
        reason: String,
    },
    /// An output cannot be written.
    #[error("{file}: cannot write: {error}")]
    Output {
        /// The file.
        file: String,
        /// The operating system's reason.
        error: std::io::Error,
    },
    /// The trained weights do not fit the quantised file (raw.bin and the checkpoint are written).
    #[error("{dir}/quantised.bin not written: {error}")]
    Quantise {
        /// The output directory.
        dir: String,
        /// The weight that overflows.
        error: QuantiseError,
    },
    /// The thread pool cannot be built.
    #[error("cannot start {threads} training threads: {message}")]
    Threads {
        /// Threads asked for.
        threads: usize,
        /// The pool's reason.
        message: String,
    },
}

impl ErrorClass for TrainError {
    fn class(&self) -> Failure {
        match self {
            TrainError::Config(e) => e.class(),
            TrainError::Data(e) => e.class(),
            TrainError::NoTrainingData { .. }
            | TrainError::NoValidationData { .. }
            | TrainError::Init { .. }
            | TrainError::ExistingRun { .. }
            | TrainError::Checkpoint { .. } => Failure::BadInput,
            TrainError::Output { .. }
            | TrainError::Quantise { .. }
            | TrainError::Threads { .. } => Failure::FailedRun,
        }
    }
}

/// A rayon pool of `training.threads` threads (0 = one per core) for a run's or a validation's
/// work.
fn thread_pool(configured: usize) -> Result<rayon::ThreadPool, TrainError> {
    let threads = match configured {
        0 => crate::available_cores(),
        n => n,
    };
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| TrainError::Threads {
            threads,
            message: e.to_string(),
        })
}
