//! The training-data contract between match runs and the tuner: one labelled position a line,
//! `<FEN> ce <cp>; c9 "<result>"; id "<pair>.<game>.<ply>";` (the Zurichess EPD form with the
//! engine's score and where the position came from). [`TrainingPosition`] is the typed line: its
//! `Display` is the one writer and [`TrainingPosition::parse`] the one reader, built on the EPD
//! operations reader shared with the opening suites ([`crate::openings::epd_operations`]).
//! Sampling positions from finished games lives here too.

use super::GameRecord;
use crate::board::see::see_ge;
use crate::board::{FenError, GameResult, GenMode, PieceKind, Position};
use crate::error::{ErrorClass, Failure};
use crate::openings::{epd_operations, EpdOperationError};
use crate::rng::Rng;
use crate::score::{Score, MATE};
use std::fmt;
use std::str::FromStr;
use thiserror::Error;

/// The largest `ce` magnitude a training line may carry: the mate score (a mate now). Anything
/// beyond it is not a score an engine can report.
pub const MAX_TRAINING_SCORE: i32 = MATE;

/// Where a training position comes from, written `id "<pair>.<game>.<ply>"`: grouped by pair first
/// because both games of a pair share the opening, so the tuner keeps a pair on one side of its
/// split.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PositionId {
    /// The pair of games (1-based), as in games.csv.
    pub pair: u64,
    /// The game (1-based), as in games.csv.
    pub game: u64,
    /// Plies played from the game's start position (book moves included) to this position (to
    /// the game's position it came from, for one resolved along a principal variation).
    pub ply: u32,
}

impl fmt::Display for PositionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.pair, self.game, self.ply)
    }
}

/// A position id that is not `<pair>.<game>.<ply>` (three unsigned integers).
#[derive(Error, Debug, Clone, PartialEq, Eq)]
#[error("bad position id `{found}`: expected <pair>.<game>.<ply>, three whole numbers")]
pub struct BadPositionId {
    /// The text that was read.
    pub found: String,
}

impl FromStr for PositionId {
    type Err = BadPositionId;

    fn from_str(s: &str) -> Result<PositionId, BadPositionId> {
        let bad = || BadPositionId {
            found: s.to_string(),
        };
        let mut parts = s.split('.');
        let mut next = || {
            parts
                .next()
                .filter(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
                .ok_or_else(bad)
        };
        let (pair, game, ply) = (next()?, next()?, next()?);
        if parts.next().is_some() {
            return Err(bad());
        }
        Ok(PositionId {
            pair: pair.parse().map_err(|_| bad())?,
            game: game.parse().map_err(|_| bad())?,
            ply: ply.parse().map_err(|_| bad())?,
        })
    }
}

/// A position's label: the result of its game, or an expected score from White's point of view
/// (data from other tools may carry probabilities).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Outcome {
    /// The game's result: written `1-0`, `0-1` or `1/2-1/2`.
    Result(GameResult),
    /// White's expected score in [0, 1].
    Expected(f32),
}

impl Outcome {
    /// White's score: 1 for a White win, 0.5 for a draw, 0 for a loss, or the expected score.
    pub fn white_score(self) -> f32 {
        match self {
            Outcome::Result(GameResult::WhiteWins) => 1.0,
            Outcome::Result(GameResult::Draw) => 0.5,
            Outcome::Result(GameResult::BlackWins) => 0.0,
            Outcome::Expected(p) => p,
        }
    }

    /// A result string (`1-0`, `0-1`, `1/2-1/2`, also `1/2` and `½-½`) or a number in [0, 1].
    fn parse(s: &str) -> Result<Outcome, PositionLineError> {
        let s = s.trim();
        Ok(match s {
            "1-0" => Outcome::Result(GameResult::WhiteWins),
            "0-1" => Outcome::Result(GameResult::BlackWins),
            "1/2-1/2" | "1/2" | "½-½" => Outcome::Result(GameResult::Draw),
            _ => match s.parse::<f32>() {
                Ok(v) if (0.0..=1.0).contains(&v) => Outcome::Expected(v),
                _ => {
                    return Err(PositionLineError::BadLabel {
                        found: s.to_string(),
                    })
                }
            },
        })
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Result(r) => write!(f, "{r}"),
            Outcome::Expected(p) => write!(f, "{p}"),
        }
    }
}

