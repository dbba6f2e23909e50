//! The counts the joint fit needs: games and points between each two engines, and the game
//! pairs the bootstrap draws (a pair's games stay together, so their correlation does too).

use super::RatedGame;

/// Games and points between each two engines (row-major `n` × `n`): the whole likelihood,
/// since the model has no colour term.
#[derive(Clone, Debug)]
pub(super) struct Tallies {
    pub(super) n: usize,
    /// Games between `i` and `j` at `i * n + j` (symmetric).
    games: Vec<f64>,
    /// Points `i` scored against `j` at `i * n + j`.
    points: Vec<f64>,
}

impl Tallies {
    pub(super) fn new(n: usize) -> Tallies {
        Tallies {
            n,
            games: vec![0.0; n * n],
            points: vec![0.0; n * n],
        }
    }

    pub(super) fn clear(&mut self) {
        self.games.iter_mut().for_each(|g| *g = 0.0);
        self.points.iter_mut().for_each(|p| *p = 0.0);
    }

    /// Adds `games` games in which `a` scored `a_points` against `b`.
    pub(super) fn add(&mut self, a: usize, b: usize, games: f64, a_points: f64) {
        let n = self.n;
        self.games[a * n + b] += games;
        self.games[b * n + a] += games;
        self.points[a * n + b] += a_points;
        self.points[b * n + a] += games - a_points;
    }

    /// Games between `i` and `j`.
    pub(super) fn games(&self, i: usize, j: usize) -> f64 {
        self.games[i * self.n + j]
    }

    /// Points `i` scored against `j`.
    pub(super) fn points(&self, i: usize, j: usize) -> f64 {
        self.points[i * self.n + j]
    }
}

/// The games grouped by pair (pair id and the two engines, so pairs of different pairings
/// never merge), each group's games and points summed: what one bootstrap draw adds.
#[derive(Clone, Debug)]
pub(super) struct PairGroups {
    /// Per group: the lower-indexed engine, the other, games, and the first one's points.
    groups: Vec<(usize, usize, f64, f64)>,
}

impl PairGroups {
    /// Groups `games` by pair, in the order of pair id and engines, so the order of the games
    /// given never changes a resample (sums of half points are exact in any order).
    pub(super) fn new(games: &[RatedGame]) -> PairGroups {
        let mut keyed: Vec<(u64, usize, usize, f64)> = games
            .iter()
            .map(|g| {
                if g.white <= g.black {
                    (g.pair, g.white, g.black, g.outcome.score())
                } else {
                    (g.pair, g.black, g.white, 1.0 - g.outcome.score())
                }
            })
            .collect();
        keyed.sort_by_key(|&(pair, first, second, _)| (pair, first, second));
        let mut groups: Vec<(usize, usize, f64, f64)> = Vec::new();
        let mut last_key = None;
        for (pair, first, second, points) in keyed {
            if last_key != Some((pair, first, second)) {
                groups.push((first, second, 0.0, 0.0));
                last_key = Some((pair, first, second));
            }
            if let Some(group) = groups.last_mut() {
                group.2 += 1.0;
                group.3 += points;
            }
        }
        PairGroups { groups }
    }

    /// Number of groups.
    pub(super) fn len(&self) -> usize {
        self.groups.len()
    }

    /// Adds group `index` to `tallies`.
    pub(super) fn add_to(&self, index: usize, tallies: &mut Tallies) {
        let (first, second, games, points) = self.groups[index];
        tallies.add(first, second, games, points);
    }

    /// Every group once: the tallies of the games themselves.
    pub(super) fn tallies(&self, n: usize) -> Tallies {
        let mut tallies = Tallies::new(n);
        for index in 0..self.len() {
            self.add_to(index, &mut tallies);
        }
        tallies
    }
}
