//! The Texel tuner: fits the evaluation weights to game results. Positions are loaded once into
//! a packed sparse form (see `data`), K is fitted with the starting weights and then fixed, and
//! Adam minimises the mean squared error between σ(K·eval/400) and the results while a held-out
//! validation set decides when to stop and which epoch's weights to keep.
//!
//! [`run`] is the whole pipeline behind `sparring tune CONFIG.toml`; the pieces are public for
//! tests, benchmarks and other front ends.
//!
//! Main items: [`Dataset`] (positions packed for fitting, from files or
//! [`Dataset::from_positions`]), [`train()`] with [`TrainOptions`], [`TunableEval`] (any evaluation
//! that can be tuned; [`any::fit`] tunes one), [`TuneConfig`] (the `sparring tune` TOML). The
//! other tuners are the crate's `spsa` and `ladder` (the loop), which build on this one.

pub mod any;
pub(crate) mod config;
pub mod data;
pub mod external;
pub mod model;
pub mod newton;
pub(crate) mod packed;
pub(crate) mod page;
pub mod protocol;
pub(crate) mod selection;
pub(crate) mod svg;
pub mod synthetic;
pub(crate) mod train;
pub(crate) mod tunable;
pub mod tunetrace;

pub use config::{
    DataConfig, KSetting, ModelConfig, OptimizerConfig, OptimizerMethod, OutputConfig, TuneConfig,
};
pub use data::{DataError, Dataset, LineError, LineErrorKind, LoadReport};
pub(crate) use model::engine_loss;
pub use model::{fit_k, loss, loss_and_gradient, sigmoid};
pub use packed::{Coef, Entry, Extra};
pub use page::{write_tune_report, LiveTunePage, HISTORY_FILE};
pub use selection::{PackSource, PackedPosition, Packer, ParamSelection, PositionPacker};
pub use train::{train, Adam, Diverged, EpochStats, TrainOptions, TrainResult};
pub use tunable::{
    EvalSelection, FinalKind, FinalTerm, Finaliser, LinearTrace, ParamSpec, TraceError,
    TracePacker, TunableEval,
};

use crate::error::{ErrorClass, Failure};
use crate::eval::{EvalParams, WeightsError};
use crate::toml_config::ConfigError;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;
use thiserror::Error;

