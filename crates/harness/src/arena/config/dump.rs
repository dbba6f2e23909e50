//! Writing a configuration back as the TOML file `MatchConfig::parse` reads (`--dump-config`):
//! the configuration is turned into the file's serde shape, so every key is spelled once, in
//! `file`.

use super::file::{
    AdjudicationFile, BuiltinFile, DrawFile, EngineFile, EngineTimeControlFile, FinalPositionsFile,
    FormatName, KindFile, MatchFile, MoveDataFile, OpeningsFile, OrderFile, OutputFile, ResignFile,
    ResultsFormatFile, SprtFile, TablebaseFile, TimeControlFile, TournamentFile, UciFile,
    VariantFile,
};
use super::model::{
    Adjudication, EngineConfig, EngineKind, MatchConfig, OpeningOrder, OpeningsConfig,
    OutputConfig, Protocol, ResultsFormat, TimeControl, TournamentKind, Variant,
};
use super::seconds_text;
use crate::record::{MoveData, PgnNotation, PositionsResolve};
use crate::stats::SprtParams;
use std::path::Path;

impl MatchConfig {
    /// The TOML file that `MatchConfig::parse` reads back as this configuration (apart from
    /// `source`): what `--dump-config` writes.
    pub fn to_toml(&self) -> String {
        let file = MatchFile {
            tournament: Some(self.tournament_file()),
            each: None,
            time_control: Some(TimeControlFile {
                margin_ms: Some(capped(self.margin.as_millis())),
                ..TimeControlFile::from(limit_file(&self.time_control))
            }),
            openings: self.openings.as_ref().map(openings_file),
            adjudication: adjudication_file(&self.adjudication),
            sprt: self.sprt.as_ref().map(sprt_file),
            output: Some(output_file(&self.output)),
            engine: Some(self.engines.iter().map(engine_file).collect()),
            compliance: super::compliance::compliance_file(&self.compliance),
        };
        let mut doc = match toml::Value::try_from(&file) {
            Ok(toml::Value::Table(doc)) => doc,
            _ => return String::new(),
        };
        // One section at a time, in the order a person writes the file (a table sorts its keys).
        let order = [
            "tournament",
            "time_control",
            "openings",
            "adjudication",
            "sprt",
            "output",
            "compliance",
            "engine",
        ];
        let mut text = String::new();
        for key in order {
            if let Some((key, value)) = doc.remove_entry(key) {
                let section: toml::Table = std::iter::once((key, value)).collect();
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(&toml::to_string(&section).unwrap_or_default());
            }
        }
        text
    }

    fn tournament_file(&self) -> TournamentFile {
        // TOML integers are signed 64-bit: a larger seed is written as a string.
        let seed = match i64::try_from(self.seed) {
            Ok(s) => toml::Value::Integer(s),
            Err(_) => toml::Value::String(self.seed.to_string()),
        };
        TournamentFile {
            kind: Some(match self.kind {
                TournamentKind::Gauntlet => KindFile::Gauntlet,
                TournamentKind::RoundRobin => KindFile::RoundRobin,
            }),
            rounds: Some(self.rounds),
            single_last_game: self.single_last_game.then_some(true),
            concurrency: Some(capped(self.concurrency) as usize),
            seed: Some(seed),
            event: Some(self.event.clone()),
            site: Some(self.site.clone()),
            timeout_ms: Some(capped(self.timeout.as_millis())),
            max_restarts: Some(self.max_restarts),
            strict_options: Some(self.strict_options),
            variant: Some(match self.variant {
                Variant::Standard => VariantFile::Standard,
                Variant::Chess960 => VariantFile::Chess960,
            }),
            // The schedule keys are written only when not the default, as run.toml has them.
            seeds: (self.seeds.count != 1).then_some(self.seeds.count),
            seeds_play_each_other: (self.seeds.count != 1 && self.seeds.play_each_other)
                .then_some(true),
            swap_sides: (!self.swap_sides).then_some(false),
            reverse_sides: self.reverse_sides.then_some(true),
            wait_ms: (!self.wait.is_zero()).then(|| capped(self.wait.as_millis())),
        }
    }
}

