//! The options of the line read into `Settings`, one group at a time: the match and engine
//! options here, the output options in `output.rs`; `build.rs` turns the settings into a
//! `MatchConfig`.

use super::build::build;
use super::engine::EngineSpec;
use super::output::{config_option, log, pgnout};
use super::tokens::{bad, boolean, bounded, free_text, groups, positive, usage_error, Group};
use super::{DialectMatch, Flavor, Request};
use crate::cli::matches::ProgressStyle;
use crate::cli::UsageError;
use sparring::arena::config::{
    DrawAdjudication, MatchConfig, MoveData, OpeningOrder, OpeningsConfig, ResignAdjudication,
    ResultsFormat, TournamentKind, Variant,
};
use sparring::stats::{SprtModel, SprtParams};
use std::path::PathBuf;

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
    "-outcomeinterval",
    "-resultformat",
    "-bookmode",
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

/// Reads one option into the settings; `-version` and `-help` end the reading with their request.
fn apply(g: &Group, s: &mut Settings) -> Result<Option<Request>, UsageError> {
    let option = g.option.as_str();
    if super::tablebase::apply(g, &mut s.tablebase)? {
        return Ok(None);
    }
    match option {
        "-version" | "--version" | "-v" | "--v" => return Ok(Some(Request::Version)),
        "-help" | "--help" => return Ok(Some(Request::Help)),
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
        "-rounds" => s.rounds = Some(positive(g)?),
        "-games" => s.games = Some(positive(g)?),
        "-seeds" => s.seeds = Some(positive(g)?),
        "-repeat" => {
            s.repeat = true;
            if !g.params.is_empty() {
                s.games = Some(positive(g)?);
            }
        }
        "-concurrency" => s.concurrency = Some(g.number("an integer")?),
        "-srand" => s.seed = Some(g.number("an integer from 0 to 18446744073709551615")?),
        "-draw" => s.draw = Some(draw(g)?),
        "-resign" => s.resign = Some(resign(g)?),
        "-maxmoves" => {
            let m: u32 = g.number("a positive number of moves")?;
            if m == 0 || m > 100_000 {
                return Err(usage_error(format!(
                    "-maxmoves {m}: expected 1 to 100000 moves"
                )));
            }
            s.max_moves = Some(m);
        }
        "-sprt" => s.sprt = Some(sprt(g)?),
        "-openings" => s.openings = Some(openings(g)?),
        "-pgnout" => pgnout(g, s)?,
        "-recover" => g.none()?,
        "-engines" => s.engines_file = Some(PathBuf::from(g.one()?)),
        "-debug" => {
            // cutechess's -debug takes no value; fastchess's `-debug` is a deprecated no-op.
            g.none()?;
            s.debug = true;
        }
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
                    ("format", _) => {
                        return Err(bad(option, &k, &v, "fastchess or cutechess"))
                    }
                    _ => return Err(bad(option, &k, &v, "the key format")),
                }
            }
        }
        "-log" => log(g, s)?,
        "-strict" => {
            g.none()?;
            s.strict = true;
        }
        "-config" => config_option(g, s)?,
        "-event" => s.event = Some(free_text(g)?),
        "-site" => s.site = Some(free_text(g)?),
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
        "-quick" => quick(g, s)?,
        _ => noted(g, s)?,
    }
    Ok(None)
}

/// The options accepted with a note (sparring has no use for them), and the refusals.
fn noted(g: &Group, s: &mut Settings) -> Result<(), UsageError> {
    let option = g.option.as_str();
    match option {
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
