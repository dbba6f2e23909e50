//! `sparring report DIR`: (re)writes DIR/report.html from the files a run directory holds: a
//! match or SPRT (also a merge of shards, and a run from before reports existed), a Texel tune,
//! an SPSA run, the self-play loop, or datagen. The kind is told by the files.

use sparring::arena::{write_match_report, RunState};
use sparring::page::ReportError;
use std::path::{Path, PathBuf};

/// `sparring report`: write a run directory's report.html.
#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// The run directory (what `match`, `merge`, `tune`, `spsa`, `loop` or `datagen` wrote).
    pub dir: PathBuf,
}

/// The kinds of run directory, by the files that mark them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RunKind {
    Loop,
    Spsa,
    Tune,
    Match,
    Datagen,
}

/// What kind of run `dir` holds.
fn run_kind(dir: &Path) -> Option<RunKind> {
    let has = |name: &str| dir.join(name).is_file();
    // Most particular first: an SPSA directory also holds a state.toml, as datagen's does.
    if has(sparring::ladder::GENERATIONS_FILE) {
        Some(RunKind::Loop)
    } else if has("trajectory.csv") {
        Some(RunKind::Spsa)
    } else if has(sparring::texel::HISTORY_FILE) {
        Some(RunKind::Tune)
    } else if has("games.csv") || has("summary.csv") {
        Some(RunKind::Match)
    } else if has(sparring::datagen::STATE_FILE) {
        Some(RunKind::Datagen)
    } else {
        None
    }
}

/// `sparring report`.
pub fn run(args: &ReportArgs) -> anyhow::Result<()> {
    let dir = &args.dir;
    let kind = run_kind(dir).ok_or_else(|| ReportError::NotARun { dir: dir.clone() })?;
    match kind {
        RunKind::Loop => sparring::ladder::write_loop_report(dir)?,
        RunKind::Spsa => sparring::spsa::write_spsa_report(dir)?,
        RunKind::Tune => sparring::texel::write_tune_report(dir)?,
        RunKind::Match => write_match_report(dir, RunState::Done, None)?,
        RunKind::Datagen => sparring::datagen::write_datagen_report(dir)?,
    }
    outln!("Wrote {}", dir.join(sparring::page::REPORT_FILE).display())?;
    Ok(())
}
