//! The per-engine compliance warning counts over a whole run: a run killed and resumed reports
//! the counts of every game (figures.csv keeps them per game) and its option warnings once, and
//! report.html's table of them equals figures.csv's column (in Chromium when installed).

use crate::common::binary::scratch_in;
use crate::common::mock::mock_engine;
use crate::common::tools::skip;
use crate::report::{chromium, load, table_cells};
use std::path::Path;
use std::process::Command;

const SPARRING: &str = env!("CARGO_BIN_EXE_sparring");

/// Bad writes an illegal PV move with every move and is given an option it does not declare;
/// Good is clean. Three rounds of two games of at most 3 moves a side, at 10 nodes.
fn match_toml() -> String {
    let mock = mock_engine();
    format!(
        "[tournament]\nrounds = 3\n[time_control]\nnodes = 10\n[adjudication]\nmax_moves = 3\n\
         [output]\ndir = \"out\"\n\
         [[engine]]\nname = \"Bad\"\nuci = {{ command = \"{mock}\", args = [\"--info\", \"depth 2 score cp 5 pv {{best}} a1a1\"], options = {{ Mystery = \"1\" }} }}\n\
         [[engine]]\nname = \"Good\"\nuci = {{ command = \"{mock}\" }}\n"
    )
}

/// Runs the match of `dir` (with `--resume` when asked); gives the end-of-run count line.
fn play(dir: &Path, resume: bool) -> String {
    let mut args = vec!["match", "match.toml", "--progress", "lines"];
    if resume {
        args.push("--resume");
    }
    let out = Command::new(SPARRING)
        .args(&args)
        .current_dir(dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    stdout
        .lines()
        .find(|l| l.starts_with("Compliance warnings (the engine log has each): "))
        .unwrap_or_else(|| panic!("{stdout}"))
        .to_string()
}

/// figures.csv's `compliance_warnings` summed per engine index, and its game-0 rows.
fn figures_counts(dir: &Path) -> ([u64; 2], usize) {
    let text = std::fs::read_to_string(dir.join("out/figures.csv")).unwrap();
    let mut lines = text.lines();
    assert!(lines
        .next()
        .unwrap()
        .ends_with(",illegal_moves,compliance_warnings"));
    let (mut counts, mut start_rows) = ([0; 2], 0);
    for line in lines {
        let fields: Vec<&str> = line.split(',').collect();
        let engine: usize = fields[1].parse().unwrap();
        counts[engine] += fields[15].parse::<u64>().unwrap();
        start_rows += usize::from(fields[0] == "0");
    }
    (counts, start_rows)
}

#[test]
fn a_killed_and_resumed_run_counts_the_warnings_of_every_game() {
    let full = scratch_in("compliance_counts", "full");
    let cut = scratch_in("compliance_counts", "cut");
    for dir in [&full, &cut] {
        std::fs::write(dir.join("match.toml"), match_toml()).unwrap();
    }
    let whole = play(&full, false);
    let (counts, start_rows) = figures_counts(&full);
    assert_eq!(start_rows, 1, "the undeclared option, once");
    assert!(
        counts[0] > 6,
        "{counts:?}: one per move of Bad, and the option"
    );
    assert_eq!(
        whole,
        format!(
            "Compliance warnings (the engine log has each): Bad {}, Good 0",
            counts[0]
        )
    );
    assert_eq!(counts[1], 0);

    // What a kill during game 4 leaves: three games.csv rows and half of a fourth.
    play(&cut, false);
    let csv_path = cut.join("out/games.csv");
    let csv = std::fs::read_to_string(&csv_path).unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    let partial = &rows[4][..10];
    std::fs::write(&csv_path, format!("{}\n{partial}", rows[..4].join("\n"))).unwrap();
    let resumed = play(&cut, true);
    assert_eq!(
        resumed, whole,
        "the resumed run counts the games played before it"
    );
    assert_eq!(
        figures_counts(&cut),
        (counts, 1),
        "the option's row is not doubled"
    );

    // The report's table is figures.csv's column.
    let page = cut.join("out/report.html");
    let html = std::fs::read_to_string(&page).unwrap();
    let expected = vec![
        vec!["engine".to_string(), "compliance warnings".to_string()],
        vec!["Bad".to_string(), counts[0].to_string()],
        vec!["Good".to_string(), "0".to_string()],
    ];
    assert_eq!(table_cells(&html, "compliance"), expected);
    let Some(browser) = chromium() else {
        return skip("chromium is not installed: the compliance table is not read in a browser");
    };
    let dom = load(&browser, &page, &cut.join("report.png"));
    assert_eq!(table_cells(&dom, "compliance"), expected);
}
