//! Checks of a Syzygy file before the prober may map it (issue 45): pyrrhic-rs maps a table on
//! its first probe and reads it without bounds, so a truncated, empty or otherwise damaged file
//! crashes the process (SIGSEGV, SIGBUS), and a directory in a table's place panics. Each file
//! is checked here instead: a regular file, a size a Syzygy file has (64n + 16 bytes, at least
//! 80: the data ends on a 64-byte boundary and 16 bytes follow it), the magic number of its
//! kind, and a walk of its header, which must name the table's own pieces, hold sane
//! compression parameters and announce no more data than the file holds.
//!
//! Damage past the header, in the index, block-size and compressed-data sections, is caught by
//! the checksum each file carries in its last 16 bytes ([`super::checksum`]), recomputed over
//! the whole file.

use std::fmt;
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// Which file of a table: its magic number and whether its header is walked.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Format {
    /// `.rtbw`, win/draw/loss.
    Wdl,
    /// `.rtbz`, distance to zeroing.
    Dtz,
    /// `.rtbm`, distance to mate: never probed by sparring, but the prober sizes it up when it
    /// loads the tables (and prints to stdout about a bad size), so it is checked as well.
    Dtm,
}

impl Format {
    /// The format of a file name extension, if it is a table's.
    pub(super) fn of_extension(ext: &str) -> Option<Format> {
        match ext {
            "rtbw" => Some(Format::Wdl),
            "rtbz" => Some(Format::Dtz),
            "rtbm" => Some(Format::Dtm),
            _ => None,
        }
    }

    /// The first four bytes of every such file, read as a little-endian number.
    fn magic(self) -> u32 {
        match self {
            Format::Wdl => 0x5d23_e871,
            Format::Dtz => 0xa50c_66d7,
            Format::Dtm => 0x88ac_504b,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Format::Wdl => "WDL (.rtbw)",
            Format::Dtz => "DTZ (.rtbz)",
            Format::Dtm => "DTM (.rtbm)",
        }
    }
}

/// The smallest Syzygy file: a table of one value, its header padded to 64 bytes, then 16.
const MIN_SIZE: u64 = 80;

/// What is wrong with a table file.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FileProblem {
    /// It could not be opened or read.
    Unreadable(String),
    /// A directory or other non-file in a table's place.
    NotAFile(&'static str),
    /// Zero bytes long.
    Empty,
    /// A length no Syzygy file has (truncated or padded).
    BadSize(u64),
    /// The first four bytes are not its kind's magic number.
    BadMagic {
        /// The number found.
        found: u32,
        /// The number expected.
        expected: u32,
        /// The kind of file the extension names.
        kind: &'static str,
    },
    /// The header contradicts the table's name or the file's size.
    BadHeader(String),
    /// The checksum in the last 16 bytes is not that of the contents: damaged data.
    BadChecksum,
}

impl fmt::Display for FileProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileProblem::Unreadable(e) => write!(f, "cannot be read ({e})"),
            FileProblem::NotAFile(what) => write!(f, "not a regular file ({what})"),
            FileProblem::Empty => write!(f, "empty (0 bytes)"),
            FileProblem::BadSize(n) => write!(
                f,
                "{n} bytes, not the size of a Syzygy file (64n + 16 bytes, at least {MIN_SIZE}): truncated?"
            ),
            FileProblem::BadMagic {
                found,
                expected,
                kind,
            } => write!(
                f,
                "wrong magic number 0x{found:08x} (a {kind} file starts with 0x{expected:08x})"
            ),
            FileProblem::BadHeader(why) => write!(f, "corrupt header: {why}"),
            FileProblem::BadChecksum => write!(
                f,
                "damaged: its contents do not match the checksum in its last 16 bytes"
            ),
        }
    }
}

