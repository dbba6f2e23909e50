//! Running `sparring loop` in tests (tests/it/loop.rs, tests/it/loop_network.rs): a whole run,
//! a run killed after a line of its output, and its rows without the wall time.

use super::binary::{self, sparring, text};
use sparring::ladder::{read_rows, GenerationRow};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// generations.csv without the wall time, which is the one column that may differ.
pub fn rows_without_time(dir: &Path) -> Vec<GenerationRow> {
    read_rows(&dir.join("generations.csv"))
        .unwrap()
        .into_iter()
        .map(|row| GenerationRow {
            seconds: 0.0,
            ..row
        })
        .collect()
}

/// `sparring loop CONFIG --out OUT EXTRA...`, which must succeed.
pub fn run_loop(config: &Path, out: &Path, extra: &[&str]) -> binary::Run {
    let mut args = vec!["loop", text(config), "--out", text(out)];
    args.extend_from_slice(extra);
    let run = sparring(&args);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    run
}

/// Starts the loop and kills it (SIGKILL) `after` once it prints `line`.
pub fn kill_after(config: &Path, out: &Path, line: &str, resume: bool, after: Duration) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_sparring"));
    command.args(["loop", text(config), "--out", text(out)]);
    if resume {
        command.arg("--resume");
    }
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let seen = stdout.lines().any(|text| text.unwrap() == line);
    assert!(seen, "the loop never printed `{line}`");
    std::thread::sleep(after);
    let _ = child.kill();
    let _ = child.wait();
}
