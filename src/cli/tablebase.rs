//! `sparring tablebase probe --path DIR FEN`: a position's Syzygy WDL and DTZ;
//! `sparring tablebase verify --path DIR`: every table file checked whole.

use anyhow::Context;
use clap::{Args, Subcommand};
use sparring::board::Position;
use sparring::tablebase::{TablebaseError, Tablebases};

/// Arguments of `sparring tablebase`.
#[derive(Args, Debug)]
pub struct TablebaseArgs {
    #[command(subcommand)]
    pub command: TablebaseCommand,
}

/// What to do with the tables.
#[derive(Subcommand, Debug)]
pub enum TablebaseCommand {
    /// Print `wdl N` (-2 loss .. 2 win, for the side to move; ±1: the fifty-move rule draws it)
    /// and `dtz N` (plies to the next capture or pawn move, signed the same way) of a position.
    Probe(ProbeArgs),
    /// Check every table file whole (size, magic, header and the checksum each file carries),
    /// as `md5sum -c` would after a download: one line per damaged file, exit status 2 if any.
    Verify(VerifyArgs),
}

/// Arguments of `sparring tablebase verify`.
#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// The directory of the table files (several separated by ':').
    #[arg(long, value_name = "DIR")]
    pub path: std::path::PathBuf,
}

/// Arguments of `sparring tablebase probe`.
#[derive(Args, Debug)]
pub struct ProbeArgs {
    /// The directory of the `.rtbw`/`.rtbz` files (several separated by ':').
    #[arg(long, value_name = "DIR")]
    pub path: std::path::PathBuf,
    /// The position (FEN; no castling rights, at most as many pieces as the largest table).
    pub fen: String,
}

/// Runs `sparring tablebase ...`.
pub fn run(args: &TablebaseArgs) -> anyhow::Result<()> {
    match &args.command {
        TablebaseCommand::Probe(probe) => run_probe(probe),
        TablebaseCommand::Verify(verify) => run_verify(verify),
    }
}

fn run_verify(args: &VerifyArgs) -> anyhow::Result<()> {
    let found = Tablebases::verify(&args.path)?;
    for file in &found.damaged {
        outln!("{file}")?;
    }
    outln!(
        "{} files checked, {} damaged",
        found.files,
        found.damaged.len()
    )?;
    if found.damaged.is_empty() {
        Ok(())
    } else {
        Err(TablebaseError::Damaged {
            files: found.damaged,
        }
        .into())
    }
}

fn run_probe(args: &ProbeArgs) -> anyhow::Result<()> {
    let pos = Position::from_fen(&args.fen).with_context(|| format!("bad FEN '{}'", args.fen))?;
    let tables = Tablebases::open(&args.path)?;
    let fen =
        |e: TablebaseError| anyhow::Error::new(e).context(format!("cannot probe {}", args.fen));
    let wdl = tables.probe_wdl(&pos).map_err(fen)?;
    let dtz = tables.probe_dtz(&pos).map_err(fen)?;
    outln!("wdl {}", wdl.value())?;
    outln!("dtz {dtz}")?;
    Ok(())
}
