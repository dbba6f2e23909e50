//! `sparring train CONFIG.toml` (the CPU NNUE trainer, one line per superbatch) and `sparring
//! train bench` (positions per second on 1 and 2 threads). The library (`sparring::train`) does
//! the work; this file parses and renders.

use clap::{Args, Subcommand};
use sparring::train::{self, bench, Event, TrainConfig, TrainOptions};
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `sparring train`: the configuration and its overrides, or `bench`.
#[derive(Args, Clone, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct TrainArgs {
    /// The configuration (see configs/train.toml).
    #[arg(required = true)]
    pub config: Option<PathBuf>,
    /// Data files read instead of `data.files`; repeat for several.
    #[arg(long = "data", value_name = "FILE")]
    pub data: Vec<PathBuf>,
    /// Override `training.superbatches` (at least 1).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub epochs: Option<u64>,
    /// Override `output.dir`.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Override `training.threads` (0 = one per core).
    #[arg(long, value_parser = super::parse_thread_count)]
    pub threads: Option<usize>,
    /// Continue the run in the output directory from its checkpoint.
    #[arg(long)]
    pub resume: bool,
    /// Train nothing: print each net's mean loss on the configuration's held-out positions
    /// (a raw.bin or a quantised net of any size; repeat for several).
    #[arg(long = "validate", value_name = "NET", conflicts_with_all = ["resume", "out", "epochs"])]
    pub validate: Vec<PathBuf>,
    /// Stop after this superbatch with a checkpoint, as a kill after it would (for resume tests).
    #[arg(long, hide = true)]
    pub stop_after: Option<usize>,
    /// A tool instead of a training run.
    #[command(subcommand)]
    pub command: Option<TrainCommand>,
}

/// `sparring train <COMMAND>`.
#[derive(Subcommand, Clone, Debug)]
pub enum TrainCommand {
    /// Positions per second of whole training steps (gradient and AdamW) on synthetic
    /// positions, on each thread count, the median of --repeat runs.
    Bench(BenchArgs),
}

/// Arguments of `sparring train bench`.
#[derive(Args, Clone, Debug)]
pub struct BenchArgs {
    /// Hidden units.
    #[arg(long, default_value_t = 128)]
    pub hidden: usize,
    /// Positions per batch.
    #[arg(long, default_value_t = 16384)]
    pub batch: usize,
    /// Timed steps per run.
    #[arg(long, default_value_t = 20)]
    pub steps: usize,
    /// Runs per thread count (the median is printed).
    #[arg(long, default_value_t = 3)]
    pub repeat: usize,
    /// Thread counts, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1,2")]
    pub threads: Vec<usize>,
    /// Also write the batches' positions to this file (132 bytes each; see
    /// docs/research/train_torch_bench.py) for timing other trainers on the same inputs.
    #[arg(long, value_name = "FILE")]
    pub dump: Option<PathBuf>,
}

/// `sparring train`.
pub fn run(args: &TrainArgs) -> anyhow::Result<()> {
    if let Some(TrainCommand::Bench(bench)) = &args.command {
        return run_bench(bench);
    }
    let path = args
        .config
        .as_ref()
        .ok_or_else(|| super::UsageError("sparring train needs a configuration file".into()))?;
    let mut config = TrainConfig::load(path)?;
    if !args.data.is_empty() {
        config.data.files.clone_from(&args.data);
    }
    if let Some(epochs) = args.epochs {
        config.superbatches = epochs as usize;
    }
    if let Some(out) = &args.out {
        config.out.clone_from(out);
    }
    if let Some(threads) = args.threads {
        config.threads = threads;
    }
    if !args.validate.is_empty() {
        return run_validate(&config, &args.validate);
    }
    let options = TrainOptions {
        resume: args.resume,
        stop_after: args.stop_after,
    };
    let total = config.superbatches;
    // After a failed write (the reader went away) training goes on silently; the error ends
    // the command once the network is written.
    let mut printed = Ok(());
    let outcome = train::train(&config, &options, &mut |event| {
        if printed.is_ok() {
            printed = show(event, total);
        }
    })?;
    printed?;
    let dir = config.out.display();
    outln!(
        "wrote {dir}/quantised.bin ((768 -> {})x2 -> 1), raw.bin, history.csv, loss.svg, checkpoint.bin after {} superbatches",
        outcome.net.hidden,
        outcome.history.len()
    )?;
    Ok(())
}

/// `--validate`: one line per net, in the order given.
fn run_validate(config: &TrainConfig, nets: &[PathBuf]) -> anyhow::Result<()> {
    let report = train::validate(config, nets)?;
    outln!(
        "held out: {} positions of {} file(s), lambda {:.3}",
        report.positions,
        config.data.files.len(),
        report.lambda
    )?;
    for net in &report.nets {
        outln!(
            "validation {:.6} {} ((768 -> {})x2 -> 1)",
            net.loss,
            net.file.display(),
            net.hidden
        )?;
    }
    Ok(())
}

/// One line per event on standard output.
fn show(event: &Event, total: usize) -> std::io::Result<()> {
    match event {
        Event::Scanned {
            training,
            validation,
        } => outln!("data: {training} training positions, {validation} validation positions")?,
        Event::Resumed(done) => outln!("resumed after superbatch {done}")?,
        Event::Superbatch(row) => {
            let validation = row
                .validation_loss
                .map_or(String::new(), |v| format!(" validation {v:.6}"));
            outln!(
                "superbatch {}/{total}: train {:.6}{validation} lr {} lambda {:.3} {:.0} pos/s {:.1} s",
                row.superbatch,
                row.train_loss,
                row.lr,
                row.lambda,
                row.positions_per_second,
                row.elapsed
            )?;
        }
    }
    std::io::stdout().flush()
}

/// `sparring train bench`.
fn run_bench(args: &BenchArgs) -> anyhow::Result<()> {
    if args.hidden == 0 || args.batch == 0 || args.steps == 0 || args.repeat == 0 {
        return Err(super::UsageError(
            "--hidden, --batch, --steps and --repeat must be at least 1".into(),
        )
        .into());
    }
    let cores = sparring::available_cores();
    if let Some(&t) = args.threads.iter().find(|&&t| t == 0 || t > cores) {
        return Err(super::UsageError(format!("--threads {t}: from 1 to {cores}")).into());
    }
    let batches: Vec<Vec<train::TrainPosition>> = (0..4)
        .map(|i| bench::synthetic_positions(args.batch, i))
        .collect();
    if let Some(path) = &args.dump {
        let bytes: Vec<u8> = batches
            .iter()
            .flatten()
            .flat_map(bench::exchange_record)
            .collect();
        std::fs::write(path, bytes)
            .map_err(|e| anyhow::anyhow!("{}: cannot write: {e}", path.display()))?;
        outln!(
            "wrote {} ({} positions, 4 batches)",
            path.display(),
            4 * args.batch
        )?;
    }
    outln!(
        "(768 -> {})x2 -> 1, batch {}, {} steps per run, median of {}",
        args.hidden,
        args.batch,
        args.steps,
        args.repeat
    )?;
    for &threads in &args.threads {
        let mut rates = Vec::with_capacity(args.repeat);
        for _ in 0..args.repeat {
            let seconds = bench::time_steps(args.hidden, &batches, args.steps, threads)?;
            rates.push((args.steps * args.batch) as f64 / seconds);
        }
        let runs: Vec<String> = rates.iter().map(|r| format!("{r:.0}")).collect();
        outln!(
            "threads {threads}: {:.0} positions/s (runs: {})",
            bench::median(&mut rates),
            runs.join(", ")
        )?;
    }
    Ok(())
}
