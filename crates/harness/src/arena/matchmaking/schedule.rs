//! The tournament schedule: which engines play which game from which opening. Game `n` is
//! computed from its number alone, so the schedule needs no memory per round and a resumed run
//! sees exactly the same games.

use crate::arena::config::{OpeningOrder, Seeds, TournamentKind};
use crate::board::Position;
use crate::error::{ErrorClass, Failure};
use crate::openings::{
    find_chess960_start, BookOptions, FormatNameError, Opening, OpeningBook, OpeningFormat,
    OpeningsError,
};
use crate::rng::Rng;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where openings come from: an opening book, or the start position.
pub trait OpeningSource: Send + Sync {
    /// How many distinct openings there are; None for generators such as Polyglot books.
    fn count(&self) -> Option<usize>;
    /// Opening `index` (for generators, `rng` draws it).
    fn opening(&self, index: usize, rng: &mut Rng) -> Opening;
}

impl OpeningSource for OpeningBook {
    fn count(&self) -> Option<usize> {
        self.len()
    }

    fn opening(&self, index: usize, rng: &mut Rng) -> Opening {
        OpeningBook::opening(self, index, rng)
    }
}

/// Every game from the standard start position (no book configured).
pub struct StartPosition;

impl OpeningSource for StartPosition {
    fn count(&self) -> Option<usize> {
        Some(1)
    }

    fn opening(&self, _index: usize, _rng: &mut Rng) -> Opening {
        Opening {
            id: 0,
            start: Position::startpos(),
            moves: Vec::new(),
        }
    }
}

/// The openings of a Chess960 run without a book: every round starts from one of the 960
/// start positions, its Scharnagl number drawn from the round's seeded stream (so both games
/// of a pair, and every pairing of the round, share it). The opening's id is the number.
pub struct Chess960Starts;

impl OpeningSource for Chess960Starts {
    fn count(&self) -> Option<usize> {
        None
    }

    fn opening(&self, _index: usize, rng: &mut Rng) -> Opening {
        let number = rng.below(960) as u16;
        Opening {
            id: usize::from(number),
            start: crate::board::chess960::start_position(number)
                .expect("a Scharnagl number below 960"),
            moves: Vec::new(),
        }
    }
}

/// The book a configuration's `[openings]` table names, as `match` and `spsa` both read it.
#[derive(Clone, Copy, Debug)]
pub struct BookRequest<'a> {
    /// `openings.file`.
    pub file: &'a Path,
    /// `openings.format`; None: from the file's extension.
    pub format: Option<&'a str>,
    /// `openings.plies`.
    pub plies: Option<usize>,
    /// `openings.start` (1-based).
    pub start: usize,
    /// Whether the games are Chess960; a standard run refuses a book with a Chess960 setup.
    pub chess960: bool,
}

/// Why a configured book cannot be used; each names the `[openings]` field at fault.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BookSetupError {
    /// `openings.format` is not a format name.
    #[error("`openings.format`: {0}")]
    Format(#[from] FormatNameError),
    /// The book cannot be opened or read.
    #[error("`openings.file`: {0}")]
    Open(#[from] OpeningsError),
    /// A standard-chess run was given a book holding a Chess960 setup.
    #[error(
        "{}: line {line}: `{fen}` has Chess960 castling rights, and the games are standard \
         chess (a match plays Chess960 with `variant = \"chess960\"` in [tournament], \
         `-variant fischerandom` on the command line); use a standard book",
        file.display()
    )]
    Chess960InStandard {
        /// The book.
        file: PathBuf,
        /// The 1-based line of the first Chess960 setup.
        line: usize,
        /// Its FEN.
        fen: String,
    },
}

impl ErrorClass for BookSetupError {
    fn class(&self) -> Failure {
        match self {
            BookSetupError::Format(source) => source.class(),
            BookSetupError::Open(source) => source.class(),
            BookSetupError::Chess960InStandard { .. } => Failure::BadInput,
        }
    }
}

