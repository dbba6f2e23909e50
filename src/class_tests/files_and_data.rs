//! The errors of the files sparring reads and writes: configurations, weights, openings, statistics,
//! games.csv, bullet and figures files, tablebases, tables and search parameters.

use super::*;

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
            WeightsError::Saturated {
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
fn every_network_error_variant_has_its_class() {
    use crate::nnue::NetworkError;
    check(vec![
        (
            NetworkError::Read {
                file: s(),
                source: io(),
            },
            BadInput,
        ),
        (
            NetworkError::Write {
                file: s(),
                source: io(),
            },
            FailedRun,
        ),
        (
            NetworkError::Size {
                file: s(),
                bytes: 1,
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
fn every_ratings_error_variant_has_its_class() {
    check(vec![
        (RatingsError::NoGames, BadInput),
        (
            RatingsError::EngineIndex {
                index: 1,
                engines: 1,
            },
            BadInput,
        ),
        (RatingsError::SameEngine { name: s() }, BadInput),
        (RatingsError::Disconnected { groups: vec![] }, BadInput),
        (RatingsError::NoFiniteFit, BadInput),
        (
            RatingsError::AnchorIndex {
                index: 1,
                engines: 1,
            },
            BadInput,
        ),
        (RatingsError::AnchorValue(f64::NAN), BadInput),
        (
            RatingsError::AnchorNotRated {
                name: s(),
                rating: Rating::PlusInfinity,
            },
            BadInput,
        ),
        (RatingsError::Resamples(1), BadInput),
        (RatingsError::NotConverged, FailedRun),
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
fn every_pgn_results_error_variant_has_its_class() {
    check(vec![
        (
            PgnResultsError::Io {
                path: p(),
                source: io(),
            },
            FailedRun,
        ),
        (
            PgnResultsError::MalformedTag { path: p(), line: 1 },
            BadInput,
        ),
        (
            PgnResultsError::MissingTag {
                path: p(),
                line: 1,
                tag: "White",
            },
            BadInput,
        ),
        (
            PgnResultsError::BadResult {
                path: p(),
                line: 1,
                found: s(),
            },
            BadInput,
        ),
        (
            PgnResultsError::SamePlayer {
                path: p(),
                line: 1,
                name: s(),
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
        (
            TablebaseError::Damaged {
                files: vec![crate::tablebase::DamagedFile {
                    path: s().into(),
                    problem: crate::tablebase::FileProblem::Empty,
                }],
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
fn every_datagen_error_variant_has_its_class() {
    use crate::datagen::DatagenError;
    let io = || std::io::Error::other("disk full");
    let dir = PathBuf::from("run");
    check(vec![
        (
            DatagenError::Config(ConfigError::Io {
                file: "d.toml".into(),
                source: io(),
            }),
            BadInput,
        ),
        (
            DatagenError::BadFlag {
                flag: "--format".into(),
                value: "csv".into(),
                expected: "text".into(),
            },
            BadInput,
        ),
        (DatagenError::Missing("games".into()), BadInput),
        (
            DatagenError::Network(crate::nnue::NetworkError::Size {
                file: "n.bin".into(),
                bytes: 3,
            }),
            BadInput,
        ),
        (
            DatagenError::Unwritable {
                path: dir.clone(),
                source: io(),
            },
            BadInput,
        ),
        (DatagenError::Exists { dir: dir.clone() }, BadInput),
        (
            DatagenError::Changed {
                dir: dir.clone(),
                keys: vec!["nodes".into()],
            },
            BadInput,
        ),
        (DatagenError::NothingToResume { dir: dir.clone() }, BadInput),
        (
            DatagenError::Truncated {
                path: dir.clone(),
                expected: 10,
                found: 5,
            },
            FailedRun,
        ),
        (
            DatagenError::Write {
                path: dir.clone(),
                source: io(),
            },
            FailedRun,
        ),
        (
            DatagenError::Engine(PlayerError::Spawn {
                command: "x".into(),
                reason: "missing".into(),
            }),
            FailedRun,
        ),
        (DatagenError::Shard(ShardError::ZeroCount), BadInput),
        (
            DatagenError::NoOpening {
                game: 3,
                attempts: 1000,
            },
            FailedRun,
        ),
    ]);
}

#[test]
fn every_training_data_error_variant_has_its_class() {
    let missing = || std::io::Error::from(std::io::ErrorKind::NotFound);
    check(vec![
        (
            TrainingDataError::Read {
                file: s(),
                error: missing(),
            },
            BadInput,
        ),
        (
            TrainingDataError::Read {
                file: s(),
                error: io(),
            },
            FailedRun,
        ),
        (
            TrainingDataError::Write {
                file: s(),
                error: io(),
            },
            FailedRun,
        ),
        (
            TrainingDataError::Empty {
                file: s(),
                format: "text",
            },
            BadInput,
        ),
        (
            TrainingDataError::Truncated {
                file: s(),
                offset: 3,
                what: "x",
                expected: 32,
                found: 31,
            },
            BadInput,
        ),
        (
            TrainingDataError::Field {
                file: s(),
                offset: 3,
                field: "x",
                reason: s(),
            },
            BadInput,
        ),
        (
            TrainingDataError::Line {
                file: s(),
                line: 1,
                error: BulletError::NoScore,
            },
            BadInput,
        ),
        (TrainingDataError::LongLine { file: s(), line: 1 }, BadInput),
        (TrainingDataError::UnknownFormat { file: s() }, BadInput),
        (TrainingDataError::NotGames { from: "text" }, BadInput),
        (
            TrainingDataError::NeedsGames {
                filter: "x",
                file: s(),
                format: "text",
            },
            BadInput,
        ),
        (
            TrainingDataError::WrongFormat {
                file: s(),
                found: "text",
                operation: "x",
                wanted: s(),
            },
            BadInput,
        ),
    ]);
}

#[test]
fn every_report_error_variant_has_its_class() {
    use crate::page::ReportError;
    check(vec![
        (
            ReportError::Io {
                path: p(),
                source: io(),
            },
            FailedRun,
        ),
        (
            ReportError::BadFile {
                path: p(),
                message: s(),
            },
            BadInput,
        ),
        (ReportError::NotARun { dir: p() }, BadInput),
    ]);
}
