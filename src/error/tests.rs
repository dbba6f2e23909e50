//! One table per error type: every variant, constructed, and the class it must have (bad
//! input is exit status 2, a failed run 1). A variant that wraps another error is listed with
//! an inner error of each class when the class comes from the inner one.

use super::{class_of, ErrorClass, Failure, Failure::BadInput, Failure::FailedRun};
use crate::arena::manifest::SliceKeyError;
use crate::arena::schedule::{BookSetupError, ShardError, Slice, WaveError};
use crate::arena::{ArenaError, FiguresError, LockError, ManifestError, MergeError, PlayerError};
use crate::board::{Color, FenError, MoveParseError, SanError, Square};
use crate::eval::WeightsError;
use crate::openings::generate::GenerateError;
use crate::openings::{BadLine, BadLineReason, EpdOperationError, FormatNameError, OpeningsError};
use crate::record::bullet::{BulletError, BulletIndexError, ConvertError};
use crate::record::{GamesCsvError, PositionLineError};
use crate::search::params::SearchParamError;
use crate::search::TableAllocError;
use crate::stats::StatsError;
use crate::tablebase::{TableKind, TablebaseError};
use crate::toml_config::ConfigError;
use crate::tune::ladder::{LoopError, Stage};
use crate::tune::spsa::SpsaError;
use crate::tune::{DataError, Diverged, TraceError, TuneError};
use crate::uci::{PositionError, UciError};
use std::path::PathBuf;

/// Asserts each error's class, and that `class_of` finds the same class through `dyn Error`.
fn check<E: ErrorClass + std::error::Error + 'static>(cases: Vec<(E, Failure)>) {
    for (error, class) in &cases {
        assert_eq!(error.class(), *class, "{error:?}");
        assert_eq!(class_of(error), Some(*class), "{error:?}");
    }
}

fn s() -> String {
    "x".to_string()
}

fn p() -> PathBuf {
    PathBuf::from("x")
}

fn io() -> std::io::Error {
    std::io::Error::other("x")
}

fn config() -> ConfigError {
    ConfigError::Syntax {
        file: s(),
        line: 1,
        column: 1,
        message: s(),
    }
}

fn fen() -> FenError {
    FenError::FieldCount { found: 1 }
}

fn weights() -> WeightsError {
    WeightsError::Document(config())
}

fn weights_write() -> WeightsError {
    WeightsError::Write {
        file: s(),
        source: io(),
    }
}

fn trace(run_failed: bool) -> TraceError {
    TraceError {
        message: s(),
        run_failed,
    }
}

fn lock_held() -> LockError {
    LockError::Held {
        dir: p(),
        pid: 1,
        host: s(),
    }
}

fn lock_io() -> LockError {
    LockError::Io {
        path: p(),
        source: io(),
    }
}

#[test]
fn an_error_of_another_type_has_no_class_and_a_box_delegates() {
    assert_eq!(class_of(&std::fmt::Error), None);
    assert_eq!(Box::new(lock_held()).class(), BadInput);
    assert_eq!(io().class(), FailedRun);
}

#[test]
fn every_config_error_variant_has_its_class() {
    check(vec![
        (
            ConfigError::Io {
                file: s(),
                source: io(),
            },
            BadInput,
        ),
        (
            ConfigError::Syntax {
                file: s(),
                line: 1,
                column: 1,
                message: s(),
            },
            BadInput,
        ),
        (
            ConfigError::Missing {
                file: s(),
                line: 1,
                column: 1,
                key: s(),
                expected: s(),
            },
            BadInput,
        ),
        (
            ConfigError::Invalid {
                file: s(),
                line: 1,
                column: 1,
                key: s(),
                expected: s(),
                found: s(),
            },
            BadInput,
        ),
        (
            ConfigError::UnknownKey {
                file: s(),
                line: 1,
                column: 1,
                key: s(),
                expected: s(),
            },
            BadInput,
        ),
        (
            ConfigError::Other {
                file: s(),
                line: 1,
                column: 1,
                key: s(),
                message: s(),
            },
            BadInput,
        ),
    ]);
}

