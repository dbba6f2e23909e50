//! The trace protocol, `tunetrace`: how an engine in any language hands its evaluation to the
//! Texel tuner, as plain lines (modelled on OpenBench's `genfens`: a command on the engine's
//! command line or standard input, answers as lines). docs/tune-any-engine.md is the
//! reference; this module writes and reads the lines.
//!
//! ```text
//! > tunetrace params
//! < tapered true
//! < phase_max 24
//! < param 0 material.pawn mg 100 eg 120 min -10000 max 10000
//! < param 1 bishop_pair mg 25 eg 25
//! < param 2 king_attack.queen mg 40 eg 10
//! < finaliser 0 king_safety mg quadratic -720 eg relu -20     (optional: non-linear terms)
//! < end
//! > tunetrace fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1
//! < trace phase 24 scale 1 remainder 0 eval 12 coeffs 0:0 64:1 ... final 0 white 2:1 black
//! > tunetrace file positions.epd
//! < trace ...            (one line per line of the file, `trace error <why>` for a bad one)
//! < end
//! ```

use super::packed::MAX_FINALISERS;
use super::tunable::{FinalKind, FinalTerm, Finaliser, LinearTrace, ParamSpec, TunableEval};
use crate::board::Color;
use std::collections::HashMap;
use std::fmt::Write as _;

/// The largest `remainder` and `eval` a trace may carry, in centipawns: a static evaluation
/// stays below the mate score (`score::MATE`).
pub(crate) const MAX_TRACE_CENTIPAWNS: f64 = crate::score::MATE as f64;

/// The largest endgame `scale` a trace may carry (1 is no scaling; a drawish ending is below).
pub(crate) const MAX_TRACE_SCALE: f64 = 16.0;

/// The largest `phase` a trace may carry; the phase must also be at most the engine's
/// declared `phase_max` (checked by the tuner, which knows it).
pub(crate) const MAX_TRACE_PHASE: i32 = 255;

/// A line of the protocol that cannot be read. The tuner wraps it in a `TraceError` naming the
/// engine (bad input: exit status 2).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ProtocolError {
    /// A line or field of the wrong shape.
    #[error("{0}")]
    Malformed(String),
    /// A finaliser function the tuner does not know.
    #[error("'{line}': unknown finaliser kind '{kind}': expected linear, quadratic C or relu C")]
    UnknownKind {
        /// The offending line.
        line: String,
        /// The kind named.
        kind: String,
    },
    /// A finaliser constant that is not a finite nonzero number.
    #[error("'{line}': finaliser constant '{value}' is not a finite nonzero number")]
    BadConstant {
        /// The offending line.
        line: String,
        /// The constant as written.
        value: String,
    },
    /// A coefficient of a parameter the engine did not declare.
    #[error("coefficient '{pair}': index out of range, the engine declared {params} parameters")]
    IndexOutOfRange {
        /// The `index:count` pair.
        pair: String,
        /// The declared parameter count.
        params: usize,
    },
    /// Two parameters declared under one name (weights.toml would hold the key twice, which
    /// TOML readers refuse, and setoption.txt would set one option twice).
    #[error(
        "'{line}': parameters {first} and {second} are both named '{name}': names must be unique"
    )]
    DuplicateName {
        /// The second declaration's line.
        line: String,
        /// The name.
        name: String,
        /// The index that declared it first.
        first: usize,
        /// The index that declared it again.
        second: usize,
    },
    /// A trace field outside the range the protocol allows.
    #[error("{field} '{value}' is outside {range}")]
    OutOfRange {
        /// The field (`phase`, `scale`, `remainder`, `eval`).
        field: String,
        /// The value as written.
        value: String,
        /// What the protocol allows.
        range: String,
    },
    /// A coefficient group of a finaliser the engine did not declare.
    #[error("'final {finaliser}': a group of an undeclared finaliser, the engine declared {declared} finalisers")]
    UndeclaredFinaliser {
        /// The finaliser index named.
        finaliser: String,
        /// The declared finaliser count.
        declared: usize,
    },
}

impl From<String> for ProtocolError {
    fn from(message: String) -> ProtocolError {
        ProtocolError::Malformed(message)
    }
}

impl From<&str> for ProtocolError {
    fn from(message: &str) -> ProtocolError {
        ProtocolError::Malformed(message.to_string())
    }
}

