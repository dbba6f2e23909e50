//! A match's `report.html`: the ranking and summary exactly as their CSV files hold them, the
//! SPRT's LLR and the Elo estimate against games, the openings that decided pairs, how games
//! ended, and each engine's depth, speed, time per move and time left. Written while the run
//! plays (every few games) and at its end; `sparring report DIR` rebuilds it from the files.

use super::match_data::{
    course, endings, engine_samples, lopsided_openings, EngineSamples, MatchFiles,
};
use crate::page::{self, Histogram, LineChart, Page, ReportError, Rule, Series, Table};
use std::path::Path;

/// Where the run stands, as the page's heading says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunState {
    /// Still playing: `done` of `total` games finished.
    Running {
        /// Games finished.
        done: u64,
        /// Games scheduled.
        total: u64,
    },
    /// Over (or read back later): the directory's files are final.
    Done,
}

/// The tables a run under way holds in memory only: summary.csv's and ranking.csv's text.
#[derive(Clone, Debug, Default)]
pub struct LiveTables {
    /// What summary.csv would hold now.
    pub summary: String,
    /// What ranking.csv would hold now.
    pub ranking: String,
}

/// Writes `dir/report.html` for the match in `dir` (atomically).
pub fn write_match_report(
    dir: &Path,
    state: RunState,
    live: Option<LiveTables>,
) -> Result<(), ReportError> {
    let html = match_report(dir, state, live)?;
    page::write_report(dir, &html).map_err(ReportError::io(dir.join(page::REPORT_FILE)))
}

/// The page of the match in `dir`.
pub(crate) fn match_report(
    dir: &Path,
    state: RunState,
    live: Option<LiveTables>,
) -> Result<String, ReportError> {
    let (summary, ranking) = live.map_or((None, None), |l| (Some(l.summary), Some(l.ranking)));
    let files = MatchFiles::read(dir, summary, ranking)?;
    let pairings = files.pairings();
    let title = match pairings.as_slice() {
        [(a, b)] => format!("sparring: {a} vs {b}"),
        _ => format!(
            "sparring: {} engines",
            files.setting("engines").unwrap_or("")
        ),
    };
    let mut page = Page::new(&title);
    if let RunState::Running { .. } = state {
        page.refresh_every(15);
    }
    page.status(&match state {
        RunState::Running { done, total } => {
            format!("Running: {done} of {total} games finished (this page is rewritten every few games).")
        }
        RunState::Done if files.summary.is_some() => {
            format!("Finished: {} games.", files.games.len())
        }
        RunState::Done => format!(
            "{} games finished; summary.csv was not written (the run stopped early or is still under way).",
            files.games.len()
        ),
    });
    settings(&mut page, &files);
    tables(&mut page, &files)?;
    sprt_and_elo(&mut page, &files, &pairings);
    openings(&mut page, &files, &pairings);
    endings_section(&mut page, &files);
    engines(&mut page, &files);
    Ok(page.finish())
}

fn settings(page: &mut Page, files: &MatchFiles) {
    let keys = [
        ("tournament.kind", "kind"),
        ("time_control", "time control"),
        ("openings.file", "openings"),
        ("tournament.rounds", "rounds"),
        ("tournament.seed", "seed"),
        ("run.sparring_version", "sparring version"),
    ];
    let mut facts: Vec<(String, String)> = keys
        .iter()
        .filter_map(|(k, name)| files.setting(k).map(|v| (name.to_string(), v.to_string())))
        .collect();
    if let Some(sprt) = files.sprt() {
        facts.push((
            "SPRT".to_string(),
            format!(
                "elo0 {}, elo1 {}, alpha {}, beta {}, {} model",
                sprt.elo0(),
                sprt.elo1(),
                sprt.alpha(),
                sprt.beta(),
                sprt.model()
            ),
        ));
    }
    if files.fingerprint.is_none() {
        page.note("This directory has no run.toml (a run from before fingerprints): settings and engine names are not known.");
    } else {
        page.facts(&facts);
    }
}

fn tables(page: &mut Page, files: &MatchFiles) -> Result<(), ReportError> {
    page.heading(2, "Ranking");
    for (id, caption, text, file) in [
        ("ranking", "ranking.csv: one row per engine", &files.ranking, "ranking.csv"),
        ("summary", "summary.csv: one row per pairing, from the first engine's side (pairs: the pentanomial counts)", &files.summary, "summary.csv"),
        ("ratings", "ratings.csv: the joint ratings", &files.ratings, "ratings.csv"),
    ] {
        match text {
            Some(text) => {
                let table = Table::from_csv(id, caption, text)
                    .map_err(ReportError::bad_file(Path::new(file)))?;
                page.table(&table);
            }
            None if id == "ratings" => {}
            None => page.note(&format!("{file} is not written yet: it is written when the run ends.")),
        }
    }
    Ok(())
}

