//! Search behaviour: determinism under depth and node limits, mates, stalemate and draws.

use sparring::board::{Move, Position};
use sparring::eval::EvalParams;
use sparring::score::Score;
use sparring::search::{Evaluator, SearchLimits, SearchResult, Searcher};
use std::sync::Arc;

use crate::common;
use common::absurd_params;

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

/// Runs `search` on its own thread; a search that never ends fails the test instead of hanging
/// it (the guard is generous: it only catches an endless search, it measures nothing).
fn search_guarded(params: EvalParams, fen: &str, limits: SearchLimits) -> (Position, SearchResult) {
    let pos = Position::from_fen(fen).unwrap();
    let (send, receive) = std::sync::mpsc::channel();
    let searched = pos.clone();
    std::thread::spawn(move || {
        let mut searcher = Searcher::new(Arc::new(params), 8);
        let _ = send.send(searcher.search(&searched, &[], &limits, |_| {}));
    });
    let result = receive
        .recv_timeout(std::time::Duration::from_secs(300))
        .expect("the search never ended");
    (pos, result)
}

const QUEENS_UP: &str = "r3k2r/ppp1pppp/8/8/8/8/PPPQQPPP/R3K2R w KQkq - 0 1";

#[test]
fn absurd_weights_are_clamped_and_the_search_keeps_its_limits() {
    let params = absurd_params();
    let pos = Position::from_fen(QUEENS_UP).unwrap();
    let raw = sparring::eval::evaluate(&pos, &params);
    // The weights drive the evaluation past any real score: the evaluation stops at its clamp.
    assert_eq!(
        raw.abs(),
        sparring::eval::MAX_EVAL,
        "the weights should drive the evaluation to its clamp: {raw}"
    );
    for limits in [
        SearchLimits::nodes(20_000),
        SearchLimits::depth(4),
        SearchLimits::movetime(std::time::Duration::from_millis(50)),
    ] {
        let (pos, result) = search_guarded(params.clone(), QUEENS_UP, limits.clone());
        assert!(
            pos.is_legal(result.best_move),
            "{limits:?}: {}",
            result.best_move
        );
        if let Some(nodes) = limits.nodes {
            assert!(result.nodes <= nodes, "{} nodes", result.nodes);
        }
        // No mate is near: an evaluation beyond the mate range must not pass for one.
        match result.score {
            Score::Cp(cp) => assert!(cp.abs() <= sparring::search::MAX_EVAL, "{cp}"),
            mate => panic!("{limits:?}: scored {mate:?}"),
        }
    }
}

#[test]
fn a_fixed_move_time_is_spent_in_full() {
    // Before, the iteration heuristic for clocks stopped a 300 ms search after about half.
    let movetime = std::time::Duration::from_millis(300);
    let result = search(Position::START_FEN, SearchLimits::movetime(movetime));
    assert!(result.time >= movetime, "returned after {:?}", result.time);
}

fn uci_move(pos: &Position, text: &str) -> Move {
    pos.parse_uci_move(text).unwrap()
}

#[test]
fn searchmoves_restrict_the_root() {
    let pos = Position::startpos();
    let limits = SearchLimits {
        searchmoves: vec![uci_move(&pos, "a2a3"), uci_move(&pos, "h2h4")],
        ..SearchLimits::depth(6)
    };
    let mut searcher = Searcher::new(Arc::new(EvalParams::default()), 8);
    let mut first_moves = Vec::new();
    let result = searcher.search(&pos, &[], &limits, |info| first_moves.push(info.pv[0]));
    assert!(["a2a3", "h2h4"].contains(&result.best_move.to_string().as_str()));
    assert!(first_moves.iter().all(|m| limits.searchmoves.contains(m)));
    // The restricted search left nothing behind that changes an unrestricted one.
    searcher.clear();
    let free = searcher.search(&pos, &[], &SearchLimits::depth(6), |_| {});
    let fresh = search(Position::START_FEN, SearchLimits::depth(6));
    assert_eq!((free.best_move, free.nodes), (fresh.best_move, fresh.nodes));
}

