//! OpenBench's contract with an engine (docs/research/compliance-checks.md, section 6): it builds
//! with `make -j EXE=<name>` in the repository root and reads `./<name> bench` with the regular
//! expressions of its Client/bench.py, last matching line first.

use crate::common::binary::scratch_in;
use crate::common::tools::skip;
use regex::Regex;
use std::path::Path;
use std::process::Command;

/// OpenBench's two bench expressions (Client/bench.py), copied as data.
const NPS_PATTERN: &str = r"(\d+\s+nps)|(nps\s+\d+)|(nodes second\s+\d+)";
const BENCH_PATTERN: &str = r"(\d+\s+nodes)|(nodes\s+\d+)|(nodes searched\s+\d+)";

/// What OpenBench reads from a bench's output: each line with runs of characters that are
/// neither alphanumeric nor spaces made one space, the last line matching each pattern, its
/// first number.
fn openbench_parse(output: &str) -> (Option<u64>, Option<u64>) {
    let clean = Regex::new(r"[^a-zA-Z0-9 ]+").unwrap();
    let number = Regex::new(r"\d+").unwrap();
    let find = |pattern: &str| {
        let pattern = Regex::new(&format!("(?i){pattern}")).unwrap();
        output.trim().lines().rev().find_map(|line| {
            let line = clean.replace_all(line, " ");
            let hit = pattern.find(&line)?;
            number.find(hit.as_str())?.as_str().parse().ok()
        })
    };
    (find(BENCH_PATTERN), find(NPS_PATTERN))
}

#[test]
fn openbench_reads_the_bench_signature_and_speed() {
    let out = Command::new(env!("CARGO_BIN_EXE_sparring"))
        .args(["bench", "--depth", "4"])
        .output()
        .unwrap();
    assert!(out.status.success());
    // OpenBench merges standard error into standard output.
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let nodes_line = text.lines().find(|l| l.starts_with("nodes ")).unwrap();
    let nodes: u64 = nodes_line[6..].trim().parse().unwrap();
    let (bench, nps) = openbench_parse(&text);
    assert_eq!(bench, Some(nodes), "{text}");
    assert!(nps.is_some_and(|n| n > 0), "{text}");
}

#[test]
fn make_exe_builds_the_engine_openbench_runs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let binary = Path::new(env!("CARGO_BIN_EXE_sparring"));
    // The Makefile builds the release binary: only a release test run has it already, and a
    // debug one would build the whole workspace again inside a test.
    if !binary.starts_with(root.join("target/release")) {
        println!("skipped: the Makefile's release build (run the tests with --release)");
        return;
    }
    if Command::new("make").arg("--version").output().is_err() {
        skip("make is not installed: the OpenBench build is not checked");
        return;
    }
    let dir = scratch_in("openbench", "make");
    let exe = dir.join("sparring-0123ABCD");
    let built = Command::new("make")
        .arg("-j")
        .arg(format!("EXE={}", exe.display()))
        .current_dir(root)
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    // make put the binary under test where OpenBench looks for it.
    assert_eq!(std::fs::read(&exe).unwrap(), std::fs::read(binary).unwrap());
    let out = Command::new(&exe).arg("bench").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let nodes_line = text.lines().find(|l| l.starts_with("nodes ")).unwrap();
    let (bench, nps) = openbench_parse(&text);
    assert_eq!(bench, nodes_line[6..].trim().parse().ok(), "{text}");
    assert!(nps.is_some_and(|n| n > 0), "{text}");
}

#[test]
fn openbench_genfens_arguments_give_its_fens_and_the_engine_exits() {
    // OpenBench's Client/genfens.py: two arguments, the first ending in a space when the test
    // has no extra genfens arguments, and no standard input.
    let out = Command::new(env!("CARGO_BIN_EXE_sparring"))
        .args(["genfens 5 seed 2026 book None ", "quit"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let fens: Vec<&str> = stdout
        .lines()
        .filter_map(|line| line.strip_prefix("info string genfens "))
        .collect();
    assert_eq!(fens.len(), 5, "{stdout}");
    for fen in &fens {
        // OpenBench turns each into EPD by taking exactly six fields.
        assert_eq!(fen.trim_end().split(' ').count(), 6, "{fen}");
        sparring::board::Position::from_fen(fen.trim_end()).unwrap();
    }
}
