//! Running the binary as a user does, for integration tests: `Run` holds the exit status and
//! both outputs; `scratch_in` gives a test its own empty directory.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A finished run of the binary.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Checks that `run` was refused as bad input (status 2) with a message holding every one of
/// `needles`, and did not panic.
pub fn assert_bad_input(run: &Run, needles: &[&str]) {
    assert_eq!(run.code, 2, "stderr: {}", run.stderr);
    for needle in needles {
        assert!(
            run.stderr.contains(needle),
            "stderr lacks {needle:?}: {}",
            run.stderr
        );
    }
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
}

pub fn sparring(args: &[&str]) -> Run {
    sparring_with_input(args, "")
}

pub fn sparring_with_input(args: &[&str], input: &str) -> Run {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_sparring"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The command may refuse its arguments and exit before reading: a closed pipe is no failure.
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    let out = child.wait_with_output().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// Runs the binary with its standard output a pipe whose reader is gone before the binary
/// starts (as under `| head -1` once head has read its line), so every write to it fails.
pub fn sparring_into_closed_pipe(args: &[&str]) -> Run {
    // A pipe without a reader, made without unsafe code: the write end of a process's standard
    // input once that process (here `sparring --version`, which never reads it) has exited.
    let mut holder = Command::new(env!("CARGO_BIN_EXE_sparring"))
        .arg("--version")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let write_end = holder.stdin.take().unwrap();
    assert!(holder.wait().unwrap().success());
    let out = Command::new(env!("CARGO_BIN_EXE_sparring"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::from(write_end))
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::new(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// A fresh, empty scratch directory `group/name` under Cargo's test scratch directory.
pub fn scratch_in(group: &str, name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(group)
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub fn text(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// The runner's fastchess-style compliance warnings (`Warning; ...` lines) of a run's output.
pub fn warning_lines(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .filter(|l| l.starts_with("Warning;"))
        .collect()
}

/// Runs `sparring uci` with `args`, feeding it `input`; each `go` is answered before `quit`.
pub fn uci_session(args: &[&str], input: &str) -> String {
    use std::io::{BufRead, Write};
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_sparring"))
        .arg("uci")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    stdin.flush().unwrap();
    let searches = input.lines().filter(|l| l.starts_with("go")).count();
    let mut reader = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut output = String::new();
    let mut answered = 0;
    while answered < searches {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap() == 0 {
            break;
        }
        answered += usize::from(line.starts_with("bestmove"));
        output.push_str(&line);
    }
    stdin.write_all(b"quit\n").unwrap();
    drop(stdin);
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut reader, &mut rest).unwrap();
    child.wait().unwrap();
    output + &rest
}
