//! The stages of one generation. Each writes the configuration it runs beside its output (so it
//! can be rerun by hand: `sparring match gen-003/gate.toml`), and each picks up where a killed
//! run left it.

use super::config::{EngineFiles, LoopConfig};
use super::staged::Halt;
use super::{io_error, LoopError, LoopEvent, Stage};
use crate::arena::Wave;
use crate::arena::{
    openings_of, run_tournament, Event, Fingerprint, MatchConfig, OpeningSource, PairingStats,
    RunOptions,
};
use crate::record::TrainingPosition;
use crate::spsa::games::with_values;
use crate::spsa::run::{run_spsa, RunOptions as SpsaRunOptions, SpsaEvent};
use crate::spsa::{tuned_files, BuiltinObjective, SpsaEngine, Target};
use crate::stats::{Pentanomial, SprtDecision};
use crate::texel::{TuneError, TuneSummary};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The front end's callback.
pub(super) type OnEvent<'a> = dyn FnMut(LoopEvent<'_>) + Send + 'a;

/// One generation being played: its number, its directory and where progress goes.
pub(super) struct Generation<'c, 'e> {
    pub config: &'c LoopConfig,
    pub number: u32,
    pub dir: PathBuf,
    pub on_event: &'e mut OnEvent<'e>,
    /// Match stages are played elsewhere as shards and merged here (`--staged`).
    pub staged: bool,
}

/// What self-play gave.
pub(super) struct SelfplayOutcome {
    pub games: u64,
    pub positions: u64,
}

/// What the tune gave; kept as `tune/summary.toml`, whose presence marks the tune done.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct TuneOutcome {
    pub k: f64,
    pub train_mse: f64,
    pub validation_mse: Option<f64>,
    pub positions: u64,
    /// Why the tuned weights cannot be played (the tuner's message), if so.
    pub unusable: Option<String>,
}

/// The gate's verdict.
pub(super) struct GateOutcome {
    pub games: u64,
    pub decision: SprtDecision,
    pub llr: f64,
    pub elo: f64,
    pub elo_error: f64,
}

/// The champion against the panel.
pub(super) struct AnchorOutcome {
    pub elo: f64,
    pub error: f64,
    pub games: u64,
}

/// The tuner's data of a generation: its positions in game order.
pub(super) const DATA_FILE: &str = "data.epd";
pub(super) const TUNE_SUMMARY: &str = "summary.toml";

impl Generation<'_, '_> {
    pub(super) fn started(&mut self, stage: Stage) {
        (self.on_event)(LoopEvent::StageStarted {
            generation: self.number,
            stage,
        });
    }

    pub(super) fn finished(&mut self, stage: Stage, outcome: String) {
        (self.on_event)(LoopEvent::StageFinished {
            generation: self.number,
            stage,
            outcome,
        });
    }

    /// Writes a stage's configuration beside its output, with a header saying what it is.
    pub(super) fn write_stage_config(&self, stage: Stage, text: &str) -> Result<(), LoopError> {
        let path = self.dir.join(format!("{stage}.toml"));
        let header = format!(
            "# Generation {} of `sparring loop {}`: the {stage} stage's configuration, as the loop made it.\n\n",
            self.number, self.config.source
        );
        crate::files::write_atomic(&path, format!("{header}{text}").as_bytes())
            .map_err(io_error(&path))
    }

