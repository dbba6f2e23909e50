//! The command line as a user meets it: exit statuses by kind of failure (2 bad input or usage,
//! 1 a run that failed), the small command-line rules, and output fit for a log file.

use sparring::search::bench_positions::BENCH_FENS;
use std::path::{Path, PathBuf};

#[path = "common/binary.rs"]
mod binary;
use binary::{sparring, sparring_with_input, text, Run};

/// A fresh, empty scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    binary::scratch_in("cli", name)
}

// ---------------------------------------------------------------------------------------------
// perft and bench

#[test]
fn perft_depth_zero_counts_the_root_with_or_without_divide() {
    for args in [
        &["perft", "--depth", "0"][..],
        &["perft", "--depth", "0", "--divide"],
        &["perft", "--depth", "0", "--full"],
    ] {
        let run = sparring(args);
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
        assert_eq!(run.stdout, "nodes 1\n", "{args:?}");
    }
    // Depth 1 with --divide: one line per root move, then their sum.
    let run = sparring(&["perft", "--depth", "1", "--divide"]);
    assert_eq!(run.stdout.lines().count(), 21);
    assert_eq!(run.stdout.lines().last(), Some("nodes 20"));
}

#[test]
fn a_bad_fen_is_bad_input() {
    let run = sparring(&["perft", "--depth", "1", "--fen", "not a fen"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("bad FEN 'not a fen'"), "{}", run.stderr);
    let book = scratch("bad-fen").join("empty.bin");
    std::fs::write(&book, b"").unwrap();
    let run = sparring(&["openings", "probe", text(&book), "--fen", "8/8/8 w"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
}

#[test]
fn bench_depth_zero_is_refused() {
    let run = sparring(&["bench", "--depth", "0"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("the bench depth must be at least 1"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty());
}

#[test]
fn bench_with_missing_weights_is_bad_input() {
    let missing = scratch("bench-weights").join("missing.toml");
    let run = sparring(&["bench", "--depth", "1", "--weights", text(&missing)]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("missing.toml"), "{}", run.stderr);
}

// ---------------------------------------------------------------------------------------------
// stats

#[test]
fn negative_stats_counts_get_a_clear_message() {
    let run = sparring(&["stats", "--wdl", "-1,2,3"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("wins count \"-1\" is not a non-negative integer"),
        "{}",
        run.stderr
    );
    let run = sparring(&["stats", "--ptnml", "1,2,-3,4,5"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("DD count \"-3\" is not a non-negative integer"),
        "{}",
        run.stderr
    );
    // Negative hypotheses are numbers, not flags; a negative alpha is out of range.
    let run = sparring(&["stats", "--wdl", "10,20,10", "--elo0", "-2", "--elo1", "3"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("elo0: -2.00"), "{}", run.stdout);
    let run = sparring(&[
        "stats", "--wdl", "10,20,10", "--elo0", "0", "--elo1", "3", "--alpha", "-0.1",
    ]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("alpha must lie strictly between 0 and 0.5"),
        "{}",
        run.stderr
    );
}

/// Regression (issue 21, 7): an error rate with no SPRT to use it, or of one half or more, was
/// accepted silently.
#[test]
fn stats_error_rates_without_an_sprt_or_at_one_half_are_refused() {
    for args in [
        &["stats", "--wdl", "10,20,10", "--alpha", "0"][..],
        &["stats", "--wdl", "10,20,10", "--beta", "0.1"],
        &[
            "stats", "--wdl", "10,20,10", "--elo0", "0", "--elo1", "5", "--alpha", "0.5",
        ],
        &[
            "stats", "--wdl", "10,20,10", "--elo0", "0", "--elo1", "5", "--beta", "0",
        ],
    ] {
        let run = sparring(args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stdout.is_empty(), "{args:?}: {}", run.stdout);
        assert!(
            run.stderr.contains("--elo0") || run.stderr.contains("between 0 and 0.5"),
            "{args:?}: {}",
            run.stderr
        );
    }
}

#[test]
fn stats_counts_whose_total_overflows_are_refused() {
    let max = u64::MAX.to_string();
    let wdl = format!("{max},1,0");
    let run = sparring(&["stats", "--wdl", &wdl]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("the W,D,L counts add up to more than 18446744073709551615 games"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    let ptnml = format!("0,0,{},0,0", u64::MAX / 2 + 1);
    let run = sparring(&["stats", "--ptnml", &ptnml]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("add up to more than"), "{}", run.stderr);
}

#[test]
fn stats_never_prints_negative_zero() {
    let run = sparring(&["stats", "--wdl", "10,5,10"]);
    assert_eq!(run.code, 0);
    assert!(run.stdout.contains("elo: 0.00\n"), "{}", run.stdout);
    assert!(!run.stdout.contains("-0.00"), "{}", run.stdout);
    let run = sparring(&["stats", "--ptnml", "3,4,5,4,3"]);
    assert!(run.stdout.contains("elo: 0.00\n"), "{}", run.stdout);
    assert!(!run.stdout.contains("-0.00"), "{}", run.stdout);
}

#[test]
fn stats_needs_exactly_one_kind_of_counts_and_both_hypotheses() {
    for args in [
        &["stats"][..],
        &["stats", "--wdl", "1,2,3", "--ptnml", "1,2,3,4,5"],
        &["stats", "--wdl", "1,2,3", "--elo0", "0"],
        &["stats", "--wdl", "1,2,3", "--model", "elo"],
    ] {
        let run = sparring(args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stdout.is_empty(), "{args:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// uci

#[test]
fn uci_has_no_fault_option_and_quits_cleanly() {
    let run = sparring(&["uci", "--fault", "crash:1"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("--fault"), "{}", run.stderr);
    let run = sparring_with_input(&["uci"], "uci\nisready\nquit\n");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("uciok"), "{}", run.stdout);
    assert!(run.stdout.contains("readyok"), "{}", run.stdout);
}

#[test]
fn uci_with_missing_weights_is_bad_input() {
    let missing = scratch("uci-weights").join("missing.toml");
    let run = sparring_with_input(&["uci", "--weights", text(&missing)], "quit\n");
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("missing.toml"), "{}", run.stderr);
}

// ---------------------------------------------------------------------------------------------
// match

#[test]
fn match_configuration_errors_are_bad_input() {
    let dir = scratch("match-config");
    let missing = dir.join("missing.toml");
    let run = sparring(&["match", text(&missing)]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("missing.toml"), "{}", run.stderr);
    // A directory where the configuration should be: unreadable input, still the user's to fix.
    let run = sparring(&["match", text(&dir)]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "[tournament\n").unwrap();
    let run = sparring(&["match", text(&bad)]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("bad.toml:1:"), "{}", run.stderr);
}

#[test]
fn an_engine_that_cannot_start_is_a_failed_run() {
    let dir = scratch("match-engine");
    let config = dir.join("m.toml");
    std::fs::write(
        &config,
        format!(
            r#"
[tournament]
kind = "gauntlet"
rounds = 1
[time_control]
nodes = 1000
[output]
dir = {:?}
[[engine]]
name = "builtin"
builtin = {{}}
[[engine]]
name = "missing"
uci = {{ command = "/nonexistent/engine-binary" }}
"#,
            dir.join("out")
        ),
    )
    .unwrap();
    let run = sparring(&["match", text(&config)]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("/nonexistent/engine-binary"),
        "{}",
        run.stderr
    );
}

#[test]
fn match_concurrency_is_bounded_by_the_machine() {
    let config = scratch("match-threads").join("never-read.toml");
    let run = sparring(&["match", text(&config), "--concurrency", "100000"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("more than the")
            && run.stderr.contains("threads this machine runs in parallel"),
        "{}",
        run.stderr
    );
}

// ---------------------------------------------------------------------------------------------
// tune

/// A tuning configuration over a small EPD file of the bench positions, output into `dir/out`.
fn tune_config(dir: &Path) -> PathBuf {
    let epd = dir.join("p.epd");
    let mut lines = String::new();
    for (i, fen) in BENCH_FENS.iter().enumerate() {
        let fields: Vec<&str> = fen.split(' ').take(4).collect();
        let result = ["1-0", "1/2-1/2", "0-1"][i % 3];
        lines.push_str(&format!("{} c9 \"{result}\";\n", fields.join(" ")));
    }
    std::fs::write(&epd, lines).unwrap();
    let config = dir.join("tune.toml");
    std::fs::write(
        &config,
        format!(
            "[data]\nfiles = [{epd:?}]\nvalidation_fraction = 0.0\n[model]\ntune = [\"material\"]\n\
             [optimizer]\nepochs = 5\nk = 1.0\nthreads = 1\n[output]\ndir = {:?}\nreport_every = 1\n",
            dir.join("out")
        ),
    )
    .unwrap();
    config
}

#[test]
fn tune_writes_plain_epoch_lines_when_not_a_terminal() {
    let dir = scratch("tune-plain");
    let config = tune_config(&dir);
    let run = sparring(&["tune", text(&config)]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let epochs = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("epoch "))
        .count();
    // Epoch 0 (the starting weights), then the five epochs run.
    assert_eq!(epochs, 6, "{}", run.stdout);
    assert!(!run.stdout.contains('\r') && !run.stderr.contains('\r'));
    assert!(dir.join("out/weights.toml").exists());
}

#[test]
fn tune_threads_are_bounded_by_the_machine() {
    let dir = scratch("tune-threads");
    let config = tune_config(&dir);
    let run = sparring(&["tune", text(&config), "--threads", "100000"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("threads this machine runs in parallel"),
        "{}",
        run.stderr
    );
    assert!(!dir.join("out").exists());
    let run = sparring(&["tune", text(&config), "--threads", "-2"]);
    assert_eq!(run.code, 2);
}

#[test]
fn tune_configuration_errors_are_bad_input() {
    let dir = scratch("tune-config");
    let run = sparring(&["tune", text(&dir.join("missing.toml"))]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("missing.toml"), "{}", run.stderr);
}

// ---------------------------------------------------------------------------------------------
// openings generate

/// `openings generate` arguments for a small, quick suite written to `out`.
fn generate_args(out: &Path) -> Vec<String> {
    [
        "openings",
        "generate",
        "--plies",
        "2",
        "--count",
        "4",
        "--max-eval",
        "300",
        "--nodes",
        "200",
        "--out",
        text(out),
    ]
    .map(str::to_string)
    .to_vec()
}

fn run_args(args: &[String]) -> Run {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    sparring(&args)
}

#[test]
fn openings_generate_writes_no_carriage_returns_into_a_log() {
    let dir = scratch("generate-plain");
    let out = dir.join("suite.epd");
    let run = run_args(&generate_args(&out));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "openings 4\n");
    assert!(!run.stderr.contains('\r'), "{:?}", run.stderr);
    assert!(run.stderr.contains("4 / 4 found"), "{}", run.stderr);
    let suite = std::fs::read_to_string(&out).unwrap();
    assert_eq!(suite.lines().count(), 4);
    // Only the suite is left in the directory (the temporary file was renamed into place).
    let entries: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(entries.len(), 1);
}

#[test]
fn openings_generate_checks_its_output_before_working() {
    let dir = scratch("generate-output");
    // A missing directory: the run fails (I/O, status 1) before any position is generated.
    let out = dir.join("no-such-dir").join("suite.epd");
    let run = run_args(&generate_args(&out));
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("cannot write"), "{}", run.stderr);
    assert!(!run.stderr.contains("generating"), "{}", run.stderr);
    // A directory as the output file is a usage error.
    let run = run_args(&generate_args(&dir));
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("is a directory"), "{}", run.stderr);
    assert!(!run.stderr.contains("generating"), "{}", run.stderr);
}

#[test]
fn a_failed_generate_keeps_the_existing_output() {
    let dir = scratch("generate-keep");
    let out = dir.join("suite.epd");
    std::fs::write(&out, "kept\n").unwrap();
    let mut args = generate_args(&out);
    args.extend(["--max-candidates", "1"].map(str::to_string));
    let run = run_args(&args);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("found only"), "{}", run.stderr);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "kept\n");
    let entries: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(entries.len(), 1, "the temporary file is removed");
    // An empty window is bad input.
    let mut args = generate_args(&out);
    args.extend(["--min-eval", "400"].map(str::to_string));
    let run = run_args(&args);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "kept\n");
}

/// `builtin.search` gives a built-in engine its own search constants: they change its games,
/// enter the run's fingerprint, and a bad file is bad input naming its file, line and key.
#[test]
fn builtin_engines_take_a_search_constants_file() {
    let dir = scratch("builtin-search");
    let write = |name: &str, search: &str| {
        let config = dir.join(format!("{name}.toml"));
        std::fs::write(
            &config,
            format!(
                r#"
[tournament]
rounds = 2
seed = 5
[time_control]
nodes = 3000
[output]
dir = {:?}
[[engine]]
name = "a"
builtin = {{ hash_mb = 1 {search} }}
[[engine]]
name = "b"
builtin = {{ hash_mb = 1 }}
"#,
                dir.join(name)
            ),
        )
        .unwrap();
        config
    };
    let plain = write("plain", "");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let detuned = repo.join("configs/search/detuned-recovery.toml");
    let tuned = write("tuned", &format!(", search = {:?}", text(&detuned)));
    for config in [&plain, &tuned] {
        let run = sparring(&["match", text(config)]);
        assert_eq!(run.code, 0, "{}", run.stderr);
    }
    let games = |name: &str| std::fs::read_to_string(dir.join(name).join("games.csv")).unwrap();
    assert_ne!(
        games("plain"),
        games("tuned"),
        "the constants change the games"
    );
    let manifest = std::fs::read_to_string(dir.join("tuned/run.toml")).unwrap();
    assert!(manifest.contains("builtin.search_hash"), "{manifest}");
    let plain_manifest = std::fs::read_to_string(dir.join("plain/run.toml")).unwrap();
    assert!(
        !plain_manifest.contains("builtin.search"),
        "{plain_manifest}"
    );

    let bad = dir.join("bad-search.toml");
    std::fs::write(&bad, "[lmr]\nbase = \"x\"\n").unwrap();
    let broken = write("broken", &format!(", search = {:?}", text(&bad)));
    let run = sparring(&["match", text(&broken)]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("bad-search.toml:2:") && run.stderr.contains("lmr.base"),
        "{}",
        run.stderr
    );
    assert!(!dir.join("broken/games.csv").exists());
}
