//! The fastchess / cutechess-cli command line (`sparring match -engine ...`, or the binary run
//! under the name `fastchess`, `fastchess-ob` or `cutechess-cli`), turned into the same
//! `MatchConfig` a TOML file gives. The options, their status and the rules for what fastchess
//! has no counterpart of (the output directory) are in docs/command-line-dialect.md.
//!
//! Tokenized by hand: clap cannot express groups like `-engine k=v k=v ... -engine k=v`.

mod build;
mod compliance;
mod engine;
mod engines_json;
mod noted;
mod options;
mod output;
mod tablebase;
mod tokens;

use super::matches::{play, ProgressStyle};
use super::UsageError;
use sparring::arena::config::MatchConfig;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

pub use options::parse;

/// Which runner's conventions the command line follows where fastchess and cutechess-cli differ
/// (`-games`, `-rounds` defaults, the results lines).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// fastchess: `-games` is games per round (at most 2, swapped with `-rounds` when larger).
    Fastchess,
    /// cutechess-cli: `-games` is games per encounter, `-rounds` multiplies them.
    Cutechess,
}

impl Flavor {
    /// The runner whose conventions this flavor follows, for messages.
    pub fn runner(self) -> &'static str {
        match self {
            Flavor::Fastchess => "fastchess",
            Flavor::Cutechess => "cutechess-cli",
        }
    }
}

/// The version line of `-version`: the fastchess release whose command line and output sparring
/// follows comes first (OpenBench takes the first `N.N.N` it sees and needs at least 1.8.1), then
/// sparring's own name and version. It does not claim to be a fastchess build.
pub const VERSION_LINE: &str = concat!(
    "fastchess-compatible 1.8.1 command line, provided by sparring ",
    env!("CARGO_PKG_VERSION")
);

/// The dialect's flavor when the program was started under a runner's name (a symlink).
pub fn flavor_of_program(argv0: &OsStr) -> Option<Flavor> {
    let stem = Path::new(argv0).file_stem()?.to_str()?;
    match stem {
        "fastchess" | "fastchess-ob" => Some(Flavor::Fastchess),
        "cutechess-cli" => Some(Flavor::Cutechess),
        _ => None,
    }
}

/// Whether `sparring match <first> ...` is the dialect rather than `sparring match CONFIG`:
/// its first argument is a single-dash option (`-engine`), not a `--flag` or clap's `-h`.
pub fn is_dialect_argument(first: &OsStr) -> bool {
    let Some(text) = first.to_str() else {
        return false;
    };
    text.starts_with('-') && !text.starts_with("--") && text != "-h" && text.len() > 1
}

/// What a command line in the dialect asks for.
#[derive(Debug)]
pub enum Request {
    /// `-version`: print `VERSION_LINE`.
    Version,
    /// `-help` (or no arguments): print the usage.
    Help,
    /// cutechess-cli's `-engines` (alone): print the names of the configured engines
    /// (`engines.json`), one a line.
    Engines(Vec<String>),
    /// Play (or, with `--dump-config`, write) a match.
    Match(Box<DialectMatch>),
}

/// A match the command line describes.
#[derive(Debug)]
pub struct DialectMatch {
    /// The configuration, as a TOML file would give it.
    pub config: MatchConfig,
    /// One line each about an accepted option sparring has no use for.
    pub notes: Vec<String>,
    /// `--dump-config FILE`: write the TOML form there instead of playing.
    pub dump_config: Option<PathBuf>,
    /// `--resume`: continue the run in the output directory.
    pub resume: bool,
    /// `--progress lines|bar|auto` (default lines, as fastchess prints).
    pub progress: ProgressStyle,
}

