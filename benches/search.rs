//! Search speed side by side with Debian's Ethereal (`apt-get install ethereal-chess`) in one run:
//! alternates `sparring`'s built-in bench and `ethereal-chess bench` three times each and prints
//! the medians and their ratio. Skips Ethereal with a printed reason when it is not installed.
//! Run: `cargo bench --bench search`.

use sparring::eval::EvalParams;
use sparring::search::bench_positions::{search_bench, DEFAULT_BENCH_DEPTH};
use std::process::Command;

const ETHEREAL: &str = "/usr/games/ethereal-chess";

fn ethereal_nps() -> Option<f64> {
    let output = Command::new(ETHEREAL).arg("bench").output().ok()?;
    let text = String::from_utf8_lossy(&output.stdout);
    text.lines()
        .find_map(|l| l.strip_prefix("NPS"))
        .and_then(|rest| rest.trim_start_matches([' ', ':']).trim().parse().ok())
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    values[values.len() / 2]
}

fn main() {
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    for _ in 0..3 {
        let bench = search_bench(DEFAULT_BENCH_DEPTH, EvalParams::default(), |_, _| {});
        ours.push(bench.nodes as f64 / bench.seconds);
        if let Some(nps) = ethereal_nps() {
            theirs.push(nps);
        }
    }
    let ours = median(&mut ours);
    println!(
        "sparring bench (depth {DEFAULT_BENCH_DEPTH}): {:.0} nps (median of 3)",
        ours
    );
    if theirs.is_empty() {
        println!("ethereal: skipped ({ETHEREAL} not installed: apt-get install ethereal-chess)");
        return;
    }
    let theirs = median(&mut theirs);
    println!("ethereal-chess bench:      {:.0} nps (median of 3)", theirs);
    println!("ratio sparring/ethereal:   {:.2}", ours / theirs);
}
