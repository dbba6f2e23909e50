//! `sparring datagen CONFIG.toml [overrides]`: self-play training data (docs/datagen.md).

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use sparring::arena::Shard;
use sparring::datagen::{
    run_datagen, DatagenConfig, DatagenEvent, DatagenOptions, DatagenSummary, Overrides,
};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `sparring datagen`.
#[derive(Args, Debug)]
pub struct DatagenArgs {
    /// The run's TOML configuration (configs/datagen.toml documents every key); optional when
    /// the flags give at least --games and --out.
    pub config: Option<PathBuf>,
    /// `builtin`, or an engine's command line in quotes ("./engine --flag").
    #[arg(long)]
    pub engine: Option<String>,
    /// Soft node limit per move (`go nodes N`).
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Games in the whole run.
    #[arg(long)]
    pub games: Option<u64>,
    /// Random legal plies before the engine plays.
    #[arg(long)]
    pub random_plies: Option<usize>,
    /// viriformat, bulletformat, marlinformat or text.
    #[arg(long)]
    pub format: Option<String>,
    /// The run's directory (data file, run.toml, state.toml).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Games played at once, one engine each.
    #[arg(long)]
    pub concurrency: Option<usize>,
    /// The openings' seed.
    #[arg(long)]
    pub seed: Option<u64>,
    /// standard, chess960 or dfrc.
    #[arg(long)]
    pub variant: Option<String>,
    /// Syzygy tables: a game ends with the tables' verdict.
    #[arg(long)]
    pub tb: Option<PathBuf>,
    /// Continue the run in --out after an interruption.
    #[arg(long)]
    pub resume: bool,
    /// Play only block I of N of the games (0-based); the shards' files concatenated in
    /// order are the single run's.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// Progress as `lines`, a `bar`, or `auto` (a bar on a terminal).
    #[arg(long, default_value = "auto")]
    pub progress: String,
    /// Stop after this many games (tests stand in for a killed run with it).
    #[arg(long, hide = true)]
    pub stop_after: Option<u64>,
}

/// Runs `sparring datagen`.
pub fn run(args: &DatagenArgs) -> anyhow::Result<()> {
    let overrides = Overrides {
        engine: args.engine.clone(),
        nodes: args.nodes,
        games: args.games,
        random_plies: args.random_plies,
        format: args.format.clone(),
        out: args.out.clone(),
        concurrency: args.concurrency,
        seed: args.seed,
        variant: args.variant.clone(),
        tb: args.tb.clone(),
    };
    let config = DatagenConfig::load(args.config.as_deref(), &overrides)?;
    let shard = args.shard.as_deref().map(Shard::parse).transpose()?;
    let options = DatagenOptions {
        resume: args.resume,
        shard,
        stop_after: args.stop_after,
        stop: None,
    };
    let bar = match args.progress.as_str() {
        "bar" => true,
        "lines" => false,
        "auto" => std::io::stdout().is_terminal(),
        other => anyhow::bail!(super::UsageError(format!(
            "--progress {other}: expected lines, bar or auto"
        ))),
    };
    super::interrupt::install();
    let mut console = Console::new(bar);
    let summary = run_datagen(&config, &options, &mut |event| console.event(event))?;
    console.finish(&summary)?;
    Ok(())
}

/// The progress display: a bar with positions/s and an ETA, or a line per game.
struct Console {
    bar: Option<ProgressBar>,
    use_bar: bool,
    started: Instant,
    games: u64,
    done_before: u64,
    /// The first failed write to standard output (its reader went away): nothing more is
    /// printed, the run goes on, and `finish` returns the error at its end.
    printed: std::io::Result<()>,
}

impl Console {
    fn new(use_bar: bool) -> Console {
        Console {
            bar: None,
            use_bar,
            started: Instant::now(),
            games: 0,
            done_before: 0,
            printed: Ok(()),
        }
    }

    fn event(&mut self, event: &DatagenEvent) {
        if self.printed.is_ok() {
            self.printed = self.show(event);
        }
    }

    fn show(&mut self, event: &DatagenEvent) -> std::io::Result<()> {
        match event {
            DatagenEvent::Started {
                engine,
                games,
                done,
                data_file,
            } => {
                self.games = *games;
                self.done_before = *done;
                self.started = Instant::now();
                outln!(
                    "datagen: {engine}, {games} games ({done} complete) into {}",
                    data_file.display()
                )?;
                if self.use_bar {
                    let bar = ProgressBar::new(*games);
                    bar.set_style(
                        ProgressStyle::with_template(
                            "{bar:40} {pos}/{len} games  {msg}  ETA {eta}",
                        )
                        .expect("a valid template"),
                    );
                    bar.set_position(*done);
                    self.bar = Some(bar);
                }
            }
            DatagenEvent::GameWritten {
                game,
                positions,
                done,
                session_positions,
            } => {
                let seconds = self.started.elapsed().as_secs_f64().max(1e-3);
                let rate = *session_positions as f64 / seconds;
                let session_games = done - self.done_before;
                let left = self.games - done;
                let eta = seconds / session_games.max(1) as f64 * left as f64;
                match &self.bar {
                    Some(bar) => {
                        bar.set_position(*done);
                        bar.set_message(format!("{session_positions} positions, {rate:.0} pos/s"));
                    }
                    None => outln!(
                        "game {} written: {positions} positions; {done}/{} games, {session_positions} positions, {rate:.0} pos/s, ETA {eta:.0}s",
                        game + 1,
                        self.games
                    )?,
                }
            }
            DatagenEvent::GameDropped { game, reason } => {
                let line = format!("game {} dropped (engine restarted): {reason}", game + 1);
                match &self.bar {
                    Some(bar) => bar.println(line),
                    None => outln!("{line}")?,
                }
            }
        }
        Ok(())
    }

    fn finish(mut self, summary: &DatagenSummary) -> std::io::Result<()> {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        self.printed?;
        let seconds = self.started.elapsed().as_secs_f64();
        outln!(
            "datagen {}: {} games written, {} dropped, {} positions, {} bytes ({seconds:.1}s this session)",
            if summary.complete { "finished" } else { "stopped" },
            summary.games,
            summary.dropped,
            summary.positions,
            summary.bytes,
        )?;
        let worker_seconds = summary.workers as f64 * summary.session_time.as_secs_f64();
        if worker_seconds > 0.0 {
            let searching = summary.search_time.as_secs_f64();
            outln!(
                "time: {searching:.1}s of {worker_seconds:.1}s worker time in the engine's searches ({:.1} %), {:.1} % outside ({} workers)",
                100.0 * searching / worker_seconds,
                100.0 * (1.0 - searching / worker_seconds),
                summary.workers,
            )?;
        }
        Ok(())
    }
}
