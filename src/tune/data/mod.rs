//! Training data: labelled positions read once from EPD files and packed into a compact sparse
//! form (one flat coefficient buffer for the tuned parameters, a small fixed-size entry per
//! position), so every epoch is a streaming pass over memory rather than a re-evaluation.
//!
//! `read` reads files block by block, `pack` turns lines into packed positions, `split` divides
//! a set into training and validation sets; the packed types themselves are in `tune::packed`.

mod pack;
mod read;
mod split;

pub use read::{DataError, LineError, LineErrorKind, LoadReport, MAX_KEPT_ERRORS};

use crate::board::Position;
use crate::tune::packed::{Coef, Entry};
use crate::tune::selection::{Packer, ParamSelection};
use pack::{Packed, NO_PAIR, NO_SCORE};

/// Labelled positions in packed form. The coefficient indices are compact indices into the
/// `ParamSelection` used to build the set (all of them below `num_params`).
#[derive(Clone, Debug, Default)]
pub struct Dataset {
    coeffs: Vec<Coef>,
    entries: Vec<Entry>,
    num_params: usize,
    /// The pair of games each position came from (`NO_PAIR` if unknown), kept only until
    /// `split`, which uses it to put whole pairs on one side so validation positions are unseen
    /// games.
    pairs: Vec<u32>,
    /// The recorded search score of each position (`ce`, White's view, cp; `NO_SCORE` if none),
    /// kept only until `blend_scores` folds it into the labels.
    scores: Vec<i16>,
    /// Replace each position read by the end of its quiescence principal variation.
    resolve: bool,
}

impl Dataset {
    /// An empty set for parameters selected by `selection`.
    pub fn new(selection: &ParamSelection) -> Dataset {
        Dataset {
            coeffs: Vec::new(),
            entries: Vec::new(),
            num_params: selection.len(),
            pairs: Vec::new(),
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
            packed.push(pos, label, NO_PAIR, NO_SCORE, &mut packer);
        }
        let mut data = Dataset::new(selection);
        data.append(packed, "positions")
            .expect("in-memory sets are small");
        data.shrink_to_fit();
        data
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
        self.pairs.extend_from_slice(&pack.pairs);
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
        self.pairs.shrink_to_fit();
        self.scores.shrink_to_fit();
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
    pub fn num_params(&self) -> usize {
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
