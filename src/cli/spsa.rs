//! `sparring spsa`: SPSA tuning through games, as a TOML configuration says.

use super::shard::ShardArgs;
use super::UsageError;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use sparring::arena::Shard;
use sparring::search::ParamKind;
use sparring::spsa::{check_split, shard_pairs};
use sparring::spsa::{
    run_spsa, run_spsa_shard, tuned_files, BuiltinObjective, Objective, RunOptions, SpsaConfig,
    SpsaEngine, SpsaEvent, SpsaPlan, SpsaSummary, UciObjective,
};
use std::path::PathBuf;
use std::time::Duration;

/// Arguments of `sparring spsa`.
#[derive(Debug, clap::Args)]
pub struct SpsaArgs {
    /// The configuration, e.g. configs/spsa.toml.
    pub config: PathBuf,
    /// Iterations (overrides `spsa.iterations`; the gains depend on it).
    #[arg(long)]
    pub iterations: Option<u64>,
    /// Games played at once (at most the machine's available parallelism).
    #[arg(long, value_parser = super::parse_thread_count)]
    pub concurrency: Option<usize>,
    /// Output directory (overrides `output.dir`).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Seed of the perturbations, the rounding and the openings (overrides `spsa.seed`).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Continue the run in the output directory where it stopped (with --shard: continue the
    /// shard). A run or shard not started yet, or killed before its first state.toml, just
    /// starts, so a scheduler can pass --resume every time.
    #[arg(long)]
    pub resume: bool,
    // A shard plays its block of every iteration's pairs (docs/spsa.md, "Shards").
    #[command(flatten)]
    pub shard: ShardArgs,
    /// With --shard: the directory on storage every shard reads and writes. The shards meet
    /// there after each iteration (pair files) and all compute the same update; shard 0
    /// writes trajectory.csv and the tuned files there.
    #[arg(long, value_name = "DIR", conflicts_with = "out")]
    pub shared: Option<PathBuf>,
    /// With --shard: how often a shard waiting for the others says which files are missing.
    #[arg(long, value_name = "SECONDS", default_value_t = 30, hide = true)]
    pub wait_report_seconds: u64,
    /// With --shard: give up (status 1) when the other shards' pair files of an iteration have
    /// not all come after this many seconds (a shard that never started); default: wait.
    #[arg(long, value_name = "SECONDS", requires = "shared")]
    pub barrier_timeout: Option<u64>,
}

/// A value for the console: integers plainly, reals with three decimals.
fn show(kind: ParamKind, v: f64) -> String {
    match kind {
        ParamKind::Int => format!("{v:.1}"),
        ParamKind::Float => format!("{v:.3}"),
    }
}

/// Runs the tuning.
pub fn run(args: &SpsaArgs) -> anyhow::Result<()> {
    let (config, shard) = configure(args)?;
    // A shard waits for the others at every iteration: Ctrl-C must end it (and any engine).
    if shard.is_some() || matches!(config.engine, SpsaEngine::Uci { .. }) {
        super::interrupt::install();
    }
    let objective: Box<dyn Objective> = match &config.engine {
        SpsaEngine::Uci { .. } => Box::new(UciObjective::new(&config)?),
        SpsaEngine::Builtin { .. } => Box::new(BuiltinObjective::new(&config)?),
    };
    let options = RunOptions {
        concurrency: config.concurrency,
        resume: args.resume,
        stop: None,
        description: config.description(),
        barrier_timeout: args.barrier_timeout.map(Duration::from_secs),
    };
    let plan = &config.plan;
    let dir = &config.output_dir;
    announce(&config, shard)?;
    let pairs_played = match shard {
        Some(shard) => {
            let block = shard_pairs(shard, plan.pairs_per_iteration);
            block.end - block.start
        }
        None => plan.pairs_per_iteration,
    };
    let mut console = Console::new(plan, pairs_played, args.wait_report_seconds);
    let mut on_event = |event: SpsaEvent<'_>| console.event(event);
    let tuned = |theta: &[f64]| tuned_files(&config, theta);
    let summary = match shard {
        Some(shard) => run_spsa_shard(
            plan,
            objective.as_ref(),
            dir,
            shard,
            &options,
            &tuned,
            &mut on_event,
        ),
        None => run_spsa(
            plan,
            objective.as_ref(),
            dir,
            &options,
            &tuned,
            &mut on_event,
        ),
    }?;
    console.bar.finish_and_clear();
    console.printed?;
    if !summary.complete {
        return Err(anyhow::anyhow!(
            "stopped after iteration {}; continue with --resume",
            summary.done
        ));
    }
    let files: Vec<String> = tuned(&summary.theta)
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    print_summary(&config, &summary, &files)?;
    if shard.is_some_and(|s| s.index != 0) {
        outln!(
            "(written by shard 0; the run's files are in {})",
            dir.display()
        )?;
        return Ok(());
    }
    suggest_verification(&config, &files)
}

