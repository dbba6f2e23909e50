//! The fastchess / cutechess-cli command line refused: every option that takes a value with its
//! value missing, repeated, negative, huge, malformed or empty (the adversarial sweep of issue 21;
//! docs/reliability.md lists the cases), flags given a value, arguments that are not UTF-8, and
//! hostile limits with real engines on the line. Every case ends with status 0 or 2 and one
//! `error:` line naming the option, never a panic, a signal, a hang or an engine started; and
//! `--dump-config` reads back to itself.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

#[path = "common/binary.rs"]
mod binary;
use binary::{sparring, text, Run};
#[path = "common/hostile.rs"]
mod hostile;
use hostile::{assert_no_leftover, mock_engine, run, run_env, SPARRING};

/// A fresh, empty scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    binary::scratch_in("dialect_cli", name)
}

fn assert_bad_input(run: &Run, needles: &[&str]) {
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

// ---------------------------------------------------------------------------------------------
// Option by option

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

// Regression test of review defect 3 (the fastchess dialect).
#[test]
fn dialect_options_without_values_exit_2_naming_the_option() {
    let dir = scratch("dialect_empty_options");
    let dump = dir.join("dump.toml");
    let two = [
        "match", "-engine", "builtin", "nodes=10", "-engine", "builtin", "nodes=10",
    ];
    for option in [
        "-pgnout",
        "-each",
        "-openings",
        "-rounds",
        "-engine",
        "-draw",
    ] {
        let mut args = two.to_vec();
        args.extend(["--dump-config", text(&dump), option]);
        let run = sparring(&args);
        assert_bad_input(&run, &[option]);
        assert!(!dump.exists(), "{option}: the configuration was written");
    }
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
// Whole command lines

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
