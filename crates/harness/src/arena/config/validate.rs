//! Checking a match file after serde read it: defaults, ranges and cross-field rules, each
//! error naming its file, line and dotted key.

use super::engines::engines;
use super::file::{
    AdjudicationFile, EngineTimeControlFile, FinalPositionsFile, KindFile, MatchFile, MoveDataFile,
    OpeningsFile, OrderFile, OutputFile, ResultsFormatFile, SprtFile, TablebaseFile,
    TimeControlFile, TournamentFile, VariantFile,
};
use super::model::{
    Adjudication, DrawAdjudication, FinalPositions, MatchConfig, OpeningOrder, OpeningsConfig,
    OutputConfig, PgnMode, PositionsFormat, PositionsResolve, ResignAdjudication, ResultsFormat,
    Seeds, TablebaseAdjudication, TablebaseResults, TimeControl, TournamentKind, Variant,
};
use crate::available_cores;
use crate::record::{MoveData, PgnNotation, PgnStyle};
use crate::stats::{SprtModel, SprtParams};
use crate::toml_config::{read_text, ConfigError, Document};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A text sent to an engine or written into a record must not hold control characters: a
/// newline in an option would inject a UCI command.
pub(super) fn has_control(text: &str) -> bool {
    text.chars().any(char::is_control)
}

impl MatchConfig {
    /// Reads and parses the configuration file at `path`; errors name the file, line and key.
    pub fn load(path: &Path) -> Result<MatchConfig, ConfigError> {
        let text = read_text(path)?;
        MatchConfig::parse(&text, &path.display().to_string())
    }

    /// Parses a configuration; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<MatchConfig, ConfigError> {
        let doc = Document::parse(text, file)?;
        let f: MatchFile = doc.deserialize()?;
        // The order of the checks decides which error a file with several gets: keep it.
        let t = f
            .tournament
            .ok_or_else(|| doc.missing("tournament", "a [tournament] table"))?;
        let tournament = tournament(&doc, t)?;
        let each_limit = f
            .each
            .as_ref()
            .and_then(|e| e.time_control.as_ref())
            .map(|tc| limit(&doc, "each.time_control", tc))
            .transpose()?;
        let own_limits = f.engine.as_ref().is_some_and(|list| {
            each_limit.is_some()
                || (!list.is_empty() && list.iter().all(|e| e.time_control.is_some()))
        });
        let (time_control, margin_ms) = match_limit(&doc, f.time_control, own_limits)?;
        let openings = f.openings.map(|o| openings(&doc, o)).transpose()?;
        let adjudication = read_adjudication(&doc, f.adjudication)?;
        let sprt = f.sprt.map(|s| sprt_params(&doc, s)).transpose()?;
        let out = f
            .output
            .ok_or_else(|| doc.missing("output", "an [output] table with `dir`"))?;
        let output = output(&doc, out)?;

        let compliance = super::compliance::compliance(&doc, f.compliance)?;
        let engines = engines(&doc, f.engine, f.each, each_limit)?;
        check_seeds(&doc, &tournament, engines.len())?;
        let time_control = match time_control {
            Some(tc) => tc,
            None => match engines.iter().find_map(|e| e.time_control.clone()) {
                Some(tc) => tc,
                None => return Err(doc.missing("time_control", "a [time_control] table")),
            },
        };

        Ok(MatchConfig {
            source: file.to_string(),
            event: tournament.event,
            site: tournament.site,
            kind: tournament.kind,
            seeds: tournament.seeds,
            swap_sides: tournament.swap_sides,
            reverse_sides: tournament.reverse_sides,
            wait: Duration::from_millis(tournament.wait_ms),
            variant: tournament.variant,
            rounds: tournament.rounds,
            single_last_game: tournament.single_last_game,
            concurrency: tournament.concurrency,
            seed: tournament.seed,
            time_control,
            margin: Duration::from_millis(margin_ms),
            timeout: Duration::from_millis(tournament.timeout_ms),
            openings,
            adjudication,
            sprt,
            output,
            engines,
            max_restarts: tournament.max_restarts,
            strict_options: tournament.strict_options,
            compliance,
        })
    }
}

