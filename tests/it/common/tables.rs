//! Syzygy tables for tests: the small fixture set in tests/fixtures/syzygy, the shared set beside
//! the checkout when it is there, and the skip that says why a check did not run.

// Each test file that includes this module uses only some of its helpers.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// The fixture tables (every 3-piece table with a lone king on one side).
pub fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/syzygy")
}

/// The shared tables, if this checkout sits beside ../shared (a worktree: two levels up).
pub fn shared_dir() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    root.ancestors()
        .skip(1)
        .take(2)
        .map(|a| a.join("shared/data/syzygy"))
        .find(|d| d.join("KRPvKR.rtbw").is_file())
}

/// The one skip of tests/common/tools.rs (fails under `SPARRING_REQUIRE_TOOLS=1`).
pub use tools::skip;

use super::tools;

/// The prober holds one set of tables per process: tests of one file that open different sets
/// take turns by holding this.
pub fn one_set_at_a_time() -> MutexGuard<'static, ()> {
    static TABLES: Mutex<()> = Mutex::new(());
    TABLES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
