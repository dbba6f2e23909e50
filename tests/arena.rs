//! The match runner end to end: determinism across concurrency, misbehaving engines, resuming a
//! killed run, start-up failures, configuration errors and SPRT stopping.

use sparring::arena::{
    run_tournament, ArenaError, EngineKind, Event, MatchConfig, RunOptions, StartPosition,
    TournamentSummary,
};
use std::path::{Path, PathBuf};
use std::sync::Arc;

const ENGINE: &str = env!("CARGO_BIN_EXE_sparring");

/// The mock UCI engine (tests/mock/engine.rs), built by cargo as an example of this package.
fn mock_engine() -> String {
    let exe = std::env::current_exe().unwrap();
    // <target>/<profile>/deps/arena-<hash> -> <target>/<profile>/examples/mock_engine
    let profile_dir = exe.parent().unwrap().parent().unwrap();
    let mock = profile_dir.join("examples").join("mock_engine");
    assert!(
        mock.exists(),
        "{} is missing: a full `cargo test` builds it; with a test filter, build it first (`cargo build --example mock_engine`, same profile)",
        mock.display()
    );
    mock.display().to_string()
}

fn out_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn config(text: &str, dir: &Path) -> MatchConfig {
    let text = text.replace("OUT", &dir.display().to_string());
    let text = if text.contains("MOCK") {
        text.replace("MOCK", &mock_engine())
    } else {
        text
    };
    let text = text.replace("ENGINE", ENGINE);
    let text = text.replace(
        "WEIGHTS",
        concat!(env!("CARGO_MANIFEST_DIR"), "/configs/weights"),
    );
    MatchConfig::parse(&text, "test.toml").unwrap_or_else(|e| panic!("{e}"))
}

fn try_run(config: &MatchConfig, resume: bool) -> Result<TournamentSummary, ArenaError> {
    run_tournament(
        config,
        Arc::new(StartPosition),
        &RunOptions { resume },
        &mut |_| {},
    )
}

fn run(config: &MatchConfig, resume: bool) -> TournamentSummary {
    try_run(config, resume).unwrap_or_else(|e| panic!("{e}"))
}

/// games.csv rows without the duration column, sorted by game id.
fn games(dir: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(dir.join("games.csv")).unwrap();
    let mut rows: Vec<Vec<String>> = text
        .lines()
        .skip(1)
        .map(|l| {
            let mut f: Vec<String> = l.split(',').map(str::to_string).collect();
            f.remove(10);
            f
        })
        .collect();
    rows.sort_by_key(|r| r[0].parse::<u64>().unwrap());
    rows
}

fn pgn_games(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("games.pgn"))
        .unwrap()
        .matches("[Event ")
        .count()
}

