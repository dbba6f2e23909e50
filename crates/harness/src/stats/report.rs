//! Ordered `key: value` reports for the `sparring stats` command. Every report
//! of one kind has the same keys; values that cannot be computed read `n/a`.

use super::{EloEstimate, Pentanomial, SprtParams, Wdl};

/// Report for single-game counts, optionally with an SPRT verdict.
pub fn report_wdl(wdl: Wdl, sprt: Option<&SprtParams>) -> Vec<(String, String)> {
    let mut out = vec![
        pair("games", wdl.games()),
        pair("wins", wdl.wins),
        pair("draws", wdl.draws),
        pair("losses", wdl.losses),
    ];
    push_estimate(&mut out, wdl.estimate());
    if let Some(params) = sprt {
        push_sprt(&mut out, params, Ok(params.llr_wdl(wdl)));
    }
    out
}

/// Report for game-pair counts, optionally with an SPRT verdict.
pub fn report_ptnml(p: Pentanomial, sprt: Option<&SprtParams>) -> Vec<(String, String)> {
    let mut out = vec![
        pair("games", p.games()),
        pair("pairs", p.pairs()),
        pair("ll", p.ll),
        pair("ld", p.ld),
        pair("dd", p.dd),
        pair("wd", p.wd),
        pair("ww", p.ww),
    ];
    push_estimate(&mut out, p.estimate());
    out.push(pair("pairs_ratio", number(p.pairs_ratio(), 2)));
    if let Some(params) = sprt {
        push_sprt(
            &mut out,
            params,
            params.llr_ptnml(p).map_err(|e| e.to_string()),
        );
    }
    out
}

fn push_estimate(out: &mut Vec<(String, String)>, est: Option<EloEstimate>) {
    let get = |f: fn(&EloEstimate) -> f64| est.as_ref().map(f);
    out.push(pair("score", number(get(|e| e.score), 4)));
    out.push(pair("elo", number(get(|e| e.elo), 2)));
    out.push(pair("elo_error", number(get(|e| e.elo_error), 2)));
    out.push(pair("nelo", number(get(|e| e.nelo), 2)));
    out.push(pair("nelo_error", number(get(|e| e.nelo_error), 2)));
    out.push(pair("los", percent(get(|e| e.los))));
    out.push(pair("draw_ratio", percent(get(|e| e.draw_ratio))));
}

fn push_sprt(out: &mut Vec<(String, String)>, params: &SprtParams, llr: Result<f64, String>) {
    out.push(pair("sprt_model", params.model()));
    out.push(pair("elo0", fixed(params.elo0(), 2)));
    out.push(pair("elo1", fixed(params.elo1(), 2)));
    out.push(pair("alpha", params.alpha()));
    out.push(pair("beta", params.beta()));
    out.push(pair("llr", number(llr.as_ref().ok().copied(), 2)));
    out.push(pair("lower_bound", fixed(params.lower_bound(), 2)));
    out.push(pair("upper_bound", fixed(params.upper_bound(), 2)));
    let decision = match llr {
        Ok(llr) => params.decision(llr).to_string(),
        Err(why) => format!("n/a ({why})"),
    };
    out.push(pair("decision", decision));
}

fn pair(key: &str, value: impl ToString) -> (String, String) {
    (key.to_string(), value.to_string())
}

/// Fixed decimals; `inf`/`-inf` for unbounded values, `n/a` for missing ones.
fn number(value: Option<f64>, decimals: usize) -> String {
    match value {
        Some(v) if !v.is_nan() => fixed(v, decimals),
        _ => "n/a".to_string(),
    }
}

fn percent(value: Option<f64>) -> String {
    match value {
        Some(v) if !v.is_nan() => format!("{}%", fixed(100.0 * v, 2)),
        _ => "n/a".to_string(),
    }
}

