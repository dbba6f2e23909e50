//! Opening books for matches: EPD and PGN suites (a fixed list of openings, used in order) and
//! Polyglot .bin books (a random line per game). Bad lines are reported as typed values naming
//! file, line and reason; the caller chooses to skip them or to refuse the file.
//!
//! Main types: [`OpeningBook`] (a book file read with [`BookOptions`], handing out [`Opening`]s),
//! [`PolyglotBook`], and [`OpeningsError`] / [`BadLine`] for what is wrong with a file.

mod epd;
mod error;
pub mod generate;
mod pgn;
mod pgn_split;
pub(crate) use pgn_split::{
    split_games as split_pgn_games, RawGame as RawPgnGame, TagValue as PgnTagValue,
};
mod polyglot;
pub(crate) use polyglot::double_push_target;
mod store;

pub(crate) use epd::epd_operations;
pub use epd::{parse_line as parse_epd_line, EpdOperationError};
pub use error::{BadLine, BadLineReason, OpeningsError};
pub use polyglot::{
    encode_move, polyglot_key, BookMove, BookPick, BookWalk, PolyglotBook, PolyglotEntry,
    PolyglotFormatError,
};

use crate::board::{Move, Position};
use crate::error::{ErrorClass, Failure};
use crate::rng::Rng;
use std::path::{Path, PathBuf};
use store::Store;

/// The first start position of an EPD suite or a PGN file (its `FEN` tags) whose castling
/// rights only Chess960 can hold: its 1-based line and FEN. A standard-chess match refuses such
/// a book, naming the line. Polyglot books (always the standard start) have none; lines that do
/// not parse are left to the book's own checks.
pub(crate) fn find_chess960_start(bytes: &[u8], format: OpeningFormat) -> Option<(usize, String)> {
    let text = String::from_utf8_lossy(bytes);
    for (i, line) in text.lines().enumerate() {
        let pos = match format {
            OpeningFormat::Epd => parse_epd_line(line).ok().flatten(),
            OpeningFormat::Pgn => line
                .trim()
                .strip_prefix("[FEN \"")
                .and_then(|rest| rest.split('"').next())
                .and_then(|fen| Position::from_fen_lenient(fen).ok()),
            OpeningFormat::Polyglot => return None,
        };
        if let Some(pos) = pos.filter(Position::has_chess960_castling) {
            return Some((i + 1, pos.to_fen()));
        }
    }
    None
}

/// An opening to play: the moves are played from `start` before the engines take over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// Index in the suite, 0-based (for a Polyglot book, the index asked for).
    pub id: usize,
    /// The position the opening line starts from.
    pub start: Position,
    /// Book moves to play from `start` (empty for EPD suites).
    pub moves: Vec<Move>,
}

impl Opening {
    /// The position after the book moves, where the engines start thinking.
    pub fn final_position(&self) -> Position {
        let mut pos = self.start.clone();
        for &mv in &self.moves {
            pos.make_move(mv);
        }
        pos
    }

    /// The line extended by up to `plies` uniformly random legal moves. A random move that would
    /// leave the side to move without a legal reply is not played, so the engines always have a
    /// game to play; the line stops early if no such move exists.
    pub fn with_random_moves(mut self, plies: usize, rng: &mut Rng) -> Opening {
        let mut pos = self.final_position();
        for _ in 0..plies {
            let candidates: Vec<Move> = pos
                .legal_moves()
                .iter()
                .copied()
                .filter(|&mv| {
                    let mut next = pos.clone();
                    next.make_move(mv);
                    !next.legal_moves().is_empty()
                })
                .collect();
            if candidates.is_empty() {
                break;
            }
            let mv = candidates[rng.below(candidates.len() as u64) as usize];
            pos.make_move(mv);
            self.moves.push(mv);
        }
        self
    }
}

/// The file formats an opening source can have.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum OpeningFormat {
    /// One FEN or EPD position per line (`.epd`, `.fen`); no book moves.
    Epd,
    /// PGN games whose main lines are played from their start (or `[FEN]`) position.
    Pgn,
    /// A Polyglot `.bin` book: a line is drawn from the book for each game.
    Polyglot,
}

/// An unknown format name (from a command line or a config file).
#[derive(thiserror::Error, Debug, Clone, PartialEq, Eq)]
#[error("unknown opening format '{0}' (expected epd, pgn or polyglot)")]
pub struct FormatNameError(pub String);

impl ErrorClass for FormatNameError {
    fn class(&self) -> Failure {
        Failure::BadInput
    }
}

