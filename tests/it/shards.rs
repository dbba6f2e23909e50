//! Sharded runs through the binary, as a scheduler starts them (`--shard I/N`, Slurm's and
//! Kubernetes' environment variables), merged with `sparring merge` and compared with the
//! unsharded run: a gauntlet, a round-robin and a self-play data run with positions. Also: a
//! missing shard named by the merge, a killed shard resumed, shards of different
//! configurations refused, and resume refusing changed per-engine time controls and PGN names.
//!
//! What "byte for byte" means: wall-clock fields differ between any two runs (the PGN's move
//! times, `Date` and `GameDuration`, games.csv's `duration_ms`, ranking.csv's speed and time
//! columns), so those are masked; everything else must be equal bytes in the same order. The
//! unsharded run plays at concurrency 1, so its files are in game-id order, as merged files are.

use sparring::ErrorClass;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::run_files;
use run_files::{
    assert_ok, assert_progress_counts_within_the_shard, assert_same_results, csv_without, out_dir,
    pgn_without_clock, text, write_config,
};
use run_files::{
    builtin,
    config::{balanced_book, MatchToml},
};

const SPARRING: &str = env!("CARGO_BIN_EXE_sparring");

fn sparring(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(SPARRING);
    command.args(args).args(["--progress", "lines"]);
    for var in [
        "SLURM_ARRAY_TASK_ID",
        "SLURM_ARRAY_TASK_COUNT",
        "SLURM_ARRAY_TASK_MIN",
        "JOB_COMPLETION_INDEX",
    ] {
        command.env_remove(var);
    }
    command.envs(env.iter().copied());
    command.output().unwrap()
}

fn merge(args: &[&str]) -> Output {
    let mut command = Command::new(SPARRING);
    command.arg("merge").args(args);
    command.output().unwrap()
}

/// How each of the 4 shards is started: a flag, Slurm's array variables, Kubernetes' index.
fn play_shard(config: &Path, index: u64, extra: &[&str]) -> Output {
    let config = config.to_str().unwrap();
    let i = index.to_string();
    match index {
        1 => sparring(
            &[&["match", config, "--shard-from-env"], extra].concat(),
            &[
                ("SLURM_ARRAY_TASK_ID", &i),
                ("SLURM_ARRAY_TASK_COUNT", "4"),
                ("SLURM_ARRAY_TASK_MIN", "0"),
            ],
        ),
        2 => sparring(
            &[&["match", config, "--shard", "env", "--shards", "4"], extra].concat(),
            &[("JOB_COMPLETION_INDEX", &i)],
        ),
        _ => {
            let shard = format!("{index}/4");
            sparring(
                &[&["match", config, "--shard", &shard], extra].concat(),
                &[],
            )
        }
    }
}

/// Plays the unsharded run and the 4 shards, merges them and compares.
fn four_shards_equal_one_run(name: &str, config_toml: &MatchToml, positions: bool) -> PathBuf {
    let dir = out_dir(name);
    let config = write_config(config_toml, &dir);
    let single = dir.join("single");
    assert_ok(
        &sparring(&["match", config.to_str().unwrap()], &[]),
        "single run",
    );
    let mut shard_dirs = Vec::new();
    for index in 0..4 {
        let out = play_shard(&config, index, &[]);
        assert_ok(&out, &format!("shard {index}"));
        assert_progress_counts_within_the_shard(&out, &format!("shard {index}/4"));
        // Default: under output.dir.
        let shard_dir = single.join(format!("shard-{index}-of-4"));
        let manifest = text(&shard_dir.join("run.toml"));
        assert!(manifest.contains(&format!("\"shard.index\" = \"{index}\"")));
        assert!(manifest.contains("\"shard.count\" = \"4\""));
        assert!(manifest.contains("\"shard.game_ids\" = "));
        assert!(manifest.contains("\"run.sparring_version\" = "));
        shard_dirs.push(shard_dir.display().to_string());
    }
    let merged = dir.join("merged");
    let mut args = vec![merged.to_str().unwrap()];
    // In reverse: the merge orders by game id whatever order it is given.
    args.extend(shard_dirs.iter().rev().map(String::as_str));
    let out = merge(&args);
    assert_ok(&out, "merge");
    assert_same_results(&single, &merged, positions);
    // With the merged figures.csv, the merged page has the engines' sections the run's has.
    let page = text(&merged.join("report.html"));
    for section in ["Compliance warnings by engine", "Average depth per game"] {
        assert!(
            page.contains(section),
            "{section} missing from the merged page"
        );
    }
    assert!(!page.contains("figures.csv is missing"));
    dir
}

