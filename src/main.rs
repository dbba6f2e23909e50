//! The `sparring` command line: parses arguments and dispatches to the subcommands in `cli`.

// Every function fits on a screen (issue 22); the threshold, 120 lines, is in clippy.toml.
#![warn(clippy::too_many_lines)]

mod cli;

use clap::{Parser, Subcommand};
use std::ffi::OsString;
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
    /// Play a tournament (gauntlet or round-robin) from a TOML configuration, or from a
    /// fastchess/cutechess-cli command line (`sparring match -engine ... -engine ...`).
    Match(MatchCommand),
    /// Elo, error bars, LOS and SPRT figures from result counts.
    Stats(cli::stats::StatsArgs),
    /// Joint maximum-likelihood ratings of the engines of runs (their games.csv) or of any
    /// runner's PGN files, with bootstrap error bars (what a run of three or more engines ends
    /// with); a game given twice (the same file again, or a run's games.csv and its games.pgn)
    /// is counted once.
    Ratings(cli::ratings::RatingsArgs),
    /// Self-play training data: the engine plays itself from random openings at a node limit,
    /// every position's score and the result into a data file (docs/datagen.md).
    Datagen(cli::datagen::DatagenArgs),
    /// Speak UCI on standard input and output (for GUIs and match runners).
    Uci(cli::uci::UciArgs),
    /// The static evaluation of positions (`eval <cp>` each, side to move's view): the
    /// hand-crafted evaluation, or a network with `--net FILE` (`--raw`: bullet's output).
    Eval(cli::eval::EvalArgs),
    /// Fixed-depth search over the built-in positions (total nodes and nps); `bench perft` for
    /// move generation.
    Bench(cli::bench::BenchArgs),
    /// Texel-tune evaluation weights to game results, as a TOML configuration says.
    Tune(cli::tune::TuneArgs),
    /// Opening suites and books: check a file, probe a Polyglot book, generate a suite.
    Openings(cli::openings::OpeningsArgs),
    /// SPSA-tune engine parameters (search constants, weights, UCI options) through games.
    Spsa(cli::spsa::SpsaArgs),
    /// Merge the directories of a sharded match (`match --shard I/N`) into one result.
    Merge(cli::merge::MergeArgs),
    /// Write a run directory's report.html (a match, SPRT, merge, tune, SPSA, loop or datagen
    /// run) from the files it holds.
    Report(cli::report::ReportArgs),
    /// The self-play tuning loop: generations of self-play, Texel tune and SPRT gate, with a
    /// ladder of the climb (see `sparring loop --help`).
    #[command(long_about = cli::ladder::LONG_ABOUT)]
    Loop(cli::ladder::LoopArgs),
    /// Training data for NNUE trainers (viriformat, marlinformat, bulletformat, text): info,
    /// convert with filters, shuffle, interleave.
    Data(cli::data::DataArgs),
    /// Train an NNUE (bullet's `(768 -> N)x2 -> 1`) on the CPU from training data, as a TOML
    /// configuration says (docs/train.md); `train bench` measures its speed.
    Train(cli::train::TrainArgs),
    /// Syzygy endgame tables: `tablebase probe --path DIR FEN` prints a position's WDL and DTZ.
    Tablebase(cli::tablebase::TablebaseArgs),
}

/// `sparring match CONFIG [...]`, plus `--dump-config`.
#[derive(clap::Args)]
struct MatchCommand {
    #[command(flatten)]
    args: cli::matches::MatchArgs,
    /// Write the configuration (with the command-line overrides) as TOML to this file and stop.
    #[arg(long, value_name = "FILE.toml")]
    dump_config: Option<std::path::PathBuf>,
}

/// The fastchess/cutechess-cli command line, if this is one: the program runs under a runner's
/// name (a `fastchess` symlink), or `sparring match` is followed by a single-dash option.
fn dialect_arguments(args: &[OsString]) -> Option<(cli::dialect::Flavor, &[OsString])> {
    if let Some(flavor) = args
        .first()
        .and_then(|a| cli::dialect::flavor_of_program(a))
    {
        return Some((flavor, &args[1..]));
    }
    match args {
        [_, command, first, ..]
            if command == "match" && cli::dialect::is_dialect_argument(first) =>
        {
            Some((cli::dialect::Flavor::Fastchess, &args[2..]))
        }
        _ => None,
    }
}

fn main() -> ExitCode {
    let argv: Vec<OsString> = std::env::args_os().collect();
    let result = if let Some((flavor, rest)) = dialect_arguments(&argv) {
        cli::dialect::run(rest, flavor)
    } else {
        run_subcommand(Cli::parse_from(uci_commands_as_arguments(argv)).command)
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // The reader of standard output went away (`| head`): nothing more to say to anyone.
        Err(err) if cli::is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {}", cli::error_chain(&err));
            cli::exit_code(cli::failure(&err))
        }
    }
}

/// OpenBench runs an engine with UCI commands as its arguments (`./engine "genfens 8 seed 3
/// book None " quit`): a first argument holding a space is no subcommand, so such a line is
/// `sparring uci` with those commands.
fn uci_commands_as_arguments(mut argv: Vec<OsString>) -> Vec<OsString> {
    let first_is_a_command = argv
        .get(1)
        .and_then(|arg| arg.to_str())
        .is_some_and(|arg| arg.trim().contains(' '));
    if first_is_a_command {
        argv.insert(1, OsString::from("uci"));
    }
    argv
}

fn run_subcommand(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Perft(args) => cli::perft::run(&args),
        Command::Match(MatchCommand {
            args,
            dump_config: Some(path),
        }) => cli::write_config_dump(&cli::matches::load_config(&args)?, &path),
        Command::Match(MatchCommand { args, .. }) => cli::matches::run(&args),
        Command::Stats(args) => cli::stats::run(&args),
        Command::Ratings(args) => cli::ratings::run(&args),
        Command::Datagen(args) => cli::datagen::run(&args),
        Command::Uci(args) => cli::uci::run(&args),
        Command::Eval(args) => cli::eval::run(&args),
        Command::Bench(args) => cli::bench::run(&args),
        Command::Tune(args) => cli::tune::run(&args),
        Command::Openings(args) => cli::openings::run(&args),
        Command::Spsa(args) => cli::spsa::run(&args),
        Command::Merge(args) => cli::merge::run(&args),
        Command::Report(args) => cli::report::run(&args),
        Command::Loop(args) => cli::ladder::run(&args),
        Command::Tablebase(args) => cli::tablebase::run(&args),
        Command::Data(args) => cli::data::run(&args),
        Command::Train(args) => cli::train::run(&args),
    }
}
