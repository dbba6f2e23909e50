//! Checking the `[[engine]]` tables and the `[each]` defaults they inherit.

use super::file::{BuiltinFile, EachFile, EngineFile, UciFile};
use super::model::{BuiltinSyzygy, EngineConfig, EngineKind, Protocol, TimeControl};
use super::validate::{has_control, limit};
use crate::arena::engine::{ExternalSettings, TIMEOUT_SCALE_RANGE};
use crate::openings::PolyglotBook;
use crate::toml_config::{ConfigError, Document};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// A `uci.options` table as the name/value texts sent to the engine, checked under `key`.
fn option_texts(
    doc: &Document<'_>,
    key: &str,
    table: BTreeMap<String, toml::Value>,
) -> Result<BTreeMap<String, String>, ConfigError> {
    let mut options = BTreeMap::new();
    for (name, value) in table {
        let option_key = format!("{key}.{name}");
        let value = match value {
            toml::Value::String(s) => s,
            toml::Value::Integer(i) => i.to_string(),
            toml::Value::Float(f) => f.to_string(),
            toml::Value::Boolean(b) => b.to_string(),
            _ => return Err(doc.invalid_value(&option_key, "a string, number or boolean")),
        };
        if name.trim().is_empty() || has_control(&name) {
            return Err(doc.invalid(
                &option_key,
                "an option name without control characters (it is sent to the engine)",
                format!("the name {name:?}"),
            ));
        }
        if has_control(&value) {
            return Err(doc.invalid(
                &option_key,
                "a value without control characters (it is sent to the engine)",
                format!("the string {value:?}"),
            ));
        }
        options.insert(name, value);
    }
    Ok(options)
}

/// `builtin.syzygy` (and its probe limit) under `key`, the tables opened: a path without
/// tables is refused here, before any game.
fn builtin_syzygy(
    doc: &Document<'_>,
    key: &str,
    path: Option<String>,
    probe_limit: Option<u32>,
) -> Result<Option<BuiltinSyzygy>, ConfigError> {
    let limit_key = format!("{key}.syzygy_probe_limit");
    let probe_limit = doc.in_range(&limit_key, probe_limit.unwrap_or(7), 0, Some(7))?;
    let Some(path) = path else {
        return Ok(None);
    };
    BuiltinSyzygy::open(&path, probe_limit)
        .map(Some)
        .map_err(|e| doc.other(&format!("{key}.syzygy"), e))
}

/// The cutechess-style keys of `engine[i]` (taken out of `e`), checked: a timeout scale in
/// cutechess's range, a positive book depth, a book that reads, start-up lines without
/// control characters.
fn external_settings(
    doc: &Document<'_>,
    i: usize,
    e: &mut EngineFile,
) -> Result<ExternalSettings, ConfigError> {
    let init_strings = e.init_strings.take().unwrap_or_default();
    if init_strings.iter().any(|s| has_control(s)) {
        return Err(doc.invalid_value(
            &engine_key(i, "init_strings"),
            "lines without control characters (one string per line)",
        ));
    }
    let (min, max) = TIMEOUT_SCALE_RANGE;
    let timeout_scale = match e.timeout_scale {
        Some(f) if !(min..=max).contains(&f) => {
            return Err(doc.invalid_value(
                &engine_key(i, "timeout_scale"),
                format!("a factor from {min} to {max}"),
            ))
        }
        other => other,
    };
    let book_depth = e
        .book_depth
        .map(|d| doc.in_range(&engine_key(i, "book_depth"), d, 1, None))
        .transpose()?;
    let book = e.book.take().map(PathBuf::from);
    if let Some(path) = &book {
        PolyglotBook::load(path).map_err(|err| doc.other(&engine_key(i, "book"), err))?;
    }
    Ok(ExternalSettings {
        ponder: e.ponder.unwrap_or(false),
        init_strings,
        stderr_file: e.stderr_file.take().map(PathBuf::from),
        trust_claims: e.trust_claims.unwrap_or(false),
        white_pov: e.white_pov.unwrap_or(false),
        timeout_scale,
        debug: e.debug.unwrap_or(false),
        book,
        book_depth,
        ..ExternalSettings::default()
    })
}

