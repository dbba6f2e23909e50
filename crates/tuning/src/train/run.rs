//! A whole training run: check the inputs, scan the data once for the validation set, start (or
//! resume) the weights, then superbatch after superbatch of minibatch AdamW steps, writing the
//! history every superbatch and a checkpoint at the configured rate and at the end.

use super::checkpoint::State;
use super::data::{spawn_loader, Feed};
use super::model::{param_count, FloatNet, TrainPosition};
use super::optim::{batch_gradient, total_loss, AdamW, GradientBuffers};
use super::output::{write_checkpoint, write_progress};
use super::validate::read_net;
use super::{thread_pool, HistoryRow, TrainConfig, TrainError};
use std::time::Instant;

/// How a run starts and stops.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrainOptions {
    /// Continue from the output directory's checkpoint.
    pub resume: bool,
    /// Stop (with a checkpoint) after this superbatch, as a kill after its checkpoint would.
    pub stop_after: Option<usize>,
}

/// What a run reports as it goes (the library never prints).
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// The data was scanned: training positions (before random skipping), validation positions.
    Scanned {
        /// Training positions.
        training: u64,
        /// Validation positions kept.
        validation: usize,
    },
    /// Resumed after this many superbatches.
    Resumed(usize),
    /// A superbatch ended.
    Superbatch(HistoryRow),
}

/// What a finished run produced.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainOutcome {
    /// The final float weights.
    pub net: FloatNet,
    /// One row per superbatch.
    pub history: Vec<HistoryRow>,
}

