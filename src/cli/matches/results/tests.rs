//! The results lines, format by format.

use super::*;
use crate::cli::matches::cutechess::Cutechess;
use crate::cli::matches::fastchess::Fastchess;
use sparring::stats::{Pentanomial, SprtModel, Wdl};

/// The facts of a run of two (or more) engines at 5000 nodes, with an SPRT when `sprt`.
fn run_facts(engines: &[&str], sprt: bool) -> RunFacts {
    let mut text =
        "[tournament]\n[time_control]\nnodes = 5000\n[output]\ndir = \"x\"\n".to_string();
    for name in engines {
        text.push_str(&format!("[[engine]]\nname = \"{name}\"\nbuiltin = {{}}\n"));
    }
    let mut config = MatchConfig::parse(&text, "t.toml").unwrap();
    if sprt {
        config.sprt = Some(SprtParams::new(0.0, 5.0, 0.05, 0.05, SprtModel::Normalized).unwrap());
    }
    let mut facts = RunFacts::of(&config);
    facts.facts = engines
        .iter()
        .map(|name| EngineFacts {
            name: name.to_string(),
            time_control: config.time_control.clone(),
            threads: Some("1".to_string()),
            hash: Some("16".to_string()),
        })
        .collect();
    facts.book = Some("UHO_Lichess_4852_v1.epd".to_string());
    facts
}

/// The princesslana/princhess PR #343 numbers the research notes quote.
fn new_vs_base() -> PairingStats {
    let mut p = PairingStats::new("New", "Base");
    p.wdl = Wdl::new(34, 137, 29);
    p.games_wdl = p.wdl;
    p.ptnml = Pentanomial::new(1, 22, 52, 21, 4);
    p.wl_pairs = 5;
    p.dd_pairs = 47;
    p
}

#[test]
fn the_fastchess_block_is_byte_for_byte_fastchess() {
    let run = run_facts(&["New", "Base"], true);
    let block = Fastchess.results_block(&run, &[new_vs_base()], Block::Final);
    let rule = "-".repeat(50);
    assert_eq!(block[0], rule);
    assert_eq!(
        block[1],
        "Results of New vs Base (5000 nodes, 1t, 16MB, UHO_Lichess_4852_v1.epd):"
    );
    assert_eq!(block[2], "Elo: 8.69 +/- 27.04, nElo: 15.51 +/- 48.15");
    assert_eq!(
        block[3],
        "LOS: 73.60 %, DrawRatio: 52.00 %, PairsRatio: 1.09"
    );
    assert_eq!(
        block[4],
        "Games: 200, Wins: 34, Losses: 29, Draws: 137, Points: 102.5 (51.25 %)"
    );
    assert_eq!(
        block[5],
        "Ptnml(0-2): [1, 22, 52, 21, 4], WL/DD Ratio: 0.11"
    );
    assert!(block[6].starts_with("LLR: ") && block[6].ends_with(" (-2.94, 2.94) [0.00, 5.00]"));
    assert_eq!(block[7], rule);
    assert_eq!(block.len(), 8);
}

#[test]
fn by_pairs_a_block_during_the_run_counts_complete_pairs_and_the_last_every_game() {
    let run = run_facts(&["New", "Base"], true);
    let mut p = PairingStats::new("New", "Base");
    p.add_game(0, 1.0);
    p.add_game(0, 0.5);
    p.add_game(1, 0.0); // its partner is still being played
    let games_line = |block: &[String]| -> String {
        block
            .iter()
            .find(|l| l.starts_with("Games:"))
            .unwrap()
            .clone()
    };
    let during = Fastchess.results_block(&run, std::slice::from_ref(&p), Block::Interval);
    assert!(games_line(&during).starts_with("Games: 2, Wins: 1, Losses: 0, Draws: 1,"));
    assert!(during.contains(&"Unpaired games: 1 (not yet in Games or Ptnml)".to_string()));
    let last = Fastchess.results_block(&run, &[p], Block::Final);
    assert!(games_line(&last).starts_with("Games: 3, Wins: 1, Losses: 1, Draws: 1,"));
    assert!(last.contains(&"Unpaired games: 1 (in Games, not in Ptnml)".to_string()));
}

#[test]
fn without_penta_the_block_counts_games_and_has_no_ptnml_line() {
    let mut run = run_facts(&["New", "Base"], false);
    run.penta = false;
    let mut p = new_vs_base();
    p.games_wdl = Wdl::new(35, 138, 29); // one more game of each kind that is not paired
    let block = Fastchess.results_block(&run, &[p], Block::Final);
    assert_eq!(block.len(), 6, "{block:?}");
    assert!(block[3].starts_with("LOS: ") && !block[3].contains("PairsRatio"));
    assert!(block[4].starts_with("Games: 202, Wins: 35, Losses: 29, Draws: 138,"));
    assert!(!block.iter().any(|l| l.starts_with("Ptnml")));
}

#[test]
fn cutechess_lines_replace_the_block() {
    let mut run = run_facts(&["New", "Base"], true);
    run.penta = false;
    let block = Cutechess.results_block(&run, &[new_vs_base()], Block::Final);
    assert_eq!(block[0], "Score of New vs Base: 34 - 29 - 137  [0.512] 200");
    assert!(
        block[1].starts_with("Elo difference: 8.7 +/- "),
        "{block:?}"
    );
    assert!(block[1].contains(", LOS: ") && block[1].ends_with(", DrawRatio: 68.5 %"));
    assert!(
        block[2].starts_with("SPRT: llr ") && block[2].ends_with("lbound -2.94, ubound 2.94"),
        "{block:?}"
    );
    assert_eq!(block.len(), 3);
}

#[test]
fn three_engines_get_a_fastchess_ranking_table() {
    let run = run_facts(&["alpha", "beta", "gamma"], false);
    let mut ab = PairingStats::new("alpha", "beta");
    let mut ac = PairingStats::new("alpha", "gamma");
    let mut bc = PairingStats::new("beta", "gamma");
    // alpha wins both pairs, beta and gamma draw theirs.
    for (p, scores) in [
        (&mut ab, [1.0, 1.0]),
        (&mut ac, [1.0, 0.5]),
        (&mut bc, [0.5, 0.5]),
    ] {
        p.add_game(1, scores[0]);
        p.add_game(1, scores[1]);
    }
    let block = Fastchess.results_block(&run, &[ab, ac, bc], Block::Final);
    assert_eq!(
        block[1],
        format!(
            "{:<4} {:<25} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>20}",
            "Rank", "Name", "Elo", "+/-", "nElo", "+/-", "Games", "Score", "Draw", "Ptnml(0-2)"
        )
    );
    assert!(block[2].starts_with("   1 alpha      "), "{block:?}");
    assert!(block[2].ends_with("[0, 0, 0, 1, 1]"), "{block:?}");
    assert!(
        block[2].contains("       4      87.5%       0.0% "),
        "{block:?}"
    );
    let names: Vec<&str> = block[2..5]
        .iter()
        .map(|l| l.split_whitespace().nth(1).unwrap())
        .collect();
    assert_eq!(names[0], "alpha");
    assert_eq!(block.len(), 6);
}

#[test]
fn figures_have_two_decimals_and_no_negative_zero() {
    assert_eq!(fmt2(-0.001), "0.00");
    assert_eq!(fmt2(-0.0), "0.00");
    assert_eq!(fmt2(-1.234), "-1.23");
    assert_eq!(fmt2(f64::NAN), "nan");
    assert_eq!(fmt2(f64::NEG_INFINITY), "-inf");
}
