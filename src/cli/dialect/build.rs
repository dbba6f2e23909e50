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
    Adjudication, EngineConfig, MatchConfig, OutputConfig, PgnMode, ResultsFormat, TournamentKind,
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

/// cutechess's `-seeds N`: a gauntlet's seeds play every other engine. sparring's gauntlet has
/// one seed, the first engine; a round robin has none to set (cutechess ignores them there).
fn seeds(s: &mut Settings, kind: TournamentKind) -> Result<(), UsageError> {
    match (s.seeds, kind) {
        (None | Some(1), _) => Ok(()),
        (Some(n), TournamentKind::RoundRobin) => {
            s.notes.push(format!(
                "-seeds {n}: a round robin plays every pairing, seeded or not; accepted and not used"
            ));
            Ok(())
        }
        (Some(n), TournamentKind::Gauntlet) => Err(usage_error(format!(
            "-seeds {n}: a gauntlet with more than one seed is not implemented by sparring (its gauntlet's seed is the first engine)"
        ))),
    }
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
                None => confs.insert(engines_json::load(&file)?),
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
    let kind = s.kind.unwrap_or(TournamentKind::RoundRobin);
    seeds(s, kind)?;
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
        kind,
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
            tablebase: super::tablebase::build(&s.tablebase, &mut s.notes)?,
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
            engine_debug: s.debug,
            format,
            report_penta,
            move_data: s.move_data.clone(),
        },
        engines,
        max_restarts: 3,
        strict_options: s.strict,
    })
}
