//! The results lines of a run, one implementation per format behind `ResultsOutput` (as
//! fastchess has one output class per `-output format=`): fastchess's blocks (`fastchess.rs`)
//! and cutechess-cli's lines (`cutechess.rs`). The per-engine figures table that ends every run
//! is sparring's own (`engine_table.rs`).

use super::cutechess::Cutechess;
use super::fastchess::Fastchess;
use sparring::arena::{
    ranking, results_heading, EngineFacts, EngineFigures, MatchConfig, PairingStats, ResultsFormat,
    Standing,
};
use sparring::stats::{JointRatings, RatingsError, SprtDecision, SprtParams};

/// Which results block is printed: one during the run (at the rating interval) or the last.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Block {
    Interval,
    Final,
}

/// What the results lines say about the run besides the counts.
pub(super) struct RunFacts {
    pub(super) sprt: Option<SprtParams>,
    /// Statistics by game pairs (with the `Ptnml` line) rather than by games.
    pub(super) penta: bool,
    /// The configured engine names, in order.
    pub(super) names: Vec<String>,
    /// What the heading says about each engine (known once the engines have started).
    pub(super) facts: Vec<EngineFacts>,
    /// The opening book's file name, for the heading.
    pub(super) book: Option<String>,
}

impl RunFacts {
    pub(super) fn of(config: &MatchConfig) -> RunFacts {
        RunFacts {
            sprt: config.sprt,
            // cutechess's lines count games, as fastchess's `-output format=cutechess` does.
            penta: config.output.report_penta && config.output.format == ResultsFormat::Fastchess,
            names: config.engines.iter().map(|e| e.name.clone()).collect(),
            facts: Vec::new(),
            book: config
                .openings
                .as_ref()
                .and_then(|o| o.file.file_name())
                .map(|f| f.to_string_lossy().into_owned()),
        }
    }

    /// The heading's figures of a pairing: `8+0.08, 1t, 16MB, book.epd`.
    pub(super) fn heading(&self, p: &PairingStats) -> String {
        let facts = |name: &str| self.facts.iter().find(|f| f.name == name);
        match (facts(&p.first), facts(&p.second)) {
            (Some(a), Some(b)) => results_heading(a, b, self.book.as_deref()),
            _ => "?".to_string(),
        }
    }

    /// The SPRT and a pairing's LLR (by pairs or by games, as the block counts).
    pub(super) fn llr(&self, p: &PairingStats) -> Option<(SprtParams, f64)> {
        let sprt = self.sprt?;
        let llr = if self.penta {
            sprt.llr_ptnml(p.ptnml).ok()?
        } else {
            sprt.llr_wdl(p.games_wdl)
        };
        Some((sprt, llr))
    }

    /// The standings of three or more engines and the name column's width.
    pub(super) fn standings(&self, pairings: &[PairingStats]) -> (Vec<Standing>, usize) {
        let standings = ranking(&self.names, pairings, &[], self.penta);
        let width = standings
            .iter()
            .map(|s| s.name.chars().count())
            .max()
            .unwrap_or(0)
            .max(25);
        (standings, width)
    }
}

/// The lines one results format prints: the results block (per pairing with two engines, a
/// ranking table with more), the SPRT lines, and what follows each game and the run.
pub(super) trait ResultsOutput {
    /// The line framing a block above and below, if the format has one.
    fn rule(&self) -> Option<String>;
    /// A pairing's lines in the block, from the first engine's point of view.
    fn pairing_lines(&self, run: &RunFacts, p: &PairingStats, block: Block) -> Vec<String>;
    /// The ranking of three or more engines: each engine's Elo against the field.
    fn ranking_table(&self, run: &RunFacts, pairings: &[PairingStats]) -> Vec<String>;
    /// A pairing's LLR line; none without an SPRT.
    fn sprt_line(&self, run: &RunFacts, p: &PairingStats) -> Option<String>;
    /// The line saying an SPRT accepted a hypothesis, at the end of the run.
    fn sprt_verdict(&self, sprt: &SprtParams, decision: SprtDecision) -> String;
    /// Lines after each finished game's `Finished game` line.
    fn after_game(&self, _pairings: &[PairingStats]) -> Vec<String> {
        Vec::new()
    }
    /// Lines before the engine table at the end of the run.
    fn end_notes(&self, _run: &RunFacts, _figures: &[EngineFigures]) -> Vec<String> {
        Vec::new()
    }
    /// The joint maximum-likelihood ratings of three or more engines, after the last results
    /// block (sparring's own table in every format), or why there are none.
    fn joint_ratings(&self, ratings: &Result<JointRatings, RatingsError>) -> Vec<String> {
        match ratings {
            Ok(ratings) => crate::cli::ratings::table(ratings),
            Err(e) => vec![format!("Maximum-likelihood joint ratings: none ({e})")],
        }
    }

    /// The results block: per pairing with two engines, a ranking table with more.
    fn results_block(
        &self,
        run: &RunFacts,
        pairings: &[PairingStats],
        block: Block,
    ) -> Vec<String> {
        let mut lines: Vec<String> = self.rule().into_iter().collect();
        let table = run.names.len() >= 3;
        if table {
            lines.extend(self.ranking_table(run, pairings));
        }
        for p in pairings {
            if !table {
                lines.extend(self.pairing_lines(run, p, block));
            }
            lines.extend(self.sprt_line(run, p));
        }
        lines.extend(self.rule());
        lines
    }
}

/// The output of a results format.
pub(super) fn output_for(format: ResultsFormat) -> Box<dyn ResultsOutput> {
    match format {
        ResultsFormat::Fastchess => Box::new(Fastchess),
        ResultsFormat::Cutechess => Box::new(Cutechess),
    }
}

/// `2.35`, `nan`, `inf`, as the results block prints figures.
pub(super) fn fmt2(v: f64) -> String {
    if v.is_nan() {
        "nan".to_string()
    } else if v.is_infinite() {
        if v > 0.0 { "inf" } else { "-inf" }.to_string()
    } else {
        sparring::stats::fixed(v, 2)
    }
}

/// `12.3`, `nan`: one decimal.
pub(super) fn fmt1(v: f64) -> String {
    if v.is_finite() {
        sparring::stats::fixed(v, 1)
    } else {
        fmt2(v)
    }
}

/// `12`, `nan`: no decimals.
pub(super) fn fmt0(v: f64) -> String {
    if v.is_finite() {
        sparring::stats::fixed(v, 0)
    } else {
        fmt2(v)
    }
}

/// `{:>width}` of a figure with two decimals (`nan`, `inf` as fastchess prints them).
pub(super) fn cell(v: f64, width: usize) -> String {
    format!("{:>width$}", fmt2(v))
}

/// `87.5%` in `width` columns before the sign; `nan%` without a value.
pub(super) fn percent(v: Option<f64>, width: usize) -> String {
    format!("{:>width$}%", fmt1(v.map_or(f64::NAN, |v| 100.0 * v)))
}

#[cfg(test)]
mod tests;
