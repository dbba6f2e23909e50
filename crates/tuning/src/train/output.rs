//! The run directory's files: `history.csv`, `loss.svg` (the Texel tuner's loss plot, one point
//! per superbatch), `raw.bin`, `quantised.bin` and `checkpoint.bin`, each written beside a
//! temporary file and renamed into place, so a kill never leaves half a file.

use super::checkpoint::State;
use super::{HistoryRow, TrainError};
use crate::texel::{svg::loss_svg, EpochStats};
use std::path::Path;

/// Writes `bytes` to `dir/name` atomically.
pub(super) fn write_atomic(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), TrainError> {
    let path = dir.join(name);
    let temporary = dir.join(format!("{name}.tmp"));
    let error = |error| TrainError::Output {
        file: path.display().to_string(),
        error,
    };
    std::fs::write(&temporary, bytes).map_err(error)?;
    std::fs::rename(&temporary, &path).map_err(error)
}

/// `history.csv`: one line per superbatch.
pub(crate) fn history_csv(rows: &[HistoryRow]) -> String {
    let mut text = String::from(
        "superbatch,positions,train_loss,validation_loss,lr,lambda,positions_per_second,elapsed_s\n",
    );
    for r in rows {
        let validation = r
            .validation_loss
            .map_or(String::new(), |v| format!("{v:.8}"));
        text.push_str(&format!(
            "{},{},{:.8},{validation},{},{},{:.0},{:.2}\n",
            r.superbatch,
            r.positions,
            r.train_loss,
            r.lr,
            r.lambda,
            r.positions_per_second,
            r.elapsed
        ));
    }
    text
}

/// `loss.svg`: training and validation loss against superbatches, the best validation marked.
pub(crate) fn loss_plot(rows: &[HistoryRow], hidden: usize) -> String {
    let stats: Vec<EpochStats> = rows
        .iter()
        .map(|r| EpochStats {
            epoch: r.superbatch,
            train_mse: r.train_loss,
            validation_mse: r.validation_loss,
            best_epoch: 0,
            seconds: r.elapsed,
        })
        .collect();
    let best = rows
        .iter()
        .min_by(|a, b| {
            let key = |r: &HistoryRow| r.validation_loss.unwrap_or(r.train_loss);
            key(a).total_cmp(&key(b))
        })
        .map_or(1, |r| r.superbatch);
    loss_svg(
        &stats,
        best,
        &format!("sparring train: (768 -> {hidden})x2 -> 1, loss per superbatch"),
    )
}

/// The per-superbatch files: history and plot.
pub(crate) fn write_progress(dir: &Path, state: &State) -> Result<(), TrainError> {
    write_atomic(dir, "history.csv", history_csv(&state.history).as_bytes())?;
    write_atomic(
        dir,
        "loss.svg",
        loss_plot(&state.history, state.net.hidden).as_bytes(),
    )
}

/// A checkpoint: `checkpoint.bin`, `raw.bin` and, when the weights fit, `quantised.bin`.
pub(crate) fn write_checkpoint(
    dir: &Path,
    state: &State,
) -> Result<Result<(), TrainError>, TrainError> {
    write_atomic(dir, "raw.bin", &state.net.to_raw())?;
    let quantised = match state.net.quantise() {
        Ok(net) => {
            write_atomic(dir, "quantised.bin", &net.to_bytes())?;
            Ok(())
        }
        Err(error) => {
            // An older quantised.bin would no longer be these weights.
            let _ = std::fs::remove_file(dir.join("quantised.bin"));
            Err(TrainError::Quantise {
                dir: dir.display().to_string(),
                error,
            })
        }
    };
    write_atomic(dir, "checkpoint.bin", &state.to_bytes())?;
    Ok(quantised)
}