impl OpeningFormat {
    /// The format a file name suggests: `.epd`/`.fen`, `.pgn`, `.bin` (any case).
    pub fn from_path(path: &Path) -> Option<OpeningFormat> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "epd" | "fen" => Some(OpeningFormat::Epd),
            "pgn" => Some(OpeningFormat::Pgn),
            "bin" => Some(OpeningFormat::Polyglot),
            _ => None,
        }
    }

    /// The lower-case name used in configs and messages (`epd`, `pgn`, `polyglot`).
    pub fn name(self) -> &'static str {
        match self {
            OpeningFormat::Epd => "epd",
            OpeningFormat::Pgn => "pgn",
            OpeningFormat::Polyglot => "polyglot",
        }
    }
}

impl std::str::FromStr for OpeningFormat {
    type Err = FormatNameError;
    fn from_str(s: &str) -> Result<OpeningFormat, FormatNameError> {
        match s.to_ascii_lowercase().as_str() {
            "epd" | "fen" => Ok(OpeningFormat::Epd),
            "pgn" => Ok(OpeningFormat::Pgn),
            "polyglot" | "bin" => Ok(OpeningFormat::Polyglot),
            _ => Err(FormatNameError(s.to_string())),
        }
    }
}

impl std::fmt::Display for OpeningFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What to do with a line or game that is not a usable opening.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum BadLinePolicy {
    /// Leave it out and list it in [`OpeningBook::rejected`].
    #[default]
    Skip,
    /// Refuse the whole file with the first bad line ([`OpeningsError::Refused`]).
    Refuse,
}

/// The most bytes a suite or book file may have: the store addresses its arena with 32-bit
/// offsets, and a larger file could not be loaded anyway.
pub(crate) const MAX_BOOK_BYTES: u64 = 1 << 32;

