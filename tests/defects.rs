//! Regression tests for input defects found by review: each bad input is refused with a message
//! naming the file, field or option, and exit status 2; nothing panics, hangs or exits 1.

use std::path::{Path, PathBuf};

#[path = "common/binary.rs"]
mod binary;
use binary::{sparring, sparring_with_input, text, Run};

/// A fresh, empty scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    binary::scratch_in("defects", name)
}

/// A tune configuration in `dir` reading `files` (TOML array body), writing into `dir/out`.
fn tune_config(dir: &Path, files: &str) -> PathBuf {
    let config = dir.join("tune.toml");
    std::fs::write(
        &config,
        format!(
            "[data]\nfiles = [{files}]\nvalidation_fraction = 0\n[optimizer]\nepochs = 1\n\
             [output]\ndir = {:?}\n",
            text(&dir.join("out"))
        ),
    )
    .unwrap();
    config
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
// 1. tune data lists

#[test]
fn tune_data_that_is_a_directory_is_bad_input_naming_the_path() {
    let dir = scratch("tune_data_dir");
    let config = tune_config(&dir, "\"x.epd\"");
    let data = dir.join("shards");
    std::fs::create_dir_all(&data).unwrap();
    let run = sparring(&["tune", text(&config), "--data", text(&data)]);
    assert_bad_input(&run, &["--data", text(&data), "is a directory"]);
    assert!(!run.stdout.contains("loading"), "{}", run.stdout);
    // The same directory named in the configuration names the file, line and key.
    let config = tune_config(&dir, &format!("{:?}", text(&data)));
    let run = sparring(&["tune", text(&config)]);
    assert_bad_input(
        &run,
        &[
            &format!("{}:2:9: data.files", text(&config)),
            "is a directory",
        ],
    );
}

#[test]
fn tune_data_missing_file_or_empty_pattern_is_bad_input() {
    let dir = scratch("tune_data_missing");
    let config = tune_config(&dir, "\"x.epd\"");
    let missing = dir.join("absent.epd");
    let run = sparring(&["tune", text(&config), "--data", text(&missing)]);
    assert_bad_input(&run, &["--data", text(&missing), "no such data file"]);
    let pattern = dir.join("*.epd");
    let run = sparring(&["tune", text(&config), "--data", text(&pattern)]);
    assert_bad_input(&run, &["--data", text(&pattern), "matches no file"]);
    // A missing file after a good one is reported before anything is loaded.
    let good = dir.join("good.epd");
    std::fs::write(
        &good,
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - c9 \"1-0\";\n",
    )
    .unwrap();
    let run = sparring(&[
        "tune",
        text(&config),
        "--data",
        text(&good),
        "--data",
        text(&missing),
    ]);
    assert_bad_input(&run, &[text(&missing)]);
    assert!(!run.stdout.contains("loading"), "{}", run.stdout);
}

#[test]
fn tune_convert_input_that_is_missing_or_a_directory_is_bad_input() {
    let dir = scratch("tune_convert_inputs");
    let out = dir.join("out.txt");
    std::fs::write(&out, "kept\n").unwrap();
    let run = sparring(&[
        "tune",
        "convert",
        "--to",
        "bullet",
        text(&dir),
        "-o",
        text(&out),
    ]);
    assert_bad_input(&run, &[text(&dir), "is a directory"]);
    let missing = dir.join("absent.epd");
    let run = sparring(&[
        "tune",
        "convert",
        "--to",
        "bullet",
        text(&missing),
        "-o",
        text(&out),
    ]);
    assert_bad_input(&run, &[text(&missing), "no such data file"]);
    // The output from before is untouched.
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "kept\n");
}

// ---------------------------------------------------------------------------------------------
// 2. tune configuration ranges

#[test]
fn tune_zero_epochs_is_refused_in_the_file_and_on_the_command_line() {
    let dir = scratch("tune_zero_epochs");
    let config = dir.join("tune.toml");
    std::fs::write(
        &config,
        "[data]\nfiles = [\"x.epd\"]\n[optimizer]\nepochs = 0\n",
    )
    .unwrap();
    let run = sparring(&["tune", text(&config)]);
    assert_bad_input(
        &run,
        &[&format!("{}:4:10", text(&config)), "optimizer.epochs"],
    );
    let config = tune_config(&dir, "\"x.epd\"");
    let run = sparring(&["tune", text(&config), "--epochs", "0"]);
    assert_bad_input(&run, &["--epochs"]);
}

// ---------------------------------------------------------------------------------------------
// 3. the fastchess dialect

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

// ---------------------------------------------------------------------------------------------
// 4. openings generate

