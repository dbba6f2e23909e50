//! Reading data files: blocks of bytes cut at line ends, each block's lines parsed and packed in
//! parallel (see `pack`), and what went wrong reported per file and line.

use super::pack::{pack_lines, Packed};
use super::Dataset;
use crate::error::{ErrorClass, Failure};
use crate::texel::selection::PackSource;
use rayon::prelude::*;
use std::io::Read;
use std::path::Path;
use thiserror::Error;

/// What is wrong with one line of a data file: the training-data contract's line errors
/// (`record::PositionLineError`), named for the tuner.
pub use crate::record::PositionLineError as LineErrorKind;

/// A skipped line: file, 1-based line number and what is wrong.
#[derive(Error, Debug, Clone, PartialEq)]
#[error("{file}:{line}: {kind}")]
pub struct LineError {
    /// The file, as given.
    pub file: String,
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub kind: LineErrorKind,
}

impl ErrorClass for LineError {
    fn class(&self) -> Failure {
        self.kind.class()
    }
}

/// A data file that cannot be used at all (as opposed to a bad line, which is skipped).
#[derive(Error, Debug)]
#[non_exhaustive]
pub enum DataError {
    /// The file cannot be opened or read.
    #[error("{file}: cannot read: {error}")]
    Io {
        /// The file, as given.
        file: String,
        /// The operating system's reason.
        error: std::io::Error,
    },
    /// A named data file that does not exist (bad input: the list names the wrong path).
    #[error(
        "{file}: cannot read: no such data file; expected an existing file or a quoted glob \
         pattern"
    )]
    Missing {
        /// The file, as given.
        file: String,
    },
    /// A named data file that is a directory or another non-file (bad input).
    #[error(
        "{file}: is a directory, not a data file; name the files in it or a quoted glob \
         pattern such as '{file}/*.epd'"
    )]
    NotAFile {
        /// The path, as given.
        file: String,
    },
    /// A data-list entry that is not a valid glob pattern.
    #[error("data file pattern `{pattern}`, column {column}: {message}")]
    BadPattern {
        /// The pattern, as given.
        pattern: String,
        /// 1-based column of the fault in the pattern.
        column: usize,
        /// The glob crate's reason.
        message: String,
    },
    /// A data-list pattern that matches no file.
    #[error("data file pattern `{pattern}` matches no file")]
    NoMatch {
        /// The pattern, as given.
        pattern: String,
    },
    /// A line longer than any position line can be: the file is not text data (a binary file,
    /// a device such as /dev/zero), and reading on would only fill memory.
    #[error(
        "{file}:{line}: a line longer than {} bytes; not a data file of positions",
        MAX_LINE_BYTES
    )]
    LineTooLong {
        /// The file, as given.
        file: String,
        /// 1-based number of the line.
        line: usize,
    },
    /// More coefficients than the packed form's 32-bit offsets can address.
    #[error(
        "{file}: too many coefficients for one data set (more than 2^32); use fewer positions"
    )]
    TooLarge {
        /// The file whose positions overflowed the buffer.
        file: String,
    },
    /// The evaluation could not trace a position (an external engine's failure or answer).
    #[error("{file}:{line}: cannot trace {fen}: {error}")]
    Trace {
        /// The file, as given.
        file: String,
        /// 1-based number of the line.
        line: usize,
        /// The position as traced.
        fen: String,
        /// The evaluation's reason.
        error: crate::texel::tunable::TraceError,
    },
    /// A training-data file in one of the binary formats (viriformat, marlinformat,
    /// bulletformat) that does not decode: the data subsystem's error, naming the file and the
    /// byte offset of the record.
    #[error(transparent)]
    Records(#[from] crate::data::DataError),
}

impl ErrorClass for DataError {
    fn class(&self) -> Failure {
        match self {
            DataError::Trace { error, .. } => error.class(),
            DataError::Records(error) => error.class(),
            DataError::Missing { .. }
            | DataError::NotAFile { .. }
            | DataError::BadPattern { .. }
            | DataError::NoMatch { .. }
            | DataError::LineTooLong { .. }
            | DataError::TooLarge { .. } => Failure::BadInput,
            DataError::Io { .. } => Failure::FailedRun,
        }
    }
}

