//! Time management under a clock: after each iteration the soft budget is scaled by how settled
//! the search looks: how long the best move has stayed the same, whether the score fell, and
//! what share of the nodes the best move took. Every constant is a `time.*` search parameter.

use super::params::SearchParams;
use crate::board::Move;
use crate::score::MATE_BOUND;

/// What the time manager remembers between the iterations of one search.
#[derive(Clone, Debug, Default)]
pub(super) struct IterationTrend {
    /// The best move of the last completed iteration.
    best_move: Option<Move>,
    /// How many iterations in a row ended with that move.
    stable: i32,
    /// The last completed iteration's score.
    score: Option<i32>,
    /// Nodes spent under each root move over the whole search.
    root_nodes: Vec<(Move, u64)>,
}

impl IterationTrend {
    /// Forgets the last search.
    pub(super) fn clear(&mut self) {
        self.best_move = None;
        self.stable = 0;
        self.score = None;
        self.root_nodes.clear();
    }

    /// Counts `nodes` spent searching root move `mv`.
    pub(super) fn add_root_nodes(&mut self, mv: Move, nodes: u64) {
        match self.root_nodes.iter_mut().find(|(m, _)| *m == mv) {
            Some((_, n)) => *n += nodes,
            None => self.root_nodes.push((mv, nodes)),
        }
    }

    /// Records the iteration at `depth` that ended with `best` scoring `score`, and returns the
    /// share of the soft budget past which no new iteration starts.
    pub(super) fn soft_factor(
        &mut self,
        params: &SearchParams,
        depth: u32,
        best: Move,
        score: i32,
    ) -> f64 {
        self.stable = if self.best_move == Some(best) {
            self.stable + 1
        } else {
            0
        };
        self.best_move = Some(best);
        let previous = self.score.replace(score);
        let share = params.time_iteration_percent as f64 / 100.0;
        if (depth as i32) < params.time_min_depth {
            return share;
        }
        let stability = (params.time_stability_base
            - params.time_stability_step * self.stable.min(params.time_stability_max))
            as f64
            / 100.0;
        share
            * stability.max(0.1)
            * self.drop_factor(params, previous, score)
            * self.node_factor(params)
    }

    /// More time when the score fell since the last iteration (mate scores aside).
    fn drop_factor(&self, params: &SearchParams, previous: Option<i32>, score: i32) -> f64 {
        match previous {
            Some(before) if before.abs() < MATE_BOUND && score.abs() < MATE_BOUND => {
                let drop = (before - score).clamp(0, params.time_drop_max);
                1.0 + drop as f64 / params.time_drop_divisor as f64
            }
            _ => 1.0,
        }
    }

    /// Less time when the best move took most of the nodes (the rest were refuted quickly),
    /// more when it took few.
    fn node_factor(&self, params: &SearchParams) -> f64 {
        let total: u64 = self.root_nodes.iter().map(|(_, n)| n).sum();
        let best = self
            .root_nodes
            .iter()
            .find(|(m, _)| Some(*m) == self.best_move)
            .map_or(0, |(_, n)| *n);
        if total == 0 {
            return 1.0;
        }
        let share = best as f64 / total as f64;
        let percent = params.time_node_base as f64 - params.time_node_scale as f64 * share;
        percent.max(params.time_node_min as f64) / 100.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Color, Square};
    use crate::search::SEARCH_PARAMS;
    use crate::search::{Clock, SearchLimits};
    use std::time::Duration;

    fn mv(from: usize, to: usize) -> Move {
        Move::new(Square::from_index(from), Square::from_index(to), 0)
    }

    #[test]
    fn a_settled_best_move_takes_less_time_than_a_changing_one() {
        let params = SearchParams::default();
        let mut settled = IterationTrend::default();
        let mut changing = IterationTrend::default();
        for depth in 1..=10 {
            settled.add_root_nodes(mv(12, 28), 900);
            settled.add_root_nodes(mv(11, 27), 100);
            let a = settled.soft_factor(&params, depth, mv(12, 28), 30);
            let best = if depth % 2 == 0 {
                mv(12, 28)
            } else {
                mv(11, 27)
            };
            changing.add_root_nodes(mv(12, 28), 500);
            changing.add_root_nodes(mv(11, 27), 500);
            let b = changing.soft_factor(&params, depth, best, 30);
            let share = params.time_iteration_percent as f64 / 100.0;
            if depth as i32 >= params.time_min_depth {
                assert!(a < share, "settled {a} at depth {depth}");
                assert!(b > a, "changing {b} against settled {a} at depth {depth}");
            } else {
                assert_eq!((a, b), (share, share));
            }
        }
    }

    #[test]
    fn a_falling_score_takes_more_time_and_a_mate_score_does_not() {
        let params = SearchParams::default();
        let factor = |scores: [i32; 2]| {
            let mut trend = IterationTrend::default();
            trend.soft_factor(&params, 8, mv(12, 28), scores[0]);
            trend.soft_factor(&params, 9, mv(12, 28), scores[1])
        };
        let level = factor([50, 50]);
        assert!(factor([50, 30]) > level);
        assert!(factor([50, 0]) > factor([50, 30]));
        assert_eq!(
            factor([50, -500]),
            factor([50, 0]),
            "a drop counts up to time.drop_max"
        );
        assert_eq!(factor([50, 60]), level, "a rise is not a drop");
        assert_eq!(factor([MATE_BOUND + 10, 0]), level);
    }

    #[test]
    fn every_time_parameter_changes_the_budget() {
        // The clock's soft and hard limits, then three iterations: a changed best move, a fall
        // of 30 cp, then a settled move.
        let limits = SearchLimits {
            clock: Some(Clock {
                white_time: Duration::from_secs(5),
                black_time: Duration::from_secs(5),
                white_increment: Duration::from_millis(50),
                black_increment: Duration::from_millis(50),
                moves_to_go: None,
            }),
            ..Default::default()
        };
        let budget = |params: &SearchParams| {
            let limits = limits.time_budget(Color::White, params).unwrap();
            let mut trend = IterationTrend::default();
            let mut factors = vec![
                limits.soft.unwrap().as_secs_f64(),
                limits.hard.as_secs_f64(),
            ];
            for (depth, best, score) in [
                (4, mv(11, 27), 40),
                (5, mv(12, 28), 10),
                (6, mv(12, 28), 10),
            ] {
                trend.add_root_nodes(best, 700);
                trend.add_root_nodes(mv(6, 21), 300);
                factors.push(trend.soft_factor(params, depth, best, score));
            }
            factors
        };
        let default = budget(&SearchParams::default());
        let time_params = SEARCH_PARAMS.iter().filter(|spec| spec.group() == "time");
        for spec in time_params {
            let changes = [spec.min, spec.max].iter().any(|&value| {
                let mut params = SearchParams::default();
                params.set(spec.key, value).unwrap();
                budget(&params) != default
            });
            assert!(changes, "{} changes nothing", spec.key);
        }
    }

    #[test]
    fn clear_forgets_the_last_search() {
        let params = SearchParams::default();
        let mut trend = IterationTrend::default();
        trend.add_root_nodes(mv(12, 28), 10);
        trend.soft_factor(&params, 9, mv(12, 28), 50);
        trend.clear();
        let mut fresh = IterationTrend::default();
        assert_eq!(
            trend.soft_factor(&params, 9, mv(12, 28), 0),
            fresh.soft_factor(&params, 9, mv(12, 28), 0)
        );
    }
}
