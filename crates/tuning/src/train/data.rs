//! The trainer's data: every file of every format sparring writes, read position by position
//! with the configured filters, split into training and validation (by game where the format
//! holds games, else by position, by a seeded hash so the split is the same in every pass), and
//! streamed as shuffled minibatches in bounded memory: a shuffle buffer of `shuffle_buffer`
//! positions, each incoming position swapping out a random one, reseeded for every pass.

use super::model::TrainPosition;
use crate::rng::Rng;
use sparring_harness::data::{DataError, DataFormat, DataReader, Filter, RandomSkip, Samples};
use std::path::PathBuf;
use std::sync::mpsc::{sync_channel, Receiver};

/// What data to read and how.
#[derive(Clone, Debug, PartialEq)]
pub struct DataSpec {
    /// The files, read in order.
    pub files: Vec<PathBuf>,
    /// Their format, or `None` to tell each by its extension.
    pub format: Option<DataFormat>,
    /// Which positions to drop (viriformat's filters).
    pub filter: Filter,
    /// Each training position is skipped with this probability (seeded per pass).
    pub(crate) skip_probability: f64,
    /// Each training position drawn is mirrored left to right with probability ½ (seeded per
    /// pass): the features cannot see castling rights, so a mirrored position is as true a sample.
    pub mirror: bool,
    /// The share of games (viriformat) or positions held out for validation.
    pub validation_fraction: f64,
    /// At most this many validation positions are kept (the first ones met).
    pub(crate) validation_max: usize,
    /// Positions held in the shuffle buffer.
    pub(crate) shuffle_buffer: usize,
    /// Seeds the split, the skipping and the shuffle.
    pub seed: u64,
}

/// A 64-bit mix (splitmix64's finaliser): the split's hash.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

impl DataSpec {
    /// Whether record `unit` (a game, or a position) of file `file` is held out.
    pub(crate) fn is_validation(&self, file: usize, unit: u64) -> bool {
        if self.validation_fraction <= 0.0 {
            return false;
        }
        let h = mix(mix(self.seed ^ 0x7661_6c69_6461_7465) ^ mix((file as u64) << 40 ^ unit));
        ((h >> 11) as f64) / ((1u64 << 53) as f64) < self.validation_fraction
    }

    /// Checks the files open and that the filters suit their formats, before any work.
    pub fn check(&self) -> Result<(), DataError> {
        for path in &self.files {
            let reader = DataReader::open(path, self.format)?;
            if let Some(option) = self.filter.needs_games() {
                if reader.format() != DataFormat::Viriformat {
                    // The configuration's key, not `sparring data convert`'s option.
                    let key = match option {
                        "--filter-castling" => "filter.filter_castling",
                        _ => "filter.filter_tactical",
                    };
                    return Err(DataError::NeedsGames {
                        filter: key,
                        file: reader.file().to_string(),
                        format: reader.format().name(),
                    });
                }
            }
        }
        Ok(())
    }

