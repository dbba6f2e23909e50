//! Texel tuning of any `TunableEval`: load and trace the data, fit K, optimise (Gauss-Newton by
//! default, Adam on request), and write the weights as TOML, as `name value` lines and as UCI
//! `setoption` lines, with history.csv and loss.svg. sparring's own evaluation keeps its richer
//! pipeline (`texel::run`: groups, L2, validation-driven early stopping, a loadable weights file).

use super::data::{self, Dataset, LoadOptions, LoadReport};
use super::model::{fit_k_with, loss_with};
use super::newton::{gauss_newton_with, NewtonOptions, MAX_WEIGHTS};
use super::train::{train_with, EpochStats, TrainOptions};
use super::tunable::{EvalSelection, ParamSpec, TraceError, TunableEval};
use super::{svg, with_threads, KSetting, TuneError};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// How the weights are optimised.
#[derive(Clone, Debug, PartialEq)]
pub enum Method {
    /// Gauss-Newton steps with Levenberg-Marquardt damping (dense; up to `MAX_WEIGHTS / 2`
    /// parameters).
    GaussNewton,
    /// Full-batch Adam with bias correction.
    Adam {
        /// Step size in centipawns.
        learning_rate: f64,
    },
}

/// Options of a run.
#[derive(Clone, Debug)]
pub struct AnyOptions {
    /// K fitted or fixed (base 10: `model::sigmoid`).
    pub k: KSetting,
    /// The optimiser.
    pub method: Method,
    /// The most epochs (Adam) or iterations (Gauss-Newton).
    pub epochs: usize,
    /// Worker threads (0 = one per core).
    pub threads: usize,
    /// Merge repeated positions while loading.
    pub dedupe: bool,
    /// The share of positions held out as a validation set, in [0, 1) (0 = none): its error is
    /// reported per epoch and the epoch where it was lowest gives the weights.
    pub validation_fraction: f64,
    /// Seeds the training/validation split.
    pub seed: u64,
    /// Blends each position's recorded search score into its label, as `data.score_weight`
    /// does for sparring's own evaluation: K is fitted to the game results alone, then
    /// label = (1 − w) × result + w × sigmoid(K, score). 0 = results only.
    pub score_weight: f64,
}

impl Default for AnyOptions {
    fn default() -> AnyOptions {
        AnyOptions {
            k: KSetting::Auto,
            method: Method::GaussNewton,
            epochs: 50,
            threads: 0,
            dedupe: false,
            validation_fraction: 0.0,
            seed: 1,
            score_weight: 0.0,
        }
    }
}

/// What a run found.
#[derive(Clone, Debug)]
pub struct AnyResult {
    /// The parameters as the evaluation declares them.
    pub specs: Vec<ParamSpec>,
    /// Whether the evaluation is tapered (else only the first half of each pair is used).
    pub tapered: bool,
    /// The sigmoid's scale (base 10).
    pub k: f64,
    /// Positions tuned on (the training set).
    pub positions: usize,
    /// Positions held out for validation.
    pub validation_positions: usize,
    /// Lines skipped as bad.
    pub skipped: usize,
    /// Seconds spent loading and tracing.
    pub load_seconds: f64,
    /// The training loss of the starting weights at K.
    pub start_mse: f64,
    /// The training loss of the kept weights.
    pub final_mse: f64,
    /// The validation loss of the starting and the kept weights (None without a validation set).
    pub validation_mse: Option<(f64, f64)>,
    /// The epoch (iteration) whose weights were kept.
    pub best_epoch: usize,
    /// The final weights, one (mg, eg) pair per parameter.
    pub weights: Vec<[f64; 2]>,
    /// The loss per epoch or iteration (0 = the start), with seconds since optimising began.
    pub history: Vec<EpochStats>,
}

/// Refuses an Adam step size that is not a positive finite number (bad input).
fn check_method(method: &Method) -> Result<(), TuneError> {
    match *method {
        Method::Adam { learning_rate } if !(learning_rate.is_finite() && learning_rate > 0.0) => {
            Err(TuneError::LearningRate {
                value: learning_rate,
            })
        }
        Method::Adam { .. } | Method::GaussNewton => Ok(()),
    }
}

/// Loads `files` through `eval`'s traces.
pub fn load<E: TunableEval + ?Sized>(
    eval: &E,
    files: &[PathBuf],
    dedupe: bool,
) -> Result<(Dataset, LoadReport), TuneError> {
    let files = data::expand_data_files(files)?;
    data::check_data_files(&files)?;
    let selection = EvalSelection::new(eval);
    let options = LoadOptions {
        dedupe,
        ..LoadOptions::default()
    };
    Ok(Dataset::load_files_with(&files, &selection, &options)?)
}

