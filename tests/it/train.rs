//! `sparring train`: the loss falls on self-play data, every data format trains, a resume after a
//! stop gives the same bytes as an uninterrupted run (and so do 1 and 2 threads), the quantised
//! file agrees with the float net, and bad input is refused with file, line and key.

use crate::common::binary::{assert_bad_input, scratch_in, sparring, text};
use sparring::board::Position;
use sparring::data::{DataReader, Samples};
use sparring::nnue::Network;
use sparring::train::{self, FloatNet, TrainConfig, TrainOptions, TrainPosition};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// 30 self-play games of the built-in engine at 300 nodes (about 3500 positions), generated
/// once per test run.
fn games() -> &'static Path {
    static DATA: OnceLock<PathBuf> = OnceLock::new();
    DATA.get_or_init(|| {
        let dir = scratch_in("train", "datagen");
        let run = sparring(&[
            "datagen",
            "--engine",
            "builtin",
            "--nodes",
            "300",
            "--games",
            "30",
            "--seed",
            "3",
            "--format",
            "viriformat",
            "--concurrency",
            "1",
            "--progress",
            "lines",
            "--out",
            text(&dir),
        ]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        dir.join("data.viriformat")
    })
}

/// A small configuration: N = 32, batches of 256, `extra` appended.
fn config(dir: &Path, extra: &str) -> PathBuf {
    let path = dir.join("train.toml");
    let text = format!(
        "[data]\nfiles = [{:?}]\nvalidation_fraction = 0.1\nshuffle_buffer = 1000\n\
         [model]\nhidden = 32\n[training]\nsuperbatches = 4\nbatch_size = 256\nthreads = 1\n\
         [optimizer]\nlr = 0.01\n[output]\ndir = {:?}\n{extra}",
        games().display().to_string(),
        dir.join("out").display().to_string(),
    );
    std::fs::write(&path, text).unwrap();
    path
}

