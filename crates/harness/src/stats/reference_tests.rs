//! Expected numbers published by other projects, checked to the precision they
//! were printed with. fastchess values are from its doctest suites; fishtest
//! values are the result lines that fishtest printed and Stockfish quoted in
//! commit messages (`LLR`, `Elo ± err LOS`, `nElo ± err`, `Ptnml(0-2)`).

use super::{Pentanomial, SprtModel, SprtParams, Wdl};

/// `|actual - expected| <= tol`, with a readable failure message.
#[track_caller]
fn near(what: &str, actual: f64, expected: f64, tol: f64) {
    assert!(
        (actual - expected).abs() <= tol,
        "{what}: got {actual}, expected {expected} ± {tol}"
    );
}

/// Printed with 2 decimals, so the true value is within half a unit.
const D2: f64 = 0.005 + 1e-9;
/// Printed with 1 decimal.
const D1: f64 = 0.05 + 1e-9;

/// fastchess builds `Stats(wins, losses, draws)`; note the order.
fn fc_wdl(wins: u64, losses: u64, draws: u64) -> Wdl {
    Wdl::new(wins, draws, losses)
}

/// fastchess builds `Stats(ll, ld, wl, dd, wd, ww)`; WL and DD share a bucket here.
fn fc_ptnml(ll: u64, ld: u64, wl: u64, dd: u64, wd: u64, ww: u64) -> Pentanomial {
    Pentanomial::new(ll, ld, wl + dd, wd, ww)
}

/// fastchess stops its MLE iteration at a 1e-4 change, which moves the LLR of
/// its one-sided cases (120.56, 111.82) by ~0.02 from fishtest's converged
/// value; those cases are held to fastchess's own 1% doctest tolerance, the
/// rest to their printed 2 decimals.
fn fastchess_tol(expected: f64) -> f64 {
    if expected.abs() > 100.0 {
        0.01 * expected.abs()
    } else {
        D2
    }
}

fn sprt(elo0: f64, elo1: f64, model: SprtModel) -> SprtParams {
    SprtParams::new(elo0, elo1, 0.05, 0.05, model).unwrap()
}

#[test]
fn fastchess_elo_wdl() {
    // fastchess app/tests/elo_test.cpp "EloWDL 1".
    let e = fc_wdl(76, 89, 123).estimate().unwrap();
    near("nelo", e.nelo, -20.76, D2);
    near("nelo_error", e.nelo_error, 40.13, D2);
    near("los %", 100.0 * e.los, 15.53, D2);
    near("score", e.score, 0.477, 0.0005);

    // fastchess app/tests/elo_test.cpp "EloWDL 2".
    let e = fc_wdl(136, 96, 111).estimate().unwrap();
    near("nelo", e.nelo, 49.77, D2);
    near("nelo_error", e.nelo_error, 36.77, D2);
    near("elo", e.elo, 40.70, D2);
    near("elo_error", e.elo_error, 30.43, D2);
    near("los %", 100.0 * e.los, 99.60, D2);
    near("score", e.score, 0.558, 0.0005);

    // fastchess app/tests/elo_test.cpp "EloWDL 3".
    let e = fc_wdl(34, 356, 0).estimate().unwrap();
    near("nelo", e.nelo, -508.44, D2);
    near("nelo_error", e.nelo_error, 34.48, D2);
    near("score", e.score, 0.087, 0.0005);
}

