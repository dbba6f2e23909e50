//! fastchess's engine compliance checks as fishtest's worker watches them
//! (docs/research/compliance-checks.md): mock engines that misbehave one way each, the exact
//! `Warning; ...` line on the fastchess dialect's output, fishtest's own patterns matched
//! against it, the per-engine count on the cutechess dialect and in TOML runs, the CRC32 line
//! against Python's zlib, CPU pinning read back from the engines, and the latency note.

use crate::common::binary::{scratch_in, warning_lines, Run};
use crate::common::mock::mock_engine;
use regex::Regex;
use std::path::{Path, PathBuf};
use std::process::Command;

const SPARRING: &str = env!("CARGO_BIN_EXE_sparring");

/// fishtest's `patterns_fastchess_error` and `patterns_fastchess_warning`, as written in
/// official-stockfish/fishtest `worker/games.py` (b8eecff), copied from
/// docs/research/compliance-checks.md §1.1 as test data.
const FISHTEST_ERROR_PATTERNS: &[&str] = &[
    r"Warning;.*doesn't have option",
    r"Warning; Invalid value for option",
    r"Warning; Failed to set.*option",
    r"Warning; No info line available to extract score from engine",
    r"Warning; Illegal move",
    r"Warning; Could not extract score from engine",
    r"Warning; Illegal PV move",
    r"Warning; Move does not match uci move format",
    r"Warning; PV continues after checkmate",
    r"Warning; PV continues after stalemate",
    r"Warning; PV continues after threefold",
    r"Warning; PV continues after fifty-move rule",
    r"Warning; Incomplete mating PV",
    r"Warning; Too long mating PV",
    r"Warning; Mating PV does not end with checkmate",
    r"Warning; Bestmove does not match beginning of last PV",
    r"Warning; Sign mismatch in mate scores",
];
const FISHTEST_WARNING_PATTERNS: &[&str] = &[
    r"Warning; Engine .* is not responsive",
    r"Warning; Engine .* didn't respond",
    r"Warning; No output from",
    r"Warning; No bestmove found from",
];

/// White to move mates with Qh5xf7 (the scholar's mate).
const SCHOLAR: &str = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq -";

fn scratch(name: &str) -> PathBuf {
    scratch_in("compliance", name)
}

/// Runs the binary under the runner name `program` (a symlink, as a worker installs it) in
/// `dir`.
fn run_as(program: &str, args: &[String], dir: &Path) -> Run {
    let link = dir.join(program);
    if !link.exists() {
        std::os::unix::fs::symlink(SPARRING, &link).unwrap();
    }
    let out = Command::new(&link)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

fn words(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_string).collect()
}

/// `-engine` groups for a mock named Bad started with `bad` and a clean mock named Good.
fn engines(mock: &str, bad: &[&str]) -> Vec<String> {
    let mut args = words(&format!("-engine name=Bad cmd={mock}"));
    if !bad.is_empty() {
        args.push(format!("args={}", shell_words(bad)));
    }
    args.extend(words(&format!("-engine name=Good cmd={mock}")));
    args
}

/// `args=` is split shell-style: quote each argument.
fn shell_words(args: &[&str]) -> String {
    args.iter()
        .map(|a| format!("'{}'", a.replace('\'', r"'\''")))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Two short games (Bad White first) in the fastchess dialect, with `extra` options.
fn fastchess_games(dir: &Path, bad: &[&str], extra: &str) -> Run {
    let mut args = engines(&mock_engine(), bad);
    // Later options win; `extra` may give other rounds.
    let rounds = if extra.contains("-rounds") {
        ""
    } else {
        "-rounds 1"
    };
    args.extend(words(&format!(
        "-each tc=inf nodes=10 {rounds} -games 2 -maxmoves 6 -pgnout file=games.pgn {extra}"
    )));
    let run = run_as("fastchess", &args, dir);
    assert_eq!(
        run.code, 0,
        "stdout:\n{}\nstderr:\n{}",
        run.stdout, run.stderr
    );
    run
}

/// Whether `line` stops a fishtest task (an error pattern) or is logged (a warning pattern).
fn fishtest_verdict(line: &str) -> Option<&'static str> {
    let hit = |patterns: &[&str]| {
        patterns
            .iter()
            .any(|p| Regex::new(p).unwrap().is_match(line))
    };
    if hit(FISHTEST_ERROR_PATTERNS) {
        Some("error")
    } else if hit(FISHTEST_WARNING_PATTERNS) {
        Some("warning")
    } else {
        None
    }
}