/// The openings a match configuration plays: its `[openings]` book, or without one the
/// standard start position (Chess960: start positions drawn from the seed). The book's skipped
/// lines come back beside it, for the caller to report.
pub fn openings_of(
    config: &crate::arena::MatchConfig,
) -> Result<(Arc<dyn OpeningSource>, Vec<crate::openings::BadLine>), BookSetupError> {
    let Some(o) = &config.openings else {
        let source: Arc<dyn OpeningSource> = if config.variant.is_chess960() {
            Arc::new(Chess960Starts)
        } else {
            Arc::new(StartPosition)
        };
        return Ok((source, Vec::new()));
    };
    let request = BookRequest {
        file: &o.file,
        format: o.format.as_deref(),
        plies: o.plies,
        start: o.start,
        chess960: config.variant.is_chess960(),
    };
    let book = open_book(&request)?;
    let rejected = book.rejected().to_vec();
    Ok((Arc::new(book), rejected))
}

/// Opens the book `request` names; its skipped lines are in [`OpeningBook::rejected`].
pub fn open_book(request: &BookRequest<'_>) -> Result<OpeningBook, BookSetupError> {
    let format = request
        .format
        .map(str::parse::<OpeningFormat>)
        .transpose()?;
    let options = BookOptions {
        plies: request.plies,
        start: request.start,
        ..Default::default()
    };
    let book = OpeningBook::open(request.file, format, options)?;
    if !request.chess960 {
        // Played as standard chess, a Chess960 start would lose its castling rights' meaning.
        let bytes = std::fs::read(request.file).map_err(|source| OpeningsError::Io {
            path: request.file.to_path_buf(),
            source,
        })?;
        if let Some((line, fen)) = find_chess960_start(&bytes, book.format()) {
            return Err(BookSetupError::Chess960InStandard {
                file: request.file.to_path_buf(),
                line,
                fen,
            });
        }
    }
    Ok(book)
}

/// One scheduled game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameSpec {
    /// 1-based; games 2k-1 and 2k are pair k.
    pub game_id: u64,
    /// 1-based number of the colour-reversed pair (games 2k-1 and 2k).
    pub pair_id: u64,
    /// 1-based round: every pairing plays the same opening in one round.
    pub round: u64,
    /// Index into `Schedule::pairings`.
    pub pairing: usize,
    /// Engine indices, White first.
    pub engines: [usize; 2],
    /// 0-based index of the opening to ask the opening source for.
    pub(crate) opening_index: usize,
}

/// The whole tournament's game list, computed game by game from the game number.
pub struct Schedule {
    /// (first, second): statistics are from the first engine's point of view.
    pub pairings: Vec<(usize, usize)>,
    /// How many times every pairing is played, as a colour-reversed pair (`tournament.rounds`).
    pub rounds: u64,
    opening_count: Option<usize>,
    order: OpeningOrder,
    /// 0-based first opening.
    offset: usize,
    /// Multiplier of the seeded permutation of openings (coprime with their number).
    stride: usize,
    shift: usize,
    /// Each game its own opening (self-play data) rather than one per pair.
    per_game: bool,
    /// The last round plays one game per pairing (an odd number of games per pairing).
    single_last_game: bool,
    /// The engines the pairings were made for, and how (`with_seeds` remakes them).
    engines: usize,
    kind: TournamentKind,
    /// `tournament.swap_sides` (default true): the second game of a pair reverses the colours.
    swap_sides: bool,
    /// `tournament.reverse_sides`: every game with the colours the schedule would give swapped.
    reverse_sides: bool,
}

