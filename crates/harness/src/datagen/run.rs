//! The run: the directory (`run.toml` the fingerprint, `state.toml` what is complete, the data
//! file, `sparring.lock`), one worker and one engine per concurrent game, and the collector that
//! writes games in game order through a reorder buffer, so the bytes do not depend on the
//! concurrency. After each game the data file is flushed, then the state records the games and
//! bytes complete: a resume cuts anything past those bytes (a game half written when the run
//! was killed) and plays on from the next game.
//!
//! A shard `I/N` plays the contiguous block of games `[I·G/N, (I+1)·G/N)` of the run's `G`, so
//! the shards' data files concatenated in shard order are the single run's file.

use super::config::{DatagenConfig, DatagenEngine, DatagenVariant};
use super::game::{adjudication_of, play, GameOutcome, MAX_OPENING_ATTEMPTS};
use super::DatagenError;
use crate::arena::engine::undeclared_error;
use crate::arena::engine::ExternalSettings;
use crate::arena::{EngineFactory, OutputLock, Player, PlayerError, Shard, UciCommand};
use crate::data::{DataFormat, GameWriter};
use crate::eval::EvalParams;
use crate::search::SearchParams;
use std::collections::{BTreeMap, HashMap};
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// The fingerprint's file in the run's directory.
pub(crate) const RUN_FILE: &str = "run.toml";
/// What is complete: games and bytes.
pub const STATE_FILE: &str = "state.toml";

/// How an engine's start-up handshake may take.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// How to run beyond the configuration.
#[derive(Clone, Debug, Default)]
pub struct DatagenOptions {
    /// Continue the run in the directory.
    pub resume: bool,
    /// Play only this shard's block of games.
    pub shard: Option<Shard>,
    /// Stop after writing this many games in this session (tests simulate a killed run).
    pub stop_after: Option<u64>,
    /// Set from outside (Ctrl-C) to stop after the games being written.
    pub stop: Option<Arc<AtomicBool>>,
}

/// What the run reports as it goes.
#[derive(Clone, Debug)]
pub enum DatagenEvent {
    /// The engine started and the games begin.
    Started {
        /// The engine's `id name`.
        engine: String,
        /// Games of this run (this shard), all told.
        games: u64,
        /// Of them, complete before this session (a resume).
        done: u64,
        /// The data file.
        data_file: PathBuf,
    },
    /// A game was written.
    GameWritten {
        /// Its 0-based number in the whole run.
        game: u64,
        /// Positions it added.
        positions: u64,
        /// Games complete (written or dropped) in this run, resumed sessions included.
        done: u64,
        /// Positions written this session.
        session_positions: u64,
    },
    /// A game was dropped because the engine failed; the engine was restarted.
    GameDropped {
        /// Its 0-based number.
        game: u64,
        /// What happened.
        reason: String,
    },
}

/// How the run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DatagenSummary {
    /// Games written in the whole run so far.
    pub games: u64,
    /// Games dropped in the whole run so far.
    pub dropped: u64,
    /// Positions in the data file.
    pub positions: u64,
    /// Bytes in the data file.
    pub bytes: u64,
    /// Every game of the run (shard) is complete.
    pub complete: bool,
    /// This session's time from starting the games to the last game's end.
    pub session_time: Duration,
    /// Games played at once this session.
    pub workers: usize,
    /// The engines' search time this session, summed over the workers: the built-in engine's
    /// own search time, an external engine's from `go` to `bestmove`. Divided by
    /// `workers × session_time`, the share of the run spent searching.
    pub search_time: Duration,
}

#[derive(serde::Serialize, serde::Deserialize, Default, Clone, Copy)]
#[serde(deny_unknown_fields)]
struct State {
    /// Games complete (written or dropped), counted from the block's first game.
    done: u64,
    /// Bytes of the data file that hold whole games.
    bytes: u64,
    games: u64,
    dropped: u64,
    positions: u64,
}

/// A writer that counts what passes through it.
struct Counting {
    inner: BufWriter<File>,
    bytes: Arc<AtomicU64>,
}

