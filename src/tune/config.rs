//! The tuner's TOML configuration. The tree is walked by hand so that every error names the
//! file, the dotted key and what was expected; unknown keys are errors (a typo must not be
//! silently ignored).

use crate::eval::ParamGroup;
use std::path::{Path, PathBuf};
use thiserror::Error;
use toml::{Table, Value};

/// What is wrong with a tuner configuration file.
#[derive(Error, Debug)]
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
    #[error("{file}: unknown key `{key}` (expected one of {expected})")]
    UnknownKey {
        file: String,
        key: String,
        expected: String,
    },
    #[error("{file}: missing key `{key}` (expected {expected})")]
    MissingKey {
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
}

/// How K (the sigmoid's scale) is chosen.
#[derive(Copy, Clone, PartialEq, Debug)]
pub enum KSetting {
    /// Fitted to the training data with the starting weights, then fixed.
    Auto,
    Fixed(f64),
}

/// `[data]`: where the labelled positions are and how to hold some out.
#[derive(Clone, Debug, PartialEq)]
pub struct DataConfig {
    /// EPD files, read in order (paths relative to the working directory).
    pub files: Vec<PathBuf>,
    /// The share of positions held out to watch for overfitting, in [0, 1).
    pub validation_fraction: f64,
    /// Seeds the train/validation split.
    pub seed: u64,
    /// Share of each label taken from the position's recorded search score (`ce`), in [0, 1].
    pub score_weight: f64,
}

/// `[model]`: the starting weights and what to tune.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelConfig {
    /// A weights file; `None` = the built-in defaults.
    pub weights: Option<PathBuf>,
    pub tune: Vec<ParamGroup>,
    /// Start the tuned groups from zero instead of the weights file (K is still fitted with the
    /// file's values).
    pub from_zero: bool,
    /// Parameters that occur in fewer training positions than this keep their start value:
    /// Adam moves rare weights as fast as common ones, and the search exploits their noise.
    pub min_occurrences: u32,
}

/// `[optimizer]`: Adam's settings and the stopping rule.
#[derive(Clone, Debug, PartialEq)]
pub struct OptimizerConfig {
    pub learning_rate: f64,
    pub beta1: f64,
    pub beta2: f64,
    pub epochs: usize,
    pub k: KSetting,
    /// Worker threads; 0 = one per core.
    pub threads: usize,
    /// Epochs without a better validation error before stopping; 0 = never stop early.
    pub patience: usize,
    /// Positions per step; 0 = full batch.
    pub batch_size: usize,
    /// L2 penalty toward the starting weights (see `TrainOptions::l2`); 0 = none.
    pub l2: f64,
}

/// `[output]`: where results go and how often progress is printed.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputConfig {
    pub dir: PathBuf,
    /// Print a progress line every this many epochs (when not drawing a progress bar).
    pub report_every: usize,
}

/// A whole tuner configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct TuneConfig {
    /// Where the configuration came from (for messages and the output header).
    pub source: String,
    pub data: DataConfig,
    pub model: ModelConfig,
    pub optimizer: OptimizerConfig,
    pub output: OutputConfig,
}

/// A short description of a TOML value for messages.
fn describe(v: &Value) -> String {
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

const SECTIONS: [&str; 4] = ["data", "model", "optimizer", "output"];

/// One `[section]` of the file, with the keys it allows.
struct Section<'a> {
    file: &'a str,
    name: &'static str,
    table: Option<&'a Table>,
}

