//! An external UCI engine as an arena `Player`: an engine process speaking UCI. Every wait has
//! a deadline; a crash, a hang or garbage is reported as a `PlayerError`, never a panic.

use super::process::EngineProcess;
use super::settings::ExternalSettings;
use super::uci::{self, check_options, DeclaredOption, RefusedOption};
use crate::arena::engine::log::LogSink;
use crate::arena::engine::player::{EngineReply, GoRequest, Player, PlayerError};
use crate::board::{CastlingNotation, Move, Position};
use regex::Regex;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How to start an external engine.
#[derive(Clone, Debug)]
pub struct UciCommand {
    /// The program.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// UCI options sent with `setoption` after `uciok` (name, value).
    pub options: Vec<(String, String)>,
    /// Where it runs (default: the runner's directory).
    pub working_dir: Option<PathBuf>,
}

/// How long a quitting engine gets to exit by itself before its group is killed.
const QUIT_GRACE: Duration = Duration::from_secs(1);

/// A running UCI engine.
pub struct UciPlayer {
    process: EngineProcess,
    id_name: String,
    timeout: Duration,
    /// The options the engine declared, with their current values.
    declared: Vec<DeclaredOption>,
    /// Configured options it did not declare, and `UCI_Chess960` in a Chess960 run when it
    /// lacks that option: not sent, as fastchess and cutechess-cli leave them out.
    undeclared: Vec<String>,
    /// Configured values its declarations do not accept (not sent, as fastchess does).
    refused: Vec<RefusedOption>,
    /// `UCI_Chess960` is on: positions and moves are sent in Chess960 notation.
    chess960: bool,
    /// The `match_line` patterns whose last matching line each reply keeps.
    keep: Arc<[Regex]>,
    /// Pondering is on (cutechess's `ponder`).
    ponder: bool,
    /// The reply the engine predicted with its last move (`bestmove X ponder Y`).
    predicted: Option<String>,
    /// The game a `go ponder` search runs on (the predicted move last), until `ponderhit`
    /// or `stop`.
    pondering: Option<(Position, Vec<Move>)>,
    /// It ignored `stop` after a game: out of step, to be started afresh.
    broken: bool,
    /// cutechess's per-engine keys (`debug`, `whitepov`, ...).
    settings: ExternalSettings,
}

impl UciPlayer {
    /// Starts the engine and completes the handshake (`uci`/`uciok`, options, `isready`/`readyok`).
    pub fn start(spec: &UciCommand, timeout: Duration) -> Result<UciPlayer, PlayerError> {
        UciPlayer::start_logged(spec, timeout, None)
    }

    /// As `start`, writing what is sent and received, and the engine's standard error, to the
    /// engine log when `log` is given. A configured option value the engine's declaration does
    /// not allow, or an option it does not declare, is refused before any option is sent.
    pub(crate) fn start_logged(
        spec: &UciCommand,
        timeout: Duration,
        log: Option<LogSink>,
    ) -> Result<UciPlayer, PlayerError> {
        UciPlayer::start_checked(spec, &ExternalSettings::default(), timeout, log, true)
    }

    /// As `start_logged`, with cutechess's per-engine `settings` (pondering: `setoption name
    /// Ponder value true` when the engine declares the option and none is configured), and as
    /// fastchess does with a value the engine's declaration does not accept or an option it
    /// does not declare: it is not sent, and [`UciPlayer::refused_options`] or
    /// [`Player::undeclared_options`] lists it (the runner warns).
    pub(crate) fn start_with(
        spec: &UciCommand,
        settings: &ExternalSettings,
        timeout: Duration,
        log: Option<LogSink>,
    ) -> Result<UciPlayer, PlayerError> {
        UciPlayer::start_checked(spec, settings, timeout, log, false)
    }

