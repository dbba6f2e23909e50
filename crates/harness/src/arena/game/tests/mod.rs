//! The arbiter against scripted players on virtual time: the rules, the adjudications in their
//! order, the clocks and every way a player can fail.

use super::*;
use crate::arena::config::{
    DrawAdjudication, ResignAdjudication, TablebaseAdjudication, TablebaseResults,
};
use crate::arena::engine::scripted::{Scripted, VirtualClock};
use crate::record::AdjudicationRule::{self, Draw, MaxMoves, Resign, Tablebase};
use crate::score::Score;

mod adjudication;
mod clocks;
mod ponder;
mod rules;

const SHUFFLE_WHITE: [&str; 4] = ["g1f3", "f3g1", "g1f3", "f3g1"];
const SHUFFLE_BLACK: [&str; 4] = ["g8f6", "f6g8", "g8f6", "f6g8"];

/// The set-up every test game shares: game 1 of the event "test", white against black from
/// `start` after `book`, a 50 ms clock margin and a 7 s timeout.
fn test_setup<'a>(
    start: &'a Position,
    book: &'a [Move],
    controls: [&'a TimeControl; 2],
    adjudication: &'a Adjudication,
) -> GameSetup<'a> {
    GameSetup {
        game_id: 1,
        pair_id: 1,
        round: 1,
        event: "test",
        site: "here",
        opening_id: 0,
        start,
        book_moves: book,
        names: ["white", "black"],
        engines: [0, 1],
        time_controls: controls,
        margin: Duration::from_millis(50),
        timeout: Duration::from_secs(7),
        adjudication,
        engine_log: None,
    }
}

/// Plays a game from `start` (after `book`) on `clock`'s virtual time.
fn play_from(
    start: &Position,
    book: &[Move],
    controls: [&TimeControl; 2],
    adjudication: &Adjudication,
    players: [&mut Scripted; 2],
    clock: &VirtualClock,
) -> GameRecord {
    let setup = test_setup(start, book, controls, adjudication);
    let clock = clock.clone();
    let [white, black] = players;
    play_game_timed(&setup, [white, black], None, &move || clock.now()).0
}

/// A game at a node limit (no clock) from `fen`.
fn nodes_game_from(
    fen: &str,
    rules: &Adjudication,
    white: &mut Scripted,
    black: &mut Scripted,
) -> GameRecord {
    let tc = TimeControl::Nodes(100);
    let start = Position::from_fen(fen).unwrap();
    let clock = VirtualClock::default();
    play_from(&start, &[], [&tc, &tc], rules, [white, black], &clock)
}

const STARTPOS: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// A game at a node limit from the standard start.
fn nodes_game(white: &mut Scripted, black: &mut Scripted, rules: &Adjudication) -> GameRecord {
    nodes_game_from(STARTPOS, rules, white, black)
}

fn shufflers() -> (Scripted, Scripted) {
    let clock = VirtualClock::default();
    let moves = |side: [&'static str; 4]| [side, side].concat();
    (
        Scripted::new(&moves(SHUFFLE_WHITE), &clock),
        Scripted::new(&moves(SHUFFLE_BLACK), &clock),
    )
}

/// Adjudicated by the runner's `rule`.
fn by(rule: AdjudicationRule) -> Termination {
    Termination::Adjudication(Some(rule))
}

fn ending(record: &GameRecord) -> (GameResult, Termination, &str) {
    (record.result, record.termination, record.reason.as_str())
}

fn clock(moves: Option<u32>, base_ms: u64, increment_ms: u64) -> TimeControl {
    TimeControl::Clock {
        moves,
        base: Duration::from_millis(base_ms),
        increment: Duration::from_millis(increment_ms),
    }
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}
