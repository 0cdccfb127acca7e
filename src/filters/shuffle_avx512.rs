//! AVX-512 (F + BW) byte-unshuffle kernels, and the byte shuffle of 16-byte items, 64
//! elements per step.
//!
//! The AVX2 scheme on four 128-bit lanes instead of two: each lane of a row register holds
//! 16 consecutive elements' byte, the byte interleaves (`vpunpck*bw`) run lane by lane, and
//! a transpose of whole lanes (`vshufi64x2`) puts each group of 16 elements together at
//! the end. Per byte written that is two thirds of the AVX2 kernel's shuffle operations; on
//! cores that execute 512-bit shuffles at full width (AMD Zen 5, recent Intel) a step costs
//! about what an AVX2 step costs, so blocks that sit in L1 unshuffle up to twice as fast.

use core::arch::x86_64::*;

use super::shuffle::{row_ptrs, strided_ptrs};

/// Whether the running CPU has the instructions of these kernels.
#[inline]
fn detected() -> bool {
    crate::cpu::has(crate::cpu::Feature::Avx512f)
        && crate::cpu::has(crate::cpu::Feature::Avx512bw)
}

/// Unshuffles elements `start..` in steps of 64 for type sizes 2, 4, 8 and 16; returns the
/// first element not processed (`start` for other type sizes, or when the CPU lacks
/// AVX-512BW).
pub(crate) fn unshuffle(rows: &[&[u8]], n: usize, dest: &mut [u8], start: usize) -> usize {
    let ts = rows.len();
    if !matches!(ts, 2 | 4 | 8 | 16) {
        return start;
    }
    let Some(end) = super::shuffle::simd_span(ts, n, start, 64) else {
        return start;
    };
    if !detected() {
        return start;
    }
    assert!(rows.iter().all(|r| r.len() >= n) && dest.len() >= n * ts);
    let d = dest.as_mut_ptr();
    // SAFETY: AVX-512F/BW were detected above. Every row holds at least `n` bytes and
    // `dest` at least `n * ts` (asserted); the kernels read bytes `start..end` (end <= n)
    // of each row and write the elements `start..end`.
    unsafe {
        match ts {
            2 => unshuffle_pow2::<2, 1>(row_ptrs(rows), d, start, end),
            4 => unshuffle_pow2::<4, 2>(row_ptrs(rows), d, start, end),
            8 => unshuffle_pow2::<8, 3>(row_ptrs(rows), d, start, end),
            _ => unshuffle_pow2::<16, 4>(row_ptrs(rows), d, start, end),
        }
    }
    end
}

/// Unshuffles a whole contiguous block of `n` elements (row `j` at `src[j * n..]`) when
/// the type size is 2, 4, 8 or 16 and `n` at least `peel + 64`, with the stores aligned
/// from element `peel` on (see `shuffle::block_spans` for the first and last elements),
/// returning false (having done nothing) otherwise or when the CPU lacks AVX-512BW.
///
/// The general entry point builds row slices, checks them and splits the work into head,
/// aligned run and tail: about 400 instructions per call (callgrind), more than half of
/// what this kernel takes on an 8 KiB block of 2-byte items. This path checks two
/// lengths instead.
#[inline(always)]
pub(crate) fn unshuffle_block(ts: usize, n: usize, peel: usize, src: &[u8], dest: &mut [u8]) -> bool {
    if !matches!(ts, 2 | 4 | 8 | 16) || !super::avx512_detected() || n < peel + 64 {
        return false;
    }
    assert!(src.len() >= n * ts && dest.len() >= n * ts);
    // SAFETY: AVX-512F/BW were detected above; `src` holds the `ts` rows of `n` bytes and
    // `dest` `n * ts` bytes (asserted), and `n >= peel + 64`.
    unsafe { unshuffle_pow2_block(ts, src.as_ptr(), n, dest.as_mut_ptr(), peel) };
    true
}