    /// The start-up: `refuse` stops at a value the declaration does not allow or an option
    /// the engine does not declare (sparring's own check), else fastchess's check leaves it
    /// out.
    fn start_checked(
        spec: &UciCommand,
        settings: &ExternalSettings,
        timeout: Duration,
        log: Option<LogSink>,
        refuse: bool,
    ) -> Result<UciPlayer, PlayerError> {
        check_options(&spec.options)?;
        let mut process = spawn(spec, settings, log)?;
        let found = uci::handshake(&mut process, Instant::now() + timeout)
            .map_err(|e| handshake_error(&spec.command, timeout, e, "uciok"))?;
        let mut player = UciPlayer {
            process,
            id_name: found.id_name.unwrap_or_else(|| spec.command.clone()),
            timeout,
            declared: found.declared,
            undeclared: Vec::new(),
            refused: Vec::new(),
            chess960: false,
            keep: Arc::from(Vec::new()),
            ponder: settings.ponder,
            predicted: None,
            pondering: None,
            broken: false,
            settings: settings.clone(),
        };
        // fastchess stops at a spin it cannot build, configured or not.
        for option in &player.declared {
            if let Some(Err(bad)) = &option.fastchess_spin {
                return Err(PlayerError::BadDeclaration {
                    option: option.name.clone(),
                    spin: Box::new(bad.clone()),
                });
            }
        }
        let mut lines = Vec::new();
        for (name, value) in &spec.options {
            let button = match player.declared_mut(name) {
                Some(declared) if refuse => {
                    declared.check_value(value)?;
                    declared.value = Some(value.clone());
                    declared.kind == "button"
                }
                Some(declared) => match declared.fastchess_check(value) {
                    Ok(()) => {
                        declared.value = Some(value.clone());
                        declared.kind == "button"
                    }
                    Err(refused) => {
                        player.refused.push(RefusedOption {
                            name: name.clone(),
                            ..refused
                        });
                        continue;
                    }
                },
                None if refuse => return Err(undeclared_error(name, value)),
                None => {
                    // As fastchess and cutechess-cli: warned about, never sent.
                    player.undeclared.push(name.clone());
                    continue;
                }
            };
            lines.push(setoption_line(name, value, button));
        }
        // A configured Ponder, even one not sent, is not replaced.
        let configured = |name: &str| {
            spec.options
                .iter()
                .any(|(n, _)| n.eq_ignore_ascii_case(name))
        };
        if settings.ponder && !configured("Ponder") {
            if let Some(declared) = player.declared_mut("Ponder") {
                declared.value = Some("true".to_string());
                lines.push(setoption_line("Ponder", "true", false));
            }
        }
        for line in &lines {
            player.process.send(line)?;
        }
        player
            .ready()
            .map_err(|e| handshake_error(&spec.command, timeout, e, "readyok"))?;
        Ok(player)
    }

    /// The options the engine declared in its handshake, with their current values.
    pub fn declared_options(&self) -> &[DeclaredOption] {
        &self.declared
    }

    fn declared_mut(&mut self, name: &str) -> Option<&mut DeclaredOption> {
        self.declared
            .iter_mut()
            .find(|o| o.name.eq_ignore_ascii_case(name.trim()))
    }

    /// `isready`, then waits (up to the start-up timeout) for `readyok`.
    fn ready(&mut self) -> Result<(), PlayerError> {
        self.process.send("isready")?;
        uci::wait_ready(&mut self.process, Instant::now() + self.timeout)
    }
}

/// The `setoption` line for `name` = `value`: a button is pressed by its name alone (`true`
/// is the only value it is configured with), as UCI and fastchess have it.
fn setoption_line(name: &str, value: &str, button: bool) -> String {
    if button {
        format!("setoption name {name}")
    } else {
        format!("setoption name {name} value {value}")
    }
}

/// The error of a configured option the engine does not declare, when it is refused.
pub(crate) fn undeclared_error(name: &str, value: &str) -> PlayerError {
    PlayerError::OptionValue {
        name: name.to_string(),
        value: value.to_string(),
        allowed: "no option of that name".to_string(),
    }
}

/// Starts the engine process of `spec` with `settings`' standard error file, and writes its
/// `initstr` lines before anything else (cutechess writes them before the protocol starts).
pub(super) fn spawn(
    spec: &UciCommand,
    settings: &ExternalSettings,
    log: Option<LogSink>,
) -> Result<EngineProcess, PlayerError> {
    let mut process = EngineProcess::spawn(
        &spec.command,
        &spec.args,
        spec.working_dir.as_deref(),
        log,
        settings.stderr_file.as_deref(),
    )?;
    if !settings.init_strings.is_empty() {
        process.send(&settings.init_strings.join("\n"))?;
    }
    Ok(process)
}

/// A handshake step's failure in start-up terms: no answer is a handshake error naming what
/// was awaited (the whole step had `timeout`, not just the last read); an exit names the command.
pub(super) fn handshake_error(
    command: &str,
    timeout: Duration,
    error: PlayerError,
    expected: &str,
) -> PlayerError {
    match error {
        PlayerError::Timeout { .. } => PlayerError::Handshake {
            command: command.to_string(),
            expected: expected.to_string(),
            waited_ms: timeout.as_millis(),
        },
        PlayerError::Disconnected { detail } => PlayerError::Spawn {
            command: command.to_string(),
            reason: format!("it exited during the handshake{detail}"),
        },
        other => other,
    }
}

impl Player for UciPlayer {
    fn id_name(&self) -> &str {
        &self.id_name
    }

    fn option_value(&self, name: &str) -> Option<String> {
        self.declared
            .iter()
            .find(|o| o.name.eq_ignore_ascii_case(name))
            .and_then(|o| o.value.clone())
    }

    fn undeclared_options(&self) -> Vec<String> {
        self.undeclared.clone()
    }

