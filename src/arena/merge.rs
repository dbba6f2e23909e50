//! Merging the directories of a sharded run (`sparring match --shard I/N`) into the files the
//! unsharded run writes: games.pgn, games.csv, positions.epd, summary.csv and ranking.csv, in
//! game-id order. The game texts are copied as the shards wrote them; the statistics are
//! computed again from the merged games, so they are what one run over the same games reports.
//!
//! A shard also writes `figures.csv` (what each engine did in each game: moves, depth, nodes,
//! thinking time), so the merged ranking's per-engine figures cover every game.
//!
//! The directories of a run played in waves (`--wave K`, each wave whole or sharded) merge the
//! same way; the SPRT is then read at the end of each complete wave, and the first wave end at
//! which it decided makes the merge the run's complete result (`MergeReport::verdict`).

use super::config::TournamentKind;
use super::manifest::{Fingerprint, ManifestError, MANIFEST_FILE, RECORDED_VERSION};
use super::pairing::{ranking, EngineFigures, PairingStats};
use super::report::{write_ranking, write_summary};
use super::schedule::{describe_game_ids, Schedule, Shard, Slice, Wave};
use crate::board::GameResult;
use crate::record::bullet::{
    bullet_lines_by_game, BULLET_FILE, BULLET_INDEX_FILE, BULLET_INDEX_HEADER,
};
use crate::record::{
    read_finished_games, split_pgn_games, write_games_csv, FinishedGame, GamesCsvError,
    TrainingPosition,
};
use crate::stats::{SprtDecision, SprtModel, SprtParams};
use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::time::Duration;
use thiserror::Error;

/// The per-game engine figures file of a shard's directory.
pub const FIGURES_FILE: &str = "figures.csv";

const FIGURES_HEADER: &str = "game_id,engine,games,moves,depth_sum,depth_moves,nodes,\
nodes_time_ns,think_time_ns,clock_games,time_left_ns,time_forfeits,disconnects,stalls,\
illegal_moves";

/// Writes the header of `figures.csv`.
pub(crate) fn write_figures_header(out: &mut impl Write) -> std::io::Result<()> {
    writeln!(out, "{FIGURES_HEADER}")
}

/// Appends what engine `engine` (configuration index) did in game `game_id`.
pub(crate) fn write_figures_row(
    out: &mut impl Write,
    game_id: u64,
    engine: usize,
    f: &EngineFigures,
) -> std::io::Result<()> {
    let ns = |d: Duration| d.as_nanos().min(u128::from(u64::MAX)) as u64;
    writeln!(
        out,
        "{game_id},{engine},{},{},{},{},{},{},{},{},{},{},{},{},{}",
        f.games,
        f.moves,
        f.depth_sum,
        f.depth_moves,
        f.nodes,
        ns(f.nodes_time),
        ns(f.think_time),
        f.clock_games,
        ns(f.time_left),
        f.time_forfeits,
        f.disconnects,
        f.stalls,
        f.illegal_moves
    )
}

/// The rows of a `figures.csv`: (game id, engine index, figures). A last line cut short by a
/// kill is skipped; another bad line is an error naming its line number.
pub(crate) fn read_figures(text: &str) -> Result<Vec<(u64, usize, EngineFigures)>, String> {
    let mut rows = Vec::new();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    for (i, line) in lines.iter().enumerate() {
        if i == 0 {
            if line.trim_end() != FIGURES_HEADER {
                return Err("line 1: not the figures.csv header".to_string());
            }
            continue;
        }
        let parsed: Option<Vec<u64>> = line
            .trim_end()
            .split(',')
            .map(|f| f.parse::<u64>().ok())
            .collect();
        let fields = match parsed {
            Some(fields) if fields.len() == 15 && line.ends_with('\n') => fields,
            _ if i + 1 == lines.len() => break,
            _ => return Err(format!("line {}: not a figures row", i + 1)),
        };
        let figures = EngineFigures {
            games: fields[2],
            moves: fields[3],
            depth_sum: fields[4],
            depth_moves: fields[5],
            nodes: fields[6],
            nodes_time: Duration::from_nanos(fields[7]),
            think_time: Duration::from_nanos(fields[8]),
            clock_games: fields[9],
            time_left: Duration::from_nanos(fields[10]),
            time_forfeits: fields[11],
            disconnects: fields[12],
            stalls: fields[13],
            illegal_moves: fields[14],
        };
        rows.push((fields[0], fields[1] as usize, figures));
    }
    Ok(rows)
}

