//! Notation (SAN, UCI, FEN) and the position invariants it relies on (make/unmake, incremental
//! Polyglot keys), checked over a corpus of thousands of positions reached by deterministic
//! pseudo-random playouts from the start position and every perft fixture, plus hand-picked cases.
//! One test cross-checks keys and SAN against python-chess when it is installed.

use crate::common::tools;
use sparring::board::{
    zobrist, Color, FenError, File, GenMode, Move, MoveParseError, Position, SanError,
};
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::process::{Command, Stdio};

/// xorshift64: a deterministic, dependency-free source of playout choices.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The chessprogramming wiki's perft positions 2 to 6 (castling, en passant and promotions galore).
const EXTRA_SEEDS: &[&str] = &[
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
];

/// Seed FENs as written: the start position, the extra seeds and tests/fixtures/perft.epd.
fn seed_fens() -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/perft.epd");
    let text = std::fs::read_to_string(path).expect("tests/fixtures/perft.epd");
    let mut fens = vec![Position::START_FEN.to_string()];
    fens.extend(EXTRA_SEEDS.iter().map(|s| s.to_string()));
    fens.extend(
        text.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(|l| l.split(';').next().unwrap().trim().to_string()),
    );
    fens
}

/// A playout: the seed FEN as written and the moves played from it.
struct Playout {
    fen: String,
    moves: Vec<Move>,
}

impl Playout {
    /// The start position and every position after each move.
    fn positions(&self) -> Vec<Position> {
        let mut pos = Position::from_fen_lenient(&self.fen).unwrap();
        let mut out = vec![pos.clone()];
        for &mv in &self.moves {
            pos.make_move(mv);
            out.push(pos.clone());
        }
        out
    }
}

/// `per_seed` playouts of up to `plies` moves from each seed. Half of the choices prefer a capture
/// or promotion, so playouts reach endgames and promotions rather than shuffling pieces.
fn playouts(per_seed: usize, plies: usize) -> Vec<Playout> {
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let mut out = Vec::new();
    for fen in seed_fens() {
        for _ in 0..per_seed {
            let mut pos = Position::from_fen_lenient(&fen).unwrap();
            let mut moves = Vec::new();
            for _ in 0..plies {
                let all = pos.legal_moves();
                if all.is_empty() {
                    break;
                }
                let noisy = pos.moves(GenMode::Noisy);
                let mv = if !noisy.is_empty() && rng.below(2) == 0 {
                    noisy[rng.below(noisy.len())]
                } else {
                    all[rng.below(all.len())]
                };
                pos.make_move(mv);
                moves.push(mv);
            }
            out.push(Playout {
                fen: fen.clone(),
                moves,
            });
        }
    }
    out
}

/// The positions of 8 playouts of up to 60 plies per seed: about 15,000 positions.
fn corpus() -> Vec<Position> {
    playouts(8, 60)
        .iter()
        .flat_map(Playout::positions)
        .collect()
}

#[test]
fn san_and_uci_round_trip_over_every_legal_move() {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    let positions = corpus();
    assert!(positions.len() > 5000, "{} positions", positions.len());
    for pos in &positions {
        let legal = pos.legal_moves();
        let mut seen = HashSet::new();
        for &mv in legal.iter() {
            let san = pos.san(mv);
            assert_eq!(pos.parse_san(&san), Ok(mv), "{san} in {pos}");
            assert_eq!(pos.parse_uci_move(&mv.to_string()), Ok(mv), "{mv} in {pos}");
            assert!(seen.insert(san.clone()), "two moves write {san} in {pos}");
            *counts.entry("moves").or_default() += 1;
            let body = san.trim_end_matches(['+', '#']);
            let kinds = [
                ("castles", mv.is_castle()),
                ("promotions", mv.is_promotion()),
                ("en passant", mv.is_en_passant()),
                ("checks", san.ends_with('+')),
                ("mates", san.ends_with('#')),
                // Piece moves longer than piece + [x] + square carry a disambiguation.
                (
                    "disambiguations",
                    body.starts_with(['N', 'B', 'R', 'Q'])
                        && body.len() > 3 + usize::from(mv.is_capture()),
                ),
            ];
            for (name, hit) in kinds {
                *counts.entry(name).or_default() += usize::from(hit);
            }
        }
    }
    for name in [
        "castles",
        "promotions",
        "en passant",
        "checks",
        "mates",
        "disambiguations",
    ] {
        assert!(
            counts.get(name).copied().unwrap_or(0) > 0,
            "no {name}: {counts:?}"
        );
    }
    println!("{} positions, {counts:?}", positions.len());
}

