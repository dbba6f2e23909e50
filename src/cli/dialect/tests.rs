//! The dialect's parser, option by option.

use super::engine::{parse_tc, shell_words};
use super::tokens::is_option;
use super::*;
use sparring::arena::config::{
    DrawAdjudication, EngineKind, MatchConfig, OpeningOrder, ResignAdjudication, ResultsFormat,
    TimeControl, TournamentKind,
};
use sparring::record::{PgnNotation, PgnStyle};
use sparring::stats::SprtModel;
use std::time::Duration;

fn args(line: &str) -> Vec<String> {
    line.split_whitespace().map(str::to_string).collect()
}

fn config(line: &str) -> MatchConfig {
    match parse(&args(line), Flavor::Fastchess).expect("parses") {
        Request::Match(m) => m.config,
        other => panic!("expected a match, got {other:?}"),
    }
}

fn error(line: &str) -> String {
    parse(&args(line), Flavor::Fastchess).unwrap_err().0
}

const TWO: &str = "-engine builtin name=a nodes=100 -engine builtin name=b nodes=100";

#[test]
fn negative_numbers_are_values_and_dashed_words_are_options() {
    assert!(is_option("-engine"));
    assert!(is_option("--dump-config"));
    assert!(!is_option("-2"));
    assert!(!is_option("-0.5"));
    assert!(!is_option("-"));
    let c = config(&format!("{TWO} -concurrency -100"));
    assert_eq!(c.concurrency, 1);
}

#[test]
fn time_controls_follow_fastchess_syntax() {
    let clock = |m: Option<u32>, b: u64, i: u64| TimeControl::Clock {
        moves: m,
        base: Duration::from_millis(b),
        increment: Duration::from_millis(i),
    };
    assert_eq!(parse_tc("10+0.1"), Ok(Some(clock(None, 10_000, 100))));
    assert_eq!(parse_tc("12.500+0.125"), Ok(Some(clock(None, 12_500, 125))));
    assert_eq!(
        parse_tc("40/60+0.6"),
        Ok(Some(clock(Some(40), 60_000, 600)))
    );
    assert_eq!(parse_tc("1:30+1s"), Ok(Some(clock(None, 90_000, 1000))));
    assert_eq!(parse_tc("inf/8.5+0.09"), Ok(Some(clock(None, 8_500, 90))));
    assert_eq!(parse_tc("inf"), Ok(None));
    assert!(parse_tc("0+1").is_err());
    assert!(parse_tc("abc").is_err());
    assert!(parse_tc("hg10").unwrap_err().contains("hourglass"));
}

