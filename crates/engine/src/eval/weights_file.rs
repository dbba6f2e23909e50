//! Reading and writing `EvalParams` as a TOML file a person can read and edit: one table per
//! term with `mg` and `eg` entries, square tables laid out as a board. Reading goes through
//! serde, driven by the term registry (so the file's shape follows `TERMS`), then checks lengths,
//! ranges and the worst-case evaluation of ordinary material (`check_saturation`) in plain code;
//! every error names the file, line and column, the dotted key and what was expected. Writing is formatted by hand to keep the
//! board-shaped tables and the comments.

use super::params::{square_name, EvalParams, Labels, Term, TERMS};
use super::scale::{EndgameScale, SCALE_NORMAL};
use super::MAX_EVAL;
use crate::error::{ErrorClass, Failure};
use crate::toml_config::{read_text, ConfigError, Document};
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::fmt::Write as _;
use std::path::Path;
use thiserror::Error;

/// The largest weight magnitude a file may hold (and the tuners write). With every weight within
/// it no legal position's middlegame or endgame sum can overflow the evaluation's `i32`
/// arithmetic (a unit test bounds them, nine queens a side and all, at every weight ±30,000).
pub const MAX_WEIGHT: i32 = 30_000;

/// What is wrong with a weights file.
#[derive(Error, Debug)]
#[non_exhaustive]
pub enum WeightsError {
    /// The file cannot be read, is not TOML, or a key is missing, unknown or wrong (the
    /// configuration readers' error: file, line and column, dotted key, what was expected).
    #[error(transparent)]
    Document(#[from] ConfigError),
    /// `save` could not write the file (missing directory, no permission, disk full).
    #[error("{file}: cannot write: {source}")]
    Write {
        /// The path given to `save`.
        file: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The weights could evaluate a position of real games (the starting material and one
    /// promotion a side) at the evaluation's clamp `limit` or beyond, where the engine could no
    /// longer tell such positions apart; `key` is the term contributing most.
    #[error(
        "{file}:{line}:{column}: `{key}`: the weights could evaluate a position with the starting \
         material and one promotion a side at {bound} centipawns ({phase}), at or beyond the \
         evaluation's clamp ({limit}), where the engine would see such positions as all alike; \
         largest shares: {shares}"
    )]
    Saturated {
        /// The weights file's name as given to the reader.
        file: String,
        /// 1-based line of the largest contributing term's `mg` or `eg` entry.
        line: usize,
        /// 1-based column of that entry.
        column: usize,
        /// The dotted key of the term contributing most, e.g. `pst.queen.mg`.
        key: String,
        /// The phase whose bound is too large: "middlegame" or "endgame".
        phase: &'static str,
        /// The worst-case evaluation magnitude the weights allow on such positions, in
        /// centipawns (before the clamp).
        bound: i64,
        /// The clamp `eval::MAX_EVAL`, in centipawns.
        limit: i32,
        /// Up to three largest term shares of `bound`, formatted for the message.
        shares: String,
    },
}

impl ErrorClass for WeightsError {
    fn class(&self) -> Failure {
        match self {
            WeightsError::Document(source) => source.class(),
            WeightsError::Saturated { .. } => Failure::BadInput,
            WeightsError::Write { .. } => Failure::FailedRun,
        }
    }
}

/// The top-level table holding the endgame scale factors.
const SCALE_TABLE: &str = "scale";

/// The comment written above `[scale]`.
const SCALE_DOC: &str = "
# Endgame scaling, each factor out of 128: the endgame score of the side ahead is multiplied by
# factor / 128 before the blend. Opposite-coloured bishops alone, or with one knight or one rook
# each; a side without pawns at most a minor piece ahead (or with only two knights); otherwise
# base + per_pawn x (pawns of the side ahead), at most 128. Without this table nothing is scaled.
";

/// What a term's `mg`/`eg` entry must be, for messages.
fn expected_entry(term: &Term) -> String {
    if term.labels == Labels::Scalar {
        "an integer".to_string()
    } else {
        format!("an array of {} integers", term.len)
    }
}

/// What `Entry`'s deserialiser says it expects (refined per term in messages).
const ENTRY_EXPECTING: &str = "an integer or an array of integers";

/// One term's table as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TermFile {
    mg: Option<Entry>,
    eg: Option<Entry>,
}

