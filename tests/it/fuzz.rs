//! Fuzz harness (issue 10): deterministic property tests that feed random bytes and mutated valid
//! inputs (bit flips, insertions, deletions, token insertions, splices of real lines from
//! tests/fixtures, configs/ and the shipped suites) to every reader of untrusted input: FEN (strict
//! and lenient), EPD and PGN suites, Polyglot books, the match and tune configurations, weights
//! files, SAN and UCI moves, and the `sparring uci` command loop.
//!
//! Each target runs a fixed number of cases from a fixed ChaCha seed, so a failure reproduces
//! exactly; proptest then shrinks it to a small input, which the failure message prints. Every
//! reader must return `Ok` or a typed error and never panic (each call runs under `catch_unwind`);
//! a watchdog fails a target whose single case runs for minutes (a hang detector, not a timing
//! assertion). `SPARRING_FUZZ_SCALE=N` multiplies the case counts for a longer local run and
//! `SPARRING_FUZZ_SEED=N` draws other inputs; run with `--nocapture` to see the counts.

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};
use sparring::arena::config::MatchConfig;
use sparring::board::{perft, CastlingNotation, FenMode, Game, Position};
use sparring::eval::EvalParams;
use sparring::openings::{
    encode_move, polyglot_key, BadLinePolicy, BookOptions, BookPick, OpeningBook, OpeningFormat,
    PolyglotBook, PolyglotEntry,
};
use sparring::rng::Rng;
use sparring::texel::TuneConfig;
use std::io::{Read, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------------------------
// Seed corpora: real files, embedded so the harness needs nothing beside the checkout.

const PERFT_FIXTURE: &str = include_str!("../fixtures/perft.epd");
const SUITE_EPD: &[u8] = include_bytes!("../fixtures/openings/suite.epd");
const CRLF_EPD: &[u8] = include_bytes!("../fixtures/openings/crlf.epd");
const GAMES_PGN: &[u8] = include_bytes!("../fixtures/openings/games.pgn");
const BOOK_PGN: &[u8] = include_bytes!("../fixtures/openings/book.pgn");
const BALANCED_EPD: &str = include_str!("../../openings/balanced-8ply.epd");
const UNBALANCED_EPD: &str = include_str!("../../openings/unbalanced.epd");
const MATCH_CONFIGS: &[&str] = &[
    include_str!("../../configs/external.toml"),
    include_str!("../../configs/gauntlet.toml"),
    include_str!("../../configs/round-robin.toml"),
    include_str!("../../configs/selfplay.toml"),
    include_str!("../../configs/sprt.toml"),
    include_str!("../../configs/verify-tuned.toml"),
    // The fastchess-equivalent additions: `[each]`, per-engine limits, the new output and
    // tournament keys, a 64-bit seed.
    "[tournament]\nseed = \"18446744073709551615\"\nsite = \"lab\"\nstrict_options = true\n\
     [each]\ntime_control = { clock = \"40/12.5+0.125\" }\n\
     uci = { options = { Hash = 8, Threads = 1 }, working_dir = \"engines\" }\n\
     builtin = { hash_mb = 4 }\n\
     [output]\ndir = \"target/fuzz-out\"\npgn_name = \"run.pgn\"\n\
     engine_log = \"engines.log\"\nformat = \"cutechess\"\nreport_penta = false\n\
     [[engine]]\nname = \"a\"\nbuiltin = {}\n\
     [[engine]]\nname = \"b\"\ntime_control = { nodes = 500 }\n\
     uci = { command = \"x\", options = { Hash = 64 } }\n",
];
const TUNE_CONFIG: &str = include_str!("../../configs/tune.toml");
const WEIGHTS: &[&str] = &[
    include_str!("../../configs/weights/default.toml"),
    include_str!("../../configs/weights/handset.toml"),
    include_str!("../../configs/weights/material-only.toml"),
];

/// Hand-picked FENs that reach the corners of the parser and the move generator.
const EXTRA_FENS: &[&str] = &[
    Position::START_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "B6b/8/8/8/2K5/5k2/8/b6B b - - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1",
    "QQQQQQQQ/QQQQQQQQ/QQQQQQQQ/8/8/8/8/K6k b - - 0 1",
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
    "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",
    "4k3/8/8/8/8/8/8/4K3 w - - 65535 65535",
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq -",
];

/// Fragments worth inserting anywhere: syntax of every format, boundary numbers, odd bytes.
const TOKENS: &[&str] = &[
    " ",
    "\n",
    "\r\n",
    "\t",
    "\0",
    "\u{feff}",
    "\u{3000}",
    "é",
    "\u{200b}",
    "/",
    "-",
    "8",
    "9",
    "0",
    "1",
    "w",
    "b",
    "KQkq",
    "Kk",
    "e3",
    "e6",
    "h9",
    "k",
    "K",
    "p",
    "P",
    "Q",
    ";",
    "\"",
    "'",
    "[",
    "]",
    "{",
    "}",
    "(",
    ")",
    "=",
    ",",
    ".",
    "...",
    "1.",
    "1...",
    "$",
    "$1",
    "%",
    "#",
    "+",
    "*",
    "1-0",
    "0-1",
    "1/2-1/2",
    "O-O",
    "O-O-O",
    "0-0",
    "e4",
    "Nf3",
    "exd6",
    "e8=Q",
    "Qxh7#",
    "[FEN \"",
    "[SetUp \"1\"]",
    "[Variant \"",
    "id",
    "hmvc",
    "fmvn",
    "c0",
    "-1",
    "65535",
    "65536",
    "4294967296",
    "18446744073709551616",
    "9223372036854775807",
    "9223372036854775808",
    "1e400",
    "-0",
    "nan",
    "inf",
    "0x10",
    "1_000",
    "true",
    "false",
    "\"\"\"",
    "'''",
    "[[engine]]",
    "[tournament]",
    "[openings]",
    "[time_control]",
    "[sprt]",
    "[output]",
    "[data]",
    "[optimizer]",
    "[material]",
    "[pst.knight]",
    "{ a = 1 }",
    "[1, 2]",
    "go",
    "depth",
    "nodes",
    "movetime",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "mate",
    "infinite",
    "ponder",
    "searchmoves",
    "position",
    "startpos",
    "fen",
    "moves",
    "e2e4",
    "e7e8q",
    "e1g1",
    "0000",
    "a1a1",
    "stop",
    "isready",
    "ucinewgame",
    "setoption",
    "name",
    "value",
];

fn fens() -> Vec<String> {
    let mut out: Vec<String> = EXTRA_FENS.iter().map(|f| f.to_string()).collect();
    for line in PERFT_FIXTURE.lines().filter(|l| !l.starts_with('#')) {
        out.push(line.split(';').next().unwrap().trim().to_string());
    }
    out.extend(BALANCED_EPD.lines().step_by(100).map(str::to_string));
    out.extend(UNBALANCED_EPD.lines().step_by(100).map(str::to_string));
    out.retain(|f| !f.is_empty());
    out
}

/// Every line of the given documents, for splicing.
pub(crate) fn lines_of(docs: &[&[u8]]) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = docs
        .iter()
        .flat_map(|d| d.split_inclusive(|&b| b == b'\n'))
        .map(<[u8]>::to_vec)
        .collect();
    out.dedup();
    out
}

// ---------------------------------------------------------------------------------------------
// Mutations.

/// One edit of a byte string. Positions are `Index`es, resolved against the current length, so
/// proptest can shrink a failing input by dropping edits.
#[derive(Clone, Debug)]
enum Mutation {
    FlipBit(Index, u8),
    SetByte(Index, u8),
    Insert(Index, u8),
    Delete(Index, u8),
    InsertToken(Index, Index),
    /// Inserts a real line from the pool at a line start.
    SpliceLine(Index, Index),
    DeleteLine(Index),
    /// Replaces the n-th space-separated field with the n-th field of a pool line (a FEN's
    /// castling field with another's, a TOML value with another's).
    SpliceField(Index, Index),
    Duplicate(Index, u8),
    Truncate(Index),
}

