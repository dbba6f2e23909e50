//! Running a tournament: the schedule and the engines are set up, worker threads (one per
//! concurrent game) take games from the schedule, and the calling thread collects finished
//! games in completion order, records them, keeps the statistics and stops the run when the
//! SPRT decides.

use super::engines::{play_one, EngineFactory};
use super::error::{io_error, ArenaError};
use super::live_report::{final_report, LiveState, ReportSchedule};
use super::outputs::{claim_output_dir, prepare_outputs, Outputs};
use super::startup::start_engines;
use crate::arena::config::{MatchConfig, OpeningOrder, ResultsFormat};
use crate::arena::engine::affinity::{allowed_cpus, pin_current_thread, slot_cpus};
use crate::arena::engine::log::{EngineLog, LogSink};
use crate::arena::engine::player::Player;
use crate::arena::game::adjudication::AdjudicationCounts;
use crate::arena::game::GameWarning;
use crate::arena::matchmaking::manifest::Fingerprint;
use crate::arena::matchmaking::schedule::{OpeningSource, Schedule, Shard, Slice, Wave};
use crate::arena::output::events::Event;
use crate::arena::output::figures::FIGURES_FILE;
use crate::arena::output::pairing::{ranking, EngineFigures, PairingStats};
use crate::arena::output::ratings::{run_ratings, white_outcome, RATINGS_FILE};
use crate::arena::output::report::{write_ranking, write_ratings, write_summary};
use crate::board::{Color, GameResult};
use crate::record::{FinishedGame, GameRecord};
use crate::rng::Rng;
use crate::stats::{JointRatings, RatedGame, RatingsError, SprtDecision, SprtParams};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Instant;

/// What a finished run reports.
pub struct TournamentSummary {
    /// One entry per pairing of the schedule, resumed games included.
    pub pairings: Vec<PairingStats>,
    /// Games played by this run (not counting resumed ones).
    pub games_played: u64,
    /// Per pairing: the SPRT's decision, if any.
    pub sprt_decisions: Vec<Option<SprtDecision>>,
    /// Per configured engine: what it did in the run's games, resumed ones included (those
    /// figures.csv holds rows for: see `Event::ResumedWithoutFigures`).
    pub figures: Vec<EngineFigures>,
    /// How many of the run's games (resumed ones included) each adjudication rule ended.
    pub adjudications: AdjudicationCounts,
    /// With three or more engines, their joint ratings over every game of the run (resumed
    /// ones included), or why there are none; None with two engines.
    pub ratings: Option<Result<JointRatings, RatingsError>>,
    /// Where the results are.
    pub output_dir: PathBuf,
}

/// How to run.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Continue the run in the output directory instead of refusing to touch it.
    pub resume: bool,
    /// Play only this shard of the schedule (its games are a contiguous block of whole pairs);
    /// `sparring merge` puts the shards back together, and the SPRT does not stop the shard
    /// (the merge evaluates it on all shards' pairs).
    pub shard: Option<Shard>,
    /// Play only this wave of the schedule (with `shard`: that shard of the wave). Like a
    /// shard, a wave plays all its games whatever its SPRT says.
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

