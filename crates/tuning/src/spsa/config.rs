//! The SPSA configuration file (`sparring spsa CONFIG.toml`, e.g. `configs/spsa.toml`): the
//! engine, the parameters (as `[[param]]` tables or OpenBench/fishtest lines pasted into
//! `spsa.lines`), the schedule, the games (time control, openings, adjudication) and the output
//! directory. Read like the other configuration files: unknown keys refused, every error with
//! file, line, column and dotted key.

use super::gains::GainSchedule;
use super::names::{EngineParams, Target};
use super::params::{builtin_params, param_entries, uci_param, Entry, ParamTable};
use super::plan::{SpsaParam, SpsaPlan};
use crate::arena::config::{Adjudication, TimeControl};
use crate::eval::EvalParams;
use crate::search::SearchParams;
use crate::toml_config::{read_text, ConfigError, Document};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The engine whose parameters are tuned.
#[derive(Clone, Debug)]
pub enum SpsaEngine {
    /// The built-in engine, in process.
    Builtin {
        /// `engine.weights`: the evaluation weights file it starts from (None: built in).
        weights: Option<PathBuf>,
        /// `engine.search`: the search file it starts from (None: built in).
        search: Option<PathBuf>,
        /// The values it starts from (both files loaded).
        base: Box<EngineParams>,
        /// `engine.hash_mb` (default 16).
        hash_mb: usize,
        /// What each parameter is, in plan order.
        targets: Vec<Target>,
    },
    /// An external engine; parameters are its UCI options.
    Uci {
        /// `engine.uci.command`.
        command: String,
        /// `engine.uci.args`.
        args: Vec<String>,
        /// `engine.uci.options`: fixed options, sent before the tuned ones.
        options: Vec<(String, String)>,
        /// `engine.uci.working_dir`.
        working_dir: Option<PathBuf>,
    },
}

/// Where the games start.
#[derive(Clone, Debug, PartialEq)]
pub struct SpsaOpenings {
    /// `openings.file`: an EPD suite, PGN file or Polyglot book.
    pub file: PathBuf,
    /// `openings.format`: epd, pgn or polyglot (None: from the extension).
    pub format: Option<String>,
    /// `openings.plies`: PGN games cut and Polyglot lines drawn to this many plies.
    pub plies: Option<usize>,
    /// `openings.random_plies`: random legal moves after the book line (per pair).
    pub random_plies: usize,
}

