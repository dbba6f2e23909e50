//! Texel-tunes texel-tuner's "toy tapered" evaluation through sparring's `TunableEval`:
//!
//! ```sh
//! cargo run --release --example toy_tapered -- --data FILE [--data FILE ...] [--epochs N]
//!     [--method gauss-newton|adam] [--learning-rate X] [--threads N] [--target MSE] [--out DIR]
//! ```
//!
//! Prints `k <K>` in texel-tuner's form (the sigmoid 1/(1+e^(−K·q/400)); sparring's own form is
//! base 10, `k10` = K / ln 10), `start_mse`, `mse` after the last epoch, the seconds spent, and
//! writes weights.toml, weights.txt, setoption.txt, history.csv and loss.svg into `--out`.

#[path = "toy_tapered/eval.rs"]
mod eval;

use sparring::texel::any::{self, AnyOptions, Method};
use sparring::ErrorClass;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

fn usage(message: &str) -> ExitCode {
    eprintln!("toy_tapered: {message}");
    eprintln!(
        "usage: toy_tapered --data FILE [--data FILE ...] [--epochs N] [--method gauss-newton|adam] \
         [--learning-rate X] [--threads N] [--target MSE] [--out DIR]"
    );
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let mut files = Vec::new();
    let mut options = AnyOptions::default();
    let mut learning_rate = 1.0;
    let mut adam = false;
    let mut target: Option<f64> = None;
    let mut out = PathBuf::from("results/toy_tapered");
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let Some(value) = args.next() else {
            return usage(&format!("{flag} needs a value"));
        };
        let bad = || usage(&format!("{flag} {value}: not a valid value"));
        match flag.as_str() {
            "--data" => files.push(PathBuf::from(value)),
            "--out" => out = PathBuf::from(value),
            "--epochs" => match value.parse() {
                Ok(n) => options.epochs = n,
                Err(_) => return bad(),
            },
            "--threads" => match value.parse() {
                Ok(n) => options.threads = n,
                Err(_) => return bad(),
            },
            "--learning-rate" => match value.parse::<f64>() {
                Ok(x) if x.is_finite() && x > 0.0 => learning_rate = x,
                Ok(_) => {
                    return usage(&format!(
                        "{flag} {value}: the learning rate is a positive finite number"
                    ))
                }
                Err(_) => return bad(),
            },
            "--target" => match value.parse() {
                Ok(x) => target = Some(x),
                Err(_) => return bad(),
            },
            "--method" => match value.as_str() {
                "gauss-newton" => adam = false,
                "adam" => adam = true,
                _ => return bad(),
            },
            _ => return usage(&format!("unknown option {flag}")),
        }
    }
    if files.is_empty() {
        return usage("--data FILE is required");
    }
    if adam {
        options.method = Method::Adam { learning_rate };
    }
    let started = Instant::now();
    let mut reached: Option<f64> = None;
    let mut on_epoch = |s: &sparring::texel::EpochStats| {
        if reached.is_none() && target.is_some_and(|t| s.train_mse <= t) {
            reached = Some(started.elapsed().as_secs_f64());
        }
    };
    let result = match any::run(&eval::ToyTapered, &files, &options, &mut on_epoch) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("toy_tapered: {e}");
            return ExitCode::from(if e.is_bad_input() { 2 } else { 1 });
        }
    };
    let total = started.elapsed().as_secs_f64();
    let written = match any::write_outputs(&out, &result) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("toy_tapered: {e}");
            return ExitCode::from(1);
        }
    };
    println!("positions {}", result.positions);
    println!("k {:.9}", result.k * std::f64::consts::LN_10);
    println!("k10 {:.9}", result.k);
    println!("start_mse {:.12}", result.start_mse);
    println!("mse {:.12}", result.final_mse);
    println!("epochs {}", result.history.len() - 1);
    println!("load_seconds {:.3}", result.load_seconds);
    println!("seconds {total:.3}");
    if let Some(t) = target {
        match reached {
            Some(s) => println!("seconds_to_target {s:.3} (mse <= {t})"),
            None => println!("seconds_to_target - (mse {t} not reached)"),
        }
    }
    for (spec, w) in result.specs.iter().zip(&result.weights) {
        println!("weight {} {:.4} {:.4}", spec.name, w[0], w[1]);
    }
    for path in written {
        println!("wrote {}", path.display());
    }
    ExitCode::SUCCESS
}
