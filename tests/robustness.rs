//! Hostile input through the real binary, for the input surfaces added with the fastchess
//! command line, Chess960, search parameters, SPSA, shards and merge, and the bullet converter:
//! every case must end with exit status 2 (bad input) or 1 (a run that failed), never 101 (a
//! panic) or a signal (an abort, a stack overflow), never run past a watchdog, never leave an
//! engine process behind, and never damage a file already written. A defect found here is
//! fixed, with its case kept as the regression test (none is ignored).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SPARRING: &str = env!("CARGO_BIN_EXE_sparring");

/// A case running this long is a hang: the child is killed and the test fails.
const WATCHDOG: Duration = Duration::from_secs(30);

/// What a run of the binary left.
#[derive(Debug)]
struct Outcome {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Outcome {
    /// Exit status 2 or 1 with a message on standard error: never a panic or a signal.
    fn assert_refused(&self, what: &str) {
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

    fn assert_status(&self, code: i32, what: &str) {
        assert_eq!(
            self.code,
            Some(code),
            "{what}: stderr: {}\nstdout: {}",
            self.stderr,
            self.stdout
        );
    }
}

/// Runs the binary in `dir` with `env` added and `stdin` fed, killing it after `WATCHDOG`.
fn run_in(dir: &Path, args: &[&str], env: &[(&str, &str)], stdin: &[u8]) -> Outcome {
    let mut command = Command::new(SPARRING);
    command
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for var in [
        "SLURM_ARRAY_TASK_ID",
        "SLURM_ARRAY_TASK_MIN",
        "SLURM_ARRAY_TASK_COUNT",
        "JOB_COMPLETION_INDEX",
    ] {
        command.env_remove(var);
    }
    for (key, value) in env {
        command.env(key, value);
    }
    let mut child = command.spawn().expect("start sparring");
    let mut input = child.stdin.take().unwrap();
    let stdin = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&stdin);
    });
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = std::io::Read::read_to_end(&mut out, &mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = std::io::Read::read_to_end(&mut err, &mut s);
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
            panic!("sparring {args:?}: no exit after {WATCHDOG:?} (a hang): killed");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let _ = writer.join();
    Outcome {
        code: status.code(),
        stdout: String::from_utf8_lossy(&out_reader.join().unwrap()).into_owned(),
        stderr: String::from_utf8_lossy(&err_reader.join().unwrap()).into_owned(),
    }
}

