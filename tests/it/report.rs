//! report.html in a real browser: headless Chromium (Debian's `chromium`) loads the page of
//! each kind of run without console errors and takes a screenshot; the DOM's tables hold exactly
//! the figures of summary.csv and ranking.csv; the page of a running match changes as games
//! finish; `sparring report` rebuilds the page of a finished, a merged, an old and a 100,000-game
//! run. Without Chromium the browser checks skip with a printed reason
//! (`SPARRING_REQUIRE_TOOLS=1` fails them instead).

use crate::common::binary::{scratch_in, sparring, text};
use crate::common::config::{balanced_book, weights, Engine, MatchToml};
use crate::common::tools::skip;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The headless browser, if installed.
pub(crate) fn chromium() -> Option<PathBuf> {
    ["chromium", "chromium-headless-shell", "chromium-browser"]
        .iter()
        .find_map(|name| {
            std::env::var_os("PATH").and_then(|paths| {
                std::env::split_paths(&paths)
                    .map(|d| d.join(name))
                    .find(|p| p.is_file())
            })
        })
}

/// What the browser printed: the DOM (`--dump-dom`) or nothing (`--screenshot`), and its log.
struct BrowserRun {
    stdout: String,
    stderr: String,
}

/// Runs headless Chromium on `page` with `extra` arguments; a browser that hangs is killed
/// after a minute (a failure).
fn browse(browser: &Path, page: &Path, extra: &[String], profile: &Path) -> BrowserRun {
    let url = format!("file://{}", page.canonicalize().unwrap().display());
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--no-first-run",
            "--disable-extensions",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(&url)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out_pipe = child.stdout.take().unwrap();
    let err_pipe = child.stderr.take().unwrap();
    let read = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let (out, err) = (read(Box::new(out_pipe)), read(Box::new(err_pipe)));
    let started = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish loading {url} in a minute");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    BrowserRun {
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    }
}

/// Loads `page`: its DOM after parsing, with no console message or script error in the log,
/// and a screenshot `shot` (a PNG) of the page's first 1200x2400 pixels.
pub(crate) fn load(browser: &Path, page: &Path, shot: &Path) -> String {
    let profile = page.with_extension("chromium-profile");
    let dom = browse(browser, page, &["--dump-dom".to_string()], &profile);
    for needle in ["Uncaught", "CONSOLE", "console"] {
        assert!(
            !dom.stderr.contains(needle),
            "{}: the browser logged {needle}: {}",
            page.display(),
            dom.stderr
        );
    }
    assert!(dom.stdout.contains("</html>"), "no DOM: {}", dom.stderr);
    let _ = std::fs::remove_file(shot);
    let shot_args = [
        format!("--screenshot={}", shot.display()),
        "--window-size=1200,2400".to_string(),
        "--hide-scrollbars".to_string(),
    ];
    let run = browse(browser, page, &shot_args, &profile);
    let png = std::fs::read(shot).unwrap_or_else(|e| panic!("no screenshot ({e}): {}", run.stderr));
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 10_000,
        "{} bytes",
        png.len()
    );
    let _ = std::fs::remove_dir_all(&profile);
    dom.stdout
}

/// The cell texts of `<table id="ID">` in a DOM, header row first (entities decoded).
pub(crate) fn table_cells(dom: &str, id: &str) -> Vec<Vec<String>> {
    let start = dom
        .find(&format!("<table id=\"{id}\">"))
        .unwrap_or_else(|| panic!("no table {id}"));
    let end = start + dom[start..].find("</table>").unwrap();
    let table = &dom[start..end];
    let mut rows = Vec::new();
    for row in table.split("<tr>").skip(1) {
        let mut cells = Vec::new();
        for cell in row.split("</t") {
            let Some(open) = cell.rfind("<t") else {
                continue;
            };
            let Some(close) = cell[open..].find('>') else {
                continue;
            };
            let tag = &cell[open..open + close];
            if tag.starts_with("<td") || tag.starts_with("<th") {
                cells.push(decode(&cell[open + close + 1..]));
            }
        }
        rows.push(cells);
    }
    rows
}

fn decode(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// A CSV file's header and rows as text.
fn csv_cells(path: &Path) -> Vec<Vec<String>> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_path(path)
        .unwrap();
    reader
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect()
}

