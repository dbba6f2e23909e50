//! The UCI options of the engine: `setoption` for Hash, Threads, MultiPV, Move Overhead,
//! Weights, EvalFile, Clear Hash, UCI_Chess960, SyzygyPath and SyzygyProbeLimit (the search constants
//! are in `tunable`).

use super::{UciEngine, MAX_MOVE_OVERHEAD_MS, MAX_MULTIPV};
use crate::board::CastlingNotation;
use crate::eval::{EvalParams, WeightsError};
use crate::nnue::Network;
use crate::search::{SearchTablebases, MAX_PROBE_LIMIT};
use crate::tablebase::Tablebases;
use std::sync::Arc;
use std::time::Duration;

impl UciEngine {
    fn load_weights(&mut self, path: &str) -> Result<(), WeightsError> {
        let params = if is_builtin_weights(path) {
            EvalParams::default()
        } else {
            EvalParams::load(path)?
        };
        self.params = Arc::new(params);
        if let Some(s) = self.searcher.as_mut() {
            s.set_params(self.params.clone());
        }
        Ok(())
    }

    pub(super) fn set_option(&mut self, args: &[&str]) {
        // setoption name <name with spaces> [value <value with spaces>]
        let name_at = args.iter().position(|&t| t == "name");
        let value_at = args.iter().position(|&t| t == "value");
        let Some(name_at) = name_at else {
            self.out
                .line("info string malformed setoption: expected 'name'");
            return;
        };
        let name_end = value_at.unwrap_or(args.len()).max(name_at + 1);
        let name = args[name_at + 1..name_end].join(" ");
        let value = value_at
            .map(|v| args[v + 1..].join(" "))
            .unwrap_or_default();
        match name.to_ascii_lowercase().as_str() {
            "hash" => self.set_hash(&value),
            "threads" => {
                if value != "1" {
                    self.out
                        .line("info string only Threads 1 is supported; keeping 1");
                }
            }
            "multipv" => match value.parse::<usize>() {
                Ok(n) if (1..=MAX_MULTIPV).contains(&n) => self.multipv = n,
                _ => self.out.line(&format!(
                    "info string bad MultiPV value '{value}': expected 1 to {MAX_MULTIPV}"
                )),
            },
            "move overhead" => match value.parse::<u64>() {
                Ok(ms) if ms <= MAX_MOVE_OVERHEAD_MS => {
                    self.move_overhead = Duration::from_millis(ms)
                }
                _ => self.out.line(&format!(
                    "info string bad Move Overhead value '{value}': expected 0 to {MAX_MOVE_OVERHEAD_MS}"
                )),
            },
            // A device or directory would block the engine reading it (/dev/zero never ends).
            "weights"
                if !is_builtin_weights(&value)
                    && std::fs::metadata(&value).is_ok_and(|m| !m.is_file()) =>
            {
                self.out.line(&format!(
                    "info string cannot load weights: {value}: not a file; keeping the current weights"
                ))
            }
            "weights" => {
                if let Err(e) = self.load_weights(&value) {
                    self.out
                        .line(&format!("info string cannot load weights: {e}"));
                }
            }
            "evalfile" => self.set_eval_file(&value),
            "clear hash" => {
                if let Some(s) = self.searcher.as_mut() {
                    s.clear();
                }
            }
            "uci_chess960" => match value.to_ascii_lowercase().as_str() {
                "true" => self.castling = CastlingNotation::Chess960,
                "false" => self.castling = CastlingNotation::Standard,
                _ => self.out.line(&format!(
                    "info string bad UCI_Chess960 value '{value}': expected true or false"
                )),
            },
            "syzygypath" => self.set_syzygy_path(&value),
            "syzygyprobelimit" => match value.parse::<u32>() {
                Ok(n) if n <= MAX_PROBE_LIMIT => {
                    self.probe_limit = n;
                    self.apply_tablebases();
                }
                _ => self.out.line(&format!(
                    "info string bad SyzygyProbeLimit value '{value}': expected 0 to {MAX_PROBE_LIMIT}; keeping {}",
                    self.probe_limit
                )),
            },
            other if self.set_tunable_option(other, &value) => {}
            _ => self
                .out
                .line(&format!("info string unknown option '{name}'")),
        }
    }

