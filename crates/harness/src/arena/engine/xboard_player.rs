//! An external xboard (CECP) engine as an arena `Player`, driven the way cutechess-cli drives
//! one: the engine stays in force mode except while it thinks, so it never moves on its own;
//! each request sends what it has not seen (the game's setup, the opponent's moves), syncs with
//! `ping` when the engine has it, then `time`, `otim` and `go`. Every wait has a deadline.

use super::process::EngineProcess;
use super::settings::ExternalSettings;
use super::uci::{check_options, DeclaredOption};
use super::uci_player::{handshake_error, spawn, UciCommand};
use super::xboard::{self, EngineLine, Features};
use crate::arena::config::TimeControl;
use crate::arena::engine::log::LogSink;
use crate::arena::engine::player::{EngineReply, GoRequest, Player, PlayerError};
use crate::board::{CastlingNotation, Game, GameResult, Move, Position};
use regex::Regex;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a quitting engine gets to exit by itself before its group is killed.
const QUIT_GRACE: Duration = Duration::from_secs(1);

/// A running xboard engine.
pub(crate) struct XboardPlayer {
    process: EngineProcess,
    features: Features,
    id_name: String,
    timeout: Duration,
    /// Configured options the engine did not declare (not sent, as cutechess leaves them out).
    undeclared: Vec<String>,
    /// Games are Chess960 (`variant fischerandom`).
    chess960: bool,
    /// The `match_line` patterns whose last matching line each reply keeps.
    keep: Arc<[Regex]>,
    /// The game as the engine knows it: its start and the moves it has seen. None: the next
    /// request sets the game up (position and time control).
    known: Option<(Position, Vec<Move>)>,
    /// The last `ping` number sent.
    ping: u64,
    /// The move texts sent with the current request: an `Illegal move` line naming one of
    /// them is a refusal; any other (engines answer unknown commands so) is ignored.
    sent: Vec<String>,
    /// cutechess's `ponder`: `hard` instead of `easy`, so the engine thinks on the
    /// opponent's time by itself (until the next `force`).
    ponder: bool,
    /// The opponent's name, told to an engine with `feature name=1` each game.
    opponent: Option<String>,
    /// Games begun with this process (`reuse=0` engines play one).
    games: u64,
    /// cutechess's per-engine keys (`trust`, `whitepov`, ...).
    settings: ExternalSettings,
}

impl XboardPlayer {
    /// Starts the engine, reads its features (`xboard`, `protover 2`, up to `done=1`, or the
    /// protocol 1 silence) and sends the configured options: `memory` and `cores` as those
    /// commands, the others as `option NAME=VALUE`. A value the engine's own `option`
    /// declaration does not allow is refused before anything is sent. `settings` are cutechess's
    /// per-engine settings.
    pub(crate) fn start_with(
        spec: &UciCommand,
        settings: &ExternalSettings,
        timeout: Duration,
        log: Option<LogSink>,
    ) -> Result<XboardPlayer, PlayerError> {
        check_options(&spec.options)?;
        let mut process = spawn(spec, settings, log)?;
        let features = xboard::handshake(&mut process, Instant::now() + timeout)
            .map_err(|e| handshake_error(&spec.command, timeout, e, "feature done=1"))?;
        let mut player = XboardPlayer {
            process,
            id_name: features
                .myname
                .clone()
                .unwrap_or_else(|| spec.command.clone()),
            features,
            timeout,
            undeclared: Vec::new(),
            chess960: false,
            keep: Arc::from(Vec::new()),
            known: None,
            ping: 0,
            sent: Vec::new(),
            ponder: settings.ponder,
            opponent: None,
            games: 0,
            settings: settings.clone(),
        };
        let mut commands = Vec::new();
        if let Some(path) = &settings.syzygy_path {
            if player.features.egt.iter().any(|f| f == "syzygy") {
                commands.push(format!("egtpath syzygy {}", path.display()));
            }
        }
        for (name, value) in &spec.options {
            if let Some(command) = player.option_command(name, value)? {
                commands.push(command);
            }
        }
        if !commands.is_empty() {
            player.process.send(&commands.join("\n"))?;
        }
        player
            .sync(Instant::now() + timeout)
            .map_err(|e| handshake_error(&spec.command, timeout, e, "pong"))?;
        Ok(player)
    }

