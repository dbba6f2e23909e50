//! Collecting what the directories hold: each shard's finished games with their PGN text,
//! position lines and engine figures, walked in schedule order, and the games that are missing.

use super::error::{MergeError, MissingGames};
use super::io;
use super::manifests::{RunShape, Split};
use crate::arena::matchmaking::schedule::{id_ranges, Shard, Slice, Wave};
use crate::arena::output::figures::{read_figures, FIGURES_FILE, START_WARNINGS_GAME};
use crate::arena::output::pairing::EngineFigures;
use crate::record::bullet::{
    bullet_lines_by_game, BULLET_FILE, BULLET_INDEX_FILE, BULLET_INDEX_HEADER,
};
use crate::record::{read_finished_games, split_pgn_games, FinishedGame, TrainingPosition};
use std::collections::{BTreeMap, HashSet};
use std::ops::Range;
use std::path::{Path, PathBuf};

/// One shard directory's content.
pub(super) struct ShardFiles {
    pub(super) games: Vec<FinishedGame>,
    /// Game id -> its PGN text (ending in a blank line).
    pub(super) pgn: BTreeMap<u64, String>,
    /// Game id -> its positions.epd lines.
    pub(super) positions: BTreeMap<u64, String>,
    /// Game id -> its positions.bullet lines.
    pub(super) bullet: BTreeMap<u64, String>,
    /// The shard's figures.csv.
    pub(super) figures: ShardFigures,
}

/// What a shard's figures.csv holds of its games.
#[derive(Default)]
pub(super) struct ShardFigures {
    /// Game id -> (engine, figures) rows, in file order.
    pub(super) by_game: BTreeMap<u64, Vec<(usize, EngineFigures)>>,
    /// The rows of game 0: the option warnings found when the shard started its engines.
    pub(super) start_warnings: Vec<(usize, EngineFigures)>,
    /// None without a figures.csv; else whether it has the `compliance_warnings` column.
    pub(super) has_warnings: Option<bool>,
}

fn read_optional(path: &Path) -> Result<Option<String>, MergeError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io(path)(e)),
    }
}

/// The 1-based line where each row of a games.csv starts, in file order.
fn games_csv_row_lines(path: &Path) -> Vec<u64> {
    let Ok(bytes) = std::fs::read(path) else {
        return Vec::new();
    };
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .from_reader(bytes.as_slice());
    reader
        .records()
        .map(|r| match r {
            Ok(r) => r.position().map_or(0, |p| p.line()),
            Err(e) => e.position().map_or(0, |p| p.line()),
        })
        .collect()
}

/// Reads a shard's finished games: those in games.csv whose PGN game is complete (what a kill
/// leaves half written counts as missing, as `--resume` would play it again). A games.csv row
/// outside the shard's games (0-based `range`) is refused, naming its line: paired with the PGN
/// first, it would only show as a game missing from the shard.
fn read_shard(
    dir: &Path,
    shape: &RunShape,
    slice: Slice,
    range: &Range<u64>,
) -> Result<ShardFiles, MergeError> {
    let csv_path = dir.join("games.csv");
    let mut games = read_finished_games(&csv_path)?;
    if let Some(i) = games
        .iter()
        .position(|g| g.game_id == 0 || !range.contains(&(g.game_id - 1)))
    {
        return Err(MergeError::ForeignGame {
            line: games_csv_row_lines(&csv_path).get(i).copied().unwrap_or(0),
            path: csv_path,
            shard: slice,
            game_id: games[i].game_id,
            range: range.start + 1..range.end + 1,
        });
    }
    let pgn_path = dir.join(&shape.pgn_name);
    let pgn_text = read_optional(&pgn_path)?.unwrap_or_default();
    let split = split_pgn_games(&pgn_text);
    // A kill can cut only the PGN's last game after its games.csv row: `--resume` plays that
    // one again. Any other listed game without its PGN is a damaged file resume refuses too.
    let cut_tail = split.last().filter(|g| !g.complete).and_then(|g| g.game_id);
    let mut pgn = BTreeMap::new();
    for game in split {
        if let (Some(id), true) = (game.game_id, game.complete) {
            pgn.insert(id, format!("{}\n\n", game.text.trim_end()));
        }
    }
    let lost: Vec<u64> = games
        .iter()
        .map(|g| g.game_id)
        .filter(|id| !pgn.contains_key(id) && Some(*id) != cut_tail)
        .collect();
    if let Some(first) = lost.first() {
        return Err(MergeError::Damaged {
            path: pgn_path,
            message: format!(
                "game {first} listed in games.csv is not in it complete ({} such game(s)): the \
                 files disagree; restore it, or play the shard again into a fresh directory",
                lost.len()
            ),
        });
    }
    games.retain(|g| pgn.contains_key(&g.game_id));
    let ids: HashSet<u64> = games.iter().map(|g| g.game_id).collect();
    pgn.retain(|id, _| ids.contains(id));
    let positions = if shape.positions {
        read_positions(dir, &ids)?
    } else {
        BTreeMap::new()
    };
    let bullet = if shape.bullet {
        read_bullet(dir, &ids)?
    } else {
        BTreeMap::new()
    };
    let figures = read_shard_figures(dir, &ids)?;
    Ok(ShardFiles {
        games,
        pgn,
        positions,
        bullet,
        figures,
    })
}