/// What is wrong with one line of training data.
#[derive(Error, Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum PositionLineError {
    /// The position fields (a FEN of four or six fields) are wrong.
    #[error("bad FEN: {0}")]
    Fen(#[from] FenError),
    /// No result label in any accepted form.
    #[error("no result label: expected c9 \"1-0\" / \"0-1\" / \"1/2-1/2\" or a trailing [1.0] / [0.5] / [0.0]")]
    MissingLabel,
    /// A label that is neither a result nor a number from 0 to 1.
    #[error("bad result label `{found}`: expected 1-0, 0-1, 1/2-1/2 or a number from 0 to 1")]
    BadLabel {
        /// The label as written.
        found: String,
    },
    /// An operation the contract allows once (`c9`, `ce`, `id`) given twice.
    #[error("`{opcode}` given more than once")]
    Duplicate {
        /// The repeated opcode.
        opcode: String,
    },
    /// Text after a bracketed label.
    #[error("`{found}` after the label: expected nothing or `;`")]
    TrailingText {
        /// The unexpected text.
        found: String,
    },
    /// The EPD operations do not parse.
    #[error("bad EPD operation: {0}")]
    Operation(#[from] EpdOperationError),
    /// A `ce` that is not a whole number of centipawns within the mate-score range.
    #[error("bad `ce` score `{found}`: expected a whole number of centipawns from -{MAX_TRAINING_SCORE} to {MAX_TRAINING_SCORE}")]
    BadScore {
        /// The operand(s) as written.
        found: String,
    },
    /// The bytes of the line are not UTF-8 (for readers of raw files).
    #[error("the line is not valid UTF-8")]
    NotUtf8,
}

impl ErrorClass for PositionLineError {
    fn class(&self) -> Failure {
        match self {
            PositionLineError::Fen(source) => source.class(),
            PositionLineError::Operation(source) => source.class(),
            PositionLineError::MissingLabel
            | PositionLineError::BadLabel { .. }
            | PositionLineError::Duplicate { .. }
            | PositionLineError::TrailingText { .. }
            | PositionLineError::BadScore { .. }
            | PositionLineError::NotUtf8 => Failure::BadInput,
        }
    }
}

/// One labelled position: a line of training data.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainingPosition {
    /// The position fields as written: EPD's four (placement, side, castling, en passant), or a
    /// whole six-field FEN. Checked by [`TrainingPosition::position`].
    pub fen: String,
    /// The engine's score in centipawns from the side to move's point of view (`ce`), if recorded.
    pub score: Option<i32>,
    /// The label (`c9`).
    pub result: Outcome,
    /// Where the position comes from (`id`); ids in other forms are not kept.
    pub id: Option<PositionId>,
}

impl TrainingPosition {
    /// A position labelled with its game's result, written with EPD's four position fields (the
    /// clocks do not matter to a static evaluation).
    pub fn new(
        position: &Position,
        score: Option<i32>,
        result: GameResult,
        id: Option<PositionId>,
    ) -> TrainingPosition {
        let fen = position.to_fen();
        let four: Vec<&str> = fen.split(' ').take(4).collect();
        TrainingPosition {
            fen: four.join(" "),
            score,
            result: Outcome::Result(result),
            id,
        }
    }

    /// The position the FEN describes (lenient about clocks and a missing move counter).
    pub fn position(&self) -> Result<Position, FenError> {
        Position::from_fen_lenient(&self.fen)
    }

    fn write_body(&self, f: &mut impl fmt::Write) -> fmt::Result {
        f.write_str(&self.fen)?;
        if let Some(cp) = self.score {
            write!(f, " ce {cp};")?;
        }
        write!(f, " c9 \"{}\";", self.result)
    }