/// What one file contributed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileReport {
    /// The file, as given.
    pub file: String,
    /// Positions read from it and kept (new positions).
    pub positions: usize,
    /// Positions read from it that repeat one read before (merged into that one).
    pub duplicates: usize,
}

/// The outcome of loading: counts per file, the duplicates merged and the skipped lines.
#[derive(Clone, Debug, Default)]
pub struct LoadReport {
    /// One report per file, in load order.
    pub files: Vec<FileReport>,
    /// Distinct positions kept from all files.
    pub positions: usize,
    /// Positions dropped because the same position (Zobrist key) was read before; each one's
    /// label and score were averaged into the first copy (see `LoadOptions::dedupe`).
    pub duplicates: usize,
    /// Of those, how many had a different result label than the first copy.
    pub duplicates_with_other_label: usize,
    /// Every skipped line is counted here ...
    pub skipped: usize,
    /// ... but only the first `MAX_KEPT_ERRORS` are kept, so a wrong file cannot fill memory.
    pub errors: Vec<LineError>,
}

/// How files are loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadOptions {
    /// Resolve each position through its quiescence line (see `Dataset::resolve_quiescence`).
    pub resolve: bool,
    /// Keep one entry per position (Zobrist key, after resolution) across all files: a repeat
    /// is merged into the first copy, whose label becomes the mean of all copies' labels and
    /// whose score the mean of their scores (see `Dataset::deduplicate`).
    pub dedupe: bool,
    /// Bytes read from a file per block; lines are parsed a block at a time, so memory while
    /// loading is bounded by this, not by the file's size.
    pub read_block: usize,
}

/// What `sparring tune` does: positions as they are, duplicates merged, 16 MiB blocks.
impl Default for LoadOptions {
    fn default() -> LoadOptions {
        LoadOptions {
            resolve: false,
            dedupe: true,
            read_block: READ_BLOCK,
        }
    }
}

/// Opens a data file for reading; a path that does not exist or is a directory is the user's
/// mistake (`Missing`, `NotAFile`), any other failure the machine's (`Io`).
pub fn open_data_file(path: &Path) -> Result<std::fs::File, DataError> {
    check_data_files(&[path])?;
    std::fs::File::open(path).map_err(|error| match error.kind() {
        std::io::ErrorKind::NotFound => DataError::Missing {
            file: path.display().to_string(),
        },
        _ => DataError::Io {
            file: path.display().to_string(),
            error,
        },
    })
}

/// Checks that every data file exists and is not a directory before any is read, so a wrong
/// entry late in a list is reported at once rather than after loading the others.
pub fn check_data_files(files: &[impl AsRef<Path>]) -> Result<(), DataError> {
    for path in files {
        let path = path.as_ref();
        let file = path.display().to_string();
        match std::fs::metadata(path) {
            Ok(meta) if meta.is_dir() => return Err(DataError::NotAFile { file }),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Err(DataError::Missing { file })
            }
            // Permission problems and the like surface when the file is opened.
            _ => {}
        }
    }
    Ok(())
}

/// The longest line a data file may hold (a FEN with its operations is a few hundred bytes).
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// How many bad lines a `LoadReport` keeps verbatim.
pub(crate) const MAX_KEPT_ERRORS: usize = 1000;

/// Lines per parallel work item when loading: big enough to amortise scheduling, small enough to
/// balance. The split never depends on the thread count, so neither does the result.
const LOAD_CHUNK_LINES: usize = 2048;

/// Bytes read from a file per block; lines are processed in parallel a block at a time, so a huge
/// file never has to be in memory at once.
pub const READ_BLOCK: usize = 16 << 20;