/// The compliance table figures.csv makes: its `compliance_warnings` column summed per engine
/// (`names` in configuration order), under the page's header.
fn compliance_from_figures(dir: &Path, names: &[&str]) -> Vec<Vec<String>> {
    let cells = csv_cells(&dir.join("figures.csv"));
    let column = |name: &str| cells[0].iter().position(|c| c == name).unwrap();
    let (engine, warnings) = (column("engine"), column("compliance_warnings"));
    let mut sums = vec![0u64; names.len()];
    for row in &cells[1..] {
        sums[row[engine].parse::<usize>().unwrap()] += row[warnings].parse::<u64>().unwrap();
    }
    let mut table = vec![vec![
        "engine".to_string(),
        "compliance warnings".to_string(),
    ]];
    table.extend(
        names
            .iter()
            .zip(sums)
            .map(|(n, s)| vec![n.to_string(), s.to_string()]),
    );
    table
}

fn sprt_config(out: &Path, rounds: u32, concurrency: usize) -> MatchToml {
    MatchToml::gauntlet()
        .rounds(rounds)
        .concurrency(concurrency)
        .seed(3)
        .nodes(2000)
        .openings(balanced_book())
        .resign(3, 600)
        .sprt(0.0, 10.0)
        .out(out)
        .engine(Engine::builtin("candidate").weights(weights("default.toml")))
        .engine(Engine::builtin("base").weights(weights("material-only.toml")))
}

/// The page holds nothing that reaches out: no script, no external resource.
fn assert_self_contained(html: &str) {
    assert!(html.starts_with("<!DOCTYPE html>"));
    for needle in ["<script", "src=", "href=\"http", "url(http", "@import"] {
        assert!(!html.contains(needle), "the page holds {needle}");
    }
    assert!(html.contains("role=\"img\"") && html.contains("<desc>"));
}

