//! The evaluation walk: every term visited once per position, each applied weight reported to an
//! `Accumulator` as (parameter index, White-minus-Black count). Scoring and tracing share it, so
//! the tuner always fits exactly the function the search uses.

use super::params::layout::*;
use super::params::EvalParams;
use super::pawn_table::{PawnTable, PawnTerms};
use super::{Accumulator, ScoreAccumulator, MAX_PHASE};
use crate::board::attacks::{
    bishop_attacks, king_attacks, knight_attacks, line, pawn_attacks, queen_attacks, rook_attacks,
};
use crate::board::{Bitboard, Color, PieceKind, Position, Square};

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

/// King-danger units per zone square a knight, bishop, rook or queen attacks (fixed: they
/// define the one-hot index of `KING_DANGER`, they are not tuned).
const DANGER_ZONE_UNITS: [i32; 4] = [2, 2, 3, 5];
/// King-danger units per safe check of a knight, bishop, rook or queen.
const DANGER_CHECK_UNITS: [i32; 4] = [3, 3, 4, 4];
/// 3 fills every bucket 1..=15 on game positions (4 leaves one empty) with 0.4 % at the top.
const DANGER_DIVISOR: i32 = 3;

/// The king-danger bucket of a side from its zone attacks per kind (`king_att`), safe checks
/// per kind, the number of its pieces attacking the zone and whether it has a queen. A lone
/// attacker or an attack without the queen is rarely dangerous: bucket 0.
#[inline(always)]
fn danger_bucket(king_att: &[i32; 4], checks: &[i32; 4], attackers: i32, has_queen: bool) -> usize {
    if attackers < 2 || !has_queen {
        return 0;
    }
    let mut units = 0;
    for k in 0..4 {
        units += DANGER_ZONE_UNITS[k] * king_att[k] + DANGER_CHECK_UNITS[k] * checks[k];
    }
    ((units / DANGER_DIVISOR) as usize).min(KING_DANGER_BUCKETS - 1)
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
    let board = Board::new(pos);
    let passers = board.pawn_structure(params, acc);
    walk_pieces(&board, params, acc, passers)
}

/// `evaluate_with` summing into `acc`, with the pawn-structure terms taken from `table` when
/// it holds them (and stored there when it does not): the same sums, fewer pawn walks.
#[inline(always)]
pub(crate) fn evaluate_with_table(
    pos: &Position,
    params: &EvalParams,
    table: &mut PawnTable,
    acc: &mut ScoreAccumulator,
) -> i32 {
    let board = Board::new(pos);
    let terms = match table.probe(board.pawns) {
        Some(terms) => terms,
        None => {
            let mut pawns = ScoreAccumulator::default();
            let passers = board.pawn_structure(params, &mut pawns);
            let terms = PawnTerms {
                mg: pawns.mg,
                eg: pawns.eg,
                passers,
            };
            table.store(board.pawns, terms);
            terms
        }
    };
    acc.mg += terms.mg;
    acc.eg += terms.eg;
    walk_pieces(&board, params, acc, terms.passers)
}

/// Everything but the pawn structure: pieces, kings, material, tempo and the two-sided terms,
/// given each side's passed pawns. Returns the phase.
#[inline(always)]
fn walk_pieces<A: Accumulator>(
    board: &Board,
    params: &EvalParams,
    acc: &mut A,
    passers: [Bitboard; 2],
) -> i32 {
    let w: &[(i32, i32)] = &params.weights;
    let mut add = |index: usize, count: i32| acc.add(index, count, w[index]);
    let mut sides = [SideCounts::default(); 2];
    for color in Color::ALL {
        let side = &mut sides[color.index()];
        side.passers = passers[color.index()];
        board.pieces(color, side, &mut add);
        board.king(color, side, &mut add);
    }
    material(board.pos, &mut add);
    report_structure(&sides, &mut add);
    add(TEMPO, board.pos.side_to_move().sign());
    report_two_sided(board, &sides, &mut add);
    report_piece_placement(&sides, &mut add);

    phase(board.pos)
}

/// Facts about the position that both sides' walks read, computed once.
struct Board<'a> {
    pos: &'a Position,
    occupied: Bitboard,
    pawns: [Bitboard; 2],
    /// Squares each side's pawns attack.
    pawn_att: [Bitboard; 2],
    /// Files (bit f for file f) holding each side's pawns.
    pawn_files: [u32; 2],
    kings: [Square; 2],
    /// Each king's square and its neighbours: the zone attacks on the king are counted in.
    zones: [Bitboard; 2],
}

