//! Opening loaders against the project's own fixtures: EPD (opcodes, CRLF, comments, bad lines),
//! PGN (comments, variations, NAGs, CRLF, BOM, FEN and Eco tags, illegal and ambiguous moves) and
//! Polyglot books (hand-built here, and built by `polyglot make-book` when it is installed, then
//! compared with python-chess's reader when that is installed).

use crate::common::tools;
use sparring::board::{Move, Position, Square};
use sparring::openings::generate::{generate, GenerateOptions};
use sparring::openings::{
    encode_move, polyglot_key, BadLinePolicy, BadLineReason, BookOptions, BookPick, OpeningBook,
    OpeningFormat, OpeningsError, PolyglotBook, PolyglotEntry,
};
use sparring::rng::Rng;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/openings")
        .join(name)
}

fn tmp(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(name)
}

fn open(name: &str, options: BookOptions) -> Result<OpeningBook, OpeningsError> {
    OpeningBook::open(fixture(name), None, options)
}

fn sans(opening: &sparring::openings::Opening) -> Vec<String> {
    let mut pos = opening.start.clone();
    opening
        .moves
        .iter()
        .map(|&mv| {
            let san = pos.san(mv);
            pos.make_move(mv);
            san
        })
        .collect()
}

/// The 1-based line of the first line of `path` that contains `needle`.
fn line_of(path: &Path, needle: &str) -> usize {
    let bytes = std::fs::read(path).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    text.lines().position(|l| l.contains(needle)).unwrap() + 1
}

#[test]
fn epd_suite_with_opcodes_comments_and_bad_lines() {
    let book = open("suite.epd", BookOptions::default()).unwrap();
    assert_eq!(book.format(), OpeningFormat::Epd);
    assert_eq!(book.len(), Some(6));
    let mut rng = Rng::new(1);
    let fens: Vec<String> = (0..6)
        .map(|i| book.opening(i, &mut rng).start.to_fen())
        .collect();
    assert_eq!(
        fens[1],
        "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 0 2".replace(" c6", " -")
    );
    // hmvc/fmvn fill in the clocks of a four-field FEN.
    assert!(fens[2].ends_with(" w KQkq - 2 3"), "{}", fens[2]);
    assert!(fens[3].ends_with(" w KQkq - 0 1"), "{}", fens[3]);
    // Leading and trailing blanks are ignored.
    assert!(fens[4].ends_with(" 4 4"));
    assert_eq!(fens[5], "8/8/8/4k3/8/8/8/4K3 w - - 12 60");
    for i in 0..6 {
        let o = book.opening(i, &mut rng);
        assert_eq!(o.id, i);
        assert!(o.moves.is_empty());
        assert_eq!(o.final_position(), o.start);
    }

    let rejected: Vec<(usize, String)> = book
        .rejected()
        .iter()
        .map(|b| (b.line, b.reason.to_string()))
        .collect();
    assert_eq!(
        rejected,
        vec![
            (
                9,
                "bad FEN: field 1 (piece placement): bad piece letter 'X' on rank 1".to_string()
            ),
            (
                11,
                "the position has no legal moves (checkmate or stalemate)".to_string()
            ),
            (
                12,
                "bad EPD opcode: hmvc: 'many' is not a valid count".to_string()
            ),
            (
                13,
                "bad FEN: expected 4 to 6 space-separated fields, found 3".to_string()
            ),
        ]
    );
    assert!(matches!(
        book.rejected()[0].reason,
        BadLineReason::Fen(sparring::board::FenError::BadPiece { ch: 'X', .. })
    ));
    let shown = book.rejected()[0].to_string();
    assert!(
        shown.ends_with(
            "suite.epd:9: bad FEN: field 1 (piece placement): bad piece letter 'X' on rank 1"
        ),
        "{shown}"
    );
}

#[test]
fn epd_with_crlf_line_ends() {
    let bytes = std::fs::read(fixture("crlf.epd")).unwrap();
    assert!(
        bytes.windows(2).any(|w| w == b"\r\n"),
        "fixture lost its CRLF"
    );
    let book = open("crlf.epd", BookOptions::default()).unwrap();
    assert_eq!(book.len(), Some(3));
    let last = book.opening(2, &mut Rng::new(0)).start;
    assert_eq!(last.to_fen(), "8/8/8/8/8/8/8/K6k b - - 5 70");
    assert_eq!(book.rejected().len(), 1);
    assert_eq!(book.rejected()[0].line, 5);
}