impl<'a> Section<'a> {
    fn new(
        file: &'a str,
        root: &'a Table,
        name: &'static str,
        allowed: &[&str],
    ) -> Result<Section<'a>, ConfigError> {
        let table = match root.get(name) {
            None => None,
            Some(Value::Table(t)) => Some(t),
            Some(other) => {
                return Err(ConfigError::Invalid {
                    file: file.to_string(),
                    key: name.to_string(),
                    expected: "a table".to_string(),
                    found: describe(other),
                })
            }
        };
        if let Some(key) = table.and_then(|t| t.keys().find(|k| !allowed.contains(&k.as_str()))) {
            return Err(ConfigError::UnknownKey {
                file: file.to_string(),
                key: format!("{name}.{key}"),
                expected: allowed
                    .iter()
                    .map(|k| format!("`{name}.{k}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        Ok(Section { file, name, table })
    }

    fn key(&self, key: &str) -> String {
        format!("{}.{key}", self.name)
    }

    fn get(&self, key: &str) -> Option<&'a Value> {
        self.table.and_then(|t| t.get(key))
    }

    fn invalid(&self, key: &str, expected: &str, found: String) -> ConfigError {
        ConfigError::Invalid {
            file: self.file.to_string(),
            key: self.key(key),
            expected: expected.to_string(),
            found,
        }
    }

    fn missing(&self, key: &str, expected: &str) -> ConfigError {
        ConfigError::MissingKey {
            file: self.file.to_string(),
            key: self.key(key),
            expected: expected.to_string(),
        }
    }

    /// A number (integer or float) satisfying `ok`, described by `expected`.
    fn number(
        &self,
        key: &str,
        default: f64,
        expected: &str,
        ok: impl Fn(f64) -> bool,
    ) -> Result<f64, ConfigError> {
        let v = match self.get(key) {
            None => return Ok(default),
            Some(Value::Float(f)) => *f,
            Some(Value::Integer(i)) => *i as f64,
            Some(other) => return Err(self.invalid(key, expected, describe(other))),
        };
        if v.is_finite() && ok(v) {
            Ok(v)
        } else {
            Err(self.invalid(key, expected, format!("{v}")))
        }
    }

    /// A non-negative integer no smaller than `min`.
    fn count(&self, key: &str, default: usize, min: usize) -> Result<usize, ConfigError> {
        let expected = if min == 0 {
            "a non-negative integer".to_string()
        } else {
            format!("an integer >= {min}")
        };
        match self.get(key) {
            None => Ok(default),
            Some(Value::Integer(i)) if *i >= min as i64 => Ok(*i as usize),
            Some(other) => Err(self.invalid(key, &expected, describe(other))),
        }
    }

    fn boolean(&self, key: &str, default: bool) -> Result<bool, ConfigError> {
        match self.get(key) {
            None => Ok(default),
            Some(Value::Boolean(b)) => Ok(*b),
            Some(other) => Err(self.invalid(key, "true or false", describe(other))),
        }
    }

    fn path(&self, key: &str) -> Result<Option<PathBuf>, ConfigError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) if !s.is_empty() => Ok(Some(PathBuf::from(s))),
            Some(other) => Err(self.invalid(key, "a non-empty path string", describe(other))),
        }
    }

    /// An array of strings (at least one), each checked by `parse`.
    fn strings<T>(
        &self,
        key: &str,
        expected: &str,
        parse: impl Fn(&str) -> Option<T>,
    ) -> Result<Option<Vec<T>>, ConfigError> {
        let items = match self.get(key) {
            None => return Ok(None),
            Some(Value::Array(items)) if !items.is_empty() => items,
            Some(other) => return Err(self.invalid(key, expected, describe(other))),
        };
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let parsed = match item {
                Value::String(s) => parse(s),
                _ => None,
            };
            match parsed {
                Some(v) => out.push(v),
                None => return Err(self.invalid(&format!("{key}[{i}]"), expected, describe(item))),
            }
        }
        Ok(Some(out))
    }
}

