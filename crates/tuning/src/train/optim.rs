//! One optimisation step: the batch gradient computed in parallel, deterministically, and
//! bullet's AdamW applied to it; and the schedules (StepLR, λ constant or linear).

use super::model::{FloatNet, TrainPosition};
use rayon::prelude::*;

/// The batch is cut into this many chunks whatever the thread count, each with its own gradient
/// buffer, and the buffers are summed in chunk order: the same bits on 1 or 64 threads.
pub(crate) const CHUNKS: usize = 16;

/// AdamW's settings (bullet's defaults in [`AdamW::default`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct AdamWSettings {
    /// Weight decay, applied as `p *= 1 − decay·lr` before each step.
    pub(crate) decay: f32,
    /// Decay rate of the mean gradient.
    pub(crate) beta1: f32,
    /// Decay rate of the mean squared gradient.
    pub(crate) beta2: f32,
    /// Added to the root of the mean squared gradient.
    pub(crate) epsilon: f32,
    /// Every parameter is clamped to `[−clip, clip]` after each step.
    pub(crate) clip: f32,
}

impl Default for AdamWSettings {
    fn default() -> AdamWSettings {
        AdamWSettings {
            decay: 0.01,
            beta1: 0.9,
            beta2: 0.999,
            epsilon: 1e-8,
            clip: 1.98,
        }
    }
}

/// AdamW's state: the moving averages, one per parameter.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct AdamW {
    /// The settings.
    pub settings: AdamWSettings,
    /// Mean gradient.
    pub(crate) momentum: Vec<f32>,
    /// Mean squared gradient.
    pub(crate) velocity: Vec<f32>,
}

impl AdamW {
    /// Zero state for `params` parameters.
    pub(crate) fn new(settings: AdamWSettings, params: usize) -> AdamW {
        AdamW {
            settings,
            momentum: vec![0.0; params],
            velocity: vec![0.0; params],
        }
    }

    /// One step of bullet's AdamW (no bias correction) at learning rate `lr`.
    pub(crate) fn step(&mut self, params: &mut [f32], grad: &[f32], lr: f32) {
        let s = self.settings;
        let shrink = 1.0 - s.decay * lr;
        params
            .par_chunks_mut(4096)
            .zip(grad.par_chunks(4096))
            .zip(self.momentum.par_chunks_mut(4096))
            .zip(self.velocity.par_chunks_mut(4096))
            .for_each(|(((p, g), m), v)| {
                for (((p, &g), m), v) in p.iter_mut().zip(g).zip(m).zip(v) {
                    *p *= shrink;
                    *m = s.beta1 * *m + (1.0 - s.beta1) * g;
                    *v = s.beta2 * *v + (1.0 - s.beta2) * g * g;
                    *p -= lr * *m / (v.sqrt() + s.epsilon);
                    *p = p.clamp(-s.clip, s.clip);
                }
            });
    }
}

/// Reusable gradient buffers for [`batch_gradient`].
pub(crate) struct GradientBuffers {
    chunks: Vec<Vec<f32>>,
    /// The summed gradient of the last batch.
    pub total: Vec<f32>,
}

impl GradientBuffers {
    /// Buffers for a net of `params` parameters.
    pub(crate) fn new(params: usize) -> GradientBuffers {
        GradientBuffers {
            chunks: vec![vec![0.0; params]; CHUNKS],
            total: vec![0.0; params],
        }
    }
}

/// The gradient of the batch's mean loss into `buffers.total`; returns the summed loss. The
/// batch is cut into [`CHUNKS`] fixed pieces, computed in parallel, and summed in order.
pub(crate) fn batch_gradient(
    net: &FloatNet,
    batch: &[TrainPosition],
    lambda: f32,
    buffers: &mut GradientBuffers,
) -> f64 {
    let weight = 1.0 / batch.len().max(1) as f32;
    let per_chunk = batch.len().div_ceil(CHUNKS).max(1);
    let losses: Vec<f64> = buffers
        .chunks
        .par_iter_mut()
        .enumerate()
        .map(|(i, grad)| {
            grad.fill(0.0);
            let start = (i * per_chunk).min(batch.len());
            let end = (start + per_chunk).min(batch.len());
            net.add_gradient(&batch[start..end], lambda, weight, grad)
        })
        .collect();
    let chunks = &buffers.chunks;
    buffers
        .total
        .par_chunks_mut(4096)
        .enumerate()
        .for_each(|(block, out)| {
            let offset = block * 4096;
            let len = out.len();
            out.copy_from_slice(&chunks[0][offset..offset + len]);
            for chunk in &chunks[1..] {
                for (o, &g) in out.iter_mut().zip(&chunk[offset..offset + len]) {
                    *o += g;
                }
            }
        });
    losses.iter().sum()
}

/// The summed loss over `positions`, in parallel (a fixed cut, summed in order).
pub(crate) fn total_loss(net: &FloatNet, positions: &[TrainPosition], lambda: f32) -> f64 {
    let losses: Vec<f64> = positions
        .par_chunks(4096)
        .map(|chunk| net.loss(chunk, lambda))
        .collect();
    losses.iter().sum()
}

/// bullet's StepLR: `start · gamma^⌊(superbatch − 1) / step⌋`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepLr {
    /// The first superbatch's rate.
    pub start: f32,
    /// The factor applied every `step` superbatches.
    pub gamma: f32,
    /// Superbatches between drops.
    pub step: usize,
}

impl StepLr {
    /// The rate of `superbatch` (1-based).
    pub fn rate(&self, superbatch: usize) -> f32 {
        let drops = (superbatch.max(1) - 1) / self.step.max(1);
        self.start * self.gamma.powi(drops.min(i32::MAX as usize) as i32)
    }
}

/// λ, the share of the result in the target: constant (`start == end`) or linear from `start`
/// at the first superbatch to `end` at the last.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LambdaSchedule {
    /// λ at the first superbatch.
    pub start: f32,
    /// λ at the last superbatch.
    pub end: f32,
}

impl LambdaSchedule {
    /// λ for `superbatch` (1-based) of `total`.
    pub fn at(&self, superbatch: usize, total: usize) -> f32 {
        if total <= 1 {
            return self.start;
        }
        let t = (superbatch.max(1) - 1) as f32 / (total - 1) as f32;
        self.start + (self.end - self.start) * t.min(1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_lr_and_lambda_follow_bullets_formulas() {
        let lr = StepLr {
            start: 0.001,
            gamma: 0.1,
            step: 18,
        };
        assert_eq!(lr.rate(1), 0.001);
        assert_eq!(lr.rate(18), 0.001);
        assert!((lr.rate(19) - 0.0001).abs() < 1e-10);
        let l = LambdaSchedule {
            start: 1.0,
            end: 0.5,
        };
        assert_eq!((l.at(1, 3), l.at(2, 3), l.at(3, 3)), (1.0, 0.75, 0.5));
    }

    #[test]
    fn adamw_decays_steps_without_bias_correction_and_clamps() {
        let mut adam = AdamW::new(AdamWSettings::default(), 2);
        let mut params = vec![1.0, 1.97];
        adam.step(&mut params, &[0.5, -1.0], 0.1);
        // p·(1 − 0.001) − 0.1 · 0.05 / (√0.00025 + 1e-8)
        let m: f32 = 0.05;
        let v: f32 = 0.001 * 0.25;
        let expected = 1.0 * (1.0 - 0.001) - 0.1 * m / (v.sqrt() + 1e-8);
        assert!((params[0] - expected).abs() < 1e-4, "{}", params[0]);
        assert_eq!(params[1], 1.98, "clamped");
    }
}
