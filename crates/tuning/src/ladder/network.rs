//! The loop on networks (`model = "network"`): each generation the champion (the hand-crafted
//! evaluation, or a network) writes training data as `sparring datagen` does (`[datagen]`), a
//! challenger network is trained as `sparring train` does (`[train]`) over the data of the last
//! `train.window` generations, and the gate and the anchor are the Texel loop's.

use super::config::SeedStream;
use super::config::{path_value, refuse_loop_keys, set, take_count, EngineFiles, LoopConfig};
use super::stages::{read_tune_outcome, Generation, SelfplayOutcome, TuneOutcome, TUNE_SUMMARY};
use super::{io_error, LoopError, LoopEvent, Stage};
use crate::datagen::{run_datagen, DatagenConfig, DatagenError, DatagenEvent, DatagenOptions};
use crate::toml_config::{ConfigError, Document};
use crate::train::{train, Event as TrainEvent, TrainConfig, TrainError, TrainOptions};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// How a generation's challenger starts training (`train.init`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrainInit {
    /// bullet's random start (`"scratch"`, the default).
    Scratch,
    /// The champion's weights (`"champion"`) when the champion is a network: its float weights
    /// when this loop trained it, else its quantised file dequantised (a `champion.net` from
    /// elsewhere). The random start while the champion is the hand-crafted evaluation.
    Champion,
}

/// A network loop's stages: the datagen and trainer tables, as their commands read them.
#[derive(Clone, Debug)]
pub struct NetworkStages {
    /// `train.window` (default 3): generation g trains on the data of generations
    /// g - window + 1 to g.
    pub window: u32,
    /// `train.init`.
    pub init: TrainInit,
    datagen: toml::Table,
    train: toml::Table,
}

/// The float weights a trained challenger leaves beside its network, for `train.init`.
const RAW_FILE: &str = "challenger.raw.bin";
/// A trained challenger's network in its generation's directory.
pub(super) const NET_FILE: &str = "challenger.net.bin";

impl NetworkStages {
    /// Reads `[datagen]` and `[train]` (both required), taking out the loop's own keys.
    pub(super) fn parse(
        doc: &Document<'_>,
        datagen: Option<toml::Table>,
        train: Option<toml::Table>,
    ) -> Result<NetworkStages, ConfigError> {
        let datagen = datagen.ok_or_else(|| {
            doc.missing(
                "datagen",
                "a [datagen] table: each generation's data run (the keys of configs/datagen.toml)",
            )
        })?;
        let mut train = train.ok_or_else(|| {
            doc.missing(
                "train",
                "a [train] table: the trainer's configuration (the keys of configs/train.toml)",
            )
        })?;
        refuse_loop_keys(doc, "datagen", &datagen)?;
        refuse_loop_keys(doc, "train", &train)?;
        let window = take_count(doc, &mut train, "train", "window", 3, 1_000)? as u32;
        let init = match train.remove("init") {
            None => TrainInit::Scratch,
            Some(toml::Value::String(s)) if s == "scratch" => TrainInit::Scratch,
            Some(toml::Value::String(s)) if s == "champion" => TrainInit::Champion,
            Some(_) => return Err(doc.invalid_value(
                "train.init",
                "\"scratch\" (bullet's random start) or \"champion\" (the champion net's weights)",
            )),
        };
        Ok(NetworkStages {
            window,
            init,
            datagen,
            train,
        })
    }
}

impl LoopConfig {
    fn stages(&self) -> &NetworkStages {
        self.network.as_ref().expect("a network loop")
    }

