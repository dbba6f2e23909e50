//! The tuner's TOML configuration. The tree is walked by hand so that every error names the
//! file, the dotted key and what was expected; unknown keys are errors (a typo must not be
//! silently ignored).

use crate::eval::ParamGroup;
pub use crate::toml_config::ConfigError;
use crate::toml_config::{parse_document, read_text, Section};
use std::path::{Path, PathBuf};
use toml::Value;

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
    /// Resolve each position to the end of its quiescence principal variation when loading.
    pub resolve: bool,
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

impl TuneConfig {
    /// Reads a configuration file.
    pub fn load(path: impl AsRef<Path>) -> Result<TuneConfig, ConfigError> {
        let path = path.as_ref();
        let text = read_text(path)?;
        TuneConfig::from_toml_str(&text, &path.display().to_string())
    }

    /// Parses a configuration; `source` names it in errors.
    pub fn from_toml_str(text: &str, source: &str) -> Result<TuneConfig, ConfigError> {
        let root = parse_document(text, source)?;
        let mut top = Section::root(source, &root);

        let mut s = top.optional_table("data")?;
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
            resolve: match s.string("resolve")?.as_deref() {
                None | Some("none") => false,
                Some("quiescence") => true,
                Some(other) => {
                    return Err(s.invalid(
                        "resolve",
                        "\"none\" or \"quiescence\"",
                        format!("{other:?}"),
                    ))
                }
            },
        };
        s.finish()?;

        let mut s = top.optional_table("model")?;
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
            from_zero: s.boolean("from_zero")?.unwrap_or(false),
            min_occurrences: s.count("min_occurrences", 0, 0)? as u32,
        };
        s.finish()?;

        let mut s = top.optional_table("optimizer")?;
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
        s.finish()?;

        let mut s = top.optional_table("output")?;
        let output = OutputConfig {
            dir: s
                .path("dir")?
                .unwrap_or_else(|| PathBuf::from("results/tune")),
            report_every: s.count("report_every", 50, 1)?,
        };
        s.finish()?;
        top.finish()?;

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
