//! A datagen run's `report.html`: how far it got (state.toml), its throughput (from the files'
//! times: run.toml is written when the run starts, state.toml after each game), and the data's
//! results and piece counts (the data file read through `data::info`). Written every few games
//! while the run plays (with a refresh, so an open browser tab follows it) and at its end.

use super::run::{RUN_FILE, STATE_FILE};
use crate::data::{guess_format, info, DataInfo};
use crate::page::{self, read_optional, Histogram, Page, ReportError, Table};
use std::path::{Path, PathBuf};

/// Writes `dir/report.html` for the datagen run in `dir` (atomically).
pub fn write_datagen_report(dir: &Path) -> Result<(), ReportError> {
    let html = datagen_report(dir)?;
    page::write_report(dir, &html).map_err(ReportError::io(dir.join(page::REPORT_FILE)))
}

/// Writes the page of the run under way in `dir`: `done` of its `total` games complete.
pub(crate) fn write_running_datagen_report(
    dir: &Path,
    done: u64,
    total: u64,
) -> Result<(), ReportError> {
    let html = page_of(dir, Some((done, total)))?;
    page::write_report(dir, &html).map_err(ReportError::io(dir.join(page::REPORT_FILE)))
}

/// The data file of a datagen directory: the file whose name tells a data format.
fn data_file(dir: &Path) -> Result<Option<PathBuf>, ReportError> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(ReportError::io(dir))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && guess_format(p).is_some())
        .collect();
    files.sort();
    Ok(files.into_iter().next())
}

/// The games of the run (its shard's block) as run.toml records them, when it does.
fn planned_games(dir: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(dir.join(RUN_FILE)).ok()?;
    let run: toml::Table = text.parse().ok()?;
    let (start, end) = run.get("games.block")?.as_str()?.split_once("..")?;
    end.parse::<u64>().ok()?.checked_sub(start.parse().ok()?)
}

/// The page of the datagen run in `dir`, from its files (as its end or `sparring report` sees it).
pub(crate) fn datagen_report(dir: &Path) -> Result<String, ReportError> {
    page_of(dir, None)
}

/// The page; `running` is (games complete, games of the run) while it plays.
fn page_of(dir: &Path, running: Option<(u64, u64)>) -> Result<String, ReportError> {
    let state_path = dir.join(STATE_FILE);
    let state = read_state(dir, &state_path)?;
    let mut page = Page::new("sparring: datagen");
    status_section(&mut page, dir, &state, running);
    throughput_section(&mut page, dir, &state_path, &state);
    page.heading(2, "The data");
    data_section(&mut page, dir)?;
    Ok(page.finish())
}

/// The run's state.toml as a table; a directory without one is not a datagen run.
fn read_state(dir: &Path, state_path: &Path) -> Result<toml::Table, ReportError> {
    let state_text = read_optional(state_path)?.ok_or_else(|| ReportError::NotARun {
        dir: dir.to_path_buf(),
    })?;
    state_text
        .parse()
        .map_err(ReportError::bad_file(state_path))
}

/// A count of state.toml; 0 when the key is missing or not an integer.
fn state_count(state: &toml::Table, key: &str) -> i64 {
    state
        .get(key)
        .and_then(toml::Value::as_integer)
        .unwrap_or(0)
}

/// The status line: running, stopped short of its games (resumable), or what it wrote.
fn status_section(page: &mut Page, dir: &Path, state: &toml::Table, running: Option<(u64, u64)>) {
    let count = |k: &str| state_count(state, k);
    let (games, positions) = (count("games"), count("positions"));
    let written = format!(
        "{games} games written ({} dropped), {positions} positions, {} bytes.",
        count("dropped"),
        count("bytes")
    );
    match running {
        Some((done, total)) => {
            page.refresh_every(15);
            page.status(&format!(
                "Running: {done} of {total} games finished (this page is rewritten every few games). {written}"
            ));
        }
        None => match planned_games(dir) {
            Some(total) if (count("done") as u64) < total => page.status(&format!(
                "Stopped: {} of {total} games finished (`sparring datagen --resume` continues it). {written}",
                count("done")
            )),
            _ => page.status(&written),
        },
    }
}

