//! One self-play game: the opening drawn and verified by the engine itself, then the arbiter
//! (`arena::play_game`: the rules of chess, the draw rules, tablebase and score adjudication)
//! with the one engine on both sides. A game in which the engine fails is dropped whole.

use super::config::DatagenConfig;
use super::opening::{candidate, stream};
use crate::arena::config::Adjudication;
use crate::arena::{
    play_game, EngineReply, GameSetup, GoRequest, Player, PlayerError, TimeControl,
};
use crate::board::{Color, Position};
use crate::data::DataGame;
use crate::score::Score;
use crate::search::SearchLimits;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Random openings tried per game before the run gives up (see `DatagenError::NoOpening`).
pub const MAX_OPENING_ATTEMPTS: usize = 1_000;

/// How long the engine may stay silent on one move or verification search.
const MOVE_TIMEOUT: Duration = Duration::from_secs(60);

/// What became of one game.
#[derive(Debug)]
pub enum GameOutcome {
    /// Played to its end.
    Played(Box<DataGame>),
    /// The engine failed during it (crashed, hung, sent an illegal move): nothing is written,
    /// and the engine is restarted.
    Dropped(String),
    /// No opening passed the verification in `MAX_OPENING_ATTEMPTS` tries.
    NoOpening,
}

/// The engine on both sides of the board: each move request goes to the one player, with the
/// optional depth limit added to the arbiter's node limit.
struct Side<'m, 'p> {
    engine: &'m Mutex<&'p mut dyn Player>,
    name: String,
    depth: Option<u32>,
}

impl Player for Side<'_, '_> {
    fn id_name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self) -> Result<(), PlayerError> {
        // Both sides are told; the second `ucinewgame` finds the tables already cleared.
        self.engine.lock().expect("one game per engine").new_game()
    }

    fn go(&mut self, request: &GoRequest<'_>) -> Result<EngineReply, PlayerError> {
        let limits = SearchLimits {
            depth: self.depth.or(request.limits.depth),
            ..request.limits.clone()
        };
        let request = GoRequest {
            start: request.start,
            moves: request.moves,
            limits: &limits,
            deadline: request.deadline,
        };
        self.engine
            .lock()
            .expect("one game per engine")
            .go(&request)
    }
}

/// The engine with a clock on its searches: what the run reports as the share of its time spent
/// searching (docs/datagen.md, "Throughput").
struct Timed<'p> {
    player: &'p mut dyn Player,
    searching: Duration,
}

impl Timed<'_> {
    /// The time of one reply: the built-in engine's own search time, an external engine's
    /// from `go` to `bestmove` (its search plus reading the position), else as measured here.
    fn search_time(reply: &EngineReply, measured: Duration) -> Duration {
        reply
            .answer_time
            .or(reply.details.engine_time)
            .unwrap_or(measured)
    }
}

impl Player for Timed<'_> {
    fn id_name(&self) -> &str {
        self.player.id_name()
    }

    fn new_game(&mut self) -> Result<(), PlayerError> {
        self.player.new_game()
    }

    fn go(&mut self, request: &GoRequest<'_>) -> Result<EngineReply, PlayerError> {
        let asked = Instant::now();
        let reply = self.player.go(request)?;
        self.searching += Timed::search_time(&reply, asked.elapsed());
        Ok(reply)
    }
}

/// The arbiter's rules for a configuration.
pub fn adjudication_of(
    config: &DatagenConfig,
    tables: Option<crate::tablebase::Tablebases>,
) -> Adjudication {
    use crate::arena::config::{
        DrawAdjudication, ResignAdjudication, TablebaseAdjudication, TablebaseResults,
    };
    let a = &config.adjudication;
    Adjudication {
        tablebase: config
            .tb
            .clone()
            .zip(tables)
            .map(|(path, tables)| TablebaseAdjudication {
                path,
                pieces: 0,
                ignore_50: false,
                results: TablebaseResults::Both,
                tables,
            }),
        draw: a
            .draw
            .map(|(score_cp, move_count, move_number)| DrawAdjudication {
                move_number,
                move_count,
                score_cp,
            }),
        resign: a.win.map(|(score_cp, move_count)| ResignAdjudication {
            move_count,
            score_cp,
            two_sided: true,
        }),
        max_moves: a.max_moves,
    }
}

