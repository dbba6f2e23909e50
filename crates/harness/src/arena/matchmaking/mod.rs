//! Matchmaking: the seeded schedule of games (round robin, gauntlet, its shards and waves), the
//! tournament that plays it in parallel and resumes it, the run's fingerprint and output lock,
//! and the merge of shards and waves back into one run.

pub mod lock;
pub mod manifest;
pub mod merge;
pub mod schedule;
pub mod tournament;
