//! An external UCI engine as a child process. A reader thread forwards its output lines so every
//! wait has a timeout; a crash, a hang or garbage is reported as a `PlayerError`, never a panic.

use super::player::{EngineReply, GoRequest, Player, PlayerError};
use crate::board::Position;
use crate::score::Score;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// Why no line came.
enum ReadError {
    Timeout,
    Closed,
}

/// Reads the engine's output lines with a deadline. On Unix it waits on the pipe itself with
/// `poll`, which saves a thread hop per line (measured: the runner's overhead per ply nearly
/// halves against a trivial engine); elsewhere a reader thread feeds a channel.
#[cfg(unix)]
struct LineReader {
    stdout: ChildStdout,
    buf: Vec<u8>,
    start: usize,
    eof: bool,
}

#[cfg(unix)]
impl LineReader {
    fn new(stdout: ChildStdout) -> LineReader {
        LineReader {
            stdout,
            buf: Vec::with_capacity(8192),
            start: 0,
            eof: false,
        }
    }

    fn read_line(&mut self, deadline: Instant) -> Result<String, ReadError> {
        use std::io::Read;
        use std::os::unix::io::AsRawFd;
        loop {
            if let Some(i) = self.buf[self.start..].iter().position(|&b| b == b'\n') {
                let line = &self.buf[self.start..self.start + i];
                let line = line.strip_suffix(b"\r").unwrap_or(line);
                let text = String::from_utf8_lossy(line).into_owned();
                self.start += i + 1;
                if self.start > 4096 {
                    self.buf.drain(..self.start);
                    self.start = 0;
                }
                return Ok(text);
            }
            if self.eof {
                return Err(ReadError::Closed);
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(ReadError::Timeout);
            }
            let wait_ms = (deadline - now).as_millis().clamp(1, i32::MAX as u128) as i32;
            let mut fd = libc::pollfd {
                fd: self.stdout.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd for the duration of the call.
            let ready = unsafe { libc::poll(&mut fd, 1, wait_ms) };
            if ready < 0 {
                if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(ReadError::Closed);
            }
            if ready == 0 {
                continue;
            }
            let mut chunk = [0u8; 4096];
            match self.stdout.read(&mut chunk) {
                Ok(0) => self.eof = true,
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => self.eof = true,
            }
        }
    }
}

#[cfg(not(unix))]
struct LineReader {
    lines: std::sync::mpsc::Receiver<String>,
}

#[cfg(not(unix))]
impl LineReader {
    fn new(stdout: ChildStdout) -> LineReader {
        use std::io::{BufRead, BufReader};
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        LineReader { lines }
    }

    fn read_line(&mut self, deadline: Instant) -> Result<String, ReadError> {
        let wait = deadline.saturating_duration_since(Instant::now());
        self.lines.recv_timeout(wait).map_err(|e| match e {
            std::sync::mpsc::RecvTimeoutError::Timeout => ReadError::Timeout,
            std::sync::mpsc::RecvTimeoutError::Disconnected => ReadError::Closed,
        })
    }
}

/// The process groups of the engines alive in this process, so a signal handler can end them
/// all (see `kill_all_engine_groups`). Zero marks a free slot; more engines than slots are
/// still killed when dropped, just not by the handler.
#[cfg(unix)]
static ENGINE_GROUPS: [std::sync::atomic::AtomicI32; 256] =
    [const { std::sync::atomic::AtomicI32::new(0) }; 256];

#[cfg(unix)]
fn register_group(pgid: i32) {
    use std::sync::atomic::Ordering;
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
    use std::sync::atomic::Ordering;
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
static SHUTTING_DOWN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
/// Engines between "decided to spawn" and "registered": the signal handler waits for them.
static STARTING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Kills the process group of every engine still running, and keeps new ones from starting.
/// Async-signal-safe (atomics, `nanosleep`, `killpg`): meant for a SIGINT/SIGTERM handler of the
/// program, which exits right after.
pub fn kill_all_engine_groups() {
    use std::sync::atomic::Ordering;
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
        let pgid = slot.load(std::sync::atomic::Ordering::SeqCst);
        if pgid > 0 {
            // SAFETY: killpg is async-signal-safe; the group is an engine not yet reaped.
            unsafe {
                libc::killpg(pgid, libc::SIGKILL);
            }
        }
    }
}

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

/// A running engine process. On Unix it leads its own process group, so the whole group (a
/// wrapper script and what it started) is killed with it.
pub struct UciPlayer {
    spec: UciCommand,
    child: Child,
    /// Whether the child has been waited for (its pid may then name another process).
    reaped: bool,
    stdin: ChildStdin,
    lines: LineReader,
    id_name: String,
    timeout: Duration,
}

impl UciPlayer {
    /// Starts the engine and completes the handshake (`uci`/`uciok`, options, `isready`/`readyok`).
    pub fn start(spec: &UciCommand, timeout: Duration) -> Result<UciPlayer, PlayerError> {
        check_options(&spec.options)?;
        let mut command = Command::new(&spec.command);
        command
            .args(&spec.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if let Some(dir) = &spec.working_dir {
            command.current_dir(dir);
        }
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            // Its own group: killing the group at the end also ends what the engine started,
            // and a Ctrl-C at the terminal reaches the runner, which then ends the engines.
            command.process_group(0);
        }
        use std::sync::atomic::Ordering;
        STARTING.fetch_add(1, Ordering::SeqCst);
        if SHUTTING_DOWN.load(Ordering::SeqCst) {
            STARTING.fetch_sub(1, Ordering::SeqCst);
            return Err(PlayerError::Spawn {
                command: spec.command.clone(),
                reason: "the program is ending".to_string(),
            });
        }
        let spawned = command.spawn();
        #[cfg(unix)]
        if let Ok(child) = &spawned {
            if let Ok(pgid) = i32::try_from(child.id()) {
                register_group(pgid);
            }
        }
        STARTING.fetch_sub(1, Ordering::SeqCst);
        let mut child = spawned.map_err(|e| PlayerError::Spawn {
            command: spec.command.clone(),
            reason: e.to_string(),
        })?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let lines = LineReader::new(stdout);
        let mut player = UciPlayer {
            spec: spec.clone(),
            child,
            reaped: false,
            stdin,
            lines,
            id_name: spec.command.clone(),
            timeout,
        };
        player.send("uci")?;
        let deadline = Instant::now() + timeout;
        loop {
            let line = player
                .recv_until(deadline)
                .map_err(|e| player.handshake_error(e, "uciok"))?;
            if let Some(name) = line.strip_prefix("id name ") {
                player.id_name = name.trim().to_string();
            } else if line.trim() == "uciok" {
                break;
            }
        }
        for (name, value) in spec.options.clone() {
            player.send(&format!("setoption name {name} value {value}"))?;
        }
        player
            .wait_ready()
            .map_err(|e| player.handshake_error(e, "readyok"))?;
        Ok(player)
    }

