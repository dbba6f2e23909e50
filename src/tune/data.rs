//! Training data: labelled positions read once from EPD files and packed into a compact sparse
//! form (one flat coefficient buffer for the tuned parameters, a small fixed-size entry per
//! position), so every epoch is a streaming pass over memory rather than a re-evaluation.

use super::selection::{Packer, ParamSelection};
use crate::board::{FenError, Position};
use crate::eval::MAX_PHASE;
use crate::rng::Rng;
use rayon::prelude::*;
use std::io::Read;
use std::path::Path;
use thiserror::Error;

/// One nonzero coefficient: a tuned parameter's compact index and its White-minus-Black count.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
#[repr(C)]
pub struct Coef {
    pub index: u16,
    pub count: i16,
}

/// One position: where its coefficients are, its phase and label, and the frozen (untuned)
/// terms already summed, since they never change during a run. 16 bytes.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
#[repr(C)]
pub struct Entry {
    /// Start of this position's coefficients in the shared buffer.
    pub offset: u32,
    pub len: u16,
    /// Game phase, 0..=24.
    pub phase: u8,
    /// The label in units of 1/`LABEL_SCALE` (see `Entry::label`).
    pub label_units: u8,
    /// Middlegame and endgame sums of count × weight over the frozen parameters.
    pub frozen: (i32, i32),
}

/// Labels are stored in 240ths: results (0, ½, 1) and halves, thirds, quarters, fifths, sixths
/// and eighths are exact, and any probability is within 1/480.
pub const LABEL_SCALE: f32 = 240.0;

impl Entry {
    /// The expected score from White's point of view: 1 win, 0.5 draw, 0 loss (or a probability).
    #[inline(always)]
    pub fn label(&self) -> f32 {
        self.label_units as f32 * (1.0 / LABEL_SCALE)
    }

    /// The stored form of a label in [0, 1].
    pub fn label_to_units(label: f32) -> u8 {
        (label.clamp(0.0, 1.0) * LABEL_SCALE).round() as u8
    }
}

/// Labelled positions in packed form. The coefficient indices are compact indices into the
/// `ParamSelection` used to build the set (all of them below `num_params`).
#[derive(Clone, Debug, Default)]
pub struct Dataset {
    coeffs: Vec<Coef>,
    entries: Vec<Entry>,
    num_params: usize,
    /// The game each position came from (`NO_GAME` if unknown), kept only until `split`, which
    /// uses it to put whole games on one side so validation positions are unseen games.
    games: Vec<u32>,
    /// The recorded search score of each position (`ce`, White's view, cp; `NO_SCORE` if none),
    /// kept only until `blend_scores` folds it into the labels.
    scores: Vec<i16>,
    /// Replace each position read by the end of its quiescence principal variation.
    resolve: bool,
}

/// The score of a position whose line carries no `ce`.
const NO_SCORE: i16 = i16::MIN;

/// The `ce <cp>` operation of an EPD line (side to move's view), if any.
fn search_score(line: &str) -> Option<i32> {
    // After the FEN's four fields, the operations: `ce` starts one of them.
    let mut fields = line.split_ascii_whitespace().skip(4);
    let mut at_op_start = true;
    while let Some(token) = fields.next() {
        if at_op_start && token == "ce" {
            let value = fields.next()?.trim_end_matches(';');
            return value.parse().ok();
        }
        // The clocks of a six-field FEN come before the first operation.
        at_op_start = token.ends_with(';') || token.bytes().all(|b| b.is_ascii_digit());
    }
    None
}

/// The game id of a position whose line carries none.
const NO_GAME: u32 = u32::MAX;

/// The game number in a sparring positions line's `id "<game>.<n>";` operation.
fn game_id(line: &str) -> u32 {
    let Some(at) = line.find("id \"") else {
        return NO_GAME;
    };
    let digits: &str = &line[at + 4..];
    let end = digits
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(digits.len());
    digits[..end].parse().unwrap_or(NO_GAME)
}

