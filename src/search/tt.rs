//! The transposition table: one 16-byte entry per slot, sized in megabytes, indexed by a
//! multiply-shift of the key so any size works.

use crate::board::Move;

/// What a stored score means relative to the true value.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Bound {
    /// The true score is at most this (every move failed low).
    Upper = 1,
    /// The true score is at least this (a move failed high).
    Lower = 2,
    Exact = 3,
}

impl Bound {
    /// The bound a search result proves, given the window `(alpha, beta)` it was searched with.
    #[inline]
    pub fn of(score: i32, alpha: i32, beta: i32) -> Bound {
        if score >= beta {
            Bound::Lower
        } else if score > alpha {
            Bound::Exact
        } else {
            Bound::Upper
        }
    }

    /// Whether a stored score with this bound settles a search with window `(alpha, beta)`.
    #[inline]
    pub fn settles(self, score: i32, alpha: i32, beta: i32) -> bool {
        match self {
            Bound::Exact => true,
            Bound::Lower => score >= beta,
            Bound::Upper => score <= alpha,
        }
    }
}

#[derive(Copy, Clone, Default)]
#[repr(C)]
struct Slot {
    key: u64,
    mv: u16,
    score: i16,
    eval: i16,
    depth: u8,
    /// Bound in the low 2 bits, search generation in the upper 6.
    flags: u8,
}

/// A probe hit.
#[derive(Copy, Clone, Debug)]
pub struct TtEntry {
    pub mv: Move,
    pub score: i32,
    pub eval: i32,
    pub depth: i32,
    pub bound: Bound,
}

pub struct TranspositionTable {
    slots: Vec<Slot>,
    generation: u8,
}

impl TranspositionTable {
    pub fn new(megabytes: usize) -> TranspositionTable {
        let count = (megabytes.max(1) << 20) / std::mem::size_of::<Slot>();
        TranspositionTable {
            slots: vec![Slot::default(); count],
            generation: 0,
        }
    }

    pub fn clear(&mut self) {
        self.slots.fill(Slot::default());
        self.generation = 0;
    }

    /// Called once per search so that older entries are replaced first.
    pub fn new_search(&mut self) {
        self.generation = (self.generation + 1) & 63;
    }

    #[inline(always)]
    fn index(&self, key: u64) -> usize {
        ((key as u128 * self.slots.len() as u128) >> 64) as usize
    }

    /// Starts loading the slot of `key` into cache; called right after a move is made so that the
    /// child's probe finds it there.
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let slot: *const Slot = &self.slots[self.index(key)];
            // SAFETY: prefetching is a hint; the address is that of a live slot.
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                    slot as *const i8,
                )
            };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    #[inline]
    pub fn probe(&self, key: u64) -> Option<TtEntry> {
        let slot = &self.slots[self.index(key)];
        if slot.key != key || slot.flags & 3 == 0 {
            return None;
        }
        let bound = match slot.flags & 3 {
            1 => Bound::Upper,
            2 => Bound::Lower,
            _ => Bound::Exact,
        };
        Some(TtEntry {
            mv: Move::from_bits(slot.mv),
            score: slot.score as i32,
            eval: slot.eval as i32,
            depth: slot.depth as i32,
            bound,
        })
    }

    /// Stores a result. Scores must already be made ply-independent by the caller (mate scores).
    /// An entry of the same position keeps its move if the new result has none; a different
    /// position replaces it when the old entry is from an earlier search or not deeper.
    #[inline]
    pub fn store(&mut self, key: u64, mv: Move, score: i32, eval: i32, depth: i32, bound: Bound) {
        let generation = self.generation;
        let index = self.index(key);
        let slot = &mut self.slots[index];
        let same = slot.key == key;
        let old_generation = slot.flags >> 2;
        if !same
            && old_generation == generation
            && slot.depth as i32 > depth + 2
            && bound != Bound::Exact
        {
            return;
        }
        let mv = if mv.is_null() && same {
            Move::from_bits(slot.mv)
        } else {
            mv
        };
        *slot = Slot {
            key,
            mv: mv.bits(),
            score: score.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
            eval: eval.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
            depth: depth.clamp(0, 255) as u8,
            flags: generation << 2 | bound as u8,
        };
    }

    /// Permille of a sample of slots holding entries of the current search (UCI `hashfull`).
    pub fn hashfull(&self) -> u32 {
        let sample = self.slots.len().min(1000);
        let used = self.slots[..sample]
            .iter()
            .filter(|s| s.flags & 3 != 0 && s.flags >> 2 == self.generation)
            .count();
        (used * 1000 / sample.max(1)) as u32
    }
}
