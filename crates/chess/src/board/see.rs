//! Static exchange evaluation: the material balance of a capture sequence on one square, each side
//! recapturing with its least valuable attacker, used to order captures and prune losing ones.

use crate::board::attacks::{bishop_attacks, rook_attacks};
use crate::board::{Move, PieceKind, Position};

/// Exchange values of pawn, knight, bishop, rook, queen, king (the king ends any exchange).
pub const SEE_VALUES: [i32; 6] = [100, 320, 330, 500, 900, 20_000];

/// Whether the exchange that `mv` starts gains at least `threshold` for the mover.
pub fn see_ge(pos: &Position, mv: Move, threshold: i32) -> bool {
    // Castling, en passant and promotions are treated as even exchanges.
    if mv.is_castle() || mv.is_en_passant() || mv.is_promotion() {
        return threshold <= 0;
    }
    let (from, to) = (mv.from(), mv.to());
    let value = |sq| {
        pos.kind_on(sq)
            .map_or(0, |k: PieceKind| SEE_VALUES[k.index()])
    };
    let victim = value(to);
    let mover = value(from);
    // The capture itself is forced; after it the mover can always stop, and the opponent's best
    // single recapture costs at most the mover.
    if victim < threshold {
        return false;
    }
    if victim - mover >= threshold {
        return true;
    }

    let diagonal = pos.pieces(PieceKind::Bishop) | pos.pieces(PieceKind::Queen);
    let straight = pos.pieces(PieceKind::Rook) | pos.pieces(PieceKind::Queen);
    let mut occupied = pos.occupied().without(from);
    let mut attackers = pos.attackers_to(to, occupied) & occupied;
    // gain[d]: the material balance for the side making capture d if the sequence stops after it.
    let mut gain = [0i32; 32];
    let mut depth = 0;
    gain[0] = victim;
    let mut on_square = mover;
    let mut side = !pos.side_to_move();
    loop {
        let ours = attackers & pos.color(side);
        if ours.is_empty() {
            break;
        }
        let kind = PieceKind::ALL
            .into_iter()
            .find(|&k| (ours & pos.pieces(k)).is_nonempty())
            .expect("an attacker exists");
        // A king may only recapture if the square is no longer defended.
        if kind == PieceKind::King && (attackers & pos.color(!side)).is_nonempty() {
            break;
        }
        depth += 1;
        gain[depth] = on_square - gain[depth - 1];
        on_square = SEE_VALUES[kind.index()];
        let sq = (ours & pos.pieces(kind)).single();
        occupied = occupied.without(sq);
        attackers = attackers.without(sq);
        // Uncover the sliders behind the piece that just captured.
        if matches!(kind, PieceKind::Pawn | PieceKind::Bishop | PieceKind::Queen) {
            attackers |= bishop_attacks(to, occupied) & diagonal & occupied;
        }
        if matches!(kind, PieceKind::Rook | PieceKind::Queen) {
            attackers |= rook_attacks(to, occupied) & straight & occupied;
        }
        side = !side;
        if depth == gain.len() - 1 {
            break;
        }
    }
    // Each side may stop capturing when continuing would lose more.
    while depth > 0 {
        gain[depth - 1] = -(-gain[depth - 1]).max(gain[depth]);
        depth -= 1;
    }
    gain[0] >= threshold
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(pos: &Position, uci: &str) -> Move {
        *pos.legal_moves()
            .iter()
            .find(|m| m.to_string() == uci)
            .expect("legal move")
    }

    #[test]
    fn simple_exchanges() {
        // Pawn takes an undefended knight: +320.
        let pos = Position::from_fen("4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1").unwrap();
        let m = mv(&pos, "e4d5");
        assert!(see_ge(&pos, m, 320));
        assert!(!see_ge(&pos, m, 321));
        // Queen takes a pawn defended by a pawn: loses 800.
        let pos = Position::from_fen("4k3/8/2p5/3p4/8/8/3Q4/4K3 w - - 0 1").unwrap();
        let m = mv(&pos, "d2d5");
        assert!(see_ge(&pos, m, -800));
        assert!(!see_ge(&pos, m, -799));
        // Rook takes a rook defended by a rook, with our second rook behind (x-ray): wins 500.
        let pos = Position::from_fen("3rk3/3r4/8/8/8/8/3R4/3RK3 w - - 0 1").unwrap();
        let m = mv(&pos, "d2d7");
        assert!(see_ge(&pos, m, 0));
        // Knight takes a pawn defended by a bishop: loses 220.
        let pos = Position::from_fen("4k3/8/8/2b5/3p4/8/4N3/4K3 w - - 0 1").unwrap();
        let m = mv(&pos, "e2d4");
        assert!(see_ge(&pos, m, -220));
        assert!(!see_ge(&pos, m, -219));
    }
}
