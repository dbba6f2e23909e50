//! The shard options `match` and `spsa` share: `--shard I/N`, `--shard env`,
//! `--shard-from-env` and `--shards N`, and how a scheduler's environment names the shard.

use super::UsageError;
use anyhow::Context;
use sparring::arena::Shard;

/// Which shard of a split run this process plays.
#[derive(Debug, Default, clap::Args)]
pub struct ShardArgs {
    /// Play only shard I of N (0-based I); `env` takes the shard from the scheduler (see
    /// --shard-from-env).
    #[arg(long = "shard", value_name = "I/N", conflicts_with = "shard_from_env")]
    pub spec: Option<String>,
    /// Take the shard from the scheduler: SLURM_ARRAY_TASK_ID (less SLURM_ARRAY_TASK_MIN) of
    /// SLURM_ARRAY_TASK_COUNT (with --shards N: the id itself of N), or Kubernetes'
    /// JOB_COMPLETION_INDEX of --shards N.
    #[arg(long)]
    pub shard_from_env: bool,
    /// The number of shards, with --shard-from-env (required for JOB_COMPLETION_INDEX).
    #[arg(long, value_name = "N")]
    pub shards: Option<u64>,
}

impl ShardArgs {
    /// The shard the options ask for; None for a whole run. A shard out of range stays a
    /// `ShardError` in the chain, classified as the library classifies it.
    pub fn requested(&self) -> anyhow::Result<Option<Shard>> {
        let from_env = self.shard_from_env;
        let spec = self.spec.as_deref();
        if self.shards.is_some() && !from_env && spec != Some("env") {
            return Err(UsageError(
                "--shards goes with --shard env; otherwise write --shard I/N".to_string(),
            )
            .into());
        }
        match spec {
            Some("env") => shard_from_env(scheduler_var, self.shards, "--shard env").map(Some),
            Some(text) => Shard::parse(text).map(Some).context("--shard"),
            None if from_env => {
                shard_from_env(scheduler_var, self.shards, "--shard-from-env").map(Some)
            }
            None => Ok(None),
        }
    }
}

/// A scheduler variable as text; one that is not UTF-8 is kept (lossily), so it is refused as
/// not a number, naming it, instead of being taken for unset.
fn scheduler_var(name: &str) -> Option<String> {
    std::env::var_os(name).map(|v| v.to_string_lossy().into_owned())
}

/// The shard a scheduler's environment names (`var` looks a variable up): Slurm's array task
/// (index `SLURM_ARRAY_TASK_ID` less `SLURM_ARRAY_TASK_MIN` of `SLURM_ARRAY_TASK_COUNT`; with
/// `shards` given, the id itself of `shards`, so an array can be one wave of a larger split)
/// or Kubernetes' `JOB_COMPLETION_INDEX` (count from `shards`). Errors name `flag`, the option
/// as the user typed it (`--shard env` or `--shard-from-env`).
pub fn shard_from_env(
    var: impl Fn(&str) -> Option<String>,
    shards: Option<u64>,
    flag: &str,
) -> anyhow::Result<Shard> {
    let number =
        |name: &str| -> Result<Option<u64>, UsageError> {
            match var(name) {
                None => Ok(None),
                Some(text) => text.trim().parse().map(Some).map_err(|_| {
                    UsageError(format!("{flag}: {name}={text:?} is not a whole number"))
                }),
            }
        };
    let (index, count, source) = if let Some(id) = number("SLURM_ARRAY_TASK_ID")? {
        match shards {
            // The array may be one wave of a larger split: its ids are the shard indexes.
            Some(n) => (id, n, "SLURM_ARRAY_TASK_ID"),
            // The array is the whole run (`--array=0-63` or `1-64`): ids counted from its min.
            None => {
                let count = number("SLURM_ARRAY_TASK_COUNT")?.ok_or_else(|| {
                    UsageError(format!(
                        "{flag}: SLURM_ARRAY_TASK_ID is set but \
                         SLURM_ARRAY_TASK_COUNT is not; give the count with --shards N"
                    ))
                })?;
                let min = number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
                let index = id.checked_sub(min).ok_or_else(|| {
                    UsageError(format!(
                        "{flag}: SLURM_ARRAY_TASK_ID={id} is below \
                         SLURM_ARRAY_TASK_MIN={min}"
                    ))
                })?;
                (index, count, "SLURM_ARRAY_TASK_ID")
            }
        }
    } else if let Some(index) = number("JOB_COMPLETION_INDEX")? {
        let count = shards.ok_or_else(|| {
            UsageError(format!(
                "{flag}: JOB_COMPLETION_INDEX is set; give the Job's completions \
                 count with --shards N"
            ))
        })?;
        (index, count, "JOB_COMPLETION_INDEX")
    } else {
        return Err(UsageError(format!(
            "{flag}: neither SLURM_ARRAY_TASK_ID (Slurm job arrays) nor \
             JOB_COMPLETION_INDEX (Kubernetes Indexed Jobs) is set"
        ))
        .into());
    };
    Shard::new(index, count).with_context(|| format!("{flag} ({source})"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn the_scheduler_environment_gives_the_shard() {
        let slurm = [
            ("SLURM_ARRAY_TASK_ID", "5"),
            ("SLURM_ARRAY_TASK_COUNT", "64"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
        ];
        // --array=1-64: ids from 1.
        assert_eq!(
            shard_from_env(env(&slurm), None, "--shard env")
                .unwrap()
                .to_string(),
            "4/64"
        );
        // One wave of a 256-way split: the id is the shard index.
        assert_eq!(
            shard_from_env(env(&slurm), Some(256), "--shard env")
                .unwrap()
                .to_string(),
            "5/256"
        );
        let k8s = [("JOB_COMPLETION_INDEX", "3")];
        assert_eq!(
            shard_from_env(env(&k8s), Some(4), "--shard env")
                .unwrap()
                .to_string(),
            "3/4"
        );
        assert!(shard_from_env(env(&k8s), None, "--shard env").is_err());
        assert!(shard_from_env(env(&k8s), Some(3), "--shard env").is_err());
        let below = [
            ("SLURM_ARRAY_TASK_ID", "0"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
        ];
        assert!(shard_from_env(env(&below), None, "--shard env")
            .unwrap_err()
            .to_string()
            .contains("below SLURM_ARRAY_TASK_MIN=1"));
        assert!(shard_from_env(env(&[]), Some(4), "--shard env").is_err());
    }

    /// A shard out of range reaches the command line as the library's `ShardError` (bad
    /// input, exit status 2), with the option it came from in front.
    #[test]
    fn a_bad_shard_stays_a_typed_error() {
        use sparring::arena::ShardError;
        use sparring::error::Failure;
        let args = ShardArgs {
            spec: Some("4/4".to_string()),
            ..ShardArgs::default()
        };
        let err = args.requested().unwrap_err();
        assert_eq!(
            err.downcast_ref::<ShardError>(),
            Some(&ShardError::OutOfRange { index: 4, count: 4 })
        );
        assert_eq!(crate::cli::failure(&err), Failure::BadInput);
        assert!(
            crate::cli::error_chain(&err).starts_with("--shard: shard index 4"),
            "{err:#}"
        );
        let k8s = [("JOB_COMPLETION_INDEX", "3")];
        let err = shard_from_env(env(&k8s), Some(3), "--shard env").unwrap_err();
        assert_eq!(crate::cli::failure(&err), Failure::BadInput);
        assert!(
            crate::cli::error_chain(&err)
                .starts_with("--shard env (JOB_COMPLETION_INDEX): shard index 3"),
            "{err:#}"
        );
    }
}
