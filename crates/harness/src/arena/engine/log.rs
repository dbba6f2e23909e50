//! The engine log (`output.engine_log`): every line sent to and received from each engine, and
//! what each engine writes to its standard error, one line each with a millisecond timestamp
//! (UTC), the game number and the engine's name:
//!
//! ```text
//! 21:52:35.123 game 3 stockfish > go nodes 5000
//! 21:52:35.130 game 3 stockfish < bestmove e2e4
//! 21:52:35.131 game 3 stockfish ! some text on stderr
//! ```
//! `>` is sent to the engine, `<` received from it, `!` its standard error, `#` a note of the
//! runner's (a line longer than 64 KiB is kept cut, with a note of how much was discarded:
//! see `engine::MAX_LINE_BYTES`). Game 0 is the check every engine goes through before the
//! games. Writing is best-effort: a failing disk does not stop the games, whose results are
//! written elsewhere.

use super::go_command;
use super::player::{EngineReply, GoRequest, Player, PlayerError};
use crate::score::Score;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

/// The open log file, shared by every engine of a run; or standard error in cutechess-cli's
/// `-debug` form (`1234 >engine1(0): go nodes 5000`: milliseconds since the run started, the
/// direction, the engine's name and the number of its process).
pub(crate) struct EngineLog {
    path: PathBuf,
    file: Mutex<File>,
    /// `-debug`: write to standard error in cutechess's words instead of `file`.
    debug: Option<std::time::Instant>,
    /// The number the next engine process gets (cutechess counts processes from 0).
    processes: AtomicU64,
}

impl std::fmt::Debug for EngineLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineLog")
            .field("path", &self.path)
            .finish()
    }
}

impl EngineLog {
    /// Opens `path` for appending (a resumed run adds to the log of the run it continues).
    pub(crate) fn open(path: &Path) -> std::io::Result<EngineLog> {
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        Ok(EngineLog {
            path: path.to_path_buf(),
            file: Mutex::new(file),
            debug: None,
            processes: AtomicU64::new(0),
        })
    }

    /// cutechess-cli's `-debug`: every engine's traffic on standard error, in its words
    /// (standard error lines of the engines are passed through as they are).
    pub(crate) fn debug_to_stderr() -> std::io::Result<EngineLog> {
        let mut log = EngineLog::open(Path::new("/dev/null"))?;
        log.path = PathBuf::from("standard error");
        log.debug = Some(std::time::Instant::now());
        Ok(log)
    }

    fn write(&self, game: u64, name: &str, process: u64, direction: char, line: &str) {
        if let Some(start) = self.debug {
            let text = match direction {
                '>' | '<' => format!(
                    "{} {direction}{name}({process}): {line}\n",
                    start.elapsed().as_millis()
                ),
                '!' => format!("{line}\n"),
                _ => return,
            };
            let _ = std::io::stderr().lock().write_all(text.as_bytes());
            return;
        }
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let secs = now.as_secs() % 86_400;
        let text = format!(
            "{:02}:{:02}:{:02}.{:03} game {game} {name} {direction} {line}\n",
            secs / 3600,
            secs / 60 % 60,
            secs % 60,
            now.subsec_millis()
        );
        // One write per line, so lines of engines on other threads never interleave.
        if let Ok(mut file) = self.file.lock() {
            let _ = file.write_all(text.as_bytes());
        }
    }
}

/// One engine process's view of the log: its name and the game it is playing.
#[derive(Clone)]
pub(crate) struct LogSink {
    log: Arc<EngineLog>,
    name: Arc<str>,
    game: Arc<AtomicU64>,
    /// The process's number, for the `-debug` lines.
    process: u64,
}

impl std::fmt::Debug for LogSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LogSink")
            .field("name", &self.name)
            .field("game", &self.game.load(Ordering::Relaxed))
            .finish()
    }
}

impl LogSink {
    /// Lines of engine `name` into `log`, at game 0 until told otherwise.
    pub(crate) fn new(log: Arc<EngineLog>, name: &str) -> LogSink {
        let process = log.processes.fetch_add(1, Ordering::Relaxed);
        LogSink {
            log,
            name: Arc::from(name),
            game: Arc::new(AtomicU64::new(0)),
            process,
        }
    }

    /// The same engine and log with a game number of its own (for another process).
    pub(crate) fn fresh(&self) -> LogSink {
        LogSink::new(self.log.clone(), &self.name)
    }

    /// Lines from now on belong to game `game_id`.
    pub(crate) fn set_game(&self, game_id: u64) {
        self.game.store(game_id, Ordering::Relaxed);
    }

