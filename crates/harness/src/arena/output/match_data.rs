//! What a match's report shows, read from the files its run directory holds (so the page of a
//! merge, of a run from before reports existed, and of a run under way are all built the same
//! way): run.toml (names, settings, the SPRT), games.csv in the order the games finished,
//! figures.csv, and summary.csv / ranking.csv / ratings.csv as written.

use super::figures::{read_figures, FiguresRows, FIGURES_FILE};
use super::pairing::{EngineFigures, PairingStats};
use crate::arena::matchmaking::manifest::{Fingerprint, MANIFEST_FILE};
use crate::board::GameResult;
use crate::page::{read_optional, ReportError};
use crate::record::{read_finished_games, FinishedGame};
use crate::stats::{EloEstimate, SprtModel, SprtParams};
use std::collections::BTreeMap;
use std::path::Path;

/// The files of a match's directory that the page reads.
pub(crate) struct MatchFiles {
    /// run.toml's entries, if the directory has one.
    pub fingerprint: Option<Fingerprint>,
    /// Every finished game, in the order games.csv lists them (the order they finished).
    pub games: Vec<FinishedGame>,
    /// figures.csv's rows: (game id, engine index, figures).
    pub figures: Vec<(u64, usize, EngineFigures)>,
    /// figures.csv has the `compliance_warnings` column (a run from before it has not).
    pub(crate) figures_have_warnings: bool,
    /// summary.csv, ranking.csv and ratings.csv as text (None: not written).
    pub summary: Option<String>,
    /// ranking.csv.
    pub ranking: Option<String>,
    /// ratings.csv.
    pub ratings: Option<String>,
}

impl MatchFiles {
    /// Reads the directory's files; `summary` and `ranking` replace the files' text when given
    /// (a run under way has them in memory only).
    pub(crate) fn read(
        dir: &Path,
        summary: Option<String>,
        ranking: Option<String>,
    ) -> Result<MatchFiles, ReportError> {
        let fingerprint =
            Fingerprint::read(dir).map_err(ReportError::bad_file(dir.join(MANIFEST_FILE)))?;
        let games_path = dir.join("games.csv");
        let games = read_finished_games(&games_path).map_err(|e| ReportError::BadFile {
            path: games_path.clone(),
            message: e.to_string(),
        })?;
        let figures_path = dir.join(FIGURES_FILE);
        let figures = match read_optional(&figures_path)? {
            Some(text) => read_figures(&text).map_err(ReportError::bad_file(figures_path))?,
            None => FiguresRows::default(),
        };
        let summary = match summary {
            Some(text) => Some(text),
            None => read_optional(&dir.join("summary.csv"))?,
        };
        let ranking = match ranking {
            Some(text) => Some(text),
            None => read_optional(&dir.join("ranking.csv"))?,
        };
        let ratings = read_optional(&dir.join(super::ratings::RATINGS_FILE))?;
        Ok(MatchFiles {
            fingerprint,
            games,
            figures: figures.rows,
            figures_have_warnings: figures.has_warnings,
            summary,
            ranking,
            ratings,
        })
    }

    /// A recorded setting of run.toml.
    pub(crate) fn setting(&self, key: &str) -> Option<&str> {
        self.fingerprint.as_ref().and_then(|f| f.get(key))
    }

    /// Engine `index`'s configured name (run.toml), or `engine <index>`.
    pub(crate) fn engine_name(&self, index: usize) -> String {
        self.setting(&format!("engine[{index}].name"))
            .map_or_else(|| format!("engine {index}"), String::from)
    }

    /// The SPRT the run was set up with, from run.toml's recorded `run.sprt.` keys.
    pub(crate) fn sprt(&self) -> Option<SprtParams> {
        let num = |k: &str| self.setting(k)?.parse::<f64>().ok();
        let model: SprtModel = self.setting("run.sprt.model")?.parse().ok()?;
        SprtParams::new(
            num("run.sprt.elo0")?,
            num("run.sprt.elo1")?,
            num("run.sprt.alpha")?,
            num("run.sprt.beta")?,
            model,
        )
        .ok()
    }

