//! The match configuration (TOML). Every error names the file, the key and what was expected.

use crate::stats::{SprtModel, SprtParams};
pub use crate::toml_config::ConfigError;
use crate::toml_config::{describe, parse_document, read_text, Section};
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TournamentKind {
    /// The first engine plays every other engine.
    Gauntlet,
    /// Every engine plays every other engine.
    RoundRobin,
}

/// How long each move may take.
#[derive(Clone, Debug, PartialEq)]
pub enum TimeControl {
    Nodes(u64),
    Depth(u32),
    MoveTime(Duration),
    /// `moves/base+increment`; `moves` None for sudden death with increment.
    Clock {
        moves: Option<u32>,
        base: Duration,
        increment: Duration,
    },
}

impl std::fmt::Display for TimeControl {
    /// The console form: `5000 nodes`, `10 plies`, `0.5/move`, `10+0.1`, `40/60+0.6`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TimeControl::Nodes(n) => write!(f, "{n} nodes"),
            TimeControl::Depth(d) => write!(f, "{d} plies"),
            TimeControl::MoveTime(t) => write!(f, "{}/move", t.as_secs_f64()),
            TimeControl::Clock {
                moves,
                base,
                increment,
            } => {
                if let Some(m) = moves {
                    write!(f, "{m}/")?;
                }
                write!(f, "{}+{}", base.as_secs_f64(), increment.as_secs_f64())
            }
        }
    }
}

impl TimeControl {
    /// The PGN `TimeControl` tag: `40/60+0.6` or `10+0.1` for clocks, `-` (none) otherwise.
    pub fn pgn_tag(&self) -> String {
        match self {
            TimeControl::Clock { .. } => self.to_string(),
            _ => "-".to_string(),
        }
    }