/// Plays the whole tournament, reporting progress through `on_event` (called on this thread).
pub fn run_tournament(
    config: &MatchConfig,
    openings: Arc<dyn OpeningSource>,
    options: &RunOptions,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<TournamentSummary, ArenaError> {
    let run_started = Instant::now();
    let factories = EngineFactory::from_config(config)?;
    let schedule = schedule_of(config, openings.as_ref());
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
    let workers = config.concurrency.min(total.max(1) as usize);
    let slot_cpus = affinity_cpus(config, workers)?;
    let sinks = engine_log_sinks(config)?;
    let refuse_values = config.strict_options;
    let (facts, option_warnings) =
        start_engines(config, &factories, &sinks, refuse_values, on_event)?;
    on_event(Event::EnginesReady { engines: &facts });

    let (mut outputs, resumed) = prepare_outputs(config, options.resume, &games_range)?;
    fingerprint.write(&outputs.dir)?;
    outputs.write_start_warnings(&option_warnings)?;
    if resumed.without_figures > 0 {
        on_event(Event::ResumedWithoutFigures {
            path: &outputs.dir.join(FIGURES_FILE),
            games: resumed.without_figures,
        });
    }

    let names: Vec<String> = config.engines.iter().map(|e| e.name.clone()).collect();
    let mut tally = Tally::new(config, &schedule, &names, total, sliced, run_started);
    // Statistics of the games already played (resume).
    let done: HashSet<u64> = resumed.games.iter().map(|g| g.game_id).collect();
    tally.add_resumed(&resumed.games, &resumed.figures);
    for (figures, found) in tally.figures.iter_mut().zip(&option_warnings) {
        figures.compliance_warnings += found;
    }
    on_event(Event::RunStarted {
        total,
        already_done: done.len() as u64,
    });
    let next = AtomicU64::new(games_range.start);
    // A run whose SPRT decided before it was stopped starts no more games.
    let stop = AtomicBool::new(tally.sprt_stops_run());
    let work = Work {
        config,
        schedule: &schedule,
        factories: &factories,
        sinks: &sinks,
        names: &names,
        openings: openings.as_ref(),
        next: &next,
        stop: &stop,
        done: &done,
        end: games_range.end,
        random_plies: config.openings.as_ref().map_or(0, |o| o.random_plies),
    };
    // Bounded, so a worker waits for the collector, which alone sets `stop`: with an unbounded
    // queue a slow collector let the workers play every game past the SPRT's verdict.
    let (tx, rx) = mpsc::sync_channel::<WorkerMessage>(2 * workers);
    std::thread::scope(|scope| {
        for slot in 0..workers {
            let tx = tx.clone();
            let work = &work;
            let cpu = slot_cpus.as_ref().map(|cpus| cpus[slot]);
            scope.spawn(move || work.play(&tx, cpu));
        }
        drop(tx);
        for message in rx {
            tally.receive(message, &mut outputs, &stop, on_event);
        }
    });
    tally.finish(outputs.dir, on_event)
}

/// The run's schedule: the book applies `openings.start` itself, so the schedule counts from
/// its first entry.
fn schedule_of(config: &MatchConfig, openings: &dyn OpeningSource) -> Schedule {
    let order = config
        .openings
        .as_ref()
        .map_or(OpeningOrder::Sequential, |o| o.order);
    Schedule::new(
        config.kind,
        config.engines.len(),
        config.rounds as u64,
        openings.count(),
        order,
        1,
        config.seed,
    )
    .with_openings_per_game(config.openings.as_ref().is_some_and(|o| o.per_game))
    .with_single_last_game(config.single_last_game)
    .with_seeds(config.seeds)
    .with_sides(config.swap_sides, config.reverse_sides)
}

/// With `compliance.affinity`, the CPU of each of the `workers` game slots.
fn affinity_cpus(config: &MatchConfig, workers: usize) -> Result<Option<Vec<usize>>, ArenaError> {
    let Some(affinity) = &config.compliance.affinity else {
        return Ok(None);
    };
    slot_cpus(affinity, workers, &allowed_cpus())
        .map(Some)
        .map_err(|reason| ArenaError::Affinity {
            affinity: affinity.text(),
            reason,
        })
}

/// Per engine: where its traffic goes in the engine log, when the run keeps one.
fn engine_log_sinks(config: &MatchConfig) -> Result<Vec<Option<LogSink>>, ArenaError> {
    let engine_log = match &config.output.engine_log {
        Some(path) => Some(Arc::new(EngineLog::open(path).map_err(io_error(path))?)),
        None if config.output.engine_debug => Some(Arc::new(
            EngineLog::debug_to_stderr().map_err(io_error(Path::new("/dev/null")))?,
        )),
        None => None,
    };
    Ok(config
        .engines
        .iter()
        .map(|e| {
            engine_log
                .as_ref()
                .map(|log| LogSink::new(log.clone(), &e.name))
        })
        .collect())
}

/// What a worker tells the collecting thread.
enum WorkerMessage {
    Started {
        game_id: u64,
        engines: [usize; 2],
    },
    Finished(Box<GameRecord>, Vec<GameWarning>),
    /// The run cannot go on (an engine that does not start any more).
    Failed(ArenaError),
}

/// What the workers share: the run's setup and the counter of the next game to take.
struct Work<'a> {
    config: &'a MatchConfig,
    schedule: &'a Schedule,
    factories: &'a [EngineFactory],
    sinks: &'a [Option<LogSink>],
    names: &'a [String],
    openings: &'a dyn OpeningSource,
    next: &'a AtomicU64,
    stop: &'a AtomicBool,
    /// Games finished before (resume): skipped.
    done: &'a HashSet<u64>,
    /// One past the last game number of the run.
    end: u64,
    random_plies: usize,
}