#[test]
fn each_misbehaviour_prints_fastchess_s_line_and_fishtest_stops_on_it() {
    let cases: &[(&str, &[&str], &str, &str)] = &[
        (
            "illegal-pv",
            &["--info", "depth 2 score cp 5 pv {best} a1a1"],
            "",
            "Warning; Illegal PV move - move a1a1 from Bad :: Info; info depth 2 score cp 5 pv ",
        ),
        (
            "bestmove-not-pv",
            &["--info", "depth 2 score cp 5 pv {other}"],
            "",
            "Warning; Bestmove does not match beginning of last PV - move ",
        ),
        (
            "incomplete-mate",
            &["--info", "depth 2 score mate 2 pv {best}"],
            "-check-mate-pvs",
            "Warning; Incomplete mating PV - from Bad :: Info; info depth 2 score mate 2 pv ",
        ),
        (
            "long-mate",
            &["--info", "depth 2 score mate 1 pv {line3}"],
            "-check-mate-pvs",
            "Warning; Too long mating PV - from Bad",
        ),
        (
            "mate-not-mate",
            &["--info", "depth 2 score mate 1 pv {best}"],
            "-check-mate-pvs",
            "Warning; Mating PV does not end with checkmate - from Bad",
        ),
        (
            "no-info",
            &["--bare", "--info", "string thinking"],
            "",
            "Warning; No info line available to extract score from engine Bad",
        ),
        (
            "no-score",
            &["--info", "depth 2 score cp"],
            "",
            "Warning; Could not extract score from engine Bad: Element 'score' has no type or value",
        ),
        (
            "move-format",
            &["--bestmove", "E2E4"],
            "",
            "Warning; Move does not match uci move format, lowercase and 4/5 chars. Move E2E4 played by Bad",
        ),
        (
            "option",
            &[],
            "-each option.Contempt=3",
            "Warning; Bad doesn't have option Contempt",
        ),
        (
            "invalid-value",
            &["--declare", "Hash type spin default 16 min 1 max 64"],
            "-each option.Hash=100",
            "Warning; Invalid value for option Hash; 100",
        ),
        (
            "failed-to-set",
            &["--declare", "Hash type spin default 16 min 1 max 64"],
            "-each option.Hash=lots",
            "Warning; Failed to set option Hash with value lots for engine Bad: stoi",
        ),
        (
            "not-responsive",
            &["--hang-after", "2"],
            "-startup-ms 2000 -ucinewgame-ms 2000 -ping-ms 400",
            "Warning; Engine Bad is not responsive",
        ),
    ];
    for (name, bad, extra, expected) in cases {
        let dir = scratch(name);
        let run = fastchess_games(&dir, bad, &format!("-testEnv {extra}"));
        let warnings = warning_lines(&run.stdout);
        let line = warnings
            .iter()
            .find(|l| l.starts_with(expected))
            .unwrap_or_else(|| panic!("{name}: no line starting {expected:?} in\n{}", run.stdout));
        let verdict = if *name == "not-responsive" {
            "warning"
        } else {
            "error"
        };
        assert_eq!(fishtest_verdict(line), Some(verdict), "{name}: {line}");
        // The clean engine is never named (option lines name each engine once).
        assert!(
            warnings
                .iter()
                .all(|l| !l.contains(" from Good") && !l.contains("by Good")),
            "{name}: {warnings:?}"
        );
        if *name == "move-format" {
            assert!(warnings.contains(&"Warning; Illegal move E2E4 played by Bad"));
        }
    }
}

