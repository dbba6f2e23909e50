//! The command-line edge, a module of the binary: one clap argument struct and one `run` per
//! subcommand, and the single place that turns an error into an exit status.

pub mod bench;
pub mod dialect;
mod interrupt;
pub mod ladder;
pub mod matches;
pub mod merge;
pub mod openings;
pub mod perft;
pub mod shard;
pub mod spsa;
pub mod stats;
pub mod tablebase;
pub mod tune;
pub mod uci;

use sparring::arena::ArenaError;
use sparring::board::FenError;
use sparring::eval::WeightsError;
use sparring::openings::generate::GenerateError;
use sparring::openings::OpeningsError;
use sparring::stats::StatsError;
use sparring::tablebase::TablebaseError;
use sparring::toml_config::ConfigError;
use sparring::tune::ladder::LoopError;
use sparring::tune::TuneError;
use std::process::ExitCode;

/// An error in the user's input found by the command line itself (a bad flag combination, an
/// output path that is a directory): exit status 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// Why a command failed, which decides its exit status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureKind {
    /// The input or the command line is wrong; the user must change it (status 2).
    BadInput,
    /// The run itself failed: I/O, an engine that cannot start (status 1).
    RunFailed,
}

impl FailureKind {
    /// The process exit status of this kind of failure.
    pub fn exit_code(self) -> ExitCode {
        match self {
            FailureKind::BadInput => ExitCode::from(2),
            FailureKind::RunFailed => ExitCode::from(1),
        }
    }
}

/// Classifies an error by the first typed error in its chain that says what kind it is; an error
/// nothing recognises (a bare I/O error, say) is a failed run, never bad input.
pub fn failure_kind(err: &anyhow::Error) -> FailureKind {
    err.chain()
        .find_map(classify)
        .unwrap_or(FailureKind::RunFailed)
}

/// The error and its causes joined by `: `, leaving out a cause whose text the message already
/// holds (library errors often say their source in their own message and also chain it).
pub fn error_chain(err: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in err.chain() {
        let part = cause.to_string();
        if text.contains(&part) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&part);
    }
    text
}

/// The kind of one library error, `None` for an error type this function does not know.
fn classify(err: &(dyn std::error::Error + 'static)) -> Option<FailureKind> {
    use FailureKind::{BadInput, RunFailed};
    if err.is::<UsageError>()
        || err.is::<FenError>()
        || err.is::<StatsError>()
        || err.is::<OpeningsError>()
        // A configuration the user named, unreadable or wrong, is input to fix.
        || err.is::<ConfigError>()
    {
        return Some(BadInput);
    }
    if let Some(e) = err.downcast_ref::<WeightsError>() {
        return Some(match e {
            WeightsError::Write { .. } => RunFailed,
            _ => BadInput,
        });
    }
    if let Some(e) = err.downcast_ref::<TuneError>() {
        return Some(if e.is_bad_input() {
            BadInput
        } else {
            RunFailed
        });
    }
    if let Some(e) = err.downcast_ref::<LoopError>() {
        return Some(if e.is_bad_input() {
            BadInput
        } else {
            RunFailed
        });
    }
    if let Some(e) = err.downcast_ref::<ArenaError>() {
        return Some(if e.is_bad_input() {
            BadInput
        } else {
            RunFailed
        });
    }
    if let Some(e) = err.downcast_ref::<TablebaseError>() {
        return Some(if e.is_bad_input() {
            BadInput
        } else {
            RunFailed
        });
    }
    if let Some(e) = err.downcast_ref::<GenerateError>() {
        return Some(match e {
            // The window and limits were valid; the run did not find enough positions.
            GenerateError::GaveUp { .. } => RunFailed,
            _ => BadInput,
        });
    }
    None
}

/// `--dump-config FILE`: writes the TOML form of a match configuration (what `sparring match
/// FILE` reads back as the same configuration).
pub fn write_config_dump(
    config: &sparring::arena::MatchConfig,
    path: &std::path::Path,
) -> anyhow::Result<()> {
    if path.is_dir() {
        return Err(UsageError(format!(
            "--dump-config {}: is a directory, expected a file",
            path.display()
        ))
        .into());
    }
    std::fs::write(path, config.to_toml())
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
    eprintln!("wrote {}", path.display());
    Ok(())
}

/// Parses a thread or concurrency count: at most the machine's available parallelism (0 stays
/// 0, for flags where it means "one per core").
pub fn parse_thread_count(text: &str) -> Result<usize, String> {
    let count: usize = text
        .parse()
        .map_err(|_| format!("`{text}` is not a non-negative integer"))?;
    let available = sparring::available_cores();
    if count > available {
        return Err(format!(
            "{count} is more than the {available} threads this machine runs in parallel"
        ));
    }
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cause_already_in_the_message_is_said_once() {
        let io = std::io::Error::other("disk full");
        let err = anyhow::Error::new(io).context("cannot write x: disk full");
        assert_eq!(error_chain(&err), "cannot write x: disk full");
        let err = anyhow::Error::new(std::io::Error::other("gone")).context("cannot read y");
        assert_eq!(error_chain(&err), "cannot read y: gone");
    }

    #[test]
    fn io_errors_are_failed_runs_and_input_errors_are_bad_input() {
        let io = anyhow::Error::new(std::io::Error::other("disk full")).context("cannot write x");
        assert_eq!(failure_kind(&io), FailureKind::RunFailed);
        let usage = anyhow::Error::new(UsageError("bad".into())).context("while parsing");
        assert_eq!(failure_kind(&usage), FailureKind::BadInput);
        let tune_io = anyhow::Error::new(TuneError::Output {
            file: "w.toml".into(),
            error: std::io::Error::other("read-only"),
        });
        assert_eq!(failure_kind(&tune_io), FailureKind::RunFailed);
        let arena_io = anyhow::Error::new(ArenaError::Io {
            path: "out/games.pgn".into(),
            source: std::io::Error::other("read-only"),
        });
        assert_eq!(failure_kind(&arena_io), FailureKind::RunFailed);
    }

    #[test]
    fn thread_counts_are_bounded_by_the_machine() {
        assert_eq!(parse_thread_count("0"), Ok(0));
        assert_eq!(parse_thread_count("1"), Ok(1));
        assert!(parse_thread_count("100000")
            .unwrap_err()
            .contains("threads this machine runs in parallel"));
        assert!(parse_thread_count("-1").is_err());
    }
}
