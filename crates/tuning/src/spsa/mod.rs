//! SPSA tuning through games (issue 14): any parameter of the built-in engine (evaluation
//! weights and search constants, by dotted name) or an external engine's UCI options, tuned by
//! simultaneous perturbation between θ+cΔ and θ−cΔ in colour-reversed pairs.
//!
//! - `names`: the dotted names and their values, through `EvalParams` and `SearchParams`.
//! - `gains`: the gain sequences, OpenBench's c_end/r_end conversion and its input lines.
//! - `plan`: one iteration's seeded perturbation, the rounding for engines, the update.
//! - `run`: games in parallel, the run directory and `--resume`; the games are an injectable
//!   `Objective` (the built-in engine, an external one, or a synthetic one in tests).
//! - `shards`: one chain split over N processes (`--shard I/N --shared DIR`), each playing a
//!   block of every iteration's pairs, meeting at a barrier of files after each iteration.
//! - `config`: the TOML configuration (its parameters in `params`); `games`: the objectives
//!   that play real games.

pub(crate) mod config;
pub(crate) mod gains;
pub(crate) mod games;
pub(crate) mod names;
pub(crate) mod page;
mod params;
pub(crate) mod plan;
pub(crate) mod run;
pub(crate) mod shards;
pub(crate) mod svg;

pub use config::{SpsaConfig, SpsaEngine, SpsaOpenings};
pub use gains::{format_param_line, parse_param_line, GainSchedule, Gains, ParamLine};
pub use games::{BuiltinObjective, UciObjective};
pub use names::{resolve, EngineParams, NamedTarget, Phase, Target};
pub use page::write_spsa_report;
pub use plan::{Perturbation, SpsaParam, SpsaPlan};
pub use run::{
    run_spsa, GameJob, GameOutcome, GameWorker, Objective, RunOptions, SpsaEvent, SpsaSummary,
};
pub use shards::{check_split, run_spsa_shard, shard_pairs};

use crate::error::{ErrorClass, Failure};
use crate::search::ParamKind;
use std::path::PathBuf;
use thiserror::Error;

