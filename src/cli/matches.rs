//! `sparring match` (a tournament from a TOML configuration) and `sparring stats` (Elo, LOS and
//! SPRT figures from counts).

use super::shard::ShardArgs;
use super::UsageError;
use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle as ProgressStyle_};
use sparring::arena::config::PositionsFormat;
use sparring::arena::schedule::{Slice, Wave};
use sparring::arena::{
    general_format, openings_of, ranking, results_heading, run_tournament, BookSetupError,
    EngineFacts, EngineFigures, Event, MatchConfig, OpeningSource, PairingStats, ResultsFormat,
    RunOptions,
};
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
    /// Output directory (overrides `output.dir`). A shard's default is
    /// `<output.dir>/shard-I-of-N`, which `sparring merge` joins with the other shards'.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Continue a run from its output directory without replaying finished games.
    #[arg(long)]
    pub resume: bool,
    /// auto (a bar on a terminal, lines otherwise), bar, or lines.
    #[arg(long, value_enum, default_value_t = ProgressStyle::Auto)]
    pub progress: ProgressStyle,
    // Shard I of N plays a contiguous block of whole pairs (docs/scale-out.md).
    #[command(flatten)]
    pub shard: ShardArgs,
    /// Play only wave K (0-based) of the run: pairs K*W up to (K+1)*W of its schedule, W
    /// given by --wave-pairs, into `<output.dir>/wave-K` (with --shard I/N: shard I of the
    /// wave, `wave-K-shard-I-of-N`) unless --out is given. `sparring merge` joins waves and
    /// stops the run when the SPRT on the merged waves decides (docs/scale-out.md).
    #[arg(long, value_name = "K", requires = "wave_pairs")]
    pub wave: Option<u64>,
    /// The pairs of every wave (the same for every wave of a run; `sparring merge` checks).
    #[arg(long, value_name = "W", requires = "wave")]
    pub wave_pairs: Option<u64>,
}

/// The wave the command line asks for, if any (checked against the schedule when the run
/// starts).
pub fn requested_wave(args: &MatchArgs) -> Result<Option<Wave>, UsageError> {
    match (args.wave, args.wave_pairs) {
        (Some(index), Some(pairs)) => {
            if pairs == 0 {
                return Err(UsageError(
                    "--wave-pairs: the wave size must be at least 1 pair".to_string(),
                ));
            }
            Ok(Some(Wave { index, pairs }))
        }
        (None, None) => Ok(None),
        _ => Err(UsageError(
            "--wave K and --wave-pairs W go together".to_string(),
        )),
    }
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
    let (source, rejected) = openings_of(config).map_err(|e| match e {
        // The book's own line is the place to look; the configuration is named after it.
        BookSetupError::Chess960InStandard { .. } => UsageError(format!("{e} ({})", config.source)),
        _ => UsageError(format!("{}: {e}", config.source)),
    })?;
    for bad in rejected {
        eprintln!("warning: skipped opening {bad}");
    }
    Ok(source)
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
/// Which results block is printed: one during the run (at the rating interval) or the last.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Block {
    Interval,
    Final,
}

struct Console {
    bar: Option<ProgressBar>,
    sprt: Option<SprtParams>,
    /// Whose lines the results imitate.
    format: ResultsFormat,
    /// Statistics by game pairs (with the `Ptnml` line) rather than by games.
    penta: bool,
    /// The configured engine names, in order.
    names: Vec<String>,
    /// What the heading says about each engine (known once the engines have started).
    facts: Vec<EngineFacts>,
    /// The opening book's file name, for the heading.
    book: Option<String>,
    /// The SPRT verdicts, printed after the last results block.
    decided: Vec<Option<SprtDecision>>,
    /// Whether the last results block printed is out of date (a game finished since), so
    /// the end of the run prints it once more.
    block_stale: bool,
    /// A shard's or wave's first 0-based game number and its name (`shard 2/4`), for the
    /// progress lines; `None` for the whole run.
    slice: Option<(u64, String)>,
}

