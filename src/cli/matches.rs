//! `sparring match` (a tournament from a TOML configuration) and `sparring stats` (Elo, LOS and
//! SPRT figures from counts).

use super::UsageError;
use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle as ProgressStyle_};
use sparring::arena::{
    run_tournament, Event, MatchConfig, OpeningSource, PairingStats, RunOptions, StartPosition,
};
use sparring::openings::{BookOptions, OpeningBook, OpeningFormat};
use sparring::stats::{EloEstimate, SprtDecision, SprtParams};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;

/// How `sparring match` shows progress.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ProgressStyle {
    /// A progress bar when standard output is a terminal, plain lines otherwise.
    #[default]
    Auto,
    /// A progress bar (with the results blocks above it).
    Bar,
    /// fastchess-style lines (`Started game`, `Finished game`, results blocks) for log parsers.
    Lines,
}

/// `sparring match`: play a tournament (gauntlet or round-robin) from a TOML configuration.
#[derive(Debug, clap::Args)]
pub struct MatchArgs {
    /// The configuration, e.g. configs/gauntlet.toml.
    pub config: PathBuf,
    /// Games played at once (at most the machine's available parallelism).
    #[arg(long, value_parser = super::parse_thread_count)]
    pub concurrency: Option<usize>,
    /// Openings per pairing (each played twice, colours reversed).
    #[arg(long)]
    pub rounds: Option<u32>,
    #[arg(long)]
    pub seed: Option<u64>,
    /// Output directory (overrides `output.dir`).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Continue a run from its output directory without replaying finished games.
    #[arg(long)]
    pub resume: bool,
    /// auto (a bar on a terminal, lines otherwise), bar, or lines.
    #[arg(long, value_enum, default_value_t = ProgressStyle::Auto)]
    pub progress: ProgressStyle,
}

/// Loads the configuration and applies the command-line overrides.
pub fn load_config(args: &MatchArgs) -> anyhow::Result<MatchConfig> {
    let mut config = MatchConfig::load(&args.config).map_err(|e| UsageError(e.to_string()))?;
    if let Some(c) = args.concurrency {
        if c == 0 {
            return Err(UsageError("--concurrency must be at least 1".to_string()).into());
        }
        config.concurrency = c;
    }
    if let Some(r) = args.rounds {
        if r == 0 {
            return Err(UsageError("--rounds must be at least 1".to_string()).into());
        }
        config.rounds = r;
    }
    if let Some(s) = args.seed {
        config.seed = s;
    }
    if let Some(out) = &args.out {
        config.output.dir = out.clone();
    }
    Ok(config)
}

/// The opening source a configuration names; bad lines are skipped and reported.
pub fn opening_source(config: &MatchConfig) -> anyhow::Result<Arc<dyn OpeningSource>> {
    let Some(o) = &config.openings else {
        return Ok(Arc::new(StartPosition));
    };
    let format = match &o.format {
        Some(name) => Some(
            name.parse::<OpeningFormat>()
                .map_err(|e| UsageError(format!("{}: `openings.format`: {e}", config.source)))?,
        ),
        None => None,
    };
    let options = BookOptions {
        plies: o.plies,
        start: o.start,
        ..Default::default()
    };
    let book = OpeningBook::open(&o.file, format, options)
        .map_err(|e| UsageError(format!("{}: `openings.file`: {e}", config.source)))?;
    for bad in book.rejected() {
        eprintln!("warning: skipped opening {bad}");
    }
    Ok(Arc::new(book))
}

/// `2.35`, `nan`, `inf`, as the results block prints figures.
fn fmt2(v: f64) -> String {
    if v.is_nan() {
        "nan".to_string()
    } else if v.is_infinite() {
        if v > 0.0 { "inf" } else { "-inf" }.to_string()
    } else {
        sparring::stats::fixed(v, 2)
    }
}

/// Shows a tournament's events: fastchess-style lines (which log parsers read) or a progress bar
/// on the terminal.
struct Console {
    bar: Option<ProgressBar>,
    /// `10+0.1, 1t, book.epd`: the results block's heading after the pairing.
    header: String,
    sprt: Option<SprtParams>,
}