impl Mutation {
    fn apply(&self, bytes: &mut Vec<u8>, lines: &[Vec<u8>]) {
        let len = bytes.len();
        match self {
            Mutation::FlipBit(at, bit) if len > 0 => bytes[at.index(len)] ^= 1 << (bit % 8),
            Mutation::SetByte(at, byte) if len > 0 => bytes[at.index(len)] = *byte,
            Mutation::Insert(at, byte) => bytes.insert(at.index(len + 1), *byte),
            Mutation::Delete(at, n) if len > 0 => {
                let start = at.index(len);
                let end = (start + 1 + usize::from(*n % 16)).min(len);
                bytes.drain(start..end);
            }
            Mutation::InsertToken(at, token) => {
                let token = TOKENS[token.index(TOKENS.len())].as_bytes();
                let at = at.index(len + 1);
                bytes.splice(at..at, token.iter().copied());
            }
            Mutation::SpliceLine(at, line) if !lines.is_empty() => {
                let at = line_start(bytes, at.index(len + 1));
                let line = &lines[line.index(lines.len())];
                bytes.splice(at..at, line.iter().copied());
            }
            Mutation::DeleteLine(at) if len > 0 => {
                let start = line_start(bytes, at.index(len));
                let end = bytes[start..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(len, |i| start + i + 1);
                bytes.drain(start..end);
            }
            Mutation::SpliceField(field, line) if !lines.is_empty() => {
                let donor = &lines[line.index(lines.len())];
                let fields = |b: &[u8]| -> Vec<(usize, usize)> {
                    let mut spans = Vec::new();
                    let mut start = None;
                    for (i, &c) in b.iter().chain(std::iter::once(&b' ')).enumerate() {
                        match (c.is_ascii_whitespace(), start) {
                            (false, None) => start = Some(i),
                            (true, Some(s)) => {
                                spans.push((s, i));
                                start = None;
                            }
                            _ => {}
                        }
                    }
                    spans
                };
                let (ours, theirs) = (fields(bytes), fields(donor));
                if !ours.is_empty() && !theirs.is_empty() {
                    let n = field.index(ours.len());
                    let (from, to) = theirs[n.min(theirs.len() - 1)];
                    let (start, end) = ours[n];
                    bytes.splice(start..end, donor[from..to].iter().copied());
                }
            }
            Mutation::Duplicate(at, n) if len > 0 => {
                let start = at.index(len);
                let end = (start + 1 + usize::from(*n)).min(len);
                let copy = bytes[start..end].to_vec();
                bytes.splice(end..end, copy);
            }
            Mutation::Truncate(at) => bytes.truncate(at.index(len + 1)),
            _ => {}
        }
    }
}

fn line_start(bytes: &[u8], at: usize) -> usize {
    bytes[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1)
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        3 => (any::<Index>(), any::<u8>()).prop_map(|(i, b)| Mutation::FlipBit(i, b)),
        2 => (any::<Index>(), any::<u8>()).prop_map(|(i, b)| Mutation::SetByte(i, b)),
        2 => (any::<Index>(), any::<u8>()).prop_map(|(i, b)| Mutation::Insert(i, b)),
        2 => (any::<Index>(), any::<u8>()).prop_map(|(i, n)| Mutation::Delete(i, n)),
        3 => (any::<Index>(), any::<Index>()).prop_map(|(i, t)| Mutation::InsertToken(i, t)),
        2 => (any::<Index>(), any::<Index>()).prop_map(|(i, l)| Mutation::SpliceLine(i, l)),
        2 => (any::<Index>(), any::<Index>()).prop_map(|(i, l)| Mutation::SpliceField(i, l)),
        1 => any::<Index>().prop_map(Mutation::DeleteLine),
        1 => (any::<Index>(), any::<u8>()).prop_map(|(i, n)| Mutation::Duplicate(i, n)),
        1 => any::<Index>().prop_map(Mutation::Truncate),
    ]
}

fn mutate(seed: &[u8], edits: &[Mutation], lines: &[Vec<u8>]) -> Vec<u8> {
    let mut bytes = seed.to_vec();
    for edit in edits {
        edit.apply(&mut bytes, lines);
    }
    bytes
}

/// Inputs for a byte-level target: random bytes, a soup of format tokens, or a seed from the
/// corpus with a few edits (the most likely, since it reaches past the first checks).
pub(crate) fn inputs(
    seeds: Vec<Vec<u8>>,
    lines: Vec<Vec<u8>>,
    max_random: usize,
    max_edits: usize,
) -> impl Strategy<Value = Vec<u8>> {
    let seeds = Arc::new(seeds);
    let lines = Arc::new(lines);
    let random = prop::collection::vec(any::<u8>(), 0..max_random);
    let soup = prop::collection::vec(any::<Index>(), 0..48).prop_map(|picks| {
        picks
            .iter()
            .flat_map(|i| TOKENS[i.index(TOKENS.len())].bytes())
            .collect::<Vec<u8>>()
    });
    let mutated = (
        any::<Index>(),
        prop::collection::vec(mutation(), 1..max_edits + 1),
    )
        .prop_map(move |(seed, edits)| mutate(&seeds[seed.index(seeds.len())], &edits, &lines));
    prop_oneof![1 => random, 1 => soup, 6 => mutated]
}

// ---------------------------------------------------------------------------------------------
// The runner: fixed seed, catch_unwind around each case, a watchdog for hangs.

/// A single case running this long is a hang (typical cases take micro- to milliseconds).
const CASE_HANG_LIMIT: Duration = Duration::from_secs(120);

fn scaled(cases: u32) -> u32 {
    let scale = std::env::var("SPARRING_FUZZ_SCALE")
        .ok()
        .and_then(|s| s.parse::<u32>().ok())
        .unwrap_or(1);
    cases.saturating_mul(scale.max(1))
}

/// The target's fixed seed; `SPARRING_FUZZ_SEED=N` picks another stream for exploratory runs.
fn seed_for(name: &str) -> [u8; 32] {
    let extra = std::env::var("SPARRING_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .unwrap_or(0);
    let mut seed = [0u8; 32];
    let mut rng = Rng::new(name.bytes().fold(0x5eed ^ extra, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    }));
    for chunk in seed.chunks_mut(8) {
        chunk.copy_from_slice(&rng.next_u64().to_le_bytes());
    }
    seed
}

/// The text of a panic payload.
fn panic_text(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "non-string panic".to_string())
}

/// Whether a reader took a case's input (`Ok`) or refused it with a typed error.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Verdict {
    Accepted,
    Refused,
}

impl Verdict {
    fn of<T, E>(result: &Result<T, E>) -> Verdict {
        if result.is_ok() {
            Verdict::Accepted
        } else {
            Verdict::Refused
        }
    }
}

/// Cases run on a target and how many of them a reader accepted: a harness whose mutated inputs
/// never get past the first check would test little, so each target asserts a share of both.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Counts {
    ran: usize,
    accepted: usize,
}

impl Counts {
    pub(crate) fn assert_mixed(self, name: &str, cases: u32) {
        assert!(self.ran >= cases as usize, "{name}: {self:?}");
        assert!(
            self.accepted * 50 >= self.ran && self.accepted < self.ran,
            "{name}: accepted {} of {} inputs: the inputs miss one side of the reader",
            self.accepted,
            self.ran
        );
    }
}

/// Runs `check` on `cases` inputs drawn from `strategy` with a seed fixed by `name`. A panic in
/// `check` fails the case (and proptest shrinks it); a case that runs past `CASE_HANG_LIMIT`
/// fails the target, printing the input it was on.
pub(crate) fn run_target<S, F>(name: &'static str, cases: u32, strategy: S, check: F) -> Counts
where
    S: Strategy + Send + 'static,
    S::Value: std::fmt::Debug + Clone + Send,
    F: Fn(&S::Value) -> Result<Verdict, String> + Send + Sync + 'static,
{
    let cases = scaled(cases);
    let current: Arc<Mutex<(Instant, String)>> =
        Arc::new(Mutex::new((Instant::now(), String::new())));
    let count = Arc::new(AtomicUsize::new(0));
    let accepted = Arc::new(AtomicUsize::new(0));
    let (done_tx, done_rx) = mpsc::channel();
    {
        let current = current.clone();
        let count = count.clone();
        let accepted = accepted.clone();
        std::thread::spawn(move || {
            let config = Config {
                cases,
                rng_algorithm: RngAlgorithm::ChaCha,
                failure_persistence: None,
                max_shrink_iters: 4096,
                ..Config::default()
            };
            let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &seed_for(name));
            let mut runner = TestRunner::new_with_rng(config, rng);
            let result = runner.run(&strategy, |input| {
                *current.lock().unwrap() = (Instant::now(), format!("{input:?}"));
                count.fetch_add(1, Ordering::Relaxed);
                match catch_unwind(AssertUnwindSafe(|| check(&input))) {
                    Ok(Ok(verdict)) => {
                        if verdict == Verdict::Accepted {
                            accepted.fetch_add(1, Ordering::Relaxed);
                        }
                        Ok(())
                    }
                    Ok(Err(message)) => Err(TestCaseError::fail(message)),
                    Err(payload) => Err(TestCaseError::fail(format!(
                        "panicked: {}",
                        panic_text(payload)
                    ))),
                }
            });
            let outcome = match result {
                Ok(()) => Ok(()),
                Err(TestError::Fail(reason, input)) => {
                    Err(format!("{name}: {reason}\nminimal input: {input:?}"))
                }
                Err(TestError::Abort(reason)) => Err(format!("{name}: aborted: {reason}")),
            };
            let _ = done_tx.send(outcome);
        });
    }
    loop {
        match done_rx.recv_timeout(Duration::from_secs(1)) {
            Ok(Ok(())) => break,
            Ok(Err(message)) => panic!("{message}"),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let (started, input) = current.lock().unwrap().clone();
                assert!(
                    started.elapsed() < CASE_HANG_LIMIT,
                    "{name}: one case has run for {:?} (a hang); input: {input}",
                    started.elapsed()
                );
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => panic!("{name}: runner thread died"),
        }
    }
    let counts = Counts {
        ran: count.load(Ordering::Relaxed),
        accepted: accepted.load(Ordering::Relaxed),
    };
    println!(
        "fuzz target {name}: {} cases ({cases} requested), {} accepted (uci: sessions fully answered)",
        counts.ran, counts.accepted
    );
    counts
}

/// A fuzz input whose `Debug` form is an escaped byte string, so a failure prints readable input.
#[derive(Clone)]
pub(crate) struct Bytes(pub(crate) Vec<u8>);

impl std::fmt::Debug for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "b\"{}\"", self.0.escape_ascii())
    }
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

// ---------------------------------------------------------------------------------------------
// FEN, positions, SAN and UCI moves.

fn cozy_perft(board: &cozy_chess::Board, depth: u32) -> u64 {
    let mut nodes = 0;
    board.generate_moves(|moves| {
        if depth == 1 {
            nodes += moves.len() as u64;
        } else {
            for mv in moves {
                let mut child = board.clone();
                child.play_unchecked(mv);
                nodes += cozy_perft(&child, depth - 1);
            }
        }
        false
    });
    nodes
}