/// One `mg` or `eg` entry as written: a single integer or an array of them.
enum Entry {
    One(i64),
    Many(Vec<i64>),
}

impl<'de> Deserialize<'de> for Entry {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Entry, D::Error> {
        struct EntryVisitor;
        impl<'de> Visitor<'de> for EntryVisitor {
            type Value = Entry;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(ENTRY_EXPECTING)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Entry, E> {
                Ok(Entry::One(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Entry, E> {
                Ok(Entry::One(i64::try_from(v).unwrap_or(i64::MAX)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Entry, A::Error> {
                let mut values = Vec::new();
                while let Some(v) = seq.next_element::<i64>()? {
                    values.push(v);
                }
                Ok(Entry::Many(values))
            }
        }
        d.deserialize_any(EntryVisitor)
    }
}

/// One level of the file's table tree (the top, or a group such as `pst`): each key is a term,
/// a group holding terms, or unknown.
struct Level<'t> {
    prefix: String,
    terms: &'t mut Vec<Option<TermFile>>,
    /// The top level's `[scale]` table, when the file has one.
    scale: &'t mut Option<EndgameScale>,
}

impl Level<'_> {
    fn path(&self, key: &str) -> String {
        if self.prefix.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.prefix)
        }
    }
}

impl<'de> DeserializeSeed<'de> for Level<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Level<'_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a table of terms")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            let path = self.path(&key);
            if path == SCALE_TABLE {
                *self.scale = Some(map.next_value()?);
            } else if let Some(k) = TERMS.iter().position(|t| t.path == path) {
                self.terms[k] = Some(map.next_value()?);
            } else if TERMS
                .iter()
                .any(|t| t.path.starts_with(&format!("{path}.")))
            {
                map.next_value_seed(Level {
                    prefix: path,
                    terms: &mut *self.terms,
                    scale: &mut *self.scale,
                })?;
            } else {
                // serde's own wording, so the message names the key and the known ones.
                let mut known: Vec<&str> = TERMS
                    .iter()
                    .filter_map(|t| match self.prefix.as_str() {
                        "" => Some(t.path),
                        p => t.path.strip_prefix(p)?.strip_prefix('.'),
                    })
                    .map(|rest| rest.split('.').next().unwrap_or(rest))
                    .collect();
                known.dedup();
                if self.prefix.is_empty() {
                    known.push(SCALE_TABLE);
                }
                let known: Vec<String> = known.iter().map(|k| format!("`{k}`")).collect();
                return Err(de::Error::custom(format!(
                    "unknown field `{key}`, expected one of {}",
                    known.join(", ")
                )));
            }
        }
        Ok(())
    }
}

/// A deserialisation error in the words of the weights file: the expectation a term's entry
/// has, and the square an entry of a board-shaped table stands for.
fn refine(err: ConfigError) -> ConfigError {
    let Some(key) = err.key().map(str::to_string) else {
        return err;
    };
    let mut err = err;
    if let ConfigError::Invalid { expected, .. } = &mut err {
        let term_of_entry = key
            .strip_suffix(".mg")
            .or_else(|| key.strip_suffix(".eg"))
            .and_then(|p| TERMS.iter().find(|t| t.path == p));
        if let (Some(term), true) = (term_of_entry, expected == ENTRY_EXPECTING) {
            *expected = expected_entry(term);
        }
        if expected == "a table" && TERMS.iter().any(|t| t.path == key) {
            *expected = "a table with keys mg and eg".to_string();
        }
    }
    if let Some(named) = square_key(&key) {
        return err.with_key(named);
    }
    err
}

/// `pst.knight.mg[0]` -> `pst.knight.mg[0] (a8)`: the file lists rank 8 first.
fn square_key(key: &str) -> Option<String> {
    let (entry, index) = key.strip_suffix(']')?.rsplit_once('[')?;
    let path = entry
        .strip_suffix(".mg")
        .or_else(|| entry.strip_suffix(".eg"))?;
    let term = TERMS.iter().find(|t| t.path == path)?;
    let i: usize = index.parse().ok()?;
    (term.labels == Labels::Squares && i < 64).then(|| format!("{key} ({})", square_name(i ^ 56)))
}

/// Terms added after weights files were in use, each neutral at zero: a file without one reads
/// it as zeros, so a file written before the term evaluates as it did then (every other term
/// missing is an error).
const ADDED_LATER: &[&str] = &["king_safety.danger"];