/// `{:>width}` of a figure with two decimals (`nan`, `inf` as fastchess prints them).
fn cell(v: f64, width: usize) -> String {
    format!("{:>width$}", fmt2(v))
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
            .map(|f| f.to_string_lossy().into_owned());
        Console {
            bar,
            sprt: config.sprt,
            format: config.output.format,
            // cutechess's lines count games, as fastchess's `-output format=cutechess` does.
            penta: config.output.report_penta && config.output.format == ResultsFormat::Fastchess,
            names: config.engines.iter().map(|e| e.name.clone()).collect(),
            facts: Vec::new(),
            book,
            decided: Vec::new(),
            block_stale: true,
            slice: None,
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
                "warning: {} has no run.toml (written by an older sparring): the configuration \
                 cannot be compared with the run's; writing run.toml from this one",
                dir.display()
            ),
            Event::EnginesReady { engines } => self.facts = engines.to_vec(),
            // fastchess's words (fishtest's worker stops a task on them, as with fastchess).
            Event::UndeclaredOption { engine, option } => {
                self.print(&[format!("Warning; {engine} doesn't have option {option}")])
            }
            Event::RunStarted {
                total,
                already_done,
            } => {
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
                    match &self.slice {
                        // A shard's or wave's games are numbered as in the whole run: say
                        // where the game stands in this part too.
                        Some((start, part)) => println!(
                            "Started game {game_id} ({} of {total} in {part}) ({white} vs {black})",
                            game_id - start
                        ),
                        // fastchess's line, which OpenBench and fishtest parse.
                        None => println!("Started game {game_id} of {total} ({white} vs {black})"),
                    }
                }
            }
            Event::GameFinished {
                record,
                done,
                pairings,
                ..
            } => {
                self.block_stale = true;
                match &self.bar {
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
                    None => {
                        println!(
                            "Finished game {} ({} vs {}): {} {{{}}}",
                            record.game_id,
                            record.white,
                            record.black,
                            record.result,
                            record.reason
                        );
                        // cutechess-cli's running score of a two-player event, after every game.
                        if let (ResultsFormat::Cutechess, [p]) = (self.format, pairings) {
                            println!("{}", score_line(p));
                        }
                    }
                }
            }
            Event::ResultsDue { pairings } => {
                self.block_stale = false;
                self.print(&self.results_block(pairings, Block::Interval));
            }
            Event::SprtDecided { decisions, .. } => self.decided = decisions.to_vec(),
            Event::RunFinished {
                pairings,
                decisions,
                figures,
                elapsed,
            } => {
                if let Some(bar) = self.bar.take() {
                    bar.finish_and_clear();
                }
                // The block of the last game, unless the interval just printed it.
                let mut lines = if self.block_stale {
                    self.results_block(pairings, Block::Final)
                } else {
                    Vec::new()
                };
                if let Some(sprt) = &self.sprt {
                    let several = pairings.len() > 1;
                    for (p, d) in pairings.iter().zip(decisions) {
                        let verdict = match d {
                            Some(SprtDecision::AcceptH1) => "H1 was accepted",
                            Some(SprtDecision::AcceptH0) => "H0 was accepted",
                            _ => continue,
                        };
                        let line = match self.format {
                            ResultsFormat::Fastchess => format!(
                                "SPRT ([{:.2}, {:.2}]) completed - {verdict}",
                                sprt.elo0(),
                                sprt.elo1()
                            ),
                            ResultsFormat::Cutechess => "Tournament finished".to_string(),
                        };
                        lines.push(if several {
                            format!("{line} ({} vs {})", p.first, p.second)
                        } else {
                            line
                        });
                    }
                }
                if self.format == ResultsFormat::Fastchess {
                    lines.extend(self.failures_by_player(figures));
                }
                lines.extend(self.figures_table(figures));
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

    /// The heading's figures of a pairing: `8+0.08, 1t, 16MB, book.epd`.
    fn heading(&self, p: &PairingStats) -> String {
        let facts = |name: &str| self.facts.iter().find(|f| f.name == name);
        match (facts(&p.first), facts(&p.second)) {
            (Some(a), Some(b)) => results_heading(a, b, self.book.as_deref()),
            _ => "?".to_string(),
        }
    }

    /// The results block: per pairing with two engines, a ranking table with more.
    fn results_block(&self, pairings: &[PairingStats], block: Block) -> Vec<String> {
        let rule = "--------------------------------------------------".to_string();
        let mut lines = Vec::new();
        let table = self.names.len() >= 3;
        if self.format == ResultsFormat::Fastchess {
            lines.push(rule.clone());
        }
        if table {
            lines.extend(self.ranking_table(pairings));
        }
        for p in pairings {
            if !table {
                match self.format {
                    ResultsFormat::Fastchess => lines.extend(self.fastchess_lines(p, block)),
                    ResultsFormat::Cutechess => lines.extend(cutechess_lines(p)),
                }
            }
            lines.extend(self.sprt_line(p));
        }
        if self.format == ResultsFormat::Fastchess {
            lines.push(rule);
        }
        lines
    }

    /// fastchess's lines for one pairing, from the first engine's point of view.
    fn fastchess_lines(&self, p: &PairingStats, block: Block) -> Vec<String> {
        let mut lines = vec![format!(
            "Results of {} vs {} ({}):",
            p.first,
            p.second,
            self.heading(p)
        )];
        // By pairs: complete pairs only; by games: every finished game.
        let (wdl, est) = if self.penta {
            (p.wdl, p.ptnml.estimate())
        } else {
            (p.games_wdl, p.games_wdl.estimate())
        };
        let get = |f: fn(&EloEstimate) -> f64| est.as_ref().map_or(f64::NAN, f);
        lines.push(format!(
            "Elo: {} +/- {}, nElo: {} +/- {}",
            fmt2(get(|e| e.elo)),
            fmt2(get(|e| e.elo_error)),
            fmt2(get(|e| e.nelo)),
            fmt2(get(|e| e.nelo_error))
        ));
        let games = wdl.games();
        if self.penta {
            let pairs = p.ptnml.pairs();
            lines.push(format!(
                "LOS: {} %, DrawRatio: {} %, PairsRatio: {}",
                fmt2(100.0 * get(|e| e.los)),
                fmt2(100.0 * p.ptnml.dd as f64 / pairs as f64),
                fmt2(p.ptnml.pairs_ratio().unwrap_or(f64::NAN))
            ));
        } else {
            lines.push(format!(
                "LOS: {} %, DrawRatio: {} %",
                fmt2(100.0 * get(|e| e.los)),
                fmt2(100.0 * wdl.draws as f64 / games as f64)
            ));
        }
        // By pairs, a block during the run counts complete pairs as fastchess's does (fishtest's
        // parser checks Games == 2 * sum(Ptnml)); the last block counts every game, the
        // unpaired ones (an odd last game, games in flight when an SPRT stopped) said below.
        let wdl = match (self.penta, block) {
            (true, Block::Interval) => p.wdl,
            _ => p.games_wdl,
        };
        let games = wdl.games();
        let points = wdl.wins as f64 + 0.5 * wdl.draws as f64;
        lines.push(format!(
            "Games: {games}, Wins: {}, Losses: {}, Draws: {}, Points: {points:.1} ({} %)",
            wdl.wins,
            wdl.losses,
            wdl.draws,
            fmt2(100.0 * points / games as f64)
        ));
        if self.penta {
            lines.push(format!(
                "Ptnml(0-2): [{}, {}, {}, {}, {}], WL/DD Ratio: {}",
                p.ptnml.ll,
                p.ptnml.ld,
                p.ptnml.dd,
                p.ptnml.wd,
                p.ptnml.ww,
                fmt2(p.wl_pairs as f64 / p.dd_pairs as f64)
            ));
            if p.unpaired_games() > 0 {
                let counted = match block {
                    Block::Interval => "not yet in Games or Ptnml",
                    Block::Final => "in Games, not in Ptnml",
                };
                lines.push(format!(
                    "Unpaired games: {} ({counted})",
                    p.unpaired_games()
                ));
            }
        }
        lines
    }

    /// The LLR line of a pairing, in the format's words; none without an SPRT.
    fn sprt_line(&self, p: &PairingStats) -> Option<String> {
        let sprt = self.sprt.as_ref()?;
        let llr = if self.penta {
            sprt.llr_ptnml(p.ptnml).ok()?
        } else {
            sprt.llr_wdl(p.games_wdl)
        };
        Some(match self.format {
            ResultsFormat::Fastchess => {
                let pct = if llr >= 0.0 {
                    llr / sprt.upper_bound()
                } else {
                    -llr / sprt.lower_bound()
                };
                format!(
                    "LLR: {:.2} ({:.1}%) ({:.2}, {:.2}) [{:.2}, {:.2}]",
                    llr,
                    100.0 * pct,
                    sprt.lower_bound(),
                    sprt.upper_bound(),
                    sprt.elo0(),
                    sprt.elo1()
                )
            }
            ResultsFormat::Cutechess => {
                let verdict = match sprt.decision(llr) {
                    SprtDecision::AcceptH1 => " - H1 was accepted",
                    SprtDecision::AcceptH0 => " - H0 was accepted",
                    SprtDecision::Continue => "",
                };
                format!(
                    "SPRT: llr {} ({:.1}%), lbound {}, ubound {}{verdict}",
                    general_format(llr, 3),
                    100.0 * llr / sprt.upper_bound(),
                    general_format(sprt.lower_bound(), 3),
                    general_format(sprt.upper_bound(), 3)
                )
            }
        })
    }

    /// The ranking of three or more engines: each engine's Elo against the field.
    fn ranking_table(&self, pairings: &[PairingStats]) -> Vec<String> {
        let standings = ranking(&self.names, pairings, &[], self.penta);
        let width = standings
            .iter()
            .map(|s| s.name.chars().count())
            .max()
            .unwrap_or(0)
            .max(25);
        let mut lines = Vec::new();
        let percent =
            |v: Option<f64>, w: usize| format!("{:>w$}%", fmt1(v.map_or(f64::NAN, |v| 100.0 * v)));
        match self.format {
            ResultsFormat::Fastchess => {
                lines.push(format!(
                    "{:<4} {:<width$} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>20}",
                    "Rank",
                    "Name",
                    "Elo",
                    "+/-",
                    "nElo",
                    "+/-",
                    "Games",
                    "Score",
                    "Draw",
                    "Ptnml(0-2)"
                ));
                for (rank, s) in standings.iter().enumerate() {
                    let est = s.estimate(self.penta);
                    let get = |f: fn(&EloEstimate) -> f64| est.as_ref().map_or(f64::NAN, f);
                    let ptnml = if self.penta {
                        format!(
                            "[{}, {}, {}, {}, {}]",
                            s.ptnml.ll, s.ptnml.ld, s.ptnml.dd, s.ptnml.wd, s.ptnml.ww
                        )
                    } else {
                        String::new()
                    };
                    lines.push(format!(
                        "{:>4} {:<width$} {} {} {} {} {:>10} {} {} {:>20}",
                        rank + 1,
                        s.name,
                        cell(get(|e| e.elo), 10),
                        cell(get(|e| e.elo_error), 10),
                        cell(get(|e| e.nelo), 10),
                        cell(get(|e| e.nelo_error), 10),
                        s.wdl.games(),
                        percent(s.wdl.score(), 9),
                        percent(s.draw_ratio(self.penta), 9),
                        ptnml
                    ));
                }
            }
            ResultsFormat::Cutechess => {
                lines.push(format!(
                    "{:>4} {:<width$} {:>7} {:>7} {:>7} {:>7} {:>7}",
                    "Rank", "Name", "Elo", "+/-", "Games", "Score", "Draw"
                ));
                for (rank, s) in standings.iter().enumerate() {
                    let est = s.wdl.estimate();
                    let get = |f: fn(&EloEstimate) -> f64| est.as_ref().map_or(f64::NAN, f);
                    lines.push(format!(
                        "{:>4} {:<width$} {:>7} {:>7} {:>7} {} {}",
                        rank + 1,
                        s.name,
                        fmt0(get(|e| e.elo)),
                        fmt0(get(|e| e.elo_error)),
                        s.wdl.games(),
                        percent(s.wdl.score(), 6),
                        percent(s.draw_ratio(false), 6)
                    ));
                }
            }
        }
        lines
    }

    /// fastchess's end-of-run note, when an engine lost games on time or by crashing: a blank
    /// line, then `Player: <name>`, `  Timeouts: <n>`, `  Crashed: <n>` per engine, a blank line.
    fn failures_by_player(&self, figures: &[EngineFigures]) -> Vec<String> {
        if figures
            .iter()
            .all(|f| f.time_forfeits == 0 && f.crashes() == 0)
        {
            return Vec::new();
        }
        let mut lines = vec![String::new()];
        for (name, f) in self.names.iter().zip(figures) {
            lines.push(format!("Player: {name}"));
            lines.push(format!("  Timeouts: {}", f.time_forfeits));
            lines.push(format!("  Crashed: {}", f.crashes()));
        }
        lines.push(String::new());
        lines
    }

    /// What each engine did: depth, speed, time per move, time left, failures.
    fn figures_table(&self, figures: &[EngineFigures]) -> Vec<String> {
        if figures.iter().all(|f| f.games == 0) {
            return Vec::new();
        }
        let width = self
            .names
            .iter()
            .map(|n| n.chars().count())
            .max()
            .unwrap_or(0)
            .max(25);
        let mut lines = vec![format!(
            "{:<width$} {:>7} {:>7} {:>10} {:>10} {:>10} {:>8} {:>8} {:>8} {:>8}",
            "Engine",
            "Games",
            "Depth",
            "NPS",
            "ms/move",
            "Left ms",
            "Timeout",
            "Crashed",
            "Stalled",
            "Illegal"
        )];
        let ms = |d: Option<std::time::Duration>| {
            d.map_or("-".to_string(), |d| {
                format!("{:.1}", d.as_secs_f64() * 1000.0)
            })
        };
        for (name, f) in self.names.iter().zip(figures) {
            lines.push(format!(
                "{:<width$} {:>7} {:>7} {:>10} {:>10} {:>10} {:>8} {:>8} {:>8} {:>8}",
                name,
                f.games,
                f.average_depth()
                    .map_or("-".to_string(), |d| format!("{d:.2}")),
                f.nodes_per_second()
                    .map_or("-".to_string(), |n| format!("{n:.0}")),
                ms(f.average_move_time()),
                ms(f.average_time_left()),
                f.time_forfeits,
                f.disconnects,
                f.stalls,
                f.illegal_moves
            ));
        }
        lines
    }
}

