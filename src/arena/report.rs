//! Progress while a tournament runs, in the style of fastchess so existing log parsers work:
//! `Finished game N (A vs B): 1-0 {White mates}` lines and a periodic results block; on a
//! terminal, a one-line progress bar instead of the per-game lines.

use super::config::MatchConfig;
use super::tournament::PairingStats;
use crate::record::{csv_field, GameRecord};
use crate::stats::{EloEstimate, SprtDecision, SprtParams};
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::time::Instant;

pub struct Reporter {
    total: u64,
    done: u64,
    started: Instant,
    finished_this_run: u64,
    quiet: bool,
    terminal: bool,
    rating_interval: u64,
    pairs_at_last_block: u64,
    sprt: Option<SprtParams>,
    header: String,
}

fn fmt2(v: f64) -> String {
    if v.is_nan() {
        "nan".to_string()
    } else if v.is_infinite() {
        if v > 0.0 { "inf" } else { "-inf" }.to_string()
    } else {
        format!("{v:.2}")
    }
}

impl Reporter {
    pub fn new(config: &MatchConfig, total: u64, already_done: u64, quiet: bool) -> Reporter {
        let book = config
            .openings
            .as_ref()
            .and_then(|o| o.file.file_name())
            .map(|f| format!(", {}", f.to_string_lossy()))
            .unwrap_or_default();
        Reporter {
            total,
            done: already_done,
            started: Instant::now(),
            finished_this_run: 0,
            quiet,
            terminal: std::io::stderr().is_terminal(),
            rating_interval: config.output.rating_interval as u64,
            pairs_at_last_block: 0,
            sprt: config.sprt,
            header: format!("{}, 1t{book}", config.time_control),
        }
    }

    /// Whether worker threads should stay silent (no `Started game` lines).
    pub fn quiet_workers(&self) -> bool {
        self.quiet || self.terminal
    }

    pub fn finished(&mut self, record: &GameRecord, pairings: &[PairingStats]) {
        self.done += 1;
        self.finished_this_run += 1;
        if self.quiet {
            return;
        }
        if self.terminal {
            self.progress_bar(pairings);
        } else {
            println!(
                "Finished game {} ({} vs {}): {} {{{}}}",
                record.game_id, record.white, record.black, record.result, record.reason
            );
        }
        let pairs: u64 = pairings.iter().map(|p| p.ptnml.pairs()).sum();
        if pairs >= self.pairs_at_last_block + self.rating_interval {
            self.pairs_at_last_block = pairs;
            self.results_block(pairings);
        }
    }

