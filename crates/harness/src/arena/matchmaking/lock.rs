//! The output directory's lock: one run at a time writes a directory. The lock is a file naming
//! its holder's pid and host, created exclusively; a lock left by a process that no longer
//! exists on this host (killed run) is taken over.

use crate::error::{ErrorClass, Failure};
use std::io::Write;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The lock file's name inside the output directory.
pub const LOCK_FILE: &str = "sparring.lock";

/// Why the directory could not be locked.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum LockError {
    /// A live process holds the lock (or one on another host, which cannot be checked).
    #[error("{}: another run (pid {pid} on {host}) is writing this output directory; wait for it, or remove {} if that run is gone", dir.display(), LOCK_FILE)]
    Held {
        /// The output directory.
        dir: PathBuf,
        /// The holder's process id.
        pid: u32,
        /// The holder's host name.
        host: String,
    },
    /// The lock file could not be created, read or removed.
    #[error("{}: cannot lock the output directory: {source}", path.display())]
    Io {
        /// The lock file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
}

impl ErrorClass for LockError {
    fn class(&self) -> Failure {
        match self {
            // Another run owns the directory: the user must choose another or wait.
            LockError::Held { .. } => Failure::BadInput,
            LockError::Io { .. } => Failure::FailedRun,
        }
    }
}

/// Holds the lock until dropped (also when the run fails).
#[derive(Debug)]
pub struct OutputLock {
    path: PathBuf,
    content: String,
}

/// This machine's host name (empty if it cannot be read).
pub fn host_name() -> String {
    #[cfg(unix)]
    {
        let mut buf = [0u8; 256];
        // SAFETY: the buffer is valid for its length; gethostname writes at most that many bytes.
        let ok = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) } == 0;
        if ok {
            let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
            return String::from_utf8_lossy(&buf[..end]).into_owned();
        }
    }
    String::new()
}

/// Whether a process with this pid exists on this host.
fn process_alive(pid: u32) -> bool {
    #[cfg(unix)]
    {
        let Ok(pid) = libc::pid_t::try_from(pid) else {
            return false;
        };
        // SAFETY: signal 0 only checks that the process exists; nothing is sent.
        let rc = unsafe { libc::kill(pid, 0) };
        rc == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        true
    }
}

fn parse_holder(text: &str) -> Option<(u32, String)> {
    let mut pid = None;
    let mut host = String::new();
    for line in text.lines() {
        if let Some(v) = line.strip_prefix("pid=") {
            pid = v.trim().parse().ok();
        } else if let Some(v) = line.strip_prefix("host=") {
            host = v.trim().to_string();
        }
    }
    Some((pid?, host))
}

/// The `started=` line of a lock file: the holder's start time in clock ticks since boot.
fn parse_started(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|line| line.strip_prefix("started="))
        .and_then(|v| v.trim().parse().ok())
}

/// When process `pid` started, in clock ticks since boot (Linux `/proc/<pid>/stat`, field 22);
/// None where there is no /proc. A pid is reused (a restarted container is pid 1 again), a pid
/// with its start time is not.
fn process_start(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces and parentheses: count after its last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// Whether the holder named in a lock file on this host is still running: its pid exists and,
/// when the file says when it started, it is the same process rather than a reused pid.
fn holder_running(pid: u32, text: &str) -> bool {
    if !process_alive(pid) {
        return false;
    }
    match (parse_started(text), process_start(pid)) {
        (Some(recorded), Some(now)) => recorded == now,
        _ => true,
    }
}

impl OutputLock {
    /// Takes the lock of `dir` (which must exist) for this process.
    pub fn acquire(dir: &Path) -> Result<OutputLock, LockError> {
        let path = dir.join(LOCK_FILE);
        let host = host_name();
        let pid = std::process::id();
        let content = match process_start(pid) {
            Some(started) => format!("pid={pid}\nhost={host}\nstarted={started}\n"),
            None => format!("pid={pid}\nhost={host}\n"),
        };
        let io = |source| LockError::Io {
            path: path.clone(),
            source,
        };
        // Two attempts: the second after removing a stale lock.
        for _ in 0..2 {
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(mut file) => {
                    file.write_all(content.as_bytes())
                        .and_then(|_| file.sync_all())
                        .map_err(io)?;
                    return Ok(OutputLock { path, content });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let text = std::fs::read_to_string(&path).unwrap_or_default();
                    match parse_holder(&text) {
                        Some((pid, holder_host))
                            if holder_host != host || holder_running(pid, &text) =>
                        {
                            return Err(LockError::Held {
                                dir: dir.to_path_buf(),
                                pid,
                                host: holder_host,
                            });
                        }
                        // A dead holder on this host, or a lock file cut short: stale.
                        _ => match std::fs::remove_file(&path) {
                            Ok(()) => {}
                            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                            Err(e) => return Err(io(e)),
                        },
                    }
                }
                Err(e) => return Err(io(e)),
            }
        }
        // Another process took the stale lock between our removal and our retry.
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let (pid, host) = parse_holder(&text).unwrap_or((0, String::new()));
        Err(LockError::Held {
            dir: dir.to_path_buf(),
            pid,
            host,
        })
    }
}

impl Drop for OutputLock {
    fn drop(&mut self) {
        // Only remove the file if it is still ours.
        if std::fs::read_to_string(&self.path).is_ok_and(|t| t == self.content) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("sparring-lock-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_second_holder_is_refused_and_the_lock_is_released_on_drop() {
        let dir = dir("held");
        let lock = OutputLock::acquire(&dir).unwrap();
        let err = OutputLock::acquire(&dir).unwrap_err();
        let message = err.to_string();
        assert!(
            message.contains(&format!("pid {}", std::process::id())),
            "{message}"
        );
        assert!(message.contains(&host_name()), "{message}");
        drop(lock);
        assert!(!dir.join(LOCK_FILE).exists());
        OutputLock::acquire(&dir).unwrap();
    }

    #[test]
    fn a_lock_of_a_dead_process_is_taken_over() {
        let dir = dir("stale");
        // A child that has exited and been reaped: its pid names no process.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        std::fs::write(
            dir.join(LOCK_FILE),
            format!("pid={pid}\nhost={}\n", host_name()),
        )
        .unwrap();
        let _lock = OutputLock::acquire(&dir).unwrap();
        let text = std::fs::read_to_string(dir.join(LOCK_FILE)).unwrap();
        assert!(text.contains(&format!("pid={}", std::process::id())));
        // A holder on another host cannot be checked, so it is respected.
        let other = super::tests::dir("other-host");
        std::fs::write(other.join(LOCK_FILE), "pid=1\nhost=elsewhere.invalid\n").unwrap();
        let err = OutputLock::acquire(&other).unwrap_err();
        assert!(err.to_string().contains("elsewhere.invalid"), "{err}");
    }

    #[test]
    fn a_reused_pid_is_not_the_holder() {
        // A container restarted after a kill runs as pid 1 again: the lock its previous life
        // left names a live pid on this host, but one that started at another time.
        let Some(started) = process_start(std::process::id()) else {
            eprintln!("skipped: no /proc here to read start times from");
            return;
        };
        let dir = dir("reused");
        std::fs::write(
            dir.join(LOCK_FILE),
            format!(
                "pid={}\nhost={}\nstarted={}\n",
                std::process::id(),
                host_name(),
                started + 1
            ),
        )
        .unwrap();
        let _lock = OutputLock::acquire(&dir).unwrap();
        let text = std::fs::read_to_string(dir.join(LOCK_FILE)).unwrap();
        assert!(text.contains(&format!("started={started}")), "{text}");
    }
}
