//! The loop over generations: the run directory, its fingerprint, the champion's succession and
//! the ladder's outputs.

use super::config::{EngineFiles, LoopConfig};
use super::record::{write_rows, GenerationRow};
use super::staged::{Halt, StagePlan};
use super::stages::{
    verdict, GateOutcome, Generation, OnEvent, SelfplayOutcome, TuneOutcome, DATA_FILE,
};
use super::{io_error, LoopError, LoopEvent, Stage};
use crate::arena::LOCK_FILE;
use crate::arena::{EngineKind, MatchConfig, OutputLock};
use crate::eval::EvalParams;
use crate::nnue::Network;
use crate::search::SearchParams;
use crate::stats::SprtDecision;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The loop's fingerprint file in the run directory.
pub(crate) const LOOP_MANIFEST: &str = "loop.run.toml";

/// How to run a loop.
#[derive(Clone, Debug, Default)]
pub struct LoopOptions {
    /// Play up to this generation (None: the configuration's `generations`).
    pub generations: Option<u32>,
    /// Continue the loop in its directory.
    pub resume: bool,
    /// The run directory instead of the configuration's `output.dir`.
    pub output_dir: Option<PathBuf>,
    /// Play no games here: merge the shards of the match stages played elsewhere, run the
    /// other stages, and stop at the first match stage (or gate wave) whose shards are not all
    /// played, returning its plan (a cluster driver's step, docs/loop.md).
    pub staged: bool,
}

/// What a finished loop reports.
#[derive(Clone, Debug)]
pub struct LoopSummary {
    /// Every generation's row, the resumed ones included.
    pub rows: Vec<GenerationRow>,
    /// The champion at the end.
    pub champion: EngineFiles,
    /// The run directory.
    pub dir: PathBuf,
    /// Staged: the match stage to play as shards before the loop can go on (None: finished).
    pub pending: Option<StagePlan>,
}

/// Runs (or resumes) the loop to its last generation.
pub fn run_loop(
    config: &LoopConfig,
    options: &LoopOptions,
    on_event: &mut OnEvent<'_>,
) -> Result<LoopSummary, LoopError> {
    let dir = options
        .output_dir
        .clone()
        .unwrap_or_else(|| config.output_dir.clone());
    let last = options.generations.unwrap_or(config.generations);
    if options.staged && config.network.is_some() {
        return Err(LoopError::StagedNetwork);
    }
    check_champion(config)?;
    // Read-only first: a run refused here leaves the directory as it was.
    check_directory(config, &dir, options.resume, false)?;
    if !options.staged {
        let finished = finished_rows(&dir).map_or(0, |rows| rows.len() as u32);
        check_panel(config, finished, last)?;
    }
    let _lock = claim_directory(config, &dir, options.resume)?;
    let mut rows = finished_rows(&dir)?;
    let mut champion = champion_after(config, &dir, &rows);
    on_event(LoopEvent::Started {
        finished: rows.len() as u32,
        last,
    });
    for number in rows.len() as u32 + 1..=last {
        let gen_dir = dir.join(generation_dir(number));
        std::fs::create_dir_all(&gen_dir).map_err(io_error(&gen_dir))?;
        let mut clock = GenerationClock::resume(&gen_dir)?;
        let mut timed = |event: LoopEvent<'_>| {
            clock.tick();
            on_event(event);
        };
        let mut generation = Generation {
            config,
            number,
            dir: gen_dir.clone(),
            on_event: &mut timed,
            staged: options.staged,
        };
        let played = play_generation(&mut generation, &dir, &rows, &champion);
        clock.save()?;
        let mut row = match played {
            Ok(row) => row,
            Err(Halt::Failed(error)) => return Err(*error),
            Err(Halt::Pending(plan)) => {
                write_outputs(&dir, &rows, &champion)?;
                return Ok(LoopSummary {
                    rows,
                    champion,
                    dir,
                    pending: Some(plan),
                });
            }
        };
        row.seconds = clock.total();
        row.save(&gen_dir)?;
        if row.promoted {
            champion = challenger_files(&gen_dir, &champion);
        }
        rows.push(row);
        write_outputs(&dir, &rows, &champion)?;
        on_event(LoopEvent::GenerationFinished(
            rows.last().expect("just pushed"),
        ));
    }
    write_outputs(&dir, &rows, &champion)?;
    Ok(LoopSummary {
        rows,
        champion,
        dir,
        pending: None,
    })
}