    /// The pairings as (first, second): summary.csv's rows when written, else each pair of
    /// names that met, the one configured first (or alphabetically first) as `first`.
    pub(crate) fn pairings(&self) -> Vec<(String, String)> {
        if let Some(rows) = self.summary.as_deref().and_then(summary_pairings) {
            return rows;
        }
        let order = |name: &str| {
            (0..64)
                .position(|i| self.setting(&format!("engine[{i}].name")) == Some(name))
                .unwrap_or(usize::MAX)
        };
        let mut pairs: Vec<(String, String)> = Vec::new();
        for g in &self.games {
            let (mut a, mut b) = (g.white.clone(), g.black.clone());
            if (order(&b), &b) < (order(&a), &a) {
                std::mem::swap(&mut a, &mut b);
            }
            if !pairs.contains(&(a.clone(), b.clone())) {
                pairs.push((a, b));
            }
        }
        pairs
    }
}

fn summary_pairings(text: &str) -> Option<Vec<(String, String)>> {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.ok()?;
        rows.push((record.get(0)?.to_string(), record.get(1)?.to_string()));
    }
    Some(rows)
}

/// The first engine's score in `game`, if it is a game of (first, second).
pub(crate) fn first_score(game: &FinishedGame, first: &str, second: &str) -> Option<f64> {
    let white = match game.result {
        GameResult::WhiteWins => 1.0,
        GameResult::BlackWins => 0.0,
        GameResult::Draw => 0.5,
    };
    if game.white == first && game.black == second {
        Some(white)
    } else if game.white == second && game.black == first {
        Some(1.0 - white)
    } else {
        None
    }
}

/// One point of a pairing's course: after `games` games of complete pairs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CoursePoint {
    /// Games in complete pairs so far.
    pub games: u64,
    /// The SPRT's log-likelihood ratio (None without an SPRT or while undefined).
    pub llr: Option<f64>,
    /// The Elo estimate by pairs.
    pub estimate: Option<EloEstimate>,
}

/// A pairing's LLR and Elo after each completed pair, in the order the games finished.
pub(crate) fn course(
    games: &[FinishedGame],
    first: &str,
    second: &str,
    sprt: Option<&SprtParams>,
) -> Vec<CoursePoint> {
    let mut stats = PairingStats::new(first, second);
    let mut points = Vec::new();
    let mut pairs = 0;
    for g in games {
        let Some(score) = first_score(g, first, second) else {
            continue;
        };
        stats.add_game(g.pair_id, score);
        if stats.ptnml.pairs() > pairs {
            pairs = stats.ptnml.pairs();
            points.push(CoursePoint {
                games: 2 * pairs,
                llr: sprt.and_then(|s| s.llr_ptnml(stats.ptnml).ok()),
                estimate: stats.ptnml.estimate(),
            });
        }
    }
    points
}

/// One opening's pairs in a pairing: how many, and how many the first or the second engine won
/// 2-0.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct OpeningPairs {
    /// The opening's index in the book.
    pub opening_id: usize,
    /// The position it starts from.
    pub fen: String,
    /// Complete pairs played from it.
    pub pairs: u64,
    /// Pairs the first engine won 2-0.
    pub(crate) first_swept: u64,
    /// Pairs the second engine won 2-0.
    pub(crate) second_swept: u64,
}

