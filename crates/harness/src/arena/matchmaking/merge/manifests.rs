//! Reading the directories' `run.toml` files: the run's shape, and which part of the run (wave,
//! shard) each directory plays, refusing directories that do not belong together.

use super::error::MergeError;
use crate::arena::config::{OpeningOrder, Seeds, TournamentKind};
use crate::arena::matchmaking::manifest::{Fingerprint, RECORDED_VERSION};
use crate::arena::matchmaking::schedule::{Schedule, Slice};
use crate::stats::{SprtModel, SprtParams};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub(super) fn bad_manifest(dir: &Path, message: String) -> MergeError {
    MergeError::BadManifest {
        dir: dir.to_path_buf(),
        message,
    }
}

/// The schedule's pairings and total games, the engine names and the SPRT, as `run.toml` has
/// them.
pub(super) struct RunShape {
    pub(super) schedule: Schedule,
    pub(super) names: Vec<String>,
    pub(super) sprt: Option<SprtParams>,
    pub(super) by_pairs: bool,
    pub(super) pgn_name: String,
    pub(super) positions: bool,
    pub(super) bullet: bool,
}

fn run_shape(dir: &Path, fp: &Fingerprint) -> Result<RunShape, MergeError> {
    let need = |key: &str| {
        fp.get(key)
            .ok_or_else(|| bad_manifest(dir, format!("`{key}` is missing")))
    };
    let number = |key: &str| -> Result<u64, MergeError> {
        need(key)?
            .parse()
            .map_err(|_| bad_manifest(dir, format!("`{key}` is not a whole number")))
    };
    let kind = match need("tournament.kind")? {
        "gauntlet" => TournamentKind::Gauntlet,
        "round-robin" => TournamentKind::RoundRobin,
        other => {
            return Err(bad_manifest(
                dir,
                format!("unknown tournament.kind `{other}`"),
            ))
        }
    };
    let engines = number("engines")? as usize;
    let rounds = number("tournament.rounds")?;
    let names = (0..engines)
        .map(|i| need(&format!("engine[{i}].name")).map(str::to_string))
        .collect::<Result<Vec<_>, _>>()?;
    let schedule = Schedule::new(kind, engines, rounds, None, OpeningOrder::Sequential, 1, 0)
        .with_single_last_game(fp.get("tournament.single_last_game") == Some("true"))
        .with_seeds(Seeds {
            count: fp
                .get("tournament.seeds")
                .map_or(Ok(1), |_| number("tournament.seeds"))? as usize,
            play_each_other: fp.get("tournament.seeds_play_each_other") == Some("true"),
        })
        .with_sides(
            fp.get("tournament.swap_sides") != Some("false"),
            fp.get("tournament.reverse_sides") == Some("true"),
        );
    let sprt = match fp.get("run.sprt.elo0") {
        None => None,
        Some(_) => {
            let num = |key: &str| -> Result<f64, MergeError> {
                need(key)?
                    .parse()
                    .map_err(|_| bad_manifest(dir, format!("`{key}` is not a number")))
            };
            let model: SprtModel = need("run.sprt.model")?
                .parse()
                .map_err(|_| bad_manifest(dir, "`run.sprt.model` is unknown".to_string()))?;
            Some(
                SprtParams::new(
                    num("run.sprt.elo0")?,
                    num("run.sprt.elo1")?,
                    num("run.sprt.alpha")?,
                    num("run.sprt.beta")?,
                    model,
                )
                .map_err(|e| bad_manifest(dir, format!("run.sprt: {e}")))?,
            )
        }
    };
    Ok(RunShape {
        schedule,
        names,
        sprt,
        by_pairs: fp.get("run.ranking_by_pairs") != Some("false"),
        pgn_name: fp.get("output.pgn_name").unwrap_or("games.pgn").to_string(),
        positions: fp.get("output.positions") == Some("true")
            && fp.get("output.positions_format") != Some("bullet"),
        bullet: fp.get("output.positions") == Some("true")
            && matches!(fp.get("output.positions_format"), Some("bullet" | "both")),
    })
}

/// The directories of one wave (or of a run not played in waves): how its shards split it and
/// which directory plays each shard.
pub(super) struct Split {
    /// None: the wave was played unsharded.
    pub(super) count: Option<u64>,
    /// Shard index (0 when unsharded) -> index into the directories.
    pub(super) dirs: BTreeMap<u64, usize>,
}