/// Tunes every parameter of `eval` on `data` (loaded through `eval`, see `load`), watching the
/// error on `validation` (may be empty).
pub fn fit<E: TunableEval + ?Sized>(
    eval: &E,
    data: &Dataset,
    validation: &Dataset,
    options: &AnyOptions,
    on_epoch: &mut (dyn FnMut(&EpochStats) + Send),
) -> Result<Fit, TuneError> {
    check_method(&options.method)?;
    let selection = EvalSelection::new(eval);
    let start = selection.start_weights();
    let finals = selection.finalisers();
    with_threads(options.threads, || {
        let (k, start_mse) = match options.k {
            KSetting::Auto => fit_k_with(data, &start, finals),
            KSetting::Fixed(k) => (k, loss_with(data, &start, k, finals)),
        };
        let (weights, history) = match options.method {
            Method::GaussNewton if 2 * start.len() <= MAX_WEIGHTS => {
                let newton = NewtonOptions {
                    k,
                    iterations: options.epochs,
                    tolerance: 1e-15,
                    frozen: Vec::new(),
                    bounds: selection.specs().iter().map(|s| s.bounds).collect(),
                    l2: 0.0,
                };
                let r = gauss_newton_with(data, validation, start, &newton, finals, on_epoch);
                (r.weights, r.history)
            }
            Method::GaussNewton | Method::Adam { .. } => {
                let learning_rate = match options.method {
                    Method::Adam { learning_rate } => learning_rate,
                    Method::GaussNewton => 1.0,
                };
                let train_options = TrainOptions {
                    k,
                    learning_rate,
                    epochs: options.epochs,
                    patience: 0,
                    ..TrainOptions::default()
                };
                let r = train_with(data, validation, start, &train_options, finals, on_epoch)?;
                (r.best_weights, r.history)
            }
        };
        Ok(Fit {
            k,
            start_mse,
            weights,
            history,
        })
    })?
}

/// What `fit` found: the scaling constant, the starting loss, the weights and every epoch.
pub struct Fit {
    /// The sigmoid's scaling constant used (fitted or fixed).
    pub k: f64,
    /// Mean squared error of the starting weights.
    pub start_mse: f64,
    /// The tuned `[mg, eg]` weights, one per parameter.
    pub weights: Vec<[f64; 2]>,
    /// One entry per epoch.
    pub history: Vec<EpochStats>,
}