/// The pairings in the order of a round, each (first, second) with the seed (or the earlier
/// engine) first: seed by seed, its opponents in the configuration's order, as cutechess-cli
/// and fastchess play them.
pub(crate) fn pairings(kind: TournamentKind, engines: usize, seeds: Seeds) -> Vec<(usize, usize)> {
    match kind {
        TournamentKind::Gauntlet => {
            let count = seeds.count.clamp(1, engines.saturating_sub(1).max(1));
            (0..count)
                .flat_map(|i| {
                    let from = if seeds.play_each_other { i + 1 } else { count };
                    (from..engines).map(move |j| (i, j))
                })
                .collect()
        }
        TournamentKind::RoundRobin => (0..engines)
            .flat_map(|i| (i + 1..engines).map(move |j| (i, j)))
            .collect(),
    }
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

impl Schedule {
    /// The schedule for `engines` engines over `rounds` rounds. Openings cycle through
    /// `opening_count` from 1-based `start`, in file order or a permutation seeded by `seed`.
    pub fn new(
        kind: TournamentKind,
        engines: usize,
        rounds: u64,
        opening_count: Option<usize>,
        order: OpeningOrder,
        start: usize,
        seed: u64,
    ) -> Schedule {
        let pairings = pairings(kind, engines, Seeds::default());
        // A seeded affine map i -> (stride * i + shift) mod n visits every opening once per cycle
        // in a shuffled order without storing a permutation.
        let mut rng = Rng::derive(seed, 0x6f70_656e);
        let n = opening_count.unwrap_or(1).max(1);
        let mut stride = 1;
        if n > 1 {
            loop {
                stride = 1 + rng.below(n as u64 - 1) as usize;
                if gcd(stride, n) == 1 {
                    break;
                }
            }
        }
        let shift = rng.below(n as u64) as usize;
        Schedule {
            pairings,
            rounds,
            opening_count,
            order,
            offset: start.saturating_sub(1),
            stride,
            shift,
            per_game: false,
            single_last_game: false,
            engines,
            kind,
            swap_sides: true,
            reverse_sides: false,
        }
    }

    /// A gauntlet with `seeds` seeds (`tournament.seeds`); a round robin has none and is kept.
    pub(crate) fn with_seeds(mut self, seeds: Seeds) -> Schedule {
        self.pairings = pairings(self.kind, self.engines, seeds);
        self
    }

    /// The colours of each pair's games: `swap` reverses them in the second game (the
    /// default; cutechess's and fastchess's `-noswap` turn it off), `reverse` swaps every game's
    /// (`-reverse`).
    pub(crate) fn with_sides(mut self, swap: bool, reverse: bool) -> Schedule {
        self.swap_sides = swap;
        self.reverse_sides = reverse;
        self
    }

    /// The engines of a pairing's game, White first: the first engine is White in a pair's
    /// first game, unless the sides are reversed, and swaps in its second unless they are not.
    fn sides(&self, (first, second): (usize, usize), second_game: bool) -> [usize; 2] {
        if (second_game && self.swap_sides) != self.reverse_sides {
            [second, first]
        } else {
            [first, second]
        }
    }

    /// Plays only the first game of each pairing's last pair (`tournament.single_last_game`).
    pub(crate) fn with_single_last_game(mut self, single: bool) -> Schedule {
        self.single_last_game = single && self.rounds > 0;
        self
    }

    /// Gives every game its own opening: game `n` takes the opening a pair-based schedule would
    /// give round `n`, so the openings are still a seeded permutation.
    pub(crate) fn with_openings_per_game(mut self, per_game: bool) -> Schedule {
        self.per_game = per_game;
        self
    }

    /// The stream that draws game `spec`'s opening and random moves: shared by a pair, or the
    /// game's own with openings per game.
    pub(crate) fn opening_stream(&self, spec: &GameSpec) -> u64 {
        if self.per_game {
            spec.game_id << 32
        } else {
            spec.round
        }
    }

    /// The number of games in the whole tournament: two per pairing per round (one in the last
    /// round with `single_last_game`).
    pub fn total_games(&self) -> u64 {
        let per_round = self.pairings.len() as u64;
        let games = self.rounds * per_round * 2;
        if self.single_last_game {
            games - per_round
        } else {
            games
        }
    }

    /// The opening used in 0-based round `round`.
    pub fn opening_for_round(&self, round: u64) -> usize {
        match self.opening_count {
            None => round as usize,
            Some(n) => {
                let n = n.max(1);
                let r = (round as usize).wrapping_add(self.offset) % n;
                match self.order {
                    OpeningOrder::Sequential => r,
                    OpeningOrder::Random => {
                        ((self.stride as u128 * r as u128 + self.shift as u128) % n as u128)
                            as usize
                    }
                }
            }
        }
    }

    /// Game number `n` (0-based) of the schedule.
    pub fn game(&self, n: u64) -> GameSpec {
        let per_round = self.pairings.len() as u64;
        let last_round_start = self.rounds.saturating_sub(1) * per_round * 2;
        if self.single_last_game && n >= last_round_start {
            return self.single_game(n, n - last_round_start);
        }
        let pair_index = n / 2;
        let round = pair_index / per_round;
        let pairing = (pair_index % per_round) as usize;
        let engines = self.sides(self.pairings[pairing], n % 2 == 1);
        GameSpec {
            game_id: n + 1,
            pair_id: pair_index + 1,
            round: round + 1,
            pairing,
            engines,
            opening_index: self.opening_for_round(if self.per_game { n } else { round }),
        }
    }
}

impl Schedule {
    /// Game `n`, the first (and only) game of pairing `pairing`'s pair in the last round.
    fn single_game(&self, n: u64, pairing: u64) -> GameSpec {
        let per_round = self.pairings.len() as u64;
        let round = self.rounds - 1;
        GameSpec {
            game_id: n + 1,
            pair_id: round * per_round + pairing + 1,
            round: round + 1,
            pairing: pairing as usize,
            engines: self.sides(self.pairings[pairing as usize], false),
            opening_index: self.opening_for_round(if self.per_game { n } else { round }),
        }
    }
}

/// One of `count` slices of a schedule, numbered from 0 as Slurm array tasks and Kubernetes
/// completion indexes are. A shard plays a contiguous block of whole pairs, so its games are one
/// id range and the block sizes of the shards differ by at most one pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Shard {
    /// 0-based index, below `count`.
    pub index: u64,
    /// How many shards the run is split into (at least 1).
    pub count: u64,
}