    /// Generation `generation`'s data run: the champion plays itself into `dir`. Its plain
    /// keys are the datagen file's `[datagen]` table, its tables that file's own.
    pub(crate) fn datagen_config(
        &self,
        generation: u32,
        champion: &EngineFiles,
        dir: &Path,
    ) -> Result<(DatagenConfig, String), ConfigError> {
        let mut file = toml::Table::new();
        let mut run = toml::Table::new();
        for (key, value) in self.stages().datagen.clone() {
            if value.is_table() {
                file.insert(key, value);
            } else {
                run.insert(key, value);
            }
        }
        let seed = self.stage_seed(generation, SeedStream::Selfplay);
        run.insert("seed".into(), toml::Value::Integer(seed));
        run.insert("out".into(), path_value(dir));
        file.insert("datagen".into(), toml::Value::Table(run));
        let mut builtin = toml::Table::new();
        builtin.insert("weights".into(), path_value(&champion.weights));
        if let Some(net) = &champion.net {
            builtin.insert("net".into(), path_value(net));
        }
        let hash_mb = toml::Value::Integer(self.champion.hash_mb as i64);
        builtin.insert("hash_mb".into(), hash_mb);
        set(
            &mut file,
            &["engine", "builtin"],
            toml::Value::Table(builtin),
        );
        let text = toml::to_string(&file).expect("a TOML table serialises");
        let source = format!("{} [datagen]", self.source);
        let overrides = crate::datagen::Overrides::default();
        let config = DatagenConfig::parse(&text, &source, &overrides).map_err(|e| match e {
            DatagenError::Config(e) => {
                // The datagen file's `datagen.x` is the loop's `datagen.x`.
                let key = e
                    .key()
                    .map(|k| k.strip_prefix("datagen.").unwrap_or(k).to_string());
                let e = match key {
                    Some(key) => e.with_key(key),
                    None => e,
                };
                self.relocate(e, "datagen")
            }
            // Only a missing `games` is left: the loop gives the rest.
            other => match Document::parse(&self.text, &self.source) {
                Ok(doc) => doc.other("datagen", other.to_string()),
                Err(e) => e,
            },
        })?;
        Ok((config, text))
    }

    /// A generation's training run over `files`, from `init`'s float weights (None: bullet's
    /// random start), written into `dir`.
    pub(crate) fn train_config(
        &self,
        files: &[PathBuf],
        init: Option<&Path>,
        dir: &Path,
    ) -> Result<(TrainConfig, String), ConfigError> {
        let mut table = self.stages().train.clone();
        let files = files.iter().map(|f| path_value(f)).collect();
        set(&mut table, &["data", "files"], toml::Value::Array(files));
        if let Some(init) = init {
            set(&mut table, &["model", "init"], path_value(init));
        }
        set(&mut table, &["output", "dir"], path_value(dir));
        let text = toml::to_string(&table).expect("a TOML table serialises");
        let source = format!("{} [train]", self.source);
        let config =
            TrainConfig::from_toml_str(&text, &source).map_err(|e| self.relocate(e, "train"))?;
        Ok((config, text))
    }

    /// The data files generation `number` trains on: the window's generations' data, with
    /// `champion.data` standing for generation 1's when given.
    pub(super) fn window_files(&self, run_dir: &Path, number: u32) -> Vec<PathBuf> {
        let first = number.saturating_sub(self.window - 1).max(1);
        let mut files = Vec::new();
        for g in first..=number {
            if g == 1 && !self.champion.data.is_empty() {
                files.extend(self.champion.data.iter().cloned());
            } else {
                let dir = run_dir.join(super::run::generation_dir(g)).join("datagen");
                files.push(dir.join(self.data_file_name()));
            }
        }
        files
    }

    fn data_file_name(&self) -> &'static str {
        let champion = self.start_champion();
        let (config, _) = (self.datagen_config(1, &champion, Path::new("d")))
            .expect("checked when the configuration was read");
        config.format.file_name()
    }
}

impl Generation<'_, '_> {
    /// The champion's data run (generation 1 with `champion.data` plays none).
    pub(super) fn datagen(&mut self, champion: &EngineFiles) -> Result<SelfplayOutcome, LoopError> {
        if self.number == 1 && !self.config.champion.data.is_empty() {
            self.started(Stage::Datagen);
            let files = self.config.champion.data.len();
            self.finished(
                Stage::Datagen,
                format!("not played: generation 1 trains on champion.data ({files} file(s))"),
            );
            return Ok(SelfplayOutcome {
                games: 0,
                positions: 0,
            });
        }
        let out = self.dir.join("datagen");
        let (config, text) = self.config.datagen_config(self.number, champion, &out)?;
        self.started(Stage::Datagen);
        self.write_stage_config(Stage::Datagen, &text)?;
        let options = DatagenOptions {
            resume: out.join(crate::datagen::STATE_FILE).exists(),
            ..DatagenOptions::default()
        };
        let (generation, total, started) = (self.number, config.games, Instant::now());
        let on_event = &mut *self.on_event;
        let mut forward = |event: &DatagenEvent| {
            if let DatagenEvent::GameWritten { done, .. } = event {
                on_event(LoopEvent::Game {
                    generation,
                    stage: Stage::Datagen,
                    done: *done,
                    total,
                    elapsed: started.elapsed(),
                });
            }
        };
        let summary =
            run_datagen(&config, &options, &mut forward).map_err(|source| LoopError::Datagen {
                generation,
                source: Box::new(source),
            })?;
        self.finished(
            Stage::Datagen,
            format!(
                "{} games ({} dropped), {} positions",
                summary.games, summary.dropped, summary.positions
            ),
        );
        Ok(SelfplayOutcome {
            games: summary.games,
            positions: summary.positions,
        })
    }