#[test]
fn fen_round_trips_over_the_corpus() {
    let mut with_ep = 0;
    for pos in corpus() {
        let fen = pos.to_fen();
        let parsed = Position::from_fen_lenient(&fen).unwrap();
        assert_eq!(parsed, pos, "{fen}");
        assert_eq!(parsed.to_fen(), fen);
        with_ep += usize::from(pos.en_passant_square().is_some());
    }
    assert!(with_ep > 0, "no position with a legal en-passant capture");
}

#[test]
fn fen_round_trips_strictly_for_fixed_positions() {
    for fen in [
        Position::START_FEN,
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        "rnbqkbnr/p1pppppp/8/8/PpP4P/8/1P1PPPP1/RNBQKBNR b KQkq c3 0 3",
        "8/8/3k4/8/4pP2/8/8/4K1B1 b - f3 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "4k3/8/8/8/8/8/8/4K2R w K - 99 120",
        "8/8/8/8/8/8/8/k1K5 b - - 0 65535",
    ] {
        assert_eq!(Position::from_fen(fen).unwrap().to_fen(), fen);
    }
    // An en-passant square whose capture is illegal (the capturing pawn is pinned along the rank)
    // is dropped, as is one no pawn can use.
    let pinned = Position::from_fen("8/8/8/KPp4r/8/8/8/4k3 w - c6 0 2").unwrap();
    assert_eq!(pinned.to_fen(), "8/8/8/KPp4r/8/8/8/4k3 w - - 0 2");
    let unused = Position::from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
    assert_eq!(
        unused.unwrap().to_fen(),
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    );
}

#[test]
fn make_unmake_restores_the_position_and_keys_stay_incremental() {
    let (mut moves, mut ep, mut castles, mut promotions, mut nulls) = (0, 0, 0, 0, 0);
    for pos in corpus() {
        assert_eq!(pos.key(), pos.compute_key(), "{pos}");
        let mut work = pos.clone();
        for &mv in pos.legal_moves().iter() {
            let undo = work.make_move(mv);
            assert_eq!(work.key(), work.compute_key(), "{mv} in {pos}");
            work.unmake_move(mv, undo);
            assert_eq!(work, pos, "{mv} in {pos}");
            moves += 1;
            ep += usize::from(mv.is_en_passant());
            castles += usize::from(mv.is_castle());
            promotions += usize::from(mv.is_promotion());
        }
        if !pos.in_check() {
            let undo = work.make_null_move();
            assert_eq!(work.key(), work.compute_key(), "null move in {pos}");
            assert_eq!(work.en_passant_square(), None);
            work.unmake_null_move(undo);
            assert_eq!(work, pos, "null move in {pos}");
            nulls += 1;
        }
    }
    assert!(moves > 100_000 && ep > 0 && castles > 0 && promotions > 0 && nulls > 0);
}

/// For each line "FEN<TAB>uci uci ...", prints one line per position (start, then after each move):
/// polyglot key, the key's en-passant term, whether an en-passant capture is legal, whether the
/// material is insufficient, then "uci=san" for every legal move.
const PYTHON_CHECK: &str = r#"
import sys
import chess, chess.polyglot
hasher = chess.polyglot.ZobristHasher(chess.polyglot.POLYGLOT_RANDOM_ARRAY)
out = []
def describe(board):
    moves = " ".join(m.uci() + "=" + board.san(m) for m in board.legal_moves)
    out.append("%016x %016x %d %d %s" % (chess.polyglot.zobrist_hash(board), hasher.hash_ep_square(board),
               board.has_legal_en_passant(), board.is_insufficient_material(), moves))