#[test]
fn openings_generate_names_the_variant_as_the_command_line_spells_it() {
    let dir = scratch("generate_variant_name");
    for variant in ["standard", "chess960", "dfrc"] {
        let out = dir.join(format!("{variant}.epd"));
        let run = sparring(&[
            "openings",
            "generate",
            "--variant",
            variant,
            "--count",
            "1",
            "--plies",
            "2",
            "--max-eval",
            "300",
            "--nodes",
            "20",
            "--out",
            text(&out),
        ]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(
            run.stderr.contains(&format!("variant {variant}\n")),
            "{}",
            run.stderr
        );
        assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 1);
    }
}

// ---------------------------------------------------------------------------------------------
// 8. openings start past the end of the suite

/// The fifth playable opening of tests/fixtures/openings/suite.epd (six playable lines).
const SUITE_FIFTH: &str = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4";

fn suite() -> String {
    format!(
        "{}/tests/fixtures/openings/suite.epd",
        env!("CARGO_MANIFEST_DIR")
    )
}

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

// ---------------------------------------------------------------------------------------------
// Found by adversarial runs of the other subcommands

/// `bench --depth` past the search's deepest iteration never finished (it was clamped to 127
/// and ran for ever); `bench tune --positions` beyond memory aborted in an allocation. Both are
/// refused up front now, naming the option.
#[test]
fn bench_numbers_out_of_range_are_refused_by_name() {
    for depth in ["128", "1000000", "0"] {
        let run = sparring(&["bench", "--depth", depth]);
        assert_bad_input(&run, &["--depth"]);
    }
    for positions in ["0", "20000001", "100000000000000000"] {
        let run = sparring(&["bench", "tune", "--positions", positions]);
        assert_bad_input(&run, &["--positions"]);
    }
}

/// `tune convert -o DIR` wrote `DIR.partial` beside the directory, left it there and exited 1.
#[test]
fn tune_convert_output_that_is_a_directory_is_bad_input_and_leaves_nothing() {
    let dir = scratch("tune_convert_output_dir");
    let input = dir.join("in.epd");
    std::fs::write(
        &input,
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - c9 \"1-0\"; ce 20;\n",
    )
    .unwrap();
    let out = dir.join("out");
    std::fs::create_dir(&out).unwrap();
    let run = sparring(&[
        "tune",
        "convert",
        "--to",
        "bullet",
        text(&input),
        "-o",
        text(&out),
    ]);
    assert_bad_input(&run, &[text(&out), "is a directory"]);
    assert!(!dir.join("out.partial").exists());
    assert!(out.is_dir());
}

/// `openings generate` options that can only give up (`--margin -5`, `--max-candidates 0`:
/// status 1 after the work) or never finish (`--sample-depth 1000`) are bad input, refused
/// before the banner and before the output file is touched.
#[test]
fn openings_generate_options_out_of_range_are_refused_before_any_work() {
    let dir = scratch("generate_out_of_range");
    let out = dir.join("suite.epd");
    std::fs::write(&out, "kept\n").unwrap();
    let base = [
        "openings",
        "generate",
        "--count",
        "1",
        "--plies",
        "2",
        "--max-eval",
        "100",
        "--nodes",
        "10",
        "--out",
    ];
    for (option, value) in [
        ("--margin", "-5"),
        ("--max-candidates", "0"),
        ("--sample-depth", "1000"),
        ("--count", "0"),
    ] {
        let mut args = base.to_vec();
        // `--margin=-5`: a separate `-5` would be read as an option by the parser.
        let joined = format!("{option}={value}");
        args.extend([text(&out), &joined]);
        let run = sparring(&args);
        assert_eq!(run.code, 2, "{option} {value}: {}", run.stderr);
        assert!(!run.stderr.contains("generating"), "{}", run.stderr);
        if option != "--count" {
            assert!(
                run.stderr.contains(&format!("{option} {value}")),
                "{}",
                run.stderr
            );
        }
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "kept\n");
    }
}

/// A data file without line ends (binary data, a device) was read into memory without end by
/// the tuner and by `tune convert` (which also left its .partial file when killed); both now
/// stop at the first line past 1 MiB with status 2, naming the file and line.
#[test]
fn tune_inputs_without_line_ends_are_refused_not_read_into_memory() {
    let dir = scratch("tune_endless_line");
    let blob = dir.join("blob.epd");
    let mut bytes =
        b"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - c9 \"1-0\";\n".to_vec();
    bytes.extend(std::iter::repeat_n(b'x', (1 << 20) + 10));
    std::fs::write(&blob, bytes).unwrap();
    let line_two = format!("{}:2: a line longer than", text(&blob));
    let out = dir.join("out.txt");
    let run = sparring(&[
        "tune",
        "convert",
        "--to",
        "bullet",
        text(&blob),
        "-o",
        text(&out),
    ]);
    assert_bad_input(&run, &[&line_two]);
    assert!(!out.exists() && !dir.join("out.txt.partial").exists());
    let config = tune_config(&dir, "\"x.epd\"");
    let run = sparring(&["tune", text(&config), "--data", text(&blob)]);
    assert_bad_input(&run, &[&line_two]);
}

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