    /// Reads one line. `Ok(None)` for a blank line or a `#` comment. Besides the contract's EPD
    /// form (`<FEN> c9 "1-0";` with any operations in any order; `ce` and `id` read when
    /// present), the label may come as `<FEN> [1.0]`, `<FEN> [1-0]`, `<FEN>; [0.5]`,
    /// `<FEN> | 0.5` or a bare `<FEN> 1.0`, as other tuners' data files have it. `<FEN>` has four
    /// fields or six. The board itself is checked by [`TrainingPosition::position`], so a reader
    /// that needs only the ids does not build positions.
    pub fn parse(line: &str) -> Result<Option<TrainingPosition>, PositionLineError> {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            return Ok(None);
        }
        let (fen, rest) = split_fen(line)?;
        let rest = rest
            .strip_prefix(';')
            .or_else(|| rest.strip_prefix('|'))
            .unwrap_or(rest)
            .trim();
        if rest.is_empty() {
            return Err(PositionLineError::MissingLabel);
        }
        let mut position = TrainingPosition {
            fen: fen.to_string(),
            score: None,
            result: Outcome::Expected(0.5),
            id: None,
        };
        if let Some(inner) = rest.strip_prefix('[') {
            let Some((value, after)) = inner.split_once(']') else {
                return Err(PositionLineError::BadLabel {
                    found: rest.to_string(),
                });
            };
            let after = after.trim();
            if !after.is_empty() && after != ";" {
                return Err(PositionLineError::TrailingText {
                    found: after.to_string(),
                });
            }
            position.result = Outcome::parse(value)?;
        } else if !rest.contains(char::is_whitespace) && !rest.contains('"') {
            // A bare label such as `1.0` or `1-0`; a lone word that is not one has no label.
            let bare = rest.strip_suffix(';').unwrap_or(rest);
            position.result = Outcome::parse(bare).map_err(|_| PositionLineError::MissingLabel)?;
        } else {
            let mut result = None;
            for op in epd_operations(rest) {
                let op = op?;
                let once = |seen: bool| {
                    if seen {
                        Err(PositionLineError::Duplicate {
                            opcode: op.opcode.to_string(),
                        })
                    } else {
                        Ok(())
                    }
                };
                match op.opcode {
                    "c9" => {
                        once(result.is_some())?;
                        let text = op.operands.join(" ");
                        result = Some(Outcome::parse(&text)?);
                    }
                    "ce" => {
                        once(position.score.is_some())?;
                        position.score = Some(parse_score(&op.operands)?);
                    }
                    "id" => {
                        once(position.id.is_some())?;
                        // Suites name positions in their own ways: only sparring's ids are kept.
                        if let [id] = &op.operands[..] {
                            position.id = id.parse().ok();
                        }
                    }
                    _ => {}
                }
            }
            position.result = result.ok_or(PositionLineError::MissingLabel)?;
        }
        Ok(Some(position))
    }
}

/// The one writer: `<FEN>[ ce <cp>;] c9 "<result>";[ id "<pair>.<game>.<ply>";]`.
impl fmt::Display for TrainingPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_body(f)?;
        if let Some(id) = self.id {
            write!(f, " id \"{id}\";")?;
        }
        Ok(())
    }
}

