//! The quantised network file bullet saves (`quantised.bin`), read and written: little-endian
//! i16 throughout, no header: the feature weights feature by feature (`768·N`), the feature
//! biases (`N`), the output weights for the side to move's hidden layer then the other side's
//! (`2·N`), the output bias (`1`), then padding to a multiple of 64 bytes (bullet pads with the
//! repeated ASCII string `bullet`). `N` follows from the file's size.

use super::features::{active_features, FEATURES};
use super::{QA, QB, SCALE};
use crate::board::Position;
use crate::error::{ErrorClass, Failure};
use std::path::Path;
use thiserror::Error;

/// The largest hidden layer a file may declare through its size (a 19 MB file): far beyond what
/// a CPU engine can use, and a bound that keeps a wrong file from allocating without limit.
pub(crate) const MAX_HIDDEN: usize = 8192;

/// Padding bytes: bullet repeats its own name up to the next multiple of 64 bytes.
const PADDING: &[u8] = b"bullet";

/// What is wrong with a network file.
#[derive(Error, Debug)]
#[non_exhaustive]
pub enum NetworkError {
    /// The file cannot be read (missing, a directory, no permission).
    #[error("{file}: cannot read the network: {source}")]
    Read {
        /// The path as given.
        file: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The file cannot be written.
    #[error("{file}: cannot write the network: {source}")]
    Write {
        /// The path as given.
        file: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The size is not that of a `(768 → N)x2 → 1` quantised net for any `N` up to
    /// [`MAX_HIDDEN`], padded to 64 bytes or not.
    #[error(
        "{file}: {bytes} bytes is not the size of a (768 -> N)x2 -> 1 quantised net (2·(771·N + 1) \
         bytes, padded to a multiple of 64) for any N from 1 to {MAX_HIDDEN}"
    )]
    Size {
        /// The path as given.
        file: String,
        /// The file's size.
        bytes: usize,
    },
}

impl ErrorClass for NetworkError {
    fn class(&self) -> Failure {
        match self {
            NetworkError::Read { .. } | NetworkError::Size { .. } => Failure::BadInput,
            NetworkError::Write { .. } => Failure::FailedRun,
        }
    }
}

/// A quantised `(768 → N)x2 → 1` network as bullet saves it: feature weights `round(255·w)`,
/// output weights `round(64·w)`, output bias `round(16320·b)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Network {
    /// `768·N` weights, feature `f`'s `N` weights contiguous from `f·N`.
    pub feature_weights: Vec<i16>,
    /// The hidden layer's `N` biases.
    pub feature_biases: Vec<i16>,
    /// `2·N` output weights: the first `N` for the side to move's hidden layer, then the other's.
    pub output_weights: Vec<i16>,
    /// The output bias, at scale `QA·QB`.
    pub output_bias: i16,
}

/// The payload's size in bytes for `hidden` units, before padding.
fn payload_bytes(hidden: usize) -> usize {
    2 * ((FEATURES + 3) * hidden + 1)
}

impl Network {
    /// A net of `hidden` units with every weight and bias zero (a start for writers and tests).
    pub fn zeroed(hidden: usize) -> Network {
        Network {
            feature_weights: vec![0; FEATURES * hidden],
            feature_biases: vec![0; hidden],
            output_weights: vec![0; 2 * hidden],
            output_bias: 0,
        }
    }

    /// The number of hidden units, `N`.
    pub fn hidden(&self) -> usize {
        self.feature_biases.len()
    }

