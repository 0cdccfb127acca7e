//! The "bytedelta" filter plugin the reference registers at start-up (ids 34 and 35):
//! within each of `typesize` byte streams (the layout byte-shuffle produces), every byte is
//! replaced by its difference to the previous byte of the same stream.
//!
//! Id 35 is the corrected filter. Id 34 ("buggy") is what c-blosc2 shipped first: its SIMD
//! main loop handled 16-byte groups and the scalar loop for the rest of each stream restarted
//! from 0, so the first byte after the last full 16-byte group is stored undifferenced. Data
//! written with either id must keep decoding, so both are provided. For both, the trailing
//! `len % typesize` bytes are copied unchanged (the reference left them undefined before
//! 3.3.2).

/// Byte streams in a block of `len` bytes: `typesize` streams of `len / typesize` bytes.
fn stream_len(len: usize, typesize: usize) -> usize {
    len / typesize.max(1)
}

/// How many streams hold bytes: none when the block is shorter than `typesize`. The type
/// size comes from the chunk or the super-chunk and can be forged to hundreds of millions;
/// looping over that many empty streams cost the reference a second per block.
fn streams_with_bytes(typesize: usize, stream_len: usize) -> usize {
    if stream_len == 0 {
        0
    } else {
        typesize
    }
}

/// Position inside a stream where the buggy variant restarts its running value.
fn restart_at(stream_len: usize, buggy: bool) -> Option<usize> {
    if buggy {
        Some(stream_len / 16 * 16)
    } else {
        None
    }
}

/// Encode: replace each byte of each of the `typesize` streams of `src` by its difference to
/// the previous byte, into `dest` (same length). `buggy` selects id 34's encoding.
pub fn forward(typesize: usize, buggy: bool, src: &[u8], dest: &mut [u8]) {
    let ts = typesize.max(1);
    let sl = stream_len(src.len(), ts);
    let restart = restart_at(sl, buggy);
    for ich in 0..streams_with_bytes(ts, sl) {
        let s = &src[ich * sl..(ich + 1) * sl];
        let d = &mut dest[ich * sl..(ich + 1) * sl];
        let mut prev = 0u8;
        for (i, (&v, o)) in s.iter().zip(d.iter_mut()).enumerate() {
            if Some(i) == restart {
                prev = 0;
            }
            *o = v.wrapping_sub(prev);
            prev = v;
        }
    }
    let tail = ts * sl;
    dest[tail..src.len()].copy_from_slice(&src[tail..]);
}

/// Decode what [`forward`] wrote with the same `typesize` and `buggy`: a running sum per
/// stream.
pub fn backward(typesize: usize, buggy: bool, src: &[u8], dest: &mut [u8]) {
    let ts = typesize.max(1);
    let sl = stream_len(src.len(), ts);
    let restart = restart_at(sl, buggy);
    for ich in 0..streams_with_bytes(ts, sl) {
        let s = &src[ich * sl..(ich + 1) * sl];
        let d = &mut dest[ich * sl..(ich + 1) * sl];
        let mut acc = 0u8;
        for (i, (&v, o)) in s.iter().zip(d.iter_mut()).enumerate() {
            if Some(i) == restart {
                acc = 0;
            }
            acc = acc.wrapping_add(v);
            *o = acc;
        }
    }
    let tail = ts * sl;
    dest[tail..src.len()].copy_from_slice(&src[tail..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_typesize_costs_nothing() {
        let src: Vec<u8> = (0..500u32).map(|i| i as u8).collect();
        let mut out = vec![0u8; 500];
        let t = std::time::Instant::now();
        forward(654_311_425, false, &src, &mut out);
        assert_eq!(out, src, "no stream has bytes: everything is the tail, copied");
        backward(usize::MAX / 2, true, &src, &mut out);
        assert_eq!(out, src);
        assert!(t.elapsed().as_millis() < 100, "took {:?}", t.elapsed());
    }

    #[test]
    fn round_trips_both_variants() {
        for buggy in [false, true] {
            for ts in [1usize, 2, 4, 7, 8] {
                for n in [0usize, 1, 15, 16, 17, 100, 1027] {
                    let src: Vec<u8> = (0..n).map(|i| (i * i % 251) as u8).collect();
                    let mut enc = vec![0u8; n];
                    let mut dec = vec![0u8; n];
                    forward(ts, buggy, &src, &mut enc);
                    backward(ts, buggy, &enc, &mut dec);
                    assert_eq!(dec, src, "buggy {buggy} ts {ts} n {n}");
                }
            }
        }
    }

    #[test]
    fn deltas_within_streams() {
        let src = [10u8, 12, 15, 1, 2, 4];
        let mut enc = [0u8; 6];
        forward(2, false, &src, &mut enc);
        assert_eq!(enc, [10, 2, 3, 1, 1, 2]);
    }
}
