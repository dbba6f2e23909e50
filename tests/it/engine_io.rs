//! Engines that misbehave on their pipes, through the library: huge output lines, floods of
//! standard error, exits and silence during the handshake, `bestmove (none)` and `0000`, and
//! numbers that overflow. Each case has a clear outcome (an error naming the engine, or a
//! loss with a reason, or a normal game), never a panic, a hang or a process left behind.
//! All limits are node counts; no assertion depends on how fast the machine is.

use crate::common::config as config_file;
use crate::common::hostile::processes_with;
use crate::common::mock;
use config_file::{Engine, MatchToml};
use mock::mock_engine;
use sparring::arena::{
    run_tournament, PlayerError, RunOptions, StartPosition, UciCommand, UciPlayer,
};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

fn out_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("engine_io")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// One round (two games) of the mock with `args` against the built-in engine, with a draw
/// and a resign rule so reported scores reach the adjudication code.
fn mock_match(
    name: &str,
    args: &[&str],
    with_log: bool,
) -> (PathBuf, Vec<HashMap<String, String>>) {
    let dir = out_dir(name);
    let mut text = MatchToml::new()
        .rounds(1)
        .timeout_ms(20000)
        .nodes(300)
        .max_moves(12)
        .draw(4, 2, 5)
        .resign(2, 600)
        .out(&dir)
        .engine(Engine::builtin("good").hash_mb(1))
        .engine(Engine::uci("mock", mock_engine()).args(args));
    if with_log {
        text = text.engine_log(dir.join("engines.log"));
    }
    let config = text.parse();
    run_tournament(
        &config,
        Arc::new(StartPosition),
        &RunOptions::default(),
        &mut |_| {},
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"));
    let rows = csv_maps(&dir.join("games.csv"));
    assert_eq!(rows.len(), 2, "{name}: both games are recorded");
    (dir, rows)
}

fn csv_maps(path: &Path) -> Vec<HashMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    lines
        .map(|l| {
            // The reason is the last field and may hold commas.
            let fields = l.splitn(header.len(), ',');
            header
                .iter()
                .zip(fields)
                .map(|(h, f)| (h.to_string(), f.to_string()))
                .collect()
        })
        .collect()
}

/// The engine log's text once it holds `needle` (the standard-error copier may finish just
/// after the run returns); panics with the text if it never does.
fn log_with(path: &Path, needle: &str) -> String {
    for _ in 0..400 {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if text.contains(needle) {
            return text;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    panic!("{} never held `{needle}`", path.display());
}

fn assert_no_leftover(marker: &str) {
    for _ in 0..100 {
        if processes_with(marker).is_empty() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("engine processes left behind: {:?}", processes_with(marker));
}

fn mock_command(args: &[&str]) -> UciCommand {
    UciCommand {
        command: mock_engine(),
        args: args.iter().map(|a| a.to_string()).collect(),
        options: Vec::new(),
        working_dir: None,
    }
}

#[test]
fn huge_info_lines_are_cut_to_64_kib_and_the_games_are_normal() {
    let (dir, rows) = mock_match("huge-info", &["--huge-info", "3000000"], true);
    for row in &rows {
        assert!(
            matches!(row["termination"].as_str(), "normal" | "adjudication"),
            "{row:?}"
        );
    }
    let text = log_with(
        &dir.join("engines.log"),
        "mock # the line above was cut to 65536 bytes: 2934476 more discarded",
    );
    let longest = text.lines().map(str::len).max().unwrap();
    assert!(longest < 65536 + 100, "a kept line of {longest} bytes");
    assert!(
        text.contains("mock < bestmove "),
        "the line after is intact"
    );
}

#[test]
fn a_flood_of_standard_error_is_logged_capped_and_costs_no_game() {
    for with_log in [true, false] {
        let name = format!("stderr-flood-{with_log}");
        let (dir, rows) = mock_match(&name, &["--stderr-flood", "300000"], with_log);
        for row in &rows {
            assert!(
                matches!(row["termination"].as_str(), "normal" | "adjudication"),
                "{row:?}"
            );
        }
        if with_log {
            let text = log_with(&dir.join("engines.log"), "mock # the line above was cut");
            assert!(text.contains(&format!("mock ! {}", "e".repeat(1023))));
        }
    }
}

#[test]
fn bestmove_none_or_0000_loses_the_game_naming_the_answer() {
    for answer in ["(none)", "0000"] {
        let (_, rows) = mock_match(
            &format!("bestmove-{answer}"),
            &["--bestmove", answer],
            false,
        );
        for row in &rows {
            assert_eq!(row["termination"], "illegal move", "{row:?}");
            let mock_white = row["white"] == "mock";
            assert_eq!(row["result"], if mock_white { "0-1" } else { "1-0" });
            let side = if mock_white { "White" } else { "Black" };
            assert_eq!(
                row["reason"],
                format!("{side} makes an illegal move: {answer}")
            );
        }
    }
}

#[test]
fn scores_and_counts_that_overflow_are_clamped_or_ignored() {
    // The info line and the score the PGN then shows for the mock's moves.
    for (i, (info, shown)) in [
        (
            "depth 99999999999999999999 score cp 9999999999999 nodes 1e30",
            "+320.00/1 ",
        ),
        (
            "depth 4294967295 score cp -2147483648 nodes 18446744073709551615",
            "-320.00/4294967295 ",
        ),
        ("score mate -2147483648 nodes 281474976710656", "-M2000/1 "),
        (
            "score mate 99999999999999999999999 seldepth -1 time -5",
            "+M1999/1 ",
        ),
        ("score cp -99999999999999999999999 multipv 1", "-320.00/1 "),
    ]
    .iter()
    .enumerate()
    {
        let (dir, rows) = mock_match(&format!("overflow-{i}"), &["--info", info], false);
        for row in &rows {
            assert!(
                matches!(row["termination"].as_str(), "normal" | "adjudication"),
                "{info}: {row:?}"
            );
        }
        let pgn = std::fs::read_to_string(dir.join("games.pgn")).unwrap();
        assert!(pgn.contains(shown), "{info}: no `{shown}` in\n{pgn}");
    }
}

#[test]
fn an_engine_that_exits_during_the_handshake_is_named() {
    let marker = format!("engine-io-exit-{}", std::process::id());
    for step in ["uci", "isready"] {
        let spec = mock_command(&["--name", &marker, "--exit-on", step]);
        let err = UciPlayer::start(&spec, Duration::from_secs(20))
            .err()
            .expect("start-up fails");
        match &err {
            PlayerError::Spawn { command, reason } => {
                assert_eq!(command, &spec.command);
                assert!(
                    reason.starts_with("it exited during the handshake"),
                    "{err}"
                );
                assert!(reason.contains("5"), "the exit status is given: {err}");
            }
            other => panic!("{step}: {other:?}"),
        }
        assert!(err.to_string().contains("mock_engine"), "{err}");
    }
    assert_no_leftover(&marker);
}

#[test]
fn an_engine_that_never_answers_readyok_is_a_handshake_error_and_is_killed() {
    let marker = format!("engine-io-readyok-{}", std::process::id());
    let spec = mock_command(&["--name", &marker, "--no-readyok"]);
    let err = UciPlayer::start(&spec, Duration::from_millis(300))
        .err()
        .expect("start-up fails");
    assert_eq!(
        err,
        PlayerError::Handshake {
            command: spec.command.clone(),
            expected: "readyok".to_string(),
            waited_ms: 300,
        }
    );
    assert_no_leftover(&marker);
}