/// The stages of one generation, and its row.
fn play_generation(
    generation: &mut Generation<'_, '_>,
    run_dir: &Path,
    rows: &[GenerationRow],
    champion: &EngineFiles,
) -> Result<GenerationRow, Halt> {
    let config = generation.config;
    let number = generation.number;
    let (selfplay, tune, challenger) = match config.network {
        Some(_) => network_challenger(generation, run_dir, champion)?,
        None => texel_challenger(generation, run_dir, champion)?,
    };
    let (challenger, gate) = match challenger {
        None => (champion.clone(), Gate::Unusable),
        Some(challenger) if same_engine(&challenger, champion)? => {
            // A tune that kept the champion's values (best epoch 0) would gate identical engines.
            generation.skip_gate();
            (challenger, Gate::Identical)
        }
        Some(challenger) => {
            let outcome = generation.gate(&challenger, champion)?;
            (challenger, Gate::Played(outcome))
        }
    };
    let played = gate.played();
    let promoted = played.is_some_and(|g| g.decision == SprtDecision::AcceptH1);
    let (mut cumulative_elo, mut squared_error) = rows.last().map_or((0.0, 0.0), |r| {
        (r.cumulative_elo, r.cumulative_error.powi(2))
    });
    if let Some(outcome) = played.filter(|_| promoted) {
        cumulative_elo += outcome.elo;
        squared_error += outcome.elo_error.powi(2);
    }
    let new_champion = if promoted { &challenger } else { champion };
    let anchor = if config.anchor_every > 0 && number % config.anchor_every == 0 {
        Some(generation.anchor(new_champion)?)
    } else {
        None
    };
    Ok(GenerationRow {
        generation: number,
        games: selfplay.games,
        positions: selfplay.positions,
        tune_positions: tune.positions,
        k: tune.k,
        train_mse: tune.train_mse,
        validation_mse: tune.validation_mse,
        gate_games: played.map_or(0, |g| g.games),
        sprt: gate.sprt().to_string(),
        llr: played.map(|g| g.llr),
        elo: played.map(|g| g.elo),
        elo_error: played.map(|g| g.elo_error),
        promoted,
        cumulative_elo,
        cumulative_error: squared_error.sqrt(),
        anchor_elo: anchor.as_ref().map(|a| a.elo),
        anchor_error: anchor.as_ref().map(|a| a.error),
        anchor_games: anchor.as_ref().map(|a| a.games),
        seconds: 0.0,
    })
}

/// What a generation's first stages gave: its data, its fit, and the challenger (None when
/// the fit gave nothing the engine can play).
type Challenger = (SelfplayOutcome, TuneOutcome, Option<EngineFiles>);

/// The Texel loop's self-play, tune and (every `spsa.every` generations) SPSA.
fn texel_challenger(
    generation: &mut Generation<'_, '_>,
    run_dir: &Path,
    champion: &EngineFiles,
) -> Result<Challenger, Halt> {
    let (config, number) = (generation.config, generation.number);
    let selfplay = generation.selfplay(champion)?;
    let first = number.saturating_sub(config.window - 1).max(1);
    let files: Vec<PathBuf> = (first..=number)
        .map(|g| run_dir.join(generation_dir(g)).join(DATA_FILE))
        .collect();
    let tune = generation.tune(&files, champion)?;
    if tune.unusable.is_some() {
        return Ok((selfplay, tune, None));
    }
    let mut challenger = generation.challenger(champion)?;
    if config.spsa_every > 0 && number % config.spsa_every == 0 {
        challenger = generation.spsa(&challenger)?;
    }
    Ok((selfplay, tune, Some(challenger)))
}

/// The network loop's data run and training.
fn network_challenger(
    generation: &mut Generation<'_, '_>,
    run_dir: &Path,
    champion: &EngineFiles,
) -> Result<Challenger, Halt> {
    let selfplay = generation.datagen(champion)?;
    let files = generation.config.window_files(run_dir, generation.number);
    let tune = generation.train(&files, champion)?;
    if tune.unusable.is_some() {
        return Ok((selfplay, tune, None));
    }
    let challenger = generation.net_challenger(champion)?;
    Ok((selfplay, tune, Some(challenger)))
}

