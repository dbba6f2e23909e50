//! Output files across runs and machines: reruns into one `-pgnout` file (the default appends,
//! `append=false` replaces, `--resume` continues, a half game a kill left is cut), shard
//! arguments and scheduler variables refused by name, `sparring merge` over damaged or foreign
//! shard directories (refused, nothing touched; a shard cut mid-line is named and `--resume`
//! repairs it), and SPSA state: damaged state refused with the run's files kept, a run killed
//! before its first state started again by `--resume`.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::common::binary;
use crate::common::hostile;
use binary::{scratch_in, sparring, Run};
use hostile::{run, run_env, run_in, Outcome, SPARRING};
use sparring::record::split_pgn_games;

/// A fresh, empty scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    scratch_in("resume_and_merge", name)
}

// ---------------------------------------------------------------------------------------------
// Reruns into one -pgnout file (issue 21, items 1, 2 and 6)

/// A two-engine dialect match at 300 nodes into `pgn`, with extra options.
fn dialect_run(pgn: &Path, rounds: &str, extra: &[&str]) -> Run {
    let weights = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/weights");
    let default = format!("weights={weights}/default.toml");
    let material = format!("weights={weights}/material-only.toml");
    let book = concat!(env!("CARGO_MANIFEST_DIR"), "/openings/balanced-8ply.epd");
    let file = format!("file={}", pgn.display());
    let openings = format!("file={book}");
    let mut args = vec![
        "match",
        "-engine",
        "builtin",
        "name=a",
        &default,
        "-engine",
        "builtin",
        "name=b",
        &material,
        "-each",
        "tc=inf",
        "nodes=300",
        "-openings",
        &openings,
        "format=epd",
        "order=sequential",
        "-rounds",
        rounds,
        "-srand",
        "7",
        "-pgnout",
        &file,
    ];
    args.extend_from_slice(extra);
    let run = sparring(&args);
    assert_eq!(run.code, 0, "{args:?}\n{}", run.stderr);
    run
}

/// The games of a PGN file, each checked complete: (GameId, text).
fn games(pgn: &Path) -> Vec<(u64, String)> {
    let text = std::fs::read_to_string(pgn).unwrap();
    split_pgn_games(&text)
        .iter()
        .map(|g| {
            assert!(
                g.complete,
                "an incomplete game in {}:\n{}",
                pgn.display(),
                g.text
            );
            (g.game_id.expect("GameId"), g.text.trim_end().to_string())
        })
        .collect()
}

/// The games without what the clock decides (move times, duration, date).
fn without_clock(games: &[(u64, String)]) -> Vec<(u64, String)> {
    let time = regex::Regex::new(r" [0-9]+\.[0-9]+s").unwrap();
    games
        .iter()
        .map(|(id, text)| {
            let text: String = text
                .lines()
                .filter(|l| !l.starts_with("[GameDuration ") && !l.starts_with("[Date "))
                .collect::<Vec<_>>()
                .join(" ");
            (*id, time.replace_all(&text, "").into_owned())
        })
        .collect()
}

#[test]
fn a_second_run_appends_its_games_after_the_first_runs() {
    let dir = scratch_in("reruns", "append");
    let pgn = dir.join("g.pgn");
    dialect_run(&pgn, "1", &[]);
    let first = games(&pgn);
    assert_eq!(first.len(), 2);
    dialect_run(&pgn, "1", &[]);
    let both = games(&pgn);
    assert_eq!(both.len(), 4, "the second run's games follow the first's");
    assert!(
        both[..2] == first[..],
        "the first run's games are untouched"
    );
    // Each run numbers its own games; the previous run's state is set aside, not lost.
    assert_eq!(both.iter().map(|g| g.0).collect::<Vec<_>>(), [1, 2, 1, 2]);
    let side = dir.join("g.pgn.sparring");
    assert!(side.join("previous/games.csv").is_file());
    assert_eq!(
        std::fs::read_to_string(side.join("games.csv"))
            .unwrap()
            .lines()
            .count(),
        3,
        "games.csv holds this run's games"
    );
}

