//! `sparring stats`: Elo, error bars, LOS and SPRT figures from result counts.

use super::UsageError;
use anyhow::Context;
use clap::{ArgGroup, Args};
use sparring::stats::{report_ptnml, report_wdl, Pentanomial, SprtModel, SprtParams, Wdl};

/// Arguments of `sparring stats`: exactly one of `--wdl` and `--ptnml`.
#[derive(Args, Debug)]
#[command(group(ArgGroup::new("counts").required(true).args(["wdl", "ptnml"])))]
pub struct StatsArgs {
    /// Wins, draws, losses: `--wdl 120,300,100`.
    // Hyphen values reach the parser, which says a count is negative, instead of clap taking
    // `-1,2,3` for a flag.
    #[arg(long, value_name = "W,D,L", allow_hyphen_values = true)]
    pub wdl: Option<Wdl>,
    /// Pentanomial pair counts: `--ptnml 5,40,100,45,10`.
    #[arg(long, value_name = "LL,LD,DD,WD,WW", allow_hyphen_values = true)]
    pub ptnml: Option<Pentanomial>,
    /// SPRT null hypothesis (Elo); needs --elo1.
    #[arg(long, allow_hyphen_values = true, requires = "elo1")]
    pub elo0: Option<f64>,
    /// SPRT alternative hypothesis (Elo); needs --elo0.
    #[arg(long, allow_hyphen_values = true, requires = "elo0")]
    pub elo1: Option<f64>,
    /// SPRT false-positive rate, above 0 and below 0.5 (default 0.05); needs --elo0/--elo1.
    // Without an SPRT an error rate would be ignored, so clap refuses it (status 2).
    #[arg(long, allow_hyphen_values = true, requires = "elo0")]
    pub alpha: Option<f64>,
    /// SPRT false-negative rate, above 0 and below 0.5 (default 0.05); needs --elo0/--elo1.
    #[arg(long, allow_hyphen_values = true, requires = "elo0")]
    pub beta: Option<f64>,
    /// normalized, logistic or bayeselo.
    #[arg(long, default_value = "normalized")]
    pub model: SprtModel,
}

/// Prints one `key: value` line per figure.
pub fn run(args: &StatsArgs) -> anyhow::Result<()> {
    let sprt = match (args.elo0, args.elo1) {
        (Some(elo0), Some(elo1)) => Some(
            SprtParams::new(
                elo0,
                elo1,
                args.alpha.unwrap_or(0.05),
                args.beta.unwrap_or(0.05),
                args.model,
            )
            .context("SPRT parameters")?,
        ),
        // clap makes the two flags require each other.
        _ => None,
    };
    let lines = match (args.wdl, args.ptnml) {
        (Some(wdl), None) => report_wdl(wdl, sprt.as_ref()),
        (None, Some(ptnml)) => report_ptnml(ptnml, sprt.as_ref()),
        _ => {
            return Err(UsageError(
                "give exactly one of --wdl W,D,L or --ptnml LL,LD,DD,WD,WW".to_string(),
            )
            .into())
        }
    };
    for (key, value) in lines {
        outln!("{key}: {value}")?;
    }
    Ok(())
}
