//! An external UCI engine as a child process. A reader thread forwards its output lines so every
//! wait has a timeout; a crash, a hang or garbage is reported as a `PlayerError`, never a panic.

use super::engine_log::LogSink;
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
    /// The engine log; None (the usual case) costs one branch per line.
    log: Option<LogSink>,
    /// The options the engine declared, with their current values.
    declared: Vec<DeclaredOption>,
    /// Configured options it did not declare (sent anyway: some engines have hidden ones).
    undeclared: Vec<String>,
    /// `UCI_Chess960` is on: positions and moves are sent in Chess960 notation.
    chess960: bool,
}

/// An option an engine declared with `option name N type T ...`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeclaredOption {
    /// Its name (may hold spaces).
    pub name: String,
    /// `check`, `spin`, `combo`, `button` or `string`.
    pub kind: String,
    /// Its current value: the declared default, or the value sent.
    pub value: Option<String>,
    /// A spin's bounds.
    pub min: Option<i64>,
    /// A spin's upper bound.
    pub max: Option<i64>,
    /// A combo's values.
    pub vars: Vec<String>,
}

impl DeclaredOption {
    /// Reads the part of an `option` line after `option `; None when it names no option.
    pub fn parse(line: &str) -> Option<DeclaredOption> {
        const KEYWORDS: [&str; 6] = ["name", "type", "default", "min", "max", "var"];
        let mut option = DeclaredOption::default();
        let mut key: Option<&str> = None;
        let mut words: Vec<&str> = Vec::new();
        let tokens = line.split_whitespace().skip(1);
        let finish = |key: Option<&str>, words: &mut Vec<&str>, option: &mut DeclaredOption| {
            let text = words.join(" ");
            words.clear();
            match key {
                Some("name") => option.name = text,
                Some("type") => option.kind = text,
                Some("default") => option.value = Some(text),
                Some("min") => option.min = text.parse().ok(),
                Some("max") => option.max = text.parse().ok(),
                Some("var") if !text.is_empty() => option.vars.push(text),
                _ => {}
            }
        };
        for token in tokens {
            // A keyword ends the previous field; inside a name only `type` does.
            let is_keyword = KEYWORDS.contains(&token) && (key != Some("name") || token == "type");
            if is_keyword {
                finish(key, &mut words, &mut option);
                key = Some(token);
            } else {
                words.push(token);
            }
        }
        finish(key, &mut words, &mut option);
        (!option.name.is_empty()).then_some(option)
    }

