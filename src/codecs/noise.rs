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

/// Hits beyond the rate of [`REPEAT_RARITY`] that a probe may run ahead by before its
/// segment is judged not noise (see [`repeats`]).
const REPEAT_SLACK: usize = 2;

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
        && !skewed(segment)
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

/// Longest stream [`incompressible`] judges: its repeat probe keeps one 16-bit print per
/// slot in a table of half as many slots as the stream has bytes, up to 2^19 (1 MiB, Zen 4's
/// L2), so that it sees most repeats from anywhere in the stream, as far back as zstd's
/// window reaches.
pub const WHOLE_MAX: usize = 1 << 20;

/// Order-0 entropy each segment of an [`incompressible`] stream has at least, in bits per
/// byte, as estimated from the segment with the usual correction for a sample of its length
/// (the histogram of n random bytes reads about 255 / (2 n ln 2) under 8: 0.011 at 16 KiB):
/// Huffman coding could then save at most about 0.2% of it. (Random bytes with 4 of their
/// 256 values folded onto 4 others, 7.969 bits, are turned away; deflate shrinks them.)
const WHOLE_MIN_ENTROPY: f64 = 7.985;

/// Table bits of [`repeats_anywhere`]: half the stream's length, rounded up to a power of
/// two, within these bounds.
const WHOLE_HASH_BITS: std::ops::RangeInclusive<u32> = 12..=19;

/// An [`incompressible`] stream has at most one position in this many starting a 4-byte
/// string found earlier in it. Random bytes have about one in 2^13 at 1 MiB (true repeats
/// and chance equal prints), the low bytes of xorshift64 (the benchmarks' random data) one in
/// 1,000; a match saves at most about a byte per position it covers past its first three,
/// each of which is a hit, so the limit leaves matches 0.2% of the stream.
const WHOLE_RARITY: usize = 512;

/// Hits beyond the rate of [`WHOLE_RARITY`] that [`repeats_anywhere`] may run ahead by,
/// so that chance hits early in a random stream do not turn it away (a stream turned away
/// goes to its encoder, as before).
const WHOLE_SLACK: usize = 4;

/// Whether `src`, as a whole, is a stream no LZ encoder of Blosc's can shrink, so that the
/// encoder's search (LZ4HC from level 3, zlib, zstd at clevel 9: 0.01-0.26 GB/s on random
/// bytes) can be skipped and the stream stored, as Blosc stores it after the search. Between
/// 8 KiB and [`WHOLE_MAX`] bytes long; no runs and no skewed byte values in any 16 KiB
/// segment; 4-byte strings repeated anywhere in it, at any distance, at no more than one
/// position in [`WHOLE_RARITY`]; each segment's byte histogram at least
/// [`WHOLE_MIN_ENTROPY`] bits. The probe runs at about 0.5-0.6 GB/s on such a stream and
/// turns compressible data away within its first samples (a microsecond or two).
///
/// Why the encoders cannot shrink such a stream: Huffman coding of its literals could save
/// at most about 0.2% of it and its matches about 0.2% more; zstd keeps a compressed block
/// only when it saves `(size >> 7) + 2` bytes or more (0.78%, `ZSTD_minGain` at its btultra
/// strategies; 1.6% below them) and otherwise writes the block raw, with headers, longer
/// than the input; LZ4 has no entropy coding and spends a byte per 255 literals (0.39%),
/// more than those matches save; deflate's Huffman tables cost about as much as that 0.2%
/// could save in its blocks of 16-64 KiB of symbols, and its stored blocks are longer than
/// their input (zlib-ng wrote no stream of such data shorter than it). Blosc stores a stream
/// whose encoding is not shorter than it, so skipping the encoder writes the same chunk.
/// `tests::incompressible_streams_are_what_the_encoders_cannot_shrink` holds the probe to
/// the encoders on streams about each limit.
pub fn incompressible(src: &[u8]) -> bool {
    if !(MIN_LEN..=WHOLE_MAX).contains(&src.len()) {
        return false;
    }
    // Segments of SEGMENT bytes; a last piece too short to judge is judged as the last
    // SEGMENT bytes instead (overlapping the one before).
    let segments = || {
        let whole = src.len() / SEGMENT;
        let tail = src.len() % SEGMENT;
        let last = match tail {
            0 => None,
            t if t >= MIN_LEN || whole == 0 => Some(&src[whole * SEGMENT..]),
            _ => Some(&src[src.len() - SEGMENT..]),
        };
        src.chunks_exact(SEGMENT).chain(last)
    };
    segments().all(|s| !has_runs(s) && !skewed(s))
        && !repeats_anywhere(src)
        && segments().all(|s| {
            // The estimate from s.len() bytes, corrected by what it reads under the truth.
            entropy(s) + 255.0 / (2.0 * s.len() as f64 * std::f64::consts::LN_2) >= WHOLE_MIN_ENTROPY
        })
}