#[test]
fn mate_checks_are_off_without_check_mate_pvs_and_parts_break_lines_without_test_env() {
    let dir = scratch("mate-off");
    let run = fastchess_games(&dir, &["--info", "depth 2 score mate 2 pv {best}"], "");
    assert!(warning_lines(&run.stdout).is_empty(), "{}", run.stdout);
    let dir = scratch("no-test-env");
    let run = fastchess_games(&dir, &["--info", "depth 2 score cp 1 pv {best} a1a1"], "");
    let lines: Vec<&str> = run.stdout.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("Warning; Illegal PV move - move a1a1 from Bad"))
        .expect("the warning");
    assert!(lines[at + 1].starts_with("Info; info depth 2 score cp 1 pv "));
    assert_eq!(lines[at + 2], "Position; startpos");
    assert!(lines[at + 3].starts_with("Moves;"), "{}", lines[at + 3]);
}

#[test]
fn a_pv_past_mate_and_two_mate_claims_are_caught() {
    let dir = scratch("past-mate");
    std::fs::write(dir.join("mate.epd"), format!("{SCHOLAR}\n")).unwrap();
    let run = fastchess_games(
        &dir,
        &[
            "--play-mate",
            "--info",
            "depth 1 score mate 1 pv {best} e8e7",
        ],
        "-testEnv -check-mate-pvs -openings file=mate.epd format=epd",
    );
    // fastchess 58072f2 (fishtest's): after the mate no move is legal.
    let past = format!(
        "Warning; Illegal PV move - move e8e7 from Bad :: Info; info depth 1 score mate 1 pv h5f7 e8e7 :: Position; fen {SCHOLAR} 0 1 :: Moves; "
    );
    assert!(
        run.stdout.lines().any(|l| l == past),
        "{past}\n{}",
        run.stdout
    );
    let dir = scratch("sign");
    let mock = mock_engine();
    let mut args = words(&format!("-engine name=A cmd={mock}"));
    args.push("args=--info 'depth 1 score mate 3'".to_string());
    args.extend(words(&format!("-engine name=B cmd={mock}")));
    args.push("args=--info 'depth 1 score mate 2'".to_string());
    args.extend(words(
        "-each tc=inf nodes=10 -rounds 1 -games 1 -maxmoves 2 -testEnv",
    ));
    let run = run_as("fastchess", &args, &dir);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let expected = "Warning; Sign mismatch in mate scores 3 and 2 from A (White) and B (Black) :: Infos; info depth 1 score mate 3 ; info depth 1 score mate 2 :: Position; startpos :: Moves; ";
    let line = run
        .stdout
        .lines()
        .find(|l| l.starts_with(expected))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    assert_eq!(fishtest_verdict(line), Some("error"));
}

#[test]
fn a_clean_engine_gives_no_warning() {
    let dir = scratch("clean");
    let run = fastchess_games(
        &dir,
        &["--info", "depth 3 score cp 12 pv {line3}"],
        "-testEnv -check-mate-pvs",
    );
    let flagged: Vec<&str> = run
        .stdout
        .lines()
        .chain(run.stderr.lines())
        .filter(|l| fishtest_verdict(l).is_some())
        .collect();
    assert!(flagged.is_empty(), "{flagged:?}");
    assert!(
        !run.stdout.contains("Compliance warnings"),
        "{}",
        run.stdout
    );
}