    /// Refuses a time control the engine cannot be given: a node limit without `nps=1`.
    pub(crate) fn check_time_control(&self, time_control: &TimeControl) -> Result<(), PlayerError> {
        match time_control {
            TimeControl::Nodes(nodes) if !self.features.nps => Err(PlayerError::Unsupported {
                command: self.process.command().to_string(),
                what: format!("a node limit ({nodes} nodes): it declares no `feature nps=1`"),
            }),
            _ => Ok(()),
        }
    }

    /// The command that sets option `name` to `value`, checked against its declaration; None
    /// for an option the engine did not declare (listed in `undeclared`, as cutechess warns).
    fn option_command(&mut self, name: &str, value: &str) -> Result<Option<String>, PlayerError> {
        let lower = name.trim().to_ascii_lowercase();
        if lower == "memory" || lower == "cores" {
            let declared = if lower == "memory" {
                self.features.memory
            } else {
                self.features.smp
            };
            if !declared {
                self.undeclared.push(name.to_string());
                return Ok(None);
            }
            return Ok(Some(format!("{lower} {value}")));
        }
        let Some(option) = self
            .features
            .options
            .iter_mut()
            .find(|o| o.name.eq_ignore_ascii_case(name.trim()))
        else {
            self.undeclared.push(name.to_string());
            return Ok(None);
        };
        Ok(Some(match option.kind.as_str() {
            "button" => format!("option {}", option.name),
            "check" => {
                let on = match value.trim() {
                    "1" | "true" => true,
                    "0" | "false" => false,
                    _ => return Err(refused_check(option, value)),
                };
                option.value = Some(on.to_string());
                format!("option {}={}", option.name, u8::from(on))
            }
            _ => {
                option.check_value(value)?;
                option.value = Some(value.to_string());
                format!("option {}={value}", option.name)
            }
        }))
    }

    /// Waits until the engine has read everything sent so far: `ping N` and its `pong N` when
    /// it has `ping`, else whatever output is already there. Lines before are stale (a claim
    /// after its last move, late thinking), except a refused move.
    fn sync(&mut self, deadline: Instant) -> Result<(), PlayerError> {
        if self.features.ping {
            self.ping += 1;
            let n = self.ping;
            self.process.send(&format!("ping {n}"))?;
            loop {
                match xboard::classify(&self.process.recv_until(deadline)?) {
                    EngineLine::Pong(m) if m == n => return Ok(()),
                    EngineLine::Illegal(line) => self.refusal(line)?,
                    _ => {}
                }
            }
        }
        loop {
            // A moment's wait: the pipe is polled, so output already written is read.
            match self
                .process
                .recv_until(Instant::now() + Duration::from_millis(1))
            {
                Ok(line) => {
                    if let EngineLine::Illegal(line) = xboard::classify(&line) {
                        self.refusal(line)?;
                    }
                }
                Err(PlayerError::Timeout { .. }) => return Ok(()),
                Err(e) => return Err(e),
            }
        }
    }

    /// An `Illegal move` line: Err when it names a move sent with this request.
    fn refusal(&self, line: String) -> Result<(), PlayerError> {
        let named = line.rsplit(':').next().unwrap_or("").trim();
        if self.sent.iter().any(|m| m == named) {
            return Err(PlayerError::Refused { line });
        }
        Ok(())
    }

    /// The commands that bring the engine from what it knows to `request`'s position in force
    /// mode: a fresh game's position and time control, then the moves it has not seen.
    fn catch_up(
        &self,
        request: &GoRequest<'_>,
    ) -> Result<(String, Position, Vec<String>), PlayerError> {
        let unsupported = |what: String| PlayerError::Unsupported {
            command: self.process.command().to_string(),
            what,
        };
        let in_step = matches!(&self.known, Some((start, moves))
            if start == request.start && request.moves.starts_with(moves));
        let mut commands = vec!["force".to_string()];
        let seen = if in_step {
            self.known.as_ref().map_or(0, |(_, moves)| moves.len())
        } else {
            if self.known.is_some() {
                // Out of step (never in a normal game): the game is set up afresh.
                commands.push(self.new_game_commands());
            }
            let start = request.start;
            if start.to_fen() != Position::START_FEN || self.chess960 {
                if self.features.setboard {
                    commands.push(format!("setboard {}", start.to_fen()));
                } else if self.chess960 {
                    return Err(unsupported(
                        "a Chess960 start: it declares no `feature setboard=1`".into(),
                    ));
                } else {
                    commands.push(xboard::edit_commands(start, self.features.usermove));
                }
            }
            let mut pos = start.clone();
            for &mv in request.moves {
                pos.make_move(mv);
            }
            let me = pos.side_to_move();
            commands.push(
                xboard::limit_commands(request.limits, me, self.features.nps)
                    .map_err(unsupported)?,
            );
            0
        };
        let mut pos = request.start.clone();
        let mut sent = Vec::new();
        for (i, &mv) in request.moves.iter().enumerate() {
            if i >= seen {
                let text = xboard::move_text(
                    &pos,
                    mv,
                    self.features.san,
                    CastlingNotation::chess960_if(self.chess960),
                );
                commands.push(if self.features.usermove {
                    format!("usermove {text}")
                } else {
                    text.clone()
                });
                sent.push(text);
            }
            pos.make_move(mv);
        }
        Ok((commands.join("\n"), pos, sent))
    }

