//! The fastchess / cutechess-cli command line (`sparring match -engine ...`, or the binary run
//! under the name `fastchess`, `fastchess-ob` or `cutechess-cli`), turned into the same
//! `MatchConfig` a TOML file gives. The options, their status and the rules for what fastchess
//! has no counterpart of (the output directory) are in docs/command-line-dialect.md.
//!
//! Tokenized by hand: clap cannot express groups like `-engine k=v k=v ... -engine k=v`.

use super::matches::{play, ProgressStyle};
use super::UsageError;
use sparring::arena::config::{
    parse_seconds, Adjudication, DrawAdjudication, EngineConfig, EngineKind, MatchConfig,
    OpeningOrder, OpeningsConfig, OutputConfig, ResignAdjudication, ResultsFormat, TimeControl,
    TournamentKind,
};
use sparring::stats::{SprtModel, SprtParams};
use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Which runner's conventions the command line follows where fastchess and cutechess-cli differ
/// (`-games`, `-rounds` defaults, the results lines).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// fastchess: `-games` is games per round (at most 2, swapped with `-rounds` when larger).
    Fastchess,
    /// cutechess-cli: `-games` is games per encounter, `-rounds` multiplies them.
    Cutechess,
}

/// The version line of `-version`: the fastchess release whose command line and output sparring
/// follows comes first (OpenBench takes the first `N.N.N` it sees and needs at least 1.8.1), then
/// sparring's own name and version. It does not claim to be a fastchess build.
pub const VERSION_LINE: &str = concat!(
    "fastchess-compatible 1.8.1 command line, provided by sparring ",
    env!("CARGO_PKG_VERSION")
);

/// The dialect's flavor when the program was started under a runner's name (a symlink).
pub fn flavor_of_program(argv0: &OsStr) -> Option<Flavor> {
    let stem = Path::new(argv0).file_stem()?.to_str()?;
    match stem {
        "fastchess" | "fastchess-ob" => Some(Flavor::Fastchess),
        "cutechess-cli" => Some(Flavor::Cutechess),
        _ => None,
    }
}

/// Whether `sparring match <first> ...` is the dialect rather than `sparring match CONFIG`:
/// its first argument is a single-dash option (`-engine`), not a `--flag` or clap's `-h`.
pub fn is_dialect_argument(first: &OsStr) -> bool {
    let Some(text) = first.to_str() else {
        return false;
    };
    text.starts_with('-') && !text.starts_with("--") && text != "-h" && text.len() > 1
}

/// What a command line in the dialect asks for.
#[derive(Debug)]
pub enum Request {
    /// `-version`: print `VERSION_LINE`.
    Version,
    /// `-help` (or no arguments): print the usage.
    Help,
    /// Play (or, with `--dump-config`, write) a match.
    Match(Box<DialectMatch>),
}

/// A match the command line describes.
#[derive(Debug)]
pub struct DialectMatch {
    /// The configuration, as a TOML file would give it.
    pub config: MatchConfig,
    /// One line each about an accepted option sparring has no use for.
    pub notes: Vec<String>,
    /// `--dump-config FILE`: write the TOML form there instead of playing.
    pub dump_config: Option<PathBuf>,
    /// `--resume`: continue the run in the output directory.
    pub resume: bool,
    /// `--progress lines|bar|auto` (default lines, as fastchess prints).
    pub progress: ProgressStyle,
}

/// Parses, then prints the version or help, writes the TOML form, or plays the match.
pub fn run(args: &[OsString], flavor: Flavor) -> anyhow::Result<()> {
    let mut texts = Vec::with_capacity(args.len());
    for arg in args {
        match arg.to_str() {
            Some(t) => texts.push(t.to_string()),
            None => {
                return Err(UsageError(format!(
                    "argument {} is not valid UTF-8",
                    arg.to_string_lossy()
                ))
                .into())
            }
        }
    }
    match parse(&texts, flavor)? {
        Request::Version => println!("{VERSION_LINE}"),
        Request::Help => print!("{}", usage(flavor)),
        Request::Match(m) => {
            for note in &m.notes {
                eprintln!("note: {note}");
            }
            if let Some(path) = &m.dump_config {
                super::write_config_dump(&m.config, path)?;
                return Ok(());
            }
            play(&m.config, m.resume, m.progress)?;
        }
    }
    Ok(())
}

/// One option and the tokens after it, up to the next option.
struct Group {
    option: String,
    params: Vec<String>,
}

/// An option starts with `-` and is not a negative number (`-concurrency -2` is allowed).
fn is_option(token: &str) -> bool {
    let mut chars = token.chars();
    chars.next() == Some('-')
        && chars
            .next()
            .is_some_and(|c| !c.is_ascii_digit() && c != '.')
}

fn groups(args: &[String]) -> Result<Vec<Group>, UsageError> {
    let mut groups: Vec<Group> = Vec::new();
    for token in args {
        if is_option(token) {
            groups.push(Group {
                option: token.clone(),
                params: Vec::new(),
            });
        } else {
            match groups.last_mut() {
                Some(g) => g.params.push(token.clone()),
                None => {
                    return Err(UsageError(format!(
                        "expected an option such as -engine, found `{token}`"
                    )))
                }
            }
        }
    }
    Ok(groups)
}

fn usage_error(text: impl Into<String>) -> UsageError {
    UsageError(text.into())
}

impl Group {
    /// The single value of `-rounds 10`.
    fn one(&self) -> Result<&str, UsageError> {
        match self.params.as_slice() {
            [value] => Ok(value),
            [] => Err(usage_error(format!("{} needs a value", self.option))),
            more => Err(usage_error(format!(
                "{} takes one value, found {}: {}",
                self.option,
                more.len(),
                more.join(" ")
            ))),
        }
    }

    /// A flag such as `-recover` takes no value.
    fn none(&self) -> Result<(), UsageError> {
        match self.params.first() {
            None => Ok(()),
            Some(v) => Err(usage_error(format!(
                "{} takes no value, found `{v}`",
                self.option
            ))),
        }
    }

    /// The `key=value` pairs of `-draw movenumber=34 movecount=8`, split at the first `=`.
    fn pairs(&self) -> Result<Vec<(String, String)>, UsageError> {
        self.params.iter().map(|p| pair(&self.option, p)).collect()
    }

    fn number<T: std::str::FromStr>(&self, what: &str) -> Result<T, UsageError> {
        let text = self.one()?;
        text.parse()
            .map_err(|_| usage_error(format!("{} {text}: expected {what}", self.option)))
    }
}

fn pair(option: &str, token: &str) -> Result<(String, String), UsageError> {
    match token.split_once('=') {
        Some((k, v)) if !k.is_empty() && !v.is_empty() => Ok((k.to_string(), v.to_string())),
        Some(_) => Err(usage_error(format!(
            "{option} {token}: a key and a non-empty value are needed (key=value)"
        ))),
        None => Err(usage_error(format!("{option} {token}: expected key=value"))),
    }
}

fn bad(option: &str, key: &str, value: &str, expected: &str) -> UsageError {
    usage_error(format!("{option} {key}={value}: expected {expected}"))
}

fn boolean(option: &str, key: &str, value: &str) -> Result<bool, UsageError> {
    match value {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(bad(option, key, value, "true or false")),
    }
}

/// fastchess options sparring does not implement: refused by name.
const NOT_IMPLEMENTED: &[&str] = &[
    "-epdout",
    "-noswap",
    "-reverse",
    "-wait",
    "-force-concurrency",
    "-startup-ms",
    "-ucinewgame-ms",
    "-ping-ms",
    "-tb",
    "-tbpieces",
    "-tbignore50",
    "-tbadjudicate",
    "-seeds",
    "-debug",
    "-outcomeinterval",
    "-resultformat",
    "-bookmode",
    "-engines",
    "-pgnin",
];

/// The keys an `-engine` or `-each` group may hold (besides `option.X`).
const ENGINE_KEYS: &[&str] = &[
    "cmd",
    "name",
    "dir",
    "args",
    "proto",
    "tc",
    "st",
    "nodes",
    "plies",
    "depth",
    "timemargin",
    "restart",
    "weights",
    "hash",
];

