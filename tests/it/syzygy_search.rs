//! The built-in engine with Syzygy tables: it converts won endings it cannot convert without
//! them (games at fixed nodes on the shared tables, skipped with a printed reason when
//! ../shared is absent), ranks root moves by DTZ and scores tablebase wins (on the fixture
//! tables), and takes `SyzygyPath`/`SyzygyProbeLimit` over UCI.

use sparring::board::{Move, Position};
use sparring::eval::EvalParams;
use sparring::score::Score;
use sparring::search::{SearchLimits, SearchTablebases, Searcher, MAX_EVAL};
use sparring::tablebase::Tablebases;
use std::sync::Arc;

use crate::common::tables;
use tables::{fixture_dir, one_set_at_a_time, shared_dir, skip};

use crate::common::uci_session;
use uci_session::session;

fn searcher(tables: Option<&Tablebases>) -> Searcher {
    let mut searcher = Searcher::new(Arc::new(EvalParams::default()), 4);
    searcher.set_tablebases(tables.map(|t| SearchTablebases {
        tables: t.clone(),
        probe_limit: 7,
    }));
    searcher
}

/// How a game from a won start position ended.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    /// The side to move at the start mated, after this many plies.
    Won(usize),
    /// Anything else, and why.
    NotWon(&'static str),
}

/// Plays `fen` out between `attacker` (the side to move) and `defender`, each searching
/// `nodes` nodes a move, up to 300 plies.
fn play(fen: &str, attacker: &mut Searcher, defender: &mut Searcher, nodes: u64) -> Outcome {
    let mut pos = Position::from_fen(fen).unwrap();
    let mut keys: Vec<u64> = Vec::new();
    attacker.clear();
    defender.clear();
    for ply in 0..300 {
        if !pos.has_legal_moves() {
            return match (pos.in_check(), ply % 2) {
                (true, 1) => Outcome::Won(ply),
                (true, _) => Outcome::NotWon("the defender mated"),
                _ => Outcome::NotWon("stalemate"),
            };
        }
        if pos.halfmove_clock() >= 100 {
            return Outcome::NotWon("fifty-move rule");
        }
        if pos.is_insufficient_material() {
            return Outcome::NotWon("insufficient material");
        }
        let window = (pos.halfmove_clock() as usize).min(keys.len());
        let seen = keys[keys.len() - window..]
            .iter()
            .filter(|&&k| k == pos.key())
            .count();
        if seen >= 2 {
            return Outcome::NotWon("threefold repetition");
        }
        let side = if ply % 2 == 0 {
            &mut *attacker
        } else {
            &mut *defender
        };
        let result = side.search(&pos, &keys, &SearchLimits::nodes(nodes), |_| {});
        assert!(pos.is_legal(result.best_move), "{fen}: illegal move");
        keys.push(pos.key());
        pos.make_move(result.best_move);
    }
    Outcome::NotWon("300 plies")
}

/// Won for the side to move (the tables say so; KBNvK at DTZ 50-58, KRPvKR from the Lucena
/// position and pawns further back).
const KBNVK: [&str; 3] = [
    "8/8/8/4k3/8/8/8/4KBN1 w - - 0 1",
    "k7/8/8/8/8/8/8/4KBN1 w - - 0 1",
    "8/8/4k3/8/8/8/8/BN2K3 w - - 0 1",
];
const KRPVKR: [&str; 3] = [
    "1K1k4/1P6/8/8/8/8/r7/2R5 w - - 0 1",
    "4k3/8/8/8/8/8/3PK3/r6R w - - 0 1",
    "3k4/8/8/8/8/8/4PK2/r5R1 w - - 0 1",
];
/// Nodes a move: few enough that the engine alone does not find the KBNvK mates.
const NODES: u64 = 3000;
/// Nodes a move against the defender with tables: few enough that the engine alone lets a
/// KRPvKR win slip.
const KRPVKR_NODES: u64 = 1500;