for line in sys.stdin:
    fen, _, moves = line.rstrip("\n").partition("\t")
    board = chess.Board(fen)
    describe(board)
    for uci in moves.split():
        board.push_uci(uci)
        describe(board)
print("\n".join(out))
"#;

/// Keys, SAN and insufficient material against python-chess, an independent implementation.
/// python-chess puts the en-passant file in the key whenever a pawn of the side to move stands
/// beside the pawn that just double-pushed (as the Polyglot specification says); ours only when the
/// capture is legal (the stored square's invariant). Where the two differ (a pinned capturer), the
/// keys must differ by exactly that en-passant term; those positions are counted and reported.
#[test]
fn keys_and_san_agree_with_python_chess() {
    if !tools::python_chess("chess") {
        return;
    }
    let playouts = playouts(1, 40);
    let input: String = playouts
        .iter()
        .map(|p| {
            let moves: Vec<String> = p.moves.iter().map(Move::to_string).collect();
            format!("{}\t{}\n", p.fen, moves.join(" "))
        })
        .collect();
    let mut child = Command::new("python3")
        .args(["-c", PYTHON_CHECK])
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
    assert!(output.status.success(), "python-chess check failed");
    let text = String::from_utf8(output.stdout).unwrap();
    let mut lines = text.lines();
    let (mut compared, mut ep_differences) = (0, 0);
    for pos in playouts.iter().flat_map(Playout::positions) {
        let line = lines.next().expect("one line per position");
        let fields: Vec<&str> = line.split(' ').collect();
        let hex = |s: &str| u64::from_str_radix(s, 16).unwrap();
        let (py_key, py_ep_term) = (hex(fields[0]), hex(fields[1]));
        let (py_legal_ep, py_insufficient) = (fields[2] == "1", fields[3] == "1");
        if py_key != pos.key() {
            assert!(
                File::ALL
                    .iter()
                    .any(|&f| zobrist::en_passant_key(f) == py_ep_term)
                    && !py_legal_ep
                    && pos.en_passant_square().is_none(),
                "key {:016x} vs python-chess {py_key:016x} in {pos}",
                pos.key()
            );
            assert_eq!(py_key, pos.key() ^ py_ep_term, "{pos}");
            ep_differences += 1;
        }
        assert_eq!(pos.is_insufficient_material(), py_insufficient, "{pos}");
        let py_san: HashMap<&str, &str> = fields[4..]
            .iter()
            .filter(|f| !f.is_empty())
            .map(|f| f.split_once('=').unwrap())
            .collect();
        let legal = pos.legal_moves();
        assert_eq!(legal.len(), py_san.len(), "legal move count in {pos}");
        for &mv in legal.iter() {
            let uci = mv.to_string();
            assert_eq!(
                Some(&pos.san(mv).as_str()),
                py_san.get(uci.as_str()),
                "{uci} in {pos}"
            );
        }
        compared += 1;
    }
    assert!(compared >= 300, "only {compared} positions compared");
    println!(
        "{compared} positions agree with python-chess; {ep_differences} differ only by an \
         en-passant file whose capture is illegal"
    );
}

fn pos(fen: &str) -> Position {
    Position::from_fen(fen).unwrap()
}

fn uci(p: &Position, text: &str) -> Move {
    p.parse_uci_move(text).unwrap()
}