/// The `[tournament]` table, checked.
struct Tournament {
    event: String,
    site: String,
    kind: TournamentKind,
    seeds: Seeds,
    swap_sides: bool,
    reverse_sides: bool,
    wait_ms: u64,
    variant: Variant,
    rounds: u32,
    single_last_game: bool,
    concurrency: usize,
    seed: u64,
    timeout_ms: u64,
    max_restarts: u32,
    strict_options: bool,
}

fn tournament(doc: &Document<'_>, t: TournamentFile) -> Result<Tournament, ConfigError> {
    let kind = match t.kind {
        None | Some(KindFile::Gauntlet) => TournamentKind::Gauntlet,
        Some(KindFile::RoundRobin) => TournamentKind::RoundRobin,
    };
    let variant = match t.variant {
        None | Some(VariantFile::Standard) => Variant::Standard,
        Some(VariantFile::Chess960) => Variant::Chess960,
    };
    let rounds = doc.in_range(
        "tournament.rounds",
        t.rounds.unwrap_or(1),
        1,
        Some(100_000_000),
    )?;
    let cores = available_cores();
    let concurrency = t.concurrency.unwrap_or(1);
    if concurrency > cores {
        return Err(doc.invalid_value(
            "tournament.concurrency",
            format!("an integer from 1 to {cores} (the threads this machine runs at once)"),
        ));
    }
    let concurrency = doc.in_range("tournament.concurrency", concurrency, 1, None)?;
    let seed = seed(doc, t.seed)?;
    let event = t.event.unwrap_or_else(|| "sparring match".to_string());
    let site = t.site.unwrap_or_else(|| "?".to_string());
    for (key, text) in [("tournament.event", &event), ("tournament.site", &site)] {
        if has_control(text) {
            return Err(doc.invalid_value(key, "a text without control characters"));
        }
    }
    let timeout_ms = doc.in_range(
        "tournament.timeout_ms",
        t.timeout_ms.unwrap_or(30_000),
        100,
        Some(3_600_000),
    )?;
    let max_restarts = doc.in_range(
        "tournament.max_restarts",
        t.max_restarts.unwrap_or(3),
        1,
        Some(1000),
    )?;
    let wait_ms = doc.in_range(
        "tournament.wait_ms",
        t.wait_ms.unwrap_or(0),
        0,
        Some(3_600_000),
    )?;
    Ok(Tournament {
        event,
        site,
        kind,
        seeds: Seeds {
            count: doc.in_range("tournament.seeds", t.seeds.unwrap_or(1), 1, None)?,
            play_each_other: t.seeds_play_each_other.unwrap_or(false),
        },
        swap_sides: t.swap_sides.unwrap_or(true),
        reverse_sides: t.reverse_sides.unwrap_or(false),
        wait_ms,
        variant,
        rounds,
        single_last_game: t.single_last_game.unwrap_or(false),
        concurrency,
        seed,
        timeout_ms,
        max_restarts,
        strict_options: t.strict_options.unwrap_or(false),
    })
}

/// `tournament.seeds`: a gauntlet's seeds leave at least one engine to play; a round robin
/// has no seeds.
fn check_seeds(doc: &Document<'_>, t: &Tournament, engines: usize) -> Result<(), ConfigError> {
    match t.kind {
        TournamentKind::RoundRobin if t.seeds.count > 1 => Err(doc.other(
            "tournament.seeds",
            "a round robin plays every pairing and has no seeds (seeds are a gauntlet's)"
                .to_string(),
        )),
        TournamentKind::Gauntlet if t.seeds.count >= engines.max(2) => Err(doc.invalid_value(
            "tournament.seeds",
            format!(
                "an integer from 1 to {} (the seeds are the first engines; one at least is not a seed)",
                engines.saturating_sub(1).max(1)
            ),
        )),
        _ => Ok(()),
    }
}

