//! The UCI front end: a scripted session in process, and the real binary driven by python-chess
//! when it is installed.

use crate::common::tools;
use sparring::board::Position;
use sparring::uci::UciEngine;
use std::io::Write;

use crate::common;
use common::absurd_params;

use crate::common::uci_session;
use uci_session::session_with;

fn session(script: &str) -> Vec<String> {
    session_bytes(script.as_bytes())
}

fn session_bytes(script: &[u8]) -> Vec<String> {
    session_with(UciEngine::new, script)
}

fn bestmoves(out: &[String]) -> Vec<&str> {
    out.iter()
        .filter_map(|l| l.strip_prefix("bestmove "))
        .map(|rest| rest.split_whitespace().next().unwrap_or(""))
        .collect()
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
    let pos = Position::startpos();
    assert!(
        pos.legal_moves().iter().any(|m| m.to_string() == mv),
        "{best}"
    );
}

#[test]
fn python_chess_can_drive_the_engine() {
    if !tools::python_chess("chess.engine") {
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

/// The real binary in a live session: commands go in one at a time and the test waits for the
/// engine's answers (a generous guard turns a hang into a failure; no timing is asserted).
struct LiveEngine {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    lines: std::sync::mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl LiveEngine {
    fn start(args: &[&str]) -> LiveEngine {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_sparring"))
            .arg("uci")
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (send, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        LiveEngine {
            child,
            stdin,
            lines,
            seen: Vec::new(),
        }
    }

    fn send(&mut self, command: &str) {
        writeln!(self.stdin, "{command}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Reads until a line satisfies `done`; returns the lines read, that one included.
    fn until(&mut self, done: impl Fn(&str) -> bool) -> Vec<String> {
        let mut read = Vec::new();
        loop {
            let line = self
                .lines
                .recv_timeout(std::time::Duration::from_secs(120))
                .unwrap_or_else(|_| panic!("no answer; read so far: {:?}", self.seen));
            self.seen.push(line.clone());
            read.push(line.clone());
            if done(&line) {
                return read;
            }
        }
    }

    fn quit(mut self) -> std::process::ExitStatus {
        self.send("quit");
        self.child.wait().unwrap()
    }
}

const MATE_IN_ONE: &str = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1";
const MATED: &str = "R5k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 1";
const STALEMATE: &str = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1";

#[test]
fn searchmoves_restrict_the_answer() {
    let out = session(
        "position startpos\ngo depth 4 searchmoves a2a3 h2h4\n\
         go depth 3 searchmoves e2e5 g1f3\ngo depth 2 searchmoves e7e5\nquit\n",
    );
    let best = bestmoves(&out);
    assert_eq!(best.len(), 3, "{out:?}");
    assert!(["a2a3", "h2h4"].contains(&best[0]), "{out:?}");
    assert_eq!(best[1], "g1f3", "{out:?}");
    assert!(out
        .iter()
        .any(|l| l.starts_with("info string") && l.contains("e2e5")));
    // No legal move among them: every move is searched, and the engine says so.
    assert!(Position::startpos()
        .legal_moves()
        .iter()
        .any(|m| m.to_string() == best[2]));
    assert!(out
        .iter()
        .any(|l| l.contains("no legal move among the searchmoves")));
}

#[test]
fn every_go_gets_one_bestmove_whatever_its_arguments() {
    let script = "position startpos\n\
                  go nodes 1000 garbage\n\
                  go wtime 1000.5 btime 1000.5\n\
                  go nodes 99999999999999999999999999 depth 2\n\
                  go depth 99999999999 nodes 2000\n\
                  go movestogo 99999999999 depth 2\n\
                  go depth nodes 500\n\
                  go depth\n\
                  go movetime -5 depth 1\n\
                  go movetime abc depth 1\n\
                  quit\n";
    let out = session(script);
    let best = bestmoves(&out);
    // `go depth` is `go` without limits: searched until the next command stops it.
    assert_eq!(best.len(), 9, "{out:?}");
    let pos = Position::startpos();
    for mv in &best {
        assert!(
            pos.legal_moves().iter().any(|m| m.to_string() == *mv),
            "{out:?}"
        );
    }
    for needle in [
        "garbage",
        "1000.5",
        "99999999999999999999999999",
        "'depth' expects",
        "'movestogo' expects",
        "'depth' needs a value",
        "'movetime' expects",
    ] {
        assert!(
            out.iter()
                .any(|l| l.starts_with("info string") && l.contains(needle)),
            "no info string about {needle}: {out:?}"
        );
    }
}

#[test]
fn a_refused_position_leaves_no_stale_one() {
    let script = "position startpos moves e2e4\ngo depth 1\n\
                  position fen not a fen\ngo depth 1\n\
                  position fen\ngo depth 1\n\
                  position\ngo depth 1\n\
                  position startpos moves e2e4 e7e5 e2e4\ngo depth 1\n\
                  position startpos moves e2e4 e7e5 g1f3\ngo depth 1\nquit\n";
    let out = session(script);
    assert_eq!(
        bestmoves(&out)
            .iter()
            .map(|m| *m == "0000")
            .collect::<Vec<_>>(),
        [false, true, true, true, true, false],
        "{out:?}"
    );
    // Each refusal is explained when the position is given and again at the `go`.
    let reasons = out
        .iter()
        .filter(|l| l.starts_with("info string no position to search"))
        .count();
    assert_eq!(reasons, 4, "{out:?}");
    assert!(out.iter().any(|l| l.contains("move 3 of the move list")));
}

#[test]
fn a_line_that_is_not_utf8_is_skipped() {
    let mut script = b"uci\n".to_vec();
    script.extend_from_slice(b"position \xff\xfe startpos\n");
    script.extend_from_slice(b"isready\nposition startpos\ngo depth 2\nquit\n");
    let out = session_bytes(&script);
    assert!(out.iter().any(|l| l.contains("not UTF-8")), "{out:?}");
    assert!(out.iter().any(|l| l == "readyok"));
    assert_eq!(bestmoves(&out).len(), 1, "{out:?}");
}

#[test]
fn a_root_without_moves_answers_depth_zero_and_no_move() {
    let script = format!(
        "position fen {MATED}\ngo depth 3\nposition fen {STALEMATE}\ngo depth 3\n\
         position fen {MATED}\ngo infinite\nstop\nquit\n"
    );
    let out = session(&script);
    let infos: Vec<&String> = out.iter().filter(|l| l.starts_with("info depth")).collect();
    assert_eq!(
        infos,
        [
            "info depth 0 score mate 0",
            "info depth 0 score cp 0",
            "info depth 0 score mate 0"
        ],
        "{out:?}"
    );
    assert_eq!(bestmoves(&out), ["0000", "0000", "0000"]);
}

#[test]
fn infinite_on_a_mated_root_waits_for_stop() {
    let mut engine = LiveEngine::start(&[]);
    engine.send(&format!("position fen {MATED}"));
    engine.send("go infinite");
    engine.until(|l| l.starts_with("info depth 0"));
    engine.send("isready");
    let read = engine.until(|l| l == "readyok");
    assert!(!read.iter().any(|l| l.starts_with("bestmove")), "{read:?}");
    engine.send("stop");
    engine.until(|l| l == "bestmove 0000");
    assert!(engine.quit().success());
}

#[test]
fn ponder_waits_for_ponderhit_then_answers() {
    let mut engine = LiveEngine::start(&[]);
    engine.send(&format!("position fen {MATE_IN_ONE}"));
    // Mate in one: the search is over at once, yet the answer waits for the ponderhit.
    engine.send("go ponder wtime 100 btime 100");
    engine.until(|l| l.contains("score mate 1"));
    engine.send("isready");
    let read = engine.until(|l| l == "readyok");
    assert!(!read.iter().any(|l| l.starts_with("bestmove")), "{read:?}");
    engine.send("ponderhit");
    engine.until(|l| l.starts_with("bestmove a1a8"));
    // A ponder search that is stopped answers too, once.
    engine.send("position startpos");
    engine.send("go ponder movetime 50");
    engine.until(|l| l.starts_with("info depth 2"));
    engine.send("stop");
    engine.until(|l| l.starts_with("bestmove"));
    engine.send("isready");
    let read = engine.until(|l| l == "readyok");
    assert!(!read.iter().any(|l| l.starts_with("bestmove")), "{read:?}");
    assert!(engine.quit().success());
}

#[test]
fn ponderhit_turns_pondering_into_a_timed_search() {
    let out = session("position startpos\ngo ponder wtime 200 btime 200\nponderhit\nquit\n");
    assert_eq!(bestmoves(&out).len(), 1, "{out:?}");
    let out = session("position startpos\ngo ponder\nstop\nquit\n");
    assert_eq!(bestmoves(&out).len(), 1, "{out:?}");
}

#[test]
fn long_searches_announce_the_current_root_move() {
    let mut engine = LiveEngine::start(&[]);
    engine.send("position startpos");
    engine.send("go depth 4");
    let short = engine.until(|l| l.starts_with("bestmove"));
    assert!(!short.iter().any(|l| l.contains("currmove")), "{short:?}");
    engine.send("go infinite");
    let line = engine.until(|l| l.contains("currmove")).pop().unwrap();
    let words: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(words[0..2], ["info", "depth"], "{line}");
    assert_eq!(words[3], "currmove", "{line}");
    assert_eq!(words[5], "currmovenumber", "{line}");
    assert!(Position::startpos()
        .legal_moves()
        .iter()
        .any(|m| m.to_string() == words[4]));
    engine.send("stop");
    engine.until(|l| l.starts_with("bestmove"));
    assert!(engine.quit().success());
}

#[test]
fn multipv_shows_several_lines() {
    let out = session(
        "uci\nsetoption name MultiPV value 3\nposition startpos\ngo depth 5\n\
         setoption name MultiPV value 0\nsetoption name MultiPV value 1\ngo depth 2\nquit\n",
    );
    assert!(out
        .iter()
        .any(|l| l.starts_with("option name MultiPV type spin default 1 min 1 max")));
    let depth5: Vec<&String> = out
        .iter()
        .filter(|l| l.starts_with("info depth 5 "))
        .collect();
    assert_eq!(depth5.len(), 3, "{out:?}");
    let mut firsts = Vec::new();
    for (k, line) in depth5.iter().enumerate() {
        assert!(line.contains(&format!(" multipv {} ", k + 1)), "{line}");
        let pv = line.split(" pv ").nth(1).unwrap();
        firsts.push(pv.split_whitespace().next().unwrap().to_string());
    }
    firsts.dedup();
    assert_eq!(firsts.len(), 3, "{depth5:?}");
    assert_eq!(bestmoves(&out)[0], firsts[0]);
    assert!(out.iter().any(|l| l.contains("bad MultiPV value '0'")));
    // Back to one line: no multipv field.
    let last_info = out
        .iter()
        .rev()
        .find(|l| l.starts_with("info depth"))
        .unwrap();
    assert!(!last_info.contains("multipv"), "{last_info}");
}

#[test]
fn hash_too_large_keeps_the_old_table_and_says_so() {
    let max = sparring::search::max_hash_mb();
    let script = format!(
        "uci\nsetoption name Hash value {}\nsetoption name Hash value 99999999999999999999\n\
         setoption name Hash value 2\nposition startpos\ngo depth 3\nquit\n",
        max + 1
    );
    let out = session(&script);
    assert!(
        out.iter().any(|l| l
            == &format!(
                "option name Hash type spin default 16 min 1 max {}",
                max.max(16)
            )),
        "{out:?}"
    );
    let refusals = out
        .iter()
        .filter(|l| l.starts_with("info string bad Hash value") && l.contains("keeping 16 MB"))
        .count();
    assert_eq!(refusals, 2, "{out:?}");
    assert_eq!(bestmoves(&out).len(), 1);
}

#[test]
fn absurd_weights_still_answer_movetime_and_stop() {
    let script = "position fen r3k2r/ppp1pppp/8/8/8/8/PPPQQPPP/R3K2R w KQkq - 0 1\n\
                  go movetime 100\ngo infinite\nstop\ngo nodes 5000\nquit\n";
    let out = session_with(
        |out| UciEngine::with_params(out, absurd_params()),
        script.as_bytes(),
    );
    assert_eq!(bestmoves(&out).len(), 3, "{out:?}");
    assert!(!bestmoves(&out).contains(&"0000"));
}

#[test]
fn absurd_weights_file_never_hangs_the_binary() {
    let dir = std::env::temp_dir().join(format!("sparring-uci-absurd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("absurd.toml");
    absurd_params().save(&file).unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_sparring"))
        .args(["uci", "--weights", file.to_str().unwrap()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            let mut stdin = child.stdin.take().unwrap();
            // A refused file ends the engine before it reads; the pipe may then be closed.
            let _ = stdin.write_all(
                b"position startpos moves e2e4 e7e5 d1h5\ngo movetime 100\ngo infinite\nstop\nquit\n",
            );
            drop(stdin);
            child.wait_with_output()
        })
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    // Either the file is refused at load with a clear error (status 2), or it is searched
    // with clamped evaluations and every `go` is answered.
    if output.status.code() == Some(2) {
        assert!(stderr.contains("absurd.toml"), "{stderr}");
    } else {
        assert!(output.status.success(), "{stderr}");
        let answers = stdout.lines().filter(|l| l.starts_with("bestmove")).count();
        assert_eq!(answers, 2, "{stdout}");
    }
}

/// A bounded random-input property: scripts of valid, malformed and mutated commands (random
/// bytes included) never panic the engine, and every `go` gets exactly one `bestmove`.
#[test]
fn random_command_scripts_answer_every_go_once() {
    const WORDS: [&str; 24] = [
        "searchmoves",
        "ponder",
        "wtime",
        "btime",
        "winc",
        "binc",
        "movestogo",
        "depth",
        "nodes",
        "mate",
        "movetime",
        "infinite",
        "e2e4",
        "e7e5",
        "a1a8",
        "g1f3",
        "0000",
        "-7",
        "12",
        "1.5",
        "99999999999999999999999",
        "4294967296",
        "garbage",
        "",
    ];
    const SETUPS: [&str; 10] = [
        "position startpos",
        "position startpos moves e2e4 e7e5",
        "position startpos moves e2e4 e2e4",
        "position fen 6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",
        "position fen R5k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 1",
        "position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
        "position fen 8/8/8/8 w - - 0 1",
        "position fen",
        "position",
        "position moves e2e4",
    ];
    const OTHERS: [&str; 8] = [
        "isready",
        "ucinewgame",
        "ponderhit",
        "stop",
        "setoption name MultiPV value 3",
        "setoption name MultiPV value 1",
        "setoption name Hash value 99999999999",
        "setoption name Hash",
    ];
    let mut rng = sparring::rng::Rng::new(0x5eed);
    for case in 0..150 {
        let mut script: Vec<u8> = Vec::new();
        let mut gos = 0;
        for _ in 0..12 {
            match rng.below(4) {
                0 => script.extend_from_slice(SETUPS[rng.below(10) as usize].as_bytes()),
                1 => script.extend_from_slice(OTHERS[rng.below(8) as usize].as_bytes()),
                2 => {
                    // Random bytes, never a `go`: the line starts with a marker.
                    script.push(b'x');
                    for _ in 0..rng.below(12) {
                        let byte = rng.below(256) as u8;
                        script.push(if byte == b'\n' { b' ' } else { byte });
                    }
                }
                _ => {
                    gos += 1;
                    script.extend_from_slice(b"go");
                    for _ in 0..rng.below(6) {
                        script.push(b' ');
                        script.extend_from_slice(WORDS[rng.below(24) as usize].as_bytes());
                    }
                    // A GUI that waits for no answer: bounded searches whatever the limits.
                    script.extend_from_slice(b"\nstop");
                }
            }
            script.push(b'\n');
        }
        script.extend_from_slice(b"quit\n");
        let out = session_bytes(&script);
        let answers = out.iter().filter(|l| l.starts_with("bestmove")).count();
        assert_eq!(
            answers,
            gos,
            "case {case}: {}\n{out:?}",
            String::from_utf8_lossy(&script)
        );
    }
}

/// `UCI_Chess960`: declared in the handshake; with it on castling is read and written king takes
/// own rook, with it off standard castling is the king's step; both forms are read either way.
#[test]
fn uci_chess960_option_switches_castling_text() {
    let out = session("uci\nquit\n");
    assert!(
        out.iter()
            .any(|l| l == "option name UCI_Chess960 type check default false"),
        "{out:?}"
    );
    let castle_fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";
    let castled = "2kr3r/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 w - - 2 2";
    // Only castling legal, king stays on g1: g1h1 in both modes.
    let forced = "4k3/8/b7/8/8/7p/r6P/6KR w H - 0 1";
    for (chess960, short, long_text) in [(true, "e1h1", "e8a8"), (false, "e1g1", "e8c8")] {
        let script = format!(
            "setoption name UCI_Chess960 value {chess960}\n\
             position fen {castle_fen} moves {short} {long_text}\nd\n\
             position fen {castle_fen} moves e1g1 e8a8\nd\n\
             position fen {castle_fen}\ngo depth 1 searchmoves e1h1\n\
             position fen {forced}\ngo depth 2\nquit\n"
        );
        let out = session(&script);
        let fens: Vec<&String> = out
            .iter()
            .filter(|l| l.starts_with("info string fen"))
            .collect();
        assert_eq!(fens.len(), 2, "{out:?}");
        for line in fens {
            assert!(line.contains(castled), "{line}");
        }
        let expected_castle = if chess960 { "e1h1" } else { "e1g1" };
        assert_eq!(bestmoves(&out), [expected_castle, "g1h1"], "{out:?}");
        // The principal variations use the same form.
        assert!(
            out.iter().any(
                |l| l.starts_with("info depth") && l.contains(&format!("pv {expected_castle}"))
            ),
            "{out:?}"
        );
    }
    let out = session("setoption name UCI_Chess960 value maybe\nquit\n");
    assert!(
        out.iter().any(|l| l.contains("bad UCI_Chess960 value")),
        "{out:?}"
    );
}

/// python-chess plays Chess960 and DFRC games against the binary: it turns `UCI_Chess960` on
/// itself (the engine declares it), sends Shredder-FEN positions and king-takes-rook castling,
/// and checks every engine move is legal. The python side develops its back rank and castles
/// whenever it can; three starts have its back rank cleared, so it castles at least three times
/// however fast the engine wins (a new evaluation once won the random games before that).
#[test]
fn python_chess_plays_chess960_games_against_the_engine() {
    if !tools::python_chess("chess.engine") {
        return;
    }
    let script = r#"
import sys, random, chess, chess.engine
rng = random.Random(3)
engine = chess.engine.SimpleEngine.popen_uci([sys.argv[1], "uci"])
assert "UCI_Chess960" in engine.options, engine.options
starts = [chess.Board.from_chess960_pos(n) for n in (3, 518, 959, 402)]
# A DFRC start: White SP 12, Black SP 825 (OpenBench DFRC.epd line 12345).
starts.append(chess.Board("rknbbqrn/pppppppp/8/8/8/8/PPPPPPPP/QBNNRKBR w KQkq - 0 1", chess960=True))
# Three starts where python moves first with its back rank cleared between king and rooks, so
# it castles on its first move whatever the engine's strength: the engine then answers a
# position reached by king-takes-rook castling.
def cleared(n):
    board = chess.Board.from_chess960_pos(n)
    for square in chess.SquareSet(chess.BB_RANK_1):
        if board.piece_type_at(square) not in (chess.KING, chess.ROOK):
            board.remove_piece_at(square)
    return board
ready = [cleared(n) for n in (3, 959, 402)]
castles = {"python": 0, "engine": 0}
for start in starts + ready:
    board = start.copy()
    board.chess960 = True
    engine_color = chess.BLACK if start in ready else rng.choice([chess.WHITE, chess.BLACK])
    if start in ready:
        assert any(board.is_castling(m) for m in board.legal_moves), board.fen()
    while not board.is_game_over(claim_draw=True) and board.ply() < 160:
        if board.turn == engine_color:
            result = engine.play(board, chess.engine.Limit(nodes=1500))
            assert result.move in board.legal_moves, (board.fen(), result.move)
            who = "engine"
            move = result.move
        else:
            legal = list(board.legal_moves)
            castling = [m for m in legal if board.is_castling(m)]
            # Develop the back rank's minor pieces and queen (never king or rook) so castling
            # becomes legal early, however quickly the engine wins.
            back = 0 if board.turn == chess.WHITE else 7
            develop = [m for m in legal if chess.square_rank(m.from_square) == back
                       and board.piece_type_at(m.from_square) not in (chess.KING, chess.ROOK)]
            move = castling[0] if castling else rng.choice(develop or legal)
            who = "python"
        if board.is_castling(move):
            castles[who] += 1
        board.push(move)
    print(start.fen(), board.result(claim_draw=True), board.ply(), "plies")
engine.quit()
assert castles["python"] >= 3, castles
print("chess960 games ok", castles)
"#;
    let output = std::process::Command::new("python3")
        .args(["-c", script, env!("CARGO_BIN_EXE_sparring")])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "python-chess failed: {stderr}");
    println!("{}", String::from_utf8_lossy(&output.stdout));
}