/// Checks one term's tables and stores them in `params` (which starts at zero).
fn read_term(
    doc: &Document<'_>,
    term: &Term,
    table: Option<TermFile>,
    params: &mut EvalParams,
) -> Result<(), ConfigError> {
    let table = match table {
        Some(table) => table,
        None if ADDED_LATER.contains(&term.path) => return Ok(()),
        None => return Err(doc.missing(term.path, "a table with keys mg and eg")),
    };
    for (phase, name, entry) in [(0, "mg", table.mg), (1, "eg", table.eg)] {
        let key = format!("{}.{name}", term.path);
        let entry = entry.ok_or_else(|| doc.missing(&key, expected_entry(term)))?;
        let values = match (entry, term.labels) {
            (Entry::One(v), Labels::Scalar) => vec![(key.clone(), v)],
            (Entry::Many(values), labels) if labels != Labels::Scalar => {
                if values.len() != term.len {
                    return Err(doc.invalid_value(&key, expected_entry(term)));
                }
                values
                    .into_iter()
                    .enumerate()
                    .map(|(i, v)| {
                        let entry_key = format!("{key}[{i}]");
                        (square_key(&entry_key).unwrap_or(entry_key), v)
                    })
                    .collect()
            }
            _ => return Err(doc.invalid_value(&key, expected_entry(term))),
        };
        for (i, (entry_key, v)) in values.into_iter().enumerate() {
            if v.abs() > MAX_WEIGHT as i64 {
                return Err(doc.invalid_value(
                    &entry_key,
                    format!(
                        "an integer from -{MAX_WEIGHT} to {MAX_WEIGHT} (centipawns: the limit that keeps \
                         the evaluation's 32-bit sums from overflowing)"
                    ),
                ));
            }
            // The file lists a board's rank 8 first; parameters are indexed a1 = 0.
            let index = if term.labels == Labels::Squares {
                i ^ 56
            } else {
                i
            };
            let mut pair = params.get(term.offset + index);
            if phase == 0 {
                pair.0 = v as i32;
            } else {
                pair.1 = v as i32;
            }
            params.set(term.offset + index, pair);
        }
    }
    Ok(())
}

/// The pieces one side may have, for the worst-case bounds: 8 pawns and the pieces of the
/// starting position, plus `promotions` of those pawns promoted (to any piece; at most 8).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MaterialLimit {
    /// Promoted pawns per side, 0 to 8.
    pub promotions: i64,
}

impl MaterialLimit {
    /// Every legal position: all 8 pawns of a side may have promoted (9 queens, 10 knights).
    pub const LEGAL: MaterialLimit = MaterialLimit { promotions: 8 };
    /// The positions weights are checked on (see `check_saturation`): the starting material
    /// plus one promotion a side, a second queen as real games have.
    pub const CHECKED: MaterialLimit = MaterialLimit { promotions: 1 };

    /// The most knights, bishops or rooks of one kind a side can have.
    fn minors(self) -> i64 {
        2 + self.promotions
    }

    /// The most queens a side can have.
    fn queens(self) -> i64 {
        1 + self.promotions
    }
}

/// How many occurrences of a term's entries one side can have.
enum SideCount {
    /// Each entry counts its own thing, with its own bound (e.g. material per piece kind).
    PerEntry(Vec<i64>),
    /// The entries share one set of things, each in one entry (a piece's square, a piece's
    /// mobility, a pawn's rank): at most this many in all.
    Shared(i64),
}