#[test]
fn san_disambiguates_by_file_then_rank_then_square() {
    let rooks = pos("4k3/8/8/8/8/8/4K3/R6R w - - 0 1");
    assert_eq!(rooks.san(uci(&rooks, "a1d1")), "Rad1");
    assert_eq!(rooks.san(uci(&rooks, "h1d1")), "Rhd1");
    assert_eq!(rooks.san(uci(&rooks, "a1a5")), "Ra5");
    let stacked = pos("4k3/8/8/R7/8/8/4K3/R7 w - - 0 1");
    assert_eq!(stacked.san(uci(&stacked, "a1a3")), "R1a3");
    assert_eq!(stacked.san(uci(&stacked, "a5a3")), "R5a3");
    // Three queens reach e1: each is named by what sets it apart.
    let queens = pos("1k6/8/8/8/4Q2Q/8/8/K3n2Q w - - 0 1");
    assert_eq!(queens.san(uci(&queens, "h4e1")), "Qh4xe1");
    assert_eq!(queens.san(uci(&queens, "e4e1")), "Qexe1");
    assert_eq!(queens.san(uci(&queens, "h1e1")), "Q1xe1");
    for text in ["Qh4xe1", "Qexe1", "Q1xe1", "Qh4e1"] {
        let mv = queens.parse_san(text).unwrap();
        assert_eq!(queens.san(mv).replace('x', ""), text.replace('x', ""));
    }
    // A pinned knight is no rival: only legal moves count.
    let pinned = pos("4k3/4r3/8/8/8/1N6/4N3/4K3 w - - 0 1");
    assert_eq!(pinned.san(uci(&pinned, "b3d4")), "Nd4");
    assert_eq!(pinned.parse_san("Nd4").unwrap().to_string(), "b3d4");
}

#[test]
fn san_writes_checks_mates_promotions_castling_and_pawn_captures() {
    let mut fools = Position::startpos();
    for text in ["f3", "e5", "g4"] {
        let mv = fools.parse_san(text).unwrap();
        fools.make_move(mv);
    }
    assert_eq!(fools.san(uci(&fools, "d8h4")), "Qh4#");

    let promo = pos("5r2/4P3/3k4/8/8/8/8/4K3 w - - 0 1");
    assert_eq!(promo.san(uci(&promo, "e7e8n")), "e8=N+");
    assert_eq!(promo.san(uci(&promo, "e7e8q")), "e8=Q");
    assert_eq!(promo.san(uci(&promo, "e7f8n")), "exf8=N");
    assert_eq!(promo.san(uci(&promo, "e7f8q")), "exf8=Q+");

    let castle = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    assert_eq!(castle.san(uci(&castle, "e1g1")), "O-O");
    assert_eq!(castle.san(uci(&castle, "e1c1")), "O-O-O");
    let check = pos("5k2/8/8/8/8/8/8/4K2R w K - 0 1");
    assert_eq!(check.san(uci(&check, "e1g1")), "O-O+");
    let black = pos("r3k3/8/8/8/8/8/8/3K4 b q - 0 1");
    assert_eq!(black.san(uci(&black, "e8c8")), "O-O-O+");

    let ep = pos("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3");
    let capture = uci(&ep, "e5f6");
    assert!(capture.is_en_passant());
    assert_eq!(ep.san(capture), "exf6");
    for text in ["exf6", "exf6 e.p.", "exf6e.p.", "ef6", "Pexf6"] {
        assert_eq!(ep.parse_san(text), Ok(capture), "{text}");
    }
    let open = pos("4k3/8/8/8/8/2n5/1P6/4BK2 w - - 0 1");
    assert_eq!(open.san(uci(&open, "b2c3")), "bxc3");
    assert_eq!(open.san(uci(&open, "e1c3")), "Bxc3");
}

