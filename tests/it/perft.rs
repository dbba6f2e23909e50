//! Move-generator correctness: the standard perft positions, our own fixture suite, and every entry
//! of the shared 126-position suite (skipped with a reason when ../shared is absent).

use crate::common::tools;
use sparring::board::{perft, Position};

/// The six positions of the chessprogramming wiki's "Perft Results" page, depths that run in seconds.
const STANDARD: &[(&str, &[u64])] = &[
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        &[20, 400, 8902, 197_281, 4_865_609],
    ),
    (
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        &[48, 2039, 97_862, 4_085_603],
    ),
    (
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        &[14, 191, 2812, 43_238, 674_624, 11_030_083],
    ),
    (
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        &[6, 264, 9467, 422_333, 15_833_292],
    ),
    (
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        &[44, 1486, 62_379, 2_103_487],
    ),
    (
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        &[46, 2079, 89_890, 3_894_594],
    ),
];

#[test]
fn standard_positions() {
    for (fen, counts) in STANDARD {
        let mut pos = Position::from_fen(fen).unwrap();
        for (i, &expected) in counts.iter().enumerate() {
            let depth = i as u32 + 1;
            assert_eq!(
                perft::perft(&mut pos, depth),
                expected,
                "{fen} depth {depth}"
            );
        }
    }
}

#[test]
fn full_make_unmake_agrees_with_bulk_counting() {
    for (fen, counts) in STANDARD {
        let mut pos = Position::from_fen(fen).unwrap();
        let depth = counts.len().min(3);
        assert_eq!(
            perft::perft_full(&mut pos, depth as u32),
            counts[depth - 1],
            "{fen}"
        );
    }
}

/// Parses `FEN ;D1 n ;D2 n ...` lines and checks each depth whose count is at most `max_nodes`.
fn run_suite(text: &str, max_nodes: u64) -> usize {
    let mut checked = 0;
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut parts = line.split(';');
        let fen = parts.next().unwrap().trim();
        let mut pos = Position::from_fen_lenient(fen)
            .unwrap_or_else(|e| panic!("line {}: {fen}: {e}", number + 1));
        for entry in parts {
            let mut words = entry.split_whitespace();
            let depth: u32 = words.next().unwrap()[1..].parse().unwrap();
            let expected: u64 = words.next().unwrap().parse().unwrap();
            if expected > max_nodes {
                continue;
            }
            assert_eq!(
                perft::perft(&mut pos, depth),
                expected,
                "line {}: {fen} depth {depth}",
                number + 1
            );
            checked += 1;
        }
    }
    checked
}

#[test]
fn own_fixture_suite() {
    let text = include_str!("../fixtures/perft.epd");
    let checked = run_suite(text, u64::MAX);
    assert!(checked >= 40, "only {checked} entries checked");
}

#[test]
fn shared_perft_suite() {
    let Some(path) = tools::shared("data/perftsuite.epd") else {
        return;
    };
    let text = std::fs::read_to_string(&path).unwrap();
    // All 755 entries, depth 6 included: about 11 s in the optimised test profile.
    let checked = run_suite(&text, u64::MAX);
    println!("checked {checked} perft entries from {}", path.display());
    assert_eq!(checked, 755, "the suite has 755 depth entries");
}