/// The positions.epd lines of the games `ids`, by game.
fn read_positions(dir: &Path, ids: &HashSet<u64>) -> Result<BTreeMap<u64, String>, MergeError> {
    let mut position_lines: BTreeMap<u64, String> = BTreeMap::new();
    let path = dir.join("positions.epd");
    let text = read_optional(&path)?.unwrap_or_default();
    for (i, line) in text.lines().enumerate() {
        let id = TrainingPosition::parse(line)
            .map_err(|e| MergeError::Damaged {
                path: path.clone(),
                message: format!("line {}: {e}", i + 1),
            })?
            .and_then(|p| p.id);
        if let Some(id) = id.filter(|id| ids.contains(&id.game)) {
            let lines = position_lines.entry(id.game).or_default();
            lines.push_str(line);
            lines.push('\n');
        }
    }
    Ok(position_lines)
}

/// The positions.bullet lines of the games `ids`, by game; every game must have an index row.
fn read_bullet(dir: &Path, ids: &HashSet<u64>) -> Result<BTreeMap<u64, String>, MergeError> {
    let mut bullet_lines: BTreeMap<u64, String> = BTreeMap::new();
    let path = dir.join(BULLET_FILE);
    let index_path = dir.join(BULLET_INDEX_FILE);
    // The index first: a running shard appends a game's lines before its row, so lines
    // read after the index cover every row it lists (a `--partial` look at a live run).
    let index = read_optional(&index_path)?.unwrap_or_else(|| BULLET_INDEX_HEADER.to_string());
    let text = read_optional(&path)?.unwrap_or_default();
    let games =
        bullet_lines_by_game(&text, &path.display().to_string(), &index).map_err(|source| {
            MergeError::BulletIndex {
                path: index_path.clone(),
                source,
            }
        })?;
    for (id, lines) in games.into_iter().filter(|(id, _)| ids.contains(id)) {
        bullet_lines.insert(id, lines);
    }
    // The runner writes a game's index row before its games.csv row, so every recorded
    // game has one; a game without is data the merge would silently lose.
    let unlisted: Vec<u64> = games_order(ids)
        .into_iter()
        .filter(|id| !bullet_lines.contains_key(id))
        .collect();
    if let Some(first) = unlisted.first() {
        return Err(MergeError::Damaged {
            path: index_path,
            message: format!(
                "no row for game {first} ({} game(s) in games.csv have none): their \
                 positions.bullet lines are lost; play the shard again into a fresh directory",
                unlisted.len()
            ),
        });
    }
    Ok(bullet_lines)
}

/// The figures.csv rows of the games `ids`, by game, and its start warnings (none when the
/// file is absent).
fn read_shard_figures(dir: &Path, ids: &HashSet<u64>) -> Result<ShardFigures, MergeError> {
    let mut shard = ShardFigures::default();
    let figures = &mut shard.by_game;
    let path = dir.join(FIGURES_FILE);
    if let Some(text) = read_optional(&path)? {
        let rows = read_figures(&text).map_err(|source| MergeError::Figures {
            path: path.clone(),
            source,
        })?;
        shard.has_warnings = Some(rows.has_warnings);
        for (game, engine, f) in rows.rows {
            if game == START_WARNINGS_GAME {
                shard.start_warnings.push((engine, f));
            } else if ids.contains(&game) {
                figures.entry(game).or_default().push((engine, f));
            }
        }
        // The runner writes both of a game's rows before its games.csv row, so a recorded
        // game without them is a damaged file whose figures the merge would silently lose.
        let incomplete: Vec<u64> = games_order(ids)
            .into_iter()
            .filter(|id| figures.get(id).map_or(0, Vec::len) != 2)
            .collect();
        if let Some(first) = incomplete.first() {
            return Err(MergeError::Damaged {
                path,
                message: format!(
                    "game {first} lacks one or both of its rows ({} game(s) listed in games.csv do): \
                     their engine figures are lost; play the shard again into a fresh directory",
                    incomplete.len()
                ),
            });
        }
    }
    Ok(shard)
}

/// Game ids in ascending order, for messages that name the first.
fn games_order(ids: &HashSet<u64>) -> Vec<u64> {
    let mut ids: Vec<u64> = ids.iter().copied().collect();
    ids.sort_unstable();
    ids
}

