//! The tuner front ends' command lines, replayed: chess-tuning-tools (`tune/local.py`,
//! `run_match`) runs `cutechess-cli -concurrency N -engine conf=engine1 restart=auto tc=inf
//! nodes=N ... -openings file=F format=epd order=random -rounds R -games 2 -repeat -recover
//! -debug -pgnout out.pgn` with an `engines.json` it writes (`tune/io.py`) in the working
//! directory, one match per iteration in the same directory. Its parsers' regular expressions
//! (rewritten here; the tool is read, not copied) read every game of every iteration.

use regex::Regex;
use std::path::{Path, PathBuf};
use std::process::Command;

const SPARRING: &str = env!("CARGO_BIN_EXE_sparring");
const BOOK: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/openings/suite.epd"
);

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("tuners-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// chess-tuning-tools' `engines.json` (`prepare_engines_json` and `write_engines_json`:
/// `json.dump(..., sort_keys=True, indent=4)`, the tuned point as `setoption` init strings).
fn engines_json(engine1: &str, engine2: &str) -> String {
    format!(
        r#"[
    {{
        "command": "{engine1}",
        "initStrings": [
            "uci",
            "setoption name Hash value 8"
        ],
        "name": "engine1",
        "protocol": "uci"
    }},
    {{
        "command": "{engine2}",
        "initStrings": [
            "uci"
        ],
        "name": "engine2",
        "protocol": "uci"
    }}
]"#
    )
}

/// `run_match`'s argument list for two engines at `nodes` nodes per move.
fn run_match_args(nodes: u32, rounds: u32) -> Vec<String> {
    let mut args: Vec<String> = vec!["-concurrency".into(), "1".into()];
    for id in [1, 2] {
        args.extend([
            "-engine".into(),
            format!("conf=engine{id}"),
            "restart=auto".into(),
            "tc=inf".into(),
            format!("nodes={nodes}"),
        ]);
    }
    args.extend(
        [
            "-openings",
            &format!("file={BOOK}"),
            "format=epd",
            "order=random",
            "-rounds",
            &rounds.to_string(),
            "-games",
            "2",
            "-repeat",
            "-recover",
            "-debug",
            "-pgnout",
            "out.pgn",
        ]
        .map(str::to_string),
    );
    args
}

/// `is_debug_log`: `re.match(r"[0-9]+ [<>]", line)`.
fn is_debug_log(line: &str) -> bool {
    Regex::new(r"^[0-9]+ [<>]").unwrap().is_match(line)
}

/// `parse_experiment_result`'s reading: the W-L-D of every `Score of` line, differenced into
/// one game each, ordered by `Finished game N`, summed by pairs into the pentanomial counts
/// (WW, WD, WL/DD, LD, LL).
fn pentanomial(output: &str) -> [u32; 5] {
    let score = Regex::new(r"Score of.*:\s*([0-9]+\s-\s[0-9]+\s-\s[0-9]+)").unwrap();
    let number = Regex::new(r"[0-9]+").unwrap();
    let finished = Regex::new(r"Finished game ([0-9]+)").unwrap();
    let rows: Vec<[i64; 3]> = score
        .captures_iter(output)
        .map(|c| {
            let v: Vec<i64> = number
                .find_iter(&c[1])
                .map(|m| m.as_str().parse().unwrap())
                .collect();
            [v[0], v[1], v[2]]
        })
        .collect();
    let mut previous = [0, 0, 0];
    let diffs: Vec<[i64; 3]> = rows
        .iter()
        .map(|r| {
            let d = [r[0] - previous[0], r[1] - previous[1], r[2] - previous[2]];
            previous = *r;
            d
        })
        .collect();
    let order: Vec<usize> = finished
        .captures_iter(output)
        .map(|c| c[1].parse::<usize>().unwrap() - 1)
        .collect();
    // numpy's argsort of the finished order picks the rows game by game.
    let mut by_game: Vec<usize> = (0..order.len()).collect();
    by_game.sort_by_key(|&i| order[i]);
    let games: Vec<[i64; 3]> = by_game.iter().map(|&i| diffs[i]).collect();
    for g in &games {
        assert_eq!(
            g.iter().sum::<i64>(),
            1,
            "one game per Score line: {games:?}"
        );
    }
    let mut counts = [0u32; 5];
    for pair in games.chunks(2) {
        if let [a, b] = pair {
            let wins = a[0] + b[0];
            let losses = a[1] + b[1];
            let slot = match (wins, losses) {
                (2, _) => 0,
                (1, 0) => 1,
                (0, 2) => 4,
                (0, 1) => 3,
                _ => 2,
            };
            counts[slot] += 1;
        }
    }
    counts
}

