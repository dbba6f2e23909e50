//! Reading TOML configuration files (match, tuner, weights) through serde. The readers derive
//! their file types with `#[serde(deny_unknown_fields)]` and check ranges and cross-field rules in
//! plain code afterwards; this module turns every failure, serde's or a check's, into one error
//! naming the file, the line and column, the dotted key and what was expected: [`ConfigError`].
//! [`Document`] is the parsed file; [`read_text`] reads one with that error.
//!
//! The document is parsed once into `toml`'s spanned tree: serde reads from it, and a check that
//! fails after deserialisation finds its key's position in it.

use crate::error::{ErrorClass, Failure};
use serde::de::{DeserializeOwned, DeserializeSeed};
use std::fmt::Display;
use std::ops::Range;
use std::path::Path;
use thiserror::Error;
use toml::de::{DeTable, DeValue};
use toml::Spanned;

/// What is wrong with a configuration file. Line and column are 1-based.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file cannot be read.
    #[error("{file}: cannot read: {source}")]
    Io {
        /// The path as given to the reader.
        file: String,
        /// The operating system's error (not found, permission denied, not UTF-8).
        #[source]
        source: std::io::Error,
    },
    /// The text is not TOML (line and column 0 if the parser gave no position).
    #[error("{file}:{line}:{column}: TOML syntax error: {message}")]
    Syntax {
        /// The file name as given to the parser.
        file: String,
        /// 1-based line of the syntax error, 0 if unknown.
        line: usize,
        /// 1-based column (in characters) of the syntax error, 0 if unknown.
        column: usize,
        /// The TOML parser's message, on one line.
        message: String,
    },
    /// A required key is absent; the position is that of the table that lacks it.
    #[error("{file}:{line}:{column}: missing key `{key}` (expected {expected})")]
    Missing {
        /// The file name as given to the parser.
        file: String,
        /// 1-based line of the table that lacks the key.
        line: usize,
        /// 1-based column of the table that lacks the key.
        column: usize,
        /// The dotted key that is absent, e.g. `output.dir`.
        key: String,
        /// What the key should hold, e.g. "the output directory".
        expected: String,
    },
    /// A key has a value of the wrong type or out of range.
    #[error("{file}:{line}:{column}: `{key}` is {found}, expected {expected}")]
    Invalid {
        /// The file name as given to the parser.
        file: String,
        /// 1-based line of the bad value.
        line: usize,
        /// 1-based column of the bad value.
        column: usize,
        /// The dotted key whose value is wrong, e.g. `engine[1].builtin.hash_mb`.
        key: String,
        /// What the key accepts, e.g. "an integer from 1 to 65536".
        expected: String,
        /// What the file holds instead, e.g. "the integer 0".
        found: String,
    },
    /// A key the reader does not know (a typo must not be silently ignored).
    #[error("{file}:{line}:{column}: unknown key `{key}` (expected one of {expected})")]
    UnknownKey {
        /// The file name as given to the parser.
        file: String,
        /// 1-based line of the unknown key.
        line: usize,
        /// 1-based column of the unknown key.
        column: usize,
        /// The full dotted key of the unknown entry, e.g. `tournament.round`.
        key: String,
        /// The keys the table accepts, listed for the message.
        expected: String,
    },
    /// Any other problem with a key, in the deserialiser's words.
    #[error("{file}:{line}:{column}: `{key}`: {message}")]
    Other {
        /// The file name as given to the parser.
        file: String,
        /// 1-based line of the value the error is about.
        line: usize,
        /// 1-based column of the value the error is about.
        column: usize,
        /// The dotted key the error is about.
        key: String,
        /// The full description of the problem.
        message: String,
    },
}

impl ErrorClass for ConfigError {
    fn class(&self) -> Failure {
        match self {
            // A configuration the user named, unreadable or wrong, is input to fix.
            ConfigError::Io { .. }
            | ConfigError::Syntax { .. }
            | ConfigError::Missing { .. }
            | ConfigError::Invalid { .. }
            | ConfigError::UnknownKey { .. }
            | ConfigError::Other { .. } => Failure::BadInput,
        }
    }
}

