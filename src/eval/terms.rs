//! The evaluation walk: every term visited once per position, each applied weight reported to an
//! `Accumulator` as (parameter index, White-minus-Black count). Scoring and tracing share it, so
//! the tuner always fits exactly the function the search uses.

use super::params::layout::*;
use super::params::EvalParams;
use super::{Accumulator, MAX_PHASE};
use crate::board::attacks::{
    bishop_attacks, king_attacks, knight_attacks, line, pawn_attacks, queen_attacks, rook_attacks,
};
use crate::board::{Bitboard, Color, PieceKind, Position};

const FILE_A: u64 = 0x0101_0101_0101_0101;

/// Squares strictly ahead of a square on its own file, per colour.
static FORWARD_FILE: [[u64; 64]; 2] = forward_tables(false);
/// Squares strictly ahead on the square's file and both neighbouring files, per colour: a pawn
/// is passed when no enemy pawn stands there.
static PASSED_SPAN: [[u64; 64]; 2] = forward_tables(true);

const fn forward_tables(with_neighbours: bool) -> [[u64; 64]; 2] {
    let mut t = [[0u64; 64]; 2];
    let mut sq = 0;
    while sq < 64 {
        let file = FILE_A << (sq % 8);
        let files = if with_neighbours {
            file | ((file << 1) & !FILE_A) | ((file >> 1) & !(FILE_A << 7))
        } else {
            file
        };
        let rank = sq / 8;
        let above = if rank == 7 {
            0
        } else {
            !0u64 << (8 * (rank + 1))
        };
        let below = (1u64 << (8 * rank)) - 1;
        t[0][sq] = files & above;
        t[1][sq] = files & below;
        sq += 1;
    }
    t
}

/// The files beside file `f` (not `f` itself).
#[inline(always)]
fn adjacent_files(f: usize) -> Bitboard {
    let file = Bitboard(FILE_A << f);
    file.west() | file.east()
}

/// Squares on `rank` and the ranks behind it, seen from `color`.
#[inline(always)]
fn at_or_behind(color: Color, rank: usize) -> Bitboard {
    match color {
        Color::White => Bitboard(u64::MAX >> (8 * (7 - rank))),
        Color::Black => Bitboard(u64::MAX << (8 * rank)),
    }
}

/// The set of files (bit f for file f) holding at least one square of `bb`.
#[inline(always)]
fn file_set(bb: Bitboard) -> u32 {
    let mut x = bb.0;
    x |= x >> 32;
    x |= x >> 16;
    x |= x >> 8;
    (x & 0xFF) as u32
}

#[inline(always)]
fn pawn_attack_set(color: Color, pawns: Bitboard) -> Bitboard {
    let ahead = pawns.forward(color);
    ahead.west() | ahead.east()
}

/// The game phase from remaining material: 24 with all pieces on, 0 with pawns and kings only.
#[inline(always)]
pub fn phase(pos: &Position) -> i32 {
    let minors = (pos.pieces(PieceKind::Knight) | pos.pieces(PieceKind::Bishop)).len() as i32;
    let rooks = pos.pieces(PieceKind::Rook).len() as i32;
    let queens = pos.pieces(PieceKind::Queen).len() as i32;
    (minors + 2 * rooks + 4 * queens).min(MAX_PHASE)
}

