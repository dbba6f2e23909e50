//! The output directory of a run: claimed and locked, checked against the run, its files
//! started (a new run) or kept (`--resume`), then appended and flushed after every game.

use super::error::{io_error, ArenaError};
use super::resume::{keep_finished_games, Resumed};
use crate::arena::config::{MatchConfig, PgnMode};
use crate::arena::matchmaking::lock::OutputLock;
use crate::arena::matchmaking::manifest::{Fingerprint, MANIFEST_FILE};
use crate::arena::output::events::Event;
use crate::arena::output::figures::{
    write_figures_header, write_figures_row, FIGURES_FILE, START_WARNINGS_GAME,
};
use crate::arena::output::pairing::EngineFigures;
use crate::arena::output::ratings::RATINGS_FILE;
use crate::record::bullet::{bullet_lines, BULLET_FILE, BULLET_INDEX_FILE, BULLET_INDEX_HEADER};
use crate::record::{
    sample_positions, split_pgn_games, write_games_csv_header, write_pgn, GameRecord, MoveData,
    PgnStyle, PositionsResolve,
};
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

/// The output files of a run, appended and flushed after every game.
pub(super) struct Outputs {
    pgn: BufWriter<File>,
    pgn_name: String,
    /// What each move's comment holds besides score, depth and time.
    move_data: MoveData,
    /// Minimal PGN or not, and the moves' notation.
    pgn_style: PgnStyle,
    csv: BufWriter<File>,
    positions: Option<BufWriter<File>>,
    /// `positions.bullet` and its per-game index, with `positions_format` bullet or both.
    bullet: Option<(BufWriter<File>, BufWriter<File>)>,
    /// The per-game engine figures (`figures.csv`): what the merge sums, and what `--resume`
    /// counts so the ranking's figures cover the games of earlier sessions.
    figures: BufWriter<File>,
    /// `output.final_positions` (`-epdout`): the file, and whether lines are whole FENs.
    final_positions: Option<(BufWriter<File>, PathBuf, bool)>,
    /// With `compliance.crc32`: the running CRC32 of the PGN file's bytes (what was there
    /// when the run opened it, then every game written).
    pgn_crc: Option<crc32fast::Hasher>,
    pub(super) dir: PathBuf,
}

fn append(path: &Path) -> Result<BufWriter<File>, ArenaError> {
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map(BufWriter::new)
        .map_err(io_error(path))
}

/// Replaces a file's content through a temporary file, so a kill never leaves it half written.
pub(super) fn replace_file(path: &Path, content: &[u8]) -> Result<(), ArenaError> {
    crate::files::write_atomic(path, content).map_err(io_error(path))
}

impl Outputs {
    /// With `compliance.crc32`, the CRC32 of the whole PGN file as it stands.
    pub(super) fn pgn_crc32(&self) -> Option<u32> {
        self.pgn_crc.as_ref().map(|h| h.clone().finalize())
    }

    /// figures.csv's game-0 rows: per configured engine, the option warnings found when the
    /// engines started (engines with none get no row).
    pub(super) fn write_start_warnings(&mut self, per_engine: &[u64]) -> Result<(), ArenaError> {
        let path = self.dir.join(FIGURES_FILE);
        for (engine, &count) in per_engine.iter().enumerate() {
            if count > 0 {
                let figures = EngineFigures {
                    compliance_warnings: count,
                    ..EngineFigures::default()
                };
                write_figures_row(&mut self.figures, START_WARNINGS_GAME, engine, &figures)
                    .map_err(io_error(&path))?;
            }
        }
        self.figures.flush().map_err(io_error(&path))
    }

