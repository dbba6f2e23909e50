//! The fastchess / cutechess-cli command line: the exact argument lists the fishtest and
//! OpenBench workers build (docs/research/worker-command-lines.md), replayed through a
//! `fastchess` symlink to sparring and read with those workers' own regular expressions; option
//! refusals; and `--dump-config`, whose TOML reads back as the same configuration. Then what it
//! refuses: every option that takes a value with its value missing, repeated, negative, huge,
//! malformed or empty (the adversarial sweep of issue 21; docs/reliability.md lists the cases),
//! flags given a value, arguments that are not UTF-8, and hostile limits with real engines on the
//! line. Every such case ends with status 0 or 2 and one `error:` line naming the option, never a
//! panic, a signal, a hang or an engine started.

use regex::Regex;
use sparring::arena::MatchConfig;
use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::binary;
use crate::common::hostile;
use binary::{assert_bad_input, sparring, text, Run};
use hostile::{assert_no_leftover, mock_engine, run, run_env};

const SPARRING: &str = env!("CARGO_BIN_EXE_sparring");
const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/openings");

/// A fresh, empty scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("dialect-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The workers' concurrency, bounded by this machine (sparring refuses more, as fastchess does).
fn concurrency() -> usize {
    sparring::available_cores().min(2)
}

/// A symlink named `name` to the sparring binary inside `dir`, as a worker would install it.
fn runner(dir: &Path, name: &str) -> PathBuf {
    let link = dir.join(name);
    std::os::unix::fs::symlink(SPARRING, &link).unwrap();
    link
}

fn run_program(program: &Path, args: &[String], cwd: &Path) -> Run {
    let out = Command::new(program)
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
    }
}

fn words(line: &str) -> Vec<String> {
    line.split_whitespace().map(str::to_string).collect()
}

/// What fishtest's `parse_fastchess_output` takes from the lines (worker/games.py), with its
/// assertions: totals from the `Games:`/`Ptnml` blocks, crash and time-loss counts by substring,
/// the fatal `Warning;` patterns, and `Finished match` only once every game is counted.
fn fishtest_parse(lines: &[&str], games_to_play: u64, batch_size: u64) -> (u64, [u64; 5]) {
    let hash_pattern = Regex::new(r"(Base|New)-[a-f0-9]+").unwrap();
    let pattern_wld = Regex::new(
        r"Games: ([0-9]+), Wins: ([0-9]+), Losses: ([0-9]+), Draws: ([0-9]+), Points: ([0-9.]+) \(",
    )
    .unwrap();
    let pattern_ptnml =
        Regex::new(r"Ptnml\(0-2\): \[([0-9]+), ([0-9]+), ([0-9]+), ([0-9]+), ([0-9]+)\]").unwrap();
    let fatal: Vec<Regex> = [
        r"Warning;.*doesn't have option",
        r"Warning; Invalid value for option",
        r"Warning; Failed to set.*option",
        r"Warning; No info line available to extract score from engine",
        r"Warning; Illegal move",
        r"Warning; Could not extract score from engine",
        r"Warning; Illegal PV move",
        r"Warning; Move does not match uci move format",
        r"Warning; PV continues after checkmate",
        r"Warning; PV continues after stalemate",
        r"Warning; PV continues after threefold",
        r"Warning; PV continues after fifty-move rule",
        r"Warning; Incomplete mating PV",
        r"Warning; Too long mating PV",
        r"Warning; Mating PV does not end with checkmate",
        r"Warning; Bestmove does not match beginning of last PV",
        r"Warning; Sign mismatch in mate scores",
    ]
    .iter()
    .map(|p| Regex::new(p).unwrap())
    .collect();
    let (mut crashes, mut time_losses) = (0, 0);
    let mut num_games_updated = 0u64;
    let mut wld: Option<[u64; 3]> = None;
    let mut ptnml: Option<[u64; 5]> = None;
    let mut totals = [0u64; 5];
    let mut finished = false;
    for raw in lines {
        let line = hash_pattern.replace_all(raw.trim(), |c: &regex::Captures<'_>| {
            let whole = &c[0];
            whole[..whole.len().min(c[1].len() + 11)].to_string()
        });
        let line = line.as_ref();
        if line.contains("Finished match") {
            assert_eq!(
                num_games_updated, games_to_play,
                "Finished match uncleanly: {num_games_updated} of {games_to_play} games counted"
            );
            finished = true;
        }
        for p in &fatal {
            assert!(!p.is_match(line), "fastchess says: '{line}'");
        }
        if line.contains("disconnect") || line.contains("stall") {
            crashes += 1;
        }
        if line.contains("on time") || line.contains("timeout") {
            time_losses += 1;
        }
        if let Some(c) = pattern_wld.captures(line) {
            wld = Some([2, 3, 4].map(|i| c[i].parse().unwrap()));
            let games: u64 = c[1].parse().unwrap();
            assert_eq!(games, wld.unwrap().iter().sum::<u64>());
        }
        if let Some(c) = pattern_ptnml.captures(line) {
            ptnml = Some([1, 2, 3, 4, 5].map(|i| c[i].parse().unwrap()));
        }
        if let (Some(w), Some(p)) = (wld, ptnml) {
            let games: u64 = w.iter().sum();
            assert_eq!(2 * p.iter().sum::<u64>(), games, "Games == 2 * sum(ptnml)");
            assert!(games <= num_games_updated + batch_size, "{line}");
            assert!(games <= games_to_play);
            if games == num_games_updated + batch_size || games == games_to_play {
                num_games_updated = games;
                totals = p;
            }
            wld = None;
            ptnml = None;
        }
    }
    assert!(finished, "no `Finished match` line");
    assert_eq!((crashes, time_losses), (0, 0), "crashes and time losses");
    (num_games_updated, totals)
}

