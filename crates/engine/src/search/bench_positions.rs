//! The built-in bench positions and the fixed-depth search over them whose node total is the
//! engine's determinism signature (`sparring bench`, `benches/search.rs`).

use super::{Evaluator, SearchLimits, SearchParams, Searcher};
use crate::board::perft_suite::KIWIPETE;
use crate::board::Position;
use crate::eval::EvalParams;
use std::sync::Arc;
use std::time::Instant;

/// The default depth of `sparring bench`.
pub const DEFAULT_BENCH_DEPTH: u32 = 12;

/// Built-in bench positions: the six perft reference positions, then openings, middlegames and
/// endgames sampled at plies 18, 45 and 80 of the engine's own games from random 6-ply starts.
pub const BENCH_FENS: &[&str] = &[
    Position::START_FEN,
    KIWIPETE,
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "r1b1kbnr/pp2p1pp/8/2p1Q3/2Pq4/8/PP1P1PPP/RNB1KB1R w KQkq - 1 10",
    "4k1nr/4p2p/6p1/1pp1Q3/3r1P2/3P4/P5PP/3KR3 b k - 1 23",
    "1k6/1P5Q/8/8/8/8/3K3P/8 w - - 3 41",
    "rn2kb1r/1pp1pppp/4bn2/pP6/1P1P4/2Np1N2/2P2PPP/R1B1KB1R w KQkq - 0 10",
    "1n2kr2/2p1p2p/1p4p1/rP1NP3/8/8/2P2PPP/R4RK1 b - - 0 23",
    "8/2N1pk2/1R4p1/7p/2P2P1P/6P1/3r3n/5K2 w - - 5 41",
    "r1bqkb1r/ppp2pp1/2n1p2p/6P1/P3p2P/BP2P3/2PP1P2/R2QKBNR w KQkq - 2 10",
    "r1bq4/p1pk3Q/4p3/2p2p2/P3pP1p/1P2P2N/R1PP4/4K3 b - - 3 23",
    "8/p5kN/4p3/P1p2p2/4pP2/4P3/1KPPb3/8 w - - 8 41",
    "r4rk1/p1pbpp1p/p2q1npb/3p4/3P2P1/2N1PP2/PPPQN2P/R1B2RK1 w - - 1 10",
    "5k1Q/prr2p1p/p1q1b1p1/3p4/PP3P2/2N1RP2/2P4P/R5K1 b - - 1 23",
    "2kr4/2r2p2/p7/3Q4/P7/2N2P2/2P1R2P/7K w - - 1 41",
    "1nb1kb1r/1pq3pp/2pppn2/2P2p2/r2P1P2/2N5/P3P1PP/2BQKBNR w Kk - 0 10",
    "1nbr2k1/6pp/4p3/1p2Np2/2p1nP2/B3P1P1/P3B2P/5K1R b - - 0 23",
    "6k1/6pp/8/2n2R2/4p3/1p4P1/2p3KP/6r1 w - - 1 41",
    "r1b2rk1/ppq1bpp1/n1pp1n1p/4p3/2P1P3/P1NPBN1P/1P2BPP1/R2QK2R w KQ - 5 10",
    "2b1r1k1/4qpp1/1ppp1n1p/r4P2/2PbPR2/P1NB3P/2QB2P1/R6K b - - 1 23",
    "8/5p1k/2pp4/np3P2/4r2P/2R3B1/8/7K w - - 0 41",
    "r1b1k2r/1p3ppp/pqn1pn2/3p4/Pb1P4/1PN2N2/2PB1PPP/1R1QKB1R w Kkq - 4 10",
    "r1b1r1k1/1p3ppp/p1n5/3p4/3N2P1/1P5P/1R1N1P2/qQ1K1B1R b - - 2 23",
    "8/2R3pk/pp5p/7r/1PK2p2/7P/5P2/8 w - - 1 41",
    "r1bk1b1B/pp2pp1p/1q3np1/1B1p4/1n4P1/2N1P3/2PP1P1P/R2QK1NR w KQ - 4 10",
    "R4bq1/1p1np2p/3k2p1/1B1N1pP1/1p1BP2P/3P4/2P2P2/4K2R b K - 2 23",
    "7R/3k2P1/8/8/1p6/1P2P3/8/4K3 w - - 0 41",
    "r1bqk2r/2ppbp1p/p1n2np1/8/8/1PN1Q2P/P1P1PPP1/R1B1KBNR w KQkq - 3 10",
    "r2q1rk1/5p1n/p1b3p1/6Pp/2Q5/bPN2P1P/P1P1P3/1K1R1B1R b - - 2 23",
    "5nk1/5p2/2B3p1/rp1R2Pp/4PP1b/1PP5/8/1K6 w - - 0 41",
    "r1b1k2r/p2p1ppp/2n4n/qp2P3/1bp2B1P/2N1P3/PPPQNPP1/R3KB1R w KQkq - 2 10",
    "5r1k/r6p/pqn1Q3/1p3N1p/1bp2P1P/4P3/PPP1B1P1/1K1R3R b - - 1 23",
    "8/1r4bk/R5p1/3NP1P1/1p3P1P/2p5/2P5/1K5R w - - 5 41",
    "r1b1kbnr/pp1p1ppp/4n3/q2pp3/2P5/2N1PPP1/PP5P/R1BQKBNR w KQkq - 0 10",
    "r1b1r1k1/p2p1ppp/3n1n2/2N5/3pP2P/P2B1PP1/1P1B4/R3K2R b KQ - 3 23",
    "4r1k1/5bpp/p7/4P2P/5Bp1/r4P2/1R3K2/3R4 w - - 0 41",
    "r1b2rk1/1ppp1ppp/p1q2n2/8/2P1p3/N3P3/PP1PBPPP/R1BQ1RK1 w - - 4 10",
    "r1r1n1k1/6p1/1p2b2p/p2p1p2/3Pp3/NPR1P1BP/1P2BPP1/2R3K1 b - - 1 23",
    "8/1b3k2/1P4p1/B2p1p2/B2Pp2p/4P2P/1P3PP1/6K1 w - - 0 41",
];

