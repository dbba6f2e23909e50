//! Runs a tournament: worker threads (one per concurrent game) take games from the schedule and
//! play them with their own players; the calling thread collects finished games in completion
//! order, appends and flushes them to the output files, keeps the statistics by game pairs,
//! reports progress and stops the run when the SPRT decides.
//!
//! `engines` makes and starts the players, `outputs` claims the output directory and writes the
//! records, `resume` keeps what a stopped run finished, `startup` starts each engine once before the games
//! (and finds the option warnings), and `run` drives the workers.

mod engines;
mod error;
mod live_report;
mod outputs;
mod resume;
mod run;
mod startup;

pub(crate) use engines::EngineFactory;
pub use error::ArenaError;
pub use run::{run_tournament, RunOptions, TournamentSummary};
pub use startup::check_engines;
