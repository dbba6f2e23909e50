//! Unit tests of the match configuration.

use super::*;
use crate::toml_config::ConfigError;

const BASE: &str = "[tournament]\n[time_control]\nnodes = 5\n[output]\ndir = \"x\"\n\
                    [[engine]]\nname = \"a\"\nbuiltin = {}\n\
                    [[engine]]\nname = \"b\"\nbuiltin = {}\n";

fn with_output(keys: &str) -> Result<MatchConfig, ConfigError> {
    MatchConfig::parse(
        &BASE.replace("dir = \"x\"\n", &format!("dir = \"x\"\n{keys}")),
        "t",
    )
}

#[test]
fn positions_format_reads_back_from_the_dump_and_refuses_what_it_cannot_write() {
    assert_eq!(
        with_output("").unwrap().output.positions_format,
        PositionsFormat::Epd
    );
    for (name, format) in [
        ("epd", PositionsFormat::Epd),
        ("bullet", PositionsFormat::Bullet),
        ("both", PositionsFormat::Both),
    ] {
        let config = with_output(&format!(
            "positions = true\npositions_format = \"{name}\"\n"
        ))
        .unwrap();
        assert_eq!(config.output.positions_format, format);
        assert!(config
            .to_toml()
            .contains(&format!("positions_format = \"{name}\"")));
        let again = MatchConfig::parse(&config.to_toml(), "t").unwrap();
        assert_eq!(again, config);
    }
    let err = with_output("positions = true\npositions_format = \"binpack\"\n")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("output.positions_format") && err.contains("\"bullet\""),
        "{err}"
    );
    let err = with_output("positions_format = \"bullet\"\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("positions = true"), "{err}");
}

fn with_tournament(keys: &str, engines: usize) -> Result<MatchConfig, ConfigError> {
    let mut text = BASE.replace("[tournament]\n", &format!("[tournament]\n{keys}"));
    for i in 2..engines {
        text.push_str(&format!("[[engine]]\nname = \"e{i}\"\nbuiltin = {{}}\n"));
    }
    MatchConfig::parse(&text, "t")
}

/// `tournament.seeds`: a gauntlet's first N engines play the rest; the schedule keys read back
/// from the dump and are fingerprinted only when not the default.
#[test]
fn seeds_and_sides_are_checked_and_read_back_from_the_dump() {
    let plain = with_tournament("", 4).unwrap();
    assert_eq!(plain.seeds, Seeds::default());
    assert!(plain.swap_sides && !plain.reverse_sides && plain.wait.is_zero());
    assert!(plain.schedule_fingerprint().is_empty());
    assert_eq!(plain.total_games(), 6);
    let config = with_tournament(
        "seeds = 2\nswap_sides = false\nreverse_sides = true\nwait_ms = 25\n",
        4,
    )
    .unwrap();
    assert_eq!(config.seeds.count, 2);
    assert_eq!(config.pairings(), vec![(0, 2), (0, 3), (1, 2), (1, 3)]);
    assert_eq!(config.total_games(), 8);
    assert_eq!(config.wait, std::time::Duration::from_millis(25));
    assert_eq!(
        config.schedule_fingerprint(),
        vec![
            ("tournament.seeds", "2".to_string()),
            ("tournament.swap_sides", "false".to_string()),
            ("tournament.reverse_sides", "true".to_string()),
        ]
    );
    let again = MatchConfig::parse(&config.to_toml(), "t").unwrap();
    assert_eq!(again, config);
    let meet = with_tournament("seeds = 2\nseeds_play_each_other = true\n", 4).unwrap();
    assert_eq!(meet.total_games(), 10);
    assert_eq!(MatchConfig::parse(&meet.to_toml(), "t").unwrap(), meet);

    let err = with_tournament("seeds = 4\n", 4).unwrap_err().to_string();
    assert!(
        err.contains("tournament.seeds") && err.contains("1 to 3"),
        "{err}"
    );
    let err = with_tournament("seeds = 0\n", 4).unwrap_err().to_string();
    assert!(err.contains("tournament.seeds"), "{err}");
    let err = with_tournament("kind = \"round-robin\"\nseeds = 2\n", 4)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("tournament.seeds") && err.contains("round robin"),
        "{err}"
    );
}