/// `tournament.seed`: an integer, or a string of digits for seeds above 2^63 - 1.
fn seed(doc: &Document<'_>, seed: Option<toml::Value>) -> Result<u64, ConfigError> {
    Ok(match seed {
        None => 1,
        Some(toml::Value::Integer(i)) => doc.in_range("tournament.seed", i, 0, None)? as u64,
        Some(toml::Value::String(text)) => text.parse::<u64>().map_err(|_| {
            doc.invalid_value(
                "tournament.seed",
                "an integer from 0 to 18446744073709551615",
            )
        })?,
        Some(_) => {
            return Err(doc.invalid_value(
                "tournament.seed",
                "a non-negative integer (or a string of digits above 2^63 - 1)",
            ))
        }
    })
}

/// The `[time_control]` table: the match-wide limit (None when every engine has its own and
/// the table gives none) and the margin in milliseconds.
fn match_limit(
    doc: &Document<'_>,
    table: Option<TimeControlFile>,
    own_limits: bool,
) -> Result<(Option<TimeControl>, u64), ConfigError> {
    if table.is_none() && !own_limits {
        return Err(doc.missing(
            "time_control",
            "a [time_control] table (or a time_control for every engine)",
        ));
    }
    let tc = table.unwrap_or_default();
    let match_limit = EngineTimeControlFile {
        nodes: tc.nodes,
        depth: tc.depth,
        movetime_ms: tc.movetime_ms,
        clock: tc.clock,
    };
    let given = match_limit.nodes.is_some()
        || match_limit.depth.is_some()
        || match_limit.movetime_ms.is_some()
        || match_limit.clock.is_some();
    // Without a match-wide limit every engine has its own; the first one's stands in.
    let time_control = if given || !own_limits {
        Some(limit(doc, "time_control", &match_limit)?)
    } else {
        None
    };
    let margin_ms = doc.in_range(
        "time_control.margin_ms",
        tc.margin_ms.unwrap_or(100),
        0,
        Some(3_600_000),
    )?;
    Ok((time_control, margin_ms))
}

/// The `[openings]` table, checked.
fn openings(doc: &Document<'_>, o: OpeningsFile) -> Result<OpeningsConfig, ConfigError> {
    Ok(OpeningsConfig {
        file: PathBuf::from(
            o.file.ok_or_else(|| {
                doc.missing("openings.file", "the path of an opening suite or book")
            })?,
        ),
        format: o.format.map(|name| name.0),
        order: match o.order {
            None | Some(OrderFile::Random) => OpeningOrder::Random,
            Some(OrderFile::Sequential) => OpeningOrder::Sequential,
        },
        plies: o
            .plies
            .map(|p| doc.in_range("openings.plies", p, 0, Some(1000)))
            .transpose()?,
        start: doc.in_range("openings.start", o.start.unwrap_or(1), 1, None)?,
        per_game: o.per_game.unwrap_or(false),
        random_plies: doc.in_range(
            "openings.random_plies",
            o.random_plies.unwrap_or(0),
            0,
            Some(100),
        )?,
    })
}

/// The `[output]` table, checked.
fn output(doc: &Document<'_>, out: OutputFile) -> Result<OutputConfig, ConfigError> {
    let dir = out
        .dir
        .ok_or_else(|| doc.missing("output.dir", "the output directory"))?;
    if dir.is_empty() {
        return Err(doc.invalid_value("output.dir", "a non-empty path"));
    }
    if Path::new(&dir).is_file() {
        return Err(doc.other("output.dir", format!("{dir} is a file, not a directory")));
    }
    let (positions, positions_format, positions_resolve) = positions_options(
        doc,
        out.positions,
        out.positions_format.as_deref(),
        out.positions_resolve.as_deref(),
    )?;
    Ok(OutputConfig {
        dir: PathBuf::from(dir),
        positions,
        positions_format,
        positions_resolve,
        positions_per_game: doc.in_range(
            "output.positions_per_game",
            out.positions_per_game.unwrap_or(12),
            1,
            Some(10_000),
        )?,
        rating_interval: doc.in_range(
            "output.rating_interval",
            out.rating_interval.unwrap_or(10),
            1,
            Some(1_000_000),
        )?,
        pgn_name: pgn_name(doc, out.pgn_name)?,
        pgn_mode: pgn_mode(doc, out.pgn_mode.as_deref())?,
        engine_log: match out.engine_log {
            Some(path) if path.is_empty() => {
                return Err(doc.invalid_value("output.engine_log", "a non-empty path"))
            }
            path => path.map(PathBuf::from),
        },
        format: match out.format {
            None | Some(ResultsFormatFile::Fastchess) => ResultsFormat::Fastchess,
            Some(ResultsFormatFile::Cutechess) => ResultsFormat::Cutechess,
        },
        report_penta: out.report_penta.unwrap_or(true),
        engine_debug: out.engine_debug.unwrap_or(false),
        pgn_style: pgn_style(doc, out.pgn_minimal, out.pgn_notation.as_deref())?,
        move_data: move_data(doc, out.move_data.unwrap_or_default())?,
        final_positions: final_positions(doc, out.final_positions)?,
    })
}

