//! Helpers shared by the integration tests' modules (`use crate::common::...`).

pub mod binary;
pub mod config;
pub mod hostile;
pub mod loop_run;
pub mod mock;
pub mod run_files;
pub mod tables;
pub mod tools;
pub mod uci_session;

use sparring::eval::EvalParams;

/// Weights inside the accepted range whose evaluations reach far beyond the mate scores: a
/// queen of 16,500 and every queen square and mobility entry at the maximum.
pub fn absurd_params() -> EvalParams {
    let mut params = EvalParams::default();
    for i in 0..params.len() {
        let name = params.name(i);
        if name.starts_with("pst.queen.") || name.starts_with("mobility.") {
            params.set(i, (30_000, 30_000));
        }
    }
    let queen = params.index_of("material.queen").unwrap();
    params.set(queen, (16_500, 16_500));
    params
}