/// The configuration with the command line's overrides applied, and the shard asked for.
fn configure(args: &SpsaArgs) -> anyhow::Result<(SpsaConfig, Option<Shard>)> {
    let mut config = SpsaConfig::load(&args.config)?;
    if let Some(n) = args.iterations {
        if n == 0 {
            return Err(UsageError("--iterations must be at least 1".to_string()).into());
        }
        config.plan.schedule.iterations = n;
    }
    if let Some(c) = args.concurrency {
        if c == 0 {
            return Err(UsageError("--concurrency must be at least 1".to_string()).into());
        }
        config.concurrency = c;
    }
    if let Some(seed) = args.seed {
        config.plan.seed = seed;
    }
    if let Some(out) = &args.out {
        config.output_dir = out.clone();
    }
    let shard = args.shard.requested()?;
    match (shard, &args.shared) {
        (Some(_), None) => {
            return Err(UsageError(
                "--shard needs --shared DIR: the directory every shard of the run reads and \
                 writes (shared storage on a cluster)"
                    .to_string(),
            )
            .into())
        }
        (None, Some(_)) => {
            return Err(UsageError(
                "--shared goes with --shard I/N (or --shard env, --shard-from-env)".to_string(),
            )
            .into())
        }
        (Some(_), Some(shared)) => config.output_dir = shared.clone(),
        (None, None) => {}
    }
    if let Some(shard) = shard {
        check_split(&config.plan, shard)?;
    }
    Ok((config, shard))
}

/// The run's first lines: what is tuned, how, and where (for a shard, its block of pairs).
fn announce(config: &SpsaConfig, shard: Option<Shard>) -> std::io::Result<()> {
    let plan = &config.plan;
    let dir = config.output_dir.display();
    outln!(
        "spsa: {} parameters, {} iterations of {} pairs at {}, {} at once, output {dir}",
        plan.params.len(),
        plan.schedule.iterations,
        plan.pairs_per_iteration,
        config.time_control,
        config.concurrency,
    )?;
    if let Some(shard) = shard {
        let block = shard_pairs(shard, plan.pairs_per_iteration);
        outln!(
            "spsa: shard {shard}: pairs {}-{} of every iteration's {}, meeting the other shards \
             in {dir}",
            block.start,
            block.end.saturating_sub(1),
            plan.pairs_per_iteration,
        )?;
    }
    Ok(())
}

/// The progress shown while the run goes: a bar of games, the latest θ under it, and a shard's
/// wait for the others now and then.
struct Console<'a> {
    plan: &'a SpsaPlan,
    bar: ProgressBar,
    games_per_iteration: u64,
    report_every: Duration,
    /// The iteration waited for and when (time waited) to say so next.
    next_report: (u64, Duration),
    /// The first failed write to standard output (its reader went away): nothing more is
    /// printed, the run goes on, and `run` returns the error at its end.
    printed: std::io::Result<()>,
}

