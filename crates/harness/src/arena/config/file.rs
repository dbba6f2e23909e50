//! The match file's shape, as serde reads it (every key optional, so a missing one gets a
//! message saying what it should hold; unknown keys refused) and as the dump writes it.

use serde::{Deserialize, Deserializer, Serialize};
use std::collections::BTreeMap;

/// The file as written: every key optional here, so a missing one gets a message saying what
/// it should hold; the checks in `MatchConfig::parse` give the defaults and the ranges.
#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(super) struct MatchFile {
    pub(super) tournament: Option<TournamentFile>,
    pub(super) each: Option<EachFile>,
    pub(super) time_control: Option<TimeControlFile>,
    pub(super) openings: Option<OpeningsFile>,
    pub(super) adjudication: Option<AdjudicationFile>,
    pub(super) sprt: Option<SprtFile>,
    pub(super) output: Option<OutputFile>,
    pub(super) engine: Option<Vec<EngineFile>>,
    pub(super) compliance: Option<super::compliance::ComplianceFile>,
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TournamentFile {
    pub(super) kind: Option<KindFile>,
    pub(super) rounds: Option<u32>,
    pub(super) single_last_game: Option<bool>,
    pub(super) concurrency: Option<usize>,
    /// An integer, or a string for seeds above 2^63 - 1 (TOML integers are signed 64-bit).
    pub(super) seed: Option<toml::Value>,
    pub(super) event: Option<String>,
    pub(super) site: Option<String>,
    pub(super) timeout_ms: Option<u64>,
    pub(super) max_restarts: Option<u32>,
    pub(super) strict_options: Option<bool>,
    pub(super) variant: Option<VariantFile>,
    pub(super) seeds: Option<usize>,
    pub(super) seeds_play_each_other: Option<bool>,
    pub(super) swap_sides: Option<bool>,
    pub(super) reverse_sides: Option<bool>,
    pub(super) wait_ms: Option<u64>,
}

/// `[each]`: defaults for every `[[engine]]` (fastchess's `-each`); an engine's own value wins.
#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(super) struct EachFile {
    pub(super) time_control: Option<EngineTimeControlFile>,
    /// Applies to the `uci` engines only.
    pub(super) uci: Option<EachUciFile>,
    /// Applies to the `builtin` engines only.
    pub(super) builtin: Option<BuiltinFile>,
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(super) struct EachUciFile {
    pub(super) options: Option<BTreeMap<String, toml::Value>>,
    pub(super) working_dir: Option<String>,
}

/// An engine's own limit: the `[time_control]` keys without the match-wide margin.
#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(super) struct EngineTimeControlFile {
    pub(super) nodes: Option<u64>,
    pub(super) depth: Option<u32>,
    pub(super) movetime_ms: Option<u64>,
    pub(super) clock: Option<String>,
}

#[derive(Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) enum KindFile {
    Gauntlet,
    #[serde(alias = "roundrobin")]
    RoundRobin,
}

#[derive(Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum VariantFile {
    Standard,
    #[serde(alias = "fischerandom")]
    Chess960,
}

#[derive(Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TimeControlFile {
    pub(super) nodes: Option<u64>,
    pub(super) depth: Option<u32>,
    pub(super) movetime_ms: Option<u64>,
    pub(super) clock: Option<String>,
    pub(super) margin_ms: Option<u64>,
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(super) struct OpeningsFile {
    pub(super) file: Option<String>,
    pub(super) format: Option<FormatName>,
    pub(super) order: Option<OrderFile>,
    pub(super) plies: Option<usize>,
    pub(super) start: Option<usize>,
    pub(super) per_game: Option<bool>,
    pub(super) random_plies: Option<usize>,
}

/// `openings.format`: read as one of the formats (`FormatFile`), written as the text the
/// configuration holds, so a format set by a library user is dumped as it is.
#[derive(Serialize)]
#[serde(transparent)]
pub(super) struct FormatName(pub(super) String);

impl<'de> Deserialize<'de> for FormatName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<FormatName, D::Error> {
        let name = match FormatFile::deserialize(deserializer)? {
            FormatFile::Epd => "epd",
            FormatFile::Pgn => "pgn",
            FormatFile::Polyglot => "polyglot",
        };
        Ok(FormatName(name.to_string()))
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum FormatFile {
    Epd,
    Pgn,
    Polyglot,
}

#[derive(Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum OrderFile {
    Random,
    Sequential,
}

