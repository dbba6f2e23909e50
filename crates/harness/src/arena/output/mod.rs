//! What a run reports and writes: the events a front end renders, the per-pairing statistics
//! and ranking, summary, ranking and ratings files, the per-game engine figures, and the joint
//! ratings of any runner's games.

pub(crate) mod events;
pub mod figures;
pub(crate) mod match_data;
pub mod match_page;
pub(crate) mod pairing;
pub mod ratings;
pub mod ratings_sources;
pub mod report;