    fn handshake_error(&mut self, error: PlayerError, expected: &str) -> PlayerError {
        match error {
            // The whole handshake step had `timeout`, not just the last read.
            PlayerError::Timeout { .. } => PlayerError::Handshake {
                command: self.spec.command.clone(),
                expected: expected.to_string(),
                waited_ms: self.timeout.as_millis(),
            },
            PlayerError::Disconnected { detail } => PlayerError::Spawn {
                command: self.spec.command.clone(),
                reason: format!("it exited during the handshake{detail}"),
            },
            other => other,
        }
    }

    /// Sends one or more commands (separated by newlines) in a single write.
    fn send(&mut self, text: &str) -> Result<(), PlayerError> {
        let mut bytes = Vec::with_capacity(text.len() + 1);
        bytes.extend_from_slice(text.as_bytes());
        bytes.push(b'\n');
        self.stdin
            .write_all(&bytes)
            .and_then(|_| self.stdin.flush())
            .map_err(|_| self.disconnected())
    }

    fn disconnected(&mut self) -> PlayerError {
        // Give a dying process a moment to exit so its exit status can be reported; then end
        // whatever is left of its group.
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

    fn recv_until(&mut self, deadline: Instant) -> Result<String, PlayerError> {
        let asked = Instant::now();
        match self.lines.read_line(deadline) {
            Ok(line) => Ok(line),
            Err(ReadError::Timeout) => Err(PlayerError::Timeout {
                waited_ms: deadline.saturating_duration_since(asked).as_millis(),
            }),
            Err(ReadError::Closed) => Err(self.disconnected()),
        }
    }

    fn wait_ready(&mut self) -> Result<(), PlayerError> {
        self.send("isready")?;
        let deadline = Instant::now() + self.timeout;
        loop {
            if self.recv_until(deadline)?.trim() == "readyok" {
                return Ok(());
            }
        }
    }

    fn position_command(start: &Position, moves: &[crate::board::Move]) -> String {
        let mut text = if start.to_fen() == Position::START_FEN {
            "position startpos".to_string()
        } else {
            format!("position fen {}", start.to_fen())
        };
        if !moves.is_empty() {
            text.push_str(" moves");
            for mv in moves {
                text.push(' ');
                text.push_str(&mv.to_string());
            }
        }
        text
    }

    fn go_command(request: &GoRequest<'_>) -> String {
        let limits = request.limits;
        let mut text = "go".to_string();
        if let Some(n) = limits.nodes {
            text.push_str(&format!(" nodes {n}"));
        }
        if let Some(d) = limits.depth {
            text.push_str(&format!(" depth {d}"));
        }
        if let Some(t) = limits.movetime {
            text.push_str(&format!(" movetime {}", t.as_millis()));
        }
        if let Some(c) = &limits.clock {
            text.push_str(&format!(
                " wtime {} btime {} winc {} binc {}",
                c.white_time.as_millis(),
                c.black_time.as_millis(),
                c.white_increment.as_millis(),
                c.black_increment.as_millis()
            ));
            if let Some(m) = c.moves_to_go {
                text.push_str(&format!(" movestogo {m}"));
            }
        }
        text
    }
}

/// Reads `score`, `depth` and `nodes` from an `info` line into the reply.
fn parse_info(line: &str, reply: &mut EngineReply) {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    // Bound scores and lines about other PV lines describe no final evaluation.
    if tokens
        .iter()
        .any(|&t| t == "lowerbound" || t == "upperbound" || t == "string")
    {
        return;
    }
    if let Some(i) = tokens.iter().position(|&t| t == "multipv") {
        if tokens.get(i + 1) != Some(&"1") {
            return;
        }
    }
    let mut i = 1;
    while i < tokens.len() {
        match tokens[i] {
            "depth" => {
                reply.depth = tokens
                    .get(i + 1)
                    .and_then(|t| t.parse().ok())
                    .or(reply.depth);
                i += 1;
            }
            "nodes" => {
                reply.nodes = tokens
                    .get(i + 1)
                    .and_then(|t| t.parse().ok())
                    .or(reply.nodes);
                i += 1;
            }
            "score" => {
                let kind = tokens.get(i + 1).copied();
                let value = tokens.get(i + 2).and_then(|t| t.parse::<i32>().ok());
                if let Some(v) = value {
                    match kind {
                        Some("cp") => reply.score = Some(Score::Cp(v)),
                        Some("mate") => reply.score = Some(Score::Mate(v)),
                        _ => {}
                    }
                }
                i += 2;
            }
            "pv" => break,
            _ => {}
        }
        i += 1;
    }
}

impl Player for UciPlayer {
    fn id_name(&self) -> &str {
        &self.id_name
    }

