//! Optional tools and data of the tests (python3 and its packages, Debian's engines under
//! /usr/games, the ../shared data): where they are, and the one skip that prints why a check did
//! not run, or fails it when `SPARRING_REQUIRE_TOOLS=1` says every tool must be there (CI).

// Each test file that includes this module uses only some of its helpers.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Prints why a check is skipped, or panics when the environment requires every tool
/// (`SPARRING_REQUIRE_TOOLS=1`).
pub fn skip(reason: &str) {
    if std::env::var("SPARRING_REQUIRE_TOOLS").as_deref() == Ok("1") {
        panic!("SPARRING_REQUIRE_TOOLS=1 and {reason}");
    }
    println!("skipped: {reason}");
}

/// `available`, after skipping with `reason` when it is false.
pub fn present(available: bool, reason: &str) -> bool {
    if !available {
        skip(reason);
    }
    available
}

/// Whether python3 runs and imports `module` (e.g. `chess.engine`; empty: python3 alone).
pub fn python_imports(module: &str) -> bool {
    let code = if module.is_empty() {
        "pass".to_string()
    } else {
        format!("import {module}")
    };
    Command::new("python3")
        .args(["-c", &code])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Whether python3 imports python-chess's `module`, skipping with the reason when not.
pub fn python_chess(module: &str) -> bool {
    present(
        python_imports(module),
        "python3 with python-chess is not installed (pip install chess)",
    )
}

/// A file or directory of the shared data beside the checkout (`../shared/RELATIVE`, or two
/// levels up from a worktree), or None after skipping with a reason.
pub fn shared(relative: &str) -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let found = root
        .ancestors()
        .skip(1)
        .take(2)
        .map(|a| a.join("shared").join(relative))
        .find(|p| p.exists());
    if found.is_none() {
        skip(&format!(
            "../shared/{relative} is absent (a checkout without ../shared)"
        ));
    }
    found
}

/// A Debian engine or tool under /usr/games, or None after skipping with a reason.
pub fn usr_games(name: &str) -> Option<PathBuf> {
    let path = Path::new("/usr/games").join(name);
    present(
        path.exists(),
        &format!("/usr/games/{name} is absent (apt-get install {name})"),
    )
    .then_some(path)
}
