//! The runner's errors: the arena, merges, manifests, locks, players, books, shards and waves.

use super::*;

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
            ArenaError::Network {
                name: s(),
                source: Box::new(crate::nnue::NetworkError::Size {
                    file: s(),
                    bytes: 3,
                }),
            },
            BadInput,
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
            PlayerError::BadDeclaration {
                option: s(),
                spin: Box::new(crate::arena::engine::BadSpin {
                    default: s(),
                    min: s(),
                    max: s(),
                    what: "",
                }),
            },
            BadInput,
        ),
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