/// The count bound of each term with `m`'s pieces (see `terms.rs` for what each counts). A side
/// has at most 8 pawns; each promotion adds a knight, bishop, rook or queen (and uses up a pawn,
/// which the bounds ignore: they only grow by it). Of the 3x3 king zone a knight attacks at most
/// 2 squares, a bishop 3, a rook 4 and a queen 6 (counted on an empty board, which blockers only
/// reduce).
fn side_count(path: &str, m: MaterialLimit) -> SideCount {
    let (minors, queens) = (m.minors(), m.queens());
    match path {
        "pst.pawn" | "pawns.passed" | "pawns.connected" | "pawns.doubled" | "pawns.isolated"
        | "pawns.backward" => SideCount::Shared(8),
        "pst.knight"
        | "pst.bishop"
        | "pst.rook"
        | "mobility.knight"
        | "mobility.bishop"
        | "mobility.rook"
        | "pieces.rook_open_file"
        | "pieces.rook_half_open_file" => SideCount::Shared(minors),
        "pst.queen" | "mobility.queen" => SideCount::Shared(queens),
        "pst.king" | "pieces.bishop_pair" | "tempo" => SideCount::Shared(1),
        "king_safety.shield" => SideCount::PerEntry(vec![3, 3]),
        "king_safety.open_file" => SideCount::Shared(3),
        "king_safety.attacks" => {
            SideCount::PerEntry(vec![minors * 2, minors * 3, minors * 4, queens * 6])
        }
        // Check squares around a king: 8 for a knight, 13 diagonal, 14 straight, 27 for both.
        "king_safety.safe_checks" => SideCount::PerEntry(vec![8, 13, 14, 27]),
        // Each victim counts once per term: knights, bishops, rooks, queens.
        "threats.by_pawn" | "threats.by_minor" => {
            SideCount::PerEntry(vec![minors, minors, minors, queens])
        }
        "threats.rook_on_queen" => SideCount::Shared(queens),
        "threats.hanging" | "threats.pawn_push" => SideCount::Shared(15),
        "threats.weak_pawn" | "passers.free" | "pieces.minor_behind_pawn" => SideCount::Shared(8),
        // Up to 8 passers, each at most 7 king steps from the square in front of it.
        "passers.own_king" | "passers.enemy_king" => SideCount::Shared(8 * 7),
        "pieces.outpost" => SideCount::PerEntry(vec![minors, minors]),
        "pieces.rook_seventh" => SideCount::Shared(minors),
        // One bucket of the one-hot table per side (its attack on the one enemy king).
        "king_safety.danger" => SideCount::Shared(1),
        // A term this table does not know yet: more occurrences than any board has (a unit
        // test makes sure every term is listed).
        _ => SideCount::Shared(UNKNOWN_TERM_COUNT),
    }
}

/// The count assumed for a term `side_count` does not list.
const UNKNOWN_TERM_COUNT: i64 = 64 * 100;

/// The most one side's occurrences of `term` can add up to with `weights` and `m`'s pieces (one
/// phase, each weight already made non-negative: the positive or the negated negative part).
fn side_bound(term: &Term, weights: &[i64], m: MaterialLimit) -> i64 {
    if term.path == "material" {
        // Pawn, knight, bishop, rook, queen: the original pieces, plus 8 pawn slots, each
        // holding a pawn or (up to `promotions` of them) a promoted piece.
        let best = weights.iter().copied().max().unwrap_or(0);
        let promoted = m.promotions.clamp(0, 8);
        return 2 * (weights[1] + weights[2] + weights[3])
            + weights[4]
            + (8 - promoted) * weights[0]
            + promoted * best;
    }
    match side_count(term.path, m) {
        SideCount::PerEntry(caps) => weights.iter().zip(caps).map(|(w, c)| w * c).sum(),
        SideCount::Shared(n) => weights.iter().copied().max().unwrap_or(0) * n,
    }
}

impl EvalParams {
    /// A bound on the evaluation's magnitude before the clamp (the middlegame and endgame sums)
    /// over every legal position, per phase (mg, eg), with the share of each term (in `TERMS`
    /// order): White's best sum plus Black's worst. Conservative (each term at its worst
    /// independently), but never too small.
    pub fn evaluation_bounds(&self) -> [(i64, Vec<i64>); 2] {
        self.evaluation_bounds_with(MaterialLimit::LEGAL)
    }

    /// `evaluation_bounds` over the positions where each side has at most `m`'s pieces.
    pub fn evaluation_bounds_with(&self, m: MaterialLimit) -> [(i64, Vec<i64>); 2] {
        [0, 1].map(|phase| {
            let shares: Vec<i64> = TERMS
                .iter()
                .map(|term| {
                    let weights: Vec<i64> = self.as_slice()[term.offset..term.offset + term.len]
                        .iter()
                        .map(|p| if phase == 0 { p.0 } else { p.1 } as i64)
                        .collect();
                    let positive: Vec<i64> = weights.iter().map(|&w| w.max(0)).collect();
                    let negative: Vec<i64> = weights.iter().map(|&w| (-w).max(0)).collect();
                    side_bound(term, &positive, m) + side_bound(term, &negative, m)
                })
                .collect();
            (shares.iter().sum(), shares)
        })
    }

