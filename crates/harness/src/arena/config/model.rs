//! The checked match configuration: what a run plays, whether it came from a TOML file or from
//! the fastchess/cutechess command line.

pub use crate::record::PositionsResolve;
use crate::record::{MoveData, PgnStyle};
use crate::stats::SprtParams;
use std::path::PathBuf;
use std::time::Duration;

/// Who plays whom: `tournament.kind`, `"gauntlet"` (default) or `"round-robin"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TournamentKind {
    /// The first engine plays every other engine.
    Gauntlet,
    /// Every engine plays every other engine.
    RoundRobin,
}

/// A gauntlet's seeds (`tournament.seeds`): the first `count` engines each play every engine
/// after them. cutechess-cli's seeds never meet; fastchess's (`play_each_other`) also play the
/// seeds after them, which with `count` = engines - 1 is a round robin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seeds {
    /// How many of the first engines are seeds (at least 1).
    pub count: usize,
    /// Whether the seeds also play each other (fastchess).
    pub play_each_other: bool,
}

impl Default for Seeds {
    fn default() -> Seeds {
        Seeds {
            count: 1,
            play_each_other: false,
        }
    }
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
    pub(crate) fn is_chess960(self) -> bool {
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
    pub(crate) fn pgn_tag(&self) -> String {
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
pub(crate) fn seconds_text(duration: Duration) -> String {
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

/// Which tablebase verdicts end a game (`adjudication.tablebase.results`, fastchess's
/// `-tbadjudicate`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TablebaseResults {
    /// Wins, losses and draws (`both`, `BOTH`; the default).
    Both,
    /// Wins and losses only (`win_loss`, `WIN_LOSS`).
    WinLoss,
    /// Draws only (`draw`, `DRAW`).
    Draw,
}

impl TablebaseResults {
    /// The TOML spelling.
    pub fn name(self) -> &'static str {
        match self {
            TablebaseResults::Both => "both",
            TablebaseResults::WinLoss => "win_loss",
            TablebaseResults::Draw => "draw",
        }
    }

    /// Parses the TOML spelling, or fastchess's upper-case one.
    pub fn parse(text: &str) -> Option<TablebaseResults> {
        match text.to_ascii_lowercase().as_str() {
            "both" => Some(TablebaseResults::Both),
            "win_loss" => Some(TablebaseResults::WinLoss),
            "draw" => Some(TablebaseResults::Draw),
            _ => None,
        }
    }
}

/// `adjudication.tablebase`: ends a game by the Syzygy tables' verdict, as fastchess's `-tb`
/// does: checked before each move when the halfmove clock is 0 and no castling right is left.
#[derive(Clone, Debug, PartialEq)]
pub struct TablebaseAdjudication {
    /// `adjudication.tablebase.path`: the tables' directory (several separated by ':').
    pub path: PathBuf,
    /// `adjudication.tablebase.pieces`: probe positions of at most this many pieces, kings
    /// included; 0 (the default): as many as the largest table holds.
    pub pieces: u32,
    /// `adjudication.tablebase.ignore_50`: cursed wins and blessed losses count as wins and
    /// losses, not draws.
    pub ignore_50: bool,
    /// `adjudication.tablebase.results`: which verdicts end a game.
    pub results: TablebaseResults,
    /// The opened tables.
    pub tables: crate::tablebase::Tablebases,
}

/// The `[adjudication]` table; every rule is off unless given.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Adjudication {
    /// `adjudication.tablebase`; None: no tablebase adjudication.
    pub tablebase: Option<TablebaseAdjudication>,
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
        /// `builtin.net`: a network file (bullet's quantised format) the engine evaluates with
        /// instead of the hand-crafted evaluation; None: the hand-crafted one.
        net: Option<PathBuf>,
        /// `builtin.hash_mb`: transposition table size in MiB (default 16, at most 65536).
        hash_mb: usize,
        /// `builtin.search`: a search constants file (as `sparring uci --search`); None: the
        /// compiled-in constants.
        search: Option<PathBuf>,
        /// `builtin.syzygy`: Syzygy tables the engine probes in its search; None: none.
        syzygy: Option<BuiltinSyzygy>,
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

/// The built-in engine's Syzygy tables: `builtin.syzygy` and `builtin.syzygy_probe_limit`.
#[derive(Clone, Debug, PartialEq)]
pub struct BuiltinSyzygy {
    /// The directories, as given (several separated by ':', as `SyzygyPath`).
    pub path: PathBuf,
    /// Positions with more pieces than this are not probed (0 to 7, default 7).
    pub probe_limit: u32,
    /// The opened tables.
    pub tables: crate::tablebase::Tablebases,
}

impl BuiltinSyzygy {
    /// Opens the tables of `path` (directories separated by ':') for a built-in engine.
    pub fn open(
        path: &str,
        probe_limit: u32,
    ) -> Result<BuiltinSyzygy, crate::tablebase::TablebaseError> {
        Ok(BuiltinSyzygy {
            path: PathBuf::from(path),
            probe_limit,
            tables: crate::tablebase::Tablebases::open(path)?,
        })
    }
}

/// The protocol an external engine speaks: `engine.protocol`, `"uci"` (the default) or
/// `"xboard"` (CECP version 2, and version 1 engines).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Protocol {
    /// The Universal Chess Interface.
    #[default]
    Uci,
    /// The xboard/WinBoard Chess Engine Communication Protocol.
    Xboard,
}

impl Protocol {
    /// The configuration's spelling: `uci` or `xboard`.
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Uci => "uci",
            Protocol::Xboard => "xboard",
        }
    }

    /// Reads `uci` or `xboard` (cutechess's `proto=` values); None for anything else.
    pub fn parse(text: &str) -> Option<Protocol> {
        match text {
            "uci" => Some(Protocol::Uci),
            "xboard" => Some(Protocol::Xboard),
            _ => None,
        }
    }
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
    /// `engine.protocol`: what an external engine (the `uci` table) speaks.
    pub protocol: Protocol,
    /// `engine.restart`: a fresh engine (process) for every game, as cutechess-cli's
    /// `restart=on`; false (the default) keeps one for the whole run, restarting it only after
    /// a failure.
    pub restart: bool,
    /// cutechess's per-engine keys for an external engine (`engine.ponder`, ...); the
    /// defaults for the built-in engine.
    pub settings: crate::arena::engine::ExternalSettings,
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
    /// `output.positions_resolve`: each sampled position as played, or resolved to the end of
    /// the engine's principal variation (with `positions`).
    pub positions_resolve: PositionsResolve,
    /// Print the results block every this many finished game pairs.
    pub rating_interval: u32,
    /// `output.pgn_name`: the PGN file, a path relative to `dir` (default `games.pgn`; the
    /// fastchess command line gives `../<name>.pgn`, see docs/command-line-dialect.md).
    pub pgn_name: String,
    /// `output.pgn_mode`: what a new run does with a PGN file that already holds games.
    pub pgn_mode: PgnMode,
    /// `output.pgn_minimal` and `output.pgn_notation`: minimal PGN (tags and moves only), and
    /// moves in SAN, LAN or UCI (`-pgnout min`, `notation=`).
    pub pgn_style: PgnStyle,
    /// Every line sent to and received from each engine, and each engine's standard error, is
    /// written to this file with a timestamp; None: no engine log.
    pub engine_log: Option<PathBuf>,
    /// `output.engine_debug` (cutechess's `-debug`): without an engine log, every engine's
    /// traffic goes to standard error as cutechess-cli prints it (`1234 >name(0): go ...`).
    pub engine_debug: bool,
    /// Which tool's results lines the console prints.
    pub format: ResultsFormat,
    /// Print the pentanomial line (`Ptnml(0-2)`) in the results block (default true).
    pub report_penta: bool,
    /// `[output.move_data]`: what each engine move's PGN comment holds besides score, depth and
    /// time (fastchess's `-pgnout nodes=true seldepth=true ... match_line=`).
    pub move_data: MoveData,
    /// `output.final_positions = { file, format, append }`: each finished game's last
    /// position, one line per game (`-epdout`); None: not written.
    pub final_positions: Option<FinalPositions>,
}

