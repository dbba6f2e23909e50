//! The checksum every Syzygy file carries in its last 16 bytes, recomputed (issue 45): the
//! generator hashes the file's first `64n` bytes in 16 MiB pieces with CityHashCrc256 and the
//! pieces' hashes with CityHashCrc128 (Google's CityHash 1.1, the CRC-32C variant; the tables'
//! `tbcheck` tool compares the same two numbers). A file whose size, magic and header are intact
//! but whose data is damaged fails here before the prober, which reads it without bounds, ever
//! maps it. Written from the algorithm's description; hand-written because no MIT crate offers
//! the CRC variant of CityHash.

/// The pieces the generator hashes separately.
const PIECE: usize = 1 << 24;

const K0: u64 = 0xc3a5_c85c_97cb_3127;
const K1: u64 = 0xb492_b66f_be98_f273;
const K2: u64 = 0x9ae1_6a3b_2f90_404f;
const K3: u64 = 0xc949_d7c7_509e_6557;

/// Whether the file read from `reader`, `size` bytes long (`64n + 16`), holds the checksum of
/// its first `size - 16` bytes in its last 16. Reads the file once, a piece at a time.
pub(super) fn verify(reader: &mut impl std::io::Read, size: u64) -> std::io::Result<bool> {
    let Some(mut left) = size.checked_sub(16) else {
        return Ok(false);
    };
    let mut buffer = vec![0u8; PIECE.min(left as usize)];
    let mut pieces = Vec::new();
    while left > 0 {
        let piece = &mut buffer[..PIECE.min(left as usize)];
        reader.read_exact(piece)?;
        for word in crc256(piece) {
            pieces.extend_from_slice(&word.to_le_bytes());
        }
        left -= piece.len() as u64;
    }
    let mut stored = [0u8; 16];
    reader.read_exact(&mut stored)?;
    let [low, high] = crc128(&pieces);
    Ok(stored[..8] == low.to_le_bytes() && stored[8..] == high.to_le_bytes())
}

/// [`verify`] of a file held in memory.
#[cfg(test)]
fn matches(file: &[u8]) -> bool {
    verify(&mut &file[..], file.len() as u64).unwrap_or(false)
}

fn fetch64(s: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(s[at..at + 8].try_into().expect("eight bytes"))
}

fn fetch32(s: &[u8], at: usize) -> u64 {
    u64::from(u32::from_le_bytes(
        s[at..at + 4].try_into().expect("four bytes"),
    ))
}

fn shift_mix(v: u64) -> u64 {
    v ^ (v >> 47)
}

/// CityHash's 128-to-64-bit mix (Murmur-like).
fn hash16(low: u64, high: u64) -> u64 {
    const MUL: u64 = 0x9ddf_ea08_eb38_2d69;
    let a = shift_mix((low ^ high).wrapping_mul(MUL));
    let b = shift_mix((high ^ a).wrapping_mul(MUL));
    b.wrapping_mul(MUL)
}

fn hash_short(s: &[u8]) -> u64 {
    let len = s.len() as u64;
    if s.len() > 8 {
        let (a, b) = (fetch64(s, 0), fetch64(s, s.len() - 8));
        return hash16(a, b.wrapping_add(len).rotate_right(s.len() as u32)) ^ b;
    }
    if s.len() >= 4 {
        let a = fetch32(s, 0);
        return hash16(len.wrapping_add(a << 3), fetch32(s, s.len() - 4));
    }
    if let (Some(&a), Some(&c)) = (s.first(), s.last()) {
        let b = s[s.len() >> 1];
        let y = u64::from(u32::from(a) + (u32::from(b) << 8));
        let z = u64::from(s.len() as u32 + (u32::from(c) << 2));
        return shift_mix(y.wrapping_mul(K2) ^ z.wrapping_mul(K3)).wrapping_mul(K2);
    }
    K2
}

