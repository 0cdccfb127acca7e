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
    by_streams(typesize, src, dest, |s, d| {
        let done = kernels::forward(s, d);
        forward_scalar(s, d, done, buggy);
    });
}

/// Decode what [`forward`] wrote with the same `typesize` and `buggy`: a running sum per
/// stream.
pub fn backward(typesize: usize, buggy: bool, src: &[u8], dest: &mut [u8]) {
    by_streams(typesize, src, dest, |s, d| {
        let done = kernels::backward(s, d);
        backward_scalar(s, d, done, buggy);
    });
}

/// Run `stream(src, dest)` on each byte stream, then copy the trailing `len % typesize`
/// bytes unchanged.
fn by_streams(typesize: usize, src: &[u8], dest: &mut [u8], mut stream: impl FnMut(&[u8], &mut [u8])) {
    let ts = typesize.max(1);
    let sl = stream_len(src.len(), ts);
    for ich in 0..streams_with_bytes(ts, sl) {
        stream(&src[ich * sl..(ich + 1) * sl], &mut dest[ich * sl..(ich + 1) * sl]);
    }
    let tail = ts * sl;
    dest[tail..src.len()].copy_from_slice(&src[tail..]);
}

/// The byte before position `from` of a stream, as the running value at `from`: 0 at the
/// start, and where the buggy variant restarts.
fn running_at(bytes: &[u8], from: usize, buggy: bool) -> u8 {
    if from == 0 || restart_at(bytes.len(), buggy) == Some(from) {
        0
    } else {
        bytes[from - 1]
    }
}

/// Differences of one stream from byte `from` on (the bytes before are done); the SIMD
/// kernels' twin, and what finishes a stream after them.
fn forward_scalar(s: &[u8], d: &mut [u8], from: usize, buggy: bool) {
    let restart = restart_at(s.len(), buggy);
    let mut prev = running_at(s, from, buggy);
    for i in from..s.len() {
        if Some(i) == restart {
            prev = 0;
        }
        d[i] = s[i].wrapping_sub(prev);
        prev = s[i];
    }
}

/// Running sum of one stream from byte `from` on, `d[..from]` already decoded.
fn backward_scalar(s: &[u8], d: &mut [u8], from: usize, buggy: bool) {
    let restart = restart_at(s.len(), buggy);
    let mut acc = running_at(d, from, buggy);
    for i in from..s.len() {
        if Some(i) == restart {
            acc = 0;
        }
        acc = acc.wrapping_add(s[i]);
        d[i] = acc;
    }
}

/// The SIMD kernels: each does a stream's whole 16-byte groups from its start and returns
/// how many bytes it did (0 where there is no kernel). Both variants agree on those groups:
/// the buggy one only restarts after the last of them.
mod kernels {
    #[cfg(target_arch = "x86_64")]
    pub(super) fn forward(s: &[u8], d: &mut [u8]) -> usize {
        if crate::filters::avx2_detected() {
            // SAFETY: AVX2 CPUs have SSSE3.
            unsafe { super::ssse3::forward(s, d) }
        } else {
            0
        }
    }

    #[cfg(target_arch = "x86_64")]
    pub(super) fn backward(s: &[u8], d: &mut [u8]) -> usize {
        if crate::filters::avx2_detected() {
            // SAFETY: AVX2 CPUs have SSSE3.
            unsafe { super::ssse3::backward(s, d) }
        } else {
            0
        }
    }

    #[cfg(target_arch = "aarch64")]
    pub(super) fn forward(s: &[u8], d: &mut [u8]) -> usize {
        super::neon::forward(s, d)
    }

    #[cfg(target_arch = "aarch64")]
    pub(super) fn backward(s: &[u8], d: &mut [u8]) -> usize {
        super::neon::backward(s, d)
    }

    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    pub(super) fn forward(_: &[u8], _: &mut [u8]) -> usize {
        0
    }

    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    pub(super) fn backward(_: &[u8], _: &mut [u8]) -> usize {
        0
    }
}

/// SSSE3 kernels, 16 bytes a step. The differences need the previous group's last byte
/// in front of each group (`palignr`); the running sum adds each group's in-group prefix
/// sum (four shifted adds) to the previous group's last sum, broadcast (`pshufb`): two
/// operations on the chain from one group to the next.
#[cfg(target_arch = "x86_64")]
mod ssse3 {
    use core::arch::x86_64::*;

    /// # Safety
    /// The CPU must have SSSE3.
    #[target_feature(enable = "ssse3")]
    pub(super) unsafe fn forward(s: &[u8], d: &mut [u8]) -> usize {
        let groups = s.len().min(d.len()) / 16;
        let mut prev = _mm_setzero_si128();
        for g in 0..groups {
            // SAFETY: group `g` lies within both slices (`groups` above).
            unsafe {
                let v = _mm_loadu_si128(s.as_ptr().add(16 * g).cast());
                let before = _mm_alignr_epi8::<15>(v, prev);
                _mm_storeu_si128(d.as_mut_ptr().add(16 * g).cast(), _mm_sub_epi8(v, before));
                prev = v;
            }
        }
        16 * groups
    }

