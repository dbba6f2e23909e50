//! Adjudication: the Syzygy tables' verdict, then the score-based draw and resign rules and the
//! maximal game length, counted move by move from the scores the engines report.

use crate::arena::config::{Adjudication, TablebaseAdjudication, TablebaseResults};
use crate::board::{Color, GameResult, Position};
use crate::record::{AdjudicationRule, FinishedGame, GameRecord, Termination};
use crate::score::Score;
use crate::tablebase::Wdl;

/// The tables' verdict on `pos`, as fastchess gives it: only with a zeroed halfmove clock (the
/// WDL answer counts the fifty-move rule from there), no castling right and few enough pieces;
/// a position the tables cannot answer (a missing table) is left to the players.
pub(crate) fn tablebase_verdict(
    rules: &TablebaseAdjudication,
    pos: &Position,
) -> Option<(GameResult, String)> {
    let pieces = pos.occupied().len();
    if pos.halfmove_clock() != 0
        || pos.castling_rights().0 != 0
        || pieces > rules.tables.max_pieces()
        || (rules.pieces != 0 && pieces > rules.pieces)
    {
        return None;
    }
    let mover = pos.side_to_move();
    let winner = match rules.tables.probe_wdl(pos).ok()? {
        Wdl::Win => Some(mover),
        Wdl::Loss => Some(!mover),
        Wdl::CursedWin if rules.ignore_50 => Some(mover),
        Wdl::BlessedLoss if rules.ignore_50 => Some(!mover),
        Wdl::CursedWin | Wdl::BlessedLoss | Wdl::Draw => None,
    };
    match (winner, rules.results) {
        (Some(w), TablebaseResults::Both | TablebaseResults::WinLoss) => Some((
            GameResult::win_for(w),
            format!("{} wins by adjudication: SyzygyTB", super::color_name(w)),
        )),
        (None, TablebaseResults::Both | TablebaseResults::Draw) => Some((
            GameResult::Draw,
            "Draw by adjudication: SyzygyTB".to_string(),
        )),
        _ => None,
    }
}

/// How many of a run's games (resumed ones included) each adjudication rule ended, for the
/// end-of-run summary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AdjudicationCounts {
    /// Ended by the Syzygy tables' verdict (`tablebase`).
    pub tablebase: u64,
    /// Ended as a draw by the score rule (`draw`).
    pub draw: u64,
    /// Ended by resignation (`resign`).
    pub resign: u64,
    /// Ended as a draw at the maximal game length (`max_moves`).
    pub max_moves: u64,
}

impl AdjudicationCounts {
    /// Counts `record` under the rule that ended it, if one did.
    pub fn add(&mut self, record: &GameRecord) {
        if let Termination::Adjudication(Some(rule)) = record.termination {
            self.count(rule);
        }
    }

    /// Counts a game an earlier run finished (`--resume`), from what games.csv stored of it.
    pub(crate) fn add_finished(&mut self, game: &FinishedGame) {
        if let Some(rule) = AdjudicationRule::from_stored(&game.termination, &game.reason) {
            self.count(rule);
        }
    }

    fn count(&mut self, rule: AdjudicationRule) {
        let counter = match rule {
            AdjudicationRule::Tablebase => &mut self.tablebase,
            AdjudicationRule::Draw => &mut self.draw,
            AdjudicationRule::Resign => &mut self.resign,
            AdjudicationRule::MaxMoves => &mut self.max_moves,
        };
        *counter += 1;
    }

    /// Every adjudicated game.
    pub fn total(&self) -> u64 {
        self.tablebase + self.draw + self.resign + self.max_moves
    }
}

/// Running counters for score-based adjudication.
#[derive(Default)]
pub(crate) struct AdjudicationState {
    /// Consecutive engine plies with a small score.
    draw_plies: u32,
    /// Per colour: consecutive own moves with a losing score, and with a winning score.
    losing: [u32; 2],
    winning: [u32; 2],
}

impl AdjudicationState {
    /// Updates the counters with a move's score and says whether the game is adjudicated, by
    /// which rule.
    pub(crate) fn update(
        &mut self,
        rules: &Adjudication,
        mover: Color,
        score: Option<Score>,
        reset_clock: bool,
        pos_after: &Position,
        engine_plies: u32,
    ) -> Option<(GameResult, AdjudicationRule, String)> {
        let cp = match score {
            Some(Score::Cp(cp)) => Some(cp),
            _ => None,
        };
        if let Some(draw) = &rules.draw {
            match cp {
                Some(cp) if cp.abs() <= draw.score_cp && !reset_clock => self.draw_plies += 1,
                _ => self.draw_plies = 0,
            }
        }
        if let Some(resign) = &rules.resign {
            let i = mover.index();
            let losing = match score {
                Some(Score::Cp(cp)) => cp <= -resign.score_cp,
                Some(Score::Mate(n)) => n < 0,
                None => false,
            };
            let winning = match score {
                Some(Score::Cp(cp)) => cp >= resign.score_cp,
                Some(Score::Mate(n)) => n > 0,
                None => false,
            };
            self.losing[i] = if losing { self.losing[i] + 1 } else { 0 };
            self.winning[i] = if winning { self.winning[i] + 1 } else { 0 };
            let other = (!mover).index();
            let agreed = |loser: usize, winner: usize| {
                self.losing[loser] >= resign.move_count
                    && (!resign.two_sided || self.winning[winner] >= resign.move_count)
            };
            for (loser, winner) in [(i, other), (other, i)] {
                if agreed(loser, winner) {
                    let winner_color = if winner == 0 {
                        Color::White
                    } else {
                        Color::Black
                    };
                    return Some((
                        GameResult::win_for(winner_color),
                        AdjudicationRule::Resign,
                        format!("{} wins by adjudication", super::color_name(winner_color)),
                    ));
                }
            }
        }
        if let Some(draw) = &rules.draw {
            if pos_after.fullmove_number().saturating_sub(1) >= draw.move_number
                && self.draw_plies >= 2 * draw.move_count
            {
                return Some((
                    GameResult::Draw,
                    AdjudicationRule::Draw,
                    "Draw by adjudication".to_string(),
                ));
            }
        }
        if let Some(max) = rules.max_moves {
            if engine_plies >= 2 * max {
                return Some((
                    GameResult::Draw,
                    AdjudicationRule::MaxMoves,
                    "Draw by adjudication: maximal game length".to_string(),
                ));
            }
        }
        None
    }
}