/// Two 64-bit lanes mixed with 32 bytes (CityHash's `WeakHashLen32WithSeeds`).
fn weak32(s: &[u8], at: usize, a: u64, b: u64) -> (u64, u64) {
    let (w, x, y, z) = (
        fetch64(s, at),
        fetch64(s, at + 8),
        fetch64(s, at + 16),
        fetch64(s, at + 24),
    );
    let a = a.wrapping_add(w);
    let b = b.wrapping_add(a).wrapping_add(z).rotate_right(21);
    let c = a;
    let a = a.wrapping_add(x).wrapping_add(y);
    let b = b.wrapping_add(a.rotate_right(44));
    (a.wrapping_add(z), b.wrapping_add(c))
}

/// CityHash128 of a short string with a seed (`CityMurmur`), for fewer than 128 bytes.
fn murmur(s: &[u8], seed: (u64, u64)) -> [u64; 2] {
    let (mut a, mut b) = seed;
    let len = s.len();
    let (mut c, mut d);
    if len <= 16 {
        a = shift_mix(a.wrapping_mul(K1)).wrapping_mul(K1);
        c = b.wrapping_mul(K1).wrapping_add(hash_short(s));
        d = shift_mix(a.wrapping_add(if len >= 8 { fetch64(s, 0) } else { c }));
    } else {
        c = hash16(fetch64(s, len - 8).wrapping_add(K1), a);
        d = hash16(
            b.wrapping_add(len as u64),
            c.wrapping_add(fetch64(s, len - 16)),
        );
        a = a.wrapping_add(d);
        let mut at = 0;
        // 16 bytes a step while any remain past the first 16 (`l = len - 16 > 0`).
        while at + 16 < len {
            a ^= shift_mix(fetch64(s, at).wrapping_mul(K1)).wrapping_mul(K1);
            a = a.wrapping_mul(K1);
            b ^= a;
            c ^= shift_mix(fetch64(s, at + 8).wrapping_mul(K1)).wrapping_mul(K1);
            c = c.wrapping_mul(K1);
            d ^= c;
            at += 16;
        }
    }
    let (a, b) = (hash16(a, c), hash16(d, b));
    [a ^ b, hash16(b, a)]
}

/// One 64-byte round of CityHash's long loop over the state `(x, y, z, v, w)`.
fn round64(s: &[u8], at: usize, state: &mut (u64, u64, u64, (u64, u64), (u64, u64))) {
    let (x, y, z, v, w) = state;
    *x = x
        .wrapping_add(*y)
        .wrapping_add(v.0)
        .wrapping_add(fetch64(s, at + 8))
        .rotate_right(37)
        .wrapping_mul(K1);
    *y = y
        .wrapping_add(v.1)
        .wrapping_add(fetch64(s, at + 48))
        .rotate_right(42)
        .wrapping_mul(K1);
    *x ^= w.1;
    *y = y.wrapping_add(v.0).wrapping_add(fetch64(s, at + 40));
    *z = z.wrapping_add(w.0).rotate_right(33).wrapping_mul(K1);
    *v = weak32(s, at, v.1.wrapping_mul(K1), x.wrapping_add(w.0));
    *w = weak32(
        s,
        at + 32,
        z.wrapping_add(w.1),
        y.wrapping_add(fetch64(s, at + 16)),
    );
    std::mem::swap(z, x);
}

