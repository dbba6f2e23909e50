//! Unit tests of the merge's report texts and of its figures.csv.

use super::*;
use crate::arena::matchmaking::schedule::{Shard, Slice, Wave};
use crate::stats::SprtModel;

#[test]
fn the_verdict_line_has_one_fixed_form_per_state() {
    use SprtDecision::{AcceptH0, AcceptH1, Continue};
    let report = |decisions: Vec<Option<SprtDecision>>,
                  wave_pairs: Option<u64>,
                  stopped_after_wave: Option<u64>,
                  next_wave: Option<u64>,
                  missing: bool| MergeReport {
        pairings: Vec::new(),
        sprt: Some(SprtParams::new(0.0, 5.0, 0.05, 0.05, SprtModel::Normalized).unwrap()),
        decisions,
        figures: Vec::new(),
        names: Vec::new(),
        ratings: None,
        games: 0,
        total_games: 0,
        missing: if missing {
            vec![MissingGames {
                slice: Slice::default(),
                last_wave: None,
                game_ids: vec![1..=2],
                not_given: true,
            }]
        } else {
            Vec::new()
        },
        wave_pairs,
        stopped_after_wave,
        next_wave,
        ignored_games: 0,
        not_started: Vec::new(),
        versions: Vec::new(),
        positions: false,
        bullet: false,
        pgn_name: "games.pgn".to_string(),
    };
    let line = |r: MergeReport| r.verdict().unwrap();
    assert_eq!(
        line(report(vec![Some(AcceptH1)], Some(4), Some(3), None, false)),
        "verdict: H1 accepted (stopped by SPRT after wave 3)"
    );
    assert_eq!(
        line(report(vec![Some(AcceptH0)], Some(4), Some(0), None, false)),
        "verdict: H0 accepted (stopped by SPRT after wave 0)"
    );
    assert_eq!(
        line(report(
            vec![Some(AcceptH0), Some(AcceptH1)],
            Some(4),
            Some(2),
            None,
            false
        )),
        "verdict: decided (stopped by SPRT after wave 2)"
    );
    // Decided on a prefix that is not complete: the waves still go on.
    assert_eq!(
        line(report(vec![Some(AcceptH1)], Some(4), None, Some(5), true)),
        "verdict: continue with wave 5"
    );
    assert_eq!(
        line(report(vec![Some(AcceptH1)], None, None, None, false)),
        "verdict: H1 accepted"
    );
    // Decided on a partial set of shards: not a result yet.
    assert_eq!(
        line(report(vec![Some(AcceptH1)], None, None, None, true)),
        "verdict: continue (H1 accepted on the games present)"
    );
    assert_eq!(
        line(report(vec![Some(Continue)], None, None, None, true)),
        "verdict: continue"
    );
    assert_eq!(
        line(report(vec![Some(Continue)], Some(4), None, None, false)),
        "verdict: undecided (all games played)"
    );
    let mut no_test = report(vec![None], None, None, None, false);
    no_test.sprt = None;
    assert_eq!(no_test.verdict(), None);
}

#[test]
fn missing_games_name_the_shard_and_the_rerun() {
    let m = MissingGames {
        slice: Slice {
            wave: None,
            shard: Some(Shard { index: 2, count: 4 }),
        },
        last_wave: None,
        game_ids: vec![17..=24],
        not_given: false,
    };
    assert_eq!(
        m.to_string(),
        "shard 2/4 is missing games 17-24; rerun with --shard 2/4 --resume"
    );
    let wave = Some(Wave { index: 3, pairs: 4 });
    let m = MissingGames {
        slice: Slice {
            wave,
            shard: Some(Shard { index: 1, count: 2 }),
        },
        last_wave: None,
        game_ids: vec![29..=30, 32..=32],
        not_given: false,
    };
    assert_eq!(m.count(), 3);
    assert_eq!(
        m.to_string(),
        "wave 3 shard 1/2 is missing games 29-30, 32; rerun with --wave 3 --wave-pairs 4 \
         --shard 1/2 --resume"
    );
    let m = MissingGames {
        slice: Slice { wave, shard: None },
        last_wave: Some(9),
        game_ids: vec![25..=80],
        not_given: true,
    };
    assert_eq!(
        m.to_string(),
        "waves 3-9 (games 25-80) were not given; run them with --wave K --wave-pairs 4 \
         for K = 3 to 9"
    );
}