/// `12.3`, `nan`: one decimal.
fn fmt1(v: f64) -> String {
    if v.is_finite() {
        sparring::stats::fixed(v, 1)
    } else {
        fmt2(v)
    }
}

/// `12`, `nan`: no decimals.
fn fmt0(v: f64) -> String {
    if v.is_finite() {
        sparring::stats::fixed(v, 0)
    } else {
        fmt2(v)
    }
}

/// cutechess-cli's `Score of A vs B: W - L - D  [0.500] N`, over every finished game.
fn score_line(p: &PairingStats) -> String {
    let w = p.games_wdl;
    format!(
        "Score of {} vs {}: {} - {} - {}  [{:.3}] {}",
        p.first,
        p.second,
        w.wins,
        w.losses,
        w.draws,
        w.score().unwrap_or(f64::NAN),
        w.games()
    )
}

/// cutechess-cli's results lines for one pairing (every finished game, one decimal).
fn cutechess_lines(p: &PairingStats) -> Vec<String> {
    let est = p.games_wdl.estimate();
    let get = |f: fn(&EloEstimate) -> f64| est.as_ref().map_or(f64::NAN, f);
    let games = p.games_wdl.games();
    vec![
        score_line(p),
        format!(
            "Elo difference: {} +/- {}, LOS: {} %, DrawRatio: {} %",
            fmt1(get(|e| e.elo)),
            fmt1(get(|e| e.elo_error)),
            fmt1(100.0 * get(|e| e.los)),
            fmt1(100.0 * p.games_wdl.draws as f64 / games as f64)
        ),
    ]
}