#[test]
fn every_weights_error_variant_has_its_class() {
    check(vec![
        (WeightsError::Document(config()), BadInput),
        (
            WeightsError::Write {
                file: s(),
                source: io(),
            },
            FailedRun,
        ),
        (
            WeightsError::MateRange {
                file: s(),
                line: 1,
                column: 1,
                key: s(),
                phase: "x",
                bound: 1,
                limit: 1,
                shares: s(),
            },
            BadInput,
        ),
    ]);
}

#[test]
fn every_openings_error_variant_has_its_class() {
    check(vec![
        (
            OpeningsError::Io {
                path: p(),
                source: io(),
            },
            BadInput,
        ),
        (
            OpeningsError::NotAFile {
                path: p(),
                what: "x",
            },
            BadInput,
        ),
        (OpeningsError::UnknownFormat { path: p() }, BadInput),
        (
            OpeningsError::Refused(Box::new(BadLine {
                path: p(),
                line: 1,
                reason: BadLineReason::NoLegalMoves,
            })),
            BadInput,
        ),
        (
            OpeningsError::NoOpenings {
                path: p(),
                rejected: 1,
            },
            BadInput,
        ),
        (OpeningsError::PolyglotSize { path: p(), size: 1 }, BadInput),
        (
            OpeningsError::PolyglotUnsorted {
                path: p(),
                entry: 1,
            },
            BadInput,
        ),
        (
            OpeningsError::StartOutOfRange {
                path: p(),
                start: 1,
                len: 1,
            },
            BadInput,
        ),
        (OpeningsError::TooLarge { path: p() }, BadInput),
    ]);
}

#[test]
fn every_bad_line_reason_variant_has_its_class() {
    check(vec![
        (BadLineReason::Fen(fen()), BadInput),
        (BadLineReason::Opcode(s()), BadInput),
        (
            BadLineReason::Move {
                ply: 1,
                number: s(),
                text: s(),
                error: SanError::Malformed {
                    text: s(),
                    reason: "x",
                },
            },
            BadInput,
        ),
        (BadLineReason::NoLegalMoves, BadInput),
        (BadLineReason::Syntax("x"), BadInput),
        (BadLineReason::Variant(s()), BadInput),
        (BadLineReason::NotUtf8, BadInput),
    ]);
}

#[test]
fn every_generate_error_variant_has_its_class() {
    check(vec![
        (GenerateError::EmptyWindow { min: 1, max: 1 }, BadInput),
        (GenerateError::Zero, BadInput),
        (
            GenerateError::OutOfRange {
                option: "x",
                value: s(),
                expected: "x",
            },
            BadInput,
        ),
        (
            GenerateError::GaveUp {
                found: 1,
                count: 1,
                tried: 1,
            },
            FailedRun,
        ),
    ]);
}

#[test]
fn every_epd_operation_error_variant_has_its_class() {
    check(vec![
        (EpdOperationError::ExpectedOpcode { found: s() }, BadInput),
        (
            EpdOperationError::UnterminatedString { opcode: s() },
            BadInput,
        ),
    ]);
}

#[test]
fn every_stats_error_variant_has_its_class() {
    check(vec![
        (
            StatsError::FieldCount {
                format: "x",
                expected: 1,
                found: 1,
            },
            BadInput,
        ),
        (
            StatsError::BadCount {
                field: "x",
                value: s(),
            },
            BadInput,
        ),
        (StatsError::BadScore(1.0), BadInput),
        (
            StatsError::BadProbability {
                name: "x",
                value: 1.0,
            },
            BadInput,
        ),
        (
            StatsError::NonFiniteElo {
                name: "x",
                value: 1.0,
            },
            BadInput,
        ),
        (
            StatsError::EloOrder {
                elo0: 1.0,
                elo1: 1.0,
            },
            BadInput,
        ),
        (StatsError::UnknownModel(s()), BadInput),
        (StatsError::CountOverflow { format: "x" }, BadInput),
        (StatsError::BayesEloNeedsWdl, BadInput),
    ]);
}