/// The openings of a pairing with the most pairs one engine won 2-0, most first, at most `top`.
pub(crate) fn lopsided_openings(
    games: &[FinishedGame],
    first: &str,
    second: &str,
    top: usize,
) -> Vec<OpeningPairs> {
    let mut halves: BTreeMap<u64, (usize, &str, f64, u8)> = BTreeMap::new();
    let mut openings: BTreeMap<usize, OpeningPairs> = BTreeMap::new();
    for g in games {
        let Some(score) = first_score(g, first, second) else {
            continue;
        };
        let entry = halves
            .entry(g.pair_id)
            .or_insert((g.opening_id, &g.start_fen, 0.0, 0));
        entry.2 += score;
        entry.3 += 1;
        if entry.3 == 2 {
            let (opening_id, fen, total, _) = *entry;
            let o = openings.entry(opening_id).or_insert_with(|| OpeningPairs {
                opening_id,
                fen: fen.to_string(),
                ..OpeningPairs::default()
            });
            o.pairs += 1;
            if total == 2.0 {
                o.first_swept += 1;
            } else if total == 0.0 {
                o.second_swept += 1;
            }
        }
    }
    let mut list: Vec<OpeningPairs> = openings
        .into_values()
        .filter(|o| o.first_swept + o.second_swept > 0)
        .collect();
    list.sort_by(|a, b| {
        (b.first_swept + b.second_swept)
            .cmp(&(a.first_swept + a.second_swept))
            .then(a.opening_id.cmp(&b.opening_id))
    });
    list.truncate(top);
    list
}

/// How the games ended: (kind, reason as recorded, games), most frequent first.
pub(crate) fn endings(games: &[FinishedGame]) -> Vec<(String, String, u64)> {
    let mut counts: BTreeMap<(String, String), u64> = BTreeMap::new();
    for g in games {
        let kind = match crate::record::AdjudicationRule::from_stored(&g.termination, &g.reason) {
            Some(rule) => format!("adjudication ({})", rule_name(rule)),
            None if g.termination == "normal" => "by the rules".to_string(),
            None => g.termination.clone(),
        };
        *counts.entry((kind, g.reason.clone())).or_default() += 1;
    }
    let mut list: Vec<(String, String, u64)> =
        counts.into_iter().map(|((k, r), n)| (k, r, n)).collect();
    list.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(&b.0)).then(a.1.cmp(&b.1)));
    list
}

fn rule_name(rule: crate::record::AdjudicationRule) -> &'static str {
    use crate::record::AdjudicationRule as R;
    match rule {
        R::Tablebase => "tablebase",
        R::Draw => "draw",
        R::Resign => "resign",
        R::MaxMoves => "maximal length",
    }
}

/// Each engine's per-game figures as plotted: average depth, nodes per second, milliseconds
/// per move, and the time left at the end of games on a clock (milliseconds).
#[derive(Clone, Debug, Default)]
pub(crate) struct EngineSamples {
    /// The engine's name.
    pub name: String,
    /// Per game: the average depth of its moves.
    pub depth: Vec<f64>,
    /// Per game: nodes per second.
    pub nps: Vec<f64>,
    /// Per game: milliseconds per move.
    pub(crate) move_ms: Vec<f64>,
    /// Per game on a clock: milliseconds left at its end.
    pub(crate) time_left_ms: Vec<f64>,
    /// The game totals: (time forfeits, disconnects, stalls, illegal moves).
    pub(crate) failures: [u64; 4],
    /// fastchess's compliance warnings about it (its moves, and its options when the run
    /// started).
    pub compliance_warnings: u64,
}

/// figures.csv's rows grouped by engine, in configuration order.
pub(crate) fn engine_samples(files: &MatchFiles) -> Vec<EngineSamples> {
    let count = files
        .figures
        .iter()
        .map(|(_, e, _)| e + 1)
        .max()
        .unwrap_or(0);
    let mut samples: Vec<EngineSamples> = (0..count)
        .map(|i| EngineSamples {
            name: files.engine_name(i),
            ..EngineSamples::default()
        })
        .collect();
    for (_, engine, f) in &files.figures {
        let s = &mut samples[*engine];
        if let Some(d) = f.average_depth() {
            s.depth.push(d);
        }
        if let Some(n) = f.nodes_per_second() {
            s.nps.push(n);
        }
        if let Some(t) = f.average_move_time() {
            s.move_ms.push(t.as_secs_f64() * 1000.0);
        }
        if let Some(t) = f.average_time_left() {
            s.time_left_ms.push(t.as_secs_f64() * 1000.0);
        }
        for (total, n) in
            s.failures
                .iter_mut()
                .zip([f.time_forfeits, f.disconnects, f.stalls, f.illegal_moves])
        {
            *total += n;
        }
        s.compliance_warnings += f.compliance_warnings;
    }
    samples
}