/// What the manifests of the directories given say, checked against each other.
pub(super) struct Given {
    /// One per directory, in the order given.
    pub(super) manifests: Vec<Fingerprint>,
    /// The run, as the first manifest has it.
    pub(super) shape: RunShape,
    /// The wave size, for a run played in waves.
    pub(super) wave_pairs: Option<u64>,
    /// Wave index (None: not in waves) -> its split.
    pub(super) splits: BTreeMap<Option<u64>, Split>,
    /// The sparring versions that played the directories, in order of appearance.
    pub(super) versions: Vec<String>,
}

/// The part of the run `fp` says its directory plays, checked against the schedule's size.
fn slice_of(dir: &Path, fp: &Fingerprint, total: u64) -> Result<Slice, MergeError> {
    if let Some(recorded) = fp.slice_total_games() {
        if recorded.parse::<u64>().ok() != Some(total) {
            return Err(bad_manifest(
                dir,
                format!("shard.total_games is {recorded}, but the schedule has {total}"),
            ));
        }
    }
    let slice_keys = |source| MergeError::SliceKeys {
        dir: dir.to_path_buf(),
        source,
    };
    let wave = fp.wave().map_err(slice_keys)?;
    let shard = fp.shard().map_err(slice_keys)?.map(|(shard, _)| shard);
    Ok(Slice { wave, shard })
}

/// Refuses a directory whose waves do not go with the first directory's.
fn check_waves(
    (first_dir, first): (&Path, Slice),
    (dir, slice): (&Path, Slice),
) -> Result<(), MergeError> {
    match (first.wave, slice.wave) {
        (Some(a), Some(b)) if a.pairs != b.pairs => Err(MergeError::DifferentWaveSize {
            first: first_dir.to_path_buf(),
            first_pairs: a.pairs,
            other: dir.to_path_buf(),
            other_pairs: b.pairs,
        }),
        (Some(w), None) => Err(MergeError::MixedWaves {
            wave_dir: first_dir.to_path_buf(),
            wave: w.index,
            other: dir.to_path_buf(),
        }),
        (None, Some(w)) => Err(MergeError::MixedWaves {
            wave_dir: dir.to_path_buf(),
            wave: w.index,
            other: first_dir.to_path_buf(),
        }),
        _ => Ok(()),
    }
}

/// Reads and checks every manifest (`dirs` is not empty) before anything is touched.
pub(super) fn read_manifests(dirs: &[PathBuf]) -> Result<Given, MergeError> {
    let first_dir = &dirs[0];
    let mut manifests = Vec::new();
    for dir in dirs {
        let fp =
            Fingerprint::read(dir)?.ok_or_else(|| MergeError::NoManifest { dir: dir.clone() })?;
        manifests.push(fp);
    }
    let first = &manifests[0];
    let shape = run_shape(first_dir, first)?;
    let total = shape.schedule.total_games();
    let first_slice = slice_of(first_dir, first, total)?;
    let mut splits: BTreeMap<Option<u64>, Split> = BTreeMap::new();
    let mut versions: Vec<String> = Vec::new();
    for (i, (dir, fp)) in dirs.iter().zip(&manifests).enumerate() {
        let changes = first.configuration().changes(&fp.configuration());
        if !changes.is_empty() {
            return Err(MergeError::DifferentConfiguration {
                first: first_dir.clone(),
                other: dir.clone(),
                changes,
            });
        }
        let slice = slice_of(dir, fp, total)?;
        check_waves((first_dir, first_slice), (dir, slice))?;
        let key = slice.wave.map(|w| w.index);
        // A run not in waves is a split of N (an unsharded run: 1); a wave may be unsharded.
        let count = match (slice.wave, slice.shard) {
            (_, Some(shard)) => Some(shard.count),
            (None, None) => Some(1),
            (Some(_), None) => None,
        };
        let split = splits.entry(key).or_insert(Split {
            count,
            dirs: BTreeMap::new(),
        });
        if split.count != count {
            let j = split.dirs.values().next().copied().unwrap_or(i);
            return Err(MergeError::DifferentSplit {
                first: dirs[j].clone(),
                first_shard: slice_of(&dirs[j], &manifests[j], total)?.to_string(),
                other: dir.clone(),
                other_shard: slice.to_string(),
            });
        }
        let index = slice.shard.map_or(0, |s| s.index);
        if let Some(&j) = split.dirs.get(&index) {
            return Err(MergeError::ShardTwice {
                shard: slice,
                first: dirs[j].clone(),
                second: dir.clone(),
            });
        }
        split.dirs.insert(index, i);
        let version = fp.get(RECORDED_VERSION).unwrap_or("(unknown)").to_string();
        if !versions.contains(&version) {
            versions.push(version);
        }
    }
    Ok(Given {
        wave_pairs: first_slice.wave.map(|w| w.pairs),
        manifests,
        shape,
        splits,
        versions,
    })
}