#[test]
fn every_games_csv_error_variant_has_its_class() {
    check(vec![
        (
            GamesCsvError::Io {
                path: p(),
                source: io(),
            },
            FailedRun,
        ),
        (GamesCsvError::Header { path: p() }, BadInput),
        (
            GamesCsvError::Row {
                path: p(),
                line: 1,
                message: s(),
            },
            BadInput,
        ),
        (
            GamesCsvError::Duplicate {
                path: p(),
                line: 1,
                game_id: 1,
            },
            BadInput,
        ),
    ]);
}

#[test]
fn every_bullet_error_variant_has_its_class() {
    check(vec![
        (BulletError::Line(PositionLineError::MissingLabel), BadInput),
        (BulletError::Fen(fen()), BadInput),
        (BulletError::NoScore, BadInput),
        (BulletError::NotAResult { label: 1.0 }, BadInput),
        (BulletError::Malformed { found: s() }, BadInput),
        (BulletError::BadScore { found: s() }, BadInput),
        (BulletError::BadResult { found: s() }, BadInput),
    ]);
}

#[test]
fn every_bullet_index_error_variant_has_its_class() {
    check(vec![
        (BulletIndexError::Header, BadInput),
        (BulletIndexError::Row { line: 2 }, BadInput),
        (
            BulletIndexError::Short {
                line: 2,
                game: 1,
                count: 3,
                bullet: s(),
            },
            BadInput,
        ),
    ]);
}

#[test]
fn every_figures_error_variant_has_its_class() {
    check(vec![
        (FiguresError::Header, BadInput),
        (FiguresError::Row { line: 2 }, BadInput),
    ]);
}

#[test]
fn every_convert_error_variant_has_its_class() {
    check(vec![
        (
            ConvertError::Read {
                file: s(),
                error: io(),
            },
            FailedRun,
        ),
        (
            ConvertError::Write {
                file: s(),
                error: io(),
            },
            FailedRun,
        ),
    ]);
}

#[test]
fn every_position_line_error_variant_has_its_class() {
    check(vec![
        (PositionLineError::Fen(fen()), BadInput),
        (PositionLineError::MissingLabel, BadInput),
        (PositionLineError::BadLabel { found: s() }, BadInput),
        (PositionLineError::Duplicate { opcode: s() }, BadInput),
        (PositionLineError::TrailingText { found: s() }, BadInput),
        (
            PositionLineError::Operation(EpdOperationError::ExpectedOpcode { found: s() }),
            BadInput,
        ),
        (PositionLineError::BadScore { found: s() }, BadInput),
        (PositionLineError::NotUtf8, BadInput),
    ]);
}

#[test]
fn every_uci_error_variant_has_its_class() {
    check(vec![
        (UciError::Weights(weights()), BadInput),
        (UciError::Weights(weights_write()), FailedRun),
        (UciError::Input(io()), FailedRun),
    ]);
}

#[test]
fn every_position_error_variant_has_its_class() {
    check(vec![
        (PositionError::MissingSetup, BadInput),
        (PositionError::MissingFen, BadInput),
        (PositionError::BadFen(fen()), BadInput),
        (
            PositionError::BadMove {
                number: 1,
                source: MoveParseError::Malformed { text: s() },
            },
            BadInput,
        ),
    ]);
}

