//! The engine compliance checks fastchess runs on every UCI move, and that fishtest's worker
//! watches for (docs/research/compliance-checks.md): the score of the last info line, every
//! scored info line's PV replayed on the game's board, the mating PVs (with `-check-mate-pvs`),
//! the bestmove against the PV's head, the move's format and legality, and the sign of two
//! consecutive mate scores. The conditions follow fastchess at the commit fishtest pins
//! (58072f2): a PV move after a mate or a stalemate is an illegal PV move.
//!
//! Values only: each finding is a [`Warning`], with fastchess's wording as data
//! ([`Warning::fastchess_parts`]); the caller decides where it goes.

use crate::arena::engine::player::EngineReply;
use crate::board::{CastlingNotation, Color, Game, Move, Position};
use std::time::Duration;

/// Which of the optional checks run (the others always do, as in fastchess).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ComplianceChecks {
    /// fastchess's `-check-mate-pvs`: a `score mate N` line's PV must mate in exactly N moves.
    pub mate_pvs: bool,
    /// fastchess's `-show-latency`: a [`Warning::Latency`] note after every move.
    pub latency: bool,
}

/// Where a PV warning was found: the info line, and the game it was read in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PvContext {
    /// The info line as the engine wrote it.
    pub info: String,
    /// `startpos`, or `fen <the game's start FEN>`.
    pub position: String,
    /// The game's moves before this one (book moves included), in UCI, space-separated.
    pub moves: String,
}

/// How a PV went on after the game was already over (at threefold repetition or the fifty-move
/// rule; after a mate the next move is illegal).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PvEnd {
    /// The position had occurred twice before.
    Threefold,
    /// The halfmove clock had reached 100.
    FiftyMoves,
}

/// One thing an engine's move did that fastchess warns about.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Warning {
    /// It wrote lines besides `bestmove`, but no scored info line.
    NoInfoLine,
    /// Its last scored info line has a score fastchess cannot read.
    NoScore {
        /// Why: `Element 'score' has no type or value`, `Unexpected score type: <line>`, ...
        reason: String,
    },
    /// A PV move not legal where it stands.
    IllegalPvMove {
        /// The move as written.
        mv: String,
        /// The line and the game.
        context: PvContext,
    },
    /// A PV move after a threefold repetition or the fifty-move rule.
    PvAfterEnd {
        /// Which rule had ended the game.
        end: PvEnd,
        /// The move after it, as written.
        mv: String,
        /// The line and the game.
        context: PvContext,
    },
    /// `score mate N` with a PV shorter than the mate (checked with `mate_pvs`).
    IncompleteMatingPv {
        /// The line and the game.
        context: PvContext,
    },
    /// `score mate N` with a PV longer than the mate (checked with `mate_pvs`).
    TooLongMatingPv {
        /// The line and the game.
        context: PvContext,
    },
    /// `score mate N` with a PV of the right length that does not mate (checked with `mate_pvs`).
    MatingPvNotMate {
        /// The line and the game.
        context: PvContext,
    },
    /// The bestmove is not the first move of the last (multipv 1) PV.
    BestmoveNotPvHead {
        /// The bestmove as written.
        bestmove: String,
        /// The line and the game.
        context: PvContext,
    },
    /// The bestmove is not 4 or 5 characters of UCI move syntax.
    MoveFormat {
        /// The bestmove as written.
        bestmove: String,
    },
    /// The bestmove is not a legal move (or there was none): the engine lost the game.
    IllegalMove {
        /// The bestmove as written; None when the `bestmove` line named none.
        bestmove: Option<String>,
    },
    /// A `bestmove` line with no move.
    NoBestmove {
        /// The line.
        line: String,
    },
    /// The engine did not answer in time when no clock was running (a stall).
    NotResponsive,
    /// This move's and the opponent's previous move's mate scores claim the same side wins (or
    /// loses): each is from its own engine's point of view, so one of them is wrong.
    MateSignMismatch {
        /// The opponent's previous mate score, as it wrote it.
        theirs: i32,
        /// This move's mate score.
        ours: i32,
        /// The opponent's colour (the side to move now).
        their_color: Color,
        /// The opponent's last info line, then this move's.
        infos: [String; 2],
        /// The game's start (`startpos` or `fen ...`).
        position: String,
        /// The game's moves, this one included.
        moves: String,
    },
    /// A configured option the engine did not declare in its `option name` lines (found when
    /// the engine starts, before any game).
    UndeclaredOption {
        /// The option's name as configured.
        option: String,
    },
    /// A configured option value outside what the engine's declaration allows (a spin out of
    /// its min..max, a check not `true`/`false`, a combo value not among its vars, a button
    /// not `true`): not sent.
    InvalidOptionValue {
        /// The option's name as configured.
        option: String,
        /// The configured value.
        value: String,
    },
    /// A configured value fastchess cannot read as the option's declared number (a spin of
    /// `lots`): not sent.
    OptionNotSet {
        /// The option's name as configured.
        option: String,
        /// The configured value.
        value: String,
        /// The exception's text fastchess prints (`stoi`).
        reason: String,
    },
    /// Not a warning: fastchess's `-show-latency` note (the time from `go` to `bestmove` as
    /// measured, against the engine's own last reported `time`).
    Latency {
        /// Measured, in milliseconds.
        elapsed_ms: i64,
        /// Reported in the last info line with a `time`, in milliseconds (0 without one).
        reported_ms: i64,
    },
}

