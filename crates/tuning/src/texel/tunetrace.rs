//! `tunetrace`: the engine's side of the trace protocol (`texel::protocol`,
//! docs/tune-any-engine.md), as a command of the UCI engine and from `sparring uci tunetrace ...`. sparring's
//! evaluation has no remainder and no endgame scale; its `eval` is `evaluate_white`, which the
//! traced coefficients times the weights, blended with the engine's integer taper, equal exactly.

use crate::board::Position;
use crate::eval::{evaluate_white, EvalParams};
use crate::texel::protocol::{params_lines, trace_line};
use crate::texel::{LinearTrace, TunableEval};
use sparring_engine::search::Evaluator;
use sparring_engine::uci::ExtraCommand;
use std::io::BufRead;

/// The position of a FEN or EPD line: four fields, plus the move counters when they follow.
pub fn position_of_line(line: &str) -> Result<Position, String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    if words.len() < 4 {
        return Err(format!("'{}': not a FEN", line.trim()));
    }
    let counters =
        words.len() >= 6 && words[4].parse::<u32>().is_ok() && words[5].parse::<u32>().is_ok();
    let fen = words[..if counters { 6 } else { 4 }].join(" ");
    Position::from_fen_lenient(&fen).map_err(|e| format!("'{fen}': {e}"))
}

/// `tunetrace` as a command of the UCI engine
/// ([`UciEngine::add_command`](sparring_engine::uci::UciEngine::add_command)): `sparring uci`
/// registers it, so any tuner that speaks the protocol can tune sparring's evaluation.
pub struct TunetraceCommand;

impl ExtraCommand for TunetraceCommand {
    /// Answers `tunetrace params | fen FEN | file PATH`.
    fn answer(&mut self, args: &[&str], params: &EvalParams, _: &Evaluator) -> Vec<String> {
        match args {
            ["params"] => params_lines(params),
            ["fen", fen @ ..] => vec![trace_fen(params, &fen.join(" "))],
            ["file", path @ ..] if !path.is_empty() => trace_file(params, &path.join(" ")),
            _ => vec![
                "info string usage: tunetrace params | tunetrace fen FEN | tunetrace file PATH"
                    .to_string(),
            ],
        }
    }
}

/// The `trace` lines of a file of FEN or EPD lines, then `end`.
fn trace_file(params: &EvalParams, path: &str) -> Vec<String> {
    let mut lines = Vec::new();
    match std::fs::File::open(path) {
        Ok(file) => {
            for line in std::io::BufReader::new(file).lines() {
                lines.push(match line {
                    Ok(text) if text.trim().is_empty() => continue,
                    Ok(text) => trace_fen(params, &text),
                    Err(e) => format!("trace error {path}: {e}"),
                });
            }
        }
        Err(e) => lines.push(format!("trace error {path}: {e}")),
    }
    lines.push("end".to_string());
    lines
}

/// The `trace` line of one FEN or EPD line (or `trace error ...`).
fn trace_fen(params: &EvalParams, line: &str) -> String {
    let pos = match position_of_line(line) {
        Ok(pos) => pos,
        Err(e) => return format!("trace error {e}"),
    };
    let mut t = LinearTrace::default();
    t.clear();
    match params.trace(&pos, &mut t) {
        Ok(()) => {
            t.normalize();
            trace_line(&t, evaluate_white(&pos, params) as f64)
        }
        Err(e) => format!("trace error {e}"),
    }
}
