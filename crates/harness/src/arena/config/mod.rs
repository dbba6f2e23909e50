//! The match configuration (TOML). The file's shape is derived with serde (unknown keys are
//! errors); ranges and cross-field rules are checked in plain code afterwards. Every error names
//! the file, line and column, the dotted key and what was expected.
//!
//! `model` holds the checked configuration, `file` the file's serde shape, `validate` the checks
//! that turn one into the other, and `dump` the way back to TOML (`--dump-config`).

mod compliance;
mod dump;
mod engines;
mod file;
mod model;
#[cfg(test)]
mod tests;
mod validate;

pub use compliance::{parse_cpu_list, Affinity, ComplianceConfig};
pub use file::AdjudicationFile;
pub(crate) use model::seconds_text;
pub use model::{
    parse_seconds, Adjudication, BuiltinSyzygy, DrawAdjudication, EngineConfig, EngineKind,
    FinalPositions, MatchConfig, OpeningOrder, OpeningsConfig, OutputConfig, PgnMode,
    PositionsFormat, PositionsResolve, Protocol, ResignAdjudication, ResultsFormat, Seeds,
    TablebaseAdjudication, TablebaseResults, TimeControl, TournamentKind, Variant,
};
pub use validate::read_adjudication;
