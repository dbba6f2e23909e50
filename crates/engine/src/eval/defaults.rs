//! The engine's default weights and the hand-set weights they were tuned from.
//!
//! `EvalParams::default()` is `configs/weights/default.toml`, compiled into the binary, so the
//! engine without a weights file plays exactly what that file says. `EvalParams::handset()` is
//! the hand-set starting point (`configs/weights/handset.toml`), built from a few simple rules
//! (centralisation, advancement, king shelter) rather than copied tables.

use super::params::layout::*;
use super::params::EvalParams;

/// Distance-to-edge centrality of a square: 0 in a corner, 6 on d4/e4/d5/e5.
fn centrality(sq: usize) -> i32 {
    let (file, rank) = ((sq % 8) as i32, (sq / 8) as i32);
    file.min(7 - file) + rank.min(7 - rank)
}

/// The (mg, eg) piece-square value of `kind` (0 = pawn .. 5 = king) on `sq`, White's view.
fn pst(kind: usize, sq: usize) -> (i32, i32) {
    let c = centrality(sq);
    let (file, rank) = ((sq % 8) as i32, (sq / 8) as i32);
    let file_centre = file.min(7 - file); // 0 on a/h .. 3 on d/e
    match kind {
        // Pawns: advance, and occupy the centre in the middlegame.
        0 => {
            if rank == 0 || rank == 7 {
                (0, 0)
            } else {
                let centre = if (3..=4).contains(&rank) && file_centre == 3 {
                    12
                } else {
                    0
                };
                ((rank - 1) * 3 + centre, (rank - 1) * 5)
            }
        }
        1 => (8 * c - 20, 6 * c - 18),
        2 => (4 * c - 10, 3 * c - 9),
        // Rooks: the seventh rank and, a little, the central files.
        3 => {
            let seventh = if rank == 6 { 12 } else { 0 };
            (seventh + 2 * file_centre - 3, seventh / 2)
        }
        4 => (2 * c - 6, 4 * c - 12),
        // King: stay home behind the pawns in the middlegame, centralise in the endgame.
        _ => {
            let home = [15, 20, 8, 0, 0, 5, 22, 15][file as usize];
            (home - 18 * rank, 8 * c - 24)
        }
    }
}

/// The shipped default weights file, as text.
pub(crate) const DEFAULT_WEIGHTS_TOML: &str =
    include_str!("../../../../configs/weights/default.toml");

impl Default for EvalParams {
    /// The shipped default weights (configs/weights/default.toml, compiled in).
    fn default() -> EvalParams {
        static DEFAULT: std::sync::OnceLock<EvalParams> = std::sync::OnceLock::new();
        DEFAULT
            .get_or_init(|| {
                EvalParams::from_toml_str(DEFAULT_WEIGHTS_TOML, "configs/weights/default.toml")
                    .unwrap_or_else(|e| panic!("the compiled-in default weights are broken: {e}"))
            })
            .clone()
    }
}

impl EvalParams {
    /// The hand-set weights (configs/weights/handset.toml): where tuning started.
    pub fn handset() -> EvalParams {
        let mut p = EvalParams::zeroed();
        let material = [(100, 120), (320, 300), (330, 320), (500, 540), (900, 960)];
        for (i, &v) in material.iter().enumerate() {
            p.set(MATERIAL + i, v);
        }
        for kind in 0..6 {
            for sq in 0..64 {
                p.set(PST + 64 * kind + sq, pst(kind, sq));
            }
        }
        // Mobility: linear around a typical count, steeper in the endgame for the long pieces.
        let slopes = [(4, 4, 4), (6, 4, 5), (7, 2, 4), (13, 1, 2)]; // (typical, mg, eg)
        for (k, &(typical, mg, eg)) in slopes.iter().enumerate() {
            for n in 0..MOBILITY_LEN[k] {
                let d = n as i32 - typical;
                p.set(MOBILITY[k + 1] + n, (mg * d, eg * d));
            }
        }
        let passed = [(5, 10), (8, 15), (15, 30), (30, 55), (55, 90), (90, 140)];
        let connected = [(3, 2), (5, 4), (8, 8), (12, 14), (20, 24), (30, 40)];
        for r in 0..6 {
            p.set(PASSED + r, passed[r]);
            p.set(CONNECTED + r, connected[r]);
        }
        p.set(DOUBLED, (-10, -25));
        p.set(ISOLATED, (-12, -15));
        p.set(BACKWARD, (-8, -10));
        p.set(BISHOP_PAIR, (30, 50));
        p.set(ROOK_OPEN_FILE, (25, 10));
        p.set(ROOK_HALF_OPEN_FILE, (12, 6));
        p.set(KING_SHIELD, (12, 0));
        p.set(KING_SHIELD + 1, (6, 0));
        p.set(KING_OPEN_FILE, (-15, 0));
        let attacks = [(8, 2), (6, 2), (7, 2), (10, 3)];
        for (i, &v) in attacks.iter().enumerate() {
            p.set(KING_ATTACKS + i, v);
        }
        p.set(TEMPO, (15, 5));
        p
    }
}
