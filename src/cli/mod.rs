//! The command-line edge, a module of the binary: one clap argument struct and one `run` per
//! subcommand, and the single place that turns an error into an exit status.

/// `println!` that returns the write's `std::io::Result<()>`: `println!` panics when standard
/// output is a closed pipe (`sparring stats ... | head -1`), this error ends the command quietly.
// Defined before the modules below so that every subcommand's module can use it.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)
    }};
}

/// `print!` that returns the write's `std::io::Result<()>`, as [`outln!`] does for `println!`.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        write!(std::io::stdout().lock(), $($arg)*)
    }};
}

pub mod bench;
pub mod data;
pub mod datagen;
pub mod dialect;
pub mod eval;
mod interrupt;
pub mod ladder;
pub mod matches;
pub mod merge;
pub mod openings;
pub mod perft;
pub mod ratings;
pub mod report;
pub mod shard;
pub mod spsa;
pub mod stats;
pub mod tablebase;
pub mod train;
pub mod tune;
pub mod uci;

use sparring::{ErrorClass, Failure};
use std::process::ExitCode;

/// An error in the user's input found by the command line itself (a bad flag combination, an
/// output path that is a directory): exit status 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

impl ErrorClass for UsageError {
    fn class(&self) -> Failure {
        Failure::BadInput
    }
}

/// The process exit status of a failed command: the one place the error policy
/// ([`sparring::ErrorClass`]) becomes a status.
pub fn exit_code(failure: Failure) -> ExitCode {
    match failure {
        Failure::BadInput => ExitCode::from(2),
        Failure::FailedRun => ExitCode::from(1),
    }
}

/// Classifies an error by the first error in its chain whose type has a class (the outermost
/// knows best); an error nothing classifies (a bare I/O error, say) is a failed run.
pub fn failure(err: &anyhow::Error) -> Failure {
    err.chain()
        .find_map(|cause| {
            cause
                .downcast_ref::<UsageError>()
                .map(ErrorClass::class)
                .or_else(|| sparring::class_of(cause))
        })
        .unwrap_or(Failure::FailedRun)
}

/// Whether the error comes from writing to a closed pipe (the reader, `head` say, went away):
/// the command then ends quietly with status 0, as `head` expects of a writer.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
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
        use sparring::arena::{ArenaError, LockError};
        use sparring::spsa::SpsaError;
        use sparring::texel::TuneError;
        let io = anyhow::Error::new(std::io::Error::other("disk full")).context("cannot write x");
        assert_eq!(failure(&io), Failure::FailedRun);
        let usage = anyhow::Error::new(UsageError("bad".into())).context("while parsing");
        assert_eq!(failure(&usage), Failure::BadInput);
        let tune_io = anyhow::Error::new(TuneError::Output {
            file: "w.toml".into(),
            error: std::io::Error::other("read-only"),
        });
        assert_eq!(failure(&tune_io), Failure::FailedRun);
        let arena_io = anyhow::Error::new(ArenaError::Io {
            path: "out/games.pgn".into(),
            source: std::io::Error::other("read-only"),
        });
        assert_eq!(failure(&arena_io), Failure::FailedRun);
        // Issue 22: a locked directory is bad input for every command that takes one.
        let held = || LockError::Held {
            dir: "out".into(),
            pid: 1,
            host: "here".into(),
        };
        let spsa = anyhow::Error::new(SpsaError::Lock(held())).context("spsa");
        let arena = anyhow::Error::new(ArenaError::Lock(held())).context("match");
        assert_eq!(failure(&spsa), Failure::BadInput);
        assert_eq!(failure(&arena), Failure::BadInput);
        assert_eq!(exit_code(failure(&spsa)), ExitCode::from(2));
        assert_eq!(exit_code(failure(&io)), ExitCode::from(1));
    }

    #[test]
    fn a_closed_pipe_anywhere_in_the_chain_is_a_broken_pipe() {
        use std::io::{Error, ErrorKind};
        let closed = anyhow::Error::new(Error::from(ErrorKind::BrokenPipe)).context("stats");
        assert!(is_broken_pipe(&closed));
        let other = anyhow::Error::new(Error::other("disk full")).context("cannot write x");
        assert!(!is_broken_pipe(&other));
        assert!(!is_broken_pipe(&anyhow::anyhow!(
            "broken pipe, in words only"
        )));
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
