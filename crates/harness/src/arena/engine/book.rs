//! cutechess's per-engine opening book (`book=`, `bookdepth=`): while the game is within the
//! book's depth and the book holds a move for the position, the runner plays one of its moves
//! for the engine (weighted at random, as cutechess) instead of asking the engine.

use crate::arena::engine::player::{EngineReply, GoRequest, Player, PlayerError};
use crate::board::CastlingNotation;
use crate::openings::{polyglot_key, BookPick, PolyglotBook};
use crate::record::MoveDetails;
use crate::rng::Rng;
use regex::Regex;
use std::sync::Arc;

/// An engine's own book, loaded once and shared by its players.
#[derive(Clone, Debug)]
pub(crate) struct EngineBook {
    /// The book.
    pub book: Arc<PolyglotBook>,
    /// The book is used while fewer than this many full moves are played (cutechess counts
    /// from the game's start, opening moves included).
    pub depth: u32,
    /// The run's seed: each game's picks are drawn from it and the game number, so a run
    /// (or a resumed one) picks the same moves.
    pub seed: u64,
}

/// A player whose moves come from its book while the book has one, and from its engine after.
pub(crate) struct BookPlayer {
    inner: Box<dyn Player>,
    book: EngineBook,
    rng: Rng,
    /// The last move was the book's: the engine has no prediction to ponder on.
    from_book: bool,
}

impl BookPlayer {
    /// `inner` with `book` in front of it.
    pub(crate) fn new(inner: Box<dyn Player>, book: EngineBook) -> BookPlayer {
        let rng = Rng::new(book.seed);
        BookPlayer {
            inner,
            book,
            rng,
            from_book: false,
        }
    }

    /// The book's move for `request`, if the game is within the book's depth and the book
    /// holds one that does not repeat a position of the game (as cutechess).
    fn book_move(&mut self, request: &GoRequest<'_>) -> Option<EngineReply> {
        if request.moves.len() >= 2 * self.book.depth as usize {
            return None;
        }
        let mut pos = request.start.clone();
        let mut seen = vec![pos.key()];
        for &mv in request.moves {
            pos.make_move(mv);
            seen.push(pos.key());
        }
        let ep = request
            .moves
            .last()
            .and_then(|&mv| crate::openings::double_push_target(mv));
        let mut moves = self.book.book.moves_for_key(&pos, polyglot_key(&pos, ep));
        moves.retain(|m| {
            let mut after = pos.clone();
            after.make_move(m.mv);
            !seen.contains(&after.key())
        });
        let mv = PolyglotBook::pick(&moves, BookPick::Weighted, &mut self.rng)?;
        Some(EngineReply {
            // King takes rook for castling: unambiguous in every variant.
            bestmove: pos.uci(mv, CastlingNotation::Chess960),
            details: MoveDetails {
                from_book: true,
                ..MoveDetails::default()
            },
            ..EngineReply::default()
        })
    }
}

impl Player for BookPlayer {
    fn id_name(&self) -> &str {
        self.inner.id_name()
    }

    fn new_game(&mut self) -> Result<(), PlayerError> {
        self.from_book = false;
        self.inner.new_game()
    }

    fn go(&mut self, request: &GoRequest<'_>) -> Result<EngineReply, PlayerError> {
        if let Some(reply) = self.book_move(request) {
            // Whatever the engine thinks about on the opponent's time is moot.
            self.inner.stop_pondering();
            self.from_book = true;
            return Ok(reply);
        }
        self.from_book = false;
        self.inner.go(request)
    }

    fn option_value(&self, name: &str) -> Option<String> {
        self.inner.option_value(name)
    }

    fn undeclared_options(&self) -> Vec<String> {
        self.inner.undeclared_options()
    }

    fn refused_options(&self) -> Vec<crate::arena::engine::RefusedOption> {
        self.inner.refused_options()
    }

    /// Also draws the game's book picks afresh from the run's seed and the game number.
    fn set_log_game(&mut self, game_id: u64) {
        self.rng = Rng::derive(self.book.seed, game_id);
        self.inner.set_log_game(game_id);
    }

    fn enable_chess960(&mut self) -> Result<(), PlayerError> {
        self.inner.enable_chess960()
    }

    fn keep_lines(&mut self, patterns: Arc<[Regex]>) {
        self.inner.keep_lines(patterns);
    }

    fn ponder(&mut self, request: &GoRequest<'_>) -> Result<(), PlayerError> {
        if self.from_book {
            return Ok(());
        }
        self.inner.ponder(request)
    }

    fn set_opponent(&mut self, name: &str) {
        self.inner.set_opponent(name);
    }

    fn stop_pondering(&mut self) {
        self.inner.stop_pondering();
    }

    fn needs_restart(&self) -> bool {
        self.inner.needs_restart()
    }
}
