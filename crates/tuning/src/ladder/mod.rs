//! The self-play tuning loop (`sparring loop`): generations of play, record, tune and gate.
//!
//! Each generation the champion plays itself and its quiet positions are recorded (`selfplay`),
//! a challenger is Texel-tuned from the champion's weights over the positions of the last
//! `window` generations (`tune`), optionally its search constants are SPSA-tuned (`spsa`), and
//! the challenger plays the champion under an SPRT (`gate`):
//! H1 accepted promotes it. Every few generations the champion plays a fixed outside panel
//! (`anchor`), so the ladder has absolute Elo as well as self-play deltas.
//!
//! A run directory holds one directory per generation with each stage's own configuration and
//! output (a match directory, a tuner directory), `generations.csv`, `ladder.svg` and the
//! current champion's files. Every stage resumes as its own command does (`--resume` of match;
//! a tune is rerun, it is deterministic), and a finished generation is never played again. The
//! loop is deterministic for a configuration and seed: stage seeds are derived from the seed, the
//! recorded positions are put in game order before the tune reads them, and the gate's SPRT is
//! read at the ends of waves of pairs, never in the order concurrent games happen to finish.

pub(crate) mod config;
pub(crate) mod network;
pub(crate) mod page;
mod record;
mod run;
mod staged;
mod stages;
pub(crate) mod svg;

pub use config::{Champion, EngineFiles, LoopConfig};
pub use network::{NetworkStages, TrainInit};
pub use page::write_loop_report;
pub use record::{read_rows, GenerationRow, GENERATIONS_FILE};
pub(crate) use run::LOOP_MANIFEST;
pub use run::{run_loop, LoopOptions, LoopSummary};
pub use staged::StagePlan;

use crate::arena::{ArenaError, BookSetupError, LockError, MergeError};
use crate::datagen::DatagenError;
use crate::error::{ErrorClass, Failure};
use crate::eval::WeightsError;
use crate::nnue::NetworkError;
use crate::spsa::SpsaError;
use crate::texel::TuneError;
use crate::toml_config::ConfigError;
use crate::train::TrainError;
use std::path::PathBuf;
use std::time::Duration;
use thiserror::Error;

/// The stages of a generation, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The champion plays itself; positions are recorded.
    Selfplay,
    /// The challenger is Texel-tuned.
    Tune,
    /// The challenger's search constants are SPSA-tuned.
    Spsa,
    /// A network loop's champion writes training data.
    Datagen,
    /// A network loop's challenger network is trained.
    Train,
    /// Challenger against champion under the SPRT.
    Gate,
    /// The champion against the outside panel.
    Anchor,
}

impl Stage {
    /// The stage's name (its directory and table name).
    pub fn name(self) -> &'static str {
        match self {
            Stage::Selfplay => "selfplay",
            Stage::Tune => "tune",
            Stage::Spsa => "spsa",
            Stage::Datagen => "datagen",
            Stage::Train => "train",
            Stage::Gate => "gate",
            Stage::Anchor => "anchor",
        }
    }
}

impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Progress of a loop, for a front end to display.
#[derive(Debug)]
pub enum LoopEvent<'a> {
    /// The run starts: generations already finished (resumed) and the last to play.
    Started {
        /// Generations found finished in the directory.
        finished: u32,
        /// The last generation this run plays.
        last: u32,
    },
    /// A stage of a generation starts.
    StageStarted {
        /// 1-based generation.
        generation: u32,
        /// The stage.
        stage: Stage,
    },
    /// A game of a match stage finished.
    Game {
        /// 1-based generation.
        generation: u32,
        /// The stage.
        stage: Stage,
        /// Games of the stage done (resumed ones included).
        done: u64,
        /// Games of the stage (for the gate: of the wave being played).
        total: u64,
        /// Time since the stage (or wave) started.
        elapsed: Duration,
    },
    /// A tuning epoch finished.
    Epoch {
        /// 1-based generation.
        generation: u32,
        /// The epoch (0 is the start).
        epoch: usize,
        /// Its training error.
        train_mse: f64,
    },
    /// A stage finished.
    StageFinished {
        /// 1-based generation.
        generation: u32,
        /// The stage.
        stage: Stage,
        /// What it gave, in a few words (`4,000 positions`, `H1 after 240 games`).
        outcome: String,
    },
    /// Book lines a stage's openings file could not use.
    SkippedOpenings {
        /// The stage.
        stage: Stage,
        /// How many lines.
        count: usize,
    },
    /// A generation finished; its row is in generations.csv.
    GenerationFinished(&'a GenerationRow),
}

