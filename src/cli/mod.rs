//! The command-line edge: each subcommand's work, called by `main.rs` after parsing. Errors here
//! carry `anyhow` context; an error that is the user's input maps to exit status 2.

pub mod bench;
pub mod matches;
pub mod openings;
pub mod perft;
pub mod tune;

/// An error caused by the user's input (bad FEN, bad file): the command exits with status 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// The exit status for an error: 2 for bad input, 1 otherwise.
pub fn exit_code(err: &anyhow::Error) -> i32 {
    if err
        .chain()
        .any(|e| e.is::<UsageError>() || e.is::<crate::board::FenError>())
    {
        2
    } else {
        1
    }
}

/// `sparring uci`: the UCI loop on standard input and output.
pub fn run_uci(weights: Option<&str>) -> anyhow::Result<()> {
    let out = Box::new(std::io::stdout());
    let mut engine = match weights {
        Some(path) => {
            crate::uci::UciEngine::with_weights(out, path).map_err(|e| UsageError(e.to_string()))?
        }
        None => crate::uci::UciEngine::new(out),
    };
    engine.run(std::io::stdin().lock())?;
    Ok(())
}
