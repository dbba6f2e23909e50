//! Streaming readers of the four formats: one record (a position, or a viriformat game) at a
//! time, so memory stays bounded by one game however large the file. Every damaged record is
//! a [`DataError`] naming the file, the byte offset (binary) or line (text) and the field.

use super::packed::{unpack_bullet, unpack_marlin, BadField, RECORD};
use super::viri::decode_move;
use super::{DataFormat, DataPosition};
use crate::board::{GameResult, Move, Position};
use crate::error::{ErrorClass, Failure};
use crate::record::bullet::{BulletError, BulletPosition};
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;
use thiserror::Error;

/// The longest text line read (a FEN, a score and a result fit in a tenth of it).
const MAX_LINE: usize = 1024;

/// Why a data file cannot be read, converted or written.
#[derive(Error, Debug)]
#[non_exhaustive]
pub enum DataError {
    /// The file cannot be opened or read.
    #[error("{file}: cannot read: {error}")]
    Read {
        /// The file, as given.
        file: String,
        /// The operating system's reason.
        error: io::Error,
    },
    /// The output cannot be written.
    #[error("{file}: cannot write: {error}")]
    Write {
        /// The file, as given.
        file: String,
        /// The operating system's reason.
        error: io::Error,
    },
    /// A zero-length file: no record at all.
    #[error("{file}: byte 0: the file is empty (no {format} record)")]
    Empty {
        /// The file.
        file: String,
        /// Its format.
        format: &'static str,
    },
    /// The file ends inside a record.
    #[error("{file}: byte {offset}: truncated {what}: {found} of {expected} bytes")]
    Truncated {
        /// The file.
        file: String,
        /// Where the cut record starts.
        offset: u64,
        /// The record or field cut short.
        what: &'static str,
        /// Its size.
        expected: usize,
        /// The bytes there are.
        found: usize,
    },
    /// A binary field that cannot be decoded.
    #[error("{file}: byte {offset}: field `{field}`: {reason}")]
    Field {
        /// The file.
        file: String,
        /// The field's byte offset in the file.
        offset: u64,
        /// The field's name in the specification.
        field: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// A text line that is not `FEN | score | result`.
    #[error("{file}:{line}: {error}")]
    Line {
        /// The file.
        file: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        error: BulletError,
    },
    /// A text line longer than any position's.
    #[error("{file}:{line}: longer than {MAX_LINE} bytes (not a text data file?)")]
    LongLine {
        /// The file.
        file: String,
        /// 1-based line number.
        line: usize,
    },
    /// No `--format`/`--from` and an extension that names no format.
    #[error("{file}: cannot tell the format from the extension (.viriformat, .marlinformat, .bulletformat, .txt): name it")]
    UnknownFormat {
        /// The file.
        file: String,
    },
    /// Positions cannot become games.
    #[error("{from} holds positions, not games: it cannot become viriformat")]
    NotGames {
        /// The input's format.
        from: &'static str,
    },
    /// A filter that needs the move played, known only from viriformat games.
    #[error("{filter} needs the move played from each position, which only viriformat games hold ({file} is {format})")]
    NeedsGames {
        /// The filter's option.
        filter: &'static str,
        /// The input.
        file: String,
        /// Its format.
        format: &'static str,
    },
    /// An operation on positions given games, or on one format given another.
    #[error("{file} is {found}: {operation} needs {wanted}")]
    WrongFormat {
        /// The file.
        file: String,
        /// Its format.
        found: &'static str,
        /// What was asked.
        operation: &'static str,
        /// What it takes.
        wanted: String,
    },
}

impl ErrorClass for DataError {
    fn class(&self) -> Failure {
        match self {
            DataError::Read { error, .. } if error.kind() == io::ErrorKind::NotFound => {
                Failure::BadInput
            }
            DataError::Read { .. } | DataError::Write { .. } => Failure::FailedRun,
            DataError::Empty { .. }
            | DataError::Truncated { .. }
            | DataError::Field { .. }
            | DataError::Line { .. }
            | DataError::LongLine { .. }
            | DataError::UnknownFormat { .. }
            | DataError::NotGames { .. }
            | DataError::NeedsGames { .. }
            | DataError::WrongFormat { .. } => Failure::BadInput,
        }
    }
}

/// The format a file's extension names, if any.
pub fn guess_format(path: &Path) -> Option<DataFormat> {
    match path.extension()?.to_str()? {
        "viriformat" => Some(DataFormat::Viriformat),
        "marlinformat" => Some(DataFormat::Marlinformat),
        "bulletformat" => Some(DataFormat::Bulletformat),
        "txt" => Some(DataFormat::Text),
        _ => None,
    }
}

/// A viriformat game as read: the start, each move with its White-relative score, the result.
#[derive(Debug, Clone, PartialEq)]
pub struct ViriGame {
    /// The start position.
    pub start: Position,
    /// The moves, each with the score of the position it was played from.
    pub moves: Vec<(Move, i16)>,
    /// The game's result.
    pub result: GameResult,
}

/// One record of a file.
#[derive(Debug, Clone, PartialEq)]
pub enum Record {
    /// A position (marlinformat, bulletformat, text).
    Position(DataPosition),
    /// A whole game (viriformat).
    Game(ViriGame),
}

/// Reads one file, record by record.
pub struct DataReader {
    file: String,
    format: DataFormat,
    input: BufReader<Box<dyn Read + Send>>,
    /// Byte offset of the next record.
    offset: u64,
    /// Lines read (text).
    line: usize,
    records: u64,
    raw: Vec<u8>,
}

impl DataReader {
    /// Opens `path` in `format`, or the format its extension names.
    pub fn open(path: &Path, format: Option<DataFormat>) -> Result<DataReader, DataError> {
        let file = path.display().to_string();
        let format = format
            .or_else(|| guess_format(path))
            .ok_or_else(|| DataError::UnknownFormat { file: file.clone() })?;
        let input = std::fs::File::open(path).map_err(|error| DataError::Read {
            file: file.clone(),
            error,
        })?;
        Ok(DataReader::new(Box::new(input), &file, format))
    }