/// fishtest's task (docs/research/worker-command-lines.md §1.3), with the engines replaced: New
/// is the built-in engine, Base is `sparring uci`; node limits instead of the scaled clock so
/// the games are quick and repeatable.
#[test]
fn fishtest_command_line_runs_and_its_parser_reads_every_figure() {
    let dir = scratch("fishtest");
    let fastchess = runner(&dir, "fastchess");
    let book = format!("{FIXTURES}/UHO_4060_v4-head.epd");
    let new = format!("New-{}", "a1".repeat(20));
    let base = format!("Base-{}", "b2".repeat(20));
    let games_to_play = 4u64;
    let concurrency = concurrency();
    let mut args = words(&format!(
        "-testEnv -recover -repeat -games 2 -rounds {} \
         -ratinginterval 1 -scoreinterval 1 -autosaveinterval 0 -report penta=true \
         -pgnout file=results-6650f0a1b2c3d4e5f6a7b8c9-17.pgn append=false -crc32 pgn=true \
         -site https://tests.stockfishchess.org/tests/view/6650f0a1b2c3d4e5f6a7b8c9",
        games_to_play / 2
    ));
    args.push("-event".into());
    args.push("Batch 17: patch vs master".into());
    args.extend(words(&format!(
        "-srand 5549552095228975195 \
         -resign movecount=3 score=600 -draw movenumber=34 movecount=8 score=20 \
         -variant standard -concurrency {concurrency} \
         -openings file={book} format=epd order=random plies=16 start=3 \
         -check-mate-pvs \
         -engine name={new} tc=inf nodes=3000 cmd=builtin dir=. option.Hash=16 \
         -engine name={base} tc=inf nodes=3000 cmd={SPARRING} args=uci dir=. option.Hash=16 \
         -each proto=uci option.Threads=1"
    )));
    let out = run_program(&fastchess, &args, &dir);
    assert_eq!(
        out.code, 0,
        "stdout:\n{}\nstderr:\n{}",
        out.stdout, out.stderr
    );
    // fishtest reads standard output and standard error through one queue.
    let lines: Vec<&str> = out.stdout.lines().chain(out.stderr.lines()).collect();
    let (games, ptnml) = fishtest_parse(&lines, games_to_play, 2);
    assert_eq!(games, games_to_play);
    assert_eq!(2 * ptnml.iter().sum::<u64>(), games_to_play);
    // The PGN is where the worker looks for it, with the Event it passed.
    let pgn = std::fs::read_to_string(dir.join("results-6650f0a1b2c3d4e5f6a7b8c9-17.pgn")).unwrap();
    assert_eq!(
        pgn.matches("[Event \"Batch 17: patch vs master\"]").count(),
        4
    );
}

/// What OpenBench's `run_and_parse_runner` takes from standard output (Client/worker.py): it
/// stops at the first blank line, reads `Finished game N (A vs B): R {reason}` by tokens, pairs
/// games 2k-1 and 2k, and counts crashes, time losses and illegal moves in the reason.
fn openbench_parse(stdout: &str) -> ([u64; 5], [u64; 3]) {
    let mut results: HashMap<u64, String> = HashMap::new();
    let mut penta = [0u64; 5];
    let (mut crashes, mut timelosses, mut illegals) = (0, 0, 0);
    for raw in stdout.lines() {
        assert!(raw.is_ascii(), "OpenBench decodes ASCII: {raw}");
        let line = raw.trim();
        if line.is_empty() {
            break;
        }
        if !line.contains("Finished game") {
            continue;
        }
        let reason = line.split(':').nth(1).unwrap();
        crashes += u64::from(reason.contains("disconnect") || reason.contains("stalls"));
        timelosses += u64::from(reason.contains("on time"));
        illegals += u64::from(reason.contains("illegal"));
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let game: u64 = tokens[2].parse().unwrap();
        results.insert(game, tokens[6].to_string());
        let partner = if game % 2 == 1 { game + 1 } else { game - 1 };
        if let Some(other) = results.get(&partner) {
            let lookup = |r: &str| match r {
                "0-1" => 0usize,
                "1/2-1/2" => 1,
                "1-0" => 2,
                other => panic!("OpenBench cannot read the result {other}"),
            };
            let (odd, even) = if game % 2 == 1 {
                (&results[&game], other)
            } else {
                (other, &results[&game])
            };
            penta[lookup(odd) + 2 - lookup(even)] += 1;
        }
    }
    (penta, [crashes, timelosses, illegals])
}

/// OpenBench's runner command (§3.2), its engines in `Engines/` started with cwd = dir: dev is
/// `sparring uci` through a binary named as OpenBench names them, base the built-in engine. Its
/// `N=` preset is exactly `tc=inf nodes=N`.
#[test]
fn openbench_command_line_runs_and_its_parser_reads_every_game() {
    let dir = scratch("openbench");
    let fastchess_ob = runner(&dir, "fastchess-ob");
    for sub in ["Engines", "Books", "PGNs"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    std::fs::copy(
        format!("{FIXTURES}/8mvs_+90_+99-head.epd"),
        dir.join("Books/book.epd"),
    )
    .unwrap();
    // `sparring uci` under the dev binary's name: a wrapper script, since the engine needs `uci`.
    let dev = dir.join("Engines/Sparring-1A2B3C4D");
    std::fs::write(&dev, format!("#!/bin/sh\nexec {SPARRING} uci \"$@\"\n")).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&dev, std::fs::Permissions::from_mode(0o755)).unwrap();

    // OpenBench's get_version: the first N.N[.N] of `--version` must be at least 1.8.1.
    let version = run_program(&fastchess_ob, &["--version".to_string()], &dir);
    assert_eq!(version.code, 0);
    let found = Regex::new(r"\d+\.\d+(\.\d+)?")
        .unwrap()
        .find(&version.stdout)
        .unwrap()
        .as_str()
        .to_string();
    let parts: Vec<u32> = found.split('.').map(|p| p.parse().unwrap()).collect();
    assert!(parts >= vec![1, 8, 1], "{found}");
    // fishtest pins a fastchess build by its sha; sparring does not pretend to be one.
    let fishtest_check =
        Regex::new(r"fastchess alpha [0-9]*.[0-9]*.[0-9]* [0-9]*-([0-9a-f-]*)$").unwrap();
    assert!(!fishtest_check.is_match(version.stdout.trim()));

    let rounds = 2;
    let concurrency = concurrency();
    let mut args = words(&format!(
        "-recover -variant standard -testEnv -concurrency {concurrency} -rounds {rounds} -games 2 \
         -resign movecount=3 score=400 -draw movenumber=40 movecount=8 score=10 \
         -engine dir=Engines/ cmd=./Sparring-1A2B3C4D proto=uci tc=inf nodes=2500 option.Threads=1 option.Hash=8 name=Sparring-dev \
         -engine cmd=builtin proto=uci tc=inf nodes=2500 option.Threads=1 option.Hash=8 name=Sparring-base \
         -openings file=Books/book.epd format=epd order=random start=5 -srand 4242 \
         -pgnout file=PGNs/4242.98765.1767225600.0.pgn seldepth=true nodes=true"
    ));
    // shlex.split turns match_line='^info string pgncomment .*' into one argument.
    args.push("match_line=^info string pgncomment .*".to_string());
    let out = run_program(&fastchess_ob, &args, &dir);
    assert_eq!(
        out.code, 0,
        "stdout:\n{}\nstderr:\n{}",
        out.stdout, out.stderr
    );
    let (penta, [crashes, timelosses, illegals]) = openbench_parse(&out.stdout);
    assert_eq!(
        penta.iter().sum::<u64>(),
        rounds,
        "pairs read:\n{}",
        out.stdout
    );
    assert_eq!((crashes, timelosses, illegals), (0, 0, 0));
    // The PGN exists where OpenBench reads it, one blank line between headers and moves and
    // between games, and no game is abandoned, stalled or illegal.
    let pgn = std::fs::read_to_string(dir.join("PGNs/4242.98765.1767225600.0.pgn")).unwrap();
    let blocks: Vec<&str> = pgn.split("\n\n").filter(|b| !b.trim().is_empty()).collect();
    assert_eq!(blocks.len(), 2 * 2 * rounds as usize, "{pgn}");
    for header in blocks.iter().step_by(2) {
        assert!(header.starts_with("[Event "));
        for word in ["abandoned", "stalled", "illegal"] {
            assert!(!header.contains(word), "{header}");
        }
    }
}

