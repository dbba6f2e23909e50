//! cutechess-cli's results lines (`-output format=cutechess`, and the `cutechess-cli` name):
//! the running `Score of` line after every game, `Elo difference`, the SPRT line.

use super::results::{fmt0, fmt1, percent, Block, ResultsOutput, RunFacts};
use sparring::arena::{general_format, PairingStats};
use sparring::stats::{EloEstimate, SprtDecision, SprtParams};

/// cutechess-cli's output.
pub(super) struct Cutechess;

/// cutechess-cli's `Score of A vs B: W - L - D  [0.500] N`, over every finished game.
pub(super) fn score_line(p: &PairingStats) -> String {
    let w = p.games_wdl;
    format!(
        "Score of {} vs {}: {} - {} - {}  [{:.3}] {}",
        p.first,
        p.second,
        w.wins,
        w.losses,
        w.draws,
        w.score().unwrap_or(f64::NAN),
        w.games()
    )
}

impl ResultsOutput for Cutechess {
    fn rule(&self) -> Option<String> {
        None
    }

    /// Every finished game, one decimal.
    fn pairing_lines(&self, _run: &RunFacts, p: &PairingStats, _block: Block) -> Vec<String> {
        let est = p.games_wdl.estimate();
        let get = |f: fn(&EloEstimate) -> f64| est.as_ref().map_or(f64::NAN, f);
        let games = p.games_wdl.games();
        vec![
            score_line(p),
            format!(
                "Elo difference: {} +/- {}, LOS: {} %, DrawRatio: {} %",
                fmt1(get(|e| e.elo)),
                fmt1(get(|e| e.elo_error)),
                fmt1(100.0 * get(|e| e.los)),
                fmt1(100.0 * p.games_wdl.draws as f64 / games as f64)
            ),
        ]
    }

    fn ranking_table(&self, run: &RunFacts, pairings: &[PairingStats]) -> Vec<String> {
        let (standings, width) = run.standings(pairings);
        let mut lines = vec![format!(
            "{:>4} {:<width$} {:>7} {:>7} {:>7} {:>7} {:>7}",
            "Rank", "Name", "Elo", "+/-", "Games", "Score", "Draw"
        )];
        for (rank, s) in standings.iter().enumerate() {
            let est = s.wdl.estimate();
            let get = |f: fn(&EloEstimate) -> f64| est.as_ref().map_or(f64::NAN, f);
            lines.push(format!(
                "{:>4} {:<width$} {:>7} {:>7} {:>7} {} {}",
                rank + 1,
                s.name,
                fmt0(get(|e| e.elo)),
                fmt0(get(|e| e.elo_error)),
                s.wdl.games(),
                percent(s.wdl.score(), 6),
                percent(s.draw_ratio(false), 6)
            ));
        }
        lines
    }

    fn sprt_line(&self, run: &RunFacts, p: &PairingStats) -> Option<String> {
        let (sprt, llr) = run.llr(p)?;
        let verdict = match sprt.decision(llr) {
            SprtDecision::AcceptH1 => " - H1 was accepted",
            SprtDecision::AcceptH0 => " - H0 was accepted",
            SprtDecision::Continue => "",
        };
        Some(format!(
            "SPRT: llr {} ({:.1}%), lbound {}, ubound {}{verdict}",
            general_format(llr, 3),
            100.0 * llr / sprt.upper_bound(),
            general_format(sprt.lower_bound(), 3),
            general_format(sprt.upper_bound(), 3)
        ))
    }

    fn sprt_verdict(&self, _sprt: &SprtParams, _decision: SprtDecision) -> String {
        "Tournament finished".to_string()
    }

    /// cutechess-cli's running score of a two-player event, after every game.
    fn after_game(&self, pairings: &[PairingStats]) -> Vec<String> {
        match pairings {
            [p] => vec![score_line(p)],
            _ => Vec::new(),
        }
    }
}
