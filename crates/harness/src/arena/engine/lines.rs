//! Cutting an engine's output into lines in time linear in its length, keeping at most
//! [`MAX_LINE_BYTES`] of each line. Every byte is examined once: a long line arriving in many
//! chunks is never re-scanned from its start (which once made a 10 MB `info string` line cost
//! seconds per move), and its excess is dropped as it arrives instead of being stored.

use std::collections::VecDeque;
use std::time::Instant;

/// The most of one engine output line that is kept (64 KiB): far beyond any real `info`
/// line's useful part. The rest of a longer line is discarded as it arrives, and the engine
/// log notes how much was dropped.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// How much is read from a pipe at once.
const READ_CHUNK: usize = 64 * 1024;

/// One line of engine output, without its line break.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// The kept text (at most `MAX_LINE_BYTES` bytes of it; invalid UTF-8 replaced).
    pub text: String,
    /// How many bytes of the line were discarded beyond the kept part (0: the whole line).
    pub dropped: u64,
}

/// Splits a byte stream into capped lines. Bytes go in with `feed`, whole lines come out with
/// `next_line`; a line still open at the end of input is given by `finish`.
#[derive(Debug)]
pub(crate) struct LineSplitter {
    /// The open line's kept bytes (never more than `max` of them).
    partial: Vec<u8>,
    /// Bytes of the open line discarded so far.
    dropped: u64,
    ready: VecDeque<Line>,
    max: usize,
    /// Bytes examined in total: each fed byte exactly once (tests check the linearity).
    #[cfg(test)]
    examined: u64,
}

impl LineSplitter {
    /// A splitter keeping at most `max` bytes of each line.
    pub(super) fn new(max: usize) -> LineSplitter {
        LineSplitter {
            partial: Vec::new(),
            dropped: 0,
            ready: VecDeque::new(),
            max,
            #[cfg(test)]
            examined: 0,
        }
    }

    /// Takes in bytes as they came from the engine.
    pub(super) fn feed(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let newline = bytes.iter().position(|&b| b == b'\n');
            let piece = &bytes[..newline.unwrap_or(bytes.len())];
            #[cfg(test)]
            {
                self.examined += (piece.len() + usize::from(newline.is_some())) as u64;
            }
            let room = self.max.saturating_sub(self.partial.len());
            let kept = piece.len().min(room);
            self.partial.extend_from_slice(&piece[..kept]);
            self.dropped += (piece.len() - kept) as u64;
            match newline {
                Some(i) => {
                    self.end_line();
                    bytes = &bytes[i + 1..];
                }
                None => break,
            }
        }
    }

    fn end_line(&mut self) {
        let mut kept = std::mem::take(&mut self.partial);
        // A `\r\n` line end; a `\r` cut off by the cap is no line end.
        if self.dropped == 0 && kept.last() == Some(&b'\r') {
            kept.pop();
        }
        let text = match String::from_utf8(kept) {
            Ok(text) => text,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        };
        self.ready.push_back(Line {
            text,
            dropped: std::mem::take(&mut self.dropped),
        });
    }

    /// The next whole line, if one has arrived.
    pub(crate) fn next_line(&mut self) -> Option<Line> {
        self.ready.pop_front()
    }

    /// At the end of input: the unterminated last line, if it holds anything.
    pub(super) fn finish(&mut self) -> Option<Line> {
        if self.partial.is_empty() && self.dropped == 0 {
            return None;
        }
        self.end_line();
        self.ready.pop_back()
    }

    /// Bytes examined so far (each fed byte once).
    #[cfg(test)]
    pub(crate) fn examined(&self) -> u64 {
        self.examined
    }
}

/// Why no line came.
#[derive(Debug, PartialEq, Eq)]
#[non_exhaustive]
pub(crate) enum ReadError {
    /// The deadline passed first.
    Timeout,
    /// The stream ended (or failed) and every line it held has been read.
    Closed,
}

/// Reads lines from a pipe with a deadline. On Unix it waits on the pipe itself with `poll`,
/// which saves a thread hop per line (measured: the runner's overhead per ply nearly halves
/// against a trivial engine); elsewhere a reader thread feeds a channel.
#[cfg(unix)]
pub(crate) struct LineReader<R> {
    source: R,
    lines: LineSplitter,
    eof: bool,
    /// The read buffer, allocated once.
    chunk: Box<[u8]>,
}

#[cfg(unix)]
impl<R: std::io::Read + std::os::unix::io::AsRawFd> LineReader<R> {
    /// Reads `source`, keeping at most `max` bytes of each line.
    pub(super) fn new(source: R, max: usize) -> LineReader<R> {
        LineReader {
            source,
            lines: LineSplitter::new(max),
            eof: false,
            chunk: vec![0u8; READ_CHUNK].into_boxed_slice(),
        }
    }