/// What is wrong with one line of a data file.
#[derive(Error, Debug, Clone, PartialEq)]
pub enum LineErrorKind {
    #[error("bad FEN: {0}")]
    Fen(#[from] FenError),
    #[error("no result label: expected c9 \"1-0\" / \"0-1\" / \"1/2-1/2\" or a trailing [1.0] / [0.5] / [0.0]")]
    MissingLabel,
    #[error("bad result label `{found}`: expected 1-0, 0-1, 1/2-1/2 or a number from 0 to 1")]
    BadLabel { found: String },
    #[error("more than one result label (c9 given twice)")]
    DuplicateLabel,
    #[error("`{found}` after the label: expected nothing or `;`")]
    TrailingText { found: String },
    #[error("the line is not valid UTF-8")]
    NotUtf8,
}

/// A skipped line: file, 1-based line number and what is wrong.
#[derive(Error, Debug, Clone, PartialEq)]
#[error("{file}:{line}: {kind}")]
pub struct LineError {
    pub file: String,
    pub line: usize,
    pub kind: LineErrorKind,
}

/// A data file that cannot be used at all (as opposed to a bad line, which is skipped).
#[derive(Error, Debug)]
pub enum DataError {
    #[error("{file}: cannot read: {source}")]
    Io {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{file}: too many coefficients for one data set (more than 2^32); use fewer positions"
    )]
    TooLarge { file: String },
}

/// The outcome of loading: counts per file and the skipped lines.
#[derive(Clone, Debug, Default)]
pub struct LoadReport {
    /// (file, positions loaded from it) in load order.
    pub files: Vec<(String, usize)>,
    pub positions: usize,
    /// Every skipped line is counted here ...
    pub skipped: usize,
    /// ... but only the first `MAX_KEPT_ERRORS` are kept, so a wrong file cannot fill memory.
    pub errors: Vec<LineError>,
}

/// How many bad lines a `LoadReport` keeps verbatim.
pub const MAX_KEPT_ERRORS: usize = 1000;

/// Lines per parallel work item when loading: big enough to amortise scheduling, small enough to
/// balance. The split never depends on the thread count, so neither does the result.
const LOAD_CHUNK_LINES: usize = 2048;

/// Bytes read from a file per block; lines are processed in parallel a block at a time, so a huge
/// file never has to be in memory at once.
const READ_BLOCK: usize = 16 << 20;

/// A result string or number as a White-view score: "1-0" 1, "0-1" 0, "1/2-1/2" 0.5, or a number
/// in [0, 1].
fn result_value(s: &str) -> Result<f32, LineErrorKind> {
    let s = s.trim();
    let v = match s {
        "1-0" => 1.0,
        "0-1" => 0.0,
        "1/2-1/2" | "1/2" | "½-½" => 0.5,
        _ => match s.parse::<f32>() {
            Ok(v) if (0.0..=1.0).contains(&v) => v,
            _ => {
                return Err(LineErrorKind::BadLabel {
                    found: s.to_string(),
                })
            }
        },
    };
    Ok(v)
}

/// The label from EPD operations (`c9 "1-0"; c0 ...; ce 10;` in any order). `None` when there is
/// no `c9`.
fn epd_operations_label(ops: &str) -> Result<Option<f32>, LineErrorKind> {
    let mut label = None;
    let mut rest = ops;
    while !rest.is_empty() {
        // An operation ends at the first ';' outside double quotes.
        let mut in_quotes = false;
        let mut end = rest.len();
        for (i, b) in rest.bytes().enumerate() {
            match b {
                b'"' => in_quotes = !in_quotes,
                b';' if !in_quotes => {
                    end = i;
                    break;
                }
                _ => {}
            }
        }
        let op = rest[..end].trim();
        rest = rest.get(end + 1..).unwrap_or("");
        let (opcode, operand) = op.split_once(char::is_whitespace).unwrap_or((op, ""));
        if opcode == "c9" {
            if label.is_some() {
                return Err(LineErrorKind::DuplicateLabel);
            }
            let operand = operand.trim();
            let unquoted = operand
                .strip_prefix('"')
                .and_then(|s| s.strip_suffix('"'))
                .unwrap_or(operand);
            label = Some(result_value(unquoted)?);
        }
    }
    Ok(label)
}