/// A shard given wrongly.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum ShardError {
    /// Not of the form `I/N`.
    #[error("`{0}` is not a shard: write it as I/N with 0 <= I < N, e.g. 0/4")]
    Malformed(String),
    /// The index is not below the count.
    #[error("shard index {index} is out of range for {count} shard(s): indexes run from 0 to {}", count.saturating_sub(1))]
    OutOfRange {
        /// The index given.
        index: u64,
        /// The count given.
        count: u64,
    },
    /// A count of 0.
    #[error("the shard count must be at least 1")]
    ZeroCount,
}

impl ErrorClass for ShardError {
    fn class(&self) -> Failure {
        match self {
            ShardError::Malformed(_) | ShardError::OutOfRange { .. } | ShardError::ZeroCount => {
                Failure::BadInput
            }
        }
    }
}

impl Shard {
    /// Shard `index` of `count`, checked.
    pub fn new(index: u64, count: u64) -> Result<Shard, ShardError> {
        if count == 0 {
            return Err(ShardError::ZeroCount);
        }
        if index >= count {
            return Err(ShardError::OutOfRange { index, count });
        }
        Ok(Shard { index, count })
    }

    /// Parses `I/N`.
    pub fn parse(text: &str) -> Result<Shard, ShardError> {
        let malformed = || ShardError::Malformed(text.to_string());
        let (i, n) = text.trim().split_once('/').ok_or_else(malformed)?;
        let index = i.trim().parse().map_err(|_| malformed())?;
        let count = n.trim().parse().map_err(|_| malformed())?;
        Shard::new(index, count)
    }

    /// The 0-based game numbers this shard plays out of `total_games` (two per pair): pairs
    /// `floor(i * P / N)` up to `floor((i + 1) * P / N)`.
    pub fn games(&self, total_games: u64) -> std::ops::Range<u64> {
        self.games_of(0..total_games)
    }

    /// The shard's block of a range of whole pairs (a wave's games): as `games`, counted from
    /// the range's start.
    pub(crate) fn games_of(&self, range: std::ops::Range<u64>) -> std::ops::Range<u64> {
        let pairs = u128::from(range.end.saturating_sub(range.start) / 2);
        let bound = |i: u64| {
            range.start + (pairs * u128::from(i) / u128::from(self.count.max(1))) as u64 * 2
        };
        bound(self.index)..bound(self.index + 1)
    }

    /// The shard's directory name under the configured output directory: `shard-I-of-N`.
    pub fn dir_name(&self) -> String {
        format!("shard-{}-of-{}", self.index, self.count)
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// A fixed-size block of pairs in schedule order, for running a long match (an SPRT's upper
/// bound of rounds) a block at a time: wave `index` holds pairs `index * pairs` up to
/// `(index + 1) * pairs` (the last wave may be shorter). Waves `0..=K` are therefore the first
/// pairs of the run, whatever the size, which is what lets a driver stop submitting waves
/// when the SPRT on the merged waves decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Wave {
    /// 0-based wave number.
    pub index: u64,
    /// Pairs per wave (at least 1).
    pub pairs: u64,
}

/// A wave given wrongly.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum WaveError {
    /// A wave size of 0.
    #[error("the wave size must be at least 1 pair")]
    ZeroPairs,
    /// A wave past the run's last.
    #[error("wave {index} is past the end of the run: its {total_pairs} pair(s) in waves of {pairs} are waves 0 to {}", last_wave(*total_pairs, *pairs))]
    PastTheEnd {
        /// The wave asked for.
        index: u64,
        /// The wave size.
        pairs: u64,
        /// The pairs of the whole run.
        total_pairs: u64,
    },
}