/// `output.positions`, `output.positions_format` and `output.positions_resolve`: the last two
/// only with the first.
fn positions_options(
    doc: &Document<'_>,
    positions: Option<bool>,
    format: Option<&str>,
    resolve: Option<&str>,
) -> Result<(bool, PositionsFormat, PositionsResolve), ConfigError> {
    let positions = positions.unwrap_or(false);
    let positions_format = match format {
        None | Some("epd") => PositionsFormat::Epd,
        Some("bullet") => PositionsFormat::Bullet,
        Some("both") => PositionsFormat::Both,
        Some(_) => {
            return Err(
                doc.invalid_value("output.positions_format", "\"epd\", \"bullet\" or \"both\"")
            )
        }
    };
    if positions_format != PositionsFormat::Epd && !positions {
        return Err(doc.other(
            "output.positions_format",
            "positions are recorded only with `positions = true`".to_string(),
        ));
    }
    let positions_resolve = match resolve {
        None | Some("none") => PositionsResolve::None,
        Some("pv") => PositionsResolve::Pv,
        Some(_) => return Err(doc.invalid_value("output.positions_resolve", "\"none\" or \"pv\"")),
    };
    if positions_resolve != PositionsResolve::None && !positions {
        return Err(doc.other(
            "output.positions_resolve",
            "positions are recorded only with `positions = true`".to_string(),
        ));
    }
    Ok((positions, positions_format, positions_resolve))
}

/// `output.pgn_name`: a file name or a path relative to the output directory.
fn pgn_name(doc: &Document<'_>, name: Option<String>) -> Result<String, ConfigError> {
    match name {
        None => Ok("games.pgn".to_string()),
        Some(name) if name.trim().is_empty() || has_control(&name) => Err(doc.invalid_value(
            "output.pgn_name",
            "a file name (or a path relative to output.dir)",
        )),
        Some(name) => Ok(name),
    }
}

/// `output.pgn_mode`: what to do with a PGN file already there.
fn pgn_mode(doc: &Document<'_>, mode: Option<&str>) -> Result<PgnMode, ConfigError> {
    match mode {
        None | Some("new") => Ok(PgnMode::New),
        Some("append") => Ok(PgnMode::Append),
        Some("replace") => Ok(PgnMode::Replace),
        Some(_) => Err(doc.invalid_value("output.pgn_mode", "\"new\", \"append\" or \"replace\"")),
    }
}

/// `output.pgn_minimal` and `output.pgn_notation`.
fn pgn_style(
    doc: &Document<'_>,
    minimal: Option<bool>,
    notation: Option<&str>,
) -> Result<PgnStyle, ConfigError> {
    let notation = match notation {
        None => PgnNotation::San,
        Some(name) => PgnNotation::from_name(name).ok_or_else(|| {
            doc.invalid_value("output.pgn_notation", "\"san\", \"lan\" or \"uci\"")
        })?,
    };
    Ok(PgnStyle {
        minimal: minimal.unwrap_or(false),
        notation,
    })
}