#[test]
fn tables_convert_won_endings_the_engine_alone_does_not() {
    let _turn = one_set_at_a_time();
    let Some(dir) = shared_dir() else {
        return skip("../shared/data/syzygy is absent");
    };
    let tables = Tablebases::open(&dir).unwrap();
    for fen in KBNVK.iter().chain(&KRPVKR) {
        let pos = Position::from_fen(fen).unwrap();
        assert_eq!(tables.probe_wdl(&pos).unwrap().value(), 2, "{fen} is won");
    }
    let mut with = searcher(Some(&tables));
    let mut without = searcher(None);
    let mut defender = searcher(None);
    let mut not_won_without = Vec::new();
    for fen in KBNVK.iter().chain(&KRPVKR) {
        let outcome = play(fen, &mut with, &mut defender, NODES);
        println!("{fen}: with tables {outcome:?}");
        assert!(matches!(outcome, Outcome::Won(_)), "{fen}: {outcome:?}");
        let outcome = play(fen, &mut without, &mut defender, NODES);
        println!("{fen}: without tables {outcome:?}");
        if !matches!(outcome, Outcome::Won(_)) {
            not_won_without.push(*fen);
        }
    }
    // What the tables add: without them the same engine fails to win some of these.
    assert!(
        KBNVK.iter().any(|f| not_won_without.contains(f)),
        "the engine won every KBNvK game without tables at {NODES} nodes"
    );
    // Against a defender that has the tables too (the longest resistance), the engine with
    // tables still converts every KRPvKR position; without them it lets one slip (the Lucena
    // position, by repetition, at this node count).
    let mut strong_defender = searcher(Some(&tables));
    let mut slipped = Vec::new();
    for fen in KRPVKR {
        let outcome = play(fen, &mut with, &mut strong_defender, KRPVKR_NODES);
        println!("{fen}: with tables against tables {outcome:?}");
        assert!(matches!(outcome, Outcome::Won(_)), "{fen}: {outcome:?}");
        let outcome = play(fen, &mut without, &mut strong_defender, KRPVKR_NODES);
        println!("{fen}: without tables against tables {outcome:?}");
        if !matches!(outcome, Outcome::Won(_)) {
            slipped.push(fen);
        }
    }
    assert!(
        !slipped.is_empty(),
        "the engine won every KRPvKR game without tables against a defender with them at \
         {KRPVKR_NODES} nodes"
    );
}

/// The fixture tables (KQvK, KRvK, KPvK and the drawn KBvK, KNvK) are in every checkout.
fn fixture_tables() -> Tablebases {
    Tablebases::open(fixture_dir()).unwrap()
}

#[test]
fn a_root_in_the_tables_plays_a_fastest_winning_move_and_reports_a_tablebase_win() {
    let _turn = one_set_at_a_time();
    let tables = fixture_tables();
    let fen = "8/8/8/8/8/2k5/8/K6R w - - 0 1";
    let pos = Position::from_fen(fen).unwrap();
    let probe = tables.probe_root(&pos).unwrap();
    let fastest = probe
        .moves
        .iter()
        .filter(|m| m.wdl.value() == 2)
        .map(|m| m.dtz)
        .min()
        .unwrap();
    let mut with = searcher(Some(&tables));
    let mut infos = Vec::new();
    let result = with.search(&pos, &[], &SearchLimits::nodes(5000), |i| {
        infos.push(i.clone())
    });
    let played = probe
        .moves
        .iter()
        .find(|m| {
            m.from as usize == result.best_move.from().index()
                && m.to as usize == result.best_move.to().index()
        })
        .unwrap();
    assert_eq!((played.wdl.value(), played.dtz), (2, fastest), "{result:?}");
    assert!(
        matches!(result.score, Score::Cp(cp) if cp > MAX_EVAL),
        "{:?}",
        result.score
    );
    assert!(result.tbhits.is_some_and(|h| h >= 1), "{:?}", result.tbhits);
    assert_eq!(infos.last().unwrap().tbhits, result.tbhits);
    assert_eq!(result.pv.first(), Some(&result.best_move));

    // The same search without tables counts no hits at all.
    let result = searcher(None).search(&pos, &[], &SearchLimits::nodes(5000), |_| {});
    assert_eq!(result.tbhits, None);
}

#[test]
fn a_capture_into_a_won_table_scores_as_a_tablebase_win_in_the_tree() {
    let _turn = one_set_at_a_time();
    let tables = fixture_tables();
    // Four pieces: the root is not in the (3-piece) tables, the position after Rxh2 is.
    let fen = "k7/8/8/8/8/8/7p/K6R w - - 0 1";
    let pos = Position::from_fen(fen).unwrap();
    let mut with = searcher(Some(&tables));
    let result = with.search(&pos, &[], &SearchLimits::depth(5), |_| {});
    assert_eq!(result.best_move.to_string(), "h1h2");
    assert!(
        matches!(result.score, Score::Cp(cp) if cp > MAX_EVAL),
        "{:?}",
        result.score
    );
    assert!(result.tbhits.is_some_and(|h| h >= 1), "{:?}", result.tbhits);
    // Without tables the same search sees only an evaluation.
    let result = searcher(None).search(&pos, &[], &SearchLimits::depth(5), |_| {});
    assert!(
        matches!(result.score, Score::Cp(cp) if cp <= MAX_EVAL),
        "{:?}",
        result.score
    );
}

