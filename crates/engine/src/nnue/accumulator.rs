//! Incremental accumulators for a search: both perspectives' hidden-layer sums (White's and
//! Black's, i16, `N` wide) kept in a stack, one entry per ply. Making a move copies the top
//! entry into the next with the move's features added and removed; unmaking pops it. The
//! output is bullet's arithmetic on the two tops, the side to move's first.

use super::features::feature_index;
use super::simd::Kernels;
use super::{Network, QA, QB, SCALE};
use crate::board::{Color, Move, Piece, PieceKind, Position, Square};
use std::sync::Arc;

/// A network and the accumulator stack of one search.
#[derive(Clone, Debug)]
pub struct AccumulatorStack {
    net: Arc<Network>,
    kernels: Kernels,
    hidden: usize,
    /// Entry `k` (the position `k` moves after the last `reset`) holds White's accumulator
    /// then Black's, `2·N` values from `k·2·N`; grown on demand.
    entries: Vec<i16>,
    top: usize,
}

/// The feature changes of one move for one perspective: at most two added, two removed.
struct Delta {
    adds: [usize; 2],
    add_count: usize,
    subs: [usize; 2],
    sub_count: usize,
}

impl AccumulatorStack {
    /// A stack for `net` using the fastest exact loops this CPU has.
    pub fn new(net: Arc<Network>) -> AccumulatorStack {
        AccumulatorStack::with_simd(net, true)
    }

    /// A stack for `net`; `allow_simd` false forces the portable loops (identity tests).
    pub fn with_simd(net: Arc<Network>, allow_simd: bool) -> AccumulatorStack {
        let hidden = net.hidden();
        let kernels = Kernels::new(hidden, &net.output_weights, allow_simd);
        AccumulatorStack {
            net,
            kernels,
            hidden,
            // The search's depth (MAX_PLY) plus the root and a spare: no growth in a search.
            entries: vec![0; 2 * hidden * 130],
            top: 0,
        }
    }

    /// The network evaluated.
    pub fn network(&self) -> &Arc<Network> {
        &self.net
    }

    /// Whether some loop runs with SIMD instructions.
    pub fn uses_simd(&self) -> bool {
        self.kernels.uses_simd()
    }

    /// Empties the stack and computes `pos`'s accumulators from scratch as its only entry.
    pub fn reset(&mut self, pos: &Position) {
        self.top = 0;
        let n = self.hidden;
        for (slot, color) in [Color::White, Color::Black].into_iter().enumerate() {
            let acc = &mut self.entries[slot * n..(slot + 1) * n];
            acc.copy_from_slice(&self.net.feature_biases);
            for square in pos.occupied() {
                let piece = pos
                    .piece_on(square)
                    .expect("an occupied square holds a piece");
                let f = feature_index(color, piece, square);
                let weights = &self.net.feature_weights[f * n..(f + 1) * n];
                for (a, &w) in acc.iter_mut().zip(weights) {
                    *a = a.wrapping_add(w);
                }
            }
        }
    }

    /// Pushes the accumulators of the position after `mv`; `pos` is the position before it
    /// and `mv` one of its legal moves.
    #[inline]
    pub fn push(&mut self, pos: &Position, mv: Move) {
        let n = self.hidden;
        let entry = 2 * n;
        if (self.top + 2) * entry > self.entries.len() {
            self.entries.resize((self.top + 2) * entry * 2, 0);
        }
        let (before, after) = self.entries.split_at_mut((self.top + 1) * entry);
        let src = &before[self.top * entry..];
        let changes = MoveChanges::of(pos, mv);
        for (slot, color) in [Color::White, Color::Black].into_iter().enumerate() {
            let delta = changes.delta(color);
            let range = slot * n..(slot + 1) * n;
            let row = |f: usize| &self.net.feature_weights[f * n..(f + 1) * n];
            let (dst, src) = (&mut after[range.clone()], &src[range]);
            let [a0, a1] = delta.adds.map(row);
            let [s0, s1] = delta.subs.map(row);
            match (delta.add_count, delta.sub_count) {
                (1, 1) => self.kernels.update(dst, src, [a0], [s0]),
                (1, 2) => self.kernels.update(dst, src, [a0], [s0, s1]),
                _ => self.kernels.update(dst, src, [a0, a1], [s0, s1]),
            }
        }
        self.top += 1;
    }

    /// Pops the entry of the last move pushed.
    #[inline]
    pub fn pop(&mut self) {
        debug_assert!(self.top > 0, "pop without push");
        self.top -= 1;
    }

    /// `color`'s accumulator of the current position.
    pub fn accumulator(&self, color: Color) -> &[i16] {
        let n = self.hidden;
        let start = self.top * 2 * n + color.index() * n;
        &self.entries[start..start + n]
    }

    /// The network's output for the current position with `side` to move, in centipawns from
    /// its view: bullet's arithmetic exactly (`Network::evaluate` of the same position).
    #[inline]
    pub fn evaluate(&self, side: Color) -> i32 {
        let n = self.hidden;
        let weights = &self.net.output_weights;
        let sum = self
            .kernels
            .screlu_dot(self.accumulator(side), &weights[..n])
            + self
                .kernels
                .screlu_dot(self.accumulator(!side), &weights[n..]);
        let output = (sum / i64::from(QA) + i64::from(self.net.output_bias)) * i64::from(SCALE)
            / i64::from(QA * QB);
        output as i32
    }
}

/// What a move puts on and takes off the board, as (piece, square) pairs.
struct MoveChanges {
    added: [(Piece, Square); 2],
    add_count: usize,
    removed: [(Piece, Square); 2],
    remove_count: usize,
}

impl MoveChanges {
    #[inline]
    fn of(pos: &Position, mv: Move) -> MoveChanges {
        let us = pos.side_to_move();
        let (from, to) = (mv.from(), mv.to());
        let kind = pos.kind_on(from).expect("a legal move has a piece to move");
        let moved = Piece::new(us, kind);
        if mv.is_castle() {
            let rook = Piece::new(us, PieceKind::Rook);
            let rook_from = pos
                .castling_rook(us, mv.flags() == Move::KING_CASTLE)
                .expect("castling needs its right");
            return MoveChanges {
                added: [(moved, to), (rook, mv.castle_rook_to())],
                add_count: 2,
                removed: [(moved, from), (rook, rook_from)],
                remove_count: 2,
            };
        }
        let placed = Piece::new(us, mv.promotion().unwrap_or(kind));
        let mut changes = MoveChanges {
            added: [(placed, to), (placed, to)],
            add_count: 1,
            removed: [(moved, from), (moved, from)],
            remove_count: 1,
        };
        if mv.is_capture() {
            let victim = if mv.is_en_passant() {
                (
                    Piece::new(!us, PieceKind::Pawn),
                    Square::from_index(to.index() ^ 8),
                )
            } else {
                let kind = pos.kind_on(to).expect("a capture has a victim");
                (Piece::new(!us, kind), to)
            };
            changes.removed[1] = victim;
            changes.remove_count = 2;
        }
        changes
    }

    /// The feature indices for `perspective` (unused slots repeat a used one; the counts say
    /// how many apply).
    #[inline]
    fn delta(&self, perspective: Color) -> Delta {
        let index = |(piece, square): (Piece, Square)| feature_index(perspective, piece, square);
        Delta {
            adds: self.added.map(index),
            add_count: self.add_count,
            subs: self.removed.map(index),
            sub_count: self.remove_count,
        }
    }
}