    /// Loads the network `value` names (empty or `<default>`: back to the evaluation the engine
    /// started with; `<hce>`: the hand-crafted evaluation); a file that cannot be used is
    /// reported and the evaluation in use kept.
    fn set_eval_file(&mut self, value: &str) {
        let value = value.trim();
        if value.is_empty() || value == "<default>" {
            return self.set_network(self.start_net.clone());
        }
        if value == "<hce>" {
            return self.set_network(None);
        }
        // A device or directory would block the engine reading it (/dev/zero never ends).
        if std::fs::metadata(value).is_ok_and(|m| !m.is_file()) {
            return self.out.line(&format!(
                "info string cannot load EvalFile: {value}: not a file; keeping the current evaluation"
            ));
        }
        match Network::load(std::path::Path::new(value)) {
            Ok(net) => {
                self.out.line(&format!(
                    "info string EvalFile {value}: a (768 -> {})x2 -> 1 network",
                    net.hidden()
                ));
                self.set_network(Some(Arc::new(net)));
            }
            Err(e) => self.out.line(&format!(
                "info string cannot load EvalFile: {e}; keeping the current evaluation"
            )),
        }
    }

    /// A new table of the size asked for; on any failure the old table stays.
    fn set_hash(&mut self, value: &str) {
        let keeping = self.hash_mb;
        let max = self.max_hash_mb;
        let mb = match value.parse::<usize>() {
            Ok(mb) if (1..=max).contains(&mb) => mb,
            _ => {
                return self.out.line(&format!(
                "info string bad Hash value '{value}': expected 1 to {max}; keeping {keeping} MB"
            ))
            }
        };
        let Some(searcher) = self.searcher.as_mut() else {
            return;
        };
        match searcher.try_set_hash_mb(mb) {
            Ok(()) => self.hash_mb = mb,
            Err(e) => self
                .out
                .line(&format!("info string {e}; keeping {keeping} MB")),
        }
    }
}

impl UciEngine {
    /// Loads the tables of `SyzygyPath` (directories separated by ':'); empty or `<empty>`
    /// unloads them. A path that cannot be loaded is reported and leaves no tables in use.
    fn set_syzygy_path(&mut self, value: &str) {
        // The prober holds one set per process: let go of the old one before opening another.
        self.tablebases = None;
        self.apply_tablebases();
        let value = value.trim();
        if value.is_empty() || value == "<empty>" {
            return;
        }
        match Tablebases::open(value) {
            Ok(tables) => {
                self.out.line(&format!(
                    "info string Syzygy tables loaded from {value}: up to {} pieces",
                    tables.max_pieces()
                ));
                self.tablebases = Some(tables);
                self.apply_tablebases();
            }
            Err(e) => self.out.line(&format!(
                "info string cannot load Syzygy tables: {e}; no tablebases in use"
            )),
        }
    }

    /// The tables and probe limit the searcher should use.
    pub(super) fn search_tablebases(&self) -> Option<SearchTablebases> {
        self.tablebases.clone().map(|tables| SearchTablebases {
            tables,
            probe_limit: self.probe_limit,
        })
    }

    /// Gives the searcher the configured tables.
    fn apply_tablebases(&mut self) {
        let tables = self.search_tablebases();
        if let Some(s) = self.searcher.as_mut() {
            s.set_tablebases(tables);
        }
    }
}

/// Whether a `Weights` value names the built-in weights (empty or `<builtin>`).
fn is_builtin_weights(value: &str) -> bool {
    value.is_empty() || value == "<builtin>"
}