    /// Logs text sent to the engine (one entry per line).
    pub(crate) fn sent(&self, text: &str) {
        let game = self.game.load(Ordering::Relaxed);
        for line in text.lines() {
            self.log.write(game, &self.name, self.process, '>', line);
        }
    }

    /// Logs a line received from the engine.
    pub(crate) fn received(&self, line: &str) {
        self.log.write(
            self.game.load(Ordering::Relaxed),
            &self.name,
            self.process,
            '<',
            line,
        );
    }

    /// Logs a line of the engine's standard error.
    pub(crate) fn stderr(&self, line: &str) {
        self.log.write(
            self.game.load(Ordering::Relaxed),
            &self.name,
            self.process,
            '!',
            line,
        );
    }

    /// Logs a note of the runner's about this engine in game `game_id` (a compliance warning,
    /// written after the game by the worker that played it).
    pub(crate) fn note_in_game(&self, game_id: u64, text: &str) {
        self.log.write(game_id, &self.name, self.process, '#', text);
    }

    /// Logs a note of the runner's about this engine's lines (not text the engine wrote).
    pub(crate) fn note(&self, text: &str) {
        self.log.write(
            self.game.load(Ordering::Relaxed),
            &self.name,
            self.process,
            '#',
            text,
        );
    }
}

/// An in-process player whose requests and answers go to the engine log in UCI words (`go`,
/// one `info` line, `bestmove`), so a log reads the same whichever kind of engine played.
/// Only built when a log is configured: without one the player is used bare.
pub(crate) struct LoggedPlayer {
    inner: Box<dyn Player>,
    log: LogSink,
}

impl LoggedPlayer {
    /// Wraps `inner`, logging under `log`.
    pub(crate) fn new(inner: Box<dyn Player>, log: LogSink) -> LoggedPlayer {
        LoggedPlayer { inner, log }
    }
}

impl Player for LoggedPlayer {
    fn id_name(&self) -> &str {
        self.inner.id_name()
    }

    fn keep_lines(&mut self, patterns: std::sync::Arc<[regex::Regex]>) {
        self.inner.keep_lines(patterns);
    }

    fn new_game(&mut self) -> Result<(), PlayerError> {
        self.log.sent("ucinewgame");
        self.inner.new_game()
    }

    fn go(&mut self, request: &GoRequest<'_>) -> Result<EngineReply, PlayerError> {
        self.log.sent(&go_command(request));
        let reply = self.inner.go(request);
        match &reply {
            Ok(r) => {
                let mut info = "info".to_string();
                if let Some(d) = r.depth {
                    info.push_str(&format!(" depth {d}"));
                }
                match r.score {
                    Some(Score::Cp(cp)) => info.push_str(&format!(" score cp {cp}")),
                    Some(Score::Mate(n)) => info.push_str(&format!(" score mate {n}")),
                    None => {}
                }
                if let Some(n) = r.nodes {
                    info.push_str(&format!(" nodes {n}"));
                }
                self.log.received(&info);
                self.log.received(&format!("bestmove {}", r.bestmove));
            }
            Err(e) => self.log.stderr(&format!("no answer: {e}")),
        }
        reply
    }

    fn option_value(&self, name: &str) -> Option<String> {
        self.inner.option_value(name)
    }

    fn undeclared_options(&self) -> Vec<String> {
        self.inner.undeclared_options()
    }

    fn refused_options(&self) -> Vec<crate::arena::engine::RefusedOption> {
        self.inner.refused_options()
    }

    fn set_log_game(&mut self, game_id: u64) {
        self.log.set_game(game_id);
        self.inner.set_log_game(game_id);
    }

    fn enable_chess960(&mut self) -> Result<(), PlayerError> {
        self.log.sent("setoption name UCI_Chess960 value true");
        self.inner.enable_chess960()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_carry_time_game_name_and_direction() {
        let dir = std::env::temp_dir().join(format!("sparring-log-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("engines.log");
        let _ = std::fs::remove_file(&path);
        let sink = LogSink::new(Arc::new(EngineLog::open(&path).unwrap()), "my engine");
        sink.sent("uci");
        sink.set_game(7);
        sink.sent("position startpos\ngo nodes 10");
        sink.received("bestmove e2e4");
        sink.stderr("oops");
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 5, "{text}");
        let tails: Vec<&str> = lines.iter().map(|l| &l[13..]).collect();
        assert_eq!(
            tails,
            [
                "game 0 my engine > uci",
                "game 7 my engine > position startpos",
                "game 7 my engine > go nodes 10",
                "game 7 my engine < bestmove e2e4",
                "game 7 my engine ! oops",
            ]
        );
        for line in lines {
            let stamp = &line[..12];
            assert!(
                stamp.as_bytes()[2] == b':' && stamp.as_bytes()[8] == b'.',
                "{line}"
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
