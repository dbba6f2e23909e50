//! The network evaluation end to end: `sparring eval --net --raw` against an independent Python
//! reading of bullet's inference (tests/nnue_reference.py), the incremental accumulators (SIMD
//! and portable) against the from-scratch `Network::evaluate` along random games, the UCI engine
//! playing with `--net` and `EvalFile`, and the command line's refusals.

use crate::common::binary::{assert_bad_input, scratch_in, sparring, sparring_with_input, text};
use crate::common::tools::{present, python_imports};
use sparring::board::{chess960, Position};
use sparring::nnue::{AccumulatorStack, Network, FEATURES};
use sparring::rng::Rng;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Positions with Black and White to move, castling rights, en passant, promotions to come,
/// a Chess960 start (X-FEN) and a bare endgame.
const FENS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 b - - 0 1",
    "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
];

/// A deterministic random net of `hidden` units in bullet's clipped ranges (|w| ≤ 127 at the
/// output), with biases that keep many hidden units inside SCReLU's (0, 255) and some beyond.
fn random_net(seed: u64, hidden: usize) -> Network {
    let mut rng = Rng::new(seed);
    let mut uniform = |lo: i64, hi: i64| (lo + rng.below((hi - lo + 1) as u64) as i64) as i16;
    let mut net = Network::zeroed(hidden);
    for w in &mut net.feature_weights {
        *w = uniform(-40, 40);
    }
    for b in &mut net.feature_biases {
        *b = uniform(-50, 250);
    }
    for w in &mut net.output_weights {
        *w = uniform(-127, 127);
    }
    net.output_bias = uniform(-2000, 2000);
    assert_eq!(net.feature_weights.len(), FEATURES * hidden);
    net
}

/// `net` written where the tests find it, as bullet writes it (padded).
fn write_net(group: &str, name: &str, net: &Network) -> PathBuf {
    let path = scratch_in(group, name).join("quantised.bin");
    net.save(&path).unwrap();
    path
}

fn eval_lines(stdout: &str) -> Vec<i32> {
    stdout
        .lines()
        .map(|l| l.strip_prefix("eval ").unwrap().parse().unwrap())
        .collect()
}