/// What must hold for any position a FEN parser accepts: its FEN reads back to it, every legal
/// move round-trips through SAN and UCI and make/unmake, and perft agrees with cozy-chess where
/// cozy-chess accepts the position too.
fn check_position(pos: &Position) -> Result<(), String> {
    let fen = pos.to_fen();
    let again = Position::from_fen_lenient(&fen).map_err(|e| format!("{fen} re-reads: {e}"))?;
    if &again != pos {
        return Err(format!("{fen} reads back as {}", again.to_fen()));
    }
    for &mv in pos.legal_moves().iter() {
        let san = pos.san(mv);
        if pos.parse_san(&san) != Ok(mv) {
            return Err(format!("{fen}: SAN {san} of {mv} does not read back"));
        }
        if pos.parse_uci_move(&mv.to_string()) != Ok(mv) {
            return Err(format!("{fen}: UCI {mv} does not read back"));
        }
        let mut child = pos.clone();
        let undo = child.make_move(mv);
        child.unmake_move(mv, undo);
        if &child != pos {
            return Err(format!("{fen}: make/unmake of {mv} changes the position"));
        }
    }
    if let Ok(board) = fen.parse::<cozy_chess::Board>() {
        let ours = perft::perft(&mut pos.clone(), 2);
        let theirs = cozy_perft(&board, 2);
        if ours != theirs {
            return Err(format!(
                "{fen}: perft 2 is {ours}, cozy-chess says {theirs}"
            ));
        }
    }
    Ok(())
}

fn check_fen(text: &str) -> Result<Verdict, String> {
    let strict = Position::from_fen_with(text, FenMode::Strict);
    let lenient = Position::from_fen_with(text, FenMode::Lenient);
    match (&strict, &lenient) {
        (Ok(s), Ok(l)) if s != l => return Err("strict and lenient parses differ".into()),
        (Ok(_), Err(e)) => return Err(format!("strict accepts, lenient refuses: {e}")),
        _ => {}
    }
    let verdict = Verdict::of(&lenient);
    for result in [strict, lenient] {
        match result {
            Ok(pos) => check_position(&pos)?,
            Err(e) if e.to_string().is_empty() => return Err("empty error message".into()),
            Err(_) => {}
        }
    }
    Ok(verdict)
}

/// Random boards: both kings and a sprinkle of pieces (a pawn on a back rank only now and then),
/// with random fields, to reach odd positions that mutated real FENs rarely produce.
fn random_fen() -> impl Strategy<Value = Vec<u8>> {
    let square = prop::sample::select(b"PNBRQpnbrq".to_vec());
    (
        prop::collection::vec((0..64usize, square, any::<u8>()), 0..14),
        (0..64usize, 0..64usize),
        any::<bool>(),
        prop::sample::select(vec!["-", "-", "-", "-", "KQkq", "K", "Qk", "q"]),
        prop::option::weighted(0.1, 0..64usize),
        prop::sample::select(vec!["0 1", "99 40", "100 1", "65535 65535", ""]),
    )
        .prop_map(
            |(pieces, (white_king, black_king), white, castling, ep, clocks)| {
                let mut board = [b'.'; 64];
                for (at, piece, chance) in pieces {
                    let back_rank = !(8..56).contains(&at);
                    if !back_rank || !piece.eq_ignore_ascii_case(&b'p') || chance < 8 {
                        board[at] = piece;
                    }
                }
                board[white_king] = b'K';
                board[black_king] = b'k';
                let ranks: Vec<String> = board
                    .chunks(8)
                    .rev()
                    .map(|rank| {
                        let mut text = String::new();
                        let mut empty = 0;
                        for &b in rank {
                            if b == b'.' {
                                empty += 1;
                                continue;
                            }
                            if empty > 0 {
                                text.push_str(&empty.to_string());
                                empty = 0;
                            }
                            text.push(char::from(b));
                        }
                        if empty > 0 {
                            text.push_str(&empty.to_string());
                        }
                        text
                    })
                    .collect();
                let ep = ep.map_or("-".to_string(), |i| {
                    sparring::board::Square::from_index(i).to_string()
                });
                let side = if white { "w" } else { "b" };
                format!("{} {side} {castling} {ep} {clocks}", ranks.join("/"))
                    .trim_end()
                    .as_bytes()
                    .to_vec()
            },
        )
}

#[test]
fn fuzz_fen_strict_and_lenient() {
    let fens = fens();
    let seeds: Vec<Vec<u8>> = fens.iter().map(|f| f.clone().into_bytes()).collect();
    let lines = seeds.clone();
    let strategy = prop_oneof![inputs(seeds, lines, 120, 3), random_fen()].prop_map(Bytes);
    run_target("fen", 6000, strategy, |bytes| check_fen(&text(bytes))).assert_mixed("fen", 6000);
}

/// A position from the corpus and a move text: a legal move's SAN or UCI form, mutated.
fn move_inputs() -> impl Strategy<Value = (usize, bool, Bytes)> {
    let positions: Arc<Vec<Position>> = Arc::new(
        fens()
            .iter()
            .map(|f| Position::from_fen_lenient(f).unwrap())
            .filter(Position::has_legal_moves)
            .collect(),
    );
    let count = positions.len();
    (
        0..count,
        any::<bool>(),
        any::<Index>(),
        prop::collection::vec(mutation(), 0..4),
        prop::collection::vec(any::<u8>(), 0..12),
        0..4u8,
    )
        .prop_map(move |(at, san, pick, edits, random, kind)| {
            let pos = &positions[at];
            let legal = pos.legal_moves();
            let mv = legal[pick.index(legal.len())];
            let seed = if san { pos.san(mv) } else { mv.to_string() };
            let bytes = match kind {
                0 => random,
                _ => mutate(seed.as_bytes(), &edits, &[]),
            };
            (at, san, Bytes(bytes))
        })
}

#[test]
fn fuzz_san_and_uci_moves() {
    let positions: Vec<Position> = fens()
        .iter()
        .map(|f| Position::from_fen_lenient(f).unwrap())
        .filter(Position::has_legal_moves)
        .collect();
    run_target("moves", 8000, move_inputs(), move |(at, _, bytes)| {
        let pos = &positions[*at];
        let text = text(bytes);
        let legal = pos.legal_moves();
        let san = pos.parse_san(&text);
        if let Ok(mv) = san {
            if !legal.contains(mv) {
                return Err(format!("SAN '{text}' gave the illegal move {mv}"));
            }
        }
        let uci = pos.parse_uci_move(&text);
        if let Ok(mv) = uci {
            if !legal.contains(mv) {
                return Err(format!("UCI '{text}' gave the illegal move {mv}"));
            }
        }
        Ok(Verdict::of(&san.or(uci.map_err(|_| ()))))
    })
    .assert_mixed("moves", 8000);
}

// ---------------------------------------------------------------------------------------------
// Opening suites and books.

fn options(policy: bool, plies: u8) -> BookOptions {
    BookOptions {
        plies: [None, Some(0), Some(1), Some(6)][usize::from(plies % 4)],
        policy: if policy {
            BadLinePolicy::Refuse
        } else {
            BadLinePolicy::Skip
        },
        start: 1,
        pick: if plies % 2 == 0 {
            BookPick::Weighted
        } else {
            BookPick::Best
        },
    }
}

/// Loads `bytes` as a book of `format` under both policies; what loads must be usable: every
/// opening drawn replays legally and leaves a position with a legal move.
fn check_book(format: OpeningFormat, bytes: &[u8], plies: u8) -> Result<Verdict, String> {
    let name = format!("fuzz.{}", format.name());
    let mut verdict = Verdict::Refused;
    for policy in [false, true] {
        let loaded = OpeningBook::from_bytes(&name, bytes, format, options(policy, plies));
        if !policy && loaded.is_ok() {
            verdict = Verdict::Accepted;
        }
        match loaded {
            Err(e) => {
                let message = e.to_string();
                if !message.contains(&name) {
                    return Err(format!("error does not name the file: {message}"));
                }
            }
            Ok(book) => {
                for bad in book.rejected() {
                    let message = bad.to_string();
                    if !message.starts_with(&format!("{name}:")) {
                        return Err(format!("rejected line does not name the file: {message}"));
                    }
                }
                let mut rng = Rng::new(u64::from(plies));
                let count = book.len().unwrap_or(4).min(6);
                for i in 0..count {
                    let opening = book.opening(i, &mut rng);
                    let mut game = Game::new(opening.start.clone());
                    for &mv in &opening.moves {
                        game.play(mv)
                            .map_err(|e| format!("opening {i}: book move {mv}: {e}"))?;
                    }
                    let pos = game.position();
                    if book.len().is_some() && !pos.has_legal_moves() {
                        return Err(format!("opening {i} ends without a legal move: {pos}"));
                    }
                }
            }
        }
    }
    Ok(verdict)
}

#[test]
fn fuzz_epd_suites() {
    let balanced: Vec<u8> = BALANCED_EPD
        .lines()
        .take(40)
        .flat_map(|l| format!("{l}\n").into_bytes())
        .collect();
    let seeds = vec![SUITE_EPD.to_vec(), CRLF_EPD.to_vec(), balanced.clone()];
    let lines = lines_of(&[SUITE_EPD, CRLF_EPD, &balanced, PERFT_FIXTURE.as_bytes()]);
    let strategy = (inputs(seeds, lines, 600, 8).prop_map(Bytes), any::<u8>());
    run_target("epd", 2500, strategy, |(bytes, plies)| {
        for line in text(bytes).lines() {
            // The single-line reader must agree with itself: Ok(None) only for blank/comment.
            if let Ok(Some(pos)) = sparring::openings::parse_epd_line(line) {
                check_position(&pos)?;
            }
        }
        check_book(OpeningFormat::Epd, bytes, *plies)
    })
    .assert_mixed("epd", 2500);
}

#[test]
fn fuzz_pgn_suites() {
    let seeds = vec![GAMES_PGN.to_vec(), BOOK_PGN.to_vec()];
    let lines = lines_of(&[GAMES_PGN, BOOK_PGN]);
    let strategy = (inputs(seeds, lines, 600, 8).prop_map(Bytes), any::<u8>());
    run_target("pgn", 2500, strategy, |(bytes, plies)| {
        check_book(OpeningFormat::Pgn, bytes, *plies)
    })
    .assert_mixed("pgn", 2500);
}