/// Runs ../shared/tools/check_pgn.py when python-chess and ../shared are there.
fn check_pgn(dir: &Path) {
    let tool = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/tools/check_pgn.py");
    let has_chess = std::process::Command::new("python3")
        .args(["-c", "import chess"])
        .status()
        .is_ok_and(|s| s.success());
    if !Path::new(tool).exists() || !has_chess {
        println!("skipped check_pgn.py: ../shared or python-chess is absent");
        return;
    }
    let out = std::process::Command::new("python3")
        .arg(tool)
        .arg(dir.join("games.pgn"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "check_pgn.py: {text}");
}

const BUILTIN_PAIR: &str = r#"
[tournament]
kind = "gauntlet"
rounds = 3
concurrency = CONC
seed = 5
[time_control]
nodes = 3000
[adjudication]
resign = { move_count = 3, score_cp = 500 }
max_moves = 60
[output]
dir = "OUT"
positions = true
[[engine]]
name = "default"
builtin = { weights = "WEIGHTS/default.toml", hash_mb = 2 }
[[engine]]
name = "material"
builtin = { weights = "WEIGHTS/material-only.toml", hash_mb = 2 }
"#;

#[test]
fn same_games_whatever_the_concurrency() {
    let one = out_dir("conc1");
    let two = out_dir("conc2");
    run(&config(&BUILTIN_PAIR.replace("CONC", "1"), &one), false);
    run(&config(&BUILTIN_PAIR.replace("CONC", "2"), &two), false);
    assert_eq!(games(&one).len(), 6);
    assert_eq!(games(&one), games(&two));
    let pgn = |d: &Path| {
        let text = std::fs::read_to_string(d.join("games.pgn")).unwrap();
        let mut games: Vec<String> = text
            .split("[Event ")
            .filter(|g| !g.is_empty())
            .map(|g| {
                let kept: Vec<&str> = g
                    .lines()
                    .filter(|l| !l.starts_with("[GameDuration") && !l.starts_with("[Date"))
                    .collect();
                // Move times differ between runs: drop every `<digits>.<digits>s` token.
                kept.join(" ")
                    .split_whitespace()
                    .map(|w| {
                        let core = w.trim_end_matches(['}', ',']);
                        let is_time =
                            core.ends_with('s') && core[..core.len() - 1].parse::<f64>().is_ok();
                        if is_time {
                            &w[core.len()..]
                        } else {
                            w
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        games.sort();
        games
    };
    assert_eq!(pgn(&one), pgn(&two));
    check_pgn(&one);
    let summary = std::fs::read_to_string(one.join("summary.csv")).unwrap();
    assert!(summary.starts_with(
        "engine,opponent,games,wins,draws,losses,score,elo,elo_error,nelo,nelo_error,los,\
         draw_ratio,pair_draw_ratio,pairs,pairs_ll,pairs_ld,pairs_wl_or_dd,pairs_wd,pairs_ww,\
         pairs_wl,pairs_dd\n"
    ));
    // The columns agree with each other: games = 2 x pairs, the middle bucket is WL + DD, and
    // the game draw ratio is draws / games.
    let rows: Vec<Vec<&str>> = summary.lines().map(|l| l.split(',').collect()).collect();
    let col = |name: &str| rows[0].iter().position(|h| *h == name).unwrap();
    for row in &rows[1..] {
        let n = |name: &str| row[col(name)].parse::<f64>().unwrap();
        assert_eq!(n("games"), 2.0 * n("pairs"));
        assert_eq!(n("pairs_wl_or_dd"), n("pairs_wl") + n("pairs_dd"));
        assert_eq!(
            n("pairs"),
            n("pairs_ll") + n("pairs_ld") + n("pairs_wl_or_dd") + n("pairs_wd") + n("pairs_ww")
        );
        assert!((n("draw_ratio") - n("draws") / n("games")).abs() < 1e-4);
        assert!(n("nelo_error") > 0.0);
    }
    let positions = std::fs::read_to_string(one.join("positions.epd")).unwrap();
    assert!(positions.lines().count() > 10);
    assert!(positions
        .lines()
        .all(|l| l.contains(" c9 \"") && l.ends_with(';')));
}

#[test]
fn misbehaving_engines_lose_explained_and_the_run_goes_on() {
    let dir = out_dir("faults");
    let text = r#"
[tournament]
rounds = 2
concurrency = 2
timeout_ms = 1500
[time_control]
nodes = 2000
[adjudication]
max_moves = 30
[output]
dir = "OUT"
[[engine]]
name = "good"
builtin = { hash_mb = 2 }
[[engine]]
name = "crasher"
uci = { command = "MOCK", args = ["--crash-after", "3"] }
[[engine]]
name = "hanger"
uci = { command = "MOCK", args = ["--hang-after", "2"] }
[[engine]]
name = "cheater"
uci = { command = "MOCK", args = ["--illegal-after", "2"] }
[[engine]]
name = "babbler"
uci = { command = "MOCK", args = ["--garbage-after", "1"] }
"#;
    let summary = run(&config(text, &dir), false);
    let rows = games(&dir);
    assert_eq!(rows.len(), 16, "every scheduled game is recorded");
    assert_eq!(pgn_games(&dir), 16);
    for row in &rows {
        let faulty = if row[3] == "good" { &row[4] } else { &row[3] };
        let expected = match faulty.as_str() {
            "crasher" => "abandoned",
            "hanger" => "stalled connection",
            "cheater" | "babbler" => "illegal move",
            other => panic!("unexpected engine {other}"),
        };
        assert_eq!(row[8], expected, "{row:?}");
        let good_white = row[3] == "good";
        assert_eq!(row[7], if good_white { "1-0" } else { "0-1" }, "{row:?}");
    }
    for p in &summary.pairings {
        assert_eq!(
            (p.wdl.wins, p.wdl.draws, p.wdl.losses),
            (4, 0, 0),
            "{} vs {}",
            p.first,
            p.second
        );
    }
    let pgn = std::fs::read_to_string(dir.join("games.pgn")).unwrap();
    assert!(pgn.contains("disconnects"));
    assert!(pgn.contains("connection stalls"));
    assert!(pgn.contains("makes an illegal move: ~~garbage~~"));
    check_pgn(&dir);
}

#[test]
fn resume_continues_a_killed_run_without_replaying_games() {
    let full = out_dir("resume-full");
    let cut = out_dir("resume-cut");
    let text = BUILTIN_PAIR
        .replace("CONC", "2")
        .replace("rounds = 3", "rounds = 4");
    run(&config(&text, &full), false);
    run(&config(&text, &cut), false);
    // Simulate a kill: keep three finished games and half of a fourth CSV row; the PGN has all.
    let csv = std::fs::read_to_string(cut.join("games.csv")).unwrap();
    let mut lines: Vec<&str> = csv.lines().collect();
    lines.truncate(4);
    let partial = &csv.lines().nth(4).unwrap()[..10];
    std::fs::write(
        cut.join("games.csv"),
        format!("{}\n{partial}", lines.join("\n")),
    )
    .unwrap();
    let summary = run(&config(&text, &cut), true);
    assert_eq!(
        summary.games_played, 5,
        "only the 5 missing games are played"
    );
    assert_eq!(games(&cut), games(&full));
    assert_eq!(pgn_games(&cut), 8);
    check_pgn(&cut);
    // Without --resume, existing results are never overwritten.
    let err = try_run(&config(&text, &cut), false).err().expect("refused");
    assert!(err.to_string().contains("--resume"), "{err}");
}

#[test]
fn start_up_failure_names_the_command_before_any_game() {
    let dir = out_dir("startup");
    let text = r#"
[tournament]
timeout_ms = 1000
[time_control]
nodes = 1000
[output]
dir = "OUT"
[[engine]]
name = "good"
builtin = {}
[[engine]]
name = "missing"
uci = { command = "/nonexistent/engine-binary" }
"#;
    let err = try_run(&config(text, &dir), false)
        .err()
        .expect("start-up fails");
    let message = err.to_string();
    assert!(
        message.contains("missing") && message.contains("/nonexistent/engine-binary"),
        "{message}"
    );
    assert!(!dir.join("games.csv").exists(), "no game was started");
    // An engine that cannot start is a failed run (status 1), not bad input (status 2).
    assert!(!err.is_bad_input());
    let cfg = dir.join("missing.toml");
    std::fs::write(&cfg, text.replace("OUT", &dir.display().to_string())).unwrap();
    let out = std::process::Command::new(ENGINE)
        .args(["match", cfg.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn configuration_errors_name_file_key_and_expectation() {
    let cases = [
        ("[tournament]\nrounds = \"x\"\n", "tournament.rounds", "integer"),
        ("[tournament]\nkind = \"swiss\"\n", "tournament.kind", "round-robin"),
        ("[tournament]\nfrobnicate = 1\n", "tournament.frobnicate", "unknown key"),
        ("[tournament]\n[time_control]\nnodes = 1\ndepth = 2\n", "time_control", "exactly one"),
        ("[tournament]\n[time_control]\nclock = \"fast\"\n", "time_control.clock", "base+increment"),
        (
            "[tournament]\n[time_control]\nnodes = 1\n[output]\ndir = \"x\"\n[[engine]]\nname = \"a\\u0007b\"\nbuiltin = {}\n[[engine]]\nname = \"c d\"\nbuiltin = {}\n",
            "engine[0].name",
            "control characters",
        ),
        (
            "[tournament]\n[time_control]\nnodes = 1\n[output]\ndir = \"x\"\n[[engine]]\nname = \"a\"\n",
            "engine[0].builtin",
            "exactly one of",
        ),
        ("[tournament\n", "my.toml:1:", "syntax"),
    ];
    for (text, key, expected) in cases {
        let err = MatchConfig::parse(text, "my.toml")
            .expect_err(text)
            .to_string();
        assert!(err.starts_with("my.toml"), "{err}");
        assert!(err.contains(key), "{err} (wanted {key})");
        assert!(err.contains(expected), "{err} (wanted {expected})");
    }
}

#[test]
fn sprt_stops_the_run_when_it_decides() {
    let dir = out_dir("sprt");
    let text = BUILTIN_PAIR
        .replace("CONC", "2")
        .replace("rounds = 3", "rounds = 200")
        .replace(
            "[output]",
            "[sprt]\nelo0 = 0\nelo1 = 20\nalpha = 0.1\nbeta = 0.1\n[output]",
        );
    let summary = run(&config(&text, &dir), false);
    assert!(summary.sprt_decisions[0].is_some());
    assert!(
        summary.games_played < 400,
        "played {}",
        summary.games_played
    );
    let csv = std::fs::read_to_string(dir.join("summary.csv")).unwrap();
    assert!(csv
        .lines()
        .next()
        .unwrap()
        .ends_with("llr,lower_bound,upper_bound,decision"));
    assert!(csv.lines().nth(1).unwrap().ends_with(",H1"), "{csv}");
}

#[test]
fn clock_games_are_played_and_recorded() {
    let dir = out_dir("clock");
    let text = BUILTIN_PAIR
        .replace("CONC", "2")
        .replace("rounds = 3", "rounds = 1")
        .replace("nodes = 3000", "clock = \"40/2+0.05\"\nmargin_ms = 300")
        .replace("max_moves = 60", "max_moves = 15");
    run(&config(&text, &dir), false);
    assert_eq!(games(&dir).len(), 2);
    let pgn = std::fs::read_to_string(dir.join("games.pgn")).unwrap();
    assert!(pgn.contains("[TimeControl \"40/2+0.05\"]"));
    check_pgn(&dir);
}

#[test]
fn openings_per_game_with_random_moves_vary_self_play() {
    let text = r#"
[tournament]
kind = "gauntlet"
rounds = 4
concurrency = 2
seed = 9
[time_control]
nodes = 500
[openings]
file = "start"
per_game = true
random_plies = 4
[adjudication]
max_moves = 20
[output]
dir = "OUT"
positions = true
[[engine]]
name = "a"
builtin = { weights = "WEIGHTS/default.toml", hash_mb = 1 }
[[engine]]
name = "b"
builtin = { weights = "WEIGHTS/default.toml", hash_mb = 1 }
"#;
    let dir = out_dir("per_game");
    // The book is the start position alone: every difference between games comes from the
    // random moves, drawn per game.
    run(&config(text, &dir), false);
    let pgn = std::fs::read_to_string(dir.join("games.pgn")).unwrap();
    let played: Vec<&str> = pgn.split("[Event ").filter(|g| !g.is_empty()).collect();
    assert_eq!(played.len(), 8);
    let first_moves: std::collections::HashSet<String> = played
        .iter()
        .map(|g| {
            let movetext = g.lines().skip_while(|l| !l.is_empty()).collect::<String>();
            movetext
                .split_whitespace()
                .take(6)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    assert!(
        first_moves.len() >= 7,
        "games should start differently: {first_moves:?}"
    );
    assert!(
        pgn.contains("{book}"),
        "the random moves are marked as book moves"
    );
    check_pgn(&dir);
    // The same seed gives the same games.
    let again = out_dir("per_game_again");
    run(&config(text, &again), false);
    assert_eq!(games(&dir), games(&again));
}

/// A small fast builtin-vs-builtin configuration.
const QUICK_PAIR: &str = r#"
[tournament]
kind = "gauntlet"
rounds = 2
concurrency = 1
seed = 3
[time_control]
nodes = 300
[adjudication]
max_moves = 12
[output]
dir = "OUT"
[[engine]]
name = "a"
builtin = { hash_mb = 1 }
[[engine]]
name = "b"
builtin = { weights = "WEIGHTS/material-only.toml", hash_mb = 1 }
"#;

fn lock_file(dir: &Path) -> PathBuf {
    dir.join(sparring::arena::lock::LOCK_FILE)
}

#[test]
fn a_locked_output_directory_is_refused_naming_the_holder() {
    let dir = out_dir("locked");
    std::fs::create_dir_all(&dir).unwrap();
    let host = sparring::arena::lock::host_name();
    // This test process is alive: its lock is held.
    std::fs::write(
        lock_file(&dir),
        format!("pid={}\nhost={host}\n", std::process::id()),
    )
    .unwrap();
    let err = try_run(&config(QUICK_PAIR, &dir), false)
        .err()
        .expect("refused");
    assert!(
        err.to_string()
            .contains(&format!("pid {} on {host}", std::process::id())),
        "{err}"
    );
    assert!(err.is_bad_input());
    assert!(!dir.join("games.csv").exists(), "nothing was written");
    // The same through the binary: status 2 and the holder in the message.
    let cfg = dir.join("quick.toml");
    std::fs::write(&cfg, quick_toml(&dir)).unwrap();
    let out = std::process::Command::new(ENGINE)
        .args(["match", cfg.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("pid {}", std::process::id())),
        "{stderr}"
    );
    // A lock left by a dead process is stale: taken over, and released at the end.
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    std::fs::write(lock_file(&dir), format!("pid={dead}\nhost={host}\n")).unwrap();
    run(&config(QUICK_PAIR, &dir), false);
    assert!(!lock_file(&dir).exists(), "the lock is released on exit");
    // Released on an error too.
    let err = try_run(&config(QUICK_PAIR, &dir), false)
        .err()
        .expect("refused");
    assert!(err.to_string().contains("--resume"), "{err}");
    assert!(
        !lock_file(&dir).exists(),
        "the lock is released after an error"
    );
}

/// QUICK_PAIR as a file for the binary.
fn quick_toml(dir: &Path) -> String {
    QUICK_PAIR
        .replace("OUT", &dir.display().to_string())
        .replace(
            "WEIGHTS",
            concat!(env!("CARGO_MANIFEST_DIR"), "/configs/weights"),
        )
}

#[test]
fn resume_refuses_a_changed_configuration_naming_the_keys() {
    let dir = out_dir("fingerprint");
    run(&config(QUICK_PAIR, &dir), false);
    assert!(dir.join("run.toml").exists());
    let changed = QUICK_PAIR
        .replace("seed = 3", "seed = 4")
        .replace("max_moves = 12", "max_moves = 13")
        .replace("name = \"b\"", "name = \"c\"");
    let err = try_run(&config(&changed, &dir), true)
        .err()
        .expect("refused");
    let message = err.to_string();
    for key in [
        "tournament.seed",
        "adjudication.max_moves",
        "engine[1].name",
    ] {
        assert!(message.contains(key), "{message} (wanted {key})");
    }
    assert!(err.is_bad_input());
    // A changed weights file (same path, other content) is a change too.
    let weights_dir = out_dir("fingerprint-weights");
    std::fs::create_dir_all(&weights_dir).unwrap();
    let weights = weights_dir.join("w.toml");
    std::fs::copy(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/configs/weights/material-only.toml"
        ),
        &weights,
    )
    .unwrap();
    let own_weights =
        QUICK_PAIR.replace("WEIGHTS/material-only.toml", &weights.display().to_string());
    let dir2 = out_dir("fingerprint2");
    run(&config(&own_weights, &dir2), false);
    let mut text = std::fs::read_to_string(&weights).unwrap();
    text.push_str("\n# edited\n");
    std::fs::write(&weights, text).unwrap();
    let err = try_run(&config(&own_weights, &dir2), true)
        .err()
        .expect("refused");
    assert!(
        err.to_string().contains("engine[1].builtin.weights_hash"),
        "{err}"
    );
    // Settings that cannot change a game may change.
    let more_workers = QUICK_PAIR.replace("concurrency = 1", "concurrency = 2");
    let summary = run(&config(&more_workers, &dir), true);
    assert_eq!(summary.games_played, 0, "everything was already played");
}

#[test]
fn resume_of_a_directory_without_fingerprint_writes_one() {
    let dir = out_dir("no-fingerprint");
    run(&config(QUICK_PAIR, &dir), false);
    std::fs::remove_file(dir.join("run.toml")).unwrap();
    let mut warned = false;
    run_tournament(
        &config(QUICK_PAIR, &dir),
        Arc::new(StartPosition),
        &RunOptions { resume: true },
        &mut |e| warned |= matches!(e, Event::ResumedWithoutFingerprint { .. }),
    )
    .unwrap();
    assert!(warned);
    assert!(dir.join("run.toml").exists());
    let changed = QUICK_PAIR.replace("seed = 3", "seed = 4");
    assert!(try_run(&config(&changed, &dir), true).is_err());
}

#[test]
fn resume_repairs_a_cut_off_pgn_and_refuses_files_that_disagree() {
    let full = out_dir("pgn-full");
    let cut = out_dir("pgn-cut");
    run(&config(QUICK_PAIR, &full), false);
    run(&config(QUICK_PAIR, &cut), false);
    // Cut the PGN inside its last game's movetext (its CSV row is complete).
    let pgn = std::fs::read_to_string(cut.join("games.pgn")).unwrap();
    let last_game = pgn.rfind("[Event ").unwrap();
    let movetext = last_game + pgn[last_game..].find("\n\n").unwrap() + 2;
    std::fs::write(cut.join("games.pgn"), &pgn[..movetext + 20]).unwrap();
    let summary = run(&config(QUICK_PAIR, &cut), true);
    assert_eq!(summary.games_played, 1, "the cut-off game is played again");
    assert_eq!(games(&cut), games(&full));
    assert_eq!(pgn_games(&cut), 4);
    let repaired = std::fs::read_to_string(cut.join("games.pgn")).unwrap();
    assert!(
        repaired
            .split("[Event ")
            .skip(1)
            .all(|g| g.trim_end().ends_with("1-0")
                || g.trim_end().ends_with("0-1")
                || g.trim_end().ends_with("1/2-1/2")),
        "no game is appended inside a cut-off one:\n{repaired}"
    );
    check_pgn(&cut);
    // A PGN that lost games the CSV lists cannot be repaired: refused, nothing touched.
    std::fs::write(cut.join("games.pgn"), "").unwrap();
    let csv_before = std::fs::read_to_string(cut.join("games.csv")).unwrap();
    let err = try_run(&config(QUICK_PAIR, &cut), true)
        .err()
        .expect("refused");
    let message = err.to_string();
    assert!(
        message.contains("games.pgn") && message.contains("disagree"),
        "{message}"
    );
    assert_eq!(
        std::fs::read_to_string(cut.join("games.csv")).unwrap(),
        csv_before
    );
    // A game listed twice in games.csv is refused.
    std::fs::copy(full.join("games.pgn"), cut.join("games.pgn")).unwrap();
    let mut csv = csv_before.clone();
    csv.push_str(csv_before.lines().nth(1).unwrap());
    csv.push('\n');
    std::fs::write(cut.join("games.csv"), csv).unwrap();
    let err = try_run(&config(QUICK_PAIR, &cut), true)
        .err()
        .expect("refused");
    assert!(err.to_string().contains("listed twice"), "{err}");
}

#[test]
fn pgn_tags_and_csv_fields_are_escaped() {
    let dir = out_dir("escaping");
    let mut cfg = config(QUICK_PAIR, &dir);
    cfg.event = "Cup \"2026\"\nround \\ one".to_string();
    cfg.engines[0].name = "Engine \"Quoted\", v1.0".to_string();
    run(&cfg, false);
    let pgn = std::fs::read_to_string(dir.join("games.pgn")).unwrap();
    assert!(
        pgn.contains("[Event \"Cup \\\"2026\\\" round \\\\ one\"]"),
        "{pgn}"
    );
    assert!(
        pgn.contains("[White \"Engine \\\"Quoted\\\", v1.0\"]"),
        "{pgn}"
    );
    assert_eq!(pgn_games(&dir), 4);
    check_pgn(&dir);
    // games.csv quotes the name, and a resume reads it back.
    let csv = std::fs::read_to_string(dir.join("games.csv")).unwrap();
    assert!(csv.contains("\"Engine \"\"Quoted\"\", v1.0\""), "{csv}");
    let summary = run(&cfg, true);
    assert_eq!(summary.games_played, 0);
    assert_eq!(summary.pairings[0].first, "Engine \"Quoted\", v1.0");
}

#[test]
fn an_option_with_a_line_break_is_refused_before_the_engine_starts() {
    use sparring::arena::uci_player::{UciCommand, UciPlayer};
    let log = out_dir("option-log");
    let spec = UciCommand {
        command: mock_engine(),
        args: vec!["--log".to_string(), log.display().to_string()],
        options: vec![("Hash".to_string(), "16\nquit".to_string())],
        working_dir: None,
    };
    let err = UciPlayer::start(&spec, std::time::Duration::from_secs(10))
        .err()
        .expect("refused");
    assert!(err.to_string().contains("line break"), "{err}");
    assert!(!log.exists(), "the engine was not started");
    // The same in a configuration: the run stops before any game.
    let dir = out_dir("option-config");
    let mut cfg = config(QUICK_PAIR, &dir);
    cfg.engines[1].kind = EngineKind::Uci {
        command: mock_engine(),
        args: Vec::new(),
        options: vec![("Evil\rName".to_string(), "1".to_string())],
        working_dir: None,
    };
    let err = try_run(&cfg, false).err().expect("refused");
    assert!(err.to_string().contains("line break"), "{err}");
}

const MOCK_VS_BUILTIN: &str = r#"
[tournament]
rounds = 1
concurrency = 1
timeout_ms = 1500
[time_control]
nodes = 300
[adjudication]
max_moves = 10
[output]
dir = "OUT"
[[engine]]
name = "good"
builtin = { hash_mb = 1 }
[[engine]]
name = "mock"
uci = { command = "MOCK", args = [ARGS] }
"#;

fn mock_config(args: &[&str], dir: &Path) -> MatchConfig {
    let args: Vec<String> = args.iter().map(|a| format!("\"{a}\"")).collect();
    config(&MOCK_VS_BUILTIN.replace("ARGS", &args.join(", ")), dir)
}

/// Whether a process is gone (or a zombie nobody will run again).
fn process_gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

#[test]
fn no_engine_process_or_child_outlives_the_run() {
    if !Path::new("/proc/self/stat").exists() {
        println!("skipped: no /proc");
        return;
    }
    for (name, extra) in [
        ("children-hang", Some("--hang-after")),
        ("children-quit", None),
    ] {
        let dir = out_dir(name);
        std::fs::create_dir_all(&dir).unwrap();
        let pids = dir.join("child-pids");
        let pid_file = pids.display().to_string();
        let mut args = vec!["--spawn-child", pid_file.as_str()];
        if let Some(flag) = extra {
            args.extend([flag, "1"]);
        }
        let cfg = mock_config(&args, &dir);
        run(&cfg, false);
        let text = std::fs::read_to_string(&pids).unwrap();
        let children: Vec<u32> = text.lines().map(|l| l.parse().unwrap()).collect();
        assert!(children.len() >= 2, "{name}: {children:?}");
        for pid in children {
            // SIGKILL to the group is delivered asynchronously: give a loaded machine a while
            // (a guard against a survivor, not a timing assertion).
            let gone = (0..200).any(|_| {
                process_gone(pid) || {
                    std::thread::sleep(std::time::Duration::from_millis(50));
                    false
                }
            });
            assert!(gone, "{name}: child {pid} survived the run");
        }
        if extra.is_some() {
            let rows = games(&dir);
            assert!(
                rows.iter().all(|r| r[8] == "stalled connection"),
                "{rows:?}"
            );
        }
    }
}

#[test]
fn a_second_bestmove_is_not_taken_as_the_next_answer() {
    let dir = out_dir("double-bestmove");
    run(&mock_config(&["--double-bestmove"], &dir), false);
    let rows = games(&dir);
    assert_eq!(rows.len(), 2);
    for row in rows {
        assert!(
            row[8] == "normal" || row[8] == "adjudication",
            "the stale answer was used: {row:?}"
        );
    }
}

#[test]
fn an_engine_that_cannot_restart_stops_the_run() {
    let dir = out_dir("restart-limit");
    std::fs::create_dir_all(&dir).unwrap();
    let count = dir.join("starts").display().to_string();
    // Start 1 is the check before the games, start 2 plays game 1 and crashes; every restart
    // after that fails.
    let mut cfg = mock_config(&["--max-starts", "2", &count, "--crash-after", "2"], &dir);
    assert_eq!(cfg.max_restarts, 3, "the default");
    cfg.max_restarts = 4;
    let err = try_run(&cfg, false).err().expect("the run stops");
    let message = err.to_string();
    assert!(
        message.contains("`mock`") && message.contains("4 times in a row"),
        "{message}"
    );
    assert!(!err.is_bad_input());
    assert_eq!(games(&dir).len(), 1, "the games played are kept");
    let starts: u32 = std::fs::read_to_string(dir.join("starts"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_eq!(
        starts,
        2 + 4,
        "tournament.max_restarts attempts after the crash"
    );
}

#[test]
fn the_uciok_timeout_message_reports_the_real_timeout() {
    let dir = out_dir("no-uciok");
    let mut cfg = mock_config(&["--no-uciok"], &dir);
    cfg.timeout = std::time::Duration::from_millis(300);
    let err = try_run(&cfg, false).err().expect("start-up fails");
    let message = err.to_string();
    assert!(
        message.contains("uciok") && message.contains("within 300 ms"),
        "{message}"
    );
}

#[test]
fn an_output_dir_that_is_a_file_or_a_table_too_large_is_a_configuration_error() {
    let dir = out_dir("dir-is-file");
    let _ = std::fs::remove_file(&dir); // left by an earlier run of this test
    let cfg = config(QUICK_PAIR, &dir);
    // The configuration reader refuses a file at load time; the runner checks again at start,
    // for a file that appeared in between.
    std::fs::write(&dir, "not a directory").unwrap();
    let text = QUICK_PAIR
        .replace("OUT", &dir.display().to_string())
        .replace("ENGINE", ENGINE);
    let load = MatchConfig::parse(&text, "test.toml").expect_err("a file is no output dir");
    assert!(
        load.to_string().contains("is a file, not a directory"),
        "{load}"
    );
    let err = try_run(&cfg, false).err().expect("refused");
    let message = err.to_string();
    assert!(
        message.starts_with("test.toml: output.dir:") && message.contains("not a directory"),
        "{message}"
    );
    assert!(err.is_bad_input());
    let dir = out_dir("huge-hash");
    let mut cfg = config(QUICK_PAIR, &dir);
    cfg.engines[0].kind = EngineKind::Builtin {
        weights: None,
        hash_mb: usize::MAX >> 21,
    };
    let err = try_run(&cfg, false).err().expect("refused");
    assert!(err.to_string().contains("hash_mb"), "{err}");
    assert!(err.is_bad_input());
    assert!(!dir.exists(), "refused before anything was written");
}

#[test]
fn the_binary_prints_fastchess_lines_when_stdout_is_not_a_terminal() {
    let dir = out_dir("console-lines");
    std::fs::create_dir_all(&dir).unwrap();
    let cfg = dir.join("quick.toml");
    std::fs::write(&cfg, quick_toml(&dir.join("out"))).unwrap();
    // stdout is a pipe here: `auto` gives lines, whatever stderr is.
    for (style, out_name) in [("auto", "out"), ("lines", "out-lines")] {
        let out = std::process::Command::new(ENGINE)
            .args(["match", cfg.to_str().unwrap(), "--progress", style, "--out"])
            .arg(dir.join(out_name))
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(stdout.contains("Started game 1 of 4 (a vs b)"), "{stdout}");
        assert!(
            stdout
                .lines()
                .any(|l| l.starts_with("Finished game 1 (a vs b): ") && l.ends_with('}')),
            "{stdout}"
        );
        assert!(
            stdout.contains("Results of a vs b (300 nodes, 1t):"),
            "{stdout}"
        );
        assert!(stdout.contains("Finished match"), "{stdout}");
    }
    // A forced bar draws nothing into a pipe (indicatif hides itself) and prints no per-game
    // lines, but the results still come out.
    let out = std::process::Command::new(ENGINE)
        .args(["match", cfg.to_str().unwrap(), "--progress", "bar", "--out"])
        .arg(dir.join("out-bar"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(!stdout.contains("Started game"), "{stdout}");
    assert!(stdout.contains("Results of a vs b"), "{stdout}");
}

#[test]
fn ctrl_c_ends_the_engines_and_their_children() {
    use std::io::BufRead;
    if !Path::new("/proc/self/stat").exists() {
        println!("skipped: no /proc");
        return;
    }
    let dir = out_dir("interrupt");
    std::fs::create_dir_all(&dir).unwrap();
    let pids = dir.join("child-pids");
    let mock_args = format!(
        "\"--spawn-child\", \"{}\", \"--hang-after\", \"0\"",
        pids.display()
    );
    let text = MOCK_VS_BUILTIN
        .replace("ARGS", &mock_args)
        .replace("MOCK", &mock_engine())
        .replace("OUT", &dir.join("out").display().to_string())
        .replace("timeout_ms = 1500", "timeout_ms = 600000");
    let cfg = dir.join("hang.toml");
    std::fs::write(&cfg, text).unwrap();
    let mut runner = std::process::Command::new(ENGINE)
        .args(["match", cfg.to_str().unwrap(), "--progress", "lines"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait until a game runs: the mock (and its child) are then up and the mock hangs.
    let mut lines = std::io::BufReader::new(runner.stdout.take().unwrap()).lines();
    let started = lines.find(|l| l.as_ref().is_ok_and(|l| l.starts_with("Started game")));
    assert!(started.is_some(), "no game started");
    // The game's engine has started its child once the pid file has two lines (the first is
    // from the start-up check's engine, already ended).
    let child_count = || std::fs::read_to_string(&pids).map_or(0, |t| t.lines().count());
    let ready = (0..1000).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(10));
        child_count() >= 2
    });
    assert!(ready, "the game's engine did not start its child");
    let status = std::process::Command::new("kill")
        .args(["-INT", &runner.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let exit = runner.wait().unwrap();
    assert!(!exit.success());
    let children: Vec<u32> = std::fs::read_to_string(&pids)
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    assert!(!children.is_empty());
    for pid in children {
        // SIGKILL is delivered at once, but the kernel may take a moment to tear a process
        // down: poll its state for up to ten seconds (the assertion does not depend on timing
        // otherwise).
        let gone = (0..1000).any(|_| {
            std::thread::sleep(std::time::Duration::from_millis(10));
            process_gone(pid)
        });
        assert!(gone, "child {pid} survived Ctrl-C");
    }
}