/// A `ce` operand: one integer within the mate-score range.
fn parse_score(operands: &[std::borrow::Cow<'_, str>]) -> Result<i32, PositionLineError> {
    let bad = || PositionLineError::BadScore {
        found: operands.join(" "),
    };
    match operands {
        [cp] => cp
            .parse::<i32>()
            .ok()
            .filter(|cp| cp.abs() <= MAX_TRAINING_SCORE)
            .ok_or_else(bad),
        _ => Err(bad()),
    }
}

/// Splits a line into its FEN (the first four whitespace-separated fields plus up to two numeric
/// clocks) and the rest. A `;` glued to a field ends the FEN there (`<FEN>; [0.5]`) and stays
/// with the rest.
fn split_fen(line: &str) -> Result<(&str, &str), PositionLineError> {
    let bytes = line.as_bytes();
    let mut fen_end = 0;
    let mut pos = 0;
    let mut fields = 0;
    while fields < 6 {
        while pos < bytes.len() && bytes[pos].is_ascii_whitespace() {
            pos += 1;
        }
        if pos == bytes.len() {
            break;
        }
        let start = pos;
        while pos < bytes.len() && !bytes[pos].is_ascii_whitespace() {
            pos += 1;
        }
        let token_end = if bytes[pos - 1] == b';' { pos - 1 } else { pos };
        if fields >= 4 && !bytes[start..token_end].iter().all(u8::is_ascii_digit) {
            break;
        }
        fields += 1;
        fen_end = token_end;
        if token_end < pos {
            break;
        }
    }
    if fields < 4 {
        return Err(PositionLineError::Fen(FenError::FieldCount {
            found: fields,
        }));
    }
    Ok((&line[..fen_end], line[fen_end..].trim_start()))
}

/// `output.positions_resolve`: which position a sampled move gives the training data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PositionsResolve {
    /// The game's position, as played (`"none"`, the default).
    #[default]
    None,
    /// The position at the end of the engine's principal variation from it (`"pv"`), with the
    /// engine's score: the score belongs to that leaf rather than to the position it came from.
    Pv,
}

impl PositionsResolve {
    /// The key's value: `none` or `pv`.
    pub fn name(self) -> &'static str {
        match self {
            PositionsResolve::None => "none",
            PositionsResolve::Pv => "pv",
        }
    }
}

/// Whether a static evaluation can judge `pos`: not in check, and no capture that wins material
/// at once nor a queen promotion to make.
fn is_quiet(pos: &Position) -> bool {
    !pos.in_check()
        && !pos
            .moves(GenMode::Noisy)
            .iter()
            .any(|&m| m.promotion() == Some(PieceKind::Queen) || see_ge(pos, m, 1))
}

/// The end of the principal variation `played` reported from `pos` and the score from its side
/// to move's point of view (`cp` is the mover's at `pos`), or None when the variation is empty,
/// does not start with the move played, holds an illegal move, or ends in a position that is
/// not quiet or has no legal move (mate or stalemate).
fn pv_end(pos: &Position, played: &super::PlayedMove, cp: i32) -> Option<(Position, i32)> {
    let pv = &played.details.pv;
    let mut end = pos.clone();
    for (i, text) in pv.iter().enumerate() {
        let mv = end.parse_uci_move(text).ok()?;
        // The score is the search's for this variation: another head is another search's.
        if i == 0 && mv != played.mv {
            return None;
        }
        end.make_move(mv);
    }
    if pv.is_empty() || !is_quiet(&end) || end.legal_moves().is_empty() {
        return None;
    }
    // An odd number of plies hands the move to the other side, whose view is the opposite.
    let cp = if pv.len() % 2 == 0 { cp } else { -cp };
    Some((end, cp))
}

/// Up to `limit` positions of a game that a static evaluation can judge: not in check, the
/// engine's move quiet and its score not a mate, and no capture that wins material at once.
/// Each carries its game's result, the engine's score and its id (pair, game, ply).
/// Games lost by forfeit, crash or illegal move say nothing about the position and give none.
///
/// With [`PositionsResolve::Pv`] each such position is replaced by the end of the engine's
/// principal variation from it, its score signed for the side to move there; the id keeps the
/// ply of the game's position. A candidate is dropped (not kept unresolved, so the data is of
/// one kind) when its variation is empty, does not start with the move played, holds an
/// illegal move, or ends in check, with a winning capture or queen promotion to make, or with
/// no legal move; and when its end is a position the game already gave.
pub(crate) fn sample_positions(
    record: &GameRecord,
    limit: usize,
    resolve: PositionsResolve,
    seed: u64,
) -> Vec<TrainingPosition> {
    if !record.termination.is_played_out() || limit == 0 {
        return Vec::new();
    }
    let mut pos = record.start.clone();
    for &mv in &record.book_moves {
        pos.make_move(mv);
    }
    let mut candidates = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (i, played) in record.moves.iter().enumerate() {
        if let Some(Score::Cp(cp)) = played.score {
            if cp.abs() < 3000 && played.mv.is_quiet() && is_quiet(&pos) {
                let id = PositionId {
                    pair: record.pair_id,
                    game: record.game_id,
                    ply: (record.book_moves.len() + i) as u32,
                };
                let kept = match resolve {
                    PositionsResolve::None => Some(TrainingPosition::new(
                        &pos,
                        Some(cp),
                        record.result,
                        Some(id),
                    )),
                    PositionsResolve::Pv => pv_end(&pos, played, cp)
                        .map(|(end, cp)| {
                            TrainingPosition::new(&end, Some(cp), record.result, Some(id))
                        })
                        .filter(|p| seen.insert(p.fen.clone())),
                };
                candidates.extend(kept);
            }
        }
        pos.make_move(played.mv);
    }
    if candidates.len() > limit {
        Rng::derive(seed, record.game_id).shuffle(&mut candidates);
        candidates.truncate(limit);
    }
    candidates
}

