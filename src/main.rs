//! The `sparring` command line: parses arguments and dispatches to the subcommands in `cli`.

mod cli;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "sparring",
    version,
    about = "Chess engine, match runner and Texel tuner"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaves of the legal move tree.
    Perft(cli::perft::PerftArgs),
    /// Play a tournament (gauntlet or round-robin) from a TOML configuration.
    Match(cli::matches::MatchArgs),
    /// Elo, error bars, LOS and SPRT figures from result counts.
    Stats(cli::stats::StatsArgs),
    /// Speak UCI on standard input and output (for GUIs and match runners).
    Uci(cli::uci::UciArgs),
    /// Fixed-depth search over the built-in positions (total nodes and nps); `bench perft` for
    /// move generation.
    Bench(cli::bench::BenchArgs),
    /// Texel-tune evaluation weights to game results, as a TOML configuration says.
    Tune(cli::tune::TuneArgs),
    /// Opening suites and books: check a file, probe a Polyglot book, generate a suite.
    Openings(cli::openings::OpeningsArgs),
    /// Merge the directories of a sharded match (`match --shard I/N`) into one result.
    Merge(cli::merge::MergeArgs),
}

fn main() -> ExitCode {
    let result = match Cli::parse().command {
        Command::Perft(args) => cli::perft::run(&args),
        Command::Match(args) => cli::matches::run(&args),
        Command::Stats(args) => cli::stats::run(&args),
        Command::Uci(args) => cli::uci::run(&args),
        Command::Bench(args) => cli::bench::run(&args),
        Command::Tune(args) => cli::tune::run(&args),
        Command::Openings(args) => cli::openings::run(&args),
        Command::Merge(args) => cli::merge::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {}", cli::error_chain(&err));
            cli::failure_kind(&err).exit_code()
        }
    }
}
