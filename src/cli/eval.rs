//! `sparring eval`: the static evaluation of positions, `eval <cp>` per FEN from the side to
//! move's view; and the evaluator that `--weights FILE` / `--net FILE` / `--hce` name, shared by
//! `uci` and `bench`.

use clap::Args;
use sparring::board::Position;
use sparring::eval::EvalParams;
use sparring::nnue::Network;
use sparring::search::{Evaluator, SearchParams};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Arguments of `sparring eval`.
#[derive(Args, Debug)]
pub struct EvalArgs {
    /// Hand-crafted evaluation weights instead of the shipped network.
    #[arg(long)]
    pub weights: Option<PathBuf>,
    /// A network in bullet's quantised `(768 -> N)x2 -> 1` format instead of the shipped one.
    #[arg(long)]
    pub net: Option<PathBuf>,
    /// The hand-crafted evaluation with the built-in weights instead of the shipped network.
    #[arg(long, conflicts_with_all = ["net", "weights"])]
    pub hce: bool,
    /// With a network (the shipped one or --net): its output exactly as bullet's inference
    /// computes it, without the clamp the search applies.
    #[arg(long, conflicts_with_all = ["weights", "hce"])]
    pub raw: bool,
    /// Search constants whose `eval.net_scale` scales a network's output, as `uci --search`
    /// (default: the built-in values).
    #[arg(long, conflicts_with = "raw")]
    pub search: Option<PathBuf>,
    /// Positions (FEN, X-FEN or Shredder-FEN), one argument each.
    #[arg(required = true, value_name = "FEN")]
    pub fens: Vec<String>,
}

/// Prints `eval <cp>` for each position, in order; a bad FEN stops with exit status 2 before
/// anything is printed.
pub fn run(args: &EvalArgs) -> anyhow::Result<()> {
    let positions = args
        .fens
        .iter()
        .enumerate()
        .map(|(i, fen)| {
            Position::from_fen(fen).map_err(|e| {
                super::UsageError(format!("FEN argument {} '{fen}': {e}", i + 1)).into()
            })
        })
        .collect::<anyhow::Result<Vec<Position>>>()?;
    let evaluator = evaluator(args.weights.as_deref(), args.net.as_deref(), args.hce)?;
    let search = SearchParams::load_or_default(args.search.as_deref())?;
    for pos in &positions {
        let cp = match (&evaluator, args.raw) {
            (Evaluator::Net(net), true) => net.evaluate(pos),
            _ => evaluator.evaluate_with(pos, &search),
        };
        outln!("eval {cp}")?;
    }
    Ok(())
}

/// The evaluator `--weights FILE`, `--net FILE` or `--hce` names (weights and net both given is a
/// usage error), or the shipped default (the network) without any.
pub fn evaluator(
    weights: Option<&Path>,
    net: Option<&Path>,
    hce: bool,
) -> anyhow::Result<Evaluator> {
    if hce {
        return Ok(Evaluator::hand_crafted());
    }
    match (weights, net) {
        (Some(_), Some(_)) => Err(super::UsageError(
            "--weights and --net both name an evaluation: give one (--weights FILE for the \
             hand-crafted evaluation, --net FILE for a network)"
                .to_string(),
        )
        .into()),
        (Some(path), None) => {
            super::uci::require_file("--weights", path)?;
            Ok(Evaluator::Hce(Arc::new(EvalParams::load(path)?)))
        }
        (None, Some(path)) => {
            super::uci::require_file("--net", path)?;
            Ok(Evaluator::Net(Arc::new(Network::load(path)?)))
        }
        (None, None) => Ok(Evaluator::default()),
    }
}
