//! `sparring datagen` and `genfens`: a tiny self-play run, the same bytes at any concurrency,
//! shards that concatenate to the single run, an interrupted run resumed to the same bytes, bad
//! input named before any game, an external engine, and OpenBench's genfens.

use crate::common::binary::{assert_bad_input, scratch_in, sparring, text, Run};
use crate::common::mock::mock_engine;
use sparring::board::Position;
use std::path::Path;

/// A tiny run: `games` games of the built-in engine at 500 nodes into `dir`, plus `extra`.
fn datagen(dir: &Path, games: u32, extra: &[&str]) -> Run {
    let games = games.to_string();
    let mut args = vec![
        "datagen",
        "--games",
        &games,
        "--nodes",
        "500",
        "--format",
        "text",
        "--seed",
        "7",
        "--out",
        text(dir),
    ];
    args.extend_from_slice(extra);
    sparring(&args)
}

fn data(dir: &Path) -> Vec<u8> {
    std::fs::read(dir.join("data.txt")).unwrap()
}

/// Every line is `FEN | score | result` with a legal FEN and a result of White's.
fn check_lines(bytes: &[u8]) -> usize {
    let text = std::str::from_utf8(bytes).unwrap();
    for line in text.lines() {
        let fields: Vec<&str> = line.split(" | ").collect();
        assert_eq!(fields.len(), 3, "{line}");
        Position::from_fen(fields[0]).unwrap_or_else(|e| panic!("{line}: {e}"));
        fields[1].parse::<i32>().unwrap();
        assert!(["1.0", "0.5", "0.0"].contains(&fields[2]), "{line}");
    }
    text.lines().count()
}

