//! A cache of the pawn-structure terms for the search. Pawn structures change on few moves, so
//! most evaluations find their pawn terms here instead of walking every pawn again. Entries are
//! keyed by both sides' pawn bitboards in full, so a hit is never a collision; the terms
//! themselves are still computed by the one walk in `terms.rs` (the tuner's too).

use crate::board::Bitboard;

/// Entries in a table: 8,192 of 32 bytes, 256 KB, within a core's L2 cache.
const ENTRIES: usize = 1 << 13;

/// One pawn structure's summed terms: both sides' pawns, their middlegame and endgame score
/// (White's view) and both sides' passed pawns.
#[derive(Clone, Copy, Default)]
struct PawnEntry {
    pawns: [u64; 2],
    mg: i32,
    eg: i32,
    /// Both sides' passed pawns in one set (each side's are among its own pawns).
    passers: u64,
}

/// The pawn-structure terms of recently evaluated structures, for one set of weights: a
/// searcher owns one and clears it when its weights change.
///
/// The empty entry is the structure without pawns, whose terms are all zero: a fresh table
/// answers it correctly.
#[derive(Clone)]
pub struct PawnTable {
    entries: Box<[PawnEntry]>,
}

/// What a table holds for a pawn structure: the pawn terms' middlegame and endgame sums
/// (White's view) and each side's passed pawns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PawnTerms {
    /// Middlegame sum in centipawns, White's view.
    pub mg: i32,
    /// Endgame sum in centipawns, White's view.
    pub eg: i32,
    /// White's and Black's passed pawns.
    pub passers: [Bitboard; 2],
}

impl Default for PawnTable {
    fn default() -> Self {
        PawnTable::new()
    }
}

impl PawnTable {
    /// An empty table.
    pub fn new() -> PawnTable {
        PawnTable {
            entries: vec![PawnEntry::default(); ENTRIES].into_boxed_slice(),
        }
    }

    /// Forgets every entry (the weights changed).
    pub fn clear(&mut self) {
        self.entries.fill(PawnEntry::default());
    }

    /// The slot of a structure: a multiplicative hash of both bitboards.
    #[inline(always)]
    fn slot(pawns: [Bitboard; 2]) -> usize {
        let mixed = (pawns[0].0 ^ pawns[1].0.rotate_left(29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (mixed >> (64 - ENTRIES.trailing_zeros())) as usize
    }

    /// The stored terms of this structure, if it is the one in its slot.
    #[inline(always)]
    pub fn probe(&self, pawns: [Bitboard; 2]) -> Option<PawnTerms> {
        let e = &self.entries[Self::slot(pawns)];
        (e.pawns == [pawns[0].0, pawns[1].0]).then(|| PawnTerms {
            mg: e.mg,
            eg: e.eg,
            passers: [
                Bitboard(e.passers & pawns[0].0),
                Bitboard(e.passers & pawns[1].0),
            ],
        })
    }

    /// Stores the terms of this structure, replacing what its slot held.
    #[inline(always)]
    pub fn store(&mut self, pawns: [Bitboard; 2], terms: PawnTerms) {
        self.entries[Self::slot(pawns)] = PawnEntry {
            pawns: [pawns[0].0, pawns[1].0],
            mg: terms.mg,
            eg: terms.eg,
            passers: terms.passers[0].0 | terms.passers[1].0,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_structure_is_found_and_a_different_one_in_its_slot_is_not() {
        let mut table = PawnTable::new();
        let pawns = [Bitboard(0xFF00), Bitboard(0x00FF_0000_0000_0000)];
        assert_eq!(table.probe(pawns), None);
        let terms = PawnTerms {
            mg: 12,
            eg: -7,
            passers: [Bitboard(0x0100), Bitboard(0)],
        };
        table.store(pawns, terms);
        assert_eq!(table.probe(pawns), Some(terms));
        // The same slot, another structure: refused, never mistaken for the stored one.
        let mut other = pawns;
        loop {
            other[0].0 = other[0]
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            if PawnTable::slot(other) == PawnTable::slot(pawns) && other != pawns {
                break;
            }
        }
        assert_eq!(table.probe(other), None);
        // No pawns at all: the empty slot answers with zero terms.
        let none = [Bitboard(0), Bitboard(0)];
        let empty = PawnTable::new().probe(none).unwrap();
        assert_eq!((empty.mg, empty.eg, empty.passers), (0, 0, none));
        table.clear();
        assert_eq!(table.probe(pawns), None);
    }
}