/// cutechess-cli engine keys with no counterpart in sparring.
const ENGINE_KEYS_NOT_IMPLEMENTED: &[&str] = &[
    "conf",
    "stderr",
    "arg",
    "initstr",
    "trust",
    "book",
    "bookdepth",
    "whitepov",
    "ponder",
    "tscale",
    "debug",
];

/// One `-engine` (or the merged `-each`) as written.
#[derive(Clone, Debug, Default)]
struct EngineSpec {
    /// `-engine builtin ...` (or `cmd=builtin`).
    builtin: bool,
    keys: BTreeMap<String, String>,
    /// `option.X=V` in order; a later value for the same name wins.
    options: Vec<(String, String)>,
}

impl EngineSpec {
    fn add(&mut self, option: &str, token: &str) -> Result<(), UsageError> {
        if token == "builtin" {
            self.builtin = true;
            return Ok(());
        }
        let (key, value) = pair(option, token)?;
        if let Some(name) = key.strip_prefix("option.") {
            if name.is_empty() {
                return Err(usage_error(format!(
                    "{option} {token}: the option name is empty"
                )));
            }
            self.options.push((name.to_string(), value));
        } else if ENGINE_KEYS.contains(&key.as_str()) {
            self.keys.insert(key, value);
        } else if ENGINE_KEYS_NOT_IMPLEMENTED.contains(&key.as_str()) {
            return Err(usage_error(format!(
                "{option} {token}: the cutechess-cli engine key `{key}` is not implemented by sparring"
            )));
        } else {
            return Err(usage_error(format!(
                "{option} {token}: unknown engine key `{key}` (known: {}, option.NAME)",
                ENGINE_KEYS.join(", ")
            )));
        }
        Ok(())
    }

    /// fastchess applies `-each` after the whole line: its keys override the engine's own.
    fn merge_each(&mut self, each: &EngineSpec) {
        self.builtin |= each.builtin;
        for (k, v) in &each.keys {
            self.keys.insert(k.clone(), v.clone());
        }
        self.options.extend(each.options.iter().cloned());
    }
}

/// The global settings collected while reading the line.
#[derive(Default)]
struct Settings {
    engines: Vec<EngineSpec>,
    each: EngineSpec,
    rounds: Option<u64>,
    games: Option<u64>,
    repeat: bool,
    concurrency: Option<i64>,
    seed: Option<u64>,
    draw: Option<DrawAdjudication>,
    resign: Option<ResignAdjudication>,
    max_moves: Option<u32>,
    sprt: Option<SprtParams>,
    openings: Option<OpeningsConfig>,
    pgn_file: Option<String>,
    pgn_append: Option<bool>,
    rating_interval: Option<u32>,
    report_penta: Option<bool>,
    format: Option<ResultsFormat>,
    engine_log: Option<PathBuf>,
    strict: bool,
    event: Option<String>,
    site: Option<String>,
    kind: Option<TournamentKind>,
    config_file: Option<PathBuf>,
    notes: Vec<String>,
    dump_config: Option<PathBuf>,
    resume: bool,
    progress: Option<ProgressStyle>,
}

/// Parses the dialect's arguments (without the program name).
pub fn parse(args: &[String], flavor: Flavor) -> Result<Request, UsageError> {
    if args.is_empty() {
        return Ok(Request::Help);
    }
    let mut s = Settings::default();
    let mut match_options = 0usize;
    for g in groups(args)? {
        let option = g.option.as_str();
        if !matches!(
            option,
            "--dump-config" | "--resume" | "--progress" | "-config"
        ) {
            match_options += 1;
        }
        match option {
            "-version" | "--version" | "-v" | "--v" => return Ok(Request::Version),
            "-help" | "--help" => return Ok(Request::Help),
            "--dump-config" => s.dump_config = Some(PathBuf::from(g.one()?)),
            "--resume" => {
                g.none()?;
                s.resume = true;
            }
            "--progress" => {
                s.progress = Some(match g.one()? {
                    "lines" => ProgressStyle::Lines,
                    "bar" => ProgressStyle::Bar,
                    "auto" => ProgressStyle::Auto,
                    other => {
                        return Err(usage_error(format!(
                            "--progress {other}: expected lines, bar or auto"
                        )))
                    }
                })
            }
            "-engine" => {
                let mut spec = EngineSpec::default();
                for p in &g.params {
                    spec.add(option, p)?;
                }
                s.engines.push(spec);
            }
            "-each" => {
                for p in &g.params {
                    s.each.add(option, p)?;
                }
            }
            "-variant" => match g.one()? {
                "standard" => {}
                "fischerandom" => {
                    return Err(usage_error(
                        "-variant fischerandom: Chess960 arrives with issue 13; sparring plays standard chess for now",
                    ))
                }
                other => {
                    return Err(usage_error(format!(
                        "-variant {other}: sparring plays `standard` only"
                    )))
                }
            },
            "-rounds" => s.rounds = Some(positive(&g)?),
            "-games" => s.games = Some(positive(&g)?),
            "-repeat" => {
                s.repeat = true;
                if !g.params.is_empty() {
                    s.games = Some(positive(&g)?);
                }
            }
            "-concurrency" => s.concurrency = Some(g.number("an integer")?),
            "-srand" => s.seed = Some(g.number("an integer from 0 to 18446744073709551615")?),
            "-draw" => s.draw = Some(draw(&g)?),
            "-resign" => s.resign = Some(resign(&g)?),
            "-maxmoves" => {
                let m: u32 = g.number("a positive number of moves")?;
                if m == 0 || m > 100_000 {
                    return Err(usage_error(format!(
                        "-maxmoves {m}: expected 1 to 100000 moves"
                    )));
                }
                s.max_moves = Some(m);
            }
            "-sprt" => s.sprt = Some(sprt(&g)?),
            "-openings" => s.openings = Some(openings(&g)?),
            "-pgnout" => pgnout(&g, &mut s)?,
            "-recover" => g.none()?,
            "-ratinginterval" => {
                let n: u32 = g.number("a number of game pairs (0: only at the end)")?;
                // 0 is fastchess's "only at the end": more pairs than any run plays.
                s.rating_interval = Some(if n == 0 { 1_000_000 } else { n.min(1_000_000) });
            }
            "-scoreinterval" => {
                let _: u32 = g.number("a number of games")?;
                s.notes.push(
                    "-scoreinterval: sparring has no separate score-line interval; accepted and not used"
                        .to_string(),
                );
            }
            "-autosaveinterval" => {
                let _: u32 = g.number("a number of games")?;
                s.notes.push(
                    "-autosaveinterval: sparring records every finished game in games.csv (continue a run with --resume); accepted and not used"
                        .to_string(),
                );
            }
            "-report" => {
                for (k, v) in g.pairs()? {
                    match k.as_str() {
                        "penta" => s.report_penta = Some(boolean(option, &k, &v)?),
                        _ => return Err(bad(option, &k, &v, "the key penta")),
                    }
                }
            }
            "-output" => {
                for (k, v) in g.pairs()? {
                    match (k.as_str(), v.as_str()) {
                        ("format", "fastchess") => s.format = Some(ResultsFormat::Fastchess),
                        ("format", "cutechess") => s.format = Some(ResultsFormat::Cutechess),
                        ("format", _) => {
                            return Err(bad(option, &k, &v, "fastchess or cutechess"))
                        }
                        _ => return Err(bad(option, &k, &v, "the key format")),
                    }
                }
            }
            "-log" => log(&g, &mut s)?,
            "-strict" => {
                g.none()?;
                s.strict = true;
            }
            "-config" => config_option(&g, &mut s)?,
            "-event" => s.event = Some(free_text(&g)?),
            "-site" => s.site = Some(free_text(&g)?),
            "-tournament" => {
                s.kind = Some(match g.one()? {
                    "gauntlet" => TournamentKind::Gauntlet,
                    "roundrobin" | "round-robin" => TournamentKind::RoundRobin,
                    other => {
                        return Err(usage_error(format!(
                            "-tournament {other}: expected gauntlet or roundrobin"
                        )))
                    }
                })
            }
            "-testEnv" => {
                g.none()?;
                s.notes.push(
                    "-testEnv: sparring's warnings are always one line each; accepted".to_string(),
                );
            }
            "-crc32" => {
                for (k, v) in g.pairs()? {
                    match k.as_str() {
                        "pgn" => {
                            boolean(option, &k, &v)?;
                        }
                        _ => return Err(bad(option, &k, &v, "the key pgn")),
                    }
                }
                s.notes.push(
                    "-crc32: sparring prints no CRC32 lines for the PGN file; accepted and not used"
                        .to_string(),
                );
            }
            "-check-mate-pvs" => {
                g.none()?;
                s.notes.push(
                    "-check-mate-pvs: sparring does not check mating PVs; accepted and not used"
                        .to_string(),
                );
            }
            "-use-affinity" => s.notes.push(
                "-use-affinity: sparring does not pin engines to CPUs; accepted and not used"
                    .to_string(),
            ),
            "-show-latency" => {
                g.none()?;
                s.notes.push(
                    "-show-latency: sparring does not log engine latency; accepted and not used"
                        .to_string(),
                );
            }
            "-quick" => quick(&g, &mut s)?,
            _ if NOT_IMPLEMENTED.contains(&option) => {
                return Err(usage_error(format!(
                    "{option}: this fastchess/cutechess-cli option is not implemented by sparring"
                )))
            }
            _ => {
                return Err(usage_error(format!(
                    "{option}: unknown option (see `sparring match -help`)"
                )))
            }
        }
    }
    if let Some(file) = &s.config_file {
        if match_options > 0 {
            return Err(usage_error(format!(
                "-config file={}: the file holds the whole match; give the other settings in it",
                file.display()
            )));
        }
        let config = MatchConfig::load(file).map_err(|e| usage_error(e.to_string()))?;
        return Ok(Request::Match(Box::new(DialectMatch {
            config,
            notes: s.notes,
            dump_config: s.dump_config,
            resume: s.resume,
            progress: s.progress.unwrap_or(ProgressStyle::Lines),
        })));
    }
    let config = build(&mut s, flavor)?;
    Ok(Request::Match(Box::new(DialectMatch {
        config,
        notes: s.notes,
        dump_config: s.dump_config,
        resume: s.resume,
        progress: s.progress.unwrap_or(ProgressStyle::Lines),
    })))
}

