//! Side-by-side move-generator benchmark: sparring against cozy-chess in the same process, both
//! single-threaded, bulk-counted and with every leaf move played. Prints M nodes/s and the ratio.
//! Run: `cargo bench --bench perft` (best of 5 runs per case; quote medians across processes).

use cozy_chess::Board;
use sparring::board::perft_suite::{perft_suite, KIWIPETE};
use std::time::Instant;

fn cozy_perft(board: &Board, depth: u32, bulk: bool) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut nodes = 0;
    board.generate_moves(|moves| {
        if bulk && depth == 1 {
            nodes += moves.len() as u64;
        } else {
            for mv in moves {
                let mut child = board.clone();
                child.play_unchecked(mv);
                nodes += cozy_perft(&child, depth - 1, bulk);
            }
        }
        false
    });
    nodes
}

fn main() {
    const REPEATS: u32 = 5;
    let ours = perft_suite(REPEATS);
    let cases = [
        (Board::default(), 6, true),
        (KIWIPETE.parse::<Board>().unwrap(), 5, true),
        (Board::default(), 6, false),
        (KIWIPETE.parse::<Board>().unwrap(), 5, false),
    ];
    println!(
        "{:<36} {:>12} {:>12} {:>8}",
        "case", "sparring", "cozy-chess", "ratio"
    );
    for (timing, (board, depth, bulk)) in ours.iter().zip(cases) {
        let mut best = f64::INFINITY;
        let mut nodes = 0;
        for _ in 0..REPEATS {
            let start = Instant::now();
            nodes = cozy_perft(&board, depth, bulk);
            best = best.min(start.elapsed().as_secs_f64());
        }
        assert_eq!(
            nodes, timing.nodes,
            "node counts differ for {}",
            timing.label
        );
        let cozy = nodes as f64 / best / 1e6;
        println!(
            "{:<36} {:>8.1} M/s {:>8.1} M/s {:>8.2}",
            timing.label,
            timing.mnps(),
            cozy,
            timing.mnps() / cozy
        );
    }
}
