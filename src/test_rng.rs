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

/// Text-like test data: `len` bytes of words drawn from a vocabulary of five, so that there are
/// matches at every distance and few runs (deflate encoders differ most on such data).
#[cfg_attr(not(feature = "libdeflate"), allow(dead_code))]
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
