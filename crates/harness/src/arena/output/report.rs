//! `summary.csv` (one row per pairing), `ranking.csv` (one row per engine), `ratings.csv` (the
//! joint ratings of three or more engines), and the figures of the fastchess results heading. (What is shown while a run goes on is the caller's
//! business: the tournament reports `Event`s.)

use super::pairing::{PairingStats, Standing};
use super::ratings::RATINGS_FILE;
use crate::arena::config::TimeControl;
use crate::stats::{JointRatings, RatingsError, SprtDecision, SprtParams};
use std::path::Path;

/// What the results heading says about an engine: its time control, threads and hash.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineFacts {
    /// The configured name.
    pub name: String,
    /// The control it plays under (its own, or the match's).
    pub time_control: TimeControl,
    /// Its `Threads` option's current value (the built-in engine: 1); None: no such option.
    pub threads: Option<String>,
    /// Its `Hash` option's current value in MB (the built-in engine: its table); None: no such
    /// option.
    pub hash: Option<String>,
}

/// `value` as fmt's `{:.N g}` prints it (N significant digits, trailing zeros dropped,
/// scientific notation for very large or small values).
pub fn general_format(value: f64, digits: usize) -> String {
    if value == 0.0 || !value.is_finite() {
        return if value.is_nan() {
            "nan".to_string()
        } else if value.is_infinite() {
            if value > 0.0 { "inf" } else { "-inf" }.to_string()
        } else {
            "0".to_string()
        };
    }
    let digits = digits.max(1);
    let scientific = format!("{:.*e}", digits - 1, value);
    let (mantissa, exponent) = scientific.split_once('e').expect("Rust's {:e} has an e");
    let exponent: i32 = exponent.parse().expect("an integer exponent");
    let trim = |text: &str| -> String {
        if text.contains('.') {
            text.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            text.to_string()
        }
    };
    if exponent < -4 || exponent >= digits as i32 {
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mantissa), exponent.abs())
    } else {
        let decimals = (digits as i32 - 1 - exponent).max(0) as usize;
        trim(&format!("{value:.decimals$}"))
    }
}

/// A time control as fastchess's results heading prints it: `8+0.08`, `40/60`, `0.5/move`,
/// `10 plies`, `5000 nodes`.
pub(crate) fn fastchess_time_control(tc: &TimeControl) -> String {
    match tc {
        TimeControl::Clock {
            moves,
            base,
            increment,
        } => {
            let moves = moves.map(|m| format!("{m}/")).unwrap_or_default();
            let increment = if increment.is_zero() {
                String::new()
            } else {
                format!("+{}", general_format(increment.as_secs_f64(), 2))
            };
            format!("{moves}{}{increment}", base.as_secs_f64())
        }
        TimeControl::MoveTime(t) => format!("{}/move", t.as_secs_f64()),
        TimeControl::Depth(d) => format!("{d} plies"),
        TimeControl::Nodes(n) => format!("{n} nodes"),
    }
}

/// The part of `Results of A vs B (...)` in parentheses: time control, threads, hash and the
/// book's file name, each given once when both engines agree and as `first - second` when not.
pub fn results_heading(first: &EngineFacts, second: &EngineFacts, book: Option<&str>) -> String {
    let both = |a: String, b: String| if a == b { a } else { format!("{a} - {b}") };
    let threads = |f: &EngineFacts| {
        f.threads
            .as_ref()
            .map_or("NULL".to_string(), |t| format!("{t}t"))
    };
    let hash = |f: &EngineFacts| {
        f.hash
            .as_ref()
            .map_or("NULL".to_string(), |h| format!("{h}MB"))
    };
    let mut text = format!(
        "{}, {}, {}",
        both(
            fastchess_time_control(&first.time_control),
            fastchess_time_control(&second.time_control)
        ),
        both(threads(first), threads(second)),
        both(hash(first), hash(second))
    );
    if let Some(book) = book {
        text.push_str(", ");
        text.push_str(book);
    }
    text
}

/// `ranking.csv`: one row per engine, best first: its Elo against the field (by pairs when
/// `by_pairs`, else by games) and what it did (depth, speed, time, failures).
pub(crate) fn write_ranking(
    dir: &Path,
    standings: &[Standing],
    by_pairs: bool,
) -> std::io::Result<()> {
    let text = ranking_text(standings, by_pairs)?;
    crate::files::write_atomic(&dir.join("ranking.csv"), &text)
}

