//! `sparring ratings PATH...`: the joint maximum-likelihood ratings of any run's games (a
//! gauntlet, a round robin, a merge, a run still going, another runner's PGN), the table a run of three or more
//! engines ends with, and on request an anchor and the difference of two engines.

use super::UsageError;
use anyhow::Context;
use sparring::arena::ratings::rated_pgn_games;
use sparring::arena::{joint_ratings, rated_games};
use sparring::record::{read_finished_games, read_pgn_results};
use sparring::stats::{
    fixed, Anchor, Difference, JointRatings, RatedGame, RatingOptions, DEFAULT_RESAMPLES,
    DEFAULT_SEED,
};
use std::path::{Path, PathBuf};

/// `sparring ratings`: joint ratings from runs' games.csv files or any runner's PGN files.
#[derive(Debug, clap::Args)]
pub struct RatingsArgs {
    /// Runs' output directories (their games.csv is read), games.csv files, or PGN files
    /// (`.pgn`, any runner's: the White, Black, Result, Round and FEN tags are read), rated
    /// together.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Hold this engine at --anchor-rating instead of putting the mean at 0.
    #[arg(long, value_name = "NAME")]
    pub anchor: Option<String>,
    /// The anchor's rating (default 0).
    #[arg(
        long,
        value_name = "ELO",
        requires = "anchor",
        allow_hyphen_values = true
    )]
    pub anchor_rating: Option<f64>,
    /// Also print A's rating minus B's, with its 95 % interval from the same resamples.
    #[arg(long, num_args = 2, value_names = ["A", "B"])]
    pub compare: Option<Vec<String>>,
    /// Bootstrap resamples of the game pairs (100 to 100000).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_RESAMPLES)]
    pub resamples: u32,
    /// The bootstrap's seed (the default is the runner's, which gives its ratings.csv).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_SEED)]
    pub seed: u64,
}

/// `sparring ratings`.
pub fn run(args: &RatingsArgs) -> anyhow::Result<()> {
    let mut names = Vec::new();
    let mut rated: Vec<RatedGame> = Vec::new();
    let mut sources = Vec::new();
    for path in &args.paths {
        let input = Input::of(path)?;
        // Pair ids are per file: the next file's count on from the last one's.
        let first_pair = rated.iter().map(|g| g.pair + 1).max().unwrap_or(0);
        match &input {
            Input::GamesCsv(csv) => {
                let games = read_finished_games(csv)?;
                rated.extend(
                    rated_games(&mut names, &games)
                        .into_iter()
                        .map(|g| RatedGame {
                            pair: g.pair + first_pair,
                            ..g
                        }),
                );
            }
            Input::Pgn(pgn) => {
                let games = read_pgn_results(pgn)?;
                let unfinished = games.iter().filter(|g| g.result.is_none()).count();
                if unfinished > 0 {
                    println!(
                        "{}: {unfinished} unfinished game(s) (Result \"*\") left out",
                        pgn.display()
                    );
                }
                rated.extend(rated_pgn_games(&mut names, &games, first_pair));
            }
        }
        sources.push(input.file().display().to_string());
    }
    let sources = sources.join(", ");
    let index = |option: &str, name: &str| engine_index(&names, &sources, option, name);
    let anchor = match &args.anchor {
        Some(name) => Some(Anchor {
            engine: index("--anchor", name)?,
            rating: args.anchor_rating.unwrap_or(0.0),
        }),
        None => None,
    };
    let compare = match args.compare.as_deref() {
        Some([a, b]) => Some((index("--compare", a)?, index("--compare", b)?)),
        _ => None,
    };
    let options = RatingOptions {
        anchor,
        resamples: args.resamples,
        seed: args.seed,
    };
    let ratings = joint_ratings(&names, &rated, &options).with_context(|| sources.clone())?;
    for line in table(&ratings) {
        println!("{line}");
    }
    if let Some((a, b)) = compare {
        println!("{}", difference_line(&ratings, a, b));
    }
    Ok(())
}

