//! An engine in any language as a `TunableEval`: it is started (several processes, one per
//! tuner thread) and asked through the trace protocol (`texel::protocol`). Every traced position
//! is checked: the engine's coefficients times its declared weights plus its remainder, with its
//! declared finalisers applied, must give the `eval` it reports (within one centipawn, the
//! engine's rounding of the blend, plus one per finaliser group, whose division an engine may
//! truncate), else the run is refused naming the engine and the position.

use super::protocol::{parse_params, parse_trace_with, Declared};
use super::tunable::{Finaliser, LinearTrace, ParamSpec, TraceError, TunableEval};
use crate::board::Position;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long an engine may take to answer one line, unless its `EngineSpec` says otherwise.
pub(crate) const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);

/// The most characters of the engine's command line a message quotes (then `…`): a command
/// with an absolute path and a few flags fits whole, a runaway one does not flood the terminal.
pub(crate) const QUOTED_COMMAND_CHARS: usize = 200;

/// The last lines of the engine's standard error a message shows when the engine dies.
pub(crate) const STDERR_TAIL_LINES: usize = 4;

/// The most characters of one standard-error line a message shows (then `…`).
const STDERR_LINE_CHARS: usize = 200;

/// The bytes of standard error kept (the newest): enough for `STDERR_TAIL_LINES` lines.
const STDERR_KEPT_BYTES: usize = 8192;

/// `text` cut to its first `max` characters, with `…` when something was cut.
fn capped(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// How to start the engine: the tune configuration's `[engine]` table or `--engine "CMD ARGS"`.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineSpec {
    /// The program (a path, or a name looked up on `PATH`).
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// The directory it runs in (`None`: sparring's own).
    pub working_dir: Option<PathBuf>,
    /// How long it may take to answer one line before the run fails.
    pub answer_timeout: Duration,
}

impl EngineSpec {
    /// A command line split on whitespace: the program, then its arguments.
    pub fn from_command_line(line: &str) -> EngineSpec {
        let mut words = line.split_whitespace().map(str::to_string);
        EngineSpec {
            command: words.next().unwrap_or_default(),
            args: words.collect(),
            working_dir: None,
            answer_timeout: ANSWER_TIMEOUT,
        }
    }

