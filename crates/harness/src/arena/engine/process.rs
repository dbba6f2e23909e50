//! An engine as a child process, whatever protocol it speaks: spawning it in a process group
//! of its own, a line-oriented channel with deadlines over its pipes, its standard error
//! copied to the engine log, and killing and reaping the whole group when it is done with.

use super::lines::{for_each_line, Line, LineReader, ReadError, MAX_LINE_BYTES};
use crate::arena::engine::log::LogSink;
use crate::arena::engine::player::PlayerError;
use std::io::Write;
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The process groups of the engines alive in this process, so a signal handler can end them
/// all (see `kill_all_engine_groups`). Zero marks a free slot; more engines than slots are
/// still killed when dropped, just not by the handler.
#[cfg(unix)]
static ENGINE_GROUPS: [AtomicI32; 256] = [const { AtomicI32::new(0) }; 256];

#[cfg(unix)]
fn register_group(pgid: i32) {
    for slot in &ENGINE_GROUPS {
        if slot
            .compare_exchange(0, pgid, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            return;
        }
    }
}

#[cfg(unix)]
fn unregister_group(pgid: i32) {
    for slot in &ENGINE_GROUPS {
        if slot
            .compare_exchange(pgid, 0, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            return;
        }
    }
}

/// Set once the program is ending: no engine starts any more.
static SHUTTING_DOWN: AtomicBool = AtomicBool::new(false);
/// Engines between "decided to spawn" and "registered": the signal handler waits for them.
static STARTING: AtomicUsize = AtomicUsize::new(0);

/// Kills the process group of every engine still running, and keeps new ones from starting.
/// Async-signal-safe (atomics, `nanosleep`, `killpg`): meant for a SIGINT/SIGTERM handler of the
/// program, which exits right after.
pub fn kill_all_engine_groups() {
    SHUTTING_DOWN.store(true, Ordering::SeqCst);
    // An engine being spawned right now is registered within moments: wait for it (bounded, in
    // case the signal interrupted the very thread that spawns).
    #[cfg(unix)]
    for _ in 0..200 {
        if STARTING.load(Ordering::SeqCst) == 0 {
            break;
        }
        let pause = libc::timespec {
            tv_sec: 0,
            tv_nsec: 10_000_000,
        };
        // SAFETY: nanosleep is async-signal-safe; both pointers are valid or null.
        unsafe {
            libc::nanosleep(&pause, std::ptr::null_mut());
        }
    }
    #[cfg(unix)]
    for slot in &ENGINE_GROUPS {
        let pgid = slot.load(Ordering::SeqCst);
        if pgid > 0 {
            // SAFETY: killpg is async-signal-safe; the group is an engine not yet reaped.
            unsafe {
                libc::killpg(pgid, libc::SIGKILL);
            }
        }
    }
}

/// A running engine process and its line channel. On Unix it leads its own process group, so
/// the whole group (a wrapper script and what it started) is killed with it. Dropping it kills
/// the group at once; `close` first says goodbye and gives the engine a moment.
pub(crate) struct EngineProcess {
    command: String,
    child: Child,
    /// Whether the child has been waited for (its pid may then name another process).
    reaped: bool,
    stdin: ChildStdin,
    lines: LineReader<ChildStdout>,
    /// The engine log; None (the usual case) costs one branch per line.
    log: Option<LogSink>,
}

