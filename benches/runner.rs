//! The match runner's throughput, in one run:
//!
//! 1. Built-in engines at fixed nodes: games per minute with concurrency 1 and 2 (the same games,
//!    so the ratio is the scaling).
//! 2. The runner's own overhead with a trivial external UCI engine (`sparring uci` answering
//!    `go nodes 1`), side by side with fastchess on the same engine, games and settings.
//!    fastchess is found through the environment variable `FASTCHESS` (the binary's path); the
//!    comparison is skipped with a printed reason when it is unset or missing.
//!
//! Every measurement alternates the contenders three times and reports medians (shared machines
//! are noisy). Outputs go to `<target>/bench-runner/`, emptied before each run.
//! Run: `FASTCHESS=/path/to/fastchess cargo bench --bench runner [-- builtin|uci]`.

use sparring::arena::{run_tournament, MatchConfig, OpeningSource, RunOptions};
use sparring::board::Position;
use sparring::openings::Opening;
use sparring::rng::Rng;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Instant, SystemTime};

/// Part 1: built-in engines at this many nodes per move.
const BUILTIN_NODES: u64 = 5000;
/// Part 1: rounds (two games each) and the max-moves adjudication bounding a game.
const BUILTIN_ROUNDS: u32 = 30;
const BUILTIN_MAX_MOVES: u32 = 60;
/// Part 2: rounds (two games each) and max moves with the trivial external engine.
const UCI_ROUNDS: u32 = 100;
const UCI_MAX_MOVES: u32 = 60;
const REPEATS: usize = 3;

/// Short, common opening lines; each becomes a start FEN (an EPD line for fastchess).
const OPENING_LINES: &[&str] = &[
    "e2e4 e7e5 g1f3 b8c6 f1b5",
    "e2e4 c7c5 g1f3 d7d6 d2d4",
    "e2e4 e7e6 d2d4 d7d5 b1c3",
    "e2e4 c7c6 d2d4 d7d5 e4e5",
    "d2d4 d7d5 c2c4 e7e6 b1c3",
    "d2d4 g8f6 c2c4 g7g6 b1c3",
    "d2d4 g8f6 c2c4 e7e6 g1f3",
    "c2c4 e7e5 b1c3 g8f6 g2g3",
    "g1f3 d7d5 g2g3 g8f6 f1g2",
    "e2e4 d7d5 e4d5 d8d5 b1c3",
];

/// The opening lines as start positions; round `r` uses opening `r mod n`, as fastchess's
/// `order=sequential` does.
struct FenBook {
    starts: Vec<Position>,
}

impl FenBook {
    fn new() -> FenBook {
        let starts = OPENING_LINES
            .iter()
            .map(|line| {
                let mut pos = Position::startpos();
                for text in line.split_whitespace() {
                    let mv = pos.parse_uci_move(text).expect("opening lines are legal");
                    pos.make_move(mv);
                }
                pos
            })
            .collect();
        FenBook { starts }
    }

    fn write_epd(&self, path: &Path) {
        let text: String = self
            .starts
            .iter()
            .map(|p| format!("{}\n", p.to_fen()))
            .collect();
        std::fs::write(path, text).expect("write the EPD book");
    }
}

impl OpeningSource for FenBook {
    fn count(&self) -> Option<usize> {
        Some(self.starts.len())
    }

    fn opening(&self, index: usize, _rng: &mut Rng) -> Opening {
        let id = index % self.starts.len();
        Opening {
            id,
            start: self.starts[id].clone(),
            moves: Vec::new(),
        }
    }
}

/// `<target>/bench-runner`: the bench binary lives in `<target>/<profile>/deps/`.
fn bench_root() -> PathBuf {
    let exe = std::env::current_exe().expect("the bench's own path");
    let target = exe
        .ancestors()
        .nth(3)
        .map(Path::to_path_buf)
        .unwrap_or_else(std::env::temp_dir);
    target.join("bench-runner")
}

/// An empty directory under the bench root.
fn fresh_dir(name: &str) -> PathBuf {
    let dir = bench_root().join(name);
    if dir.exists() {
        std::fs::remove_dir_all(&dir).expect("empty the bench output directory");
    }
    std::fs::create_dir_all(&dir).expect("create the bench output directory");
    dir
}

/// A TOML literal string (paths may hold backslashes).
fn literal(path: &Path) -> String {
    format!("'{}'", path.display())
}

fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// One run of a runner.
struct Run {
    /// From the start to the last write of the PGN (the last game's end). fastchess checks for
    /// the end of the tournament once a second, so its exit time is rounded up to whole seconds;
    /// the PGN's modification time is the same end point for both runners.
    seconds: f64,
    /// From the start until the runner returned (ours) or exited (fastchess).
    exit_seconds: f64,
    /// CPU seconds of the runner and the engines together (user + system), if known.
    cpu_seconds: Option<f64>,
    games: u64,
    plies: u64,
}

/// CPU seconds (user + system) of this process plus its waited-for descendants, from
/// `/proc/self/stat` (Linux; None elsewhere). Engines count once they are reaped: ours when a
/// player is dropped, fastchess's (and fastchess itself) when fastchess exits.
fn cpu_now() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let fields: Vec<&str> = stat[stat.rfind(')')? + 1..].split_whitespace().collect();
    // Fields 14-17 of stat(5) (utime, stime, cutime, cstime), in clock ticks of 1/100 s.
    let ticks: u64 = fields
        .get(11..15)?
        .iter()
        .map(|f| f.parse::<u64>().ok())
        .sum::<Option<u64>>()?;
    Some(ticks as f64 / 100.0)
}

/// Seconds from `start` to the PGN's last modification (the exit time if that is unreadable).
fn last_write(pgn: &Path, start: SystemTime, exit_seconds: f64) -> f64 {
    std::fs::metadata(pgn)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(start).ok())
        .map_or(exit_seconds, |d| d.as_secs_f64().min(exit_seconds))
}

/// Sum of the `plies` column of our games.csv.
fn csv_plies(dir: &Path) -> u64 {
    let text = std::fs::read_to_string(dir.join("games.csv")).expect("read games.csv");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split(',').collect();
    let col = header
        .iter()
        .position(|&h| h == "plies")
        .expect("games.csv has a plies column");
    // Fields before `plies` hold no commas here (engine names and FENs have none).
    lines
        .filter_map(|l| l.split(',').nth(col)?.parse::<u64>().ok())
        .sum()
}

fn run_ours(config_text: &str, dir: &Path, book: &Arc<FenBook>) -> Run {
    let config = MatchConfig::parse(config_text, "bench config").expect("bench config parses");
    let cpu = cpu_now();
    let wall = SystemTime::now();
    let start = Instant::now();
    let summary = run_tournament(&config, book.clone(), &RunOptions::default(), &mut |_| {})
        .expect("the tournament runs");
    let exit_seconds = start.elapsed().as_secs_f64();
    Run {
        seconds: last_write(&dir.join("games.pgn"), wall, exit_seconds),
        exit_seconds,
        cpu_seconds: cpu.zip(cpu_now()).map(|(a, b)| b - a),
        games: summary.games_played,
        plies: csv_plies(dir),
    }
}

fn builtin_config(dir: &Path, concurrency: usize) -> String {
    format!(
        r#"
[tournament]
rounds = {BUILTIN_ROUNDS}
concurrency = {concurrency}
seed = 1

[time_control]
nodes = {BUILTIN_NODES}

[adjudication]
max_moves = {BUILTIN_MAX_MOVES}

[output]
dir = {}

[[engine]]
name = "a"
builtin = {{ hash_mb = 16 }}

[[engine]]
name = "b"
builtin = {{ hash_mb = 16 }}
"#,
        literal(dir)
    )
}

fn uci_config(dir: &Path, engine: &Path) -> String {
    let engine = literal(engine);
    format!(
        r#"
[tournament]
rounds = {UCI_ROUNDS}
concurrency = 1
seed = 1

[time_control]
nodes = 1

[adjudication]
max_moves = {UCI_MAX_MOVES}

[output]
dir = {}

[[engine]]
name = "a"
uci = {{ command = {engine}, args = ["uci"] }}

[[engine]]
name = "b"
uci = {{ command = {engine}, args = ["uci"] }}
"#,
        literal(dir)
    )
}

