//! Attack tables: leapers and square-pair lines computed by `const fn` at compile time, sliders by
//! fancy magic bitboards whose tables `build.rs` generates.

use super::bitboard::Bitboard;
use super::types::{Color, Square};

/// One square's magic: the relevant blocker mask, the multiplier, the shift and where its slice of
/// the shared table starts.
pub(crate) struct Magic {
    mask: u64,
    magic: u64,
    shift: u32,
    offset: usize,
}

include!(concat!(env!("OUT_DIR"), "/magics.rs"));

#[inline(always)]
fn magic_index(m: &Magic, occupied: Bitboard) -> usize {
    m.offset + ((occupied.0 & m.mask).wrapping_mul(m.magic) >> m.shift) as usize
}

/// The squares a rook on `sq` attacks; each ray stops at, and includes, the first square set
/// in `occupied`.
#[inline(always)]
pub fn rook_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    Bitboard(SLIDER_ATTACKS[magic_index(&ROOK_MAGICS[sq.index()], occupied)])
}

/// The squares a bishop on `sq` attacks; each ray stops at, and includes, the first square set
/// in `occupied`.
#[inline(always)]
pub fn bishop_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    Bitboard(SLIDER_ATTACKS[magic_index(&BISHOP_MAGICS[sq.index()], occupied)])
}

/// The squares a queen on `sq` attacks: rook and bishop attacks with `occupied` as the blockers.
#[inline(always)]
pub fn queen_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    rook_attacks(sq, occupied) | bishop_attacks(sq, occupied)
}

/// The squares a knight on `sq` attacks.
#[inline(always)]
pub fn knight_attacks(sq: Square) -> Bitboard {
    Bitboard(KNIGHT[sq.index()])
}

/// The squares a king on `sq` attacks (one step in any direction; castling not included).
#[inline(always)]
pub fn king_attacks(sq: Square) -> Bitboard {
    Bitboard(KING[sq.index()])
}

/// The squares a pawn of `color` on `sq` attacks.
#[inline(always)]
pub fn pawn_attacks(color: Color, sq: Square) -> Bitboard {
    Bitboard(PAWN[color.index()][sq.index()])
}

/// The squares strictly between two squares on a common line (empty if not aligned).
#[inline(always)]
pub fn between(a: Square, b: Square) -> Bitboard {
    Bitboard(BETWEEN[a.index()][b.index()])
}

/// The whole line (edge to edge) through two aligned squares, or empty if they are not aligned.
#[inline(always)]
pub fn line(a: Square, b: Square) -> Bitboard {
    Bitboard(LINE[a.index()][b.index()])
}

const fn leaper_table(deltas: &[(i32, i32)]) -> [u64; 64] {
    let mut table = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let (f, r) = ((sq % 8) as i32, (sq / 8) as i32);
        let mut i = 0;
        while i < deltas.len() {
            let (nf, nr) = (f + deltas[i].0, r + deltas[i].1);
            if nf >= 0 && nf < 8 && nr >= 0 && nr < 8 {
                table[sq] |= 1 << (nr * 8 + nf);
            }
            i += 1;
        }
        sq += 1;
    }
    table
}

static KNIGHT: [u64; 64] = leaper_table(&[
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
]);
static KING: [u64; 64] = leaper_table(&[
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
]);
static PAWN: [[u64; 64]; 2] = [
    leaper_table(&[(-1, 1), (1, 1)]),
    leaper_table(&[(-1, -1), (1, -1)]),
];

/// Direction (file step, rank step) from `a` to `b` if they share a rank, file or diagonal.
const fn direction(a: usize, b: usize) -> Option<(i32, i32)> {
    let (af, ar) = ((a % 8) as i32, (a / 8) as i32);
    let (bf, br) = ((b % 8) as i32, (b / 8) as i32);
    let (df, dr) = (bf - af, br - ar);
    if a == b {
        None
    } else if df == 0 || dr == 0 || df == dr || df == -dr {
        Some((df.signum(), dr.signum()))
    } else {
        None
    }
}

