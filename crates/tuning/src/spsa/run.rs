//! Running the chain: games in parallel, the update after each iteration, and the run
//! directory (`trajectory.csv`, `pairs.csv`, `state.toml`, the tuned files, `trajectory.svg`),
//! which `--resume` continues losing at most the pairs in flight.

use super::plan::{Perturbation, SpsaPlan};
use super::svg::trajectory_svg;
use super::SpsaError;
use crate::arena::OutputLock;
use crate::toml_config::Document;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A finished game from the plus side's point of view.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GameOutcome {
    /// θ+ won.
    PlusWins,
    /// A draw.
    Draw,
    /// θ− won.
    MinusWins,
}

/// One game to play.
#[derive(Clone, Debug)]
pub struct GameJob<'a> {
    /// 0-based iteration.
    pub iteration: u64,
    /// 0-based pair within the iteration.
    pub pair: u64,
    /// 0-based pair over the whole run (`iteration * pairs_per_iteration + pair`): it picks
    /// the opening, which both games of the pair share.
    pub global_pair: u64,
    /// Whether θ+ has White (the pair's first game) or Black (its second).
    pub plus_is_white: bool,
    /// The plus side's values, integers already rounded.
    pub plus: &'a [f64],
    /// The minus side's values, integers already rounded.
    pub minus: &'a [f64],
}

/// Plays games for one worker thread (it may keep engines between games).
pub trait GameWorker {
    /// Plays `job` to its end.
    fn play(&mut self, job: &GameJob<'_>) -> Result<GameOutcome, SpsaError>;
}

/// What SPSA measures: games between two parameter vectors. The built-in engine, an external
/// engine, or a synthetic objective in tests.
pub trait Objective: Sync {
    /// A worker for one thread.
    fn worker(&self) -> Result<Box<dyn GameWorker + '_>, SpsaError>;
}

/// How to run.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Games played at once.
    pub concurrency: usize,
    /// Continue the run in the directory instead of refusing a directory that holds one.
    pub resume: bool,
    /// When set (from another thread or an event), no new game starts; the pairs finished so
    /// far are kept for `--resume`.
    pub stop: Option<std::sync::Arc<AtomicBool>>,
    /// Everything that decides the run, one `key = value` per line, compared on resume.
    pub description: String,
    /// A shard waiting at an iteration's barrier longer than this gives up (None: it waits
    /// until the other shards come or it is stopped).
    pub barrier_timeout: Option<std::time::Duration>,
}

/// What the run reports as it goes.
#[derive(Debug)]
pub enum SpsaEvent<'a> {
    /// The run starts (or resumes) at iteration `done`.
    Started {
        /// Iterations already complete.
        done: u64,
        /// Iterations planned.
        total: u64,
        /// Games per iteration (a shard's: those of its block of pairs).
        games_per_iteration: u64,
        /// Pairs of the current iteration already played (resume).
        pending_pairs: u64,
    },
    /// A game ended.
    GameFinished {
        /// Games finished by this run.
        games_this_run: u64,
    },
    /// An iteration's update is applied.
    IterationFinished {
        /// Iterations complete.
        done: u64,
        /// Iterations planned.
        total: u64,
        /// θ after the update.
        theta: &'a [f64],
        /// Wins − losses of θ+ in this iteration.
        result: i64,
        /// Games finished by this run.
        games_this_run: u64,
        /// Time since this run started.
        elapsed: Duration,
    },
    /// A shard (`run_spsa_shard`) has played its pairs of `iteration` and waits for the other
    /// shards' pair files; sent at every look at the shared directory.
    Waiting {
        /// 0-based iteration waited for.
        iteration: u64,
        /// The pair files of that iteration not there yet (paths).
        missing: &'a [PathBuf],
        /// How long this shard has waited for the iteration so far.
        waited: Duration,
    },
}

/// The end of a run.
#[derive(Clone, Debug)]
pub struct SpsaSummary {
    /// θ at the end.
    pub theta: Vec<f64>,
    /// Iterations complete.
    pub done: u64,
    /// Whether every planned iteration is complete (false after a stop).
    pub complete: bool,
    /// Games played by this run.
    pub games_this_run: u64,
    /// θ+ wins, draws and θ− wins over the whole run (resumed pairs included).
    pub plus_wins: u64,
    /// Draws over the whole run.
    pub draws: u64,
    /// θ− wins over the whole run.
    pub minus_wins: u64,
}

