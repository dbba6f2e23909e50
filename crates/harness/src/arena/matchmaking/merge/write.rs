//! Writing a merge: the output directory is checked first, the merged files are assembled in
//! game-id order and written into a staging directory beside it, which then takes its place.

use super::collect::ShardFiles;
use super::error::MergeError;
use super::io;
use super::manifests::RunShape;
use crate::arena::matchmaking::manifest::Fingerprint;
use crate::arena::output::figures::{figures_text, FIGURES_FILE, START_WARNINGS_GAME};
use crate::arena::output::pairing::{ranking, EngineFigures, PairingStats};
use crate::arena::output::ratings::RATINGS_FILE;
use crate::arena::output::report::{write_ranking, write_ratings, write_summary};
use crate::record::bullet::{BULLET_FILE, BULLET_INDEX_FILE, BULLET_INDEX_HEADER};
use crate::record::{write_games_csv, FinishedGame};
use crate::stats::{JointRatings, RatingsError, SprtDecision};
use std::path::{Path, PathBuf};

/// The file a merge leaves in its output directory, so a later merge of the same run may
/// replace the directory (and never a directory of the user's).
pub(crate) const MERGE_MARKER: &str = "merged-by-sparring";
const MERGE_MARKER_TEXT: &str =
    "This directory was written by `sparring merge`; a new merge of the same run replaces it.\n";

/// Refuses an output directory that is one of `dirs`, or that exists and holds anything but an
/// earlier merge of the run with this fingerprint (issue 21: the user's own games.pgn was
/// replaced silently).
pub(super) fn check_output(
    out: &Path,
    dirs: &[PathBuf],
    fingerprint: &Fingerprint,
) -> Result<(), MergeError> {
    if let Ok(out_abs) = out.canonicalize() {
        if dirs
            .iter()
            .any(|d| d.canonicalize().is_ok_and(|d| d == out_abs))
        {
            return Err(MergeError::OutputIsShard {
                dir: out.to_path_buf(),
            });
        }
    }
    let in_use = |reason: &str| MergeError::OutputInUse {
        dir: out.to_path_buf(),
        reason: reason.to_string(),
    };
    match std::fs::metadata(out) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io(out)(e)),
        Ok(meta) if !meta.is_dir() => return Err(in_use("exists and is not a directory")),
        Ok(_) => {}
    }
    let empty = std::fs::read_dir(out).map_err(io(out))?.next().is_none();
    if empty {
        return Ok(());
    }
    if !out.join(MERGE_MARKER).is_file() {
        return Err(in_use("holds files that no earlier merge wrote"));
    }
    match Fingerprint::read(out) {
        Ok(Some(found)) if found == *fingerprint => Ok(()),
        _ => Err(in_use("holds the merge of another run")),
    }
}

/// The merged records' text, in game-id order, and the engines' figures over those games.
pub(super) struct MergedFiles {
    pgn: String,
    positions: String,
    bullet: String,
    bullet_index: String,
    /// Per engine (configuration order).
    pub(super) figures: Vec<EngineFigures>,
    /// figures.csv of the merged games, when every shard has one.
    figures_csv: Option<Vec<u8>>,
}

/// Assembles the merged records from `present` (every game kept, in game-id order, with the
/// files that hold it).
pub(super) fn assemble(shape: &RunShape, present: &[(&FinishedGame, &ShardFiles)]) -> MergedFiles {
    let mut merged = MergedFiles {
        pgn: String::new(),
        positions: String::new(),
        bullet: String::new(),
        bullet_index: format!("{BULLET_INDEX_HEADER}\n"),
        figures: vec![EngineFigures::default(); shape.names.len()],
        figures_csv: merged_figures_csv(shape.names.len(), present),
    };
    for (game, files) in present {
        merged.pgn.push_str(&files.pgn[&game.game_id]);
        if let Some(lines) = files.positions.get(&game.game_id) {
            merged.positions.push_str(lines);
        }
        if shape.bullet {
            let lines = files.bullet.get(&game.game_id).map_or("", String::as_str);
            merged.bullet.push_str(lines);
            merged
                .bullet_index
                .push_str(&format!("{},{}\n", game.game_id, lines.lines().count()));
        }
        for (engine, f) in files
            .figures
            .by_game
            .get(&game.game_id)
            .into_iter()
            .flatten()
        {
            if let Some(total) = merged.figures.get_mut(*engine) {
                total.add(f);
            }
        }
    }
    merged
}

