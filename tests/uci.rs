//! The UCI front end: a scripted session in process, and the real binary driven by python-chess
//! when it is installed.

use sparring::uci::UciEngine;
use std::io::Write;
use std::sync::{Arc, Mutex};

#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<u8>>>);

impl Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn session(script: &str) -> Vec<String> {
    let capture = Capture::default();
    let mut engine = UciEngine::new(Box::new(capture.clone()));
    engine.run(script.as_bytes()).unwrap();
    let text = String::from_utf8(capture.0.lock().unwrap().clone()).unwrap();
    text.lines().map(str::to_string).collect()
}

#[test]
fn handshake_lists_options() {
    let out = session("uci\nisready\nquit\n");
    assert!(out[0].starts_with("id name sparring"));
    for option in ["Hash", "Threads", "Weights", "Move Overhead"] {
        assert!(
            out.iter()
                .any(|l| l.starts_with(&format!("option name {option} type"))),
            "missing option {option}: {out:?}"
        );
    }
    let uciok = out.iter().position(|l| l == "uciok").unwrap();
    assert_eq!(out[uciok + 1], "readyok");
}

#[test]
fn searches_with_each_limit_and_answers_legal_moves() {
    let script = "uci\nucinewgame\nposition startpos moves e2e4 e7e5 g1f3\ngo depth 5\n\
                  position fen 6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1\ngo nodes 5000\n\
                  position startpos\ngo movetime 50\n\
                  position startpos moves d2d4\ngo wtime 1000 btime 1000 winc 10 binc 10 movestogo 20\n\
                  go infinite\nstop\nquit\n";
    let out = session(script);
    let bestmoves: Vec<&String> = out.iter().filter(|l| l.starts_with("bestmove")).collect();
    assert_eq!(bestmoves.len(), 5, "{out:?}");
    assert_eq!(bestmoves[1], "bestmove a1a8");
    let info = out.iter().find(|l| l.starts_with("info depth")).unwrap();
    for field in [
        "seldepth", "score cp", "nodes", "nps", "hashfull", "time", "pv",
    ] {
        assert!(info.contains(field), "{info}");
    }
}

#[test]
fn bad_input_is_reported_not_fatal() {
    let script = "hello\nposition fen not a fen\nposition startpos moves e2e5\n\
                  go depth x\nsetoption name Hash value -3\nsetoption name Weights value /nonexistent.toml\n\
                  setoption name Frobnicate value 1\nisready\nposition startpos\ngo depth 2\nquit\n";
    let out = session(script);
    let strings = out.iter().filter(|l| l.starts_with("info string")).count();
    assert!(strings >= 7, "{out:?}");
    assert!(out.iter().any(|l| l == "readyok"));
    assert!(out.iter().any(|l| l.starts_with("bestmove")));
}

#[test]
fn stop_at_once_still_gives_a_legal_move() {
    let out = session("position startpos\ngo infinite\nstop\nquit\n");
    let best = out.iter().find(|l| l.starts_with("bestmove")).unwrap();
    let mv = best.split_whitespace().nth(1).unwrap();
    let pos = sparring::board::Position::startpos();
    assert!(
        pos.legal_moves().iter().any(|m| m.to_string() == mv),
        "{best}"
    );
}

#[test]
fn python_chess_can_drive_the_engine() {
    let probe = std::process::Command::new("python3")
        .args(["-c", "import chess.engine"])
        .status();
    if !matches!(probe, Ok(s) if s.success()) {
        println!("skipped: python3 with the chess package is not installed");
        return;
    }
    let script = r#"
import sys, chess, chess.engine
engine = chess.engine.SimpleEngine.popen_uci([sys.argv[1], "uci"])
assert engine.id["name"].startswith("sparring"), engine.id
board = chess.Board()
for _ in range(12):
    result = engine.play(board, chess.engine.Limit(nodes=3000), info=chess.engine.INFO_ALL)
    assert result.move in board.legal_moves, result.move
    board.push(result.move)
info = engine.analyse(board, chess.engine.Limit(depth=6))
assert "score" in info and "pv" in info and info["depth"] >= 6, info
engine.configure({"Hash": 32})
board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
info = engine.analyse(board, chess.engine.Limit(depth=4))
assert info["score"].white() == chess.engine.Mate(1), info
engine.quit()
print("python-chess session ok")
"#;
    let output = std::process::Command::new("python3")
        .args(["-c", script, env!("CARGO_BIN_EXE_sparring")])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "python-chess failed: {stderr}");
    println!("{}", String::from_utf8_lossy(&output.stdout));
}
