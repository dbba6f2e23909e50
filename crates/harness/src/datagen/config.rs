//! The datagen configuration: the TOML file (`configs/datagen.toml` documents every key), the
//! command line's overrides on top of it, the checks, and the fingerprint a resume compares.

use super::DatagenError;
use crate::data::DataFormat;
use crate::toml_config::{read_text, ConfigError, Document};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The engine that plays itself.
#[derive(Clone, Debug, PartialEq)]
pub enum DatagenEngine {
    /// The built-in engine, in process.
    Builtin {
        /// `engine.builtin.weights`; None: the compiled-in weights.
        weights: Option<PathBuf>,
        /// `engine.builtin.net`: a network (bullet's quantised file) to evaluate with instead
        /// of the hand-crafted evaluation.
        net: Option<PathBuf>,
        /// `engine.builtin.hash_mb` (default 16).
        hash_mb: usize,
    },
    /// An external UCI engine, one process per concurrent game.
    Uci {
        /// `engine.uci.command`.
        command: String,
        /// `engine.uci.args`.
        args: Vec<String>,
        /// `engine.uci.options`, sorted by name.
        options: Vec<(String, String)>,
    },
}

impl DatagenEngine {
    /// `--engine builtin` or `--engine "CMD ARGS"` (split on whitespace).
    pub(crate) fn from_flag(text: &str) -> Option<DatagenEngine> {
        let mut words = text.split_whitespace();
        let command = words.next()?;
        if command == "builtin" && words.clone().next().is_none() {
            return Some(DatagenEngine::Builtin {
                weights: None,
                net: None,
                hash_mb: DEFAULT_HASH_MB,
            });
        }
        Some(DatagenEngine::Uci {
            command: command.to_string(),
            args: words.map(str::to_string).collect(),
            options: Vec::new(),
        })
    }

    /// The engine in one line, for the fingerprint and the console.
    pub fn describe(&self) -> String {
        match self {
            DatagenEngine::Builtin {
                weights,
                net,
                hash_mb,
            } => {
                let mut text = "builtin".to_string();
                if let Some(w) = weights {
                    text.push_str(&format!(" weights={}", w.display()));
                }
                // Only when set, so runs from before the key resume unchanged.
                if let Some(n) = net {
                    text.push_str(&format!(" net={}", n.display()));
                }
                text.push_str(&format!(" hash_mb={hash_mb}"));
                text
            }
            DatagenEngine::Uci {
                command,
                args,
                options,
            } => {
                let mut text = std::iter::once(command.as_str())
                    .chain(args.iter().map(String::as_str))
                    .collect::<Vec<_>>()
                    .join(" ");
                for (name, value) in options {
                    text.push_str(&format!(" [{name}={value}]"));
                }
                text
            }
        }
    }
}

/// Where the games start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DatagenVariant {
    /// The standard start position.
    Standard,
    /// One of the 960 Chess960 starts, the same for both sides.
    Chess960,
    /// Double Fischer Random: each side's back rank drawn on its own (960 × 960 starts).
    Dfrc,
}

impl DatagenVariant {
    /// The name in the file and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            DatagenVariant::Standard => "standard",
            DatagenVariant::Chess960 => "chess960",
            DatagenVariant::Dfrc => "dfrc",
        }
    }

    /// The variant named `name`.
    pub fn from_name(name: &str) -> Option<DatagenVariant> {
        [
            DatagenVariant::Standard,
            DatagenVariant::Chess960,
            DatagenVariant::Dfrc,
        ]
        .into_iter()
        .find(|v| v.name() == name)
    }
}

/// Score-based adjudication (the rules of the game and the tables come first).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScoreAdjudication {
    /// `adjudication.win_score_cp` and `win_moves`: a win when both sides' scores agree on at
    /// least this margin for that many moves each. None: off.
    pub win: Option<(i32, u32)>,
    /// `adjudication.draw_score_cp`, `draw_moves` and `draw_after_move`: a draw when every score
    /// stays within the margin for that many moves each, from that full move on. None: off.
    pub draw: Option<(i32, u32, u32)>,
    /// `adjudication.max_moves`: a draw after this many moves each. None: no limit.
    pub max_moves: Option<u32>,
}

