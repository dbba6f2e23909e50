//! The data tools behind `sparring data`: [`info`] (counts and histograms), [`convert`] (with
//! viriformat's filters), [`shuffle`] (seeded, in bounded memory) and [`interleave`]. Outputs
//! are written to `<OUT>.partial` and renamed into place when complete.

use super::read::{DataError, DataReader, Sample, Samples};
use super::write::{PositionWriter, ViriWriter};
use super::{DataFormat, MATE_FLOOR};
use crate::board::GameResult;
use crate::rng::Rng;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The score histogram's bucket edges (White-relative centipawns): bucket `i` holds scores
/// below `SCORE_EDGES[i]` (and at or above the previous edge); the last bucket the rest.
pub const SCORE_EDGES: [i32; 11] = [
    -MATE_FLOOR + 1,
    -2000,
    -1000,
    -500,
    -200,
    -50,
    51,
    201,
    501,
    1001,
    2001,
];

/// Piece counts (kings included) run from 0 to 32.
pub(crate) const PIECE_BINS: usize = 33;

/// What a data file holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataInfo {
    /// Its format.
    pub format: DataFormat,
    /// Games (viriformat only).
    pub games: Option<u64>,
    /// Positions (for viriformat: positions a move was played from).
    pub positions: u64,
    /// Positions by result: White won, drawn, Black won.
    pub results: [u64; 3],
    /// Positions by score bucket (see [`SCORE_EDGES`]), one more bucket than edges.
    pub scores: Vec<u64>,
    /// Positions by number of pieces, kings included.
    pub pieces: [u64; PIECE_BINS],
}

/// Reads a whole file and counts; the first damaged record is the error.
pub fn info(path: &Path, format: Option<DataFormat>) -> Result<DataInfo, DataError> {
    let reader = DataReader::open(path, format)?;
    let format = reader.format();
    let mut info = DataInfo {
        format,
        games: None,
        positions: 0,
        results: [0; 3],
        scores: vec![0; SCORE_EDGES.len() + 1],
        pieces: [0; PIECE_BINS],
    };
    let mut samples = Samples::new(reader);
    while let Some(Sample { data, .. }) = samples.next_sample()? {
        info.positions += 1;
        let result = match data.result {
            GameResult::WhiteWins => 0,
            GameResult::Draw => 1,
            GameResult::BlackWins => 2,
        };
        info.results[result] += 1;
        let score = i32::from(data.white_score);
        info.scores[SCORE_EDGES
            .iter()
            .take_while(|&&edge| score >= edge)
            .count()] += 1;
        info.pieces[data.position.occupied().len() as usize] += 1;
    }
    if format == DataFormat::Viriformat {
        info.games = Some(count_records(path, Some(format))?);
    }
    Ok(info)
}

/// How many records (games for viriformat, positions otherwise) the file holds; `format`
/// `None` tells it by the extension.
pub fn count_records(path: &Path, format: Option<DataFormat>) -> Result<u64, DataError> {
    let mut reader = DataReader::open(path, format)?;
    let mut n = 0;
    while reader.next_record()?.is_some() {
        n += 1;
    }
    Ok(n)
}

/// Which positions `convert` drops, as viriformat's `Filter` names its keys. The default keeps
/// every position.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// Drop positions before this ply (`(fullmove − 1)·2`, +1 with Black to move).
    pub min_ply: u32,
    /// Drop positions with fewer pieces, kings included.
    pub min_pieces: u32,
    /// Drop positions whose |score| is at least this.
    pub max_eval: Option<u32>,
    /// Drop positions where the side to move is in check.
    pub filter_check: bool,
    /// Drop positions whose move played is a capture, en passant or a promotion (viriformat).
    pub filter_tactical: bool,
    /// Drop positions whose move played is castling (viriformat).
    pub filter_castling: bool,
    /// Drop a drawn game's positions with |score| above this, and a won game's positions
    /// where the winner's score is below minus this.
    pub max_eval_incorrectness: Option<u32>,
}

/// The filters' names, in the order they are tested (viriformat's) and
/// [`ConvertReport::dropped`] counts them: a position is counted under the first that drops it.
pub const FILTER_NAMES: [&str; 7] = [
    "min-ply",
    "max-eval",
    "min-pieces",
    "filter-tactical",
    "filter-check",
    "filter-castling",
    "max-eval-incorrectness",
];

