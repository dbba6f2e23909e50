//! Building opening suites with the project's own engine: random lines of sensible moves (each
//! move within a margin of the best by a shallow search), kept when a brief search scores the
//! final position inside a window. Candidate `i` depends only on `(seed, i)`, and candidates are
//! accepted in index order, so the suite is the same for a seed whatever the thread count.

use crate::board::chess960;
use crate::board::{Move, Position};
use crate::error::{ErrorClass, Failure};
use crate::eval::EvalParams;
use crate::rng::Rng;
use crate::score::MATE;
use crate::search::{SearchLimits, Searcher};
use rayon::prelude::*;
use std::collections::HashSet;
use std::sync::Arc;
use thiserror::Error;

/// What to generate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenerateOptions {
    /// Length of each random line from the start position.
    pub plies: usize,
    /// Number of positions wanted.
    pub count: usize,
    /// Upper end of the score window (centipawns, side to move). Without `min_eval` the window is
    /// `-max_eval..=max_eval`.
    pub max_eval: i32,
    /// Lower end of the window, for unbalanced suites (e.g. 90 with max 160: the side to move is
    /// better; -160 with max -90: it is worse).
    pub min_eval: Option<i32>,
    /// Node budget of the search that scores each final position.
    pub nodes: u64,
    /// Seed of the random lines; the same seed and options give the same suite.
    pub seed: u64,
    /// A move is sampled only if a `sample_depth` search scores it at most this far below the best.
    pub margin: i32,
    /// Depth of the search that scores each candidate move (deeper: more natural lines, slower).
    pub sample_depth: u32,
    /// Candidates to try before giving up (a window nothing falls into would run forever).
    pub max_candidates: u64,
    /// The evaluation that plays and scores the lines; None = the built-in default weights.
    pub weights: Option<Arc<EvalParams>>,
}

impl GenerateOptions {
    /// Checks the options before any work: a non-empty window, at least one ply and position,
    /// a margin of 0 or more, at least one candidate, a sample depth the search can reach.
    pub fn validate(&self) -> Result<(), GenerateError> {
        let (min, max) = self.window();
        if min > max {
            return Err(GenerateError::EmptyWindow { min, max });
        }
        if self.plies == 0 || self.count == 0 {
            return Err(GenerateError::Zero);
        }
        let out_of_range = |option, value: String, expected| GenerateError::OutOfRange {
            option,
            value,
            expected,
        };
        if self.margin < 0 {
            return Err(out_of_range(
                "margin",
                self.margin.to_string(),
                "0 or more centipawns (no move is ever below the best by a negative margin)",
            ));
        }
        if self.max_candidates == 0 {
            return Err(out_of_range(
                "max-candidates",
                "0".to_string(),
                "at least 1",
            ));
        }
        if self.sample_depth > MAX_SAMPLE_DEPTH {
            return Err(out_of_range(
                "sample-depth",
                self.sample_depth.to_string(),
                "at most 127, the search's deepest iteration",
            ));
        }
        Ok(())
    }

    /// The window as an inclusive range of side-to-move scores.
    pub fn window(&self) -> (i32, i32) {
        match self.min_eval {
            Some(min) => (min, self.max_eval),
            None => (-self.max_eval.abs(), self.max_eval.abs()),
        }
    }
}

/// Where the random lines start.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum StartVariant {
    /// The standard start position.
    #[default]
    Standard,
    /// A Chess960 start position (same back rank for both sides), drawn uniformly from the 960.
    Chess960,
    /// A Double Fischer Random start: White's and Black's back ranks drawn independently.
    Dfrc,
}

impl StartVariant {
    /// The variant's start position, drawn from `rng` where the variant has many (Chess960: one
    /// Scharnagl number; DFRC: White's, then Black's): the suite generator's and `datagen`'s.
    pub(crate) fn draw_start(self, rng: &mut Rng) -> Position {
        let mut draw_number = || rng.below(u64::from(chess960::COUNT)) as u16;
        match self {
            StartVariant::Standard => Ok(Position::startpos()),
            StartVariant::Chess960 => chess960::start_position(draw_number()),
            StartVariant::Dfrc => {
                let white = draw_number();
                chess960::dfrc_start_position(white, draw_number())
            }
        }
        .expect("numbers drawn below 960 are valid")
    }
}

