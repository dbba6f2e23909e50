//! The rules of a game over time: checkmate and stalemate, dead positions, repetitions and the
//! move-count rules. FIDE separates what ends a game by itself (mate, stalemate, dead position,
//! fivefold repetition, 75-move rule) from draws a player must claim (threefold, fifty-move rule),
//! and so does this module: `Game::status` and `Game::claimable_draw`.

use super::bitboard::Bitboard;
use super::moves::Move;
use super::position::{Position, Undo};
use super::types::{Color, PieceKind};
use std::fmt;
use thiserror::Error;

/// The result of a finished game, written as in PGN.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum GameResult {
    /// White won (`1-0`).
    WhiteWins,
    /// Black won (`0-1`).
    BlackWins,
    /// Drawn (`1/2-1/2`).
    Draw,
}

impl GameResult {
    /// The result when `color` wins.
    pub const fn win_for(color: Color) -> GameResult {
        match color {
            Color::White => GameResult::WhiteWins,
            Color::Black => GameResult::BlackWins,
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        })
    }
}

/// Why the rules end a game (or let a player end it by a claim).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum GameEnd {
    /// The side to move is in check and has no legal move.
    Checkmate {
        /// The side that gave the mate.
        winner: Color,
    },
    /// The side to move is not in check and has no legal move: a draw.
    Stalemate,
    /// No sequence of legal moves can mate (a dead position of the kinds `is_insufficient_material` knows).
    InsufficientMaterial,
    /// A claim: the position occurred for the third time.
    ThreefoldRepetition,
    /// Automatic: the position occurred for the fifth time.
    FivefoldRepetition,
    /// A claim: 50 moves by each side without a capture or pawn move.
    FiftyMoveRule,
    /// Automatic: 75 moves by each side without a capture or pawn move.
    SeventyFiveMoveRule,
}

impl GameEnd {
    /// The game's result: a win for the mating side, otherwise a draw.
    pub const fn result(self) -> GameResult {
        match self {
            GameEnd::Checkmate { winner } => GameResult::win_for(winner),
            _ => GameResult::Draw,
        }
    }

    /// Whether a player (or a runner on the players' behalf) must claim it; otherwise the game
    /// ends by itself.
    pub const fn is_claim(self) -> bool {
        matches!(self, GameEnd::ThreefoldRepetition | GameEnd::FiftyMoveRule)
    }

    /// A human explanation, as match runners write it in a PGN comment (e.g. "Draw by stalemate").
    pub const fn reason(self) -> &'static str {
        match self {
            GameEnd::Checkmate {
                winner: Color::White,
            } => "White mates",
            GameEnd::Checkmate {
                winner: Color::Black,
            } => "Black mates",
            GameEnd::Stalemate => "Draw by stalemate",
            GameEnd::InsufficientMaterial => "Draw by insufficient mating material",
            GameEnd::ThreefoldRepetition => "Draw by threefold repetition",
            GameEnd::FivefoldRepetition => "Draw by fivefold repetition",
            GameEnd::FiftyMoveRule => "Draw by the fifty-move rule",
            GameEnd::SeventyFiveMoveRule => "Draw by the 75-move rule",
        }
    }
}

impl fmt::Display for GameEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.reason())
    }
}

/// A move offered to `Game::play` or `Position::try_play` that is not legal in the position.
#[derive(Error, Debug, Clone, PartialEq, Eq)]
#[error("illegal move {mv} in position {fen}")]
pub struct IllegalMoveError {
    /// The refused move.
    pub mv: Move,
    /// The position it was refused in, as FEN.
    pub fen: String,
}

impl Position {
    /// Plays `mv` if it is legal here and returns what undoes it; an illegal move leaves the
    /// position unchanged. The checked twin of [`Position::make_move`], for moves that do not come
    /// from this position's move generator.
    ///
    /// ```
    /// use sparring_chess::board::Position;
    ///
    /// let mut pos = Position::startpos();
    /// let e4 = pos.parse_uci_move("e2e4")?;
    /// pos.try_play(e4)?;
    /// assert!(pos.try_play(e4).is_err(), "e2 is empty now");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn try_play(&mut self, mv: Move) -> Result<Undo, IllegalMoveError> {
        if !self.is_legal(mv) {
            return Err(IllegalMoveError {
                mv,
                fen: self.to_fen(),
            });
        }
        Ok(self.make_move(mv))
    }

    /// Whether no sequence of legal moves can mate: bare kings, a single minor piece, or only
    /// bishops (any number, either side) all on squares of one colour. K+N v K+N and K+N+N v K are
    /// not dead: a mate exists with the loser's help, so FIDE plays on.
    pub fn is_insufficient_material(&self) -> bool {
        let others = self.occupied() & !self.pieces(PieceKind::King);
        if others.is_empty() {
            return true;
        }
        let minors = self.pieces(PieceKind::Knight) | self.pieces(PieceKind::Bishop);
        if !others.has_several() && (others & minors).is_nonempty() {
            return true;
        }
        let bishops = self.pieces(PieceKind::Bishop);
        others == bishops
            && ((bishops & Bitboard::LIGHT_SQUARES).is_empty()
                || (bishops & Bitboard::DARK_SQUARES).is_empty())
    }

    /// Whether the side to move is in check and has no legal move.
    pub fn is_checkmate(&self) -> bool {
        self.in_check() && !self.has_legal_moves()
    }

    /// Whether the side to move is not in check and has no legal move.
    pub fn is_stalemate(&self) -> bool {
        !self.in_check() && !self.has_legal_moves()
    }
}