#[test]
fn fastchess_elo_pentanomial() {
    // fastchess app/tests/elo_test.cpp "EloPentanomial 1".
    let e = fc_ptnml(34, 54, 31, 32, 64, 75).estimate().unwrap();
    near("nelo", e.nelo, 57.94, D2);
    near("nelo_error", e.nelo_error, 28.28, D2);
    near("elo", e.elo, 55.58, D2);
    near("elo_error", e.elo_error, 27.65, D2);
    near("los %", 100.0 * e.los, 100.00, D2);
    near("score", e.score, 0.579, 0.0005);

    // fastchess app/tests/elo_test.cpp "EloPentanomial 2".
    let e = fc_ptnml(332, 433, 457, 41, 333, 334).estimate().unwrap();
    near("nelo", e.nelo, -9.17, D2);
    near("nelo_error", e.nelo_error, 10.96, D2);
    near("elo", e.elo, -8.64, D2);
    near("elo_error", e.elo_error, 10.33, D2);
    near("los %", 100.0 * e.los, 5.05, D2);
    near("score", e.score, 0.488, 0.0005);

    // fastchess app/tests/elo_test.cpp "EloPentanomial 3".
    let e = fc_ptnml(7895, 8757, 5485, 200, 568, 9999)
        .estimate()
        .unwrap();
    near("nelo", e.nelo, -19.01, D2);
    near("nelo_error", e.nelo_error, 2.65, D2);
    near("elo", e.elo, -21.04, D2);
    near("elo_error", e.elo_error, 2.95, D2);
    near("los %", 100.0 * e.los, 0.00, D2);
    near("score", e.score, 0.470, 0.0005);
}

#[test]
fn fastchess_llr_trinomial() {
    use SprtModel::*;
    // (case name in fastchess app/tests/sprt_test.cpp, W, L, D, elo0, elo1, model, LLR)
    let cases = [
        (
            "normalized trinomial 1",
            36433,
            36027,
            68692,
            0.0,
            2.0,
            Normalized,
            0.92,
        ),
        (
            "normalized trinomial 2",
            10871,
            10650,
            20431,
            -1.75,
            0.25,
            Normalized,
            2.30,
        ),
        (
            "normalized trinomial 3",
            4250,
            0,
            0,
            0.0,
            10.0,
            Normalized,
            120.56,
        ),
        (
            "logistic trinomial 1",
            21404,
            21184,
            40708,
            0.5,
            2.5,
            Logistic,
            -1.57,
        ),
        (
            "logistic trinomial 2",
            57433,
            57030,
            106593,
            0.0,
            2.0,
            Logistic,
            -2.59,
        ),
        (
            "bayesian trinomial 1",
            68965,
            68526,
            128429,
            0.0,
            2.0,
            BayesElo,
            -1.26,
        ),
        (
            "bayesian trinomial 2",
            21629,
            21484,
            41111,
            0.5,
            2.5,
            BayesElo,
            -1.13,
        ),
    ];
    for (name, w, l, d, elo0, elo1, model, llr) in cases {
        let got = sprt(elo0, elo1, model).llr_wdl(fc_wdl(w, l, d));
        near(name, got, llr, fastchess_tol(llr));
    }
}

#[test]
fn fastchess_llr_pentanomial() {
    use SprtModel::*;
    // (case name in fastchess app/tests/sprt_test.cpp, Stats(LL, LD, WL, DD, WD, WW), elo0, elo1, model, LLR)
    let cases = [
        (
            "normalized pentanomial 1",
            [365, 16618, 36029, 200, 16974, 390],
            0.0,
            2.0,
            Normalized,
            2.25,
        ),
        (
            "normalized pentanomial 2",
            [127, 4883, 10311, 401, 5150, 104],
            -1.75,
            0.25,
            Normalized,
            3.01,
        ),
        (
            "normalized pentanomial 3",
            [0, 0, 0, 0, 0, 5550],
            0.0,
            5.0,
            Normalized,
            111.82,
        ),
        (
            "logistic pentanomial 1",
            [223, 9863, 20279, 1000, 10037, 246],
            0.5,
            2.5,
            Logistic,
            -3.07,
        ),
        (
            "logistic pentanomial 2",
            [871, 26175, 55003, 980, 26678, 821],
            0.0,
            2.0,
            Logistic,
            -4.98,
        ),
    ];
    for (name, [ll, ld, wl, dd, wd, ww], elo0, elo1, model, llr) in cases {
        let got = sprt(elo0, elo1, model)
            .llr_ptnml(fc_ptnml(ll, ld, wl, dd, wd, ww))
            .unwrap();
        near(name, got, llr, fastchess_tol(llr));
    }
}