impl ConfigError {
    /// The dotted key the error is about (None for I/O and syntax errors).
    pub fn key(&self) -> Option<&str> {
        match self {
            ConfigError::Io { .. } | ConfigError::Syntax { .. } => None,
            ConfigError::Missing { key, .. }
            | ConfigError::Invalid { key, .. }
            | ConfigError::UnknownKey { key, .. }
            | ConfigError::Other { key, .. } => Some(key),
        }
    }

    /// The same error about `key` instead (a reader's more precise name for an entry).
    pub fn with_key(mut self, new_key: String) -> ConfigError {
        match &mut self {
            ConfigError::Io { .. } | ConfigError::Syntax { .. } => {}
            ConfigError::Missing { key, .. }
            | ConfigError::Invalid { key, .. }
            | ConfigError::UnknownKey { key, .. }
            | ConfigError::Other { key, .. } => *key = new_key,
        }
        self
    }
}

impl ConfigError {
    /// The same error placed in `doc` under the table `prefix`: a configuration generated from
    /// one table of a larger file (a loop's stage) is reported at that file's line and key. An
    /// I/O or syntax error is kept as it is.
    pub fn relocated(self, doc: &Document<'_>, prefix: &str) -> ConfigError {
        let Some(key) = self.key().map(|k| format!("{prefix}.{k}")) else {
            return self;
        };
        let (new_line, new_column) = doc.position(&key);
        let mut moved = self.with_key(key);
        match &mut moved {
            ConfigError::Io { .. } | ConfigError::Syntax { .. } => {}
            ConfigError::Missing {
                file, line, column, ..
            }
            | ConfigError::Invalid {
                file, line, column, ..
            }
            | ConfigError::UnknownKey {
                file, line, column, ..
            }
            | ConfigError::Other {
                file, line, column, ..
            } => {
                *file = doc.file().to_string();
                (*line, *column) = (new_line, new_column);
            }
        }
        moved
    }
}

/// A path as an error shows it: a relative one also names the directory it was resolved
/// against, since configurations' relative paths resolve against the working directory, not
/// the configuration's own folder (`openings/x.epd (relative to /home/me)`).
pub fn shown_path(path: &Path) -> String {
    match std::env::current_dir() {
        Ok(cwd) if path.is_relative() => {
            format!("{} (relative to {})", path.display(), cwd.display())
        }
        _ => path.display().to_string(),
    }
}

/// Reads a file's text, naming it in the error.
pub fn read_text(path: &Path) -> Result<String, ConfigError> {
    let io = |source| ConfigError::Io {
        file: shown_path(path),
        source,
    };
    // A device (/dev/zero) would be read without end, and a directory gives a terse error.
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => Err(io(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "a directory, not a file",
        ))),
        Ok(meta) if !meta.is_file() => Err(io(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        ))),
        _ => std::fs::read_to_string(path).map_err(io),
    }
}

/// 1-based line and column of a byte offset (the column counts characters).
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

/// One step of a key's path: a table key or an array index.
#[derive(Clone, Debug, PartialEq)]
enum Segment {
    Key(String),
    Index(usize),
}

