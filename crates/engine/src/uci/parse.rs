//! Parsing the commands that carry arguments: `position` and `go`.

use crate::board::{FenError, MoveParseError, Position};
use crate::error::{ErrorClass, Failure};
use crate::search::{Clock, SearchLimits};
use std::time::Duration;

/// Why a `position` command was refused; the engine then has no position until the next valid
/// one, and `go` answers `bestmove 0000`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PositionError {
    /// Neither `startpos` nor `fen` follows `position`.
    #[error("expected 'startpos' or 'fen'")]
    MissingSetup,
    /// `position fen` with nothing after it.
    #[error("'position fen' needs a FEN")]
    MissingFen,
    /// The FEN does not parse.
    #[error("bad FEN: {0}")]
    BadFen(#[from] FenError),
    /// A move of the `moves` list is malformed or illegal.
    #[error("move {number} of the move list: {source}")]
    BadMove {
        /// 1 for the first move after `moves`.
        number: usize,
        /// Why the move text was refused.
        #[source]
        source: MoveParseError,
    },
}

impl ErrorClass for PositionError {
    fn class(&self) -> Failure {
        match self {
            PositionError::BadFen(source) => source.class(),
            PositionError::BadMove { source, .. } => source.class(),
            PositionError::MissingSetup | PositionError::MissingFen => Failure::BadInput,
        }
    }
}

/// A part of `go` that was ignored; reported on `info string`, the search runs regardless.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum GoWarning {
    /// A parameter that takes a value came last or before another parameter.
    #[error("'{key}' needs a value; ignored")]
    MissingValue {
        /// The parameter, e.g. `depth`.
        key: String,
    },
    /// A value that is not a whole number, or too large for the parameter.
    #[error("'{key}' expects a whole number in range, found '{text}'; ignored")]
    BadNumber {
        /// The parameter, e.g. `nodes`.
        key: String,
        /// The value as given.
        text: String,
    },
    /// A number with a fraction where a whole number belongs: the fraction is dropped.
    #[error("'{key}' expects a whole number, found '{text}'; using {whole}")]
    Fraction {
        /// The parameter, e.g. `wtime`.
        key: String,
        /// The value as given.
        text: String,
        /// The whole part, which is used.
        whole: i128,
    },
    /// A token that is no `go` parameter.
    #[error("unknown go parameter '{token}'; ignored")]
    Unknown {
        /// The word as given.
        token: String,
    },
    /// A `searchmoves` entry that is not a legal move in the position.
    #[error("searchmoves: {0}; ignored")]
    BadSearchMove(MoveParseError),
    /// `searchmoves` named no legal move at all.
    #[error("no legal move among the searchmoves; searching every move")]
    NoSearchMoves,
}

/// A parsed `go` command. `limits.searchmoves` is empty: the move texts need the position.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct GoCommand {
    /// The limits understood (MultiPV and searchmoves are filled in by the engine).
    pub limits: SearchLimits,
    /// `go ponder`: search without time limits until `ponderhit` or `stop`.
    pub ponder: bool,
    /// The `searchmoves` texts, in order.
    pub searchmoves: Vec<String>,
    /// What was ignored, in order.
    pub warnings: Vec<GoWarning>,
}
/// Parses the arguments of `position`; `keys` receives the keys of the positions before the
/// result, for repetition detection.
pub fn parse_position(args: &[&str], keys: &mut Vec<u64>) -> Result<Position, PositionError> {
    let moves_at = args.iter().position(|&t| t == "moves");
    let setup = &args[..moves_at.unwrap_or(args.len())];
    let mut pos = match setup.first() {
        Some(&"startpos") => Position::startpos(),
        Some(&"fen") if setup.len() == 1 => return Err(PositionError::MissingFen),
        Some(&"fen") => Position::from_fen_lenient(&setup[1..].join(" "))?,
        _ => return Err(PositionError::MissingSetup),
    };
    if let Some(at) = moves_at {
        for (i, text) in args[at + 1..].iter().enumerate() {
            let mv = pos
                .parse_uci_move(text)
                .map_err(|source| PositionError::BadMove {
                    number: i + 1,
                    source,
                })?;
            keys.push(pos.key());
            pos.make_move(mv);
        }
    }
    Ok(pos)
}