/// Reads a suite or book file whole. A directory or a device (which could be read without end)
/// is refused by what it is, and a file past `MAX_BOOK_BYTES` as too large, before it fills
/// memory; named pipes are read (a suite may come from a process).
pub fn read_book_file(path: &Path) -> Result<Vec<u8>, OpeningsError> {
    use std::io::Read;
    let io = |source| OpeningsError::Io {
        path: path.to_path_buf(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    let not_a_file = |what| OpeningsError::NotAFile {
        path: path.to_path_buf(),
        what,
    };
    if meta.is_dir() {
        return Err(not_a_file("a directory"));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let kind = meta.file_type();
        if kind.is_char_device() || kind.is_block_device() || kind.is_socket() {
            return Err(not_a_file("a device"));
        }
    }
    let too_large = || OpeningsError::TooLarge {
        path: path.to_path_buf(),
    };
    if meta.len() > MAX_BOOK_BYTES {
        return Err(too_large());
    }
    let file = std::fs::File::open(path).map_err(io)?;
    let mut bytes = Vec::new();
    file.take(MAX_BOOK_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > MAX_BOOK_BYTES {
        return Err(too_large());
    }
    Ok(bytes)
}

/// How to load and use a book.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookOptions {
    /// PGN: keep at most this many plies of each game; Polyglot: draw lines this deep (default:
    /// until the book runs out). EPD suites ignore it.
    pub plies: Option<usize>,
    /// Whether bad lines or games are skipped or refuse the whole file.
    pub policy: BadLinePolicy,
    /// The suite's opening that `opening(0, ..)` returns, 1-based (`start = N` in a config). A
    /// number past the end of the suite wraps around, as in fastchess: `start = len + 1` is the
    /// first opening again.
    pub start: usize,
    /// Polyglot: how a move is chosen among the stored ones.
    pub pick: BookPick,
}

impl Default for BookOptions {
    fn default() -> BookOptions {
        BookOptions {
            plies: None,
            policy: BadLinePolicy::Skip,
            start: 1,
            pick: BookPick::Weighted,
        }
    }
}

#[derive(Clone, Debug)]
enum Source {
    Suite(Store),
    Polyglot(PolyglotBook),
}

/// A loaded opening source.
#[derive(Clone, Debug)]
pub struct OpeningBook {
    path: PathBuf,
    format: OpeningFormat,
    options: BookOptions,
    source: Source,
    rejected: Vec<BadLine>,
}

impl OpeningBook {
    /// Reads and checks a book; `format` is guessed from the extension when None.
    pub fn open(
        path: impl AsRef<Path>,
        format: Option<OpeningFormat>,
        options: BookOptions,
    ) -> Result<OpeningBook, OpeningsError> {
        let path = path.as_ref();
        let format = format
            .or_else(|| OpeningFormat::from_path(path))
            .ok_or_else(|| OpeningsError::UnknownFormat {
                path: path.to_path_buf(),
            })?;
        let bytes = read_book_file(path)?;
        OpeningBook::from_bytes(path, &bytes, format, options)
    }

    /// Loads a book from memory; `path` names it in messages.
    pub fn from_bytes(
        path: impl Into<PathBuf>,
        bytes: &[u8],
        format: OpeningFormat,
        options: BookOptions,
    ) -> Result<OpeningBook, OpeningsError> {
        let path = path.into();
        let too_large = |_| OpeningsError::TooLarge { path: path.clone() };
        let bad_line = |(line, reason)| BadLine {
            path: path.clone(),
            line,
            reason,
        };
        let (source, rejected) = match format {
            OpeningFormat::Epd => {
                let (store, rejected) = epd::parse(bytes).map_err(too_large)?;
                let rejected: Vec<BadLine> = rejected.into_iter().map(bad_line).collect();
                (Source::Suite(store), rejected)
            }
            OpeningFormat::Pgn => {
                let mut store = Store::default();
                let mut rejected = Vec::new();
                for game in pgn::parse(bytes, options.plies) {
                    match game {
                        Ok((start, moves)) => store.push(&start, &moves).map_err(too_large)?,
                        Err(bad) => rejected.push(bad_line(bad)),
                    }
                }
                store.shrink_to_fit();
                (Source::Suite(store), rejected)
            }
            OpeningFormat::Polyglot => {
                let book = PolyglotBook::from_bytes(bytes).map_err(|e| e.in_file(&path))?;
                (Source::Polyglot(book), Vec::new())
            }
        };
        if options.policy == BadLinePolicy::Refuse {
            if let Some(first) = rejected.first() {
                return Err(OpeningsError::Refused(Box::new(first.clone())));
            }
        }
        let playable = match &source {
            Source::Suite(store) => store.len(),
            Source::Polyglot(book) => book.moves(&Position::startpos()).len(),
        };
        if playable == 0 {
            return Err(OpeningsError::NoOpenings {
                path,
                rejected: rejected.len(),
            });
        }
        if let Source::Suite(store) = &source {
            // Past the end wraps around (as fastchess rotates its book by `start - 1` modulo its
            // size); only 0, which names no opening, is refused.
            if options.start == 0 {
                return Err(OpeningsError::StartOutOfRange {
                    path,
                    start: options.start,
                    len: store.len(),
                });
            }
        }
        Ok(OpeningBook {
            path,
            format,
            options,
            source,
            rejected,
        })
    }

    /// The number of openings in a suite; None for a Polyglot book (it draws lines without end).
    /// There is no `is_empty`: a book without a playable opening does not load.
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> Option<usize> {
        match &self.source {
            Source::Suite(store) => Some(store.len()),
            Source::Polyglot(_) => None,
        }
    }

    /// The format the book was read as.
    pub fn format(&self) -> OpeningFormat {
        self.format
    }

    /// The path given when loading, used in messages.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The options the book was loaded with.
    pub fn options(&self) -> &BookOptions {
        &self.options
    }

    /// The lines or games left out (with [`BadLinePolicy::Skip`]), in file order.
    pub fn rejected(&self) -> &[BadLine] {
        &self.rejected
    }

    /// The Polyglot book itself, for probing.
    pub fn polyglot(&self) -> Option<&PolyglotBook> {
        match &self.source {
            Source::Polyglot(book) => Some(book),
            Source::Suite(_) => None,
        }
    }

    /// Heap bytes held by the openings (not counting the rejected list).
    pub fn memory_bytes(&self) -> usize {
        match &self.source {
            Source::Suite(store) => store.heap_bytes(),
            Source::Polyglot(book) => book.len() * std::mem::size_of::<PolyglotEntry>(),
        }
    }

    /// The opening for game or pair `index`. Suites: the suite's entry `(start - 1 + index) mod
    /// len`, so a `start` past the end wraps around (the rng is not used). Polyglot books: a line drawn from the start position with `rng`.
    pub fn opening(&self, index: usize, rng: &mut Rng) -> Opening {
        match &self.source {
            Source::Suite(store) => {
                // Each term reduced first: `start` may be any number up to usize::MAX.
                let len = store.len();
                let id = ((self.options.start - 1) % len + index % len) % len;
                let (start, moves) = store.get(id);
                Opening { id, start, moves }
            }
            Source::Polyglot(book) => {
                let start = Position::startpos();
                let moves = book.line(&start, self.options.plies, self.options.pick, rng);
                Opening {
                    id: index,
                    start,
                    moves,
                }
            }
        }
    }
}
