//! `sparring openings check|probe|generate`: inspect a suite or book, list a Polyglot book's moves
//! for a position, and build a suite with the engine.

use super::UsageError;
use anyhow::Context;
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use sparring::board::{Position, Square};
use sparring::eval::EvalParams;
use sparring::openings::generate::{generate_from, GenerateOptions, Progress, StartVariant};
use sparring::openings::{polyglot_key, BookOptions, OpeningBook, OpeningFormat, PolyglotBook};
use std::fs::{File, OpenOptions};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// Arguments of `sparring openings`.
#[derive(Args, Debug)]
pub struct OpeningsArgs {
    #[command(subcommand)]
    pub what: OpeningsCommand,
}

/// The `openings` subcommands.
#[derive(Subcommand, Debug)]
pub enum OpeningsCommand {
    /// Load a suite or book, print every rejected line (`file:line: reason`), end with `openings N`.
    Check(CheckArgs),
    /// Print a Polyglot book's key for a position and its moves (`<uci> <weight>`).
    Probe(ProbeArgs),
    /// Build an EPD suite with the engine: random sensible lines kept when scored in a window.
    Generate(GenerateArgs),
}

/// Runs the `openings` subcommand the arguments name.
pub fn run(args: &OpeningsArgs) -> anyhow::Result<()> {
    match &args.what {
        OpeningsCommand::Check(args) => check(args),
        OpeningsCommand::Probe(args) => probe(args),
        OpeningsCommand::Generate(args) => run_generate(args),
    }
}

/// Arguments of `sparring openings check`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    pub file: PathBuf,
    /// epd, pgn or polyglot (default: from the extension).
    #[arg(long)]
    pub format: Option<OpeningFormat>,
    /// PGN: plies kept per game; Polyglot: depth of the walk from the start position.
    #[arg(long)]
    pub plies: Option<usize>,
}

/// Arguments of `sparring openings probe`.
#[derive(Args, Debug)]
pub struct ProbeArgs {
    pub book: PathBuf,
    /// Position (default: the standard start position).
    #[arg(long)]
    pub fen: Option<String>,
}

/// Loads the file, prints each rejected line as `file:line: reason`, then the counts; the last
/// line is `openings <N>` (for a Polyglot book, N is the number of book positions reachable from
/// the start position within `--plies`).
pub fn check(args: &CheckArgs) -> anyhow::Result<()> {
    let options = BookOptions {
        plies: args.plies,
        ..BookOptions::default()
    };
    let start = Instant::now();
    let book = OpeningBook::open(&args.file, args.format, options)?;
    let elapsed = start.elapsed();
    let out = std::io::stdout();
    let mut out = out.lock();
    for bad in book.rejected() {
        writeln!(out, "{bad}")?;
    }
    let count = match book.polyglot() {
        Some(polyglot) => {
            let walk = polyglot.walk(&Position::startpos(), args.plies);
            for (entry, fen, raw) in &walk.illegal {
                writeln!(
                    out,
                    "{}: entry {entry}: move 0x{raw:04x} is not legal in {fen}",
                    args.file.display()
                )?;
            }
            writeln!(out, "entries {}", polyglot.len())?;
            writeln!(out, "illegal {}", walk.illegal.len())?;
            walk.positions
        }
        None => {
            writeln!(out, "rejected {}", book.rejected().len())?;
            book.len().unwrap_or(0)
        }
    };
    eprintln!(
        "{} ({}) loaded in {:.3} s, {:.1} MB held",
        args.file.display(),
        book.format(),
        elapsed.as_secs_f64(),
        book.memory_bytes() as f64 / 1e6
    );
    writeln!(out, "openings {count}")?;
    Ok(())
}

/// Prints `key <hex>` and one `<uci> <weight>` line per legal book move, highest weight first.
pub fn probe(args: &ProbeArgs) -> anyhow::Result<()> {
    let book = args.book.as_path();
    let bytes = sparring::openings::read_book_file(book)?;
    // Read directly rather than through OpeningBook: an empty book is still worth probing.
    let polyglot = PolyglotBook::from_bytes(&bytes).map_err(|e| e.in_file(book))?;
    let (pos, ep) = match &args.fen {
        Some(fen) => {
            let pos =
                Position::from_fen_lenient(fen).with_context(|| format!("bad FEN '{fen}'"))?;
            // The FEN's en-passant field, for Polyglot's "a pawn stands beside it" rule.
            let ep = fen.split_whitespace().nth(3).and_then(Square::parse);
            (pos, ep)
        }
        None => (Position::startpos(), None),
    };
    let key = polyglot_key(&pos, ep);
    let moves = polyglot.moves_for_key(&pos, key);
    let stored = polyglot.entries_for(key).len();
    let out = std::io::stdout();
    let mut out = out.lock();
    writeln!(out, "key {key:016x}")?;
    for m in &moves {
        writeln!(out, "{} {}", m.mv, m.weight)?;
    }
    if stored > moves.len() {
        eprintln!(
            "{} stored entries skipped (weight 0, or not legal here)",
            stored - moves.len()
        );
    }
    Ok(())
}

