//! One `-engine` / `-each` group: its keys, its limit, and the `EngineConfig` it becomes.

use super::engines_json::JsonEngine;
use super::tokens::{bounded, pair, usage_error};
use crate::cli::UsageError;
use sparring::arena::config::{
    parse_seconds, BuiltinSyzygy, EngineConfig, EngineKind, Protocol, TimeControl,
};
use sparring::arena::engine::{ExternalSettings, TIMEOUT_SCALE_RANGE};
use sparring::openings::PolyglotBook;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The keys an `-engine` or `-each` group may hold (besides `option.X`).
const ENGINE_KEYS: &[&str] = &[
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
    "conf",
    "stderr",
    "tscale",
    "book",
    "bookdepth",
];

/// cutechess-cli engine keys written without a value.
const ENGINE_FLAGS: &[&str] = &["ponder", "trust", "whitepov", "debug"];

/// The keys only an external engine takes (refused for `builtin` by name).
const EXTERNAL_ONLY_KEYS: &[&str] = &[
    "ponder",
    "arg",
    "initstr",
    "stderr",
    "trust",
    "whitepov",
    "tscale",
    "debug",
    "book",
    "bookdepth",
];

/// One `-engine` (or the merged `-each`) as written.
#[derive(Clone, Debug, Default)]
pub(super) struct EngineSpec {
    /// `-engine builtin ...` (or `cmd=builtin`).
    builtin: bool,
    pub(super) keys: BTreeMap<String, String>,
    /// `option.X=V` in order; a later value for the same name wins.
    options: Vec<(String, String)>,
    /// cutechess's repeatable `arg=`, in order (after `args=`'s words).
    arg: Vec<String>,
    /// cutechess's repeatable `initstr=`, in order.
    initstr: Vec<String>,
}

impl EngineSpec {
    /// The value of key `k`, if the group gave it.
    pub(super) fn get(&self, k: &str) -> Option<&str> {
        self.keys.get(k).map(String::as_str)
    }

    pub(super) fn add(&mut self, option: &str, token: &str) -> Result<(), UsageError> {
        if token == "builtin" {
            self.builtin = true;
            return Ok(());
        }
        if ENGINE_FLAGS.contains(&token) {
            self.keys.insert(token.to_string(), String::new());
            return Ok(());
        }
        let (key, value) = pair(option, token)?;
        if let Some(name) = key.strip_prefix("option.") {
            if name.is_empty() {
                return Err(usage_error(format!(
                    "{option} {token}: the option name is empty"
                )));
            }
            self.options.push((name.to_string(), value));
        } else if key == "arg" {
            self.arg.push(value);
        } else if key == "initstr" {
            self.initstr.push(value);
        } else if ENGINE_KEYS.contains(&key.as_str()) {
            self.keys.insert(key, value);
        } else {
            return Err(usage_error(format!(
                "{option} {token}: unknown engine key `{key}` (known: {}, arg, initstr, {}, option.NAME)",
                ENGINE_KEYS.join(", "),
                ENGINE_FLAGS.join(", ")
            )));
        }
        Ok(())
    }

    /// cutechess's `conf=NAME`: the named configuration's command, name, directory, protocol
    /// and options, under the keys the line gives itself.
    pub(super) fn apply_conf(&mut self, conf: &JsonEngine, file: &Path) -> Result<(), UsageError> {
        let words = shell_words(&conf.command).map_err(|e| {
            usage_error(format!(
                "{}: engine {:?}: command {:?}: {e}",
                file.display(),
                conf.name,
                conf.command
            ))
        })?;
        let Some((cmd, args)) = words.split_first() else {
            return Err(usage_error(format!(
                "{}: engine {:?}: the command is empty",
                file.display(),
                conf.name
            )));
        };
        let mut defaults = vec![("cmd", cmd.clone()), ("name", conf.name.clone())];
        if !args.is_empty() {
            // Quoted again, for `args=`'s shell-like split.
            let quoted: Vec<String> = args
                .iter()
                .map(|a| format!("'{}'", a.replace('\'', "'\\''")))
                .collect();
            defaults.push(("args", quoted.join(" ")));
        }
        if let Some(dir) = &conf.working_directory {
            defaults.push(("dir", dir.clone()));
        }
        if let Some(proto) = &conf.protocol {
            defaults.push(("proto", proto.clone()));
        }
        defaults.extend(conf.keys());
        for (key, value) in defaults {
            self.keys.entry(key.to_string()).or_insert(value);
        }
        // The line's own option.X and initstr come after, so they win (and are sent last).
        let (mut options, mut init) = conf.uci_options(file)?;
        options.append(&mut self.options);
        self.options = options;
        init.append(&mut self.initstr);
        self.initstr = init;
        Ok(())
    }

