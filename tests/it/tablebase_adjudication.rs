//! Tablebase adjudication in the runner: games from 3-5 piece start positions end with the
//! tables' result and fastchess's reason, and a mate or stalemate on the board wins over it.

use sparring::board::Position;
use sparring::tablebase::{Tablebases, Wdl};
use std::path::Path;
use std::process::Command;

use crate::common::config as config_file;
use crate::common::tables;
use config_file::{Engine, MatchToml, Tablebase};
use tables::{damaged_copy, Damage};
use tables::{fixture_dir, one_set_at_a_time, shared_dir, skip};

/// One finished game: (start FEN, result, termination, plies, reason).
type Row = (String, String, String, u32, String);

/// Plays every position of `book` twice between two built-in engines at 2000 nodes with
/// `tablebase` as the `[adjudication]` table's entry, and returns games.csv's rows.
fn play(name: &str, book: &[&str], tablebase: Tablebase) -> Vec<Row> {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("tb-adjudication-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let epd = dir.join("book.epd");
    std::fs::write(&epd, book.join("\n") + "\n").unwrap();
    let path = MatchToml::new()
        .rounds(book.len() as u32)
        .nodes(2000)
        .max_moves(150)
        .tablebase(tablebase)
        .openings(&epd)
        .openings_order("sequential")
        .out(dir.join("out"))
        .engine(Engine::builtin("a").hash_mb(1))
        .engine(Engine::builtin("b").hash_mb(1))
        .write(dir.join("match.toml"));
    let out = Command::new(env!("CARGO_BIN_EXE_sparring"))
        .args(["match", path.to_str().unwrap(), "--progress", "lines"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut reader = csv::Reader::from_path(dir.join("out/games.csv")).unwrap();
    let rows: Vec<Row> = reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            (
                r[6].to_string(),
                r[7].to_string(),
                r[8].to_string(),
                r[9].parse().unwrap(),
                r[11].to_string(),
            )
        })
        .collect();
    // The end-of-run summary counts the adjudications by rule (no draw or resign rule here).
    let ending = |tail: &str| rows.iter().filter(|r| r.4.ends_with(tail)).count();
    let (by_tables, at_length) = (ending(": SyzygyTB"), ending(": maximal game length"));
    if by_tables + at_length > 0 {
        let line = format!(
            "Adjudicated games: {by_tables} by tablebase, 0 draw, 0 resign, {at_length} at the maximal length"
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains(&line), "no '{line}' in {stdout}");
    }
    let pgn = std::fs::read_to_string(dir.join("out/games.pgn")).unwrap();
    let adjudicated = rows.iter().filter(|r| r.2 == "adjudication").count();
    assert_eq!(
        pgn.matches("[Termination \"adjudication\"]").count(),
        adjudicated
    );
    rows
}

/// The result string of the tables' verdict on `fen` (a zeroed clock, no fifty-move rule).
fn expected(tables: &Tablebases, fen: &str) -> (&'static str, &'static str) {
    let pos = Position::from_fen(fen).unwrap();
    let white_to_move = fen.split(' ').nth(1) == Some("w");
    match (tables.probe_wdl(&pos).unwrap(), white_to_move) {
        (Wdl::Win, true) | (Wdl::Loss, false) => ("1-0", "White wins by adjudication: SyzygyTB"),
        (Wdl::Win, false) | (Wdl::Loss, true) => ("0-1", "Black wins by adjudication: SyzygyTB"),
        _ => ("1/2-1/2", "Draw by adjudication: SyzygyTB"),
    }
}

fn assert_adjudicated_from_the_start(rows: &[Row], tables: &Tablebases) {
    for (fen, result, termination, plies, reason) in rows {
        let (want_result, want_reason) = expected(tables, fen);
        assert_eq!(
            (
                result.as_str(),
                termination.as_str(),
                *plies,
                reason.as_str()
            ),
            (want_result, "adjudication", 0, want_reason),
            "{fen}"
        );
    }
}

#[test]
fn games_from_three_piece_positions_end_with_the_tables_verdict() {
    let _tables = one_set_at_a_time();
    let dir = fixture_dir();
    let book = [
        "8/8/8/8/8/2k5/8/K6R w - - 0 1",
        "8/8/8/8/8/8/8/K1k4R b - - 0 1",
        "8/4P3/8/8/8/8/8/K1k5 w - - 0 1",
        "8/8/8/8/8/8/k1p5/2K5 w - - 0 1",
        "8/8/8/8/8/8/2k5/K6q w - - 0 1",
    ];
    let rows = play("three", &book, Tablebase::at(&dir));
    assert_eq!(rows.len(), 2 * book.len());
    let tables = Tablebases::open(&dir).unwrap();
    assert_adjudicated_from_the_start(&rows, &tables);
    assert!(rows.iter().any(|r| r.1 == "1/2-1/2") && rows.iter().any(|r| r.1 != "1/2-1/2"));
}

#[test]
fn only_the_chosen_verdicts_end_games_and_the_piece_limit_holds() {
    let dir = fixture_dir();
    // A won KRvK and a drawn KPvK: with results = "draw" only the draw is adjudicated.
    let book = [
        "8/8/8/8/8/2k5/8/K6R w - - 0 1",
        "8/8/8/8/8/8/k1p5/2K5 w - - 0 1",
    ];
    let tb = Tablebase::at(&dir).results("draw");
    let rows = play("draw-only", &book, tb);
    for (fen, _, termination, plies, reason) in &rows {
        if fen.starts_with("8/8/8/8/8/8/k1p5") {
            assert_eq!(
                (reason.as_str(), *plies),
                ("Draw by adjudication: SyzygyTB", 0)
            );
        } else {
            assert!(!reason.contains("SyzygyTB"), "{fen}: {reason}");
            assert!(*plies > 0, "{fen}: {termination}");
        }
    }
    // pieces = 2: no position here is probed.
    let tb = Tablebase::at(&dir).pieces(2);
    let rows = play("two-pieces", &book[..1], tb);
    assert!(rows.iter().all(|r| !r.4.contains("SyzygyTB")), "{rows:?}");
}

#[test]
fn a_mate_or_stalemate_on_the_board_is_never_overridden() {
    let dir = fixture_dir();
    let book = [
        // Black is mated at the start, White mates with a capture (the clock zeroes, the tables
        // would be asked) and Black is stalemated: the rules decide each.
        "k6R/8/1K6/8/8/8/8/8 b - - 0 1",
        "k6r/8/1K6/8/8/8/8/7R w - - 3 1",
        "k7/2Q5/1K6/8/8/8/8/8 b - - 0 1",
    ];
    let rows = play("rules-first", &book, Tablebase::at(&dir));
    for (fen, result, termination, _, reason) in &rows {
        let want = if fen.starts_with("k7/2Q5") {
            ("1/2-1/2", "Draw by stalemate")
        } else {
            ("1-0", "White mates")
        };
        assert_eq!((result.as_str(), reason.as_str()), want, "{fen}");
        assert_eq!(termination, "normal", "{fen}");
    }
}

#[test]
fn games_from_five_piece_positions_end_with_the_tables_verdict() {
    let _tables = one_set_at_a_time();
    let Some(dir) = shared_dir() else {
        return skip("../shared/data/syzygy is absent");
    };
    let book = [
        "8/8/8/3k4/8/8/1r3P2/R3K3 w - - 0 1",
        "8/8/4k3/8/8/2r5/8/RR2K3 b - - 0 1",
        "8/8/4k3/8/8/2r5/8/RQ2K3 w - - 0 1",
        "8/3k4/8/8/8/2r5/8/R1B1K3 w - - 0 1",
        "8/3k4/8/8/8/2r5/8/R1N1K3 b - - 0 1",
        // 4 pieces after a capture: adjudicated at the start too.
        "8/8/8/3k4/8/8/5P2/R3K3 w - - 0 1",
    ];
    let rows = play("five", &book, Tablebase::at(&dir).pieces(5));
    assert_eq!(rows.len(), 2 * book.len());
    let tables = Tablebases::open(&dir).unwrap();
    assert_adjudicated_from_the_start(&rows, &tables);
}

#[test]
fn the_dialect_tb_options_map_to_the_toml_table() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("tb-adjudication-dialect");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let dump = dir.join("dump.toml");
    let tables = fixture_dir().display().to_string();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "match",
            "-engine",
            "cmd=builtin",
            "name=a",
            "-engine",
            "cmd=builtin",
            "name=b",
            "-each",
            "nodes=500",
            "-rounds",
            "1",
            "-tb",
            &tables,
        ];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--dump-config", dump.to_str().unwrap()]);
        let out = Command::new(env!("CARGO_BIN_EXE_sparring"))
            .args(&args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = std::fs::read_to_string(&dump).unwrap();
        let doc: toml::Table = toml::from_str(&text).unwrap();
        doc["adjudication"]["tablebase"].clone()
    };
    // OpenBench's worker: -tb PATH -tbpieces N.
    let tb = run(&["-tbpieces", "3"]);
    assert_eq!(tb["path"].as_str(), Some(tables.as_str()));
    assert_eq!(tb["pieces"].as_integer(), Some(3));
    assert_eq!(tb["ignore_50"].as_bool(), Some(false));
    assert_eq!(tb["results"].as_str(), Some("both"));
    let tb = run(&["-tbignore50", "-tbadjudicate", "WIN_LOSS"]);
    assert_eq!(tb["pieces"].as_integer(), Some(0));
    assert_eq!(tb["ignore_50"].as_bool(), Some(true));
    assert_eq!(tb["results"].as_str(), Some("win_loss"));
    let tb = run(&["-tbadjudicate", "DRAW"]);
    assert_eq!(tb["results"].as_str(), Some("draw"));
    // The dump reads back as the same configuration.
    let out = Command::new(env!("CARGO_BIN_EXE_sparring"))
        .args(["match", dump.to_str().unwrap(), "--dump-config"])
        .arg(dir.join("again.toml"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("again.toml")).unwrap(),
        std::fs::read_to_string(&dump).unwrap()
    );
    // A bad value and a path without tables: status 2, naming the option.
    for (args, said) in [
        (
            vec!["-tb", &tables, "-tbadjudicate", "SOME"],
            "-tbadjudicate SOME",
        ),
        (
            vec!["-tb", "/nonexistent/syzygy"],
            "-tb /nonexistent/syzygy",
        ),
    ] {
        let mut all = vec![
            "match",
            "-engine",
            "cmd=builtin",
            "-engine",
            "cmd=builtin",
            "-each",
            "nodes=100",
        ];
        all.extend(args);
        let out = Command::new(env!("CARGO_BIN_EXE_sparring"))
            .args(&all)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains(said));
    }
}

