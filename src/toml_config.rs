//! Reading hand-walked TOML configuration files (match, tuner): one error type and one section
//! reader, so every configuration error names the file, the dotted key and what was expected,
//! and a misspelt key is an error rather than silently ignored.

use std::path::{Path, PathBuf};
use thiserror::Error;
use toml::{Table, Value};

/// What is wrong with a configuration file.
#[derive(Debug, Error)]
pub enum ConfigError {
    #[error("{file}: cannot read: {source}")]
    Io {
        file: String,
        #[source]
        source: std::io::Error,
    },
    /// Line and column are 1-based (0 if the parser gave no position).
    #[error("{file}:{line}:{column}: TOML syntax error: {message}")]
    Syntax {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{file}: missing key `{key}` (expected {expected})")]
    Missing {
        file: String,
        key: String,
        expected: String,
    },
    #[error("{file}: `{key}` is {found}, expected {expected}")]
    Invalid {
        file: String,
        key: String,
        expected: String,
        found: String,
    },
    #[error("{file}: unknown key `{key}` (expected one of {expected})")]
    UnknownKey {
        file: String,
        key: String,
        expected: String,
    },
}

/// A short description of a TOML value for messages.
pub fn describe(v: &Value) -> String {
    match v {
        Value::String(s) => format!("the string {s:?}"),
        Value::Integer(i) => format!("the integer {i}"),
        Value::Float(f) => format!("the float {f}"),
        Value::Boolean(b) => format!("the boolean {b}"),
        Value::Datetime(d) => format!("the datetime {d}"),
        Value::Array(a) => format!("an array of {} entries", a.len()),
        Value::Table(_) => "a table".to_string(),
    }
}

/// 1-based line and column of a byte offset.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, column)
}

/// The parser's message on one line, and where it points.
pub fn syntax_error(text: &str, error: &toml::de::Error) -> (usize, usize, String) {
    let (line, column) = error
        .span()
        .map_or((0, 0), |span| line_column(text, span.start));
    let message = error
        .message()
        .trim()
        .lines()
        .collect::<Vec<_>>()
        .join(": ");
    (line, column, message)
}

/// Parses a whole document; `file` names it in errors.
pub fn parse_document(text: &str, file: &str) -> Result<Table, ConfigError> {
    text.parse().map_err(|e: toml::de::Error| {
        let (line, column, message) = syntax_error(text, &e);
        ConfigError::Syntax {
            file: file.to_string(),
            line,
            column,
            message,
        }
    })
}

/// Reads a file's text, naming it in the error.
pub fn read_text(path: &Path) -> Result<String, ConfigError> {
    std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
        file: path.display().to_string(),
        source,
    })
}

/// A table being read: it records the keys asked for, so `finish` can report any other key. An
/// absent table reads as an empty one (every key takes its default).
pub struct Section<'a> {
    file: &'a str,
    path: String,
    table: Option<&'a Table>,
    used: Vec<&'static str>,
}

