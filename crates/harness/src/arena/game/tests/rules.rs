//! The rules of chess as the arbiter applies them, and the ways a player can fail.

use super::*;

#[test]
fn a_mate_on_the_board_ends_the_game_and_the_moves_keep_what_the_players_said() {
    let clock = VirtualClock::default();
    let mut white = Scripted::new(&["f2f3", "g2g4"], &clock)
        .scores_cp(&[10, -20])
        .depths(&[5, 6]);
    let mut black = Scripted::new(&["e7e5", "d8h4"], &clock).score(Score::Mate(1));
    let record = nodes_game(&mut white, &mut black, &Adjudication::default());
    assert_eq!(
        ending(&record),
        (GameResult::BlackWins, Termination::Normal, "Black mates")
    );
    assert_eq!(record.at_fault, None);
    let said: Vec<(Option<Score>, Option<u32>)> =
        record.moves.iter().map(|m| (m.score, m.depth)).collect();
    assert_eq!(
        said,
        [
            (Some(Score::Cp(10)), Some(5)),
            (Some(Score::Mate(1)), Some(1)),
            (Some(Score::Cp(-20)), Some(6)),
            (Some(Score::Mate(1)), Some(1)),
        ]
    );
    // Without a clock every move may take the silence timeout.
    assert!(white
        .seen
        .iter()
        .all(|s| s.clock.is_none() && s.deadline == Duration::from_secs(7)));
}

#[test]
fn stalemate_and_insufficient_material_are_draws_by_the_rules() {
    let clock = VirtualClock::default();
    let rules = Adjudication::default();
    let mut white = Scripted::new(&["f1f7"], &clock);
    let mut black = Scripted::new(&[], &clock);
    let record = nodes_game_from(
        "7k/8/6K1/8/8/8/8/5Q2 w - - 0 1",
        &rules,
        &mut white,
        &mut black,
    );
    assert_eq!(
        ending(&record),
        (GameResult::Draw, Termination::Normal, "Draw by stalemate")
    );
    assert!(black.seen.is_empty());

    // The king takes the last pawn: two bare kings.
    let mut white = Scripted::new(&["e1e2"], &clock);
    let record = nodes_game_from(
        "4k3/8/8/8/8/8/4p3/4K3 w - - 0 1",
        &rules,
        &mut white,
        &mut black,
    );
    assert_eq!(
        ending(&record),
        (
            GameResult::Draw,
            Termination::Normal,
            "Draw by insufficient mating material"
        )
    );
    assert_eq!(record.moves.len(), 1);
}

#[test]
fn threefold_repetition_is_claimed_for_the_players() {
    let (mut white, mut black) = shufflers();
    let record = nodes_game(&mut white, &mut black, &Adjudication::default());
    assert_eq!(
        ending(&record),
        (
            GameResult::Draw,
            Termination::Normal,
            "Draw by 3-fold repetition"
        )
    );
    // The start, after 4 plies, after 8 plies.
    assert_eq!(record.moves.len(), 8);
}

#[test]
fn book_moves_count_for_repetition_and_an_illegal_one_ends_the_book() {
    let start = Position::startpos();
    let book: Vec<Move> = SHUFFLE_WHITE
        .iter()
        .zip(SHUFFLE_BLACK)
        .take(2)
        .flat_map(|(w, b)| [*w, b])
        .scan(start.clone(), |pos, uci| {
            let mv = pos.parse_uci_move(uci).unwrap();
            pos.make_move(mv);
            Some(mv)
        })
        .collect();
    let (mut white, mut black) = shufflers();
    let tc = TimeControl::Nodes(1);
    let clock = VirtualClock::default();
    let rules = Adjudication::default();
    let record = play_from(
        &start,
        &book,
        [&tc, &tc],
        &rules,
        [&mut white, &mut black],
        &clock,
    );
    assert_eq!(record.reason, "Draw by 3-fold repetition");
    assert_eq!((record.book_moves.len(), record.moves.len()), (4, 4));
    // The engines are sent the book moves too.
    assert_eq!(white.seen[0].moves, 4);

    // g1f3 twice: the second is not legal, so the book ends after the first.
    let (mut white, mut black) = shufflers();
    let record = play_from(
        &start,
        &[book[0], book[0]],
        [&tc, &tc],
        &rules,
        [&mut white, &mut black],
        &clock,
    );
    assert_eq!(record.book_moves, [book[0]]);
    // Black answers g8f6; White's script, written for the full book, then moves from an empty g1.
    assert_eq!(record.reason, "White makes an illegal move: g1f3");
    assert_eq!(record.moves.len(), 1);
}