/// Totals of a search bench run.
#[derive(Clone, Copy, Debug)]
pub struct SearchBench {
    /// Nodes searched over all positions: the determinism signature.
    pub nodes: u64,
    /// Wall-clock seconds of the whole run.
    pub seconds: f64,
}

impl SearchBench {
    /// Nodes per second.
    pub fn nps(&self) -> u64 {
        (self.nodes as f64 / self.seconds.max(1e-9)) as u64
    }
}

/// Searches every bench position to `depth` with a fresh 16 MB table, calling `each` with the
/// position and its node count; the node total changes only when the search or evaluation does.
pub fn search_bench(depth: u32, params: EvalParams, each: impl FnMut(&str, u64)) -> SearchBench {
    search_bench_with(depth, params, &SearchParams::default(), each)
}

/// As [`search_bench`], with the search constants `search`.
pub fn search_bench_with(
    depth: u32,
    params: EvalParams,
    search: &SearchParams,
    each: impl FnMut(&str, u64),
) -> SearchBench {
    let evaluator = Evaluator::Hce(Arc::new(params));
    search_bench_evaluator(depth, &evaluator, search, each)
}

/// As [`search_bench_with`], evaluating with `evaluator` (the hand-crafted evaluation or a net).
pub fn search_bench_evaluator(
    depth: u32,
    evaluator: &Evaluator,
    search: &SearchParams,
    mut each: impl FnMut(&str, u64),
) -> SearchBench {
    // A net's searcher keeps the default weights beside it, unused.
    let params = match evaluator {
        Evaluator::Hce(params) => params.clone(),
        Evaluator::Net(_) => Arc::new(EvalParams::default()),
    };
    let mut nodes = 0;
    let start = Instant::now();
    for fen in BENCH_FENS {
        let pos = Position::from_fen(fen).expect("the bench FENs are valid");
        let mut searcher = Searcher::new(params.clone(), 16);
        searcher.set_evaluator(evaluator);
        searcher.set_search_params(search.clone());
        let result = searcher.search(&pos, &[], &SearchLimits::depth(depth), |_| {});
        each(fen, result.nodes);
        nodes += result.nodes;
    }
    SearchBench {
        nodes,
        seconds: start.elapsed().as_secs_f64(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bench_position_is_a_valid_fen() {
        for fen in BENCH_FENS {
            assert!(Position::from_fen(fen).is_ok(), "{fen}");
        }
    }
}