/// A count as a TOML integer: the largest one (2^63 - 1) if it is larger.
fn capped(n: impl TryInto<i64>) -> u64 {
    n.try_into().unwrap_or(i64::MAX) as u64
}

fn path(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

impl From<EngineTimeControlFile> for TimeControlFile {
    fn from(limit: EngineTimeControlFile) -> TimeControlFile {
        TimeControlFile {
            nodes: limit.nodes,
            depth: limit.depth,
            movetime_ms: limit.movetime_ms,
            clock: limit.clock,
            margin_ms: None,
        }
    }
}

/// A limit as its one key of a `time_control` table.
fn limit_file(tc: &TimeControl) -> EngineTimeControlFile {
    let mut file = EngineTimeControlFile {
        nodes: None,
        depth: None,
        movetime_ms: None,
        clock: None,
    };
    match tc {
        TimeControl::Nodes(n) => file.nodes = Some(capped(*n)),
        TimeControl::Depth(d) => file.depth = Some(*d),
        TimeControl::MoveTime(d) => file.movetime_ms = Some(capped(d.as_millis())),
        TimeControl::Clock {
            moves,
            base,
            increment,
        } => {
            let moves = moves.map(|m| format!("{m}/")).unwrap_or_default();
            let (base, increment) = (seconds_text(*base), seconds_text(*increment));
            file.clock = Some(format!("{moves}{base}+{increment}"));
        }
    }
    file
}

fn openings_file(o: &OpeningsConfig) -> OpeningsFile {
    OpeningsFile {
        file: Some(path(&o.file)),
        format: o.format.clone().map(FormatName),
        order: Some(match o.order {
            OpeningOrder::Random => OrderFile::Random,
            OpeningOrder::Sequential => OrderFile::Sequential,
        }),
        plies: o.plies.map(|p| capped(p) as usize),
        start: Some(capped(o.start) as usize),
        per_game: Some(o.per_game),
        random_plies: Some(capped(o.random_plies) as usize),
    }
}

/// The `[adjudication]` table, left out when no rule is on.
fn adjudication_file(adj: &Adjudication) -> Option<AdjudicationFile> {
    if adj.draw.is_none()
        && adj.resign.is_none()
        && adj.max_moves.is_none()
        && adj.tablebase.is_none()
    {
        return None;
    }
    Some(AdjudicationFile {
        tablebase: adj.tablebase.as_ref().map(|t| TablebaseFile {
            path: Some(t.path.display().to_string()),
            pieces: Some(t.pieces),
            ignore_50: Some(t.ignore_50),
            results: Some(t.results.name().to_string()),
        }),
        draw: adj.draw.as_ref().map(|d| DrawFile {
            move_number: Some(d.move_number),
            move_count: Some(d.move_count),
            score_cp: Some(d.score_cp),
        }),
        resign: adj.resign.as_ref().map(|r| ResignFile {
            move_count: Some(r.move_count),
            score_cp: Some(r.score_cp),
            two_sided: Some(r.two_sided),
        }),
        max_moves: adj.max_moves,
    })
}

fn sprt_file(sprt: &SprtParams) -> SprtFile {
    SprtFile {
        elo0: Some(sprt.elo0()),
        elo1: Some(sprt.elo1()),
        alpha: Some(sprt.alpha()),
        beta: Some(sprt.beta()),
        model: Some(sprt.model().to_string()),
    }
}

fn output_file(out: &OutputConfig) -> OutputFile {
    OutputFile {
        dir: Some(path(&out.dir)),
        positions: Some(out.positions),
        positions_per_game: Some(capped(out.positions_per_game) as usize),
        positions_format: Some(out.positions_format.name().to_string()),
        // Written only when not the default, so dumps of runs from before the key are unchanged.
        positions_resolve: (out.positions_resolve != PositionsResolve::None)
            .then(|| out.positions_resolve.name().to_string()),
        rating_interval: Some(out.rating_interval),
        pgn_name: Some(out.pgn_name.clone()),
        pgn_mode: Some(out.pgn_mode.name().to_string()),
        // Like positions_resolve: written only when not the default.
        pgn_minimal: out.pgn_style.minimal.then_some(true),
        pgn_notation: (out.pgn_style.notation != PgnNotation::San)
            .then(|| out.pgn_style.notation.name().to_string()),
        engine_log: out.engine_log.as_deref().map(path),
        engine_debug: out.engine_debug.then_some(true),
        format: Some(match out.format {
            ResultsFormat::Fastchess => ResultsFormatFile::Fastchess,
            ResultsFormat::Cutechess => ResultsFormatFile::Cutechess,
        }),
        report_penta: Some(out.report_penta),
        final_positions: out.final_positions.as_ref().map(|f| FinalPositionsFile {
            file: Some(f.file.clone()),
            format: Some(if f.full_fen { "fen" } else { "epd" }.to_string()),
            append: Some(f.append),
        }),
        move_data: (out.move_data != MoveData::default()).then(|| {
            let m = &out.move_data;
            MoveDataFile {
                timeleft: Some(m.timeleft),
                latency: Some(m.latency),
                nodes: Some(m.nodes),
                seldepth: Some(m.seldepth),
                nps: Some(m.nps),
                hashfull: Some(m.hashfull),
                tbhits: Some(m.tbhits),
                pv: Some(m.pv),
                match_lines: Some(m.match_lines.clone()),
            }
        }),
    }
}

fn engine_file(e: &EngineConfig) -> EngineFile {
    let (builtin, uci) = match &e.kind {
        EngineKind::Builtin {
            weights,
            net,
            hash_mb,
            search,
            syzygy,
        } => {
            let builtin = BuiltinFile {
                weights: weights.as_deref().map(path),
                net: net.as_deref().map(path),
                hash_mb: Some(capped(*hash_mb) as usize),
                search: search.as_deref().map(path),
                syzygy: syzygy.as_ref().map(|s| path(&s.path)),
                syzygy_probe_limit: syzygy.as_ref().map(|s| s.probe_limit),
            };
            (Some(builtin), None)
        }
        EngineKind::Uci {
            command,
            args,
            options,
            working_dir,
        } => {
            let options = options
                .iter()
                .map(|(name, value)| (name.clone(), toml::Value::String(value.clone())))
                .collect();
            let uci = UciFile {
                command: Some(command.clone()),
                args: Some(args.clone()),
                options: Some(options),
                working_dir: working_dir.as_deref().map(path),
            };
            (None, Some(uci))
        }
    };
    EngineFile {
        name: Some(e.name.clone()),
        time_control: e.time_control.as_ref().map(limit_file),
        builtin,
        uci,
        // Written only for xboard engines, so UCI runs dump as before.
        protocol: (e.protocol != Protocol::Uci).then(|| e.protocol.name().to_string()),
        restart: e.restart.then_some(true),
        ponder: e.settings.ponder.then_some(true),
        // The keys below are written only when set, as `ponder`.
        init_strings: (!e.settings.init_strings.is_empty())
            .then(|| e.settings.init_strings.clone()),
        stderr_file: e.settings.stderr_file.as_deref().map(path),
        trust_claims: e.settings.trust_claims.then_some(true),
        white_pov: e.settings.white_pov.then_some(true),
        timeout_scale: e.settings.timeout_scale,
        debug: e.settings.debug.then_some(true),
        book: e.settings.book.as_deref().map(path),
        book_depth: e.settings.book_depth,
    }
}