/// Why a tuning run failed (bad data lines are not failures: they are skipped and reported).
#[derive(Error, Debug)]
#[non_exhaustive]
pub enum TuneError {
    /// The configuration file.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A data file that cannot be read at all.
    #[error(transparent)]
    Data(#[from] DataError),
    /// The starting weights file.
    #[error(transparent)]
    Weights(#[from] WeightsError),
    /// Every line was skipped (or the files are empty).
    #[error("no usable positions in {files}: {skipped} lines skipped")]
    NoPositions {
        /// The data files, comma-separated.
        files: String,
        /// How many lines were skipped as bad.
        skipped: usize,
    },
    /// `model.tune` names groups with no parameters.
    #[error("{config}: `model.tune` selects no parameters")]
    NothingToTune {
        /// The configuration's name.
        config: String,
    },
    /// A validation share outside [0, 1) (the configuration reader refuses it too; this guards
    /// callers that build a `TuneConfig` themselves).
    #[error(
        "data.validation_fraction = {value} leaves no training data: expected a number from 0 up \
         to but not including 1"
    )]
    ValidationFraction {
        /// The share asked for.
        value: f64,
    },
    /// The split put every position into the validation set.
    #[error(
        "data.validation_fraction = {value} puts all {positions} positions into the validation \
         set (pairs of games stay on one side), leaving no training data; lower it"
    )]
    NoTrainingData {
        /// The share asked for.
        value: f64,
        /// How many positions were loaded.
        positions: usize,
    },
    /// More worker threads than the machine runs at once (checked before any work).
    #[error(
        "optimizer.threads = {requested} is more than the {available} threads this machine can \
         run at once; use at most {available}, or 0 for one per core"
    )]
    TooManyThreads {
        /// The thread count asked for.
        requested: usize,
        /// `std::thread::available_parallelism()`.
        available: usize,
    },
    /// The output directory cannot be created or written (checked before any work).
    #[error("output directory {dir} cannot be written: {error}")]
    OutputDir {
        /// The directory, as configured.
        dir: String,
        /// The operating system's reason.
        error: std::io::Error,
    },
    /// An output file cannot be written.
    #[error("{file}: cannot write: {error}")]
    Output {
        /// The file.
        file: String,
        /// The operating system's reason.
        error: std::io::Error,
    },
    /// The worker pool cannot start.
    #[error("cannot start {threads} worker threads: {message}")]
    Threads {
        /// The thread count asked for.
        threads: usize,
        /// The pool builder's reason.
        message: String,
    },
    /// An external engine could not be started or answered the trace protocol wrongly.
    #[error(transparent)]
    Engine(#[from] TraceError),
    /// The loss or the weights stopped being finite numbers.
    #[error(transparent)]
    Diverged(#[from] Diverged),
    /// `optimizer.method = "gauss-newton"` over more weights than its dense matrix is built for.
    #[error(
        "optimizer.method = \"gauss-newton\" tunes at most {max} parameter pairs and `model.tune` \
         selects {pairs}: select fewer groups or use \"adam\""
    )]
    TooManyForNewton {
        /// The tapered pairs selected.
        pairs: usize,
        /// `newton::MAX_WEIGHTS / 2`.
        max: usize,
    },
    /// Adam's step size is not a positive finite number.
    #[error("learning rate {value} is not a positive finite number")]
    LearningRate {
        /// The step size given.
        value: f64,
    },
    /// A fit is complete but the engine failed the check after it (asked for its parameters
    /// again, it died, hung or declared others): the weight files are kept under their
    /// unverified names (`any::UNVERIFIED_NAMES`) beside history.csv and loss.svg.
    #[error("the fit is kept unverified in {} (with weights.unverified.txt, setoption.unverified.txt, history.csv and loss.svg): asking the engine for its parameters again after the fit failed: {source}", file.display())]
    Unverified {
        /// The unverified weights.toml.
        file: PathBuf,
        /// Why the check failed.
        source: TraceError,
    },
    /// The engine would refuse the tuned weights (`WeightsError`: they could drive positions of
    /// real games to the evaluation's clamp); they are kept beside the other outputs for
    /// inspection.
    #[error("the tuned weights cannot be used: {source}; they are kept in {} (lower optimizer.learning_rate, raise optimizer.l2 or give more data)", file.display())]
    UnusableWeights {
        /// Where the refused weights were written (not weights.toml).
        file: PathBuf,
        /// Why the engine refuses them.
        source: Box<WeightsError>,
        /// The run's figures (K, positions, MSE), so a caller can still report what it fitted.
        summary: Box<TuneSummary>,
    },
}

impl ErrorClass for TuneError {
    fn class(&self) -> Failure {
        match self {
            TuneError::Config(source) => source.class(),
            TuneError::Data(source) => source.class(),
            TuneError::Weights(source) => source.class(),
            TuneError::Engine(source) | TuneError::Unverified { source, .. } => source.class(),
            TuneError::Diverged(source) => source.class(),
            TuneError::NoPositions { .. }
            | TuneError::NothingToTune { .. }
            | TuneError::ValidationFraction { .. }
            | TuneError::NoTrainingData { .. }
            | TuneError::TooManyThreads { .. }
            | TuneError::TooManyForNewton { .. }
            | TuneError::LearningRate { .. }
            // The tuned weights are kept; the settings that made them must change.
            | TuneError::UnusableWeights { .. } => Failure::BadInput,
            TuneError::OutputDir { .. } | TuneError::Output { .. } | TuneError::Threads { .. } => {
                Failure::FailedRun
            }
        }
    }
}