/// `output.final_positions`: its file (relative to `output.dir`), format and append mode.
fn final_positions(
    doc: &Document<'_>,
    table: Option<FinalPositionsFile>,
) -> Result<Option<FinalPositions>, ConfigError> {
    let Some(t) = table else {
        return Ok(None);
    };
    let full_fen = match t.format.as_deref() {
        None | Some("epd") => false,
        Some("fen") => true,
        Some(_) => {
            return Err(doc.invalid_value("output.final_positions.format", "\"epd\" or \"fen\""))
        }
    };
    match t.file {
        None => Err(doc.missing("output.final_positions.file", "the file to write")),
        Some(name) if name.trim().is_empty() || has_control(&name) => Err(doc.invalid_value(
            "output.final_positions.file",
            "a file name (or a path relative to output.dir)",
        )),
        Some(file) => Ok(Some(FinalPositions {
            file,
            full_fen,
            append: t.append.unwrap_or(true),
        })),
    }
}

/// The `[output.move_data]` table: each `match_lines` entry must be a regular expression.
fn move_data(doc: &Document<'_>, m: MoveDataFile) -> Result<MoveData, ConfigError> {
    let match_lines = m.match_lines.unwrap_or_default();
    for pattern in &match_lines {
        if let Err(e) = regex::Regex::new(pattern) {
            let first = e
                .to_string()
                .lines()
                .last()
                .unwrap_or("")
                .trim()
                .to_string();
            return Err(doc.other(
                "output.move_data.match_lines",
                format!("{pattern:?} is not a regular expression: {first}"),
            ));
        }
    }
    Ok(MoveData {
        timeleft: m.timeleft.unwrap_or(false),
        latency: m.latency.unwrap_or(false),
        nodes: m.nodes.unwrap_or(false),
        seldepth: m.seldepth.unwrap_or(false),
        nps: m.nps.unwrap_or(false),
        hashfull: m.hashfull.unwrap_or(false),
        tbhits: m.tbhits.unwrap_or(false),
        pv: m.pv.unwrap_or(false),
        match_lines,
    })
}

/// The `[adjudication]` table, checked: shared by match and SPSA configurations so both read
/// the same keys with the same ranges.
pub fn read_adjudication(
    doc: &Document<'_>,
    adj: Option<AdjudicationFile>,
) -> Result<Adjudication, ConfigError> {
    let mut adjudication = Adjudication::default();
    if let Some(adj) = adj {
        if let Some(t) = adj.tablebase {
            adjudication.tablebase = Some(read_tablebase(doc, t)?);
        }
        if let Some(d) = adj.draw {
            adjudication.draw = Some(DrawAdjudication {
                move_number: doc.in_range(
                    "adjudication.draw.move_number",
                    d.move_number.unwrap_or(0),
                    0,
                    Some(10_000),
                )?,
                move_count: doc.in_range(
                    "adjudication.draw.move_count",
                    d.move_count.unwrap_or(1),
                    1,
                    Some(10_000),
                )?,
                score_cp: doc.in_range(
                    "adjudication.draw.score_cp",
                    d.score_cp.unwrap_or(0),
                    0,
                    Some(10_000),
                )?,
            });
        }
        if let Some(r) = adj.resign {
            let score_cp = r.score_cp.ok_or_else(|| {
                doc.missing("adjudication.resign.score_cp", "a positive centipawn score")
            })?;
            adjudication.resign = Some(ResignAdjudication {
                move_count: doc.in_range(
                    "adjudication.resign.move_count",
                    r.move_count.unwrap_or(3),
                    1,
                    Some(10_000),
                )?,
                score_cp: doc.in_range(
                    "adjudication.resign.score_cp",
                    score_cp,
                    1,
                    Some(100_000),
                )?,
                two_sided: r.two_sided.unwrap_or(false),
            });
        }
        adjudication.max_moves = adj
            .max_moves
            .map(|m| doc.in_range("adjudication.max_moves", m, 1, Some(100_000)))
            .transpose()?;
    }
    Ok(adjudication)
}