/// What became of a generation's gate.
enum Gate {
    /// The challenger played the champion: the SPRT's outcome.
    Played(GateOutcome),
    /// The tune gave no challenger the engine would play (`sprt` column `unusable`).
    Unusable,
    /// The challenger equals the champion, value for value (`sprt` column `identical`).
    Identical,
}

impl Gate {
    /// The outcome of a played gate.
    fn played(&self) -> Option<&GateOutcome> {
        match self {
            Gate::Played(outcome) => Some(outcome),
            Gate::Unusable | Gate::Identical => None,
        }
    }

    /// The `sprt` column of generations.csv.
    fn sprt(&self) -> &'static str {
        match self {
            Gate::Played(outcome) => verdict(outcome.decision),
            Gate::Unusable => "unusable",
            Gate::Identical => "identical",
        }
    }
}

/// Whether the challenger's weights (or network) and search constants are the champion's,
/// value for value.
fn same_engine(challenger: &EngineFiles, champion: &EngineFiles) -> Result<bool, LoopError> {
    let net = |files: &EngineFiles| match &files.net {
        Some(path) => std::fs::read(path).map(Some).map_err(io_error(path)),
        None => Ok(None),
    };
    if net(challenger)? != net(champion)? {
        return Ok(false);
    }
    if EvalParams::load(&challenger.weights)? != EvalParams::load(&champion.weights)? {
        return Ok(false);
    }
    let search = |files: &EngineFiles| SearchParams::load_or_default(files.search.as_deref());
    Ok(search(challenger)? == search(champion)?)
}

/// A generation's wall time over every session that worked on it: kept in its directory and
/// saved as it runs, so a resumed generation's `seconds` counts the earlier sessions too.
struct GenerationClock {
    path: PathBuf,
    before: f64,
    started: Instant,
    saved: Instant,
}

impl GenerationClock {
    const FILE: &'static str = "elapsed.seconds";
    const SAVE_EVERY_SECONDS: u64 = 30;

    fn resume(gen_dir: &Path) -> Result<GenerationClock, LoopError> {
        let path = gen_dir.join(Self::FILE);
        let before = match std::fs::read_to_string(&path) {
            // A damaged clock only loses the earlier sessions' time: it never stops the loop.
            Ok(text) => text.trim().parse::<f64>().unwrap_or(0.0).max(0.0),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => 0.0,
            Err(e) => return Err(io_error(&path)(e)),
        };
        let now = Instant::now();
        Ok(GenerationClock {
            path,
            before,
            started: now,
            saved: now,
        })
    }

    fn total(&self) -> f64 {
        self.before + self.started.elapsed().as_secs_f64()
    }

    /// Saves now and then (called on every event of the generation).
    fn tick(&mut self) {
        if self.saved.elapsed().as_secs() >= Self::SAVE_EVERY_SECONDS {
            // Best effort between stages; `save` at the end reports a failure.
            let _ = self.save();
        }
    }

    fn save(&mut self) -> Result<(), LoopError> {
        self.saved = Instant::now();
        let text = format!("{:.3}\n", self.total());
        crate::files::write_atomic(&self.path, text.as_bytes()).map_err(io_error(&self.path))
    }
}

/// `gen-007`.
pub(super) fn generation_dir(number: u32) -> String {
    format!("gen-{number:03}")
}

/// Loads the starting champion's files, so a bad one is refused before anything runs.
fn check_champion(config: &LoopConfig) -> Result<(), LoopError> {
    EvalParams::load(&config.champion.weights)?;
    if let Some(search) = &config.champion.search {
        SearchParams::load(search)?;
    }
    if let Some(net) = &config.champion.net {
        Network::load(net)?;
    }
    for path in &config.champion.data {
        std::fs::File::open(path).map_err(|source| LoopError::ChampionData {
            path: path.clone(),
            source,
        })?;
    }
    Ok(())
}