    /// fastchess applies `-each` after the whole line: its keys override the engine's own.
    pub(super) fn merge_each(&mut self, each: &EngineSpec) {
        self.builtin |= each.builtin;
        for (k, v) in &each.keys {
            self.keys.insert(k.clone(), v.clone());
        }
        self.options.extend(each.options.iter().cloned());
        self.arg.extend(each.arg.iter().cloned());
        self.initstr.extend(each.initstr.iter().cloned());
    }

    /// Whether the group gave key `k`, repeatable ones included.
    fn has(&self, k: &str) -> bool {
        match k {
            "arg" => !self.arg.is_empty(),
            "initstr" => !self.initstr.is_empty(),
            _ => self.keys.contains_key(k),
        }
    }
}

/// One engine's limit and margin, checked; `label` names the engine in messages.
fn engine_limit(
    spec: &EngineSpec,
    label: &str,
) -> Result<(TimeControl, Option<Duration>), UsageError> {
    let get = |k: &str| spec.keys.get(k).map(String::as_str);
    let err = |k: &str, v: &str, expected: &str| {
        usage_error(format!("{label}: {k}={v}: expected {expected}"))
    };
    let clock = match get("tc") {
        Some(v) => parse_tc(v).map_err(|e| err("tc", v, &e))?,
        None => None,
    };
    let movetime = match get("st") {
        Some(v) => {
            let d = parse_seconds(v)
                .filter(|d| *d >= Duration::from_millis(1) && *d <= Duration::from_secs(86_400))
                .ok_or_else(|| err("st", v, "seconds per move, from 0.001 to 86400"))?;
            // Rounded to the millisecond: `go movetime` takes milliseconds.
            let ms = (d.as_nanos() + 500_000) / 1_000_000;
            Some(TimeControl::MoveTime(Duration::from_millis(ms as u64)))
        }
        None => None,
    };
    let nodes = match get("nodes") {
        Some(v) => Some(TimeControl::Nodes(
            v.parse::<u64>()
                .ok()
                .filter(|n| (1..=i64::MAX as u64).contains(n))
                .ok_or_else(|| err("nodes", v, "a positive number of nodes"))?,
        )),
        None => None,
    };
    let depth_key = if get("depth").is_some() {
        "depth"
    } else {
        "plies"
    };
    let depth = match get(depth_key) {
        Some(v) => Some(TimeControl::Depth(
            v.parse::<u32>()
                .ok()
                .filter(|d| (1..=127).contains(d))
                .ok_or_else(|| err(depth_key, v, "a depth from 1 to 127 plies"))?,
        )),
        None => None,
    };
    if clock.is_some() && movetime.is_some() {
        return Err(usage_error(format!(
            "{label}: tc= and st= cannot be used together"
        )));
    }
    let given: Vec<(&str, TimeControl)> = [
        ("tc", clock),
        ("st", movetime),
        ("nodes", nodes),
        (depth_key, depth),
    ]
    .into_iter()
    .filter_map(|(k, tc)| tc.map(|tc| (k, tc)))
    .collect();
    let limit = match given.as_slice() {
        [] => {
            return Err(usage_error(format!(
                "{label}: no time control: give tc=, st=, nodes= or depth="
            )))
        }
        [(_, tc)] => tc.clone(),
        [(a, _), (b, _), ..] => {
            return Err(usage_error(format!(
                "{label}: {a}= and {b}= together: sparring plays one limit per engine (use tc=inf with nodes= or depth=)"
            )))
        }
    };
    let margin = match get("timemargin") {
        Some(v) => Some(Duration::from_millis(
            bounded(label, "timemargin", v, 0, 3_600_000)? as u64,
        )),
        None => None,
    };
    Ok((limit, margin))
}

