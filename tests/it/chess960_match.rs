//! Chess960 and Double Fischer Random matches end to end (issue 13): a gauntlet of the built-in
//! engine against `sparring uci` as an external engine, a DFRC round-robin of built-in engines,
//! resuming a cut Chess960 run, positions recorded from Chess960 games read by the tuner, the
//! command-line dialect's `-variant fischerandom`, a standard run refusing a Chess960 book, and
//! (when installed) a short gauntlet against Stockfish. Every game is replayed by python-chess
//! as Chess960 (tests/fixtures/replay_chess960.py) and checked by ../shared/tools/check_pgn.py.

use crate::common::config as config_file;
use crate::common::tools;
use config_file::{repo_path, weights, Engine, MatchToml};
use sparring::arena::{
    run_tournament, Chess960Starts, MatchConfig, RunOptions, TournamentSummary, Variant,
};
use sparring::record::TrainingPosition;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

const SPARRING: &str = env!("CARGO_BIN_EXE_sparring");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const STOCKFISH: &str = "/usr/games/stockfish";

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("chess960-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// python-chess's replay of a run's games (and of the engine log's position commands):
/// `(games, castles in the games, castles sent to engines)`; None without python-chess.
fn replay(dir: &Path, log: bool) -> Option<(usize, usize, usize)> {
    if !tools::python_chess("chess.pgn") {
        return None;
    }
    let mut command = Command::new("python3");
    command
        .arg(Path::new(ROOT).join("tests/fixtures/replay_chess960.py"))
        .arg(dir.join("games.pgn"));
    if log {
        command.arg(dir.join("engine.log"));
    }
    let out = command.output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "replay: {text}");
    let number = |key: &str, nth: usize| -> usize {
        text.lines().find(|l| l.starts_with(key)).map_or(0, |l| {
            l.split_whitespace().nth(nth).unwrap().parse().unwrap()
        })
    };
    Some((number("games", 1), number("games", 3), number("logged", 3)))
}

