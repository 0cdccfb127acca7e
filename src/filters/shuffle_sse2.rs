//! SSE2 byte-shuffle kernels (16 elements per step).
//!
//! Type sizes 2, 4, 8 and 16 load the `16 * typesize` bytes of 16 elements as `typesize`
//! vectors and transpose that byte stream with whole-stream perfect shuffles: a split
//! into even and odd bytes (`unzip`) rotates each byte's stream index right by one bit,
//! an interleave of the two halves (`zip`) rotates it left by one, and the transpose is a
//! rotation by `log2(typesize)` bits (see [`forward_rounds`]). Afterwards vector `j` holds
//! byte `j` of the 16 elements. Type sizes above 16 do the same 16x16 transpose on 16-byte
//! column slices of the elements (the last slice overlaps the previous one when 16 does not
//! divide the type size; overlapping writes store identical bytes). The unshuffle kernels
//! run `log2(typesize)` interleaves. Other type sizes are left to the scalar code.

use core::arch::x86_64::*;

/// Shuffles elements `start..` in steps of 16; returns the first element not processed.
pub(crate) fn shuffle(ts: usize, n: usize, src: &[u8], dest: &mut [u8], start: usize) -> usize {
    let Some(end) = super::shuffle::simd_span(ts, n, start, 16) else {
        return start;
    };
    assert!(src.len() >= n * ts && dest.len() >= n * ts);
    let (s, d) = (src.as_ptr(), dest.as_mut_ptr());
    // SAFETY: SSE2 is part of the x86_64 baseline. `src` and `dest` hold at least `n * ts`
    // bytes (asserted above); the kernels read bytes of elements `start..end` (end <= n)
    // and write rows `j * n + start..j * n + end` for `j < ts`, all below `n * ts`.
    unsafe {
        match ts {
            2 => shuffle_pow2::<2, 1>(s, d, n, start, end),
            4 => shuffle_pow2::<4, 2>(s, d, n, start, end),
            8 => shuffle_pow2::<8, 3>(s, d, n, start, end),
            16 => shuffle_pow2::<16, 4>(s, d, n, start, end),
            _ => shuffle_tiled(ts, s, d, n, start, end),
        }
    }
    end
}

/// Unshuffles elements `start..` in steps of 16; returns the first element not processed.
pub(crate) fn unshuffle(rows: &[&[u8]], n: usize, dest: &mut [u8], start: usize) -> usize {
    let ts = rows.len();
    let Some(end) = super::shuffle::simd_span(ts, n, start, 16) else {
        return start;
    };
    assert!(rows.iter().all(|r| r.len() >= n) && dest.len() >= n * ts);
    let d = dest.as_mut_ptr();
    // SAFETY: every row holds at least `n` bytes and `dest` at least `n * ts` (asserted
    // above); the kernels read bytes `start..end` (end <= n) of each row and write the
    // elements `start..end`.
    unsafe {
        match ts {
            2 => unshuffle_pow2::<2, 1>(rows, d, start, end),
            4 => unshuffle_pow2::<4, 2>(rows, d, start, end),
            8 => unshuffle_pow2::<8, 3>(rows, d, start, end),
            16 => unshuffle_pow2::<16, 4>(rows, d, start, end),
            _ => unshuffle_tiled(rows, d, start, end),
        }
    }
    end
}

/// One perfect unshuffle of the byte stream held in `v`: even bytes to the first half of
/// the vectors, odd bytes to the second half.
#[inline(always)]
#[allow(unused_unsafe)]
fn unzip<const S: usize>(v: &mut [__m128i; S]) {
    // SAFETY: SSE2 arithmetic only (baseline on x86_64), no memory access.
    unsafe {
        let low = _mm_set1_epi16(0x00FF);
        let mut out = [_mm_setzero_si128(); S];
        for k in 0..S / 2 {
            let (a, b) = (v[2 * k], v[2 * k + 1]);
            out[k] = _mm_packus_epi16(_mm_and_si128(a, low), _mm_and_si128(b, low));
            out[S / 2 + k] = _mm_packus_epi16(_mm_srli_epi16(a, 8), _mm_srli_epi16(b, 8));
        }
        *v = out;
    }
}

/// Inverse of [`unzip`]: interleaves the bytes of the first and second halves.
#[inline(always)]
#[allow(unused_unsafe)]
fn zip<const S: usize>(v: &mut [__m128i; S]) {
    // SAFETY: SSE2 arithmetic only (baseline on x86_64), no memory access.
    unsafe {
        let mut out = [_mm_setzero_si128(); S];
        for k in 0..S / 2 {
            let (a, b) = (v[k], v[S / 2 + k]);
            out[2 * k] = _mm_unpacklo_epi8(a, b);
            out[2 * k + 1] = _mm_unpackhi_epi8(a, b);
        }
        *v = out;
    }
}

