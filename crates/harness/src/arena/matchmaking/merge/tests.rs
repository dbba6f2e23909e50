//! Unit tests of the merge's report texts.

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