/// `adjudication.tablebase`, with its tables opened (a path without them is refused here).
fn read_tablebase(
    doc: &Document<'_>,
    t: TablebaseFile,
) -> Result<TablebaseAdjudication, ConfigError> {
    let path = t.path.ok_or_else(|| {
        doc.missing(
            "adjudication.tablebase.path",
            "the Syzygy tables' directory",
        )
    })?;
    let results = match t.results.as_deref() {
        None => TablebaseResults::Both,
        Some(text) => TablebaseResults::parse(text).ok_or_else(|| {
            doc.invalid(
                "adjudication.tablebase.results",
                "\"both\", \"win_loss\" or \"draw\"",
                format!("\"{text}\""),
            )
        })?,
    };
    let pieces = doc.in_range(
        "adjudication.tablebase.pieces",
        t.pieces.unwrap_or(0),
        0,
        Some(7),
    )?;
    let tables = crate::tablebase::Tablebases::open(&path)
        .map_err(|e| doc.other("adjudication.tablebase.path", e))?;
    Ok(TablebaseAdjudication {
        path: PathBuf::from(path),
        pieces,
        ignore_50: t.ignore_50.unwrap_or(false),
        results,
        tables,
    })
}

/// The SPRT design, each bound checked under its own key.
fn sprt_params(doc: &Document<'_>, s: SprtFile) -> Result<SprtParams, ConfigError> {
    let elo0 = doc.number(
        "sprt.elo0",
        s.elo0.unwrap_or(0.0),
        "a finite number",
        |_| true,
    )?;
    let elo1 = doc.number(
        "sprt.elo1",
        s.elo1.unwrap_or(5.0),
        &format!("a finite number greater than elo0 ({elo0})"),
        |e| e > elo0,
    )?;
    // An error rate of one half or more is a test no better than a coin toss.
    let probability = "an error rate above 0 and below 0.5";
    let alpha = doc.number("sprt.alpha", s.alpha.unwrap_or(0.05), probability, |p| {
        p > 0.0 && p < 0.5
    })?;
    let beta = doc.number("sprt.beta", s.beta.unwrap_or(0.05), probability, |p| {
        p > 0.0 && p < 0.5
    })?;
    let model = match s.model {
        None => SprtModel::Normalized,
        Some(m) => m.parse::<SprtModel>().map_err(|_| {
            doc.invalid_value("sprt.model", "\"normalized\", \"logistic\" or \"bayeselo\"")
        })?,
    };
    // The checks above are the ones `new` makes; this keeps any future one reported too.
    SprtParams::new(elo0, elo1, alpha, beta, model).map_err(|e| doc.other("sprt", e))
}

/// One limit from a `time_control` table at `key`: exactly one of nodes, depth, movetime_ms,
/// clock.
pub(super) fn limit(
    doc: &Document<'_>,
    key: &str,
    tc: &EngineTimeControlFile,
) -> Result<TimeControl, ConfigError> {
    let given = [
        tc.nodes.is_some(),
        tc.depth.is_some(),
        tc.movetime_ms.is_some(),
        tc.clock.is_some(),
    ]
    .iter()
    .filter(|&&b| b)
    .count();
    if given != 1 {
        return Err(doc.invalid(
            key,
            "exactly one of nodes, depth, movetime_ms, clock",
            format!("a table with {given} of them"),
        ));
    }
    let sub = |name: &str| format!("{key}.{name}");
    Ok(if let Some(n) = tc.nodes {
        TimeControl::Nodes(doc.in_range(&sub("nodes"), n, 1, Some(i64::MAX as u64))?)
    } else if let Some(d) = tc.depth {
        TimeControl::Depth(doc.in_range(&sub("depth"), d, 1, Some(127))?)
    } else if let Some(ms) = tc.movetime_ms {
        let ms = doc.in_range(&sub("movetime_ms"), ms, 1, Some(86_400_000))?;
        TimeControl::MoveTime(Duration::from_millis(ms))
    } else {
        let text = tc.clock.as_deref().expect("one limit is given");
        TimeControl::parse_clock(text).ok_or_else(|| {
            doc.invalid_value(
                &sub("clock"),
                "\"base+increment\" or \"moves/base+increment\" in seconds, e.g. \"10+0.1\" or \"40/60+0.6\"",
            )
        })?
    })
}