fn sprt_and_elo(page: &mut Page, files: &MatchFiles, pairings: &[(String, String)]) {
    let sprt = files.sprt();
    page.heading(
        2,
        if sprt.is_some() {
            "SPRT and Elo against games"
        } else {
            "Elo against games"
        },
    );
    for (index, (first, second)) in pairings.iter().enumerate() {
        let points = course(&files.games, first, second, sprt.as_ref());
        let Some(last) = points.last() else {
            page.note(&format!("{first} vs {second}: no complete game pair yet."));
            continue;
        };
        if let Some(sprt) = &sprt {
            let decision = summary_cell(files, index, "decision").unwrap_or_else(|| {
                last.llr
                    .map_or("n/a".into(), |l| sprt.decision(l).to_string())
            });
            let llr_text = last.llr.map_or("n/a".to_string(), |l| format!("{l:.4}"));
            let chart = LineChart {
                title: format!("LLR of {first} vs {second}"),
                description: format!(
                    "The log-likelihood ratio after each completed pair, ending at {llr_text} after {} games; bounds {:.4} and {:.4}; decision: {decision}.",
                    last.games, sprt.lower_bound(), sprt.upper_bound()
                ),
                x_label: "games".into(),
                y_label: "LLR".into(),
                series: vec![Series {
                    label: "LLR".into(),
                    points: points.iter().filter_map(|p| Some((p.games as f64, p.llr?))).collect(),
                    band: Vec::new(),
                }],
                marks: Vec::new(),
                rules: vec![
                    Rule { label: format!("upper bound {:.2} (H1)", sprt.upper_bound()), y: sprt.upper_bound() },
                    Rule { label: format!("lower bound {:.2} (H0)", sprt.lower_bound()), y: sprt.lower_bound() },
                ],
            };
            page.figure(
                &chart.svg(),
                &format!(
                    "LLR {llr_text} after {} games (bounds {:.2}, {:.2}): {decision}.",
                    last.games,
                    sprt.lower_bound(),
                    sprt.upper_bound()
                ),
            );
        }
        let est = last.estimate;
        let elo_text = est.map_or("n/a".to_string(), |e| {
            format!("{:.2} ± {:.2}", e.elo, e.elo_error)
        });
        let chart = LineChart {
            title: format!("Elo of {first} against {second}"),
            description: format!(
                "The Elo estimate by game pairs with its 95 % interval, ending at {elo_text} after {} games.",
                last.games
            ),
            x_label: "games".into(),
            y_label: "Elo".into(),
            series: vec![Series {
                label: "Elo (95 % band)".into(),
                points: points.iter().filter_map(|p| Some((p.games as f64, p.estimate?.elo))).collect(),
                band: points
                    .iter()
                    .filter_map(|p| {
                        let e = p.estimate?;
                        Some((p.games as f64, e.elo - e.elo_error, e.elo + e.elo_error))
                    })
                    .collect(),
            }],
            marks: Vec::new(),
            rules: vec![Rule { label: "0".into(), y: 0.0 }],
        };
        page.figure(
            &chart.svg(),
            &format!(
                "Elo {elo_text} after {} games (an interval without finite ends is not drawn).",
                last.games
            ),
        );
    }
}

/// Pairing `index`'s value of summary.csv's `column`.
fn summary_cell(files: &MatchFiles, index: usize, column: &str) -> Option<String> {
    let mut reader = csv::Reader::from_reader(files.summary.as_deref()?.as_bytes());
    let at = reader.headers().ok()?.iter().position(|h| h == column)?;
    let record = reader.records().nth(index)?.ok()?;
    record.get(at).map(String::from)
}

