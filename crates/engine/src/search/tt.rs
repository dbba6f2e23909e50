//! The transposition table: one 16-byte entry per slot, sized in megabytes, indexed by a
//! multiply-shift of the key so any size works.

use super::TB_WIN_BOUND;
use crate::board::Move;
use crate::error::{ErrorClass, Failure};

/// What a stored score means relative to the true value.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Bound {
    /// The true score is at most this (every move failed low).
    Upper = 1,
    /// The true score is at least this (a move failed high).
    Lower = 2,
    /// The score is exact (it fell inside the window).
    Exact = 3,
}

impl Bound {
    /// The bound a search result proves, given the window `(alpha, beta)` it was searched with.
    #[inline]
    pub(crate) fn of(score: i32, alpha: i32, beta: i32) -> Bound {
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
    pub(crate) fn settles(self, score: i32, alpha: i32, beta: i32) -> bool {
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
pub(crate) struct TtEntry {
    pub mv: Move,
    pub score: i32,
    pub eval: i32,
    pub depth: i32,
    pub bound: Bound,
}

/// Why a transposition table could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TableAllocError {
    /// More than this machine can hold (see `max_hash_mb`).
    #[error("a {requested} MB hash table is more than this machine allows (at most {max} MB)")]
    TooLarge {
        /// Megabytes asked for.
        requested: usize,
        /// `max_hash_mb()`.
        max: usize,
    },
    /// The allocator refused the memory.
    #[error("cannot allocate a {megabytes} MB hash table: out of memory")]
    OutOfMemory {
        /// Megabytes asked for.
        megabytes: usize,
    },
}

impl ErrorClass for TableAllocError {
    fn class(&self) -> Failure {
        match self {
            TableAllocError::TooLarge { .. } => Failure::BadInput,
            TableAllocError::OutOfMemory { .. } => Failure::FailedRun,
        }
    }
}

/// Hash sizes above this are refused whatever the machine (64 GiB).
const HASH_CAP_MB: usize = 65_536;
/// The maximum when the physical memory cannot be read.
const FALLBACK_MAX_HASH_MB: usize = 1024;

/// The largest hash table, in megabytes, this machine can have: half its physical memory, at
/// most 64 GiB. Match runners check a configured size against it before the first game.
pub fn max_hash_mb() -> usize {
    physical_memory_mb()
        .map_or(FALLBACK_MAX_HASH_MB, |mb| mb / 2)
        .clamp(1, HASH_CAP_MB)
}

#[cfg(unix)]
fn physical_memory_mb() -> Option<usize> {
    // SAFETY: sysconf only reads system configuration values; it has no memory-safety
    // preconditions.
    let (pages, page_size) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    if pages <= 0 || page_size <= 0 {
        return None;
    }
    let bytes = (pages as u128) * (page_size as u128);
    usize::try_from(bytes >> 20).ok()
}

#[cfg(not(unix))]
fn physical_memory_mb() -> Option<usize> {
    None
}

/// The table itself: as many slots as fit in the requested megabytes.
pub(crate) struct TranspositionTable {
    slots: Vec<Slot>,
    generation: u8,
}

impl TranspositionTable {
    /// A table of `megabytes` (at least 1). Aborts like any allocation when memory is short:
    /// sizes chosen by a user go through `try_new`.
    pub(crate) fn new(megabytes: usize) -> TranspositionTable {
        let count = (megabytes.max(1) << 20) / std::mem::size_of::<Slot>();
        TranspositionTable {
            slots: vec![Slot::default(); count],
            generation: 0,
        }
    }

    /// A table of `megabytes` (at least 1), or an error when the size exceeds `max_hash_mb` or
    /// the memory cannot be had; never aborts.
    pub(crate) fn try_new(megabytes: usize) -> Result<TranspositionTable, TableAllocError> {
        let megabytes = megabytes.max(1);
        let max = max_hash_mb();
        if megabytes > max {
            return Err(TableAllocError::TooLarge {
                requested: megabytes,
                max,
            });
        }
        let out_of_memory = TableAllocError::OutOfMemory { megabytes };
        let bytes = megabytes
            .checked_mul(1 << 20)
            .ok_or(out_of_memory.clone())?;
        let count = bytes / std::mem::size_of::<Slot>();
        let mut slots = Vec::new();
        slots.try_reserve_exact(count).map_err(|_| out_of_memory)?;
        slots.resize(count, Slot::default());
        Ok(TranspositionTable {
            slots,
            generation: 0,
        })
    }

    /// The table's size in whole megabytes.
    #[cfg(test)]
    fn megabytes(&self) -> usize {
        (self.slots.len() * std::mem::size_of::<Slot>()) >> 20
    }

    /// Empties every slot and resets the search generation.
    pub(crate) fn clear(&mut self) {
        self.slots.fill(Slot::default());
        self.generation = 0;
    }

    /// Called once per search so that older entries are replaced first.
    pub(crate) fn new_search(&mut self) {
        self.generation = (self.generation + 1) & 63;
    }

    #[inline(always)]
    fn index(&self, key: u64) -> usize {
        ((key as u128 * self.slots.len() as u128) >> 64) as usize
    }

    /// Starts loading the slot of `key` into cache; called right after a move is made so that the
    /// child's probe finds it there.
    #[inline(always)]
    pub(crate) fn prefetch(&self, key: u64) {
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

    /// The entry stored for `key`, if its slot holds that exact key. Mate scores come back
    /// ply-independent; the caller adjusts them to its ply.
    #[inline]
    pub(crate) fn probe(&self, key: u64) -> Option<TtEntry> {
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
    /// An entry of the same position keeps its move if the new result has none. A different
    /// position replaces the slot unless the old entry is from this search, more than two plies
    /// deeper, and the new result is only a bound.
    #[inline]
    pub(crate) fn store(
        &mut self,
        key: u64,
        mv: Move,
        score: i32,
        eval: i32,
        depth: i32,
        bound: Bound,
    ) {
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
    pub(crate) fn hashfull(&self) -> u32 {
        let sample = self.slots.len().min(1000);
        let used = self.slots[..sample]
            .iter()
            .filter(|s| s.flags & 3 != 0 && s.flags >> 2 == self.generation)
            .count();
        (used * 1000 / sample.max(1)) as u32
    }
}

/// Mate and tablebase scores are stored relative to the node, not the root, so they stay true
/// elsewhere.
pub(super) fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score >= TB_WIN_BOUND {
        score + ply as i32
    } else if score <= -TB_WIN_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// A stored score as seen from the root at `ply`: the inverse of [`score_to_tt`].
pub(super) fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score >= TB_WIN_BOUND {
        score - ply as i32
    } else if score <= -TB_WIN_BOUND {
        score + ply as i32
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn try_new_refuses_impossible_sizes_without_aborting() {
        let max = max_hash_mb();
        assert!(max >= 1);
        assert_eq!(
            TranspositionTable::try_new(usize::MAX).err(),
            Some(TableAllocError::TooLarge {
                requested: usize::MAX,
                max
            })
        );
        assert!(matches!(
            TranspositionTable::try_new(max + 1),
            Err(TableAllocError::TooLarge { .. })
        ));
        let table = TranspositionTable::try_new(2).unwrap();
        assert_eq!(table.megabytes(), 2);
    }
}