/// The largest file whose checksum opening the tables recomputes: every table of up to five
/// pieces is smaller (the largest, KRPvKR.rtbw, is 16 MB), so a 3-4-5 set (about 1 GB) costs
/// a few seconds at most; 6- and 7-piece files are checked by `verify` (`sparring tablebase
/// verify`) once after download instead of at every start.
pub(super) const OPEN_CHECKSUM_LIMIT: u64 = 64 << 20;

/// How far to check a file.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Depth {
    /// Everything, and the checksum of files up to [`OPEN_CHECKSUM_LIMIT`].
    Open,
    /// Everything, the checksum of every file.
    Full,
}

/// Checks the file at `path`, the `format` file of table `name` (e.g. `KRPvKR`).
pub(super) fn check_file(
    path: &Path,
    name: &str,
    format: Format,
    depth: Depth,
) -> Result<(), FileProblem> {
    let unreadable = |e: std::io::Error| FileProblem::Unreadable(e.to_string());
    // Followed through symbolic links, as the prober opens the file.
    let meta = std::fs::metadata(path).map_err(unreadable)?;
    if !meta.is_file() {
        let what = if meta.is_dir() {
            "a directory"
        } else {
            "a special file"
        };
        return Err(FileProblem::NotAFile(what));
    }
    let size = meta.len();
    if size == 0 {
        return Err(FileProblem::Empty);
    }
    if size < MIN_SIZE || size % 64 != 16 {
        return Err(FileProblem::BadSize(size));
    }
    let mut head = Head {
        file: File::open(path).map_err(unreadable)?,
        buf: Vec::new(),
        size,
    };
    let found = head.u32_at(0)?;
    if found != format.magic() {
        return Err(FileProblem::BadMagic {
            found,
            expected: format.magic(),
            kind: format.name(),
        });
    }
    match format {
        Format::Wdl | Format::Dtz => walk_header(&mut head, name, format)?,
        // Never mapped by sparring's probes: size and magic keep the prober quiet.
        Format::Dtm => return Ok(()),
    }
    if depth == Depth::Open && size > OPEN_CHECKSUM_LIMIT {
        return Ok(());
    }
    let mut file = File::open(path).map_err(unreadable)?;
    match super::checksum::verify(&mut file, size) {
        Ok(true) => Ok(()),
        Ok(false) => Err(FileProblem::BadChecksum),
        Err(e) => Err(unreadable(e)),
    }
}

fn bad(why: impl Into<String>) -> FileProblem {
    FileProblem::BadHeader(why.into())
}

/// The head of a file, read as far as the walk needs.
struct Head {
    file: File,
    buf: Vec<u8>,
    size: u64,
}

impl Head {
    fn bytes(&mut self, at: u64, len: u64) -> Result<&[u8], FileProblem> {
        let end = at
            .checked_add(len)
            .filter(|&e| e <= self.size)
            .ok_or_else(|| {
                bad(format!(
                    "it runs past the end of the file ({} bytes)",
                    self.size
                ))
            })?;
        if end as usize > self.buf.len() {
            let want = (end.max(self.buf.len() as u64 + 4096)).min(self.size) as usize;
            let have = self.buf.len();
            self.buf.resize(want, 0);
            self.file
                .read_exact(&mut self.buf[have..])
                .map_err(|e| FileProblem::Unreadable(e.to_string()))?;
        }
        Ok(&self.buf[at as usize..end as usize])
    }

    fn u8_at(&mut self, at: u64) -> Result<u8, FileProblem> {
        Ok(self.bytes(at, 1)?[0])
    }