fn color_word(color: Color) -> &'static str {
    crate::arena::game::color_name(color)
}

impl Warning {
    /// Whether this is a warning (counted, and one fishtest's worker stops on); false for the
    /// latency note.
    pub fn is_warning(&self) -> bool {
        !matches!(self, Warning::Latency { .. })
    }

    /// fastchess's text for it about `engine` (whose `opponent` is the other engine of the
    /// game): the warning first, then the `Info;`, `Position;` and `Moves;` parts it adds.
    /// fastchess joins them with `" :: "` under `-testEnv`, else with line breaks.
    pub fn fastchess_parts(&self, engine: &str, opponent: &str) -> Vec<String> {
        let with_context = |head: String, c: &PvContext| {
            vec![
                head,
                format!("Info; {}", c.info),
                format!("Position; {}", c.position),
                format!("Moves; {}", c.moves),
            ]
        };
        match self {
            Warning::NoInfoLine => vec![format!(
                "Warning; No info line available to extract score from engine {engine}"
            )],
            Warning::NoScore { reason } => vec![format!(
                "Warning; Could not extract score from engine {engine}: {reason}"
            )],
            Warning::IllegalPvMove { mv, context } => with_context(
                format!("Warning; Illegal PV move - move {mv} from {engine}"),
                context,
            ),
            Warning::PvAfterEnd { end, mv, context } => {
                let rule = match end {
                    PvEnd::Threefold => "threefold repetition",
                    PvEnd::FiftyMoves => "fifty-move rule",
                };
                with_context(
                    format!("Warning; PV continues after {rule} - move {mv} from {engine}"),
                    context,
                )
            }
            Warning::IncompleteMatingPv { context } => with_context(
                format!("Warning; Incomplete mating PV - from {engine}"),
                context,
            ),
            Warning::TooLongMatingPv { context } => with_context(
                format!("Warning; Too long mating PV - from {engine}"),
                context,
            ),
            Warning::MatingPvNotMate { context } => with_context(
                format!("Warning; Mating PV does not end with checkmate - from {engine}"),
                context,
            ),
            Warning::BestmoveNotPvHead { bestmove, context } => with_context(
                format!(
                    "Warning; Bestmove does not match beginning of last PV - move {bestmove} from {engine}"
                ),
                context,
            ),
            Warning::MoveFormat { bestmove } => vec![format!(
                "Warning; Move does not match uci move format, lowercase and 4/5 chars. Move {bestmove} played by {engine}"
            )],
            Warning::IllegalMove { bestmove } => vec![format!(
                "Warning; Illegal move {} played by {engine}",
                bestmove.as_deref().unwrap_or("<none>")
            )],
            Warning::NoBestmove { line } => vec![format!(
                "Warning; No bestmove found from {engine} because: Element 'bestmove' not found. Last line was: {line}"
            )],
            Warning::NotResponsive => vec![format!("Warning; Engine {engine} is not responsive")],
            Warning::UndeclaredOption { option } => {
                vec![format!("Warning; {engine} doesn't have option {option}")]
            }
            // fastchess names no engine here (so fishtest cannot exempt a release engine).
            Warning::InvalidOptionValue { option, value } => {
                vec![format!("Warning; Invalid value for option {option}; {value}")]
            }
            Warning::OptionNotSet {
                option,
                value,
                reason,
            } => vec![format!(
                "Warning; Failed to set option {option} with value {value} for engine {engine}: {reason}"
            )],
            Warning::MateSignMismatch {
                theirs,
                ours,
                their_color,
                infos,
                position,
                moves,
            } => vec![
                format!(
                    "Warning; Sign mismatch in mate scores {theirs} and {ours} from {opponent} ({}) and {engine} ({})",
                    color_word(*their_color),
                    color_word(!*their_color)
                ),
                format!("Infos; {} ; {}", infos[0], infos[1]),
                format!("Position; {position}"),
                format!("Moves; {moves}"),
            ],
            Warning::Latency {
                elapsed_ms,
                reported_ms,
            } => vec![format!(
                "Engine {engine} latency: {}ms (elapsed: {elapsed_ms}, reported: {reported_ms})",
                elapsed_ms - reported_ms
            )],
        }
    }
}

