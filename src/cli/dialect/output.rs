//! The output options: `-pgnout`, `-log`, `-config`, and where the run's records go.

use super::options::Settings;
use super::tokens::{bad, boolean, pair, usage_error, Group};
use crate::cli::UsageError;
use sparring::record::PgnNotation;
use std::path::{Path, PathBuf};

pub(super) fn pgnout(g: &Group, s: &mut Settings) -> Result<(), UsageError> {
    let o = g.option.as_str();
    for token in &g.params {
        // cutechess-cli names the file without a key; `fi` (finished games only) is what
        // sparring writes anyway.
        if !token.contains('=') {
            match token.as_str() {
                "fi" => {}
                // cutechess-cli's minimal PGN: the Seven Tag Roster and the moves.
                "min" => s.pgn_style.minimal = true,
                _ if s.pgn_file.is_none() => s.pgn_file = Some(token.clone()),
                _ => return Err(usage_error(format!("-pgnout {token}: expected key=value"))),
            }
            continue;
        }
        let (k, v) = pair(o, token)?;
        match k.as_str() {
            "file" => s.pgn_file = Some(v),
            "append" => s.pgn_append = Some(boolean(o, &k, &v)?),
            "notation" => {
                s.pgn_style.notation =
                    PgnNotation::from_name(&v).ok_or_else(|| bad(o, &k, &v, "san, lan or uci"))?;
            }
            "min" => s.pgn_style.minimal = boolean(o, &k, &v)?,
            "nodes" => s.move_data.nodes = boolean(o, &k, &v)?,
            "seldepth" => s.move_data.seldepth = boolean(o, &k, &v)?,
            "nps" => s.move_data.nps = boolean(o, &k, &v)?,
            "hashfull" => s.move_data.hashfull = boolean(o, &k, &v)?,
            "tbhits" => s.move_data.tbhits = boolean(o, &k, &v)?,
            "pv" => s.move_data.pv = boolean(o, &k, &v)?,
            "timeleft" => s.move_data.timeleft = boolean(o, &k, &v)?,
            "latency" => s.move_data.latency = boolean(o, &k, &v)?,
            "match_line" => {
                if let Err(e) = regex::Regex::new(&v) {
                    let first = e.to_string().lines().last().unwrap_or("").trim().to_string();
                    return Err(bad(o, &k, &v, &format!("a regular expression ({first})")));
                }
                s.move_data.match_lines.push(v);
            }
            _ => {
                return Err(bad(
                    o,
                    &k,
                    &v,
                    "one of file, append, notation, min, nodes, seldepth, nps, hashfull, tbhits, pv, timeleft, latency, match_line",
                ))
            }
        }
    }
    // Options such as append=false alone would otherwise leave the games in a directory the
    // user never named.
    if s.pgn_file.is_none() {
        return Err(usage_error(format!(
            "{o} {}: file= is needed (the PGN file to write)",
            g.params.join(" ")
        )));
    }
    Ok(())
}

pub(super) fn log(g: &Group, s: &mut Settings) -> Result<(), UsageError> {
    let o = g.option.as_str();
    let mut unused = Vec::new();
    for (k, v) in g.pairs()? {
        match k.as_str() {
            "file" => s.engine_log = Some(PathBuf::from(&v)),
            "level" => {
                if !matches!(v.as_str(), "trace" | "info" | "warn" | "err" | "fatal") {
                    return Err(bad(o, &k, &v, "trace, info, warn, err or fatal"));
                }
                unused.push(format!("level={v}"));
            }
            "engine" => {
                if !boolean(o, &k, &v)? {
                    unused.push("engine=false".to_string());
                }
            }
            "append" | "realtime" => {
                boolean(o, &k, &v)?;
                unused.push(format!("{k}={v}"));
            }
            "compress" => {
                if boolean(o, &k, &v)? {
                    return Err(usage_error(
                        "-log compress=true: compressed logs are not implemented by sparring",
                    ));
                }
            }
            _ => {
                return Err(bad(
                    o,
                    &k,
                    &v,
                    "one of file, level, engine, append, realtime, compress",
                ))
            }
        }
    }
    if s.engine_log.is_none() {
        return Err(usage_error("-log: file= is needed"));
    }
    if !unused.is_empty() {
        s.notes.push(format!(
            "-log {}: sparring's log always holds every engine's traffic and standard error; accepted and not used",
            unused.join(" ")
        ));
    }
    Ok(())
}

pub(super) fn config_option(g: &Group, s: &mut Settings) -> Result<(), UsageError> {
    let o = g.option.as_str();
    for (k, v) in g.pairs()? {
        match k.as_str() {
            "file" => {
                if !v.ends_with(".toml") {
                    return Err(bad(
                        o,
                        &k,
                        &v,
                        "a sparring TOML match configuration (fastchess's config.json is not read)",
                    ));
                }
                s.config_file = Some(PathBuf::from(&v));
            }
            "discard" | "stats" => {
                boolean(o, &k, &v)?;
                s.notes.push(format!(
                    "-config {k}={v}: a sparring run keeps its results in its output directory (continue with --resume); accepted and not used"
                ));
            }
            "outname" => {
                if v.is_empty() {
                    return Err(bad(o, &k, &v, "a file name"));
                }
                s.notes.push(format!(
                    "-config outname={v}: fastchess saves its state there for a later -config file=; sparring keeps a run's state in its output directory (continue with --resume), so {v} is not written"
                ));
            }
            _ => return Err(bad(o, &k, &v, "one of file, outname, discard, stats")),
        }
    }
    // Without file= (weather-factory's `-config outname=... discard=true`) the settings are
    // notes and the match comes from the rest of the line.
    Ok(())
}

/// The output directory when fastchess would write no PGN: `sparring_<UTC date>_<time>_<pid>`.
fn default_output_dir() -> PathBuf {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (year, month, day) = sparring::record::utc_date(secs);
    let t = secs % 86_400;
    PathBuf::from(format!(
        "sparring_{year:04}{month:02}{day:02}_{:02}{:02}{:02}_{}",
        t / 3600,
        t / 60 % 60,
        t % 60,
        std::process::id()
    ))
}

/// The output directory and PGN name: beside `-pgnout file=DIR/NAME.pgn` sparring keeps its other
/// records in `DIR/NAME.pgn.sparring/`, whose `pgn_name` `../NAME.pgn` is the file fastchess
/// would write.
pub(super) fn output_location(s: &Settings) -> Result<(PathBuf, String), UsageError> {
    let Some(file) = &s.pgn_file else {
        return Ok((default_output_dir(), "games.pgn".to_string()));
    };
    let path = Path::new(file);
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| usage_error(format!("-pgnout file={file}: expected a file name")))?;
    // As the TOML form's output.pgn_name requires (a blank name, a line break in it).
    if name.trim().is_empty() || name.chars().any(char::is_control) {
        return Err(usage_error(format!(
            "-pgnout file={file:?}: expected a file name without control characters"
        )));
    }
    if path.is_dir() {
        return Err(usage_error(format!(
            "-pgnout file={file}: is a directory, expected a file"
        )));
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Ok((
        parent.join(format!("{name}.sparring")),
        format!("../{name}"),
    ))
}