/// [`unshuffle_block`]'s spans (`shuffle::block_spans`) in one function with the kernels
/// inlined (see `shuffle_avx2::unshuffle_pow2_block`).
///
/// # Safety
/// AVX-512F/BW available; `src` readable for `ts` rows of `n` bytes and `dest` writable
/// for `n * ts` bytes; `n >= peel + 64`.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn unshuffle_pow2_block(ts: usize, s: *const u8, n: usize, d: *mut u8, peel: usize) {
    let Some(spans) = super::shuffle::block_spans(n, peel, 64) else {
        return;
    };
    // SAFETY: per the contract, each span empty or whole steps of 64 below `n`.
    unsafe {
        match ts {
            2 => spans.iter().for_each(|&(a, b)| unshuffle_pow2::<2, 1>(strided_ptrs(s, n), d, a, b)),
            4 => spans.iter().for_each(|&(a, b)| unshuffle_pow2::<4, 2>(strided_ptrs(s, n), d, a, b)),
            8 => spans.iter().for_each(|&(a, b)| unshuffle_pow2::<8, 3>(strided_ptrs(s, n), d, a, b)),
            _ => spans.iter().for_each(|&(a, b)| unshuffle_pow2::<16, 4>(strided_ptrs(s, n), d, a, b)),
        }
    }
}

/// One round of the lane-wise interleave of the first half of the registers with the
/// second, byte by byte: after `log2(S)` rounds, lane `L` of register `r` holds bytes
/// `16 r..16 r + 16` of the 16 elements whose bytes lane `L` of the rows held.
///
/// Always inlined, and so without a `target_feature` of its own (the two do not go
/// together): as an ordinary `#[inline]` function with the feature it was not inlined at
/// `S = 16`, and the registers went through memory on every call.
///
/// # Safety
/// Only called from functions with AVX-512BW enabled.
#[inline(always)]
unsafe fn zip<const S: usize>(v: [__m512i; S]) -> [__m512i; S] {
    // SAFETY: register arithmetic only; the caller has AVX-512BW enabled.
    unsafe {
        let mut out = v;
        // Unrolled by hand: LLVM kept the loop at S = 16, indexing through memory.
        macro_rules! pairs {
            ($($k:literal)*) => {$(
                if $k < S / 2 {
                    out[2 * $k] = _mm512_unpacklo_epi8(v[$k], v[S / 2 + $k]);
                    out[2 * $k + 1] = _mm512_unpackhi_epi8(v[$k], v[S / 2 + $k]);
                }
            )*};
        }
        pairs!(0 1 2 3 4 5 6 7);
        out
    }
}

/// # Safety
/// AVX-512F/BW available; each of the `S` pointers in `src` is readable for `end` bytes;
/// `dest` is writable for `end * S` bytes; `end - start` is a multiple of 64.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn unshuffle_pow2<const S: usize, const LOG: usize>(
    src: [*const u8; S],
    dest: *mut u8,
    start: usize,
    end: usize,
) {
    let mut i = start;
    while i < end {
        // SAFETY: row offsets stay below `end`; the stores cover the bytes of elements
        // `i..i + 64`, below `end * S` (caller contract).
        unsafe {
            let mut v = [_mm512_setzero_si512(); S];
            for (j, x) in v.iter_mut().enumerate() {
                *x = _mm512_loadu_si512(src[j].add(i).cast());
            }
            // The rounds written out: as a loop, LLVM kept LOG = 3 and 4 rolled up and
            // indexed the registers through memory.
            if LOG >= 1 {
                v = zip(v);
            }
            if LOG >= 2 {
                v = zip(v);
            }
            if LOG >= 3 {
                v = zip(v);
            }
            if LOG >= 4 {
                v = zip(v);
            }
            // Lane L of register r belongs at byte 16 r of group L (elements i + 16 L..).
            let out = dest.add(i * S);
            if S == 2 {
                // A group is 32 bytes: one store holds groups 0-1, the next groups 2-3.
                let lo = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0);
                let hi = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4);
                _mm512_storeu_si512(out.cast(), _mm512_permutex2var_epi64(v[0], lo, v[1]));
                _mm512_storeu_si512(
                    out.add(64).cast(),
                    _mm512_permutex2var_epi64(v[0], hi, v[1]),
                );
            } else {
                // Each run of four registers is a 4 x 4 matrix of lanes; its transpose gives
                // 64 bytes of each of the four groups (a group is 16 S bytes), stored at
                // once (keeping all of them for address order spilled registers at S = 16).
                for b in 0..S / 4 {
                    let t = transpose_lanes([v[4 * b], v[4 * b + 1], v[4 * b + 2], v[4 * b + 3]]);
                    for (l, x) in t.into_iter().enumerate() {
                        _mm512_storeu_si512(out.add(16 * l * S + 64 * b).cast(), x);
                    }
                }
            }
        }
        i += 64;
    }
}

