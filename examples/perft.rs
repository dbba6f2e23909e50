//! Counts the move paths of a position to a depth, per first move ("divide") and in total: the
//! usual check of a move generator against published perft numbers.
//!
//! ```sh
//! cargo run --release --example perft -- "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1" 3
//! ```
//!
//! With no arguments it counts the start position to depth 4 (197281 paths).

use sparring::board::perft::divide;
use sparring::board::{CastlingNotation, Position};
use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (fen, depth) = match &args[..] {
        [] => (Position::START_FEN, "4"),
        [fen] => (fen.as_str(), "4"),
        [fen, depth] => (fen.as_str(), depth.as_str()),
        _ => return usage("expected at most two arguments"),
    };
    let mut pos: Position = match fen.parse() {
        Ok(pos) => pos,
        Err(e) => return usage(&format!("bad FEN '{fen}': {e}")),
    };
    let depth: u32 = match depth.parse() {
        Ok(depth) if depth >= 1 => depth,
        _ => {
            return usage(&format!(
                "bad depth '{depth}': expected a whole number from 1"
            ))
        }
    };
    let started = Instant::now();
    let root = pos.clone();
    let mut total = 0;
    for (mv, count) in divide(&mut pos, depth) {
        // Castling as king takes rook reads back in both standard chess and Chess960.
        println!("{}: {count}", root.uci(mv, CastlingNotation::Chess960));
        total += count;
    }
    let seconds = started.elapsed().as_secs_f64();
    println!("\nnodes {total} in {seconds:.3}s");
    ExitCode::SUCCESS
}

fn usage(message: &str) -> ExitCode {
    eprintln!("perft: {message}");
    eprintln!("usage: perft [FEN [DEPTH]]");
    ExitCode::from(2)
}