impl ErrorClass for WaveError {
    fn class(&self) -> Failure {
        match self {
            WaveError::ZeroPairs | WaveError::PastTheEnd { .. } => Failure::BadInput,
        }
    }
}

fn last_wave(total_pairs: u64, pairs: u64) -> u64 {
    total_pairs.div_ceil(pairs.max(1)).saturating_sub(1)
}

impl Wave {
    /// Wave `index` of `pairs` pairs each, checked against a schedule of `total_games`.
    pub fn new(index: u64, pairs: u64, total_games: u64) -> Result<Wave, WaveError> {
        if pairs == 0 {
            return Err(WaveError::ZeroPairs);
        }
        if index >= Wave::count(pairs, total_games) {
            return Err(WaveError::PastTheEnd {
                index,
                pairs,
                total_pairs: total_games / 2,
            });
        }
        Ok(Wave { index, pairs })
    }

    /// How many waves of `pairs` pairs a schedule of `total_games` games has.
    pub fn count(pairs: u64, total_games: u64) -> u64 {
        (total_games / 2).div_ceil(pairs.max(1))
    }

    /// The 0-based game numbers of this wave out of `total_games` (empty past the end).
    pub fn games(&self, total_games: u64) -> std::ops::Range<u64> {
        let total_pairs = total_games / 2;
        let bound = |i: u64| i.saturating_mul(self.pairs).min(total_pairs) * 2;
        bound(self.index)..bound(self.index.saturating_add(1))
    }
}

/// What one process of a run plays: the whole schedule, one wave of it, a shard of it, or a
/// shard of one wave (the wave's pairs split as shards split the run's).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Slice {
    /// The wave, if the run is played in waves.
    pub wave: Option<Wave>,
    /// The shard of the run (or of the wave).
    pub shard: Option<Shard>,
}

impl Slice {
    /// The 0-based game numbers of this slice out of `total_games`.
    pub fn games(&self, total_games: u64) -> std::ops::Range<u64> {
        let range = match self.wave {
            Some(wave) => wave.games(total_games),
            None => 0..total_games,
        };
        match self.shard {
            Some(shard) => shard.games_of(range),
            None => range,
        }
    }

    /// The directory name under `output.dir`: `wave-K`, `shard-I-of-N`, `wave-K-shard-I-of-N`;
    /// `None` for the whole run.
    pub fn dir_name(&self) -> Option<String> {
        match (self.wave, self.shard) {
            (None, None) => None,
            (None, Some(shard)) => Some(shard.dir_name()),
            (Some(wave), None) => Some(format!("wave-{}", wave.index)),
            (Some(wave), Some(shard)) => Some(format!("wave-{}-{}", wave.index, shard.dir_name())),
        }
    }

    /// The command-line flags that play this slice: `--wave 3 --wave-pairs 64 --shard 1/4`.
    pub fn flags(&self) -> String {
        let mut flags = Vec::new();
        if let Some(wave) = self.wave {
            flags.push(format!("--wave {} --wave-pairs {}", wave.index, wave.pairs));
        }
        if let Some(shard) = self.shard {
            flags.push(format!("--shard {shard}"));
        }
        flags.join(" ")
    }
}

/// `shard 2/4`, `wave 3`, `wave 3 shard 2/4`, `the run`.
impl std::fmt::Display for Slice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.wave, self.shard) {
            (None, None) => write!(f, "the run"),
            (None, Some(shard)) => write!(f, "shard {shard}"),
            (Some(wave), None) => write!(f, "wave {}", wave.index),
            (Some(wave), Some(shard)) => write!(f, "wave {} shard {shard}", wave.index),
        }
    }
}

/// 1-based game ids as compact text: `1-8, 11, 13-16` (empty: `none`).
pub(crate) fn describe_game_ids(ids: impl IntoIterator<Item = u64>) -> String {
    describe_id_ranges(&id_ranges(ids))
}

/// Ascending ids as ranges of consecutive ids.
pub(crate) fn id_ranges(ids: impl IntoIterator<Item = u64>) -> Vec<RangeInclusive<u64>> {
    let mut ranges: Vec<RangeInclusive<u64>> = Vec::new();
    for id in ids {
        match ranges.last_mut() {
            Some(r) if *r.end() + 1 == id => *r = *r.start()..=id,
            _ => ranges.push(id..=id),
        }
    }
    ranges
}