impl<'a> Section<'a> {
    /// The document's top level.
    pub fn root(file: &'a str, table: &'a Table) -> Section<'a> {
        Section {
            file,
            path: String::new(),
            table: Some(table),
            used: Vec::new(),
        }
    }

    /// A table found elsewhere in the document (an element of an array of tables), named `path`
    /// in messages.
    pub fn at(file: &'a str, path: String, table: &'a Table) -> Section<'a> {
        Section {
            file,
            path,
            table: Some(table),
            used: Vec::new(),
        }
    }

    /// The dotted name of a key of this table.
    pub fn key(&self, name: &str) -> String {
        if self.path.is_empty() {
            name.to_string()
        } else {
            format!("{}.{name}", self.path)
        }
    }

    /// The raw value of a key (which counts as known from now on).
    pub fn get(&mut self, name: &'static str) -> Option<&'a Value> {
        if !self.used.contains(&name) {
            self.used.push(name);
        }
        self.table.and_then(|t| t.get(name))
    }

    pub fn invalid(&self, name: &str, expected: &str, found: String) -> ConfigError {
        ConfigError::Invalid {
            file: self.file.to_string(),
            key: self.key(name),
            expected: expected.to_string(),
            found,
        }
    }

    pub fn missing(&self, name: &str, expected: &str) -> ConfigError {
        ConfigError::Missing {
            file: self.file.to_string(),
            key: self.key(name),
            expected: expected.to_string(),
        }
    }

    /// A sub-table, `None` when absent.
    pub fn table(&mut self, name: &'static str) -> Result<Option<Section<'a>>, ConfigError> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Table(t)) => Ok(Some(Section {
                file: self.file,
                path: self.key(name),
                table: Some(t),
                used: Vec::new(),
            })),
            Some(other) => Err(self.invalid(name, "a table", describe(other))),
        }
    }

    /// A sub-table that may be absent, read as empty then.
    pub fn optional_table(&mut self, name: &'static str) -> Result<Section<'a>, ConfigError> {
        Ok(self.table(name)?.unwrap_or_else(|| Section {
            file: self.file,
            path: self.key(name),
            table: None,
            used: Vec::new(),
        }))
    }

    /// An integer in `min..=max`.
    pub fn int(
        &mut self,
        name: &'static str,
        min: i64,
        max: i64,
    ) -> Result<Option<i64>, ConfigError> {
        let expected = if max == i64::MAX && min == 0 {
            "a non-negative integer".to_string()
        } else if max == i64::MAX {
            format!("an integer >= {min}")
        } else {
            format!("an integer from {min} to {max}")
        };
        match self.get(name) {
            None => Ok(None),
            Some(Value::Integer(i)) if (min..=max).contains(i) => Ok(Some(*i)),
            Some(other) => Err(self.invalid(name, &expected, describe(other))),
        }
    }

    /// A count no smaller than `min`, `default` when absent.
    pub fn count(
        &mut self,
        name: &'static str,
        default: usize,
        min: usize,
    ) -> Result<usize, ConfigError> {
        Ok(self
            .int(name, min as i64, i64::MAX)?
            .map_or(default, |i| i as usize))
    }

    /// Any number (integers accepted).
    pub fn float(&mut self, name: &'static str) -> Result<Option<f64>, ConfigError> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Float(f)) => Ok(Some(*f)),
            Some(Value::Integer(i)) => Ok(Some(*i as f64)),
            Some(other) => Err(self.invalid(name, "a number", describe(other))),
        }
    }

    /// A finite number satisfying `ok` (described by `expected`), `default` when absent.
    pub fn number(
        &mut self,
        name: &'static str,
        default: f64,
        expected: &str,
        ok: impl Fn(f64) -> bool,
    ) -> Result<f64, ConfigError> {
        let v = match self.get(name) {
            None => return Ok(default),
            Some(Value::Float(f)) => *f,
            Some(Value::Integer(i)) => *i as f64,
            Some(other) => return Err(self.invalid(name, expected, describe(other))),
        };
        if v.is_finite() && ok(v) {
            Ok(v)
        } else {
            Err(self.invalid(name, expected, format!("{v}")))
        }
    }

    pub fn string(&mut self, name: &'static str) -> Result<Option<String>, ConfigError> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(self.invalid(name, "a string", describe(other))),
        }
    }

    pub fn boolean(&mut self, name: &'static str) -> Result<Option<bool>, ConfigError> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Boolean(b)) => Ok(Some(*b)),
            Some(other) => Err(self.invalid(name, "true or false", describe(other))),
        }
    }

    pub fn path(&mut self, name: &'static str) -> Result<Option<PathBuf>, ConfigError> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::String(s)) if !s.is_empty() => Ok(Some(PathBuf::from(s))),
            Some(other) => Err(self.invalid(name, "a non-empty path string", describe(other))),
        }
    }

    /// A non-empty array of strings, each checked by `parse`.
    pub fn strings<T>(
        &mut self,
        name: &'static str,
        expected: &str,
        parse: impl Fn(&str) -> Option<T>,
    ) -> Result<Option<Vec<T>>, ConfigError> {
        let items = match self.get(name) {
            None => return Ok(None),
            Some(Value::Array(items)) if !items.is_empty() => items,
            Some(other) => return Err(self.invalid(name, expected, describe(other))),
        };
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let parsed = match item {
                Value::String(s) => parse(s),
                _ => None,
            };
            match parsed {
                Some(v) => out.push(v),
                None => {
                    return Err(self.invalid(&format!("{name}[{i}]"), expected, describe(item)))
                }
            }
        }
        Ok(Some(out))
    }

    /// Reports the first key that was never asked for, with the keys that are known here.
    pub fn finish(self) -> Result<(), ConfigError> {
        let Some(table) = self.table else {
            return Ok(());
        };
        if let Some(key) = table.keys().find(|k| !self.used.contains(&k.as_str())) {
            return Err(ConfigError::UnknownKey {
                file: self.file.to_string(),
                key: self.key(key),
                expected: self
                    .used
                    .iter()
                    .map(|k| format!("`{}`", self.key(k)))
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_file_key_and_expectation() {
        let doc = parse_document("[a]\nn = \"x\"\nm = 3\ntypo = 1\n", "f.toml").unwrap();
        let mut root = Section::root("f.toml", &doc);
        let mut a = root.table("a").unwrap().unwrap();
        assert_eq!(
            a.int("n", 0, 9).unwrap_err().to_string(),
            "f.toml: `a.n` is the string \"x\", expected an integer from 0 to 9"
        );
        assert_eq!(a.count("m", 1, 1).unwrap(), 3);
        assert_eq!(a.count("absent", 7, 0).unwrap(), 7);
        assert_eq!(
            a.finish().unwrap_err().to_string(),
            "f.toml: unknown key `a.typo` (expected one of `a.n`, `a.m`, `a.absent`)"
        );
        let mut empty = root.optional_table("b").unwrap();
        assert_eq!(empty.boolean("x").unwrap(), None);
        empty.finish().unwrap();
        root.finish().unwrap();
        let err = parse_document("x = 1\ny = = 2\n", "g.toml").unwrap_err();
        assert!(
            err.to_string().starts_with("g.toml:2:"),
            "the syntax error names its line: {err}"
        );
    }
}
