//! The tuned parameters as an SPSA configuration file writes them (`[[param]]` tables and
//! OpenBench/fishtest lines in `spsa.lines`), checked and completed into `SpsaParam`s: for an
//! external engine every number is given, for the built-in engine names are resolved and the
//! engine supplies what is missing.

use super::gains::{check_param, parse_param_line, MAX_GAIN_END};
use super::names::{resolve, EngineParams, NamedTarget, Target};
use super::plan::SpsaParam;
use crate::search::ParamKind;
use crate::toml_config::{ConfigError, Document};
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ParamTable {
    name: Option<String>,
    kind: Option<String>,
    start: Option<f64>,
    min: Option<f64>,
    max: Option<f64>,
    c_end: Option<f64>,
    r_end: Option<f64>,
}

/// Stockfish's default relative apply factor at the end.
const DEFAULT_R_END: f64 = 0.002;

/// A parameter entry before its name is resolved.
pub(super) struct Entry {
    /// The dotted key errors point at (`param[2].name`, `spsa.lines`).
    key: String,
    /// Where the entry came from in words, for messages (`line 3 of spsa.lines`).
    origin: Option<String>,
    name: String,
    kind: Option<ParamKind>,
    start: Option<f64>,
    min: Option<f64>,
    max: Option<f64>,
    c_end: Option<f64>,
    r_end: Option<f64>,
}

/// The tuned parameters as written: the lines of `spsa.lines` first, then the `[[param]]`
/// tables; at least one is required.
pub(super) fn param_entries(
    doc: &Document<'_>,
    lines: Option<&str>,
    tables: Vec<ParamTable>,
) -> Result<Vec<Entry>, ConfigError> {
    let mut entries = Vec::new();
    for (n, line) in lines.unwrap_or_default().lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        entries.push(line_entry(doc, n, trimmed)?);
    }
    for (i, p) in tables.into_iter().enumerate() {
        entries.push(table_entry(doc, i, p)?);
    }
    if entries.is_empty() {
        return Err(doc.missing(
            "param",
            "at least one `[[param]]` table or a line in `spsa.lines`",
        ));
    }
    Ok(entries)
}

/// Line `n` (from 0) of `spsa.lines`, an OpenBench/fishtest parameter line.
fn line_entry(doc: &Document<'_>, n: usize, trimmed: &str) -> Result<Entry, ConfigError> {
    let origin = format!("line {} of `spsa.lines` (`{trimmed}`)", n + 1);
    let parsed =
        parse_param_line(trimmed).map_err(|e| doc.other("spsa.lines", format!("{origin}: {e}")))?;
    Ok(Entry {
        key: "spsa.lines".to_string(),
        origin: Some(origin),
        name: parsed.name,
        kind: Some(parsed.kind),
        start: Some(parsed.value),
        min: Some(parsed.min),
        max: Some(parsed.max),
        c_end: Some(parsed.c_end),
        r_end: Some(parsed.r_end),
    })
}

/// The `[[param]]` table number `i` (from 0): a name, and a kind and numbers when given.
fn table_entry(doc: &Document<'_>, i: usize, p: ParamTable) -> Result<Entry, ConfigError> {
    let key = format!("param[{i}]");
    let name = p
        .name
        .ok_or_else(|| doc.missing(&format!("{key}.name"), "a parameter name"))?;
    let kind = match p.kind.as_deref() {
        None => None,
        Some("int") => Some(ParamKind::Int),
        Some("float") => Some(ParamKind::Float),
        Some(_) => return Err(doc.invalid_value(&format!("{key}.kind"), "\"int\" or \"float\"")),
    };
    for (field, value) in [
        ("start", p.start),
        ("min", p.min),
        ("max", p.max),
        ("c_end", p.c_end),
        ("r_end", p.r_end),
    ] {
        if let Some(v) = value {
            doc.number(&format!("{key}.{field}"), v, "a finite number", |_| true)?;
        }
    }
    Ok(Entry {
        key: format!("{key}.name"),
        origin: None,
        name,
        kind,
        start: p.start,
        min: p.min,
        max: p.max,
        c_end: p.c_end,
        r_end: p.r_end,
    })
}

/// An external engine's parameter: every field but c_end and r_end must be given.
pub(super) fn uci_param(doc: &Document<'_>, e: Entry) -> Result<SpsaParam, ConfigError> {
    let need = |value: Option<f64>, field: &str| {
        value.ok_or_else(|| {
            doc.missing(
                &e.key.replace(".name", &format!(".{field}")),
                "a number (an external engine's option has no known value or range)",
            )
        })
    };
    let (start, min, max) = (
        need(e.start, "start")?,
        need(e.min, "min")?,
        need(e.max, "max")?,
    );
    finish_param(
        doc,
        &e,
        e.name.clone(),
        e.kind.unwrap_or(ParamKind::Int),
        start,
        min,
        max,
    )
}

/// Checks and completes one parameter (default c_end = range / 20, r_end = 0.002).
fn finish_param(
    doc: &Document<'_>,
    e: &Entry,
    name: String,
    kind: ParamKind,
    start: f64,
    min: f64,
    max: f64,
) -> Result<SpsaParam, ConfigError> {
    let c_end = e
        .c_end
        .unwrap_or(((max - min) / 20.0).clamp(1.0 / MAX_GAIN_END, MAX_GAIN_END));
    let r_end = e.r_end.unwrap_or(DEFAULT_R_END);
    check_param(min, max, start, c_end, r_end).map_err(|message| {
        let message = match &e.origin {
            Some(origin) => format!("{origin}: {message}"),
            None => format!("`{name}`: {message}"),
        };
        doc.other(&e.key, message)
    })?;
    Ok(SpsaParam {
        name,
        kind,
        start,
        min,
        max,
        c_end,
        r_end,
    })
}

/// A built-in entry: its name resolved (a group gives several parameters), start, range and
/// kind from the engine unless given.
pub(super) fn builtin_params(
    doc: &Document<'_>,
    base: &EngineParams,
    e: Entry,
) -> Result<Vec<(SpsaParam, Target)>, ConfigError> {
    let targets: Vec<NamedTarget> = resolve(&e.name).ok_or_else(|| {
        let message = format!(
            "`{}` names no parameter of the built-in engine (search constants are \
             `search.<group>.<key>` as in configs/search/default.toml, evaluation weights \
             `<term>.<entry>.<mg|eg>` such as `material.knight.mg`, or a group of either)",
            e.name
        );
        match &e.origin {
            Some(origin) => doc.other(&e.key, format!("{origin}: {message}")),
            None => doc.other(&e.key, message),
        }
    })?;
    if targets.len() > 1 && e.start.is_some() {
        return Err(doc.other(
            &e.key,
            format!(
                "`{}` is a group of {} parameters: `start` applies to one parameter only",
                e.name,
                targets.len()
            ),
        ));
    }
    targets
        .into_iter()
        .map(|t| {
            let current = base.get(&t.target);
            let start = e.start.unwrap_or(current);
            let (lo, hi) = t.target.natural_range(current);
            let (limit_lo, limit_hi) = t.target.limits();
            let min = e.min.unwrap_or(lo).max(limit_lo);
            let max = e.max.unwrap_or(hi).min(limit_hi);
            let kind = t.target.kind();
            if e.kind == Some(ParamKind::Float) && kind == ParamKind::Int {
                return Err(doc.other(
                    &e.key,
                    format!("`{}` is an integer parameter of the engine", t.name),
                ));
            }
            let param = finish_param(doc, &e, t.name, kind, start, min, max)?;
            Ok((param, t.target))
        })
        .collect()
}
