//! The trainer's errors (`sparring train`).

use super::*;
use crate::train::{QuantiseError, TrainError};

#[test]
fn every_train_error_variant_has_its_class() {
    let missing = || std::io::Error::from(std::io::ErrorKind::NotFound);
    check(vec![
        (TrainError::Config(config()), BadInput),
        (
            TrainError::Data(TrainingDataError::Read {
                file: s(),
                error: missing(),
            }),
            BadInput,
        ),
        (
            TrainError::Data(TrainingDataError::Write {
                file: s(),
                error: io(),
            }),
            FailedRun,
        ),
        (
            TrainError::NoTrainingData {
                config: s(),
                files: 1,
            },
            BadInput,
        ),
        (
            TrainError::NoValidationData {
                config: s(),
                files: 1,
            },
            BadInput,
        ),
        (
            TrainError::Init {
                file: s(),
                role: "model.init",
                reason: s(),
            },
            BadInput,
        ),
        (TrainError::ExistingRun { dir: s() }, BadInput),
        (
            TrainError::Checkpoint {
                file: s(),
                reason: s(),
            },
            BadInput,
        ),
        (
            TrainError::Output {
                file: s(),
                error: io(),
            },
            FailedRun,
        ),
        (
            TrainError::Quantise {
                dir: s(),
                error: QuantiseError {
                    tensor: "l0w",
                    index: 0,
                    value: 200.0,
                    scale: 255,
                    scaled: 51000.0,
                },
            },
            FailedRun,
        ),
        (
            TrainError::Threads {
                threads: 1,
                message: s(),
            },
            FailedRun,
        ),
    ]);
}
