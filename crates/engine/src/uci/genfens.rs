//! Random opening positions for self-play data: a few uniformly random legal plies from a start
//! position, then a short search that rejects a start too far from level. `sparring datagen`
//! draws its openings with [`random_plies`], and the UCI loop answers OpenBench's
//! `genfens N seed S book <None|FILE>` ([`GenfensCommand`]) with the same generator and the
//! built-in search as the verifier, evaluating as the engine plays (its network when
//! `EvalFile` names one).
//!
//! Everything is drawn from the project's seeded [`Rng`](crate::rng::Rng), so a seed gives the
//! same positions on every machine and every version of Rust.

use super::ExtraCommand;
use crate::board::Position;
use crate::eval::EvalParams;
use crate::rng::Rng;
use crate::search::{Evaluator, SearchLimits, Searcher};

/// Random plies `genfens` plays from each start.
pub(crate) const GENFENS_PLIES: usize = 8;
/// Nodes of the verification search.
pub(crate) const VERIFY_NODES: u64 = 1_000;
/// The largest absolute verification score (centipawns) a start may have.
pub(crate) const VERIFY_WINDOW_CP: i32 = 1_000;
/// Draws per position before giving up (a start whose random plies keep ending the game).
const MAX_ATTEMPTS: usize = 1_000;

/// Plays `plies` uniformly random legal moves from `start`. None when a move leaves the side to
/// move without a legal move (mate or stalemate): the caller draws again.
pub fn random_plies(start: &Position, plies: usize, rng: &mut Rng) -> Option<Position> {
    let mut pos = start.clone();
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return None;
        }
        let mv = moves[rng.below(moves.len() as u64) as usize];
        pos.make_move(mv);
    }
    pos.has_legal_moves().then_some(pos)
}

/// `count` verified random starts for `seed`: start `i` is drawn from its own stream
/// (`Rng::derive(seed, i)`), from a book line chosen by that stream when `book` has lines, else
/// from the standard start. A start is kept when the built-in search of `VERIFY_NODES` nodes,
/// evaluating with `evaluator`, scores it within `VERIFY_WINDOW_CP`.
pub(super) fn generate(
    count: usize,
    seed: u64,
    book: &[Position],
    evaluator: &Evaluator,
) -> Vec<String> {
    let mut searcher = Searcher::new(std::sync::Arc::new(EvalParams::default()), 1);
    searcher.set_evaluator(evaluator);
    let limits = SearchLimits {
        nodes: Some(VERIFY_NODES),
        ..SearchLimits::default()
    };
    let startpos = Position::startpos();
    let mut fens = Vec::with_capacity(count);
    for i in 0..count {
        let mut rng = Rng::derive(seed, i as u64);
        for _ in 0..MAX_ATTEMPTS {
            let base = match book.len() {
                0 => &startpos,
                n => &book[rng.below(n as u64) as usize],
            };
            let Some(pos) = random_plies(base, GENFENS_PLIES, &mut rng) else {
                continue;
            };
            searcher.clear();
            let result = searcher.search(&pos, &[], &limits, |_| {});
            if result.score.as_cp().abs() <= VERIFY_WINDOW_CP {
                fens.push(pos.to_fen());
                break;
            }
        }
    }
    fens
}

/// The positions of a book file of FEN or EPD lines (an EPD's first four fields, with a zero
/// halfmove clock and move 1); lines that are not positions are skipped.
pub(crate) fn read_book(path: &str) -> Result<Vec<Position>, std::io::Error> {
    let text = std::fs::read_to_string(path)?;
    Ok(text
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            if fields.len() < 4 {
                return None;
            }
            Position::from_fen(line.trim())
                .or_else(|_| Position::from_fen(&format!("{} 0 1", fields[..4].join(" "))))
                .ok()
        })
        .collect())
}

/// OpenBench's `genfens N seed S book <None|FILE> [extra]`: N lines `info string genfens <FEN>`.
pub(crate) struct GenfensCommand;

impl ExtraCommand for GenfensCommand {
    fn answer(&mut self, args: &[&str], _: &EvalParams, evaluator: &Evaluator) -> Vec<String> {
        let usage = || vec!["info string usage: genfens N seed S book <None|FILE>".to_string()];
        let (count, seed, book) = match args {
            [n, "seed", s, "book", book, ..] => match (n.parse::<usize>(), s.parse::<u64>()) {
                (Ok(n), Ok(s)) => (n, s, *book),
                _ => return usage(),
            },
            _ => return usage(),
        };
        let book = if book.eq_ignore_ascii_case("none") {
            Vec::new()
        } else {
            match read_book(book) {
                Ok(positions) => positions,
                Err(e) => return vec![format!("info string genfens: cannot read {book}: {e}")],
            }
        };
        generate(count, seed, &book, evaluator)
            .into_iter()
            .map(|fen| format!("info string genfens {fen}"))
            .collect()
    }
}