/// The header and parameter lines answering `tunetrace params`, ending with `end`.
pub(crate) fn params_lines(eval: &(impl TunableEval + ?Sized)) -> Vec<String> {
    let tapered = eval.tapered();
    let mut lines = vec![
        format!("tapered {tapered}"),
        format!("phase_max {}", eval.phase_max()),
    ];
    for (i, spec) in eval.params().iter().enumerate() {
        let mut line = format!("param {i} {}", spec.name);
        if tapered {
            let _ = write!(line, " mg {} eg {}", num(spec.start.0), num(spec.start.1));
        } else {
            let _ = write!(line, " value {}", num(spec.start.0));
        }
        if let Some((lo, hi)) = spec.bounds {
            let _ = write!(line, " min {} max {}", num(lo), num(hi));
        }
        lines.push(line);
    }
    for (i, f) in eval.finalisers().iter().enumerate() {
        lines.push(if tapered {
            format!(
                "finaliser {i} {} mg {} eg {}",
                f.name,
                kind(f.mg),
                kind(f.eg)
            )
        } else {
            format!("finaliser {i} {} value {}", f.name, kind(f.mg))
        });
    }
    lines.push("end".to_string());
    lines
}

/// A finaliser function as the protocol writes it: `linear`, `quadratic C` or `relu C`.
fn kind(k: FinalKind) -> String {
    match k {
        FinalKind::Linear => "linear".to_string(),
        FinalKind::Quadratic(c) => format!("quadratic {}", num(c)),
        FinalKind::Relu(c) => format!("relu {}", num(c)),
    }
}

/// A number without a needless fraction.
fn num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

/// The line answering `tunetrace fen`: `trace phase P scale S remainder R eval E coeffs i:c ...`,
/// where `eval` is the engine's own static evaluation, centipawns, White's view.
pub(crate) fn trace_line(trace: &LinearTrace, eval: f64) -> String {
    let mut line = format!(
        "trace phase {} scale {} remainder {} eval {} coeffs",
        trace.phase,
        num(trace.eg_scale),
        num(trace.remainder),
        num(eval)
    );
    for &(i, c) in &trace.coefficients {
        if c != 0 {
            let _ = write!(line, " {i}:{c}");
        }
    }
    // Finaliser groups: `final F white i:c ... black i:c ...`, by finaliser.
    let mut finals = trace.finals.clone();
    finals.sort_by_key(|t| (t.finaliser, t.side != Color::White, t.index));
    let mut at: Option<(u32, Color)> = None;
    for t in finals.iter().filter(|t| t.count != 0) {
        if at.map(|a| a.0) != Some(t.finaliser) {
            let _ = write!(line, " final {}", t.finaliser);
            at = None;
        }
        if at != Some((t.finaliser, t.side)) {
            line.push_str(if t.side == Color::White {
                " white"
            } else {
                " black"
            });
            at = Some((t.finaliser, t.side));
        }
        let _ = write!(line, " {}:{}", t.index, t.count);
    }
    line
}

/// What `tunetrace params` declared.
#[derive(Clone, Debug, PartialEq)]
pub struct Declared {
    /// Whether parameters are (mg, eg) pairs.
    pub tapered: bool,
    /// The phase with every piece on.
    pub phase_max: i32,
    /// The parameters, in index order.
    pub params: Vec<ParamSpec>,
    /// The finalisers, in index order (none for a linear evaluation).
    pub finalisers: Vec<Finaliser>,
}

