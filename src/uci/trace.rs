//! `tunetrace`: the engine's side of the trace protocol (`tune::protocol`,
//! docs/tune-any-engine.md), as a UCI command and from `sparring uci tunetrace ...`. sparring's
//! evaluation has no remainder and no endgame scale; its `eval` is `evaluate_white`, which the
//! traced coefficients times the weights, blended with the engine's integer taper, equal exactly.

use super::UciEngine;
use crate::board::Position;
use crate::eval::evaluate_white;
use crate::tune::protocol::{params_lines, trace_line};
use crate::tune::{LinearTrace, TunableEval};
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

impl UciEngine {
    /// Answers `tunetrace params | fen FEN | file PATH`.
    pub(super) fn tunetrace(&mut self, args: &[&str]) {
        match args {
            ["params"] => {
                for line in params_lines(self.params.as_ref()) {
                    self.out.line(&line);
                }
            }
            ["fen", fen @ ..] => {
                let line = self.trace_fen(&fen.join(" "));
                self.out.line(&line);
            }
            ["file", path @ ..] if !path.is_empty() => {
                let path = path.join(" ");
                match std::fs::File::open(&path) {
                    Ok(file) => {
                        for line in std::io::BufReader::new(file).lines() {
                            let answer = match line {
                                Ok(text) if text.trim().is_empty() => continue,
                                Ok(text) => self.trace_fen(&text),
                                Err(e) => format!("trace error {path}: {e}"),
                            };
                            self.out.line(&answer);
                        }
                    }
                    Err(e) => self.out.line(&format!("trace error {path}: {e}")),
                }
                self.out.line("end");
            }
            _ => self.out.line(
                "info string usage: tunetrace params | tunetrace fen FEN | tunetrace file PATH",
            ),
        }
    }

    /// The `trace` line of one FEN or EPD line (or `trace error ...`).
    fn trace_fen(&self, line: &str) -> String {
        let pos = match position_of_line(line) {
            Ok(pos) => pos,
            Err(e) => return format!("trace error {e}"),
        };
        let mut t = LinearTrace::default();
        t.clear();
        match self.params.trace(&pos, &mut t) {
            Ok(()) => {
                t.normalize();
                trace_line(&t, evaluate_white(&pos, &self.params) as f64)
            }
            Err(e) => format!("trace error {e}"),
        }
    }
}
