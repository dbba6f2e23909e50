//! The rules of the game over time (mate, stalemate, dead positions, repetitions, the move-count
//! rules) and the published Polyglot key vectors that repetition detection's keys rest on.

use sparring::board::{Color, Game, GameEnd, GameResult, IllegalMoveError, Position};

/// The test positions of the Polyglot book format specification (hgm.nubati.net/book_format.html):
/// moves from the start position, the FEN the specification gives, and the key.
const POLYGLOT_VECTORS: &[(&str, &str, u64)] = &[
    ("", Position::START_FEN, 0x463b96181691fc9c),
    (
        "e2e4",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
        0x823c9b50fd114196,
    ),
    (
        "e2e4 d7d5",
        "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2",
        0x0756b94461c50fb0,
    ),
    (
        "e2e4 d7d5 e4e5",
        "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2",
        0x662fafb965db29d4,
    ),
    (
        "e2e4 d7d5 e4e5 f7f5",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        0x22a48b5a8e47ff78,
    ),
    (
        "e2e4 d7d5 e4e5 f7f5 e1e2",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPPKPPP/RNBQ1BNR b kq - 0 3",
        0x652a607ca3f242c1,
    ),
    (
        "e2e4 d7d5 e4e5 f7f5 e1e2 e8f7",
        "rnbq1bnr/ppp1pkpp/8/3pPp2/8/8/PPPPKPPP/RNBQ1BNR w - - 0 4",
        0x00fdd303c946bdd9,
    ),
    (
        "a2a4 b7b5 h2h4 b5b4 c2c4",
        "rnbqkbnr/p1pppppp/8/8/PpP4P/8/1P1PPPP1/RNBQKBNR b KQkq c3 0 3",
        0x3c8123ea7b067637,
    ),
    (
        "a2a4 b7b5 h2h4 b5b4 c2c4 b4c3 a1a3",
        "rnbqkbnr/p1pppppp/8/8/P6P/R1p5/1P1PPPP1/1NBQKBNR b Kkq - 0 4",
        0x5c3f9b829b279560,
    ),
];

#[test]
fn polyglot_specification_keys() {
    for &(moves, fen, key) in POLYGLOT_VECTORS {
        let mut pos = Position::startpos();
        for text in moves.split_whitespace() {
            let mv = pos.parse_uci_move(text).unwrap();
            pos.make_move(mv);
        }
        assert_eq!(pos.key(), key, "after '{moves}': {pos}");
        assert_eq!(pos.compute_key(), key, "after '{moves}'");
        assert_eq!(Position::from_fen(fen).unwrap().key(), key, "{fen}");
    }
}

fn pos(fen: &str) -> Position {
    Position::from_fen(fen).unwrap()
}

/// Plays space-separated SAN moves.
fn play(game: &mut Game, sans: &str) {
    for san in sans.split_whitespace() {
        let mv = game.position().parse_san(san).unwrap();
        game.play(mv).unwrap();
    }
}

fn game(fen: &str) -> Game {
    Game::new(pos(fen))
}

#[test]
fn dead_positions() {
    for (fen, what) in [
        ("8/8/4k3/8/8/3K4/8/8 w - - 0 1", "K v K"),
        ("8/8/4k3/8/8/3K4/8/6N1 w - - 0 1", "K+N v K"),
        ("8/8/4k3/8/8/3K4/8/6B1 b - - 0 1", "K+B v K"),
        ("8/2n5/4k3/8/8/3K4/8/8 w - - 0 1", "K v K+N"),
        ("8/2b5/4k3/8/8/3K4/8/8 w - - 0 1", "K v K+B"),
        (
            "5b2/8/4k3/8/8/3K4/8/2B5 w - - 0 1",
            "K+B v K+B, both bishops on dark squares",
        ),
        (
            "5b2/8/4k2b/8/8/3KB3/8/2B5 w - - 0 1",
            "two bishops each, all on dark squares",
        ),
        (
            "8/8/4k3/8/8/3K4/8/5B1B w - - 0 1",
            "K+B+B v K, both on light squares",
        ),
    ] {
        assert!(pos(fen).is_insufficient_material(), "{what}: {fen}");
    }
}

