//! cutechess-cli's engine configurations (`engines.json` in the working directory, or the file
//! `-engines FILE` names), which `-engine conf=NAME` takes an engine from: `name`, `command`,
//! `workingDirectory`, `protocol`, `initStrings` and `options`, as cutechess writes them and
//! chess-tuning-tools generates them.

use super::tokens::usage_error;
use crate::cli::UsageError;
use serde::Deserialize;
use std::path::Path;

/// One engine of the file. Keys sparring has no use for (`stderrFile`, `restart`, `ponder`,
/// `whitepov`, ...) are ignored, as cutechess ignores keys it does not know.
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
}

/// An `options` entry: cutechess writes the option's name and its value (a string, a number or
/// a boolean), besides its type and range.
#[derive(Clone, Debug, Deserialize)]
pub(super) struct JsonOption {
    pub(super) name: String,
    pub(super) value: serde_json::Value,
}

impl JsonEngine {
    /// The UCI options the engine gets: `options` first, then `initStrings`' `setoption name X
    /// value Y` lines (written after the handshake, so they win). `uci` is skipped (sparring
    /// sends it); any other init string is refused, as sparring cannot send it truthfully.
    pub(super) fn uci_options(&self, file: &Path) -> Result<Vec<(String, String)>, UsageError> {
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
        for line in &self.init_strings {
            let line = line.trim();
            if line == "uci" || line.is_empty() {
                continue;
            }
            let setting = line
                .strip_prefix("setoption name ")
                .and_then(|rest| rest.split_once(" value "));
            match setting {
                Some((name, value)) => options.push((name.trim().to_string(), value.to_string())),
                None => {
                    return Err(usage_error(format!(
                        "{}: engine {:?}: init string {line:?}: sparring sends `uci` itself and takes `setoption name X value Y` lines; other init strings are not implemented",
                        file.display(),
                        self.name
                    )))
                }
            }
        }
        Ok(options)
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