#[test]
fn shell_words_split_like_a_shell() {
    assert_eq!(
        shell_words(r#"uci --x "a b" 'c d' e\ f"#).unwrap(),
        vec!["uci", "--x", "a b", "c d", "e f"]
    );
    assert!(shell_words("\"open").is_err());
    assert_eq!(shell_words("").unwrap(), Vec::<String>::new());
}

#[test]
fn each_overrides_the_engines_own_keys_as_in_fastchess() {
    let c = config(
        "-each tc=5+0.05 option.Hash=32 -engine cmd=a tc=1+0.01 option.Hash=8 option.X=1 -engine cmd=b",
    );
    assert_eq!(c.time_control, TimeControl::parse_clock("5+0.05").unwrap());
    for e in &c.engines {
        assert_eq!(e.time_control, None);
        let EngineKind::Uci { options, .. } = &e.kind else {
            panic!("a UCI engine")
        };
        assert!(options.contains(&("Hash".to_string(), "32".to_string())));
    }
    let EngineKind::Uci { options, .. } = &c.engines[0].kind else {
        panic!()
    };
    assert_eq!(
        options,
        &vec![("Hash".into(), "32".into()), ("X".into(), "1".into())]
    );
}

#[test]
fn different_limits_stay_with_their_engines() {
    let c = config("-engine builtin name=a nodes=100 -engine builtin name=b depth=3");
    assert_eq!(c.time_control, TimeControl::Nodes(100));
    assert_eq!(c.engines[0].time_control, Some(TimeControl::Nodes(100)));
    assert_eq!(c.engines[1].time_control, Some(TimeControl::Depth(3)));
}

#[test]
fn games_and_rounds_follow_fastchess() {
    assert_eq!(config(TWO).rounds, 2);
    assert_eq!(config(&format!("{TWO} -rounds 7 -games 2")).rounds, 7);
    assert_eq!(config(&format!("{TWO} -repeat -rounds 7")).rounds, 7);
    // -games 100 alone: 100 rounds of 2 games.
    assert_eq!(config(&format!("{TWO} -games 100")).rounds, 100);
    let c = config(&format!("{TWO} -games 1 -rounds 6 -openings file=x.epd"));
    assert_eq!(c.rounds, 3);
    assert!(c.openings.unwrap().per_game);
    assert!(!c.single_last_game);
    // Issue 21, 6: an odd count is played as that many games, the last one unpaired.
    let c = config(&format!("{TWO} -games 1 -rounds 5"));
    assert_eq!(
        (c.rounds, c.single_last_game, c.total_games()),
        (3, true, 5)
    );
    assert!(error(&format!("{TWO} -games 3 -rounds 3")).contains("at most 2 games"));
    assert!(error(&format!("{TWO} -rounds 0")).contains("-rounds 0"));
}

#[test]
fn cutechess_counts_games_per_encounter() {
    let c = match parse(
        &args(&format!("{TWO} -games 10 -repeat")),
        Flavor::Cutechess,
    ) {
        Ok(Request::Match(m)) => m.config,
        other => panic!("{other:?}"),
    };
    assert_eq!(c.rounds, 5);
    assert_eq!(c.output.format, ResultsFormat::Cutechess);
    assert!(!c.output.report_penta);
    // cutechess-cli's default is -games 1: -rounds 3 plays 3 games.
    let c = match parse(&args(&format!("{TWO} -rounds 3")), Flavor::Cutechess) {
        Ok(Request::Match(m)) => m.config,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        (c.rounds, c.single_last_game, c.total_games()),
        (2, true, 3)
    );
}

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
        "{TWO} -testEnv -check-mate-pvs -use-affinity -show-latency -crc32 pgn=true -scoreinterval 1 -autosaveinterval 0"
    );
    let Request::Match(m) = parse(&args(&line), Flavor::Fastchess).unwrap() else {
        panic!()
    };
    assert_eq!(m.notes.len(), 7);
    for note in &m.notes {
        // fishtest counts lines holding these words as crashes or time losses.
        for word in ["stall", "disconnect", "on time", "timeout", "Warning;"] {
            assert!(!note.contains(word), "{note}");
        }
    }
}

#[test]
fn the_version_line_satisfies_openbench_and_names_sparring() {
    let first = VERSION_LINE
        .split(|c: char| !c.is_ascii_digit() && c != '.')
        .find(|t| t.contains('.'))
        .unwrap();
    assert_eq!(first, "1.8.1");
    assert!(VERSION_LINE.contains("sparring"));
    assert!(matches!(
        parse(&args("-version"), Flavor::Fastchess),
        Ok(Request::Version)
    ));
    assert!(matches!(parse(&[], Flavor::Fastchess), Ok(Request::Help)));
}

#[test]
fn builtin_engines_take_hash_weights_and_one_thread() {
    let c = config(
        "-engine builtin name=a hash=8 nodes=10 -engine cmd=builtin option.Hash=4 option.Threads=1 nodes=10",
    );
    assert_eq!(
        c.engines[0].kind,
        EngineKind::Builtin {
            weights: None,
            hash_mb: 8,
            search: None,
            syzygy: None,
        }
    );
    assert_eq!(
        c.engines[1].kind,
        EngineKind::Builtin {
            weights: None,
            hash_mb: 4,
            search: None,
            syzygy: None,
        }
    );
    assert_eq!(c.engines[1].name, "sparring");
    assert!(
        error("-engine builtin nodes=1 option.Threads=4 -engine builtin nodes=1")
            .contains("Threads=4")
    );
    assert!(
        error("-engine builtin nodes=1 option.Contempt=4 -engine builtin nodes=1")
            .contains("option.Contempt=4")
    );
}