/// Games one shard or wave lacks (1-based ids).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissingGames {
    /// The part of the run that plays them (for a run of waves not given: its first wave).
    pub slice: Slice,
    /// When several whole waves were not given: the last of them (`slice.wave` is the first).
    pub last_wave: Option<u64>,
    /// The missing game ids, as ascending ranges.
    pub game_ids: Vec<RangeInclusive<u64>>,
    /// Whether no directory of this part was given at all.
    pub not_given: bool,
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

fn describe_ranges(ranges: &[RangeInclusive<u64>]) -> String {
    if ranges.is_empty() {
        return "none".to_string();
    }
    ranges
        .iter()
        .map(|r| {
            if r.start() == r.end() {
                r.start().to_string()
            } else {
                format!("{}-{}", r.start(), r.end())
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Ascending ids as ranges.
fn id_ranges(ids: impl IntoIterator<Item = u64>) -> Vec<RangeInclusive<u64>> {
    let mut ranges: Vec<RangeInclusive<u64>> = Vec::new();
    for id in ids {
        match ranges.last_mut() {
            Some(r) if *r.end() + 1 == id => *r = *r.start()..=id,
            _ => ranges.push(id..=id),
        }
    }
    ranges
}

impl std::fmt::Display for MissingGames {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ids = describe_ranges(&self.game_ids);
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

impl MergeError {
    /// Whether the user must change the input (exit status 2) rather than the system failing.
    pub fn is_bad_input(&self) -> bool {
        !matches!(
            self,
            MergeError::Io { .. }
                | MergeError::Manifest(ManifestError::Io { .. })
                | MergeError::GamesCsv(GamesCsvError::Io { .. })
        )
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

/// One shard directory's content.
struct ShardFiles {
    games: Vec<FinishedGame>,
    /// Game id -> its PGN text (ending in a blank line).
    pgn: BTreeMap<u64, String>,
    /// Game id -> its positions.epd lines.
    positions: BTreeMap<u64, String>,
    /// Game id -> its positions.bullet lines.
    bullet: BTreeMap<u64, String>,
    /// Game id -> (engine, figures) rows.
    figures: BTreeMap<u64, Vec<(usize, EngineFigures)>>,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> MergeError + '_ {
    move |source| MergeError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn read_optional(path: &Path) -> Result<Option<String>, MergeError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io(path)(e)),
    }
}

/// The 1-based line where each row of a games.csv starts, in file order.
fn games_csv_row_lines(path: &Path) -> Vec<u64> {
    let Ok(bytes) = std::fs::read(path) else {
        return Vec::new();
    };
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .from_reader(bytes.as_slice());
    reader
        .records()
        .map(|r| match r {
            Ok(r) => r.position().map_or(0, |p| p.line()),
            Err(e) => e.position().map_or(0, |p| p.line()),
        })
        .collect()
}

/// Reads a shard's finished games: those in games.csv whose PGN game is complete (what a kill
/// leaves half written counts as missing, as `--resume` would play it again). A games.csv row
/// outside the shard's games (0-based `range`) is refused, naming its line: paired with the PGN
/// first, it would only show as a game missing from the shard.
fn read_shard(
    dir: &Path,
    pgn_name: &str,
    (positions, bullet): (bool, bool),
    slice: Slice,
    range: &std::ops::Range<u64>,
) -> Result<ShardFiles, MergeError> {
    let csv_path = dir.join("games.csv");
    let mut games = read_finished_games(&csv_path)?;
    if let Some(i) = games
        .iter()
        .position(|g| g.game_id == 0 || !range.contains(&(g.game_id - 1)))
    {
        return Err(MergeError::ForeignGame {
            line: games_csv_row_lines(&csv_path).get(i).copied().unwrap_or(0),
            path: csv_path,
            shard: slice,
            game_id: games[i].game_id,
            range: range.start + 1..range.end + 1,
        });
    }
    let pgn_text = read_optional(&dir.join(pgn_name))?.unwrap_or_default();
    let mut pgn = BTreeMap::new();
    for game in split_pgn_games(&pgn_text) {
        if let (Some(id), true) = (game.game_id, game.complete) {
            pgn.insert(id, format!("{}\n\n", game.text.trim_end()));
        }
    }
    games.retain(|g| pgn.contains_key(&g.game_id));
    let ids: HashSet<u64> = games.iter().map(|g| g.game_id).collect();
    pgn.retain(|id, _| ids.contains(id));
    let mut position_lines: BTreeMap<u64, String> = BTreeMap::new();
    if positions {
        let path = dir.join("positions.epd");
        let text = read_optional(&path)?.unwrap_or_default();
        for (i, line) in text.lines().enumerate() {
            let id = TrainingPosition::parse(line)
                .map_err(|e| MergeError::Damaged {
                    path: path.clone(),
                    message: format!("line {}: {e}", i + 1),
                })?
                .and_then(|p| p.id);
            if let Some(id) = id.filter(|id| ids.contains(&id.game)) {
                let lines = position_lines.entry(id.game).or_default();
                lines.push_str(line);
                lines.push('\n');
            }
        }
    }
    let mut bullet_lines: BTreeMap<u64, String> = BTreeMap::new();
    if bullet {
        let path = dir.join(BULLET_FILE);
        let index_path = dir.join(BULLET_INDEX_FILE);
        // The index first: a running shard appends a game's lines before its row, so lines
        // read after the index cover every row it lists (a `--partial` look at a live run).
        let index = read_optional(&index_path)?.unwrap_or_else(|| BULLET_INDEX_HEADER.to_string());
        let text = read_optional(&path)?.unwrap_or_default();
        let games = bullet_lines_by_game(&text, &path.display().to_string(), &index).map_err(
            |message| MergeError::Damaged {
                path: index_path.clone(),
                message,
            },
        )?;
        for (id, lines) in games.into_iter().filter(|(id, _)| ids.contains(id)) {
            bullet_lines.insert(id, lines);
        }
        // The runner writes a game's index row before its games.csv row, so every recorded
        // game has one; a game without is data the merge would silently lose.
        let unlisted: Vec<u64> = games_order(&ids)
            .into_iter()
            .filter(|id| !bullet_lines.contains_key(id))
            .collect();
        if let Some(first) = unlisted.first() {
            return Err(MergeError::Damaged {
                path: index_path,
                message: format!(
                    "no row for game {first} ({} game(s) in games.csv have none): their \
                     positions.bullet lines are lost; play the shard again into a fresh directory",
                    unlisted.len()
                ),
            });
        }
    }
    let mut figures: BTreeMap<u64, Vec<(usize, EngineFigures)>> = BTreeMap::new();
    let path = dir.join(FIGURES_FILE);
    if let Some(text) = read_optional(&path)? {
        let rows = read_figures(&text).map_err(|message| MergeError::Damaged {
            path: path.clone(),
            message,
        })?;
        for (game, engine, f) in rows {
            if ids.contains(&game) {
                figures.entry(game).or_default().push((engine, f));
            }
        }
    }
    Ok(ShardFiles {
        games,
        pgn,
        positions: position_lines,
        bullet: bullet_lines,
        figures,
    })
}

/// Game ids in ascending order, for messages that name the first.
fn games_order(ids: &HashSet<u64>) -> Vec<u64> {
    let mut ids: Vec<u64> = ids.iter().copied().collect();
    ids.sort_unstable();
    ids
}

fn bad_manifest(dir: &Path, message: String) -> MergeError {
    MergeError::BadManifest {
        dir: dir.to_path_buf(),
        message,
    }
}

/// The schedule's pairings and total games, the engine names and the SPRT, as `run.toml` has
/// them.
struct RunShape {
    schedule: Schedule,
    names: Vec<String>,
    sprt: Option<SprtParams>,
    by_pairs: bool,
    pgn_name: String,
    positions: bool,
    bullet: bool,
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
    let schedule = Schedule::new(
        kind,
        engines,
        rounds,
        None,
        super::config::OpeningOrder::Sequential,
        1,
        0,
    )
    .with_single_last_game(fp.get("tournament.single_last_game") == Some("true"));
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

/// The file a merge leaves in its output directory, so a later merge of the same run may
/// replace the directory (and never a directory of the user's).
pub const MERGE_MARKER: &str = "merged-by-sparring";
const MERGE_MARKER_TEXT: &str =
    "This directory was written by `sparring merge`; a new merge of the same run replaces it.\n";

/// Refuses an output directory that exists and holds anything but an earlier merge of the run
/// with this fingerprint (issue 21: the user's own games.pgn was replaced silently).
fn check_output(out: &Path, fingerprint: &Fingerprint) -> Result<(), MergeError> {
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

fn replace_file(path: &Path, content: &[u8]) -> Result<(), MergeError> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, content)
        .and_then(|_| std::fs::rename(&tmp, path))
        .map_err(io(path))
}

/// The directories of one wave (or of a run not played in waves): how its shards split it and
/// which directory plays each shard.
struct Split {
    /// None: the wave was played unsharded.
    count: Option<u64>,
    /// Shard index (0 when unsharded) -> index into the directories.
    dirs: BTreeMap<u64, usize>,
}

/// The pairings' statistics over `games` (in any order).
fn pairing_stats(shape: &RunShape, games: &[&FinishedGame]) -> Vec<PairingStats> {
    let schedule = &shape.schedule;
    let mut pairings: Vec<PairingStats> = schedule
        .pairings
        .iter()
        .map(|&(a, b)| PairingStats::new(&shape.names[a], &shape.names[b]))
        .collect();
    for game in games {
        let spec = schedule.game(game.game_id - 1);
        let first_engine = schedule.pairings[spec.pairing].0;
        let white_score = match game.result {
            GameResult::WhiteWins => 1.0,
            GameResult::BlackWins => 0.0,
            GameResult::Draw => 0.5,
        };
        let score = if spec.engines[0] == first_engine {
            white_score
        } else {
            1.0 - white_score
        };
        pairings[spec.pairing].add_game(spec.pair_id, score);
    }
    pairings
}

/// Per pairing: the SPRT's verdict (`Some(Continue)` when undecided; `None` without a test).
fn sprt_decisions(
    sprt: Option<&SprtParams>,
    pairings: &[PairingStats],
) -> Vec<Option<SprtDecision>> {
    pairings
        .iter()
        .map(|p| {
            let sprt = sprt?;
            let llr = sprt.llr_ptnml(p.ptnml).ok()?;
            Some(sprt.decision(llr))
        })
        .collect()
}

/// Whether every pairing's test decided (the run would stop).
fn all_decided(decisions: &[Option<SprtDecision>]) -> bool {
    !decisions.is_empty()
        && decisions
            .iter()
            .all(|d| matches!(d, Some(SprtDecision::AcceptH0 | SprtDecision::AcceptH1)))
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
    let dirs = &dirs[..];
    let Some(first_dir) = dirs.first() else {
        return Err(MergeError::NoDirectories);
    };
    // Read and check every manifest before touching anything.
    let mut manifests = Vec::new();
    for dir in dirs {
        let fp =
            Fingerprint::read(dir)?.ok_or_else(|| MergeError::NoManifest { dir: dir.clone() })?;
        manifests.push(fp);
    }
    let first = &manifests[0];
    let shape = run_shape(first_dir, first)?;
    let total = shape.schedule.total_games();
    let slice_of = |dir: &Path, fp: &Fingerprint| -> Result<Slice, MergeError> {
        if let Some(recorded) = fp.slice_total_games() {
            if recorded.parse::<u64>().ok() != Some(total) {
                return Err(bad_manifest(
                    dir,
                    format!("shard.total_games is {recorded}, but the schedule has {total}"),
                ));
            }
        }
        let wave = fp.wave().map_err(|m| bad_manifest(dir, m))?;
        let shard = fp
            .shard()
            .map_err(|m| bad_manifest(dir, m))?
            .map(|(shard, _)| shard);
        Ok(Slice { wave, shard })
    };
    let first_slice = slice_of(first_dir, first)?;
    let wave_pairs = first_slice.wave.map(|w| w.pairs);
    // Wave index (None: not in waves) -> its split.
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
        let slice = slice_of(dir, fp)?;
        match (first_slice.wave, slice.wave) {
            (Some(a), Some(b)) if a.pairs != b.pairs => {
                return Err(MergeError::DifferentWaveSize {
                    first: first_dir.clone(),
                    first_pairs: a.pairs,
                    other: dir.clone(),
                    other_pairs: b.pairs,
                })
            }
            (Some(w), None) => {
                return Err(MergeError::MixedWaves {
                    wave_dir: first_dir.clone(),
                    wave: w.index,
                    other: dir.clone(),
                })
            }
            (None, Some(w)) => {
                return Err(MergeError::MixedWaves {
                    wave_dir: dir.clone(),
                    wave: w.index,
                    other: first_dir.clone(),
                })
            }
            _ => {}
        }
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
                first_shard: slice_of(&dirs[j], &manifests[j])?.to_string(),
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
    check_output(out, &first.without_shard())?;

    // The parts of the run in schedule order: every wave (or the run), each shard of it.
    // Waves past the one after the last given are all missing: one entry names them, so the
    // walk stays as long as what was given, however many waves the schedule holds.
    let wave_count = wave_pairs.map_or(1, |pairs| Wave::count(pairs, total));
    let last_given = splits.keys().flatten().max().copied();
    let walked = last_given.map_or(wave_count, |last| wave_count.min(last + 2));
    let waves: Vec<Option<Wave>> = match wave_pairs {
        Some(pairs) => (0..walked)
            .map(|index| Some(Wave { index, pairs }))
            .collect(),
        None => vec![None],
    };
    let mut files: Vec<ShardFiles> = Vec::new();
    let mut missing: Vec<MissingGames> = Vec::new();
    // Per wave: whether all its games are present.
    let mut wave_complete: Vec<bool> = Vec::new();
    for wave in &waves {
        let Some(split) = splits.get(&wave.map(|w| w.index)) else {
            let range = Slice {
                wave: *wave,
                shard: None,
            }
            .games(total);
            // Consecutive waves not given are named together.
            match missing.last_mut() {
                Some(m)
                    if m.not_given && m.slice.shard.is_none() && m.slice.wave.is_some() && {
                        let last = m.last_wave.or(m.slice.wave.map(|w| w.index));
                        last.map(|l| l + 1) == wave.map(|w| w.index)
                    } =>
                {
                    m.last_wave = wave.map(|w| w.index);
                    if !range.is_empty() {
                        let start = m.game_ids.last().map_or(range.start + 1, |r| *r.start());
                        m.game_ids = vec![start..=range.end];
                    }
                }
                _ => missing.push(MissingGames {
                    slice: Slice {
                        wave: *wave,
                        shard: None,
                    },
                    last_wave: None,
                    game_ids: id_ranges(range.start + 1..range.end + 1),
                    not_given: true,
                }),
            }
            wave_complete.push(false);
            continue;
        };
        let mut complete = true;
        let shards: Vec<Option<Shard>> = match split.count {
            None => vec![None],
            Some(count) => (0..count)
                .map(|index| Some(Shard { index, count }))
                .collect(),
        };
        for shard in shards {
            let slice = Slice { wave: *wave, shard };
            // A run not in waves names its shards as before (an unsharded run is shard 0/1).
            let range = slice.games(total);
            let ids = range.start + 1..range.end + 1;
            let Some(&i) = split.dirs.get(&shard.map_or(0, |s| s.index)) else {
                if !ids.is_empty() {
                    complete = false;
                    missing.push(MissingGames {
                        slice,
                        last_wave: None,
                        game_ids: id_ranges(ids),
                        not_given: true,
                    });
                }
                continue;
            };
            let shard_files = read_shard(
                &dirs[i],
                &shape.pgn_name,
                (shape.positions, shape.bullet),
                slice,
                &range,
            )?;
            let present: HashSet<u64> = shard_files.games.iter().map(|g| g.game_id).collect();
            let lacking = id_ranges(ids.filter(|id| !present.contains(id)));
            if !lacking.is_empty() {
                complete = false;
                missing.push(MissingGames {
                    slice,
                    last_wave: None,
                    game_ids: lacking,
                    not_given: false,
                });
            }
            files.push(shard_files);
        }
        wave_complete.push(complete);
    }
    if walked < wave_count {
        // The walk ended on a wave not given (the one after the last given): it and every
        // later wave are one entry.
        if let Some(m) = missing.last_mut() {
            m.last_wave = Some(wave_count - 1);
            let start = m.game_ids.first().map_or(1, |r| *r.start());
            m.game_ids = vec![start..=total];
        }
    }

    // Every present game, in game-id order, with the files that hold it.
    let mut present: Vec<(&FinishedGame, &ShardFiles)> = files
        .iter()
        .flat_map(|f| f.games.iter().map(move |g| (g, f)))
        .collect();
    present.sort_by_key(|(g, _)| g.game_id);

    // A run of waves: the SPRT at the end of each complete wave, in order, as a driver
    // submitting the waves one after another would see it.
    let mut stopped_after_wave = None;
    let mut next_wave = None;
    if wave_pairs.is_some() {
        for (wave, &complete) in waves.iter().zip(&wave_complete) {
            let wave = wave.expect("a run of waves");
            if !complete {
                next_wave = Some(wave.index);
                break;
            }
            if shape.sprt.is_none() {
                continue;
            }
            let end = wave.games(total).end;
            let so_far: Vec<&FinishedGame> = present
                .iter()
                .map(|(g, _)| *g)
                .take_while(|g| g.game_id <= end)
                .collect();
            let pairings = pairing_stats(&shape, &so_far);
            if all_decided(&sprt_decisions(shape.sprt.as_ref(), &pairings)) {
                stopped_after_wave = Some(wave.index);
                break;
            }
        }
    }
    let mut ignored_games = 0;
    if let Some(k) = stopped_after_wave {
        let end = Wave {
            index: k,
            pairs: wave_pairs.unwrap_or(1),
        }
        .games(total)
        .end;
        let before = present.len();
        present.retain(|(g, _)| g.game_id <= end);
        ignored_games = (before - present.len()) as u64;
        missing.clear();
        next_wave = None;
    }
    if !missing.is_empty() && !options.partial {
        return Err(MergeError::Missing { missing, total });
    }

    let mut pgn = String::new();
    let mut positions = String::new();
    let mut bullet = String::new();
    let mut bullet_index = format!("{BULLET_INDEX_HEADER}\n");
    let mut figures = vec![EngineFigures::default(); shape.names.len()];
    for (game, files) in &present {
        pgn.push_str(&files.pgn[&game.game_id]);
        if let Some(lines) = files.positions.get(&game.game_id) {
            positions.push_str(lines);
        }
        if shape.bullet {
            let lines = files.bullet.get(&game.game_id).map_or("", String::as_str);
            bullet.push_str(lines);
            bullet_index.push_str(&format!("{},{}\n", game.game_id, lines.lines().count()));
        }
        for (engine, f) in files.figures.get(&game.game_id).into_iter().flatten() {
            if let Some(total) = figures.get_mut(*engine) {
                total.add(f);
            }
        }
    }
    let games: Vec<FinishedGame> = present.iter().map(|(g, _)| (*g).clone()).collect();
    let game_refs: Vec<&FinishedGame> = games.iter().collect();
    let pairings = pairing_stats(&shape, &game_refs);
    let decisions = match (wave_pairs, next_wave) {
        // Waves still going: the test is read at wave ends only, so its decision is the one
        // at the end of the complete waves, not on games past the first gap.
        (Some(pairs), Some(next)) => {
            let end = next
                .checked_sub(1)
                .map_or(0, |last| Wave { index: last, pairs }.games(total).end);
            let prefix: Vec<&FinishedGame> = game_refs
                .iter()
                .copied()
                .take_while(|g| g.game_id <= end)
                .collect();
            sprt_decisions(shape.sprt.as_ref(), &pairing_stats(&shape, &prefix))
        }
        _ => sprt_decisions(shape.sprt.as_ref(), &pairings),
    };
    // summary.csv holds a verdict only once the test decided, as the run writes it.
    // Waves still going keep their `continue`: the LLR of all games there may be past a bound
    // that the test, read at wave ends, has not reached.
    let waves_going = wave_pairs.is_some() && next_wave.is_some();
    let decided: Vec<Option<SprtDecision>> = decisions
        .iter()
        .map(|d| d.filter(|d| waves_going || *d != SprtDecision::Continue))
        .collect();

    // Everything is written into a staging directory beside `out` that then takes its place,
    // so an earlier merge is replaced whole or not at all.
    let staging = sibling(out, "merging");
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staging).map_err(io(&staging))?;
    let dir = staging.as_path();
    replace_file(&dir.join(&shape.pgn_name), pgn.as_bytes())?;
    let mut csv = Vec::new();
    let csv_path = dir.join("games.csv");
    write_games_csv(&mut csv, &games).map_err(io(&csv_path))?;
    replace_file(&csv_path, &csv)?;
    if shape.positions {
        replace_file(&dir.join("positions.epd"), positions.as_bytes())?;
    }
    if shape.bullet {
        replace_file(&dir.join(BULLET_FILE), bullet.as_bytes())?;
        replace_file(&dir.join(BULLET_INDEX_FILE), bullet_index.as_bytes())?;
    }
    write_summary(dir, &pairings, shape.sprt.as_ref(), &decided)
        .map_err(io(&dir.join("summary.csv")))?;
    let standings = ranking(&shape.names, &pairings, &figures, shape.by_pairs);
    write_ranking(dir, &standings, shape.by_pairs).map_err(io(&dir.join("ranking.csv")))?;
    // The merged directory carries the run's fingerprint, without a shard or wave: the
    // unsharded run's run.toml; the marker says a merge wrote it (so a rerun may replace it).
    first.without_shard().write(dir)?;
    replace_file(&dir.join(MERGE_MARKER), MERGE_MARKER_TEXT.as_bytes())?;
    swap_into_place(&staging, out)?;

    Ok(MergeReport {
        pairings,
        sprt: shape.sprt,
        decisions,
        figures,
        names: shape.names,
        games: games.len() as u64,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_rows_round_trip_and_a_cut_last_line_is_skipped() {
        let f = EngineFigures {
            games: 1,
            moves: 30,
            depth_sum: 200,
            depth_moves: 30,
            nodes: 9000,
            nodes_time: Duration::from_nanos(123_456_789),
            think_time: Duration::from_nanos(123_456_790),
            clock_games: 1,
            time_left: Duration::from_millis(900),
            time_forfeits: 0,
            disconnects: 1,
            stalls: 0,
            illegal_moves: 0,
        };
        let mut text = Vec::new();
        write_figures_header(&mut text).unwrap();
        write_figures_row(&mut text, 7, 1, &f).unwrap();
        let mut text = String::from_utf8(text).unwrap();
        assert_eq!(read_figures(&text).unwrap(), vec![(7, 1, f.clone())]);
        text.push_str("8,0,1,2");
        assert_eq!(
            read_figures(&text).unwrap().len(),
            1,
            "cut-off tail skipped"
        );
        let damaged = text.replace("7,1,", "7,x,") + "\n";
        assert!(read_figures(&damaged).unwrap_err().starts_with("line 2"));
    }

    #[test]
    fn the_verdict_line_has_one_fixed_form_per_state() {
        use SprtDecision::{AcceptH0, AcceptH1, Continue};
        let report = |decisions: Vec<Option<SprtDecision>>,
                      wave_pairs: Option<u64>,
                      stopped_after_wave: Option<u64>,
                      next_wave: Option<u64>,
                      missing: bool| MergeReport {
            pairings: Vec::new(),
            sprt: Some(SprtParams::new(0.0, 5.0, 0.05, 0.05, SprtModel::Normalized).unwrap()),
            decisions,
            figures: Vec::new(),
            names: Vec::new(),
            games: 0,
            total_games: 0,
            missing: if missing {
                vec![MissingGames {
                    slice: Slice::default(),
                    last_wave: None,
                    game_ids: vec![1..=2],
                    not_given: true,
                }]
            } else {
                Vec::new()
            },
            wave_pairs,
            stopped_after_wave,
            next_wave,
            ignored_games: 0,
            not_started: Vec::new(),
            versions: Vec::new(),
            positions: false,
            bullet: false,
            pgn_name: "games.pgn".to_string(),
        };
        let line = |r: MergeReport| r.verdict().unwrap();
        assert_eq!(
            line(report(vec![Some(AcceptH1)], Some(4), Some(3), None, false)),
            "verdict: H1 accepted (stopped by SPRT after wave 3)"
        );
        assert_eq!(
            line(report(vec![Some(AcceptH0)], Some(4), Some(0), None, false)),
            "verdict: H0 accepted (stopped by SPRT after wave 0)"
        );
        assert_eq!(
            line(report(
                vec![Some(AcceptH0), Some(AcceptH1)],
                Some(4),
                Some(2),
                None,
                false
            )),
            "verdict: decided (stopped by SPRT after wave 2)"
        );
        // Decided on a prefix that is not complete: the waves still go on.
        assert_eq!(
            line(report(vec![Some(AcceptH1)], Some(4), None, Some(5), true)),
            "verdict: continue with wave 5"
        );
        assert_eq!(
            line(report(vec![Some(AcceptH1)], None, None, None, false)),
            "verdict: H1 accepted"
        );
        // Decided on a partial set of shards: not a result yet.
        assert_eq!(
            line(report(vec![Some(AcceptH1)], None, None, None, true)),
            "verdict: continue (H1 accepted on the games present)"
        );
        assert_eq!(
            line(report(vec![Some(Continue)], None, None, None, true)),
            "verdict: continue"
        );
        assert_eq!(
            line(report(vec![Some(Continue)], Some(4), None, None, false)),
            "verdict: undecided (all games played)"
        );
        let mut no_test = report(vec![None], None, None, None, false);
        no_test.sprt = None;
        assert_eq!(no_test.verdict(), None);
    }

    #[test]
    fn missing_games_name_the_shard_and_the_rerun() {
        let m = MissingGames {
            slice: Slice {
                wave: None,
                shard: Some(Shard { index: 2, count: 4 }),
            },
            last_wave: None,
            game_ids: vec![17..=24],
            not_given: false,
        };
        assert_eq!(
            m.to_string(),
            "shard 2/4 is missing games 17-24; rerun with --shard 2/4 --resume"
        );
        let wave = Some(Wave { index: 3, pairs: 4 });
        let m = MissingGames {
            slice: Slice {
                wave,
                shard: Some(Shard { index: 1, count: 2 }),
            },
            last_wave: None,
            game_ids: vec![29..=30, 32..=32],
            not_given: false,
        };
        assert_eq!(m.count(), 3);
        assert_eq!(
            m.to_string(),
            "wave 3 shard 1/2 is missing games 29-30, 32; rerun with --wave 3 --wave-pairs 4 \
             --shard 1/2 --resume"
        );
        let m = MissingGames {
            slice: Slice { wave, shard: None },
            last_wave: Some(9),
            game_ids: vec![25..=80],
            not_given: true,
        };
        assert_eq!(
            m.to_string(),
            "waves 3-9 (games 25-80) were not given; run them with --wave K --wave-pairs 4 \
             for K = 3 to 9"
        );
    }
}