/// Reads the answer to `tunetrace params` (the lines up to, not including, `end`).
pub fn parse_params(lines: &[String]) -> Result<Declared, ProtocolError> {
    let mut tapered = None;
    let mut phase_max = None;
    let mut params = Vec::new();
    let mut finalisers = Vec::new();
    let mut names: HashMap<String, usize> = HashMap::new();
    for line in lines {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            [] => {}
            ["tapered", v] => {
                tapered = Some(match *v {
                    "true" | "1" => true,
                    "false" | "0" => false,
                    _ => return Err(format!("'{line}': tapered is true or false").into()),
                })
            }
            ["phase_max", v] => {
                phase_max = Some(
                    v.parse::<i32>()
                        .ok()
                        .filter(|p| (1..=255).contains(p))
                        .ok_or_else(|| format!("'{line}': phase_max is a whole number 1 to 255"))?,
                )
            }
            ["param", index, name, rest @ ..] => {
                if index.parse::<usize>().ok() != Some(params.len()) {
                    return Err(
                        format!("'{line}': expected parameter index {}", params.len()).into(),
                    );
                }
                if let Some(&first) = names.get(*name) {
                    return Err(ProtocolError::DuplicateName {
                        line: line.to_string(),
                        name: name.to_string(),
                        first,
                        second: params.len(),
                    });
                }
                names.insert(name.to_string(), params.len());
                params.push(parse_param(line, name, rest)?);
            }
            ["finaliser", index, name, rest @ ..] => {
                if index.parse::<usize>().ok() != Some(finalisers.len()) {
                    return Err(
                        format!("'{line}': expected finaliser index {}", finalisers.len()).into(),
                    );
                }
                if finalisers.len() == MAX_FINALISERS {
                    return Err(format!("'{line}': at most {MAX_FINALISERS} finalisers").into());
                }
                finalisers.push(parse_finaliser(line, name, rest)?);
            }
            // Engines may chat (`info string ...`) before answering.
            ["info", ..] => {}
            _ => return Err(format!("'{line}': not a tunetrace params line").into()),
        }
    }
    let tapered = tapered.ok_or("no 'tapered' line")?;
    let phase_max = if tapered {
        phase_max.ok_or("no 'phase_max' line")?
    } else {
        1
    };
    if params.is_empty() {
        return Err("no 'param' lines".into());
    }
    if params.len() > u16::MAX as usize {
        return Err(format!("{} parameters: at most {}", params.len(), u16::MAX).into());
    }
    if !tapered {
        for f in &mut finalisers {
            f.eg = f.mg;
        }
    }
    Ok(Declared {
        tapered,
        phase_max,
        params,
        finalisers,
    })
}

/// A `finaliser I NAME mg KIND eg KIND` (or `value KIND`) line's fields after the name.
fn parse_finaliser(line: &str, name: &str, rest: &[&str]) -> Result<Finaliser, ProtocolError> {
    let mut words = rest.iter().copied().peekable();
    let (mut mg, mut eg, mut value) = (None, None, None);
    while let Some(key) = words.next() {
        let slot = match key {
            "mg" => &mut mg,
            "eg" => &mut eg,
            "value" => &mut value,
            _ => return Err(format!("'{line}': unknown field '{key}'").into()),
        };
        let kind = words
            .next()
            .ok_or_else(|| format!("'{line}': '{key}' has no finaliser kind"))?;
        let mut constant = || -> Result<f64, ProtocolError> {
            let text = words.next().unwrap_or("");
            text.parse::<f64>()
                .ok()
                .filter(|c| c.is_finite() && *c != 0.0)
                .ok_or_else(|| ProtocolError::BadConstant {
                    line: line.to_string(),
                    value: text.to_string(),
                })
        };
        *slot = Some(match kind {
            "linear" => FinalKind::Linear,
            "quadratic" => FinalKind::Quadratic(constant()?),
            "relu" => FinalKind::Relu(constant()?),
            _ => {
                return Err(ProtocolError::UnknownKind {
                    line: line.to_string(),
                    kind: kind.to_string(),
                })
            }
        });
    }
    let (mg, eg) = match (mg, eg, value) {
        (Some(mg), Some(eg), None) => (mg, eg),
        (None, None, Some(v)) => (v, v),
        _ => return Err(format!("'{line}': expected 'mg KIND eg KIND' or 'value KIND'").into()),
    };
    Ok(Finaliser {
        name: name.to_string(),
        mg,
        eg,
    })
}

fn parse_param(line: &str, name: &str, rest: &[&str]) -> Result<ParamSpec, ProtocolError> {
    let mut fields = std::collections::HashMap::new();
    for pair in rest.chunks(2) {
        let [key, value] = pair else {
            return Err(format!("'{line}': '{}' has no value", pair[0]).into());
        };
        let value: f64 = value
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .ok_or_else(|| format!("'{line}': {key} '{value}' is not a number"))?;
        if !matches!(*key, "mg" | "eg" | "value" | "min" | "max") {
            return Err(format!("'{line}': unknown field '{key}'").into());
        }
        fields.insert(*key, value);
    }
    let start = match (fields.get("mg"), fields.get("eg"), fields.get("value")) {
        (Some(&mg), Some(&eg), None) => (mg, eg),
        (None, None, Some(&v)) => (v, v),
        _ => return Err(format!("'{line}': expected 'mg M eg E' or 'value V'").into()),
    };
    let bounds = match (fields.get("min"), fields.get("max")) {
        (Some(&lo), Some(&hi)) if lo <= hi => Some((lo, hi)),
        (None, None) => None,
        _ => return Err(format!("'{line}': expected both 'min' and 'max', min <= max").into()),
    };
    Ok(ParamSpec {
        name: name.to_string(),
        start,
        bounds,
    })
}