#[test]
fn parse_san_accepts_common_variants() {
    let start = Position::startpos();
    for (text, expected) in [
        ("Nf3", "g1f3"),
        ("Ng1f3", "g1f3"),
        ("Ng1-f3", "g1f3"),
        ("Ngf3", "g1f3"),
        ("N1f3", "g1f3"),
        ("Nxf3", "g1f3"),
        ("Nf3+", "g1f3"),
        ("Nf3#", "g1f3"),
        ("Nf3!?", "g1f3"),
        ("Nf3?!", "g1f3"),
        ("Nf3!!", "g1f3"),
        ("Nf3??", "g1f3"),
        (" e4 ", "e2e4"),
        ("Pe4", "e2e4"),
        ("e2e4", "e2e4"),
        ("e2-e4", "e2e4"),
        ("Pe2e4", "e2e4"),
        ("e4!", "e2e4"),
    ] {
        assert_eq!(
            start.parse_san(text).map(|m| m.to_string()),
            Ok(expected.into()),
            "{text}"
        );
    }
    let castle = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    for (text, expected) in [
        ("O-O", "e1g1"),
        ("0-0", "e1g1"),
        ("O-O+", "e1g1"),
        ("O-O-O", "e1c1"),
        ("0-0-0", "e1c1"),
        ("0-0-0!", "e1c1"),
        ("Kg1", "e1g1"),
    ] {
        let mv = castle.parse_san(text).unwrap();
        assert!(mv.is_castle(), "{text}");
        assert_eq!(mv.to_string(), expected, "{text}");
    }
    let promo = pos("5r2/4P3/3k4/8/8/8/8/4K3 w - - 0 1");
    for (text, expected) in [
        ("e8=Q", "e7e8q"),
        ("e8Q", "e7e8q"),
        ("e8q", "e7e8q"),
        ("e8=N", "e7e8n"),
        ("e8=N+", "e7e8n"),
        ("e8N", "e7e8n"),
        ("e8=b", "e7e8b"),
        ("exf8=R", "e7f8r"),
        ("exf8r", "e7f8r"),
        ("ef8=Q+", "e7f8q"),
        ("Pexf8=Q", "e7f8q"),
        ("exf8b", "e7f8b"),
    ] {
        assert_eq!(
            promo.parse_san(text).map(|m| m.to_string()),
            Ok(expected.into()),
            "{text}"
        );
    }
}

#[test]
fn parse_san_errors_are_typed() {
    let start = Position::startpos();
    for text in [
        "", "+", "!?", "N", "Nz9", "hello", "e9", "Qxx4", "O-O-O-O", "Nf3=Q", "1.e4", "Ñf3",
        "Ng1g2f3",
    ] {
        assert!(
            matches!(start.parse_san(text), Err(SanError::Malformed { .. })),
            "{text}: {:?}",
            start.parse_san(text)
        );
    }
    for (text, reason) in [
        ("e5", "the piece cannot move to that square"),
        ("Nf6", "none of those pieces can move to that square"),
        ("Nbf6", "the piece cannot move to that square"),
        ("Bb5", "none of those pieces can move to that square"),
        ("Nd2", "the destination holds a piece of the side to move"),
        ("O-O", "castling is not possible here"),
        ("e4=Q", "only a pawn reaching the last rank can promote"),
        ("Nc3f3", "the side to move has no such piece"),
        ("exd3", "the piece cannot move to that square"),
    ] {
        match start.parse_san(text) {
            Err(SanError::Illegal { reason: r, .. }) => {
                assert!(r.starts_with(reason), "{text}: {r}")
            }
            other => panic!("{text}: {other:?}"),
        }
    }
    let pinned = pos("4k3/4r3/8/8/8/1N6/4N3/4K3 w - - 0 1");
    assert!(matches!(
        pinned.parse_san("Ned4"),
        Err(SanError::Illegal {
            reason: "it would leave the king in check",
            ..
        })
    ));
    let ambiguous = |p: &Position, text: &str| match p.parse_san(text) {
        Err(SanError::Ambiguous { candidates, .. }) => candidates,
        other => panic!("{text}: {other:?}"),
    };
    let rooks = pos("4k3/8/8/8/8/8/4K3/R6R w - - 0 1");
    assert_eq!(ambiguous(&rooks, "Rd1"), ["a1d1", "h1d1"]);
    let queens = pos("1k6/8/8/8/4Q2Q/8/8/K3n2Q w - - 0 1");
    let mut three = ambiguous(&queens, "Qxe1");
    three.sort();
    assert_eq!(three, ["e4e1", "h1e1", "h4e1"]);
    let mut two = ambiguous(&queens, "Q4e1");
    two.sort();
    assert_eq!(two, ["e4e1", "h4e1"]);
    let promo = pos("5r2/4P3/3k4/8/8/8/8/4K3 w - - 0 1");
    assert_eq!(
        ambiguous(&promo, "e8"),
        ["e7e8q", "e7e8r", "e7e8b", "e7e8n"]
    );
    let err = rooks.parse_san("Rd1").unwrap_err().to_string();
    assert!(err.contains("a1d1, h1d1"), "{err}");
}

