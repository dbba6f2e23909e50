//! The standard perft timing cases (start position and Kiwipete, bulk-counted and with every leaf
//! made), shared by `sparring bench perft` and `benches/perft.rs`.

use super::perft::{perft, perft_full};
use super::Position;
use std::time::Instant;

/// Kiwipete, the perft position that exercises castling, en passant and promotions early.
pub const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

/// One measured perft case.
#[derive(Clone, Debug)]
pub struct PerftTiming {
    /// What was counted, e.g. `startpos perft(6) bulk`.
    pub label: String,
    /// Leaf count (the same on every machine).
    pub nodes: u64,
    /// Wall-clock seconds of the fastest repeat.
    pub seconds: f64,
}

impl PerftTiming {
    /// Millions of leaves per second.
    pub fn mnps(&self) -> f64 {
        self.nodes as f64 / self.seconds.max(1e-9) / 1e6
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
                let mut pos = Position::from_fen(fen).expect("the suite's FENs are valid");
                let start = Instant::now();
                nodes = if full {
                    perft_full(&mut pos, depth)
                } else {
                    perft(&mut pos, depth)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kiwipete_parses_and_counts_its_known_perft() {
        let mut pos = Position::from_fen(KIWIPETE).unwrap();
        assert_eq!(perft(&mut pos, 2), 2039);
    }
}