/// Games and positions per second from the files' times, or a note when they are unusable.
fn throughput_section(page: &mut Page, dir: &Path, state_path: &Path, state: &toml::Table) {
    let (games, positions) = (state_count(state, "games"), state_count(state, "positions"));
    let mtime = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let elapsed = match (mtime(&dir.join(RUN_FILE)), mtime(state_path)) {
        (Some(a), Some(b)) => b.duration_since(a).ok().map(|d| d.as_secs_f64()),
        _ => None,
    };
    page.heading(2, "Throughput");
    match elapsed.filter(|s| *s > 0.0) {
        Some(s) => page.table(&Table {
            id: Some("throughput".into()),
            caption: "From run.toml's time (the start) to state.toml's (the last game); a resumed run's pauses count too".into(),
            headers: ["seconds", "games per second", "positions per second"].map(String::from).to_vec(),
            rows: vec![vec![
                format!("{s:.1}"),
                format!("{:.2}", games as f64 / s),
                format!("{:.1}", positions as f64 / s),
            ]],
        }),
        None => page.note("The run's duration is not recorded (run.toml or state.toml has no usable time): throughput is not shown."),
    }
}

/// The data file's summary and its two histograms (results, piece counts).
fn data_section(page: &mut Page, dir: &Path) -> Result<(), ReportError> {
    let Some(file) = data_file(dir)? else {
        page.note("No data file in the directory.");
        return Ok(());
    };
    // An empty file (every game dropped) or a damaged one is said, not a failed page.
    let info = match info(&file, None) {
        Ok(info) => info,
        Err(e) => {
            page.note(&format!("The data file is not shown: {e}"));
            return Ok(());
        }
    };
    let name = file
        .file_name()
        .map_or(String::new(), |n| n.to_string_lossy().into_owned());
    page.paragraph(&format!(
        "{name} ({}): {} positions.",
        info.format.name(),
        info.positions
    ));
    if let Some(svg) = results_histogram(&name, &info).svg() {
        page.figure(
            &svg,
            &format!(
                "Results: {} / {} / {} (White won / drawn / Black won).",
                info.results[0], info.results[1], info.results[2]
            ),
        );
    }
    if let Some(svg) = pieces_histogram(name, &info).svg() {
        page.figure(&svg, "Piece counts of the data's positions.");
    }
    Ok(())
}

/// Positions by game result, White won / drawn / Black won.
fn results_histogram(name: &str, info: &DataInfo) -> Histogram {
    Histogram {
        id: "results".into(),
        title: "Positions by game result".into(),
        description: format!(
            "White won {}, drawn {}, Black won {} positions.",
            info.results[0], info.results[1], info.results[2]
        ),
        x_label: "result".into(),
        y_label: "positions".into(),
        groups: vec![(name.to_string(), Vec::new())],
        binned: Some((
            ["1-0", "1/2-1/2", "0-1"].map(String::from).to_vec(),
            vec![info.results.to_vec()],
        )),
        ..Histogram::default()
    }
}

/// Positions by number of pieces on the board, kings included (2 to 32).
fn pieces_histogram(name: String, info: &DataInfo) -> Histogram {
    Histogram {
        id: "pieces".into(),
        title: "Positions by number of pieces (kings included)".into(),
        description: "How many positions have each number of pieces on the board, 2 to 32.".into(),
        x_label: "pieces".into(),
        y_label: "positions".into(),
        groups: vec![(name, Vec::new())],
        binned: Some((
            (2..=32).map(|n: usize| n.to_string()).collect(),
            vec![info.pieces[2..].to_vec()],
        )),
        ..Histogram::default()
    }
}