#[test]
fn builtin_engines_take_the_syzygy_options() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/syzygy");
    let c = config(&format!(
        "-engine builtin nodes=10 option.SyzygyPath={dir} option.SyzygyProbeLimit=4 \
         -engine builtin nodes=10 option.SyzygyPath=<empty>"
    ));
    match &c.engines[0].kind {
        EngineKind::Builtin {
            syzygy: Some(tb), ..
        } => assert_eq!((tb.path.to_str(), tb.probe_limit), (Some(dir), 4)),
        other => panic!("expected tables, got {other:?}"),
    }
    assert!(matches!(
        c.engines[1].kind,
        EngineKind::Builtin { syzygy: None, .. }
    ));
    let e = error("-engine builtin nodes=1 option.SyzygyPath=/no/such/dir -engine builtin nodes=1");
    assert!(e.contains("option.SyzygyPath=/no/such/dir"), "{e}");
    let e = error("-engine builtin nodes=1 option.SyzygyProbeLimit=8 -engine builtin nodes=1");
    assert!(e.contains("SyzygyProbeLimit"), "{e}");
}

#[test]
fn same_names_are_numbered() {
    let c = config("-engine builtin nodes=1 -engine builtin nodes=1 -engine builtin nodes=1");
    let names: Vec<_> = c.engines.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["sparring", "sparring_2", "sparring_3"]);
}

#[test]
fn quick_is_fastchess_preset() {
    let c = config("-quick cmd=./a cmd=./b book=openings.epd");
    assert_eq!(c.rounds, 25_000);
    assert_eq!(c.time_control, TimeControl::parse_clock("10+0.1").unwrap());
    assert_eq!(c.output.format, ResultsFormat::Cutechess);
    assert_eq!(
        c.adjudication.draw.as_ref().map(|d| d.move_number),
        Some(30)
    );
    let o = c.openings.unwrap();
    assert_eq!(o.order, OpeningOrder::Random);
    assert_eq!(o.format.as_deref(), Some("epd"));
    assert!(error("-quick cmd=./a book=x.epd").contains("two cmd="));
}

#[test]
fn output_options_map_to_the_output_table() {
    let c = config(&format!(
        "{TWO} -pgnout file=some/dir/run.pgn append=false nodes=true -log file=e.log level=info engine=true -report penta=false -ratinginterval 0 -output format=fastchess"
    ));
    assert_eq!(c.output.dir, Path::new("some/dir/run.pgn.sparring"));
    assert_eq!(c.output.pgn_name, "../run.pgn");
    assert_eq!(c.output.engine_log.as_deref(), Some(Path::new("e.log")));
    assert!(!c.output.report_penta);
    assert_eq!(c.output.rating_interval, 1_000_000);
    // cutechess-cli names the PGN without a key.
    let Request::Match(m) = parse(
        &args(&format!("{TWO} -games 2 -pgnout games.pgn fi")),
        Flavor::Cutechess,
    )
    .unwrap() else {
        panic!()
    };
    assert_eq!(m.config.output.pgn_name, "../games.pgn");
    assert_eq!(m.config.output.dir, Path::new("./games.pgn.sparring"));
    assert!(error(&format!("{TWO} -log level=info")).contains("file= is needed"));
}

/// `-pgnout min` (cutechess's word), `min=true` and `notation=` (fastchess's keys) reach
/// `output.pgn_style`; an unknown notation is refused naming the accepted ones.
#[test]
fn pgnout_minimal_and_notation() {
    let plain = config(&format!("{TWO} -pgnout file=x.pgn"));
    assert_eq!(plain.output.pgn_style, PgnStyle::default());
    let fast = config(&format!("{TWO} -pgnout file=x.pgn min=true notation=lan"));
    assert!(fast.output.pgn_style.minimal);
    assert_eq!(fast.output.pgn_style.notation, PgnNotation::Lan);
    let uci = config(&format!("{TWO} -pgnout file=x.pgn notation=uci min=false"));
    assert!(!uci.output.pgn_style.minimal);
    assert_eq!(uci.output.pgn_style.notation, PgnNotation::Uci);
    let san = config(&format!("{TWO} -pgnout file=x.pgn notation=san"));
    assert_eq!(san.output.pgn_style.notation, PgnNotation::San);
    let cute = parsed(
        &format!("{TWO} -games 2 -pgnout games.pgn min fi"),
        Flavor::Cutechess,
    );
    assert!(cute.config.output.pgn_style.minimal);
    assert_eq!(cute.config.output.pgn_name, "../games.pgn");
    let err = error(&format!("{TWO} -pgnout file=x.pgn notation=fan"));
    assert!(
        err.contains("notation=fan") && err.contains("san, lan or uci"),
        "{err}"
    );
    assert!(error(&format!("{TWO} -pgnout file=x.pgn min=maybe")).contains("min=maybe"));
}