/// Whether `token` is a UCI move as fastchess reads one: `[a-h][1-8][a-h][1-8]` and an optional
/// lowercase promotion piece.
pub(crate) fn is_uci_move_text(token: &str) -> bool {
    let b = token.as_bytes();
    let square = |f: u8, r: u8| (b'a'..=b'h').contains(&f) && (b'1'..=b'8').contains(&r);
    match b.len() {
        4 => square(b[0], b[1]) && square(b[2], b[3]),
        5 => square(b[0], b[1]) && square(b[2], b[3]) && b"nbrq".contains(&b[4]),
        _ => false,
    }
}

/// An info line as fastchess reads it for these checks.
struct ScoredLine<'a> {
    text: &'a str,
    tokens: Vec<&'a str>,
}

impl<'a> ScoredLine<'a> {
    fn new(text: &'a str) -> ScoredLine<'a> {
        // fastchess splits on single spaces and drops empty tokens: tabs stay inside tokens.
        let tokens = text.split(' ').filter(|t| !t.is_empty()).collect();
        ScoredLine { text, tokens }
    }

    fn value_of(&self, key: &str) -> Option<&'a str> {
        let i = self.tokens.iter().position(|&t| t == key)?;
        self.tokens.get(i + 1).copied()
    }

    fn is_bound(&self) -> bool {
        self.tokens
            .iter()
            .any(|&t| t == "lowerbound" || t == "upperbound")
    }

    /// The moves after `pv`, up to the first token that is no UCI move.
    fn pv(&self) -> Vec<&'a str> {
        let Some(i) = self.tokens.iter().position(|&t| t == "pv") else {
            return Vec::new();
        };
        self.tokens[i + 1..]
            .iter()
            .copied()
            .take_while(|t| is_uci_move_text(t))
            .collect()
    }

    /// `score mate N` as written; None for other scores or none.
    fn mate(&self) -> Option<i32> {
        (self.value_of("score")? == "mate")
            .then(|| self.score_value()?.parse().ok())
            .flatten()
    }

    fn score_value(&self) -> Option<&'a str> {
        let i = self.tokens.iter().position(|&t| t == "score")?;
        self.tokens.get(i + 2).copied()
    }

    /// Why the score cannot be read, or None when it can.
    fn score_problem(&self) -> Option<String> {
        let Some(kind) = self.value_of("score") else {
            return Some("Element 'score' not found".to_string());
        };
        let Some(value) = self.score_value() else {
            return Some("Element 'score' has no type or value".to_string());
        };
        if kind != "cp" && kind != "mate" {
            return Some(format!("Unexpected score type: {}", self.text));
        }
        if value.parse::<i64>().is_err() {
            return Some(format!("Invalid score value: {value}"));
        }
        None
    }
}

