//! Merging the directories of a sharded run (`sparring match --shard I/N`) into the files the
//! unsharded run writes: games.pgn, games.csv, positions.epd, summary.csv, ranking.csv (and
//! with three or more engines ratings.csv), in game-id order. The game texts are copied as the shards wrote them; the statistics are
//! computed again from the merged games, so they are what one run over the same games reports.
//!
//! A shard also writes `figures.csv` (what each engine did in each game: moves, depth, nodes,
//! thinking time), so the merged ranking's per-engine figures cover every game; the merge
//! writes the shards' rows of its games as its own figures.csv, in game-id order.
//!
//! The directories of a run played in waves (`--wave K`, each wave whole or sharded) merge the
//! same way; the SPRT is then read at the end of each complete wave, and the first wave end at
//! which it decided makes the merge the run's complete result (`MergeReport::verdict`).
//!
//! `manifests` reads and checks the directories' `run.toml`, `collect` reads their games in
//! schedule order and finds what is missing, `waves` computes the statistics and the SPRT at
//! wave ends, and `write` checks the output directory and writes the merge into it.

mod collect;
mod error;
mod manifests;
#[cfg(test)]
mod tests;
mod waves;
mod write;

use super::manifest::MANIFEST_FILE;
use super::schedule::Wave;
use crate::arena::matchmaking::manifest::Fingerprint;
use crate::arena::output::pairing::{EngineFigures, PairingStats};
use crate::arena::output::ratings::{rated_games, run_ratings};
use crate::record::FinishedGame;
use crate::stats::{JointRatings, RatingsError, SprtDecision, SprtParams};
use collect::{collect, Collected, ShardFiles};
pub use error::{MergeError, MissingGames};
use manifests::{read_manifests, Given, RunShape};
use std::path::{Path, PathBuf};
use waves::{all_decided, merged_decisions, pairing_stats, read_wave_ends, WaveEnds};
use write::{assemble, check_output, write_merge, Results};

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> MergeError + '_ {
    move |source| MergeError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// How to merge.
#[derive(Clone, Debug, Default)]
pub struct MergeOptions {
    /// Merge what is there when games are missing (the report names them).
    pub partial: bool,
}

/// What a merge wrote and found.
pub struct MergeReport {
    /// One entry per pairing, over the merged games.
    pub pairings: Vec<PairingStats>,
    /// The SPRT the run was configured with, if any.
    pub sprt: Option<SprtParams>,
    /// Per pairing: the SPRT's verdict on the merged pairs (`Some(Continue)` when undecided);
    /// for waves still going, the verdict at the end of the last complete wave.
    pub decisions: Vec<Option<SprtDecision>>,
    /// Per engine (configuration order): figures over the merged games.
    pub figures: Vec<EngineFigures>,
    /// The engines' names.
    pub names: Vec<String>,
    /// With three or more engines, their joint ratings over the merged games (ratings.csv), or
    /// why there are none.
    pub ratings: Option<Result<JointRatings, RatingsError>>,
    /// Games merged.
    pub games: u64,
    /// Games of the whole run.
    pub total_games: u64,
    /// What is missing (empty unless `partial`, or when the SPRT stopped a run of waves).
    pub missing: Vec<MissingGames>,
    /// The wave size, for a run played in waves.
    pub wave_pairs: Option<u64>,
    /// A run of waves whose SPRT decided at the end of this wave (every pairing decided on the
    /// pairs of waves 0 to it): the merge is the complete result, those waves' games.
    pub stopped_after_wave: Option<u64>,
    /// A run of waves not decided yet: the first wave that is not complete (the one to play
    /// next), if the run has one.
    pub next_wave: Option<u64>,
    /// Games present in waves after the one the SPRT stopped at (left out of the result).
    pub ignored_games: u64,
    /// Directories given that hold no run yet (no `run.toml`, no games.csv): left out.
    pub not_started: Vec<PathBuf>,
    /// The sparring versions that played the shards, when they differ.
    pub versions: Vec<String>,
    /// Whether positions were recorded in positions.epd (written).
    pub positions: bool,
    /// Whether positions were recorded in positions.bullet (written, with its index).
    pub bullet: bool,
    /// The PGN file's name.
    pub pgn_name: String,
}

