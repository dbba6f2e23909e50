//! Training data: labelled positions read once from EPD files and packed into a compact sparse
//! form (one flat coefficient buffer for the tuned parameters, a small fixed-size entry per
//! position), so every epoch is a streaming pass over memory rather than a re-evaluation.
//!
//! `files` expands a data list (paths and glob patterns), `read` reads files block by block,
//! `pack` turns lines into packed positions, `split` divides a set into training and validation
//! sets; the packed types themselves are in `texel::packed`.
//!
//! Memory: a packed position costs `size_of::<Entry>()` (16) bytes plus 4 per nonzero tuned
//! coefficient (about 34 with every group tuned, so about 150 bytes), plus 6 bytes (pair and
//! score) until the split and, with dedupe, about 17–34 bytes of key table until loading ends.
//! The text is read in blocks and never held whole. docs/tuning-at-scale.md has the measurements.

mod files;
mod pack;
mod read;
mod split;

pub use files::expand_data_files;
pub use read::{
    check_data_files, open_data_file, DataError, FileReport, LineError, LineErrorKind, LoadOptions,
    LoadReport, MAX_LINE_BYTES, READ_BLOCK,
};

use crate::board::Position;
use crate::texel::packed::{Coef, Entry, Extra};
use crate::texel::selection::PackSource;
use pack::{Packed, NO_PAIR, NO_SCORE};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Zobrist keys are already uniformly random: the table hashes them by taking them as they are.
#[derive(Clone, Copy, Debug, Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `write_u64` is used (the keys are u64); anything else is folded in all the same.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }

    fn write_u64(&mut self, key: u64) {
        self.0 = key;
    }
}

/// The running sums of a position that absorbed repeats: its label becomes their mean.
#[derive(Clone, Copy, Debug)]
struct Merged {
    first_label: u8,
    label_sum: f64,
    labels: u32,
    score_sum: i64,
    scores: u32,
}

/// While loading with dedupe: where each position key was first stored, and the sums of the
/// positions that absorbed repeats. Dropped when loading ends.
#[derive(Clone, Debug, Default)]
struct Dedupe {
    first: HashMap<u64, u32, BuildHasherDefault<KeyHasher>>,
    merged: HashMap<u32, Merged>,
}

/// How many positions of a pack were repeats, and how many of those had another label.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct MergeCounts {
    pub duplicates: usize,
    pub(crate) with_other_label: usize,
}

/// Labelled positions in packed form. The coefficient indices are compact indices into the
/// `ParamSelection` used to build the set (all of them below `num_params`).
#[derive(Clone, Debug, Default)]
pub struct Dataset {
    coeffs: Vec<Coef>,
    entries: Vec<Entry>,
    num_params: usize,
    /// Each position's remainder and endgame scale: for evaluations other than sparring's own
    /// (`extended`), one per entry; otherwise empty.
    extras: Vec<Extra>,
    extended: bool,
    /// The blend's divisor (the phase with every piece on).
    phase_max: i32,
    /// The pair of games each position came from (`NO_PAIR` if unknown), kept only until
    /// `split`, which uses it to put whole pairs on one side so validation positions are unseen
    /// games.
    pairs: Vec<u32>,
    /// The recorded search score of each position (`ce`, White's view, cp; `NO_SCORE` if none),
    /// kept only until `blend_scores` folds it into the labels.
    scores: Vec<i16>,
    /// Replace each position read by the end of its quiescence principal variation.
    resolve: bool,
    /// Merge repeated positions while loading (`None`: keep every copy).
    dedupe: Option<Box<Dedupe>>,
}

impl Dataset {
    /// An empty set for parameters selected by `selection`.
    pub fn new(selection: &impl PackSource) -> Dataset {
        Dataset {
            coeffs: Vec::new(),
            entries: Vec::new(),
            num_params: selection.num_params(),
            extras: Vec::new(),
            extended: selection.extended(),
            phase_max: selection.phase_max(),
            pairs: Vec::new(),
            scores: Vec::new(),
            resolve: false,
            dedupe: None,
        }
    }

    /// From now on, a position whose Zobrist key (after any resolution) was read before is not
    /// stored again: it is merged into the first copy, whose label becomes the mean label of
    /// all copies and whose score the mean of their scores (those that have one). For the loss,
    /// k copies with labels y₁…y_k pull σ toward their mean ȳ exactly as one copy labelled ȳ
    /// does (Σ(σ − yᵢ)² = k(σ − ȳ)² + const): the mean keeps what the data says about the
    /// position and stops a position repeated across shards (or an opening position reached
    /// in many games) from weighing k times. The first copy keeps its pair of games, so the
    /// result is the same for any thread count and depends only on the order of the files.
    pub fn deduplicate(&mut self, on: bool) {
        self.dedupe = on.then(Box::default);
    }

    /// Ends loading: frees the dedupe table and any spare capacity.
    pub fn finish_loading(&mut self) {
        self.dedupe = None;
        self.shrink_to_fit();
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
        selection: &impl PackSource,
    ) -> Dataset {
        Dataset::try_from_positions(positions, labels, selection)
            .expect("the evaluation traces every position")
    }