#[test]
fn every_tablebase_error_variant_has_its_class() {
    check(vec![
        (
            TablebaseError::Unreadable {
                path: s(),
                source: io(),
            },
            BadInput,
        ),
        (TablebaseError::NotADirectory { path: s() }, BadInput),
        (TablebaseError::NoTables { path: s() }, BadInput),
        (TablebaseError::UnsupportedPath { path: s() }, BadInput),
        (
            TablebaseError::OtherSetOpen {
                open: s(),
                requested: s(),
            },
            BadInput,
        ),
        (
            TablebaseError::Init {
                path: s(),
                reason: s(),
            },
            FailedRun,
        ),
        (
            TablebaseError::TooManyPieces {
                pieces: 1,
                max: 1,
                path: s(),
            },
            BadInput,
        ),
        (TablebaseError::CastlingRights, BadInput),
        (
            TablebaseError::MissingTable {
                table: s(),
                kind: TableKind::Wdl,
                position_table: s(),
                path: s(),
            },
            BadInput,
        ),
        (
            TablebaseError::ProbeFailed {
                table: s(),
                path: s(),
            },
            FailedRun,
        ),
    ]);
}

#[test]
fn every_data_error_variant_has_its_class() {
    check(vec![
        (
            DataError::Io {
                file: s(),
                error: io(),
            },
            FailedRun,
        ),
        (DataError::Missing { file: s() }, BadInput),
        (DataError::NotAFile { file: s() }, BadInput),
        (
            DataError::BadPattern {
                pattern: s(),
                column: 1,
                message: s(),
            },
            BadInput,
        ),
        (DataError::NoMatch { pattern: s() }, BadInput),
        (DataError::LineTooLong { file: s(), line: 1 }, BadInput),
        (DataError::TooLarge { file: s() }, BadInput),
        (
            DataError::Trace {
                file: s(),
                line: 1,
                fen: s(),
                error: trace(false),
            },
            BadInput,
        ),
        (
            DataError::Trace {
                file: s(),
                line: 1,
                fen: s(),
                error: trace(true),
            },
            FailedRun,
        ),
    ]);
}

#[test]
fn every_tune_error_variant_has_its_class() {
    check(vec![
        (TuneError::Config(config()), BadInput),
        (TuneError::Data(DataError::Missing { file: s() }), BadInput),
        (
            TuneError::Data(DataError::Io {
                file: s(),
                error: io(),
            }),
            FailedRun,
        ),
        (TuneError::Weights(weights()), BadInput),
        (TuneError::Weights(weights_write()), FailedRun),
        (
            TuneError::NoPositions {
                files: s(),
                skipped: 1,
            },
            BadInput,
        ),
        (TuneError::NothingToTune { config: s() }, BadInput),
        (TuneError::ValidationFraction { value: 1.0 }, BadInput),
        (
            TuneError::NoTrainingData {
                value: 1.0,
                positions: 1,
            },
            BadInput,
        ),
        (
            TuneError::TooManyThreads {
                requested: 1,
                available: 1,
            },
            BadInput,
        ),
        (
            TuneError::TooManyForNewton {
                pairs: 2000,
                max: 1024,
            },
            BadInput,
        ),
        (
            TuneError::OutputDir {
                dir: s(),
                error: io(),
            },
            FailedRun,
        ),
        (
            TuneError::Output {
                file: s(),
                error: io(),
            },
            FailedRun,
        ),
        (
            TuneError::Threads {
                threads: 1,
                message: s(),
            },
            FailedRun,
        ),
        (TuneError::Engine(trace(false)), BadInput),
        (TuneError::Engine(trace(true)), FailedRun),
        (
            TuneError::Diverged(Diverged {
                epoch: 1,
                what: "x",
                value: 1.0,
                learning_rate: 1.0,
                l2: 1.0,
            }),
            BadInput,
        ),
        (
            TuneError::UnusableWeights {
                file: p(),
                source: Box::new(weights()),
            },
            BadInput,
        ),
    ]);
}

