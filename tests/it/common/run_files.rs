//! Comparing a merged shard directory with the unsharded run's (tests/it/shards.rs and
//! tests/it/cluster_recipes.rs): wall-clock fields are masked, everything else must be equal bytes
//! in the same order.

// Each test file that includes this module uses only some of its helpers.

use std::path::{Path, PathBuf};
use std::process::Output;

pub use super::config;
use config::{Engine, MatchToml};

pub fn assert_ok(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what}: status {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A shard's (or wave's) progress lines number the game as in the run and count it within
/// the part: `Started game 17 (3 of 8 in shard 2/4) (a vs b)`, 1 to n, n the part's games.
pub fn assert_progress_counts_within_the_shard(out: &Output, part: &str) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let started: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("Started game "))
        .collect();
    assert!(!started.is_empty(), "{stdout}");
    let mut first_id = None;
    for (k, line) in started.iter().enumerate() {
        let words: Vec<&str> = line.split(' ').collect();
        let id: u64 = words[2].parse().unwrap();
        let first = *first_id.get_or_insert(id);
        let expected = format!(
            "Started game {id} ({} of {} in {part}) (",
            k + 1,
            started.len()
        );
        assert!(line.starts_with(&expected), "{line} / {expected}");
        assert_eq!(id, first + k as u64, "{line}");
    }
}

pub fn text(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The PGN without its wall-clock parts: `Date` and `GameDuration` tags and `<n>.<n>s` move
/// times; the rest byte for byte, in file order.
pub fn pgn_without_clock(path: &Path) -> String {
    let mut out = String::new();
    for line in text(path).lines() {
        if line.starts_with("[Date ") || line.starts_with("[GameDuration ") {
            continue;
        }
        let words: Vec<String> = line
            .split(' ')
            .map(|w| {
                let core = w.trim_end_matches(['}', ',']);
                let is_time = core.len() > 1
                    && core.ends_with('s')
                    && core[..core.len() - 1].parse::<f64>().is_ok();
                if is_time {
                    format!("T{}", &w[core.len()..])
                } else {
                    w.to_string()
                }
            })
            .collect();
        out.push_str(&words.join(" "));
        out.push('\n');
    }
    out
}

/// A CSV file with the named columns blanked; the rest as written, in file order.
pub fn csv_without(path: &Path, columns: &[&str]) -> Vec<Vec<String>> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_path(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let rows: Vec<Vec<String>> = reader
        .records()
        .map(|r| r.unwrap().iter().map(str::to_string).collect())
        .collect();
    let blank: Vec<usize> = columns
        .iter()
        .map(|c| rows[0].iter().position(|h| h == c).expect("column exists"))
        .collect();
    rows.into_iter()
        .enumerate()
        .map(|(i, mut row)| {
            if i > 0 {
                for &b in &blank {
                    row[b].clear();
                }
            }
            row
        })
        .collect()
}

/// ranking.csv's columns that time the engines (differ between any two runs).
pub const RANKING_TIMING: &[&str] = &[
    "nodes_per_second",
    "average_move_ms",
    "average_time_left_ms",
];

/// Asserts the merged directory equals the unsharded run's, byte for byte outside the clock.
pub fn assert_same_results(single: &Path, merged: &Path, positions: bool) {
    assert_eq!(
        text(&single.join("run.toml")),
        text(&merged.join("run.toml")),
        "run.toml differs"
    );
    assert_same_games(single, merged, positions);
}

/// As `assert_same_results` without run.toml: for a merge of the first waves of a run, compared
/// with a run of just those rounds (its fingerprint has the other round count).
pub fn assert_same_games(single: &Path, merged: &Path, positions: bool) {
    assert_eq!(
        pgn_without_clock(&single.join("games.pgn")),
        pgn_without_clock(&merged.join("games.pgn")),
        "games.pgn"
    );
    assert_eq!(
        csv_without(&single.join("games.csv"), &["duration_ms"]),
        csv_without(&merged.join("games.csv"), &["duration_ms"]),
        "games.csv"
    );
    // The unmasked file byte for byte.
    assert_eq!(
        text(&single.join("summary.csv")),
        text(&merged.join("summary.csv")),
        "summary.csv differs"
    );
    if positions {
        let epd = text(&single.join("positions.epd"));
        assert!(epd.lines().count() > 10, "positions were recorded");
        assert_eq!(epd, text(&merged.join("positions.epd")), "positions.epd");
        // With `positions_format = "both"`, the bullet lines and their per-game index too.
        for file in ["positions.bullet", "positions.bullet.games.csv"] {
            if single.join(file).exists() {
                assert_eq!(text(&single.join(file)), text(&merged.join(file)), "{file}");
            } else {
                assert!(!merged.join(file).exists(), "{file}");
            }
        }
    } else {
        assert!(!merged.join("positions.epd").exists());
    }
    // figures.csv: the same rows (timings masked), in game-id order.
    let figures = |dir: &Path| {
        let mut rows = csv_without(
            &dir.join("figures.csv"),
            &["nodes_time_ns", "think_time_ns", "time_left_ns"],
        );
        rows[1..].sort_by_key(|r| (r[0].parse::<u64>().unwrap(), r[1].clone()));
        rows
    };
    assert_eq!(figures(single), figures(merged), "figures.csv");
    assert_eq!(
        csv_without(&single.join("ranking.csv"), RANKING_TIMING),
        csv_without(&merged.join("ranking.csv"), RANKING_TIMING),
        "ranking.csv"
    );
    // The joint ratings (three or more engines) byte for byte: the same games, the same seed.
    match std::fs::read_to_string(single.join("ratings.csv")) {
        Ok(ratings) => assert_eq!(ratings, text(&merged.join("ratings.csv")), "ratings.csv"),
        Err(_) => assert!(!merged.join("ratings.csv").exists(), "ratings.csv"),
    }
}

/// A fresh, empty directory `name` under Cargo's scratch directory for integration tests.
pub fn out_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes a match configuration into `dir/run-config.toml`, its output the single run's
/// directory, `dir/single`.
pub fn write_config(toml: &MatchToml, dir: &Path) -> PathBuf {
    toml.clone()
        .out(dir.join("single"))
        .write(dir.join("run-config.toml"))
}

/// A built-in engine with the shipped weights file `weights` and a 1 MB table.
pub fn builtin(name: &str, weights: &str) -> Engine {
    Engine::builtin(name)
        .weights(config::weights(weights))
        .hash_mb(1)
}

/// A strong engine (300 nodes, full evaluation) against a crippled one (1 node, material
/// only): at fixed nodes the SPRT [0, 50] accepts H1 after a known number of pairs.
pub fn lopsided() -> MatchToml {
    lopsided_from(Path::new(env!("CARGO_MANIFEST_DIR")))
}

/// `lopsided` with the book and weights named from `root` (relative paths for an empty one).
pub fn lopsided_from(root: &Path) -> MatchToml {
    let path = |relative: &str| root.join(relative);
    MatchToml::gauntlet()
        .rounds(40)
        .concurrency(1)
        .seed(5)
        .nodes(300)
        .openings(path("openings/balanced-8ply.epd"))
        .openings_order("random")
        .max_moves(60)
        .sprt(0.0, 50.0)
        .engine(
            Engine::builtin("strong")
                .weights(path("configs/weights/default.toml"))
                .hash_mb(1),
        )
        .engine(
            Engine::builtin("weak")
                .nodes(1)
                .weights(path("configs/weights/material-only.toml"))
                .hash_mb(1),
        )
}
