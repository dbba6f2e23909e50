//! Fuzz targets for this wave's binary inputs (issue 45's sweep): the four training-data formats
//! and network files. The harness is fuzz.rs's (fixed seeds, `catch_unwind`, a hang watchdog,
//! `SPARRING_FUZZ_SCALE`); the seeds are real files written by sparring's own writers.

use crate::data::{busy_game, chess960_game, readme_game};
use crate::fuzz::{inputs, lines_of, run_target, Bytes, Verdict};
use proptest::prelude::*;
use sparring::board::Position;
use sparring::data::{game_writer, DataFormat, DataReader, Samples};
use sparring::nnue::Network;
use sparring::rng::Rng;
use std::path::Path;

/// The three test games written in `format` by the data subsystem's writer.
fn written(format: DataFormat) -> Vec<u8> {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("fuzz-files")
        .join(format.file_name());
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut writer = game_writer(format, std::fs::File::create(&path).unwrap());
    for game in [readme_game(), busy_game(), chess960_game()] {
        writer.write_game(&game).unwrap();
    }
    writer.flush().unwrap();
    drop(writer);
    std::fs::read(&path).unwrap()
}

/// Reads every sample of `bytes` as `format`: accepted, or refused by an error that names the
/// file and where in it (a byte offset, or a line of the text format).
fn read_all(format: DataFormat, bytes: &[u8]) -> Result<Verdict, String> {
    let reader = DataReader::new(
        Box::new(std::io::Cursor::new(bytes.to_vec())),
        "fuzz.data",
        format,
    );
    let mut samples = Samples::new(reader);
    loop {
        match samples.next_sample() {
            Ok(Some(_)) => continue,
            Ok(None) => return Ok(Verdict::Accepted),
            Err(e) => {
                let message = e.to_string();
                let located = message.starts_with("fuzz.data: byte ")
                    || message.starts_with("fuzz.data:") && format == DataFormat::Text;
                return if located {
                    Ok(Verdict::Refused)
                } else {
                    Err(format!("error without file and offset: {message}"))
                };
            }
        }
    }
}

#[test]
fn fuzz_training_data_files() {
    for format in DataFormat::ALL {
        let seed = written(format);
        let lines = lines_of(&[&seed]);
        let name = format.file_name();
        let cases = 1200;
        run_target(
            name,
            cases,
            inputs(vec![seed], lines, 200, 4).prop_map(Bytes),
            move |bytes| read_all(format, bytes),
        )
        .assert_mixed(name, cases);
    }
}

/// A small net with random weights (hidden size 1 to 4), as bytes.
fn random_net(seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut net = Network::zeroed(1 + rng.below(4) as usize);
    for value in net
        .feature_weights
        .iter_mut()
        .chain(&mut net.feature_biases)
        .chain(&mut net.output_weights)
    {
        *value = rng.next_u64() as i16;
    }
    net.output_bias = rng.next_u64() as i16;
    net.to_bytes()
}

#[test]
fn fuzz_network_files() {
    let seeds: Vec<Vec<u8>> = (1..=4).map(random_net).collect();
    let cases = 1500;
    run_target(
        "network",
        cases,
        inputs(seeds, Vec::new(), 4000, 3).prop_map(Bytes),
        |bytes| match Network::from_bytes(bytes, "fuzz.bin") {
            Ok(net) => {
                // What loads evaluates (any weights: the arithmetic cannot overflow) and
                // writes back to bytes that load as the same net.
                net.evaluate(&Position::startpos());
                let again = Network::from_bytes(&net.to_bytes(), "again.bin")
                    .map_err(|e| format!("written net does not read back: {e}"))?;
                if again != net {
                    return Err("net changes when written and read back".into());
                }
                Ok(Verdict::Accepted)
            }
            Err(e) if e.to_string().starts_with("fuzz.bin: ") => Ok(Verdict::Refused),
            Err(e) => Err(format!("error without the file's name: {e}")),
        },
    )
    .assert_mixed("network", cases);
}
