//! fastchess's handling of engine options, as fishtest meets it: an engine without
//! `UCI_Chess960` in a Chess960 run (warned about, plays on), a button pressed by its name
//! alone, a `double` spin's value read as `std::stod` reads it, and the option declarations
//! fastchess cannot build (the run stops before any game, exit 2). Each case runs the binary
//! under a watchdog and checks that no engine is left behind.

use crate::common::binary::{scratch_in, warning_lines};
use crate::common::hostile::{assert_no_leftover, mock_engine, run_env, Outcome, SPARRING};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    scratch_in("compliance-options", name)
}

/// Runs the binary as `program` (a symlink in `dir`, as a worker installs it) with `args`.
fn run_as(program: &str, dir: &Path, args: &[String]) -> Outcome {
    let link = dir.join(program);
    if !link.exists() {
        std::os::unix::fs::symlink(SPARRING, &link).unwrap();
    }
    let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
    run_env(&link, dir, &args, &[])
}

/// Two engines named Bad (the mock with `bad`, its `--name` the marker `marker`) and Good (the
/// mock as it is), two games of at most 4 moves a side, then `extra`.
fn two_games(marker: &str, bad: &[&str], extra: &[&str]) -> Vec<String> {
    let quoted: Vec<String> = bad
        .iter()
        .map(|a| format!("'{}'", a.replace('\'', r"'\''")))
        .collect();
    let mock = mock_engine();
    let mut args: Vec<String> = vec![
        "-engine".into(),
        "name=Bad".into(),
        format!("cmd={mock}"),
        format!("args=--name {marker} {}", quoted.join(" ")),
        "-engine".into(),
        "name=Good".into(),
        format!("cmd={mock}"),
        "-each".into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    args.extend(
        "tc=inf nodes=10 -rounds 1 -games 2 -maxmoves 4 -pgnout file=games.pgn"
            .split(' ')
            .map(String::from),
    );
    args
}

fn frc_book() -> String {
    format!(
        "file={}/openings/frc-balanced.epd",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn an_engine_without_uci_chess960_is_warned_about_and_plays_on() {
    let marker = "no-chess960-mock";
    let book = frc_book();
    let frc = ["-variant", "fischerandom", "-openings", &book, "format=epd"];
    // fastchess: `Warning; X doesn't have option UCI_Chess960` (fishtest stops on it), the
    // option is not sent, and the games are played.
    let dir = scratch("fastchess");
    let log = dir.join("bad.log");
    let mut args = two_games(marker, &["--log", log.to_str().unwrap()], &[]);
    args.extend(frc.iter().map(|s| s.to_string()));
    let run = run_as("fastchess", &dir, &args);
    run.assert_status(0, "fastchess dialect");
    assert_eq!(
        warning_lines(&run.stdout),
        [
            "Warning; Bad doesn't have option UCI_Chess960",
            "Warning; Good doesn't have option UCI_Chess960"
        ],
        "{}",
        run.stdout
    );
    let pgn = std::fs::read_to_string(dir.join("games.pgn")).unwrap();
    assert_eq!(pgn.matches("[Variant \"Chess960\"]").count(), 2);
    let sent = std::fs::read_to_string(&log).unwrap();
    assert!(!sent.contains("UCI_Chess960"), "{sent}");
    assert!(sent.contains("position fen "), "{sent}");
    assert_no_leftover(marker);

    // cutechess-cli's name: the same warning, counted per engine with the engine log's lines.
    let dir = scratch("cutechess");
    let mut args = two_games(marker, &[], &["proto=uci"]);
    args.extend(frc.iter().map(|s| s.to_string()));
    args.extend(["-log".to_string(), "file=engines.log".to_string()]);
    let run = run_as("cutechess-cli", &dir, &args);
    run.assert_status(0, "cutechess dialect");
    assert!(
        run.stdout
            .contains("Compliance warnings (the engine log has each): Bad 1, Good 1"),
        "{}",
        run.stdout
    );
    let log = std::fs::read_to_string(dir.join("engines.log")).unwrap();
    assert!(log.contains("Bad # Warning; Bad doesn't have option UCI_Chess960"));

    // -strict: fastchess stops at any warning; sparring before the first game, status 2.
    let dir = scratch("strict");
    let mut args = two_games(marker, &[], &[]);
    args.extend(frc.iter().map(|s| s.to_string()));
    args.push("-strict".to_string());
    let run = run_as("fastchess", &dir, &args);
    run.assert_status(2, "-strict");
    assert!(
        run.stderr
            .contains("`Bad` does not declare option `UCI_Chess960`"),
        "{}",
        run.stderr
    );
    assert_no_leftover(marker);
}

/// The distinct `setoption` lines an engine's command log holds (each start sends them).
fn setoptions(log: &Path) -> Vec<String> {
    let mut lines: Vec<String> = std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("setoption"))
        .map(String::from)
        .collect();
    lines.dedup();
    lines
}

#[test]
fn an_option_the_engine_does_not_declare_is_warned_about_and_never_sent() {
    // fastchess (`UciEngine::sendSetoption`) and cutechess-cli (`ChessEngine::setOption`)
    // warn `<engine> doesn't have option <name>` and send nothing; a declared option next to
    // it is sent as usual.
    let marker = "undeclared-mock";
    let declare = ["--declare", "Known type spin default 1 min 0 max 8"];
    let options = ["option.Known=3", "option.Mystery=1", "option.Threads=1"];
    let sent_known = ["setoption name Known value 3"];
    for runner in ["fastchess", "cutechess-cli"] {
        let dir = scratch(&format!("undeclared-{runner}"));
        let log = dir.join("bad.log");
        let bad = [&declare[..], &["--log", log.to_str().unwrap()]].concat();
        let each = [&["proto=uci"][..], &options].concat();
        let mut args = two_games(marker, &bad, &each);
        args.extend(["-log".to_string(), "file=engines.log".to_string()]);
        let run = run_as(runner, &dir, &args);
        run.assert_status(0, runner);
        assert_eq!(setoptions(&log), sent_known, "{runner}");
        let engine_log = std::fs::read_to_string(dir.join("engines.log")).unwrap();
        for option in ["Mystery", "Threads"] {
            let warning = format!("Warning; Bad doesn't have option {option}");
            assert!(engine_log.contains(&warning), "{runner}: {engine_log}");
            if runner == "fastchess" {
                assert!(warning_lines(&run.stdout).contains(&warning.as_str()));
            }
        }
        assert_no_leftover(marker);
    }

    // A TOML run: the same.
    let dir = scratch("undeclared-toml");
    let log = dir.join("bad.log");
    let mock = mock_engine();
    let toml = format!(
        "[tournament]\nrounds = 1\n[time_control]\nnodes = 10\n[adjudication]\nmax_moves = 4\n\
         [output]\ndir = \"out\"\n[[engine]]\nname = \"Bad\"\nuci = {{ command = \"{mock}\", \
         args = [\"--name\", \"{marker}\", \"{}\", \"{}\", \"--log\", {:?}], \
         options = {{ Known = 3, Mystery = 1, Threads = 1 }} }}\n\
         [[engine]]\nname = \"Good\"\nuci = {{ command = \"{mock}\" }}\n",
        declare[0],
        declare[1],
        log.display().to_string()
    );
    std::fs::write(dir.join("match.toml"), toml).unwrap();
    let args: Vec<&OsStr> = ["match", "match.toml"].map(OsStr::new).to_vec();
    let run = run_env(Path::new(SPARRING), &dir, &args, &[]);
    run.assert_status(0, "TOML run");
    assert_eq!(setoptions(&log), sent_known, "TOML run");
    assert!(
        run.stdout
            .contains("Warning; Bad doesn't have option Mystery"),
        "{}",
        run.stdout
    );
    assert_no_leftover(marker);
}

#[test]
fn a_button_is_pressed_by_its_name_alone() {
    let dir = scratch("button");
    let log = dir.join("bad.log");
    let args = two_games(
        "button-mock",
        &[
            "--declare",
            "Clear Hash type button",
            "--log",
            log.to_str().unwrap(),
        ],
        &["option.Clear Hash=true"],
    );
    let run = run_as("fastchess", &dir, &args);
    run.assert_status(0, "a button");
    let sent = std::fs::read_to_string(&log).unwrap();
    let presses: Vec<&str> = sent.lines().filter(|l| l.contains("Clear Hash")).collect();
    assert!(!presses.is_empty(), "{sent}");
    assert!(
        presses.iter().all(|l| *l == "setoption name Clear Hash"),
        "{presses:?}"
    );
}

#[test]
fn a_double_spin_value_is_read_as_stod_reads_it() {
    let dir = scratch("double-spin");
    let args = two_games(
        "double-spin-mock",
        &[
            "--declare",
            "Lr type spin default 0.5 min 0.1 max 1.5",
            "--declare",
            "Mu type spin default 1 min 0 max 2.5",
            "--declare",
            "Nu type spin default 1 min 0 max 2.5",
        ],
        &["option.Lr=abc", "option.Mu=2.75", "option.Nu=2.25x"],
    );
    let run = run_as("fastchess", &dir, &args);
    run.assert_status(0, "double spins");
    let bad: Vec<&str> = warning_lines(&run.stdout)
        .into_iter()
        .filter(|l| !l.contains("Good doesn't have"))
        .collect();
    assert_eq!(
        bad,
        [
            "Warning; Failed to set option Lr with value abc for engine Bad: stod",
            "Warning; Invalid value for option Mu; 2.75",
        ],
        "{}",
        run.stdout
    );
}

#[test]
fn a_spin_declaration_fastchess_cannot_build_stops_the_run_before_any_game() {
    let cases = [
        (
            "Hash type spin default 16 min 64 max 1",
            "option `Hash` as a spin with default 16, min 64, max 1: Min value cannot be greater than max value.",
        ),
        (
            "Hash type spin default 100 min 1 max 64",
            "default 100, min 1, max 64: Value is out of the allowed range.",
        ),
        (
            "Hash type spin min 1 max 64",
            "default none, min 1, max 64: The spin values are not numeric.",
        ),
        (
            "Hash type spin default 1 min 0 max lots",
            "max lots: The spin values are not numeric.",
        ),
    ];
    for (declared, expected) in cases {
        let dir = scratch("bad-spin");
        // Not configured: fastchess builds every declared option.
        let args = two_games("bad-spin-mock", &["--declare", declared], &[]);
        let run = run_as("fastchess", &dir, &args);
        run.assert_bad_input(expected, declared);
        assert!(run.stderr.contains("engine `Bad`"), "{}", run.stderr);
        assert!(!dir.join("games.pgn").exists(), "{declared}: no game");
        assert_no_leftover("bad-spin-mock");
    }
}

#[test]
fn other_odd_option_declarations_are_read_as_fastchess_reads_them() {
    let long = "N".repeat(10_000);
    let long_spin = format!("{long} type spin default 1 min 0 max 2");
    let long_option = format!("option.{long}=5");
    // No type: no option (fastchess skips the line); a combo without vars accepts no value.
    let cases: [(&str, &str, String); 3] = [
        (
            "Foo default 5",
            "option.Foo=3",
            "Warning; Bad doesn't have option Foo".to_string(),
        ),
        (
            "Style type combo default Normal",
            "option.Style=Normal",
            "Warning; Invalid value for option Style; Normal".to_string(),
        ),
        (
            &long_spin,
            &long_option,
            format!("Warning; Invalid value for option {long}; 5"),
        ),
    ];
    for (declared, option, expected) in &cases {
        let dir = scratch("odd-option");
        let args = two_games("odd-option-mock", &["--declare", declared], &[option]);
        let run = run_as("fastchess", &dir, &args);
        run.assert_status(0, declared);
        assert!(
            warning_lines(&run.stdout).contains(&expected.as_str()),
            "{}",
            &run.stdout[..run.stdout.len().min(2000)]
        );
        assert_no_leftover("odd-option-mock");
    }
}

#[test]
fn a_cpu_list_naming_absent_cpus_is_shown_by_its_ranges_and_a_huge_one_refused() {
    let dir = scratch("affinity");
    // More CPUs than any test machine lets the runner use: the message names the list as
    // given (it once spelled out all 4096 numbers).
    let mut args = two_games("affinity-mock", &[], &[]);
    args.extend(["-use-affinity".to_string(), "0-4095".to_string()]);
    let run = run_as("fastchess", &dir, &args);
    run.assert_bad_input(
        "compliance.affinity (-use-affinity) `0-4095`: CPU ",
        "0-4095",
    );
    assert!(run.stderr.len() < 300, "{}", run.stderr);
    // Repeats count: a list of 4097 CPUs is no list (it once grew without bound).
    let mut args = two_games("affinity-mock", &[], &[]);
    args.extend(["-use-affinity".to_string(), "0-4095,0".to_string()]);
    let run = run_as("fastchess", &dir, &args);
    run.assert_bad_input("at most 4096 CPUs", "0-4095,0");
    assert_no_leftover("affinity-mock");
}

#[test]
fn the_compliance_options_refuse_junk_on_both_dialect_lines_and_in_toml() {
    let dir = scratch("junk");
    let junk: &[(&[&str], &str)] = &[
        (
            &["-check-mate-pvs", "maybe"],
            "-check-mate-pvs takes no value, found `maybe`",
        ),
        (
            &["-check-mate-pvs=true"],
            "-check-mate-pvs=true: unknown option",
        ),
        (
            &["-crc32", "pgn=maybe"],
            "-crc32 pgn=maybe: expected true or false",
        ),
        (&["-crc32"], "-crc32 needs its settings"),
        (
            &["-crc32", "epd=true"],
            "-crc32 epd=true: expected the key pgn",
        ),
        (&["-use-affinity", "a,b"], "-use-affinity a,b: bad CPU list"),
        (&["-use-affinity", "3-1"], "-use-affinity 3-1: bad CPU list"),
        (&["-use-affinity", ""], "-use-affinity : bad CPU list"),
        (
            &["-use-affinity", "0-99999999999"],
            "-use-affinity 0-99999999999: bad CPU list",
        ),
        (
            &["-use-affinity", "0-999"],
            "compliance.affinity (-use-affinity) `0-999`: CPU ",
        ),
        (
            &["-show-latency", "yes"],
            "-show-latency takes no value, found `yes`",
        ),
    ];
    for runner in ["fastchess", "cutechess-cli"] {
        for (extra, needle) in junk {
            let mut args = two_games("junk-mock", &[], &["proto=uci"]);
            args.extend(extra.iter().map(|s| s.to_string()));
            let run = run_as(runner, &dir, &args);
            run.assert_bad_input(needle, &format!("{runner} {extra:?}"));
        }
    }
    let mock = mock_engine();
    let toml_junk = [
        (
            "mate_pvs = \"yes\"",
            "`compliance.mate_pvs` is the string \"yes\", expected true or false",
        ),
        (
            "crc32 = 1",
            "`compliance.crc32` is the integer 1, expected true or false",
        ),
        (
            "latency = \"x\"",
            "`compliance.latency` is the string \"x\"",
        ),
        (
            "affinity = \"a,b\"",
            "`compliance.affinity` is the string \"a,b\"",
        ),
        (
            "affinity = \"3-1\"",
            "`compliance.affinity` is the string \"3-1\"",
        ),
        (
            "affinity = \"\"",
            "`compliance.affinity` is the string \"\"",
        ),
        (
            "affinity = 3",
            "`compliance.affinity` is the integer 3, expected a string",
        ),
        (
            "affinity = \"0-999\"",
            "compliance.affinity (-use-affinity) `0-999`: CPU ",
        ),
        (
            "check_mate_pvs = true",
            "unknown key `compliance.check_mate_pvs`",
        ),
    ];
    for (line, needle) in toml_junk {
        let toml = format!(
            "[tournament]\nrounds = 1\n[time_control]\nnodes = 10\n[output]\ndir = \"out\"\n\
             [compliance]\n{line}\n[[engine]]\nname = \"A\"\nuci = {{ command = \"{mock}\", args = [\"--name\", \"junk-mock\"] }}\n\
             [[engine]]\nname = \"B\"\nuci = {{ command = \"{mock}\" }}\n"
        );
        std::fs::write(dir.join("match.toml"), toml).unwrap();
        let args = ["match", "match.toml"].map(String::from);
        let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
        let run = run_env(Path::new(SPARRING), &dir, &args, &[]);
        run.assert_bad_input(needle, line);
    }
    assert_no_leftover("junk-mock");
}

/// fishtest's worker line (`worker/games.py`, fishtest b8eecff2) for two Stockfish engines.
fn fishtest_line(stockfish: &Path, mate_pvs: bool) -> Vec<String> {
    let book = format!(
        "file={}/openings/unbalanced.epd",
        env!("CARGO_MANIFEST_DIR")
    );
    let sf = stockfish.display();
    let mut line = format!(
        "-testEnv -recover -repeat -games 2 -rounds 10 -ratinginterval 1 -scoreinterval 1 \
         -autosaveinterval 0 -report penta=true -pgnout file=sf.pgn append=false -crc32 pgn=true \
         -site https://tests.example.org/tests/view/1 -event Batch_1 -srand 49 \
         -resign movecount=3 score=600 -draw movenumber=34 movecount=8 score=20 \
         -variant standard -concurrency 1 -openings {book} format=epd order=sequential"
    );
    if mate_pvs {
        line.push_str(" -check-mate-pvs");
    }
    for name in ["New-sf", "Base-sf"] {
        line.push_str(&format!(
            " -engine name={name} nodes=5000 cmd={sf} dir=. option.Hash=16"
        ));
    }
    line.push_str(" -each proto=uci option.Threads=1");
    line.split(' ').map(String::from).collect()
}

#[test]
fn stockfish_under_fishtest_s_worker_line_warns_only_of_its_short_mate_pvs() {
    let Some(stockfish) = crate::common::tools::usr_games("stockfish") else {
        return;
    };
    // Debian's Stockfish 15.1 often ends a mate score's PV before the mate (fastchess
    // 58072f2 prints the same lines on the same games; docs/command-line-dialect.md).
    for mate_pvs in [false, true] {
        let dir = scratch(if mate_pvs { "sf-mate-pvs" } else { "sf" });
        let run = run_as("fastchess", &dir, &fishtest_line(&stockfish, mate_pvs));
        run.assert_status(0, "fishtest's line");
        assert!(run.stdout.contains("\nFinished match\n"), "{}", run.stdout);
        assert_eq!(run.stdout.matches("Finished game ").count(), 20);
        let found = warning_lines(&run.stdout);
        if mate_pvs {
            let other: Vec<&&str> = found
                .iter()
                .filter(|l| !l.starts_with("Warning; Incomplete mating PV - from "))
                .collect();
            assert!(other.is_empty(), "{other:?}");
        } else {
            assert!(found.is_empty(), "{found:?}");
        }
    }
}