    /// Refuses a value the declaration does not allow.
    pub fn check_value(&self, value: &str) -> Result<(), PlayerError> {
        let refuse = |allowed: String| PlayerError::OptionValue {
            name: self.name.clone(),
            value: value.to_string(),
            allowed,
        };
        match self.kind.as_str() {
            "spin" => {
                let (min, max) = (self.min.unwrap_or(i64::MIN), self.max.unwrap_or(i64::MAX));
                match value.trim().parse::<i64>() {
                    Ok(v) if (min..=max).contains(&v) => Ok(()),
                    _ => Err(refuse(format!("a spin from {min} to {max}"))),
                }
            }
            "combo" if !self.vars.is_empty() => {
                if self
                    .vars
                    .iter()
                    .any(|v| v.eq_ignore_ascii_case(value.trim()))
                {
                    Ok(())
                } else {
                    Err(refuse(format!("a combo of {}", self.vars.join(", "))))
                }
            }
            "check" => match value.trim() {
                "true" | "false" => Ok(()),
                _ => Err(refuse("a check: true or false".to_string())),
            },
            _ => Ok(()),
        }
    }
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
        let mut command = Command::new(&spec.command);
        command
            .args(&spec.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(if log.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            });
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
        if let (Some(stderr), Some(sink)) = (child.stderr.take(), &log) {
            // Ends when the pipe closes: when the engine (and its process group) is gone.
            let sink = sink.clone();
            std::thread::spawn(move || {
                use std::io::BufRead;
                for line in std::io::BufReader::new(stderr).lines() {
                    let Ok(line) = line else { break };
                    sink.stderr(&line);
                }
            });
        }
        let lines = LineReader::new(stdout);
        let mut player = UciPlayer {
            spec: spec.clone(),
            child,
            reaped: false,
            stdin,
            lines,
            id_name: spec.command.clone(),
            timeout,
            log,
            declared: Vec::new(),
            undeclared: Vec::new(),
            chess960: false,
        };
        player.send("uci")?;
        let deadline = Instant::now() + timeout;
        loop {
            let line = player
                .recv_until(deadline)
                .map_err(|e| player.handshake_error(e, "uciok"))?;
            let line = line.trim();
            if let Some(name) = line.strip_prefix("id name ") {
                player.id_name = name.trim().to_string();
            } else if line.starts_with("option ") {
                player.declared.extend(DeclaredOption::parse(line));
            } else if line == "uciok" {
                break;
            }
        }
        for (name, value) in &spec.options {
            match player.declared_mut(name) {
                Some(declared) => {
                    declared.check_value(value)?;
                    declared.value = Some(value.clone());
                }
                None => player.undeclared.push(name.clone()),
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

    /// The options the engine declared in its handshake, with their current values.
    pub fn declared_options(&self) -> &[DeclaredOption] {
        &self.declared
    }

    fn declared_mut(&mut self, name: &str) -> Option<&mut DeclaredOption> {
        self.declared
            .iter_mut()
            .find(|o| o.name.eq_ignore_ascii_case(name.trim()))
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
            Ok(line) => {
                if let Some(log) = &self.log {
                    log.received(&line);
                }
                Ok(line)
            }
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

    /// The `position` command. In Chess960 the start is always a FEN (X-FEN) and castling is
    /// king takes own rook, as `UCI_Chess960` asks; in standard chess it is the king's step.
    pub(crate) fn position_command(
        start: &Position,
        moves: &[crate::board::Move],
        chess960: bool,
    ) -> String {
        let fen = start.to_fen();
        let mut text = if fen == Position::START_FEN && !chess960 {
            "position startpos".to_string()
        } else {
            format!("position fen {fen}")
        };
        if !moves.is_empty() {
            text.push_str(" moves");
            if chess960 || start.has_chess960_castling() {
                // Castling text depends on the castling rook: replay the moves.
                let mut pos = start.clone();
                for &mv in moves {
                    text.push(' ');
                    text.push_str(&pos.uci(mv, chess960));
                    pos.make_move(mv);
                }
            } else {
                for mv in moves {
                    text.push(' ');
                    text.push_str(&mv.to_string());
                }
            }
        }
        text
    }

    pub(crate) fn go_command(request: &GoRequest<'_>) -> String {
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
        if let Some(log) = &self.log {
            log.set_game(game_id);
        }
    }

    fn new_game(&mut self) -> Result<(), PlayerError> {
        self.send("ucinewgame")?;
        self.wait_ready()
    }

    fn enable_chess960(&mut self) -> Result<(), PlayerError> {
        let Some(option) = self.declared_mut("UCI_Chess960") else {
            return Err(PlayerError::NoChess960 {
                command: self.spec.command.clone(),
            });
        };
        option.value = Some("true".to_string());
        self.send("setoption name UCI_Chess960 value true")?;
        self.chess960 = true;
        self.wait_ready()
    }

    fn go(&mut self, request: &GoRequest<'_>) -> Result<EngineReply, PlayerError> {
        // `isready` between position and go: whatever comes before its `readyok` (a second
        // `bestmove` for the previous go, late info lines) is stale and discarded, so it can
        // never be taken as the answer to this go.
        let commands = format!(
            "{}\nisready\n{}",
            UciPlayer::position_command(request.start, request.moves, self.chess960),
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
    fn option_lines_are_read_and_values_checked() {
        let hash =
            DeclaredOption::parse("option name Hash type spin default 16 min 1 max 1024").unwrap();
        assert_eq!(
            (hash.name.as_str(), hash.kind.as_str(), hash.min, hash.max),
            ("Hash", "spin", Some(1), Some(1024))
        );
        assert_eq!(hash.value.as_deref(), Some("16"));
        assert!(hash.check_value("1024").is_ok());
        let err = hash.check_value("2048").unwrap_err().to_string();
        assert_eq!(
            err,
            "option `Hash` = `2048`: the engine declares a spin from 1 to 1024"
        );
        assert!(hash.check_value("lots").is_err());
        let style = DeclaredOption::parse(
            "option name Play Style type combo default Normal var Solid var Normal var Risky",
        )
        .unwrap();
        assert_eq!(style.name, "Play Style");
        assert_eq!(style.vars, ["Solid", "Normal", "Risky"]);
        assert!(style.check_value("risky").is_ok());
        assert!(style
            .check_value("Wild")
            .unwrap_err()
            .to_string()
            .contains("a combo of Solid, Normal, Risky"));
        let check = DeclaredOption::parse("option name Ponder type check default false").unwrap();
        assert!(check.check_value("true").is_ok());
        assert!(check.check_value("yes").is_err());
        let path =
            DeclaredOption::parse("option name SyzygyPath type string default <empty>").unwrap();
        assert_eq!(path.value.as_deref(), Some("<empty>"));
        assert!(path.check_value("anything at all").is_ok());
        assert!(DeclaredOption::parse("option type spin").is_none());
    }

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