    /// The next line, waiting for it until `deadline`.
    pub(super) fn read_line(&mut self, deadline: Instant) -> Result<Line, ReadError> {
        loop {
            if let Some(line) = self.lines.next_line() {
                return Ok(line);
            }
            if self.eof {
                return self.lines.finish().ok_or(ReadError::Closed);
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(ReadError::Timeout);
            }
            let wait_ms = (deadline - now).as_millis().clamp(1, i32::MAX as u128) as i32;
            let mut fd = libc::pollfd {
                fd: self.source.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd for the duration of the call.
            let ready = unsafe { libc::poll(&mut fd, 1, wait_ms) };
            if ready < 0 {
                if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                self.eof = true;
                continue;
            }
            if ready == 0 {
                continue;
            }
            match self.source.read(&mut self.chunk) {
                Ok(0) => self.eof = true,
                Ok(n) => self.lines.feed(&self.chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => self.eof = true,
            }
        }
    }

    /// Bytes examined so far.
    #[cfg(test)]
    pub(crate) fn examined(&self) -> u64 {
        self.lines.examined()
    }
}

/// Reads lines from a pipe with a deadline, through a reader thread and a channel.
#[cfg(not(unix))]
pub(crate) struct LineReader<R> {
    lines: std::sync::mpsc::Receiver<Line>,
    _source: std::marker::PhantomData<R>,
}

#[cfg(not(unix))]
impl<R: std::io::Read + Send + 'static> LineReader<R> {
    /// Reads `source` on a thread of its own, keeping at most `max` bytes of each line.
    pub fn new(source: R, max: usize) -> LineReader<R> {
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || for_each_line(source, max, |line| tx.send(line).is_ok()));
        LineReader {
            lines,
            _source: std::marker::PhantomData,
        }
    }

    /// The next line, waiting for it until `deadline`.
    pub fn read_line(&mut self, deadline: Instant) -> Result<Line, ReadError> {
        let wait = deadline.saturating_duration_since(Instant::now());
        self.lines.recv_timeout(wait).map_err(|e| match e {
            std::sync::mpsc::RecvTimeoutError::Timeout => ReadError::Timeout,
            std::sync::mpsc::RecvTimeoutError::Disconnected => ReadError::Closed,
        })
    }
}

/// Reads `source` to its end, giving each capped line to `each` until it returns false.
pub(crate) fn for_each_line(
    mut source: impl std::io::Read,
    max: usize,
    mut each: impl FnMut(Line) -> bool,
) {
    let mut lines = LineSplitter::new(max);
    let mut chunk = vec![0u8; READ_CHUNK];
    loop {
        match source.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => lines.feed(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        }
        while let Some(line) = lines.next_line() {
            if !each(line) {
                return;
            }
        }
    }
    if let Some(line) = lines.finish() {
        each(line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_are_capped_and_the_next_line_is_intact() {
        let mut lines = LineSplitter::new(10);
        lines.feed(b"short\r\n0123456789abcdef");
        lines.feed(b"ghij\nnext\npart");
        assert_eq!(
            lines.next_line(),
            Some(Line {
                text: "short".into(),
                dropped: 0
            })
        );
        assert_eq!(
            lines.next_line(),
            Some(Line {
                text: "0123456789".into(),
                dropped: 10
            })
        );
        assert_eq!(lines.next_line().unwrap().text, "next");
        assert_eq!(lines.next_line(), None, "`part` has no line break yet");
        lines.feed(b"ial");
        assert_eq!(lines.finish().unwrap().text, "partial");
        assert_eq!(lines.finish(), None);
    }

    #[test]
    fn a_line_of_megabytes_in_small_chunks_is_examined_once() {
        const TOTAL: usize = 8 * 1024 * 1024;
        let mut lines = LineSplitter::new(MAX_LINE_BYTES);
        let chunk = [b'x'; 4096];
        lines.feed(b"info string ");
        for _ in 0..TOTAL / chunk.len() {
            lines.feed(&chunk);
        }
        lines.feed(b"\nbestmove e2e4\n");
        let long = lines.next_line().unwrap();
        assert_eq!(long.text.len(), MAX_LINE_BYTES);
        assert!(long.text.starts_with("info string xxx"));
        assert_eq!(long.dropped, (TOTAL + 12 - MAX_LINE_BYTES) as u64);
        assert_eq!(lines.next_line().unwrap().text, "bestmove e2e4");
        let fed = (12 + TOTAL + 1 + 14) as u64;
        assert_eq!(lines.examined(), fed, "every byte examined exactly once");
    }

    #[cfg(unix)]
    #[test]
    fn the_pipe_reader_caps_a_huge_line_and_reads_on() {
        use std::io::Write;
        use std::os::unix::net::UnixStream;
        const TOTAL: usize = 4 * 1024 * 1024;
        let (mut tx, rx) = UnixStream::pair().unwrap();
        let writer = std::thread::spawn(move || {
            tx.write_all(b"info string ").unwrap();
            let block = vec![b'y'; 1000];
            for _ in 0..TOTAL / block.len() {
                tx.write_all(&block).unwrap();
            }
            tx.write_all(b"\nbestmove a2a3\n").unwrap();
        });
        let mut reader = LineReader::new(rx, MAX_LINE_BYTES);
        // A generous deadline: the test asserts what is read, never how fast.
        let deadline = Instant::now() + std::time::Duration::from_secs(600);
        let long = reader.read_line(deadline).unwrap();
        assert_eq!(long.text.len(), MAX_LINE_BYTES);
        assert_eq!(
            long.dropped,
            (12 + TOTAL / 1000 * 1000 - MAX_LINE_BYTES) as u64
        );
        let next = reader.read_line(deadline).unwrap();
        assert_eq!(
            next,
            Line {
                text: "bestmove a2a3".into(),
                dropped: 0
            }
        );
        writer.join().unwrap();
        assert_eq!(reader.read_line(deadline), Err(ReadError::Closed));
        assert_eq!(
            reader.examined(),
            (12 + TOTAL / 1000 * 1000 + 1 + 14) as u64
        );
    }
}
