//! Which engines the fit can rate. The maximum-likelihood ratings of a group are finite exactly
//! when every way of splitting it in two leaves each side with points taken from the other
//! (Zermelo's condition): the group is strongly connected in the graph "i took points from j".
//! Engines outside the rated group sit above it (it never took a point from them), below it,
//! or apart (nothing links them to it either way).

use super::tally::Tallies;

/// Where an engine stands relative to the rated group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Place {
    /// In the rated group: a finite rating.
    Rated,
    /// Took points from the group, which took none back: +∞.
    Above,
    /// Gave the group points and took none from it: -∞.
    Below,
    /// Neither: any rating fits.
    Apart,
}

/// The engines of `engines` that `from` reaches: forward along "took points from", or
/// backward along "gave points to".
fn reach(tallies: &Tallies, engines: &[usize], from: usize, forward: bool) -> Vec<bool> {
    let mut seen = vec![false; tallies.n];
    let mut stack = vec![from];
    seen[from] = true;
    while let Some(i) = stack.pop() {
        for &j in engines {
            let points = if forward {
                tallies.points(i, j)
            } else {
                tallies.points(j, i)
            };
            if !seen[j] && points > 0.0 {
                seen[j] = true;
                stack.push(j);
            }
        }
    }
    seen
}

/// The groups of `engines` that games connect (whatever their results), in order of their
/// first engine.
pub(super) fn connected_groups(tallies: &Tallies, engines: &[usize]) -> Vec<Vec<usize>> {
    let mut group_of = vec![usize::MAX; tallies.n];
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for &start in engines {
        if group_of[start] != usize::MAX {
            continue;
        }
        let id = groups.len();
        let mut group = vec![start];
        group_of[start] = id;
        let mut next = 0;
        while next < group.len() {
            let i = group[next];
            next += 1;
            for &j in engines {
                if group_of[j] == usize::MAX && tallies.games(i, j) > 0.0 {
                    group_of[j] = id;
                    group.push(j);
                }
            }
        }
        group.sort_unstable();
        groups.push(group);
    }
    groups
}

/// The strongly connected groups of `engines` ("took points from"), each sorted.
fn strong_groups(tallies: &Tallies, engines: &[usize]) -> Vec<Vec<usize>> {
    let mut assigned = vec![false; tallies.n];
    let mut groups = Vec::new();
    for &start in engines {
        if assigned[start] {
            continue;
        }
        let forward = reach(tallies, engines, start, true);
        let backward = reach(tallies, engines, start, false);
        let group: Vec<usize> = engines
            .iter()
            .copied()
            .filter(|&j| forward[j] && backward[j])
            .collect();
        for &j in &group {
            assigned[j] = true;
        }
        groups.push(group);
    }
    groups
}

/// Games played inside a group: what breaks a tie between groups of one size.
fn games_within(tallies: &Tallies, group: &[usize]) -> f64 {
    let mut total = 0.0;
    for (k, &i) in group.iter().enumerate() {
        for &j in &group[k + 1..] {
            total += tallies.games(i, j);
        }
    }
    total
}

/// The rated group of `engines` (the largest strongly connected one; then the one with most
/// games inside; then the one with the first engine) and every engine's place relative to it
/// (indexed by engine; engines not in `engines` are `Apart`).
pub(super) fn places(tallies: &Tallies, engines: &[usize]) -> (Vec<usize>, Vec<Place>) {
    let groups = strong_groups(tallies, engines);
    let mut best = 0;
    for (k, group) in groups.iter().enumerate().skip(1) {
        let current = &groups[best];
        let larger = group.len() > current.len()
            || (group.len() == current.len()
                && games_within(tallies, group) > games_within(tallies, current));
        if larger {
            best = k;
        }
    }
    let rated = groups.get(best).cloned().unwrap_or_default();
    let mut place = vec![Place::Apart; tallies.n];
    let Some(&anchor) = rated.first() else {
        return (rated, place);
    };
    let down = reach(tallies, engines, anchor, true);
    let up = reach(tallies, engines, anchor, false);
    for &e in engines {
        place[e] = match (up[e], down[e]) {
            (true, true) => Place::Rated,
            (true, false) => Place::Above,
            (false, true) => Place::Below,
            (false, false) => Place::Apart,
        };
    }
    (rated, place)
}
