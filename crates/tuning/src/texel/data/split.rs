//! Splitting a data set into training and validation sets, whole pairs of games at a time when
//! the lines say which pair they come from, so validation positions come from unseen games.

use super::pack::NO_PAIR;
use super::Dataset;
use crate::rng::Rng;

impl Dataset {
    /// Splits into (training, validation) sets: about `round(len × fraction)` positions go to
    /// validation, drawn with `seed` — whole pairs of games at a time when every line named its
    /// pair (sparring's `id "<pair>.<game>.<ply>"`), single positions otherwise. Each set gets its
    /// own contiguous buffer, in its new order, so epochs read memory sequentially.
    pub fn split(self, validation_fraction: f64, seed: u64) -> (Dataset, Dataset) {
        let (order, n_val) =
            split_order(&self.pairs, self.entries.len(), validation_fraction, seed);
        let validation = self.subset(&order[..n_val]);
        let training = self.subset(&order[n_val..]);
        (training, validation)
    }

    /// The same split into (training, validation) — the same validation set as `split` with
    /// these arguments — but the training set is what is left of `self`, compacted in place and
    /// in load order (not shuffled). Only the validation share is copied, so a split of N
    /// positions needs about 1.1 N positions' memory instead of `split`'s 2 N: what full-batch
    /// runs use (the order of positions only changes how sums are rounded), while mini-batches
    /// need `split`'s shuffled order.
    pub fn split_in_place(mut self, validation_fraction: f64, seed: u64) -> (Dataset, Dataset) {
        let len = self.entries.len();
        // Compaction moves coefficients toward the start: offsets must ascend, as every
        // constructor makes them.
        if self.entries.windows(2).any(|w| w[0].offset > w[1].offset) {
            return self.split(validation_fraction, seed);
        }
        let (order, n_val) = split_order(&self.pairs, len, validation_fraction, seed);
        let validation = self.subset(&order[..n_val]);
        let mut held_out = vec![false; len];
        for &i in &order[..n_val] {
            held_out[i as usize] = true;
        }
        drop(order);
        let keep_scores = self.scores.len() == len;
        let (mut kept, mut coeff_end) = (0, 0);
        for (read, _) in held_out.iter().enumerate().filter(|(_, &out)| !out) {
            let mut e = self.entries[read];
            let start = e.offset as usize;
            self.coeffs
                .copy_within(start..start + e.len as usize, coeff_end);
            e.offset = coeff_end as u32;
            coeff_end += e.len as usize;
            self.entries[kept] = e;
            if keep_scores {
                self.scores[kept] = self.scores[read];
            }
            if self.extended {
                self.extras[kept] = self.extras[read];
            }
            kept += 1;
        }
        self.entries.truncate(kept);
        self.extras.truncate(if self.extended { kept } else { 0 });
        self.coeffs.truncate(coeff_end);
        self.scores.truncate(if keep_scores { kept } else { 0 });
        self.pairs = Vec::new();
        self.dedupe = None;
        self.resolve = false;
        self.shrink_to_fit();
        (self, validation)
    }

    /// The positions `indices`, in that order, in a contiguous buffer of their own.
    fn subset(&self, indices: &[u32]) -> Dataset {
        let mut out = Dataset {
            coeffs: Vec::with_capacity(
                indices
                    .iter()
                    .map(|&i| self.entries[i as usize].len as usize)
                    .sum(),
            ),
            entries: Vec::with_capacity(indices.len()),
            num_params: self.num_params,
            extras: if self.extended {
                indices.iter().map(|&i| self.extras[i as usize]).collect()
            } else {
                Vec::new()
            },
            extended: self.extended,
            phase_max: self.phase_max,
            pairs: Vec::new(),
            scores: if self.scores.len() == self.entries.len() {
                indices.iter().map(|&i| self.scores[i as usize]).collect()
            } else {
                Vec::new()
            },
            resolve: false,
            dedupe: None,
        };
        for &i in indices {
            let mut e = self.entries[i as usize];
            out.coeffs.extend_from_slice(self.coefficients(i as usize));
            e.offset = (out.coeffs.len() - e.len as usize) as u32;
            out.entries.push(e);
        }
        out
    }
}

/// The order in which positions are split and how many of the first go to validation: whole
/// pairs at a time when every position names its pair, single positions otherwise.
pub(super) fn split_order(
    pairs: &[u32],
    len: usize,
    fraction: f64,
    seed: u64,
) -> (Vec<u32>, usize) {
    let mut rng = Rng::new(seed);
    let mut order: Vec<u32> = (0..len as u32).collect();
    let target = ((len as f64 * fraction).round() as usize).min(len);
    let by_pair = pairs.len() == len && len > 0 && pairs.iter().all(|&p| p != NO_PAIR);
    if !by_pair {
        rng.shuffle(&mut order);
        return (order, target);
    }
    // Whole pairs, in a seeded order, until the validation share is reached.
    let mut ids: Vec<u32> = pairs.to_vec();
    ids.sort_unstable();
    ids.dedup();
    rng.shuffle(&mut ids);
    let rank: std::collections::HashMap<u32, usize> =
        ids.iter().enumerate().map(|(r, &p)| (p, r)).collect();
    order.sort_by_key(|&i| (rank[&pairs[i as usize]], i));
    let same_pair = |n: usize| pairs[order[n] as usize] == pairs[order[n - 1] as usize];
    let mut n = target;
    while n > 0 && n < len && same_pair(n) {
        n += 1;
    }
    if n == len && target < len {
        // Finishing the last pair took every position: leave that pair to training instead.
        n = target;
        while n > 0 && same_pair(n) {
            n -= 1;
        }
    }
    // Training positions are reshuffled so mini-batches mix games.
    rng.shuffle(&mut order[n..]);
    (order, n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn split_keeps_pairs_whole() {
        // 50 pairs of 1..=9 positions each.
        let pairs: Vec<u32> = (0..50u32)
            .flat_map(|g| std::iter::repeat(g).take(1 + g as usize % 9))
            .collect();
        let (order, n_val) = split_order(&pairs, pairs.len(), 0.2, 7);
        let validation: HashSet<u32> = order[..n_val].iter().map(|&i| pairs[i as usize]).collect();
        let training: HashSet<u32> = order[n_val..].iter().map(|&i| pairs[i as usize]).collect();
        assert!(validation.is_disjoint(&training));
        assert!(n_val >= pairs.len() / 5 && n_val < pairs.len() / 5 + 9);
        let mut all = order.clone();
        all.sort_unstable();
        assert_eq!(all, (0..pairs.len() as u32).collect::<Vec<_>>());
        // Without pair ids: positions are split one by one.
        let (order, n_val) = split_order(&[], 100, 0.1, 7);
        assert_eq!((order.len(), n_val), (100, 10));
    }

    #[test]
    fn completing_the_last_pair_never_takes_every_position() {
        // Two pairs of 5: a share of 0.9 asks for 9, which would finish the second pair.
        let pairs = [1, 1, 1, 1, 1, 2, 2, 2, 2, 2];
        for seed in 0..20 {
            let (order, n_val) = split_order(&pairs, pairs.len(), 0.9, seed);
            assert_eq!(n_val, 5, "seed {seed}");
            let first = pairs[order[0] as usize];
            assert!(order[..5].iter().all(|&i| pairs[i as usize] == first));
        }
        // One pair only: it cannot be split, so it all trains.
        assert_eq!(split_order(&[4, 4, 4], 3, 0.5, 1).1, 0);
    }
}