fn dialect_config(args: &[String], cwd: &Path) -> MatchConfig {
    let dump = cwd.join("dump.toml");
    let mut all = vec!["match".to_string()];
    all.extend_from_slice(args);
    all.push("--dump-config".into());
    all.push(dump.display().to_string());
    let out = run_program(Path::new(SPARRING), &all, cwd);
    assert_eq!(out.code, 0, "{}", out.stderr);
    MatchConfig::load(&dump).unwrap()
}

/// `--dump-config` writes a TOML file that reads back as the configuration, and that file's own
/// dump is the same text.
#[test]
fn dump_config_round_trips() {
    let dir = scratch("dump");
    let mut args = words(&format!(
        "-engine builtin name=a hash=8 tc=40/12.5+0.125 -engine cmd={SPARRING} args=uci name=b \
         depth=5 option.Hash=4 -each timemargin=250 -rounds 6 -concurrency 1 \
         -srand 18446744073709551615 -draw movenumber=34 movecount=8 score=20 \
         -resign movecount=3 score=600 twosided=true -maxmoves 150 \
         -sprt elo0=0 elo1=2.5 alpha=0.05 beta=0.1 model=logistic \
         -openings file={FIXTURES}/suite.epd format=epd order=random start=2 \
         -pgnout file=out/run.pgn -ratinginterval 3 -log file=engines.log engine=true -strict \
         -tournament gauntlet -output format=cutechess"
    ));
    args.extend(["-site".to_string(), "my lab".to_string()]);
    let config = dialect_config(&args, &dir);
    assert_eq!(config.seed, u64::MAX);
    assert_eq!(config.site, "my lab");
    assert_eq!(config.output.pgn_name, "../run.pgn");
    assert_eq!(config.output.dir, Path::new("out/run.pgn.sparring"));
    assert!(config.strict_options);
    assert!(config.engines.iter().all(|e| e.time_control.is_some()));
    // Dumping what was loaded gives the same text, and reading it gives the same config.
    let text = std::fs::read_to_string(dir.join("dump.toml")).unwrap();
    let again = MatchConfig::parse(&config.to_toml(), "again").unwrap();
    assert_eq!(config.to_toml(), text);
    let mut config = config;
    config.source = again.source.clone();
    assert_eq!(config, again);

    // `sparring match FILE --dump-config` writes the same file with the overrides applied.
    let toml_dump = dir.join("second.toml");
    let out = run_program(
        Path::new(SPARRING),
        &words(&format!(
            "match {} --rounds 9 --dump-config {}",
            dir.join("dump.toml").display(),
            toml_dump.display()
        )),
        &dir,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let second = MatchConfig::load(&toml_dump).unwrap();
    assert_eq!(second.rounds, 9);
    assert_eq!(second.engines, again.engines);
}

/// Refusals exit 2 and name the option and its value; accepted-but-unused options say so on
/// standard error; `-help` prints the usage.
#[test]
fn unknown_options_are_refused_by_name_with_status_2() {
    let dir = scratch("refusals");
    let fastchess = runner(&dir, "fastchess");
    let two = "-engine builtin nodes=100 -engine builtin nodes=100";
    for (extra, expected) in [
        ("-frobnicate 1", "-frobnicate: unknown option"),
        ("-bookmode fast", "-bookmode fast: expected ram or disk"),
        ("-variant crazyhouse", "-variant crazyhouse"),
        (
            "-openings file=x.epd order=shuffled",
            "-openings order=shuffled",
        ),
        ("-concurrency 100000", "-concurrency 100000"),
        ("-sprt elo0=5 elo1=0", "-sprt elo0=5 elo1=0"),
        ("-pgnout file=x.pgn notation=fen", "notation=fen"),
    ] {
        let out = run_program(&fastchess, &words(&format!("{two} {extra}")), &dir);
        assert_eq!(out.code, 2, "{extra}: {}", out.stderr);
        assert!(out.stderr.contains(expected), "{extra}: {}", out.stderr);
    }
    // The same through `sparring match -...`.
    let out = run_program(
        Path::new(SPARRING),
        &words(&format!("match {two} -wait soon")),
        &dir,
    );
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("-wait soon: expected a number of milliseconds"),
        "{}",
        out.stderr
    );

    let help = run_program(&fastchess, &["-help".to_string()], &dir);
    assert_eq!(help.code, 0);
    assert!(help.stdout.contains("-engine cmd=PATH"));
    let cutechess = runner(&dir, "cutechess-cli");
    let help = run_program(&cutechess, &[], &dir);
    assert!(help.stdout.contains("cutechess-cli"));
}

/// `-each` applies after the whole line, overriding the engines' keys, and a match played from
/// the dialect notes the options it accepts without using them.
#[test]
fn each_merges_into_every_engine_and_notes_are_one_line_each() {
    let dir = scratch("each");
    let config = dialect_config(
        &words(&format!(
            "-each tc=inf nodes=700 option.Hash=2 -engine cmd={SPARRING} args=uci name=x nodes=5 \
             option.Hash=64 option.Threads=1 -engine builtin name=y -pgnout file=each.pgn"
        )),
        &dir,
    );
    assert_eq!(
        config.time_control,
        sparring::arena::TimeControl::Nodes(700)
    );
    match &config.engines[0].kind {
        sparring::arena::EngineKind::Uci { options, .. } => assert_eq!(
            options,
            &vec![
                ("Hash".to_string(), "2".to_string()),
                ("Threads".to_string(), "1".to_string())
            ]
        ),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        config.engines[1].kind,
        sparring::arena::EngineKind::Builtin {
            weights: None,
            net: None,
            hash_mb: 2,
            search: None,
            syzygy: None,
        }
    );

    let fastchess = runner(&dir, "fastchess");
    let out = run_program(
        &fastchess,
        &words("-engine builtin name=p nodes=300 -engine builtin name=q nodes=300 -rounds 1 -scoreinterval 1 -autosaveinterval 0 -pgnout file=notes.pgn"),
        &dir,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let notes: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| l.starts_with("note: "))
        .collect();
    assert_eq!(notes.len(), 2, "{}", out.stderr);
    assert!(notes[0].contains("-scoreinterval") && notes[1].contains("-autosaveinterval"));
    assert!(dir.join("notes.pgn").exists());
}

