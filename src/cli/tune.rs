//! `sparring tune CONFIG.toml` (the Texel tuner, with progress on the terminal),
//! `sparring tune convert --to bullet IN... -o OUT` (training positions for NNUE trainers) and
//! `sparring bench tune` (loading and epoch throughput on synthetic data).

use anyhow::Context;
use clap::{Args, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use sparring::board::Position;
use sparring::eval::{EvalParams, ParamGroup};
use sparring::record::bullet::{self, BulletReport};
use sparring::texel::{
    self, data::LoadReport, external::EngineSpec, synthetic, with_threads, Dataset, Event,
    ParamSelection, TunableEval, TuneConfig, TuneError,
};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `sparring tune`: the configuration and its command-line overrides, or a
/// subcommand.
#[derive(Args, Clone, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct TuneArgs {
    /// The configuration (see configs/tune.toml).
    #[arg(required = true)]
    pub config: Option<PathBuf>,
    /// Override `optimizer.epochs` (at least 1).
    #[arg(long, value_parser = parse_epochs)]
    pub epochs: Option<usize>,
    /// Override `optimizer.threads` (0 = one per core; at most the available parallelism).
    #[arg(long, value_parser = super::parse_thread_count)]
    pub threads: Option<usize>,
    /// Data files or quoted glob patterns (`'shards/*/positions.epd'`) read instead of
    /// `data.files`; repeat for several.
    #[arg(long = "data", value_name = "FILE_OR_GLOB")]
    pub data: Vec<PathBuf>,
    /// Tune an external engine's evaluation through the trace protocol instead of sparring's:
    /// the engine command with its arguments, one string ("./myengine --flag"); one process per
    /// thread (docs/tune-any-engine.md). Replaces the configuration's `[engine]` command, args
    /// and working_dir.
    #[arg(long, value_name = "CMD ARGS")]
    pub engine: Option<String>,
    /// A tool instead of a tuning run.
    #[command(subcommand)]
    pub command: Option<TuneCommand>,
}

/// `sparring tune <COMMAND>`.
#[derive(Subcommand, Clone, Debug)]
pub enum TuneCommand {
    /// Write training positions (the runner's positions.epd lines) in another trainer's text
    /// format. Lines without a search score or with a fractional label are skipped and counted.
    Convert(ConvertArgs),
}

/// Arguments of `sparring tune convert`.
#[derive(Args, Clone, Debug)]
pub struct ConvertArgs {
    /// The format to write: `bullet` is `<FEN> | <score> | <result>`, score in centipawns and
    /// result 1.0/0.5/0.0, both from White's side (what bullet's text converter reads).
    #[arg(long, value_enum)]
    pub to: ConvertFormat,
    /// Input files or quoted glob patterns, read in order.
    #[arg(required = true, value_name = "IN")]
    pub inputs: Vec<PathBuf>,
    /// The file to write (replaced if it exists).
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,
}

/// Formats `sparring tune convert` writes.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConvertFormat {
    /// bullet's text format.
    Bullet,
}

/// Parses `--epochs`: a positive integer, as `optimizer.epochs` must be.
fn parse_epochs(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("0 epochs would only write back the starting weights: give at least 1".into()),
        Ok(epochs) => Ok(epochs),
        Err(_) => Err(format!("`{text}` is not a positive integer")),
    }
}

/// Bad lines printed one by one before the rest are only counted.
const SHOWN_ERRORS: usize = 20;

fn print_load_report(report: &LoadReport) {
    for e in report.errors.iter().take(SHOWN_ERRORS) {
        eprintln!("skipped {e}");
    }
    if report.skipped > SHOWN_ERRORS {
        eprintln!("... and {} more bad lines", report.skipped - SHOWN_ERRORS);
    }
}

