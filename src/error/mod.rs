//! The one error policy. Library functions return typed errors (thiserror enums that keep the
//! lower-level error as their `source`), never print and never exit; every error type says what
//! kind of failure it is through [`ErrorClass`], and the command line alone turns that
//! [`Failure`] into an exit status (bad input 2, a failed run 1).

/// What kind of failure an error is, which decides the command line's exit status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The input is wrong or a precondition refused it (a command line, a configuration, a
    /// file's contents, a directory in use or holding another run): the user must change
    /// something. Exit status 2.
    BadInput,
    /// The run itself failed (I/O, an engine that crashed or could not start, memory): exit
    /// status 1.
    FailedRun,
}

/// The classification every error type of the library implements, with a `match` over all its
/// variants and no wildcard, so that adding a variant forces a decision; a variant that wraps
/// another library error delegates to that error's class. The policy: bad input (the user must
/// change the command line, a file or a directory) is [`Failure::BadInput`], exit status 2; a
/// run that failed is [`Failure::FailedRun`], exit status 1. Only the binary maps the class to
/// an exit status; library code never exits.
pub trait ErrorClass {
    /// The kind of failure.
    fn class(&self) -> Failure;

    /// Whether the user's input is at fault ([`Failure::BadInput`]).
    fn is_bad_input(&self) -> bool {
        self.class() == Failure::BadInput
    }
}

impl ErrorClass for std::io::Error {
    /// The system refused: the run failed (a path the user named that is wrong is checked,
    /// and classified, where it is opened).
    fn class(&self) -> Failure {
        Failure::FailedRun
    }
}

impl<E: ErrorClass + ?Sized> ErrorClass for Box<E> {
    fn class(&self) -> Failure {
        (**self).class()
    }
}

/// The class of a type-erased error if its type (not its sources) is one of the library's
/// error types, `None` otherwise; a caller holding a chain asks each link in turn (the outer
/// error first, since a wrapper may know better than what it wraps).
pub fn class_of(err: &(dyn std::error::Error + 'static)) -> Option<Failure> {
    fn class<E: ErrorClass + std::error::Error + 'static>(
        err: &(dyn std::error::Error + 'static),
    ) -> Option<Failure> {
        err.downcast_ref::<E>().map(ErrorClass::class)
    }
    use crate::{arena, board, eval, openings, record, search, stats, tablebase, tune, uci};
    let classes = [
        class::<tune::ladder::LoopError>,
        class::<tune::spsa::SpsaError>,
        class::<tune::TuneError>,
        class::<tune::DataError>,
        class::<tune::LineError>,
        class::<tune::TraceError>,
        class::<tune::Diverged>,
        class::<arena::ArenaError>,
        class::<arena::MergeError>,
        class::<arena::GatherError>,
        class::<arena::FiguresError>,
        class::<arena::ManifestError>,
        class::<arena::manifest::SliceKeyError>,
        class::<arena::LockError>,
        class::<arena::PlayerError>,
        class::<arena::schedule::BookSetupError>,
        class::<arena::schedule::ShardError>,
        class::<arena::schedule::WaveError>,
        class::<crate::toml_config::ConfigError>,
        class::<eval::WeightsError>,
        class::<openings::OpeningsError>,
        class::<openings::BadLine>,
        class::<openings::BadLineReason>,
        class::<openings::FormatNameError>,
        class::<openings::generate::GenerateError>,
        class::<openings::EpdOperationError>,
        class::<record::GamesCsvError>,
        class::<record::PgnResultsError>,
        class::<record::PositionLineError>,
        class::<record::bullet::BulletError>,
        class::<record::bullet::BulletLineError>,
        class::<record::bullet::BulletIndexError>,
        class::<record::bullet::ConvertError>,
        class::<search::TableAllocError>,
        class::<search::params::SearchParamError>,
        class::<stats::StatsError>,
        class::<stats::RatingsError>,
        class::<tablebase::TablebaseError>,
        class::<uci::UciError>,
        class::<uci::PositionError>,
        class::<board::FenError>,
        class::<board::MoveParseError>,
        class::<board::SanError>,
        class::<board::SquareParseError>,
        class::<board::IllegalMoveError>,
    ];
    classes.iter().find_map(|class| class(err))
}

// The board's errors are all about a text or a move the caller gave: bad input. Their impls
// live here so the board's files stay the board's.
impl ErrorClass for crate::board::FenError {
    fn class(&self) -> Failure {
        use crate::board::FenError as E;
        match self {
            E::FieldCount { .. }
            | E::RankCount { .. }
            | E::BadPiece { .. }
            | E::RankTooLong { .. }
            | E::RankTooShort { .. }
            | E::MissingKing { .. }
            | E::ExtraKing { .. }
            | E::PawnOnBackRank { .. }
            | E::TooManyPieces { .. }
            | E::BadSideToMove { .. }
            | E::OpponentInCheck { .. }
            | E::ImpossibleCheck { .. }
            | E::BadCastling { .. }
            | E::CastlingMismatch { .. }
            | E::BadEnPassant { .. }
            | E::ImpossibleEnPassant { .. }
            | E::BadHalfmoveClock { .. }
            | E::BadFullmoveNumber { .. } => Failure::BadInput,
        }
    }
}

impl ErrorClass for crate::board::MoveParseError {
    fn class(&self) -> Failure {
        use crate::board::MoveParseError as E;
        match self {
            E::Malformed { .. } | E::Illegal { .. } => Failure::BadInput,
        }
    }
}

impl ErrorClass for crate::board::SanError {
    fn class(&self) -> Failure {
        use crate::board::SanError as E;
        match self {
            E::Malformed { .. } | E::Illegal { .. } | E::Ambiguous { .. } => Failure::BadInput,
        }
    }
}

impl ErrorClass for crate::board::SquareParseError {
    fn class(&self) -> Failure {
        Failure::BadInput
    }
}

impl ErrorClass for crate::board::IllegalMoveError {
    fn class(&self) -> Failure {
        Failure::BadInput
    }
}

#[cfg(test)]
mod tests;
