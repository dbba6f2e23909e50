//! `sparring merge OUT DIR...`: joins the directories of a sharded run (`sparring match --shard
//! I/N`) into the files one run writes, and reports the statistics and the SPRT's verdict.

use sparring::arena::{merge_shards, MergeOptions, MergeReport, PairingStats};
use sparring::stats::{fixed, SprtDecision};
use std::path::PathBuf;

/// `sparring merge`: merge shard (and wave) directories into one result.
#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// The directory to write the merged games.pgn, games.csv, positions.epd, summary.csv,
    /// ranking.csv (ratings.csv with three or more engines) and run.toml into.
    pub out: PathBuf,
    /// The shards' (or waves') output directories, any order. With an SPRT, the last line
    /// printed is the verdict for scripts, e.g. `verdict: continue with wave 4` or `verdict: H1
    /// accepted (stopped by SPRT after wave 4)` (docs/scale-out.md, "SPRT in waves").
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// Merge what is there when games are missing (a warning names them), e.g. to look at a
    /// run that is still going.
    #[arg(long)]
    pub partial: bool,
}

/// `sparring merge`.
pub fn run(args: &MergeArgs) -> anyhow::Result<()> {
    let options = MergeOptions {
        partial: args.partial,
    };
    let report = merge_shards(&args.out, &args.dirs, &options)
        .map_err(|e| anyhow::Error::new(e).context("merge"))?;
    print_notes(&report);
    outln!(
        "Merged {} of {} games into {}: {}, games.csv, summary.csv, ranking.csv{}{}{}",
        report.games,
        report.total_games,
        args.out.display(),
        report.pgn_name,
        if matches!(report.ratings, Some(Ok(_))) {
            ", ratings.csv"
        } else {
            ""
        },
        match (report.positions, report.bullet) {
            (true, true) => ", positions.epd, positions.bullet",
            (true, false) => ", positions.epd",
            (false, true) => ", positions.bullet",
            (false, false) => "",
        },
        match report.stopped_after_wave {
            Some(k) => format!(" (complete: stopped by SPRT after wave {k})"),
            None => String::new(),
        }
    )?;
    for (p, decision) in report.pairings.iter().zip(&report.decisions) {
        print_pairing(&report, p, decision.as_ref())?;
    }
    match &report.ratings {
        Some(Ok(ratings)) => super::ratings::table(ratings)
            .iter()
            .try_for_each(|line| outln!("{line}"))?,
        Some(Err(e)) => outln!("Maximum-likelihood joint ratings: none ({e})")?,
        None => {}
    }
    // Last, in a fixed form a driver script can test (docs/scale-out.md).
    if let Some(verdict) = report.verdict() {
        outln!("{verdict}")?;
    }
    Ok(())
}

/// The merge's warnings and notes on stderr: mixed versions, directories left out, missing
/// games, games past the SPRT's stop.
fn print_notes(report: &MergeReport) {
    if report.versions.len() > 1 {
        eprintln!(
            "warning: the shards were played by different sparring versions: {}",
            report.versions.join(", ")
        );
    }
    for dir in &report.not_started {
        eprintln!(
            "note: {} holds no run yet (no run.toml, no games): left out as not given",
            dir.display()
        );
    }
    for missing in &report.missing {
        eprintln!("warning: partial merge: {missing}");
    }
    if report.ignored_games > 0 {
        eprintln!(
            "note: {} game(s) of later waves are left out: the SPRT stopped the run after wave {}",
            report.ignored_games,
            report.stopped_after_wave.unwrap_or(0)
        );
    }
}

/// One pairing's result line and, with an SPRT, its verdict line.
fn print_pairing(
    report: &MergeReport,
    p: &PairingStats,
    decision: Option<&SprtDecision>,
) -> std::io::Result<()> {
    let w = p.games_wdl;
    let elo = p.ptnml.estimate().map_or("n/a".to_string(), |e| {
        // Never `-0.00` (a balanced merge's Elo is often a negative zero).
        format!("{} +/- {}", fixed(e.elo, 2), fixed(e.elo_error, 2))
    });
    outln!(
        "{} vs {}: {} games, {} - {} - {} (W-L-D), {} pairs, Elo {elo}",
        p.first,
        p.second,
        w.games(),
        w.wins,
        w.losses,
        w.draws,
        p.ptnml.pairs()
    )?;
    if let (Some(sprt), Some(decision)) = (&report.sprt, decision) {
        let llr = sprt.llr_ptnml(p.ptnml).unwrap_or(f64::NAN);
        let verdict = match decision {
            SprtDecision::AcceptH1 => "H1 accepted",
            SprtDecision::AcceptH0 => "H0 accepted",
            SprtDecision::Continue => "continue (undecided)",
        };
        // Waves are read at their ends: the LLR of every game there can be past a bound
        // while the test, at the last complete wave, is not.
        let verdict = match (report.wave_pairs, report.next_wave) {
            (Some(_), Some(0)) => format!("{verdict}: no wave is complete yet"),
            (Some(_), Some(next)) => format!("{verdict} at the end of wave {}", next - 1),
            _ => verdict.to_string(),
        };
        outln!(
            "  SPRT [{}, {}] ({}): LLR {} ({:.2}, {:.2}): {verdict}",
            sprt.elo0(),
            sprt.elo1(),
            sprt.model(),
            fixed(llr, 2),
            sprt.lower_bound(),
            sprt.upper_bound()
        )?;
    }
    Ok(())
}
