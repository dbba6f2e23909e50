//! The loop's TOML configuration. Each stage is a table written in the format of the command
//! it runs (`[selfplay]` and `[gate]` are match configurations, `[tune]` a tuner
//! configuration, `[anchor]` a gauntlet), without the keys the loop sets itself (engines,
//! seeds, output directories, data files). Every generation's stage configuration is made from
//! its table and parsed by that command's own reader; an error is reported at the loop file's
//! line and key (`loop.toml:14:9: `selfplay.time_control.nodes` is ...`).

use super::network::NetworkStages;
use crate::arena::MatchConfig;
use crate::arena::{file_hash, settings_hash};
use crate::rng::Rng;
use crate::spsa::SpsaConfig;
use crate::texel::TuneConfig;
use crate::toml_config::{read_text, ConfigError, Document};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

mod checks;
use checks::*;
pub(super) use checks::{path_value, refuse_loop_keys, set, take_count};

/// The starting champion.
#[derive(Clone, Debug, PartialEq)]
pub struct Champion {
    /// `champion.weights`: the evaluation weights file.
    pub weights: PathBuf,
    /// `champion.search`: a search constants file; None: the compiled-in constants.
    pub search: Option<PathBuf>,
    /// `champion.hash_mb` (default 16): the table of every built-in engine the loop plays.
    pub hash_mb: usize,
    /// `champion.net` (network loops): the starting champion's network; None: it plays the
    /// hand-crafted evaluation of `weights`.
    pub net: Option<PathBuf>,
    /// `champion.data` (network loops): training data the starting champion already wrote (a
    /// `sparring datagen` run, say); generation 1 trains on it instead of generating its own.
    pub data: Vec<PathBuf>,
}

/// An engine of the loop's games: weights and search constants files.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineFiles {
    /// The evaluation weights.
    pub weights: PathBuf,
    /// The search constants; None: the compiled-in ones.
    pub search: Option<PathBuf>,
    /// The network it evaluates with instead of the weights; None: the weights.
    pub net: Option<PathBuf>,
}

