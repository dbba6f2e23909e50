//! The `sparring` command line: parses arguments and dispatches to the library.

use clap::{Parser, Subcommand};
use sparring::cli;
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
    Perft {
        #[arg(long, short)]
        depth: u32,
        /// Start position (default: the standard start position).
        #[arg(long)]
        fen: Option<String>,
        /// One `move: count` line per root move.
        #[arg(long)]
        divide: bool,
        /// Make every leaf move instead of bulk counting the last ply.
        #[arg(long)]
        full: bool,
    },
    /// Speak UCI on standard input and output (for GUIs and match runners).
    Uci {
        /// Evaluation weights to start with (default: the built-in weights).
        #[arg(long)]
        weights: Option<String>,
    },
    /// Fixed-depth search over the built-in positions (total nodes and nps); `bench perft` for
    /// move generation.
    Bench {
        #[command(subcommand)]
        what: Option<BenchCommand>,
        /// Search depth per position.
        #[arg(long, default_value_t = cli::bench::DEFAULT_BENCH_DEPTH)]
        depth: u32,
        /// Evaluation weights (default: the built-in weights).
        #[arg(long)]
        weights: Option<String>,
    },
    /// Texel-tune evaluation weights to game results, as a TOML configuration says.
    Tune {
        /// The configuration (see configs/tune.toml).
        config: String,
        /// Override `optimizer.epochs`.
        #[arg(long)]
        epochs: Option<usize>,
        /// Override `optimizer.threads` (0 = one per core).
        #[arg(long)]
        threads: Option<usize>,
    },
}

#[derive(Subcommand)]
enum BenchCommand {
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

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Perft {
            depth,
            fen,
            divide,
            full,
        } => cli::perft::run(&cli::perft::PerftArgs {
            depth,
            fen,
            divide,
            full,
        }),
        Command::Uci { weights } => cli::run_uci(weights.as_deref()),
        Command::Tune {
            config,
            epochs,
            threads,
        } => cli::tune::run(&cli::tune::TuneArgs {
            config,
            epochs,
            threads,
        }),
        Command::Bench {
            what,
            depth,
            weights,
        } => match what {
            Some(BenchCommand::Perft { repeats }) => cli::bench::run_perft(repeats),
            Some(BenchCommand::Tune { positions }) => cli::tune::run_bench(positions),
            None => cli::bench::run_search(depth, weights.as_deref()),
        },
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(cli::exit_code(&err) as u8)
        }
    }
}