/// CityHash128 with a seed.
fn city128_seeded(s: &[u8], seed: (u64, u64)) -> [u64; 2] {
    if s.len() < 128 {
        return murmur(s, seed);
    }
    let (x, y) = seed;
    let z = (s.len() as u64).wrapping_mul(K1);
    let v0 = (y ^ K1)
        .rotate_right(49)
        .wrapping_mul(K1)
        .wrapping_add(fetch64(s, 0));
    let v1 = v0
        .rotate_right(42)
        .wrapping_mul(K1)
        .wrapping_add(fetch64(s, 8));
    let w0 = y
        .wrapping_add(z)
        .rotate_right(35)
        .wrapping_mul(K1)
        .wrapping_add(x);
    let w1 = x
        .wrapping_add(fetch64(s, 88))
        .rotate_right(53)
        .wrapping_mul(K1);
    let mut state = (x, y, z, (v0, v1), (w0, w1));
    let mut at = 0;
    let mut left = s.len();
    while left >= 128 {
        round64(s, at, &mut state);
        round64(s, at + 64, &mut state);
        at += 128;
        left -= 128;
    }
    let (mut x, mut y, mut z, mut v, mut w) = state;
    x = x.wrapping_add(v.0.wrapping_add(z).rotate_right(49).wrapping_mul(K0));
    z = z.wrapping_add(w.0.rotate_right(37).wrapping_mul(K0));
    // The tail: up to four 32-byte pieces counted back from the end (they may overlap).
    let end = at + left;
    let mut done = 0;
    while done < left {
        done += 32;
        y = x
            .wrapping_add(y)
            .rotate_right(42)
            .wrapping_mul(K0)
            .wrapping_add(v.1);
        w.0 = w.0.wrapping_add(fetch64(s, end - done + 16));
        x = x.wrapping_mul(K0).wrapping_add(w.0);
        z = z.wrapping_add(w.1).wrapping_add(fetch64(s, end - done));
        w.1 = w.1.wrapping_add(v.0);
        v = weak32(s, end - done, v.0.wrapping_add(z), v.1);
    }
    let x = hash16(x, v.0);
    let y = hash16(y.wrapping_add(z), w.0);
    [
        hash16(x.wrapping_add(v.1), w.1).wrapping_add(y),
        hash16(x.wrapping_add(w.1), y.wrapping_add(v.1)),
    ]
}

/// CityHash128.
fn city128(s: &[u8]) -> [u64; 2] {
    let len = s.len();
    if len >= 16 {
        city128_seeded(&s[16..], (fetch64(s, 0) ^ K3, fetch64(s, 8)))
    } else if len >= 8 {
        let seed = (
            fetch64(s, 0) ^ (len as u64).wrapping_mul(K0),
            fetch64(s, len - 8) ^ K1,
        );
        city128_seeded(&[], seed)
    } else {
        city128_seeded(s, (K0, K1))
    }
}

/// CityHashCrc128.
fn crc128(s: &[u8]) -> [u64; 2] {
    if s.len() <= 900 {
        city128(s)
    } else {
        let [_, _, low, high] = crc256(s);
        [low, high]
    }
}

/// CityHashCrc256.
fn crc256(s: &[u8]) -> [u64; 4] {
    if s.len() >= 240 {
        crc256_long(s, 0)
    } else {
        let mut padded = [0u8; 240];
        padded[..s.len()].copy_from_slice(s);
        crc256_long(&padded, !(s.len() as u32))
    }
}

/// The five-lane state of CityHashCrc256's loop, and the CRC-32C of each lane.
struct Lanes {
    hash: [u64; 6],
    crc: [u64; 5],
}

impl Lanes {
    /// One 40-byte step: the lanes rotate through `a..e, t` and each of `a..e` feeds its CRC.
    fn step(&mut self, s: &[u8], at: usize, multiplier: u64, z: u32) {
        let [a, b, c, d, e, t] = self.hash;
        let mix = |v: u64, r: u32, word: usize| {
            v.rotate_right(r ^ z)
                .wrapping_mul(multiplier)
                .wrapping_add(fetch64(s, at + 8 * word))
        };
        self.hash = [
            mix(b, 41, 0),
            mix(c, 27, 1),
            mix(d, 41, 2),
            mix(e, 33, 3),
            mix(t, 25, 4),
            a,
        ];
        for (crc, &lane) in self.crc.iter_mut().zip(&self.hash[..5]) {
            *crc = crc32c_u64(*crc, lane);
        }
    }
}

