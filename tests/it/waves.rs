//! Runs played in waves (`sparring match --wave K --wave-pairs W`, alone or with `--shard I/N`),
//! merged with `sparring merge`: the first waves are the first pairs of the single run, byte
//! for byte outside the clock (see tests/common/run_files.rs); a driver loop plays waves until
//! the merge's verdict line says the SPRT decided; waves of different sizes are refused.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::run_files;
use run_files::{
    assert_ok, assert_progress_counts_within_the_shard, assert_same_games, assert_same_results,
    out_dir, text, write_config,
};
use run_files::{
    builtin,
    config::{balanced_book, MatchToml},
};

const SPARRING: &str = env!("CARGO_BIN_EXE_sparring");

fn sparring(args: &[&str]) -> Output {
    let mut command = Command::new(SPARRING);
    command.args(args);
    if args.first() == Some(&"match") {
        command.args(["--progress", "lines"]);
    }
    for var in [
        "SLURM_ARRAY_TASK_ID",
        "SLURM_ARRAY_TASK_COUNT",
        "SLURM_ARRAY_TASK_MIN",
        "JOB_COMPLETION_INDEX",
    ] {
        command.env_remove(var);
    }
    command.output().unwrap()
}

/// Plays wave `k` of `pairs` pairs, into `<output.dir>/wave-K` or, with `shards`, each shard
/// of the wave into `wave-K-shard-I-of-N`; returns the directories.
fn play_wave(config: &Path, k: u64, pairs: u64, shards: Option<u64>) -> Vec<PathBuf> {
    let config_text = config.to_str().unwrap();
    let (k_text, pairs_text) = (k.to_string(), pairs.to_string());
    let single = config.parent().unwrap().join("single");
    let base = [
        "match",
        config_text,
        "--wave",
        &k_text,
        "--wave-pairs",
        &pairs_text,
    ];
    match shards {
        None => {
            let out = sparring(&base);
            assert_ok(&out, &format!("wave {k}"));
            assert_progress_counts_within_the_shard(&out, &format!("wave {k}"));
            vec![single.join(format!("wave-{k}"))]
        }
        Some(n) => (0..n)
            .map(|i| {
                let shard = format!("{i}/{n}");
                let out = sparring(&[&base[..], &["--shard", &shard]].concat());
                assert_ok(&out, &format!("wave {k} shard {shard}"));
                assert_progress_counts_within_the_shard(&out, &format!("wave {k} shard {shard}"));
                single.join(format!("wave-{k}-shard-{i}-of-{n}"))
            })
            .collect(),
    }
}

fn merge(out: &Path, dirs: &[PathBuf], partial: bool) -> Output {
    let mut args = vec!["merge".to_string()];
    if partial {
        args.push("--partial".to_string());
    }
    args.push(out.display().to_string());
    // In reverse: the merge orders by game id whatever order it is given.
    args.extend(dirs.iter().rev().map(|d| d.display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    sparring(&args)
}

/// The merge's verdict line (`verdict: ...`), which a driver script reads.
fn verdict(out: &Output) -> Option<String> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("verdict: ").map(str::to_string))
}

/// Self-play data with positions, per-game openings and random opening moves: 6 pairs.
fn self_play() -> MatchToml {
    MatchToml::gauntlet()
        .rounds(6)
        .concurrency(1)
        .seed(31)
        .nodes(300)
        .openings(balanced_book())
        .openings_order("random")
        .random_plies_per_game(2)
        .max_moves(30)
        .positions(true)
        .positions_per_game(6)
        .engine(builtin("a", "default.toml"))
        .engine(builtin("b", "material-only.toml"))
}

