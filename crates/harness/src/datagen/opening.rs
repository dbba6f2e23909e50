//! Openings: game `n` draws its start from its own stream of the seed (`Rng::derive(seed, n)`),
//! so a run, its resume and its shards play the same openings whatever the order of play. A
//! candidate is the variant's start (drawn from the stream for Chess960 and DFRC) after
//! `random_plies` uniformly random legal plies; the game loop keeps the first candidate the
//! engine's verification search scores within the window.

use super::config::DatagenVariant;
use crate::board::Position;
use crate::openings::generate::StartVariant;
use crate::rng::Rng;
use sparring_engine::uci::random_plies;

/// The stream of game `game` (0-based, counted over the whole run).
pub(crate) fn stream(seed: u64, game: u64) -> Rng {
    Rng::derive(seed, game)
}

/// The variant's start position, drawn from `rng` where the variant has many (the suite
/// generator's draw, so both make the same starts from the same stream).
pub(crate) fn variant_start(variant: DatagenVariant, rng: &mut Rng) -> Position {
    let variant = match variant {
        DatagenVariant::Standard => StartVariant::Standard,
        DatagenVariant::Chess960 => StartVariant::Chess960,
        DatagenVariant::Dfrc => StartVariant::Dfrc,
    };
    variant.draw_start(rng)
}

/// The next candidate opening of a stream: None when the random plies ended the game (the
/// caller draws again from the same stream).
pub(crate) fn candidate(variant: DatagenVariant, plies: usize, rng: &mut Rng) -> Option<Position> {
    let start = variant_start(variant, rng);
    random_plies(&start, plies, rng)
}
