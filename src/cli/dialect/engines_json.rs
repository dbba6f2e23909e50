//! cutechess-cli's engine configurations (`engines.json` in the working directory, or the file
//! `-engines FILE` names), which `-engine conf=NAME` takes an engine from: `name`, `command`,
//! `workingDirectory`, `protocol`, `initStrings`, `options`, `stderrFile`,
//! `timeoutScaleFactor`, `whitepov`, `ponder`, `validateClaims`, `debug` and `restart`, as
//! cutechess writes them and chess-tuning-tools generates them.

use super::tokens::usage_error;
use crate::cli::UsageError;
use serde::Deserialize;
use std::path::Path;

/// UCI options as (name, value), in the order they are sent.
type Options = Vec<(String, String)>;

/// One engine of the file. Keys sparring has no use for (`variants`, ...) are ignored, as
/// cutechess ignores keys it does not know.
#[derive(Clone, Debug, Deserialize)]
pub(super) struct JsonEngine {
    pub(super) name: String,
    pub(super) command: String,
    #[serde(rename = "workingDirectory", default)]
    pub(super) working_directory: Option<String>,
    #[serde(default)]
    pub(super) protocol: Option<String>,
    #[serde(rename = "initStrings", default)]
    pub(super) init_strings: Vec<String>,
    #[serde(default)]
    pub(super) options: Vec<JsonOption>,
    #[serde(rename = "stderrFile", default)]
    stderr_file: Option<String>,
    #[serde(rename = "timeoutScaleFactor", default)]
    timeout_scale: Option<f64>,
    #[serde(default)]
    whitepov: Option<bool>,
    #[serde(default)]
    ponder: Option<bool>,
    #[serde(rename = "validateClaims", default)]
    validate_claims: Option<bool>,
    #[serde(default)]
    debug: Option<bool>,
    #[serde(default)]
    restart: Option<String>,
}

/// An `options` entry: cutechess writes the option's name and its value (a string, a number or
/// a boolean), besides its type and range.
#[derive(Clone, Debug, Deserialize)]
pub(super) struct JsonOption {
    pub(super) name: String,
    pub(super) value: serde_json::Value,
}

impl JsonEngine {
    /// The engine's settings as `-engine` keys (`stderr`, `tscale`, `whitepov`, `ponder`,
    /// `trust`, `debug`, `restart`; flags with an empty value), as cutechess reads them: an
    /// empty `stderrFile` is none, `timeoutScaleFactor` is held to cutechess's bounds (and 1
    /// is none), `validateClaims: false` is `trust`.
    pub(super) fn keys(&self) -> Vec<(&'static str, String)> {
        let mut keys = Vec::new();
        if let Some(path) = self.stderr_file.as_ref().filter(|p| !p.is_empty()) {
            keys.push(("stderr", path.clone()));
        }
        if let Some(factor) = self.timeout_scale.filter(|f| *f != 1.0) {
            let (min, max) = sparring::arena::engine::TIMEOUT_SCALE_RANGE;
            keys.push(("tscale", factor.clamp(min, max).to_string()));
        }
        let flags = [
            ("whitepov", self.whitepov == Some(true)),
            ("ponder", self.ponder == Some(true)),
            ("trust", self.validate_claims == Some(false)),
            ("debug", self.debug == Some(true)),
        ];
        keys.extend(
            flags
                .into_iter()
                .filter(|(_, on)| *on)
                .map(|(k, _)| (k, String::new())),
        );
        if let Some(mode) = &self.restart {
            keys.push(("restart", mode.clone()));
        }
        keys
    }

    /// The UCI options the engine gets, and the lines it is sent at start-up: `options` first,
    /// then `initStrings`' `setoption name X value Y` lines as options (written after the
    /// handshake, so they win). `uci` is skipped (sparring sends it); any other init string is
    /// sent as an `initstr` line, before the protocol starts, as cutechess sends it.
    pub(super) fn uci_options(&self, file: &Path) -> Result<(Options, Vec<String>), UsageError> {
        let mut options = Vec::new();
        for o in &self.options {
            let value = match &o.value {
                serde_json::Value::String(s) => s.clone(),
                serde_json::Value::Bool(b) => b.to_string(),
                serde_json::Value::Number(n) => n.to_string(),
                other => {
                    return Err(usage_error(format!(
                        "{}: engine {:?}: option {:?}: value {other} is not a string, number or boolean",
                        file.display(),
                        self.name,
                        o.name
                    )))
                }
            };
            options.push((o.name.clone(), value));
        }
        let mut init = Vec::new();
        for line in self.init_strings.iter().flat_map(|s| s.lines()) {
            let line = line.trim();
            if line == "uci" || line.is_empty() {
                continue;
            }
            let setting = line
                .strip_prefix("setoption name ")
                .and_then(|rest| rest.split_once(" value "));
            match setting {
                Some((name, value)) => options.push((name.trim().to_string(), value.to_string())),
                None => init.push(line.to_string()),
            }
        }
        Ok((options, init))
    }
}

/// Reads the engine configurations of `file`; a bad file is named with the line and column.
pub(super) fn load(file: &Path, option: &str) -> Result<Vec<JsonEngine>, UsageError> {
    let text = std::fs::read_to_string(file).map_err(|e| {
        usage_error(format!(
            "{option}: {}: cannot read the engine configurations: {e}",
            file.display()
        ))
    })?;
    serde_json::from_str(&text).map_err(|e| {
        usage_error(format!(
            "{}: line {}, column {}: not a cutechess engine list: {e}",
            file.display(),
            e.line(),
            e.column()
        ))
    })
}
