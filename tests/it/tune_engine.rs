//! `sparring tune CONFIG --engine "CMD"` and the `[engine]` table: an engine's evaluation tuned
//! through the tunetrace protocol. sparring's own engine through the protocol starts and ends
//! where the in-process tuner does; the Python mock is tuned end to end; a misbehaving engine
//! (dies, malformed line, identity violated, parameter count changed, index out of range, hangs)
//! is a clear error naming the engine and the position, status 1 or 2, with no process left.
//! The mock's non-linear king safety, declared as a finaliser, is tuned through the chain rule.

use crate::common::binary;
use crate::common::tools;

use binary::{scratch_in, sparring, text, Run};
use sparring::eval::EvalParams;
use sparring::texel::any::{self, AnyOptions, Method};
use sparring::texel::external::{EngineSpec, ExternalEval};
use sparring::texel::{self, synthetic, Event, KSetting, TuneConfig};
use sparring::texel::{sigmoid, Dataset, EvalSelection, LinearTrace, TunableEval};
use std::path::{Path, PathBuf};

/// 2,176 self-play positions (FEN and result).
const FIXTURE: &str = "tests/fixtures/tune/toy-selfplay.epd";

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(FIXTURE)
}

fn mock(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/mock")
        .join(name)
}

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_sparring")
}

/// Whether python3 runs; prints why a test is skipped when it does not.
fn python3(test: &str) -> bool {
    tools::present(
        tools::python_imports(""),
        &format!("{test}: python3 is not installed"),
    )
}

/// The options both tuners run with: a validation split, three Gauss-Newton iterations, one
/// thread (one engine process).
fn options() -> AnyOptions {
    AnyOptions {
        epochs: 3,
        threads: 1,
        dedupe: true,
        validation_fraction: 0.1,
        seed: 1,
        ..AnyOptions::default()
    }
}

/// A tune configuration over the fixture writing into `out`, with `extra` appended.
fn config(dir: &Path, out: &Path, extra: &str) -> PathBuf {
    let path = dir.join("tune.toml");
    let text = format!(
        "[data]\nfiles = [{:?}]\nvalidation_fraction = 0.1\nseed = 1\nscore_weight = 0\n\
         [optimizer]\nepochs = 3\nthreads = 1\n[output]\ndir = {:?}\n{extra}",
        text(&fixture()),
        text(out)
    );
    std::fs::write(&path, text).unwrap();
    path
}

/// The number after `key ` on its own line of the output.
fn printed(run: &Run, key: &str) -> f64 {
    let prefix = format!("{key} ");
    run.stdout
        .lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("no '{key}' line in {}", run.stdout))
}

