use super::*;

/// 400 log10(3): the Elo difference of a 75 % expected score.
const ELO_75: f64 = 190.848_501_887_864_9;

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// `pairs` colour-reversed pairs of `a` against `b` in which `a` scores `points` of 2 per
/// pair, laid out as (win, draw) or (draw, draw) ... to reach each pair's score; pair ids
/// start at `first_pair`.
fn pairs(a: usize, b: usize, scores: &[f64], first_pair: u64) -> Vec<RatedGame> {
    let outcome = |s: f64| Outcome::from_score(s).unwrap();
    let mut games = Vec::new();
    for (k, &pair_score) in scores.iter().enumerate() {
        let pair = first_pair + k as u64;
        // a's two games of the pair: as White, then as Black (White's outcome flipped).
        let (first, second) = match pair_score {
            2.0 => (1.0, 1.0),
            1.5 => (1.0, 0.5),
            1.0 => (0.5, 0.5),
            0.5 => (0.5, 0.0),
            _ => (0.0, 0.0),
        };
        games.push(RatedGame {
            white: a,
            black: b,
            outcome: outcome(first),
            pair,
        });
        games.push(RatedGame {
            white: b,
            black: a,
            outcome: outcome(1.0 - second),
            pair,
        });
    }
    games
}

/// `count` pairs in which `a` scores `per_pair` of 2 in each: a plain repeated result.
fn repeated(a: usize, b: usize, per_pair: &[f64], count: usize, first_pair: u64) -> Vec<RatedGame> {
    let scores: Vec<f64> = per_pair.iter().copied().cycle().take(count).collect();
    pairs(a, b, &scores, first_pair)
}

fn fit(list: &[&str], games: &[RatedGame]) -> JointRatings {
    JointRatings::fit(&names(list), games, &RatingOptions::default()).unwrap()
}

fn rating(r: &JointRatings, e: usize) -> f64 {
    r.engines()[e].rating.value().unwrap()
}

/// Three engines, each pairing's score what ratings +190.85, 0, -190.85 expect: A-B and B-C
/// 75 % (odds 3), A-C 90 % (odds 9).
fn transitive() -> Vec<RatedGame> {
    let mut games = repeated(0, 1, &[2.0, 1.0], 20, 0); // 75 %
    games.extend(repeated(1, 2, &[2.0, 1.0], 20, 100)); // 75 %
    games.extend(repeated(0, 2, &[2.0, 2.0, 2.0, 1.0, 2.0], 20, 200)); // 90 %
    games
}

#[test]
fn two_engines_at_75_percent_are_190_85_apart() {
    let r = fit(&["a", "b"], &repeated(0, 1, &[2.0, 1.0], 50, 0));
    assert!((rating(&r, 0) - rating(&r, 1) - ELO_75).abs() < 1e-6);
    assert!((rating(&r, 0) + rating(&r, 1)).abs() < 1e-9, "mean 0");
    assert_eq!(r.engines()[0].games, 100);
    assert_eq!(r.engines()[0].score(), Some(0.75));
    let d = r.difference(0, 1);
    assert!((d.estimate.value().unwrap() - ELO_75).abs() < 1e-6);
    assert!(d.interval.lower < ELO_75 && ELO_75 < d.interval.upper);
}

#[test]
fn a_transitive_three_engine_field_gets_its_known_ratings() {
    let r = fit(&["a", "b", "c"], &transitive());
    for (e, want) in [(0, ELO_75), (1, 0.0), (2, -ELO_75)] {
        assert!(
            (rating(&r, e) - want).abs() < 1e-6,
            "{e}: {}",
            rating(&r, e)
        );
    }
    let ranked: Vec<&str> = r.ranked().iter().map(|e| e.name.as_str()).collect();
    assert_eq!(ranked, ["a", "b", "c"]);
    // An anchor shifts every rating and leaves the differences.
    let options = RatingOptions {
        anchor: Some(Anchor {
            engine: 1,
            rating: 2400.0,
        }),
        ..RatingOptions::default()
    };
    let anchored = JointRatings::fit(&names(&["a", "b", "c"]), &transitive(), &options).unwrap();
    assert!((rating(&anchored, 0) - 2400.0 - ELO_75).abs() < 1e-6);
    assert_eq!(anchored.engines()[1].interval.half_width(), 0.0);
    let (x, y) = (anchored.difference(0, 2), r.difference(0, 2));
    assert!((x.estimate.value().unwrap() - y.estimate.value().unwrap()).abs() < 1e-9);
    assert!((x.interval.lower - y.interval.lower).abs() < 1e-9);
    assert!((x.interval.upper - y.interval.upper).abs() < 1e-9);
}