/// A whole datagen run's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct DatagenConfig {
    /// The engine.
    pub engine: DatagenEngine,
    /// Games in the whole run (all shards).
    pub games: u64,
    /// The soft node limit per move (`go nodes N`).
    pub nodes: u64,
    /// An optional depth limit per move (`go depth D` as well).
    pub depth: Option<u32>,
    /// Random legal plies from the start before the engine plays.
    pub random_plies: usize,
    /// Nodes of the verification search of each opening.
    pub(crate) verify_nodes: u64,
    /// The largest absolute verification score an opening may have, in centipawns.
    pub(crate) verify_window_cp: i32,
    /// The data file's format.
    pub format: DataFormat,
    /// The run's directory.
    pub out: PathBuf,
    /// Games played at once, one engine each.
    pub concurrency: usize,
    /// The seed of every opening.
    pub seed: u64,
    /// Where games start.
    pub variant: DatagenVariant,
    /// `adjudication.tb`: Syzygy tables whose verdict ends a game.
    pub tb: Option<PathBuf>,
    /// Score adjudication.
    pub adjudication: ScoreAdjudication,
}

/// The command line's values, each replacing the file's.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    /// `--engine`.
    pub engine: Option<String>,
    /// `--nodes`.
    pub nodes: Option<u64>,
    /// `--games`.
    pub games: Option<u64>,
    /// `--random-plies`.
    pub random_plies: Option<usize>,
    /// `--format`.
    pub format: Option<String>,
    /// `--out`.
    pub out: Option<PathBuf>,
    /// `--concurrency`.
    pub concurrency: Option<usize>,
    /// `--seed`.
    pub seed: Option<u64>,
    /// `--variant`.
    pub variant: Option<String>,
    /// `--tb`.
    pub tb: Option<PathBuf>,
}

