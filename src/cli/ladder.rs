//! `sparring loop CONFIG.toml`: the self-play tuning loop, with progress lines that read the
//! same on a terminal and in a log file.

use anyhow::Context;
use clap::Args;
use sparring::ladder::{
    run_loop, GenerationRow, LoopConfig, LoopEvent, LoopOptions, Stage, StagePlan,
};
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Arguments of `sparring loop`.
#[derive(Args, Clone, Debug)]
#[command(long_about = LONG_ABOUT)]
pub struct LoopArgs {
    /// The loop's configuration (see configs/loop.toml and configs/loop-smoke.toml).
    pub config: PathBuf,
    /// Play up to this generation instead of the configuration's `generations` (a finished
    /// loop resumed with a larger number goes on).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub generations: Option<u32>,
    /// Continue the loop in its directory: finished generations are kept, a stage cut off is
    /// resumed. The configuration must be the one the loop started with.
    #[arg(long)]
    pub resume: bool,
    /// The run directory instead of the configuration's `output.dir`.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// A cluster driver's step: play no games here. Merge the shards of match stages played
    /// elsewhere, run the tune (and SPSA), and stop at the first match stage or gate wave
    /// whose shards are not all played, printing it as `next:` lines (`next: done` at the end).
    /// See configs/cluster/slurm-loop.sh.
    #[arg(long)]
    pub staged: bool,
}

pub(crate) const LONG_ABOUT: &str = "\
Run the self-play tuning loop: generations of play, record, tune and gate.

Each generation:
  1. selfplay  the champion plays itself (the [selfplay] match table) and the quiet
               positions of its games are recorded (gen-NNN/data.epd, in game order);
  2. tune      a challenger is Texel-tuned from the champion's weights over the positions
               of the last `tune.window` generations (the [tune] tuner table);
  3. spsa      every `spsa.every` generations (with an [spsa] table) the challenger's
               search constants (and any weights its [[spsa.param]] name) are SPSA-tuned
               through games, starting from the challenger's files;
  4. gate      the challenger plays the champion under the [gate.sprt] test, in waves of
               `gate.wave_pairs` pairs; H1 accepted promotes it, otherwise the champion
               stays and the generation's data stays in the window;
  5. anchor    every `anchor.every` generations (with an [anchor] table) the champion plays
               a fixed panel, for Elo on an absolute scale.

With `model = \"network\"` the first two stages train a network instead:
  1. datagen   the champion (hand-crafted or a network) writes training data as
               `sparring datagen` does (the [datagen] table; generation 1 reads
               `champion.data` instead when given);
  2. train     a challenger network is trained as `sparring train` does (the [train]
               table) over the data of the last `train.window` generations, from
               bullet's random start or the champion's weights (`train.init`);
the gate and the anchor are as above (configs/loop-network.toml, docs/loop.md).

Writes DIR/generations.csv (one row per generation), DIR/ladder.svg, the champion as
DIR/champion.weights.toml and DIR/champion.search.toml, and gen-NNN/ with each stage's
configuration and output. A killed loop continues with --resume; a finished generation is
never played again. Exit status 2 for bad input, 1 for a run that failed.

On a cluster, --staged plays no games: it merges the match stages' shards found played,
runs the other stages, and prints the next stage to play as shards:
  next: gen 2 gate wave 1
  next-config: DIR/gen-002/gate.toml
  next-args: --wave 1 --wave-pairs 20
  next-out: DIR/gen-002/gate-shards/wave-001
Shard I of N then runs `sparring match CONFIG ARGS --shard I/N --out OUT/shard-I-of-N
--resume`; the next `--staged --resume` run goes on from there, to `next: done`. The
result is the one-machine loop's (configs/cluster/slurm-loop.sh is a Slurm driver).";

/// Runs `sparring loop`.
pub fn run(args: &LoopArgs) -> anyhow::Result<()> {
    let config = LoopConfig::load(&args.config)?;
    let options = LoopOptions {
        generations: args.generations,
        resume: args.resume,
        output_dir: args.out.clone(),
        staged: args.staged,
    };
    super::interrupt::install();
    let mut progress = Progress::default();
    let summary = run_loop(&config, &options, &mut |event| progress.show(&event))
        .with_context(|| format!("loop {}", args.config.display()))?;
    let dir = summary.dir.display();
    outln!("Ladder: {dir}/generations.csv, {dir}/ladder.svg")?;
    match summary.champion.net {
        Some(_) => {
            outln!("Champion: {dir}/champion.net.bin (network), {dir}/champion.search.toml")?
        }
        None => outln!("Champion: {dir}/champion.weights.toml, {dir}/champion.search.toml")?,
    }
    if args.staged {
        print_plan(summary.pending.as_ref())?;
    }
    Ok(())
}

