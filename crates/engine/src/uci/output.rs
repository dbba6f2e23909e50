//! What the engine writes: the shared, line-flushed output and the `info` and `bestmove` lines.

use crate::board::{CastlingNotation, Move, Position};
use crate::search::SearchInfo;
use std::io::Write;
use std::sync::{Arc, Mutex};

/// Output shared by the command loop and the search thread; each line is flushed at once.
#[derive(Clone)]
pub(super) struct Output(pub(super) Arc<Mutex<Box<dyn Write + Send>>>);

impl Output {
    pub(super) fn line(&self, text: &str) {
        let mut out = self.0.lock().unwrap_or_else(|e| e.into_inner());
        // A closed pipe means the GUI is gone; there is nobody left to tell.
        let _ = writeln!(out, "{text}");
        let _ = out.flush();
    }
}
/// An `info` line for a completed iteration (with `multipv k` when several lines are shown), or
/// `info depth 0 score ...` for a root without moves.
pub fn info_line(info: &SearchInfo, show_multipv: bool) -> String {
    info_line_in(
        info,
        show_multipv,
        &Position::startpos(),
        CastlingNotation::Standard,
    )
}

/// `info_line` for a search from `root`, with castling written as `castling` says (the
/// principal variation is replayed to find each castling rook).
pub(crate) fn info_line_in(
    info: &SearchInfo,
    show_multipv: bool,
    root: &Position,
    castling: CastlingNotation,
) -> String {
    if info.depth == 0 {
        return format!("info depth 0 score {}", info.score);
    }
    let pv = line_text(root, &info.pv, castling);
    let multipv = if show_multipv {
        format!(" multipv {}", info.multipv)
    } else {
        String::new()
    };
    let tbhits = match info.tbhits {
        Some(hits) => format!(" tbhits {hits}"),
        None => String::new(),
    };
    format!(
        "info depth {} seldepth {}{multipv} score {} nodes {} nps {} hashfull {}{tbhits} time {} pv {}",
        info.depth,
        info.seldepth,
        info.score,
        info.nodes,
        info.nps(),
        info.hashfull,
        info.time.as_millis(),
        pv.join(" ")
    )
}

/// The UCI texts of a line of moves from `root` (replayed: a castling text names its rook).
fn line_text(root: &Position, line: &[Move], castling: CastlingNotation) -> Vec<String> {
    let mut pos = root.clone();
    let mut texts = Vec::with_capacity(line.len());
    for &mv in line {
        // A line from the search is legal; stop at anything else rather than corrupt `pos`.
        if !pos.is_legal(mv) {
            break;
        }
        texts.push(pos.uci(mv, castling));
        pos.make_move(mv);
    }
    texts
}

/// `bestmove_line` from `root`, with castling written as `castling` says.
pub(super) fn bestmove_line_in(
    best: Move,
    ponder: Option<Move>,
    root: &Position,
    castling: CastlingNotation,
) -> String {
    if best.is_null() {
        return bestmove_line(best, ponder);
    }
    let mut line = vec![best];
    line.extend(ponder);
    let texts = line_text(root, &line, castling);
    match &texts[..] {
        [best, ponder] => format!("bestmove {best} ponder {ponder}"),
        [best] => format!("bestmove {best}"),
        _ => bestmove_line(best, ponder),
    }
}

/// `bestmove <move> [ponder <move>]`; `bestmove 0000` when the root has no move.
fn bestmove_line(best: Move, ponder: Option<Move>) -> String {
    match ponder {
        Some(ponder) if !best.is_null() => format!("bestmove {best} ponder {ponder}"),
        _ => format!("bestmove {best}"),
    }
}