impl Write for Counting {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// The writer of `format` (the data subsystem's, so datagen and the data tools write the same
/// bytes).
fn writer_for(format: DataFormat, out: Counting) -> Result<Box<dyn GameWriter>, DatagenError> {
    Ok(crate::data::game_writer(format, out))
}

/// The block of games `shard` plays out of `games`.
pub(crate) fn shard_games(games: u64, shard: Option<Shard>) -> std::ops::Range<u64> {
    match shard {
        None => 0..games,
        Some(s) => {
            let at = |i: u64| (u128::from(i) * u128::from(games) / u128::from(s.count)) as u64;
            at(s.index)..at(s.index + 1)
        }
    }
}

fn engine_factory(config: &DatagenConfig) -> Result<EngineFactory, DatagenError> {
    Ok(match &config.engine {
        DatagenEngine::Builtin {
            weights,
            net,
            hash_mb,
        } => EngineFactory::Builtin {
            params: Arc::new(match weights {
                Some(path) => EvalParams::load(path)?,
                None => EvalParams::default(),
            }),
            net: match net {
                Some(path) => Some(Arc::new(crate::nnue::Network::load(path)?)),
                None => None,
            },
            search: Arc::new(SearchParams::default()),
            hash_mb: *hash_mb,
            syzygy: None,
        },
        DatagenEngine::Uci {
            command,
            args,
            options,
        } => EngineFactory::Uci {
            command: UciCommand {
                command: command.clone(),
                args: args.clone(),
                options: options.clone(),
                working_dir: None,
            },
            settings: ExternalSettings::default(),
            book: None,
        },
    })
}

fn start(
    factory: &EngineFactory,
    variant: DatagenVariant,
) -> Result<Box<dyn Player>, DatagenError> {
    let mut player = factory.start(START_TIMEOUT)?;
    // A match warns and plays on without an option it could not send; data generation
    // refuses, as its positions would come from an engine configured otherwise.
    if let EngineFactory::Uci { command, .. } = factory {
        if let Some(refused) = player.refused_options().first() {
            return Err(refused.to_error().into());
        }
        if let Some(name) = player.undeclared_options().first() {
            let value = command.options.iter().find(|(n, _)| n == name);
            let value = value.map_or("", |(_, v)| v.as_str());
            return Err(undeclared_error(name, value).into());
        }
    }
    if variant != DatagenVariant::Standard {
        player.enable_chess960()?;
        // Its castling moves could not be told from king steps: no data from it.
        if let EngineFactory::Uci { command, .. } = factory {
            if player
                .undeclared_options()
                .iter()
                .any(|o| o == "UCI_Chess960")
            {
                return Err(PlayerError::NoChess960 {
                    command: command.command.clone(),
                }
                .into());
            }
        }
    }
    Ok(player)
}

fn unwritable(path: &Path) -> impl FnOnce(std::io::Error) -> DatagenError + '_ {
    move |source| DatagenError::Unwritable {
        path: path.to_path_buf(),
        source,
    }
}

fn write_error(path: &Path) -> impl FnOnce(std::io::Error) -> DatagenError + '_ {
    move |source| DatagenError::Write {
        path: path.to_path_buf(),
        source,
    }
}

fn fingerprint_text(map: &BTreeMap<String, String>) -> String {
    let mut text = String::from("# sparring datagen: what decides this run's games and bytes\n");
    for (key, value) in map {
        text.push_str(&format!("{key:?} = {value:?}\n"));
    }
    text
}

/// Opens the directory: a fresh run, or the resumed one after its checks. Returns the state.
fn prepare(
    config: &DatagenConfig,
    options: &DatagenOptions,
    fingerprint: &BTreeMap<String, String>,
) -> Result<State, DatagenError> {
    let dir = &config.out;
    let run_file = dir.join(RUN_FILE);
    let state_file = dir.join(STATE_FILE);
    let data_file = dir.join(config.format.file_name());
    let exists = run_file.exists() || state_file.exists();
    if !options.resume {
        if exists {
            return Err(DatagenError::Exists { dir: dir.clone() });
        }
        crate::files::write_atomic(&run_file, fingerprint_text(fingerprint).as_bytes())
            .map_err(unwritable(&run_file))?;
        File::create(&data_file).map_err(unwritable(&data_file))?;
        save_state(&state_file, &State::default())?;
        return Ok(State::default());
    }
    if !exists {
        return Err(DatagenError::NothingToResume { dir: dir.clone() });
    }
    let text = crate::toml_config::read_text(&run_file)?;
    let name = run_file.display().to_string();
    let before: BTreeMap<String, String> =
        crate::toml_config::Document::parse(&text, &name)?.deserialize()?;
    let keys: Vec<String> = fingerprint
        .keys()
        .chain(before.keys())
        .filter(|k| fingerprint.get(*k) != before.get(*k))
        .cloned()
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    if !keys.is_empty() {
        return Err(DatagenError::Changed {
            dir: dir.clone(),
            keys,
        });
    }
    let text = crate::toml_config::read_text(&state_file)?;
    let name = state_file.display().to_string();
    let state: State = crate::toml_config::Document::parse(&text, &name)?.deserialize()?;
    let file = OpenOptions::new()
        .write(true)
        .open(&data_file)
        .map_err(unwritable(&data_file))?;
    let found = file.metadata().map_err(unwritable(&data_file))?.len();
    if found < state.bytes {
        return Err(DatagenError::Truncated {
            path: data_file,
            expected: state.bytes,
            found,
        });
    }
    // A game half written when the run stopped is cut.
    file.set_len(state.bytes).map_err(write_error(&data_file))?;
    Ok(state)
}