/// Whether more than one position in [`WHOLE_RARITY`] of `src` starts a 4-byte string that
/// also starts at the last earlier position with the same hash (as [`repeats`], with a table
/// sized to the stream so that distant repeats are seen too). Stops at the first hit over
/// that limit, or once the hits run ahead of its rate by more than [`WHOLE_SLACK`].
fn repeats_anywhere(src: &[u8]) -> bool {
    let bits = (src.len().next_power_of_two().trailing_zeros().saturating_sub(1))
        .clamp(*WHOLE_HASH_BITS.start(), *WHOLE_HASH_BITS.end());
    // Each slot keeps 16 bits of the string's hash that do not pick the slot: strings of one
    // slot are then told apart but at one probe in 2^16, and the table stays half the size.
    let mut last = vec![0u16; 1 << bits];
    let limit = src.len() / WHOLE_RARITY;
    let mut hits = 0;
    for (at, quad) in src.windows(4).enumerate() {
        let word = u32::from_le_bytes([quad[0], quad[1], quad[2], quad[3]]);
        let mixed = u64::from(word).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let slot = &mut last[(mixed >> (64 - bits)) as usize];
        let print = (mixed >> 16) as u16;
        hits += usize::from(*slot == print);
        *slot = print;
        if hits > limit || hits > WHOLE_SLACK + at / WHOLE_RARITY {
            return true;
        }
    }
    false
}

/// Whether 4 or more of 64 positions spread over `segment` equal the byte after them: random
/// bytes do that at 1 position in 256 (4 of 64 with a chance of about 1.5e-4), data with
/// runs far more often.
fn has_runs(segment: &[u8]) -> bool {
    let step = (segment.len() - 1) / 64;
    (0..64).filter(|k| segment[k * step] == segment[k * step + 1]).count() >= 4
}

/// Bytes sampled by [`skewed`] and [`sampled_entropy`].
const SKEW_SAMPLES: usize = 1024;

/// [`SKEW_SAMPLES`] bytes spread over `bytes`, `None` when there are not that many. The
/// step is odd, so that the samples visit every byte lane of items of 2, 4, 8 or 16 bytes.
fn sample(bytes: &[u8]) -> Option<[u8; SKEW_SAMPLES]> {
    let step = (bytes.len() / SKEW_SAMPLES).checked_sub(1)? | 1;
    let mut sample = [0u8; SKEW_SAMPLES];
    for (k, b) in sample.iter_mut().enumerate() {
        *b = bytes[k * step];
    }
    Some(sample)
}

/// Whether one byte value makes up more than 6 times its share of [`sample`] (24 of
/// [`SKEW_SAMPLES`] bytes, 4 expected): random bytes do that with a chance of about 1e-8 per
/// segment, while unshuffled multi-byte items (the exponent byte of each float, the high
/// byte of each 16-bit sample) do it at once. A cheap first look, so that such data, which
/// has no runs and few exact repeats, is not probed position by position only to fail the
/// entropy test at the end (that cost 17-26% of compressing unshuffled floats). Segments
/// too short to sample are not skewed.
fn skewed(segment: &[u8]) -> bool {
    let Some(sample) = sample(segment) else {
        return false;
    };
    let mut counts = [0u16; 256];
    for b in sample {
        counts[usize::from(b)] += 1;
    }
    counts.iter().any(|&c| usize::from(c) > 6 * SKEW_SAMPLES / 256)
}