#[test]
fn a_toml_path_without_tables_is_refused_with_its_line() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("tb-adjudication-badpath");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("m.toml");
    std::fs::write(
        &path,
        "[tournament]\n[time_control]\nnodes = 100\n[adjudication]\ntablebase = { path = \"/nonexistent/syzygy\" }\n[[engine]]\nname = \"a\"\nbuiltin = {}\n[[engine]]\nname = \"b\"\nbuiltin = {}\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_sparring"))
        .args(["match", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("adjudication.tablebase.path"), "{stderr}");
    assert!(stderr.contains("m.toml:5:"), "{stderr}");
}

/// The damages of issue 45 that crashed a match: the prober read past the end of the file
/// (SIGSEGV, SIGBUS) or panicked on a directory.
const CRASHING_DAMAGES: [(Damage, &str); 4] = [
    (Damage::Truncated, "104 bytes"),
    (Damage::Empty, "empty"),
    (Damage::Directory, "not a regular file"),
    (Damage::CorruptData, "checksum"),
];

/// A run refused before any game: status 2, the damaged file and its problem named, no panic,
/// no games written.
fn assert_refused_naming(out: &std::process::Output, file: &Path, problem: &str, out_dir: &Path) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(2),
        "stdout: {stdout}\nstderr: {stderr}"
    );
    assert!(stderr.contains(&file.display().to_string()), "{stderr}");
    assert!(stderr.contains(problem), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!stdout.contains("info string"), "{stdout}");
    assert!(!out_dir.join("games.csv").exists());
}

