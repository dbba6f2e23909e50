//! `sparring tune` and `tune convert` from the command line: data lists and patterns that are
//! missing, directories, devices or without line ends; configuration ranges; bad lines skipped
//! by name; outputs that are directories or the input itself; an existing output kept when a
//! run fails; plain epoch lines for a log; threads bounded by the machine.

use sparring::search::bench_positions::BENCH_FENS;
use std::path::{Path, PathBuf};

use crate::common::binary;
use crate::common::hostile;
use binary::{assert_bad_input, sparring, text};
use hostile::run;

/// A fresh, empty scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    binary::scratch_in("tune_cli", name)
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

/// A tuning configuration over a small EPD file of the bench positions, output into `dir/out`.
fn tune_config_on_bench_positions(dir: &Path) -> PathBuf {
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

// ---------------------------------------------------------------------------------------------
// tune data lists and patterns

// Regression test of review defect 1 (tune data lists).
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

// Regression test of review defect 1 (tune data lists).
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

// Found by adversarial runs of the other subcommands (a review defect without a number).
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

// ---------------------------------------------------------------------------------------------
// tune configuration and output

// Regression test of review defect 2 (tune configuration ranges).
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

#[test]
fn tune_writes_plain_epoch_lines_when_not_a_terminal() {
    let dir = scratch("tune-plain");
    let config = tune_config_on_bench_positions(&dir);
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
    let config = tune_config_on_bench_positions(&dir);
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
// tune convert

// Regression test of review defect 1 (tune data lists).
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

// Found by adversarial runs of the other subcommands (a review defect without a number).
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

// ---------------------------------------------------------------------------------------------
// tune on the binary training-data formats

/// The tuner reads `sparring datagen`'s viriformat and its conversions to marlinformat and
/// bulletformat as the same positions (bulletformat's boards flipped to White to move, which a
/// symmetric evaluation scores alike), and refuses a damaged one naming the file and byte.
#[test]
fn tune_reads_viriformat_marlinformat_and_bulletformat_as_the_same_positions() {
    let dir = scratch("tune-binary");
    let gen = dir.join("gen");
    let run = sparring(&[
        "datagen",
        "--games",
        "3",
        "--nodes",
        "300",
        "--seed",
        "5",
        "--out",
        text(&gen),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let viri = gen.join("data.viriformat");
    let mut files = vec![viri.clone()];
    for format in ["marlinformat", "bulletformat"] {
        let out = dir.join(format!("d.{format}"));
        let run = sparring(&[
            "data",
            "convert",
            text(&viri),
            "--to",
            format,
            "-o",
            text(&out),
        ]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        files.push(out);
    }
    let summary = |data: &Path| {
        let config = tune_config(&dir, &format!("{:?}", text(data)));
        let run = sparring(&["tune", text(&config)]);
        assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
        let pick = |prefix: &str| {
            let line = run.stdout.lines().find(|l| l.starts_with(prefix));
            line.unwrap_or_else(|| panic!("no `{prefix}` in {}", run.stdout))
                .to_string()
        };
        let loaded = pick("loaded ");
        let loaded = loaded.split(" in ").next().unwrap().to_string();
        (loaded, pick("K = "))
    };
    let expected = summary(&files[0]);
    assert!(!expected.0.contains("loaded 0 "), "{expected:?}");
    for file in &files[1..] {
        assert_eq!(summary(file), expected, "{}", file.display());
    }
    let damaged = dir.join("cut.marlinformat");
    std::fs::write(&damaged, &std::fs::read(&files[1]).unwrap()[..100]).unwrap();
    let config = tune_config(&dir, &format!("{:?}", text(&damaged)));
    assert_bad_input(
        &sparring(&["tune", text(&config)]),
        &[text(&damaged), "byte 96: truncated"],
    );
}
