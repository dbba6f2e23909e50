//! One SPSA chain split over N shards (issue 15; docs/scale-out.md, "SPSA at scale"): every
//! shard plays a contiguous block of each iteration's pairs and meets the others at a barrier of
//! files in a shared directory, then computes θ_{k+1} itself. No leader and no server: the
//! update is the same pure function of θ_k and the iteration's pair files on every shard, so N
//! shards give, byte for byte at fixed nodes, the trajectory of the unsharded run.
//!
//! The shared directory:
//!
//! - `iterations/<k>/pairs-I-of-N.csv`: shard I's pairs of iteration k, written once
//!   (atomically) when all of them are played; the first line is the fingerprint
//!   (configuration, N, I, k). These files are the chain's state: θ_k is recomputed from them on
//!   every start.
//! - `shard-I-of-N/`: the shard's own directory (`run.txt`, its lock, and `pairs.csv`, the
//!   pairs it finished, so a killed shard replays only the pairs in flight).
//! - `run.txt`, `state.toml`, `trajectory.csv`, `pairs.csv`, the tuned files and
//!   `trajectory.svg`, written by shard 0 as the unsharded run writes them.

use super::config::fingerprint;
use super::plan::SpsaPlan;
use super::run::{
    append, changed_keys, csv_values, io_error, play_iteration, state_text, svg_due, write_atomic,
    Objective, PairRow, RunOptions, SpsaEvent, SpsaSummary, TunedFiles, PAIRS, PAIRS_HEADER, RUN,
    STATE, SVG, TRAJECTORY,
};
use super::svg::trajectory_svg;
use super::SpsaError;
use crate::arena::{OutputLock, Shard};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Wins, draws and losses of a pair row added without overflow (a damaged file's huge numbers
/// must not wrap around to 2).
fn games_in_pair(w: u64, d: u64, l: u64) -> Option<u64> {
    w.checked_add(d)?.checked_add(l)
}

/// The directory of the iterations' pair files inside the shared directory.
pub(crate) const ITERATIONS: &str = "iterations";

/// The longest pause between two looks at the shared directory while waiting.
const MAX_POLL: Duration = Duration::from_secs(2);
/// The first pause: short, since the other shards usually finish at about the same time.
const FIRST_POLL: Duration = Duration::from_millis(20);

/// The pairs (0-based, within an iteration of `pairs_per_iteration`) that `shard` plays:
/// `floor(I*P/N)` up to `floor((I+1)*P/N)`, the block rule of `sparring match --shard`.
pub fn shard_pairs(shard: Shard, pairs_per_iteration: u64) -> Range<u64> {
    let games = shard.games(2 * pairs_per_iteration);
    games.start / 2..games.end / 2
}

/// Where `shard` writes its pairs of iteration `k`: `SHARED/iterations/<k>/pairs-I-of-N.csv`.
pub(crate) fn pair_file(shared: &Path, k: u64, shard: Shard) -> PathBuf {
    shared
        .join(ITERATIONS)
        .join(k.to_string())
        .join(format!("pairs-{}-of-{}.csv", shard.index, shard.count))
}

/// The first line of a pair file: what run, split, shard and iteration wrote it, and the
/// parameters θ_k it played around, so shards whose chains diverged are caught at the barrier.
fn pair_file_header(config: u64, shard: Shard, k: u64, theta: &[f64]) -> String {
    format!(
        "# sparring spsa shard: fingerprint {config:016x}, shards {}, shard {}, iteration {k}, \
         theta {:016x}\n",
        shard.count,
        shard.index,
        theta_hash(theta)
    )
}

/// The exact bits of θ, hashed: equal on every shard of a healthy chain.
fn theta_hash(theta: &[f64]) -> u64 {
    let bits: Vec<String> = theta
        .iter()
        .map(|v| format!("{:016x}", v.to_bits()))
        .collect();
    fingerprint(&bits.join(","))
}

/// Publishes a pair file once: the first writer wins (a hard link fails when the file
/// exists), so a scheduler's duplicate of a shard never replaces a file others may have read.
fn publish_once(path: &Path, content: &str) -> Result<(), SpsaError> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".{}.tmp", std::process::id()));
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, content).map_err(io_error(&tmp))?;
    match std::fs::hard_link(&tmp, path) {
        Ok(()) => {
            let _ = std::fs::remove_file(&tmp);
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            let _ = std::fs::remove_file(&tmp);
            Ok(())
        }
        // A file system without hard links: an atomic rename (the last writer wins).
        Err(_) => std::fs::rename(&tmp, path).map_err(io_error(path)),
    }
}