/// A stable hash of what a resume must not change: the data, its order and the net's shape.
fn fingerprint(config: &TrainConfig) -> u64 {
    let text = format!(
        "{:?}|{}|{}|{}|{}",
        config.data, config.hidden, config.batch_size, config.batches_per_superbatch, config.seed
    );
    // FNV-1a.
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The start weights: `model.init`'s raw.bin or quantised net, or bullet's random start.
fn initial_net(config: &TrainConfig) -> Result<FloatNet, TrainError> {
    let Some(path) = &config.init else {
        return Ok(FloatNet::init(config.hidden, config.seed));
    };
    let (net, quantised) = read_net(path, config.hidden, "model.init")?;
    if net.hidden != config.hidden {
        let kind = if quantised {
            "a quantised net"
        } else {
            "a raw.bin"
        };
        return Err(TrainError::Init {
            file: path.display().to_string(),
            role: "model.init",
            reason: format!(
                "{kind} of {} hidden units; expected a raw.bin of {} hidden units ({} bytes) or \
                 a quantised net of that size",
                net.hidden,
                config.hidden,
                4 * param_count(config.hidden)
            ),
        });
    }
    Ok(net)
}

/// The state to start from: new, or the checkpoint's when resuming.
fn start_state(config: &TrainConfig, resume: bool) -> Result<State, TrainError> {
    let file = config.out.join("checkpoint.bin");
    let shown = file.display().to_string();
    if !resume {
        if file.exists() {
            return Err(TrainError::ExistingRun {
                dir: config.out.display().to_string(),
            });
        }
        let net = initial_net(config)?;
        let adam = AdamW::new(config.adamw, net.params.len());
        return Ok(State {
            superbatch: 0,
            pass: 0,
            batches_in_pass: 0,
            fingerprint: fingerprint(config),
            net,
            adam,
            history: Vec::new(),
        });
    }
    let checkpoint_error = |reason: String| TrainError::Checkpoint {
        file: shown.clone(),
        reason,
    };
    let bytes = std::fs::read(&file).map_err(|e| checkpoint_error(e.to_string()))?;
    let state = State::from_bytes(&bytes, config.adamw).map_err(checkpoint_error)?;
    if state.net.hidden != config.hidden {
        return Err(checkpoint_error(format!(
            "it holds {} hidden units, the configuration {}",
            state.net.hidden, config.hidden
        )));
    }
    if state.fingerprint != fingerprint(config) {
        return Err(checkpoint_error(
            "the data, filters, batch size or seed differ from the run's".into(),
        ));
    }
    Ok(state)
}

/// Trains as `config` says, reporting through `on_event`; the outputs go to `config.out`.
pub fn train(
    config: &TrainConfig,
    options: &TrainOptions,
    on_event: &mut (dyn FnMut(&Event) + Send),
) -> Result<TrainOutcome, TrainError> {
    config.data.check()?;
    let mut state = start_state(config, options.resume)?;
    std::fs::create_dir_all(&config.out).map_err(|error| TrainError::Output {
        file: config.out.display().to_string(),
        error,
    })?;
    let (validation, training) = config.data.scan()?;
    if training == 0 {
        return Err(TrainError::NoTrainingData {
            config: config.source.clone(),
            files: config.data.files.len(),
        });
    }
    on_event(&Event::Scanned {
        training,
        validation: validation.len(),
    });
    if state.superbatch > 0 {
        on_event(&Event::Resumed(state.superbatch));
    }
    let pool = thread_pool(config.threads)?;
    pool.install(|| superbatches(config, options, &mut state, &validation, on_event))?;
    Ok(TrainOutcome {
        net: state.net,
        history: state.history,
    })
}

/// The superbatches from the state's on; the last checkpoint's quantisation error, if any.
fn superbatches(
    config: &TrainConfig,
    options: &TrainOptions,
    state: &mut State,
    validation: &[TrainPosition],
    on_event: &mut (dyn FnMut(&Event) + Send),
) -> Result<(), TrainError> {
    let feed = spawn_loader(
        config.data.clone(),
        config.batch_size,
        state.pass,
        state.batches_in_pass,
    );
    let mut buffers = GradientBuffers::new(state.net.params.len());
    let last = options
        .stop_after
        .map_or(config.superbatches, |s| s.min(config.superbatches));
    let elapsed_before = state.history.last().map_or(0.0, |r| r.elapsed);
    let started = Instant::now();
    let mut quantised = Ok(());
    while state.superbatch < last {
        let superbatch = state.superbatch + 1;
        let lr = config.lr.rate(superbatch);
        let lambda = config.lambda.at(superbatch, config.superbatches);
        let clock = Instant::now();
        let (mut loss, mut positions, mut batches) = (0.0f64, 0u64, 0usize);
        loop {
            match feed.recv() {
                Ok(Feed::Batch(batch)) => {
                    loss += batch_gradient(&state.net, &batch, lambda, &mut buffers);
                    state.adam.step(&mut state.net.params, &buffers.total, lr);
                    positions += batch.len() as u64;
                    batches += 1;
                    state.batches_in_pass += 1;
                    if batches == config.batches_per_superbatch {
                        break;
                    }
                }
                Ok(Feed::PassEnd { positions: 0, .. }) => {
                    return Err(TrainError::NoTrainingData {
                        config: config.source.clone(),
                        files: config.data.files.len(),
                    })
                }
                Ok(Feed::PassEnd { pass, .. }) => {
                    state.pass = pass + 1;
                    state.batches_in_pass = 0;
                    if config.batches_per_superbatch == 0 {
                        break;
                    }
                }
                Ok(Feed::Failed(e)) => return Err(e.into()),
                // The loader sends PassEnd or Failed before it ends: this is its panic.
                Err(_) => {
                    return Err(TrainError::Threads {
                        threads: 1,
                        message: "the data loader thread stopped".into(),
                    })
                }
            }
        }
        let validation_loss = (!validation.is_empty())
            .then(|| total_loss(&state.net, validation, lambda) / validation.len() as f64);
        let row = HistoryRow {
            superbatch,
            positions,
            train_loss: loss / positions.max(1) as f64,
            validation_loss,
            // The f32 rate as written (0.001, not 0.0010000000474974513).
            lr: lr.to_string().parse().unwrap_or(f64::from(lr)),
            lambda: f64::from(lambda),
            positions_per_second: positions as f64 / clock.elapsed().as_secs_f64().max(1e-9),
            elapsed: elapsed_before + started.elapsed().as_secs_f64(),
        };
        state.superbatch = superbatch;
        state.history.push(row.clone());
        write_progress(&config.out, state)?;
        if superbatch % config.checkpoint_every == 0 || superbatch == last {
            quantised = write_checkpoint(&config.out, state)?;
        }
        on_event(&Event::Superbatch(row));
    }
    quantised
}