fn positive(g: &Group) -> Result<u64, UsageError> {
    let n: u64 = g.number("a positive integer")?;
    if n == 0 {
        return Err(usage_error(format!("{} 0: expected at least 1", g.option)));
    }
    Ok(n)
}

/// fastchess joins the tokens of `-event`/`-site` with nothing between them; one argument (as
/// the workers pass) is kept as it is.
fn free_text(g: &Group) -> Result<String, UsageError> {
    let text = g.params.concat();
    if text.is_empty() {
        return Err(usage_error(format!("{} needs a value", g.option)));
    }
    if text.chars().any(char::is_control) {
        return Err(usage_error(format!(
            "{} {text:?}: control characters are not allowed",
            g.option
        )));
    }
    Ok(text)
}

fn draw(g: &Group) -> Result<DrawAdjudication, UsageError> {
    let o = g.option.as_str();
    let mut d = DrawAdjudication {
        move_number: 0,
        move_count: 1,
        score_cp: 0,
    };
    for (k, v) in g.pairs()? {
        match k.as_str() {
            "movenumber" => d.move_number = bounded(o, &k, &v, 0, 10_000)? as u32,
            "movecount" => d.move_count = bounded(o, &k, &v, 1, 10_000)? as u32,
            "score" => d.score_cp = bounded(o, &k, &v, 0, 10_000)? as i32,
            _ => return Err(bad(o, &k, &v, "one of movenumber, movecount, score")),
        }
    }
    Ok(d)
}

fn resign(g: &Group) -> Result<ResignAdjudication, UsageError> {
    let o = g.option.as_str();
    let mut r = ResignAdjudication {
        move_count: 1,
        score_cp: 0,
        two_sided: false,
    };
    for (k, v) in g.pairs()? {
        match k.as_str() {
            "movecount" => r.move_count = bounded(o, &k, &v, 1, 10_000)? as u32,
            "score" => r.score_cp = bounded(o, &k, &v, 1, 100_000)? as i32,
            "twosided" => r.two_sided = boolean(o, &k, &v)?,
            _ => return Err(bad(o, &k, &v, "one of movecount, score, twosided")),
        }
    }
    if r.score_cp == 0 {
        return Err(usage_error(
            "-resign: score= is needed (a positive number of centipawns)",
        ));
    }
    Ok(r)
}

fn bounded(option: &str, key: &str, value: &str, min: i64, max: i64) -> Result<i64, UsageError> {
    value
        .parse::<i64>()
        .ok()
        .filter(|n| (min..=max).contains(n))
        .ok_or_else(|| {
            bad(
                option,
                key,
                value,
                &format!("an integer from {min} to {max}"),
            )
        })
}

fn sprt(g: &Group) -> Result<SprtParams, UsageError> {
    let o = g.option.as_str();
    let (mut elo0, mut elo1, mut alpha, mut beta) = (None, None, 0.05, 0.05);
    let mut model = SprtModel::Normalized;
    for (k, v) in g.pairs()? {
        let number = || -> Result<f64, UsageError> {
            v.parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| bad(o, &k, &v, "a number"))
        };
        match k.as_str() {
            "elo0" => elo0 = Some(number()?),
            "elo1" => elo1 = Some(number()?),
            "alpha" => alpha = number()?,
            "beta" => beta = number()?,
            "model" => {
                model = v
                    .parse()
                    .map_err(|_| bad(o, &k, &v, "normalized, logistic or bayesian"))?
            }
            _ => return Err(bad(o, &k, &v, "one of elo0, elo1, alpha, beta, model")),
        }
    }
    let (Some(elo0), Some(elo1)) = (elo0, elo1) else {
        return Err(usage_error("-sprt: elo0= and elo1= are needed"));
    };
    SprtParams::new(elo0, elo1, alpha, beta, model).map_err(|e| {
        usage_error(format!(
            "-sprt elo0={elo0} elo1={elo1} alpha={alpha} beta={beta}: {e}"
        ))
    })
}

fn openings(g: &Group) -> Result<OpeningsConfig, UsageError> {
    let o = g.option.as_str();
    let mut file = None;
    let mut config = OpeningsConfig {
        file: PathBuf::new(),
        format: None,
        // fastchess's default order is the file's.
        order: OpeningOrder::Sequential,
        plies: None,
        start: 1,
        per_game: false,
        random_plies: 0,
    };
    for (k, v) in g.pairs()? {
        match k.as_str() {
            "file" => file = Some(PathBuf::from(&v)),
            "format" => match v.as_str() {
                "epd" | "pgn" => config.format = Some(v.clone()),
                _ => return Err(bad(o, &k, &v, "epd or pgn")),
            },
            "order" => {
                config.order = match v.as_str() {
                    "random" => OpeningOrder::Random,
                    "sequential" => OpeningOrder::Sequential,
                    _ => return Err(bad(o, &k, &v, "random or sequential")),
                }
            }
            "plies" => config.plies = Some(bounded(o, &k, &v, 0, 1000)? as usize),
            "start" => config.start = bounded(o, &k, &v, 1, i64::MAX)? as usize,
            "policy" => {
                if v != "round" {
                    return Err(bad(o, &k, &v, "round (the only policy sparring plays)"));
                }
            }
            _ => {
                return Err(bad(
                    o,
                    &k,
                    &v,
                    "one of file, format, order, plies, start, policy",
                ))
            }
        }
    }
    config.file = file.ok_or_else(|| usage_error("-openings: file= is needed"))?;
    Ok(config)
}