    /// Refuses weights that would break the engine on positions of real games. Every
    /// evaluation is clamped to ±`MAX_EVAL` (below the mate and tablebase scores), and with
    /// each weight within ±`MAX_WEIGHT` no legal position's sums can overflow (a unit test
    /// bounds them over every legal position), so neither mate-like scores nor overflow need a
    /// check here. What remains is saturation: weights under which a position with the starting
    /// material plus one promotion a side (`MaterialLimit::CHECKED`) could reach the clamp, in either
    /// phase, would make the engine see such positions as all alike (every term at its worst
    /// independently, as `evaluation_bounds`). Positions with more promoted pieces may reach
    /// the clamp; there it only caps an already decided score, as in other engines.
    fn check_saturation(&self, doc: &Document<'_>) -> Result<(), WeightsError> {
        let bounds = self.evaluation_bounds_with(MaterialLimit::CHECKED);
        for (phase, (bound, shares)) in bounds.into_iter().enumerate() {
            if bound < MAX_EVAL as i64 {
                continue;
            }
            let mut order: Vec<usize> = (0..TERMS.len()).collect();
            order.sort_by_key(|&k| std::cmp::Reverse(shares[k]));
            let phase_name = ["mg", "eg"][phase];
            let key = format!("{}.{phase_name}", TERMS[order[0]].path);
            let (line, column) = doc.position(&key);
            let shares = order
                .iter()
                .take(3)
                .filter(|&&k| shares[k] > 0)
                .map(|&k| format!("`{}.{phase_name}` {}", TERMS[k].path, shares[k]))
                .collect::<Vec<_>>()
                .join(", ");
            return Err(WeightsError::Saturated {
                file: doc.file().to_string(),
                line,
                column,
                key,
                phase: ["middlegame", "endgame"][phase],
                bound,
                limit: MAX_EVAL,
                shares,
            });
        }
        Ok(())
    }
}

const HEADER: &str = "\
# sparring evaluation weights.
#
# Every weight is a pair of integers in centipawns: `mg` applies in the middlegame, `eg` in the
# endgame. The evaluation blends them by the game phase, which counts the pieces left (knight or
# bishop 1, rook 2, queen 4, at most 24):
#     score = (mg * phase + eg * (24 - phase)) / 24
# White's occurrences of each term count positive and Black's negative; the sum is White's view
# and the engine negates it when Black is to move. Every table below must be present, with both
# `mg` and `eg`; integers only, at most 30000 in magnitude. The evaluation is clamped to
# +-31741 centipawns, below the mate and tablebase scores; weights that could reach the clamp on a
# position with the starting material and one promotion a side are refused.
";

/// Writes one array entry (`mg = [...]`) in the term's layout.
fn write_array(out: &mut String, term: &Term, name: &str, values: &[i32]) {
    match term.labels {
        Labels::Scalar => {
            let _ = writeln!(out, "{name} = {}", values[0]);
        }
        Labels::Squares => {
            let _ = writeln!(out, "{name} = [");
            let _ = writeln!(out, "  #  a     b     c     d     e     f     g     h");
            for rank in (0..8).rev() {
                out.push(' ');
                for file in 0..8 {
                    let _ = write!(out, "{:>5},", values[rank * 8 + file]);
                }
                let _ = writeln!(out, "  # {}", rank + 1);
            }
            out.push_str("]\n");
        }
        _ if values.len() <= 16 => {
            // One line under a comment naming each column: `mg = [ 100, 320, ...]`.
            let labels: Vec<String> = (0..term.len).map(|i| term.label(i)).collect();
            let width = labels.iter().map(|l| l.len()).max().unwrap_or(0).max(4) + 1;
            if name == "mg" {
                out.push_str("#     ");
                for label in &labels {
                    let _ = write!(out, "{label:>width$} ");
                }
                out.truncate(out.trim_end().len());
                out.push('\n');
            }
            let items: Vec<String> = values.iter().map(|v| format!("{v:>width$}")).collect();
            let _ = writeln!(out, "{name} = [{}]", items.join(","));
        }
        _ => {
            let _ = writeln!(out, "{name} = [");
            for (row, chunk) in values.chunks(10).enumerate() {
                out.push(' ');
                for v in chunk {
                    let _ = write!(out, "{v:>5},");
                }
                let first = row * 10;
                let _ = writeln!(out, "  # {}..{}", first, first + chunk.len() - 1);
            }
            out.push_str("]\n");
        }
    }
}