impl Dataset {
    /// Reads and packs every file in order, skipping bad lines (counted and kept in the report),
    /// keeping every copy of a repeated position. With `resolve`, see `resolve_quiescence`.
    pub fn load_files(
        files: &[impl AsRef<Path>],
        selection: &impl PackSource,
        resolve: bool,
    ) -> Result<(Dataset, LoadReport), DataError> {
        let options = LoadOptions {
            resolve,
            dedupe: false,
            ..LoadOptions::default()
        };
        Dataset::load_files_with(files, selection, &options)
    }

    /// Reads and packs every file in order, a block at a time, as `options` say; bad lines are
    /// skipped (counted and kept in the report).
    pub fn load_files_with(
        files: &[impl AsRef<Path>],
        selection: &impl PackSource,
        options: &LoadOptions,
    ) -> Result<(Dataset, LoadReport), DataError> {
        let mut data = Dataset::new(selection);
        data.resolve_quiescence(options.resolve);
        data.deduplicate(options.dedupe);
        let mut report = LoadReport::default();
        for path in files {
            let path = path.as_ref();
            let name = path.display().to_string();
            if let Some(format) = binary_format(path) {
                check_data_files(&[path])?;
                let reader = crate::data::DataReader::open(path, Some(format))?;
                data.load_samples(reader, &name, selection, &mut report)?;
                continue;
            }
            let file = open_data_file(path)?;
            data.load_blocks(
                file,
                &name,
                selection,
                &mut report,
                options.read_block.max(1),
            )?;
        }
        data.finish_loading();
        Ok((data, report))
    }

    /// Reads EPD lines from `reader` (named `source` in errors) and appends them. Blocks of lines
    /// are parsed and traced in parallel; the result does not depend on the thread count.
    pub fn load_reader(
        &mut self,
        reader: impl Read,
        source: &str,
        selection: &impl PackSource,
        report: &mut LoadReport,
    ) -> Result<(), DataError> {
        self.load_blocks(reader, source, selection, report, READ_BLOCK)
    }

    /// Reads every position of a binary training-data file (see [`binary_format`]) and appends
    /// them as the text loader would: each becomes the contract's line (FEN, the score from the
    /// side to move's view as `ce` unless it is a mate score, the game's result as `c9`), so
    /// the same packing, checks and deduplication apply. In `report` and errors a "line" of
    /// such a file is its position's 1-based number.
    pub(crate) fn load_samples(
        &mut self,
        reader: crate::data::DataReader,
        source: &str,
        selection: &impl PackSource,
        report: &mut LoadReport,
    ) -> Result<(), DataError> {
        let before = self.entries.len();
        let mut duplicates = 0;
        let mut samples = crate::data::Samples::new(reader);
        let mut first_line = 1;
        loop {
            let mut lines = Vec::with_capacity(LOAD_CHUNK_LINES * 32);
            while lines.len() < LOAD_CHUNK_LINES * 32 {
                let Some(sample) = samples.next_sample()? else {
                    break;
                };
                lines.push(training_line(&sample.data).into_bytes());
            }
            if lines.is_empty() {
                break;
            }
            let refs: Vec<&[u8]> = lines.iter().map(Vec::as_slice).collect();
            duplicates += self.load_lines(&refs, first_line, source, selection, report)?;
            first_line += lines.len();
        }
        self.finish_file(before, duplicates, source, report);
        Ok(())
    }

    /// Ends a file's load: memory trimmed, its counts (entries since `before`) in `report`.
    fn finish_file(
        &mut self,
        before: usize,
        duplicates: usize,
        source: &str,
        report: &mut LoadReport,
    ) {
        self.shrink_to_fit();
        let loaded = self.entries.len() - before;
        report.files.push(FileReport {
            file: source.to_string(),
            positions: loaded,
            duplicates,
        });
        report.positions += loaded;
        report.duplicates += duplicates;
    }

