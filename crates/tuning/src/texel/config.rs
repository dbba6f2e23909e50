//! The tuner's TOML configuration. The file's shape is derived with serde (unknown keys are
//! errors: a typo must not be silently ignored); ranges are checked in plain code afterwards.
//! Every error names the file, line and column, the dotted key and what was expected.

use super::external::{EngineSpec, ANSWER_TIMEOUT};
use crate::available_cores;
use crate::eval::ParamGroup;
use crate::toml_config::ConfigError;
use crate::toml_config::{read_text, Document};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How K (the sigmoid's scale) is chosen.
#[derive(Copy, Clone, PartialEq, Debug)]
pub enum KSetting {
    /// Fitted to the training data with the starting weights, then fixed.
    Auto,
    /// `optimizer.k = <number>`: this positive K, used as given.
    Fixed(f64),
}

/// `[data]`: where the labelled positions are and how to hold some out.
#[derive(Clone, Debug, PartialEq)]
pub struct DataConfig {
    /// EPD files and glob patterns (`shards/*/positions.epd`), read in order, each pattern's
    /// matches sorted by path (paths relative to the working directory); see
    /// `data::expand_data_files`.
    pub files: Vec<PathBuf>,
    /// The share of positions held out to watch for overfitting, in [0, 1).
    pub validation_fraction: f64,
    /// Seeds the train/validation split.
    pub seed: u64,
    /// Share of each label taken from the position's recorded search score (`ce`), in [0, 1].
    pub score_weight: f64,
    /// Resolve each position to the end of its quiescence principal variation when loading.
    pub resolve: bool,
    /// `data.dedupe` (default true): merge repeats of a position (same Zobrist key) across all
    /// files into one, labelled with their mean result; see `Dataset::deduplicate`.
    pub dedupe: bool,
}

/// `[model]`: the starting weights and what to tune.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelConfig {
    /// A weights file; `None` = the built-in defaults.
    pub weights: Option<PathBuf>,
    /// `model.tune`: the parameter groups the tuner changes (default all); the rest keep their
    /// start values.
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
    /// `optimizer.learning_rate` (default 1.0): Adam's step size, roughly the largest change of a
    /// weight per step.
    pub learning_rate: f64,
    /// `optimizer.beta1` (default 0.9, in [0, 1)): decay rate of Adam's mean gradient.
    pub(crate) beta1: f64,
    /// `optimizer.beta2` (default 0.999, in [0, 1)): decay rate of Adam's mean squared gradient.
    pub(crate) beta2: f64,
    /// `optimizer.epochs` (default 2000): the most epochs to run, each one pass over the training
    /// data.
    pub epochs: usize,
    /// `optimizer.k`: `"auto"` (default) or a fixed positive K.
    pub k: KSetting,
    /// Worker threads; 0 = one per core.
    pub threads: usize,
    /// Epochs without a better validation error before stopping; 0 = never stop early.
    pub patience: usize,
    /// Positions per step; 0 = full batch.
    pub batch_size: usize,
    /// L2 penalty toward the starting weights (see `TrainOptions::l2`); 0 = none.
    pub l2: f64,
    /// `optimizer.method`: Adam or Gauss-Newton; None = the tuner's default (Adam for
    /// sparring's own evaluation, Gauss-Newton for an engine traced through the protocol).
    pub method: Option<OptimizerMethod>,
}

/// `optimizer.method`: how the weights are optimised.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum OptimizerMethod {
    /// `"adam"`: full-batch (or mini-batch) Adam, `epochs` passes, early stopping on the
    /// validation error.
    Adam,
    /// `"gauss-newton"`: damped Gauss-Newton steps (Levenberg-Marquardt), `epochs` iterations
    /// at most; the evaluation is linear in its weights, so a handful reach the minimum.
    GaussNewton,
}

/// `[output]`: where results go and how often progress is printed.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputConfig {
    /// `output.dir` (default `results/tune`): where weights.toml, history.csv and the plots go.
    pub dir: PathBuf,
    /// Print a progress line every this many epochs (when not drawing a progress bar).
    pub report_every: usize,
}