#[test]
fn the_fifty_move_rule_is_claimed_but_a_mate_on_the_hundredth_ply_stands() {
    let clock = VirtualClock::default();
    let rules = Adjudication::default();
    let mut black = Scripted::new(&[], &clock);
    let mut white = Scripted::new(&["a1a2"], &clock);
    let record = nodes_game_from(
        "4k3/8/8/8/8/8/8/R3K3 w - - 99 80",
        &rules,
        &mut white,
        &mut black,
    );
    assert_eq!(
        ending(&record),
        (
            GameResult::Draw,
            Termination::Normal,
            "Draw by fifty moves rule"
        )
    );
    let mut white = Scripted::new(&["a1a8"], &clock);
    let record = nodes_game_from(
        "4k3/8/4K3/8/8/8/8/R7 w - - 99 80",
        &rules,
        &mut white,
        &mut black,
    );
    assert_eq!(
        ending(&record),
        (GameResult::WhiteWins, Termination::Normal, "White mates")
    );
}

#[test]
fn an_illegal_or_missing_answer_loses_for_the_mover() {
    let clock = VirtualClock::default();
    let rules = Adjudication::default();
    let mut black = Scripted::new(&[], &clock);
    for (answer, shown) in [
        ("e2e5", "e2e5"),
        ("e7e5", "e7e5"),
        ("castle", "castle"),
        ("", "(none)"),
    ] {
        let mut white = Scripted::new(&[answer], &clock);
        let record = nodes_game(&mut white, &mut black, &rules);
        let reason = format!("White makes an illegal move: {shown}");
        assert_eq!(
            ending(&record),
            (
                GameResult::BlackWins,
                Termination::IllegalMove,
                reason.as_str()
            )
        );
        assert_eq!(record.at_fault, Some(Color::White));
        assert!(record.moves.is_empty());
    }
    let mut white = Scripted::new(&["e2e4"], &clock);
    let record = nodes_game(&mut white, &mut black, &rules);
    assert_eq!(record.reason, "Black makes an illegal move: (none)");
    assert_eq!(
        (record.result, record.moves.len()),
        (GameResult::WhiteWins, 1)
    );
}

#[test]
fn player_failures_are_losses_with_their_reason() {
    let rules = Adjudication::default();
    let (white, mut black) = shufflers();
    let mut white = white.fail_new_game(PlayerError::Disconnected {
        detail: " (exit status: 3)".to_string(),
    });
    let record = nodes_game(&mut white, &mut black, &rules);
    assert_eq!(
        ending(&record),
        (
            GameResult::BlackWins,
            Termination::Abandoned,
            "White disconnects (the engine disconnected (exit status: 3))"
        )
    );
    assert!(record.moves.is_empty());

    let (mut white, black) = shufflers();
    let mut black = black.fail_at(1, PlayerError::Timeout { waited_ms: 7000 });
    let record = nodes_game(&mut white, &mut black, &rules);
    assert_eq!(
        ending(&record),
        (
            GameResult::WhiteWins,
            Termination::StalledConnection,
            "Black's connection stalls"
        )
    );
    assert_eq!(
        (record.moves.len(), record.at_fault),
        (3, Some(Color::Black))
    );

    let (mut white, black) = shufflers();
    let mut black = black.disconnect_at(2);
    let record = nodes_game(&mut white, &mut black, &rules);
    assert_eq!(
        ending(&record),
        (
            GameResult::WhiteWins,
            Termination::Abandoned,
            "Black disconnects (the engine disconnected)"
        )
    );
    assert_eq!(
        (record.moves.len(), record.at_fault),
        (5, Some(Color::Black))
    );
}

#[test]
fn an_engines_resignation_or_false_claim_is_chess_not_a_failure() {
    let rules = Adjudication::default();
    let (mut white, black) = shufflers();
    let mut black = black.fail_at(0, PlayerError::Resigned);
    let record = nodes_game(&mut white, &mut black, &rules);
    assert_eq!(
        ending(&record),
        (
            GameResult::WhiteWins,
            Termination::Adjudication(None),
            "Black resigns"
        )
    );
    assert_eq!(record.at_fault, None);
    let (white, mut black) = shufflers();
    let mut white = white.fail_at(
        1,
        PlayerError::InvalidClaim {
            claim: "1-0".to_string(),
        },
    );
    let record = nodes_game(&mut white, &mut black, &rules);
    assert_eq!(
        ending(&record),
        (
            GameResult::BlackWins,
            Termination::Adjudication(None),
            "White makes an invalid result claim: 1-0"
        )
    );
    assert_eq!((record.moves.len(), record.at_fault), (2, None));
}
