//! Search limits (depth, nodes, movetime, clock, infinite) and the time budget derived from them.

use crate::board::Color;
use std::time::Duration;

/// A chess clock's state as UCI `go` gives it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Clock {
    pub white_time: Duration,
    pub black_time: Duration,
    pub white_increment: Duration,
    pub black_increment: Duration,
    /// Moves until the next time control, if the control is moves-based.
    pub moves_to_go: Option<u32>,
}

/// What ends a search. Several limits may be combined; the first reached stops it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchLimits {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub movetime: Option<Duration>,
    pub clock: Option<Clock>,
    /// Search until stopped from outside.
    pub infinite: bool,
    /// Subtracted from every time budget to cover communication delays.
    pub move_overhead: Duration,
}

impl SearchLimits {
    pub fn depth(depth: u32) -> SearchLimits {
        SearchLimits {
            depth: Some(depth),
            ..Default::default()
        }
    }

    pub fn nodes(nodes: u64) -> SearchLimits {
        SearchLimits {
            nodes: Some(nodes),
            ..Default::default()
        }
    }

    pub fn movetime(movetime: Duration) -> SearchLimits {
        SearchLimits {
            movetime: Some(movetime),
            ..Default::default()
        }
    }

    /// The time budget for `side`: a soft limit (do not start another iteration past it) and a
    /// hard limit (abort the search). None when the search is not timed.
    pub fn time_budget(&self, side: Color) -> Option<(Duration, Duration)> {
        if self.infinite {
            return None;
        }
        let overhead = self.move_overhead;
        let mut budget: Option<(Duration, Duration)> = None;
        if let Some(movetime) = self.movetime {
            let t = movetime
                .saturating_sub(overhead)
                .max(Duration::from_millis(1));
            budget = Some((t, t));
        }
        if let Some(clock) = &self.clock {
            let (time, inc) = match side {
                Color::White => (clock.white_time, clock.white_increment),
                Color::Black => (clock.black_time, clock.black_increment),
            };
            let left = time.saturating_sub(overhead);
            let moves = clock.moves_to_go.unwrap_or(30).clamp(1, 50);
            // Spend an even share of what is left plus most of the increment, never more than
            // a fraction of the clock so a slow iteration cannot flag.
            let share = left / (moves + 2) + inc * 3 / 4;
            let cap = if clock.moves_to_go == Some(1) {
                left * 3 / 4
            } else {
                left / 3
            };
            let soft = share.min(cap).max(Duration::from_millis(1));
            let hard = (soft * 4).min(cap).max(soft);
            budget = Some(match budget {
                Some((s, h)) => (s.min(soft), h.min(hard)),
                None => (soft, hard),
            });
        }
        budget
    }
}