#[test]
fn every_loop_error_variant_has_its_class() {
    check(vec![
        (LoopError::Config(config()), BadInput),
        (LoopError::Weights(weights()), BadInput),
        (LoopError::Weights(weights_write()), FailedRun),
        (
            LoopError::Openings {
                stage: Stage::Gate,
                source: BookSetupError::Format(FormatNameError(s())),
            },
            BadInput,
        ),
        (
            LoopError::Match {
                generation: 1,
                stage: Stage::Gate,
                source: ArenaError::UnpairedSlice,
            },
            BadInput,
        ),
        (
            LoopError::Match {
                generation: 1,
                stage: Stage::Gate,
                source: ArenaError::Io {
                    path: s(),
                    source: io(),
                },
            },
            FailedRun,
        ),
        (
            LoopError::Tune {
                generation: 1,
                source: TuneError::NothingToTune { config: s() },
            },
            BadInput,
        ),
        (
            LoopError::Tune {
                generation: 1,
                source: TuneError::Threads {
                    threads: 1,
                    message: s(),
                },
            },
            FailedRun,
        ),
        (
            LoopError::Spsa {
                generation: 1,
                source: SpsaError::RunExists { dir: p() },
            },
            BadInput,
        ),
        (
            LoopError::Spsa {
                generation: 1,
                source: SpsaError::Io {
                    path: p(),
                    source: io(),
                },
            },
            FailedRun,
        ),
        (
            LoopError::Merge {
                generation: 1,
                source: MergeError::NoDirectories,
            },
            FailedRun,
        ),
        (
            LoopError::Io {
                path: p(),
                source: io(),
            },
            FailedRun,
        ),
        (LoopError::Lock(lock_held()), BadInput),
        (LoopError::Lock(lock_io()), FailedRun),
        (LoopError::OutputExists { dir: p() }, BadInput),
        (
            LoopError::Mismatch {
                dir: p(),
                changes: s(),
            },
            BadInput,
        ),
        (
            LoopError::Damaged {
                path: p(),
                message: s(),
            },
            BadInput,
        ),
    ]);
}

#[test]
fn every_spsa_error_variant_has_its_class() {
    check(vec![
        (SpsaError::Config(config()), BadInput),
        (
            SpsaError::Openings {
                config: s(),
                source: BookSetupError::Format(FormatNameError(s())),
            },
            BadInput,
        ),
        (
            SpsaError::Engine(PlayerError::NoChess960 { command: s() }),
            BadInput,
        ),
        (
            SpsaError::Engine(PlayerError::Spawn {
                command: s(),
                reason: s(),
            }),
            FailedRun,
        ),
        (
            SpsaError::Io {
                path: p(),
                source: io(),
            },
            FailedRun,
        ),
        (SpsaError::Lock(lock_held()), BadInput),
        (SpsaError::Lock(lock_io()), FailedRun),
        (SpsaError::RunExists { dir: p() }, BadInput),
        (SpsaError::NothingToResume { dir: p() }, BadInput),
        (
            SpsaError::Changed {
                dir: p(),
                keys: s(),
            },
            BadInput,
        ),
        (
            SpsaError::Corrupt {
                path: p(),
                message: s(),
            },
            BadInput,
        ),
        (SpsaError::WrongEngine { expected: "x" }, BadInput),
        (
            SpsaError::TooManyShards {
                shards: 1,
                pairs: 1,
            },
            BadInput,
        ),
        (
            SpsaError::BarrierTimeout {
                iteration: 1,
                seconds: 1,
                missing: s(),
            },
            FailedRun,
        ),
        (
            SpsaError::ShardMismatch {
                path: p(),
                message: s(),
            },
            BadInput,
        ),
    ]);
}

