//! `figures.csv`: what each engine did in each game of a run, shard or wave (moves, depth,
//! nodes, thinking time), written by the run and read back by `--resume` and the merge, so a
//! resumed run's or a merge's per-engine figures cover every game.

use super::pairing::EngineFigures;
use crate::error::{ErrorClass, Failure};
use std::io::Write;
use std::time::Duration;

/// The per-game engine figures file of a run's directory.
pub const FIGURES_FILE: &str = "figures.csv";

const FIGURES_HEADER: &str = "game_id,engine,games,moves,depth_sum,depth_moves,nodes,\
nodes_time_ns,think_time_ns,clock_games,time_left_ns,time_forfeits,disconnects,stalls,\
illegal_moves";

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
        "{game_id},{engine},{},{},{},{},{},{},{},{},{},{},{},{},{}",
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
        f.illegal_moves
    )
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

/// The rows of a `figures.csv`: (game id, engine index, figures). A last line cut short by a
/// kill is skipped; another bad line is an error naming its line number.
pub(crate) fn read_figures(text: &str) -> Result<Vec<(u64, usize, EngineFigures)>, FiguresError> {
    let mut rows = Vec::new();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    for (i, line) in lines.iter().enumerate() {
        if i == 0 {
            if line.trim_end() != FIGURES_HEADER {
                return Err(FiguresError::Header);
            }
            continue;
        }
        let parsed: Option<Vec<u64>> = line
            .trim_end()
            .split(',')
            .map(|f| f.parse::<u64>().ok())
            .collect();
        let fields = match parsed {
            Some(fields) if fields.len() == 15 && line.ends_with('\n') => fields,
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
            compliance_warnings: 0,
        };
        rows.push((fields[0], fields[1] as usize, figures));
    }
    Ok(rows)
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
            compliance_warnings: 0,
        };
        let mut text = Vec::new();
        write_figures_header(&mut text).unwrap();
        write_figures_row(&mut text, 7, 1, &f).unwrap();
        let mut text = String::from_utf8(text).unwrap();
        assert_eq!(read_figures(&text).unwrap(), vec![(7, 1, f.clone())]);
        text.push_str("8,0,1,2");
        assert_eq!(
            read_figures(&text).unwrap().len(),
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
}