impl Filter {
    /// The first filter (index into [`FILTER_NAMES`]) that drops `s`, if any.
    pub fn drops(&self, s: &Sample) -> Option<usize> {
        let pos = &s.data.position;
        let ply = (pos.fullmove_number().max(1) - 1) * 2
            + u32::from(pos.side_to_move() == crate::board::Color::Black);
        let eval = i64::from(s.data.white_score);
        let wrong = |x: u32| match s.data.result {
            GameResult::Draw => eval.abs() > i64::from(x),
            GameResult::WhiteWins => eval < -i64::from(x),
            GameResult::BlackWins => -eval < -i64::from(x),
        };
        let played = |f: fn(crate::board::Move) -> bool| s.played.is_some_and(f);
        let checks = [
            ply < self.min_ply,
            self.max_eval.is_some_and(|m| eval.abs() >= i64::from(m)),
            pos.occupied().len() < self.min_pieces,
            self.filter_tactical && played(|m| !m.is_quiet()),
            self.filter_check && pos.in_check(),
            self.filter_castling && played(|m| m.is_castle()),
            self.max_eval_incorrectness.is_some_and(wrong),
        ];
        checks.iter().position(|&hit| hit)
    }

    /// The option of the first filter that needs the move played (known only from viriformat
    /// games), if any filter does.
    pub fn needs_games(&self) -> Option<&'static str> {
        if self.filter_tactical {
            Some("--filter-tactical")
        } else if self.filter_castling {
            Some("--filter-castling")
        } else {
            None
        }
    }
}

/// viriformat's random skip (its loader's `random_fen_skipping`): each position the filters
/// keep is dropped with probability `probability`, drawn from a seeded generator, so the same
/// seed drops the same positions. The trainer (`filter.skip_probability`) and `sparring data
/// convert --random-skip` both decide through [`RandomSkip::skips`].
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RandomSkip {
    /// The chance of dropping each position, in [0, 1); 0 keeps every one.
    pub probability: f64,
    /// Seeds the draws.
    pub seed: u64,
}

/// The stream of `RandomSkip`'s generator, apart from the other uses of a seed.
const SKIP_STREAM: u64 = 0x736b_6970;

impl RandomSkip {
    /// Whether a kept position is skipped: one draw from `rng` when `probability` is above 0
    /// (none otherwise, so a run without skipping draws nothing).
    pub fn skips(probability: f64, rng: &mut Rng) -> bool {
        probability > 0.0 && rng.next_f64() < probability
    }

    /// The generator of this skip's draws.
    pub fn rng(&self) -> Rng {
        Rng::derive(self.seed, SKIP_STREAM)
    }
}

/// What a conversion did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConvertReport {
    /// Positions (or games, viriformat to viriformat) read.
    pub read: u64,
    /// Records written.
    pub written: u64,
    /// Positions dropped by each filter (see [`FILTER_NAMES`]).
    pub dropped: [u64; 7],
    /// Positions the filters kept that the random skip dropped.
    pub skipped: u64,
}

/// An output written to `<path>.partial`, renamed into place by [`Output::finish`].
struct Output {
    path: PathBuf,
    partial: PathBuf,
}

impl Output {
    fn create(path: &Path) -> Result<(Output, File), DataError> {
        let mut partial = path.as_os_str().to_owned();
        partial.push(".partial");
        let output = Output {
            path: path.to_path_buf(),
            partial: PathBuf::from(partial),
        };
        let file = File::create(&output.partial).map_err(|e| output.error(e))?;
        Ok((output, file))
    }

    fn error(&self, error: std::io::Error) -> DataError {
        DataError::Write {
            file: self.path.display().to_string(),
            error,
        }
    }

    fn finish(self, flushed: std::io::Result<()>) -> Result<(), DataError> {
        flushed.map_err(|e| self.error(e))?;
        std::fs::rename(&self.partial, &self.path).map_err(|e| self.error(e))
    }
}

fn open_all(inputs: &[PathBuf], from: Option<DataFormat>) -> Result<Vec<DataReader>, DataError> {
    inputs.iter().map(|p| DataReader::open(p, from)).collect()
}

