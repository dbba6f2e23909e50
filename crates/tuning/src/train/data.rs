//! The trainer's data: every file of every format sparring writes, read position by position
//! with the configured filters, split into training and validation (by game where the format
//! holds games, else by position, by a seeded hash so the split is the same in every pass), and
//! streamed as shuffled minibatches in bounded memory: a shuffle buffer of `shuffle_buffer`
//! positions, each incoming position swapping out a random one, reseeded for every pass. The
//! files are interleaved (each next record from a file drawn in proportion to what it has left),
//! since a buffer smaller than the last file would end every pass on that file alone.

use super::model::TrainPosition;
use crate::rng::Rng;
use sparring_harness::data::{
    count_records, DataError, DataFormat, DataReader, Filter, RandomSkip, Sample, Samples,
};
use std::path::PathBuf;
use std::sync::mpsc::{sync_channel, Receiver};

/// What data to read and how.
#[derive(Clone, Debug, PartialEq)]
pub struct DataSpec {
    /// The files: interleaved in training passes (see `interleave`), in order otherwise.
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
    /// Training passes draw each next record (a game, or a position) from a file chosen with
    /// probability proportional to the records it has left (seeded per pass); false reads the
    /// files one after another, as sessions up to 33 did (their nets' bytes need it).
    pub interleave: bool,
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
                if let Some((held_out, p)) = self.kept(file, &samples, &sample) {
                    if !each(held_out, p) {
                        return Ok(());
                    }
                }
            }
        }
        Ok(())
    }

    /// Calls `each(validation, position)` as [`for_each`](Self::for_each) does, with the files
    /// interleaved: `records` holds each file's record count, and `rng` draws which file gives
    /// the next record, in proportion to the records each has left.
    fn for_each_interleaved(
        &self,
        records: &[u64],
        rng: &mut Rng,
        mut each: impl FnMut(bool, TrainPosition) -> bool,
    ) -> Result<(), DataError> {
        let mut files = Vec::with_capacity(self.files.len());
        for path in &self.files {
            files.push(Samples::new(DataReader::open(path, self.format)?));
        }
        let mut left = records.to_vec();
        let mut total: u64 = left.iter().sum();
        while total > 0 {
            let file = pick_weighted(&left, rng.below(total));
            // One whole record: a game's positions stay together, as the file holds them.
            loop {
                let samples = &mut files[file];
                let Some(sample) = samples.next_sample()? else {
                    // The file ended early (a game without moves takes no draw of its own).
                    total -= left[file];
                    left[file] = 0;
                    break;
                };
                if let Some((held_out, p)) = self.kept(file, samples, &sample) {
                    if !each(held_out, p) {
                        return Ok(());
                    }
                }
                if !samples.in_game() {
                    let taken = left[file].min(1);
                    left[file] -= taken;
                    total -= taken;
                    break;
                }
            }
        }
        Ok(())
    }

    /// How many records (games, or positions) each file holds: the weights of the interleaving.
    fn record_counts(&self) -> Result<Vec<u64>, DataError> {
        self.files
            .iter()
            .map(|path| count_records(path, self.format))
            .collect()
    }

    /// `sample`, just read from file `file`, as a training position with whether it is held
    /// out; `None` when the filters drop it.
    fn kept(
        &self,
        file: usize,
        samples: &Samples,
        sample: &Sample,
    ) -> Option<(bool, TrainPosition)> {
        if self.filter.drops(sample).is_some() {
            return None;
        }
        let unit = samples.reader().records() - 1;
        let d = &sample.data;
        let p = TrainPosition::new(&d.position, d.white_score, d.result);
        Some((self.is_validation(file, unit), p))
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

/// The index whose share of `weights` holds `pick` (which is below their sum).
fn pick_weighted(weights: &[u64], mut pick: u64) -> usize {
    for (i, &w) in weights.iter().enumerate() {
        if pick < w {
            return i;
        }
        pick -= w;
    }
    unreachable!("the pick is below the weights' sum")
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
        let records = match spec.interleave {
            true => match spec.record_counts() {
                Ok(counts) => Some(counts),
                Err(e) => {
                    let _ = send.send(Feed::Failed(e));
                    return;
                }
            },
            false => None,
        };
        loop {
            let mut stream = PassStream {
                batch: Vec::with_capacity(batch_size),
                batch_size,
                skip,
                positions: 0,
                send: &send,
            };
            let result = run_pass(&spec, records.as_deref(), pass, &mut stream);
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

/// One pass over the data through the shuffle buffer, the files interleaved when `records`
/// (their record counts) is given; Ok(false) when the receiver is gone.
fn run_pass(
    spec: &DataSpec,
    records: Option<&[u64]>,
    pass: u64,
    out: &mut PassStream<'_>,
) -> Result<bool, DataError> {
    let mut rng = Rng::derive(spec.seed, 0x7061_7373 ^ pass.wrapping_mul(0x9e37_79b9));
    let capacity = spec.shuffle_buffer.max(1);
    let mut buffer: Vec<TrainPosition> = Vec::with_capacity(capacity.min(1 << 20));
    let mut alive = true;
    let each = |held_out, p: TrainPosition| {
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
    };
    match records {
        Some(records) => {
            // The file draws have their own stream: the skips, mirrors and swaps keep theirs.
            let mut draws = Rng::derive(spec.seed, 0x6669_6c65 ^ pass.wrapping_mul(0x9e37_79b9));
            spec.for_each_interleaved(records, &mut draws, each)?
        }
        None => spec.for_each(each)?,
    }
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
            interleave: true,
            seed: 5,
        };
        let held: usize = (0..10_000).filter(|&u| spec.is_validation(0, u)).count();
        assert!((900..1100).contains(&held), "{held}");
        assert_eq!(spec.is_validation(1, 77), spec.is_validation(1, 77));
    }

    /// Two text files of 400 start positions each, scored 1..=400 and -1..=-400 (the score
    /// tells which file and which line a position came from).
    fn two_files(name: &str) -> DataSpec {
        let dir =
            std::env::temp_dir().join(format!("sparring-interleave-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let mut files = Vec::new();
        for (i, sign) in [(0, 1), (1, -1)] {
            let text: String = (1..=400)
                .map(|n| format!("{start} | {} | 0.5\n", sign * n))
                .collect();
            let path = dir.join(format!("{i}.txt"));
            std::fs::write(&path, text).unwrap();
            files.push(path);
        }
        DataSpec {
            files,
            format: None,
            filter: Filter::default(),
            skip_probability: 0.0,
            mirror: false,
            validation_fraction: 0.1,
            validation_max: 1000,
            shuffle_buffer: 10,
            interleave: true,
            seed: 5,
        }
    }

    fn scores(spec: &DataSpec, seed: Option<u64>) -> Vec<(bool, i16)> {
        let mut seen = Vec::new();
        let each = |held_out, p: TrainPosition| {
            seen.push((held_out, p.score));
            true
        };
        match seed {
            Some(seed) => {
                let records = spec.record_counts().unwrap();
                assert_eq!(records, [400, 400]);
                spec.for_each_interleaved(&records, &mut Rng::new(seed), each)
            }
            None => spec.for_each(each),
        }
        .unwrap();
        seen
    }

    #[test]
    fn interleaving_spreads_every_file_through_the_pass_and_keeps_the_split() {
        let spec = two_files("spread");
        let in_order = scores(&spec, None);
        let mixed = scores(&spec, Some(9));
        // In order, the first half is the first file; interleaved, about half of it is.
        assert!(in_order[..400].iter().all(|&(_, s)| s > 0));
        let first_file = mixed[..400].iter().filter(|&&(_, s)| s > 0).count();
        assert!((160..240).contains(&first_file), "{first_file}");
        // Each file keeps its own order, and nothing is lost, repeated or moved across the split.
        for sign in [1, -1] {
            let file: Vec<i16> = mixed
                .iter()
                .map(|&(_, s)| s)
                .filter(|s| s.signum() == sign)
                .collect();
            assert_eq!(file, (1..=400).map(|n| sign * n).collect::<Vec<_>>());
        }
        let (mut a, mut b) = (in_order.clone(), mixed.clone());
        a.sort();
        b.sort();
        assert_eq!(a, b);
        // The same seed gives the same order; another seed another.
        assert_eq!(scores(&spec, Some(9)), mixed);
        assert_ne!(scores(&spec, Some(10)), mixed);
        let _ = std::fs::remove_dir_all(spec.files[0].parent().unwrap());
    }
}