/// figures.csv of the merge: the shards' rows of the present games in game-id order, after
/// the warnings found when the engines started (per engine, the most any shard found: each
/// shard started the same engines once, as the one run would). None when a shard has no
/// figures.csv (the merged figures would miss its games).
pub(super) fn merged_figures_csv(
    engines: usize,
    present: &[(&FinishedGame, &ShardFiles)],
) -> Option<Vec<u8>> {
    let mut shards: Vec<&ShardFiles> = Vec::new();
    for (_, files) in present {
        if !shards.iter().any(|s| std::ptr::eq(*s, *files)) {
            shards.push(files);
        }
    }
    let mut with_warnings = true;
    let mut start = vec![0u64; engines];
    for shard in &shards {
        with_warnings &= shard.figures.has_warnings?;
        for (engine, f) in &shard.figures.start_warnings {
            if let Some(most) = start.get_mut(*engine) {
                *most = (*most).max(f.compliance_warnings);
            }
        }
    }
    let start: Vec<(usize, EngineFigures)> = start
        .iter()
        .enumerate()
        .filter(|(_, &n)| n > 0)
        .map(|(engine, &n)| {
            let f = EngineFigures {
                compliance_warnings: n,
                ..EngineFigures::default()
            };
            (engine, f)
        })
        .collect();
    let start_rows = start
        .iter()
        .map(|(engine, f)| (START_WARNINGS_GAME, *engine, f));
    let game_rows = present.iter().flat_map(|(game, files)| {
        let rows = files.figures.by_game.get(&game.game_id);
        rows.into_iter()
            .flatten()
            .map(move |(engine, f)| (game.game_id, *engine, f))
    });
    Some(figures_text(start_rows.chain(game_rows), with_warnings))
}

/// What the merge writes besides the records: the games and their statistics.
pub(super) struct Results<'a> {
    /// The merged games, in game-id order (games.csv).
    pub(super) games: &'a [FinishedGame],
    /// The pairings' statistics over them.
    pub(super) pairings: &'a [PairingStats],
    /// The verdicts summary.csv shows (None: no verdict yet).
    pub(super) decided: &'a [Option<SprtDecision>],
    /// The joint ratings (three or more engines), for ratings.csv.
    pub(super) ratings: Option<&'a Result<JointRatings, RatingsError>>,
    /// The run's fingerprint without a shard or wave.
    pub(super) fingerprint: &'a Fingerprint,
}

/// Writes the merge into a staging directory beside `out` that then takes its place, so an
/// earlier merge is replaced whole or not at all.
pub(super) fn write_merge(
    out: &Path,
    shape: &RunShape,
    merged: &MergedFiles,
    results: &Results<'_>,
) -> Result<(), MergeError> {
    let staging = sibling(out, "merging");
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staging).map_err(io(&staging))?;
    let dir = staging.as_path();
    replace_file(&dir.join(&shape.pgn_name), merged.pgn.as_bytes())?;
    let mut csv = Vec::new();
    let csv_path = dir.join("games.csv");
    write_games_csv(&mut csv, results.games).map_err(io(&csv_path))?;
    replace_file(&csv_path, &csv)?;
    if shape.positions {
        replace_file(&dir.join("positions.epd"), merged.positions.as_bytes())?;
    }
    if shape.bullet {
        replace_file(&dir.join(BULLET_FILE), merged.bullet.as_bytes())?;
        replace_file(&dir.join(BULLET_INDEX_FILE), merged.bullet_index.as_bytes())?;
    }
    write_summary(dir, results.pairings, shape.sprt.as_ref(), results.decided)
        .map_err(io(&dir.join("summary.csv")))?;
    let standings = ranking(
        &shape.names,
        results.pairings,
        &merged.figures,
        shape.by_pairs,
    );
    write_ranking(dir, &standings, shape.by_pairs).map_err(io(&dir.join("ranking.csv")))?;
    write_ratings(dir, results.ratings).map_err(io(&dir.join(RATINGS_FILE)))?;
    if let Some(figures) = &merged.figures_csv {
        replace_file(&dir.join(FIGURES_FILE), figures)?;
    }
    // The merged directory carries the run's fingerprint, without a shard or wave: the
    // unsharded run's run.toml; the marker says a merge wrote it (so a rerun may replace it).
    results.fingerprint.write(dir)?;
    replace_file(&dir.join(MERGE_MARKER), MERGE_MARKER_TEXT.as_bytes())?;
    // The page reads the files just written, as `sparring report` would.
    let report = crate::arena::output::match_page::match_report(
        dir,
        crate::arena::output::match_page::RunState::Done,
        None,
    )
    .map_err(|e| MergeError::Io {
        path: dir.join(crate::page::REPORT_FILE),
        source: std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()),
    })?;
    replace_file(&dir.join(crate::page::REPORT_FILE), report.as_bytes())?;
    swap_into_place(&staging, out)
}

/// `dir` with a suffix, beside it: `results/merged` -> `results/merged.merging`.
fn sibling(dir: &Path, suffix: &str) -> PathBuf {
    let mut name = dir
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_else(|| "merged".into());
    name.push(format!(".{suffix}"));
    dir.with_file_name(name)
}

/// Puts the finished staging directory at `out`: the old merge (if any) is moved aside first
/// and removed last, so a failure between the renames leaves one whole merge on disk.
fn swap_into_place(staging: &Path, out: &Path) -> Result<(), MergeError> {
    let old = sibling(out, "replaced");
    let _ = std::fs::remove_dir_all(&old);
    let had_old = out.exists();
    if had_old {
        std::fs::rename(out, &old).map_err(io(out))?;
    }
    std::fs::rename(staging, out).map_err(io(out))?;
    if had_old {
        let _ = std::fs::remove_dir_all(&old);
    }
    Ok(())
}

/// Writes a file of the merge through a temporary file beside it.
fn replace_file(path: &Path, content: &[u8]) -> Result<(), MergeError> {
    crate::files::write_atomic(path, content).map_err(io(path))
}
