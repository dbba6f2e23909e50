//! The engines' first start, before any game: a bad command stops the run at once, and the
//! configured options fastchess warns about (undeclared, or a value the engine does not accept)
//! are found once, reported and counted.

use super::engines::{start_player, EngineFactory};
use super::error::ArenaError;
use crate::arena::config::{EngineKind, MatchConfig};
use crate::arena::engine::log::LogSink;
use crate::arena::engine::player::{Player, PlayerError};
use crate::arena::game::compliance::Warning;
use crate::arena::output::events::Event;
use crate::arena::output::report::EngineFacts;

/// Starts every engine of `config` once and stops it again, as a run does before its first
/// game: a command that cannot be spawned, an engine that does not answer its protocol's
/// handshake (UCI or xboard) or refuses an option is reported, naming the engine, without a
/// game played or a file written. For a caller that plays the configuration later (the loop's
/// anchor gauntlet, after hours of other stages).
pub fn check_engines(config: &MatchConfig) -> Result<(), ArenaError> {
    let factories = EngineFactory::from_config(config)?;
    let sinks: Vec<Option<LogSink>> = config.engines.iter().map(|_| None).collect();
    // Before hours of other stages, a value the engine does not accept stops here.
    start_engines(config, &factories, &sinks, true, &mut |_| {})?;
    Ok(())
}

/// Starts every engine once before any game, so a bad command or option stops the run at
/// once; returns what the results heading says of each and how many option warnings each had
/// (fastchess's: an option it did not declare, a value it does not accept). With
/// `strict_options` an undeclared option stops the run instead, and so does a refused value
/// with `refuse_values`.
pub(super) fn start_engines(
    config: &MatchConfig,
    factories: &[EngineFactory],
    sinks: &[Option<LogSink>],
    refuse_values: bool,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<(Vec<EngineFacts>, Vec<u64>), ArenaError> {
    let strict = (config.strict_options, refuse_values);
    let mut facts = Vec::new();
    let mut warned = Vec::new();
    for ((factory, engine), sink) in factories.iter().zip(&config.engines).zip(sinks) {
        let player =
            start_player(config, factory, sink.as_ref()).map_err(|source| match source {
                PlayerError::OptionValue { .. } => ArenaError::OptionValue {
                    name: engine.name.clone(),
                    source,
                },
                source => ArenaError::EngineStart {
                    name: engine.name.clone(),
                    source,
                },
            })?;
        let warnings = option_warnings(player.as_ref(), &engine.name, strict)?;
        for warning in &warnings {
            if let Some(sink) = sink {
                sink.note(&warning.fastchess_parts(&engine.name, "").join(" :: "));
            }
            on_event(Event::OptionWarning {
                engine: &engine.name,
                warning,
            });
        }
        warned.push(warnings.len() as u64);
        let (threads, hash) = match &engine.kind {
            EngineKind::Builtin { hash_mb, .. } => {
                (Some("1".to_string()), Some(hash_mb.to_string()))
            }
            EngineKind::Uci { .. } => (player.option_value("Threads"), player.option_value("Hash")),
        };
        facts.push(EngineFacts {
            name: engine.name.clone(),
            time_control: engine
                .time_control
                .clone()
                .unwrap_or_else(|| config.time_control.clone()),
            threads,
            hash,
        });
    }
    Ok((facts, warned))
}

/// The warnings fastchess gives about `player`'s configured options, in configuration order
/// of kind (undeclared ones, then refused values); `strict` (undeclared, refused): the first
/// of that kind is an error instead.
fn option_warnings(
    player: &dyn Player,
    name: &str,
    strict: (bool, bool),
) -> Result<Vec<Warning>, ArenaError> {
    let mut warnings = Vec::new();
    for option in player.undeclared_options() {
        if strict.0 {
            return Err(ArenaError::UndeclaredOption {
                name: name.to_string(),
                option,
            });
        }
        warnings.push(Warning::UndeclaredOption { option });
    }
    for refused in player.refused_options() {
        if strict.1 {
            return Err(ArenaError::OptionValue {
                name: name.to_string(),
                source: refused.to_error(),
            });
        }
        warnings.push(match refused.unreadable {
            None => Warning::InvalidOptionValue {
                option: refused.name,
                value: refused.value,
            },
            Some(reason) => Warning::OptionNotSet {
                option: refused.name,
                value: refused.value,
                reason,
            },
        });
    }
    Ok(warnings)
}
