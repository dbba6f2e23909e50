//! The engines of a run: how each one's players are made, started (and restarted after a
//! failure), and how a worker plays one scheduled game with them.

use super::error::ArenaError;
use crate::arena::config::{
    BuiltinSyzygy, EngineConfig, EngineKind, MatchConfig, Protocol, TimeControl,
};
use crate::arena::engine::log::{LogSink, LoggedPlayer};
use crate::arena::engine::player::{BuiltinPlayer, Player, PlayerError};
use crate::arena::engine::{
    check_options, BookPlayer, EngineBook, ExternalSettings, UciCommand, UciPlayer, XboardPlayer,
};
use crate::arena::game::{play_game_checked, GameSetup, GameWarning};
use crate::arena::matchmaking::schedule::GameSpec;
use crate::eval::EvalParams;
use crate::nnue::Network;
use crate::openings::PolyglotBook;
use crate::record::{GameRecord, Termination};
use crate::search::{Evaluator, SearchParams, SearchTablebases, Searcher};
use regex::Regex;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

/// How to create a fresh player of one engine (on start and after a failure).
#[derive(Clone)]
pub(crate) enum EngineFactory {
    /// The built-in engine with these weights, search constants and table size.
    Builtin {
        /// The evaluation weights, shared by every player of this engine.
        params: Arc<EvalParams>,
        /// The network it evaluates with instead (`builtin.net`), shared likewise.
        net: Option<Arc<Network>>,
        /// The search constants (`builtin.search`, else the compiled-in ones).
        search: Arc<SearchParams>,
        /// Transposition table size per player.
        hash_mb: usize,
        /// The Syzygy tables its search probes (`builtin.syzygy`).
        syzygy: Option<SearchTablebases>,
    },
    /// An external UCI engine.
    Uci {
        /// How to start it.
        command: UciCommand,
        /// cutechess's per-engine keys (pondering, ...).
        settings: ExternalSettings,
        /// Its own book (`book`), loaded.
        book: Option<EngineBook>,
    },
    /// An external xboard (CECP) engine, started the same way.
    Xboard {
        /// How to start it.
        command: UciCommand,
        /// cutechess's per-engine keys (pondering, ...).
        settings: ExternalSettings,
        /// Its time control: a node limit needs `feature nps=1`, checked at start-up.
        time_control: TimeControl,
        /// Its own book (`book`), loaded.
        book: Option<EngineBook>,
    },
}

impl EngineFactory {
    /// Starts a player; `timeout` bounds an external engine's handshake.
    pub(crate) fn start(
        &self,
        timeout: std::time::Duration,
    ) -> Result<Box<dyn Player>, PlayerError> {
        self.start_logged(timeout, None)
    }

    /// Starts a player whose engine traffic goes to the engine log when `log` is given (the
    /// built-in engine's requests and answers in UCI words).
    pub(crate) fn start_logged(
        &self,
        timeout: std::time::Duration,
        log: Option<&LogSink>,
    ) -> Result<Box<dyn Player>, PlayerError> {
        match self {
            EngineFactory::Builtin {
                params,
                net,
                search,
                hash_mb,
                syzygy,
            } => {
                let mut searcher = Searcher::with_search_params(
                    params.clone(),
                    SearchParams::clone(search),
                    *hash_mb,
                )?;
                if let Some(net) = net {
                    searcher.set_evaluator(&Evaluator::Net(net.clone()));
                }
                searcher.set_tablebases(syzygy.clone());
                let player = Box::new(BuiltinPlayer::with_backend(Box::new(searcher)));
                Ok(match log {
                    Some(log) => Box::new(LoggedPlayer::new(player, log.fresh())),
                    None => player,
                })
            }
            EngineFactory::Uci {
                command,
                settings,
                book,
            } => {
                let player = UciPlayer::start_with(
                    command,
                    settings,
                    settings.scaled(timeout),
                    log.map(LogSink::fresh),
                )?;
                Ok(with_book(Box::new(player), book))
            }
            EngineFactory::Xboard {
                command,
                settings,
                time_control,
                book,
            } => {
                let log = log.map(LogSink::fresh);
                let timeout = settings.scaled(timeout);
                let player = XboardPlayer::start_with(command, settings, timeout, log)?;
                player.check_time_control(time_control)?;
                Ok(with_book(Box::new(player), book))
            }
        }
    }