#[test]
fn positions_that_are_not_dead() {
    for (fen, what) in [
        (
            "8/8/4k3/8/8/3K4/8/5NN1 w - - 0 1",
            "K+N+N v K (mate needs help, but exists)",
        ),
        (
            "2b5/8/4k3/8/8/3K4/8/2B5 w - - 0 1",
            "K+B v K+B, opposite colours",
        ),
        ("2n5/8/4k3/8/8/3K4/8/2B5 w - - 0 1", "K+B v K+N"),
        ("2n5/8/4k3/8/8/3K4/8/2N5 w - - 0 1", "K+N v K+N"),
        (
            "8/8/4k3/8/8/3K4/8/2B2B2 w - - 0 1",
            "K+B+B v K, opposite colours",
        ),
        ("8/8/4k3/8/8/3K4/8/2B2N2 w - - 0 1", "K+B+N v K"),
        ("8/8/4k3/8/8/3K4/4P3/8 w - - 0 1", "K+P v K"),
        ("8/8/4k3/8/8/3K4/8/R7 w - - 0 1", "K+R v K"),
        ("8/8/4k3/8/8/3K4/8/Q7 w - - 0 1", "K+Q v K"),
        (
            "5b2/8/4k3/8/8/3K4/3P4/2B5 w - - 0 1",
            "same-colour bishops plus a pawn",
        ),
        (Position::START_FEN, "the start position"),
    ] {
        assert!(!pos(fen).is_insufficient_material(), "{what}: {fen}");
    }
}

#[test]
fn checkmate_ends_the_game_with_a_winner() {
    let mut g = Game::new(Position::startpos());
    play(&mut g, "f3 e5 g4");
    assert_eq!(g.status(), None);
    play(&mut g, "Qh4#");
    let end = GameEnd::Checkmate {
        winner: Color::Black,
    };
    assert_eq!(g.status(), Some(end));
    assert_eq!(g.status_with_claims(), Some(end));
    assert_eq!(g.claimable_draw(), None);
    assert_eq!(end.result(), GameResult::BlackWins);
    assert_eq!(end.result().to_string(), "0-1");
    assert_eq!(end.reason(), "Black mates");
    assert!(!end.is_claim());
    assert!(g.position().is_checkmate());
    assert_eq!(g.moves().len(), 4);
    assert_eq!(g.start(), &Position::startpos());
}

#[test]
fn stalemate_is_an_automatic_draw() {
    let mut g = game("7k/8/6K1/8/8/8/5Q2/8 w - - 0 1");
    play(&mut g, "Qf7");
    assert!(g.position().is_stalemate());
    assert_eq!(g.status(), Some(GameEnd::Stalemate));
    assert_eq!(GameEnd::Stalemate.result(), GameResult::Draw);
    assert_eq!(GameEnd::Stalemate.result().to_string(), "1/2-1/2");
}

#[test]
fn capturing_down_to_bare_kings_ends_the_game() {
    let mut g = game("4k3/8/8/8/8/8/4r3/4K3 w - - 0 1");
    assert_eq!(g.status(), None);
    play(&mut g, "Kxe2");
    assert_eq!(g.status(), Some(GameEnd::InsufficientMaterial));
    assert!(!GameEnd::InsufficientMaterial.is_claim());
}