    fn progress_bar(&self, pairings: &[PairingStats]) {
        let width = 24;
        let filled = (self.done * width / self.total.max(1)) as usize;
        let minutes = self.started.elapsed().as_secs_f64() / 60.0;
        let rate = self.finished_this_run as f64 / minutes.max(1e-9);
        let eta_min = (self.total - self.done) as f64 / rate.max(1e-9);
        let mut line = format!(
            "\r[{}{}] {}/{} games  {:.1} games/min  ETA {:02}:{:02}:{:02}",
            "#".repeat(filled),
            "-".repeat(width as usize - filled),
            self.done,
            self.total,
            rate,
            (eta_min / 60.0) as u64,
            eta_min as u64 % 60,
            (eta_min * 60.0) as u64 % 60
        );
        if let Some(p) = pairings.first() {
            if let Some(e) = p.ptnml.estimate() {
                line.push_str(&format!("  Elo {} +/- {}", fmt2(e.elo), fmt2(e.elo_error)));
            }
            if let Some(sprt) = &self.sprt {
                if let Ok(llr) = sprt.llr_ptnml(p.ptnml) {
                    line.push_str(&format!("  LLR {llr:.2}"));
                }
            }
        }
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "{line}   ");
        let _ = err.flush();
    }

    /// The fastchess results block for every pairing.
    pub fn results_block(&self, pairings: &[PairingStats]) {
        if self.terminal {
            eprintln!();
        }
        println!("--------------------------------------------------");
        for p in pairings {
            println!("Results of {} vs {} ({}):", p.first, p.second, self.header);
            let est = p.ptnml.estimate();
            let get = |f: fn(&EloEstimate) -> f64| est.as_ref().map_or(f64::NAN, f);
            println!(
                "Elo: {} +/- {}, nElo: {} +/- {}",
                fmt2(get(|e| e.elo)),
                fmt2(get(|e| e.elo_error)),
                fmt2(get(|e| e.nelo)),
                fmt2(get(|e| e.nelo_error))
            );
            let pairs = p.ptnml.pairs();
            let draw_ratio = 100.0 * (p.ptnml.dd) as f64 / pairs as f64;
            println!(
                "LOS: {} %, DrawRatio: {} %, PairsRatio: {}",
                fmt2(100.0 * get(|e| e.los)),
                fmt2(draw_ratio),
                fmt2(p.ptnml.pairs_ratio().unwrap_or(f64::NAN))
            );
            let games = p.wdl.games();
            let points = p.wdl.wins as f64 + 0.5 * p.wdl.draws as f64;
            println!(
                "Games: {games}, Wins: {}, Losses: {}, Draws: {}, Points: {points:.1} ({} %)",
                p.wdl.wins,
                p.wdl.losses,
                p.wdl.draws,
                fmt2(100.0 * points / games as f64)
            );
            println!(
                "Ptnml(0-2): [{}, {}, {}, {}, {}], WL/DD Ratio: {}",
                p.ptnml.ll,
                p.ptnml.ld,
                p.ptnml.dd,
                p.ptnml.wd,
                p.ptnml.ww,
                fmt2(p.wl_pairs as f64 / p.dd_pairs as f64)
            );
            if let Some(sprt) = &self.sprt {
                if let Ok(llr) = sprt.llr_ptnml(p.ptnml) {
                    let pct = if llr >= 0.0 {
                        llr / sprt.upper_bound()
                    } else {
                        -llr / sprt.lower_bound()
                    };
                    println!(
                        "LLR: {:.2} ({:.1}%) ({:.2}, {:.2}) [{:.2}, {:.2}]",
                        llr,
                        100.0 * pct,
                        sprt.lower_bound(),
                        sprt.upper_bound(),
                        sprt.elo0(),
                        sprt.elo1()
                    );
                }
            }
        }
        println!("--------------------------------------------------");
    }

    pub fn sprt_finished(&self, pairings: &[PairingStats], decisions: &[Option<SprtDecision>]) {
        if self.quiet {
            return;
        }
        if let Some(sprt) = &self.sprt {
            for (p, d) in pairings.iter().zip(decisions) {
                let verdict = match d {
                    Some(SprtDecision::AcceptH1) => "H1 was accepted",
                    Some(SprtDecision::AcceptH0) => "H0 was accepted",
                    _ => continue,
                };
                println!(
                    "SPRT ([{:.2}, {:.2}]) completed - {verdict} ({} vs {})",
                    sprt.elo0(),
                    sprt.elo1(),
                    p.first,
                    p.second
                );
            }
        }
    }

    pub fn done(&self, pairings: &[PairingStats], decisions: &[Option<SprtDecision>]) {
        if self.quiet {
            return;
        }
        self.results_block(pairings);
        if decisions.iter().all(Option::is_none) || self.sprt.is_none() {
            println!("Tournament finished");
        }
        let secs = self.started.elapsed().as_secs();
        println!("Finished match");
        println!(
            "Total Time: {:02}:{:02}:{:02} (hours:minutes:seconds)",
            secs / 3600,
            secs / 60 % 60,
            secs % 60
        );
    }
}

/// `summary.csv`: one row per pairing, from the first engine's point of view.
pub fn write_summary(
    dir: &Path,
    pairings: &[PairingStats],
    sprt: Option<&SprtParams>,
) -> std::io::Result<()> {
    let mut text = String::from(
        "engine,opponent,games,wins,draws,losses,score,elo,elo_error,los,draw_ratio,ptnml_ll,ptnml_ld,ptnml_dd,ptnml_wd,ptnml_ww",
    );
    if sprt.is_some() {
        text.push_str(",llr,lower_bound,upper_bound,decision");
    }
    text.push('\n');
    for p in pairings {
        let est = p.ptnml.estimate();
        let num = |v: Option<f64>| v.map_or("n/a".to_string(), |v| format!("{v:.4}"));
        text.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            csv_field(&p.first),
            csv_field(&p.second),
            p.wdl.games(),
            p.wdl.wins,
            p.wdl.draws,
            p.wdl.losses,
            num(p.wdl.score()),
            num(est.as_ref().map(|e| e.elo)),
            num(est.as_ref().map(|e| e.elo_error)),
            num(est.as_ref().map(|e| e.los)),
            num(est.as_ref().map(|e| e.draw_ratio)),
            p.ptnml.ll,
            p.ptnml.ld,
            p.ptnml.dd,
            p.ptnml.wd,
            p.ptnml.ww
        ));
        if let Some(sprt) = sprt {
            match sprt.llr_ptnml(p.ptnml) {
                Ok(llr) => text.push_str(&format!(
                    ",{llr:.4},{:.4},{:.4},{}",
                    sprt.lower_bound(),
                    sprt.upper_bound(),
                    match sprt.decision(llr) {
                        SprtDecision::AcceptH0 => "H0",
                        SprtDecision::AcceptH1 => "H1",
                        SprtDecision::Continue => "continue",
                    }
                )),
                Err(_) => text.push_str(",n/a,n/a,n/a,n/a"),
            }
        }
        text.push('\n');
    }
    let tmp = dir.join("summary.csv.tmp");
    std::fs::write(&tmp, text)?;
    std::fs::rename(tmp, dir.join("summary.csv"))
}