/// A fastchess `tc`: `[moves/]time[+inc]` in seconds, time may be `min:sec`, numbers may end in
/// `s`; `inf` is no clock (None).
pub(super) fn parse_tc(text: &str) -> Result<Option<TimeControl>, String> {
    const EXPECTED: &str = "[moves/]seconds[+increment], e.g. 10+0.1, 40/60+0.6, 1:30+1, or inf";
    if text == "inf" || text == "infinite" {
        return Ok(None);
    }
    if text.contains("hg") {
        return Err("a clock without hourglass (hg is not implemented by sparring)".into());
    }
    let (moves, rest) = match text.split_once('/') {
        Some(("inf", rest)) => (None, rest),
        Some((m, rest)) => (
            Some(m.parse::<u32>().ok().filter(|&m| m > 0).ok_or(EXPECTED)?),
            rest,
        ),
        None => (None, text),
    };
    let (base, increment) = rest.split_once('+').unwrap_or((rest, "0"));
    let seconds = |t: &str| -> Option<Duration> {
        let t = t.strip_suffix('s').unwrap_or(t);
        match t.split_once(':') {
            Some((min, sec)) => {
                let min: u64 = min.parse().ok()?;
                Some(Duration::from_secs(min.checked_mul(60)?) + parse_seconds(sec)?)
            }
            None => parse_seconds(t),
        }
    };
    let base = seconds(base).ok_or(EXPECTED)?;
    let increment = seconds(increment).ok_or(EXPECTED)?;
    if base.is_zero() {
        return Err(format!("{EXPECTED} (with more than 0 seconds)"));
    }
    Ok(Some(TimeControl::Clock {
        moves,
        base,
        increment,
    }))
}

/// The executable fastchess runs: `dir/cmd` (an absolute `cmd` stays), made absolute because
/// the engine then starts inside `dir`.
fn resolve_command(cmd: &str, dir: Option<&str>) -> Result<String, UsageError> {
    let Some(dir) = dir else {
        return Ok(cmd.to_string());
    };
    let joined = Path::new(dir).join(cmd);
    let absolute = std::path::absolute(&joined)
        .map_err(|e| usage_error(format!("dir={dir} cmd={cmd}: cannot resolve the path: {e}")))?;
    Ok(absolute.to_string_lossy().into_owned())
}