#[test]
fn cutechess_and_toml_runs_count_warnings_and_log_them() {
    let dir = scratch("cutechess");
    let mut args = engines(
        &mock_engine(),
        &["--info", "depth 2 score cp 5 pv {best} a1a1"],
    );
    args.extend(words(
        "-each proto=uci tc=inf nodes=10 -rounds 1 -games 2 -maxmoves 3 -pgnout games.pgn -log file=engines.log",
    ));
    let run = run_as("cutechess-cli", &args, &dir);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(warning_lines(&run.stdout).is_empty(), "{}", run.stdout);
    // Bad moves 3 times in each of the two games of 3 moves a side at most.
    let count = run
        .stdout
        .lines()
        .find(|l| l.starts_with("Compliance warnings (the engine log has each): Bad "))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    assert!(count.ends_with(", Good 0"), "{count}");
    let log = std::fs::read_to_string(dir.join("engines.log")).unwrap();
    let logged = log
        .lines()
        .filter(|l| l.contains(" Bad # Warning; Illegal PV move - move a1a1 from Bad :: Info; "))
        .count();
    let counted: u64 = count
        .trim_end_matches(", Good 0")
        .rsplit(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(counted > 0);
    assert_eq!(logged as u64, counted, "{log}");

    let dir = scratch("toml");
    let mock = mock_engine();
    let toml = format!(
        "[tournament]\nrounds = 1\n[time_control]\nnodes = 10\n[adjudication]\nmax_moves = 3\n\
         [output]\ndir = \"out\"\nengine_log = \"engines.log\"\n[compliance]\nmate_pvs = true\ncrc32 = true\n\
         [[engine]]\nname = \"Bad\"\nuci = {{ command = \"{mock}\", args = [\"--info\", \"depth 2 score mate 1 pv {{best}}\"] }}\n\
         [[engine]]\nname = \"Good\"\nuci = {{ command = \"{mock}\" }}\n"
    );
    std::fs::write(dir.join("match.toml"), toml).unwrap();
    let out = Command::new(SPARRING)
        .args(["match", "match.toml", "--progress", "lines"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(warning_lines(&stdout).is_empty(), "{stdout}");
    assert!(
        stdout.lines().any(|l| l
            .starts_with("Compliance warnings (the engine log has each): Bad ")
            && l.ends_with(", Good 0")),
        "{stdout}"
    );
    let log = std::fs::read_to_string(dir.join("engines.log"))
        .or_else(|_| std::fs::read_to_string(dir.join("out/engines.log")))
        .unwrap();
    assert!(log.contains("Bad # Warning; Mating PV does not end with checkmate - from Bad"));
    assert!(stdout.contains("File games.pgn has CRC32: 0x"), "{stdout}");
}

/// The CRC32 of `path` as Python's `hex(zlib.crc32(...))` gives it; None without python3.
fn python_crc32(path: &Path) -> Option<String> {
    let out = Command::new("python3")
        .args([
            "-c",
            "import sys, zlib; print(hex(zlib.crc32(open(sys.argv[1], 'rb').read())))",
        ])
        .arg(path)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8(out.stdout).unwrap().trim().to_string())
}

#[test]
fn the_crc32_line_follows_each_game_and_matches_zlib() {
    let dir = scratch("crc32");
    let run = fastchess_games(&dir, &[], "-crc32 pgn=true");
    let lines: Vec<&str> = run.stdout.lines().collect();
    let crc_at: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].starts_with("File games.pgn has CRC32: 0x"))
        .collect();
    assert_eq!(crc_at.len(), 2, "{}", run.stdout);
    for &i in &crc_at {
        // fastchess prints it after writing the game, before `Finished game`.
        assert!(lines[i + 1].starts_with("Finished game "), "{}", run.stdout);
    }
    let last = lines[*crc_at.last().unwrap()]
        .split_whitespace()
        .last()
        .unwrap();
    let hex = last.trim_start_matches("0x");
    assert!(hex
        .chars()
        .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
    assert!(
        !hex.starts_with('0') || hex == "0",
        "no zero padding: {last}"
    );
    match python_crc32(&dir.join("games.pgn")) {
        Some(zlib) => assert_eq!(last, zlib),
        None => {
            assert!(
                std::env::var("SPARRING_REQUIRE_TOOLS").is_err(),
                "python3 is required"
            );
            eprintln!("skipped the zlib comparison: python3 is not available");
        }
    }
    // Without -pgnout there is no PGN to check (fishtest's SPSA tasks): no line.
    let dir = scratch("crc32-no-pgn");
    let mut args = engines(&mock_engine(), &[]);
    args.extend(words(
        "-each tc=inf nodes=10 -rounds 1 -games 2 -maxmoves 3 -crc32 pgn=true",
    ));
    let run = run_as("fastchess", &args, &dir);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stdout.contains("has CRC32"), "{}", run.stdout);
}

/// The CPUs this test process may run on (Cpus_allowed_list of /proc/self/status).
fn allowed_cpus() -> Vec<usize> {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let list = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .unwrap_or("")
        .trim();
    sparring::arena::config::parse_cpu_list(list).unwrap_or_default()
}