/// The transpose of a 4 x 4 matrix of 128-bit lanes held in four registers: lane `q` of
/// output `l` is lane `l` of input `q`. Its own inverse.
///
/// # Safety
/// Only called from functions with AVX-512F enabled.
#[inline(always)]
unsafe fn transpose_lanes(x: [__m512i; 4]) -> [__m512i; 4] {
    // SAFETY: register arithmetic only; the caller has AVX-512F enabled.
    unsafe {
        // Lanes 0 and 2, then 1 and 3, of each pair.
        let t0 = _mm512_shuffle_i64x2::<0x88>(x[0], x[1]);
        let t1 = _mm512_shuffle_i64x2::<0xDD>(x[0], x[1]);
        let t2 = _mm512_shuffle_i64x2::<0x88>(x[2], x[3]);
        let t3 = _mm512_shuffle_i64x2::<0xDD>(x[2], x[3]);
        [
            _mm512_shuffle_i64x2::<0x88>(t0, t2),
            _mm512_shuffle_i64x2::<0x88>(t1, t3),
            _mm512_shuffle_i64x2::<0xDD>(t0, t2),
            _mm512_shuffle_i64x2::<0xDD>(t1, t3),
        ]
    }
}

/// Shuffles a whole block of `n` 16-byte elements into its 16 rows, 64 elements per step,
/// when `n` is a multiple of 64 and the rows need no staging; false (nothing done)
/// otherwise or without AVX-512BW. For 16-byte items the unshuffle's network runs
/// backwards unchanged: the lane transpose is its own inverse, and four interleave rounds
/// on 16 registers are a transpose of the 16 x 16 bytes in each lane, also their own
/// inverse. Per byte that is half the AVX2 kernel's shuffle operations (type sizes 2, 4
/// and 8 have no such shortcut: their rounds are not self-inverse).
pub(crate) fn shuffle16_block(n: usize, src: &[u8], dest: &mut [u8], staged: bool) -> bool {
    if n == 0 || n % 64 != 0 || staged || !detected() {
        return false;
    }
    assert!(src.len() >= n * 16 && dest.len() >= n * 16);
    // SAFETY: AVX-512F/BW were detected above; both buffers hold `16 n` bytes (asserted)
    // and `n` is a multiple of 64.
    unsafe { shuffle16(src.as_ptr(), dest.as_mut_ptr(), n) };
    true
}

/// # Safety
/// AVX-512F/BW available; `src` and `dest` valid for `16 n` bytes; `n` a multiple of 64.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn shuffle16(src: *const u8, dest: *mut u8, n: usize) {
    let mut i = 0;
    while i < n {
        // SAFETY: elements `i..i + 64` lie below `n`: the 1,024 source bytes at `16 i` and
        // the 64 bytes at `j n + i` of each row are in bounds (caller contract).
        unsafe {
            let inp = src.add(16 * i);
            let mut v = [_mm512_setzero_si512(); 16];
            // Register 4 b + q gets lane L = element 16 L + 4 b + q, the layout the
            // unshuffle's rounds leave.
            for b in 0..4 {
                let at = |l: usize| _mm512_loadu_si512(inp.add(256 * l + 64 * b).cast());
                let t = transpose_lanes([at(0), at(1), at(2), at(3)]);
                v[4 * b..4 * b + 4].copy_from_slice(&t);
            }
            v = zip(zip(zip(zip(v))));
            for (j, x) in v.into_iter().enumerate() {
                _mm512_storeu_si512(dest.add(j * n + i).cast(), x);
            }
        }
        i += 64;
    }
}

