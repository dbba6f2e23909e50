//! The loop staged for a cluster (`sparring loop --staged`): the match stages are played
//! elsewhere as shards (`sparring match --shard I/N`, gate waves with `--wave K`) and merged
//! here, so a loop spread over many machines gives the one-machine generations.

use super::stages::Generation;
use super::{io_error, LoopError, Stage};
use crate::arena::Wave;
use crate::arena::{merge_shards, MatchConfig, MergeOptions, MergeReport, PairingStats};
use crate::toml_config::ConfigError;
use std::path::{Path, PathBuf};

/// A match stage (or gate wave) left to shards played elsewhere (`sparring loop --staged`):
/// shard I of N runs `sparring match CONFIG [--wave K --wave-pairs W] --shard I/N --out
/// SHARDS/shard-I-of-N --resume`, and the next `--staged` run merges them and goes on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StagePlan {
    /// 1-based generation.
    pub generation: u32,
    /// The stage (selfplay, gate or anchor).
    pub stage: Stage,
    /// The stage's match configuration (`gen-NNN/<stage>.toml`).
    pub config: PathBuf,
    /// The gate's wave to play.
    pub wave: Option<Wave>,
    /// The directory the shards write into, one `shard-I-of-N` each.
    pub shards: PathBuf,
}

/// Why a stage stopped: an error, or (staged) games to be played elsewhere first.
pub(super) enum Halt {
    // Boxed: a loop error is large, and the pending plan is the common way out.
    Failed(Box<LoopError>),
    Pending(StagePlan),
}

impl From<LoopError> for Halt {
    fn from(error: LoopError) -> Halt {
        Halt::Failed(Box::new(error))
    }
}

impl From<ConfigError> for Halt {
    fn from(error: ConfigError) -> Halt {
        Halt::Failed(Box::new(LoopError::Config(error)))
    }
}

impl Generation<'_, '_> {
    /// Where the shards of a stage (or gate wave) played elsewhere go.
    pub(super) fn shards_dir(&self, stage: Stage, wave: Option<Wave>) -> PathBuf {
        let dir = self.dir.join(format!("{stage}-shards"));
        match wave {
            Some(wave) => dir.join(format!("wave-{:03}", wave.index)),
            None => dir,
        }
    }

    /// The plan that leaves a stage (or wave) to shards played elsewhere.
    pub(super) fn pending(&self, stage: Stage, wave: Option<Wave>) -> Halt {
        Halt::Pending(StagePlan {
            generation: self.number,
            stage,
            config: self.dir.join(format!("{stage}.toml")),
            wave,
            shards: self.shards_dir(stage, wave),
        })
    }

    /// The shard directories played so far for a stage (or wave), in name order.
    pub(super) fn shard_dirs(
        &self,
        stage: Stage,
        wave: Option<Wave>,
    ) -> Result<Vec<PathBuf>, LoopError> {
        let dir = self.shards_dir(stage, wave);
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io_error(&dir)(e)),
        };
        let mut dirs = Vec::new();
        for entry in entries {
            let path = entry.map_err(io_error(&dir))?.path();
            if path.is_dir() {
                dirs.push(path);
            }
        }
        dirs.sort();
        Ok(dirs)
    }

    /// Merges `dirs` into `out` (what is there), as the stage's result. Staged, the
    /// directories are shards played elsewhere: a merge refusing them is bad input, as in
    /// `sparring merge`; else they are the loop's own waves, and a failure is the run's.
    pub(super) fn merge(
        &self,
        stage: Stage,
        out: &Path,
        dirs: &[PathBuf],
    ) -> Result<MergeReport, Halt> {
        let generation = self.number;
        merge_shards(out, dirs, &MergeOptions { partial: true }).map_err(|source| {
            Halt::from(if self.staged {
                LoopError::Shards {
                    generation,
                    stage,
                    source,
                }
            } else {
                LoopError::Merge { generation, source }
            })
        })
    }

    /// A whole match stage: played here, or (staged) merged from the shards played elsewhere
    /// once they hold every game. Returns the pairings' results.
    pub(super) fn play_stage(
        &mut self,
        stage: Stage,
        config: &MatchConfig,
    ) -> Result<Vec<PairingStats>, Halt> {
        if !self.staged {
            return Ok(self.play(stage, config, None)?);
        }
        let dirs = self.shard_dirs(stage, None)?;
        if dirs.is_empty() {
            return Err(self.pending(stage, None));
        }
        let report = self.merge(stage, &config.output.dir, &dirs)?;
        if report.games < report.total_games {
            return Err(self.pending(stage, None));
        }
        Ok(report.pairings)
    }
}
