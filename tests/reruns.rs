//! Reruns into one `-pgnout` file, as the tuner front ends (weather-factory, chess-tuning-tools)
//! run one match per iteration (issue 21, items 1, 2 and 6): the default appends, `append=false`
//! replaces, `--resume` continues, a previous run's state never blocks the next run, and a half
//! game a killed run left is cut before appending.

#[path = "common/binary.rs"]
mod binary;
use binary::{scratch_in, sparring, Run};
use sparring::record::split_pgn_games;
use std::path::Path;

/// A two-engine dialect match at 300 nodes into `pgn`, with extra options.
fn dialect_run(pgn: &Path, rounds: &str, extra: &[&str]) -> Run {
    let weights = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/weights");
    let default = format!("weights={weights}/default.toml");
    let material = format!("weights={weights}/material-only.toml");
    let book = concat!(env!("CARGO_MANIFEST_DIR"), "/openings/balanced-8ply.epd");
    let file = format!("file={}", pgn.display());
    let openings = format!("file={book}");
    let mut args = vec![
        "match",
        "-engine",
        "builtin",
        "name=a",
        &default,
        "-engine",
        "builtin",
        "name=b",
        &material,
        "-each",
        "tc=inf",
        "nodes=300",
        "-openings",
        &openings,
        "format=epd",
        "order=sequential",
        "-rounds",
        rounds,
        "-srand",
        "7",
        "-pgnout",
        &file,
    ];
    args.extend_from_slice(extra);
    let run = sparring(&args);
    assert_eq!(run.code, 0, "{args:?}\n{}", run.stderr);
    run
}

/// The games of a PGN file, each checked complete: (GameId, text).
fn games(pgn: &Path) -> Vec<(u64, String)> {
    let text = std::fs::read_to_string(pgn).unwrap();
    split_pgn_games(&text)
        .iter()
        .map(|g| {
            assert!(
                g.complete,
                "an incomplete game in {}:\n{}",
                pgn.display(),
                g.text
            );
            (g.game_id.expect("GameId"), g.text.trim_end().to_string())
        })
        .collect()
}

/// The games without what the clock decides (move times, duration, date).
fn without_clock(games: &[(u64, String)]) -> Vec<(u64, String)> {
    let time = regex::Regex::new(r" [0-9]+\.[0-9]+s").unwrap();
    games
        .iter()
        .map(|(id, text)| {
            let text: String = text
                .lines()
                .filter(|l| !l.starts_with("[GameDuration ") && !l.starts_with("[Date "))
                .collect::<Vec<_>>()
                .join(" ");
            (*id, time.replace_all(&text, "").into_owned())
        })
        .collect()
}

#[test]
fn a_second_run_appends_its_games_after_the_first_runs() {
    let dir = scratch_in("reruns", "append");
    let pgn = dir.join("g.pgn");
    dialect_run(&pgn, "1", &[]);
    let first = games(&pgn);
    assert_eq!(first.len(), 2);
    dialect_run(&pgn, "1", &[]);
    let both = games(&pgn);
    assert_eq!(both.len(), 4, "the second run's games follow the first's");
    assert!(
        both[..2] == first[..],
        "the first run's games are untouched"
    );
    // Each run numbers its own games; the previous run's state is set aside, not lost.
    assert_eq!(both.iter().map(|g| g.0).collect::<Vec<_>>(), [1, 2, 1, 2]);
    let side = dir.join("g.pgn.sparring");
    assert!(side.join("previous/games.csv").is_file());
    assert_eq!(
        std::fs::read_to_string(side.join("games.csv"))
            .unwrap()
            .lines()
            .count(),
        3,
        "games.csv holds this run's games"
    );
}

#[test]
fn append_false_replaces_the_file() {
    let dir = scratch_in("reruns", "replace");
    let pgn = dir.join("g.pgn");
    dialect_run(&pgn, "1", &[]);
    dialect_run(&pgn, "1", &[]);
    assert_eq!(games(&pgn).len(), 4);
    dialect_run(&pgn, "1", &["append=false"]);
    assert_eq!(games(&pgn).len(), 2, "append=false replaces the file");
}

#[test]
fn a_half_game_a_killed_run_left_is_cut_before_appending() {
    let dir = scratch_in("reruns", "half-game");
    let pgn = dir.join("g.pgn");
    dialect_run(&pgn, "1", &[]);
    let whole = std::fs::read_to_string(&pgn).unwrap();
    // A kill inside the second game's movetext.
    let cut = whole.rfind("1. ").unwrap() + 10;
    std::fs::write(&pgn, &whole[..cut]).unwrap();
    dialect_run(&pgn, "1", &[]);
    let after = games(&pgn);
    assert_eq!(
        after.len(),
        3,
        "one complete earlier game and this run's two"
    );
}

#[test]
fn resume_continues_an_appending_run_without_touching_earlier_games() {
    let dir = scratch_in("reruns", "resume");
    let pgn = dir.join("g.pgn");
    dialect_run(&pgn, "1", &[]);
    let earlier = games(&pgn);
    dialect_run(&pgn, "2", &[]);
    let complete = games(&pgn);
    assert_eq!(complete.len(), 6);
    // The state a kill during the second run's last game leaves: its CSV row missing and its
    // PGN game cut short.
    let side = dir.join("g.pgn.sparring");
    let csv = std::fs::read_to_string(side.join("games.csv")).unwrap();
    let mut rows: Vec<&str> = csv.lines().collect();
    rows.pop();
    std::fs::write(side.join("games.csv"), rows.join("\n") + "\n").unwrap();
    let text = std::fs::read_to_string(&pgn).unwrap();
    let cut = text.rfind("1. ").unwrap() + 10;
    std::fs::write(&pgn, &text[..cut]).unwrap();
    dialect_run(&pgn, "2", &["--resume"]);
    let resumed = games(&pgn);
    assert_eq!(resumed.len(), 6);
    assert!(
        resumed[..2] == earlier[..],
        "the earlier run's games are untouched"
    );
    assert!(
        without_clock(&resumed) == without_clock(&complete),
        "the replayed game is the same at fixed nodes"
    );
}

/// Issue 21, 6: `-games 1 -rounds 3` was refused; fastchess plays three games, colours
/// alternating, and so does sparring, the last game outside the pentanomial.
#[test]
fn games_1_with_odd_rounds_plays_that_many_games() {
    let dir = scratch_in("reruns", "odd-games");
    let pgn = dir.join("g.pgn");
    let run = dialect_run(&pgn, "3", &["-games", "1"]);
    let played = games(&pgn);
    assert_eq!(played.iter().map(|g| g.0).collect::<Vec<_>>(), [1, 2, 3]);
    let whites: Vec<bool> = played
        .iter()
        .map(|g| g.1.contains("[White \"a\"]"))
        .collect();
    assert_eq!(whites, [true, false, true], "colours alternate");
    assert!(run.stdout.contains("Games: 3, "), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("Unpaired games: 1 (in Games, not in Ptnml)"),
        "{}",
        run.stdout
    );
}