/// fishtest's command line from the cutechess-cli era (worker/games.py before 11daff5b), run
/// through a `cutechess-cli` symlink: `-games N` is the number of games of the encounter.
#[test]
fn cutechess_era_fishtest_command_line_plays_its_games() {
    let dir = scratch("cutechess");
    let cutechess = runner(&dir, "cutechess-cli");
    let book = format!("{FIXTURES}/UHO_4060_v4-head.epd");
    let mut args = words(
        "-recover -repeat -games 4 -tournament gauntlet -pgnout results-old.pgn \
         -site https://tests.stockfishchess.org/tests/view/5f0a",
    );
    args.extend(["-event".to_string(), "Batch 3: patch vs master".to_string()]);
    args.extend(words(&format!(
        "-srand 123456789 -resign movecount=3 score=400 -draw movenumber=34 movecount=8 score=20 \
         -variant standard -concurrency 1 \
         -openings file={book} format=epd order=random plies=16 start=1 \
         -engine name=New-abc tc=inf nodes=2000 cmd=builtin dir=. option.Hash=16 \
         -engine name=Base-def tc=inf nodes=2000 cmd={SPARRING} args=uci dir=. option.Hash=16 \
         -each proto=uci option.Threads=1"
    )));
    let out = run_program(&cutechess, &args, &dir);
    assert_eq!(
        out.code, 0,
        "stdout:\n{}\nstderr:\n{}",
        out.stdout, out.stderr
    );
    let finished =
        Regex::new(r"^Finished game (\d+) \((\S+) vs (\S+)\): (1-0|0-1|1/2-1/2) \{").unwrap();
    let games: Vec<u64> = out
        .stdout
        .lines()
        .filter_map(|l| finished.captures(l).map(|c| c[1].parse().unwrap()))
        .collect();
    assert_eq!(games.len(), 4, "{}", out.stdout);
    assert!(out.stdout.contains("Finished match"));
    let pgn = std::fs::read_to_string(dir.join("results-old.pgn")).unwrap();
    assert_eq!(pgn.matches("[Event ").count(), 4);
}

/// weather-factory's fastchess line carries `-config outname=FILE discard=true` beside the match
/// options: fastchess's state file, which sparring keeps in its output directory instead (a note,
/// and FILE is not written). `-seeds N`: a gauntlet's first N engines are its seeds (see
/// `multi_seed_gauntlet_...`); a round robin has no seeds to set.
#[test]
fn config_outname_and_seeds_are_taken_as_fastchess_and_cutechess_mean_them() {
    let dir = scratch("outname-seeds");
    let fastchess = runner(&dir, "fastchess");
    let out = run_program(
        &fastchess,
        &words(
            "-config outname=state/wf.json discard=true -engine builtin name=a nodes=300 \
             -engine builtin name=b nodes=300 -each tc=inf -rounds 1 -games 2 -pgnout file=wf.pgn",
        ),
        &dir,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let notes: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| l.starts_with("note: "))
        .collect();
    assert_eq!(notes.len(), 2, "{}", out.stderr);
    assert!(notes.iter().any(|n| n.contains("outname=state/wf.json")));
    assert!(notes.iter().any(|n| n.contains("discard=true")));
    assert!(!dir.join("state").exists(), "the state file is not written");
    assert!(out.stdout.contains("Finished match"), "{}", out.stdout);
    assert_eq!(
        std::fs::read_to_string(dir.join("wf.pgn"))
            .unwrap()
            .matches("[Event ")
            .count(),
        2
    );
    let bad = run_program(
        &fastchess,
        &words("-config outname= -engine builtin nodes=1 -engine builtin nodes=1"),
        &dir,
    );
    assert_eq!(bad.code, 2, "{}", bad.stderr);

    let two = "-engine builtin name=a nodes=100 -engine builtin name=b nodes=100 \
               -engine builtin name=c nodes=100";
    let config = dialect_config(
        &words(&format!("{two} -tournament gauntlet -seeds 1")),
        &dir,
    );
    assert_eq!(config.kind, sparring::arena::TournamentKind::Gauntlet);
    let config = dialect_config(
        &words(&format!("{two} -tournament gauntlet -seeds 2")),
        &dir,
    );
    assert_eq!(config.seeds.count, 2);
    let out = run_program(
        Path::new(SPARRING),
        &words(&format!(
            "match {two} -seeds 3 --dump-config {}",
            dir.join("rr.toml").display()
        )),
        &dir,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("note: -seeds 3: a round robin"),
        "{}",
        out.stderr
    );
}

/// cutechess-cli's `-tournament gauntlet -seeds 2`: two versions of an engine each play a panel
/// (never each other), colour-reversed pairs, each pairing's results in the output, the seeds
/// fingerprinted for --resume; `-epdout F` writes each game's final position as a FEN.
#[test]
fn multi_seed_gauntlet_plays_each_seed_against_the_panel() {
    let dir = scratch("seeds-gauntlet");
    let cutechess = runner(&dir, "cutechess-cli");
    let args = words(&format!(
        "-engine builtin name=dev -engine builtin name=base -engine builtin name=p1 \
         -engine builtin name=p2 -each tc=inf nodes=300 -tournament gauntlet -seeds 2 \
         -games 2 -repeat -concurrency 1 -openings file={FIXTURES}/suite.epd format=epd \
         -pgnout seeds.pgn -epdout final.fen"
    ));
    let out = run_program(&cutechess, &args, &dir);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let finished =
        Regex::new(r"^Finished game (\d+) \((\S+) vs (\S+)\): (1-0|0-1|1/2-1/2) \{").unwrap();
    let games: Vec<(String, String)> = out
        .stdout
        .lines()
        .filter_map(|l| {
            finished
                .captures(l)
                .map(|c| (c[2].to_string(), c[3].to_string()))
        })
        .collect();
    let mut sorted = games.clone();
    sorted.sort();
    let mut expected: Vec<(String, String)> = Vec::new();
    for seed in ["dev", "base"] {
        for panel in ["p1", "p2"] {
            expected.push((seed.to_string(), panel.to_string()));
            expected.push((panel.to_string(), seed.to_string()));
        }
    }
    expected.sort();
    assert_eq!(sorted, expected, "{}", out.stdout);
    let seeds = ["dev", "base"];
    assert!(
        !games
            .iter()
            .any(|(w, b)| seeds.contains(&w.as_str()) && seeds.contains(&b.as_str())),
        "the seeds never meet"
    );
    // Each pairing's results in summary.csv, seed first; every engine in the ranking.
    let records = dir.join("seeds.pgn.sparring");
    let summary = std::fs::read_to_string(records.join("summary.csv")).unwrap();
    let pairings: Vec<String> = summary
        .lines()
        .skip(1)
        .map(|l| l.split(',').take(3).collect::<Vec<_>>().join(","))
        .collect();
    assert_eq!(
        pairings,
        ["dev,p1,2", "dev,p2,2", "base,p1,2", "base,p2,2"],
        "{summary}"
    );
    let ranked = Regex::new(r"^\s+\d+ (dev|base|p1|p2)\s+-?\d+\s+\d+\s+4\s").unwrap();
    assert_eq!(
        out.stdout.lines().filter(|l| ranked.is_match(l)).count(),
        4,
        "{}",
        out.stdout
    );
    let pgn = std::fs::read_to_string(dir.join("seeds.pgn")).unwrap();
    assert_eq!(pgn.matches("[Event ").count(), 8);
    let manifest = std::fs::read_to_string(records.join("run.toml")).unwrap();
    assert!(manifest.contains("tournament.seeds"), "{manifest}");
    // One whole FEN per game, each a legal position.
    let fens = std::fs::read_to_string(dir.join("final.fen")).unwrap();
    assert_eq!(fens.lines().count(), 8, "{fens}");
    for fen in fens.lines() {
        assert_eq!(fen.split_whitespace().count(), 6, "{fen}");
        sparring::board::Position::from_fen(fen).unwrap();
    }
}