#[test]
fn append_false_replaces_the_file() {
    let dir = scratch_in("reruns", "replace");
    let pgn = dir.join("g.pgn");
    dialect_run(&pgn, "1", &[]);
    dialect_run(&pgn, "1", &[]);
    assert_eq!(games(&pgn).len(), 4);
    dialect_run(&pgn, "1", &["append=false"]);
    assert_eq!(games(&pgn).len(), 2, "append=false replaces the file");
}

#[test]
fn a_half_game_a_killed_run_left_is_cut_before_appending() {
    let dir = scratch_in("reruns", "half-game");
    let pgn = dir.join("g.pgn");
    dialect_run(&pgn, "1", &[]);
    let whole = std::fs::read_to_string(&pgn).unwrap();
    // A kill inside the second game's movetext.
    let cut = whole.rfind("1. ").unwrap() + 10;
    std::fs::write(&pgn, &whole[..cut]).unwrap();
    dialect_run(&pgn, "1", &[]);
    let after = games(&pgn);
    assert_eq!(
        after.len(),
        3,
        "one complete earlier game and this run's two"
    );
}

#[test]
fn resume_continues_an_appending_run_without_touching_earlier_games() {
    let dir = scratch_in("reruns", "resume");
    let pgn = dir.join("g.pgn");
    dialect_run(&pgn, "1", &[]);
    let earlier = games(&pgn);
    dialect_run(&pgn, "2", &[]);
    let complete = games(&pgn);
    assert_eq!(complete.len(), 6);
    // The state a kill during the second run's last game leaves: its CSV row missing and its
    // PGN game cut short.
    let side = dir.join("g.pgn.sparring");
    let csv = std::fs::read_to_string(side.join("games.csv")).unwrap();
    let mut rows: Vec<&str> = csv.lines().collect();
    rows.pop();
    std::fs::write(side.join("games.csv"), rows.join("\n") + "\n").unwrap();
    let text = std::fs::read_to_string(&pgn).unwrap();
    let cut = text.rfind("1. ").unwrap() + 10;
    std::fs::write(&pgn, &text[..cut]).unwrap();
    dialect_run(&pgn, "2", &["--resume"]);
    let resumed = games(&pgn);
    assert_eq!(resumed.len(), 6);
    assert!(
        resumed[..2] == earlier[..],
        "the earlier run's games are untouched"
    );
    assert!(
        without_clock(&resumed) == without_clock(&complete),
        "the replayed game is the same at fixed nodes"
    );
}

/// Issue 21, 6: `-games 1 -rounds 3` was refused; fastchess plays three games, colours
/// alternating, and so does sparring, the last game outside the pentanomial.
#[test]
fn games_1_with_odd_rounds_plays_that_many_games() {
    let dir = scratch_in("reruns", "odd-games");
    let pgn = dir.join("g.pgn");
    let run = dialect_run(&pgn, "3", &["-games", "1"]);
    let played = games(&pgn);
    assert_eq!(played.iter().map(|g| g.0).collect::<Vec<_>>(), [1, 2, 3]);
    let whites: Vec<bool> = played
        .iter()
        .map(|g| g.1.contains("[White \"a\"]"))
        .collect();
    assert_eq!(whites, [true, false, true], "colours alternate");
    assert!(run.stdout.contains("Games: 3, "), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("Unpaired games: 1 (in Games, not in Ptnml)"),
        "{}",
        run.stdout
    );
}

// ---------------------------------------------------------------------------------------------
// Shards: arguments and scheduler variables

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

// --shard env: the variables the test above does not set (not text, empty, signs, spaces,
// the count without the id, --shards 0), for match and spsa.
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

// ---------------------------------------------------------------------------------------------
// Merge over damaged shard directories

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

// Shards cut mid-line by a kill: merge names the missing game, --partial merges the rest, and
// `--resume` repairs the shard so the merge equals the one of the intact shards.
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
// SPSA state

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