    /// Reads a quantised net from `path`.
    pub fn load(path: &Path) -> Result<Network, NetworkError> {
        let file = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|source| NetworkError::Read {
            file: file.clone(),
            source,
        })?;
        Network::from_bytes(&bytes, &file)
    }

    /// Parses a quantised net; `file` names it in errors. The padding's contents are not
    /// checked (other trainers pad with zeros).
    pub fn from_bytes(bytes: &[u8], file: &str) -> Result<Network, NetworkError> {
        let hidden = (1..=MAX_HIDDEN)
            .find(|&n| {
                let payload = payload_bytes(n);
                bytes.len() == payload || bytes.len() == payload.next_multiple_of(64)
            })
            .ok_or_else(|| NetworkError::Size {
                file: file.to_string(),
                bytes: bytes.len(),
            })?;
        let mut values = bytes
            .chunks_exact(2)
            .map(|pair| i16::from_le_bytes([pair[0], pair[1]]));
        let mut take = |count: usize| values.by_ref().take(count).collect::<Vec<i16>>();
        let feature_weights = take(FEATURES * hidden);
        let feature_biases = take(hidden);
        let output_weights = take(2 * hidden);
        let output_bias = take(1)[0];
        Ok(Network {
            feature_weights,
            feature_biases,
            output_weights,
            output_bias,
        })
    }

    /// Every weight and bias in the file's order: feature weights, feature biases, output
    /// weights, output bias.
    pub fn values(&self) -> impl Iterator<Item = i16> + '_ {
        let tensors = [
            &self.feature_weights[..],
            &self.feature_biases[..],
            &self.output_weights[..],
            std::slice::from_ref(&self.output_bias),
        ];
        tensors.into_iter().flatten().copied()
    }

    /// The file's bytes, padded with `bullet` to a multiple of 64 as bullet writes them.
    pub fn to_bytes(&self) -> Vec<u8> {
        let hidden = self.hidden();
        let mut bytes = Vec::with_capacity(payload_bytes(hidden).next_multiple_of(64));
        for value in self.values() {
            bytes.extend_from_slice(&value.to_le_bytes());
        }
        let padded = bytes.len().next_multiple_of(64);
        let padding = PADDING.iter().cycle().take(padded - bytes.len());
        bytes.extend(padding);
        bytes
    }

    /// Writes the file atomically (a temporary file beside it, then a rename).
    pub fn save(&self, path: &Path) -> Result<(), NetworkError> {
        let write_error = |source| NetworkError::Write {
            file: path.display().to_string(),
            source,
        };
        let mut temporary = path.as_os_str().to_owned();
        temporary.push(".tmp");
        std::fs::write(&temporary, self.to_bytes()).map_err(write_error)?;
        std::fs::rename(&temporary, path).map_err(write_error)
    }

    /// The network's output for `pos` in centipawns from the side to move's view, computed from
    /// scratch exactly as bullet's example inference does: accumulators of i16 sums (wrapping as
    /// i16 does), `clamp(acc, 0, 255)²` times the output weights summed (in i64 here, so no size
    /// of net overflows), `/ 255`, plus the bias, `· 400 / 16320`, each division truncating.
    pub fn evaluate(&self, pos: &Position) -> i32 {
        let us = pos.side_to_move();
        let (acc_us, acc_them) = (self.accumulate(pos, us), self.accumulate(pos, !us));
        let hidden = self.hidden();
        let screlu = |v: i16| i64::from(v.clamp(0, QA as i16)).pow(2);
        let sum: i64 = acc_us
            .iter()
            .chain(&acc_them)
            .zip(&self.output_weights)
            .map(|(&a, &w)| screlu(a) * i64::from(w))
            .sum();
        debug_assert_eq!(self.output_weights.len(), 2 * hidden);
        let output = (sum / i64::from(QA) + i64::from(self.output_bias)) * i64::from(SCALE)
            / i64::from(QA * QB);
        output as i32
    }

    /// One perspective's accumulator computed from scratch: the biases plus the weights of every
    /// active feature.
    pub fn accumulate(&self, pos: &Position, perspective: crate::board::Color) -> Vec<i16> {
        let hidden = self.hidden();
        let mut acc = self.feature_biases.clone();
        for feature in active_features(pos, perspective) {
            let weights = &self.feature_weights[feature * hidden..(feature + 1) * hidden];
            for (a, &w) in acc.iter_mut().zip(weights) {
                *a = a.wrapping_add(w);
            }
        }
        acc
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The research notes' worked example (§4.3): N = 2, acc_us = [300, 100], acc_them =
    /// [-20, 255], output weights [50, -30, 20, 10], bias 1000 → 370 cp.
    #[test]
    fn inference_arithmetic_matches_the_worked_example() {
        let mut net = Network::zeroed(2);
        net.output_weights = vec![50, -30, 20, 10];
        net.output_bias = 1000;
        net.feature_biases = vec![300, 100];
        // The pawn on e2 is feature 12 for White (zero weights: acc_us = the biases) and 436 for
        // Black, whose weights turn the biases into acc_them = [-20, 255].
        net.feature_weights[436 * 2..437 * 2].copy_from_slice(&[-320, 155]);
        let pos: Position = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1".parse().unwrap();
        assert_eq!(net.evaluate(&pos), 370);
    }

    #[test]
    fn bytes_round_trip_and_padding_is_bullets() {
        let mut net = Network::zeroed(32);
        net.feature_weights[5] = -7;
        net.output_weights[63] = 12;
        net.output_bias = -3;
        let bytes = net.to_bytes();
        assert_eq!(bytes.len(), 2 * (771 * 32 + 1) + 62);
        assert_eq!(&bytes[bytes.len() - 62..bytes.len() - 56], b"bullet");
        assert_eq!(Network::from_bytes(&bytes, "t").unwrap(), net);
        let unpadded = &bytes[..2 * (771 * 32 + 1)];
        assert_eq!(Network::from_bytes(unpadded, "t").unwrap(), net);
    }

    #[test]
    fn a_file_of_no_nets_size_is_refused_naming_it() {
        let err = Network::from_bytes(&[0; 1000], "net.bin").unwrap_err();
        assert!(err.to_string().starts_with("net.bin: 1000 bytes"), "{err}");
        assert!(err.is_bad_input());
    }
}