    /// Reads `input` (named `file` in errors) as `format`.
    pub fn new(input: Box<dyn Read + Send>, file: &str, format: DataFormat) -> DataReader {
        DataReader {
            file: file.to_string(),
            format,
            input: BufReader::with_capacity(1 << 16, input),
            offset: 0,
            line: 0,
            records: 0,
            raw: Vec::new(),
        }
    }

    /// The file's format.
    pub fn format(&self) -> DataFormat {
        self.format
    }

    /// The file's name as given.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// How many records (games for viriformat, positions otherwise) have been returned: the
    /// last one returned is record `records() − 1` of the file, counted from 0.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// The bytes of the record [`DataReader::next_record`] returned last (a whole game for
    /// viriformat, a line with its newline for text).
    pub fn raw(&self) -> &[u8] {
        &self.raw
    }

    /// The next record, `None` at the end of the file. A zero-length file is an error.
    pub fn next_record(&mut self) -> Result<Option<Record>, DataError> {
        self.raw.clear();
        let record = match self.format {
            DataFormat::Viriformat => self.next_game()?.map(Record::Game),
            DataFormat::Marlinformat | DataFormat::Bulletformat => {
                self.next_board()?.map(Record::Position)
            }
            DataFormat::Text => self.next_line()?.map(Record::Position),
        };
        if record.is_none() && self.records == 0 {
            return Err(DataError::Empty {
                file: self.file.clone(),
                format: self.format.name(),
            });
        }
        self.records += u64::from(record.is_some());
        Ok(record)
    }

    /// Reads up to `n` bytes onto `raw`; how many there were.
    fn fill(&mut self, n: usize) -> Result<usize, DataError> {
        let start = self.raw.len();
        self.raw.resize(start + n, 0);
        let mut got = 0;
        while got < n {
            match self.input.read(&mut self.raw[start + got..]) {
                Ok(0) => break,
                Ok(k) => got += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => {
                    let file = self.file.clone();
                    return Err(DataError::Read { file, error });
                }
            }
        }
        self.raw.truncate(start + got);
        Ok(got)
    }

    /// Reads exactly `n` bytes at file offset `at`, or fails naming the cut `what`; `Ok(false)`
    /// at a clean end of file when `eof_ok`.
    fn exact(
        &mut self,
        n: usize,
        at: u64,
        what: &'static str,
        eof_ok: bool,
    ) -> Result<bool, DataError> {
        match self.fill(n)? {
            0 if eof_ok => Ok(false),
            got if got == n => Ok(true),
            found => Err(DataError::Truncated {
                file: self.file.clone(),
                offset: at,
                what,
                expected: n,
                found,
            }),
        }
    }

    fn field_error(&self, at: u64, bad: BadField) -> DataError {
        DataError::Field {
            file: self.file.clone(),
            offset: at + bad.at as u64,
            field: bad.field,
            reason: bad.reason,
        }
    }

    fn next_board(&mut self) -> Result<Option<DataPosition>, DataError> {
        let at = self.offset;
        let what = if self.format == DataFormat::Marlinformat {
            "PackedBoard"
        } else {
            "ChessBoard"
        };
        if !self.exact(RECORD, at, what, true)? {
            return Ok(None);
        }
        self.offset += RECORD as u64;
        let bytes: [u8; RECORD] = self.raw[..RECORD].try_into().expect("a whole record");
        let decoded = match self.format {
            DataFormat::Marlinformat => unpack_marlin(&bytes),
            _ => unpack_bullet(&bytes),
        };
        let (position, white_score, result) = decoded.map_err(|bad| self.field_error(at, bad))?;
        Ok(Some(DataPosition {
            position,
            white_score,
            result,
        }))
    }