/// Walks every term of the evaluation of `pos`, calling `acc.add(index, count, weight)` for each
/// applied weight, where `count` is White's occurrences minus Black's and `weight` its value in
/// `params`. Returns the game phase (0..=24) to blend the middlegame and endgame sums with.
#[inline(always)]
pub fn evaluate_with<A: Accumulator>(pos: &Position, params: &EvalParams, acc: &mut A) -> i32 {
    let w: &[(i32, i32)] = &params.weights;
    let mut add = |index: usize, count: i32| acc.add(index, count, w[index]);

    let occupied = pos.occupied();
    let pawns = [
        pos.colored(Color::White, PieceKind::Pawn),
        pos.colored(Color::Black, PieceKind::Pawn),
    ];
    let pawn_att = [
        pawn_attack_set(Color::White, pawns[0]),
        pawn_attack_set(Color::Black, pawns[1]),
    ];
    let pawn_files = [file_set(pawns[0]), file_set(pawns[1])];
    let kings = [pos.king_square(Color::White), pos.king_square(Color::Black)];
    let zones = [
        king_attacks(kings[0]).with(kings[0]),
        king_attacks(kings[1]).with(kings[1]),
    ];

    // Scalar terms are counted per side and reported once as a difference.
    let mut doubled = [0i32; 2];
    let mut isolated = [0i32; 2];
    let mut backward = [0i32; 2];
    let mut rook_open = [0i32; 2];
    let mut rook_half_open = [0i32; 2];
    let mut shield = [[0i32; 2]; 2];
    let mut king_open = [0i32; 2];
    // Attacked enemy king-zone squares per attacker kind (knight, bishop, rook, queen).
    let mut king_att = [[0i32; 4]; 2];
    // Squares each side attacks, per piece kind (pawn..king), and passed pawns, for the terms
    // that need both sides' attacks (threats, safe checks, free passers) after the walk.
    let mut attacked_by = [[Bitboard::EMPTY; 6]; 2];
    let mut passers = [Bitboard::EMPTY; 2];
    let mut outposts = [[0i32; 2]; 2];
    let mut rook_seventh = [0i32; 2];
    let mut minor_behind_pawn = [0i32; 2];

    for color in Color::ALL {
        let us = color.index();
        let them = 1 - us;
        let sign = color.sign();
        // Black reads the tables with the square mirrored top to bottom.
        let flip = if color == Color::White { 0 } else { 56 };
        let own_pawns = pawns[us];

        for sq in own_pawns {
            let s = sq.index();
            let file = s % 8;
            let rank = s / 8;
            let rel_rank = rank ^ (flip >> 3);
            add(PST + (s ^ flip), sign);

            let neighbours = own_pawns & adjacent_files(file);
            let is_doubled = own_pawns.0 & FORWARD_FILE[us][s] != 0;
            doubled[us] += is_doubled as i32;
            isolated[us] += neighbours.is_empty() as i32;
            if !is_doubled && pawns[them].0 & PASSED_SPAN[us][s] == 0 {
                add(PASSED + rel_rank - 1, sign);
                passers[us] = passers[us].with(sq);
            }
            let supported = (pawn_attacks(!color, sq) & own_pawns).is_nonempty();
            let phalanx = (neighbours & Bitboard::rank(sq.rank())).is_nonempty();
            if supported || phalanx {
                add(CONNECTED + rel_rank - 1, sign);
            }
            // Backward: has neighbours, but all of them ahead, and cannot advance safely.
            if neighbours.is_nonempty()
                && (neighbours & at_or_behind(color, rank)).is_empty()
                && (Bitboard::from_square(sq).forward(color) & pawn_att[them]).is_nonempty()
            {
                backward[us] += 1;
            }
        }

        let own = pos.color(color);
        let safe = !own & !pawn_att[them];
        let pinned = pos.pinned(color);
        let king = kings[us];
        let any_pawn_files = pawn_files[0] | pawn_files[1];

        // A macro rather than a closure so each attack function is inlined.
        macro_rules! pieces {
            ($kind:expr, $attacks:expr) => {{
                let kind: PieceKind = $kind;
                let k = kind.index();
                for sq in pos.colored(color, kind) {
                    add(PST + 64 * k + (sq.index() ^ flip), sign);
                    let mut targets: Bitboard = $attacks(sq);
                    king_att[us][k - 1] += (targets & zones[them]).len() as i32;
                    if pinned.has(sq) {
                        targets &= line(king, sq);
                    }
                    attacked_by[us][k] |= targets;
                    add(MOBILITY[k] + (targets & safe).len() as usize, sign);
                    if kind == PieceKind::Knight || kind == PieceKind::Bishop {
                        let s = sq.index();
                        let rel_rank = (s / 8) ^ (flip >> 3);
                        let reachable = PASSED_SPAN[us][s] & adjacent_files(s % 8).0;
                        if (3..=5).contains(&rel_rank)
                            && pawn_att[us].has(sq)
                            && pawns[them].0 & reachable == 0
                        {
                            outposts[us][k - 1] += 1;
                        }
                        let ahead = Bitboard::from_square(sq).forward(color);
                        minor_behind_pawn[us] += (ahead & own_pawns).is_nonempty() as i32;
                    }
                    if kind == PieceKind::Rook && (sq.index() / 8) ^ (flip >> 3) == 6 {
                        rook_seventh[us] += 1;
                    }
                    if kind == PieceKind::Rook {
                        let file_bit = 1 << sq.file().index();
                        if any_pawn_files & file_bit == 0 {
                            rook_open[us] += 1;
                        } else if pawn_files[us] & file_bit == 0 {
                            rook_half_open[us] += 1;
                        }
                    }
                }
            }};
        }
        pieces!(PieceKind::Knight, knight_attacks);
        pieces!(PieceKind::Bishop, |sq| bishop_attacks(sq, occupied));
        pieces!(PieceKind::Rook, |sq| rook_attacks(sq, occupied));
        pieces!(PieceKind::Queen, |sq| queen_attacks(sq, occupied));

        add(
            PST + 64 * PieceKind::King.index() + (king.index() ^ flip),
            sign,
        );
        attacked_by[us][PieceKind::Pawn.index()] = pawn_att[us];
        attacked_by[us][PieceKind::King.index()] = king_attacks(king);
        let king_bb = Bitboard::from_square(king);
        let near = (king_bb | king_bb.west() | king_bb.east()).forward(color);
        shield[us][0] = (near & own_pawns).len() as i32;
        shield[us][1] = (near.forward(color) & own_pawns).len() as i32;
        let king_file = 1u32 << king.file().index();
        let king_files = (king_file | king_file << 1 | king_file >> 1) & 0xFF;
        king_open[us] = (king_files & !pawn_files[us]).count_ones() as i32;
    }

    for kind in &PieceKind::ALL[..5] {
        let count = |c| pos.colored(c, *kind).len() as i32;
        add(
            MATERIAL + kind.index(),
            count(Color::White) - count(Color::Black),
        );
    }
    let pair = |c| (pos.colored(c, PieceKind::Bishop).len() >= 2) as i32;
    add(BISHOP_PAIR, pair(Color::White) - pair(Color::Black));
    add(DOUBLED, doubled[0] - doubled[1]);
    add(ISOLATED, isolated[0] - isolated[1]);
    add(BACKWARD, backward[0] - backward[1]);
    add(ROOK_OPEN_FILE, rook_open[0] - rook_open[1]);
    add(ROOK_HALF_OPEN_FILE, rook_half_open[0] - rook_half_open[1]);
    add(KING_SHIELD, shield[0][0] - shield[1][0]);
    add(KING_SHIELD + 1, shield[0][1] - shield[1][1]);
    add(KING_OPEN_FILE, king_open[0] - king_open[1]);
    for (k, (white, black)) in king_att[0].iter().zip(king_att[1]).enumerate() {
        add(KING_ATTACKS + k, white - black);
    }
    add(TEMPO, pos.side_to_move().sign());

    let attacked = attacked_by.map(|a| a.iter().fold(Bitboard::EMPTY, |all, &b| all | b));
    let walk = TwoSided {
        pos,
        occupied,
        kings,
        pawn_att,
        attacked_by,
        attacked,
    };
    let mut checks = [[0i32; 4]; 2];
    let mut threats = [[0i32; 12]; 2];
    let mut passed = [[[0i32; 6]; 3]; 2];
    for color in Color::ALL {
        let us = color.index();
        checks[us] = walk.safe_checks(color);
        threats[us] = walk.threats(color);
        passed[us] = walk.passers(color, passers[us]);
    }
    let mut add_diffs = |offset: usize, white: &[i32], black: &[i32]| {
        for (i, (w, b)) in white.iter().zip(black).enumerate() {
            add(offset + i, w - b);
        }
    };
    add_diffs(SAFE_CHECKS, &checks[0], &checks[1]);
    // Layout order: by_pawn (4), by_minor (4), rook_on_queen, hanging, weak_pawn, pawn_push.
    add_diffs(THREAT_BY_PAWN, &threats[0], &threats[1]);
    for (term, offset) in [PASSED_OWN_KING, PASSED_ENEMY_KING, PASSED_FREE]
        .into_iter()
        .enumerate()
    {
        add_diffs(offset, &passed[0][term], &passed[1][term]);
    }
    add_diffs(OUTPOST, &outposts[0], &outposts[1]);
    add(ROOK_SEVENTH, rook_seventh[0] - rook_seventh[1]);
    add(
        MINOR_BEHIND_PAWN,
        minor_behind_pawn[0] - minor_behind_pawn[1],
    );

    phase(pos)
}