#[test]
fn damaged_syzygy_file_given_with_tb_refuses_the_match_with_status_2() {
    for (i, (damage, problem)) in CRASHING_DAMAGES.into_iter().enumerate() {
        let tables = damaged_copy(&format!("match-tb-{i}"), damage);
        let run_dir =
            Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("tb-damaged-dialect-{i}"));
        let _ = std::fs::remove_dir_all(&run_dir);
        std::fs::create_dir_all(&run_dir).unwrap();
        let epd = run_dir.join("book.epd");
        std::fs::write(
            &epd,
            "8/8/8/8/8/2k5/8/K6R w - -\n8/8/8/8/2k5/8/3R4/K7 w - -\n",
        )
        .unwrap();
        let openings = format!("file={}", epd.display());
        let out = Command::new(env!("CARGO_BIN_EXE_sparring"))
            .current_dir(&run_dir)
            .args([
                "match",
                "-engine",
                "cmd=builtin",
                "name=a",
                "-engine",
                "cmd=builtin",
                "name=b",
                "-each",
                "nodes=300",
                "-rounds",
                "2",
                "-openings",
                &openings,
                "format=epd",
                "order=sequential",
            ])
            .args(["-tb", tables.to_str().unwrap()])
            .output()
            .unwrap();
        assert_refused_naming(&out, &tables.join("KRvK.rtbw"), problem, &run_dir);
    }
}

#[test]
fn damaged_syzygy_file_in_a_toml_match_is_refused_with_status_2() {
    for (i, (damage, problem)) in CRASHING_DAMAGES.into_iter().enumerate() {
        let tables = damaged_copy(&format!("match-toml-{i}"), damage);
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("tb-damaged-toml-{i}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let epd = dir.join("book.epd");
        std::fs::write(
            &epd,
            "8/8/8/8/8/2k5/8/K6R w - -\n8/8/8/8/2k5/8/3R4/K7 w - -\n",
        )
        .unwrap();
        // As the adjudication's tables, then as the built-in engine's.
        for (j, with) in ["adjudication", "engine"].into_iter().enumerate() {
            let toml = MatchToml::new().rounds(2).nodes(300).max_moves(60);
            let toml = if with == "adjudication" {
                toml.tablebase(Tablebase::at(&tables))
                    .engine(Engine::builtin("a").hash_mb(1))
            } else {
                toml.engine(Engine::builtin("a").hash_mb(1).syzygy(&tables))
            };
            let out_dir = dir.join(format!("out-{j}"));
            let path = toml
                .openings(&epd)
                .out(&out_dir)
                .engine(Engine::builtin("b").hash_mb(1))
                .write(dir.join(format!("match-{j}.toml")));
            let out = Command::new(env!("CARGO_BIN_EXE_sparring"))
                .args(["match", path.to_str().unwrap(), "--progress", "lines"])
                .output()
                .unwrap();
            assert_refused_naming(&out, &tables.join("KRvK.rtbw"), problem, &out_dir);
        }
    }
}