#[test]
fn datagen_tiny_run_writes_whole_games_and_its_state() {
    let dir = scratch_in("datagen", "tiny");
    let run = datagen(&dir, 3, &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("3 games written, 0 dropped"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("worker time in the engine's searches"),
        "{}",
        run.stdout
    );
    let bytes = data(&dir);
    assert!(check_lines(&bytes) > 3);
    let state = std::fs::read_to_string(dir.join("state.toml")).unwrap();
    assert!(state.contains("done = 3"), "{state}");
    assert!(
        state.contains(&format!("bytes = {}", bytes.len())),
        "{state}"
    );
    assert!(std::fs::read_to_string(dir.join("run.toml"))
        .unwrap()
        .contains("\"nodes\" = \"500\""));
}

#[test]
fn datagen_same_bytes_at_concurrency_1_and_2() {
    let one = scratch_in("datagen", "conc1");
    let two = scratch_in("datagen", "conc2");
    assert_eq!(datagen(&one, 4, &["--concurrency", "1"]).code, 0);
    assert_eq!(datagen(&two, 4, &["--concurrency", "2"]).code, 0);
    assert!(!data(&one).is_empty());
    assert_eq!(data(&one), data(&two));
}

#[test]
fn datagen_shards_concatenate_to_the_single_run() {
    let whole = scratch_in("datagen", "whole");
    assert_eq!(datagen(&whole, 5, &[]).code, 0);
    let mut joined = Vec::new();
    for i in 0..3 {
        let dir = scratch_in("datagen", &format!("shard{i}"));
        let shard = format!("{i}/3");
        let run = datagen(&dir, 5, &["--shard", &shard]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        joined.extend(data(&dir));
    }
    assert_eq!(joined, data(&whole));
}

#[test]
fn datagen_resume_after_a_stop_and_a_torn_tail_gives_the_same_bytes() {
    let whole = scratch_in("datagen", "uninterrupted");
    assert_eq!(datagen(&whole, 4, &["--concurrency", "2"]).code, 0);
    let dir = scratch_in("datagen", "interrupted");
    let run = datagen(&dir, 4, &["--concurrency", "2", "--stop-after", "2"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("datagen stopped: 2 games written"),
        "{}",
        run.stdout
    );
    // A kill inside a game's write leaves part of a line behind.
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.join("data.txt"))
        .unwrap();
    std::io::Write::write_all(&mut file, b"rnbqkbnr/pppp").unwrap();
    drop(file);
    // Without --resume the directory is refused; with a changed setting the resume is.
    assert_bad_input(&datagen(&dir, 4, &[]), &["--resume"]);
    assert_bad_input(
        &datagen(&dir, 4, &["--resume", "--random-plies", "6"]),
        &["random_plies"],
    );
    let run = datagen(&dir, 4, &["--resume", "--concurrency", "1"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("(2 complete)"), "{}", run.stdout);
    assert_eq!(data(&dir), data(&whole));
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// The games `state.toml` in `dir` records as complete (0 before it exists).
fn games_done(dir: &Path) -> u64 {
    let state = std::fs::read_to_string(dir.join("state.toml")).unwrap_or_default();
    state
        .lines()
        .find_map(|line| line.strip_prefix("done = "))
        .map_or(0, |n| n.trim().parse().unwrap())
}

/// A real SIGKILL (not `--stop-after`): the process dies wherever it is, mid-game or mid-write;
/// `--resume` gives the uninterrupted run's bytes. Killed twice: once early, once later.
#[test]
fn datagen_resume_after_sigkill_gives_the_uninterrupted_runs_bytes() {
    let args = |dir: &Path| {
        vec![
            "datagen".to_string(),
            "--games".into(),
            "40".into(),
            "--nodes".into(),
            "500".into(),
            "--format".into(),
            "viriformat".into(),
            "--seed".into(),
            "11".into(),
            "--concurrency".into(),
            "2".into(),
            "--out".into(),
            text(dir).to_string(),
        ]
    };
    let whole = scratch_in("datagen", "sigkill-uninterrupted");
    assert_eq!(sparring(&strs(&args(&whole))).code, 0);
    let dir = scratch_in("datagen", "sigkill");
    for (round, kill_after) in [2u64, 12].into_iter().enumerate() {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_sparring"));
        cmd.args(args(&dir)).stdout(std::process::Stdio::null());
        if round > 0 {
            cmd.arg("--resume");
        }
        let mut child = cmd.spawn().unwrap();
        while games_done(&dir) < kill_after {
            assert!(
                child.try_wait().unwrap().is_none(),
                "the run ended before the kill"
            );
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        child.kill().unwrap(); // SIGKILL on Unix
        child.wait().unwrap();
    }
    let mut resume = args(&dir);
    resume.push("--resume".into());
    let run = sparring(&strs(&resume));
    assert_eq!(run.code, 0, "{}", run.stderr);
    let read = |d: &Path| std::fs::read(d.join("data.viriformat")).unwrap();
    assert_eq!(read(&dir), read(&whole));
}

#[test]
fn datagen_bad_config_key_is_bad_input_naming_line_and_key() {
    let dir = scratch_in("datagen", "badkey");
    let config = dir.join("datagen.toml");
    std::fs::write(&config, "[datagen]\ngames = 2\nnodez = 500\n").unwrap();
    let out = dir.join("out");
    let run = sparring(&["datagen", text(&config), "--out", text(&out)]);
    assert_bad_input(&run, &["datagen.toml:3", "datagen.nodez"]);
    assert!(!out.join("data.txt").exists());
    // A bad value of a known key, and a bad flag.
    std::fs::write(&config, "[datagen]\ngames = 2\nvariant = \"crazyhouse\"\n").unwrap();
    let run = sparring(&["datagen", text(&config), "--out", text(&out)]);
    assert_bad_input(&run, &["datagen.toml:3", "datagen.variant"]);
    let run = sparring(&[
        "datagen",
        text(&config),
        "--out",
        text(&out),
        "--format",
        "csv",
    ]);
    assert_bad_input(&run, &["--format csv"]);
    // A directory that is a file.
    let run = datagen(&config, 2, &[]);
    assert_bad_input(&run, &["not a directory"]);
}

#[test]
fn datagen_engine_that_cannot_start_fails_before_any_game() {
    let dir = scratch_in("datagen", "nostart");
    let run = datagen(&dir, 2, &["--engine", "/nonexistent/engine"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("/nonexistent/engine"), "{}", run.stderr);
    assert!(!run.stdout.contains("game 1"), "{}", run.stdout);
}

#[test]
fn datagen_external_uci_engine_sparring_uci() {
    let dir = scratch_in("datagen", "external");
    let engine = format!("{} uci", env!("CARGO_BIN_EXE_sparring"));
    let run = datagen(&dir, 2, &["--engine", &engine, "--concurrency", "2"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("2 games written, 0 dropped"),
        "{}",
        run.stdout
    );
    assert!(check_lines(&data(&dir)) > 2);
}

#[test]
fn datagen_crashing_engine_drops_games_and_writes_nothing_half() {
    let dir = scratch_in("datagen", "crash");
    let engine = format!("{} --crash-after 4", mock_engine());
    let run = datagen(&dir, 2, &["--engine", &engine]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("game 1 dropped"), "{}", run.stdout);
    assert!(
        run.stdout.contains("0 games written, 2 dropped"),
        "{}",
        run.stdout
    );
    assert!(data(&dir).is_empty());
}

#[test]
fn datagen_genfens_prints_distinct_legal_fens_by_seed() {
    let ask = |seed: &str| {
        let command = format!("genfens 6 seed {seed} book None ");
        let run = sparring(&["uci", &command, "quit"]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let fens: Vec<String> = run
            .stdout
            .lines()
            .filter_map(|l| l.strip_prefix("info string genfens "))
            .map(|f| f.trim_end().to_string())
            .collect();
        fens
    };
    let fens = ask("12345");
    assert_eq!(fens.len(), 6);
    for fen in &fens {
        assert_eq!(fen.split_whitespace().count(), 6, "{fen}");
        let pos = Position::from_fen(fen).unwrap();
        assert!(pos.has_legal_moves(), "{fen}");
    }
    let distinct: std::collections::BTreeSet<_> = fens.iter().collect();
    assert_eq!(distinct.len(), 6);
    assert_eq!(ask("12345"), fens);
    assert_ne!(ask("54321"), fens);
}

#[test]
fn datagen_score_adjudication_ends_games_sooner() {
    let plain = scratch_in("datagen", "unadjudicated");
    assert_eq!(datagen(&plain, 3, &[]).code, 0);
    let dir = scratch_in("datagen", "adjudicated");
    let config = dir.join("adj.toml");
    std::fs::write(
        &config,
        "[adjudication]\nwin_score_cp = 150\nwin_moves = 2\n\
         draw_score_cp = 20\ndraw_moves = 3\ndraw_after_move = 10\n",
    )
    .unwrap();
    let out = dir.join("out");
    let run = datagen(&out, 3, &[text(&config)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let (adjudicated, full) = (check_lines(&data(&out)), check_lines(&data(&plain)));
    assert!(
        adjudicated > 0 && adjudicated < full,
        "{adjudicated} vs {full}"
    );
    assert!(std::fs::read_to_string(out.join("run.toml"))
        .unwrap()
        .contains("\"adjudication.win\" = \"150 cp for 2 moves\""));
}

#[test]
fn datagen_chess960_with_an_external_engine_writes_chess960_positions() {
    let dir = scratch_in("datagen", "chess960");
    let engine = format!("{} uci", env!("CARGO_BIN_EXE_sparring"));
    let run = datagen(&dir, 2, &["--engine", &engine, "--variant", "chess960"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let bytes = data(&dir);
    assert!(check_lines(&bytes) > 2);
    let first = std::str::from_utf8(&bytes).unwrap().lines().next().unwrap();
    assert!(
        !first.starts_with("rnbqkbnr") || !first.contains("RNBQKBNR"),
        "{first}"
    );
}

#[test]
fn datagen_chess960_refuses_an_engine_without_uci_chess960() {
    // A match warns and plays on (as fastchess does); data needs castling read rightly.
    let dir = scratch_in("datagen", "chess960-undeclared");
    let run = datagen(
        &dir,
        2,
        &["--engine", &mock_engine(), "--variant", "chess960"],
    );
    assert_bad_input(&run, &["does not declare the UCI option UCI_Chess960"]);
}

#[test]
fn datagen_writes_viriformat_that_the_data_tools_read_as_the_same_games() {
    let text_dir = scratch_in("datagen", "as_text");
    assert_eq!(datagen(&text_dir, 3, &[]).code, 0);
    let viri_dir = scratch_in("datagen", "as_viriformat");
    let run = sparring(&[
        "datagen",
        "--games",
        "3",
        "--nodes",
        "500",
        "--format",
        "viriformat",
        "--seed",
        "7",
        "--out",
        text(&viri_dir),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let file = viri_dir.join("data.viriformat");
    let info = sparring(&["data", "info", text(&file)]);
    assert_eq!(info.code, 0, "{}", info.stderr);
    assert!(info.stdout.contains("games 3"), "{}", info.stdout);
    // The same seed plays the same games: one text line per position the viriformat file holds.
    let lines = String::from_utf8(data(&text_dir)).unwrap().lines().count();
    assert!(
        info.stdout.contains(&format!("positions {lines}")),
        "{lines} text lines; {}",
        info.stdout
    );
    // And converted back to text, the positions are the text run's lines.
    let converted = viri_dir.join("back.txt");
    let run = sparring(&[
        "data",
        "convert",
        text(&file),
        "--to",
        "text",
        "-o",
        text(&converted),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(std::fs::read(&converted).unwrap(), data(&text_dir));
}

/// "Running: D of T" of a page under way, or None for a final page.
fn running_count(html: &str) -> Option<(u64, u64)> {
    let at = html.find("Running: ")? + "Running: ".len();
    let mut words = html[at..].split(' ');
    let done = words.next()?.parse().ok()?;
    let total = words.nth(1)?.parse().ok()?;
    Some((done, total))
}

#[test]
fn datagen_report_is_rewritten_while_the_run_plays_and_says_where_it_stopped() {
    use sparring::datagen::{run_datagen, DatagenConfig, DatagenEvent, DatagenOptions, Overrides};
    let dir = scratch_in("datagen", "live_report");
    let out = dir.join("run");
    let overrides = Overrides {
        games: Some(6),
        nodes: Some(500),
        format: Some("text".into()),
        seed: Some(7),
        concurrency: Some(1),
        out: Some(out.clone()),
        ..Overrides::default()
    };
    let config = DatagenConfig::load(None, &overrides).unwrap();
    // The page as it stands when each game is reported: written before the event.
    let mut seen = Vec::new();
    run_datagen(&config, &DatagenOptions::default(), &mut |event| {
        if let DatagenEvent::GameWritten { done, .. } = event {
            let html = std::fs::read_to_string(out.join("report.html")).unwrap_or_default();
            seen.push((*done, running_count(&html), html));
        }
    })
    .unwrap();
    // Due after the first game, then four games later; the last game leaves the final page.
    let live: Vec<(u64, Option<(u64, u64)>)> = seen.iter().map(|s| (s.0, s.1)).collect();
    assert_eq!(
        live,
        [
            (1, Some((1, 6))),
            (2, Some((1, 6))),
            (3, Some((1, 6))),
            (4, Some((1, 6))),
            (5, Some((5, 6))),
            (6, Some((5, 6))),
        ]
    );
    let (_, _, fifth) = &seen[4];
    assert!(fifth.contains("http-equiv=\"refresh\"") && fifth.contains("5 games written"));
    assert!(fifth.contains("Positions by number of pieces"), "{fifth}");
    let last = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(last.contains("6 games written") && !last.contains("http-equiv"));
    assert_eq!(running_count(&last), None);

    // A run stopped part-way leaves a page with its partial numbers, saying it stopped.
    let stopped = dir.join("stopped");
    let run = datagen(&stopped, 6, &["--stop-after", "3"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let html = std::fs::read_to_string(stopped.join("report.html")).unwrap();
    assert!(html.contains("Stopped: 3 of 6 games finished"), "{html}");
    assert!(html.contains("3 games written (0 dropped)"), "{html}");
    let positions = check_lines(&data(&stopped));
    assert!(html.contains(&format!("{positions} positions")), "{html}");
}

/// The run's search clock: positive, never more than the workers' time, and for both kinds of
/// engine (the built-in one's own search time, an external one's `go` to `bestmove`).
#[test]
fn datagen_reports_the_engines_search_time_within_the_workers_time() {
    use sparring::datagen::{run_datagen, DatagenConfig, DatagenOptions, Overrides};
    let external = format!("{} uci", env!("CARGO_BIN_EXE_sparring"));
    for (name, engine) in [("builtin", "builtin".to_string()), ("external", external)] {
        let out = scratch_in("datagen", &format!("search_time_{name}")).join("run");
        let overrides = Overrides {
            engine: Some(engine),
            games: Some(3),
            nodes: Some(500),
            format: Some("text".into()),
            seed: Some(7),
            concurrency: Some(2),
            out: Some(out),
            ..Overrides::default()
        };
        let config = DatagenConfig::load(None, &overrides).unwrap();
        let summary = run_datagen(&config, &DatagenOptions::default(), &mut |_| {}).unwrap();
        assert_eq!((summary.games, summary.workers), (3, 2), "{name}");
        let worker_time = summary.session_time * summary.workers as u32;
        assert!(
            !summary.search_time.is_zero() && summary.search_time <= worker_time,
            "{name}: searched {:?} of {:?}",
            summary.search_time,
            worker_time
        );
    }
}

#[test]
fn datagen_refuses_an_option_the_engine_does_not_declare_or_accept() {
    // A match warns and plays on without it (as fastchess does); data from an engine not
    // configured as asked would be silently wrong.
    let mock = mock_engine();
    for (options, needle) in [
        (
            "Known = 3, Mystery = 1",
            "option `Mystery` = `1`: the engine declares no option of that name",
        ),
        (
            "Known = 99",
            "option `Known` = `99`: the engine declares a spin from 0 to 8",
        ),
    ] {
        let dir = scratch_in("datagen", "undeclared-option");
        let config = dir.join("datagen.toml");
        std::fs::write(
            &config,
            format!(
                "[datagen]\ngames = 2\nnodes = 50\nformat = \"text\"\n[engine]\nuci = {{ \
                 command = {mock:?}, args = [\"--declare\", \"Known type spin default 1 min 0 max 8\"], \
                 options = {{ {options} }} }}\n"
            ),
        )
        .unwrap();
        let out = dir.join("out");
        let run = sparring(&["datagen", text(&config), "--out", text(&out)]);
        assert_bad_input(&run, &[needle]);
        assert!(!out.join("data.txt").exists() || data(&out).is_empty());
    }
}