/// A real book: every position of the fixture PGN games with its next move.
fn fixture_book_entries() -> Vec<PolyglotEntry> {
    let book = OpeningBook::from_bytes(
        "book.pgn",
        BOOK_PGN,
        OpeningFormat::Pgn,
        BookOptions::default(),
    )
    .unwrap();
    let mut entries = Vec::new();
    let mut rng = Rng::new(0);
    for i in 0..book.len().unwrap() {
        let opening = book.opening(i, &mut rng);
        let mut pos = opening.start.clone();
        let mut ep = None;
        for (ply, &mv) in opening.moves.iter().enumerate() {
            entries.push(PolyglotEntry {
                key: polyglot_key(&pos, ep),
                raw_move: encode_move(mv),
                weight: (ply as u16 % 3) + 1,
                learn: 0,
            });
            ep = mv.is_double_push().then(|| {
                sparring::board::Square::from_index((mv.from().index() + mv.to().index()) / 2)
            });
            pos.make_move(mv);
        }
    }
    entries
}

/// Polyglot inputs: random bytes (any length, odd ones included), byte-mutated real books, and
/// real books whose moves and weights are scrambled but whose keys stay sorted (so the reader
/// gets past the format checks and decodes garbage moves).
fn polyglot_inputs() -> impl Strategy<Value = (Bytes, u8)> {
    let entries = Arc::new(fixture_book_entries());
    let real = PolyglotBook::from_entries(entries.to_vec()).to_bytes();
    let entry_lines: Vec<Vec<u8>> = real.chunks(16).map(<[u8]>::to_vec).collect();
    let bytes = inputs(vec![real], entry_lines, 200, 6);
    let scrambled = prop::collection::vec((any::<Index>(), any::<u16>(), any::<u16>()), 1..24)
        .prop_map(move |edits| {
            let mut book = entries.to_vec();
            for (at, raw, weight) in edits {
                let i = at.index(book.len());
                book[i].raw_move = raw;
                book[i].weight = weight;
            }
            PolyglotBook::from_entries(book).to_bytes()
        });
    (
        prop_oneof![2 => bytes, 1 => scrambled].prop_map(Bytes),
        any::<u8>(),
    )
}

#[test]
fn fuzz_polyglot_books() {
    run_target("polyglot", 2500, polyglot_inputs(), |(bytes, plies)| {
        if let Ok(book) = PolyglotBook::from_bytes(bytes) {
            let start = Position::startpos();
            let walk = book.walk(&start, Some(usize::from(*plies % 12)));
            if walk.positions > book.len() {
                return Err(format!("walk visited {} positions", walk.positions));
            }
            for mv in book.moves(&start) {
                if !start.legal_moves().contains(mv.mv) {
                    return Err(format!("book move {} is illegal", mv.mv));
                }
            }
        }
        check_book(OpeningFormat::Polyglot, bytes, *plies)
    })
    .assert_mixed("polyglot", 2500);
}

// ---------------------------------------------------------------------------------------------
// Configuration and weights files.

fn toml_lines(docs: &[&str]) -> Vec<Vec<u8>> {
    let docs: Vec<&[u8]> = docs.iter().map(|d| d.as_bytes()).collect();
    lines_of(&docs)
}

/// An error must name the file it is about.
fn names_source(message: String) -> Result<Verdict, String> {
    if message.starts_with("fuzz.toml") {
        Ok(Verdict::Refused)
    } else {
        Err(format!(
            "error does not start with the file name: {message}"
        ))
    }
}

#[test]
fn fuzz_match_config() {
    let seeds: Vec<Vec<u8>> = MATCH_CONFIGS
        .iter()
        .map(|c| c.as_bytes().to_vec())
        .collect();
    let lines = toml_lines(MATCH_CONFIGS);
    run_target(
        "match-config",
        3000,
        inputs(seeds, lines, 400, 6),
        |bytes| match MatchConfig::parse(&text(bytes), "fuzz.toml") {
            Ok(_) => Ok(Verdict::Accepted),
            Err(e) => names_source(e.to_string()),
        },
    )
    .assert_mixed("match-config", 3000);
}

#[test]
fn fuzz_tune_config() {
    let seeds = vec![TUNE_CONFIG.as_bytes().to_vec()];
    let lines = toml_lines(&[TUNE_CONFIG]);
    run_target(
        "tune-config",
        3000,
        inputs(seeds, lines, 400, 6).prop_map(Bytes),
        |bytes| match TuneConfig::from_toml_str(&text(bytes), "fuzz.toml") {
            Ok(_) => Ok(Verdict::Accepted),
            Err(e) => names_source(e.to_string()),
        },
    )
    .assert_mixed("tune-config", 3000);
}

#[test]
fn fuzz_weights_files() {
    let seeds: Vec<Vec<u8>> = WEIGHTS.iter().map(|w| w.as_bytes().to_vec()).collect();
    let lines = toml_lines(WEIGHTS);
    run_target(
        "weights",
        1500,
        inputs(seeds, lines, 400, 6).prop_map(Bytes),
        |bytes| {
            match EvalParams::from_toml_str(&text(bytes), "fuzz.toml") {
                // What loads writes out and reads back the same.
                Ok(params) => {
                    let written = params.to_toml_string();
                    let again = EvalParams::from_toml_str(&written, "fuzz.toml")
                        .map_err(|e| format!("written weights do not read back: {e}"))?;
                    if again.to_toml_string() != written {
                        return Err("weights change when written and read back".into());
                    }
                    Ok(Verdict::Accepted)
                }
                Err(e) => names_source(e.to_string()),
            }
        },
    )
    .assert_mixed("weights", 1500);
}

// ---------------------------------------------------------------------------------------------
// The UCI command loop of the real binary.

const UCI_COMMANDS: &[&str] = &[
    "uci",
    "isready",
    "ucinewgame",
    "position startpos",
    "position startpos moves e2e4 e7e5 g1f3 b8c6",
    "position startpos moves e2e4 e7e5 e1e2",
    "position fen 6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",
    "position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
    "position fen 7k/8/6QK/8/8/8/8/8 b - - 0 1",
    "position fen 8/8/8/KPp4r/8/8/8/4k3 w - c6 0 2 moves b5c6",
    "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 moves e2e4",
    "go depth 1",
    "go nodes 100",
    "go depth 2 nodes 500",
    "go movetime 5",
    "go wtime 100 btime 100 winc 0 binc 0 movestogo 1",
    "go infinite",
    "go ponder nodes 100",
    "go mate 1",
    "go searchmoves e2e4 d2d4",
    "stop",
    "ponderhit",
    "debug on",
    "register later",
    "d",
    "setoption name Move Overhead value 10",
    "setoption name Threads value 1",
    "setoption name Clear Hash",
    "setoption name UCI_Chess960 value true",
    "setoption name UCI_Chess960 value false",
    "position fen bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1 moves g2g3 g7g6",
    "position fen bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1 moves g1h1",
    "position fen 1r2k1rr/pppppppp/8/8/8/8/PPPPPPPP/1R2K1RR w GBgb - 0 1 moves e1b1",
];

/// Lines that are never mutated: what they could turn into is unsafe to run on a shared machine
/// (a Hash of gigabytes, a weights path such as /dev/zero), not an interesting input.
const UCI_FIXED_COMMANDS: &[&str] = &[
    "setoption name Hash value 1",
    "setoption name Hash value 8",
    "setoption name Hash value 0",
    "setoption name Hash value 99999999999999999999",
    "setoption name Weights value <builtin>",
    "setoption name Weights value no-such-weights.toml",
];

/// A session: numbered command templates, each with a few edits, and the position seeds used.
fn uci_sessions() -> impl Strategy<Value = Vec<Vec<u8>>> {
    let fens = Arc::new(fens());
    let line = (
        any::<Index>(),
        prop::collection::vec(mutation(), 0..3),
        0..10u8,
    )
        .prop_map(move |(pick, edits, kind)| {
            let templates = UCI_COMMANDS.len() + UCI_FIXED_COMMANDS.len();
            let i = pick.index(templates + 1);
            if i == templates || kind == 0 {
                let fen = &fens[pick.index(fens.len())];
                return mutate(format!("position fen {fen}").as_bytes(), &edits, &[]);
            }
            if let Some(fixed) = UCI_FIXED_COMMANDS.get(i.wrapping_sub(UCI_COMMANDS.len())) {
                return fixed.as_bytes().to_vec();
            }
            let template = UCI_COMMANDS[i].as_bytes();
            let mutated = mutate(template, &edits, &[]);
            // The safety rule above, applied to what a mutation made of a harmless line.
            let lower = String::from_utf8_lossy(&mutated).to_ascii_lowercase();
            if lower.contains("hash") || lower.contains("weights") {
                return template.to_vec();
            }
            mutated
        });
    prop::collection::vec(line, 4..20)
}

/// What a session fed to the engine should produce.
struct SessionPlan {
    input: Vec<u8>,
    /// `go` commands before the first `quit`: each must get exactly one `bestmove`.
    gos: usize,
}

