//! The adversarial sweep of issue 21 (docs/reliability.md lists every case and the test that
//! covers it): the cases no other test file already runs. The fastchess/cutechess command line
//! option by option (each value missing, repeated, negative, huge, malformed or empty), `sparring
//! stats` at 0 games, all draws and counts near the integer limits, `sparring merge` over shard
//! directories whose games.csv or PGN a kill cut mid-line, and `--shard env` with a variable that
//! is not text. Every case ends with status 0, 1 (a failed run) or 2 (bad input, one `error:`
//! line naming the option, file or variable), never a panic, a signal or a hang.

use std::ffi::OsStr;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SPARRING: &str = env!("CARGO_BIN_EXE_sparring");

/// A case running this long is a hang: the child is killed and the test fails.
const WATCHDOG: Duration = Duration::from_secs(60);

/// What a run of the binary left.
#[derive(Debug)]
struct Outcome {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs the binary in `dir` with `env` set (the scheduler variables removed first), killing it
/// after `WATCHDOG`.
fn run_env(program: &Path, dir: &Path, args: &[&OsStr], env: &[(&str, &OsStr)]) -> Outcome {
    let mut command = Command::new(program);
    command
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
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
            panic!("sparring {args:?}: no exit after {WATCHDOG:?} (a hang): killed");
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    Outcome {
        code: status.code(),
        stdout: String::from_utf8_lossy(&out_reader.join().unwrap()).into_owned(),
        stderr: String::from_utf8_lossy(&err_reader.join().unwrap()).into_owned(),
    }
}

fn run(dir: &Path, args: &[&str]) -> Outcome {
    let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
    run_env(Path::new(SPARRING), dir, &args, &[])
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("reliability")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

impl Outcome {
    /// Bad input: status 2, nothing on standard output, an `error:` line holding `needle` first
    /// (clap adds a usage hint after its own errors; the dialect's are one line, see
    /// `check_swept`).
    fn assert_bad_input(&self, needle: &str, what: &str) {
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

// ---------------------------------------------------------------------------------------------
// The fastchess / cutechess-cli command line, option by option.

/// Two built-in engines: the part of every swept line that is not under test.
const ENGINES: &[&str] = &[
    "-engine",
    "builtin",
    "name=a",
    "tc=inf",
    "nodes=100",
    "-engine",
    "builtin",
    "name=b",
    "tc=inf",
    "nodes=100",
];

/// An option, the values of a valid use, and the word a refusal must name (the option, or for
/// an engine key the key).
struct Swept {
    option: &'static str,
    valid: &'static [&'static str],
}

/// Every option the dialect reads with a value (the flags are swept in
/// `dialect_flags_refuse_a_value_and_may_repeat`), with a valid use.
const SWEPT: &[Swept] = &[
    Swept {
        option: "-rounds",
        valid: &["2"],
    },
    Swept {
        option: "-games",
        valid: &["2"],
    },
    Swept {
        option: "-repeat",
        valid: &["2"],
    },
    Swept {
        option: "-concurrency",
        valid: &["1"],
    },
    Swept {
        option: "-srand",
        valid: &["7"],
    },
    Swept {
        option: "-maxmoves",
        valid: &["150"],
    },
    Swept {
        option: "-ratinginterval",
        valid: &["3"],
    },
    Swept {
        option: "-scoreinterval",
        valid: &["3"],
    },
    Swept {
        option: "-autosaveinterval",
        valid: &["3"],
    },
    Swept {
        option: "-variant",
        valid: &["standard"],
    },
    Swept {
        option: "-tournament",
        valid: &["gauntlet"],
    },
    Swept {
        option: "-event",
        valid: &["Batch 1"],
    },
    Swept {
        option: "-site",
        valid: &["lab"],
    },
    Swept {
        option: "--progress",
        valid: &["lines"],
    },
    Swept {
        option: "-draw",
        valid: &["movenumber=34", "movecount=8", "score=20"],
    },
    Swept {
        option: "-resign",
        valid: &["movecount=3", "score=600", "twosided=true"],
    },
    Swept {
        option: "-sprt",
        valid: &[
            "elo0=0",
            "elo1=5",
            "alpha=0.05",
            "beta=0.05",
            "model=normalized",
        ],
    },
    Swept {
        option: "-openings",
        valid: &[
            "file=book.epd",
            "format=epd",
            "order=random",
            "plies=8",
            "start=2",
            "policy=round",
        ],
    },
    Swept {
        option: "-pgnout",
        valid: &[
            "file=games.pgn",
            "append=false",
            "notation=san",
            "nodes=true",
        ],
    },
    Swept {
        option: "-report",
        valid: &["penta=true"],
    },
    Swept {
        option: "-output",
        valid: &["format=cutechess"],
    },
    Swept {
        option: "-log",
        valid: &["file=engines.log", "level=info", "engine=true"],
    },
    Swept {
        option: "-crc32",
        valid: &["pgn=true"],
    },
    Swept {
        option: "-each",
        valid: &[
            "nodes=200",
            "timemargin=250",
            "option.Hash=8",
            "proto=uci",
            "restart=off",
        ],
    },
    Swept {
        option: "-engine",
        valid: &[
            "cmd=./engine",
            "dir=engines",
            "name=c",
            "args=uci",
            "st=0.5",
            "option.Threads=1",
        ],
    },
    Swept {
        option: "-engine",
        valid: &["builtin", "name=d", "depth=5", "hash=8", "weights=w.toml"],
    },
    Swept {
        option: "-engine",
        valid: &["builtin", "name=e", "tc=inf", "plies=5"],
    },
];

/// The values every one swept in: negative, zero, huge, malformed, empty, odd text.
const BAD_VALUES: &[&str] = &[
    "-1",
    "0",
    "-0",
    "99999999999999999999",
    "18446744073709551616",
    "1e400",
    "nan",
    "abc",
    "",
    " ",
    "\t",
    "a\nb",
    "=",
    "é",
];

/// The line: the two engines (not for `-engine`, which adds a third), the swept tokens, and
/// `--dump-config`, so an accepted line writes its TOML form and plays nothing.
fn swept_line(option: &str, tokens: &[String]) -> Vec<String> {
    let mut line: Vec<String> = vec!["match".into()];
    line.extend(ENGINES.iter().map(|t| t.to_string()));
    line.push(option.to_string());
    line.extend(tokens.iter().cloned());
    line.extend(["--dump-config".to_string(), "dump.toml".to_string()]);
    line
}

/// Checks one swept case: 0 (with a dump) or 2 (naming the option or the key); prints the row.
fn check_swept(
    dir: &Path,
    option: &str,
    tokens: &[String],
    key: Option<&str>,
    rows: &mut Vec<String>,
) {
    let dump = dir.join("dump.toml");
    let _ = std::fs::remove_file(&dump);
    let line = swept_line(option, tokens);
    let args: Vec<&str> = line.iter().map(String::as_str).collect();
    let what = format!("{option} {tokens:?}");
    let out = run(dir, &args);
    assert!(!out.stderr.contains("panicked"), "{what}: {}", out.stderr);
    match out.code {
        Some(0) => {
            assert!(
                dump.exists(),
                "{what}: status 0 but no dump: {}",
                out.stderr
            );
            rows.push(format!("{what} -> 0"));
        }
        Some(2) => {
            let named = key.map_or(option, |k| k);
            let lines: Vec<&str> = out.stderr.lines().collect();
            assert!(
                lines.len() == 1
                    && lines[0].starts_with("error: ")
                    && (lines[0].contains(named) || lines[0].contains(option)),
                "{what}: expected one `error:` line naming {named}: {:?}",
                out.stderr
            );
            assert!(!dump.exists(), "{what}: refused but dumped");
            rows.push(format!("{what} -> 2: {}", lines[0]));
        }
        other => panic!("{what}: exit status {other:?}: {}", out.stderr),
    }
}

/// Every option of the dialect with its value (or each of its keys' values) missing, repeated,
/// negative, huge, malformed and empty; and the option alone at the end of the line.
#[test]
fn dialect_every_option_with_missing_repeated_negative_huge_and_malformed_values() {
    let dir = scratch("dialect-options");
    let fastchess = dir.join("fastchess");
    std::os::unix::fs::symlink(SPARRING, &fastchess).unwrap();
    let mut rows = Vec::new();
    let owned = |v: &[&str]| -> Vec<String> { v.iter().map(|s| s.to_string()).collect() };
    for swept in SWEPT {
        let option = swept.option;
        // The valid use is accepted.
        check_swept(&dir, option, &owned(swept.valid), None, &mut rows);
        assert!(
            rows.last().unwrap().ends_with("-> 0"),
            "{}",
            rows.last().unwrap()
        );
        // Missing: nothing after it, at the end of the line and before another option.
        check_swept(&dir, option, &[], None, &mut rows);
        // Through a `fastchess` link the dump goes first, so the option is the line's last.
        let dump = dir.join("dump.toml");
        let _ = std::fs::remove_file(&dump);
        let mut args: Vec<&OsStr> = vec![OsStr::new("--dump-config"), OsStr::new("dump.toml")];
        args.extend(ENGINES.iter().map(OsStr::new));
        args.push(OsStr::new(option));
        let out = run_env(&fastchess, &dir, &args, &[]);
        if option == "-repeat" {
            // `-repeat` alone is cutechess-cli's flag.
            assert_eq!(out.code, Some(0), "-repeat last: {}", out.stderr);
            rows.push(format!("{option} last on the line -> 0"));
        } else {
            out.assert_bad_input(option, &format!("{option} last on the line"));
            assert_eq!(out.stderr.lines().count(), 1, "{option}: {}", out.stderr);
            rows.push(format!(
                "{option} last on the line -> 2: {}",
                out.stderr.trim()
            ));
        }
        // Repeated: the whole group twice (the later wins or it is refused, never a crash).
        let mut twice = owned(swept.valid);
        twice.push(option.to_string());
        twice.extend(owned(swept.valid));
        check_swept(&dir, option, &twice, None, &mut rows);
        // Each value (or each key's value) replaced by a bad one; each key dropped and repeated.
        for (i, valid) in swept.valid.iter().enumerate() {
            let key = valid.split_once('=').map(|(k, _)| k);
            for bad in BAD_VALUES {
                let mut tokens = owned(swept.valid);
                tokens[i] = match key {
                    Some(k) => format!("{k}={bad}"),
                    None => bad.to_string(),
                };
                check_swept(&dir, option, &tokens, key, &mut rows);
            }
            let mut dropped = owned(swept.valid);
            dropped.remove(i);
            check_swept(&dir, option, &dropped, key, &mut rows);
            let mut repeated = owned(swept.valid);
            repeated.insert(i, valid.to_string());
            check_swept(&dir, option, &repeated, key, &mut rows);
            if let Some(k) = key {
                let mut bare = owned(swept.valid);
                bare[i] = format!("{k}=");
                check_swept(&dir, option, &bare, key, &mut rows);
                let mut no_key = owned(swept.valid);
                no_key[i] = valid[k.len()..].to_string();
                check_swept(&dir, option, &no_key, key, &mut rows);
            }
        }
    }
    for row in &rows {
        println!("{row}");
    }
    println!("{} dialect cases", rows.len());
}

/// The flags take no value: one is refused naming the flag; a flag given twice is accepted.
#[test]
fn dialect_flags_refuse_a_value_and_may_repeat() {
    let dir = scratch("dialect-flags");
    let mut rows = Vec::new();
    for flag in [
        "-recover",
        "-strict",
        "-testEnv",
        "-check-mate-pvs",
        "-show-latency",
        "--resume",
    ] {
        check_swept(&dir, flag, &[], None, &mut rows);
        check_swept(&dir, flag, &[flag.to_string()], None, &mut rows);
        for value in ["x", "-1", "true", ""] {
            check_swept(&dir, flag, &[value.to_string()], None, &mut rows);
            assert!(
                rows.last().unwrap().contains("-> 2: "),
                "{flag} {value:?}: {}",
                rows.last().unwrap()
            );
        }
    }
    for row in &rows {
        println!("{row}");
    }
}

/// A command-line argument that is not UTF-8 is refused naming the argument, not a panic.
#[test]
fn dialect_argument_that_is_not_utf8_is_refused() {
    use std::os::unix::ffi::OsStrExt;
    let dir = scratch("dialect-utf8");
    let bad = OsStr::from_bytes(b"name=\xff\xfe");
    let mut args: Vec<&OsStr> = vec![OsStr::new("match")];
    args.extend(ENGINES.iter().map(OsStr::new));
    args.extend([OsStr::new("-engine"), OsStr::new("builtin"), bad]);
    let out = run_env(Path::new(SPARRING), &dir, &args, &[]);
    out.assert_bad_input("not valid UTF-8", "a non-UTF-8 argument");
}

// ---------------------------------------------------------------------------------------------
// sparring stats: no games, all draws, counts near the integer limits.

/// Every figure printed is a number or `n/a`: never NaN, never `-0.00`; infinite only for the
/// Elo of a one-sided score (all wins or all losses: elo, elo_error, nelo).
fn assert_figures_sane(out: &Outcome, what: &str) {
    assert_eq!(out.code, Some(0), "{what}: {}", out.stderr);
    for line in out.stdout.lines() {
        let (key, value) = line.split_once(": ").unwrap_or(("", line));
        let lower = value.to_ascii_lowercase();
        assert!(
            !lower.contains("nan") && !value.contains("-0.00"),
            "{what}: {line}"
        );
        if lower.contains("inf") {
            assert!(
                matches!(key, "elo" | "elo_error" | "nelo") && what.starts_with("all "),
                "{what}: {line}"
            );
        }
    }
}

/// The `decision:` line.
fn decision(out: &Outcome) -> &str {
    out.stdout
        .lines()
        .find_map(|l| l.strip_prefix("decision: "))
        .unwrap_or("")
}

#[test]
fn stats_at_zero_games_all_draws_and_near_the_integer_limits() {
    let dir = scratch("stats");
    let max = u64::MAX.to_string();
    let half = (u64::MAX / 2).to_string();
    let third = (u64::MAX / 3).to_string();
    let sprt = ["--elo0", "0", "--elo1", "5"];
    let mut rows = Vec::new();
    let cases: Vec<(String, Vec<String>)> = vec![
        (
            "0 games (W,D,L)".into(),
            vec!["--wdl".into(), "0,0,0".into()],
        ),
        (
            "0 games (pentanomial)".into(),
            vec!["--ptnml".into(), "0,0,0,0,0".into()],
        ),
        (
            "all draws (W,D,L)".into(),
            vec!["--wdl".into(), "0,1000,0".into()],
        ),
        (
            "all draws (pentanomial)".into(),
            vec!["--ptnml".into(), "0,0,500,0,0".into()],
        ),
        ("all wins".into(), vec!["--wdl".into(), "1000,0,0".into()]),
        (
            "all losses (pentanomial)".into(),
            vec!["--ptnml".into(), "500,0,0,0,0".into()],
        ),
        (
            "all wins: one game".into(),
            vec!["--wdl".into(), "1,0,0".into()],
        ),
        (
            "all wins: W = u64::MAX".into(),
            vec!["--wdl".into(), format!("{max},0,0")],
        ),
        (
            "all draws: D = u64::MAX".into(),
            vec!["--wdl".into(), format!("0,{max},0")],
        ),
        (
            "one half: W = D = L = u64::MAX / 3".into(),
            vec!["--wdl".into(), format!("{third},{third},{third}")],
        ),
        (
            "all draws: DD = u64::MAX / 2".into(),
            vec!["--ptnml".into(), format!("0,0,{half},0,0")],
        ),
        ("one half: LL = WW = u64::MAX / 4".into(), {
            let q = (u64::MAX / 4).to_string();
            vec!["--ptnml".into(), format!("{q},0,0,0,{q}")]
        }),
    ];
    for (what, counts) in &cases {
        for model in [None, Some("normalized"), Some("logistic"), Some("bayeselo")] {
            let mut args: Vec<&str> = vec!["stats"];
            args.extend(counts.iter().map(String::as_str));
            if let Some(model) = model {
                args.extend(sprt);
                args.extend(["--model", model]);
            }
            let out = run(&dir, &args);
            let what = match model {
                Some(model) => format!("{what} with a {model} SPRT"),
                None => what.clone(),
            };
            assert_figures_sane(&out, &what);
            // A score of exactly one half never accepts elo1 = 5 (regression: all draws near
            // u64::MAX accepted H1 under the logistic model).
            if what.contains("draws") || what.starts_with("one half") {
                assert!(!decision(&out).starts_with("H1"), "{what}: {}", out.stdout);
            }
            rows.push(format!("{what}: {}", out.stdout.replace('\n', "; ")));
        }
    }
    // One past the limit: refused, naming the counts.
    for counts in [
        vec!["--wdl".to_string(), format!("{max},1,0")],
        vec!["--wdl".to_string(), "18446744073709551616,0,0".to_string()],
        vec![
            "--ptnml".to_string(),
            format!("0,0,{},0,0", u64::MAX / 2 + 1),
        ],
    ] {
        let mut args: Vec<&str> = vec!["stats"];
        args.extend(counts.iter().map(String::as_str));
        run(&dir, &args).assert_bad_input(&counts[0][2..], &format!("{counts:?}"));
    }
    for row in &rows {
        println!("{row}");
    }
}

// ---------------------------------------------------------------------------------------------
// Shards cut mid-line by a kill: merge names the missing game, --partial merges the rest, and
// `--resume` repairs the shard so the merge equals the one of the intact shards.

const MATCH_TOML: &str = "[tournament]\nkind = \"round-robin\"\nrounds = 2\nconcurrency = 1\n\
    [time_control]\nnodes = 60\n[output]\ndir = \"out\"\n\
    [[engine]]\nname = \"a\"\nbuiltin = { hash_mb = 1 }\n\
    [[engine]]\nname = \"b\"\nbuiltin = { hash_mb = 1 }\n";

/// games.csv without its last column (the durations differ between runs).
fn results(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("games.csv"))
        .unwrap()
        .lines()
        .map(|l| {
            l.rsplit_once(',')
                .unwrap()
                .0
                .rsplit_once(',')
                .unwrap()
                .0
                .to_string()
        })
        .collect()
}

#[test]
fn merge_of_a_shard_cut_mid_line_names_the_game_and_resume_repairs_it() {
    let dir = scratch("merge-cut");
    std::fs::write(dir.join("m.toml"), MATCH_TOML).unwrap();
    for i in 0..2 {
        let out = run(
            &dir,
            &[
                "match",
                "m.toml",
                "--shard",
                &format!("{i}/2"),
                "--out",
                &format!("s{i}"),
            ],
        );
        assert_eq!(out.code, Some(0), "{}", out.stderr);
    }
    let good = run(&dir, &["merge", "good", "s0", "s1"]);
    assert_eq!(good.code, Some(0), "{}", good.stderr);
    assert!(!good.stdout.contains("-0.00"), "{}", good.stdout);
    type Cut = fn(&Path);
    let cuts: &[(&str, Cut)] = &[
        ("games.csv cut mid-row", |d| {
            let p = d.join("games.csv");
            let b = std::fs::read(&p).unwrap();
            std::fs::write(&p, &b[..b.len() - 20]).unwrap();
        }),
        ("the PGN cut mid-line", |d| {
            let p = d.join("games.pgn");
            let b = std::fs::read_to_string(&p).unwrap();
            let last = b.rfind("[Event ").unwrap();
            let moves = last + b[last..].find("\n1. ").unwrap();
            std::fs::write(&p, &b[..moves + 15]).unwrap();
        }),
        ("both cut", |d| {
            let p = d.join("games.csv");
            let b = std::fs::read(&p).unwrap();
            std::fs::write(&p, &b[..b.len() - 3]).unwrap();
            let p = d.join("games.pgn");
            let b = std::fs::read(&p).unwrap();
            std::fs::write(&p, &b[..b.len() - 40]).unwrap();
        }),
    ];
    for (what, cut) in cuts {
        let copy = dir.join("cut");
        let _ = std::fs::remove_dir_all(&copy);
        std::fs::create_dir_all(&copy).unwrap();
        for entry in std::fs::read_dir(dir.join("s1")).unwrap().flatten() {
            std::fs::copy(entry.path(), copy.join(entry.file_name())).unwrap();
        }
        cut(&copy);
        let _ = std::fs::remove_dir_all(dir.join("m"));
        run(&dir, &["merge", "m", "s0", "cut"]).assert_bad_input(
            "shard 1/2 is missing games 4; rerun with --shard 1/2 --resume",
            what,
        );
        assert!(!dir.join("m").join("games.csv").exists(), "{what}");
        let partial = run(&dir, &["merge", "--partial", "m", "s0", "cut"]);
        assert_eq!(partial.code, Some(0), "{what}: {}", partial.stderr);
        assert!(
            partial.stdout.contains("Merged 3 of 4 games"),
            "{what}: {}",
            partial.stdout
        );
        let resumed = run(
            &dir,
            &[
                "match", "m.toml", "--shard", "1/2", "--out", "cut", "--resume",
            ],
        );
        assert_eq!(resumed.code, Some(0), "{what}: {}", resumed.stderr);
        let _ = std::fs::remove_dir_all(dir.join("m"));
        let merged = run(&dir, &["merge", "m", "s0", "cut"]);
        assert_eq!(merged.code, Some(0), "{what}: {}", merged.stderr);
        assert_eq!(
            results(&dir.join("m")),
            results(&dir.join("good")),
            "{what}"
        );
    }

    // The PGN emptied under a complete games.csv: not what a kill leaves, and `--resume` would
    // refuse it, so the merge says the files disagree instead of advising `--resume`.
    let copy = dir.join("cut");
    let _ = std::fs::remove_dir_all(&copy);
    std::fs::create_dir_all(&copy).unwrap();
    for entry in std::fs::read_dir(dir.join("s1")).unwrap().flatten() {
        std::fs::copy(entry.path(), copy.join(entry.file_name())).unwrap();
    }
    std::fs::write(copy.join("games.pgn"), "").unwrap();
    let _ = std::fs::remove_dir_all(dir.join("m"));
    run(&dir, &["merge", "m", "s0", "cut"]).assert_bad_input(
        "games.pgn: game 3 listed in games.csv is not in it complete (2 such game(s)): the files \
         disagree",
        "the PGN emptied",
    );

    // run.toml cut at a line boundary still parses: it is refused as damaged, naming the file,
    // instead of compared as another configuration that lacks the lost settings.
    for entry in std::fs::read_dir(dir.join("s1")).unwrap().flatten() {
        std::fs::copy(entry.path(), copy.join(entry.file_name())).unwrap();
    }
    let manifest = std::fs::read_to_string(copy.join("run.toml")).unwrap();
    let cut: String = manifest.lines().take(6).map(|l| format!("{l}\n")).collect();
    std::fs::write(copy.join("run.toml"), cut).unwrap();
    run(&dir, &["merge", "m", "s0", "cut"]).assert_bad_input(
        "run.toml: not a sparring run fingerprint: it lacks `tournament.kind`, which every \
         run.toml holds: the file is cut short or damaged",
        "run.toml cut short",
    );

    // figures.csv cut mid-row while games.csv lists the game (a damaged file, not a kill: the
    // rows are written before the game's games.csv row) is refused naming it, not merged with
    // that game's engine figures silently left out.
    let copy = dir.join("cut");
    let _ = std::fs::remove_dir_all(&copy);
    std::fs::create_dir_all(&copy).unwrap();
    for entry in std::fs::read_dir(dir.join("s1")).unwrap().flatten() {
        std::fs::copy(entry.path(), copy.join(entry.file_name())).unwrap();
    }
    let p = copy.join("figures.csv");
    let b = std::fs::read(&p).unwrap();
    std::fs::write(&p, &b[..b.len() - 7]).unwrap();
    let _ = std::fs::remove_dir_all(dir.join("m"));
    run(&dir, &["merge", "m", "s0", "cut"]).assert_bad_input(
        "figures.csv: game 4 lacks one or both of its rows",
        "figures.csv cut mid-row",
    );
    assert!(!dir.join("m").join("games.csv").exists());
}

// ---------------------------------------------------------------------------------------------
// SPSA killed during its setup (before state.toml): --resume starts it.

#[test]
fn spsa_killed_before_its_first_state_starts_again_with_resume() {
    let dir = scratch("spsa-setup");
    let root = env!("CARGO_MANIFEST_DIR");
    let config = format!("{root}/configs/spsa.toml");
    let out_of = |name: &str| dir.join(name).display().to_string();
    let args = |out: &str, resume: bool| -> Vec<String> {
        let mut a: Vec<String> = [
            "spsa",
            &config,
            "--iterations",
            "1",
            "--concurrency",
            "1",
            "--out",
            out,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        if resume {
            a.push("--resume".into());
        }
        a
    };
    let spsa = |a: Vec<String>| -> Outcome {
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        run(Path::new(root), &a)
    };
    let whole = out_of("whole");
    let out = spsa(args(&whole, false));
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    // A kill before the directory was made, and one during the setup (everything but the
    // state, which is written last).
    let never = out_of("never");
    let setup = out_of("setup");
    std::fs::create_dir_all(&setup).unwrap();
    for file in ["run.txt", "trajectory.csv", "trajectory.svg", "tuned.toml"] {
        std::fs::copy(dir.join("whole").join(file), dir.join("setup").join(file)).unwrap();
    }
    std::fs::write(
        dir.join("setup/pairs.csv"),
        "iteration,pair,plus_wins,draws,minus_wins\n",
    )
    .unwrap();
    for (out_dir, name) in [(&never, "never"), (&setup, "setup")] {
        let out = spsa(args(out_dir, true));
        assert_eq!(out.code, Some(0), "{name}: {}", out.stderr);
        for file in ["state.toml", "trajectory.csv", "pairs.csv"] {
            assert_eq!(
                std::fs::read(dir.join(name).join(file)).unwrap(),
                std::fs::read(dir.join("whole").join(file)).unwrap(),
                "{name}: {file}"
            );
        }
    }
    // Finished pairs without a state: a damaged run, refused and left as it is.
    let damaged = out_of("damaged");
    std::fs::create_dir_all(&damaged).unwrap();
    let pairs = std::fs::read(dir.join("whole/pairs.csv")).unwrap();
    std::fs::write(dir.join("damaged/pairs.csv"), &pairs).unwrap();
    // (spsa prints its plan on standard output before it opens the directory.)
    let out = spsa(args(&damaged, true));
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(
        out.stderr.starts_with("error: ") && out.stderr.contains("pairs.csv holds finished pairs"),
        "{}",
        out.stderr
    );
    assert_eq!(std::fs::read(dir.join("damaged/pairs.csv")).unwrap(), pairs);
    assert!(!dir.join("damaged/state.toml").exists());
}

// ---------------------------------------------------------------------------------------------
// --shard env: the variables robustness.rs does not set (not text, empty, signs, spaces, the
// count without the id, --shards 0), for match and spsa.

#[test]
fn shard_env_refuses_every_bad_variable_naming_it() {
    use std::os::unix::ffi::OsStrExt;
    let dir = scratch("shard-env");
    std::fs::write(dir.join("m.toml"), MATCH_TOML).unwrap();
    let not_text = OsStr::from_bytes(b"\xff1");
    let o = OsStr::new;
    // (variables, arguments after `--shard env`, what the refusal names)
    type Case<'a> = (&'a [(&'a str, &'a OsStr)], &'a [&'a str], &'a str);
    let cases: &[Case] = &[
        (
            &[
                ("SLURM_ARRAY_TASK_ID", not_text),
                ("SLURM_ARRAY_TASK_COUNT", o("2")),
            ],
            &[],
            "SLURM_ARRAY_TASK_ID",
        ),
        (
            &[
                ("SLURM_ARRAY_TASK_ID", o("1")),
                ("SLURM_ARRAY_TASK_COUNT", not_text),
            ],
            &[],
            "SLURM_ARRAY_TASK_COUNT",
        ),
        (
            &[
                ("SLURM_ARRAY_TASK_ID", o("1")),
                ("SLURM_ARRAY_TASK_COUNT", o("2")),
                ("SLURM_ARRAY_TASK_MIN", not_text),
            ],
            &[],
            "SLURM_ARRAY_TASK_MIN",
        ),
        // Not text is not unset: the Kubernetes index beside it is not taken instead.
        (
            &[
                ("SLURM_ARRAY_TASK_ID", not_text),
                ("JOB_COMPLETION_INDEX", o("0")),
            ],
            &["--shards", "2"],
            "SLURM_ARRAY_TASK_ID",
        ),
        (
            &[("JOB_COMPLETION_INDEX", not_text)],
            &["--shards", "2"],
            "JOB_COMPLETION_INDEX",
        ),
        (
            &[
                ("SLURM_ARRAY_TASK_ID", o("")),
                ("SLURM_ARRAY_TASK_COUNT", o("2")),
            ],
            &[],
            "SLURM_ARRAY_TASK_ID",
        ),
        (
            &[
                ("SLURM_ARRAY_TASK_ID", o("-0")),
                ("SLURM_ARRAY_TASK_COUNT", o("2")),
            ],
            &[],
            "SLURM_ARRAY_TASK_ID",
        ),
        (
            &[
                ("SLURM_ARRAY_TASK_ID", o("1.0")),
                ("SLURM_ARRAY_TASK_COUNT", o("2")),
            ],
            &[],
            "SLURM_ARRAY_TASK_ID",
        ),
        (
            &[
                ("SLURM_ARRAY_TASK_ID", o("1 2")),
                ("SLURM_ARRAY_TASK_COUNT", o("2")),
            ],
            &[],
            "SLURM_ARRAY_TASK_ID",
        ),
        (
            &[
                ("SLURM_ARRAY_TASK_ID", o("0x1")),
                ("SLURM_ARRAY_TASK_COUNT", o("2")),
            ],
            &[],
            "SLURM_ARRAY_TASK_ID",
        ),
        (
            &[("SLURM_ARRAY_TASK_ID", o("1"))],
            &[],
            "SLURM_ARRAY_TASK_COUNT",
        ),
        (
            &[("SLURM_ARRAY_TASK_COUNT", o("2"))],
            &[],
            "SLURM_ARRAY_TASK_ID",
        ),
        (
            &[("SLURM_ARRAY_TASK_ID", o("0"))],
            &["--shards", "0"],
            "--shard env",
        ),
        (
            &[("SLURM_ARRAY_TASK_ID", o("2"))],
            &["--shards", "2"],
            "--shard env",
        ),
        (
            &[("JOB_COMPLETION_INDEX", o("0"))],
            &["--shards", "18446744073709551616"],
            "--shards",
        ),
        (
            &[("JOB_COMPLETION_INDEX", o("0"))],
            &["--shards", "-1"],
            // clap's own refusal names the value it took for an option.
            "'-1'",
        ),
    ];
    // spsa runs in the checkout (its configuration's paths are relative to it), writing to the
    // scratch directory.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shared = dir.join("shared").display().to_string();
    for (env, extra, needle) in cases {
        for (command, cwd) in [
            (&["match", "m.toml", "--out", "s"][..], dir.as_path()),
            (&["spsa", "configs/spsa.toml", "--shared", &shared], root),
        ] {
            let mut args: Vec<&OsStr> = command.iter().map(OsStr::new).collect();
            args.extend([o("--shard"), o("env")]);
            args.extend(extra.iter().map(OsStr::new));
            let out = run_env(Path::new(SPARRING), cwd, &args, env);
            let what = format!("{command:?} {env:?} {extra:?}");
            out.assert_bad_input(needle, &what);
            assert!(!dir.join("s").exists(), "{what}: output written");
            assert!(
                !dir.join("shared").exists(),
                "{what}: shared directory made"
            );
        }
    }
}