/// The `[each]` defaults an `[[engine]]` table falls back on, checked.
struct EachDefaults {
    options: BTreeMap<String, String>,
    working_dir: Option<String>,
    hash_mb: Option<usize>,
    search: Option<String>,
    syzygy: Option<String>,
    probe_limit: Option<u32>,
    weights: Option<String>,
}

/// The `[each]` table's `uci` and `builtin` defaults, checked: its options first, then its hash.
fn each_defaults(doc: &Document<'_>, each: Option<EachFile>) -> Result<EachDefaults, ConfigError> {
    let (each_uci, each_builtin) = match each {
        Some(e) => (e.uci, e.builtin),
        None => (None, None),
    };
    let options = match each_uci.as_ref().and_then(|u| u.options.clone()) {
        Some(table) => option_texts(doc, "each.uci.options", table)?,
        None => BTreeMap::new(),
    };
    let hash_mb = each_builtin
        .as_ref()
        .and_then(|b| b.hash_mb)
        .map(|mb| doc.in_range("each.builtin.hash_mb", mb, 1, Some(65_536)))
        .transpose()?;
    let (search, syzygy, probe_limit, weights) = match each_builtin {
        Some(b) => (b.search, b.syzygy, b.syzygy_probe_limit, b.weights),
        None => (None, None, None, None),
    };
    Ok(EachDefaults {
        options,
        working_dir: each_uci.and_then(|u| u.working_dir),
        hash_mb,
        search,
        syzygy,
        probe_limit,
        weights,
    })
}

/// The name of `engine[i]`, checked: present, non-blank, without control characters and
/// not taken by an engine before it.
fn engine_name(
    doc: &Document<'_>,
    i: usize,
    name: Option<String>,
    before: &[EngineConfig],
) -> Result<String, ConfigError> {
    let key = engine_key(i, "name");
    let name = name.ok_or_else(|| doc.missing(&key, "the engine's name"))?;
    if name.trim().is_empty() || has_control(&name) {
        return Err(doc.invalid_value(&key, "a non-blank name without control characters"));
    }
    if before.iter().any(|x| x.name == name) {
        return Err(doc.invalid_value(&key, "a name no other engine has"));
    }
    Ok(name)
}

/// The built-in engine of `engine[i]`'s `builtin` table, its missing keys taken from `each`.
fn builtin_kind(
    doc: &Document<'_>,
    i: usize,
    b: BuiltinFile,
    each: &EachDefaults,
) -> Result<EngineKind, ConfigError> {
    Ok(EngineKind::Builtin {
        weights: b
            .weights
            .or_else(|| each.weights.clone())
            .map(PathBuf::from),
        net: b.net.map(PathBuf::from),
        hash_mb: match b.hash_mb {
            Some(mb) => doc.in_range(&engine_key(i, "builtin.hash_mb"), mb, 1, Some(65_536))?,
            None => each.hash_mb.unwrap_or(16),
        },
        search: b.search.or_else(|| each.search.clone()).map(PathBuf::from),
        syzygy: builtin_syzygy(
            doc,
            &engine_key(i, "builtin"),
            b.syzygy.or_else(|| each.syzygy.clone()),
            b.syzygy_probe_limit.or(each.probe_limit),
        )?,
    })
}

/// The external engine of `engine[i]`'s `uci` table, its options laid over `each`'s.
fn uci_kind(
    doc: &Document<'_>,
    i: usize,
    u: UciFile,
    each: &EachDefaults,
) -> Result<EngineKind, ConfigError> {
    let command = u
        .command
        .ok_or_else(|| doc.missing(&engine_key(i, "uci.command"), "the engine's executable"))?;
    let mut options = each.options.clone();
    options.extend(option_texts(
        doc,
        &engine_key(i, "uci.options"),
        u.options.unwrap_or_default(),
    )?);
    Ok(EngineKind::Uci {
        command,
        args: u.args.unwrap_or_default(),
        options: options.into_iter().collect(),
        working_dir: u
            .working_dir
            .or_else(|| each.working_dir.clone())
            .map(PathBuf::from),
    })
}