#[cfg(test)]
mod tests {
    use super::*;

    const FEN: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -";

    fn parse(line: &str) -> Result<TrainingPosition, PositionLineError> {
        TrainingPosition::parse(line).map(|p| p.expect("a position"))
    }

    #[test]
    fn written_lines_read_back_equal() {
        let id = |pair, game, ply| Some(PositionId { pair, game, ply });
        let positions = [
            TrainingPosition::new(
                &Position::startpos(),
                Some(17),
                GameResult::WhiteWins,
                id(1, 1, 0),
            ),
            TrainingPosition::new(
                &Position::from_fen(FEN).unwrap(),
                Some(-250),
                GameResult::BlackWins,
                id(7, 14, 9),
            ),
            TrainingPosition::new(
                &Position::from_fen("8/8/8/4k3/8/8/4K3/7Q w - - 12 80").unwrap(),
                Some(MAX_TRAINING_SCORE - 7),
                GameResult::Draw,
                id(u64::MAX, 3, u32::MAX),
            ),
            TrainingPosition::new(
                &Position::from_fen("8/8/8/4k3/8/8/4K3/7q w - - 0 1").unwrap(),
                Some(-MAX_TRAINING_SCORE),
                GameResult::BlackWins,
                None,
            ),
            TrainingPosition::new(&Position::startpos(), None, GameResult::Draw, id(2, 3, 4)),
            TrainingPosition {
                fen: format!("{FEN} 3 17"),
                score: None,
                result: Outcome::Expected(0.25),
                id: None,
            },
        ];
        for p in &positions {
            let line = p.to_string();
            assert_eq!(&parse(&line).unwrap(), p, "{line}");
            assert!(line.starts_with(&p.fen) && line.ends_with(';'), "{line}");
        }
        assert_eq!(
            positions[1].to_string(),
            format!("{FEN} ce -250; c9 \"0-1\"; id \"7.14.9\";")
        );
        assert_eq!(
            positions[4].to_string(),
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - c9 \"1/2-1/2\"; id \"2.3.4\";"
        );
        assert_eq!(positions[2].position().unwrap().halfmove_clock(), 0);
    }

