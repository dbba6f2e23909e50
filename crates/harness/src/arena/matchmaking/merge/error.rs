//! What a merge reports as wrong: the errors, and the games a shard or wave lacks.

use crate::arena::matchmaking::manifest::{ManifestError, SliceKeyError, MANIFEST_FILE};
use crate::arena::matchmaking::schedule::{describe_game_ids, describe_id_ranges, Slice};
use crate::arena::output::figures::FiguresError;
use crate::error::{ErrorClass, Failure};
use crate::record::bullet::BulletIndexError;
use crate::record::GamesCsvError;
use std::ops::RangeInclusive;
use std::path::PathBuf;
use thiserror::Error;

/// Games one shard or wave lacks (1-based ids).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissingGames {
    /// The part of the run that plays them (for a run of waves not given: its first wave).
    pub slice: Slice,
    /// When several whole waves were not given: the last of them (`slice.wave` is the first).
    pub(crate) last_wave: Option<u64>,
    /// The missing game ids, as ascending ranges.
    pub game_ids: Vec<RangeInclusive<u64>>,
    /// Whether no directory of this part was given at all.
    pub(crate) not_given: bool,
}

impl MissingGames {
    /// How many games are missing.
    pub fn count(&self) -> u64 {
        self.game_ids
            .iter()
            .map(|r| r.end().saturating_sub(*r.start()) + 1)
            .sum()
    }
}

impl std::fmt::Display for MissingGames {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ids = describe_id_ranges(&self.game_ids);
        let slice = self.slice;
        match (self.last_wave, slice.wave) {
            (Some(last), Some(first)) => write!(
                f,
                "waves {}-{last} (games {ids}) were not given; run them with --wave K \
                 --wave-pairs {} for K = {} to {last}",
                first.index, first.pairs, first.index
            ),
            _ if self.not_given => write!(
                f,
                "{slice} (games {ids}) was not given; run it with {} (or --resume its directory)",
                slice.flags()
            ),
            _ => write!(
                f,
                "{slice} is missing games {ids}; rerun with {} --resume",
                slice.flags()
            ),
        }
    }
}

