use super::*;

fn game(fen: &str, moves: &[&str]) -> Game {
    let mut game = Game::new(fen.parse().unwrap());
    for text in moves {
        let mv = game.position().parse_uci_move(text).unwrap();
        game.play(mv).unwrap();
    }
    game
}

fn reply(bestmove: &str, lines: &[&str]) -> EngineReply {
    let mut output: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    output.push(format!("bestmove {bestmove}"));
    EngineReply {
        bestmove: bestmove.to_string(),
        output,
        ..EngineReply::default()
    }
}

fn heads(game: &Game, reply: &EngineReply, checks: ComplianceChecks) -> Vec<String> {
    let played = game.position().parse_uci_move(&reply.bestmove).ok();
    check_reply(game, reply, played, checks)
        .warnings
        .iter()
        .map(|w| w.fastchess_parts("E", "O")[0].clone())
        .collect()
}

const MATE_CHECKS: ComplianceChecks = ComplianceChecks {
    mate_pvs: true,
    latency: false,
};
/// White mates in one with Qh5xf7 (scholar's mate) or, after it, nothing is legal.
const SCHOLAR: &str = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4";

#[test]
fn a_clean_reply_gives_no_warning() {
    let g = game(Position::START_FEN, &[]);
    let r = reply(
        "e2e4",
        &[
            "info depth 1 score cp 20 pv e2e4",
            "info depth 2 multipv 2 score cp 10 pv d2d4 d7d5",
            "info string hello",
            "info depth 2 score cp 15 lowerbound pv e2e4",
            "info depth 2 score cp 18 pv e2e4 e7e5",
        ],
    );
    assert!(heads(&g, &r, MATE_CHECKS).is_empty());
    let mate = game(SCHOLAR, &[]);
    let r = reply("h5f7", &["info depth 1 score mate 1 pv h5f7"]);
    assert!(heads(&mate, &r, MATE_CHECKS).is_empty());
    // Only `bestmove`: nothing is read.
    let r = reply("e2e4", &[]);
    assert!(heads(&g, &r, MATE_CHECKS).is_empty());
}

#[test]
fn pv_moves_are_replayed_on_the_game_board() {
    let g = game(Position::START_FEN, &["e2e4"]);
    let r = reply("e7e5", &["info depth 3 score cp 0 pv e7e5 g1f3 a1a1"]);
    let warnings = check_reply(
        &g,
        &r,
        g.position().parse_uci_move("e7e5").ok(),
        MATE_CHECKS,
    );
    let parts = warnings.warnings[0].fastchess_parts("E", "O");
    assert_eq!(
        parts,
        [
            "Warning; Illegal PV move - move a1a1 from E",
            "Info; info depth 3 score cp 0 pv e7e5 g1f3 a1a1",
            "Position; startpos",
            "Moves; e2e4",
        ]
    );
    // After a mate the next PV move is illegal (fastchess 58072f2's wording).
    let mate = game(SCHOLAR, &[]);
    let r = reply("h5f7", &["info depth 1 score mate 1 pv h5f7 e8e7"]);
    assert_eq!(
        heads(&mate, &r, MATE_CHECKS),
        ["Warning; Illegal PV move - move e8e7 from E"]
    );
}

#[test]
fn a_pv_past_a_repetition_or_fifty_moves_is_named() {
    let shuffle = ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"];
    let g = game(Position::START_FEN, &shuffle);
    let r = reply("f6g8", &["info depth 2 score cp 0 pv f6g8 g1f3"]);
    assert_eq!(
        heads(&g, &r, MATE_CHECKS),
        ["Warning; PV continues after threefold repetition - move g1f3 from E"]
    );
    let fifty = game("8/8/8/4k3/8/8/R7/4K3 w - - 99 80", &[]);
    let r = reply("a2a3", &["info depth 2 score cp 500 pv a2a3 e5e4"]);
    assert_eq!(
        heads(&fifty, &r, MATE_CHECKS),
        ["Warning; PV continues after fifty-move rule - move e5e4 from E"]
    );
}

#[test]
fn mating_pvs_are_checked_only_when_asked() {
    let mate = game(SCHOLAR, &[]);
    let cases = [
        ("info depth 3 score mate 2 pv h5f7", "Incomplete mating PV"),
        (
            "info depth 3 score mate 1 pv c4b5 a7a6 b5c6",
            "Too long mating PV",
        ),
        (
            "info depth 3 score mate 1 pv h5h6",
            "Mating PV does not end with checkmate",
        ),
        ("info depth 3 score mate 0 pv h5f7", "Too long mating PV"),
    ];
    for (line, text) in cases {
        let bestmove = line
            .split(" pv ")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap();
        let r = reply(bestmove, &[line]);
        assert_eq!(
            heads(&mate, &r, MATE_CHECKS),
            [format!("Warning; {text} - from E")],
            "{line}"
        );
        assert!(heads(&mate, &r, ComplianceChecks::default()).is_empty());
    }
    // Bound lines are not mate-checked.
    let r = reply("h5f7", &["info depth 3 score mate 2 lowerbound pv h5f7"]);
    assert!(heads(&mate, &r, MATE_CHECKS).is_empty());
}

