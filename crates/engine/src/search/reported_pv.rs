//! The principal variation as the engine reports it: cut after the first move that ends the game
//! by threefold repetition or the fifty-move rule. The search scores such positions as draws,
//! but only above its horizon: a line the quiescence search extends can run on through a
//! repeated position, and a PV that continues a game already over is what fastchess's and
//! fishtest's compliance checks flag (`PV continues after threefold repetition`).

use super::Searcher;
use crate::board::{Move, Position};

impl Searcher {
    /// The root's PV from `root`, whose earlier positions (since the last irreversible move)
    /// are the repetition stack's keys, cut where the game would end.
    pub(super) fn reported_pv(&self, root: &Position) -> Vec<Move> {
        cut_at_game_end(root, &self.keys, &self.pv[0][..self.pv_len[0]])
    }
}

/// `pv` played from `root` (after the positions whose keys are `earlier`, oldest first), up to
/// and including the first move after which the position stands for the third time or the
/// fifty-move counter reaches 100.
fn cut_at_game_end(root: &Position, earlier: &[u64], pv: &[Move]) -> Vec<Move> {
    let mut keys = earlier.to_vec();
    let mut pos = root.clone();
    for (i, &mv) in pv.iter().enumerate() {
        keys.push(pos.key());
        pos.make_move(mv);
        let window = (pos.halfmove_clock() as usize).min(keys.len());
        let key = pos.key();
        let before = keys[keys.len() - window..]
            .iter()
            .filter(|&&k| k == key)
            .count();
        if before >= 2 || pos.halfmove_clock() >= 100 {
            return pv[..=i].to_vec();
        }
    }
    pv.to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves(pos: &Position, ucis: &[&str]) -> Vec<Move> {
        let mut pos = pos.clone();
        ucis.iter()
            .map(|uci| {
                let mv = pos.parse_uci_move(uci).unwrap();
                pos.make_move(mv);
                mv
            })
            .collect()
    }

    /// Knights out and back twice: the start position stands for the third time after the
    /// eighth move, so a PV reaching it stops there.
    #[test]
    fn a_pv_stops_at_the_third_occurrence_of_a_position() {
        let start = Position::startpos();
        let shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"];
        let line: Vec<&str> = shuffle
            .iter()
            .chain(&shuffle)
            .chain(&["e2e4"])
            .copied()
            .collect();
        let pv = moves(&start, &line);
        assert_eq!(cut_at_game_end(&start, &[], &pv), pv[..8].to_vec());
        // With the root already seen once, four plies before it (the knights went out and back
        // then too), its second return in the PV is the third occurrence.
        let root: Position = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 4 3"
            .parse()
            .unwrap();
        let earlier = [root.key(), 1, 2, 3];
        assert_eq!(cut_at_game_end(&root, &earlier, &pv), pv[..4].to_vec());
        // A line that repeats nothing is reported whole.
        let quiet = moves(&start, &["e2e4", "e7e5", "g1f3"]);
        assert_eq!(cut_at_game_end(&start, &[], &quiet), quiet);
    }

    #[test]
    fn a_pv_stops_where_the_fifty_move_counter_reaches_100() {
        let root: Position = "8/8/4k3/8/8/4K3/8/R7 w - - 98 80".parse().unwrap();
        let pv = moves(&root, &["a1a2", "e6d6", "a2a3"]);
        assert_eq!(cut_at_game_end(&root, &[], &pv), pv[..2].to_vec());
    }
}