impl TuneConfig {
    /// Reads a configuration file.
    pub fn load(path: impl AsRef<Path>) -> Result<TuneConfig, ConfigError> {
        let path = path.as_ref();
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
            file: name.clone(),
            source,
        })?;
        TuneConfig::from_toml_str(&text, &name)
    }

    /// Parses a configuration; `source` names it in errors.
    pub fn from_toml_str(text: &str, source: &str) -> Result<TuneConfig, ConfigError> {
        let root: Table = text.parse().map_err(|e: toml::de::Error| {
            let (line, column) = e
                .span()
                .map_or((0, 0), |span| line_column(text, span.start));
            ConfigError::Syntax {
                file: source.to_string(),
                line,
                column,
                message: e.message().trim().lines().collect::<Vec<_>>().join(": "),
            }
        })?;
        if let Some(key) = root.keys().find(|k| !SECTIONS.contains(&k.as_str())) {
            return Err(ConfigError::UnknownKey {
                file: source.to_string(),
                key: key.clone(),
                expected: "the tables [data], [model], [optimizer], [output]".to_string(),
            });
        }

        let s = Section::new(
            source,
            &root,
            "data",
            &["files", "validation_fraction", "seed", "score_weight"],
        )?;
        let files_expected = "a non-empty array of file paths";
        let files = s
            .strings("files", files_expected, |f| {
                (!f.is_empty()).then(|| PathBuf::from(f))
            })?
            .ok_or_else(|| s.missing("files", files_expected))?;
        let data = DataConfig {
            files,
            validation_fraction: s.number(
                "validation_fraction",
                0.1,
                "a number from 0 (no validation set) up to but not including 1",
                |f| (0.0..1.0).contains(&f),
            )?,
            seed: s.count("seed", 1, 0)? as u64,
            score_weight: s.number("score_weight", 0.0, "a number from 0 to 1", |f| {
                (0.0..=1.0).contains(&f)
            })?,
        };

        let s = Section::new(
            source,
            &root,
            "model",
            &["weights", "tune", "from_zero", "min_occurrences"],
        )?;
        let names: Vec<&str> = ParamGroup::ALL.iter().map(|g| g.name()).collect();
        let groups_expected = format!(
            "a non-empty array of parameter groups from {}",
            names.join(", ")
        );
        let tune = s
            .strings("tune", &groups_expected, ParamGroup::from_name)?
            .unwrap_or_else(|| ParamGroup::ALL.to_vec());
        if let Some(i) = (1..tune.len()).find(|&i| tune[..i].contains(&tune[i])) {
            return Err(s.invalid(
                &format!("tune[{i}]"),
                "each group at most once",
                format!("a second {:?}", tune[i].name()),
            ));
        }
        let model = ModelConfig {
            weights: s.path("weights")?,
            tune,
            from_zero: s.boolean("from_zero", false)?,
            min_occurrences: s.count("min_occurrences", 0, 0)? as u32,
        };

        let s = Section::new(
            source,
            &root,
            "optimizer",
            &[
                "learning_rate",
                "beta1",
                "beta2",
                "epochs",
                "k",
                "threads",
                "patience",
                "batch_size",
                "l2",
            ],
        )?;
        let k_expected = "\"auto\" or a positive number";
        let k = match s.get("k") {
            None => KSetting::Auto,
            Some(Value::String(a)) if a == "auto" => KSetting::Auto,
            Some(_) => KSetting::Fixed(s.number("k", 1.0, k_expected, |k| k > 0.0)?),
        };
        let optimizer = OptimizerConfig {
            learning_rate: s.number("learning_rate", 1.0, "a positive number", |f| f > 0.0)?,
            beta1: s.number("beta1", 0.9, "a number in [0, 1)", |f| {
                (0.0..1.0).contains(&f)
            })?,
            beta2: s.number("beta2", 0.999, "a number in [0, 1)", |f| {
                (0.0..1.0).contains(&f)
            })?,
            epochs: s.count("epochs", 2000, 0)?,
            k,
            threads: s.count("threads", 0, 0)?,
            patience: s.count("patience", 100, 0)?,
            batch_size: s.count("batch_size", 0, 0)?,
            l2: s.number("l2", 0.0, "a number from 0 up", |f| f >= 0.0)?,
        };

        let s = Section::new(source, &root, "output", &["dir", "report_every"])?;
        let output = OutputConfig {
            dir: s
                .path("dir")?
                .unwrap_or_else(|| PathBuf::from("results/tune")),
            report_every: s.count("report_every", 50, 1)?,
        };

        Ok(TuneConfig {
            source: source.to_string(),
            data,
            model,
            optimizer,
            output,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimal_config_takes_the_defaults() {
        let c = TuneConfig::from_toml_str("[data]\nfiles = [\"a.epd\"]\n", "t.toml").unwrap();
        assert_eq!(c.data.files, vec![PathBuf::from("a.epd")]);
        assert_eq!(c.data.validation_fraction, 0.1);
        assert_eq!(c.model.tune, ParamGroup::ALL.to_vec());
        assert_eq!(c.model.weights, None);
        assert_eq!(c.optimizer.k, KSetting::Auto);
        assert_eq!(c.optimizer.epochs, 2000);
        assert_eq!(c.output.dir, PathBuf::from("results/tune"));
    }

    #[test]
    fn fixed_k_and_integer_numbers() {
        let c = TuneConfig::from_toml_str(
            "[data]\nfiles = [\"a\"]\nvalidation_fraction = 0\n[optimizer]\nk = 2\nlearning_rate = 3\n",
            "t",
        )
        .unwrap();
        assert_eq!(c.optimizer.k, KSetting::Fixed(2.0));
        assert_eq!(c.optimizer.learning_rate, 3.0);
        assert_eq!(c.data.validation_fraction, 0.0);
    }
}