fn crc256_long(s: &[u8], seed: u32) -> [u64; 4] {
    let len = s.len();
    let a = fetch64(s, 56).wrapping_add(K0);
    let b = fetch64(s, 96).wrapping_add(K0);
    let c = hash16(b, len as u64);
    let d = fetch64(s, 120).wrapping_mul(K0).wrapping_add(len as u64);
    let e = fetch64(s, 184).wrapping_add(u64::from(seed));
    let (first, second) = (c, d);
    let mut lanes = Lanes {
        hash: [a, b, c, d, e, c.wrapping_add(d)],
        crc: [u64::from(seed), 0, 0, 0, 0],
    };
    let mut at = 0;
    for _ in 0..len / 240 {
        for _ in 0..3 {
            lanes.step(s, at, 1, 1);
            lanes.step(s, at + 40, K0, 0);
            at += 80;
        }
    }
    while len - at >= 40 {
        lanes.step(s, at, K0, 0);
        at += 40;
    }
    if len > at {
        lanes.step(s, len - 40, K0, 0);
    }
    let [a, b, c, d, e, t] = lanes.hash;
    let [f, g, h, i, j] = lanes.crc;
    let j = j.wrapping_add(i << 32);
    let a = hash16(a, j);
    let h = h.wrapping_add(g << 32);
    let b = b.wrapping_add(h);
    let c = hash16(c, f).wrapping_add(i);
    let d = hash16(d, e.wrapping_add(first));
    let j = j.wrapping_add(e);
    let i = i.wrapping_add(hash16(h, t));
    let e = hash16(a, d).wrapping_add(j);
    let f = hash16(b, c).wrapping_add(a);
    let g = hash16(j, i).wrapping_add(c);
    let r0 = e.wrapping_add(f).wrapping_add(g).wrapping_add(h);
    let a = shift_mix(a.wrapping_add(g).wrapping_mul(K0))
        .wrapping_mul(K0)
        .wrapping_add(b);
    let r1 = second.wrapping_add(a).wrapping_add(r0);
    let a = shift_mix(a.wrapping_mul(K0))
        .wrapping_mul(K0)
        .wrapping_add(c);
    let r2 = a.wrapping_add(r1);
    let a = shift_mix(a.wrapping_add(e).wrapping_mul(K0)).wrapping_mul(K0);
    [r0, r1, r2, a.wrapping_add(r2)]
}