/// `sparring tune convert`: streams every input into the output file, then says what it did.
pub fn run_convert(args: &ConvertArgs) -> anyhow::Result<()> {
    let ConvertFormat::Bullet = args.to;
    // Pattern errors are bad input (status 2), as they are for the tuner.
    let inputs = texel::data::expand_data_files(&args.inputs).map_err(TuneError::from)?;
    // A missing input or a directory is reported before the output is touched.
    texel::data::check_data_files(&inputs).map_err(TuneError::from)?;
    let out_name = args.output.display().to_string();
    if args.output.is_dir() {
        return Err(super::UsageError(format!(
            "-o {out_name}: is a directory, expected the file to write"
        ))
        .into());
    }
    // Writing over an input would empty it before it is read.
    if let Ok(out) = std::fs::canonicalize(&args.output) {
        if inputs
            .iter()
            .any(|i| std::fs::canonicalize(i).is_ok_and(|i| i == out))
        {
            return Err(super::UsageError(format!(
                "{out_name} is also an input; write the conversion to another file"
            ))
            .into());
        }
    }
    // A temporary file renamed at the end: a failed conversion leaves the old output as it was.
    let mut temp_name = args.output.clone().into_os_string();
    temp_name.push(".partial");
    let temp = std::path::PathBuf::from(temp_name);
    let file =
        std::fs::File::create(&temp).with_context(|| format!("{out_name}: cannot create"))?;
    let result = convert_into(&inputs, file, &out_name);
    match result {
        Ok(report) => {
            if let Err(e) = std::fs::rename(&temp, &args.output) {
                let _ = std::fs::remove_file(&temp);
                return Err(e).with_context(|| format!("{out_name}: cannot write"));
            }
            print_convert_report(&report, inputs.len(), &out_name)?;
            Ok(())
        }
        Err(e) => {
            let _ = std::fs::remove_file(&temp);
            Err(e)
        }
    }
}

/// Converts every input into `file`; prints a line per input.
fn convert_into(
    inputs: &[std::path::PathBuf],
    file: std::fs::File,
    out_name: &str,
) -> anyhow::Result<BulletReport> {
    let mut output = std::io::BufWriter::with_capacity(1 << 20, file);
    let mut report = BulletReport::default();
    for input in inputs {
        let name = input.display().to_string();
        let before = (report.written, report.skipped);
        let file = texel::data::open_data_file(input).map_err(TuneError::from)?;
        let mut limited = LineLimit::new(file);
        let converted =
            bullet::write_bullet_lines(&mut limited, &name, &mut output, out_name, &mut report);
        if let Some(line) = limited.too_long {
            return Err(TuneError::from(texel::DataError::LineTooLong { file: name, line }).into());
        }
        converted?;
        outln!(
            "  {name}: {} positions written, {} lines skipped",
            report.written - before.0,
            report.skipped - before.1
        )?;
    }
    output
        .flush()
        .with_context(|| format!("{out_name}: cannot write"))?;
    Ok(report)
}

/// A reader that fails once a line passes `MAX_LINE_BYTES` without a line end (a binary file,
/// /dev/zero), so the line reader behind it cannot fill memory without end; `too_long` then
/// holds the 1-based number of that line.
struct LineLimit<R> {
    inner: R,
    line: usize,
    run: usize,
    too_long: Option<usize>,
}

impl<R> LineLimit<R> {
    fn new(inner: R) -> LineLimit<R> {
        LineLimit {
            inner,
            line: 1,
            run: 0,
            too_long: None,
        }
    }
}

impl<R: std::io::Read> std::io::Read for LineLimit<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        for &byte in &buf[..n] {
            if byte == b'\n' {
                self.line += 1;
                self.run = 0;
            } else {
                self.run += 1;
                if self.run > texel::data::MAX_LINE_BYTES {
                    self.too_long = Some(self.line);
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        "line too long",
                    ));
                }
            }
        }
        Ok(n)
    }
}

/// The skipped lines (the first few) and the totals of a conversion.
fn print_convert_report(
    report: &BulletReport,
    files: usize,
    out_name: &str,
) -> std::io::Result<()> {
    for e in report.errors.iter().take(SHOWN_ERRORS) {
        eprintln!("skipped {e}");
    }
    if report.skipped > SHOWN_ERRORS {
        eprintln!(
            "... and {} more lines skipped",
            report.skipped - SHOWN_ERRORS
        );
    }
    outln!(
        "wrote {} positions in bullet's text format to {out_name} from {} file(s); {} lines skipped",
        report.written,
        files,
        report.skipped
    )
}

/// Whether to draw the epoch bar on standard error: only when both outputs are terminals (with
/// standard output redirected, the epochs go into it as plain lines instead).
fn interactive() -> bool {
    std::io::stdout().is_terminal() && std::io::stderr().is_terminal()
}

