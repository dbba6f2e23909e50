//! The names the tuner gives parameters, shared by the search file and the weights file: a
//! search constant is `search.<key>` (`search.lmr.base`), an evaluation weight is its name in
//! `EvalParams` plus the phase (`material.knight.mg`, `pst.knight.e4.eg`, `tempo.mg`). A prefix
//! at a dot names a whole group (`search`, `search.lmr`, `pst.knight`, `material.mg`). Values
//! are read and written through `SearchParams` and `EvalParams`, the same code the engine uses.

use crate::eval::{EvalParams, MAX_WEIGHT};
use crate::search::{ParamKind, SearchParamSpec, SearchParams, SEARCH_PARAMS};

/// The prefix of search parameter names.
pub(crate) const SEARCH_PREFIX: &str = "search.";

/// Middlegame or endgame half of an evaluation weight.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Phase {
    /// The `mg` value.
    Mg,
    /// The `eg` value.
    Eg,
}

impl Phase {
    /// `mg` or `eg`.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Mg => "mg",
            Phase::Eg => "eg",
        }
    }
}

/// What a tuned parameter is.
#[derive(Copy, Clone, Debug)]
pub enum Target {
    /// A search constant.
    Search(&'static SearchParamSpec),
    /// One half of evaluation weight `index` (see `EvalParams::name`).
    Weight {
        /// The weight's index in `EvalParams`.
        index: usize,
        /// Which half.
        phase: Phase,
    },
}

impl Target {
    /// Integer or real: weights are integers, search constants say.
    pub fn kind(&self) -> ParamKind {
        match self {
            Target::Search(spec) => spec.kind,
            Target::Weight { .. } => ParamKind::Int,
        }
    }

    /// The range the engine accepts for this parameter.
    pub fn limits(&self) -> (f64, f64) {
        match self {
            Target::Search(spec) => (spec.min, spec.max),
            Target::Weight { .. } => (-(MAX_WEIGHT as f64), MAX_WEIGHT as f64),
        }
    }

    /// The range tuned when the configuration gives none: a search constant's whole range; for
    /// a weight v, [v - w, v + w] with w = max(|v|, 20) (Stockfish's [0, 2v] for v > 0).
    pub(crate) fn natural_range(&self, value: f64) -> (f64, f64) {
        match self {
            Target::Search(spec) => (spec.min, spec.max),
            Target::Weight { .. } => {
                let half = value.abs().max(20.0);
                let (lo, hi) = self.limits();
                ((value - half).max(lo), (value + half).min(hi))
            }
        }
    }
}

/// The built-in engine's tunable values: evaluation weights and search constants.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct EngineParams {
    /// The evaluation weights.
    pub eval: EvalParams,
    /// The search constants.
    pub search: SearchParams,
}

impl EngineParams {
    /// The current value of `target`.
    pub fn get(&self, target: &Target) -> f64 {
        match *target {
            Target::Search(spec) => spec.get(&self.search),
            Target::Weight { index, phase } => {
                let (mg, eg) = self.eval.get(index);
                match phase {
                    Phase::Mg => mg as f64,
                    Phase::Eg => eg as f64,
                }
            }
        }
    }

    /// Sets `target` to `value`, clamped to the engine's limits and rounded to the nearest
    /// integer for integer parameters (callers round stochastically beforehand if they wish).
    pub fn set(&mut self, target: &Target, value: f64) {
        self.set_deferred(target, value);
        self.search.refresh_tables();
    }

    /// Sets every target to its value, as `set` does one (the search's derived tables are
    /// recomputed once).
    pub(crate) fn set_all(&mut self, targets: &[Target], values: &[f64]) {
        for (target, &value) in targets.iter().zip(values) {
            self.set_deferred(target, value);
        }
        self.search.refresh_tables();
    }

    fn set_deferred(&mut self, target: &Target, value: f64) {
        let (lo, hi) = target.limits();
        let value = value.clamp(lo, hi);
        match *target {
            Target::Search(spec) => spec.set_deferred(&mut self.search, value),
            Target::Weight { index, phase } => {
                let (mut mg, mut eg) = self.eval.get(index);
                let v = value.round() as i32;
                match phase {
                    Phase::Mg => mg = v,
                    Phase::Eg => eg = v,
                }
                self.eval.set(index, (mg, eg));
            }
        }
    }
}

/// A named parameter of the built-in engine.
#[derive(Clone, Debug)]
pub struct NamedTarget {
    /// Its full name (`search.lmr.base`, `material.knight.mg`).
    pub name: String,
    /// What it is.
    pub target: Target,
}

/// Whether `name` is `query` or lies under it (`pst.knight` covers `pst.knight.e4.mg`).
fn under(name: &str, query: &str) -> bool {
    name == query
        || (name.len() > query.len()
            && name.starts_with(query)
            && name.as_bytes()[query.len()] == b'.')
}

