//! Perft: the number of leaf nodes of the legal move tree, the move generator's correctness check.

use super::movegen::GenMode;
use super::moves::{Move, MoveList};
use super::position::Position;

/// Leaf count to `depth`, counting the last ply in bulk (no leaf move is made).
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_legal_moves(),
        _ => {
            let mut moves = MoveList::new();
            pos.moves_into(GenMode::All, &mut moves);
            let mut nodes = 0;
            for &mv in moves.iter() {
                let undo = pos.make_move(mv);
                nodes += perft(pos, depth - 1);
                pos.unmake_move(mv, undo);
            }
            nodes
        }
    }
}

/// Leaf count to `depth` with every move made and unmade, leaves included: measures make/unmake
/// and the incremental key as well as generation.
pub fn perft_full(pos: &mut Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    // Generated in this frame: a list returned by value was copied whole (a 520-byte memcpy per
    // node, 2-5 % of perft with every leaf made).
    let mut moves = MoveList::new();
    pos.moves_into(GenMode::All, &mut moves);
    let mut nodes = 0;
    for &mv in moves.iter() {
        let undo = pos.make_move(mv);
        nodes += if depth == 1 {
            // A leaf: made and unmade in this frame (a call that only returns 1 cost the prologue
            // of a frame holding a move list); `black_box` keeps the made position observable,
            // so no part of make is dropped as a dead store.
            std::hint::black_box(&*pos);
            1
        } else {
            perft_full(pos, depth - 1)
        };
        pos.unmake_move(mv, undo);
    }
    nodes
}

/// Perft per root move, in generation order.
pub fn divide(pos: &mut Position, depth: u32) -> Vec<(Move, u64)> {
    let mut out = Vec::new();
    if depth == 0 {
        return out;
    }
    for &mv in pos.legal_moves().iter() {
        let undo = pos.make_move(mv);
        out.push((mv, perft(pos, depth - 1)));
        pos.unmake_move(mv, undo);
    }
    out
}
