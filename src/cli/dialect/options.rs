//! The options of the line read into `Settings`, one group at a time: the match and engine
//! options here, the output options in `output.rs`; `build.rs` turns the settings into a
//! `MatchConfig`.

use super::build::build;
use super::compliance::compliance_option;
use super::engine::EngineSpec;
use super::noted::noted;
use super::output::{config_option, log, pgnout};
use super::tokens::{bad, boolean, bounded, free_text, groups, pair, positive, usage_error, Group};
use super::{DialectMatch, Flavor, Request};
use crate::cli::matches::ProgressStyle;
use crate::cli::UsageError;
use sparring::arena::config::{
    DrawAdjudication, MatchConfig, OpeningOrder, OpeningsConfig, ResignAdjudication, ResultsFormat,
    TournamentKind, Variant,
};
use sparring::record::{MoveData, PgnStyle};
use sparring::stats::{SprtModel, SprtParams};
use std::path::PathBuf;

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
    "-epdout",
];

/// The global settings collected while reading the line.
#[derive(Default)]
pub(super) struct Settings {
    pub(super) engines: Vec<EngineSpec>,
    /// `-engines FILE`: cutechess's engine configurations for `conf=` (default
    /// `engines.json` in the working directory).
    pub(super) engines_file: Option<PathBuf>,
    /// `-debug`: every engine's traffic on standard error, as cutechess prints it.
    pub(super) debug: bool,
    pub(super) each: EngineSpec,
    pub(super) rounds: Option<u64>,
    /// cutechess's `-seeds N`: the first N engines are the gauntlet's seeds.
    pub(super) seeds: Option<u64>,
    pub(super) games: Option<u64>,
    pub(super) repeat: bool,
    pub(super) concurrency: Option<i64>,
    pub(super) seed: Option<u64>,
    pub(super) draw: Option<DrawAdjudication>,
    pub(super) resign: Option<ResignAdjudication>,
    pub(super) max_moves: Option<u32>,
    pub(super) sprt: Option<SprtParams>,
    pub(super) openings: Option<OpeningsConfig>,
    pub(super) pgn_file: Option<String>,
    pub(super) pgn_append: Option<bool>,
    /// `-pgnout nodes=true ... match_line=`: the move comments' extra figures.
    pub(super) move_data: MoveData,
    /// `-pgnout min` / `min=true` and `notation=`.
    pub(super) pgn_style: PgnStyle,
    pub(super) rating_interval: Option<u32>,
    pub(super) report_penta: Option<bool>,
    pub(super) format: Option<ResultsFormat>,
    pub(super) engine_log: Option<PathBuf>,
    pub(super) strict: bool,
    /// `-variant`: standard unless `fischerandom`.
    pub(super) variant: Variant,
    pub(super) event: Option<String>,
    pub(super) site: Option<String>,
    pub(super) kind: Option<TournamentKind>,
    pub(super) config_file: Option<PathBuf>,
    pub(super) notes: Vec<String>,
    pub(super) dump_config: Option<PathBuf>,
    pub(super) resume: bool,
    pub(super) progress: Option<ProgressStyle>,
    /// `-tb`, `-tbpieces`, `-tbignore50`, `-tbadjudicate`.
    pub(super) tablebase: super::tablebase::TablebaseSettings,
    /// `-noswap`: both games of a pair with the same colours.
    pub(super) noswap: bool,
    /// `-reverse`: every game's colours swapped.
    pub(super) reverse: bool,
    /// `-wait N`: milliseconds between a game slot's games.
    pub(super) wait_ms: Option<u64>,
    /// `-epdout`: the file (as given) and fastchess's `append=`.
    pub(super) epd_out: Option<(String, bool)>,
    /// `-startup-ms`, `-ucinewgame-ms`, `-ping-ms`: (option, milliseconds) as given.
    pub(super) timeouts: Vec<(String, u64)>,
    /// `-force-concurrency`: more games at once than the machine has threads.
    pub(super) force_concurrency: bool,
    /// `-check-mate-pvs`, `-testEnv`, `-crc32`, `-use-affinity`, `-show-latency`.
    pub(super) compliance: sparring::arena::config::ComplianceConfig,
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
        if let Some(request) = apply(&g, &mut s)? {
            return Ok(request);
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

/// Reads one option into the settings; `-version`, `-help` and `-engines` (alone) end the
/// reading with their request.
fn apply(g: &Group, s: &mut Settings) -> Result<Option<Request>, UsageError> {
    let option = g.option.as_str();
    if super::tablebase::apply(g, &mut s.tablebase)? {
        return Ok(None);
    }
    match option {
        "-version" | "--version" | "-v" | "--v" => return Ok(Some(Request::Version)),
        "-help" | "--help" => return Ok(Some(Request::Help)),
        // cutechess-cli: `-engines` alone lists the configured engines and exits; sparring's
        // `-engines FILE` names the file `conf=` reads.
        "-engines" if g.params.is_empty() => {
            let file = s
                .engines_file
                .clone()
                .unwrap_or_else(|| PathBuf::from("engines.json"));
            let names = super::engines_json::load(&file, "-engines")?
                .into_iter()
                .map(|e| e.name)
                .collect();
            return Ok(Some(Request::Engines(names)));
        }
        "-engines" => s.engines_file = Some(PathBuf::from(g.one()?)),
        "--dump-config" | "--resume" | "--progress" => sparring_own(g, s)?,
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
        "-pgnout" => pgnout(g, s)?,
        "-epdout" => epdout(g, s)?,
        "-log" => log(g, s)?,
        "-config" => config_option(g, s)?,
        "-report" | "-output" | "-ratinginterval" | "-event" | "-site" | "-debug" => {
            report_option(g, s)?
        }
        "-quick" => quick(g, s)?,
        _ => {
            if !match_option(g, s)? && !compliance_option(g, s)? {
                noted(g, s)?;
            }
        }
    }
    Ok(None)
}

/// sparring's own options: `--dump-config FILE`, `--resume`, `--progress STYLE`.
fn sparring_own(g: &Group, s: &mut Settings) -> Result<(), UsageError> {
    match g.option.as_str() {
        "--dump-config" => s.dump_config = Some(PathBuf::from(g.one()?)),
        "--resume" => {
            g.none()?;
            s.resume = true;
        }
        _ => {
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
    }
    Ok(())
}

/// What the run prints and how the games are labelled: `-report`, `-output`,
/// `-ratinginterval`, `-event`, `-site`, `-debug`.
fn report_option(g: &Group, s: &mut Settings) -> Result<(), UsageError> {
    let option = g.option.as_str();
    match option {
        "-ratinginterval" => {
            let n: u32 = g.number("a number of game pairs (0: only at the end)")?;
            // 0 is fastchess's "only at the end": more pairs than any run plays.
            s.rating_interval = Some(if n == 0 { 1_000_000 } else { n.min(1_000_000) });
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
                    ("format", _) => return Err(bad(option, &k, &v, "fastchess or cutechess")),
                    _ => return Err(bad(option, &k, &v, "the key format")),
                }
            }
        }
        "-event" => s.event = Some(free_text(g)?),
        "-site" => s.site = Some(free_text(g)?),
        _ => {
            // cutechess's -debug takes no value; fastchess's `-debug` is a deprecated no-op.
            g.none()?;
            s.debug = true;
        }
    }
    Ok(())
}

/// The match's options: who plays, how many games, with which rules and openings. False:
/// not one of them.
fn match_option(g: &Group, s: &mut Settings) -> Result<bool, UsageError> {
    match g.option.as_str() {
        "-variant" => s.variant = variant(g)?,
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
        "-rounds" => s.rounds = Some(positive(g)?),
        "-games" => s.games = Some(positive(g)?),
        // cutechess's default is 0, which its gauntlet reads as 1.
        "-seeds" => s.seeds = Some(g.number("a number of engines")?),
        "-repeat" => {
            s.repeat = true;
            if !g.params.is_empty() {
                s.games = Some(positive(g)?);
            }
        }
        "-noswap" => {
            g.none()?;
            s.noswap = true;
        }
        "-reverse" => {
            g.none()?;
            s.reverse = true;
        }
        "-wait" => {
            let ms: u64 = g.number("a number of milliseconds")?;
            if ms > 3_600_000 {
                return Err(usage_error(format!(
                    "-wait {ms}: expected 0 to 3600000 milliseconds"
                )));
            }
            s.wait_ms = Some(ms);
        }
        "-concurrency" => s.concurrency = Some(g.number("an integer")?),
        "-force-concurrency" => {
            g.none()?;
            s.force_concurrency = true;
        }
        "-srand" => s.seed = Some(g.number("an integer from 0 to 18446744073709551615")?),
        "-draw" => s.draw = Some(draw(g)?),
        "-resign" => s.resign = Some(resign(g)?),
        "-maxmoves" => s.max_moves = Some(max_moves(g)?),
        "-sprt" => s.sprt = Some(sprt(g)?),
        "-openings" => s.openings = Some(openings(g)?),
        "-pgnin" | "-epdin" | "-pgndepth" => old_openings(g, s)?,
        "-recover" => g.none()?,
        "-strict" => {
            g.none()?;
            s.strict = true;
        }
        "-startup-ms" | "-ucinewgame-ms" | "-ping-ms" => {
            let ms: u64 = g.number("a number of milliseconds")?;
            s.timeouts.push((g.option.clone(), ms));
        }
        _ => return Ok(false),
    }
    Ok(true)
}

fn variant(g: &Group) -> Result<Variant, UsageError> {
    match g.one()? {
        "standard" => Ok(Variant::Standard),
        // DFRC is fischerandom with a DFRC opening suite, as in fastchess.
        "fischerandom" | "chess960" => Ok(Variant::Chess960),
        other => Err(usage_error(format!(
            "-variant {other}: sparring plays `standard` and `fischerandom` (Chess960, and DFRC with a DFRC book)"
        ))),
    }
}

fn max_moves(g: &Group) -> Result<u32, UsageError> {
    let m: u32 = g.number("a positive number of moves")?;
    if m == 0 || m > 100_000 {
        return Err(usage_error(format!(
            "-maxmoves {m}: expected 1 to 100000 moves"
        )));
    }
    Ok(m)
}

/// cutechess-cli's options from before `-openings` (2012): `-pgnin FILE` and `-epdin FILE` are
/// a suite played in file order, `-pgndepth N` its plies.
fn old_openings(g: &Group, s: &mut Settings) -> Result<(), UsageError> {
    let option = g.option.as_str();
    let suite = s.openings.get_or_insert_with(file_order_suite);
    match option {
        "-pgndepth" => {
            let plies: u64 = positive(g)?;
            suite.plies = Some(plies.min(1000) as usize);
        }
        _ => {
            suite.file = PathBuf::from(g.one()?);
            suite.format = Some(if option == "-pgnin" { "pgn" } else { "epd" }.to_string());
        }
    }
    Ok(())
}

/// `-epdout file=F [append=B]` (fastchess) or `-epdout F` (cutechess-cli): each game's final
/// position.
fn epdout(g: &Group, s: &mut Settings) -> Result<(), UsageError> {
    let o = g.option.as_str();
    let (mut file, mut append) = (None, true);
    for token in &g.params {
        if !token.contains('=') && file.is_none() {
            file = Some(token.clone());
            continue;
        }
        let (k, v) = pair(o, token)?;
        match k.as_str() {
            "file" => file = Some(v),
            "append" => append = boolean(o, &k, &v)?,
            _ => return Err(bad(o, &k, &v, "file= or append=")),
        }
    }
    let file = file.ok_or_else(|| usage_error("-epdout: the file is needed (file=F)"))?;
    if file.trim().is_empty() || file.chars().any(char::is_control) {
        return Err(usage_error(format!(
            "-epdout {file:?}: expected a file name without control characters"
        )));
    }
    s.epd_out = Some((file, append));
    Ok(())
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

/// An opening suite without its file yet, played in file order from its first opening
/// (fastchess's and old cutechess's defaults).
fn file_order_suite() -> OpeningsConfig {
    OpeningsConfig {
        file: PathBuf::new(),
        format: None,
        order: OpeningOrder::Sequential,
        plies: None,
        start: 1,
        per_game: false,
        random_plies: 0,
    }
}

fn openings(g: &Group) -> Result<OpeningsConfig, UsageError> {
    let o = g.option.as_str();
    let mut file = None;
    let mut config = file_order_suite();
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
