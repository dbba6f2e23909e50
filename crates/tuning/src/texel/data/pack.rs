//! Packing: a run of data lines parsed (`record::TrainingPosition`, the one reader of the
//! training-data contract), optionally resolved through its quiescence line, evaluated once and
//! stored as sparse coefficients.

use super::read::{LineError, LineErrorKind, MAX_KEPT_ERRORS};
use crate::board::{Color, Position};
use crate::eval::MAX_PHASE;
use crate::record::TrainingPosition;
use crate::texel::packed::{Coef, Entry, Extra};
use crate::texel::selection::{PackSource, PositionPacker};
use crate::texel::tunable::TraceError;

/// The score of a position whose line carries no `ce`.
pub(super) const NO_SCORE: i16 = i16::MIN;

/// The pair of a position whose line names none (no sparring `id`).
pub(super) const NO_PAIR: u32 = u32::MAX;

/// The packed output of one run of lines.
#[derive(Default)]
pub(super) struct Packed {
    pub coeffs: Vec<Coef>,
    pub entries: Vec<Entry>,
    /// The pair of games each position came from (`NO_PAIR` if unknown).
    pub pairs: Vec<u32>,
    /// The recorded score of each position, White's view (`NO_SCORE` if none).
    pub scores: Vec<i16>,
    /// The Zobrist key of each position as packed (for dedupe).
    pub keys: Vec<u64>,
    /// Remainders and endgame scales (only for an extended source).
    pub(crate) extras: Vec<Extra>,
    pub errors: Vec<LineError>,
    pub skipped: usize,
    /// A position the evaluation could not trace: loading stops (line number, FEN, why).
    pub fatal: Option<(usize, String, TraceError)>,
}

impl Packed {
    /// Appends one position; offsets are relative to this pack's buffer. `extended`: keep its
    /// `Extra` too.
    pub(super) fn push(
        &mut self,
        pos: &Position,
        label: f32,
        pair: u32,
        score: i16,
        packer: &mut impl PositionPacker,
        extended: bool,
    ) -> Result<(), TraceError> {
        let offset = self.coeffs.len();
        let packed = match packer.pack(pos, &mut self.coeffs) {
            Ok(packed) => packed,
            Err(e) => {
                self.coeffs.truncate(offset);
                return Err(e);
            }
        };
        self.pairs.push(pair);
        self.scores.push(score);
        self.keys.push(pos.key());
        // sparring's own phase is clamped to MAX_PHASE already; other evaluations' phases are
        // checked to fit a byte by their packer.
        let phase = if extended {
            packed.phase.clamp(0, 255)
        } else {
            packed.phase.clamp(0, MAX_PHASE)
        };
        self.entries.push(Entry {
            offset: offset as u32,
            len: packed.len as u16,
            phase: phase as u8,
            label_units: Entry::label_to_units(label),
            frozen: packed.frozen,
        });
        if extended {
            self.extras.push(packed.extra);
        }
        Ok(())
    }
}

/// One parsed line, ready to pack: the position (resolved if asked), its White-view label, pair
/// and White-view score.
struct Parsed {
    position: Position,
    label: f32,
    pair: u32,
    score: i16,
}

/// Parses one line's bytes; `Ok(None)` for a blank or comment line.
fn parse(
    bytes: &[u8],
    searcher: Option<&mut crate::search::Searcher>,
) -> Result<Option<Parsed>, LineErrorKind> {
    let line = std::str::from_utf8(bytes).map_err(|_| LineErrorKind::NotUtf8)?;
    let Some(line) = TrainingPosition::parse(line)? else {
        return Ok(None);
    };
    let mut position = line.position()?;
    // Stored from White's side (of the line's position), like the label. The contract bounds
    // `ce` by the mate score, which fits an i16.
    let score = line.score.map_or(NO_SCORE, |cp| {
        let white = if position.side_to_move() == Color::White {
            cp
        } else {
            -cp
        };
        white as i16
    });
    if let Some(searcher) = searcher {
        for mv in searcher.quiescence_pv(&position).1 {
            position.make_move(mv);
        }
    }
    Ok(Some(Parsed {
        position,
        label: line.result.white_score(),
        pair: line
            .id
            .and_then(|id| u32::try_from(id.pair).ok())
            .unwrap_or(NO_PAIR),
        score,
    }))
}

/// Parses, traces and packs a run of lines; `first` is the line number of `lines[0]`.
pub(super) fn pack_lines(
    lines: &[&[u8]],
    first: usize,
    source: &str,
    selection: &impl PackSource,
    resolve: bool,
) -> Packed {
    let mut pack = Packed {
        coeffs: Vec::with_capacity(lines.len() * 40),
        entries: Vec::with_capacity(lines.len()),
        ..Packed::default()
    };
    let mut packer = selection.packer();
    let extended = selection.extended();
    let mut searcher =
        resolve.then(|| crate::search::Searcher::new(std::sync::Arc::new(selection.resolver()), 1));
    for (i, bytes) in lines.iter().enumerate() {
        match parse(bytes, searcher.as_mut()) {
            Ok(Some(p)) => {
                let pushed =
                    pack.push(&p.position, p.label, p.pair, p.score, &mut packer, extended);
                if let Err(e) = pushed {
                    pack.fatal = Some((first + i, p.position.to_fen(), e));
                    return pack;
                }
            }
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
    fn scores_are_stored_from_whites_side_and_pairs_from_the_id() {
        let parsed = |line: &str| parse(line.as_bytes(), None).unwrap().unwrap();
        let black = parsed("8/8/8/8/8/8/8/K6k b - - ce -170; c9 \"1-0\"; id \"17.33.5\";");
        assert_eq!((black.score, black.pair), (170, 17));
        let white = parsed("8/8/8/8/8/8/8/K6k w - - c9 \"1-0\"; ce 35; id \"1.2.3\";");
        assert_eq!((white.score, white.pair), (35, 1));
        let mated = parsed("8/8/8/8/8/8/8/K6k b - - ce -32000; c9 \"1-0\";");
        assert_eq!((mated.score, mated.pair), (32000, NO_PAIR));
        let none = parsed("8/8/8/8/8/8/8/K6k w - - c0 \"ce 5\"; c9 \"1-0\"; id \"17.3\";");
        assert_eq!((none.score, none.pair), (NO_SCORE, NO_PAIR));
        assert_eq!(
            parse(b"8/8/8/8/8/8/8/K6k w - - ce nan; c9 \"1-0\";", None).err(),
            Some(LineErrorKind::BadScore {
                found: "nan".to_string()
            })
        );
    }
}