    fn new_game(&mut self) -> Result<(), PlayerError> {
        self.send("ucinewgame")?;
        self.wait_ready()
    }

    fn go(&mut self, request: &GoRequest<'_>) -> Result<EngineReply, PlayerError> {
        // `isready` between position and go: whatever comes before its `readyok` (a second
        // `bestmove` for the previous go, late info lines) is stale and discarded, so it can
        // never be taken as the answer to this go.
        let commands = format!(
            "{}\nisready\n{}",
            UciPlayer::position_command(request.start, request.moves),
            UciPlayer::go_command(request)
        );
        self.send(&commands)?;
        let deadline = Instant::now() + request.deadline;
        loop {
            if self.recv_until(deadline)?.trim() == "readyok" {
                break;
            }
        }
        let mut reply = EngineReply::default();
        loop {
            let line = self.recv_until(deadline)?;
            let trimmed = line.trim();
            if trimmed.starts_with("info ") {
                parse_info(trimmed, &mut reply);
            } else if let Some(rest) = trimmed.strip_prefix("bestmove") {
                reply.bestmove = rest.split_whitespace().next().unwrap_or("").to_string();
                return Ok(reply);
            }
        }
    }
}

/// Refuses option names and values that hold a line break: sent in a `setoption` line, the
/// rest would reach the engine as a command of its own.
pub fn check_options(options: &[(String, String)]) -> Result<(), PlayerError> {
    for (name, value) in options {
        for (what, text) in [("the name", name), ("the value", value)] {
            if text.contains(['\n', '\r']) {
                return Err(PlayerError::BadOption {
                    name: name.replace(['\n', '\r'], " "),
                    what,
                });
            }
        }
    }
    Ok(())
}

impl Drop for UciPlayer {
    /// Asks the engine to quit and gives it a second; then kills its whole process group (the
    /// engine if it is still running, and anything it started) and reaps it.
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit").and_then(|_| self.stdin.flush());
        let deadline = Instant::now() + Duration::from_secs(1);
        while Instant::now() < deadline && !self.has_exited() {
            std::thread::sleep(Duration::from_millis(5));
        }
        self.kill_group();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_lines_give_the_last_exact_score() {
        let mut reply = EngineReply::default();
        parse_info(
            "info depth 12 seldepth 17 multipv 1 score cp 31 nodes 12345 nps 1 pv e2e4 e7e5",
            &mut reply,
        );
        assert_eq!(reply.score, Some(Score::Cp(31)));
        assert_eq!(reply.depth, Some(12));
        assert_eq!(reply.nodes, Some(12345));
        parse_info(
            "info depth 13 score cp 50 lowerbound nodes 20000",
            &mut reply,
        );
        assert_eq!(reply.score, Some(Score::Cp(31)), "bound scores are ignored");
        parse_info("info depth 14 multipv 2 score cp -5", &mut reply);
        assert_eq!(
            reply.score,
            Some(Score::Cp(31)),
            "other PV lines are ignored"
        );
        parse_info("info depth 15 score mate -3 nodes 30000", &mut reply);
        assert_eq!(reply.score, Some(Score::Mate(-3)));
        parse_info("info string score cp 999", &mut reply);
        assert_eq!(reply.score, Some(Score::Mate(-3)));
    }
}