/// The forward transpose of a stream of 16 elements of `S` bytes held in `S` vectors.
///
/// An interleave (`zip`) rotates the bits of a byte's stream index left by one, a split
/// (`unzip`) right by one; the index has `4 + log2(S)` bits (element, then byte), and the
/// transpose is a rotation right by `log2(S)`, which is also four rotations left. Four
/// interleaves cost one instruction per vector each, a split three, so the cheaper
/// sequence is chosen (splitting only wins for `S == 2`).
#[inline(always)]
fn forward_rounds<const S: usize>(v: &mut [__m128i; S]) {
    if S == 2 {
        unzip(v);
    } else {
        for _ in 0..4 {
            zip(v);
        }
    }
}

/// # Safety
/// `src` and `dest` must be valid for `n * S` bytes and `end <= n`, `end - start` a
/// multiple of 16.
#[target_feature(enable = "sse2")]
unsafe fn shuffle_pow2<const S: usize, const LOG: usize>(
    src: *const u8,
    dest: *mut u8,
    n: usize,
    start: usize,
    end: usize,
) {
    let mut i = start;
    while i < end {
        // SAFETY: elements i..i+16 lie below n, so the 16*S source bytes at i*S and the
        // 16 bytes at j*n + i of each row are in bounds (caller contract).
        unsafe {
            let mut v = [_mm_setzero_si128(); S];
            for (k, x) in v.iter_mut().enumerate() {
                *x = _mm_loadu_si128(src.add(i * S + 16 * k).cast());
            }
            forward_rounds(&mut v);
            for (j, x) in v.iter().enumerate() {
                _mm_storeu_si128(dest.add(j * n + i).cast(), *x);
            }
        }
        i += 16;
    }
}

/// # Safety
/// `rows` holds `S` rows of at least `end` bytes; `dest` is writable for `end * S` bytes;
/// `end - start` is a multiple of 16.
#[target_feature(enable = "sse2")]
unsafe fn unshuffle_pow2<const S: usize, const LOG: usize>(
    rows: &[&[u8]],
    dest: *mut u8,
    start: usize,
    end: usize,
) {
    let src: [*const u8; S] = core::array::from_fn(|j| rows[j].as_ptr());
    let mut i = start;
    while i < end {
        // SAFETY: row offsets stay below `end`, element bytes below `end * S`.
        unsafe {
            let mut v = [_mm_setzero_si128(); S];
            for (j, x) in v.iter_mut().enumerate() {
                *x = _mm_loadu_si128(src[j].add(i).cast());
            }
            for _ in 0..LOG {
                zip(&mut v);
            }
            for (k, x) in v.iter().enumerate() {
                _mm_storeu_si128(dest.add(i * S + 16 * k).cast(), *x);
            }
        }
        i += 16;
    }
}

/// # Safety
/// `ts >= 16`; `src` and `dest` valid for `n * ts` bytes; `end <= n`, `end - start` a
/// multiple of 16.
#[target_feature(enable = "sse2")]
unsafe fn shuffle_tiled(
    ts: usize,
    src: *const u8,
    dest: *mut u8,
    n: usize,
    start: usize,
    end: usize,
) {
    let mut i = start;
    while i < end {
        for col in super::shuffle::tile_columns(ts) {
            // SAFETY: element rows i..i+16 < n, columns col..col+16 <= ts, so every
            // 16-byte load and store stays within the n * ts bytes of each buffer.
            unsafe {
                let mut v = [_mm_setzero_si128(); 16];
                for (e, x) in v.iter_mut().enumerate() {
                    *x = _mm_loadu_si128(src.add((i + e) * ts + col).cast());
                }
                forward_rounds(&mut v);
                for (b, x) in v.iter().enumerate() {
                    _mm_storeu_si128(dest.add((col + b) * n + i).cast(), *x);
                }
            }
        }
        i += 16;
    }
}

/// # Safety
/// `rows.len() >= 16`; every row holds at least `end` bytes; `dest` is writable for
/// `end * rows.len()` bytes; `end - start` is a multiple of 16.
#[target_feature(enable = "sse2")]
unsafe fn unshuffle_tiled(
    rows: &[&[u8]],
    dest: *mut u8,
    start: usize,
    end: usize,
) {
    let ts = rows.len();
    let mut i = start;
    while i < end {
        for col in super::shuffle::tile_columns(ts) {
            // SAFETY: rows `col + b < ts`, row offsets below `end`, element bytes
            // below `end * ts`.
            unsafe {
                let mut v = [_mm_setzero_si128(); 16];
                for (b, x) in v.iter_mut().enumerate() {
                    *x = _mm_loadu_si128(rows.get_unchecked(col + b).as_ptr().add(i).cast());
                }
                for _ in 0..4 {
                    zip(&mut v);
                }
                for (e, x) in v.iter().enumerate() {
                    _mm_storeu_si128(dest.add((i + e) * ts + col).cast(), *x);
                }
            }
        }
        i += 16;
    }
}