/// Lays out the lines as the engine will read them (split at '\n', a '\r' before it dropped) and
/// counts the `go`s. A `stop` follows every `go` except the two bounded forms, so a search with
/// no limit (or one a mutation made huge) always ends; a `quit` ends the session.
fn plan_session(lines: &[Vec<u8>]) -> SessionPlan {
    let mut input = Vec::new();
    let mut gos = 0;
    let mut ended = false;
    let joined: Vec<u8> = lines.join(&b'\n');
    for raw in joined.split(|&b| b == b'\n') {
        let line = raw.strip_suffix(b"\r").unwrap_or(raw);
        input.extend_from_slice(line);
        input.push(b'\n');
        // A line that is not UTF-8 is skipped by the engine (with an `info string`).
        let Ok(text) = std::str::from_utf8(line) else {
            continue;
        };
        let tokens: Vec<&str> = text.split_whitespace().collect();
        match tokens.first() {
            Some(&"go") => {
                if !ended {
                    gos += 1;
                }
                if !matches!(text, "go depth 1" | "go nodes 100") {
                    input.extend_from_slice(b"stop\n");
                }
            }
            Some(&"quit") => ended = true,
            _ => {}
        }
    }
    input.extend_from_slice(b"quit\n");
    SessionPlan { input, gos }
}

/// A session taking this long is a hang: the child is killed and the case fails.
const SESSION_HANG_LIMIT: Duration = Duration::from_secs(60);

/// Runs `sparring uci` on the plan's input; returns (exit code, stdout, stderr) or a hang.
fn run_engine(input: &[u8]) -> Result<(Option<i32>, String, String), String> {
    run_program(
        Path::new(env!("CARGO_BIN_EXE_sparring")),
        &["uci".to_string()],
        Path::new("."),
        input,
        SESSION_HANG_LIMIT,
    )
}

/// Runs `program args` in `cwd` with `input` on standard input; returns (exit code, stdout,
/// stderr), or an error if it has not exited after `limit` (it is then killed).
fn run_program(
    program: &Path,
    args: &[String],
    cwd: &Path,
    input: &[u8],
    limit: Duration,
) -> Result<(Option<i32>, String, String), String> {
    let mut child = Command::new(program)
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", program.display()))?;
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        // The program may exit before reading everything (after `quit`): a broken pipe is fine.
        let _ = stdin.write_all(&input);
    });
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = stdout.read_to_end(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = stderr.read_to_end(&mut s);
        s
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("no exit after {limit:?}: killed (a hang)"));
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let _ = writer.join();
    let out = String::from_utf8_lossy(&out_reader.join().unwrap()).into_owned();
    let err = String::from_utf8_lossy(&err_reader.join().unwrap()).into_owned();
    Ok((status.code(), out, err))
}

#[test]
fn fuzz_uci_command_loop() {
    let counts = run_target("uci", 300, uci_sessions(), move |lines| {
        let plan = plan_session(lines);
        let (code, out, err) = run_engine(&plan.input)?;
        if err.contains("panicked") {
            return Err(format!("the engine panicked: {err}"));
        }
        if code != Some(0) {
            return Err(format!("exit status {code:?}; stderr: {err}"));
        }
        let bestmoves = out.lines().filter(|l| l.starts_with("bestmove")).count();
        if bestmoves == plan.gos {
            return Ok(Verdict::Accepted);
        }
        Err(format!(
            "{} go commands, {bestmoves} bestmoves\ninput:\n{}\noutput:\n{out}",
            plan.gos,
            String::from_utf8_lossy(&plan.input)
        ))
    });
    assert!(counts.ran >= 300, "{counts:?}");
}

/// The session planner itself: `go`s are counted as the engine reads lines, `stop` follows an
/// unbounded `go`.
#[test]
fn uci_session_plan_counts_gos_as_the_engine_reads_them() {
    let plan = plan_session(&[
        b"go depth 1".to_vec(),
        b"go nodes 100 garbage\r\ngo infinite".to_vec(),
        vec![b'g', b'o', 0xff],
        b"  go   depth 1 ".to_vec(),
        b"quit".to_vec(),
        b"go depth 1".to_vec(),
    ]);
    assert_eq!(plan.gos, 4);
    let text = String::from_utf8_lossy(&plan.input);
    assert!(text.starts_with(
        "go depth 1\ngo nodes 100 garbage\nstop\ngo infinite\nstop\ngo\u{fffd}\n  go   depth 1 \nstop\nquit\n"
    ));
    assert!(text.ends_with("quit\ngo depth 1\nquit\n"));
}

// ---------------------------------------------------------------------------------------------
// Chess960: X-FEN and Shredder-FEN, both UCI castling conventions, random games from random
// Scharnagl and double-Fischer-random starts.

/// Every 960 rule a position must keep: both FEN forms read back to it, every legal move
/// round-trips through SAN, through `uci(mv, true)` and `uci(mv, false)`, and through make/unmake
/// with the incremental key equal to the key computed from scratch; perft 2 agrees with
/// cozy-chess reading the Shredder-FEN in Chess960 mode.
fn check_960_position(pos: &Position) -> Result<(), String> {
    let fen = pos.to_fen();
    let shredder = pos.to_shredder_fen();
    for text in [&fen, &shredder] {
        let again =
            Position::from_fen_lenient(text).map_err(|e| format!("{text} re-reads: {e}"))?;
        if &again != pos {
            return Err(format!("{text} reads back as {}", again.to_fen()));
        }
    }
    if pos.key() != pos.compute_key() {
        return Err(format!(
            "{fen}: key differs from the key computed from scratch"
        ));
    }
    for &mv in pos.legal_moves().iter() {
        let san = pos.san(mv);
        if pos.parse_san(&san) != Ok(mv) {
            return Err(format!("{fen}: SAN {san} of {mv:?} does not read back"));
        }
        for notation in [CastlingNotation::Chess960, CastlingNotation::Standard] {
            let uci = pos.uci(mv, notation);
            if pos.parse_uci_move(&uci) != Ok(mv) {
                return Err(format!(
                    "{fen}: uci({mv:?}, {notation:?}) = {uci} reads back as {:?}",
                    pos.parse_uci_move(&uci)
                ));
            }
        }
        let mut child = pos.clone();
        let undo = child.make_move(mv);
        if child.key() != child.compute_key() {
            return Err(format!("{fen}: key after {san} differs from scratch"));
        }
        child.unmake_move(mv, undo);
        if &child != pos {
            return Err(format!("{fen}: make/unmake of {san} changes the position"));
        }
    }
    if let Ok(board) = cozy_chess::Board::from_fen(&shredder, true) {
        let ours = perft::perft(&mut pos.clone(), 2);
        let theirs = cozy_perft(&board, 2);
        if ours != theirs {
            return Err(format!(
                "{shredder}: perft 2 is {ours}, cozy-chess says {theirs}"
            ));
        }
    }
    Ok(())
}

/// A start (Scharnagl number, or two for DFRC) and the random choices of a game from it.
fn games_960() -> impl Strategy<Value = (u16, Option<u16>, Vec<Index>)> {
    (
        0..960u16,
        prop::option::of(0..960u16),
        prop::collection::vec(any::<Index>(), 0..60),
    )
}

#[test]
fn property_960_random_games_round_trip_fen_uci_san_and_keys() {
    use sparring::board::chess960::{dfrc_start_position, start_position};
    let counts = run_target("960-games", 150, games_960(), |(white, black, picks)| {
        let mut pos = match black {
            None => start_position(*white),
            Some(black) => dfrc_start_position(*white, *black),
        }
        .map_err(|e| e.to_string())?;
        for pick in picks {
            check_960_position(&pos)?;
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            // Castling whenever a pick's low bit allows, so the rook-file rules get exercised.
            let castles: Vec<_> = legal.iter().copied().filter(|m| m.is_castle()).collect();
            let mv = if !castles.is_empty() && pick.index(2) == 0 {
                castles[pick.index(castles.len())]
            } else {
                legal[pick.index(legal.len())]
            };
            pos.make_move(mv);
        }
        check_960_position(&pos)?;
        Ok(Verdict::Accepted)
    });
    assert!(counts.ran >= 150, "{counts:?}");
}

/// 960 FENs in both castling notations (starts, and positions a few moves in) to mutate.
fn fens_960() -> Vec<String> {
    use sparring::board::chess960::{dfrc_start_position, start_position};
    let mut rng = Rng::new(960);
    let mut out = Vec::new();
    for i in 0..40u64 {
        let n = (rng.next_u64() % 960) as u16;
        let mut pos = if i % 2 == 0 {
            start_position(n).unwrap()
        } else {
            dfrc_start_position(n, (rng.next_u64() % 960) as u16).unwrap()
        };
        for _ in 0..(rng.next_u64() % 12) {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            let mv = legal[(rng.next_u64() % legal.len() as u64) as usize];
            pos.make_move(mv);
        }
        out.push(pos.to_fen());
        out.push(pos.to_shredder_fen());
    }
    out
}

#[test]
fn fuzz_960_fens() {
    let seeds: Vec<Vec<u8>> = fens_960().into_iter().map(String::into_bytes).collect();
    let lines = seeds.clone();
    let castling = prop::sample::select(vec![
        "-", "KQkq", "HAha", "BGbg", "Hh", "AHah", "KQkqHA", "GgGg", "Kk", "Aa", "hH", "Ii", "KkA",
    ]);
    // A real 960 FEN whose castling field is replaced: rights naming files without a rook,
    // twice the same right, upper and lower case mixed.
    let recastled = (prop::sample::select(fens_960()), castling).prop_map(|(fen, field)| {
        let mut fields: Vec<&str> = fen.split(' ').collect();
        fields[2] = field;
        fields.join(" ").into_bytes()
    });
    let strategy = prop_oneof![2 => inputs(seeds, lines, 120, 3), 1 => recastled].prop_map(Bytes);
    run_target("960-fen", 3000, strategy, |bytes| {
        // Not `check_fen`: its UCI check writes moves with `Display`, which for a castling
        // whose king stays put (`g8g8`) is no UCI text; `check_960_position` uses `uci()`.
        let text = text(bytes);
        let strict = Position::from_fen_with(&text, FenMode::Strict);
        let lenient = Position::from_fen_with(&text, FenMode::Lenient);
        match (&strict, &lenient) {
            (Ok(s), Ok(l)) if s != l => return Err("strict and lenient parses differ".into()),
            (Ok(_), Err(e)) => return Err(format!("strict accepts, lenient refuses: {e}")),
            _ => {}
        }
        let verdict = Verdict::of(&lenient);
        for result in [strict, lenient] {
            match result {
                Ok(pos) => check_960_position(&pos)?,
                Err(e) if e.to_string().is_empty() => return Err("empty error message".into()),
                Err(_) => {}
            }
        }
        Ok(verdict)
    })
    .assert_mixed("960-fen", 3000);
}