#[test]
fn the_bestmove_must_head_the_last_first_pv() {
    let g = game(Position::START_FEN, &[]);
    let r = reply(
        "d2d4",
        &[
            "info depth 1 score cp 20 pv e2e4",
            "info depth 1 multipv 2 score cp 10 pv d2d4",
        ],
    );
    assert_eq!(
        heads(&g, &r, MATE_CHECKS),
        ["Warning; Bestmove does not match beginning of last PV - move d2d4 from E"]
    );
    // The newest first-PV line is a bound: nothing to compare.
    let r = reply(
        "d2d4",
        &[
            "info depth 1 score cp 20 pv e2e4",
            "info depth 2 score cp 30 upperbound pv e2e4",
        ],
    );
    assert!(heads(&g, &r, MATE_CHECKS).is_empty());
}

#[test]
fn scores_moves_and_lines_are_checked_in_fastchess_order() {
    let g = game(Position::START_FEN, &[]);
    assert_eq!(
        heads(&g, &reply("e2e4", &["info string only"]), MATE_CHECKS),
        ["Warning; No info line available to extract score from engine E"]
    );
    assert_eq!(
        heads(&g, &reply("e2e4", &["info depth 1 score cp"]), MATE_CHECKS),
        ["Warning; Could not extract score from engine E: Element 'score' has no type or value"]
    );
    assert_eq!(
        heads(
            &g,
            &reply("e2e4", &["info depth 1 score cp x1"]),
            MATE_CHECKS
        ),
        ["Warning; Could not extract score from engine E: Invalid score value: x1"]
    );
    assert_eq!(
        heads(&g, &reply("E2E4", &[]), MATE_CHECKS),
        [
            "Warning; Move does not match uci move format, lowercase and 4/5 chars. Move E2E4 played by E",
            "Warning; Illegal move E2E4 played by E",
        ]
    );
    assert_eq!(
        heads(&g, &reply("e2e5", &[]), MATE_CHECKS),
        ["Warning; Illegal move e2e5 played by E"]
    );
    let mut bare = reply("", &[]);
    bare.output = vec!["bestmove".to_string()];
    assert_eq!(
        heads(&g, &bare, MATE_CHECKS),
        [
            "Warning; No bestmove found from E because: Element 'bestmove' not found. Last line was: bestmove",
            "Warning; Illegal move <none> played by E",
        ]
    );
}

#[test]
fn two_engines_claiming_the_same_mate_disagree() {
    let g = game(Position::START_FEN, &["e2e4", "e7e5"]);
    let theirs = (3, "info score mate 3".to_string());
    let ours = (2, "info score mate 2".to_string());
    let w = mate_sign_mismatch(&g, &theirs, &ours, Color::Black).unwrap();
    assert_eq!(
        w.fastchess_parts("B", "A"),
        [
            "Warning; Sign mismatch in mate scores 3 and 2 from A (White) and B (Black)",
            "Infos; info score mate 3 ; info score mate 2",
            "Position; startpos",
            "Moves; e2e4 e7e5",
        ]
    );
    let agreeing = (-2, "info score mate -2".to_string());
    assert!(mate_sign_mismatch(&g, &theirs, &agreeing, Color::Black).is_none());
}

#[test]
fn latency_is_elapsed_less_reported() {
    let g = game(Position::START_FEN, &[]);
    let mut r = reply("e2e4", &["info depth 1 score cp 1 time 100 pv e2e4"]);
    r.answer_time = Some(Duration::from_millis(103));
    let checks = ComplianceChecks {
        latency: true,
        ..ComplianceChecks::default()
    };
    let found = check_reply(&g, &r, g.position().parse_uci_move("e2e4").ok(), checks);
    assert!(!found.warnings[0].is_warning());
    assert_eq!(
        found.warnings[0].fastchess_parts("E", "O"),
        ["Engine E latency: 3ms (elapsed: 103, reported: 100)"]
    );
}

#[test]
fn uci_move_syntax_is_fastchess_s() {
    for good in ["e2e4", "a7a8q", "h1a8"] {
        assert!(is_uci_move_text(good), "{good}");
    }
    for bad in [
        "E2E4", "e7e8Q", "0000", "(none)", "e2e", "e2e4qq", "i1a1", "e7e8k",
    ] {
        assert!(!is_uci_move_text(bad), "{bad}");
    }
}