    /// Builds the factories of a configuration: weights files load once each and are shared.
    /// Settings that cannot work (a table larger than the machine, an option that would break
    /// its UCI line) are refused here, before any engine starts.
    pub(crate) fn from_config(config: &MatchConfig) -> Result<Vec<EngineFactory>, ArenaError> {
        let mut loaded: HashMap<Option<&Path>, Arc<EvalParams>> = HashMap::new();
        let mut nets: HashMap<&Path, Arc<Network>> = HashMap::new();
        let mut factories = Vec::new();
        for engine in &config.engines {
            let factory = match &engine.kind {
                EngineKind::Builtin {
                    weights,
                    net,
                    hash_mb,
                    search,
                    syzygy,
                } => {
                    check_hash(config, engine, *hash_mb)?;
                    let params = shared_weights(&mut loaded, engine, weights.as_deref())?;
                    let net = shared_net(&mut nets, engine, net.as_deref())?;
                    let builtin = BuiltinSetup {
                        params,
                        net,
                        hash_mb: *hash_mb,
                        search: search.as_deref(),
                        syzygy: syzygy.as_ref(),
                    };
                    builtin_factory(engine, builtin)?
                }
                EngineKind::Uci {
                    command,
                    args,
                    options,
                    working_dir,
                } => {
                    check_options(options).map_err(|source| ArenaError::EngineStart {
                        name: engine.name.clone(),
                        source,
                    })?;
                    let command = UciCommand {
                        command: command.clone(),
                        args: args.clone(),
                        options: options.clone(),
                        working_dir: working_dir.clone(),
                    };
                    external_factory(config, engine, command)?
                }
            };
            factories.push(factory);
        }
        Ok(factories)
    }
}

/// Refuses a built-in `engine` whose table is larger than the machine allows.
fn check_hash(
    config: &MatchConfig,
    engine: &EngineConfig,
    hash_mb: usize,
) -> Result<(), ArenaError> {
    // The limit the engine itself advertises; players still allocate fallibly.
    let available_mb = crate::search::max_hash_mb();
    if hash_mb > available_mb {
        return Err(ArenaError::HashTooLarge {
            config: config.source.clone(),
            name: engine.name.clone(),
            hash_mb,
            available_mb,
        });
    }
    Ok(())
}

/// The evaluation weights of `weights` (None: the compiled-in ones), loaded on first use and
/// shared through `loaded` by every engine naming the same file.
fn shared_weights<'c>(
    loaded: &mut HashMap<Option<&'c Path>, Arc<EvalParams>>,
    engine: &EngineConfig,
    weights: Option<&'c Path>,
) -> Result<Arc<EvalParams>, ArenaError> {
    if let Some(params) = loaded.get(&weights) {
        return Ok(params.clone());
    }
    let params = match weights {
        Some(path) => EvalParams::load(path).map_err(|source| ArenaError::Weights {
            name: engine.name.clone(),
            source: Box::new(source),
        })?,
        None => EvalParams::default(),
    };
    let params = Arc::new(params);
    loaded.insert(weights, params.clone());
    Ok(params)
}

/// The network of `net` (None: none), loaded on first use and shared through `nets` by every
/// engine naming the same file.
fn shared_net<'c>(
    nets: &mut HashMap<&'c Path, Arc<Network>>,
    engine: &EngineConfig,
    net: Option<&'c Path>,
) -> Result<Option<Arc<Network>>, ArenaError> {
    let Some(path) = net else {
        return Ok(None);
    };
    if let Some(net) = nets.get(path) {
        return Ok(Some(net.clone()));
    }
    let loaded = Network::load(path).map_err(|source| ArenaError::Network {
        name: engine.name.clone(),
        source: Box::new(source),
    })?;
    let loaded = Arc::new(loaded);
    nets.insert(path, loaded.clone());
    Ok(Some(loaded))
}