impl EvalParams {
    /// Parses weights from TOML text; `source` names the text in errors (usually its path).
    pub fn from_toml_str(text: &str, source: &str) -> Result<EvalParams, WeightsError> {
        let doc = Document::parse(text, source)?;
        let mut terms: Vec<Option<TermFile>> = TERMS.iter().map(|_| None).collect();
        let mut scale = None;
        doc.deserialize_seed(Level {
            prefix: String::new(),
            terms: &mut terms,
            scale: &mut scale,
        })
        .map_err(refine)?;
        let mut params = EvalParams::zeroed();
        for (term, table) in TERMS.iter().zip(terms) {
            read_term(&doc, term, table, &mut params)?;
        }
        if let Some(scale) = scale {
            for (key, value) in scale.fields() {
                if !(0..=SCALE_NORMAL).contains(&value) {
                    return Err(doc
                        .invalid_value(
                            &format!("{SCALE_TABLE}.{key}"),
                            format!("an integer from 0 to {SCALE_NORMAL}"),
                        )
                        .into());
                }
            }
            params.set_scale(scale);
        }
        params.check_saturation(&doc)?;
        Ok(params)
    }

    /// Reads a weights file.
    pub fn load(path: impl AsRef<Path>) -> Result<EvalParams, WeightsError> {
        let path = path.as_ref();
        let text = read_text(path)?;
        EvalParams::from_toml_str(&text, &path.display().to_string())
    }

    /// The weights as commented TOML; `from_toml_str` reads it back to identical parameters.
    pub fn to_toml_string(&self) -> String {
        self.to_toml_string_with_header(HEADER)
    }

    /// As `to_toml_string`, with `header` (comment lines) in place of the standard preamble.
    pub fn to_toml_string_with_header(&self, header: &str) -> String {
        let mut out = String::from(header);
        for term in &TERMS {
            out.push('\n');
            for line in term.doc.lines() {
                let _ = writeln!(out, "# {}", line.trim());
            }
            let _ = writeln!(out, "[{}]", term.path);
            let pairs = &self.as_slice()[term.offset..term.offset + term.len];
            let mg: Vec<i32> = pairs.iter().map(|p| p.0).collect();
            let eg: Vec<i32> = pairs.iter().map(|p| p.1).collect();
            write_array(&mut out, term, "mg", &mg);
            write_array(&mut out, term, "eg", &eg);
        }
        if !self.scale().is_neutral() {
            out.push_str(SCALE_DOC);
            let _ = writeln!(out, "[{SCALE_TABLE}]");
            for (key, value) in self.scale().fields() {
                let _ = writeln!(out, "{key} = {value}");
            }
        }
        out
    }

    /// Writes the weights as commented TOML.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), WeightsError> {
        let path = path.as_ref();
        std::fs::write(path, self.to_toml_string()).map_err(|source| WeightsError::Write {
            file: path.display().to_string(),
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_term_has_a_count_bound() {
        for term in &TERMS {
            let listed = term.path == "material"
                || match side_count(term.path, MaterialLimit::LEGAL) {
                    SideCount::PerEntry(caps) => caps.len() == term.len,
                    SideCount::Shared(n) => n != UNKNOWN_TERM_COUNT,
                };
            assert!(listed, "{} needs a bound in side_count", term.path);
        }
    }

    #[test]
    fn the_bound_splits_signs_and_counts_promotions() {
        let mut params = EvalParams::zeroed();
        let material = TERMS.iter().find(|t| t.path == "material").unwrap();
        // Pawn 100, queen 1000: a side's best is its queen and 8 promoted queens.
        params.set(material.offset, (100, 100));
        params.set(material.offset + 4, (1000, -1000));
        let [(mg, _), (eg, _)] = params.evaluation_bounds();
        assert_eq!(mg, 9 * 1000);
        // Negative weights: Black's pawns at their worst plus White's queens.
        assert_eq!(eg, 8 * 100 + 9 * 1000);
    }
}