    /// Trains the challenger network over `files`; a killed training run resumes from its
    /// checkpoint with the bytes an uninterrupted one gives.
    pub(super) fn train(
        &mut self,
        files: &[PathBuf],
        champion: &EngineFiles,
    ) -> Result<TuneOutcome, LoopError> {
        let out = self.dir.join("train");
        let summary_path = out.join(TUNE_SUMMARY);
        if let Some(outcome) = read_tune_outcome(&summary_path)? {
            return Ok(outcome);
        }
        self.started(Stage::Train);
        let init = match self.config.stages().init {
            TrainInit::Champion => champion_init_weights(champion),
            TrainInit::Scratch => None,
        };
        let (config, text) = self.config.train_config(files, init.as_deref(), &out)?;
        self.write_stage_config(Stage::Train, &text)?;
        let options = TrainOptions {
            resume: out.join("checkpoint.bin").exists(),
            stop_after: None,
        };
        let generation = self.number;
        let on_event = &mut *self.on_event;
        let mut positions = 0;
        let mut forward = |event: &TrainEvent| match event {
            TrainEvent::Scanned {
                training,
                validation,
            } => positions = training + *validation as u64,
            TrainEvent::Superbatch(row) => on_event(LoopEvent::Epoch {
                generation,
                epoch: row.superbatch,
                train_mse: row.train_loss,
            }),
            TrainEvent::Resumed(_) => {}
        };
        let outcome = match train(&config, &options, &mut forward) {
            Ok(trained) => {
                let last = trained.history.last();
                TuneOutcome {
                    k: SIGMOID_SCALE,
                    train_mse: last.map_or(0.0, |r| r.train_loss),
                    validation_mse: last.and_then(|r| r.validation_loss),
                    positions,
                    unusable: None,
                }
            }
            // Weights that overflow the quantised file are a rejected generation, as a
            // Texel tune the engine refuses is.
            Err(error @ TrainError::Quantise { .. }) => TuneOutcome {
                k: SIGMOID_SCALE,
                train_mse: 0.0,
                validation_mse: None,
                positions,
                unusable: Some(error.to_string()),
            },
            Err(source) => return Err(LoopError::Train { generation, source }),
        };
        let validation = (outcome.validation_mse).map_or("none".to_string(), |v| format!("{v:.6}"));
        let fitted = format!(
            "{} positions, loss {:.6} (validation {validation})",
            outcome.positions, outcome.train_mse
        );
        self.save_fit(Stage::Train, &summary_path, outcome, fitted)
    }

    /// The challenger's files: the trained network (and its float weights) copied into the
    /// generation; the champion's weights and search constants.
    pub(crate) fn net_challenger(&self, champion: &EngineFiles) -> Result<EngineFiles, LoopError> {
        let trained = self.dir.join("train");
        let net = self.dir.join(NET_FILE);
        let quantised = trained.join("quantised.bin");
        crate::files::copy_atomic(&quantised, &net).map_err(io_error(&quantised))?;
        let raw = trained.join("raw.bin");
        let raw_copy = self.dir.join(RAW_FILE);
        crate::files::copy_atomic(&raw, &raw_copy).map_err(io_error(&raw))?;
        Ok(EngineFiles {
            weights: champion.weights.clone(),
            search: champion.search.clone(),
            net: Some(net),
        })
    }
}

/// The sigmoid's scale of the trainer's target, `sigmoid(score / 400)`: the `k` column of a
/// network generation's row.
const SIGMOID_SCALE: f64 = 400.0;

/// Where a challenger fine-tuned from the champion starts: the float weights beside a network
/// the loop trained, else the champion's quantised file itself (the trainer dequantises it:
/// a starting champion given as a bullet net has no float weights). None for an HCE champion.
fn champion_init_weights(champion: &EngineFiles) -> Option<PathBuf> {
    let net = champion.net.as_ref()?;
    let raw = net.with_file_name(RAW_FILE);
    let trained_here = net.file_name() == Some(std::ffi::OsStr::new(NET_FILE)) && raw.exists();
    Some(if trained_here { raw } else { net.clone() })
}