/// `output.final_positions` (`-epdout`): a file relative to `output.dir`, EPD or FEN.
#[test]
fn final_positions_read_back_and_refuse_a_bad_format() {
    let config = with_output(
        "final_positions = { file = \"final.fen\", format = \"fen\", append = false }\n",
    )
    .unwrap();
    assert_eq!(
        config.output.final_positions,
        Some(FinalPositions {
            file: "final.fen".to_string(),
            full_fen: true,
            append: false,
        })
    );
    assert_eq!(MatchConfig::parse(&config.to_toml(), "t").unwrap(), config);
    let err = with_output("final_positions = { file = \"f\", format = \"pgn\" }\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("output.final_positions.format"), "{err}");
    let err = with_output("final_positions = { format = \"epd\" }\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("output.final_positions.file"), "{err}");
}

/// `output.positions_resolve`: "none" (the default: neither dumped nor fingerprinted, so runs
/// from before the key resume unchanged) or "pv"; anything else is bad input naming the file,
/// line and key.
#[test]
fn positions_resolve_is_dumped_and_fingerprinted_only_when_set() {
    use crate::arena::matchmaking::manifest::Fingerprint;
    use crate::error::{ErrorClass, Failure};
    let plain = with_output("positions = true\n").unwrap();
    assert_eq!(plain.output.positions_resolve, PositionsResolve::None);
    assert!(!plain.to_toml().contains("positions_resolve"));
    assert_eq!(
        Fingerprint::of(&plain).get("output.positions_resolve"),
        None
    );
    let none = with_output("positions = true\npositions_resolve = \"none\"\n").unwrap();
    assert_eq!(none, plain);
    let pv = with_output("positions = true\npositions_resolve = \"pv\"\n").unwrap();
    assert_eq!(pv.output.positions_resolve, PositionsResolve::Pv);
    assert!(pv.to_toml().contains("positions_resolve = \"pv\""));
    assert_eq!(MatchConfig::parse(&pv.to_toml(), "t").unwrap(), pv);
    assert_eq!(
        Fingerprint::of(&pv).get("output.positions_resolve"),
        Some("pv")
    );

    let err = with_output("positions = true\npositions_resolve = \"qsearch\"\n").unwrap_err();
    assert_eq!(err.class(), Failure::BadInput);
    let text = err.to_string();
    assert!(
        text.starts_with("t:7:") && text.contains("output.positions_resolve"),
        "{text}"
    );
    assert!(text.contains("\"none\" or \"pv\""), "{text}");
    let err = with_output("positions_resolve = \"pv\"\n")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("output.positions_resolve") && err.contains("positions = true"),
        "{err}"
    );
}

/// `output.pgn_minimal` and `output.pgn_notation`: dumped and fingerprinted only when not the
/// default (false, "san"), so runs from before the keys resume unchanged; a bad notation is
/// bad input naming the file, line and key.
#[test]
fn pgn_style_is_dumped_and_fingerprinted_only_when_set() {
    use crate::arena::matchmaking::manifest::Fingerprint;
    use crate::error::{ErrorClass, Failure};
    use crate::record::{PgnNotation, PgnStyle};
    let plain = with_output("").unwrap();
    assert_eq!(plain.output.pgn_style, PgnStyle::default());
    let dump = plain.to_toml();
    assert!(!dump.contains("pgn_minimal") && !dump.contains("pgn_notation"));
    let print = Fingerprint::of(&plain);
    assert_eq!(print.get("output.pgn_minimal"), None);
    assert_eq!(print.get("output.pgn_notation"), None);
    assert_eq!(
        with_output("pgn_minimal = false\npgn_notation = \"san\"\n").unwrap(),
        plain
    );
    for (name, notation) in [("lan", PgnNotation::Lan), ("uci", PgnNotation::Uci)] {
        let set = with_output(&format!("pgn_minimal = true\npgn_notation = \"{name}\"\n")).unwrap();
        let style = PgnStyle {
            minimal: true,
            notation,
        };
        assert_eq!(set.output.pgn_style, style);
        assert!(set
            .to_toml()
            .contains(&format!("pgn_notation = \"{name}\"")));
        assert_eq!(MatchConfig::parse(&set.to_toml(), "t").unwrap(), set);
        let print = Fingerprint::of(&set);
        assert_eq!(print.get("output.pgn_minimal"), Some("true"));
        assert_eq!(print.get("output.pgn_notation"), Some(name));
    }
    let err = with_output("pgn_notation = \"fan\"\n").unwrap_err();
    assert_eq!(err.class(), Failure::BadInput);
    let text = err.to_string();
    assert!(
        text.starts_with("t:6:") && text.contains("output.pgn_notation"),
        "{text}"
    );
    assert!(text.contains("\"san\", \"lan\" or \"uci\""), "{text}");
    let err = with_output("pgn_minimal = \"yes\"\n")
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("t:6:") && err.contains("pgn_minimal"),
        "{err}"
    );
}