impl MergeReport {
    /// The verdict line for scripts, when the run has an SPRT (docs/scale-out.md, "SPRT in
    /// waves"): `verdict: ` and then `H1 accepted`, `H0 accepted` or `decided` (several
    /// pairings, not all alike), followed for a run of waves by ` (stopped by SPRT after wave
    /// K)`; or `continue with wave K` (waves: undecided, wave K is the first not complete),
    /// `continue` (not in waves: undecided, games missing; `continue (H1 accepted on the games
    /// present)` when decided on an incomplete set) or `undecided (all games played)`.
    pub fn verdict(&self) -> Option<String> {
        self.sprt.as_ref()?;
        let decided = all_decided(&self.decisions);
        let first = self.decisions.first().copied().flatten();
        let word = if self.decisions.iter().all(|d| *d == first) {
            match first {
                Some(SprtDecision::AcceptH1) => "H1 accepted",
                _ => "H0 accepted",
            }
        } else {
            "decided"
        };
        let not_in_waves = self.wave_pairs.is_none();
        let text = if decided && self.stopped_after_wave.is_some() {
            let k = self.stopped_after_wave.unwrap_or(0);
            format!("{word} (stopped by SPRT after wave {k})")
        } else if decided && not_in_waves && self.missing.is_empty() {
            word.to_string()
        } else if decided && not_in_waves {
            // Shards are not a prefix of the run in general: a test decided on some of them is
            // no result yet, so the line still starts with `continue`.
            format!("continue ({word} on the games present)")
        } else if let Some(k) = self.next_wave {
            format!("continue with wave {k}")
        } else if self.missing.is_empty() {
            "undecided (all games played)".to_string()
        } else {
            "continue".to_string()
        };
        Some(format!("verdict: {text}"))
    }
}

/// Merges shard directories into `out` (created if needed; its merged files are replaced).
/// An unsharded run's directory counts as the only shard of a 1-way split, so merging it alone
/// rewrites its files in game-id order.
///
/// Directories of a run played in waves (`--wave K`, optionally sharded) merge the same way.
/// The SPRT is then evaluated at the end of each complete wave, in order (a group-sequential
/// test): when it decides after wave K, the result is waves 0 to K, complete, whatever else is
/// given or missing.
pub fn merge_shards(
    out: &Path,
    dirs: &[PathBuf],
    options: &MergeOptions,
) -> Result<MergeReport, MergeError> {
    let (dirs, not_started) = started_dirs(dirs)?;
    // Read and check every manifest before touching anything.
    let Given {
        manifests,
        shape,
        wave_pairs,
        splits,
        versions,
    } = read_manifests(&dirs)?;
    let fingerprint = manifests[0].without_shard();
    check_output(out, &dirs, &fingerprint)?;
    let total = shape.schedule.total_games();

    let Collected {
        files,
        mut missing,
        waves,
        wave_complete,
    } = collect(&dirs, &shape, &splits, wave_pairs)?;
    let mut present = games_in_order(&files);
    let present_games: Vec<&FinishedGame> = present.iter().map(|(g, _)| *g).collect();
    let WaveEnds {
        stopped_after_wave,
        mut next_wave,
    } = read_wave_ends(&shape, &waves, &wave_complete, &present_games);
    let mut ignored_games = 0;
    if let Some(k) = stopped_after_wave {
        ignored_games = drop_after_wave(&mut present, k, wave_pairs, total);
        missing.clear();
        next_wave = None;
    }
    if !missing.is_empty() && !options.partial {
        return Err(MergeError::Missing { missing, total });
    }
    let written = write_present(out, &shape, &present, &fingerprint, (wave_pairs, next_wave))?;

    Ok(MergeReport {
        pairings: written.pairings,
        sprt: shape.sprt,
        decisions: written.decisions,
        figures: written.figures,
        ratings: written.ratings,
        names: shape.names,
        games: written.games.len() as u64,
        total_games: total,
        missing,
        wave_pairs,
        stopped_after_wave,
        next_wave,
        ignored_games,
        not_started,
        versions: if versions.len() > 1 {
            versions
        } else {
            Vec::new()
        },
        positions: shape.positions,
        bullet: shape.bullet,
        pgn_name: shape.pgn_name,
    })
}