fn describe_missing(missing: &[MissingGames]) -> String {
    missing
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// Why shards cannot be merged.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum MergeError {
    /// No directory given.
    #[error("no shard directories given")]
    NoDirectories,
    /// A directory without `run.toml`.
    #[error("{}: no {MANIFEST_FILE}: not the output directory of a sparring run", dir.display())]
    NoManifest {
        /// The directory.
        dir: PathBuf,
    },
    /// `run.toml` unreadable or not what sparring writes.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// `run.toml` lacks or garbles a setting the merge needs.
    #[error("{}: {message}", dir.join(MANIFEST_FILE).display())]
    BadManifest {
        /// The directory.
        dir: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// `run.toml`'s shard or wave keys describe no slice of the run.
    #[error("{}: {source}", dir.join(MANIFEST_FILE).display())]
    SliceKeys {
        /// The directory.
        dir: PathBuf,
        /// What is wrong with the keys.
        source: SliceKeyError,
    },
    /// Two directories played different configurations.
    #[error("{} and {} were played with different configurations: {}", first.display(), other.display(), describe_changes(changes))]
    DifferentConfiguration {
        /// The first directory given.
        first: PathBuf,
        /// The one that differs.
        other: PathBuf,
        /// (dotted key, value in `first`, value in `other`).
        changes: Vec<(String, Option<String>, Option<String>)>,
    },
    /// Two directories split the run (or one wave) differently.
    #[error("{} is {} and {} is {}: all shards must come from one split (same N)", first.display(), first_shard, other.display(), other_shard)]
    DifferentSplit {
        /// The first directory given.
        first: PathBuf,
        /// Its part of the run (`shard I/N`, `wave K shard I/N`, `the run`).
        first_shard: String,
        /// The one that differs.
        other: PathBuf,
        /// Its shard.
        other_shard: String,
    },
    /// One directory is a wave of a run played in waves, another is not.
    #[error("{} is wave {wave} of a run played in waves and {} is not: merge the waves of one run (or its shards) only", wave_dir.display(), other.display())]
    MixedWaves {
        /// The directory of a wave.
        wave_dir: PathBuf,
        /// Its wave.
        wave: u64,
        /// A directory played without --wave.
        other: PathBuf,
    },
    /// Waves of different sizes.
    #[error("{} is a wave of {first_pairs} pairs and {} one of {other_pairs} pairs: all waves of a run must have one size (--wave-pairs)", first.display(), other.display())]
    DifferentWaveSize {
        /// The first directory given.
        first: PathBuf,
        /// Its wave size.
        first_pairs: u64,
        /// The one that differs.
        other: PathBuf,
        /// Its wave size.
        other_pairs: u64,
    },
    /// One shard (or wave) given twice.
    #[error("{shard} is given twice: {} and {}", first.display(), second.display())]
    ShardTwice {
        /// The shard, or wave.
        shard: Slice,
        /// One directory.
        first: PathBuf,
        /// The other.
        second: PathBuf,
    },
    /// A directory's games.csv lists a game that is not its shard's.
    #[error("{}: line {line}: field game_id: game {game_id} is not one of {shard}'s games ({}); the directory holds another run's games", path.display(), describe_game_ids(range.clone()))]
    ForeignGame {
        /// The games.csv file.
        path: PathBuf,
        /// The 1-based line of the row.
        line: u64,
        /// Its shard (or wave).
        shard: Slice,
        /// The game.
        game_id: u64,
        /// The shard's game ids (1-based).
        range: std::ops::Range<u64>,
    },
    /// Games are missing (and `--partial` was not given).
    #[error("{} of {total} games are missing: {}; or merge with --partial to see the statistics of what is there", missing.iter().map(MissingGames::count).sum::<u64>(), describe_missing(missing))]
    Missing {
        /// What each shard lacks.
        missing: Vec<MissingGames>,
        /// The games of the whole run.
        total: u64,
    },
    /// A shard's games.csv cannot be read.
    #[error(transparent)]
    GamesCsv(#[from] GamesCsvError),
    /// A shard's positions.epd or figures.csv is damaged.
    #[error("{}: {message}", path.display())]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A shard's positions.bullet index is damaged.
    #[error("{}: {source}", path.display())]
    BulletIndex {
        /// The index file.
        path: PathBuf,
        /// What is wrong with it.
        #[source]
        source: BulletIndexError,
    },
    /// A shard's figures.csv is damaged.
    #[error("{}: {source}", path.display())]
    Figures {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        #[source]
        source: FiguresError,
    },
    /// The output directory is one of the shards.
    #[error("{}: the merge output must not be one of the shard directories", dir.display())]
    OutputIsShard {
        /// The directory.
        dir: PathBuf,
    },
    /// The output directory holds files that are not an earlier merge of this run: the merge
    /// would replace them, so it refuses and touches nothing.
    #[error("{}: {reason}; merge into a new or empty directory, or one an earlier merge of this run wrote", dir.display())]
    OutputInUse {
        /// The directory.
        dir: PathBuf,
        /// What it holds.
        reason: String,
    },
    /// Reading or writing failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
}

impl ErrorClass for MergeError {
    fn class(&self) -> Failure {
        match self {
            MergeError::Manifest(source) => source.class(),
            MergeError::GamesCsv(source) => source.class(),
            MergeError::SliceKeys { source, .. } => source.class(),
            MergeError::NoDirectories
            | MergeError::NoManifest { .. }
            | MergeError::BadManifest { .. }
            | MergeError::DifferentConfiguration { .. }
            | MergeError::DifferentSplit { .. }
            | MergeError::MixedWaves { .. }
            | MergeError::DifferentWaveSize { .. }
            | MergeError::ShardTwice { .. }
            | MergeError::ForeignGame { .. }
            | MergeError::Missing { .. }
            | MergeError::Damaged { .. }
            | MergeError::OutputIsShard { .. }
            | MergeError::OutputInUse { .. } => Failure::BadInput,
            MergeError::BulletIndex { source, .. } => source.class(),
            MergeError::Figures { source, .. } => source.class(),
            MergeError::Io { .. } => Failure::FailedRun,
        }
    }
}

fn describe_changes(changes: &[(String, Option<String>, Option<String>)]) -> String {
    let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "(unset)".to_string());
    changes
        .iter()
        .map(|(key, a, b)| format!("{key} is {} and {}", show(a), show(b)))
        .collect::<Vec<_>>()
        .join(", ")
}
