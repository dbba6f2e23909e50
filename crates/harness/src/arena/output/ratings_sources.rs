//! The games `sparring ratings` rates, gathered from its inputs (runs' games.csv files and any
//! runner's PGN files) with each game counted once, however often it is given.
//!
//! Two records are taken as one game only when their source says so; games are never matched
//! by what they look like, since two different games can share every tag (the same opening,
//! players and round in two runs of one schedule), and even their moves:
//! - a file given again (the same path twice, another spelling of it, a run directory and its
//!   games.csv, or a byte-for-byte copy) repeats every game of the first;
//! - a games.csv and a PGN in the same directory are the records of one run, and the games
//!   with the same GameId there are one game (the PGN sparring writes carries the run's game
//!   id in its `GameId` tag); their players, round and result must agree, or the input is
//!   refused naming both records.
//!
//! Anything else is counted: two runs' PGNs with equal tags and moves, or a run's PGN copied
//! out of its directory beside the run, rate as the separate games they may be.

use super::ratings::{rated_games, rated_pgn_games};
use crate::board::GameResult;
use crate::error::{ErrorClass, Failure};
use crate::record::{parse_pgn_results, read_finished_games, GamesCsvError, PgnResultsError};
use crate::stats::RatedGame;
use std::collections::HashMap;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::io;
use std::path::{Path, PathBuf};

/// What an input of `sparring ratings` holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceFormat {
    /// A run's games.csv.
    GamesCsv,
    /// A PGN file, any runner's.
    Pgn,
}

/// One input of `sparring ratings`.
#[derive(Clone, Debug)]
pub struct RatingsSource {
    /// The path as the user gave it (a run directory, a games.csv, a PGN), for notes.
    pub given: PathBuf,
    /// The file read.
    pub file: PathBuf,
    /// Its format.
    pub format: SourceFormat,
}

/// What gathering the games found worth telling the user; none stops the rating.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GatherNote {
    /// Games of a PGN marked `*` (not finished), left out.
    Unfinished {
        /// The PGN.
        file: PathBuf,
        /// How many.
        games: usize,
    },
    /// Finished games of `repeat` that `original` (an input given earlier) already holds,
    /// counted once.
    GivenTwice {
        /// The later input, as given.
        repeat: PathBuf,
        /// The earlier input holding the games, as given.
        original: PathBuf,
        /// How many games.
        games: usize,
    },
}

impl fmt::Display for GatherNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GatherNote::Unfinished { file, games } => write!(
                f,
                "{}: {games} unfinished game(s) (Result \"*\") left out",
                file.display()
            ),
            GatherNote::GivenTwice {
                repeat,
                original,
                games,
            } => write!(
                f,
                "note: {games} game{} given twice ({} repeats {}); counted once",
                if *games == 1 { "" } else { "s" },
                repeat.display(),
                original.display()
            ),
        }
    }
}

/// Why the inputs cannot be rated together.
#[derive(Debug, thiserror::Error)]
pub enum GatherError {
    /// A games.csv that cannot be read.
    #[error(transparent)]
    GamesCsv(#[from] GamesCsvError),
    /// A PGN that cannot be read.
    #[error(transparent)]
    Pgn(#[from] PgnResultsError),
    /// A file that cannot be read.
    #[error("{}: cannot read: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// Two records of one game of a run (one GameId in one directory) that disagree.
    #[error("{0}")]
    Disagree(Box<Disagreement>),
}

/// Two records of one game of a run that disagree: which is right cannot be told.
#[derive(Debug, thiserror::Error)]
#[error(
    "game {game_id} of {} is recorded twice and the records disagree: {first} says \
     {first_says}, {second} says {second_says} (which is right cannot be told: give one of \
     them)",
    dir.display()
)]
pub struct Disagreement {
    /// The run's directory.
    pub dir: PathBuf,
    /// The game id.
    pub game_id: u64,
    /// The first record: `DIR/games.csv` or `FILE.pgn line N`.
    pub first: String,
    /// What it records: `white-black result`, and the round when the rounds differ.
    pub(crate) first_says: String,
    /// The second record.
    pub second: String,
    /// What it records.
    pub(crate) second_says: String,
}

impl ErrorClass for GatherError {
    fn class(&self) -> Failure {
        match self {
            GatherError::GamesCsv(e) => e.class(),
            GatherError::Pgn(e) => e.class(),
            GatherError::Io { .. } => Failure::FailedRun,
            GatherError::Disagree(_) => Failure::BadInput,
        }
    }
}

/// The games of all inputs as the fit takes them, each counted once, engines numbered in the
/// order they first appear.
#[derive(Debug, Default)]
pub struct GatheredGames {
    /// The engines' names.
    pub names: Vec<String>,
    /// The games; pair ids are per input, the next input's counting on from the last one's.
    pub games: Vec<RatedGame>,
    /// What to tell the user, in input order.
    pub notes: Vec<GatherNote>,
}

/// What a run's game id recorded first says, to check a later record of it against.
struct Recorded {
    source: usize,
    place: String,
    white: String,
    black: String,
    round: Option<String>,
    result: GameResult,
}

impl Recorded {
    /// `white-black result`, with the round when `other`'s differs.
    fn says(&self, other: &Recorded) -> String {
        let mut says = format!("{}-{} {}", self.white, self.black, self.result);
        if self.round != other.round {
            let round = self.round.as_deref().unwrap_or("?");
            says.push_str(&format!(" in round {round}"));
        }
        says
    }

    fn agrees(&self, other: &Recorded) -> bool {
        (&self.white, &self.black, &self.round, self.result)
            == (&other.white, &other.black, &other.round, other.result)
    }
}

