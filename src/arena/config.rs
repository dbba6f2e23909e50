//! The match configuration (TOML). The file's shape is derived with serde (unknown keys are
//! errors); ranges and cross-field rules are checked in plain code afterwards. Every error names
//! the file, line and column, the dotted key and what was expected.

use crate::available_cores;
use crate::stats::{SprtModel, SprtParams};
pub use crate::toml_config::ConfigError;
use crate::toml_config::{read_text, Document};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Who plays whom: `tournament.kind`, `"gauntlet"` (default) or `"round-robin"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TournamentKind {
    /// The first engine plays every other engine.
    Gauntlet,
    /// Every engine plays every other engine.
    RoundRobin,
}

/// The rules the games are played by: `tournament.variant`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Variant {
    /// Standard chess (the default). An opening with Chess960 castling rights is refused.
    #[default]
    Standard,
    /// Chess960 (Fischer Random), `"chess960"` (also `"fischerandom"`, fastchess's name): external
    /// engines get `UCI_Chess960` and castle king takes rook, the PGN says `Variant "Chess960"`.
    /// Double Fischer Random is this variant with a DFRC opening suite.
    Chess960,
}

impl Variant {
    /// The configuration's name for it: `standard` or `chess960`.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Standard => "standard",
            Variant::Chess960 => "chess960",
        }
    }

    /// Whether games are Chess960 games.
    pub fn is_chess960(self) -> bool {
        self == Variant::Chess960
    }
}

/// How long each move may take.
#[derive(Clone, Debug, PartialEq)]
pub enum TimeControl {
    /// `time_control.nodes`: every move is searched to this many nodes (`go nodes`).
    Nodes(u64),
    /// `time_control.depth`: every move is searched to this depth in plies (`go depth`), 1 to 127.
    Depth(u32),
    /// `time_control.movetime_ms`: a fixed thinking time per move (`go movetime`), 1 ms to 24 h.
    MoveTime(Duration),
    /// `moves/base+increment`; `moves` None for sudden death with increment.
    Clock {
        /// Moves per period; after that many moves `base` is added to the clock again.
        moves: Option<u32>,
        /// Time on the clock at the start of the game (and added at every new period).
        base: Duration,
        /// Time added to the mover's clock after each of its moves.
        increment: Duration,
    },
}

impl std::fmt::Display for TimeControl {
    /// The console form: `5000 nodes`, `10 plies`, `0.5/move`, `10+0.1`, `40/60+0.6`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TimeControl::Nodes(n) => write!(f, "{n} nodes"),
            TimeControl::Depth(d) => write!(f, "{d} plies"),
            TimeControl::MoveTime(t) => write!(f, "{}/move", t.as_secs_f64()),
            TimeControl::Clock {
                moves,
                base,
                increment,
            } => {
                if let Some(m) = moves {
                    write!(f, "{m}/")?;
                }
                write!(f, "{}+{}", base.as_secs_f64(), increment.as_secs_f64())
            }
        }
    }
}

impl TimeControl {
    /// The PGN `TimeControl` tag: `40/60+0.6` or `10+0.1` for clocks, `-` (none) otherwise.
    pub fn pgn_tag(&self) -> String {
        match self {
            TimeControl::Clock { .. } => self.to_string(),
            _ => "-".to_string(),
        }
    }

    /// Parses `10+0.1`, `40/60+0.6`, `60` (seconds).
    pub fn parse_clock(text: &str) -> Option<TimeControl> {
        let (moves, rest) = match text.split_once('/') {
            Some((m, rest)) => (Some(m.trim().parse::<u32>().ok().filter(|&m| m > 0)?), rest),
            None => (None, text),
        };
        let (base, increment) = match rest.split_once('+') {
            Some((b, i)) => (b, i),
            None => (rest, "0"),
        };
        let seconds = |s: &str| parse_seconds(s.trim());
        let base = seconds(base)?;
        if base.is_zero() {
            return None;
        }
        Some(TimeControl::Clock {
            moves,
            base,
            increment: seconds(increment)?,
        })
    }
}

/// Parses a non-negative decimal number of seconds (`12`, `0.125`, `8.50`) exactly, to the
/// nanosecond, so a time control written back as text reads in as the same duration.
pub fn parse_seconds(text: &str) -> Option<Duration> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    if (whole.is_empty() && fraction.is_empty()) || !digits(whole) || !digits(fraction) {
        return None;
    }
    let secs: u64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    // Digits past the nanosecond must be zeros: a duration holds nothing finer.
    if fraction.len() > 9 && fraction[9..].bytes().any(|b| b != b'0') {
        return None;
    }
    let mut nanos = 0u32;
    for i in 0..9 {
        nanos = nanos * 10
            + fraction
                .as_bytes()
                .get(i)
                .map_or(0, |b| u32::from(b - b'0'));
    }
    Some(Duration::new(secs, nanos))
}

/// A duration as the shortest exact decimal number of seconds (`12.5`, `0.09`, `10`): the
/// inverse of `parse_seconds`.
pub fn seconds_text(duration: Duration) -> String {
    let nanos = duration.subsec_nanos();
    if nanos == 0 {
        return duration.as_secs().to_string();
    }
    let fraction = format!("{nanos:09}");
    format!("{}.{}", duration.as_secs(), fraction.trim_end_matches('0'))
}

/// How the rounds walk through the opening suite: `openings.order`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpeningOrder {
    /// A seeded permutation of the suite (the default); the same seed gives the same order.
    Random,
    /// The suite's openings in file order, starting at `openings.start`.
    Sequential,
}

/// The `[openings]` table: where the start positions of the games come from.
#[derive(Clone, Debug, PartialEq)]
pub struct OpeningsConfig {
    /// `openings.file`: the path of the EPD suite, PGN file or Polyglot book (required).
    pub file: PathBuf,
    /// `epd`, `pgn` or `polyglot`; None: guessed from the extension.
    pub format: Option<String>,
    /// `openings.order`: random (default) or sequential.
    pub order: OpeningOrder,
    /// `openings.plies`: PGN games are cut and Polyglot lines drawn to this many plies; None: as
    /// far as the book goes.
    pub plies: Option<usize>,
    /// 1-based index of the first opening to use.
    pub start: usize,
    /// Every game takes its own opening instead of a colour-reversed pair sharing one. Between
    /// identical deterministic engines a pair's second game would repeat the first, so self-play
    /// data generation wants this.
    pub per_game: bool,
    /// Uniformly random legal moves played after the book line: drawn per pair (both games of a
    /// pair get the same moves) or, with `per_game`, per game.
    pub random_plies: usize,
}

/// `adjudication.draw`: ends a long, level game as a draw.
#[derive(Clone, Debug, PartialEq)]
pub struct DrawAdjudication {
    /// Not before this full move number.
    pub move_number: u32,
    /// Consecutive moves of each engine with a score within `score_cp` of zero.
    pub move_count: u32,
    /// `adjudication.draw.score_cp` (centipawns, default 0): the largest absolute score that counts
    /// as level.
    pub score_cp: i32,
}

/// `adjudication.resign`: ends a game as a loss for an engine that keeps reporting a lost score.
#[derive(Clone, Debug, PartialEq)]
pub struct ResignAdjudication {
    /// Consecutive moves of the losing engine at or below `-score_cp`.
    pub move_count: u32,
    /// `adjudication.resign.score_cp` (centipawns, required, at least 1); a mate score against the
    /// engine also counts.
    pub score_cp: i32,
    /// Also require the winner's scores to be at least `score_cp`.
    pub two_sided: bool,
}

/// The `[adjudication]` table; every rule is off unless given.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Adjudication {
    /// `adjudication.draw`; None: no draw adjudication.
    pub draw: Option<DrawAdjudication>,
    /// `adjudication.resign`; None: no resign adjudication.
    pub resign: Option<ResignAdjudication>,
    /// Draw after this many moves by each side, book moves not counted.
    pub max_moves: Option<u32>,
}

/// How an engine is run: an `[[engine]]` table holds exactly one of `builtin` or `uci`.
#[derive(Clone, Debug, PartialEq)]
pub enum EngineKind {
    /// The project's own engine, in process.
    Builtin {
        /// `builtin.weights`: an evaluation weights file; None: the compiled-in weights.
        weights: Option<PathBuf>,
        /// `builtin.hash_mb`: transposition table size in MiB (default 16, at most 65536).
        hash_mb: usize,
        /// `builtin.search`: a search constants file (as `sparring uci --search`); None: the
        /// compiled-in constants.
        search: Option<PathBuf>,
    },
    /// An external UCI engine run as a child process.
    Uci {
        /// `uci.command`: the executable to start (required).
        command: String,
        /// `uci.args`: command-line arguments passed to it (default none).
        args: Vec<String>,
        /// `uci.options`: `setoption` name/value pairs sent at start-up, sorted by name.
        options: Vec<(String, String)>,
        /// `uci.working_dir`: the directory the engine runs in; None: the runner's own.
        working_dir: Option<PathBuf>,
    },
}

/// One `[[engine]]` table.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineConfig {
    /// `engine.name`: unique, non-blank, no control characters; used in records and results.
    pub name: String,
    /// Whether the engine is built in or an external UCI program.
    pub kind: EngineKind,
    /// This engine's own time control (fastchess `-engine tc=`); None: the match's
    /// `[time_control]`.
    pub time_control: Option<TimeControl>,
}

/// Which tool's console lines the results block imitates: `output.format`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ResultsFormat {
    /// fastchess's results block (the default): what the fishtest and OpenBench workers parse.
    #[default]
    Fastchess,
    /// cutechess-cli's `Score of A vs B: ...` and `Elo difference: ...` lines.
    Cutechess,
}

/// `output.pgn_mode`: what a new run (not `--resume`) does with a PGN file that already holds
/// games.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PgnMode {
    /// Refuse the output directory, as for any other result file (the default for TOML runs).
    #[default]
    New,
    /// Add this run's games after the file's games, as fastchess and cutechess-cli do (the
    /// default of their command lines: tuner front ends rerun into one `-pgnout` file).
    Append,
    /// Replace the file (`-pgnout ... append=false`).
    Replace,
}

impl PgnMode {
    /// The TOML spelling.
    pub fn name(self) -> &'static str {
        match self {
            PgnMode::New => "new",
            PgnMode::Append => "append",
            PgnMode::Replace => "replace",
        }
    }
}

/// `output.positions_format`: which files the sampled positions go to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PositionsFormat {
    /// `positions.epd`, the tuner's format (the default).
    #[default]
    Epd,
    /// `positions.bullet` (`FEN | score | result`, the text NNUE trainers read) instead.
    Bullet,
    /// Both files.
    Both,
}

impl PositionsFormat {
    /// The key's value: `epd`, `bullet` or `both`.
    pub fn name(self) -> &'static str {
        match self {
            PositionsFormat::Epd => "epd",
            PositionsFormat::Bullet => "bullet",
            PositionsFormat::Both => "both",
        }
    }

    /// Whether positions.epd is written.
    pub fn epd(self) -> bool {
        self != PositionsFormat::Bullet
    }

    /// Whether positions.bullet is written.
    pub fn bullet(self) -> bool {
        self != PositionsFormat::Epd
    }
}

/// The `[output]` table (required): where the match records go.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputConfig {
    /// `output.dir` (required): the directory for the PGN, results and positions; must not be a
    /// file.
    pub dir: PathBuf,
    /// Also write `positions.epd` for the tuner.
    pub positions: bool,
    /// At most this many positions sampled from each game.
    pub positions_per_game: usize,
    /// `output.positions_format`: positions.epd, positions.bullet or both (with `positions`).
    pub positions_format: PositionsFormat,
    /// Print the results block every this many finished game pairs.
    pub rating_interval: u32,
    /// `output.pgn_name`: the PGN file, a path relative to `dir` (default `games.pgn`; the
    /// fastchess command line gives `../<name>.pgn`, see docs/command-line-dialect.md).
    pub pgn_name: String,
    /// `output.pgn_mode`: what a new run does with a PGN file that already holds games.
    pub pgn_mode: PgnMode,
    /// Every line sent to and received from each engine, and each engine's standard error, is
    /// written to this file with a timestamp; None: no engine log.
    pub engine_log: Option<PathBuf>,
    /// Which tool's results lines the console prints.
    pub format: ResultsFormat,
    /// Print the pentanomial line (`Ptnml(0-2)`) in the results block (default true).
    pub report_penta: bool,
}

/// A checked match configuration, as read by `sparring match` from a TOML file or built from
/// the fastchess/cutechess command line.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchConfig {
    /// Where the configuration came from, for messages.
    pub source: String,
    /// `tournament.event`: the PGN `Event` tag (default "sparring match").
    pub event: String,
    /// `tournament.site`: the PGN `Site` tag (default "?").
    pub site: String,
    /// `tournament.kind`: gauntlet (default) or round-robin.
    pub kind: TournamentKind,
    /// `tournament.variant`: standard (default) or chess960.
    pub variant: Variant,
    /// `tournament.rounds` (default 1): each round plays every pairing twice, colours reversed.
    pub rounds: u32,
    /// `tournament.single_last_game` (default false): the last round plays only the first game
    /// of each pairing's pair, for an odd number of games per pairing (fastchess's `-games 1
    /// -rounds N` with N odd). Pair statistics count the complete pairs; W/D/L every game.
    pub single_last_game: bool,
    /// `tournament.concurrency` (default 1): games played at once; at most the machine's threads.
    pub concurrency: usize,
    /// `tournament.seed` (default 1): seeds the opening order and the random opening moves. A
    /// seed above 2^63 - 1 is written as a string in TOML (`seed = "18446744073709551615"`).
    pub seed: u64,
    /// The `[time_control]` table: exactly one of `nodes`, `depth`, `movetime_ms`, `clock`. An
    /// engine with a `time_control` of its own (its table or `[each]`) plays that instead; the
    /// table may be left out when every engine has one, and then holds the first engine's.
    pub time_control: TimeControl,
    /// Extra time a clock may run over before the move is a time forfeit.
    pub margin: Duration,
    /// How long an engine may stay silent (start-up, isready, or a move without a clock).
    pub timeout: Duration,
    /// The `[openings]` table; None: every game starts from the initial position.
    pub openings: Option<OpeningsConfig>,
    /// The `[adjudication]` table; no rule applies when it is absent.
    pub adjudication: Adjudication,
    /// The `[sprt]` table; None: the match runs all its rounds without a stopping test.
    pub sprt: Option<SprtParams>,
    /// The `[output]` table.
    pub output: OutputConfig,
    /// The `[[engine]]` tables in file order, at least two; in a gauntlet the first plays the rest.
    pub engines: Vec<EngineConfig>,
    /// `tournament.max_restarts` (default 3): how many times in a row an engine may fail to
    /// start or restart before the run stops with an error, instead of forfeiting every
    /// remaining game.
    pub max_restarts: u32,
    /// `tournament.strict_options`: an option an engine did not declare stops the run instead of
    /// giving a warning.
    pub strict_options: bool,
}