/// The dotted form of a path: `engine[0].uci.options.Hash`.
fn dotted(path: &[Segment]) -> String {
    let mut out = String::new();
    for segment in path {
        match segment {
            Segment::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            Segment::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// Splits a dotted key into its path (`a.b[2].c`). A key that itself holds a dot is split too;
/// `Document::locate` then finds the nearest enclosing value, which is still the right line.
fn split_key(key: &str) -> Vec<Segment> {
    let mut out = Vec::new();
    for part in key.split('.') {
        let mut rest = part;
        let name_end = rest.find('[').unwrap_or(rest.len());
        if name_end > 0 {
            out.push(Segment::Key(rest[..name_end].to_string()));
        }
        rest = &rest[name_end..];
        while let Some(stripped) = rest.strip_prefix('[') {
            let Some(close) = stripped.find(']') else {
                break;
            };
            match stripped[..close].parse() {
                Ok(i) => out.push(Segment::Index(i)),
                Err(_) => break,
            }
            rest = &stripped[close + 1..];
        }
    }
    out
}

/// A short description of a TOML value for messages: `the string "x"`, `the integer 3`.
fn describe(v: &DeValue<'_>) -> String {
    match v {
        DeValue::String(s) => format!("the string {:?}", s.as_ref()),
        DeValue::Integer(i) => format!("the integer {i}"),
        DeValue::Float(f) => format!("the float {f}"),
        DeValue::Boolean(b) => format!("the boolean {b}"),
        DeValue::Datetime(d) => format!("the datetime {d}"),
        DeValue::Array(a) => format!("an array of {} entries", a.len()),
        DeValue::Table(_) => "a table".to_string(),
    }
}

/// Serde's name for what a primitive visitor expected, in the words the messages use.
fn friendly_expectation(expected: &str) -> String {
    match expected {
        "u8" => "an integer from 0 to 255".to_string(),
        "u16" => "an integer from 0 to 65535".to_string(),
        "u32" => "an integer from 0 to 4294967295".to_string(),
        "u64" | "usize" | "u128" => "a non-negative integer".to_string(),
        "i8" | "i16" | "i32" | "i64" | "isize" | "i128" => "an integer".to_string(),
        "f32" | "f64" => "a number".to_string(),
        "a boolean" => "true or false".to_string(),
        "a sequence" => "an array".to_string(),
        "a map" => "a table".to_string(),
        s if s.starts_with("struct ") => "a table".to_string(),
        s if s.starts_with("a sequence of ") => s.replacen("a sequence of ", "an array of ", 1),
        s => s.replace('`', "\""),
    }
}

/// The names between backticks in a serde message, in order.
fn backticked(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// A parsed document: its spanned tree, for deserialising and for finding keys' positions.
pub struct Document<'a> {
    file: &'a str,
    text: &'a str,
    root: Spanned<DeTable<'a>>,
}

impl<'a> Document<'a> {
    /// Parses `text`; `file` names it in errors.
    pub fn parse(text: &'a str, file: &'a str) -> Result<Document<'a>, ConfigError> {
        let root = DeTable::parse(text).map_err(|e| {
            let (line, column) = e.span().map_or((0, 0), |s| line_column(text, s.start));
            let message = e.message().trim().lines().collect::<Vec<_>>().join(": ");
            ConfigError::Syntax {
                file: file.to_string(),
                line,
                column,
                message,
            }
        })?;
        Ok(Document { file, text, root })
    }

    /// The file name given to `parse`.
    pub fn file(&self) -> &str {
        self.file
    }

    /// Deserialises the whole document into `T`.
    pub fn deserialize<T: DeserializeOwned>(&self) -> Result<T, ConfigError> {
        self.deserialize_seed(std::marker::PhantomData::<T>)
    }

    /// Deserialises the whole document with a seed (for readers whose shape is data-driven).
    pub(crate) fn deserialize_seed<S: DeserializeSeed<'a>>(
        &self,
        seed: S,
    ) -> Result<S::Value, ConfigError> {
        let mut track = serde_path_to_error::Track::new();
        let de = toml::de::Deserializer::from(self.root.clone());
        seed.deserialize(serde_path_to_error::Deserializer::new(de, &mut track))
            .map_err(|e| self.serde_error(&e, &track.path()))
    }

    /// The span of the value at `path`, and the value when it is there; for a path that does
    /// not exist, the span of the deepest value on the way (the table lacking a key).
    fn locate(&self, path: &[Segment]) -> (Range<usize>, Option<&DeValue<'a>>) {
        let (span, _, value) = self.locate_with_key(path);
        (span, value)
    }

    /// As `locate`, with the span of the last key when the path ends in an existing key.
    fn locate_with_key(
        &self,
        path: &[Segment],
    ) -> (Range<usize>, Option<Range<usize>>, Option<&DeValue<'a>>) {
        let mut span = self.root.span();
        let mut key_span = None;
        let mut here: Option<&DeValue<'a>> = None;
        for segment in path {
            let next = match (segment, here) {
                (Segment::Key(k), None) => lookup(self.root.get_ref(), k),
                (Segment::Key(k), Some(DeValue::Table(t))) => lookup(t, k),
                (Segment::Index(n), Some(DeValue::Array(a))) => a.get(*n).map(|v| (None, v)),
                _ => None,
            };
            let Some((key, next)) = next else {
                return (span, None, None);
            };
            span = next.span();
            key_span = key;
            here = Some(next.get_ref());
        }
        (span, key_span, here)
    }

    /// 1-based line and column of the value at a dotted key (or of the nearest enclosing value
    /// that exists: the table lacking a missing key).
    pub fn position(&self, key: &str) -> (usize, usize) {
        let (span, _) = self.locate(&split_key(key));
        line_column(self.text, span.start)
    }

    /// The description of the value at `key` (`the integer 0`), if it is there.
    pub fn found(&self, key: &str) -> Option<String> {
        self.locate(&split_key(key)).1.map(describe)
    }

    /// `key` is not what it should be: `found` describes what it is.
    pub fn invalid(&self, key: &str, expected: impl Display, found: impl Display) -> ConfigError {
        let (line, column) = self.position(key);
        ConfigError::Invalid {
            file: self.file.to_string(),
            line,
            column,
            key: key.to_string(),
            expected: expected.to_string(),
            found: found.to_string(),
        }
    }

    /// `key` is not what it should be, described by its value as written.
    pub fn invalid_value(&self, key: &str, expected: impl Display) -> ConfigError {
        let found = self.found(key).unwrap_or_else(|| "absent".to_string());
        self.invalid(key, expected, found)
    }

    /// `key` is required but absent.
    pub fn missing(&self, key: &str, expected: impl Display) -> ConfigError {
        let (line, column) = self.position(key);
        ConfigError::Missing {
            file: self.file.to_string(),
            line,
            column,
            key: key.to_string(),
            expected: expected.to_string(),
        }
    }

    /// Any other problem with `key`, said in full by `message`.
    pub fn other(&self, key: &str, message: impl Display) -> ConfigError {
        let (line, column) = self.position(key);
        ConfigError::Other {
            file: self.file.to_string(),
            line,
            column,
            key: key.to_string(),
            message: message.to_string(),
        }
    }

    /// `value` of `key` unless it lies outside `min..=max` (no upper bound: `max` None).
    pub fn in_range<T>(&self, key: &str, value: T, min: T, max: Option<T>) -> Result<T, ConfigError>
    where
        T: Copy + PartialOrd + Display + Default,
    {
        if value >= min && max.map_or(true, |m| value <= m) {
            return Ok(value);
        }
        let expected = match max {
            None if min == T::default() => "a non-negative integer".to_string(),
            None => format!("an integer >= {min}"),
            Some(max) => format!("an integer from {min} to {max}"),
        };
        Err(self.invalid_value(key, expected))
    }

    /// A finite number satisfying `ok` (described by `expected`).
    pub fn number(
        &self,
        key: &str,
        value: f64,
        expected: &str,
        ok: impl Fn(f64) -> bool,
    ) -> Result<f64, ConfigError> {
        if value.is_finite() && ok(value) {
            Ok(value)
        } else {
            Err(self.invalid(key, expected, value))
        }
    }

    /// Turns a deserialisation error into the configuration error it stands for. serde's
    /// messages have a fixed wording (`unknown field `x`, expected ...`, `invalid type: ...,
    /// expected ...`), read here to restate them in this module's terms; any other message is
    /// kept whole, still with its key and position.
    fn serde_error(
        &self,
        error: &toml::de::Error,
        path: &serde_path_to_error::Path,
    ) -> ConfigError {
        let segments = path_segments(path);
        let message = error.message().trim();
        if let Some(unknown) = self.unknown_key(error, message, segments.clone()) {
            return unknown;
        }
        if let Some(missing) = self.missing_key(error, message, segments.clone()) {
            return missing;
        }
        let file = self.file.to_string();
        let (line, column) = self.error_position(error, &segments, false);
        let key = dotted(&segments);
        match (serde_expectation(message), self.locate(&segments).1) {
            (Some(expected), Some(found)) => ConfigError::Invalid {
                file,
                line,
                column,
                key,
                expected,
                found: describe(found),
            },
            _ => ConfigError::Other {
                file,
                line,
                column,
                key,
                message: message.lines().collect::<Vec<_>>().join(": "),
            },
        }
    }

    /// serde's "unknown field `x`, expected one of `a`, `b`" as an unknown key listing the
    /// keys allowed beside it.
    fn unknown_key(
        &self,
        error: &toml::de::Error,
        message: &str,
        mut segments: Vec<Segment>,
    ) -> Option<ConfigError> {
        let names = backticked(message.strip_prefix("unknown field ")?);
        let name = *names.first()?;
        if segments.last() != Some(&Segment::Key(name.to_string())) {
            segments.push(Segment::Key(name.to_string()));
        }
        let parent = &segments[..segments.len() - 1];
        let known: Vec<String> = names[1..]
            .iter()
            .map(|k| {
                let mut p = parent.to_vec();
                p.push(Segment::Key(k.to_string()));
                format!("`{}`", dotted(&p))
            })
            .collect();
        let (line, column) = self.error_position(error, &segments, true);
        Some(ConfigError::UnknownKey {
            file: self.file.to_string(),
            line,
            column,
            key: dotted(&segments),
            expected: if known.is_empty() {
                "no keys here".to_string()
            } else {
                known.join(", ")
            },
        })
    }

    /// serde's "missing field `x`" as a missing key, placed at its table.
    fn missing_key(
        &self,
        error: &toml::de::Error,
        message: &str,
        mut segments: Vec<Segment>,
    ) -> Option<ConfigError> {
        let name = *backticked(message.strip_prefix("missing field ")?).first()?;
        segments.push(Segment::Key(name.to_string()));
        let (line, column) = self.error_position(error, &segments, false);
        Some(ConfigError::Missing {
            file: self.file.to_string(),
            line,
            column,
            key: dotted(&segments),
            expected: "a value".to_string(),
        })
    }

    /// Where a deserialisation error points: the key (`at_key`) or value itself when it is in
    /// the document (serde's span may be its table's), else serde's span, else the nearest
    /// enclosing value.
    fn error_position(
        &self,
        error: &toml::de::Error,
        segments: &[Segment],
        at_key: bool,
    ) -> (usize, usize) {
        let start = match (self.locate_with_key(segments), error.span()) {
            ((_, Some(key), Some(_)), _) if at_key => key.start,
            ((span, _, Some(_)), _) => span.start,
            (_, Some(span)) => span.start,
            ((span, _, None), None) => span.start,
        };
        line_column(self.text, start)
    }
}

/// serde_path_to_error's path as this module's key path (fields, enum variants and indices).
fn path_segments(path: &serde_path_to_error::Path) -> Vec<Segment> {
    path.iter()
        .filter_map(|s| match s {
            serde_path_to_error::Segment::Seq { index } => Some(Segment::Index(*index)),
            serde_path_to_error::Segment::Map { key }
            | serde_path_to_error::Segment::Enum { variant: key } => {
                Some(Segment::Key(key.clone()))
            }
            _ => None,
        })
        .collect()
}

/// What serde's "invalid type/value/length ..., expected X" or "unknown variant `v`, expected
/// ..." message expected, in this module's words.
fn serde_expectation(message: &str) -> Option<String> {
    let typed = ["invalid type: ", "invalid value: ", "invalid length "]
        .iter()
        .find_map(|p| message.strip_prefix(p));
    if let Some((_, expected)) = typed.and_then(|rest| rest.rsplit_once(", expected ")) {
        return Some(friendly_expectation(expected));
    }
    let (_, expected) = message
        .strip_prefix("unknown variant ")?
        .split_once(", expected ")?;
    Some(expected.replace('`', "\""))
}

/// The entry of `table` called `key`, with the span of the key as written.
fn lookup<'t, 'a>(
    table: &'t DeTable<'a>,
    key: &str,
) -> Option<(Option<Range<usize>>, &'t Spanned<DeValue<'a>>)> {
    table
        .iter()
        .find(|(k, _)| k.get_ref().as_ref() == key)
        .map(|(k, v)| (Some(k.span()), v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Root {
        a: Option<Section>,
        list: Option<Vec<Section>>,
    }

    #[derive(Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Section {
        n: Option<u32>,
        m: Option<i64>,
        flag: Option<bool>,
        names: Option<Vec<String>>,
    }

    fn error(text: &str) -> String {
        let doc = match Document::parse(text, "f.toml") {
            Ok(doc) => doc,
            Err(e) => return e.to_string(),
        };
        match doc.deserialize::<Root>() {
            Ok(_) => "no error".to_string(),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn deserialisation_errors_name_file_position_key_and_expectation() {
        assert_eq!(
            error("[a]\nn = \"x\"\n"),
            "f.toml:2:5: `a.n` is the string \"x\", expected an integer from 0 to 4294967295"
        );
        assert_eq!(
            error("[a]\nm = 1\ntypo = 1\n"),
            "f.toml:3:1: unknown key `a.typo` (expected one of `a.n`, `a.m`, `a.flag`, `a.names`)"
        );
        assert_eq!(
            error("[a]\nflag = 1\n"),
            "f.toml:2:8: `a.flag` is the integer 1, expected true or false"
        );
        assert_eq!(
            error("[[list]]\nn = 1\n[[list]]\nnames = [\"x\", 2]\n"),
            "f.toml:4:15: `list[1].names[1]` is the integer 2, expected a string"
        );
        assert_eq!(
            error("a = 3\n"),
            "f.toml:1:5: `a` is the integer 3, expected a table"
        );
        assert_eq!(
            error("x = 1\ny = = 2\n").split(": TOML").next(),
            Some("f.toml:2:5")
        );
    }

    #[test]
    fn checks_after_deserialisation_find_their_key() {
        let text = "[a]\nn = 0\n\n[[list]]\nm = -4\n";
        let doc = Document::parse(text, "f.toml").unwrap();
        assert_eq!(
            doc.in_range("a.n", 0u32, 1, Some(9))
                .unwrap_err()
                .to_string(),
            "f.toml:2:5: `a.n` is the integer 0, expected an integer from 1 to 9"
        );
        assert_eq!(
            doc.in_range("list[0].m", -4i64, 0, None)
                .unwrap_err()
                .to_string(),
            "f.toml:5:5: `list[0].m` is the integer -4, expected a non-negative integer"
        );
        assert_eq!(
            doc.missing("a.dir", "the output directory").to_string(),
            "f.toml:1:1: missing key `a.dir` (expected the output directory)"
        );
        assert_eq!(
            doc.missing("b", "a [b] table").to_string(),
            "f.toml:1:1: missing key `b` (expected a [b] table)"
        );
        assert_eq!(doc.position("list[0]"), (4, 1));
        assert_eq!(
            split_key("engine[2].uci.options.Hash"),
            vec![
                Segment::Key("engine".into()),
                Segment::Index(2),
                Segment::Key("uci".into()),
                Segment::Key("options".into()),
                Segment::Key("Hash".into()),
            ]
        );
    }
}
