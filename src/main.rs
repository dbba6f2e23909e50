//! The `sparring` command line: parses arguments and dispatches to the library.

use clap::{Parser, Subcommand};
use sparring::cli;
use sparring::openings::generate::GenerateOptions;
use sparring::openings::OpeningFormat;
use std::path::PathBuf;
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
    Match(cli::matches::MatchArgs),
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
    /// Opening suites and books: check a file, probe a Polyglot book, generate a suite.
    Openings {
        #[command(subcommand)]
        what: OpeningsCommand,
    },
}

#[derive(Subcommand)]
enum OpeningsCommand {
    /// Load a suite or book, print every rejected line (`file:line: reason`), end with `openings N`.
    Check {
        file: PathBuf,
        /// epd, pgn or polyglot (default: from the extension).
        #[arg(long)]
        format: Option<OpeningFormat>,
        /// PGN: plies kept per game; Polyglot: depth of the walk from the start position.
        #[arg(long)]
        plies: Option<usize>,
    },
    /// Print a Polyglot book's key for a position and its moves (`<uci> <weight>`).
    Probe {
        book: PathBuf,
        /// Position (default: the standard start position).
        #[arg(long)]
        fen: Option<String>,
    },
    /// Build an EPD suite with the engine: random sensible lines kept when scored in a window.
    Generate {
        /// Length of each line from the start position.
        #[arg(long)]
        plies: usize,
        /// Number of positions.
        #[arg(long)]
        count: usize,
        /// Largest side-to-move score kept (centipawns); without --min-eval, |score| <= this.
        #[arg(long, allow_hyphen_values = true)]
        max_eval: i32,
        /// Smallest side-to-move score kept (for unbalanced suites).
        #[arg(long, allow_hyphen_values = true)]
        min_eval: Option<i32>,
        /// Nodes of the search that scores each final position.
        #[arg(long, default_value_t = 3000)]
        nodes: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Moves scored more than this many centipawns below the best are not played.
        #[arg(long, default_value_t = 60)]
        margin: i32,
        /// Depth of the search that scores each candidate move.
        #[arg(long, default_value_t = 1)]
        sample_depth: u32,
        /// Candidates tried before giving up (default: 200 per position wanted).
        #[arg(long)]
        max_candidates: Option<u64>,
        /// Add `c0 "score +N cp";` to each line.
        #[arg(long)]
        annotate: bool,
        /// Evaluation weights that play and score the lines (default: the built-in defaults).
        #[arg(long)]
        weights: Option<PathBuf>,
        #[arg(long)]
        out: PathBuf,
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
        Command::Match(args) => cli::matches::run(&args),
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
        Command::Openings { what } => match what {
            OpeningsCommand::Check {
                file,
                format,
                plies,
            } => cli::openings::check(&cli::openings::CheckArgs {
                file,
                format,
                plies,
            }),
            OpeningsCommand::Probe { book, fen } => cli::openings::probe(&book, fen.as_deref()),
            OpeningsCommand::Generate {
                plies,
                count,
                max_eval,
                min_eval,
                nodes,
                seed,
                margin,
                sample_depth,
                max_candidates,
                annotate,
                weights,
                out,
            } => cli::openings::run_generate(&cli::openings::GenerateArgs {
                options: GenerateOptions {
                    plies,
                    count,
                    max_eval,
                    min_eval,
                    nodes,
                    seed,
                    margin,
                    sample_depth,
                    max_candidates: max_candidates.unwrap_or(200 * count as u64),
                    weights: None,
                },
                weights,
                out,
                annotate,
            }),
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