    /// What follows `new` for every game: the variant, thinking output on, pondering off
    /// (`easy`) or, with `ponder`, on (`hard`).
    fn new_game_commands(&self) -> String {
        let variant = if self.chess960 {
            "\nvariant fischerandom"
        } else {
            ""
        };
        let pondering = if self.ponder { "hard" } else { "easy" };
        let mut text = format!("new{variant}\nforce\npost\n{pondering}");
        if let Some(name) = self.opponent.as_ref().filter(|_| self.features.name) {
            // cutechess's way: the opponent is an engine, and its name.
            text.push_str(&format!("\ncomputer\nname {name}"));
        }
        text
    }
}

/// A check option's value that is neither 1/0 nor true/false.
fn refused_check(option: &DeclaredOption, value: &str) -> PlayerError {
    PlayerError::OptionValue {
        name: option.name.clone(),
        value: value.to_string(),
        allowed: "a check: 1, 0, true or false".to_string(),
    }
}

/// The result a claim names (`1-0`, `0-1`, `1/2-1/2`); None for `*`.
fn claimed_result(claim: &str) -> Option<GameResult> {
    match claim.split_whitespace().next()? {
        "1-0" => Some(GameResult::WhiteWins),
        "0-1" => Some(GameResult::BlackWins),
        "1/2-1/2" => Some(GameResult::Draw),
        _ => None,
    }
}

/// Whether `mv` after the game of `request` leaves a drawn position (what a `1/2-1/2` claim
/// before a move asserts).
fn draws(request: &GoRequest<'_>, mv: Move) -> bool {
    let mut game = Game::new(request.start.clone());
    for &m in request.moves.iter().chain(std::iter::once(&mv)) {
        if game.play(m).is_err() {
            return false;
        }
    }
    game.status_with_claims()
        .is_some_and(|end| end.result() == GameResult::Draw)
}

impl Player for XboardPlayer {
    fn id_name(&self) -> &str {
        &self.id_name
    }

    fn option_value(&self, name: &str) -> Option<String> {
        self.features
            .options
            .iter()
            .find(|o| o.name.eq_ignore_ascii_case(name))
            .and_then(|o| o.value.clone())
    }

    fn undeclared_options(&self) -> Vec<String> {
        self.undeclared.clone()
    }

    fn set_log_game(&mut self, game_id: u64) {
        self.process.set_log_game(game_id);
    }

    fn new_game(&mut self) -> Result<(), PlayerError> {
        self.known = None;
        self.games += 1;
        let commands = self.new_game_commands();
        self.process.send(&commands)?;
        self.sync(Instant::now() + self.timeout)
    }

    fn enable_chess960(&mut self) -> Result<(), PlayerError> {
        let lacks = if !self.features.plays("fischerandom") {
            Some("Chess960: it declares no `fischerandom` in `feature variants`")
        } else if !self.features.setboard {
            Some("Chess960: it declares no `feature setboard=1`")
        } else {
            None
        };
        if let Some(what) = lacks {
            return Err(PlayerError::Unsupported {
                command: self.process.command().to_string(),
                what: what.to_string(),
            });
        }
        self.chess960 = true;
        Ok(())
    }

