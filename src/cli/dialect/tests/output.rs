//! Output options: PGN, EPD, logs and reports.

use super::*;

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

/// fishtest's compliance options reach `[compliance]`: warning lines on the fastchess dialect
/// only, the CRC32 line only with a PGN, no pinning for multi-threaded engines.
#[test]
fn compliance_options_map_to_the_compliance_table() {
    use sparring::arena::config::Affinity;
    let c = config(&format!(
        "{TWO} -check-mate-pvs -testEnv -crc32 pgn=true -show-latency -use-affinity 0-1 -pgnout file=r.pgn"
    ));
    let k = &c.compliance;
    assert!(k.mate_pvs && k.one_line && k.crc32 && k.latency && k.warning_lines);
    assert_eq!(k.pgn_label.as_deref(), Some("r.pgn"));
    assert_eq!(k.affinity, Some(Affinity::Cpus(vec![0, 1])));
    let c = config(&format!("{TWO} -crc32 pgn=true -use-affinity"));
    assert!(!c.compliance.crc32, "no PGN, no CRC32 line");
    assert_eq!(c.compliance.affinity, Some(Affinity::Auto));
    let m = parsed(
        &format!("{TWO} -games 2 -check-mate-pvs"),
        Flavor::Cutechess,
    );
    assert!(m.config.compliance.mate_pvs && !m.config.compliance.warning_lines);
    let threaded = "-engine cmd=./e name=a nodes=9 option.Threads=4 -engine cmd=./e name=b nodes=9";
    let m = parsed(&format!("{threaded} -use-affinity 0"), Flavor::Fastchess);
    assert_eq!(m.config.compliance.affinity, None);
    assert!(
        m.notes.iter().any(|n| n.contains("Threads above 1")),
        "{:?}",
        m.notes
    );
    assert!(error(&format!("{TWO} -use-affinity 3-3")).contains("bad CPU list"));
    assert!(error(&format!("{TWO} -crc32 pgn=yes")).contains("-crc32"));
}