/// The epoch bar, created at the first epoch so nothing is drawn while the data loads.
fn epoch_bar(epochs: usize) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(epochs as u64), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("[{bar:30}] {pos}/{len} {msg}")
            .expect("the template is valid")
            .progress_chars("#>-"),
    );
    bar
}

/// The bar's text after an epoch: the errors and the best epoch so far.
fn epoch_message(s: &texel::EpochStats) -> String {
    let val = s
        .validation_mse
        .map_or(String::new(), |v| format!(" validation {v:.6}"));
    format!("train {:.6}{val} best {}", s.train_mse, s.best_epoch)
}

/// `sparring tune`: runs the configuration and prints what it did.
pub fn run(args: &TuneArgs) -> anyhow::Result<()> {
    if let Some(TuneCommand::Convert(convert)) = &args.command {
        return run_convert(convert);
    }
    let config = load_config(args)?;
    if let Some(engine) = engine_of(args, &config) {
        return run_engine(&config, &engine);
    }
    let mut progress = Progress {
        report_every: config.output.report_every,
        epochs: config.optimizer.epochs,
        interactive: interactive(),
        bar: None,
        printed: Ok(()),
    };
    let result = texel::run(&config, &mut |event| progress.show(event));
    if let Some(bar) = &progress.bar {
        bar.finish();
    }
    let summary = result.map_err(|e| name_data_source(e, !args.data.is_empty(), &config))?;
    progress.printed?;
    print_summary(&summary)?;
    Ok(())
}

/// The configuration file with the command line's overrides applied.
fn load_config(args: &TuneArgs) -> anyhow::Result<TuneConfig> {
    let config_path = args
        .config
        .as_ref()
        .ok_or_else(|| super::UsageError("sparring tune needs a configuration file".into()))?;
    let mut config = TuneConfig::load(config_path)?;
    if !args.data.is_empty() {
        config.data.files.clone_from(&args.data);
    }
    if let Some(epochs) = args.epochs {
        config.optimizer.epochs = epochs;
    }
    if let Some(threads) = args.threads {
        config.optimizer.threads = threads;
    }
    Ok(config)
}

/// The external engine to tune, if any: `--engine` replaces the `[engine]` table's command,
/// arguments and working directory (its `timeout` still applies).
fn engine_of(args: &TuneArgs, config: &TuneConfig) -> Option<EngineSpec> {
    match (&args.engine, &config.engine) {
        (Some(line), table) => {
            let mut spec = EngineSpec::from_command_line(line);
            if let Some(table) = table {
                spec.answer_timeout = table.answer_timeout;
            }
            Some(spec)
        }
        (None, table) => table.clone(),
    }
}

/// What a run of sparring's own tuner shows as it goes: lines, or a bar on a terminal.
struct Progress {
    report_every: usize,
    epochs: usize,
    interactive: bool,
    bar: Option<ProgressBar>,
    /// The first failed write to standard output (its reader went away): the tune goes on
    /// without printing and `run` returns the error once the weights are written.
    printed: std::io::Result<()>,
}

impl Progress {
    fn show(&mut self, event: Event<'_>) {
        if self.printed.is_ok() {
            self.printed = self.print(event);
        }
    }

    fn print(&mut self, event: Event<'_>) -> std::io::Result<()> {
        match event {
            Event::Loading { files, threads } => {
                outln!("loading {files} data file(s) with {threads} threads")
            }
            Event::Loaded {
                report,
                seconds,
                bytes_per_position,
                average_coefficients,
            } => print_loaded(report, seconds, bytes_per_position, average_coefficients),
            Event::Split {
                training,
                validation,
            } => outln!("training positions {training}, validation positions {validation}"),
            Event::Blended {
                weight,
                without_score,
            } => {
                outln!(
                    "Labels: {:.0} % game result, {:.0} % search score (ce) at this K{}",
                    100.0 * (1.0 - weight),
                    100.0 * weight,
                    if without_score > 0 {
                        format!("; {without_score} positions have no score and keep the result")
                    } else {
                        String::new()
                    }
                )
            }
            Event::K {
                k,
                fitted,
                train_mse,
            } => print_k(k, fitted, train_mse),
            Event::Epoch(s) => self.epoch(s),
        }
    }

