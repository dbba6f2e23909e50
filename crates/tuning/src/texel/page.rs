//! A Texel tune's `report.html`: the training and validation loss against epochs and against
//! time (history.csv), the weights that moved most (weights.toml against the weights the tune
//! started from, when that file is at hand), the tuner's own loss and piece-square pictures,
//! and the figures weights.toml's header records. While the tune trains, the page is
//! rewritten every few epochs from the epochs so far (`LiveTunePage`), then once at the end.

use crate::eval::EvalParams;
use crate::page::{self, read_optional, LineChart, Page, ReportError, Series, Table};
use std::path::Path;

/// The history file that marks a tune's directory.
pub const HISTORY_FILE: &str = "history.csv";

/// Writes `dir/report.html` for the Texel tune in `dir` (atomically).
pub fn write_tune_report(dir: &Path) -> Result<(), ReportError> {
    let html = tune_report(dir)?;
    page::write_report(dir, &html).map_err(ReportError::io(dir.join(page::REPORT_FILE)))
}

/// The tuner's end: report.html written, or the tune's output error.
pub(crate) fn write_report_for_tuner(dir: &Path) -> Result<std::path::PathBuf, super::TuneError> {
    let path = dir.join(page::REPORT_FILE);
    write_tune_report(dir).map_err(|e| super::TuneError::Output {
        file: path.display().to_string(),
        error: std::io::Error::other(e.to_string()),
    })?;
    Ok(path)
}

/// (epoch, training loss, validation loss, seconds) of history.csv.
type Epoch = (f64, f64, Option<f64>, f64);

/// Epochs between rewrites of the page under way at least; at most a fiftieth of the epochs.
const REPORT_EVERY_EPOCHS: usize = 10;

/// The page of a tune under way: rewritten after epoch 0, then every few epochs (further
/// apart as the tune goes on), from the epochs so far; the final page replaces it. Both tuners
/// use it: `texel::run` itself, and the front end of `texel::any::run` (whose directory the
/// front end chooses).
pub struct LiveTunePage {
    dir: std::path::PathBuf,
    /// The most epochs the tune runs.
    epochs: usize,
    history: Vec<Epoch>,
    next: usize,
    /// The first failure to write the page (training goes on; the run reports it after).
    failed: Option<super::TuneError>,
}

impl LiveTunePage {
    /// The page of the tune writing into `dir`, of at most `epochs` epochs.
    pub fn new(dir: &Path, epochs: usize) -> LiveTunePage {
        LiveTunePage {
            dir: dir.to_path_buf(),
            epochs,
            history: Vec::new(),
            next: 0,
            failed: None,
        }
    }

    /// Records an epoch; rewrites the page when it is due.
    pub fn after_epoch(&mut self, stats: &super::train::EpochStats) {
        self.history.push((
            stats.epoch as f64,
            stats.train_mse,
            stats.validation_mse,
            stats.seconds,
        ));
        if stats.epoch < self.next || stats.epoch >= self.epochs || self.failed.is_some() {
            return;
        }
        self.next = stats.epoch + REPORT_EVERY_EPOCHS.max(stats.epoch / 50);
        let html = page_of(&self.dir, &self.history, Some((stats.epoch, self.epochs)));
        let written = html.and_then(|html| {
            page::write_report(&self.dir, &html)
                .map_err(ReportError::io(self.dir.join(page::REPORT_FILE)))
        });
        if let Err(e) = written {
            self.failed = Some(super::TuneError::Output {
                file: self.dir.join(page::REPORT_FILE).display().to_string(),
                error: std::io::Error::other(e.to_string()),
            });
        }
    }

    /// The first failure to write the page, if any.
    pub fn finish(self) -> Result<(), super::TuneError> {
        self.failed.map_or(Ok(()), Err)
    }
}

fn read_history(dir: &Path) -> Result<Vec<Epoch>, ReportError> {
    let path = dir.join(HISTORY_FILE);
    let text = read_optional(&path)?.ok_or_else(|| ReportError::NotARun {
        dir: dir.to_path_buf(),
    })?;
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let mut rows = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let record = record.map_err(ReportError::bad_file(&path))?;
        let field = |k: usize| record.get(k).unwrap_or("");
        let bad = |what: &str| ReportError::BadFile {
            path: path.clone(),
            message: format!("line {}: {what} is not a number", i + 2),
        };
        let num = |k: usize, what: &str| field(k).parse::<f64>().map_err(|_| bad(what));
        let validation = match field(2) {
            "" => None,
            _ => Some(num(2, "validation_mse")?),
        };
        rows.push((
            num(0, "epoch")?,
            num(1, "train_mse")?,
            validation,
            num(3, "seconds")?,
        ));
    }
    Ok(rows)
}

/// The page of the tune in `dir`.
pub(crate) fn tune_report(dir: &Path) -> Result<String, ReportError> {
    page_of(dir, &read_history(dir)?, None)
}

