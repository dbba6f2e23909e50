//! `sparring openings check|probe|generate`: inspect a suite or book, list a Polyglot book's moves
//! for a position, and build a suite with the engine.

use super::UsageError;
use crate::board::{Position, Square};
use crate::openings::generate::{generate, GenerateOptions};
use crate::openings::{
    polyglot_key, BookOptions, OpeningBook, OpeningFormat, OpeningsError, PolyglotBook,
    PolyglotFormatError,
};
use anyhow::Context;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

pub struct CheckArgs {
    pub file: PathBuf,
    pub format: Option<OpeningFormat>,
    pub plies: Option<usize>,
}

/// Bad input (unreadable file, nothing playable) exits with status 2.
fn usage(err: OpeningsError) -> anyhow::Error {
    UsageError(err.to_string()).into()
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
    let book = OpeningBook::open(&args.file, args.format, options).map_err(usage)?;
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
pub fn probe(book: &Path, fen: Option<&str>) -> anyhow::Result<()> {
    let bytes = std::fs::read(book).map_err(|source| {
        usage(OpeningsError::Io {
            path: book.to_path_buf(),
            source,
        })
    })?;
    // Read directly rather than through OpeningBook: an empty book is still worth probing.
    let polyglot = PolyglotBook::from_bytes(&bytes).map_err(|e| {
        usage(match e {
            PolyglotFormatError::Size(size) => OpeningsError::PolyglotSize {
                path: book.to_path_buf(),
                size,
            },
            PolyglotFormatError::Unsorted(entry) => OpeningsError::PolyglotUnsorted {
                path: book.to_path_buf(),
                entry,
            },
        })
    })?;
    let (pos, ep) = match fen {
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

pub struct GenerateArgs {
    pub options: GenerateOptions,
    pub out: PathBuf,
    /// Add a `c0` comment with the search score to each line.
    pub annotate: bool,
    /// A weights file for the engine that plays and scores the lines.
    pub weights: Option<PathBuf>,
}

/// Generates a suite and writes one six-field FEN per line.
pub fn run_generate(args: &GenerateArgs) -> anyhow::Result<()> {
    let start = Instant::now();
    let mut opts = args.options.clone();
    if let Some(path) = &args.weights {
        let params = load_weights(path)?;
        opts.weights = Some(std::sync::Arc::new(params));
    }
    let opts = &opts;
    let (min, max) = opts.window();
    eprintln!(
        "generating {} positions of {} plies, score {min}..={max} cp for the side to move, {} nodes, seed {}",
        opts.count, opts.plies, opts.nodes, opts.seed
    );
    let openings = generate(opts, |p| {
        eprint!(
            "\r{} / {} found, {} candidates, {} duplicates, {:.0} s",
            p.found,
            opts.count,
            p.tried,
            p.duplicates,
            start.elapsed().as_secs_f64()
        );
    })
    .map_err(|e| UsageError(e.to_string()))?;
    eprintln!();
    let mut text = String::with_capacity(openings.len() * 80);
    for o in &openings {
        text.push_str(&o.position.to_fen());
        if args.annotate {
            text.push_str(&format!(" c0 \"score {:+} cp\";", o.score));
        }
        text.push('\n');
    }
    std::fs::write(&args.out, text)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    eprintln!(
        "wrote {} in {:.1} s",
        args.out.display(),
        start.elapsed().as_secs_f64()
    );
    println!("openings {}", openings.len());
    Ok(())
}

/// Loads a weights file for a command, naming it in the error.
fn load_weights(path: &std::path::Path) -> anyhow::Result<crate::eval::EvalParams> {
    crate::eval::EvalParams::load(path).map_err(|e| UsageError(e.to_string()).into())
}
