//! Which files a data list names: plain paths as given, glob patterns (`shards/*/positions.epd`,
//! `data/**/*.epd`) expanded with the `glob` crate in sorted order, so a list of shards reads in
//! the same order on every machine (dedupe keeps the first copy, and the split is seeded by order).

use super::read::DataError;
use std::collections::HashSet;
use std::path::PathBuf;

/// Whether an entry of a data list is a glob pattern rather than a path: it holds `*`, `?` or
/// `[` (a file whose name has one of these is written with the bracket escape, `[[]`).
pub(crate) fn is_pattern(entry: &str) -> bool {
    entry.contains(['*', '?', '['])
}

/// The files a data list names, in order: each plain path as given (a missing one is reported
/// when it is opened), each pattern replaced by the regular files it matches, sorted by path.
/// A pattern that matches no file is an error (a typo must not silently drop a shard); a file
/// named twice (by two patterns, say) is read once, where it first appears.
pub fn expand_data_files(entries: &[PathBuf]) -> Result<Vec<PathBuf>, DataError> {
    let mut files = Vec::new();
    let mut seen = HashSet::new();
    let options = glob::MatchOptions {
        case_sensitive: true,
        require_literal_separator: true,
        require_literal_leading_dot: true,
    };
    for entry in entries {
        let pattern = match entry.to_str() {
            Some(text) if is_pattern(text) => text,
            // A path that is not UTF-8 cannot be a pattern the glob crate reads: take it as is.
            _ => {
                if seen.insert(entry.clone()) {
                    files.push(entry.clone());
                }
                continue;
            }
        };
        let paths = glob::glob_with(pattern, options).map_err(|e| DataError::BadPattern {
            pattern: pattern.to_string(),
            column: e.pos + 1,
            message: e.msg.to_string(),
        })?;
        let mut matched = Vec::new();
        for path in paths {
            let path = path.map_err(|e| DataError::Io {
                file: e.path().display().to_string(),
                error: e.into(),
            })?;
            if path.is_file() {
                matched.push(path);
            }
        }
        if matched.is_empty() {
            return Err(DataError::NoMatch {
                pattern: pattern.to_string(),
            });
        }
        matched.sort();
        for path in matched {
            if seen.insert(path.clone()) {
                files.push(path);
            }
        }
    }
    Ok(files)
}