#[test]
fn the_fit_is_at_the_maximum_of_the_likelihood() {
    // An uneven round robin from a seeded generator: the gradient vanishes at the fit.
    let mut rng = Rng::new(7);
    let mut games = Vec::new();
    for pair in 0..300u64 {
        let (a, b) = (rng.below(5) as usize, rng.below(5) as usize);
        if a == b {
            continue;
        }
        let score = [0.0, 0.5, 1.0, 1.5, 2.0][rng.below(5) as usize];
        games.extend(pairs(a, b, &[score], pair));
    }
    let r = fit(&["a", "b", "c", "d", "e"], &games);
    let elo: Vec<f64> = (0..5).map(|e| rating(&r, e)).collect();
    for e in 0..5 {
        let mut gradient = 0.0;
        for g in &games {
            let p = 1.0 / (1.0 + 10f64.powf((elo[g.black] - elo[g.white]) / 400.0));
            let s = g.outcome.score() - p;
            gradient += if g.white == e {
                s
            } else if g.black == e {
                -s
            } else {
                0.0
            };
        }
        assert!(gradient.abs() < 1e-8, "engine {e}: gradient {gradient}");
    }
    assert!(elo.iter().sum::<f64>().abs() < 1e-8);
}

#[test]
fn reversed_results_negate_and_swapped_colours_keep_the_ratings() {
    let games = transitive();
    let r = fit(&["a", "b", "c"], &games);
    let reversed: Vec<RatedGame> = games
        .iter()
        .map(|g| RatedGame {
            outcome: Outcome::from_score(1.0 - g.outcome.score()).unwrap(),
            ..*g
        })
        .collect();
    let swapped: Vec<RatedGame> = reversed
        .iter()
        .map(|g| RatedGame {
            white: g.black,
            black: g.white,
            ..*g
        })
        .collect();
    let (rev, swap) = (
        fit(&["a", "b", "c"], &reversed),
        fit(&["a", "b", "c"], &swapped),
    );
    for e in 0..3 {
        assert!((rating(&r, e) + rating(&rev, e)).abs() < 1e-9);
        assert!((rating(&r, e) - rating(&swap, e)).abs() < 1e-9);
        let (a, b) = (r.engines()[e].interval, rev.engines()[e].interval);
        assert!((a.half_width() - b.half_width()).abs() < 1e-9);
    }
}

#[test]
fn the_order_of_the_games_changes_nothing() {
    let mut games = transitive();
    games.extend(pairs(2, 0, &[2.0, 1.5, 0.5], 300));
    let r = fit(&["a", "b", "c"], &games);
    let mut shuffled = games.clone();
    Rng::new(3).shuffle(&mut shuffled);
    let s = fit(&["a", "b", "c"], &shuffled);
    assert_eq!(r.engines(), s.engines(), "bit for bit, intervals included");
    assert_eq!(r.difference(0, 1), s.difference(0, 1));
}

#[test]
fn an_engine_that_won_or_lost_everything_is_unbounded_and_the_rest_fit() {
    let mut games = repeated(1, 2, &[2.0, 1.0], 20, 0); // b-c 75 %
    games.extend(repeated(0, 1, &[2.0], 5, 100)); // a wins every game
    games.extend(repeated(0, 2, &[2.0], 5, 200));
    games.extend(repeated(3, 2, &[0.0], 5, 300)); // d loses every game
    let r = fit(&["a", "b", "c", "d"], &games);
    assert_eq!(r.engines()[0].rating, Rating::PlusInfinity);
    assert_eq!(r.engines()[3].rating, Rating::MinusInfinity);
    assert!((rating(&r, 1) - ELO_75 / 2.0).abs() < 1e-6);
    assert!((rating(&r, 2) + ELO_75 / 2.0).abs() < 1e-6);
    let a = r.engines()[0].interval;
    assert_eq!((a.lower, a.upper), (f64::INFINITY, f64::INFINITY));
    assert_eq!(a.half_width(), f64::INFINITY);
    assert_eq!(r.difference(0, 1).estimate, Rating::PlusInfinity);
    assert_eq!(r.difference(0, 0).estimate, Rating::Undetermined);
    let ranked: Vec<&str> = r.ranked().iter().map(|e| e.name.as_str()).collect();
    assert_eq!(ranked, ["a", "b", "c", "d"]);
    for e in r.engines() {
        assert!(!e.interval.lower.is_nan() && !e.interval.upper.is_nan());
    }
    // Anchoring an engine that has no finite rating is refused, naming it.
    let options = RatingOptions {
        anchor: Some(Anchor {
            engine: 0,
            rating: 0.0,
        }),
        ..RatingOptions::default()
    };
    let err = JointRatings::fit(&names(&["a", "b", "c", "d"]), &games, &options).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the anchor a has no finite rating (inf): anchor a rated engine"
    );
}

