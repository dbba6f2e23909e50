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
    /// Play a tournament (gauntlet or round-robin) from a TOML configuration.
    Match {
        /// The configuration, e.g. configs/gauntlet.toml.
        config: std::path::PathBuf,
        #[arg(long)]
        concurrency: Option<usize>,
        /// Openings per pairing (each played twice, colours reversed).
        #[arg(long)]
        rounds: Option<u32>,
        #[arg(long)]
        seed: Option<u64>,
        /// Output directory (overrides `output.dir`).
        #[arg(long)]
        out: Option<std::path::PathBuf>,
        /// Continue a run from its output directory without replaying finished games.
        #[arg(long)]
        resume: bool,
    },
    /// Elo, error bars, LOS and SPRT figures from result counts.
    Stats {
        /// Wins, draws, losses: `--wdl 120,300,100`.
        #[arg(long)]
        wdl: Option<String>,
        /// Pentanomial pair counts: `--ptnml 5,40,100,45,10`.
        #[arg(long)]
        ptnml: Option<String>,
        #[arg(long, allow_hyphen_values = true)]
        elo0: Option<f64>,
        #[arg(long, allow_hyphen_values = true)]
        elo1: Option<f64>,
        #[arg(long, default_value_t = 0.05)]
        alpha: f64,
        #[arg(long, default_value_t = 0.05)]
        beta: f64,
        /// normalized, logistic or bayeselo.
        #[arg(long, default_value = "normalized")]
        model: String,
    },
    /// Speak UCI on standard input and output (for GUIs and match runners).
    Uci {
        /// Evaluation weights to start with (default: the built-in weights).
        #[arg(long)]
        weights: Option<String>,
        /// Misbehave on purpose after N searches (for testing runners): crash:N, hang:N,
        /// illegal:N or garbage:N.
        #[arg(long, hide = true)]
        fault: Option<String>,
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
}

#[derive(Subcommand)]
enum BenchCommand {
    /// Move generation speed: start position perft(6) and Kiwipete perft(5).
    Perft {
        /// Runs per case; the fastest is reported.
        #[arg(long, default_value_t = 3)]
        repeats: u32,
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
        Command::Match {
            config,
            concurrency,
            rounds,
            seed,
            out,
            resume,
        } => cli::matches::run(&cli::matches::MatchArgs {
            config,
            concurrency,
            rounds,
            seed,
            out,
            resume,
        }),
        Command::Stats {
            wdl,
            ptnml,
            elo0,
            elo1,
            alpha,
            beta,
            model,
        } => cli::matches::run_stats(&cli::matches::StatsArgs {
            wdl,
            ptnml,
            elo0,
            elo1,
            alpha,
            beta,
            model,
        }),
        Command::Uci { weights, fault } => cli::run_uci(weights.as_deref(), fault.as_deref()),
        Command::Bench {
            what,
            depth,
            weights,
        } => match what {
            Some(BenchCommand::Perft { repeats }) => cli::bench::run_perft(repeats),
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