    #[test]
    fn sampled_positions_carry_their_game_and_ply_and_read_back() {
        use crate::record::{PlayedMove, Termination};
        use std::time::{Duration, SystemTime};
        let start = Position::startpos();
        let mut pos = start.clone();
        let book_moves = vec![pos.parse_uci_move("e2e4").unwrap()];
        pos.make_move(book_moves[0]);
        let mut moves = Vec::new();
        for (i, uci) in ["g8f6", "b1c3", "b8c6", "g1f3"].iter().enumerate() {
            let mv = pos.parse_uci_move(uci).unwrap();
            pos.make_move(mv);
            moves.push(PlayedMove {
                mv,
                score: Some(Score::Cp(if i % 2 == 0 { -30 } else { 25 })),
                depth: Some(8),
                nodes: Some(1000),
                time: Duration::ZERO,
                details: Default::default(),
            });
        }
        let record = GameRecord {
            game_id: 6,
            pair_id: 3,
            round: 3,
            event: "test".to_string(),
            site: "?".to_string(),
            white: "a".to_string(),
            black: "b".to_string(),
            white_engine: 0,
            black_engine: 1,
            opening_id: 0,
            start,
            chess960: false,
            book_moves,
            moves,
            result: GameResult::BlackWins,
            termination: Termination::Adjudication(None),
            reason: "test".to_string(),
            time_control: "nodes=1000".to_string(),
            clock_left: [None; 2],
            at_fault: None,
            started: SystemTime::UNIX_EPOCH,
            duration: Duration::ZERO,
        };
        let sampled = sample_positions(&record, 10, PositionsResolve::None, 1);
        assert_eq!(sampled.len(), 4);
        let plies: Vec<u32> = sampled.iter().map(|p| p.id.unwrap().ply).collect();
        assert_eq!(plies, vec![1, 2, 3, 4]);
        for p in &sampled {
            let id = p.id.unwrap();
            assert_eq!((id.pair, id.game), (3, 6));
            assert_eq!(p.result, Outcome::Result(GameResult::BlackWins));
            let line = p.to_string();
            assert_eq!(TrainingPosition::parse(&line).unwrap().as_ref(), Some(p));
        }
        assert_eq!(
            sampled[0].to_string(),
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - ce -30; c9 \"0-1\"; \
             id \"3.6.1\";"
        );
        // A limit keeps a seeded choice of them.
        let two = sample_positions(&record, 2, PositionsResolve::None, 1);
        assert_eq!(two.len(), 2);
        assert!(two.iter().all(|p| sampled.contains(p)));
        assert_eq!(two, sample_positions(&record, 2, PositionsResolve::None, 1));
    }

    /// A game from the start position after 1. e4: each engine move with its score (the
    /// mover's) and principal variation.
    fn game_with_pvs(moves: &[(&str, i32, &[&str])]) -> GameRecord {
        use crate::record::{MoveDetails, PlayedMove, Termination};
        use std::time::{Duration, SystemTime};
        let start = Position::startpos();
        let mut pos = start.clone();
        let book_moves = vec![pos.parse_uci_move("e2e4").unwrap()];
        pos.make_move(book_moves[0]);
        let mut played = Vec::new();
        for &(uci, cp, pv) in moves {
            let mv = pos.parse_uci_move(uci).unwrap();
            pos.make_move(mv);
            played.push(PlayedMove {
                mv,
                score: Some(Score::Cp(cp)),
                depth: Some(8),
                nodes: Some(1000),
                time: Duration::ZERO,
                details: MoveDetails {
                    pv: pv.iter().map(|m| m.to_string()).collect(),
                    ..Default::default()
                },
            });
        }
        GameRecord {
            game_id: 2,
            pair_id: 1,
            round: 1,
            event: "test".to_string(),
            site: "?".to_string(),
            white: "a".to_string(),
            black: "b".to_string(),
            white_engine: 0,
            black_engine: 1,
            opening_id: 0,
            start,
            chess960: false,
            book_moves,
            moves: played,
            result: GameResult::WhiteWins,
            termination: Termination::Normal,
            reason: "test".to_string(),
            time_control: "nodes=1000".to_string(),
            clock_left: [None; 2],
            at_fault: None,
            started: SystemTime::UNIX_EPOCH,
            duration: Duration::ZERO,
        }
    }