    /// # Safety
    /// The CPU must have SSSE3.
    #[target_feature(enable = "ssse3")]
    pub(super) unsafe fn backward(s: &[u8], d: &mut [u8]) -> usize {
        let groups = s.len().min(d.len()) / 16;
        let last = _mm_set1_epi8(15);
        let mut carry = _mm_setzero_si128();
        for g in 0..groups {
            // SAFETY: group `g` lies within both slices (`groups` above).
            unsafe {
                let mut x = _mm_loadu_si128(s.as_ptr().add(16 * g).cast());
                x = _mm_add_epi8(x, _mm_slli_si128::<1>(x));
                x = _mm_add_epi8(x, _mm_slli_si128::<2>(x));
                x = _mm_add_epi8(x, _mm_slli_si128::<4>(x));
                x = _mm_add_epi8(x, _mm_slli_si128::<8>(x));
                _mm_storeu_si128(d.as_mut_ptr().add(16 * g).cast(), _mm_add_epi8(x, carry));
                // The next carry from this group's own total (its last running sum), not
                // from the stored sum: one add a group on the chain between groups, not an
                // add and a shuffle (the rainfall grid's bytedelta decoding 4% faster).
                carry = _mm_add_epi8(carry, _mm_shuffle_epi8(x, last));
            }
        }
        16 * groups
    }
}

/// NEON kernels, the same steps as the SSSE3 ones (`ext` for the shifts, `dup` of lane 15).
#[cfg(target_arch = "aarch64")]
mod neon {
    use core::arch::aarch64::*;

    pub(super) fn forward(s: &[u8], d: &mut [u8]) -> usize {
        let groups = s.len().min(d.len()) / 16;
        // SAFETY: NEON is part of the aarch64 baseline; group `g` lies within both slices.
        unsafe {
            let mut prev = vdupq_n_u8(0);
            for g in 0..groups {
                let v = vld1q_u8(s.as_ptr().add(16 * g));
                let before = vextq_u8::<15>(prev, v);
                vst1q_u8(d.as_mut_ptr().add(16 * g), vsubq_u8(v, before));
                prev = v;
            }
        }
        16 * groups
    }

    pub(super) fn backward(s: &[u8], d: &mut [u8]) -> usize {
        let groups = s.len().min(d.len()) / 16;
        // SAFETY: NEON is part of the aarch64 baseline; group `g` lies within both slices.
        unsafe {
            let zero = vdupq_n_u8(0);
            let mut carry = zero;
            for g in 0..groups {
                let mut x = vld1q_u8(s.as_ptr().add(16 * g));
                x = vaddq_u8(x, vextq_u8::<15>(zero, x));
                x = vaddq_u8(x, vextq_u8::<14>(zero, x));
                x = vaddq_u8(x, vextq_u8::<12>(zero, x));
                x = vaddq_u8(x, vextq_u8::<8>(zero, x));
                vst1q_u8(d.as_mut_ptr().add(16 * g), vaddq_u8(x, carry));
                // As in the SSSE3 kernel: the carry chain is one add a group.
                carry = vaddq_u8(carry, vdupq_laneq_u8::<15>(x));
            }
        }
        16 * groups
    }
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

    /// The kernels (SSSE3 or NEON where the CPU has them) write what the scalar code
    /// writes, for every stream length around the 16-byte groups and both variants.
    #[test]
    fn kernels_match_their_scalar_twin() {
        let mut rng = crate::test_rng::Rng::new(34);
        for buggy in [false, true] {
            for ts in [1usize, 2, 3, 4, 8, 16] {
                for n in (0..100).chain([255, 256, 257, 1000, 4099, 32768 + 5]) {
                    let mut src = vec![0u8; n];
                    rng.fill(&mut src);
                    let (mut want, mut got) = (vec![0u8; n], vec![0xA5u8; n]);
                    let sl = n / ts;
                    for ich in 0..if sl == 0 { 0 } else { ts } {
                        let r = ich * sl..(ich + 1) * sl;
                        forward_scalar(&src[r.clone()], &mut want[r], 0, buggy);
                    }
                    want[ts * sl..].copy_from_slice(&src[ts * sl..]);
                    forward(ts, buggy, &src, &mut got);
                    assert_eq!(got, want, "forward buggy {buggy} ts {ts} n {n}");
                    let enc = want.clone();
                    for ich in 0..if sl == 0 { 0 } else { ts } {
                        let r = ich * sl..(ich + 1) * sl;
                        backward_scalar(&enc[r.clone()], &mut want[r], 0, buggy);
                    }
                    want[ts * sl..].copy_from_slice(&enc[ts * sl..]);
                    backward(ts, buggy, &enc, &mut got);
                    assert_eq!(got, want, "backward buggy {buggy} ts {ts} n {n}");
                    assert_eq!(got, src, "round trip buggy {buggy} ts {ts} n {n}");
                }
            }
        }
    }

    /// The buggy variant stores the byte after the last whole 16-byte group of a stream
    /// as it is (its running value restarts there).
    #[test]
    fn buggy_variant_restarts_after_the_last_group() {
        let src: Vec<u8> = (1..=40u8).collect();
        let mut enc = vec![0u8; 40];
        forward(2, true, &src, &mut enc);
        // Streams of 20 bytes: the restart is at byte 16 of each.
        assert_eq!(enc[16], src[16]);
        assert_eq!(enc[20 + 16], src[20 + 16]);
        assert_eq!(enc[17], 1);
        forward(2, false, &src, &mut enc);
        assert_eq!(enc[16], 1);
    }

    #[test]
    fn deltas_within_streams() {
        let src = [10u8, 12, 15, 1, 2, 4];
        let mut enc = [0u8; 6];
        forward(2, false, &src, &mut enc);
        assert_eq!(enc, [10, 2, 3, 1, 1, 2]);
    }
}