/// What `ranking.csv` holds for these standings.
pub(crate) fn ranking_text(standings: &[Standing], by_pairs: bool) -> std::io::Result<Vec<u8>> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record([
        "rank",
        "engine",
        "elo",
        "elo_error",
        "nelo",
        "nelo_error",
        "games",
        "wins",
        "draws",
        "losses",
        "score",
        "draw_ratio",
        "pairs",
        "unpaired_games",
        "moves",
        "average_depth",
        "nodes_per_second",
        "average_move_ms",
        "average_time_left_ms",
        "time_forfeits",
        "disconnects",
        "stalls",
        "illegal_moves",
    ])?;
    let num = |v: Option<f64>, decimals: usize| {
        v.filter(|v| !v.is_nan())
            .map_or("n/a".to_string(), |v| crate::stats::fixed(v, decimals))
    };
    let ms = |d: Option<std::time::Duration>| num(d.map(|d| d.as_secs_f64() * 1000.0), 1);
    for (rank, s) in standings.iter().enumerate() {
        let est = s.estimate(by_pairs);
        let f = &s.figures;
        writer.write_record([
            (rank + 1).to_string(),
            s.name.clone(),
            num(est.as_ref().map(|e| e.elo), 2),
            num(est.as_ref().map(|e| e.elo_error), 2),
            num(est.as_ref().map(|e| e.nelo), 2),
            num(est.as_ref().map(|e| e.nelo_error), 2),
            s.wdl.games().to_string(),
            s.wdl.wins.to_string(),
            s.wdl.draws.to_string(),
            s.wdl.losses.to_string(),
            num(s.wdl.score(), 4),
            num(s.draw_ratio(by_pairs), 4),
            s.ptnml.pairs().to_string(),
            s.unpaired_games.to_string(),
            f.moves.to_string(),
            num(f.average_depth(), 2),
            num(f.nodes_per_second(), 0),
            ms(f.average_move_time()),
            ms(f.average_time_left()),
            f.time_forfeits.to_string(),
            f.disconnects.to_string(),
            f.stalls.to_string(),
            f.illegal_moves.to_string(),
        ])?;
    }
    writer.into_inner().map_err(|e| e.into_error())
}

/// `ratings.csv`: the joint maximum-likelihood ratings, best first: rating, half the 95 %
/// interval, the interval's ends, games and score. Without ratings (fewer than three engines,
/// or games that do not allow a fit) a ratings.csv of an earlier session is removed, so no
/// file passes for this run's.
pub(crate) fn write_ratings(
    dir: &Path,
    ratings: Option<&Result<JointRatings, RatingsError>>,
) -> std::io::Result<()> {
    let path = dir.join(RATINGS_FILE);
    let Some(Ok(ratings)) = ratings else {
        return match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        };
    };
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record([
        "rank", "engine", "rating", "error", "lower", "upper", "games", "score",
    ])?;
    // Infinite ends read `inf` and `-inf`, which CSV readers take for numbers.
    let num = |v: f64| {
        if v.is_finite() {
            crate::stats::fixed(v, 2)
        } else {
            general_format(v, 2)
        }
    };
    for (rank, e) in ratings.ranked().iter().enumerate() {
        writer.write_record([
            (rank + 1).to_string(),
            e.name.clone(),
            format!("{:.2}", e.rating),
            num(e.interval.half_width()),
            num(e.interval.lower),
            num(e.interval.upper),
            e.games.to_string(),
            e.score().map_or("n/a".to_string(), |s| format!("{s:.4}")),
        ])?;
    }
    let text = writer.into_inner().map_err(|e| e.into_error())?;
    crate::files::write_atomic(&path, &text)
}

/// `summary.csv`: one row per pairing, from the first engine's point of view, counted over
/// complete game pairs (so W/D/L and the pair columns always agree); `unpaired_games` counts
/// the games whose pair is not complete (an SPRT stopped the run between them), so `games` plus
/// `unpaired_games` is what games.csv holds for the pairing. `decisions` are the SPRT's verdicts
/// as the run took them.
pub(crate) fn write_summary(
    dir: &Path,
    pairings: &[PairingStats],
    sprt: Option<&SprtParams>,
    decisions: &[Option<SprtDecision>],
) -> std::io::Result<()> {
    let text = summary_text(pairings, sprt, decisions)?;
    crate::files::write_atomic(&dir.join("summary.csv"), &text)
}

/// What `summary.csv` holds for these pairings (see [`write_summary`]).
pub(crate) fn summary_text(
    pairings: &[PairingStats],
    sprt: Option<&SprtParams>,
    decisions: &[Option<SprtDecision>],
) -> std::io::Result<Vec<u8>> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    let mut header = SUMMARY_COLUMNS.to_vec();
    if sprt.is_some() {
        header.extend(["llr", "lower_bound", "upper_bound", "decision"]);
    }
    writer.write_record(&header)?;
    for (index, p) in pairings.iter().enumerate() {
        let mut row = summary_row(p);
        if let Some(sprt) = sprt {
            let decided = decisions.get(index).copied().flatten();
            row.extend(sprt_columns(sprt, p, decided));
        }
        writer.write_record(&row)?;
    }
    writer.into_inner().map_err(|e| e.into_error())
}

/// summary.csv's columns before the SPRT's. Named for what they hold: the pentanomial buckets
/// by the first engine's pair score, the middle one split into its two kinds, and the draw
/// ratios of games and of pairs apart.
const SUMMARY_COLUMNS: [&str; 23] = [
    "engine",
    "opponent",
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
    "pair_draw_ratio",
    "pairs",
    "pairs_ll",
    "pairs_ld",
    "pairs_wl_or_dd",
    "pairs_wd",
    "pairs_ww",
    "pairs_wl",
    "pairs_dd",
    "unpaired_games",
];

