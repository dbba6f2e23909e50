//! The running statistics of one pairing, counted by complete game pairs.

use crate::stats::{Outcome, PairBucket, Pentanomial, Wdl};
use std::collections::HashMap;

/// Results of one pairing, from the first engine's point of view, counted by complete pairs.
#[derive(Clone, Debug, Default)]
pub struct PairingStats {
    /// The first engine's name (the gauntlet's engine, or the earlier one in the list).
    pub first: String,
    /// Its opponent's name.
    pub second: String,
    /// Games of complete pairs only, so that W/D/L and the pentanomial agree.
    pub wdl: Wdl,
    /// Pair results by the first engine's points (0 to 2).
    pub ptnml: Pentanomial,
    /// Pairs of two draws and pairs of a win and a loss (both are the pentanomial's middle bucket).
    pub dd_pairs: u64,
    /// Pairs of a win and a loss.
    pub wl_pairs: u64,
    /// The first engine's score in pairs of which one game is finished.
    pending: HashMap<u64, f64>,
}

impl PairingStats {
    /// Empty statistics for `first` against `second`.
    pub fn new(first: &str, second: &str) -> PairingStats {
        PairingStats {
            first: first.to_string(),
            second: second.to_string(),
            ..Default::default()
        }
    }

    /// Adds a finished game of pair `pair_id`, scored from the first engine's point of view.
    pub fn add_game(&mut self, pair_id: u64, first_score: f64) {
        let Some(other) = self.pending.remove(&pair_id) else {
            self.pending.insert(pair_id, first_score);
            return;
        };
        let outcome = |s: f64| Outcome::from_score(s).unwrap_or(Outcome::Draw);
        for s in [other, first_score] {
            self.wdl.record(outcome(s));
        }
        if other + first_score == 1.0 {
            if other == 0.5 {
                self.dd_pairs += 1;
            } else {
                self.wl_pairs += 1;
            }
        }
        self.ptnml.record(PairBucket::from_outcomes(
            outcome(other),
            outcome(first_score),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_count_when_both_games_are_in() {
        let mut stats = PairingStats::new("a", "b");
        stats.add_game(1, 1.0);
        assert_eq!(stats.wdl.games(), 0);
        assert_eq!(stats.pending.len(), 1, "the first game waits for its pair");
        stats.add_game(1, 0.0);
        stats.add_game(2, 0.5);
        stats.add_game(2, 0.5);
        assert_eq!(
            (stats.wdl.wins, stats.wdl.draws, stats.wdl.losses),
            (1, 2, 1)
        );
        assert_eq!((stats.wl_pairs, stats.dd_pairs), (1, 1));
        assert_eq!(stats.ptnml.pairs(), 2);
    }
}
