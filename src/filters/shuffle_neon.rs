//! NEON byte-shuffle kernels (16 elements per step), for aarch64.
//!
//! The same whole-stream perfect shuffles as the SSE2 kernels (see `shuffle_sse2`), but NEON
//! has one-instruction splits (`uzp1`/`uzp2`) as well as interleaves (`zip1`/`zip2`), so
//! the forward transpose of 16 elements of `S` bytes is `log2(S)` splits and the backward
//! one `log2(S)` interleaves. Type sizes above 16 transpose 16-byte column slices of the
//! elements as 16x16 byte matrices (four splits or four interleaves; the last slice
//! overlaps the previous one when 16 does not divide the type size, and overlapping
//! writes store identical bytes). Type sizes that are not powers of two below 16 are left
//! to the scalar code.

use core::arch::aarch64::*;

/// Shuffles elements `start..` in steps of 16; returns the first element not processed.
pub(crate) fn shuffle(ts: usize, n: usize, src: &[u8], dest: &mut [u8], start: usize) -> usize {
    let Some(end) = super::shuffle::simd_span(ts, n, start, 16) else {
        return start;
    };
    assert!(src.len() >= n * ts && dest.len() >= n * ts);
    let (s, d) = (src.as_ptr(), dest.as_mut_ptr());
    // SAFETY: NEON is part of the aarch64 baseline. `src` and `dest` hold at least
    // `n * ts` bytes (asserted above); the kernels read bytes of elements `start..end`
    // (end <= n) and write rows `j * n + start..j * n + end` for `j < ts`, all below
    // `n * ts`.
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
/// the vectors, odd bytes to the second half (rotates each byte's stream index right by
/// one bit).
#[inline(always)]
#[allow(unused_unsafe)]
pub(crate) fn unzip<const S: usize>(v: &mut [uint8x16_t; S]) {
    // SAFETY: NEON register permutes only (baseline on aarch64), no memory access.
    unsafe {
        let mut out = [vdupq_n_u8(0); S];
        for k in 0..S / 2 {
            let (a, b) = (v[2 * k], v[2 * k + 1]);
            out[k] = vuzp1q_u8(a, b);
            out[S / 2 + k] = vuzp2q_u8(a, b);
        }
        *v = out;
    }
}

/// Inverse of [`unzip`]: interleaves the bytes of the first and second halves.
#[inline(always)]
#[allow(unused_unsafe)]
pub(crate) fn zip<const S: usize>(v: &mut [uint8x16_t; S]) {
    // SAFETY: NEON register permutes only (baseline on aarch64), no memory access.
    unsafe {
        let mut out = [vdupq_n_u8(0); S];
        for k in 0..S / 2 {
            let (a, b) = (v[k], v[S / 2 + k]);
            out[2 * k] = vzip1q_u8(a, b);
            out[2 * k + 1] = vzip2q_u8(a, b);
        }
        *v = out;
    }
}

/// # Safety
/// `src` and `dest` must be valid for `n * S` bytes and `end <= n`, `end - start` a
/// multiple of 16.
#[target_feature(enable = "neon")]
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
            let mut v = [vdupq_n_u8(0); S];
            for (k, x) in v.iter_mut().enumerate() {
                *x = vld1q_u8(src.add(i * S + 16 * k));
            }
            for _ in 0..LOG {
                unzip(&mut v);
            }
            for (j, x) in v.iter().enumerate() {
                vst1q_u8(dest.add(j * n + i), *x);
            }
        }
        i += 16;
    }
}

/// # Safety
/// `rows` holds `S` rows of at least `end` bytes; `dest` is writable for `end * S` bytes;
/// `end - start` is a multiple of 16.
#[target_feature(enable = "neon")]
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
            let mut v = [vdupq_n_u8(0); S];
            for (j, x) in v.iter_mut().enumerate() {
                *x = vld1q_u8(src[j].add(i));
            }
            for _ in 0..LOG {
                zip(&mut v);
            }
            for (k, x) in v.iter().enumerate() {
                vst1q_u8(dest.add(i * S + 16 * k), *x);
            }
        }
        i += 16;
    }
}

/// # Safety
/// `ts >= 16`; `src` and `dest` valid for `n * ts` bytes; `end <= n`, `end - start` a
/// multiple of 16.
#[target_feature(enable = "neon")]
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
                let mut v = [vdupq_n_u8(0); 16];
                for (e, x) in v.iter_mut().enumerate() {
                    *x = vld1q_u8(src.add((i + e) * ts + col));
                }
                for _ in 0..4 {
                    unzip(&mut v);
                }
                for (b, x) in v.iter().enumerate() {
                    vst1q_u8(dest.add((col + b) * n + i), *x);
                }
            }
        }
        i += 16;
    }
}

/// # Safety
/// `rows.len() >= 16`; every row holds at least `end` bytes; `dest` is writable for
/// `end * rows.len()` bytes; `end - start` is a multiple of 16.
#[target_feature(enable = "neon")]
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
                let mut v = [vdupq_n_u8(0); 16];
                for (b, x) in v.iter_mut().enumerate() {
                    *x = vld1q_u8(rows.get_unchecked(col + b).as_ptr().add(i));
                }
                for _ in 0..4 {
                    zip(&mut v);
                }
                for (e, x) in v.iter().enumerate() {
                    vst1q_u8(dest.add((i + e) * ts + col), *x);
                }
            }
        }
        i += 16;
    }
}