    /// `from_positions` for an evaluation that may fail to trace a position.
    pub fn try_from_positions(
        positions: &[Position],
        labels: &[f32],
        selection: &impl PackSource,
    ) -> Result<Dataset, crate::texel::tunable::TraceError> {
        assert_eq!(positions.len(), labels.len(), "one label per position");
        let mut packed = Packed::default();
        let mut packer = selection.packer();
        let extended = selection.extended();
        for (pos, &label) in positions.iter().zip(labels) {
            packed.push(pos, label, NO_PAIR, NO_SCORE, &mut packer, extended)?;
        }
        let mut data = Dataset::new(selection);
        data.append(packed, "positions")
            .expect("in-memory sets are small");
        data.shrink_to_fit();
        Ok(data)
    }

    /// Moves a pack's positions in, fixing up offsets (and merging repeats when deduplicating).
    fn append(&mut self, pack: Packed, source: &str) -> Result<MergeCounts, DataError> {
        let base = self.coeffs.len();
        if base + pack.coeffs.len() > u32::MAX as usize {
            return Err(DataError::TooLarge {
                file: source.to_string(),
            });
        }
        let Some(dedupe) = self.dedupe.as_deref_mut() else {
            self.coeffs.extend_from_slice(&pack.coeffs);
            self.pairs.extend_from_slice(&pack.pairs);
            self.scores.extend_from_slice(&pack.scores);
            self.extras.extend_from_slice(&pack.extras);
            self.entries.extend(pack.entries.into_iter().map(|mut e| {
                e.offset += base as u32;
                e
            }));
            return Ok(MergeCounts::default());
        };
        let mut counts = MergeCounts::default();
        for (i, mut e) in pack.entries.into_iter().enumerate() {
            let (score, key) = (pack.scores[i], pack.keys[i]);
            let index = self.entries.len() as u32;
            let first = *dedupe.first.entry(key).or_insert(index);
            if first == index {
                let start = e.offset as usize;
                e.offset = self.coeffs.len() as u32;
                self.coeffs
                    .extend_from_slice(&pack.coeffs[start..start + e.len as usize]);
                self.entries.push(e);
                if self.extended {
                    self.extras.push(pack.extras[i]);
                }
                self.pairs.push(pack.pairs[i]);
                self.scores.push(score);
                continue;
            }
            counts.duplicates += 1;
            let kept = &mut self.entries[first as usize];
            let kept_score = &mut self.scores[first as usize];
            let sums = dedupe.merged.entry(first).or_insert_with(|| Merged {
                first_label: kept.label_units,
                label_sum: kept.label() as f64,
                labels: 1,
                score_sum: if *kept_score == NO_SCORE {
                    0
                } else {
                    *kept_score as i64
                },
                scores: u32::from(*kept_score != NO_SCORE),
            });
            if e.label_units != sums.first_label {
                counts.with_other_label += 1;
            }
            sums.label_sum += e.label() as f64;
            sums.labels += 1;
            kept.label_units = Entry::label_to_units((sums.label_sum / sums.labels as f64) as f32);
            if score != NO_SCORE {
                sums.score_sum += score as i64;
                sums.scores += 1;
                *kept_score = (sums.score_sum as f64 / sums.scores as f64).round() as i16;
            }
        }
        Ok(counts)
    }

    fn shrink_to_fit(&mut self) {
        self.coeffs.shrink_to_fit();
        self.entries.shrink_to_fit();
        self.pairs.shrink_to_fit();
        self.scores.shrink_to_fit();
        self.extras.shrink_to_fit();
    }

    /// Each position's remainder and endgame scale (empty for sparring's own evaluation).
    #[inline]
    pub(crate) fn extras(&self) -> &[Extra] {
        &self.extras
    }

    /// Whether positions carry remainders and endgame scales (`extras`).
    #[inline]
    pub(crate) fn extended(&self) -> bool {
        self.extended
    }

    /// The blend's divisor: the phase with every piece on the board.
    #[inline]
    pub fn phase_max(&self) -> i32 {
        self.phase_max
    }

    /// Number of positions.
    #[inline]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the set holds no position.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The number of tuned parameters the coefficients index into.
    #[inline]
    pub(crate) fn num_params(&self) -> usize {
        self.num_params
    }

    /// One entry per position, in order.
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
    /// weight × `expected_score(cp)`, the expected score (White's view) of the White-view search
    /// score under the model (`|cp| sigmoid(k, cp)`). Positions without a score keep their
    /// result. Frees the scores; returns how many had none.
    pub fn blend_scores(&mut self, weight: f64, expected_score: impl Fn(f64) -> f64) -> usize {
        let scores = std::mem::take(&mut self.scores);
        if weight <= 0.0 {
            return 0;
        }
        let mut without = 0;
        for (i, e) in self.entries.iter_mut().enumerate() {
            match scores.get(i) {
                Some(&cp) if cp != NO_SCORE => {
                    let expected = expected_score(cp as f64);
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
}