    /// Appends a finished game to every file; `warnings` are the compliance warnings about
    /// White's and Black's moves, `positions` how many positions to sample per game and how.
    pub(super) fn write(
        &mut self,
        record: &GameRecord,
        warnings: [u64; 2],
        (per_game, resolve): (usize, PositionsResolve),
        seed: u64,
    ) -> Result<(), ArenaError> {
        let pgn_path = self.dir.join(&self.pgn_name);
        // One write of the whole game, so a reader (or a kill) never sees half of one.
        let mut game = Vec::new();
        write_pgn(record, &self.move_data, self.pgn_style, &mut game)
            .map_err(io_error(&pgn_path))?;
        self.pgn.write_all(&game).map_err(io_error(&pgn_path))?;
        self.pgn.flush().map_err(io_error(&pgn_path))?;
        if let Some(crc) = self.pgn_crc.as_mut() {
            crc.update(&game);
        }
        let sampled = if self.positions.is_some() || self.bullet.is_some() {
            sample_positions(record, per_game, resolve, seed)
        } else {
            Vec::new()
        };
        if let Some(out) = self.positions.as_mut() {
            let path = self.dir.join("positions.epd");
            // Each line carries its id "<pair>.<game>.<ply>": the tuner keeps a pair on one
            // side of its split, and resume keeps the lines of finished games.
            for p in &sampled {
                writeln!(out, "{p}").map_err(io_error(&path))?;
            }
            out.flush().map_err(io_error(&path))?;
        }
        if let Some((out, index)) = self.bullet.as_mut() {
            // The lines first, then their index row: a kill between them leaves lines the
            // index does not list, which resume and merge leave out.
            let path = self.dir.join(BULLET_FILE);
            let (lines, _no_score) = bullet_lines(&sampled);
            out.write_all(lines.as_bytes())
                .and_then(|_| out.flush())
                .map_err(io_error(&path))?;
            let index_path = self.dir.join(BULLET_INDEX_FILE);
            writeln!(index, "{},{}", record.game_id, lines.lines().count())
                .and_then(|_| index.flush())
                .map_err(io_error(&index_path))?;
        }
        let path = self.dir.join(FIGURES_FILE);
        for (engine, color) in [
            (record.white_engine, crate::board::Color::White),
            (record.black_engine, crate::board::Color::Black),
        ] {
            let mut figures = EngineFigures {
                compliance_warnings: warnings[color.index()],
                ..EngineFigures::default()
            };
            figures.add_game(record, color);
            write_figures_row(&mut self.figures, record.game_id, engine, &figures)
                .map_err(io_error(&path))?;
        }
        self.figures.flush().map_err(io_error(&path))?;
        if let Some((out, path, full_fen)) = self.final_positions.as_mut() {
            writeln!(out, "{}", final_position_line(record, *full_fen))
                .and_then(|_| out.flush())
                .map_err(io_error(path))?;
        }
        // The CSV row is written last: it is what marks the game as done for --resume.
        let csv_path = self.dir.join("games.csv");
        record
            .write_csv_row(&mut self.csv)
            .map_err(io_error(&csv_path))?;
        self.csv.flush().map_err(io_error(&csv_path))
    }
}

/// A game's last position as `-epdout` writes it: the four EPD fields (fastchess), or the whole
/// FEN with its move counters (cutechess-cli).
fn final_position_line(record: &GameRecord, full_fen: bool) -> String {
    let mut position = record.start.clone();
    for mv in record
        .book_moves
        .iter()
        .chain(record.moves.iter().map(|m| &m.mv))
    {
        position.make_move(*mv);
    }
    let fen = position.to_fen();
    if full_fen {
        fen
    } else {
        fen.split_whitespace().take(4).collect::<Vec<_>>().join(" ")
    }
}

/// The file in the output directory that holds where this run's games start in an appended
/// PGN file (a byte offset): resume and its repairs touch only what follows.
pub(crate) const PGN_START_FILE: &str = "pgn-start.txt";

/// The files a run keeps in its output directory besides the PGN: with `pgn_mode` append or
/// replace, a new run moves the previous run's into `previous/` instead of refusing the directory.
const RUN_STATE_FILES: [&str; 10] = [
    "games.csv",
    "summary.csv",
    "ranking.csv",
    RATINGS_FILE,
    "positions.epd",
    BULLET_FILE,
    BULLET_INDEX_FILE,
    FIGURES_FILE,
    MANIFEST_FILE,
    PGN_START_FILE,
];

pub(super) fn read_pgn_text(path: &Path) -> Result<String, ArenaError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(io_error(path)(e)),
    }
}

/// The length of the PGN text without an incomplete last game (a run killed while writing it):
/// an appending run starts after the complete games, so readers never meet half a game.
fn complete_pgn_length(pgn_text: &str) -> usize {
    let games = split_pgn_games(pgn_text);
    match games.last() {
        // The game's text is a slice of `pgn_text`: its start is the distance between them.
        Some(last) if !last.complete => last.text.as_ptr() as usize - pgn_text.as_ptr() as usize,
        _ => pgn_text.len(),
    }
}

/// Starts appending to the PGN: cuts an incomplete last game, makes sure the file ends with a
/// blank line, and records the offset this run's games start at.
fn start_appended_pgn(dir: &Path, pgn_path: &Path) -> Result<(), ArenaError> {
    let text = read_pgn_text(pgn_path)?;
    let mut kept = text[..complete_pgn_length(&text)].trim_end().to_string();
    if !kept.is_empty() {
        kept.push_str("\n\n");
    }
    if kept != text {
        replace_file(pgn_path, kept.as_bytes())?;
    }
    replace_file(
        &dir.join(PGN_START_FILE),
        format!("{}\n", kept.len()).as_bytes(),
    )
}

/// Moves the previous run's state files into `previous/` (replacing an older one), so a new run
/// that appends to or replaces the PGN is not refused by the state of the last one.
fn set_previous_run_aside(dir: &Path) -> Result<(), ArenaError> {
    let previous = dir.join("previous");
    if previous.exists() {
        std::fs::remove_dir_all(&previous).map_err(io_error(&previous))?;
    }
    for name in RUN_STATE_FILES {
        let path = dir.join(name);
        if path.exists() {
            std::fs::create_dir_all(&previous).map_err(io_error(&previous))?;
            std::fs::rename(&path, previous.join(name)).map_err(io_error(&path))?;
        }
    }
    Ok(())
}