fn openings(page: &mut Page, files: &MatchFiles, pairings: &[(String, String)]) {
    page.heading(2, "Openings that decided pairs");
    for (first, second) in pairings {
        let list = lopsided_openings(&files.games, first, second, 10);
        if list.is_empty() {
            page.note(&format!("{first} vs {second}: no opening gave a 2-0 pair."));
            continue;
        }
        page.table(&Table {
            id: None,
            caption: format!(
                "{first} vs {second}: the openings with the most pairs won 2-0 (at most 10)"
            ),
            headers: vec![
                "opening".into(),
                "pairs".into(),
                format!("{first} 2-0"),
                format!("{second} 2-0"),
                "start position".into(),
            ],
            rows: list
                .iter()
                .map(|o| {
                    vec![
                        o.opening_id.to_string(),
                        o.pairs.to_string(),
                        o.first_swept.to_string(),
                        o.second_swept.to_string(),
                        o.fen.clone(),
                    ]
                })
                .collect(),
        });
    }
}

fn endings_section(page: &mut Page, files: &MatchFiles) {
    page.heading(2, "How games ended");
    page.table(&Table {
        id: Some("endings".into()),
        caption: "Games by how they ended (games.csv's termination and reason)".into(),
        headers: vec!["kind".into(), "reason".into(), "games".into()],
        rows: endings(&files.games)
            .into_iter()
            .map(|(k, r, n)| vec![k, r, n.to_string()])
            .collect(),
    });
    let samples = engine_samples(files);
    page.table(&Table {
        id: Some("failures".into()),
        caption: "Failures by engine (figures.csv)".into(),
        headers: [
            "engine",
            "time forfeits",
            "crashes (disconnects)",
            "stalls",
            "illegal moves",
        ]
        .map(String::from)
        .to_vec(),
        rows: samples
            .iter()
            .map(|s| {
                let mut row = vec![s.name.clone()];
                row.extend(s.failures.iter().map(u64::to_string));
                row
            })
            .collect(),
    });
    compliance_table(page, files, &samples);
}

/// fastchess's compliance warnings per engine, from figures.csv's `compliance_warnings`.
fn compliance_table(page: &mut Page, files: &MatchFiles, samples: &[EngineSamples]) {
    if !files.figures_have_warnings {
        page.note("Compliance warnings are not recorded in this directory: its figures.csv is missing or was written by a sparring from before they were kept.");
        return;
    }
    page.table(&Table {
        id: Some("compliance".into()),
        caption: "Compliance warnings by engine (figures.csv; the engine log has each)".into(),
        headers: vec!["engine".into(), "compliance warnings".into()],
        rows: samples
            .iter()
            .map(|s| vec![s.name.clone(), s.compliance_warnings.to_string()])
            .collect(),
    });
}

fn engines(page: &mut Page, files: &MatchFiles) {
    page.heading(2, "Engines: depth, speed and time");
    let samples = engine_samples(files);
    if samples.is_empty() {
        page.note("figures.csv is missing or empty: per-game engine figures are not recorded.");
        return;
    }
    type Pick = fn(&super::match_data::EngineSamples) -> &Vec<f64>;
    let charts: [(&str, &str, &str, Pick); 4] = [
        ("depth", "Average depth per game", "depth (plies)", |s| {
            &s.depth
        }),
        (
            "nps",
            "Nodes per second per game",
            "nodes per second",
            |s| &s.nps,
        ),
        (
            "movetime",
            "Time per move per game",
            "milliseconds per move",
            |s| &s.move_ms,
        ),
        (
            "timeleft",
            "Time left at the end of games",
            "milliseconds left on the clock",
            |s| &s.time_left_ms,
        ),
    ];
    for (id, title, unit, pick) in charts {
        let groups: Vec<(String, Vec<f64>)> = samples
            .iter()
            .map(|s| (s.name.clone(), pick(s).clone()))
            .collect();
        let medians: Vec<String> = groups
            .iter()
            .map(|(n, v)| {
                format!(
                    "{n}: median {}",
                    median(v).map_or("n/a".into(), page::label)
                )
            })
            .collect();
        let histogram = Histogram {
            id: id.to_string(),
            title: title.to_string(),
            description: format!(
                "{title} ({unit}), one count per game and engine; {}.",
                medians.join("; ")
            ),
            x_label: unit.to_string(),
            groups,
            bins: 20,
            ..Histogram::default()
        };
        match histogram.svg() {
            Some(svg) => page.figure(&svg, &format!("{title}: {}.", medians.join("; "))),
            None if id == "timeleft" => page.note("Time left at the end of games is not recorded: no game was played on a clock (node, depth or per-move limits)."),
            None => page.note(&format!("{title}: not recorded in figures.csv.")),
        }
    }
}

fn median(values: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    Some(v[v.len() / 2])
}
