//! `--resume`: the games a stopped run finished, kept in every output file, and the traces of
//! the games that were being written when it stopped, dropped so they are played again.

use super::error::{io_error, ArenaError};
use super::outputs::{read_pgn_text, replace_file, PGN_START_FILE};
use crate::arena::config::MatchConfig;
use crate::arena::output::figures::{
    read_figures, write_figures_header, write_figures_row, FIGURES_FILE,
};
use crate::arena::output::pairing::EngineFigures;
use crate::record::bullet::{
    bullet_lines_by_game, BULLET_FILE, BULLET_INDEX_FILE, BULLET_INDEX_HEADER,
};
use crate::record::{
    read_finished_games, split_pgn_games, write_games_csv, FinishedGame, TrainingPosition,
};
use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::path::Path;

/// What a stopped run finished, as `--resume` found it.
pub(super) struct Resumed {
    /// Its games, from games.csv.
    pub(super) games: Vec<FinishedGame>,
    /// Per configured engine: its figures in those games, as far as figures.csv holds them.
    pub(super) figures: Vec<EngineFigures>,
    /// Finished games figures.csv has no rows for (a directory written before every run kept
    /// it): the figures above leave them out.
    pub(super) without_figures: u64,
}

impl Resumed {
    /// Nothing finished: a new run.
    pub(super) fn none(engines: usize) -> Resumed {
        Resumed {
            games: Vec::new(),
            figures: vec![EngineFigures::default(); engines],
            without_figures: 0,
        }
    }
}

/// Keeps what the run in `output.dir` finished (its games in `games_range`) in every output
/// file and returns those games with their engine figures.
pub(super) fn keep_finished_games(
    config: &MatchConfig,
    games_range: &Range<u64>,
) -> Result<Resumed, ArenaError> {
    let dir = &config.output.dir;
    let csv_path = dir.join("games.csv");
    let pgn_path = dir.join(&config.output.pgn_name);
    let positions_path = dir.join("positions.epd");
    let (finished, kept_pgn) = resume_games(dir, &config.output.pgn_name, games_range)?;
    let done: HashSet<u64> = finished.iter().map(|g| g.game_id).collect();
    // Read before any file changes, so a damaged figures.csv leaves the directory as it was.
    let (figures, without_figures) = keep_figures(config, &finished)?;
    replace_file(&pgn_path, kept_pgn.as_bytes())?;
    if let Ok(text) = std::fs::read_to_string(&positions_path) {
        let kept: String = text
            .lines()
            .filter(|l| {
                TrainingPosition::parse(l)
                    .ok()
                    .flatten()
                    .and_then(|p| p.id)
                    .is_some_and(|id| done.contains(&id.game))
            })
            .map(|l| format!("{l}\n"))
            .collect();
        replace_file(&positions_path, kept.as_bytes())?;
    }
    if config.output.positions_format.bullet() {
        keep_bullet_lines(dir, &done)?;
    }
    let mut csv = Vec::new();
    write_games_csv(&mut csv, &finished).map_err(io_error(&csv_path))?;
    replace_file(&csv_path, &csv)?;
    Ok(Resumed {
        games: finished,
        figures,
        without_figures,
    })
}

/// The engine figures of the finished games, summed per engine, and how many of the games
/// have no rows. Rewrites figures.csv with their rows only (a kill may leave rows of an
/// unfinished game); a directory without the file gets one with its header.
fn keep_figures(
    config: &MatchConfig,
    finished: &[FinishedGame],
) -> Result<(Vec<EngineFigures>, u64), ArenaError> {
    let path = config.output.dir.join(FIGURES_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(io_error(&path)(e)),
    };
    let damaged = |problem: String| ArenaError::Resume {
        path: path.clone(),
        problem: format!(
            "{problem}: restore the file, or remove it to resume without the engine figures \
             of the games played so far"
        ),
    };
    // Rows of game 0 (the option warnings of the last start) go: the new start finds its own.
    let rows = read_figures(&text)
        .map_err(|e| damaged(e.to_string()))?
        .rows;
    let (kept, games_with_rows) = finished_rows(config, &rows, finished).map_err(damaged)?;
    let mut figures = vec![EngineFigures::default(); config.engines.len()];
    let mut text = Vec::new();
    write_figures_header(&mut text).map_err(io_error(&path))?;
    for (game_id, engine, row) in kept {
        figures[*engine].add(row);
        write_figures_row(&mut text, *game_id, *engine, row).map_err(io_error(&path))?;
    }
    replace_file(&path, &text)?;
    Ok((figures, (finished.len() - games_with_rows) as u64))
}