#[test]
fn parse_uci_move_errors_are_typed() {
    let start = Position::startpos();
    for text in [
        "", "e2", "e2e", "e2e4x", "e2e9", "E2E4", "e7e8k", "e2e4qq", "i2i4", "e2 e4",
    ] {
        assert_eq!(
            start.parse_uci_move(text),
            Err(MoveParseError::Malformed {
                text: text.trim().to_string()
            }),
            "{text}"
        );
    }
    let illegal = |p: &Position, text: &str| match p.parse_uci_move(text) {
        Err(MoveParseError::Illegal { reason, .. }) => reason,
        other => panic!("{text}: {other:?}"),
    };
    assert_eq!(
        illegal(&start, "e2e5"),
        "the piece cannot move to that square"
    );
    assert_eq!(illegal(&start, "e3e4"), "the from square is empty");
    assert_eq!(
        illegal(&start, "e7e5"),
        "the piece on the from square belongs to the side not to move"
    );
    assert_eq!(
        illegal(&start, "e2e4q"),
        "only a pawn reaching the last rank can promote"
    );
    assert_eq!(
        illegal(&start, "d1d2"),
        "the destination holds a piece of the side to move"
    );
    assert!(illegal(&start, "e1g1").starts_with("castling is not possible"));
    assert!(illegal(&start, "e1h1").starts_with("castling is not possible"));
    assert_eq!(
        illegal(&start, "0000"),
        "the null move only passes the turn"
    );
    let promo = pos("5r2/4P3/3k4/8/8/8/8/4K3 w - - 0 1");
    assert!(illegal(&promo, "e7e8").starts_with("a pawn reaching the last rank must name"));
    assert_eq!(uci(&promo, "e7e8Q").to_string(), "e7e8q");
    let pinned = pos("4k3/4r3/8/8/8/1N6/4N3/4K3 w - - 0 1");
    assert_eq!(illegal(&pinned, "e2d4"), "it would leave the king in check");
    let check = pos("4k3/4r3/8/8/8/8/8/R3K3 w Q - 0 1");
    assert_eq!(illegal(&check, "a1a2"), "it would leave the king in check");
    assert!(illegal(&check, "e1a1").starts_with("castling is not possible"));
    // The king-takes-rook form is only castling: the king never captures its own rook.
    let castle = pos("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1");
    assert_eq!(uci(&castle, "e8h8").to_string(), "e8g8");
    assert_eq!(uci(&castle, "e8a8").to_string(), "e8c8");
}

#[test]
fn lenient_fen_accepts_a_double_bishop_check_that_strict_refuses() {
    let fen = "B6b/8/8/8/2K5/5k2/8/b6B b - - 0 1";
    assert!(matches!(
        Position::from_fen(fen),
        Err(FenError::ImpossibleCheck { checkers: 2, .. })
    ));
    let pos = Position::from_fen_lenient(fen).unwrap();
    assert_eq!(pos.checkers().len(), 2);
    assert_eq!(pos.to_fen(), fen);
}

/// Issue 10: the fullmove field's message says "a number from 1 to 65535", and both parsers now
/// hold to it (the lenient one used to turn 0 into 1).
#[test]
fn fullmove_number_zero_is_refused_in_both_modes() {
    let zero = "4k3/8/8/8/8/8/8/4K3 w - - 0 0";
    for result in [Position::from_fen(zero), Position::from_fen_lenient(zero)] {
        let err = result.unwrap_err();
        assert_eq!(
            err,
            FenError::BadFullmoveNumber {
                found: "0".to_string()
            }
        );
        assert_eq!(
            err.to_string(),
            "field 6 (fullmove number): '0' is not a number from 1 to 65535"
        );
    }
    for (field, accepted) in [
        ("1", true),
        ("65535", true),
        ("65536", false),
        ("-1", false),
        ("+5", false),
    ] {
        let fen = format!("4k3/8/8/8/8/8/8/4K3 w - - 0 {field}");
        assert_eq!(Position::from_fen(&fen).is_ok(), accepted, "{fen}");
        assert_eq!(Position::from_fen_lenient(&fen).is_ok(), accepted, "{fen}");
        // The halfmove clock takes the same plain digits (and 0).
        let fen = format!("4k3/8/8/8/8/8/8/4K3 w - - {field} 1");
        assert_eq!(Position::from_fen(&fen).is_ok(), accepted, "{fen}");
    }
    assert!(Position::from_fen("4k3/8/8/8/8/8/8/4K3 w - - 0 1").is_ok());
}