/// Starts every engine the run's stages will play that is not the built-in one the loop
/// makes (the anchor panel, when a generation from `finished + 1` to `last` is anchored), and
/// stops it again: a command that is missing or does not speak its protocol is reported now,
/// not after the hours of self-play, tune and gate before its stage.
fn check_panel(config: &LoopConfig, finished: u32, last: u32) -> Result<(), LoopError> {
    let every = config.anchor_every;
    let Some(first) = (every > 0)
        .then(|| (finished + 1..=last).find(|g| g % every == 0))
        .flatten()
    else {
        return Ok(());
    };
    let placeholder = Path::new(&generation_dir(first)).join("anchor");
    let (anchor, _) = config.anchor_config(first, &config.start_champion(), &placeholder)?;
    // Engine 0 is the champion (checked with the champion's files); the rest is the panel,
    // one at a time, so the message can name the command whatever the engine did.
    for engine in anchor.engines.iter().skip(1) {
        let mut alone: MatchConfig = anchor.clone();
        alone.engines = vec![engine.clone()];
        if let Err(source) = crate::arena::check_engines(&alone) {
            let command = match &engine.kind {
                EngineKind::Uci { command, args, .. } => std::iter::once(command)
                    .chain(args)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(" "),
                EngineKind::Builtin { .. } => "the built-in engine".to_string(),
            };
            let mut detail = source.to_string();
            if !detail.contains(&command) {
                detail = format!("{detail} (command `{command}`)");
            }
            return Err(LoopError::Engines {
                stage: Stage::Anchor,
                detail,
                source: Box::new(source),
            });
        }
    }
    Ok(())
}

/// Checks, reading only, that `dir` can be this run's: a directory (or nothing yet) that is
/// empty, or holds this loop (with `resume`, its fingerprint unchanged). A directory holding
/// another run's lock is left to `claim_directory` (the lock's own message) unless `locked`
/// (the lock is this run's, taken since).
fn check_directory(
    config: &LoopConfig,
    dir: &Path,
    resume: bool,
    locked: bool,
) -> Result<(), LoopError> {
    if dir.exists() && !dir.is_dir() {
        return Err(LoopError::OutputNotDirectory {
            dir: dir.to_path_buf(),
        });
    }
    let mut names = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries {
            names.push(entry.map_err(io_error(dir))?.file_name());
        }
    }
    let lock = std::ffi::OsStr::new(LOCK_FILE);
    if !locked && names.iter().any(|n| n == lock) {
        return Ok(());
    }
    let holds_something = names.iter().any(|n| n != lock);
    let manifest = dir.join(LOOP_MANIFEST);
    match (manifest.exists(), resume) {
        (true, true) => {
            let text = std::fs::read_to_string(&manifest).map_err(io_error(&manifest))?;
            let was: BTreeMap<String, String> =
                toml::from_str(&text).map_err(|e| LoopError::Damaged {
                    path: manifest.clone(),
                    message: format!("not a loop fingerprint: {}", e.message()),
                })?;
            let changes =
                describe_changes(&was, &config.fingerprint(), &config.champion_byte_hashes());
            if !changes.is_empty() {
                return Err(LoopError::Mismatch {
                    dir: dir.to_path_buf(),
                    changes,
                });
            }
            Ok(())
        }
        (false, true) if holds_something => Err(LoopError::NothingToResume {
            dir: dir.to_path_buf(),
        }),
        (true, false) | (false, false) if holds_something => Err(LoopError::OutputExists {
            dir: dir.to_path_buf(),
        }),
        _ => Ok(()),
    }
}

/// Makes the run directory and takes its lock, then checks it again under the lock (another
/// loop started at the same moment may have claimed it since) and writes a new run's
/// fingerprint. Returns the lock, held while the run goes on.
fn claim_directory(config: &LoopConfig, dir: &Path, resume: bool) -> Result<OutputLock, LoopError> {
    std::fs::create_dir_all(dir).map_err(io_error(dir))?;
    let lock = OutputLock::acquire(dir)?;
    check_directory(config, dir, resume, true)?;
    let manifest = dir.join(LOOP_MANIFEST);
    if !manifest.exists() {
        let text = toml::to_string(&config.fingerprint()).expect("a fingerprint serialises");
        crate::files::write_atomic(&manifest, text.as_bytes()).map_err(io_error(&manifest))?;
    }
    Ok(lock)
}

