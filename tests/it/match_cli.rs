//! `sparring match` from the command line and the engines it starts: configuration errors and
//! files that are devices, opening files that are devices or directories, openings past the end
//! of a suite, built-in engines' search constants, concurrency bounded by the machine, and
//! engines that cannot start, declare odd options, exit during the handshake or whose log cannot
//! be written: each a clear status (2 bad input, 1 a failed run) and no engine process left.

use std::path::{Path, PathBuf};

use crate::common::binary;
use crate::common::hostile;
use binary::{assert_bad_input, sparring, sparring_with_input, text};
use hostile::{assert_no_leftover, mock_engine, run};

/// A fresh, empty scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    binary::scratch_in("match_cli", name)
}

// ---------------------------------------------------------------------------------------------
// Configuration and opening files

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

// Found by adversarial runs of the other subcommands (a review defect without a number).
/// Weights, search and tune configuration files that are devices were read without end
/// (`--weights /dev/zero` never returned); they are refused as not a file, with status 2.
#[cfg(unix)]
#[test]
fn configuration_files_that_are_devices_are_refused() {
    for args in [
        &["bench", "--depth", "1", "--weights", "/dev/zero"][..],
        &["bench", "--depth", "1", "--search", "/dev/zero"],
        &["uci", "--weights", "/dev/zero"],
        &["uci", "--search", "/dev/zero"],
        &["tune", "/dev/zero"],
        &["match", "/dev/zero"],
        &["spsa", "/dev/zero"],
    ] {
        let run = sparring_with_input(args, "quit\n");
        assert_bad_input(&run, &["/dev/zero", "not a"]);
    }
    // A directory is named as one.
    let run = sparring(&["match", env!("CARGO_MANIFEST_DIR")]);
    assert_bad_input(&run, &["a directory, not a file"]);
    let dir = scratch("tune_weights_device");
    let config = dir.join("tune.toml");
    std::fs::write(
        &config,
        "[data]\nfiles = [\"x.epd\"]\n[model]\nweights = \"/dev/zero\"\n",
    )
    .unwrap();
    let run = sparring(&["tune", text(&config)]);
    assert_bad_input(&run, &["/dev/zero", "not a regular file"]);
}

// Found by adversarial runs of the other subcommands (a review defect without a number).
/// An opening file that is a device was read without end (`/dev/zero`: memory until the
/// process died) and a directory gave the operating system's terse error; both are refused by
/// what they are, with status 2, when checked, probed or played.
#[cfg(unix)]
#[test]
fn opening_files_that_are_devices_or_directories_are_refused_by_what_they_are() {
    let dir = scratch("openings_not_files");
    let suite_dir = dir.join("suite.epd");
    std::fs::create_dir(&suite_dir).unwrap();
    for (path, what) in [
        ("/dev/zero", "is a device"),
        (text(&suite_dir), "is a directory"),
    ] {
        let run = sparring(&["openings", "check", path, "--format", "epd"]);
        assert_bad_input(&run, &[path, what]);
        let run = sparring(&["openings", "probe", path]);
        assert_bad_input(&run, &[path, what]);
        let run = sparring(&[
            "match",
            "-engine",
            "builtin",
            "nodes=10",
            "-engine",
            "builtin",
            "nodes=10",
            "-openings",
            &format!("file={path}"),
            "format=epd",
            "-pgnout",
            &format!("file={}", text(&dir.join("games.pgn"))),
        ]);
        assert_bad_input(&run, &[path, what]);
    }
}

/// The fifth playable opening of tests/fixtures/openings/suite.epd (six playable lines).
const SUITE_FIFTH: &str = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4";

fn suite() -> String {
    format!(
        "{}/tests/fixtures/openings/suite.epd",
        env!("CARGO_MANIFEST_DIR")
    )
}

// Regression test of review defect 8 (openings start past the end of the suite).
/// `start = 11` on a suite of 6 wraps to its fifth opening, as fastchess rotates its book by
/// `start - 1` modulo its size (it was refused); on the fastchess command line and in TOML.
#[test]
fn openings_start_past_the_end_wraps_around_like_fastchess() {
    let dir = scratch("openings_start_wraps");
    let pgn = dir.join("dialect.pgn");
    let start = "start=11".to_string();
    let file = format!("file={}", suite());
    let run = sparring(&[
        "match",
        "-engine",
        "builtin",
        "name=a",
        "nodes=50",
        "-engine",
        "builtin",
        "name=b",
        "nodes=50",
        "-openings",
        &file,
        &start,
        "-rounds",
        "1",
        "-maxmoves",
        "2",
        "-pgnout",
        &format!("file={}", text(&pgn)),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let games = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(
        games.matches(&format!("[FEN \"{SUITE_FIFTH}\"]")).count(),
        2,
        "{games}"
    );

    let config = dir.join("match.toml");
    std::fs::write(
        &config,
        format!(
            "[tournament]\nrounds = 1\n[time_control]\nnodes = 50\n[openings]\nfile = {:?}\n\
             order = \"sequential\"\nstart = 11\n[adjudication]\nmax_moves = 2\n[output]\ndir = {:?}\n\
             [[engine]]\nname = \"a\"\nbuiltin = {{}}\n[[engine]]\nname = \"b\"\nbuiltin = {{}}\n",
            suite(),
            text(&dir.join("toml"))
        ),
    )
    .unwrap();
    let run = sparring(&["match", text(&config)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let games = std::fs::read_to_string(dir.join("toml").join("games.pgn")).unwrap();
    assert_eq!(
        games.matches(&format!("[FEN \"{SUITE_FIFTH}\"]")).count(),
        2,
        "{games}"
    );
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
// Engines that fail, and the processes they leave

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