    /// Plays a match stage (or one wave of it) into its directory, resuming what is there.
    pub(super) fn play(
        &mut self,
        stage: Stage,
        config: &MatchConfig,
        wave: Option<Wave>,
    ) -> Result<Vec<PairingStats>, LoopError> {
        let (openings, rejected) =
            openings_of(config).map_err(|source| LoopError::Openings { stage, source })?;
        if !rejected.is_empty() {
            (self.on_event)(LoopEvent::SkippedOpenings {
                stage,
                count: rejected.len(),
            });
        }
        let openings: Arc<dyn OpeningSource> = openings;
        let options = RunOptions {
            resume: config.output.dir.exists(),
            shard: None,
            wave,
        };
        let generation = self.number;
        let on_event = &mut *self.on_event;
        let mut forward = |event: Event<'_>| {
            if let Event::GameFinished {
                done,
                total,
                elapsed,
                ..
            } = event
            {
                on_event(LoopEvent::Game {
                    generation,
                    stage,
                    done,
                    total,
                    elapsed,
                });
            }
        };
        run_tournament(config, openings, &options, &mut forward)
            .map(|summary| summary.pairings)
            .map_err(|source| LoopError::Match {
                generation,
                stage,
                source,
            })
    }

    /// Self-play of the champion; its positions end up in `data.epd` in game order.
    pub(super) fn selfplay(&mut self, champion: &EngineFiles) -> Result<SelfplayOutcome, Halt> {
        let out = self.dir.join("selfplay");
        let (config, text) = self.config.selfplay_config(self.number, champion, &out)?;
        let games = config.total_games();
        let data = self.dir.join(DATA_FILE);
        if !data.exists() {
            self.started(Stage::Selfplay);
            self.write_stage_config(Stage::Selfplay, &text)?;
            self.play_stage(Stage::Selfplay, &config)?;
            in_game_order(&out.join("positions.epd"), &data)?;
        }
        let positions = count_lines(&data)?;
        self.finished(
            Stage::Selfplay,
            format!("{games} games, {positions} positions"),
        );
        Ok(SelfplayOutcome { games, positions })
    }

    /// Texel-tunes the challenger from the champion's weights over `files`.
    pub(super) fn tune(
        &mut self,
        files: &[PathBuf],
        champion: &EngineFiles,
    ) -> Result<TuneOutcome, LoopError> {
        let out = self.dir.join("tune");
        let summary_path = out.join(TUNE_SUMMARY);
        if let Some(outcome) = read_tune_outcome(&summary_path)? {
            return Ok(outcome);
        }
        self.started(Stage::Tune);
        // A killed tune starts over: it is deterministic, and it keeps no state to resume.
        if out.exists() {
            std::fs::remove_dir_all(&out).map_err(io_error(&out))?;
        }
        let (config, text) = self.config.tune_config(files, &champion.weights, &out)?;
        self.write_stage_config(Stage::Tune, &text)?;
        let generation = self.number;
        let on_event = &mut *self.on_event;
        let mut forward = |event: crate::texel::Event<'_>| {
            if let crate::texel::Event::Epoch(stats) = event {
                on_event(LoopEvent::Epoch {
                    generation,
                    epoch: stats.epoch,
                    train_mse: stats.train_mse,
                });
            }
        };
        let outcome = match crate::texel::run(&config, &mut forward) {
            Ok(summary) => tune_outcome(&summary),
            // A challenger the engine would refuse is a rejected generation, not a failed loop.
            Err(error @ TuneError::UnusableWeights { .. }) => {
                let why = error.to_string();
                let TuneError::UnusableWeights { summary, .. } = error else {
                    unreachable!("matched as UnusableWeights")
                };
                TuneOutcome {
                    unusable: Some(why),
                    ..tune_outcome(&summary)
                }
            }
            Err(source) => return Err(LoopError::Tune { generation, source }),
        };
        let fitted = format!(
            "{} positions, K {:.4}, train MSE {:.6}",
            outcome.positions, outcome.k, outcome.train_mse
        );
        self.save_fit(Stage::Tune, &summary_path, outcome, fitted)
    }

    /// Keeps a fit's outcome as its summary file (which marks the stage done) and reports the
    /// stage finished: `fitted`, or why no challenger came of it.
    pub(super) fn save_fit(
        &mut self,
        stage: Stage,
        summary_path: &Path,
        outcome: TuneOutcome,
        fitted: String,
    ) -> Result<TuneOutcome, LoopError> {
        let text = toml::to_string(&outcome).expect("a summary serialises");
        crate::files::write_atomic(summary_path, text.as_bytes())
            .map_err(io_error(summary_path))?;
        let said = match &outcome.unusable {
            Some(why) => format!("no challenger: {why}"),
            None => fitted,
        };
        self.finished(stage, said);
        Ok(outcome)
    }

    /// The challenger's files, copied into the generation (the tuned weights, the champion's
    /// search constants).
    pub(super) fn challenger(&self, champion: &EngineFiles) -> Result<EngineFiles, LoopError> {
        let weights = self.dir.join("challenger.weights.toml");
        let tuned = self.dir.join("tune").join("weights.toml");
        crate::files::copy_atomic(&tuned, &weights).map_err(io_error(&tuned))?;
        let search = match &champion.search {
            Some(path) => {
                let copy = self.dir.join("challenger.search.toml");
                crate::files::copy_atomic(path, &copy).map_err(io_error(path))?;
                Some(copy)
            }
            None => None,
        };
        Ok(EngineFiles {
            weights,
            search,
            net: champion.net.clone(),
        })
    }

    /// SPSA over the challenger's search constants (and any weights `[[spsa.param]]` names),
    /// from the challenger's files; the tuned values become the challenger's files.
    pub(super) fn spsa(&mut self, challenger: &EngineFiles) -> Result<EngineFiles, LoopError> {
        let out = self.dir.join("spsa");
        let (config, text) = self.config.spsa_config(self.number, challenger, &out)?;
        self.started(Stage::Spsa);
        self.write_stage_config(Stage::Spsa, &text)?;
        let generation = self.number;
        let failed = |source| LoopError::Spsa { generation, source };
        let objective = BuiltinObjective::new(&config).map_err(failed)?;
        let options = SpsaRunOptions {
            concurrency: config.concurrency,
            resume: out.exists(),
            stop: None,
            description: config.description(),
            barrier_timeout: None,
        };
        let tuned = |theta: &[f64]| tuned_files(&config, theta);
        let games_per_iteration = config.plan.pairs_per_iteration * 2;
        let total = config.plan.schedule.iterations * games_per_iteration;
        let started = std::time::Instant::now();
        let on_event = &mut *self.on_event;
        let mut done = 0;
        let mut forward = |event: SpsaEvent<'_>| match event {
            SpsaEvent::Started {
                done: iterations, ..
            } => done = iterations * games_per_iteration,
            SpsaEvent::GameFinished { .. } => {
                done += 2;
                on_event(LoopEvent::Game {
                    generation,
                    stage: Stage::Spsa,
                    done,
                    total,
                    elapsed: started.elapsed(),
                });
            }
            _ => {}
        };
        let summary = run_spsa(
            &config.plan,
            &objective,
            &out,
            &options,
            &tuned,
            &mut forward,
        )
        .map_err(failed)?;
        let SpsaEngine::Builtin { base, targets, .. } = &config.engine else {
            unreachable!("the loop's SPSA plays the built-in engine")
        };
        let tuned = with_values(base, targets, &summary.theta);
        let header = format!(
            "# Generation {generation} of `sparring loop {}`: SPSA-tuned ({} iterations).

",
            self.config.source, summary.done
        );
        let search = self.dir.join("challenger.search.toml");
        let text = tuned.search.to_toml_string_with_header(&header);
        crate::files::write_atomic(&search, text.as_bytes()).map_err(io_error(&search))?;
        let weights = if targets.iter().any(|t| matches!(t, Target::Weight { .. })) {
            let path = self.dir.join("challenger.weights.toml");
            let text = tuned.eval.to_toml_string_with_header(&header);
            crate::files::write_atomic(&path, text.as_bytes()).map_err(io_error(&path))?;
            path
        } else {
            challenger.weights.clone()
        };
        self.finished(
            Stage::Spsa,
            format!(
                "{} iterations, {} parameters",
                summary.done,
                config.plan.params.len()
            ),
        );
        Ok(EngineFiles {
            weights,
            search: Some(search),
            net: challenger.net.clone(),
        })
    }

    /// Reports a gate not played: the challenger's values are the champion's, so an SPRT could
    /// only measure noise (and a draw-heavy one could run for ever).
    pub(crate) fn skip_gate(&mut self) {
        self.started(Stage::Gate);
        self.finished(
            Stage::Gate,
            "not played: the challenger's weights and search constants are the champion's".into(),
        );
    }

    /// Challenger against champion, wave by wave until the SPRT decides or the games run out.
    pub(super) fn gate(
        &mut self,
        challenger: &EngineFiles,
        champion: &EngineFiles,
    ) -> Result<GateOutcome, Halt> {
        let out = self.dir.join("gate");
        let (config, text) = self
            .config
            .gate_config(self.number, challenger, champion, &out)?;
        self.started(Stage::Gate);
        self.write_stage_config(Stage::Gate, &text)?;
        let sprt = config.sprt.expect("the loop's gate has an SPRT");
        let pairs = self.config.wave_pairs;
        let waves = config.total_games().div_ceil(2).div_ceil(pairs);
        let mut dirs = Vec::new();
        for index in 0..waves {
            let wave = Some(Wave { index, pairs });
            if self.staged {
                let shards = self.shard_dirs(Stage::Gate, wave)?;
                if shards.is_empty() {
                    return Err(self.pending(Stage::Gate, wave));
                }
                dirs.extend(shards);
            } else {
                let mut wave_config = config.clone();
                let dir = self.dir.join("gate-waves").join(format!("wave-{index:03}"));
                wave_config.output.dir = dir.clone();
                self.play(Stage::Gate, &wave_config, wave)?;
                dirs.push(dir);
            }
            let report = self.merge(Stage::Gate, &out, &dirs)?;
            let decided = report.stopped_after_wave.is_some();
            if !decided && report.next_wave == Some(index) {
                // Staged: the wave's shards are not all there yet.
                return Err(self.pending(Stage::Gate, wave));
            }
            if decided || index + 1 == waves {
                let ptnml = report
                    .pairings
                    .first()
                    .map_or_else(Pentanomial::default, |p| p.ptnml);
                let llr = sprt.llr_ptnml(ptnml).unwrap_or(0.0);
                let decision = if decided {
                    sprt.decision(llr)
                } else {
                    SprtDecision::Continue
                };
                let estimate = ptnml.estimate();
                let outcome = GateOutcome {
                    games: ptnml.games(),
                    decision,
                    llr,
                    elo: estimate.as_ref().map_or(0.0, |e| e.elo),
                    elo_error: estimate.as_ref().map_or(f64::INFINITY, |e| e.elo_error),
                };
                self.finished(
                    Stage::Gate,
                    format!(
                        "{} after {} games: {:+.1} +/- {:.1} Elo, LLR {:.2}",
                        verdict(decision),
                        outcome.games,
                        outcome.elo,
                        outcome.elo_error,
                        llr
                    ),
                );
                return Ok(outcome);
            }
        }
        unreachable!("the last wave returns")
    }

    /// The champion against the anchor panel.
    pub(super) fn anchor(&mut self, champion: &EngineFiles) -> Result<AnchorOutcome, Halt> {
        let out = self.dir.join("anchor");
        let (config, text) = self.config.anchor_config(self.number, champion, &out)?;
        self.started(Stage::Anchor);
        if !self.staged {
            set_aside_changed_anchor(&config)?;
        }
        self.write_stage_config(Stage::Anchor, &text)?;
        let pairings = self.play_stage(Stage::Anchor, &config)?;
        let total = pairings.iter().fold(Pentanomial::default(), |sum, p| {
            sum.checked_add(p.ptnml).unwrap_or(sum)
        });
        let estimate = total.estimate();
        let ratings = &self.config.anchor_ratings;
        let panel = if ratings.is_empty() {
            0.0
        } else {
            ratings.iter().sum::<f64>() / ratings.len() as f64
        };
        let outcome = AnchorOutcome {
            elo: estimate.as_ref().map_or(0.0, |e| e.elo) + panel,
            error: estimate.as_ref().map_or(f64::INFINITY, |e| e.elo_error),
            games: total.games(),
        };
        self.finished(
            Stage::Anchor,
            format!(
                "{:.0} +/- {:.0} Elo over {} games",
                outcome.elo, outcome.error, outcome.games
            ),
        );
        Ok(outcome)
    }
}