#[test]
fn an_engine_linked_only_through_unbounded_ones_is_undetermined() {
    // a-b draw; d beats a and c; c meets nobody else: nothing bounds c against a and b.
    let mut games = repeated(0, 1, &[1.0], 10, 0);
    games.extend(repeated(3, 0, &[2.0], 3, 100));
    games.extend(repeated(3, 2, &[2.0], 3, 200));
    let r = fit(&["a", "b", "c", "d"], &games);
    assert_eq!(r.engines()[2].rating, Rating::Undetermined);
    assert_eq!(r.engines()[3].rating, Rating::PlusInfinity);
    assert_eq!(r.engines()[2].interval.lower, f64::NEG_INFINITY);
    assert_eq!(r.engines()[2].interval.upper, f64::INFINITY);
    assert_eq!(format!("{:>5}", r.engines()[2].rating), "  n/a");
}

#[test]
fn games_that_do_not_connect_the_engines_are_refused() {
    let mut games = repeated(0, 1, &[1.0], 4, 0);
    games.extend(repeated(2, 3, &[1.0], 4, 100));
    let err = JointRatings::fit(
        &names(&["a", "b", "c", "d"]),
        &games,
        &RatingOptions::default(),
    )
    .unwrap_err();
    assert_eq!(
        err,
        RatingsError::Disconnected {
            groups: vec![names(&["a", "b"]), names(&["c", "d"])]
        }
    );
    assert_eq!(
        err.to_string(),
        "the games do not connect the engines: no game links {a, b} with {c, d}"
    );
    // An engine without games is a group of its own.
    let err = JointRatings::fit(
        &names(&["a", "b", "e"]),
        &games[..8],
        &RatingOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(err, RatingsError::Disconnected { .. }), "{err}");
}

#[test]
fn a_strict_order_and_bad_input_are_refused() {
    let mut games = repeated(0, 1, &[2.0], 3, 0);
    games.extend(repeated(1, 2, &[2.0], 3, 100));
    let list = names(&["a", "b", "c"]);
    let default = RatingOptions::default();
    assert_eq!(
        JointRatings::fit(&list, &games, &default).unwrap_err(),
        RatingsError::NoFiniteFit
    );
    assert_eq!(
        JointRatings::fit(&list, &[], &default).unwrap_err(),
        RatingsError::NoGames
    );
    let few = RatingOptions {
        resamples: 99,
        ..default
    };
    assert_eq!(
        JointRatings::fit(&list, &transitive(), &few).unwrap_err(),
        RatingsError::Resamples(99)
    );
    let nan_anchor = RatingOptions {
        anchor: Some(Anchor {
            engine: 0,
            rating: f64::NAN,
        }),
        ..default
    };
    assert!(matches!(
        JointRatings::fit(&list, &transitive(), &nan_anchor).unwrap_err(),
        RatingsError::AnchorValue(_)
    ));
    let itself = pairs(1, 1, &[1.0], 0);
    assert_eq!(
        JointRatings::fit(&list, &itself, &default).unwrap_err(),
        RatingsError::SameEngine {
            name: "b".to_string()
        }
    );
}

#[test]
fn the_same_seed_gives_the_same_intervals() {
    let games = transitive();
    let with_seed = |seed| {
        let options = RatingOptions {
            seed,
            resamples: 200,
            ..RatingOptions::default()
        };
        JointRatings::fit(&names(&["a", "b", "c"]), &games, &options).unwrap()
    };
    let (a, b, c) = (with_seed(5), with_seed(5), with_seed(6));
    assert_eq!(a.engines(), b.engines());
    assert_eq!(a.difference(0, 2), b.difference(0, 2));
    assert_ne!(a.difference(0, 2), c.difference(0, 2));
    // The bootstrap's spread is of the size the analytic error predicts: 40 games at 75 %
    // (draws in half the pairs) give about ± 90 Elo on the difference.
    let d = a.difference(0, 1).interval.half_width();
    assert!((50.0..150.0).contains(&d), "{d}");
}

#[test]
fn the_interval_leaves_two_and_a_half_percent_out_at_each_end() {
    let values: Vec<f64> = (0..1000).map(f64::from).collect();
    let i = interval(values.iter().copied());
    assert_eq!((i.lower, i.upper), (25.0, 974.0));
    // Undetermined resamples widen the interval instead of vanishing.
    let mut with_nan = values.clone();
    with_nan[..20].iter_mut().for_each(|v| *v = f64::NAN);
    let i = interval(with_nan.iter().copied());
    assert_eq!((i.lower, i.upper), (25.0, 994.0));
    with_nan[..30].iter_mut().for_each(|v| *v = f64::NAN);
    let i = interval(with_nan.iter().copied());
    assert_eq!((i.lower, i.upper), (f64::NEG_INFINITY, f64::INFINITY));
    assert_eq!(i.half_width(), f64::INFINITY);
}

#[test]
fn ratings_print_with_the_precision_asked_and_never_negative_zero() {
    assert_eq!(format!("{:.2}", Rating::Finite(-0.001)), "0.00");
    assert_eq!(format!("{:>7.1}", Rating::Finite(53.14)), "   53.1");
    assert_eq!(format!("{:<5}", Rating::PlusInfinity), "inf  ");
    assert_eq!(format!("{}", Rating::MinusInfinity), "-inf");
}