/// What a built-in engine plays with, loaded.
struct BuiltinSetup<'c> {
    params: Arc<EvalParams>,
    net: Option<Arc<Network>>,
    hash_mb: usize,
    search: Option<&'c Path>,
    syzygy: Option<&'c BuiltinSyzygy>,
}

/// The factory of a built-in `engine` with these weights (or net): its search constants
/// loaded, its Syzygy tables shared.
fn builtin_factory(
    engine: &EngineConfig,
    setup: BuiltinSetup<'_>,
) -> Result<EngineFactory, ArenaError> {
    let search =
        SearchParams::load_or_default(setup.search).map_err(|source| ArenaError::SearchParams {
            name: engine.name.clone(),
            source: Box::new(source),
        })?;
    Ok(EngineFactory::Builtin {
        params: setup.params,
        net: setup.net,
        search: Arc::new(search),
        hash_mb: setup.hash_mb,
        syzygy: setup.syzygy.map(|s| SearchTablebases {
            tables: s.tables.clone(),
            probe_limit: s.probe_limit,
        }),
    })
}

/// The factory of an external `engine` started by `command`: UCI or xboard by its protocol,
/// with its own book loaded.
fn external_factory(
    config: &MatchConfig,
    engine: &EngineConfig,
    command: UciCommand,
) -> Result<EngineFactory, ArenaError> {
    let mut settings = engine.settings.clone();
    // An xboard engine that reads Syzygy tables is told the run's.
    settings.syzygy_path = config
        .adjudication
        .tablebase
        .as_ref()
        .map(|t| t.path.clone());
    let book = engine_book(config, engine)?;
    Ok(match engine.protocol {
        Protocol::Uci => EngineFactory::Uci {
            command,
            settings,
            book,
        },
        Protocol::Xboard => EngineFactory::Xboard {
            command,
            settings,
            book,
            time_control: engine
                .time_control
                .clone()
                .unwrap_or_else(|| config.time_control.clone()),
        },
    })
}

/// `player` behind its own book, when it has one.
fn with_book(player: Box<dyn Player>, book: &Option<EngineBook>) -> Box<dyn Player> {
    match book {
        Some(book) => Box::new(BookPlayer::new(player, book.clone())),
        None => player,
    }
}

/// An external engine's own book (`book`, `book_depth`), loaded; None without one.
fn engine_book(
    config: &MatchConfig,
    engine: &EngineConfig,
) -> Result<Option<EngineBook>, ArenaError> {
    let Some(path) = &engine.settings.book else {
        return Ok(None);
    };
    let book = PolyglotBook::load(path).map_err(|source| ArenaError::EngineBook {
        name: engine.name.clone(),
        source: Box::new(source),
    })?;
    Ok(Some(EngineBook {
        book: Arc::new(book),
        depth: engine
            .settings
            .book_depth
            .unwrap_or(ExternalSettings::DEFAULT_BOOK_DEPTH),
        seed: config.seed,
    }))
}

/// Starts a player of `factory` for the run's variant: in Chess960 it is switched to Chess960
/// before its first game.
pub(super) fn start_player(
    config: &MatchConfig,
    factory: &EngineFactory,
    sink: Option<&LogSink>,
) -> Result<Box<dyn Player>, PlayerError> {
    let mut player = factory.start_logged(config.timeout, sink)?;
    if config.variant.is_chess960() {
        player.enable_chess960()?;
    }
    let patterns = &config.output.move_data.match_lines;
    if !patterns.is_empty() {
        // Checked when the configuration was read.
        let compiled: Vec<Regex> = patterns.iter().filter_map(|p| Regex::new(p).ok()).collect();
        player.keep_lines(compiled.into());
    }
    Ok(player)
}

