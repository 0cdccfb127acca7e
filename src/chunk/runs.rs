//! Whether a stream is one byte value repeated (README_CHUNK_FORMAT, "Compressed Data
//! Streams": a run is stored as its negated byte instead of a compressed stream).
//!
//! Every stream of every block is checked before it is compressed, so the scan is on the
//! compression path of every chunk. Most streams differ within their first word and leave
//! at once; the ones that do not are the long runs of shuffled integers (the zero planes of
//! an int64 column: five streams of eight), scanned whole. Those scans took a sixth of the
//! compression of a shuffled int64 ramp through LZ4 when written as word compares, which
//! LLVM turned into one compare and branch per 8 bytes; the AVX2 kernel tests 128 bytes per
//! branch. [`is_run_scalar`] is the portable twin the tests compare it with.

/// `true` when `s` is not empty and every byte of it equals the first one.
#[inline]
pub fn is_run(s: &[u8]) -> bool {
    let Some(&first) = s.first() else { return false };
    // Most streams differ in their first word: settled before any dispatch.
    if s.len() >= 8 && u64::from_ne_bytes(s[..8].try_into().expect("8 bytes")) != u64::from_ne_bytes([first; 8]) {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    if s.len() >= 32 && crate::cpu::has(crate::cpu::Feature::Avx2) {
        // SAFETY: the CPU has AVX2 (checked just above).
        return unsafe { is_run_avx2(s, first) };
    }
    is_run_scalar(s)
}

/// The portable scan: 64-byte pieces compared as words, one branch each.
pub fn is_run_scalar(s: &[u8]) -> bool {
    let Some(&first) = s.first() else { return false };
    let word = u64::from_ne_bytes([first; 8]);
    let differs = |c: &[u8]| u64::from_ne_bytes(c.try_into().expect("8 bytes")) != word;
    let mut chunks = s.chunks_exact(64);
    for c in &mut chunks {
        let mut acc = 0u64;
        for w in c.chunks_exact(8) {
            acc |= u64::from_ne_bytes(w.try_into().expect("8 bytes")) ^ word;
        }
        if acc != 0 {
            return false;
        }
    }
    let rest = chunks.remainder();
    let mut words = rest.chunks_exact(8);
    if words.any(differs) {
        return false;
    }
    words.remainder().iter().all(|&b| b == first)
}

/// Four 32-byte loads XORed with the byte and ORed together, one test and branch per 128
/// bytes; the last 32 bytes are tested as one (possibly overlapping) load.
///
/// # Safety
/// The CPU must have AVX2; `s.len() >= 32`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn is_run_avx2(s: &[u8], first: u8) -> bool {
    use std::arch::x86_64::*;
    let n = s.len();
    debug_assert!(n >= 32);
    let p = s.as_ptr();
    // SAFETY (every load below): each reads 32 bytes at `p + i` with `i + 32 <= n`, inside
    // `s`; unaligned loads take any address.
    unsafe {
        let v = _mm256_set1_epi8(first as i8);
        // (A macro, not a closure: the intrinsics inline into this function's AVX2 code.)
        macro_rules! load {
            ($i:expr) => {
                _mm256_xor_si256(_mm256_loadu_si256(p.add($i) as *const __m256i), v)
            };
        }
        let mut i = 0;
        while i + 128 <= n {
            let acc = _mm256_or_si256(_mm256_or_si256(load!(i), load!(i + 32)), _mm256_or_si256(load!(i + 64), load!(i + 96)));
            if _mm256_testz_si256(acc, acc) == 0 {
                return false;
            }
            i += 128;
        }
        while i + 32 <= n {
            let d = load!(i);
            if _mm256_testz_si256(d, d) == 0 {
                return false;
            }
            i += 32;
        }
        let d = load!(n - 32);
        _mm256_testz_si256(d, d) != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Rng;

    /// Runs of every length to 300 and a few long ones, each with one byte changed at
    /// every position (and a difference in the low or high bits): the dispatched scan, the
    /// portable one and the definition agree.
    #[test]
    fn runs_found_and_broken_at_every_position() {
        let mut rng = Rng::new(9);
        let lengths = (0..300usize).chain([511, 512, 513, 4096, 65_536 + 17]);
        for n in lengths {
            let value = rng.next_u64() as u8;
            let mut s = vec![value; n];
            assert_eq!(is_run(&s), n > 0, "n {n}");
            assert_eq!(is_run_scalar(&s), n > 0, "n {n}");
            // (One byte is always a run.)
            let positions: Vec<usize> = match n {
                0 | 1 => Vec::new(),
                2..=300 => (0..n).collect(),
                _ => (0..n).step_by(37).chain([n - 1]).collect(),
            };
            for at in positions {
                for flip in [0x01u8, 0x80] {
                    s[at] ^= flip;
                    assert!(!is_run(&s), "n {n}, byte {at} changed");
                    assert!(!is_run_scalar(&s), "n {n}, byte {at} changed (scalar)");
                    s[at] ^= flip;
                }
            }
        }
    }

    /// Random streams, streams that differ only far in, and slices at every offset of a
    /// buffer (the unaligned loads).
    #[test]
    fn dispatched_scan_equals_the_scalar_twin() {
        let mut rng = Rng::new(31);
        let mut buf = vec![7u8; 1000];
        buf[900] = 8;
        for start in 0..64 {
            for len in [0, 1, 31, 32, 33, 127, 128, 129, 300, 899 - start, 900 - start, 901 - start] {
                let s = &buf[start..start + len];
                assert_eq!(is_run(s), is_run_scalar(s), "start {start} len {len}");
            }
        }
        for _ in 0..200 {
            let n = rng.below(600);
            let mut s = vec![rng.next_u64() as u8; n];
            if n > 0 && rng.below(2) == 0 {
                let at = rng.below(n);
                s[at] = rng.next_u64() as u8;
            }
            assert_eq!(is_run(&s), is_run_scalar(&s), "n {n}");
            assert_eq!(is_run(&s), s.first().is_some_and(|&f| s.iter().all(|&b| b == f)));
        }
    }
}
