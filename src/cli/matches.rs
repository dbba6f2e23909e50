//! `sparring match` (a tournament from a TOML configuration) and `sparring stats` (Elo, LOS and
//! SPRT figures from counts).

use super::UsageError;
use crate::arena::{run_tournament, MatchConfig, OpeningSource, RunOptions, StartPosition};
use crate::openings::{BookOptions, OpeningBook, OpeningFormat};
use crate::stats::{report_ptnml, report_wdl, Pentanomial, SprtModel, SprtParams, Wdl};
use anyhow::Context;
use std::path::PathBuf;
use std::sync::Arc;

pub struct MatchArgs {
    pub config: PathBuf,
    pub concurrency: Option<usize>,
    pub rounds: Option<u32>,
    pub seed: Option<u64>,
    pub out: Option<PathBuf>,
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
    .map_err(|e| UsageError(e.to_string()))
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

pub struct StatsArgs {
    pub wdl: Option<String>,
    pub ptnml: Option<String>,
    pub elo0: Option<f64>,
    pub elo1: Option<f64>,
    pub alpha: f64,
    pub beta: f64,
    pub model: String,
}

pub fn run_stats(args: &StatsArgs) -> anyhow::Result<()> {
    let sprt = match (args.elo0, args.elo1) {
        (None, None) => None,
        (Some(elo0), Some(elo1)) => {
            let model: SprtModel = args
                .model
                .parse()
                .map_err(|e: crate::stats::StatsError| UsageError(format!("--model: {e}")))?;
            Some(
                SprtParams::new(elo0, elo1, args.alpha, args.beta, model)
                    .map_err(|e| UsageError(format!("SPRT parameters: {e}")))?,
            )
        }
        _ => return Err(UsageError("--elo0 and --elo1 go together".to_string()).into()),
    };
    let lines = match (&args.wdl, &args.ptnml) {
        (Some(text), None) => {
            let wdl: Wdl = text
                .parse()
                .map_err(|e: crate::stats::StatsError| UsageError(format!("--wdl {text}: {e}")))?;
            report_wdl(wdl, sprt.as_ref())
        }
        (None, Some(text)) => {
            let p: Pentanomial = text.parse().map_err(|e: crate::stats::StatsError| {
                UsageError(format!("--ptnml {text}: {e}"))
            })?;
            report_ptnml(p, sprt.as_ref())
        }
        _ => {
            return Err(UsageError(
                "give exactly one of --wdl W,D,L or --ptnml LL,LD,DD,WD,WW".to_string(),
            )
            .into())
        }
    };
    for (key, value) in lines {
        println!("{key}: {value}");
    }
    Ok(())
}