/// The fastchess command line of part 2 (run with `dir` as working directory, where fastchess
/// also leaves its `config.json`).
fn fastchess_args(engine: &Path, book: &Path, pgn: &Path) -> Vec<String> {
    let cmd = format!("cmd={}", engine.display());
    [
        "-engine",
        &cmd,
        "args=uci",
        "name=a",
        "-engine",
        &cmd,
        "args=uci",
        "name=b",
        "-each",
        "tc=inf",
        "nodes=1",
        "-openings",
        &format!("file={}", book.display()),
        "format=epd",
        "order=sequential",
        "-rounds",
        &UCI_ROUNDS.to_string(),
        "-games",
        "2",
        "-concurrency",
        "1",
        "-maxmoves",
        &UCI_MAX_MOVES.to_string(),
        "-pgnout",
        &format!("file={}", pgn.display()),
        "-autosaveinterval",
        "0",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// One fastchess run; games and plies come from its PGN.
fn run_fastchess(fastchess: &Path, args: &[String], dir: &Path, pgn: &Path) -> Result<Run, String> {
    let cpu = cpu_now();
    let wall = SystemTime::now();
    let start = Instant::now();
    let status = Command::new(fastchess)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("cannot run {}: {e}", fastchess.display()))?;
    let exit_seconds = start.elapsed().as_secs_f64();
    if !status.success() {
        return Err(format!("{} exited with {status}", fastchess.display()));
    }
    let text = std::fs::read_to_string(pgn).map_err(|e| format!("{}: {e}", pgn.display()))?;
    let mut games = 0;
    let mut plies = 0;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("[PlyCount \"") {
            games += 1;
            plies += rest.trim_end_matches("\"]").parse::<u64>().unwrap_or(0);
        }
    }
    Ok(Run {
        seconds: last_write(pgn, wall, exit_seconds),
        exit_seconds,
        cpu_seconds: cpu.zip(cpu_now()).map(|(a, b)| b - a),
        games,
        plies,
    })
}

fn fastchess_version(fastchess: &Path) -> String {
    Command::new(fastchess)
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| "unknown version".to_string())
}

/// The medians (and the best run) of a contender's runs; games and plies are the same in every
/// repeat.
struct Summary {
    seconds: f64,
    best_seconds: f64,
    exit_seconds: f64,
    cpu_seconds: Option<f64>,
    games: u64,
    plies: u64,
}

fn summarize(runs: &[Run]) -> Summary {
    let seconds: Vec<f64> = runs.iter().map(|r| r.seconds).collect();
    let exit: Vec<f64> = runs.iter().map(|r| r.exit_seconds).collect();
    let cpu: Option<Vec<f64>> = runs.iter().map(|r| r.cpu_seconds).collect();
    Summary {
        seconds: median(&seconds),
        best_seconds: seconds.iter().copied().fold(f64::INFINITY, f64::min),
        exit_seconds: median(&exit),
        cpu_seconds: cpu.map(|c| median(&c)),
        games: runs[0].games,
        plies: runs[0].plies,
    }
}

fn header() {
    println!(
        "{:<24} {:>5} {:>6} {:>8} {:>8} {:>9} {:>8} {:>8} {:>10} {:>7}",
        "runner",
        "games",
        "plies",
        "median s",
        "best s",
        "games/min",
        "games/s",
        "us/ply",
        "cpu us/ply",
        "exit s"
    );
}

fn row(label: &str, s: &Summary) {
    let cpu = s.cpu_seconds.map_or("n/a".to_string(), |c| {
        format!("{:.0}", c * 1e6 / s.plies.max(1) as f64)
    });
    println!(
        "{label:<24} {:>5} {:>6} {:>8.2} {:>8.2} {:>9.1} {:>8.2} {:>8.1} {:>10} {:>7.2}",
        s.games,
        s.plies,
        s.seconds,
        s.best_seconds,
        s.games as f64 * 60.0 / s.seconds,
        s.games as f64 / s.seconds,
        s.seconds * 1e6 / s.plies.max(1) as f64,
        cpu,
        s.exit_seconds
    );
}

fn runs_list(runs: &[Run]) -> String {
    let v: Vec<String> = runs.iter().map(|r| format!("{:.2}", r.seconds)).collect();
    v.join(", ")
}

