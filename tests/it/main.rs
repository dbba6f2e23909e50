//! The integration tests, one module per area, in one test binary (one link of the library
//! instead of one per file). Shared helpers are `common`; misbehaving engines are `tests/mock/`.

mod common;

mod architecture;
mod arena;
mod broken_pipe;
mod chess960;
mod chess960_match;
mod cli;
mod cluster_recipes;
mod compliance;
mod compliance_counts;
mod compliance_options;
mod configs;
mod data;
mod datagen;
mod dialect;
mod engine_io;
mod eval;
mod fuzz;
mod fuzz_files;
mod match_cli;
mod nnue;
mod notation;
mod openbench;
mod openings;
mod openings_suites;
mod perft;
mod pgn_move_data;
mod ponder;
mod positions_resolve;
mod ratings;
mod report;
mod resume_and_merge;
mod rules;
mod search;
#[path = "loop.rs"]
mod self_play_loop;
#[path = "loop_network.rs"]
mod self_play_loop_network;
mod shards;
mod spsa;
mod spsa_shards;
mod syzygy_search;
mod tablebase;
mod tablebase_adjudication;
mod tablebase_cli;
mod train;
mod tune;
mod tune_any;
mod tune_cli;
mod tune_engine;
mod tune_trace;
mod tuner_front_ends;
mod uci;
mod waves;
mod xboard;