#[test]
fn match_options_map_to_their_tables() {
    let line = format!(
        "{TWO} -srand 7 -tournament gauntlet -draw movenumber=34 movecount=8 score=20 \
         -resign movecount=3 score=600 twosided=true -maxmoves 200 -strict -event A B \
         -sprt elo0=0 elo1=5 model=bayesian -openings file=b.pgn format=pgn order=random plies=8 start=3 policy=round"
    );
    let c = config(&line);
    assert_eq!(c.seed, 7);
    assert_eq!(c.kind, TournamentKind::Gauntlet);
    assert_eq!(
        c.adjudication.draw,
        Some(DrawAdjudication {
            move_number: 34,
            move_count: 8,
            score_cp: 20
        })
    );
    assert_eq!(
        c.adjudication.resign,
        Some(ResignAdjudication {
            move_count: 3,
            score_cp: 600,
            two_sided: true
        })
    );
    assert_eq!(c.adjudication.max_moves, Some(200));
    assert!(c.strict_options);
    assert_eq!(c.event, "AB");
    assert_eq!(c.sprt.unwrap().model(), SprtModel::BayesElo);
    let o = c.openings.unwrap();
    assert_eq!(
        (o.plies, o.start, o.order),
        (Some(8), 3, OpeningOrder::Random)
    );
    assert!(error(&format!("{TWO} -resign movecount=3")).contains("score= is needed"));
    assert!(
        error(&format!("{TWO} -openings file=b.pgn policy=encounter")).contains("policy=encounter")
    );
    assert!(error(&format!(
        "{TWO} -engine builtin nodes=1 -config file=m.toml"
    ))
    .contains("-config"));
    assert!(error("-config file=m.json").contains("config.json is not read"));
}

#[test]
fn engine_keys_build_the_uci_engine() {
    let mut line =
        args("-engine dir=/opt/engines cmd=./dev name=dev tc=inf depth=7 timemargin=250");
    line.push("args=--threads 1".to_string());
    line.extend(args("-engine cmd=/usr/bin/base st=0.5 timemargin=250"));
    let Ok(Request::Match(m)) = parse(&line, Flavor::Fastchess) else {
        panic!("parses")
    };
    let c = m.config;
    let EngineKind::Uci {
        command,
        args,
        working_dir,
        ..
    } = &c.engines[0].kind
    else {
        panic!()
    };
    assert_eq!(command, "/opt/engines/dev");
    assert_eq!(args, &vec!["--threads".to_string(), "1".to_string()]);
    assert_eq!(working_dir.as_deref(), Some(Path::new("/opt/engines")));
    assert_eq!(c.engines[1].name, "base");
    assert_eq!(c.margin, Duration::from_millis(250));
    assert_eq!(c.engines[0].time_control, Some(TimeControl::Depth(7)));
    assert_eq!(
        c.engines[1].time_control,
        Some(TimeControl::MoveTime(Duration::from_millis(500)))
    );
    assert!(
        error("-engine cmd=a nodes=1 timemargin=5 -engine cmd=b nodes=1 timemargin=6")
            .contains("same margin")
    );
    assert!(
        error("-engine cmd=a nodes=1 proto=winboard -engine cmd=b nodes=1")
            .contains("proto=winboard: expected uci or xboard")
    );
    assert!(
        error("-engine builtin nodes=1 proto=xboard -engine cmd=b nodes=1")
            .contains("proto=xboard")
    );
    assert!(error("-engine cmd=a nodes=1 hash=4 -engine cmd=b nodes=1").contains("hash=4"));
    assert!(
        error("-engine cmd=a tc=10+0.1 nodes=5 -engine cmd=b nodes=1")
            .contains("one limit per engine")
    );
}