#[test]
fn the_own_engine_through_the_protocol_tunes_as_the_in_process_tuner() {
    let files = vec![fixture()];
    let own = any::run(&EvalParams::default(), &files, &options(), &mut |_| {}).unwrap();
    let spec = EngineSpec {
        args: vec!["uci".to_string()],
        ..EngineSpec::from_command_line(bin())
    };
    let engine = ExternalEval::start(&spec, 1).unwrap();
    let traced = any::run(&engine, &files, &options(), &mut |_| {}).unwrap();
    drop(engine);
    assert_eq!(traced.specs, own.specs);
    assert_eq!(
        (traced.positions, traced.validation_positions),
        (own.positions, own.validation_positions)
    );
    assert!(own.validation_positions > 100 && own.positions > 1800);
    let close = |a: f64, b: f64, what: &str| assert!((a - b).abs() < 1e-9, "{what}: {a} vs {b}");
    close(traced.k, own.k, "K");
    close(traced.start_mse, own.start_mse, "start mse");
    close(traced.final_mse, own.final_mse, "final mse");
    let ((vs, ve), (os, oe)) = (traced.validation_mse.unwrap(), own.validation_mse.unwrap());
    close(vs, os, "start validation mse");
    close(ve, oe, "final validation mse");
    assert!(own.final_mse < own.start_mse - 1e-4, "the fit moves");

    // `sparring tune` on sparring's own evaluation splits and fits K the same way.
    let dir = scratch_in("tune_engine", "own");
    let out = dir.join("out");
    let cfg = TuneConfig::load(config(&dir, &out.join("in-process"), "")).unwrap();
    let mut k_event = None;
    texel::run(&cfg, &mut |e| {
        if let Event::K { k, train_mse, .. } = e {
            k_event = Some((k, train_mse));
        }
    })
    .unwrap();
    let (k, start) = k_event.unwrap();
    close(k, own.k, "K of sparring tune");
    close(start, own.start_mse, "start mse of sparring tune");

    // The command line prints the same numbers.
    let run = sparring(&[
        "tune",
        text(&config(&dir, &out, "")),
        "--engine",
        &format!("{} uci", bin()),
    ]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    close(printed(&run, "k"), own.k, "printed K");
    close(
        printed(&run, "start_mse"),
        own.start_mse,
        "printed start mse",
    );
    close(printed(&run, "mse"), own.final_mse, "printed mse");
    let weights: toml::Table = std::fs::read_to_string(out.join("weights.toml"))
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(
        weights["weights"].as_table().unwrap().len(),
        own.specs.len()
    );
}

#[test]
fn the_python_mock_is_tuned_end_to_end_from_the_engine_table() {
    if !python3("the_python_mock_is_tuned_end_to_end_from_the_engine_table") {
        return;
    }
    let dir = scratch_in("tune_engine", "python");
    let out = dir.join("out");
    let table = format!(
        "[engine]\ncommand = \"python3\"\nargs = [{:?}]\nworking_dir = {:?}\n",
        text(&mock("tunetrace_engine.py")),
        text(&dir)
    );
    let run = sparring(&["tune", text(&config(&dir, &out, &table))]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("6 parameters"), "{}", run.stdout);
    let (start, end) = (printed(&run, "start_mse"), printed(&run, "mse"));
    assert!(end < start - 1e-4 && end > 0.0, "{start} -> {end}");

    let weights: toml::Table = std::fs::read_to_string(out.join("weights.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let rook7 = weights["weights"]["rook_on_seventh"].as_array().unwrap();
    assert_eq!(rook7.len(), 2, "tapered: [mg, eg]");
    for unverified in [
        "weights.unverified.toml",
        "weights.unverified.txt",
        "setoption.unverified.txt",
    ] {
        assert!(
            !out.join(unverified).exists(),
            "{unverified} left after the check"
        );
    }
    let named = std::fs::read_to_string(out.join("weights.txt")).unwrap();
    assert_eq!(named.lines().count(), 12);
    assert!(named.lines().any(|l| l.starts_with("material.queen.eg ")));
    let uci = std::fs::read_to_string(out.join("setoption.txt")).unwrap();
    assert!(uci.lines().all(|l| l.starts_with("setoption name ")));
    let history = std::fs::read_to_string(out.join("history.csv")).unwrap();
    let rows: Vec<&str> = history.lines().collect();
    assert_eq!(rows[0], "epoch,train_mse,validation_mse,seconds");
    assert!(rows.len() >= 3, "{history}");
    assert!(rows[1..].iter().all(|r| r.split(',').nth(2) != Some("")));
    let svg = std::fs::read_to_string(out.join("loss.svg")).unwrap();
    assert_eq!(
        svg.matches("<polyline").count(),
        2,
        "training and validation"
    );
}

#[test]
fn the_command_line_engine_overrides_the_table_and_bad_tables_are_refused() {
    let dir = scratch_in("tune_engine", "table");
    let out = dir.join("out");
    let table = "[engine]\ncommand = \"/no/such/engine\"\ntimeout = 60\n";
    let run = sparring(&[
        "tune",
        text(&config(&dir, &out, table)),
        "--engine",
        &format!("{} uci", bin()),
    ]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let declared = format!("uci': {} parameters", EvalParams::default().len());
    assert!(run.stdout.contains(&declared), "{}", run.stdout);

    let alone = sparring(&["tune", text(&config(&dir, &out, table))]);
    assert_eq!(alone.code, 1, "{}", alone.stderr);
    assert!(
        alone
            .stderr
            .contains("engine '/no/such/engine' cannot start"),
        "{}",
        alone.stderr
    );

    let cfg = config(&dir, &out, "[engine]\ncommand = \"e\"\nflags = [\"-x\"]\n");
    let bad = sparring(&["tune", text(&cfg)]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    let at = format!("{}:13:1", text(&cfg));
    assert!(
        bad.stderr.contains(&at) && bad.stderr.contains("engine.flags"),
        "{at}: {}",
        bad.stderr
    );
    let cfg = config(&dir, &out, "[engine]\ncommand = \"e\"\nargs = \"-x\"\n");
    let bad = sparring(&["tune", text(&cfg)]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(
        bad.stderr.contains(&format!("{}:13:8", text(&cfg))) && bad.stderr.contains("engine.args"),
        "{}",
        bad.stderr
    );
}

/// Processes whose command line mentions `marker` (a test's own scratch directory).
fn processes_mentioning(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if cmdline.contains(marker) {
            found.push(format!(
                "{}: {cmdline}",
                entry.file_name().to_string_lossy()
            ));
        }
    }
    found
}

/// A run of `sparring tune` on a misbehaving mock engine.
struct Faulty {
    name: String,
    run: Run,
    /// The test's own directory (the engine's processes mention it).
    dir: PathBuf,
    /// The tuner's output directory.
    out: PathBuf,
    /// The `--engine` command line.
    engine: String,
}

/// Runs `sparring tune` with the mock `script` (copied into the test's own directory, so its
/// processes can be told apart), `flags` and an answer timeout of `timeout` seconds; None
/// (the test is skipped) without python3.
fn run_faulty(name: &str, script: &str, flags: &str, timeout: u64) -> Option<Faulty> {
    if !python3(name) {
        return None;
    }
    let dir = scratch_in("tune_engine", name);
    let copy = dir.join(script);
    std::fs::copy(mock(script), &copy).unwrap();
    let table = format!("[engine]\ntimeout = {timeout}\ncommand = \"python3\"\n");
    let out = dir.join("out");
    let cfg = config(&dir, &out, &table);
    let engine = format!("python3 {} {flags}", text(&copy));
    let run = sparring(&["tune", text(&cfg), "--engine", &engine]);
    Some(Faulty {
        name: name.to_string(),
        run,
        dir,
        out,
        engine: engine.trim().to_string(),
    })
}

/// Checks the status, that the message names the engine and contains each of `says`, and that
/// no engine process is left.
fn check_faulty(f: &Faulty, code: i32, says: &[&str]) {
    let (name, run) = (&f.name, &f.run);
    assert_eq!(run.code, code, "{name}: {}{}", run.stdout, run.stderr);
    let named = format!("engine '{}'", f.engine);
    assert!(run.stderr.contains(&named), "{name}: {}", run.stderr);
    for s in says {
        assert!(run.stderr.contains(s), "{name}: no '{s}' in {}", run.stderr);
    }
    assert!(!run.stderr.contains("panicked"), "{name}: {}", run.stderr);
    assert_eq!(
        run.stderr
            .lines()
            .filter(|l| l.starts_with("error:"))
            .count(),
        1,
        "{name}: one error line: {}",
        run.stderr
    );
    assert_eq!(
        // The directory with its separator: `dies/` is not `dies_mid_line/`, a test beside it.
        processes_mentioning(&format!("{}/", text(&f.dir))),
        Vec::<String>::new(),
        "{name}"
    );
}

/// `run_faulty` then `check_faulty`; a short answer timeout only where the engine hangs (a
/// loaded machine may start Python slowly).
fn faulty(name: &str, script: &str, flags: &str, code: i32, says: &[&str]) -> Option<Faulty> {
    let timeout = if name == "hangs" { 3 } else { 60 };
    let f = run_faulty(name, script, flags, timeout)?;
    check_faulty(&f, code, says);
    Some(f)
}

/// No weights file of any name in `out`: nothing was fitted.
fn assert_no_weights(f: &Faulty) {
    for file in [
        "weights.toml",
        "weights.unverified.toml",
        "weights.txt",
        "setoption.txt",
    ] {
        assert!(!f.out.join(file).exists(), "{}: {file} written", f.name);
    }
}

/// The position an error names: the fixture's file and line, then its FEN.
fn at_line(line: usize) -> String {
    format!("{}:{line}: cannot trace ", text(&fixture()))
}

#[test]
fn an_engine_that_dies_mid_trace_fails_the_run() {
    faulty(
        "dies",
        "tunetrace_engine.py",
        "--die-after 40",
        1,
        &[&at_line(41), "exited"],
    );
}

#[test]
fn a_malformed_trace_line_is_bad_input() {
    faulty(
        "malformed",
        "tunetrace_engine.py",
        "--malformed-at 7",
        2,
        &[&at_line(7), "'trace phase banana'"],
    );
}

#[test]
fn a_trace_that_does_not_add_up_is_refused() {
    faulty(
        "lies",
        "tunetrace_engine.py",
        "--lie-at 12",
        2,
        &[&at_line(12), "the trace does not add up"],
    );
}

#[test]
fn a_parameter_count_that_changes_is_refused() {
    faulty(
        "params_change",
        "tunetrace_engine.py",
        "--params-change",
        2,
        &["the parameter count changed from 6 to 5"],
    );
}

#[test]
fn a_coefficient_beyond_the_declared_parameters_is_refused() {
    faulty(
        "index",
        "tunetrace_faults.py",
        "--index-at 3",
        2,
        &[
            &at_line(3),
            "index out of range, the engine declared 2 parameters",
        ],
    );
}

#[test]
fn an_engine_that_hangs_is_ended_after_its_timeout() {
    faulty(
        "hangs",
        "tunetrace_faults.py",
        "--hang-at 5",
        1,
        &[&at_line(5), "did not answer within 3s"],
    );
}

#[test]
fn a_fixed_k_is_kept() {
    let options = AnyOptions {
        k: KSetting::Fixed(1.5),
        ..options()
    };
    let r = any::run(&EvalParams::default(), &[fixture()], &options, &mut |_| {}).unwrap();
    assert_eq!(r.k, 1.5);
}

/// `data.score_weight` with `--engine`: the recorded scores join the labels after K is fitted to
/// the results, as for sparring's own tuner, and the protocol path gives the in-process numbers.
#[test]
fn score_weight_blends_scores_into_the_labels_through_the_protocol_too() {
    let dir = scratch_in("tune_engine", "score_weight");
    let data = dir.join("scored.epd");
    let fixture_text = std::fs::read_to_string(fixture()).unwrap();
    // A made-up search score per position (side to move's view), different per line.
    let scored: String = fixture_text
        .lines()
        .enumerate()
        .map(|(i, line)| format!("{} ce {};\n", line.trim_end(), (i as i64 * 37) % 401 - 200))
        .collect();
    std::fs::write(&data, scored).unwrap();
    let files = vec![data.clone()];
    let plain = any::run(&EvalParams::default(), &files, &options(), &mut |_| {}).unwrap();
    let blended_options = AnyOptions {
        score_weight: 0.5,
        ..options()
    };
    let blended = any::run(
        &EvalParams::default(),
        &files,
        &blended_options,
        &mut |_| {},
    )
    .unwrap();
    let close = |a: f64, b: f64, what: &str| assert!((a - b).abs() < 1e-9, "{what}: {a} vs {b}");
    close(blended.k, plain.k, "K is fitted to the results alone");
    assert!(
        (blended.start_mse - plain.start_mse).abs() > 1e-4,
        "the labels moved: {} vs {}",
        blended.start_mse,
        plain.start_mse
    );
    let out = dir.join("out");
    let config = dir.join("tune.toml");
    std::fs::write(
        &config,
        format!(
            "[data]\nfiles = [{:?}]\nvalidation_fraction = 0.1\nseed = 1\nscore_weight = 0.5\n\
             dedupe = true\n[optimizer]\nepochs = 3\nthreads = 1\n[output]\ndir = {:?}\n",
            text(&data),
            text(&out)
        ),
    )
    .unwrap();
    let run = sparring(&["tune", text(&config), "--engine", &format!("{} uci", bin())]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    close(printed(&run, "k"), blended.k, "printed K");
    close(
        printed(&run, "start_mse"),
        blended.start_mse,
        "printed start mse",
    );
    close(printed(&run, "mse"), blended.final_mse, "printed mse");
}

/// The mock with its king-danger term: four attack weights summed per side and passed through
/// the declared finaliser `king_safety mg quadratic 100 eg relu 4`.
fn king_mock() -> EngineSpec {
    EngineSpec::from_command_line(&format!(
        "python3 {} --king-danger",
        text(&mock("tunetrace_engine.py"))
    ))
}

/// Labels from known weights through the engine's finaliser: every trace passes the identity
/// check (with the finaliser), and Gauss-Newton and Adam both find the weights again, through
/// the chain rule.
#[test]
fn a_finaliser_term_is_tuned_back_to_the_weights_that_labelled_the_data() {
    if !python3("a_finaliser_term_is_tuned_back_to_the_weights_that_labelled_the_data") {
        return;
    }
    let engine = ExternalEval::start(&king_mock(), 1).unwrap();
    let finals = engine.finalisers();
    assert_eq!(finals.len(), 1);
    let specs = engine.params();
    assert_eq!(specs.len(), 10);
    // The truth: material and rook moved a little, the king attack weights a lot.
    let mut truth: Vec<(f64, f64)> = specs.iter().map(|s| s.start).collect();
    truth[1].0 += 15.0;
    truth[3].1 -= 20.0;
    let king = [(35.0, 45.0), (25.0, 10.0), (10.0, 30.0), (70.0, 35.0)];
    truth[6..].copy_from_slice(&king);
    let positions = synthetic::playout_positions(3, 2500);
    let mut t = LinearTrace::default();
    let mut attacked = 0;
    let labels: Vec<f32> = positions
        .iter()
        .map(|pos| {
            t.clear();
            engine.trace(pos, &mut t).unwrap();
            attacked += usize::from(!t.finals.is_empty());
            sigmoid(1.0, t.value_with(&truth, engine.phase_max(), &finals)) as f32
        })
        .collect();
    assert!(attacked > 500, "{attacked} positions with a king attack");
    let data =
        Dataset::try_from_positions(&positions, &labels, &EvalSelection::new(&engine)).unwrap();
    // Few positions have a low phase, so the endgame halves are the less determined.
    for (method, epochs, tolerance) in [
        (Method::GaussNewton, 30, (2.0, 8.0)),
        (Method::Adam { learning_rate: 2.0 }, 3000, (6.0, 12.0)),
    ] {
        let options = AnyOptions {
            k: KSetting::Fixed(1.0),
            method: method.clone(),
            epochs,
            threads: 1,
            ..AnyOptions::default()
        };
        let fit = any::fit(&engine, &data, &Dataset::default(), &options, &mut |_| {}).unwrap();
        let last = fit.history.last().unwrap().train_mse;
        assert!(
            last < fit.start_mse / 10.0,
            "{method:?}: {} -> {last}",
            fit.start_mse
        );
        for (i, (w, t)) in fit.weights[6..].iter().zip(king).enumerate() {
            assert!(
                (w[0] - t.0).abs() < tolerance.0 && (w[1] - t.1).abs() < tolerance.1,
                "{method:?}: {} is {w:?}, the truth {t:?}",
                specs[6 + i].name
            );
        }
    }
}

/// `sparring tune --engine` on the mock with its finaliser: the identity check passes on every
/// position and the loss falls.
#[test]
fn the_python_mock_with_a_finaliser_is_tuned_from_the_command_line() {
    if !python3("the_python_mock_with_a_finaliser_is_tuned_from_the_command_line") {
        return;
    }
    let dir = scratch_in("tune_engine", "finaliser");
    let out = dir.join("out");
    let engine = king_mock().display();
    let run = sparring(&["tune", text(&config(&dir, &out, "")), "--engine", &engine]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("10 parameters"), "{}", run.stdout);
    let (start, end) = (printed(&run, "start_mse"), printed(&run, "mse"));
    assert!(end < start - 1e-4 && end > 0.0, "{start} -> {end}");
    let weights = std::fs::read_to_string(out.join("weights.toml")).unwrap();
    assert!(weights.contains("\"king_attack.queen\" = ["), "{weights}");
}

#[test]
fn an_unknown_finaliser_kind_is_refused() {
    faulty(
        "final_kind",
        "tunetrace_engine.py",
        "--king-danger --bad-final cubic:3",
        2,
        &[
            "'finaliser 0 king_safety mg cubic 3 eg relu 4'",
            "unknown finaliser kind 'cubic'",
        ],
    );
}

#[test]
fn a_zero_finaliser_constant_is_refused() {
    faulty(
        "final_constant",
        "tunetrace_engine.py",
        "--king-danger --bad-final quadratic:0",
        2,
        &["finaliser constant '0' is not a finite nonzero number"],
    );
}

#[test]
fn a_group_of_an_undeclared_finaliser_is_refused() {
    faulty(
        "final_undeclared",
        "tunetrace_engine.py",
        "--king-danger --bad-final undeclared",
        2,
        &[
            &at_line(1),
            "'final 7': a group of an undeclared finaliser, the engine declared 1 finalisers",
        ],
    );
}

/// What a fit that the engine could not confirm leaves: its weights under the unverified
/// names (the mock's two parameters, whole numbers), history.csv and loss.svg, and no
/// weights.toml.
fn assert_fit_kept_unverified(f: &Faulty) {
    let name = &f.name;
    assert!(!f.out.join("weights.toml").exists(), "{name}: weights.toml");
    assert!(!f.out.join("weights.txt").exists(), "{name}: weights.txt");
    assert!(
        !f.out.join("setoption.txt").exists(),
        "{name}: setoption.txt"
    );
    let toml_text = std::fs::read_to_string(f.out.join("weights.unverified.toml")).unwrap();
    let weights: toml::Table = toml_text.parse().unwrap();
    let weights = weights["weights"].as_table().unwrap();
    let mut keys: Vec<&str> = weights.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["material.knight", "material.pawn"], "{toml_text}");
    assert!(
        weights.values().all(|v| v.as_integer().is_some()),
        "{toml_text}"
    );
    let named = std::fs::read_to_string(f.out.join("weights.unverified.txt")).unwrap();
    assert_eq!(named.lines().count(), 2, "{named}");
    let uci = std::fs::read_to_string(f.out.join("setoption.unverified.txt")).unwrap();
    assert!(
        uci.lines().count() == 2 && uci.lines().all(|l| l.starts_with("setoption name ")),
        "{uci}"
    );
    let history = std::fs::read_to_string(f.out.join("history.csv")).unwrap();
    let rows: Vec<&str> = history.lines().collect();
    assert_eq!(rows[0], "epoch,train_mse,validation_mse,seconds");
    assert!(rows.len() >= 3, "{name}: {history}");
    assert!(f.out.join("loss.svg").exists(), "{name}: loss.svg");
}

#[test]
fn a_completed_fit_is_kept_when_the_engine_dies_at_the_recheck() {
    let Some(f) = faulty(
        "dies_at_recheck",
        "tunetrace_faults.py",
        "--die-at-params 2",
        1,
        &[
            "weights.unverified.toml",
            "exited (exit status: 4)",
            "no parameters at request 2",
        ],
    ) else {
        return;
    };
    assert_fit_kept_unverified(&f);
}

#[test]
fn a_completed_fit_is_kept_when_the_engine_hangs_at_the_recheck() {
    let Some(f) = run_faulty(
        "hangs_at_recheck",
        "tunetrace_faults.py",
        "--hang-at-params 2",
        3,
    ) else {
        return;
    };
    check_faulty(
        &f,
        1,
        &["weights.unverified.toml", "did not answer within 3s"],
    );
    assert_fit_kept_unverified(&f);
}

#[test]
fn duplicate_parameter_names_are_refused_naming_both_indexes() {
    let Some(f) = faulty(
        "duplicate_name",
        "tunetrace_faults.py",
        "--duplicate-name 1",
        2,
        &[
            "tunetrace params",
            "parameters 0 and 1 are both named 'material.pawn'",
        ],
    ) else {
        return;
    };
    assert_no_weights(&f);
}

#[test]
fn the_engines_stderr_tail_is_shown_when_it_cannot_start() {
    if !python3("the_engines_stderr_tail_is_shown_when_it_cannot_start") {
        return;
    }
    let dir = scratch_in("tune_engine", "no_such_script");
    let engine = format!("python3 {}", text(&dir.join("no_such_script.py")));
    let run = sparring(&[
        "tune",
        text(&config(&dir, &dir.join("out"), "")),
        "--engine",
        &engine,
    ]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    for says in [
        format!("engine '{engine}' exited (exit status: 2)"),
        "can't open file".to_string(),
        "no_such_script.py".to_string(),
    ] {
        assert!(run.stderr.contains(&says), "no '{says}' in {}", run.stderr);
    }
    assert_eq!(
        run.stderr.lines().count(),
        1,
        "one error line: {}",
        run.stderr
    );
}

#[test]
fn an_engine_that_dies_mid_line_is_a_failed_run_with_its_stderr_tail() {
    let Some(f) = faulty(
        "dies_mid_line",
        "tunetrace_faults.py",
        "--die-mid-line 5",
        1,
        &[
            &at_line(5),
            "exited (exit status: 3) in the middle of a line ('trace phase 1 scale 1 rem')",
            "dying in the middle of trace 5",
        ],
    ) else {
        return;
    };
    assert!(!f.run.stderr.contains("not a number"), "{}", f.run.stderr);
    assert_no_weights(&f);
}

#[test]
fn a_phase_above_phase_max_is_refused_naming_the_line_and_field() {
    faulty(
        "phase_over",
        "tunetrace_engine.py",
        "--phase-over-at 9",
        2,
        &[
            &at_line(9),
            "'trace phase 20 ",
            "phase 20 is above phase_max 16",
        ],
    );
}

#[test]
fn a_remainder_of_1e300_is_refused_naming_the_line_and_field() {
    faulty(
        "huge_remainder",
        "tunetrace_faults.py",
        "--huge-remainder-at 4",
        2,
        &[
            &at_line(4),
            "remainder '1e+300' is outside -32000 to 32000 centipawns",
        ],
    );
}

/// A 200 KB command (from the `[engine]` table: the command line could not carry it) is quoted
/// cut short, not whole.
#[test]
fn a_long_engine_command_is_quoted_cut_short_in_errors() {
    let dir = scratch_in("tune_engine", "long_name");
    let long = format!("/no/such/{}", "x".repeat(200_000));
    let table = format!("[engine]\ncommand = \"{long}\"\n");
    let run = sparring(&["tune", text(&config(&dir, &dir.join("out"), &table))]);
    assert_eq!(run.code, 1, "{}", &run.stderr[..run.stderr.len().min(500)]);
    assert!(
        run.stderr.len() < 1_000,
        "{} bytes of error",
        run.stderr.len()
    );
    let shown: String = long.chars().take(200).collect();
    assert!(
        run.stderr
            .contains(&format!("engine '{shown}…' cannot start")),
        "{}",
        run.stderr
    );
}
