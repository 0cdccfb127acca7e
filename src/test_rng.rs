//! A small deterministic random generator for the tests, so that they need no dependency
//! and every failure replays from its seed.

/// xorshift64*, seeded; not for anything but test data.
pub struct Rng(u64);
impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    pub fn fill(&mut self, buf: &mut [u8]) {
        for b in buf {
            *b = self.next_u64() as u8;
        }
    }
}

/// The low bytes of plain xorshift64 (13, 7, 17) from `seed`: the random data of the C
/// benchmarks (bench/bench.c, bench/bench1.c), which has several times the short repeats
/// of better random bytes.
pub fn xorshift_low_bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// Text-like test data: `len` bytes of words drawn from a vocabulary of five, so that there are
/// matches at every distance and few runs (deflate encoders differ most on such data).
pub fn words(len: usize, seed: u64) -> Vec<u8> {
    const WORDS: [&[u8]; 5] = [b"blosc ", b"chunk ", b"frame ", b"2.3.3 ", b"zlib! "];
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        out.extend_from_slice(WORDS[rng.below(WORDS.len())]);
    }
    out.truncate(len);
    out
}

/// `total` bytes of records of 8 to 15 bytes, each the one before with up to `changed`
/// bytes replaced, and after one record in `burst_every` a burst of new bytes. Encoded, they
/// have matches 8 to 15 bytes back behind literals of every length, some starting within the
/// literals: the cases scripts/zstd/ and scripts/lz4/near-match-first.patch take (the first)
/// or must leave to the codec's own path (the second). New bytes come from 64 values, so
/// that zstd Huffman-codes the literals (raw literals it reads in place, never through its
/// split buffer).
pub fn records(total: usize, changed: usize, burst_every: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut byte = move || (rng.next_u64() % 64) as u8;
    let mut out: Vec<u8> = (0..16).map(|_| byte()).collect();
    let mut pick = Rng::new(!seed);
    while out.len() < total {
        let len = 8 + pick.below(8);
        let start = out.len() - len;
        let mut record = out[start..].to_vec();
        for _ in 0..1 + pick.below(changed) {
            record[pick.below(len)] = byte();
        }
        out.extend_from_slice(&record);
        if pick.below(burst_every) == 0 {
            for _ in 0..1 + pick.below(40) {
                out.push(byte());
            }
        }
    }
    out.truncate(total);
    out
}