fn save_state(path: &Path, state: &State) -> Result<(), DatagenError> {
    let text = toml::to_string(state).expect("the state serialises");
    crate::files::write_atomic(path, text.as_bytes()).map_err(write_error(path))
}

type Finished = Result<(u64, GameOutcome), DatagenError>;

/// The engines' search time summed over the workers, in nanoseconds.
type SearchClock = AtomicU64;

/// Runs (or resumes) the datagen run `config` describes, reporting through `on_event`.
pub fn run_datagen(
    config: &DatagenConfig,
    options: &DatagenOptions,
    on_event: &mut dyn FnMut(&DatagenEvent),
) -> Result<DatagenSummary, DatagenError> {
    let dir = &config.out;
    let _lock = lock_run_directory(dir)?;
    let block = shard_games(config.games, options.shard);
    let fingerprint = block_fingerprint(config, &block);
    // Everything that can be refused is checked before any game: tables, format, engine.
    let tables = config
        .tb
        .as_ref()
        .map(crate::tablebase::Tablebases::open)
        .transpose()?;
    let adjudication = adjudication_of(config, tables);
    let factory = engine_factory(config)?;
    let first = start(&factory, config.variant)?;
    let data_file = dir.join(config.format.file_name());
    probe_data_file(config.format, &data_file)?;
    let mut state = prepare(config, options, &fingerprint)?;
    let (mut writer, counter) = append_writer(config.format, &data_file, state.bytes)?;
    on_event(&DatagenEvent::Started {
        engine: first.id_name().to_string(),
        games: block.end - block.start,
        done: state.done,
        data_file: data_file.clone(),
    });
    let workers = config
        .concurrency
        .min((block.end - block.start - state.done).max(1) as usize);
    let session = Session {
        config,
        options,
        factory: &factory,
        adjudication: &adjudication,
        block: block.clone(),
        workers,
    };
    let sink = Sink {
        writer: &mut *writer,
        counter: &counter,
        state: &mut state,
    };
    let (session_time, search_time) = play_session(&session, first, sink, on_event)?;
    super::page::write_datagen_report(dir).map_err(report_error(dir))?;
    Ok(DatagenSummary {
        games: state.games,
        dropped: state.dropped,
        positions: state.positions,
        bytes: state.bytes,
        complete: block.start + state.done == block.end,
        session_time,
        workers,
        search_time,
    })
}

/// Makes the run's directory (refusing a file in its place) and takes its lock, held while
/// the returned guard lives.
fn lock_run_directory(dir: &Path) -> Result<OutputLock, DatagenError> {
    if dir.exists() && !dir.is_dir() {
        return Err(DatagenError::Unwritable {
            path: dir.to_path_buf(),
            source: std::io::Error::other("not a directory"),
        });
    }
    std::fs::create_dir_all(dir).map_err(unwritable(dir))?;
    Ok(OutputLock::acquire(dir)?)
}

/// The configuration's fingerprint with the block of games this shard plays: a resume must
/// play the same block.
fn block_fingerprint(
    config: &DatagenConfig,
    block: &std::ops::Range<u64>,
) -> BTreeMap<String, String> {
    let mut fingerprint = config.fingerprint();
    fingerprint.insert(
        "games.block".to_string(),
        format!("{}..{}", block.start, block.end),
    );
    fingerprint
}

/// Opens (creating) the data file and makes its writer, so an unwritable file or format is
/// refused before the directory is prepared; nothing is written.
fn probe_data_file(format: DataFormat, data_file: &Path) -> Result<(), DatagenError> {
    let probe = OpenOptions::new().append(true).create(true).open(data_file);
    let probe = probe.map_err(unwritable(data_file))?;
    let writer = writer_for(
        format,
        Counting {
            inner: BufWriter::new(probe),
            bytes: Arc::new(AtomicU64::new(0)),
        },
    )?;
    drop(writer);
    Ok(())
}

