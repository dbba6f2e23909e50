//! Writes a synthetic training set for measuring the tuner at scale (docs/tuning-at-scale.md):
//! random playouts from the shipped openings, every position kept, each game given a random
//! result and each position a random `ce`, split into shard directories the way sharded
//! self-play writes them. Not a data generator for real tuning: the labels are noise.
//!
//!     cargo run --release --example tune_data -- OUT_DIR POSITIONS SHARDS [SEED]

use rayon::prelude::*;
use sparring::board::{GameResult, Position};
use sparring::record::{PositionId, TrainingPosition};
use sparring::rng::Rng;
use std::io::Write;
use std::path::PathBuf;

/// A playout ends after this many plies (or at mate, stalemate or the fifty-move rule).
const MAX_PLIES: u32 = 160;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [out, count, shards, rest @ ..] = &args[..] else {
        return Err("usage: tune_data OUT_DIR POSITIONS SHARDS [SEED]".into());
    };
    let out = PathBuf::from(out);
    let count: usize = count.parse()?;
    let shards: usize = shards.parse::<usize>()?.max(1);
    let seed: u64 = rest.first().map_or(Ok(1), |s| s.parse())?;
    let book = concat!(env!("CARGO_MANIFEST_DIR"), "/openings/balanced-8ply.epd");
    let openings: Vec<Position> = std::fs::read_to_string(book)?
        .lines()
        .filter_map(|line| Position::from_fen_lenient(line.trim()).ok())
        .collect();
    (0..shards)
        .into_par_iter()
        .map(|shard| -> std::io::Result<()> {
            let want = count / shards + usize::from(shard < count % shards);
            let dir = out.join(format!("shard-{shard:03}"));
            std::fs::create_dir_all(&dir)?;
            let file = std::fs::File::create(dir.join("positions.epd"))?;
            let mut writer = std::io::BufWriter::with_capacity(1 << 20, file);
            let mut rng = Rng::derive(seed, shard as u64);
            let mut written = 0;
            let mut game = 0u64;
            while written < want {
                game += 1;
                // Game ids unique across shards; a pair is two consecutive games.
                let game_id = (shard as u64) << 40 | game;
                let result = [
                    GameResult::WhiteWins,
                    GameResult::Draw,
                    GameResult::BlackWins,
                ][rng.below(3) as usize];
                let mut pos = openings[rng.below(openings.len() as u64) as usize].clone();
                for ply in 0..MAX_PLIES {
                    let moves = pos.legal_moves();
                    if moves.is_empty() || pos.halfmove_clock() >= 100 || written == want {
                        break;
                    }
                    let mv = moves.as_slice()[rng.below(moves.len() as u64) as usize];
                    pos.make_move(mv);
                    let score = rng.below(601) as i32 - 300;
                    let id = PositionId {
                        pair: game_id.div_ceil(2),
                        game: game_id,
                        ply,
                    };
                    let line = TrainingPosition::new(&pos, Some(score), result, Some(id));
                    writeln!(writer, "{line}")?;
                    written += 1;
                }
            }
            writer.flush()
        })
        .collect::<std::io::Result<()>>()?;
    Ok(())
}