#[test]
fn a_probe_limit_of_zero_probes_nothing() {
    let _turn = one_set_at_a_time();
    let tables = fixture_tables();
    let mut limited = Searcher::new(Arc::new(EvalParams::default()), 4);
    limited.set_tablebases(Some(SearchTablebases {
        tables,
        probe_limit: 0,
    }));
    assert!(limited.tablebases().is_none());
    let pos = Position::from_fen("8/8/8/8/8/2k5/8/K6R w - - 0 1").unwrap();
    let result = limited.search(&pos, &[], &SearchLimits::nodes(2000), |_| {});
    assert_eq!(result.tbhits, None);
    assert!(!result.best_move.is_null() && result.best_move != Move::NULL);
}

#[test]
fn uci_declares_and_takes_the_syzygy_options() {
    let _turn = one_set_at_a_time();
    let out = session("uci\nquit\n");
    assert!(out.contains(&"option name SyzygyPath type string default <empty>".to_string()));
    assert!(
        out.contains(&"option name SyzygyProbeLimit type spin default 7 min 0 max 7".to_string())
    );

    let dir = fixture_dir();
    let script = format!(
        "setoption name SyzygyPath value /no/such/dir\n\
         setoption name SyzygyProbeLimit value 9\n\
         setoption name SyzygyPath value {}\n\
         position fen 8/8/8/8/8/2k5/8/K6R w - - 0 1\n\
         go nodes 3000\n\
         setoption name SyzygyPath value <empty>\n\
         go nodes 3000\n\
         position startpos\n\
         quit\n",
        dir.display()
    );
    let out = session(&script);
    let refused = out
        .iter()
        .find(|l| l.contains("/no/such/dir"))
        .unwrap_or_else(|| panic!("{out:?}"));
    assert!(
        refused
            .starts_with("info string cannot load Syzygy tables: tablebase directory /no/such/dir")
            && refused.ends_with("; no tablebases in use"),
        "{refused}"
    );
    assert!(out.contains(
        &"info string bad SyzygyProbeLimit value '9': expected 0 to 7; keeping 7".to_string()
    ));
    assert!(
        out.iter()
            .any(|l| l.starts_with("info string Syzygy tables loaded from")
                && l.ends_with("up to 3 pieces")),
        "{out:?}"
    );
    // The first search probes (tbhits in its info lines), the second has no tables.
    let bestmoves: Vec<usize> = (0..out.len())
        .filter(|&i| out[i].starts_with("bestmove "))
        .collect();
    assert_eq!(bestmoves.len(), 2, "{out:?}");
    let (first, second) = out.split_at(bestmoves[0] + 1);
    let last_info = |lines: &[String]| {
        lines
            .iter()
            .rev()
            .find(|l| l.starts_with("info depth"))
            .cloned()
            .unwrap()
    };
    assert!(last_info(first).contains(" tbhits "), "{first:?}");
    assert!(!last_info(second).contains("tbhits"), "{second:?}");
}

#[test]
fn a_match_configuration_gives_the_builtin_engine_its_tables() {
    use sparring::arena::config::{EngineKind, MatchConfig};
    let _turn = one_set_at_a_time();
    let config = |builtin: &str| {
        format!(
            "[tournament]\n[time_control]\nnodes = 5\n[output]\ndir = \"x\"\n\
             [[engine]]\nname = \"a\"\nbuiltin = {builtin}\n\
             [[engine]]\nname = \"b\"\nbuiltin = {{}}\n"
        )
    };
    let dir = fixture_dir().display().to_string();
    let text = config(&format!("{{ syzygy = \"{dir}\", syzygy_probe_limit = 3 }}"));
    let parsed = MatchConfig::parse(&text, "t.toml").unwrap();
    let EngineKind::Builtin { syzygy, .. } = &parsed.engines[0].kind else {
        panic!("{:?}", parsed.engines[0].kind);
    };
    let syzygy = syzygy.as_ref().expect("tables");
    assert_eq!(
        (syzygy.path.display().to_string(), syzygy.probe_limit),
        (dir.clone(), 3)
    );
    assert_eq!(syzygy.tables.max_pieces(), 3);
    let EngineKind::Builtin { syzygy: none, .. } = &parsed.engines[1].kind else {
        panic!();
    };
    assert!(none.is_none());
    // The dump reads back the same, and names the tables.
    let dumped = parsed.to_toml();
    assert!(dumped.contains("syzygy_probe_limit = 3"), "{dumped}");
    assert_eq!(
        MatchConfig::parse(&dumped, "dump.toml").unwrap().engines,
        parsed.engines
    );

    let err = MatchConfig::parse(&config("{ syzygy = \"/no/such/tables\" }"), "t.toml")
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("t.toml:8:")
            && err.contains("`engine[0].builtin.syzygy`: tablebase directory /no/such/tables"),
        "{err}"
    );
    let err = MatchConfig::parse(
        &config(&format!("{{ syzygy = \"{dir}\", syzygy_probe_limit = 8 }}")),
        "t.toml",
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("engine[0].builtin.syzygy_probe_limit"),
        "{err}"
    );
}