/// A whole tuner configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct TuneConfig {
    /// Where the configuration came from (for messages and the output header).
    pub source: String,
    /// The `[data]` table (required).
    pub data: DataConfig,
    /// The `[model]` table.
    pub model: ModelConfig,
    /// The `[optimizer]` table.
    pub optimizer: OptimizerConfig,
    /// The `[output]` table.
    pub output: OutputConfig,
    /// The `[engine]` table: an external engine whose evaluation is tuned through the trace
    /// protocol instead of sparring's (`sparring tune --engine` overrides it).
    pub engine: Option<EngineSpec>,
    /// Line and column of `data.files`, for errors about its entries.
    files_position: (usize, usize),
}

/// The file as written; `TuneConfig::from_toml_str` checks it and fills in the defaults.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct TuneFile {
    data: Option<DataFile>,
    #[serde(default)]
    model: ModelFile,
    #[serde(default)]
    optimizer: OptimizerFile,
    #[serde(default)]
    output: OutputFile,
    engine: Option<EngineFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EngineFile {
    command: Option<String>,
    args: Option<Vec<String>>,
    working_dir: Option<String>,
    /// Seconds per answer.
    timeout: Option<f64>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct DataFile {
    files: Option<Vec<String>>,
    validation_fraction: Option<f64>,
    seed: Option<u64>,
    score_weight: Option<f64>,
    resolve: Option<ResolveFile>,
    dedupe: Option<bool>,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum ResolveFile {
    None,
    Quiescence,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct ModelFile {
    weights: Option<String>,
    tune: Option<Vec<String>>,
    from_zero: Option<bool>,
    min_occurrences: Option<u32>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct OptimizerFile {
    learning_rate: Option<f64>,
    beta1: Option<f64>,
    beta2: Option<f64>,
    epochs: Option<usize>,
    /// `"auto"` or a number: checked by hand.
    k: Option<toml::Value>,
    threads: Option<usize>,
    patience: Option<usize>,
    batch_size: Option<usize>,
    l2: Option<f64>,
    method: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct OutputFile {
    dir: Option<String>,
    report_every: Option<usize>,
}

impl TuneConfig {
    /// Reads a configuration file.
    pub fn load(path: impl AsRef<Path>) -> Result<TuneConfig, ConfigError> {
        let path = path.as_ref();
        let text = read_text(path)?;
        TuneConfig::from_toml_str(&text, &path.display().to_string())
    }

    /// Parses a configuration; `source` names it in errors.
    pub fn from_toml_str(text: &str, source: &str) -> Result<TuneConfig, ConfigError> {
        let doc = Document::parse(text, source)?;
        let f: TuneFile = doc.deserialize()?;
        Ok(TuneConfig {
            source: source.to_string(),
            data: data_config(&doc, f.data.unwrap_or_default())?,
            model: model_config(&doc, f.model)?,
            optimizer: optimizer_config(&doc, f.optimizer)?,
            output: output_config(&doc, f.output)?,
            engine: f.engine.map(|e| engine_config(&doc, e)).transpose()?,
            files_position: doc.position("data.files"),
        })
    }

    /// Where `data.files` is written: `file:line:column: data.files`, the prefix of an error
    /// about one of its entries (a missing file, a directory, a pattern without matches).
    pub fn data_files_location(&self) -> String {
        let (line, column) = self.files_position;
        format!("{}:{line}:{column}: data.files", self.source)
    }
}

/// `[data]`, checked, with its defaults.
fn data_config(doc: &Document<'_>, d: DataFile) -> Result<DataConfig, ConfigError> {
    let files_expected = "a non-empty array of file paths";
    let files = d
        .files
        .ok_or_else(|| doc.missing("data.files", files_expected))?;
    if files.is_empty() {
        return Err(doc.invalid_value("data.files", files_expected));
    }
    if let Some(i) = files.iter().position(|f| f.is_empty()) {
        return Err(doc.invalid_value(&format!("data.files[{i}]"), files_expected));
    }
    let validation_fraction = d.validation_fraction.unwrap_or(0.1);
    if validation_fraction >= 1.0 {
        return Err(doc.invalid(
            "data.validation_fraction",
            "a number from 0 (no validation set) up to but not including 1",
            format!("{validation_fraction}, which leaves no training data"),
        ));
    }
    Ok(DataConfig {
        files: files.into_iter().map(PathBuf::from).collect(),
        validation_fraction: doc.number(
            "data.validation_fraction",
            validation_fraction,
            "a number from 0 (no validation set) up to but not including 1",
            |f| (0.0..1.0).contains(&f),
        )?,
        seed: d.seed.unwrap_or(1),
        score_weight: doc.number(
            "data.score_weight",
            d.score_weight.unwrap_or(0.0),
            "a number from 0 to 1",
            |f| (0.0..=1.0).contains(&f),
        )?,
        resolve: matches!(d.resolve, Some(ResolveFile::Quiescence)),
        dedupe: d.dedupe.unwrap_or(true),
    })
}

/// `[model]`, checked, with its defaults.
fn model_config(doc: &Document<'_>, m: ModelFile) -> Result<ModelConfig, ConfigError> {
    let names: Vec<&str> = ParamGroup::ALL.iter().map(|g| g.name()).collect();
    let groups_expected = format!(
        "a non-empty array of parameter groups from {}",
        names.join(", ")
    );
    let tune = match m.tune {
        None => ParamGroup::ALL.to_vec(),
        Some(list) if list.is_empty() => {
            return Err(doc.invalid_value("model.tune", &groups_expected))
        }
        Some(list) => {
            let mut tune = Vec::with_capacity(list.len());
            for (i, name) in list.iter().enumerate() {
                let key = format!("model.tune[{i}]");
                let group = ParamGroup::from_name(name)
                    .ok_or_else(|| doc.invalid_value(&key, &groups_expected))?;
                if tune.contains(&group) {
                    return Err(doc.invalid(
                        &key,
                        "each group at most once",
                        format!("a second {name:?}"),
                    ));
                }
                tune.push(group);
            }
            tune
        }
    };
    Ok(ModelConfig {
        weights: match m.weights {
            Some(w) if w.is_empty() => {
                return Err(doc.invalid_value("model.weights", "a non-empty path string"))
            }
            w => w.map(PathBuf::from),
        },
        tune,
        from_zero: m.from_zero.unwrap_or(false),
        min_occurrences: m.min_occurrences.unwrap_or(0),
    })
}

/// `[optimizer]`, checked, with its defaults.
fn optimizer_config(doc: &Document<'_>, o: OptimizerFile) -> Result<OptimizerConfig, ConfigError> {
    let k_expected = "\"auto\" or a positive number";
    let k = match o.k {
        None => KSetting::Auto,
        Some(toml::Value::String(a)) if a == "auto" => KSetting::Auto,
        Some(toml::Value::Float(k)) => {
            KSetting::Fixed(doc.number("optimizer.k", k, k_expected, |k| k > 0.0)?)
        }
        Some(toml::Value::Integer(k)) => {
            KSetting::Fixed(doc.number("optimizer.k", k as f64, k_expected, |k| k > 0.0)?)
        }
        Some(_) => return Err(doc.invalid_value("optimizer.k", k_expected)),
    };
    let cores = available_cores();
    let threads = o.threads.unwrap_or(0);
    if threads > cores {
        return Err(doc.invalid_value(
            "optimizer.threads",
            format!(
                "0 (one per core) or an integer up to {cores} (the threads this machine runs at \
                 once)"
            ),
        ));
    }
    let method = match o.method.as_deref() {
        None => None,
        Some("adam") => Some(OptimizerMethod::Adam),
        Some("gauss-newton") => Some(OptimizerMethod::GaussNewton),
        Some(_) => {
            return Err(doc.invalid_value("optimizer.method", "\"adam\" or \"gauss-newton\""))
        }
    };
    if method == Some(OptimizerMethod::GaussNewton) && o.batch_size.is_some_and(|b| b > 0) {
        return Err(doc.invalid_value(
            "optimizer.batch_size",
            "0 (full batch) with optimizer.method = \"gauss-newton\"",
        ));
    }
    Ok(OptimizerConfig {
        method,
        learning_rate: doc.number(
            "optimizer.learning_rate",
            o.learning_rate.unwrap_or(1.0),
            "a positive number",
            |f| f > 0.0,
        )?,
        beta1: doc.number(
            "optimizer.beta1",
            o.beta1.unwrap_or(0.9),
            "a number in [0, 1)",
            |f| (0.0..1.0).contains(&f),
        )?,
        beta2: doc.number(
            "optimizer.beta2",
            o.beta2.unwrap_or(0.999),
            "a number in [0, 1)",
            |f| (0.0..1.0).contains(&f),
        )?,
        // Zero epochs would write the starting weights back as "tuned".
        epochs: doc.in_range("optimizer.epochs", o.epochs.unwrap_or(2000), 1, None)?,
        k,
        threads,
        patience: o.patience.unwrap_or(100),
        batch_size: o.batch_size.unwrap_or(0),
        l2: doc.number(
            "optimizer.l2",
            o.l2.unwrap_or(0.0),
            "a number from 0 up",
            |f| f >= 0.0,
        )?,
    })
}

/// `[output]`, checked, with its defaults.
fn output_config(doc: &Document<'_>, out: OutputFile) -> Result<OutputConfig, ConfigError> {
    let dir = match out.dir {
        None => "results/tune".to_string(),
        Some(d) if d.is_empty() => {
            return Err(doc.invalid_value("output.dir", "a non-empty path string"))
        }
        Some(d) => d,
    };
    if Path::new(&dir).is_file() {
        return Err(doc.other("output.dir", format!("{dir} is a file, not a directory")));
    }
    Ok(OutputConfig {
        dir: PathBuf::from(dir),
        report_every: doc.in_range(
            "output.report_every",
            out.report_every.unwrap_or(50),
            1,
            None,
        )?,
    })
}

/// `[engine]`, checked: a command is required, a working directory must exist.
fn engine_config(doc: &Document<'_>, e: EngineFile) -> Result<EngineSpec, ConfigError> {
    let command = match e.command {
        None => return Err(doc.missing("engine.command", "the engine's program")),
        Some(c) if c.trim().is_empty() => {
            return Err(doc.invalid_value("engine.command", "a non-empty program path or name"))
        }
        Some(c) => c,
    };
    let working_dir = match e.working_dir {
        Some(d) if d.is_empty() => {
            return Err(doc.invalid_value("engine.working_dir", "a non-empty directory path"))
        }
        Some(d) if !Path::new(&d).is_dir() => {
            return Err(doc.other(
                "engine.working_dir",
                format!("{d} is not a directory (paths are relative to where sparring runs)"),
            ))
        }
        d => d.map(PathBuf::from),
    };
    let seconds = match e.timeout {
        None => ANSWER_TIMEOUT.as_secs_f64(),
        Some(t) => doc.number(
            "engine.timeout",
            t,
            "a positive number of seconds (at most a day)",
            |t| t > 0.0 && t <= 86_400.0,
        )?,
    };
    Ok(EngineSpec {
        command,
        args: e.args.unwrap_or_default(),
        working_dir,
        answer_timeout: Duration::from_secs_f64(seconds),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimal_config_takes_the_defaults() {
        let c = TuneConfig::from_toml_str("[data]\nfiles = [\"a.epd\"]\n", "t.toml").unwrap();
        assert_eq!(c.data.files, vec![PathBuf::from("a.epd")]);
        assert_eq!(c.data.validation_fraction, 0.1);
        assert!(c.data.dedupe);
        assert_eq!(c.model.tune, ParamGroup::ALL.to_vec());
        assert_eq!(c.model.weights, None);
        assert_eq!(c.optimizer.k, KSetting::Auto);
        assert_eq!(c.optimizer.epochs, 2000);
        assert_eq!(c.output.dir, PathBuf::from("results/tune"));
    }

    /// Each numeric optimizer field outside its range is refused with the file, line, column
    /// and key; zero epochs was once accepted (and wrote the starting weights as the result).
    #[test]
    fn out_of_range_optimizer_numbers_are_refused_with_their_position() {
        let cases = [
            (
                "epochs = 0",
                "t.toml:4:10: `optimizer.epochs` is the integer 0, expected an integer >= 1",
            ),
            (
                "learning_rate = 0",
                "t.toml:4:17: `optimizer.learning_rate`",
            ),
            (
                "learning_rate = -1.5",
                "t.toml:4:17: `optimizer.learning_rate`",
            ),
            (
                "learning_rate = nan",
                "t.toml:4:17: `optimizer.learning_rate`",
            ),
            (
                "learning_rate = inf",
                "t.toml:4:17: `optimizer.learning_rate`",
            ),
            ("beta1 = 1.0", "t.toml:4:9: `optimizer.beta1`"),
            ("beta2 = -0.1", "t.toml:4:9: `optimizer.beta2`"),
            ("l2 = -1e-5", "t.toml:4:6: `optimizer.l2`"),
            ("l2 = nan", "t.toml:4:6: `optimizer.l2`"),
            ("k = 0", "t.toml:4:5: `optimizer.k`"),
            ("k = -2.0", "t.toml:4:5: `optimizer.k`"),
            ("k = \"fit\"", "t.toml:4:5: `optimizer.k`"),
            ("epochs = -3", "t.toml:4:10: `optimizer.epochs`"),
            ("batch_size = -1", "t.toml:4:14: `optimizer.batch_size`"),
            ("patience = 1.5", "t.toml:4:12: `optimizer.patience`"),
        ];
        for (line, expected) in cases {
            let text = format!("[data]\nfiles = [\"a\"]\n[optimizer]\n{line}\n");
            let err = TuneConfig::from_toml_str(&text, "t.toml").unwrap_err();
            assert!(
                err.to_string().starts_with(expected),
                "{line}: {err} (expected it to start with {expected})"
            );
        }
        let ok = TuneConfig::from_toml_str(
            "[data]\nfiles = [\"a\"]\n[optimizer]\nepochs = 1\nbatch_size = 0\npatience = 0\n",
            "t.toml",
        )
        .unwrap();
        assert_eq!(ok.optimizer.epochs, 1);
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

    #[test]
    fn the_engine_table_is_read_and_checked() {
        let head = "[data]\nfiles = [\"a\"]\n[engine]\n";
        let c = TuneConfig::from_toml_str(
            &format!("{head}command = \"./eng\"\nargs = [\"--x\", \"1\"]\nworking_dir = \".\"\ntimeout = 2.5\n"),
            "t.toml",
        )
        .unwrap();
        let e = c.engine.unwrap();
        assert_eq!(
            (e.command.as_str(), e.display().as_str()),
            ("./eng", "./eng --x 1")
        );
        assert_eq!(e.working_dir, Some(PathBuf::from(".")));
        assert_eq!(e.answer_timeout, Duration::from_millis(2500));
        let plain = TuneConfig::from_toml_str(&format!("{head}command = \"e\"\n"), "t").unwrap();
        assert_eq!(plain.engine.unwrap().answer_timeout, ANSWER_TIMEOUT);
        assert_eq!(
            TuneConfig::from_toml_str("[data]\nfiles = [\"a\"]\n", "t")
                .unwrap()
                .engine,
            None
        );
        let cases = [
            ("command = \"e\"\nflags = 1", "t.toml:5:1:", "engine.flags"),
            (
                "command = \"e\"\nargs = \"--x\"",
                "t.toml:5:8:",
                "engine.args",
            ),
            ("command = 3", "t.toml:4:11:", "engine.command"),
            ("command = \"\"", "t.toml:4:11:", "engine.command"),
            ("args = []", "t.toml:3:1:", "engine.command"),
            (
                "command = \"e\"\ntimeout = 0",
                "t.toml:5:11:",
                "engine.timeout",
            ),
            (
                "command = \"e\"\nworking_dir = \"/no/such/dir\"",
                "t.toml:5:15:",
                "engine.working_dir",
            ),
        ];
        for (table, at, key) in cases {
            let err = TuneConfig::from_toml_str(&format!("{head}{table}\n"), "t.toml")
                .unwrap_err()
                .to_string();
            assert!(err.starts_with(at) && err.contains(key), "{table}: {err}");
        }
    }
}