/// `value` with `decimals` decimals, never `-0.00`: a negative value that rounds to zero (or a
/// negative zero) prints without its sign.
pub fn fixed(value: f64, decimals: usize) -> String {
    let text = format!("{value:.decimals$}");
    match text.strip_prefix('-') {
        Some(magnitude) if magnitude.bytes().all(|b| b == b'0' || b == b'.') => {
            magnitude.to_string()
        }
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::super::SprtModel;
    use super::*;

    fn keys(report: &[(String, String)]) -> Vec<&str> {
        report.iter().map(|(k, _)| k.as_str()).collect()
    }

    fn value<'a>(report: &'a [(String, String)], key: &str) -> &'a str {
        &report.iter().find(|(k, _)| k == key).unwrap().1
    }

    #[test]
    fn wdl_report_has_fixed_keys_in_order() {
        let sprt = SprtParams::new(0.0, 2.0, 0.05, 0.05, SprtModel::Normalized).unwrap();
        let r = report_wdl(Wdl::new(136, 111, 96), Some(&sprt));
        assert_eq!(
            keys(&r),
            [
                "games",
                "wins",
                "draws",
                "losses",
                "score",
                "elo",
                "elo_error",
                "nelo",
                "nelo_error",
                "los",
                "draw_ratio",
                "sprt_model",
                "elo0",
                "elo1",
                "alpha",
                "beta",
                "llr",
                "lower_bound",
                "upper_bound",
                "decision"
            ]
        );
        // Values from fastchess app/tests/elo_test.cpp "EloWDL 2".
        assert_eq!(value(&r, "games"), "343");
        assert_eq!(value(&r, "elo"), "40.70");
        assert_eq!(value(&r, "elo_error"), "30.43");
        assert_eq!(value(&r, "los"), "99.60%");
        assert_eq!(value(&r, "lower_bound"), "-2.94");
        assert_eq!(value(&r, "upper_bound"), "2.94");
        assert_eq!(value(&r, "sprt_model"), "normalized");
        assert_eq!(value(&r, "decision"), "continue");
        assert_eq!(keys(&report_wdl(Wdl::default(), None)).len(), 11);
    }

    #[test]
    fn empty_and_one_sided_reports_are_readable() {
        let r = report_wdl(Wdl::default(), None);
        assert_eq!(value(&r, "elo"), "n/a");
        assert_eq!(value(&r, "los"), "n/a");
        let r = report_wdl(Wdl::new(5, 0, 0), None);
        assert_eq!(value(&r, "elo"), "inf");
        assert_eq!(value(&r, "los"), "100.00%");
        let r = report_ptnml(Pentanomial::new(3, 0, 0, 0, 0), None);
        assert_eq!(value(&r, "elo"), "-inf");
        assert_eq!(value(&r, "pairs_ratio"), "0.00");
    }

    #[test]
    fn figures_never_print_negative_zero() {
        assert_eq!(fixed(-0.0, 2), "0.00");
        assert_eq!(fixed(-0.004, 2), "0.00");
        assert_eq!(fixed(-0.005_1, 2), "-0.01");
        assert_eq!(fixed(0.0, 0), "0");
        assert_eq!(fixed(-0.4, 0), "0");
        assert_eq!(fixed(f64::NEG_INFINITY, 2), "-inf");
        // An even score: Elo and nElo are exactly zero, whatever sign the arithmetic leaves.
        for r in [
            report_wdl(Wdl::new(10, 5, 10), None),
            report_wdl(Wdl::new(0, 7, 0), None),
            report_ptnml(Pentanomial::new(3, 4, 5, 4, 3), None),
        ] {
            for (key, value) in &r {
                assert!(!value.starts_with("-0.00"), "{key}: {value}");
            }
            assert_eq!(value(&r, "elo"), "0.00");
        }
        let sprt = SprtParams::new(-0.001, 2.0, 0.05, 0.05, SprtModel::Logistic).unwrap();
        let r = report_wdl(Wdl::new(10, 5, 10), Some(&sprt));
        assert_eq!(value(&r, "elo0"), "0.00");
    }

    #[test]
    fn ptnml_report_includes_pairs_and_sprt() {
        let sprt = SprtParams::new(-1.75, 0.25, 0.05, 0.05, SprtModel::Normalized).unwrap();
        // Stockfish commit c85637b3f (fishtest): LLR 2.93 with these pairs.
        let r = report_ptnml(Pentanomial::new(134, 5897, 13530, 6129, 118), Some(&sprt));
        assert_eq!(value(&r, "games"), "51616");
        assert_eq!(value(&r, "pairs"), "25808");
        assert_eq!(value(&r, "llr"), "2.93");
        assert_eq!(value(&r, "decision"), "continue");
        assert_eq!(
            keys(&r)[..7],
            ["games", "pairs", "ll", "ld", "dd", "wd", "ww"]
        );

        let bayes = SprtParams::new(0.0, 5.0, 0.05, 0.05, SprtModel::BayesElo).unwrap();
        let r = report_ptnml(Pentanomial::new(1, 2, 3, 4, 5), Some(&bayes));
        assert_eq!(value(&r, "llr"), "n/a");
        assert!(value(&r, "decision").starts_with("n/a (the BayesElo"));
    }
}