/// Ranges of ids as compact text: `1-8, 11, 13-16` (empty: `none`).
pub(crate) fn describe_id_ranges(ranges: &[RangeInclusive<u64>]) -> String {
    if ranges.is_empty() {
        return "none".to_string();
    }
    ranges
        .iter()
        .map(|r| {
            if r.start() == r.end() {
                r.start().to_string()
            } else {
                format!("{}-{}", r.start(), r.end())
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_configured_book_names_the_field_and_refuses_chess960_setups_in_standard_games() {
        let dir = std::env::temp_dir().join(format!("sparring-open-book-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let book = dir.join("mixed.epd");
        std::fs::write(
            &book,
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n\
             nrnkbbqr/pppppppp/8/8/8/8/PPPPPPPP/NRNKBBQR w KQkq - 0 1\n",
        )
        .unwrap();
        let mut request = BookRequest {
            file: &book,
            format: None,
            plies: None,
            start: 1,
            chess960: false,
        };
        let err = open_book(&request).unwrap_err();
        assert!(
            matches!(&err, BookSetupError::Chess960InStandard { line: 2, .. }),
            "{err}"
        );
        assert!(err
            .to_string()
            .starts_with(&format!("{}: line 2: ", book.display())));
        request.chess960 = true;
        assert_eq!(open_book(&request).unwrap().len(), Some(2));
        request.format = Some("fen-ish");
        let err = open_book(&request).unwrap_err().to_string();
        assert!(err.starts_with("`openings.format`: "), "{err}");
        let missing = dir.join("missing.epd");
        request.format = None;
        request.file = &missing;
        let err = open_book(&request).unwrap_err().to_string();
        assert!(err.starts_with("`openings.file`: "), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Issue 21, 6: an odd number of games per pairing ends with one game per pairing, colours
    /// still alternating, game ids contiguous.
    #[test]
    fn a_single_last_game_gives_an_odd_number_of_games_per_pairing() {
        let s = Schedule::new(
            TournamentKind::Gauntlet,
            2,
            2,
            Some(10),
            OpeningOrder::Sequential,
            1,
            1,
        )
        .with_openings_per_game(true)
        .with_single_last_game(true);
        assert_eq!(s.total_games(), 3);
        let games: Vec<GameSpec> = (0..3).map(|n| s.game(n)).collect();
        let ids: Vec<(u64, u64, [usize; 2])> = games
            .iter()
            .map(|g| (g.game_id, g.pair_id, g.engines))
            .collect();
        assert_eq!(ids, [(1, 1, [0, 1]), (2, 1, [1, 0]), (3, 2, [0, 1])]);
        assert_eq!(
            games.iter().map(|g| g.opening_index).collect::<Vec<_>>(),
            [0, 1, 2],
            "each game its own opening"
        );
        let three = Schedule::new(
            TournamentKind::Gauntlet,
            3,
            1,
            None,
            OpeningOrder::Sequential,
            1,
            1,
        )
        .with_single_last_game(true);
        assert_eq!(three.total_games(), 2);
        assert_eq!(three.game(0).engines, [0, 1]);
        assert_eq!(three.game(1).engines, [0, 2]);
        assert_eq!((three.game(1).pair_id, three.game(1).pairing), (2, 1));
    }

    /// cutechess-cli's seeds (gauntlettournament.cpp) never meet: seed by seed, each plays the
    /// non-seeds in order. fastchess's (gauntlet/scheduler.hpp) also play the seeds after them.
    #[test]
    fn seeds_play_the_rest_in_cutechess_and_fastchess_order() {
        let schedule = |seeds| {
            Schedule::new(
                TournamentKind::Gauntlet,
                5,
                2,
                None,
                OpeningOrder::Sequential,
                1,
                1,
            )
            .with_seeds(seeds)
        };
        let cutechess = schedule(Seeds {
            count: 2,
            play_each_other: false,
        });
        assert_eq!(
            cutechess.pairings,
            vec![(0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4)]
        );
        assert_eq!(cutechess.total_games(), 2 * 6 * 2);
        // Each pairing's pair shares a round's opening and reverses the colours.
        let games: Vec<GameSpec> = (0..cutechess.total_games())
            .map(|n| cutechess.game(n))
            .collect();
        assert_eq!(games[6].engines, [1, 2]);
        assert_eq!(games[7].engines, [2, 1]);
        assert_eq!((games[11].round, games[12].round), (1, 2));
        let fastchess = schedule(Seeds {
            count: 2,
            play_each_other: true,
        });
        assert_eq!(
            fastchess.pairings,
            vec![(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4)]
        );
        // At most engines - 1 seeds; one seed is the plain gauntlet.
        let all = schedule(Seeds {
            count: 9,
            play_each_other: false,
        });
        assert_eq!(all.pairings, vec![(0, 4), (1, 4), (2, 4), (3, 4)]);
        assert_eq!(
            schedule(Seeds::default()).pairings,
            vec![(0, 1), (0, 2), (0, 3), (0, 4)]
        );
        // A round robin has no seeds.
        let rr = Schedule::new(
            TournamentKind::RoundRobin,
            3,
            1,
            None,
            OpeningOrder::Sequential,
            1,
            1,
        )
        .with_seeds(Seeds {
            count: 2,
            play_each_other: false,
        });
        assert_eq!(rr.pairings, vec![(0, 1), (0, 2), (1, 2)]);
    }

    /// `-noswap` keeps a pair's colours, `-reverse` swaps every game's, as fastchess's
    /// roundrobin.cpp and cutechess's tournament.cpp do; the single last game follows them.
    #[test]
    fn sides_follow_noswap_and_reverse() {
        let sides = |swap, reverse| {
            let s = Schedule::new(
                TournamentKind::Gauntlet,
                2,
                2,
                None,
                OpeningOrder::Sequential,
                1,
                1,
            )
            .with_single_last_game(true)
            .with_sides(swap, reverse);
            (0..s.total_games())
                .map(|n| s.game(n).engines)
                .collect::<Vec<_>>()
        };
        assert_eq!(sides(true, false), [[0, 1], [1, 0], [0, 1]]);
        assert_eq!(sides(false, false), [[0, 1], [0, 1], [0, 1]]);
        assert_eq!(sides(true, true), [[1, 0], [0, 1], [1, 0]]);
        assert_eq!(sides(false, true), [[1, 0], [1, 0], [1, 0]]);
    }

    #[test]
    fn pairs_share_openings_and_reverse_colours() {
        let s = Schedule::new(
            TournamentKind::RoundRobin,
            3,
            4,
            Some(10),
            OpeningOrder::Random,
            1,
            7,
        );
        assert_eq!(s.pairings, vec![(0, 1), (0, 2), (1, 2)]);
        assert_eq!(s.total_games(), 24);
        for n in (0..s.total_games()).step_by(2) {
            let (a, b) = (s.game(n), s.game(n + 1));
            assert_eq!(a.pair_id, b.pair_id);
            assert_eq!(a.opening_index, b.opening_index);
            assert_eq!(a.engines, [b.engines[1], b.engines[0]]);
            assert_eq!((a.game_id, b.game_id), (2 * a.pair_id - 1, 2 * a.pair_id));
        }
    }

    #[test]
    fn openings_per_game_give_each_game_its_own() {
        let s = Schedule::new(
            TournamentKind::Gauntlet,
            2,
            50,
            Some(100),
            OpeningOrder::Random,
            1,
            5,
        )
        .with_openings_per_game(true);
        let mut seen: Vec<usize> = (0..100).map(|n| s.game(n).opening_index).collect();
        let streams: std::collections::HashSet<u64> =
            (0..100).map(|n| s.opening_stream(&s.game(n))).collect();
        assert_eq!(streams.len(), 100);
        assert_eq!(s.game(0).engines, [0, 1]);
        assert_eq!(s.game(1).engines, [1, 0]);
        seen.sort_unstable();
        assert_eq!(seen, (0..100).collect::<Vec<_>>(), "each opening once");
    }

    #[test]
    fn random_order_is_a_seeded_permutation() {
        let n = 97;
        let s = Schedule::new(
            TournamentKind::Gauntlet,
            2,
            n as u64,
            Some(n),
            OpeningOrder::Random,
            1,
            3,
        );
        let mut seen: Vec<usize> = (0..n as u64).map(|r| s.opening_for_round(r)).collect();
        let again = Schedule::new(
            TournamentKind::Gauntlet,
            2,
            n as u64,
            Some(n),
            OpeningOrder::Random,
            1,
            3,
        );
        assert_eq!(
            seen,
            (0..n as u64)
                .map(|r| again.opening_for_round(r))
                .collect::<Vec<_>>()
        );
        assert_ne!(seen, (0..n).collect::<Vec<_>>(), "shuffled");
        seen.sort_unstable();
        assert_eq!(seen, (0..n).collect::<Vec<_>>(), "each opening once");
        let seq = Schedule::new(
            TournamentKind::Gauntlet,
            2,
            5,
            Some(10),
            OpeningOrder::Sequential,
            9,
            3,
        );
        assert_eq!(
            (0..3).map(|r| seq.opening_for_round(r)).collect::<Vec<_>>(),
            vec![8, 9, 0]
        );
    }

    #[test]
    fn shards_cover_the_schedule_in_whole_pairs_once() {
        for total in [0u64, 2, 6, 16, 34, 200] {
            for count in 1..=7 {
                let mut next = 0;
                for index in 0..count {
                    let games = Shard::new(index, count).unwrap().games(total);
                    assert_eq!(games.start, next, "contiguous");
                    assert_eq!(games.start % 2, 0, "whole pairs");
                    assert_eq!(games.end % 2, 0, "whole pairs");
                    let pairs = (games.end - games.start) / 2;
                    assert!(pairs.abs_diff(total / 2 / count) <= 1, "balanced");
                    next = games.end;
                }
                assert_eq!(next, total, "nothing missing");
            }
        }
        assert_eq!(Shard::parse("2/4").unwrap().games(32), 16..24);
    }

    #[test]
    fn shards_parse_and_refuse_bad_text() {
        assert_eq!(Shard::parse(" 3/8 ").unwrap(), Shard { index: 3, count: 8 });
        assert_eq!(Shard::parse("3/8").unwrap().to_string(), "3/8");
        assert_eq!(Shard::parse("3/8").unwrap().dir_name(), "shard-3-of-8");
        assert_eq!(
            Shard::parse("4/4"),
            Err(ShardError::OutOfRange { index: 4, count: 4 })
        );
        assert_eq!(Shard::parse("0/0"), Err(ShardError::ZeroCount));
        assert!(matches!(
            Shard::parse("1of4"),
            Err(ShardError::Malformed(_))
        ));
        assert!(matches!(
            Shard::parse("-1/4"),
            Err(ShardError::Malformed(_))
        ));
    }

    #[test]
    fn waves_are_consecutive_blocks_and_their_shards_split_them() {
        // 13 pairs in waves of 5: 5, 5 and 3 pairs.
        let total = 26;
        assert_eq!(Wave::count(5, total), 3);
        let games: Vec<_> = (0..3)
            .map(|k| Wave::new(k, 5, total).unwrap().games(total))
            .collect();
        assert_eq!(games, vec![0..10, 10..20, 20..26]);
        assert_eq!(
            Wave::new(3, 5, total),
            Err(WaveError::PastTheEnd {
                index: 3,
                pairs: 5,
                total_pairs: 13
            })
        );
        assert_eq!(Wave::new(0, 0, total), Err(WaveError::ZeroPairs));
        // The shards of a wave cover it in whole pairs, once.
        for count in 1..=4 {
            let mut next = 20;
            for index in 0..count {
                let slice = Slice {
                    wave: Some(Wave { index: 2, pairs: 5 }),
                    shard: Some(Shard::new(index, count).unwrap()),
                };
                let range = slice.games(total);
                assert_eq!(range.start, next);
                assert_eq!((range.end - range.start) % 2, 0);
                next = range.end;
            }
            assert_eq!(next, 26);
        }
        let slice = Slice {
            wave: Some(Wave { index: 2, pairs: 5 }),
            shard: Some(Shard::new(1, 4).unwrap()),
        };
        assert_eq!(slice.dir_name().unwrap(), "wave-2-shard-1-of-4");
        assert_eq!(slice.to_string(), "wave 2 shard 1/4");
        assert_eq!(slice.flags(), "--wave 2 --wave-pairs 5 --shard 1/4");
        assert_eq!(Slice::default().games(total), 0..26);
    }

    #[test]
    fn game_ids_are_described_as_ranges() {
        assert_eq!(describe_game_ids([1, 2, 3, 5, 7, 8]), "1-3, 5, 7-8");
        assert_eq!(describe_game_ids(Vec::new()), "none");
    }
}
