//! xboard (CECP) engines in the match runner, through the real binary: the built-in engine
//! against the mock xboard engine (tests/mock/xboard_engine.py, on python-chess) in its
//! dialects (SAN, usermove, no ping, protocol 1, done=0, no setboard, Chess960), its failures
//! (an illegal move, a hang, a resignation, a false claim), the TOML `protocol` key, and, when
//! Debian's packages are installed, fairymax, phalanx and hoichess. Every game is replayed by
//! python-chess. Tests skip with a printed reason when python3 with python-chess is missing.

use crate::common::hostile::processes_with;
use crate::common::tools;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const SPARRING: &str = env!("CARGO_BIN_EXE_sparring");
const MOCK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mock/xboard_engine.py");
const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/openings");

/// Whether python3 can import python-chess (the mock and the PGN checks need it).
fn python_chess() -> bool {
    tools::python_chess("chess")
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("xboard-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs sparring as `cutechess-cli` (a symlink in `dir`) with `args`, in `dir`.
fn cutechess(dir: &Path, args: &str) -> Run {
    let link = dir.join("cutechess-cli");
    if !link.exists() {
        std::os::unix::fs::symlink(SPARRING, &link).unwrap();
    }
    let words = shell_words(args);
    let out = Command::new(&link)
        .args(&words)
        .current_dir(dir)
        .output()
        .unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Splits on spaces, keeping `'...'` together (enough for these command lines).
fn shell_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    for c in text.chars() {
        match c {
            '\'' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// The mock's `-engine` group with `flags`, logging what it receives to `log`.
fn mock_engine(name: &str, log: &Path, flags: &str, limit: &str) -> String {
    format!(
        "-engine name={name} cmd=python3 args='{MOCK} --log {} {flags}' proto=xboard {limit}",
        log.display()
    )
}

/// The `{reason}` of every `Finished game` line.
fn reasons(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter(|l| l.starts_with("Finished game"))
        .filter_map(|l| {
            let open = l.find('{')?;
            Some(l[open + 1..l.rfind('}')?].to_string())
        })
        .collect()
}

/// Replays every game of `pgn` with python-chess: legal moves, results that agree with the
/// board, and a Termination tag when the board ends nothing; returns the number of games.
fn replay(pgn: &Path) -> usize {
    const CHECK: &str = r#"
import sys, chess, chess.pgn
games = 0
with open(sys.argv[1]) as f:
    while True:
        game = chess.pgn.read_game(f)
        if game is None:
            break
        games += 1
        assert not game.errors, game.errors
        board = game.board()
        for move in game.mainline_moves():
            assert move in board.legal_moves, (games, move)
            board.push(move)
        result = game.headers["Result"]
        assert result in ("1-0", "0-1", "1/2-1/2"), result
        if board.is_checkmate():
            assert result == ("0-1" if board.turn else "1-0"), (games, result)
        elif board.is_stalemate() or board.is_insufficient_material():
            assert result == "1/2-1/2", (games, result)
        elif not board.can_claim_draw():
            assert game.headers.get("Termination", "normal") != "normal", (games, game.headers)
print(games)
"#;
    let out = Command::new("python3")
        .args(["-c", CHECK])
        .arg(pgn)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "python-chess refuses {}: {}",
        pgn.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

#[test]
fn the_builtin_engine_plays_the_mock_xboard_engine_to_legal_games() {
    if !python_chess() {
        return;
    }
    let dir = scratch("match");
    let log = dir.join("mock.log");
    let args = format!(
        "-games 4 -maxmoves 30 -pgnout games.pgn -concurrency 1 \
         -engine builtin name=sparring nodes=1500 {}",
        mock_engine("mock", &log, "--san", "tc=60+1")
    );
    let out = cutechess(&dir, &args);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(reasons(&out.stdout).len(), 4, "{}", out.stdout);
    assert_eq!(replay(&dir.join("games.pgn")), 4);
    let pgn = std::fs::read_to_string(dir.join("games.pgn")).unwrap();
    assert!(pgn.contains("[Black \"mock\"]") && pgn.contains("[White \"mock\"]"));
    // The mock's thinking line gives the PGN comments its score and depth.
    assert!(
        pgn.contains("/3 "),
        "depth 3 from the thinking output: {pgn}"
    );
    let sent = std::fs::read_to_string(&log).unwrap();
    for line in [
        "xboard",
        "protover 2",
        "accepted san",
        "rejected sigint",
        "new",
        "force",
    ] {
        assert!(
            sent.lines().any(|l| l == line),
            "`{line}` not sent:\n{sent}"
        );
    }
    assert!(sent.lines().any(|l| l == "level 0 1 1"), "{sent}");
    assert!(sent.lines().any(|l| l == "time 6000"), "{sent}");
    assert!(sent.lines().any(|l| l.starts_with("otim ")), "{sent}");
    // Every start (the runner probes each engine once before the games) ends with `quit`.
    let count = |what: &str| sent.lines().filter(|l| *l == what).count();
    assert_eq!(count("quit"), count("protover 2"), "{sent}");
}

#[test]
fn every_dialect_of_the_mock_plays_legal_games() {
    if !python_chess() {
        return;
    }
    let book = format!("{FIXTURES}/suite.epd");
    for (i, flags) in [
        "--usermove --no-ping",
        "--v1",
        "--done0 --nps",
        "--no-setboard",
    ]
    .iter()
    .enumerate()
    {
        let dir = scratch(&format!("dialect{i}"));
        let log = dir.join("mock.log");
        let limit = if flags.contains("--nps") {
            "nodes=400"
        } else {
            "depth=2"
        };
        let args = format!(
            "-games 2 -maxmoves 12 -pgnout games.pgn -openings file={book} format=epd \
             -engine builtin name=sparring nodes=800 {}",
            mock_engine("mock", &log, flags, limit)
        );
        let out = cutechess(&dir, &args);
        assert_eq!(out.code, 0, "{flags}: {}\n{}", out.stdout, out.stderr);
        assert_eq!(replay(&dir.join("games.pgn")), 2, "{flags}");
        let sent = std::fs::read_to_string(&log).unwrap();
        let expect: &[&str] = match i {
            0 => &["usermove "],
            1 => &["sd 2"],
            2 => &["nps 400", "st 1"],
            _ => &["edit", "#", "c", "."],
        };
        for prefix in expect {
            assert!(
                sent.lines().any(|l| l.starts_with(prefix)),
                "{flags}: `{prefix}` not sent:\n{sent}"
            );
        }
        if i == 3 {
            assert!(!sent.lines().any(|l| l.starts_with("setboard ")), "{sent}");
        }
    }
}

#[test]
fn a_node_limit_for_an_engine_without_nps_is_refused_by_name() {
    if !python_chess() {
        return;
    }
    let dir = scratch("nps");
    let log = dir.join("mock.log");
    let args = format!(
        "-games 2 -engine builtin nodes=500 {}",
        mock_engine("mock", &log, "", "nodes=500")
    );
    let out = cutechess(&dir, &args);
    assert_ne!(out.code, 0, "{}", out.stdout);
    let all = format!("{}{}", out.stdout, out.stderr);
    assert!(all.contains("feature nps=1"), "{all}");
}

#[test]
fn misbehaving_xboard_engines_lose_with_their_reasons() {
    if !python_chess() {
        return;
    }
    let cases = [
        (
            "--illegal-at 2",
            "makes an illegal move: a1a1",
            "illegal move",
        ),
        ("--resign-at 2", "resigns", "adjudication"),
        (
            "--claim-at 2",
            "makes an invalid result claim: ",
            "adjudication",
        ),
    ];
    for (flags, reason, termination) in cases {
        let dir = scratch(&flags.replace(' ', ""));
        let log = dir.join("mock.log");
        let args = format!(
            "-games 2 -maxmoves 20 -pgnout games.pgn \
             -engine builtin name=sparring nodes=500 {}",
            mock_engine("mock", &log, flags, "depth=1")
        );
        let out = cutechess(&dir, &args);
        assert_eq!(out.code, 0, "{flags}: {}\n{}", out.stdout, out.stderr);
        let found = reasons(&out.stdout);
        assert_eq!(found.len(), 2, "{flags}: {}", out.stdout);
        for r in &found {
            assert!(r.contains(reason), "{flags}: {r}");
        }
        let pgn = std::fs::read_to_string(dir.join("games.pgn")).unwrap();
        assert_eq!(
            pgn.matches(&format!("[Termination \"{termination}\"]"))
                .count(),
            2,
            "{flags}: {pgn}"
        );
        assert!(pgn.contains("[Result \"1-0\"]") && pgn.contains("[Result \"0-1\"]"));
        assert_eq!(replay(&dir.join("games.pgn")), 2);
    }
}

/// cutechess's `trust`: the engine's claims stand unchecked, so the mock's false claim of a
/// win for itself wins both its games, with a reason saying the claim was trusted.
#[test]
fn a_trusted_engines_false_claim_stands() {
    if !python_chess() {
        return;
    }
    let dir = scratch("trust");
    let log = dir.join("mock.log");
    let args = format!(
        "-games 2 -maxmoves 20 -pgnout games.pgn \
         -engine builtin name=sparring nodes=500 {} trust",
        mock_engine("mock", &log, "--claim-at 2", "depth=1")
    );
    let out = cutechess(&dir, &args);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let finished = regex::Regex::new(r"^Finished game \d+ \((\S+) vs (\S+)\): (\S+) \{").unwrap();
    let mut games = 0;
    for line in out.stdout.lines() {
        let Some(c) = finished.captures(line) else {
            continue;
        };
        games += 1;
        let mock_won = if &c[1] == "mock" { "1-0" } else { "0-1" };
        assert_eq!(&c[3], mock_won, "{line}");
        assert!(line.contains("(trusted without validation)"), "{line}");
    }
    assert_eq!(games, 2, "{}", out.stdout);
    let pgn = std::fs::read_to_string(dir.join("games.pgn")).unwrap();
    assert_eq!(
        pgn.matches("[Termination \"adjudication\"]").count(),
        2,
        "{pgn}"
    );
}

#[test]
fn a_hanging_xboard_engine_loses_on_time_and_leaves_no_process() {
    if !python_chess() {
        return;
    }
    let dir = scratch("hang");
    // The log path is the marker that finds the mock among the processes.
    let log = dir.join("hanging-mock-7f3a.log");
    let args = format!(
        "-games 2 -maxmoves 20 -pgnout games.pgn \
         -engine builtin name=sparring nodes=500 {}",
        mock_engine("mock", &log, "--hang-at 2", "st=0.3")
    );
    let out = cutechess(&dir, &args);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let found = reasons(&out.stdout);
    assert_eq!(found.len(), 2, "{}", out.stdout);
    for r in &found {
        assert!(r.contains("loses on time"), "{r}");
    }
    assert!(std::fs::read_to_string(&log).unwrap().contains("st 0.3"));
    let started = Instant::now();
    while !processes_with("hanging-mock-7f3a").is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "left behind: {:?}",
            processes_with("hanging-mock-7f3a")
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn chess960_games_go_through_variant_fischerandom() {
    if !python_chess() {
        return;
    }
    let dir = scratch("960");
    let log = dir.join("mock.log");
    let book = concat!(env!("CARGO_MANIFEST_DIR"), "/openings/frc-balanced.epd");
    let args = format!(
        "-variant fischerandom -games 4 -maxmoves 40 -pgnout games.pgn \
         -openings file={book} format=epd order=sequential \
         -engine builtin name=sparring nodes=800 {}",
        mock_engine("mock", &log, "--fischerandom", "depth=1")
    );
    let out = cutechess(&dir, &args);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(replay(&dir.join("games.pgn")), 4);
    let sent = std::fs::read_to_string(&log).unwrap();
    assert!(sent.lines().any(|l| l == "variant fischerandom"), "{sent}");
    assert!(sent.lines().any(|l| l.starts_with("setboard ")), "{sent}");

    // An engine that plays no fischerandom is refused before any game.
    let plain = format!(
        "-variant fischerandom -games 2 -openings file={book} format=epd \
         -engine builtin nodes=500 {}",
        mock_engine("mock", &log, "", "depth=1")
    );
    let out = cutechess(&dir, &plain);
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert!(
        format!("{}{}", out.stdout, out.stderr).contains("fischerandom"),
        "{}",
        out.stderr
    );
}

#[test]
fn the_toml_protocol_key_runs_xboard_engines_and_refuses_unknown_ones() {
    if !python_chess() {
        return;
    }
    let dir = scratch("toml");
    let log = dir.join("mock.log");
    let config = |protocol: &str| {
        format!(
            "[tournament]\nrounds = 1\n[time_control]\ndepth = 1\n[adjudication]\nmax_moves = 15\n\
             [output]\ndir = \"out\"\n\
             [[engine]]\nname = \"sparring\"\nbuiltin = {{ hash_mb = 1 }}\n\
             [[engine]]\nname = \"mock\"\nprotocol = \"{protocol}\"\nrestart = true\n\
             uci = {{ command = \"python3\", args = [\"{MOCK}\", \"--log\", \"{}\"] }}\n",
            log.display()
        )
    };
    std::fs::write(dir.join("match.toml"), config("xboard")).unwrap();
    let out = Command::new(SPARRING)
        .args(["match", "match.toml"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(replay(&dir.join("out/games.pgn")), 2);
    // `restart = true`: the check before the games and one process per game.
    let sent = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        sent.lines().filter(|l| *l == "protover 2").count(),
        3,
        "{sent}"
    );

    std::fs::write(dir.join("bad.toml"), config("winboard")).unwrap();
    let out = Command::new(SPARRING)
        .args(["match", "bad.toml"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("bad.toml") && stderr.contains("engine[1].protocol"),
        "{stderr}"
    );
    assert!(
        stderr.contains("bad.toml:14:"),
        "the line of the key: {stderr}"
    );
}

/// A Debian xboard engine, when installed.
fn installed(name: &str) -> Option<String> {
    tools::usr_games(name).map(|p| p.display().to_string())
}

#[test]
fn debian_xboard_engines_play_the_builtin_engine_when_installed() {
    if !python_chess() {
        return;
    }
    // phalanx knows no `sd`, and takes `st` as an average: it gets a clock instead.
    for (name, limit) in [
        ("fairymax", "depth=3"),
        ("phalanx", "tc=20+0.2"),
        ("hoichess", "depth=3"),
    ] {
        let Some(path) = installed(name) else {
            continue;
        };
        let dir = scratch(name);
        let book = format!("{FIXTURES}/suite.epd");
        let args = format!(
            "-games 2 -maxmoves 40 -pgnout games.pgn -openings file={book} format=epd \
             -engine builtin name=sparring nodes=2000 \
             -engine name={name} cmd={path} proto=xboard {limit}"
        );
        let out = cutechess(&dir, &args);
        assert_eq!(out.code, 0, "{name}: {}\n{}", out.stdout, out.stderr);
        let found = reasons(&out.stdout);
        assert_eq!(found.len(), 2, "{name}: {}", out.stdout);
        for r in &found {
            assert!(
                !["disconnects", "illegal", "stalls", "refuses", "on time"]
                    .iter()
                    .any(|bad| r.contains(bad)),
                "{name}: {r}"
            );
        }
        assert_eq!(replay(&dir.join("games.pgn")), 2, "{name}");
    }
}

#[test]
fn restart_on_starts_a_fresh_engine_for_every_game() {
    if !python_chess() {
        return;
    }
    let dir = scratch("restart");
    let log = dir.join("mock.log");
    let args = format!(
        "-games 4 -maxmoves 8 -pgnout games.pgn -engine builtin name=sparring nodes=300 {} restart=on",
        mock_engine("mock", &log, "", "depth=1")
    );
    let out = cutechess(&dir, &args);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(replay(&dir.join("games.pgn")), 4);
    let sent = std::fs::read_to_string(&log).unwrap();
    let count = |what: &str| sent.lines().filter(|l| *l == what).count();
    // The check before the games, then one process per game; each one quits.
    assert_eq!(count("protover 2"), 5, "{sent}");
    assert_eq!(count("new"), 4, "{sent}");
    assert_eq!(count("quit"), 5, "{sent}");
}

/// cutechess's `ponder` key: the engine is told `hard` (it thinks on the opponent's time by
/// itself) instead of `easy`, and stopped with `force` when a game ends on the opponent's move.
#[test]
fn a_pondering_xboard_engine_gets_hard_instead_of_easy() {
    if !python_chess() {
        return;
    }
    let dir = scratch("ponder");
    let log = dir.join("mock.log");
    let args = format!(
        "-games 2 -maxmoves 6 -pgnout games.pgn -engine builtin name=sparring nodes=500 {}",
        mock_engine("mock", &log, "", "depth=2 ponder")
    );
    let out = cutechess(&dir, &args);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(replay(&dir.join("games.pgn")), 2);
    let sent = std::fs::read_to_string(&log).unwrap();
    assert!(sent.lines().any(|l| l == "hard"), "{sent}");
    assert!(!sent.lines().any(|l| l == "easy"), "{sent}");
}

/// `feature reuse=0`: a fresh process for every game (as `restart=on`); `feature name=1`: the
/// opponent's name with `computer` each game; `feature egt="syzygy"`: the run's tables
/// (`-tb PATH`) with `egtpath syzygy PATH`.
#[test]
fn xboard_features_reuse_name_and_egt_are_honoured() {
    if !python_chess() {
        return;
    }
    let dir = scratch("features");
    let log = dir.join("mock.log");
    let tables = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/syzygy");
    let args = format!(
        "-games 3 -maxmoves 4 -pgnout games.pgn -tb {tables} -engine builtin name=opp nodes=500 {}",
        mock_engine("mock", &log, "--reuse0 --name-feature --egt", "depth=2")
    );
    let out = cutechess(&dir, &args);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(replay(&dir.join("games.pgn")), 3);
    let sent = std::fs::read_to_string(&log).unwrap();
    // Each process (the start-up probe's and one per game) plays at most one game.
    let starts: Vec<&str> = sent.split("protover 2\n").skip(1).collect();
    assert!(starts.len() >= 3, "{sent}");
    for start in &starts {
        assert!(start.lines().filter(|l| *l == "new").count() <= 1, "{sent}");
        assert!(
            start
                .lines()
                .any(|l| l == format!("egtpath syzygy {tables}")),
            "{sent}"
        );
    }
    let games = sent.lines().filter(|l| *l == "new").count();
    assert_eq!(games, 3, "{sent}");
    assert_eq!(
        sent.lines().filter(|l| *l == "computer").count(),
        3,
        "{sent}"
    );
    assert_eq!(
        sent.lines().filter(|l| *l == "name opp").count(),
        3,
        "{sent}"
    );
}

/// As cutechess-cli (`ChessEngine::setOption`): an option the engine did not declare, `memory`
/// without `feature memory=1` included, is counted as a warning and never sent.
#[test]
fn an_option_the_xboard_engine_does_not_declare_is_never_sent() {
    if !python_chess() {
        return;
    }
    let dir = scratch("undeclared");
    let log = dir.join("mock.log");
    let args = format!(
        "-games 2 -maxmoves 4 -pgnout games.pgn -engine builtin name=opp nodes=500 {}",
        mock_engine(
            "mock",
            &log,
            "",
            "depth=2 option.Aggression=7 option.Mystery=1 option.memory=64"
        )
    );
    let out = cutechess(&dir, &args);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout
            .contains("Compliance warnings (the engine log has each): opp 0, mock 2"),
        "{}",
        out.stdout
    );
    let sent = std::fs::read_to_string(&log).unwrap();
    assert!(sent.lines().any(|l| l == "option Aggression=7"), "{sent}");
    assert!(
        !sent.contains("Mystery") && !sent.lines().any(|l| l.starts_with("memory")),
        "{sent}"
    );
}