/// The file as written: every key optional here, so a missing one gets a message saying what
/// it should hold; the checks in `MatchConfig::parse` give the defaults and the ranges.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MatchFile {
    tournament: Option<TournamentFile>,
    each: Option<EachFile>,
    time_control: Option<TimeControlFile>,
    openings: Option<OpeningsFile>,
    adjudication: Option<AdjudicationFile>,
    sprt: Option<SprtFile>,
    output: Option<OutputFile>,
    engine: Option<Vec<EngineFile>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TournamentFile {
    kind: Option<KindFile>,
    rounds: Option<u32>,
    single_last_game: Option<bool>,
    concurrency: Option<usize>,
    /// An integer, or a string for seeds above 2^63 - 1 (TOML integers are signed 64-bit).
    seed: Option<toml::Value>,
    event: Option<String>,
    site: Option<String>,
    timeout_ms: Option<u64>,
    max_restarts: Option<u32>,
    strict_options: Option<bool>,
    variant: Option<VariantFile>,
}

/// `[each]`: defaults for every `[[engine]]` (fastchess's `-each`); an engine's own value wins.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EachFile {
    time_control: Option<EngineTimeControlFile>,
    /// Applies to the `uci` engines only.
    uci: Option<EachUciFile>,
    /// Applies to the `builtin` engines only.
    builtin: Option<BuiltinFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EachUciFile {
    options: Option<BTreeMap<String, toml::Value>>,
    working_dir: Option<String>,
}