fn pgnout(g: &Group, s: &mut Settings) -> Result<(), UsageError> {
    let o = g.option.as_str();
    let mut unused = Vec::new();
    for token in &g.params {
        // cutechess-cli names the file without a key; `fi` (finished games only) is what
        // sparring writes anyway.
        if !token.contains('=') {
            match token.as_str() {
                "fi" => {}
                "min" => {
                    return Err(usage_error(
                        "-pgnout min: minimal PGN output is not implemented by sparring",
                    ))
                }
                _ if s.pgn_file.is_none() => s.pgn_file = Some(token.clone()),
                _ => return Err(usage_error(format!("-pgnout {token}: expected key=value"))),
            }
            continue;
        }
        let (k, v) = pair(o, token)?;
        match k.as_str() {
            "file" => s.pgn_file = Some(v),
            "append" => s.pgn_append = Some(boolean(o, &k, &v)?),
            "notation" => {
                if v != "san" {
                    return Err(bad(o, &k, &v, "san (the only notation sparring writes)"));
                }
            }
            "min" => {
                if boolean(o, &k, &v)? {
                    return Err(usage_error(
                        "-pgnout min=true: minimal PGN output is not implemented by sparring",
                    ));
                }
            }
            "nodes" | "seldepth" | "nps" | "hashfull" | "tbhits" | "pv" | "timeleft"
            | "latency" => {
                if boolean(o, &k, &v)? {
                    unused.push(format!("{k}=true"));
                }
            }
            "match_line" => unused.push("match_line".to_string()),
            _ => {
                return Err(bad(
                    o,
                    &k,
                    &v,
                    "one of file, append, notation, min, nodes, seldepth, nps, hashfull, tbhits, pv, timeleft, latency, match_line",
                ))
            }
        }
    }
    if !unused.is_empty() {
        s.notes.push(format!(
            "-pgnout {}: sparring's move comments hold score, depth and time only; accepted and not written",
            unused.join(" ")
        ));
    }
    Ok(())
}

fn log(g: &Group, s: &mut Settings) -> Result<(), UsageError> {
    let o = g.option.as_str();
    let mut unused = Vec::new();
    for (k, v) in g.pairs()? {
        match k.as_str() {
            "file" => s.engine_log = Some(PathBuf::from(&v)),
            "level" => {
                if !matches!(v.as_str(), "trace" | "info" | "warn" | "err" | "fatal") {
                    return Err(bad(o, &k, &v, "trace, info, warn, err or fatal"));
                }
                unused.push(format!("level={v}"));
            }
            "engine" => {
                if !boolean(o, &k, &v)? {
                    unused.push("engine=false".to_string());
                }
            }
            "append" | "realtime" => {
                boolean(o, &k, &v)?;
                unused.push(format!("{k}={v}"));
            }
            "compress" => {
                if boolean(o, &k, &v)? {
                    return Err(usage_error(
                        "-log compress=true: compressed logs are not implemented by sparring",
                    ));
                }
            }
            _ => {
                return Err(bad(
                    o,
                    &k,
                    &v,
                    "one of file, level, engine, append, realtime, compress",
                ))
            }
        }
    }
    if s.engine_log.is_none() {
        return Err(usage_error("-log: file= is needed"));
    }
    if !unused.is_empty() {
        s.notes.push(format!(
            "-log {}: sparring's log always holds every engine's traffic and standard error; accepted and not used",
            unused.join(" ")
        ));
    }
    Ok(())
}

fn config_option(g: &Group, s: &mut Settings) -> Result<(), UsageError> {
    let o = g.option.as_str();
    for (k, v) in g.pairs()? {
        match k.as_str() {
            "file" => {
                if !v.ends_with(".toml") {
                    return Err(bad(
                        o,
                        &k,
                        &v,
                        "a sparring TOML match configuration (fastchess's config.json is not read)",
                    ));
                }
                s.config_file = Some(PathBuf::from(&v));
            }
            "discard" | "stats" => {
                boolean(o, &k, &v)?;
                s.notes.push(format!(
                    "-config {k}={v}: a sparring run keeps its results in its output directory (continue with --resume); accepted and not used"
                ));
            }
            _ => return Err(bad(o, &k, &v, "one of file, discard, stats")),
        }
    }
    if s.config_file.is_none() {
        return Err(usage_error("-config: file= is needed"));
    }
    Ok(())
}

/// `-quick cmd=A cmd=B book=FILE`: fastchess's preset (10+0.1, 25000 rounds, draw adjudication,
/// random openings, cutechess output).
fn quick(g: &Group, s: &mut Settings) -> Result<(), UsageError> {
    let o = g.option.as_str();
    let mut cmds = Vec::new();
    let mut book = None;
    for (k, v) in g.pairs()? {
        match k.as_str() {
            "cmd" => cmds.push(v),
            "book" => book = Some(v),
            _ => return Err(bad(o, &k, &v, "cmd= (twice) and book=")),
        }
    }
    let (Some(book), [first, second]) = (book, cmds.as_slice()) else {
        return Err(usage_error(
            "-quick: exactly two cmd= and one book= are needed",
        ));
    };
    for cmd in [first, second] {
        let mut spec = EngineSpec::default();
        spec.keys.insert("cmd".into(), cmd.clone());
        spec.keys.insert("tc".into(), "10+0.1".into());
        s.engines.push(spec);
    }
    s.rounds = Some(25_000);
    s.games = Some(2);
    s.concurrency = Some(-2);
    s.draw = Some(DrawAdjudication {
        move_number: 30,
        move_count: 8,
        score_cp: 8,
    });
    let format = if book.ends_with(".pgn") { "pgn" } else { "epd" };
    s.openings = Some(OpeningsConfig {
        file: PathBuf::from(book),
        format: Some(format.to_string()),
        order: OpeningOrder::Random,
        plies: None,
        start: 1,
        per_game: false,
        random_plies: 0,
    });
    s.format = Some(ResultsFormat::Cutechess);
    Ok(())
}

/// One engine's limit and margin, checked; `label` names the engine in messages.
fn engine_limit(
    spec: &EngineSpec,
    label: &str,
) -> Result<(TimeControl, Option<Duration>), UsageError> {
    let get = |k: &str| spec.keys.get(k).map(String::as_str);
    let err = |k: &str, v: &str, expected: &str| {
        usage_error(format!("{label}: {k}={v}: expected {expected}"))
    };
    let clock = match get("tc") {
        Some(v) => parse_tc(v).map_err(|e| err("tc", v, &e))?,
        None => None,
    };
    let movetime = match get("st") {
        Some(v) => {
            let d = parse_seconds(v)
                .filter(|d| *d >= Duration::from_millis(1) && *d <= Duration::from_secs(86_400))
                .ok_or_else(|| err("st", v, "seconds per move, from 0.001 to 86400"))?;
            // Rounded to the millisecond: `go movetime` takes milliseconds.
            let ms = (d.as_nanos() + 500_000) / 1_000_000;
            Some(TimeControl::MoveTime(Duration::from_millis(ms as u64)))
        }
        None => None,
    };
    let nodes = match get("nodes") {
        Some(v) => Some(TimeControl::Nodes(
            v.parse::<u64>()
                .ok()
                .filter(|n| (1..=i64::MAX as u64).contains(n))
                .ok_or_else(|| err("nodes", v, "a positive number of nodes"))?,
        )),
        None => None,
    };
    let depth_key = if get("depth").is_some() {
        "depth"
    } else {
        "plies"
    };
    let depth = match get(depth_key) {
        Some(v) => Some(TimeControl::Depth(
            v.parse::<u32>()
                .ok()
                .filter(|d| (1..=127).contains(d))
                .ok_or_else(|| err(depth_key, v, "a depth from 1 to 127 plies"))?,
        )),
        None => None,
    };
    if clock.is_some() && movetime.is_some() {
        return Err(usage_error(format!(
            "{label}: tc= and st= cannot be used together"
        )));
    }
    let given: Vec<(&str, TimeControl)> = [
        ("tc", clock),
        ("st", movetime),
        ("nodes", nodes),
        (depth_key, depth),
    ]
    .into_iter()
    .filter_map(|(k, tc)| tc.map(|tc| (k, tc)))
    .collect();
    let limit = match given.as_slice() {
        [] => {
            return Err(usage_error(format!(
                "{label}: no time control: give tc=, st=, nodes= or depth="
            )))
        }
        [(_, tc)] => tc.clone(),
        [(a, _), (b, _), ..] => {
            return Err(usage_error(format!(
                "{label}: {a}= and {b}= together: sparring plays one limit per engine (use tc=inf with nodes= or depth=)"
            )))
        }
    };
    let margin = match get("timemargin") {
        Some(v) => Some(Duration::from_millis(
            bounded(label, "timemargin", v, 0, 3_600_000)? as u64,
        )),
        None => None,
    };
    Ok((limit, margin))
}

