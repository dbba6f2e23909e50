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

/// Ways a Syzygy file can be damaged, for the tests of issue 45.
#[derive(Clone, Copy, Debug)]
pub enum Damage {
    /// Cut to 104 bytes.
    Truncated,
    /// Zero bytes long.
    Empty,
    /// A directory in the file's place.
    Directory,
    /// The DTZ file's magic number at the head of the WDL file.
    WrongMagic,
    /// The right magic and size, random bytes after the magic.
    RandomAfterMagic,
    /// Size, magic and header intact; the compressed data's last 32 bytes (before the 16-byte
    /// checksum) inverted.
    CorruptData,
}

/// A copy of the fixture tables in a fresh directory `name` under Cargo's test scratch
/// directory, with `KRvK.rtbw` damaged as `damage` says. The fixtures are never touched.
pub fn damaged_copy(name: &str, damage: Damage) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("damaged-syzygy")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(fixture_dir()).unwrap() {
        let from = entry.unwrap().path();
        std::fs::copy(&from, dir.join(from.file_name().unwrap())).unwrap();
    }
    let file = dir.join("KRvK.rtbw");
    let good = std::fs::read(&file).unwrap();
    match damage {
        Damage::Truncated => std::fs::write(&file, &good[..104]).unwrap(),
        Damage::Empty => std::fs::write(&file, b"").unwrap(),
        Damage::Directory => {
            std::fs::remove_file(&file).unwrap();
            std::fs::create_dir(&file).unwrap();
        }
        Damage::WrongMagic => {
            let dtz = std::fs::read(dir.join("KRvK.rtbz")).unwrap();
            let mut bytes = good.clone();
            bytes[..4].copy_from_slice(&dtz[..4]);
            std::fs::write(&file, bytes).unwrap();
        }
        Damage::RandomAfterMagic => {
            let mut bytes = good.clone();
            let mut state = 0x2545_f491_4f6c_dd1d_u64;
            for b in &mut bytes[4..] {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                *b = (state >> 24) as u8;
            }
            std::fs::write(&file, bytes).unwrap();
        }
        Damage::CorruptData => {
            let mut bytes = good.clone();
            let end = bytes.len() - 16;
            for b in &mut bytes[end - 32..end] {
                *b = !*b;
            }
            std::fs::write(&file, bytes).unwrap();
        }
    }
    dir
}
