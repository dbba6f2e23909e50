//! The loop file's checks: which stages the model needs and refuses, the keys the loop sets or
//! takes out of the stage tables, and the flattening the fingerprint reads.

use super::*;

/// `model` and, for a network loop, its stages; the champion's keys checked against the model.
pub(super) fn network_stages(
    doc: &Document<'_>,
    f: &LoopFile,
    c: &ChampionFile,
) -> Result<Option<NetworkStages>, ConfigError> {
    let network =
        match f.model.as_deref() {
            None | Some("hce") => None,
            Some("network") => Some(NetworkStages::parse(
                doc,
                f.datagen.clone(),
                f.train.clone(),
            )?),
            Some(_) => return Err(doc.invalid_value(
                "model",
                "\"hce\" (Texel-tune the hand-crafted evaluation) or \"network\" (train a network)",
            )),
        };
    if network.is_some() && c.search.is_some() {
        return Err(doc.other(
            "champion.search",
            "is not supported by a network loop yet: its data runs play the compiled-in search \
             constants; remove it",
        ));
    }
    let network_only = [
        ("champion.net", c.net.is_some()),
        ("champion.data", c.data.is_some()),
    ];
    if let (None, Some((key, _))) = (&network, network_only.iter().find(|(_, set)| *set)) {
        return Err(doc.other(key, "belongs to a network loop: add `model = \"network\"`"));
    }
    Ok(network)
}

/// `[champion]` and `model`, checked: the champion's keys against the model first, then its
/// required weights file and its table size.
pub(super) fn champion_and_model(
    doc: &Document<'_>,
    f: &mut LoopFile,
) -> Result<(Champion, Option<NetworkStages>), ConfigError> {
    let c = f
        .champion
        .take()
        .ok_or_else(|| doc.missing("champion", "a [champion] table with its weights file"))?;
    let network = network_stages(doc, f, &c)?;
    let weights = c
        .weights
        .ok_or_else(|| doc.missing("champion.weights", "the starting weights file"))?;
    let hash_mb = doc.in_range("champion.hash_mb", c.hash_mb.unwrap_or(16), 1, Some(65_536))?;
    let champion = Champion {
        weights: PathBuf::from(weights),
        search: c.search.map(PathBuf::from),
        hash_mb,
        net: c.net.map(PathBuf::from),
        data: c
            .data
            .unwrap_or_default()
            .into_iter()
            .map(PathBuf::from)
            .collect(),
    };
    Ok((champion, network))
}

/// `output.dir`, by default `results/loop`.
pub(super) fn output_dir_of(output: Option<OutputFile>) -> PathBuf {
    PathBuf::from(
        output
            .and_then(|o| o.dir)
            .unwrap_or_else(|| "results/loop".to_string()),
    )
}

/// `[selfplay]` and `[tune]`, taken out of the file: required by the Texel loop (which refuses
/// the network loop's stages); a network loop refuses them (and `[spsa]`) and has empty ones.
pub(super) fn texel_stage_tables(
    doc: &Document<'_>,
    f: &mut LoopFile,
    network: bool,
) -> Result<(toml::Table, toml::Table), ConfigError> {
    if network {
        refuse_texel_stages(doc, &f.selfplay, &f.tune, &f.spsa)?;
        return Ok((toml::Table::new(), toml::Table::new()));
    }
    refuse_network_stages(doc, &f.datagen, &f.train)?;
    let selfplay = f
        .selfplay
        .take()
        .ok_or_else(|| doc.missing("selfplay", "a [selfplay] match table"))?;
    let tune = f
        .tune
        .take()
        .ok_or_else(|| doc.missing("tune", "a [tune] tuner table"))?;
    Ok((selfplay, tune))
}