/// Runs the shared PGN checker when ../shared (the project's, or the main checkout's next to
/// a worktree) and python-chess are there.
fn check_pgn(dir: &Path) {
    let Some(tool) = tools::shared("tools/check_pgn.py") else {
        return;
    };
    if !tools::python_chess("chess.pgn") {
        return;
    }
    let out = Command::new("python3")
        .arg(tool)
        .arg(dir.join("games.pgn"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "check_pgn.py: {text}");
    assert!(text.contains(" passed, 0 failed"), "{text}");
}

/// Writes `toml`, its output in `dir/out`, as `dir/match.toml`.
fn write_config(dir: &Path, toml: &MatchToml) -> PathBuf {
    toml.clone()
        .out(dir.join("out"))
        .write(dir.join("match.toml"))
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn sparring(args: &[&str], cwd: &Path) -> Run {
    let out = Command::new(SPARRING)
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn pgn_tags(dir: &Path, tag: &str) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("games.pgn")).unwrap();
    let prefix = format!("[{tag} \"");
    text.lines()
        .filter_map(|l| l.strip_prefix(prefix.as_str())?.strip_suffix("\"]"))
        .map(str::to_string)
        .collect()
}

/// A Chess960 gauntlet of the built-in engine against `external`, its engine log in `dir/out`.
fn gauntlet(dir: &Path, external: Engine) -> MatchToml {
    MatchToml::gauntlet()
        .variant("chess960")
        .rounds(3)
        .seed(7)
        .nodes(2000)
        .positions(true)
        .engine_log(dir.join("out/engine.log"))
        .engine(Engine::builtin("builtin").hash_mb(4))
        .engine(external)
}

/// This binary as a UCI engine.
fn external_sparring() -> Engine {
    Engine::uci("external", SPARRING).args(&["uci"])
}

#[test]
fn a_chess960_gauntlet_against_an_external_engine_replays_as_chess960() {
    let dir = scratch("gauntlet");
    let config = write_config(&dir, &gauntlet(&dir, external_sparring()));
    let run = sparring(
        &["match", config.to_str().unwrap(), "--progress", "lines"],
        &dir,
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let out = dir.join("out");
    // No book: each round's pair starts from a seeded Chess960 start position (its number is
    // the opening index), written as SetUp/FEN with the Variant tag.
    let fens = pgn_tags(&out, "FEN");
    assert_eq!(fens.len(), 6);
    assert_eq!(pgn_tags(&out, "Variant"), vec!["Chess960"; 6]);
    for (fen, index) in fens.iter().zip(pgn_tags(&out, "OpeningIndex")) {
        let number: u16 = index.parse().unwrap();
        assert_eq!(fen, &sparring::board::chess960::start_fen(number).unwrap());
    }
    assert_eq!(fens[0], fens[1], "a pair shares its start");
    assert_ne!(fens[0], fens[2], "rounds draw other starts");

    let log = std::fs::read_to_string(out.join("engine.log")).unwrap();
    assert!(log.contains("external > setoption name UCI_Chess960 value true"));
    assert!(log.contains("external < option name UCI_Chess960 type check"));
    assert!(!log.contains("position startpos"));
    assert!(log.contains("external > position fen "));

    if let Some((games, castles, sent_castles)) = replay(&out, true) {
        assert_eq!(games, 6);
        // This seed's games castle; the engine got every castle king takes rook (the replay
        // refuses any other form in a Chess960 position command).
        assert!(castles > 0 && sent_castles > 0, "{castles} {sent_castles}");
    }
    check_pgn(&out);

    // Positions recorded from Chess960 games: X-FEN lines the tuner's parser and loader read.
    let text = std::fs::read_to_string(out.join("positions.epd")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(!lines.is_empty());
    let mut chess960_rights = 0;
    for line in &lines {
        let p = TrainingPosition::parse(line)
            .unwrap_or_else(|e| panic!("{line}: {e}"))
            .unwrap();
        assert_eq!(p.to_string(), *line);
        chess960_rights += usize::from(p.position().unwrap().has_chess960_castling());
    }
    assert!(
        chess960_rights > 0,
        "some positions keep Chess960 castling rights"
    );
    use sparring::eval::{EvalParams, ParamGroup};
    use sparring::texel::{Dataset, ParamSelection};
    let selection = ParamSelection::groups(EvalParams::default(), &ParamGroup::ALL);
    let (data, report) =
        Dataset::load_files(&[out.join("positions.epd")], &selection, true).unwrap();
    assert_eq!(report.skipped, 0, "{:?}", report.errors);
    assert_eq!(data.len(), lines.len());
}

#[test]
fn a_dfrc_round_robin_of_builtin_engines_replays_as_chess960() {
    let dir = scratch("dfrc");
    let config = write_config(
        &dir,
        &MatchToml::round_robin()
            .variant("chess960")
            .rounds(2)
            .seed(3)
            .nodes(1500)
            .openings(repo_path("openings/dfrc-balanced.epd"))
            .engine(Engine::builtin("a").hash_mb(2))
            .engine(
                Engine::builtin("b")
                    .hash_mb(2)
                    .weights(weights("material-only.toml")),
            )
            .engine(Engine::builtin("c").hash_mb(2)),
    );
    let run = sparring(
        &["match", config.to_str().unwrap(), "--progress", "lines"],
        &dir,
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let out = dir.join("out");
    let fens = pgn_tags(&out, "FEN");
    assert_eq!(fens.len(), 12);
    // DFRC: White's and Black's back ranks differ.
    assert!(fens.iter().any(|fen| {
        let ranks: Vec<&str> = fen.split(['/', ' ']).collect();
        ranks[0].to_ascii_uppercase() != ranks[7]
    }));
    if let Some((games, _, _)) = replay(&out, false) {
        assert_eq!(games, 12);
    }
    check_pgn(&out);
}

fn library_config(dir: &Path, variant: &str) -> MatchConfig {
    MatchToml::new()
        .variant(variant)
        .rounds(3)
        .seed(11)
        .nodes(800)
        .out(dir)
        .engine(Engine::builtin("a").hash_mb(2))
        .engine(Engine::builtin("b").hash_mb(2))
        .parse()
}

fn run_library(config: &MatchConfig, resume: bool) -> Result<TournamentSummary, String> {
    run_tournament(
        config,
        Arc::new(Chess960Starts),
        &RunOptions {
            resume,
            ..Default::default()
        },
        &mut |_| {},
    )
    .map_err(|e| e.to_string())
}

/// The games of a run as the PGN has them, without the Date and GameDuration tags and the
/// move times in the comments.
fn games_without_times(dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("games.pgn")).unwrap();
    let mut games: Vec<String> = sparring::record::split_pgn_games(&text)
        .iter()
        .map(|g| {
            g.text
                .lines()
                .filter(|l| !l.starts_with("[Date") && !l.starts_with("[GameDuration"))
                .collect::<Vec<_>>()
                .join(" ")
                .split_whitespace()
                // Move times (`0.001s}`, `0.000s,` before the last comment's reason) vary.
                .filter(|w| {
                    let w = w.trim_end_matches([',', '}']);
                    !(w.ends_with('s') && w.starts_with(|c: char| c.is_ascii_digit()))
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    games.sort();
    games
}

#[test]
fn a_cut_chess960_run_resumes_to_the_same_games_and_refuses_another_variant() {
    let whole = scratch("resume-whole");
    let config = library_config(&whole, "chess960");
    assert_eq!(config.variant, Variant::Chess960);
    run_library(&config, false).unwrap();
    let expected = games_without_times(&whole);
    assert_eq!(expected.len(), 6);

    let cut = scratch("resume-cut");
    let config = library_config(&cut, "chess960");
    run_library(&config, false).unwrap();
    // Cut the run as a kill would: the last game's CSV row gone and its PGN text half written.
    let csv = std::fs::read_to_string(cut.join("games.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    std::fs::write(
        cut.join("games.csv"),
        rows[..rows.len() - 2].join("\n") + "\n",
    )
    .unwrap();
    let pgn = std::fs::read_to_string(cut.join("games.pgn")).unwrap();
    let last = pgn.rfind("[Event ").unwrap();
    let second_last = pgn[..last].rfind("[Event ").unwrap();
    std::fs::write(cut.join("games.pgn"), &pgn[..second_last + 300]).unwrap();

    // The fingerprint holds the variant: resuming as standard chess is refused.
    let standard = library_config(&cut, "standard");
    let Err(error) = run_library(&standard, true) else {
        panic!("resuming a Chess960 run as standard chess was not refused");
    };
    assert!(error.contains("tournament.variant"), "{error}");

    let summary = run_library(&config, true).unwrap();
    assert_eq!(summary.games_played, 2);
    assert_eq!(games_without_times(&cut), expected);
    if let Some((games, _, _)) = replay(&cut, false) {
        assert_eq!(games, 6);
    }
    check_pgn(&cut);
}

#[test]
fn the_dialect_line_with_variant_fischerandom_plays_chess960() {
    let dir = scratch("dialect");
    let book = format!("{ROOT}/openings/frc-balanced.epd");
    let pgn = dir.join("games.pgn");
    let line = format!(
        "match -engine builtin name=one nodes=800 -engine cmd={SPARRING} args=uci name=two nodes=800 \
         -variant fischerandom -openings file={book} order=sequential -rounds 1 -games 2 \
         -pgnout file={}",
        pgn.display()
    );
    let words: Vec<&str> = line.split_whitespace().collect();
    let dumped = dir.join("dumped.toml");
    let mut args = words.clone();
    args.extend(["--dump-config", dumped.to_str().unwrap()]);
    let run = sparring(&args, &dir);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let config = MatchConfig::load(&dumped).unwrap();
    assert_eq!(config.variant, Variant::Chess960);
    assert!(std::fs::read_to_string(&dumped)
        .unwrap()
        .contains("variant = \"chess960\""));

    let run = sparring(&words, &dir);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let text = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(text.matches("[Variant \"Chess960\"]").count(), 2);
    let first = std::fs::read_to_string(&book).unwrap();
    let first = first.lines().next().unwrap();
    assert!(text.contains(&format!("[FEN \"{first}\"]")), "{text}");
}

#[test]
fn a_standard_run_refuses_a_chess960_book_naming_file_and_line() {
    let dir = scratch("refuse");
    // Line 1 is a standard position; line 2 has Chess960 castling rights.
    let book = dir.join("mixed.epd");
    std::fs::write(
        &book,
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n\
         nrnkbbqr/pppppppp/8/8/8/8/PPPPPPPP/NRNKBBQR w KQkq - 0 1\n",
    )
    .unwrap();
    let text = MatchToml::new()
        .rounds(1)
        .nodes(500)
        .openings(&book)
        .engine(Engine::builtin("a"))
        .engine(Engine::builtin("b"));
    let config = write_config(&dir, &text);
    let run = sparring(&["match", config.to_str().unwrap()], &dir);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr
            .contains(&format!("{}: line 2: ", book.display())),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("variant = \"chess960\""),
        "{}",
        run.stderr
    );
    assert!(!dir.join("out/games.pgn").exists());

    // The same book in a Chess960 run plays.
    let config = write_config(&dir, &text.variant("chess960"));
    let run = sparring(&["match", config.to_str().unwrap()], &dir);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
}

#[test]
fn a_chess960_gauntlet_against_stockfish_replays_as_chess960() {
    if tools::usr_games("stockfish").is_none() {
        return;
    }
    let dir = scratch("stockfish");
    let stockfish = Engine::uci("external", STOCKFISH)
        .option("Threads", 1)
        .option("Hash", 16);
    let config = write_config(&dir, &gauntlet(&dir, stockfish).rounds(2));
    let run = sparring(
        &["match", config.to_str().unwrap(), "--progress", "lines"],
        &dir,
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let out = dir.join("out");
    assert_eq!(pgn_tags(&out, "Variant").len(), 4);
    assert!(pgn_tags(&out, "Termination")
        .iter()
        .all(|t| t == "normal" || t == "adjudication"));
    if let Some((games, _, _)) = replay(&out, true) {
        assert_eq!(games, 4);
    }
    check_pgn(&out);
}
