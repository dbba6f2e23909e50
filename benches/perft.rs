//! Side-by-side move-generator benchmark: sparring against cozy-chess in the same process, both
//! single-threaded, bulk-counted and with every leaf move played. Prints M nodes/s and the ratio.
//! Run: `cargo bench --bench perft` (quote medians across processes).
//!
//! The two run alternately, one repeat each in turn, and each is timed by the CPU time of this
//! thread (best of `REPEATS`): on a shared machine a load that comes and goes then falls on both
//! alike, where wall-clock time of all of one side's runs then all of the other's did not.

use cozy_chess::Board;
use sparring::board::perft::{perft, perft_full};
use sparring::board::perft_suite::KIWIPETE;
use sparring::board::Position;

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
                // Leaves are counted in this frame, as sparring's `perft_full` counts them.
                nodes += if depth == 1 {
                    std::hint::black_box(&child);
                    1
                } else {
                    cozy_perft(&child, depth - 1, bulk)
                };
            }
        }
        false
    });
    nodes
}

/// CPU seconds this thread has run.
fn thread_cpu_seconds() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant libc defines.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(status, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// The leaf count `run` returns and the CPU seconds it took.
fn timed(run: impl FnOnce() -> u64) -> (u64, f64) {
    let start = thread_cpu_seconds();
    let nodes = run();
    (nodes, thread_cpu_seconds() - start)
}

fn main() {
    const REPEATS: u32 = 5;
    let cases = [
        ("startpos perft(6) bulk", Position::START_FEN, 6, true),
        ("kiwipete perft(5) bulk", KIWIPETE, 5, true),
        (
            "startpos perft(6) make-every-leaf",
            Position::START_FEN,
            6,
            false,
        ),
        ("kiwipete perft(5) make-every-leaf", KIWIPETE, 5, false),
    ];
    // Like other bench harnesses, arguments that are not flags select the cases whose label
    // contains one of them (`cargo bench --bench perft -- kiwipete`).
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with('-'))
        .collect();
    println!(
        "{:<36} {:>12} {:>12} {:>8}",
        "case", "sparring", "cozy-chess", "ratio"
    );
    for (label, fen, depth, bulk) in cases {
        if !filters.is_empty() && !filters.iter().any(|f| label.contains(f.as_str())) {
            continue;
        }
        let board: Board = fen.parse().unwrap();
        let (mut ours, mut theirs) = (f64::INFINITY, f64::INFINITY);
        for _ in 0..REPEATS {
            let mut pos = Position::from_fen(fen).unwrap();
            let (nodes, seconds) = timed(|| match bulk {
                true => perft(&mut pos, depth),
                false => perft_full(&mut pos, depth),
            });
            ours = ours.min(seconds);
            let (cozy_nodes, cozy_seconds) = timed(|| cozy_perft(&board, depth, bulk));
            theirs = theirs.min(cozy_seconds);
            assert_eq!(nodes, cozy_nodes, "node counts differ for {label}");
        }
        let mut pos = Position::from_fen(fen).unwrap();
        let nodes = perft(&mut pos, depth) as f64;
        let (ours, theirs) = (nodes / ours / 1e6, nodes / theirs / 1e6);
        println!(
            "{label:<36} {ours:>8.1} M/s {theirs:>8.1} M/s {:>8.2}",
            ours / theirs
        );
    }
}