    /// Parses `10+0.1`, `40/60+0.6`, `60` (seconds).
    pub fn parse_clock(text: &str) -> Option<TimeControl> {
        let (moves, rest) = match text.split_once('/') {
            Some((m, rest)) => (Some(m.trim().parse::<u32>().ok().filter(|&m| m > 0)?), rest),
            None => (None, text),
        };
        let (base, increment) = match rest.split_once('+') {
            Some((b, i)) => (b, i),
            None => (rest, "0"),
        };
        let seconds = |s: &str| {
            s.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0)
                .map(Duration::from_secs_f64)
        };
        let base = seconds(base)?;
        if base.is_zero() {
            return None;
        }
        Some(TimeControl::Clock {
            moves,
            base,
            increment: seconds(increment)?,
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpeningOrder {
    Random,
    Sequential,
}

#[derive(Clone, Debug, PartialEq)]
pub struct OpeningsConfig {
    pub file: PathBuf,
    /// `epd`, `pgn` or `polyglot`; None: guessed from the extension.
    pub format: Option<String>,
    pub order: OpeningOrder,
    pub plies: Option<usize>,
    /// 1-based index of the first opening to use.
    pub start: usize,
    /// Every game takes its own opening instead of a colour-reversed pair sharing one. Between
    /// identical deterministic engines a pair's second game would repeat the first, so self-play
    /// data generation wants this.
    pub per_game: bool,
    /// Uniformly random legal moves played after the book line: drawn per pair (both games of a
    /// pair get the same moves) or, with `per_game`, per game.
    pub random_plies: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DrawAdjudication {
    /// Not before this full move number.
    pub move_number: u32,
    /// Consecutive moves of each engine with a score within `score_cp` of zero.
    pub move_count: u32,
    pub score_cp: i32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ResignAdjudication {
    /// Consecutive moves of the losing engine at or below `-score_cp`.
    pub move_count: u32,
    pub score_cp: i32,
    /// Also require the winner's scores to be at least `score_cp`.
    pub two_sided: bool,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Adjudication {
    pub draw: Option<DrawAdjudication>,
    pub resign: Option<ResignAdjudication>,
    /// Draw after this many moves by each side, book moves not counted.
    pub max_moves: Option<u32>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum EngineKind {
    /// The project's own engine, in process.
    Builtin {
        weights: Option<PathBuf>,
        hash_mb: usize,
    },
    /// An external UCI engine run as a child process.
    Uci {
        command: String,
        args: Vec<String>,
        options: Vec<(String, String)>,
        working_dir: Option<PathBuf>,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct EngineConfig {
    pub name: String,
    pub kind: EngineKind,
}

#[derive(Clone, Debug, PartialEq)]
pub struct OutputConfig {
    pub dir: PathBuf,
    /// Also write `positions.epd` for the tuner.
    pub positions: bool,
    /// At most this many positions sampled from each game.
    pub positions_per_game: usize,
    /// Print the results block every this many finished game pairs.
    pub rating_interval: u32,
}

#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// Where the configuration came from, for messages.
    pub source: String,
    pub event: String,
    pub kind: TournamentKind,
    pub rounds: u32,
    pub concurrency: usize,
    pub seed: u64,
    pub time_control: TimeControl,
    /// Extra time a clock may run over before the move is a time forfeit.
    pub margin: Duration,
    /// How long an engine may stay silent (start-up, isready, or a move without a clock).
    pub timeout: Duration,
    pub openings: Option<OpeningsConfig>,
    pub adjudication: Adjudication,
    pub sprt: Option<SprtParams>,
    pub output: OutputConfig,
    pub engines: Vec<EngineConfig>,
}

impl MatchConfig {
    pub fn load(path: &Path) -> Result<MatchConfig, ConfigError> {
        let text = read_text(path)?;
        MatchConfig::parse(&text, &path.display().to_string())
    }

    /// Parses a configuration; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<MatchConfig, ConfigError> {
        let root = parse_document(text, file)?;
        let mut top = Section::root(file, &root);

        let mut tournament = top
            .table("tournament")?
            .ok_or_else(|| top.missing("tournament", "a [tournament] table"))?;
        let kind = match tournament.string("kind")?.as_deref() {
            None | Some("gauntlet") => TournamentKind::Gauntlet,
            Some("round-robin") | Some("roundrobin") => TournamentKind::RoundRobin,
            Some(other) => {
                return Err(tournament.invalid(
                    "kind",
                    "\"gauntlet\" or \"round-robin\"",
                    format!("\"{other}\""),
                ))
            }
        };
        let rounds = tournament.int("rounds", 1, 100_000_000)?.unwrap_or(1) as u32;
        let concurrency = tournament.int("concurrency", 1, 1024)?.unwrap_or(1) as usize;
        let seed = tournament.int("seed", 0, i64::MAX)?.unwrap_or(1) as u64;
        let event = tournament
            .string("event")?
            .unwrap_or_else(|| "sparring match".to_string());
        let timeout_ms = tournament
            .int("timeout_ms", 100, 3_600_000)?
            .unwrap_or(30_000);
        tournament.finish()?;

        let mut tc = top
            .table("time_control")?
            .ok_or_else(|| top.missing("time_control", "a [time_control] table"))?;
        let nodes = tc.int("nodes", 1, i64::MAX)?;
        let depth = tc.int("depth", 1, 127)?;
        let movetime = tc.int("movetime_ms", 1, 86_400_000)?;
        let clock = tc.string("clock")?;
        let margin_ms = tc.int("margin_ms", 0, 3_600_000)?.unwrap_or(100);
        let given = [
            nodes.is_some(),
            depth.is_some(),
            movetime.is_some(),
            clock.is_some(),
        ]
        .iter()
        .filter(|&&b| b)
        .count();
        if given != 1 {
            return Err(tc.invalid(
                "nodes",
                "exactly one of nodes, depth, movetime_ms, clock",
                format!("{given} of them"),
            ));
        }
        let time_control = if let Some(n) = nodes {
            TimeControl::Nodes(n as u64)
        } else if let Some(d) = depth {
            TimeControl::Depth(d as u32)
        } else if let Some(ms) = movetime {
            TimeControl::MoveTime(Duration::from_millis(ms as u64))
        } else {
            let text = clock.expect("one limit is given");
            TimeControl::parse_clock(&text).ok_or_else(|| {
                tc.invalid(
                    "clock",
                    "\"base+increment\" or \"moves/base+increment\" in seconds, e.g. \"10+0.1\" or \"40/60+0.6\"",
                    format!("\"{text}\""),
                )
            })?
        };
        tc.finish()?;

        let openings = match top.table("openings")? {
            None => None,
            Some(mut o) => {
                let file = o
                    .string("file")?
                    .ok_or_else(|| o.missing("file", "the path of an opening suite or book"))?;
                let format = match o.string("format")? {
                    None => None,
                    Some(f) if ["epd", "pgn", "polyglot"].contains(&f.as_str()) => Some(f),
                    Some(f) => {
                        return Err(o.invalid(
                            "format",
                            "\"epd\", \"pgn\" or \"polyglot\"",
                            format!("\"{f}\""),
                        ))
                    }
                };
                let order = match o.string("order")?.as_deref() {
                    None | Some("random") => OpeningOrder::Random,
                    Some("sequential") => OpeningOrder::Sequential,
                    Some(other) => {
                        return Err(o.invalid(
                            "order",
                            "\"random\" or \"sequential\"",
                            format!("\"{other}\""),
                        ))
                    }
                };
                let plies = o.int("plies", 0, 1000)?.map(|p| p as usize);
                let start = o.int("start", 1, i64::MAX)?.unwrap_or(1) as usize;
                let per_game = o.boolean("per_game")?.unwrap_or(false);
                let random_plies = o.int("random_plies", 0, 100)?.unwrap_or(0) as usize;
                o.finish()?;
                Some(OpeningsConfig {
                    file: PathBuf::from(file),
                    format,
                    order,
                    plies,
                    start,
                    per_game,
                    random_plies,
                })
            }
        };

        let mut adjudication = Adjudication::default();
        if let Some(mut adj) = top.table("adjudication")? {
            if let Some(mut d) = adj.table("draw")? {
                adjudication.draw = Some(DrawAdjudication {
                    move_number: d.int("move_number", 0, 10_000)?.unwrap_or(0) as u32,
                    move_count: d.int("move_count", 1, 10_000)?.unwrap_or(1) as u32,
                    score_cp: d.int("score_cp", 0, 10_000)?.unwrap_or(0) as i32,
                });
                d.finish()?;
            }
            if let Some(mut r) = adj.table("resign")? {
                adjudication.resign = Some(ResignAdjudication {
                    move_count: r.int("move_count", 1, 10_000)?.unwrap_or(3) as u32,
                    score_cp: r
                        .int("score_cp", 1, 100_000)?
                        .ok_or_else(|| r.missing("score_cp", "a positive centipawn score"))?
                        as i32,
                    two_sided: r.boolean("two_sided")?.unwrap_or(false),
                });
                r.finish()?;
            }
            adjudication.max_moves = adj.int("max_moves", 1, 100_000)?.map(|m| m as u32);
            adj.finish()?;
        }

        let sprt = match top.table("sprt")? {
            None => None,
            Some(mut s) => {
                let elo0 = s.float("elo0")?.unwrap_or(0.0);
                let elo1 = s.float("elo1")?.unwrap_or(5.0);
                let alpha = s.float("alpha")?.unwrap_or(0.05);
                let beta = s.float("beta")?.unwrap_or(0.05);
                let model = match s.string("model")? {
                    None => SprtModel::Normalized,
                    Some(m) => m.parse::<SprtModel>().map_err(|_| {
                        s.invalid(
                            "model",
                            "\"normalized\", \"logistic\" or \"bayeselo\"",
                            format!("\"{m}\""),
                        )
                    })?,
                };
                let params = SprtParams::new(elo0, elo1, alpha, beta, model).map_err(|e| {
                    s.invalid(
                        "elo0",
                        "valid SPRT bounds (elo0 < elo1, alpha and beta in (0, 1))",
                        e.to_string(),
                    )
                })?;
                s.finish()?;
                Some(params)
            }
        };

        let mut out = top
            .table("output")?
            .ok_or_else(|| top.missing("output", "an [output] table with `dir`"))?;
        let output = OutputConfig {
            dir: PathBuf::from(
                out.string("dir")?
                    .ok_or_else(|| out.missing("dir", "the output directory"))?,
            ),
            positions: out.boolean("positions")?.unwrap_or(false),
            positions_per_game: out.int("positions_per_game", 1, 10_000)?.unwrap_or(12) as usize,
            rating_interval: out.int("rating_interval", 1, 1_000_000)?.unwrap_or(10) as u32,
        };
        out.finish()?;

        let engines = parse_engines(&mut top, file)?;
        top.finish()?;

        Ok(MatchConfig {
            source: file.to_string(),
            event,
            kind,
            rounds,
            concurrency,
            seed,
            time_control,
            margin: Duration::from_millis(margin_ms as u64),
            timeout: Duration::from_millis(timeout_ms as u64),
            openings,
            adjudication,
            sprt,
            output,
            engines,
        })
    }
}

fn parse_engines(top: &mut Section<'_>, file: &str) -> Result<Vec<EngineConfig>, ConfigError> {
    let list = match top.get("engine") {
        Some(toml::Value::Array(list)) => list,
        Some(other) => return Err(top.invalid("engine", "[[engine]] tables", describe(other))),
        None => return Err(top.missing("engine", "at least two [[engine]] tables")),
    };
    let mut engines = Vec::new();
    for (i, value) in list.iter().enumerate() {
        let path = format!("engine[{i}]");
        let toml::Value::Table(table) = value else {
            return Err(top.invalid(&path, "a table", describe(value)));
        };
        let mut e = Section::at(file, path, table);
        let name = e
            .string("name")?
            .ok_or_else(|| e.missing("name", "the engine's name"))?;
        if name.is_empty() || name.contains(char::is_whitespace) {
            // Log parsers (OpenBench) split result lines on spaces.
            return Err(e.invalid("name", "a name without spaces", format!("\"{name}\"")));
        }
        if engines.iter().any(|x: &EngineConfig| x.name == name) {
            return Err(e.invalid("name", "a name no other engine has", format!("\"{name}\"")));
        }
        let builtin = e.table("builtin")?;
        let uci = e.table("uci")?;
        let kind = match (builtin, uci) {
            (Some(mut b), None) => {
                let kind = EngineKind::Builtin {
                    weights: b.string("weights")?.map(PathBuf::from),
                    hash_mb: b.int("hash_mb", 1, 65_536)?.unwrap_or(16) as usize,
                };
                b.finish()?;
                kind
            }
            (None, Some(mut u)) => {
                let command = u
                    .string("command")?
                    .ok_or_else(|| u.missing("command", "the engine's executable"))?;
                let args = match u.get("args") {
                    None => Vec::new(),
                    Some(toml::Value::Array(a)) => a
                        .iter()
                        .map(|v| match v {
                            toml::Value::String(s) => Ok(s.clone()),
                            other => Err(u.invalid("args", "an array of strings", describe(other))),
                        })
                        .collect::<Result<_, _>>()?,
                    Some(other) => {
                        return Err(u.invalid("args", "an array of strings", describe(other)))
                    }
                };
                let options = match u.get("options") {
                    None => Vec::new(),
                    Some(toml::Value::Table(t)) => t
                        .iter()
                        .map(|(k, v)| {
                            let value = match v {
                                toml::Value::String(s) => s.clone(),
                                toml::Value::Integer(i) => i.to_string(),
                                toml::Value::Float(f) => f.to_string(),
                                toml::Value::Boolean(b) => b.to_string(),
                                other => {
                                    return Err(u.invalid(
                                        &format!("options.{k}"),
                                        "a string, number or boolean",
                                        describe(other),
                                    ))
                                }
                            };
                            Ok((k.clone(), value))
                        })
                        .collect::<Result<_, _>>()?,
                    Some(other) => {
                        return Err(u.invalid(
                            "options",
                            "a table of option values",
                            describe(other),
                        ))
                    }
                };
                let working_dir = u.string("working_dir")?.map(PathBuf::from);
                u.finish()?;
                EngineKind::Uci {
                    command,
                    args,
                    options,
                    working_dir,
                }
            }
            _ => {
                return Err(e.invalid(
                    "builtin",
                    "exactly one of `builtin = { ... }` or `uci = { ... }`",
                    "both or neither".to_string(),
                ))
            }
        };
        e.finish()?;
        engines.push(EngineConfig { name, kind });
    }
    if engines.len() < 2 {
        return Err(top.invalid(
            "engine",
            "at least two [[engine]] tables",
            format!("{}", engines.len()),
        ));
    }
    Ok(engines)
}
