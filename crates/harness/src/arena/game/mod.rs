//! The arbiter: plays one game between two players from an opening. It keeps the authoritative
//! position and clocks, checks every move, ends the game by the rules (claiming threefold and
//! fifty-move draws on the players' behalf) or by adjudication, and records why.

pub(crate) mod adjudication;
pub mod compliance;

use super::config::{Adjudication, TimeControl};
use super::engine::player::{EngineReply, GoRequest, Player, PlayerError};
use crate::board::{Color, Game, GameEnd, GameResult, Move, PieceKind, Position};
use crate::record::{AdjudicationRule, GameRecord, PlayedMove, Termination};
use crate::search::{Clock, SearchLimits};
use adjudication::{tablebase_verdict, AdjudicationState};
use compliance::{ComplianceChecks, Warning};
use std::time::{Duration, Instant, SystemTime};

/// Everything about one game except the players.
pub struct GameSetup<'a> {
    /// 1-based game number in the schedule; games 2k-1 and 2k form pair k.
    pub game_id: u64,
    /// 1-based number of the colour-reversed pair this game belongs to.
    pub pair_id: u64,
    /// 1-based round of the schedule.
    pub round: u64,
    /// The PGN `Event` tag (`tournament.event`).
    pub event: &'a str,
    /// The PGN `Site` tag (`tournament.site`).
    pub site: &'a str,
    /// 0-based index of the opening in its suite, recorded with the game.
    pub opening_id: usize,
    /// The position the game starts from, before `book_moves`.
    pub start: &'a Position,
    /// Opening moves (book line plus any random plies) played before the engines take over.
    pub book_moves: &'a [Move],
    /// Engine names, White first.
    pub names: [&'a str; 2],
    /// Engine indices into the configuration's engine list, White first.
    pub engines: [usize; 2],
    /// The time control of each side, White first (an engine's own or the match's).
    pub time_controls: [&'a TimeControl; 2],
    /// Extra time a clock or movetime may overrun before the move is a time forfeit.
    pub margin: Duration,
    /// How long an engine may stay silent when no clock bounds the move (node and depth limits).
    pub timeout: Duration,
    /// The adjudication rules applied after every move.
    pub adjudication: &'a Adjudication,
    /// The engine log, named in the reason of a game an engine lost by failing; None: no log.
    pub engine_log: Option<&'a std::path::Path>,
}

pub(crate) fn color_name(color: Color) -> &'static str {
    match color {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// The reason text and termination of a rules ending, in the wording runners use.
fn rules_ending(end: GameEnd) -> Outcome {
    let reason = match end {
        GameEnd::Checkmate { winner } => format!("{} mates", color_name(winner)),
        GameEnd::Stalemate => "Draw by stalemate".to_string(),
        GameEnd::InsufficientMaterial => "Draw by insufficient mating material".to_string(),
        GameEnd::ThreefoldRepetition => "Draw by 3-fold repetition".to_string(),
        GameEnd::FivefoldRepetition => "Draw by 5-fold repetition".to_string(),
        GameEnd::FiftyMoveRule => "Draw by fifty moves rule".to_string(),
        GameEnd::SeventyFiveMoveRule => "Draw by seventy-five moves rule".to_string(),
    };
    (end.result(), Termination::Normal, reason)
}

/// Whether `color` has mating material of its own: with a lone king, or king and one minor
/// piece against a bare king, the opponent's flag fall is a draw rather than a loss.
fn can_win_on_time(pos: &Position, color: Color) -> bool {
    let ours = pos.color(color);
    let majors_or_pawns = ours
        & (pos.pieces(PieceKind::Pawn)
            | pos.pieces(PieceKind::Rook)
            | pos.pieces(PieceKind::Queen));
    let minors = ours & (pos.pieces(PieceKind::Knight) | pos.pieces(PieceKind::Bishop));
    let theirs_alone = pos.color(!color).len() == 1;
    majors_or_pawns.is_nonempty() || minors.len() >= 2 || (minors.len() == 1 && !theirs_alone)
}

/// Per-side clock state for clock time controls.
struct Clocks {
    left: [Duration; 2],
    moves_in_period: [u32; 2],
}

/// How a game ended: its result, the kind of ending and the reason in words.
type Outcome = (GameResult, Termination, String);

/// Plays one game. `players` are indexed by colour (White first).
pub fn play_game(setup: &GameSetup<'_>, players: [&mut dyn Player; 2]) -> GameRecord {
    let origin = Instant::now();
    play_game_timed(setup, players, None, &|| origin.elapsed()).0
}

/// A compliance warning about the engine playing `.0` (White or Black) in a game.
pub(crate) type GameWarning = (Color, Warning);

/// As `play_game`, running fastchess's compliance checks (`checks`) on every engine move: the
/// record, and the warnings in the order they arose.
pub(crate) fn play_game_checked(
    setup: &GameSetup<'_>,
    players: [&mut dyn Player; 2],
    checks: ComplianceChecks,
) -> (GameRecord, Vec<GameWarning>) {
    let origin = Instant::now();
    play_game_timed(setup, players, Some(checks), &|| origin.elapsed())
}

/// As `play_game_checked` (no checks when `checks` is None), with thinking times measured by
/// `now` (time since any fixed origin): the wall clock in a match, a virtual one in tests.
fn play_game_timed(
    setup: &GameSetup<'_>,
    players: [&mut dyn Player; 2],
    checks: Option<ComplianceChecks>,
    now: &dyn Fn() -> Duration,
) -> (GameRecord, Vec<GameWarning>) {
    let clock_start = Instant::now();
    let mut record = play_game_shell(setup);
    let mut warnings = Vec::new();
    let (result, termination, mut reason) =
        run(setup, players, &mut record, (checks, &mut warnings), now);
    if let (Some(log), Some(_)) = (setup.engine_log, record.at_fault) {
        // Point at what the engine said (and wrote to stderr) before it failed.
        reason.push_str(&format!(
            "; see engine log {}, game {}",
            log.display(),
            setup.game_id
        ));
    }
    record.result = result;
    record.termination = termination;
    record.reason = reason;
    record.duration = clock_start.elapsed();
    (record, warnings)
}

/// A record with no moves yet.
fn play_game_shell(setup: &GameSetup<'_>) -> GameRecord {
    GameRecord {
        game_id: setup.game_id,
        pair_id: setup.pair_id,
        round: setup.round,
        event: setup.event.to_string(),
        site: setup.site.to_string(),
        white: setup.names[0].to_string(),
        black: setup.names[1].to_string(),
        white_engine: setup.engines[0],
        black_engine: setup.engines[1],
        opening_id: setup.opening_id,
        start: setup.start.clone(),
        // The runner marks a Chess960 run's games; a start only Chess960 can castle from is
        // one anyway.
        chess960: setup.start.has_chess960_castling(),
        book_moves: Vec::new(),
        moves: Vec::new(),
        result: GameResult::Draw,
        termination: Termination::Normal,
        reason: String::new(),
        time_control: {
            let [white, black] = setup.time_controls.map(TimeControl::pgn_tag);
            // Different controls have no one PGN value: "?" is the standard's "unknown".
            if white == black {
                white
            } else {
                "?".to_string()
            }
        },
        started: SystemTime::now(),
        duration: Duration::ZERO,
        clock_left: [None; 2],
        at_fault: None,
    }
}

/// The loss of `color` for a player failure, in the runners' wording.
fn failure(color: Color, error: &PlayerError, timed: bool) -> Outcome {
    let name = color_name(color);
    let result = GameResult::win_for(!color);
    match error {
        PlayerError::Timeout { .. } if timed => (
            result,
            Termination::TimeForfeit,
            format!("{name} loses on time"),
        ),
        // An xboard engine's own word: it resigned, or claimed a result the board does not
        // show (cutechess's wording and kinds).
        PlayerError::Resigned => (
            result,
            Termination::Adjudication(None),
            format!("{name} resigns"),
        ),
        PlayerError::InvalidClaim { claim } => (
            result,
            Termination::Adjudication(None),
            format!("{name} makes an invalid result claim: {claim}"),
        ),
        PlayerError::TrustedClaim { result, claim } => (
            *result,
            Termination::Adjudication(None),
            format!("{name} claims {claim} (trusted without validation)"),
        ),
        PlayerError::Refused { line } => (
            result,
            Termination::Abandoned,
            format!("{name} refuses a legal move ({line})"),
        ),
        PlayerError::Timeout { .. } | PlayerError::Handshake { .. } => (
            result,
            Termination::StalledConnection,
            format!("{name}'s connection stalls"),
        ),
        other => (
            result,
            Termination::Abandoned,
            format!("{name} disconnects ({other})"),
        ),
    }
}

/// The arbiter's state during one game.
struct Arbiter<'a, 's> {
    setup: &'a GameSetup<'s>,
    game: Game,
    /// Each side runs on its own control: a clock for a side with a clock control only.
    clocks: Clocks,
    adjudication: AdjudicationState,
    engine_plies: u32,
    /// Every move since the start, book moves included: what the engines are sent.
    moves: Vec<Move>,
    now: &'a dyn Fn() -> Duration,
    /// The compliance checks to run; None: none.
    checks: Option<ComplianceChecks>,
    /// What they found so far.
    warnings: &'a mut Vec<GameWarning>,
    /// The last engine move's mover, mate score and info line, for the sign check.
    last_mate: Option<(Color, (i32, String))>,
}

fn run(
    setup: &GameSetup<'_>,
    mut players: [&mut dyn Player; 2],
    record: &mut GameRecord,
    (checks, warnings): (Option<ComplianceChecks>, &mut Vec<GameWarning>),
    now: &dyn Fn() -> Duration,
) -> Outcome {
    for (i, player) in players.iter_mut().enumerate() {
        player.set_opponent(setup.names[1 - i]);
        if let Err(e) = player.new_game() {
            let color = if i == 0 { Color::White } else { Color::Black };
            record.at_fault = Some(color);
            let outcome = failure(color, &e, false);
            if checks.is_some() && outcome.1 == Termination::StalledConnection {
                warnings.push((color, Warning::NotResponsive));
            }
            return outcome;
        }
    }
    let mut game = Game::new(setup.start.clone());
    for &mv in setup.book_moves {
        // Openings are checked when the book loads; a move that is not legal ends the book.
        if game.play(mv).is_err() {
            break;
        }
        record.book_moves.push(mv);
    }
    let mut arbiter = Arbiter {
        setup,
        game,
        clocks: Clocks {
            left: setup.time_controls.map(|tc| match tc {
                TimeControl::Clock { base, .. } => *base,
                _ => Duration::ZERO,
            }),
            moves_in_period: [0; 2],
        },
        adjudication: AdjudicationState::default(),
        engine_plies: 0,
        moves: record.book_moves.clone(),
        now,
        checks,
        warnings,
        last_mate: None,
    };
    let outcome = loop {
        if let Some(end) = arbiter.game.status_with_claims() {
            break rules_ending(end);
        }
        // The start position (after the book) is judged here; later ones after each move.
        if arbiter.engine_plies == 0 {
            if let Some(outcome) = arbiter.tablebase_verdict() {
                break outcome;
            }
        }
        let mover = arbiter.game.position().side_to_move();
        let player = &mut *players[mover.index()];
        if let Err(outcome) = arbiter.play_move(player, record) {
            break outcome;
        }
        if let Err(outcome) = arbiter.start_pondering(player, mover, record) {
            break outcome;
        }
    };
    // A pondering engine stops thinking on a game that is over.
    for player in players.iter_mut() {
        player.stop_pondering();
    }
    for (i, tc) in setup.time_controls.iter().enumerate() {
        if let TimeControl::Clock { .. } = tc {
            record.clock_left[i] = Some(arbiter.clocks.left[i]);
        }
    }
    outcome
}

impl Arbiter<'_, '_> {
    /// Runs the compliance checks on `mover`'s reply (before its move is played); gives the
    /// reply's mate score and line for the sign check.
    fn check_reply(&mut self, reply: &EngineReply, mover: Color) -> Option<(i32, String)> {
        let checks = self.checks?;
        let played = self.game.position().parse_uci_move(&reply.bestmove).ok();
        let found = compliance::check_reply(&self.game, reply, played, checks);
        self.warnings
            .extend(found.warnings.into_iter().map(|w| (mover, w)));
        found.mate
    }

    /// After `mover`'s move (scored `mate`, if a mate score): the sign check against the
    /// opponent's previous move.
    fn check_mate_signs(&mut self, mate: Option<(i32, String)>, mover: Color) {
        if self.checks.is_none() {
            return;
        }
        if let (Some((color, theirs)), Some(ours)) = (&self.last_mate, &mate) {
            if *color == !mover {
                if let Some(w) = compliance::mate_sign_mismatch(&self.game, theirs, ours, mover) {
                    self.warnings.push((mover, w));
                }
            }
        }
        self.last_mate = mate.map(|m| (mover, m));
    }

    /// The tablebase adjudication of the current position, if configured and decisive.
    fn tablebase_verdict(&self) -> Option<Outcome> {
        let rules = self.setup.adjudication.tablebase.as_ref()?;
        let (result, reason) = tablebase_verdict(rules, self.game.position())?;
        let rule = Some(AdjudicationRule::Tablebase);
        Some((result, Termination::Adjudication(rule), reason))
    }

    /// One engine move: asked for, timed, checked, played and recorded. Err: the game is over
    /// (by the player's failure, the board or adjudication).
    fn play_move(
        &mut self,
        player: &mut dyn Player,
        record: &mut GameRecord,
    ) -> Result<(), Outcome> {
        let pos = self.game.position().clone();
        let mover = pos.side_to_move();
        let (reply, elapsed) = self.ask(player, &pos).inspect_err(|(_, termination, _)| {
            // A resignation or a false claim is chess, not a failure to point at in the log.
            if !termination.is_played_out() {
                record.at_fault = Some(mover);
            }
        })?;
        let mate = self.check_reply(&reply, mover);
        let mv = match pos.parse_uci_move(&reply.bestmove) {
            Ok(mv) => mv,
            Err(_) => {
                record.at_fault = Some(mover);
                let shown = if reply.bestmove.is_empty() {
                    "(none)"
                } else {
                    reply.bestmove.as_str()
                };
                return Err((
                    GameResult::win_for(!mover),
                    Termination::IllegalMove,
                    format!("{} makes an illegal move: {shown}", color_name(mover)),
                ));
            }
        };
        let resets_clock = mv.is_capture() || pos.kind_on(mv.from()) == Some(PieceKind::Pawn);
        if self.game.play(mv).is_err() {
            // parse_uci_move gives legal moves only; should that ever change, the mover loses.
            record.at_fault = Some(mover);
            return Err((
                GameResult::win_for(!mover),
                Termination::IllegalMove,
                format!("{} makes an illegal move: {mv}", color_name(mover)),
            ));
        }
        self.moves.push(mv);
        self.engine_plies += 1;
        self.check_mate_signs(mate, mover);
        let mut details = reply.details;
        if let TimeControl::Clock { .. } = self.setup.time_controls[mover.index()] {
            details.time_left = Some(self.clocks.left[mover.index()]);
        }
        record.moves.push(PlayedMove {
            mv,
            score: reply.score,
            depth: reply.depth,
            nodes: reply.nodes,
            time: elapsed,
            details,
        });
        // The rules come first: a mate or a claimable draw on the board ends the game even if an
        // adjudication rule would also apply.
        if let Some(end) = self.game.status_with_claims() {
            return Err(rules_ending(end));
        }
        // The tables' exact verdict comes before the score-based rules.
        if let Some(outcome) = self.tablebase_verdict() {
            return Err(outcome);
        }
        let adjudicated = self.adjudication.update(
            self.setup.adjudication,
            mover,
            reply.score,
            resets_clock,
            self.game.position(),
            self.engine_plies,
        );
        match adjudicated {
            Some((result, rule, reason)) => {
                Err((result, Termination::Adjudication(Some(rule)), reason))
            }
            None => Ok(()),
        }
    }

    /// After `mover`'s move: its player may ponder on the opponent's time, with its own
    /// limits as they stand (its clock already charged). Err: it failed (a broken pipe).
    fn start_pondering(
        &self,
        player: &mut dyn Player,
        mover: Color,
        record: &mut GameRecord,
    ) -> Result<(), Outcome> {
        self.with_request(mover, |request| player.ponder(request))
            .map_err(|e| {
                record.at_fault = Some(mover);
                failure(mover, &e, false)
            })
    }

    /// Calls `f` with the request for `mover`'s move: the game so far, and the limits and
    /// deadline its clock allows now.
    fn with_request<R>(&self, mover: Color, f: impl FnOnce(&GoRequest) -> R) -> R {
        let (limits, deadline) = move_limits(self.setup, &self.clocks, mover);
        f(&GoRequest {
            start: self.setup.start,
            moves: &self.moves,
            limits: &limits,
            deadline,
        })
    }

    /// Asks the mover for its move within its deadline, and charges the time to its clock.
    /// Err: it failed to answer, or answered too late.
    fn ask(
        &mut self,
        player: &mut dyn Player,
        pos: &Position,
    ) -> Result<(EngineReply, Duration), Outcome> {
        let mover = pos.side_to_move();
        let i = mover.index();
        let time_control = self.setup.time_controls[i];
        let timed = matches!(
            time_control,
            TimeControl::Clock { .. } | TimeControl::MoveTime(_)
        );
        let (reply, elapsed) = self.with_request(mover, |request| {
            let asked = (self.now)();
            let reply = player.go(request);
            (reply, (self.now)().saturating_sub(asked))
        });
        let reply = match reply {
            Ok(reply) => reply,
            Err(e) => {
                let (result, termination, reason) = failure(mover, &e, timed);
                if self.checks.is_some() && termination == Termination::StalledConnection {
                    self.warnings.push((mover, Warning::NotResponsive));
                }
                if termination != Termination::TimeForfeit {
                    return Err((result, termination, reason));
                }
                self.clocks.left[i] = Duration::ZERO;
                return Err(time_loss(pos, reason));
            }
        };
        let overrun = match time_control {
            TimeControl::Clock { .. } => (elapsed > self.clocks.left[i] + self.setup.margin)
                .then(|| elapsed - self.clocks.left[i]),
            TimeControl::MoveTime(movetime) => {
                (elapsed > *movetime + self.setup.margin).then(|| elapsed - *movetime)
            }
            _ => None,
        };
        if let Some(over) = overrun {
            if let TimeControl::Clock { .. } = time_control {
                self.clocks.left[i] = Duration::ZERO;
            }
            let reason = format!(
                "{} loses on time ({}ms overrun)",
                color_name(mover),
                over.as_millis()
            );
            return Err(time_loss(pos, reason));
        }
        self.charge_clock(mover, elapsed);
        Ok((reply, elapsed))
    }

    /// Takes `elapsed` off the mover's clock, adds its increment, and starts a new period when
    /// one is complete.
    fn charge_clock(&mut self, mover: Color, elapsed: Duration) {
        let i = mover.index();
        if let TimeControl::Clock {
            moves,
            base,
            increment,
        } = self.setup.time_controls[i]
        {
            let clocks = &mut self.clocks;
            clocks.left[i] = clocks.left[i].saturating_sub(elapsed) + *increment;
            clocks.moves_in_period[i] += 1;
            if Some(clocks.moves_in_period[i]) == *moves {
                clocks.left[i] += *base;
                clocks.moves_in_period[i] = 0;
            }
        }
    }
}

/// The side to move in `pos` lost on time (`reason`): a loss, or a draw when the opponent has
/// no mating material.
fn time_loss(pos: &Position, reason: String) -> Outcome {
    let mover = pos.side_to_move();
    if can_win_on_time(pos, !mover) {
        (
            GameResult::win_for(!mover),
            Termination::TimeForfeit,
            reason,
        )
    } else {
        (
            GameResult::Draw,
            Termination::TimeForfeit,
            format!("{reason}, but the opponent cannot mate: draw"),
        )
    }
}

/// The search limits and the answer deadline for the side to move, under its own control.
fn move_limits(setup: &GameSetup<'_>, clocks: &Clocks, mover: Color) -> (SearchLimits, Duration) {
    let i = mover.index();
    match setup.time_controls[i] {
        TimeControl::Nodes(n) => (SearchLimits::nodes(*n), setup.timeout),
        TimeControl::Depth(d) => (SearchLimits::depth(*d), setup.timeout),
        TimeControl::MoveTime(t) => (SearchLimits::movetime(*t), *t + setup.margin),
        TimeControl::Clock {
            moves, increment, ..
        } => {
            let moves_to_go = moves.map(|m| m - clocks.moves_in_period[i]);
            // A side without a clock shows the mover's own time and increment.
            let side = |c: usize| match setup.time_controls[c] {
                TimeControl::Clock { increment, .. } => (clocks.left[c], *increment),
                _ => (clocks.left[i], *increment),
            };
            let (white_time, white_increment) = side(0);
            let (black_time, black_increment) = side(1);
            let limits = SearchLimits {
                clock: Some(Clock {
                    white_time,
                    black_time,
                    white_increment,
                    black_increment,
                    moves_to_go,
                }),
                ..Default::default()
            };
            (limits, clocks.left[i] + setup.margin)
        }
    }
}

#[cfg(test)]
mod tests;