/// A generated opening: the final position, the line that led to it and its score.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedOpening {
    /// The position where the line started: the standard start, or the Chess960 / DFRC start it
    /// was drawn from.
    pub start: Position,
    /// The position after the line, where games will start.
    pub position: Position,
    /// The random line played from `start`.
    pub moves: Vec<Move>,
    /// Centipawns from the side to move's point of view.
    pub score: i32,
}

/// Counters passed to the progress callback after each batch.
#[derive(Copy, Clone, Debug)]
pub struct Progress {
    /// Positions accepted so far.
    pub found: usize,
    /// Candidates generated so far (accepted, out of the window, duplicate or dead-ended).
    pub tried: u64,
    /// Candidates in the window dropped because their final position was already accepted.
    pub duplicates: u64,
}

/// Why a suite cannot be generated.
#[derive(Error, Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum GenerateError {
    /// `min_eval` is above `max_eval`, so no score can be accepted.
    #[error("the score window {min}..={max} is empty")]
    EmptyWindow {
        /// Lower end of the window (centipawns).
        min: i32,
        /// Upper end of the window (centipawns).
        max: i32,
    },
    /// `plies` or `count` is 0.
    #[error("--plies and --count must be at least 1")]
    Zero,
    /// Another option outside its range: a negative margin or no candidates would only give
    /// up, and a sample depth past the search's deepest iteration would never finish.
    #[error("--{option} {value}: expected {expected}")]
    OutOfRange {
        /// The command-line option (`margin`, `max-candidates`, `sample-depth`).
        option: &'static str,
        /// The value given.
        value: String,
        /// The accepted range, in words.
        expected: &'static str,
    },
    /// `max_candidates` candidates were tried before `count` positions fell into the window.
    #[error("found only {found} of {count} positions in {tried} candidates; widen the window or raise the candidate limit")]
    GaveUp {
        /// Positions accepted before giving up.
        found: usize,
        /// Positions asked for.
        count: usize,
        /// Candidates tried (the candidate limit).
        tried: u64,
    },
}

impl ErrorClass for GenerateError {
    fn class(&self) -> Failure {
        match self {
            GenerateError::EmptyWindow { .. }
            | GenerateError::Zero
            | GenerateError::OutOfRange { .. } => Failure::BadInput,
            GenerateError::GaveUp { .. } => Failure::FailedRun,
        }
    }
}

/// The deepest `sample_depth` accepted: the search clamps deeper limits to its last iteration.
const MAX_SAMPLE_DEPTH: u32 = crate::search::MAX_PLY as u32 - 1;

/// The quick pre-search runs only when the full one has at least four times this many nodes.
const PREFILTER_MIN_NODES: u64 = 500;
/// A quick score this far outside the window drops the candidate before the full search.
const PREFILTER_SLACK: i32 = 100;

/// Candidates scored in parallel per batch.
const BATCH: u64 = 64;

/// Generates the suite from the standard start position, calling `progress` after each batch.
pub fn generate(
    options: &GenerateOptions,
    progress: impl FnMut(Progress),
) -> Result<Vec<GeneratedOpening>, GenerateError> {
    generate_from(options, StartVariant::Standard, progress)
}

