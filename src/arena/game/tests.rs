//! The arbiter against scripted players on virtual time: the rules, the adjudications in their
//! order, the clocks and every way a player can fail.

use super::*;
use crate::arena::config::{
    DrawAdjudication, ResignAdjudication, TablebaseAdjudication, TablebaseResults,
};
use crate::arena::scripted::{Scripted, VirtualClock};
use crate::record::AdjudicationRule::{self, Draw, MaxMoves, Resign, Tablebase};
use crate::score::Score;

const SHUFFLE_WHITE: [&str; 4] = ["g1f3", "f3g1", "g1f3", "f3g1"];
const SHUFFLE_BLACK: [&str; 4] = ["g8f6", "f6g8", "g8f6", "f6g8"];

/// Plays a game from `start` (after `book`) on `clock`'s virtual time.
fn play_from(
    start: &Position,
    book: &[Move],
    controls: [&TimeControl; 2],
    adjudication: &Adjudication,
    players: [&mut Scripted; 2],
    clock: &VirtualClock,
) -> GameRecord {
    let setup = GameSetup {
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
    };
    let clock = clock.clone();
    let [white, black] = players;
    play_game_timed(&setup, [white, black], &move || clock.now())
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
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/syzygy");
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