    fn epoch(&mut self, s: &texel::EpochStats) -> std::io::Result<()> {
        if self.interactive {
            let epochs = self.epochs;
            let bar = self.bar.get_or_insert_with(|| epoch_bar(epochs));
            bar.set_message(epoch_message(s));
            bar.set_position(s.epoch as u64);
        } else if s.epoch % self.report_every == 0 || s.epoch == self.epochs {
            let val = s
                .validation_mse
                .map_or(String::new(), |v| format!("  validation {v:.6}"));
            outln!(
                "epoch {:>6}  train {:.6}{val}  best epoch {}  {:.1}s",
                s.epoch,
                s.train_mse,
                s.best_epoch,
                s.seconds
            )?;
        }
        Ok(())
    }
}

/// The files loaded, their positions and duplicates, and the loading rate.
fn print_loaded(
    report: &LoadReport,
    seconds: f64,
    bytes_per_position: f64,
    average_coefficients: f64,
) -> std::io::Result<()> {
    print_load_report(report);
    for f in &report.files {
        if f.duplicates > 0 {
            outln!(
                "  {}: {} positions, {} duplicates",
                f.file,
                f.positions,
                f.duplicates
            )?;
        } else {
            outln!("  {}: {} positions", f.file, f.positions)?;
        }
    }
    let read = report.positions + report.duplicates;
    outln!(
        "loaded {} positions in {seconds:.2}s ({:.0} positions/s), {} lines skipped, \
         {} duplicates dropped ({} with another result; merged with the mean label); \
         {average_coefficients:.1} tuned coefficients and {bytes_per_position:.0} bytes \
         per position",
        report.positions,
        read as f64 / seconds.max(1e-9),
        report.skipped,
        report.duplicates,
        report.duplicates_with_other_label
    )
}

/// K and the starting error; a warning when a fitted K sits at the edge of its range.
fn print_k(k: f64, fitted: bool, train_mse: f64) -> std::io::Result<()> {
    outln!(
        "K = {k:.4} ({}), training error of the starting weights {train_mse:.6}",
        if fitted { "fitted" } else { "fixed" }
    )?;
    let (lo, hi) = texel::model::K_RANGE;
    if fitted && (k < lo + 1e-3 || k > hi - 1e-3) {
        eprintln!(
            "warning: K is at the edge of its search range {lo}..{hi}: the starting \
             weights or the labels may be wrong (try a fixed k)"
        );
    }
    Ok(())
}

/// How the run ended, its errors before and after, unused parameters and the files written.
fn print_summary(summary: &texel::TuneSummary) -> std::io::Result<()> {
    let val = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.6}"));
    outln!(
        "{} after epoch {}; kept epoch {}",
        if summary.stopped_early {
            "stopped early (no validation improvement)"
        } else {
            "finished"
        },
        summary.epochs_run,
        summary.best_epoch
    )?;
    outln!(
        "mean squared error (training / validation): start {:.6} / {}, tuned {:.6} / {}, \
         written integer weights {:.6} / {}",
        summary.start.train_mse,
        val(summary.start.validation_mse),
        summary.best.train_mse,
        val(summary.best.validation_mse),
        summary.rounded_train_mse,
        val(summary.rounded_validation_mse)
    )?;
    if !summary.unused.is_empty() {
        let shown: Vec<&str> = summary.unused.iter().take(8).map(String::as_str).collect();
        outln!(
            "{} tuned parameters occur in no training position and kept their start value: {}{}",
            summary.unused.len(),
            shown.join(", "),
            if summary.unused.len() > shown.len() {
                ", ..."
            } else {
                ""
            }
        )?;
    }
    for path in &summary.outputs {
        outln!("wrote {}", path.display())?;
    }
    Ok(())
}

/// A data-list error with where the list came from: `--data` or the configuration's
/// `data.files` (file, line and column); other errors pass through unchanged.
fn name_data_source(
    error: TuneError,
    from_command_line: bool,
    config: &TuneConfig,
) -> anyhow::Error {
    match &error {
        TuneError::Data(data) if is_list_error(data) => {
            let source = if from_command_line {
                "--data".to_string()
            } else {
                config.data_files_location()
            };
            anyhow::Error::from(error).context(source)
        }
        _ => error.into(),
    }
}

/// Whether a data error is about an entry of the data list (a path or pattern), not the
/// contents of a file.
fn is_list_error(error: &texel::DataError) -> bool {
    use texel::DataError::{BadPattern, Missing, NoMatch, NotAFile};
    matches!(
        error,
        Missing { .. } | NotAFile { .. } | NoMatch { .. } | BadPattern { .. }
    )
}

