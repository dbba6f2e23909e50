//! The layers hold: within each crate of the workspace, a subsystem (a top-level module) names
//! only the subsystems below it in the crate's order, so no import runs up a layer and there is
//! no cycle between subsystems; between crates Cargo enforces the same (a crate cannot name a
//! crate that depends on it). And the chess crate depends on nothing but `thiserror`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Each crate's subsystems, lowest first: a subsystem may use those before it.
const LAYERS: [(&str, &[&str]); 4] = [
    ("chess", &["rng", "board", "error"]),
    (
        "engine",
        &[
            "score",
            "toml_config",
            "tablebase",
            "eval",
            "nnue",
            "search",
            "uci",
        ],
    ),
    (
        "harness",
        &[
            "files", "page", "stats", "openings", "record", "data", "arena", "datagen",
        ],
    ),
    ("tuning", &["texel", "spsa", "train", "ladder"]),
];

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file of a module: its file, or its folder's files.
fn module_files(src: &Path, module: &str) -> Vec<PathBuf> {
    let file = src.join(format!("{module}.rs"));
    if file.is_file() {
        return vec![file];
    }
    let mut files = Vec::new();
    // A layer may name a subsystem still to come: it has no files yet.
    let mut dirs: Vec<PathBuf> = Some(src.join(module))
        .filter(|d| d.is_dir())
        .into_iter()
        .collect();
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files
}

/// The names after `crate::` in a file.
fn crate_paths(text: &str) -> BTreeSet<String> {
    text.match_indices("crate::")
        .filter(|(at, _)| !text[..*at].ends_with('$'))
        .map(|(at, _)| {
            text[at + 7..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect()
        })
        .collect()
}

#[test]
fn no_subsystem_names_one_above_it_and_no_crate_module_is_left_out_of_the_layers() {
    let mut lower_crates: Vec<&str> = Vec::new();
    let mut arrows_up = Vec::new();
    for (krate, order) in LAYERS {
        let src = workspace().join("crates").join(krate).join("src");
        // Every module of the crate has its place in the order.
        for entry in std::fs::read_dir(&src).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_stem().unwrap().to_string_lossy().to_string();
            assert!(
                name == "lib" || order.contains(&name.as_str()),
                "crates/{krate}/src/{name} has no place in the layers of tests/it/architecture.rs"
            );
        }
        for (rank, module) in order.iter().enumerate() {
            for file in module_files(&src, module) {
                let text = std::fs::read_to_string(&file).unwrap();
                for used in crate_paths(&text) {
                    let below = order[..rank].contains(&used.as_str());
                    let same_crate = order.contains(&used.as_str());
                    // A lower crate's module reached through this crate's root alias.
                    let from_lower_crate = !same_crate && !lower_crates.is_empty();
                    if !(below || used == *module || from_lower_crate) && same_crate {
                        arrows_up.push(format!("{} uses crate::{used}", file.display()));
                    }
                }
            }
        }
        lower_crates.push(krate);
    }
    assert!(
        arrows_up.is_empty(),
        "imports that run up a layer:\n{}",
        arrows_up.join("\n")
    );
}

/// The board crate stays nearly std-only: thiserror for its errors, nothing else (issue 46).
#[test]
fn the_chess_crate_depends_on_nothing_but_thiserror() {
    let manifest = std::fs::read_to_string(workspace().join("crates/chess/Cargo.toml")).unwrap();
    let table: toml::Table = manifest.parse().unwrap();
    let deps: Vec<&String> = table["dependencies"].as_table().unwrap().keys().collect();
    assert_eq!(deps, ["thiserror"]);
}