/// Parses, then prints the version or help, writes the TOML form, or plays the match.
pub fn run(args: &[OsString], flavor: Flavor) -> anyhow::Result<()> {
    let mut texts = Vec::with_capacity(args.len());
    for arg in args {
        match arg.to_str() {
            Some(t) => texts.push(t.to_string()),
            None => {
                return Err(UsageError(one_line(&format!(
                    "argument {} is not valid UTF-8",
                    arg.to_string_lossy()
                )))
                .into())
            }
        }
    }
    // A refusal quotes the user's tokens, which may hold line breaks or other control
    // characters: escaped, so the message stays the one line a worker's log parser reads.
    let request = parse(&texts, flavor).map_err(|e| UsageError(one_line(&e.0)))?;
    match request {
        Request::Version => outln!("{VERSION_LINE}")?,
        Request::Help => out!("{}", usage(flavor))?,
        Request::Engines(names) => {
            for name in names {
                outln!("{name}")?;
            }
        }
        Request::Match(m) => {
            for note in &m.notes {
                eprintln!("note: {note}");
            }
            if let Some(path) = &m.dump_config {
                super::write_config_dump(&m.config, path)?;
                return Ok(());
            }
            play(&m.config, m.resume, m.progress)?;
        }
    }
    Ok(())
}

/// `text` with its control characters escaped (`\n`, `\t`, `\u{7}`): one line.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}
/// `-help`: the options sparring reads in this dialect.
pub fn usage(flavor: Flavor) -> String {
    let program = match flavor {
        Flavor::Fastchess => "fastchess (or sparring match)",
        Flavor::Cutechess => "cutechess-cli",
    };
    format!(
        "{VERSION_LINE}

Usage: {program} -engine KEY=VALUE... -engine KEY=VALUE... [OPTIONS]

Engines:
  -engine cmd=PATH [name=N] [dir=D] [args=\"A B\"] [proto=uci|xboard] LIMIT [timemargin=MS] [option.X=V]...
  -engine builtin [name=N] [weights=FILE] [hash=MB] LIMIT      the built-in engine (also cmd=builtin)
  -each KEY=VALUE...        applied to every engine after the line is read (overrides)
  LIMIT: tc=[moves/]secs[+inc] (tc=inf for none) | st=SECS | nodes=N | depth=N (plies=N)

Match:
  -rounds N -games 1|2 -repeat [N]   fastchess rules: total games = pairings x rounds x games
  -tournament roundrobin|gauntlet [-seeds N]   -concurrency N [-force-concurrency]   -srand SEED
  -noswap   -reverse   -wait MS   -startup-ms MS -ucinewgame-ms MS -ping-ms MS (one timeout)
  -variant standard|fischerandom
  -openings file=F [format=epd|pgn] [order=random|sequential] [plies=N] [start=N] [policy=round]
  -draw [movenumber=N] [movecount=N] [score=CP]   -resign movecount=N score=CP [twosided=true]
  -maxmoves N   -sprt elo0=E0 elo1=E1 [alpha=A] [beta=B] [model=normalized|logistic|bayesian]
  -recover   -strict   -event TEXT   -site TEXT   -config file=MATCH.toml | outname=F [discard=B]
  -check-mate-pvs   -testEnv   -crc32 pgn=true   -use-affinity [CPUS]   -show-latency
  -engines [FILE]   alone: list engines.json's engines; with FILE: the file conf=NAME reads
  -pgnin FILE | -epdin FILE [-pgndepth N]   cutechess-cli's old -openings (file order)

Output:
  -pgnout file=DIR/NAME.pgn [append=false]   other records go to DIR/NAME.pgn.sparring/
  -epdout file=F [append=false]   each game's final position (cutechess-cli: -epdout F, FEN)
  -ratinginterval N   -report penta=true|false   -output format=fastchess|cutechess
  -log file=F [engine=true]   every engine's traffic and standard error

sparring's own: --dump-config FILE.toml (write the TOML form and stop), --resume,
  --progress lines|bar|auto (default lines).
Accepted with a note: -scoreinterval -autosaveinterval -resultformat -outcomeinterval -bookmode.
  Tablebases: -tb PATH [-tbpieces N] [-tbignore50] [-tbadjudicate WIN_LOSS|DRAW|BOTH].
  Details: docs/command-line-dialect.md
"
    )
}

#[cfg(test)]
mod tests;