    /// Calls `each(validation, position)` for every position the filters keep, in file order.
    /// `each` returns false to stop early.
    pub fn for_each(
        &self,
        mut each: impl FnMut(bool, TrainPosition) -> bool,
    ) -> Result<(), DataError> {
        for (file, path) in self.files.iter().enumerate() {
            let mut samples = Samples::new(DataReader::open(path, self.format)?);
            while let Some(sample) = samples.next_sample()? {
                if self.filter.drops(&sample).is_some() {
                    continue;
                }
                let unit = samples.reader().records() - 1;
                let d = &sample.data;
                let p = TrainPosition::new(&d.position, d.white_score, d.result);
                if !each(self.is_validation(file, unit), p) {
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    /// The validation positions (at most `validation_max`) and the count of training
    /// positions (before random skipping): one pass over the data.
    pub fn scan(&self) -> Result<(Vec<TrainPosition>, u64), DataError> {
        let (mut validation, mut training) = (Vec::new(), 0u64);
        self.for_each(|held_out, p| {
            if !held_out {
                training += 1;
            } else if validation.len() < self.validation_max {
                validation.push(p);
            }
            true
        })?;
        Ok((validation, training))
    }
}

/// What the loader thread sends.
#[derive(Debug)]
pub(crate) enum Feed {
    /// A shuffled minibatch of training positions.
    Batch(Vec<TrainPosition>),
    /// Pass `pass` (0-based) ended after `positions` training positions.
    PassEnd {
        /// The pass.
        pass: u64,
        /// The training positions it gave.
        positions: u64,
    },
    /// A file could not be read: the loader stops.
    Failed(DataError),
}

/// Starts a thread streaming batches of `batch_size` from pass `pass` on, pass after pass,
/// dropping the first `skip` batches of that pass (a resume's place in it). The thread ends
/// when the receiver is dropped or a file fails.
pub(crate) fn spawn_loader(
    spec: DataSpec,
    batch_size: usize,
    pass: u64,
    skip: u64,
) -> Receiver<Feed> {
    let (send, receive) = sync_channel(4);
    std::thread::spawn(move || {
        let mut pass = pass;
        let mut skip = skip;
        loop {
            let mut stream = PassStream {
                batch: Vec::with_capacity(batch_size),
                batch_size,
                skip,
                positions: 0,
                send: &send,
            };
            let result = run_pass(&spec, pass, &mut stream);
            let positions = stream.positions;
            let message = match result {
                Ok(true) => Feed::PassEnd { pass, positions },
                Ok(false) => return,
                Err(e) => Feed::Failed(e),
            };
            let failed = matches!(message, Feed::Failed(_));
            if send.send(message).is_err() || failed {
                return;
            }
            pass += 1;
            skip = 0;
        }
    });
    receive
}

/// One pass's output side: batches to fill and send.
struct PassStream<'a> {
    batch: Vec<TrainPosition>,
    batch_size: usize,
    skip: u64,
    positions: u64,
    send: &'a std::sync::mpsc::SyncSender<Feed>,
}

impl PassStream<'_> {
    /// Adds a position; false when the receiver is gone.
    fn push(&mut self, p: TrainPosition) -> bool {
        self.positions += 1;
        self.batch.push(p);
        if self.batch.len() < self.batch_size {
            return true;
        }
        self.flush()
    }

    /// Sends the batch (or drops it while skipping); false when the receiver is gone.
    fn flush(&mut self) -> bool {
        if self.batch.is_empty() {
            return true;
        }
        let batch = std::mem::replace(&mut self.batch, Vec::with_capacity(self.batch_size));
        if self.skip > 0 {
            self.skip -= 1;
            return true;
        }
        self.send.send(Feed::Batch(batch)).is_ok()
    }
}

/// One pass over the data through the shuffle buffer; Ok(false) when the receiver is gone.
fn run_pass(spec: &DataSpec, pass: u64, out: &mut PassStream<'_>) -> Result<bool, DataError> {
    let mut rng = Rng::derive(spec.seed, 0x7061_7373 ^ pass.wrapping_mul(0x9e37_79b9));
    let capacity = spec.shuffle_buffer.max(1);
    let mut buffer: Vec<TrainPosition> = Vec::with_capacity(capacity.min(1 << 20));
    let mut alive = true;
    spec.for_each(|held_out, p| {
        // The data layer's random skip, drawing from the pass's generator (as the shuffle does).
        if held_out || RandomSkip::skips(spec.skip_probability, &mut rng) {
            return true;
        }
        let p = match spec.mirror && rng.below(2) == 1 {
            true => p.mirrored(),
            false => p,
        };
        if buffer.len() < capacity {
            buffer.push(p);
            return true;
        }
        let j = rng.below(capacity as u64) as usize;
        let out_position = std::mem::replace(&mut buffer[j], p);
        alive = out.push(out_position);
        alive
    })?;
    if !alive {
        return Ok(false);
    }
    rng.shuffle(&mut buffer);
    for p in buffer {
        if !out.push(p) {
            return Ok(false);
        }
    }
    Ok(out.flush())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_split_is_stable_and_near_the_fraction() {
        let spec = DataSpec {
            files: vec![],
            format: None,
            filter: Filter::default(),
            skip_probability: 0.0,
            mirror: false,
            validation_fraction: 0.1,
            validation_max: 10,
            shuffle_buffer: 10,
            seed: 5,
        };
        let held: usize = (0..10_000).filter(|&u| spec.is_validation(0, u)).count();
        assert!((900..1100).contains(&held), "{held}");
        assert_eq!(spec.is_validation(1, 77), spec.is_validation(1, 77));
    }
}