// ---------------------------------------------------------------------------------------------
// Search parameters, SPSA configurations and OpenBench/fishtest parameter lines.

const SEARCH_PARAMS_TOML: &str = include_str!("../../configs/search/default.toml");
const SPSA_CONFIG: &str = include_str!("../../configs/spsa.toml");
/// The SPSA configuration forms the shipped file does not show: `lines` in both dialects, a
/// UCI engine, groups.
const SPSA_EXTRA: &str = "[spsa]\niterations = 10\npairs_per_iteration = 1\nseed = 3\n\
    a_ratio = 0.1\nalpha = 0.602\ngamma = 0.101\n\
    lines = \"\"\"\nsearch.lmr.base, float, 0.75, 0.25, 1.5, 0.1, 0.002\n\
    search.rfp.margin, 80, 30, 160, 6, 0.002\n\"\"\"\n\
    [engine]\nhash_mb = 8\n[time_control]\nnodes = 1000\n\
    [[param]]\nname = \"search.nmp\"\n[[param]]\nname = \"tempo\"\nmin = 0\nmax = 40\n";
const PARAM_LINES: &[&str] = &[
    "search.lmr.base, float, 0.75, 0.25, 1.5, 0.1, 0.002",
    "search.rfp.margin, int, 80, 30, 160, 6, 0.002",
    "Opt, 3, 1, 6, 0.5, 0.002",
    "futility, 1e3, -1e308, 1e308, 1e-300, 0",
    "x, float, -0, -0, 0, 5e-324, 1.7976931348623157e308",
];

#[test]
fn fuzz_search_params_toml() {
    let seeds = vec![SEARCH_PARAMS_TOML.as_bytes().to_vec()];
    let lines = toml_lines(&[SEARCH_PARAMS_TOML]);
    run_target(
        "search-params",
        1500,
        inputs(seeds, lines, 400, 6).prop_map(Bytes),
        |bytes| match sparring::search::SearchParams::from_toml_str(&text(bytes), "fuzz.toml") {
            // What loads writes out and reads back the same.
            Ok(params) => {
                let written = params.to_toml_string();
                let again = sparring::search::SearchParams::from_toml_str(&written, "fuzz.toml")
                    .map_err(|e| format!("written search params do not read back: {e}"))?;
                if again.to_toml_string() != written {
                    return Err("search params change when written and read back".into());
                }
                Ok(Verdict::Accepted)
            }
            Err(e) => names_source(e.to_string()),
        },
    )
    .assert_mixed("search-params", 1500);
}

#[test]
fn fuzz_spsa_config() {
    let seeds = vec![
        SPSA_CONFIG.as_bytes().to_vec(),
        SPSA_EXTRA.as_bytes().to_vec(),
    ];
    let lines = toml_lines(&[SPSA_CONFIG, SPSA_EXTRA, SEARCH_PARAMS_TOML]);
    run_target(
        "spsa-config",
        1500,
        inputs(seeds, lines, 400, 6).prop_map(Bytes),
        |bytes| match sparring::spsa::SpsaConfig::parse(&text(bytes), "fuzz.toml") {
            Ok(config) => {
                let _ = config.description();
                Ok(Verdict::Accepted)
            }
            Err(e) => names_source(e.to_string()),
        },
    )
    .assert_mixed("spsa-config", 1500);
}

#[test]
fn fuzz_openbench_and_fishtest_param_lines() {
    use sparring::spsa::{format_param_line, parse_param_line};
    let seeds: Vec<Vec<u8>> = PARAM_LINES.iter().map(|l| l.as_bytes().to_vec()).collect();
    let lines = seeds.clone();
    run_target(
        "param-lines",
        3000,
        inputs(seeds, lines, 80, 4).prop_map(Bytes),
        |bytes| match parse_param_line(&text(bytes)) {
            Ok(line) => {
                if !(line.min <= line.value && line.value <= line.max && line.c_end > 0.0) {
                    return Err(format!("accepted an inconsistent line: {line:?}"));
                }
                check_gains_finite(&line)?;
                // The line the tuner prints reads back to the same parameter.
                let written = format_param_line(&line);
                match parse_param_line(&written) {
                    Ok(again) if again == line => Ok(Verdict::Accepted),
                    other => Err(format!("{written} reads back as {other:?}")),
                }
            }
            Err(e) if e.is_empty() => Err("empty error".into()),
            Err(_) => Ok(Verdict::Refused),
        },
    )
    .assert_mixed("param-lines", 3000);
}

