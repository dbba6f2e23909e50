//! The run's fingerprint: the settings that decide which games are played and how, written to
//! `run.toml` in the output directory when a run starts. `--resume` compares the configuration it
//! is given with it and refuses a change, naming the dotted keys, so one directory never mixes
//! games of two configurations. A shard's (or wave's) directory also records its shard and wave
//! (compared too), and `run.` keys record what `sparring merge` needs (the version, the SPRT,
//! how the ranking counts) without being compared. Settings that cannot change a game (concurrency, the results
//! interval, the output directory, the engine timeout, the SPRT bounds that only decide when to
//! stop) may change between runs.
//!
//! A directory written before fingerprints existed has no `run.toml`: it is resumed as before
//! (the configuration cannot be compared) and the fingerprint of the current configuration is
//! written, so later resumes are checked; the caller is told with an event.

use super::schedule::{describe_game_ids, Shard, ShardError, Slice, Wave, WaveError};
use crate::arena::config::{
    Adjudication, EngineConfig, EngineKind, MatchConfig, OpeningOrder, OpeningsConfig,
    OutputConfig, Protocol, TournamentKind,
};
use crate::error::{ErrorClass, Failure};
use crate::record::{PgnNotation, PositionsResolve};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The fingerprint file's name inside the output directory.
pub(crate) const MANIFEST_FILE: &str = "run.toml";

/// The recorded version of sparring that wrote the fingerprint (not compared).
pub(crate) const RECORDED_VERSION: &str = "run.sparring_version";
/// Keys added to the fingerprint later, with the value every earlier run had: a directory
/// without the key resumes when the configuration has that value.
const ADDED_WITH_DEFAULT: &[(&str, &str)] = &[
    ("output.pgn_name", "games.pgn"),
    ("output.positions_format", "epd"),
];
const SHARD_INDEX: &str = "shard.index";
const SHARD_COUNT: &str = "shard.count";
const SHARD_TOTAL_GAMES: &str = "shard.total_games";
const WAVE_INDEX: &str = "wave.index";
const WAVE_PAIRS: &str = "wave.pairs";

/// Dotted configuration key -> the setting's value as text.
#[derive(Clone, Debug, Default)]
pub struct Fingerprint {
    entries: BTreeMap<String, String>,
    /// Key -> the byte hash of a TOML file whose entry holds its settings hash: the value that
    /// run.toml files written before settings hashes held, accepted on resume (never written).
    byte_hashes: BTreeMap<String, String>,
}

impl PartialEq for Fingerprint {
    fn eq(&self, other: &Fingerprint) -> bool {
        self.entries == other.entries
    }
}

impl Eq for Fingerprint {}

/// Problems with the fingerprint file.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ManifestError {
    /// `run.toml` could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// `run.toml` is not what sparring writes.
    #[error("{}: not a sparring run fingerprint: {message}", path.display())]
    Malformed {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// The configuration is not the one the directory's games were played with.
    #[error("the configuration differs from the run in {} ({}): {}; resume with the same settings, or start a new run in another directory", dir.display(), MANIFEST_FILE, describe_changes(changes))]
    Mismatch {
        /// The output directory.
        dir: PathBuf,
        /// (dotted key, value in the directory, value now); a missing side is `None`.
        changes: Vec<(String, Option<String>, Option<String>)>,
    },
}

impl ErrorClass for ManifestError {
    fn class(&self) -> Failure {
        match self {
            ManifestError::Io { .. } => Failure::FailedRun,
            ManifestError::Malformed { .. } | ManifestError::Mismatch { .. } => Failure::BadInput,
        }
    }
}