    fn next_game(&mut self) -> Result<Option<ViriGame>, DataError> {
        let at = self.offset;
        if !self.exact(RECORD, at, "game header (PackedBoard)", true)? {
            return Ok(None);
        }
        let header: [u8; RECORD] = self.raw[..RECORD].try_into().expect("a whole header");
        let (start, _, result) = unpack_marlin(&header).map_err(|bad| self.field_error(at, bad))?;
        self.offset += RECORD as u64;
        let mut pos = start.clone();
        let mut moves = Vec::new();
        loop {
            let at = self.offset;
            self.exact(4, at, "move record (or the 4-byte terminator)", false)?;
            self.offset += 4;
            let n = self.raw.len();
            let bits = u16::from_le_bytes([self.raw[n - 4], self.raw[n - 3]]);
            let score = i16::from_le_bytes([self.raw[n - 2], self.raw[n - 1]]);
            if bits == 0 && score == 0 {
                return Ok(Some(ViriGame {
                    start,
                    moves,
                    result,
                }));
            }
            let mv = decode_move(&pos, bits).ok_or_else(|| {
                let reason = format!("{bits:#06x} is no legal move in {}", pos.to_fen());
                self.field_error(at, BadField::new(0, "move", reason))
            })?;
            moves.push((mv, score));
            pos.make_move(mv);
        }
    }

    fn next_line(&mut self) -> Result<Option<DataPosition>, DataError> {
        loop {
            self.line += 1;
            let limit = (MAX_LINE + 1) as u64;
            let read = (&mut self.input)
                .take(limit)
                .read_until(b'\n', &mut self.raw);
            let file = self.file.clone();
            let n = read.map_err(|error| DataError::Read {
                file: file.clone(),
                error,
            })?;
            if n == 0 {
                return Ok(None);
            }
            if n > MAX_LINE {
                return Err(DataError::LongLine {
                    file,
                    line: self.line,
                });
            }
            if !self.raw.ends_with(b"\n") {
                self.raw.push(b'\n');
            }
            let text = String::from_utf8_lossy(&self.raw);
            if text.trim().is_empty() {
                self.raw.clear();
                continue;
            }
            let line = self.line;
            let parsed = BulletPosition::parse(&text)
                .and_then(|p| Ok((Position::from_fen_lenient(&p.fen)?, p)));
            let (position, p) = parsed.map_err(|error| DataError::Line { file, line, error })?;
            return Ok(Some(DataPosition {
                position,
                // BulletPosition keeps scores within ±32000.
                white_score: p.white_score as i16,
                result: p.result,
            }));
        }
    }
}

/// A position of a file with, for viriformat games, the move played from it.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// The position, its score and result.
    pub data: DataPosition,
    /// The move played from it (viriformat only).
    pub played: Option<Move>,
}

/// Every position of a file in order: a viriformat game gives each position a move was played
/// from (as viriformat's own splat does).
pub struct Samples {
    reader: DataReader,
    game: Option<(ViriGame, Position, usize)>,
}

impl Samples {
    /// The positions of `reader`'s file.
    pub fn new(reader: DataReader) -> Samples {
        Samples { reader, game: None }
    }

    /// The reader underneath.
    pub fn reader(&self) -> &DataReader {
        &self.reader
    }

    /// Whether the game being read has positions left, so the next sample comes from the same
    /// record (always false for formats of single positions).
    pub fn in_game(&self) -> bool {
        matches!(&self.game, Some((game, _, i)) if *i < game.moves.len())
    }

    /// The next position, `None` at the end.
    pub fn next_sample(&mut self) -> Result<Option<Sample>, DataError> {
        loop {
            if let Some((game, pos, i)) = &mut self.game {
                if let Some(&(mv, score)) = game.moves.get(*i) {
                    let sample = Sample {
                        data: DataPosition {
                            position: pos.clone(),
                            white_score: score,
                            result: game.result,
                        },
                        played: Some(mv),
                    };
                    pos.make_move(mv);
                    *i += 1;
                    return Ok(Some(sample));
                }
            }
            match self.reader.next_record()? {
                None => return Ok(None),
                Some(Record::Position(data)) => return Ok(Some(Sample { data, played: None })),
                Some(Record::Game(game)) => {
                    let start = game.start.clone();
                    self.game = Some((game, start, 0));
                }
            }
        }
    }
}
