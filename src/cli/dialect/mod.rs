//! The fastchess / cutechess-cli command line (`sparring match -engine ...`, or the binary run
//! under the name `fastchess`, `fastchess-ob` or `cutechess-cli`), turned into the same
//! `MatchConfig` a TOML file gives. The options, their status and the rules for what fastchess
//! has no counterpart of (the output directory) are in docs/command-line-dialect.md.
//!
//! Tokenized by hand: clap cannot express groups like `-engine k=v k=v ... -engine k=v`.

mod engine;

use super::matches::{play, ProgressStyle};
use super::UsageError;
use engine::{engine_config, EngineSpec};
use sparring::arena::config::{
    Adjudication, DrawAdjudication, EngineConfig, MatchConfig, OpeningOrder, OpeningsConfig,
    OutputConfig, PgnMode, ResignAdjudication, ResultsFormat, TournamentKind, Variant,
};
use sparring::stats::{SprtModel, SprtParams};
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
                return Err(UsageError(one_line(&format!(
                    "argument {} is not valid UTF-8",
                    arg.to_string_lossy()
                )))
                .into())
            }
        }
    }
    // A refusal quotes the user's tokens, which may hold line breaks or other control
    // characters: escaped, so the message stays the one line a worker's log parser reads.
    let request = parse(&texts, flavor).map_err(|e| UsageError(one_line(&e.0)))?;
    match request {
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

/// `text` with its control characters escaped (`\n`, `\t`, `\u{7}`): one line.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
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

/// Options whose settings are `key=value` tokens and that mean nothing without one (as in
/// fastchess, which refuses them empty): an empty one, or one left at the end of the line, is a
/// usage error rather than silently doing nothing. (`-pgnout` also needs its file, see
/// `pgnout`.)
const NEEDS_SETTINGS: &[&str] = &[
    "-engine",
    "-each",
    "-openings",
    "-sprt",
    "-draw",
    "-resign",
    "-log",
    "-config",
    "-report",
    "-output",
    "-crc32",
    "-quick",
    "-pgnout",
];

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
    /// `-variant`: standard unless `fischerandom`.
    variant: Variant,
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
        if g.params.is_empty() && NEEDS_SETTINGS.contains(&option) {
            return Err(usage_error(format!(
                "{option} needs its settings (key=value ...), found none; see `sparring match -help`"
            )));
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
                "standard" => s.variant = Variant::Standard,
                // DFRC is fischerandom with a DFRC opening suite, as in fastchess.
                "fischerandom" | "chess960" => s.variant = Variant::Chess960,
                other => {
                    return Err(usage_error(format!(
                        "-variant {other}: sparring plays `standard` and `fischerandom` (Chess960, and DFRC with a DFRC book)"
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
        let config = MatchConfig::load(file)
            .map_err(|e| usage_error(format!("-config file={}: {e}", file.display())))?;
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
    // Options such as append=false alone would otherwise leave the games in a directory the
    // user never named.
    if s.pgn_file.is_none() {
        return Err(usage_error(format!(
            "{o} {}: file= is needed (the PGN file to write)",
            g.params.join(" ")
        )));
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
    // As the TOML form's output.pgn_name requires (a blank name, a line break in it).
    if name.trim().is_empty() || name.chars().any(char::is_control) {
        return Err(usage_error(format!(
            "-pgnout file={file:?}: expected a file name without control characters"
        )));
    }
    if path.is_dir() {
        return Err(usage_error(format!(
            "-pgnout file={file}: is a directory, expected a file"
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
/// pairing, whether every game takes its own opening, whether the last pair plays only its
/// first game: an odd number of games per pairing).
fn schedule(s: &Settings, flavor: Flavor) -> Result<(u32, bool, bool), UsageError> {
    let (games, per_game) = match flavor {
        Flavor::Fastchess => {
            let mut rounds = s.rounds.unwrap_or(2);
            let mut games = s.games.unwrap_or(2);
            if games > 2 {
                std::mem::swap(&mut rounds, &mut games);
            }
            match games {
                2 => (rounds.saturating_mul(2), false),
                // -games 1: one game per round, colours alternating, each its own opening.
                1 => (rounds, true),
                _ => {
                    return Err(usage_error(format!(
                        "-games {} -rounds {}: at most 2 games per round (fastchess swaps -games and -rounds when -games is larger)",
                        s.games.unwrap_or(2),
                        s.rounds.unwrap_or(2)
                    )))
                }
            }
        }
        Flavor::Cutechess => (
            s.games.unwrap_or(1).saturating_mul(s.rounds.unwrap_or(1)),
            !s.repeat,
        ),
    };
    let pairs = u32::try_from(games.div_ceil(2))
        .ok()
        .filter(|p| (1..=100_000_000).contains(p))
        .ok_or_else(|| {
            usage_error(format!(
                "-rounds {}: at most 100000000 game pairs",
                s.rounds.unwrap_or(0)
            ))
        })?;
    Ok((pairs, per_game, games % 2 == 1))
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
        let (mut engine, margin) = engine_config(&spec, i + 1)?;
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
    let (rounds, per_game, single_last_game) = schedule(s, flavor)?;
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
        variant: s.variant,
        rounds,
        single_last_game,
        concurrency,
        seed: s.seed.unwrap_or(1),
        time_control,
        margin,
        timeout: Duration::from_secs(30),
        openings,
        adjudication: Adjudication {
            tablebase: None,
            draw: s.draw.clone(),
            resign: s.resign.clone(),
            max_moves: s.max_moves,
        },
        sprt: s.sprt,
        output: OutputConfig {
            dir,
            positions: false,
            positions_per_game: 12,
            positions_format: Default::default(),
            rating_interval: s.rating_interval.unwrap_or(10),
            pgn_name,
            // fastchess and cutechess-cli append to -pgnout's file unless append=false; a run
            // without -pgnout writes a new directory of its own.
            pgn_mode: match (&s.pgn_file, s.pgn_append) {
                (None, _) => PgnMode::New,
                (Some(_), Some(false)) => PgnMode::Replace,
                (Some(_), _) => PgnMode::Append,
            },
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
  -tournament roundrobin|gauntlet   -concurrency N   -srand SEED   -variant standard|fischerandom
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
mod tests;
