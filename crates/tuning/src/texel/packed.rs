//! The packed form of a labelled position that every epoch streams over: its nonzero tuned
//! coefficients (`Coef`) in one shared buffer and a fixed-size `Entry` per position. The loader
//! (`data`), the packer (`selection`) and the loss (`model`) all speak it; it depends on none.

/// One nonzero coefficient: a tuned parameter's compact index and its White-minus-Black count.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
#[repr(C)]
pub struct Coef {
    /// The tuned parameter's compact index (see `ParamSelection`).
    pub index: u16,
    /// How often the term occurs for White minus for Black.
    pub count: i16,
}

/// Starts a finaliser group in a position's coefficients (evaluations that declare finalisers
/// only). The linear coefficients come first, none with a zero count; then each group is this
/// marker, a header `Coef { index: 0, count: 2·f + side }` (side 0 White, 1 Black) and the
/// side's nonzero coefficients of finaliser f. Every index stays below the parameter count, so
/// even the linear loss reads such a set in bounds (though wrongly); only the finaliser path
/// (`model`'s `*_with` functions given the finalisers) reads it right.
pub(crate) const FINAL_MARK: Coef = Coef { index: 0, count: 0 };

/// The most finalisers an evaluation may declare (a group header's count is an `i16`).
pub(crate) const MAX_FINALISERS: usize = 1024;

/// One position: where its coefficients are, its phase and label, and the frozen (untuned)
/// terms already summed, since they never change during a run. 16 bytes.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
#[repr(C)]
pub struct Entry {
    /// Start of this position's coefficients in the shared buffer.
    pub offset: u32,
    /// How many coefficients the position has.
    pub len: u16,
    /// Game phase, 0..=24.
    pub phase: u8,
    /// The label in units of 1/`LABEL_SCALE` (see `Entry::label`).
    pub label_units: u8,
    /// Middlegame and endgame sums of count × weight over the frozen parameters.
    pub frozen: (i32, i32),
}

/// Labels are stored in 240ths: results (0, ½, 1) and halves, thirds, quarters, fifths, sixths
/// and eighths are exact, and any probability is within 1/480.
pub(crate) const LABEL_SCALE: f32 = 240.0;

impl Entry {
    /// The expected score from White's point of view: 1 win, 0.5 draw, 0 loss (or a probability).
    #[inline(always)]
    pub fn label(&self) -> f32 {
        self.label_units as f32 * (1.0 / LABEL_SCALE)
    }

    /// The stored form of a label in [0, 1].
    pub(crate) fn label_to_units(label: f32) -> u8 {
        (label.clamp(0.0, 1.0) * LABEL_SCALE).round() as u8
    }
}

/// What an entry of an evaluation other than sparring's own adds to the model (see
/// `texel::tunable`): kept beside the entries only for such evaluations, so sparring's own
/// epochs stream the same 16 bytes per position as before.
#[derive(Copy, Clone, PartialEq, Debug)]
#[repr(C)]
pub struct Extra {
    /// The untuned rest of the evaluation, centipawns, White's view, added after the blend.
    pub remainder: f32,
    /// The factor the endgame half is multiplied by.
    pub eg_scale: f32,
}

impl Default for Extra {
    fn default() -> Extra {
        Extra {
            remainder: 0.0,
            eg_scale: 1.0,
        }
    }
}