/// A pairing's summary.csv row without the SPRT's columns.
fn summary_row(p: &PairingStats) -> Vec<String> {
    let est = p.ptnml.estimate();
    let num = |v: Option<f64>| v.map_or("n/a".to_string(), |v| format!("{v:.4}"));
    let games = p.wdl.games();
    let draw_ratio = (games > 0).then(|| p.wdl.draws as f64 / games as f64);
    vec![
        p.first.clone(),
        p.second.clone(),
        games.to_string(),
        p.wdl.wins.to_string(),
        p.wdl.draws.to_string(),
        p.wdl.losses.to_string(),
        num(p.wdl.score()),
        num(est.as_ref().map(|e| e.elo)),
        num(est.as_ref().map(|e| e.elo_error)),
        num(est.as_ref().map(|e| e.nelo)),
        num(est.as_ref().map(|e| e.nelo_error)),
        num(est.as_ref().map(|e| e.los)),
        num(draw_ratio),
        num(est.as_ref().map(|e| e.draw_ratio)),
        p.ptnml.pairs().to_string(),
        p.ptnml.ll.to_string(),
        p.ptnml.ld.to_string(),
        p.ptnml.dd.to_string(),
        p.ptnml.wd.to_string(),
        p.ptnml.ww.to_string(),
        p.wl_pairs.to_string(),
        p.dd_pairs.to_string(),
        p.unpaired_games().to_string(),
    ]
}

/// The SPRT's columns of a pairing's row: LLR, bounds, and the decision (`decided` is the
/// verdict the run took, if it stopped on one).
fn sprt_columns(sprt: &SprtParams, p: &PairingStats, decided: Option<SprtDecision>) -> [String; 4] {
    match sprt.llr_ptnml(p.ptnml) {
        Ok(llr) => [
            format!("{llr:.4}"),
            format!("{:.4}", sprt.lower_bound()),
            format!("{:.4}", sprt.upper_bound()),
            // The verdict that stopped the run stands, even if games still running
            // then moved the ratio back inside the bounds.
            match decided.unwrap_or_else(|| sprt.decision(llr)) {
                SprtDecision::AcceptH0 => "H0",
                SprtDecision::AcceptH1 => "H1",
                SprtDecision::Continue => "continue",
            }
            .to_string(),
        ],
        Err(_) => ["n/a", "n/a", "n/a", "n/a"].map(String::from),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn general_format_matches_fmt_g() {
        for (value, text) in [
            (0.1, "0.1"),
            (0.08, "0.08"),
            (0.125, "0.12"),
            (0.006, "0.006"),
            (1.25, "1.2"),
            (10.0, "10"),
            (100.0, "1e+02"),
            (0.00001, "1e-05"),
        ] {
            assert_eq!(general_format(value, 2), text, "{value}");
        }
        assert_eq!(general_format(2.944, 3), "2.94");
        assert_eq!(general_format(-0.01234, 3), "-0.0123");
    }

    #[test]
    fn headings_read_as_fastchess_prints_them() {
        let clock = |moves, base: f64, inc: f64| TimeControl::Clock {
            moves,
            base: Duration::from_secs_f64(base),
            increment: Duration::from_secs_f64(inc),
        };
        assert_eq!(fastchess_time_control(&clock(None, 8.0, 0.08)), "8+0.08");
        assert_eq!(
            fastchess_time_control(&clock(Some(40), 60.0, 0.6)),
            "40/60+0.6"
        );
        assert_eq!(fastchess_time_control(&clock(None, 10.0, 0.0)), "10");
        assert_eq!(
            fastchess_time_control(&clock(None, 12.5, 0.125)),
            "12.5+0.12"
        );
        assert_eq!(
            fastchess_time_control(&TimeControl::MoveTime(Duration::from_millis(500))),
            "0.5/move"
        );
        assert_eq!(fastchess_time_control(&TimeControl::Depth(10)), "10 plies");
        assert_eq!(
            fastchess_time_control(&TimeControl::Nodes(5000)),
            "5000 nodes"
        );
        let facts = |tc, threads: Option<&str>, hash: Option<&str>| EngineFacts {
            name: "x".to_string(),
            time_control: tc,
            threads: threads.map(String::from),
            hash: hash.map(String::from),
        };
        let a = facts(clock(None, 8.0, 0.08), Some("1"), Some("16"));
        assert_eq!(
            results_heading(&a, &a.clone(), Some("UHO.epd")),
            "8+0.08, 1t, 16MB, UHO.epd"
        );
        let b = facts(TimeControl::Nodes(5000), None, Some("64"));
        let c = facts(TimeControl::Nodes(7000), None, Some("64"));
        assert_eq!(
            results_heading(&c, &b, None),
            "7000 nodes - 5000 nodes, NULL, 64MB"
        );
        assert_eq!(
            results_heading(&a, &b, None),
            "8+0.08 - 5000 nodes, 1t - NULL, 16MB - 64MB"
        );
    }
}