#[test]
fn multipv_reports_distinct_lines_and_keeps_the_best_first() {
    let pos = Position::from_fen(MIDDLEGAME).unwrap();
    let limits = SearchLimits {
        multipv: 3,
        ..SearchLimits::depth(6)
    };
    let mut searcher = Searcher::new(Arc::new(EvalParams::default()), 8);
    let mut infos = Vec::new();
    let result = searcher.search(&pos, &[], &limits, |info| infos.push(info.clone()));
    for depth in 1..=6 {
        let lines: Vec<_> = infos.iter().filter(|i| i.depth == depth).collect();
        let numbers: Vec<u32> = lines.iter().map(|i| i.multipv).collect();
        assert_eq!(numbers, [1, 2, 3], "depth {depth}");
        let mut firsts: Vec<Move> = lines.iter().map(|i| i.pv[0]).collect();
        firsts.dedup();
        assert_eq!(firsts.len(), 3, "depth {depth}: {firsts:?}");
    }
    let last_best = infos.iter().rev().find(|i| i.multipv == 1).unwrap();
    assert_eq!(result.best_move, last_best.pv[0]);
    // Never more lines than legal moves: two here.
    let two_moves = Position::from_fen("7k/8/8/8/8/8/8/K6r w - - 0 1").unwrap();
    let limits = SearchLimits {
        multipv: 5,
        ..SearchLimits::depth(3)
    };
    let mut lines = Vec::new();
    searcher.search(&two_moves, &[], &limits, |info| lines.push(info.multipv));
    assert_eq!(lines.iter().max(), Some(&2), "{lines:?}");
}

#[test]
fn a_root_without_moves_is_reported_at_depth_zero() {
    for (fen, score) in [
        ("R5k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 1", Score::Mate(0)),
        ("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", Score::Cp(0)),
    ] {
        let pos = Position::from_fen(fen).unwrap();
        let mut searcher = Searcher::new(Arc::new(EvalParams::default()), 1);
        let mut infos = Vec::new();
        let result = searcher.search(&pos, &[], &SearchLimits::depth(4), |info| {
            infos.push((info.depth, info.score, info.pv.len()))
        });
        assert_eq!(infos, [(0, score, 0)], "{fen}");
        assert_eq!((result.best_move, result.score), (Move::NULL, score));
    }
}

#[test]
fn the_root_move_listener_sees_every_root_move_in_order() {
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut searcher = Searcher::new(Arc::new(EvalParams::default()), 8);
    let sink = seen.clone();
    searcher.set_root_move_listener(Some(Box::new(move |root| {
        sink.lock().unwrap().push(*root);
    })));
    let pos = Position::startpos();
    searcher.search(&pos, &[], &SearchLimits::depth(3), |_| {});
    let seen = seen.lock().unwrap();
    let first_iteration: Vec<_> = seen.iter().filter(|r| r.depth == 1).collect();
    assert_eq!(first_iteration.len(), 20);
    for (i, root) in first_iteration.iter().enumerate() {
        assert_eq!(root.number as usize, i + 1);
        assert!(pos.is_legal(root.mv));
    }
    assert!(seen.iter().any(|r| r.depth == 3));
}

#[test]
fn a_pondering_search_waits_for_ponderhit() {
    // Mate in one is found at once; a pondering search still holds its answer until released.
    let pos = Position::from_fen("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1").unwrap();
    let mut searcher = Searcher::new(Arc::new(EvalParams::default()), 1);
    let ponder = searcher.ponder_handle();
    ponder.store(true, std::sync::atomic::Ordering::Relaxed);
    let (send, receive) = std::sync::mpsc::channel();
    let handle = std::thread::spawn(move || {
        let limits = SearchLimits::movetime(std::time::Duration::from_millis(1));
        searcher.search(&pos, &[], &limits, |info| {
            let _ = send.send(info.depth);
        })
    });
    // The iterations run and end (the mate is within depth)...
    let mut depth = 0;
    while depth < 1 {
        depth = receive.recv().unwrap();
    }
    // ...and the answer waits, however long the move time was, until the ponderhit.
    std::thread::yield_now();
    assert!(!handle.is_finished(), "answered while pondering");
    ponder.store(false, std::sync::atomic::Ordering::Relaxed);
    let result = handle.join().unwrap();
    assert_eq!(result.best_move.to_string(), "a1a8");
}

