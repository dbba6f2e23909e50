//! `sparring match` (a tournament from a TOML configuration) and `sparring stats` (Elo, LOS and
//! SPRT figures from counts).

mod console;
mod cutechess;
mod engine_table;
mod fastchess;
mod results;

use super::shard::ShardArgs;
use super::UsageError;
use anyhow::Context;
use console::Console;
use sparring::arena::config::PositionsFormat;
use sparring::arena::{
    openings_of, run_tournament, BookSetupError, MatchConfig, OpeningSource, RunOptions,
};
use sparring::arena::{Slice, Wave};
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
    let mut config = MatchConfig::load(&args.config)?;
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
    let (source, rejected) = openings_of(config).map_err(|e| {
        let message = match e {
            // The book's own line is the place to look; the configuration is named after it.
            BookSetupError::Chess960InStandard { .. } => format!("{e} ({})", config.source),
            _ => format!("{}: {e}", config.source),
        };
        // The message holds the error's text, which the chain then leaves out; the typed
        // error stays in the chain for its class.
        anyhow::Error::new(e).context(message)
    })?;
    for bad in rejected {
        eprintln!("warning: skipped opening {bad}");
    }
    Ok(source)
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
// Called by the fastchess/cutechess dialect's command line (src/cli/dialect/).
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
        console.set_slice(slice.games(config.total_games()).start, slice.to_string());
    }
    super::interrupt::install();
    let summary = run_tournament(config, openings, options, &mut |event| console.show(event))?;
    console.printed()?;
    outln!(
        "Results in {}: {}, games.csv, summary.csv, ranking.csv{}{}",
        summary.output_dir.display(),
        config.output.pgn_name,
        if matches!(summary.ratings, Some(Ok(_))) {
            ", ratings.csv"
        } else {
            ""
        },
        match (config.output.positions, config.output.positions_format) {
            (false, _) => "",
            (true, PositionsFormat::Epd) => ", positions.epd",
            (true, PositionsFormat::Bullet) => ", positions.bullet",
            (true, PositionsFormat::Both) => ", positions.epd, positions.bullet",
        }
    )?;
    Ok(())
}
