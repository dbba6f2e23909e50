//! The arbiter: plays one game between two players from an opening. It keeps the authoritative
//! position and clocks, checks every move, ends the game by the rules (claiming threefold and
//! fifty-move draws on the players' behalf) or by adjudication, and records why.

use super::config::{Adjudication, TimeControl};
use super::player::{EngineReply, GoRequest, Player, PlayerError};
use crate::board::{Color, Game, GameEnd, GameResult, Move, PieceKind, Position};
use crate::record::{GameRecord, PlayedMove, Termination};
use crate::score::Score;
use crate::search::{Clock, SearchLimits};
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

fn color_name(color: Color) -> &'static str {
    match color {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// The reason text and termination of a rules ending, in the wording runners use.
fn rules_ending(end: GameEnd) -> (GameResult, Termination, String) {
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

/// Running counters for score-based adjudication.
#[derive(Default)]
struct AdjudicationState {
    /// Consecutive engine plies with a small score.
    draw_plies: u32,
    /// Per colour: consecutive own moves with a losing score, and with a winning score.
    losing: [u32; 2],
    winning: [u32; 2],
}

impl AdjudicationState {
    /// Updates the counters with a move's score and says whether the game is adjudicated.
    fn update(
        &mut self,
        rules: &Adjudication,
        mover: Color,
        score: Option<Score>,
        reset_clock: bool,
        pos_after: &Position,
        engine_plies: u32,
    ) -> Option<(GameResult, String)> {
        let cp = match score {
            Some(Score::Cp(cp)) => Some(cp),
            _ => None,
        };
        if let Some(draw) = &rules.draw {
            match cp {
                Some(cp) if cp.abs() <= draw.score_cp && !reset_clock => self.draw_plies += 1,
                _ => self.draw_plies = 0,
            }
        }
        if let Some(resign) = &rules.resign {
            let i = mover.index();
            let losing = match score {
                Some(Score::Cp(cp)) => cp <= -resign.score_cp,
                Some(Score::Mate(n)) => n < 0,
                None => false,
            };
            let winning = match score {
                Some(Score::Cp(cp)) => cp >= resign.score_cp,
                Some(Score::Mate(n)) => n > 0,
                None => false,
            };
            self.losing[i] = if losing { self.losing[i] + 1 } else { 0 };
            self.winning[i] = if winning { self.winning[i] + 1 } else { 0 };
            let other = (!mover).index();
            let agreed = |loser: usize, winner: usize| {
                self.losing[loser] >= resign.move_count
                    && (!resign.two_sided || self.winning[winner] >= resign.move_count)
            };
            for (loser, winner) in [(i, other), (other, i)] {
                if agreed(loser, winner) {
                    let winner_color = if winner == 0 {
                        Color::White
                    } else {
                        Color::Black
                    };
                    return Some((
                        GameResult::win_for(winner_color),
                        format!("{} wins by adjudication", color_name(winner_color)),
                    ));
                }
            }
        }
        if let Some(draw) = &rules.draw {
            if pos_after.fullmove_number().saturating_sub(1) >= draw.move_number
                && self.draw_plies >= 2 * draw.move_count
            {
                return Some((GameResult::Draw, "Draw by adjudication".to_string()));
            }
        }
        if let Some(max) = rules.max_moves {
            if engine_plies >= 2 * max {
                return Some((
                    GameResult::Draw,
                    "Draw by adjudication: maximal game length".to_string(),
                ));
            }
        }
        None
    }
}

/// Per-side clock state for clock time controls.
struct Clocks {
    left: [Duration; 2],
    moves_in_period: [u32; 2],
}

/// Plays one game. `players` are indexed by colour (White first).
pub fn play_game(setup: &GameSetup<'_>, players: [&mut dyn Player; 2]) -> GameRecord {
    let clock_start = Instant::now();
    let mut record = play_game_shell(setup);
    let (result, termination, mut reason) = run(setup, players, &mut record);
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
    record
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
fn failure(color: Color, error: &PlayerError, timed: bool) -> (GameResult, Termination, String) {
    let name = color_name(color);
    let result = GameResult::win_for(!color);
    match error {
        PlayerError::Timeout { .. } if timed => (
            result,
            Termination::TimeForfeit,
            format!("{name} loses on time"),
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

fn run(
    setup: &GameSetup<'_>,
    mut players: [&mut dyn Player; 2],
    record: &mut GameRecord,
) -> (GameResult, Termination, String) {
    for (i, player) in players.iter_mut().enumerate() {
        if let Err(e) = player.new_game() {
            let color = if i == 0 { Color::White } else { Color::Black };
            record.at_fault = Some(color);
            return failure(color, &e, false);
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

    // Each side runs on its own control: a clock for a side with a clock control only.
    let mut clocks = Clocks {
        left: setup.time_controls.map(|tc| match tc {
            TimeControl::Clock { base, .. } => *base,
            _ => Duration::ZERO,
        }),
        moves_in_period: [0; 2],
    };
    let mut adjudication = AdjudicationState::default();
    let mut engine_plies = 0u32;
    let mut moves_so_far: Vec<Move> = record.book_moves.clone();

    let outcome = loop {
        if let Some(end) = game.status_with_claims() {
            break rules_ending(end);
        }
        let pos = game.position().clone();
        let mover = pos.side_to_move();
        let i = mover.index();
        let time_control = setup.time_controls[i];
        let timed = matches!(
            time_control,
            TimeControl::Clock { .. } | TimeControl::MoveTime(_)
        );
        let (limits, deadline) = move_limits(setup, &clocks, mover);
        let request = GoRequest {
            start: setup.start,
            moves: &moves_so_far,
            limits: &limits,
            deadline,
        };
        let asked = Instant::now();
        let reply = players[i].go(&request);
        let elapsed = asked.elapsed();
        let reply: EngineReply = match reply {
            Ok(reply) => reply,
            Err(e) => {
                record.at_fault = Some(mover);
                let (result, termination, reason) = failure(mover, &e, timed);
                if termination == Termination::TimeForfeit {
                    clocks.left[i] = Duration::ZERO;
                }
                if termination == Termination::TimeForfeit && !can_win_on_time(&pos, !mover) {
                    break (
                        GameResult::Draw,
                        termination,
                        format!("{reason}, but the opponent cannot mate: draw"),
                    );
                }
                break (result, termination, reason);
            }
        };
        let overrun = match time_control {
            TimeControl::Clock { .. } => {
                (elapsed > clocks.left[i] + setup.margin).then(|| elapsed - clocks.left[i])
            }
            TimeControl::MoveTime(movetime) => {
                (elapsed > *movetime + setup.margin).then(|| elapsed - *movetime)
            }
            _ => None,
        };
        if let Some(over) = overrun {
            record.at_fault = Some(mover);
            if let TimeControl::Clock { .. } = time_control {
                clocks.left[i] = Duration::ZERO;
            }
            let reason = format!(
                "{} loses on time ({}ms overrun)",
                color_name(mover),
                over.as_millis()
            );
            if !can_win_on_time(&pos, !mover) {
                break (
                    GameResult::Draw,
                    Termination::TimeForfeit,
                    format!("{reason}, but the opponent cannot mate: draw"),
                );
            }
            break (
                GameResult::win_for(!mover),
                Termination::TimeForfeit,
                reason,
            );
        }
        if let TimeControl::Clock {
            moves,
            base,
            increment,
        } = time_control
        {
            clocks.left[i] = clocks.left[i].saturating_sub(elapsed) + *increment;
            clocks.moves_in_period[i] += 1;
            if Some(clocks.moves_in_period[i]) == *moves {
                clocks.left[i] += *base;
                clocks.moves_in_period[i] = 0;
            }
        }

        let mv = match pos.parse_uci_move(&reply.bestmove) {
            Ok(mv) => mv,
            Err(_) => {
                record.at_fault = Some(mover);
                let shown = if reply.bestmove.is_empty() {
                    "(none)"
                } else {
                    reply.bestmove.as_str()
                };
                break (
                    GameResult::win_for(!mover),
                    Termination::IllegalMove,
                    format!("{} makes an illegal move: {shown}", color_name(mover)),
                );
            }
        };
        let resets_clock = mv.is_capture() || pos.kind_on(mv.from()) == Some(PieceKind::Pawn);
        game.play(mv).expect("parse_uci_move returns legal moves");
        moves_so_far.push(mv);
        engine_plies += 1;
        record.moves.push(PlayedMove {
            mv,
            score: reply.score,
            depth: reply.depth,
            nodes: reply.nodes,
            time: elapsed,
        });
        // The rules come first: a mate or a claimable draw on the board ends the game even if an
        // adjudication rule would also apply.
        if let Some(end) = game.status_with_claims() {
            break rules_ending(end);
        }
        if let Some((result, reason)) = adjudication.update(
            setup.adjudication,
            mover,
            reply.score,
            resets_clock,
            game.position(),
            engine_plies,
        ) {
            break (result, Termination::Adjudication, reason);
        }
    };
    for (i, tc) in setup.time_controls.iter().enumerate() {
        if let TimeControl::Clock { .. } = tc {
            record.clock_left[i] = Some(clocks.left[i]);
        }
    }
    outcome
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
