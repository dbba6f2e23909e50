//! Runs a tournament: worker threads (one per concurrent game) take games from the schedule and
//! play them with their own players; the calling thread collects finished games in completion
//! order, appends and flushes them to the output files, keeps the statistics by game pairs,
//! reports progress and stops the run when the SPRT decides.

use super::config::{EngineKind, MatchConfig};
use super::game::{play_game, GameSetup};
use super::player::{BuiltinPlayer, Player, PlayerError};
use super::report::Reporter;
use super::schedule::{OpeningSource, Schedule};
use super::uci_player::{UciCommand, UciPlayer};
use crate::eval::EvalParams;
use crate::record::{
    keep_games, read_finished_games, sample_positions, write_pgn, GameRecord, Termination,
    GAMES_CSV_HEADER,
};
use crate::rng::Rng;
use crate::stats::{Outcome, PairBucket, Pentanomial, SprtDecision, Wdl};
use std::collections::{HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use thiserror::Error;

#[derive(Debug, Error)]
pub enum ArenaError {
    #[error("engine `{name}`: {source}")]
    EngineStart { name: String, source: PlayerError },
    #[error("engine `{name}`: weights: {message}")]
    Weights { name: String, message: String },
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot resume: {0}")]
    Resume(String),
    #[error("{dir} already holds the results of a run: pass --resume to continue it, or choose another output directory")]
    OutputExists { dir: String },
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
    Builtin {
        params: Arc<EvalParams>,
        hash_mb: usize,
    },
    Uci(UciCommand),
}

impl EngineFactory {
    pub fn start(&self, timeout: std::time::Duration) -> Result<Box<dyn Player>, PlayerError> {
        match self {
            EngineFactory::Builtin { params, hash_mb } => {
                Ok(Box::new(BuiltinPlayer::new(params.clone(), *hash_mb)))
            }
            EngineFactory::Uci(command) => Ok(Box::new(UciPlayer::start(command, timeout)?)),
        }
    }

    /// Builds the factories of a configuration: weights files load once each and are shared.
    pub fn from_config(config: &MatchConfig) -> Result<Vec<EngineFactory>, ArenaError> {
        let mut loaded: HashMap<Option<PathBuf>, Arc<EvalParams>> = HashMap::new();
        let mut factories = Vec::new();
        for engine in &config.engines {
            let factory = match &engine.kind {
                EngineKind::Builtin { weights, hash_mb } => {
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
                    EngineFactory::Builtin {
                        params,
                        hash_mb: *hash_mb,
                    }
                }
                EngineKind::Uci {
                    command,
                    args,
                    options,
                    working_dir,
                } => EngineFactory::Uci(UciCommand {
                    command: command.clone(),
                    args: args.clone(),
                    options: options.clone(),
                    working_dir: working_dir.clone(),
                }),
            };
            factories.push(factory);
        }
        Ok(factories)
    }
}

/// Results of one pairing, from the first engine's point of view, counted by complete pairs.
#[derive(Clone, Debug, Default)]
pub struct PairingStats {
    pub first: String,
    pub second: String,
    /// Games of complete pairs only, so that W/D/L and the pentanomial agree.
    pub wdl: Wdl,
    pub ptnml: Pentanomial,
    /// Pairs of two draws and pairs of a win and a loss (both are the pentanomial's middle bucket).
    pub dd_pairs: u64,
    pub wl_pairs: u64,
    pending: HashMap<u64, f64>,
}

impl PairingStats {
    fn add_game(&mut self, pair_id: u64, first_score: f64) {
        let Some(other) = self.pending.remove(&pair_id) else {
            self.pending.insert(pair_id, first_score);
            return;
        };
        let outcome = |s: f64| Outcome::from_score(s).unwrap_or(Outcome::Draw);
        for s in [other, first_score] {
            self.wdl.record(outcome(s));
        }
        if other + first_score == 1.0 {
            if other == 0.5 {
                self.dd_pairs += 1;
            } else {
                self.wl_pairs += 1;
            }
        }
        self.ptnml.record(PairBucket::from_outcomes(
            outcome(other),
            outcome(first_score),
        ));
    }

    /// Games played, counting a pair's first game before its second finishes.
    pub fn games_started_pairs(&self) -> u64 {
        self.wdl.games() + self.pending.len() as u64
    }
}

/// What a finished run reports.
pub struct TournamentSummary {
    pub pairings: Vec<PairingStats>,
    pub games_played: u64,
    pub sprt_decisions: Vec<Option<SprtDecision>>,
    pub output_dir: PathBuf,
}

pub struct RunOptions {
    pub resume: bool,
    /// Print nothing while running (tests).
    pub quiet: bool,
}

/// The output files of a run, appended and flushed after every game.
struct Outputs {
    pgn: BufWriter<File>,
    csv: BufWriter<File>,
    positions: Option<BufWriter<File>>,
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

impl Outputs {
    fn write(&mut self, record: &GameRecord, per_game: usize, seed: u64) -> Result<(), ArenaError> {
        let pgn_path = self.dir.join("games.pgn");
        write_pgn(record, &mut self.pgn).map_err(io_error(&pgn_path))?;
        self.pgn.flush().map_err(io_error(&pgn_path))?;
        if let Some(out) = self.positions.as_mut() {
            let path = self.dir.join("positions.epd");
            for (i, p) in sample_positions(record, per_game, seed).iter().enumerate() {
                // Grouped by pair first: both games of a pair share the opening (and, between
                // identical engines, repeat each other), so the tuner keeps a pair on one side.
                writeln!(
                    out,
                    "{} id \"{}.{}.{}\";",
                    p.to_epd(),
                    record.pair_id,
                    record.game_id,
                    i + 1
                )
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

/// Prepares the output directory; on resume, returns the games already finished and drops the
/// traces of a game that was being written when the run stopped.
fn prepare_outputs(
    config: &MatchConfig,
    resume: bool,
) -> Result<(Outputs, Vec<crate::record::FinishedGame>), ArenaError> {
    let dir = config.output.dir.clone();
    std::fs::create_dir_all(&dir).map_err(io_error(&dir))?;
    let csv_path = dir.join("games.csv");
    let pgn_path = dir.join("games.pgn");
    let positions_path = dir.join("positions.epd");
    let finished = if resume {
        read_finished_games(&csv_path).map_err(ArenaError::Resume)?
    } else {
        if csv_path.exists() || pgn_path.exists() {
            return Err(ArenaError::OutputExists {
                dir: dir.display().to_string(),
            });
        }
        Vec::new()
    };
    let done: HashSet<u64> = finished.iter().map(|g| g.game_id).collect();
    if resume {
        if let Ok(text) = std::fs::read_to_string(&pgn_path) {
            std::fs::write(&pgn_path, keep_games(&text, &done)).map_err(io_error(&pgn_path))?;
        }
        if let Ok(text) = std::fs::read_to_string(&positions_path) {
            let kept: String = text
                .lines()
                .filter(|l| position_game_id(l).is_some_and(|id| done.contains(&id)))
                .map(|l| format!("{l}\n"))
                .collect();
            std::fs::write(&positions_path, kept).map_err(io_error(&positions_path))?;
        }
        // Rewrite the CSV without a half-written last line.
        let mut text = format!("{GAMES_CSV_HEADER}\n");
        if let Ok(old) = std::fs::read_to_string(&csv_path) {
            if let Some(end) = old.rfind('\n') {
                for line in old[..=end].lines().skip(1) {
                    text.push_str(line);
                    text.push('\n');
                }
            }
        }
        std::fs::write(&csv_path, text).map_err(io_error(&csv_path))?;
    } else {
        std::fs::write(&csv_path, format!("{GAMES_CSV_HEADER}\n")).map_err(io_error(&csv_path))?;
    }
    let outputs = Outputs {
        pgn: append(&pgn_path)?,
        csv: append(&csv_path)?,
        positions: if config.output.positions {
            Some(append(&positions_path)?)
        } else {
            None
        },
        dir,
    };
    Ok((outputs, finished))
}

/// The game id in a positions line's `id "<pair>.<game>.<n>";` opcode.
fn position_game_id(line: &str) -> Option<u64> {
    let rest = &line[line.find("id \"")? + 4..];
    rest.split('.').nth(1)?.parse().ok()
}

/// Plays the whole tournament.
pub fn run_tournament(
    config: &MatchConfig,
    openings: Arc<dyn OpeningSource>,
    options: &RunOptions,
) -> Result<TournamentSummary, ArenaError> {
    let factories = EngineFactory::from_config(config)?;
    // Start every engine once before any game, so a bad command stops the run at once.
    for (factory, engine) in factories.iter().zip(&config.engines) {
        factory
            .start(config.timeout)
            .map_err(|source| ArenaError::EngineStart {
                name: engine.name.clone(),
                source,
            })?;
    }
    let (mut outputs, finished) = prepare_outputs(config, options.resume)?;

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
    .with_openings_per_game(config.openings.as_ref().is_some_and(|o| o.per_game));
    let random_plies = config.openings.as_ref().map_or(0, |o| o.random_plies);
    let names: Vec<String> = config.engines.iter().map(|e| e.name.clone()).collect();
    let mut pairings: Vec<PairingStats> = schedule
        .pairings
        .iter()
        .map(|&(a, b)| PairingStats {
            first: names[a].clone(),
            second: names[b].clone(),
            ..Default::default()
        })
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

    let total = schedule.total_games();
    let mut reporter = Reporter::new(config, total, done.len() as u64, options.quiet);
    let next = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<GameRecord>();
    let workers = config.concurrency.min(total.max(1) as usize);
    let mut decisions: Vec<Option<SprtDecision>> = vec![None; pairings.len()];
    let mut played = 0u64;
    let mut write_error = None;

    std::thread::scope(|scope| {
        for _ in 0..workers {
            let tx = tx.clone();
            let (schedule, factories, names, openings) = (&schedule, &factories, &names, &openings);
            let (next, stop, done, reporter_quiet) =
                (&next, &stop, &done, reporter.quiet_workers());
            scope.spawn(move || {
                let mut players: Vec<Option<Box<dyn Player>>> =
                    (0..factories.len()).map(|_| None).collect();
                loop {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    if n >= total {
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
                    if !reporter_quiet {
                        println!(
                            "Started game {} of {} ({} vs {})",
                            spec.game_id, total, names[spec.engines[0]], names[spec.engines[1]]
                        );
                    }
                    let record = play_one(config, &spec, &opening, names, factories, &mut players);
                    if tx.send(record).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);

        for record in rx {
            played += 1;
            if write_error.is_none() {
                if let Err(e) =
                    outputs.write(&record, config.output.positions_per_game, config.seed)
                {
                    // Nothing more can be saved: stop scheduling, let running games end.
                    write_error = Some(e);
                    stop.store(true, Ordering::Relaxed);
                }
            }
            let Some(p) = pairing_of(record.white_engine, record.black_engine) else {
                continue;
            };
            let first = schedule.pairings[p].0;
            pairings[p].add_game(record.pair_id, record.score_of_engine(first));
            reporter.finished(&record, &pairings);
            if let Some(sprt) = &config.sprt {
                let stats = &pairings[p];
                if let Ok(llr) = sprt.llr_ptnml(stats.ptnml) {
                    decisions[p] = match sprt.decision(llr) {
                        SprtDecision::Continue => None,
                        decided => Some(decided),
                    };
                }
                if decisions.iter().all(Option::is_some) && !stop.load(Ordering::Relaxed) {
                    stop.store(true, Ordering::Relaxed);
                    reporter.sprt_finished(&pairings, &decisions);
                }
            }
        }
    });
    if let Some(e) = write_error {
        return Err(e);
    }
    reporter.done(&pairings, &decisions);
    super::report::write_summary(&outputs.dir, &pairings, config.sprt.as_ref())
        .map_err(io_error(&outputs.dir.join("summary.csv")))?;
    Ok(TournamentSummary {
        pairings,
        games_played: played,
        sprt_decisions: decisions,
        output_dir: outputs.dir,
    })
}

/// Plays one scheduled game on a worker, starting players as needed and replacing one that failed.
fn play_one(
    config: &MatchConfig,
    spec: &super::schedule::GameSpec,
    opening: &crate::openings::Opening,
    names: &[String],
    factories: &[EngineFactory],
    players: &mut [Option<Box<dyn Player>>],
) -> GameRecord {
    let [w, b] = spec.engines;
    let setup = GameSetup {
        game_id: spec.game_id,
        pair_id: spec.pair_id,
        round: spec.round,
        event: &config.event,
        opening_id: opening.id,
        start: &opening.start,
        book_moves: &opening.moves,
        names: [&names[w], &names[b]],
        engines: [w, b],
        time_control: &config.time_control,
        margin: config.margin,
        timeout: config.timeout,
        adjudication: &config.adjudication,
    };
    for &e in &[w, b] {
        if players[e].is_none() {
            match factories[e].start(config.timeout) {
                Ok(p) => players[e] = Some(p),
                Err(err) => {
                    // The engine cannot be restarted: it loses this game, explained.
                    return super::game::forfeit_before_start(&setup, e == b, &err);
                }
            }
        }
    }
    let mut white = players[w].take().expect("started above");
    let mut black = players[b].take().expect("started above");
    let record = play_game(&setup, [white.as_mut(), black.as_mut()]);
    players[w] = Some(white);
    players[b] = Some(black);
    // An engine that failed may be hung or half-dead: start it afresh for the next game.
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
    record
}
