//! What a generation gave: one row of `generations.csv`, also kept as the generation's
//! `result.toml`, whose presence marks the generation finished.

use super::{io_error, LoopError};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The ladder's table, one row per finished generation.
pub const GENERATIONS_FILE: &str = "generations.csv";
/// A generation's row in its own directory: written last, so its presence means finished.
pub(crate) const RESULT_FILE: &str = "result.toml";

/// One finished generation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GenerationRow {
    /// 1-based generation.
    pub generation: u32,
    /// Self-play games played.
    pub games: u64,
    /// Positions they gave.
    pub positions: u64,
    /// Positions the tune read (the window's, after merging repeats): training + validation.
    pub tune_positions: u64,
    /// The sigmoid's scale the tune used (also when it gave weights the engine refuses).
    pub k: f64,
    /// The tuned weights' training error (also when the engine refuses them).
    pub train_mse: f64,
    /// Their validation error, if positions were held out.
    pub validation_mse: Option<f64>,
    /// Gate games played.
    pub gate_games: u64,
    /// The gate's verdict: `H1`, `H0`, `undecided` (its games ran out), `unusable` (the tune
    /// gave weights the engine refuses) or `identical` (the challenger's values are the
    /// champion's); with the last two no gate was played.
    pub sprt: String,
    /// The gate's log-likelihood ratio (none without a gate).
    pub llr: Option<f64>,
    /// The challenger's Elo over the champion (pentanomial).
    pub elo: Option<f64>,
    /// Half-width of the 95 % interval of `elo`.
    pub elo_error: Option<f64>,
    /// Whether the challenger became the champion.
    pub promoted: bool,
    /// The sum of the promoted generations' gate Elo so far: the ladder's self-play climb.
    pub cumulative_elo: f64,
    /// Its 95 % half-width (independent errors added in quadrature).
    pub cumulative_error: f64,
    /// The champion's Elo against the anchor panel (plus the panel's mean rating), when measured.
    pub anchor_elo: Option<f64>,
    /// Its 95 % half-width.
    pub anchor_error: Option<f64>,
    /// Anchor games played.
    pub anchor_games: Option<u64>,
    /// Wall-clock seconds the generation took, over every session that worked on it.
    pub seconds: f64,
}

impl GenerationRow {
    /// Writes the row as `dir/result.toml` (atomically).
    pub fn save(&self, dir: &Path) -> Result<(), LoopError> {
        let path = dir.join(RESULT_FILE);
        let text = toml::to_string(self).expect("a row serialises");
        crate::files::write_atomic(&path, text.as_bytes()).map_err(io_error(&path))
    }

    /// Reads `dir/result.toml`: None when the generation is not finished.
    pub fn load(dir: &Path) -> Result<Option<GenerationRow>, LoopError> {
        let path = dir.join(RESULT_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io_error(&path)(e)),
        };
        toml::from_str(&text)
            .map(Some)
            .map_err(|e| LoopError::Damaged {
                path,
                message: format!(
                    "not a generation's result as the loop writes it: {}",
                    e.message()
                ),
            })
    }
}

/// Writes `generations.csv` from all rows (atomically).
pub(crate) fn write_rows(dir: &Path, rows: &[GenerationRow]) -> Result<(), LoopError> {
    let path = dir.join(GENERATIONS_FILE);
    let mut writer = csv::Writer::from_writer(Vec::new());
    for row in rows {
        writer.serialize(row).map_err(|e| LoopError::Io {
            path: path.clone(),
            source: std::io::Error::other(e),
        })?;
    }
    let bytes = writer.into_inner().expect("writing to memory");
    crate::files::write_atomic(&path, &bytes).map_err(io_error(&path))
}

/// Reads a `generations.csv` (for tests and tools).
pub fn read_rows(path: &Path) -> Result<Vec<GenerationRow>, LoopError> {
    let damaged = |message: String| LoopError::Damaged {
        path: path.to_path_buf(),
        message,
    };
    let mut reader = csv::Reader::from_path(path).map_err(|e| damaged(e.to_string()))?;
    reader
        .deserialize()
        .map(|row| row.map_err(|e| damaged(e.to_string())))
        .collect()
}
