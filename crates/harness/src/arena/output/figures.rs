//! `figures.csv`: what each engine did in each game of a run, shard or wave (moves, depth,
//! nodes, thinking time, compliance warnings), written by the run and read back by `--resume`
//! and the merge, so a resumed run's or a merge's per-engine figures cover every game.
//!
//! Rows of game 0 are not games: they count the option warnings found when the run (or its
//! latest `--resume`) started the engines, so a report read from the directory has them.

use super::pairing::EngineFigures;
use crate::error::{ErrorClass, Failure};
use std::io::Write;
use std::time::Duration;

/// The per-game engine figures file of a run's directory.
pub(crate) const FIGURES_FILE: &str = "figures.csv";

const FIGURES_HEADER: &str = "game_id,engine,games,moves,depth_sum,depth_moves,nodes,\
nodes_time_ns,think_time_ns,clock_games,time_left_ns,time_forfeits,disconnects,stalls,\
illegal_moves,compliance_warnings";

/// The header before the `compliance_warnings` column (its rows count none).
const FIGURES_HEADER_WITHOUT_WARNINGS: &str = "game_id,engine,games,moves,depth_sum,depth_moves,\
nodes,nodes_time_ns,think_time_ns,clock_games,time_left_ns,time_forfeits,disconnects,stalls,\
illegal_moves";

/// The `game_id` of the rows that count warnings found before the games.
pub(crate) const START_WARNINGS_GAME: u64 = 0;

/// Writes the header of `figures.csv`.
pub(crate) fn write_figures_header(out: &mut impl Write) -> std::io::Result<()> {
    writeln!(out, "{FIGURES_HEADER}")
}

/// Appends what engine `engine` (configuration index) did in game `game_id`.
pub(crate) fn write_figures_row(
    out: &mut impl Write,
    game_id: u64,
    engine: usize,
    f: &EngineFigures,
) -> std::io::Result<()> {
    let ns = |d: Duration| d.as_nanos().min(u128::from(u64::MAX)) as u64;
    writeln!(
        out,
        "{game_id},{engine},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
        f.games,
        f.moves,
        f.depth_sum,
        f.depth_moves,
        f.nodes,
        ns(f.nodes_time),
        ns(f.think_time),
        f.clock_games,
        ns(f.time_left),
        f.time_forfeits,
        f.disconnects,
        f.stalls,
        f.illegal_moves,
        f.compliance_warnings
    )
}

/// A whole `figures.csv` of `rows` (game id, engine, figures) in the order given; without
/// `with_warnings`, in the form from before the `compliance_warnings` column (so a file made
/// from such files does not claim counts of zero).
pub(crate) fn figures_text<'a>(
    rows: impl IntoIterator<Item = (u64, usize, &'a EngineFigures)>,
    with_warnings: bool,
) -> Vec<u8> {
    let mut out = Vec::new();
    let header = if with_warnings {
        FIGURES_HEADER
    } else {
        FIGURES_HEADER_WITHOUT_WARNINGS
    };
    let _ = writeln!(out, "{header}");
    for (game, engine, f) in rows {
        let mut row = Vec::new();
        write_figures_row(&mut row, game, engine, f).expect("writing into memory cannot fail");
        if !with_warnings {
            // Drop the last column: its comma and its count, keeping the newline.
            let comma = row.iter().rposition(|&b| b == b',').unwrap_or(row.len());
            row.truncate(comma);
            row.push(b'\n');
        }
        out.extend_from_slice(&row);
    }
    out
}

/// What is wrong with a `figures.csv` (the caller names the file).
#[derive(thiserror::Error, Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FiguresError {
    /// The first line is not the figures.csv header.
    #[error("line 1: not the figures.csv header")]
    Header,
    /// A line (not a cut-off last one) that is not a row of figures.
    #[error("line {line}: not a figures row")]
    Row {
        /// The line (1-based).
        line: usize,
    },
}

impl ErrorClass for FiguresError {
    fn class(&self) -> Failure {
        match self {
            // A damaged file of a run the user pointed at: input to repair or replay.
            FiguresError::Header | FiguresError::Row { .. } => Failure::BadInput,
        }
    }
}

