//! What the dialect refuses or notes, and how the refusal reads.

use super::*;

#[test]
fn unknown_and_unimplemented_options_are_refused_by_name() {
    assert!(error(&format!("{TWO} -frobnicate 3")).contains("-frobnicate: unknown option"));
    assert!(error(&format!("{TWO} -epdout file=x.epd frob=1")).contains("-epdout frob=1"));
    assert!(error(&format!("{TWO} -noswap 1")).contains("-noswap"));
    // -tb is read; a path without tables is refused naming it.
    assert!(error(&format!("{TWO} -tb /nonexistent/syzygy")).contains("-tb /nonexistent/syzygy"));
    assert!(
        error("-engine builtin nodes=1 frob=2 -engine builtin nodes=1")
            .contains("unknown engine key `frob`")
    );
    assert!(error(&format!("{TWO} -variant atomic")).contains("-variant atomic"));
    assert_eq!(
        config(&format!("{TWO} -variant fischerandom")).variant,
        sparring::arena::Variant::Chess960
    );
    assert_eq!(
        config(&format!("{TWO} -variant standard")).variant,
        sparring::arena::Variant::Standard
    );
    assert!(error(&format!("{TWO} -draw movecount=abc")).contains("movecount=abc"));
    assert!(error("stray -engine builtin nodes=1").contains("`stray`"));
    assert!(error("-engine builtin name=a -engine builtin nodes=1").contains("no time control"));
    assert!(
        error("-engine builtin tc=10+0.1 st=1 -engine builtin nodes=1").contains("tc= and st=")
    );
    assert!(
        error("-engine cmd=x nodes=1 option.Hash= -engine cmd=y nodes=1").contains("option.Hash=")
    );
    assert!(error("-engine builtin nodes=1").contains("two -engine"));
}

#[test]
fn irrelevant_options_are_accepted_with_a_note() {
    let line = format!(
        "{TWO} -testEnv -check-mate-pvs -use-affinity -show-latency -crc32 pgn=true -scoreinterval 1 -autosaveinterval 0 -outcomeinterval 5"
    );
    let Request::Match(m) = parse(&args(&line), Flavor::Fastchess).unwrap() else {
        panic!()
    };
    // The compliance options (-testEnv ... -crc32) are implemented: no note.
    assert_eq!(m.notes.len(), 3, "{:?}", m.notes);
    for note in &m.notes {
        // fishtest counts lines holding these words as crashes or time losses.
        for word in ["stall", "disconnect", "on time", "timeout", "Warning;"] {
            assert!(!note.contains(word), "{note}");
        }
    }
}

/// An option that takes settings or a value, given none (in the middle of the line or as its
/// last word), is refused by name: `-pgnout` alone used to be ignored silently.
#[test]
fn options_without_their_values_are_refused_by_name() {
    let needs_settings = [
        "-pgnout",
        "-each",
        "-openings",
        "-engine",
        "-draw",
        "-resign",
        "-sprt",
        "-log",
        "-config",
        "-report",
        "-output",
        "-crc32",
        "-quick",
    ];
    for option in needs_settings {
        for line in [
            format!("{TWO} {option}"),
            format!("{TWO} {option} -rounds 4"),
            format!("{option} {TWO}"),
        ] {
            let message = error(&line);
            assert!(
                message.starts_with(&format!("{option} needs its settings")),
                "{line}: {message}"
            );
        }
    }
    let needs_a_value = [
        "-rounds",
        "-games",
        "-concurrency",
        "-srand",
        "-maxmoves",
        "-variant",
        "-tournament",
        "-ratinginterval",
        "-scoreinterval",
        "-autosaveinterval",
        "-event",
        "-site",
        "--dump-config",
        "--progress",
    ];
    for option in needs_a_value {
        for line in [
            format!("{TWO} {option}"),
            format!("{TWO} {option} -recover"),
        ] {
            let message = error(&line);
            assert_eq!(message, format!("{option} needs a value"), "{line}");
        }
    }
    // -pgnout with settings but no file names the missing key.
    assert_eq!(
        error(&format!("{TWO} -pgnout append=false")),
        "-pgnout append=false: file= is needed (the PGN file to write)"
    );
    // Options that take no value or an optional one still parse bare.
    config(&format!("{TWO} -recover -repeat -use-affinity -strict"));
}

/// Regression (issue 21 sweep, found by tests/it/fuzz.rs): a value holding a line break made the
/// refusal two lines; `run` escapes control characters.
#[test]
fn refusals_quoting_control_characters_stay_one_line() {
    let message = one_line(&error(&format!("{TWO} -rounds")).replace("needs", "\nneeds"));
    assert!(!message.contains('\n'), "{message}");
    assert_eq!(one_line("-engine \n\t\u{7}: x"), "-engine \\n\\t\\u{7}: x");
    assert_eq!(one_line("é ok"), "é ok");
}

/// Regression (issue 21 sweep, found by tests/it/fuzz.rs): a PGN name the TOML form refuses (blank,
/// a control character) was accepted, and `--dump-config` wrote a file that did not read back;
/// a `-config` file that cannot be read did not name `-config`.
#[test]
fn pgn_names_the_toml_form_refuses_and_missing_config_files_are_named() {
    for name in ["\t", " ", "a\nb.pgn", "dir/\u{7}.pgn"] {
        let line = format!("{TWO} -pgnout");
        let mut tokens = args(&line);
        tokens.push(format!("file={name}"));
        let message = parse(&tokens, Flavor::Fastchess).unwrap_err().0;
        assert!(message.starts_with("-pgnout file="), "{message}");
    }
    let message = error("-config file=no-such-file.toml");
    assert!(
        message.starts_with("-config file=no-such-file.toml: "),
        "{message}"
    );
}