/// A fastchess `tc`: `[moves/]time[+inc]` in seconds, time may be `min:sec`, numbers may end in
/// `s`; `inf` is no clock (None).
fn parse_tc(text: &str) -> Result<Option<TimeControl>, String> {
    const EXPECTED: &str = "[moves/]seconds[+increment], e.g. 10+0.1, 40/60+0.6, 1:30+1, or inf";
    if text == "inf" || text == "infinite" {
        return Ok(None);
    }
    if text.contains("hg") {
        return Err("a clock without hourglass (hg is not implemented by sparring)".into());
    }
    let (moves, rest) = match text.split_once('/') {
        Some(("inf", rest)) => (None, rest),
        Some((m, rest)) => (
            Some(m.parse::<u32>().ok().filter(|&m| m > 0).ok_or(EXPECTED)?),
            rest,
        ),
        None => (None, text),
    };
    let (base, increment) = rest.split_once('+').unwrap_or((rest, "0"));
    let seconds = |t: &str| -> Option<Duration> {
        let t = t.strip_suffix('s').unwrap_or(t);
        match t.split_once(':') {
            Some((min, sec)) => {
                let min: u64 = min.parse().ok()?;
                Some(Duration::from_secs(min.checked_mul(60)?) + parse_seconds(sec)?)
            }
            None => parse_seconds(t),
        }
    };
    let base = seconds(base).ok_or(EXPECTED)?;
    let increment = seconds(increment).ok_or(EXPECTED)?;
    if base.is_zero() {
        return Err(format!("{EXPECTED} (with more than 0 seconds)"));
    }
    Ok(Some(TimeControl::Clock {
        moves,
        base,
        increment,
    }))
}

/// The executable fastchess runs: `dir/cmd` (an absolute `cmd` stays), made absolute because
/// the engine then starts inside `dir`.
fn resolve_command(cmd: &str, dir: Option<&str>) -> Result<String, UsageError> {
    let Some(dir) = dir else {
        return Ok(cmd.to_string());
    };
    let joined = Path::new(dir).join(cmd);
    let absolute = std::path::absolute(&joined)
        .map_err(|e| usage_error(format!("dir={dir} cmd={cmd}: cannot resolve the path: {e}")))?;
    Ok(absolute.to_string_lossy().into_owned())
}