/// The `next` lines a cluster driver reads (the last lines of the output).
fn print_plan(plan: Option<&StagePlan>) -> std::io::Result<()> {
    let Some(plan) = plan else {
        return outln!("next: done");
    };
    let (wave, args) = match plan.wave {
        Some(w) => (
            format!(" wave {}", w.index),
            format!("--wave {} --wave-pairs {}", w.index, w.pairs),
        ),
        None => (String::new(), String::new()),
    };
    outln!("next: gen {} {}{wave}", plan.generation, plan.stage)?;
    outln!("next-config: {}", plan.config.display())?;
    outln!("next-args: {args}")?;
    outln!("next-out: {}", plan.shards.display())
}

/// Progress lines: stage starts and ends, and for long stages a line every few seconds.
#[derive(Default)]
struct Progress {
    last_line: Option<Instant>,
}

/// The most often a running stage prints a progress line.
const EVERY: Duration = Duration::from_secs(10);

impl Progress {
    fn due(&mut self) -> bool {
        let due = self.last_line.map_or(true, |t| t.elapsed() >= EVERY);
        if due {
            self.last_line = Some(Instant::now());
        }
        due
    }

    fn show(&mut self, event: &LoopEvent<'_>) {
        let line = match event {
            LoopEvent::Started { finished, last } if finished >= last => {
                let asked = if finished > last {
                    format!(" (asked for up to generation {last})")
                } else {
                    String::new()
                };
                let s = if *finished == 1 { "" } else { "s" };
                format!("The run already has {finished} generation{s}{asked}: nothing to play")
            }
            LoopEvent::Started { finished, last } if *finished > 0 => {
                format!("Resuming after generation {finished}; playing up to generation {last}")
            }
            LoopEvent::Started { last, .. } => format!("Playing generations 1 to {last}"),
            LoopEvent::StageStarted { generation, stage } => {
                self.last_line = Some(Instant::now());
                format!("gen {generation} {stage}: started")
            }
            LoopEvent::Game {
                generation,
                stage,
                done,
                total,
                elapsed,
            } => {
                if !self.due() {
                    return;
                }
                game_line(*generation, *stage, *done, *total, *elapsed)
            }
            LoopEvent::Epoch {
                generation,
                epoch,
                train_mse,
            } => {
                if !self.due() {
                    return;
                }
                format!("gen {generation} tune: epoch {epoch}, train MSE {train_mse:.6}")
            }
            LoopEvent::StageFinished {
                generation,
                stage,
                outcome,
            } => format!("gen {generation} {stage}: {outcome}"),
            LoopEvent::SkippedOpenings { stage, count } => {
                format!("warning: {stage}: {count} lines of the openings file skipped")
            }
            LoopEvent::GenerationFinished(row) => generation_line(row),
        };
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    }
}

fn game_line(generation: u32, stage: Stage, done: u64, total: u64, elapsed: Duration) -> String {
    let share = done as f64 / total.max(1) as f64;
    let eta = if share > 0.0 {
        format_duration(elapsed.as_secs_f64() * (1.0 - share) / share)
    } else {
        "?".to_string()
    };
    format!(
        "gen {generation} {stage}: {done}/{total} games ({:.0}%), {} elapsed, ETA {eta}",
        share * 100.0,
        format_duration(elapsed.as_secs_f64())
    )
}

fn generation_line(row: &GenerationRow) -> String {
    let anchor = match (row.anchor_elo, row.anchor_error) {
        (Some(elo), Some(error)) => format!(", anchor {elo:.0} +/- {error:.0}"),
        _ => String::new(),
    };
    let gate = match (row.elo, row.elo_error, row.llr) {
        (Some(elo), Some(error), Some(llr)) => format!(
            "{elo:+.1} +/- {error:.1} Elo, LLR {llr:.2}, {} games",
            row.gate_games
        ),
        _ => "no usable challenger".to_string(),
    };
    format!(
        "Generation {}: {} ({gate}); ladder {:+.1} +/- {:.1}{anchor}; {}",
        row.generation,
        if row.promoted {
            "promoted"
        } else {
            "kept the champion"
        },
        row.cumulative_elo,
        row.cumulative_error,
        format_duration(row.seconds)
    )
}

/// `1:05:09` or `4:02`.
fn format_duration(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}