/// Progress of a run, for a front end to display.
#[derive(Debug)]
pub enum Event<'a> {
    /// Loading starts (thread count in use).
    Loading {
        /// Data files to read.
        files: usize,
        /// Worker threads.
        threads: usize,
    },
    /// Every file is loaded.
    Loaded {
        /// Positions per file and the skipped lines.
        report: &'a LoadReport,
        /// Seconds spent loading.
        seconds: f64,
        /// Heap bytes per packed position.
        bytes_per_position: f64,
        /// Tuned nonzero coefficients per position.
        average_coefficients: f64,
    },
    /// The positions are split into training and validation sets.
    Split {
        /// Training positions.
        training: usize,
        /// Validation positions.
        validation: usize,
    },
    /// K and the training error of the starting weights at that K.
    K {
        /// The sigmoid's scale.
        k: f64,
        /// Whether K was fitted (rather than fixed by the configuration).
        fitted: bool,
        /// The training error of the starting weights at this K.
        train_mse: f64,
    },
    /// The search scores were mixed into the labels (`without_score` positions had none).
    Blended {
        /// The share of each label taken from the score.
        weight: f64,
        /// Positions without a score (they keep their result).
        without_score: usize,
    },
    /// An epoch finished (epoch 0 is the starting point).
    Epoch(&'a EpochStats),
}

/// What a run did and where it wrote.
#[derive(Clone, Debug)]
pub struct TuneSummary {
    /// The sigmoid's scale used.
    pub k: f64,
    /// Whether K was fitted.
    pub k_fitted: bool,
    /// Positions trained on.
    pub training_positions: usize,
    /// Positions held out.
    pub validation_positions: usize,
    /// Data lines skipped as bad.
    pub skipped_lines: usize,
    /// The epoch whose weights were kept.
    pub best_epoch: usize,
    /// Epochs run after epoch 0.
    pub epochs_run: usize,
    /// Whether the patience window ended the run early.
    pub stopped_early: bool,
    /// Epoch 0 (the starting point).
    pub start: EpochStats,
    /// The chosen epoch.
    pub best: EpochStats,
    /// The training error of the written integer weights with the engine's integer blend.
    pub rounded_train_mse: f64,
    /// The same on the validation set, if any.
    pub rounded_validation_mse: Option<f64>,
    /// Tuned parameters that occur in no training position (they cannot move).
    pub unused: Vec<String>,
    /// The written weights.
    pub params: EvalParams,
    /// weights.toml, history.csv, loss.svg, pst.svg.
    pub outputs: Vec<PathBuf>,
}

/// The thread count `threads = 0` means: one per core.
pub fn resolve_threads(threads: usize) -> usize {
    if threads > 0 {
        threads
    } else {
        crate::available_cores()
    }
}

/// Runs `f` on a rayon pool of `threads` workers (0 = one per core).
pub fn with_threads<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> Result<T, TuneError> {
    let threads = resolve_threads(threads);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| TuneError::Threads {
            threads,
            message: e.to_string(),
        })?;
    Ok(pool.install(f))
}

