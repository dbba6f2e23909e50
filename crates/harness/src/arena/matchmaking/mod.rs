//! Matchmaking: the seeded schedule of games (round robin, gauntlet, its shards and waves), the
//! tournament that plays it in parallel and resumes it, the run's fingerprint and output lock,
//! and the merge of shards and waves back into one run.

pub(crate) mod lock;
pub(crate) mod manifest;
pub(crate) mod merge;
pub(crate) mod schedule;
pub(crate) mod tournament;