/// The engine of `engine[i]`: exactly one of its `builtin` and `uci` tables.
fn engine_kind(
    doc: &Document<'_>,
    i: usize,
    builtin: Option<BuiltinFile>,
    uci: Option<UciFile>,
    each: &EachDefaults,
) -> Result<EngineKind, ConfigError> {
    match (builtin, uci) {
        (Some(b), None) => builtin_kind(doc, i, b, each),
        (None, Some(u)) => uci_kind(doc, i, u, each),
        _ => Err(doc.invalid(
            &engine_key(i, "builtin"),
            "exactly one of `builtin = { ... }` or `uci = { ... }`",
            "a table with both or neither",
        )),
    }
}

/// The protocol of `engine[i]`, checked: `uci` unless given, and only `uci` for the built-in
/// engine, which also refuses the keys only an external engine takes.
fn engine_protocol(
    doc: &Document<'_>,
    i: usize,
    protocol: Option<&str>,
    kind: &EngineKind,
    settings: &ExternalSettings,
) -> Result<Protocol, ConfigError> {
    let protocol = match protocol {
        None => Protocol::Uci,
        Some(text) => Protocol::parse(text)
            .ok_or_else(|| doc.invalid_value(&engine_key(i, "protocol"), "`uci` or `xboard`"))?,
    };
    if protocol != Protocol::Uci && matches!(kind, EngineKind::Builtin { .. }) {
        return Err(doc.invalid_value(
            &engine_key(i, "protocol"),
            "no protocol for the built-in engine (it runs in process)",
        ));
    }
    if let (Some(first), EngineKind::Builtin { .. }) = (settings.external_only_keys().first(), kind)
    {
        let why = if *first == "ponder" {
            "no pondering for the built-in engine (it thinks only when asked)"
        } else {
            "no such key for the built-in engine (it runs in process: only an external engine takes it)"
        };
        return Err(doc.invalid_value(&engine_key(i, first), why));
    }
    Ok(protocol)
}

/// `engine[i]` with the `[each]` defaults applied, checked against the engines `before` it.
fn engine(
    doc: &Document<'_>,
    i: usize,
    mut e: EngineFile,
    each: &EachDefaults,
    each_limit: Option<&TimeControl>,
    before: &[EngineConfig],
) -> Result<EngineConfig, ConfigError> {
    let settings = external_settings(doc, i, &mut e)?;
    let name = engine_name(doc, i, e.name, before)?;
    let time_control = match &e.time_control {
        Some(tc) => Some(limit(doc, &engine_key(i, "time_control"), tc)?),
        None => each_limit.cloned(),
    };
    let kind = engine_kind(doc, i, e.builtin, e.uci, each)?;
    let protocol = engine_protocol(doc, i, e.protocol.as_deref(), &kind, &settings)?;
    Ok(EngineConfig {
        name,
        kind,
        time_control,
        protocol,
        restart: e.restart.unwrap_or(false),
        settings,
    })
}

/// The `[[engine]]` tables with the `[each]` defaults applied, checked: at least two, names
/// unique.
pub(super) fn engines(
    doc: &Document<'_>,
    list: Option<Vec<EngineFile>>,
    each: Option<EachFile>,
    each_limit: Option<TimeControl>,
) -> Result<Vec<EngineConfig>, ConfigError> {
    let list = list.ok_or_else(|| doc.missing("engine", "at least two [[engine]] tables"))?;
    let each = each_defaults(doc, each)?;
    let mut engines: Vec<EngineConfig> = Vec::new();
    for (i, e) in list.into_iter().enumerate() {
        let engine = engine(doc, i, e, &each, each_limit.as_ref(), &engines)?;
        engines.push(engine);
    }
    if engines.len() < 2 {
        return Err(doc.invalid("engine", "at least two [[engine]] tables", engines.len()));
    }
    Ok(engines)
}

