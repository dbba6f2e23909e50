//! `sparring ratings PATH...`: the joint maximum-likelihood ratings of any run's games (a
//! gauntlet, a round robin, a merge, a run still going, another runner's PGN), the table a run of three or more
//! engines ends with, and on request an anchor and the difference of two engines. Which inputs
//! hold the same games is the library's rule (`arena::gather_rated_games`); this renders its notes.

use super::UsageError;
use anyhow::Context;
use sparring::arena::joint_ratings;
use sparring::arena::{gather_rated_games, GatheredGames, RatingsSource, SourceFormat};
use sparring::stats::{
    fixed, Anchor, Difference, JointRatings, RatingOptions, DEFAULT_RESAMPLES, DEFAULT_SEED,
};
use std::path::{Path, PathBuf};

/// `sparring ratings`: joint ratings from runs' games.csv files or any runner's PGN files.
#[derive(Debug, clap::Args)]
pub struct RatingsArgs {
    /// Runs' output directories (their games.csv is read), games.csv files, or PGN files
    /// (`.pgn`, any runner's: the White, Black, Result, Round and FEN tags are read), rated
    /// together. A game given twice is counted once, with a note, when its source shows it is
    /// the same game: a file given again (the same path, another spelling of it, or a
    /// byte-for-byte copy), or a games.csv and a PGN in one run directory whose games share a
    /// GameId (their players, round and result must agree, or the input is refused). Games are
    /// never matched by their tags or moves alone: two runs' games can share both, so games
    /// from different files of different directories always count.
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
    if let Some([a, b]) = args.compare.as_deref() {
        if a == b {
            return Err(UsageError(format!(
                "--compare: {a} against itself (name two different engines)"
            ))
            .into());
        }
    }
    let inputs = args
        .paths
        .iter()
        .map(|path| source_of(path))
        .collect::<Result<Vec<_>, _>>()?;
    let GatheredGames {
        names,
        games: rated,
        notes,
    } = gather_rated_games(&inputs)?;
    for note in &notes {
        outln!("{note}")?;
    }
    let mut sources: Vec<String> = Vec::new();
    for input in &inputs {
        let file = input.file.display().to_string();
        if !sources.contains(&file) {
            sources.push(file);
        }
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
        outln!("{line}")?;
    }
    if let Some((a, b)) = compare {
        outln!("{}", difference_line(&ratings, a, b))?;
    }
    Ok(())
}

/// What a path names: a run directory's games.csv, a `.pgn` file, or a games.csv file.
fn source_of(path: &Path) -> Result<RatingsSource, UsageError> {
    let is_pgn = |p: &Path| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("pgn"));
    let (file, format) = if path.is_dir() {
        (path.join("games.csv"), SourceFormat::GamesCsv)
    } else if is_pgn(path) {
        (path.to_path_buf(), SourceFormat::Pgn)
    } else {
        (path.to_path_buf(), SourceFormat::GamesCsv)
    };
    if !file.exists() {
        let what = if path.is_dir() {
            "holds no games.csv (is it a run's output directory?)"
        } else {
            "no such file or directory"
        };
        return Err(UsageError(format!("{}: {what}", path.display())));
    }
    Ok(RatingsSource {
        given: path.to_path_buf(),
        file,
        format,
    })
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