type FiguresRow = (u64, usize, EngineFigures);

/// The rows of the finished games and how many games have them; a row that cannot be its
/// game's, or a game with one row (both are written before its games.csv row), is damage.
fn finished_rows<'r>(
    config: &MatchConfig,
    rows: &'r [FiguresRow],
    finished: &[FinishedGame],
) -> Result<(Vec<&'r FiguresRow>, usize), String> {
    let games: HashMap<u64, &FinishedGame> = finished.iter().map(|g| (g.game_id, g)).collect();
    let mut seen: HashMap<u64, Vec<usize>> = HashMap::new();
    let mut kept = Vec::new();
    // Every row is one line after the header: row i is on line i + 2.
    for (i, row @ (game_id, engine, _)) in rows.iter().enumerate() {
        let Some(game) = games.get(game_id) else {
            continue;
        };
        let engines = seen.entry(*game_id).or_default();
        let misfit = if engines.contains(engine) {
            "a second row for engine"
        } else if !played_in(config, *engine, game) {
            "a row for an engine that did not play it: engine"
        } else {
            engines.push(*engine);
            kept.push(row);
            continue;
        };
        let (white, black, line) = (&game.white, &game.black, i + 2);
        return Err(format!(
            "line {line}: game {game_id} ({white} vs {black}) has {misfit} {engine}"
        ));
    }
    let halves = seen.iter().filter(|(_, engines)| engines.len() != 2);
    if let Some(id) = halves.map(|(id, _)| *id).min() {
        return Err(format!("game {id} has one of its two rows only"));
    }
    Ok((kept, seen.len()))
}

/// Whether configured engine `engine` played in `game` (engine names are unique).
fn played_in(config: &MatchConfig, engine: usize, game: &FinishedGame) -> bool {
    config
        .engines
        .get(engine)
        .is_some_and(|e| e.name == game.white || e.name == game.black)
}

/// Where this run's games start in the PGN text (0 when the run did not append).
fn run_pgn_start(dir: &Path, pgn_text: &str) -> Result<usize, ArenaError> {
    let path = dir.join(PGN_START_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(io_error(&path)(e)),
    };
    text.trim()
        .parse::<usize>()
        .ok()
        .filter(|&start| pgn_text.is_char_boundary(start))
        .ok_or_else(|| {
            ArenaError::Resume {
                path: path.clone(),
                problem: format!(
                    "{:?} is not an offset inside the PGN file ({} bytes): restore it or start a new run",
                    text.trim(),
                    pgn_text.len()
                ),
            }
        })
}

