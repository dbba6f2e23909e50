//! Tuning positions from finished games: quiet positions after the book, labelled with the game's
//! result, written in the Zurichess EPD form `<FEN> c9 "1-0";`.

use super::GameRecord;
use crate::board::see::see_ge;
use crate::board::{GenMode, PieceKind};
use crate::rng::Rng;
use crate::search::Score;

/// One labelled position.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainingPosition {
    /// Four-field FEN (placement, side, castling, en passant).
    pub fen: String,
    /// `1-0`, `0-1` or `1/2-1/2`: the game's result, White's point of view.
    pub result: String,
    /// The engine's score from the side to move's point of view, in centipawns.
    pub score_cp: i32,
}

impl TrainingPosition {
    /// `<FEN> ce <cp>; c9 "<result>";` — `ce` is EPD's centipawn evaluation opcode.
    pub fn to_epd(&self) -> String {
        format!("{} ce {}; c9 \"{}\";", self.fen, self.score_cp, self.result)
    }
}

/// Up to `limit` positions of a game that a static evaluation can judge: not in check, the
/// engine's move quiet and its score not a mate, and no capture that wins material at once.
/// Games lost by forfeit, crash or illegal move say nothing about the position and give none.
pub fn sample_positions(record: &GameRecord, limit: usize, seed: u64) -> Vec<TrainingPosition> {
    if !record.termination.is_played_out() || limit == 0 {
        return Vec::new();
    }
    let mut pos = record.start.clone();
    for &mv in &record.book_moves {
        pos.make_move(mv);
    }
    let result = record.result.to_string();
    let mut candidates = Vec::new();
    for played in &record.moves {
        if let Some(Score::Cp(cp)) = played.score {
            let quiet = cp.abs() < 3000
                && !pos.in_check()
                && played.mv.is_quiet()
                && !pos
                    .moves(GenMode::Noisy)
                    .iter()
                    .any(|&m| m.promotion() == Some(PieceKind::Queen) || see_ge(&pos, m, 1));
            if quiet {
                let fen = pos.to_fen();
                let four: Vec<&str> = fen.split(' ').take(4).collect();
                candidates.push(TrainingPosition {
                    fen: four.join(" "),
                    result: result.clone(),
                    score_cp: cp,
                });
            }
        }
        pos.make_move(played.mv);
    }
    if candidates.len() > limit {
        Rng::derive(seed, record.game_id).shuffle(&mut candidates);
        candidates.truncate(limit);
    }
    candidates
}