/// A shard holding `games` (ids), each with a figures row per engine whose `moves` is the
/// game id, and `start` warnings per engine; `has_warnings` None: no figures.csv.
fn shard_with(games: &[u64], start: &[(usize, u64)], has_warnings: Option<bool>) -> ShardFiles {
    let figures = |moves: u64, warnings: u64| EngineFigures {
        moves,
        compliance_warnings: warnings,
        ..EngineFigures::default()
    };
    let mut shard = ShardFiles {
        games: games
            .iter()
            .map(|&id| FinishedGame {
                game_id: id,
                pair_id: id.div_ceil(2),
                round: 1,
                white: "a".into(),
                black: "b".into(),
                opening_id: 0,
                start_fen: String::new(),
                result: crate::board::GameResult::Draw,
                termination: String::new(),
                plies: 0,
                duration_ms: 0,
                reason: String::new(),
            })
            .collect(),
        pgn: Default::default(),
        positions: Default::default(),
        bullet: Default::default(),
        figures: collect::ShardFigures::default(),
    };
    if has_warnings.is_some() {
        for &id in games {
            let rows = vec![(0, figures(id, 0)), (1, figures(id, 1))];
            shard.figures.by_game.insert(id, rows);
        }
        let warned = start.iter().map(|&(e, n)| (e, figures(0, n))).collect();
        shard.figures.start_warnings = warned;
    }
    shard.figures.has_warnings = has_warnings;
    shard
}

/// The games of `shards` in game-id order, with their shard, as the merge walks them.
fn in_order<'a>(shards: &[&'a ShardFiles]) -> Vec<(&'a FinishedGame, &'a ShardFiles)> {
    let mut present: Vec<(&FinishedGame, &ShardFiles)> = shards
        .iter()
        .flat_map(|s| s.games.iter().map(move |g| (g, *s)))
        .collect();
    present.sort_by_key(|(g, _)| g.game_id);
    present
}

#[test]
fn the_merged_figures_are_the_shards_rows_in_game_id_order() {
    let a = shard_with(&[1, 2, 5, 6], &[(1, 2)], Some(true));
    let b = shard_with(&[3, 4], &[(0, 1), (1, 3)], Some(true));
    let text = |bytes: Option<Vec<u8>>| String::from_utf8(bytes.unwrap()).unwrap();
    let merged = text(write::merged_figures_csv(2, &in_order(&[&a, &b])));
    let lines: Vec<&str> = merged.lines().collect();
    assert!(lines[0].ends_with(",compliance_warnings"), "{merged}");
    // The start warnings once per engine (the most a shard found), then every game's rows.
    assert_eq!(lines[1], "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1");
    assert_eq!(lines[2], "0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,3");
    let games: Vec<(&str, &str, &str)> = lines[3..]
        .iter()
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[0], f[1], f[3])
        })
        .collect();
    let expected: Vec<(String, String, String)> = (1..=6)
        .flat_map(|id: u64| [0, 1].map(|e| (id.to_string(), e.to_string(), id.to_string())))
        .collect();
    let expected: Vec<(&str, &str, &str)> = expected
        .iter()
        .map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str()))
        .collect();
    assert_eq!(games, expected);
    // Read back by the run's own reader: the same rows.
    let read = crate::arena::output::figures::read_figures(&merged).unwrap();
    assert_eq!(read.rows.len(), 2 + 12);

    // A shard from before the warnings column: the merge keeps that form (no counts claimed).
    let old = shard_with(&[3, 4], &[], Some(false));
    let merged = text(write::merged_figures_csv(2, &in_order(&[&a, &old])));
    assert!(!merged.lines().next().unwrap().contains("compliance"));
    assert!(merged.lines().skip(1).all(|l| l.split(',').count() == 15));
    assert!(
        !crate::arena::output::figures::read_figures(&merged)
            .unwrap()
            .has_warnings
    );
    // A shard without figures.csv: no merged figures.csv.
    let none = shard_with(&[3, 4], &[], None);
    assert!(write::merged_figures_csv(2, &in_order(&[&a, &none])).is_none());
}