impl EngineProcess {
    /// Starts `command` with `args` in `working_dir` (default: the runner's), its standard
    /// error appended to `stderr_file` when given (cutechess's `stderr`), else copied to `log`
    /// when given, else discarded.
    pub(super) fn spawn(
        command: &str,
        args: &[String],
        working_dir: Option<&Path>,
        log: Option<LogSink>,
        stderr_file: Option<&Path>,
    ) -> Result<EngineProcess, PlayerError> {
        let spawn_error = |reason: String| PlayerError::Spawn {
            command: command.to_string(),
            reason,
        };
        let stderr = match stderr_file {
            // Appended, and opened afresh by each process: engines running side by side keep
            // each other's lines.
            Some(path) => std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map(Stdio::from)
                .map_err(|e| {
                    spawn_error(format!(
                        "cannot open its stderr file {}: {e}",
                        path.display()
                    ))
                })?,
            None if log.is_some() => Stdio::piped(),
            None => Stdio::null(),
        };
        let mut builder = Command::new(command);
        builder
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr);
        if let Some(dir) = working_dir {
            builder.current_dir(dir);
        }
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            // Its own group: killing the group at the end also ends what the engine started,
            // and a Ctrl-C at the terminal reaches the runner, which then ends the engines.
            builder.process_group(0);
        }
        STARTING.fetch_add(1, Ordering::SeqCst);
        if SHUTTING_DOWN.load(Ordering::SeqCst) {
            STARTING.fetch_sub(1, Ordering::SeqCst);
            return Err(spawn_error("the program is ending".to_string()));
        }
        let spawned = builder.spawn();
        #[cfg(unix)]
        if let Ok(child) = &spawned {
            if let Ok(pgid) = i32::try_from(child.id()) {
                register_group(pgid);
            }
        }
        STARTING.fetch_sub(1, Ordering::SeqCst);
        let mut child = spawned.map_err(|e| spawn_error(e.to_string()))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(spawn_error("its pipes could not be opened".to_string()));
        };
        if let (Some(stderr), Some(sink)) = (child.stderr.take(), &log) {
            // Ends when the pipe closes: when the engine (and its process group) is gone.
            // Capped lines: a flood of text with no line break costs no memory.
            let sink = sink.clone();
            std::thread::spawn(move || {
                for_each_line(stderr, MAX_LINE_BYTES, |line| {
                    sink.stderr(&line.text);
                    note_cut(&sink, &line);
                    true
                })
            });
        }
        Ok(EngineProcess {
            command: command.to_string(),
            child,
            reaped: false,
            stdin,
            lines: LineReader::new(stdout, MAX_LINE_BYTES),
            log,
        })
    }

    /// Lines from now on belong to game `game_id` in the engine log.
    pub(crate) fn set_log_game(&self, game_id: u64) {
        if let Some(log) = &self.log {
            log.set_game(game_id);
        }
    }

    /// The command it was started with.
    pub(super) fn command(&self) -> &str {
        &self.command
    }

    /// Sends one or more lines (separated by newlines) in a single write.
    pub(super) fn send(&mut self, text: &str) -> Result<(), PlayerError> {
        if let Some(log) = &self.log {
            log.sent(text);
        }
        let mut bytes = Vec::with_capacity(text.len() + 1);
        bytes.extend_from_slice(text.as_bytes());
        bytes.push(b'\n');
        self.stdin
            .write_all(&bytes)
            .and_then(|_| self.stdin.flush())
            .map_err(|_| self.disconnected())
    }

    /// The next line the engine writes, waiting until `deadline`. Only the first
    /// `MAX_LINE_BYTES` of a longer line are kept (the engine log notes the cut).
    pub(crate) fn recv_until(&mut self, deadline: Instant) -> Result<String, PlayerError> {
        let asked = Instant::now();
        match self.lines.read_line(deadline) {
            Ok(line) => {
                if let Some(log) = &self.log {
                    log.received(&line.text);
                    note_cut(log, &line);
                }
                Ok(line.text)
            }
            Err(ReadError::Timeout) => Err(PlayerError::Timeout {
                waited_ms: deadline.saturating_duration_since(asked).as_millis(),
            }),
            Err(ReadError::Closed) => Err(self.disconnected()),
        }
    }

    /// The error for an engine that went away: waits a moment for its exit status (reported
    /// when there is one), then ends whatever is left of its group.
    pub(crate) fn disconnected(&mut self) -> PlayerError {
        let mut exited = false;
        for _ in 0..20 {
            if self.has_exited() {
                exited = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let status = self.kill_group();
        let detail = match status {
            Some(s) if exited => format!(" ({s})"),
            _ => String::new(),
        };
        PlayerError::Disconnected { detail }
    }

    /// Whether the engine process has exited, without reaping it (so its process group id
    /// cannot be reused before the group is killed).
    fn has_exited(&mut self) -> bool {
        if self.reaped {
            return true;
        }
        #[cfg(unix)]
        {
            let pid = libc::id_t::from(self.child.id());
            // SAFETY: a zeroed siginfo_t is a valid out-parameter for waitid.
            let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
            // SAFETY: waitid on our own child with WNOWAIT leaves it waitable.
            let rc = unsafe {
                libc::waitid(
                    libc::P_PID,
                    pid,
                    &mut info,
                    libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
                )
            };
            // SAFETY: si_pid is set by waitid (zero when no child has changed state).
            rc == 0 && unsafe { info.si_pid() } != 0
        }
        #[cfg(not(unix))]
        {
            matches!(self.child.try_wait(), Ok(Some(_)))
        }
    }

    /// Kills the engine's whole process group and reaps the engine; its exit status.
    fn kill_group(&mut self) -> Option<std::process::ExitStatus> {
        if self.reaped {
            return None;
        }
        #[cfg(unix)]
        if let Ok(pgid) = libc::pid_t::try_from(self.child.id()) {
            // SAFETY: the engine leads group `pgid` and is not reaped yet, so the id is still
            // ours; SIGKILL to a group has no memory-safety preconditions.
            unsafe {
                libc::killpg(pgid, libc::SIGKILL);
            }
            unregister_group(pgid);
        }
        #[cfg(not(unix))]
        let _ = self.child.kill();
        self.reaped = true;
        self.child.wait().ok()
    }

    /// Sends `farewell` (the protocol's `quit`), gives the engine up to `grace` to exit, then
    /// kills its whole group (the engine if still running, and anything it started) and reaps it.
    pub(super) fn close(&mut self, farewell: &str, grace: Duration) {
        if self.reaped {
            return;
        }
        let _ = writeln!(self.stdin, "{farewell}").and_then(|_| self.stdin.flush());
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline && !self.has_exited() {
            std::thread::sleep(Duration::from_millis(5));
        }
        self.kill_group();
    }
}

/// Notes in the engine log that a line was cut to `MAX_LINE_BYTES`.
fn note_cut(log: &LogSink, line: &Line) {
    if line.dropped > 0 {
        log.note(&format!(
            "the line above was cut to {} bytes: {} more discarded",
            line.text.len(),
            line.dropped
        ));
    }
}

impl Drop for EngineProcess {
    /// Kills the whole group and reaps the engine: no process outlives its handle.
    fn drop(&mut self) {
        self.kill_group();
    }
}
