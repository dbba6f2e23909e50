//! Runs a tournament: worker threads (one per concurrent game) take games from the schedule and
//! play them with their own players; the calling thread collects finished games in completion
//! order, appends and flushes them to the output files, keeps the statistics by game pairs,
//! reports progress and stops the run when the SPRT decides.

use super::config::{EngineKind, MatchConfig, PgnMode};
use super::engine_log::{EngineLog, LogSink, LoggedPlayer};
use super::events::Event;
use super::figures::{read_figures, write_figures_header, write_figures_row, FIGURES_FILE};
use super::game::{play_game, GameSetup};
use super::lock::{LockError, OutputLock};
use super::manifest::{Fingerprint, ManifestError, MANIFEST_FILE};
use super::pairing::{ranking, EngineFigures, PairingStats};
use super::player::{BuiltinPlayer, Player, PlayerError};
use super::report::EngineFacts;
use super::schedule::{OpeningSource, Schedule, Shard, Slice, Wave, WaveError};
use super::uci_player::{check_options, UciCommand, UciPlayer};
use crate::eval::EvalParams;
use crate::record::bullet::{
    bullet_lines, bullet_lines_by_game, BULLET_FILE, BULLET_INDEX_FILE, BULLET_INDEX_HEADER,
};
use crate::record::{
    read_finished_games, sample_positions, split_pgn_games, write_games_csv,
    write_games_csv_header, write_pgn, FinishedGame, GameRecord, GamesCsvError, Termination,
    TrainingPosition,
};
use crate::rng::Rng;
use crate::search::SearchParams;
use crate::stats::SprtDecision;
use crate::toml_config::ConfigError;
use std::collections::{HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Instant;
use thiserror::Error;

/// Why a run could not start or had to stop.
#[derive(Debug, Error)]
pub enum ArenaError {
    /// An engine did not start before the games (or its settings cannot be sent to it).
    #[error("engine `{name}`: {source}")]
    EngineStart {
        /// The engine's configured name.
        name: String,
        /// Why it did not start.
        source: PlayerError,
    },
    /// A configured option value the engine's own `option` line does not allow; refused
    /// before the first game.
    #[error("engine `{name}`: {source}")]
    OptionValue {
        /// The engine's configured name.
        name: String,
        /// The option, its value and what the engine allows.
        source: PlayerError,
    },
    /// With `strict_options`, an option the engine did not declare.
    #[error("engine `{name}` does not declare option `{option}` (strict options: the run stops)")]
    UndeclaredOption {
        /// The engine's configured name.
        name: String,
        /// The option's configured name.
        option: String,
    },
    /// An engine failed to start `tournament.max_restarts` times in a row during the run.
    #[error("engine `{name}` failed to restart {attempts} times in a row ({source}): the run stops; the games played so far are saved, and --resume continues")]
    EngineRestart {
        /// The engine's configured name.
        name: String,
        /// How many starts were tried.
        attempts: u32,
        /// Why the last one failed.
        source: PlayerError,
    },
    /// A built-in engine's weights file could not be loaded.
    #[error("engine `{name}`: weights: {message}")]
    Weights {
        /// The engine's configured name.
        name: String,
        /// What was wrong with the file.
        message: String,
    },
    /// A built-in engine's search constants file could not be loaded.
    #[error("engine `{name}`: search: {source}")]
    SearchParams {
        /// The engine's configured name.
        name: String,
        /// What was wrong with the file (its path, line and key); boxed to keep the error small.
        source: Box<ConfigError>,
    },
    /// A built-in engine's table cannot fit in this machine.
    #[error("{config}: engine `{name}`: hash_mb = {hash_mb} is more than this machine can give a table ({available_mb} MB)")]
    HashTooLarge {
        /// The configuration file.
        config: String,
        /// The engine's configured name.
        name: String,
        /// The table size asked for.
        hash_mb: usize,
        /// The largest table this machine can have (`search::max_hash_mb`).
        available_mb: usize,
    },
    /// Reading or writing an output file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// `output.dir` names something that is not a directory.
    #[error("{config}: output.dir: {} exists and is not a directory; the output directory must be a directory or not exist yet", dir.display())]
    OutputNotDirectory {
        /// The configuration file.
        config: String,
        /// The path it names.
        dir: PathBuf,
    },
    /// The output files of the run to resume disagree or are damaged.
    #[error("cannot resume: {0}")]
    Resume(String),
    /// `games.csv` of the run to resume cannot be read.
    #[error("cannot resume: {0}")]
    GamesCsv(#[from] GamesCsvError),
    /// The run fingerprint does not match (or cannot be read or written).
    #[error("cannot resume: {0}")]
    Manifest(#[from] ManifestError),
    /// A wave past the end of the schedule, or of no pairs.
    #[error("--wave: {0}")]
    Wave(#[from] WaveError),
    /// The output directory is locked by another run.
    #[error(transparent)]
    Lock(#[from] LockError),
    /// A new run into a directory that holds results.
    #[error("{dir} already holds the results of a run: pass --resume to continue it, or choose another output directory")]
    OutputExists {
        /// The output directory.
        dir: String,
    },
    /// Shards and waves split whole pairs, so a run ending in single games is played whole.
    #[error("tournament.single_last_game: a run with an odd number of games per pairing cannot be split into shards or waves; play it whole")]
    UnpairedSlice,
}

impl ArenaError {
    /// Whether the error is the user's input (a configuration, a directory in use or not matching
    /// the run): the command line exits with status 2 for these, 1 for the others.
    pub fn is_bad_input(&self) -> bool {
        matches!(
            self,
            ArenaError::Weights { .. }
                | ArenaError::SearchParams { .. }
                | ArenaError::EngineStart {
                    source: PlayerError::NoChess960 { .. },
                    ..
                }
                | ArenaError::OptionValue { .. }
                | ArenaError::UndeclaredOption { .. }
                | ArenaError::HashTooLarge { .. }
                | ArenaError::OutputNotDirectory { .. }
                | ArenaError::Resume(_)
                | ArenaError::GamesCsv(_)
                | ArenaError::Manifest(ManifestError::Mismatch { .. })
                | ArenaError::Manifest(ManifestError::Malformed { .. })
                | ArenaError::Lock(LockError::Held { .. })
                | ArenaError::OutputExists { .. }
                | ArenaError::UnpairedSlice
                | ArenaError::Wave(_)
        )
    }
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> ArenaError + '_ {
    move |source| ArenaError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// How to create a fresh player of one engine (on start and after a failure).
#[derive(Clone)]
pub enum EngineFactory {
    /// The built-in engine with these weights, search constants and table size.
    Builtin {
        /// The evaluation weights, shared by every player of this engine.
        params: Arc<EvalParams>,
        /// The search constants (`builtin.search`, else the compiled-in ones).
        search: Arc<SearchParams>,
        /// Transposition table size per player.
        hash_mb: usize,
    },
    /// An external UCI engine.
    Uci(UciCommand),
}

impl EngineFactory {
    /// Starts a player; `timeout` bounds an external engine's handshake.
    pub fn start(&self, timeout: std::time::Duration) -> Result<Box<dyn Player>, PlayerError> {
        self.start_logged(timeout, None)
    }

    /// Starts a player whose engine traffic goes to the engine log when `log` is given (the
    /// built-in engine's requests and answers in UCI words).
    pub fn start_logged(
        &self,
        timeout: std::time::Duration,
        log: Option<&LogSink>,
    ) -> Result<Box<dyn Player>, PlayerError> {
        match self {
            EngineFactory::Builtin {
                params,
                search,
                hash_mb,
            } => {
                let player = Box::new(BuiltinPlayer::with_search_params(
                    params.clone(),
                    SearchParams::clone(search),
                    *hash_mb,
                )?);
                Ok(match log {
                    Some(log) => Box::new(LoggedPlayer::new(player, log.fresh())),
                    None => player,
                })
            }
            EngineFactory::Uci(command) => Ok(Box::new(UciPlayer::start_logged(
                command,
                timeout,
                log.map(LogSink::fresh),
            )?)),
        }
    }

    /// Builds the factories of a configuration: weights files load once each and are shared.
    /// Settings that cannot work (a table larger than the machine, an option that would break
    /// its UCI line) are refused here, before any engine starts.
    pub fn from_config(config: &MatchConfig) -> Result<Vec<EngineFactory>, ArenaError> {
        let mut loaded: HashMap<Option<PathBuf>, Arc<EvalParams>> = HashMap::new();
        let mut factories = Vec::new();
        for engine in &config.engines {
            let factory = match &engine.kind {
                EngineKind::Builtin {
                    weights,
                    hash_mb,
                    search,
                } => {
                    // The limit the engine itself advertises; players still allocate fallibly.
                    let available_mb = crate::search::max_hash_mb();
                    if *hash_mb > available_mb {
                        return Err(ArenaError::HashTooLarge {
                            config: config.source.clone(),
                            name: engine.name.clone(),
                            hash_mb: *hash_mb,
                            available_mb,
                        });
                    }
                    let params = match loaded.get(weights) {
                        Some(p) => p.clone(),
                        None => {
                            let params = match weights {
                                Some(path) => {
                                    EvalParams::load(path).map_err(|e| ArenaError::Weights {
                                        name: engine.name.clone(),
                                        message: e.to_string(),
                                    })?
                                }
                                None => EvalParams::default(),
                            };
                            let params = Arc::new(params);
                            loaded.insert(weights.clone(), params.clone());
                            params
                        }
                    };
                    let search = match search {
                        Some(path) => {
                            SearchParams::load(path).map_err(|source| ArenaError::SearchParams {
                                name: engine.name.clone(),
                                source: Box::new(source),
                            })?
                        }
                        None => SearchParams::default(),
                    };
                    EngineFactory::Builtin {
                        params,
                        search: Arc::new(search),
                        hash_mb: *hash_mb,
                    }
                }
                EngineKind::Uci {
                    command,
                    args,
                    options,
                    working_dir,
                } => {
                    check_options(options).map_err(|source| ArenaError::EngineStart {
                        name: engine.name.clone(),
                        source,
                    })?;
                    EngineFactory::Uci(UciCommand {
                        command: command.clone(),
                        args: args.clone(),
                        options: options.clone(),
                        working_dir: working_dir.clone(),
                    })
                }
            };
            factories.push(factory);
        }
        Ok(factories)
    }
}

/// What a finished run reports.
pub struct TournamentSummary {
    /// One entry per pairing of the schedule, resumed games included.
    pub pairings: Vec<PairingStats>,
    /// Games played by this run (not counting resumed ones).
    pub games_played: u64,
    /// Per pairing: the SPRT's decision, if any.
    pub sprt_decisions: Vec<Option<SprtDecision>>,
    /// Per configured engine: what it did in this run's games.
    pub figures: Vec<EngineFigures>,
    /// Where the results are.
    pub output_dir: PathBuf,
}

/// How to run.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Continue the run in the output directory instead of refusing to touch it.
    pub resume: bool,
    /// Play only this shard of the schedule (its games are a contiguous block of whole pairs);
    /// the directory then also gets `figures.csv` for `sparring merge`, and the SPRT does not
    /// stop the shard (the merge evaluates it on all shards' pairs).
    pub shard: Option<Shard>,
    /// Play only this wave of the schedule (with `shard`: that shard of the wave). Like a
    /// shard, a wave writes `figures.csv` and plays all its games whatever its SPRT says.
    pub wave: Option<Wave>,
}

impl RunOptions {
    /// The part of the schedule these options play.
    pub fn slice(&self) -> Slice {
        Slice {
            wave: self.wave,
            shard: self.shard,
        }
    }
}

/// The output files of a run, appended and flushed after every game.
struct Outputs {
    pgn: BufWriter<File>,
    pgn_name: String,
    csv: BufWriter<File>,
    positions: Option<BufWriter<File>>,
    /// `positions.bullet` and its per-game index, with `positions_format` bullet or both.
    bullet: Option<(BufWriter<File>, BufWriter<File>)>,
    /// A shard's per-game engine figures (`figures.csv`).
    figures: Option<BufWriter<File>>,
    dir: PathBuf,
}

fn append(path: &Path) -> Result<BufWriter<File>, ArenaError> {
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map(BufWriter::new)
        .map_err(io_error(path))
}

/// Replaces a file's content through a temporary file, so a kill never leaves it half written.
fn replace_file(path: &Path, content: &[u8]) -> Result<(), ArenaError> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, content)
        .and_then(|_| std::fs::rename(&tmp, path))
        .map_err(io_error(path))
}

impl Outputs {
    fn write(&mut self, record: &GameRecord, per_game: usize, seed: u64) -> Result<(), ArenaError> {
        let pgn_path = self.dir.join(&self.pgn_name);
        // One write of the whole game, so a reader (or a kill) never sees half of one.
        let mut game = Vec::new();
        write_pgn(record, &mut game).map_err(io_error(&pgn_path))?;
        self.pgn.write_all(&game).map_err(io_error(&pgn_path))?;
        self.pgn.flush().map_err(io_error(&pgn_path))?;
        let sampled = if self.positions.is_some() || self.bullet.is_some() {
            sample_positions(record, per_game, seed)
        } else {
            Vec::new()
        };
        if let Some(out) = self.positions.as_mut() {
            let path = self.dir.join("positions.epd");
            // Each line carries its id "<pair>.<game>.<ply>": the tuner keeps a pair on one
            // side of its split, and resume keeps the lines of finished games.
            for p in &sampled {
                writeln!(out, "{p}").map_err(io_error(&path))?;
            }
            out.flush().map_err(io_error(&path))?;
        }
        if let Some((out, index)) = self.bullet.as_mut() {
            // The lines first, then their index row: a kill between them leaves lines the
            // index does not list, which resume and merge leave out.
            let path = self.dir.join(BULLET_FILE);
            let (lines, _no_score) = bullet_lines(&sampled);
            out.write_all(lines.as_bytes())
                .and_then(|_| out.flush())
                .map_err(io_error(&path))?;
            let index_path = self.dir.join(BULLET_INDEX_FILE);
            writeln!(index, "{},{}", record.game_id, lines.lines().count())
                .and_then(|_| index.flush())
                .map_err(io_error(&index_path))?;
        }
        if let Some(out) = self.figures.as_mut() {
            let path = self.dir.join(FIGURES_FILE);
            for (engine, color) in [
                (record.white_engine, crate::board::Color::White),
                (record.black_engine, crate::board::Color::Black),
            ] {
                let mut figures = EngineFigures::default();
                figures.add_game(record, color);
                write_figures_row(out, record.game_id, engine, &figures)
                    .map_err(io_error(&path))?;
            }
            out.flush().map_err(io_error(&path))?;
        }
        // The CSV row is written last: it is what marks the game as done for --resume.
        let csv_path = self.dir.join("games.csv");
        record
            .write_csv_row(&mut self.csv)
            .map_err(io_error(&csv_path))?;
        self.csv.flush().map_err(io_error(&csv_path))
    }
}

/// The file in the output directory that holds where this run's games start in an appended
/// PGN file (a byte offset): resume and its repairs touch only what follows.
pub const PGN_START_FILE: &str = "pgn-start.txt";

/// The files a run keeps in its output directory besides the PGN: with `pgn_mode` append or
/// replace, a new run moves the previous run's into `previous/` instead of refusing the directory.
const RUN_STATE_FILES: [&str; 9] = [
    "games.csv",
    "summary.csv",
    "ranking.csv",
    "positions.epd",
    BULLET_FILE,
    BULLET_INDEX_FILE,
    FIGURES_FILE,
    MANIFEST_FILE,
    PGN_START_FILE,
];

fn read_pgn_text(path: &Path) -> Result<String, ArenaError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(io_error(path)(e)),
    }
}

/// Where this run's games start in the PGN text (0 when the run did not append).
fn run_pgn_start(dir: &Path, pgn_text: &str) -> Result<usize, ArenaError> {
    let path = dir.join(PGN_START_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(io_error(&path)(e)),
    };
    text.trim()
        .parse::<usize>()
        .ok()
        .filter(|&start| pgn_text.is_char_boundary(start))
        .ok_or_else(|| {
            ArenaError::Resume(format!(
                "{}: {:?} is not an offset inside the PGN file ({} bytes): restore it or start a new run",
                path.display(),
                text.trim(),
                pgn_text.len()
            ))
        })
}

/// The length of the PGN text without an incomplete last game (a run killed while writing it):
/// an appending run starts after the complete games, so readers never meet half a game.
fn complete_pgn_length(pgn_text: &str) -> usize {
    let games = split_pgn_games(pgn_text);
    match games.last() {
        // The game's text is a slice of `pgn_text`: its start is the distance between them.
        Some(last) if !last.complete => last.text.as_ptr() as usize - pgn_text.as_ptr() as usize,
        _ => pgn_text.len(),
    }
}

/// Starts appending to the PGN: cuts an incomplete last game, makes sure the file ends with a
/// blank line, and records the offset this run's games start at.
fn start_appended_pgn(dir: &Path, pgn_path: &Path) -> Result<(), ArenaError> {
    let text = read_pgn_text(pgn_path)?;
    let mut kept = text[..complete_pgn_length(&text)].trim_end().to_string();
    if !kept.is_empty() {
        kept.push_str("\n\n");
    }
    if kept != text {
        replace_file(pgn_path, kept.as_bytes())?;
    }
    replace_file(
        &dir.join(PGN_START_FILE),
        format!("{}\n", kept.len()).as_bytes(),
    )
}

/// Moves the previous run's state files into `previous/` (replacing an older one), so a new run
/// that appends to or replaces the PGN is not refused by the state of the last one.
fn set_previous_run_aside(dir: &Path) -> Result<(), ArenaError> {
    let previous = dir.join("previous");
    if previous.exists() {
        std::fs::remove_dir_all(&previous).map_err(io_error(&previous))?;
    }
    for name in RUN_STATE_FILES {
        let path = dir.join(name);
        if path.exists() {
            std::fs::create_dir_all(&previous).map_err(io_error(&previous))?;
            std::fs::rename(&path, previous.join(name)).map_err(io_error(&path))?;
        }
    }
    Ok(())
}

/// The games `--resume` keeps: those both in games.csv and complete in games.pgn. Repairs what
/// a kill leaves (a PGN game not yet in the CSV, a PGN game cut off at the end, a CSV row cut
/// short) by dropping it, so the game is played again; refuses files that disagree otherwise.
fn resume_games(
    dir: &Path,
    pgn_name: &str,
    games_range: &std::ops::Range<u64>,
) -> Result<(Vec<FinishedGame>, String), ArenaError> {
    let csv_path = dir.join("games.csv");
    let pgn_path = dir.join(pgn_name);
    let mut finished = read_finished_games(&csv_path)?;
    let pgn_text = read_pgn_text(&pgn_path)?;
    // With `pgn_mode = "append"`, the games before this run's start belong to earlier runs:
    // they are kept as they are and never read as this run's.
    let start = run_pgn_start(dir, &pgn_text)?;
    let (earlier, pgn_text) = pgn_text.split_at(start);
    let games = split_pgn_games(pgn_text);
    let pgn_name = pgn_path.display();
    let mut complete: HashSet<u64> = HashSet::new();
    let mut cut_off_tail = None;
    for (i, game) in games.iter().enumerate() {
        let is_last = i + 1 == games.len();
        match (game.game_id, game.complete) {
            (Some(id), true) => {
                if !complete.insert(id) {
                    return Err(ArenaError::Resume(format!(
                        "{pgn_name}: game {id} is there twice"
                    )));
                }
            }
            (id, false) if is_last => cut_off_tail = id,
            (id, _) => {
                return Err(ArenaError::Resume(format!(
                    "{pgn_name}: game {} (the {}th in the file) is incomplete or has no GameId, \
                     and games follow it: the file is damaged",
                    id.map_or("?".to_string(), |id| id.to_string()),
                    i + 1
                )));
            }
        }
    }
    for game in &finished {
        if game.game_id == 0 || !games_range.contains(&(game.game_id - 1)) {
            return Err(ArenaError::Resume(format!(
                "{}: game {} is not in this schedule's games {}-{}",
                csv_path.display(),
                game.game_id,
                games_range.start + 1,
                games_range.end
            )));
        }
    }
    let missing: Vec<u64> = finished
        .iter()
        .map(|g| g.game_id)
        .filter(|id| !complete.contains(id))
        .collect();
    match missing.as_slice() {
        [] => {}
        // The PGN was cut inside the last game after its CSV row was written: play it again.
        [id] if cut_off_tail == Some(*id) => finished.retain(|g| g.game_id != *id),
        ids => {
            let shown: Vec<String> = ids.iter().take(5).map(u64::to_string).collect();
            return Err(ArenaError::Resume(format!(
                "{} lists {} game(s) that {pgn_name} does not hold complete (game {}{}): the \
                 files disagree; restore {pgn_name}, or start a new run in another directory",
                csv_path.display(),
                ids.len(),
                shown.join(", "),
                if ids.len() > 5 { ", ..." } else { "" }
            )));
        }
    }
    let done: HashSet<u64> = finished.iter().map(|g| g.game_id).collect();
    let mut kept_pgn = String::with_capacity(earlier.len() + pgn_text.len());
    kept_pgn.push_str(earlier);
    for game in &games {
        if game.complete && game.game_id.is_some_and(|id| done.contains(&id)) {
            kept_pgn.push_str(game.text.trim_end());
            kept_pgn.push_str("\n\n");
        }
    }
    Ok((finished, kept_pgn))
}

/// On resume: keeps the bullet lines (and index rows) of the finished games, and drops those
/// of a game that was being written. A directory without the files (a run that recorded only
/// positions.epd before) starts them afresh.
fn keep_bullet_lines(dir: &Path, done: &HashSet<u64>) -> Result<(), ArenaError> {
    let bullet_path = dir.join(BULLET_FILE);
    let index_path = dir.join(BULLET_INDEX_FILE);
    let read = |path: &Path| match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .map_err(|_| ArenaError::Resume(format!("{}: not UTF-8 text", path.display()))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(io_error(path)(e)),
    };
    let bullet = read(&bullet_path)?;
    let index = read(&index_path)?;
    let index = if index.is_empty() {
        format!("{BULLET_INDEX_HEADER}\n")
    } else {
        index
    };
    let games = bullet_lines_by_game(&bullet, &bullet_path.display().to_string(), &index)
        .map_err(|e| ArenaError::Resume(format!("{}: {e}", index_path.display())))?;
    let mut kept_lines = String::new();
    let mut kept_index = format!("{BULLET_INDEX_HEADER}\n");
    for (id, lines) in games.iter().filter(|(id, _)| done.contains(id)) {
        kept_lines.push_str(lines);
        kept_index.push_str(&format!("{id},{}\n", lines.lines().count()));
    }
    replace_file(&bullet_path, kept_lines.as_bytes())?;
    replace_file(&index_path, kept_index.as_bytes())
}

/// Prepares the output directory; on resume, returns the games already finished and drops the
/// traces of games that were being written when the run stopped.
fn prepare_outputs(
    config: &MatchConfig,
    resume: bool,
    games_range: &std::ops::Range<u64>,
    sharded: bool,
) -> Result<(Outputs, Vec<FinishedGame>), ArenaError> {
    let dir = config.output.dir.clone();
    let csv_path = dir.join("games.csv");
    let pgn_path = dir.join(&config.output.pgn_name);
    let positions_path = dir.join("positions.epd");
    let figures_path = dir.join(FIGURES_FILE);
    let finished = if resume {
        let (finished, kept_pgn) = resume_games(&dir, &config.output.pgn_name, games_range)?;
        let done: HashSet<u64> = finished.iter().map(|g| g.game_id).collect();
        replace_file(&pgn_path, kept_pgn.as_bytes())?;
        if let Ok(text) = std::fs::read_to_string(&positions_path) {
            let kept: String = text
                .lines()
                .filter(|l| {
                    TrainingPosition::parse(l)
                        .ok()
                        .flatten()
                        .and_then(|p| p.id)
                        .is_some_and(|id| done.contains(&id.game))
                })
                .map(|l| format!("{l}\n"))
                .collect();
            replace_file(&positions_path, kept.as_bytes())?;
        }
        if config.output.positions_format.bullet() {
            keep_bullet_lines(&dir, &done)?;
        }
        if sharded {
            // Keep the figures of the finished games (a kill may leave rows of an unfinished one).
            let text = std::fs::read_to_string(&figures_path).unwrap_or_default();
            let rows = read_figures(&text).unwrap_or_default();
            let mut kept = Vec::new();
            write_figures_header(&mut kept).map_err(io_error(&figures_path))?;
            for (game, engine, figures) in rows.iter().filter(|r| done.contains(&r.0)) {
                write_figures_row(&mut kept, *game, *engine, figures)
                    .map_err(io_error(&figures_path))?;
            }
            replace_file(&figures_path, &kept)?;
        }
        let mut csv = Vec::new();
        write_games_csv(&mut csv, &finished).map_err(io_error(&csv_path))?;
        replace_file(&csv_path, &csv)?;
        finished
    } else {
        let mut header = Vec::new();
        write_games_csv_header(&mut header).map_err(io_error(&csv_path))?;
        replace_file(&csv_path, &header)?;
        match config.output.pgn_mode {
            PgnMode::Append => start_appended_pgn(&dir, &pgn_path)?,
            // Files of an earlier start that played no game are replaced.
            PgnMode::New | PgnMode::Replace => replace_file(&pgn_path, b"")?,
        }
        if config.output.positions && config.output.positions_format.epd() {
            replace_file(&positions_path, b"")?;
        }
        if config.output.positions && config.output.positions_format.bullet() {
            replace_file(&dir.join(BULLET_FILE), b"")?;
            replace_file(
                &dir.join(BULLET_INDEX_FILE),
                format!("{BULLET_INDEX_HEADER}\n").as_bytes(),
            )?;
        }
        if sharded {
            let mut header = Vec::new();
            write_figures_header(&mut header).map_err(io_error(&figures_path))?;
            replace_file(&figures_path, &header)?;
        }
        Vec::new()
    };
    let outputs = Outputs {
        pgn: append(&pgn_path)?,
        pgn_name: config.output.pgn_name.clone(),
        csv: append(&csv_path)?,
        positions: if config.output.positions && config.output.positions_format.epd() {
            Some(append(&positions_path)?)
        } else {
            None
        },
        bullet: if config.output.positions && config.output.positions_format.bullet() {
            Some((
                append(&dir.join(BULLET_FILE))?,
                append(&dir.join(BULLET_INDEX_FILE))?,
            ))
        } else {
            None
        },
        figures: if sharded {
            Some(append(&figures_path)?)
        } else {
            None
        },
        dir,
    };
    Ok((outputs, finished))
}

/// Creates and locks the output directory, and checks it against the run: a fresh run needs a
/// directory without results; a resumed one needs the same game-deciding settings.
fn claim_output_dir(
    config: &MatchConfig,
    resume: bool,
    now: Fingerprint,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<(OutputLock, Fingerprint), ArenaError> {
    let dir = &config.output.dir;
    if dir.exists() && !dir.is_dir() {
        return Err(ArenaError::OutputNotDirectory {
            config: config.source.clone(),
            dir: dir.clone(),
        });
    }
    std::fs::create_dir_all(dir).map_err(io_error(dir))?;
    let lock = OutputLock::acquire(dir)?;
    let pgn_counts = config.output.pgn_mode == PgnMode::New;
    let has_results = dir.join("games.csv").exists()
        || (pgn_counts && dir.join(&config.output.pgn_name).exists());
    if !resume && !pgn_counts {
        set_previous_run_aside(dir)?;
    } else if resume {
        match Fingerprint::read(dir)? {
            Some(before) => before.check(&now, dir)?,
            None if has_results => on_event(Event::ResumedWithoutFingerprint { dir }),
            None => {}
        }
    } else if has_results {
        return Err(ArenaError::OutputExists {
            dir: dir.display().to_string(),
        });
    }
    Ok((lock, now))
}

/// What a worker tells the collecting thread.
enum WorkerMessage {
    Started {
        game_id: u64,
        engines: [usize; 2],
    },
    Finished(Box<GameRecord>),
    /// The run cannot go on (an engine that does not start any more).
    Failed(ArenaError),
}

/// Plays the whole tournament, reporting progress through `on_event` (called on this thread).
pub fn run_tournament(
    config: &MatchConfig,
    openings: Arc<dyn OpeningSource>,
    options: &RunOptions,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<TournamentSummary, ArenaError> {
    let run_started = Instant::now();
    let factories = EngineFactory::from_config(config)?;
    let order = config
        .openings
        .as_ref()
        .map_or(super::config::OpeningOrder::Sequential, |o| o.order);
    // The book applies `openings.start` itself; the schedule counts from its first entry.
    let schedule = Schedule::new(
        config.kind,
        config.engines.len(),
        config.rounds as u64,
        openings.count(),
        order,
        1,
        config.seed,
    )
    .with_openings_per_game(config.openings.as_ref().is_some_and(|o| o.per_game))
    .with_single_last_game(config.single_last_game);
    let schedule_games = schedule.total_games();
    if config.single_last_game && options.slice() != Slice::default() {
        return Err(ArenaError::UnpairedSlice);
    }
    // The 0-based game numbers this run plays: all, or its shard's block.
    if let Some(wave) = options.wave {
        Wave::new(wave.index, wave.pairs, schedule_games)?;
    }
    let slice = options.slice();
    let sliced = slice != Slice::default();
    let games_range = slice.games(schedule_games);
    let total = games_range.end - games_range.start;
    let mut fingerprint = Fingerprint::of(config);
    if sliced {
        fingerprint = fingerprint.with_slice(slice, schedule_games);
    }
    // Held until this function returns, whatever it returns.
    let (_lock, fingerprint) = claim_output_dir(config, options.resume, fingerprint, on_event)?;
    let engine_log = match &config.output.engine_log {
        Some(path) => Some(Arc::new(EngineLog::open(path).map_err(io_error(path))?)),
        None => None,
    };
    let sinks: Vec<Option<LogSink>> = config
        .engines
        .iter()
        .map(|e| {
            engine_log
                .as_ref()
                .map(|log| LogSink::new(log.clone(), &e.name))
        })
        .collect();
    // Start every engine once before any game, so a bad command or option stops the run at once.
    let mut facts = Vec::new();
    for ((factory, engine), sink) in factories.iter().zip(&config.engines).zip(&sinks) {
        let player =
            start_player(config, factory, sink.as_ref()).map_err(|source| match source {
                PlayerError::OptionValue { .. } => ArenaError::OptionValue {
                    name: engine.name.clone(),
                    source,
                },
                source => ArenaError::EngineStart {
                    name: engine.name.clone(),
                    source,
                },
            })?;
        for option in player.undeclared_options() {
            if config.strict_options {
                return Err(ArenaError::UndeclaredOption {
                    name: engine.name.clone(),
                    option,
                });
            }
            on_event(Event::UndeclaredOption {
                engine: &engine.name,
                option: &option,
            });
        }
        let (threads, hash) = match &engine.kind {
            EngineKind::Builtin { hash_mb, .. } => {
                (Some("1".to_string()), Some(hash_mb.to_string()))
            }
            EngineKind::Uci { .. } => (player.option_value("Threads"), player.option_value("Hash")),
        };
        facts.push(EngineFacts {
            name: engine.name.clone(),
            time_control: engine
                .time_control
                .clone()
                .unwrap_or_else(|| config.time_control.clone()),
            threads,
            hash,
        });
    }
    on_event(Event::EnginesReady { engines: &facts });

    let (mut outputs, finished) = prepare_outputs(config, options.resume, &games_range, sliced)?;
    fingerprint.write(&outputs.dir)?;

    let random_plies = config.openings.as_ref().map_or(0, |o| o.random_plies);
    let names: Vec<String> = config.engines.iter().map(|e| e.name.clone()).collect();
    let mut pairings: Vec<PairingStats> = schedule
        .pairings
        .iter()
        .map(|&(a, b)| PairingStats::new(&names[a], &names[b]))
        .collect();
    let pairing_of = |a: usize, b: usize| {
        schedule
            .pairings
            .iter()
            .position(|&(x, y)| (x, y) == (a, b) || (x, y) == (b, a))
    };

    // Statistics of the games already played (resume).
    let done: HashSet<u64> = finished.iter().map(|g| g.game_id).collect();
    for game in &finished {
        let spec = schedule.game(game.game_id - 1);
        let first = schedule.pairings[spec.pairing].0;
        let first_is_white = spec.engines[0] == first;
        let white_score = match game.result {
            crate::board::GameResult::WhiteWins => 1.0,
            crate::board::GameResult::BlackWins => 0.0,
            crate::board::GameResult::Draw => 0.5,
        };
        let first_score = if first_is_white {
            white_score
        } else {
            1.0 - white_score
        };
        pairings[spec.pairing].add_game(game.pair_id, first_score);
    }

    on_event(Event::RunStarted {
        total,
        already_done: done.len() as u64,
    });
    let next = AtomicU64::new(games_range.start);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<WorkerMessage>();
    let workers = config.concurrency.min(total.max(1) as usize);
    let mut decisions: Vec<Option<SprtDecision>> = vec![None; pairings.len()];
    let mut figures: Vec<EngineFigures> = vec![EngineFigures::default(); config.engines.len()];
    let mut played = 0u64;
    let mut games_done = done.len() as u64;
    // The interval counts game pairs when results are by pairs, else games (as fastchess).
    let by_pairs = config.output.report_penta
        && config.output.format == super::config::ResultsFormat::Fastchess;
    let mut counted_at_last_block = 0u64;
    let rating_interval = u64::from(config.output.rating_interval.max(1));
    let mut run_error = None;

    std::thread::scope(|scope| {
        for _ in 0..workers {
            let tx = tx.clone();
            let (schedule, factories, names, openings) = (&schedule, &factories, &names, &openings);
            let sinks = &sinks;
            let (next, stop, done) = (&next, &stop, &done);
            let end = games_range.end;
            scope.spawn(move || {
                let mut players: Vec<Option<Box<dyn Player>>> =
                    (0..factories.len()).map(|_| None).collect();
                loop {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    if n >= end {
                        break;
                    }
                    let spec = schedule.game(n);
                    if done.contains(&spec.game_id) {
                        continue;
                    }
                    let mut rng = Rng::derive(config.seed, schedule.opening_stream(&spec));
                    let opening = openings
                        .opening(spec.opening_index, &mut rng)
                        .with_random_moves(random_plies, &mut rng);
                    let _ = tx.send(WorkerMessage::Started {
                        game_id: spec.game_id,
                        engines: spec.engines,
                    });
                    let message = match play_one(
                        config,
                        &spec,
                        &opening,
                        names,
                        factories,
                        sinks,
                        &mut players,
                    ) {
                        Ok(record) => WorkerMessage::Finished(Box::new(record)),
                        Err(e) => {
                            stop.store(true, Ordering::Relaxed);
                            WorkerMessage::Failed(e)
                        }
                    };
                    if tx.send(message).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);

        for message in rx {
            let record = match message {
                WorkerMessage::Started { game_id, engines } => {
                    on_event(Event::GameStarted {
                        game_id,
                        total,
                        white: &names[engines[0]],
                        black: &names[engines[1]],
                    });
                    continue;
                }
                WorkerMessage::Failed(e) => {
                    stop.store(true, Ordering::Relaxed);
                    run_error.get_or_insert(e);
                    continue;
                }
                WorkerMessage::Finished(record) => record,
            };
            if matches!(run_error, Some(ArenaError::Io { .. })) {
                // Nothing more can be saved.
                continue;
            }
            if let Err(e) = outputs.write(&record, config.output.positions_per_game, config.seed) {
                // Nothing more can be saved: stop scheduling, let running games end.
                run_error = Some(e);
                stop.store(true, Ordering::Relaxed);
                continue;
            }
            played += 1;
            games_done += 1;
            figures[record.white_engine].add_game(&record, crate::board::Color::White);
            figures[record.black_engine].add_game(&record, crate::board::Color::Black);
            let Some(p) = pairing_of(record.white_engine, record.black_engine) else {
                continue;
            };
            let first = schedule.pairings[p].0;
            pairings[p].add_game(record.pair_id, record.score_of_engine(first));
            on_event(Event::GameFinished {
                record: &record,
                done: games_done,
                total,
                finished_this_run: played,
                elapsed: run_started.elapsed(),
                pairings: &pairings,
            });
            let counted: u64 = if by_pairs {
                pairings.iter().map(|p| p.ptnml.pairs()).sum()
            } else {
                pairings.iter().map(|p| p.games_wdl.games()).sum()
            };
            if counted >= counted_at_last_block + rating_interval {
                counted_at_last_block = counted;
                on_event(Event::ResultsDue {
                    pairings: &pairings,
                });
            }
            if let Some(sprt) = &config.sprt {
                let stats = &pairings[p];
                if let Ok(llr) = sprt.llr_ptnml(stats.ptnml) {
                    decisions[p] = match sprt.decision(llr) {
                        SprtDecision::Continue => None,
                        decided => Some(decided),
                    };
                }
                // A shard or wave holds a slice of the pairs: the merge decides, so it plays
                // all of its games.
                if !sliced && decisions.iter().all(Option::is_some) && !stop.load(Ordering::Relaxed)
                {
                    stop.store(true, Ordering::Relaxed);
                    on_event(Event::SprtDecided {
                        pairings: &pairings,
                        decisions: &decisions,
                    });
                }
            }
        }
    });
    if let Some(e) = run_error {
        return Err(e);
    }
    super::report::write_summary(&outputs.dir, &pairings, config.sprt.as_ref(), &decisions)
        .map_err(io_error(&outputs.dir.join("summary.csv")))?;
    let standings = ranking(&names, &pairings, &figures, by_pairs);
    super::report::write_ranking(&outputs.dir, &standings, by_pairs)
        .map_err(io_error(&outputs.dir.join("ranking.csv")))?;
    on_event(Event::RunFinished {
        pairings: &pairings,
        decisions: &decisions,
        figures: &figures,
        elapsed: run_started.elapsed(),
    });
    Ok(TournamentSummary {
        pairings,
        games_played: played,
        sprt_decisions: decisions,
        figures,
        output_dir: outputs.dir,
    })
}

/// Starts a player of `factory` for the run's variant: in Chess960 it is switched to Chess960
/// before its first game.
fn start_player(
    config: &MatchConfig,
    factory: &EngineFactory,
    sink: Option<&LogSink>,
) -> Result<Box<dyn Player>, PlayerError> {
    let mut player = factory.start_logged(config.timeout, sink)?;
    if config.variant.is_chess960() {
        player.enable_chess960()?;
    }
    Ok(player)
}

/// Starts engine `e` if it has no player, trying up to `tournament.max_restarts` times in a row.
fn ensure_started(
    config: &MatchConfig,
    e: usize,
    factories: &[EngineFactory],
    sinks: &[Option<LogSink>],
    players: &mut [Option<Box<dyn Player>>],
) -> Result<(), ArenaError> {
    if players[e].is_some() {
        return Ok(());
    }
    let mut last_error = None;
    let attempts = config.max_restarts.max(1);
    for _ in 0..attempts {
        match start_player(config, &factories[e], sinks[e].as_ref()) {
            Ok(p) => {
                players[e] = Some(p);
                return Ok(());
            }
            Err(err) => last_error = Some(err),
        }
    }
    Err(ArenaError::EngineRestart {
        name: config.engines[e].name.clone(),
        attempts,
        source: last_error.expect("at least one attempt"),
    })
}

/// Plays one scheduled game on a worker, starting players as needed and replacing one that
/// failed. An engine that cannot be started any more stops the run (the game is not recorded,
/// so a resumed run plays it).
fn play_one(
    config: &MatchConfig,
    spec: &super::schedule::GameSpec,
    opening: &crate::openings::Opening,
    names: &[String],
    factories: &[EngineFactory],
    sinks: &[Option<LogSink>],
    players: &mut [Option<Box<dyn Player>>],
) -> Result<GameRecord, ArenaError> {
    let [w, b] = spec.engines;
    let time_control = |e: usize| {
        config.engines[e]
            .time_control
            .as_ref()
            .unwrap_or(&config.time_control)
    };
    let setup = GameSetup {
        game_id: spec.game_id,
        pair_id: spec.pair_id,
        round: spec.round,
        event: &config.event,
        site: &config.site,
        opening_id: opening.id,
        start: &opening.start,
        book_moves: &opening.moves,
        names: [&names[w], &names[b]],
        engines: [w, b],
        time_controls: [time_control(w), time_control(b)],
        margin: config.margin,
        timeout: config.timeout,
        adjudication: &config.adjudication,
        engine_log: config.output.engine_log.as_deref(),
    };
    for &e in &[w, b] {
        ensure_started(config, e, factories, sinks, players)?;
        if let Some(player) = players[e].as_mut() {
            player.set_log_game(spec.game_id);
        }
    }
    let mut white = players[w].take().expect("started above");
    let mut black = players[b].take().expect("started above");
    let mut record = play_game(&setup, [white.as_mut(), black.as_mut()]);
    record.chess960 |= config.variant.is_chess960();
    players[w] = Some(white);
    players[b] = Some(black);
    // An engine that failed may be hung or half-dead: start it afresh for the next game (the
    // old one is dropped: its process group is killed).
    if !matches!(
        record.termination,
        Termination::Normal | Termination::Adjudication
    ) {
        let loser = match record.result {
            crate::board::GameResult::WhiteWins => Some(b),
            crate::board::GameResult::BlackWins => Some(w),
            crate::board::GameResult::Draw => None,
        };
        match loser {
            Some(e) => players[e] = None,
            None => {
                players[w] = None;
                players[b] = None;
            }
        }
    }
    Ok(record)
}
