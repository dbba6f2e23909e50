//! What a running tournament reports, for the caller to show (console lines, a progress bar) or
//! ignore. The library never prints: `run_tournament` hands these to a callback on the calling
//! thread.

use super::pairing::{EngineFigures, PairingStats};
use super::report::EngineFacts;
use crate::arena::game::adjudication::AdjudicationCounts;
use crate::arena::game::compliance::Warning;
use crate::record::GameRecord;
use crate::stats::{JointRatings, RatingsError, SprtDecision};
use std::path::Path;
use std::time::Duration;

/// One thing that happened during a run.
#[derive(Debug)]
pub enum Event<'a> {
    /// `--resume` found a directory written before run fingerprints existed: the configuration
    /// could not be compared, and `run.toml` is now written from the current one.
    ResumedWithoutFingerprint {
        /// The output directory.
        dir: &'a Path,
    },
    /// `--resume` found finished games without rows in `figures.csv` (a directory written
    /// before every run kept that file): the engine figures of the ranking and of `RunFinished`
    /// (moves, depth, speed, time, forfeits and crashes) leave those games out.
    ResumedWithoutFigures {
        /// The figures file (now started, holding the rows of the other games).
        path: &'a Path,
        /// Finished games whose engine figures are unknown.
        games: u64,
    },
    /// Every engine started once and answered its handshake, before any game: what the results
    /// heading says about each (in configuration order).
    EnginesReady {
        /// One entry per configured engine.
        engines: &'a [EngineFacts],
    },
    /// A configured option of an engine that fastchess warns about, found when the engine
    /// first started, before any game: one it did not declare in its `option name` lines, or a
    /// value its declaration does not accept (neither is sent). With `strict_options`
    /// the run stops instead. Counted once per run start in the engine's compliance warnings.
    OptionWarning {
        /// The engine's configured name.
        engine: &'a str,
        /// `Warning::UndeclaredOption`, `Warning::InvalidOptionValue` or `Warning::OptionNotSet`.
        warning: &'a Warning,
    },
    /// An engine's move broke one of fastchess's compliance rules (or, for
    /// `Warning::Latency`, the latency note of `compliance.latency`), in a game being played.
    EngineWarning {
        /// The game's 1-based id.
        game_id: u64,
        /// The configured name of the engine the warning is about.
        engine: &'a str,
        /// The configured name of its opponent in the game.
        opponent: &'a str,
        /// What it did.
        warning: &'a Warning,
    },
    /// With `compliance.crc32`, a game was just appended to the PGN file: the CRC32 of the
    /// whole file as it now stands (fastchess's `-crc32 pgn=true`).
    PgnChecksum {
        /// The PGN file as the configuration names it (`-pgnout file=` as given).
        file: &'a str,
        /// The CRC32 (IEEE, as zlib's) of every byte of the file.
        crc32: u32,
    },
    /// The run starts: `already_done` of `total` games were finished by an earlier run.
    RunStarted {
        /// Games in the schedule.
        total: u64,
        /// Games finished before this run (resume).
        already_done: u64,
    },
    /// A game began.
    GameStarted {
        /// The game's 1-based id in the schedule.
        game_id: u64,
        /// Games in the schedule.
        total: u64,
        /// The configured name of the engine playing White.
        white: &'a str,
        /// The configured name of the engine playing Black.
        black: &'a str,
    },
    /// A game ended and was saved; `pairings` include it.
    GameFinished {
        /// The game as it was saved.
        record: &'a GameRecord,
        /// Games finished so far, earlier runs included.
        done: u64,
        /// Games in the schedule.
        total: u64,
        /// Games finished by this run.
        finished_this_run: u64,
        /// Time since this run started.
        elapsed: Duration,
        /// Every pairing's statistics, this game included.
        pairings: &'a [PairingStats],
    },
    /// Another `rating_interval` game pairs are complete: time for a results block.
    ResultsDue {
        /// Every pairing's statistics.
        pairings: &'a [PairingStats],
    },
    /// The SPRT of every pairing has decided; no more games are started.
    SprtDecided {
        /// Every pairing's statistics.
        pairings: &'a [PairingStats],
        /// Per pairing, what its SPRT decided.
        decisions: &'a [Option<SprtDecision>],
    },
    /// Every game that will be played has been saved, and `summary.csv`, `ranking.csv` and
    /// `ratings.csv` written.
    RunFinished {
        /// Every pairing's final statistics.
        pairings: &'a [PairingStats],
        /// Per pairing, what its SPRT decided (all `None` without an SPRT).
        decisions: &'a [Option<SprtDecision>],
        /// Per configured engine: what it did in the run's games, resumed ones included
        /// (except those `ResumedWithoutFigures` counted).
        figures: &'a [EngineFigures],
        /// How long this run took.
        elapsed: Duration,
        /// How many of the run's games (resumed ones included) each adjudication rule ended.
        adjudications: AdjudicationCounts,
        /// With three or more engines: their joint ratings (written to ratings.csv), or why
        /// there are none.
        ratings: Option<&'a Result<JointRatings, RatingsError>>,
    },
}