/// The games `--resume` keeps: those both in games.csv and complete in games.pgn. Repairs what
/// a kill leaves (a PGN game not yet in the CSV, a PGN game cut off at the end, a CSV row cut
/// short) by dropping it, so the game is played again; refuses files that disagree otherwise.
fn resume_games(
    dir: &Path,
    pgn_name: &str,
    games_range: &Range<u64>,
) -> Result<(Vec<FinishedGame>, String), ArenaError> {
    let csv_path = dir.join("games.csv");
    let pgn_path = dir.join(pgn_name);
    let mut finished = read_finished_games(&csv_path)?;
    let pgn_text = read_pgn_text(&pgn_path)?;
    // With `pgn_mode = "append"`, the games before this run's start belong to earlier runs:
    // they are kept as they are and never read as this run's.
    let start = run_pgn_start(dir, &pgn_text)?;
    let (earlier, pgn_text) = pgn_text.split_at(start);
    let games = split_pgn_games(pgn_text);
    let pgn_name = pgn_path.display();
    let mut complete: HashSet<u64> = HashSet::new();
    let mut cut_off_tail = None;
    for (i, game) in games.iter().enumerate() {
        let is_last = i + 1 == games.len();
        match (game.game_id, game.complete) {
            (Some(id), true) => {
                if !complete.insert(id) {
                    return Err(ArenaError::Resume {
                        path: pgn_path.clone(),
                        problem: format!("game {id} is there twice"),
                    });
                }
            }
            (id, false) if is_last => cut_off_tail = id,
            (id, _) => {
                return Err(ArenaError::Resume {
                    path: pgn_path.clone(),
                    problem: format!(
                        "game {} (the {}th in the file) is incomplete or has no GameId, and \
                         games follow it: the file is damaged",
                        id.map_or("?".to_string(), |id| id.to_string()),
                        i + 1
                    ),
                });
            }
        }
    }
    for game in &finished {
        if game.game_id == 0 || !games_range.contains(&(game.game_id - 1)) {
            return Err(ArenaError::Resume {
                path: csv_path.clone(),
                problem: format!(
                    "game {} is not in this schedule's games {}-{}",
                    game.game_id,
                    games_range.start + 1,
                    games_range.end
                ),
            });
        }
    }
    let missing: Vec<u64> = finished
        .iter()
        .map(|g| g.game_id)
        .filter(|id| !complete.contains(id))
        .collect();
    match missing.as_slice() {
        [] => {}
        // The PGN was cut inside the last game after its CSV row was written: play it again.
        [id] if cut_off_tail == Some(*id) => finished.retain(|g| g.game_id != *id),
        ids => {
            let shown: Vec<String> = ids.iter().take(5).map(u64::to_string).collect();
            return Err(ArenaError::Resume {
                path: csv_path.clone(),
                problem: format!(
                    "lists {} game(s) that {pgn_name} does not hold complete (game {}{}): the \
                     files disagree; restore {pgn_name}, or start a new run in another directory",
                    ids.len(),
                    shown.join(", "),
                    if ids.len() > 5 { ", ..." } else { "" }
                ),
            });
        }
    }
    let done: HashSet<u64> = finished.iter().map(|g| g.game_id).collect();
    let mut kept_pgn = String::with_capacity(earlier.len() + pgn_text.len());
    kept_pgn.push_str(earlier);
    for game in &games {
        if game.complete && game.game_id.is_some_and(|id| done.contains(&id)) {
            kept_pgn.push_str(game.text.trim_end());
            kept_pgn.push_str("\n\n");
        }
    }
    Ok((finished, kept_pgn))
}

/// On resume: keeps the bullet lines (and index rows) of the finished games, and drops those
/// of a game that was being written. A directory without the files (a run that recorded only
/// positions.epd before) starts them afresh.
fn keep_bullet_lines(dir: &Path, done: &HashSet<u64>) -> Result<(), ArenaError> {
    let bullet_path = dir.join(BULLET_FILE);
    let index_path = dir.join(BULLET_INDEX_FILE);
    let read = |path: &Path| match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes).map_err(|_| ArenaError::Resume {
            path: path.to_path_buf(),
            problem: "not UTF-8 text".to_string(),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(io_error(path)(e)),
    };
    let bullet = read(&bullet_path)?;
    let index = read(&index_path)?;
    let index = if index.is_empty() {
        format!("{BULLET_INDEX_HEADER}\n")
    } else {
        index
    };
    let games = bullet_lines_by_game(&bullet, &bullet_path.display().to_string(), &index).map_err(
        |source| ArenaError::ResumeBulletIndex {
            path: index_path.clone(),
            source,
        },
    )?;
    let mut kept_lines = String::new();
    let mut kept_index = format!("{BULLET_INDEX_HEADER}\n");
    for (id, lines) in games.iter().filter(|(id, _)| done.contains(id)) {
        kept_lines.push_str(lines);
        kept_index.push_str(&format!("{id},{}\n", lines.lines().count()));
    }
    replace_file(&bullet_path, kept_lines.as_bytes())?;
    replace_file(&index_path, kept_index.as_bytes())
}
