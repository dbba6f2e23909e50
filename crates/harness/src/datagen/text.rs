//! A small text writer behind [`GameWriter`]: one bullet text line (`FEN | score | result`) per
//! recorded position, White-relative, through `record::bullet`'s line. It stands in for the data
//! subsystem's writers until `data::game_writer` is merged; `sparring datagen` uses it for every
//! format meanwhile (see docs/datagen.md).

use crate::board::GameResult;
use crate::data::{DataGame, GameWriter};
use crate::record::bullet::BulletPosition;
use crate::record::MAX_TRAINING_SCORE;
use std::io::Write;

/// Writes `FEN | score | result` lines.
pub struct TextWriter<W: Write + Send> {
    out: W,
}

impl<W: Write + Send> TextWriter<W> {
    /// A writer over `out`.
    pub fn new(out: W) -> TextWriter<W> {
        TextWriter { out }
    }
}

impl<W: Write + Send> GameWriter for TextWriter<W> {
    fn write_game(&mut self, game: &DataGame) -> std::io::Result<()> {
        let mut pos = game.start.clone();
        let mut text = String::new();
        for &(mv, score) in &game.moves {
            let line = BulletPosition {
                fen: pos.to_fen(),
                white_score: score.as_cp().clamp(-MAX_TRAINING_SCORE, MAX_TRAINING_SCORE),
                result: game.result,
            };
            text.push_str(&line.to_string());
            text.push('\n');
            pos.make_move(mv);
        }
        // One write per game: a game reaches the file whole or, if the process dies inside
        // this call, as a tail the resume cuts.
        self.out.write_all(text.as_bytes())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// White's score of a result, for messages.
pub fn result_text(result: GameResult) -> &'static str {
    match result {
        GameResult::WhiteWins => "1-0",
        GameResult::Draw => "1/2-1/2",
        GameResult::BlackWins => "0-1",
    }
}