/// Where and how each game's final position is written (`-epdout`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FinalPositions {
    /// `file`: a path relative to `output.dir` (as `pgn_name`).
    pub file: String,
    /// `format`: `"epd"` (default; the four EPD fields, as fastchess writes) or `"fen"` (the
    /// whole FEN with move counters, as cutechess-cli writes).
    pub full_fen: bool,
    /// `append` (default true): a new run adds its lines to the file's; false empties it when
    /// a new run starts (a resumed run always appends), as fastchess's `append=false`.
    pub append: bool,
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
    /// `tournament.seeds` (default 1) and `tournament.seeds_play_each_other` (default false):
    /// a gauntlet's seeds; a round robin has none.
    pub seeds: Seeds,
    /// `tournament.swap_sides` (default true): the second game of each pair reverses the
    /// colours (false: cutechess's and fastchess's `-noswap`, both games alike).
    pub swap_sides: bool,
    /// `tournament.reverse_sides` (default false): every game with the colours swapped
    /// (`-reverse`): the second engine of a pairing is White first.
    pub reverse_sides: bool,
    /// `tournament.wait_ms` (default 0): each game slot waits this long after a game before it
    /// starts the next (`-wait`).
    pub wait: Duration,
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
    /// `[compliance]`: fastchess's engine checks and what goes with them (CRC32, affinity).
    pub compliance: super::ComplianceConfig,
}

impl MatchConfig {
    /// Who plays whom in each round, (first, second) by engine index: the schedule's pairings.
    pub fn pairings(&self) -> Vec<(usize, usize)> {
        crate::arena::matchmaking::schedule::pairings(self.kind, self.engines.len(), self.seeds)
    }

    /// The `[tournament]` settings that shape the schedule beyond kind and rounds, as run.toml
    /// fingerprints them: written only when not the default, so older run.toml files match.
    pub(crate) fn schedule_fingerprint(&self) -> Vec<(&'static str, String)> {
        let mut keys = Vec::new();
        if self.kind == TournamentKind::Gauntlet && self.seeds.count > 1 {
            keys.push(("tournament.seeds", self.seeds.count.to_string()));
            if self.seeds.play_each_other {
                keys.push(("tournament.seeds_play_each_other", "true".to_string()));
            }
        }
        if !self.swap_sides {
            keys.push(("tournament.swap_sides", "false".to_string()));
        }
        if self.reverse_sides {
            keys.push(("tournament.reverse_sides", "true".to_string()));
        }
        keys
    }

    /// The games of the whole schedule: two (a colour-reversed pair) per pairing per round.
    pub fn total_games(&self) -> u64 {
        let pairings = self.pairings().len() as u64;
        let games = u64::from(self.rounds) * pairings * 2;
        if self.single_last_game {
            games - pairings
        } else {
            games
        }
    }
}