#[test]
fn fishtest_llr_normalized_pentanomial() {
    // fishtest SPRT results quoted in Stockfish commit messages:
    // "LLR: x (-2.94,2.94) <elo0,elo1>" with "Ptnml(0-2): LL, LD, DD, WD, WW".
    let cases = [
        (
            "Stockfish c85637b3f STC",
            [134, 5897, 13530, 6129, 118],
            -1.75,
            0.25,
            2.93,
        ),
        (
            "Stockfish c85637b3f LTC",
            [178, 43099, 113790, 42954, 169],
            -1.75,
            0.25,
            2.97,
        ),
        (
            "Stockfish b52f01471",
            [1721, 77704, 208246, 77189, 1732],
            -1.75,
            0.25,
            3.19,
        ),
        (
            "Stockfish 218c74ec4 STC",
            [372, 17511, 39320, 17934, 399],
            0.0,
            2.0,
            2.93,
        ),
        (
            "Stockfish 218c74ec4 LTC",
            [39, 11353, 31686, 11822, 33],
            0.5,
            2.5,
            2.96,
        ),
        (
            "Stockfish c5aef2bf1",
            [7, 7001, 27083, 7145, 4],
            -1.75,
            0.25,
            2.94,
        ),
    ];
    for (name, [ll, ld, dd, wd, ww], elo0, elo1, llr) in cases {
        let params = sprt(elo0, elo1, SprtModel::Normalized);
        let got = params
            .llr_ptnml(Pentanomial::new(ll, ld, dd, wd, ww))
            .unwrap();
        near(name, got, llr, D2);
        near("lower bound", params.lower_bound(), -2.94, D2);
        near("upper bound", params.upper_bound(), 2.94, D2);
    }
}

#[test]
fn fishtest_elo_pentanomial() {
    // fishtest fixed-games results quoted in Stockfish commit messages:
    // "Elo: e ± err (95%) LOS: l%" and "nElo: n ± err (95%) PairsRatio: r".
    let cases = [
        (
            "Stockfish a12dc6cc1",
            [143, 6697, 14452, 6415, 164],
            -1.50,
            1.5,
            2.3,
            -2.95,
            2.9,
            0.96,
        ),
        (
            "Stockfish 69a01b88f",
            [154, 6440, 16053, 7148, 205],
            4.69,
            1.4,
            100.0,
            9.38,
            2.8,
            1.12,
        ),
        (
            "Stockfish 3f1835239",
            [0, 148, 4694, 158, 0],
            0.35,
            1.2,
            71.6,
            1.99,
            6.8,
            1.07,
        ),
        (
            "Stockfish 85f87649b",
            [1, 137, 4659, 203, 0],
            2.22,
            1.3,
            100.0,
            12.00,
            6.8,
            1.47,
        ),
        (
            "Stockfish 00b1540e0",
            [166, 6959, 15527, 6991, 163],
            0.15,
            1.4,
            58.3,
            0.30,
            2.8,
            1.00,
        ),
        (
            "Stockfish b5f11085d",
            [55, 2365, 5182, 2349, 49],
            -0.49,
            2.4,
            34.8,
            -0.96,
            4.8,
            0.99,
        ),
    ];
    for (name, [ll, ld, dd, wd, ww], elo, elo_err, los, nelo, nelo_err, ratio) in cases {
        let p = Pentanomial::new(ll, ld, dd, wd, ww);
        let e = p.estimate().unwrap();
        near(name, e.elo, elo, D2);
        near(name, e.elo_error, elo_err, D1);
        near(name, 100.0 * e.los, los, D1);
        near(name, e.nelo, nelo, D2);
        near(name, e.nelo_error, nelo_err, D1);
        near(name, p.pairs_ratio().unwrap(), ratio, D2);
    }
}