/// The anchor panel may change on resume (it decides no champion): an anchor stage cut off
/// with another panel, or other anchor settings, starts over. Its directory is kept beside
/// as `anchor-replaced-N`, not deleted.
fn set_aside_changed_anchor(config: &MatchConfig) -> Result<(), LoopError> {
    let out = &config.output.dir;
    let Ok(Some(before)) = Fingerprint::read(out) else {
        // None played yet, or a fingerprint the runner itself will report on.
        return Ok(());
    };
    if before.changes(&Fingerprint::of(config)).is_empty() {
        return Ok(());
    }
    let parent = out.parent().unwrap_or(Path::new("."));
    let aside = (1..)
        .map(|n| parent.join(format!("{}-replaced-{n}", Stage::Anchor)))
        .find(|p| !p.exists())
        .expect("a free name");
    std::fs::rename(out, &aside).map_err(io_error(out))
}

/// `H1`, `H0` or `undecided`, as generations.csv says it.
pub(super) fn verdict(decision: SprtDecision) -> &'static str {
    match decision {
        SprtDecision::AcceptH1 => "H1",
        SprtDecision::AcceptH0 => "H0",
        SprtDecision::Continue => "undecided",
    }
}

fn tune_outcome(summary: &TuneSummary) -> TuneOutcome {
    TuneOutcome {
        k: summary.k,
        train_mse: summary.rounded_train_mse,
        validation_mse: summary.rounded_validation_mse,
        positions: (summary.training_positions + summary.validation_positions) as u64,
        unusable: None,
    }
}