/// Splits `args="a 'b c'"` the way a POSIX shell splits words (quotes and backslashes).
pub(super) fn shell_words(text: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err("an unclosed ' quote".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err("an unclosed \" quote".into()),
                        },
                        Some(c) => word.push(c),
                        None => return Err("an unclosed \" quote".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(c) => word.push(c),
                    None => return Err("a backslash at the end".into()),
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

/// One engine of the line, checked; `index` is 1-based.
pub(super) fn engine_config(
    spec: &EngineSpec,
    index: usize,
) -> Result<(EngineConfig, Option<Duration>), UsageError> {
    let get = |k: &str| spec.get(k);
    let label = match get("name") {
        Some(name) => format!("-engine #{index} (name={name})"),
        None => format!("-engine #{index}"),
    };
    let (limit, margin) = engine_limit(spec, &label)?;
    let builtin = spec.builtin || get("cmd") == Some("builtin");
    let protocol = protocol(spec, builtin, &label)?;
    let restart = restart(spec, &label)?;
    let settings = external_settings(spec, builtin, &label)?;
    let options = checked_options(spec, &label)?;
    let (kind, default_name) = if builtin {
        (
            builtin_kind(spec, &options, &label)?,
            "sparring".to_string(),
        )
    } else {
        external_kind(spec, options, &label)?
    };
    let name = get("name").map_or(default_name, str::to_string);
    if name.trim().is_empty() || name.chars().any(char::is_control) {
        return Err(usage_error(format!(
            "{label}: name={name:?}: expected a non-blank name without control characters"
        )));
    }
    Ok((
        EngineConfig {
            name,
            kind,
            time_control: Some(limit),
            protocol,
            restart,
            settings,
        },
        margin,
    ))
}

/// cutechess's per-engine keys (`ponder`, `initstr`, `stderr`, `trust`, `whitepov`, `tscale`,
/// `debug`, `book`, `bookdepth`), checked; refused by name for the built-in engine.
fn external_settings(
    spec: &EngineSpec,
    builtin: bool,
    label: &str,
) -> Result<ExternalSettings, UsageError> {
    if builtin {
        if let Some(key) = EXTERNAL_ONLY_KEYS.iter().find(|k| spec.has(k)) {
            let why = if *key == "ponder" {
                "the built-in engine does not ponder (it thinks only when asked)"
            } else {
                "only an external engine takes it (the built-in engine runs in process)"
            };
            return Err(usage_error(format!("{label}: {key}: {why}")));
        }
    }
    let get = |k: &str| spec.get(k);
    let err = |k: &str, v: &str, expected: &str| {
        usage_error(format!("{label}: {k}={v}: expected {expected}"))
    };
    // cutechess turns a written `\n` into a line break: one line each.
    let mut init_strings = Vec::new();
    for text in &spec.initstr {
        if text.chars().any(char::is_control) {
            return Err(err("initstr", text, "text without control characters"));
        }
        init_strings.extend(text.split("\\n").map(str::to_string));
    }
    let (min, max) = TIMEOUT_SCALE_RANGE;
    let timeout_scale = match get("tscale") {
        Some(v) => Some(
            v.parse::<f64>()
                .ok()
                .filter(|f| (min..=max).contains(f))
                .ok_or_else(|| err("tscale", v, &format!("a factor from {min} to {max}")))?,
        ),
        None => None,
    };
    let book_depth = match get("bookdepth") {
        Some(v) => Some(
            v.parse::<u32>()
                .ok()
                .filter(|d| *d >= 1)
                .ok_or_else(|| err("bookdepth", v, "a positive number of full moves"))?,
        ),
        None => None,
    };
    let book = get("book").map(PathBuf::from);
    if let Some(path) = &book {
        PolyglotBook::load(path)
            .map_err(|e| usage_error(format!("{label}: book={}: {e}", path.display())))?;
    }
    Ok(ExternalSettings {
        ponder: get("ponder").is_some(),
        init_strings,
        stderr_file: get("stderr").map(PathBuf::from),
        trust_claims: get("trust").is_some(),
        white_pov: get("whitepov").is_some(),
        timeout_scale,
        debug: get("debug").is_some(),
        book,
        book_depth,
        ..ExternalSettings::default()
    })
}

/// `proto=`: uci (the default) or xboard; the built-in engine speaks none.
fn protocol(spec: &EngineSpec, builtin: bool, label: &str) -> Result<Protocol, UsageError> {
    let protocol = match spec.get("proto") {
        None => Protocol::Uci,
        Some(proto) => Protocol::parse(proto).ok_or_else(|| {
            usage_error(format!("{label}: proto={proto}: expected uci or xboard"))
        })?,
    };
    if protocol == Protocol::Xboard && builtin {
        return Err(usage_error(format!(
            "{label}: proto=xboard: the built-in engine runs in process and speaks no protocol"
        )));
    }
    Ok(protocol)
}

/// `restart=`: cutechess restarts a UCI engine between games only with `on`: `auto` is `off`
/// for it.
fn restart(spec: &EngineSpec, label: &str) -> Result<bool, UsageError> {
    match spec.get("restart") {
        None | Some("off" | "auto") => Ok(false),
        Some("on") => Ok(true),
        Some(other) => Err(usage_error(format!(
            "{label}: restart={other}: expected on, off or auto"
        ))),
    }
}

/// The `option.X=V` keys, refused when they hold control characters (a newline would inject a
/// command).
fn checked_options(spec: &EngineSpec, label: &str) -> Result<BTreeMap<String, String>, UsageError> {
    let mut options = BTreeMap::new();
    for (name, value) in &spec.options {
        if name.chars().any(char::is_control) || value.chars().any(char::is_control) {
            return Err(usage_error(format!(
                "{label}: option.{name}={value:?}: control characters are not allowed"
            )));
        }
        options.insert(name.clone(), value.clone());
    }
    Ok(options)
}

/// The built-in engine: `hash=`/`option.Hash`, `option.Threads=1`, `weights=`/`option.Weights`
/// and `option.EvalFile` (a network; both relative to `dir=` when given).
fn builtin_kind(
    spec: &EngineSpec,
    options: &BTreeMap<String, String>,
    label: &str,
) -> Result<EngineKind, UsageError> {
    let get = |k: &str| spec.get(k);
    if let Some(v) = get("args") {
        return Err(usage_error(format!(
            "{label}: args={v}: the built-in engine takes no arguments (run `sparring uci` as cmd= for that)"
        )));
    }
    let mut hash_mb = 16usize;
    let mut weights = None;
    let mut net = None;
    let (mut syzygy_path, mut probe_limit) = (None, 7);
    for (name, value) in options {
        match name.as_str() {
            "Hash" => hash_mb = bounded(label, "option.Hash", value, 1, 65_536)? as usize,
            "SyzygyPath" if value.is_empty() || value == "<empty>" => syzygy_path = None,
            "SyzygyPath" => syzygy_path = Some(value.clone()),
            "SyzygyProbeLimit" => {
                probe_limit = bounded(label, "option.SyzygyProbeLimit", value, 0, 7)? as u32;
            }
            "Threads" if value == "1" => {}
            "Threads" => {
                return Err(usage_error(format!(
                    "{label}: option.Threads={value}: the built-in engine searches with one thread"
                )))
            }
            "Weights" => weights = Some(value.clone()),
            "EvalFile" if value.is_empty() || value == "<empty>" => net = None,
            "EvalFile" => net = Some(value.clone()),
            _ => {
                return Err(usage_error(format!(
                    "{label}: option.{name}={value}: the built-in engine takes Hash, Threads=1, Weights, EvalFile, SyzygyPath and SyzygyProbeLimit here (run `sparring uci` as cmd= for other options)"
                )))
            }
        }
    }
    if let Some(h) = get("hash") {
        hash_mb = bounded(label, "hash", h, 1, 65_536)? as usize;
    }
    if let Some(w) = get("weights") {
        weights = Some(w.to_string());
    }
    let in_dir = |file: String| match get("dir") {
        Some(dir) => Path::new(dir).join(file),
        None => PathBuf::from(file),
    };
    let weights = weights.map(in_dir);
    let net = net.map(in_dir);
    let syzygy = match syzygy_path {
        None => None,
        Some(path) => {
            let tables = BuiltinSyzygy::open(&path, probe_limit)
                .map_err(|e| usage_error(format!("{label}: option.SyzygyPath={path}: {e}")))?;
            Some(tables)
        }
    };
    Ok(EngineKind::Builtin {
        weights,
        net,
        hash_mb,
        search: None,
        syzygy,
    })
}

/// An external engine: `cmd=` (resolved against `dir=`), `args=` split like a shell; its
/// default name is the command's file stem.
fn external_kind(
    spec: &EngineSpec,
    options: BTreeMap<String, String>,
    label: &str,
) -> Result<(EngineKind, String), UsageError> {
    let get = |k: &str| spec.get(k);
    for key in ["weights", "hash"] {
        if let Some(v) = get(key) {
            return Err(usage_error(format!(
                "{label}: {key}={v}: only the built-in engine takes {key}= (use option.{} for a UCI engine)",
                if key == "hash" { "Hash" } else { "EvalFile" }
            )));
        }
    }
    let cmd = get("cmd").ok_or_else(|| usage_error(format!("{label}: cmd= is needed")))?;
    let mut args = match get("args") {
        Some(a) => shell_words(a).map_err(|e| usage_error(format!("{label}: args={a}: {e}")))?,
        None => Vec::new(),
    };
    // cutechess's `arg=`: one argument each, after `args=`'s.
    args.extend(spec.arg.iter().cloned());
    let default_name = Path::new(cmd)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| cmd.to_string());
    Ok((
        EngineKind::Uci {
            command: resolve_command(cmd, get("dir"))?,
            args,
            options: options.into_iter().collect(),
            working_dir: get("dir").map(PathBuf::from),
        },
        default_name,
    ))
}