/// `key was A and is now B` for every key that differs; a key whose old value is the byte hash
/// in `byte_hashes` (a champion file hashed by an older version, unchanged since) does not.
fn describe_changes(
    was: &BTreeMap<String, String>,
    now: &BTreeMap<String, String>,
    byte_hashes: &BTreeMap<String, String>,
) -> String {
    let keys: std::collections::BTreeSet<&String> = was.keys().chain(now.keys()).collect();
    let show = |v: Option<&String>| v.map_or_else(|| "(unset)".to_string(), Clone::clone);
    keys.into_iter()
        // A fingerprint written before the anchor could change keeps its keys: not compared.
        .filter(|k| super::config::decides_generations(k))
        .filter(|k| was.get(*k) != now.get(*k))
        .filter(|k| was.get(*k).is_none() || was.get(*k) != byte_hashes.get(*k))
        .map(|k| {
            format!(
                "{k} was {} and is now {}",
                show(was.get(k)),
                show(now.get(k))
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The rows of the generations finished in `dir`, in order (the first unfinished one ends them).
fn finished_rows(dir: &Path) -> Result<Vec<GenerationRow>, LoopError> {
    let mut rows = Vec::new();
    for number in 1.. {
        match GenerationRow::load(&dir.join(generation_dir(number)))? {
            Some(row) => rows.push(row),
            None => break,
        }
    }
    Ok(rows)
}

/// The champion after the finished generations: the last promoted challenger, else the start.
fn champion_after(config: &LoopConfig, dir: &Path, rows: &[GenerationRow]) -> EngineFiles {
    rows.iter()
        .filter(|r| r.promoted)
        .fold(config.start_champion(), |champion, row| {
            challenger_files(&dir.join(generation_dir(row.generation)), &champion)
        })
}

/// A generation's challenger files (as `Generation::challenger` and `Generation::spsa` wrote
/// them): its search file when it has one, else the champion's (the compiled-in constants).
fn challenger_files(gen_dir: &Path, champion: &EngineFiles) -> EngineFiles {
    let or_champion = |name: &str, champion: &Option<PathBuf>| {
        let path = gen_dir.join(name);
        if path.exists() {
            Some(path)
        } else {
            champion.clone()
        }
    };
    // A network generation trains a net and keeps the champion's weights; a Texel one tunes
    // the weights and keeps the champion's net (none).
    let weights = or_champion("challenger.weights.toml", &Some(champion.weights.clone()));
    EngineFiles {
        weights: weights.expect("the champion's weights"),
        search: or_champion("challenger.search.toml", &champion.search),
        net: or_champion(super::network::NET_FILE, &champion.net),
    }
}

/// generations.csv, ladder.svg and the champion's files.
fn write_outputs(
    dir: &Path,
    rows: &[GenerationRow],
    champion: &EngineFiles,
) -> Result<(), LoopError> {
    write_rows(dir, rows)?;
    let svg_path = dir.join("ladder.svg");
    crate::files::write_atomic(&svg_path, super::svg::ladder_svg(rows).as_bytes())
        .map_err(io_error(&svg_path))?;
    let weights = dir.join("champion.weights.toml");
    crate::files::copy_atomic(&champion.weights, &weights).map_err(io_error(&champion.weights))?;
    if let Some(net) = &champion.net {
        let copy = dir.join("champion.net.bin");
        crate::files::copy_atomic(net, &copy).map_err(io_error(net))?;
    }
    let search = dir.join("champion.search.toml");
    match &champion.search {
        Some(path) => crate::files::copy_atomic(path, &search).map_err(io_error(path))?,
        None => {
            let text = SearchParams::default().to_toml_string_with_header(
                "# The compiled-in search constants (the loop's champion uses them).\n\n",
            );
            crate::files::write_atomic(&search, text.as_bytes()).map_err(io_error(&search))?;
        }
    }
    super::page::refresh(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generations_clock_adds_the_earlier_sessions_time() {
        let dir = std::env::temp_dir().join(format!("sparring-clock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut fresh = GenerationClock::resume(&dir).unwrap();
        assert!(fresh.total() < 60.0);
        fresh.save().unwrap();
        // A killed session left 1000 s; the next one counts on from there.
        std::fs::write(dir.join(GenerationClock::FILE), "1000.5\n").unwrap();
        let mut resumed = GenerationClock::resume(&dir).unwrap();
        assert!(resumed.total() >= 1000.5 && resumed.total() < 1060.0);
        resumed.save().unwrap();
        let saved: f64 = std::fs::read_to_string(dir.join(GenerationClock::FILE))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert!(saved >= 1000.5, "{saved}");
        // A damaged clock only loses the earlier time.
        std::fs::write(dir.join(GenerationClock::FILE), "garbage").unwrap();
        assert!(GenerationClock::resume(&dir).unwrap().total() < 60.0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