pub(super) fn read_tune_outcome(path: &Path) -> Result<Option<TuneOutcome>, LoopError> {
    match std::fs::read_to_string(path) {
        Ok(text) => toml::from_str(&text)
            .map(Some)
            .map_err(|e| LoopError::Damaged {
                path: path.to_path_buf(),
                message: format!("not the tune summary the loop writes: {}", e.message()),
            }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_error(path)(e)),
    }
}

/// Writes the runner's positions file in game order (pair, game, ply): concurrent games finish
/// in any order, and the tune's split and sums must not depend on it.
fn in_game_order(positions: &Path, data: &Path) -> Result<(), LoopError> {
    let text = std::fs::read_to_string(positions).map_err(io_error(positions))?;
    let mut lines: Vec<((u64, u64, u32), &str)> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let id = TrainingPosition::parse(line)
                .ok()
                .flatten()
                .and_then(|p| p.id)
                .map_or((u64::MAX, u64::MAX, u32::MAX), |id| {
                    (id.pair, id.game, id.ply)
                });
            (id, line)
        })
        .collect();
    lines.sort_by_key(|(id, _)| *id);
    let mut out = String::with_capacity(text.len());
    for (_, line) in lines {
        out.push_str(line);
        out.push('\n');
    }
    crate::files::write_atomic(data, out.as_bytes()).map_err(io_error(data))
}

fn count_lines(path: &Path) -> Result<u64, LoopError> {
    let text = std::fs::read_to_string(path).map_err(io_error(path))?;
    Ok(text.lines().filter(|l| !l.trim().is_empty()).count() as u64)
}