#[test]
fn the_first_waves_are_the_first_pairs_of_the_single_run() {
    let dir = out_dir("waves_prefix");
    let config = write_config(&self_play(), &dir);
    let config_text = config.to_str().unwrap();
    // The single runs: all 6 pairs, and the first 4 only.
    assert_ok(&sparring(&["match", config_text]), "single run");
    let first_four = dir.join("first-four");
    assert_ok(
        &sparring(&[
            "match",
            config_text,
            "--rounds",
            "4",
            "--out",
            first_four.to_str().unwrap(),
        ]),
        "single run of 4 rounds",
    );
    // Waves of 2 pairs: wave 0 whole, wave 1 in 2 shards, wave 2 whole.
    let mut dirs = play_wave(&config, 0, 2, None);
    dirs.extend(play_wave(&config, 1, 2, Some(2)));
    let manifest = text(&dirs[1].join("run.toml"));
    for key in [
        "\"wave.index\" = \"1\"",
        "\"wave.pairs\" = \"2\"",
        "\"wave.game_ids\" = \"5-8\"",
        "\"shard.index\" = \"0\"",
        "\"shard.count\" = \"2\"",
        "\"shard.game_ids\" = \"5-6\"",
    ] {
        assert!(manifest.contains(key), "{key} in {manifest}");
    }

    // Waves 0 and 1: not the whole run, so --partial; equal to the first 4 pairs.
    let out = merge(&dir.join("m01"), &dirs, false);
    assert_eq!(out.status.code(), Some(2), "wave 2 is missing");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("wave 2 (games 9-12) was not given; run it with --wave 2 --wave-pairs 2"),
        "{stderr}"
    );
    let merged = dir.join("m01");
    assert_ok(&merge(&merged, &dirs, true), "partial merge of waves 0-1");
    assert_same_games(&first_four, &merged, true);

    // A killed wave shard (its last game unrecorded) resumes as that shard of that wave only.
    let killed = &dirs[2];
    let csv = text(&killed.join("games.csv"));
    let header_and_first: String = csv.lines().take(2).map(|l| format!("{l}\n")).collect();
    std::fs::write(killed.join("games.csv"), header_and_first).unwrap();
    let out = sparring(&[
        "match",
        config_text,
        "--wave",
        "2",
        "--wave-pairs",
        "2",
        "--shard",
        "1/2",
        "--out",
        killed.to_str().unwrap(),
        "--resume",
    ]);
    assert_eq!(out.status.code(), Some(2), "resumed as another wave");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("wave.index was 1 and is now 2"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = sparring(&[
        "match",
        config_text,
        "--wave",
        "1",
        "--wave-pairs",
        "2",
        "--shard",
        "1/2",
        "--out",
        killed.to_str().unwrap(),
        "--resume",
    ]);
    assert_ok(&out, "resume of wave 1 shard 1/2");
    let started = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.starts_with("Started game "))
        .count();
    assert_eq!(started, 1, "only the unrecorded game is played again");

    // All three waves: the whole single run, run.toml included.
    dirs.extend(play_wave(&config, 2, 2, None));
    let merged = dir.join("m012");
    let out = merge(&merged, &dirs, false);
    assert_ok(&out, "merge of every wave");
    assert_same_results(&dir.join("single"), &merged, true);
    assert_eq!(verdict(&out), None, "no SPRT, no verdict line");
}

