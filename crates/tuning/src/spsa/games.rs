//! The games SPSA measures: the built-in engine in process (perturbed weights and search
//! constants, no protocol), or an external engine started with the perturbed values as UCI
//! options. Both go through the runner's arbiter (`arena::play_game`), so every rule and
//! adjudication of `sparring match` applies.

use super::config::{SpsaConfig, SpsaEngine};
use super::names::{EngineParams, Target};
use super::run::{GameJob, GameOutcome, GameWorker, Objective};
use super::SpsaError;
use crate::arena::config::{Adjudication, OpeningOrder, TimeControl, TournamentKind};
use crate::arena::engine::{UciCommand, UciPlayer};
use crate::arena::{
    open_book, play_game, BookRequest, BuiltinPlayer, GameSetup, OpeningSource, Player, Schedule,
};
use crate::board::GameResult;
use crate::rng::Rng;
use crate::search::ParamKind;
use std::sync::Arc;
use std::time::Duration;

/// The stream tag of the random opening moves.
const OPENING_STREAM: u64 = 0x6f70_656e << 24;

/// Games as a configuration sets them up: openings, time control, adjudication.
pub(crate) struct GameRules {
    openings: Arc<dyn OpeningSource>,
    order: Schedule,
    random_plies: usize,
    seed: u64,
    time_control: TimeControl,
    margin: Duration,
    timeout: Duration,
    adjudication: Adjudication,
}

impl GameRules {
    /// The rules of `config`, with its opening book loaded (bad lines skipped).
    pub(crate) fn from_config(config: &SpsaConfig) -> Result<GameRules, SpsaError> {
        let openings: Arc<dyn OpeningSource> = match &config.openings {
            None => Arc::new(crate::arena::StartPosition),
            Some(o) => {
                let request = BookRequest {
                    file: &o.file,
                    format: o.format.as_deref(),
                    plies: o.plies,
                    start: 1,
                    chess960: false,
                };
                let book = open_book(&request).map_err(|source| SpsaError::Openings {
                    config: config.source.clone(),
                    source,
                })?;
                Arc::new(book)
            }
        };
        let plan = &config.plan;
        let total_pairs = plan.schedule.iterations * plan.pairs_per_iteration;
        // A seeded permutation of the suite, walked pair by pair over the whole run.
        let order = Schedule::new(
            TournamentKind::Gauntlet,
            2,
            total_pairs,
            openings.count(),
            OpeningOrder::Random,
            1,
            plan.seed,
        );
        Ok(GameRules {
            openings,
            order,
            random_plies: config.openings.as_ref().map_or(0, |o| o.random_plies),
            seed: plan.seed,
            time_control: config.time_control.clone(),
            margin: config.margin,
            timeout: config.timeout,
            adjudication: config.adjudication.clone(),
        })
    }

    /// Plays `job` between two started players (plus, minus).
    fn play(
        &self,
        job: &GameJob<'_>,
        plus: &mut dyn Player,
        minus: &mut dyn Player,
    ) -> GameOutcome {
        let mut rng = Rng::derive(self.seed, OPENING_STREAM ^ job.global_pair);
        let opening = self
            .openings
            .opening(self.order.opening_for_round(job.global_pair), &mut rng)
            .with_random_moves(self.random_plies, &mut rng);
        let names = if job.plus_is_white {
            ["plus", "minus"]
        } else {
            ["minus", "plus"]
        };
        let setup = GameSetup {
            game_id: 2 * job.global_pair + 1 + u64::from(!job.plus_is_white),
            pair_id: job.global_pair + 1,
            round: job.iteration + 1,
            event: "sparring spsa",
            site: "?",
            opening_id: opening.id,
            start: &opening.start,
            book_moves: &opening.moves,
            names,
            engines: if job.plus_is_white { [0, 1] } else { [1, 0] },
            time_controls: [&self.time_control; 2],
            margin: self.margin,
            timeout: self.timeout,
            adjudication: &self.adjudication,
            engine_log: None,
        };
        let record = if job.plus_is_white {
            play_game(&setup, [plus, minus])
        } else {
            play_game(&setup, [minus, plus])
        };
        match (record.result, job.plus_is_white) {
            (GameResult::Draw, _) => GameOutcome::Draw,
            (GameResult::WhiteWins, true) | (GameResult::BlackWins, false) => GameOutcome::PlusWins,
            _ => GameOutcome::MinusWins,
        }
    }
}

