//! The console of a run: the progress lines or bar, and the results lines of the run's
//! format (`results.rs`), printed as the tournament's events arrive.

use super::engine_table::{engine_table, warning_counts};
use super::results::{fmt2, output_for, Block, ResultsOutput, RunFacts};
use super::ProgressStyle;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle as ProgressStyle_};
use sparring::arena::{AdjudicationCounts, EngineFigures, Event, MatchConfig, PairingStats};
use sparring::record::GameRecord;
use sparring::stats::{JointRatings, RatingsError, SprtDecision};
use std::io::IsTerminal;
use std::time::Duration;

/// Shows a tournament's events: fastchess-style lines (which log parsers read) or a progress bar
/// on the terminal.
pub(super) struct Console {
    bar: Option<ProgressBar>,
    /// What the results lines say about the run.
    run: RunFacts,
    /// The results lines of the run's format.
    output: Box<dyn ResultsOutput>,
    /// The SPRT verdicts, printed after the last results block.
    decided: Vec<Option<SprtDecision>>,
    /// Whether the last results block printed is out of date (a game finished since), so
    /// the end of the run prints it once more.
    block_stale: bool,
    /// A shard's or wave's first 0-based game number and its name (`shard 2/4`), for the
    /// progress lines; `None` for the whole run.
    slice: Option<(u64, String)>,
    /// `compliance.warning_lines`: how a warning's parts are joined on the console (`" :: "`
    /// under `-testEnv`, else line breaks); None: warnings are not printed.
    warning_separator: Option<&'static str>,
    /// The first failed write to standard output (its reader went away): nothing more is
    /// printed, the run goes on, and `printed` returns the error at its end.
    printed: std::io::Result<()>,
}

impl Console {
    pub(super) fn new(config: &MatchConfig, style: ProgressStyle) -> Console {
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
        Console {
            bar,
            run: RunFacts::of(config),
            output: output_for(config.output.format),
            decided: Vec::new(),
            block_stale: true,
            slice: None,
            warning_separator: config.compliance.warning_lines.then_some(
                if config.compliance.one_line {
                    " :: "
                } else {
                    "\n"
                },
            ),
            printed: Ok(()),
        }
    }

    /// Whether every line reached standard output: the first write error, if any.
    pub(super) fn printed(self) -> std::io::Result<()> {
        self.printed
    }

    /// Numbers the progress lines within a shard or wave starting at 0-based game `start`.
    pub(super) fn set_slice(&mut self, start: u64, name: String) {
        self.slice = Some((start, name));
    }

    /// Prints lines above the bar (or plainly without one), until a write fails.
    fn print(&mut self, lines: &[String]) {
        if self.printed.is_err() {
            return;
        }
        let print_lines = || lines.iter().try_for_each(|l| outln!("{l}"));
        self.printed = match &self.bar {
            Some(bar) => bar.suspend(print_lines),
            None => print_lines(),
        };
    }

    pub(super) fn show(&mut self, event: Event<'_>) {
        match event {
            Event::ResumedWithoutFingerprint { dir } => eprintln!(
                "warning: {} has no run.toml (written by an older sparring): the configuration \
                 cannot be compared with the run's; writing run.toml from this one",
                dir.display()
            ),
            Event::ResumedWithoutFigures { path, games } => eprintln!(
                "warning: {} holds no engine figures for {games} game(s) played before (the \
                 directory was written by an older sparring, or the file was removed): \
                 ranking.csv's and the engine table's moves, depth, speed, time and fault \
                 columns leave them out",
                path.display()
            ),
            Event::EnginesReady { engines } => self.run.facts = engines.to_vec(),
            // fastchess's words (fishtest's worker stops a task on them, as with fastchess).
            // Printed on every dialect: the run goes on without what was configured.
            Event::OptionWarning { engine, warning } => {
                self.print(&warning.fastchess_parts(engine, ""))
            }
            Event::EngineWarning {
                engine,
                opponent,
                warning,
                ..
            } => {
                // fastchess's words, one event at a time (fishtest's worker reads them); the
                // latency note goes to the engine log only, as in fastchess.
                if let (Some(separator), true) = (self.warning_separator, warning.is_warning()) {
                    self.print(&[warning.fastchess_parts(engine, opponent).join(separator)]);
                }
            }
            // fastchess's `-crc32 pgn=true` line: `{:#x}` is Python's hex() form, which
            // fishtest's worker compares as a string.
            Event::PgnChecksum { file, crc32 } => {
                self.print(&[format!("File {file} has CRC32: {crc32:#x}")])
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
            } => self.game_started(game_id, total, white, black),
            Event::GameFinished {
                record,
                done,
                pairings,
                ..
            } => self.game_finished(record, done, pairings),
            Event::ResultsDue { pairings } => {
                self.block_stale = false;
                self.print(
                    &self
                        .output
                        .results_block(&self.run, pairings, Block::Interval),
                );
            }
            Event::SprtDecided { decisions, .. } => self.decided = decisions.to_vec(),
            Event::RunFinished {
                pairings,
                decisions,
                figures,
                elapsed,
                adjudications,
                ratings,
            } => {
                let ending = RunEnding {
                    decisions,
                    figures,
                    elapsed,
                    adjudications,
                    ratings,
                };
                self.run_finished(pairings, ending)
            }
        }
    }

