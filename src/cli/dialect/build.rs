//! The settings read from the line turned into the `MatchConfig` a TOML file would give:
//! engines, the game schedule, the adjudications and the output.

use super::engine::engine_config;
use super::engines_json;
use super::options::Settings;
use super::output::output_location;
use super::tokens::usage_error;
use super::Flavor;
use crate::cli::UsageError;
use sparring::arena::config::{
    Adjudication, ComplianceConfig, EngineConfig, EngineKind, FinalPositions, MatchConfig,
    OutputConfig, PgnMode, ResultsFormat, Seeds, TimeControl, TournamentKind,
};
use std::path::PathBuf;
use std::time::Duration;

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

/// cutechess's and fastchess's `-seeds N`: the first N engines of a gauntlet each play every
/// engine after the seeds; fastchess's seeds also play each other, cutechess-cli's do not.
/// Both read N as at least 1 and at most the engines less one. A round robin has no seeds.
fn seeds(
    s: &mut Settings,
    kind: TournamentKind,
    flavor: Flavor,
    engines: usize,
) -> Result<Seeds, UsageError> {
    let Some(n) = s.seeds else {
        return Ok(Seeds::default());
    };
    if kind == TournamentKind::RoundRobin {
        if n > 1 {
            s.notes.push(format!(
                "-seeds {n}: a round robin plays every pairing, seeded or not; accepted and not used"
            ));
        }
        return Ok(Seeds::default());
    }
    let most = engines.saturating_sub(1).max(1);
    let count = usize::try_from(n).unwrap_or(usize::MAX).clamp(1, most);
    if count as u64 != n.max(1) {
        s.notes.push(format!(
            "-seeds {n}: {engines} engines have at most {most} seeds; playing {count}, as {} does",
            flavor.runner()
        ));
    }
    Ok(Seeds {
        count,
        play_each_other: flavor == Flavor::Fastchess && count > 1,
    })
}