    /// `load_reader` reading `block` bytes at a time.
    pub(super) fn load_blocks(
        &mut self,
        mut reader: impl Read,
        source: &str,
        selection: &impl PackSource,
        report: &mut LoadReport,
        block: usize,
    ) -> Result<(), DataError> {
        assert_eq!(self.num_params, selection.num_params(), "same selection");
        let io_error = |error| DataError::Io {
            file: source.to_string(),
            error,
        };
        let before = self.entries.len();
        let mut duplicates = 0;
        let mut buf: Vec<u8> = Vec::with_capacity(block + 4096);
        let mut first_line = 1;
        let mut eof = false;
        while !eof {
            // Fill the block, then process up to its last newline and carry the rest over.
            eof = fill_block(&mut reader, &mut buf, block).map_err(io_error)?;
            let end = if eof {
                buf.len()
            } else {
                match buf.iter().rposition(|&b| b == b'\n') {
                    Some(i) => i + 1,
                    None if buf.len() > MAX_LINE_BYTES => {
                        return Err(DataError::LineTooLong {
                            file: source.to_string(),
                            line: first_line,
                        })
                    }
                    // A single line longer than a block: keep reading into it.
                    None => continue,
                }
            };
            let lines = split_lines(&buf[..end]);
            // The same limit for a long line that does end, so a file is refused or not
            // whatever the block size (and as `tune convert` refuses it).
            if let Some(i) = lines.iter().position(|l| l.len() > MAX_LINE_BYTES) {
                return Err(DataError::LineTooLong {
                    file: source.to_string(),
                    line: first_line + i,
                });
            }
            duplicates += self.load_lines(&lines, first_line, source, selection, report)?;
            first_line += lines.len();
            buf.drain(..end);
        }
        self.finish_file(before, duplicates, source, report);
        Ok(())
    }

    /// Parses and traces one block's `lines` (the first is line `first_line` of `source`) in
    /// parallel and appends them in order; returns the duplicates found.
    fn load_lines(
        &mut self,
        lines: &[&[u8]],
        first_line: usize,
        source: &str,
        selection: &impl PackSource,
        report: &mut LoadReport,
    ) -> Result<usize, DataError> {
        let mut duplicates = 0;
        let packs: Vec<Packed> = lines
            .par_chunks(LOAD_CHUNK_LINES)
            .enumerate()
            .map(|(chunk, lines)| {
                let base = first_line + chunk * LOAD_CHUNK_LINES;
                pack_lines(lines, base, source, selection, self.resolve)
            })
            .collect();
        for pack in packs {
            if let Some((line, fen, error)) = pack.fatal {
                return Err(DataError::Trace {
                    file: source.to_string(),
                    line,
                    fen,
                    error,
                });
            }
            report.skipped += pack.skipped;
            let room = MAX_KEPT_ERRORS.saturating_sub(report.errors.len());
            report.errors.extend(pack.errors.iter().take(room).cloned());
            let merged = self.append(pack, source)?;
            duplicates += merged.duplicates;
            report.duplicates_with_other_label += merged.with_other_label;
        }
        Ok(duplicates)
    }
}

/// The binary training-data format a file's extension names (`.viriformat`, `.marlinformat`,
/// `.bulletformat`), which the tuner reads through the data subsystem; any other file is read
/// as lines of text.
pub(crate) fn binary_format(path: &Path) -> Option<crate::data::DataFormat> {
    crate::data::guess_format(path).filter(|&f| f != crate::data::DataFormat::Text)
}

/// The magnitude from which the formats' scores are mates (viriformat's default `max_eval`):
/// not centipawns, so such a position keeps only its result label.
const MATE_SCORE_FLOOR: i32 = 31_339;

/// A data position as the training-data contract's line.
fn training_line(data: &crate::data::DataPosition) -> String {
    let white_score = i32::from(data.white_score);
    let score = (white_score.abs() < MATE_SCORE_FLOOR)
        .then(|| white_score * data.position.side_to_move().sign());
    crate::record::TrainingPosition::new(&data.position, score, data.result, None).to_string()
}