/// Order-0 entropy, in bits per byte, of [`sample`] (of all of `bytes` when they are too few
/// to sample): an estimate, a little low for random bytes (about 7.8), for choosing an
/// encoder rather than judging noise.
pub fn sampled_entropy(bytes: &[u8]) -> f64 {
    match sample(bytes) {
        Some(sample) => entropy(&sample),
        None => entropy(bytes),
    }
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
/// the first hit over that limit, or as soon as the hits so far exceed that rate by more
/// than [`REPEAT_SLACK`]: random bytes hit about once in 2^20 positions, so a probe that
/// hits early is not probing noise, and near-noise is turned away within a few KiB.
///
/// The table keeps the string itself rather than its position, so a probe is one load and
/// one comparison (near-noise, such as the low byte plane of a noisy 16-bit signal, is only
/// turned away after most of a segment has been probed). A slot starts out holding a string
/// that hashes elsewhere, which no probe of that slot can equal.
fn repeats(window: &[u8], from: usize) -> bool {
    const HASH_BITS: u32 = 12;
    let hash = |word: u32| (word.wrapping_mul(2_654_435_761) >> (32 - HASH_BITS)) as usize;
    let limit = (window.len() - from) / REPEAT_RARITY;
    let mut last = [0u32; 1 << HASH_BITS];
    // 0 hashes to slot 0, 1 does not.
    last[hash(0)] = 1;
    debug_assert_ne!(hash(1), hash(0));
    let word_at = |at: usize| u32::from_le_bytes([window[at], window[at + 1], window[at + 2], window[at + 3]]);
    let ends = window.len().saturating_sub(3);
    for at in 0..from.min(ends) {
        let word = word_at(at);
        last[hash(word)] = word;
    }
    let mut hits = 0;
    for at in from.min(ends)..ends {
        let word = word_at(at);
        let slot = &mut last[hash(word)];
        hits += usize::from(*slot == word);
        *slot = word;
        if hits > limit || hits > REPEAT_SLACK + (at - from) / REPEAT_RARITY {
            return true;
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
    fn unshuffled_items_are_skewed_noise_is_not() {
        // Random bytes at every length judged: never skewed (nor anything but noise).
        for (seed, len) in [(20, MIN_LEN), (21, MIN_LEN + 1), (22, SEGMENT - 1), (23, SEGMENT), (24, 2 * SEGMENT)] {
            assert!(!skewed(&random(len, seed)), "{len} bytes");
        }
        // Too short to sample: not skewed (and no panic).
        assert!(!skewed(&[7; SKEW_SAMPLES - 1]) && !skewed(&[]));
        assert!(skewed(&[7; SKEW_SAMPLES]));
        // Floats and 16-bit samples, not shuffled: one lane of each item holds few values,
        // which a sample stepping by a multiple of the item size would never see.
        let mut rng = Rng::new(25);
        let floats: Vec<u8> = (0..SEGMENT / 4)
            .flat_map(|i| ((i as f32 * 1e-3).sin() * 100.0 + rng.below(16) as f32 * 1e-4).to_le_bytes())
            .collect();
        let samples: Vec<u8> = (0..SEGMENT / 2)
            .flat_map(|i| (((i as f64 * 1e-3).sin() * 12000.0) as i16 + rng.below(8) as i16).to_le_bytes())
            .collect();
        for v in [&floats, &samples] {
            assert!(skewed(v));
            assert!(!is_noise(v, 0));
        }
    }

    #[test]
    fn sampled_entropy_reads_near_the_whole() {
        let noise = random(4 * SEGMENT, 26);
        assert!((7.7..8.0).contains(&sampled_entropy(&noise)), "{}", sampled_entropy(&noise));
        let three: Vec<u8> = (0..100_000u32).map(|i| ((i / 50) % 3) as u8).collect();
        assert!((sampled_entropy(&three) - 3f64.log2()).abs() < 0.05);
        assert!(sampled_entropy(&[5; 10]).abs() < 1e-12);
        assert!((sampled_entropy(&[0, 1]) - 1.0).abs() < 1e-12, "all bytes of short input");
    }

    /// The random data of bench/bench.c (the low bytes of xorshift64 from its seed).
    fn xorshift(len: usize) -> Vec<u8> {
        crate::test_rng::xorshift_low_bytes(len, 88_172_645_463_325_252)
    }

    #[test]
    fn random_streams_are_incompressible() {
        for (seed, len) in [(30, MIN_LEN), (31, SEGMENT + 100), (32, SEGMENT + MIN_LEN), (33, 256 << 10), (34, WHOLE_MAX)] {
            assert!(incompressible(&random(len, seed)), "{len} bytes");
        }
        for len in [SEGMENT, 256 << 10, WHOLE_MAX] {
            assert!(incompressible(&xorshift(len)), "xorshift, {len} bytes");
        }
        assert!(!incompressible(&random(MIN_LEN - 1, 35)), "too short to judge");
        assert!(!incompressible(&random(WHOLE_MAX + 1, 36)), "too long to judge");
    }

    /// What the encoders whose search [`incompressible`] spares write for `src`: whether
    /// LZ4HC, zlib (zlib-ng, the reference's) or zstd, at every clevel that may ask the probe
    /// (LZ4HC from 1: an older lz4 asks from there), fit it in fewer bytes.
    fn an_encoder_shrinks(src: &[u8]) -> bool {
        use crate::codecs::{lz4, zlib, zstd};
        let mut dest = vec![0u8; src.len() - 1];
        let mut zstd = zstd::ZstdState::new();
        (1..=9).any(|clevel| lz4::compress_hc(src, &mut dest, clevel).unwrap() > 0)
            || (1..=9).any(|clevel| zlib::compress(src, &mut dest, clevel) > 0)
            || (7..=9).any(|clevel| zstd.compress_searching(src, &mut dest, clevel) > 0)
    }

    #[test]
    fn incompressible_streams_are_what_the_encoders_cannot_shrink() {
        let len = 256 << 10;
        let mut cases: Vec<(String, Vec<u8>)> = Vec::new();
        cases.push(("random".into(), random(len, 40)));
        // The low bytes of xorshift64 (the benchmark's random data): eight times the 4-byte
        // repeats of random bytes, still nothing an encoder can use.
        cases.push(("xorshift".into(), xorshift(len)));
        // Random bytes with 8-byte strings copied from anywhere before, at rates about the limit.
        for every in [8192, 4096, 2048, 1024, 512, 256, 64] {
            let mut v = random(len, every as u64);
            let mut rng = Rng::new(41);
            for _ in 0..len / every {
                let to = 8 + rng.below(len - 16);
                let from = rng.below(to - 8);
                v.copy_within(from..from + 8, to);
            }
            cases.push((format!("8-byte copies, 1 in {every}"), v));
        }
        // Byte values skewed a little: histograms of about 7.9 to 8 bits.
        for skew in [1, 2, 3, 4, 8, 16, 32] {
            let v = random(len, 50 + skew).iter().map(|&b| if b < skew as u8 { b.wrapping_add(128) } else { b }).collect();
            cases.push((format!("skewed by {skew}"), v));
        }
        // 4-byte tokens drawn from dictionaries of 2^12 to 2^20 random words.
        for bits in [12, 14, 16, 18, 20] {
            let dict = random(4 << bits, 60 + bits);
            let mut rng = Rng::new(61);
            let v = (0..len / 4).flat_map(|_| { let k = rng.below(1 << bits) * 4; dict[k..k + 4].to_vec() }).collect();
            cases.push((format!("tokens of 2^{bits}"), v));
        }
        // Both at once: a histogram of 7.97 bits with far repeats of 4-byte tokens.
        for bits in [16, 18, 20] {
            let dict: Vec<u8> = random(4 << bits, 80 + bits).iter().map(|&b| if b < 4 { b + 128 } else { b }).collect();
            let mut rng = Rng::new(81);
            let v = (0..len / 4).flat_map(|_| { let k = rng.below(1 << bits) * 4; dict[k..k + 4].to_vec() }).collect();
            cases.push((format!("skewed tokens of 2^{bits}"), v));
        }
        // A repeat of the whole first half, from far back.
        let mut halves = random(len / 2, 70);
        halves.extend_from_within(..);
        cases.push(("halves".into(), halves));
        let mut judged = [0, 0];
        for (name, v) in &cases {
            let noise = incompressible(v);
            judged[usize::from(noise)] += 1;
            if noise {
                assert!(!an_encoder_shrinks(v), "{name}: judged incompressible, but an encoder shrinks it");
            }
        }
        assert!(judged[0] >= 5 && judged[1] >= 5, "both answers exercised: {judged:?}");
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
