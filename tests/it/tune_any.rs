//! Texel tuning through the `TunableEval` seam: texel-tuner's toy tapered evaluation
//! (examples/toy_tapered/eval.rs) reproduces texel-tuner's K and losses on a fixture.

#[path = "../../examples/toy_tapered/eval.rs"]
mod toy;

use sparring::texel::any::{self, AnyOptions, Method};
use sparring::texel::KSetting;
use std::path::PathBuf;

/// 2,176 positions of sparring self-play (every 20th line of a 43,513-position run at 2,000
/// nodes), FEN and `c9` result only.
const FIXTURE: &str = "tests/fixtures/tune/toy-selfplay.epd";

/// texel-tuner (GediminasMasaitis/texel-tuner e5f8de3, ToyEvalTapered, 2 threads, output at 12
/// digits) on the fixture: its K (base e; its search stops at |dMSE/dK| < 1e-6), its error at
/// that K and after its 5,000 Adam epochs.
const TEXEL_K_E: f64 = 2.47771651436;
const TEXEL_START_MSE: f64 = 0.110403481164;
const TEXEL_FINAL_MSE: f64 = 0.10829365769;

fn fixture() -> Vec<PathBuf> {
    vec![PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(FIXTURE)]
}

#[test]
fn the_toy_eval_reproduces_texel_tuners_k_and_losses() {
    let options = AnyOptions {
        epochs: 50,
        threads: 1,
        ..AnyOptions::default()
    };
    let r = any::run(&toy::ToyTapered, &fixture(), &options, &mut |_| {}).unwrap();
    assert_eq!(r.positions, 2176);
    let k_e = r.k * std::f64::consts::LN_10;
    assert!((k_e - TEXEL_K_E).abs() < 1e-3, "K {k_e} vs {TEXEL_K_E}");
    assert!(
        (r.start_mse - TEXEL_START_MSE).abs() < 1e-9,
        "start {} vs {TEXEL_START_MSE}",
        r.start_mse
    );
    assert!(
        r.final_mse <= TEXEL_FINAL_MSE + 1e-7,
        "final {} vs {TEXEL_FINAL_MSE}",
        r.final_mse
    );
    assert!((r.final_mse - TEXEL_FINAL_MSE).abs() < 1e-7);
    // Gauss-Newton gets there in a few iterations, not hundreds of epochs.
    assert!(r.history.len() <= 20, "{} iterations", r.history.len() - 1);
    // The king's coefficient is always zero: it keeps its start.
    assert_eq!(r.weights[5], [0.0, 0.0]);
}

#[test]
fn adam_stays_available_and_descends_toward_the_same_minimum() {
    let options = AnyOptions {
        epochs: 400,
        threads: 1,
        method: Method::Adam { learning_rate: 1.0 },
        k: KSetting::Fixed(TEXEL_K_E / std::f64::consts::LN_10),
        ..AnyOptions::default()
    };
    let r = any::run(&toy::ToyTapered, &fixture(), &options, &mut |_| {}).unwrap();
    assert!((r.start_mse - TEXEL_START_MSE).abs() < 1e-9);
    assert!(r.final_mse < r.start_mse - 1e-3, "{}", r.final_mse);
    assert!(
        r.final_mse > TEXEL_FINAL_MSE - 1e-7,
        "no lower than the minimum"
    );
}

#[test]
fn outputs_are_toml_name_value_and_setoption_lines() {
    let dir = std::env::temp_dir().join(format!("sparring-tune-any-{}", std::process::id()));
    let options = AnyOptions {
        epochs: 50,
        threads: 1,
        ..AnyOptions::default()
    };
    let r = any::run(&toy::ToyTapered, &fixture(), &options, &mut |_| {}).unwrap();
    any::write_outputs(&dir, &r).unwrap();
    let toml_text = std::fs::read_to_string(dir.join("weights.toml")).unwrap();
    let table: toml::Table = toml_text.parse().unwrap();
    let weights = table["weights"].as_table().unwrap();
    let knight = weights["material.knight"].as_array().unwrap();
    assert_eq!(knight[0].as_integer(), Some(r.weights[1][0].round() as i64));
    let lines = std::fs::read_to_string(dir.join("weights.txt")).unwrap();
    assert!(lines
        .lines()
        .any(|l| l == format!("material.knight.mg {}", r.weights[1][0].round())));
    let uci = std::fs::read_to_string(dir.join("setoption.txt")).unwrap();
    assert_eq!(uci.lines().count(), 14);
    assert!(uci
        .lines()
        .all(|l| l.starts_with("setoption name ") && l.contains(" value ")));
    assert!(dir.join("history.csv").is_file() && dir.join("loss.svg").is_file());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The example's binary, built beside the test executables (a full `cargo test` builds the
/// examples; with a test filter, `cargo build --profile test --example toy_tapered` first).
fn toy_tapered_example() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().unwrap().parent().unwrap();
    let example = profile_dir.join("examples").join("toy_tapered");
    assert!(
        example.exists(),
        "{} is missing: build it with `cargo build --profile test --example toy_tapered`",
        example.display()
    );
    example
}

/// A learning rate that is not a positive finite number is refused as bad input, by the
/// library (`any::run`) and by toy_tapered's command line (exit status 2, naming the flag),
/// before anything is written.
#[test]
fn toy_tapered_refuses_a_non_positive_learning_rate() {
    use sparring::ErrorClass;
    for rate in [-1.0, 0.0, f64::NAN, f64::INFINITY] {
        let options = AnyOptions {
            epochs: 2,
            threads: 1,
            method: Method::Adam {
                learning_rate: rate,
            },
            ..AnyOptions::default()
        };
        let error = any::run(&toy::ToyTapered, &fixture(), &options, &mut |_| {})
            .err()
            .unwrap_or_else(|| panic!("learning rate {rate} accepted"));
        assert!(error.is_bad_input(), "{rate}: {error}");
        assert!(error.to_string().contains("learning rate"), "{error}");
    }
    let out = std::env::temp_dir().join(format!("sparring-toy-lr-{}", std::process::id()));
    for rate in ["-1", "0", "nan", "inf", "-inf"] {
        let run = std::process::Command::new(toy_tapered_example())
            .args(["--data", fixture()[0].to_str().unwrap(), "--method", "adam"])
            .args(["--epochs", "2", "--learning-rate", rate])
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{rate}: {stderr}");
        assert!(
            stderr.contains(&format!("--learning-rate {rate}")),
            "{rate}: {stderr}"
        );
        assert!(!out.exists(), "{rate}: {} written", out.display());
    }
}