/// Plays two games with `-concurrency slots -use-affinity list`, both engines reporting their
/// CPUs once a move: per game, the distinct CPU lists its engines gave (one per engine).
fn pinned_games(
    dir: &Path,
    slots: usize,
    list: &str,
) -> std::collections::BTreeMap<u64, Vec<String>> {
    let mock = mock_engine();
    let mut args = Vec::new();
    for name in ["A", "B"] {
        args.extend(words(&format!(
            "-engine name={name} cmd={mock} args=--report-affinity"
        )));
    }
    args.extend(words(&format!(
        "-each tc=inf nodes=10 -rounds 1 -games 2 -maxmoves 4 -concurrency {slots} \
         -use-affinity {list} -log file=engines.log"
    )));
    let run = run_as("fastchess", &args, dir);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let log = std::fs::read_to_string(dir.join("engines.log")).unwrap();
    let mut per_game: std::collections::BTreeMap<u64, Vec<String>> = Default::default();
    let mut seen = std::collections::BTreeSet::new();
    for line in log.lines() {
        let Some((head, cpu)) = line.split_once(" < info string affinity ") else {
            continue;
        };
        let fields: Vec<&str> = head.split_whitespace().collect();
        let game: u64 = fields[2].parse().unwrap();
        if seen.insert((game, fields[3].to_string(), cpu.to_string())) {
            per_game.entry(game).or_default().push(cpu.to_string());
        }
    }
    per_game
}

#[test]
fn use_affinity_pins_each_game_slot_s_engines_to_one_cpu() {
    let cpus = allowed_cpus();
    if cpus.len() < 2 {
        assert!(
            std::env::var("SPARRING_REQUIRE_TOOLS").is_err(),
            "needs 2 CPUs"
        );
        eprintln!("skipped: this process may use fewer than 2 CPUs ({cpus:?})");
        return;
    }
    // One slot on the machine's second CPU: every engine of every game runs there alone.
    let per_game = pinned_games(&scratch("affinity-one"), 1, &cpus[1].to_string());
    assert_eq!(per_game.len(), 2);
    for (game, reported) in &per_game {
        assert_eq!(reported.len(), 2, "game {game}: both engines report");
        assert!(
            reported.iter().all(|c| *c == cpus[1].to_string()),
            "game {game}: {reported:?}"
        );
    }
    // Two slots on two CPUs: each game's two engines share one of them (which slot plays
    // which game depends on timing).
    let list = format!("{},{}", cpus[0], cpus[1]);
    let per_game = pinned_games(&scratch("affinity-two"), 2, &list);
    assert_eq!(per_game.len(), 2);
    for (game, reported) in &per_game {
        assert_eq!(reported.len(), 2, "game {game}: both engines report");
        assert_eq!(reported[0], reported[1], "game {game}: {reported:?}");
        assert!(
            [cpus[0].to_string(), cpus[1].to_string()].contains(&reported[0]),
            "game {game} on {}",
            reported[0]
        );
    }

    // A CPU the machine does not let the runner use is refused, by number, with status 2.
    let missing = cpus.iter().max().unwrap() + 1;
    let dir = scratch("affinity-missing");
    let mut args = engines(&mock_engine(), &[]);
    args.extend(words(&format!(
        "-each tc=inf nodes=10 -rounds 1 -use-affinity {},{missing}",
        cpus[0]
    )));
    let run = run_as("fastchess", &args, &dir);
    assert_eq!(run.code, 2, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains(&format!("CPU {missing} ")),
        "{}",
        run.stderr
    );
    let run = run_as(
        "fastchess",
        &[args.clone(), words("-use-affinity 3-3")].concat(),
        &dir,
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("bad CPU list"), "{}", run.stderr);
}

#[test]
fn show_latency_writes_fastchess_s_note_to_the_log_only() {
    let dir = scratch("latency");
    let run = fastchess_games(
        &dir,
        &["--info", "depth 1 score cp 3 time 0 pv {best}"],
        "-show-latency -log file=engines.log",
    );
    assert!(!run.stdout.contains("latency"), "{}", run.stdout);
    let log = std::fs::read_to_string(dir.join("engines.log")).unwrap();
    let note = Regex::new(r" Bad # Engine Bad latency: (-?\d+)ms \(elapsed: (\d+), reported: 0\)$")
        .unwrap();
    let notes: Vec<_> = log.lines().filter_map(|l| note.captures(l)).collect();
    assert!(!notes.is_empty(), "{log}");
    for c in notes {
        assert_eq!(c[1], c[2], "latency = elapsed - reported");
    }
}