/// A checked SPSA configuration.
#[derive(Clone, Debug)]
pub struct SpsaConfig {
    /// Where it came from, for messages.
    pub source: String,
    /// The chain: parameters, schedule, pairs per iteration, seed.
    pub plan: SpsaPlan,
    /// `spsa.concurrency` (default 1).
    pub concurrency: usize,
    /// The engine.
    pub engine: SpsaEngine,
    /// `[time_control]` (default: 5000 nodes).
    pub time_control: TimeControl,
    /// `time_control.margin_ms` (default 100).
    pub margin: Duration,
    /// `time_control.timeout_ms` (default 30000): how long an engine may stay silent.
    pub timeout: Duration,
    /// `[openings]`; None: the start position.
    pub openings: Option<SpsaOpenings>,
    /// `[adjudication]`.
    pub adjudication: Adjudication,
    /// `output.dir` (default `results/spsa`).
    pub output_dir: PathBuf,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SpsaFile {
    spsa: Option<SpsaTable>,
    engine: Option<EngineTable>,
    time_control: Option<TimeControlTable>,
    openings: Option<OpeningsTable>,
    adjudication: Option<crate::arena::config::AdjudicationFile>,
    output: Option<OutputTable>,
    param: Option<Vec<ParamTable>>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct SpsaTable {
    iterations: Option<u64>,
    pairs_per_iteration: Option<u64>,
    seed: Option<u64>,
    concurrency: Option<usize>,
    a_ratio: Option<f64>,
    alpha: Option<f64>,
    gamma: Option<f64>,
    lines: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct EngineTable {
    weights: Option<String>,
    search: Option<String>,
    hash_mb: Option<usize>,
    uci: Option<UciTable>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UciTable {
    command: Option<String>,
    args: Option<Vec<String>>,
    options: Option<BTreeMap<String, toml::Value>>,
    working_dir: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TimeControlTable {
    nodes: Option<u64>,
    depth: Option<u32>,
    movetime_ms: Option<u64>,
    clock: Option<String>,
    margin_ms: Option<u64>,
    timeout_ms: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OpeningsTable {
    file: Option<String>,
    format: Option<String>,
    plies: Option<usize>,
    random_plies: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OutputTable {
    dir: Option<String>,
}

fn option_text(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

impl SpsaConfig {
    /// Reads and checks a configuration file (and the weights and search files it names,
    /// relative to the working directory).
    pub fn load(path: &Path) -> Result<SpsaConfig, ConfigError> {
        let text = read_text(path)?;
        SpsaConfig::parse(&text, &path.display().to_string())
    }

    /// Parses configuration text; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<SpsaConfig, ConfigError> {
        let doc = Document::parse(text, file)?;
        let f: SpsaFile = doc.deserialize()?;
        let s = f.spsa.unwrap_or_default();
        let iterations = doc.in_range(
            "spsa.iterations",
            s.iterations.unwrap_or(1000),
            1,
            Some(100_000_000),
        )?;
        let pairs_per_iteration = doc.in_range(
            "spsa.pairs_per_iteration",
            s.pairs_per_iteration.unwrap_or(1),
            1,
            Some(100_000),
        )?;
        let concurrency = doc.in_range(
            "spsa.concurrency",
            s.concurrency.unwrap_or(1),
            1,
            Some(crate::available_cores()),
        )?;
        let schedule = gain_schedule(&doc, &s, iterations)?;
        let entries = param_entries(&doc, s.lines.as_deref(), f.param.unwrap_or_default())?;
        let engine_table = f.engine.unwrap_or_default();
        let (engine, params) = match engine_table.uci {
            Some(ref uci) => uci_engine(&doc, &engine_table, uci, entries)?,
            None => builtin_engine(&doc, engine_table, entries)?,
        };
        let (time_control, margin, timeout) = time_control(&doc, f.time_control)?;
        let openings = f.openings.map(|o| openings(&doc, o)).transpose()?;
        let adjudication = crate::arena::config::read_adjudication(&doc, f.adjudication)?;
        let output_dir = f
            .output
            .and_then(|o| o.dir)
            .map_or_else(|| PathBuf::from("results/spsa"), PathBuf::from);
        Ok(SpsaConfig {
            source: file.to_string(),
            plan: SpsaPlan {
                params,
                schedule,
                pairs_per_iteration,
                seed: s.seed.unwrap_or(1),
            },
            concurrency,
            engine,
            time_control,
            margin,
            timeout,
            openings,
            adjudication,
            output_dir,
        })
    }

    /// Everything that decides the run's games and updates, one `key = value` per line (the
    /// run directory keeps it; `--resume` refuses a change).
    pub fn description(&self) -> String {
        let plan = &self.plan;
        let mut out = String::new();
        let mut line = |key: &str, value: String| out.push_str(&format!("{key} = {value}\n"));
        line("iterations", plan.schedule.iterations.to_string());
        line("pairs_per_iteration", plan.pairs_per_iteration.to_string());
        line("seed", plan.seed.to_string());
        line(
            "gains",
            format!(
                "a_ratio {:?}, alpha {:?}, gamma {:?}",
                plan.schedule.a_ratio, plan.schedule.alpha, plan.schedule.gamma
            ),
        );
        line("time_control", self.time_control.to_string());
        line("openings", format!("{:?}", self.openings));
        line("adjudication", format!("{:?}", self.adjudication));
        match &self.engine {
            SpsaEngine::Builtin {
                weights,
                search,
                hash_mb,
                base,
                ..
            } => {
                line("engine", format!("builtin, hash {hash_mb} MB"));
                line("engine.weights", format!("{weights:?}"));
                line("engine.search", format!("{search:?}"));
                // The start values themselves, so an edited weights or search file shows up.
                line(
                    "engine.start",
                    format!("{:016x}", fingerprint(&base.eval.to_toml_string())),
                );
                line(
                    "engine.search_start",
                    format!("{:016x}", fingerprint(&base.search.to_toml_string())),
                );
            }
            SpsaEngine::Uci {
                command,
                args,
                options,
                working_dir,
            } => {
                line("engine", format!("uci {command} {args:?}"));
                line("engine.options", format!("{options:?}"));
                line("engine.working_dir", format!("{working_dir:?}"));
            }
        }
        for p in &plan.params {
            line(
                &format!("param {}", p.name),
                format!(
                    "{}, {:?}, {:?}, {:?}, {:?}, {:?}",
                    p.kind.name(),
                    p.start,
                    p.min,
                    p.max,
                    p.c_end,
                    p.r_end
                ),
            );
        }
        out
    }
}

/// FNV-1a of a text: a content hash for the run description (not cryptographic).
pub(crate) fn fingerprint(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The gain schedule over `iterations`, with `spsa.a_ratio`, `alpha` and `gamma` when given.
fn gain_schedule(
    doc: &Document<'_>,
    s: &SpsaTable,
    iterations: u64,
) -> Result<GainSchedule, ConfigError> {
    let mut schedule = GainSchedule::new(iterations);
    if let Some(v) = s.a_ratio {
        // Bounded so that A and the gains stay finite (a huge ratio made every step NaN).
        schedule.a_ratio = doc.number("spsa.a_ratio", v, "a number from 0 to 1000", |v| {
            (0.0..=1000.0).contains(&v)
        })?;
    }
    if let Some(v) = s.alpha {
        schedule.alpha = doc.number("spsa.alpha", v, "a number from 0 to 2", |v| {
            (0.0..=2.0).contains(&v)
        })?;
    }
    if let Some(v) = s.gamma {
        schedule.gamma = doc.number("spsa.gamma", v, "a number from 0 to 2", |v| {
            (0.0..=2.0).contains(&v)
        })?;
    }
    Ok(schedule)
}

/// An `[engine.uci]` engine; the built-in engine's keys are refused beside it.
fn uci_engine(
    doc: &Document<'_>,
    table: &EngineTable,
    uci: &UciTable,
    entries: Vec<Entry>,
) -> Result<(SpsaEngine, Vec<SpsaParam>), ConfigError> {
    for (key, present) in [
        ("weights", table.weights.is_some()),
        ("search", table.search.is_some()),
        ("hash_mb", table.hash_mb.is_some()),
    ] {
        if present {
            return Err(doc.other(
                &format!("engine.{key}"),
                "belongs to the built-in engine; an `[engine.uci]` engine takes \
                 its settings as `engine.uci.options`",
            ));
        }
    }
    let command = uci
        .command
        .clone()
        .filter(|c| !c.trim().is_empty())
        .ok_or_else(|| doc.missing("engine.uci.command", "the engine's program"))?;
    let options: Vec<(String, String)> = uci
        .options
        .iter()
        .flatten()
        .map(|(k, v)| (k.clone(), option_text(v)))
        .collect();
    let params = entries
        .into_iter()
        .map(|e| uci_param(doc, e))
        .collect::<Result<Vec<_>, _>>()?;
    let engine = SpsaEngine::Uci {
        command,
        args: uci.args.clone().unwrap_or_default(),
        options,
        working_dir: uci.working_dir.as_ref().map(PathBuf::from),
    };
    Ok((engine, params))
}

/// The built-in engine: loads the weights and search files it starts from and resolves each
/// entry (a name may stand for several parameters) against them; none may be tuned twice.
fn builtin_engine(
    doc: &Document<'_>,
    table: EngineTable,
    entries: Vec<Entry>,
) -> Result<(SpsaEngine, Vec<SpsaParam>), ConfigError> {
    let weights = table.weights.map(PathBuf::from);
    let search = table.search.map(PathBuf::from);
    let eval = match &weights {
        Some(path) => {
            EvalParams::load(path).map_err(|e| doc.other("engine.weights", e.to_string()))?
        }
        None => EvalParams::default(),
    };
    let search_params = SearchParams::load_or_default(search.as_deref())
        .map_err(|e| doc.other("engine.search", e.to_string()))?;
    let base = EngineParams {
        eval,
        search: search_params,
    };
    let hash_mb = doc.in_range(
        "engine.hash_mb",
        table.hash_mb.unwrap_or(16),
        1,
        Some(crate::search::max_hash_mb()),
    )?;
    let mut params = Vec::new();
    let mut targets = Vec::new();
    for entry in entries {
        for (param, target) in builtin_params(doc, &base, entry)? {
            if params.iter().any(|p: &SpsaParam| p.name == param.name) {
                return Err(doc.other("param", format!("`{}` is tuned twice", param.name)));
            }
            params.push(param);
            targets.push(target);
        }
    }
    let engine = SpsaEngine::Builtin {
        weights,
        search,
        base: Box::new(base),
        hash_mb,
        targets,
    };
    Ok((engine, params))
}

/// `[openings]`: the file is required.
fn openings(doc: &Document<'_>, o: OpeningsTable) -> Result<SpsaOpenings, ConfigError> {
    Ok(SpsaOpenings {
        file: o
            .file
            .map(PathBuf::from)
            .ok_or_else(|| doc.missing("openings.file", "the opening suite or book"))?,
        format: o.format,
        plies: o.plies,
        random_plies: doc.in_range(
            "openings.random_plies",
            o.random_plies.unwrap_or(0),
            0,
            Some(64),
        )?,
    })
}

fn time_control(
    doc: &Document<'_>,
    table: Option<TimeControlTable>,
) -> Result<(TimeControl, Duration, Duration), ConfigError> {
    let Some(t) = table else {
        return Ok((
            TimeControl::Nodes(5000),
            Duration::from_millis(100),
            Duration::from_secs(30),
        ));
    };
    let given = [
        t.nodes.is_some(),
        t.depth.is_some(),
        t.movetime_ms.is_some(),
        t.clock.is_some(),
    ]
    .iter()
    .filter(|&&b| b)
    .count();
    if given > 1 {
        return Err(doc.other(
            "time_control",
            "give exactly one of `nodes`, `depth`, `movetime_ms`, `clock`",
        ));
    }
    let tc = if let Some(n) = t.nodes {
        TimeControl::Nodes(doc.in_range("time_control.nodes", n, 1, None)?)
    } else if let Some(d) = t.depth {
        TimeControl::Depth(doc.in_range("time_control.depth", d, 1, Some(127))?)
    } else if let Some(ms) = t.movetime_ms {
        let ms = doc.in_range("time_control.movetime_ms", ms, 1, Some(86_400_000))?;
        TimeControl::MoveTime(Duration::from_millis(ms))
    } else if let Some(clock) = &t.clock {
        TimeControl::parse_clock(clock).ok_or_else(|| {
            doc.invalid_value(
                "time_control.clock",
                "a clock such as \"10+0.1\" or \"40/60\"",
            )
        })?
    } else {
        TimeControl::Nodes(5000)
    };
    let margin = doc.in_range(
        "time_control.margin_ms",
        t.margin_ms.unwrap_or(100),
        0,
        None,
    )?;
    let timeout = doc.in_range(
        "time_control.timeout_ms",
        t.timeout_ms.unwrap_or(30_000),
        1,
        None,
    )?;
    Ok((
        tc,
        Duration::from_millis(margin),
        Duration::from_millis(timeout),
    ))
}
