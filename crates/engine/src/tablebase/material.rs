//! Syzygy table names from material: the name of a position's table (`KRPvKR`) and every table a
//! probe of it may read (captures and promotions lead into smaller or different tables), so a
//! failed probe can name the file that is missing.

use crate::board::{Color, PieceKind, Position};
use std::collections::{BTreeSet, VecDeque};

/// The kinds in the order Syzygy file names list them, after the king.
const NAME_ORDER: [PieceKind; 5] = [
    PieceKind::Queen,
    PieceKind::Rook,
    PieceKind::Bishop,
    PieceKind::Knight,
    PieceKind::Pawn,
];

/// One side's material without its king: counts per kind, indexed by `PieceKind::index`.
type Side = [u8; 5];

/// The material of both sides, White first.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub(crate) struct Material([Side; 2]);

impl Material {
    /// The material on the board.
    pub(crate) fn of(pos: &Position) -> Material {
        let mut sides = [[0u8; 5]; 2];
        for color in Color::ALL {
            for kind in NAME_ORDER {
                sides[color.index()][kind.index()] = pos.colored(color, kind).len() as u8;
            }
        }
        Material(sides)
    }

    /// Pieces on the board, kings included.
    pub(crate) fn count(&self) -> u32 {
        2 + self.0.iter().flatten().map(|&n| n as u32).sum::<u32>()
    }

    /// Only the two kings: no table exists (or is needed) for it.
    fn is_bare_kings(&self) -> bool {
        self.count() == 2
    }

    fn side_name(side: &Side) -> String {
        let mut name = String::from("K");
        for kind in NAME_ORDER {
            let letter = kind.char().to_ascii_uppercase();
            name.extend(std::iter::repeat(letter).take(side[kind.index()] as usize));
        }
        name
    }

    /// A side's weight for ordering the name: the stronger side comes first, as in the files.
    fn side_weight(side: &Side) -> (u8, [u8; 5]) {
        let total = side.iter().sum();
        (total, NAME_ORDER.map(|k| side[k.index()]))
    }

    /// The table's file stem, stronger side first (`KRPvKR`, never `KRvKRP`).
    pub(crate) fn table_name(&self) -> String {
        let [white, black] = &self.0;
        let (first, second) = if Self::side_weight(white) >= Self::side_weight(black) {
            (white, black)
        } else {
            (black, white)
        };
        format!("{}v{}", Self::side_name(first), Self::side_name(second))
    }

    /// Material one capture or one promotion away.
    fn successors(&self) -> Vec<Material> {
        let mut out = Vec::new();
        for side in 0..2 {
            for kind in NAME_ORDER {
                if self.0[side][kind.index()] == 0 {
                    continue;
                }
                let mut captured = *self;
                captured.0[side][kind.index()] -= 1;
                out.push(captured);
                if kind == PieceKind::Pawn {
                    for promoted in PieceKind::PROMOTIONS {
                        let mut next = captured;
                        next.0[side][promoted.index()] += 1;
                        out.push(next);
                    }
                }
            }
        }
        out
    }

    /// Every table a probe of this material may read: its own first, then those reached by
    /// captures and promotions, nearest first (each named once, bare kings left out).
    pub(crate) fn tables_needed(&self) -> Vec<String> {
        let mut seen = BTreeSet::new();
        let mut names = Vec::new();
        let mut queue = VecDeque::from([*self]);
        while let Some(material) = queue.pop_front() {
            if material.is_bare_kings() || !seen.insert(material) {
                continue;
            }
            let name = material.table_name();
            if !names.contains(&name) {
                names.push(name);
            }
            queue.extend(material.successors());
        }
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn material(fen: &str) -> Material {
        Material::of(&Position::from_fen(fen).unwrap())
    }

    #[test]
    fn names_put_the_stronger_side_first_in_file_order() {
        assert_eq!(
            material("8/8/8/8/8/8/4P3/K1k1r2R w - - 0 1").table_name(),
            "KRPvKR"
        );
        assert_eq!(
            material("8/8/8/8/8/8/4p3/K1k1R2r b - - 0 1").table_name(),
            "KRPvKR"
        );
        assert_eq!(
            material("8/8/8/8/8/8/8/K1k1Q2R b - - 0 1").table_name(),
            "KQRvK"
        );
        assert_eq!(
            material("8/8/8/8/8/8/4p3/K1k1R3 b - - 0 1").table_name(),
            "KRvKP"
        );
        assert_eq!(material("8/8/8/8/8/8/8/K1k5 w - - 0 1").count(), 2);
    }

    #[test]
    fn the_tables_a_probe_needs_follow_captures_and_promotions() {
        let needed = material("8/8/8/8/8/8/4P3/K1k1r2R w - - 0 1").tables_needed();
        assert_eq!(needed[0], "KRPvKR");
        for name in [
            "KQRvKR", "KRRvKR", "KRNvKR", "KRvKR", "KRPvK", "KRvKP", "KRvK", "KQvK",
        ] {
            assert!(needed.contains(&name.to_string()), "{name} in {needed:?}");
        }
        assert!(!needed.iter().any(|n| n == "KvK"));
        assert_eq!(
            material("8/8/8/8/8/8/8/K1k1R3 b - - 0 1").tables_needed(),
            ["KRvK"]
        );
    }
}
