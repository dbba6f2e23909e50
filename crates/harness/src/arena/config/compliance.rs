//! The `[compliance]` table: fastchess's engine checks and the options fishtest's worker line
//! passes with them (`-check-mate-pvs`, `-testEnv`, `-crc32 pgn=true`, `-use-affinity`,
//! `-show-latency`). Every key is optional; the defaults are fastchess's.
//!
//! ```toml
//! [compliance]
//! mate_pvs = true          # -check-mate-pvs (default false)
//! warning_lines = true     # print fastchess's `Warning; ...` lines (the fastchess dialect's)
//! one_line = true          # -testEnv: a warning's parts joined by " :: " on one line
//! crc32 = true             # -crc32 pgn=true: `File <pgn> has CRC32: 0x...` after each game
//! pgn_label = "games.pgn"  # the PGN's name in that line (default output.pgn_name)
//! latency = true           # -show-latency: `Engine X latency: ...` in the engine log
//! affinity = "0-3,5"       # -use-affinity: one CPU per concurrent game; "auto": every CPU
//! ```

use crate::arena::game::compliance::ComplianceChecks;
use crate::toml_config::{ConfigError, Document};
use serde::{Deserialize, Serialize};

/// What the checks do and what goes with them (`[compliance]`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ComplianceConfig {
    /// `mate_pvs`: check mating PVs (fastchess's `-check-mate-pvs`; off by default there).
    pub mate_pvs: bool,
    /// `warning_lines`: print each warning on the console in fastchess's words, one per
    /// event (the fastchess dialect sets it); otherwise warnings go to the engine log only,
    /// and are counted in the end-of-run table either way.
    pub warning_lines: bool,
    /// `one_line`: fastchess's `-testEnv`: a warning's parts on one line, joined by `" :: "`.
    pub one_line: bool,
    /// `crc32`: after each game is written, the PGN file's CRC32 (`-crc32 pgn=true`).
    pub crc32: bool,
    /// `pgn_label`: the PGN file's name in the CRC32 line (the fastchess dialect: `-pgnout
    /// file=` as given); None: `output.pgn_name`.
    pub pgn_label: Option<String>,
    /// `latency`: each move's latency note in the engine log (`-show-latency`).
    pub latency: bool,
    /// `affinity`: pin each concurrent game's engines to a CPU of their own (`-use-affinity`).
    pub affinity: Option<Affinity>,
}

impl ComplianceConfig {
    /// The checks the arbiter runs.
    pub fn checks(&self) -> ComplianceChecks {
        ComplianceChecks {
            mate_pvs: self.mate_pvs,
            latency: self.latency,
        }
    }
}

/// Which CPUs the concurrent games are pinned to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Affinity {
    /// Every CPU the runner may use, in order (`-use-affinity` without a list).
    Auto,
    /// These CPUs, in this order: game slot i gets the i-th.
    Cpus(Vec<usize>),
}

impl Affinity {
    /// The text form: `auto`, or the list with runs as ranges (`0-3,5`), which
    /// [`parse_cpu_list`] reads back.
    pub fn text(&self) -> String {
        match self {
            Affinity::Auto => "auto".to_string(),
            Affinity::Cpus(cpus) => crate::arena::engine::affinity::cpu_list_text(cpus),
        }
    }
}

/// The most CPUs a list may name, counting repeats: Linux's own limit is 4096 (a longer list,
/// such as `0-4096` repeated, would only fill memory).
pub(super) const MAX_LISTED_CPUS: usize = 4096;

/// Reads fastchess's CPU list: comma-separated numbers and ranges `a-b` with b > a
/// (`0-3,5`), at most [`MAX_LISTED_CPUS`] CPUs in all. None when the text is no such list.
pub fn parse_cpu_list(text: &str) -> Option<Vec<usize>> {
    let mut cpus = Vec::new();
    for item in text.split(',') {
        let number = |t: &str| -> Option<usize> {
            (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
                .then(|| t.parse().ok())
                .flatten()
        };
        match item.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (number(a)?, number(b)?);
                if b <= a || b - a >= MAX_LISTED_CPUS {
                    return None;
                }
                cpus.extend(a..=b);
            }
            None => cpus.push(number(item)?),
        }
        if cpus.len() > MAX_LISTED_CPUS {
            return None;
        }
    }
    Some(cpus)
}

