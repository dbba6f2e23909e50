//! `sparring bench perft`: move-generator speed on the start position and Kiwipete, with bulk
//! counting and with every leaf made, single thread.

use crate::board::{perft, Position};
use crate::eval::EvalParams;
use crate::search::{SearchLimits, Searcher};
use std::sync::Arc;
use std::time::Instant;

/// The default depth of `sparring bench`.
pub const DEFAULT_BENCH_DEPTH: u32 = 11;

/// Built-in bench positions: openings, middlegames and endgames.
pub const BENCH_FENS: &[&str] = &[
    Position::START_FEN,
    KIWIPETE,
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
];

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

/// Totals of a search bench run.
pub struct SearchBench {
    pub nodes: u64,
    pub seconds: f64,
}

/// Searches every bench position to `depth` with a fresh table; the node total is a determinism
/// signature (it changes only when the search or the evaluation does).
pub fn search_bench(
    depth: u32,
    params: EvalParams,
    mut each: impl FnMut(&str, u64),
) -> SearchBench {
    let params = Arc::new(params);
    let mut nodes = 0;
    let start = Instant::now();
    for fen in BENCH_FENS {
        let pos = Position::from_fen(fen).expect("bench FEN");
        let mut searcher = Searcher::new(params.clone(), 16);
        let result = searcher.search(&pos, &[], &SearchLimits::depth(depth), |_| {});
        each(fen, result.nodes);
        nodes += result.nodes;
    }
    SearchBench {
        nodes,
        seconds: start.elapsed().as_secs_f64(),
    }
}

pub fn run_search(depth: u32, weights: Option<&str>) -> anyhow::Result<()> {
    let params = match weights {
        Some(path) => EvalParams::load(path).map_err(|e| super::UsageError(e.to_string()))?,
        None => EvalParams::default(),
    };
    let bench = search_bench(depth, params, |fen, nodes| {
        println!("{nodes:>12}  {fen}");
    });
    println!("positions {}", BENCH_FENS.len());
    println!("depth {depth}");
    println!("time {:.3}s", bench.seconds);
    println!("nodes {}", bench.nodes);
    println!(
        "nps {}",
        (bench.nodes as f64 / bench.seconds.max(1e-9)) as u64
    );
    Ok(())
}