/// The page of `history`; `running` is (the last epoch, the most epochs) while the tune
/// trains, when weights.toml and the tuner's pictures are not written yet (any in `dir` are
/// an earlier tune's).
fn page_of(
    dir: &Path,
    history: &[Epoch],
    running: Option<(usize, usize)>,
) -> Result<String, ReportError> {
    let mut page = Page::new("sparring: Texel tune");
    if let Some((epoch, epochs)) = running {
        page.refresh_every(15);
        page.status(&format!(
            "Running: epoch {epoch} of at most {epochs} (this page is rewritten every few epochs; weights.toml, loss.svg and pst.svg are written at the end)."
        ));
        loss_charts(&mut page, history);
        return Ok(page.finish());
    }
    let weights_path = ["weights.toml", "weights.unusable.toml"]
        .iter()
        .map(|n| dir.join(n))
        .find(|p| p.is_file());
    let header: Vec<String> = match &weights_path {
        Some(p) => read_optional(p)?
            .unwrap_or_default()
            .lines()
            .take_while(|l| l.starts_with('#'))
            .map(|l| l.trim_start_matches('#').trim().to_string())
            .filter(|l| !l.is_empty())
            .collect(),
        None => Vec::new(),
    };
    page.status(&format!(
        "{} epochs recorded in history.csv.",
        history.len()
    ));
    for line in &header {
        page.paragraph(line);
    }
    loss_charts(&mut page, history);
    moved_most(&mut page, weights_path.as_deref(), &header);
    for (file, alt) in [
        ("loss.svg", "The tuner's loss curves with the chosen epoch"),
        ("pst.svg", "The tuned piece-square tables as heat maps"),
    ] {
        if let Some(svg) = read_optional(&dir.join(file))? {
            page.svg_file(&svg, alt, &format!("{file}, as the tuner drew it."));
        }
    }
    Ok(page.finish())
}

/// The loss against epochs and against seconds.
fn loss_charts(page: &mut Page, history: &[Epoch]) {
    page.heading(2, "Loss");
    for (x_label, pick) in [("epoch", 0usize), ("seconds", 3)] {
        let x = |e: &Epoch| if pick == 0 { e.0 } else { e.3 };
        let mut series = vec![Series {
            label: "training".into(),
            points: history.iter().map(|e| (x(e), e.1)).collect(),
            band: Vec::new(),
        }];
        if history.iter().any(|e| e.2.is_some()) {
            series.push(Series {
                label: "validation".into(),
                points: history.iter().filter_map(|e| Some((x(e), e.2?))).collect(),
                band: Vec::new(),
            });
        }
        let last = history.last();
        let chart = LineChart {
            title: format!("Mean squared error against {x_label}"),
            description: format!(
                "Training loss from {} to {}{}.",
                history
                    .first()
                    .map_or("n/a".into(), |e| format!("{:.6}", e.1)),
                last.map_or("n/a".into(), |e| format!("{:.6}", e.1)),
                last.and_then(|e| e.2)
                    .map_or(String::new(), |v| format!("; validation ends at {v:.6}"))
            ),
            x_label: x_label.into(),
            y_label: "mean squared error".into(),
            series,
            marks: Vec::new(),
            rules: Vec::new(),
        };
        page.figure(
            &chart.svg(),
            &format!("Loss against {x_label} (history.csv)."),
        );
    }
}

/// The weights that moved most from where the tune started: weights.toml against the start
/// named in its header ("Started from FILE." or the built-in defaults).
fn moved_most(page: &mut Page, weights: Option<&Path>, header: &[String]) {
    page.heading(2, "Weights that moved most");
    let Some(tuned) = weights.and_then(|p| EvalParams::load(p).ok()) else {
        page.note("weights.toml is missing or unreadable: the moves of the weights are not shown.");
        return;
    };
    let start = header
        .iter()
        .find_map(|l| l.strip_prefix("Started from "))
        .map(|s| s.trim_end_matches('.'));
    let start = match start {
        Some("the built-in defaults") => Some(EvalParams::default()),
        Some("zero") | None => None,
        Some(file) => EvalParams::load(file).ok(),
    };
    let Some(start) = start else {
        page.note("The weights the tune started from are not at hand (started from zero, or the file is gone): the moves are not shown.");
        return;
    };
    let mut moves: Vec<(usize, i32, i32)> = (0..tuned.len())
        .map(|i| {
            let (a, b) = (start.get(i), tuned.get(i));
            (i, b.0 - a.0, b.1 - a.1)
        })
        .filter(|m| m.1 != 0 || m.2 != 0)
        .collect();
    if moves.is_empty() {
        page.note("No weight moved from where the tune started (it kept the starting weights).");
        return;
    }
    moves.sort_by_key(|m| (std::cmp::Reverse(m.1.abs() + m.2.abs()), m.0));
    moves.truncate(20);
    page.table(&Table {
        id: Some("moved".into()),
        caption: "The 20 weights that moved most (middlegame, endgame; centipawns)".into(),
        headers: ["weight", "start", "tuned", "change"]
            .map(String::from)
            .to_vec(),
        rows: moves
            .iter()
            .map(|&(i, dm, de)| {
                let (s, t) = (start.get(i), tuned.get(i));
                vec![
                    tuned.name(i),
                    format!("{} {}", s.0, s.1),
                    format!("{} {}", t.0, t.1),
                    format!("{dm:+} {de:+}"),
                ]
            })
            .collect(),
    });
}
