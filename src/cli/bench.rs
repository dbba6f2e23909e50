//! `sparring bench` (the fixed-depth search signature), `bench perft` (move-generator speed) and
//! `bench tune` (tuner throughput, in `cli::tune`).

use clap::{Args, Subcommand};
use sparring::board::perft_suite::perft_suite;
use sparring::eval::EvalParams;
use sparring::search::bench_positions::{search_bench_with, BENCH_FENS, DEFAULT_BENCH_DEPTH};
use sparring::search::SearchParams;
use std::path::PathBuf;

/// Arguments of `sparring bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub what: Option<BenchCommand>,
    /// Search depth per position (at least 1).
    #[arg(long, default_value_t = DEFAULT_BENCH_DEPTH, value_parser = parse_depth)]
    pub depth: u32,
    /// Evaluation weights (default: the built-in weights).
    #[arg(long)]
    pub weights: Option<PathBuf>,
    /// Search parameters, e.g. configs/search/default.toml (default: the built-in values).
    #[arg(long)]
    pub search: Option<PathBuf>,
}

/// The benchmarks other than the search signature.
#[derive(Subcommand, Debug)]
pub enum BenchCommand {
    /// Move generation speed: start position perft(6) and Kiwipete perft(5).
    Perft {
        /// Runs per case; the fastest is reported.
        #[arg(long, default_value_t = 3)]
        repeats: u32,
    },
    /// Texel tuner speed on random-playout positions: loading, bytes per position, epochs.
    Tune {
        #[arg(long, default_value_t = 1_000_000)]
        positions: usize,
    },
}

/// A search depth of at least 1: a depth-0 search counts no nodes and signs nothing.
fn parse_depth(text: &str) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(0) => Err("the bench depth must be at least 1".to_string()),
        Ok(depth) => Ok(depth),
        Err(_) => Err(format!("`{text}` is not a positive integer")),
    }
}

/// Runs the benchmark the arguments name.
pub fn run(args: &BenchArgs) -> anyhow::Result<()> {
    match &args.what {
        Some(BenchCommand::Perft { repeats }) => run_perft(*repeats),
        Some(BenchCommand::Tune { positions }) => super::tune::run_bench(*positions),
        None => run_search(args),
    }
}

fn run_perft(repeats: u32) -> anyhow::Result<()> {
    for t in perft_suite(repeats) {
        println!(
            "{:<36} nodes {:>11}  time {:>7.3}s  {:>7.1} M nodes/s",
            t.label,
            t.nodes,
            t.seconds,
            t.mnps()
        );
    }
    Ok(())
}

fn run_search(args: &BenchArgs) -> anyhow::Result<()> {
    let params = match &args.weights {
        Some(path) => EvalParams::load(path)?,
        None => EvalParams::default(),
    };
    let search = match &args.search {
        Some(path) => SearchParams::load(path)?,
        None => SearchParams::default(),
    };
    let bench = search_bench_with(args.depth, params, &search, |fen, nodes| {
        println!("{nodes:>12}  {fen}");
    });
    println!("positions {}", BENCH_FENS.len());
    println!("depth {}", args.depth);
    println!("time {:.3}s", bench.seconds);
    println!("nodes {}", bench.nodes);
    println!("nps {}", bench.nps());
    Ok(())
}