/// One test per `FenError` variant: the parse fails with that variant and the message names the
/// FEN field at fault.
macro_rules! fen_error_tests {
    ($($name:ident: $fen:expr => $pattern:pat, $field:expr;)*) => {$(
        #[test]
        fn $name() {
            let err = Position::from_fen($fen).unwrap_err();
            assert!(matches!(err, $pattern), "{}: {err:?}", $fen);
            let message = err.to_string();
            assert!(message.contains($field), "{message}");
        }
    )*};
}

fen_error_tests! {
    fen_error_field_count: "8/8/8/8 w" => FenError::FieldCount { found: 2 }, "fields";
    fen_error_rank_count: "8/8/8/8/8/8/8 w - - 0 1" => FenError::RankCount { found: 7 }, "field 1";
    fen_error_bad_piece: "rnbqkbnx/8/8/8/8/8/8/4K3 w - - 0 1"
        => FenError::BadPiece { rank: '8', ch: 'x' }, "field 1";
    fen_error_rank_too_long: "4k4/8/8/8/8/8/8/4K3 w - - 0 1"
        => FenError::RankTooLong { rank: '8' }, "field 1";
    fen_error_rank_too_short: "4k3/8/8/8/8/8/8/4K2 w - - 0 1"
        => FenError::RankTooShort { rank: '1', squares: 7 }, "field 1";
    fen_error_missing_king: "8/8/8/8/8/8/8/4K3 w - - 0 1"
        => FenError::MissingKing { color: Color::Black }, "field 1";
    fen_error_extra_king: "4k3/8/8/8/8/8/8/3KK3 w - - 0 1"
        => FenError::ExtraKing { count: 2, .. }, "field 1";
    fen_error_pawn_on_back_rank: "4k2P/8/8/8/8/8/8/4K3 w - - 0 1"
        => FenError::PawnOnBackRank { .. }, "field 1";
    fen_error_too_many_pieces: "4k3/8/8/8/8/P7/PPPPPPPP/4K3 w - - 0 1"
        => FenError::TooManyPieces { count: 9, what: "pawns", .. }, "field 1";
    fen_error_bad_side_to_move: "4k3/8/8/8/8/8/8/4K3 x - - 0 1"
        => FenError::BadSideToMove { .. }, "field 2";
    fen_error_opponent_in_check: "k7/8/8/8/8/8/8/R3K3 w - - 0 1"
        => FenError::OpponentInCheck { .. }, "field 2";
    fen_error_impossible_check: "4k3/8/8/8/8/3n4/2n5/4K3 w - - 0 1"
        => FenError::ImpossibleCheck { checkers: 2, .. }, "field 2";
    fen_error_bad_castling: "4k3/8/8/8/8/8/8/4K3 w Xk - 0 1"
        => FenError::BadCastling { .. }, "field 3";
    fen_error_castling_mismatch: "4k3/8/8/8/8/8/8/4K3 w K - 0 1"
        => FenError::CastlingMismatch { right: 'K', .. }, "field 3";
    fen_error_bad_en_passant: "4k3/8/8/8/8/8/8/4K3 w - e9 0 1"
        => FenError::BadEnPassant { .. }, "field 4";
    fen_error_impossible_en_passant: "4k3/8/8/8/4P3/8/8/4K3 w - e3 0 1"
        => FenError::ImpossibleEnPassant { .. }, "field 4";
    fen_error_bad_halfmove_clock: "4k3/8/8/8/8/8/8/4K3 w - - x 1"
        => FenError::BadHalfmoveClock { .. }, "field 5";
    fen_error_bad_fullmove_number: "4k3/8/8/8/8/8/8/4K3 w - - 0 0"
        => FenError::BadFullmoveNumber { .. }, "field 6";
}
