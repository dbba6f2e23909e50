//! Words, values and time controls: how the line is cut up before any option is read.

use super::*;

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