/// The configuration key `name` of the `i`th `[[engine]]` table, as errors name it.
fn engine_key(i: usize, name: &str) -> String {
    format!("engine[{i}].{name}")
}

#[cfg(test)]
mod tests {
    use crate::arena::config::MatchConfig;

    const TWO: &str = "[tournament]\n[time_control]\nnodes = 5\n[output]\ndir = \"x\"\n\
                       [[engine]]\nname = \"a\"\nbuiltin = {}\n\
                       [[engine]]\nname = \"b\"\nuci = { command = \"x\" }\n";

    /// The cutechess-style engine keys read back from the dump, and are refused for the
    /// built-in engine by name.
    #[test]
    fn engine_settings_round_trip_and_need_an_external_engine() {
        let config = MatchConfig::parse(&format!("{TWO}ponder = true\n"), "t").unwrap();
        assert!(config.engines[1].settings.ponder);
        assert!(config.to_toml().contains("ponder = true"));
        let again = MatchConfig::parse(&config.to_toml(), "t").unwrap();
        assert_eq!(again.engines, config.engines);
        let builtin = TWO.replace("builtin = {}\n", "builtin = {}\nponder = true\n");
        let err = MatchConfig::parse(&builtin, "t").unwrap_err().to_string();
        assert!(err.contains("engine[0].ponder"), "{err}");
    }

    /// Every cutechess-style key reads, dumps only when set and reads back; bad values and
    /// the built-in engine are refused naming the key.
    #[test]
    fn the_other_engine_keys_round_trip_and_are_checked() {
        let dir = std::env::temp_dir().join(format!("sparring-engine-keys-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let book = dir.join("book.bin");
        std::fs::write(&book, b"").unwrap();
        let keys = format!(
            "init_strings = [\"a\", \"b\"]\nstderr_file = \"e.log\"\ntrust_claims = true\n\
             white_pov = true\ntimeout_scale = 3.0\ndebug = true\nbook = {:?}\nbook_depth = 5\n",
            book.display().to_string()
        );
        let config = MatchConfig::parse(&format!("{TWO}{keys}"), "t").unwrap();
        let s = &config.engines[1].settings;
        assert_eq!(s.init_strings, ["a", "b"]);
        assert!(s.trust_claims && s.white_pov && s.debug);
        assert_eq!((s.timeout_scale, s.book_depth), (Some(3.0), Some(5)));
        let dumped = config.to_toml();
        assert!(dumped.contains("book_depth = 5"), "{dumped}");
        assert_eq!(
            MatchConfig::parse(&dumped, "t").unwrap().engines,
            config.engines
        );
        // Unset keys are not dumped: runs without them dump (and fingerprint) as before.
        let plain = MatchConfig::parse(TWO, "t").unwrap().to_toml();
        assert!(
            !plain.contains("timeout_scale") && !plain.contains("book"),
            "{plain}"
        );
        let bad = |line: &str| {
            MatchConfig::parse(&format!("{TWO}{line}\n"), "t")
                .unwrap_err()
                .to_string()
        };
        assert!(bad("timeout_scale = 0.0").contains("engine[1].timeout_scale"));
        assert!(bad("book_depth = 0").contains("engine[1].book_depth"));
        assert!(bad("book = \"/nonexistent.bin\"").contains("engine[1].book"));
        assert!(bad("init_strings = [\"a\\nb\"]").contains("engine[1].init_strings"));
        let builtin = TWO.replace("builtin = {}\n", "builtin = {}\nwhite_pov = true\n");
        let err = MatchConfig::parse(&builtin, "t").unwrap_err().to_string();
        assert!(err.contains("engine[0].white_pov"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