/// Draws game `game`'s opening: the first candidate the engine's verification search scores
/// within the window. Ok(None): none in `MAX_OPENING_ATTEMPTS` tries.
fn opening(
    config: &DatagenConfig,
    player: &mut dyn Player,
    game: u64,
) -> Result<Option<Position>, PlayerError> {
    let mut rng = stream(config.seed, game);
    let limits = SearchLimits {
        nodes: Some(config.verify_nodes),
        ..SearchLimits::default()
    };
    for _ in 0..MAX_OPENING_ATTEMPTS {
        let Some(pos) = candidate(config.variant, config.random_plies, &mut rng) else {
            continue;
        };
        player.new_game()?;
        let reply = player.go(&GoRequest {
            start: &pos,
            moves: &[],
            limits: &limits,
            deadline: MOVE_TIMEOUT,
        })?;
        // An engine that reports no score cannot be checked: its openings are kept.
        let level = reply
            .score
            .map_or(true, |s| s.as_cp().abs() <= config.verify_window_cp);
        if level {
            return Ok(Some(pos));
        }
    }
    Ok(None)
}

/// Plays game `game` (0-based over the whole run) with `player` on both sides; returns what
/// became of it and the time the engine spent searching (its openings' verification included).
pub fn play(
    config: &DatagenConfig,
    adjudication: &Adjudication,
    player: &mut dyn Player,
    game: u64,
) -> (GameOutcome, Duration) {
    let mut timed = Timed {
        player,
        searching: Duration::ZERO,
    };
    let outcome = play_timed(config, adjudication, &mut timed, game);
    (outcome, timed.searching)
}

fn play_timed(
    config: &DatagenConfig,
    adjudication: &Adjudication,
    player: &mut dyn Player,
    game: u64,
) -> GameOutcome {
    let start = match opening(config, player, game) {
        Ok(Some(pos)) => pos,
        Ok(None) => return GameOutcome::NoOpening,
        Err(e) => return GameOutcome::Dropped(format!("verification search: {e}")),
    };
    let name = player.id_name().to_string();
    let engine = Mutex::new(player);
    let mut white = Side {
        engine: &engine,
        name: name.clone(),
        depth: config.depth,
    };
    let mut black = Side {
        engine: &engine,
        name: name.clone(),
        depth: config.depth,
    };
    let nodes = TimeControl::Nodes(config.nodes);
    let setup = GameSetup {
        game_id: game + 1,
        pair_id: game + 1,
        round: 1,
        event: "sparring datagen",
        site: "?",
        opening_id: 0,
        start: &start,
        book_moves: &[],
        names: [&name, &name],
        engines: [0, 0],
        time_controls: [&nodes, &nodes],
        margin: Duration::ZERO,
        timeout: MOVE_TIMEOUT,
        adjudication,
        engine_log: None,
    };
    let record = play_game(&setup, [&mut white, &mut black]);
    if record.at_fault.is_some() {
        return GameOutcome::Dropped(record.reason);
    }
    let mut mover = start.side_to_move();
    let moves = record
        .moves
        .iter()
        .map(|played| {
            // Recorded from the mover's view; the formats want White's.
            let score = played.score.unwrap_or(Score::Cp(0));
            let white = match (mover, score) {
                (Color::White, s) => s,
                (Color::Black, Score::Cp(cp)) => Score::Cp(-cp),
                (Color::Black, Score::Mate(n)) => Score::Mate(-n),
            };
            mover = !mover;
            (played.mv, white)
        })
        .collect();
    GameOutcome::Played(Box::new(DataGame {
        start,
        moves,
        result: record.result,
    }))
}
