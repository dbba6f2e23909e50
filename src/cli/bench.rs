//! `sparring bench perft`: move-generator speed on the start position and Kiwipete, with bulk
//! counting and with every leaf made, single thread.

use crate::board::{perft, Position};
use std::time::Instant;

pub const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

/// One measured perft: label, nodes, seconds.
pub struct PerftTiming {
    pub label: String,
    pub nodes: u64,
    pub seconds: f64,
}

impl PerftTiming {
    pub fn mnps(&self) -> f64 {
        self.nodes as f64 / self.seconds / 1e6
    }
}

/// Times the four standard perft runs, best of `repeats` each (the least disturbed run on a
/// shared machine).
pub fn perft_suite(repeats: u32) -> Vec<PerftTiming> {
    let cases = [
        ("startpos perft(6) bulk", Position::START_FEN, 6, false),
        ("kiwipete perft(5) bulk", KIWIPETE, 5, false),
        (
            "startpos perft(6) make-every-leaf",
            Position::START_FEN,
            6,
            true,
        ),
        ("kiwipete perft(5) make-every-leaf", KIWIPETE, 5, true),
    ];
    cases
        .iter()
        .map(|&(label, fen, depth, full)| {
            let mut best = f64::INFINITY;
            let mut nodes = 0;
            for _ in 0..repeats.max(1) {
                let mut pos = Position::from_fen(fen).expect("bench FEN");
                let start = Instant::now();
                nodes = if full {
                    perft::perft_full(&mut pos, depth)
                } else {
                    perft::perft(&mut pos, depth)
                };
                best = best.min(start.elapsed().as_secs_f64());
            }
            PerftTiming {
                label: label.to_string(),
                nodes,
                seconds: best,
            }
        })
        .collect()
}

pub fn run_perft(repeats: u32) -> anyhow::Result<()> {
    for t in perft_suite(repeats) {
        println!(
            "{:<36} nodes {:>11}  time {:>7.3}s  {:>7.1} M nodes/s",
            t.label,
            t.nodes,
            t.seconds,
            t.mnps()
        );
    }
    Ok(())
}
