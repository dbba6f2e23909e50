//! The Syzygy prober: known answers and errors on the tables in tests/fixtures/syzygy, and
//! agreement with python-chess's `chess.syzygy` on random positions of every shared table
//! (skipped with a printed reason when python-chess or ../shared is absent).

use sparring::board::Position;
use sparring::rng::Rng;
use sparring::tablebase::{TableKind, TablebaseError, Tablebases, Wdl};
use sparring::ErrorClass;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::common::tables;
use tables::{damaged_copy, fixture_dir, one_set_at_a_time, shared_dir, skip, Damage};

fn has_python_chess() -> bool {
    Command::new("python3")
        .args(["-c", "import chess.syzygy"])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn pos(fen: &str) -> Position {
    Position::from_fen(fen).unwrap()
}

#[test]
fn fixture_tables_give_the_known_wdl_and_dtz() {
    let _turn = one_set_at_a_time();
    let tb = Tablebases::open(fixture_dir()).unwrap();
    assert_eq!(tb.max_pieces(), 3);
    // (FEN, WDL, DTZ) as python-chess 1.11 probes these tables.
    let known = [
        ("8/8/8/8/8/8/8/K1k4R b - - 0 1", -2, -22),
        ("8/8/8/8/8/2k5/8/K6R w - - 0 1", 2, 27),
        ("8/4P3/8/8/8/8/8/K1k5 w - - 0 1", 2, 1),
        // Mated: lost, one ply "to zeroing" as python-chess and Stockfish count it.
        ("k6R/8/1K6/8/8/8/8/8 b - - 1 1", -2, -1),
        // Stalemate: drawn.
        ("k7/2Q5/1K6/8/8/8/8/8 b - - 0 1", 0, 0),
        ("8/8/8/8/8/8/8/K1k5 w - - 0 1", 0, 0),
    ];
    for (fen, wdl, dtz) in known {
        let p = pos(fen);
        assert_eq!(tb.probe_wdl(&p).unwrap().value(), wdl, "{fen}");
        assert_eq!(tb.probe_dtz(&p).unwrap(), dtz, "{fen}");
    }
    // The root probe's moves: from KRvK with White to move every move keeps the win but one that
    // hangs the rook.
    let root = tb
        .probe_root(&pos("8/8/8/8/8/2k5/8/K6R w - - 0 1"))
        .unwrap();
    assert_eq!(root.wdl, Wdl::Win);
    assert!(root.moves.iter().any(|m| m.wdl == Wdl::Win && m.dtz == 27));
    assert!(root.moves.iter().all(|m| m.dtz >= 27 || m.wdl != Wdl::Win));
}

#[test]
fn missing_tables_and_unprobeable_positions_are_named() {
    let _turn = one_set_at_a_time();
    let dir = fixture_dir();
    let tb = Tablebases::open(&dir).unwrap();
    let castling = pos("8/8/8/8/8/8/8/R3K1k1 w Q - 0 1");
    assert!(matches!(
        tb.probe_wdl(&castling),
        Err(TablebaseError::CastlingRights)
    ));
    let many = pos("4r3/8/8/8/8/8/7R/K1k5 w - - 0 1");
    assert!(matches!(
        tb.probe_wdl(&many),
        Err(TablebaseError::TooManyPieces {
            pieces: 4,
            max: 3,
            ..
        })
    ));

    // The same directories share the open set; others wait until it is dropped.
    let again = Tablebases::open(dir.display().to_string()).unwrap();
    assert_eq!(again, tb);
    let other = std::env::temp_dir().join(format!("sparring-tb-other-{}", std::process::id()));
    std::fs::create_dir_all(&other).unwrap();
    // KRvK's WDL file alone.
    std::fs::copy(dir.join("KRvK.rtbw"), other.join("KRvK.rtbw")).unwrap();
    assert!(matches!(
        Tablebases::open(&other),
        Err(TablebaseError::OtherSetOpen { .. })
    ));
    drop((tb, again));
    let only_krvk = Tablebases::open(&other).unwrap();
    let kqvk = pos("8/8/8/8/8/2k5/8/K6Q w - - 0 1");
    let err = only_krvk.probe_wdl(&kqvk).unwrap_err();
    match &err {
        TablebaseError::MissingTable {
            table,
            kind,
            position_table,
            ..
        } => {
            assert_eq!((table.as_str(), *kind), ("KQvK", TableKind::Wdl));
            assert_eq!(position_table, "KQvK");
        }
        other => panic!("expected a missing table, got {other:?}"),
    }
    assert!(
        err.to_string().contains("missing table KQvK.rtbw in"),
        "{err}"
    );
    assert!(err.is_bad_input());
    let err = only_krvk
        .probe_dtz(&pos("8/4P3/8/8/8/8/8/K1k5 w - - 0 1"))
        .unwrap_err();
    assert!(err.to_string().contains("missing table KPvK.rtbw"), "{err}");
    let krvk = pos("8/8/8/8/8/2k5/8/K6R w - - 0 1");
    assert_eq!(only_krvk.probe_wdl(&krvk).unwrap(), Wdl::Win);
    let err = only_krvk.probe_dtz(&krvk).unwrap_err();
    assert!(err.to_string().contains("missing table KRvK.rtbz"), "{err}");
    drop(only_krvk);
    std::fs::remove_dir_all(&other).unwrap();
}

#[test]
fn paths_without_tables_are_refused() {
    let empty = std::env::temp_dir().join(format!("sparring-tb-empty-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    std::fs::write(empty.join("notes.rtbw"), "not a table").unwrap();
    let err = Tablebases::open(&empty).unwrap_err();
    assert!(matches!(err, TablebaseError::NoTables { .. }), "{err:?}");
    assert!(err.is_bad_input());
    let err = Tablebases::open(empty.join("nowhere")).unwrap_err();
    assert!(matches!(err, TablebaseError::Unreadable { .. }), "{err:?}");
    let err = Tablebases::open(empty.join("notes.rtbw")).unwrap_err();
    assert!(
        matches!(err, TablebaseError::NotADirectory { .. }),
        "{err:?}"
    );
    std::fs::remove_dir_all(&empty).unwrap();
}

/// A random legal position of the table `name` (either side may hold either half), without
/// castling or en passant: None when the draw put a pawn on a back rank or a king in reach.
fn random_position(name: &str, rng: &mut Rng) -> Option<String> {
    let (first, second) = name.split_once('v').unwrap();
    let strong_is_white = rng.below(2) == 0;
    let mut board = [None; 64];
    for (side, white) in [(first, strong_is_white), (second, !strong_is_white)] {
        for letter in side.chars() {
            let sq = loop {
                let sq = rng.below(64) as usize;
                if board[sq].is_none() {
                    break sq;
                }
            };
            if letter == 'P' && !(8..56).contains(&sq) {
                return None;
            }
            board[sq] = Some(if white {
                letter
            } else {
                letter.to_ascii_lowercase()
            });
        }
    }
    let mut fen = String::new();
    for rank in (0..8).rev() {
        let mut empty = 0;
        for file in 0..8 {
            match board[rank * 8 + file] {
                Some(c) => {
                    if empty > 0 {
                        fen.push_str(&empty.to_string());
                        empty = 0;
                    }
                    fen.push(c);
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            fen.push_str(&empty.to_string());
        }
        if rank > 0 {
            fen.push('/');
        }
    }
    let side = if rng.below(2) == 0 { "w" } else { "b" };
    let fen = format!("{fen} {side} - - 0 1");
    let p = Position::from_fen(&fen).ok()?;
    let them = !p.side_to_move();
    let in_reach = p.is_attacked(p.king_square(them), p.side_to_move(), p.occupied());
    (!in_reach).then_some(fen)
}

/// Table names (file stems) of the `.rtbw` files in `dir`, sorted.
fn tables_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let path = e.unwrap().path();
            (path.extension()? == "rtbw").then(|| path.file_stem()?.to_str().map(String::from))?
        })
        .collect();
    names.sort();
    names
}

/// python-chess's `(wdl, dtz)` for each FEN, or None for a table it lacks.
fn python_chess_probes(dir: &Path, fens: &[String]) -> Vec<Option<(i32, i32)>> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/syzygy_probe.py");
    let mut child = Command::new("python3")
        .arg(script)
        .arg(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let text = fens.join("\n");
    let writer = std::thread::spawn(move || input.write_all(text.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success(), "the python-chess probe failed");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            let mut parts = line.split(' ').map(|n| n.parse().ok());
            Some((parts.next()??, parts.next()??))
        })
        .collect()
}

/// Our answers and python-chess's agree on `per_table` random positions of every table in `dir`.
fn agrees_with_python_chess(dir: &Path, per_table: usize, seed: u64) -> usize {
    let tb = Tablebases::open(dir).unwrap();
    let mut fens = Vec::new();
    for (i, name) in tables_in(dir).iter().enumerate() {
        let mut rng = Rng::derive(seed, i as u64);
        let before = fens.len();
        while fens.len() < before + per_table {
            fens.extend(random_position(name, &mut rng));
        }
    }
    // A hand-made en-passant position: the prober must see the capture.
    if tables_in(dir).iter().any(|t| t == "KPvKP") {
        fens.push("8/8/8/8/3pP3/8/8/K1k5 b - e3 0 1".to_string());
    }
    let theirs = python_chess_probes(dir, &fens);
    assert_eq!(theirs.len(), fens.len());
    for (fen, expected) in fens.iter().zip(&theirs) {
        let p = pos(fen);
        let expected = expected.unwrap_or_else(|| panic!("python-chess has no table for {fen}"));
        let ours = (tb.probe_wdl(&p).unwrap().value(), tb.probe_dtz(&p).unwrap());
        assert_eq!(ours, expected, "(wdl, dtz) of {fen}");
    }
    let wins = theirs.iter().flatten().filter(|(w, _)| *w == 2).count();
    let losses = theirs.iter().flatten().filter(|(w, _)| *w == -2).count();
    assert!(wins > 0 && losses > 0, "the sample holds wins and losses");
    fens.len()
}

#[test]
fn the_prober_agrees_with_python_chess_on_random_positions_of_the_fixture_tables() {
    if !has_python_chess() {
        return skip("python-chess is not installed");
    }
    let _turn = one_set_at_a_time();
    let probed = agrees_with_python_chess(&fixture_dir(), 100, 26);
    assert!(probed > 400);
}

#[test]
fn the_prober_agrees_with_python_chess_on_random_positions_of_every_shared_table() {
    let Some(dir) = shared_dir() else {
        return skip("../shared/data/syzygy is absent");
    };
    if !has_python_chess() {
        return skip("python-chess is not installed");
    }
    let _turn = one_set_at_a_time();
    let probed = agrees_with_python_chess(&dir, 60, 2026);
    println!("{probed} positions agree");
    assert!(probed >= 60 * 40);
}

#[test]
fn damaged_syzygy_file_is_refused_by_open_as_bad_input_naming_it() {
    let _turn = one_set_at_a_time();
    for (i, (damage, problem)) in [
        (Damage::Truncated, "104 bytes"),
        (Damage::Empty, "empty"),
        (Damage::Directory, "not a regular file"),
        (Damage::WrongMagic, "magic"),
        (Damage::RandomAfterMagic, "header"),
    ]
    .into_iter()
    .enumerate()
    {
        let dir = damaged_copy(&format!("open-{i}"), damage);
        let err = Tablebases::open(&dir).expect_err(&format!("{damage:?} opened"));
        let said = err.to_string();
        let file = dir.join("KRvK.rtbw").display().to_string();
        assert!(said.contains(&file), "{damage:?}: {said}");
        assert!(said.contains(problem), "{damage:?}: {said}");
        assert_eq!(
            err.class(),
            sparring::Failure::BadInput,
            "{damage:?}: {said}"
        );
    }
    // The good tables still open once the damaged set was refused.
    assert!(Tablebases::open(fixture_dir()).is_ok());
}