/// Splits a data line into its FEN and its White-view label. Returns `Ok(None)` for a blank line
/// or a `#` comment. Accepted forms: `<FEN> c9 "1-0";` (any EPD operations, any order),
/// `<FEN> [1.0]`, `<FEN> [1-0]`, `<FEN>; [0.5]`, `<FEN> | 0.5` and a bare `<FEN> 1.0`, where
/// `<FEN>` has 4 fields or 6.
pub fn parse_line(line: &str) -> Result<Option<(&str, f32)>, LineErrorKind> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    // The FEN is the first four whitespace-separated fields plus up to two numeric clocks.
    let bytes = line.as_bytes();
    let mut fen_end = 0;
    let mut pos = 0;
    let mut fields = 0;
    while fields < 6 {
        while pos < bytes.len() && bytes[pos].is_ascii_whitespace() {
            pos += 1;
        }
        if pos == bytes.len() {
            break;
        }
        let start = pos;
        while pos < bytes.len() && !bytes[pos].is_ascii_whitespace() {
            pos += 1;
        }
        // A `;` glued to a field ends the FEN there (`<FEN>; [0.5]`).
        let token_end = if bytes[pos - 1] == b';' { pos - 1 } else { pos };
        if fields >= 4 && !bytes[start..token_end].iter().all(u8::is_ascii_digit) {
            break;
        }
        fields += 1;
        fen_end = token_end;
        if token_end < pos {
            break;
        }
    }
    if fields < 4 {
        return Err(LineErrorKind::Fen(FenError::FieldCount { found: fields }));
    }
    let fen = &line[..fen_end];
    let rest = line[fen_end..].trim_start();
    let rest = rest
        .strip_prefix(';')
        .or_else(|| rest.strip_prefix('|'))
        .unwrap_or(rest)
        .trim();
    if rest.is_empty() {
        return Err(LineErrorKind::MissingLabel);
    }
    let label = if let Some(inner) = rest.strip_prefix('[') {
        let Some((value, after)) = inner.split_once(']') else {
            return Err(LineErrorKind::BadLabel {
                found: rest.to_string(),
            });
        };
        let after = after.trim();
        if !after.is_empty() && after != ";" {
            return Err(LineErrorKind::TrailingText {
                found: after.to_string(),
            });
        }
        result_value(value)?
    } else if let Some(label) = epd_operations_label(rest)? {
        label
    } else if !rest.contains(char::is_whitespace) && !rest.contains('"') {
        // A bare label such as `1.0` or `1-0` (a lone opcode without c9 fails here too).
        let bare = rest.strip_suffix(';').unwrap_or(rest);
        result_value(bare).map_err(|_| LineErrorKind::MissingLabel)?
    } else {
        return Err(LineErrorKind::MissingLabel);
    };
    Ok(Some((fen, label)))
}

/// The packed output of one run of lines.
#[derive(Default)]
struct Packed {
    coeffs: Vec<Coef>,
    entries: Vec<Entry>,
    games: Vec<u32>,
    scores: Vec<i16>,
    errors: Vec<LineError>,
    skipped: usize,
}

impl Packed {
    /// Appends one position; offsets are relative to this pack's buffer.
    fn push(&mut self, pos: &Position, label: f32, game: u32, score: i16, packer: &mut Packer) {
        self.games.push(game);
        self.scores.push(score);
        let offset = self.coeffs.len();
        let (frozen, len, phase) = packer.pack(pos, &mut self.coeffs);
        self.entries.push(Entry {
            offset: offset as u32,
            len: len as u16,
            phase: phase.clamp(0, MAX_PHASE) as u8,
            label_units: Entry::label_to_units(label),
            frozen,
        });
    }
}

impl Dataset {
    /// An empty set for parameters selected by `selection`.
    pub fn new(selection: &ParamSelection) -> Dataset {
        Dataset {
            coeffs: Vec::new(),
            entries: Vec::new(),
            num_params: selection.len(),
            games: Vec::new(),
            scores: Vec::new(),
            resolve: false,
        }
    }

    /// From now on, every position read is first resolved to the end of its quiescence principal
    /// variation under the selection's starting weights (Texel's method scores that leaf), so
    /// data files need not hold quiet positions only.
    pub fn resolve_quiescence(&mut self, on: bool) {
        self.resolve = on;
    }

    /// Packs positions with known labels (White's view): the path tests and benchmarks use.
    pub fn from_positions(
        positions: &[Position],
        labels: &[f32],
        selection: &ParamSelection,
    ) -> Dataset {
        assert_eq!(positions.len(), labels.len(), "one label per position");
        let mut packed = Packed::default();
        let mut packer = Packer::new(selection);
        for (pos, &label) in positions.iter().zip(labels) {
            packed.push(pos, label, NO_GAME, NO_SCORE, &mut packer);
        }
        let mut data = Dataset::new(selection);
        data.append(packed, "positions")
            .expect("in-memory sets are small");
        data.shrink_to_fit();
        data
    }

