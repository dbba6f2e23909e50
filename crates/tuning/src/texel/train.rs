//! The optimisation loop: Adam on the mean squared error, full batch by default, with the
//! validation error watched for early stopping and the best-validation weights kept.

use super::data::Dataset;
use super::model::{l2_penalty, loss_and_gradient_with, loss_with};
use super::tunable::Finaliser;
use crate::error::{ErrorClass, Failure};
use std::time::Instant;
use thiserror::Error;

/// Adam with bias correction. Weights are in centipawns, so a learning rate near 1 moves each
/// weight by about a centipawn per step at first.
#[derive(Clone, Debug)]
pub struct Adam {
    /// The step size.
    pub learning_rate: f64,
    /// Decay of the gradient's running mean.
    pub beta1: f64,
    /// Decay of the squared gradient's running mean.
    pub beta2: f64,
    /// Keeps the step finite where the squared gradient is near zero.
    pub(crate) epsilon: f64,
    m: Vec<[f64; 2]>,
    v: Vec<[f64; 2]>,
    steps: i32,
}

impl Adam {
    /// An optimiser for `params` weight pairs, with no steps taken.
    pub fn new(params: usize, learning_rate: f64, beta1: f64, beta2: f64) -> Adam {
        Adam {
            learning_rate,
            beta1,
            beta2,
            epsilon: 1e-8,
            m: vec![[0.0; 2]; params],
            v: vec![[0.0; 2]; params],
            steps: 0,
        }
    }

    /// One descent step along `grad`.
    pub fn step(&mut self, w: &mut [[f64; 2]], grad: &[[f64; 2]]) {
        self.steps += 1;
        let c1 = 1.0 - self.beta1.powi(self.steps);
        let c2 = 1.0 - self.beta2.powi(self.steps);
        for (((w, g), m), v) in w.iter_mut().zip(grad).zip(&mut self.m).zip(&mut self.v) {
            for j in 0..2 {
                m[j] = self.beta1 * m[j] + (1.0 - self.beta1) * g[j];
                v[j] = self.beta2 * v[j] + (1.0 - self.beta2) * g[j] * g[j];
                let m_hat = m[j] / c1;
                let v_hat = v[j] / c2;
                w[j] -= self.learning_rate * m_hat / (v_hat.sqrt() + self.epsilon);
            }
        }
    }
}

/// How to train.
#[derive(Clone, Debug)]
pub struct TrainOptions {
    /// The sigmoid's scale, fixed for the run.
    pub k: f64,
    /// Adam's step size.
    pub learning_rate: f64,
    /// Adam's first-moment decay.
    pub beta1: f64,
    /// Adam's second-moment decay.
    pub beta2: f64,
    /// The most epochs to run (epoch 0 is the starting point, then one step or pass each).
    pub epochs: usize,
    /// Stop once the watched error (validation, or training without a validation set) has not
    /// improved for this many epochs; 0 never stops early.
    pub patience: usize,
    /// Positions per Adam step; 0 = the whole training set (full batch).
    pub batch_size: usize,
    /// Parameters (by compact index) that keep their start value; empty = none.
    pub frozen: Vec<bool>,
    /// L2 penalty toward the start: the optimised loss is MSE + l2 × Σ ((w − w_start) / 100)²
    /// over both halves of every tuned weight. It keeps weights that the data barely determine
    /// (rare squares, terms nearly collinear with others) near sensible values.
    pub l2: f64,
}

impl Default for TrainOptions {
    fn default() -> TrainOptions {
        TrainOptions {
            k: 1.0,
            learning_rate: 1.0,
            beta1: 0.9,
            beta2: 0.999,
            epochs: 2000,
            patience: 100,
            batch_size: 0,
            frozen: Vec::new(),
            l2: 0.0,
        }
    }
}

/// The errors after an epoch (epoch 0 = the starting weights).
#[derive(Clone, Debug, PartialEq)]
pub struct EpochStats {
    /// The epoch (0 = the starting weights).
    pub epoch: usize,
    /// The mean squared error on the training set.
    pub train_mse: f64,
    /// `None` without a validation set.
    pub validation_mse: Option<f64>,
    /// The epoch with the best watched error so far: the validation error, or without a
    /// validation set the training objective (the error plus any L2 penalty).
    pub best_epoch: usize,
    /// Seconds since training started.
    pub seconds: f64,
}

/// What training produced.
#[derive(Clone, Debug)]
pub struct TrainResult {
    /// One row per epoch run, from epoch 0.
    pub history: Vec<EpochStats>,
    /// The epoch with the best watched error.
    pub best_epoch: usize,
    /// The weights of `best_epoch` (compact order, unrounded).
    pub best_weights: Vec<[f64; 2]>,
    /// Whether the patience window ended the run before `epochs`.
    pub stopped_early: bool,
}

/// Training stopped because the optimisation blew up: an error or a weight stopped being a finite
/// number, which only a step far too large (learning rate) or a penalty far too strong (L2) does.
#[derive(Error, Debug, Clone, PartialEq)]
#[error(
    "the {what} became {value} at epoch {epoch} (learning rate {learning_rate}, l2 {l2}): \
     the optimisation diverged; lower optimizer.learning_rate or optimizer.l2"
)]
pub struct Diverged {
    /// The epoch whose weights were not finite or gave a non-finite error.
    pub epoch: usize,
    /// What stopped being finite: `training error`, `validation error`, `objective` or `weights`.
    pub what: &'static str,
    /// The offending value (NaN or ±infinity).
    pub value: f64,
    /// The run's learning rate.
    pub learning_rate: f64,
    /// The run's L2 penalty.
    pub l2: f64,
}