impl Work<'_> {
    /// One worker: takes the next game until none is left or the run stops, with its own
    /// players; pinned to `cpu` (and so are the engines it starts), when given.
    fn play(&self, tx: &mpsc::SyncSender<WorkerMessage>, cpu: Option<usize>) {
        if let Some(cpu) = cpu {
            if let Err(e) = pin_current_thread(cpu) {
                self.stop.store(true, Ordering::Relaxed);
                let _ = tx.send(WorkerMessage::Failed(ArenaError::Affinity {
                    affinity: cpu.to_string(),
                    reason: format!("cannot pin a game slot to CPU {cpu}: {e}"),
                }));
                return;
            }
        }
        let mut players: Vec<Option<Box<dyn Player>>> =
            (0..self.factories.len()).map(|_| None).collect();
        let mut played_one = false;
        loop {
            if self.stop.load(Ordering::Relaxed) {
                break;
            }
            let n = self.next.fetch_add(1, Ordering::Relaxed);
            if n >= self.end {
                break;
            }
            let spec = self.schedule.game(n);
            if self.done.contains(&spec.game_id) {
                continue;
            }
            if played_one && !self.wait_between_games() {
                break;
            }
            played_one = true;
            let mut rng = Rng::derive(self.config.seed, self.schedule.opening_stream(&spec));
            let opening = self
                .openings
                .opening(spec.opening_index, &mut rng)
                .with_random_moves(self.random_plies, &mut rng);
            let _ = tx.send(WorkerMessage::Started {
                game_id: spec.game_id,
                engines: spec.engines,
            });
            let message = match play_one(
                self.config,
                &spec,
                &opening,
                self.names,
                self.factories,
                self.sinks,
                &mut players,
            ) {
                Ok((record, warnings)) => WorkerMessage::Finished(Box::new(record), warnings),
                Err(e) => {
                    self.stop.store(true, Ordering::Relaxed);
                    WorkerMessage::Failed(e)
                }
            };
            if tx.send(message).is_err() {
                break;
            }
        }
    }
}

impl Work<'_> {
    /// `tournament.wait_ms` (`-wait`) between a worker's games, in short steps so a stopping
    /// run does not wait it out; false when the run stopped meanwhile.
    fn wait_between_games(&self) -> bool {
        let until = Instant::now() + self.config.wait;
        while Instant::now() < until {
            if self.stop.load(Ordering::Relaxed) {
                return false;
            }
            let left = until.saturating_duration_since(Instant::now());
            std::thread::sleep(left.min(std::time::Duration::from_millis(20)));
        }
        true
    }
}

/// The collecting thread's state: the statistics of the run so far and its first error.
struct Tally<'a> {
    config: &'a MatchConfig,
    schedule: &'a Schedule,
    names: &'a [String],
    /// Games of this run's part of the schedule.
    total: u64,
    /// A shard or wave: the SPRT does not stop it.
    sliced: bool,
    run_started: Instant,
    /// The interval counts game pairs when results are by pairs, else games (as fastchess).
    by_pairs: bool,
    rating_interval: u64,
    counted_at_last_block: u64,
    pairings: Vec<PairingStats>,
    decisions: Vec<Option<SprtDecision>>,
    figures: Vec<EngineFigures>,
    adjudications: AdjudicationCounts,
    /// Every finished game (resumed ones included), for the joint ratings at the end.
    games: Vec<RatedGame>,
    played: u64,
    games_done: u64,
    run_error: Option<ArenaError>,
    /// When report.html is next rewritten.
    report: ReportSchedule,
}

