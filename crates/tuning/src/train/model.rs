//! The float network `(768 → N)x2 → 1` the trainer fits, its loss and gradient on sparse inputs,
//! and its quantisation into the engine's [`Network`] file. The parameters live in one flat
//! vector in bullet's `raw.bin` order (feature weights feature by feature, feature biases, output
//! weights for the side to move then the other side, output bias), so the optimiser, the
//! checkpoints and `raw.bin` all see the same layout.
//!
//! Hand-written sparse CPU code: at most 32 of 768 inputs are active, so a position costs
//! `2·32·N` additions forward and as many backward, which no dense tensor library beats on a CPU.

use crate::nnue::{Network, FEATURES, QA, QB};
use crate::rng::Rng;
use thiserror::Error;

/// The most active features one perspective has (32 pieces).
pub(crate) const MAX_ACTIVE: usize = 32;

/// One training position as the trainer holds it: the active features for the side to move and
/// for the other side, the score and the result, both from the side to move's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrainPosition {
    /// The side to move's active features (`count` of them used).
    pub stm: [u16; MAX_ACTIVE],
    /// The other side's active features (`count` of them used).
    pub(crate) nstm: [u16; MAX_ACTIVE],
    /// How many features each perspective has (one per piece).
    pub count: u8,
    /// The search score, centipawns, side to move's view.
    pub score: i16,
    /// The game's result for the side to move in half points: 0 lost, 1 drawn, 2 won.
    pub result: u8,
}

impl TrainPosition {
    /// The same position mirrored left to right (a-file ↔ h-file): a feature's square is its
    /// index's low six bits, so flipping the file is `^ 7` on every feature.
    pub fn mirrored(mut self) -> TrainPosition {
        let n = self.count as usize;
        for f in self.stm[..n].iter_mut().chain(self.nstm[..n].iter_mut()) {
            *f ^= 7;
        }
        self
    }

    /// The position's stm-relative features, score and result (`white_score` and the result
    /// are White-relative, as every data format hands them over).
    pub fn new(
        pos: &crate::board::Position,
        white_score: i16,
        result: crate::board::GameResult,
    ) -> TrainPosition {
        use crate::board::{Color, GameResult};
        let us = pos.side_to_move();
        let mut out = TrainPosition {
            stm: [0; MAX_ACTIVE],
            nstm: [0; MAX_ACTIVE],
            count: 0,
            score: 0,
            result: 1,
        };
        let them = crate::nnue::active_features(pos, !us);
        for (i, (s, n)) in crate::nnue::active_features(pos, us)
            .zip(them)
            .take(MAX_ACTIVE)
            .enumerate()
        {
            out.stm[i] = s as u16;
            out.nstm[i] = n as u16;
            out.count = i as u8 + 1;
        }
        let white_result = match result {
            GameResult::WhiteWins => 2,
            GameResult::Draw => 1,
            GameResult::BlackWins => 0,
        };
        (out.score, out.result) = match us {
            Color::White => (white_score, white_result),
            Color::Black => (white_score.saturating_neg(), 2 - white_result),
        };
        out
    }

    /// The training target `λ·result + (1 − λ)·σ(score / 400)`.
    pub fn target(&self, lambda: f32) -> f32 {
        let result = f32::from(self.result) / 2.0;
        lambda * result
            + (1.0 - lambda) * sigmoid(f32::from(self.score) / crate::nnue::SCALE as f32)
    }
}

/// The logistic function.
#[inline]
pub(crate) fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The float network: `hidden` units and every parameter in `raw.bin` order.
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNet {
    /// `N`, the hidden units per perspective.
    pub hidden: usize,
    /// `768·N` feature weights, `N` feature biases, `2·N` output weights, the output bias.
    pub params: Vec<f32>,
}

/// The parameter count of a net of `hidden` units.
pub(crate) fn param_count(hidden: usize) -> usize {
    (FEATURES + 3) * hidden + 1
}

