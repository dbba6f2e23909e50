//! Syzygy tablebases in the search: WDL probes inside the tree (after a capture or pawn move,
//! with few enough pieces) turned into scores just inside the mate range, and the root's
//! moves narrowed by DTZ so that a won ending is converted, not just kept.

use super::tt::{score_to_tt, Bound};
use super::{Searcher, INFINITY, MAX_PLY, TB_WIN};
use crate::board::{Move, MoveList, Position};
use crate::tablebase::{RootMove as TbRootMove, RootProbe, Tablebases, Wdl};

/// The largest `SyzygyProbeLimit`: the Syzygy format's largest tables.
pub(crate) const MAX_PROBE_LIMIT: u32 = 7;

/// The tables a searcher probes, and up to how many pieces.
#[derive(Clone, Debug)]
pub struct SearchTablebases {
    /// The open tables.
    pub tables: Tablebases,
    /// Positions with more pieces (kings included) than this are not probed (`SyzygyProbeLimit`).
    pub probe_limit: u32,
}

/// What a probe inside the tree tells a node.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum TbVerdict {
    /// The probe settles the node: return this score.
    Cut(i32),
    /// A principal-variation node's score is at least this (a win not proven yet by the tree).
    Floor(i32),
    /// A principal-variation node's score is at most this (a loss).
    Cap(i32),
    /// Nothing to use.
    None,
}

/// A probe's answer as a score at `ply` and the bound it proves: wins and losses as tablebase
/// scores (below every mate, above every evaluation, shorter distances better), a cursed win or
/// blessed loss a hair from the draw (the fifty-move rule draws it, but the opponent may err),
/// a draw exact.
pub(crate) fn wdl_score(wdl: Wdl, ply: usize) -> (i32, Bound) {
    let ply = ply as i32;
    match wdl {
        Wdl::Win => (TB_WIN - ply, Bound::Lower),
        Wdl::Loss => (-TB_WIN + ply, Bound::Upper),
        Wdl::CursedWin => (1, Bound::Exact),
        Wdl::BlessedLoss => (-1, Bound::Exact),
        Wdl::Draw => (0, Bound::Exact),
    }
}

/// The root moves a tablebase probe keeps: those that keep the best result, and among them the
/// ones that get there fastest (a win: the fewest plies to the next capture or pawn move; a loss:
/// the most). `legal` maps the prober's moves to ours; a prober move not among them is ignored.
pub(crate) fn root_moves_by_dtz(probe: &RootProbe, legal: &MoveList) -> Vec<Move> {
    let ours = |m: &TbRootMove| {
        legal.iter().copied().find(|mv| {
            mv.from().index() == m.from as usize
                && mv.to().index() == m.to as usize
                && mv.promotion() == m.promotion
        })
    };
    // Higher is better: the result first, then -dtz (a win's dtz is positive, a loss's negative).
    let rank = |m: &TbRootMove| (m.wdl.value(), -m.dtz);
    let Some(best) = probe
        .moves
        .iter()
        .filter(|m| ours(m).is_some())
        .map(rank)
        .max()
    else {
        return Vec::new();
    };
    probe
        .moves
        .iter()
        .filter(|m| rank(m) == best)
        .filter_map(ours)
        .collect()
}

/// The score a root in the tables reports when the search found no mate or tablebase score of
/// its own: a win or loss as a tablebase score `dtz` plies away, a cursed or blessed result as
/// a near-draw.
pub(crate) fn root_score(probe: &RootProbe) -> i32 {
    let distance = probe.dtz.unsigned_abs().clamp(1, MAX_PLY as u32) as usize;
    wdl_score(probe.wdl, distance).0
}

impl Searcher {
    /// Uses `tables` (None: none) in later searches.
    pub fn set_tablebases(&mut self, tables: Option<SearchTablebases>) {
        self.tb_pieces = tables.as_ref().map_or(0, |t| {
            t.probe_limit
                .min(t.tables.max_pieces())
                .min(MAX_PROBE_LIMIT)
        });
        self.tablebases = tables.filter(|_| self.tb_pieces > 0);
        if self.tablebases.is_none() {
            self.tb_pieces = 0;
        }
    }

    /// The tables in use, if any.
    pub fn tablebases(&self) -> Option<&SearchTablebases> {
        self.tablebases.as_ref()
    }

    /// The WDL probe of a non-root node, when the position is in the tables: just after a
    /// capture or pawn move (the table's result holds from a zeroed fifty-move counter), without
    /// castling rights. A settling result is stored in the table.
    #[inline(never)]
    pub(super) fn probe_in_tree(
        &mut self,
        pos: &Position,
        depth: i32,
        ply: usize,
        alpha: i32,
        beta: i32,
    ) -> TbVerdict {
        if pos.halfmove_clock() != 0
            || pos.occupied().len() > self.tb_pieces
            || pos.castling_rights().0 != 0
        {
            return TbVerdict::None;
        }
        let Some(wdl) = self
            .tablebases
            .as_ref()
            .and_then(|t| t.tables.probe_wdl_quiet(pos))
        else {
            return TbVerdict::None;
        };
        self.tbhits += 1;
        let (score, bound) = wdl_score(wdl, ply);
        if bound.settles(score, alpha, beta) {
            let eval = if pos.in_check() {
                0
            } else {
                self.evaluate(pos)
            };
            let depth = (depth + 6).min(MAX_PLY as i32 - 1);
            let stored = score_to_tt(score, ply);
            self.tt
                .store(pos.key(), Move::NULL, stored, eval, depth, bound);
            return TbVerdict::Cut(score);
        }
        match bound {
            Bound::Lower => TbVerdict::Floor(score),
            Bound::Upper => TbVerdict::Cap(score),
            Bound::Exact => TbVerdict::None,
        }
    }