/// Two iterations of chess-tuning-tools' match in one directory (the same engines.json
/// rewritten, the same out.pgn appended to), a UCI engine against the built-in one: every game
/// is read, the debug lines are cutechess's and are the ones it filters out, and out.pgn holds
/// both iterations' games.
#[test]
fn chess_tuning_tools_iterations_run_and_parse() {
    let dir = scratch("chess-tuning-tools");
    let cutechess = dir.join("cutechess-cli");
    std::os::unix::fs::symlink(SPARRING, &cutechess).unwrap();
    let rounds = 2;
    let unknown = Regex::new(r"Unknown (?:option|command): (.+)").unwrap();
    let error = Regex::new(r"[0-9]+ [<>].+: error (.+)").unwrap();
    for iteration in 0..2 {
        std::fs::write(
            dir.join("engines.json"),
            engines_json(&format!("{SPARRING} uci"), "builtin"),
        )
        .unwrap();
        let out = Command::new(&cutechess)
            .args(run_match_args(600, rounds))
            .current_dir(&dir)
            .output()
            .unwrap();
        let stdout = String::from_utf8(out.stdout).unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(
            out.status.success(),
            "iteration {iteration}\nstdout:\n{stdout}\nstderr:\n{stderr}"
        );
        // Popen(stderr=STDOUT): both streams reach the parser; debug lines are filtered out.
        let all: Vec<&str> = stdout.lines().chain(stderr.lines()).collect();
        let debug: Vec<&&str> = all.iter().filter(|l| is_debug_log(l)).collect();
        assert!(
            debug
                .iter()
                .any(|l| l.contains(" >engine1(") && l.ends_with(": uci")),
            "{stderr}"
        );
        assert!(debug
            .iter()
            .any(|l| l.contains(" <engine1(") && l.contains("bestmove")));
        assert!(debug
            .iter()
            .any(|l| l.contains(" >engine2(") && l.contains(": go nodes 600")));
        // check_log_for_errors: forwarded engine errors and unknown options.
        for line in &all {
            assert!(!unknown.is_match(line) && !error.is_match(line), "{line}");
        }
        let experiment: Vec<&str> = all.into_iter().filter(|l| !is_debug_log(l)).collect();
        let counts = pentanomial(&experiment.join("\n"));
        assert_eq!(counts.iter().sum::<u32>(), rounds, "{stdout}");
        let pgn = std::fs::read_to_string(dir.join("out.pgn")).unwrap();
        let games = pgn.matches("[Event ").count();
        assert_eq!(
            games as u32,
            2 * rounds * (iteration + 1),
            "reruns append:\n{pgn}"
        );
    }
}

/// `conf=` refusals name the file and what is wrong: a missing engine, a file that is not a
/// cutechess list (line and column), an init string for the built-in engine.
#[test]
fn engine_configurations_are_checked_by_name() {
    let dir = scratch("conf-refusals");
    let run = |json: &str, extra: &[&str]| -> (i32, String) {
        std::fs::write(dir.join("engines.json"), json).unwrap();
        let mut args: Vec<String> =
            words("match -engine conf=engine1 nodes=100 -engine builtin nodes=100");
        args.extend(extra.iter().map(|s| s.to_string()));
        let out = Command::new(SPARRING)
            .args(&args)
            .current_dir(&dir)
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, err) = run(
        &engines_json("builtin", "builtin").replace("engine1", "other"),
        &[],
    );
    assert_eq!(code, 2);
    assert!(
        err.contains("engines.json has no engine named \"engine1\""),
        "{err}"
    );
    let (code, err) = run("[{\"name\": \"engine1\",\n \"command\": 5}]", &[]);
    assert_eq!(code, 2);
    assert!(err.contains("engines.json: line 2, column"), "{err}");
    let json = engines_json("builtin", "builtin").replace("\"uci\",", "\"uci\", \"debug on\",");
    let (code, err) = run(&json, &[]);
    assert_eq!(code, 2);
    // Sent as an `initstr` line, which the built-in engine does not take.
    assert!(err.contains("initstr: only an external engine"), "{err}");
    // -engines names another file; -debug with -log is refused.
    std::fs::write(dir.join("mine.json"), engines_json("builtin", "builtin")).unwrap();
    let (code, err) = run(
        "not json",
        &["-engines", "mine.json", "--dump-config", "d.toml"],
    );
    assert_eq!(code, 0, "{err}");
    let (code, err) = run(
        "[]",
        &["-engines", "mine.json", "-debug", "-log", "file=x.log"],
    );
    assert_eq!(code, 2);
    assert!(err.contains("-debug and -log"), "{err}");
}

fn words(line: &str) -> Vec<String> {
    line.split_whitespace().map(str::to_string).collect()
}