/// Reads a `trace ...` line into `out` (cleared first); returns the engine's own evaluation.
/// `params` is the declared parameter count (indices must be below it); the engine declared no
/// finalisers (see `parse_trace_with`).
pub fn parse_trace(line: &str, params: usize, out: &mut LinearTrace) -> Result<f64, ProtocolError> {
    parse_trace_with(line, params, 0, out)
}

/// `parse_trace` for an engine that declared `finalisers` finalisers: after the coefficients,
/// groups `final F white i:c ... black i:c ...` fill `out.finals`.
pub fn parse_trace_with(
    line: &str,
    params: usize,
    finalisers: usize,
    out: &mut LinearTrace,
) -> Result<f64, ProtocolError> {
    out.clear();
    let mut words = line.split_whitespace();
    if words.next() != Some("trace") {
        return Err(format!("'{line}': expected a 'trace' line").into());
    }
    let mut eval = None;
    let mut phase = None;
    while let Some(key) = words.next() {
        if key == "coeffs" {
            parse_coefficients(&mut words, params, finalisers, out)?;
            break;
        }
        if key == "error" {
            return Err(format!("the engine says: {}", words.collect::<Vec<_>>().join(" ")).into());
        }
        let value = words
            .next()
            .ok_or_else(|| format!("'{key}' has no value"))?;
        let number: f64 = value
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .ok_or_else(|| format!("{key} '{value}' is not a number"))?;
        let out_of = |range: String| ProtocolError::OutOfRange {
            field: key.to_string(),
            value: value.to_string(),
            range,
        };
        let cp = MAX_TRACE_CENTIPAWNS;
        match key {
            "phase" => {
                if number.fract() != 0.0 {
                    return Err(format!("phase '{value}' is not a whole number").into());
                }
                if !(0.0..=MAX_TRACE_PHASE as f64).contains(&number) {
                    return Err(out_of(format!("0 to {MAX_TRACE_PHASE}")));
                }
                phase = Some(number as i32)
            }
            "scale" if !(0.0..=MAX_TRACE_SCALE).contains(&number) => {
                return Err(out_of(format!("0 to {MAX_TRACE_SCALE}")))
            }
            "remainder" | "eval" if number.abs() > cp => {
                return Err(out_of(format!("-{cp} to {cp} centipawns")))
            }
            "scale" => out.eg_scale = number,
            "remainder" => out.remainder = number,
            "eval" => eval = Some(number),
            _ => return Err(format!("unknown field '{key}'").into()),
        }
    }
    out.phase = phase.ok_or("no 'phase'")?;
    Ok(eval.ok_or("no 'eval'")?)
}