/// What an accepted parameter must give under every schedule the configuration allows
/// (iterations up to u64::MAX, A-ratio 0 to 1000, alpha and gamma 0 to 2): finite gains, and a
/// perturbation and an update of theta inside [min, max] at the first and last iteration.
/// Regression: a huge c_end made a_k / c_k = inf / inf, and theta became NaN.
fn check_gains_finite(line: &sparring::spsa::ParamLine) -> Result<(), String> {
    use sparring::spsa::GainSchedule;
    use sparring::spsa::{SpsaParam, SpsaPlan};
    for (iterations, a_ratio, alpha, gamma) in [
        (1u64, 0.1, 0.602, 0.101),
        (1000, 0.0, 0.0, 0.0),
        (1000, 1000.0, 2.0, 2.0),
        (u64::MAX, 1000.0, 2.0, 2.0),
        (u64::MAX, 0.0, 0.0, 2.0),
    ] {
        let plan = SpsaPlan {
            params: vec![SpsaParam {
                name: line.name.clone(),
                kind: line.kind,
                start: line.value,
                min: line.min,
                max: line.max,
                c_end: line.c_end,
                r_end: line.r_end,
            }],
            schedule: GainSchedule {
                iterations,
                a_ratio,
                alpha,
                gamma,
            },
            pairs_per_iteration: 1,
            seed: 1,
        };
        for k in [0, iterations - 1] {
            let theta = [line.value];
            let perturbation = plan.perturbation(k, &theta);
            for result in [-2i64, 0, 2] {
                let updated = plan.update(k, &theta, &perturbation.flips, result);
                let values = perturbation
                    .plus
                    .iter()
                    .chain(&perturbation.minus)
                    .chain(&updated);
                for &v in values {
                    if !(line.min..=line.max).contains(&v) {
                        return Err(format!(
                            "{line:?}: iteration {k} of {iterations} (A-ratio {a_ratio}, \
                             alpha {alpha}, gamma {gamma}), result {result}: value {v}"
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The fastchess / cutechess-cli command line (src/cli/dialect, issue 21). It lives in the binary,
// so each case runs the binary on a real worker line with a few token edits (tokens dropped,
// repeated, swapped, values negative, huge, malformed or empty, options left last without their
// value), always with `--dump-config FILE`, which parses and writes the TOML form instead of
// playing. Expected: status 0 with a dump that reads back to the same text, or status 2 with a
// one-line `error:` naming an option; never a panic (101), a hang, or status 1.

/// How a command line reaches the dialect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Runner {
    /// `sparring match -engine ...`, `--dump-config FILE` last.
    Match,
    /// A `fastchess` symlink, `--dump-config FILE` first (the line's own last option stays last).
    Fastchess,
    /// A `fastchess-ob` symlink, as OpenBench installs it.
    FastchessOb,
    /// A `cutechess-cli` symlink: cutechess-cli's `-games`/`-rounds` and results lines.
    Cutechess,
}

/// The real command lines: the README's, fishtest's (fastchess and cutechess-cli eras) and
/// OpenBench's (docs/research/worker-command-lines.md), with this machine's concurrency, plus
/// lines that reach the other options. `{C}` is the concurrency. `|` separates arguments
/// that hold spaces (shlex/argv elements).
const DIALECT_SEEDS: &[(Runner, &str)] = &[
    (
        Runner::Match,
        "-engine builtin name=default weights=configs/weights/default.toml \
         -engine builtin name=material-only weights=configs/weights/material-only.toml \
         -each tc=inf nodes=20000 -openings file=openings/balanced-8ply.epd format=epd order=random \
         -rounds 100 -concurrency {C} -srand 1 -pgnout file=results/cli/games.pgn",
    ),
    (
        Runner::Fastchess,
        "-testEnv -recover -repeat -games 2 -rounds 400 \
         -ratinginterval 1 -scoreinterval 1 -autosaveinterval 0 -report penta=true \
         -pgnout file=results-6650f0a1b2c3d4e5f6a7b8c9-17.pgn append=false -crc32 pgn=true \
         -site https://tests.stockfishchess.org/tests/view/6650f0a1b2c3d4e5f6a7b8c9 \
         -event |Batch 17: patch vs master| -srand 5549552095228975195 \
         -resign movecount=3 score=600 -draw movenumber=34 movecount=8 score=20 \
         -variant standard -concurrency {C} \
         -openings file=UHO_Lichess_4852_v1.epd format=epd order=random plies=16 start=6801 \
         -check-mate-pvs \
         -engine name=New-0123456789abcdef0123456789abcdef01234567 tc=12.500+0.125 \
         cmd=/home/w/worker/testing/stockfish-new dir=. option.Hash=16 \
         option.EvalFile=nn-0123456789ab.nnue option.EvalFileSmall=nn-ba9876543210.nnue \
         -engine name=Base-76543210fedcba9876543210fedcba9876543210 tc=12.500+0.125 \
         cmd=/home/w/worker/testing/stockfish-base dir=. option.Hash=16 \
         option.EvalFile=nn-0123456789ab.nnue option.EvalFileSmall=nn-ba9876543210.nnue \
         -each proto=uci option.Threads=1",
    ),
    (
        Runner::FastchessOb,
        "-recover -variant standard -testEnv -concurrency {C} -rounds 512 -games 2 \
         -resign movecount=3 score=400 -draw movenumber=40 movecount=8 score=10 \
         -engine dir=Engines/ cmd=./Ethereal-1A2B3C4D proto=uci tc=8.50+0.09 timemargin=250 \
         option.Threads=1 option.Hash=8 name=Ethereal-dev \
         -engine dir=Engines/ cmd=./Ethereal-5E6F7A8B proto=uci tc=8.50+0.09 timemargin=250 \
         option.Threads=1 option.Hash=8 name=Ethereal-base \
         -openings file=Books/UHO_Lichess_4852_v1.epd format=epd order=random start=8193 \
         -srand 4242 -pgnout file=PGNs/4242.98765.1767225600.0.pgn seldepth=true nodes=true \
         |match_line=^info string pgncomment .*|",
    ),
    (
        Runner::FastchessOb,
        "-recover -variant fischerandom -testEnv -concurrency {C} -rounds 8 -games 1 \
         -engine dir=Engines/ cmd=./Dev proto=uci tc=inf nodes=5000 option.Threads=1 \
         option.Hash=8 name=Dev-dev \
         -engine dir=Engines/ cmd=./Base proto=uci tc=inf depth=8 option.Threads=1 \
         option.Hash=8 name=Dev-base \
         -openings file=Books/DFRC_4852_v1.epd format=epd order=sequential start=1",
    ),
    (
        Runner::Cutechess,
        "-recover -repeat -games 800 -tournament gauntlet -pgnout results-old.pgn fi \
         -site https://tests.stockfishchess.org/tests/view/5f0a \
         -event |Batch 3: patch vs master| -srand 123456789 \
         -resign movecount=3 score=400 -draw movenumber=34 movecount=8 score=20 \
         -variant standard -concurrency {C} \
         -openings file=UHO_4060_v4.epd format=epd order=random plies=16 start=1 \
         -engine name=New-abc tc=10+0.1 cmd=./stockfish dir=. option.Hash=16 \
         -engine name=Base-def tc=10+0.1 cmd=./stockfish dir=. option.Hash=16 \
         -each proto=uci timemargin=10000 option.Threads=1",
    ),
    (
        Runner::Match,
        "-engine builtin name=a hash=8 tc=40/12.5+0.125 -engine cmd=./sparring |args=uci --x 'y z'| \
         name=b depth=5 option.Hash=4 -each timemargin=250 -rounds 6 -concurrency 1 \
         -srand 18446744073709551615 -draw movenumber=34 movecount=8 score=20 \
         -resign movecount=3 score=600 twosided=true -maxmoves 150 \
         -sprt elo0=0 elo1=2.5 alpha=0.05 beta=0.1 model=logistic \
         -openings file=suite.pgn format=pgn order=random start=2 plies=8 policy=round \
         -pgnout file=out/run.pgn -ratinginterval 3 -log file=engines.log engine=true level=info \
         -strict -tournament gauntlet -output format=cutechess -site |my lab| --progress lines",
    ),
    (
        Runner::Match,
        "-engine builtin name=x st=0.5 -engine builtin name=y st=0.25 -engine builtin name=z \
         tc=1:30+1 -tournament roundrobin -games 1 -rounds 3 -maxmoves 100000 \
         -report penta=false -output format=fastchess -show-latency -use-affinity 0,1 \
         -pgnout file=rr.pgn append=true notation=san min=false -ratinginterval 0",
    ),
    (
        Runner::Cutechess,
        "-quick cmd=builtin cmd=./engine book=book.pgn -concurrency {C}",
    ),
    (Runner::Fastchess, "-config file=match.toml discard=true --resume"),
];

/// Options to insert: every one the dialect reads, the refused ones, and near misses.
const DIALECT_OPTIONS: &[&str] = &[
    "-engine",
    "-each",
    "-variant",
    "-rounds",
    "-games",
    "-repeat",
    "-concurrency",
    "-srand",
    "-draw",
    "-resign",
    "-maxmoves",
    "-sprt",
    "-openings",
    "-pgnout",
    "-recover",
    "-ratinginterval",
    "-scoreinterval",
    "-autosaveinterval",
    "-report",
    "-output",
    "-log",
    "-strict",
    "-config",
    "-event",
    "-site",
    "-tournament",
    "-testEnv",
    "-crc32",
    "-check-mate-pvs",
    "-use-affinity",
    "-show-latency",
    "-quick",
    "-epdout",
    "-tb",
    "-noswap",
    "-version",
    "-help",
    "--resume",
    "--progress",
    "-frobnicate",
    "--",
    "---",
    "-Engine",
    "-rounds=2",
    "-é",
];

/// Keys of `key=value` tokens: the engine keys, every group's keys, refused and unknown ones.
const DIALECT_KEYS: &[&str] = &[
    "cmd",
    "name",
    "dir",
    "args",
    "proto",
    "tc",
    "st",
    "nodes",
    "plies",
    "depth",
    "timemargin",
    "restart",
    "weights",
    "hash",
    "option.Hash",
    "option.Threads",
    "option.",
    "option.Weights",
    "file",
    "format",
    "order",
    "start",
    "policy",
    "movenumber",
    "movecount",
    "score",
    "twosided",
    "elo0",
    "elo1",
    "alpha",
    "beta",
    "model",
    "append",
    "notation",
    "min",
    "level",
    "engine",
    "penta",
    "pgn",
    "book",
    "discard",
    "stats",
    "compress",
    "conf",
    "stderr",
    "",
    "NAME",
    "tc ",
    "é",
];

/// Values: boundaries, overflows, malformed numbers and limits, empty and odd text.
const DIALECT_VALUES: &[&str] = &[
    "-1",
    "0",
    "-0",
    "1",
    "2",
    "3",
    "-2",
    "-100000",
    "100000",
    "100001",
    "127",
    "128",
    "65536",
    "65537",
    "100000000",
    "100000001",
    "200000001",
    "2147483647",
    "2147483648",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999",
    "",
    " ",
    "nan",
    "NaN",
    "inf",
    "-inf",
    "infinite",
    "1e400",
    "1e-400",
    "1e308",
    "0.0001",
    "0.5",
    "0.49",
    "-0.5",
    "0.0",
    "1.5",
    "abc",
    "0x10",
    "1_000",
    "+1",
    "=",
    "==",
    "k=v",
    "=v",
    "é",
    "\u{3000}",
    "\t",
    "\n",
    "\r",
    "\u{7}",
    "'",
    "\"",
    "a b",
    "'unclosed",
    "\"unclosed",
    "\\",
    "10+0.1",
    "40/60+0.6",
    "1:30+1",
    "0+0",
    "0",
    "inf+1",
    "inf/10+0",
    "1/0+0",
    "0/10+1",
    "99999999999999999999+0",
    "10+99999999999999999999",
    "99999999999999999999:0+0",
    "10+0.1hg",
    "10s+0.1s",
    "-10+0",
    "10+-1",
    "1/",
    "/10",
    "+",
    ":",
    "1:",
    "true",
    "false",
    "TRUE",
    "builtin",
    "random",
    "sequential",
    "epd",
    "pgn",
    "round",
    "gauntlet",
    "roundrobin",
    "fischerandom",
    "chess960",
    "standard",
    "cutechess",
    "fastchess",
    "normalized",
    "logistic",
    "bayesian",
    "off",
    "uci",
    "xboard",
    "lines",
    "bar",
    "auto",
    "trace",
    "x.toml",
    "match.toml",
    "/",
    ".",
    "..",
    "-",
    "out/",
    "file.pgn",
    "dir/",
    "san",
    "lan",
];

/// One edit of a command line's tokens; positions are `Index`es into the current tokens.
#[derive(Clone, Debug)]
enum TokenEdit {
    Drop(Index),
    Repeat(Index),
    Swap(Index, Index),
    /// The value of a `key=value` token, a bare value replaced, or a value put after an option.
    Value(Index, Index),
    /// The key of a `key=value` token (or a key put before a bare value).
    Key(Index, Index),
    InsertOption(Index, Index),
    InsertValue(Index, Index),
    InsertPair(Index, Index, Index),
    /// The line ends right after an option: its values are gone.
    EndAfterOption(Index),
    /// An option and its values repeated at the end of the line.
    RepeatGroup(Index),
}

/// The dialect's own test: a token starting with `-` that is not a negative number.
fn dialect_is_option(token: &str) -> bool {
    let mut chars = token.chars();
    chars.next() == Some('-')
        && chars
            .next()
            .is_some_and(|c| !c.is_ascii_digit() && c != '.')
}

impl TokenEdit {
    fn apply(&self, tokens: &mut Vec<String>) {
        let len = tokens.len();
        let options: Vec<usize> = (0..len)
            .filter(|&i| dialect_is_option(&tokens[i]))
            .collect();
        let value = |v: &Index| DIALECT_VALUES[v.index(DIALECT_VALUES.len())].to_string();
        let key = |k: &Index| DIALECT_KEYS[k.index(DIALECT_KEYS.len())];
        match self {
            TokenEdit::Drop(at) if len > 0 => {
                tokens.remove(at.index(len));
            }
            TokenEdit::Repeat(at) if len > 0 => {
                let at = at.index(len);
                tokens.insert(at, tokens[at].clone());
            }
            TokenEdit::Swap(a, b) if len > 0 => tokens.swap(a.index(len), b.index(len)),
            TokenEdit::Value(at, v) if len > 0 => {
                let at = at.index(len);
                let token = tokens[at].clone();
                if let Some((k, _)) = token.split_once('=') {
                    tokens[at] = format!("{k}={}", value(v));
                } else if dialect_is_option(&token) {
                    tokens.insert(at + 1, value(v));
                } else {
                    tokens[at] = value(v);
                }
            }
            TokenEdit::Key(at, k) if len > 0 => {
                let at = at.index(len);
                let token = tokens[at].clone();
                tokens[at] = match token.split_once('=') {
                    Some((_, rest)) => format!("{}={rest}", key(k)),
                    None => format!("{}={token}", key(k)),
                };
            }
            TokenEdit::InsertOption(at, o) => tokens.insert(
                at.index(len + 1),
                DIALECT_OPTIONS[o.index(DIALECT_OPTIONS.len())].to_string(),
            ),
            TokenEdit::InsertValue(at, v) => tokens.insert(at.index(len + 1), value(v)),
            TokenEdit::InsertPair(at, k, v) => {
                tokens.insert(at.index(len + 1), format!("{}={}", key(k), value(v)))
            }
            TokenEdit::EndAfterOption(at) if !options.is_empty() => {
                tokens.truncate(options[at.index(options.len())] + 1)
            }
            TokenEdit::RepeatGroup(at) if !options.is_empty() => {
                let start = options[at.index(options.len())];
                let end = options.iter().find(|&&i| i > start).copied().unwrap_or(len);
                let group = tokens[start..end].to_vec();
                tokens.extend(group);
            }
            _ => {}
        }
    }
}

fn token_edit() -> impl Strategy<Value = TokenEdit> {
    let i = any::<Index>;
    prop_oneof![
        3 => i().prop_map(TokenEdit::Drop),
        2 => i().prop_map(TokenEdit::Repeat),
        2 => (i(), i()).prop_map(|(a, b)| TokenEdit::Swap(a, b)),
        6 => (i(), i()).prop_map(|(a, v)| TokenEdit::Value(a, v)),
        2 => (i(), i()).prop_map(|(a, k)| TokenEdit::Key(a, k)),
        2 => (i(), i()).prop_map(|(a, o)| TokenEdit::InsertOption(a, o)),
        1 => (i(), i()).prop_map(|(a, v)| TokenEdit::InsertValue(a, v)),
        2 => (i(), i(), i()).prop_map(|(a, k, v)| TokenEdit::InsertPair(a, k, v)),
        2 => i().prop_map(TokenEdit::EndAfterOption),
        1 => i().prop_map(TokenEdit::RepeatGroup),
    ]
}

/// A mutated command line and how it is run.
#[derive(Clone)]
struct DialectCase {
    runner: Runner,
    tokens: Vec<String>,
}

impl std::fmt::Debug for DialectCase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}:", self.runner)?;
        for t in &self.tokens {
            let plain = !t.is_empty()
                && t.chars()
                    .all(|c| c.is_ascii_graphic() && !"'\"\\$`".contains(c));
            if plain {
                write!(f, " {t}")?;
            } else {
                write!(f, " {t:?}")?;
            }
        }
        Ok(())
    }
}

/// The seed lines as argument lists, with this machine's concurrency.
fn dialect_seed_tokens() -> Vec<(Runner, Vec<String>)> {
    let concurrency = sparring::available_cores().min(2).to_string();
    DIALECT_SEEDS
        .iter()
        .map(|(runner, line)| {
            let line = line.replace("{C}", &concurrency);
            let mut tokens = Vec::new();
            for (i, part) in line.split('|').enumerate() {
                if i % 2 == 1 {
                    tokens.push(part.to_string());
                } else {
                    tokens.extend(part.split_whitespace().map(str::to_string));
                }
            }
            (*runner, tokens)
        })
        .collect()
}

fn dialect_cases() -> impl Strategy<Value = DialectCase> {
    let seeds = Arc::new(dialect_seed_tokens());
    (
        any::<Index>(),
        any::<bool>(),
        prop::collection::vec(token_edit(), 1..5),
    )
        .prop_map(move |(seed, through_match, edits)| {
            let (runner, tokens) = &seeds[seed.index(seeds.len())];
            let mut tokens = tokens.clone();
            for edit in &edits {
                edit.apply(&mut tokens);
            }
            // A fastchess line runs as `sparring match` or through the symlink, half each.
            let runner = match runner {
                Runner::Match | Runner::Fastchess if through_match => Runner::Match,
                Runner::Match => Runner::Fastchess,
                other => *other,
            };
            DialectCase { runner, tokens }
        })
}

/// The scratch directory of the dialect target: the runner symlinks and the `-config` file.
fn dialect_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["fastchess", "fastchess-ob", "cutechess-cli"] {
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_sparring"), dir.join(name)).unwrap();
    }
    std::fs::write(
        dir.join("match.toml"),
        "[tournament]\nrounds = 2\nconcurrency = 1\n[time_control]\nnodes = 100\n\
         [output]\ndir = \"out\"\n\
         [[engine]]\nname = \"a\"\nbuiltin = {}\n[[engine]]\nname = \"b\"\nbuiltin = {}\n",
    )
    .unwrap();
    dir
}

impl DialectCase {
    /// The program and its arguments. `sparring match` needs a single-dash option first (else
    /// it is `sparring match CONFIG`, which clap reads): such a line goes through `fastchess`.
    fn command(&self, dir: &Path) -> (PathBuf, Vec<String>) {
        let dump = ["--dump-config".to_string(), "dump.toml".to_string()];
        let first_is_option = self.tokens.first().is_some_and(|t| {
            t.starts_with('-') && !t.starts_with("--") && t != "-h" && t.len() > 1
        });
        let runner = match self.runner {
            Runner::Match if !first_is_option => Runner::Fastchess,
            other => other,
        };
        let name = match runner {
            Runner::Match => {
                let mut args = vec!["match".to_string()];
                args.extend(self.tokens.iter().cloned());
                args.extend(dump);
                return (PathBuf::from(env!("CARGO_BIN_EXE_sparring")), args);
            }
            Runner::Fastchess => "fastchess",
            Runner::FastchessOb => "fastchess-ob",
            Runner::Cutechess => "cutechess-cli",
        };
        let mut args = dump.to_vec();
        args.extend(self.tokens.iter().cloned());
        (dir.join(name), args)
    }
}

/// Whether an error message names an option: a `-x` or `--x` word.
fn names_an_option(message: &str) -> bool {
    let b = message.as_bytes();
    (0..b.len()).any(|i| {
        b[i] == b'-'
            && (i == 0 || b" `'\"(-".contains(&b[i - 1]))
            && b.get(i + 1)
                .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'-')
    })
}

/// A case taking this long is a hang: parsing a command line takes milliseconds.
const DIALECT_HANG_LIMIT: Duration = Duration::from_secs(60);

fn check_dialect_case(case: &DialectCase, dir: &Path) -> Result<Verdict, String> {
    let dump = dir.join("dump.toml");
    let _ = std::fs::remove_file(&dump);
    let (program, args) = case.command(dir);
    let (code, out, err) = run_program(&program, &args, dir, b"", DIALECT_HANG_LIMIT)?;
    if err.contains("panicked") || code == Some(101) {
        return Err(format!("panicked (status {code:?}): {err}"));
    }
    match code {
        Some(0) => {
            if out.contains(VERSION_PREFIX) || out.contains("Usage:") {
                // -version or -help: printed, nothing parsed further.
                return Ok(Verdict::Accepted);
            }
            for line in err.lines() {
                if !(line.starts_with("note: -") || line.starts_with("wrote ")) {
                    return Err(format!(
                        "status 0 with a stray standard error line: {line:?}"
                    ));
                }
            }
            let text = std::fs::read_to_string(&dump)
                .map_err(|e| format!("status 0 but no dump: {e}; stderr: {err}"))?;
            let config = MatchConfig::load(&dump)
                .map_err(|e| format!("the dump does not read back: {e}\n{text}"))?;
            if config.to_toml() != text {
                return Err(format!(
                    "the dump changes when read back:\n{text}\nread back:\n{}",
                    config.to_toml()
                ));
            }
            Ok(Verdict::Accepted)
        }
        Some(2) => {
            if !out.is_empty() {
                return Err(format!("status 2 with standard output: {out}"));
            }
            if dump.exists() {
                return Err("status 2 but the dump was written".into());
            }
            let lines: Vec<&str> = err.lines().collect();
            match lines.as_slice() {
                [line] if line.starts_with("error: ") && names_an_option(line) => {
                    Ok(Verdict::Refused)
                }
                _ => Err(format!(
                    "status 2 without a one-line `error:` naming an option: {err:?}"
                )),
            }
        }
        other => Err(format!("exit status {other:?}; stderr: {err}")),
    }
}

/// What `-version` prints first.
const VERSION_PREFIX: &str = "fastchess-compatible";

/// The seed lines themselves are accepted: the mutations start from valid lines.
#[test]
fn dialect_seed_lines_are_accepted() {
    let dir = dialect_dir("fuzz-dialect-seeds");
    for (runner, tokens) in dialect_seed_tokens() {
        let case = DialectCase { runner, tokens };
        let dump = dir.join("dump.toml");
        assert_eq!(
            check_dialect_case(&case, &dir),
            Ok(Verdict::Accepted),
            "{case:?}"
        );
        assert!(dump.exists(), "{case:?}: nothing dumped");
    }
}

#[test]
fn fuzz_dialect_command_lines() {
    let dir = dialect_dir("fuzz-dialect");
    let check_dir = dir.clone();
    run_target("dialect", 2000, dialect_cases(), move |case| {
        check_dialect_case(case, &check_dir)
    })
    .assert_mixed("dialect", 2000);
}