/// The SSE 4.2 `crc32` instruction on eight bytes: CRC-32C of `value`'s little-endian bytes
/// continued from `crc`'s low 32 bits, with no inversion before or after.
fn crc32c_u64(crc: u64, value: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("sse4.2") {
        // SAFETY: the CPU was just found to support SSE 4.2, the instruction's only requirement.
        return unsafe { crc32c_u64_sse42(crc, value) };
    }
    crc32c_u64_portable(crc, value)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse4.2")]
fn crc32c_u64_sse42(crc: u64, value: u64) -> u64 {
    std::arch::x86_64::_mm_crc32_u64(crc, value)
}

/// The same CRC a bit at a time (the reflected Castagnoli polynomial): the reference the
/// instruction is tested against, and the path on other processors.
fn crc32c_u64_portable(crc: u64, value: u64) -> u64 {
    const POLY: u32 = 0x82f6_3b78;
    let mut crc = crc as u32;
    for byte in value.to_le_bytes() {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = (crc >> 1) ^ (POLY & (crc & 1).wrapping_neg());
        }
    }
    u64::from(crc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_crc_instruction_and_the_portable_crc_agree() {
        let mut state = 0x1234_5678_9abc_def0u64;
        for _ in 0..1000 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let crc = state >> 29;
            assert_eq!(crc32c_u64(crc, state), crc32c_u64_portable(crc, state));
        }
        // CRC-32C of "123456789" is 0xe3069283 (with the usual inversions around it).
        let text = *b"12345678";
        let crc = crc32c_u64_portable(0xffff_ffff, u64::from_le_bytes(text));
        let mut crc = crc as u32;
        crc ^= u32::from(b'9');
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0x82f6_3b78 & (crc & 1).wrapping_neg());
        }
        assert_eq!(!crc, 0xe306_9283);
    }

    /// Every real table at hand (the fixture's, and the shared set's 3-, 4- and 5-piece files
    /// when present) carries the checksum this module computes.
    #[test]
    fn real_syzygy_files_carry_the_checksum_recomputed_here() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut checked = 0;
        for dir in [
            root.join("tests/fixtures/syzygy"),
            root.join("../shared/data/syzygy"),
        ] {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                eprintln!("skipping {}: absent", dir.display());
                continue;
            };
            for entry in entries {
                let path = entry.unwrap().path();
                let bytes = std::fs::read(&path).unwrap();
                assert!(matches(&bytes), "{}", path.display());
                checked += 1;
            }
        }
        assert!(checked >= 10, "only {checked} tables found");
    }

    /// The bytes `(7i + 3) mod 251` the vectors below were computed on.
    fn vector_data() -> Vec<u8> {
        (0..4000).map(|i| ((i * 7 + 3) % 251) as u8).collect()
    }

    /// CityHashCrc128 at every length class (short, Murmur, CityHash128's long loop and each
    /// tail, the CRC path past 900 bytes), against the reference: `city-c.c` of the Syzygy
    /// generator (syzygy1/tb, Google's MIT code) compiled here with gcc -msse4.2. The pieces'
    /// hash of files over 16 MiB takes these paths, which the real tables at hand do not reach.
    #[test]
    fn cityhash_crc128_matches_the_generators_reference() {
        let data = vector_data();
        let expected: [(usize, [u64; 2]); 30] = [
            (0, [0x3df09dfc64c09a2b, 0x3cb540c392e51e29]),
            (3, [0x3108fa6b1da16986, 0x32301bf0c250612d]),
            (7, [0x9ef90f69597e95c7, 0x4987956c9782ee8f]),
            (12, [0x3924a15134c4740e, 0xf1894ae12eacd212]),
            (16, [0x21e79cab7f9c2b79, 0xa35615c235313f7a]),
            (20, [0xca1910f5efea96e9, 0xe622815923e8b885]),
            (32, [0x67cfab8404eec7e9, 0x80cd3c27f5bd61ee]),
            (40, [0x3e50c475510ec033, 0x7eb05644866a0a23]),
            (48, [0xdf591506cc3edd55, 0x4d986a3c2d109971]),
            (64, [0x9962ac3c360cd25e, 0x461a4dd444f4ab26]),
            (80, [0x361bf27fc9060b57, 0x7147eeb01de19c44]),
            (100, [0x11d015d118ce1f34, 0x7fb94259beb9939d]),
            (112, [0xbfcef1538baa0a44, 0x085f7ba18c69c33d]),
            (127, [0x55e007a5488e6a51, 0xbf49bf6ee9bb75e3]),
            (128, [0x0c58563baf04cf17, 0x4e9b14077ea48421]),
            (143, [0x90ed9da99e42d8d6, 0xbf2f62d71476a694]),
            (144, [0x86d8b9a3e6631e87, 0x5590e7891c0bfe4a]),
            (200, [0xfa98f6a79ca3f889, 0xcf22bbf3f72a5db4]),
            (255, [0x2113421a216fdc85, 0x81b2dc326a2c99db]),
            (256, [0x223814f19733d076, 0xe6b7435d17bb7a0c]),
            (300, [0x0ccb07bd68c6a526, 0x13dff4b92b8f2a7b]),
            (511, [0x85cc5af19a9bce7f, 0x135d665ca9623961]),
            (700, [0xd8a3384612fc4845, 0xd43a939c5c9a7359]),
            (900, [0x7824b834f1e01c48, 0xe87b048944b1088e]),
            (901, [0x4e434124367a6464, 0xb0498a35560a2b16]),
            (960, [0x47d7f00ef3d48984, 0x2afa3aadb2d4ee10]),
            (1000, [0x31742107061db704, 0xc35ffe51dd07c549]),
            (1500, [0xc0cd5501cd52534f, 0x168d0d0c531ae99c]),
            (2000, [0xa31fa93a79106c42, 0x95dc96dd95456e8a]),
            (3999, [0x30c3ce32706d9d83, 0x70e827e8d3ded1bb]),
        ];
        for (len, hash) in expected {
            assert_eq!(crc128(&data[..len]), hash, "length {len}");
        }
    }

    /// CityHashCrc256 around its 240-byte step (padded short input, a step's remainder, the
    /// overlapping last 40 bytes), against the same reference.
    #[test]
    fn cityhash_crc256_matches_the_generators_reference() {
        let data = vector_data();
        let expected: [(usize, [u64; 4]); 11] = [
            (
                0,
                [
                    0x889f555a0f5b2dc0,
                    0x7767800902c8a8ce,
                    0xbcd2a808f4cb4a44,
                    0xe9024dba8f94f2f3,
                ],
            ),
            (
                100,
                [
                    0x5dd2231387cc71e3,
                    0x49a2bbff41e63a5a,
                    0x0adf733b740e8daf,
                    0x3ed45ff597bbbdb7,
                ],
            ),
            (
                239,
                [
                    0x4b59c9bb3a2b5424,
                    0xf780c27b4f5f9140,
                    0x2bbebf8f93d483e7,
                    0xd794c073240381c9,
                ],
            ),
            (
                240,
                [
                    0x2ab0e42961c05cbc,
                    0x2f7e516fa70e98dd,
                    0x4671cb3e3e48b1f9,
                    0xdaab3e849a5f3fa4,
                ],
            ),
            (
                241,
                [
                    0x6a8dbb245df33ccd,
                    0x86967e441599485e,
                    0x2cb8ab02afe01636,
                    0x28bdcda726051731,
                ],
            ),
            (
                279,
                [
                    0x465dfecb8955bbe0,
                    0xb65ae1fef4271347,
                    0x7611b20e3915e89f,
                    0xe91c30a56a590cc2,
                ],
            ),
            (
                280,
                [
                    0xc0224f3730db1683,
                    0xfab5c9d5e7fb67bc,
                    0xfb89cc63b305868f,
                    0x0f52d4310ac9b9d2,
                ],
            ),
            (
                500,
                [
                    0xc7224596d953d641,
                    0x3d9f7d3ac88b03f6,
                    0xe290fed93668587d,
                    0x1d6a712cf13e1cf2,
                ],
            ),
            (
                719,
                [
                    0xf6a3885d51ccaaed,
                    0xab73b175045afb02,
                    0x6f7692ef437bbcc5,
                    0xf6879c8374508ea1,
                ],
            ),
            (
                720,
                [
                    0x52769716ded69ff0,
                    0xf52f026fdb19a635,
                    0xeb891450ee81d430,
                    0x78b26bdf6ba66a76,
                ],
            ),
            (
                1000,
                [
                    0x9cb602e62c55b0a8,
                    0xddc8e92a34330467,
                    0x31742107061db704,
                    0xc35ffe51dd07c549,
                ],
            ),
        ];
        for (len, hash) in expected {
            assert_eq!(crc256(&data[..len]), hash, "length {len}");
        }
    }

    #[test]
    fn a_changed_byte_changes_the_checksum() {
        let mut file: Vec<u8> = (0..64 * 40 + 16).map(|i| (i * 7 % 251) as u8).collect();
        let data_len = file.len() - 16;
        let mut pieces = Vec::new();
        for word in crc256(&file[..data_len]) {
            pieces.extend_from_slice(&word.to_le_bytes());
        }
        let [low, high] = crc128(&pieces);
        file[data_len..data_len + 8].copy_from_slice(&low.to_le_bytes());
        file[data_len + 8..].copy_from_slice(&high.to_le_bytes());
        assert!(matches(&file));
        file[1000] ^= 1;
        assert!(!matches(&file));
    }
}