#[test]
fn every_arena_error_variant_has_its_class() {
    check(vec![
        (
            ArenaError::EngineStart {
                name: s(),
                source: PlayerError::NoChess960 { command: s() },
            },
            BadInput,
        ),
        (
            ArenaError::EngineStart {
                name: s(),
                source: PlayerError::Spawn {
                    command: s(),
                    reason: s(),
                },
            },
            FailedRun,
        ),
        (
            ArenaError::OptionValue {
                name: s(),
                source: PlayerError::NoChess960 { command: s() },
            },
            BadInput,
        ),
        (
            ArenaError::OptionValue {
                name: s(),
                source: PlayerError::Spawn {
                    command: s(),
                    reason: s(),
                },
            },
            FailedRun,
        ),
        (
            ArenaError::UndeclaredOption {
                name: s(),
                option: s(),
            },
            BadInput,
        ),
        (
            ArenaError::EngineRestart {
                name: s(),
                attempts: 1,
                source: PlayerError::NoChess960 { command: s() },
            },
            FailedRun,
        ),
        (
            ArenaError::Weights {
                name: s(),
                source: Box::new(weights()),
            },
            BadInput,
        ),
        (
            ArenaError::Weights {
                name: s(),
                source: Box::new(weights_write()),
            },
            FailedRun,
        ),
        (
            ArenaError::SearchParams {
                name: s(),
                source: Box::new(config()),
            },
            BadInput,
        ),
        (
            ArenaError::HashTooLarge {
                config: s(),
                name: s(),
                hash_mb: 1,
                available_mb: 1,
            },
            BadInput,
        ),
        (
            ArenaError::Io {
                path: s(),
                source: io(),
            },
            FailedRun,
        ),
    ]);
}

#[test]
fn every_arena_error_variant_has_its_class_continued() {
    check(vec![
        (
            ArenaError::OutputNotDirectory {
                config: s(),
                dir: p(),
            },
            BadInput,
        ),
        (
            ArenaError::Resume {
                path: p(),
                problem: s(),
            },
            BadInput,
        ),
        (
            ArenaError::ResumeBulletIndex {
                path: p(),
                source: BulletIndexError::Row { line: 3 },
            },
            BadInput,
        ),
        (
            ArenaError::GamesCsv(GamesCsvError::Header { path: p() }),
            BadInput,
        ),
        (
            ArenaError::GamesCsv(GamesCsvError::Io {
                path: p(),
                source: io(),
            }),
            FailedRun,
        ),
        (
            ArenaError::Manifest(ManifestError::Malformed {
                path: p(),
                message: s(),
            }),
            BadInput,
        ),
        (
            ArenaError::Manifest(ManifestError::Io {
                path: p(),
                source: io(),
            }),
            FailedRun,
        ),
        (ArenaError::Wave(WaveError::ZeroPairs), BadInput),
        (ArenaError::Lock(lock_held()), BadInput),
        (ArenaError::Lock(lock_io()), FailedRun),
        (ArenaError::OutputExists { dir: s() }, BadInput),
        (ArenaError::UnpairedSlice, BadInput),
    ]);
}

#[test]
fn every_merge_error_variant_has_its_class() {
    check(vec![
        (MergeError::NoDirectories, BadInput),
        (MergeError::NoManifest { dir: p() }, BadInput),
        (
            MergeError::Manifest(ManifestError::Malformed {
                path: p(),
                message: s(),
            }),
            BadInput,
        ),
        (
            MergeError::Manifest(ManifestError::Io {
                path: p(),
                source: io(),
            }),
            FailedRun,
        ),
        (
            MergeError::BadManifest {
                dir: p(),
                message: s(),
            },
            BadInput,
        ),
        (
            MergeError::SliceKeys {
                dir: p(),
                source: SliceKeyError::NotANumber { key: "x" },
            },
            BadInput,
        ),
        (
            MergeError::DifferentConfiguration {
                first: p(),
                other: p(),
                changes: Vec::new(),
            },
            BadInput,
        ),
        (
            MergeError::DifferentSplit {
                first: p(),
                first_shard: s(),
                other: p(),
                other_shard: s(),
            },
            BadInput,
        ),
        (
            MergeError::MixedWaves {
                wave_dir: p(),
                wave: 1,
                other: p(),
            },
            BadInput,
        ),
    ]);
}