impl<'a> Tally<'a> {
    fn new(
        config: &'a MatchConfig,
        schedule: &'a Schedule,
        names: &'a [String],
        total: u64,
        sliced: bool,
        run_started: Instant,
    ) -> Tally<'a> {
        let pairings: Vec<PairingStats> = schedule
            .pairings
            .iter()
            .map(|&(a, b)| PairingStats::new(&names[a], &names[b]))
            .collect();
        Tally {
            config,
            schedule,
            names,
            total,
            sliced,
            run_started,
            by_pairs: config.output.report_penta
                && config.output.format == ResultsFormat::Fastchess,
            rating_interval: u64::from(config.output.rating_interval.max(1)),
            counted_at_last_block: 0,
            decisions: vec![None; pairings.len()],
            pairings,
            figures: vec![EngineFigures::default(); config.engines.len()],
            adjudications: AdjudicationCounts::default(),
            games: Vec::new(),
            played: 0,
            games_done: 0,
            run_error: None,
            report: ReportSchedule::default(),
        }
    }

    /// Counts the games a resumed run finished before, and their engines' figures.
    fn add_resumed(&mut self, finished: &[FinishedGame], figures: &[EngineFigures]) {
        for (total, resumed) in self.figures.iter_mut().zip(figures) {
            total.add(resumed);
        }
        for game in finished {
            let spec = self.schedule.game(game.game_id - 1);
            let first = self.schedule.pairings[spec.pairing].0;
            let first_is_white = spec.engines[0] == first;
            let white_score = match game.result {
                GameResult::WhiteWins => 1.0,
                GameResult::BlackWins => 0.0,
                GameResult::Draw => 0.5,
            };
            let first_score = if first_is_white {
                white_score
            } else {
                1.0 - white_score
            };
            self.pairings[spec.pairing].add_game(game.pair_id, first_score);
            self.games.push(RatedGame {
                white: spec.engines[0],
                black: spec.engines[1],
                outcome: white_outcome(game.result),
                pair: game.pair_id,
            });
            self.adjudications.add_finished(game);
            self.update_decision(spec.pairing);
        }
        let done: HashSet<u64> = finished.iter().map(|g| g.game_id).collect();
        self.games_done = done.len() as u64;
    }

    /// Handles one worker message: a game started, the run failed, or a game to record.
    fn receive(
        &mut self,
        message: WorkerMessage,
        outputs: &mut Outputs,
        stop: &AtomicBool,
        on_event: &mut dyn FnMut(Event<'_>),
    ) {
        let (record, warning_counts) = match message {
            WorkerMessage::Started { game_id, engines } => {
                on_event(Event::GameStarted {
                    game_id,
                    total: self.total,
                    white: &self.names[engines[0]],
                    black: &self.names[engines[1]],
                });
                return;
            }
            WorkerMessage::Failed(e) => {
                stop.store(true, Ordering::Relaxed);
                self.run_error.get_or_insert(e);
                return;
            }
            WorkerMessage::Finished(record, warnings) => {
                let counts = self.report_warnings(&record, &warnings, on_event);
                (record, counts)
            }
        };
        if matches!(self.run_error, Some(ArenaError::Io { .. })) {
            // Nothing more can be saved.
            return;
        }
        let output = &self.config.output;
        let (per_game, resolve) = (output.positions_per_game, output.positions_resolve);
        let written = outputs.write(
            &record,
            warning_counts,
            (per_game, resolve),
            self.config.seed,
        );
        if let Err(e) = written {
            // Nothing more can be saved: stop scheduling, let running games end.
            self.run_error = Some(e);
            stop.store(true, Ordering::Relaxed);
            return;
        }
        if let Some(crc32) = outputs.pgn_crc32() {
            on_event(Event::PgnChecksum {
                file: self
                    .config
                    .compliance
                    .pgn_label
                    .as_deref()
                    .unwrap_or(&output.pgn_name),
                crc32,
            });
        }
        self.add_game(&record, stop, on_event);
        let live = LiveState {
            pairings: &self.pairings,
            sprt: self.config.sprt.as_ref(),
            decisions: &self.decisions,
            names: self.names,
            figures: &self.figures,
            by_pairs: self.by_pairs,
            done: self.games_done,
            total: self.total,
        };
        if let Err(e) = self.report.after_game(&outputs.dir, &live) {
            self.run_error = Some(e);
            stop.store(true, Ordering::Relaxed);
        }
    }

    /// Reports a game's compliance warnings, one event each, and counts them per engine; gives
    /// the counts of White's and Black's.
    fn report_warnings(
        &mut self,
        record: &GameRecord,
        warnings: &[GameWarning],
        on_event: &mut dyn FnMut(Event<'_>),
    ) -> [u64; 2] {
        let mut counts = [0; 2];
        for (color, warning) in warnings {
            let (e, opponent) = match color {
                Color::White => (record.white_engine, record.black_engine),
                Color::Black => (record.black_engine, record.white_engine),
            };
            if warning.is_warning() {
                self.figures[e].compliance_warnings += 1;
                counts[color.index()] += 1;
            }
            on_event(Event::EngineWarning {
                game_id: record.game_id,
                engine: &self.names[e],
                opponent: &self.names[opponent],
                warning,
            });
        }
        counts
    }

    /// Counts a recorded game, reports it and the results when due, and stops the run when
    /// the SPRT decided every pairing.
    fn add_game(
        &mut self,
        record: &GameRecord,
        stop: &AtomicBool,
        on_event: &mut dyn FnMut(Event<'_>),
    ) {
        self.played += 1;
        self.games_done += 1;
        self.figures[record.white_engine].add_game(record, Color::White);
        self.figures[record.black_engine].add_game(record, Color::Black);
        self.adjudications.add(record);
        let (a, b) = (record.white_engine, record.black_engine);
        self.games.push(RatedGame {
            white: a,
            black: b,
            outcome: white_outcome(record.result),
            pair: record.pair_id,
        });
        let Some(p) = self
            .schedule
            .pairings
            .iter()
            .position(|&(x, y)| (x, y) == (a, b) || (x, y) == (b, a))
        else {
            return;
        };
        let first = self.schedule.pairings[p].0;
        self.pairings[p].add_game(record.pair_id, record.score_of_engine(first));
        on_event(Event::GameFinished {
            record,
            done: self.games_done,
            total: self.total,
            finished_this_run: self.played,
            elapsed: self.run_started.elapsed(),
            pairings: &self.pairings,
        });
        let counted: u64 = if self.by_pairs {
            self.pairings.iter().map(|p| p.ptnml.pairs()).sum()
        } else {
            self.pairings.iter().map(|p| p.games_wdl.games()).sum()
        };
        if counted >= self.counted_at_last_block + self.rating_interval {
            self.counted_at_last_block = counted;
            on_event(Event::ResultsDue {
                pairings: &self.pairings,
            });
        }
        if self.config.sprt.is_some() {
            self.update_decision(p);
            if self.sprt_stops_run() && !stop.load(Ordering::Relaxed) {
                stop.store(true, Ordering::Relaxed);
                on_event(Event::SprtDecided {
                    pairings: &self.pairings,
                    decisions: &self.decisions,
                });
            }
        }
    }

    /// Pairing `p`'s SPRT verdict after its latest game. A verdict stands once given: games
    /// under way when it came may move the LLR back inside the bounds, and a resumed run
    /// replays the games in the same order to the same verdict.
    fn update_decision(&mut self, p: usize) {
        if let Some(sprt) = &self.config.sprt {
            self.decisions[p] = sticky_decision(self.decisions[p], sprt, &self.pairings[p]);
        }
    }

    /// Whether the SPRT has decided every pairing of a run it may stop (a shard or wave holds
    /// a slice of the pairs: the merge decides, so it plays all of its games).
    fn sprt_stops_run(&self) -> bool {
        self.config.sprt.is_some() && !self.sliced && self.decisions.iter().all(Option::is_some)
    }

    /// Ends the run: its first error, or summary.csv and ranking.csv written into `dir` and
    /// the summary.
    fn finish(
        self,
        dir: PathBuf,
        on_event: &mut dyn FnMut(Event<'_>),
    ) -> Result<TournamentSummary, ArenaError> {
        if let Some(e) = self.run_error {
            return Err(e);
        }
        write_summary(
            &dir,
            &self.pairings,
            self.config.sprt.as_ref(),
            &self.decisions,
        )
        .map_err(io_error(&dir.join("summary.csv")))?;
        let standings = ranking(self.names, &self.pairings, &self.figures, self.by_pairs);
        write_ranking(&dir, &standings, self.by_pairs)
            .map_err(io_error(&dir.join("ranking.csv")))?;
        let ratings = run_ratings(self.names, &self.games);
        write_ratings(&dir, ratings.as_ref()).map_err(io_error(&dir.join(RATINGS_FILE)))?;
        final_report(&dir)?;
        on_event(Event::RunFinished {
            pairings: &self.pairings,
            decisions: &self.decisions,
            figures: &self.figures,
            elapsed: self.run_started.elapsed(),
            adjudications: self.adjudications,
            ratings: ratings.as_ref(),
        });
        Ok(TournamentSummary {
            pairings: self.pairings,
            games_played: self.played,
            sprt_decisions: self.decisions,
            figures: self.figures,
            adjudications: self.adjudications,
            ratings,
            output_dir: dir,
        })
    }
}

/// The SPRT's verdict on `stats` given the one before (`previous`, which stands once given);
/// None while it continues (or cannot be computed yet).
fn sticky_decision(
    previous: Option<SprtDecision>,
    sprt: &SprtParams,
    stats: &PairingStats,
) -> Option<SprtDecision> {
    if previous.is_some() {
        return previous;
    }
    match sprt.decision(sprt.llr_ptnml(stats.ptnml).ok()?) {
        SprtDecision::Continue => None,
        decided => Some(decided),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::SprtModel;

    #[test]
    fn an_sprt_verdict_stands_when_later_games_move_the_llr_back() {
        let sprt = SprtParams::new(0.0, 5.0, 0.05, 0.05, SprtModel::Logistic).unwrap();
        let mut stats = PairingStats::new("new", "base");
        let mut decision = None;
        let mut pair = 0;
        // Won pairs until H1, as in a run whose last winning pair crossed the bound.
        while decision.is_none() {
            pair += 1;
            for score in [1.0, 0.5] {
                stats.add_game(pair, score);
            }
            for score in [0.5, 0.5] {
                stats.add_game(pair + 1000, score);
            }
            decision = sticky_decision(decision, &sprt, &stats);
            assert!(pair < 1000, "no verdict");
        }
        assert_eq!(decision, Some(SprtDecision::AcceptH1));
        // Games under way when the verdict came lose their pairs: the LLR falls back inside
        // the bounds, the verdict stays.
        let llr = |stats: &PairingStats| sprt.llr_ptnml(stats.ptnml).unwrap();
        let mut lost = 5000;
        while sprt.decision(llr(&stats)) == SprtDecision::AcceptH1 {
            lost += 1;
            stats.add_game(lost, 0.0);
            stats.add_game(lost, 0.0);
        }
        assert_eq!(sprt.decision(llr(&stats)), SprtDecision::Continue);
        assert_eq!(sticky_decision(decision, &sprt, &stats), decision);
        assert_eq!(sticky_decision(None, &sprt, &stats), None);
    }
}
