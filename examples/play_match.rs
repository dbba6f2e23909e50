//! Plays a short match between two built-in players that differ only in their evaluation weights
//! (the built-in defaults against the hand-set ones), each opening twice with colours reversed,
//! and prints every game and the score.
//!
//! ```sh
//! cargo run --release --example play_match -- [NODES_PER_MOVE]
//! ```

use sparring::arena::config::Adjudication;
use sparring::arena::{play_game, BuiltinPlayer, GameSetup, Player, TimeControl};
use sparring::board::{GameResult, Position};
use sparring::eval::EvalParams;
use std::sync::Arc;
use std::time::Duration;

/// Short opening lines in UCI moves, from the start position.
const OPENINGS: [&[&str]; 2] = [&["e2e4", "e7e5"], &["d2d4", "d7d5", "c2c4"]];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let nodes: u64 = match std::env::args().nth(1) {
        Some(text) => text.parse()?,
        None => 2_000,
    };
    let names = ["default", "handset"];
    let mut players = [
        BuiltinPlayer::new(Arc::new(EvalParams::default()), 4)?,
        BuiltinPlayer::new(Arc::new(EvalParams::handset()), 4)?,
    ];
    let start = Position::startpos();
    let limit = TimeControl::Nodes(nodes);
    let adjudication = Adjudication {
        max_moves: Some(80),
        ..Adjudication::default()
    };
    // Points of `names[0]`, in halves so a draw is exact.
    let (mut halves, mut games) = (0u32, 0u32);
    for (opening_id, line) in OPENINGS.iter().enumerate() {
        let mut pos = start.clone();
        let mut book = Vec::new();
        for text in *line {
            let mv = pos.parse_uci_move(text)?;
            pos.try_play(mv)?;
            book.push(mv);
        }
        for white in [0, 1] {
            games += 1;
            let setup = GameSetup {
                game_id: u64::from(games),
                pair_id: opening_id as u64 + 1,
                round: 1,
                event: "play_match example",
                site: "here",
                opening_id,
                start: &start,
                book_moves: &book,
                names: [names[white], names[1 - white]],
                engines: [white, 1 - white],
                time_controls: [&limit, &limit],
                margin: Duration::from_millis(100),
                timeout: Duration::from_secs(60),
                adjudication: &adjudication,
                engine_log: None,
            };
            let [first, second] = &mut players;
            let seats: [&mut dyn Player; 2] = if white == 0 {
                [first, second]
            } else {
                [second, first]
            };
            let record = play_game(&setup, seats);
            halves += match (record.result, white) {
                (GameResult::WhiteWins, 0) | (GameResult::BlackWins, 1) => 2,
                (GameResult::Draw, _) => 1,
                _ => 0,
            };
            println!(
                "game {games}: {} - {}: {} after {} plies ({})",
                setup.names[0],
                setup.names[1],
                record.result,
                record.plies(),
                record.reason
            );
        }
    }
    println!(
        "{} {}/{games} {}",
        names[0],
        f64::from(halves) / 2.0,
        names[1]
    );
    Ok(())
}
