//! An external UCI engine as an arena `Player`: an engine process speaking UCI. Every wait has
//! a deadline; a crash, a hang or garbage is reported as a `PlayerError`, never a panic.

use super::process::EngineProcess;
use super::uci::{self, check_options, DeclaredOption};
use crate::arena::engine_log::LogSink;
use crate::arena::player::{EngineReply, GoRequest, Player, PlayerError};
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
    /// Configured options it did not declare (sent anyway: some engines have hidden ones).
    undeclared: Vec<String>,
    /// `UCI_Chess960` is on: positions and moves are sent in Chess960 notation.
    chess960: bool,
    /// The `match_line` patterns whose last matching line each reply keeps.
    keep: Arc<[Regex]>,
}

impl UciPlayer {
    /// Starts the engine and completes the handshake (`uci`/`uciok`, options, `isready`/`readyok`).
    pub fn start(spec: &UciCommand, timeout: Duration) -> Result<UciPlayer, PlayerError> {
        UciPlayer::start_logged(spec, timeout, None)
    }

    /// As `start`, writing what is sent and received, and the engine's standard error, to the
    /// engine log when `log` is given. A configured option value the engine's declaration does
    /// not allow is refused before any option is sent.
    pub fn start_logged(
        spec: &UciCommand,
        timeout: Duration,
        log: Option<LogSink>,
    ) -> Result<UciPlayer, PlayerError> {
        check_options(&spec.options)?;
        let mut process =
            EngineProcess::spawn(&spec.command, &spec.args, spec.working_dir.as_deref(), log)?;
        let found = uci::handshake(&mut process, Instant::now() + timeout)
            .map_err(|e| handshake_error(&spec.command, timeout, e, "uciok"))?;
        let mut player = UciPlayer {
            process,
            id_name: found.id_name.unwrap_or_else(|| spec.command.clone()),
            timeout,
            declared: found.declared,
            undeclared: Vec::new(),
            chess960: false,
            keep: Arc::from(Vec::new()),
        };
        for (name, value) in &spec.options {
            match player.declared_mut(name) {
                Some(declared) => {
                    declared.check_value(value)?;
                    declared.value = Some(value.clone());
                }
                None => player.undeclared.push(name.clone()),
            }
        }
        for (name, value) in &spec.options {
            player
                .process
                .send(&format!("setoption name {name} value {value}"))?;
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

    fn set_log_game(&mut self, game_id: u64) {
        self.process.set_log_game(game_id);
    }

    fn new_game(&mut self) -> Result<(), PlayerError> {
        self.process.send("ucinewgame")?;
        self.ready()
    }

    fn enable_chess960(&mut self) -> Result<(), PlayerError> {
        let Some(option) = self.declared_mut("UCI_Chess960") else {
            return Err(PlayerError::NoChess960 {
                command: self.process.command().to_string(),
            });
        };
        option.value = Some("true".to_string());
        self.process
            .send("setoption name UCI_Chess960 value true")?;
        self.chess960 = true;
        self.ready()
    }

    fn go(&mut self, request: &GoRequest<'_>) -> Result<EngineReply, PlayerError> {
        uci::go(&mut self.process, request, self.chess960, &self.keep)
    }

    fn keep_lines(&mut self, patterns: Arc<[Regex]>) {
        self.keep = patterns;
    }
}

impl Drop for UciPlayer {
    /// Asks the engine to quit and gives it a moment; then its whole group is killed and reaped.
    fn drop(&mut self) {
        self.process.close("quit", QUIT_GRACE);
    }
}
