//! Joint ratings as a user meets them: `sparring ratings` on a games.csv fixture whose answer is
//! known, the table and ratings.csv a run of three engines ends with (what `sparring ratings`
//! gives on its directory), a two-engine run left as it was, and the refusals (status 2, naming
//! the file, line and field, or the engine).

use std::path::{Path, PathBuf};

use crate::common::binary;
use crate::common::config as config_file;
use binary::{assert_bad_input, sparring, text};
use config_file::{balanced_book, weights, Engine, MatchToml};

/// tests/fixtures/ratings: alpha, beta and gamma score 75 % (alpha-beta, beta-gamma) and 90 %
/// (alpha-gamma) in 40 games each, what ratings +190.85, 0, -190.85 expect (400 log10 3 apart);
/// delta loses its 8 games to gamma.
fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ratings")
}

/// A fresh, empty scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    binary::scratch_in("ratings", name)
}

/// The table's engine rows: name, rating, +/-, games, score.
fn rows(stdout: &str) -> Vec<Vec<String>> {
    stdout
        .lines()
        .skip_while(|l| !l.starts_with("Rank Name"))
        .skip(1)
        .take_while(|l| !l.starts_with("+/-"))
        .map(|l| l.split_whitespace().skip(1).map(String::from).collect())
        .collect()
}

#[test]
fn the_fixture_gets_its_known_ratings() {
    let run = sparring(&["ratings", text(&fixture())]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        lines[0],
        "Maximum-likelihood joint ratings (one logistic Elo curve fitted to all games, draws \
         as half points; mean 0):"
    );
    let table = rows(&run.stdout);
    let columns = |i: usize| -> Vec<&str> { table.iter().map(|r| r[i].as_str()).collect() };
    assert_eq!(columns(0), ["alpha", "beta", "gamma", "delta"]);
    assert_eq!(columns(1), ["190.8", "0.0", "-190.8", "-inf"]);
    assert_eq!(columns(3), ["80", "80", "88", "8"]);
    assert_eq!(columns(4), ["82.5%", "50.0%", "25.0%", "0.0%"]);
    for error in &columns(2)[..3] {
        let error: f64 = error.parse().unwrap();
        assert!((30.0..120.0).contains(&error), "{error}");
    }
    assert_eq!(columns(2)[3], "inf", "delta has no finite rating");
    assert_eq!(
        lines.last().copied(),
        Some("+/-: half the 95 % interval over 1000 bootstrap resamples of the game pairs")
    );
    // The file itself reads the same; the same seed gives the same intervals.
    let file = sparring(&["ratings", text(&fixture().join("games.csv"))]);
    assert_eq!(file.stdout, run.stdout);
}

/// The fixture's games as cutechess-cli writes a PGN: the tags in its order, no FEN (the games
/// start from the initial position), the Round shared by a pair, comments over several lines
/// (one holding a line that looks like a tag), CRLF line ends; then a game left unfinished.
fn fixture_as_pgn() -> String {
    let csv = std::fs::read_to_string(fixture().join("games.csv")).unwrap();
    let mut pgn = String::new();
    for row in csv.lines().skip(1) {
        let f: Vec<&str> = row.split(',').collect();
        let (round, white, black, result) = (f[2], f[3], f[4], f[7]);
        for (tag, value) in [
            ("Event", "?"),
            ("Site", "?"),
            ("Date", "2026.11.27"),
            ("Round", round),
            ("White", white),
            ("Black", black),
            ("Result", result),
            ("PlyCount", "2"),
        ] {
            pgn.push_str(&format!("[{tag} \"{value}\"]\r\n"));
        }
        pgn.push_str(&format!(
            "\r\n1. e4 {{+0.25/12 0.1s\r\n[White \"nobody\"]}} e5 {{book}} {result}\r\n\r\n"
        ));
    }
    pgn + "[White \"alpha\"]\n[Black \"beta\"]\n[Result \"*\"]\n\n1. d4 *\n"
}

#[test]
fn any_runners_pgn_rates_as_its_games_csv_does() {
    let dir = scratch("pgn");
    let pgn = dir.join("cutechess.PGN");
    std::fs::write(&pgn, fixture_as_pgn()).unwrap();
    let from_csv = sparring(&["ratings", text(&fixture()), "--compare", "alpha", "gamma"]);
    let from_pgn = sparring(&["ratings", text(&pgn), "--compare", "alpha", "gamma"]);
    assert_eq!(from_pgn.code, 0, "{}", from_pgn.stderr);
    let mut lines = from_pgn.stdout.lines();
    assert_eq!(
        lines.next(),
        Some(
            format!(
                "{}: 1 unfinished game(s) (Result \"*\") left out",
                pgn.display()
            )
            .as_str()
        )
    );
    // Pairs inferred from Round and players, so the same intervals as the pair ids give.
    assert_eq!(
        lines.collect::<Vec<_>>(),
        from_csv.stdout.lines().collect::<Vec<_>>()
    );
    // Two inputs rate together: every game twice, the same ratings.
    let both = sparring(&["ratings", text(&fixture()), text(&pgn)]);
    assert_eq!(both.code, 0, "{}", both.stderr);
    let table = rows(&both.stdout);
    assert_eq!(table[0][..2], ["alpha".to_string(), "190.8".to_string()]);
    assert_eq!(table[0][3], "160");
}