/// One side's counts of the terms reported as a White-minus-Black difference after the walk,
/// and the attacks the two-sided terms (threats, safe checks, free passers) read.
#[derive(Clone, Copy, Default)]
struct SideCounts {
    rook_open: i32,
    rook_half_open: i32,
    /// Own pawns one and two ranks in front of the king.
    shield: [i32; 2],
    king_open: i32,
    /// Attacked enemy king-zone squares per attacker kind (knight, bishop, rook, queen).
    king_att: [i32; 4],
    /// Knights, bishops, rooks and queens attacking at least one enemy king-zone square.
    zone_attackers: i32,
    /// Squares attacked per piece kind (pawn..king).
    attacked_by: [Bitboard; 6],
    passers: Bitboard,
    /// Knight and bishop outposts.
    outposts: [i32; 2],
    rook_seventh: i32,
    minor_behind_pawn: i32,
}

impl<'a> Board<'a> {
    #[inline(always)]
    fn new(pos: &'a Position) -> Self {
        let pawns = [
            pos.colored(Color::White, PieceKind::Pawn),
            pos.colored(Color::Black, PieceKind::Pawn),
        ];
        let kings = [pos.king_square(Color::White), pos.king_square(Color::Black)];
        Board {
            pos,
            occupied: pos.occupied(),
            pawns,
            pawn_att: [
                pawn_attack_set(Color::White, pawns[0]),
                pawn_attack_set(Color::Black, pawns[1]),
            ],
            pawn_files: [file_set(pawns[0]), file_set(pawns[1])],
            kings,
            zones: [
                king_attacks(kings[0]).with(kings[0]),
                king_attacks(kings[1]).with(kings[1]),
            ],
        }
    }

    /// Both sides' pawn-structure terms (the pawns' part only: a pawn table caches it by
    /// the pawns alone). Returns each side's passed pawns.
    #[inline(always)]
    fn pawn_structure<A: Accumulator>(&self, params: &EvalParams, acc: &mut A) -> [Bitboard; 2] {
        let w: &[(i32, i32)] = &params.weights;
        let mut add = |index: usize, count: i32| acc.add(index, count, w[index]);
        Color::ALL.map(|color| self.pawns(color, &mut add))
    }

    /// `color`'s pawns: placement, passed and connected pawns by rank, doubled, isolated and
    /// backward pawns. Returns the passed pawns.
    #[inline(always)]
    fn pawns(&self, color: Color, add: &mut impl FnMut(usize, i32)) -> Bitboard {
        let (us, them) = (color.index(), 1 - color.index());
        let sign = color.sign();
        let flip = mirror(color);
        let own_pawns = self.pawns[us];
        let (mut doubled, mut isolated, mut backward) = (0, 0, 0);
        let mut passers = Bitboard::EMPTY;
        for sq in own_pawns {
            let s = sq.index();
            let file = s % 8;
            let rank = s / 8;
            let rel_rank = rank ^ (flip >> 3);
            add(PST + (s ^ flip), sign);

            let neighbours = own_pawns & adjacent_files(file);
            let is_doubled = own_pawns.0 & FORWARD_FILE[us][s] != 0;
            doubled += is_doubled as i32;
            isolated += neighbours.is_empty() as i32;
            if !is_doubled && self.pawns[them].0 & PASSED_SPAN[us][s] == 0 {
                add(PASSED + rel_rank - 1, sign);
                passers = passers.with(sq);
            }
            let supported = (pawn_attacks(!color, sq) & own_pawns).is_nonempty();
            let phalanx = (neighbours & Bitboard::rank(sq.rank())).is_nonempty();
            if supported || phalanx {
                add(CONNECTED + rel_rank - 1, sign);
            }
            // Backward: has neighbours, but all of them ahead, and cannot advance safely.
            if neighbours.is_nonempty()
                && (neighbours & at_or_behind(color, rank)).is_empty()
                && (Bitboard::from_square(sq).forward(color) & self.pawn_att[them]).is_nonempty()
            {
                backward += 1;
            }
        }
        add(DOUBLED, sign * doubled);
        add(ISOLATED, sign * isolated);
        add(BACKWARD, sign * backward);
        passers
    }