/// The engines of the line (`conf=` read from `engines.json`, `-each` merged, repeated names
/// numbered) and the one time margin they share.
fn engines(s: &Settings) -> Result<(Vec<EngineConfig>, Duration), UsageError> {
    let mut engines: Vec<EngineConfig> = Vec::new();
    let mut margins = Vec::new();
    let mut confs = None;
    for (i, spec) in s.engines.iter().enumerate() {
        let mut spec = spec.clone();
        spec.merge_each(&s.each);
        if let Some(name) = spec.keys.get("conf").cloned() {
            let file = s
                .engines_file
                .clone()
                .unwrap_or_else(|| PathBuf::from("engines.json"));
            let list = match &confs {
                Some(list) => list,
                None => confs.insert(engines_json::load(&file, "-engine conf=")?),
            };
            let conf = list.iter().find(|c| c.name == name).ok_or_else(|| {
                usage_error(format!(
                    "-engine #{} conf={name}: {} has no engine named {name:?}",
                    i + 1,
                    file.display()
                ))
            })?;
            spec.keys.remove("conf");
            spec.apply_conf(conf, &file)?;
        }
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
    Ok((engines, margin))
}

/// One limit for all engines is the match's; different limits stay with their engines.
fn match_limit(engines: &mut [EngineConfig]) -> TimeControl {
    let first = engines[0]
        .time_control
        .clone()
        .expect("every engine has a limit");
    if engines
        .iter()
        .all(|e| e.time_control.as_ref() == Some(&first))
    {
        for e in engines.iter_mut() {
            e.time_control = None;
        }
    }
    first
}

/// `-concurrency N`: N <= 0 is the machine's threads less |N|; more than its threads only
/// with `-force-concurrency`, as in fastchess.
fn concurrency(s: &Settings) -> Result<usize, UsageError> {
    let cores = sparring::available_cores();
    match s.concurrency.unwrap_or(1) {
        n if n <= 0 => Ok((cores as i64 + n).max(1) as usize),
        n if n as u64 > cores as u64 && !s.force_concurrency => Err(usage_error(format!(
            "-concurrency {n}: more than the {cores} threads this machine runs at once (-force-concurrency allows it)"
        ))),
        n => usize::try_from(n)
            .ok()
            .filter(|&n| n <= 1024)
            .ok_or_else(|| usage_error(format!("-concurrency {n}: at most 1024 games at once"))),
    }
}

/// fastchess's `-startup-ms`, `-ucinewgame-ms` and `-ping-ms` (defaults 10000, 60000, 60000):
/// sparring has one engine timeout (start-up, isready answers, a move without a clock), set to
/// the longest of the three waits, so no engine fastchess would wait for is given up on.
fn engine_timeout(s: &mut Settings) -> Result<Duration, UsageError> {
    if s.timeouts.is_empty() {
        return Ok(Duration::from_secs(30));
    }
    let mut waits = [
        ("-startup-ms", 10_000u64),
        ("-ucinewgame-ms", 60_000),
        ("-ping-ms", 60_000),
    ];
    for (option, ms) in &s.timeouts {
        if !(100..=3_600_000).contains(ms) {
            return Err(usage_error(format!(
                "{option} {ms}: expected 100 to 3600000 milliseconds"
            )));
        }
        if let Some(w) = waits.iter_mut().find(|w| w.0 == option) {
            w.1 = *ms;
        }
    }
    let longest = waits.iter().map(|w| w.1).max().unwrap_or(30_000);
    s.notes.push(format!(
        "-startup-ms/-ucinewgame-ms/-ping-ms: sparring has one engine timeout (start-up, isready answers, a move without a clock), set to the longest of the three waits: {longest} ms (tournament.timeout_ms)"
    ));
    Ok(Duration::from_millis(longest))
}

/// `-epdout`: the file made absolute (the records live in a directory of their own), EPD as
/// fastchess writes it or cutechess-cli's whole FEN.
fn final_positions(s: &Settings, flavor: Flavor) -> Result<Option<FinalPositions>, UsageError> {
    let Some((file, append)) = &s.epd_out else {
        return Ok(None);
    };
    let path =
        std::path::absolute(file).map_err(|e| usage_error(format!("-epdout {file}: {e}")))?;
    if path.is_dir() {
        return Err(usage_error(format!(
            "-epdout {file}: is a directory, expected a file"
        )));
    }
    let file = path
        .to_str()
        .ok_or_else(|| usage_error(format!("-epdout {file}: the path is not valid UTF-8")))?
        .to_string();
    Ok(Some(FinalPositions {
        file,
        full_fen: flavor == Flavor::Cutechess,
        append: *append,
    }))
}

/// The `[output]` settings: the records' directory, the PGN, the results lines.
fn output_config(s: &Settings, flavor: Flavor) -> Result<OutputConfig, UsageError> {
    let (dir, pgn_name) = output_location(s)?;
    let format = s.format.unwrap_or(match flavor {
        Flavor::Fastchess => ResultsFormat::Fastchess,
        Flavor::Cutechess => ResultsFormat::Cutechess,
    });
    Ok(OutputConfig {
        dir,
        positions: false,
        positions_per_game: 12,
        positions_format: Default::default(),
        positions_resolve: Default::default(),
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
        engine_debug: s.debug,
        pgn_style: s.pgn_style,
        format,
        // The cutechess lines have no pentanomial line, as in fastchess.
        report_penta: format == ResultsFormat::Fastchess && s.report_penta.unwrap_or(true),
        move_data: s.move_data.clone(),
        final_positions: final_positions(s, flavor)?,
    })
}

pub(super) fn build(s: &mut Settings, flavor: Flavor) -> Result<MatchConfig, UsageError> {
    if s.engines.len() < 2 {
        return Err(usage_error(format!(
            "at least two -engine options are needed, found {}",
            s.engines.len()
        )));
    }
    if s.debug && s.engine_log.is_some() {
        return Err(usage_error(
            "-debug and -log file=: sparring writes the engine traffic to one place; give one of them",
        ));
    }
    let (mut engines, margin) = engines(s)?;
    let time_control = match_limit(&mut engines);
    let kind = s.kind.unwrap_or(TournamentKind::RoundRobin);
    let seeds = seeds(s, kind, flavor, engines.len())?;
    let (rounds, per_game, single_last_game) = schedule(s, flavor)?;
    let mut openings = s.openings.clone();
    if let Some(o) = &mut openings {
        if o.file.as_os_str().is_empty() {
            return Err(usage_error("-pgndepth: needs -pgnin FILE or -epdin FILE"));
        }
        o.per_game = per_game;
    }
    let compliance = compliance_config(s, flavor, &engines);
    Ok(MatchConfig {
        source: "the command line".to_string(),
        event: s
            .event
            .clone()
            .unwrap_or_else(|| "sparring match".to_string()),
        site: s.site.clone().unwrap_or_else(|| "?".to_string()),
        kind,
        seeds,
        swap_sides: !s.noswap,
        reverse_sides: s.reverse,
        wait: Duration::from_millis(s.wait_ms.unwrap_or(0)),
        variant: s.variant,
        rounds,
        single_last_game,
        concurrency: concurrency(s)?,
        seed: s.seed.unwrap_or(1),
        time_control,
        margin,
        timeout: engine_timeout(s)?,
        openings,
        adjudication: Adjudication {
            tablebase: super::tablebase::build(&s.tablebase, &mut s.notes)?,
            draw: s.draw.clone(),
            resign: s.resign.clone(),
            max_moves: s.max_moves,
        },
        sprt: s.sprt,
        output: output_config(s, flavor)?,
        engines,
        max_restarts: 3,
        strict_options: s.strict,
        compliance,
    })
}

/// The `[compliance]` table of the line: fastchess's warning lines on the fastchess dialect's
/// console (cutechess-cli prints none: there they go to the engine log and the end-of-run
/// count), the CRC32 line only with a PGN file (`-pgnout`), and CPU pinning only for
/// single-threaded engines, as in fastchess.
fn compliance_config(
    s: &mut Settings,
    flavor: Flavor,
    engines: &[EngineConfig],
) -> ComplianceConfig {
    let mut c = s.compliance.clone();
    // fastchess pins only single-threaded engines: one CPU for a game of several threads each
    // would starve them.
    let threaded = engines.iter().any(|e| match &e.kind {
        EngineKind::Uci { options, .. } => options
            .iter()
            .any(|(k, v)| k == "Threads" && v.trim().parse::<u64>().is_ok_and(|n| n > 1)),
        EngineKind::Builtin { .. } => false,
    });
    if threaded && c.affinity.take().is_some() {
        s.notes.push(
            "-use-affinity: an engine has option.Threads above 1, so no game is pinned (as in fastchess)"
                .to_string(),
        );
    }
    c.warning_lines = flavor == Flavor::Fastchess;
    c.crc32 &= s.pgn_file.is_some();
    c.pgn_label = s.pgn_file.clone().filter(|_| c.crc32);
    c
}
