//! A typed match configuration for tests: `MatchToml` builds the `sparring match` file
//! (src/arena/config/file.rs is its shape) as a `toml::Table` and writes it through the `toml`
//! crate, so a test sets what it varies by name instead of patching a text template. Every
//! setter writes a key the file shape has; `sparring::arena::MatchConfig::parse` refuses any
//! other (unknown keys are denied), so a converted test that runs also checks the builder.

// Each test file that includes this module uses only some of its helpers.

use std::path::{Path, PathBuf};
use toml::{Table, Value};

/// A path in the checkout (`configs/weights/default.toml`, `openings/balanced-8ply.epd`).
pub fn repo_path(relative: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(relative)
        .display()
        .to_string()
}

/// A shipped weights file by name (`default.toml`, `material-only.toml`).
pub fn weights(name: &str) -> String {
    repo_path(&format!("configs/weights/{name}"))
}

/// The shipped 8-ply opening suite.
pub fn balanced_book() -> String {
    repo_path("openings/balanced-8ply.epd")
}

fn path_text(path: impl AsRef<Path>) -> String {
    path.as_ref().display().to_string()
}

/// The keys of a time control of which a configuration takes exactly one.
const LIMITS: [&str; 4] = ["nodes", "depth", "movetime_ms", "clock"];

/// A `sparring match` configuration file under construction.
#[derive(Clone, Debug, Default)]
pub struct MatchToml {
    root: Table,
    engines: Vec<Value>,
}

impl MatchToml {
    /// A configuration with no key set (the runner's defaults: a round robin).
    pub fn new() -> MatchToml {
        MatchToml::default()
    }

    /// `tournament.kind = "gauntlet"`: the first engine plays each of the others.
    pub fn gauntlet() -> MatchToml {
        MatchToml::new().tournament("kind", "gauntlet")
    }

    /// `tournament.kind = "round-robin"`.
    pub fn round_robin() -> MatchToml {
        MatchToml::new().tournament("kind", "round-robin")
    }

    fn set(mut self, section: &str, key: &str, value: impl Into<Value>) -> MatchToml {
        let table = self
            .root
            .entry(section)
            .or_insert_with(|| Value::Table(Table::new()));
        table
            .as_table_mut()
            .expect("a section is a table")
            .insert(key.to_string(), value.into());
        self
    }

    fn tournament(self, key: &str, value: impl Into<Value>) -> MatchToml {
        self.set("tournament", key, value)
    }

    pub fn rounds(self, rounds: u32) -> MatchToml {
        self.tournament("rounds", i64::from(rounds))
    }

    pub fn concurrency(self, workers: usize) -> MatchToml {
        self.tournament("concurrency", workers as i64)
    }

    pub fn seed(self, seed: u64) -> MatchToml {
        self.tournament("seed", i64::try_from(seed).expect("a seed below 2^63"))
    }

    pub fn timeout_ms(self, ms: u64) -> MatchToml {
        self.tournament("timeout_ms", ms as i64)
    }

    pub fn max_restarts(self, restarts: u32) -> MatchToml {
        self.tournament("max_restarts", i64::from(restarts))
    }

    /// `tournament.variant`: `standard` or `chess960`.
    pub fn variant(self, variant: &str) -> MatchToml {
        self.tournament("variant", variant)
    }

    pub fn strict_options(self, strict: bool) -> MatchToml {
        self.tournament("strict_options", strict)
    }

    pub fn single_last_game(self, single: bool) -> MatchToml {
        self.tournament("single_last_game", single)
    }

    /// `tournament.seeds`: the gauntlet's first `seeds` engines play the others.
    pub fn seeds(self, seeds: usize) -> MatchToml {
        self.tournament("seeds", seeds as i64)
    }

    pub fn reverse_sides(self, reverse: bool) -> MatchToml {
        self.tournament("reverse_sides", reverse)
    }

    pub fn event(self, event: &str) -> MatchToml {
        self.tournament("event", event)
    }

    /// Sets the one limit of `[time_control]`, replacing any other (the file takes one).
    fn limit(mut self, key: &str, value: impl Into<Value>) -> MatchToml {
        if let Some(Value::Table(tc)) = self.root.get_mut("time_control") {
            for other in LIMITS {
                tc.remove(other);
            }
        }
        self.set("time_control", key, value)
    }

    /// `time_control.nodes`: every engine's node limit per move.
    pub fn nodes(self, nodes: u64) -> MatchToml {
        self.limit("nodes", nodes as i64)
    }

    pub fn depth(self, plies: u32) -> MatchToml {
        self.limit("depth", i64::from(plies))
    }

    pub fn movetime_ms(self, ms: u64) -> MatchToml {
        self.limit("movetime_ms", ms as i64)
    }

    /// `time_control.clock`, e.g. `40/2+0.05` or `10+0.1`.
    pub fn clock(self, clock: &str) -> MatchToml {
        self.limit("clock", clock)
    }

    pub fn margin_ms(self, ms: u64) -> MatchToml {
        self.set("time_control", "margin_ms", ms as i64)
    }