    /// `color`'s knights, bishops, rooks and queens: placement, mobility over safe squares,
    /// king-zone attacks, and the minor- and rook-specific terms.
    #[inline(always)]
    fn pieces(&self, color: Color, side: &mut SideCounts, add: &mut impl FnMut(usize, i32)) {
        let occupied = self.occupied;
        let them = 1 - color.index();
        let mobility = Mobility {
            color,
            safe: !self.pos.color(color) & !self.pawn_att[them],
            pinned: self.pos.pinned(color),
            king: self.kings[color.index()],
            enemy_zone: self.zones[them],
        };
        // One call per kind with the attack function spelled out, so each is inlined.
        for sq in self.pos.colored(color, PieceKind::Knight) {
            mobility.piece(PieceKind::Knight, sq, knight_attacks(sq), side, add);
            self.minor(color, sq, 0, side);
        }
        for sq in self.pos.colored(color, PieceKind::Bishop) {
            mobility.piece(
                PieceKind::Bishop,
                sq,
                bishop_attacks(sq, occupied),
                side,
                add,
            );
            self.minor(color, sq, 1, side);
        }
        for sq in self.pos.colored(color, PieceKind::Rook) {
            mobility.piece(PieceKind::Rook, sq, rook_attacks(sq, occupied), side, add);
            self.rook(color, sq, side);
        }
        for sq in self.pos.colored(color, PieceKind::Queen) {
            mobility.piece(PieceKind::Queen, sq, queen_attacks(sq, occupied), side, add);
        }
    }

    /// A knight (`minor` 0) or bishop (1) of `color` on `sq`: outposts (on relative ranks
    /// 4–6, pawn-supported, no enemy pawn able to chase it) and minors shielded by a pawn.
    #[inline(always)]
    fn minor(&self, color: Color, sq: Square, minor: usize, side: &mut SideCounts) {
        let (us, them) = (color.index(), 1 - color.index());
        let s = sq.index();
        let rel_rank = (s / 8) ^ (mirror(color) >> 3);
        let reachable = PASSED_SPAN[us][s] & adjacent_files(s % 8).0;
        if (3..=5).contains(&rel_rank)
            && self.pawn_att[us].has(sq)
            && self.pawns[them].0 & reachable == 0
        {
            side.outposts[minor] += 1;
        }
        let ahead = Bitboard::from_square(sq).forward(color);
        side.minor_behind_pawn += (ahead & self.pawns[us]).is_nonempty() as i32;
    }

    /// A rook of `color` on `sq`: on the seventh rank, on an open or half-open file.
    #[inline(always)]
    fn rook(&self, color: Color, sq: Square, side: &mut SideCounts) {
        if (sq.index() / 8) ^ (mirror(color) >> 3) == 6 {
            side.rook_seventh += 1;
        }
        let file_bit = 1 << sq.file().index();
        if (self.pawn_files[0] | self.pawn_files[1]) & file_bit == 0 {
            side.rook_open += 1;
        } else if self.pawn_files[color.index()] & file_bit == 0 {
            side.rook_half_open += 1;
        }
    }

    /// `color`'s king: placement, pawn shield, open files around it; records the king's and
    /// pawns' attacks for the two-sided terms.
    #[inline(always)]
    fn king(&self, color: Color, side: &mut SideCounts, add: &mut impl FnMut(usize, i32)) {
        let us = color.index();
        let king = self.kings[us];
        let own_pawns = self.pawns[us];
        add(
            PST + 64 * PieceKind::King.index() + (king.index() ^ mirror(color)),
            color.sign(),
        );
        side.attacked_by[PieceKind::Pawn.index()] = self.pawn_att[us];
        side.attacked_by[PieceKind::King.index()] = king_attacks(king);
        let king_bb = Bitboard::from_square(king);
        let near = (king_bb | king_bb.west() | king_bb.east()).forward(color);
        side.shield[0] = (near & own_pawns).len() as i32;
        side.shield[1] = (near.forward(color) & own_pawns).len() as i32;
        let king_file = 1u32 << king.file().index();
        let king_files = (king_file | king_file << 1 | king_file >> 1) & 0xFF;
        side.king_open = (king_files & !self.pawn_files[us]).count_ones() as i32;
    }
}

/// What every non-pawn, non-king piece of one side shares: where it may move safely, which
/// pieces are pinned to the king, and the enemy king zone.
struct Mobility {
    color: Color,
    /// Squares neither own-occupied nor attacked by enemy pawns.
    safe: Bitboard,
    pinned: Bitboard,
    king: Square,
    enemy_zone: Bitboard,
}

impl Mobility {
    /// A `kind` piece on `sq` attacking `targets`: placement, king-zone attacks, and mobility
    /// (a pinned piece moves only along the pin).
    #[inline(always)]
    fn piece(
        &self,
        kind: PieceKind,
        sq: Square,
        mut targets: Bitboard,
        side: &mut SideCounts,
        add: &mut impl FnMut(usize, i32),
    ) {
        let k = kind.index();
        let sign = self.color.sign();
        add(PST + 64 * k + (sq.index() ^ mirror(self.color)), sign);
        let zone_hits = (targets & self.enemy_zone).len() as i32;
        side.king_att[k - 1] += zone_hits;
        side.zone_attackers += (zone_hits != 0) as i32;
        if self.pinned.has(sq) {
            targets &= line(self.king, sq);
        }
        side.attacked_by[k] |= targets;
        add(MOBILITY[k] + (targets & self.safe).len() as usize, sign);
    }
}