#[test]
fn a_bad_pgn_is_refused_naming_file_line_and_tag() {
    let dir = scratch("bad-pgn");
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let game = "[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n\n";
    let no_black = write(
        "no-black.pgn",
        &format!("{game}[White \"a\"]\n[Result \"0-1\"]\n0-1\n"),
    );
    assert_bad_input(
        &sparring(&["ratings", text(&no_black)]),
        &["no-black.pgn: line 7: the game starting here has no Black tag"],
    );
    let result = write("result.pgn", &game.replace("1-0\"", "2-0\""));
    assert_bad_input(
        &sparring(&["ratings", text(&result)]),
        &["result.pgn: line 3: Result \"2-0\" is none of 1-0, 0-1, 1/2-1/2, *"],
    );
    let tag = write("tag.pgn", &game.replace("[Black \"b\"]", "[Black b]"));
    assert_bad_input(
        &sparring(&["ratings", text(&tag)]),
        &["tag.pgn: line 2: malformed tag pair"],
    );
    let unfinished = write(
        "unfinished.pgn",
        "[White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n*\n",
    );
    assert_bad_input(
        &sparring(&["ratings", text(&unfinished)]),
        &["unfinished.pgn: no finished games to rate"],
    );
}

#[test]
fn compare_and_anchor_read_differences_off_the_same_fit() {
    let run = sparring(&["ratings", text(&fixture()), "--compare", "alpha", "gamma"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let last = run.stdout.lines().last().unwrap();
    let interval = last
        .strip_prefix("alpha - gamma: 381.7 (95 %: ")
        .and_then(|rest| rest.strip_suffix(')'))
        .unwrap_or_else(|| panic!("{last}"));
    let (lower, upper) = interval.split_once(" to ").unwrap();
    let (lower, upper): (f64, f64) = (lower.parse().unwrap(), upper.parse().unwrap());
    assert!(lower < 381.7 && 381.7 < upper, "{last}");
    let anchored = sparring(&[
        "ratings",
        text(&fixture()),
        "--anchor",
        "beta",
        "--anchor-rating",
        "2000",
        "--resamples",
        "200",
        "--seed",
        "9",
    ]);
    assert_eq!(anchored.code, 0, "{}", anchored.stderr);
    assert!(anchored.stdout.contains("beta held at 2000.0"));
    assert!(anchored.stdout.contains("over 200 bootstrap resamples"));
    let table = rows(&anchored.stdout);
    assert_eq!(table[0][..2], ["alpha", "2190.8"]);
    assert_eq!(table[1][..3], ["beta", "2000.0", "0.0"]);
}

/// Three built-in engines in a round robin at fixed nodes: short games, many drawn at the
/// maximal length, so every engine takes points from the others.
fn three_engines(out: &Path) -> MatchToml {
    MatchToml::round_robin()
        .rounds(2)
        .concurrency(1)
        .seed(4)
        .nodes(300)
        .openings(balanced_book())
        .openings_order("random")
        .max_moves(40)
        .out(out)
        .engine(Engine::builtin("default").hash_mb(1))
        .engine(
            Engine::builtin("material")
                .weights(weights("material-only.toml"))
                .hash_mb(1),
        )
        .engine(Engine::builtin("default-2").hash_mb(1))
}

#[test]
fn a_three_engine_run_ends_with_the_joint_ratings() {
    let dir = scratch("three-engines");
    let out = dir.join("out");
    let config = three_engines(&out).write(dir.join("rr.toml"));
    let run = sparring(&["match", text(&config), "--progress", "lines"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    let at = |prefix: &str| lines.iter().position(|l| l.starts_with(prefix));
    // The ranking table's heading is the first `Rank Name` line (the joint table has its own).
    let ranking = at("Rank Name").unwrap();
    let joint = at("Maximum-likelihood joint ratings").unwrap();
    let finished = at("Finished match").unwrap();
    assert!(ranking < joint && joint < finished, "{}", run.stdout);
    assert!(
        run.stdout.contains("ranking.csv, ratings.csv"),
        "{}",
        run.stdout
    );
    // The table the run printed is what `sparring ratings` prints on its directory.
    let again = sparring(&["ratings", text(&out)]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let printed: Vec<&str> = lines[joint..joint + 6].to_vec();
    assert_eq!(printed, again.stdout.lines().collect::<Vec<_>>());
    // And on its PGN, whose pairs are found again from the Round, FEN and players.
    let from_pgn = sparring(&["ratings", text(&out.join("games.pgn"))]);
    assert_eq!(from_pgn.stdout, again.stdout, "{}", from_pgn.stderr);
    // ratings.csv: the same ratings, best first, every game counted twice (once per side).
    let csv = std::fs::read_to_string(out.join("ratings.csv")).unwrap();
    let csv_lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        csv_lines[0],
        "rank,engine,rating,error,lower,upper,games,score"
    );
    assert_eq!(csv_lines.len(), 4);
    let table = rows(&again.stdout);
    let mut games = 0;
    for (k, (line, row)) in csv_lines[1..].iter().zip(&table).enumerate() {
        let fields: Vec<&str> = line.split(',').collect();
        assert_eq!(fields[0], (k + 1).to_string());
        assert_eq!(fields[1], row[0]);
        let rating: f64 = fields[2].parse().unwrap();
        assert_eq!(format!("{rating:.1}"), row[1], "{line}");
        let (lower, upper): (f64, f64) = (fields[4].parse().unwrap(), fields[5].parse().unwrap());
        assert!(lower <= rating && rating <= upper, "{line}");
        games += fields[6].parse::<u64>().unwrap();
    }
    assert_eq!(games, 2 * 12);
}

#[test]
fn a_two_engine_run_has_no_joint_ratings() {
    let dir = scratch("two-engines");
    let out = dir.join("out");
    let config = MatchToml::gauntlet()
        .rounds(1)
        .concurrency(1)
        .nodes(300)
        .max_moves(20)
        .out(&out)
        .engine(Engine::builtin("a").hash_mb(1))
        .engine(Engine::builtin("b").hash_mb(1))
        .write(dir.join("pair.toml"));
    let run = sparring(&["match", text(&config), "--progress", "lines"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stdout.contains("joint ratings"), "{}", run.stdout);
    assert!(!out.join("ratings.csv").exists());
    assert!(out.join("ranking.csv").exists());
}

/// The fixture with `edit` applied to its text, written into `dir` as games.csv.
fn edited(dir: &Path, edit: impl Fn(&str) -> String) -> PathBuf {
    let text = std::fs::read_to_string(fixture().join("games.csv")).unwrap();
    let path = dir.join("games.csv");
    std::fs::write(&path, edit(&text)).unwrap();
    path
}

/// `text` with `from` replaced by `to` in its line `n` (1-based).
fn replace_in_line(text: &str, n: usize, from: &str, to: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    lines[n - 1] = lines[n - 1].replace(from, to);
    lines.join("\n") + "\n"
}

#[test]
fn bad_input_is_refused_naming_file_line_field_or_engine() {
    let dir = scratch("bad-input");
    let missing = dir.join("missing.csv");
    assert_bad_input(
        &sparring(&["ratings", text(&missing)]),
        &["missing.csv: no such file or directory"],
    );
    assert_bad_input(&sparring(&["ratings", text(&dir)]), &["holds no games.csv"]);
    // Line 5 is game 4: its plies and its result damaged in turn.
    let plies = edited(&dir, |t| {
        replace_in_line(t, 5, ",normal,64,", ",normal,6x,")
    });
    assert_bad_input(
        &sparring(&["ratings", text(&plies)]),
        &["games.csv: line 5: field `plies`: invalid digit"],
    );
    let result = edited(&dir, |t| replace_in_line(t, 5, ",1/2-1/2,", ",2-0,"));
    assert_bad_input(
        &sparring(&["ratings", text(&result)]),
        &["games.csv: line 5: field `result`: bad result '2-0'"],
    );
    let header = edited(&dir, |t| t.replacen("game_id", "id", 1));
    assert_bad_input(
        &sparring(&["ratings", text(&header)]),
        &["games.csv: line 1: not a sparring games.csv header"],
    );
    let empty = edited(&dir, |t| t.lines().next().unwrap().to_string() + "\n");
    assert_bad_input(
        &sparring(&["ratings", text(&empty)]),
        &["games.csv: no finished games to rate"],
    );
}

#[test]
fn engines_and_fits_that_cannot_be_are_refused() {
    let dir = scratch("bad-engines");
    let fixture = text(&fixture()).to_string();
    let refused = |args: &[&str], needles: &[&str]| {
        let mut all = vec!["ratings", fixture.as_str()];
        all.extend(args);
        assert_bad_input(&sparring(&all), needles);
    };
    refused(
        &["--anchor", "omega"],
        &[
            "--anchor: no engine named \"omega\"",
            "engines: alpha, beta, gamma, delta",
        ],
    );
    refused(
        &["--compare", "alpha", "zeta"],
        &["--compare: no engine named \"zeta\""],
    );
    refused(
        &["--anchor", "delta"],
        &["the anchor delta has no finite rating (-inf)"],
    );
    refused(
        &["--resamples", "5"],
        &["resamples must be from 100 to 100000, got 5"],
    );
    refused(&["--anchor-rating", "10"], &["--anchor"]);
    // alpha-beta's pairs (1-20) and gamma-delta's (61-64) only: two groups that never met.
    let split = edited(&dir, |t| {
        t.lines()
            .filter(|l| {
                let pair: u64 = l.split(',').nth(1).unwrap().parse().unwrap_or(0);
                pair == 0 || pair <= 20 || pair > 60
            })
            .map(|l| format!("{l}\n"))
            .collect()
    });
    assert_bad_input(
        &sparring(&["ratings", text(&split)]),
        &["games.csv: the games do not connect the engines: no game links {alpha, beta} with {gamma, delta}"],
    );
}
