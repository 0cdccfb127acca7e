//! Copies of LZ77 matches that overlap their source, shared by our BloscLZ and LZ4 decoders.
//!
//! A match `dist` bytes back and longer than `dist` repeats the last `dist` bytes; copying it
//! byte by byte is what the formats define and what runs slowest. Both decoders keep their
//! own inlined fast paths for the common short matches (their shapes differ with each
//! format's room guarantees) and call [`copy_overlapping`] for the rest: runs become fills,
//! long repeats are copied whole periods at a time, short periods go through a register.

/// Reads 8 bytes at `pos` as a little-endian word.
#[inline(always)]
pub(super) fn read_u64(buf: &[u8], pos: usize) -> u64 {
    u64::from_le_bytes(buf[pos..pos + 8].try_into().unwrap())
}

/// 8 bytes of the pattern of period `dist` (1 to 7) whose first `dist` bytes are the low bytes
/// of `w` (little-endian).
#[inline(always)]
pub(super) fn repeat_pattern(w: u64, dist: usize) -> u64 {
    match dist {
        1 => (w & 0xFF) * 0x0101_0101_0101_0101,
        2 => (w & 0xFFFF) * 0x0001_0001_0001_0001,
        4 => (w & 0xFFFF_FFFF) * 0x0000_0001_0000_0001,
        _ => {
            let bits = 8 * dist as u32;
            let p = w & ((1u64 << bits) - 1);
            let mut v = p;
            let mut sh = bits;
            while sh < 64 {
                v |= p << sh;
                sh += bits;
            }
            v
        }
    }
}

/// For a period `dist` below 8, the smallest multiple of it that is at least 8.
pub(super) const WIDE_STEP: [usize; 8] = [8, 8, 8, 9, 8, 10, 12, 14];

/// From this length on, an overlapping match is copied a whole number of periods at a time.
const LONG_MATCH: usize = 64;

/// Copies a match of `len` bytes from `dist` bytes behind `op` to `op` when the two overlap
/// (`1 <= dist < len`, `dist <= op`, `op + len <= out.len()`): the general case behind each
/// decoder's own fast paths for short matches. Bytes past `op + len` may be overwritten
/// while they are inside `out`; the decoders write those positions later anyway.
#[inline(never)]
pub(super) fn copy_overlapping(out: &mut [u8], op: usize, dist: usize, len: usize) {
    let end = op + len;
    if dist == 1 {
        let b = out[op - 1];
        out[op..end].fill(b);
        return;
    }
    // The output is periodic with period `dist`, so any multiple of it is an equally valid
    // distance; chunks never read bytes they (or later chunks) write when the distance is at
    // least the chunk size.  Chunks may run past `end` while there is room; the last bytes
    // before the end of `out` are copied one at a time.
    let room = out.len();
    let mut d = op;
    if dist >= 16 && len >= LONG_MATCH {
        // Long matches: copy whole periods from the match's start, doubling each time (the
        // bytes from `op - dist` to `d` always hold a whole number of periods).
        let from = op - dist;
        while d < end {
            let n = (d - from).min(end - d);
            out.copy_within(from..from + n, d);
            d += n;
        }
        return;
    }
    if dist >= 16 {
        while d < end && d + 16 <= room {
            out.copy_within(d - dist..d - dist + 16, d);
            d += 16;
        }
    } else if len >= LONG_MATCH && op + 16 <= room {
        // Long match, short period: keep 16 bytes of the pattern in a register and advance
        // it by 16 bytes each step (a rotation by `16 % dist` bytes), so that no load waits
        // for the store before it (copying from `d - step` ran at store-forwarding latency).
        let mut window = [0u8; 16];
        let period = &out[op - dist..op];
        for (w, &b) in window.iter_mut().zip(period.iter().cycle()) {
            *w = b;
        }
        let mut w = u128::from_le_bytes(window);
        let r = 16 % dist;
        while d < end && d + 16 <= room {
            out[d..d + 16].copy_from_slice(&w.to_le_bytes());
            if r != 0 {
                w = (w >> (8 * r)) | (w << (8 * (dist - r)));
            }
            d += 16;
        }
    } else if op + 8 <= room {
        let step = if dist < 8 {
            // The first 8 bytes come from a register; from then on a multiple of the period
            // at least 8 bytes back is available.
            let v = repeat_pattern(read_u64(out, op - dist), dist);
            out[op..op + 8].copy_from_slice(&v.to_le_bytes());
            d += 8;
            WIDE_STEP[dist]
        } else {
            dist
        };
        while d < end && d + 8 <= room {
            let v = read_u64(out, d - step);
            out[d..d + 8].copy_from_slice(&v.to_le_bytes());
            d += 8;
        }
    }
    while d < end {
        out[d] = out[d - dist];
        d += 1;
    }
}

/// Checks a decoder's match copy `copy(out, op, dist, len)` against the definition (each
/// byte is the one `dist` before it) for each `(dist, len)` of `cases`, with at least `pre`
/// random bytes before the match and each of `slacks` bytes of room after it: the bytes up
/// to the match's end must be the definition's. For the decoders' own tests too.
#[cfg(test)]
pub(super) fn assert_copies_matches(
    copy: impl Fn(&mut [u8], usize, usize, usize),
    cases: impl Iterator<Item = (usize, usize)>,
    pre: usize,
    slacks: &[usize],
    seed: u64,
) {
    let mut rng = crate::test_rng::Rng::new(seed);
    for (dist, len) in cases {
        let pre = dist.max(pre);
        for &slack in slacks {
            let mut buf = vec![0u8; pre + len + slack];
            rng.fill(&mut buf[..pre]);
            let mut expect = buf.clone();
            for i in pre..pre + len {
                expect[i] = expect[i - dist];
            }
            copy(&mut buf, pre, dist, len);
            assert_eq!(buf[..pre + len], expect[..pre + len], "dist {dist} len {len} slack {slack}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every distance that overlaps, against the byte-by-byte definition, with and without
    /// room past the match (the paths that write ahead need it), and the bytes before the
    /// match left alone.
    #[test]
    fn overlapping_copies_repeat_the_period() {
        let cases = (1..40usize)
            .flat_map(|d| (d + 1..160usize).map(move |l| (d, l)))
            .chain([63usize, 64, 100, 255, 256].into_iter().flat_map(|d| (d + 1..1300usize).step_by(11).map(move |l| (d, l))));
        assert_copies_matches(copy_overlapping, cases, 32, &[0, 3, 8, 16, 40], 23);
    }

    /// The register pattern holds the period's bytes in order, and each wide step is the
    /// smallest multiple of the period reaching 8.
    #[test]
    fn short_periods_in_a_register() {
        let w = u64::from_le_bytes(*b"abcdefgh");
        for dist in 1..8 {
            let v = repeat_pattern(w, dist).to_le_bytes();
            for (i, &b) in v.iter().enumerate() {
                assert_eq!(b, b"abcdefgh"[i % dist], "dist {dist}");
            }
            let step = WIDE_STEP[dist];
            assert!(step >= 8 && step % dist == 0 && step - dist < 8, "dist {dist}");
        }
    }
}
