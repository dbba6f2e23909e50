//! Small file-system helpers shared by the run directories: [`write_atomic`] and [`copy_atomic`]
//! write through a temporary file and a rename, so a reader never sees half a file.

use std::path::{Path, PathBuf};

/// Writes `content` to `path` so that a kill leaves either the old file or the new one: the
/// bytes go to a temporary file beside it, which is then renamed over `path`.
pub fn write_atomic(path: &Path, content: &[u8]) -> std::io::Result<()> {
    let tmp = temporary_beside(path);
    std::fs::write(&tmp, content)?;
    std::fs::rename(&tmp, path)
}

/// Copies `from` to `to` atomically (as [`write_atomic`]).
pub fn copy_atomic(from: &Path, to: &Path) -> std::io::Result<()> {
    let tmp = temporary_beside(to);
    std::fs::copy(from, &tmp)?;
    std::fs::rename(&tmp, to)
}

/// `dir/.name.partial`: same directory, so the rename cannot cross file systems.
fn temporary_beside(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
    path.with_file_name(format!(".{name}.partial"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_atomic_write_replaces_the_file_and_leaves_no_temporary() {
        let dir = std::env::temp_dir().join(format!("sparring-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.txt");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        copy_atomic(&path, &dir.join("b.txt")).unwrap();
        assert_eq!(std::fs::read(dir.join("b.txt")).unwrap(), b"two");
        let mut names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["a.txt", "b.txt"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
