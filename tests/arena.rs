//! The match runner end to end: determinism across concurrency, misbehaving engines, resuming a
//! killed run, start-up failures, configuration errors and SPRT stopping.

use sparring::arena::{run_tournament, MatchConfig, RunOptions, StartPosition};
use std::path::{Path, PathBuf};
use std::sync::Arc;

const ENGINE: &str = env!("CARGO_BIN_EXE_sparring");

fn out_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn config(text: &str, dir: &Path) -> MatchConfig {
    let text = text.replace("OUT", &dir.display().to_string());
    let text = text.replace("ENGINE", ENGINE);
    let text = text.replace(
        "WEIGHTS",
        concat!(env!("CARGO_MANIFEST_DIR"), "/configs/weights"),
    );
    MatchConfig::parse(&text, "test.toml").unwrap_or_else(|e| panic!("{e}"))
}

fn run(config: &MatchConfig, resume: bool) -> sparring::arena::TournamentSummary {
    run_tournament(
        config,
        Arc::new(StartPosition),
        &RunOptions {
            resume,
            quiet: true,
        },
    )
    .unwrap_or_else(|e| panic!("{e}"))
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
        "engine,opponent,games,wins,draws,losses,score,elo,elo_error,los,draw_ratio,ptnml_ll"
    ));
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
uci = { command = "ENGINE", args = ["uci", "--fault", "crash:3"] }
[[engine]]
name = "hanger"
uci = { command = "ENGINE", args = ["uci", "--fault", "hang:2"] }
[[engine]]
name = "cheater"
uci = { command = "ENGINE", args = ["uci", "--fault", "illegal:2"] }
[[engine]]
name = "babbler"
uci = { command = "ENGINE", args = ["uci", "--fault", "garbage:1"] }
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
    let err = run_tournament(
        &config(&text, &cut),
        Arc::new(StartPosition),
        &RunOptions {
            resume: false,
            quiet: true,
        },
    )
    .err()
    .expect("refused");
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
    let err = run_tournament(
        &config(text, &dir),
        Arc::new(StartPosition),
        &RunOptions {
            resume: false,
            quiet: true,
        },
    )
    .err()
    .expect("start-up fails");
    let message = err.to_string();
    assert!(
        message.contains("missing") && message.contains("/nonexistent/engine-binary"),
        "{message}"
    );
    assert!(!dir.join("games.csv").exists(), "no game was started");
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
            "[tournament]\n[time_control]\nnodes = 1\n[output]\ndir = \"x\"\n[[engine]]\nname = \"a b\"\nbuiltin = {}\n",
            "engine[0].name",
            "without spaces",
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
