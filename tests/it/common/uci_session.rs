//! The UCI front end in process: a script in, the engine's output lines out.

// Each test file that includes this module uses only some of its helpers.

use sparring::uci::UciEngine;
use std::io::Write;
use std::sync::{Arc, Mutex};

/// A writer whose bytes the test reads back after the session.
#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<u8>>>);

impl Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Runs `script` through the engine `make` builds around the capture; its output lines.
pub fn session_with(
    make: impl FnOnce(Box<dyn Write + Send>) -> UciEngine,
    script: &[u8],
) -> Vec<String> {
    let capture = Capture::default();
    let mut engine = make(Box::new(capture.clone()));
    engine.run(script).unwrap();
    let text = String::from_utf8(capture.0.lock().unwrap().clone()).unwrap();
    text.lines().map(str::to_string).collect()
}

/// Runs `script` through a default engine; its output lines.
pub fn session(script: &str) -> Vec<String> {
    session_with(UciEngine::new, script.as_bytes())
}
