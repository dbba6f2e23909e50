//! `sparring data info|convert|shuffle|interleave`: training-data files (viriformat,
//! marlinformat, bulletformat, bullet's text). The library (`sparring::data`) does the work;
//! this file parses and renders.

use clap::{Args, Subcommand};
use sparring::data::{
    self, ConvertReport, DataFormat, DataInfo, Filter, RandomSkip, ShuffleOptions, FILTER_NAMES,
    SCORE_EDGES,
};
use std::path::PathBuf;

/// Arguments of `sparring data`.
#[derive(Args, Debug)]
pub struct DataArgs {
    #[command(subcommand)]
    pub command: DataCommand,
}

/// What to do with data files. A file's format comes from its extension (`.viriformat`,
/// `.marlinformat`, `.bulletformat`, `.txt`) unless named.
#[derive(Subcommand, Debug)]
pub enum DataCommand {
    /// Count games, positions and results, with score and piece-count histograms; a damaged
    /// file names its first bad record (byte offset or line) and exits with status 2.
    Info(InfoArgs),
    /// Convert between formats, dropping positions by viriformat's filters. Viriformat becomes
    /// any format; a position format cannot become viriformat.
    Convert(ConvertArgs),
    /// Shuffle a position file into a seeded random order in bounded memory: records go to
    /// temporary buckets beside the output, each holding half of --memory-mb on average, and
    /// one bucket at a time is shuffled in memory.
    Shuffle(ShuffleArgs),
    /// Merge files of one format, taking each next record from a file chosen with probability
    /// proportional to the records it has left (seeded).
    Interleave(InterleaveArgs),
}

fn format(name: &str) -> Result<DataFormat, String> {
    DataFormat::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = DataFormat::ALL.iter().map(|f| f.name()).collect();
        format!("expected one of {}", names.join(", "))
    })
}

/// Arguments of `sparring data info`.
#[derive(Args, Debug)]
pub struct InfoArgs {
    /// The data file.
    pub file: PathBuf,
    /// Its format, if the extension does not say.
    #[arg(long, value_parser = format)]
    pub format: Option<DataFormat>,
}

/// Arguments of `sparring data convert`.
#[derive(Args, Debug)]
pub struct ConvertArgs {
    /// The input files (one format each; all of them with --from).
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// The output format: viriformat, marlinformat, bulletformat or text.
    #[arg(long, value_parser = format)]
    pub to: DataFormat,
    /// The output file (written as OUT.partial, renamed when complete).
    #[arg(short, long)]
    pub output: PathBuf,
    /// The inputs' format, if the extensions do not say.
    #[arg(long, value_parser = format)]
    pub from: Option<DataFormat>,
    /// Drop positions before this ply.
    #[arg(long, default_value_t = 0)]
    pub min_ply: u32,
    /// Drop positions with fewer pieces (kings included).
    #[arg(long, default_value_t = 0)]
    pub min_pieces: u32,
    /// Drop positions with |score| at least this (31339 drops every mate score).
    #[arg(long)]
    pub max_eval: Option<u32>,
    /// Drop positions where the side to move is in check.
    #[arg(long)]
    pub filter_check: bool,
    /// Drop positions whose move played is a capture, en passant or promotion (viriformat input).
    #[arg(long)]
    pub filter_tactical: bool,
    /// Drop positions whose move played is castling (viriformat input).
    #[arg(long)]
    pub filter_castling: bool,
    /// Drop scores this far from the result: |score| above it in a draw, the winner's score
    /// below minus it in a win.
    #[arg(long)]
    pub max_eval_incorrectness: Option<u32>,
    /// Drop each position the filters keep with this probability, in [0, 1) (viriformat's
    /// random skip; as the trainer's `filter.skip_probability`).
    #[arg(long, value_parser = probability, default_value_t = 0.0)]
    pub random_skip: f64,
    /// The seed of the random skip's draws.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// A probability in [0, 1).
fn probability(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(p) if (0.0..1.0).contains(&p) => Ok(p),
        _ => Err(format!("{text:?} is not a probability in [0, 1)")),
    }
}