/// What the terms that read both sides' attacks need, gathered by the walk.
struct TwoSided<'a> {
    pos: &'a Position,
    occupied: Bitboard,
    kings: [crate::board::Square; 2],
    pawn_att: [Bitboard; 2],
    /// Squares attacked per side and piece kind (pawn..king).
    attacked_by: [[Bitboard; 6]; 2],
    /// Squares attacked per side by anything.
    attacked: [Bitboard; 2],
}

impl TwoSided<'_> {
    /// Safe check squares of `color` against the enemy king, per checker: knight, bishop,
    /// rook, queen.
    #[inline(always)]
    fn safe_checks(&self, color: Color) -> [i32; 4] {
        let (us, them) = (color.index(), 1 - color.index());
        let king = self.kings[them];
        let safe = !self.pos.color(color) & !self.attacked[them];
        let diagonal = bishop_attacks(king, self.occupied);
        let straight = rook_attacks(king, self.occupied);
        let by = &self.attacked_by[us];
        [
            (by[1] & knight_attacks(king) & safe).len() as i32,
            (by[2] & diagonal & safe).len() as i32,
            (by[3] & straight & safe).len() as i32,
            (by[4] & (diagonal | straight) & safe).len() as i32,
        ]
    }

    /// `color`'s threats in layout order: by pawn on knight, bishop, rook, queen; by minor on
    /// the same; rook on queen; hanging pieces; weak pawns; pawn-push threats.
    #[inline(always)]
    fn threats(&self, color: Color) -> [i32; 12] {
        let (us, them) = (color.index(), 1 - color.index());
        let victim = |kind: PieceKind| self.pos.colored(!color, kind);
        let pieces = self.pos.color(!color)
            & !self.pos.pieces(PieceKind::Pawn)
            & !self.pos.pieces(PieceKind::King);
        let by = &self.attacked_by[us];
        let minors = by[1] | by[2];
        let by_pieces = by[1] | by[2] | by[3] | by[4] | by[5];
        let undefended = !self.attacked[them];
        let own_pawns = self.pos.colored(color, PieceKind::Pawn);
        let pushes = own_pawns.forward(color) & !self.occupied & !self.pawn_att[them];
        let push_attacks = pawn_attack_set(color, pushes);
        let mut t = [0i32; 12];
        for (i, kind) in PieceKind::ALL[1..5].iter().enumerate() {
            t[i] = (self.pawn_att[us] & victim(*kind)).len() as i32;
            t[4 + i] = (minors & victim(*kind)).len() as i32;
        }
        t[8] = (by[3] & victim(PieceKind::Queen)).len() as i32;
        t[9] = (self.attacked[us] & undefended & pieces).len() as i32;
        t[10] = (by_pieces & undefended & victim(PieceKind::Pawn)).len() as i32;
        t[11] = (push_attacks & pieces).len() as i32;
        t
    }

    /// For `color`'s passed pawns, by relative rank 2..7: the own king's distance to the square
    /// in front, the enemy king's, and whether that square is free (empty, not attacked).
    #[inline(always)]
    fn passers(&self, color: Color, passers: Bitboard) -> [[i32; 6]; 3] {
        let (us, them) = (color.index(), 1 - color.index());
        let mut p = [[0i32; 6]; 3];
        for sq in passers {
            let rel_rank = (sq.index() / 8) ^ if color == Color::White { 0 } else { 7 };
            let Some(front) = Bitboard::from_square(sq).forward(color).first() else {
                continue;
            };
            p[0][rel_rank - 1] += distance(self.kings[us], front);
            p[1][rel_rank - 1] += distance(self.kings[them], front);
            let free = !self.occupied.has(front) && !self.attacked[them].has(front);
            p[2][rel_rank - 1] += free as i32;
        }
        p
    }
}

/// King steps between two squares.
#[inline(always)]
fn distance(a: crate::board::Square, b: crate::board::Square) -> i32 {
    let (a, b) = (a.index() as i32, b.index() as i32);
    ((a % 8 - b % 8).abs()).max((a / 8 - b / 8).abs())
}
