//! Pondering UCI engines in the match runner (`ponder = true`, cutechess's `ponder`): the mock
//! engine (tests/mock/engine.rs) predicts its opponent's reply, and the log of what it was sent
//! shows `go ponder` on the predicted position, `ponderhit` when the prediction was played,
//! `stop` and a fresh `go` when not, and `stop` when the game ends; an engine that ignores
//! `stop` loses on the existing timeout instead of hanging the run.

use crate::common::mock;
use mock::mock_engine;
use sparring::arena::{run_tournament, MatchConfig, RunOptions, StartPosition};
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn out_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("ponder-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Two games (colours swapped) of the pondering mock (`flags`) against a plain mock, 10 moves
/// each; the commands the ponderer received, and the PGN.
fn play(name: &str, limit: &str, flags: &[&str]) -> (String, String) {
    let dir = out_dir(name);
    let log = dir.join("ponderer.log");
    let mut args: Vec<String> = flags.iter().map(|f| format!("\"{f}\"")).collect();
    args.push(format!("\"--log\", \"{}\"", log.display()));
    let text = format!(
        r#"
[tournament]
rounds = 1
concurrency = 1
timeout_ms = 700
[time_control]
{limit}
[adjudication]
max_moves = 10
[output]
dir = "{out}"
[[engine]]
name = "ponderer"
ponder = true
uci = {{ command = "{mock}", args = [{args}] }}
[[engine]]
name = "plain"
uci = {{ command = "{mock}" }}
"#,
        out = dir.join("out").display(),
        mock = mock_engine(),
        args = args.join(", ")
    );
    let config = MatchConfig::parse(&text, "ponder.toml").unwrap_or_else(|e| panic!("{e}"));
    run_tournament(
        &config,
        Arc::new(StartPosition),
        &RunOptions::default(),
        &mut |_| {},
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let sent = std::fs::read_to_string(&log).unwrap();
    let pgn = std::fs::read_to_string(dir.join("out").join("games.pgn")).unwrap();
    (sent, pgn)
}

/// The `[Termination ...]` values of a PGN's games.
fn terminations(pgn: &str) -> Vec<&str> {
    pgn.lines()
        .filter_map(|l| l.strip_prefix("[Termination \""))
        .map(|l| l.trim_end_matches("\"]"))
        .collect()
}

/// The lines of `sent` that start with one of `prefixes`, cut to their first two words.
fn sequence<'a>(sent: &'a str, prefixes: &[&str]) -> Vec<String> {
    sent.lines()
        .filter(|l| prefixes.iter().any(|p| l.starts_with(p)))
        .map(|l| {
            l.split_whitespace()
                .take(2)
                .collect::<Vec<&'a str>>()
                .join(" ")
        })
        .collect()
}

#[test]
fn a_predicted_reply_is_a_ponderhit_and_the_clock_games_finish_normally() {
    let (sent, pgn) = play("hit", "clock = \"60+1\"", &["--ponder"]);
    assert!(
        sent.lines()
            .any(|l| l == "setoption name Ponder value true"),
        "{sent}"
    );
    // The ponder search gets the clocks, on the position after the predicted reply.
    assert!(
        sent.lines()
            .any(|l| l.starts_with("go ponder wtime ") && l.contains(" btime ")),
        "{sent}"
    );
    let seq = sequence(&sent, &["go", "ponderhit", "stop", "ucinewgame"]);
    // Every ponder search ends in `ponderhit` (the plain mock plays the predicted move), or
    // in `stop` when the game ended while it pondered; never in a second `go`.
    for (i, line) in seq.iter().enumerate() {
        if line == "go ponder" {
            let next = seq.get(i + 1).map(String::as_str);
            assert!(
                matches!(next, Some("ponderhit" | "stop")),
                "after go ponder: {next:?} in {seq:?}"
            );
        }
    }
    let hits = seq.iter().filter(|l| *l == "ponderhit").count();
    assert!(hits >= 10, "{hits} ponder hits in {seq:?}");
    // A game that ends on the opponent's move (here the first: a repetition) finds the
    // ponderer still thinking: it is stopped.
    assert!(seq.iter().any(|l| l == "stop"), "{seq:?}");
    played_out(&pgn);
}

#[test]
fn a_missed_prediction_is_stopped_and_searched_afresh() {
    let (sent, pgn) = play("miss", "nodes = 300", &["--ponder-miss"]);
    let seq = sequence(&sent, &["position", "go", "ponderhit", "stop"]);
    assert!(!seq.iter().any(|l| l == "ponderhit"), "{seq:?}");
    let ponders = seq.iter().filter(|l| *l == "go ponder").count();
    assert!(ponders >= 10, "{seq:?}");
    for (i, line) in seq.iter().enumerate() {
        if line == "go ponder" {
            // `stop`, then the real position and a normal `go`.
            let next: Vec<&str> = seq[i + 1..].iter().take(3).map(String::as_str).collect();
            assert!(
                next == ["stop", "position startpos", "go nodes"] || next == ["stop"],
                "after go ponder: {next:?}"
            );
        }
    }
    assert!(
        sent.lines().any(|l| l == "go ponder nodes 300"),
        "the ponder search gets the engine's own limit: {sent}"
    );
    played_out(&pgn);
}

/// Both games ended on the board or by adjudication: nobody lost by failing.
fn played_out(pgn: &str) {
    let terms = terminations(pgn);
    assert_eq!(terms.len(), 2, "{pgn}");
    assert!(
        terms.iter().all(|t| *t == "normal" || *t == "adjudication"),
        "{pgn}"
    );
}

#[test]
fn an_engine_that_ignores_stop_loses_on_the_timeout_and_the_run_goes_on() {
    let (sent, pgn) = play("ignore", "nodes = 300", &["--ponder-miss", "--ignore-stop"]);
    // At its second move it never answers the `stop`: the move's deadline (the 700 ms
    // timeout) ends the game, and the engine is started afresh for the next one.
    let terms = terminations(&pgn);
    assert_eq!(terms, ["stalled connection", "stalled connection"], "{pgn}");
    assert!(pgn.contains("connection stalls"), "{pgn}");
    assert!(sent.lines().filter(|l| *l == "uci").count() >= 2, "{sent}");
}