/// Groups the benchmark tunes: those of the shipped configuration.
const BENCH_GROUPS: [ParamGroup; 5] = [
    ParamGroup::Material,
    ParamGroup::Pst,
    ParamGroup::Mobility,
    ParamGroup::Pawns,
    ParamGroup::KingSafety,
];

/// `sparring bench tune`: synthetic positions from random playouts, written as EPD text in
/// memory, then loading throughput, bytes per position and epoch throughput at 1 and 2 threads.
pub fn run_bench(positions: usize) -> anyhow::Result<()> {
    let positions = positions.max(1);
    let params = EvalParams::default();
    let cores = texel::resolve_threads(0);

    let t = Instant::now();
    let sample = synthetic::playout_positions(0x7E57_7E57, positions);
    let soft = synthetic::soft_labels(&sample, &params, 1.0);
    let results = synthetic::sampled_results(&soft, 17);
    let mut epd = String::with_capacity(positions * 80);
    for (pos, &r) in sample.iter().zip(&results) {
        epd.push_str(&epd_line(pos, r));
    }
    drop(sample);
    outln!(
        "generated {positions} random-playout positions as {:.1} MB of EPD in {:.2}s",
        epd.len() as f64 / 1e6,
        t.elapsed().as_secs_f64()
    )?;

    let selection = ParamSelection::groups(params.clone(), &BENCH_GROUPS);
    let mut data = Dataset::new(&selection);
    let mut thread_counts = vec![1, 2];
    if cores > 2 {
        thread_counts.push(cores);
    }
    for &threads in &thread_counts {
        let (d, seconds, cpu) = with_threads(threads, || {
            let (t, cpu) = (Instant::now(), process_cpu_seconds());
            let mut d = Dataset::new(&selection);
            let mut report = LoadReport::default();
            d.load_reader(epd.as_bytes(), "bench", &selection, &mut report)
                .map(|_| {
                    let cpu = cpu.zip(process_cpu_seconds()).map(|(a, b)| b - a);
                    (d, t.elapsed().as_secs_f64(), cpu)
                })
        })??;
        outln!(
            "load (parse FEN + evaluate + pack) {threads} thread(s): {:>9.0} positions/s{}",
            d.len() as f64 / seconds,
            per_core(d.len() as f64 * threads as f64, cpu, 1.0)
        )?;
        data = d;
    }
    outln!(
        "packed: {} positions, {} tuned parameters, {:.1} coefficients and {:.1} bytes per position",
        data.len(),
        selection.len(),
        data.average_coefficients(),
        data.bytes_per_position()
    )?;

    let w = selection.start_weights();
    let mut grad = vec![[0.0; 2]; w.len()];
    for &threads in &thread_counts {
        let (rate, work, cpu) = with_threads(threads, || {
            texel::loss_and_gradient(&data, 0..data.len(), &w, 1.0, &mut grad);
            let (t, cpu) = (Instant::now(), process_cpu_seconds());
            let mut passes = 0;
            while passes < 3 || t.elapsed().as_secs_f64() < 2.0 {
                texel::loss_and_gradient(&data, 0..data.len(), &w, 1.0, &mut grad);
                passes += 1;
            }
            let work = (data.len() * passes) as f64;
            let cpu = cpu.zip(process_cpu_seconds()).map(|(a, b)| b - a);
            (work / t.elapsed().as_secs_f64(), work, cpu)
        })?;
        outln!(
            "epoch (loss + gradient, full batch) {threads} thread(s): {:>6.1} M positions/s{}",
            rate / 1e6,
            per_core(work * threads as f64, cpu, 1e6)
        )?;
    }
    outln!(
        "[by CPU time]: the rate with a core per thread (work / CPU seconds × threads), for busy \
         machines where wall-clock rates also measure other processes"
    )?;
    Ok(())
}

/// The rate `work / cpu` in `unit`s, as a note: what the run would reach if each thread had a
/// core to itself (wall-clock rates on a shared machine measure the machine's load as well).
fn per_core(work: f64, cpu: Option<f64>, unit: f64) -> String {
    match cpu {
        Some(cpu) if cpu > 0.05 => {
            let rate = work / cpu;
            if unit == 1.0 {
                format!("  [by CPU time: {rate:.0}]")
            } else {
                format!("  [by CPU time: {:.1} M]", rate / unit)
            }
        }
        _ => String::new(),
    }
}

