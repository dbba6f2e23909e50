//! Errors of the opening loaders: one value per rejected line or game (file, line, reason), and
//! the errors that refuse a whole file.

use crate::board::{FenError, SanError};
use crate::error::{ErrorClass, Failure};
use std::fmt;
use std::path::PathBuf;
use thiserror::Error;

/// Why one EPD line or PGN game cannot be used as an opening.
#[derive(Error, Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BadLineReason {
    /// The FEN part (an EPD line's first fields, or a PGN game's `[FEN]` tag) does not parse or
    /// describes an impossible position.
    #[error("bad FEN: {0}")]
    Fen(#[from] FenError),
    /// An EPD operation is malformed (no opcode name where one should start, an unterminated
    /// string), or `hmvc`/`fmvn` does not have exactly one valid count; holds the message.
    #[error("bad EPD opcode: {0}")]
    Opcode(String),
    /// A SAN move that does not parse, is illegal or is ambiguous; `ply` counts from 1 at the
    /// game's start position and `number` is the move as written (`12.` or `12...`).
    #[error("ply {ply} ({number} {text}): {error}")]
    Move {
        /// Position of the bad move in the game's main line, 1 for the first move played.
        ply: usize,
        /// The move number with its dots, as a PGN would print it (`12.` or `12...`).
        number: String,
        /// The SAN token as written in the file.
        text: String,
        /// Why the SAN does not name exactly one legal move.
        error: SanError,
    },
    /// The opening's final position is checkmate or stalemate, so no game could be played from it.
    #[error("the position has no legal moves (checkmate or stalemate)")]
    NoLegalMoves,
    /// The game's PGN text is malformed (a bad tag pair, a comment or variation never closed).
    #[error("PGN syntax: {0}")]
    Syntax(&'static str),
    /// The game's `[Variant]` tag names something other than standard chess (Chess960 included).
    #[error("variant '{0}' is not standard chess")]
    Variant(String),
    /// An EPD line contains bytes that are not UTF-8.
    #[error("the line is not valid UTF-8")]
    NotUtf8,
}

impl ErrorClass for BadLineReason {
    fn class(&self) -> Failure {
        match self {
            BadLineReason::Fen(_)
            | BadLineReason::Opcode(_)
            | BadLineReason::Move { .. }
            | BadLineReason::NoLegalMoves
            | BadLineReason::Syntax(_)
            | BadLineReason::Variant(_)
            | BadLineReason::NotUtf8 => Failure::BadInput,
        }
    }
}

/// A rejected line or game: the file, the 1-based line it starts on (for a move, the move's line)
/// and the reason. Displays as `file:line: reason`, like a compiler.
#[derive(Error, Debug, Clone, PartialEq, Eq)]
pub struct BadLine {
    /// The book or suite file the line is in.
    pub path: PathBuf,
    /// 1-based line number: where the EPD line or PGN game starts, or where the bad move is.
    pub line: usize,
    /// Why the line or game was rejected.
    pub reason: BadLineReason,
}

impl ErrorClass for BadLine {
    fn class(&self) -> Failure {
        self.reason.class()
    }
}

impl fmt::Display for BadLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.path.display(), self.line, self.reason)
    }
}

/// Why a book or suite cannot be opened at all.
#[derive(Error, Debug)]
#[non_exhaustive]
pub enum OpeningsError {
    /// The file cannot be read (missing, no permission, ...).
    #[error("{}: {source}", crate::toml_config::shown_path(path))]
    Io {
        /// The file that could not be read.
        path: PathBuf,
        /// The error from the operating system.
        source: std::io::Error,
    },
    /// The path is a directory or a device, not a file of openings (a device such as
    /// /dev/zero would be read without end).
    #[error("{}: is {what}, not a file of openings", path.display())]
    NotAFile {
        /// The path given.
        path: PathBuf,
        /// What it is instead: `a directory` or `a device`.
        what: &'static str,
    },
    /// No format was given and the extension is not `.epd`, `.fen`, `.pgn` or `.bin`.
    #[error("{}: unknown opening format (expected a .epd, .pgn or .bin file, or an explicit format)", path.display())]
    UnknownFormat {
        /// The file whose format could not be guessed.
        path: PathBuf,
    },
    /// The first bad line when the policy is [`BadLinePolicy::Refuse`](super::BadLinePolicy).
    #[error("{0} (the whole file is refused)")]
    Refused(Box<BadLine>),
    /// Every line or game was rejected (or the file is empty); for a Polyglot book, the book
    /// has no move for the start position.
    #[error("{}: no playable opening ({rejected} rejected)", path.display())]
    NoOpenings {
        /// The book or suite file.
        path: PathBuf,
        /// How many lines or games were rejected.
        rejected: usize,
    },
    /// A Polyglot file whose length is not a whole number of 16-byte entries.
    #[error("{}: {size} bytes is not a multiple of 16, so not a Polyglot book", path.display())]
    PolyglotSize {
        /// The book file.
        path: PathBuf,
        /// The file's length in bytes.
        size: usize,
    },
    /// A Polyglot file whose entries are not sorted by key, so lookups would miss moves.
    #[error("{}: Polyglot entry {entry} is out of key order (entries must be sorted by key)", path.display())]
    PolyglotUnsorted {
        /// The book file.
        path: PathBuf,
        /// 0-based index of the first entry with a smaller key than the one before it.
        entry: usize,
    },
    /// The configured first opening (`start`, 1-based) is 0 (a start past the end of the suite
    /// wraps around, as in fastchess).
    #[error(
        "{}: openings start = {start}: expected a number from 1 (the suite holds {len} openings; \
         a larger start wraps around)",
        path.display()
    )]
    StartOutOfRange {
        /// The suite file.
        path: PathBuf,
        /// The 1-based start index asked for.
        start: usize,
        /// Number of openings the suite holds.
        len: usize,
    },
    /// The suite's packed moves and positions do not fit the 32-bit offsets of the store.
    #[error("{}: the suite needs more than 4 GiB of memory", path.display())]
    TooLarge {
        /// The suite file.
        path: PathBuf,
    },
}

impl ErrorClass for OpeningsError {
    fn class(&self) -> Failure {
        match self {
            // A book the user named that cannot be read is input to fix, as a bad one is.
            OpeningsError::Io { .. }
            | OpeningsError::NotAFile { .. }
            | OpeningsError::UnknownFormat { .. }
            | OpeningsError::Refused(_)
            | OpeningsError::NoOpenings { .. }
            | OpeningsError::PolyglotSize { .. }
            | OpeningsError::PolyglotUnsorted { .. }
            | OpeningsError::StartOutOfRange { .. }
            | OpeningsError::TooLarge { .. } => Failure::BadInput,
        }
    }
}
