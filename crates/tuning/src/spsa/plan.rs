//! The SPSA iteration itself, free of games and files: the seeded perturbation of iteration k,
//! the values each side of a pair gets (stochastically rounded integers), and the update.
//!
//! One synchronous chain (see docs/research/chess960-and-spsa.md, B3): iteration k draws one
//! ±1 flip per parameter from (seed, k), plays its pairs between θ+c_kΔ and θ−c_kΔ, and only
//! then applies θ ← clip(θ + (a_k/c_k)·ΣW−L·Δ) — OpenBench's update with its pairs-per
//! iteration, so results do not depend on the order in which pairs finish.

use super::gains::{GainSchedule, Gains};
use crate::rng::Rng;
use crate::search::ParamKind;

/// Stream tags of the seeded generators, so flips, rounding and openings never share draws.
const FLIP_STREAM: u64 = 0x666c_6970 << 24;
const ROUND_STREAM: u64 = 0x726f_756e << 24;

/// One tuned parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct SpsaParam {
    /// Its name: a built-in parameter (`search.lmr.base`) or an external engine's UCI option.
    pub name: String,
    /// Integer (rounded when sent to an engine) or real.
    pub kind: ParamKind,
    /// θ_0.
    pub start: f64,
    /// The smallest value θ and the perturbed values take.
    pub min: f64,
    /// The largest value θ and the perturbed values take.
    pub max: f64,
    /// The perturbation at the last iteration.
    pub c_end: f64,
    /// The relative apply factor a_k/c_k² at the last iteration.
    pub r_end: f64,
}

/// Everything that decides the chain: parameters, schedule, pairs per iteration, seed.
#[derive(Clone, Debug)]
pub struct SpsaPlan {
    /// The tuned parameters, in output order.
    pub params: Vec<SpsaParam>,
    /// Iterations and gain exponents.
    pub schedule: GainSchedule,
    /// Colour-reversed game pairs per iteration (all with the same flips).
    pub pairs_per_iteration: u64,
    /// Seeds the flips, the rounding and the openings.
    pub seed: u64,
}

/// Iteration k's perturbation.
#[derive(Clone, Debug, PartialEq)]
pub struct Perturbation {
    /// 0-based iteration.
    pub iteration: u64,
    /// ±1 per parameter.
    pub flips: Vec<i8>,
    /// c_k per parameter.
    pub c: Vec<f64>,
    /// clip(θ + c_k·flip), unrounded.
    pub plus: Vec<f64>,
    /// clip(θ − c_k·flip), unrounded.
    pub minus: Vec<f64>,
}

impl SpsaPlan {
    /// Each parameter's gain constants.
    pub fn gains(&self) -> Vec<Gains> {
        self.params
            .iter()
            .map(|p| Gains::from_ends(p.c_end, p.r_end, p.kind, &self.schedule))
            .collect()
    }

    /// θ_0.
    pub fn start(&self) -> Vec<f64> {
        self.params.iter().map(|p| p.start).collect()
    }

    /// The ±1 flips of iteration `k`: a seeded stream, the same for every run with this seed.
    pub fn flips(&self, k: u64) -> Vec<i8> {
        let mut rng = Rng::derive(self.seed, FLIP_STREAM ^ k);
        self.params
            .iter()
            .map(|_| if rng.next_u64() >> 63 == 1 { 1 } else { -1 })
            .collect()
    }

    /// Iteration `k`'s perturbation around `theta`.
    pub fn perturbation(&self, k: u64, theta: &[f64]) -> Perturbation {
        let flips = self.flips(k);
        let c: Vec<f64> = self
            .gains()
            .iter()
            .map(|g| g.c_k(k, &self.schedule))
            .collect();
        let side = |sign: f64| -> Vec<f64> {
            self.params
                .iter()
                .enumerate()
                .map(|(i, p)| (theta[i] + sign * c[i] * flips[i] as f64).clamp(p.min, p.max))
                .collect()
        };
        Perturbation {
            iteration: k,
            plus: side(1.0),
            minus: side(-1.0),
            flips,
            c,
        }
    }