#[test]
fn every_merge_error_variant_has_its_class_continued() {
    check(vec![
        (
            MergeError::DifferentWaveSize {
                first: p(),
                first_pairs: 1,
                other: p(),
                other_pairs: 1,
            },
            BadInput,
        ),
        (
            MergeError::ShardTwice {
                shard: Slice {
                    wave: None,
                    shard: None,
                },
                first: p(),
                second: p(),
            },
            BadInput,
        ),
        (
            MergeError::ForeignGame {
                path: p(),
                line: 1,
                shard: Slice {
                    wave: None,
                    shard: None,
                },
                game_id: 1,
                range: 0..2,
            },
            BadInput,
        ),
        (
            MergeError::Missing {
                missing: Vec::new(),
                total: 1,
            },
            BadInput,
        ),
        (
            MergeError::GamesCsv(GamesCsvError::Header { path: p() }),
            BadInput,
        ),
        (
            MergeError::GamesCsv(GamesCsvError::Io {
                path: p(),
                source: io(),
            }),
            FailedRun,
        ),
        (
            MergeError::Damaged {
                path: p(),
                message: s(),
            },
            BadInput,
        ),
        (
            MergeError::BulletIndex {
                path: p(),
                source: BulletIndexError::Header,
            },
            BadInput,
        ),
        (
            MergeError::Figures {
                path: p(),
                source: FiguresError::Row { line: 2 },
            },
            BadInput,
        ),
        (MergeError::OutputIsShard { dir: p() }, BadInput),
        (
            MergeError::OutputInUse {
                dir: p(),
                reason: s(),
            },
            BadInput,
        ),
        (
            MergeError::Io {
                path: p(),
                source: io(),
            },
            FailedRun,
        ),
    ]);
}

#[test]
fn every_manifest_error_variant_has_its_class() {
    check(vec![
        (
            ManifestError::Io {
                path: p(),
                source: io(),
            },
            FailedRun,
        ),
        (
            ManifestError::Malformed {
                path: p(),
                message: s(),
            },
            BadInput,
        ),
        (
            ManifestError::Mismatch {
                dir: p(),
                changes: Vec::new(),
            },
            BadInput,
        ),
    ]);
}

#[test]
fn every_slice_key_error_variant_has_its_class() {
    check(vec![
        (SliceKeyError::NotANumber { key: "x" }, BadInput),
        (SliceKeyError::Shard(ShardError::ZeroCount), BadInput),
        (SliceKeyError::Wave(WaveError::ZeroPairs), BadInput),
    ]);
}

#[test]
fn every_lock_error_variant_has_its_class() {
    check(vec![
        (
            LockError::Held {
                dir: p(),
                pid: 1,
                host: s(),
            },
            BadInput,
        ),
        (
            LockError::Io {
                path: p(),
                source: io(),
            },
            FailedRun,
        ),
    ]);
}

#[test]
fn every_player_error_variant_has_its_class() {
    check(vec![
        (
            PlayerError::Spawn {
                command: s(),
                reason: s(),
            },
            FailedRun,
        ),
        (
            PlayerError::Handshake {
                command: s(),
                expected: s(),
                waited_ms: 1,
            },
            FailedRun,
        ),
        (PlayerError::Disconnected { detail: s() }, FailedRun),
        (PlayerError::Timeout { waited_ms: 1 }, FailedRun),
        (
            PlayerError::Table(TableAllocError::TooLarge {
                requested: 1,
                max: 1,
            }),
            BadInput,
        ),
        (
            PlayerError::Table(TableAllocError::OutOfMemory { megabytes: 1 }),
            FailedRun,
        ),
        (
            PlayerError::OptionValue {
                name: s(),
                value: s(),
                allowed: s(),
            },
            BadInput,
        ),
        (PlayerError::NoChess960 { command: s() }, BadInput),
        (
            PlayerError::Unsupported {
                command: s(),
                what: s(),
            },
            BadInput,
        ),
        (PlayerError::Resigned, FailedRun),
        (PlayerError::InvalidClaim { claim: s() }, FailedRun),
        (PlayerError::Refused { line: s() }, FailedRun),
        (
            PlayerError::BadOption {
                name: s(),
                what: "x",
            },
            BadInput,
        ),
    ]);
}

