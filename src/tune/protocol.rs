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
//! < end
//! > tunetrace fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1
//! < trace phase 24 scale 1 remainder 0 eval 12 coeffs 0:0 64:1 ...
//! > tunetrace file positions.epd
//! < trace ...            (one line per line of the file, `trace error <why>` for a bad one)
//! < end
//! ```

use super::tunable::{LinearTrace, ParamSpec, TunableEval};
use std::fmt::Write as _;

/// The header and parameter lines answering `tunetrace params`, ending with `end`.
pub fn params_lines(eval: &(impl TunableEval + ?Sized)) -> Vec<String> {
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
    lines.push("end".to_string());
    lines
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
pub fn trace_line(trace: &LinearTrace, eval: f64) -> String {
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
}

/// Reads the answer to `tunetrace params` (the lines up to, not including, `end`).
pub fn parse_params(lines: &[String]) -> Result<Declared, String> {
    let mut tapered = None;
    let mut phase_max = None;
    let mut params = Vec::new();
    for line in lines {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            [] => {}
            ["tapered", v] => {
                tapered = Some(match *v {
                    "true" | "1" => true,
                    "false" | "0" => false,
                    _ => return Err(format!("'{line}': tapered is true or false")),
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
                    return Err(format!(
                        "'{line}': expected parameter index {}",
                        params.len()
                    ));
                }
                params.push(parse_param(line, name, rest)?);
            }
            // Engines may chat (`info string ...`) before answering.
            ["info", ..] => {}
            _ => return Err(format!("'{line}': not a tunetrace params line")),
        }
    }
    let tapered = tapered.ok_or("no 'tapered' line")?;
    let phase_max = if tapered {
        phase_max.ok_or("no 'phase_max' line")?
    } else {
        1
    };
    if params.is_empty() {
        return Err("no 'param' lines".to_string());
    }
    if params.len() > u16::MAX as usize {
        return Err(format!("{} parameters: at most {}", params.len(), u16::MAX));
    }
    Ok(Declared {
        tapered,
        phase_max,
        params,
    })
}

fn parse_param(line: &str, name: &str, rest: &[&str]) -> Result<ParamSpec, String> {
    let mut fields = std::collections::HashMap::new();
    for pair in rest.chunks(2) {
        let [key, value] = pair else {
            return Err(format!("'{line}': '{}' has no value", pair[0]));
        };
        let value: f64 = value
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .ok_or_else(|| format!("'{line}': {key} '{value}' is not a number"))?;
        if !matches!(*key, "mg" | "eg" | "value" | "min" | "max") {
            return Err(format!("'{line}': unknown field '{key}'"));
        }
        fields.insert(*key, value);
    }
    let start = match (fields.get("mg"), fields.get("eg"), fields.get("value")) {
        (Some(&mg), Some(&eg), None) => (mg, eg),
        (None, None, Some(&v)) => (v, v),
        _ => return Err(format!("'{line}': expected 'mg M eg E' or 'value V'")),
    };
    let bounds = match (fields.get("min"), fields.get("max")) {
        (Some(&lo), Some(&hi)) if lo <= hi => Some((lo, hi)),
        (None, None) => None,
        _ => {
            return Err(format!(
                "'{line}': expected both 'min' and 'max', min <= max"
            ))
        }
    };
    Ok(ParamSpec {
        name: name.to_string(),
        start,
        bounds,
    })
}

/// Reads a `trace ...` line into `out` (cleared first); returns the engine's own evaluation.
/// `params` is the declared parameter count (indices must be below it).
pub fn parse_trace(line: &str, params: usize, out: &mut LinearTrace) -> Result<f64, String> {
    out.clear();
    let mut words = line.split_whitespace();
    if words.next() != Some("trace") {
        return Err(format!("'{line}': expected a 'trace' line"));
    }
    let mut eval = None;
    let mut phase = None;
    while let Some(key) = words.next() {
        if key == "coeffs" {
            for pair in words.by_ref() {
                let parsed = pair
                    .split_once(':')
                    .and_then(|(i, c)| Some((i.parse::<u32>().ok()?, c.parse::<i32>().ok()?)));
                match parsed {
                    Some((i, _)) if i as usize >= params => {
                        return Err(format!(
                            "coefficient '{pair}': index out of range, the engine declared {params} parameters"
                        ))
                    }
                    Some(ic) => out.coefficients.push(ic),
                    None => return Err(format!("'{pair}' is not index:count")),
                }
            }
            break;
        }
        if key == "error" {
            return Err(format!(
                "the engine says: {}",
                words.collect::<Vec<_>>().join(" ")
            ));
        }
        let value = words
            .next()
            .ok_or_else(|| format!("'{key}' has no value"))?;
        let number: f64 = value
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .ok_or_else(|| format!("{key} '{value}' is not a number"))?;
        match key {
            "phase" => phase = Some(number as i32),
            "scale" => out.eg_scale = number,
            "remainder" => out.remainder = number,
            "eval" => eval = Some(number),
            _ => return Err(format!("unknown field '{key}'")),
        }
    }
    out.phase = phase.ok_or("no 'phase'")?;
    eval.ok_or_else(|| "no 'eval'".to_string())
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
}