/// Why an SPSA run failed or refused to start.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum SpsaError {
    /// The configuration file (or a weights or search file it names).
    #[error(transparent)]
    Config(#[from] crate::toml_config::ConfigError),
    /// The opening book cannot be used.
    #[error("{config}: {source}")]
    Openings {
        /// The configuration file that names the book.
        config: String,
        /// Why the book cannot be used.
        source: crate::arena::BookSetupError,
    },
    /// An engine cannot be started or created.
    #[error("engine: {0}")]
    Engine(#[source] crate::arena::PlayerError),
    /// A file of the run directory cannot be written or read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// Another process holds the run directory, or its lock file cannot be made.
    #[error(transparent)]
    Lock(#[from] crate::arena::LockError),
    /// The directory holds a run and `--resume` was not given.
    #[error("{}: holds an SPSA run; continue it with --resume, or choose another --out", dir.display())]
    RunExists {
        /// The run directory.
        dir: PathBuf,
    },
    /// `--resume` on a directory whose pairs.csv holds finished pairs but that has no
    /// state.toml (a directory with no run yet, or one killed during its setup, just starts).
    #[error("{}: no SPSA run to resume: pairs.csv holds finished pairs but there is no state.toml; restore it, or choose another --out", dir.display())]
    NothingToResume {
        /// The directory.
        dir: PathBuf,
    },
    /// `--resume` with a configuration that decides the run differently.
    #[error("{}: the run was started with a different configuration ({keys} changed); resume it with the same one, or choose another --out", dir.display())]
    Changed {
        /// The run directory.
        dir: PathBuf,
        /// What changed.
        keys: String,
    },
    /// A run file that cannot be read back (damaged or edited): the message names the key or
    /// line. Bad input: the user must restore the file or start a new run.
    #[error("{}: cannot be read back: {message}", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The configuration's engine is not the kind the objective plays (the built-in engine's
    /// objective given an external engine, or the other way round).
    #[error("the configuration's engine is not {expected}")]
    WrongEngine {
        /// What the objective plays: "the built-in one" or "an external one".
        expected: &'static str,
    },
    /// A split in which some shard would play no pair of an iteration.
    #[error("{shards} shards for {pairs} pairs per iteration: some shards would play no pair; use at most {pairs} shards, or raise spsa.pairs_per_iteration to at least {shards}")]
    TooManyShards {
        /// The shard count asked for.
        shards: u64,
        /// The pairs of one iteration.
        pairs: u64,
    },
    /// A shard waited at an iteration's barrier longer than `--barrier-timeout`.
    #[error("iteration {iteration}: waited {seconds} s for the other shards; still missing: {missing} (start those shards, or --resume this one later)")]
    BarrierTimeout {
        /// The 1-based iteration.
        iteration: u64,
        /// How long it waited.
        seconds: u64,
        /// The pair files that did not come, comma-separated.
        missing: String,
    },
    /// A shard's file in the shared directory comes from another run: another configuration,
    /// another shard count or another iteration than the file's name says.
    #[error("{}: {message}", path.display())]
    ShardMismatch {
        /// The file (or directory) that does not belong.
        path: PathBuf,
        /// What differs and what to do.
        message: String,
    },
}

impl ErrorClass for SpsaError {
    fn class(&self) -> Failure {
        match self {
            SpsaError::Config(source) => source.class(),
            SpsaError::Openings { source, .. } => source.class(),
            SpsaError::Engine(source) => source.class(),
            SpsaError::Lock(source) => source.class(),
            SpsaError::RunExists { .. }
            | SpsaError::NothingToResume { .. }
            | SpsaError::Changed { .. }
            | SpsaError::Corrupt { .. }
            | SpsaError::WrongEngine { .. }
            | SpsaError::TooManyShards { .. }
            | SpsaError::ShardMismatch { .. } => Failure::BadInput,
            SpsaError::Io { .. } | SpsaError::BarrierTimeout { .. } => Failure::FailedRun,
        }
    }
}

/// The tuned values as files loadable by the engine: for the built-in engine, the search file
/// (`--search`) and/or the weights file (`--weights`), named `tuned.toml` when only one kind is
/// tuned and `tuned-search.toml` / `tuned-weights.toml` when both are; for an external engine,
/// `tuned.toml` with the options as `name = value` lines for a match configuration's
/// `uci.options`. Integers are rounded to the nearest.
pub fn tuned_files(config: &SpsaConfig, theta: &[f64]) -> Vec<(String, String)> {
    let header = |what: &str| {
        format!(
            "# Tuned by `sparring spsa {}` ({} parameters; {what}).\n#\n",
            config.source,
            config.plan.params.len()
        )
    };
    match &config.engine {
        SpsaEngine::Builtin { base, targets, .. } => {
            let params = games::with_values(base, targets, theta);
            let search = targets.iter().any(|t| matches!(t, Target::Search(_)));
            let weights = targets.iter().any(|t| matches!(t, Target::Weight { .. }));
            let mut files = Vec::new();
            if search {
                let name = if weights {
                    "tuned-search.toml"
                } else {
                    "tuned.toml"
                };
                let text = params
                    .search
                    .to_toml_string_with_header(&header("load with --search"));
                files.push((name.to_string(), text));
            }
            if weights {
                let name = if search {
                    "tuned-weights.toml"
                } else {
                    "tuned.toml"
                };
                let text = params
                    .eval
                    .to_toml_string_with_header(&header("load with --weights"));
                files.push((name.to_string(), text));
            }
            files
        }
        SpsaEngine::Uci { .. } => {
            let mut text = header("the options for a match configuration's `uci.options`");
            for (p, &v) in config.plan.params.iter().zip(theta) {
                let value = match p.kind {
                    ParamKind::Int => format!("{}", v.round() as i64),
                    ParamKind::Float => format!("{v:?}"),
                };
                text.push_str(&format!("{:?} = {value}\n", p.name));
            }
            vec![("tuned.toml".to_string(), text)]
        }
    }
}
