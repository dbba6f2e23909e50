//! The runner's adjudications (resign, draw, maximal length, tablebases) in their order, and
//! how a stored game reads back as the rule that ended it.

use super::*;

fn resign_rule(move_count: u32, two_sided: bool) -> Adjudication {
    Adjudication {
        resign: Some(ResignAdjudication {
            move_count,
            score_cp: 600,
            two_sided,
        }),
        ..Adjudication::default()
    }
}

#[test]
fn resign_adjudication_needs_consecutive_losing_scores_and_a_two_sided_agreement() {
    let (white, black) = shufflers();
    let mut white = white.score(Score::Cp(700));
    let mut black = black.score(Score::Cp(-700));
    let record = nodes_game(&mut white, &mut black, &resign_rule(2, true));
    assert_eq!(
        ending(&record),
        (
            GameResult::WhiteWins,
            by(Resign),
            "White wins by adjudication"
        )
    );
    assert_eq!(record.moves.len(), 4);

    // One-sided: the loser's scores alone; two-sided: the winner's silence vetoes it.
    let (mut white, black) = shufflers();
    let mut black = black.scores_cp(&[-700, -700]);
    let record = nodes_game(&mut white, &mut black, &resign_rule(2, false));
    assert_eq!(
        (record.result, record.termination, record.moves.len()),
        (GameResult::WhiteWins, by(Resign), 4)
    );
    let (mut white, black) = shufflers();
    let mut black = black.scores_cp(&[-700, -700]);
    let record = nodes_game(&mut white, &mut black, &resign_rule(2, true));
    assert_eq!(record.reason, "Draw by 3-fold repetition");

    // A better score in between restarts the count; a mate against the mover counts.
    let (mut white, black) = shufflers();
    let mut black = black.scores_cp(&[-700, 0, -700, 0]);
    let record = nodes_game(&mut white, &mut black, &resign_rule(2, false));
    assert_eq!(record.termination, Termination::Normal);
    let (white, mut black) = shufflers();
    let mut white = white.score(Score::Mate(-3));
    let record = nodes_game(&mut white, &mut black, &resign_rule(1, false));
    assert_eq!(
        (record.reason.as_str(), record.moves.len()),
        ("Black wins by adjudication", 1)
    );
}

fn draw_rule(move_number: u32, move_count: u32) -> Adjudication {
    Adjudication {
        draw: Some(DrawAdjudication {
            move_number,
            move_count,
            score_cp: 5,
        }),
        ..Adjudication::default()
    }
}

#[test]
fn draw_adjudication_waits_for_its_move_number_and_consecutive_small_scores() {
    let (white, black) = shufflers();
    let mut white = white.score(Score::Cp(3));
    let mut black = black.score(Score::Cp(-3));
    let record = nodes_game(&mut white, &mut black, &draw_rule(0, 2));
    assert_eq!(
        ending(&record),
        (GameResult::Draw, by(Draw), "Draw by adjudication")
    );
    assert_eq!(record.moves.len(), 4);

    // Not before move 3 is complete.
    let (white, black) = shufflers();
    let mut white = white.score(Score::Cp(0));
    let mut black = black.score(Score::Cp(0));
    let record = nodes_game(&mut white, &mut black, &draw_rule(3, 1));
    assert_eq!((record.termination, record.moves.len()), (by(Draw), 6));

    // White's 100cp on ply 3 restarts the count: four small scores end it on ply 7.
    let (white, black) = shufflers();
    let mut white = white.scores_cp(&[0, 100, 0, 0]);
    let mut black = black.score(Score::Cp(0));
    let record = nodes_game(&mut white, &mut black, &draw_rule(0, 2));
    assert_eq!(
        (record.reason.as_str(), record.moves.len()),
        ("Draw by adjudication", 7)
    );
}

#[test]
fn the_maximal_length_adjudicates_after_the_rules_of_chess() {
    // The threefold repetition after 8 plies and the length limit coincide: the board wins.
    let (mut white, mut black) = shufflers();
    let length = |max| Adjudication {
        max_moves: Some(max),
        ..Adjudication::default()
    };
    let record = nodes_game(&mut white, &mut black, &length(4));
    assert_eq!(
        ending(&record),
        (
            GameResult::Draw,
            Termination::Normal,
            "Draw by 3-fold repetition"
        )
    );
    let (mut white, mut black) = shufflers();
    let record = nodes_game(&mut white, &mut black, &length(1));
    assert_eq!(
        ending(&record),
        (
            GameResult::Draw,
            by(MaxMoves),
            "Draw by adjudication: maximal game length"
        )
    );
    assert_eq!(record.moves.len(), 2);
}

fn tablebase_rule(results: TablebaseResults) -> Adjudication {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/syzygy");
    Adjudication {
        tablebase: Some(TablebaseAdjudication {
            tables: crate::tablebase::Tablebases::open(&path).unwrap(),
            path,
            pieces: 0,
            ignore_50: false,
            results,
        }),
        ..Adjudication::default()
    }
}