/// Loads, fits and returns everything a front end shows or writes.
pub fn run<E: TunableEval + ?Sized>(
    eval: &E,
    files: &[PathBuf],
    options: &AnyOptions,
    on_epoch: &mut (dyn FnMut(&EpochStats) + Send),
) -> Result<AnyResult, TuneError> {
    super::check_threads(options.threads)?;
    check_method(&options.method)?;
    if !(0.0..1.0).contains(&options.validation_fraction) {
        return Err(TuneError::ValidationFraction {
            value: options.validation_fraction,
        });
    }
    let started = Instant::now();
    let (data, report) = with_threads(options.threads, || load(eval, files, options.dedupe))??;
    let load_seconds = started.elapsed().as_secs_f64();
    if data.is_empty() {
        return Err(TuneError::NoPositions {
            files: files
                .iter()
                .map(|f| f.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            skipped: report.skipped,
        });
    }
    let positions = data.len();
    let (mut training, mut validation) =
        data.split_in_place(options.validation_fraction, options.seed);
    if training.is_empty() {
        return Err(TuneError::NoTrainingData {
            value: options.validation_fraction,
            positions,
        });
    }
    let blended;
    let options = if options.score_weight > 0.0 {
        blended = blend_scores(eval, &mut training, &mut validation, options)?;
        &blended
    } else {
        options
    };
    let Fit {
        k,
        start_mse,
        weights,
        history,
    } = fit(eval, &training, &validation, options, on_epoch)?;
    let best_epoch = history.last().map_or(0, |h| h.best_epoch);
    let kept = history.iter().find(|h| h.epoch == best_epoch);
    let final_mse = kept.map_or(start_mse, |h| h.train_mse);
    let validation_mse = history
        .first()
        .and_then(|h| h.validation_mse)
        .zip(kept.and_then(|h| h.validation_mse));
    Ok(AnyResult {
        specs: eval.params(),
        tapered: eval.tapered(),
        k,
        positions: training.len(),
        validation_positions: validation.len(),
        skipped: report.skipped,
        load_seconds,
        start_mse,
        final_mse,
        validation_mse,
        best_epoch,
        weights,
        history,
    })
}

/// K fitted (or taken) on the game results with the starting weights, then the scores blended
/// into both sets' labels at that K (`super::fit_k_and_blend`); the options to fit with (K now
/// fixed).
fn blend_scores<E: TunableEval + ?Sized>(
    eval: &E,
    training: &mut Dataset,
    validation: &mut Dataset,
    options: &AnyOptions,
) -> Result<AnyOptions, TuneError> {
    let selection = EvalSelection::new(eval);
    let start = selection.start_weights();
    let (k, _, _) = with_threads(options.threads, || {
        super::fit_k_and_blend(
            training,
            validation,
            &start,
            options.k,
            options.score_weight,
            selection.finalisers(),
        )
    })?;
    Ok(AnyOptions {
        k: KSetting::Fixed(k),
        ..options.clone()
    })
}

/// A weight as an engine stores it: rounded to a whole number.
fn whole(x: f64) -> i64 {
    x.round() as i64
}

/// The tuned weights as TOML: `name = [mg, eg]` (tapered) or `name = value`, rounded.
pub(crate) fn weights_toml(result: &AnyResult) -> String {
    let mut out = format!(
        "# Texel-tuned on {} positions, K = {:.6} (base 10), mean squared error {:.9} -> {:.9}\n[weights]\n",
        result.positions, result.k, result.start_mse, result.final_mse
    );
    for (spec, w) in result.specs.iter().zip(&result.weights) {
        let key = toml_key(&spec.name);
        if result.tapered {
            out.push_str(&format!("{key} = [{}, {}]\n", whole(w[0]), whole(w[1])));
        } else {
            out.push_str(&format!("{key} = {}\n", whole(w[0])));
        }
    }
    out
}

/// A TOML key: bare when it can be, quoted otherwise.
fn toml_key(name: &str) -> String {
    let bare = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if bare {
        name.to_string()
    } else {
        format!("{:?}", name)
    }
}

/// (option name, value) per tuned weight: `NAME` untapered, `NAME.mg` and `NAME.eg` tapered.
pub(crate) fn named_values(result: &AnyResult) -> Vec<(String, i64)> {
    let mut out = Vec::new();
    for (spec, w) in result.specs.iter().zip(&result.weights) {
        if result.tapered {
            out.push((format!("{}.mg", spec.name), whole(w[0])));
            out.push((format!("{}.eg", spec.name), whole(w[1])));
        } else {
            out.push((spec.name.clone(), whole(w[0])));
        }
    }
    out
}

/// The weight files and the names they carry until the evaluation has been checked after the
/// fit (`write_checked_outputs`): nobody loads an unchecked fit by mistake.
pub(crate) const UNVERIFIED_NAMES: [(&str, &str); 3] = [
    ("weights.toml", "weights.unverified.toml"),
    ("weights.txt", "weights.unverified.txt"),
    ("setoption.txt", "setoption.unverified.txt"),
];

/// Writes weights.toml, weights.txt (`name value`), setoption.txt (UCI `setoption` lines),
/// history.csv and loss.svg into `dir`.
pub fn write_outputs(dir: &Path, result: &AnyResult) -> Result<Vec<PathBuf>, TuneError> {
    write_named(dir, result, false)
}

/// `write_outputs` with a check of the evaluation between writing and naming: the weight files
/// are written under their unverified names (`UNVERIFIED_NAMES`), history.csv and loss.svg
/// under their own; then `check` runs (an external engine asked for its parameters again), and
/// only when it passes are the weight files renamed to weights.toml, weights.txt and
/// setoption.txt. When it fails, everything stays as written and the error
/// (`TuneError::Unverified`) names the unverified weights: a completed fit is never lost.
pub fn write_checked_outputs(
    dir: &Path,
    result: &AnyResult,
    check: impl FnOnce() -> Result<(), TraceError>,
) -> Result<Vec<PathBuf>, TuneError> {
    let written = write_named(dir, result, true)?;
    if let Err(source) = check() {
        return Err(TuneError::Unverified {
            file: dir.join(UNVERIFIED_NAMES[0].1),
            source,
        });
    }
    let mut named = Vec::new();
    for path in written {
        let unverified = path.file_name().and_then(|n| n.to_str());
        let Some(&(name, _)) = UNVERIFIED_NAMES
            .iter()
            .find(|(_, u)| Some(*u) == unverified)
        else {
            named.push(path);
            continue;
        };
        let to = dir.join(name);
        std::fs::rename(&path, &to).map_err(|error| TuneError::Output {
            file: to.display().to_string(),
            error,
        })?;
        named.push(to);
    }
    Ok(named)
}

/// The outputs into `dir`, the weight files under their unverified names if `unverified`.
fn write_named(
    dir: &Path,
    result: &AnyResult,
    unverified: bool,
) -> Result<Vec<PathBuf>, TuneError> {
    super::check_output_dir(dir)?;
    let named = named_values(result);
    let lines = |f: &dyn Fn(&(String, i64)) -> String| -> String {
        named.iter().map(|nv| f(nv) + "\n").collect()
    };
    let files = [
        ("weights.toml", weights_toml(result)),
        ("weights.txt", lines(&|(n, v)| format!("{n} {v}"))),
        (
            "setoption.txt",
            lines(&|(n, v)| format!("setoption name {n} value {v}")),
        ),
        ("history.csv", super::history_csv(&result.history)),
        (
            "loss.svg",
            svg::loss_svg(
                &result.history,
                result.best_epoch,
                &format!("Texel tuning, K = {:.3}", result.k),
            ),
        ),
    ];
    let mut written = Vec::new();
    for (name, text) in files {
        let name = match UNVERIFIED_NAMES.iter().find(|(n, _)| *n == name) {
            Some(&(_, u)) if unverified => u,
            _ => name,
        };
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|error| TuneError::Output {
            file: path.display().to_string(),
            error,
        })?;
        written.push(path);
    }
    written.push(super::page::write_report_for_tuner(dir)?);
    Ok(written)
}
