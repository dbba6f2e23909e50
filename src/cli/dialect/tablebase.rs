//! fastchess's tablebase adjudication options: `-tb PATH` (turns it on), `-tbpieces N`,
//! `-tbignore50` and `-tbadjudicate WIN_LOSS|DRAW|BOTH`, read into `[adjudication] tablebase`.

use super::tokens::{usage_error, Group};
use crate::cli::UsageError;
use sparring::arena::config::{TablebaseAdjudication, TablebaseResults};
use sparring::tablebase::Tablebases;
use std::path::PathBuf;

/// The tablebase options read so far.
#[derive(Default)]
pub(super) struct TablebaseSettings {
    path: Option<String>,
    pieces: Option<u32>,
    ignore_50: bool,
    results: Option<TablebaseResults>,
}

/// Reads one of the `-tb*` options; false: `g` is another option.
pub(super) fn apply(g: &Group, tb: &mut TablebaseSettings) -> Result<bool, UsageError> {
    match g.option.as_str() {
        "-tb" => tb.path = Some(g.one()?.to_string()),
        "-tbpieces" => {
            let n: u32 = g.number("a number of pieces from 0 (the largest table's) to 7")?;
            if n > 7 {
                return Err(usage_error(format!(
                    "-tbpieces {n}: Syzygy tables hold at most 7 pieces"
                )));
            }
            tb.pieces = Some(n);
        }
        "-tbignore50" => {
            g.none()?;
            tb.ignore_50 = true;
        }
        "-tbadjudicate" => {
            let text = g.one()?;
            // fastchess spells them in capitals; the TOML spelling is taken too.
            tb.results = Some(TablebaseResults::parse(text).ok_or_else(|| {
                usage_error(format!(
                    "-tbadjudicate {text}: expected WIN_LOSS, DRAW or BOTH"
                ))
            })?);
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// The adjudication the options ask for, with the tables opened; None without `-tb` (as in
/// fastchess, the other options alone turn nothing on: a note says so).
pub(super) fn build(
    tb: &TablebaseSettings,
    notes: &mut Vec<String>,
) -> Result<Option<TablebaseAdjudication>, UsageError> {
    let Some(path) = &tb.path else {
        if tb.pieces.is_some() || tb.ignore_50 || tb.results.is_some() {
            notes.push(
                "-tbpieces/-tbignore50/-tbadjudicate without -tb: no tablebase adjudication"
                    .to_string(),
            );
        }
        return Ok(None);
    };
    let tables = Tablebases::open(path).map_err(|e| usage_error(format!("-tb {path}: {e}")))?;
    Ok(Some(TablebaseAdjudication {
        path: PathBuf::from(path),
        pieces: tb.pieces.unwrap_or(0),
        ignore_50: tb.ignore_50,
        results: tb.results.unwrap_or(TablebaseResults::Both),
        tables,
    }))
}