/// The built-in engine in process.
pub struct BuiltinObjective {
    rules: GameRules,
    base: EngineParams,
    targets: Vec<Target>,
    hash_mb: usize,
}

impl BuiltinObjective {
    /// The objective of a configuration whose engine is built in.
    pub fn new(config: &SpsaConfig) -> Result<BuiltinObjective, SpsaError> {
        let SpsaEngine::Builtin {
            base,
            targets,
            hash_mb,
            ..
        } = &config.engine
        else {
            return Err(SpsaError::WrongEngine {
                expected: "the built-in one",
            });
        };
        Ok(BuiltinObjective {
            rules: GameRules::from_config(config)?,
            base: (**base).clone(),
            targets: targets.clone(),
            hash_mb: *hash_mb,
        })
    }

    /// The engine's parameters with `values` in place.
    pub(crate) fn params_with(&self, values: &[f64]) -> EngineParams {
        with_values(&self.base, &self.targets, values)
    }

    fn player(&self, values: &[f64]) -> Result<BuiltinPlayer, SpsaError> {
        let params = self.params_with(values);
        BuiltinPlayer::with_search_params(Arc::new(params.eval), params.search, self.hash_mb)
            .map_err(SpsaError::Engine)
    }
}

/// `base` with each target set to its value.
pub(crate) fn with_values(base: &EngineParams, targets: &[Target], values: &[f64]) -> EngineParams {
    let mut params = base.clone();
    params.set_all(targets, values);
    params
}

struct BuiltinWorker<'a>(&'a BuiltinObjective);

impl GameWorker for BuiltinWorker<'_> {
    fn play(&mut self, job: &GameJob<'_>) -> Result<GameOutcome, SpsaError> {
        let mut plus = self.0.player(job.plus)?;
        let mut minus = self.0.player(job.minus)?;
        Ok(self.0.rules.play(job, &mut plus, &mut minus))
    }
}

impl Objective for BuiltinObjective {
    fn worker(&self) -> Result<Box<dyn GameWorker + '_>, SpsaError> {
        Ok(Box::new(BuiltinWorker(self)))
    }
}

/// An external engine, started for each game with the values as UCI options.
pub struct UciObjective {
    rules: GameRules,
    command: UciCommand,
    names: Vec<String>,
    kinds: Vec<ParamKind>,
}

/// A value as a UCI option value: integers without a fraction.
pub(crate) fn option_value(kind: ParamKind, value: f64) -> String {
    match kind {
        ParamKind::Int => format!("{}", value.round() as i64),
        ParamKind::Float => format!("{value}"),
    }
}

impl UciObjective {
    /// The objective of a configuration whose engine is external.
    pub fn new(config: &SpsaConfig) -> Result<UciObjective, SpsaError> {
        let SpsaEngine::Uci {
            command,
            args,
            options,
            working_dir,
        } = &config.engine
        else {
            return Err(SpsaError::WrongEngine {
                expected: "an external one",
            });
        };
        Ok(UciObjective {
            rules: GameRules::from_config(config)?,
            command: UciCommand {
                command: command.clone(),
                args: args.clone(),
                options: options.clone(),
                working_dir: working_dir.clone(),
            },
            names: config.plan.params.iter().map(|p| p.name.clone()).collect(),
            kinds: config.plan.params.iter().map(|p| p.kind).collect(),
        })
    }

    fn player(&self, values: &[f64]) -> Result<UciPlayer, SpsaError> {
        let mut command = self.command.clone();
        for ((name, kind), &value) in self.names.iter().zip(&self.kinds).zip(values) {
            command
                .options
                .push((name.clone(), option_value(*kind, value)));
        }
        UciPlayer::start(&command, self.rules.timeout).map_err(SpsaError::Engine)
    }
}

struct UciWorker<'a>(&'a UciObjective);

impl GameWorker for UciWorker<'_> {
    fn play(&mut self, job: &GameJob<'_>) -> Result<GameOutcome, SpsaError> {
        let mut plus = self.0.player(job.plus)?;
        let mut minus = self.0.player(job.minus)?;
        Ok(self.0.rules.play(job, &mut plus, &mut minus))
    }
}

impl Objective for UciObjective {
    fn worker(&self) -> Result<Box<dyn GameWorker + '_>, SpsaError> {
        Ok(Box::new(UciWorker(self)))
    }
}