/// Arguments of `sparring openings generate`.
#[derive(Args, Debug)]
pub struct GenerateArgs {
    /// Length of each line from the start position.
    #[arg(long)]
    pub plies: usize,
    /// Number of positions.
    #[arg(long)]
    pub count: usize,
    /// Largest side-to-move score kept (centipawns); without --min-eval, |score| <= this.
    #[arg(long, allow_hyphen_values = true)]
    pub max_eval: i32,
    /// Smallest side-to-move score kept (for unbalanced suites).
    #[arg(long, allow_hyphen_values = true)]
    pub min_eval: Option<i32>,
    /// Nodes of the search that scores each final position.
    #[arg(long, default_value_t = 3000)]
    pub nodes: u64,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Moves scored more than this many centipawns below the best are not played.
    #[arg(long, default_value_t = 60)]
    pub margin: i32,
    /// Depth of the search that scores each candidate move.
    #[arg(long, default_value_t = 1)]
    pub sample_depth: u32,
    /// Candidates tried before giving up (default: 200 per position wanted).
    #[arg(long)]
    pub max_candidates: Option<u64>,
    /// Add `c0 "score +N cp";` to each line.
    #[arg(long)]
    pub annotate: bool,
    /// Evaluation weights that play and score the lines (default: the built-in defaults).
    #[arg(long)]
    pub weights: Option<PathBuf>,
    /// Where the lines start: the standard position, a random Chess960 start (`chess960`), or
    /// independent Chess960 back ranks for White and Black (`dfrc`). Positions are written in
    /// X-FEN (castling `KQkq` unless an inner rook keeps the right).
    #[arg(long, value_enum, default_value_t = VariantArg::Standard)]
    pub variant: VariantArg,
    /// The EPD file to write (replaced only once the suite is complete).
    #[arg(long)]
    pub out: PathBuf,
}

/// The start positions `openings generate --variant` draws from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum VariantArg {
    /// The standard start position.
    Standard,
    /// Chess960 (Fischer Random) start positions.
    Chess960,
    /// Double Fischer Random start positions.
    Dfrc,
}

impl VariantArg {
    /// The name as the command line accepts it (`standard`, `chess960`, `dfrc`).
    fn name(self) -> String {
        use clap::ValueEnum;
        self.to_possible_value()
            .map_or_else(|| format!("{self:?}"), |v| v.get_name().to_string())
    }

    fn start_variant(self) -> StartVariant {
        match self {
            VariantArg::Standard => StartVariant::Standard,
            VariantArg::Chess960 => StartVariant::Chess960,
            VariantArg::Dfrc => StartVariant::Dfrc,
        }
    }
}

impl GenerateArgs {
    /// The library's options (weights still to load).
    fn options(&self) -> GenerateOptions {
        GenerateOptions {
            plies: self.plies,
            count: self.count,
            max_eval: self.max_eval,
            min_eval: self.min_eval,
            nodes: self.nodes,
            seed: self.seed,
            margin: self.margin,
            sample_depth: self.sample_depth,
            max_candidates: self
                .max_candidates
                .unwrap_or_else(|| 200u64.saturating_mul(self.count as u64)),
            weights: None,
        }
    }
}

/// The suite being written: a temporary file beside the output, created before any work so an
/// unwritable destination fails at once, renamed over the output only when complete (an existing
/// output is never lost to a failed run).
struct PendingOutput {
    temporary: PathBuf,
    file: Option<File>,
}

