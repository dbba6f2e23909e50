//! sparring-tuning: the tuners, the top library layer, four subsystems with a front door each:
//!
//! - [`texel`]: Texel tuning of an evaluation from positions with game results — sparring's own
//!   evaluation, any Rust evaluation through [`texel::TunableEval`], or any engine's through the
//!   `tunetrace` protocol ([`texel::protocol`], [`texel::external`]);
//! - [`spsa`]: SPSA through games, of search constants, evaluation weights or an external
//!   engine's UCI options;
//! - [`train`]: the CPU trainer of bullet's simple NNUE (`sparring train`);
//! - [`ladder`]: the self-play loop (`sparring loop`): self-play, tune, SPRT gate, promote.
//!
//! They play their games through `sparring-harness` and evaluate through `sparring-engine`:
//! the same code path the engine searches with.
//!
//! # Texel-tuning a handful of positions
//!
//! Any [`texel::TunableEval`] can be tuned; the built-in evaluation is one, traced by the same walk
//! the search scores with. Labels are game results from White's view (1, 0.5, 0).
//!
//! ```
//! use sparring_chess::board::Position;
//! use sparring_engine::eval::EvalParams;
//! use sparring_tuning::texel::any::{fit, AnyOptions};
//! use sparring_tuning::texel::{Dataset, EvalSelection, KSetting};
//!
//! let eval = EvalParams::default();
//! let fens = [
//!     "4k3/8/8/8/8/8/4P3/3QK3 w - - 0 1", // a queen up: White won
//!     "3qk3/4p3/8/8/8/8/8/4K3 w - - 0 1", // a queen down: Black won
//!     "4k3/4p3/8/8/8/8/4P3/4K3 w - - 0 1", // level: drawn
//! ];
//! let positions: Vec<Position> = fens.iter().map(|f| f.parse()).collect::<Result<_, _>>()?;
//! let data = Dataset::from_positions(&positions, &[1.0, 0.0, 0.5], &EvalSelection::new(&eval));
//! let options = AnyOptions { k: KSetting::Fixed(1.0), epochs: 20, ..AnyOptions::default() };
//! let empty = Dataset::from_positions(&[], &[], &EvalSelection::new(&eval));
//! let fit = fit(&eval, &data, &empty, &options, &mut |_epoch| {})?;
//! let last = fit.history.last().expect("one entry per epoch");
//! assert!(last.train_mse <= fit.start_mse);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]
// A type a public item hands out must have a public path too (issue 46: a narrow surface).
#![warn(unnameable_types)]
#![warn(clippy::undocumented_unsafe_blocks)]
// Every function fits on a screen (issue 22); the threshold, 120 lines, is in clippy.toml.
#![warn(clippy::too_many_lines)]

// The lower layers' modules under the names this crate's code uses (`crate::board::Position`).
use sparring_chess::{board, error, rng};
use sparring_engine::{available_cores, eval, nnue, score, search, toml_config};
use sparring_harness::{arena, data, datagen, files, page, record, stats};

pub mod ladder;
pub mod spsa;
pub mod texel;
pub mod train;

/// The class of a type-erased error if its type is one of this crate's error types (see
/// [`sparring_chess::error::class_of`]).
pub fn class_of(err: &(dyn std::error::Error + 'static)) -> Option<sparring_chess::Failure> {
    use sparring_chess::error::class;
    let classes = [
        class::<ladder::LoopError>,
        class::<spsa::SpsaError>,
        class::<texel::TuneError>,
        class::<texel::DataError>,
        class::<texel::LineError>,
        class::<texel::TraceError>,
        class::<texel::Diverged>,
        class::<train::TrainError>,
    ];
    classes.iter().find_map(|class| class(err))
}
