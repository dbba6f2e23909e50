//! `--resume`: the games a stopped run finished, kept in every output file, and the traces of
//! the games that were being written when it stopped, dropped so they are played again.

use super::error::{io_error, ArenaError};
use super::outputs::{read_pgn_text, replace_file, PGN_START_FILE};
use crate::arena::config::MatchConfig;
use crate::arena::figures::{read_figures, write_figures_header, write_figures_row, FIGURES_FILE};
use crate::record::bullet::{
    bullet_lines_by_game, BULLET_FILE, BULLET_INDEX_FILE, BULLET_INDEX_HEADER,
};
use crate::record::{
    read_finished_games, split_pgn_games, write_games_csv, FinishedGame, TrainingPosition,
};
use std::collections::HashSet;
use std::ops::Range;
use std::path::Path;

/// Keeps what the run in `output.dir` finished (its games in `games_range`) in every output
/// file and returns those games.
pub(super) fn keep_finished_games(
    config: &MatchConfig,
    games_range: &Range<u64>,
    sharded: bool,
) -> Result<Vec<FinishedGame>, ArenaError> {
    let dir = &config.output.dir;
    let csv_path = dir.join("games.csv");
    let pgn_path = dir.join(&config.output.pgn_name);
    let positions_path = dir.join("positions.epd");
    let figures_path = dir.join(FIGURES_FILE);
    let (finished, kept_pgn) = resume_games(dir, &config.output.pgn_name, games_range)?;
    let done: HashSet<u64> = finished.iter().map(|g| g.game_id).collect();
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
    if sharded {
        // Keep the figures of the finished games (a kill may leave rows of an unfinished one).
        let text = std::fs::read_to_string(&figures_path).unwrap_or_default();
        let rows = read_figures(&text).unwrap_or_default();
        let mut kept = Vec::new();
        write_figures_header(&mut kept).map_err(io_error(&figures_path))?;
        for (game, engine, figures) in rows.iter().filter(|r| done.contains(&r.0)) {
            write_figures_row(&mut kept, *game, *engine, figures)
                .map_err(io_error(&figures_path))?;
        }
        replace_file(&figures_path, &kept)?;
    }
    let mut csv = Vec::new();
    write_games_csv(&mut csv, &finished).map_err(io_error(&csv_path))?;
    replace_file(&csv_path, &csv)?;
    Ok(finished)
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