#[test]
fn the_tables_judge_the_start_and_every_capture_before_the_score_rules() {
    let clock = VirtualClock::default();
    let mut rules = tablebase_rule(TablebaseResults::Both);
    let mut white = Scripted::new(&[], &clock);
    let mut black = Scripted::new(&[], &clock);
    let record = nodes_game_from(
        "k7/8/8/8/8/8/8/1R5K w - - 0 1",
        &rules,
        &mut white,
        &mut black,
    );
    assert_eq!(
        ending(&record),
        (
            GameResult::WhiteWins,
            by(Tablebase),
            "White wins by adjudication: SyzygyTB"
        )
    );
    assert!(record.moves.is_empty());

    // Four pieces: beyond the fixture; the capture leaves KRvK. White's own resignation-worthy
    // score would lose it by the resign rule, but the tables come first.
    rules.resign = resign_rule(1, false).resign;
    let mut white = Scripted::new(&["b1b6"], &clock).score(Score::Cp(-900));
    let record = nodes_game_from(
        "k7/8/1n6/8/8/8/8/1R5K w - - 5 40",
        &rules,
        &mut white,
        &mut black,
    );
    assert_eq!(
        (record.reason.as_str(), record.moves.len()),
        ("White wins by adjudication: SyzygyTB", 1)
    );
}

#[test]
fn the_rules_of_chess_come_before_the_tables() {
    let clock = VirtualClock::default();
    let rules = tablebase_rule(TablebaseResults::Both);
    // Qxb6 stalemates: the tables would call it a draw by adjudication.
    let mut white = Scripted::new(&["b1b6"], &clock);
    let mut black = Scripted::new(&[], &clock);
    let record = nodes_game_from(
        "k7/8/1n6/8/8/8/8/1Q5K w - - 5 40",
        &rules,
        &mut white,
        &mut black,
    );
    assert_eq!(
        ending(&record),
        (GameResult::Draw, Termination::Normal, "Draw by stalemate")
    );
    // A drawn KRvK start (Black takes the rook) is adjudicated, unless only wins and losses are.
    let hanging_rook = "k7/R7/8/8/8/8/8/7K b - - 0 1";
    let mut black = Scripted::new(&["a8a7"], &clock);
    let record = nodes_game_from(hanging_rook, &rules, &mut white, &mut black);
    assert_eq!(
        ending(&record),
        (
            GameResult::Draw,
            by(Tablebase),
            "Draw by adjudication: SyzygyTB"
        )
    );
    let rules = tablebase_rule(TablebaseResults::WinLoss);
    let record = nodes_game_from(hanging_rook, &rules, &mut white, &mut black);
    assert_eq!(
        (record.reason.as_str(), record.moves.len()),
        ("Draw by insufficient mating material", 1)
    );
}

#[test]
fn a_stored_game_reads_back_as_the_rule_that_ended_it() {
    use crate::arena::AdjudicationCounts;
    let (white, black) = shufflers();
    let mut resigning = (white.score(Score::Cp(700)), black.score(Score::Cp(-700)));
    let (white, black) = shufflers();
    let mut drawish = (white.score(Score::Cp(0)), black.score(Score::Cp(0)));
    let (white, black) = shufflers();
    let mut xboard_resign = (white, black.fail_at(0, PlayerError::Resigned));
    let (mut white, mut black) = shufflers();
    let records = [
        nodes_game(&mut resigning.0, &mut resigning.1, &resign_rule(1, true)),
        nodes_game(&mut drawish.0, &mut drawish.1, &draw_rule(0, 1)),
        nodes_game(&mut xboard_resign.0, &mut xboard_resign.1, &draw_rule(0, 1)),
        nodes_game(
            &mut white,
            &mut black,
            &Adjudication {
                max_moves: Some(1),
                ..Adjudication::default()
            },
        ),
        nodes_game_from(
            "k7/8/8/8/8/8/8/1R5K w - - 0 1",
            &tablebase_rule(TablebaseResults::Both),
            &mut Scripted::new(&[], &VirtualClock::default()),
            &mut Scripted::new(&[], &VirtualClock::default()),
        ),
    ];
    let rules: Vec<Option<AdjudicationRule>> = records
        .iter()
        .map(|r| match r.termination {
            Termination::Adjudication(rule) => rule,
            _ => panic!("{} was not adjudicated", r.reason),
        })
        .collect();
    assert_eq!(
        rules,
        [
            Some(Resign),
            Some(Draw),
            None,
            Some(MaxMoves),
            Some(Tablebase)
        ]
    );
    let mut counts = AdjudicationCounts::default();
    for (record, rule) in records.iter().zip(&rules) {
        let tag = record.termination.tag();
        assert_eq!(AdjudicationRule::from_stored(tag, &record.reason), *rule);
        counts.add(record);
    }
    let expected = AdjudicationCounts {
        tablebase: 1,
        draw: 1,
        resign: 1,
        max_moves: 1,
    };
    assert_eq!(counts, expected);
}
