//! `sparring tablebase probe`: prints WDL and DTZ, and says which table is missing (status 2).

use crate::common::binary;

use crate::common::tables::{damaged_copy, Damage};
use binary::{sparring, sparring_with_input};
use std::path::Path;

fn fixture_dir() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/syzygy")
        .display()
        .to_string()
}

#[test]
fn probe_prints_wdl_and_dtz() {
    let dir = fixture_dir();
    let run = sparring(&[
        "tablebase",
        "probe",
        "--path",
        &dir,
        "8/8/8/8/8/2k5/8/K6R w - - 0 1",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "wdl 2\ndtz 27\n");
    let run = sparring(&[
        "tablebase",
        "probe",
        "--path",
        &dir,
        "8/8/8/8/8/8/8/K1k4R b - - 0 1",
    ]);
    assert_eq!(run.stdout, "wdl -2\ndtz -22\n");
}

#[test]
fn a_missing_table_or_a_bad_position_exits_2_naming_it() {
    let dir = fixture_dir();
    let only = std::env::temp_dir().join(format!("sparring-tb-cli-{}", std::process::id()));
    std::fs::create_dir_all(&only).unwrap();
    std::fs::copy(Path::new(&dir).join("KRvK.rtbw"), only.join("KRvK.rtbw")).unwrap();
    let only_dir = only.display().to_string();
    let run = sparring(&[
        "tablebase",
        "probe",
        "--path",
        &only_dir,
        "8/8/8/8/8/2k5/8/K6Q w - - 0 1",
    ]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("missing table KQvK.rtbw in"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty());
    let run = sparring(&[
        "tablebase",
        "probe",
        "--path",
        &only_dir,
        "8/8/8/8/8/2k5/8/K6R w - - 0 1",
    ]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("missing table KRvK.rtbz"),
        "{}",
        run.stderr
    );
    std::fs::remove_dir_all(&only).unwrap();

    let run = sparring(&[
        "tablebase",
        "probe",
        "--path",
        &dir,
        "4r3/8/8/8/8/8/7R/K1k5 w - - 0 1",
    ]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("4 pieces on the board"),
        "{}",
        run.stderr
    );
    let run = sparring(&[
        "tablebase",
        "probe",
        "--path",
        &dir,
        "8/8/8/8/8/8/8/R3K1k1 w Q - 0 1",
    ]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("castling rights"), "{}", run.stderr);
    let run = sparring(&["tablebase", "probe", "--path", &dir, "not a fen"]);
    assert_eq!(run.code, 2);
    let run = sparring(&[
        "tablebase",
        "probe",
        "--path",
        "/nonexistent/syzygy",
        "8/8/8/8/8/2k5/8/K6R w - - 0 1",
    ]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("/nonexistent/syzygy"), "{}", run.stderr);
}

/// Probes KRvK from a copy of the fixtures whose KRvK.rtbw is damaged: status 2, the file and
/// `problem` named on stderr, nothing on stdout (the prober's `info string` above all).
fn probe_refuses_damaged(name: &str, damage: Damage, problem: &str) {
    let dir = damaged_copy(name, damage);
    let run = sparring(&[
        "tablebase",
        "probe",
        "--path",
        dir.to_str().unwrap(),
        "8/8/8/8/8/2k5/8/K6R w - - 0 1",
    ]);
    let file = dir.join("KRvK.rtbw").display().to_string();
    assert_eq!(
        run.code, 2,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    assert!(run.stderr.contains(&file), "{}", run.stderr);
    assert!(run.stderr.contains(problem), "{}", run.stderr);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    assert_eq!(run.stdout, "", "stderr: {}", run.stderr);
}

#[test]
fn damaged_syzygy_file_truncated_to_104_bytes_probe_exits_2_naming_it() {
    probe_refuses_damaged("probe-truncated", Damage::Truncated, "104 bytes");
}

#[test]
fn damaged_syzygy_file_of_zero_length_probe_exits_2_naming_it() {
    probe_refuses_damaged("probe-empty", Damage::Empty, "empty");
}

#[test]
fn damaged_syzygy_file_that_is_a_directory_probe_exits_2_naming_it() {
    probe_refuses_damaged("probe-directory", Damage::Directory, "not a regular file");
}

#[test]
fn damaged_syzygy_file_with_the_wrong_magic_probe_exits_2_naming_it() {
    probe_refuses_damaged("probe-magic", Damage::WrongMagic, "magic");
}

#[test]
fn damaged_syzygy_file_with_random_bytes_after_the_magic_probe_exits_2_naming_it() {
    probe_refuses_damaged("probe-random", Damage::RandomAfterMagic, "header");
}

#[test]
fn damaged_syzygy_file_with_an_intact_header_and_corrupt_data_probe_exits_2_naming_it() {
    probe_refuses_damaged("probe-data", Damage::CorruptData, "checksum");
}

#[test]
fn tablebase_verify_reads_every_file_and_names_the_damaged_one() {
    let dir = damaged_copy("verify-good", Damage::CorruptData);
    std::fs::copy(
        Path::new(&fixture_dir()).join("KRvK.rtbw"),
        dir.join("KRvK.rtbw"),
    )
    .unwrap();
    let run = sparring(&["tablebase", "verify", "--path", dir.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "10 files checked, 0 damaged\n");
    let dir = damaged_copy("verify-data", Damage::CorruptData);
    let run = sparring(&["tablebase", "verify", "--path", dir.to_str().unwrap()]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    let file = dir.join("KRvK.rtbw").display().to_string();
    assert!(run.stdout.contains(&file), "{}", run.stdout);
    assert!(run.stdout.contains("checksum"), "{}", run.stdout);
    assert!(
        run.stdout.ends_with("10 files checked, 1 damaged\n"),
        "{}",
        run.stdout
    );
    let empty = dir.join("no-tables");
    std::fs::create_dir_all(&empty).unwrap();
    let run = sparring(&["tablebase", "verify", "--path", empty.to_str().unwrap()]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("no Syzygy tables"), "{}", run.stderr);
}

/// `sparring uci` given the damaged copy as SyzygyPath: it says which file is damaged, searches
/// without tables, answers `go` with a move and quits with status 0; the prober's own line never
/// reaches the UCI stream.
fn uci_plays_on_without_damaged(name: &str, damage: Damage, problem: &str) {
    let dir = damaged_copy(name, damage);
    let script = format!(
        "uci\nsetoption name SyzygyPath value {}\nisready\n\
         position fen 8/8/8/8/8/2k5/8/K6R w - - 0 1\ngo nodes 2000\nisready\nquit\n",
        dir.display()
    );
    let run = sparring_with_input(&["uci"], &script);
    assert_eq!(
        run.code, 0,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    assert!(!run.stdout.contains("Incomplete"), "{}", run.stdout);
    let file = dir.join("KRvK.rtbw").display().to_string();
    let said = run
        .stdout
        .lines()
        .find(|l| l.starts_with("info string") && l.contains(&file))
        .unwrap_or_else(|| panic!("no info string naming {file}: {}", run.stdout));
    assert!(said.contains(problem), "{said}");
    assert!(said.contains("no tablebases in use"), "{said}");
    assert!(run.stdout.contains("\nbestmove "), "{}", run.stdout);
    assert_eq!(run.stdout.matches("readyok").count(), 2, "{}", run.stdout);
}

#[test]
fn damaged_syzygy_file_truncated_to_104_bytes_uci_engine_plays_on_without_tables() {
    uci_plays_on_without_damaged("uci-truncated", Damage::Truncated, "104 bytes");
}

#[test]
fn damaged_syzygy_file_with_an_intact_header_and_corrupt_data_uci_engine_plays_on_without_tables() {
    uci_plays_on_without_damaged("uci-data", Damage::CorruptData, "checksum");
}

#[test]
fn damaged_syzygy_file_of_zero_length_uci_engine_plays_on_without_tables() {
    uci_plays_on_without_damaged("uci-empty", Damage::Empty, "empty");
}

#[test]
fn damaged_syzygy_file_that_is_a_directory_uci_engine_plays_on_without_tables() {
    uci_plays_on_without_damaged("uci-directory", Damage::Directory, "not a regular file");
}