#[test]
fn refuse_policy_refuses_the_file_with_the_first_bad_line() {
    let options = BookOptions {
        policy: BadLinePolicy::Refuse,
        ..BookOptions::default()
    };
    match open("suite.epd", options.clone()) {
        Err(OpeningsError::Refused(bad)) => assert_eq!(bad.line, 9),
        other => panic!("expected a refusal, got {other:?}"),
    }
    match open("games.pgn", options.clone()) {
        Err(OpeningsError::Refused(bad)) => {
            assert_eq!(bad.line, line_of(&fixture("games.pgn"), "4. Ke3"))
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    // A clean file loads under either policy.
    let clean = b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n";
    let book = OpeningBook::from_bytes("clean.epd", clean, OpeningFormat::Epd, options).unwrap();
    assert_eq!(book.len(), Some(1));
}

#[test]
fn pgn_games_with_comments_variations_nags_and_tags() {
    let path = fixture("games.pgn");
    let bytes = std::fs::read(&path).unwrap();
    assert!(bytes.starts_with(b"\xEF\xBB\xBF") && bytes.windows(2).any(|w| w == b"\r\n"));
    let book = open("games.pgn", BookOptions::default()).unwrap();
    assert_eq!(book.len(), Some(5));
    let mut rng = Rng::new(0);
    let openings: Vec<_> = (0..5).map(|i| book.opening(i, &mut rng)).collect();
    assert_eq!(
        sans(&openings[0]),
        ["e4", "c5", "Nf3", "d6", "d4", "cxd4", "Nxd4", "Nf6", "Nc3", "a6", "Be3", "e5"]
    );
    assert_eq!(openings[0].start, Position::startpos());
    // The FEN tag is the start; the moves continue from it.
    assert_eq!(
        openings[1].start.to_fen(),
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    );
    assert_eq!(
        sans(&openings[1]),
        ["Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7"]
    );
    assert_eq!(
        openings[1].final_position().to_fen(),
        "r1bqk2r/1pppbppp/p1n2n2/4p3/B3P3/5N2/PPPP1PPP/RNBQ1RK1 w kq - 4 6"
    );
    assert_eq!(sans(&openings[2]), ["e5", "Nf3", "Nc6"]);
    assert_eq!(
        sans(&openings[3]),
        [
            "d4", "Nf6", "c4", "g6", "Nc3", "Bg7", "e4", "d6", "Nf3", "O-O", "Be2", "e5", "O-O",
            "Nc6"
        ]
    );
    assert_eq!(sans(&openings[4]), ["c4", "e5"]);

    let reasons: Vec<(usize, &BadLineReason)> = book
        .rejected()
        .iter()
        .map(|b| (b.line, &b.reason))
        .collect();
    assert_eq!(reasons.len(), 6, "{:#?}", book.rejected());
    match reasons[0] {
        (
            line,
            BadLineReason::Move {
                ply,
                number,
                text,
                error,
            },
        ) => {
            assert_eq!(line, line_of(&path, "4. Ke3"));
            assert_eq!((*ply, number.as_str(), text.as_str()), (7, "4.", "Ke3"));
            assert!(matches!(error, sparring::board::SanError::Illegal { .. }));
        }
        other => panic!("{other:?}"),
    }
    match reasons[1] {
        (
            _,
            BadLineReason::Move {
                ply, text, error, ..
            },
        ) => {
            assert_eq!((*ply, text.as_str()), (5, "Nd2"));
            assert!(matches!(error, sparring::board::SanError::Ambiguous { .. }));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        book.rejected()[1].to_string().split_once(": ").unwrap().1,
        "ply 5 (3. Nd2): 'Nd2' is ambiguous: it could be b1d2, f3d2"
    );
    assert!(matches!(reasons[2], (_, BadLineReason::Fen(_))));
    assert_eq!(reasons[2].0, line_of(&path, "PPPPPPPP/RNBQKBN w"));
    assert!(matches!(reasons[3], (_, BadLineReason::NoLegalMoves)));
    assert_eq!(reasons[3].0, line_of(&path, "Ends in mate"));
    assert!(matches!(reasons[4], (_, BadLineReason::Variant(v)) if v == "Chess960"));
    assert!(matches!(reasons[5], (_, BadLineReason::Syntax(_))));
    assert_eq!(reasons[5].0, line_of(&path, "(1... c5 2. Nf3"));
}

#[test]
fn pgn_plies_option_cuts_the_lines() {
    let options = BookOptions {
        plies: Some(4),
        ..BookOptions::default()
    };
    let book = open("games.pgn", options).unwrap();
    // The illegal move is at ply 7 and the ambiguous one at ply 5: beyond 4 plies both games load.
    assert_eq!(book.len(), Some(7));
    let lens: Vec<usize> = (0..7)
        .map(|i| book.opening(i, &mut Rng::new(0)).moves.len())
        .collect();
    assert_eq!(lens, [4, 4, 4, 4, 3, 4, 2]);
}

#[test]
fn start_option_and_wrapping() {
    let options = BookOptions {
        start: 5,
        ..BookOptions::default()
    };
    let book = open("suite.epd", options).unwrap();
    let ids: Vec<usize> = (0..8)
        .map(|i| book.opening(i, &mut Rng::new(0)).id)
        .collect();
    assert_eq!(ids, [4, 5, 0, 1, 2, 3, 4, 5]);
    // Past the end wraps around, as fastchess does; 0 names no opening.
    for (start, first) in [(7, 0), (11, 4), (usize::MAX, (usize::MAX - 1) % 6)] {
        let options = BookOptions {
            start,
            ..BookOptions::default()
        };
        let book = open("suite.epd", options).unwrap();
        assert_eq!(book.opening(0, &mut Rng::new(0)).id, first, "start {start}");
        assert_eq!(book.opening(6, &mut Rng::new(0)).id, first, "start {start}");
    }
    let options = BookOptions {
        start: 0,
        ..BookOptions::default()
    };
    assert!(matches!(
        open("suite.epd", options),
        Err(OpeningsError::StartOutOfRange { len: 6, .. })
    ));
}

#[test]
fn unusable_files_are_errors() {
    let nothing = b"# only a comment\nnot a fen\n";
    match OpeningBook::from_bytes("x.epd", nothing, OpeningFormat::Epd, BookOptions::default()) {
        Err(OpeningsError::NoOpenings { rejected: 1, .. }) => {}
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        OpeningBook::open(tmp("missing.epd"), None, BookOptions::default()),
        Err(OpeningsError::Io { .. })
    ));
    assert!(matches!(
        OpeningBook::open(
            fixture("../perft.epd").with_extension("txt"),
            None,
            BookOptions::default()
        ),
        Err(OpeningsError::UnknownFormat { .. })
    ));
    assert_eq!("PGN".parse::<OpeningFormat>(), Ok(OpeningFormat::Pgn));
    assert!("cbh".parse::<OpeningFormat>().is_err());
}

// ---------------------------------------------------------------------------------------------
// Polyglot

fn play(uci: &[&str]) -> (Position, Option<Square>) {
    let mut pos = Position::startpos();
    let mut ep = None;
    for text in uci {
        let mv = pos.parse_uci_move(text).unwrap();
        ep = double_push_target(mv);
        pos.make_move(mv);
    }
    (pos, ep)
}

fn double_push_target(mv: Move) -> Option<Square> {
    mv.is_double_push()
        .then(|| Square::from_index((mv.from().index() + mv.to().index()) / 2))
}

fn entry(line: &[&str], mv: &str, weight: u16) -> PolyglotEntry {
    let (pos, ep) = play(line);
    let raw = match pos.parse_uci_move(mv) {
        Ok(m) => encode_move(m),
        // An entry whose move is not legal: squares only, as a colliding key would give.
        Err(_) => {
            let sq = |s: &str| Square::parse(s).unwrap().index() as u16;
            sq(&mv[2..4]) | sq(&mv[0..2]) << 6
        }
    };
    PolyglotEntry {
        key: polyglot_key(&pos, ep),
        raw_move: raw,
        weight,
        learn: 0,
    }
}

/// A book written entry by entry: two first moves, a disabled one and an illegal one, and a main
/// line that ends with castling (stored as e1h1).
fn hand_built_book() -> PolyglotBook {
    let line = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5"];
    let mut entries = vec![
        entry(&[], "e2e4", 10),
        entry(&[], "d2d4", 5),
        entry(&[], "c2c4", 0),
        entry(&[], "e2e5", 3),
        entry(&["d2d4"], "d7d5", 1),
        entry(&line, "e1g1", 4),
    ];
    for i in 1..line.len() {
        entries.push(entry(&line[..i], line[i], i as u16));
    }
    PolyglotBook::from_entries(entries)
}

fn write_book(name: &str, book: &PolyglotBook) -> PathBuf {
    let path = tmp(name);
    std::fs::write(&path, book.to_bytes()).unwrap();
    path
}

#[test]
fn polyglot_spec_keys() {
    let vectors: [(&[&str], u64); 9] = [
        (&[], 0x463b96181691fc9c),
        (&["e2e4"], 0x823c9b50fd114196),
        (&["e2e4", "d7d5"], 0x0756b94461c50fb0),
        (&["e2e4", "d7d5", "e4e5"], 0x662fafb965db29d4),
        (&["e2e4", "d7d5", "e4e5", "f7f5"], 0x22a48b5a8e47ff78),
        (
            &["e2e4", "d7d5", "e4e5", "f7f5", "e1e2"],
            0x652a607ca3f242c1,
        ),
        (
            &["e2e4", "d7d5", "e4e5", "f7f5", "e1e2", "e8f7"],
            0x00fdd303c946bdd9,
        ),
        (
            &["a2a4", "b7b5", "h2h4", "b5b4", "c2c4"],
            0x3c8123ea7b067637,
        ),
        (
            &["a2a4", "b7b5", "h2h4", "b5b4", "c2c4", "b4c3", "a1a3"],
            0x5c3f9b829b279560,
        ),
    ];
    for (line, key) in vectors {
        let (pos, ep) = play(line);
        assert_eq!(polyglot_key(&pos, ep), key, "{line:?}");
    }
}

#[test]
fn hand_built_book_reads_back() {
    let book = hand_built_book();
    let path = write_book("hand.bin", &book);
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(bytes.len(), 16 * book.len());
    // Big-endian: the start position's key leads the file's first entry for that key.
    let start = Position::startpos();
    let moves: Vec<(String, u16)> = book
        .moves(&start)
        .iter()
        .map(|m| (m.mv.to_string(), m.weight))
        .collect();
    assert_eq!(moves, [("e2e4".to_string(), 10), ("d2d4".to_string(), 5)]);
    assert_eq!(
        book.entries_for(start.key()).len(),
        4,
        "e4, d4, c4 and e2e5"
    );

    let options = BookOptions {
        pick: BookPick::Best,
        ..BookOptions::default()
    };
    let loaded = OpeningBook::open(&path, None, options.clone()).unwrap();
    assert_eq!(loaded.len(), None);
    let line = loaded.opening(0, &mut Rng::new(1));
    let uci: Vec<String> = line.moves.iter().map(Move::to_string).collect();
    assert_eq!(
        uci,
        ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5", "e1g1"]
    );
    assert!(line.moves[6].is_castle(), "e1h1 is castling");
    let short = OpeningBook::open(
        &path,
        Some(OpeningFormat::Polyglot),
        BookOptions {
            plies: Some(3),
            ..options
        },
    )
    .unwrap();
    assert_eq!(short.opening(0, &mut Rng::new(1)).moves.len(), 3);

    // Weighted: e4 (10) against d4 (5); the weight-0 and the illegal entry are never played.
    let weighted = OpeningBook::open(&path, None, BookOptions::default()).unwrap();
    let mut rng = Rng::new(42);
    let mut e4 = 0;
    for i in 0..3000 {
        let o = weighted.opening(i, &mut rng);
        match o.moves[0].to_string().as_str() {
            "e2e4" => {
                e4 += 1;
                assert_eq!(o.moves.len(), 7);
            }
            "d2d4" => assert_eq!(o.moves.len(), 2),
            other => panic!("{other} drawn"),
        }
    }
    assert!((1850..=2150).contains(&e4), "e4 drawn {e4} times of 3000");
    // The same seed draws the same lines.
    let draw = |seed| {
        let mut rng = Rng::new(seed);
        (0..20)
            .map(|i| weighted.opening(i, &mut rng).moves)
            .collect::<Vec<_>>()
    };
    assert_eq!(draw(7), draw(7));
}

#[test]
fn promotion_entries_decode() {
    // Promotions (codes 1..4) on a position of their own.
    let pos = Position::from_fen("8/P6k/8/8/8/8/8/K7 w - - 0 1").unwrap();
    let mk = |uci: &str, weight| PolyglotEntry {
        key: pos.key(),
        raw_move: encode_move(pos.parse_uci_move(uci).unwrap()),
        weight,
        learn: 0,
    };
    let book = PolyglotBook::from_entries(vec![mk("a7a8n", 2), mk("a7a8q", 9), mk("a7a8r", 1)]);
    let raw: Vec<u16> = book
        .entries_for(pos.key())
        .iter()
        .map(|e| e.raw_move)
        .collect();
    assert_eq!(raw, [0x1c38, 0x4c38, 0x3c38]);
    let moves: Vec<String> = book.moves(&pos).iter().map(|m| m.mv.to_string()).collect();
    assert_eq!(moves, ["a7a8q", "a7a8n", "a7a8r"]);
}

#[test]
fn malformed_books_are_refused() {
    let book = hand_built_book();
    let mut bytes = book.to_bytes();
    bytes.push(0);
    let err = OpeningBook::from_bytes(
        "x.bin",
        &bytes,
        OpeningFormat::Polyglot,
        BookOptions::default(),
    );
    assert!(
        matches!(err, Err(OpeningsError::PolyglotSize { size, .. }) if size == 16 * book.len() + 1)
    );
    let mut reversed: Vec<u8> = bytes[..bytes.len() - 1]
        .chunks(16)
        .rev()
        .flatten()
        .copied()
        .collect();
    let err = OpeningBook::from_bytes(
        "x.bin",
        &reversed,
        OpeningFormat::Polyglot,
        BookOptions::default(),
    );
    assert!(matches!(
        err,
        Err(OpeningsError::PolyglotUnsorted { entry: 1, .. })
    ));
    reversed.clear();
    let err = OpeningBook::from_bytes(
        "x.bin",
        &reversed,
        OpeningFormat::Polyglot,
        BookOptions::default(),
    );
    assert!(matches!(err, Err(OpeningsError::NoOpenings { .. })));
}

/// python-chess answers for each position: its key and its book moves (`find_all`, weight >= 1).
const PYTHON_READER: &str = r#"
import sys, chess, chess.polyglot
book = chess.polyglot.open_reader(sys.argv[1])
for line in sys.stdin:
    board = chess.Board()
    for uci in line.split():
        board.push_uci(uci)
    entries = sorted(((-e.weight, e.move.uci()) for e in book.find_all(board)))
    print("%016x" % chess.polyglot.zobrist_hash(board), " ".join("%s:%d" % (m, -w) for w, m in entries))
"#;

fn python_chess_available() -> bool {
    tools::python_chess("chess.polyglot")
}

/// Compares our keys and book moves with python-chess's for every position along `lines`.
fn compare_with_python_chess(
    book_path: &Path,
    book: &PolyglotBook,
    lines: &[Vec<String>],
) -> usize {
    let mut input = String::new();
    let mut ours = Vec::new();
    for line in lines {
        for n in 0..=line.len() {
            let prefix: Vec<&str> = line[..n].iter().map(String::as_str).collect();
            input.push_str(&prefix.join(" "));
            input.push('\n');
            let (pos, ep) = play(&prefix);
            let key = polyglot_key(&pos, ep);
            let mut moves: Vec<(i32, String)> = book
                .moves_for_key(&pos, key)
                .iter()
                .map(|m| (-i32::from(m.weight), m.mv.to_string()))
                .collect();
            moves.sort();
            let moves: Vec<String> = moves.iter().map(|(w, m)| format!("{m}:{}", -w)).collect();
            ours.push(format!("{key:016x} {}", moves.join(" ")));
        }
    }
    let mut child = Command::new("python3")
        .args(["-c", PYTHON_READER, book_path.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "the python-chess reader failed");
    let theirs: Vec<String> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| l.trim_end().to_string())
        .collect();
    let ours: Vec<String> = ours.iter().map(|l| l.trim_end().to_string()).collect();
    assert_eq!(ours, theirs);
    ours.len()
}

#[test]
fn hand_built_book_agrees_with_python_chess() {
    if !python_chess_available() {
        return;
    }
    let book = hand_built_book();
    let path = write_book("hand-python.bin", &book);
    let line: Vec<String> = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5", "e1g1"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let n = compare_with_python_chess(&path, &book, &[line, vec!["d2d4".into(), "d7d5".into()]]);
    println!("{n} positions agree with python-chess");
}

/// The book games replayed as UCI lines.
fn book_lines() -> Vec<Vec<String>> {
    let games = OpeningBook::open(fixture("book.pgn"), None, BookOptions::default()).unwrap();
    (0..games.len().unwrap())
        .map(|i| {
            let o = games.opening(i, &mut Rng::new(0));
            o.moves.iter().map(Move::to_string).collect()
        })
        .collect()
}

#[test]
fn polyglot_make_book_output_reads_like_python_chess() {
    let Some(polyglot) = tools::usr_games("polyglot") else {
        return;
    };
    let bin = tmp("make-book.bin");
    let _ = std::fs::remove_file(&bin);
    let status = Command::new(polyglot)
        .args(["make-book", "-pgn"])
        .arg(fixture("book.pgn"))
        .arg("-bin")
        .arg(&bin)
        .args(["-min-game", "1"])
        .current_dir(env!("CARGO_TARGET_TMPDIR"))
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let loaded = OpeningBook::open(&bin, None, BookOptions::default()).unwrap();
    let book = loaded.polyglot().unwrap();
    assert!(book.len() > 50, "{} entries", book.len());
    // Start: e4 in games 1, 2, 3, 6, 7 (two wins 1-0 count 2 each...) and d4 in 4 and 5.
    let start: Vec<String> = book
        .moves(&Position::startpos())
        .iter()
        .map(|m| format!("{} {}", m.mv, m.weight))
        .collect();
    // e4: wins in games 1, 6, 7 (2 each), a draw in game 2 (1), a loss in game 3 (0) = 7;
    // d4: a win in game 4 (2) and a draw in game 5 (1) = 3.
    assert_eq!(start, ["e2e4 7", "d2d4 3"]);
    let lines = book_lines();
    // The castling, en-passant and promotion moves of the games are in the book as legal moves.
    let (pos, ep) = play(&["e2e4", "d7d5", "e4e5", "f7f5"]);
    let moves: Vec<String> = book
        .moves_for_key(&pos, polyglot_key(&pos, ep))
        .iter()
        .map(|m| m.mv.to_string())
        .collect();
    assert_eq!(moves, ["e5f6"]);
    let walk = book.walk(&Position::startpos(), None);
    assert!(walk.illegal.is_empty());
    if !python_chess_available() {
        return;
    }
    let n = compare_with_python_chess(&bin, book, &lines);
    println!("{n} positions agree with python-chess");
}

// ---------------------------------------------------------------------------------------------
// The command line

fn sparring(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_sparring"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn check_command_lists_rejects_and_counts() {
    let path = fixture("suite.epd");
    let (code, out, _) = sparring(&["openings", "check", path.to_str().unwrap()]);
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 6, "{out}");
    assert_eq!(
        lines[0],
        format!(
            "{}:9: bad FEN: field 1 (piece placement): bad piece letter 'X' on rank 1",
            path.display()
        )
    );
    assert!(lines[3].starts_with(&format!("{}:13: ", path.display())));
    assert_eq!(lines[4], "rejected 4");
    assert_eq!(*lines.last().unwrap(), "openings 6");

    let pgn = fixture("games.pgn");
    let (code, out, _) = sparring(&["openings", "check", pgn.to_str().unwrap(), "--plies", "4"]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().last(), Some("openings 7"));

    // Unreadable, unknown or unplayable files exit with status 2.
    let missing = tmp("nothing-here.epd");
    assert_eq!(
        sparring(&["openings", "check", missing.to_str().unwrap()]).0,
        2
    );
    let bad = tmp("all-bad.epd");
    std::fs::write(&bad, "not a fen\n").unwrap();
    let (code, _, err) = sparring(&["openings", "check", bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("no playable opening"), "{err}");
    // --format overrides the extension.
    let txt = tmp("suite.txt");
    std::fs::copy(&path, &txt).unwrap();
    assert_eq!(sparring(&["openings", "check", txt.to_str().unwrap()]).0, 2);
    let (code, out, _) = sparring(&[
        "openings",
        "check",
        txt.to_str().unwrap(),
        "--format",
        "epd",
    ]);
    assert_eq!((code, out.lines().last()), (0, Some("openings 6")));
}

#[test]
fn probe_command_prints_key_and_moves() {
    let path = write_book("probe.bin", &hand_built_book());
    let (code, out, _) = sparring(&["openings", "probe", path.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert_eq!(out, "key 463b96181691fc9c\ne2e4 10\nd2d4 5\n");
    let (pos, _) = play(&["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5"]);
    let (code, out, _) = sparring(&[
        "openings",
        "probe",
        path.to_str().unwrap(),
        "--fen",
        &pos.to_fen(),
    ]);
    assert_eq!(code, 0);
    assert_eq!(out, format!("key {:016x}\ne1g1 4\n", pos.key()));
    // The FEN's en-passant square counts when a pawn stands beside the pushed one, even pinned.
    let fen = "4k3/8/8/K2pP2r/8/8/8/8 w - d6 0 2";
    let (code, out, _) = sparring(&["openings", "probe", path.to_str().unwrap(), "--fen", fen]);
    assert_eq!(code, 0);
    let pos = Position::from_fen(fen).unwrap();
    let expected = polyglot_key(&pos, Square::parse("d6"));
    assert_ne!(expected, pos.key());
    assert_eq!(out, format!("key {expected:016x}\n"));
    if python_chess_available() {
        let py = Command::new("python3")
            .args([
                "-c",
                "import sys, chess, chess.polyglot; print('%016x' % chess.polyglot.zobrist_hash(chess.Board(sys.argv[1])))",
                fen,
            ])
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8(py.stdout).unwrap().trim(),
            format!("{expected:016x}")
        );
    }
    let bad = sparring(&[
        "openings",
        "probe",
        path.to_str().unwrap(),
        "--fen",
        "8/8/8 w - -",
    ]);
    assert_eq!(bad.0, 2);
    assert_eq!(
        sparring(&["openings", "probe", tmp("none.bin").to_str().unwrap()]).0,
        2
    );
}

#[test]
fn generated_suites_are_deterministic_and_in_the_window() {
    let options = GenerateOptions {
        plies: 6,
        count: 24,
        max_eval: 35,
        min_eval: None,
        nodes: 2000,
        seed: 9,
        margin: 40,
        sample_depth: 1,
        max_candidates: 10_000,
        weights: None,
    };
    let run = |threads| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| generate(&options, |_| {}).unwrap())
    };
    let one = run(1);
    assert_eq!(one, run(3));
    assert_eq!(one.len(), 24);
    let mut keys: Vec<u64> = one.iter().map(|o| o.position.key()).collect();
    keys.sort_unstable();
    keys.dedup();
    assert_eq!(keys.len(), 24);
    for o in &one {
        assert!(o.score.abs() <= 35);
        assert_eq!(o.moves.len(), 6);
        assert!(!o.position.in_check() && o.position.has_legal_moves());
        let replayed = o
            .moves
            .iter()
            .fold(Position::startpos(), |p, &m| p.after(m));
        assert_eq!(replayed, o.position);
    }
    // An unbalanced window: the side to move (White after 6 plies) is better.
    let unbalanced = GenerateOptions {
        count: 6,
        min_eval: Some(60),
        max_eval: 200,
        ..options.clone()
    };
    for o in generate(&unbalanced, |_| {}).unwrap() {
        assert!((60..=200).contains(&o.score), "{}", o.score);
    }

    // The command writes six-field FENs that load back.
    let out = tmp("generated.epd");
    let (code, stdout, _) = sparring(&[
        "openings",
        "generate",
        "--plies",
        "6",
        "--count",
        "24",
        "--max-eval",
        "35",
        "--nodes",
        "2000",
        "--seed",
        "9",
        "--margin",
        "40",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!((code, stdout.as_str()), (0, "openings 24\n"));
    let text = std::fs::read_to_string(&out).unwrap();
    let fens: Vec<String> = one.iter().map(|o| o.position.to_fen() + "\n").collect();
    assert_eq!(text, fens.concat());
    let book = OpeningBook::open(&out, None, BookOptions::default()).unwrap();
    assert_eq!((book.len(), book.rejected().len()), (Some(24), 0));
    let impossible = sparring(&[
        "openings",
        "generate",
        "--plies",
        "2",
        "--count",
        "2",
        "--max-eval",
        "5",
        "--min-eval",
        "9",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(impossible.0, 2);
}