/// Refuses, in the stage tables, the keys the loop sets and the keys it does not support.
pub(super) fn refuse_stage_keys(
    doc: &Document<'_>,
    selfplay: &toml::Table,
    tune: &toml::Table,
    gate: &toml::Table,
    anchor: Option<&toml::Table>,
    spsa: Option<&toml::Table>,
) -> Result<(), ConfigError> {
    for (stage, table) in [("selfplay", selfplay), ("tune", tune), ("gate", gate)]
        .into_iter()
        .chain(anchor.map(|a| ("anchor", a)))
        .chain(spsa.map(|s| ("spsa", s)))
    {
        refuse_loop_keys(doc, stage, table)?;
    }
    for (stage, key, why) in UNSUPPORTED {
        let table = match *stage {
            "tune" => Some(tune),
            _ => None,
        };
        if table.is_some_and(|t| t.contains_key(*key)) {
            return Err(doc.other(&format!("{stage}.{key}"), why));
        }
    }
    Ok(())
}

/// The loop-only keys' values, taken out of the stage tables.
pub(super) struct LoopCounts {
    pub(super) window: u64,
    pub(super) wave_pairs: u64,
    pub(super) anchor_every: u64,
    pub(super) anchor_ratings: Vec<f64>,
    pub(super) spsa_every: u64,
}

/// Takes the loop-only keys out of the stage tables, checked, before the stages' own readers
/// see them: `tune.window` (a network loop's window is its stages'), `gate.wave_pairs`,
/// `anchor.every` with the panel's ratings, and `spsa.every`.
pub(super) fn take_loop_counts(
    doc: &Document<'_>,
    network: Option<&NetworkStages>,
    tune: &mut toml::Table,
    gate: &mut toml::Table,
    anchor: Option<&mut toml::Table>,
    spsa: Option<&mut toml::Table>,
) -> Result<LoopCounts, ConfigError> {
    let window = match network {
        Some(stages) => u64::from(stages.window),
        None => take_count(doc, tune, "tune", "window", 3, 1_000)?,
    };
    let wave_pairs = take_count(doc, gate, "gate", "wave_pairs", 20, 1_000_000)?;
    let (anchor_every, anchor_ratings) = match anchor {
        Some(table) => (
            take_count(doc, table, "anchor", "every", 1, 100_000)?,
            take_ratings(doc, table)?,
        ),
        None => (0, Vec::new()),
    };
    let spsa_every = match spsa {
        Some(table) => take_count(doc, table, "spsa", "every", 1, 100_000)?,
        None => 0,
    };
    Ok(LoopCounts {
        window,
        wave_pairs,
        anchor_every,
        anchor_ratings,
        spsa_every,
    })
}

/// Refuses the Texel loop's stage tables in a network loop.
pub(super) fn refuse_texel_stages(
    doc: &Document<'_>,
    selfplay: &Option<toml::Table>,
    tune: &Option<toml::Table>,
    spsa: &Option<toml::Table>,
) -> Result<(), ConfigError> {
    let found = [("selfplay", selfplay), ("tune", tune), ("spsa", spsa)]
        .into_iter()
        .find(|(_, table)| table.is_some());
    match found {
        Some((stage, _)) => Err(doc.other(
            stage,
            "is a stage of the Texel loop: a network loop (`model = \"network\"`) generates \
             data with [datagen] and trains with [train]; remove the table",
        )),
        None => Ok(()),
    }
}

/// Refuses the network loop's stage tables in a Texel loop.
pub(super) fn refuse_network_stages(
    doc: &Document<'_>,
    datagen: &Option<toml::Table>,
    train: &Option<toml::Table>,
) -> Result<(), ConfigError> {
    let found = [("datagen", datagen), ("train", train)]
        .into_iter()
        .find(|(_, table)| table.is_some());
    match found {
        Some((stage, _)) => Err(doc.other(
            stage,
            "is a stage of the network loop: add `model = \"network\"` (the Texel loop \
             plays [selfplay] and tunes with [tune])",
        )),
        None => Ok(()),
    }
}

/// `engine[i].rest` -> `engine[i-1].rest` (the anchor panel's own numbering), else None.
pub(super) fn shift_engine_index(key: &str) -> Option<String> {
    let rest = key.strip_prefix("engine[")?;
    let close = rest.find(']')?;
    let index: usize = rest[..close].parse().ok()?;
    let index = index.checked_sub(1)?;
    Some(format!("engine[{index}]{}", &rest[close + 1..]))
}