/// fastchess's "info lines": scored (` score `), not `info string`.
fn is_scored_info(line: &str) -> bool {
    line.contains("info") && line.contains(" score ") && !line.contains("info string")
}

/// The line the move's score comes from: the newest exact scored line of the first PV, else
/// the newest bound one (fastchess's `lastInfoLine`).
fn last_info_line(output: &[String]) -> Option<&str> {
    let first_pv = |l: &&String| !l.contains(" multipv ") || l.contains(" multipv 1");
    let mut candidates = output
        .iter()
        .rev()
        .filter(|l| is_scored_info(l))
        .filter(first_pv);
    let newest_bound = candidates.clone().next().map(String::as_str);
    candidates
        .find(|l| !ScoredLine::new(l).is_bound())
        .map(String::as_str)
        .or(newest_bound)
}

/// The game's start and moves as the warnings' `Position;` and `Moves;` parts give them.
pub(crate) fn game_text(game: &Game) -> (String, String) {
    let start = game.start();
    let fen = start.to_fen();
    let position = if fen == Position::START_FEN {
        "startpos".to_string()
    } else {
        format!("fen {fen}")
    };
    let notation = CastlingNotation::chess960_if(start.has_chess960_castling());
    let mut pos = start.clone();
    let mut moves = Vec::with_capacity(game.moves().len());
    for &mv in game.moves() {
        moves.push(pos.uci(mv, notation));
        pos.make_move(mv);
    }
    (position, moves.join(" "))
}

/// What one move's output said and did wrong.
#[derive(Debug, Default)]
pub(crate) struct MoveCheck {
    /// In fastchess's order.
    pub warnings: Vec<Warning>,
    /// The mate score of the move's last info line and that line, for the sign check against
    /// the opponent's next move.
    pub mate: Option<(i32, String)>,
}

/// Checks one reply of an engine to move in `game` (before its move is played). `played` is
/// the move the bestmove names when it is legal.
pub(crate) fn check_reply(
    game: &Game,
    reply: &EngineReply,
    played: Option<Move>,
    checks: ComplianceChecks,
) -> MoveCheck {
    let mut check = MoveCheck::default();
    let output = &reply.output;
    let warnings = &mut check.warnings;
    let bestmove = reply.bestmove.as_str();
    if bestmove.is_empty() {
        if let Some(line) = output.last() {
            warnings.push(Warning::NoBestmove { line: line.clone() });
        }
    } else if output.len() > 1 {
        // fastchess reads nothing from a move whose only line is `bestmove`.
        let context = || {
            let (position, moves) = game_text(game);
            move |info: &str| PvContext {
                info: info.to_string(),
                position: position.clone(),
                moves: moves.clone(),
            }
        };
        match last_info_line(output) {
            None => warnings.push(Warning::NoInfoLine),
            Some(line) => {
                let scored = ScoredLine::new(line);
                if let Some(reason) = scored.score_problem() {
                    warnings.push(Warning::NoScore { reason });
                }
                check.mate = scored.mate().map(|n| (n, line.to_string()));
            }
        }
        let lines: Vec<&String> = output.iter().filter(|l| is_scored_info(l)).collect();
        if !lines.is_empty() {
            let context = context();
            for line in &lines {
                warnings.extend(check_pv(game, &ScoredLine::new(line), checks, &context));
            }
            if played.is_some() {
                warnings.extend(check_bestmove(bestmove, &lines, &context));
            }
        }
    }
    if !bestmove.is_empty() && !is_uci_move_text(bestmove) {
        warnings.push(Warning::MoveFormat {
            bestmove: bestmove.to_string(),
        });
    }
    if played.is_none() {
        warnings.push(Warning::IllegalMove {
            bestmove: (!bestmove.is_empty()).then(|| bestmove.to_string()),
        });
    }
    if checks.latency {
        if let Some(elapsed) = reply.answer_time {
            warnings.push(latency(elapsed, output));
        }
    }
    check
}

