//! Why a report could not be written: a run directory's file that cannot be read or is not
//! what sparring writes, or a directory that holds no run.

use crate::error::{ErrorClass, Failure};
use std::path::PathBuf;

/// What went wrong building or writing a `report.html`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReportError {
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A file of the run directory is not what sparring writes there.
    #[error("{}: {message}", path.display())]
    BadFile {
        /// The file.
        path: PathBuf,
        /// What is wrong, with its line where known.
        message: String,
    },
    /// The directory holds none of the files a run writes.
    #[error("{}: not a run directory (no games.csv, summary.csv, tune, SPSA, loop or datagen files)", dir.display())]
    NotARun {
        /// The directory.
        dir: PathBuf,
    },
}

impl ErrorClass for ReportError {
    fn class(&self) -> Failure {
        match self {
            ReportError::Io { .. } => Failure::FailedRun,
            ReportError::BadFile { .. } | ReportError::NotARun { .. } => Failure::BadInput,
        }
    }
}

impl ReportError {
    /// An I/O error of `path`, for `map_err`.
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> ReportError {
        let path = path.into();
        move |source| ReportError::Io { path, source }
    }

    /// A parse error of `path`, for `map_err`.
    pub fn bad_file<E: std::fmt::Display>(
        path: impl Into<PathBuf>,
    ) -> impl FnOnce(E) -> ReportError {
        let path = path.into();
        move |e| ReportError::BadFile {
            path,
            message: e.to_string(),
        }
    }
}

/// A file of the run directory as text; None when it does not exist.
pub fn read_optional(path: &std::path::Path) -> Result<Option<String>, ReportError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(ReportError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}