impl Console {
    fn new(config: &MatchConfig, style: ProgressStyle) -> Console {
        let use_bar = match style {
            ProgressStyle::Auto => std::io::stdout().is_terminal(),
            ProgressStyle::Bar => true,
            ProgressStyle::Lines => false,
        };
        let bar = use_bar.then(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stdout());
            bar.set_style(
                ProgressStyle_::with_template(
                    "[{bar:24}] {pos}/{len} games  {rate}  ETA {eta_precise}  {msg}",
                )
                .unwrap_or_else(|_| ProgressStyle_::default_bar())
                .with_key(
                    "rate",
                    |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                        let _ = write!(w, "{:.1} games/min", 60.0 * state.per_sec());
                    },
                )
                .progress_chars("#-"),
            );
            bar
        });
        let book = config
            .openings
            .as_ref()
            .and_then(|o| o.file.file_name())
            .map(|f| format!(", {}", f.to_string_lossy()))
            .unwrap_or_default();
        Console {
            bar,
            header: format!("{}, 1t{book}", config.time_control),
            sprt: config.sprt,
        }
    }

    /// Prints lines above the bar (or plainly without one).
    fn print(&self, lines: &[String]) {
        match &self.bar {
            Some(bar) => bar.suspend(|| lines.iter().for_each(|l| println!("{l}"))),
            None => lines.iter().for_each(|l| println!("{l}")),
        }
    }

    fn show(&mut self, event: Event<'_>) {
        match event {
            Event::ResumedWithoutFingerprint { dir } => eprintln!(
                "warning: {} has no run.toml (written by an older sparring): the configuration                  cannot be compared with the run's; writing run.toml from this one",
                dir.display()
            ),
            Event::RunStarted { total, already_done } => {
                if let Some(bar) = &self.bar {
                    bar.set_length(total);
                    bar.set_position(already_done);
                    bar.reset_eta();
                }
            }
            Event::GameStarted {
                game_id,
                total,
                white,
                black,
            } => {
                if self.bar.is_none() {
                    println!("Started game {game_id} of {total} ({white} vs {black})");
                }
            }
            Event::GameFinished {
                record,
                done,
                pairings,
                ..
            } => match &self.bar {
                Some(bar) => {
                    bar.set_position(done);
                    let mut message = String::new();
                    if let Some(p) = pairings.first() {
                        if let Some(e) = p.ptnml.estimate() {
                            message.push_str(&format!(
                                "Elo {} +/- {}",
                                fmt2(e.elo),
                                fmt2(e.elo_error)
                            ));
                        }
                        if let Some(sprt) = &self.sprt {
                            if let Ok(llr) = sprt.llr_ptnml(p.ptnml) {
                                message.push_str(&format!("  LLR {llr:.2}"));
                            }
                        }
                    }
                    bar.set_message(message);
                }
                None => println!(
                    "Finished game {} ({} vs {}): {} {{{}}}",
                    record.game_id, record.white, record.black, record.result, record.reason
                ),
            },
            Event::ResultsDue { pairings } => self.print(&self.results_block(pairings)),
            Event::SprtDecided {
                pairings,
                decisions,
            } => {
                let Some(sprt) = &self.sprt else { return };
                let mut lines = Vec::new();
                for (p, d) in pairings.iter().zip(decisions) {
                    let verdict = match d {
                        Some(SprtDecision::AcceptH1) => "H1 was accepted",
                        Some(SprtDecision::AcceptH0) => "H0 was accepted",
                        _ => continue,
                    };
                    lines.push(format!(
                        "SPRT ([{:.2}, {:.2}]) completed - {verdict} ({} vs {})",
                        sprt.elo0(),
                        sprt.elo1(),
                        p.first,
                        p.second
                    ));
                }
                self.print(&lines);
            }
            Event::RunFinished {
                pairings,
                decisions,
                elapsed,
            } => {
                if let Some(bar) = self.bar.take() {
                    bar.finish_and_clear();
                }
                let mut lines = self.results_block(pairings);
                if decisions.iter().all(Option::is_none) || self.sprt.is_none() {
                    lines.push("Tournament finished".to_string());
                }
                let secs = elapsed.as_secs();
                lines.push("Finished match".to_string());
                lines.push(format!(
                    "Total Time: {:02}:{:02}:{:02} (hours:minutes:seconds)",
                    secs / 3600,
                    secs / 60 % 60,
                    secs % 60
                ));
                self.print(&lines);
            }
        }
    }

    /// The fastchess results block for every pairing.
    fn results_block(&self, pairings: &[PairingStats]) -> Vec<String> {
        let rule = "--------------------------------------------------".to_string();
        let mut lines = vec![rule.clone()];
        for p in pairings {
            lines.push(format!(
                "Results of {} vs {} ({}):",
                p.first, p.second, self.header
            ));
            let est = p.ptnml.estimate();
            let get = |f: fn(&EloEstimate) -> f64| est.as_ref().map_or(f64::NAN, f);
            lines.push(format!(
                "Elo: {} +/- {}, nElo: {} +/- {}",
                fmt2(get(|e| e.elo)),
                fmt2(get(|e| e.elo_error)),
                fmt2(get(|e| e.nelo)),
                fmt2(get(|e| e.nelo_error))
            ));
            let pairs = p.ptnml.pairs();
            let draw_ratio = 100.0 * (p.ptnml.dd) as f64 / pairs as f64;
            lines.push(format!(
                "LOS: {} %, DrawRatio: {} %, PairsRatio: {}",
                fmt2(100.0 * get(|e| e.los)),
                fmt2(draw_ratio),
                fmt2(p.ptnml.pairs_ratio().unwrap_or(f64::NAN))
            ));
            let games = p.wdl.games();
            let points = p.wdl.wins as f64 + 0.5 * p.wdl.draws as f64;
            lines.push(format!(
                "Games: {games}, Wins: {}, Losses: {}, Draws: {}, Points: {points:.1} ({} %)",
                p.wdl.wins,
                p.wdl.losses,
                p.wdl.draws,
                fmt2(100.0 * points / games as f64)
            ));
            lines.push(format!(
                "Ptnml(0-2): [{}, {}, {}, {}, {}], WL/DD Ratio: {}",
                p.ptnml.ll,
                p.ptnml.ld,
                p.ptnml.dd,
                p.ptnml.wd,
                p.ptnml.ww,
                fmt2(p.wl_pairs as f64 / p.dd_pairs as f64)
            ));
            if let Some(sprt) = &self.sprt {
                if let Ok(llr) = sprt.llr_ptnml(p.ptnml) {
                    let pct = if llr >= 0.0 {
                        llr / sprt.upper_bound()
                    } else {
                        -llr / sprt.lower_bound()
                    };
                    lines.push(format!(
                        "LLR: {:.2} ({:.1}%) ({:.2}, {:.2}) [{:.2}, {:.2}]",
                        llr,
                        100.0 * pct,
                        sprt.lower_bound(),
                        sprt.upper_bound(),
                        sprt.elo0(),
                        sprt.elo1()
                    ));
                }
            }
        }
        lines.push(rule);
        lines
    }
}

