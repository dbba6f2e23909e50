//! The trainer's TOML configuration (configs/train.toml documents every key). The file's shape is
//! derived with serde (unknown keys are errors); ranges are checked afterwards, and every error
//! names the file, line and column, the dotted key and what was expected.

use super::data::DataSpec;
use super::optim::{AdamWSettings, LambdaSchedule, StepLr};
use crate::available_cores;
use crate::toml_config::{read_text, ConfigError, Document};
use serde::Deserialize;
use sparring_harness::data::{DataFormat, Filter};
use std::path::{Path, PathBuf};

/// A whole training configuration, checked.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainConfig {
    /// Where it came from (for messages).
    pub source: String,
    /// `[data]` and `[filter]`.
    pub data: DataSpec,
    /// `model.hidden`: N, hidden units per perspective.
    pub hidden: usize,
    /// `model.init`: a `raw.bin` or a quantised net to start from instead of bullet's random start.
    pub init: Option<PathBuf>,
    /// `training.superbatches`: how many superbatches (epochs) to run.
    pub superbatches: usize,
    /// `training.batches_per_superbatch`: 0 = a superbatch is one pass over the data.
    pub batches_per_superbatch: usize,
    /// `training.batch_size`.
    pub batch_size: usize,
    /// `training.lambda` / `training.lambda_end`.
    pub lambda: LambdaSchedule,
    /// `training.seed`: the start weights' seed.
    pub seed: u64,
    /// `training.threads`: 0 = one per core.
    pub threads: usize,
    /// `training.checkpoint_every`: superbatches between checkpoints (the last always is one).
    pub(crate) checkpoint_every: usize,
    /// `[optimizer]`'s learning-rate schedule.
    pub lr: StepLr,
    /// `[optimizer]`'s AdamW settings.
    pub(crate) adamw: AdamWSettings,
    /// `output.dir`.
    pub out: PathBuf,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct TrainFile {
    data: Option<DataFile>,
    #[serde(default)]
    filter: FilterFile,
    #[serde(default)]
    model: ModelFile,
    #[serde(default)]
    training: TrainingFile,
    #[serde(default)]
    optimizer: OptimizerFile,
    #[serde(default)]
    output: OutputFile,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct DataFile {
    files: Option<Vec<String>>,
    format: Option<String>,
    validation_fraction: Option<f64>,
    validation_max: Option<usize>,
    shuffle_buffer: Option<usize>,
    seed: Option<u64>,
    mirror: Option<bool>,
    interleave: Option<bool>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct FilterFile {
    min_ply: Option<u32>,
    min_pieces: Option<u32>,
    max_eval: Option<u32>,
    filter_check: Option<bool>,
    filter_tactical: Option<bool>,
    filter_castling: Option<bool>,
    max_eval_incorrectness: Option<u32>,
    skip_probability: Option<f64>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct ModelFile {
    hidden: Option<usize>,
    init: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct TrainingFile {
    superbatches: Option<usize>,
    batches_per_superbatch: Option<usize>,
    batch_size: Option<usize>,
    lambda: Option<f64>,
    lambda_end: Option<f64>,
    seed: Option<u64>,
    threads: Option<usize>,
    checkpoint_every: Option<usize>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct OptimizerFile {
    lr: Option<f64>,
    lr_gamma: Option<f64>,
    lr_step: Option<usize>,
    decay: Option<f64>,
    beta1: Option<f64>,
    beta2: Option<f64>,
    epsilon: Option<f64>,
    clip: Option<f64>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct OutputFile {
    dir: Option<String>,
}

impl TrainConfig {
    /// Reads a configuration file.
    pub fn load(path: impl AsRef<Path>) -> Result<TrainConfig, ConfigError> {
        let path = path.as_ref();
        let text = read_text(path)?;
        TrainConfig::from_toml_str(&text, &path.display().to_string())
    }

    /// Parses a configuration; `source` names it in errors.
    pub fn from_toml_str(text: &str, source: &str) -> Result<TrainConfig, ConfigError> {
        let doc = Document::parse(text, source)?;
        let f: TrainFile = doc.deserialize()?;
        let data = f.data.unwrap_or_default();
        let files = data
            .files
            .clone()
            .ok_or_else(|| doc.missing("data.files", "an array of data files"))?;
        if let Some(i) = files.iter().position(|f| f.is_empty()) {
            return Err(doc.invalid_value(&format!("data.files[{i}]"), "a non-empty path"));
        }
        let t = f.training;
        let hidden = doc.in_range("model.hidden", f.model.hidden.unwrap_or(128), 1, Some(8192))?;
        let cores = available_cores();
        let lambda = |key: &str, v: f64| {
            doc.number(key, v, "a number from 0 to 1", |v| (0.0..=1.0).contains(&v))
        };
        let start = lambda("training.lambda", t.lambda.unwrap_or(0.75))?;
        let end = match t.lambda_end {
            Some(end) => lambda("training.lambda_end", end)?,
            None => start,
        };
        Ok(TrainConfig {
            source: source.to_string(),
            data: data_spec(&doc, data, files, f.filter)?,
            hidden,
            init: match f.model.init {
                Some(p) if p.is_empty() => {
                    return Err(
                        doc.invalid_value("model.init", "a path to a raw.bin or a quantised net")
                    )
                }
                p => p.map(PathBuf::from),
            },
            superbatches: doc.in_range(
                "training.superbatches",
                t.superbatches.unwrap_or(10),
                1,
                None,
            )?,
            batches_per_superbatch: t.batches_per_superbatch.unwrap_or(0),
            batch_size: doc.in_range(
                "training.batch_size",
                t.batch_size.unwrap_or(16384),
                1,
                Some(1 << 22),
            )?,
            lambda: LambdaSchedule {
                start: start as f32,
                end: end as f32,
            },
            seed: t.seed.unwrap_or(1),
            threads: doc.in_range("training.threads", t.threads.unwrap_or(0), 0, Some(cores))?,
            checkpoint_every: doc.in_range(
                "training.checkpoint_every",
                t.checkpoint_every.unwrap_or(1),
                1,
                None,
            )?,
            lr: lr_schedule(&doc, &f.optimizer)?,
            adamw: adamw(&doc, &f.optimizer)?,
            out: match f.output.dir {
                Some(d) if d.is_empty() => {
                    return Err(doc.invalid_value("output.dir", "a non-empty path"))
                }
                d => PathBuf::from(d.unwrap_or_else(|| "results/train".into())),
            },
        })
    }
}

/// `[data]` and `[filter]` as the loader takes them.
fn data_spec(
    doc: &Document<'_>,
    d: DataFile,
    files: Vec<String>,
    f: FilterFile,
) -> Result<DataSpec, ConfigError> {
    let names: Vec<&str> = DataFormat::ALL.iter().map(|f| f.name()).collect();
    let format = match d.format.as_deref() {
        None | Some("auto") => None,
        Some(name) => Some(DataFormat::from_name(name).ok_or_else(|| {
            doc.invalid_value(
                "data.format",
                format!("\"auto\" (by extension) or one of {}", names.join(", ")),
            )
        })?),
    };
    let fraction = "a number from 0 up to but not including 1";
    let validation_fraction = doc.number(
        "data.validation_fraction",
        d.validation_fraction.unwrap_or(0.05),
        fraction,
        |v| (0.0..1.0).contains(&v),
    )?;
    Ok(DataSpec {
        files: files.into_iter().map(PathBuf::from).collect(),
        format,
        filter: Filter {
            min_ply: f.min_ply.unwrap_or(0),
            min_pieces: f.min_pieces.unwrap_or(0),
            max_eval: Some(
                f.max_eval
                    .unwrap_or(sparring_harness::data::MATE_FLOOR as u32),
            ),
            filter_check: f.filter_check.unwrap_or(false),
            filter_tactical: f.filter_tactical.unwrap_or(false),
            filter_castling: f.filter_castling.unwrap_or(false),
            max_eval_incorrectness: f.max_eval_incorrectness,
        },
        skip_probability: doc.number(
            "filter.skip_probability",
            f.skip_probability.unwrap_or(0.0),
            fraction,
            |v| (0.0..1.0).contains(&v),
        )?,
        mirror: d.mirror.unwrap_or(false),
        validation_fraction,
        validation_max: d.validation_max.unwrap_or(1_000_000),
        shuffle_buffer: doc.in_range(
            "data.shuffle_buffer",
            d.shuffle_buffer.unwrap_or(1 << 20),
            1,
            Some(1 << 28),
        )?,
        interleave: d.interleave.unwrap_or(true),
        seed: d.seed.unwrap_or(1),
    })
}

/// `optimizer.lr`, `lr_gamma`, `lr_step`.
fn lr_schedule(doc: &Document<'_>, o: &OptimizerFile) -> Result<StepLr, ConfigError> {
    Ok(StepLr {
        start: doc.number(
            "optimizer.lr",
            o.lr.unwrap_or(0.001),
            "a positive number",
            |v| v > 0.0,
        )? as f32,
        gamma: doc.number(
            "optimizer.lr_gamma",
            o.lr_gamma.unwrap_or(0.1),
            "a number in (0, 1]",
            |v| v > 0.0 && v <= 1.0,
        )? as f32,
        step: doc.in_range("optimizer.lr_step", o.lr_step.unwrap_or(18), 1, None)?,
    })
}

/// bullet's AdamW defaults, overridable.
fn adamw(doc: &Document<'_>, o: &OptimizerFile) -> Result<AdamWSettings, ConfigError> {
    let d = AdamWSettings::default();
    let unit = |key: &str, v: Option<f64>, default: f32| {
        doc.number(
            key,
            v.unwrap_or(f64::from(default)),
            "a number in [0, 1)",
            |v| (0.0..1.0).contains(&v),
        )
        .map(|v| v as f32)
    };
    let positive = |key: &str, v: Option<f64>, default: f32| {
        doc.number(
            key,
            v.unwrap_or(f64::from(default)),
            "a positive number",
            |v| v > 0.0,
        )
        .map(|v| v as f32)
    };
    Ok(AdamWSettings {
        decay: unit("optimizer.decay", o.decay, d.decay)?,
        beta1: unit("optimizer.beta1", o.beta1, d.beta1)?,
        beta2: unit("optimizer.beta2", o.beta2, d.beta2)?,
        epsilon: positive("optimizer.epsilon", o.epsilon, d.epsilon)?,
        clip: positive("optimizer.clip", o.clip, d.clip)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_bullets_simple_example() {
        let c =
            TrainConfig::from_toml_str("[data]\nfiles = [\"a.viriformat\"]\n", "t.toml").unwrap();
        assert_eq!((c.hidden, c.batch_size, c.superbatches), (128, 16384, 10));
        assert_eq!(c.lr.rate(19), 0.001 * 0.1);
        assert_eq!(c.adamw, AdamWSettings::default());
        assert_eq!(c.lambda.at(5, 10), 0.75);
    }

    #[test]
    fn an_unknown_key_names_file_line_and_key() {
        let text = "[data]\nfiles = [\"a.txt\"]\n[training]\nbatch = 5\n";
        let err = TrainConfig::from_toml_str(text, "t.toml").unwrap_err();
        assert!(err.to_string().starts_with("t.toml:4:"), "{err}");
        assert!(err.to_string().contains("training.batch"), "{err}");
        let text = "[data]\nfiles = [\"a.txt\"]\n[training]\nlambda = 1.5\n";
        let err = TrainConfig::from_toml_str(text, "t.toml").unwrap_err();
        assert!(
            err.to_string().contains("t.toml:4:10: `training.lambda`"),
            "{err}"
        );
    }
}