/// Converts `inputs` to `to` in `out`, dropping what `filter` drops, then what `skip` drops of
/// the rest. Viriformat becomes any format; a position format becomes another position
/// format, never viriformat; viriformat to viriformat copies whole games (no filter or skip
/// applies to a whole game).
pub fn convert(
    inputs: &[PathBuf],
    from: Option<DataFormat>,
    to: DataFormat,
    out: &Path,
    filter: &Filter,
    skip: RandomSkip,
) -> Result<ConvertReport, DataError> {
    let readers = open_all(inputs, from)?;
    for reader in &readers {
        let format = reader.format();
        if to == DataFormat::Viriformat && format != DataFormat::Viriformat {
            return Err(DataError::NotGames {
                from: format.name(),
            });
        }
        if let Some(flag) = filter
            .needs_games()
            .filter(|_| format != DataFormat::Viriformat)
        {
            let (file, format) = (reader.file().to_string(), format.name());
            return Err(DataError::NeedsGames {
                filter: flag,
                file,
                format,
            });
        }
    }
    if to == DataFormat::Viriformat && (*filter != Filter::default() || skip.probability > 0.0) {
        return Err(DataError::WrongFormat {
            file: out.display().to_string(),
            found: to.name(),
            operation: "filtering",
            wanted: "a position format as output (viriformat keeps whole games)".into(),
        });
    }
    let (output, file) = Output::create(out)?;
    let mut report = ConvertReport::default();
    if to == DataFormat::Viriformat {
        let mut writer = ViriWriter::new(file);
        for mut reader in readers {
            while reader.next_record()?.is_some() {
                report.read += 1;
                writer
                    .write_raw(reader.raw())
                    .map_err(|e| output.error(e))?;
                report.written += 1;
            }
        }
        let flushed = crate::data::GameWriter::flush(&mut writer);
        return output.finish(flushed).map(|()| report);
    }
    let mut writer = PositionWriter::new(to, file).expect("a position format");
    let mut rng = skip.rng();
    for reader in readers {
        let mut samples = Samples::new(reader);
        while let Some(sample) = samples.next_sample()? {
            report.read += 1;
            match filter.drops(&sample) {
                Some(i) => report.dropped[i] += 1,
                None if RandomSkip::skips(skip.probability, &mut rng) => report.skipped += 1,
                None => {
                    writer
                        .write_position(&sample.data)
                        .map_err(|e| output.error(e))?;
                    report.written += 1;
                }
            }
        }
    }
    let flushed = crate::data::GameWriter::flush(&mut writer);
    output.finish(flushed).map(|()| report)
}

/// How `shuffle` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShuffleOptions {
    /// The seed of the order.
    pub seed: u64,
    /// The memory budget, MiB: records are spread over temporary buckets that each hold half
    /// of it on average, and one bucket at a time is shuffled in memory.
    pub memory_mb: u64,
}

/// The most temporary buckets `shuffle` opens (each an open file).
pub(crate) const MAX_BUCKETS: u64 = 1024;

fn positions_only(reader: &DataReader, operation: &'static str) -> Result<(), DataError> {
    if reader.format() == DataFormat::Viriformat {
        return Err(DataError::WrongFormat {
            file: reader.file().to_string(),
            found: reader.format().name(),
            operation,
            wanted: "a position format (marlinformat, bulletformat, text)".into(),
        });
    }
    Ok(())
}

/// Writes every record of `input` to `out` in a random order fixed by the seed, holding about
/// `memory_mb` MiB at a time: records go to `ceil(2 · size / budget)` temporary bucket files
/// beside `out` (each record to a seeded random bucket), then each bucket is read, shuffled in
/// memory and appended. Records are copied byte for byte. Returns how many there were.
pub fn shuffle(
    input: &Path,
    format: Option<DataFormat>,
    out: &Path,
    options: ShuffleOptions,
) -> Result<u64, DataError> {
    let mut reader = DataReader::open(input, format)?;
    positions_only(&reader, "shuffle")?;
    let format = reader.format();
    let read_error = |error| DataError::Read {
        file: input.display().to_string(),
        error,
    };
    let size = std::fs::metadata(input).map_err(read_error)?.len();
    let budget = options.memory_mb.max(1) << 20;
    let buckets = (2 * size).div_ceil(budget).max(1);
    if buckets > MAX_BUCKETS {
        return Err(DataError::WrongFormat {
            file: input.display().to_string(),
            found: format.name(),
            operation: "shuffle with this --memory-mb",
            wanted: format!("at most {MAX_BUCKETS} buckets: raise --memory-mb"),
        });
    }
    let mut rng = Rng::new(options.seed);
    let (output, file) = Output::create(out)?;
    let mut writer = std::io::BufWriter::with_capacity(1 << 16, file);
    let count = if buckets == 1 {
        shuffle_in_memory(&mut reader, &mut rng, &mut writer, &output)?
    } else {
        shuffle_in_buckets(&mut reader, buckets, &mut rng, &mut writer, &output)?
    };
    let flushed = writer.flush();
    output.finish(flushed).map(|()| count)
}