impl PendingOutput {
    fn create(out: &Path) -> anyhow::Result<PendingOutput> {
        if out.is_dir() {
            return Err(UsageError(format!("--out {}: is a directory", out.display())).into());
        }
        if out.exists() {
            // Replacing a file we may not write would bypass its permissions through the rename.
            OpenOptions::new()
                .append(true)
                .open(out)
                .with_context(|| format!("cannot write {}", out.display()))?;
        }
        let name = out
            .file_name()
            .ok_or_else(|| UsageError(format!("--out {}: names no file", out.display())))?;
        let mut temporary_name = std::ffi::OsString::from(".");
        temporary_name.push(name);
        temporary_name.push(".partial");
        let temporary = out.with_file_name(temporary_name);
        let file = File::create(&temporary)
            .with_context(|| format!("cannot write {}", temporary.display()))?;
        Ok(PendingOutput {
            temporary,
            file: Some(file),
        })
    }

    /// Writes the text and moves it into place.
    fn commit(mut self, text: &str, out: &Path) -> anyhow::Result<()> {
        let mut file = self.file.take().expect("committed once");
        file.write_all(text.as_bytes())
            .and_then(|()| file.sync_all())
            .with_context(|| format!("cannot write {}", self.temporary.display()))?;
        drop(file);
        std::fs::rename(&self.temporary, out)
            .with_context(|| format!("cannot write {}", out.display()))?;
        Ok(())
    }
}

impl Drop for PendingOutput {
    fn drop(&mut self) {
        // Still pending: the run failed, so the partial file goes (committed: it was renamed).
        if self.file.is_some() {
            let _ = std::fs::remove_file(&self.temporary);
        }
    }
}

/// Shows generation progress: a bar when both outputs are terminals, otherwise a plain line at
/// every tenth of the positions found (no carriage returns in a log).
struct GenerateProgress {
    bar: Option<ProgressBar>,
    count: usize,
    /// Tenths of `count` already reported as plain lines.
    tenths_reported: usize,
    start: Instant,
}

impl GenerateProgress {
    fn new(count: usize) -> GenerateProgress {
        let interactive = std::io::stdout().is_terminal() && std::io::stderr().is_terminal();
        let bar = interactive.then(|| {
            let bar =
                ProgressBar::with_draw_target(Some(count as u64), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template("[{bar:30}] {pos}/{len} found, {msg} {elapsed}")
                    .expect("the template is valid")
                    .progress_chars("#>-"),
            );
            bar
        });
        GenerateProgress {
            bar,
            count,
            tenths_reported: 0,
            start: Instant::now(),
        }
    }

    fn update(&mut self, p: &Progress) {
        if let Some(bar) = &self.bar {
            bar.set_message(format!(
                "{} candidates, {} duplicates",
                p.tried, p.duplicates
            ));
            bar.set_position(p.found as u64);
            return;
        }
        let tenths = p.found * 10 / self.count.max(1);
        if tenths > self.tenths_reported {
            self.tenths_reported = tenths;
            eprintln!(
                "{} / {} found, {} candidates, {} duplicates, {:.0} s",
                p.found,
                self.count,
                p.tried,
                p.duplicates,
                self.start.elapsed().as_secs_f64()
            );
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish();
        }
    }
}

/// Generates a suite and writes one six-field FEN per line.
pub fn run_generate(args: &GenerateArgs) -> anyhow::Result<()> {
    let start = Instant::now();
    let mut opts = args.options();
    if let Some(path) = &args.weights {
        opts.weights = Some(Arc::new(EvalParams::load(path)?));
    }
    // Bad options are reported before the output is touched and before the banner.
    opts.validate()?;
    let pending = PendingOutput::create(&args.out)?;
    let (min, max) = opts.window();
    eprintln!(
        "generating {} positions of {} plies, score {min}..={max} cp for the side to move, {} nodes, seed {}, variant {}",
        opts.count,
        opts.plies,
        opts.nodes,
        opts.seed,
        args.variant.name()
    );
    let mut progress = GenerateProgress::new(opts.count);
    let generated = generate_from(&opts, args.variant.start_variant(), |p| progress.update(&p));
    progress.finish();
    let openings = generated?;
    let mut text = String::with_capacity(openings.len() * 80);
    for o in &openings {
        text.push_str(&o.position.to_fen());
        if args.annotate {
            text.push_str(&format!(" c0 \"score {:+} cp\";", o.score));
        }
        text.push('\n');
    }
    pending.commit(&text, &args.out)?;
    eprintln!(
        "wrote {} in {:.1} s",
        args.out.display(),
        start.elapsed().as_secs_f64()
    );
    outln!("openings {}", openings.len())?;
    Ok(())
}