/// The words after `coeffs`: `index:count` pairs, then any finaliser groups.
fn parse_coefficients<'a>(
    words: &mut impl Iterator<Item = &'a str>,
    params: usize,
    finalisers: usize,
    out: &mut LinearTrace,
) -> Result<(), ProtocolError> {
    // (finaliser, side) of the group being read; None: the linear coefficients.
    let mut group: Option<(u32, Option<Color>)> = None;
    while let Some(word) = words.next() {
        match (word, group) {
            ("final", _) => {
                let f = words.next().unwrap_or("");
                match f.parse::<u32>() {
                    Ok(i) if (i as usize) < finalisers => group = Some((i, None)),
                    _ => {
                        return Err(ProtocolError::UndeclaredFinaliser {
                            finaliser: f.to_string(),
                            declared: finalisers,
                        })
                    }
                }
            }
            ("white", Some((f, _))) => group = Some((f, Some(Color::White))),
            ("black", Some((f, _))) => group = Some((f, Some(Color::Black))),
            (pair, _) => {
                let parsed = pair
                    .split_once(':')
                    .and_then(|(i, c)| Some((i.parse::<u32>().ok()?, c.parse::<i32>().ok()?)));
                let (index, count) =
                    parsed.ok_or_else(|| format!("'{pair}' is not index:count"))?;
                if index as usize >= params {
                    return Err(ProtocolError::IndexOutOfRange {
                        pair: pair.to_string(),
                        params,
                    });
                }
                match group {
                    None => out.coefficients.push((index, count)),
                    Some((finaliser, Some(side))) => out.finals.push(FinalTerm {
                        finaliser,
                        side,
                        index,
                        count,
                    }),
                    Some((f, None)) => {
                        return Err(
                            format!("'{pair}' in 'final {f}' before 'white' or 'black'").into()
                        )
                    }
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::EvalParams;

    #[test]
    fn params_and_traces_read_back_as_written() {
        let params = EvalParams::default();
        let lines = params_lines(&params);
        assert_eq!(lines.last().map(String::as_str), Some("end"));
        let declared = parse_params(&lines[..lines.len() - 1]).unwrap();
        assert_eq!(declared.params, params.params());
        assert_eq!((declared.tapered, declared.phase_max), (true, 24));

        let mut t = LinearTrace::default();
        t.clear();
        params
            .trace(&crate::board::Position::startpos(), &mut t)
            .unwrap();
        let line = trace_line(&t, 7.0);
        let mut back = LinearTrace::default();
        assert_eq!(parse_trace(&line, params.len(), &mut back), Ok(7.0));
        assert_eq!(back, t);
        assert!(parse_trace("trace phase 3 eval 1 coeffs 9999:1", 10, &mut back).is_err());
        assert!(parse_trace("trace phase x eval 1 coeffs", 10, &mut back).is_err());
        assert!(parse_trace("trace error bad fen", 10, &mut back).is_err());
    }

    /// Finaliser lines and groups read back as written; each malformed finaliser is its own
    /// typed error.
    #[test]
    fn finalisers_read_back_and_their_errors_are_typed() {
        use crate::texel::tunable::FinalToy;
        let lines = params_lines(&FinalToy);
        assert!(lines.contains(&"finaliser 0 danger mg quadratic -80 eg relu 3".to_string()));
        let declared = parse_params(&lines[..lines.len() - 1]).unwrap();
        assert_eq!(declared.finalisers, FinalToy.finalisers());
        let pos = crate::board::Position::from_fen(
            "r1bqkb1r/pppp1ppp/2n5/4N3/2B1P1n1/8/PPPP1PPP/RNBQK2R w KQkq - 0 1",
        )
        .unwrap();
        let mut t = LinearTrace::default();
        t.clear();
        FinalToy.trace(&pos, &mut t).unwrap();
        let line = trace_line(&t, 3.0);
        t.normalize();
        assert!(
            line.contains(" final 0 white 3:1 4:1 black 3:1 4:1"),
            "{line}"
        );
        let mut back = LinearTrace::default();
        assert_eq!(parse_trace_with(&line, 5, 1, &mut back), Ok(3.0));
        t.finals.sort_by_key(|f| (f.side as u8, f.index));
        assert_eq!(back, t);

        let params = |finaliser: &str| {
            let mut lines: Vec<String> = ["tapered true", "phase_max 24", "param 0 a mg 1 eg 2"]
                .map(String::from)
                .to_vec();
            lines.push(finaliser.to_string());
            parse_params(&lines)
        };
        let untapered = [
            "tapered false",
            "param 0 a value 1",
            "finaliser 0 f value relu 2",
        ];
        let d = parse_params(&untapered.map(String::from)).unwrap();
        assert_eq!(d.finalisers[0].eg, FinalKind::Relu(2.0));
        assert!(params("finaliser 0 f mg linear eg quadratic 7").is_ok());
        assert!(matches!(
            params("finaliser 0 f mg cubic 3 eg linear"),
            Err(ProtocolError::UnknownKind { kind, .. }) if kind == "cubic"
        ));
        for constant in ["0", "x", "inf", ""] {
            let line = format!("finaliser 0 f mg linear eg relu {constant}");
            assert!(
                matches!(params(line.trim()), Err(ProtocolError::BadConstant { .. })),
                "{line}"
            );
        }
        assert!(params("finaliser 1 f mg linear eg linear").is_err());
        assert!(params("finaliser 0 f mg linear").is_err());
        let mut out = LinearTrace::default();
        let trace = |line: &str, out: &mut LinearTrace| parse_trace_with(line, 5, 1, out);
        assert!(matches!(
            trace(
                "trace phase 1 eval 0 coeffs 1:1 final 0 white 5:1",
                &mut out
            ),
            Err(ProtocolError::IndexOutOfRange { params: 5, .. })
        ));
        assert!(matches!(
            trace("trace phase 1 eval 0 coeffs final 1 white 2:1", &mut out),
            Err(ProtocolError::UndeclaredFinaliser { declared: 1, .. })
        ));
        assert!(matches!(
            parse_trace("trace phase 1 eval 0 coeffs final 0 black 2:1", 5, &mut out),
            Err(ProtocolError::UndeclaredFinaliser { declared: 0, .. })
        ));
        assert!(trace("trace phase 1 eval 0 coeffs final 0 2:1", &mut out).is_err());
        let message = trace("trace phase 1 eval 0 coeffs final 3", &mut out)
            .unwrap_err()
            .to_string();
        assert!(message.contains("'final 3'"), "{message}");
    }
}