/// The `[adjudication]` table as written in a match or SPSA file, before its checks
/// ([`read_adjudication`](super::read_adjudication)).
#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AdjudicationFile {
    pub(super) tablebase: Option<TablebaseFile>,
    pub(super) draw: Option<DrawFile>,
    pub(super) resign: Option<ResignFile>,
    pub(super) max_moves: Option<u32>,
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TablebaseFile {
    pub(super) path: Option<String>,
    pub(super) pieces: Option<u32>,
    pub(super) ignore_50: Option<bool>,
    pub(super) results: Option<String>,
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DrawFile {
    pub(super) move_number: Option<u32>,
    pub(super) move_count: Option<u32>,
    pub(super) score_cp: Option<i32>,
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ResignFile {
    pub(super) move_count: Option<u32>,
    pub(super) score_cp: Option<i32>,
    pub(super) two_sided: Option<bool>,
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(super) struct SprtFile {
    pub(super) elo0: Option<f64>,
    pub(super) elo1: Option<f64>,
    pub(super) alpha: Option<f64>,
    pub(super) beta: Option<f64>,
    pub(super) model: Option<String>,
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(super) struct OutputFile {
    pub(super) dir: Option<String>,
    pub(super) positions: Option<bool>,
    pub(super) positions_per_game: Option<usize>,
    pub(super) positions_format: Option<String>,
    pub(super) positions_resolve: Option<String>,
    pub(super) rating_interval: Option<u32>,
    pub(super) pgn_name: Option<String>,
    pub(super) pgn_mode: Option<String>,
    pub(super) pgn_minimal: Option<bool>,
    pub(super) pgn_notation: Option<String>,
    pub(super) engine_log: Option<String>,
    pub(super) engine_debug: Option<bool>,
    pub(super) format: Option<ResultsFormatFile>,
    pub(super) report_penta: Option<bool>,
    pub(super) move_data: Option<MoveDataFile>,
    pub(super) final_positions: Option<FinalPositionsFile>,
}

/// `output.final_positions = { file = "final.epd", format = "epd", append = true }`.
#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FinalPositionsFile {
    pub(super) file: Option<String>,
    pub(super) format: Option<String>,
    pub(super) append: Option<bool>,
}

#[derive(Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct MoveDataFile {
    pub(super) timeleft: Option<bool>,
    pub(super) latency: Option<bool>,
    pub(super) nodes: Option<bool>,
    pub(super) seldepth: Option<bool>,
    pub(super) nps: Option<bool>,
    pub(super) hashfull: Option<bool>,
    pub(super) tbhits: Option<bool>,
    pub(super) pv: Option<bool>,
    pub(super) match_lines: Option<Vec<String>>,
}

#[derive(Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum ResultsFormatFile {
    Fastchess,
    Cutechess,
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(super) struct EngineFile {
    pub(super) name: Option<String>,
    pub(super) time_control: Option<EngineTimeControlFile>,
    pub(super) builtin: Option<BuiltinFile>,
    pub(super) uci: Option<UciFile>,
    /// `uci` (the default) or `xboard`: what the engine of the `uci` table speaks.
    pub(super) protocol: Option<String>,
    /// A new engine for every game (cutechess's `restart=on`).
    pub(super) restart: Option<bool>,
    /// Think on the opponent's time (cutechess's `ponder`).
    pub(super) ponder: Option<bool>,
    /// Lines written to the engine as it starts (cutechess's `initstr`).
    pub(super) init_strings: Option<Vec<String>>,
    /// The file its standard error is appended to (cutechess's `stderr`).
    pub(super) stderr_file: Option<String>,
    /// Its result claims stand unchecked (cutechess's `trust`).
    pub(super) trust_claims: Option<bool>,
    /// Its scores are from White's point of view (cutechess's `whitepov`).
    pub(super) white_pov: Option<bool>,
    /// The factor on its protocol timeouts (cutechess's `tscale`).
    pub(super) timeout_scale: Option<f64>,
    /// `debug on` before each game, UCI only (cutechess's `debug`).
    pub(super) debug: Option<bool>,
    /// Its own Polyglot book (cutechess's `book`).
    pub(super) book: Option<String>,
    /// The book's depth in full moves (cutechess's `bookdepth`).
    pub(super) book_depth: Option<u32>,
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(super) struct BuiltinFile {
    pub(super) weights: Option<String>,
    /// A network file (bullet's quantised format) the engine evaluates with instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) net: Option<String>,
    pub(super) hash_mb: Option<usize>,
    pub(super) search: Option<String>,
    /// Syzygy tables the engine probes.
    pub(super) syzygy: Option<String>,
    pub(super) syzygy_probe_limit: Option<u32>,
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub(super) struct UciFile {
    pub(super) command: Option<String>,
    pub(super) args: Option<Vec<String>>,
    /// Sorted by name, so engines get their options in a fixed order.
    pub(super) options: Option<BTreeMap<String, toml::Value>>,
    pub(super) working_dir: Option<String>,
}
