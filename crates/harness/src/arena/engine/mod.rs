//! External engines, in layers as fastchess has them: `process` runs a child process and gives
//! a protocol-agnostic line channel with deadlines (over `lines`, which reads lines in linear
//! time and caps their length); `uci` speaks the UCI protocol over it; `uci_player` is the
//! arena's `Player` on top. `xboard` and `xboard_player` do the same for xboard (CECP) engines.

pub(crate) mod affinity;
mod book;
mod fastchess_options;
mod lines;
pub(crate) mod log;
pub(crate) mod player;
mod process;
#[cfg(test)]
pub(crate) mod scripted;
mod settings;
mod uci;
mod uci_player;
mod xboard;
mod xboard_player;

pub(crate) use book::{BookPlayer, EngineBook};
pub use fastchess_options::{stod, stoi, BadSpin};
pub use lines::{Line, MAX_LINE_BYTES};
pub use process::kill_all_engine_groups;
pub use settings::{ExternalSettings, TIMEOUT_SCALE_RANGE};
pub(crate) use uci::{check_options, go_command};
pub use uci::{DeclaredOption, RefusedOption};
pub(crate) use uci_player::undeclared_error;
pub use uci_player::{UciCommand, UciPlayer};
pub(crate) use xboard_player::XboardPlayer;