/// Starts engine `e` if it has no player, trying up to `tournament.max_restarts` times in a row.
pub(super) fn ensure_started(
    config: &MatchConfig,
    e: usize,
    factories: &[EngineFactory],
    sinks: &[Option<LogSink>],
    players: &mut [Option<Box<dyn Player>>],
) -> Result<(), ArenaError> {
    if players[e].is_some() {
        return Ok(());
    }
    let mut last_error = None;
    let attempts = config.max_restarts.max(1);
    for _ in 0..attempts {
        match start_player(config, &factories[e], sinks[e].as_ref()) {
            Ok(p) => {
                players[e] = Some(p);
                return Ok(());
            }
            Err(err) => last_error = Some(err),
        }
    }
    Err(ArenaError::EngineRestart {
        name: config.engines[e].name.clone(),
        attempts,
        source: last_error.expect("at least one attempt"),
    })
}

/// Plays one scheduled game on a worker, starting players as needed and replacing one that
/// failed. An engine that cannot be started any more stops the run (the game is not recorded,
/// so a resumed run plays it). Gives the game and the compliance warnings about its moves
/// (also written to the engine log, when one is kept).
pub(super) fn play_one(
    config: &MatchConfig,
    spec: &GameSpec,
    opening: &crate::openings::Opening,
    names: &[String],
    factories: &[EngineFactory],
    sinks: &[Option<LogSink>],
    players: &mut [Option<Box<dyn Player>>],
) -> Result<(GameRecord, Vec<GameWarning>), ArenaError> {
    let [w, b] = spec.engines;
    let time_control = |e: usize| {
        config.engines[e]
            .time_control
            .as_ref()
            .unwrap_or(&config.time_control)
    };
    let setup = GameSetup {
        game_id: spec.game_id,
        pair_id: spec.pair_id,
        round: spec.round,
        event: &config.event,
        site: &config.site,
        opening_id: opening.id,
        start: &opening.start,
        book_moves: &opening.moves,
        names: [&names[w], &names[b]],
        engines: [w, b],
        time_controls: [time_control(w), time_control(b)],
        margin: config.margin,
        timeout: config.timeout,
        adjudication: &config.adjudication,
        engine_log: config.output.engine_log.as_deref(),
    };
    for &e in &[w, b] {
        ensure_started(config, e, factories, sinks, players)?;
        if let Some(player) = players[e].as_mut() {
            player.set_log_game(spec.game_id);
        }
    }
    let mut white = players[w].take().expect("started above");
    let mut black = players[b].take().expect("started above");
    let (mut record, warnings) = play_game_checked(
        &setup,
        [white.as_mut(), black.as_mut()],
        config.compliance.checks(),
    );
    for (color, warning) in &warnings {
        let (e, opponent) = match color {
            crate::board::Color::White => (w, b),
            crate::board::Color::Black => (b, w),
        };
        if let Some(sink) = &sinks[e] {
            let text = warning.fastchess_parts(&names[e], &names[opponent]);
            sink.note_in_game(spec.game_id, &text.join(" :: "));
        }
    }
    record.chess960 |= config.variant.is_chess960();
    players[w] = Some(white);
    players[b] = Some(black);
    // `restart=on`: a fresh engine for the next game (the old one quits and is reaped); so
    // for one out of step with its engine (it ignored `stop` after pondering).
    for e in [w, b] {
        let stale = players[e].as_ref().is_some_and(|p| p.needs_restart());
        if config.engines[e].restart || stale {
            players[e] = None;
        }
    }
    // An engine that failed may be hung or half-dead: start it afresh for the next game (the
    // old one is dropped: its process group is killed).
    if !matches!(
        record.termination,
        Termination::Normal | Termination::Adjudication(_)
    ) {
        let loser = match record.result {
            crate::board::GameResult::WhiteWins => Some(b),
            crate::board::GameResult::BlackWins => Some(w),
            crate::board::GameResult::Draw => None,
        };
        match loser {
            Some(e) => players[e] = None,
            None => {
                players[w] = None;
                players[b] = None;
            }
        }
    }
    Ok((record, warnings))
}