    /// Without a bar, the game's "Started game" line.
    fn game_started(&mut self, game_id: u64, total: u64, white: &str, black: &str) {
        if self.bar.is_some() {
            return;
        }
        let line = match &self.slice {
            // A shard's or wave's games are numbered as in the whole run: say where the game
            // stands in this part too.
            Some((start, part)) => format!(
                "Started game {game_id} ({} of {total} in {part}) ({white} vs {black})",
                game_id - start
            ),
            // fastchess's line, which OpenBench and fishtest parse.
            None => format!("Started game {game_id} of {total} ({white} vs {black})"),
        };
        self.print(&[line]);
    }

    /// The bar moves on and shows the first pairing's Elo (and LLR); without a bar, the
    /// "Finished game" line and what the format prints after a game.
    fn game_finished(&mut self, record: &GameRecord, done: u64, pairings: &[PairingStats]) {
        self.block_stale = true;
        let Some(bar) = &self.bar else {
            let mut lines = vec![format!(
                "Finished game {} ({} vs {}): {} {{{}}}",
                record.game_id, record.white, record.black, record.result, record.reason
            )];
            lines.extend(self.output.after_game(pairings));
            self.print(&lines);
            return;
        };
        bar.set_position(done);
        let mut message = String::new();
        if let Some(p) = pairings.first() {
            if let Some(e) = p.ptnml.estimate() {
                message.push_str(&format!("Elo {} +/- {}", fmt2(e.elo), fmt2(e.elo_error)));
            }
            if let Some(sprt) = &self.run.sprt {
                if let Ok(llr) = sprt.llr_ptnml(p.ptnml) {
                    message.push_str(&format!("  LLR {llr:.2}"));
                }
            }
        }
        bar.set_message(message);
    }

    /// The end of the run: the last results block (unless just printed), the joint ratings,
    /// the SPRT verdicts, the format's end notes, the engine table and the total time.
    fn run_finished(&mut self, pairings: &[PairingStats], ending: RunEnding<'_>) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        // The block of the last game, unless the interval just printed it.
        let mut lines = if self.block_stale {
            self.output.results_block(&self.run, pairings, Block::Final)
        } else {
            Vec::new()
        };
        if let Some(ratings) = ending.ratings {
            lines.extend(self.output.joint_ratings(ratings));
        }
        let RunEnding {
            decisions,
            figures,
            elapsed,
            adjudications,
            ..
        } = ending;
        if let Some(sprt) = &self.run.sprt {
            let several = pairings.len() > 1;
            for (p, d) in pairings.iter().zip(decisions) {
                let decision = match d {
                    Some(d @ (SprtDecision::AcceptH1 | SprtDecision::AcceptH0)) => *d,
                    _ => continue,
                };
                let line = self.output.sprt_verdict(sprt, decision);
                lines.push(if several {
                    format!("{line} ({} vs {})", p.first, p.second)
                } else {
                    line
                });
            }
        }
        lines.extend(self.output.end_notes(&self.run, figures));
        lines.extend(engine_table(&self.run.names, figures));
        lines.extend(warning_counts(&self.run.names, figures));
        lines.extend(adjudication_line(adjudications));
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

/// What `Event::RunFinished` says besides the pairings.
struct RunEnding<'a> {
    decisions: &'a [Option<SprtDecision>],
    figures: &'a [EngineFigures],
    elapsed: Duration,
    adjudications: AdjudicationCounts,
    ratings: Option<&'a Result<JointRatings, RatingsError>>,
}

/// How many of the run's games (resumed ones included) each adjudication rule ended (nothing
/// when none was).
fn adjudication_line(a: AdjudicationCounts) -> Option<String> {
    (a.total() > 0).then(|| {
        format!(
            "Adjudicated games: {} by tablebase, {} draw, {} resign, {} at the maximal length",
            a.tablebase, a.draw, a.resign, a.max_moves
        )
    })
}
