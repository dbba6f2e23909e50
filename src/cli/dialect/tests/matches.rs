//! Options of the match itself: games and rounds, presets, adjudication, SPRT, seeds.

use super::*;

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