#[test]
fn hash_tables_are_allocated_fallibly() {
    let max = sparring::search::max_hash_mb();
    assert!(max >= 1);
    let params = Arc::new(EvalParams::default());
    assert!(matches!(
        Searcher::try_new(params.clone(), usize::MAX),
        Err(sparring::search::TableAllocError::TooLarge { .. })
    ));
    let mut searcher = Searcher::try_new(params, 2).unwrap();
    assert!(searcher.try_set_hash_mb(max + 1).is_err());
    // The old table is kept and still works.
    let result = searcher.search(&Position::startpos(), &[], &SearchLimits::depth(4), |_| {});
    assert!(!result.best_move.is_null());
}

// ---------------------------------------------------------------------------------------------
// Search parameters (issue 14)

use sparring::search::bench_positions::{search_bench_with, DEFAULT_BENCH_DEPTH};
use sparring::search::{SearchParams, SEARCH_PARAMS};

/// The shipped search file, from the crate root.
fn shipped_search_file() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/search/default.toml")
}

#[test]
fn the_shipped_search_file_holds_the_defaults() {
    let shipped = SearchParams::load(shipped_search_file()).unwrap();
    assert_eq!(shipped, SearchParams::default());
    // Every parameter is written out, none left to the defaults.
    let text = std::fs::read_to_string(shipped_search_file()).unwrap();
    for spec in SEARCH_PARAMS {
        let (group, key) = spec.key.split_once('.').unwrap();
        assert!(text.contains(&format!("[{group}]")), "{}", spec.key);
        assert!(text.contains(&format!("\n{key} = ")), "{}", spec.key);
    }
}

#[test]
fn the_shipped_search_file_keeps_the_bench_signature() {
    let shipped = SearchParams::load(shipped_search_file()).unwrap();
    let bench = search_bench_with(
        DEFAULT_BENCH_DEPTH,
        EvalParams::default(),
        &shipped,
        |_, _| {},
    );
    assert_eq!(bench.nodes, 2_458_250);
}

/// Nodes of fixed-depth searches of three positions with `search`.
fn node_total(search: &SearchParams) -> u64 {
    node_total_with(search, &Evaluator::hand_crafted())
}

/// As `node_total`, with `evaluator` (`eval.*` acts only on a network).
fn node_total_with(search: &SearchParams, evaluator: &Evaluator) -> u64 {
    let fens = [
        Position::START_FEN,
        MIDDLEGAME,
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    ];
    fens.iter()
        .map(|fen| {
            let pos = Position::from_fen(fen).unwrap();
            let mut searcher = Searcher::new(Arc::new(EvalParams::default()), 8);
            searcher.set_evaluator(evaluator);
            searcher.set_search_params(search.clone());
            searcher
                .search(&pos, &[], &SearchLimits::depth(9), |_| {})
                .nodes
        })
        .sum()
}

/// ProbCut cuts: with it the fixed-depth searches of `node_total` need fewer nodes than with
/// it switched off (a minimum depth no search reaches).
#[test]
fn probcut_prunes_the_tree() {
    let mut off = SearchParams::default();
    off.set("probcut.min_depth", 128.0).unwrap();
    let (with, without) = (node_total(&SearchParams::default()), node_total(&off));
    assert!(
        with < without,
        "{with} nodes with ProbCut, {without} without"
    );
}