/// Reads all records of `reader`, shuffles them and writes them: memory is the records' bytes
/// plus a word for each.
fn shuffle_in_memory(
    reader: &mut DataReader,
    rng: &mut Rng,
    writer: &mut impl Write,
    output: &Output,
) -> Result<u64, DataError> {
    let mut bytes = Vec::new();
    let mut starts = Vec::new();
    while reader.next_record()?.is_some() {
        starts.push(bytes.len());
        bytes.extend_from_slice(reader.raw());
    }
    let mut order: Vec<usize> = (0..starts.len()).collect();
    rng.shuffle(&mut order);
    for i in order {
        let end = starts.get(i + 1).copied().unwrap_or(bytes.len());
        writer
            .write_all(&bytes[starts[i]..end])
            .map_err(|e| output.error(e))?;
    }
    Ok(starts.len() as u64)
}

/// Spreads records over `buckets` temporary files, then shuffles each in memory.
fn shuffle_in_buckets(
    reader: &mut DataReader,
    buckets: u64,
    rng: &mut Rng,
    writer: &mut impl Write,
    output: &Output,
) -> Result<u64, DataError> {
    let format = reader.format();
    let names: Vec<PathBuf> = (0..buckets)
        .map(|i| output.partial.with_extension(format!("bucket{i}")))
        .collect();
    let result = (|| {
        let mut files = Vec::new();
        for name in &names {
            let file = File::create(name).map_err(|e| output.error(e))?;
            files.push(std::io::BufWriter::with_capacity(1 << 13, file));
        }
        while reader.next_record()?.is_some() {
            let bucket = &mut files[rng.below(buckets) as usize];
            bucket
                .write_all(reader.raw())
                .map_err(|e| output.error(e))?;
        }
        for mut file in files {
            file.flush().map_err(|e| output.error(e))?;
        }
        let mut count = 0;
        for name in &names {
            let mut bucket = DataReader::open(name, Some(format))?;
            match shuffle_in_memory(&mut bucket, rng, writer, output) {
                Ok(n) => count += n,
                // An empty bucket (a small file over many buckets) holds nothing to shuffle.
                Err(DataError::Empty { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(count)
    })();
    for name in &names {
        let _ = std::fs::remove_file(name);
    }
    result
}

/// Merges files of one format into `out`: each next record comes from a file chosen with
/// probability proportional to the records it has left (seeded), so every file is spread
/// evenly through the output. Records are copied byte for byte; returns how many.
pub fn interleave(
    inputs: &[PathBuf],
    format: Option<DataFormat>,
    out: &Path,
    seed: u64,
) -> Result<u64, DataError> {
    let mut readers = open_all(inputs, format)?;
    let first = readers.first().map(DataReader::format);
    for reader in &readers {
        if Some(reader.format()) != first {
            return Err(DataError::WrongFormat {
                file: reader.file().to_string(),
                found: reader.format().name(),
                operation: "interleave",
                wanted: format!("one format ({})", first.map_or("", DataFormat::name)),
            });
        }
    }
    let mut left = Vec::new();
    for input in inputs {
        left.push(count_records(input, first.or(format))?);
    }
    let (output, file) = Output::create(out)?;
    let mut writer = std::io::BufWriter::with_capacity(1 << 16, file);
    let mut rng = Rng::new(seed);
    let mut total: u64 = left.iter().sum();
    let mut written = 0;
    while total > 0 {
        let mut pick = rng.below(total);
        let i = left.iter().position(|&n| {
            pick < n || {
                pick -= n;
                false
            }
        });
        let i = i.expect("pick is below the total");
        if readers[i].next_record()?.is_none() {
            // The file shrank since it was counted: nothing more to take from it.
            total -= left[i];
            left[i] = 0;
            continue;
        }
        writer
            .write_all(readers[i].raw())
            .map_err(|e| output.error(e))?;
        written += 1;
        left[i] -= 1;
        total -= 1;
    }
    let flushed = writer.flush();
    output.finish(flushed).map(|()| written)
}