const fn line_tables() -> ([[u64; 64]; 64], [[u64; 64]; 64]) {
    let mut between = [[0u64; 64]; 64];
    let mut line = [[0u64; 64]; 64];
    let mut a = 0;
    while a < 64 {
        let mut b = 0;
        while b < 64 {
            if let Some((df, dr)) = direction(a, b) {
                // Squares strictly between a and b.
                let (mut f, mut r) = ((a % 8) as i32 + df, (a / 8) as i32 + dr);
                while (r * 8 + f) as usize != b {
                    between[a][b] |= 1 << (r * 8 + f);
                    f += df;
                    r += dr;
                }
                // The full line: walk both ways from a.
                let mut full = 1u64 << a;
                let mut sign = -1;
                while sign <= 1 {
                    let (mut f, mut r) = ((a % 8) as i32, (a / 8) as i32);
                    loop {
                        f += df * sign;
                        r += dr * sign;
                        if f < 0 || f >= 8 || r < 0 || r >= 8 {
                            break;
                        }
                        full |= 1 << (r * 8 + f);
                    }
                    sign += 2;
                }
                line[a][b] = full;
            }
            b += 1;
        }
        a += 1;
    }
    (between, line)
}

const LINE_TABLES: ([[u64; 64]; 64], [[u64; 64]; 64]) = line_tables();
static BETWEEN: [[u64; 64]; 64] = LINE_TABLES.0;
static LINE: [[u64; 64]; 64] = LINE_TABLES.1;

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        Square::parse(s).unwrap()
    }

    /// Ray walk used as the reference for the magic lookups.
    fn slow_slider(sq: Square, occ: Bitboard, dirs: &[(i32, i32)]) -> Bitboard {
        let mut out = Bitboard::EMPTY;
        for &(df, dr) in dirs {
            let (mut f, mut r) = (sq.file().index() as i32, sq.rank().index() as i32);
            loop {
                f += df;
                r += dr;
                if !(0..8).contains(&f) || !(0..8).contains(&r) {
                    break;
                }
                let s = Square::from_index((r * 8 + f) as usize);
                out = out.with(s);
                if occ.has(s) {
                    break;
                }
            }
        }
        out
    }

    #[test]
    fn magic_lookups_match_ray_walks() {
        let mut x = 0x1234_5678_9abc_def1u64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let occ = Bitboard(x & x.rotate_left(17));
            for s in Square::all() {
                let rook = slow_slider(s, occ, &[(1, 0), (-1, 0), (0, 1), (0, -1)]);
                let bishop = slow_slider(s, occ, &[(1, 1), (1, -1), (-1, 1), (-1, -1)]);
                assert_eq!(rook_attacks(s, occ), rook);
                assert_eq!(bishop_attacks(s, occ), bishop);
            }
        }
    }

    #[test]
    fn leaper_and_line_tables() {
        assert_eq!(knight_attacks(sq("a1")).len(), 2);
        assert_eq!(knight_attacks(sq("e4")).len(), 8);
        assert_eq!(king_attacks(sq("h8")).len(), 3);
        assert_eq!(
            pawn_attacks(Color::White, sq("e4")),
            Bitboard::from(sq("d5")).with(sq("f5"))
        );
        assert_eq!(
            pawn_attacks(Color::Black, sq("a5")),
            Bitboard::from(sq("b4"))
        );
        assert_eq!(
            between(sq("a1"), sq("d4")),
            Bitboard::from(sq("b2")).with(sq("c3"))
        );
        assert_eq!(between(sq("a1"), sq("b3")), Bitboard::EMPTY);
        assert_eq!(line(sq("c3"), sq("e5")).len(), 8);
        assert!(line(sq("a1"), sq("b3")).is_empty());
    }
}
