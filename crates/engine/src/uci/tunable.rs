//! The search constants of the UCI engine: starting it with a search file (`sparring uci
//! --search FILE`), and, with `--tunable`, every constant as a UCI option (`search.lmr.base`)
//! so that SPSA frameworks (OpenBench, fishtest, `sparring spsa` with an external engine) can
//! set them, plus the OpenBench SPSA input lines for them.
//!
//! Integer constants are `spin` options; real ones are `string` options holding a decimal
//! number, since UCI spins are integers only (OpenBench sends real values as decimals).

use super::UciEngine;
use crate::search::{ParamKind, SearchParams, SEARCH_PARAMS};

/// The prefix of the tunable options' names (the tuner's names for search constants).
const PREFIX: &str = "search.";

impl UciEngine {
    /// Replaces the search constants for later searches (a running search finishes first).
    pub fn set_search_params(&mut self, search: SearchParams) {
        self.finish_search(self.search_waits());
        if let Some(searcher) = self.searcher.as_mut() {
            searcher.set_search_params(search.clone());
        }
        self.search_params = search;
    }

    /// Declares the search constants as UCI options (off by default).
    pub fn set_tunable(&mut self, tunable: bool) {
        self.tunable = tunable;
    }

    /// The search constants in use.
    fn current_search_params(&self) -> SearchParams {
        self.search_params.clone()
    }

    /// The `option` lines of the tunable constants (none unless tunable).
    pub(super) fn declare_tunable(&self) {
        if !self.tunable {
            return;
        }
        let params = self.current_search_params();
        for spec in SEARCH_PARAMS {
            let value = spec.get(&params);
            self.out.line(&match spec.kind {
                ParamKind::Int => format!(
                    "option name {PREFIX}{} type spin default {} min {} max {}",
                    spec.key, value, spec.min, spec.max
                ),
                ParamKind::Float => {
                    format!(
                        "option name {PREFIX}{} type string default {value}",
                        spec.key
                    )
                }
            });
        }
    }

    /// Sets a tunable constant from `setoption` (`name` lower-cased); false when `name` is not
    /// one (or the engine is not tunable), so the caller reports an unknown option.
    pub(super) fn set_tunable_option(&mut self, name: &str, value: &str) -> bool {
        let Some(spec) = name.strip_prefix(PREFIX).and_then(|key| {
            SEARCH_PARAMS
                .iter()
                .find(|s| s.key.eq_ignore_ascii_case(key))
        }) else {
            return false;
        };
        if !self.tunable {
            return false;
        }
        let mut params = self.current_search_params();
        match value.trim().parse::<f64>() {
            Ok(v) if spec.accepts(v) => {
                spec.set_unchecked(&mut params, v);
                self.set_search_params(params);
            }
            _ => self.out.line(&format!(
                "info string bad {PREFIX}{} value '{value}': expected {}",
                spec.key,
                spec.expected()
            )),
        }
        true
    }
}

/// OpenBench's SPSA input lines (`name, int|float, value, min, max, c_end, r_end`) for every
/// search constant of `params`: tuned over [v/2, 2v] (±50 around 0) within the engine's
/// range, with c_end = range/20 (at least 0.5 for integers) and r_end = 0.002, Stockfish's
/// conventions.
pub fn openbench_lines(params: &SearchParams) -> Vec<String> {
    SEARCH_PARAMS
        .iter()
        .map(|spec| {
            let value = spec.get(params);
            let (mut lo, mut hi) = if value > 0.0 {
                (value / 2.0, value * 2.0)
            } else if value < 0.0 {
                (value * 2.0, value / 2.0)
            } else {
                (-50.0, 50.0)
            };
            if spec.kind == ParamKind::Int {
                lo = lo.floor();
                hi = hi.ceil();
            }
            let (lo, hi) = (lo.max(spec.min), hi.min(spec.max));
            let mut c_end = (hi - lo) / 20.0;
            if spec.kind == ParamKind::Int {
                c_end = c_end.max(0.5);
            }
            format!(
                "{PREFIX}{}, {}, {value}, {lo}, {hi}, {}, 0.002",
                spec.key,
                spec.kind.name(),
                (c_end * 1000.0).round() / 1000.0
            )
        })
        .collect()
}