const DEFAULT_HASH_MB: usize = 16;
const DEFAULT_NODES: u64 = 5_000;
const DEFAULT_RANDOM_PLIES: usize = 8;

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct FileShape {
    #[serde(default)]
    datagen: RunShape,
    #[serde(default)]
    verify: VerifyShape,
    #[serde(default)]
    adjudication: AdjudicationShape,
    engine: Option<EngineShape>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RunShape {
    games: Option<u64>,
    nodes: Option<u64>,
    depth: Option<u32>,
    random_plies: Option<usize>,
    format: Option<String>,
    out: Option<PathBuf>,
    concurrency: Option<usize>,
    seed: Option<u64>,
    variant: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct VerifyShape {
    nodes: Option<u64>,
    window_cp: Option<i32>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct AdjudicationShape {
    tb: Option<PathBuf>,
    win_score_cp: Option<i32>,
    win_moves: Option<u32>,
    draw_score_cp: Option<i32>,
    draw_moves: Option<u32>,
    draw_after_move: Option<u32>,
    max_moves: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EngineShape {
    builtin: Option<BuiltinShape>,
    uci: Option<UciShape>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct BuiltinShape {
    weights: Option<PathBuf>,
    net: Option<PathBuf>,
    hash_mb: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UciShape {
    command: String,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    options: BTreeMap<String, toml::Value>,
}

impl DatagenConfig {
    /// Reads `path` (if any) and applies `overrides`; every problem names the file, line and
    /// key, or the flag.
    pub fn load(path: Option<&Path>, overrides: &Overrides) -> Result<DatagenConfig, DatagenError> {
        match path {
            Some(path) => {
                let text = read_text(path)?;
                let name = crate::toml_config::shown_path(path);
                DatagenConfig::parse(&text, &name, overrides)
            }
            None => DatagenConfig::parse("", "(command line)", overrides),
        }
    }

    /// As `load`, from text named `file`.
    pub fn parse(
        text: &str,
        file: &str,
        overrides: &Overrides,
    ) -> Result<DatagenConfig, DatagenError> {
        let doc = Document::parse(text, file)?;
        let shape: FileShape = doc.deserialize()?;
        let run = &shape.datagen;
        let engine = match &overrides.engine {
            Some(flag) => DatagenEngine::from_flag(flag).ok_or_else(|| {
                bad_flag("--engine", flag, "`builtin` or an engine's command line")
            })?,
            None => engine_of(&doc, shape.engine)?,
        };
        let format = match (&overrides.format, &run.format) {
            (Some(name), _) => {
                DataFormat::from_name(name).ok_or_else(|| bad_flag("--format", name, FORMATS))?
            }
            (None, Some(name)) => DataFormat::from_name(name)
                .ok_or_else(|| doc.invalid_value("datagen.format", FORMATS))?,
            (None, None) => DataFormat::Viriformat,
        };
        let variant = match (&overrides.variant, &run.variant) {
            (Some(name), _) => DatagenVariant::from_name(name)
                .ok_or_else(|| bad_flag("--variant", name, VARIANTS))?,
            (None, Some(name)) => DatagenVariant::from_name(name)
                .ok_or_else(|| doc.invalid_value("datagen.variant", VARIANTS))?,
            (None, None) => DatagenVariant::Standard,
        };
        let games = overrides.games.or(run.games).ok_or_else(|| {
            DatagenError::Missing("games: give `datagen.games` or --games".to_string())
        })?;
        let out = overrides.out.clone().or(run.out.clone()).ok_or_else(|| {
            DatagenError::Missing("the output directory: give `datagen.out` or --out".to_string())
        })?;
        let nodes = match overrides.nodes {
            Some(0) => return Err(bad_flag("--nodes", "0", "at least 1")),
            Some(n) => n,
            None => doc.in_range("datagen.nodes", run.nodes.unwrap_or(DEFAULT_NODES), 1, None)?,
        };
        let concurrency = match overrides.concurrency {
            Some(0) => return Err(bad_flag("--concurrency", "0", "at least 1")),
            Some(n) => n,
            None => doc.in_range(
                "datagen.concurrency",
                run.concurrency.unwrap_or(1),
                1,
                Some(1024),
            )?,
        };
        if let Some(depth) = run.depth {
            doc.in_range("datagen.depth", depth, 1, Some(127))?;
        }
        let verify_nodes =
            doc.in_range("verify.nodes", shape.verify.nodes.unwrap_or(1_000), 1, None)?;
        let verify_window_cp = doc.in_range(
            "verify.window_cp",
            shape.verify.window_cp.unwrap_or(1_000),
            1,
            None,
        )?;
        Ok(DatagenConfig {
            engine,
            games,
            nodes,
            depth: run.depth,
            random_plies: overrides
                .random_plies
                .or(run.random_plies)
                .unwrap_or(DEFAULT_RANDOM_PLIES),
            verify_nodes,
            verify_window_cp,
            format,
            out,
            concurrency,
            seed: overrides.seed.or(run.seed).unwrap_or(1),
            variant,
            tb: overrides.tb.clone().or(shape.adjudication.tb.clone()),
            adjudication: adjudication_of(&doc, &shape.adjudication)?,
        })
    }

    /// Everything that decides the games and the bytes, as `key = value` pairs: a resume must
    /// find the same (concurrency and the directory are not among them).
    pub fn fingerprint(&self) -> BTreeMap<String, String> {
        let a = &self.adjudication;
        let opt = |v: Option<String>| v.unwrap_or_else(|| "none".to_string());
        [
            ("engine", self.engine.describe()),
            ("games", self.games.to_string()),
            ("nodes", self.nodes.to_string()),
            ("depth", opt(self.depth.map(|d| d.to_string()))),
            ("random_plies", self.random_plies.to_string()),
            ("verify.nodes", self.verify_nodes.to_string()),
            ("verify.window_cp", self.verify_window_cp.to_string()),
            ("format", self.format.name().to_string()),
            ("seed", self.seed.to_string()),
            ("variant", self.variant.name().to_string()),
            (
                "adjudication.tb",
                opt(self.tb.as_ref().map(|p| p.display().to_string())),
            ),
            (
                "adjudication.win",
                opt(a.win.map(|(s, m)| format!("{s} cp for {m} moves"))),
            ),
            (
                "adjudication.draw",
                opt(a
                    .draw
                    .map(|(s, m, after)| format!("{s} cp for {m} moves from move {after}"))),
            ),
            (
                "adjudication.max_moves",
                opt(a.max_moves.map(|m| m.to_string())),
            ),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }
}

const FORMATS: &str = "viriformat, bulletformat, marlinformat or text";
const VARIANTS: &str = "standard, chess960 or dfrc";

fn bad_flag(flag: &str, value: &str, expected: &str) -> DatagenError {
    DatagenError::BadFlag {
        flag: flag.to_string(),
        value: value.to_string(),
        expected: expected.to_string(),
    }
}

fn engine_of(doc: &Document<'_>, shape: Option<EngineShape>) -> Result<DatagenEngine, ConfigError> {
    let Some(shape) = shape else {
        return Ok(DatagenEngine::Builtin {
            weights: None,
            net: None,
            hash_mb: DEFAULT_HASH_MB,
        });
    };
    match (shape.builtin, shape.uci) {
        (Some(b), None) => Ok(DatagenEngine::Builtin {
            weights: b.weights,
            net: b.net,
            hash_mb: doc.in_range(
                "engine.builtin.hash_mb",
                b.hash_mb.unwrap_or(DEFAULT_HASH_MB),
                1,
                Some(65_536),
            )?,
        }),
        (None, Some(u)) => Ok(DatagenEngine::Uci {
            command: u.command,
            args: u.args,
            options: u
                .options
                .into_iter()
                .map(|(name, value)| {
                    let text = match value {
                        toml::Value::String(s) => s,
                        other => other.to_string(),
                    };
                    (name, text)
                })
                .collect(),
        }),
        _ => Err(doc.other("engine", "give exactly one of `builtin` or `uci`")),
    }
}

fn adjudication_of(
    doc: &Document<'_>,
    a: &AdjudicationShape,
) -> Result<ScoreAdjudication, ConfigError> {
    let win = match (a.win_score_cp, a.win_moves) {
        (None, None) => None,
        (Some(score), moves) => Some((
            doc.in_range("adjudication.win_score_cp", score, 1, None)?,
            doc.in_range("adjudication.win_moves", moves.unwrap_or(4), 1, None)?,
        )),
        (None, Some(_)) => {
            return Err(doc.other(
                "adjudication.win_moves",
                "needs `adjudication.win_score_cp` as well",
            ))
        }
    };
    let draw = match (a.draw_score_cp, a.draw_moves, a.draw_after_move) {
        (None, None, None) => None,
        (Some(score), moves, after) => Some((
            doc.in_range("adjudication.draw_score_cp", score, 0, None)?,
            doc.in_range("adjudication.draw_moves", moves.unwrap_or(8), 1, None)?,
            doc.in_range("adjudication.draw_after_move", after.unwrap_or(40), 1, None)?,
        )),
        (None, _, _) => {
            return Err(doc.other(
                "adjudication",
                "`draw_moves` and `draw_after_move` need `adjudication.draw_score_cp` as well",
            ))
        }
    };
    let max_moves = match a.max_moves {
        Some(m) => Some(doc.in_range("adjudication.max_moves", m, 1, None)?),
        None => None,
    };
    Ok(ScoreAdjudication {
        win,
        draw,
        max_moves,
    })
}
