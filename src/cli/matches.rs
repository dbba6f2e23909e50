//! `sparring match`: a tournament from a TOML configuration.

use super::UsageError;
use anyhow::Context;
use sparring::arena::{run_tournament, MatchConfig, OpeningSource, RunOptions, StartPosition};
use sparring::openings::{BookOptions, OpeningBook, OpeningFormat};
use std::path::PathBuf;
use std::sync::Arc;

/// Arguments of `sparring match`.
#[derive(clap::Args, Debug)]
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

pub fn run(args: &MatchArgs) -> anyhow::Result<()> {
    let config = load_config(args)?;
    let openings = opening_source(&config)?;
    let summary = run_tournament(
        &config,
        openings,
        &RunOptions {
            resume: args.resume,
            quiet: false,
        },
    )
    .with_context(|| format!("match {}", args.config.display()))?;
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
