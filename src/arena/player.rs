//! Players: the in-process engine and external UCI engines behind one trait. The arbiter trusts
//! neither: it checks every move, and every failure becomes a scored, explained game.

use crate::board::{Move, Position};
use crate::eval::EvalParams;
use crate::search::{Score, SearchLimits, Searcher};
use std::sync::Arc;
use std::time::Duration;
use thiserror::Error;

/// One move request: the game so far and the limits for this move.
pub struct GoRequest<'a> {
    pub start: &'a Position,
    pub moves: &'a [Move],
    pub limits: &'a SearchLimits,
    /// How long to wait for the answer before the engine counts as stalled (or out of time).
    pub deadline: Duration,
}

/// What a player answered: its move as text (checked by the arbiter) and what it said about it.
#[derive(Clone, Debug, Default)]
pub struct EngineReply {
    pub bestmove: String,
    /// From the mover's point of view.
    pub score: Option<Score>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
}

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum PlayerError {
    #[error("cannot start `{command}`: {reason}")]
    Spawn { command: String, reason: String },
    #[error("`{command}` did not answer `{expected}` within {waited_ms} ms")]
    Handshake {
        command: String,
        expected: String,
        waited_ms: u128,
    },
    /// The engine exited or closed its output.
    #[error("the engine disconnected{detail}")]
    Disconnected { detail: String },
    /// No answer in time: a hang (without a clock) or a flag fall (with one).
    #[error("no answer within {waited_ms} ms")]
    Timeout { waited_ms: u128 },
    #[error("cannot load weights: {0}")]
    Weights(String),
}

pub trait Player: Send {
    /// The name the engine gives itself (UCI `id name`), for the PGN.
    fn id_name(&self) -> &str;
    /// Prepares for a new game (clears tables; UCI `ucinewgame`).
    fn new_game(&mut self) -> Result<(), PlayerError>;
    /// Asks for a move.
    fn go(&mut self, request: &GoRequest<'_>) -> Result<EngineReply, PlayerError>;
}

/// The project's engine, in process: its own searcher and table, weights shared read-only.
pub struct BuiltinPlayer {
    searcher: Searcher,
}

impl BuiltinPlayer {
    pub fn new(params: Arc<EvalParams>, hash_mb: usize) -> BuiltinPlayer {
        BuiltinPlayer {
            searcher: Searcher::new(params, hash_mb),
        }
    }
}

impl Player for BuiltinPlayer {
    fn id_name(&self) -> &str {
        crate::uci::ENGINE_NAME
    }

    fn new_game(&mut self) -> Result<(), PlayerError> {
        self.searcher.clear();
        Ok(())
    }

    fn go(&mut self, request: &GoRequest<'_>) -> Result<EngineReply, PlayerError> {
        let mut pos = request.start.clone();
        let mut keys = Vec::with_capacity(request.moves.len());
        for &mv in request.moves {
            keys.push(pos.key());
            pos.make_move(mv);
        }
        let result = self.searcher.search(&pos, &keys, request.limits, |_| {});
        Ok(EngineReply {
            bestmove: result.best_move.to_string(),
            score: Some(result.score),
            depth: Some(result.depth),
            nodes: Some(result.nodes),
        })
    }
}