/// The whole tuning run of a configuration: check what can be checked before any work (the
/// thread count, the validation share, that the output directory can be written), then load,
/// split, fit K, train and write the outputs.
pub fn run(
    config: &TuneConfig,
    on_event: &mut (dyn FnMut(Event<'_>) + Send),
) -> Result<TuneSummary, TuneError> {
    check_threads(config.optimizer.threads)?;
    let fraction = config.data.validation_fraction;
    if !(0.0..1.0).contains(&fraction) {
        return Err(TuneError::ValidationFraction { value: fraction });
    }
    check_output_dir(&config.output.dir)?;
    with_threads(config.optimizer.threads, || run_here(config, on_event))?
}

/// Refuses more threads than the machine runs at once: the command line's `--threads` bypasses
/// the configuration's checks, and 100,000 threads stall the machine.
pub fn check_threads(requested: usize) -> Result<(), TuneError> {
    let available = crate::available_cores();
    if requested > available {
        return Err(TuneError::TooManyThreads {
            requested,
            available,
        });
    }
    Ok(())
}

/// Creates the output directory and writes (then removes) a probe file in it, so a run that
/// could not save its results fails before loading and training rather than after.
pub fn check_output_dir(dir: &Path) -> Result<(), TuneError> {
    let failed = |error| TuneError::OutputDir {
        dir: dir.display().to_string(),
        error,
    };
    std::fs::create_dir_all(dir).map_err(failed)?;
    let probe = dir.join(format!(".sparring-tune-probe-{}", std::process::id()));
    let written = std::fs::File::create(&probe).and_then(|mut f| f.write_all(b"probe"));
    let _ = std::fs::remove_file(&probe);
    written.map_err(failed)
}

fn run_here(
    config: &TuneConfig,
    on_event: &mut (dyn FnMut(Event<'_>) + Send),
) -> Result<TuneSummary, TuneError> {
    let start_params = match &config.model.weights {
        Some(path) => EvalParams::load(path)?,
        None => EvalParams::default(),
    };
    let selection = ParamSelection::groups(start_params, &config.model.tune);
    if selection.is_empty() {
        return Err(TuneError::NothingToTune {
            config: config.source.clone(),
        });
    }
    let gauss_newton = config.optimizer.method == Some(config::OptimizerMethod::GaussNewton);
    if gauss_newton && 2 * selection.len() > newton::MAX_WEIGHTS {
        return Err(TuneError::TooManyForNewton {
            pairs: selection.len(),
            max: newton::MAX_WEIGHTS / 2,
        });
    }
    let (all, report) = load_all(config, &selection, on_event)?;
    let start_weights = selection.start_weights();
    let labelled = split_and_label(config, all, &start_weights, on_event)?;
    let (training, validation, k) = (&labelled.training, &labelled.validation, labelled.k);

    let initial = if config.model.from_zero {
        vec![[0.0; 2]; selection.len()]
    } else {
        start_weights
    };
    let options = train_options(config, training, k);
    // The page under way is written before the epoch is reported, so a reader sees it.
    let mut live = page::LiveTunePage::new(&config.output.dir, options.epochs);
    let mut on_epoch = |stats: &EpochStats| {
        live.after_epoch(stats);
        on_event(Event::Epoch(stats));
    };
    let result = match config.optimizer.method {
        Some(config::OptimizerMethod::GaussNewton) => {
            newton_result(training, validation, initial, &options, &mut on_epoch)
        }
        Some(config::OptimizerMethod::Adam) | None => {
            train(training, validation, initial, &options, &mut on_epoch)?
        }
    };
    live.finish()?;

    let params = selection.to_params(&result.best_weights);
    let rounded: Vec<(i32, i32)> = selection.tuned().iter().map(|&i| params.get(i)).collect();
    let unused: Vec<String> = training
        .occurrences()
        .iter()
        .enumerate()
        .filter(|(_, &n)| n == 0)
        .map(|(c, _)| params.name(selection.tuned()[c]))
        .collect();
    let mut summary = TuneSummary {
        k,
        k_fitted: labelled.k_fitted,
        training_positions: training.len(),
        validation_positions: validation.len(),
        skipped_lines: report.skipped,
        best_epoch: result.best_epoch,
        epochs_run: result.history.len() - 1,
        stopped_early: result.stopped_early,
        start: result.history[0].clone(),
        best: result.history[result.best_epoch].clone(),
        rounded_train_mse: engine_loss(training, &rounded, k),
        rounded_validation_mse: (!validation.is_empty())
            .then(|| engine_loss(validation, &rounded, k)),
        unused,
        params,
        outputs: Vec::new(),
    };
    summary.outputs = write_outputs(config, &summary, &result)?;
    Ok(summary)
}

/// Expands and loads the data files through `selection`, reporting progress; refuses a run
/// with no usable position.
fn load_all(
    config: &TuneConfig,
    selection: &ParamSelection,
    on_event: &mut (dyn FnMut(Event<'_>) + Send),
) -> Result<(Dataset, LoadReport), TuneError> {
    let data_files = data::expand_data_files(&config.data.files)?;
    data::check_data_files(&data_files)?;
    on_event(Event::Loading {
        files: data_files.len(),
        threads: rayon::current_num_threads(),
    });
    let started = Instant::now();
    let options = data::LoadOptions {
        resolve: config.data.resolve,
        dedupe: config.data.dedupe,
        ..data::LoadOptions::default()
    };
    let (all, report) = Dataset::load_files_with(&data_files, selection, &options)?;
    on_event(Event::Loaded {
        report: &report,
        seconds: started.elapsed().as_secs_f64(),
        bytes_per_position: all.bytes_per_position(),
        average_coefficients: all.average_coefficients(),
    });
    if all.is_empty() {
        let files = config
            .data
            .files
            .iter()
            .map(|f| f.display().to_string())
            .collect::<Vec<_>>()
            .join(", ");
        return Err(TuneError::NoPositions {
            files,
            skipped: report.skipped,
        });
    }
    Ok((all, report))
}

/// The training and validation sets with their final labels, and the K they are fitted at.
struct Labelled {
    training: Dataset,
    validation: Dataset,
    k: f64,
    k_fitted: bool,
}

/// K fitted to the game results alone with the starting weights (or taken as set), then the
/// recorded scores blended into both sets' labels at that K, as `data.score_weight` asks (0:
/// none). Returns K, the training error at K before the blend, and how many positions had no
/// score. Both tuners (`run`, `any::run`) label this way.
pub(crate) fn fit_k_and_blend(
    training: &mut Dataset,
    validation: &mut Dataset,
    start: &[[f64; 2]],
    k: KSetting,
    weight: f64,
    finals: &[tunable::Finaliser],
) -> (f64, f64, usize) {
    let (k, mse) = match k {
        KSetting::Auto => model::fit_k_with(training, start, finals),
        KSetting::Fixed(k) => (k, model::loss_with(training, start, k, finals)),
    };
    let expected = |cp: f64| sigmoid(k, cp);
    let without =
        training.blend_scores(weight, expected) + validation.blend_scores(weight, expected);
    (k, mse, without)
}

/// Splits the positions, fits (or takes) K with the starting weights on the training set, then
/// blends the search scores into the labels at that K.
fn split_and_label(
    config: &TuneConfig,
    all: Dataset,
    start_weights: &[[f64; 2]],
    on_event: &mut (dyn FnMut(Event<'_>) + Send),
) -> Result<Labelled, TuneError> {
    let positions = all.len();
    // Full batch: the training set is compacted in place (half the peak memory of a copy).
    let (mut training, mut validation) = if config.optimizer.batch_size == 0 {
        all.split_in_place(config.data.validation_fraction, config.data.seed)
    } else {
        all.split(config.data.validation_fraction, config.data.seed)
    };
    if training.is_empty() {
        return Err(TuneError::NoTrainingData {
            value: config.data.validation_fraction,
            positions,
        });
    }
    on_event(Event::Split {
        training: training.len(),
        validation: validation.len(),
    });
    let k_fitted = config.optimizer.k == KSetting::Auto;
    let weight = config.data.score_weight;
    let (k, k_mse, without) = fit_k_and_blend(
        &mut training,
        &mut validation,
        start_weights,
        config.optimizer.k,
        weight,
        &[],
    );
    on_event(Event::K {
        k,
        fitted: k_fitted,
        train_mse: k_mse,
    });
    if weight > 0.0 {
        on_event(Event::Blended {
            weight,
            without_score: without,
        });
    }
    Ok(Labelled {
        training,
        validation,
        k,
        k_fitted,
    })
}

/// `optimizer.method = "gauss-newton"` for sparring's own evaluation: the same frozen weights and
/// L2 penalty as Adam's, `epochs` iterations at most; the converged weights are kept (the last
/// iteration is the best: each accepted step lowers the penalised training loss).
fn newton_result(
    training: &Dataset,
    validation: &Dataset,
    initial: Vec<[f64; 2]>,
    options: &TrainOptions,
    on_epoch: &mut dyn FnMut(&EpochStats),
) -> TrainResult {
    let newton = newton::NewtonOptions {
        k: options.k,
        iterations: options.epochs,
        tolerance: 1e-12,
        frozen: options.frozen.clone(),
        bounds: Vec::new(),
        l2: options.l2,
    };
    let result = newton::gauss_newton(training, validation, initial, &newton, on_epoch);
    let best_epoch = result.history.len() - 1;
    TrainResult {
        best_epoch,
        best_weights: result.weights,
        history: result.history,
        stopped_early: false,
    }
}

/// Adam's options from the configuration; parameters rarer than `model.min_occurrences` in
/// `training` are frozen.
fn train_options(config: &TuneConfig, training: &Dataset, k: f64) -> TrainOptions {
    let frozen: Vec<bool> = training
        .occurrences()
        .iter()
        .map(|&n| n < config.model.min_occurrences)
        .collect();
    TrainOptions {
        frozen,
        k,
        learning_rate: config.optimizer.learning_rate,
        beta1: config.optimizer.beta1,
        beta2: config.optimizer.beta2,
        epochs: config.optimizer.epochs,
        patience: config.optimizer.patience,
        batch_size: config.optimizer.batch_size,
        l2: config.optimizer.l2,
    }
}

fn write_file(path: &Path, text: &str) -> Result<(), TuneError> {
    std::fs::write(path, text).map_err(|error| TuneError::Output {
        file: path.display().to_string(),
        error,
    })
}

/// `epoch,train_mse,validation_mse,seconds` per epoch (validation empty without a held-out set),
/// written through the `csv` crate.
pub(crate) fn history_csv(history: &[EpochStats]) -> String {
    let mut out = csv::Writer::from_writer(Vec::new());
    let rows =
        std::iter::once(["epoch", "train_mse", "validation_mse", "seconds"].map(String::from))
            .chain(history.iter().map(|h| {
                [
                    h.epoch.to_string(),
                    format!("{:.9}", h.train_mse),
                    h.validation_mse
                        .map_or(String::new(), |v| format!("{v:.9}")),
                    format!("{:.3}", h.seconds),
                ]
            }));
    for row in rows {
        out.write_record(&row)
            .expect("writing CSV into memory cannot fail");
    }
    let bytes = out
        .into_inner()
        .expect("flushing CSV into memory cannot fail");
    String::from_utf8(bytes).expect("the CSV fields are ASCII")
}

/// The comment block heading the tuned weights file: how they were made, then how to read them.
fn weights_header(config: &TuneConfig, s: &TuneSummary) -> String {
    let mut h = String::new();
    let groups: Vec<&str> = config.model.tune.iter().map(|g| g.name()).collect();
    let weights = config
        .model
        .weights
        .as_ref()
        .map_or("the built-in defaults".to_string(), |p| {
            p.display().to_string()
        });
    let files: Vec<String> = config
        .data
        .files
        .iter()
        .map(|f| f.display().to_string())
        .collect();
    let _ = writeln!(
        h,
        "# sparring evaluation weights, tuned by `sparring tune {}` (Texel's method).",
        config.source
    );
    h.push_str("#\n");
    let _ = writeln!(h, "# Data: {}", files.join(", "));
    let _ = writeln!(
        h,
        "#   {} training and {} validation positions (split seed {}), {} lines skipped.",
        s.training_positions, s.validation_positions, config.data.seed, s.skipped_lines
    );
    let _ = writeln!(
        h,
        "# Tuned groups: {}; every other weight is as in {weights}.",
        groups.join(", ")
    );
    let _ = writeln!(
        h,
        "# Started from {}.",
        if config.model.from_zero {
            "zero".to_string()
        } else {
            weights.clone()
        }
    );
    header_model(&mut h, config, s);
    header_optimizer(&mut h, config, s);
    header_errors(&mut h, s);
    h.push_str(
        "#\n\
         # Every weight is a pair of integers in centipawns: `mg` applies in the middlegame, `eg` in\n\
         # the endgame, blended by the game phase (knight or bishop 1, rook 2, queen 4, at most 24):\n\
         #     score = (mg * phase + eg * (24 - phase)) / 24\n\
         # White's occurrences of each term count positive and Black's negative.\n",
    );
    h
}

/// The header's model and labels: the sigmoid's K and how the labels blend result and score.
fn header_model(h: &mut String, config: &TuneConfig, s: &TuneSummary) {
    let _ = writeln!(
        h,
        "# Model: q = White-view eval (cp), expected score 1 / (1 + 10^(-K*q/400)), K = {:.4} ({}).",
        s.k,
        if s.k_fitted { "fitted" } else { "fixed" }
    );
    if config.data.score_weight > 0.0 || config.data.resolve {
        let _ = writeln!(
            h,
            "# Labels: {:.0} % game result, {:.0} % search score (ce){}.",
            100.0 * (1.0 - config.data.score_weight),
            100.0 * config.data.score_weight,
            if config.data.resolve {
                "; positions resolved through their quiescence line"
            } else {
                ""
            }
        );
    }
}

/// The header's optimizer line: Adam's settings and the epoch kept.
fn header_optimizer(h: &mut String, config: &TuneConfig, s: &TuneSummary) {
    let _ = writeln!(
        h,
        "# Adam, learning rate {}, {}{}; kept epoch {} of {}{}.",
        config.optimizer.learning_rate,
        if config.optimizer.batch_size == 0 {
            "full batch".to_string()
        } else {
            format!("batches of {}", config.optimizer.batch_size)
        },
        if config.optimizer.l2 > 0.0 {
            format!(", L2 {} toward the start", config.optimizer.l2)
        } else {
            String::new()
        },
        s.best_epoch,
        s.epochs_run,
        if s.stopped_early {
            " (stopped early)"
        } else {
            ""
        }
    );
}

/// The header's errors: the mean squared errors before and after, and with the rounded weights.
fn header_errors(h: &mut String, s: &TuneSummary) {
    let val = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.6}"));
    let _ = writeln!(
        h,
        "# Mean squared error, training / validation: start {:.6} / {}, tuned {:.6} / {},",
        s.start.train_mse,
        val(s.start.validation_mse),
        s.best.train_mse,
        val(s.best.validation_mse)
    );
    let _ = writeln!(
        h,
        "#   these integer weights with the engine's integer blend {:.6} / {}.",
        s.rounded_train_mse,
        val(s.rounded_validation_mse)
    );
}

/// Writes weights.toml, history.csv, loss.svg and pst.svg into the output directory.
fn write_outputs(
    config: &TuneConfig,
    summary: &TuneSummary,
    result: &TrainResult,
) -> Result<Vec<PathBuf>, TuneError> {
    let dir = &config.output.dir;
    std::fs::create_dir_all(dir).map_err(|error| TuneError::OutputDir {
        dir: dir.display().to_string(),
        error,
    })?;
    let history = dir.join("history.csv");
    let loss_plot = dir.join("loss.svg");
    let pst_plot = dir.join("pst.svg");
    let text = summary
        .params
        .to_toml_string_with_header(&weights_header(config, summary));
    // weights.toml is only ever a file the engine loads: weights it would refuse go elsewhere.
    let refused = dir.join("weights.unusable.toml");
    let unusable = EvalParams::from_toml_str(&text, &refused.display().to_string()).err();
    let weights = match unusable {
        Some(_) => refused,
        None => dir.join("weights.toml"),
    };
    write_file(&weights, &text)?;
    write_file(&history, &history_csv(&result.history))?;
    write_file(
        &loss_plot,
        &svg::loss_svg(
            &result.history,
            result.best_epoch,
            &format!("Texel tuning, K = {:.3}", summary.k),
        ),
    )?;
    write_file(
        &pst_plot,
        &svg::pst_svg(
            &summary.params,
            &format!("Tuned piece-square tables (epoch {})", summary.best_epoch),
        ),
    )?;
    let report = page::write_report_for_tuner(dir)?;
    if let Some(error) = unusable {
        return Err(TuneError::UnusableWeights {
            file: weights,
            source: Box::new(error),
            summary: Box::new(summary.clone()),
        });
    }
    Ok(vec![weights, history, loss_plot, pst_plot, report])
}