fn builtin_part(book: &Arc<FenBook>) {
    let mut runs: [Vec<Run>; 2] = [Vec::new(), Vec::new()];
    for _ in 0..REPEATS {
        for (i, concurrency) in [1usize, 2].into_iter().enumerate() {
            let dir = fresh_dir(&format!("builtin-c{concurrency}"));
            runs[i].push(run_ours(&builtin_config(&dir, concurrency), &dir, book));
        }
    }
    println!(
        "== built-in vs built-in: {BUILTIN_NODES} nodes/move, max_moves {BUILTIN_MAX_MOVES}, {} games from {} openings, median of {REPEATS}",
        2 * BUILTIN_ROUNDS,
        OPENING_LINES.len()
    );
    header();
    let mut rates = [0.0; 2];
    for (i, r) in runs.iter().enumerate() {
        let s = summarize(r);
        row(&format!("sparring concurrency {}", i + 1), &s);
        rates[i] = s.games as f64 / s.seconds;
    }
    for (i, r) in runs.iter().enumerate() {
        let s = summarize(r);
        let cores = s
            .cpu_seconds
            .map_or("n/a".to_string(), |c| format!("{:.2}", c / s.seconds));
        println!(
            "  concurrency {} runs (s): {}; CPU cores busy (median cpu / median s): {cores}",
            i + 1,
            runs_list(r)
        );
    }
    let plies: Vec<u64> = runs.iter().flatten().map(|r| r.plies).collect();
    if plies.iter().any(|&p| p != plies[0]) {
        println!(
            "note: the games differed between runs (plies {plies:?}); the scaling is approximate"
        );
    }
    println!(
        "scaling concurrency 2 / 1: {:.2}x (available parallelism: {})",
        rates[1] / rates[0],
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
}

fn uci_part(book: &Arc<FenBook>) {
    let engine = PathBuf::from(env!("CARGO_BIN_EXE_sparring"));
    let fastchess = match std::env::var_os("FASTCHESS") {
        None => Err("FASTCHESS is not set (the path of a fastchess binary)".to_string()),
        Some(p) => {
            let p = PathBuf::from(p);
            if p.is_file() {
                Ok(p)
            } else {
                Err(format!("FASTCHESS={} does not exist", p.display()))
            }
        }
    };
    println!();
    println!(
        "== trivial UCI engine ({} uci, go nodes 1): concurrency 1, max moves {UCI_MAX_MOVES}, {} games from {} openings, median of {REPEATS}",
        engine.display(),
        2 * UCI_ROUNDS,
        OPENING_LINES.len()
    );
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    let mut skipped = None;
    if let Ok(fc) = &fastchess {
        println!("fastchess: {} ({})", fc.display(), fastchess_version(fc));
    }
    for _ in 0..REPEATS {
        let dir = fresh_dir("uci-sparring");
        ours.push(run_ours(&uci_config(&dir, &engine), &dir, book));
        if let (Ok(fc), None) = (&fastchess, &skipped) {
            let dir = fresh_dir("uci-fastchess");
            let epd = dir.join("book.epd");
            book.write_epd(&epd);
            let pgn = dir.join("games.pgn");
            let args = fastchess_args(&engine, &epd, &pgn);
            if theirs.is_empty() {
                println!("fastchess command: {} {}", fc.display(), args.join(" "));
            }
            match run_fastchess(fc, &args, &dir, &pgn) {
                Ok(run) => theirs.push(run),
                Err(e) => skipped = Some(e),
            }
        }
    }
    println!("(seconds: start to the last game's PGN write; exit s: until the runner returned or exited;");
    println!(
        " cpu: runner and engines together, user + system; games/s and us/ply from the median)"
    );
    header();
    let our = summarize(&ours);
    row("sparring runner", &our);
    let reason = match (&fastchess, skipped) {
        (Err(reason), _) => reason.clone(),
        (Ok(_), Some(reason)) => reason,
        (Ok(_), None) => {
            let fc = summarize(&theirs);
            row("fastchess", &fc);
            println!("  sparring runs (s): {}", runs_list(&ours));
            println!("  fastchess runs (s): {}", runs_list(&theirs));
            if fc.games != our.games || fc.plies != our.plies {
                println!(
                    "note: the runners played different games ({} games/{} plies vs {}/{}); compare us/ply",
                    our.games, our.plies, fc.games, fc.plies
                );
            }
            let ours_rate = our.games as f64 / our.seconds;
            let theirs_rate = fc.games as f64 / fc.seconds;
            println!(
                "ratio sparring/fastchess: {:.2}x games/s ({}); per ply: sparring {:.0} us, fastchess {:.0} us",
                ours_rate / theirs_rate,
                if ours_rate >= theirs_rate {
                    "sparring is faster"
                } else {
                    "sparring is slower"
                },
                our.seconds * 1e6 / our.plies.max(1) as f64,
                fc.seconds * 1e6 / fc.plies.max(1) as f64
            );
            return;
        }
    };
    println!("  sparring runs (s): {}", runs_list(&ours));
    println!("fastchess: skipped ({reason})");
}

fn main() {
    // `cargo bench` passes `--bench`; `builtin` or `uci` runs only that part.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let wanted = |part: &str| args.is_empty() || args.iter().any(|a| a == part);
    let book = Arc::new(FenBook::new());
    // Other work on the machine shows in every number below; say how much there was.
    if let Ok(load) = std::fs::read_to_string("/proc/loadavg") {
        let load: Vec<&str> = load.split_whitespace().take(3).collect();
        println!(
            "load average at start: {} (available parallelism {})",
            load.join(" "),
            std::thread::available_parallelism().map_or(0, |n| n.get())
        );
    }
    if wanted("builtin") {
        builtin_part(&book);
    }
    if wanted("uci") {
        uci_part(&book);
    }
}