/// One input's finished games before the duplicates are taken out: each with its run game id
/// (if its source has one) and what it records.
struct Read {
    unfinished: usize,
    rated: Vec<RatedGame>,
    records: Vec<(Option<u64>, Recorded)>,
}

/// Reads every input and gathers its games, each game counted once (see the module's rule).
pub fn gather_rated_games(sources: &[RatingsSource]) -> Result<GatheredGames, GatherError> {
    let mut out = GatheredGames::default();
    // Content hash -> the inputs with that content, to find a file given again.
    let mut contents: HashMap<u64, Vec<usize>> = HashMap::new();
    // (directory, game id) -> the first record of that game of the run.
    let mut by_id: HashMap<(PathBuf, u64), Recorded> = HashMap::new();
    for (index, source) in sources.iter().enumerate() {
        let bytes = std::fs::read(&source.file).map_err(|e| GatherError::Io {
            path: source.file.clone(),
            source: e,
        })?;
        let hash = content_hash(&bytes);
        let repeated = match contents.get(&hash) {
            Some(earlier) => first_same_content(sources, earlier, &bytes)?,
            None => None,
        };
        contents.entry(hash).or_default().push(index);
        let first_pair = out.games.iter().map(|g| g.pair + 1).max().unwrap_or(0);
        let read = read_source(source, index, &bytes, &mut out, first_pair)?;
        if let Some(original) = repeated {
            out.notes.push(GatherNote::GivenTwice {
                repeat: source.given.clone(),
                original: sources[original].given.clone(),
                games: read.rated.len(),
            });
            continue;
        }
        if read.unfinished > 0 {
            out.notes.push(GatherNote::Unfinished {
                file: source.file.clone(),
                games: read.unfinished,
            });
        }
        let dir = run_directory(&source.file);
        let mut repeats: Vec<(usize, usize)> = Vec::new();
        for (rated, (game_id, record)) in read.rated.into_iter().zip(read.records) {
            let key = game_id.zip(dir.clone()).map(|(id, dir)| (dir, id));
            if let Some(key) = key {
                match by_id.get(&key) {
                    Some(first) if first.source != index => {
                        if !first.agrees(&record) {
                            return Err(GatherError::Disagree(Box::new(Disagreement {
                                dir: key.0.clone(),
                                game_id: key.1,
                                first: first.place.clone(),
                                first_says: first.says(&record),
                                second: record.place.clone(),
                                second_says: record.says(first),
                            })));
                        }
                        match repeats.iter_mut().find(|(s, _)| *s == first.source) {
                            Some((_, n)) => *n += 1,
                            None => repeats.push((first.source, 1)),
                        }
                        continue;
                    }
                    Some(_) => {}
                    None => {
                        by_id.insert(key, record);
                    }
                }
            }
            out.games.push(rated);
        }
        for (original, games) in repeats {
            out.notes.push(GatherNote::GivenTwice {
                repeat: source.given.clone(),
                original: sources[original].given.clone(),
                games,
            });
        }
    }
    Ok(out)
}

/// Reads one input's finished games (and counts its unfinished ones), engines added to
/// `out`'s names, pair ids from `first_pair`.
fn read_source(
    source: &RatingsSource,
    index: usize,
    bytes: &[u8],
    out: &mut GatheredGames,
    first_pair: u64,
) -> Result<Read, GatherError> {
    let file = &source.file;
    match source.format {
        SourceFormat::GamesCsv => {
            let games = read_finished_games(file)?;
            let rated = rated_games(&mut out.names, &games)
                .into_iter()
                .map(|g| RatedGame {
                    pair: g.pair + first_pair,
                    ..g
                })
                .collect();
            let records = games
                .iter()
                .map(|g| {
                    let record = Recorded {
                        source: index,
                        place: file.display().to_string(),
                        white: g.white.clone(),
                        black: g.black.clone(),
                        round: Some(g.round.to_string()),
                        result: g.result,
                    };
                    (Some(g.game_id), record)
                })
                .collect();
            Ok(Read {
                unfinished: 0,
                rated,
                records,
            })
        }
        SourceFormat::Pgn => {
            let games = parse_pgn_results(bytes, file)?;
            let unfinished = games.iter().filter(|g| g.result.is_none()).count();
            let rated = rated_pgn_games(&mut out.names, &games, first_pair);
            let records = games
                .iter()
                .filter_map(|g| {
                    let record = Recorded {
                        source: index,
                        place: format!("{} line {}", file.display(), g.line),
                        white: g.white.clone(),
                        black: g.black.clone(),
                        round: g.round.clone(),
                        result: g.result?,
                    };
                    Some((g.game_id, record))
                })
                .collect();
            Ok(Read {
                unfinished,
                rated,
                records,
            })
        }
    }
}

/// The directory whose run a file's game ids belong to: the one holding it (canonical, so two
/// spellings of it are one), or None when it cannot be told.
fn run_directory(file: &Path) -> Option<PathBuf> {
    file.canonicalize().ok()?.parent().map(Path::to_path_buf)
}

/// A hash of a file's bytes (within one process only).
fn content_hash(bytes: &[u8]) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut hasher);
    hasher.finish()
}

/// The first of the `earlier` inputs (same content hash) whose bytes are `bytes`, compared in full.
fn first_same_content(
    sources: &[RatingsSource],
    earlier: &[usize],
    bytes: &[u8],
) -> Result<Option<usize>, GatherError> {
    for &i in earlier {
        let file = &sources[i].file;
        let other = std::fs::read(file).map_err(|e| GatherError::Io {
            path: file.clone(),
            source: e,
        })?;
        if other == bytes {
            return Ok(Some(i));
        }
    }
    Ok(None)
}