/// The directories given that hold a run, and those that hold none yet; when none holds a run,
/// all of them are read (and refused there).
fn started_dirs(dirs: &[PathBuf]) -> Result<(Vec<PathBuf>, Vec<PathBuf>), MergeError> {
    // A directory a killed task made but never wrote its manifest or a game to (a scheduler's
    // `mkdir`, an engine that failed to start) holds no run yet: it is left out as not given,
    // so its games are reported missing and the driver can play them, instead of every merge
    // failing on it.
    let (dirs, not_started): (Vec<PathBuf>, Vec<PathBuf>) = dirs
        .iter()
        .cloned()
        .partition(|dir| dir.join(MANIFEST_FILE).exists() || dir.join("games.csv").exists());
    let dirs = if dirs.is_empty() {
        not_started.clone()
    } else {
        dirs
    };
    if dirs.is_empty() {
        return Err(MergeError::NoDirectories);
    }
    Ok((dirs, not_started))
}

/// Every present game, in game-id order, with the files that hold it.
fn games_in_order(files: &[ShardFiles]) -> Vec<(&FinishedGame, &ShardFiles)> {
    let mut present: Vec<(&FinishedGame, &ShardFiles)> = files
        .iter()
        .flat_map(|f| f.games.iter().map(move |g| (g, f)))
        .collect();
    present.sort_by_key(|(g, _)| g.game_id);
    present
}

/// Leaves out of `present` the games after wave `k`, where the SPRT stopped the run; returns
/// how many were left out.
fn drop_after_wave(
    present: &mut Vec<(&FinishedGame, &ShardFiles)>,
    k: u64,
    wave_pairs: Option<u64>,
    total: u64,
) -> u64 {
    let end = Wave {
        index: k,
        pairs: wave_pairs.unwrap_or(1),
    }
    .games(total)
    .end;
    let before = present.len();
    present.retain(|(g, _)| g.game_id <= end);
    (before - present.len()) as u64
}

/// What a merge computed over the present games and wrote.
struct Written {
    /// Per engine (configuration order): figures over the merged games.
    figures: Vec<EngineFigures>,
    /// The merged games, in game-id order.
    games: Vec<FinishedGame>,
    /// One entry per pairing, over the merged games.
    pairings: Vec<PairingStats>,
    /// Per pairing: the SPRT's verdict, as `MergeReport::decisions`.
    decisions: Vec<Option<SprtDecision>>,
    /// The joint ratings, as `MergeReport::ratings`.
    ratings: Option<Result<JointRatings, RatingsError>>,
}

/// Computes the statistics and SPRT verdicts of the `present` games and writes the merge of
/// them into `out`.
fn write_present(
    out: &Path,
    shape: &RunShape,
    present: &[(&FinishedGame, &ShardFiles)],
    fingerprint: &Fingerprint,
    (wave_pairs, next_wave): (Option<u64>, Option<u64>),
) -> Result<Written, MergeError> {
    let merged = assemble(shape, present);
    let games: Vec<FinishedGame> = present.iter().map(|(g, _)| (*g).clone()).collect();
    let game_refs: Vec<&FinishedGame> = games.iter().collect();
    let pairings = pairing_stats(shape, &game_refs);
    let decisions = merged_decisions(shape, (wave_pairs, next_wave), &game_refs, &pairings);
    // summary.csv holds a verdict only once the test decided, as the run writes it.
    // Waves still going keep their `continue`: the LLR of all games there may be past a bound
    // that the test, read at wave ends, has not reached.
    let waves_going = wave_pairs.is_some() && next_wave.is_some();
    let decided: Vec<Option<SprtDecision>> = decisions
        .iter()
        .map(|d| d.filter(|d| waves_going || *d != SprtDecision::Continue))
        .collect();
    let mut names = shape.names.clone();
    let rated = rated_games(&mut names, &games);
    let ratings = run_ratings(&names, &rated);
    let results = Results {
        games: &games,
        pairings: &pairings,
        decided: &decided,
        ratings: ratings.as_ref(),
        fingerprint,
    };
    write_merge(out, shape, &merged, &results)?;
    Ok(Written {
        figures: merged.figures,
        games,
        pairings,
        decisions,
        ratings,
    })
}
