//! Reading and writing `EvalParams` as a TOML file a person can read and edit: one table per
//! term with `mg` and `eg` entries, square tables laid out as a board. The TOML tree is walked
//! by hand (not serde) so every error names the file, the dotted key and what was expected.

use super::params::{square_name, EvalParams, Labels, Term, TERMS};
use crate::toml_config::{describe, parse_document, read_text, ConfigError};
use std::fmt::Write as _;
use std::path::Path;
use thiserror::Error;
use toml::{Table, Value};

/// The largest weight magnitude a file may hold: larger values would collide with mate scores
/// and could overflow the blended sums.
pub const MAX_WEIGHT: i32 = 30_000;

/// What is wrong with a weights file. `file` is the path or the source name given to
/// `from_toml_str`; `key` is the dotted path of the offending entry.
#[derive(Error, Debug)]
pub enum WeightsError {
    /// The file cannot be read, or is not TOML (the configuration readers' error, same wording).
    #[error(transparent)]
    Document(#[from] ConfigError),
    #[error("{file}: cannot write: {source}")]
    Write {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{file}: unknown key `{key}`")]
    UnknownKey { file: String, key: String },
    #[error("{file}: missing key `{key}` (expected {expected})")]
    MissingKey {
        file: String,
        key: String,
        expected: String,
    },
    #[error("{file}: `{key}` has {found} entries, expected {expected}")]
    WrongLength {
        file: String,
        key: String,
        expected: usize,
        found: usize,
    },
    #[error("{file}: `{key}` is {found}, expected {expected}")]
    WrongType {
        file: String,
        key: String,
        expected: String,
        found: String,
    },
    #[error("{file}: `{key}` is {found}, expected an integer")]
    NotInteger {
        file: String,
        key: String,
        found: String,
    },
    #[error("{file}: `{key}` = {value} is out of range, expected -{MAX_WEIGHT}..={MAX_WEIGHT}")]
    OutOfRange {
        file: String,
        key: String,
        value: i64,
    },
}

/// What a term's `mg`/`eg` entry must be, for messages.
fn expected_entry(term: &Term) -> String {
    if term.labels == Labels::Scalar {
        "an integer".to_string()
    } else {
        format!("an array of {} integers", term.len)
    }
}

struct Reader<'a> {
    file: &'a str,
    params: EvalParams,
    seen: [bool; TERMS.len()],
}

impl Reader<'_> {
    /// Walks a table at dotted path `prefix`, descending into groups and reading terms.
    fn table(&mut self, prefix: &str, table: &Table) -> Result<(), WeightsError> {
        for (key, value) in table {
            let path = if prefix.is_empty() {
                key.clone()
            } else {
                format!("{prefix}.{key}")
            };
            if let Some(k) = TERMS.iter().position(|t| t.path == path) {
                self.term(k, value)?;
            } else if TERMS
                .iter()
                .any(|t| t.path.starts_with(&format!("{path}.")))
            {
                let Value::Table(sub) = value else {
                    return Err(self.wrong_type(&path, "a table of terms", value));
                };
                self.table(&path, sub)?;
            } else {
                return Err(WeightsError::UnknownKey {
                    file: self.file.to_string(),
                    key: path,
                });
            }
        }
        Ok(())
    }

    fn term(&mut self, k: usize, value: &Value) -> Result<(), WeightsError> {
        let term = &TERMS[k];
        self.seen[k] = true;
        let Value::Table(table) = value else {
            return Err(self.wrong_type(term.path, "a table with keys mg and eg", value));
        };
        if let Some(key) = table.keys().find(|key| *key != "mg" && *key != "eg") {
            return Err(WeightsError::UnknownKey {
                file: self.file.to_string(),
                key: format!("{}.{key}", term.path),
            });
        }
        for (phase, name) in ["mg", "eg"].into_iter().enumerate() {
            let key = format!("{}.{name}", term.path);
            let Some(value) = table.get(name) else {
                return Err(WeightsError::MissingKey {
                    file: self.file.to_string(),
                    key,
                    expected: expected_entry(term),
                });
            };
            let values = self.entry(term, &key, value)?;
            for (i, v) in values.into_iter().enumerate() {
                let mut pair = self.params.get(term.offset + i);
                if phase == 0 {
                    pair.0 = v;
                } else {
                    pair.1 = v;
                }
                self.params.set(term.offset + i, pair);
            }
        }
        Ok(())
    }

    /// The integers of one `mg` or `eg` entry, in parameter (not file) order.
    fn entry(&self, term: &Term, key: &str, value: &Value) -> Result<Vec<i32>, WeightsError> {
        if term.labels == Labels::Scalar {
            return Ok(vec![self.integer(key, value)?]);
        }
        let Value::Array(items) = value else {
            return Err(self.wrong_type(key, &expected_entry(term), value));
        };
        if items.len() != term.len {
            return Err(WeightsError::WrongLength {
                file: self.file.to_string(),
                key: key.to_string(),
                expected: term.len,
                found: items.len(),
            });
        }
        let mut out = vec![0; term.len];
        for (i, item) in items.iter().enumerate() {
            if term.labels == Labels::Squares {
                // The file lists rank 8 first; parameters are indexed a1 = 0.
                let sq = i ^ 56;
                out[sq] = self.integer(&format!("{key}[{i}] ({})", square_name(sq)), item)?;
            } else {
                out[i] = self.integer(&format!("{key}[{i}]"), item)?;
            }
        }
        Ok(out)
    }

    fn integer(&self, key: &str, value: &Value) -> Result<i32, WeightsError> {
        let Value::Integer(v) = *value else {
            return Err(WeightsError::NotInteger {
                file: self.file.to_string(),
                key: key.to_string(),
                found: describe(value),
            });
        };
        if v.abs() > MAX_WEIGHT as i64 {
            return Err(WeightsError::OutOfRange {
                file: self.file.to_string(),
                key: key.to_string(),
                value: v,
            });
        }
        Ok(v as i32)
    }

    fn wrong_type(&self, key: &str, expected: &str, found: &Value) -> WeightsError {
        WeightsError::WrongType {
            file: self.file.to_string(),
            key: key.to_string(),
            expected: expected.to_string(),
            found: describe(found),
        }
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
# `mg` and `eg`; integers only, at most 30000 in magnitude.
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
        let table = parse_document(text, source)?;
        let mut reader = Reader {
            file: source,
            params: EvalParams::zeroed(),
            seen: [false; TERMS.len()],
        };
        reader.table("", &table)?;
        if let Some(k) = reader.seen.iter().position(|seen| !seen) {
            return Err(WeightsError::MissingKey {
                file: source.to_string(),
                key: TERMS[k].path.to_string(),
                expected: "a table with keys mg and eg".to_string(),
            });
        }
        Ok(reader.params)
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
