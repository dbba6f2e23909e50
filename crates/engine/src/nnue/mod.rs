//! A network evaluation in bullet's simple architecture, `(768 → N)x2 → 1`: `Chess768` inputs seen
//! from the side to move and from the other side, one hidden layer of `N` SCReLU units shared by
//! both perspectives, one output. The file is the quantised one bullet saves ([`Network`]), so a
//! net trained by bullet on a GPU loads unchanged and sparring's own nets load into any engine that
//! reads the format.
//!
//! # Load a net and evaluate a position
//!
//! ```
//! use sparring_chess::board::Position;
//! use sparring_engine::nnue::Network;
//!
//! // A net of 32 hidden units whose weights are all zero but the output bias (1.0 → 400 cp).
//! let mut net = Network::zeroed(32);
//! net.output_bias = 16320;
//! let net = Network::from_bytes(&net.to_bytes(), "zero.bin")?;
//! assert_eq!(net.hidden(), 32);
//! let pos = Position::startpos();
//! assert_eq!(net.evaluate(&pos), 400);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod accumulator;
mod features;
mod file;
mod simd;

pub use accumulator::AccumulatorStack;
pub use features::{active_features, FEATURES};
pub use file::{Network, NetworkError};

/// The shipped network's bytes (configs/nets/default.bin): the engine's default evaluation since
/// a net beat the hand-crafted one at equal time (docs/strength.md, row 30; this one is row 37's).
pub const SHIPPED_NET_BYTES: &[u8] = include_bytes!("../../../../configs/nets/default.bin");

/// The shipped network, read once from [`SHIPPED_NET_BYTES`].
///
/// ```
/// let net = sparring_engine::nnue::shipped();
/// assert_eq!(net.hidden(), 256);
/// ```
pub fn shipped() -> std::sync::Arc<Network> {
    static SHIPPED: std::sync::OnceLock<std::sync::Arc<Network>> = std::sync::OnceLock::new();
    SHIPPED
        .get_or_init(|| {
            let net = Network::from_bytes(SHIPPED_NET_BYTES, "configs/nets/default.bin");
            // The bytes are compiled in and checked by a unit test: a failure is a build defect.
            std::sync::Arc::new(net.expect("the shipped network is a valid (768 -> N)x2 -> 1 net"))
        })
        .clone()
}

/// The feature layer's quantisation: a float weight `w` is stored as `round(QA·w)`.
pub const QA: i32 = 255;
/// The output layer's quantisation: a float weight `w` is stored as `round(QB·w)`.
pub const QB: i32 = 64;
/// Centipawns per unit of the network's float output (bullet's `SCALE`).
pub const SCALE: i32 = 400;

/// The evaluation the search uses from a network's output: `scale_percent` % of the output
/// (`eval.net_scale`, rounded toward zero so that both colours see the same magnitude), clamped
/// to ±[`MAX_EVAL`](crate::eval::MAX_EVAL), below the mate and tablebase scores, as the
/// hand-crafted evaluation is. The one definition for the search and `sparring eval`.
#[inline(always)]
pub(crate) fn search_score(output: i32, scale_percent: i32) -> i32 {
    // i64: an arbitrary file's output times the percentage may leave i32.
    let scaled = i64::from(output) * i64::from(scale_percent) / 100;
    let max = i64::from(crate::eval::MAX_EVAL);
    scaled.clamp(-max, max) as i32
}

#[cfg(test)]
mod tests {
    use super::search_score;
    use crate::eval::MAX_EVAL;

    /// Scaling rounds toward zero (the same magnitude for both colours), clamps after scaling
    /// and cannot overflow whatever a file's output is.
    #[test]
    fn search_score_scales_symmetrically_and_clamps() {
        assert_eq!(search_score(101, 72), 72);
        assert_eq!(search_score(-101, 72), -72);
        assert_eq!(search_score(0, 72), 0);
        assert_eq!(search_score(2 * MAX_EVAL, 50), MAX_EVAL);
        assert_eq!(search_score(2 * MAX_EVAL + 10, 50), MAX_EVAL);
        assert_eq!(search_score(i32::MAX, 400), MAX_EVAL);
        assert_eq!(search_score(i32::MIN, 400), -MAX_EVAL);
        assert_eq!(search_score(123, 100), 123);
    }
}