/// What the walk over the run's parts found.
pub(super) struct Collected {
    /// The files of every directory read, in schedule order.
    pub(super) files: Vec<ShardFiles>,
    /// What is missing, in schedule order.
    pub(super) missing: Vec<MissingGames>,
    /// The waves walked (`[None]` for a run not in waves).
    pub(super) waves: Vec<Option<Wave>>,
    /// Per wave walked: whether all its games are present.
    pub(super) wave_complete: Vec<bool>,
}

/// Walks the parts of the run in schedule order: every wave (or the run), each shard of it.
/// Waves past the one after the last given are all missing: one entry names them, so the
/// walk stays as long as what was given, however many waves the schedule holds.
pub(super) fn collect(
    dirs: &[PathBuf],
    shape: &RunShape,
    splits: &BTreeMap<Option<u64>, Split>,
    wave_pairs: Option<u64>,
) -> Result<Collected, MergeError> {
    let total = shape.schedule.total_games();
    let wave_count = wave_pairs.map_or(1, |pairs| Wave::count(pairs, total));
    let last_given = splits.keys().flatten().max().copied();
    let walked = last_given.map_or(wave_count, |last| wave_count.min(last + 2));
    let waves: Vec<Option<Wave>> = match wave_pairs {
        Some(pairs) => (0..walked)
            .map(|index| Some(Wave { index, pairs }))
            .collect(),
        None => vec![None],
    };
    let mut files: Vec<ShardFiles> = Vec::new();
    let mut missing: Vec<MissingGames> = Vec::new();
    let mut wave_complete: Vec<bool> = Vec::new();
    for wave in &waves {
        let complete = match splits.get(&wave.map(|w| w.index)) {
            None => {
                wave_not_given(&mut missing, *wave, total);
                false
            }
            Some(split) => read_split(dirs, shape, split, *wave, &mut files, &mut missing)?,
        };
        wave_complete.push(complete);
    }
    if walked < wave_count {
        // The walk ended on a wave not given (the one after the last given): it and every
        // later wave are one entry.
        if let Some(m) = missing.last_mut() {
            m.last_wave = Some(wave_count - 1);
            let start = m.game_ids.first().map_or(1, |r| *r.start());
            m.game_ids = vec![start..=total];
        }
    }
    Ok(Collected {
        files,
        missing,
        waves,
        wave_complete,
    })
}

/// Notes a wave (or run) of which no directory was given; consecutive waves not given are
/// named together.
fn wave_not_given(missing: &mut Vec<MissingGames>, wave: Option<Wave>, total: u64) {
    let range = Slice { wave, shard: None }.games(total);
    match missing.last_mut() {
        Some(m)
            if m.not_given && m.slice.shard.is_none() && m.slice.wave.is_some() && {
                let last = m.last_wave.or(m.slice.wave.map(|w| w.index));
                last.map(|l| l + 1) == wave.map(|w| w.index)
            } =>
        {
            m.last_wave = wave.map(|w| w.index);
            if !range.is_empty() {
                let start = m.game_ids.last().map_or(range.start + 1, |r| *r.start());
                m.game_ids = vec![start..=range.end];
            }
        }
        _ => missing.push(MissingGames {
            slice: Slice { wave, shard: None },
            last_wave: None,
            game_ids: id_ranges(range.start + 1..range.end + 1),
            not_given: true,
        }),
    }
}

/// Reads the shards of one wave (or of the run) that `split` gives, noting what is missing;
/// returns whether all the wave's games are present.
fn read_split(
    dirs: &[PathBuf],
    shape: &RunShape,
    split: &Split,
    wave: Option<Wave>,
    files: &mut Vec<ShardFiles>,
    missing: &mut Vec<MissingGames>,
) -> Result<bool, MergeError> {
    let total = shape.schedule.total_games();
    let mut complete = true;
    let shards: Vec<Option<Shard>> = match split.count {
        None => vec![None],
        Some(count) => (0..count)
            .map(|index| Some(Shard { index, count }))
            .collect(),
    };
    for shard in shards {
        let slice = Slice { wave, shard };
        // A run not in waves names its shards as before (an unsharded run is shard 0/1).
        let range = slice.games(total);
        let ids = range.start + 1..range.end + 1;
        let Some(&i) = split.dirs.get(&shard.map_or(0, |s| s.index)) else {
            if !ids.is_empty() {
                complete = false;
                missing.push(MissingGames {
                    slice,
                    last_wave: None,
                    game_ids: id_ranges(ids),
                    not_given: true,
                });
            }
            continue;
        };
        let shard_files = read_shard(&dirs[i], shape, slice, &range)?;
        let present: HashSet<u64> = shard_files.games.iter().map(|g| g.game_id).collect();
        let lacking = id_ranges(ids.filter(|id| !present.contains(id)));
        if !lacking.is_empty() {
            complete = false;
            missing.push(MissingGames {
                slice,
                last_wave: None,
                game_ids: lacking,
                not_given: false,
            });
        }
        files.push(shard_files);
    }
    Ok(complete)
}