#[test]
fn threefold_is_a_claim_and_fivefold_ends_the_game() {
    let mut g = Game::new(Position::startpos());
    assert_eq!(g.repetition_count(), 1);
    play(&mut g, "Nf3 Nf6 Ng1 Ng8");
    assert_eq!(g.repetition_count(), 2);
    assert_eq!(g.claimable_draw(), None);
    play(&mut g, "Nf3");
    assert_eq!(g.repetition_count(), 2, "the position after 1. Nf3, twice");
    play(&mut g, "Nf6 Ng1 Ng8");
    assert_eq!(g.repetition_count(), 3);
    assert_eq!(g.status(), None, "threefold is only a claim");
    assert_eq!(g.claimable_draw(), Some(GameEnd::ThreefoldRepetition));
    assert_eq!(g.status_with_claims(), Some(GameEnd::ThreefoldRepetition));
    assert!(GameEnd::ThreefoldRepetition.is_claim());
    play(&mut g, "Nf3 Nf6 Ng1 Ng8");
    assert_eq!(g.repetition_count(), 4);
    assert_eq!(g.status(), None);
    play(&mut g, "Nf3 Nf6 Ng1 Ng8");
    assert_eq!(g.repetition_count(), 5);
    assert_eq!(g.status(), Some(GameEnd::FivefoldRepetition));
    assert_eq!(g.status_with_claims(), Some(GameEnd::FivefoldRepetition));
    assert_eq!(GameEnd::FivefoldRepetition.result(), GameResult::Draw);
}