/// Reads from `reader` until `buf` holds `block` more bytes than it did or the input ends;
/// true at the end of the input.
fn fill_block(reader: &mut impl Read, buf: &mut Vec<u8>, block: usize) -> std::io::Result<bool> {
    let carried = buf.len();
    buf.resize(carried + block, 0);
    let mut filled = carried;
    let mut eof = false;
    while filled < buf.len() {
        match reader.read(&mut buf[filled..]) {
            Ok(0) => {
                eof = true;
                break;
            }
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                buf.truncate(carried);
                return Err(e);
            }
        }
    }
    buf.truncate(filled);
    Ok(eof)
}

/// The lines of a block without their terminators (`\n` or `\r\n`).
fn split_lines(block: &[u8]) -> Vec<&[u8]> {
    let mut lines: Vec<&[u8]> = block.split(|&b| b == b'\n').collect();
    if block.last() == Some(&b'\n') {
        lines.pop();
    }
    for line in &mut lines {
        if let Some(stripped) = line.strip_suffix(b"\r") {
            *line = stripped;
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::texel::ParamSelection;

    #[test]
    fn blocks_do_not_change_positions_or_line_numbers() {
        let selection = ParamSelection::groups(
            crate::eval::EvalParams::default(),
            &crate::eval::ParamGroup::ALL,
        );
        let mut text = String::new();
        for (i, pos) in crate::texel::synthetic::playout_positions(1, 300)
            .iter()
            .enumerate()
        {
            match i % 37 {
                0 => text.push_str("not a fen c9 \"1-0\";\n"),
                1 => text.push('\n'),
                _ => text.push_str(&format!("{} [{}]\n", pos.to_fen(), (i % 3) as f32 / 2.0)),
            }
        }
        text.push_str("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - c9 \"1-0\";"); // no final newline
        let load = |block| {
            let mut data = Dataset::new(&selection);
            let mut report = LoadReport::default();
            data.load_blocks(text.as_bytes(), "t", &selection, &mut report, block)
                .unwrap();
            (data, report)
        };
        let (whole, whole_report) = load(1 << 20);
        assert_eq!(whole.len(), 300 - 2 * 9 + 1);
        assert_eq!(whole_report.skipped, 9);
        assert_eq!(whole_report.errors[1].line, 38);
        for block in [50, 100, 4096] {
            let (data, report) = load(block);
            assert_eq!(data.entries(), whole.entries(), "block {block}");
            assert_eq!(data.coeffs(), whole.coeffs(), "block {block}");
            assert_eq!(report.errors, whole_report.errors, "block {block}");
        }
    }

    /// A source without line ends (a binary file, /dev/zero) is refused once a line passes
    /// `MAX_LINE_BYTES` instead of being read into memory without end; the line number is
    /// that of the long line.
    #[test]
    fn an_endless_line_is_refused_instead_of_filling_memory() {
        let selection = ParamSelection::groups(
            crate::eval::EvalParams::default(),
            &[crate::eval::ParamGroup::Material],
        );
        let good = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - c9 \"1-0\";\n";
        let endless = good.as_bytes().chain(std::io::repeat(b'x'));
        let mut data = Dataset::new(&selection);
        let mut report = LoadReport::default();
        let err = data
            .load_blocks(endless, "zero", &selection, &mut report, 4096)
            .unwrap_err();
        assert!(
            matches!(&err, DataError::LineTooLong { file, line: 2 } if file == "zero"),
            "{err:?}"
        );
        // A long line that ends is only a bad line.
        let mut text = good.to_string();
        text.push_str(&"y".repeat(100_000));
        text.push('\n');
        text.push_str(good);
        let mut report = LoadReport::default();
        let mut data = Dataset::new(&selection);
        data.load_blocks(text.as_bytes(), "long", &selection, &mut report, 4096)
            .unwrap();
        assert_eq!((report.skipped, report.errors[0].line), (1, 2));
    }

    #[test]
    fn lines_split_on_lf_and_crlf() {
        assert_eq!(
            split_lines(b"a\r\nb\n\nc"),
            vec![&b"a"[..], &b"b"[..], &b""[..], &b"c"[..]]
        );
        assert_eq!(split_lines(b"a\n"), vec![&b"a"[..]]);
    }
}