/// The default weights against material only, 8 pairs from the shipped book, without openings.
fn gauntlet_from_the_start() -> MatchToml {
    MatchToml::gauntlet()
        .rounds(8)
        .concurrency(1)
        .seed(11)
        .nodes(300)
        .max_moves(40)
        .engine(builtin("default", "default.toml"))
        .engine(builtin("material", "material-only.toml"))
}

/// `gauntlet_from_the_start` from the shipped book in random order.
fn gauntlet() -> MatchToml {
    gauntlet_from_the_start()
        .openings(balanced_book())
        .openings_order("random")
}

#[test]
fn four_shards_of_a_gauntlet_merge_into_the_single_run() {
    let dir = four_shards_equal_one_run("shards_gauntlet", &gauntlet(), false);
    // A run at concurrency 2 writes in finish order; merged alone (a 1-way split), its files
    // are in game-id order, as the concurrency-1 run's.
    let config = dir.join("run-config.toml");
    let two = dir.join("concurrency-2");
    assert_ok(
        &sparring(
            &[
                "match",
                config.to_str().unwrap(),
                "--concurrency",
                "2",
                "--out",
                two.to_str().unwrap(),
            ],
            &[],
        ),
        "concurrency 2",
    );
    let sorted = dir.join("concurrency-2-merged");
    assert_ok(
        &merge(&[sorted.to_str().unwrap(), two.to_str().unwrap()]),
        "merge of one run",
    );
    let merged = dir.join("merged");
    assert_eq!(
        pgn_without_clock(&merged.join("games.pgn")),
        pgn_without_clock(&sorted.join("games.pgn"))
    );
    assert_eq!(
        csv_without(&merged.join("games.csv"), &["duration_ms"]),
        csv_without(&sorted.join("games.csv"), &["duration_ms"])
    );
    assert_eq!(
        text(&merged.join("summary.csv")),
        text(&sorted.join("summary.csv"))
    );
    // The merge refuses to write into one of its inputs.
    let out = merge(&[two.to_str().unwrap(), two.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("must not be one of the shard"));
    // Regression (issue 21, 3): a directory of the user's is refused and left untouched; an
    // earlier merge of the same run is replaced whole, leaving no staging directories.
    let users = dir.join("users-own");
    std::fs::create_dir_all(&users).unwrap();
    std::fs::write(users.join("games.pgn"), "my own games\n").unwrap();
    let out = merge(&[users.to_str().unwrap(), two.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("holds files that no earlier merge wrote"),
        "{stderr}"
    );
    assert_eq!(text(&users.join("games.pgn")), "my own games\n");
    assert_eq!(
        std::fs::read_dir(&users).unwrap().count(),
        1,
        "nothing added"
    );
    let before = text(&sorted.join("summary.csv"));
    assert_ok(
        &merge(&[sorted.to_str().unwrap(), two.to_str().unwrap()]),
        "merge again over the earlier merge",
    );
    assert_eq!(text(&sorted.join("summary.csv")), before);
    for leftover in [
        "concurrency-2-merged.merging",
        "concurrency-2-merged.replaced",
    ] {
        assert!(!dir.join(leftover).exists(), "{leftover} left behind");
    }
    // A merge of another run (another fingerprint) is not replaced either.
    let other = dir.join("other-merge");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("merged-by-sparring"), "").unwrap();
    std::fs::write(other.join("run.toml"), "seed = 99\n").unwrap();
    let out = merge(&[other.to_str().unwrap(), two.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("another run"));
    let games = csv_without(&dir.join("merged/games.csv"), &[]);
    assert_eq!(games.len(), 1 + 16);
    // Each shard played only its block of whole pairs: 2 pairs each.
    for index in 0..4u64 {
        let shard_games = csv_without(
            &dir.join(format!("single/shard-{index}-of-4/games.csv")),
            &[],
        );
        let ids: Vec<u64> = shard_games[1..]
            .iter()
            .map(|r| r[0].parse().unwrap())
            .collect();
        assert_eq!(ids, (4 * index + 1..=4 * index + 4).collect::<Vec<_>>());
    }
}

#[test]
fn a_missing_shard_is_named_and_partial_merges_report_what_is_there() {
    let dir = four_shards_equal_one_run("shards_missing", &gauntlet(), false);
    let shard = |i: u64| {
        dir.join(format!("single/shard-{i}-of-4"))
            .display()
            .to_string()
    };
    let merged = dir.join("merged-3");
    let out = merge(&[merged.to_str().unwrap(), &shard(0), &shard(1), &shard(3)]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("4 of 16 games are missing: shard 2/4 (games 9-12) was not given"),
        "{stderr}"
    );
    assert!(stderr.contains("--shard 2/4"), "{stderr}");
    assert!(!merged.join("games.csv").exists(), "nothing written");

    // --partial: the statistics of the 12 games there, with a warning.
    let out = merge(&[
        "--partial",
        merged.to_str().unwrap(),
        &shard(0),
        &shard(1),
        &shard(3),
    ]);
    assert_ok(&out, "partial merge");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning: partial merge: shard 2/4"),
        "{stderr}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("Merged 12 of 16 games"), "{stdout}");
    let summary = csv_without(&merged.join("summary.csv"), &[]);
    let games = summary[0].iter().position(|h| h == "games").unwrap();
    assert_eq!(summary[1][games], "12");

    // A directory a killed task made but never wrote to is left out as not given (a driver's
    // glob picks it up), with a note, instead of failing every merge.
    let empty = dir.join("single/shard-2-of-4-never-started");
    std::fs::create_dir_all(&empty).unwrap();
    let out = merge(&[
        "--partial",
        merged.to_str().unwrap(),
        &shard(0),
        &shard(1),
        empty.to_str().unwrap(),
        &shard(3),
    ]);
    assert_ok(&out, "partial merge with a directory that holds no run yet");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("note: {} holds no run yet", empty.display()))
            && stderr.contains("warning: partial merge: shard 2/4"),
        "{stderr}"
    );

    // A shard given twice, and a directory that is no run.
    let out = merge(&[merged.to_str().unwrap(), &shard(0), &shard(0)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("shard 0/4 is given twice"));
    let out = merge(&[dir.join("m").to_str().unwrap(), dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no run.toml"));
    // A run.toml that is not text is bad input (status 2, the file named), not an I/O failure.
    let binary = dir.join("binary-run-toml");
    std::fs::create_dir_all(&binary).unwrap();
    std::fs::write(binary.join("run.toml"), b"\"shard.index\" = \"\xff\xfe\"\n").unwrap();
    let out = merge(&[
        dir.join("m").to_str().unwrap(),
        &shard(0),
        binary.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&binary.join("run.toml").display().to_string())
            && stderr.contains("not UTF-8"),
        "{stderr}"
    );
}

#[test]
fn a_killed_shard_resumes_and_the_merge_still_equals_the_single_run() {
    let dir = four_shards_equal_one_run("shards_resume", &gauntlet(), false);
    let config = dir.join("run-config.toml");
    let shard1 = dir.join("single/shard-1-of-4");
    // What a kill during game 8 leaves: game 8's PGN half written, no CSV row for it (and a
    // figures row for it, which resume drops).
    let csv_path = shard1.join("games.csv");
    let csv = text(&csv_path);
    let kept: Vec<&str> = csv.lines().filter(|l| !l.starts_with("8,")).collect();
    std::fs::write(&csv_path, kept.join("\n") + "\n").unwrap();
    let pgn_path = shard1.join("games.pgn");
    let pgn = text(&pgn_path);
    let last = pgn.rfind("[Event ").unwrap();
    std::fs::write(&pgn_path, &pgn[..last + (pgn.len() - last) / 2]).unwrap();

    let dirs: Vec<String> = (0..4)
        .map(|i| {
            dir.join(format!("single/shard-{i}-of-4"))
                .display()
                .to_string()
        })
        .collect();
    let merged = dir.join("merged-killed");
    let mut args = vec![merged.to_str().unwrap()];
    args.extend(dirs.iter().map(String::as_str));
    let out = merge(&args);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("shard 1/4 is missing games 8; rerun with --shard 1/4 --resume"),
        "{stderr}"
    );

    // Resuming a shard as another shard is refused (its directory records its shard).
    let out = sparring(
        &[
            "match",
            config.to_str().unwrap(),
            "--shard",
            "2/4",
            "--out",
            shard1.to_str().unwrap(),
            "--resume",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("shard.index was 1 and is now 2"));

    assert_ok(
        &sparring(
            &[
                "match",
                config.to_str().unwrap(),
                "--shard",
                "1/4",
                "--resume",
            ],
            &[],
        ),
        "resumed shard",
    );
    let out = merge(&args);
    assert_ok(&out, "merge after resume");
    assert_same_results(&dir.join("single"), &merged, false);
}

#[test]
fn shards_of_different_configurations_are_refused() {
    let dir = four_shards_equal_one_run("shards_mismatch", &gauntlet(), false);
    let config = dir.join("run-config.toml");
    let other = dir.join("other-seed");
    assert_ok(
        &sparring(
            &[
                "match",
                config.to_str().unwrap(),
                "--shard",
                "3/4",
                "--seed",
                "12",
                "--out",
                other.to_str().unwrap(),
            ],
            &[],
        ),
        "shard with another seed",
    );
    let shard = |i: u64| {
        dir.join(format!("single/shard-{i}-of-4"))
            .display()
            .to_string()
    };
    let merged = dir.join("merged-mixed");
    let out = merge(&[
        merged.to_str().unwrap(),
        &shard(0),
        &shard(1),
        &shard(2),
        other.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("different configurations"), "{stderr}");
    assert!(stderr.contains("tournament.seed is 11 and 12"), "{stderr}");
    // A different split is refused too.
    let halves = dir.join("half");
    assert_ok(
        &sparring(
            &[
                "match",
                config.to_str().unwrap(),
                "--shard",
                "1/2",
                "--out",
                halves.to_str().unwrap(),
            ],
            &[],
        ),
        "shard 1/2",
    );
    let out = merge(&[
        merged.to_str().unwrap(),
        &shard(0),
        halves.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("must come from one split"));
}

fn round_robin() -> MatchToml {
    MatchToml::round_robin()
        .rounds(2)
        .concurrency(1)
        .seed(4)
        .nodes(300)
        .openings(balanced_book())
        .openings_order("random")
        .max_moves(40)
        .engine(builtin("default", "default.toml"))
        .engine(builtin("material", "material-only.toml"))
        .engine(builtin("default-2", "default.toml"))
}

#[test]
fn four_shards_of_a_round_robin_merge_into_the_single_run() {
    let dir = four_shards_equal_one_run("shards_round_robin", &round_robin(), false);
    assert_eq!(
        csv_without(&dir.join("merged/games.csv"), &[]).len(),
        1 + 12
    );
    assert_eq!(
        csv_without(&dir.join("merged/ranking.csv"), &[]).len(),
        1 + 3
    );
}

fn self_play() -> MatchToml {
    MatchToml::gauntlet()
        .rounds(6)
        .concurrency(1)
        .seed(21)
        .nodes(300)
        .openings(balanced_book())
        .openings_order("random")
        .random_plies_per_game(2)
        .max_moves(30)
        .positions(true)
        .positions_per_game(6)
        .positions_format("both")
        .engine(builtin("a", "default.toml"))
        .engine(builtin("b", "default.toml"))
}

#[test]
fn four_shards_of_self_play_data_merge_into_the_single_run() {
    // positions.epd and positions.bullet (compared in assert_same_results).
    let dir = four_shards_equal_one_run("shards_self_play", &self_play(), true);
    let single = dir.join("single");
    let bullet = text(&single.join("positions.bullet"));
    let epd = text(&single.join("positions.epd"));
    assert_eq!(
        bullet.lines().count(),
        epd.lines().count(),
        "every position has a score"
    );
    for line in bullet.lines() {
        let fields: Vec<&str> = line.split(" | ").collect();
        assert_eq!(fields.len(), 3, "{line}");
        assert!(fields[1].parse::<i32>().is_ok(), "{line}");
        assert!(["1.0", "0.5", "0.0"].contains(&fields[2]), "{line}");
    }

    // A kill during shard 2's last game, after its positions were written: its CSV row is
    // missing, and a half-written bullet line of the next game follows.
    let shard2 = single.join("shard-2-of-4");
    let csv_path = shard2.join("games.csv");
    let csv = text(&csv_path);
    let mut rows: Vec<&str> = csv.lines().collect();
    let last_game = rows.pop().unwrap().split(',').next().unwrap().to_string();
    std::fs::write(&csv_path, rows.join("\n") + "\n").unwrap();
    let bullet_path = shard2.join("positions.bullet");
    std::fs::write(&bullet_path, text(&bullet_path) + "rnbqkbnr/pppp").unwrap();
    let config = dir.join("run-config.toml");
    let out = sparring(
        &[
            "match",
            config.to_str().unwrap(),
            "--shard",
            "2/4",
            "--resume",
        ],
        &[],
    );
    assert_ok(&out, "resume of shard 2");
    let replayed: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.starts_with("Started game "))
        .map(|l| l.split(' ').nth(2).unwrap().to_string())
        .collect();
    assert_eq!(replayed, vec![last_game], "only the unrecorded game");
    let merged = dir.join("merged-resumed");
    let mut args = vec![merged.display().to_string()];
    args.extend((0..4).map(|i| single.join(format!("shard-{i}-of-4")).display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    assert_ok(&merge(&args), "merge after the resume");
    assert_same_results(&single, &merged, true);
}

/// Extra arguments, environment variables, and what the error must say.
type EnvCase = (
    &'static [&'static str],
    &'static [(&'static str, &'static str)],
    &'static str,
);

#[test]
fn the_shard_from_the_environment_is_checked() {
    let dir = out_dir("shards_env");
    let config = write_config(&gauntlet(), &dir);
    let config = config.to_str().unwrap();
    let cases: &[EnvCase] = &[
        (
            &["--shard-from-env"],
            &[],
            "--shard-from-env: neither SLURM_ARRAY_TASK_ID",
        ),
        // Errors name the option as typed (issue 21, 7).
        (
            &["--shard", "env"],
            &[],
            "--shard env: neither SLURM_ARRAY_TASK_ID",
        ),
        (
            &["--shard", "env"],
            &[("SLURM_ARRAY_TASK_ID", "-1")],
            "--shard env: SLURM_ARRAY_TASK_ID=\"-1\" is not a whole number",
        ),
        (
            &["--shard-from-env"],
            &[
                ("SLURM_ARRAY_TASK_ID", "4"),
                ("SLURM_ARRAY_TASK_COUNT", "4"),
            ],
            "shard index 4 is out of range for 4 shard(s)",
        ),
        (
            &["--shard-from-env"],
            &[("SLURM_ARRAY_TASK_ID", "1")],
            "SLURM_ARRAY_TASK_COUNT is not",
        ),
        (
            &["--shard-from-env"],
            &[("JOB_COMPLETION_INDEX", "0")],
            "give the Job's completions count with --shards N",
        ),
        (
            &["--shard-from-env", "--shards", "3"],
            &[("JOB_COMPLETION_INDEX", "x")],
            "JOB_COMPLETION_INDEX=\"x\" is not a whole number",
        ),
        (&["--shard", "4/4"], &[], "--shard: shard index 4"),
        (&["--shard", "a/4"], &[], "is not a shard"),
    ];
    for (args, env, expected) in cases {
        let out = sparring(&[&["match", config], *args].concat(), env);
        assert_eq!(out.status.code(), Some(2), "{args:?} {env:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(expected), "{args:?} {env:?}: {stderr}");
    }
    assert!(!dir.join("single").exists(), "no run started");
}

/// The run fingerprint holds per-engine time controls and the PGN file name (both set by the
/// command-line dialect, not the TOML file: changed here through the library).
#[test]
fn resume_refuses_a_changed_engine_time_control_or_pgn_name() {
    use sparring::arena::{run_tournament, MatchConfig, RunOptions, StartPosition, TimeControl};
    let dir = out_dir("shards_fingerprint");
    let config = gauntlet_from_the_start()
        .rounds(1)
        .out(dir.join("run"))
        .parse();
    let run = |config: &MatchConfig, resume: bool| {
        run_tournament(
            config,
            std::sync::Arc::new(StartPosition),
            &RunOptions {
                resume,
                ..RunOptions::default()
            },
            &mut |_| {},
        )
    };
    run(&config, false).unwrap_or_else(|e| panic!("{e}"));
    let mut other_tc = config.clone();
    other_tc.engines[1].time_control = Some(TimeControl::Nodes(400));
    let mut other_pgn = config.clone();
    other_pgn.output.pgn_name = "other.pgn".to_string();
    for (changed, expected) in [
        (
            other_tc,
            "engine[1].time_control was (unset) and is now 400 nodes",
        ),
        (
            other_pgn,
            "output.pgn_name was games.pgn and is now other.pgn",
        ),
    ] {
        let Err(e) = run(&changed, true) else {
            panic!("resumed a changed configuration");
        };
        assert!(e.is_bad_input());
        assert!(e.to_string().contains(expected), "{e}");
    }
    // The unchanged configuration resumes (nothing left to play).
    let summary = run(&config, true).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(summary.games_played, 0);
}

#[test]
fn the_merge_evaluates_the_sprt_on_the_merged_pairs() {
    let with_sprt = gauntlet().sprt(0.0, 5.0);
    let dir = four_shards_equal_one_run("shards_sprt", &with_sprt, false);
    // The SPRT's columns came through run.toml: summary.csv (compared byte for byte above)
    // has them, and the merge prints the verdict on all 8 pairs.
    let summary = csv_without(&dir.join("merged/summary.csv"), &[]);
    let col = |name: &str| summary[0].iter().position(|h| h == name).unwrap();
    assert_eq!(summary[1][col("pairs")], "8");
    assert_eq!(
        summary[1][col("decision")],
        "continue",
        "undecided after 8 pairs"
    );
    let shards: Vec<String> = (0..4)
        .map(|i| {
            dir.join(format!("single/shard-{i}-of-4"))
                .display()
                .to_string()
        })
        .collect();
    let again = dir.join("merged-again");
    let mut args = vec![again.to_str().unwrap()];
    args.extend(shards.iter().map(String::as_str));
    let out = merge(&args);
    assert_ok(&out, "merge");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let llr = &summary[1][col("llr")];
    assert!(
        stdout.contains(&format!(
            "SPRT [0, 5] (normalized): LLR {:.2} (-2.94, 2.94): continue (undecided)",
            llr.parse::<f64>().unwrap()
        )),
        "{stdout}"
    );
    // Merging again gives the same files.
    for file in [
        "games.pgn",
        "games.csv",
        "summary.csv",
        "ranking.csv",
        "run.toml",
    ] {
        assert_eq!(
            text(&dir.join("merged").join(file)),
            text(&again.join(file)),
            "{file}"
        );
    }
}

/// `positions_format = "bullet"`: positions.bullet (and its per-game index) instead of
/// positions.epd, in the run, in each shard and in the merge, equal to the single run's.
#[test]
fn bullet_only_self_play_writes_no_epd_and_merges_into_the_single_run() {
    let dir = out_dir("shards_bullet_only");
    let config = write_config(&self_play().positions_format("bullet").rounds(3), &dir);
    let config = config.to_str().unwrap();
    let out = sparring(&["match", config], &[]);
    assert_ok(&out, "single run");
    assert!(String::from_utf8_lossy(&out.stdout).contains("ranking.csv, positions.bullet"));
    let single = dir.join("single");
    let mut args = vec![dir.join("merged").display().to_string()];
    for shard in ["0/2", "1/2"] {
        assert_ok(&sparring(&["match", config, "--shard", shard], &[]), shard);
        args.push(
            single
                .join(format!("shard-{}-of-2", &shard[..1]))
                .display()
                .to_string(),
        );
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = merge(&args);
    assert_ok(&out, "merge");
    assert!(String::from_utf8_lossy(&out.stdout).contains("ranking.csv, positions.bullet"));
    let merged = dir.join("merged");
    for d in [&single, &merged, &single.join("shard-1-of-2")] {
        assert!(!d.join("positions.epd").exists(), "{}", d.display());
    }
    let bullet = text(&single.join("positions.bullet"));
    assert!(bullet.lines().count() > 10, "positions were recorded");
    assert_eq!(bullet, text(&merged.join("positions.bullet")));
    assert_eq!(
        text(&single.join("positions.bullet.games.csv")),
        text(&merged.join("positions.bullet.games.csv"))
    );
    assert!(text(&single.join("run.toml")).contains("\"output.positions_format\" = \"bullet\""));

    // A shard whose index lost its rows would lose those games' lines: the merge refuses it.
    let index = single.join("shard-1-of-2/positions.bullet.games.csv");
    std::fs::write(&index, "game_id,lines\n").unwrap();
    let out = merge(&args);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("{}: no row for game ", index.display())),
        "{stderr}"
    );
}

fn seeded() -> MatchToml {
    MatchToml::gauntlet()
        .seeds(2)
        .reverse_sides(true)
        .rounds(2)
        .concurrency(1)
        .seed(31)
        .nodes(300)
        .openings(balanced_book())
        .openings_order("random")
        .max_moves(30)
        .engine(builtin("dev", "default.toml"))
        .engine(builtin("base", "default.toml"))
        .engine(builtin("p1", "material-only.toml"))
        .engine(builtin("p2", "material-only.toml"))
}

/// A gauntlet with two seeds and reversed sides: the merge rebuilds the schedule from run.toml's
/// `tournament.seeds` and `tournament.reverse_sides`, and equals the single run.
#[test]
fn four_shards_of_a_seeded_gauntlet_merge_into_the_single_run() {
    let dir = four_shards_equal_one_run("shards_seeded", &seeded(), false);
    let games = csv_without(&dir.join("merged/games.csv"), &[]);
    assert_eq!(games.len(), 1 + 16);
    let manifest = text(&dir.join("single/run.toml"));
    assert!(
        manifest.contains("\"tournament.seeds\" = \"2\""),
        "{manifest}"
    );
    assert!(manifest.contains("\"tournament.reverse_sides\" = \"true\""));
    assert_eq!(
        csv_without(&dir.join("merged/ranking.csv"), &[]).len(),
        1 + 4
    );
}
