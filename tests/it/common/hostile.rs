//! Running the binary on hostile input (tests/it/cli.rs, tests/it/dialect.rs, tests/it/match_cli.rs,
//! tests/it/resume_and_merge.rs, tests/it/tune_cli.rs): a watchdog that fails a hang, the exit status
//! and both outputs as an `Outcome`, and the checks that no engine process stays behind.

// Each test file that includes this module uses only some of its helpers.

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub use super::mock::mock_engine;

pub const SPARRING: &str = env!("CARGO_BIN_EXE_sparring");

/// A case running this long is a hang: the child is killed and the test fails.
pub const WATCHDOG: Duration = Duration::from_secs(60);

/// What a run of the binary left.
#[derive(Debug)]
pub struct Outcome {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Outcome {
    /// Exit status 2 or 1 with a message on standard error: never a panic or a signal.
    pub fn assert_refused(&self, what: &str) {
        assert!(
            matches!(self.code, Some(1) | Some(2)),
            "{what}: exit status {:?} (expected 1 or 2)\nstderr: {}",
            self.code,
            self.stderr
        );
        assert!(!self.stderr.contains("panicked"), "{what}: {}", self.stderr);
        assert!(
            self.stderr.contains("error"),
            "{what}: no error message: {}",
            self.stderr
        );
    }

    pub fn assert_status(&self, code: i32, what: &str) {
        assert_eq!(
            self.code,
            Some(code),
            "{what}: stderr: {}\nstdout: {}",
            self.stderr,
            self.stdout
        );
    }

    /// Bad input: status 2, nothing on standard output, an `error:` line holding `needle` first
    /// (clap adds a usage hint after its own errors; the dialect's are one line, see
    /// `check_swept`).
    pub fn assert_bad_input(&self, needle: &str, what: &str) {
        assert_eq!(self.code, Some(2), "{what}: {}", self.stderr);
        assert!(self.stdout.is_empty(), "{what}: stdout {}", self.stdout);
        let lines: Vec<&str> = self.stderr.lines().collect();
        assert!(
            !lines.is_empty() && lines[0].starts_with("error: ") && lines[0].contains(needle),
            "{what}: expected one `error:` line naming {needle:?}, got {:?}",
            self.stderr
        );
    }
}

/// Runs the binary in `dir` with `env` added and `stdin` fed, killing it after `WATCHDOG`.
pub fn run_in(dir: &Path, args: &[&str], env: &[(&str, &str)], stdin: &[u8]) -> Outcome {
    let mut command = without_scheduler(SPARRING.as_ref());
    command.args(args);
    for (key, value) in env {
        command.env(key, value);
    }
    watch(command, dir, &format!("sparring {args:?}"), stdin)
}

/// Runs `program` in `dir` with `env` set (the scheduler variables removed first), killing it
/// after `WATCHDOG`.
pub fn run_env(program: &Path, dir: &Path, args: &[&OsStr], env: &[(&str, &OsStr)]) -> Outcome {
    let mut command = without_scheduler(program);
    command.args(args);
    for (key, value) in env {
        command.env(key, value);
    }
    watch(
        command,
        dir,
        &format!("{} {args:?}", program.display()),
        b"",
    )
}

/// `program` without the scheduler variables of the environment the tests run in (a test
/// that wants them sets them afterwards).
fn without_scheduler(program: &Path) -> Command {
    let mut command = Command::new(program);
    for var in [
        "SLURM_ARRAY_TASK_ID",
        "SLURM_ARRAY_TASK_MIN",
        "SLURM_ARRAY_TASK_COUNT",
        "JOB_COMPLETION_INDEX",
    ] {
        command.env_remove(var);
    }
    command
}

/// Starts `command` in `dir`, feeds it `stdin`, collects both
/// outputs and fails the test (killing the child) if it runs past `WATCHDOG`.
fn watch(mut command: Command, dir: &Path, what: &str, stdin: &[u8]) -> Outcome {
    command
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().expect("start the program under test");
    let mut input = child.stdin.take().unwrap();
    let stdin = stdin.to_vec();
    // Written from a thread and then closed, so a child that reads to the end sees the end.
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&stdin);
    });
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = out.read_to_end(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        s
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > WATCHDOG {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: no exit after {WATCHDOG:?} (a hang): killed");
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let _ = writer.join();
    Outcome {
        code: status.code(),
        stdout: String::from_utf8_lossy(&out_reader.join().unwrap()).into_owned(),
        stderr: String::from_utf8_lossy(&err_reader.join().unwrap()).into_owned(),
    }
}

pub fn run(dir: &Path, args: &[&str]) -> Outcome {
    run_in(dir, args, &[], b"")
}

/// Pids of live processes whose command line holds `marker` (a mock engine's `--name`).
pub fn processes_with(marker: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // A zombie is gone but for its exit status; only a running leftover counts.
        let state = stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .chars()
            .next();
        if state != Some('Z') && String::from_utf8_lossy(&cmdline).contains(marker) {
            found.push(pid);
        }
    }
    found
}

/// Fails when an engine marked `marker` is still running shortly after sparring exited.
pub fn assert_no_leftover(marker: &str) {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(5) {
        if processes_with(marker).is_empty() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("engine processes left behind: {:?}", processes_with(marker));
}

/// Runs a UCI session: writes `input` (ending in a `go`), reads until `bestmove`, then sends
/// `quit`; returns standard output. The watchdog kills an engine that never answers.
pub fn uci_search(dir: &Path, args: &[&str], input: &str) -> String {
    use std::io::BufRead;
    let mut child = Command::new(SPARRING)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start sparring");
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    stdin.flush().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut text = String::new();
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let done = line.starts_with("bestmove");
            text.push_str(&line);
            text.push('\n');
            if done {
                break;
            }
        }
        let _ = tx.send(text);
    });
    let text = match rx.recv_timeout(WATCHDOG) {
        Ok(text) => text,
        Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            panic!("sparring {args:?}: no bestmove after {WATCHDOG:?} (a hang): killed");
        }
    };
    let _ = stdin.write_all(b"quit\n");
    drop(stdin);
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    let _ = std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr);
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(text.contains("bestmove"), "{text}");
    text
}