#[test]
fn an_sprt_report_holds_the_csvs_figures_and_loads_in_chromium() {
    let dir = scratch_in("report", "sprt");
    let out = dir.join("run");
    let config = sprt_config(&out, 12, 2).write(dir.join("sprt.toml"));
    let run = sparring(&["match", text(&config), "--progress", "lines"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let page = out.join("report.html");
    let html = std::fs::read_to_string(&page).unwrap();
    assert_self_contained(&html);
    assert!(html.contains("Finished: 24 games.") && html.contains("LLR of candidate vs base"));
    // The report command rebuilds the very page the run wrote at its end.
    std::fs::remove_file(&page).unwrap();
    let rebuilt = sparring(&["report", text(&out)]);
    assert_eq!(rebuilt.code, 0, "{}", rebuilt.stderr);
    assert_eq!(std::fs::read_to_string(&page).unwrap(), html);
    // A run from before reports and fingerprints: no run.toml, no figures.csv.
    let old = dir.join("old");
    std::fs::create_dir_all(&old).unwrap();
    for file in ["games.csv", "summary.csv", "ranking.csv"] {
        std::fs::copy(out.join(file), old.join(file)).unwrap();
    }
    let run = sparring(&["report", text(&old)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let old_html = std::fs::read_to_string(old.join("report.html")).unwrap();
    assert!(old_html.contains("no run.toml") && old_html.contains("figures.csv is missing"));
    assert!(
        old_html.contains("Compliance warnings are not recorded in this directory")
            && !old_html.contains("<table id=\"compliance\">"),
        "a run from before the column: a note, no table, no error"
    );
    // Not a run directory: bad input, named.
    let empty = scratch_in("report", "empty");
    let run = sparring(&["report", text(&empty)]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("not a run directory"), "{}", run.stderr);

    let Some(browser) = chromium() else {
        return skip("chromium is not installed: the SPRT report is not loaded in a browser");
    };
    let dom = load(&browser, &page, &dir.join("sprt.png"));
    assert_eq!(
        table_cells(&dom, "ranking"),
        csv_cells(&out.join("ranking.csv"))
    );
    assert_eq!(
        table_cells(&dom, "summary"),
        csv_cells(&out.join("summary.csv"))
    );
    assert_eq!(
        table_cells(&dom, "compliance"),
        compliance_from_figures(&out, &["candidate", "base"])
    );
    assert!(dom.matches("<svg").count() >= 4, "charts missing");
    load(&browser, &old.join("report.html"), &dir.join("old.png"));
}

#[test]
fn a_running_matchs_report_changes_as_games_finish() {
    let dir = scratch_in("report", "running");
    let out = dir.join("run");
    // 60 games one at a time: the page is rewritten every four games.
    let config = sprt_config(&out, 30, 1).write(dir.join("match.toml"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_sparring"))
        .args(["match", text(&config), "--progress", "lines"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let page = out.join("report.html");
    let mut seen: Vec<String> = Vec::new();
    while child.try_wait().unwrap().is_none() {
        if let Ok(html) = std::fs::read_to_string(&page) {
            if html.contains("Running:") && seen.last() != Some(&html) {
                seen.push(html);
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let status = child.wait().unwrap();
    assert!(status.success());
    assert!(
        seen.len() >= 2,
        "{} versions of the page seen while running",
        seen.len()
    );
    let done = |html: &str| -> u64 {
        let at = html.find("Running: ").unwrap() + "Running: ".len();
        html[at..].split(' ').next().unwrap().parse().unwrap()
    };
    let (first, last) = (&seen[0], seen.last().unwrap());
    assert!(
        done(first) < done(last),
        "{} then {}",
        done(first),
        done(last)
    );
    assert!(first.contains("http-equiv=\"refresh\""));
    let finished = std::fs::read_to_string(&page).unwrap();
    assert!(finished.contains("Finished: ") && !finished.contains("http-equiv"));
    let Some(browser) = chromium() else {
        return skip("chromium is not installed: the running match's report is not loaded");
    };
    let mid = dir.join("mid.html");
    std::fs::write(&mid, first).unwrap();
    // The page under way has its tables from memory: the same columns as the files.
    let dom = load(&browser, &mid, &dir.join("mid.png"));
    let header = &csv_cells(&out.join("ranking.csv"))[0];
    assert_eq!(&table_cells(&dom, "ranking")[0], header);
}

/// Writes games.csv and figures.csv of `games` games between candidate and base (a seeded
/// stream of results, openings and figures), the ranking and summary of a real run kept.
fn synthesise_games(dir: &Path, games: u64) {
    use std::fmt::Write as _;
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut csv = String::from(
        "game_id,pair_id,round,white,black,opening_id,start_fen,result,termination,plies,duration_ms,reason\n",
    );
    let mut figures = String::from(
        "game_id,engine,games,moves,depth_sum,depth_moves,nodes,nodes_time_ns,think_time_ns,\
         clock_games,time_left_ns,time_forfeits,disconnects,stalls,illegal_moves\n",
    );
    let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    for id in 1..=games {
        let pair = id.div_ceil(2);
        let (white, black) = if id % 2 == 1 {
            ("candidate", "base")
        } else {
            ("base", "candidate")
        };
        let roll = next() % 100;
        let (result, reason) = if roll < 40 {
            ("1-0", "White wins by adjudication")
        } else if roll < 75 {
            ("1/2-1/2", "Draw by adjudication")
        } else {
            ("0-1", "Black mates")
        };
        let termination = if roll < 75 { "adjudication" } else { "normal" };
        let opening = pair % 5000;
        let plies = 40 + next() % 120;
        let _ = writeln!(
            csv,
            "{id},{pair},{pair},{white},{black},{opening},{fen},{result},{termination},{plies},{},{reason}",
            plies * 10
        );
        for engine in 0..2 {
            let moves = plies / 2;
            let depth = moves * (5 + next() % 4);
            let ns = moves * (2_000_000 + next() % 3_000_000);
            let left = 1_000_000_000 + next() % 9_000_000_000;
            let _ = writeln!(
                figures,
                "{id},{engine},1,{moves},{depth},{moves},{},{ns},{ns},1,{left},0,0,0,0",
                moves * 2000
            );
        }
    }
    std::fs::write(dir.join("games.csv"), csv).unwrap();
    std::fs::write(dir.join("figures.csv"), figures).unwrap();
}

#[test]
fn a_report_of_100000_games_stays_small_and_loads() {
    let dir = scratch_in("report", "large");
    let out = dir.join("run");
    let config = sprt_config(&out, 1, 1).write(dir.join("match.toml"));
    let run = sparring(&["match", text(&config), "--progress", "lines"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    synthesise_games(&out, 100_000);
    let run = sparring(&["report", text(&out)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let page = out.join("report.html");
    let size = std::fs::metadata(&page).unwrap().len();
    assert!(size < 3_000_000, "{size} bytes");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("after 100000 games"),
        "the LLR's last point is the last pair"
    );
    assert_self_contained(&html);
    let Some(browser) = chromium() else {
        return skip("chromium is not installed: the 100,000-game report is not loaded");
    };
    let dom = load(&browser, &page, &dir.join("large.png"));
    assert!(dom.contains("Time left at the end of games"));
}

/// A one-generation self-play loop at tiny sizes.
fn loop_config(dir: &Path, out: &Path) -> PathBuf {
    let openings = balanced_book();
    let text = format!(
        "seed = 7\ngenerations = 1\n[champion]\nweights = {:?}\nhash_mb = 1\n\
         [output]\ndir = {:?}\n\
         [selfplay.tournament]\nrounds = 6\nconcurrency = 2\n[selfplay.time_control]\nnodes = 600\n\
         [selfplay.openings]\nfile = {openings:?}\norder = \"random\"\nper_game = true\nrandom_plies = 4\n\
         [selfplay.adjudication]\nmax_moves = 120\n[selfplay.output]\npositions_per_game = 10\n\
         [tune]\nwindow = 1\n[tune.data]\nvalidation_fraction = 0.1\n\
         [tune.optimizer]\nlearning_rate = 1.0\nepochs = 5\nl2 = 0.0\nthreads = 2\n\
         [gate]\nwave_pairs = 5\n[gate.tournament]\nrounds = 10\nconcurrency = 2\n\
         [gate.time_control]\nnodes = 600\n[gate.openings]\nfile = {openings:?}\norder = \"random\"\n\
         [gate.adjudication]\nresign = {{ move_count = 3, score_cp = 600 }}\nmax_moves = 120\n\
         [gate.sprt]\nelo0 = 0.0\nelo1 = 30.0\nalpha = 0.1\nbeta = 0.1\nmodel = \"logistic\"\n",
        weights("handset.toml"),
        text(out)
    );
    let path = dir.join("loop.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// Runs the binary, asserting success.
fn ok(args: &[&str]) {
    let run = sparring(args);
    assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
}

#[test]
fn every_tuning_run_kind_writes_a_report_that_loads() {
    let dir = scratch_in("report", "kinds");
    // A match with positions, the Texel tune of them, an SPSA run, datagen, a loop.
    let games = dir.join("games");
    let config = sprt_config(&games, 6, 2)
        .positions(true)
        .write(dir.join("match.toml"));
    ok(&["match", text(&config), "--progress", "lines"]);
    let tune = dir.join("tune");
    let tune_toml = dir.join("tune.toml");
    std::fs::write(
        &tune_toml,
        format!(
            "[data]\nfiles = [{:?}]\nvalidation_fraction = 0\n[model]\nweights = {:?}\n\
             tune = [\"material\", \"pst\"]\n[optimizer]\nepochs = 6\nthreads = 1\n[output]\ndir = {:?}\n",
            text(&games.join("positions.epd")),
            weights("default.toml"),
            text(&tune)
        ),
    )
    .unwrap();
    ok(&["tune", text(&tune_toml)]);
    let spsa = dir.join("spsa");
    let spsa_toml = dir.join("spsa.toml");
    std::fs::write(
        &spsa_toml,
        format!(
            "[spsa]\niterations = 2\npairs_per_iteration = 2\nseed = 3\nconcurrency = 2\n\
             lines = \"\"\"\nsearch.lmr.base, float, 0.75, 0.25, 1.5, 0.1, 0.002\n\
             search.nmp.base, int, 3, 1, 6, 1, 0.002\n\"\"\"\n\
             [engine]\nhash_mb = 1\n[time_control]\nnodes = 300\n\
             [openings]\nfile = {:?}\nrandom_plies = 2\n[adjudication]\nmax_moves = 40\n\
             [output]\ndir = {:?}\n",
            balanced_book(),
            text(&spsa)
        ),
    )
    .unwrap();
    ok(&["spsa", text(&spsa_toml)]);
    let datagen = dir.join("datagen");
    ok(&[
        "datagen",
        "--games",
        "4",
        "--nodes",
        "500",
        "--format",
        "text",
        "--seed",
        "7",
        "--out",
        text(&datagen),
    ]);
    let ladder = dir.join("loop");
    ok(&["loop", text(&loop_config(&dir, &ladder))]);
    let kinds = [
        (&tune, "Texel tune", "Weights that moved most"),
        (&spsa, "SPSA", "Start and current values"),
        (&datagen, "datagen", "Positions by number of pieces"),
        (&ladder, "self-play loop", "generations.csv"),
    ];
    for (run_dir, title, section) in kinds {
        let page = run_dir.join("report.html");
        let html =
            std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
        assert!(html.contains(title) && html.contains(section), "{title}");
        assert!(
            !html.contains("<script") && html.contains("role=\"img\""),
            "{title}"
        );
        // `sparring report` tells the kind by the files and writes the same page (datagen's
        // throughput reads the files' times, which do not move).
        std::fs::remove_file(&page).unwrap();
        ok(&["report", text(run_dir)]);
        assert_eq!(std::fs::read_to_string(&page).unwrap(), html, "{title}");
    }
    let Some(browser) = chromium() else {
        return skip("chromium is not installed: the tuning runs' reports are not loaded");
    };
    for (run_dir, title, section) in kinds {
        let name = run_dir.file_name().unwrap().to_string_lossy().into_owned();
        let dom = load(
            &browser,
            &run_dir.join("report.html"),
            &dir.join(format!("{name}.png")),
        );
        assert!(dom.contains(section), "{title}");
    }
    let moved = table_cells(
        &load(&browser, &tune.join("report.html"), &dir.join("tune2.png")),
        "moved",
    );
    assert_eq!(moved[0], ["weight", "start", "tuned", "change"]);
    assert!(moved.len() > 1, "no weight moved");
}