/// `[compliance]` as written.
#[derive(Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct ComplianceFile {
    pub(super) mate_pvs: Option<bool>,
    pub(super) warning_lines: Option<bool>,
    pub(super) one_line: Option<bool>,
    pub(super) crc32: Option<bool>,
    pub(super) pgn_label: Option<String>,
    pub(super) latency: Option<bool>,
    pub(super) affinity: Option<String>,
}

/// Checks `[compliance]`.
pub(super) fn compliance(
    doc: &Document<'_>,
    file: Option<ComplianceFile>,
) -> Result<ComplianceConfig, ConfigError> {
    let f = file.unwrap_or_default();
    let affinity = match f.affinity.as_deref() {
        None => None,
        Some("auto") => Some(Affinity::Auto),
        Some(text) => Some(Affinity::Cpus(parse_cpu_list(text).ok_or_else(|| {
            doc.invalid_value(
                "compliance.affinity",
                "\"auto\" or a CPU list such as \"0-3,5\" (ranges low-high, at most 4096 CPUs)",
            )
        })?)),
    };
    Ok(ComplianceConfig {
        mate_pvs: f.mate_pvs.unwrap_or(false),
        warning_lines: f.warning_lines.unwrap_or(false),
        one_line: f.one_line.unwrap_or(false),
        crc32: f.crc32.unwrap_or(false),
        pgn_label: f.pgn_label,
        latency: f.latency.unwrap_or(false),
        affinity,
    })
}

/// The table `to_toml` writes: None when everything is the default.
pub(super) fn compliance_file(c: &ComplianceConfig) -> Option<ComplianceFile> {
    (c != &ComplianceConfig::default()).then(|| ComplianceFile {
        mate_pvs: c.mate_pvs.then_some(true),
        warning_lines: c.warning_lines.then_some(true),
        one_line: c.one_line.then_some(true),
        crc32: c.crc32.then_some(true),
        pgn_label: c.pgn_label.clone(),
        latency: c.latency.then_some(true),
        affinity: c.affinity.as_ref().map(Affinity::text),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_read_as_fastchess_reads_them() {
        assert_eq!(parse_cpu_list("0-3,5"), Some(vec![0, 1, 2, 3, 5]));
        assert_eq!(parse_cpu_list("3,5,7-9"), Some(vec![3, 5, 7, 8, 9]));
        assert_eq!(parse_cpu_list("1"), Some(vec![1]));
        for bad in [
            "", "3-3", "4-2", "1;2", "1,", "a", "1-", "-1", "0-3x", "0-4096",
        ] {
            assert_eq!(parse_cpu_list(bad), None, "{bad}");
        }
        assert_eq!(parse_cpu_list("0-4095").map(|c| c.len()), Some(4096));
        // Repeats count: a long list of ranges cannot fill memory.
        assert_eq!(parse_cpu_list(&["0-4095"; 3].join(",")), None);
        assert_eq!(parse_cpu_list(&vec!["0"; 5000].join(",")), None);
        let listed = Affinity::Cpus(parse_cpu_list("0-999,1001,3,2").unwrap());
        assert_eq!(listed.text(), "0-999,1001,3,2");
        assert_eq!(
            parse_cpu_list(&listed.text()),
            parse_cpu_list("0-999,1001,3,2")
        );
    }

    #[test]
    fn the_table_reads_and_dumps_back() {
        let text = "[compliance]\nmate_pvs = true\naffinity = \"0-1\"\ncrc32 = true\n";
        let doc = Document::parse(text, "t.toml").unwrap();
        #[derive(Deserialize)]
        struct Wrap {
            compliance: Option<ComplianceFile>,
        }
        let w: Wrap = doc.deserialize().unwrap();
        let c = compliance(&doc, w.compliance).unwrap();
        assert!(c.mate_pvs && c.crc32 && !c.latency);
        assert_eq!(c.affinity, Some(Affinity::Cpus(vec![0, 1])));
        let back = compliance_file(&c).unwrap();
        assert_eq!(back.affinity.as_deref(), Some("0-1"));
        let bad = Document::parse("[compliance]\naffinity = \"2-1\"\n", "t.toml").unwrap();
        let w: Wrap = bad.deserialize().unwrap();
        let err = compliance(&bad, w.compliance).unwrap_err().to_string();
        assert!(err.contains("compliance.affinity"), "{err}");
    }
}