/// The done-when check: `sparring eval --net --raw` prints the integers an independent Python
/// implementation of bullet's inference computes from the file's bytes.
#[test]
fn eval_raw_reproduces_bullets_inference_computed_in_python() {
    if !present(python_imports(""), "python3 is not installed") {
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/nnue_reference.py");
    // 40 units exercises the loops' tails beyond a multiple of 16 lanes.
    for (seed, hidden) in [(1, 32), (2, 40), (3, 128)] {
        let path = write_net(
            "nnue_python",
            &format!("n{hidden}"),
            &random_net(seed, hidden),
        );
        let mut args = vec!["eval", "--net", text(&path), "--raw"];
        args.extend_from_slice(FENS);
        let run = sparring(&args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let ours = eval_lines(&run.stdout);
        let python = std::process::Command::new("python3")
            .arg(&script)
            .arg(&path)
            .args(FENS)
            .output()
            .unwrap();
        assert!(python.status.success(), "{:?}", python);
        let theirs = eval_lines(&String::from_utf8(python.stdout).unwrap());
        assert_eq!(ours, theirs, "N = {hidden}");
        assert_eq!(ours.len(), FENS.len());
        // A net with no spread would make the comparison empty.
        assert!(ours.iter().any(|&cp| cp != ours[0]), "{ours:?}");
    }
}

/// Without --raw the value the search uses: here the same (inside the clamp); with the
/// default evaluation, the hand-crafted one.
#[test]
fn eval_without_raw_is_the_search_value() {
    let path = write_net("nnue_eval", "plain", &random_net(4, 32));
    let raw = sparring(&["eval", "--net", text(&path), "--raw", FENS[1]]);
    let plain = sparring(&["eval", "--net", text(&path), FENS[1]]);
    assert_eq!(raw.stdout, plain.stdout);
    // Every hidden unit at 255 and every output weight 127: 400 · 64 · 255 · 127 / 16320 ≈
    // 50,800 cp, far beyond the clamp.
    let mut loud = Network::zeroed(32);
    loud.feature_biases.iter_mut().for_each(|b| *b = 255);
    loud.output_weights.iter_mut().for_each(|w| *w = 127);
    let path = write_net("nnue_eval", "loud", &loud);
    let raw = eval_lines(&sparring(&["eval", "--net", text(&path), "--raw", FENS[0]]).stdout);
    let plain = eval_lines(&sparring(&["eval", "--net", text(&path), FENS[0]]).stdout);
    assert!(raw[0] > sparring::eval::MAX_EVAL, "{raw:?}");
    assert_eq!(plain[0], sparring::eval::MAX_EVAL);
    let hce = sparring(&["eval", FENS[0], FENS[2]]);
    assert_eq!(hce.code, 0, "{}", hce.stderr);
    assert_eq!(eval_lines(&hce.stdout).len(), 2);
}

/// `eval.net_scale` (a search file's `[eval]`) scales the net's output the search sees,
/// toward zero for both colours and before the clamp; the hand-crafted evaluation ignores it.
#[test]
fn the_search_files_net_scale_scales_the_networks_value() {
    let path = write_net("nnue_scale", "net", &random_net(6, 32));
    let dir = scratch_in("nnue_scale", "files");
    let half = dir.join("half.toml");
    std::fs::write(&half, "[eval]\nnet_scale = 50\n").unwrap();
    let mut args = vec!["eval", "--net", text(&path), "--raw"];
    args.extend_from_slice(FENS);
    let raw = eval_lines(&sparring(&args).stdout);
    let mut args = vec!["eval", "--net", text(&path), "--search", text(&half)];
    args.extend_from_slice(FENS);
    let run = sparring(&args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let scaled = eval_lines(&run.stdout);
    let expected: Vec<i32> = raw
        .iter()
        .map(|&cp| (cp / 2).clamp(-sparring::eval::MAX_EVAL, sparring::eval::MAX_EVAL))
        .collect();
    assert_eq!(scaled, expected);
    assert!(raw
        .iter()
        .any(|&cp| cp % 2 != 0 && cp.abs() < 2 * sparring::eval::MAX_EVAL));
    let hce = sparring(&["eval", "--hce", FENS[1]]);
    let hce_half = sparring(&["eval", "--hce", "--search", text(&half), FENS[1]]);
    assert_eq!(hce.stdout, hce_half.stdout);
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "[eval]\nnet_scale = 0\n").unwrap();
    let run = sparring(&["eval", "--search", text(&bad), FENS[0]]);
    assert_bad_input(&run, &["bad.toml", "net_scale"]);
}

#[test]
fn bad_inputs_to_eval_and_uci_exit_2_naming_what_is_wrong() {
    let dir = scratch_in("nnue_errors", "files");
    let short = dir.join("short.bin");
    std::fs::write(&short, [0u8; 1000]).unwrap();
    let run = sparring(&["eval", "--net", text(&short), FENS[0]]);
    assert_bad_input(&run, &["short.bin", "1000 bytes"]);
    let run = sparring_with_input(&["uci", "--net", text(&short)], "quit\n");
    assert_bad_input(&run, &["short.bin", "1000 bytes"]);
    let run = sparring(&["eval", "--net", "/no/such/net.bin", FENS[0]]);
    assert_bad_input(&run, &["/no/such/net.bin"]);
    let run = sparring(&["eval", "--net", text(&dir), FENS[0]]);
    assert_bad_input(&run, &["--net", "not a file"]);
    let net = write_net("nnue_errors", "net", &random_net(5, 32));
    let weights = crate::common::config::weights("default.toml");
    let run = sparring_with_input(&["uci", "--net", text(&net), "--weights", &weights], "");
    assert_bad_input(&run, &["--weights and --net"]);
    let run = sparring(&["eval", "--net", text(&net), "--weights", &weights, FENS[0]]);
    assert_bad_input(&run, &["--weights and --net"]);
    let run = sparring(&["eval", "--net", text(&net), FENS[0], "not a fen"]);
    assert_bad_input(&run, &["FEN argument 2", "not a fen"]);
    assert!(run.stdout.is_empty());
    // --raw means the network's output: with the hand-crafted evaluation it is a usage error.
    assert_eq!(sparring(&["eval", "--raw", "--hce", FENS[0]]).code, 2);
    assert_eq!(
        sparring(&["eval", "--raw", "--weights", &weights, FENS[0]]).code,
        2
    );
    assert_eq!(
        sparring(&["eval", "--hce", "--net", text(&net), FENS[0]]).code,
        2
    );
}

/// Every move the engine chose, checked legal by the board.
fn best_moves(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("bestmove "))
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect()
}

/// The engine with `--net` plays a game's worth of legal moves at a depth limit, each search
/// starting where the last one's move left the game (debug assertions in the test build check
/// every incremental evaluation of the search against a recount).
#[test]
fn uci_with_a_net_plays_legal_moves_at_depth_limits() {
    let net = write_net("nnue_uci", "net", &random_net(6, 64));
    for start in [FENS[0], FENS[1], FENS[5]] {
        let mut pos = Position::from_fen(start).unwrap();
        let mut played: Vec<String> = Vec::new();
        for _ in 0..6 {
            let moves = match played.is_empty() {
                true => String::new(),
                false => format!(" moves {}", played.join(" ")),
            };
            let script = format!(
                "setoption name UCI_Chess960 value true\nposition fen {start}{moves}\ngo depth 5\n"
            );
            let run = sparring_with_input(&["uci", "--net", text(&net)], &script);
            assert_eq!(run.code, 0, "{}", run.stderr);
            let best = best_moves(&run.stdout);
            assert_eq!(best.len(), 1, "{}", run.stdout);
            let mv = pos
                .parse_uci_move(&best[0])
                .unwrap_or_else(|e| panic!("{e}: {pos}"));
            pos.make_move(mv);
            played.push(best[0].clone());
            if pos.legal_moves().is_empty() {
                break;
            }
        }
        assert!(!played.is_empty());
    }
}

/// `EvalFile` loads a net, refuses a bad one with an `info string` keeping the evaluation in
/// use, and `<default>` returns to the evaluation the engine started with; the engine searches
/// after each.
#[test]
fn eval_file_option_loads_refuses_and_resets() {
    let net = write_net("nnue_evalfile", "net", &random_net(7, 32));
    let dir = scratch_in("nnue_evalfile", "bad");
    let bad = dir.join("bad.bin");
    std::fs::write(&bad, b"not a network").unwrap();
    let script = format!(
        "uci\nsetoption name EvalFile value {}\ngo depth 3\nisready\n\
         setoption name EvalFile value {}\ngo depth 3\nisready\n\
         setoption name EvalFile value {}\nsetoption name EvalFile value /no/such.bin\n\
         setoption name EvalFile value <default>\ngo depth 3\nisready\nquit\n",
        text(&net),
        text(&bad),
        text(&dir)
    );
    let run = sparring_with_input(&["uci"], &script);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let out = &run.stdout;
    assert!(out.contains("option name EvalFile type string default <default>"));
    assert!(out.contains("a (768 -> 32)x2 -> 1 network"), "{out}");
    assert!(out.contains("info string cannot load EvalFile:"), "{out}");
    assert!(out.contains("bad.bin: 13 bytes"), "{out}");
    assert!(
        out.contains("not a file; keeping the current evaluation"),
        "{out}"
    );
    assert!(out.contains("/no/such.bin"), "{out}");
    assert_eq!(best_moves(out).len(), 3, "{out}");
    assert!(!run.stderr.contains("panicked"));
}

/// The search's evaluations: the scores the engine reports at depth 1 differ between the net and
/// the hand-crafted evaluation, so the option really switches what the search calls.
#[test]
fn a_net_changes_what_the_search_sees() {
    let net = write_net("nnue_switch", "net", &random_net(8, 32));
    let script = "position startpos moves e2e4\ngo depth 1\nquit\n";
    let hce = sparring_with_input(&["uci", "--hce"], script).stdout;
    let with_net = sparring_with_input(&["uci", "--net", text(&net)], script).stdout;
    let score = |out: &str| {
        out.lines()
            .find_map(|l| l.split(" score cp ").nth(1))
            .map(|s| s.split_whitespace().next().unwrap().to_string())
    };
    assert!(score(&hce).is_some() && score(&with_net).is_some());
    assert_ne!(score(&hce), score(&with_net), "{hce}\n{with_net}");
}

/// Counts of the special moves a run of random games went through.
#[derive(Default, Debug)]
struct Seen {
    castles: usize,
    en_passant: usize,
    promotions: usize,
    captures: usize,
    positions: usize,
}

/// Plays random games from `start`, pushing every move on stacks with SIMD and without, and
/// compares both outputs (and both perspectives' accumulators) with the from-scratch reference
/// after every move and after every pop.
fn follow_random_games(net: &Arc<Network>, start: &Position, rng: &mut Rng, seen: &mut Seen) {
    let mut fast = AccumulatorStack::new(net.clone());
    let mut portable = AccumulatorStack::with_simd(net.clone(), false);
    let mut pos = start.clone();
    fast.reset(&pos);
    portable.reset(&pos);
    let mut line = Vec::new();
    for _ in 0..150 {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        // Prefer the rare moves when there are some, so that every game meets them.
        let special: Vec<_> = moves
            .iter()
            .copied()
            .filter(|m| m.is_castle() || m.is_en_passant() || m.is_promotion())
            .collect();
        let mv = match special.is_empty() || rng.below(2) == 0 {
            true => moves.as_slice()[rng.below(moves.len() as u64) as usize],
            false => special[rng.below(special.len() as u64) as usize],
        };
        seen.castles += usize::from(mv.is_castle());
        seen.en_passant += usize::from(mv.is_en_passant());
        seen.promotions += usize::from(mv.is_promotion());
        seen.captures += usize::from(mv.is_capture());
        fast.push(&pos, mv);
        portable.push(&pos, mv);
        let undo = pos.make_move(mv);
        line.push((mv, undo));
        let side = pos.side_to_move();
        let expected = net.evaluate(&pos);
        assert_eq!(fast.evaluate(side), expected, "{pos}");
        assert_eq!(portable.evaluate(side), expected, "{pos}");
        for color in [sparring::board::Color::White, sparring::board::Color::Black] {
            assert_eq!(fast.accumulator(color), &net.accumulate(&pos, color)[..]);
        }
        seen.positions += 1;
    }
    // Taking the moves back restores every earlier entry.
    while let Some((mv, undo)) = line.pop() {
        pos.unmake_move(mv, undo);
        fast.pop();
        portable.pop();
        let expected = net.evaluate(&pos);
        assert_eq!(fast.evaluate(pos.side_to_move()), expected, "{pos}");
        assert_eq!(portable.evaluate(pos.side_to_move()), expected);
    }
    assert_eq!(pos, *start);
}

#[test]
fn incremental_accumulators_equal_the_reference_along_random_games() {
    let mut rng = Rng::new(48);
    let mut starts: Vec<Position> = FENS
        .iter()
        .map(|f| Position::from_fen(f).unwrap())
        .collect();
    for number in [0, 123, 518, 959] {
        starts.push(chess960::start_position(number).unwrap());
    }
    starts.push(chess960::dfrc_start_position(17, 801).unwrap());
    // 40 units: the SIMD loops' tail; 256: more than one cache line per feature.
    for (seed, hidden) in [(9, 40), (10, 256)] {
        let net = Arc::new(random_net(seed, hidden));
        let mut seen = Seen::default();
        for start in &starts {
            for _ in 0..4 {
                follow_random_games(&net, start, &mut rng, &mut seen);
            }
        }
        assert!(
            seen.castles > 20 && seen.en_passant > 5 && seen.promotions > 20,
            "{seen:?}"
        );
        assert!(seen.captures > 100 && seen.positions > 2000, "{seen:?}");
    }
}

/// `genfens` verifies its starts with the evaluation the engine plays: from a book whose one
/// position is White's whole army against a king and queen, the hand-crafted evaluation rejects
/// every start (far outside ±1000 cp) while a net that scores everything 0 accepts the first.
#[test]
fn genfens_verifies_starts_with_the_loaded_network() {
    let net = write_net("nnue-genfens", "zero", &Network::zeroed(8));
    let book = net.with_file_name("book.epd");
    std::fs::write(&book, "3qk3/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1\n").unwrap();
    let fens = |args: &[&str]| -> usize {
        let input = format!("genfens 1 seed 7 book {}\nquit\n", book.display());
        let run = sparring_with_input(args, &input);
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.stdout
            .lines()
            .filter(|l| l.starts_with("info string genfens "))
            .count()
    };
    assert_eq!(fens(&["uci", "--hce"]), 0);
    assert_eq!(fens(&["uci", "--net", text(&net)]), 1);
}

/// The shipped network is the default evaluation of `eval`, `bench` and `uci` (the same numbers
/// as `--net configs/nets/default.bin`); `--hce` and `EvalFile <hce>` play the hand-crafted one
/// (the same as `--weights configs/weights/default.toml`), and `<default>` goes back.
#[test]
fn the_shipped_network_is_the_default_and_hce_is_one_switch_away() {
    let net = crate::common::config::repo_path("configs/nets/default.bin");
    let weights = crate::common::config::weights("default.toml");
    let evals = |args: &[&str]| {
        let run = sparring(&[&["eval"], args, &[FENS[0], FENS[1]]].concat());
        assert_eq!(run.code, 0, "{}", run.stderr);
        eval_lines(&run.stdout)
    };
    assert_eq!(evals(&[]), evals(&["--net", &net]));
    assert_eq!(evals(&["--hce"]), evals(&["--weights", &weights]));
    assert_ne!(evals(&[]), evals(&["--hce"]));
    // Each `go` answered before the next command (`uci_session` waits for its bestmove).
    let nodes = |args: &[&str], script: &str| {
        crate::common::binary::uci_session(args, script)
            .lines()
            .filter(|l| l.starts_with("info depth 6 "))
            .map(|l| {
                l.split(" nodes ")
                    .nth(1)
                    .unwrap()
                    .split(' ')
                    .next()
                    .unwrap()
                    .to_string()
            })
            .collect::<Vec<_>>()
    };
    let go = "position startpos\ngo depth 6\n";
    let shipped = nodes(&["--net", &net], go);
    let hce = nodes(&["--hce"], go);
    assert_eq!((shipped.len(), hce.len()), (1, 1));
    assert_ne!(shipped, hce);
    let switched = nodes(
        &[],
        &format!(
            "{go}setoption name EvalFile value <hce>\nucinewgame\n{go}\
             setoption name EvalFile value <default>\nucinewgame\n{go}"
        ),
    );
    assert_eq!(switched, [&shipped[..], &hce[..], &shipped[..]].concat());
}