/// Splits `args="a 'b c'"` the way a POSIX shell splits words (quotes and backslashes).
fn shell_words(text: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err("an unclosed ' quote".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err("an unclosed \" quote".into()),
                        },
                        Some(c) => word.push(c),
                        None => return Err("an unclosed \" quote".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(c) => word.push(c),
                    None => return Err("a backslash at the end".into()),
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

/// One engine of the line, checked; `index` is 1-based.
fn engine(spec: &EngineSpec, index: usize) -> Result<(EngineConfig, Option<Duration>), UsageError> {
    let get = |k: &str| spec.keys.get(k).map(String::as_str);
    let label = match get("name") {
        Some(name) => format!("-engine #{index} (name={name})"),
        None => format!("-engine #{index}"),
    };
    let (limit, margin) = engine_limit(spec, &label)?;
    if let Some(proto) = get("proto") {
        if proto != "uci" {
            return Err(usage_error(format!(
                "{label}: proto={proto}: sparring speaks UCI only (proto=uci)"
            )));
        }
    }
    if let Some(restart) = get("restart") {
        if restart != "off" {
            return Err(usage_error(format!(
                "{label}: restart={restart}: a new engine process for every game is not implemented by sparring (restart=off)"
            )));
        }
    }
    let mut options: BTreeMap<String, String> = BTreeMap::new();
    for (name, value) in &spec.options {
        if name.chars().any(char::is_control) || value.chars().any(char::is_control) {
            return Err(usage_error(format!(
                "{label}: option.{name}={value:?}: control characters are not allowed"
            )));
        }
        options.insert(name.clone(), value.clone());
    }
    let builtin = spec.builtin || get("cmd") == Some("builtin");
    let (kind, default_name) = if builtin {
        for key in ["args"] {
            if let Some(v) = get(key) {
                return Err(usage_error(format!(
                    "{label}: {key}={v}: the built-in engine takes no {key}= (run `sparring uci` as cmd= for that)"
                )));
            }
        }
        let mut hash_mb = 16usize;
        let mut weights = None;
        for (name, value) in &options {
            match name.as_str() {
                "Hash" => hash_mb = bounded(&label, "option.Hash", value, 1, 65_536)? as usize,
                "Threads" if value == "1" => {}
                "Threads" => {
                    return Err(usage_error(format!(
                        "{label}: option.Threads={value}: the built-in engine searches with one thread"
                    )))
                }
                "Weights" => weights = Some(value.clone()),
                _ => {
                    return Err(usage_error(format!(
                        "{label}: option.{name}={value}: the built-in engine takes Hash, Threads=1 and Weights here (run `sparring uci` as cmd= for other options)"
                    )))
                }
            }
        }
        if let Some(h) = get("hash") {
            hash_mb = bounded(&label, "hash", h, 1, 65_536)? as usize;
        }
        if let Some(w) = get("weights") {
            weights = Some(w.to_string());
        }
        let weights = weights.map(|w| match get("dir") {
            Some(dir) => Path::new(dir).join(w),
            None => PathBuf::from(w),
        });
        (
            EngineKind::Builtin { weights, hash_mb },
            "sparring".to_string(),
        )
    } else {
        for key in ["weights", "hash"] {
            if let Some(v) = get(key) {
                return Err(usage_error(format!(
                    "{label}: {key}={v}: only the built-in engine takes {key}= (use option.{} for a UCI engine)",
                    if key == "hash" { "Hash" } else { "EvalFile" }
                )));
            }
        }
        let cmd = get("cmd").ok_or_else(|| usage_error(format!("{label}: cmd= is needed")))?;
        let args = match get("args") {
            Some(a) => {
                shell_words(a).map_err(|e| usage_error(format!("{label}: args={a}: {e}")))?
            }
            None => Vec::new(),
        };
        let default_name = Path::new(cmd)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| cmd.to_string());
        (
            EngineKind::Uci {
                command: resolve_command(cmd, get("dir"))?,
                args,
                options: options.into_iter().collect(),
                working_dir: get("dir").map(PathBuf::from),
            },
            default_name,
        )
    };
    let name = get("name").map_or(default_name, str::to_string);
    if name.trim().is_empty() || name.chars().any(char::is_control) {
        return Err(usage_error(format!(
            "{label}: name={name:?}: expected a non-blank name without control characters"
        )));
    }
    Ok((
        EngineConfig {
            name,
            kind,
            time_control: Some(limit),
        },
        margin,
    ))
}

/// The output directory when fastchess would write no PGN: `sparring_<UTC date>_<time>_<pid>`.
fn default_output_dir() -> PathBuf {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let days = (secs / 86_400) as i64;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let t = secs % 86_400;
    PathBuf::from(format!(
        "sparring_{year:04}{month:02}{day:02}_{:02}{:02}{:02}_{}",
        t / 3600,
        t / 60 % 60,
        t % 60,
        std::process::id()
    ))
}

/// The output directory and PGN name: beside `-pgnout file=DIR/NAME.pgn` sparring keeps its other
/// records in `DIR/NAME.pgn.sparring/`, whose `pgn_name` `../NAME.pgn` is the file fastchess
/// would write.
fn output_location(s: &Settings) -> Result<(PathBuf, String), UsageError> {
    let Some(file) = &s.pgn_file else {
        return Ok((default_output_dir(), "games.pgn".to_string()));
    };
    let path = Path::new(file);
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| usage_error(format!("-pgnout file={file}: expected a file name")))?;
    if path.is_dir() {
        return Err(usage_error(format!(
            "-pgnout file={file}: is a directory, expected a file"
        )));
    }
    let has_games = std::fs::metadata(path).is_ok_and(|m| m.len() > 0);
    if has_games && !s.resume && s.pgn_append != Some(false) {
        return Err(usage_error(format!(
            "-pgnout file={file}: the file already holds games and sparring does not append to a PGN file: pass append=false to replace it, choose another file, or continue its run with --resume"
        )));
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Ok((
        parent.join(format!("{name}.sparring")),
        format!("../{name}"),
    ))
}

/// fastchess's game count rules turned into sparring's colour-reversed pairs: (pairs per
/// pairing, whether every game takes its own opening).
fn schedule(s: &Settings, flavor: Flavor) -> Result<(u32, bool), UsageError> {
    let (pairs, per_game) = match flavor {
        Flavor::Fastchess => {
            let mut rounds = s.rounds.unwrap_or(2);
            let mut games = s.games.unwrap_or(2);
            if games > 2 {
                std::mem::swap(&mut rounds, &mut games);
            }
            match games {
                2 => (rounds, false),
                1 if rounds % 2 == 0 => (rounds / 2, true),
                1 => {
                    return Err(usage_error(format!(
                        "-games 1 -rounds {rounds}: sparring plays games in pairs of alternating colours, so -rounds must be even with -games 1"
                    )))
                }
                _ => {
                    return Err(usage_error(format!(
                        "-games {} -rounds {}: at most 2 games per round (fastchess swaps -games and -rounds when -games is larger)",
                        s.games.unwrap_or(2),
                        s.rounds.unwrap_or(2)
                    )))
                }
            }
        }
        Flavor::Cutechess => {
            let total = s.games.unwrap_or(1).saturating_mul(s.rounds.unwrap_or(1));
            if total % 2 != 0 {
                return Err(usage_error(format!(
                    "-games {} -rounds {}: sparring plays games in colour-reversed pairs, so games x rounds must be even",
                    s.games.unwrap_or(1),
                    s.rounds.unwrap_or(1)
                )));
            }
            (total / 2, !s.repeat)
        }
    };
    let pairs = u32::try_from(pairs)
        .ok()
        .filter(|p| (1..=100_000_000).contains(p))
        .ok_or_else(|| {
            usage_error(format!(
                "-rounds {}: at most 100000000 game pairs",
                s.rounds.unwrap_or(0)
            ))
        })?;
    Ok((pairs, per_game))
}

fn build(s: &mut Settings, flavor: Flavor) -> Result<MatchConfig, UsageError> {
    if s.engines.len() < 2 {
        return Err(usage_error(format!(
            "at least two -engine options are needed, found {}",
            s.engines.len()
        )));
    }
    let mut engines: Vec<EngineConfig> = Vec::new();
    let mut margins = Vec::new();
    for (i, spec) in s.engines.iter().enumerate() {
        let mut spec = spec.clone();
        spec.merge_each(&s.each);
        let (mut engine, margin) = engine(&spec, i + 1)?;
        // Engines with the same name become name_2, name_3 (as in fastchess).
        if engines.iter().any(|e| e.name == engine.name) {
            let base = engine.name.clone();
            let mut n = 2;
            while engines.iter().any(|e| e.name == format!("{base}_{n}")) {
                n += 1;
            }
            engine.name = format!("{base}_{n}");
        }
        engines.push(engine);
        margins.push(margin);
    }
    let margin = match margins.iter().flatten().collect::<Vec<_>>().as_slice() {
        [] => Duration::from_millis(100),
        [first, rest @ ..] => {
            if rest.iter().any(|m| m != first) {
                return Err(usage_error(
                    "timemargin=: every engine needs the same margin in sparring (give it once with -each)",
                ));
            }
            **first
        }
    };
    // One limit for all engines is the match's; different limits stay with their engines.
    let first = engines[0]
        .time_control
        .clone()
        .expect("every engine has a limit");
    let time_control = first.clone();
    if engines
        .iter()
        .all(|e| e.time_control.as_ref() == Some(&first))
    {
        for e in &mut engines {
            e.time_control = None;
        }
    }

    let cores = sparring::available_cores();
    let concurrency = match s.concurrency.unwrap_or(1) {
        n if n <= 0 => (cores as i64 + n).max(1) as usize,
        n if n as u64 > cores as u64 => {
            return Err(usage_error(format!(
                "-concurrency {n}: more than the {cores} threads this machine runs at once"
            )))
        }
        n => n as usize,
    };
    let (rounds, per_game) = schedule(s, flavor)?;
    let mut openings = s.openings.clone();
    if let Some(o) = &mut openings {
        o.per_game = per_game;
    }
    let (dir, pgn_name) = output_location(s)?;
    let format = s.format.unwrap_or(match flavor {
        Flavor::Fastchess => ResultsFormat::Fastchess,
        Flavor::Cutechess => ResultsFormat::Cutechess,
    });
    // The cutechess lines have no pentanomial line, as in fastchess.
    let report_penta = format == ResultsFormat::Fastchess && s.report_penta.unwrap_or(true);
    Ok(MatchConfig {
        source: "the command line".to_string(),
        event: s
            .event
            .clone()
            .unwrap_or_else(|| "sparring match".to_string()),
        site: s.site.clone().unwrap_or_else(|| "?".to_string()),
        kind: s.kind.unwrap_or(TournamentKind::RoundRobin),
        rounds,
        concurrency,
        seed: s.seed.unwrap_or(1),
        time_control,
        margin,
        timeout: Duration::from_secs(30),
        openings,
        adjudication: Adjudication {
            draw: s.draw.clone(),
            resign: s.resign.clone(),
            max_moves: s.max_moves,
        },
        sprt: s.sprt,
        output: OutputConfig {
            dir,
            positions: false,
            positions_per_game: 12,
            rating_interval: s.rating_interval.unwrap_or(10),
            pgn_name,
            engine_log: s.engine_log.clone(),
            format,
            report_penta,
        },
        engines,
        max_restarts: 3,
        strict_options: s.strict,
    })
}

/// `-help`: the options sparring reads in this dialect.
pub fn usage(flavor: Flavor) -> String {
    let program = match flavor {
        Flavor::Fastchess => "fastchess (or sparring match)",
        Flavor::Cutechess => "cutechess-cli",
    };
    format!(
        "{VERSION_LINE}

Usage: {program} -engine KEY=VALUE... -engine KEY=VALUE... [OPTIONS]

Engines:
  -engine cmd=PATH [name=N] [dir=D] [args=\"A B\"] [proto=uci] LIMIT [timemargin=MS] [option.X=V]...
  -engine builtin [name=N] [weights=FILE] [hash=MB] LIMIT      the built-in engine (also cmd=builtin)
  -each KEY=VALUE...        applied to every engine after the line is read (overrides)
  LIMIT: tc=[moves/]secs[+inc] (tc=inf for none) | st=SECS | nodes=N | depth=N (plies=N)

Match:
  -rounds N -games 1|2 -repeat [N]   fastchess rules: total games = pairings x rounds x games
  -tournament roundrobin|gauntlet   -concurrency N   -srand SEED   -variant standard
  -openings file=F [format=epd|pgn] [order=random|sequential] [plies=N] [start=N] [policy=round]
  -draw [movenumber=N] [movecount=N] [score=CP]   -resign movecount=N score=CP [twosided=true]
  -maxmoves N   -sprt elo0=E0 elo1=E1 [alpha=A] [beta=B] [model=normalized|logistic|bayesian]
  -recover   -strict   -event TEXT   -site TEXT   -config file=MATCH.toml

Output:
  -pgnout file=DIR/NAME.pgn [append=false]   other records go to DIR/NAME.pgn.sparring/
  -ratinginterval N   -report penta=true|false   -output format=fastchess|cutechess
  -log file=F [engine=true]   every engine's traffic and standard error

sparring's own: --dump-config FILE.toml (write the TOML form and stop), --resume,
  --progress lines|bar|auto (default lines).
Accepted with a note: -testEnv -crc32 -check-mate-pvs -use-affinity -show-latency
  -scoreinterval -autosaveinterval. Refused by name: -epdout -tb -noswap -reverse and other
  options sparring does not implement. Details: docs/command-line-dialect.md
"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_string).collect()
    }

    fn config(line: &str) -> MatchConfig {
        match parse(&args(line), Flavor::Fastchess).expect("parses") {
            Request::Match(m) => m.config,
            other => panic!("expected a match, got {other:?}"),
        }
    }

    fn error(line: &str) -> String {
        parse(&args(line), Flavor::Fastchess).unwrap_err().0
    }

    const TWO: &str = "-engine builtin name=a nodes=100 -engine builtin name=b nodes=100";

    #[test]
    fn negative_numbers_are_values_and_dashed_words_are_options() {
        assert!(is_option("-engine"));
        assert!(is_option("--dump-config"));
        assert!(!is_option("-2"));
        assert!(!is_option("-0.5"));
        assert!(!is_option("-"));
        let c = config(&format!("{TWO} -concurrency -100"));
        assert_eq!(c.concurrency, 1);
    }

    #[test]
    fn time_controls_follow_fastchess_syntax() {
        let clock = |m: Option<u32>, b: u64, i: u64| TimeControl::Clock {
            moves: m,
            base: Duration::from_millis(b),
            increment: Duration::from_millis(i),
        };
        assert_eq!(parse_tc("10+0.1"), Ok(Some(clock(None, 10_000, 100))));
        assert_eq!(parse_tc("12.500+0.125"), Ok(Some(clock(None, 12_500, 125))));
        assert_eq!(
            parse_tc("40/60+0.6"),
            Ok(Some(clock(Some(40), 60_000, 600)))
        );
        assert_eq!(parse_tc("1:30+1s"), Ok(Some(clock(None, 90_000, 1000))));
        assert_eq!(parse_tc("inf/8.5+0.09"), Ok(Some(clock(None, 8_500, 90))));
        assert_eq!(parse_tc("inf"), Ok(None));
        assert!(parse_tc("0+1").is_err());
        assert!(parse_tc("abc").is_err());
        assert!(parse_tc("hg10").unwrap_err().contains("hourglass"));
    }

    #[test]
    fn shell_words_split_like_a_shell() {
        assert_eq!(
            shell_words(r#"uci --x "a b" 'c d' e\ f"#).unwrap(),
            vec!["uci", "--x", "a b", "c d", "e f"]
        );
        assert!(shell_words("\"open").is_err());
        assert_eq!(shell_words("").unwrap(), Vec::<String>::new());
    }

    #[test]
    fn each_overrides_the_engines_own_keys_as_in_fastchess() {
        let c = config(
            "-each tc=5+0.05 option.Hash=32 -engine cmd=a tc=1+0.01 option.Hash=8 option.X=1 -engine cmd=b",
        );
        assert_eq!(c.time_control, TimeControl::parse_clock("5+0.05").unwrap());
        for e in &c.engines {
            assert_eq!(e.time_control, None);
            let EngineKind::Uci { options, .. } = &e.kind else {
                panic!("a UCI engine")
            };
            assert!(options.contains(&("Hash".to_string(), "32".to_string())));
        }
        let EngineKind::Uci { options, .. } = &c.engines[0].kind else {
            panic!()
        };
        assert_eq!(
            options,
            &vec![("Hash".into(), "32".into()), ("X".into(), "1".into())]
        );
    }

    #[test]
    fn different_limits_stay_with_their_engines() {
        let c = config("-engine builtin name=a nodes=100 -engine builtin name=b depth=3");
        assert_eq!(c.time_control, TimeControl::Nodes(100));
        assert_eq!(c.engines[0].time_control, Some(TimeControl::Nodes(100)));
        assert_eq!(c.engines[1].time_control, Some(TimeControl::Depth(3)));
    }

    #[test]
    fn games_and_rounds_follow_fastchess() {
        assert_eq!(config(TWO).rounds, 2);
        assert_eq!(config(&format!("{TWO} -rounds 7 -games 2")).rounds, 7);
        assert_eq!(config(&format!("{TWO} -repeat -rounds 7")).rounds, 7);
        // -games 100 alone: 100 rounds of 2 games.
        assert_eq!(config(&format!("{TWO} -games 100")).rounds, 100);
        let c = config(&format!("{TWO} -games 1 -rounds 6 -openings file=x.epd"));
        assert_eq!(c.rounds, 3);
        assert!(c.openings.unwrap().per_game);
        assert!(error(&format!("{TWO} -games 1 -rounds 5")).contains("-rounds must be even"));
        assert!(error(&format!("{TWO} -games 3 -rounds 3")).contains("at most 2 games"));
        assert!(error(&format!("{TWO} -rounds 0")).contains("-rounds 0"));
    }

    #[test]
    fn cutechess_counts_games_per_encounter() {
        let c = match parse(
            &args(&format!("{TWO} -games 10 -repeat")),
            Flavor::Cutechess,
        ) {
            Ok(Request::Match(m)) => m.config,
            other => panic!("{other:?}"),
        };
        assert_eq!(c.rounds, 5);
        assert_eq!(c.output.format, ResultsFormat::Cutechess);
        assert!(!c.output.report_penta);
    }

    #[test]
    fn unknown_and_unimplemented_options_are_refused_by_name() {
        assert!(error(&format!("{TWO} -frobnicate 3")).contains("-frobnicate: unknown option"));
        assert!(error(&format!("{TWO} -epdout file=x.epd")).contains("-epdout"));
        assert!(error(&format!("{TWO} -tb /syzygy")).contains("not implemented"));
        assert!(
            error("-engine builtin nodes=1 frob=2 -engine builtin nodes=1")
                .contains("unknown engine key `frob`")
        );
        assert!(
            error("-engine cmd=x nodes=1 stderr=e.log -engine cmd=y nodes=1")
                .contains("`stderr` is not implemented")
        );
        assert!(error(&format!("{TWO} -variant fischerandom")).contains("issue 13"));
        assert!(error(&format!("{TWO} -draw movecount=abc")).contains("movecount=abc"));
        assert!(error("stray -engine builtin nodes=1").contains("`stray`"));
        assert!(error("-engine builtin name=a -engine builtin nodes=1").contains("no time control"));
        assert!(
            error("-engine builtin tc=10+0.1 st=1 -engine builtin nodes=1").contains("tc= and st=")
        );
        assert!(
            error("-engine cmd=x nodes=1 option.Hash= -engine cmd=y nodes=1")
                .contains("option.Hash=")
        );
        assert!(error("-engine builtin nodes=1").contains("two -engine"));
    }

    #[test]
    fn irrelevant_options_are_accepted_with_a_note() {
        let line = format!(
            "{TWO} -testEnv -check-mate-pvs -use-affinity -show-latency -crc32 pgn=true -scoreinterval 1 -autosaveinterval 0"
        );
        let Request::Match(m) = parse(&args(&line), Flavor::Fastchess).unwrap() else {
            panic!()
        };
        assert_eq!(m.notes.len(), 7);
        for note in &m.notes {
            // fishtest counts lines holding these words as crashes or time losses.
            for word in ["stall", "disconnect", "on time", "timeout", "Warning;"] {
                assert!(!note.contains(word), "{note}");
            }
        }
    }

    #[test]
    fn the_version_line_satisfies_openbench_and_names_sparring() {
        let first = VERSION_LINE
            .split(|c: char| !c.is_ascii_digit() && c != '.')
            .find(|t| t.contains('.'))
            .unwrap();
        assert_eq!(first, "1.8.1");
        assert!(VERSION_LINE.contains("sparring"));
        assert!(matches!(
            parse(&args("-version"), Flavor::Fastchess),
            Ok(Request::Version)
        ));
        assert!(matches!(parse(&[], Flavor::Fastchess), Ok(Request::Help)));
    }

    #[test]
    fn builtin_engines_take_hash_weights_and_one_thread() {
        let c = config(
            "-engine builtin name=a hash=8 nodes=10 -engine cmd=builtin option.Hash=4 option.Threads=1 nodes=10",
        );
        assert_eq!(
            c.engines[0].kind,
            EngineKind::Builtin {
                weights: None,
                hash_mb: 8
            }
        );
        assert_eq!(
            c.engines[1].kind,
            EngineKind::Builtin {
                weights: None,
                hash_mb: 4
            }
        );
        assert_eq!(c.engines[1].name, "sparring");
        assert!(
            error("-engine builtin nodes=1 option.Threads=4 -engine builtin nodes=1")
                .contains("Threads=4")
        );
        assert!(
            error("-engine builtin nodes=1 option.Contempt=4 -engine builtin nodes=1")
                .contains("option.Contempt=4")
        );
    }

    #[test]
    fn same_names_are_numbered() {
        let c = config("-engine builtin nodes=1 -engine builtin nodes=1 -engine builtin nodes=1");
        let names: Vec<_> = c.engines.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["sparring", "sparring_2", "sparring_3"]);
    }

    #[test]
    fn quick_is_fastchess_preset() {
        let c = config("-quick cmd=./a cmd=./b book=openings.epd");
        assert_eq!(c.rounds, 25_000);
        assert_eq!(c.time_control, TimeControl::parse_clock("10+0.1").unwrap());
        assert_eq!(c.output.format, ResultsFormat::Cutechess);
        assert_eq!(
            c.adjudication.draw.as_ref().map(|d| d.move_number),
            Some(30)
        );
        let o = c.openings.unwrap();
        assert_eq!(o.order, OpeningOrder::Random);
        assert_eq!(o.format.as_deref(), Some("epd"));
        assert!(error("-quick cmd=./a book=x.epd").contains("two cmd="));
    }

    #[test]
    fn output_options_map_to_the_output_table() {
        let c = config(&format!(
            "{TWO} -pgnout file=some/dir/run.pgn append=false nodes=true -log file=e.log level=info engine=true -report penta=false -ratinginterval 0 -output format=fastchess"
        ));
        assert_eq!(c.output.dir, Path::new("some/dir/run.pgn.sparring"));
        assert_eq!(c.output.pgn_name, "../run.pgn");
        assert_eq!(c.output.engine_log.as_deref(), Some(Path::new("e.log")));
        assert!(!c.output.report_penta);
        assert_eq!(c.output.rating_interval, 1_000_000);
        // cutechess-cli names the PGN without a key.
        let Request::Match(m) = parse(
            &args(&format!("{TWO} -games 2 -pgnout games.pgn fi")),
            Flavor::Cutechess,
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(m.config.output.pgn_name, "../games.pgn");
        assert_eq!(m.config.output.dir, Path::new("./games.pgn.sparring"));
        assert!(error(&format!("{TWO} -log level=info")).contains("file= is needed"));
        assert!(error(&format!("{TWO} -pgnout file=x.pgn min=true")).contains("min=true"));
    }

    #[test]
    fn match_options_map_to_their_tables() {
        let line = format!(
            "{TWO} -srand 7 -tournament gauntlet -draw movenumber=34 movecount=8 score=20 \
             -resign movecount=3 score=600 twosided=true -maxmoves 200 -strict -event A B \
             -sprt elo0=0 elo1=5 model=bayesian -openings file=b.pgn format=pgn order=random plies=8 start=3 policy=round"
        );
        let c = config(&line);
        assert_eq!(c.seed, 7);
        assert_eq!(c.kind, TournamentKind::Gauntlet);
        assert_eq!(
            c.adjudication.draw,
            Some(DrawAdjudication {
                move_number: 34,
                move_count: 8,
                score_cp: 20
            })
        );
        assert_eq!(
            c.adjudication.resign,
            Some(ResignAdjudication {
                move_count: 3,
                score_cp: 600,
                two_sided: true
            })
        );
        assert_eq!(c.adjudication.max_moves, Some(200));
        assert!(c.strict_options);
        assert_eq!(c.event, "AB");
        assert_eq!(c.sprt.unwrap().model(), SprtModel::BayesElo);
        let o = c.openings.unwrap();
        assert_eq!(
            (o.plies, o.start, o.order),
            (Some(8), 3, OpeningOrder::Random)
        );
        assert!(error(&format!("{TWO} -resign movecount=3")).contains("score= is needed"));
        assert!(
            error(&format!("{TWO} -openings file=b.pgn policy=encounter"))
                .contains("policy=encounter")
        );
        assert!(error(&format!(
            "{TWO} -engine builtin nodes=1 -config file=m.toml"
        ))
        .contains("-config"));
        assert!(error("-config file=m.json").contains("config.json is not read"));
    }

    #[test]
    fn engine_keys_build_the_uci_engine() {
        let mut line =
            args("-engine dir=/opt/engines cmd=./dev name=dev tc=inf depth=7 timemargin=250");
        line.push("args=--threads 1".to_string());
        line.extend(args("-engine cmd=/usr/bin/base st=0.5 timemargin=250"));
        let Ok(Request::Match(m)) = parse(&line, Flavor::Fastchess) else {
            panic!("parses")
        };
        let c = m.config;
        let EngineKind::Uci {
            command,
            args,
            working_dir,
            ..
        } = &c.engines[0].kind
        else {
            panic!()
        };
        assert_eq!(command, "/opt/engines/dev");
        assert_eq!(args, &vec!["--threads".to_string(), "1".to_string()]);
        assert_eq!(working_dir.as_deref(), Some(Path::new("/opt/engines")));
        assert_eq!(c.engines[1].name, "base");
        assert_eq!(c.margin, Duration::from_millis(250));
        assert_eq!(c.engines[0].time_control, Some(TimeControl::Depth(7)));
        assert_eq!(
            c.engines[1].time_control,
            Some(TimeControl::MoveTime(Duration::from_millis(500)))
        );
        assert!(
            error("-engine cmd=a nodes=1 timemargin=5 -engine cmd=b nodes=1 timemargin=6")
                .contains("same margin")
        );
        assert!(
            error("-engine cmd=a nodes=1 proto=xboard -engine cmd=b nodes=1")
                .contains("proto=xboard")
        );
        assert!(error("-engine cmd=a nodes=1 hash=4 -engine cmd=b nodes=1").contains("hash=4"));
        assert!(
            error("-engine cmd=a tc=10+0.1 nodes=5 -engine cmd=b nodes=1")
                .contains("one limit per engine")
        );
    }

    proptest::proptest! {
        /// Any sequence of the dialect's words parses or is refused; nothing panics.
        #[test]
        fn arbitrary_token_sequences_never_panic(
            tokens in proptest::collection::vec(proptest::sample::select(vec![
                "-engine", "-each", "builtin", "cmd=x", "cmd=builtin", "name=a", "name=", "tc=10+0.1",
                "tc=inf", "tc=1:x", "st=0", "st=0.5", "nodes=5", "nodes=-1", "depth=300", "plies=3",
                "option.Hash=8", "option.=1", "dir=.", "args='a", "-rounds", "-games", "3", "0", "-1",
                "-repeat", "-concurrency", "-srand", "99999999999999999999", "-draw", "movecount=0",
                "-resign", "score=5", "-sprt", "elo0=1", "elo1=0", "-openings", "file=x.epd",
                "-pgnout", "file=", "append=maybe", "-event", "-log", "-config", "file=a.toml",
                "-quick", "book=b.epd", "-variant", "standard", "-tb", "--dump-config", "=", "-",
                "-version", "--resume", "-output", "format=cutechess", "-report", "penta=false",
            ]), 0..24)
        ) {
            let tokens: Vec<String> = tokens.into_iter().map(str::to_string).collect();
            for flavor in [Flavor::Fastchess, Flavor::Cutechess] {
                if let Err(e) = parse(&tokens, flavor) {
                    proptest::prop_assert!(!e.0.is_empty());
                }
            }
        }
    }
}
