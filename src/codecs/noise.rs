//! Noise: stretches of a stream that a deflate encoder cannot shrink, found cheaply so that
//! zlib-ng can store them instead of searching them for matches.
//!
//! Why: Blosc shuffles typed data into byte planes, and the low planes of measured floats
//! are noise (the shuffled smooth float32 of the benchmark: two of its four planes). zlib-ng
//! searches every position of such a plane for matches at its full effort, finds none, and
//! then stores the plane anyway because that is the smallest encoding; on that data set the
//! search was about two thirds of zlib compression time at clevel 5. A segment found to be
//! noise here is stored straight away (zlib-ng's level 0), which writes what the search
//! would have ended in, give or take a block header.

/// Length of the pieces a stream is judged in. Long enough for the byte histogram of noise to
/// read near 8 bits (16 KiB of random bytes: 7.985-7.99), short enough to follow Blosc's byte
/// planes (a plane of a 256 KiB block of float32 is 64 KiB).
pub const SEGMENT: usize = 16 * 1024;

/// Order-0 entropy, in bits per byte, from which a segment may be noise: Huffman coding could
/// save at most (8 - 7.95) / 8, 0.6%, of it.
const MIN_ENTROPY: f64 = 7.95;

/// Shortest piece judged: below it the histogram of random bytes reads too far under 8 bits
/// (8 KiB: about 7.978) to tell noise by.
const MIN_LEN: usize = SEGMENT / 2;

/// A noise segment repeats a 4-byte string of its window at no more than one position in
/// this many (16 KiB of random bytes: 0-1 in all; the mantissa plane of the benchmark's
/// smooth float32, whose histogram is as flat, 93-197, which zlib-ng's matches shrink by 6%).
const REPEAT_RARITY: usize = 1024;

/// Whether `window[from..]`, the segment, is noise: long enough to judge ([`MIN_LEN`]),
/// without runs among 64 sampled positions, with 4-byte strings that recur (within the
/// segment, then also from `window[..from]`, the bytes before it that a match could reach) at
/// fewer than one position in [`REPEAT_RARITY`], and a byte histogram of at least
/// [`MIN_ENTROPY`] bits. The cheap tests come first: compressible data is turned away by
/// the run samples or within the first few hundred positions of the repeat probe, so that
/// judging a stream of it costs about 1 µs per segment.
pub fn is_noise(window: &[u8], from: usize) -> bool {
    let Some(segment) = window.get(from..) else {
        return false;
    };
    segment.len() >= MIN_LEN
        && !has_runs(segment)
        && !repeats(segment, 0)
        && entropy(segment) >= MIN_ENTROPY
        && (from == 0 || !repeats(window, from))
}

/// The first segment of `src` (cut into [`SEGMENT`]s from its start) that [`is_noise`], with
/// the segment before it as its window.
pub fn first_noise(src: &[u8]) -> Option<usize> {
    (0..src.len().div_ceil(SEGMENT)).find(|&i| {
        let start = i * SEGMENT;
        let window = &src[start.saturating_sub(SEGMENT)..(start + SEGMENT).min(src.len())];
        is_noise(window, start.min(SEGMENT))
    })
}

/// Whether 4 or more of 64 positions spread over `segment` equal the byte after them: random
/// bytes do that at 1 position in 256 (4 of 64 with a chance of about 1.5e-4), data with
/// runs far more often.
fn has_runs(segment: &[u8]) -> bool {
    let step = (segment.len() - 1) / 64;
    (0..64).filter(|k| segment[k * step] == segment[k * step + 1]).count() >= 4
}

/// Order-0 entropy of `bytes` in bits per byte (0 for an empty slice).
fn entropy(bytes: &[u8]) -> f64 {
    // Four histograms, so that consecutive equal bytes do not wait on one counter.
    let mut counts = [[0u32; 256]; 4];
    let mut quads = bytes.chunks_exact(4);
    for q in &mut quads {
        for (lane, &b) in q.iter().enumerate() {
            counts[lane][b as usize] += 1;
        }
    }
    for &b in quads.remainder() {
        counts[0][b as usize] += 1;
    }
    let n = bytes.len() as f64;
    let sum: f64 = (0..256)
        .map(|v| counts.iter().map(|c| c[v]).sum::<u32>())
        .filter(|&c| c > 0)
        .map(|c| f64::from(c) * f64::from(c).log2())
        .sum();
    if bytes.is_empty() { 0.0 } else { n.log2() - sum / n }
}