/// Unshuffles elements `start..` of `ts`-byte items whose bytes from `rows.len()` up are
/// zero, 16 at a time, for the shapes of the AVX2 kernel of that name whose zero
/// extension fills whole 64-byte stores; returns the first element not processed
/// (`start` for the other shapes, or when the CPU lacks AVX-512BW).
pub(crate) fn unshuffle_zero_high(
    rows: &[&[u8]],
    ts: usize,
    n: usize,
    dest: &mut [u8],
    start: usize,
) -> usize {
    let end = start + n.saturating_sub(start) / 16 * 16;
    if end == start || !matches!((ts, rows.len()), (4, 1 | 2) | (8, 1..=4)) || !detected() {
        return start;
    }
    assert!(rows.iter().all(|r| r.len() >= n) && dest.len() >= n * ts);
    let d = dest.as_mut_ptr();
    // SAFETY: AVX-512F/BW were detected above. Every row holds at least `n` bytes and
    // `dest` at least `n * ts` (asserted); each kernel reads bytes `start..end` (end <= n)
    // of its `LIVE` rows (the match checks `rows.len()`) and writes the elements
    // `start..end`.
    unsafe {
        match (ts, rows.len()) {
            (4, 1) => widen::<4, 1, 1>(rows, d, start, end),
            (4, _) => widen::<4, 2, 2>(rows, d, start, end),
            (8, 1) => widen::<8, 1, 1>(rows, d, start, end),
            (8, 2) => widen::<8, 2, 2>(rows, d, start, end),
            (8, 3) => widen::<8, 3, 4>(rows, d, start, end),
            _ => widen::<8, 4, 4>(rows, d, start, end),
        }
    }
    end
}

/// The AVX2 `widen` with 512-bit zero extensions: `LIVE` rows interleaved into words of
/// `W` bytes, each word zero-extended to `S` bytes, 16 elements (one or two 64-byte
/// stores) per step.
///
/// # Safety
/// AVX-512F/BW available; `rows` holds at least `LIVE` rows of at least `end` bytes;
/// `dest` is writable for `end * S` bytes; `end - start` is a multiple of 16;
/// `(S, W)` is one of (4, 1), (4, 2), (8, 1), (8, 2), (8, 4).
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn widen<const S: usize, const LIVE: usize, const W: usize>(
    rows: &[&[u8]],
    dest: *mut u8,
    start: usize,
    end: usize,
) {
    let src: [*const u8; LIVE] = core::array::from_fn(|j| rows[j].as_ptr());
    let mut i = start;
    while i < end {
        // SAFETY: row offsets stay below `end`; the stores cover bytes `i * S` to
        // `(i + 16) * S`, below `end * S`.
        unsafe {
            // `w[k]` holds elements `k * 16 / W..` as `W`-byte words, in order.
            let w = super::shuffle_avx2::zero_high_words::<LIVE, W>(&src, i);
            let out = dest.add(i * S);
            macro_rules! store {
                ($at:expr, $v:expr) => {
                    _mm512_storeu_si512(out.add($at).cast(), $v)
                };
            }
            match (S, W) {
                (4, 1) => store!(0, _mm512_cvtepu8_epi32(w[0])),
                (8, 1) => {
                    store!(0, _mm512_cvtepu8_epi64(w[0]));
                    store!(64, _mm512_cvtepu8_epi64(_mm_srli_si128::<8>(w[0])));
                }
                (4, 2) => store!(0, _mm512_cvtepu16_epi32(_mm256_set_m128i(w[1], w[0]))),
                (8, 2) => {
                    store!(0, _mm512_cvtepu16_epi64(w[0]));
                    store!(64, _mm512_cvtepu16_epi64(w[1]));
                }
                _ => {
                    store!(0, _mm512_cvtepu32_epi64(_mm256_set_m128i(w[1], w[0])));
                    store!(64, _mm512_cvtepu32_epi64(_mm256_set_m128i(w[3], w[2])));
                }
            }
        }
        i += 16;
    }
}