    /// Reads and packs every file in order, skipping bad lines (counted and kept in the report).
    /// With `resolve`, see `resolve_quiescence`.
    pub fn load_files(
        files: &[impl AsRef<Path>],
        selection: &ParamSelection,
        resolve: bool,
    ) -> Result<(Dataset, LoadReport), DataError> {
        let mut data = Dataset::new(selection);
        data.resolve_quiescence(resolve);
        let mut report = LoadReport::default();
        for path in files {
            let path = path.as_ref();
            let name = path.display().to_string();
            let file = std::fs::File::open(path).map_err(|source| DataError::Io {
                file: name.clone(),
                source,
            })?;
            data.load_reader(file, &name, selection, &mut report)?;
        }
        Ok((data, report))
    }

    /// Reads EPD lines from `reader` (named `source` in errors) and appends them. Blocks of lines
    /// are parsed and traced in parallel; the result does not depend on the thread count.
    pub fn load_reader(
        &mut self,
        reader: impl Read,
        source: &str,
        selection: &ParamSelection,
        report: &mut LoadReport,
    ) -> Result<(), DataError> {
        self.load_blocks(reader, source, selection, report, READ_BLOCK)
    }

    /// `load_reader` reading `block` bytes at a time.
    fn load_blocks(
        &mut self,
        mut reader: impl Read,
        source: &str,
        selection: &ParamSelection,
        report: &mut LoadReport,
        block: usize,
    ) -> Result<(), DataError> {
        assert_eq!(self.num_params, selection.len(), "same selection");
        let io_error = |source_err| DataError::Io {
            file: source.to_string(),
            source: source_err,
        };
        let before = self.entries.len();
        let mut buf: Vec<u8> = Vec::with_capacity(block + 4096);
        let mut first_line = 1;
        let mut eof = false;
        while !eof {
            // Fill the block, then process up to its last newline and carry the rest over.
            let carried = buf.len();
            buf.resize(carried + block, 0);
            let mut filled = carried;
            while filled < buf.len() {
                match reader.read(&mut buf[filled..]) {
                    Ok(0) => {
                        eof = true;
                        break;
                    }
                    Ok(n) => filled += n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(io_error(e)),
                }
            }
            buf.truncate(filled);
            let end = if eof {
                buf.len()
            } else {
                match buf.iter().rposition(|&b| b == b'\n') {
                    Some(i) => i + 1,
                    // A single line longer than a block: keep reading into it.
                    None => continue,
                }
            };
            let lines = split_lines(&buf[..end]);
            let line_count = lines.len();
            let packs: Vec<Packed> = lines
                .par_chunks(LOAD_CHUNK_LINES)
                .enumerate()
                .map(|(chunk, lines)| {
                    let base = first_line + chunk * LOAD_CHUNK_LINES;
                    pack_lines(lines, base, source, selection, self.resolve)
                })
                .collect();
            for pack in packs {
                report.skipped += pack.skipped;
                let room = MAX_KEPT_ERRORS.saturating_sub(report.errors.len());
                report.errors.extend(pack.errors.iter().take(room).cloned());
                self.append(pack, source)?;
            }
            first_line += line_count;
            buf.drain(..end);
        }
        self.shrink_to_fit();
        let loaded = self.entries.len() - before;
        report.files.push((source.to_string(), loaded));
        report.positions += loaded;
        Ok(())
    }

    /// Moves a pack's positions in, fixing up offsets.
    fn append(&mut self, pack: Packed, source: &str) -> Result<(), DataError> {
        let base = self.coeffs.len();
        if base + pack.coeffs.len() > u32::MAX as usize {
            return Err(DataError::TooLarge {
                file: source.to_string(),
            });
        }
        self.coeffs.extend_from_slice(&pack.coeffs);
        self.games.extend_from_slice(&pack.games);
        self.scores.extend_from_slice(&pack.scores);
        self.entries.extend(pack.entries.into_iter().map(|mut e| {
            e.offset += base as u32;
            e
        }));
        Ok(())
    }

    fn shrink_to_fit(&mut self) {
        self.coeffs.shrink_to_fit();
        self.entries.shrink_to_fit();
        self.games.shrink_to_fit();
        self.scores.shrink_to_fit();
    }

