//! Every shipped configuration parses.

use sparring::arena::MatchConfig;

#[test]
fn shipped_match_configurations_parse() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/configs");
    let mut parsed = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if path.extension().is_some_and(|e| e == "toml") && name != "tune.toml" {
            MatchConfig::load(&path).unwrap_or_else(|e| panic!("{e}"));
            parsed += 1;
        }
    }
    assert!(parsed >= 5, "{parsed} configurations");
}