/// `sparring match`.
pub fn run(args: &MatchArgs) -> anyhow::Result<()> {
    let config = load_config(args)?;
    play(&config, args.resume, args.progress)
        .with_context(|| format!("match {}", args.config.display()))
}

/// Plays a checked configuration, whichever command line built it (the TOML file or the
/// fastchess/cutechess dialect), rendering its events on the console.
pub fn play(config: &MatchConfig, resume: bool, progress: ProgressStyle) -> anyhow::Result<()> {
    let openings = opening_source(config)?;
    let mut console = Console::new(config, progress);
    interrupt::install();
    let summary = run_tournament(config, openings, &RunOptions { resume }, &mut |event| {
        console.show(event)
    })?;
    println!(
        "Results in {}: games.pgn, games.csv, summary.csv{}",
        summary.output_dir.display(),
        if config.output.positions {
            ", positions.epd"
        } else {
            ""
        }
    );
    Ok(())
}

/// Ctrl-C and termination during a match: the engines run in process groups of their own (so
/// the terminal's signal does not reach them); end those groups before the runner exits.
mod interrupt {
    #[cfg(unix)]
    extern "C" fn on_signal(signal: libc::c_int) {
        sparring::arena::uci_player::kill_all_engine_groups();
        // SAFETY: _exit is async-signal-safe; 128 + signal is the shell's convention.
        unsafe { libc::_exit(128 + signal) };
    }

    /// Installs the handler for SIGINT, SIGTERM and SIGHUP.
    pub fn install() {
        #[cfg(unix)]
        for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            // SAFETY: the handler only does async-signal-safe work (atomic loads, killpg, _exit).
            unsafe {
                libc::signal(
                    signal,
                    on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t,
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fmt2;

    #[test]
    fn figures_have_two_decimals_and_no_negative_zero() {
        assert_eq!(fmt2(-0.001), "0.00");
        assert_eq!(fmt2(-0.0), "0.00");
        assert_eq!(fmt2(-1.234), "-1.23");
        assert_eq!(fmt2(f64::NAN), "nan");
        assert_eq!(fmt2(f64::NEG_INFINITY), "-inf");
    }
}