/// Black reads the square tables with the square mirrored top to bottom (xor 56).
#[inline(always)]
fn mirror(color: Color) -> usize {
    if color == Color::White {
        0
    } else {
        56
    }
}

/// Material per kind (pawn..queen) and the bishop pair.
#[inline(always)]
fn material(pos: &Position, add: &mut impl FnMut(usize, i32)) {
    for kind in &PieceKind::ALL[..5] {
        let count = |c| pos.colored(c, *kind).len() as i32;
        add(
            MATERIAL + kind.index(),
            count(Color::White) - count(Color::Black),
        );
    }
    let pair = |c| (pos.colored(c, PieceKind::Bishop).len() >= 2) as i32;
    add(BISHOP_PAIR, pair(Color::White) - pair(Color::Black));
}

/// Reports `white - black` for each term of a run of consecutive parameters from `offset`.
#[inline(always)]
fn add_diffs(add: &mut impl FnMut(usize, i32), offset: usize, white: &[i32], black: &[i32]) {
    for (i, (w, b)) in white.iter().zip(black).enumerate() {
        add(offset + i, w - b);
    }
}

/// The rook-file and king-safety counts of the walk.
#[inline(always)]
fn report_structure(sides: &[SideCounts; 2], add: &mut impl FnMut(usize, i32)) {
    let [white, black] = sides;
    add(ROOK_OPEN_FILE, white.rook_open - black.rook_open);
    add(
        ROOK_HALF_OPEN_FILE,
        white.rook_half_open - black.rook_half_open,
    );
    add(KING_SHIELD, white.shield[0] - black.shield[0]);
    add(KING_SHIELD + 1, white.shield[1] - black.shield[1]);
    add(KING_OPEN_FILE, white.king_open - black.king_open);
    add_diffs(add, KING_ATTACKS, &white.king_att, &black.king_att);
}

/// The terms that read both sides' attacks: safe checks, king danger, threats, passed-pawn
/// king distances and free passers.
#[inline(always)]
fn report_two_sided(board: &Board, sides: &[SideCounts; 2], add: &mut impl FnMut(usize, i32)) {
    let walk = TwoSided {
        pos: board.pos,
        occupied: board.occupied,
        kings: board.kings,
        pawn_att: board.pawn_att,
        attacked_by: sides.map(|s| s.attacked_by),
        attacked: sides.map(|s| {
            s.attacked_by
                .iter()
                .fold(Bitboard::EMPTY, |all, &b| all | b)
        }),
    };
    let mut checks = [[0i32; 4]; 2];
    let mut threats = [[0i32; 12]; 2];
    let mut passed = [[[0i32; 6]; 3]; 2];
    for color in Color::ALL {
        let us = color.index();
        checks[us] = walk.safe_checks(color);
        threats[us] = walk.threats(color);
        passed[us] = walk.passers(color, sides[us].passers);
    }
    add_diffs(add, SAFE_CHECKS, &checks[0], &checks[1]);
    let danger = Color::ALL.map(|color| {
        let side = &sides[color.index()];
        let has_queen = board.pos.colored(color, PieceKind::Queen).is_nonempty();
        danger_bucket(
            &side.king_att,
            &checks[color.index()],
            side.zone_attackers,
            has_queen,
        )
    });
    // One bucket per side; equal buckets cancel, so skip them (mostly both 0).
    if danger[0] != danger[1] {
        add(KING_DANGER + danger[0], 1);
        add(KING_DANGER + danger[1], -1);
    }
    // Layout order: by_pawn (4), by_minor (4), rook_on_queen, hanging, weak_pawn, pawn_push.
    add_diffs(add, THREAT_BY_PAWN, &threats[0], &threats[1]);
    for (term, offset) in [PASSED_OWN_KING, PASSED_ENEMY_KING, PASSED_FREE]
        .into_iter()
        .enumerate()
    {
        add_diffs(add, offset, &passed[0][term], &passed[1][term]);
    }
}

/// Outposts, rooks on the seventh and minors behind a pawn.
#[inline(always)]
fn report_piece_placement(sides: &[SideCounts; 2], add: &mut impl FnMut(usize, i32)) {
    let [white, black] = sides;
    add_diffs(add, OUTPOST, &white.outposts, &black.outposts);
    add(ROOK_SEVENTH, white.rook_seventh - black.rook_seventh);
    add(
        MINOR_BEHIND_PAWN,
        white.minor_behind_pawn - black.minor_behind_pawn,
    );
}

