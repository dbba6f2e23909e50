//! sparring-chess: the rules of chess and Chess960, the lowest layer of sparring — bitboards with
//! build-time magic sliders, strictly legal move generation (check and pin masks, no
//! make-and-test), Polyglot-compatible Zobrist keys, FEN (X-FEN and Shredder-FEN), SAN and UCI
//! notation in both castling conventions, the game rules (repetition, fifty moves, insufficient
//! material), static exchange evaluation and perft. It depends on nothing but `std` and
//! `thiserror`.
//!
//! Beside the board it holds two things every layer above needs: [`rng`], a version-proof seeded
//! generator (the build script finds the magics with it), and [`error`], the one error policy:
//! every error type of the workspace says through [`ErrorClass`] whether it is bad input or a
//! failed run.
//!
//! # A position, its legal moves and perft
//!
//! ```
//! use sparring_chess::board::{perft::perft, Position};
//!
//! // "Kiwipete", the classic move-generator test position.
//! let mut pos: Position =
//!     "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1".parse()?;
//! assert_eq!(pos.legal_moves().len(), 48);
//! assert_eq!(perft(&mut pos, 2), 2039);
//!
//! let castle = pos.parse_uci_move("e1g1")?;
//! assert_eq!(pos.san(castle), "O-O");
//! pos.try_play(castle)?;
//! assert_eq!(pos.to_fen(), "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R4RK1 b kq - 1 1");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Chess960 and errors that say what is wrong
//!
//! ```
//! use sparring_chess::board::{chess960, FenError, Position};
//! use sparring_chess::{ErrorClass, Failure};
//!
//! let start = chess960::start_position(chess960::STANDARD)?;
//! assert_eq!(start.to_fen(), Position::startpos().to_fen());
//!
//! let err = "8/8/8/8/8/8/8/8 w - - 0 1".parse::<Position>().unwrap_err();
//! assert!(matches!(err, FenError::MissingKing { .. }));
//! assert_eq!(err.class(), Failure::BadInput);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]
#![warn(clippy::undocumented_unsafe_blocks)]
// Every function fits on a screen (issue 22); the threshold, 120 lines, is in clippy.toml.
#![warn(clippy::too_many_lines)]

pub mod board;
pub mod error;
pub mod rng;

pub use error::{ErrorClass, Failure};