    /// The values pair `pair` of the perturbation's iteration sends to the engines (plus,
    /// minus): reals as they are, integers rounded stochastically, floor(x + u), with one
    /// seeded u per parameter and pair shared by both sides (as OpenBench does), so rounding
    /// adds no bias on average and never favours one side.
    pub(crate) fn engine_values(
        &self,
        perturbation: &Perturbation,
        pair: u64,
    ) -> (Vec<f64>, Vec<f64>) {
        let stream = ROUND_STREAM ^ (perturbation.iteration * self.pairs_per_iteration + pair);
        let mut rng = Rng::derive(self.seed, stream);
        let mut plus = perturbation.plus.clone();
        let mut minus = perturbation.minus.clone();
        for (i, p) in self.params.iter().enumerate() {
            let u = rng.next_f64();
            if p.kind == ParamKind::Int {
                let (lo, hi) = (p.min.ceil(), p.max.floor());
                plus[i] = (plus[i] + u).floor().clamp(lo, hi);
                minus[i] = (minus[i] + u).floor().clamp(lo, hi);
            }
        }
        (plus, minus)
    }

    /// θ after iteration `k` whose pairs scored `result` = wins − losses of the plus side:
    /// θ_i + (a_k / c_k,i)·result·flip_i, clamped.
    pub fn update(&self, k: u64, theta: &[f64], flips: &[i8], result: i64) -> Vec<f64> {
        self.gains()
            .iter()
            .zip(&self.params)
            .enumerate()
            .map(|(i, (g, p))| {
                let step = g.a_k(k, &self.schedule) / g.c_k(k, &self.schedule);
                (theta[i] + step * result as f64 * flips[i] as f64).clamp(p.min, p.max)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> SpsaPlan {
        SpsaPlan {
            params: vec![
                SpsaParam {
                    name: "x".into(),
                    kind: ParamKind::Float,
                    start: 0.5,
                    min: 0.0,
                    max: 1.0,
                    c_end: 0.1,
                    r_end: 0.002,
                },
                SpsaParam {
                    name: "n".into(),
                    kind: ParamKind::Int,
                    start: 10.0,
                    min: 0.0,
                    max: 20.0,
                    c_end: 2.0,
                    r_end: 0.002,
                },
            ],
            schedule: GainSchedule::new(100),
            pairs_per_iteration: 4,
            seed: 7,
        }
    }

    #[test]
    fn the_perturbation_is_clamped_and_symmetric_inside_the_range() {
        let plan = plan();
        let p = plan.perturbation(0, &[0.5, 10.0]);
        for i in 0..2 {
            assert!((p.plus[i] - 0.5 * (p.plus[i] + p.minus[i])).abs() - p.c[i] < 1e-12);
        }
        let edge = plan.perturbation(0, &[1.0, 20.0]);
        assert!(edge.plus.iter().chain(&edge.minus).all(|v| *v <= 20.0));
        assert!(edge.plus[0] <= 1.0 && edge.minus[0] <= 1.0);
    }

    #[test]
    fn integers_are_rounded_only_for_the_engines() {
        let plan = plan();
        let p = plan.perturbation(3, &[0.5, 10.3]);
        assert!(p.plus[1].fract() != 0.0 || p.minus[1].fract() != 0.0);
        let (plus, minus) = plan.engine_values(&p, 1);
        assert_eq!(plus[0], p.plus[0]);
        assert_eq!(plus[1].fract(), 0.0);
        assert_eq!(minus[1].fract(), 0.0);
        assert!((plus[1] - p.plus[1]).abs() < 1.0);
        // The same draws for the same pair, other draws for another pair.
        assert_eq!(plan.engine_values(&p, 1), (plus, minus));
    }

    #[test]
    fn updates_follow_the_result_and_stay_in_range() {
        let plan = plan();
        let flips = [1, -1];
        let up = plan.update(0, &[0.5, 10.0], &flips, 3);
        assert!(up[0] > 0.5 && up[1] < 10.0);
        let none = plan.update(0, &[0.5, 10.0], &flips, 0);
        assert_eq!(none, vec![0.5, 10.0]);
        let far = plan.update(0, &[0.5, 10.0], &flips, 1_000_000);
        assert_eq!(far, vec![1.0, 0.0]);
    }
}