#[test]
// A table of reference values from fishtest, one row per case: splitting it would hide nothing.
#[allow(clippy::too_many_lines)]
fn fishtest_reference_implementation() {
    // Full-precision values from running fishtest's server/fishtest/stats/LLRcalc.py
    // and stat_util.py (commit b8eecff2, scipy 1.17) on the inputs below.
    use SprtModel::*;
    let tight = |what: &str, got: f64, want: f64| near(what, got, want, 1e-9 * want.abs().max(1.0));

    let wdl_cases = [
        (
            Wdl::new(4250, 0, 0),
            0.0,
            10.0,
            Normalized,
            120.548_267_741_203_52,
        ),
        (
            Wdl::new(36433, 68692, 36027),
            0.0,
            2.0,
            Normalized,
            0.923_293_450_945_733_6,
        ),
        (
            Wdl::new(10871, 20431, 10650),
            -1.75,
            0.25,
            Normalized,
            2.297_500_407_106_383,
        ),
        (
            Wdl::new(21404, 40708, 21184),
            0.5,
            2.5,
            Logistic,
            -1.571_888_792_694_338_1,
        ),
        (
            Wdl::new(57433, 106593, 57030),
            0.0,
            2.0,
            Logistic,
            -2.593_024_163_515_815,
        ),
        (
            Wdl::new(68965, 128429, 68526),
            0.0,
            2.0,
            BayesElo,
            -1.262_155_889_237_699_4,
        ),
        (
            Wdl::new(21629, 41111, 21484),
            0.5,
            2.5,
            BayesElo,
            -1.130_642_458_928_772_2,
        ),
    ];
    for (wdl, elo0, elo1, model, llr) in wdl_cases {
        tight(
            &format!("{model} {wdl}"),
            sprt(elo0, elo1, model).llr_wdl(wdl),
            llr,
        );
    }

    let ptnml_cases = [
        (
            [0, 0, 0, 0, 5550],
            0.0,
            5.0,
            Normalized,
            111.797_555_086_714_65,
        ),
        (
            [0, 0, 0, 0, 5550],
            0.0,
            5.0,
            Logistic,
            79.296_251_147_116_68,
        ),
        (
            [365, 16618, 36229, 16974, 390],
            0.0,
            2.0,
            Normalized,
            2.250_367_703_548_933,
        ),
        (
            [127, 4883, 10712, 5150, 104],
            -1.75,
            0.25,
            Normalized,
            3.010_154_196_606_051,
        ),
        (
            [134, 5897, 13530, 6129, 118],
            -1.75,
            0.25,
            Normalized,
            2.932_265_498_463_918_3,
        ),
        (
            [223, 9863, 21279, 10037, 246],
            0.5,
            2.5,
            Logistic,
            -3.074_126_439_589_081_3,
        ),
        (
            [871, 26175, 55983, 26678, 821],
            0.0,
            2.0,
            Logistic,
            -4.978_672_863_444_156,
        ),
    ];
    for ([ll, ld, dd, wd, ww], elo0, elo1, model, llr) in ptnml_cases {
        let p = Pentanomial::new(ll, ld, dd, wd, ww);
        tight(
            &format!("{model} {p}"),
            sprt(elo0, elo1, model).llr_ptnml(p).unwrap(),
            llr,
        );
    }

    // stat_util.get_elo: (elo, elo95, LOS). Only inputs without empty buckets,
    // since fishtest regularizes empty buckets to 1e-3 before estimating.
    let wdl = Wdl::new(76, 123, 89).estimate().unwrap();
    tight("elo", wdl.elo, -15.693_520_705_432_237);
    tight("elo95", wdl.elo_error, 30.458_000_716_980_45);
    tight("los", wdl.los, 0.155_326_434_927_498_3);
    let wdl = Wdl::new(136, 111, 96).estimate().unwrap();
    tight("elo", wdl.elo, 40.702_458_186_527_075);
    tight("elo95", wdl.elo_error, 30.427_217_943_600_99);
    tight("los", wdl.los, 0.996_010_235_733_497_2);
    let p = Pentanomial::new(34, 54, 63, 64, 75).estimate().unwrap();
    tight("elo", p.elo, 55.579_780_420_445_88);
    tight("elo95", p.elo_error, 27.653_429_506_393_45);
    tight("los", p.los, 0.999_970_393_008_431_3);
    let p = Pentanomial::new(7895, 8757, 5685, 568, 9999)
        .estimate()
        .unwrap();
    tight("elo", p.elo, -21.043_520_578_172_86);
    tight("elo95", p.elo_error, 2.945_280_868_527_817);
    near("los", p.los, 4.548_721_049_101_715e-45, 1e-9 * 4.55e-45);
}
