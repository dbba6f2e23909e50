//! The two hot loops of the network, each twice: with AVX2 (std::arch, chosen at run time) and
//! portable. Both give the same integers for every input: the accumulator update wraps as i16
//! in both, and the SCReLU dot product takes the AVX2 path only when its i16 and i32 lanes
//! cannot overflow ([`Kernels::new`]), so there it is exact as the portable i64 sum is.
//! `tests/it/nnue.rs` and the tests below compare the two paths on random nets and games.

use super::QA;

/// The widest hidden layer whose SCReLU dot product fits the AVX2 path's i32 lanes: each lane
/// adds `2·N/16` pairs of terms of at most `2·255·(255·128)` (≈ 1.67e7), under 2³¹ up to N = 1031.
const AVX2_DOT_MAX_HIDDEN: usize = 1024;
/// The largest output weight whose product with a clamped activation (≤ 255) fits an i16 lane.
const AVX2_DOT_MAX_WEIGHT: i16 = 128;

/// Which implementation of each loop a net uses, fixed when its evaluator is built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Kernels {
    /// AVX2 accumulator updates (any net).
    avx2_update: bool,
    /// AVX2 SCReLU dot product (nets whose output weights and width keep the lanes exact).
    avx2_dot: bool,
}

impl Kernels {
    /// The fastest exact kernels this CPU offers for a net of `hidden` units and these output
    /// weights; `allow_simd` false forces the portable loops (for the identity tests).
    pub(super) fn new(hidden: usize, output_weights: &[i16], allow_simd: bool) -> Kernels {
        let avx2 = allow_simd && avx2_available();
        let small_weights = output_weights
            .iter()
            .all(|w| (-AVX2_DOT_MAX_WEIGHT..=AVX2_DOT_MAX_WEIGHT).contains(w));
        Kernels {
            avx2_update: avx2,
            avx2_dot: avx2 && small_weights && hidden <= AVX2_DOT_MAX_HIDDEN,
        }
    }

    /// Whether any loop runs with AVX2.
    pub(crate) fn uses_simd(&self) -> bool {
        self.avx2_update || self.avx2_dot
    }

    /// `dst = src + Σ adds − Σ subs`, lane by lane, wrapping as i16 (bullet's accumulator
    /// arithmetic). Every slice has `dst`'s length.
    #[inline]
    pub(super) fn update<const A: usize, const S: usize>(
        &self,
        dst: &mut [i16],
        src: &[i16],
        adds: [&[i16]; A],
        subs: [&[i16]; S],
    ) {
        #[cfg(target_arch = "x86_64")]
        if self.avx2_update {
            // SAFETY: `avx2_update` is set only when the CPU reports AVX2 (`avx2_available`).
            unsafe { x86::update(dst, src, adds, subs) };
            return;
        }
        update_portable(dst, src, adds, subs);
    }

    /// `Σ clamp(acc[i], 0, 255)² · weights[i]`, exactly.
    #[inline]
    pub(crate) fn screlu_dot(&self, acc: &[i16], weights: &[i16]) -> i64 {
        #[cfg(target_arch = "x86_64")]
        if self.avx2_dot {
            // SAFETY: `avx2_dot` is set only when the CPU reports AVX2 (`avx2_available`).
            return unsafe { x86::screlu_dot(acc, weights) };
        }
        screlu_dot_portable(acc, weights)
    }
}

/// Whether this CPU runs AVX2 instructions.
fn avx2_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The portable accumulator update.
#[inline]
fn update_portable<const A: usize, const S: usize>(
    dst: &mut [i16],
    src: &[i16],
    adds: [&[i16]; A],
    subs: [&[i16]; S],
) {
    for (i, (d, &s)) in dst.iter_mut().zip(src).enumerate() {
        let mut v = s;
        for add in adds {
            v = v.wrapping_add(add[i]);
        }
        for sub in subs {
            v = v.wrapping_sub(sub[i]);
        }
        *d = v;
    }
}

