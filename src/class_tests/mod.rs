//! The workspace's error classes, every variant of every error type, through the front door's
//! [`class_of`](crate::class_of), which asks each crate's own list.
//!
//! One table per error type: every variant, constructed, and the class it must have (bad
//! input is exit status 2, a failed run 1). A variant that wraps another error is listed with
//! an inner error of each class when the class comes from the inner one.

use crate::arena::{
    ArenaError, BookSetupError, FiguresError, LockError, ManifestError, MergeError, PlayerError,
    ShardError, Slice, SliceKeyError, WaveError,
};
use crate::board::{Color, FenError, MoveParseError, SanError, Square};
use crate::data::DataError as TrainingDataError;
use crate::eval::WeightsError;
use crate::ladder::{LoopError, Stage};
use crate::openings::generate::GenerateError;
use crate::openings::{BadLine, BadLineReason, EpdOperationError, FormatNameError, OpeningsError};
use crate::record::bullet::{BulletError, BulletIndexError, ConvertError};
use crate::record::{GamesCsvError, PgnResultsError, PositionLineError};
use crate::search::SearchParamError;
use crate::search::TableAllocError;
use crate::spsa::SpsaError;
use crate::stats::{Rating, RatingsError, StatsError};
use crate::tablebase::{TableKind, TablebaseError};
use crate::texel::{DataError, Diverged, TraceError, TuneError};
use crate::toml_config::ConfigError;
use crate::uci::{PositionError, UciError};
use crate::{class_of, ErrorClass, Failure, Failure::BadInput, Failure::FailedRun};
use std::path::PathBuf;

mod arena;
mod board_and_notation;
mod files_and_data;
mod train;
mod tune;

/// Asserts each error's class, and that `class_of` finds the same class through `dyn Error`.
fn check<E: ErrorClass + std::error::Error + 'static>(cases: Vec<(E, Failure)>) {
    for (error, class) in &cases {
        assert_eq!(error.class(), *class, "{error:?}");
        assert_eq!(class_of(error), Some(*class), "{error:?}");
    }
}

fn s() -> String {
    "x".to_string()
}

fn p() -> PathBuf {
    PathBuf::from("x")
}

fn io() -> std::io::Error {
    std::io::Error::other("x")
}

fn config() -> ConfigError {
    ConfigError::Syntax {
        file: s(),
        line: 1,
        column: 1,
        message: s(),
    }
}

fn fen() -> FenError {
    FenError::FieldCount { found: 1 }
}

fn weights() -> WeightsError {
    WeightsError::Document(config())
}

fn weights_write() -> WeightsError {
    WeightsError::Write {
        file: s(),
        source: io(),
    }
}

fn trace(run_failed: bool) -> TraceError {
    TraceError {
        message: s(),
        run_failed,
    }
}

fn lock_held() -> LockError {
    LockError::Held {
        dir: p(),
        pid: 1,
        host: s(),
    }
}

fn lock_io() -> LockError {
    LockError::Io {
        path: p(),
        source: io(),
    }
}

#[test]
fn an_error_of_another_type_has_no_class_and_a_box_delegates() {
    assert_eq!(class_of(&std::fmt::Error), None);
    assert_eq!(Box::new(lock_held()).class(), BadInput);
    assert_eq!(io().class(), FailedRun);
}
