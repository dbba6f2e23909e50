//! texel-tuner's "toy tapered" evaluation, written against sparring's `TunableEval`: material
//! P N B R Q K and a bishop pair, tapered by phase = N + B + 2R + 4Q of both sides (not clamped,
//! as texel-tuner computes it), eval = (mg·phase + eg·(24 − phase)) / 24. Shared by the example
//! and its test.

use sparring::board::{Color, PieceKind, Position};
use sparring::texel::{LinearTrace, ParamSpec, TraceError, TunableEval};

/// The evaluation with texel-tuner's starting values.
pub struct ToyTapered;

/// Parameter names in index order: six material values, then the bishop pair.
pub const NAMES: [&str; 7] = [
    "material.pawn",
    "material.knight",
    "material.bishop",
    "material.rook",
    "material.queen",
    "material.king",
    "bishop_pair",
];

/// texel-tuner's starting values (mg = eg).
const START: [f64; 7] = [100.0, 300.0, 300.0, 500.0, 900.0, 0.0, 25.0];

impl TunableEval for ToyTapered {
    fn params(&self) -> Vec<ParamSpec> {
        NAMES
            .iter()
            .zip(START)
            .map(|(name, v)| ParamSpec::tapered(*name, v, v))
            .collect()
    }

    fn phase_max(&self) -> i32 {
        24
    }

    fn trace(&self, pos: &Position, out: &mut LinearTrace) -> Result<(), TraceError> {
        let count = |c: Color, k: PieceKind| pos.colored(c, k).len() as i32;
        for (i, kind) in PieceKind::ALL.iter().enumerate() {
            out.coefficients.push((
                i as u32,
                count(Color::White, *kind) - count(Color::Black, *kind),
            ));
        }
        // texel-tuner's toy counts a pair only at exactly two bishops.
        let pair = |c: Color| (count(c, PieceKind::Bishop) == 2) as i32;
        out.coefficients
            .push((6, pair(Color::White) - pair(Color::Black)));
        let both = |k: PieceKind| pos.pieces(k).len() as i32;
        out.phase = both(PieceKind::Knight)
            + both(PieceKind::Bishop)
            + 2 * both(PieceKind::Rook)
            + 4 * both(PieceKind::Queen);
        Ok(())
    }
}