/// Every word `go` knows; a value never is one of them.
const GO_KEYWORDS: [&str; 12] = [
    "searchmoves",
    "ponder",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "depth",
    "nodes",
    "mate",
    "movetime",
    "infinite",
];

/// Parses the arguments of `go`. Never fails: what cannot be used becomes a warning and is
/// ignored, so that every `go` is answered.
pub(crate) fn parse_go(args: &[&str], move_overhead: Duration) -> GoCommand {
    let mut command = GoCommand {
        limits: SearchLimits {
            move_overhead,
            ..Default::default()
        },
        ..Default::default()
    };
    let limits = &mut command.limits;
    let mut clock = Clock::default();
    let mut has_clock = false;
    let mut i = 0;
    while i < args.len() {
        let key = args[i];
        i += 1;
        match key {
            "infinite" => limits.infinite = true,
            "ponder" => command.ponder = true,
            "searchmoves" => {
                while i < args.len() && !GO_KEYWORDS.contains(&args[i]) {
                    command.searchmoves.push(args[i].to_string());
                    i += 1;
                }
            }
            "wtime" | "btime" | "winc" | "binc" | "movestogo" | "depth" | "nodes" | "mate"
            | "movetime" => {
                let Some(&text) = args.get(i).filter(|t| !GO_KEYWORDS.contains(t)) else {
                    command.warnings.push(GoWarning::MissingValue {
                        key: key.to_string(),
                    });
                    continue;
                };
                i += 1;
                // Some GUIs send negative clock times when a player is already over time.
                let value = match parse_whole(text) {
                    Some((whole, false)) => Some(whole),
                    Some((whole, true)) => {
                        command.warnings.push(GoWarning::Fraction {
                            key: key.to_string(),
                            text: text.to_string(),
                            whole,
                        });
                        Some(whole)
                    }
                    None => None,
                }
                .map(|v| v.max(0));
                let ms = || {
                    value
                        .and_then(|v| u64::try_from(v).ok())
                        .map(Duration::from_millis)
                };
                let count = || value.and_then(|v| u32::try_from(v).ok());
                let understood = match key {
                    "wtime" => ms().map(|t| clock.white_time = t),
                    "btime" => ms().map(|t| clock.black_time = t),
                    "winc" => ms().map(|t| clock.white_increment = t),
                    "binc" => ms().map(|t| clock.black_increment = t),
                    "movestogo" => count().map(|n| clock.moves_to_go = Some(n)),
                    "depth" => count().map(|d| limits.depth = Some(d.max(1))),
                    "mate" => count().map(|n| limits.depth = Some(n.saturating_mul(2).max(1))),
                    "movetime" => ms().map(|t| limits.movetime = Some(t)),
                    _ => value
                        .and_then(|v| u64::try_from(v).ok())
                        .map(|n| limits.nodes = Some(n.max(1))),
                };
                match understood {
                    Some(()) => has_clock |= matches!(key, "wtime" | "btime"),
                    None => command.warnings.push(GoWarning::BadNumber {
                        key: key.to_string(),
                        text: text.to_string(),
                    }),
                }
            }
            other => command.warnings.push(GoWarning::Unknown {
                token: other.to_string(),
            }),
        }
    }
    if has_clock {
        limits.clock = Some(clock);
    }
    command
}

/// A whole number, or a decimal one cut to its whole part (true when a fraction was dropped).
fn parse_whole(text: &str) -> Option<(i128, bool)> {
    if let Ok(whole) = text.parse::<i128>() {
        return Some((whole, false));
    }
    let (whole, fraction) = text.split_once('.')?;
    if whole.is_empty() || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((whole.parse().ok()?, true))
}
