//! External engines, in layers as fastchess has them: `process` runs a child process and gives
//! a protocol-agnostic line channel with deadlines (over `lines`, which reads lines in linear
//! time and caps their length); `uci` speaks the UCI protocol over it; `uci_player` is the
//! arena's `Player` on top. `xboard` and `xboard_player` do the same for xboard (CECP) engines.

pub mod affinity;
mod book;
mod fastchess_options;
mod lines;
pub mod log;
pub(crate) mod player;
mod process;
#[cfg(test)]
pub(crate) mod scripted;
mod settings;
mod uci;
mod uci_player;
mod xboard;
mod xboard_player;

pub use book::{BookPlayer, EngineBook};
pub use fastchess_options::{stod, stoi, BadSpin, FastchessSpin};
pub use lines::{Line, LineSplitter, MAX_LINE_BYTES};
pub use process::{kill_all_engine_groups, EngineProcess};
pub use settings::{ExternalSettings, TIMEOUT_SCALE_RANGE};
pub use uci::{
    check_options, go_command, parse_bestmove, parse_info, parse_ponder, position_command,
    DeclaredOption, InfoLine, RefusedOption, MAX_REPORTED_MATE, MAX_REPORTED_NODES,
};
pub(crate) use uci_player::undeclared_error;
pub use uci_player::{UciCommand, UciPlayer};
pub use xboard::{
    classify as classify_xboard_line, parse_features, parse_thinking, EngineLine, Features,
    Thinking,
};
pub use xboard_player::XboardPlayer;