/// The tuned files for θ: (file name, content) pairs written into the run directory.
pub(crate) type TunedFiles<'a> = &'a dyn Fn(&[f64]) -> Vec<(String, String)>;

pub(super) const STATE: &str = "state.toml";
pub(super) const RUN: &str = "run.txt";
pub(super) const TRAJECTORY: &str = "trajectory.csv";
pub(super) const PAIRS: &str = "pairs.csv";
pub(super) const SVG: &str = "trajectory.svg";
/// The header of `pairs.csv` (and of a shard's pair files).
pub(super) const PAIRS_HEADER: &str = "iteration,pair,plus_wins,draws,minus_wins\n";

/// One finished pair: (pair index, θ+ wins, draws, θ− wins).
pub(super) type PairRow = (u64, u64, u64, u64);

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StateFile {
    iteration: u64,
    theta: Vec<f64>,
    plus_wins: u64,
    draws: u64,
    minus_wins: u64,
}

pub(super) fn io_error(path: &Path) -> impl Fn(std::io::Error) -> SpsaError + '_ {
    move |source| SpsaError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Writes `content` to `path` atomically: a kill leaves the old file or the new one.
pub(super) fn write_atomic(path: &Path, content: &str) -> Result<(), SpsaError> {
    crate::files::write_atomic(path, content.as_bytes()).map_err(io_error(path))
}

