//! What a run reports and writes: the events a front end renders, the per-pairing statistics
//! and ranking, summary, ranking and ratings files, the per-game engine figures, and the joint
//! ratings of any runner's games.

pub(crate) mod events;
pub(crate) mod figures;
pub(crate) mod match_data;
pub(crate) mod match_page;
pub(crate) mod pairing;
pub(crate) mod ratings;
pub(crate) mod ratings_sources;
pub(crate) mod report;
