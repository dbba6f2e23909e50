//! fastchess's results lines (`-output format=fastchess`, the default): the blocks fishtest's
//! and OpenBench's workers parse, byte for byte.

use super::results::{cell, fmt2, percent, Block, ResultsOutput, RunFacts};
use sparring::arena::{EngineFigures, PairingStats};
use sparring::stats::{EloEstimate, SprtDecision, SprtParams};

/// fastchess's output.
pub(super) struct Fastchess;

impl ResultsOutput for Fastchess {
    fn rule(&self) -> Option<String> {
        Some("-".repeat(50))
    }

    fn pairing_lines(&self, run: &RunFacts, p: &PairingStats, block: Block) -> Vec<String> {
        let mut lines = vec![format!(
            "Results of {} vs {} ({}):",
            p.first,
            p.second,
            run.heading(p)
        )];
        // By pairs: complete pairs only; by games: every finished game.
        let (wdl, est) = if run.penta {
            (p.wdl, p.ptnml.estimate())
        } else {
            (p.games_wdl, p.games_wdl.estimate())
        };
        let get = |f: fn(&EloEstimate) -> f64| est.as_ref().map_or(f64::NAN, f);
        lines.push(format!(
            "Elo: {} +/- {}, nElo: {} +/- {}",
            fmt2(get(|e| e.elo)),
            fmt2(get(|e| e.elo_error)),
            fmt2(get(|e| e.nelo)),
            fmt2(get(|e| e.nelo_error))
        ));
        let games = wdl.games();
        if run.penta {
            let pairs = p.ptnml.pairs();
            lines.push(format!(
                "LOS: {} %, DrawRatio: {} %, PairsRatio: {}",
                fmt2(100.0 * get(|e| e.los)),
                fmt2(100.0 * p.ptnml.dd as f64 / pairs as f64),
                fmt2(p.ptnml.pairs_ratio().unwrap_or(f64::NAN))
            ));
        } else {
            lines.push(format!(
                "LOS: {} %, DrawRatio: {} %",
                fmt2(100.0 * get(|e| e.los)),
                fmt2(100.0 * wdl.draws as f64 / games as f64)
            ));
        }
        // By pairs, a block during the run counts complete pairs as fastchess's does (fishtest's
        // parser checks Games == 2 * sum(Ptnml)); the last block counts every game, the
        // unpaired ones (an odd last game, games in flight when an SPRT stopped) said below.
        let wdl = match (run.penta, block) {
            (true, Block::Interval) => p.wdl,
            _ => p.games_wdl,
        };
        let games = wdl.games();
        let points = wdl.wins as f64 + 0.5 * wdl.draws as f64;
        lines.push(format!(
            "Games: {games}, Wins: {}, Losses: {}, Draws: {}, Points: {points:.1} ({} %)",
            wdl.wins,
            wdl.losses,
            wdl.draws,
            fmt2(100.0 * points / games as f64)
        ));
        if run.penta {
            lines.push(format!(
                "Ptnml(0-2): [{}, {}, {}, {}, {}], WL/DD Ratio: {}",
                p.ptnml.ll,
                p.ptnml.ld,
                p.ptnml.dd,
                p.ptnml.wd,
                p.ptnml.ww,
                fmt2(p.wl_pairs as f64 / p.dd_pairs as f64)
            ));
            if p.unpaired_games() > 0 {
                let counted = match block {
                    Block::Interval => "not yet in Games or Ptnml",
                    Block::Final => "in Games, not in Ptnml",
                };
                lines.push(format!(
                    "Unpaired games: {} ({counted})",
                    p.unpaired_games()
                ));
            }
        }
        lines
    }

    fn ranking_table(&self, run: &RunFacts, pairings: &[PairingStats]) -> Vec<String> {
        let (standings, width) = run.standings(pairings);
        let mut lines = vec![format!(
            "{:<4} {:<width$} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>20}",
            "Rank", "Name", "Elo", "+/-", "nElo", "+/-", "Games", "Score", "Draw", "Ptnml(0-2)"
        )];
        for (rank, s) in standings.iter().enumerate() {
            let est = s.estimate(run.penta);
            let get = |f: fn(&EloEstimate) -> f64| est.as_ref().map_or(f64::NAN, f);
            let ptnml = if run.penta {
                format!(
                    "[{}, {}, {}, {}, {}]",
                    s.ptnml.ll, s.ptnml.ld, s.ptnml.dd, s.ptnml.wd, s.ptnml.ww
                )
            } else {
                String::new()
            };
            lines.push(format!(
                "{:>4} {:<width$} {} {} {} {} {:>10} {} {} {:>20}",
                rank + 1,
                s.name,
                cell(get(|e| e.elo), 10),
                cell(get(|e| e.elo_error), 10),
                cell(get(|e| e.nelo), 10),
                cell(get(|e| e.nelo_error), 10),
                s.wdl.games(),
                percent(s.wdl.score(), 9),
                percent(s.draw_ratio(run.penta), 9),
                ptnml
            ));
        }
        lines
    }

    fn sprt_line(&self, run: &RunFacts, p: &PairingStats) -> Option<String> {
        let (sprt, llr) = run.llr(p)?;
        let pct = if llr >= 0.0 {
            llr / sprt.upper_bound()
        } else {
            -llr / sprt.lower_bound()
        };
        Some(format!(
            "LLR: {:.2} ({:.1}%) ({:.2}, {:.2}) [{:.2}, {:.2}]",
            llr,
            100.0 * pct,
            sprt.lower_bound(),
            sprt.upper_bound(),
            sprt.elo0(),
            sprt.elo1()
        ))
    }

    fn sprt_verdict(&self, sprt: &SprtParams, decision: SprtDecision) -> String {
        let verdict = match decision {
            SprtDecision::AcceptH1 => "H1 was accepted",
            _ => "H0 was accepted",
        };
        format!(
            "SPRT ([{:.2}, {:.2}]) completed - {verdict}",
            sprt.elo0(),
            sprt.elo1()
        )
    }

    /// fastchess's end-of-run note, when an engine lost games on time or by crashing: a blank
    /// line, then `Player: <name>`, `  Timeouts: <n>`, `  Crashed: <n>` per engine, a blank line.
    fn end_notes(&self, run: &RunFacts, figures: &[EngineFigures]) -> Vec<String> {
        if figures
            .iter()
            .all(|f| f.time_forfeits == 0 && f.crashes() == 0)
        {
            return Vec::new();
        }
        let mut lines = vec![String::new()];
        for (name, f) in run.names.iter().zip(figures) {
            lines.push(format!("Player: {name}"));
            lines.push(format!("  Timeouts: {}", f.time_forfeits));
            lines.push(format!("  Crashed: {}", f.crashes()));
        }
        lines.push(String::new());
        lines
    }
}
