//! Search limits (depth, nodes, movetime, clock, infinite) and the time budget derived from them.

use super::params::SearchParams;
use crate::board::{Color, Move};
use std::time::Duration;

/// A chess clock's state as UCI `go` gives it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Clock {
    /// Time left on White's clock (UCI `wtime`).
    pub white_time: Duration,
    /// Time left on Black's clock (UCI `btime`).
    pub black_time: Duration,
    /// Time White gains per move (UCI `winc`).
    pub white_increment: Duration,
    /// Time Black gains per move (UCI `binc`).
    pub black_increment: Duration,
    /// Moves until the next time control, if the control is moves-based.
    pub moves_to_go: Option<u32>,
}

/// What ends a search. Several limits may be combined; the first reached stops it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchLimits {
    /// Deepest iteration to search, in plies.
    pub depth: Option<u32>,
    /// Node budget; like every limit it applies only after the first iteration completes.
    pub nodes: Option<u64>,
    /// Fixed time for this move, spent in full (less `move_overhead`).
    pub movetime: Option<Duration>,
    /// The game clock; the side to move's time and increment set the budget.
    pub clock: Option<Clock>,
    /// Search until stopped from outside.
    pub infinite: bool,
    /// Subtracted from every time budget to cover communication delays.
    pub move_overhead: Duration,
    /// Principal variations to search and report (UCI MultiPV); 0 and 1 both mean one.
    pub multipv: usize,
    /// Restricts the root to these moves (UCI `go searchmoves`); empty means every legal move.
    /// Moves that are not legal in the searched position are ignored.
    pub searchmoves: Vec<Move>,
}

/// How long a timed search may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TimeBudget {
    /// Under a clock: do not start an iteration that is unlikely to finish before this. None
    /// for a fixed move time, which is spent in full.
    pub soft: Option<Duration>,
    /// Abort the search at this point.
    pub hard: Duration,
}

impl SearchLimits {
    /// Search to `depth` plies and no other limit.
    pub fn depth(depth: u32) -> SearchLimits {
        SearchLimits {
            depth: Some(depth),
            ..Default::default()
        }
    }

    /// Search about `nodes` nodes (at least one full iteration) and no other limit.
    pub fn nodes(nodes: u64) -> SearchLimits {
        SearchLimits {
            nodes: Some(nodes),
            ..Default::default()
        }
    }

    /// Search for `movetime` and no other limit.
    pub fn movetime(movetime: Duration) -> SearchLimits {
        SearchLimits {
            movetime: Some(movetime),
            ..Default::default()
        }
    }

    /// The time budget for `side`, None when the search is not timed. A fixed move time is a
    /// hard limit only; a clock also gives a soft limit for starting iterations, sized by the
    /// `time.moves_to_go`, `time.increment_percent` and `time.hard_percent` parameters.
    pub(crate) fn time_budget(&self, side: Color, params: &SearchParams) -> Option<TimeBudget> {
        if self.infinite {
            return None;
        }
        let overhead = self.move_overhead;
        let mut budget: Option<TimeBudget> = None;
        if let Some(movetime) = self.movetime {
            let t = movetime
                .saturating_sub(overhead)
                .max(Duration::from_millis(1));
            budget = Some(TimeBudget {
                soft: None,
                hard: t,
            });
        }
        if let Some(clock) = &self.clock {
            let (time, inc) = match side {
                Color::White => (clock.white_time, clock.white_increment),
                Color::Black => (clock.black_time, clock.black_increment),
            };
            let left = time.saturating_sub(overhead);
            let guess = params.time_moves_to_go as u32;
            let moves = clock.moves_to_go.unwrap_or(guess).clamp(1, 50);
            // Spend an even share of what is left plus a share of the increment, never more
            // than a fixed fraction of the clock (not tuned: it is what keeps a slow iteration
            // from flagging).
            let inc_share = inc.mul_f64(params.time_increment_percent as f64 / 100.0);
            let share = (left / (moves + 2)).saturating_add(inc_share);
            let cap = if clock.moves_to_go == Some(1) {
                left * 3 / 4
            } else {
                left / 3
            };
            let soft = share.min(cap).max(Duration::from_millis(1));
            let hard = soft
                .mul_f64(params.time_hard_percent as f64 / 100.0)
                .min(cap)
                .max(soft);
            budget = Some(match budget {
                Some(fixed) => TimeBudget {
                    soft: Some(soft.min(fixed.hard)),
                    hard: hard.min(fixed.hard),
                },
                None => TimeBudget {
                    soft: Some(soft),
                    hard,
                },
            });
        }
        budget
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fixed_move_time_has_no_soft_limit() {
        let limits = SearchLimits {
            move_overhead: Duration::from_millis(10),
            ..SearchLimits::movetime(Duration::from_millis(300))
        };
        let budget = limits
            .time_budget(Color::White, &SearchParams::default())
            .unwrap();
        assert_eq!(budget.soft, None);
        assert_eq!(budget.hard, Duration::from_millis(290));
    }

    #[test]
    fn a_clock_has_a_soft_limit_below_the_hard_one() {
        let limits = SearchLimits {
            clock: Some(Clock {
                white_time: Duration::from_secs(60),
                black_time: Duration::from_secs(60),
                ..Default::default()
            }),
            ..Default::default()
        };
        let budget = limits
            .time_budget(Color::Black, &SearchParams::default())
            .unwrap();
        assert!(budget.soft.unwrap() < budget.hard, "{budget:?}");
        assert!(budget.hard <= Duration::from_secs(20));
    }

    #[test]
    fn the_clock_is_shared_by_the_time_parameters() {
        // 5 s + 50 ms, no moves-to-go: 5 s over 30 + 2 moves plus 75 % of the increment, and
        // four times that as the hard limit (set here, not the shipped values SPSA moves).
        let limits = SearchLimits {
            clock: Some(Clock {
                white_time: Duration::from_secs(5),
                white_increment: Duration::from_millis(50),
                ..Default::default()
            }),
            ..Default::default()
        };
        let mut params = SearchParams {
            time_moves_to_go: 30,
            time_increment_percent: 75,
            time_hard_percent: 400,
            ..SearchParams::default()
        };
        let budget = limits.time_budget(Color::White, &params).unwrap();
        assert_eq!(budget.soft, Some(Duration::from_micros(156_250 + 37_500)));
        assert_eq!(budget.hard, Duration::from_micros(4 * 193_750));
        params.time_moves_to_go = 18;
        params.time_increment_percent = 100;
        params.time_hard_percent = 200;
        let budget = limits.time_budget(Color::White, &params).unwrap();
        assert_eq!(budget.soft, Some(Duration::from_millis(250 + 50)));
        assert_eq!(budget.hard, Duration::from_millis(600));
        // Never more than a third of the clock.
        params.time_moves_to_go = 1;
        params.time_hard_percent = 1000;
        let budget = limits.time_budget(Color::White, &params).unwrap();
        let third = Duration::from_secs(5) / 3;
        assert_eq!((budget.soft, budget.hard), (Some(third), third));
    }
}