fn run(dir: &Path, args: &[&str]) -> Outcome {
    run_in(dir, args, &[], b"")
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("robustness")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The mock UCI engine (tests/mock/engine.rs), built by cargo as an example of this package.
fn mock_engine() -> String {
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().unwrap().parent().unwrap();
    let mock = profile_dir.join("examples").join("mock_engine");
    assert!(
        mock.exists(),
        "{} is missing: build it first (`cargo build --release --example mock_engine`)",
        mock.display()
    );
    mock.display().to_string()
}

/// Pids of live processes whose command line holds `marker` (a mock engine's `--name`).
fn processes_with(marker: &str) -> Vec<u32> {
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
fn assert_no_leftover(marker: &str) {
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
fn uci_search(dir: &Path, args: &[&str], input: &str) -> String {
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

// ---------------------------------------------------------------------------------------------
// Chess960: perft, the UCI loop, generated suites.

#[test]
fn perft_with_an_absurd_depth_is_refused() {
    let dir = scratch("perft-depth");
    let out = run(
        &dir,
        &[
            "perft",
            "--depth",
            "4294967295",
            "--fen",
            "8/8/8/8/8/8/8/K6k w - - 0 1",
        ],
    );
    out.assert_status(2, "perft --depth 4294967295");
}

#[test]
fn perft_refuses_bad_960_castling_fields_with_status_2() {
    let dir = scratch("perft-960");
    for field in ["ZZ", "HAHA", "Kkk", "Ii", "HFhfQ", "hH1"] {
        let fen = format!("bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w {field} - 0 1");
        let out = run(
            &dir,
            &["perft", "--depth", "1", "--chess960", "--fen", &fen],
        );
        out.assert_status(2, &fen);
        assert!(out.stderr.contains("castling"), "{fen}: {}", out.stderr);
    }
    // The same position with a good field counts in both notations.
    for field in ["HFhf", "KQkq"] {
        let fen = format!("bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w {field} - 0 1");
        let out = run(
            &dir,
            &["perft", "--depth", "2", "--chess960", "--fen", &fen],
        );
        out.assert_status(0, &fen);
        assert!(out.stdout.contains("400"), "{fen}: {}", out.stdout);
    }
}

#[test]
fn uci_chess960_and_tunable_setoption_refuse_hostile_values_and_keep_searching_the_same() {
    let dir = scratch("uci-hostile");
    let search = "position fen bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1 \
                  moves g2g3 g7g6\nisready\ngo depth 6\n";
    let hostile = [
        "setoption name search.lmr.base value 1e400",
        "setoption name search.lmr.base value nan",
        "setoption name search.lmr.base value -inf",
        "setoption name search.lmr.base value 0x10",
        "setoption name search.rfp.margin value 99999999999999999999999",
        "setoption name search.rfp.margin value -9223372036854775809",
        "setoption name search.rfp.margin value abc",
        "setoption name search.rfp.margin value",
        "setoption name search.rfp.margin value 1.5",
        "setoption name search.lmr.divisor value 0.0000001",
        "setoption name search.no.such.param value 3",
        "setoption name UCI_Chess960 value maybe",
        "setoption name UCI_Chess960 value",
        "setoption name UCI_Chess960",
        "position fen bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1 moves g1h1",
        "position fen bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w ZZ - 0 1",
        "position fen bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1 moves e1g1",
    ];
    let nodes = |setup: &str| -> String {
        let out = uci_search(&dir, &["uci", "--tunable"], &format!("{setup}{search}"));
        let last_info = out
            .lines()
            .rfind(|l| l.starts_with("info depth 6 "))
            .unwrap_or_else(|| panic!("no depth-6 info line:\n{out}"))
            .to_string();
        assert!(out.contains("readyok"), "{out}");
        // The node count of the search: unchanged by refused values.
        let at = last_info.find(" nodes ").unwrap();
        last_info[at..]
            .split_whitespace()
            .nth(1)
            .unwrap()
            .to_string()
    };
    let plain = nodes("uci\nsetoption name UCI_Chess960 value true\n");
    let input = format!(
        "uci\nsetoption name UCI_Chess960 value true\n{}\n",
        hostile.join("\n")
    );
    assert_eq!(
        nodes(&input),
        plain,
        "a refused setoption changed the search"
    );
}

#[test]
fn openings_generate_with_a_huge_count_gives_up_instead_of_aborting() {
    // Regression: `--count 99999999999` reserved room for every position up front and aborted
    // on the failed allocation (status 134).
    let dir = scratch("generate-count");
    std::fs::write(dir.join("suite.epd"), "kept\n").unwrap();
    for variant in ["chess960", "dfrc", "standard"] {
        let out = run(
            &dir,
            &[
                "openings",
                "generate",
                "--variant",
                variant,
                "--plies",
                "2",
                "--count",
                "99999999999",
                "--max-eval",
                "100",
                "--max-candidates",
                "1",
                "--nodes",
                "10",
                "--out",
                "suite.epd",
            ],
        );
        out.assert_status(1, variant);
        assert!(out.stderr.contains("found only"), "{}", out.stderr);
        assert_eq!(
            std::fs::read_to_string(dir.join("suite.epd")).unwrap(),
            "kept\n",
            "the file already there was touched"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Search parameters and SPSA.

#[test]
fn bench_and_uci_refuse_bad_search_files_naming_file_line_and_key() {
    let dir = scratch("search-files");
    let cases: &[(&str, &str)] = &[
        ("[rfp]\nmargin = 1e400\n", "rfp.margin"),
        ("[rfp]\nmargin = 99999999999\n", "rfp.margin"),
        ("[lmr]\ndivisor = 0\n", "lmr.divisor"),
        ("[lmr]\ndivisor = nan\n", "lmr.divisor"),
        ("[lmr]\nbase = \"0.5\"\n", "lmr.base"),
        ("[nmp]\nno_such_key = 3\n", "nmp.no_such_key"),
        ("[rfp\nmargin = 3\n", "bad.toml"),
        ("\u{feff}[rfp]\nmargin = -1\n", "rfp.margin"),
    ];
    for (text, key) in cases {
        std::fs::write(dir.join("bad.toml"), text).unwrap();
        let bench = run(&dir, &["bench", "--depth", "1", "--search", "bad.toml"]);
        bench.assert_status(2, text);
        assert!(
            bench.stderr.contains("bad.toml"),
            "{text}: {}",
            bench.stderr
        );
        assert!(bench.stderr.contains(key), "{text}: {}", bench.stderr);
        let uci = run_in(&dir, &["uci", "--search", "bad.toml"], &[], b"uci\nquit\n");
        uci.assert_status(2, text);
        assert!(uci.stderr.contains("bad.toml"), "{text}: {}", uci.stderr);
    }
    for path in ["no-such-file.toml", "."] {
        let out = run(&dir, &["bench", "--depth", "1", "--search", path]);
        out.assert_refused(path);
        assert!(out.stderr.contains(path), "{}", out.stderr);
    }
}

const SPSA_TOML: &str = "[spsa]\niterations = 3\npairs_per_iteration = 1\nconcurrency = 1\n\
    [engine]\nhash_mb = 1\n[time_control]\nnodes = 150\n[output]\ndir = \"run\"\n\
    [[param]]\nname = \"search.rfp.margin\"\nmin = 30\nmax = 160\nc_end = 6\n";

#[test]
fn spsa_resume_on_damaged_state_never_panics_and_keeps_the_run_files() {
    let dir = scratch("spsa-resume");
    std::fs::write(dir.join("spsa.toml"), SPSA_TOML).unwrap();
    run(&dir, &["spsa", "spsa.toml"]).assert_status(0, "the first run");
    let files = ["trajectory.csv", "pairs.csv", "tuned.toml"];
    let saved: Vec<Vec<u8>> = files
        .iter()
        .map(|f| std::fs::read(dir.join("run").join(f)).unwrap())
        .collect();
    let state = dir.join("run").join("state.toml");
    let good = std::fs::read(&state).unwrap();
    let damaged: &[&[u8]] = &[
        b"",
        b"\x00\xff garbage",
        b"iteration = -1\ntheta = [80.0]\nplus_wins = 0\ndraws = 2\nminus_wins = 0\n",
        b"iteration = 99999999999\ntheta = [80.0]\nplus_wins = 0\ndraws = 2\nminus_wins = 0\n",
        b"iteration = 18446744073709551615\ntheta = [80.0]\nplus_wins = 0\ndraws = 2\nminus_wins = 0\n",
        b"iteration = 1\ntheta = [80.0, 3.0]\nplus_wins = 0\ndraws = 2\nminus_wins = 0\n",
        b"iteration = 1\ntheta = []\nplus_wins = 0\ndraws = 2\nminus_wins = 0\n",
        // Regression: a NaN or infinite theta was tuned on and written out as NaN.
        b"iteration = 1\ntheta = [nan]\nplus_wins = 0\ndraws = 2\nminus_wins = 0\n",
        b"iteration = 1\ntheta = [inf]\nplus_wins = 0\ndraws = 2\nminus_wins = 0\n",
        b"iteration = 1\ntheta = [-inf]\nplus_wins = 0\ndraws = 2\nminus_wins = 0\n",
        b"iteration = 1\ntheta = [\"80\"]\nplus_wins = 0\ndraws = 2\nminus_wins = 0\n",
        b"iteration = 1\ntheta = [80.0]\nplus_wins = -5\ndraws = 2\nminus_wins = 0\n",
    ];
    for text in damaged {
        std::fs::write(&state, text).unwrap();
        let out = run(&dir, &["spsa", "spsa.toml", "--resume"]);
        let shown = String::from_utf8_lossy(text);
        out.assert_refused(&shown);
        assert!(out.stderr.contains("state.toml") || out.stderr.contains("trajectory.csv"));
        for (file, before) in files.iter().zip(&saved) {
            assert_eq!(
                &std::fs::read(dir.join("run").join(file)).unwrap(),
                before,
                "{shown}: {file} changed"
            );
        }
    }
    std::fs::write(&state, good).unwrap();
    run(&dir, &["spsa", "spsa.toml", "--resume"]).assert_status(0, "the good state");
}

#[test]
fn spsa_configs_with_hostile_param_lines_are_refused_with_status_2() {
    let dir = scratch("spsa-lines");
    let lines = [
        "search.lmr.base, float, 9, 0, 2, 0.1, 0.002",
        "search.lmr.base, float, 0.75, 2, 0, 0.1, 0.002",
        "search.lmr.base, float, nan, 0, 2, 0.1, 0.002",
        "search.lmr.base, float, 1, 0, 2, 0, 0.002",
        "search.lmr.base, float, 1, 0, 2, 0.1, -1",
        "search.lmr.base, float, 1, -1e308, 1e308, 1e308, 0.002",
        "search.lmr.base, 1, 0, 2, 0.1",
        ", 1, 0, 2, 0.1, 0.002",
        "no.such.param, 1, 0, 2, 0.1, 0.002",
    ];
    for line in lines {
        let text = format!(
            "[spsa]\niterations = 1\nlines = \"\"\"\n{line}\n\"\"\"\n[time_control]\nnodes = 10\n\
             [output]\ndir = \"never\"\n"
        );
        std::fs::write(dir.join("bad.toml"), &text).unwrap();
        let out = run(&dir, &["spsa", "bad.toml"]);
        out.assert_status(2, line);
        assert!(out.stderr.contains("bad.toml"), "{line}: {}", out.stderr);
        assert!(
            !dir.join("never").exists(),
            "{line}: a run directory was made"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Shards and merge.

const MATCH_TOML: &str = "[tournament]\nkind = \"round-robin\"\nrounds = 2\nconcurrency = 1\n\
    [time_control]\nnodes = 60\n[output]\ndir = \"out\"\n\
    [[engine]]\nname = \"a\"\nbuiltin = { hash_mb = 1 }\n\
    [[engine]]\nname = \"b\"\nbuiltin = { hash_mb = 1 }\n";

#[test]
fn match_shard_refuses_hostile_values_and_environments_with_status_2() {
    let dir = scratch("shards");
    std::fs::write(dir.join("m.toml"), MATCH_TOML).unwrap();
    for shard in [
        "0/0",
        "1/1",
        "5/3",
        "a/b",
        "1/",
        "/3",
        "0/3/4",
        "",
        "١/٢",
        "0/18446744073709551616",
        "18446744073709551616/1",
    ] {
        let out = run(&dir, &["match", "m.toml", "--shard", shard, "--out", "s"]);
        out.assert_status(2, shard);
        assert!(out.stderr.contains("--shard"), "{shard}: {}", out.stderr);
        assert!(!dir.join("s").exists(), "{shard}: output written");
    }
    let environments: &[&[(&str, &str)]] = &[
        &[
            ("SLURM_ARRAY_TASK_ID", "-1"),
            ("SLURM_ARRAY_TASK_COUNT", "2"),
        ],
        &[
            ("SLURM_ARRAY_TASK_ID", "5"),
            ("SLURM_ARRAY_TASK_COUNT", "2"),
        ],
        &[
            ("SLURM_ARRAY_TASK_ID", "x"),
            ("SLURM_ARRAY_TASK_COUNT", "2"),
        ],
        &[
            ("SLURM_ARRAY_TASK_ID", "0"),
            ("SLURM_ARRAY_TASK_COUNT", "0"),
        ],
        &[
            ("SLURM_ARRAY_TASK_ID", "1"),
            ("SLURM_ARRAY_TASK_MIN", "3"),
            ("SLURM_ARRAY_TASK_COUNT", "2"),
        ],
        &[
            ("SLURM_ARRAY_TASK_ID", "18446744073709551615"),
            ("SLURM_ARRAY_TASK_COUNT", "18446744073709551615"),
        ],
        &[
            ("SLURM_ARRAY_TASK_ID", "0"),
            ("SLURM_ARRAY_TASK_COUNT", "99999999999999999999"),
        ],
        &[("JOB_COMPLETION_INDEX", "")],
        &[("JOB_COMPLETION_INDEX", "99")],
        &[],
    ];
    for env in environments {
        let out = run_in(
            &dir,
            &["match", "m.toml", "--shard", "env", "--out", "s"],
            env,
            b"",
        );
        out.assert_status(2, &format!("{env:?}"));
        assert!(out.stderr.contains("shard"), "{env:?}: {}", out.stderr);
        assert!(!dir.join("s").exists(), "{env:?}: output written");
    }
}

/// Every file of a directory, by name.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_file())
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

/// Two shards of a small builtin match, `s0` and `s1`, in `dir`.
fn two_shards(dir: &Path) {
    std::fs::write(dir.join("m.toml"), MATCH_TOML).unwrap();
    for i in 0..2 {
        let shard = format!("{i}/2");
        let out_dir = format!("s{i}");
        run(
            dir,
            &["match", "m.toml", "--shard", &shard, "--out", &out_dir],
        )
        .assert_status(0, &shard);
    }
}

/// A copy of shard directory `from` as `to`, with `edit` applied to it.
fn damaged_copy(dir: &Path, from: &str, to: &str, edit: impl Fn(&Path)) {
    let target = dir.join(to);
    let _ = std::fs::remove_dir_all(&target);
    std::fs::create_dir_all(&target).unwrap();
    for (name, bytes) in snapshot(&dir.join(from)) {
        std::fs::write(target.join(name), bytes).unwrap();
    }
    edit(&target);
}

fn rewrite(path: &Path, f: impl Fn(String) -> String) {
    let text = std::fs::read_to_string(path).unwrap();
    std::fs::write(path, f(text)).unwrap();
}

#[test]
fn merge_over_hostile_directories_refuses_and_touches_nothing() {
    let dir = scratch("merge");
    two_shards(&dir);
    run(&dir, &["merge", "good", "s0", "s1"]).assert_status(0, "the good merge");
    let _ = std::fs::remove_dir_all(dir.join("good"));
    damaged_copy(&dir, "s1", "garbled-run", |d| {
        std::fs::write(d.join("run.toml"), "\u{0}[[[ not toml").unwrap()
    });
    damaged_copy(&dir, "s1", "binary-run", |d| {
        std::fs::write(d.join("run.toml"), b"\xff\xfe\x00").unwrap()
    });
    damaged_copy(&dir, "s1", "no-run", |d| {
        std::fs::remove_file(d.join("run.toml")).unwrap()
    });
    damaged_copy(&dir, "s1", "csv-garbage", |d| {
        rewrite(&d.join("games.csv"), |t| t + "garbage,line\n1,2,3\n")
    });
    damaged_copy(&dir, "s1", "csv-empty", |d| {
        std::fs::write(d.join("games.csv"), "").unwrap()
    });
    damaged_copy(&dir, "s1", "csv-binary", |d| {
        std::fs::write(d.join("games.csv"), b"\xff\x00\xfe\n").unwrap()
    });
    damaged_copy(&dir, "s1", "figures-garbage", |d| {
        std::fs::write(d.join("figures.csv"), "garbage").unwrap()
    });
    damaged_copy(&dir, "s1", "index-out-of-range", |d| {
        rewrite(&d.join("run.toml"), |t| {
            t.replace("\"shard.index\" = \"1\"", "\"shard.index\" = \"7\"")
        })
    });
    damaged_copy(&dir, "s1", "huge-total", |d| {
        rewrite(&d.join("run.toml"), |t| {
            t.replace(
                "\"shard.total_games\" = \"4\"",
                "\"shard.total_games\" = \"18446744073709551615\"",
            )
        })
    });
    damaged_copy(&dir, "s1", "other-config", |d| {
        rewrite(&d.join("run.toml"), |t| {
            t.replace("time_control = \"60 nodes\"", "time_control = \"61 nodes\"")
        })
    });
    let cases: &[&[&str]] = &[
        &["merge", "m", "s0", "s0"],
        &["merge", "m", "s0"],
        &["merge", "m", "s0", "no-such-dir"],
        &["merge", "m", "s0", "m.toml"],
        &["merge", "s0", "s0", "s1"],
        &["merge", "m", "s0", "garbled-run"],
        &["merge", "m", "s0", "binary-run"],
        &["merge", "m", "s0", "no-run"],
        &["merge", "m", "s0", "csv-garbage"],
        &["merge", "m", "s0", "csv-empty"],
        &["merge", "m", "s0", "csv-binary"],
        &["merge", "m", "s0", "figures-garbage"],
        &["merge", "m", "s0", "index-out-of-range"],
        &["merge", "m", "s0", "huge-total"],
        &["merge", "m", "s0", "other-config"],
        &["merge", "m", "s0", "s1", "s1"],
    ];
    let before: Vec<_> = ["s0", "s1"]
        .iter()
        .map(|s| snapshot(&dir.join(s)))
        .collect();
    for args in cases {
        let out = run(&dir, args);
        out.assert_refused(&format!("{args:?}"));
        assert!(
            !dir.join("m").join("games.csv").exists(),
            "{args:?}: a merged games.csv was written"
        );
        let _ = std::fs::remove_dir_all(dir.join("m"));
    }
    let after: Vec<_> = ["s0", "s1"]
        .iter()
        .map(|s| snapshot(&dir.join(s)))
        .collect();
    assert!(
        before == after,
        "a shard directory was changed by a refused merge"
    );
}

#[test]
fn merge_names_a_games_csv_row_outside_its_shard() {
    let dir = scratch("merge-foreign-row");
    two_shards(&dir);
    damaged_copy(&dir, "s1", "foreign", |d| {
        rewrite(&d.join("games.csv"), |t| t.replacen("\n3,", "\n99,", 1))
    });
    let out = run(&dir, &["merge", "m", "s0", "foreign"]);
    out.assert_status(2, "a foreign game id");
    assert!(
        out.stderr.contains("games.csv") && out.stderr.contains("line 2"),
        "{}",
        out.stderr
    );
}

// ---------------------------------------------------------------------------------------------
// The fastchess/cutechess command line and engines that declare odd options.

#[test]
fn dialect_refuses_hostile_command_lines_with_status_2_and_starts_no_engine() {
    let dir = scratch("dialect");
    let marker = format!("robustness-dialect-{}", std::process::id());
    let mock = mock_engine();
    let engine = format!("cmd={mock}");
    let args = format!("args=--name {marker}");
    let base = [
        "match", "-engine", &engine, &args, "name=a", "-engine", &engine, &args, "name=b",
    ];
    let bad: &[&[&str]] = &[
        &["-each", "tc=1/0+0"],
        &["-each", "tc=40/abc"],
        &["-each", "tc=-1+0"],
        &["-each", "tc=99999999999999999999+0"],
        &["-each", "st=nan"],
        &["-each", "nodes=-5"],
        &["-each", "depth=99999999999999999999"],
        &["-each", "nodes=10", "-rounds", "99999999999999999999"],
        &["-each", "nodes=10", "-rounds", "0"],
        &[
            "-each",
            "nodes=10",
            "-openings",
            "file=/no/such/file.epd",
            "format=epd",
        ],
        &["-each", "nodes=10", "-openings", "file=", "format=epd"],
        &[
            "-each", "nodes=10", "-sprt", "elo0=5", "elo1=0", "alpha=2", "beta=-1",
        ],
        &["-each", "nodes=10", "-draw", "movenumber=-1"],
        &[
            "-each",
            "nodes=10",
            "-resign",
            "movecount=99999999999999999999",
        ],
        &["-each", "nodes=10", "-variant", "xyz"],
        &["-each", "nodes=10", "-srand"],
        &["-each", "nodes=10", "-no-such-flag"],
        &["-each", "nodes=10", "=", "=="],
        &["-each", "nodes=10", "-engine"],
        &["-each", "nodes=10", "-ratinginterval", "x"],
    ];
    for extra in bad {
        let mut all: Vec<&str> = base.to_vec();
        all.extend_from_slice(extra);
        all.extend_from_slice(&["-pgnout", "file=games.pgn"]);
        let out = run(&dir, &all);
        out.assert_status(2, &format!("{extra:?}"));
        assert!(!dir.join("games.pgn").exists(), "{extra:?}: games written");
        assert!(
            !dir.join("games.pgn.sparring").exists(),
            "{extra:?}: a run directory made"
        );
    }
    let no_engine: &[&[&str]] = &[
        &["match", "-engine", "-engine"],
        &["match", "-engine", "cmd=", "name=", "-engine"],
        &["match", "-engine", "cmd=x", "-each", "nodes=1"],
        &[
            "match", "-engine", "name=a", "-engine", "name=b", "-each", "nodes=1",
        ],
        &[
            "match",
            "-engine",
            "cmd=x",
            "args=\"unterminated",
            "-engine",
            "cmd=y",
        ],
    ];
    for args in no_engine {
        run(&dir, args).assert_status(2, &format!("{args:?}"));
    }
    assert_no_leftover(&marker);
}

/// `--dump-config` writes TOML that reads back: dumping the dump gives the same text.
#[test]
fn dialect_dump_config_reads_back_to_itself() {
    let dir = scratch("dump-config");
    let mock = mock_engine();
    let engine = format!("cmd={mock}");
    let lines: &[&[&str]] = &[
        &[
            "-each",
            "tc=40/12.5+0.125",
            "option.Hash=8",
            "-rounds",
            "3",
            "-repeat",
        ],
        &[
            "-each",
            "tc=inf",
            "nodes=100",
            "-openings",
            "file=openings.epd",
            "format=epd",
            "order=random",
        ],
        &[
            "-each",
            "st=0.5",
            "-sprt",
            "elo0=0",
            "elo1=5",
            "alpha=0.05",
            "beta=0.05",
        ],
        &[
            "-each",
            "tc=inf",
            "depth=3",
            "-draw",
            "movenumber=30",
            "movecount=8",
            "score=10",
        ],
        &[
            "-each",
            "tc=inf",
            "nodes=500",
            "-concurrency",
            "1",
            "-srand",
            "18446744073709551615",
        ],
    ];
    std::fs::write(
        dir.join("openings.epd"),
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -\n",
    )
    .unwrap();
    for extra in lines {
        let mut args = vec![
            "match", "-engine", &engine, "name=a", "-engine", &engine, "name=b",
        ];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--dump-config", "one.toml"]);
        let first = run(&dir, &args);
        first.assert_status(0, &format!("{extra:?}"));
        let again = run(&dir, &["match", "one.toml", "--dump-config", "two.toml"]);
        again.assert_status(0, &format!("{extra:?}: the dump does not read back"));
        assert_eq!(
            std::fs::read_to_string(dir.join("one.toml")).unwrap(),
            std::fs::read_to_string(dir.join("two.toml")).unwrap(),
            "{extra:?}: the dump changes when read back and dumped"
        );
    }
}

#[test]
fn engines_declaring_odd_options_never_crash_the_runner_or_stay_behind() {
    let dir = scratch("odd-options");
    let marker = format!("robustness-options-{}", std::process::id());
    let mock = mock_engine();
    let specs = [
        "Hash type spin default 16 min 64 max 1",
        "Hash type spin default x min y max z",
        "Hash type spin default 99999999999999999999999 min -99999999999999999999999 max 99999999999999999999999",
        "Hash type spin default -9223372036854775808 min -9223372036854775808 max 9223372036854775807",
        "Hash type spin",
        "Hash type spin default 16 min 1 max 64 min 3",
        "Style type combo default",
        "Style type combo",
        "Style type combo default a var a var",
        "Hash type weird default 3",
        "Hash",
        "",
        "Threads type check default maybe",
        "Clear type button",
        "type spin default 1 min 0 max 2",
    ];
    for (i, spec) in specs.iter().enumerate() {
        let engine = format!("cmd={mock}");
        let args = format!("args=--name {marker} --declare \"{spec}\"");
        let pgn = format!("games-{i}.pgn");
        let pgnout = format!("file={pgn}");
        let out = run(
            &dir,
            &[
                "match",
                "-engine",
                &engine,
                &args,
                "name=a",
                "-engine",
                &engine,
                "name=b",
                "-each",
                "nodes=20",
                "option.Hash=8",
                "option.Style=x",
                "option.Threads=true",
                "option.Clear=",
                "-rounds",
                "1",
                "-pgnout",
                &pgnout,
            ],
        );
        assert!(
            matches!(out.code, Some(0) | Some(1) | Some(2)),
            "{spec}: status {:?}: {}",
            out.code,
            out.stderr
        );
        assert!(!out.stderr.contains("panicked"), "{spec}: {}", out.stderr);
        if out.code != Some(0) {
            assert!(out.stderr.contains("option"), "{spec}: {}", out.stderr);
        }
    }
    assert_no_leftover(&marker);
}

#[test]
fn an_unwritable_engine_log_or_pgn_fails_with_status_1_and_leaves_no_engine() {
    let dir = scratch("unwritable");
    let marker = format!("robustness-unwritable-{}", std::process::id());
    let mock = mock_engine();
    let engine = format!("cmd={mock}");
    let args = format!("args=--name {marker}");
    // A regular file where a directory should be: nothing can be created below it.
    std::fs::write(dir.join("a-file"), "kept\n").unwrap();
    for extra in [
        ["-log", "file=a-file/engines.log"],
        ["-pgnout", "file=a-file/games.pgn"],
    ] {
        let mut all = vec![
            "match", "-engine", &engine, &args, "name=a", "-engine", &engine, &args, "name=b",
            "-each", "nodes=20", "-rounds", "1",
        ];
        all.extend_from_slice(&extra);
        let out = run(&dir, &all);
        out.assert_status(1, &format!("{extra:?}"));
        assert!(out.stderr.contains("a-file"), "{}", out.stderr);
    }
    assert_no_leftover(&marker);
}

#[test]
fn an_engine_that_exits_during_the_handshake_fails_the_run_naming_it() {
    let dir = scratch("handshake-exit");
    let marker = format!("robustness-handshake-{}", std::process::id());
    let mock = mock_engine();
    let engine = format!("cmd={mock}");
    for step in ["uci", "isready"] {
        let args = format!("args=--name {marker} --exit-on {step}");
        let out = run(
            &dir,
            &[
                "match",
                "-engine",
                &engine,
                &args,
                "name=quitter",
                "-engine",
                &engine,
                "name=b",
                "-each",
                "nodes=20",
                "-rounds",
                "1",
            ],
        );
        out.assert_status(1, step);
        assert!(
            out.stderr.contains("quitter") && out.stderr.contains("exited during the handshake"),
            "{step}: {}",
            out.stderr
        );
    }
    assert_no_leftover(&marker);
}

// ---------------------------------------------------------------------------------------------
// The tuner's data patterns and the bullet converter.

#[test]
fn tune_convert_refuses_bad_patterns_with_status_2_and_keeps_the_output() {
    let dir = scratch("convert-patterns");
    std::fs::write(dir.join("out.txt"), "kept\n").unwrap();
    for pattern in ["[", "[z-a]", "no-such-dir/*.epd", "**/[!"] {
        let out = run(
            &dir,
            &[
                "tune", "convert", "--to", "bullet", "-o", "out.txt", pattern,
            ],
        );
        out.assert_refused(pattern);
        assert_eq!(
            std::fs::read_to_string(dir.join("out.txt")).unwrap(),
            "kept\n"
        );
    }
}

/// A small positions file as the runner writes it, with bad lines of every kind mixed in.
fn positions_with_bad_lines() -> Vec<u8> {
    let mut bytes =
        b"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - ce -20; c9 \"1/2-1/2\";\n\
        8/4R3/8/6Pk/5Q2/8/4K3/8 b - - ce -1815; c9 \"1-0\";\n"
            .to_vec();
    bytes.extend_from_slice(b"garbage line\n\xff\xfe c9 \"1-0\";\n");
    bytes.extend_from_slice(b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - c9 \"1-0\";\n");
    bytes.extend_from_slice(
        b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - ce 99999999999999999999999; c9 \"1-0\";\n",
    );
    bytes.extend_from_slice(
        b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - ce -32768; c9 \"0.5\";\n",
    );
    bytes.extend_from_slice(
        b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - ce 5; c9 \"2-0\";\n",
    );
    bytes.extend_from_slice(
        b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - ce 5; c9 \"1-0\"",
    );
    bytes
}

#[test]
fn tune_convert_skips_bad_lines_naming_file_and_line() {
    let dir = scratch("convert-lines");
    std::fs::write(dir.join("p.epd"), positions_with_bad_lines()).unwrap();
    let out = run(
        &dir,
        &[
            "tune", "convert", "--to", "bullet", "-o", "out.txt", "p.epd",
        ],
    );
    out.assert_status(0, "convert");
    for line in [3, 4, 5, 6, 7, 8] {
        assert!(
            out.stderr.contains(&format!("p.epd:{line}:")),
            "line {line} not named: {}",
            out.stderr
        );
    }
    let written = std::fs::read_to_string(dir.join("out.txt")).unwrap();
    assert_eq!(written.lines().count(), 3, "{written}");
    assert!(written.contains("| 20 | 0.5"), "{written}");
}

#[test]
fn tune_convert_keeps_the_existing_output_when_an_input_cannot_be_read() {
    let dir = scratch("convert-keep");
    std::fs::write(dir.join("p.epd"), positions_with_bad_lines()).unwrap();
    std::fs::create_dir_all(dir.join("a-dir")).unwrap();
    for inputs in [&["a-dir"][..], &["p.epd", "missing.epd"][..]] {
        std::fs::write(dir.join("out.txt"), "kept\n").unwrap();
        let mut args = vec!["tune", "convert", "--to", "bullet", "-o", "out.txt"];
        args.extend_from_slice(inputs);
        let out = run(&dir, &args);
        out.assert_refused(&format!("{inputs:?}"));
        assert_eq!(
            std::fs::read_to_string(dir.join("out.txt")).unwrap(),
            "kept\n",
            "{inputs:?}: the output written before was lost"
        );
    }
}

#[test]
fn tune_convert_refuses_to_write_over_its_own_input() {
    let dir = scratch("convert-self");
    let positions = positions_with_bad_lines();
    std::fs::write(dir.join("p.epd"), &positions).unwrap();
    let out = run(
        &dir,
        &["tune", "convert", "--to", "bullet", "-o", "p.epd", "p.epd"],
    );
    out.assert_status(2, "output = input");
    assert_eq!(std::fs::read(dir.join("p.epd")).unwrap(), positions);
}

#[test]
fn tune_refuses_bad_data_patterns_with_status_2_and_unreadable_data_cleanly() {
    let dir = scratch("tune-data");
    std::fs::write(dir.join("p.epd"), positions_with_bad_lines()).unwrap();
    std::fs::create_dir_all(dir.join("a-dir")).unwrap();
    std::fs::write(
        dir.join("tune.toml"),
        "[data]\nfiles = [\"p.epd\"]\n[optimizer]\nepochs = 1\n[output]\ndir = \"tuned\"\n",
    )
    .unwrap();
    for pattern in ["[", "no-such-dir/*.epd", "**/*.nothing"] {
        let out = run(&dir, &["tune", "tune.toml", "--data", pattern]);
        out.assert_status(2, pattern);
        assert!(out.stderr.contains(pattern), "{pattern}: {}", out.stderr);
    }
    for data in ["a-dir", "/dev/null"] {
        run(&dir, &["tune", "tune.toml", "--data", data]).assert_refused(data);
    }
}