    /// Number of positions.
    #[inline]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The number of tuned parameters the coefficients index into.
    #[inline]
    pub fn num_params(&self) -> usize {
        self.num_params
    }

    #[inline]
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The whole coefficient buffer (entries point into it).
    #[inline]
    pub fn coeffs(&self) -> &[Coef] {
        &self.coeffs
    }

    /// The coefficients of position `i`.
    #[inline]
    pub fn coefficients(&self, i: usize) -> &[Coef] {
        let e = &self.entries[i];
        &self.coeffs[e.offset as usize..e.offset as usize + e.len as usize]
    }

    /// Average number of stored (tuned, nonzero) coefficients per position.
    pub fn average_coefficients(&self) -> f64 {
        self.coeffs.len() as f64 / self.entries.len().max(1) as f64
    }

    /// Heap bytes held, per position (entries plus coefficients).
    pub fn bytes_per_position(&self) -> f64 {
        let bytes = self.entries.capacity() * std::mem::size_of::<Entry>()
            + self.coeffs.capacity() * std::mem::size_of::<Coef>();
        bytes as f64 / self.entries.len().max(1) as f64
    }

    /// Mixes the recorded search scores into the labels: label = (1 − weight) × result +
    /// weight × expected score of the search score under the sigmoid with scale `k`. Positions
    /// without a score keep their result. Frees the scores; returns how many had none.
    pub fn blend_scores(&mut self, weight: f64, k: f64) -> usize {
        let scores = std::mem::take(&mut self.scores);
        if weight <= 0.0 {
            return 0;
        }
        let mut without = 0;
        for (i, e) in self.entries.iter_mut().enumerate() {
            match scores.get(i) {
                Some(&cp) if cp != NO_SCORE => {
                    let expected = super::model::sigmoid(k, cp as f64);
                    let label = (1.0 - weight) * e.label() as f64 + weight * expected;
                    e.label_units = Entry::label_to_units(label as f32);
                }
                _ => without += 1,
            }
        }
        without
    }

    /// How many positions each tuned parameter occurs in (nonzero coefficient).
    pub fn occurrences(&self) -> Vec<u32> {
        let mut seen = vec![0u32; self.num_params];
        for c in &self.coeffs {
            seen[c.index as usize] += 1;
        }
        seen
    }

    /// Splits into (training, validation) sets: `round(len × fraction)` positions go to
    /// validation, drawn with `seed` — whole games at a time when every line named its game
    /// (sparring's `id "<game>.<n>"`), single positions otherwise. Each set gets its own contiguous buffer, in its
    /// new order, so epochs read memory sequentially.
    pub fn split(self, validation_fraction: f64, seed: u64) -> (Dataset, Dataset) {
        let (order, n_val) =
            split_order(&self.games, self.entries.len(), validation_fraction, seed);
        let subset = |indices: &[u32]| {
            let mut out = Dataset {
                coeffs: Vec::with_capacity(
                    indices
                        .iter()
                        .map(|&i| self.entries[i as usize].len as usize)
                        .sum(),
                ),
                entries: Vec::with_capacity(indices.len()),
                num_params: self.num_params,
                games: Vec::new(),
                scores: if self.scores.len() == self.entries.len() {
                    indices.iter().map(|&i| self.scores[i as usize]).collect()
                } else {
                    Vec::new()
                },
                resolve: false,
            };
            for &i in indices {
                let mut e = self.entries[i as usize];
                out.coeffs.extend_from_slice(self.coefficients(i as usize));
                e.offset = (out.coeffs.len() - e.len as usize) as u32;
                out.entries.push(e);
            }
            out
        };
        let validation = subset(&order[..n_val]);
        let training = subset(&order[n_val..]);
        (training, validation)
    }
}