/// The four tensors' names and start offsets in the flat vector, for messages.
fn tensors(hidden: usize) -> [(&'static str, usize, i32); 4] {
    [
        ("l0w", 0, QA),
        ("l0b", FEATURES * hidden, QA),
        ("l1w", (FEATURES + 1) * hidden, QB),
        ("l1b", (FEATURES + 3) * hidden, QA * QB),
    ]
}

/// The tensor (name, start offset, quantisation factor) that holds flat parameter `index`.
fn tensor_at(table: &[(&'static str, usize, i32); 4], index: usize) -> (&'static str, usize, i32) {
    *table.iter().rev().find(|t| t.1 <= index).expect("offset 0")
}

/// A float weight that does not fit the quantised file's i16.
#[derive(Error, Debug, Clone, PartialEq)]
#[error(
    "cannot quantise {tensor}[{index}] = {value}: ×{scale} gives {scaled}, outside i16 \
     (−32768..=32767); the float weights are in raw.bin"
)]
pub struct QuantiseError {
    /// The tensor's name in bullet's terms (`l0w`, `l0b`, `l1w`, `l1b`).
    pub tensor: &'static str,
    /// The index within the tensor.
    pub index: usize,
    /// The float value.
    pub value: f32,
    /// The quantisation factor it is multiplied by.
    pub scale: i32,
    /// The rounded product.
    pub scaled: f64,
}

impl FloatNet {
    /// A net with bullet's start: affine weights normal(0, √(2 / inputs)), biases zero.
    pub fn init(hidden: usize, seed: u64) -> FloatNet {
        let mut rng = Rng::derive(seed, 0x6e6e_7565);
        let mut params = vec![0.0; param_count(hidden)];
        let [_, (_, l0b, _), (_, l1w, _), (_, l1b, _)] = tensors(hidden);
        let std0 = (2.0 / FEATURES as f64).sqrt();
        let std1 = (2.0 / (2 * hidden) as f64).sqrt();
        for w in &mut params[..l0b] {
            *w = (normal(&mut rng) * std0) as f32;
        }
        for w in &mut params[l1w..l1b] {
            *w = (normal(&mut rng) * std1) as f32;
        }
        FloatNet { hidden, params }
    }

    /// The net's `raw.bin`: every parameter as f32 little-endian, in order.
    pub fn to_raw(&self) -> Vec<u8> {
        self.params.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    /// A net read from `raw.bin` bytes, if their size is that of a net of `hidden` units.
    pub(crate) fn from_raw(bytes: &[u8], hidden: usize) -> Option<FloatNet> {
        if bytes.len() != 4 * param_count(hidden) {
            return None;
        }
        let params = bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        Some(FloatNet { hidden, params })
    }

    /// The float weights of a quantised net: each weight divided by its tensor's factor. Exact
    /// for fine-tuning a net that has no float weights (one bullet saved, or the shipped one):
    /// [`FloatNet::quantise`] gives back the same bytes.
    pub fn dequantise(net: &Network) -> FloatNet {
        let hidden = net.hidden();
        let table = tensors(hidden);
        let params = (net.values().enumerate())
            .map(|(i, q)| (f64::from(q) / f64::from(tensor_at(&table, i).2)) as f32)
            .collect();
        FloatNet { hidden, params }
    }

    /// The quantised file: each weight times its tensor's factor, rounded half away from zero
    /// as f64, refused if it does not fit i16.
    pub fn quantise(&self) -> Result<Network, QuantiseError> {
        let hidden = self.hidden;
        let mut net = Network::zeroed(hidden);
        let mut values = Vec::with_capacity(self.params.len());
        let table = tensors(hidden);
        for (i, &value) in self.params.iter().enumerate() {
            let (tensor, start, scale) = tensor_at(&table, i);
            let scaled = (f64::from(value) * f64::from(scale)).round();
            if !(f64::from(i16::MIN)..=f64::from(i16::MAX)).contains(&scaled) {
                return Err(QuantiseError {
                    tensor,
                    index: i - start,
                    value,
                    scale,
                    scaled,
                });
            }
            values.push(scaled as i16);
        }
        let (l0b, l1w, l1b) = (table[1].1, table[2].1, table[3].1);
        net.feature_weights.copy_from_slice(&values[..l0b]);
        net.feature_biases.copy_from_slice(&values[l0b..l1w]);
        net.output_weights.copy_from_slice(&values[l1w..l1b]);
        net.output_bias = values[l1b];
        Ok(net)
    }

    /// The float output for one position (multiply by 400 for centipawns).
    pub fn forward(&self, p: &TrainPosition) -> f32 {
        let mut scratch = Scratch::new(self.hidden);
        self.forward_into(p, &mut scratch)
    }

    /// The forward pass, leaving the accumulators in `s`.
    fn forward_into(&self, p: &TrainPosition, s: &mut Scratch) -> f32 {
        let n = self.hidden;
        let (l0w, rest) = self.params.split_at(FEATURES * n);
        let (l0b, rest) = rest.split_at(n);
        let (l1w, l1b) = rest.split_at(2 * n);
        let count = usize::from(p.count);
        accumulate(&mut s.acc_us, l0w, l0b, &p.stm[..count]);
        accumulate(&mut s.acc_them, l0w, l0b, &p.nstm[..count]);
        let dot = |acc: &[f32], w: &[f32]| -> f32 {
            acc.iter()
                .zip(w)
                .map(|(&a, &w)| {
                    let c = a.clamp(0.0, 1.0);
                    c * c * w
                })
                .sum()
        };
        dot(&s.acc_us, &l1w[..n]) + dot(&s.acc_them, &l1w[n..]) + l1b[0]
    }

    /// Adds the gradient of `Σ (σ(out) − target)²` over `positions`, times `weight`, to `grad`
    /// (in the parameters' layout); returns the summed loss.
    pub(crate) fn add_gradient(
        &self,
        positions: &[TrainPosition],
        lambda: f32,
        weight: f32,
        grad: &mut [f32],
    ) -> f64 {
        let n = self.hidden;
        let mut s = Scratch::new(n);
        let l1w = &self.params[(FEATURES + 1) * n..(FEATURES + 3) * n];
        let (g_l0w, rest) = grad.split_at_mut(FEATURES * n);
        let (g_l0b, rest) = rest.split_at_mut(n);
        let (g_l1w, g_l1b) = rest.split_at_mut(2 * n);
        let mut loss = 0.0f64;
        let mut d_us = vec![0.0f32; n];
        let mut d_them = vec![0.0f32; n];
        for p in positions {
            let out = self.forward_into(p, &mut s);
            let prob = sigmoid(out);
            let diff = prob - p.target(lambda);
            loss += f64::from(diff * diff);
            let g = weight * 2.0 * diff * prob * (1.0 - prob);
            g_l1b[0] += g;
            backward_half(&s.acc_us, &l1w[..n], g, &mut g_l1w[..n], &mut d_us);
            backward_half(&s.acc_them, &l1w[n..], g, &mut g_l1w[n..], &mut d_them);
            for ((b, &du), &dt) in g_l0b.iter_mut().zip(&d_us).zip(&d_them) {
                *b += du + dt;
            }
            let count = usize::from(p.count);
            scatter(g_l0w, &p.stm[..count], &d_us);
            scatter(g_l0w, &p.nstm[..count], &d_them);
        }
        loss
    }

    /// The summed loss over `positions` (no gradient).
    pub fn loss(&self, positions: &[TrainPosition], lambda: f32) -> f64 {
        let mut s = Scratch::new(self.hidden);
        positions
            .iter()
            .map(|p| {
                let diff = sigmoid(self.forward_into(p, &mut s)) - p.target(lambda);
                f64::from(diff * diff)
            })
            .sum()
    }
}

/// One perspective's backward step: the output weights' gradient `g·h` and the accumulator's
/// gradient `g·w·screlu'(acc)` into `d_acc`.
#[inline]
fn backward_half(acc: &[f32], w: &[f32], g: f32, g_w: &mut [f32], d_acc: &mut [f32]) {
    for (((&a, &w), gw), d) in acc.iter().zip(w).zip(g_w.iter_mut()).zip(d_acc.iter_mut()) {
        let c = a.clamp(0.0, 1.0);
        *gw += g * c * c;
        // screlu'(a) = 2a inside (0, 1), zero outside.
        *d = if a > 0.0 && a < 1.0 {
            g * w * 2.0 * a
        } else {
            0.0
        };
    }
}

/// `acc = bias + Σ weights of the active features`.
#[inline]
fn accumulate(acc: &mut [f32], l0w: &[f32], l0b: &[f32], features: &[u16]) {
    let n = acc.len();
    acc.copy_from_slice(l0b);
    for &f in features {
        let row = &l0w[usize::from(f) * n..usize::from(f) * n + n];
        for (a, &w) in acc.iter_mut().zip(row) {
            *a += w;
        }
    }
}

/// Adds `d` to the gradient row of each active feature.
#[inline]
fn scatter(g_l0w: &mut [f32], features: &[u16], d: &[f32]) {
    let n = d.len();
    for &f in features {
        let row = &mut g_l0w[usize::from(f) * n..usize::from(f) * n + n];
        for (g, &d) in row.iter_mut().zip(d) {
            *g += d;
        }
    }
}

/// Per-position buffers reused across positions.
struct Scratch {
    acc_us: Vec<f32>,
    acc_them: Vec<f32>,
}

impl Scratch {
    fn new(hidden: usize) -> Scratch {
        Scratch {
            acc_us: vec![0.0; hidden],
            acc_them: vec![0.0; hidden],
        }
    }
}

/// A standard normal draw (Box–Muller).
fn normal(rng: &mut Rng) -> f64 {
    let u1 = rng.next_f64().max(f64::MIN_POSITIVE);
    let u2 = rng.next_f64();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{GameResult, Position};

    #[test]
    fn dequantising_then_quantising_gives_the_same_net() {
        let shipped = crate::nnue::shipped();
        let back = FloatNet::dequantise(&shipped).quantise().unwrap();
        assert_eq!(back, *shipped);
        let mut float = FloatNet::init(8, 3);
        float.params.iter_mut().for_each(|w| *w *= 40.0);
        let net = float.quantise().unwrap();
        assert_eq!(FloatNet::dequantise(&net).quantise().unwrap(), net);
    }

    fn positions() -> Vec<TrainPosition> {
        let fens = [
            (Position::START_FEN, 20, GameResult::Draw),
            (
                "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
                35,
                GameResult::WhiteWins,
            ),
            (
                "4k3/8/8/8/8/8/4P3/3QK3 b - - 0 1",
                900,
                GameResult::WhiteWins,
            ),
            (
                "3qk3/4p3/8/8/8/8/8/4K3 w - - 0 1",
                -880,
                GameResult::BlackWins,
            ),
        ];
        fens.iter()
            .map(|&(fen, score, result)| {
                TrainPosition::new(&fen.parse::<Position>().unwrap(), score, result)
            })
            .collect()
    }

    #[test]
    fn positions_are_stm_relative() {
        let p = &positions()[2];
        assert_eq!((p.score, p.result, p.count), (-900, 0, 4));
        let start = &positions()[0];
        assert!(start.stm[..32].contains(&192) && start.nstm[..32].contains(&632));
    }

    /// Mirroring a training position gives the features of the board mirrored a ↔ h.
    #[test]
    fn a_mirrored_position_has_the_mirrored_boards_features() {
        use crate::board::GameResult;
        let mirror_fen = |fen: &str| {
            let mut fields: Vec<String> = fen.split(' ').map(str::to_string).collect();
            fields[0] = fields[0]
                .split('/')
                .map(|rank| rank.chars().rev().collect::<String>())
                .collect::<Vec<_>>()
                .join("/");
            fields.join(" ")
        };
        let fen = "r3k2r/1ppq1ppp/p1n2n2/4p3/2B1P1b1/2NP1N2/PPP2PPP/R2Q1RK1 b - - 3 9";
        let sorted = |p: TrainPosition| {
            let n = p.count as usize;
            let (mut s, mut o) = (p.stm[..n].to_vec(), p.nstm[..n].to_vec());
            s.sort_unstable();
            o.sort_unstable();
            (s, o, p.score, p.result)
        };
        let original = TrainPosition::new(&fen.parse().unwrap(), 35, GameResult::Draw);
        let mirrored = TrainPosition::new(&mirror_fen(fen).parse().unwrap(), 35, GameResult::Draw);
        assert_ne!(sorted(original), sorted(mirrored));
        assert_eq!(sorted(original.mirrored()), sorted(mirrored));
        assert_eq!(original.mirrored().mirrored(), original);
    }

    /// The gradient of the mean loss against central finite differences in f64 terms: every
    /// parameter of a tiny net (N = 4) whose step changes the loss measurably.
    #[test]
    fn gradient_matches_finite_differences() {
        let data = positions();
        let mut net = FloatNet::init(4, 7);
        // Biases away from zero so the SCReLU's inside is exercised with a non-zero bias too.
        for (i, b) in net.params[FEATURES * 4..FEATURES * 4 + 4]
            .iter_mut()
            .enumerate()
        {
            *b = 0.1 + 0.15 * i as f32;
        }
        let lambda = 0.3;
        let mut grad = vec![0.0; net.params.len()];
        let weight = 1.0 / data.len() as f32;
        net.add_gradient(&data, lambda, weight, &mut grad);
        let loss = loss_f64(&net, &data, lambda);
        let (mut checked, mut worst) = (0, 0.0f64);
        for (i, &analytic) in grad.iter().enumerate() {
            let h = 1e-4;
            let numeric = (loss(&(i, h)) - loss(&(i, -h))) / (2.0 * h);
            let analytic = f64::from(analytic);
            if numeric.abs() < 1e-5 && analytic.abs() < 1e-5 {
                continue;
            }
            checked += 1;
            let error = (numeric - analytic).abs() / numeric.abs().max(analytic.abs());
            worst = worst.max(error);
            assert!(
                error < 0.002,
                "param {i}: numeric {numeric} analytic {analytic}"
            );
        }
        assert!(checked > 50, "only {checked} parameters had a gradient");
        assert!(worst < 0.002, "{worst}");
    }

    /// The mean loss computed in f64 with parameter `i` moved by `h`: the reference the
    /// f32 gradient is checked against.
    fn loss_f64(
        net: &FloatNet,
        data: &[TrainPosition],
        lambda: f32,
    ) -> impl Fn(&(usize, f64)) -> f64 {
        let net = net.clone();
        let data = data.to_vec();
        move |&(i, h)| {
            let n = net.hidden;
            let w = |j: usize| f64::from(net.params[j]) + if j == i { h } else { 0.0 };
            let mut total = 0.0;
            for p in &data {
                let c = usize::from(p.count);
                let mut out = w(param_count(n) - 1);
                for (side, features) in [&p.stm[..c], &p.nstm[..c]].into_iter().enumerate() {
                    for k in 0..n {
                        let acc = w(FEATURES * n + k)
                            + features
                                .iter()
                                .map(|&f| w(usize::from(f) * n + k))
                                .sum::<f64>();
                        let a = acc.clamp(0.0, 1.0);
                        out += a * a * w((FEATURES + 1) * n + side * n + k);
                    }
                }
                let prob = 1.0 / (1.0 + (-out).exp());
                let diff = prob - f64::from(p.target(lambda));
                total += diff * diff;
            }
            total / data.len() as f64
        }
    }

    #[test]
    fn quantisation_rounds_half_away_from_zero_and_refuses_overflow() {
        let mut net = FloatNet {
            hidden: 32,
            params: vec![0.0; param_count(32)],
        };
        net.params[0] = 0.5 / 255.0 * 1.000_001;
        net.params[1] = -0.5 / 255.0 * 1.000_001;
        let q = net.quantise().unwrap();
        assert_eq!(&q.feature_weights[..2], &[1, -1]);
        net.params[param_count(32) - 1] = 1.5;
        assert_eq!(net.quantise().unwrap().output_bias, 24480);
        net.params[FEATURES * 32 + 3] = 200.0;
        let err = net.quantise().unwrap_err();
        assert_eq!((err.tensor, err.index), ("l0b", 3));
        assert!(err.to_string().contains("l0b[3] = 200"), "{err}");
    }

    #[test]
    fn raw_round_trips() {
        let net = FloatNet::init(32, 3);
        assert_eq!(net.to_raw().len(), 4 * 24673);
        assert_eq!(FloatNet::from_raw(&net.to_raw(), 32), Some(net));
    }
}
