//! The real opening suites in ../shared/data/openings must load completely with their known counts
//! (skipped with a printed reason when ../shared is absent; excerpts in tests/fixtures/openings test
//! the same formats in every checkout), and the suites shipped in openings/ must load cleanly and
//! keep the properties openings/README.md states.

use crate::common::tools;
use sparring::eval::EvalParams;
use sparring::openings::{BadLinePolicy, BookOptions, OpeningBook};
use sparring::rng::Rng;
use sparring::search::{SearchLimits, Searcher};
use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

fn load_shared(name: &str, expected: usize) {
    let Some(path) = tools::shared(&format!("data/openings/{name}")) else {
        return;
    };
    let options = BookOptions {
        policy: BadLinePolicy::Refuse,
        ..BookOptions::default()
    };
    let start = Instant::now();
    let book = OpeningBook::open(&path, None, options).unwrap();
    let elapsed = start.elapsed();
    println!(
        "{name}: {} openings in {:.3} s, {:.1} MB",
        book.len().unwrap(),
        elapsed.as_secs_f64(),
        book.memory_bytes() as f64 / 1e6
    );
    assert_eq!(book.len(), Some(expected), "{name}");
    assert!(book.rejected().is_empty());
    // Spot checks: first and last openings decode, and their final positions are playable.
    let mut rng = Rng::new(0);
    for i in [0, expected / 2, expected - 1] {
        let o = book.opening(i, &mut rng);
        assert_eq!(o.id, i);
        assert!(o.final_position().has_legal_moves());
    }
}

#[test]
fn two_moves() {
    load_shared("2moves_v1.epd", 40_457);
}

#[test]
fn noob_three_moves() {
    load_shared("noob_3moves.epd", 150_932);
}

#[test]
fn uho_4060() {
    load_shared("UHO_4060_v4.epd", 241_670);
}

#[test]
fn eight_moves_plus_90() {
    load_shared("8mvs_+90_+99.epd", 8_533);
}

#[test]
fn eight_moves_pgn() {
    load_shared("8moves_v3.pgn", 34_700);
    if let Some(path) = tools::shared("data/openings/8moves_v3.pgn") {
        let book = OpeningBook::open(&path, None, BookOptions::default()).unwrap();
        let mut rng = Rng::new(0);
        assert!((0..34_700).all(|i| book.opening(i, &mut rng).moves.len() == 16));
    }
}

/// The excerpts in tests/fixtures/openings (the first 20 positions or 12 games of each shared book,
/// byte for byte: see SOURCES.md there) test the books' formats in any checkout: CRLF line ends,
/// full six-field FENs, the PGN's non-standard `Eco` tag and 16-ply games.
fn load_excerpt(name: &str, source: &str, expected: usize) -> OpeningBook {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/openings")
        .join(name);
    let options = BookOptions {
        policy: BadLinePolicy::Refuse,
        ..BookOptions::default()
    };
    let book = OpeningBook::open(&path, None, options).unwrap();
    assert_eq!(book.len(), Some(expected), "{name}");
    let mut rng = Rng::new(0);
    for i in 0..expected {
        let pos = book.opening(i, &mut rng).final_position();
        assert!(pos.has_legal_moves(), "{name} opening {i}");
        assert_eq!(pos.side_to_move(), sparring::board::Color::White, "{name}");
    }
    // Where ../shared is there, the excerpt must still be the start of its source.
    if let Some(shared) = tools::shared(&format!("data/openings/{source}")) {
        let full = std::fs::read(&shared).unwrap();
        let excerpt = std::fs::read(&path).unwrap();
        assert!(
            full.starts_with(&excerpt),
            "{name} is not a prefix of {source}"
        );
    }
    book
}

#[test]
fn excerpts_of_the_shared_epd_books() {
    for (name, source) in [
        ("2moves_v1-head.epd", "2moves_v1.epd"),
        ("noob_3moves-head.epd", "noob_3moves.epd"),
        ("UHO_4060_v4-head.epd", "UHO_4060_v4.epd"),
        ("8mvs_+90_+99-head.epd", "8mvs_+90_+99.epd"),
    ] {
        load_excerpt(name, source, 20);
    }
    let crlf = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/openings/8mvs_+90_+99-head.epd"
    ))
    .unwrap();
    assert_eq!(
        crlf.windows(2).filter(|w| w == b"\r\n").count(),
        20,
        "the excerpt keeps its CRLF line ends"
    );
}

#[test]
fn excerpt_of_the_shared_pgn_book() {
    let book = load_excerpt("8moves_v3-head.pgn", "8moves_v3.pgn", 12);
    let mut rng = Rng::new(0);
    for i in 0..12 {
        let opening = book.opening(i, &mut rng);
        assert_eq!(opening.moves.len(), 16, "game {i}");
        assert_eq!(opening.final_position().fullmove_number(), 9);
    }
    let text = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/openings/8moves_v3-head.pgn"
    ))
    .unwrap();
    let text = String::from_utf8(text).unwrap();
    assert!(text.contains("[Eco \"") && text.contains("\r\n"));
}

fn shipped(name: &str) -> OpeningBook {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("openings")
        .join(name);
    let options = BookOptions {
        policy: BadLinePolicy::Refuse,
        ..BookOptions::default()
    };
    OpeningBook::open(path, None, options).unwrap()
}

/// Distinct, playable, not in check, White to move after 8 plies (fullmove 5).
fn check_shipped(book: &OpeningBook, count: usize) {
    assert_eq!(book.len(), Some(count));
    let mut keys = HashSet::new();
    let mut rng = Rng::new(0);
    for i in 0..count {
        let pos = book.opening(i, &mut rng).final_position();
        assert!(keys.insert(pos.key()), "duplicate {pos}");
        assert!(!pos.in_check() && pos.has_legal_moves(), "{pos}");
        assert_eq!(pos.side_to_move(), sparring::board::Color::White);
        assert_eq!(pos.fullmove_number(), 5);
    }
}

/// Every 50th position searched again as the generator did (the hand-set weights it was run with,
/// 10,000 nodes, cleared 1 MB table). The suites were made by the search of their time; a later,
/// stronger search sees some positions differently (a tactic it now finds), so the check is that
/// at least four in five still score inside the window with 30 cp of slack, not each one (after
/// session 13's null-move change, 3 of the unbalanced suite's 20 fall below it).
fn check_scores(book: &OpeningBook, min: i32, max: i32) {
    let mut searcher = Searcher::new(Arc::new(EvalParams::handset()), 1);
    let mut rng = Rng::new(0);
    let (mut inside, mut outside) = (0, Vec::new());
    for i in (0..book.len().unwrap()).step_by(50) {
        let pos = book.opening(i, &mut rng).final_position();
        searcher.clear();
        let score = searcher
            .search(&pos, &[], &SearchLimits::nodes(10_000), |_| {})
            .score
            .as_cp();
        if (min - 30..=max + 30).contains(&score) {
            inside += 1;
        } else {
            outside.push(format!("{pos}: {score}"));
        }
    }
    assert!(
        outside.len() * 5 <= inside + outside.len(),
        "more than a fifth outside {min}..={max}: {outside:?}"
    );
}

#[test]
fn shipped_balanced_suite() {
    let book = shipped("balanced-8ply.epd");
    check_shipped(&book, 1500);
    check_scores(&book, -40, 40);
}

#[test]
fn shipped_unbalanced_suite() {
    let book = shipped("unbalanced.epd");
    check_shipped(&book, 1000);
    check_scores(&book, 90, 160);
}