/// Why a loop could not run or had to stop.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum LoopError {
    /// The loop's configuration (or a stage made from it) is wrong.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The starting champion's weights cannot be loaded.
    #[error("champion.weights: {0}")]
    Weights(#[from] WeightsError),
    /// A stage's openings cannot be used.
    #[error("{stage} openings: {source}")]
    Openings {
        /// The stage.
        stage: Stage,
        /// What is wrong with the book.
        source: BookSetupError,
    },
    /// A match stage failed.
    #[error("generation {generation}, {stage}: {source}")]
    Match {
        /// 1-based generation.
        generation: u32,
        /// The stage.
        stage: Stage,
        /// The runner's error.
        source: ArenaError,
    },
    /// The tune failed.
    #[error("generation {generation}, tune: {source}")]
    Tune {
        /// 1-based generation.
        generation: u32,
        /// The tuner's error.
        source: TuneError,
    },
    /// The SPSA stage failed.
    #[error("generation {generation}, spsa: {source}")]
    Spsa {
        /// 1-based generation.
        generation: u32,
        /// The SPSA run's error.
        source: SpsaError,
    },
    /// A network loop's data run failed.
    #[error("generation {generation}, datagen: {source}")]
    Datagen {
        /// 1-based generation.
        generation: u32,
        /// The data run's error (boxed: it is large, and rare).
        source: Box<DatagenError>,
    },
    /// A network loop's training run failed.
    #[error("generation {generation}, train: {source}")]
    Train {
        /// 1-based generation.
        generation: u32,
        /// The trainer's error.
        source: TrainError,
    },
    /// The starting champion's network cannot be loaded.
    #[error("champion.net: {0}")]
    Network(#[from] NetworkError),
    /// A file of `champion.data` cannot be read.
    #[error("champion.data: {}: {source}", path.display())]
    ChampionData {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// `--staged` with a network loop, whose data and training stages are not match stages.
    #[error("--staged plays a loop's match stages as shards elsewhere; a network loop's datagen and train stages are not matches: run it without --staged (or shard its datagen by hand with `sparring datagen --shard`)")]
    StagedNetwork,
    /// Merging the gate's waves failed.
    #[error("generation {generation}, gate: {source}")]
    Merge {
        /// 1-based generation.
        generation: u32,
        /// The merge's error.
        source: MergeError,
    },
    /// The shards of a match stage played elsewhere (`--staged`) cannot be merged: they are
    /// the user's (or the cluster driver's), so the merge's own class decides, as in
    /// `sparring merge`.
    #[error("generation {generation}, {stage} shards: {source}")]
    Shards {
        /// 1-based generation.
        generation: u32,
        /// The stage.
        stage: Stage,
        /// The merge's error.
        source: MergeError,
    },
    /// An engine a stage of this run will play could not be started (checked before the
    /// first game, so a bad anchor command does not wait hours for its stage).
    #[error("{stage}: {detail}; checked before the first game, nothing was played")]
    Engines {
        /// The stage whose engines were checked.
        stage: Stage,
        /// The runner's message, with the engine's command when it does not say it.
        detail: String,
        /// The runner's error, naming the engine (boxed: it is large, and rare).
        source: Box<ArenaError>,
    },
    /// The run directory names a file.
    #[error("{} is a file, not a directory: the loop's run directory (--out or output.dir) must be a directory or not exist yet", dir.display())]
    OutputNotDirectory {
        /// The path given.
        dir: PathBuf,
    },
    /// `--resume` into a directory that holds something, but no loop.
    #[error("{} holds no loop to resume (it is not empty and has no {LOOP_MANIFEST}): resume in the loop's own run directory, or start a new loop in an empty or new one; nothing in it was touched", dir.display())]
    NothingToResume {
        /// The output directory.
        dir: PathBuf,
    },
    /// Reading or writing a file of the run failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The output directory is held by another run.
    #[error(transparent)]
    Lock(#[from] LockError),
    /// A new run into a directory that holds something.
    #[error("{} is not empty: pass --resume to continue the loop in it, or choose another output directory", dir.display())]
    OutputExists {
        /// The output directory.
        dir: PathBuf,
    },
    /// `--resume` with a configuration other than the run's.
    #[error("the configuration differs from the loop in {} ({LOOP_MANIFEST}): {changes}; resume with the same settings (only `generations` may change), or start a new run in another directory", dir.display())]
    Mismatch {
        /// The output directory.
        dir: PathBuf,
        /// The keys that differ, with both values.
        changes: String,
    },
    /// A file of the run directory is not what the loop wrote.
    #[error("{}: {message}", path.display())]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
}

impl ErrorClass for LoopError {
    fn class(&self) -> Failure {
        match self {
            LoopError::Config(source) => source.class(),
            LoopError::Weights(source) => source.class(),
            LoopError::Openings { source, .. } => source.class(),
            LoopError::Match { source, .. } => source.class(),
            LoopError::Tune { source, .. } => source.class(),
            LoopError::Spsa { source, .. } => source.class(),
            LoopError::Datagen { source, .. } => source.class(),
            LoopError::Train { source, .. } => source.class(),
            LoopError::Network(source) => source.class(),
            LoopError::Lock(source) => source.class(),
            LoopError::Shards { source, .. } => source.class(),
            LoopError::Engines { source, .. } => source.class(),
            LoopError::OutputExists { .. }
            | LoopError::OutputNotDirectory { .. }
            | LoopError::NothingToResume { .. }
            | LoopError::Mismatch { .. }
            | LoopError::ChampionData { .. }
            | LoopError::StagedNetwork
            | LoopError::Damaged { .. } => Failure::BadInput,
            // The gate merges the loop's own directories: a failure there is the run's.
            LoopError::Merge { .. } | LoopError::Io { .. } => Failure::FailedRun,
        }
    }
}

/// An I/O error's constructor for `path`.
fn io_error(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> LoopError + '_ {
    move |source| LoopError::Io {
        path: path.to_path_buf(),
        source,
    }
}