/// Arguments of `sparring data shuffle`.
#[derive(Args, Debug)]
pub struct ShuffleArgs {
    /// The position file (marlinformat, bulletformat or text).
    pub input: PathBuf,
    /// The output file.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Its format, if the extension does not say.
    #[arg(long, value_parser = format)]
    pub format: Option<DataFormat>,
    /// The seed of the order.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The memory budget in MiB (at most 1024 buckets: a file larger than 512 budgets is refused).
    #[arg(long, default_value_t = 1024)]
    pub memory_mb: u64,
}

/// Arguments of `sparring data interleave`.
#[derive(Args, Debug)]
pub struct InterleaveArgs {
    /// The input files, all of one format.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// The output file.
    #[arg(short, long)]
    pub output: PathBuf,
    /// The inputs' format, if the extensions do not say.
    #[arg(long, value_parser = format)]
    pub format: Option<DataFormat>,
    /// The seed of the order.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Runs `sparring data ...`.
pub fn run(args: &DataArgs) -> anyhow::Result<()> {
    match &args.command {
        DataCommand::Info(a) => {
            out!("{}", render_info(&data::info(&a.file, a.format)?))?;
            Ok(())
        }
        DataCommand::Convert(a) => {
            let filter = Filter {
                min_ply: a.min_ply,
                min_pieces: a.min_pieces,
                max_eval: a.max_eval,
                filter_check: a.filter_check,
                filter_tactical: a.filter_tactical,
                filter_castling: a.filter_castling,
                max_eval_incorrectness: a.max_eval_incorrectness,
            };
            let skip = RandomSkip {
                probability: a.random_skip,
                seed: a.seed,
            };
            let report = data::convert(&a.inputs, a.from, a.to, &a.output, &filter, skip)?;
            out!("{}", render_convert(&report))?;
            Ok(())
        }
        DataCommand::Shuffle(a) => {
            let options = ShuffleOptions {
                seed: a.seed,
                memory_mb: a.memory_mb,
            };
            let n = data::shuffle(&a.input, a.format, &a.output, options)?;
            outln!("shuffled {n} records into {}", a.output.display())?;
            Ok(())
        }
        DataCommand::Interleave(a) => {
            let n = data::interleave(&a.inputs, a.format, &a.output, a.seed)?;
            outln!("interleaved {n} records into {}", a.output.display())?;
            Ok(())
        }
    }
}

/// `info`'s report: one `key value` line per figure, then the two histograms.
fn render_info(info: &DataInfo) -> String {
    let mut text = format!("format {}\n", info.format.name());
    if let Some(games) = info.games {
        text += &format!("games {games}\n");
    }
    text += &format!("positions {}\n", info.positions);
    let [w, d, l] = info.results;
    text += &format!("results white {w} draw {d} black {l}\n");
    text += "scores (White-relative cp)\n";
    for (i, count) in info.scores.iter().enumerate() {
        let label = match (i.checked_sub(1).map(|j| SCORE_EDGES[j]), SCORE_EDGES.get(i)) {
            (None, Some(hi)) => format!("<= {}", hi - 1),
            (Some(lo), Some(hi)) => format!("{lo}..{}", hi - 1),
            (Some(lo), None) => format!(">= {lo}"),
            (None, None) => unreachable!("there are edges"),
        };
        text += &format!("  {label:>14} {count}\n");
    }
    text += "pieces\n";
    for (n, count) in info.pieces.iter().enumerate().filter(|(_, &c)| c > 0) {
        text += &format!("  {n:>2} {count}\n");
    }
    text
}

fn render_convert(report: &ConvertReport) -> String {
    let mut text = format!("read {}\nwritten {}\n", report.read, report.written);
    for (name, count) in FILTER_NAMES.iter().zip(report.dropped) {
        if count > 0 {
            text += &format!("dropped by {name} {count}\n");
        }
    }
    if report.skipped > 0 {
        text += &format!("skipped at random {}\n", report.skipped);
    }
    text
}