/// A whole loop configuration.
#[derive(Clone, Debug)]
pub struct LoopConfig {
    /// Where the configuration came from (the file name in errors).
    pub source: String,
    /// `seed` (default 1): every stage's seed is derived from it and the generation.
    pub seed: u64,
    /// `generations` (default 1): how many generations a run plays unless `--generations`
    /// says otherwise.
    pub generations: u32,
    /// `[champion]`.
    pub champion: Champion,
    /// `output.dir` (default `results/loop`).
    pub output_dir: PathBuf,
    /// `tune.window` (default 3): the tune of generation g reads the data of generations
    /// g - window + 1 to g.
    pub window: u32,
    /// `gate.wave_pairs` (default 20): the gate's SPRT is read after every this many pairs, so
    /// its verdict does not depend on the order concurrent games finish in.
    pub wave_pairs: u64,
    /// `anchor.every` (0 without an `[anchor]` table): the anchor gauntlet runs after every
    /// this many generations.
    pub(crate) anchor_every: u32,
    /// `anchor.engine[i].rating`: the panel's ratings (0 when not given), in engine order.
    pub(crate) anchor_ratings: Vec<f64>,
    /// `spsa.every` (0 without an `[spsa]` table): the challenger's search constants are
    /// SPSA-tuned in every generation divisible by this.
    pub(crate) spsa_every: u32,
    /// `model = "network"`: the stages that replace self-play and tune; None: the Texel loop.
    pub network: Option<NetworkStages>,
    pub(super) text: String,
    selfplay: toml::Table,
    tune: toml::Table,
    spsa: Option<toml::Table>,
    gate: toml::Table,
    anchor: Option<toml::Table>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LoopFile {
    model: Option<String>,
    datagen: Option<toml::Table>,
    train: Option<toml::Table>,
    seed: Option<i64>,
    generations: Option<i64>,
    champion: Option<ChampionFile>,
    output: Option<OutputFile>,
    selfplay: Option<toml::Table>,
    tune: Option<toml::Table>,
    spsa: Option<toml::Table>,
    gate: Option<toml::Table>,
    anchor: Option<toml::Table>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChampionFile {
    weights: Option<String>,
    search: Option<String>,
    hash_mb: Option<usize>,
    net: Option<String>,
    data: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OutputFile {
    dir: Option<String>,
}

/// Keys of each stage table that the loop sets itself.
const SET_BY_LOOP: &[(&str, &[&str])] = &[
    (
        "selfplay",
        &[
            "tournament.seed",
            "tournament.kind",
            "output.dir",
            "output.positions",
            "engine",
            "each",
            "sprt",
        ],
    ),
    (
        "gate",
        &[
            "tournament.seed",
            "tournament.kind",
            "output.dir",
            "output.positions",
            "engine",
            "each",
        ],
    ),
    (
        "tune",
        &["data.files", "data.seed", "model.weights", "output.dir"],
    ),
    ("spsa", &["seed", "engine", "output.dir"]),
    ("datagen", &["seed", "out", "engine"]),
    ("train", &["data.files", "output.dir", "model.init"]),
    (
        "anchor",
        &["tournament.seed", "tournament.kind", "output.dir", "sprt"],
    ),
];

/// Keys a stage's own command reads but the loop does not support: refused rather than
/// ignored. `[tune.engine]` is `sparring tune`'s external engine, whose evaluation it tunes
/// through the trace protocol; the loop tunes the built-in evaluation its games are played with
/// (the stage table is checked by the tuner's own reader, which knows the key, so it needs
/// naming here).
const UNSUPPORTED: &[(&str, &str, &str)] = &[(
    "tune",
    "engine",
    "is not supported by the loop: the loop tunes and plays sparring's built-in evaluation \
     (from [champion]); an external engine's evaluation is tuned with `sparring tune` \
     (docs/tune-any-engine.md); remove the table",
)];

/// The stages whose seeds are derived (the stream of each).
#[derive(Clone, Copy)]
pub(super) enum SeedStream {
    Selfplay = 1,
    Tune = 2,
    Gate = 3,
    Anchor = 4,
    Spsa = 5,
}

impl LoopConfig {
    /// Reads and checks a configuration file.
    pub fn load(path: &Path) -> Result<LoopConfig, ConfigError> {
        let text = read_text(path)?;
        LoopConfig::parse(&text, &path.display().to_string())
    }

    /// Parses and checks a configuration (`file` names it in errors): besides its own keys,
    /// generation 1's stage configurations are made and read, so a bad stage table is reported
    /// before anything runs.
    pub fn parse(text: &str, file: &str) -> Result<LoopConfig, ConfigError> {
        let doc = Document::parse(text, file)?;
        let mut f: LoopFile = doc.deserialize()?;
        let seed = doc.in_range("seed", f.seed.unwrap_or(1), 0, None)? as u64;
        let generations =
            doc.in_range("generations", f.generations.unwrap_or(1), 1, Some(100_000))?;
        let (champion, network) = champion_and_model(&doc, &mut f)?;
        let output_dir = output_dir_of(f.output.take());
        let (selfplay, mut tune) = texel_stage_tables(&doc, &mut f, network.is_some())?;
        let mut gate = f
            .gate
            .take()
            .ok_or_else(|| doc.missing("gate", "a [gate] match table with an [gate.sprt]"))?;
        let (mut anchor, mut spsa) = (f.anchor.take(), f.spsa.take());
        refuse_stage_keys(
            &doc,
            &selfplay,
            &tune,
            &gate,
            anchor.as_ref(),
            spsa.as_ref(),
        )?;
        let counts = take_loop_counts(
            &doc,
            network.as_ref(),
            &mut tune,
            &mut gate,
            anchor.as_mut(),
            spsa.as_mut(),
        )?;
        if !gate.contains_key("sprt") {
            return Err(doc.missing(
                "gate.sprt",
                "a [gate.sprt] table: the gate promotes a challenger when its SPRT accepts H1",
            ));
        }
        let config = LoopConfig {
            source: file.to_string(),
            seed,
            generations: generations as u32,
            champion,
            output_dir,
            window: counts.window as u32,
            wave_pairs: counts.wave_pairs,
            anchor_every: counts.anchor_every as u32,
            anchor_ratings: counts.anchor_ratings,
            spsa_every: counts.spsa_every as u32,
            network,
            text: text.to_string(),
            selfplay,
            tune,
            spsa,
            gate,
            anchor,
        };
        config.check_stages()?;
        Ok(config)
    }

    /// Makes and reads generation 1's stage configurations with placeholder paths.
    fn check_stages(&self) -> Result<(), ConfigError> {
        let dir = Path::new("gen-001");
        let champion = self.start_champion();
        if self.network.is_some() {
            self.datagen_config(1, &champion, &dir.join("datagen"))?;
            self.train_config(&[dir.join("data.viriformat")], None, &dir.join("train"))?;
        } else {
            self.selfplay_config(1, &champion, &dir.join("selfplay"))?;
            self.tune_config(
                &[dir.join("data.epd")],
                &champion.weights,
                &dir.join("tune"),
            )?;
        }
        self.gate_config(1, &champion, &champion, &dir.join("gate"))?;
        if self.anchor.is_some() {
            self.anchor_config(1, &champion, &dir.join("anchor"))?;
        }
        if self.spsa.is_some() {
            self.spsa_config(1, &champion, &dir.join("spsa"))?;
        }
        Ok(())
    }

    /// The champion files the configuration starts from.
    pub(crate) fn start_champion(&self) -> EngineFiles {
        EngineFiles {
            weights: self.champion.weights.clone(),
            search: self.champion.search.clone(),
            net: self.champion.net.clone(),
        }
    }

    /// Generation `generation`'s self-play: the champion against itself, recording positions
    /// into `dir`. Returns the configuration and its text (written beside the run).
    pub(crate) fn selfplay_config(
        &self,
        generation: u32,
        champion: &EngineFiles,
        dir: &Path,
    ) -> Result<(MatchConfig, String), ConfigError> {
        let mut table = self.selfplay.clone();
        self.set_match_keys(&mut table, generation, SeedStream::Selfplay, dir);
        set(
            &mut table,
            &["output", "positions"],
            toml::Value::Boolean(true),
        );
        let engines = vec![
            self.engine_table("champion", champion),
            self.engine_table("champion-2", champion),
        ];
        table.insert("engine".into(), toml::Value::Array(engines));
        self.match_config("selfplay", table)
    }

    /// Generation `generation`'s gate: the challenger (first) against the champion, with the
    /// `[gate.sprt]` test, written into `dir` (played in waves of `wave_pairs` pairs).
    pub(crate) fn gate_config(
        &self,
        generation: u32,
        challenger: &EngineFiles,
        champion: &EngineFiles,
        dir: &Path,
    ) -> Result<(MatchConfig, String), ConfigError> {
        let mut table = self.gate.clone();
        self.set_match_keys(&mut table, generation, SeedStream::Gate, dir);
        let engines = vec![
            self.engine_table("challenger", challenger),
            self.engine_table("champion", champion),
        ];
        table.insert("engine".into(), toml::Value::Array(engines));
        self.match_config("gate", table)
    }

    /// The anchor gauntlet after generation `generation`: the champion against the panel.
    pub(crate) fn anchor_config(
        &self,
        generation: u32,
        champion: &EngineFiles,
        dir: &Path,
    ) -> Result<(MatchConfig, String), ConfigError> {
        let mut table = self.anchor.clone().expect("an [anchor] table");
        self.set_match_keys(&mut table, generation, SeedStream::Anchor, dir);
        let mut engines = vec![self.engine_table("champion", champion)];
        if let Some(toml::Value::Array(panel)) = table.remove("engine") {
            engines.extend(panel);
        }
        table.insert("engine".into(), toml::Value::Array(engines));
        // The panel's keys are `anchor.engine[i]` in the file and `engine[i + 1]` here.
        let text = toml::to_string(&table).expect("a TOML table serialises");
        let source = format!("{} [anchor]", self.source);
        let config = MatchConfig::parse(&text, &source).map_err(|e| {
            let shifted = match e.key().map(shift_engine_index) {
                Some(Some(key)) => e.with_key(key),
                _ => e,
            };
            self.relocate(shifted, "anchor")
        })?;
        Ok((config, text))
    }

    /// Generation `generation`'s SPSA run over the challenger's search constants (`[spsa]`:
    /// its plain keys are the SPSA file's `[spsa]` table, its tables and `[[spsa.param]]` that
    /// file's own), starting from `challenger`, written into `dir`.
    pub(crate) fn spsa_config(
        &self,
        generation: u32,
        challenger: &EngineFiles,
        dir: &Path,
    ) -> Result<(SpsaConfig, String), ConfigError> {
        let loop_table = self.spsa.clone().expect("an [spsa] table");
        let mut table = toml::Table::new();
        let mut run = toml::Table::new();
        for (key, value) in loop_table {
            let is_table = value.is_table()
                || value
                    .as_array()
                    .is_some_and(|a| a.iter().any(toml::Value::is_table));
            if is_table {
                table.insert(key, value);
            } else {
                run.insert(key, value);
            }
        }
        let seed = self.stage_seed(generation, SeedStream::Spsa);
        run.insert("seed".into(), toml::Value::Integer(seed));
        table.insert("spsa".into(), toml::Value::Table(run));
        table.insert("engine".into(), self.builtin_table(challenger));
        set(&mut table, &["output", "dir"], path_value(dir));
        let text = toml::to_string(&table).expect("a TOML table serialises");
        let source = format!("{} [spsa]", self.source);
        let config = SpsaConfig::parse(&text, &source).map_err(|e| {
            // The SPSA file's `spsa.x` is the loop's `spsa.x`; its other keys sit under `spsa.`.
            let key = e
                .key()
                .map(|k| k.strip_prefix("spsa.").unwrap_or(k).to_string());
            let e = match key {
                Some(key) => e.with_key(key),
                None => e,
            };
            self.relocate(e, "spsa")
        })?;
        Ok((config, text))
    }

    /// A generation's tune: from the champion's weights over the data `files`, written into
    /// `dir` (every generation's the same but for these).
    pub fn tune_config(
        &self,
        files: &[PathBuf],
        champion_weights: &Path,
        dir: &Path,
    ) -> Result<(TuneConfig, String), ConfigError> {
        let mut table = self.tune.clone();
        let files = files.iter().map(|f| path_value(f)).collect();
        set(&mut table, &["data", "files"], toml::Value::Array(files));
        // One split for the whole run: a pair held out once stays held out, so no champion
        // was ever fitted on the positions that judge its successor (generation 0's stream).
        let seed = self.stage_seed(0, SeedStream::Tune);
        set(&mut table, &["data", "seed"], toml::Value::Integer(seed));
        set(
            &mut table,
            &["model", "weights"],
            path_value(champion_weights),
        );
        set(&mut table, &["output", "dir"], path_value(dir));
        let text = toml::to_string(&table).expect("a TOML table serialises");
        let source = format!("{} [tune]", self.source);
        let config =
            TuneConfig::from_toml_str(&text, &source).map_err(|e| self.relocate(e, "tune"))?;
        Ok((config, text))
    }

    /// A configuration error of a generated stage, placed at the loop file's line and key.
    pub(super) fn relocate(&self, error: ConfigError, stage: &str) -> ConfigError {
        match Document::parse(&self.text, &self.source) {
            Ok(doc) => error.relocated(&doc, stage),
            Err(_) => error,
        }
    }

    fn match_config(
        &self,
        stage: &str,
        table: toml::Table,
    ) -> Result<(MatchConfig, String), ConfigError> {
        let text = toml::to_string(&table).expect("a TOML table serialises");
        let source = format!("{} [{stage}]", self.source);
        let config = MatchConfig::parse(&text, &source).map_err(|e| self.relocate(e, stage))?;
        Ok((config, text))
    }

    fn set_match_keys(
        &self,
        table: &mut toml::Table,
        generation: u32,
        stream: SeedStream,
        dir: &Path,
    ) {
        let seed = self.stage_seed(generation, stream);
        set(table, &["tournament", "seed"], toml::Value::Integer(seed));
        set(
            table,
            &["tournament", "kind"],
            toml::Value::String("gauntlet".into()),
        );
        set(table, &["output", "dir"], path_value(dir));
    }

    /// A built-in engine with `files`: weights, search constants and the loop's table size.
    fn builtin_table(&self, files: &EngineFiles) -> toml::Value {
        let mut builtin = toml::Table::new();
        builtin.insert("weights".into(), path_value(&files.weights));
        if let Some(search) = &files.search {
            builtin.insert("search".into(), path_value(search));
        }
        if let Some(net) = &files.net {
            builtin.insert("net".into(), path_value(net));
        }
        builtin.insert(
            "hash_mb".into(),
            toml::Value::Integer(self.champion.hash_mb as i64),
        );
        toml::Value::Table(builtin)
    }

    fn engine_table(&self, name: &str, files: &EngineFiles) -> toml::Value {
        let mut engine = toml::Table::new();
        engine.insert("name".into(), toml::Value::String(name.into()));
        engine.insert("builtin".into(), self.builtin_table(files));
        toml::Value::Table(engine)
    }

    /// The seed of one stage of one generation: derived, so generations and stages differ and
    /// a resumed run draws the same ones (63 bits: TOML integers are signed).
    pub(super) fn stage_seed(&self, generation: u32, stream: SeedStream) -> i64 {
        let stream = u64::from(generation) * 8 + stream as u64;
        (Rng::derive(self.seed, stream).next_u64() >> 1) as i64
    }

    /// The settings a resumed run must share with the run in its directory, as dotted keys:
    /// the whole file but `generations` (a run may be extended), the output directory, the
    /// `[anchor]` table (see `decides_generations`) and the settings that cannot change a
    /// result (concurrency, threads, timeouts, how often progress is printed), and the
    /// champion files' contents.
    pub fn fingerprint(&self) -> BTreeMap<String, String> {
        let mut entries = BTreeMap::new();
        if let Ok(doc) = toml::from_str::<toml::Table>(&self.text) {
            flatten("", &toml::Value::Table(doc), &mut entries);
        }
        entries.retain(|key, _| decides_generations(key));
        // What the champion's files set, not their bytes: a comment edit changes no game.
        for (key, path) in self.champion_files() {
            entries.insert(key.into(), settings_hash(path));
        }
        if let Some((key, path)) = self.champion_net() {
            entries.insert(key.into(), file_hash(path));
        }
        entries
    }

    /// The fingerprint keys of the champion's files with their byte hashes: what loop.toml
    /// files written before settings hashes hold, accepted on resume while the file is unchanged.
    pub(crate) fn champion_byte_hashes(&self) -> BTreeMap<String, String> {
        self.champion_files()
            .map(|(key, path)| (key.to_string(), file_hash(path)))
            .collect()
    }

    fn champion_files(&self) -> impl Iterator<Item = (&'static str, &Path)> {
        let weights = ("champion.weights_hash", self.champion.weights.as_path());
        let search = (self.champion.search.as_deref()).map(|s| ("champion.search_hash", s));
        std::iter::once(weights).chain(search)
    }

    /// The champion's network, whose bytes (not TOML settings) the fingerprint hashes.
    pub(super) fn champion_net(&self) -> Option<(&'static str, &Path)> {
        (self.champion.net.as_deref()).map(|n| ("champion.net_hash", n))
    }
}

/// Whether a fingerprint key can change what the generations compute (their games, tunes,
/// gates and champions), so that a resumed run must keep it. What cannot change a game or a
/// tuned weight may change between sessions, and so may the anchor panel: it measures the
/// champion on an outside scale but decides no promotion (a generation anchored before the
/// change keeps its row; the ones after it are measured against the new panel).
pub(super) fn decides_generations(key: &str) -> bool {
    !matches!(key, "generations" | "output.dir" | "anchor")
        && !key.starts_with("anchor.")
        && ![
            ".tournament.concurrency",
            ".tournament.timeout_ms",
            "datagen.concurrency",
            ".training.threads",
            ".optimizer.threads",
            ".output.report_every",
            ".output.rating_interval",
        ]
        .iter()
        .any(|tail| key.ends_with(tail))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = r#"
seed = 3
[champion]
weights = "configs/weights/handset.toml"
[selfplay.tournament]
rounds = 4
[selfplay.time_control]
nodes = 500
[tune]
window = 2
[tune.optimizer]
epochs = 5
[gate.tournament]
rounds = 10
[gate.time_control]
nodes = 500
[gate.sprt]
elo0 = 0.0
elo1 = 10.0
"#;

    #[test]
    fn stage_configurations_carry_the_loops_engines_seeds_and_directories() {
        let config = LoopConfig::parse(SMALL, "l.toml").unwrap();
        assert_eq!(config.window, 2);
        assert_eq!(config.wave_pairs, 20);
        let champion = config.start_champion();
        let (selfplay, _) = config
            .selfplay_config(2, &champion, Path::new("o/gen-002/selfplay"))
            .unwrap();
        assert!(selfplay.output.positions);
        assert_eq!(selfplay.engines.len(), 2);
        assert_eq!(selfplay.output.dir, Path::new("o/gen-002/selfplay"));
        let (again, _) = config
            .selfplay_config(2, &champion, Path::new("o/gen-002/selfplay"))
            .unwrap();
        assert_eq!(selfplay.seed, again.seed, "seeds are derived, not drawn");
        let (third, _) = config
            .selfplay_config(3, &champion, Path::new("x"))
            .unwrap();
        assert_ne!(selfplay.seed, third.seed);
        let (gate, _) = config
            .gate_config(2, &champion, &champion, Path::new("g"))
            .unwrap();
        assert!(gate.sprt.is_some());
        assert_eq!(gate.engines[0].name, "challenger");
        let (tune, _) = config
            .tune_config(
                &[PathBuf::from("a.epd")],
                Path::new("w.toml"),
                Path::new("t"),
            )
            .unwrap();
        assert_eq!(tune.data.files, [PathBuf::from("a.epd")]);
        assert_eq!(tune.optimizer.epochs, 5);
        // Every generation splits its window the same way, so held-out pairs stay held out.
        let files = [PathBuf::from("a.epd"), PathBuf::from("b.epd")];
        let (later, _) = config
            .tune_config(&files, Path::new("w.toml"), Path::new("t7"))
            .unwrap();
        assert_eq!(later.data.seed, tune.data.seed);
        let reseeded = LoopConfig::parse(&SMALL.replace("seed = 3", "seed = 5"), "l.toml").unwrap();
        let (other, _) = reseeded
            .tune_config(&files, Path::new("w.toml"), Path::new("t"))
            .unwrap();
        assert_ne!(
            other.data.seed, tune.data.seed,
            "the run's seed still chooses the split"
        );
    }

    #[test]
    fn errors_in_a_stage_table_name_the_loop_files_line_and_key() {
        let bad = SMALL.replace("nodes = 500\n[tune]", "nodes = \"many\"\n[tune]");
        let err = LoopConfig::parse(&bad, "l.toml").unwrap_err().to_string();
        assert!(err.starts_with("l.toml:8:"), "{err}");
        assert!(err.contains("selfplay.time_control.nodes"), "{err}");

        let unknown = SMALL.replace("epochs = 5", "epoch = 5");
        let err = LoopConfig::parse(&unknown, "l.toml")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("l.toml:12:"), "{err}");
        assert!(err.contains("tune.optimizer.epoch"), "{err}");

        let set = SMALL.replace("rounds = 4", "rounds = 4\nseed = 9");
        let err = LoopConfig::parse(&set, "l.toml").unwrap_err().to_string();
        assert!(
            err.contains("selfplay.tournament.seed") && err.contains("set by the loop"),
            "{err}"
        );

        let no_sprt = SMALL.replace("[gate.sprt]\nelo0 = 0.0\nelo1 = 10.0\n", "");
        let err = LoopConfig::parse(&no_sprt, "l.toml")
            .unwrap_err()
            .to_string();
        assert!(err.contains("gate.sprt"), "{err}");

        let window = SMALL.replace("window = 2", "window = 0");
        let err = LoopConfig::parse(&window, "l.toml")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("l.toml:10:") && err.contains("tune.window"),
            "{err}"
        );
    }

    #[test]
    fn the_anchor_panel_keeps_its_own_numbering_in_errors() {
        let text = format!(
            "{SMALL}[anchor]\nevery = 2\n[anchor.time_control]\nnodes = 500\n\
             [[anchor.engine]]\nname = \"a\"\nrating = 1500\nbuiltin = {{}}\n\
             [[anchor.engine]]\nname = \"b\"\nbuiltin = {{ hash_mb = 0 }}\n"
        );
        let err = LoopConfig::parse(&text, "l.toml").unwrap_err().to_string();
        assert!(err.contains("anchor.engine[1].builtin.hash_mb"), "{err}");
        let fixed = text.replace("hash_mb = 0", "hash_mb = 1");
        let config = LoopConfig::parse(&fixed, "l.toml").unwrap();
        assert_eq!(config.anchor_every, 2);
        assert_eq!(config.anchor_ratings, [1500.0, 0.0]);
    }

    /// `[tune.engine]` is a key the tuner's reader knows (`sparring tune`'s external engine),
    /// so the stage's own check passes it: the loop refuses it, at its line.
    #[test]
    fn tune_engine_in_a_loop_file_is_refused() {
        let text = format!("{SMALL}[tune.engine]\ncommand = \"./myengine\"\n");
        let err = LoopConfig::parse(&text, "l.toml").unwrap_err();
        let message = err.to_string();
        assert!(
            message.starts_with("l.toml:20:") && message.contains("`tune.engine`"),
            "{message}"
        );
        assert_eq!(
            crate::error::ErrorClass::class(&err),
            crate::error::Failure::BadInput
        );
    }

    #[test]
    fn the_fingerprint_leaves_out_the_anchor_panel() {
        let anchor = |panel: &str| {
            format!("{SMALL}[anchor]\nevery = 1\n[anchor.time_control]\nnodes = 500\n{panel}")
        };
        let a = LoopConfig::parse(
            &anchor("[[anchor.engine]]\nname = \"a\"\nuci = { command = \"x\" }\n"),
            "l.toml",
        )
        .unwrap()
        .fingerprint();
        let b = LoopConfig::parse(
            &anchor("[[anchor.engine]]\nname = \"b\"\nrating = 9\nbuiltin = {}\n"),
            "l.toml",
        )
        .unwrap()
        .fingerprint();
        assert_eq!(a, b);
        assert_eq!(a, LoopConfig::parse(SMALL, "l.toml").unwrap().fingerprint());
        assert!(!decides_generations("anchor.engine[0].uci.command"));
        assert!(decides_generations("gate.time_control.nodes"));
    }

    #[test]
    fn the_fingerprint_leaves_out_the_generation_count() {
        let a = LoopConfig::parse(SMALL, "l.toml").unwrap().fingerprint();
        let more = SMALL.replace("seed = 3", "seed = 3\ngenerations = 9");
        let b = LoopConfig::parse(&more, "l.toml").unwrap().fingerprint();
        assert_eq!(a, b);
        let other = SMALL.replace("nodes = 500\n[tune]", "nodes = 600\n[tune]");
        let c = LoopConfig::parse(&other, "l.toml").unwrap().fingerprint();
        assert_ne!(
            a.get("selfplay.time_control.nodes"),
            c.get("selfplay.time_control.nodes")
        );
    }

    /// `[selfplay.output] positions_resolve` reaches the self-play match as the match reads it;
    /// a loop file without it fingerprints as before.
    #[test]
    fn selfplay_positions_can_be_resolved_along_the_pv() {
        use crate::record::PositionsResolve;
        let plain = LoopConfig::parse(SMALL, "l.toml").unwrap();
        let champion = plain.start_champion();
        let (selfplay, _) = plain.selfplay_config(1, &champion, Path::new("s")).unwrap();
        assert_eq!(selfplay.output.positions_resolve, PositionsResolve::None);
        assert!(!plain
            .fingerprint()
            .keys()
            .any(|k| k.contains("positions_resolve")));
        let text = SMALL.replace(
            "[tune]\n",
            "[selfplay.output]\npositions_resolve = \"pv\"\n[tune]\n",
        );
        let resolved = LoopConfig::parse(&text, "l.toml").unwrap();
        let (selfplay, _) = resolved
            .selfplay_config(1, &champion, Path::new("s"))
            .unwrap();
        assert_eq!(selfplay.output.positions_resolve, PositionsResolve::Pv);
        assert_eq!(
            resolved
                .fingerprint()
                .get("selfplay.output.positions_resolve")
                .map(String::as_str),
            Some("\"pv\"")
        );
        let bad = text.replace("\"pv\"", "\"all\"");
        let err = LoopConfig::parse(&bad, "l.toml").unwrap_err().to_string();
        assert!(
            err.starts_with("l.toml:10:") && err.contains("selfplay.output.positions_resolve"),
            "{err}"
        );
    }
}
