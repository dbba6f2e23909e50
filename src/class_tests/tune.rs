//! The tuners' errors: data, Texel tuning, the loop and SPSA.

use super::*;

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
        (
            DataError::Records(crate::data::DataError::Empty {
                file: s(),
                format: "viriformat",
            }),
            BadInput,
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
        (TuneError::LearningRate { value: -1.0 }, BadInput),
        (
            TuneError::Unverified {
                file: p(),
                source: trace(false),
            },
            BadInput,
        ),
        (
            TuneError::Unverified {
                file: p(),
                source: trace(true),
            },
            FailedRun,
        ),
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
                summary: Box::new(summary()),
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
            LoopError::Network(crate::nnue::NetworkError::Size {
                file: s(),
                bytes: 3,
            }),
            BadInput,
        ),
        (
            LoopError::ChampionData {
                path: PathBuf::from("d.viriformat"),
                source: std::io::Error::other("missing"),
            },
            BadInput,
        ),
        (LoopError::StagedNetwork, BadInput),
        (
            LoopError::Datagen {
                generation: 1,
                source: Box::new(crate::datagen::DatagenError::Missing("games".into())),
            },
            BadInput,
        ),
        (
            LoopError::Train {
                generation: 1,
                source: crate::train::TrainError::Output {
                    file: s(),
                    error: std::io::Error::other("disk full"),
                },
            },
            FailedRun,
        ),
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

/// A tune's summary, as an unusable tune carries it.
fn summary() -> crate::texel::TuneSummary {
    let epoch = crate::texel::EpochStats {
        epoch: 0,
        train_mse: 0.1,
        validation_mse: None,
        best_epoch: 0,
        seconds: 0.0,
    };
    crate::texel::TuneSummary {
        k: 1.0,
        k_fitted: false,
        training_positions: 1,
        validation_positions: 0,
        skipped_lines: 0,
        best_epoch: 0,
        epochs_run: 0,
        stopped_early: false,
        start: epoch.clone(),
        best: epoch,
        rounded_train_mse: 0.1,
        rounded_validation_mse: None,
        unused: Vec::new(),
        params: crate::eval::EvalParams::default(),
        outputs: Vec::new(),
    }
}
