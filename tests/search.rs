//! Search behaviour: determinism under depth and node limits, mates, stalemate and draws.

use sparring::board::{Move, Position};
use sparring::eval::EvalParams;
use sparring::search::{Score, SearchLimits, SearchResult, Searcher};
use std::sync::Arc;

fn search(fen: &str, limits: SearchLimits) -> SearchResult {
    let pos = Position::from_fen(fen).unwrap();
    let mut searcher = Searcher::new(Arc::new(EvalParams::default()), 8);
    searcher.search(&pos, &[], &limits, |_| {})
}

const MIDDLEGAME: &str = "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10";

#[test]
fn same_depth_gives_same_move_and_node_count() {
    for fen in [Position::START_FEN, MIDDLEGAME] {
        let a = search(fen, SearchLimits::depth(8));
        let b = search(fen, SearchLimits::depth(8));
        assert_eq!(a.best_move, b.best_move);
        assert_eq!(a.nodes, b.nodes);
        assert_eq!(a.pv, b.pv);
        assert!(a.nodes > 100);
    }
}

#[test]
fn same_node_limit_gives_same_result_and_stops_near_it() {
    let a = search(MIDDLEGAME, SearchLimits::nodes(30_000));
    let b = search(MIDDLEGAME, SearchLimits::nodes(30_000));
    assert_eq!(
        (a.best_move, a.nodes, a.depth),
        (b.best_move, b.nodes, b.depth)
    );
    assert!(a.nodes <= 30_000, "searched {} nodes", a.nodes);
    assert!(a.depth >= 3);
}

#[test]
fn finds_mate_in_one_and_two() {
    let r = search(
        "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",
        SearchLimits::depth(4),
    );
    assert_eq!(r.best_move.to_string(), "a1a8");
    assert_eq!(r.score, Score::Mate(1));
    // King and rook: the king steps up, then the rook mates (checked with python-chess).
    let r = search("k7/8/2K5/8/8/8/8/7R w - - 0 1", SearchLimits::depth(6));
    assert_eq!(r.score, Score::Mate(2), "pv {:?}", r.pv);
}

#[test]
fn sees_being_mated() {
    // Black's only move is Kg8, then Qg7 mates (checked with python-chess).
    let r = search("7k/8/5Q1K/8/8/8/8/8 b - - 0 1", SearchLimits::depth(5));
    assert_eq!(r.score, Score::Mate(-1));
}

#[test]
fn no_move_in_mate_or_stalemate() {
    let mated = search(
        "R5k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 1",
        SearchLimits::depth(3),
    );
    assert_eq!(mated.best_move, Move::NULL);
    let stalemate = search("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", SearchLimits::depth(3));
    assert_eq!(stalemate.best_move, Move::NULL);
}

#[test]
fn pv_is_legal() {
    let r = search(MIDDLEGAME, SearchLimits::depth(9));
    let mut pos = Position::from_fen(MIDDLEGAME).unwrap();
    assert!(!r.pv.is_empty());
    for mv in &r.pv {
        assert!(pos.is_legal(*mv), "illegal {mv} in pv {:?}", r.pv);
        pos.make_move(*mv);
    }
}

#[test]
fn repetition_with_game_history_is_a_draw() {
    // A bare king against king and queen: hopeless, unless the game history lets White repeat.
    // History: Ka1-b1 Qe8-d8 Kb1-a1 Qd8-e8, so Ka1-b1 now repeats a position.
    let mut pos = Position::from_fen("4q2k/8/8/8/8/8/8/K7 w - - 0 1").unwrap();
    let mut keys = Vec::new();
    for uci in ["a1b1", "e8d8", "b1a1", "d8e8"] {
        let mv = *pos
            .legal_moves()
            .iter()
            .find(|m| m.to_string() == uci)
            .unwrap();
        keys.push(pos.key());
        pos.make_move(mv);
    }
    let mut searcher = Searcher::new(Arc::new(EvalParams::default()), 8);
    let fresh = Position::from_fen("4q2k/8/8/8/8/8/8/K7 w - - 0 1").unwrap();
    let without = searcher.search(&fresh, &[], &SearchLimits::depth(5), |_| {});
    assert!(without.score.as_cp() < -500, "{:?}", without.score);
    searcher.clear();
    let with = searcher.search(&pos, &keys, &SearchLimits::depth(5), |_| {});
    assert_eq!(with.score, Score::Cp(0));
    assert_eq!(with.best_move.to_string(), "a1b1");
}