impl<'a> Console<'a> {
    /// A console for a run (or shard) playing `pairs_played` pairs per iteration.
    fn new(plan: &'a SpsaPlan, pairs_played: u64, wait_report_seconds: u64) -> Self {
        let total_games = plan.schedule.iterations * pairs_played * 2;
        let bar = ProgressBar::with_draw_target(Some(total_games), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template(
                "[{bar:24}] {pos}/{len} games  {rate}  ETA {eta_precise}\n{msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .with_key(
                "rate",
                |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = write!(w, "{:.1} games/s", state.per_sec());
                },
            ),
        );
        let report_every = Duration::from_secs(wait_report_seconds);
        Console {
            plan,
            bar,
            games_per_iteration: pairs_played * 2,
            report_every,
            next_report: (u64::MAX, report_every),
            printed: Ok(()),
        }
    }

    /// Prints a line above the bar, until a write fails.
    fn print(&mut self, line: &str) {
        if self.printed.is_ok() {
            self.printed = self.bar.suspend(|| outln!("{line}"));
        }
    }

    fn event(&mut self, event: SpsaEvent<'_>) {
        match event {
            SpsaEvent::Started {
                done,
                pending_pairs,
                ..
            } => {
                let bar = &self.bar;
                bar.set_position(done * self.games_per_iteration + 2 * pending_pairs);
                bar.reset_eta();
                if done > 0 || pending_pairs > 0 {
                    self.print(&format!(
                        "resuming after iteration {done} ({pending_pairs} pairs of the next \
                         already played)"
                    ));
                }
            }
            SpsaEvent::GameFinished { .. } => self.bar.inc(2),
            SpsaEvent::IterationFinished {
                done, total, theta, ..
            } => {
                let params = &self.plan.params;
                let values: Vec<String> = params
                    .iter()
                    .zip(theta)
                    .take(8)
                    .map(|(p, &v)| format!("{} {}", p.name, show(p.kind, v)))
                    .collect();
                let more = if params.len() > 8 { ", ..." } else { "" };
                self.bar.set_message(format!(
                    "iteration {done}/{total}: {}{more}",
                    values.join(", ")
                ));
            }
            SpsaEvent::Waiting {
                iteration,
                missing,
                waited,
            } => {
                if self.next_report.0 != iteration {
                    self.next_report = (iteration, self.report_every);
                }
                if waited >= self.next_report.1 {
                    self.next_report.1 = waited + self.report_every;
                    self.print(&waiting_message(iteration, missing, waited));
                }
            }
        }
    }
}