/// A file `sparring ratings` reads.
enum Input {
    /// A run's games.csv.
    GamesCsv(PathBuf),
    /// A PGN file, any runner's.
    Pgn(PathBuf),
}

impl Input {
    /// What a path names: a run directory's games.csv, a `.pgn` file, or a games.csv file.
    fn of(path: &Path) -> Result<Input, UsageError> {
        let is_pgn = |p: &Path| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("pgn"));
        let input = if path.is_dir() {
            Input::GamesCsv(path.join("games.csv"))
        } else if is_pgn(path) {
            Input::Pgn(path.to_path_buf())
        } else {
            Input::GamesCsv(path.to_path_buf())
        };
        if !input.file().exists() {
            let what = if path.is_dir() {
                "holds no games.csv (is it a run's output directory?)"
            } else {
                "no such file or directory"
            };
            return Err(UsageError(format!("{}: {what}", path.display())));
        }
        Ok(input)
    }

    /// The file read.
    fn file(&self) -> &Path {
        match self {
            Input::GamesCsv(p) | Input::Pgn(p) => p,
        }
    }
}

/// The index of an engine named on the command line, or an error listing the engines there.
fn engine_index(
    names: &[String],
    sources: &str,
    option: &str,
    name: &str,
) -> anyhow::Result<usize> {
    names.iter().position(|n| n == name).ok_or_else(|| {
        UsageError(format!(
            "{option}: no engine named {name:?} in {sources} (engines: {})",
            names.join(", ")
        ))
        .into()
    })
}

/// The joint ratings table: a heading saying what they are, one line per engine, best first,
/// and what the error is (what a run of three or more engines prints after its ranking).
pub fn table(ratings: &JointRatings) -> Vec<String> {
    let options = ratings.options();
    let basis = match options.anchor {
        Some(a) => format!(
            "{} held at {}",
            ratings.engines()[a.engine].name,
            fixed(a.rating, 1)
        ),
        None => "mean 0".to_string(),
    };
    let width = ratings
        .engines()
        .iter()
        .map(|e| e.name.chars().count())
        .max()
        .unwrap_or(0)
        .max(25);
    let mut lines = vec![
        format!(
            "Maximum-likelihood joint ratings (one logistic Elo curve fitted to all games, \
             draws as half points; {basis}):"
        ),
        format!(
            "{:>4} {:<width$} {:>9} {:>8} {:>7} {:>7}",
            "Rank", "Name", "Rating", "+/-", "Games", "Score"
        ),
    ];
    for (rank, e) in ratings.ranked().iter().enumerate() {
        let score = e
            .score()
            .map_or("n/a".to_string(), |s| fixed(100.0 * s, 1) + "%");
        lines.push(format!(
            "{:>4} {:<width$} {:>9.1} {:>8} {:>7} {:>7}",
            rank + 1,
            e.name,
            e.rating,
            one_decimal(e.interval.half_width()),
            e.games,
            score
        ));
    }
    lines.push(format!(
        "+/-: half the 95 % interval over {} bootstrap resamples of the game pairs",
        options.resamples
    ));
    lines
}

/// `A - B: 138.5 (95 %: 96.0 to 192.7)`.
pub fn difference_line(ratings: &JointRatings, a: usize, b: usize) -> String {
    let Difference { estimate, interval } = ratings.difference(a, b);
    format!(
        "{} - {}: {estimate:.1} (95 %: {} to {})",
        ratings.engines()[a].name,
        ratings.engines()[b].name,
        one_decimal(interval.lower),
        one_decimal(interval.upper)
    )
}

/// `12.3`, `inf`, `-inf`.
fn one_decimal(value: f64) -> String {
    if value.is_finite() {
        fixed(value, 1)
    } else if value > 0.0 {
        "inf".to_string()
    } else {
        "-inf".to_string()
    }
}