/// The writer appending to the prepared data file, and its byte counter, which starts at the
/// `bytes` already complete.
fn append_writer(
    format: DataFormat,
    data_file: &Path,
    bytes: u64,
) -> Result<(Box<dyn GameWriter>, Arc<AtomicU64>), DatagenError> {
    let file = OpenOptions::new()
        .append(true)
        .open(data_file)
        .map_err(unwritable(data_file))?;
    let counter = Arc::new(AtomicU64::new(bytes));
    let writer = writer_for(
        format,
        Counting {
            inner: BufWriter::new(file),
            bytes: counter.clone(),
        },
    )?;
    Ok((writer, counter))
}

/// What a session plays: the configuration, the engines and rules, the block, the workers.
struct Session<'a> {
    config: &'a DatagenConfig,
    options: &'a DatagenOptions,
    factory: &'a EngineFactory,
    adjudication: &'a crate::arena::config::Adjudication,
    block: std::ops::Range<u64>,
    workers: usize,
}

/// Where the collector writes finished games: the data file's writer, its byte counter and
/// the state it saves after each game.
struct Sink<'a> {
    writer: &'a mut dyn GameWriter,
    counter: &'a AtomicU64,
    state: &'a mut State,
}

/// Plays the session's games on its workers (the first one on the engine already started)
/// while this thread writes them in order. Returns the session's time and the engines' search
/// time summed over the workers.
fn play_session(
    session: &Session<'_>,
    first: Box<dyn Player>,
    sink: Sink<'_>,
    on_event: &mut dyn FnMut(&DatagenEvent),
) -> Result<(Duration, Duration), DatagenError> {
    let (config, block) = (session.config, &session.block);
    let state_file = config.out.join(STATE_FILE);
    let next = AtomicU64::new(block.start + sink.state.done);
    let stop = AtomicBool::new(false);
    let outside = session.options.stop.clone();
    let stopped = || {
        stop.load(Ordering::Relaxed) || outside.as_ref().is_some_and(|s| s.load(Ordering::Relaxed))
    };
    let (tx, rx) = mpsc::channel::<Finished>();
    let searching = SearchClock::new(0);
    let began = Instant::now();
    let outcome = std::thread::scope(|scope| {
        let mut first = Some(first);
        for _ in 0..session.workers {
            let tx = tx.clone();
            let player = first.take();
            let shared = Shared {
                factory: session.factory,
                adjudication: session.adjudication,
                next: &next,
                stopped: &stopped,
                searching: &searching,
            };
            scope.spawn(move || worker(config, &shared, player, block.end, tx));
        }
        drop(tx);
        let result = collect(
            config,
            session.options,
            &rx,
            sink.writer,
            sink.counter,
            sink.state,
            &state_file,
            block,
            on_event,
        );
        stop.store(true, Ordering::Relaxed);
        // Drain: the workers finish the games they hold (their results are not written).
        for _ in rx.iter() {}
        result
    });
    let session_time = began.elapsed();
    outcome?;
    let search_time = Duration::from_nanos(searching.load(Ordering::Relaxed));
    Ok((session_time, search_time))
}

/// A report failure as the run's write error on report.html.
fn report_error(dir: &Path) -> impl FnOnce(crate::page::ReportError) -> DatagenError + '_ {
    move |e| DatagenError::Write {
        path: dir.join(crate::page::REPORT_FILE),
        source: std::io::Error::other(e.to_string()),
    }
}

/// Games between rewrites of the page under way at least; at most a fiftieth of those done.
const REPORT_EVERY_GAMES: u64 = 4;

/// When the page of the run under way is next rewritten (as a match's: after the first game,
/// then every few games, further apart as the run grows, so reading the data file back stays
/// a small share of the run).
#[derive(Default)]
struct ReportSchedule {
    next: u64,
}

impl ReportSchedule {
    /// Rewrites `dir/report.html` if it is due now that `done` of `total` games are complete.
    fn after_game(&mut self, dir: &Path, done: u64, total: u64) -> Result<(), DatagenError> {
        if done < self.next || done >= total {
            return Ok(());
        }
        self.next = done + REPORT_EVERY_GAMES.max(done / 50);
        super::page::write_running_datagen_report(dir, done, total).map_err(report_error(dir))
    }
}

/// What the workers share: the engine factory, the rules, the next game's number, the stop
/// signal and the search clock.
struct Shared<'a> {
    factory: &'a EngineFactory,
    adjudication: &'a crate::arena::config::Adjudication,
    next: &'a AtomicU64,
    stopped: &'a (dyn Fn() -> bool + Sync),
    searching: &'a SearchClock,
}

