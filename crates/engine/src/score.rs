//! The score an engine reports, as UCI carries it: centipawns or mate in moves. It sits below
//! the search so that players, records and the tuner can use it without depending on the search.
//! Main type: [`Score`].

/// The score of mate now; a mate `n` plies away scores `MATE - n` as one number (see
/// [`Score::as_cp`]), and no centipawn score reaches it.
pub const MATE: i32 = 32_000;

/// Scores at or beyond this magnitude are mate scores: mate within the search's deepest ply
/// (128) of the root. Evaluations stay strictly inside it.
pub const MATE_BOUND: i32 = MATE - 128 - 1;

/// A score as reported: centipawns, or mate in a number of moves (negative: being mated), from
/// the side to move's point of view.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Score {
    /// Centipawns (UCI `score cp N`).
    Cp(i32),
    /// Mate in this many moves (not plies): positive when the side to move mates, negative when
    /// it is mated, 0 when it is checkmated already (UCI `score mate N`).
    Mate(i32),
}

impl Score {
    /// A single number for comparisons and adjudication: mates map beyond any centipawn score.
    pub fn as_cp(self) -> i32 {
        match self {
            Score::Cp(cp) => cp,
            Score::Mate(n) if n > 0 => MATE - 2 * n,
            Score::Mate(n) => -MATE - 2 * n,
        }
    }
}

impl std::fmt::Display for Score {
    /// UCI form: `cp 31` or `mate -3`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Score::Cp(cp) => write!(f, "cp {cp}"),
            Score::Mate(n) => write!(f, "mate {n}"),
        }
    }
}
