//! The self-play loop's `report.html`: the ladder (ladder.svg, as the loop draws it) and
//! generations.csv as a table: each generation's games, tune, gate verdict and anchor results.
//! Each generation's directory holds its own gate's match with its own report.html.

use crate::page::{self, read_optional, Page, ReportError, Table};
use std::path::Path;

/// Writes `dir/report.html` for the loop in `dir` (atomically).
pub fn write_loop_report(dir: &Path) -> Result<(), ReportError> {
    let html = loop_report(dir)?;
    page::write_report(dir, &html).map_err(ReportError::io(dir.join(page::REPORT_FILE)))
}

/// The page of the loop in `dir`.
pub(crate) fn loop_report(dir: &Path) -> Result<String, ReportError> {
    let path = dir.join(super::GENERATIONS_FILE);
    let text = read_optional(&path)?.ok_or_else(|| ReportError::NotARun {
        dir: dir.to_path_buf(),
    })?;
    let table = Table::from_csv(
        "generations",
        "generations.csv: one row per finished generation",
        &text,
    )
    .map_err(ReportError::bad_file(&path))?;
    let mut page = Page::new("sparring: self-play loop");
    page.status(&format!("{} generations finished.", table.rows.len()));
    page.heading(2, "Ladder");
    match read_optional(&dir.join("ladder.svg"))? {
        Some(svg) => page.svg_file(
            &svg,
            "The ladder: each generation's gate result and the champion's anchor results",
            "ladder.svg, as the loop drew it.",
        ),
        None => page.note("ladder.svg is not in this directory."),
    }
    page.heading(2, "Generations");
    page.table(&table);
    page.note("Each generation's directory (gen-N) holds its gate's and anchors' matches, each with its own report.html.");
    Ok(page.finish())
}

/// The loop's writer: report.html rewritten, or the loop's I/O error.
pub(super) fn refresh(dir: &Path) -> Result<(), super::LoopError> {
    write_loop_report(dir).map_err(|e| super::LoopError::Io {
        path: dir.join(page::REPORT_FILE),
        source: std::io::Error::other(e.to_string()),
    })
}
