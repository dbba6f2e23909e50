//! Errors of the opening loaders: one value per rejected line or game (file, line, reason), and
//! the errors that refuse a whole file.

use crate::board::{FenError, SanError};
use std::fmt;
use std::path::PathBuf;
use thiserror::Error;

/// Why one EPD line or PGN game cannot be used as an opening.
#[derive(Error, Debug, Clone, PartialEq, Eq)]
pub enum BadLineReason {
    #[error("bad FEN: {0}")]
    Fen(#[from] FenError),
    #[error("bad EPD opcode: {0}")]
    Opcode(String),
    /// A SAN move that does not parse, is illegal or is ambiguous; `ply` counts from 1 at the
    /// game's start position and `number` is the move as written (`12.` or `12...`).
    #[error("ply {ply} ({number} {text}): {error}")]
    Move {
        ply: usize,
        number: String,
        text: String,
        error: SanError,
    },
    #[error("the position has no legal moves (checkmate or stalemate)")]
    NoLegalMoves,
    #[error("PGN syntax: {0}")]
    Syntax(&'static str),
    #[error("variant '{0}' is not standard chess")]
    Variant(String),
    #[error("the line is not valid UTF-8")]
    NotUtf8,
}

/// A rejected line or game: the file, the 1-based line it starts on (for a move, the move's line)
/// and the reason. Displays as `file:line: reason`, like a compiler.
#[derive(Error, Debug, Clone, PartialEq, Eq)]
pub struct BadLine {
    pub path: PathBuf,
    pub line: usize,
    pub reason: BadLineReason,
}

impl fmt::Display for BadLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.path.display(), self.line, self.reason)
    }
}

/// Why a book or suite cannot be opened at all.
#[derive(Error, Debug)]
pub enum OpeningsError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: unknown opening format (expected a .epd, .pgn or .bin file, or an explicit format)", path.display())]
    UnknownFormat { path: PathBuf },
    /// The first bad line when the policy is [`BadLinePolicy::Refuse`](super::BadLinePolicy).
    #[error("{0} (the whole file is refused)")]
    Refused(Box<BadLine>),
    #[error("{}: no playable opening ({rejected} rejected)", path.display())]
    NoOpenings { path: PathBuf, rejected: usize },
    #[error("{}: {size} bytes is not a multiple of 16, so not a Polyglot book", path.display())]
    PolyglotSize { path: PathBuf, size: usize },
    #[error("{}: Polyglot entry {entry} is out of key order (entries must be sorted by key)", path.display())]
    PolyglotUnsorted { path: PathBuf, entry: usize },
    #[error("{}: start = {start} is outside 1..={len}", path.display())]
    StartOutOfRange {
        path: PathBuf,
        start: usize,
        len: usize,
    },
    #[error("{}: the suite needs more than 4 GiB of memory", path.display())]
    TooLarge { path: PathBuf },
}