    fn refused_options(&self) -> Vec<RefusedOption> {
        self.refused.clone()
    }

    fn set_log_game(&mut self, game_id: u64) {
        self.process.set_log_game(game_id);
    }

    fn new_game(&mut self) -> Result<(), PlayerError> {
        self.stop_pondering();
        if self.broken {
            return Err(PlayerError::Disconnected {
                detail: " (it ignored `stop` after its last game)".to_string(),
            });
        }
        if self.settings.debug {
            // As cutechess: before `ucinewgame`, each game.
            self.process.send("debug on")?;
        }
        self.process.send("ucinewgame")?;
        self.ready()
    }

    fn enable_chess960(&mut self) -> Result<(), PlayerError> {
        // The game is Chess960 whatever the engine says: positions and moves go in its
        // notation, as fastchess sends them.
        self.chess960 = true;
        let Some(option) = self.declared_mut("UCI_Chess960") else {
            // As fastchess: an undeclared option is not sent, and the runner warns
            // (`doesn't have option UCI_Chess960`).
            if !self.undeclared.iter().any(|o| o == "UCI_Chess960") {
                self.undeclared.push("UCI_Chess960".to_string());
            }
            return Ok(());
        };
        option.value = Some("true".to_string());
        self.process
            .send("setoption name UCI_Chess960 value true")?;
        self.ready()
    }

    fn go(&mut self, request: &GoRequest<'_>) -> Result<EngineReply, PlayerError> {
        let mover = request.side_to_move();
        let mut reply = self.go_unflipped(request)?;
        reply.score = self.settings.mover_score(reply.score, mover);
        Ok(reply)
    }

    fn keep_lines(&mut self, patterns: Arc<[Regex]>) {
        self.keep = patterns;
    }

    fn ponder(&mut self, request: &GoRequest<'_>) -> Result<(), PlayerError> {
        let Some(text) = self.predicted.take().filter(|_| self.ponder) else {
            return Ok(());
        };
        let mut pos = request.start.clone();
        for &mv in request.moves {
            pos.make_move(mv);
        }
        let Ok(mv) = pos.parse_uci_move(&text) else {
            return Ok(());
        };
        pos.make_move(mv);
        if pos.legal_moves().is_empty() {
            // It predicts the end of the game: nothing to think about.
            return Ok(());
        }
        let mut moves = request.moves.to_vec();
        moves.push(mv);
        let position = uci::position_command(
            request.start,
            &moves,
            CastlingNotation::chess960_if(self.chess960),
        );
        let go = uci::go_command(request);
        let go = go.strip_prefix("go").unwrap_or(&go);
        self.process.send(&format!("{position}\ngo ponder{go}"))?;
        self.pondering = Some((request.start.clone(), moves));
        Ok(())
    }

    fn stop_pondering(&mut self) {
        self.predicted = None;
        if self.pondering.take().is_none() {
            return;
        }
        let deadline = Instant::now() + self.timeout;
        let stopped = self
            .process
            .send("stop")
            .and_then(|()| uci::read_reply(&mut self.process, &[], deadline));
        if stopped.is_err() {
            self.broken = true;
        }
    }

    fn needs_restart(&self) -> bool {
        self.broken
    }
}

impl UciPlayer {
    /// The engine's move for `request`, its score as the engine reported it.
    fn go_unflipped(&mut self, request: &GoRequest<'_>) -> Result<EngineReply, PlayerError> {
        let deadline = Instant::now() + request.deadline;
        self.predicted = None;
        if let Some((start, moves)) = self.pondering.take() {
            if &start == request.start && moves == request.moves {
                // A ponder hit: the search goes on, now on the engine's own time.
                self.process.send("ponderhit")?;
                let reply = uci::read_reply(&mut self.process, &self.keep, deadline);
                return self.keep_prediction(reply);
            }
            // A miss: the ponder search's move is read and discarded before the real `go`
            // (all within this move's deadline, so an engine ignoring `stop` loses on time).
            self.process.send("stop")?;
            uci::read_reply(&mut self.process, &[], deadline)?;
        }
        let reply = uci::go(
            &mut self.process,
            request,
            self.chess960,
            &self.keep,
            deadline,
        );
        self.keep_prediction(reply)
    }

    /// Notes the engine's predicted reply (for `ponder`) and gives its move.
    fn keep_prediction(
        &mut self,
        reply: Result<(EngineReply, Option<String>), PlayerError>,
    ) -> Result<EngineReply, PlayerError> {
        let (reply, predicted) = reply?;
        self.predicted = predicted;
        Ok(reply)
    }
}

impl Drop for UciPlayer {
    /// Asks the engine to quit and gives it a moment; then its whole group is killed and reaped.
    fn drop(&mut self) {
        self.process.close("quit", self.settings.scaled(QUIT_GRACE));
    }
}