    #[test]
    fn a_legal_pv_resolves_to_its_end_with_the_score_of_its_side_to_move() {
        let record = game_with_pvs(&[
            ("g8f6", -30, &["g8f6", "b1c3", "b8c6"]),
            ("b1c3", 25, &["b1c3", "b8c6", "g1f3"]),
            // Ends where the previous variation ended: the game gives that position once.
            ("b8c6", -20, &["b8c6", "g1f3"]),
            ("g1f3", 15, &["g1f3", "d7d5"]),
        ]);
        let resolved = sample_positions(&record, 10, PositionsResolve::Pv, 1);
        let lines: Vec<String> = resolved.iter().map(|p| p.to_string()).collect();
        assert_eq!(
            lines,
            [
                // Three plies from Black's move: White to move, so Black's -30 is White's +30.
                "r1bqkb1r/pppppppp/2n2n2/8/4P3/2N5/PPPP1PPP/R1BQKBNR w KQkq - ce 30; \
                 c9 \"1-0\"; id \"1.2.1\";",
                "r1bqkb1r/pppppppp/2n2n2/8/4P3/2N2N2/PPPP1PPP/R1BQKB1R b KQkq - ce -25; \
                 c9 \"1-0\"; id \"1.2.2\";",
                // Two plies: the mover is to move again and keeps its score.
                "r1bqkb1r/ppp1pppp/2n2n2/3p4/4P3/2N2N2/PPPP1PPP/R1BQKB1R w KQkq - ce 15; \
                 c9 \"1-0\"; id \"1.2.4\";",
            ]
        );
        for line in &lines {
            let p = TrainingPosition::parse(line).unwrap().unwrap();
            assert!(p.position().is_ok(), "{line}");
        }
        // Without resolution the same game gives its own four positions.
        let played = sample_positions(&record, 10, PositionsResolve::None, 1);
        assert_eq!(played.len(), 4);
        assert!(played.iter().all(|p| !resolved.contains(p)));
    }

    #[test]
    fn a_pv_that_cannot_be_resolved_drops_its_position() {
        let kept = |pv: &[&str]| {
            let record = game_with_pvs(&[("g8f6", -30, pv)]);
            assert_eq!(
                sample_positions(&record, 10, PositionsResolve::None, 1).len(),
                1,
                "{pv:?}: the position itself is quiet"
            );
            sample_positions(&record, 10, PositionsResolve::Pv, 1)
        };
        for pv in [
            &[][..],
            &["b8c6", "b1c3"],                 // not the move played
            &["g8f6", "e1e3"],                 // illegal
            &["g8f6", "b1c3", "f6e9"],         // malformed
            &["g8f6", "0000"],                 // the null move
            &["g8f6", "b1c3", "f6e4"],         // ends with a knight to take for nothing
            &["g8f6", "f1c4", "f6e4", "c4f7"], // ends in check
        ] {
            assert_eq!(kept(pv), vec![], "{pv:?}");
        }
        let one = kept(&["g8f6"]);
        assert_eq!(
            one.iter().map(|p| p.to_string()).collect::<Vec<_>>(),
            [
                "rnbqkb1r/pppppppp/5n2/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - ce 30; c9 \"1-0\"; \
              id \"1.2.1\";"
            ]
        );
    }

    #[test]
    fn ids_are_three_whole_numbers() {
        let id: PositionId = "3.5.40".parse().unwrap();
        assert_eq!(
            id,
            PositionId {
                pair: 3,
                game: 5,
                ply: 40
            }
        );
        assert_eq!(id.to_string(), "3.5.40");
        for bad in [
            "",
            "1.2",
            "1.2.3.4",
            "1..3",
            "a.2.3",
            "-1.2.3",
            "1.2.+3",
            "99999999999999999999.1.1",
        ] {
            assert_eq!(
                bad.parse::<PositionId>(),
                Err(BadPositionId {
                    found: bad.to_string()
                }),
                "{bad}"
            );
        }
        // Other tools' ids are read past, not kept.
        assert_eq!(
            parse(&format!("{FEN} c9 \"1-0\"; id \"BK.01\";"))
                .unwrap()
                .id,
            None
        );
    }