/// A game: its start position, the moves played, and the keys of the positions passed through,
/// which repetition detection needs.
#[derive(Clone, Debug)]
pub struct Game {
    start: Position,
    position: Position,
    moves: Vec<Move>,
    /// `keys[i]` is the key of the position before `moves[i]`; the current one is `position.key()`.
    keys: Vec<u64>,
}

impl Game {
    /// A game starting at `start` with no moves played yet.
    pub fn new(start: Position) -> Game {
        Game {
            position: start.clone(),
            start,
            moves: Vec::new(),
            keys: Vec::new(),
        }
    }

    /// The position the game started from.
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The current position, after every move played.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The moves played so far, in order from the start position.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The keys of the positions before the current one, oldest first: the repetition history
    /// `Searcher::search` (sparring-engine) takes.
    pub fn keys(&self) -> &[u64] {
        &self.keys
    }

    /// Plays `mv` if it is legal. A game the rules have ended may still be continued (for analysis):
    /// the caller decides when to stop, by `status` or `status_with_claims`.
    pub fn play(&mut self, mv: Move) -> Result<(), IllegalMoveError> {
        if !self.position.is_legal(mv) {
            return Err(IllegalMoveError {
                mv,
                fen: self.position.to_fen(),
            });
        }
        self.keys.push(self.position.key());
        self.moves.push(mv);
        self.position.make_move(mv);
        Ok(())
    }

    /// How many times the current position has occurred, this time included. Keys already hold
    /// the side to move, castling rights and a legal en-passant square; only positions since the
    /// last capture or pawn move (the halfmove clock) can match, and only every second ply.
    pub fn repetition_count(&self) -> usize {
        let key = self.position.key();
        let n = self.keys.len();
        let window = usize::from(self.position.halfmove_clock()).min(n);
        1 + self.keys[n - window..]
            .iter()
            .rev()
            .skip(1)
            .step_by(2)
            .filter(|&&k| k == key)
            .count()
    }

    /// How the rules end the game in the current position without anyone claiming: checkmate,
    /// stalemate, insufficient material, fivefold repetition or the 75-move rule. A mate delivered
    /// on the 150th half-move is a mate.
    pub fn status(&self) -> Option<GameEnd> {
        let pos = &self.position;
        if !pos.has_legal_moves() {
            return Some(if pos.in_check() {
                GameEnd::Checkmate {
                    winner: !pos.side_to_move(),
                }
            } else {
                GameEnd::Stalemate
            });
        }
        if pos.is_insufficient_material() {
            Some(GameEnd::InsufficientMaterial)
        } else if self.repetition_count() >= 5 {
            Some(GameEnd::FivefoldRepetition)
        } else if pos.halfmove_clock() >= 150 {
            Some(GameEnd::SeventyFiveMoveRule)
        } else {
            None
        }
    }

    /// A draw a player may claim now: threefold repetition or the fifty-move rule. A checkmate on
    /// the 100th half-move stands, so then there is nothing to claim.
    pub fn claimable_draw(&self) -> Option<GameEnd> {
        // A mated position cannot be a repetition (the game would have ended the first time),
        // so only the fifty-move claim needs the mate test, and only when it applies.
        if self.repetition_count() >= 3 {
            Some(GameEnd::ThreefoldRepetition)
        } else if self.position.halfmove_clock() >= 100 && self.position.has_legal_moves() {
            Some(GameEnd::FiftyMoveRule)
        } else {
            None
        }
    }

    /// `status`, then the claims: what a match runner that claims every draw on the players'
    /// behalf uses to decide whether the game is over.
    pub fn status_with_claims(&self) -> Option<GameEnd> {
        self.status().or_else(|| self.claimable_draw())
    }
}
