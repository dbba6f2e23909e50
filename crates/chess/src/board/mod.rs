//! The board: squares and pieces, bitboards and attack tables, positions with legal move
//! generation, make/unmake with Polyglot-compatible Zobrist keys, notation and the rules of the game.
//!
//! Main types: [`Position`] (FEN in and out, legal moves, [`Position::try_play`], UCI and SAN
//! notation), [`Move`] and the position-free [`UciMove`], [`Game`] (a position with its history,
//! for repetitions and the end of the game), [`Square`], [`Bitboard`]; [`perft::perft`] counts
//! move paths. [`CastlingNotation`] and [`CastlingField`] choose how castling is written.

pub mod attacks;
mod bitboard;
pub mod chess960;
mod fen;
mod game;
mod movegen;
mod moves;
mod notation;
pub mod perft;
// Timing cases of `sparring bench perft` and benches/perft.rs (other crates, so public), not API.
#[doc(hidden)]
pub mod perft_suite;
mod position;
pub mod see;
mod types;
pub mod zobrist;

pub use bitboard::{Bitboard, BitboardIter};
pub use fen::{CastlingField, FenError, FenMode};
pub use game::{Game, GameEnd, GameResult, IllegalMoveError};
pub use movegen::{GenMode, PieceMoves};
pub use moves::{Move, MoveList, UciMove};
pub use notation::{CastlingNotation, MoveParseError, SanError};
pub use position::{Position, Undo};
pub use types::{CastlingRights, Color, File, Piece, PieceKind, Rank, Square, SquareParseError};