fn worker(
    config: &DatagenConfig,
    shared: &Shared<'_>,
    player: Option<Box<dyn Player>>,
    end: u64,
    tx: mpsc::Sender<Finished>,
) {
    let mut player = player;
    loop {
        if (shared.stopped)() {
            return;
        }
        let game = shared.next.fetch_add(1, Ordering::Relaxed);
        if game >= end {
            return;
        }
        let engine = match player.take() {
            Some(p) if !p.needs_restart() => Ok(p),
            _ => start(shared.factory, config.variant),
        };
        let mut engine = match engine {
            Ok(engine) => engine,
            Err(e) => {
                let _ = tx.send(Err(e));
                return;
            }
        };
        let (outcome, searching) = play(config, shared.adjudication, &mut *engine, game);
        let nanos = u64::try_from(searching.as_nanos()).unwrap_or(u64::MAX);
        shared.searching.fetch_add(nanos, Ordering::Relaxed);
        // A failed engine is started afresh for the next game.
        if !matches!(outcome, GameOutcome::Dropped(_)) {
            player = Some(engine);
        }
        if tx.send(Ok((game, outcome))).is_err() {
            return;
        }
    }
}

/// Writes finished games in game order; returns when the block is done, the session's quota
/// is reached, or on the first error.
#[allow(clippy::too_many_arguments)]
fn collect(
    config: &DatagenConfig,
    options: &DatagenOptions,
    rx: &mpsc::Receiver<Finished>,
    writer: &mut dyn GameWriter,
    counter: &AtomicU64,
    state: &mut State,
    state_file: &Path,
    block: &std::ops::Range<u64>,
    on_event: &mut dyn FnMut(&DatagenEvent),
) -> Result<(), DatagenError> {
    let first = block.start;
    let data_file = config.out.join(config.format.file_name());
    let mut pending: HashMap<u64, GameOutcome> = HashMap::new();
    let mut report = ReportSchedule::default();
    let mut session_games = 0;
    let mut session_positions = 0;
    for finished in rx.iter() {
        let (game, outcome) = finished?;
        pending.insert(game, outcome);
        while let Some(outcome) = pending.remove(&(first + state.done)) {
            let game = first + state.done;
            match outcome {
                GameOutcome::Played(data) => {
                    writer.write_game(&data).map_err(write_error(&data_file))?;
                    writer.flush().map_err(write_error(&data_file))?;
                    let positions = data.moves.len() as u64;
                    state.games += 1;
                    state.positions += positions;
                    session_positions += positions;
                    state.bytes = counter.load(Ordering::Relaxed);
                    state.done += 1;
                    save_state(state_file, state)?;
                    report.after_game(&config.out, state.done, block.end - block.start)?;
                    on_event(&DatagenEvent::GameWritten {
                        game,
                        positions,
                        done: state.done,
                        session_positions,
                    });
                }
                GameOutcome::Dropped(reason) => {
                    state.dropped += 1;
                    state.done += 1;
                    save_state(state_file, state)?;
                    report.after_game(&config.out, state.done, block.end - block.start)?;
                    on_event(&DatagenEvent::GameDropped { game, reason });
                }
                GameOutcome::NoOpening => {
                    return Err(DatagenError::NoOpening {
                        game,
                        attempts: MAX_OPENING_ATTEMPTS,
                    })
                }
            }
            session_games += 1;
            if options.stop_after.is_some_and(|k| session_games >= k) {
                return Ok(());
            }
        }
        if options
            .stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
        {
            return Ok(());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datagen::Overrides;

    #[test]
    fn datagen_shard_blocks_tile_the_games_in_order() {
        for games in [0, 1, 2, 5, 7, 100] {
            for count in 1..=6 {
                let mut next = 0;
                for index in 0..count {
                    let block = shard_games(games, Some(Shard::new(index, count).unwrap()));
                    assert_eq!(block.start, next, "{games} games, shard {index}/{count}");
                    assert!(block.end >= block.start);
                    next = block.end;
                }
                assert_eq!(next, games);
            }
        }
        assert_eq!(shard_games(9, None), 0..9);
    }

    #[test]
    fn datagen_fingerprint_ignores_concurrency_and_directory() {
        let overrides = Overrides {
            games: Some(4),
            out: Some(PathBuf::from("a")),
            ..Overrides::default()
        };
        let one = DatagenConfig::parse("", "x.toml", &overrides).unwrap();
        let other = Overrides {
            concurrency: Some(3),
            out: Some(PathBuf::from("b")),
            ..overrides.clone()
        };
        let two = DatagenConfig::parse("", "x.toml", &other).unwrap();
        assert_eq!(one.fingerprint(), two.fingerprint());
        let seeded = Overrides {
            seed: Some(2),
            ..overrides
        };
        let three = DatagenConfig::parse("", "x.toml", &seeded).unwrap();
        assert_ne!(one.fingerprint(), three.fingerprint());
    }
}