/// Whether more than one position in [`REPEAT_RARITY`] of `window[from..]` starts a 4-byte
/// string that also starts at the last earlier position of `window` with the same 12-bit
/// hash (an LZ4-like probe: it misses some repeats, but noise has none to miss). Stops at
/// the first hit over that limit.
fn repeats(window: &[u8], from: usize) -> bool {
    const HASH_BITS: u32 = 12;
    let limit = (window.len() - from) / REPEAT_RARITY;
    let mut last = [u32::MAX; 1 << HASH_BITS];
    let mut hits = 0;
    for (at, quad) in window.windows(4).enumerate() {
        let word = u32::from_le_bytes([quad[0], quad[1], quad[2], quad[3]]);
        let slot = (word.wrapping_mul(2_654_435_761) >> (32 - HASH_BITS)) as usize;
        let before = last[slot];
        last[slot] = at as u32;
        if at >= from && before != u32::MAX && window[before as usize..before as usize + 4] == *quad {
            hits += 1;
            if hits > limit {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::{words, Rng};

    fn random(len: usize, seed: u64) -> Vec<u8> {
        let mut v = vec![0u8; len];
        Rng::new(seed).fill(&mut v);
        v
    }

    #[test]
    fn random_bytes_are_noise() {
        for seed in 0..20 {
            let v = random(SEGMENT * 2, seed);
            assert!(is_noise(&v, SEGMENT), "seed {seed}");
            assert!(is_noise(&v[SEGMENT..], 0), "seed {seed}, no window");
            assert!(is_noise(&v[..SEGMENT + MIN_LEN], SEGMENT), "seed {seed}, shortest");
        }
        assert_eq!(first_noise(&random(5 * SEGMENT + 100, 3)), Some(0));
    }

    #[test]
    fn too_short_pieces_are_not_judged() {
        let v = random(SEGMENT, 4);
        assert!(!is_noise(&v[..MIN_LEN - 1], 0));
        assert!(!is_noise(&v, v.len() - 100));
        assert!(!is_noise(&v, v.len() + 1), "past the end");
        assert_eq!(first_noise(&v[..MIN_LEN - 1]), None);
        assert_eq!(first_noise(&[]), None);
    }

    #[test]
    fn compressible_data_is_not_noise() {
        // Text, a ramp, a narrow alphabet (entropy 6 bits), runs in random bytes.
        let text = words(SEGMENT, 1);
        let ramp: Vec<u8> = (0..SEGMENT as u32 / 4).flat_map(|i| i.to_le_bytes()).collect();
        let narrow: Vec<u8> = random(SEGMENT, 5).iter().map(|b| b & 63).collect();
        let mut runs = random(SEGMENT, 6);
        for chunk in runs.chunks_mut(64) {
            chunk[..16].fill(0);
        }
        for v in [&text, &ramp, &narrow, &runs] {
            assert!(!is_noise(v, 0));
            assert_eq!(first_noise(v), None);
        }
    }

    #[test]
    fn repeated_noise_is_not_noise() {
        // The second copy of a random segment matches the first all along: deflate halves it.
        let mut v = random(SEGMENT, 7);
        v.extend_from_within(..);
        assert!(!is_noise(&v, SEGMENT));
        assert_eq!(first_noise(&v), Some(0));
        // Random bytes with short repeats sprinkled in (as in a float's mantissa plane): flat
        // histogram, but one position in 100 starts an 8-byte string seen before.
        let mut sprinkled = random(2 * SEGMENT, 8);
        let mut rng = Rng::new(9);
        for _ in 0..2 * SEGMENT / 100 {
            let to = SEGMENT / 2 + rng.below(3 * SEGMENT / 2 - 8);
            let from = rng.below(to - 8);
            sprinkled.copy_within(from..from + 8, to);
        }
        assert!(entropy(&sprinkled[SEGMENT..]) >= MIN_ENTROPY);
        assert!(!is_noise(&sprinkled, SEGMENT));
    }

    #[test]
    fn first_noise_finds_the_first_noise_segment() {
        let mut v = words(3 * SEGMENT, 2);
        v.extend_from_slice(&random(2 * SEGMENT, 10));
        v.extend_from_slice(&words(SEGMENT, 3));
        assert_eq!(first_noise(&v), Some(3));
        // Noise starting mid-segment: the first whole noise segment.
        let mut w = words(SEGMENT + SEGMENT / 2, 4);
        w.extend_from_slice(&random(3 * SEGMENT, 11));
        assert_eq!(first_noise(&w), Some(2));
    }

    #[test]
    fn entropy_of_known_histograms() {
        assert_eq!(entropy(&[]), 0.0);
        assert!(entropy(&[9; 1000]).abs() < 1e-12);
        let two: Vec<u8> = (0..1000).map(|i| (i % 2) as u8).collect();
        assert!((entropy(&two) - 1.0).abs() < 1e-12);
        let all: Vec<u8> = (0..4096).map(|i| i as u8).collect();
        assert!((entropy(&all) - 8.0).abs() < 1e-12);
        // The remainder after the groups of four is counted.
        assert!((entropy(&[1, 1, 1, 1, 2, 2, 2]) - 0.985_228_136).abs() < 1e-6);
    }
}
