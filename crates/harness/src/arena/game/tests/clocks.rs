//! The clocks: increments, periods, the margin and flag falls.

use super::*;

#[test]
fn clocks_are_charged_with_increments_and_new_periods() {
    let clock = VirtualClock::default();
    let two_moves = Adjudication {
        max_moves: Some(2),
        ..Adjudication::default()
    };
    let start = Position::startpos();
    let mut white = Scripted::new(&SHUFFLE_WHITE, &clock).think_ms(300);
    let mut black = Scripted::new(&SHUFFLE_BLACK, &clock).think_ms(300);
    let sudden = self::clock(None, 1000, 100);
    let record = play_from(
        &start,
        &[],
        [&sudden, &sudden],
        &two_moves,
        [&mut white, &mut black],
        &clock,
    );
    assert_eq!(record.termination, by(MaxMoves));
    assert_eq!(record.clock_left, [Some(ms(600)), Some(ms(600))]);
    assert_eq!(record.moves[0].time, ms(300));
    assert_eq!(record.moves[0].details.time_left, Some(ms(800)));
    let times: Vec<(Duration, Duration)> = white
        .seen
        .iter()
        .map(|s| (s.clock.as_ref().unwrap().white_time, s.deadline))
        .collect();
    assert_eq!(times, [(ms(1000), ms(1050)), (ms(800), ms(850))]);

    // 2 moves per period: the base comes back after the second move.
    let mut white = Scripted::new(&SHUFFLE_WHITE, &clock).think_ms(300);
    let mut black = Scripted::new(&SHUFFLE_BLACK, &clock);
    let periods = self::clock(Some(2), 1000, 0);
    let record = play_from(
        &start,
        &[],
        [&periods, &periods],
        &two_moves,
        [&mut white, &mut black],
        &clock,
    );
    assert_eq!(record.clock_left, [Some(ms(1400)), Some(ms(2000))]);
    let to_go: Vec<Option<u32>> = white
        .seen
        .iter()
        .map(|s| s.clock.as_ref().unwrap().moves_to_go)
        .collect();
    assert_eq!(to_go, [Some(2), Some(1)]);
}

#[test]
fn a_move_within_the_margin_is_charged_and_one_past_it_loses() {
    let clock = VirtualClock::default();
    let one_move = Adjudication {
        max_moves: Some(1),
        ..Adjudication::default()
    };
    let start = Position::startpos();
    let sudden = self::clock(None, 1000, 100);
    // 1000ms left and a 50ms margin: 1050ms is late but within it; the clock stops at zero.
    let mut white = Scripted::new(&SHUFFLE_WHITE, &clock).think_ms(1050);
    let mut black = Scripted::new(&SHUFFLE_BLACK, &clock);
    let record = play_from(
        &start,
        &[],
        [&sudden, &sudden],
        &one_move,
        [&mut white, &mut black],
        &clock,
    );
    assert_eq!(record.reason, "Draw by adjudication: maximal game length");
    assert_eq!(record.clock_left, [Some(ms(100)), Some(ms(1100))]);

    // 300ms a move, then 1000ms on the third with 600ms left.
    let mut white = Scripted::new(&SHUFFLE_WHITE, &clock)
        .think_ms(300)
        .think_ms_at(2, 1000);
    let mut black = Scripted::new(&SHUFFLE_BLACK, &clock);
    let record = play_from(
        &start,
        &[],
        [&sudden, &sudden],
        &Adjudication::default(),
        [&mut white, &mut black],
        &clock,
    );
    assert_eq!(
        ending(&record),
        (
            GameResult::BlackWins,
            Termination::TimeForfeit,
            "White loses on time (400ms overrun)"
        )
    );
    assert_eq!(record.moves.len(), 4);
    assert_eq!(record.clock_left, [Some(Duration::ZERO), Some(ms(1200))]);
    assert_eq!(record.at_fault, Some(Color::White));
}

#[test]
fn a_flag_fall_loses_unless_the_opponent_cannot_mate() {
    let clock = VirtualClock::default();
    let rules = Adjudication::default();
    let sudden = self::clock(None, 1000, 0);
    let mut white = Scripted::new(&SHUFFLE_WHITE, &clock).think_ms(1500);
    let mut black = Scripted::new(&SHUFFLE_BLACK, &clock);
    let startpos = Position::startpos();
    let mut game = |start: &Position, tc: &TimeControl, white: &mut Scripted| {
        play_from(start, &[], [tc, tc], &rules, [white, &mut black], &clock)
    };
    let record = game(&startpos, &sudden, &mut white);
    assert_eq!(
        ending(&record),
        (
            GameResult::BlackWins,
            Termination::TimeForfeit,
            "White loses on time (500ms overrun)"
        )
    );
    assert_eq!(record.clock_left[0], Some(Duration::ZERO));
    assert_eq!(record.at_fault, Some(Color::White));

    // Black has a bare king: White's flag fall is a draw.
    let lone = Position::from_fen("4k3/8/8/8/8/8/8/R3K3 w - - 0 1").unwrap();
    let record = game(&lone, &sudden, &mut white);
    assert_eq!(
        ending(&record),
        (
            GameResult::Draw,
            Termination::TimeForfeit,
            "White loses on time (500ms overrun), but the opponent cannot mate: draw"
        )
    );

    // A fixed move time: overrunning it, or a timeout under it, is a time forfeit too.
    let movetime = TimeControl::MoveTime(ms(100));
    let mut white = Scripted::new(&SHUFFLE_WHITE, &clock).think_ms(200);
    let record = game(&startpos, &movetime, &mut white);
    assert_eq!(record.reason, "White loses on time (100ms overrun)");
    assert_eq!(record.clock_left, [None, None]);
    let mut white =
        Scripted::new(&SHUFFLE_WHITE, &clock).fail_at(0, PlayerError::Timeout { waited_ms: 150 });
    let record = game(&startpos, &movetime, &mut white);
    assert_eq!(
        ending(&record),
        (
            GameResult::BlackWins,
            Termination::TimeForfeit,
            "White loses on time"
        )
    );
}