/// The finished run: games, the tuned value of every parameter, and the tuned files.
fn print_summary(
    config: &SpsaConfig,
    summary: &SpsaSummary,
    files: &[String],
) -> std::io::Result<()> {
    let plan = &config.plan;
    let games = summary.plus_wins + summary.draws + summary.minus_wins;
    outln!(
        "spsa: {} of {} iterations done, {} games this run ({} in all: +{} ={} -{} for θ+)",
        summary.done,
        plan.schedule.iterations,
        summary.games_this_run,
        games,
        summary.plus_wins,
        summary.draws,
        summary.minus_wins
    )?;
    for (p, v) in plan.params.iter().zip(&summary.theta) {
        outln!(
            "  {:<32} {:>12} (start {})",
            p.name,
            show(p.kind, *v),
            show(p.kind, p.start)
        )?;
    }
    outln!(
        "tuned values: {} (trajectory.csv, trajectory.svg)",
        files
            .iter()
            .map(|f| config.output_dir.join(f).display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// How to check the tuned values: for the built-in engine, a match configuration written
/// next to them (verify.toml); for an external engine, in words.
fn suggest_verification(config: &SpsaConfig, files: &[String]) -> anyhow::Result<()> {
    if let SpsaEngine::Builtin {
        weights, search, ..
    } = &config.engine
    {
        let verify = config.output_dir.join("verify.toml");
        let text = verify_config(config, files, weights, search);
        std::fs::write(&verify, text)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", verify.display()))?;
        outln!(
            "verify the tuned values against the start with an SPRT [0, 5] (edit the openings \
             and time control to taste): sparring match {}",
            verify.display()
        )?;
    } else {
        outln!(
            "verify with a gauntlet (sparring match) of the engine with the options of \
             tuned.toml against its start options, e.g. with an SPRT [0, 5]"
        )?;
    }
    Ok(())
}

/// What a shard waiting at the barrier prints: the pair files still missing, by shard.
fn waiting_message(iteration: u64, missing: &[PathBuf], waited: Duration) -> String {
    const SHOWN: usize = 8;
    let mut names: Vec<String> = missing
        .iter()
        .take(SHOWN)
        .map(|p| p.display().to_string())
        .collect();
    if missing.len() > SHOWN {
        names.push(format!("and {} more", missing.len() - SHOWN));
    }
    format!(
        "spsa: waiting {}s for iteration {iteration}: {} pair file(s) missing: {} (a shard that \
         stopped must be started again with --resume)",
        waited.as_secs(),
        missing.len(),
        names.join(", ")
    )
}

/// A match configuration playing the tuned files against the start, both as `sparring uci`
/// (the built-in match engine has no search file), under an SPRT [0, 5].
fn verify_config(
    config: &SpsaConfig,
    files: &[String],
    weights: &Option<PathBuf>,
    search: &Option<PathBuf>,
) -> String {
    let exe = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "sparring".to_string());
    let dir = &config.output_dir;
    let mut tuned_args = vec!["uci".to_string()];
    for f in files {
        let flag = if f.contains("weights") || (!f.contains("search") && is_weights(config)) {
            "--weights"
        } else {
            "--search"
        };
        tuned_args.push(flag.to_string());
        tuned_args.push(dir.join(f).display().to_string());
    }
    let mut start_args = vec!["uci".to_string()];
    for (flag, path) in [("--weights", weights), ("--search", search)] {
        if let Some(p) = path {
            start_args.push(flag.to_string());
            start_args.push(p.display().to_string());
        }
    }
    // The tuned side keeps the start's other file.
    for (flag, path) in [("--weights", weights), ("--search", search)] {
        if let (Some(p), false) = (path, tuned_args.iter().any(|a| a == flag)) {
            tuned_args.push(flag.to_string());
            tuned_args.push(p.display().to_string());
        }
    }
    let list = |args: &[String]| {
        args.iter()
            .map(|a| format!("{a:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let time_control = match &config.time_control {
        sparring::arena::TimeControl::Nodes(n) => format!("nodes = {}", n.max(&20_000)),
        sparring::arena::TimeControl::Depth(d) => format!("depth = {d}"),
        sparring::arena::TimeControl::MoveTime(t) => format!("movetime_ms = {}", t.as_millis()),
        clock => format!("clock = \"{clock}\""),
    };
    let openings = match &config.openings {
        Some(o) => format!(
            "[openings]\nfile = {:?}\norder = \"random\"\n\n",
            o.file.display().to_string()
        ),
        None => String::new(),
    };
    format!(
        "# Written by `sparring spsa {source}`: the tuned values against the start.\n\n\
         [tournament]\nkind = \"gauntlet\"\nrounds = 5000\nconcurrency = {concurrency}\nseed = 2027\n\n\
         [time_control]\n{time_control}\n\n{openings}\
         [adjudication]\ndraw = {{ move_number = 40, move_count = 8, score_cp = 10 }}\n\
         resign = {{ move_count = 3, score_cp = 600 }}\nmax_moves = 200\n\n\
         [sprt]\nelo0 = 0.0\nelo1 = 5.0\nalpha = 0.05\nbeta = 0.05\n\n\
         [output]\ndir = {verify_dir:?}\n\n\
         [[engine]]\nname = \"tuned\"\nuci = {{ command = {exe:?}, args = [{tuned}] }}\n\n\
         [[engine]]\nname = \"start\"\nuci = {{ command = {exe:?}, args = [{start}] }}\n",
        source = config.source,
        concurrency = config.concurrency,
        verify_dir = dir.join("verify").display().to_string(),
        tuned = list(&tuned_args),
        start = list(&start_args),
    )
}

/// Whether only evaluation weights are tuned (then `tuned.toml` is a weights file).
fn is_weights(config: &SpsaConfig) -> bool {
    match &config.engine {
        SpsaEngine::Builtin { targets, .. } => targets
            .iter()
            .all(|t| matches!(t, sparring::spsa::Target::Weight { .. })),
        SpsaEngine::Uci { .. } => false,
    }
}
