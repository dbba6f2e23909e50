//! The trace protocol against the real engine: `sparring uci` answers `tunetrace`, and on every
//! shipped position its coefficients times its declared weights, blended by the engine's
//! integer taper, plus the remainder equal the `eval` it reports and the in-process evaluation.

use sparring::board::Position;
use sparring::eval::{evaluate_white, layout, taper, EvalParams};
use sparring::search::bench_positions::BENCH_FENS;
use sparring::texel::protocol::{parse_params, parse_trace};
use sparring::texel::LinearTrace;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn sparring() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sparring"))
}

fn lines_of(output: std::process::Output) -> Vec<String> {
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// The value of a trace under the declared weights with the engine's integer blend.
fn engine_value(t: &LinearTrace, w: &[(f64, f64)]) -> i32 {
    let (mut mg, mut eg) = (0i32, 0i32);
    for &(i, c) in &t.coefficients {
        mg += c * w[i as usize].0 as i32;
        eg += c * w[i as usize].1 as i32;
    }
    taper(mg, eg, t.phase) + t.remainder as i32
}

/// `sparring uci`, with `--weights` when a file is given.
fn uci(weights: Option<&Path>) -> Command {
    let mut command = sparring();
    command.arg("uci");
    if let Some(path) = weights {
        command.arg("--weights").arg(path);
    }
    command
}

fn declared() -> Vec<(f64, f64)> {
    declared_with(None)
}

fn declared_with(weights: Option<&Path>) -> Vec<(f64, f64)> {
    let lines = lines_of(uci(weights).args(["tunetrace", "params"]).output().unwrap());
    assert_eq!(lines.last().map(String::as_str), Some("end"));
    let d = parse_params(&lines[..lines.len() - 1]).unwrap();
    assert!(d.tapered && d.phase_max == 24);
    assert_eq!(d.params.len(), EvalParams::default().len());
    d.params.iter().map(|p| p.start).collect()
}

#[test]
fn traces_times_weights_equal_the_eval_on_every_shipped_position() {
    check_shipped_positions(None, &EvalParams::default());
}

/// The default weights with a non-zero king-danger table (the shipped one is all zeros), so the
/// one-hot buckets' coefficients are checked against the score they add.
#[test]
fn king_danger_buckets_trace_what_they_score() {
    let mut params = EvalParams::default();
    for b in 0..layout::KING_DANGER_BUCKETS {
        let v = b as i32;
        params.set(layout::KING_DANGER + b, (7 * v - 5, 3 * v + 2));
    }
    let path: PathBuf = std::env::temp_dir().join(format!(
        "sparring-tune-trace-danger-{}.toml",
        std::process::id()
    ));
    params.save(&path).unwrap();
    let danger = check_shipped_positions(Some(&path), &params);
    let _ = std::fs::remove_file(&path);
    // Openings rarely hold a queen attack: 15 of the 3,500 positions differ in bucket.
    assert!(danger >= 10, "only {danger} positions have a danger bucket");
}

/// Checks every shipped suite's traces against the engine's eval and `evaluate_white` under
/// `params` (loaded by the engine from `weights`); returns how many positions have a non-zero
/// king-danger coefficient.
fn check_shipped_positions(weights: Option<&Path>, params: &EvalParams) -> usize {
    let w = declared_with(weights);
    let danger_range = layout::KING_DANGER..layout::NUM_PARAMS;
    let mut danger = 0;
    let suites = [
        "openings/balanced-8ply.epd",
        "openings/unbalanced.epd",
        "openings/frc-balanced.epd",
        "openings/dfrc-balanced.epd",
    ];
    let mut checked = 0;
    for suite in suites {
        let path = format!("{}/{suite}", env!("CARGO_MANIFEST_DIR"));
        let lines = lines_of(
            uci(weights)
                .args(["tunetrace", "file", &path])
                .output()
                .unwrap(),
        );
        let fens: Vec<String> = std::fs::read_to_string(&path)
            .unwrap()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_string)
            .collect();
        assert_eq!(
            lines.len(),
            fens.len() + 1,
            "{suite}: one trace per line, then end"
        );
        assert_eq!(lines.last().map(String::as_str), Some("end"));
        let mut t = LinearTrace::default();
        for (fen, line) in fens.iter().zip(&lines) {
            let eval = parse_trace(line, w.len(), &mut t).unwrap_or_else(|e| panic!("{fen}: {e}"));
            let pos = sparring::texel::tunetrace::position_of_line(fen).unwrap();
            assert_eq!(engine_value(&t, &w), eval as i32, "{fen}");
            assert_eq!(eval as i32, evaluate_white(&pos, params), "{fen}");
            let in_danger = |&(i, c): &(u32, i32)| danger_range.contains(&(i as usize)) && c != 0;
            danger += t.coefficients.iter().any(in_danger) as usize;
            checked += 1;
        }
    }
    assert!(checked >= 3500, "{checked}");
    danger
}

#[test]
fn the_uci_command_answers_on_stdin_too() {
    let w = declared();
    let mut child = sparring()
        .arg("uci")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = String::new();
    for fen in BENCH_FENS {
        input.push_str(&format!("tunetrace fen {fen}\n"));
    }
    input.push_str("tunetrace fen not a fen\nquit\n");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let lines = lines_of(child.wait_with_output().unwrap());
    assert_eq!(lines.len(), BENCH_FENS.len() + 1);
    let mut t = LinearTrace::default();
    for (fen, line) in BENCH_FENS.iter().zip(&lines) {
        let eval = parse_trace(line, w.len(), &mut t).unwrap();
        let pos = Position::from_fen(fen).unwrap();
        assert_eq!(engine_value(&t, &w), eval as i32, "{fen}");
        assert_eq!(eval as i32, evaluate_white(&pos, &EvalParams::default()));
    }
    assert!(
        lines.last().unwrap().starts_with("trace error "),
        "{lines:?}"
    );
}
