//! The checkpoint: everything a resumed run needs to continue bit for bit — the float weights,
//! AdamW's moving averages, the superbatches done with their history, and the loader's place
//! (the pass and the batches of it consumed; the shuffle and skip seeds follow from the pass).
//! One little-endian file, `checkpoint.bin`, written beside a temporary and renamed into place.

use super::model::{param_count, FloatNet};
use super::optim::{AdamW, AdamWSettings};
use super::HistoryRow;

const MAGIC: &[u8; 8] = b"SPTRAIN1";

/// A run's state after a superbatch.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct State {
    /// Superbatches done.
    pub superbatch: usize,
    /// The pass the loader is in (0-based).
    pub pass: u64,
    /// Batches of that pass consumed.
    pub(crate) batches_in_pass: u64,
    /// The configuration's fingerprint: a resume under another data set, batch or seed is refused.
    pub fingerprint: u64,
    /// The weights.
    pub net: FloatNet,
    /// The optimiser.
    pub adam: AdamW,
    /// One row per superbatch done.
    pub history: Vec<HistoryRow>,
}

fn put_u64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_f64(out: &mut Vec<u8>, v: f64) {
    out.extend_from_slice(&v.to_le_bytes());
}

impl State {
    /// The file's bytes.
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        for v in [
            self.net.hidden as u64,
            self.superbatch as u64,
            self.pass,
            self.batches_in_pass,
            self.fingerprint,
            self.history.len() as u64,
        ] {
            put_u64(&mut out, v);
        }
        for row in &self.history {
            put_u64(&mut out, row.superbatch as u64);
            put_u64(&mut out, row.positions);
            for v in [
                row.train_loss,
                row.validation_loss.unwrap_or(f64::NAN),
                row.lr,
                row.lambda,
                row.positions_per_second,
                row.elapsed,
            ] {
                put_f64(&mut out, v);
            }
        }
        for tensor in [&self.net.params, &self.adam.momentum, &self.adam.velocity] {
            out.extend(tensor.iter().flat_map(|w| w.to_le_bytes()));
        }
        out
    }

    /// Reads the file's bytes; the reason when they are not a checkpoint.
    pub(crate) fn from_bytes(bytes: &[u8], settings: AdamWSettings) -> Result<State, String> {
        let mut r = Reader { bytes, at: 0 };
        if r.take(8)? != MAGIC {
            return Err("not a sparring training checkpoint (no SPTRAIN1 header)".into());
        }
        let hidden = r.u64()? as usize;
        if hidden == 0 || hidden > 8192 {
            return Err(format!("hidden size {hidden} out of range"));
        }
        let (superbatch, pass, batches_in_pass, fingerprint) =
            (r.u64()? as usize, r.u64()?, r.u64()?, r.u64()?);
        let rows = r.u64()? as usize;
        if rows != superbatch {
            return Err(format!("{rows} history rows for {superbatch} superbatches"));
        }
        let mut history = Vec::with_capacity(rows.min(1 << 16));
        for _ in 0..rows {
            let (superbatch, positions) = (r.u64()? as usize, r.u64()?);
            let (train_loss, validation) = (r.f64()?, r.f64()?);
            history.push(HistoryRow {
                superbatch,
                positions,
                train_loss,
                validation_loss: (!validation.is_nan()).then_some(validation),
                lr: r.f64()?,
                lambda: r.f64()?,
                positions_per_second: r.f64()?,
                elapsed: r.f64()?,
            });
        }
        let count = param_count(hidden);
        let mut tensor = || -> Result<Vec<f32>, String> {
            let raw = r.take(4 * count)?;
            Ok(raw
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect())
        };
        let params = tensor()?;
        let momentum = tensor()?;
        let velocity = tensor()?;
        if r.at != bytes.len() {
            return Err(format!("{} bytes after the end", bytes.len() - r.at));
        }
        Ok(State {
            superbatch,
            pass,
            batches_in_pass,
            fingerprint,
            net: FloatNet { hidden, params },
            adam: AdamW {
                settings,
                momentum,
                velocity,
            },
            history,
        })
    }
}

/// A cursor over the bytes with short-read errors.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or_else(|| format!("truncated at byte {}", self.at))?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }

    fn f64(&mut self) -> Result<f64, String> {
        Ok(f64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_round_trips_and_damage_is_named() {
        let net = FloatNet::init(8, 2);
        let mut adam = AdamW::new(AdamWSettings::default(), net.params.len());
        adam.momentum[3] = 0.25;
        let row = HistoryRow {
            superbatch: 1,
            positions: 100,
            train_loss: 0.01,
            validation_loss: None,
            lr: 0.001,
            lambda: 0.75,
            positions_per_second: 5.0,
            elapsed: 2.0,
        };
        let state = State {
            superbatch: 1,
            pass: 1,
            batches_in_pass: 0,
            fingerprint: 9,
            net,
            adam,
            history: vec![row],
        };
        let bytes = state.to_bytes();
        assert_eq!(
            State::from_bytes(&bytes, AdamWSettings::default()),
            Ok(state)
        );
        let err = State::from_bytes(&bytes[..100], AdamWSettings::default()).unwrap_err();
        assert!(err.contains("truncated"), "{err}");
    }
}
