//! `sparring bench` (the fixed-depth search signature), `bench perft` (move-generator speed) and
//! `bench tune` (tuner throughput, in `cli::tune`).

use clap::{Args, Subcommand};
use sparring::board::perft_suite::perft_suite;
use sparring::search::bench_positions::{search_bench_evaluator, BENCH_FENS, DEFAULT_BENCH_DEPTH};
use sparring::search::SearchParams;
use std::path::PathBuf;

/// Arguments of `sparring bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub what: Option<BenchCommand>,
    /// Search depth per position (1 to 127).
    #[arg(long, default_value_t = DEFAULT_BENCH_DEPTH, value_parser = parse_depth)]
    pub depth: u32,
    /// Hand-crafted evaluation weights instead of the shipped network.
    #[arg(long)]
    pub weights: Option<PathBuf>,
    /// A network in bullet's quantised format instead of the shipped one.
    #[arg(long)]
    pub net: Option<PathBuf>,
    /// The hand-crafted evaluation with the built-in weights (its own signature).
    #[arg(long, conflicts_with_all = ["net", "weights"])]
    pub hce: bool,
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
        /// Random-playout positions to generate and load (1 to 20,000,000: each takes a few
        /// hundred bytes while the benchmark runs).
        #[arg(long, default_value_t = 1_000_000, value_parser = parse_positions)]
        positions: usize,
    },
}

/// The most positions `bench tune` generates: the playouts, their EPD text and the packed
/// data set are all held at once (a number past this once ended in an allocation abort).
const MAX_BENCH_POSITIONS: usize = 20_000_000;

/// A position count from 1 to `MAX_BENCH_POSITIONS`.
fn parse_positions(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if (1..=MAX_BENCH_POSITIONS).contains(&n) => Ok(n),
        Ok(n) => Err(format!(
            "{n} positions: expected 1 to {MAX_BENCH_POSITIONS}"
        )),
        Err(_) => Err(format!("`{text}` is not a positive integer")),
    }
}

/// The deepest iteration the search runs (it clamps deeper limits to this).
const MAX_BENCH_DEPTH: u32 = sparring::search::MAX_PLY as u32 - 1;

/// A search depth of at least 1 (a depth-0 search counts no nodes and signs nothing) and at
/// most the search's deepest iteration (a larger number would be clamped silently, and long
/// before it the run would never finish).
fn parse_depth(text: &str) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(0) => Err("the bench depth must be at least 1".to_string()),
        Ok(depth) if depth > MAX_BENCH_DEPTH => Err(format!(
            "{depth} is deeper than the search goes: at most {MAX_BENCH_DEPTH}"
        )),
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
        outln!(
            "{:<36} nodes {:>11}  time {:>7.3}s  {:>7.1} M nodes/s",
            t.label,
            t.nodes,
            t.seconds,
            t.mnps()
        )?;
    }
    Ok(())
}

fn run_search(args: &BenchArgs) -> anyhow::Result<()> {
    let evaluator = super::eval::evaluator(args.weights.as_deref(), args.net.as_deref(), args.hce)?;
    if let Some(path) = &args.search {
        super::uci::require_file("--search", path)?;
    }
    let search = SearchParams::load_or_default(args.search.as_deref())?;
    // The search reports each position through a callback: the first failed write is kept.
    let mut printed = Ok(());
    let bench = search_bench_evaluator(args.depth, &evaluator, &search, |fen, nodes| {
        if printed.is_ok() {
            printed = outln!("{nodes:>12}  {fen}");
        }
    });
    printed?;
    outln!("positions {}", BENCH_FENS.len())?;
    outln!("depth {}", args.depth)?;
    outln!("time {:.3}s", bench.seconds)?;
    outln!("nodes {}", bench.nodes)?;
    outln!("nps {}", bench.nps())?;
    Ok(())
}