/// The order in which positions are split and how many of the first go to validation: whole
/// games at a time when every position names its game, single positions otherwise.
fn split_order(games: &[u32], len: usize, fraction: f64, seed: u64) -> (Vec<u32>, usize) {
    let mut rng = Rng::new(seed);
    let mut order: Vec<u32> = (0..len as u32).collect();
    let target = ((len as f64 * fraction).round() as usize).min(len);
    let by_game = games.len() == len && len > 0 && games.iter().all(|&g| g != NO_GAME);
    if !by_game {
        rng.shuffle(&mut order);
        return (order, target);
    }
    // Whole games, in a seeded order, until the validation share is reached.
    let mut ids: Vec<u32> = games.to_vec();
    ids.sort_unstable();
    ids.dedup();
    rng.shuffle(&mut ids);
    let rank: std::collections::HashMap<u32, usize> =
        ids.iter().enumerate().map(|(r, &g)| (g, r)).collect();
    order.sort_by_key(|&i| (rank[&games[i as usize]], i));
    let mut n = target;
    while n > 0 && n < len && games[order[n] as usize] == games[order[n - 1] as usize] {
        n += 1;
    }
    // Training positions are reshuffled so mini-batches mix games.
    rng.shuffle(&mut order[n..]);
    (order, n)
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

/// Parses, traces and packs a run of lines; `first` is the line number of `lines[0]`.
fn pack_lines(
    lines: &[&[u8]],
    first: usize,
    source: &str,
    selection: &ParamSelection,
    resolve: bool,
) -> Packed {
    let mut pack = Packed {
        coeffs: Vec::with_capacity(lines.len() * 40),
        entries: Vec::with_capacity(lines.len()),
        ..Packed::default()
    };
    let mut packer = Packer::new(selection);
    let mut searcher = resolve
        .then(|| crate::search::Searcher::new(std::sync::Arc::new(selection.start().clone()), 1));
    for (i, bytes) in lines.iter().enumerate() {
        let parsed = std::str::from_utf8(bytes)
            .map_err(|_| LineErrorKind::NotUtf8)
            .and_then(|line| {
                let Some((fen, label)) = parse_line(line)? else {
                    return Ok(None);
                };
                let mut pos = Position::from_fen_lenient(fen)?;
                // Stored from White's side (of the line's position), like the label.
                let score = search_score(line).map_or(NO_SCORE, |cp| {
                    let white = if pos.side_to_move() == crate::board::Color::White {
                        cp
                    } else {
                        -cp
                    };
                    white.clamp(-30_000, 30_000) as i16
                });
                if let Some(searcher) = searcher.as_mut() {
                    for mv in searcher.quiescence_pv(&pos).1 {
                        pos.make_move(mv);
                    }
                }
                Ok(Some((pos, label, game_id(line), score)))
            });
        match parsed {
            Ok(Some((pos, label, game, score))) => pack.push(&pos, label, game, score, &mut packer),
            Ok(None) => {}
            Err(kind) => {
                pack.skipped += 1;
                if pack.errors.len() < MAX_KEPT_ERRORS {
                    pack.errors.push(LineError {
                        file: source.to_string(),
                        line: first + i,
                        kind,
                    });
                }
            }
        }
    }
    pack
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_scores_are_read_from_the_ce_operation() {
        assert_eq!(search_score("8/8 w - - ce -170; c9 \"1-0\";"), Some(-170));
        assert_eq!(
            search_score("8/8 w - - c9 \"1-0\"; ce 35; id \"1.2.3\";"),
            Some(35)
        );
        assert_eq!(search_score("8/8 w - - 0 1 ce 12;"), Some(12));
        assert_eq!(search_score("8/8 w - - c9 \"1-0\";"), None);
        assert_eq!(search_score("8/8 w - - c0 \"ce 5\"; c9 \"1-0\";"), None);
    }

    #[test]
    fn split_keeps_games_whole() {
        use std::collections::HashSet;
        assert_eq!(game_id("8/8 w - - c9 \"1-0\"; id \"17.3\";"), 17);
        assert_eq!(game_id("8/8 w - - c9 \"1-0\";"), NO_GAME);
        // 50 games of 1..=9 positions each.
        let games: Vec<u32> = (0..50u32)
            .flat_map(|g| std::iter::repeat(g).take(1 + g as usize % 9))
            .collect();
        let (order, n_val) = split_order(&games, games.len(), 0.2, 7);
        let validation: HashSet<u32> = order[..n_val].iter().map(|&i| games[i as usize]).collect();
        let training: HashSet<u32> = order[n_val..].iter().map(|&i| games[i as usize]).collect();
        assert!(validation.is_disjoint(&training));
        assert!(n_val >= games.len() / 5 && n_val < games.len() / 5 + 9);
        let mut all = order.clone();
        all.sort_unstable();
        assert_eq!(all, (0..games.len() as u32).collect::<Vec<_>>());
        // Without game ids: positions are split one by one.
        let (order, n_val) = split_order(&[], 100, 0.1, 7);
        assert_eq!((order.len(), n_val), (100, 10));
    }

    const FEN: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -";

    fn label(line: &str) -> Result<f32, LineErrorKind> {
        parse_line(line).map(|p| p.expect("a position").1)
    }

    #[test]
    fn labels_in_every_accepted_form() {
        assert_eq!(label(&format!("{FEN} c9 \"1-0\";")), Ok(1.0));
        assert_eq!(label(&format!("{FEN} c9 \"0-1\";")), Ok(0.0));
        assert_eq!(label(&format!("{FEN} c9 \"1/2-1/2\";")), Ok(0.5));
        assert_eq!(
            label(&format!("{FEN} c0 \"a; b\"; ce 35; c9 \"1-0\"; id \"x\";")),
            Ok(1.0)
        );
        assert_eq!(label(&format!("{FEN} [1.0]")), Ok(1.0));
        assert_eq!(label(&format!("{FEN} 0 1 [0.5]")), Ok(0.5));
        assert_eq!(label(&format!("{FEN}; [0.0]")), Ok(0.0));
        assert_eq!(
            parse_line(&format!("{FEN} 0 1; [0.0]")).unwrap(),
            Some((format!("{FEN} 0 1").as_str(), 0.0))
        );
        assert_eq!(label(&format!("{FEN} [1-0]")), Ok(1.0));
        assert_eq!(label(&format!("{FEN} [1/2-1/2];")), Ok(0.5));
        assert_eq!(label(&format!("{FEN} | 0.25")), Ok(0.25));
        assert_eq!(label(&format!("{FEN} 0.75")), Ok(0.75));
        assert_eq!(
            parse_line(&format!("  {FEN} 3 17 c9 \"1-0\";\r")).unwrap(),
            Some((format!("{FEN} 3 17").as_str(), 1.0))
        );
        assert_eq!(parse_line("   "), Ok(None));
        assert_eq!(parse_line("# a comment"), Ok(None));
    }

    #[test]
    fn bad_labels_are_named() {
        assert_eq!(label(FEN), Err(LineErrorKind::MissingLabel));
        assert_eq!(
            label(&format!("{FEN} ce 10;")),
            Err(LineErrorKind::MissingLabel)
        );
        assert_eq!(
            label(&format!("{FEN} c9 \"*\";")),
            Err(LineErrorKind::BadLabel {
                found: "*".to_string()
            })
        );
        assert_eq!(
            label(&format!("{FEN} [1.5]")),
            Err(LineErrorKind::BadLabel {
                found: "1.5".to_string()
            })
        );
        assert_eq!(
            label(&format!("{FEN} c9 \"1-0\"; c9 \"0-1\";")),
            Err(LineErrorKind::DuplicateLabel)
        );
        assert_eq!(
            label(&format!("{FEN} [1.0] extra")),
            Err(LineErrorKind::TrailingText {
                found: "extra".to_string()
            })
        );
        assert_eq!(
            label("8/8/8 w [1.0]"),
            Err(LineErrorKind::Fen(FenError::FieldCount { found: 3 }))
        );
    }

    #[test]
    fn blocks_do_not_change_positions_or_line_numbers() {
        let selection = ParamSelection::groups(
            crate::eval::EvalParams::default(),
            &crate::eval::ParamGroup::ALL,
        );
        let mut text = String::new();
        for (i, pos) in crate::tune::synthetic::playout_positions(1, 300)
            .iter()
            .enumerate()
        {
            match i % 37 {
                0 => text.push_str("not a fen c9 \"1-0\";\n"),
                1 => text.push('\n'),
                _ => text.push_str(&format!("{} [{}]\n", pos.to_fen(), (i % 3) as f32 / 2.0)),
            }
        }
        text.push_str(&format!("{FEN} c9 \"1-0\";")); // no final newline
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

    #[test]
    fn lines_split_on_lf_and_crlf() {
        assert_eq!(
            split_lines(b"a\r\nb\n\nc"),
            vec![&b"a"[..], &b"b"[..], &b""[..], &b"c"[..]]
        );
        assert_eq!(split_lines(b"a\n"), vec![&b"a"[..]]);
    }
}