/// Generates the suite with lines starting from `variant`'s start positions (each candidate
/// draws its Chess960 number, or DFRC pair, from its own seeded stream, then plays its random
/// plies; the balance window applies to the final position), calling `progress` after each batch.
pub fn generate_from(
    options: &GenerateOptions,
    variant: StartVariant,
    mut progress: impl FnMut(Progress),
) -> Result<Vec<GeneratedOpening>, GenerateError> {
    options.validate()?;
    let (min, max) = options.window();
    let params = options
        .weights
        .clone()
        .unwrap_or_else(|| Arc::new(EvalParams::default()));
    // Only a hint: a huge --count must fail by giving up, not by a failed allocation.
    let mut found = Vec::with_capacity(options.count.min(1 << 16));
    let mut keys = HashSet::new();
    let mut next = 0u64;
    let mut duplicates = 0;
    while found.len() < options.count {
        if next >= options.max_candidates {
            return Err(GenerateError::GaveUp {
                found: found.len(),
                count: options.count,
                tried: next,
            });
        }
        let end = (next + BATCH).min(options.max_candidates);
        let batch: Vec<Option<GeneratedOpening>> = (next..end)
            .into_par_iter()
            .map_init(
                || Searcher::new(params.clone(), 1),
                |searcher, i| candidate(searcher, options, variant, i),
            )
            .collect();
        for opening in batch.into_iter().flatten() {
            if found.len() == options.count {
                break;
            }
            if !(min..=max).contains(&opening.score) {
                continue;
            }
            if keys.insert(opening.position.key()) {
                found.push(opening);
            } else {
                duplicates += 1;
            }
        }
        next = end;
        progress(Progress {
            found: found.len(),
            tried: next,
            duplicates,
        });
    }
    Ok(found)
}

/// Candidate `index`: a random line and its final score, or None when the line hits a position
/// without moves or ends in check. The searcher is cleared first so that the result does not
/// depend on what the thread searched before.
fn candidate(
    searcher: &mut Searcher,
    options: &GenerateOptions,
    variant: StartVariant,
    index: u64,
) -> Option<GeneratedOpening> {
    searcher.clear();
    let mut rng = Rng::derive(options.seed, index);
    let start = variant.draw_start(&mut rng);
    let mut pos = start.clone();
    let mut keys = vec![pos.key()];
    let mut moves = Vec::with_capacity(options.plies.min(1 << 10));
    let shallow = SearchLimits::depth(options.sample_depth.max(1));
    for _ in 0..options.plies {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            return None;
        }
        let scored: Vec<(Move, i32)> = legal
            .iter()
            .map(|&mv| {
                let child = pos.after(mv);
                let score = if !child.has_legal_moves() {
                    if child.in_check() {
                        MATE
                    } else {
                        0
                    }
                } else {
                    keys.push(child.key());
                    let r = searcher.search(&child, &keys[..keys.len() - 1], &shallow, |_| {});
                    keys.pop();
                    -r.score.as_cp()
                };
                (mv, score)
            })
            .collect();
        let best = scored.iter().map(|&(_, s)| s).max().expect("moves exist");
        let sensible: Vec<Move> = scored
            .iter()
            .filter(|&&(_, s)| s >= best.saturating_sub(options.margin))
            .map(|&(mv, _)| mv)
            .collect();
        let mv = sensible[rng.below(sensible.len() as u64) as usize];
        pos.make_move(mv);
        keys.push(pos.key());
        moves.push(mv);
    }
    if pos.in_check() || !pos.has_legal_moves() {
        return None;
    }
    // Most candidates miss the window by far; a search of an eighth of the nodes finds them.
    let previous = &keys[..keys.len() - 1];
    let (min, max) = options.window();
    if options.nodes >= 4 * PREFILTER_MIN_NODES {
        searcher.clear();
        let quick = SearchLimits::nodes(options.nodes / 8);
        let score = searcher
            .search(&pos, previous, &quick, |_| {})
            .score
            .as_cp();
        if score < min.saturating_sub(PREFILTER_SLACK)
            || score > max.saturating_add(PREFILTER_SLACK)
        {
            return None;
        }
    }
    searcher.clear();
    let r = searcher.search(&pos, previous, &SearchLimits::nodes(options.nodes), |_| {});
    Some(GeneratedOpening {
        start,
        position: pos,
        moves,
        score: r.score.as_cp(),
    })
}