#[test]
fn every_search_parameter_changes_the_search() {
    // `time.*` acts only under a clock, which no deterministic test runs: src/search/time.rs's
    // tests show that each one changes the time budget.
    // `eval.*` scales a network's output: searched with the shipped net, the rest with the HCE.
    let (hce, net) = (Evaluator::hand_crafted(), Evaluator::default());
    let hce_total = node_total_with(&SearchParams::default(), &hce);
    let net_total = node_total_with(&SearchParams::default(), &net);
    for spec in SEARCH_PARAMS.iter().filter(|spec| spec.group() != "time") {
        let (evaluator, default_total) = match spec.group() {
            "eval" => (&net, net_total),
            _ => (&hce, hce_total),
        };
        let node_total = |params: &SearchParams| node_total_with(params, evaluator);
        // A value that changes the tree shows up at one of the range's ends, or near the default.
        let near = (spec.default * 2.0).max(spec.default + 1.0).min(spec.max);
        let candidates = [spec.min, spec.max, near];
        // A constant that only acts with its group's others (a depth limit beside a margin) is
        // tried with them at their smallest as well.
        let mut group_at_min = SearchParams::default();
        for other in SEARCH_PARAMS.iter().filter(|o| o.group() == spec.group()) {
            group_at_min.set(other.key, other.min).unwrap();
        }
        let changes = [SearchParams::default(), group_at_min].iter().any(|start| {
            let base = match *start == SearchParams::default() {
                true => default_total,
                false => node_total(start),
            };
            candidates.iter().any(|&value| {
                let mut params = start.clone();
                params.set(spec.key, value).unwrap();
                node_total(&params) != base
            })
        });
        assert!(changes, "{} changes nothing at {candidates:?}", spec.key);
    }
}

fn search_file_error(text: &str) -> String {
    SearchParams::from_toml_str(text, "s.toml")
        .unwrap_err()
        .to_string()
}

#[test]
fn search_file_errors_name_file_line_column_and_key() {
    assert_eq!(
        search_file_error("[lmr]\nbase = 0.5\nbsae = 1\n"),
        "s.toml:3:1: unknown key `lmr.bsae` (expected one of `lmr.base`, `lmr.divisor`, \
         `lmr.min_depth`, `lmr.min_moves`, `lmr.pv`, `lmr.not_improving`, `lmr.killer`, \
         `lmr.history_divisor`)"
    );
    let unknown_group = search_file_error("[lmrr]\nbase = 1\n");
    assert!(
        unknown_group.starts_with("s.toml:1:2: unknown key `lmrr`"),
        "{unknown_group}"
    );
    assert_eq!(
        search_file_error("[nmp]\nbase = 40\n"),
        "s.toml:2:8: `nmp.base` is the integer 40, expected an integer from 0 to 32"
    );
    assert_eq!(
        search_file_error("[nmp]\nbase = 2.5\n"),
        "s.toml:2:8: `nmp.base` is the float 2.5, expected an integer from 0 to 32"
    );
    assert_eq!(
        search_file_error("\n[lmr]\ndivisor = \"two\"\n"),
        "s.toml:3:11: `lmr.divisor` is the string \"two\", expected a number from 0.5 to 16"
    );
    assert_eq!(
        search_file_error("[lmr]\ndivisor = 0.25\n"),
        "s.toml:2:11: `lmr.divisor` is the float 0.25, expected a number from 0.5 to 16"
    );
    assert!(search_file_error("[lmr\n").starts_with("s.toml:1:"));
    // A partial file keeps the other defaults; integers are accepted for real parameters.
    let partial = SearchParams::from_toml_str("[lmr]\ndivisor = 3\n", "s.toml").unwrap();
    let mut expected = SearchParams::default();
    expected.set("lmr.divisor", 3.0).unwrap();
    assert_eq!(partial, expected);
}

#[test]
fn extreme_search_parameters_neither_overflow_nor_break_the_limits() {
    // Every constant at its smallest, then at its largest (overflow checks are on in tests),
    // and the history at its sharpest: the smallest divisor with the largest updates.
    let mut lowest = SearchParams::default();
    let mut highest = SearchParams::default();
    for spec in SEARCH_PARAMS {
        lowest.set(spec.key, spec.min).unwrap();
        highest.set(spec.key, spec.max).unwrap();
    }
    let mut sharp = highest.clone();
    sharp.set("history.divisor", 1024.0).unwrap();
    for params in [lowest, highest, sharp] {
        for fen in [Position::START_FEN, MIDDLEGAME, QUEENS_UP] {
            let pos = Position::from_fen(fen).unwrap();
            let mut searcher = Searcher::new(Arc::new(EvalParams::default()), 1);
            searcher.set_search_params(params.clone());
            let result = searcher.search(&pos, &[], &SearchLimits::nodes(20_000), |_| {});
            assert!(pos.is_legal(result.best_move), "{fen}");
            assert!(result.nodes <= 20_000);
        }
    }
}