/// Every search constant by name, in file order.
pub(crate) fn search_targets() -> Vec<NamedTarget> {
    SEARCH_PARAMS
        .iter()
        .map(|spec| NamedTarget {
            name: format!("{SEARCH_PREFIX}{}", spec.key),
            target: Target::Search(spec),
        })
        .collect()
}

/// Every evaluation weight half by name, in layout order (mg before eg of each weight). The
/// pawn table's first and last ranks are left out: no pawn stands there.
pub(crate) fn weight_targets() -> Vec<NamedTarget> {
    let params = EvalParams::zeroed();
    let mut out = Vec::with_capacity(2 * params.len());
    for index in 0..params.len() {
        let name = params.name(index);
        if let Some(square) = name.strip_prefix("pst.pawn.") {
            if square.ends_with('1') || square.ends_with('8') {
                continue;
            }
        }
        for phase in [Phase::Mg, Phase::Eg] {
            out.push(NamedTarget {
                name: format!("{name}.{}", phase.name()),
                target: Target::Weight { index, phase },
            });
        }
    }
    out
}

/// The parameters `query` names: one, or a whole group. A query ending in `.mg` or `.eg` may
/// name a group's halves (`pst.knight.mg`, `material.eg`). None when it names nothing.
pub fn resolve(query: &str) -> Option<Vec<NamedTarget>> {
    let query = query.trim();
    if query.is_empty() {
        return None;
    }
    if query == "search" || query.starts_with(SEARCH_PREFIX) {
        let found: Vec<NamedTarget> = search_targets()
            .into_iter()
            .filter(|t| under(&t.name, query))
            .collect();
        return (!found.is_empty()).then_some(found);
    }
    let mut found: Vec<NamedTarget> = weight_targets()
        .into_iter()
        .filter(|t| under(&t.name, query))
        .collect();
    if found.is_empty() {
        // `material.mg`: the group's middlegame halves.
        for phase in [Phase::Mg, Phase::Eg] {
            let suffix = format!(".{}", phase.name());
            if let Some(group) = query.strip_suffix(&suffix) {
                found = weight_targets()
                    .into_iter()
                    .filter(|t| {
                        matches!(t.target, Target::Weight { phase: p, .. } if p == phase)
                            && under(t.name.strip_suffix(&suffix).unwrap_or(&t.name), group)
                    })
                    .collect();
            }
        }
    }
    (!found.is_empty()).then_some(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(query: &str) -> Vec<String> {
        resolve(query)
            .unwrap_or_default()
            .into_iter()
            .map(|t| t.name)
            .collect()
    }

    #[test]
    fn single_names_and_groups_resolve() {
        assert_eq!(names("search.lmr.base"), ["search.lmr.base"]);
        assert_eq!(names("search.lmr").len(), 8);
        assert_eq!(names("search").len(), SEARCH_PARAMS.len());
        assert_eq!(names("material.knight.mg"), ["material.knight.mg"]);
        assert_eq!(
            names("material.knight"),
            ["material.knight.mg", "material.knight.eg"]
        );
        assert_eq!(names("material.mg").len(), 5);
        assert_eq!(names("material").len(), 10);
        assert_eq!(names("pst.knight.mg").len(), 64);
        assert_eq!(names("pst.pawn").len(), 2 * 48);
        assert_eq!(names("tempo"), ["tempo.mg", "tempo.eg"]);
        // A prefix must end at a dot.
        assert!(names("search.lm").is_empty());
        assert!(names("pieces.rook").is_empty());
        assert!(names("nonsense").is_empty());
        assert!(names("").is_empty());
    }

    #[test]
    fn values_go_through_the_engines_own_parameters() {
        let mut params = EngineParams::default();
        let knight = resolve("material.knight.eg").unwrap()[0].target;
        let index = params.eval.index_of("material.knight").unwrap();
        assert_eq!(params.get(&knight), params.eval.get(index).1 as f64);
        params.set(&knight, 333.6);
        assert_eq!(params.eval.get(index).1, 334);
        let base = resolve("search.lmr.base").unwrap()[0].target;
        params.set(&base, 1.25);
        assert_eq!(params.search.lmr_base, 1.25);
        assert_eq!(params.get(&base), 1.25);
        // Out of the engine's range: clamped.
        let nmp = resolve("search.nmp.base").unwrap()[0].target;
        params.set(&nmp, 99.0);
        assert_eq!(params.search.nmp_base, 32);
        // Setting several at once is setting each in turn (tables included).
        let targets = [base, knight, nmp];
        let mut together = EngineParams::default();
        together.set_all(&targets, &[2.0, 300.0, 4.0]);
        let mut one_by_one = EngineParams::default();
        for (t, v) in targets.iter().zip([2.0, 300.0, 4.0]) {
            one_by_one.set(t, v);
        }
        assert_eq!(together, one_by_one);
        assert_ne!(together.search, SearchParams::default());
    }
}
