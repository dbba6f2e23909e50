//! The arbiter and pondering players on virtual time: when `ponder` is called and with what,
//! that the game's end stops it, and that the clocks charge only a player's own turn.

use super::*;
use crate::search::Clock;

/// A scripted player that records what the arbiter asks it to ponder on.
struct Ponderer {
    inner: Scripted,
    /// Per `ponder` call: the moves of the game so far and the clocks it carried.
    pondered: Vec<(usize, Option<Clock>)>,
    stops: usize,
    /// Fails its n-th `ponder` call (0-based) with a disconnection.
    fail_at: Option<usize>,
}

impl Ponderer {
    fn new(inner: Scripted) -> Ponderer {
        Ponderer {
            inner,
            pondered: Vec::new(),
            stops: 0,
            fail_at: None,
        }
    }
}

impl Player for Ponderer {
    fn id_name(&self) -> &str {
        "ponderer"
    }
    fn new_game(&mut self) -> Result<(), PlayerError> {
        self.inner.new_game()
    }
    fn go(&mut self, request: &GoRequest<'_>) -> Result<EngineReply, PlayerError> {
        self.inner.go(request)
    }
    fn ponder(&mut self, request: &GoRequest<'_>) -> Result<(), PlayerError> {
        if self.fail_at == Some(self.pondered.len()) {
            return Err(PlayerError::Disconnected {
                detail: String::new(),
            });
        }
        self.pondered
            .push((request.moves.len(), request.limits.clock.clone()));
        Ok(())
    }
    fn stop_pondering(&mut self) {
        self.stops += 1;
    }
}

#[test]
fn a_player_ponders_after_each_of_its_moves_on_its_own_clock_and_is_stopped_at_the_end() {
    let clock = VirtualClock::default();
    let rules = Adjudication {
        max_moves: Some(2),
        ..Adjudication::default()
    };
    let start = Position::startpos();
    let tc = TimeControl::Clock {
        moves: None,
        base: Duration::from_millis(1000),
        increment: Duration::from_millis(100),
    };
    let setup = test_setup(&start, &[], [&tc, &tc], &rules);
    // White thinks 300 ms a move; Black, the ponderer, 100 ms.
    let mut white = Scripted::new(&["g1f3", "f3g1"], &clock).think_ms(300);
    let mut black = Ponderer::new(Scripted::new(&["g8f6", "f6g8"], &clock).think_ms(100));
    let now = {
        let clock = clock.clone();
        move || clock.now()
    };
    let record = play_game_timed(&setup, [&mut white, &mut black], None, &now).0;
    assert_eq!(record.moves.len(), 4, "{}", record.reason);
    // Only its own thinking is charged: White's 300 ms a move, spent while Black pondered,
    // are White's.
    assert_eq!(
        record.clock_left,
        [
            Some(Duration::from_millis(600)),
            Some(Duration::from_millis(1000))
        ]
    );
    // After its first move (2 plies played), with its clock after that move's charge and
    // increment, and White's before White thinks; the last move ends the game: no ponder.
    assert_eq!(black.pondered.len(), 1, "{:?}", black.pondered);
    let (plies, seen) = &black.pondered[0];
    assert_eq!(*plies, 2);
    let seen = seen.as_ref().expect("a clock");
    assert_eq!(seen.black_time, Duration::from_millis(1000));
    assert_eq!(seen.white_time, Duration::from_millis(800));
    assert_eq!(black.stops, 1);
}

#[test]
fn a_player_that_fails_to_start_pondering_loses_as_disconnected() {
    let clock = VirtualClock::default();
    let rules = Adjudication::default();
    let start = Position::startpos();
    let tc = TimeControl::Nodes(100);
    let setup = test_setup(&start, &[], [&tc, &tc], &rules);
    let mut white = Ponderer::new(Scripted::new(&["g1f3", "f3g1"], &clock));
    white.fail_at = Some(0);
    let mut black = Scripted::new(&["g8f6", "f6g8"], &clock);
    let now = || clock.now();
    let record = play_game_timed(&setup, [&mut white, &mut black], None, &now).0;
    assert_eq!(record.result, GameResult::BlackWins);
    assert_eq!(record.termination, Termination::Abandoned);
    assert_eq!(record.at_fault, Some(Color::White));
    assert!(
        record.reason.starts_with("White disconnects"),
        "{}",
        record.reason
    );
    assert_eq!(record.moves.len(), 1);
}
