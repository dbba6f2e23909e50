//! A scripted in-process player for the arena's unit tests: it answers with a given list of
//! UCI moves (legal or not), reports the scores and depths it is told to, spends virtual time,
//! and fails on cue, so the arbiter's rules, adjudications and clocks get fast, exact tests.

use super::player::{EngineReply, GoRequest, Player, PlayerError};
use crate::score::Score;
use crate::search::Clock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// A virtual clock in milliseconds, shared by the arbiter (as its `now`) and both players.
#[derive(Clone, Default)]
pub(crate) struct VirtualClock(Arc<AtomicU64>);

impl VirtualClock {
    /// The time since the clock's origin.
    pub(crate) fn now(&self) -> Duration {
        Duration::from_millis(self.0.load(Ordering::SeqCst))
    }

    fn advance(&self, by: Duration) {
        let ms = u64::try_from(by.as_millis()).expect("a test's think time fits in u64 ms");
        self.0.fetch_add(ms, Ordering::SeqCst);
    }
}

/// What one move request carried, as the player saw it.
#[derive(Clone, Debug)]
pub(crate) struct Seen {
    /// The clocks sent (None without a clock control).
    pub(crate) clock: Option<Clock>,
    /// How long the arbiter waits for the answer.
    pub(crate) deadline: Duration,
    /// How many moves (book moves included) the request listed.
    pub(crate) moves: usize,
}

/// A player reading its answers from a script. The n-th request (0-based) gets the n-th move;
/// past the end of the script it answers an empty `bestmove` (an illegal move).
pub(crate) struct Scripted {
    moves: Vec<String>,
    scores: Vec<Option<Score>>,
    depths: Vec<Option<u32>>,
    /// The score of moves with no score of their own.
    score: Option<Score>,
    think: Duration,
    /// Per request: a think time replacing `think`.
    think_at: Vec<(usize, Duration)>,
    clock: VirtualClock,
    new_game_error: Option<PlayerError>,
    /// Answer the n-th request with this error instead of a move.
    go_error: Option<(usize, PlayerError)>,
    /// What each request carried.
    pub(crate) seen: Vec<Seen>,
}

impl Scripted {
    /// A player answering `moves` in turn, taking no time on `clock`.
    pub(crate) fn new(moves: &[&str], clock: &VirtualClock) -> Scripted {
        Scripted {
            moves: moves.iter().map(|m| (*m).to_string()).collect(),
            scores: Vec::new(),
            depths: Vec::new(),
            score: None,
            think: Duration::ZERO,
            think_at: Vec::new(),
            clock: clock.clone(),
            new_game_error: None,
            go_error: None,
            seen: Vec::new(),
        }
    }

    /// Reports `score` with every move that has no score of its own.
    pub(crate) fn score(mut self, score: Score) -> Scripted {
        self.score = Some(score);
        self
    }

    /// Reports these scores with the moves, in order (centipawns).
    pub(crate) fn scores_cp(mut self, cp: &[i32]) -> Scripted {
        self.scores = cp.iter().map(|&c| Some(Score::Cp(c))).collect();
        self
    }

    /// Reports these depths with the moves, in order (depth 1 after them).
    pub(crate) fn depths(mut self, depths: &[u32]) -> Scripted {
        self.depths = depths.iter().map(|&d| Some(d)).collect();
        self
    }

    /// Spends `ms` of virtual time on every move.
    pub(crate) fn think_ms(mut self, ms: u64) -> Scripted {
        self.think = Duration::from_millis(ms);
        self
    }

    /// Spends `ms` of virtual time on the n-th move (0-based) instead.
    pub(crate) fn think_ms_at(mut self, n: usize, ms: u64) -> Scripted {
        self.think_at.push((n, Duration::from_millis(ms)));
        self
    }

    /// Fails `new_game` with `error`.
    pub(crate) fn fail_new_game(mut self, error: PlayerError) -> Scripted {
        self.new_game_error = Some(error);
        self
    }

    /// Answers the n-th request (0-based) with `error`.
    pub(crate) fn fail_at(mut self, n: usize, error: PlayerError) -> Scripted {
        self.go_error = Some((n, error));
        self
    }

    /// Closes its pipe when asked for the n-th move (0-based).
    pub(crate) fn disconnect_at(self, n: usize) -> Scripted {
        self.fail_at(
            n,
            PlayerError::Disconnected {
                detail: String::new(),
            },
        )
    }
}

impl Player for Scripted {
    fn id_name(&self) -> &str {
        "scripted"
    }

    fn new_game(&mut self) -> Result<(), PlayerError> {
        self.new_game_error.clone().map_or(Ok(()), Err)
    }

    fn go(&mut self, request: &GoRequest<'_>) -> Result<EngineReply, PlayerError> {
        let n = self.seen.len();
        self.seen.push(Seen {
            clock: request.limits.clock.clone(),
            deadline: request.deadline,
            moves: request.moves.len(),
        });
        let think = self
            .think_at
            .iter()
            .find(|(at, _)| *at == n)
            .map_or(self.think, |&(_, t)| t);
        self.clock.advance(think);
        if let Some((at, error)) = &self.go_error {
            if *at == n {
                return Err(error.clone());
            }
        }
        Ok(EngineReply {
            bestmove: self.moves.get(n).cloned().unwrap_or_default(),
            score: self.scores.get(n).copied().flatten().or(self.score),
            depth: self.depths.get(n).copied().flatten().or(Some(1)),
            nodes: Some(1),
            ..EngineReply::default()
        })
    }
}