proptest::proptest! {
    /// Any sequence of the dialect's words parses or is refused; nothing panics.
    #[test]
    fn arbitrary_token_sequences_never_panic(
        tokens in proptest::collection::vec(proptest::sample::select(vec![
            "-engine", "-each", "builtin", "cmd=x", "cmd=builtin", "name=a", "name=", "tc=10+0.1",
            "tc=inf", "tc=1:x", "st=0", "st=0.5", "nodes=5", "nodes=-1", "depth=300", "plies=3",
            "option.Hash=8", "option.=1", "dir=.", "args='a", "-rounds", "-games", "3", "0", "-1",
            "-repeat", "-concurrency", "-srand", "99999999999999999999", "-draw", "movecount=0",
            "-resign", "score=5", "-sprt", "elo0=1", "elo1=0", "-openings", "file=x.epd",
            "-pgnout", "file=", "append=maybe", "-event", "-log", "-config", "file=a.toml",
            "-quick", "book=b.epd", "-variant", "standard", "-tb", "--dump-config", "=", "-",
            "-version", "--resume", "-output", "format=cutechess", "-report", "penta=false",
        ]), 0..24)
    ) {
        let tokens: Vec<String> = tokens.into_iter().map(str::to_string).collect();
        for flavor in [Flavor::Fastchess, Flavor::Cutechess] {
            if let Err(e) = parse(&tokens, flavor) {
                proptest::prop_assert!(!e.0.is_empty());
            }
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

/// Regression (issue 21 sweep, found by tests/fuzz.rs): a value holding a line break made the
/// refusal two lines; `run` escapes control characters.
#[test]
fn refusals_quoting_control_characters_stay_one_line() {
    let message = one_line(&error(&format!("{TWO} -rounds")).replace("needs", "\nneeds"));
    assert!(!message.contains('\n'), "{message}");
    assert_eq!(one_line("-engine \n\t\u{7}: x"), "-engine \\n\\t\\u{7}: x");
    assert_eq!(one_line("é ok"), "é ok");
}

/// Regression (issue 21 sweep, found by tests/fuzz.rs): a PGN name the TOML form refuses (blank,
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

#[test]
fn restart_and_proto_set_the_engine_config() {
    let c =
        config("-engine cmd=a nodes=1 restart=on proto=xboard -engine cmd=b nodes=1 restart=auto");
    assert!(c.engines[0].restart && !c.engines[1].restart);
    assert_eq!(
        (c.engines[0].protocol, c.engines[1].protocol),
        (
            sparring::arena::Protocol::Xboard,
            sparring::arena::Protocol::Uci
        )
    );
    assert!(!config(TWO).engines[0].restart);
    assert!(error(&format!("{TWO} -each restart=sometimes"))
        .contains("restart=sometimes: expected on, off or auto"));
}

fn parsed(line: &str, flavor: Flavor) -> DialectMatch {
    match parse(&args(line), flavor).expect("parses") {
        Request::Match(m) => *m,
        other => panic!("expected a match, got {other:?}"),
    }
}

const FOUR: &str = "-engine builtin name=dev nodes=100 -engine builtin name=base nodes=100 \
                    -engine builtin name=x nodes=100 -engine builtin name=y nodes=100 \
                    -tournament gauntlet";

/// `-seeds N` in a gauntlet: cutechess-cli's seeds never meet, fastchess's do; both read N as
/// 1 to engines - 1 (with a note when it is cut); a round robin notes it.
#[test]
fn seeds_follow_the_runner_the_line_is_for() {
    use sparring::arena::config::Seeds;
    let cutechess = parsed(&format!("{FOUR} -seeds 2"), Flavor::Cutechess).config;
    assert_eq!(
        cutechess.seeds,
        Seeds {
            count: 2,
            play_each_other: false
        }
    );
    assert_eq!(cutechess.pairings(), vec![(0, 2), (0, 3), (1, 2), (1, 3)]);
    let fastchess = config(&format!("{FOUR} -seeds 2"));
    assert!(fastchess.seeds.play_each_other);
    assert_eq!(fastchess.pairings().len(), 5);
    let cut = parsed(&format!("{FOUR} -seeds 7"), Flavor::Cutechess);
    assert_eq!(cut.config.seeds.count, 3);
    assert!(
        cut.notes[0].contains("-seeds 7: 4 engines have at most 3 seeds; playing 3"),
        "{:?}",
        cut.notes
    );
    let zero = parsed(&format!("{FOUR} -seeds 0"), Flavor::Cutechess);
    assert_eq!(zero.config.seeds, Seeds::default());
    assert!(zero.notes.is_empty(), "{:?}", zero.notes);
    let rr = parsed(&format!("{TWO} -seeds 2"), Flavor::Fastchess);
    assert_eq!(rr.config.seeds, Seeds::default());
    assert!(rr.notes[0].contains("a round robin"), "{:?}", rr.notes);
}

/// `-noswap`, `-reverse`, `-wait`, the engine timeouts, `-force-concurrency`, cutechess's old
/// `-pgnin`/`-pgndepth`, `-epdout`, and the options accepted with a note.
#[test]
fn the_formerly_refused_options_take_their_runners_meaning() {
    let c = config(&format!("{TWO} -noswap -reverse -wait 25"));
    assert!(!c.swap_sides && c.reverse_sides);
    assert_eq!(c.wait, Duration::from_millis(25));
    assert!(error(&format!("{TWO} -wait 3600001")).contains("-wait 3600001: expected 0 to"));
    assert_eq!(config(TWO).timeout, Duration::from_secs(30));

    // One timeout, the longest of fastchess's three waits (defaults 10 s, 60 s, 60 s).
    let m = parsed(&format!("{TWO} -startup-ms 120000"), Flavor::Fastchess);
    assert_eq!(m.config.timeout, Duration::from_millis(120_000));
    assert!(m.notes[0].contains("120000 ms"), "{:?}", m.notes);
    let c = config(&format!("{TWO} -ping-ms 5000 -ucinewgame-ms 5000"));
    assert_eq!(c.timeout, Duration::from_millis(10_000));
    assert!(error(&format!("{TWO} -ping-ms 5")).contains("-ping-ms 5: expected 100"));

    let many = sparring::available_cores() + 1;
    assert!(error(&format!("{TWO} -concurrency {many}")).contains("-force-concurrency"));
    assert_eq!(
        config(&format!("{TWO} -concurrency {many} -force-concurrency")).concurrency,
        many
    );

    let c = config(&format!("{TWO} -pgnin book.pgn -pgndepth 8"));
    let o = c.openings.unwrap();
    assert_eq!(
        (o.file.to_str(), o.format.as_deref(), o.plies, o.order),
        (
            Some("book.pgn"),
            Some("pgn"),
            Some(8),
            OpeningOrder::Sequential
        )
    );
    assert!(error(&format!("{TWO} -pgndepth 8")).contains("-pgndepth"));

    let c = config(&format!("{TWO} -epdout file=final.epd append=false"));
    let f = c.output.final_positions.unwrap();
    assert!(std::path::Path::new(&f.file).is_absolute());
    assert!(f.file.ends_with("final.epd") && !f.full_fen && !f.append);
    let c = parsed(&format!("{TWO} -epdout final.fen"), Flavor::Cutechess).config;
    let f = c.output.final_positions.unwrap();
    assert!(f.full_fen && f.append);
    assert!(error(&format!("{TWO} -epdout")).contains("-epdout needs its settings"));

    let m = parsed(
        &format!("{TWO} -resultformat wide2 -outcomeinterval 10 -bookmode ram"),
        Flavor::Cutechess,
    );
    assert_eq!(m.notes.len(), 3, "{:?}", m.notes);
    assert!(m.notes.iter().all(|n| n.contains("accepted and not used")));
    assert!(error(&format!("{TWO} -bookmode fast")).contains("-bookmode fast"));
}

/// cutechess-cli's `-engines` alone lists the configured engines; with a file it names the
/// file `conf=` reads.
#[test]
fn engines_alone_lists_the_configured_engines() {
    let dir = std::env::temp_dir().join(format!("sparring-engines-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("engines.json");
    std::fs::write(
        &file,
        r#"[{"name": "one", "command": "a"}, {"name": "two", "command": "b"}]"#,
    )
    .unwrap();
    let line = format!("-engines {} -engines", file.display());
    match parse(&args(&line), Flavor::Cutechess).unwrap() {
        Request::Engines(names) => assert_eq!(names, ["one", "two"]),
        other => panic!("{other:?}"),
    }
    let missing = format!("-engines {} -engines", dir.join("none.json").display());
    let err = parse(&args(&missing), Flavor::Cutechess).unwrap_err().0;
    assert!(err.starts_with("-engines: "), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `conf=` takes cutechess's per-engine settings from engines.json as the keys: init strings
/// (but `uci` and `setoption`) as `initstr`, `validateClaims: false` as `trust`, the flags,
/// `restart`, a `timeoutScaleFactor` held to cutechess's bounds; an empty `stderrFile` is none.
#[test]
fn engine_configurations_carry_the_cutechess_engine_keys() {
    let dir = std::env::temp_dir().join(format!("sparring-conf-keys-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("engines.json");
    std::fs::write(
        &file,
        r#"[{"name": "one", "command": "x", "stderrFile": "", "timeoutScaleFactor": 500,
             "initStrings": ["uci", "hello", "setoption name A value 1"], "whitepov": true,
             "validateClaims": false, "debug": true, "ponder": false, "restart": "on"}]"#,
    )
    .unwrap();
    let line = format!(
        "-engines {} -engine conf=one nodes=1 initstr=mine -engine cmd=y nodes=1",
        file.display()
    );
    let c = match parse(&args(&line), Flavor::Cutechess).unwrap() {
        Request::Match(m) => m.config,
        other => panic!("{other:?}"),
    };
    let (e, s) = (&c.engines[0], &c.engines[0].settings);
    assert_eq!(s.init_strings, ["hello", "mine"]);
    assert!(s.white_pov && s.trust_claims && s.debug && !s.ponder && e.restart);
    assert_eq!((s.timeout_scale, &s.stderr_file), (Some(120.0), &None));
    let EngineKind::Uci { options, .. } = &e.kind else {
        panic!("an external engine")
    };
    assert_eq!(options, &[("A".to_string(), "1".to_string())]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// cutechess's per-engine keys: each becomes the engine's setting, and round-trips through
/// `--dump-config`'s TOML.
#[test]
fn cutechess_engine_keys_become_engine_settings() {
    let c = config("-engine cmd=x nodes=1 ponder -engine cmd=y nodes=1");
    assert!(c.engines[0].settings.ponder);
    assert!(!c.engines[1].settings.ponder);
    let again = MatchConfig::parse(&c.to_toml(), "again").unwrap();
    assert_eq!(again.engines, c.engines);
    assert!(
        error("-engine builtin nodes=1 ponder -engine cmd=y nodes=1")
            .contains("the built-in engine does not ponder")
    );
}

/// The rest of cutechess's engine keys: `arg` and `initstr` repeat (in order, `-each`'s
/// after), flags and values become settings, and all round-trip through the dumped TOML.
#[test]
fn the_other_cutechess_engine_keys_become_settings_and_round_trip() {
    let dir = std::env::temp_dir().join(format!("sparring-keys-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let book = dir.join("empty.bin");
    std::fs::write(&book, b"").unwrap();
    let c = config(&format!(
        "-engine cmd=x nodes=1 args=a arg=b arg=c initstr=one\\ntwo initstr=three \
         stderr=e.log trust whitepov tscale=2.5 debug book={} bookdepth=4 \
         -engine cmd=y nodes=1 -each arg=z",
        book.display()
    ));
    let EngineKind::Uci { args, .. } = &c.engines[0].kind else {
        panic!("an external engine")
    };
    assert_eq!(args, &["a", "b", "c", "z"]);
    let s = &c.engines[0].settings;
    assert_eq!(s.init_strings, ["one", "two", "three"]);
    assert_eq!(
        s.stderr_file.as_deref(),
        Some(std::path::Path::new("e.log"))
    );
    assert!(s.trust_claims && s.white_pov && s.debug);
    assert_eq!(s.timeout_scale, Some(2.5));
    assert_eq!(s.book.as_deref(), Some(book.as_path()));
    assert_eq!(s.book_depth, Some(4));
    assert_eq!(c.engines[1].settings.book, None);
    let again = MatchConfig::parse(&c.to_toml(), "again").unwrap();
    assert_eq!(again.engines, c.engines);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Bad values name their key; the built-in engine refuses every one of them by name.
#[test]
fn bad_cutechess_engine_key_values_are_refused_by_name() {
    let bad = |keys: &str| {
        error(&format!(
            "-engine cmd=x nodes=1 {keys} -engine cmd=y nodes=1"
        ))
    };
    assert!(bad("tscale=0").contains("tscale=0: expected a factor from 0.2 to 120"));
    assert!(bad("tscale=x").contains("tscale=x"));
    assert!(bad("bookdepth=0").contains("bookdepth=0: expected a positive number"));
    assert!(bad("bookdepth=-3").contains("bookdepth=-3"));
    let missing = bad("book=/nonexistent/book.bin");
    assert!(missing.contains("book=/nonexistent/book.bin"), "{missing}");
    for key in [
        "arg=1",
        "initstr=x",
        "stderr=e",
        "trust",
        "whitepov",
        "tscale=2",
        "debug",
    ] {
        let err = error(&format!(
            "-engine builtin nodes=1 {key} -engine cmd=y nodes=1"
        ));
        let name = key.split('=').next().unwrap();
        assert!(
            err.contains(&format!("{name}: only an external engine")),
            "{err}"
        );
    }
}