/// Refuses keys of a stage table that the loop sets.
pub(in crate::ladder) fn refuse_loop_keys(
    doc: &Document<'_>,
    stage: &str,
    table: &toml::Table,
) -> Result<(), ConfigError> {
    let keys = SET_BY_LOOP
        .iter()
        .find(|(s, _)| *s == stage)
        .map_or(&[][..], |(_, k)| *k);
    for key in keys {
        let mut here = Some(table);
        let parts: Vec<&str> = key.split('.').collect();
        for (i, part) in parts.iter().enumerate() {
            let Some(value) = here.and_then(|t| t.get(*part)) else {
                break;
            };
            if i + 1 == parts.len() {
                let _ = value;
                return Err(doc.other(
                    &format!("{stage}.{key}"),
                    "is set by the loop for each generation (engines from [champion], seeds from the top-level `seed`, directories under output.dir); remove it",
                ));
            }
            here = value.as_table();
        }
    }
    Ok(())
}

/// Removes a loop-only count key (`tune.window`, say) from a stage table, checked.
pub(in crate::ladder) fn take_count(
    doc: &Document<'_>,
    table: &mut toml::Table,
    stage: &str,
    key: &str,
    default: u64,
    max: u64,
) -> Result<u64, ConfigError> {
    let full = format!("{stage}.{key}");
    match table.remove(key) {
        None => Ok(default),
        Some(toml::Value::Integer(n)) if n >= 1 && n as u64 <= max => Ok(n as u64),
        Some(_) => Err(doc.invalid_value(&full, format!("an integer from 1 to {max}"))),
    }
}

/// Removes `rating` from each `[[anchor.engine]]` table (a loop-only key), checked.
pub(super) fn take_ratings(
    doc: &Document<'_>,
    table: &mut toml::Table,
) -> Result<Vec<f64>, ConfigError> {
    let Some(toml::Value::Array(engines)) = table.get_mut("engine") else {
        return Err(doc.missing(
            "anchor.engine",
            "[[anchor.engine]] tables: the panel the champion plays",
        ));
    };
    let mut ratings = Vec::new();
    for (i, engine) in engines.iter_mut().enumerate() {
        let rating = match engine.as_table_mut().and_then(|t| t.remove("rating")) {
            None => 0.0,
            Some(toml::Value::Integer(n)) => n as f64,
            Some(toml::Value::Float(x)) if x.is_finite() => x,
            Some(_) => {
                return Err(doc.invalid_value(
                    &format!("anchor.engine[{i}].rating"),
                    "a number: the engine's Elo on the scale the ladder reports",
                ))
            }
        };
        ratings.push(rating);
    }
    Ok(ratings)
}

/// Sets `table.a.b = value`, making the tables on the way.
pub(in crate::ladder) fn set(table: &mut toml::Table, path: &[&str], value: toml::Value) {
    let (last, tables) = path.split_last().expect("a non-empty path");
    let mut here = table;
    for part in tables {
        let entry = here
            .entry(part.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        if !entry.is_table() {
            *entry = toml::Value::Table(toml::Table::new());
        }
        here = entry.as_table_mut().expect("just made a table");
    }
    here.insert(last.to_string(), value);
}

pub(in crate::ladder) fn path_value(path: &Path) -> toml::Value {
    toml::Value::String(path.display().to_string())
}

/// Dotted keys and their values as text, arrays by index.
pub(super) fn flatten(prefix: &str, value: &toml::Value, out: &mut BTreeMap<String, String>) {
    let join = |k: &str| {
        if prefix.is_empty() {
            k.to_string()
        } else {
            format!("{prefix}.{k}")
        }
    };
    match value {
        toml::Value::Table(t) => {
            for (k, v) in t {
                flatten(&join(k), v, out);
            }
        }
        toml::Value::Array(items) if items.iter().any(toml::Value::is_table) => {
            for (i, v) in items.iter().enumerate() {
                flatten(&format!("{prefix}[{i}]"), v, out);
            }
        }
        other => {
            out.insert(prefix.to_string(), other.to_string());
        }
    }
}
