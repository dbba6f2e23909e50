//! `summary.csv`: the run's results, one row per pairing. (What is shown while a run goes on is
//! the caller's business: the tournament reports `Event`s.)

use super::pairing::PairingStats;
use crate::stats::{SprtDecision, SprtParams};
use std::path::Path;

/// `summary.csv`: one row per pairing, from the first engine's point of view, counted over
/// complete game pairs (so W/D/L and the pair columns always agree).
pub fn write_summary(
    dir: &Path,
    pairings: &[PairingStats],
    sprt: Option<&SprtParams>,
) -> std::io::Result<()> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    // Named for what they hold: the pentanomial buckets by the first engine's pair score, the
    // middle one split into its two kinds, and the draw ratios of games and of pairs apart.
    let mut header = vec![
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
    ];
    if sprt.is_some() {
        header.extend(["llr", "lower_bound", "upper_bound", "decision"]);
    }
    writer.write_record(&header)?;
    for p in pairings {
        let est = p.ptnml.estimate();
        let num = |v: Option<f64>| v.map_or("n/a".to_string(), |v| format!("{v:.4}"));
        let games = p.wdl.games();
        let draw_ratio = (games > 0).then(|| p.wdl.draws as f64 / games as f64);
        let mut row = vec![
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
        ];
        if let Some(sprt) = sprt {
            match sprt.llr_ptnml(p.ptnml) {
                Ok(llr) => row.extend([
                    format!("{llr:.4}"),
                    format!("{:.4}", sprt.lower_bound()),
                    format!("{:.4}", sprt.upper_bound()),
                    match sprt.decision(llr) {
                        SprtDecision::AcceptH0 => "H0",
                        SprtDecision::AcceptH1 => "H1",
                        SprtDecision::Continue => "continue",
                    }
                    .to_string(),
                ]),
                Err(_) => row.extend(["n/a", "n/a", "n/a", "n/a"].map(String::from)),
            }
        }
        writer.write_record(&row)?;
    }
    let text = writer.into_inner().map_err(|e| e.into_error())?;
    let tmp = dir.join("summary.csv.tmp");
    std::fs::write(&tmp, text)?;
    std::fs::rename(tmp, dir.join("summary.csv"))
}