#[test]
fn lost_castling_rights_make_a_different_position() {
    let mut g = game("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    play(&mut g, "Rg1 Rg8 Rh1 Rh8");
    assert_eq!(
        g.repetition_count(),
        1,
        "same placement, but the king-side rights are gone"
    );
    play(&mut g, "Rg1 Rg8 Rh1 Rh8");
    assert_eq!(g.repetition_count(), 2);
    play(&mut g, "Rg1 Rg8 Rh1 Rh8");
    assert_eq!(g.repetition_count(), 3);
    assert_eq!(g.claimable_draw(), Some(GameEnd::ThreefoldRepetition));
}

#[test]
fn a_legal_en_passant_capture_makes_a_different_position() {
    // After d4 Black may take en passant; after the kings' round trip Black may not.
    let mut g = game("4k3/8/8/8/4p3/8/3P4/4K3 w - - 0 1");
    play(&mut g, "d4");
    assert!(g.position().en_passant_square().is_some());
    play(&mut g, "Ke7 Ke2 Ke8 Ke1");
    assert_eq!(g.repetition_count(), 1);
    play(&mut g, "Ke7 Ke2 Ke8 Ke1");
    assert_eq!(g.repetition_count(), 2);
    play(&mut g, "Ke7 Ke2 Ke8 Ke1");
    assert_eq!(g.repetition_count(), 3);
}

#[test]
fn an_en_passant_capture_that_is_not_legal_changes_nothing() {
    // No black pawn can capture: the double push leaves a position that repeats.
    let mut g = game("4k3/8/8/8/8/8/3P4/4K3 w - - 0 1");
    play(&mut g, "d4 Ke7 Ke2 Ke8 Ke1");
    assert_eq!(g.repetition_count(), 2);
    // The e4 pawn stands beside d4 but is pinned along the rank by the h4 rook: the capture would
    // expose its king, so the position after d4 repeats too.
    let mut g = game("8/8/8/8/k3p2R/8/3P4/4K3 w - - 0 1");
    play(&mut g, "d4");
    assert_eq!(g.position().en_passant_square(), None);
    play(&mut g, "Ka5 Ke2 Ka4 Ke1");
    assert_eq!(g.repetition_count(), 2);
}

#[test]
fn repetitions_count_only_since_the_last_capture_or_pawn_move() {
    let mut g = Game::new(Position::startpos());
    play(&mut g, "Nf3 Nf6 Ng1 Ng8");
    assert_eq!(g.repetition_count(), 2);
    play(&mut g, "e4 e5 Nf3 Nf6 Ng1 Ng8");
    assert_eq!(g.position().halfmove_clock(), 4);
    assert_eq!(
        g.repetition_count(),
        2,
        "the first two occurrences came before e4 and e5"
    );
    // A start position whose clock reaches further back than the recorded history.
    let mut g = game("4k3/8/8/8/8/8/8/R3K3 w - - 90 70");
    assert_eq!(g.repetition_count(), 1);
    play(&mut g, "Ra2 Kd8 Ra1 Ke8");
    assert_eq!(g.repetition_count(), 2);
}

#[test]
fn fifty_moves_is_a_claim_and_seventy_five_moves_ends_the_game() {
    let mut g = game("4k3/8/8/8/8/8/8/R3K3 w - - 98 80");
    play(&mut g, "Ra2");
    assert_eq!(g.claimable_draw(), None, "99 half-moves");
    play(&mut g, "Kd8");
    assert_eq!(g.position().halfmove_clock(), 100);
    assert_eq!(g.status(), None);
    assert_eq!(g.claimable_draw(), Some(GameEnd::FiftyMoveRule));
    assert_eq!(g.status_with_claims(), Some(GameEnd::FiftyMoveRule));
    assert!(GameEnd::FiftyMoveRule.is_claim());

    let mut g = game("4k3/8/8/8/8/8/8/R3K3 w - - 148 120");
    play(&mut g, "Ra2");
    assert_eq!(g.status(), None, "149 half-moves");
    play(&mut g, "Kd8");
    assert_eq!(g.status(), Some(GameEnd::SeventyFiveMoveRule));
    assert!(!GameEnd::SeventyFiveMoveRule.is_claim());

    // A pawn move at the 100th half-move resets the count.
    let mut g = game("4k3/8/8/8/8/8/4P3/R3K3 w - - 99 80");
    play(&mut g, "e3");
    assert_eq!(g.status_with_claims(), None);
}

#[test]
fn mate_on_the_last_half_move_beats_the_move_count_rules() {
    for (clock, fen) in [
        (100, "7k/8/6K1/8/8/8/8/R7 w - - 99 80"),
        (150, "7k/8/6K1/8/8/8/8/R7 w - - 149 120"),
    ] {
        let mut g = game(fen);
        play(&mut g, "Ra8#");
        assert_eq!(g.position().halfmove_clock(), clock);
        let mate = GameEnd::Checkmate {
            winner: Color::White,
        };
        assert_eq!(g.status(), Some(mate), "{clock}");
        assert_eq!(g.claimable_draw(), None, "{clock}");
        assert_eq!(g.status_with_claims(), Some(mate), "{clock}");
        assert_eq!(mate.result().to_string(), "1-0");
    }
}

#[test]
fn an_illegal_move_is_refused_and_changes_nothing() {
    let mut g = Game::new(Position::startpos());
    play(&mut g, "e4");
    let white_move = Position::startpos().parse_uci_move("d2d4").unwrap();
    let before = g.position().clone();
    let err = g.play(white_move).unwrap_err();
    assert_eq!(
        err,
        IllegalMoveError {
            mv: white_move,
            fen: before.to_fen(),
        }
    );
    assert!(err.to_string().contains("d2d4"), "{err}");
    assert_eq!(g.position(), &before);
    assert_eq!(g.moves().len(), 1);
}

#[test]
fn every_ending_has_a_result_and_a_reason() {
    let all = [
        (
            GameEnd::Checkmate {
                winner: Color::White,
            },
            "1-0",
            false,
        ),
        (
            GameEnd::Checkmate {
                winner: Color::Black,
            },
            "0-1",
            false,
        ),
        (GameEnd::Stalemate, "1/2-1/2", false),
        (GameEnd::InsufficientMaterial, "1/2-1/2", false),
        (GameEnd::ThreefoldRepetition, "1/2-1/2", true),
        (GameEnd::FivefoldRepetition, "1/2-1/2", false),
        (GameEnd::FiftyMoveRule, "1/2-1/2", true),
        (GameEnd::SeventyFiveMoveRule, "1/2-1/2", false),
    ];
    let mut reasons = std::collections::HashSet::new();
    for (end, result, claim) in all {
        assert_eq!(end.result().to_string(), result, "{end:?}");
        assert_eq!(end.is_claim(), claim, "{end:?}");
        assert_eq!(end.to_string(), end.reason());
        assert!(reasons.insert(end.reason()), "{end:?}");
    }
    assert_eq!(GameResult::win_for(Color::White).to_string(), "1-0");
}