impl ErrorClass for Diverged {
    /// The settings drove the optimisation off: the user must lower them.
    fn class(&self) -> Failure {
        Failure::BadInput
    }
}

/// Runs Adam from `start` on `training`, watching `validation` (may be empty), calling
/// `on_epoch` after every epoch. Deterministic for given data and options. Stops with
/// [`Diverged`] as soon as an epoch's error, objective or weights are not finite numbers.
pub fn train(
    training: &Dataset,
    validation: &Dataset,
    start: Vec<[f64; 2]>,
    options: &TrainOptions,
    on_epoch: &mut dyn FnMut(&EpochStats),
) -> Result<TrainResult, Diverged> {
    train_with(training, validation, start, options, &[], on_epoch)
}

/// `train` for an evaluation with finalisers: Adam's gradient goes through them by the chain
/// rule (`model::loss_and_gradient_with`).
pub(crate) fn train_with(
    training: &Dataset,
    validation: &Dataset,
    start: Vec<[f64; 2]>,
    options: &TrainOptions,
    finals: &[Finaliser],
    on_epoch: &mut dyn FnMut(&EpochStats),
) -> Result<TrainResult, Diverged> {
    let loss = |data: &Dataset, w: &[[f64; 2]], k: f64| loss_with(data, w, k, finals);
    let loss_and_gradient = |data: &Dataset, range, w: &[[f64; 2]], k, grad: &mut [[f64; 2]]| {
        loss_and_gradient_with(data, range, w, k, grad, finals)
    };
    let n = training.len();
    let full_batch = options.batch_size == 0 || options.batch_size >= n;
    let anchor = start.clone();
    let penalty = |w: &[[f64; 2]]| l2_penalty(w, &anchor, options.l2);
    let mut w = start;
    let mut grad = vec![[0.0; 2]; w.len()];
    let mut adam = Adam::new(w.len(), options.learning_rate, options.beta1, options.beta2);
    let mut best_weights = w.clone();
    let mut best = (0, f64::INFINITY);
    let mut history = Vec::new();
    let mut stopped_early = false;
    let started = Instant::now();
    for epoch in 0..=options.epochs {
        // Full batch: the pass that measures these weights also yields the next step's gradient.
        let train_mse = if full_batch {
            loss_and_gradient(training, 0..n, &w, options.k, &mut grad)
        } else {
            loss(training, &w, options.k)
        };
        let validation_mse = (!validation.is_empty()).then(|| loss(validation, &w, options.k));
        // Without a validation set the objective itself (with its penalty) is watched.
        let watched = validation_mse.unwrap_or_else(|| train_mse + penalty(&w));
        // Once per epoch, on numbers already at hand (and the weights, a few hundred of them).
        check_finite(epoch, train_mse, validation_mse, watched, &w, options)?;
        if watched < best.1 {
            best = (epoch, watched);
            best_weights.clone_from(&w);
        }
        let stats = EpochStats {
            epoch,
            train_mse,
            validation_mse,
            best_epoch: best.0,
            seconds: started.elapsed().as_secs_f64(),
        };
        on_epoch(&stats);
        history.push(stats);
        if epoch == options.epochs {
            break;
        }
        if options.patience > 0 && epoch - best.0 >= options.patience {
            stopped_early = true;
            break;
        }
        if full_batch {
            adjust_gradient(&mut grad, &w, &anchor, options);
            adam.step(&mut w, &grad);
        } else {
            let mut start = 0;
            while start < n {
                let end = (start + options.batch_size).min(n);
                loss_and_gradient(training, start..end, &w, options.k, &mut grad);
                adjust_gradient(&mut grad, &w, &anchor, options);
                adam.step(&mut w, &grad);
                start = end;
            }
        }
    }
    Ok(TrainResult {
        history,
        best_epoch: best.0,
        best_weights,
        stopped_early,
    })
}

/// Stops the run with [`Diverged`] when an epoch's error, watched objective or weights are not
/// finite numbers.
fn check_finite(
    epoch: usize,
    train_mse: f64,
    validation_mse: Option<f64>,
    watched: f64,
    w: &[[f64; 2]],
    options: &TrainOptions,
) -> Result<(), Diverged> {
    let diverged = |what, value| Diverged {
        epoch,
        what,
        value,
        learning_rate: options.learning_rate,
        l2: options.l2,
    };
    if !train_mse.is_finite() {
        return Err(diverged("training error", train_mse));
    }
    if !watched.is_finite() {
        let what = if validation_mse.is_some() {
            "validation error"
        } else {
            "objective"
        };
        return Err(diverged(what, watched));
    }
    if let Some(&bad) = w.iter().flatten().find(|x| !x.is_finite()) {
        return Err(diverged("weights", bad));
    }
    Ok(())
}

/// Adds the L2 penalty's gradient (toward `anchor`) to the data's, then zeroes the frozen
/// weights' gradient so they never move.
fn adjust_gradient(
    grad: &mut [[f64; 2]],
    w: &[[f64; 2]],
    anchor: &[[f64; 2]],
    options: &TrainOptions,
) {
    if options.l2 > 0.0 {
        let scale = 2.0 * options.l2 / (100.0 * 100.0);
        for ((g, w), a) in grad.iter_mut().zip(w).zip(anchor) {
            for j in 0..2 {
                g[j] += scale * (w[j] - a[j]);
            }
        }
    }
    for (g, _) in grad.iter_mut().zip(&options.frozen).filter(|(_, &f)| f) {
        *g = [0.0; 2];
    }
}