/// An engine's own limit: the `[time_control]` keys without the match-wide margin.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EngineTimeControlFile {
    nodes: Option<u64>,
    depth: Option<u32>,
    movetime_ms: Option<u64>,
    clock: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
enum KindFile {
    Gauntlet,
    #[serde(alias = "roundrobin")]
    RoundRobin,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum VariantFile {
    Standard,
    #[serde(alias = "fischerandom")]
    Chess960,
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct TimeControlFile {
    nodes: Option<u64>,
    depth: Option<u32>,
    movetime_ms: Option<u64>,
    clock: Option<String>,
    margin_ms: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OpeningsFile {
    file: Option<String>,
    format: Option<FormatFile>,
    order: Option<OrderFile>,
    plies: Option<usize>,
    start: Option<usize>,
    per_game: Option<bool>,
    random_plies: Option<usize>,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum FormatFile {
    Epd,
    Pgn,
    Polyglot,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum OrderFile {
    Random,
    Sequential,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AdjudicationFile {
    draw: Option<DrawFile>,
    resign: Option<ResignFile>,
    max_moves: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DrawFile {
    move_number: Option<u32>,
    move_count: Option<u32>,
    score_cp: Option<i32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ResignFile {
    move_count: Option<u32>,
    score_cp: Option<i32>,
    two_sided: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SprtFile {
    elo0: Option<f64>,
    elo1: Option<f64>,
    alpha: Option<f64>,
    beta: Option<f64>,
    model: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OutputFile {
    dir: Option<String>,
    positions: Option<bool>,
    positions_per_game: Option<usize>,
    positions_format: Option<String>,
    rating_interval: Option<u32>,
    pgn_name: Option<String>,
    pgn_mode: Option<String>,
    engine_log: Option<String>,
    format: Option<ResultsFormatFile>,
    report_penta: Option<bool>,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum ResultsFormatFile {
    Fastchess,
    Cutechess,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EngineFile {
    name: Option<String>,
    time_control: Option<EngineTimeControlFile>,
    builtin: Option<BuiltinFile>,
    uci: Option<UciFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BuiltinFile {
    weights: Option<String>,
    hash_mb: Option<usize>,
    search: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UciFile {
    command: Option<String>,
    args: Option<Vec<String>>,
    /// Sorted by name, so engines get their options in a fixed order.
    options: Option<BTreeMap<String, toml::Value>>,
    working_dir: Option<String>,
}

/// A text sent to an engine or written into a record must not hold control characters: a
/// newline in an option would inject a UCI command.
fn has_control(text: &str) -> bool {
    text.chars().any(char::is_control)
}

impl MatchConfig {
    /// Reads and parses the configuration file at `path`; errors name the file, line and key.
    pub fn load(path: &Path) -> Result<MatchConfig, ConfigError> {
        let text = read_text(path)?;
        MatchConfig::parse(&text, &path.display().to_string())
    }

    /// Parses a configuration; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<MatchConfig, ConfigError> {
        let doc = Document::parse(text, file)?;
        let f: MatchFile = doc.deserialize()?;

        let t = f
            .tournament
            .ok_or_else(|| doc.missing("tournament", "a [tournament] table"))?;
        let kind = match t.kind {
            None | Some(KindFile::Gauntlet) => TournamentKind::Gauntlet,
            Some(KindFile::RoundRobin) => TournamentKind::RoundRobin,
        };
        let variant = match t.variant {
            None | Some(VariantFile::Standard) => Variant::Standard,
            Some(VariantFile::Chess960) => Variant::Chess960,
        };
        let rounds = doc.in_range(
            "tournament.rounds",
            t.rounds.unwrap_or(1),
            1,
            Some(100_000_000),
        )?;
        let cores = available_cores();
        let concurrency = t.concurrency.unwrap_or(1);
        if concurrency > cores {
            return Err(doc.invalid_value(
                "tournament.concurrency",
                format!("an integer from 1 to {cores} (the threads this machine runs at once)"),
            ));
        }
        let concurrency = doc.in_range("tournament.concurrency", concurrency, 1, None)?;
        let seed = match t.seed {
            None => 1,
            Some(toml::Value::Integer(i)) => doc.in_range("tournament.seed", i, 0, None)? as u64,
            Some(toml::Value::String(text)) => text.parse::<u64>().map_err(|_| {
                doc.invalid_value(
                    "tournament.seed",
                    "an integer from 0 to 18446744073709551615",
                )
            })?,
            Some(_) => {
                return Err(doc.invalid_value(
                    "tournament.seed",
                    "a non-negative integer (or a string of digits above 2^63 - 1)",
                ))
            }
        };
        let event = t.event.unwrap_or_else(|| "sparring match".to_string());
        let site = t.site.unwrap_or_else(|| "?".to_string());
        for (key, text) in [("tournament.event", &event), ("tournament.site", &site)] {
            if has_control(text) {
                return Err(doc.invalid_value(key, "a text without control characters"));
            }
        }
        let timeout_ms = doc.in_range(
            "tournament.timeout_ms",
            t.timeout_ms.unwrap_or(30_000),
            100,
            Some(3_600_000),
        )?;
        let max_restarts = doc.in_range(
            "tournament.max_restarts",
            t.max_restarts.unwrap_or(3),
            1,
            Some(1000),
        )?;

        let each_limit = f
            .each
            .as_ref()
            .and_then(|e| e.time_control.as_ref())
            .map(|tc| limit(&doc, "each.time_control", tc))
            .transpose()?;
        let own_limits = f.engine.as_ref().is_some_and(|list| {
            each_limit.is_some()
                || (!list.is_empty() && list.iter().all(|e| e.time_control.is_some()))
        });
        if f.time_control.is_none() && !own_limits {
            return Err(doc.missing(
                "time_control",
                "a [time_control] table (or a time_control for every engine)",
            ));
        }
        let tc = f.time_control.unwrap_or_default();
        let match_limit = EngineTimeControlFile {
            nodes: tc.nodes,
            depth: tc.depth,
            movetime_ms: tc.movetime_ms,
            clock: tc.clock,
        };
        let given = match_limit.nodes.is_some()
            || match_limit.depth.is_some()
            || match_limit.movetime_ms.is_some()
            || match_limit.clock.is_some();
        // Without a match-wide limit every engine has its own; the first one's stands in.
        let time_control = if given || !own_limits {
            Some(limit(&doc, "time_control", &match_limit)?)
        } else {
            None
        };
        let margin_ms = doc.in_range(
            "time_control.margin_ms",
            tc.margin_ms.unwrap_or(100),
            0,
            Some(3_600_000),
        )?;

        let openings = match f.openings {
            None => None,
            Some(o) => Some(OpeningsConfig {
                file: PathBuf::from(o.file.ok_or_else(|| {
                    doc.missing("openings.file", "the path of an opening suite or book")
                })?),
                format: o.format.map(|f| {
                    match f {
                        FormatFile::Epd => "epd",
                        FormatFile::Pgn => "pgn",
                        FormatFile::Polyglot => "polyglot",
                    }
                    .to_string()
                }),
                order: match o.order {
                    None | Some(OrderFile::Random) => OpeningOrder::Random,
                    Some(OrderFile::Sequential) => OpeningOrder::Sequential,
                },
                plies: o
                    .plies
                    .map(|p| doc.in_range("openings.plies", p, 0, Some(1000)))
                    .transpose()?,
                start: doc.in_range("openings.start", o.start.unwrap_or(1), 1, None)?,
                per_game: o.per_game.unwrap_or(false),
                random_plies: doc.in_range(
                    "openings.random_plies",
                    o.random_plies.unwrap_or(0),
                    0,
                    Some(100),
                )?,
            }),
        };

        let adjudication = read_adjudication(&doc, f.adjudication)?;

        let sprt = f.sprt.map(|s| sprt_params(&doc, s)).transpose()?;

        let out = f
            .output
            .ok_or_else(|| doc.missing("output", "an [output] table with `dir`"))?;
        let dir = out
            .dir
            .ok_or_else(|| doc.missing("output.dir", "the output directory"))?;
        if dir.is_empty() {
            return Err(doc.invalid_value("output.dir", "a non-empty path"));
        }
        if Path::new(&dir).is_file() {
            return Err(doc.other("output.dir", format!("{dir} is a file, not a directory")));
        }
        let positions = out.positions.unwrap_or(false);
        let positions_format = match out.positions_format.as_deref() {
            None | Some("epd") => PositionsFormat::Epd,
            Some("bullet") => PositionsFormat::Bullet,
            Some("both") => PositionsFormat::Both,
            Some(_) => {
                return Err(
                    doc.invalid_value("output.positions_format", "\"epd\", \"bullet\" or \"both\"")
                )
            }
        };
        if positions_format != PositionsFormat::Epd && !positions {
            return Err(doc.other(
                "output.positions_format",
                "positions are recorded only with `positions = true`".to_string(),
            ));
        }
        let output = OutputConfig {
            dir: PathBuf::from(dir),
            positions,
            positions_format,
            positions_per_game: doc.in_range(
                "output.positions_per_game",
                out.positions_per_game.unwrap_or(12),
                1,
                Some(10_000),
            )?,
            rating_interval: doc.in_range(
                "output.rating_interval",
                out.rating_interval.unwrap_or(10),
                1,
                Some(1_000_000),
            )?,
            pgn_name: match out.pgn_name {
                None => "games.pgn".to_string(),
                Some(name) if name.trim().is_empty() || has_control(&name) => {
                    return Err(doc.invalid_value(
                        "output.pgn_name",
                        "a file name (or a path relative to output.dir)",
                    ))
                }
                Some(name) => name,
            },
            pgn_mode: match out.pgn_mode.as_deref() {
                None | Some("new") => PgnMode::New,
                Some("append") => PgnMode::Append,
                Some("replace") => PgnMode::Replace,
                Some(_) => {
                    return Err(
                        doc.invalid_value("output.pgn_mode", "\"new\", \"append\" or \"replace\"")
                    )
                }
            },
            engine_log: match out.engine_log {
                Some(path) if path.is_empty() => {
                    return Err(doc.invalid_value("output.engine_log", "a non-empty path"))
                }
                path => path.map(PathBuf::from),
            },
            format: match out.format {
                None | Some(ResultsFormatFile::Fastchess) => ResultsFormat::Fastchess,
                Some(ResultsFormatFile::Cutechess) => ResultsFormat::Cutechess,
            },
            report_penta: out.report_penta.unwrap_or(true),
        };

        let engines = engines(&doc, f.engine, f.each, each_limit)?;
        let time_control = match time_control {
            Some(tc) => tc,
            None => match engines.iter().find_map(|e| e.time_control.clone()) {
                Some(tc) => tc,
                None => return Err(doc.missing("time_control", "a [time_control] table")),
            },
        };

        Ok(MatchConfig {
            source: file.to_string(),
            event,
            site,
            kind,
            variant,
            rounds,
            single_last_game: t.single_last_game.unwrap_or(false),
            concurrency,
            seed,
            time_control,
            margin: Duration::from_millis(margin_ms),
            timeout: Duration::from_millis(timeout_ms),
            openings,
            adjudication,
            sprt,
            output,
            engines,
            max_restarts,
            strict_options: t.strict_options.unwrap_or(false),
        })
    }
}

impl MatchConfig {
    /// The games of the whole schedule: two (a colour-reversed pair) per pairing per round.
    pub fn total_games(&self) -> u64 {
        let engines = self.engines.len() as u64;
        let pairings = match self.kind {
            TournamentKind::Gauntlet => engines.saturating_sub(1),
            TournamentKind::RoundRobin => engines * engines.saturating_sub(1) / 2,
        };
        let games = u64::from(self.rounds) * pairings * 2;
        if self.single_last_game {
            games - pairings
        } else {
            games
        }
    }

    /// The TOML file that `MatchConfig::parse` reads back as this configuration (apart from
    /// `source`): what `--dump-config` writes.
    pub fn to_toml(&self) -> String {
        use toml::{Table, Value};
        fn text(s: impl Into<String>) -> Value {
            Value::String(s.into())
        }
        fn int(n: impl TryInto<i64>) -> Value {
            Value::Integer(n.try_into().unwrap_or(i64::MAX))
        }
        fn path(p: &Path) -> Value {
            text(p.to_string_lossy().into_owned())
        }
        fn limit_table(tc: &TimeControl) -> Table {
            let mut t = Table::new();
            match tc {
                TimeControl::Nodes(n) => t.insert("nodes".into(), int(*n)),
                TimeControl::Depth(d) => t.insert("depth".into(), int(*d)),
                TimeControl::MoveTime(d) => t.insert("movetime_ms".into(), int(d.as_millis())),
                TimeControl::Clock {
                    moves,
                    base,
                    increment,
                } => {
                    let moves = moves.map(|m| format!("{m}/")).unwrap_or_default();
                    let clock = format!(
                        "{moves}{}+{}",
                        seconds_text(*base),
                        seconds_text(*increment)
                    );
                    t.insert("clock".into(), text(clock))
                }
            };
            t
        }

        let mut doc = Table::new();
        let mut t = Table::new();
        let kind = match self.kind {
            TournamentKind::Gauntlet => "gauntlet",
            TournamentKind::RoundRobin => "round-robin",
        };
        t.insert("kind".into(), text(kind));
        t.insert("variant".into(), text(self.variant.name()));
        t.insert("rounds".into(), int(self.rounds));
        if self.single_last_game {
            t.insert("single_last_game".into(), Value::Boolean(true));
        }
        t.insert("concurrency".into(), int(self.concurrency));
        let seed = match i64::try_from(self.seed) {
            Ok(s) => Value::Integer(s),
            Err(_) => text(self.seed.to_string()),
        };
        t.insert("seed".into(), seed);
        t.insert("event".into(), text(&self.event));
        t.insert("site".into(), text(&self.site));
        t.insert("timeout_ms".into(), int(self.timeout.as_millis()));
        t.insert("max_restarts".into(), int(self.max_restarts));
        t.insert("strict_options".into(), Value::Boolean(self.strict_options));
        doc.insert("tournament".into(), Value::Table(t));

        let mut t = limit_table(&self.time_control);
        t.insert("margin_ms".into(), int(self.margin.as_millis()));
        doc.insert("time_control".into(), Value::Table(t));

        if let Some(o) = &self.openings {
            let mut t = Table::new();
            t.insert("file".into(), path(&o.file));
            if let Some(f) = &o.format {
                t.insert("format".into(), text(f));
            }
            let order = match o.order {
                OpeningOrder::Random => "random",
                OpeningOrder::Sequential => "sequential",
            };
            t.insert("order".into(), text(order));
            if let Some(p) = o.plies {
                t.insert("plies".into(), int(p));
            }
            t.insert("start".into(), int(o.start));
            t.insert("per_game".into(), Value::Boolean(o.per_game));
            t.insert("random_plies".into(), int(o.random_plies));
            doc.insert("openings".into(), Value::Table(t));
        }

        let adj = &self.adjudication;
        if adj.draw.is_some() || adj.resign.is_some() || adj.max_moves.is_some() {
            let mut t = Table::new();
            if let Some(d) = &adj.draw {
                let mut draw = Table::new();
                draw.insert("move_number".into(), int(d.move_number));
                draw.insert("move_count".into(), int(d.move_count));
                draw.insert("score_cp".into(), int(d.score_cp));
                t.insert("draw".into(), Value::Table(draw));
            }
            if let Some(r) = &adj.resign {
                let mut resign = Table::new();
                resign.insert("move_count".into(), int(r.move_count));
                resign.insert("score_cp".into(), int(r.score_cp));
                resign.insert("two_sided".into(), Value::Boolean(r.two_sided));
                t.insert("resign".into(), Value::Table(resign));
            }
            if let Some(m) = adj.max_moves {
                t.insert("max_moves".into(), int(m));
            }
            doc.insert("adjudication".into(), Value::Table(t));
        }

        if let Some(sprt) = &self.sprt {
            let mut t = Table::new();
            t.insert("elo0".into(), Value::Float(sprt.elo0()));
            t.insert("elo1".into(), Value::Float(sprt.elo1()));
            t.insert("alpha".into(), Value::Float(sprt.alpha()));
            t.insert("beta".into(), Value::Float(sprt.beta()));
            t.insert("model".into(), text(sprt.model().to_string()));
            doc.insert("sprt".into(), Value::Table(t));
        }

        let out = &self.output;
        let mut t = Table::new();
        t.insert("dir".into(), path(&out.dir));
        t.insert("positions".into(), Value::Boolean(out.positions));
        t.insert("positions_per_game".into(), int(out.positions_per_game));
        t.insert("positions_format".into(), text(out.positions_format.name()));
        t.insert("rating_interval".into(), int(out.rating_interval));
        t.insert("pgn_name".into(), text(&out.pgn_name));
        t.insert("pgn_mode".into(), text(out.pgn_mode.name()));
        if let Some(log) = &out.engine_log {
            t.insert("engine_log".into(), path(log));
        }
        let format = match out.format {
            ResultsFormat::Fastchess => "fastchess",
            ResultsFormat::Cutechess => "cutechess",
        };
        t.insert("format".into(), text(format));
        t.insert("report_penta".into(), Value::Boolean(out.report_penta));
        doc.insert("output".into(), Value::Table(t));

        let mut engines = Vec::new();
        for e in &self.engines {
            let mut t = Table::new();
            t.insert("name".into(), text(&e.name));
            if let Some(tc) = &e.time_control {
                t.insert("time_control".into(), Value::Table(limit_table(tc)));
            }
            match &e.kind {
                EngineKind::Builtin {
                    weights,
                    hash_mb,
                    search,
                } => {
                    let mut b = Table::new();
                    if let Some(w) = weights {
                        b.insert("weights".into(), path(w));
                    }
                    if let Some(s) = search {
                        b.insert("search".into(), path(s));
                    }
                    b.insert("hash_mb".into(), int(*hash_mb));
                    t.insert("builtin".into(), Value::Table(b));
                }
                EngineKind::Uci {
                    command,
                    args,
                    options,
                    working_dir,
                } => {
                    let mut u = Table::new();
                    u.insert("command".into(), text(command));
                    u.insert("args".into(), Value::Array(args.iter().map(text).collect()));
                    let options: Table = options
                        .iter()
                        .map(|(name, value)| (name.clone(), text(value)))
                        .collect();
                    u.insert("options".into(), Value::Table(options));
                    if let Some(dir) = working_dir {
                        u.insert("working_dir".into(), path(dir));
                    }
                    t.insert("uci".into(), Value::Table(u));
                }
            }
            engines.push(Value::Table(t));
        }
        doc.insert("engine".into(), Value::Array(engines));
        // One section at a time, in the order a person writes the file (a table sorts its keys).
        let order = [
            "tournament",
            "time_control",
            "openings",
            "adjudication",
            "sprt",
            "output",
            "engine",
        ];
        let mut text = String::new();
        for key in order {
            if let Some((key, value)) = doc.remove_entry(key) {
                let section: Table = std::iter::once((key, value)).collect();
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(&toml::to_string(&section).unwrap_or_default());
            }
        }
        text
    }
}

/// The `[adjudication]` table, checked: shared by match and SPSA configurations so both read
/// the same keys with the same ranges.
pub(crate) fn read_adjudication(
    doc: &Document<'_>,
    adj: Option<AdjudicationFile>,
) -> Result<Adjudication, ConfigError> {
    let mut adjudication = Adjudication::default();
    if let Some(adj) = adj {
        if let Some(d) = adj.draw {
            adjudication.draw = Some(DrawAdjudication {
                move_number: doc.in_range(
                    "adjudication.draw.move_number",
                    d.move_number.unwrap_or(0),
                    0,
                    Some(10_000),
                )?,
                move_count: doc.in_range(
                    "adjudication.draw.move_count",
                    d.move_count.unwrap_or(1),
                    1,
                    Some(10_000),
                )?,
                score_cp: doc.in_range(
                    "adjudication.draw.score_cp",
                    d.score_cp.unwrap_or(0),
                    0,
                    Some(10_000),
                )?,
            });
        }
        if let Some(r) = adj.resign {
            let score_cp = r.score_cp.ok_or_else(|| {
                doc.missing("adjudication.resign.score_cp", "a positive centipawn score")
            })?;
            adjudication.resign = Some(ResignAdjudication {
                move_count: doc.in_range(
                    "adjudication.resign.move_count",
                    r.move_count.unwrap_or(3),
                    1,
                    Some(10_000),
                )?,
                score_cp: doc.in_range(
                    "adjudication.resign.score_cp",
                    score_cp,
                    1,
                    Some(100_000),
                )?,
                two_sided: r.two_sided.unwrap_or(false),
            });
        }
        adjudication.max_moves = adj
            .max_moves
            .map(|m| doc.in_range("adjudication.max_moves", m, 1, Some(100_000)))
            .transpose()?;
    }
    Ok(adjudication)
}

/// The SPRT design, each bound checked under its own key.
fn sprt_params(doc: &Document<'_>, s: SprtFile) -> Result<SprtParams, ConfigError> {
    let elo0 = doc.number(
        "sprt.elo0",
        s.elo0.unwrap_or(0.0),
        "a finite number",
        |_| true,
    )?;
    let elo1 = doc.number(
        "sprt.elo1",
        s.elo1.unwrap_or(5.0),
        &format!("a finite number greater than elo0 ({elo0})"),
        |e| e > elo0,
    )?;
    // An error rate of one half or more is a test no better than a coin toss.
    let probability = "an error rate above 0 and below 0.5";
    let alpha = doc.number("sprt.alpha", s.alpha.unwrap_or(0.05), probability, |p| {
        p > 0.0 && p < 0.5
    })?;
    let beta = doc.number("sprt.beta", s.beta.unwrap_or(0.05), probability, |p| {
        p > 0.0 && p < 0.5
    })?;
    let model = match s.model {
        None => SprtModel::Normalized,
        Some(m) => m.parse::<SprtModel>().map_err(|_| {
            doc.invalid_value("sprt.model", "\"normalized\", \"logistic\" or \"bayeselo\"")
        })?,
    };
    // The checks above are the ones `new` makes; this keeps any future one reported too.
    SprtParams::new(elo0, elo1, alpha, beta, model).map_err(|e| doc.other("sprt", e))
}

/// One limit from a `time_control` table at `key`: exactly one of nodes, depth, movetime_ms,
/// clock.
fn limit(
    doc: &Document<'_>,
    key: &str,
    tc: &EngineTimeControlFile,
) -> Result<TimeControl, ConfigError> {
    let given = [
        tc.nodes.is_some(),
        tc.depth.is_some(),
        tc.movetime_ms.is_some(),
        tc.clock.is_some(),
    ]
    .iter()
    .filter(|&&b| b)
    .count();
    if given != 1 {
        return Err(doc.invalid(
            key,
            "exactly one of nodes, depth, movetime_ms, clock",
            format!("a table with {given} of them"),
        ));
    }
    let sub = |name: &str| format!("{key}.{name}");
    Ok(if let Some(n) = tc.nodes {
        TimeControl::Nodes(doc.in_range(&sub("nodes"), n, 1, Some(i64::MAX as u64))?)
    } else if let Some(d) = tc.depth {
        TimeControl::Depth(doc.in_range(&sub("depth"), d, 1, Some(127))?)
    } else if let Some(ms) = tc.movetime_ms {
        let ms = doc.in_range(&sub("movetime_ms"), ms, 1, Some(86_400_000))?;
        TimeControl::MoveTime(Duration::from_millis(ms))
    } else {
        let text = tc.clock.as_deref().expect("one limit is given");
        TimeControl::parse_clock(text).ok_or_else(|| {
            doc.invalid_value(
                &sub("clock"),
                "\"base+increment\" or \"moves/base+increment\" in seconds, e.g. \"10+0.1\" or \"40/60+0.6\"",
            )
        })?
    })
}

/// A `uci.options` table as the name/value texts sent to the engine, checked under `key`.
fn option_texts(
    doc: &Document<'_>,
    key: &str,
    table: BTreeMap<String, toml::Value>,
) -> Result<BTreeMap<String, String>, ConfigError> {
    let mut options = BTreeMap::new();
    for (name, value) in table {
        let option_key = format!("{key}.{name}");
        let value = match value {
            toml::Value::String(s) => s,
            toml::Value::Integer(i) => i.to_string(),
            toml::Value::Float(f) => f.to_string(),
            toml::Value::Boolean(b) => b.to_string(),
            _ => return Err(doc.invalid_value(&option_key, "a string, number or boolean")),
        };
        if name.trim().is_empty() || has_control(&name) {
            return Err(doc.invalid(
                &option_key,
                "an option name without control characters (it is sent to the engine)",
                format!("the name {name:?}"),
            ));
        }
        if has_control(&value) {
            return Err(doc.invalid(
                &option_key,
                "a value without control characters (it is sent to the engine)",
                format!("the string {value:?}"),
            ));
        }
        options.insert(name, value);
    }
    Ok(options)
}

fn engines(
    doc: &Document<'_>,
    list: Option<Vec<EngineFile>>,
    each: Option<EachFile>,
    each_limit: Option<TimeControl>,
) -> Result<Vec<EngineConfig>, ConfigError> {
    let list = list.ok_or_else(|| doc.missing("engine", "at least two [[engine]] tables"))?;
    let (each_uci, each_builtin) = match each {
        Some(e) => (e.uci, e.builtin),
        None => (None, None),
    };
    let each_options = match each_uci.as_ref().and_then(|u| u.options.clone()) {
        Some(table) => option_texts(doc, "each.uci.options", table)?,
        None => BTreeMap::new(),
    };
    let each_working_dir = each_uci.and_then(|u| u.working_dir);
    let each_hash_mb = each_builtin
        .as_ref()
        .and_then(|b| b.hash_mb)
        .map(|mb| doc.in_range("each.builtin.hash_mb", mb, 1, Some(65_536)))
        .transpose()?;
    let each_search = each_builtin.as_ref().and_then(|b| b.search.clone());
    let each_weights = each_builtin.and_then(|b| b.weights);
    let mut engines: Vec<EngineConfig> = Vec::new();
    for (i, e) in list.into_iter().enumerate() {
        let key = |name: &str| format!("engine[{i}].{name}");
        let name = e
            .name
            .ok_or_else(|| doc.missing(&key("name"), "the engine's name"))?;
        if name.trim().is_empty() || has_control(&name) {
            return Err(
                doc.invalid_value(&key("name"), "a non-blank name without control characters")
            );
        }
        if engines.iter().any(|x| x.name == name) {
            return Err(doc.invalid_value(&key("name"), "a name no other engine has"));
        }
        let time_control = match &e.time_control {
            Some(tc) => Some(limit(doc, &key("time_control"), tc)?),
            None => each_limit.clone(),
        };
        let kind = match (e.builtin, e.uci) {
            (Some(b), None) => EngineKind::Builtin {
                weights: b
                    .weights
                    .or_else(|| each_weights.clone())
                    .map(PathBuf::from),
                hash_mb: match b.hash_mb {
                    Some(mb) => doc.in_range(&key("builtin.hash_mb"), mb, 1, Some(65_536))?,
                    None => each_hash_mb.unwrap_or(16),
                },
                search: b.search.or_else(|| each_search.clone()).map(PathBuf::from),
            },
            (None, Some(u)) => {
                let command = u
                    .command
                    .ok_or_else(|| doc.missing(&key("uci.command"), "the engine's executable"))?;
                let mut options = each_options.clone();
                options.extend(option_texts(
                    doc,
                    &key("uci.options"),
                    u.options.unwrap_or_default(),
                )?);
                EngineKind::Uci {
                    command,
                    args: u.args.unwrap_or_default(),
                    options: options.into_iter().collect(),
                    working_dir: u
                        .working_dir
                        .or_else(|| each_working_dir.clone())
                        .map(PathBuf::from),
                }
            }
            _ => {
                return Err(doc.invalid(
                    &key("builtin"),
                    "exactly one of `builtin = { ... }` or `uci = { ... }`",
                    "a table with both or neither",
                ))
            }
        };
        engines.push(EngineConfig {
            name,
            kind,
            time_control,
        });
    }
    if engines.len() < 2 {
        return Err(doc.invalid("engine", "at least two [[engine]] tables", engines.len()));
    }
    Ok(engines)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "[tournament]\n[time_control]\nnodes = 5\n[output]\ndir = \"x\"\n\
                        [[engine]]\nname = \"a\"\nbuiltin = {}\n\
                        [[engine]]\nname = \"b\"\nbuiltin = {}\n";

    fn with_output(keys: &str) -> Result<MatchConfig, ConfigError> {
        MatchConfig::parse(
            &BASE.replace("dir = \"x\"\n", &format!("dir = \"x\"\n{keys}")),
            "t",
        )
    }

    #[test]
    fn positions_format_reads_back_from_the_dump_and_refuses_what_it_cannot_write() {
        assert_eq!(
            with_output("").unwrap().output.positions_format,
            PositionsFormat::Epd
        );
        for (name, format) in [
            ("epd", PositionsFormat::Epd),
            ("bullet", PositionsFormat::Bullet),
            ("both", PositionsFormat::Both),
        ] {
            let config = with_output(&format!(
                "positions = true\npositions_format = \"{name}\"\n"
            ))
            .unwrap();
            assert_eq!(config.output.positions_format, format);
            assert!(config
                .to_toml()
                .contains(&format!("positions_format = \"{name}\"")));
            let again = MatchConfig::parse(&config.to_toml(), "t").unwrap();
            assert_eq!(again, config);
        }
        let err = with_output("positions = true\npositions_format = \"binpack\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("output.positions_format") && err.contains("\"bullet\""),
            "{err}"
        );
        let err = with_output("positions_format = \"bullet\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("positions = true"), "{err}");
    }
}