/// The portable SCReLU dot product, in i64 so that no net overflows it.
#[inline]
fn screlu_dot_portable(acc: &[i16], weights: &[i16]) -> i64 {
    acc.iter()
        .zip(weights)
        .map(|(&a, &w)| {
            let v = i64::from(a.clamp(0, QA as i16));
            v * v * i64::from(w)
        })
        .sum()
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{screlu_dot_portable, update_portable, QA};
    use std::arch::x86_64::*;

    /// 16 i16 lanes per 256-bit register.
    const LANES: usize = 16;

    /// The AVX2 accumulator update; the tail beyond a multiple of 16 lanes goes portable.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn update<const A: usize, const S: usize>(
        dst: &mut [i16],
        src: &[i16],
        adds: [&[i16]; A],
        subs: [&[i16]; S],
    ) {
        let n = dst.len();
        assert!(src.len() == n && adds.iter().chain(&subs).all(|s| s.len() == n));
        let body = n - n % LANES;
        let mut i = 0;
        while i < body {
            // SAFETY: every slice holds `n` elements (asserted) and `i + 16 <= body <= n`, so
            // each unaligned 32-byte load and store stays inside its slice.
            unsafe {
                let mut v = _mm256_loadu_si256(src.as_ptr().add(i).cast());
                for add in adds {
                    v = _mm256_add_epi16(v, _mm256_loadu_si256(add.as_ptr().add(i).cast()));
                }
                for sub in subs {
                    v = _mm256_sub_epi16(v, _mm256_loadu_si256(sub.as_ptr().add(i).cast()));
                }
                _mm256_storeu_si256(dst.as_mut_ptr().add(i).cast(), v);
            }
            i += LANES;
        }
        update_portable(
            &mut dst[body..],
            &src[body..],
            adds.map(|s| &s[body..]),
            subs.map(|s| &s[body..]),
        );
    }

    /// The AVX2 SCReLU dot product: `(v·w)` in i16 lanes (exact while |w| ≤ 128), times `v`
    /// again with pairwise i32 sums (`madd`), summed in i32 lanes (exact while N ≤ 1024).
    ///
    /// # Safety
    /// The CPU must support AVX2, and the caller must keep |weights| ≤ 128 and the length at
    /// most 1024 (`Kernels::new` does).
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn screlu_dot(acc: &[i16], weights: &[i16]) -> i64 {
        let n = acc.len();
        assert!(weights.len() == n);
        let body = n - n % LANES;
        let zero = _mm256_setzero_si256();
        let max = _mm256_set1_epi16(QA as i16);
        let mut sum = _mm256_setzero_si256();
        let mut i = 0;
        while i < body {
            // SAFETY: both slices hold `n` elements and `i + 16 <= body <= n`.
            unsafe {
                let a = _mm256_loadu_si256(acc.as_ptr().add(i).cast());
                let w = _mm256_loadu_si256(weights.as_ptr().add(i).cast());
                let v = _mm256_min_epi16(_mm256_max_epi16(a, zero), max);
                let vw = _mm256_mullo_epi16(v, w);
                sum = _mm256_add_epi32(sum, _mm256_madd_epi16(vw, v));
            }
            i += LANES;
        }
        let mut lanes = [0i32; 8];
        // SAFETY: `lanes` is 32 bytes, the size of one unaligned store.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), sum) };
        let body_sum: i64 = lanes.iter().map(|&l| i64::from(l)).sum();
        body_sum + screlu_dot_portable(&acc[body..], &weights[body..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn random_i16s(rng: &mut Rng, n: usize, bound: u64) -> Vec<i16> {
        (0..n)
            .map(|_| (rng.below(2 * bound + 1) as i64 - bound as i64) as i16)
            .collect()
    }

    /// Both paths agree on random vectors of awkward lengths, wrapping included (the bound
    /// 32767 makes sums overflow i16 often). On a CPU without AVX2 both run the portable loops.
    #[test]
    fn simd_and_portable_loops_give_identical_integers() {
        let mut rng = Rng::new(48);
        for n in [1, 15, 16, 17, 32, 100, 128, 256, 1024] {
            for _ in 0..20 {
                let weights = random_i16s(&mut rng, n, 128);
                let fast = Kernels::new(n, &weights, true);
                let portable = Kernels::new(n, &weights, false);
                assert!(!portable.uses_simd());
                let src = random_i16s(&mut rng, n, 32767);
                let (a1, a2, s1, s2) = (
                    random_i16s(&mut rng, n, 32767),
                    random_i16s(&mut rng, n, 32767),
                    random_i16s(&mut rng, n, 32767),
                    random_i16s(&mut rng, n, 32767),
                );
                let (mut x, mut y) = (vec![0; n], vec![0; n]);
                fast.update(&mut x, &src, [&a1, &a2], [&s1, &s2]);
                portable.update(&mut y, &src, [&a1, &a2], [&s1, &s2]);
                assert_eq!(x, y);
                fast.update(&mut x, &src, [&a1], [&s1]);
                portable.update(&mut y, &src, [&a1], [&s1]);
                assert_eq!(x, y);
                let acc = random_i16s(&mut rng, n, 400);
                let dot = fast.screlu_dot(&acc, &weights);
                assert_eq!(dot, portable.screlu_dot(&acc, &weights));
                // The extreme: every activation 255 and every weight ±128.
                let top = vec![255i16; n];
                let signs: Vec<i16> = weights
                    .iter()
                    .map(|&w| if w < 0 { -128 } else { 128 })
                    .collect();
                assert_eq!(
                    fast.screlu_dot(&top, &signs),
                    portable.screlu_dot(&top, &signs)
                );
            }
        }
    }

    /// Output weights beyond ±128 (not bullet's clipped range) take the exact portable dot.
    #[test]
    fn large_output_weights_keep_the_exact_dot_product() {
        let kernels = Kernels::new(32, &[0, 129], true);
        assert!(!kernels.avx2_dot);
        let acc = vec![255i16; 2];
        assert_eq!(kernels.screlu_dot(&acc, &[32767, -32768]), -65025);
    }
}
