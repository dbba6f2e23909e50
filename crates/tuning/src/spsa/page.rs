//! An SPSA run's `report.html`: each parameter's trajectory over its tuning range (the run's
//! trajectory.svg), the start and current values (trajectory.csv), and the games of each
//! iteration (pairs.csv: the plus side's score against the minus side's).

use crate::page::{self, read_optional, LineChart, Page, ReportError, Rule, Series, Table};
use std::collections::BTreeMap;
use std::path::Path;

/// Writes `dir/report.html` for the SPSA run in `dir` (atomically).
pub fn write_spsa_report(dir: &Path) -> Result<(), ReportError> {
    let html = spsa_report(dir)?;
    page::write_report(dir, &html).map_err(ReportError::io(dir.join(page::REPORT_FILE)))
}

/// The run's writer: report.html rewritten, or the run's I/O error.
pub(super) fn refresh(dir: &Path) -> Result<(), super::SpsaError> {
    write_spsa_report(dir).map_err(|e| super::SpsaError::Io {
        path: dir.join(page::REPORT_FILE),
        source: std::io::Error::other(e.to_string()),
    })
}

/// The page of the SPSA run in `dir`.
pub(crate) fn spsa_report(dir: &Path) -> Result<String, ReportError> {
    let path = dir.join(super::run::TRAJECTORY);
    let text = read_optional(&path)?.ok_or_else(|| ReportError::NotARun {
        dir: dir.to_path_buf(),
    })?;
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let names: Vec<String> = reader
        .headers()
        .map_err(ReportError::bad_file(&path))?
        .iter()
        .skip(1)
        .map(String::from)
        .collect();
    let mut rows: Vec<Vec<String>> = Vec::new();
    for record in reader.records() {
        rows.push(
            record
                .map_err(ReportError::bad_file(&path))?
                .iter()
                .map(String::from)
                .collect(),
        );
    }
    let mut page = Page::new("sparring: SPSA");
    page.status(&format!(
        "{} iterations finished, {} parameters.",
        rows.len().saturating_sub(1),
        names.len()
    ));
    page.heading(2, "Parameters");
    if let Some(svg) = read_optional(&dir.join(super::run::SVG))? {
        page.svg_file(
            &svg,
            "Each parameter's value against the iteration, over its tuning range, the start dashed",
            "trajectory.svg: each parameter's path within its bounds (the dashed line is its start).",
        );
    }
    let (first, last) = (rows.first(), rows.last());
    page.table(&Table {
        id: Some("parameters".into()),
        caption: "Start and current values (trajectory.csv)".into(),
        headers: ["parameter", "start", "current"].map(String::from).to_vec(),
        rows: names
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let cell = |row: Option<&Vec<String>>| {
                    row.and_then(|r| r.get(i + 1)).cloned().unwrap_or_default()
                };
                vec![n.clone(), cell(first), cell(last)]
            })
            .collect(),
    });
    games(&mut page, dir)?;
    Ok(page.finish())
}

/// The plus side's score per iteration, from pairs.csv.
fn games(page: &mut Page, dir: &Path) -> Result<(), ReportError> {
    page.heading(2, "Games");
    let path = dir.join(super::run::PAIRS);
    let Some(text) = read_optional(&path)? else {
        page.note("pairs.csv is not in this directory: the games of each iteration are not shown.");
        return Ok(());
    };
    let mut per_iteration: BTreeMap<u64, [u64; 3]> = BTreeMap::new();
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    for record in reader.records() {
        let record = record.map_err(ReportError::bad_file(&path))?;
        let num = |k: usize| record.get(k).and_then(|v| v.parse::<u64>().ok());
        // A line cut short by a kill is left out, as the run itself does.
        let (Some(it), Some(w), Some(d), Some(l)) = (num(0), num(2), num(3), num(4)) else {
            continue;
        };
        let t = per_iteration.entry(it).or_default();
        t[0] += w;
        t[1] += d;
        t[2] += l;
    }
    let totals = per_iteration
        .values()
        .fold([0u64; 3], |a, t| [a[0] + t[0], a[1] + t[1], a[2] + t[2]]);
    let score = |t: &[u64; 3]| {
        let n = (t[0] + t[1] + t[2]) as f64;
        (n > 0.0).then(|| (t[0] as f64 + 0.5 * t[1] as f64) / n)
    };
    let chart = LineChart {
        title: "Score of the plus side per iteration".into(),
        description: format!(
            "The plus-perturbed engine's score against the minus-perturbed one in each iteration; over all games {} wins, {} draws, {} losses.",
            totals[0], totals[1], totals[2]
        ),
        x_label: "iteration".into(),
        y_label: "score".into(),
        series: vec![Series {
            label: "plus side's score".into(),
            points: per_iteration.iter().filter_map(|(k, t)| Some((*k as f64, score(t)?))).collect(),
            band: Vec::new(),
        }],
        marks: Vec::new(),
        rules: vec![Rule { label: "0.5".into(), y: 0.5 }],
    };
    page.figure(
        &chart.svg(),
        &format!(
            "Plus side against minus side: {} wins, {} draws, {} losses over {} iterations.",
            totals[0],
            totals[1],
            totals[2],
            per_iteration.len()
        ),
    );
    Ok(())
}
