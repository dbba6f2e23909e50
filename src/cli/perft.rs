//! `sparring perft`: leaf counts from a position, optionally per root move.

use crate::board::{perft, Position};
use anyhow::Context;
use std::io::Write;
use std::time::Instant;

pub struct PerftArgs {
    pub depth: u32,
    pub fen: Option<String>,
    pub divide: bool,
    /// Make every leaf move instead of counting the last ply in bulk.
    pub full: bool,
}

pub fn run(args: &PerftArgs) -> anyhow::Result<()> {
    let mut pos = match &args.fen {
        Some(fen) => Position::from_fen_lenient(fen).with_context(|| format!("bad FEN '{fen}'"))?,
        None => Position::startpos(),
    };
    let start = Instant::now();
    let out = std::io::stdout();
    let mut out = out.lock();
    let nodes = if args.divide {
        let mut total = 0;
        for (mv, n) in perft::divide(&mut pos, args.depth) {
            writeln!(out, "{mv}: {n}")?;
            total += n;
        }
        total
    } else if args.full {
        perft::perft_full(&mut pos, args.depth)
    } else {
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