/// CPU seconds used by this process so far (Linux only): on a busy machine, rate per CPU
/// second shows the code's speed where wall time shows the machine's load.
fn process_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    // The kernel reports in USER_HZ, 100 on every mainstream Linux configuration.
    Some(ticks / 100.0)
}

/// One EPD line in the zurichess format.
fn epd_line(pos: &Position, label: f32) -> String {
    let fen = pos.to_fen();
    let fields: Vec<&str> = fen.split(' ').take(4).collect();
    format!(
        "{} c9 \"{}\";\n",
        fields.join(" "),
        synthetic::result_string(label)
    )
}

/// `sparring tune CONFIG --engine CMD` (or an `[engine]` table): traces the data through the
/// engine's `tunetrace` answers (one process per thread), fits every declared parameter and
/// writes weights.toml, weights.txt, setoption.txt, history.csv and loss.svg into `output.dir`
/// (the weight files first as weights.unverified.toml etc., renamed once the engine has
/// declared the same parameters again: `any::write_checked_outputs`).
fn run_engine(config: &TuneConfig, engine: &EngineSpec) -> anyhow::Result<()> {
    use sparring::texel::any::{self, AnyOptions, Method};
    use sparring::texel::external::ExternalEval;
    texel::check_threads(config.optimizer.threads)?;
    texel::check_output_dir(&config.output.dir)?;
    let threads = texel::resolve_threads(config.optimizer.threads);
    let eval = ExternalEval::start(engine, threads).map_err(TuneError::from)?;
    outln!(
        "engine '{}': {} parameters, {} process(es)",
        eval.command(),
        eval.params().len(),
        threads
    )?;
    let method = match config.optimizer.method {
        Some(texel::OptimizerMethod::Adam) => Method::Adam {
            learning_rate: config.optimizer.learning_rate,
        },
        Some(texel::OptimizerMethod::GaussNewton) | None => Method::GaussNewton,
    };
    let options = AnyOptions {
        k: config.optimizer.k,
        method,
        epochs: config.optimizer.epochs,
        threads: config.optimizer.threads,
        dedupe: config.data.dedupe,
        validation_fraction: config.data.validation_fraction,
        seed: config.data.seed,
        score_weight: config.data.score_weight,
    };
    // report.html follows the fit every few epochs, as the in-process tuner's does.
    let mut live = texel::LiveTunePage::new(&config.output.dir, options.epochs);
    // After a failed write (the reader went away) the fit goes on silently; the error ends
    // the command once the fit is done.
    let mut printed = Ok(());
    let result = any::run(&eval, &config.data.files, &options, &mut |s| {
        live.after_epoch(s);
        let val = s
            .validation_mse
            .map_or(String::new(), |v| format!(" validation {v:.9}"));
        if printed.is_ok() {
            printed = outln!("epoch {} mse {:.9}{val}", s.epoch, s.train_mse);
        }
    })?;
    live.finish()?;
    // The fit is written before the engine is asked for its parameters again, under names
    // that say it is unverified until the engine has answered as it did at the start; and
    // before any printing, so a closed standard output cannot lose it.
    let written =
        any::write_checked_outputs(&config.output.dir, &result, || eval.recheck_params())?;
    printed?;
    print_load_report(&LoadReport {
        skipped: result.skipped,
        ..LoadReport::default()
    });
    let traced = result.positions + result.validation_positions;
    outln!(
        "traced {traced} positions in {:.3} s ({:.0} positions/s over {threads} process(es)); \
         training positions {}, validation positions {}",
        result.load_seconds,
        traced as f64 / result.load_seconds.max(1e-9),
        result.positions,
        result.validation_positions
    )?;
    // Twelve digits: enough to compare runs (tests/it/tune_engine.rs) to 1e-9.
    outln!("k {:.12}", result.k)?;
    outln!("start_mse {:.12}", result.start_mse)?;
    outln!("mse {:.12}", result.final_mse)?;
    if let Some((start, kept)) = result.validation_mse {
        outln!(
            "validation_mse {start:.12} -> {kept:.12} (kept iteration {})",
            result.best_epoch
        )?;
    }
    for path in written {
        outln!("wrote {}", path.display())?;
    }
    Ok(())
}