    #[test]
    fn scores_must_be_whole_centipawns_within_the_mate_range() {
        for (ce, ok) in [
            ("0", Some(0)),
            ("-32000", Some(-32000)),
            ("32000", Some(32000)),
            ("32001", None),
            ("-99999", None),
            ("nan", None),
            ("inf", None),
            ("-inf", None),
            ("12.5", None),
            ("", None),
            ("1 2", None),
        ] {
            let got = parse(&format!("{FEN} ce {ce}; c9 \"1-0\";"));
            match ok {
                Some(cp) => assert_eq!(got.unwrap().score, Some(cp), "ce {ce}"),
                None => assert_eq!(
                    got,
                    Err(PositionLineError::BadScore {
                        found: ce.split_whitespace().collect::<Vec<_>>().join(" ")
                    }),
                    "ce {ce}"
                ),
            }
        }
        assert_eq!(
            parse(&format!("{FEN} ce 1; ce 2; c9 \"1-0\";")),
            Err(PositionLineError::Duplicate {
                opcode: "ce".to_string()
            })
        );
    }

    #[test]
    fn labels_in_every_accepted_form() {
        let label = |line: &str| parse(line).map(|p| p.result.white_score());
        assert_eq!(label(&format!("{FEN} c9 \"1-0\";")), Ok(1.0));
        assert_eq!(label(&format!("{FEN} c9 \"0-1\";")), Ok(0.0));
        assert_eq!(label(&format!("{FEN} c9 \"1/2-1/2\";")), Ok(0.5));
        assert_eq!(label(&format!("{FEN} c9 1-0")), Ok(1.0));
        assert_eq!(
            label(&format!("{FEN} c0 \"a; b\"; ce 35; c9 \"1-0\"; id \"x\";")),
            Ok(1.0)
        );
        assert_eq!(label(&format!("{FEN} [1.0]")), Ok(1.0));
        assert_eq!(label(&format!("{FEN} 0 1 [0.5]")), Ok(0.5));
        assert_eq!(label(&format!("{FEN}; [0.0]")), Ok(0.0));
        assert_eq!(
            parse(&format!("{FEN} 0 1; [0.0]")).unwrap().fen,
            format!("{FEN} 0 1")
        );
        assert_eq!(label(&format!("{FEN} [1-0]")), Ok(1.0));
        assert_eq!(label(&format!("{FEN} [1/2-1/2];")), Ok(0.5));
        assert_eq!(label(&format!("{FEN} | 0.25")), Ok(0.25));
        assert_eq!(label(&format!("{FEN} 0.75")), Ok(0.75));
        let p = parse(&format!("  {FEN} 3 17 c9 \"1-0\";\r")).unwrap();
        assert_eq!(
            (p.fen.as_str(), p.result),
            (
                format!("{FEN} 3 17").as_str(),
                Outcome::Result(GameResult::WhiteWins)
            )
        );
        assert_eq!(TrainingPosition::parse("   "), Ok(None));
        assert_eq!(TrainingPosition::parse("# a comment"), Ok(None));
    }

    #[test]
    fn bad_lines_are_named() {
        assert_eq!(parse(FEN), Err(PositionLineError::MissingLabel));
        assert_eq!(
            parse(&format!("{FEN} ce 10;")),
            Err(PositionLineError::MissingLabel)
        );
        assert_eq!(
            parse(&format!("{FEN} c9 \"*\";")),
            Err(PositionLineError::BadLabel {
                found: "*".to_string()
            })
        );
        assert_eq!(
            parse(&format!("{FEN} [1.5]")),
            Err(PositionLineError::BadLabel {
                found: "1.5".to_string()
            })
        );
        assert_eq!(
            parse(&format!("{FEN} c9 \"1-0\"; c9 \"0-1\";")),
            Err(PositionLineError::Duplicate {
                opcode: "c9".to_string()
            })
        );
        assert_eq!(
            parse(&format!("{FEN} [1.0] extra")),
            Err(PositionLineError::TrailingText {
                found: "extra".to_string()
            })
        );
        assert_eq!(
            parse("8/8/8 w [1.0]"),
            Err(PositionLineError::Fen(FenError::FieldCount { found: 3 }))
        );
        assert!(matches!(
            parse(&format!("{FEN} c9 \"1-0\"; id \"x;")),
            Err(PositionLineError::Operation(_))
        ));
        // The board is checked when the position is built.
        let p = parse("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - c9 \"0-1\";").unwrap();
        assert!(p.position().is_err());
    }
}