/// Why a fingerprint's shard or wave keys do not describe a slice of the run.
#[derive(Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum SliceKeyError {
    /// A key that must hold a whole number does not (or is missing).
    #[error("`{key}` is not a whole number")]
    NotANumber {
        /// The dotted key.
        key: &'static str,
    },
    /// The shard keys name no shard.
    #[error(transparent)]
    Shard(#[from] ShardError),
    /// The wave keys name no wave of the schedule.
    #[error(transparent)]
    Wave(#[from] WaveError),
}

impl ErrorClass for SliceKeyError {
    fn class(&self) -> Failure {
        match self {
            SliceKeyError::NotANumber { .. } => Failure::BadInput,
            SliceKeyError::Shard(source) => source.class(),
            SliceKeyError::Wave(source) => source.class(),
        }
    }
}

fn describe_changes(changes: &[(String, Option<String>, Option<String>)]) -> String {
    let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "(unset)".to_string());
    changes
        .iter()
        .map(|(key, was, now)| format!("{key} was {} and is now {}", show(was), show(now)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The whole number a fingerprint key holds.
fn whole_number(key: &'static str, text: Option<&str>) -> Result<u64, SliceKeyError> {
    text.and_then(|t| t.parse::<u64>().ok())
        .ok_or(SliceKeyError::NotANumber { key })
}

/// A content hash of a file (64-bit FNV-1a, hex), or a note when it cannot be read.
pub fn file_hash(path: &Path) -> String {
    let Ok(mut file) = std::fs::File::open(path) else {
        return "(unreadable)".to_string();
    };
    let mut hash = FNV_OFFSET;
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => hash = fnv1a(&buf[..n], hash),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return "(unreadable)".to_string(),
        }
    }
    format!("{hash:016x}")
}

/// A hash of what a TOML file sets (64-bit FNV-1a of its parsed table written back in key
/// order), so comments, layout and key order do not count; a file that is not TOML is hashed
/// byte for byte (`file_hash`).
pub fn settings_hash(path: &Path) -> String {
    let canonical = std::fs::read_to_string(path)
        .ok()
        .and_then(|text| text.parse::<toml::Table>().ok())
        .and_then(|table| toml::to_string(&table).ok());
    match canonical {
        Some(text) => format!("{:016x}", fnv1a(text.as_bytes(), FNV_OFFSET)),
        None => file_hash(path),
    }
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// 64-bit FNV-1a of `bytes`, continuing from `hash`; hand-written as it must never change
/// between versions (run.toml files keep it across upgrades).
fn fnv1a(bytes: &[u8], mut hash: u64) -> u64 {
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// Keys every fingerprint has held since run.toml was introduced.
const REQUIRED_KEYS: [&str; 3] = ["tournament.kind", "tournament.rounds", "tournament.seed"];

impl Fingerprint {
    /// The game-deciding settings of a configuration (reads the weights and book files to hash
    /// their contents).
    pub fn of(config: &MatchConfig) -> Fingerprint {
        let mut f = Fingerprint::default();
        f.put_tournament(config);
        if let Some(o) = &config.openings {
            f.put_openings(o);
        }
        f.put_adjudication(&config.adjudication);
        f.put_output(&config.output);
        f.put("engines", config.engines.len().to_string());
        for (i, engine) in config.engines.iter().enumerate() {
            f.put_engine(i, engine);
        }
        f.put_recorded(config);
        f
    }

    fn put(&mut self, key: &str, value: String) {
        self.entries.insert(key.to_string(), value);
    }

    /// Puts a TOML file's settings hash under `key`, remembering its byte hash for run.toml
    /// files written before settings hashes.
    fn put_settings_hash(&mut self, key: &str, path: &Path) {
        self.put(key, settings_hash(path));
        self.byte_hashes.insert(key.to_string(), file_hash(path));
    }

    /// `tournament.*` and the time control.
    fn put_tournament(&mut self, config: &MatchConfig) {
        let kind = match config.kind {
            TournamentKind::Gauntlet => "gauntlet",
            TournamentKind::RoundRobin => "round-robin",
        };
        self.put("tournament.kind", kind.to_string());
        // Written only for Chess960, so run.toml files of standard runs made before the key
        // existed still match.
        if config.variant.is_chess960() {
            self.put("tournament.variant", config.variant.name().to_string());
        }
        self.put("tournament.rounds", config.rounds.to_string());
        // Written only when set, so run.toml files made before the key existed still match.
        if config.single_last_game {
            self.put("tournament.single_last_game", "true".to_string());
        }
        for (key, value) in config.schedule_fingerprint() {
            self.put(key, value);
        }
        self.put("tournament.seed", config.seed.to_string());
        self.put("tournament.event", config.event.clone());
        self.put("time_control", config.time_control.to_string());
        self.put(
            "time_control.margin_ms",
            config.margin.as_millis().to_string(),
        );
    }

    /// `openings.*`, with a hash of the book's content.
    fn put_openings(&mut self, o: &OpeningsConfig) {
        self.put("openings.file", o.file.display().to_string());
        self.put("openings.file_hash", file_hash(&o.file));
        self.put("openings.format", o.format.clone().unwrap_or_default());
        let order = match o.order {
            OpeningOrder::Random => "random",
            OpeningOrder::Sequential => "sequential",
        };
        self.put("openings.order", order.to_string());
        self.put(
            "openings.plies",
            o.plies.map_or(String::new(), |p| p.to_string()),
        );
        self.put("openings.start", o.start.to_string());
        self.put("openings.per_game", o.per_game.to_string());
        self.put("openings.random_plies", o.random_plies.to_string());
    }

    /// `adjudication.*`: only the rules that are on.
    fn put_adjudication(&mut self, adj: &Adjudication) {
        if let Some(t) = &adj.tablebase {
            self.put("adjudication.tablebase.path", t.path.display().to_string());
            self.put("adjudication.tablebase.pieces", t.pieces.to_string());
            self.put("adjudication.tablebase.ignore_50", t.ignore_50.to_string());
            self.put(
                "adjudication.tablebase.results",
                t.results.name().to_string(),
            );
        }
        if let Some(d) = &adj.draw {
            self.put("adjudication.draw.move_number", d.move_number.to_string());
            self.put("adjudication.draw.move_count", d.move_count.to_string());
            self.put("adjudication.draw.score_cp", d.score_cp.to_string());
        }
        if let Some(r) = &adj.resign {
            self.put("adjudication.resign.move_count", r.move_count.to_string());
            self.put("adjudication.resign.score_cp", r.score_cp.to_string());
            self.put("adjudication.resign.two_sided", r.two_sided.to_string());
        }
        if let Some(m) = adj.max_moves {
            self.put("adjudication.max_moves", m.to_string());
        }
    }

    /// The `output.*` settings that change what a game writes.
    fn put_output(&mut self, output: &OutputConfig) {
        self.put("output.pgn_name", output.pgn_name.clone());
        self.put("output.positions", output.positions.to_string());
        if output.positions {
            self.put(
                "output.positions_per_game",
                output.positions_per_game.to_string(),
            );
            self.put(
                "output.positions_format",
                output.positions_format.name().to_string(),
            );
            // Written only when set, so runs from before the key resume unchanged.
            if output.positions_resolve != PositionsResolve::None {
                self.put(
                    "output.positions_resolve",
                    output.positions_resolve.name().to_string(),
                );
            }
        }
        // Only when set, as positions_resolve: older runs resume unchanged.
        if output.pgn_style.minimal {
            self.put("output.pgn_minimal", "true".to_string());
        }
        if output.pgn_style.notation != PgnNotation::San {
            let notation = output.pgn_style.notation.name().to_string();
            self.put("output.pgn_notation", notation);
        }
    }

    /// `engine[i].*`: name, time control, how it runs, with hashes of the files it reads.
    fn put_engine(&mut self, i: usize, engine: &EngineConfig) {
        let key = |k: &str| format!("engine[{i}].{k}");
        self.put(&key("name"), engine.name.clone());
        if let Some(tc) = &engine.time_control {
            self.put(&key("time_control"), tc.to_string());
        }
        match &engine.kind {
            EngineKind::Builtin {
                weights,
                net,
                hash_mb,
                search,
                syzygy,
            } => {
                // Written only when set, so runs from before the key resume unchanged.
                if let Some(path) = net {
                    self.put(&key("builtin.net"), path.display().to_string());
                    self.put(&key("builtin.net_hash"), file_hash(path));
                }
                let weights_key = key("builtin.weights");
                match weights {
                    Some(path) => {
                        self.put(&weights_key, path.display().to_string());
                        self.put_settings_hash(&key("builtin.weights_hash"), path);
                    }
                    None => self.put(&weights_key, "(built-in defaults)".to_string()),
                }
                self.put(&key("builtin.hash_mb"), hash_mb.to_string());
                // Written only when set, so runs from before the key resume unchanged.
                if let Some(path) = search {
                    self.put(&key("builtin.search"), path.display().to_string());
                    self.put_settings_hash(&key("builtin.search_hash"), path);
                }
                if let Some(tb) = syzygy {
                    self.put(&key("builtin.syzygy"), tb.path.display().to_string());
                    self.put(
                        &key("builtin.syzygy_probe_limit"),
                        tb.probe_limit.to_string(),
                    );
                }
            }
            EngineKind::Uci {
                command,
                args,
                options,
                working_dir,
            } => {
                self.put(&key("uci.command"), command.clone());
                self.put(&key("uci.args"), format!("{args:?}"));
                for (name, value) in options {
                    self.put(&key(&format!("uci.options.{name}")), value.clone());
                }
                if let Some(dir) = working_dir {
                    self.put(&key("uci.working_dir"), dir.display().to_string());
                }
            }
        }
        // Written only when not the default, so runs from before the keys resume unchanged.
        if engine.protocol != Protocol::Uci {
            self.put(&key("protocol"), "xboard".to_string());
        }
        if engine.restart {
            self.put(&key("restart"), "true".to_string());
        }
        self.put_settings(&key, &engine.settings);
    }

    /// cutechess's per-engine keys, each written only when set, so runs from before them (or
    /// without them) resume unchanged. The book is hashed like weights files.
    fn put_settings(
        &mut self,
        key: &dyn Fn(&str) -> String,
        s: &crate::arena::engine::ExternalSettings,
    ) {
        let mut flags = vec![
            ("ponder", s.ponder),
            ("trust_claims", s.trust_claims),
            ("white_pov", s.white_pov),
            ("debug", s.debug),
        ];
        flags.retain(|(_, on)| *on);
        for (name, _) in flags {
            self.put(&key(name), "true".to_string());
        }
        if !s.init_strings.is_empty() {
            self.put(&key("init_strings"), format!("{:?}", s.init_strings));
        }
        if let Some(path) = &s.stderr_file {
            self.put(&key("stderr_file"), path.display().to_string());
        }
        if let Some(factor) = s.timeout_scale {
            self.put(&key("timeout_scale"), factor.to_string());
        }
        if let Some(path) = &s.book {
            self.put(&key("book"), path.display().to_string());
            self.put(&key("book_hash"), file_hash(path));
        }
        if let Some(depth) = s.book_depth {
            self.put(&key("book_depth"), depth.to_string());
        }
    }

    /// Recorded, not compared (`run.` keys): what `sparring merge` needs to report as the run
    /// would, and the version that played the games.
    fn put_recorded(&mut self, config: &MatchConfig) {
        self.put(RECORDED_VERSION, env!("CARGO_PKG_VERSION").to_string());
        let by_pairs = config.output.report_penta
            && config.output.format == crate::arena::config::ResultsFormat::Fastchess;
        self.put("run.ranking_by_pairs", by_pairs.to_string());
        if let Some(sprt) = &config.sprt {
            self.put("run.sprt.elo0", sprt.elo0().to_string());
            self.put("run.sprt.elo1", sprt.elo1().to_string());
            self.put("run.sprt.alpha", sprt.alpha().to_string());
            self.put("run.sprt.beta", sprt.beta().to_string());
            self.put("run.sprt.model", sprt.model().to_string());
        }
    }

    /// Adds the shard this directory plays: `shard.index`, `shard.count`, `shard.game_ids`
    /// (1-based, as a range) and `shard.total_games` of the whole schedule. They are compared
    /// on resume like the settings, so a shard's directory is only ever resumed as that shard.
    #[cfg(test)]
    pub(crate) fn with_shard(self, shard: Shard, total_games: u64) -> Fingerprint {
        self.with_slice(
            Slice {
                wave: None,
                shard: Some(shard),
            },
            total_games,
        )
    }

    /// Adds the slice this directory plays: the shard keys as `with_shard` (the shard's games
    /// within the wave), and for a wave `wave.index`, `wave.pairs` and `wave.game_ids`. All are
    /// compared on resume, so a directory is only ever resumed as the same wave and shard.
    pub(crate) fn with_slice(mut self, slice: Slice, total_games: u64) -> Fingerprint {
        let games = slice.games(total_games);
        let ids = describe_game_ids(games.start + 1..games.end + 1);
        let mut put = |k: &str, v: String| self.entries.insert(k.to_string(), v);
        if let Some(wave) = slice.wave {
            put(WAVE_INDEX, wave.index.to_string());
            put(WAVE_PAIRS, wave.pairs.to_string());
            let wave_games = wave.games(total_games);
            put(
                "wave.game_ids",
                describe_game_ids(wave_games.start + 1..wave_games.end + 1),
            );
            put(SHARD_TOTAL_GAMES, total_games.to_string());
        }
        if let Some(shard) = slice.shard {
            put(SHARD_INDEX, shard.index.to_string());
            put(SHARD_COUNT, shard.count.to_string());
            put("shard.game_ids", ids);
            put(SHARD_TOTAL_GAMES, total_games.to_string());
        }
        self
    }

    /// The value of a dotted key, if the fingerprint has it.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries.get(key).map(String::as_str)
    }

    /// The shard recorded in the fingerprint and the total games of its schedule; `None` for
    /// an unsharded run.
    pub fn shard(&self) -> Result<Option<(Shard, u64)>, SliceKeyError> {
        let (Some(index), Some(count)) = (self.get(SHARD_INDEX), self.get(SHARD_COUNT)) else {
            return Ok(None);
        };
        let shard = Shard::new(
            whole_number(SHARD_INDEX, Some(index))?,
            whole_number(SHARD_COUNT, Some(count))?,
        )?;
        let total = whole_number(SHARD_TOTAL_GAMES, self.get(SHARD_TOTAL_GAMES))?;
        Ok(Some((shard, total)))
    }

    /// The wave recorded in the fingerprint (`wave.index`, `wave.pairs`); `None` for a run
    /// not played in waves.
    pub fn wave(&self) -> Result<Option<Wave>, SliceKeyError> {
        let Some(index) = self.get(WAVE_INDEX) else {
            return Ok(None);
        };
        let index = whole_number(WAVE_INDEX, Some(index))?;
        let pairs = whole_number(WAVE_PAIRS, self.get(WAVE_PAIRS))?;
        let total = whole_number(SHARD_TOTAL_GAMES, self.get(SHARD_TOTAL_GAMES))?;
        Ok(Some(Wave::new(index, pairs, total)?))
    }

    /// The total games of the schedule a slice recorded (`shard.total_games`), if any.
    pub(crate) fn slice_total_games(&self) -> Option<&str> {
        self.get(SHARD_TOTAL_GAMES)
    }

    /// The fingerprint of the whole run a shard or wave belongs to: without the shard's and the
    /// wave's keys.
    pub(crate) fn without_shard(&self) -> Fingerprint {
        Fingerprint {
            byte_hashes: self.byte_hashes.clone(),
            entries: self
                .entries
                .iter()
                .filter(|(k, _)| !k.starts_with("shard.") && !k.starts_with("wave."))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        }
    }

    /// The game-deciding settings only: without the shard and the recorded `run.` keys (what
    /// all shards of one run share).
    pub fn configuration(&self) -> Fingerprint {
        Fingerprint {
            byte_hashes: self.byte_hashes.clone(),
            entries: self
                .entries
                .iter()
                .filter(|(k, _)| {
                    !k.starts_with("shard.") && !k.starts_with("wave.") && !k.starts_with("run.")
                })
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        }
    }

    /// The fingerprint as `run.toml` text (one quoted dotted key per setting).
    pub fn to_toml(&self) -> String {
        let mut table = toml::Table::new();
        for (k, v) in &self.entries {
            table.insert(k.clone(), toml::Value::String(v.clone()));
        }
        format!(
            "# The settings this run's games were played with; `sparring match --resume` refuses\n\
             # a configuration that differs. Written by sparring, not read as a configuration.\n{}",
            toml::to_string(&table).unwrap_or_default()
        )
    }

    /// Reads `run.toml` of a directory; `None` when there is none (a run from before
    /// fingerprints).
    pub fn read(dir: &Path) -> Result<Option<Fingerprint>, ManifestError> {
        let path = dir.join(MANIFEST_FILE);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(ManifestError::Io { path, source }),
        };
        // Bytes that are not text are a damaged file (bad input), not a failing disk.
        let text = String::from_utf8(bytes).map_err(|e| ManifestError::Malformed {
            path: path.clone(),
            message: format!(
                "not UTF-8 text (byte {} is not valid)",
                e.utf8_error().valid_up_to() + 1
            ),
        })?;
        let table: toml::Table = toml::from_str(&text).map_err(|e| ManifestError::Malformed {
            path: path.clone(),
            message: e.message().to_string(),
        })?;
        let mut entries = BTreeMap::new();
        for (k, v) in table {
            let toml::Value::String(v) = v else {
                return Err(ManifestError::Malformed {
                    path,
                    message: format!("`{k}` is not a string"),
                });
            };
            entries.insert(k, v);
        }
        // Every run.toml holds these (they sort last but for a slice's keys): a file without
        // them was cut short, and comparing it would name settings it merely lost.
        if let Some(key) = REQUIRED_KEYS.iter().find(|k| !entries.contains_key(**k)) {
            return Err(ManifestError::Malformed {
                path,
                message: format!(
                    "it lacks `{key}`, which every run.toml holds: the file is cut short or \
                     damaged"
                ),
            });
        }
        Ok(Some(Fingerprint {
            entries,
            byte_hashes: BTreeMap::new(),
        }))
    }

    /// Writes `run.toml` into `dir` (through a temporary file, so it is never half written).
    pub fn write(&self, dir: &Path) -> Result<(), ManifestError> {
        let path = dir.join(MANIFEST_FILE);
        crate::files::write_atomic(&path, self.to_toml().as_bytes())
            .map_err(|source| ManifestError::Io { path, source })
    }

    /// The settings that differ: (dotted key, value in `self`, value in `now`).
    pub fn changes(&self, now: &Fingerprint) -> Vec<(String, Option<String>, Option<String>)> {
        let mut keys: Vec<&String> = self.entries.keys().chain(now.entries.keys()).collect();
        keys.sort();
        keys.dedup();
        keys.into_iter()
            .filter(|k| !k.starts_with("run."))
            .filter_map(|k| {
                let was = self.entries.get(k);
                let is = now.entries.get(k);
                // A key added after a directory was written matches its old implicit value, on
                // either side (a merge compares shards in the order it is given them).
                let implicit = ADDED_WITH_DEFAULT.iter().any(|(key, default)| {
                    let is_default = |v: Option<&String>| v.map_or(true, |v| v == default);
                    key == k && (was.is_none() || is.is_none()) && is_default(was) && is_default(is)
                });
                // A file hashed byte for byte by an older version, unchanged since.
                let same_file = was.is_some() && now.byte_hashes.get(k) == was
                    || is.is_some() && self.byte_hashes.get(k) == is;
                (was != is && !implicit && !same_file)
                    .then(|| (k.clone(), was.cloned(), is.cloned()))
            })
            .collect()
    }

    /// Checks that `now` is the configuration this fingerprint was taken from.
    pub fn check(&self, now: &Fingerprint, dir: &Path) -> Result<(), ManifestError> {
        let changes = self.changes(now);
        if changes.is_empty() {
            Ok(())
        } else {
            Err(ManifestError::Mismatch {
                dir: dir.to_path_buf(),
                changes,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fingerprint(entries: &[(&str, &str)]) -> Fingerprint {
        Fingerprint {
            entries: entries
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            byte_hashes: BTreeMap::new(),
        }
    }

    #[test]
    fn recorded_keys_and_later_keys_at_their_old_value_are_no_change() {
        let old = fingerprint(&[("tournament.seed", "1"), ("run.sparring_version", "0.0.9")]);
        let now = fingerprint(&[
            ("tournament.seed", "1"),
            ("output.pgn_name", "games.pgn"),
            ("run.sparring_version", "0.1.0"),
        ]);
        assert!(old.changes(&now).is_empty());
        // Either way round: a merge compares shards in the order it is given them.
        assert!(now.changes(&old).is_empty());
        let renamed = fingerprint(&[("tournament.seed", "1"), ("output.pgn_name", "x.pgn")]);
        assert_eq!(
            old.changes(&renamed),
            vec![(
                "output.pgn_name".to_string(),
                None,
                Some("x.pgn".to_string())
            )]
        );
        assert_eq!(renamed.changes(&old).len(), 1);
    }

    /// A weights or search file is hashed by what it sets: comments, layout and key order do
    /// not count, a value does; a file that is not TOML is hashed byte for byte.
    #[test]
    fn settings_hashes_ignore_comments_and_layout() {
        let dir = std::env::temp_dir().join(format!("sparring-settings-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let hash_of = |name: &str, text: &str| {
            let path = dir.join(name);
            std::fs::write(&path, text).unwrap();
            settings_hash(&path)
        };
        let plain = hash_of("a.toml", "[lmr]\nbase = 0.75\ndivisor = 2\n");
        let commented = hash_of(
            "b.toml",
            "# bench 123\n[lmr]\ndivisor = 2 # why\n\nbase=0.75\n",
        );
        let changed = hash_of("c.toml", "[lmr]\nbase = 0.8\ndivisor = 2\n");
        assert_eq!(plain, commented);
        assert_ne!(plain, changed);
        let not_toml = hash_of("d.toml", "[lmr\n");
        assert_eq!(not_toml, file_hash(&dir.join("d.toml")));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A run.toml written when weights files were hashed byte for byte resumes while the file
    /// is unchanged, and is refused once a value changes.
    #[test]
    fn a_byte_hash_from_an_older_run_matches_the_unchanged_file() {
        let dir = std::env::temp_dir().join(format!("sparring-legacy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("w.toml");
        std::fs::write(&path, "# v1\n[material]\nmg = [100, 300]\n").unwrap();
        let key = "engine[0].builtin.weights_hash";
        let old = fingerprint(&[(key, &file_hash(&path))]);
        let mut now = Fingerprint::default();
        now.put_settings_hash(key, &path);
        assert_ne!(now.get(key), old.get(key));
        assert!(old.changes(&now).is_empty());
        assert!(now.changes(&old).is_empty());
        std::fs::write(&path, "# v1\n[material]\nmg = [101, 300]\n").unwrap();
        let mut edited = Fingerprint::default();
        edited.put_settings_hash(key, &path);
        assert_eq!(old.changes(&edited).len(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The fingerprint of a gauntlet of the built-in engine and a UCI engine `b` whose table
    /// ends with `extra`.
    fn engine_b_fingerprint(extra: &str) -> Fingerprint {
        let text = format!(
            "[output]\ndir = \"o\"\n[tournament]\nkind = \"gauntlet\"\nrounds = 1\n[time_control]\nnodes = 100\n\
             [[engine]]\nname = \"a\"\nbuiltin = {{}}\n\
             [[engine]]\nname = \"b\"\nuci = {{ command = \"x\" }}\n{extra}"
        );
        Fingerprint::of(&MatchConfig::parse(&text, "m.toml").unwrap())
    }

    /// The protocol and per-game restart of an engine are part of the configuration, written
    /// only when not the default (a run from before them resumes unchanged).
    #[test]
    fn engine_protocol_and_restart_are_fingerprinted_when_set() {
        let config = engine_b_fingerprint;
        let plain = config("");
        assert_eq!(plain.get("engine[1].protocol"), None);
        assert_eq!(plain.get("engine[1].restart"), None);
        assert_eq!(plain.get("engine[1].ponder"), None);
        let xboard = config("protocol = \"xboard\"\nrestart = true\nponder = true\n");
        assert_eq!(xboard.get("engine[1].protocol"), Some("xboard"));
        assert_eq!(xboard.get("engine[1].restart"), Some("true"));
        assert_eq!(xboard.get("engine[1].ponder"), Some("true"));
        assert_eq!(plain.changes(&xboard).len(), 3);
    }

    /// cutechess's other engine keys are fingerprinted only when set (a plain run's keys are
    /// what they were before them), the book with its file's hash.
    #[test]
    fn cutechess_engine_keys_are_fingerprinted_only_when_set() {
        let dir = std::env::temp_dir().join(format!("sparring-fp-keys-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let book = dir.join("b.bin");
        std::fs::write(&book, b"").unwrap();
        let config = engine_b_fingerprint;
        let plain = config("");
        let set = config(&format!(
            "init_strings = [\"hi\"]\nstderr_file = \"e.log\"\ntrust_claims = true\n\
             white_pov = true\ntimeout_scale = 2.0\ndebug = true\nbook = {:?}\nbook_depth = 3\n",
            book.display().to_string()
        ));
        let keys = [
            "init_strings",
            "stderr_file",
            "trust_claims",
            "white_pov",
            "timeout_scale",
            "debug",
            "book",
            "book_hash",
            "book_depth",
        ];
        for key in keys {
            let key = format!("engine[1].{key}");
            assert_eq!(plain.get(&key), None, "{key}");
            assert!(set.get(&key).is_some(), "{key}");
        }
        assert_eq!(set.get("engine[1].timeout_scale"), Some("2"));
        assert_eq!(plain.changes(&set).len(), keys.len());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn shard_keys_round_trip_and_stay_out_of_the_configuration() {
        let whole = fingerprint(&[
            ("tournament.kind", "gauntlet"),
            ("tournament.rounds", "4"),
            ("tournament.seed", "1"),
        ]);
        let fp = whole.clone().with_shard(Shard::new(1, 4).unwrap(), 32);
        assert_eq!(fp.get("shard.game_ids"), Some("9-16"));
        assert_eq!(fp.shard().unwrap(), Some((Shard::new(1, 4).unwrap(), 32)));
        assert_eq!(fp.configuration(), whole);
        assert_eq!(fp.without_shard().shard().unwrap(), None);
        let text = fp.to_toml();
        let dir = std::env::temp_dir().join(format!("sparring-manifest-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        fp.write(&dir).unwrap();
        assert_eq!(Fingerprint::read(&dir).unwrap(), Some(fp));
        assert!(text.contains("\"shard.index\" = \"1\""));

        // Cut at a line boundary the rest still parses: the lost keys say it is damaged.
        let cut: String = text.lines().take(4).map(|l| format!("{l}\n")).collect();
        std::fs::write(dir.join(MANIFEST_FILE), cut).unwrap();
        let error = Fingerprint::read(&dir).unwrap_err().to_string();
        assert!(error.contains("cut short or damaged"), "{error}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
