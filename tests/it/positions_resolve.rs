//! `output.positions_resolve = "pv"`: a self-play match that records each sampled position at
//! the end of the engine's principal variation plays the same games as one that records them
//! as played, and writes other positions, every one a valid training line.

use crate::common::binary;

use binary::{scratch_in, sparring, text};
use sparring::record::TrainingPosition;
use std::collections::BTreeSet;
use std::path::Path;

const MATCH: &str = r#"
[tournament]
rounds = 2
seed = 11
[time_control]
nodes = 1500
[openings]
file = "BOOK"
per_game = true
random_plies = 2
[adjudication]
max_moves = 40
[output]
dir = "OUT"
positions = true
positions_per_game = 6
[[engine]]
name = "a"
builtin = { hash_mb = 2 }
[[engine]]
name = "b"
builtin = { hash_mb = 2 }
"#;

/// Plays the match into `dir/out` with `extra` added to `[output]`; returns the run.
fn play(dir: &Path, extra: &str) -> binary::Run {
    let book = Path::new(env!("CARGO_MANIFEST_DIR")).join("openings/balanced-8ply.epd");
    let out = dir.join("out");
    let config = MATCH
        .replace("BOOK", text(&book))
        .replace("OUT", text(&out))
        .replace(
            "positions_per_game = 6\n",
            &format!("positions_per_game = 6\n{extra}"),
        );
    let path = dir.join("match.toml");
    std::fs::write(&path, config).unwrap();
    sparring(&["match", text(&path), "--progress", "lines"])
}

fn positions(dir: &Path) -> Vec<TrainingPosition> {
    let text = std::fs::read_to_string(dir.join("out/positions.epd")).unwrap();
    text.lines()
        .map(|line| {
            let p = TrainingPosition::parse(line)
                .unwrap_or_else(|e| panic!("{line}: {e}"))
                .expect("a position");
            assert!(p.position().is_ok(), "{line}");
            assert!(p.score.is_some() && p.id.is_some(), "{line}");
            p
        })
        .collect()
}

#[test]
fn resolved_positions_differ_from_the_played_ones_and_all_parse() {
    let played_dir = scratch_in("positions_resolve", "played");
    let run = play(&played_dir, "");
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let resolved_dir = scratch_in("positions_resolve", "resolved");
    let run = play(&resolved_dir, "positions_resolve = \"pv\"\n");
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);

    // The games are the same (up to their durations): resolution changes what is recorded.
    let games = |dir: &Path| {
        let csv = std::fs::read_to_string(dir.join("out/games.csv")).unwrap();
        let rows: BTreeSet<String> = csv
            .lines()
            .skip(1)
            .map(|l| l.split(',').take(10).collect::<Vec<_>>().join(","))
            .collect();
        rows
    };
    assert_eq!(games(&played_dir).len(), 4);
    assert_eq!(games(&played_dir), games(&resolved_dir));

    let played = positions(&played_dir);
    let resolved = positions(&resolved_dir);
    assert!(!played.is_empty() && !resolved.is_empty());
    let fens = |ps: &[TrainingPosition]| ps.iter().map(|p| p.fen.clone()).collect::<BTreeSet<_>>();
    assert_ne!(fens(&played), fens(&resolved));
    // Each game gives at most positions_per_game of them, none twice.
    for game in 1..=4 {
        let of_game: Vec<_> = resolved
            .iter()
            .filter(|p| p.id.unwrap().game == game)
            .collect();
        assert!(of_game.len() <= 6, "game {game}: {}", of_game.len());
        let distinct: BTreeSet<_> = of_game.iter().map(|p| &p.fen).collect();
        assert_eq!(distinct.len(), of_game.len(), "game {game}");
    }
    // The run's manifest names the setting, so a resume with another one is refused.
    let manifest = std::fs::read_to_string(resolved_dir.join("out/run.toml")).unwrap();
    assert!(manifest.contains("positions_resolve"), "{manifest}");
    let manifest = std::fs::read_to_string(played_dir.join("out/run.toml")).unwrap();
    assert!(!manifest.contains("positions_resolve"), "{manifest}");
}

#[test]
fn a_bad_resolve_mode_is_refused_with_its_file_line_and_key() {
    let dir = scratch_in("positions_resolve", "bad");
    let run = play(&dir, "positions_resolve = \"qsearch\"\n");
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    let path = dir.join("match.toml");
    assert!(
        run.stderr.contains(&format!("{}:17:", path.display()))
            && run.stderr.contains("output.positions_resolve"),
        "{}",
        run.stderr
    );
    assert!(!dir.join("out").exists());
}