    /// The command and its arguments as one line.
    pub fn display(&self) -> String {
        std::iter::once(self.command.as_str())
            .chain(self.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The command line as messages quote it: its first `QUOTED_COMMAND_CHARS` characters.
    pub fn name(&self) -> String {
        capped(&self.display(), QUOTED_COMMAND_CHARS)
    }

    /// The program to run: a relative path (one with a separator) is taken from sparring's
    /// working directory, not the engine's, so `working_dir` does not change what runs.
    fn program(&self) -> PathBuf {
        let path = Path::new(&self.command);
        if path.is_relative() && path.components().count() > 1 {
            if let Ok(here) = std::env::current_dir() {
                return here.join(path);
            }
        }
        path.to_path_buf()
    }
}

/// What the engine's standard output reader hands over.
enum Output {
    /// A whole line (without its end).
    Line(String),
    /// The text after the last line end when the output closed: the engine stopped in the
    /// middle of a line.
    Cut(String),
}

/// The newest bytes the engine wrote to its standard error, and whether it closed it.
#[derive(Default)]
struct StderrTail {
    bytes: Vec<u8>,
    closed: bool,
}

/// One running engine process.
struct Process {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Output>,
    stderr: Arc<Mutex<StderrTail>>,
    timeout: Duration,
}

impl Process {
    fn start(spec: &EngineSpec) -> Result<Process, TraceError> {
        let name = spec.name();
        if spec.command.is_empty() {
            return Err(TraceError::bad("empty engine command"));
        }
        let mut command = Command::new(spec.program());
        command
            .args(&spec.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(dir) = &spec.working_dir {
            command.current_dir(dir);
        }
        let mut child = command.spawn().map_err(|e| TraceError {
            message: format!("engine '{name}' cannot start: {e}"),
            run_failed: true,
        })?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = Vec::new();
            loop {
                line.clear();
                match reader.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
                // Bytes that are not UTF-8 reach the parser (and are refused there as a
                // malformed line) rather than ending the output.
                let text = String::from_utf8_lossy(&line);
                let out = match text.strip_suffix('\n') {
                    Some(whole) => Output::Line(whole.trim_end_matches('\r').to_string()),
                    None => Output::Cut(text.into_owned()),
                };
                if tx.send(out).is_err() {
                    break;
                }
            }
        });
        let tail = Arc::new(Mutex::new(StderrTail::default()));
        if let Some(mut stderr) = child.stderr.take() {
            let tail = Arc::clone(&tail);
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                loop {
                    let n = stderr.read(&mut buf).unwrap_or(0);
                    let mut t = tail.lock().unwrap_or_else(|e| e.into_inner());
                    if n == 0 {
                        t.closed = true;
                        break;
                    }
                    t.bytes.extend_from_slice(&buf[..n]);
                    if t.bytes.len() > STDERR_KEPT_BYTES {
                        let cut = t.bytes.len() - STDERR_KEPT_BYTES;
                        t.bytes.drain(..cut);
                    }
                }
            });
        } else {
            tail.lock().unwrap_or_else(|e| e.into_inner()).closed = true;
        }
        Ok(Process {
            child,
            stdin,
            lines: rx,
            stderr: tail,
            timeout: spec.answer_timeout,
        })
    }

    fn send(&mut self, command: &str, engine: &str) -> Result<(), TraceError> {
        let written = writeln!(self.stdin, "{command}").and_then(|()| self.stdin.flush());
        match written {
            Ok(()) => Ok(()),
            Err(_) if self.exit_status().is_some() => {
                let before = format!("before reading '{}'", capped(command, 80));
                Err(self.gone(engine, &before))
            }
            Err(e) => Err(died(engine, &format!("cannot be written to ({e})"))),
        }
    }

    fn line(&mut self, engine: &str) -> Result<String, TraceError> {
        loop {
            match self.lines.recv_timeout(self.timeout) {
                // Engines may chat before answering.
                Ok(Output::Line(line)) if line.starts_with("info ") || line.trim().is_empty() => {}
                Ok(Output::Line(line)) => return Ok(line),
                Ok(Output::Cut(text)) => {
                    let cut = format!(
                        "in the middle of a line ('{}')",
                        capped(&text, STDERR_LINE_CHARS)
                    );
                    return Err(self.gone(engine, &cut));
                }
                Err(RecvTimeoutError::Timeout) => {
                    let how = format!("did not answer within {:?}", self.timeout);
                    return Err(died(engine, &(how + &self.stderr_tail(false))));
                }
                Err(RecvTimeoutError::Disconnected) => return Err(self.gone(engine, "")),
            }
        }
    }

    /// The engine stopped answering (its output closed, or a write to it failed): the error
    /// names its exit status when it has one and ends with its standard error's last lines.
    /// `what` (may be empty) says more.
    fn gone(&mut self, engine: &str, what: &str) -> TraceError {
        let status = self.exit_status();
        let mut how = match status {
            Some(s) => format!("exited ({s})"),
            None => "closed its output".to_string(),
        };
        if !what.is_empty() {
            how = format!("{how} {what}");
        }
        died(engine, &(how + &self.stderr_tail(status.is_some())))
    }

    /// The exit status, waiting up to a second: output closes a moment before the process is
    /// reaped.
    fn exit_status(&mut self) -> Option<ExitStatus> {
        (0..100).find_map(|_| {
            let status = self.child.try_wait().ok().flatten();
            if status.is_none() {
                std::thread::sleep(Duration::from_millis(10));
            }
            status
        })
    }

    /// `; its standard error ends: LINE | LINE` with the last `STDERR_TAIL_LINES` lines the
    /// engine wrote there (empty if none). `exited`: wait up to half a second for the reader to
    /// reach the end of what the process wrote.
    fn stderr_tail(&self, exited: bool) -> String {
        for _ in 0..if exited { 50 } else { 0 } {
            if self.stderr.lock().unwrap_or_else(|e| e.into_inner()).closed {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let t = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        let text = String::from_utf8_lossy(&t.bytes);
        let lines: Vec<String> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(|l| capped(l, STDERR_LINE_CHARS))
            .collect();
        if lines.is_empty() {
            return String::new();
        }
        let shown = &lines[lines.len().saturating_sub(STDERR_TAIL_LINES)..];
        format!("; its standard error ends: {}", shown.join(" | "))
    }

    fn params(&mut self, engine: &str) -> Result<Declared, TraceError> {
        self.send("tunetrace params", engine)?;
        let mut lines = Vec::new();
        loop {
            let line = self.line(engine)?;
            if line.trim() == "end" {
                break;
            }
            lines.push(line);
        }
        parse_params(&lines)
            .map_err(|e| TraceError::bad(format!("engine '{engine}': tunetrace params: {e}")))
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        // A short grace, then the process is ended: nothing is left behind.
        for _ in 0..20 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn died(engine: &str, how: &str) -> TraceError {
    TraceError {
        message: format!("engine '{engine}' {how}"),
        run_failed: true,
    }
}

/// An external engine's evaluation, traced through the protocol.
pub struct ExternalEval {
    command: String,
    declared: Declared,
    processes: Vec<Mutex<Process>>,
}

impl ExternalEval {
    /// Starts `processes` copies of the engine and reads their parameters; every copy must
    /// declare the same.
    pub fn start(spec: &EngineSpec, processes: usize) -> Result<ExternalEval, TraceError> {
        let command = spec.name();
        let command = command.as_str();
        let mut started = Vec::new();
        let mut declared: Option<Declared> = None;
        for n in 0..processes.max(1) {
            let mut p = Process::start(spec)?;
            let d = p.params(command)?;
            if let Some(first) = &declared {
                if first.params.len() != d.params.len()
                    || first.tapered != d.tapered
                    || first.finalisers != d.finalisers
                {
                    return Err(TraceError::bad(format!(
                        "engine '{command}': process {} declared {} parameters, process 1 {}",
                        n + 1,
                        d.params.len(),
                        first.params.len()
                    )));
                }
            } else {
                declared = Some(d);
            }
            started.push(Mutex::new(p));
        }
        Ok(ExternalEval {
            command: command.to_string(),
            declared: declared.expect("at least one process"),
            processes: started,
        })
    }

    /// The engine command line, as messages name it (cut short when long: `EngineSpec::name`).
    pub fn command(&self) -> &str {
        &self.command
    }

    /// Asks the engine for its parameters again: the count must not have changed.
    pub fn recheck_params(&self) -> Result<(), TraceError> {
        let mut p = self.processes[0].lock().unwrap_or_else(|e| e.into_inner());
        let d = p.params(&self.command)?;
        if d.params.len() != self.declared.params.len() {
            return Err(TraceError::bad(format!(
                "engine '{}': the parameter count changed from {} to {} during the run",
                self.command,
                self.declared.params.len(),
                d.params.len()
            )));
        }
        if d.finalisers != self.declared.finalisers {
            return Err(TraceError::bad(format!(
                "engine '{}': the finalisers changed during the run",
                self.command
            )));
        }
        Ok(())
    }
}

impl TunableEval for ExternalEval {
    fn params(&self) -> Vec<ParamSpec> {
        self.declared.params.clone()
    }

    fn tapered(&self) -> bool {
        self.declared.tapered
    }

    fn phase_max(&self) -> i32 {
        self.declared.phase_max
    }

    fn finalisers(&self) -> Vec<Finaliser> {
        self.declared.finalisers.clone()
    }

    fn trace(&self, pos: &Position, out: &mut LinearTrace) -> Result<(), TraceError> {
        let slot = rayon::current_thread_index().unwrap_or(0) % self.processes.len();
        let mut p = self.processes[slot]
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        p.send(&format!("tunetrace fen {}", pos.to_fen()), &self.command)?;
        let line = p.line(&self.command)?;
        drop(p);
        let n = self.declared.params.len();
        let finalisers = &self.declared.finalisers;
        // The answer as messages quote it (a runaway line cut short).
        let quoted = || capped(&line, QUOTED_COMMAND_CHARS);
        let eval = parse_trace_with(&line, n, finalisers.len(), out).map_err(|e| {
            TraceError::bad(format!(
                "engine '{}' answered '{}': {e}",
                self.command,
                quoted()
            ))
        })?;
        let w: Vec<(f64, f64)> = self.declared.params.iter().map(|s| s.start).collect();
        let phase_max = self.declared.phase_max;
        if !self.declared.tapered {
            out.phase = 1;
        } else if out.phase > phase_max {
            // The blend would weigh the endgame half negatively: the engine's phase is wrong
            // (or its phase_max is).
            return Err(TraceError::bad(format!(
                "engine '{}' answered '{}': phase {} is above phase_max {phase_max}, which the engine declared as the phase with every piece on",
                self.command,
                quoted(),
                out.phase
            )));
        }
        let model = out.value_with(&w, phase_max, finalisers);
        let mut groups: Vec<_> = out.finals.iter().map(|t| (t.finaliser, t.side)).collect();
        groups.sort_unstable_by_key(|&(f, side)| (f, side as u8));
        groups.dedup();
        if (model - eval).abs() > 1.0 + groups.len() as f64 + 1e-9 {
            return Err(TraceError::bad(format!(
                "engine '{}': remainder + sum(count * weight) = {model} but the engine's eval is {eval}: the trace does not add up",
                self.command
            )));
        }
        Ok(())
    }
}