/// fastchess's `-noswap` plays both games of a pair with the first engine White, `-reverse`
/// swaps every game's sides; `-epdout file=F` writes the four EPD fields, appended by a rerun
/// (append=false empties the file first); `-wait` only spaces the games.
#[test]
fn noswap_reverse_and_epdout_follow_fastchess() {
    let dir = scratch("noswap-reverse");
    let fastchess = runner(&dir, "fastchess");
    let two = "-engine builtin name=a -engine builtin name=b -each tc=inf nodes=300 \
               -rounds 2 -concurrency 1 -wait 5";
    let whites = |stdout: &str| -> Vec<String> {
        let finished = Regex::new(r"^Finished game \d+ \((\S+) vs").unwrap();
        stdout
            .lines()
            .filter_map(|l| finished.captures(l).map(|c| c[1].to_string()))
            .collect()
    };
    let out = run_program(
        &fastchess,
        &words(&format!(
            "{two} -noswap -pgnout file=noswap.pgn -epdout file=final.epd"
        )),
        &dir,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(whites(&out.stdout), ["a"; 4], "{}", out.stdout);
    let epd = std::fs::read_to_string(dir.join("final.epd")).unwrap();
    assert_eq!(epd.lines().count(), 4, "{epd}");
    assert!(
        epd.lines().all(|l| l.split_whitespace().count() == 4),
        "{epd}"
    );
    let out = run_program(
        &fastchess,
        &words(&format!(
            "{two} -reverse -pgnout file=reverse.pgn -epdout file=final.epd"
        )),
        &dir,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let mut sides = whites(&out.stdout);
    sides.sort();
    assert_eq!(sides, ["a", "a", "b", "b"]);
    let first = Regex::new(r"Finished game 1 \((\S+) vs").unwrap();
    assert_eq!(
        &first.captures(&out.stdout).unwrap()[1],
        "b",
        "{}",
        out.stdout
    );
    let epd = std::fs::read_to_string(dir.join("final.epd")).unwrap();
    assert_eq!(epd.lines().count(), 8, "appended: {epd}");
    let out = run_program(
        &fastchess,
        &words(&format!(
            "{two} -pgnout file=third.pgn -epdout file=final.epd append=false"
        )),
        &dir,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let epd = std::fs::read_to_string(dir.join("final.epd")).unwrap();
    assert_eq!(epd.lines().count(), 4, "replaced: {epd}");
}

// ---------------------------------------------------------------------------------------------
// What the command line refuses (from tests/it/reliability.rs, tests/it/robustness.rs and
// tests/it/defects.rs before the tests were grouped by subject).

// ---------------------------------------------------------------------------------------------
// Option by option

/// Two built-in engines: the part of every swept line that is not under test.
const ENGINES: &[&str] = &[
    "-engine",
    "builtin",
    "name=a",
    "tc=inf",
    "nodes=100",
    "-engine",
    "builtin",
    "name=b",
    "tc=inf",
    "nodes=100",
];

/// An option, the values of a valid use, and the word a refusal must name (the option, or for
/// an engine key the key).
struct Swept {
    option: &'static str,
    valid: &'static [&'static str],
}

/// Every option the dialect reads with a value (the flags are swept in
/// `dialect_flags_refuse_a_value_and_may_repeat`), with a valid use.
const SWEPT: &[Swept] = &[
    Swept {
        option: "-rounds",
        valid: &["2"],
    },
    Swept {
        option: "-games",
        valid: &["2"],
    },
    Swept {
        option: "-repeat",
        valid: &["2"],
    },
    Swept {
        option: "-concurrency",
        valid: &["1"],
    },
    Swept {
        option: "-srand",
        valid: &["7"],
    },
    Swept {
        option: "-maxmoves",
        valid: &["150"],
    },
    Swept {
        option: "-ratinginterval",
        valid: &["3"],
    },
    Swept {
        option: "-scoreinterval",
        valid: &["3"],
    },
    Swept {
        option: "-autosaveinterval",
        valid: &["3"],
    },
    Swept {
        option: "-variant",
        valid: &["standard"],
    },
    Swept {
        option: "-tournament",
        valid: &["gauntlet"],
    },
    Swept {
        option: "-event",
        valid: &["Batch 1"],
    },
    Swept {
        option: "-site",
        valid: &["lab"],
    },
    Swept {
        option: "--progress",
        valid: &["lines"],
    },
    Swept {
        option: "-draw",
        valid: &["movenumber=34", "movecount=8", "score=20"],
    },
    Swept {
        option: "-resign",
        valid: &["movecount=3", "score=600", "twosided=true"],
    },
    Swept {
        option: "-sprt",
        valid: &[
            "elo0=0",
            "elo1=5",
            "alpha=0.05",
            "beta=0.05",
            "model=normalized",
        ],
    },
    Swept {
        option: "-openings",
        valid: &[
            "file=book.epd",
            "format=epd",
            "order=random",
            "plies=8",
            "start=2",
            "policy=round",
        ],
    },
    Swept {
        option: "-pgnout",
        valid: &[
            "file=games.pgn",
            "append=false",
            "notation=san",
            "nodes=true",
        ],
    },
    Swept {
        option: "-report",
        valid: &["penta=true"],
    },
    Swept {
        option: "-output",
        valid: &["format=cutechess"],
    },
    Swept {
        option: "-log",
        valid: &["file=engines.log", "level=info", "engine=true"],
    },
    Swept {
        option: "-crc32",
        valid: &["pgn=true"],
    },
    Swept {
        option: "-each",
        valid: &[
            "nodes=200",
            "timemargin=250",
            "option.Hash=8",
            "proto=uci",
            "restart=off",
        ],
    },
    Swept {
        option: "-engine",
        valid: &[
            "cmd=./engine",
            "dir=engines",
            "name=c",
            "args=uci",
            "st=0.5",
            "option.Threads=1",
        ],
    },
    Swept {
        option: "-engine",
        valid: &["builtin", "name=d", "depth=5", "hash=8", "weights=w.toml"],
    },
    Swept {
        option: "-engine",
        valid: &["builtin", "name=e", "tc=inf", "plies=5"],
    },
];

/// The values every one swept in: negative, zero, huge, malformed, empty, odd text.
const BAD_VALUES: &[&str] = &[
    "-1",
    "0",
    "-0",
    "99999999999999999999",
    "18446744073709551616",
    "1e400",
    "nan",
    "abc",
    "",
    " ",
    "\t",
    "a\nb",
    "=",
    "é",
];

/// The line: the two engines (not for `-engine`, which adds a third), the swept tokens, and
/// `--dump-config`, so an accepted line writes its TOML form and plays nothing.
fn swept_line(option: &str, tokens: &[String]) -> Vec<String> {
    let mut line: Vec<String> = vec!["match".into()];
    line.extend(ENGINES.iter().map(|t| t.to_string()));
    line.push(option.to_string());
    line.extend(tokens.iter().cloned());
    line.extend(["--dump-config".to_string(), "dump.toml".to_string()]);
    line
}

/// Checks one swept case: 0 (with a dump) or 2 (naming the option or the key); prints the row.
fn check_swept(
    dir: &Path,
    option: &str,
    tokens: &[String],
    key: Option<&str>,
    rows: &mut Vec<String>,
) {
    let dump = dir.join("dump.toml");
    let _ = std::fs::remove_file(&dump);
    let line = swept_line(option, tokens);
    let args: Vec<&str> = line.iter().map(String::as_str).collect();
    let what = format!("{option} {tokens:?}");
    let out = run(dir, &args);
    assert!(!out.stderr.contains("panicked"), "{what}: {}", out.stderr);
    match out.code {
        Some(0) => {
            assert!(
                dump.exists(),
                "{what}: status 0 but no dump: {}",
                out.stderr
            );
            rows.push(format!("{what} -> 0"));
        }
        Some(2) => {
            let named = key.map_or(option, |k| k);
            let lines: Vec<&str> = out.stderr.lines().collect();
            assert!(
                lines.len() == 1
                    && lines[0].starts_with("error: ")
                    && (lines[0].contains(named) || lines[0].contains(option)),
                "{what}: expected one `error:` line naming {named}: {:?}",
                out.stderr
            );
            assert!(!dump.exists(), "{what}: refused but dumped");
            rows.push(format!("{what} -> 2: {}", lines[0]));
        }
        other => panic!("{what}: exit status {other:?}: {}", out.stderr),
    }
}

/// Every option of the dialect with its value (or each of its keys' values) missing, repeated,
/// negative, huge, malformed and empty; and the option alone at the end of the line.
#[test]
fn dialect_every_option_with_missing_repeated_negative_huge_and_malformed_values() {
    let dir = scratch("dialect-options");
    let fastchess = dir.join("fastchess");
    std::os::unix::fs::symlink(SPARRING, &fastchess).unwrap();
    let mut rows = Vec::new();
    let owned = |v: &[&str]| -> Vec<String> { v.iter().map(|s| s.to_string()).collect() };
    for swept in SWEPT {
        let option = swept.option;
        // The valid use is accepted.
        check_swept(&dir, option, &owned(swept.valid), None, &mut rows);
        assert!(
            rows.last().unwrap().ends_with("-> 0"),
            "{}",
            rows.last().unwrap()
        );
        // Missing: nothing after it, at the end of the line and before another option.
        check_swept(&dir, option, &[], None, &mut rows);
        // Through a `fastchess` link the dump goes first, so the option is the line's last.
        let dump = dir.join("dump.toml");
        let _ = std::fs::remove_file(&dump);
        let mut args: Vec<&OsStr> = vec![OsStr::new("--dump-config"), OsStr::new("dump.toml")];
        args.extend(ENGINES.iter().map(OsStr::new));
        args.push(OsStr::new(option));
        let out = run_env(&fastchess, &dir, &args, &[]);
        if option == "-repeat" {
            // `-repeat` alone is cutechess-cli's flag.
            assert_eq!(out.code, Some(0), "-repeat last: {}", out.stderr);
            rows.push(format!("{option} last on the line -> 0"));
        } else {
            out.assert_bad_input(option, &format!("{option} last on the line"));
            assert_eq!(out.stderr.lines().count(), 1, "{option}: {}", out.stderr);
            rows.push(format!(
                "{option} last on the line -> 2: {}",
                out.stderr.trim()
            ));
        }
        // Repeated: the whole group twice (the later wins or it is refused, never a crash).
        let mut twice = owned(swept.valid);
        twice.push(option.to_string());
        twice.extend(owned(swept.valid));
        check_swept(&dir, option, &twice, None, &mut rows);
        // Each value (or each key's value) replaced by a bad one; each key dropped and repeated.
        for (i, valid) in swept.valid.iter().enumerate() {
            let key = valid.split_once('=').map(|(k, _)| k);
            for bad in BAD_VALUES {
                let mut tokens = owned(swept.valid);
                tokens[i] = match key {
                    Some(k) => format!("{k}={bad}"),
                    None => bad.to_string(),
                };
                check_swept(&dir, option, &tokens, key, &mut rows);
            }
            let mut dropped = owned(swept.valid);
            dropped.remove(i);
            check_swept(&dir, option, &dropped, key, &mut rows);
            let mut repeated = owned(swept.valid);
            repeated.insert(i, valid.to_string());
            check_swept(&dir, option, &repeated, key, &mut rows);
            if let Some(k) = key {
                let mut bare = owned(swept.valid);
                bare[i] = format!("{k}=");
                check_swept(&dir, option, &bare, key, &mut rows);
                let mut no_key = owned(swept.valid);
                no_key[i] = valid[k.len()..].to_string();
                check_swept(&dir, option, &no_key, key, &mut rows);
            }
        }
    }
    for row in &rows {
        println!("{row}");
    }
    println!("{} dialect cases", rows.len());
}

// Regression test of review defect 3 (the fastchess dialect).
#[test]
fn dialect_options_without_values_exit_2_naming_the_option() {
    let dir = scratch("dialect_empty_options");
    let dump = dir.join("dump.toml");
    let two = [
        "match", "-engine", "builtin", "nodes=10", "-engine", "builtin", "nodes=10",
    ];
    for option in [
        "-pgnout",
        "-each",
        "-openings",
        "-rounds",
        "-engine",
        "-draw",
    ] {
        let mut args = two.to_vec();
        args.extend(["--dump-config", text(&dump), option]);
        let run = sparring(&args);
        assert_bad_input(&run, &[option]);
        assert!(!dump.exists(), "{option}: the configuration was written");
    }
}

/// The flags take no value: one is refused naming the flag; a flag given twice is accepted.
#[test]
fn dialect_flags_refuse_a_value_and_may_repeat() {
    let dir = scratch("dialect-flags");
    let mut rows = Vec::new();
    for flag in [
        "-recover",
        "-strict",
        "-testEnv",
        "-check-mate-pvs",
        "-show-latency",
        "--resume",
    ] {
        check_swept(&dir, flag, &[], None, &mut rows);
        check_swept(&dir, flag, &[flag.to_string()], None, &mut rows);
        for value in ["x", "-1", "true", ""] {
            check_swept(&dir, flag, &[value.to_string()], None, &mut rows);
            assert!(
                rows.last().unwrap().contains("-> 2: "),
                "{flag} {value:?}: {}",
                rows.last().unwrap()
            );
        }
    }
    for row in &rows {
        println!("{row}");
    }
}

/// A command-line argument that is not UTF-8 is refused naming the argument, not a panic.
#[test]
fn dialect_argument_that_is_not_utf8_is_refused() {
    use std::os::unix::ffi::OsStrExt;
    let dir = scratch("dialect-utf8");
    let bad = OsStr::from_bytes(b"name=\xff\xfe");
    let mut args: Vec<&OsStr> = vec![OsStr::new("match")];
    args.extend(ENGINES.iter().map(OsStr::new));
    args.extend([OsStr::new("-engine"), OsStr::new("builtin"), bad]);
    let out = run_env(Path::new(SPARRING), &dir, &args, &[]);
    out.assert_bad_input("not valid UTF-8", "a non-UTF-8 argument");
}

// ---------------------------------------------------------------------------------------------
// Whole command lines

#[test]
fn dialect_refuses_hostile_command_lines_with_status_2_and_starts_no_engine() {
    let dir = scratch("dialect");
    let marker = format!("robustness-dialect-{}", std::process::id());
    let mock = mock_engine();
    let engine = format!("cmd={mock}");
    let args = format!("args=--name {marker}");
    let base = [
        "match", "-engine", &engine, &args, "name=a", "-engine", &engine, &args, "name=b",
    ];
    let bad: &[&[&str]] = &[
        &["-each", "tc=1/0+0"],
        &["-each", "tc=40/abc"],
        &["-each", "tc=-1+0"],
        &["-each", "tc=99999999999999999999+0"],
        &["-each", "st=nan"],
        &["-each", "nodes=-5"],
        &["-each", "depth=99999999999999999999"],
        &["-each", "nodes=10", "-rounds", "99999999999999999999"],
        &["-each", "nodes=10", "-rounds", "0"],
        &[
            "-each",
            "nodes=10",
            "-openings",
            "file=/no/such/file.epd",
            "format=epd",
        ],
        &["-each", "nodes=10", "-openings", "file=", "format=epd"],
        &[
            "-each", "nodes=10", "-sprt", "elo0=5", "elo1=0", "alpha=2", "beta=-1",
        ],
        &["-each", "nodes=10", "-draw", "movenumber=-1"],
        &[
            "-each",
            "nodes=10",
            "-resign",
            "movecount=99999999999999999999",
        ],
        &["-each", "nodes=10", "-variant", "xyz"],
        &["-each", "nodes=10", "-srand"],
        &["-each", "nodes=10", "-no-such-flag"],
        &["-each", "nodes=10", "=", "=="],
        &["-each", "nodes=10", "-engine"],
        &["-each", "nodes=10", "-ratinginterval", "x"],
    ];
    for extra in bad {
        let mut all: Vec<&str> = base.to_vec();
        all.extend_from_slice(extra);
        all.extend_from_slice(&["-pgnout", "file=games.pgn"]);
        let out = run(&dir, &all);
        out.assert_status(2, &format!("{extra:?}"));
        assert!(!dir.join("games.pgn").exists(), "{extra:?}: games written");
        assert!(
            !dir.join("games.pgn.sparring").exists(),
            "{extra:?}: a run directory made"
        );
    }
    let no_engine: &[&[&str]] = &[
        &["match", "-engine", "-engine"],
        &["match", "-engine", "cmd=", "name=", "-engine"],
        &["match", "-engine", "cmd=x", "-each", "nodes=1"],
        &[
            "match", "-engine", "name=a", "-engine", "name=b", "-each", "nodes=1",
        ],
        &[
            "match",
            "-engine",
            "cmd=x",
            "args=\"unterminated",
            "-engine",
            "cmd=y",
        ],
    ];
    for args in no_engine {
        run(&dir, args).assert_status(2, &format!("{args:?}"));
    }
    assert_no_leftover(&marker);
}

/// `--dump-config` writes TOML that reads back: dumping the dump gives the same text.
#[test]
fn dialect_dump_config_reads_back_to_itself() {
    let dir = scratch("dump-config");
    let mock = mock_engine();
    let engine = format!("cmd={mock}");
    let lines: &[&[&str]] = &[
        &[
            "-each",
            "tc=40/12.5+0.125",
            "option.Hash=8",
            "-rounds",
            "3",
            "-repeat",
        ],
        &[
            "-each",
            "tc=inf",
            "nodes=100",
            "-openings",
            "file=openings.epd",
            "format=epd",
            "order=random",
        ],
        &[
            "-each",
            "st=0.5",
            "-sprt",
            "elo0=0",
            "elo1=5",
            "alpha=0.05",
            "beta=0.05",
        ],
        &[
            "-each",
            "tc=inf",
            "depth=3",
            "-draw",
            "movenumber=30",
            "movecount=8",
            "score=10",
        ],
        &[
            "-each",
            "tc=inf",
            "nodes=500",
            "-concurrency",
            "1",
            "-srand",
            "18446744073709551615",
        ],
    ];
    std::fs::write(
        dir.join("openings.epd"),
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -\n",
    )
    .unwrap();
    for extra in lines {
        let mut args = vec![
            "match", "-engine", &engine, "name=a", "-engine", &engine, "name=b",
        ];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--dump-config", "one.toml"]);
        let first = run(&dir, &args);
        first.assert_status(0, &format!("{extra:?}"));
        let again = run(&dir, &["match", "one.toml", "--dump-config", "two.toml"]);
        again.assert_status(0, &format!("{extra:?}: the dump does not read back"));
        assert_eq!(
            std::fs::read_to_string(dir.join("one.toml")).unwrap(),
            std::fs::read_to_string(dir.join("two.toml")).unwrap(),
            "{extra:?}: the dump changes when read back and dumped"
        );
    }
}

/// The end of both engine-key lines: no clock, 10 nodes a move, one round of two games cut at
/// `max_moves`, written to games.pgn.
fn two_short_games(max_moves: &str) -> [&str; 11] {
    [
        "-each",
        "tc=inf",
        "nodes=10",
        "-rounds",
        "1",
        "-games",
        "2",
        "-maxmoves",
        max_moves,
        "-pgnout",
        "file=games.pgn",
    ]
}

/// The PGN games of `pgn` (each from its `[Event` tag).
fn pgn_games(pgn: &str) -> Vec<&str> {
    pgn.split("[Event ").skip(1).collect()
}

/// cutechess's engine keys reach the engine: `arg`s in its argv (the mock's `--log FILE` and
/// `--stderr TEXT` come from them), `initstr` lines before `uci`, `debug on` before every
/// `ucinewgame`, its standard error appended to the `stderr` file by every process (`restart=on`
/// makes one per game), and `whitepov` scores negated when that engine plays Black.
#[test]
fn cutechess_engine_keys_reach_the_engine_and_the_pgn() {
    let dir = scratch("engine-keys");
    let mock = mock_engine();
    std::fs::write(dir.join("a.err"), "earlier\n").unwrap();
    let (a, b) = (format!("cmd={mock}"), format!("cmd={mock}"));
    let head = [
        "match",
        "-engine",
        &a,
        "name=a",
        "arg=--log",
        "arg=a.log",
        "arg=--stderr",
        "arg=oops",
        "initstr=hello\\nworld",
        "debug",
        "stderr=a.err",
        "restart=on",
        "tscale=2",
        "-engine",
        &b,
        "name=b",
        "whitepov",
        "arg=--info",
        "arg=score cp 77",
    ];
    let out = run(&dir, &[&head[..], &two_short_games("6")].concat());
    out.assert_status(0, "the engine keys");
    let log = std::fs::read_to_string(dir.join("a.log")).unwrap();
    let lines: Vec<&str> = log.lines().map(str::trim).collect();
    let starts: Vec<usize> = (0..lines.len()).filter(|&i| lines[i] == "uci").collect();
    assert!(starts.len() >= 2, "a fresh engine each game: {log}");
    for i in starts {
        assert_eq!(lines[i.saturating_sub(2)..i], ["hello", "world"], "{log}");
    }
    let new_games: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i] == "ucinewgame")
        .collect();
    assert_eq!(new_games.len(), 2, "{log}");
    for i in new_games {
        assert_eq!(lines[i - 1], "debug on", "{log}");
    }
    let err = std::fs::read_to_string(dir.join("a.err")).unwrap();
    assert!(
        err.starts_with("earlier\n"),
        "appended, not truncated: {err}"
    );
    let gos = lines.iter().filter(|l| l.starts_with("go")).count();
    assert_eq!(err.lines().filter(|l| *l == "oops").count(), gos, "{err}");
    let pgn = std::fs::read_to_string(dir.join("games.pgn")).unwrap();
    let games = pgn_games(&pgn);
    assert_eq!(games.len(), 2, "{pgn}");
    for game in games {
        // b reports +0.77 whatever its colour; as Black that is White's view, so -0.77.
        let (mine, not_mine) = if game.contains("[Black \"b\"]") {
            ("-0.77/", "+0.77/")
        } else {
            ("+0.77/", "-0.77/")
        };
        assert!(game.contains(mine) && !game.contains(not_mine), "{game}");
    }
}