/// What one run's shards share: the plan, the shared directory, the split, the fingerprint.
struct Split<'a> {
    plan: &'a SpsaPlan,
    shared: &'a Path,
    shard: Shard,
    config: u64,
    /// How long the barrier waits for the other shards (None: until stopped).
    timeout: Option<Duration>,
}

impl Split<'_> {
    fn shard(&self, index: u64) -> Shard {
        Shard {
            index,
            count: self.shard.count,
        }
    }

    fn mismatch(&self, path: &Path, message: String) -> SpsaError {
        SpsaError::ShardMismatch {
            path: path.to_path_buf(),
            message,
        }
    }

    /// Reads shard `index`'s pairs of iteration `k`, checking that the file belongs to this
    /// run and holds exactly the shard's block.
    fn read_pairs(&self, k: u64, index: u64, theta: &[f64]) -> Result<Vec<PairRow>, SpsaError> {
        let shard = self.shard(index);
        let path = pair_file(self.shared, k, shard);
        let bytes = std::fs::read(&path).map_err(io_error(&path))?;
        let text = String::from_utf8_lossy(&bytes);
        let mut lines = text.lines();
        let expected = pair_file_header(self.config, shard, k, theta);
        let expected_until_theta = expected.rsplit_once(", theta ").map_or("", |(a, _)| a);
        let first = lines.next().unwrap_or("");
        if first != expected.trim_end() {
            let shared_run = self.shared.join(RUN).display().to_string();
            let message = match first.strip_prefix("# sparring spsa shard: fingerprint ") {
                Some(rest) if !rest.starts_with(&format!("{:016x},", self.config)) => format!(
                    "written by a shard with another configuration (fingerprint {}, this \
                     shard's is {:016x}): every shard must run the same configuration with the \
                     same --iterations and --seed (the run's settings are in {shared_run})",
                    rest.split(',').next().unwrap_or(rest),
                    self.config
                ),
                Some(_) if first.starts_with(&format!("{expected_until_theta}, theta ")) => {
                    format!(
                        "played around other parameter values than this shard's θ_{k} (hash \
                         {:016x}): the shards' chains have diverged, from a shard run twice at \
                         once or machines whose floating point differs; restart the run",
                        theta_hash(theta)
                    )
                }
                Some(_) => format!(
                    "its first line `{first}` does not name shard {shard} of iteration {k}; \
                     the file was moved or edited"
                ),
                None => "not a pair file of `sparring spsa --shard` (its first line is not \
                         the shard's fingerprint)"
                    .to_string(),
            };
            return Err(self.mismatch(&path, message));
        }
        let corrupt = |line: usize, message: String| SpsaError::Corrupt {
            path: path.clone(),
            message: format!("line {line}: {message}"),
        };
        if lines.next().map(|l| format!("{l}\n")).as_deref() != Some(PAIRS_HEADER) {
            return Err(corrupt(
                2,
                format!("expected `{}`", PAIRS_HEADER.trim_end()),
            ));
        }
        let block = shard_pairs(shard, self.plan.pairs_per_iteration);
        let mut rows = Vec::new();
        for (n, line) in lines.enumerate() {
            let fields: Vec<u64> = line
                .split(',')
                .map(|f| f.trim().parse())
                .collect::<Result<_, _>>()
                .map_err(|_| corrupt(n + 3, format!("`{line}` is not five whole numbers")))?;
            let [iteration, pair, w, d, l] = fields[..] else {
                return Err(corrupt(
                    n + 3,
                    format!("`{line}` is not five whole numbers"),
                ));
            };
            let expected_pair = block.start + rows.len() as u64;
            if iteration != k || pair != expected_pair || games_in_pair(w, d, l) != Some(2) {
                return Err(corrupt(
                    n + 3,
                    format!("`{line}`: expected iteration {k}, pair {expected_pair} and two games"),
                ));
            }
            rows.push((pair, w, d, l));
        }
        if rows.len() as u64 != block.end - block.start {
            return Err(corrupt(
                rows.len() + 3,
                format!(
                    "{} pairs, the shard plays {} (pairs {} to {})",
                    rows.len(),
                    block.end - block.start,
                    block.start,
                    block.end.saturating_sub(1)
                ),
            ));
        }
        Ok(rows)
    }

    /// Pair files of another split in iteration `k`'s directory: refused, since their shards
    /// never complete this split's barrier.
    fn check_foreign_files(&self, k: u64) -> Result<(), SpsaError> {
        let dir = self.shared.join(ITERATIONS).join(k.to_string());
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(io_error(&dir)(e)),
        };
        for entry in entries {
            let name = entry.map_err(io_error(&dir))?.file_name();
            let name = name.to_string_lossy();
            let count = name
                .strip_prefix("pairs-")
                .and_then(|rest| rest.strip_suffix(".csv"))
                .and_then(|rest| rest.split_once("-of-"))
                .and_then(|(_, n)| n.parse::<u64>().ok());
            if let Some(count) = count.filter(|&n| n != self.shard.count) {
                return Err(self.mismatch(
                    &dir,
                    format!(
                        "holds {name}, a pair file of a split into {count} shards, and this \
                         shard is {} of {}: every shard of one run needs the same shard count \
                         (use a new --shared directory for another split)",
                        self.shard.index, self.shard.count
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The pair files of iteration `k` not written yet.
    fn missing(&self, k: u64) -> Vec<PathBuf> {
        (0..self.shard.count)
            .map(|i| pair_file(self.shared, k, self.shard(i)))
            .filter(|p| !p.exists())
            .collect()
    }

    /// Waits until every shard's pair file of iteration `k` is there and returns all the
    /// iteration's pairs; None when stopped first.
    fn barrier(
        &self,
        k: u64,
        theta: &[f64],
        stop: &std::sync::atomic::AtomicBool,
        on_event: &mut dyn FnMut(SpsaEvent<'_>),
    ) -> Result<Option<Vec<PairRow>>, SpsaError> {
        let started = Instant::now();
        let mut pause = FIRST_POLL;
        loop {
            self.check_foreign_files(k)?;
            let missing = self.missing(k);
            if missing.is_empty() {
                break;
            }
            if stop.load(Ordering::Relaxed) {
                return Ok(None);
            }
            if self.timeout.is_some_and(|t| started.elapsed() >= t) {
                return Err(SpsaError::BarrierTimeout {
                    iteration: k,
                    seconds: started.elapsed().as_secs(),
                    missing: missing
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", "),
                });
            }
            on_event(SpsaEvent::Waiting {
                iteration: k,
                missing: &missing,
                waited: started.elapsed(),
            });
            std::thread::sleep(pause);
            pause = (pause * 2).min(MAX_POLL);
        }
        let mut rows = Vec::new();
        for index in 0..self.shard.count {
            rows.extend(self.read_pairs(k, index, theta)?);
        }
        Ok(Some(rows))
    }
}

/// Compares a recorded run description with this shard's; writes it when there is none.
fn check_description(path: &Path, description: &str, dir: &Path) -> Result<bool, SpsaError> {
    match std::fs::read(path) {
        Ok(bytes) => {
            let recorded = String::from_utf8_lossy(&bytes);
            if recorded != description {
                return Err(SpsaError::Changed {
                    dir: dir.to_path_buf(),
                    keys: changed_keys(&recorded, description),
                });
            }
            Ok(true)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(io_error(path)(e)),
    }
}

/// The shard's log of its finished pairs, (iteration, pair) → counts; a line cut short by a
/// kill is dropped (its pair is played again) and the file rewritten without it.
fn read_pairs_log(path: &Path) -> Result<BTreeMap<(u64, u64), [u64; 3]>, SpsaError> {
    let mut logged = BTreeMap::new();
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::write(path, PAIRS_HEADER).map_err(io_error(path))?;
            return Ok(logged);
        }
        Err(e) => return Err(io_error(path)(e)),
    };
    let mut kept = String::from(PAIRS_HEADER);
    for line in String::from_utf8_lossy(&bytes).lines().skip(1) {
        let fields: Vec<u64> = line
            .split(',')
            .filter_map(|f| f.trim().parse().ok())
            .collect();
        let [iteration, pair, w, d, l] = fields[..] else {
            continue;
        };
        if games_in_pair(w, d, l) != Some(2) || line.split(',').count() != 5 {
            continue;
        }
        logged.insert((iteration, pair), [w, d, l]);
        let _ = writeln!(kept, "{line}");
    }
    write_atomic(path, &kept)?;
    Ok(logged)
}

/// Shard 0's copy of the run files in the shared directory, as the unsharded run writes them.
struct SharedFiles<'a> {
    shared: &'a Path,
    plan: &'a SpsaPlan,
    tuned: TunedFiles<'a>,
    /// `pairs.csv` is appended to; open once the files are written in full.
    pairs_log: Option<std::fs::File>,
}

impl SharedFiles<'_> {
    /// Writes every file for the state after `done` iterations (`pairs`: the rows of
    /// `pairs.csv` so far).
    fn write_all(
        &mut self,
        done: u64,
        trajectory: &[Vec<f64>],
        pairs: &str,
        totals: [u64; 3],
    ) -> Result<(), SpsaError> {
        let path = self.shared.join(PAIRS);
        write_atomic(&path, &format!("{PAIRS_HEADER}{pairs}"))?;
        self.pairs_log = Some(append(&path)?);
        self.write_iteration(done, trajectory, totals, true)
    }

    /// After iteration `done`: trajectory, tuned files, the SVG when due (or `svg`), then the
    /// state (last: it says what is done).
    fn write_iteration(
        &mut self,
        done: u64,
        trajectory: &[Vec<f64>],
        totals: [u64; 3],
        svg: bool,
    ) -> Result<(), SpsaError> {
        let names: Vec<&str> = self.plan.params.iter().map(|p| p.name.as_str()).collect();
        let mut text = format!("iteration,{}\n", names.join(","));
        for (k, row) in trajectory.iter().enumerate() {
            let _ = writeln!(text, "{k},{}", csv_values(row));
        }
        write_atomic(&self.shared.join(TRAJECTORY), &text)?;
        let theta = trajectory.last().map(Vec::as_slice).unwrap_or_default();
        for (name, content) in (self.tuned)(theta) {
            write_atomic(&self.shared.join(name), &content)?;
        }
        if svg || svg_due(done, self.plan.schedule.iterations) {
            write_atomic(
                &self.shared.join(SVG),
                &trajectory_svg(self.plan, trajectory),
            )?;
        }
        write_atomic(&self.shared.join(STATE), &state_text(done, theta, totals))?;
        if svg || svg_due(done, self.plan.schedule.iterations) {
            super::page::refresh(self.shared)?;
        }
        Ok(())
    }

    fn append_pairs(&mut self, rows: &str) -> Result<(), SpsaError> {
        let path = self.shared.join(PAIRS);
        if let Some(file) = &mut self.pairs_log {
            file.write_all(rows.as_bytes())
                .and_then(|_| file.flush())
                .map_err(io_error(&path))?;
        }
        Ok(())
    }
}

/// Refuses a split in which some shard would play no pair of an iteration (more shards than
/// pairs per iteration): such a shard would only wait at every barrier.
pub fn check_split(plan: &SpsaPlan, shard: Shard) -> Result<(), SpsaError> {
    if plan.pairs_per_iteration < shard.count {
        return Err(SpsaError::TooManyShards {
            shards: shard.count,
            pairs: plan.pairs_per_iteration,
        });
    }
    Ok(())
}

/// Runs shard `shard` of the chain in the shared directory `shared` (created if needed) until
/// every iteration is done or `options.stop` is set. `options.description` must be the same
/// on every shard (it is fingerprinted into the pair files); `options.resume` lets a shard's
/// directory that holds a started shard be continued (a shard without one starts either way).
/// Shard 0 also writes the run files (`trajectory.csv`, `state.toml`, the tuned files, ...).
/// `SpsaEvent::Waiting` reports each look at the directory while the other shards play.
pub fn run_spsa_shard(
    plan: &SpsaPlan,
    objective: &dyn Objective,
    shared: &Path,
    shard: Shard,
    options: &RunOptions,
    tuned: TunedFiles<'_>,
    on_event: &mut dyn FnMut(SpsaEvent<'_>),
) -> Result<SpsaSummary, SpsaError> {
    check_split(plan, shard)?;
    let own_dir = shared.join(shard.dir_name());
    std::fs::create_dir_all(&own_dir).map_err(io_error(&own_dir))?;
    let _lock = OutputLock::acquire(&own_dir)?;
    record_descriptions(shared, &own_dir, shard, options)?;
    let stop = options.stop.clone().unwrap_or_default();
    let mut player = ShardPlayer::new(plan, objective, shared, shard, options, &own_dir)?;
    let games_per_iteration = 2 * (player.block.end - player.block.start);
    let iterations = plan.schedule.iterations;
    let mut files = (shard.index == 0).then_some(SharedFiles {
        shared,
        plan,
        tuned,
        pairs_log: None,
    });
    let started = Instant::now();
    let mut chain = Chain::new(plan);
    // Iterations whose pair files are all there are replayed from the files; the first one
    // that is not is where this start's own work begins ("live").
    let mut live = false;
    let mut replayed_pairs = String::new();
    let mut k = 0;
    loop {
        if !live && (k == iterations || !player.split.missing(k).is_empty()) {
            live = true;
            let pending_pairs = player.pending_pairs(k);
            if let Some(files) = &mut files {
                files.write_all(k, &chain.trajectory, &replayed_pairs, chain.totals)?;
            }
            replayed_pairs.clear();
            on_event(SpsaEvent::Started {
                done: k,
                total: iterations,
                games_per_iteration,
                pending_pairs,
            });
        }
        if k == iterations || stop.load(Ordering::Relaxed) {
            break;
        }
        if !pair_file(shared, k, shard).exists()
            && !player.play(k, &chain.theta, &stop, on_event)?
        {
            break;
        }
        let Some(rows) = player.split.barrier(k, &chain.theta, &stop, on_event)? else {
            break;
        };
        let (result, pairs_text) = chain.advance(plan, k, &rows);
        k += 1;
        if !live {
            replayed_pairs.push_str(&pairs_text);
            continue;
        }
        if let Some(files) = &mut files {
            files.append_pairs(&pairs_text)?;
            files.write_iteration(k, &chain.trajectory, chain.totals, false)?;
        }
        on_event(SpsaEvent::IterationFinished {
            done: k,
            total: iterations,
            theta: &chain.theta,
            result,
            games_this_run: player.games_this_run,
            elapsed: started.elapsed(),
        });
    }
    Ok(chain.summary(k, iterations, player.games_this_run))
}

/// Checks the run's description in the shared directory and the shard's in its own (recording
/// them when new: the run's by shard 0 only). A shard of another configuration or split is
/// refused, and so is a started shard without `options.resume`.
fn record_descriptions(
    shared: &Path,
    own_dir: &Path,
    shard: Shard,
    options: &RunOptions,
) -> Result<(), SpsaError> {
    let run_description = format!("{}shards = {}\n", options.description, shard.count);
    let shared_run = shared.join(RUN);
    let recorded =
        check_description(&shared_run, &run_description, shared).map_err(|e| match e {
            SpsaError::Changed { keys, .. } => SpsaError::ShardMismatch {
                path: shared_run.clone(),
                message: format!(
                    "the run in this directory was started with another configuration or \
                     split ({keys} differ): every shard must run the same configuration (with \
                     the same --iterations and --seed) and the same shard count; use a new \
                     --shared directory for another run"
                ),
            },
            e => e,
        })?;
    let own_description = format!("{run_description}shard = {}\n", shard.index);
    let own_run = own_dir.join(RUN);
    if own_run.exists() && !options.resume {
        return Err(SpsaError::RunExists {
            dir: own_dir.to_path_buf(),
        });
    }
    if !check_description(&own_run, &own_description, own_dir)? {
        write_atomic(&own_run, &own_description)?;
    }
    if shard.index == 0 && !recorded {
        write_atomic(&shared_run, &run_description)?;
    }
    Ok(())
}

/// The shard's own `pairs.csv`: every pair it finished, by (iteration, pair), so a killed
/// shard replays only the pairs in flight.
struct PairLog {
    path: PathBuf,
    file: std::fs::File,
    logged: BTreeMap<(u64, u64), [u64; 3]>,
}

impl PairLog {
    fn open(path: PathBuf) -> Result<PairLog, SpsaError> {
        let logged = read_pairs_log(&path)?;
        let file = append(&path)?;
        Ok(PairLog { path, file, logged })
    }

    /// Records a finished pair of iteration `k` (flushed at once).
    fn record(&mut self, k: u64, pair: u64, [w, d, l]: [u64; 3]) -> Result<(), SpsaError> {
        self.logged.insert((k, pair), [w, d, l]);
        writeln!(self.file, "{k},{pair},{w},{d},{l}")
            .and_then(|_| self.file.flush())
            .map_err(io_error(&self.path))
    }
}

/// Plays this shard's block of pairs of an iteration, logging each pair as it finishes.
struct ShardPlayer<'a> {
    plan: &'a SpsaPlan,
    objective: &'a dyn Objective,
    split: Split<'a>,
    /// The pairs of every iteration this shard plays.
    block: Range<u64>,
    concurrency: usize,
    log: PairLog,
    games_this_run: u64,
}

impl<'a> ShardPlayer<'a> {
    /// The player of `shard`, its pair log opened in `own_dir` (its earlier pairs read back).
    fn new(
        plan: &'a SpsaPlan,
        objective: &'a dyn Objective,
        shared: &'a Path,
        shard: Shard,
        options: &RunOptions,
        own_dir: &Path,
    ) -> Result<Self, SpsaError> {
        Ok(ShardPlayer {
            plan,
            objective,
            split: Split {
                plan,
                shared,
                shard,
                config: fingerprint(&options.description),
                timeout: options.barrier_timeout,
            },
            block: shard_pairs(shard, plan.pairs_per_iteration),
            concurrency: options.concurrency.max(1),
            log: PairLog::open(own_dir.join(PAIRS))?,
            games_this_run: 0,
        })
    }

    /// Pairs of iteration `k` this shard has already played (all of them once its pair file
    /// is published).
    fn pending_pairs(&self, k: u64) -> u64 {
        if pair_file(self.split.shared, k, self.split.shard).exists() {
            self.block.end - self.block.start
        } else {
            self.block
                .clone()
                .filter(|p| self.log.logged.contains_key(&(k, *p)))
                .count() as u64
        }
    }

    /// Plays the pairs of iteration `k` around `theta` that the log does not hold yet, then
    /// publishes the shard's pair file. False when stopped first.
    fn play(
        &mut self,
        k: u64,
        theta: &[f64],
        stop: &AtomicBool,
        on_event: &mut dyn FnMut(SpsaEvent<'_>),
    ) -> Result<bool, SpsaError> {
        let mut pending: BTreeMap<u64, [u64; 3]> = self
            .block
            .clone()
            .filter_map(|p| self.log.logged.get(&(k, p)).map(|c| (p, *c)))
            .collect();
        let todo: Vec<u64> = self
            .block
            .clone()
            .filter(|p| !pending.contains_key(p))
            .collect();
        let perturbation = self.plan.perturbation(k, theta);
        let (log, games_this_run) = (&mut self.log, &mut self.games_this_run);
        let finished = play_iteration(
            self.plan,
            self.objective,
            &perturbation,
            &todo,
            self.concurrency,
            stop,
            &mut |(pair, w, d, l)| {
                *games_this_run += 2;
                pending.insert(pair, [w, d, l]);
                let logged = log.record(k, pair, [w, d, l]);
                on_event(SpsaEvent::GameFinished {
                    games_this_run: *games_this_run,
                });
                logged
            },
        )?;
        if !finished {
            return Ok(false);
        }
        let shard = self.split.shard;
        let mut text = pair_file_header(self.split.config, shard, k, theta);
        text.push_str(PAIRS_HEADER);
        for (pair, [w, d, l]) in &pending {
            let _ = writeln!(text, "{k},{pair},{w},{d},{l}");
        }
        let own = pair_file(self.split.shared, k, shard);
        let dir = own.parent().unwrap_or(self.split.shared);
        std::fs::create_dir_all(dir).map_err(io_error(dir))?;
        publish_once(&own, &text)?;
        Ok(true)
    }
}

/// The chain as the shards compute it: θ, its trajectory, and the games' totals.
struct Chain {
    theta: Vec<f64>,
    trajectory: Vec<Vec<f64>>,
    /// θ+ wins, draws, θ− wins.
    totals: [u64; 3],
}

impl Chain {
    /// The run's summary after `done` of `iterations` iterations.
    fn summary(self, done: u64, iterations: u64, games_this_run: u64) -> SpsaSummary {
        let [plus_wins, draws, minus_wins] = self.totals;
        SpsaSummary {
            complete: done == iterations,
            theta: self.theta,
            done,
            games_this_run,
            plus_wins,
            draws,
            minus_wins,
        }
    }

    fn new(plan: &SpsaPlan) -> Chain {
        let theta = plan.start();
        Chain {
            trajectory: vec![theta.clone()],
            theta,
            totals: [0; 3],
        }
    }

    /// Applies iteration `k`'s pairs (all shards'); returns the iteration's result (θ+ wins
    /// minus θ− wins) and its rows for pairs.csv.
    fn advance(&mut self, plan: &SpsaPlan, k: u64, rows: &[PairRow]) -> (i64, String) {
        let result: i64 = rows.iter().map(|&(_, w, _, l)| w as i64 - l as i64).sum();
        let mut pairs_text = String::new();
        for &(pair, w, d, l) in rows {
            self.totals[0] += w;
            self.totals[1] += d;
            self.totals[2] += l;
            let _ = writeln!(pairs_text, "{k},{pair},{w},{d},{l}");
        }
        self.theta = plan.update(k, &self.theta, &plan.flips(k), result);
        self.trajectory.push(self.theta.clone());
        (result, pairs_text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_blocks_cover_every_pair_once_in_order() {
        for pairs in 1..12u64 {
            for count in 1..=pairs {
                let mut next = 0;
                for index in 0..count {
                    let block = shard_pairs(Shard { index, count }, pairs);
                    assert_eq!(block.start, next, "{index}/{count} of {pairs}");
                    assert!(!block.is_empty(), "{index}/{count} of {pairs}");
                    next = block.end;
                }
                assert_eq!(next, pairs);
            }
        }
    }

    #[test]
    fn a_pair_file_is_published_once_and_the_first_writer_wins() {
        let dir = std::env::temp_dir().join(format!("sparring-publish-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("pairs-0-of-2.csv");
        publish_once(&path, "first\n").unwrap();
        // A duplicate of the shard publishing later changes nothing others may have read.
        publish_once(&path, "second\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "first\n");
        let names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["pairs-0-of-2.csv"], "no temporary file is left");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_pair_rows_counts_do_not_wrap_around_to_two_games() {
        assert_eq!(games_in_pair(1, 1, 0), Some(2));
        assert_eq!(games_in_pair(0, u64::MAX, 3), None);
        assert_eq!(games_in_pair(u64::MAX, 0, 3), None);
    }

    #[test]
    fn changed_keys_name_differing_and_missing_lines() {
        let old = "seed = 1\niterations = 3\nshards = 2\n";
        let new = "seed = 2\niterations = 3\n";
        assert_eq!(changed_keys(old, new), "seed, shards");
    }
}