    fn u16_at(&mut self, at: u64) -> Result<u16, FileProblem> {
        let b = self.bytes(at, 2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    fn u32_at(&mut self, at: u64) -> Result<u32, FileProblem> {
        let b = self.bytes(at, 4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
}

/// The table's pieces as the prober numbers them (pawn 1 .. king 6, the second side's + 8), and
/// the pawn counts of the leading and the other pawn side, as the prober orders them.
fn pieces_of(name: &str) -> Option<(Vec<u8>, [u8; 2])> {
    let (first, second) = name.split_once('v')?;
    let mut codes = Vec::new();
    let mut pawns = [0u8; 2];
    for (side, text) in [first, second].into_iter().enumerate() {
        for c in text.chars() {
            let code = match c {
                'P' => 1,
                'N' => 2,
                'B' => 3,
                'R' => 4,
                'Q' => 5,
                'K' => 6,
                _ => return None,
            };
            if code == 1 {
                pawns[side] += 1;
            }
            codes.push(code | (8 * side as u8));
        }
    }
    if pawns[1] != 0 && (pawns[0] == 0 || pawns[0] > pawns[1]) {
        pawns.swap(0, 1);
    }
    codes.sort_unstable();
    Some((codes, pawns))
}

/// One compressed table's sizes: its block-size table and its data, in bytes (the index
/// table's size depends on the encoding, which this walk does not compute).
struct Sections {
    size_table: u64,
    data: u64,
}

fn walk_header(head: &mut Head, name: &str, format: Format) -> Result<(), FileProblem> {
    let (codes, pawns) = pieces_of(name).ok_or_else(|| bad("not a table name"))?;
    let has_pawns = pawns[0] + pawns[1] > 0;
    let more_pawns = has_pawns && pawns[1] > 0;
    let n = codes.len() as u64;
    let tables = if has_pawns { 4 } else { 1 };
    let split = format == Format::Wdl && head.u8_at(4)? & 1 != 0;
    let mut swapped = codes
        .iter()
        .map(|&c| if c & 7 == 0 { c } else { c ^ 8 })
        .collect::<Vec<u8>>();
    swapped.sort_unstable();
    let mut at = 5u64;
    for _ in 0..tables {
        let len = n + 1 + u64::from(more_pawns);
        let bytes = head.bytes(at, len)?.to_vec();
        for shift in if split {
            [0, 4].as_slice()
        } else {
            [0].as_slice()
        } {
            let nibble = |b: u8| (b >> shift) & 0xf;
            let mut listed: Vec<u8> = bytes[1 + usize::from(more_pawns)..]
                .iter()
                .map(|&b| nibble(b))
                .collect();
            listed.sort_unstable();
            if listed != codes && listed != swapped {
                return Err(bad(format!("its pieces are not those of {name}")));
            }
        }
        at += len;
    }
    at += at & 1;
    let mut sections = Vec::new();
    let mut dtz_flags = Vec::new();
    for _ in 0..tables {
        for half in 0..if split { 2 } else { 1 } {
            let (s, flags) = pairs(head, &mut at)?;
            sections.push(s);
            if half == 0 {
                dtz_flags.push(flags);
            }
        }
    }
    if format == Format::Dtz {
        for flags in dtz_flags {
            if flags & 2 == 0 {
                continue;
            }
            for _ in 0..4 {
                if flags & 16 == 0 {
                    at += 1 + u64::from(head.u8_at(at)?);
                } else {
                    at += at & 1;
                    at += 2 + 2 * u64::from(head.u16_at(at)?);
                }
            }
        }
        at += at & 1;
    }
    // The index tables (at least nothing), the block-size tables, then each table's data from
    // a 64-byte boundary; 16 bytes follow the last.
    let mut end = at + sections.iter().map(|s| s.size_table).sum::<u64>();
    for s in &sections {
        end = end.div_ceil(64) * 64 + s.data;
    }
    if end + 16 > head.size {
        return Err(bad(format!(
            "it announces at least {} bytes of tables, the file has {}",
            end + 16,
            head.size
        )));
    }
    Ok(())
}

/// One compressed table's header at `*at`, moved past it: its sections and flags byte.
fn pairs(head: &mut Head, at: &mut u64) -> Result<(Sections, u8), FileProblem> {
    let flags = head.u8_at(*at)?;
    if flags & 0x80 != 0 {
        // A single value for the whole table.
        head.bytes(*at, 2)?;
        *at += 2;
        let none = Sections {
            size_table: 0,
            data: 0,
        };
        return Ok((none, flags));
    }
    let p = head.bytes(*at, 10)?.to_vec();
    let (block_size, index_bits, extra_blocks) = (p[1], p[2], p[3]);
    let blocks = u32::from_le_bytes([p[4], p[5], p[6], p[7]]);
    let (max_len, min_len) = (p[8], p[9]);
    if !(1..=32).contains(&block_size) || !(1..=63).contains(&index_bits) {
        return Err(bad(format!(
            "block size 2^{block_size}, index step 2^{index_bits}"
        )));
    }
    if min_len == 0 || min_len > max_len || max_len > 64 {
        return Err(bad(format!("code lengths {min_len} to {max_len}")));
    }
    let h = u64::from(max_len - min_len) + 1;
    let symbols = head.u16_at(*at + 10 + 2 * h)?;
    if symbols == 0 || symbols >= 4096 {
        return Err(bad(format!("{symbols} symbols")));
    }
    let pattern = head.bytes(*at + 12 + 2 * h, 3 * u64::from(symbols))?;
    let pairs: Vec<Option<[usize; 2]>> = pattern
        .chunks_exact(3)
        .map(|w| {
            let right = usize::from(w[2]) << 4 | usize::from(w[1]) >> 4;
            let left = (usize::from(w[1]) & 0xf) << 8 | usize::from(w[0]);
            // 0xfff on the right: a leaf, a value of the table.
            (right != 0xfff).then_some([left, right])
        })
        .collect();
    symbols_well_formed(&pairs)?;
    *at += 12 + 2 * h + 3 * u64::from(symbols) + u64::from(symbols & 1);
    let sections = Sections {
        size_table: 2 * (u64::from(blocks) + u64::from(extra_blocks)),
        data: u64::from(blocks) << block_size,
    };
    Ok((sections, flags))
}

/// Every pair names two existing symbols and no symbol is built from itself: the prober
/// expands them recursively, so a cycle would recurse until the stack overflows.
fn symbols_well_formed(pairs: &[Option<[usize; 2]>]) -> Result<(), FileProblem> {
    const NEW: u8 = 0;
    const OPEN: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![NEW; pairs.len()];
    for root in 0..pairs.len() {
        if state[root] != NEW {
            continue;
        }
        // Depth-first, iteratively: (symbol, children visited).
        let mut stack = vec![(root, 0usize)];
        state[root] = OPEN;
        while let Some(top) = stack.last_mut() {
            let (s, next) = *top;
            let child = pairs[s].and_then(|p| p.get(next).copied());
            let Some(c) = child else {
                state[s] = DONE;
                stack.pop();
                continue;
            };
            top.1 += 1;
            match state.get(c) {
                None => {
                    return Err(bad(format!(
                        "symbol {s} is built from symbol {c} of {}",
                        pairs.len()
                    )))
                }
                Some(&OPEN) => return Err(bad(format!("symbol {s} is built from itself"))),
                Some(&NEW) => {
                    state[c] = OPEN;
                    stack.push((c, 0));
                }
                Some(_) => {}
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_pieces_follow_the_probers_numbering() {
        let (codes, pawns) = pieces_of("KRPvKR").unwrap();
        assert_eq!(codes, vec![1, 4, 6, 12, 14]);
        assert_eq!(pawns, [1, 0]);
        let (_, pawns) = pieces_of("KPvKPP").unwrap();
        assert_eq!(pawns, [1, 2]);
        let (_, pawns) = pieces_of("KPPvKP").unwrap();
        assert_eq!(pawns, [1, 2]);
    }

    #[test]
    fn damaged_syzygy_file_symbol_cycles_and_strays_are_found() {
        assert!(symbols_well_formed(&[None, Some([0, 0]), Some([1, 0])]).is_ok());
        assert!(symbols_well_formed(&[Some([1, 1]), Some([2, 0]), None]).is_err());
        assert!(symbols_well_formed(&[Some([0, 0])]).is_err());
        assert!(symbols_well_formed(&[None, Some([0, 7])]).is_err());
    }
}