/// cutechess's `book=` and `bookdepth=`: the engine's own Polyglot book plays its moves (PGN
/// comment `book`) within the depth, for either colour; past the depth the engine moves. A
/// book that cannot be read is exit 2 naming it.
#[test]
fn an_engines_own_book_plays_its_moves_within_its_depth() {
    use sparring::board::Position;
    use sparring::openings::{encode_move, polyglot_key, PolyglotBook, PolyglotEntry};
    let dir = scratch("engine-book");
    let mock = mock_engine();
    // What the mock plays: the first legal move.
    let first = |pos: &Position| *pos.legal_moves().iter().next().unwrap();
    let mut pos = Position::startpos();
    let mut entries = Vec::new();
    let mut add = |pos: &Position, mv: &str| {
        let mv = pos.parse_uci_move(mv).unwrap();
        entries.push(PolyglotEntry {
            key: polyglot_key(pos, None),
            raw_move: encode_move(mv),
            weight: 1,
            learn: 0,
        });
        mv
    };
    // As White: 1. e4 and 2. Nf3 from the book, and a third move the depth (2) keeps out.
    let start = pos.clone();
    pos.make_move(add(&pos, "e2e4"));
    pos.make_move(first(&pos));
    pos.make_move(add(&pos, "g1f3"));
    pos.make_move(first(&pos));
    add(&pos, "d2d4");
    // As Black, after the mock's first move.
    let mut black = start.clone();
    black.make_move(first(&start));
    let reply = black.legal_moves().iter().last().unwrap().to_string();
    add(&black, &reply);
    let bytes = PolyglotBook::from_entries(entries).to_bytes();
    std::fs::write(dir.join("own.bin"), bytes).unwrap();
    let engine = format!("cmd={mock}");
    let line = |book: &str| -> Vec<String> {
        [
            "match",
            "-engine",
            engine.as_str(),
            "name=a",
            book,
            "bookdepth=2",
            "-engine",
            engine.as_str(),
            "name=b",
        ]
        .into_iter()
        .chain(two_short_games("8"))
        .map(str::to_string)
        .collect()
    };
    let args = line("book=own.bin");
    let out = run(&dir, &args.iter().map(String::as_str).collect::<Vec<_>>());
    out.assert_status(0, "the book");
    let pgn = std::fs::read_to_string(dir.join("games.pgn")).unwrap();
    assert!(pgn.contains("1. e4 {book}"), "{pgn}");
    assert!(pgn.contains("2. Nf3 {book}"), "{pgn}");
    // e4, Nf3 and the reply as Black; nothing past the depth, nothing for b.
    assert_eq!(pgn.matches("{book}").count(), 3, "{pgn}");
    let args = line("book=missing.bin");
    let out = run(&dir, &args.iter().map(String::as_str).collect::<Vec<_>>());
    out.assert_status(2, "a missing book");
    assert!(out.stderr.contains("book=missing.bin"), "{}", out.stderr);
}
