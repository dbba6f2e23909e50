//! PGN move data: fastchess's `-pgnout nodes=true seldepth=true nps=true hashfull=true
//! tbhits=true pv=true timeleft=true latency=true match_line=REGEX` (and `[output.move_data]`)
//! write each engine move's comment as fastchess does, and OpenBench's worker settings give
//! PGNs whose every move comment its `Client/pgn_util.py` reads (its regular expressions,
//! rewritten here in Rust: OpenBench is GPL, read and not copied).

use crate::common::mock;
use crate::common::tools;
use mock::mock_engine;
use regex::Regex;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const SPARRING: &str = env!("CARGO_BIN_EXE_sparring");

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("pgn-move-data-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `program` in `cwd`; panics with its output unless it exits 0.
fn run_ok(program: &Path, args: &[String], cwd: &Path) -> String {
    let out = Command::new(program)
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{program:?} {args:?}\nstdout:\n{stdout}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

fn words(line: &str) -> Vec<String> {
    line.split_whitespace().map(str::to_string).collect()
}

/// What the mock engine says before every `bestmove`: a full info line and OpenBench's
/// `pgncomment` line.
const MOCK_INFO: &str = "depth 3 seldepth 5 multipv 1 score cp 12 nodes 400 nps 1000 hashfull 7 tbhits 2 time 4 pv e2e4 e7e5";
const MOCK_COMMENT: &str = "string pgncomment eval=12 wdl=500";

/// The mock engine as one `-engine` group's tokens.
fn mock_engine_group(name: &str) -> Vec<String> {
    vec![
        "-engine".into(),
        format!("cmd={}", mock_engine()),
        format!("name={name}"),
        format!("args=--info '{MOCK_INFO}' --info '{MOCK_COMMENT}'"),
    ]
}

/// pgn_util.py's `pgn_iterator`: header lines up to a blank line, move lines up to the next
/// blank line joined with spaces; the headers by `[Name "value"]`.
fn openbench_games(text: &str) -> Vec<(HashMap<String, String>, String)> {
    let value = Regex::new(r#""([^"]*)""#).unwrap();
    let mut lines = text.lines().map(str::trim_end);
    let mut games = Vec::new();
    loop {
        let header_lines: Vec<&str> = lines.by_ref().take_while(|l| !l.is_empty()).collect();
        let move_lines: Vec<&str> = lines.by_ref().take_while(|l| !l.is_empty()).collect();
        if header_lines.is_empty() || move_lines.is_empty() {
            return games;
        }
        let headers = header_lines
            .iter()
            .map(|l| {
                let name = l.split_whitespace().next().unwrap()[1..].to_string();
                (name, value.captures(l).unwrap()[1].to_string())
            })
            .collect();
        games.push((headers, move_lines.join(" ")));
    }
}

/// pgn_util.py's `extract_pgncomment`.
fn openbench_pgncomment(comment: &str) -> Option<String> {
    let line = Regex::new(r#"line="([^"]*)""#).unwrap();
    let content = line.captures(comment)?[1].to_string();
    content
        .strip_prefix("info string pgncomment ")
        .map(str::to_string)
}

/// pgn_util.py's `format_move_comment_verbose`: `unknown` unless score/depth, time, `n=` and
/// `sd=` are all there.
fn openbench_verbose(comment: &str) -> String {
    let score_depth = Regex::new(r"([+-]?M?\d+(?:\.\d+)?)/(\d+)").unwrap();
    let time = Regex::new(r"([\d.]+s)").unwrap();
    let nodes = Regex::new(r"n=(\d+)").unwrap();
    let seldepth = Regex::new(r"sd=(\d+)").unwrap();
    let (Some(sd), Some(t), Some(n), Some(sel)) = (
        score_depth.captures(comment),
        time.captures(comment),
        nodes.captures(comment),
        seldepth.captures(comment),
    ) else {
        return "unknown".to_string();
    };
    let mut parts = vec![
        format!("{} {}", &sd[0], &t[1]),
        format!("n={}", &n[1]),
        format!("sd={}", &sel[1]),
    ];
    if let Some(line) = openbench_pgncomment(comment) {
        parts.push(format!("line={line}"));
    }
    parts.join(", ")
}

/// pgn_util.py's `format_movelist`: each move and its formatted comment.
fn openbench_moves(move_text: &str) -> Vec<(String, String)> {
    let one_ply =
        Regex::new(r"\s*(?:\d+\.{1,3} )?([a-zA-Z0-9+=#*-]+) (?:\s*\{\s*([^}]*)\s*\})?").unwrap();
    one_ply
        .captures_iter(move_text)
        .map(|c| {
            let comment = c.get(2).map_or("", |m| m.as_str());
            let formatted = if comment.is_empty() || comment.trim() == "book" {
                if comment.is_empty() {
                    "unknown".to_string()
                } else {
                    comment.trim().to_string()
                }
            } else {
                openbench_verbose(comment)
            };
            (c[1].to_string(), formatted)
        })
        .collect()
}

/// The engine moves' comments of each game, in order, with the mover's name.
fn move_comments(pgn: &str) -> Vec<(String, String)> {
    let comment = Regex::new(r"\{([^}]*)\}").unwrap();
    let mut all = Vec::new();
    for (headers, move_text) in openbench_games(pgn) {
        let names = [headers["White"].clone(), headers["Black"].clone()];
        let black_starts = headers.get("FEN").is_some_and(|f| f.contains(" b "));
        for (i, c) in comment.captures_iter(&move_text).enumerate() {
            let mover = names[(i + usize::from(black_starts)) % 2].clone();
            all.push((mover, c[1].to_string()));
        }
    }
    all
}

/// OpenBench's worker settings (`-pgnout file=... seldepth=true nodes=true
/// match_line='^info string pgncomment .*'`) through a `fastchess-ob` symlink, with a mock UCI
/// engine that sends a `pgncomment` line, a real UCI engine and the built-in one: pgn_util reads
/// score, depth, time, nodes and seldepth from every engine move, and the captured line from the
/// mock's.
#[test]
fn openbench_pgnout_settings_give_every_field_pgn_util_reads() {
    let dir = scratch("openbench");
    std::fs::create_dir_all(dir.join("PGNs")).unwrap();
    let fastchess_ob = dir.join("fastchess-ob");
    std::os::unix::fs::symlink(SPARRING, &fastchess_ob).unwrap();
    let mut args = mock_engine_group("mock");
    args.extend(words(&format!(
        "-engine cmd={SPARRING} args=uci name=uci option.Hash=8 -engine builtin name=builtin \
         -each tc=inf nodes=1500 -rounds 1 -games 2 -concurrency 1 -maxmoves 30 -srand 7 \
         -pgnout file=PGNs/4242.98765.1767225600.0.pgn seldepth=true nodes=true"
    )));
    // shlex.split turns match_line='^info string pgncomment .*' into one argument.
    args.push("match_line=^info string pgncomment .*".to_string());
    run_ok(&fastchess_ob, &args, &dir);
    let pgn = std::fs::read_to_string(dir.join("PGNs/4242.98765.1767225600.0.pgn")).unwrap();
    let games = openbench_games(&pgn);
    assert_eq!(games.len(), 6, "{pgn}");
    let mut by_engine: HashMap<String, usize> = HashMap::new();
    for (_, move_text) in &games {
        let moves = openbench_moves(move_text);
        assert!(!moves.is_empty());
        for (mv, formatted) in moves {
            assert_ne!(formatted, "unknown", "{mv} in:\n{move_text}");
        }
    }
    let figures =
        Regex::new(r"^[+-]?M?\d+(?:\.\d+)?/(\d+) \d+\.\d{3}s, n=(\d+), sd=(\d+)").unwrap();
    for (mover, comment) in move_comments(&pgn) {
        *by_engine.entry(mover.clone()).or_default() += 1;
        let formatted = openbench_verbose(&comment);
        let c = figures
            .captures(&formatted)
            .unwrap_or_else(|| panic!("{mover}: {comment} read as {formatted}"));
        let nodes: u64 = c[2].parse().unwrap();
        if mover == "mock" {
            assert_eq!((&c[1], nodes, &c[3]), ("3", 400, "5"), "{comment}");
            assert_eq!(
                openbench_pgncomment(&comment).as_deref(),
                Some("eval=12 wdl=500"),
                "{comment}"
            );
            assert!(formatted.ends_with(", line=eval=12 wdl=500"), "{formatted}");
        } else {
            assert!(nodes > 0, "{mover}: {comment}");
            assert!(c[3].parse::<u32>().unwrap() >= 1, "{mover}: {comment}");
            assert_eq!(openbench_pgncomment(&comment), None, "{comment}");
        }
    }
    for name in ["mock", "uci", "builtin"] {
        assert!(
            by_engine.get(name).copied().unwrap_or(0) > 0,
            "{by_engine:?}"
        );
    }
}

/// Every key at once: the comment holds the figures in fastchess's order and spelling
/// (`score/depth time, tl=, latency=, n=, sd=, nps=, hashfull=, tbhits=, pv="...", line="..."`),
/// the game's reason after the last one; the TOML form (`[output.move_data]`) written by
/// `--dump-config` plays the same comments.
#[test]
fn every_key_writes_its_figure_in_fastchess_order() {
    let dir = scratch("all-keys");
    let mut args = mock_engine_group("one");
    args.extend(mock_engine_group("two"));
    args.extend(words(
        "-each tc=60+1 -rounds 1 -games 2 -maxmoves 6 -pgnout file=all.pgn nodes=true \
         seldepth=true nps=true hashfull=true tbhits=true pv=true timeleft=true latency=true",
    ));
    args.push("match_line=^info string pgncomment".to_string());
    args.push("match_line=^info depth".to_string());
    let mut dump = vec!["match".to_string()];
    dump.extend(args.iter().cloned());
    dump.extend(["--dump-config".to_string(), "dumped.toml".to_string()]);
    run_ok(Path::new(SPARRING), &dump, &dir);
    let toml = std::fs::read_to_string(dir.join("dumped.toml")).unwrap();
    assert!(toml.contains("[output.move_data]"), "{toml}");
    assert!(
        toml.contains(r#"match_lines = ["^info string pgncomment", "^info depth"]"#),
        "{toml}"
    );

    let expected = Regex::new(&format!(
        r#"^\+0\.12/3 \d+\.\d{{3}}s, tl=\d+\.\d{{3}}s, latency=-?\d+\.\d{{3}}s, n=400, sd=5, nps=1000, hashfull=7, tbhits=2, pv="e2e4 e7e5", line="info {MOCK_COMMENT}", line="info {MOCK_INFO}"(, .+)?$"#
    ))
    .unwrap();
    let time_left = Regex::new(r"tl=(\d+\.\d{3})s").unwrap();
    let mut first = vec!["match".to_string()];
    first.extend(args);
    for (how, cli) in [
        ("the command line", first),
        ("its TOML form", words("match dumped.toml --progress lines")),
    ] {
        let _ = std::fs::remove_file(dir.join("all.pgn"));
        let _ = std::fs::remove_dir_all(dir.join("all.pgn.sparring"));
        run_ok(Path::new(SPARRING), &cli, &dir);
        let pgn = std::fs::read_to_string(dir.join("all.pgn")).unwrap();
        let comments = move_comments(&pgn);
        assert_eq!(openbench_games(&pgn).len(), 2, "{how}:\n{pgn}");
        for (_, comment) in &comments {
            // The PGN wraps long comments: read as pgn_util does, lines joined by spaces.
            assert!(expected.is_match(comment), "{how}: {comment}");
            let tl: f64 = time_left.captures(comment).unwrap()[1].parse().unwrap();
            // 60 s plus 1 s a move, less what the moves took.
            assert!(tl > 50.0 && tl <= 70.0, "{how}: {comment}");
        }
        // The reason ends the last comment of each game, as fastchess writes it.
        let with_reason = comments.iter().filter(|(_, c)| !c.ends_with('"')).count();
        assert_eq!(with_reason, 2, "{how}: {comments:?}");
    }
}

/// `-pgnout min=true notation=lan` (fastchess's keys) on a tiny built-in match: each game has
/// the Seven Tag Roster and `GameId` only, no comments, and moves in fastchess's LAN, which
/// python-chess reads back to legal games of the same length; `--resume` of a run cut inside
/// its last game completes it.
#[test]
fn minimal_lan_pgn_has_the_roster_and_bare_lan_moves() {
    let dir = scratch("min-lan");
    let line = "match -engine builtin name=a nodes=300 -engine builtin name=b nodes=300 \
                -rounds 1 -games 2 -maxmoves 20 -pgnout file=min.pgn min=true notation=lan";
    run_ok(Path::new(SPARRING), &words(line), &dir);
    // A kill inside the last game: `--resume` finds the games by their GameId and plays it again.
    let cut = std::fs::read_to_string(dir.join("min.pgn")).unwrap();
    std::fs::write(dir.join("min.pgn"), &cut[..cut.len() - 30]).unwrap();
    run_ok(
        Path::new(SPARRING),
        &words(&format!("{line} --resume")),
        &dir,
    );
    let pgn = std::fs::read_to_string(dir.join("min.pgn")).unwrap();
    assert!(!pgn.contains('{'), "comments in minimal output:\n{pgn}");
    let games = openbench_games(&pgn);
    assert_eq!(games.len(), 2, "{pgn}");
    let lan = Regex::new(r"^([KQRBN]?[a-h][1-8]x?[a-h][1-8](=[QRBN])?|O-O(-O)?)[+#]?$").unwrap();
    let mut plies = Vec::new();
    for (tags, moves) in &games {
        let mut names: Vec<&str> = tags.keys().map(String::as_str).collect();
        names.sort_unstable();
        let roster = [
            "Black", "Date", "Event", "GameId", "Result", "Round", "Site", "White",
        ];
        assert_eq!(names, roster, "{pgn}");
        let sans: Vec<&str> = moves
            .split_whitespace()
            .filter(|t| !t.ends_with('.') && *t != tags["Result"])
            .collect();
        assert!(sans.len() >= 2, "{pgn}");
        for m in &sans {
            assert!(lan.is_match(m), "{m} is not LAN in:\n{pgn}");
        }
        plies.push(sans.len());
    }
    if !tools::python_chess("chess.pgn") {
        return;
    }
    let script = "import sys, chess.pgn\n\
        f = open(sys.argv[1])\n\
        while (g := chess.pgn.read_game(f)) is not None:\n\
        \x20   assert not g.errors, g.errors\n\
        \x20   print(len(list(g.mainline_moves())))\n";
    let out = Command::new("python3")
        .args(["-c", script])
        .arg(dir.join("min.pgn"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "python-chess: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let read: Vec<usize> = text.lines().map(|l| l.parse().unwrap()).collect();
    assert_eq!(read, plies, "python-chess read other games:\n{pgn}");
}