#[test]
fn a_driver_plays_waves_until_the_merged_sprt_decides() {
    let dir = out_dir("waves_driver");
    let config = write_config(&run_files::lopsided(), &dir);
    let pairs = 4;
    let merged = dir.join("merged");
    let mut dirs: Vec<PathBuf> = Vec::new();
    let mut verdicts = Vec::new();
    let mut next = 0;
    // The driver of docs/scale-out.md: play a wave (odd waves in 2 shards), merge, read the
    // verdict line, stop when it is not `continue with wave K`.
    let stopped_at = loop {
        assert!(next < 10, "40 pairs are 10 waves of 4: {verdicts:?}");
        dirs.extend(play_wave(
            &config,
            next,
            pairs,
            (next % 2 == 1).then_some(2),
        ));
        let out = merge(&merged, &dirs, true);
        assert_ok(&out, &format!("merge after wave {next}"));
        let line = verdict(&out).expect("a verdict line");
        verdicts.push(line.clone());
        match line.strip_prefix("continue with wave ") {
            Some(k) => {
                assert_eq!(k.parse::<u64>().unwrap(), next + 1, "{line}");
                next += 1;
            }
            None => break next,
        }
    };
    assert_eq!(
        verdicts.last().unwrap(),
        &format!("H1 accepted (stopped by SPRT after wave {stopped_at})")
    );
    assert!(stopped_at >= 1, "decided at a later wave: {verdicts:?}");

    // Decided: the merge is complete without --partial, and holds waves 0..=K only.
    let out = merge(&merged, &dirs, false);
    assert_ok(&out, "complete merge");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let games = 2 * pairs * (stopped_at + 1);
    assert!(
        stdout.contains(&format!(
            "Merged {games} of 80 games into {}",
            merged.display()
        )) && stdout.contains(&format!("stopped by SPRT after wave {stopped_at}")),
        "{stdout}"
    );
    let summary = run_files::csv_without(&merged.join("summary.csv"), &[]);
    let decision = summary[0].iter().position(|h| h == "decision").unwrap();
    assert_eq!(summary[1][decision], "H1");

    // The test is read at wave ends only: the wave after the stop changes nothing.
    dirs.extend(play_wave(&config, stopped_at + 1, pairs, None));
    let again = dir.join("again");
    let out = merge(&again, &dirs, false);
    assert_ok(&out, "merge with a wave past the stop");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(&format!(
            "{} game(s) of later waves are left out",
            2 * pairs
        )),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for file in ["games.csv", "summary.csv", "run.toml"] {
        assert_eq!(text(&merged.join(file)), text(&again.join(file)), "{file}");
    }

    // A gap: without wave 1 the test is read at the end of wave 0 only, even though the games
    // after the gap decide it; summary.csv and the SPRT line say so too.
    let gap: Vec<PathBuf> = dirs
        .iter()
        .filter(|d| {
            let name = d.file_name().unwrap().to_string_lossy().into_owned();
            name != "wave-1" && !name.starts_with("wave-1-")
        })
        .cloned()
        .collect();
    assert!(gap.len() < dirs.len());
    let with_gap = dir.join("gap");
    let out = merge(&with_gap, &gap, true);
    assert_ok(&out, "partial merge with a gap");
    assert_eq!(verdict(&out).as_deref(), Some("continue with wave 1"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("continue (undecided) at the end of wave 0"),
        "{stdout}"
    );
    let summary = run_files::csv_without(&with_gap.join("summary.csv"), &[]);
    assert_ne!(summary[1][decision], "H1", "{summary:?}");

    // The waves before the stop did not decide: a single run of just their pairs, whose SPRT
    // is read after every game, ends undecided too.
    let before = dir.join("before");
    let rounds = (pairs * stopped_at).to_string();
    let out = sparring(&[
        "match",
        config.to_str().unwrap(),
        "--rounds",
        &rounds,
        "--out",
        before.to_str().unwrap(),
    ]);
    assert_ok(&out, "single run of the waves before the stop");
    let summary = text(&before.join("summary.csv"));
    assert!(
        !summary.contains("H1") && !summary.contains("H0"),
        "undecided before wave {stopped_at}: {summary}"
    );
}

#[test]
fn waves_of_different_sizes_or_past_the_end_are_refused() {
    let dir = out_dir("waves_sizes");
    let config = write_config(&self_play(), &dir);
    let mut dirs = play_wave(&config, 0, 2, None);
    dirs.extend(play_wave(&config, 1, 3, None));
    let out = merge(&dir.join("m"), &dirs, true);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("a wave of 3 pairs") || stderr.contains("a wave of 2 pairs"),
        "{stderr}"
    );
    assert!(
        stderr.contains("all waves of a run must have one size"),
        "{stderr}"
    );
    assert!(!dir.join("m").exists(), "nothing written");

    // A wave mixed with a shard of the run not played in waves.
    let shard = dir.join("shard");
    let config_text = config.to_str().unwrap();
    assert_ok(
        &sparring(&[
            "match",
            config_text,
            "--shard",
            "0/3",
            "--out",
            shard.to_str().unwrap(),
        ]),
        "a shard",
    );
    let out = merge(&dir.join("m"), &[dirs[0].clone(), shard], true);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("of a run played in waves"));

    // 6 pairs in waves of 2 are waves 0 to 2; wave 3 and a size of 0 are refused.
    for (wave, size, expected) in [
        ("3", "2", "wave 3 is past the end of the run"),
        ("0", "0", "at least 1 pair"),
    ] {
        let out = sparring(&["match", config_text, "--wave", wave, "--wave-pairs", size]);
        assert_eq!(out.status.code(), Some(2), "{wave} {size}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(expected), "{stderr}");
    }
    let out = sparring(&["match", config_text, "--wave", "1"]);
    assert_eq!(out.status.code(), Some(2), "--wave without --wave-pairs");
}

/// A run with the largest `rounds` in waves of one pair: the merge names the waves after the
/// last one given as one range instead of walking a hundred million of them.
#[test]
fn waves_after_the_last_given_are_named_as_one_range() {
    let dir = out_dir("waves_many");
    let config = write_config(&run_files::lopsided().rounds(100_000_000), &dir);
    let mut dirs = play_wave(&config, 0, 1, None);
    dirs.extend(play_wave(&config, 2, 1, None));
    let out = merge(&dir.join("merged"), &dirs, false);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("wave 1 (games 3-4) was not given")
            && stderr.contains(
                "waves 3-99999999 (games 7-200000000) were not given; run them with --wave K \
                 --wave-pairs 1 for K = 3 to 99999999"
            ),
        "{stderr}"
    );
    let out = merge(&dir.join("merged"), &dirs, true);
    assert_ok(&out, "partial merge");
    assert_eq!(verdict(&out).as_deref(), Some("continue with wave 1"));
}