/// `sparring match`.
pub fn run(args: &MatchArgs) -> anyhow::Result<()> {
    let shard = args.shard.requested()?;
    let wave = requested_wave(args)?;
    let mut config = load_config(args)?;
    let options = RunOptions {
        resume: args.resume,
        shard,
        wave,
    };
    if let (Some(name), None) = (options.slice().dir_name(), &args.out) {
        config.output.dir = config.output.dir.join(name);
    }
    play_with(&config, &options, args.progress)
        .with_context(|| format!("match {}", args.config.display()))
}

/// Plays a checked configuration, whichever command line built it (the TOML file or the
/// fastchess/cutechess dialect), rendering its events on the console.
// Called by the fastchess/cutechess dialect's command line (src/cli/dialect.rs).
#[allow(dead_code)]
pub fn play(config: &MatchConfig, resume: bool, progress: ProgressStyle) -> anyhow::Result<()> {
    let options = RunOptions {
        resume,
        ..RunOptions::default()
    };
    play_with(config, &options, progress)
}

/// Plays a checked configuration with run options (resume, shard), rendering its events.
pub fn play_with(
    config: &MatchConfig,
    options: &RunOptions,
    progress: ProgressStyle,
) -> anyhow::Result<()> {
    let openings = opening_source(config)?;
    let mut console = Console::new(config, progress);
    let slice = options.slice();
    if slice != Slice::default() {
        console.slice = Some((slice.games(config.total_games()).start, slice.to_string()));
    }
    super::interrupt::install();
    let summary = run_tournament(config, openings, options, &mut |event| console.show(event))?;
    println!(
        "Results in {}: {}, games.csv, summary.csv, ranking.csv{}",
        summary.output_dir.display(),
        config.output.pgn_name,
        match (config.output.positions, config.output.positions_format) {
            (false, _) => "",
            (true, PositionsFormat::Epd) => ", positions.epd",
            (true, PositionsFormat::Bullet) => ", positions.bullet",
            (true, PositionsFormat::Both) => ", positions.epd, positions.bullet",
        }
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    use sparring::stats::{Pentanomial, SprtModel, Wdl};

    /// A console for two (or more) engines at 5000 nodes, with an SPRT when `sprt`.
    fn console(engines: &[&str], sprt: bool) -> Console {
        let mut text =
            "[tournament]\n[time_control]\nnodes = 5000\n[output]\ndir = \"x\"\n".to_string();
        for name in engines {
            text.push_str(&format!("[[engine]]\nname = \"{name}\"\nbuiltin = {{}}\n"));
        }
        let mut config = MatchConfig::parse(&text, "t.toml").unwrap();
        if sprt {
            config.sprt =
                Some(SprtParams::new(0.0, 5.0, 0.05, 0.05, SprtModel::Normalized).unwrap());
        }
        let mut console = Console::new(&config, ProgressStyle::Lines);
        console.facts = engines
            .iter()
            .map(|name| EngineFacts {
                name: name.to_string(),
                time_control: config.time_control.clone(),
                threads: Some("1".to_string()),
                hash: Some("16".to_string()),
            })
            .collect();
        console.book = Some("UHO_Lichess_4852_v1.epd".to_string());
        console
    }

    /// The princesslana/princhess PR #343 numbers the research notes quote.
    fn new_vs_base() -> PairingStats {
        let mut p = PairingStats::new("New", "Base");
        p.wdl = Wdl::new(34, 137, 29);
        p.games_wdl = p.wdl;
        p.ptnml = Pentanomial::new(1, 22, 52, 21, 4);
        p.wl_pairs = 5;
        p.dd_pairs = 47;
        p
    }

    #[test]
    fn the_fastchess_block_is_byte_for_byte_fastchess() {
        let console = console(&["New", "Base"], true);
        let block = console.results_block(&[new_vs_base()], Block::Final);
        let rule = "-".repeat(50);
        assert_eq!(block[0], rule);
        assert_eq!(
            block[1],
            "Results of New vs Base (5000 nodes, 1t, 16MB, UHO_Lichess_4852_v1.epd):"
        );
        assert_eq!(block[2], "Elo: 8.69 +/- 27.04, nElo: 15.51 +/- 48.15");
        assert_eq!(
            block[3],
            "LOS: 73.60 %, DrawRatio: 52.00 %, PairsRatio: 1.09"
        );
        assert_eq!(
            block[4],
            "Games: 200, Wins: 34, Losses: 29, Draws: 137, Points: 102.5 (51.25 %)"
        );
        assert_eq!(
            block[5],
            "Ptnml(0-2): [1, 22, 52, 21, 4], WL/DD Ratio: 0.11"
        );
        assert!(block[6].starts_with("LLR: ") && block[6].ends_with(" (-2.94, 2.94) [0.00, 5.00]"));
        assert_eq!(block[7], rule);
        assert_eq!(block.len(), 8);
    }

    #[test]
    fn by_pairs_a_block_during_the_run_counts_complete_pairs_and_the_last_every_game() {
        let console = console(&["New", "Base"], true);
        let mut p = PairingStats::new("New", "Base");
        p.add_game(0, 1.0);
        p.add_game(0, 0.5);
        p.add_game(1, 0.0); // its partner is still being played
        let games_line = |block: &[String]| -> String {
            block
                .iter()
                .find(|l| l.starts_with("Games:"))
                .unwrap()
                .clone()
        };
        let during = console.results_block(std::slice::from_ref(&p), Block::Interval);
        assert!(games_line(&during).starts_with("Games: 2, Wins: 1, Losses: 0, Draws: 1,"));
        assert!(during.contains(&"Unpaired games: 1 (not yet in Games or Ptnml)".to_string()));
        let last = console.results_block(&[p], Block::Final);
        assert!(games_line(&last).starts_with("Games: 3, Wins: 1, Losses: 1, Draws: 1,"));
        assert!(last.contains(&"Unpaired games: 1 (in Games, not in Ptnml)".to_string()));
    }

    #[test]
    fn without_penta_the_block_counts_games_and_has_no_ptnml_line() {
        let mut console = console(&["New", "Base"], false);
        console.penta = false;
        let mut p = new_vs_base();
        p.games_wdl = Wdl::new(35, 138, 29); // one more game of each kind that is not paired
        let block = console.results_block(&[p], Block::Final);
        assert_eq!(block.len(), 6, "{block:?}");
        assert!(block[3].starts_with("LOS: ") && !block[3].contains("PairsRatio"));
        assert!(block[4].starts_with("Games: 202, Wins: 35, Losses: 29, Draws: 138,"));
        assert!(!block.iter().any(|l| l.starts_with("Ptnml")));
    }

    #[test]
    fn cutechess_lines_replace_the_block() {
        let mut console = console(&["New", "Base"], true);
        console.format = ResultsFormat::Cutechess;
        console.penta = false;
        let block = console.results_block(&[new_vs_base()], Block::Final);
        assert_eq!(block[0], "Score of New vs Base: 34 - 29 - 137  [0.512] 200");
        assert!(
            block[1].starts_with("Elo difference: 8.7 +/- "),
            "{block:?}"
        );
        assert!(block[1].contains(", LOS: ") && block[1].ends_with(", DrawRatio: 68.5 %"));
        assert!(
            block[2].starts_with("SPRT: llr ") && block[2].ends_with("lbound -2.94, ubound 2.94"),
            "{block:?}"
        );
        assert_eq!(block.len(), 3);
    }

    #[test]
    fn three_engines_get_a_fastchess_ranking_table() {
        let console = console(&["alpha", "beta", "gamma"], false);
        let mut ab = PairingStats::new("alpha", "beta");
        let mut ac = PairingStats::new("alpha", "gamma");
        let mut bc = PairingStats::new("beta", "gamma");
        // alpha wins both pairs, beta and gamma draw theirs.
        for (p, scores) in [
            (&mut ab, [1.0, 1.0]),
            (&mut ac, [1.0, 0.5]),
            (&mut bc, [0.5, 0.5]),
        ] {
            p.add_game(1, scores[0]);
            p.add_game(1, scores[1]);
        }
        let block = console.results_block(&[ab, ac, bc], Block::Final);
        assert_eq!(
            block[1],
            format!(
                "{:<4} {:<25} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>20}",
                "Rank", "Name", "Elo", "+/-", "nElo", "+/-", "Games", "Score", "Draw", "Ptnml(0-2)"
            )
        );
        assert!(block[2].starts_with("   1 alpha      "), "{block:?}");
        assert!(block[2].ends_with("[0, 0, 0, 1, 1]"), "{block:?}");
        assert!(
            block[2].contains("       4      87.5%       0.0% "),
            "{block:?}"
        );
        let names: Vec<&str> = block[2..5]
            .iter()
            .map(|l| l.split_whitespace().nth(1).unwrap())
            .collect();
        assert_eq!(names[0], "alpha");
        assert_eq!(block.len(), 6);
    }

    #[test]
    fn figures_have_two_decimals_and_no_negative_zero() {
        assert_eq!(fmt2(-0.001), "0.00");
        assert_eq!(fmt2(-0.0), "0.00");
        assert_eq!(fmt2(-1.234), "-1.23");
        assert_eq!(fmt2(f64::NAN), "nan");
        assert_eq!(fmt2(f64::NEG_INFINITY), "-inf");
    }
}