#[test]
fn every_book_setup_error_variant_has_its_class() {
    check(vec![
        (BookSetupError::Format(FormatNameError(s())), BadInput),
        (
            BookSetupError::Open(OpeningsError::TooLarge { path: p() }),
            BadInput,
        ),
        (
            BookSetupError::Chess960InStandard {
                file: p(),
                line: 1,
                fen: s(),
            },
            BadInput,
        ),
    ]);
}

#[test]
fn every_shard_error_variant_has_its_class() {
    check(vec![
        (ShardError::Malformed(s()), BadInput),
        (ShardError::OutOfRange { index: 1, count: 1 }, BadInput),
        (ShardError::ZeroCount, BadInput),
    ]);
}

#[test]
fn every_wave_error_variant_has_its_class() {
    check(vec![
        (WaveError::ZeroPairs, BadInput),
        (
            WaveError::PastTheEnd {
                index: 1,
                pairs: 1,
                total_pairs: 1,
            },
            BadInput,
        ),
    ]);
}

#[test]
fn every_table_alloc_error_variant_has_its_class() {
    check(vec![
        (
            TableAllocError::TooLarge {
                requested: 1,
                max: 1,
            },
            BadInput,
        ),
        (TableAllocError::OutOfMemory { megabytes: 1 }, FailedRun),
    ]);
}

#[test]
fn every_search_param_error_variant_has_its_class() {
    check(vec![
        (SearchParamError::Unknown { key: s() }, BadInput),
        (
            SearchParamError::OutOfRange {
                key: "x",
                value: 1.0,
                expected: s(),
            },
            BadInput,
        ),
    ]);
}

#[test]
fn every_fen_error_variant_has_its_class() {
    check(vec![
        (FenError::FieldCount { found: 1 }, BadInput),
        (FenError::RankCount { found: 1 }, BadInput),
        (FenError::BadPiece { rank: 'x', ch: 'x' }, BadInput),
        (FenError::RankTooLong { rank: 'x' }, BadInput),
        (
            FenError::RankTooShort {
                rank: 'x',
                squares: 1,
            },
            BadInput,
        ),
        (
            FenError::MissingKing {
                color: Color::White,
            },
            BadInput,
        ),
        (
            FenError::ExtraKing {
                color: Color::White,
                count: 1,
            },
            BadInput,
        ),
        (
            FenError::PawnOnBackRank {
                square: Square::from_index(0),
            },
            BadInput,
        ),
        (
            FenError::TooManyPieces {
                color: Color::White,
                count: 1,
                what: "x",
            },
            BadInput,
        ),
        (FenError::BadSideToMove { found: s() }, BadInput),
        (
            FenError::OpponentInCheck {
                color: Color::White,
            },
            BadInput,
        ),
        (
            FenError::ImpossibleCheck {
                color: Color::White,
                checkers: 1,
            },
            BadInput,
        ),
        (FenError::BadCastling { found: s() }, BadInput),
        (
            FenError::CastlingMismatch {
                right: 'x',
                color: Color::White,
                needs: s(),
            },
            BadInput,
        ),
        (FenError::BadEnPassant { found: s() }, BadInput),
        (
            FenError::ImpossibleEnPassant {
                square: Square::from_index(0),
                reason: "x",
            },
            BadInput,
        ),
        (FenError::BadHalfmoveClock { found: s() }, BadInput),
        (FenError::BadFullmoveNumber { found: s() }, BadInput),
    ]);
}

#[test]
fn every_move_parse_error_variant_has_its_class() {
    check(vec![
        (MoveParseError::Malformed { text: s() }, BadInput),
        (
            MoveParseError::Illegal {
                text: s(),
                reason: "x",
            },
            BadInput,
        ),
    ]);
}

#[test]
fn every_san_error_variant_has_its_class() {
    check(vec![
        (
            SanError::Malformed {
                text: s(),
                reason: "x",
            },
            BadInput,
        ),
        (
            SanError::Illegal {
                text: s(),
                reason: "x",
            },
            BadInput,
        ),
        (
            SanError::Ambiguous {
                text: s(),
                candidates: Vec::new(),
            },
            BadInput,
        ),
    ]);
}
