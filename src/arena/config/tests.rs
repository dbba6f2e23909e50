//! Unit tests of the match configuration.

use super::*;

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
