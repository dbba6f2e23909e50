//! `sparring perft`: leaf counts from a position, optionally per root move.

use anyhow::Context;
use clap::Args;
use sparring::board::{perft, CastlingNotation, Position};
use std::io::Write;
use std::time::Instant;

/// Arguments of `sparring perft`.
#[derive(Args, Debug)]
pub struct PerftArgs {
    /// Plies to count (0 counts the position itself: 1), at most 64: deeper never finishes
    /// and would only exhaust the stack.
    #[arg(long, short, value_parser = clap::value_parser!(u32).range(0..=64))]
    pub depth: u32,
    /// Start position (default: the standard start position). X-FEN and Shredder-FEN castling
    /// fields are read in any case, so Chess960 positions need no flag to be counted.
    #[arg(long)]
    pub fen: Option<String>,
    /// Chess960 notation: `--divide` writes castling king takes own rook (`e1h1`).
    #[arg(long)]
    pub chess960: bool,
    /// One `move: count` line per root move.
    #[arg(long)]
    pub divide: bool,
    /// Make every leaf move instead of bulk counting the last ply.
    #[arg(long)]
    pub full: bool,
}

/// Prints the leaf count as `nodes N` (after the per-move lines with `--divide`).
pub fn run(args: &PerftArgs) -> anyhow::Result<()> {
    let mut pos = match &args.fen {
        Some(fen) => Position::from_fen_lenient(fen).with_context(|| format!("bad FEN '{fen}'"))?,
        None => Position::startpos(),
    };
    let start = Instant::now();
    let out = std::io::stdout();
    let mut out = out.lock();
    let nodes = if args.divide && args.depth > 0 {
        let mut total = 0;
        for (mv, n) in perft::divide(&mut pos, args.depth) {
            writeln!(
                out,
                "{}: {n}",
                pos.uci(mv, CastlingNotation::chess960_if(args.chess960))
            )?;
            total += n;
        }
        total
    } else if args.full {
        perft::perft_full(&mut pos, args.depth)
    } else {
        // Depth 0 (with or without --divide) counts the root itself.
        perft::perft(&mut pos, args.depth)
    };
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "time {:.3}s, {:.1} M nodes/s",
        secs,
        nodes as f64 / secs.max(1e-9) / 1e6
    );
    writeln!(out, "nodes {nodes}")?;
    Ok(())
}