    fn go(&mut self, request: &GoRequest<'_>) -> Result<EngineReply, PlayerError> {
        let deadline = Instant::now() + request.deadline;
        let (commands, pos, sent) = self.catch_up(request)?;
        self.sent = sent;
        // Whatever happens next, the engine's game is the request's until a move is read.
        self.known = Some((request.start.clone(), request.moves.to_vec()));
        self.process.send(&commands)?;
        self.sync(deadline)?;
        let me = pos.side_to_move();
        let mut go = String::new();
        if self.features.time {
            go.push_str(&xboard::time_commands(request.limits, me));
            go.push('\n');
        }
        go.push_str("go");
        self.process.send(&go)?;
        let mut reply = self.read_move(request, &pos, deadline)?;
        reply.score = self.settings.mover_score(reply.score, me);
        Ok(reply)
    }

    fn keep_lines(&mut self, patterns: Arc<[Regex]>) {
        self.keep = patterns;
    }

    fn set_opponent(&mut self, name: &str) {
        self.opponent = Some(name.replace(['\n', '\r'], " "));
    }

    fn needs_restart(&self) -> bool {
        // `feature reuse=0`: one game per process.
        !self.features.reuse && self.games > 0
    }

    fn stop_pondering(&mut self) {
        if self.ponder {
            // Force mode ends any thinking on the opponent's time; a dead pipe shows next game.
            let _ = self.process.send("force");
        }
    }
}

impl XboardPlayer {
    /// Reads thinking output up to the engine's move, by `deadline`. A resignation or a claim
    /// the board does not bear out ends the request with the matching error.
    fn read_move(
        &mut self,
        request: &GoRequest<'_>,
        pos: &Position,
        deadline: Instant,
    ) -> Result<EngineReply, PlayerError> {
        let me = pos.side_to_move();
        let mut reply = EngineReply::default();
        let mut kept: Vec<Option<String>> = vec![None; self.keep.len()];
        // `1/2-1/2` while thinking: the engine says its coming move draws.
        let mut draw_claim: Option<String> = None;
        loop {
            let line = match self.process.recv_until(deadline) {
                Ok(line) => line,
                Err(PlayerError::Timeout { .. }) if draw_claim.is_some() => {
                    let claim = draw_claim.unwrap_or_default();
                    return Err(PlayerError::InvalidClaim { claim });
                }
                Err(e) => return Err(e),
            };
            let trimmed = line.trim();
            for (pattern, slot) in self.keep.iter().zip(&mut kept) {
                if pattern.is_match(trimmed) {
                    *slot = Some(trimmed.to_string());
                }
            }
            match xboard::classify(trimmed) {
                EngineLine::Thinking(t) => t.apply(
                    &mut reply,
                    pos,
                    CastlingNotation::chess960_if(self.chess960),
                ),
                EngineLine::Move(text) => {
                    reply.details.lines = kept.into_iter().flatten().collect();
                    let Some(mv) = xboard::parse_move(pos, &text) else {
                        // The arbiter reports it, as written.
                        reply.bestmove = text;
                        return Ok(reply);
                    };
                    if let Some(claim) = draw_claim {
                        if !draws(request, mv) {
                            return Err(PlayerError::InvalidClaim { claim });
                        }
                    }
                    // King takes rook for castling: unambiguous in every variant.
                    reply.bestmove = pos.uci(mv, CastlingNotation::Chess960);
                    if let Some((_, moves)) = &mut self.known {
                        moves.push(mv);
                    }
                    return Ok(reply);
                }
                EngineLine::Claim(claim) => {
                    let concedes = match me {
                        crate::board::Color::White => claim.starts_with("0-1"),
                        crate::board::Color::Black => claim.starts_with("1-0"),
                    };
                    if concedes {
                        return Err(PlayerError::Resigned);
                    }
                    if self.settings.trust_claims {
                        if let Some(result) = claimed_result(&claim) {
                            return Err(PlayerError::TrustedClaim { result, claim });
                        }
                    }
                    if claim.starts_with("1/2-1/2") {
                        draw_claim = Some(claim);
                    } else {
                        return Err(PlayerError::InvalidClaim { claim });
                    }
                }
                EngineLine::Resign => return Err(PlayerError::Resigned),
                EngineLine::Illegal(line) => self.refusal(line)?,
                EngineLine::Pong(_) | EngineLine::Error(_) | EngineLine::Other => {}
            }
        }
    }
}

impl Drop for XboardPlayer {
    /// Asks the engine to quit and gives it a moment; then its whole group is killed and reaped.
    fn drop(&mut self) {
        self.process.close("quit", self.settings.scaled(QUIT_GRACE));
    }
}