    /// Narrows the root to the moves the tables rank best, when the root is in them; its
    /// tablebase score. Searchmoves still apply: the narrowing keeps to them when it can.
    pub(super) fn narrow_root_by_tables(
        &mut self,
        pos: &Position,
        legal: &MoveList,
    ) -> Option<i32> {
        let tables = self.tablebases.as_ref()?;
        if pos.occupied().len() > self.tb_pieces || pos.castling_rights().0 != 0 {
            return None;
        }
        let probe = tables
            .tables
            .probe_root_at_clock(pos, u32::from(pos.halfmove_clock()))
            .ok()?;
        self.tbhits += 1;
        let mut kept = root_moves_by_dtz(&probe, legal);
        if !self.root_allowed.is_empty() {
            kept.retain(|mv| self.root_allowed.contains(mv));
        }
        if !kept.is_empty() {
            self.root_allowed = kept;
        }
        Some(root_score(&probe))
    }
}

/// The principal-variation window a tablebase floor or cap leaves: (best score so far, alpha).
pub(super) fn floor_window(verdict: TbVerdict, alpha: i32) -> (i32, i32) {
    match verdict {
        TbVerdict::Floor(floor) => (floor, alpha.max(floor)),
        _ => (-INFINITY, alpha),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::{MATE, MATE_BOUND};
    use crate::search::{MAX_EVAL, TB_WIN_BOUND};

    #[test]
    fn tablebase_scores_sit_between_evaluations_and_mates() {
        let (max_eval, bound) = (MAX_EVAL, TB_WIN_BOUND);
        assert!(max_eval < bound);
        for ply in [1, 10, MAX_PLY - 1] {
            let (win, bound) = wdl_score(Wdl::Win, ply);
            assert_eq!(bound, Bound::Lower);
            assert!((TB_WIN_BOUND..MATE_BOUND).contains(&win), "{win}");
            let (loss, bound) = wdl_score(Wdl::Loss, ply);
            assert_eq!((loss, bound), (-win, Bound::Upper));
            // Any mate within the search's reach is worth more than any tablebase win.
            assert!(MATE - MAX_PLY as i32 > win);
        }
        // Nearer wins are better, nearer losses worse.
        assert!(wdl_score(Wdl::Win, 3).0 > wdl_score(Wdl::Win, 5).0);
        assert!(wdl_score(Wdl::Loss, 3).0 < wdl_score(Wdl::Loss, 5).0);
        assert_eq!(wdl_score(Wdl::Draw, 7), (0, Bound::Exact));
        assert_eq!(wdl_score(Wdl::CursedWin, 7), (1, Bound::Exact));
        assert_eq!(wdl_score(Wdl::BlessedLoss, 7), (-1, Bound::Exact));
    }

    fn tb_move(pos: &Position, text: &str, wdl: Wdl, dtz: i32) -> TbRootMove {
        let mv = pos.parse_uci_move(text).unwrap();
        TbRootMove {
            from: mv.from().index() as u8,
            to: mv.to().index() as u8,
            promotion: mv.promotion(),
            wdl,
            dtz,
        }
    }

    #[test]
    fn root_filtering_keeps_the_best_result_reached_fastest() {
        let pos = Position::from_fen("8/4P3/8/8/8/2k5/8/K6R w - - 0 1").unwrap();
        let legal = pos.legal_moves();
        let probe = RootProbe {
            wdl: Wdl::Win,
            dtz: 1,
            moves: vec![
                tb_move(&pos, "e7e8q", Wdl::Win, 1),
                tb_move(&pos, "e7e8r", Wdl::Win, 1),
                tb_move(&pos, "e7e8n", Wdl::Draw, 0),
                tb_move(&pos, "h1h3", Wdl::Win, 25),
                tb_move(&pos, "a1a2", Wdl::CursedWin, 3),
            ],
        };
        let kept: Vec<String> = root_moves_by_dtz(&probe, &legal)
            .iter()
            .map(|m| m.to_string())
            .collect();
        assert_eq!(kept, ["e7e8q", "e7e8r"]);
        assert_eq!(root_score(&probe), TB_WIN - 1);

        // Lost: the slowest loss is kept; a drawing move beats every loss.
        let lost = |moves| RootProbe {
            wdl: Wdl::Loss,
            dtz: -9,
            moves,
        };
        let probe = lost(vec![
            tb_move(&pos, "h1h3", Wdl::Loss, -3),
            tb_move(&pos, "a1b1", Wdl::Loss, -9),
        ]);
        let kept = root_moves_by_dtz(&probe, &legal);
        assert_eq!(kept, [pos.parse_uci_move("a1b1").unwrap()]);
        assert_eq!(root_score(&probe), -(TB_WIN - 9));
        let probe = lost(vec![
            tb_move(&pos, "a1b1", Wdl::Loss, -9),
            tb_move(&pos, "h1h2", Wdl::BlessedLoss, -120),
        ]);
        assert_eq!(
            root_moves_by_dtz(&probe, &legal),
            [pos.parse_uci_move("h1h2").unwrap()]
        );
        // Moves the position does not have are ignored.
        assert!(root_moves_by_dtz(&lost(Vec::new()), &legal).is_empty());
    }

    #[test]
    fn a_floor_raises_alpha_only_for_wins() {
        assert_eq!(floor_window(TbVerdict::Floor(500), 10), (500, 500));
        assert_eq!(floor_window(TbVerdict::Floor(5), 10), (5, 10));
        assert_eq!(floor_window(TbVerdict::Cap(-500), 10), (-INFINITY, 10));
    }
}