/// What a `figures.csv` holds.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct FiguresRows {
    /// (game id, engine index, figures), in file order.
    pub rows: Vec<(u64, usize, EngineFigures)>,
    /// The file has the `compliance_warnings` column (one written before it existed has not:
    /// its rows count 0).
    pub(crate) has_warnings: bool,
}

/// The rows of a `figures.csv`, with or without its `compliance_warnings` column. A last line
/// cut short by a kill is skipped; another bad line is an error naming its line number.
pub(crate) fn read_figures(text: &str) -> Result<FiguresRows, FiguresError> {
    let mut rows = Vec::new();
    let mut columns = 16;
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    for (i, line) in lines.iter().enumerate() {
        if i == 0 {
            columns = match line.trim_end() {
                FIGURES_HEADER => 16,
                FIGURES_HEADER_WITHOUT_WARNINGS => 15,
                _ => return Err(FiguresError::Header),
            };
            continue;
        }
        let parsed: Option<Vec<u64>> = line
            .trim_end()
            .split(',')
            .map(|f| f.parse::<u64>().ok())
            .collect();
        let fields = match parsed {
            Some(fields) if fields.len() == columns && line.ends_with('\n') => fields,
            _ if i + 1 == lines.len() => break,
            _ => return Err(FiguresError::Row { line: i + 1 }),
        };
        let figures = EngineFigures {
            games: fields[2],
            moves: fields[3],
            depth_sum: fields[4],
            depth_moves: fields[5],
            nodes: fields[6],
            nodes_time: Duration::from_nanos(fields[7]),
            think_time: Duration::from_nanos(fields[8]),
            clock_games: fields[9],
            time_left: Duration::from_nanos(fields[10]),
            time_forfeits: fields[11],
            disconnects: fields[12],
            stalls: fields[13],
            illegal_moves: fields[14],
            compliance_warnings: fields.get(15).copied().unwrap_or(0),
        };
        rows.push((fields[0], fields[1] as usize, figures));
    }
    Ok(FiguresRows {
        rows,
        has_warnings: columns == 16,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_rows_round_trip_and_a_cut_last_line_is_skipped() {
        let f = EngineFigures {
            games: 1,
            moves: 30,
            depth_sum: 200,
            depth_moves: 30,
            nodes: 9000,
            nodes_time: Duration::from_nanos(123_456_789),
            think_time: Duration::from_nanos(123_456_790),
            clock_games: 1,
            time_left: Duration::from_millis(900),
            time_forfeits: 0,
            disconnects: 1,
            stalls: 0,
            illegal_moves: 0,
            compliance_warnings: 3,
        };
        let mut text = Vec::new();
        write_figures_header(&mut text).unwrap();
        write_figures_row(&mut text, 7, 1, &f).unwrap();
        let mut text = String::from_utf8(text).unwrap();
        let read = read_figures(&text).unwrap();
        assert_eq!(read.rows, vec![(7, 1, f.clone())]);
        assert!(read.has_warnings);
        text.push_str("8,0,1,2");
        assert_eq!(
            read_figures(&text).unwrap().rows.len(),
            1,
            "cut-off tail skipped"
        );
        let damaged = text.replace("7,1,", "7,x,") + "\n";
        assert_eq!(read_figures(&damaged), Err(FiguresError::Row { line: 2 }));
        assert_eq!(
            read_figures(&damaged).unwrap_err().to_string(),
            "line 2: not a figures row"
        );
        assert_eq!(read_figures("game_id\n"), Err(FiguresError::Header));
    }

    #[test]
    fn a_file_from_before_the_warnings_column_reads_with_none() {
        let text =
            format!("{FIGURES_HEADER_WITHOUT_WARNINGS}\n5,0,1,40,300,40,9000,1,1,0,0,0,0,0,1\n");
        let read = read_figures(&text).unwrap();
        assert!(!read.has_warnings);
        assert_eq!(read.rows.len(), 1);
        assert_eq!(
            (
                read.rows[0].2.illegal_moves,
                read.rows[0].2.compliance_warnings
            ),
            (1, 0)
        );
        // A 16-field row under the old header is damage, not a row.
        let mixed = format!(
            "{text}6,1,1,40,300,40,9000,1,1,0,0,0,0,0,0,2\n{}",
            &text[text.find('\n').unwrap() + 1..]
        );
        assert_eq!(read_figures(&mixed), Err(FiguresError::Row { line: 3 }));
    }
}
