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
    // Two inputs rate together. Nothing ties this PGN (another runner's, no GameId, in another
    // directory) to the fixture's run, so its games count as games of their own: the same
    // ratings from twice the games.
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

// Issue 45, defect 9: the same games given twice were counted twice (24 games instead of 12,
// narrower error bars). The same game is recognised by its source: a file given again (the same
// path, another spelling of it, or a byte-for-byte copy), or the run's GameId when a games.csv
// and a PGN sit in one run directory. Games from different sources are never merged.

/// The note `sparring ratings` prints for `games` games of `repeat` already read from `original`.
fn given_twice(games: usize, repeat: &str, original: &str) -> String {
    format!("note: {games} games given twice ({repeat} repeats {original}); counted once")
}

/// The total of the table's Games column: every game counted once per side.
fn games_column_total(stdout: &str) -> u64 {
    rows(stdout)
        .iter()
        .map(|r| r[3].parse::<u64>().unwrap())
        .sum()
}

#[test]
fn a_run_directory_and_its_own_pgn_count_each_game_once() {
    let dir = scratch("own-pgn");
    let out = dir.join("out");
    let config = three_engines(&out).write(dir.join("rr.toml"));
    let run = sparring(&["match", text(&config), "--progress", "lines"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let alone = sparring(&["ratings", text(&out), "--compare", "default", "material"]);
    assert_eq!(alone.code, 0, "{}", alone.stderr);
    assert_eq!(games_column_total(&alone.stdout), 2 * 12);
    let pgn = out.join("games.pgn");
    for (first, second) in [(&out, &pgn), (&pgn, &out)] {
        let both = sparring(&[
            "ratings",
            text(first),
            text(second),
            "--compare",
            "default",
            "material",
        ]);
        assert_eq!(both.code, 0, "{}", both.stderr);
        let mut lines = both.stdout.lines();
        assert_eq!(
            lines.next(),
            Some(given_twice(12, text(second), text(first)).as_str())
        );
        // The same 12 games, the same pairs: the single source's table and interval exactly.
        assert_eq!(
            lines.collect::<Vec<_>>(),
            alone.stdout.lines().collect::<Vec<_>>()
        );
        assert_eq!(games_column_total(&both.stdout), 2 * 12);
    }
}

#[test]
fn the_same_directory_twice_counts_once() {
    let alone = sparring(&["ratings", text(&fixture())]);
    assert_eq!(alone.code, 0, "{}", alone.stderr);
    // The directory twice, and once as its games.csv.
    let csv = fixture().join("games.csv");
    for second in [fixture(), csv] {
        let twice = sparring(&["ratings", text(&fixture()), text(&second)]);
        assert_eq!(twice.code, 0, "{}", twice.stderr);
        let mut lines = twice.stdout.lines();
        assert_eq!(
            lines.next(),
            Some(given_twice(128, text(&second), text(&fixture())).as_str())
        );
        assert_eq!(
            lines.collect::<Vec<_>>(),
            alone.stdout.lines().collect::<Vec<_>>()
        );
        let table = rows(&twice.stdout);
        assert_eq!(table[0][..2], ["alpha".to_string(), "190.8".to_string()]);
        assert_eq!(games_column_total(&twice.stdout), 2 * 128);
    }
}

#[test]
fn the_same_pgn_twice_or_a_copy_of_it_counts_once() {
    let dir = scratch("pgn-twice");
    let pgn = dir.join("cutechess.pgn");
    std::fs::write(&pgn, fixture_as_pgn()).unwrap();
    let copy = dir.join("elsewhere").join("copy.pgn");
    std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
    std::fs::copy(&pgn, &copy).unwrap();
    let alone = sparring(&["ratings", text(&pgn)]);
    assert_eq!(alone.code, 0, "{}", alone.stderr);
    for second in [&pgn, &copy] {
        let twice = sparring(&["ratings", text(&pgn), text(second)]);
        assert_eq!(twice.code, 0, "{}", twice.stderr);
        let lines: Vec<&str> = twice.stdout.lines().collect();
        // The unfinished game is reported for the file read, then the repeat noted.
        assert_eq!(lines[0], alone.stdout.lines().next().unwrap());
        assert_eq!(lines[1], given_twice(128, text(second), text(&pgn)));
        assert_eq!(lines[2..], alone.stdout.lines().skip(1).collect::<Vec<_>>());
        assert_eq!(games_column_total(&twice.stdout), 2 * 128);
    }
}

/// The fixture's games as sparring writes them in a run directory's games.pgn (minimal: the
/// roster and the GameId, moves `1. e4 e5`), each game's result `result(game_id, csv result)`.
fn fixture_as_sparring_pgn(result: impl Fn(u64, &str) -> String) -> String {
    let csv = std::fs::read_to_string(fixture().join("games.csv")).unwrap();
    let mut pgn = String::new();
    for row in csv.lines().skip(1) {
        let f: Vec<&str> = row.split(',').collect();
        let id: u64 = f[0].parse().unwrap();
        let result = result(id, f[7]);
        for (tag, value) in [
            ("Event", "sparring"),
            ("Site", "?"),
            ("Date", "2026.11.27"),
            ("Round", f[2]),
            ("White", f[3]),
            ("Black", f[4]),
            ("Result", &result),
            ("GameId", f[0]),
        ] {
            pgn.push_str(&format!("[{tag} \"{value}\"]\n"));
        }
        pgn.push_str(&format!("\n1. e4 e5 {result}\n\n"));
    }
    pgn
}

#[test]
fn a_game_recorded_twice_with_different_results_is_refused_naming_both() {
    let dir = scratch("disagree");
    std::fs::copy(fixture().join("games.csv"), dir.join("games.csv")).unwrap();
    // Game 3 is a draw in games.csv; its PGN record says White won.
    let pgn = dir.join("games.pgn");
    std::fs::write(
        &pgn,
        fixture_as_sparring_pgn(|id, r| if id == 3 { "1-0".into() } else { r.into() }),
    )
    .unwrap();
    // Each game takes 11 lines: game 3's record starts at line 23 of the PGN.
    assert_bad_input(
        &sparring(&["ratings", text(&dir), text(&pgn)]),
        &[
            "game 3 of",
            "games.csv says alpha-beta 1/2-1/2",
            "games.pgn line 23 says alpha-beta 1-0",
        ],
    );
    // Agreeing records of one directory count once.
    std::fs::write(&pgn, fixture_as_sparring_pgn(|_, r| r.into())).unwrap();
    let both = sparring(&["ratings", text(&dir), text(&pgn)]);
    assert_eq!(both.code, 0, "{}", both.stderr);
    assert_eq!(games_column_total(&both.stdout), 2 * 128);
}

#[test]
fn distinct_games_with_equal_tags_but_different_moves_are_both_counted() {
    // Two runs' PGNs from one schedule: the same players, rounds, GameIds and results, but
    // other moves, in other directories. Nothing says they are the same games: all count.
    let dir = scratch("equal-tags");
    let (one, two) = (dir.join("one"), dir.join("two"));
    std::fs::create_dir_all(&one).unwrap();
    std::fs::create_dir_all(&two).unwrap();
    let first = one.join("games.pgn");
    let second = two.join("games.pgn");
    let text_one = fixture_as_sparring_pgn(|_, r| r.into());
    std::fs::write(&first, &text_one).unwrap();
    std::fs::write(&second, text_one.replace("1. e4 e5", "1. d4 d5")).unwrap();
    let both = sparring(&["ratings", text(&first), text(&second)]);
    assert_eq!(both.code, 0, "{}", both.stderr);
    assert!(!both.stdout.contains("note:"), "{}", both.stdout);
    assert_eq!(games_column_total(&both.stdout), 2 * 2 * 128);
    // Even beside a games.csv with those GameIds, a PGN of another directory is not merged.
    std::fs::copy(fixture().join("games.csv"), one.join("games.csv")).unwrap();
    let csv_and_other = sparring(&["ratings", text(&one), text(&second)]);
    assert_eq!(csv_and_other.code, 0, "{}", csv_and_other.stderr);
    assert_eq!(games_column_total(&csv_and_other.stdout), 2 * 2 * 128);
}

#[test]
fn compare_an_engine_with_itself_is_refused() {
    assert_bad_input(
        &sparring(&["ratings", text(&fixture()), "--compare", "alpha", "alpha"]),
        &["--compare: alpha against itself"],
    );
}