/// The latency note: measured time against the newest reported `time`.
fn latency(elapsed: Duration, output: &[String]) -> Warning {
    let reported = output
        .iter()
        .rev()
        .find(|l| l.contains("info") && l.contains("time") && !l.contains("info string"))
        .and_then(|l| ScoredLine::new(l).value_of("time")?.parse::<i64>().ok())
        .unwrap_or(0);
    Warning::Latency {
        elapsed_ms: i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX),
        reported_ms: reported,
    }
}

/// One info line's PV replayed from the game's position: the first problem, if any, then the
/// mate checks.
fn check_pv(
    game: &Game,
    line: &ScoredLine<'_>,
    checks: ComplianceChecks,
    context: &dyn Fn(&str) -> PvContext,
) -> Option<Warning> {
    let pv = line.pv();
    let mut board = game.clone();
    for &text in &pv {
        // At 58072f2 legality comes first: after a mate or stalemate no move is legal.
        let Some(mv) = board.position().parse_uci_move(text).ok() else {
            return Some(Warning::IllegalPvMove {
                mv: text.to_string(),
                context: context(line.text),
            });
        };
        let end = if board.repetition_count() >= 3 {
            Some(PvEnd::Threefold)
        } else if board.position().halfmove_clock() >= 100 && !board.position().is_checkmate() {
            Some(PvEnd::FiftyMoves)
        } else {
            None
        };
        if let Some(end) = end {
            return Some(Warning::PvAfterEnd {
                end,
                mv: text.to_string(),
                context: context(line.text),
            });
        }
        // Legal: parse_uci_move resolved it in this position.
        let _ = board.play(mv);
    }
    if !checks.mate_pvs || pv.is_empty() || line.is_bound() {
        return None;
    }
    let mate = line.mate()?;
    let expected = if mate > 0 {
        2 * i64::from(mate) - 1
    } else {
        -2 * i64::from(mate)
    };
    let length = pv.len() as i64;
    let context = context(line.text);
    if length < expected {
        Some(Warning::IncompleteMatingPv { context })
    } else if length > expected {
        Some(Warning::TooLongMatingPv { context })
    } else if !board.position().is_checkmate() {
        Some(Warning::MatingPvNotMate { context })
    } else {
        None
    }
}

/// The bestmove against the head of the newest first-PV line (not when that line is a bound
/// or has no PV).
fn check_bestmove(
    bestmove: &str,
    lines: &[&String],
    context: &dyn Fn(&str) -> PvContext,
) -> Option<Warning> {
    let newest = lines
        .iter()
        .rev()
        .find(|l| !l.contains(" multipv ") || l.contains(" multipv 1 "))?;
    let line = ScoredLine::new(newest);
    if line.is_bound() {
        return None;
    }
    let head = *line.pv().first()?;
    (head != bestmove).then(|| Warning::BestmoveNotPvHead {
        bestmove: bestmove.to_string(),
        context: context(line.text),
    })
}

/// The sign check after a move: the opponent's previous mate score `theirs` (with its line) and
/// this move's `ours` claim the same side wins. `game` is after the move; `mover` made it.
pub(crate) fn mate_sign_mismatch(
    game: &Game,
    theirs: &(i32, String),
    ours: &(i32, String),
    mover: Color,
) -> Option<Warning> {
    if i64::from(theirs.0) * i64::from(ours.0) <= 0 {
        return None;
    }
    let (position, moves) = game_text(game);
    Some(Warning::MateSignMismatch {
        theirs: theirs.0,
        ours: ours.0,
        their_color: !mover,
        infos: [theirs.1.clone(), ours.1.clone()],
        position,
        moves,
    })
}

#[cfg(test)]
mod tests;