/// What the terms that read both sides' attacks need, gathered by the walk.
struct TwoSided<'a> {
    pos: &'a Position,
    occupied: Bitboard,
    kings: [Square; 2],
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
fn distance(a: Square, b: Square) -> i32 {
    let (a, b) = (a.index() as i32, b.index() as i32);
    ((a % 8 - b % 8).abs()).max((a / 8 - b / 8).abs())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::trace;

    /// White's king-danger bucket in `fen`, read from its trace; Black must have no attack
    /// (bucket 0), so White's bucket shows as +1 there and -1 on bucket 0, or not at all.
    fn white_bucket(fen: &str) -> usize {
        let pos = Position::from_fen(fen).unwrap();
        let t = trace(&pos, &EvalParams::zeroed());
        let danger: Vec<(usize, i16)> = t
            .coefficients
            .iter()
            .filter(|&&(i, _)| (KING_DANGER..NUM_PARAMS).contains(&(i as usize)))
            .map(|&(i, c)| (i as usize - KING_DANGER, c))
            .collect();
        match danger[..] {
            [] => 0,
            [(0, -1), (bucket, 1)] => bucket,
            _ => panic!("{fen}: {danger:?}"),
        }
    }

    #[test]
    fn danger_buckets_need_two_attackers_and_a_queen_and_grow_with_the_attack() {
        // Black: king g8 behind f7 g7 h7 (zone f8 g8 h8 f7 g7 h7), nothing to attack with.
        // Qh5 alone hits f7 and h7: a lone attacker, bucket 0 whatever its units.
        assert_eq!(white_bucket("6k1/5ppp/8/7Q/8/8/8/6K1 w - - 0 1"), 0);
        // Ng5 joins (f7, h7): 5 x 2 + 2 x 2 = 14 units, no safe check (f7, h7 are guarded).
        let two = white_bucket("6k1/5ppp/8/6NQ/8/8/8/6K1 w - - 0 1");
        assert_eq!(two, 14 / DANGER_DIVISOR as usize);
        // Bb3 adds f7: 16 units.
        let three = white_bucket("6k1/5ppp/8/6NQ/8/1B6/8/6K1 w - - 0 1");
        assert_eq!(three, 16 / DANGER_DIVISOR as usize);
        // Re1 attacks no zone square but checks safely on e8: 14 + 4 units.
        let check = white_bucket("6k1/5ppp/8/6NQ/8/8/8/4R1K1 w - - 0 1");
        assert_eq!(check, 18 / DANGER_DIVISOR as usize);
        assert!(
            0 < two && two < three && three < check,
            "{two} {three} {check}"
        );
        // The same two attackers without the queen: bucket 0.
        assert_eq!(white_bucket("6k1/5ppp/8/6NR/8/8/8/6K1 w - - 0 1"), 0);
    }

    #[test]
    fn danger_bucket_rules() {
        let queen_rook = [0, 0, 2, 3];
        assert_eq!(danger_bucket(&queen_rook, &[0; 4], 1, true), 0);
        assert_eq!(danger_bucket(&queen_rook, &[0; 4], 2, false), 0);
        let units = 3 * 2 + 5 * 3 + 4;
        assert_eq!(
            danger_bucket(&queen_rook, &[0, 0, 1, 0], 2, true),
            (units / DANGER_DIVISOR) as usize
        );
        // Everything at once lands in the top bucket.
        let most = danger_bucket(&[20, 30, 40, 54], &[8, 13, 14, 27], 30, true);
        assert_eq!(most, KING_DANGER_BUCKETS - 1);
    }

    #[test]
    fn the_weights_file_comment_states_the_fixed_units() {
        let term = super::super::params::TERMS
            .iter()
            .find(|t| t.path == "king_safety.danger")
            .unwrap();
        let doc = term.doc.replace('\n', " ");
        let zone = DANGER_ZONE_UNITS;
        let check = DANGER_CHECK_UNITS;
        for stated in [
            format!(
                "{}, {}, {} or {} per zone square",
                zone[0], zone[1], zone[2], zone[3]
            ),
            format!(
                "{}, {}, {} or {} per safe check",
                check[0], check[1], check[2], check[3]
            ),
            format!(
                "units / {DANGER_DIVISOR}, at most {}",
                KING_DANGER_BUCKETS - 1
            ),
        ] {
            assert!(doc.contains(&stated), "{stated} in: {doc}");
        }
    }
}