fn format_values(values: &[f64]) -> String {
    values
        .iter()
        .map(|v| format!("{v:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The run directory's files and what they hold.
struct RunDir {
    dir: PathBuf,
    trajectory: Vec<Vec<f64>>,
    theta: Vec<f64>,
    done: u64,
    totals: [u64; 3],
    /// Pairs of iteration `done` already played.
    pending: BTreeMap<u64, [u64; 3]>,
    pairs_log: std::fs::File,
}

impl RunDir {
    fn open(
        plan: &SpsaPlan,
        dir: &Path,
        options: &RunOptions,
        tuned: TunedFiles<'_>,
    ) -> Result<RunDir, SpsaError> {
        let state_path = dir.join(STATE);
        let names: Vec<&str> = plan.params.iter().map(|p| p.name.as_str()).collect();
        if state_path.exists() && options.resume {
            return RunDir::resume(plan, dir, options, &names);
        }
        if state_path.exists() {
            return Err(SpsaError::RunExists {
                dir: dir.to_path_buf(),
            });
        }
        // No state.toml: no run yet, or one killed during its setup, which writes the state
        // last, before any game. Such a directory starts the run with `--resume` too (as a match
        // or an SPSA shard does), so schedulers can pass it every time; finished pairs without a
        // state are a damaged run, refused.
        if options.resume && has_pair_rows(&dir.join(PAIRS))? {
            return Err(SpsaError::NothingToResume {
                dir: dir.to_path_buf(),
            });
        }
        write_atomic(&dir.join(RUN), &options.description)?;
        let start = plan.start();
        let header = format!("iteration,{}\n", names.join(","));
        let trajectory_path = dir.join(TRAJECTORY);
        std::fs::write(
            &trajectory_path,
            format!("{header}0,{}\n", csv_values(&start)),
        )
        .map_err(io_error(&trajectory_path))?;
        let pairs_path = dir.join(PAIRS);
        std::fs::write(&pairs_path, PAIRS_HEADER).map_err(io_error(&pairs_path))?;
        let run = RunDir {
            dir: dir.to_path_buf(),
            trajectory: vec![start.clone()],
            theta: start,
            done: 0,
            totals: [0; 3],
            pending: BTreeMap::new(),
            pairs_log: append(&pairs_path)?,
        };
        run.save_state(plan, tuned)?;
        Ok(run)
    }

    fn resume(
        plan: &SpsaPlan,
        dir: &Path,
        options: &RunOptions,
        names: &[&str],
    ) -> Result<RunDir, SpsaError> {
        let run_path = dir.join(RUN);
        let recorded = std::fs::read_to_string(&run_path).map_err(io_error(&run_path))?;
        if recorded != options.description {
            return Err(SpsaError::Changed {
                dir: dir.to_path_buf(),
                keys: changed_keys(&recorded, &options.description),
            });
        }
        let state = read_state(&dir.join(STATE), plan)?;
        // The trajectory up to the state's iteration (a row written just before a kill that
        // preceded the state's update is dropped).
        let trajectory_path = dir.join(TRAJECTORY);
        let text = std::fs::read_to_string(&trajectory_path).map_err(io_error(&trajectory_path))?;
        let mut trajectory = Vec::new();
        for line in text.lines().skip(1) {
            let fields: Vec<f64> = line
                .split(',')
                .filter_map(|f| f.trim().parse().ok())
                .collect();
            if fields.len() != names.len() + 1 || fields[0] as u64 != trajectory.len() as u64 {
                break;
            }
            if trajectory.len() as u64 > state.iteration {
                break;
            }
            trajectory.push(fields[1..].to_vec());
        }
        if trajectory.len() as u64 != state.iteration + 1 {
            return Err(SpsaError::Corrupt {
                path: trajectory_path,
                message: format!(
                    "{} rows for {} iterations",
                    trajectory.len(),
                    state.iteration
                ),
            });
        }
        let mut rewritten = format!("iteration,{}\n", names.join(","));
        for (k, row) in trajectory.iter().enumerate() {
            let _ = writeln!(rewritten, "{k},{}", csv_values(row));
        }
        write_atomic(&trajectory_path, &rewritten)?;
        // Pairs of the iteration under way: played already, not played again.
        let pairs_path = dir.join(PAIRS);
        let text = std::fs::read_to_string(&pairs_path).map_err(io_error(&pairs_path))?;
        let mut kept = String::from(PAIRS_HEADER);
        let mut pending = BTreeMap::new();
        for line in text.lines().skip(1) {
            let fields: Vec<u64> = line
                .split(',')
                .filter_map(|f| f.trim().parse().ok())
                .collect();
            // A line cut short by the kill is dropped (its pair is played again).
            let [iteration, pair, w, d, l] = fields[..] else {
                continue;
            };
            if iteration > state.iteration || pair >= plan.pairs_per_iteration {
                continue;
            }
            if iteration == state.iteration {
                pending.insert(pair, [w, d, l]);
            }
            let _ = writeln!(kept, "{line}");
        }
        write_atomic(&pairs_path, &kept)?;
        // The state counts complete iterations; the pairs kept from the next one count too.
        let mut totals = [state.plus_wins, state.draws, state.minus_wins];
        for counts in pending.values() {
            for (total, count) in totals.iter_mut().zip(counts) {
                *total += count;
            }
        }
        Ok(RunDir {
            dir: dir.to_path_buf(),
            trajectory,
            theta: state.theta,
            done: state.iteration,
            totals,
            pending,
            pairs_log: append(&pairs_path)?,
        })
    }

    fn log_pair(&mut self, iteration: u64, (pair, w, d, l): PairRow) -> Result<(), SpsaError> {
        let path = self.dir.join(PAIRS);
        writeln!(self.pairs_log, "{iteration},{pair},{w},{d},{l}")
            .and_then(|_| self.pairs_log.flush())
            .map_err(io_error(&path))
    }

    /// Records the finished iteration: trajectory row, tuned files, SVG, then the state
    /// (last, atomically: the state says what is done).
    fn finish_iteration(
        &mut self,
        plan: &SpsaPlan,
        theta: Vec<f64>,
        tuned: TunedFiles<'_>,
    ) -> Result<(), SpsaError> {
        self.done += 1;
        let path = self.dir.join(TRAJECTORY);
        let mut file = append(&path)?;
        writeln!(file, "{},{}", self.done, csv_values(&theta)).map_err(io_error(&path))?;
        self.trajectory.push(theta.clone());
        self.theta = theta;
        self.pending.clear();
        if svg_due(self.done, plan.schedule.iterations) {
            let svg = trajectory_svg(plan, &self.trajectory);
            write_atomic(&self.dir.join(SVG), &svg)?;
            self.save_state(plan, tuned)?;
            return super::page::refresh(&self.dir);
        }
        self.save_state(plan, tuned)
    }

    fn save_state(&self, plan: &SpsaPlan, tuned: TunedFiles<'_>) -> Result<(), SpsaError> {
        for (name, content) in tuned(&self.theta) {
            write_atomic(&self.dir.join(name), &content)?;
        }
        if self.done == 0 {
            write_atomic(&self.dir.join(SVG), &trajectory_svg(plan, &self.trajectory))?;
        }
        let state = state_text(self.done, &self.theta, self.totals);
        write_atomic(&self.dir.join(STATE), &state)
    }
}

/// The keys whose values differ between two run descriptions (`key = value` lines), or are
/// in one only: `seed, shards`.
pub(super) fn changed_keys(recorded: &str, now: &str) -> String {
    let entries = |text: &str| -> BTreeMap<String, String> {
        text.lines()
            .map(|line| match line.split_once(" = ") {
                Some((key, value)) => (key.to_string(), value.to_string()),
                None => (line.to_string(), String::new()),
            })
            .collect()
    };
    let (old, new) = (entries(recorded), entries(now));
    let changed: Vec<&str> = old
        .keys()
        .chain(new.keys().filter(|k| !old.contains_key(*k)))
        .filter(|k| old.get(*k) != new.get(*k))
        .map(String::as_str)
        .collect();
    if changed.is_empty() {
        "the parameter order".to_string()
    } else {
        changed.join(", ")
    }
}

/// `state.toml`'s text: the iterations done, θ after them and the totals (θ+ wins, draws,
/// θ− wins).
pub(super) fn state_text(done: u64, theta: &[f64], [w, d, l]: [u64; 3]) -> String {
    format!(
        "# sparring spsa: the state after the last complete iteration (read by --resume)\n\
         iteration = {done}\ntheta = [{}]\nplus_wins = {w}\ndraws = {d}\nminus_wins = {l}\n",
        format_values(theta)
    )
}

/// Whether `trajectory.svg` is redrawn after iteration `done` (often early, then every 10th).
pub(super) fn svg_due(done: u64, iterations: u64) -> bool {
    done == iterations || done % 10 == 0 || done < 10
}

/// Reads `state.toml` back: a damaged file is refused naming the file, line and key (bad
/// input, exit status 2), never tuned on.
fn read_state(path: &Path, plan: &SpsaPlan) -> Result<StateFile, SpsaError> {
    let bytes = std::fs::read(path).map_err(io_error(path))?;
    let corrupt = |message: String| SpsaError::Corrupt {
        path: path.to_path_buf(),
        message,
    };
    let text = String::from_utf8(bytes).map_err(|e| {
        corrupt(format!(
            "not UTF-8 text (byte {}); restore it or start a new run",
            e.utf8_error().valid_up_to()
        ))
    })?;
    let file = path.display().to_string();
    let state: StateFile = Document::parse(&text, &file)?.deserialize()?;
    if state.theta.len() != plan.params.len() {
        return Err(corrupt(format!(
            "`theta` holds {} values for {} parameters",
            state.theta.len(),
            plan.params.len()
        )));
    }
    // A damaged value would otherwise be tuned on as NaN or infinity.
    if let Some(bad) = state.theta.iter().find(|v| !v.is_finite()) {
        return Err(corrupt(format!("`theta` holds {bad}, not a finite number")));
    }
    if state.iteration > plan.schedule.iterations {
        return Err(corrupt(format!(
            "`iteration` is {}, beyond the run's {} iterations",
            state.iteration, plan.schedule.iterations
        )));
    }
    Ok(state)
}

pub(super) fn csv_values(values: &[f64]) -> String {
    values
        .iter()
        .map(|v| format!("{v:?}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// Whether a pairs.csv exists and holds a line past its header.
fn has_pair_rows(path: &Path) -> Result<bool, SpsaError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(text.lines().skip(1).any(|l| !l.trim().is_empty())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        // Not text: not the header alone either.
        Err(e) if e.kind() == std::io::ErrorKind::InvalidData => Ok(true),
        Err(e) => Err(io_error(path)(e)),
    }
}

pub(super) fn append(path: &Path) -> Result<std::fs::File, SpsaError> {
    std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .map_err(io_error(path))
}

/// A worker's report to the coordinating thread.
enum Report {
    Game { pair: u64, outcome: GameOutcome },
    Failed(SpsaError),
}

/// Runs the chain in `dir` (created if needed) until every iteration is done or `stop` is set.
/// `tuned` renders θ as the files the user loads afterwards.
pub fn run_spsa(
    plan: &SpsaPlan,
    objective: &dyn Objective,
    dir: &Path,
    options: &RunOptions,
    tuned: TunedFiles<'_>,
    on_event: &mut dyn FnMut(SpsaEvent<'_>),
) -> Result<SpsaSummary, SpsaError> {
    std::fs::create_dir_all(dir).map_err(io_error(dir))?;
    let _lock = OutputLock::acquire(dir)?;
    let mut run = RunDir::open(plan, dir, options, tuned)?;
    let started = Instant::now();
    let pairs = plan.pairs_per_iteration;
    on_event(SpsaEvent::Started {
        done: run.done,
        total: plan.schedule.iterations,
        games_per_iteration: 2 * pairs,
        pending_pairs: run.pending.len() as u64,
    });
    let stop = options.stop.clone().unwrap_or_default();
    let mut games_this_run = 0u64;
    while run.done < plan.schedule.iterations && !stop.load(Ordering::Relaxed) {
        let k = run.done;
        let perturbation = plan.perturbation(k, &run.theta);
        let todo: Vec<u64> = (0..pairs)
            .filter(|p| !run.pending.contains_key(p))
            .collect();
        let finished = play_iteration(
            plan,
            objective,
            &perturbation,
            &todo,
            options.concurrency.max(1),
            &stop,
            &mut |row| {
                games_this_run += 2;
                run.totals[0] += row.1;
                run.totals[1] += row.2;
                run.totals[2] += row.3;
                run.pending.insert(row.0, [row.1, row.2, row.3]);
                let logged = run.log_pair(k, row);
                on_event(SpsaEvent::GameFinished { games_this_run });
                logged
            },
        )?;
        if !finished {
            break;
        }
        let result: i64 = run
            .pending
            .values()
            .map(|[w, _, l]| *w as i64 - *l as i64)
            .sum();
        let theta = plan.update(k, &run.theta, &perturbation.flips, result);
        run.finish_iteration(plan, theta, tuned)?;
        on_event(SpsaEvent::IterationFinished {
            done: run.done,
            total: plan.schedule.iterations,
            theta: &run.theta,
            result,
            games_this_run,
            elapsed: started.elapsed(),
        });
    }
    let [plus_wins, draws, minus_wins] = run.totals;
    Ok(SpsaSummary {
        complete: run.done == plan.schedule.iterations,
        theta: run.theta,
        done: run.done,
        games_this_run,
        plus_wins,
        draws,
        minus_wins,
    })
}

/// Plays the pairs `todo` of one iteration on `concurrency` threads, handing each finished
/// pair to `on_pair` (on this thread). False when stopped before every pair finished.
pub(super) fn play_iteration(
    plan: &SpsaPlan,
    objective: &dyn Objective,
    perturbation: &Perturbation,
    todo: &[u64],
    concurrency: usize,
    stop: &AtomicBool,
    on_pair: &mut dyn FnMut(PairRow) -> Result<(), SpsaError>,
) -> Result<bool, SpsaError> {
    let values: Vec<(Vec<f64>, Vec<f64>)> = todo
        .iter()
        .map(|&pair| plan.engine_values(perturbation, pair))
        .collect();
    let games = 2 * todo.len();
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<Report>();
    let mut first_error = None;
    let mut halves: BTreeMap<u64, Vec<GameOutcome>> = BTreeMap::new();
    let mut pairs_done = 0;
    std::thread::scope(|scope| {
        for _ in 0..concurrency.min(games) {
            let tx = tx.clone();
            let (next, values) = (&next, &values);
            scope.spawn(move || {
                let mut worker = match objective.worker() {
                    Ok(w) => w,
                    Err(e) => {
                        stop.store(true, Ordering::Relaxed);
                        let _ = tx.send(Report::Failed(e));
                        return;
                    }
                };
                loop {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    if n >= games {
                        break;
                    }
                    let (plus, minus) = &values[n / 2];
                    let pair = todo[n / 2];
                    let job = GameJob {
                        iteration: perturbation.iteration,
                        pair,
                        global_pair: perturbation.iteration * plan.pairs_per_iteration + pair,
                        plus_is_white: n % 2 == 0,
                        plus,
                        minus,
                    };
                    let report = match worker.play(&job) {
                        Ok(outcome) => Report::Game { pair, outcome },
                        Err(e) => {
                            stop.store(true, Ordering::Relaxed);
                            Report::Failed(e)
                        }
                    };
                    if tx.send(report).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for report in rx {
            match report {
                Report::Failed(e) => {
                    first_error.get_or_insert(e);
                }
                Report::Game { pair, outcome } => {
                    let both = halves.entry(pair).or_default();
                    both.push(outcome);
                    if both.len() < 2 {
                        continue;
                    }
                    let count = |o: GameOutcome| both.iter().filter(|&&x| x == o).count() as u64;
                    let row = (
                        pair,
                        count(GameOutcome::PlusWins),
                        count(GameOutcome::Draw),
                        count(GameOutcome::MinusWins),
                    );
                    pairs_done += 1;
                    if let Err(e) = on_pair(row) {
                        stop.store(true, Ordering::Relaxed);
                        first_error.get_or_insert(e);
                    }
                }
            }
        }
    });
    if let Some(e) = first_error {
        return Err(e);
    }
    Ok(pairs_done == todo.len())
}