    /// `openings.file`: a suite's path, or `start`.
    pub fn openings(self, file: impl AsRef<Path>) -> MatchToml {
        self.set("openings", "file", path_text(file))
    }

    /// `openings.format`: `epd`, `pgn` or `polyglot`.
    pub fn openings_format(self, format: &str) -> MatchToml {
        self.set("openings", "format", format)
    }

    /// `openings.order`: `random` or `sequential`.
    pub fn openings_order(self, order: &str) -> MatchToml {
        self.set("openings", "order", order)
    }

    pub fn openings_plies(self, plies: usize) -> MatchToml {
        self.set("openings", "plies", plies as i64)
    }

    pub fn openings_start(self, start: usize) -> MatchToml {
        self.set("openings", "start", start as i64)
    }

    /// `openings.per_game` and `openings.random_plies`: random moves drawn for every game.
    pub fn random_plies_per_game(self, plies: usize) -> MatchToml {
        self.set("openings", "per_game", true)
            .set("openings", "random_plies", plies as i64)
    }

    pub fn max_moves(self, moves: u32) -> MatchToml {
        self.set("adjudication", "max_moves", i64::from(moves))
    }

    /// `adjudication.resign = { move_count, score_cp }`.
    pub fn resign(self, move_count: u32, score_cp: i32) -> MatchToml {
        let mut resign = Table::new();
        resign.insert("move_count".into(), i64::from(move_count).into());
        resign.insert("score_cp".into(), i64::from(score_cp).into());
        self.set("adjudication", "resign", resign)
    }

    /// `adjudication.draw = { move_number, move_count, score_cp }`.
    pub fn draw(self, move_number: u32, move_count: u32, score_cp: i32) -> MatchToml {
        let mut draw = Table::new();
        draw.insert("move_number".into(), i64::from(move_number).into());
        draw.insert("move_count".into(), i64::from(move_count).into());
        draw.insert("score_cp".into(), i64::from(score_cp).into());
        self.set("adjudication", "draw", draw)
    }

    /// `adjudication.tablebase`: games adjudicated from Syzygy tables.
    pub fn tablebase(self, tablebase: Tablebase) -> MatchToml {
        self.set("adjudication", "tablebase", tablebase.0)
    }

    /// `[sprt]` with `elo0` and `elo1` (the default error rates and model).
    pub fn sprt(self, elo0: f64, elo1: f64) -> MatchToml {
        self.set("sprt", "elo0", elo0).set("sprt", "elo1", elo1)
    }

    /// `sprt.alpha` and `sprt.beta`.
    pub fn sprt_errors(self, alpha: f64, beta: f64) -> MatchToml {
        self.set("sprt", "alpha", alpha).set("sprt", "beta", beta)
    }

    /// `output.dir`.
    pub fn out(self, dir: impl AsRef<Path>) -> MatchToml {
        self.set("output", "dir", path_text(dir))
    }

    /// `output.positions`: sample positions into positions.epd.
    pub fn positions(self, positions: bool) -> MatchToml {
        self.set("output", "positions", positions)
    }

    pub fn positions_per_game(self, count: usize) -> MatchToml {
        self.set("output", "positions_per_game", count as i64)
    }

    /// `output.positions_format`: `epd`, `bullet` or `both`.
    pub fn positions_format(self, format: &str) -> MatchToml {
        self.set("output", "positions_format", format)
    }

    pub fn pgn_name(self, name: &str) -> MatchToml {
        self.set("output", "pgn_name", name)
    }

    /// `output.engine_log`: a path, absolute or relative to the output directory.
    pub fn engine_log(self, path: impl AsRef<Path>) -> MatchToml {
        self.set("output", "engine_log", path_text(path))
    }

    pub fn report_penta(self, penta: bool) -> MatchToml {
        self.set("output", "report_penta", penta)
    }

    /// Appends an `[[engine]]`.
    pub fn engine(mut self, engine: Engine) -> MatchToml {
        self.engines.push(Value::Table(engine.0));
        self
    }

    /// The file's text, through the `toml` crate.
    pub fn text(&self) -> String {
        let mut root = self.root.clone();
        if !self.engines.is_empty() {
            root.insert("engine".into(), Value::Array(self.engines.clone()));
        }
        toml::to_string(&root).expect("a table serialises")
    }

    /// Writes the file to `path`; `path` back.
    pub fn write(&self, path: impl AsRef<Path>) -> PathBuf {
        let path = path.as_ref().to_path_buf();
        std::fs::write(&path, self.text()).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        path
    }

    /// The configuration the runner reads from this file (named `test.toml` in messages).
    pub fn parse(&self) -> sparring::arena::MatchConfig {
        sparring::arena::MatchConfig::parse(&self.text(), "test.toml")
            .unwrap_or_else(|e| panic!("{e}\n{}", self.text()))
    }
}

/// `adjudication.tablebase`: the tables and which results they adjudicate.
#[derive(Clone, Debug)]
pub struct Tablebase(Table);