/// Prepares the output directory; on resume, returns the games already finished (with their
/// engine figures) and drops the traces of games that were being written when the run stopped.
pub(super) fn prepare_outputs(
    config: &MatchConfig,
    resume: bool,
    games_range: &Range<u64>,
) -> Result<(Outputs, Resumed), ArenaError> {
    let resumed = if resume {
        keep_finished_games(config, games_range)?
    } else {
        start_new_files(config)?;
        Resumed::none(config.engines.len())
    };
    let dir = config.output.dir.clone();
    let recorded = config.output.positions;
    let pgn_crc = if config.compliance.crc32 {
        // Carried on from the file's content (an appended or resumed PGN), as fastchess does.
        let path = dir.join(&config.output.pgn_name);
        let existing = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(io_error(&path)(e)),
        };
        let mut crc = crc32fast::Hasher::new();
        crc.update(&existing);
        Some(crc)
    } else {
        None
    };
    let outputs = Outputs {
        pgn: append(&dir.join(&config.output.pgn_name))?,
        pgn_name: config.output.pgn_name.clone(),
        move_data: config.output.move_data.clone(),
        pgn_style: config.output.pgn_style,
        csv: append(&dir.join("games.csv"))?,
        positions: if recorded && config.output.positions_format.epd() {
            Some(append(&dir.join("positions.epd"))?)
        } else {
            None
        },
        bullet: if recorded && config.output.positions_format.bullet() {
            Some((
                append(&dir.join(BULLET_FILE))?,
                append(&dir.join(BULLET_INDEX_FILE))?,
            ))
        } else {
            None
        },
        figures: append(&dir.join(FIGURES_FILE))?,
        final_positions: match &config.output.final_positions {
            Some(f) => {
                let path = dir.join(&f.file);
                if !resume && !f.append {
                    replace_file(&path, b"")?;
                }
                Some((append(&path)?, path, f.full_fen))
            }
            None => None,
        },
        pgn_crc,
        dir,
    };
    Ok((outputs, resumed))
}

/// A new run's files: games.csv and figures.csv with their headers, the PGN started as
/// `pgn_mode` says, and the position files empty (files of an earlier start that played no game
/// are replaced).
fn start_new_files(config: &MatchConfig) -> Result<(), ArenaError> {
    let dir = &config.output.dir;
    let csv_path = dir.join("games.csv");
    let pgn_path = dir.join(&config.output.pgn_name);
    let mut header = Vec::new();
    write_games_csv_header(&mut header).map_err(io_error(&csv_path))?;
    replace_file(&csv_path, &header)?;
    match config.output.pgn_mode {
        PgnMode::Append => start_appended_pgn(dir, &pgn_path)?,
        PgnMode::New | PgnMode::Replace => replace_file(&pgn_path, b"")?,
    }
    if config.output.positions && config.output.positions_format.epd() {
        replace_file(&dir.join("positions.epd"), b"")?;
    }
    if config.output.positions && config.output.positions_format.bullet() {
        replace_file(&dir.join(BULLET_FILE), b"")?;
        replace_file(
            &dir.join(BULLET_INDEX_FILE),
            format!("{BULLET_INDEX_HEADER}\n").as_bytes(),
        )?;
    }
    let figures_path = dir.join(FIGURES_FILE);
    let mut header = Vec::new();
    write_figures_header(&mut header).map_err(io_error(&figures_path))?;
    replace_file(&figures_path, &header)
}

/// Creates and locks the output directory, and checks it against the run: a fresh run needs a
/// directory without results; a resumed one needs the same game-deciding settings.
pub(super) fn claim_output_dir(
    config: &MatchConfig,
    resume: bool,
    now: Fingerprint,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<(OutputLock, Fingerprint), ArenaError> {
    let dir = &config.output.dir;
    if dir.exists() && !dir.is_dir() {
        return Err(ArenaError::OutputNotDirectory {
            config: config.source.clone(),
            dir: dir.clone(),
        });
    }
    std::fs::create_dir_all(dir).map_err(io_error(dir))?;
    let lock = OutputLock::acquire(dir)?;
    let pgn_counts = config.output.pgn_mode == PgnMode::New;
    let has_results = dir.join("games.csv").exists()
        || (pgn_counts && dir.join(&config.output.pgn_name).exists());
    if !resume && !pgn_counts {
        set_previous_run_aside(dir)?;
    } else if resume {
        match Fingerprint::read(dir)? {
            Some(before) => before.check(&now, dir)?,
            None if has_results => on_event(Event::ResumedWithoutFingerprint { dir }),
            None => {}
        }
    } else if has_results {
        return Err(ArenaError::OutputExists {
            dir: dir.display().to_string(),
        });
    }
    Ok((lock, now))
}