fn history(dir: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(dir.join("history.csv")).unwrap();
    text.lines()
        .skip(1)
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

#[test]
fn training_lowers_the_loss_and_writes_every_output() {
    let dir = scratch_in("train", "loss");
    let run = sparring(&["train", text(&config(&dir, "")), "--epochs", "6"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("superbatch 6/6"), "{}", run.stdout);
    let out = dir.join("out");
    let rows = history(&out);
    assert_eq!(rows.len(), 6);
    let loss = |row: &[String], column: usize| row[column].parse::<f64>().unwrap();
    assert!(
        loss(&rows[5], 2) < 0.9 * loss(&rows[0], 2),
        "train: {rows:?}"
    );
    assert!(
        loss(&rows[5], 3) < loss(&rows[0], 3),
        "validation: {rows:?}"
    );
    let net = Network::load(&out.join("quantised.bin")).unwrap();
    assert_eq!(net.hidden(), 32);
    assert_eq!(
        std::fs::metadata(out.join("raw.bin")).unwrap().len(),
        4 * (771 * 32 + 1)
    );
    let svg = std::fs::read_to_string(out.join("loss.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("polyline"));
}

/// The kill-and-resume equality: 4 superbatches straight, against 2, a stop, and a resume; with
/// superbatches of 3 batches, so the stop falls inside a pass over the data. A run on 2
/// threads gives the same bytes as on 1.
#[test]
fn a_resumed_run_ends_with_the_same_bytes_as_an_uninterrupted_one() {
    let extra = "batches_per_superbatch = 3\n";
    let straight = scratch_in("train", "straight");
    let run = sparring(&["train", text(&config(&straight, "").with_extra(extra))]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let stopped = scratch_in("train", "stopped");
    let cfg = config(&stopped, "").with_extra(extra);
    let run = sparring(&["train", text(&cfg), "--stop-after", "2"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(history(&stopped.join("out")).len(), 2);
    let again = sparring(&["train", text(&cfg)]);
    assert_bad_input(&again, &["checkpoint.bin", "--resume"]);
    let run = sparring(&["train", text(&cfg), "--resume"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("resumed after superbatch 2"),
        "{}",
        run.stdout
    );
    for name in ["quantised.bin", "raw.bin"] {
        let a = std::fs::read(straight.join("out").join(name)).unwrap();
        let b = std::fs::read(stopped.join("out").join(name)).unwrap();
        assert!(a == b, "{name} differs after the resume");
    }
    if sparring::available_cores() >= 2 {
        let two = scratch_in("train", "two-threads");
        let run = sparring(&[
            "train",
            text(&config(&two, "").with_extra(extra)),
            "--threads",
            "2",
        ]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let a = std::fs::read(straight.join("out/raw.bin")).unwrap();
        assert!(
            a == std::fs::read(two.join("out/raw.bin")).unwrap(),
            "2 threads differ"
        );
    }
}

trait WithExtra {
    fn with_extra(self, extra: &str) -> PathBuf;
}

impl WithExtra for PathBuf {
    /// The configuration with `extra` keys added to its `[training]` table.
    fn with_extra(self, extra: &str) -> PathBuf {
        let text = std::fs::read_to_string(&self).unwrap();
        let text = text.replacen("[training]\n", &format!("[training]\n{extra}"), 1);
        std::fs::write(&self, text).unwrap();
        self
    }
}

/// The float net ×400 against the quantised file's integer inference on every position of the
/// data: `(mean, max)` absolute difference in centipawns, and the float outputs' spread.
fn float_vs_quantised(net: &FloatNet) -> (f64, f64, f64) {
    let quantised = net.quantise().unwrap();
    let mut samples = Samples::new(DataReader::open(games(), None).unwrap());
    let (mut count, mut total, mut worst) = (0usize, 0f64, 0f64);
    let (mut lo, mut hi) = (f64::MAX, f64::MIN);
    while let Some(sample) = samples.next_sample().unwrap() {
        let pos: &Position = &sample.data.position;
        let p = TrainPosition::new(pos, 0, sample.data.result);
        let float_cp = f64::from(net.forward(&p)) * 400.0;
        let diff = (f64::from(quantised.evaluate(pos)) - float_cp).abs();
        (lo, hi) = (lo.min(float_cp), hi.max(float_cp));
        total += diff;
        worst = worst.max(diff);
        count += 1;
    }
    assert!(count > 1000, "{count} positions");
    (total / count as f64, worst, hi - lo)
}

/// The quantised file agrees with the float net it came from: on a trained net (N = 32) the
/// rounding of the weights (to 1/255 and 1/64) costs a few centipawns; on the same net with
/// every weight on those grids already only the integer divisions remain (under 2 cp).
#[test]
fn the_quantised_net_agrees_with_the_float_net() {
    let dir = scratch_in("train", "quantised");
    let config = TrainConfig::load(config(&dir, "")).unwrap();
    let outcome = train::train(&config, &TrainOptions::default(), &mut |_| {}).unwrap();
    let quantised = Network::load(&dir.join("out/quantised.bin")).unwrap();
    assert_eq!(quantised, outcome.net.quantise().unwrap());
    let (mean, worst, spread) = float_vs_quantised(&outcome.net);
    println!("trained net: float vs quantised: mean {mean:.3} cp, max {worst:.3} cp");
    assert!(
        spread > 100.0,
        "the net says something: its outputs span {spread:.0} cp"
    );
    assert!(mean < 8.0 && worst < 40.0, "mean {mean} max {worst}");
    // The same net snapped to the quantisation grids.
    let n = outcome.net.hidden;
    let mut snapped = outcome.net.clone();
    for (i, w) in snapped.params.iter_mut().enumerate() {
        let q = match i {
            i if i < 769 * n => 255.0,
            i if i < 771 * n => 64.0,
            _ => 255.0 * 64.0,
        };
        *w = ((f64::from(*w) * q).round() / q) as f32;
    }
    let (mean, worst, _) = float_vs_quantised(&snapped);
    println!("snapped net: float vs quantised: mean {mean:.3} cp, max {worst:.3} cp");
    assert!(mean < 1.0 && worst < 2.0, "mean {mean} max {worst}");
}

/// Every format sparring writes trains: the viriformat games converted to the position formats.
#[test]
fn every_data_format_trains() {
    let dir = scratch_in("train", "formats");
    for (format, file) in [
        ("marlinformat", "d.marlinformat"),
        ("bulletformat", "d.bulletformat"),
        ("text", "d.txt"),
    ] {
        let out = dir.join(file);
        let run = sparring(&[
            "data",
            "convert",
            text(games()),
            "--to",
            format,
            "-o",
            text(&out),
        ]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let sub = scratch_in("train", &format!("formats-{format}"));
        let run = sparring(&[
            "train",
            text(&config(&sub, "")),
            "--data",
            text(&out),
            "--epochs",
            "2",
        ]);
        assert_eq!(run.code, 0, "{format}: {}", run.stderr);
        assert_eq!(history(&sub.join("out")).len(), 2, "{format}");
    }
    // A filter that needs the move played is refused on positions.
    let sub = scratch_in("train", "formats-tactical");
    let cfg = config(&sub, "[filter]\nfilter_tactical = true\n");
    let run = sparring(&["train", text(&cfg), "--data", text(&dir.join("d.txt"))]);
    assert_bad_input(
        &run,
        &["filter.filter_tactical needs the move played", "d.txt"],
    );
}

#[test]
fn a_bad_key_is_refused_with_file_line_and_key() {
    let dir = scratch_in("train", "bad-key");
    let cfg = config(&dir, "[filter]\nmax_score = 3\n");
    let run = sparring(&["train", text(&cfg)]);
    assert_bad_input(&run, &["train.toml:16:1:", "filter.max_score"]);
    let cfg = config(&dir, "").with_extra("lambda = 2\n");
    let run = sparring(&["train", text(&cfg)]);
    assert_bad_input(
        &run,
        &["train.toml:8:10:", "training.lambda", "from 0 to 1"],
    );
}

/// Weights beyond what i16 holds after quantisation are refused by name (exit 1: the run itself
/// worked, raw.bin holds its floats), and no quantised.bin is left.
#[test]
fn a_net_that_overflows_i16_is_refused_naming_the_weight() {
    let dir = scratch_in("train", "overflow");
    let mut net = FloatNet::init(32, 1);
    net.params[768 * 32 + 3] = 200.0;
    let init = dir.join("init.bin");
    std::fs::write(&init, net.to_raw()).unwrap();
    let extra = format!(
        "[model]\nhidden = 32\ninit = {:?}\n",
        init.display().to_string()
    );
    let cfg = config(&dir, "");
    let text_now = std::fs::read_to_string(&cfg).unwrap();
    let text_now = text_now
        .replace("[model]\nhidden = 32\n", &extra)
        .replace("lr = 0.01", "lr = 0.000001\nclip = 1000");
    std::fs::write(&cfg, text_now).unwrap();
    let run = sparring(&["train", text(&cfg), "--epochs", "1"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("cannot quantise l0b[3] = ") && run.stderr.contains("gives 51000"),
        "{}",
        run.stderr
    );
    assert!(dir.join("out/raw.bin").is_file() && !dir.join("out/quantised.bin").exists());
}

/// `model.init` also takes a quantised net (bullet's file, or the shipped one), dequantised: at
/// a learning rate too small to move a weight by half a quantisation step the run writes back
/// the very bytes it started from. A quantised net of another size is status 2 naming both.
#[test]
fn a_quantised_net_starts_a_run_and_comes_back_byte_for_byte() {
    let dir = scratch_in("train", "init-quantised");
    let mut start = FloatNet::init(32, 7);
    for (i, w) in start.params.iter_mut().enumerate() {
        *w += (i % 13) as f32 * 0.01; // biases and the output weights away from zero too
    }
    let start = start.quantise().unwrap();
    let init = dir.join("start.bin");
    start.save(&init).unwrap();
    let with_init = |init: &Path| {
        let cfg = config(&dir, "");
        let now = std::fs::read_to_string(&cfg).unwrap().replace(
            "[model]\nhidden = 32\n",
            &format!(
                "[model]\nhidden = 32\ninit = {:?}\n",
                init.display().to_string()
            ),
        );
        std::fs::write(&cfg, now.replace("lr = 0.01", "lr = 0.000000001")).unwrap();
        cfg
    };
    let cfg = with_init(&init);
    let run = sparring(&["train", text(&cfg), "--epochs", "1"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let trained = std::fs::read(dir.join("out/quantised.bin")).unwrap();
    assert_eq!(trained, start.to_bytes(), "the round trip changed the net");

    let other = dir.join("other.bin");
    Network::zeroed(16).save(&other).unwrap();
    let cfg = with_init(&other);
    let run = sparring(&[
        "train",
        text(&cfg),
        "--epochs",
        "1",
        "--out",
        text(&dir.join("o2")),
    ]);
    assert_bad_input(
        &run,
        &[
            "other.bin",
            "model.init",
            "a quantised net of 16 hidden units",
            "raw.bin of 32 hidden units",
        ],
    );
}

/// `--validate` scores existing nets on the configuration's held-out set: the trained raw.bin
/// gets exactly the validation loss the run printed last, a quantised net of another size is
/// read by its size, nothing is written, and a file that is no net is status 2 naming it.
#[test]
fn validate_scores_nets_on_the_held_out_set_without_training() {
    let dir = scratch_in("train", "validate");
    let cfg = config(&dir, "");
    let run = sparring(&["train", text(&cfg), "--epochs", "2"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let out = dir.join("out");
    let last = history(&out).pop().unwrap();
    let other = dir.join("h16.bin");
    FloatNet::init(16, 5)
        .quantise()
        .unwrap()
        .save(&other)
        .unwrap();
    let before = std::fs::read_dir(&out).unwrap().count();

    let raw = out.join("raw.bin");
    let run = sparring(&[
        "train",
        text(&cfg),
        "--validate",
        text(&raw),
        "--validate",
        text(&other),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", run.stdout);
    assert!(lines[0].starts_with("held out: ") && lines[0].contains("lambda 0.750"));
    let printed: f64 = last[3].parse().unwrap();
    let validated: f64 = lines[1].split(' ').nth(1).unwrap().parse().unwrap();
    assert!(
        (printed - validated).abs() < 5e-7,
        "{printed} against {}",
        lines[1]
    );
    assert!(
        lines[1].ends_with("raw.bin ((768 -> 32)x2 -> 1)"),
        "{}",
        lines[1]
    );
    assert!(
        lines[2].ends_with("h16.bin ((768 -> 16)x2 -> 1)"),
        "{}",
        lines[2]
    );
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), before, "it wrote");

    let junk = dir.join("junk.bin");
    std::fs::write(&junk, [1u8; 1000]).unwrap();
    let run = sparring(&["train", text(&cfg), "--validate", text(&junk)]);
    assert_bad_input(
        &run,
        &["junk.bin: --validate", "1000 bytes", "neither a raw.bin"],
    );
}
