//! `sparring train CONFIG --validate NET...`: the mean loss of existing nets on the
//! configuration's held-out positions, the number a run prints after each superbatch, so nets
//! trained apart (another size, another run, bullet's) are compared on one set.

use super::model::{param_count, FloatNet};
use super::{thread_pool, TrainConfig, TrainError};
use crate::nnue::Network;
use std::path::{Path, PathBuf};

/// One net's loss on the held-out positions.
#[derive(Clone, Debug, PartialEq)]
pub struct NetLoss {
    /// The net's file.
    pub file: PathBuf,
    /// Its hidden units.
    pub hidden: usize,
    /// Mean loss at the configuration's last λ (`training.lambda_end`, or `training.lambda`).
    pub loss: f64,
}

/// What `--validate` measured.
#[derive(Clone, Debug, PartialEq)]
pub struct Validation {
    /// Held-out positions the losses are taken over.
    pub positions: usize,
    /// λ the targets were built with.
    pub lambda: f32,
    /// One per net, in the order given.
    pub nets: Vec<NetLoss>,
}

/// Float weights from `path` (named as `role` in errors), and whether the file was quantised:
/// a `raw.bin`, or a quantised net (bullet's file) dequantised. `hidden` is tried first for a
/// raw file: one raw size can equal a padded quantised size of another width
/// (4·(771·M + 1) = 2·(771·2M + 1) padded, for M ≡ 5 mod 16).
pub(crate) fn read_net(
    path: &Path,
    hidden: usize,
    role: &'static str,
) -> Result<(FloatNet, bool), TrainError> {
    let file = path.display().to_string();
    let init_error = |reason: String| TrainError::Init {
        file: file.clone(),
        role,
        reason,
    };
    let bytes = std::fs::read(path).map_err(|e| init_error(e.to_string()))?;
    if let Some(net) = FloatNet::from_raw(&bytes, hidden) {
        return Ok((net, false));
    }
    if let Ok(net) = Network::from_bytes(&bytes, &file) {
        return Ok((FloatNet::dequantise(&net), true));
    }
    // A raw.bin holds 771 parameters a hidden unit and the output bias, 4 bytes each.
    let raw_hidden = (bytes.len() / 4).saturating_sub(1) / (param_count(1) - 1);
    if raw_hidden > 0 {
        if let Some(net) = FloatNet::from_raw(&bytes, raw_hidden) {
            return Ok((net, false));
        }
    }
    Err(init_error(format!(
        "{} bytes: neither a raw.bin (4·(771·N + 1) bytes) nor a quantised net \
         (2·(771·N + 1) bytes, padded to 64)",
        bytes.len()
    )))
}

/// Each of `nets`' mean loss on `config`'s held-out positions, in parallel on the configured
/// threads. Nothing is written.
pub fn validate(config: &TrainConfig, nets: &[PathBuf]) -> Result<Validation, TrainError> {
    config.data.check()?;
    let floats = nets
        .iter()
        .map(|path| read_net(path, config.hidden, "--validate").map(|(net, _)| net))
        .collect::<Result<Vec<_>, _>>()?;
    let (held_out, _) = config.data.scan()?;
    if held_out.is_empty() {
        return Err(TrainError::NoValidationData {
            config: config.source.clone(),
            files: config.data.files.len(),
        });
    }
    let pool = thread_pool(config.threads)?;
    let lambda = config.lambda.at(config.superbatches, config.superbatches);
    let losses = pool.install(|| {
        floats
            .iter()
            .map(|net| super::optim::total_loss(net, &held_out, lambda) / held_out.len() as f64)
            .collect::<Vec<_>>()
    });
    Ok(Validation {
        positions: held_out.len(),
        lambda,
        nets: (nets.iter().zip(&floats).zip(losses))
            .map(|((file, net), loss)| NetLoss {
                file: file.clone(),
                hidden: net.hidden,
                loss,
            })
            .collect(),
    })
}
