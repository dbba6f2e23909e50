//! `sparring tablebase probe`: prints WDL and DTZ, and says which table is missing (status 2).

use crate::common::binary;

use binary::sparring;
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