impl Tablebase {
    /// The tables in `path` (`tablebase.path`).
    pub fn at(path: impl AsRef<Path>) -> Tablebase {
        let mut table = Table::new();
        table.insert("path".into(), path_text(path).into());
        Tablebase(table)
    }

    /// `tablebase.pieces`: adjudicate positions of at most this many pieces.
    pub fn pieces(mut self, pieces: u32) -> Tablebase {
        self.0.insert("pieces".into(), i64::from(pieces).into());
        self
    }

    /// `tablebase.results`: `both`, `win_loss` or `draw`.
    pub fn results(mut self, results: &str) -> Tablebase {
        self.0.insert("results".into(), results.into());
        self
    }

    pub fn ignore_50(mut self, ignore: bool) -> Tablebase {
        self.0.insert("ignore_50".into(), ignore.into());
        self
    }
}

/// One `[[engine]]`: a built-in player or a UCI command.
#[derive(Clone, Debug)]
pub struct Engine(Table);

impl Engine {
    fn named(name: &str, kind: &str, settings: Table) -> Engine {
        let mut table = Table::new();
        table.insert("name".into(), name.into());
        table.insert(kind.into(), Value::Table(settings));
        Engine(table)
    }

    /// A built-in engine with the default weights (`builtin = {}`).
    pub fn builtin(name: &str) -> Engine {
        Engine::named(name, "builtin", Table::new())
    }

    /// A UCI engine started as `command`.
    pub fn uci(name: &str, command: impl AsRef<Path>) -> Engine {
        let mut uci = Table::new();
        uci.insert("command".into(), path_text(command).into());
        Engine::named(name, "uci", uci)
    }

    fn kind_set(mut self, kind: &str, key: &str, value: impl Into<Value>) -> Engine {
        self.0
            .get_mut(kind)
            .and_then(Value::as_table_mut)
            .unwrap_or_else(|| panic!("`{key}` is a setting of `{kind}` engines"))
            .insert(key.to_string(), value.into());
        self
    }

    /// `builtin.weights`: a weights file's path (see `weights` for the shipped ones).
    pub fn weights(self, path: impl AsRef<Path>) -> Engine {
        self.kind_set("builtin", "weights", path_text(path))
    }

    pub fn hash_mb(self, mb: usize) -> Engine {
        self.kind_set("builtin", "hash_mb", mb as i64)
    }

    /// `builtin.search`: a search constants file.
    pub fn search(self, path: impl AsRef<Path>) -> Engine {
        self.kind_set("builtin", "search", path_text(path))
    }

    /// `builtin.syzygy`: tables the engine probes.
    pub fn syzygy(self, dir: impl AsRef<Path>) -> Engine {
        self.kind_set("builtin", "syzygy", path_text(dir))
    }

    pub fn syzygy_probe_limit(self, pieces: u32) -> Engine {
        self.kind_set("builtin", "syzygy_probe_limit", i64::from(pieces))
    }

    /// `uci.args`.
    pub fn args(self, args: &[&str]) -> Engine {
        let args: Vec<Value> = args.iter().map(|a| Value::from(*a)).collect();
        self.kind_set("uci", "args", args)
    }

    /// One of `uci.options`.
    pub fn option(mut self, name: &str, value: impl Into<Value>) -> Engine {
        let uci = self.0.get_mut("uci").and_then(Value::as_table_mut);
        let uci = uci.expect("options are a setting of `uci` engines");
        uci.entry("options")
            .or_insert_with(|| Value::Table(Table::new()))
            .as_table_mut()
            .unwrap()
            .insert(name.to_string(), value.into());
        self
    }

    pub fn working_dir(self, dir: impl AsRef<Path>) -> Engine {
        self.kind_set("uci", "working_dir", path_text(dir))
    }

    /// `protocol`: `uci` or `xboard`.
    pub fn protocol(mut self, protocol: &str) -> Engine {
        self.0.insert("protocol".into(), protocol.into());
        self
    }

    /// `restart`: a new engine process for every game.
    pub fn restart(mut self, restart: bool) -> Engine {
        self.0.insert("restart".into(), restart.into());
        self
    }

    /// Sets the engine's one limit, replacing any other (the file takes one).
    fn time_control(mut self, key: &str, value: impl Into<Value>) -> Engine {
        let tc = self
            .0
            .entry("time_control")
            .or_insert_with(|| Value::Table(Table::new()))
            .as_table_mut()
            .unwrap();
        for other in LIMITS {
            tc.remove(other);
        }
        tc.insert(key.to_string(), value.into());
        self
    }

    /// The engine's own `time_control.nodes`.
    pub fn nodes(self, nodes: u64) -> Engine {
        self.time_control("nodes", nodes as i64)
    }

    pub fn depth(self, plies: u32) -> Engine {
        self.time_control("depth", i64::from(plies))
    }

    pub fn movetime_ms(self, ms: u64) -> Engine {
        self.time_control("movetime_ms", ms as i64)
    }

    pub fn clock(self, clock: &str) -> Engine {
        self.time_control("clock", clock)
    }
}
