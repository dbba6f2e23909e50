//! The run's report.html while it plays: rewritten after the first games and then every few
//! games (more apart as the run grows, so rereading games.csv stays a small share of the work),
//! and once more at the end from the files the run wrote.

use super::error::ArenaError;
use crate::arena::output::match_page::{write_match_report, LiveTables, RunState};
use crate::arena::output::pairing::{ranking, EngineFigures, PairingStats};
use crate::arena::output::report::{ranking_text, summary_text};
use crate::page::ReportError;
use crate::stats::{SprtDecision, SprtParams};
use std::path::Path;

/// Games between rewrites at least; and at most a fiftieth of the games done.
const EVERY_GAMES: u64 = 4;

/// When the report is next due.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct ReportSchedule {
    next: u64,
}

/// What the live page shows besides the directory's files.
pub(super) struct LiveState<'a> {
    pub pairings: &'a [PairingStats],
    pub sprt: Option<&'a SprtParams>,
    pub decisions: &'a [Option<SprtDecision>],
    pub names: &'a [String],
    pub figures: &'a [EngineFigures],
    pub(crate) by_pairs: bool,
    pub done: u64,
    pub total: u64,
}

impl ReportSchedule {
    /// Rewrites `dir/report.html` if it is due after `state.done` games.
    pub(super) fn after_game(&mut self, dir: &Path, state: &LiveState) -> Result<(), ArenaError> {
        if state.done < self.next {
            return Ok(());
        }
        self.next = state.done + EVERY_GAMES.max(state.done / 50);
        let io = |e: std::io::Error| ArenaError::Io {
            path: dir.display().to_string(),
            source: e,
        };
        let standings = ranking(state.names, state.pairings, state.figures, state.by_pairs);
        let tables = LiveTables {
            summary: text(summary_text(state.pairings, state.sprt, state.decisions).map_err(io)?),
            ranking: text(ranking_text(&standings, state.by_pairs).map_err(io)?),
        };
        let running = RunState::Running {
            done: state.done,
            total: state.total,
        };
        write_match_report(dir, running, Some(tables)).map_err(arena_error)
    }
}

fn text(bytes: Vec<u8>) -> String {
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The end of the run: the page from the files just written.
pub(super) fn final_report(dir: &Path) -> Result<(), ArenaError> {
    write_match_report(dir, RunState::Done, None).map_err(arena_error)
}

/// A report failure as the run's error: the files are the run's own, so any failure is I/O.
fn arena_error(e: ReportError) -> ArenaError {
    match e {
        ReportError::Io { path, source } => ArenaError::Io {
            path: path.display().to_string(),
            source,
        },
        other => ArenaError::Io {
            path: crate::page::REPORT_FILE.to_string(),
            source: std::io::Error::new(std::io::ErrorKind::InvalidData, other.to_string()),
        },
    }
}
