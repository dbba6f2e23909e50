//! `sparring uci`: the UCI loop on standard input and output.

use clap::Args;
use sparring::search::SearchParams;
use sparring::texel::tunetrace::TunetraceCommand;
use sparring::uci::{openbench_lines, UciEngine};
use std::path::PathBuf;

/// Arguments of `sparring uci`.
#[derive(Args, Debug)]
pub struct UciArgs {
    /// Hand-crafted evaluation weights to play with instead of the shipped network.
    #[arg(long)]
    pub weights: Option<PathBuf>,
    /// A network in bullet's quantised `(768 -> N)x2 -> 1` format to play with instead of the
    /// shipped one (the UCI option `EvalFile` sets one later).
    #[arg(long)]
    pub net: Option<PathBuf>,
    /// Play the hand-crafted evaluation with the built-in weights (`EvalFile <hce>` later).
    #[arg(long, conflicts_with_all = ["net", "weights"])]
    pub hce: bool,
    /// Search parameters to start with, e.g. configs/search/default.toml (default: the built-in
    /// values).
    #[arg(long)]
    pub search: Option<PathBuf>,
    /// Declare the search constants as UCI options (`search.lmr.base`, ...) for SPSA tuners.
    #[arg(long)]
    pub tunable: bool,
    /// Print OpenBench's SPSA input lines for the search constants and exit.
    #[arg(long)]
    pub spsa_inputs: bool,
    /// A command to answer and exit instead of reading standard input, e.g. `tunetrace params`,
    /// `tunetrace fen FEN`, `tunetrace file PATH` (docs/tune-any-engine.md).
    #[arg(trailing_var_arg = true)]
    pub command: Vec<String>,
}

/// Runs the engine until `quit` or the end of standard input.
pub fn run(args: &UciArgs) -> anyhow::Result<()> {
    let search = match &args.search {
        // A bad search file is bad input: the ConfigError in the chain gives the exit status.
        Some(path) => {
            require_file("--search", path)?;
            Some(SearchParams::load(path)?)
        }
        None => None,
    };
    if args.spsa_inputs {
        for line in openbench_lines(search.as_ref().unwrap_or(&SearchParams::default())) {
            outln!("{line}")?;
        }
        return Ok(());
    }
    // A bad weights or net file is bad input: the chain carries its error for the exit status.
    let evaluator = super::eval::evaluator(args.weights.as_deref(), args.net.as_deref(), args.hce)?;
    let out = Box::new(std::io::stdout());
    let mut engine = UciEngine::with_evaluator(out, evaluator);
    if let Some(search) = search {
        engine.set_search_params(search);
    }
    engine.set_tunable(args.tunable);
    // The tuner's trace protocol, so any tuner that speaks it can tune this engine's evaluation.
    engine.add_command("tunetrace", Box::new(TunetraceCommand));
    if !args.command.is_empty() {
        // OpenBench passes each command as one argument (`"genfens 64 seed 7 book None" quit`);
        // otherwise the words are one command (`tunetrace fen FEN`, the FEN maybe quoted).
        if args.command[0].trim().contains(' ') {
            for command in args.command.iter().take_while(|c| c.trim() != "quit") {
                engine.handle(command);
            }
        } else {
            engine.handle(&args.command.join(" "));
        }
        return Ok(());
    }
    engine.run(std::io::stdin().lock())?;
    Ok(())
}

/// Refuses a path that exists but is no regular file (a directory, or a device such as
/// /dev/zero, which the reader would read without end); a missing one is left to the reader's
/// own message.
pub(super) fn require_file(flag: &str, path: &std::path::Path) -> Result<(), super::UsageError> {
    match std::fs::metadata(path) {
        Ok(meta) if !meta.is_file() => Err(super::UsageError(format!(
            "{flag} {}: not a file",
            path.display()
        ))),
        _ => Ok(()),
    }
}
