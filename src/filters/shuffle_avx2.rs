//! AVX2 byte-shuffle kernels (32 elements per step).
//!
//! Same scheme as the SSE2 kernels, two groups of 16 elements at a time: the low 128-bit
//! lane of every register carries elements `i..i+16` and the high lane elements
//! `i+16..i+32`. The even/odd splits (`packus`) and interleaves (`unpack`) of AVX2 work
//! within each lane, so each lane runs the SSE2 algorithm on its own group; lane permutes
//! on the way in or out put the two groups where they belong in memory.
//!
//! Memory-access refinements, measured on 8 KiB to 4 MiB blocks: the shuffle of type
//! sizes up to 8 runs two steps per iteration so that every row gets whole 64-byte lines;
//! when the rows are a large power of two apart (see [`staged`]) the shuffle goes through
//! a small staging buffer; the unshuffle stores each step's output in address order. The
//! dispatcher in `shuffle.rs` lines the stores up on 32-byte boundaries where it can.
//!
//! Type sizes 3, 5-7 and 9-15 have a shuffle of their own (byte gathers with `pshufb`,
//! [`shuffle_narrow`]), and the same sizes but 12 the inverse gathers
//! ([`unshuffle_narrow`]); 12 has an unshuffle network ([`unshuffle12`]). That one and the
//! tiled unshuffle of type sizes above 16 also come built with AVX-512VL, whose 32
//! registers hold their 16-register networks without spilling.

use core::arch::x86_64::*;

use super::shuffle::{row_ptrs, strided_ptrs};

/// Shuffles elements `start..` in steps of 32 (16 for the type sizes of
/// [`shuffle_narrow`]); returns the first element not processed.
pub(crate) fn shuffle(ts: usize, n: usize, src: &[u8], dest: &mut [u8], start: usize) -> usize {
    if ts == 12 {
        let start = shuffle_12(n, src, dest, start);
        return shuffle_narrow(ts, n, src, dest, start);
    }
    if matches!(ts, 3 | 5..=7 | 9..=15) {
        return shuffle_narrow(ts, n, src, dest, start);
    }
    let Some(end) = super::shuffle::simd_span(ts, n, start, 32) else {
        return start;
    };
    if !crate::cpu::has(crate::cpu::Feature::Avx2) {
        return start;
    }
    assert!(src.len() >= n * ts && dest.len() >= n * ts);
    if !staged(ts, n) {
        let (s, d) = (src.as_ptr(), dest.as_mut_ptr());
        // SAFETY: AVX2 availability was checked above. Both buffers hold at least
        // `n * ts` bytes; the kernels only touch elements `start..end` with `end <= n`,
        // i.e. source bytes below `n * ts` and row bytes `j * n + start..j * n + end`.
        unsafe {
            match ts {
                2 => shuffle_pow2::<2, 1>(s, d, n, start, end),
                4 => shuffle_pow2::<4, 2>(s, d, n, start, end),
                8 => shuffle_pow2::<8, 3>(s, d, n, start, end),
                16 => shuffle_pow2::<16, 4>(s, d, n, start, end),
                _ => shuffle_tiled(ts, s, d, n, start, end),
            }
        }
        return end;
    }
    // Rows far apart by a multiple of a large power of two (see `staged`): transpose a
    // stage of elements into a small buffer first, then copy each row out in one run.
    let stage = stage_elems(ts);
    let mut buf = vec![0u8; stage * ts];
    let mut i0 = start;
    while i0 < end {
        let cnt = stage.min(end - i0);
        let part = &src[i0 * ts..(i0 + cnt) * ts];
        let (s, b) = (part.as_ptr(), buf.as_mut_ptr());
        // SAFETY: AVX2 availability was checked above. `part` holds the `cnt * ts`
        // bytes of elements i0..i0+cnt and `buf` at least `cnt * ts` bytes; with row
        // length `cnt` the kernels touch exactly those (cnt is a multiple of 32).
        unsafe {
            match ts {
                8 => shuffle_pow2::<8, 3>(s, b, cnt, 0, cnt),
                16 => shuffle_pow2::<16, 4>(s, b, cnt, 0, cnt),
                _ => shuffle_tiled(ts, s, b, cnt, 0, cnt),
            }
        }
        for (j, row) in buf[..cnt * ts].chunks_exact(cnt).enumerate() {
            dest[j * n + i0..j * n + i0 + cnt].copy_from_slice(row);
        }
        i0 += cnt;
    }
    end
}

/// [`shuffle`] of the type sizes under 16 that are not powers of two, 16 elements at a
/// time: row `j` of a step is gathered from the step's `ts` vectors of 16 bytes with one
/// byte shuffle each ([`NarrowMasks`]), `ts * ts` shuffles per `16 * ts` bytes. The
/// scalar loop it replaces ran at 0.95-0.97x the reference's, also scalar (2.9 GB/s).
fn shuffle_narrow(ts: usize, n: usize, src: &[u8], dest: &mut [u8], start: usize) -> usize {
    let end = start + n.saturating_sub(start) / 16 * 16;
    if end == start || !crate::cpu::has(crate::cpu::Feature::Avx2) {
        return start;
    }
    assert!(src.len() >= n * ts && dest.len() >= n * ts);
    let (s, d) = (src.as_ptr(), dest.as_mut_ptr());
    macro_rules! narrow {
        ($($t:literal)*) => {
            match ts {
                // SAFETY: AVX2 was detected; both buffers hold `n * ts` bytes (asserted),
                // `end <= n` and `end - start` is a multiple of 16.
                $($t => unsafe { shuffle_narrow_steps::<$t>(s, d, n, start, end) },)*
                _ => return start,
            }
        };
    }
    narrow!(3 5 6 7 9 10 11 12 13 14 15);
    end
}

/// [`shuffle`] of 12-byte items, 32 elements at a time: the inverse of [`unshuffle12`].
/// The 16 bytes at each element (its 12 and 4 of the next, which only reach rows 12-15,
/// never stored) go through the 16-byte network. Returns the first element not processed:
/// a step whose last 16-byte load would end past `src` is left to [`shuffle_narrow`]. The
/// gathers alone ran at 7 GB/s, 0.87x the reference's bit shuffle of this size (which
/// starts with a byte shuffle) on 8 KiB blocks.
fn shuffle_12(n: usize, src: &[u8], dest: &mut [u8], start: usize) -> usize {
    assert!(src.len() >= n * 12 && dest.len() >= n * 12);
    // Steps i..i + 32 with (i + 32) * 12 + 4 <= src.len(): the loads stay inside `src`.
    let fit = src.len().saturating_sub(4) / 12;
    let end = start + n.min(fit).saturating_sub(start) / 32 * 32;
    if end == start || !crate::cpu::has(crate::cpu::Feature::Avx2) {
        return start;
    }
    let (s, d) = (src.as_ptr(), dest.as_mut_ptr());
    // SAFETY: AVX2 (and for the first, AVX-512VL) was detected; `src` holds at least
    // `end * 12 + 4` bytes and `dest` at least `n * 12`, `end <= n`; `end - start` is a
    // multiple of 32.
    unsafe {
        if crate::cpu::has(crate::cpu::Feature::Avx512vl) {
            shuffle12_vl(s, d, n, start, end);
        } else {
            shuffle12(s, d, n, start, end);
        }
    }
    end
}

/// [`shuffle12`] with AVX-512VL's 32 vector registers (see [`unshuffle12_vl`]).
///
/// # Safety
/// As [`shuffle12`], with AVX-512VL available.
#[target_feature(enable = "avx2,avx512f,avx512vl")]
unsafe fn shuffle12_vl(src: *const u8, dest: *mut u8, n: usize, start: usize, end: usize) {
    // SAFETY: the caller's contract is shuffle12_steps'.
    unsafe { shuffle12_steps(src, dest, n, start, end) }
}

/// # Safety
/// As [`shuffle12_steps`].
#[target_feature(enable = "avx2")]
unsafe fn shuffle12(src: *const u8, dest: *mut u8, n: usize, start: usize, end: usize) {
    // SAFETY: the caller's contract is shuffle12_steps'.
    unsafe { shuffle12_steps(src, dest, n, start, end) }
}

/// Register `e` gets element `i + e` in its low lane and `i + 16 + e` in its high lane,
/// 16 bytes each; the network transposes each lane, after which register `j < 12` holds
/// bytes `i..i + 32` of row `j`.
///
/// Inlined into the two callers above, each with its own target features.
///
/// # Safety
/// AVX2 available; `src` readable for `end * 12 + 4` bytes; `dest` writable for `n * 12`
/// bytes, `end <= n`; `end - start` a multiple of 32.
#[inline(always)]
unsafe fn shuffle12_steps(src: *const u8, dest: *mut u8, n: usize, start: usize, end: usize) {
    let mut i = start;
    while i < end {
        // SAFETY: the last load of the step reads bytes up to (i + 31) * 12 + 16, which is
        // end * 12 + 4 at most; the stores write bytes i..i + 32 of rows 0..12.
        unsafe {
            let mut v = [_mm256_setzero_si256(); 16];
            for (e, x) in v.iter_mut().enumerate() {
                *x = load_pair(src.add((i + e) * 12), src.add((i + 16 + e) * 12));
            }
            for _ in 0..4 {
                zip(&mut v);
            }
            for (j, x) in v.iter().take(12).enumerate() {
                _mm256_storeu_si256(dest.add(j * n + i).cast(), *x);
            }
        }
        i += 32;
    }
}

/// Byte-shuffle controls for [`shuffle_narrow_steps`]: `M[k][j]` picks, from the `k`-th
/// 16 bytes of 16 consecutive `TS`-byte elements, the bytes of row `j` into the lanes of
/// their elements, and zeros (0x80) everywhere else.
struct NarrowMasks<const TS: usize>;

impl<const TS: usize> NarrowMasks<TS> {
    const M: [[[u8; 16]; TS]; TS] = {
        let mut m = [[[0x80u8; 16]; TS]; TS];
        let mut e = 0;
        while e < 16 {
            let mut j = 0;
            while j < TS {
                let p = e * TS + j;
                m[p / 16][j][e] = (p % 16) as u8;
                j += 1;
            }
            e += 1;
        }
        m
    };
}

/// # Safety
/// AVX2 available; `src` and `dest` valid for `n * TS` bytes; `end <= n`, `end - start`
/// a multiple of 16.
#[target_feature(enable = "avx2")]
unsafe fn shuffle_narrow_steps<const TS: usize>(
    src: *const u8,
    dest: *mut u8,
    n: usize,
    start: usize,
    end: usize,
) {
    let m = &NarrowMasks::<TS>::M;
    let mut i = start;
    while i < end {
        // SAFETY: the step reads source bytes `i * TS..(i + 16) * TS` and writes bytes
        // `i..i + 16` of each row, all below `end <= n` elements.
        unsafe {
            let base = src.add(i * TS);
            let mut v = [_mm_setzero_si128(); TS];
            for (k, x) in v.iter_mut().enumerate() {
                *x = _mm_loadu_si128(base.add(16 * k).cast());
            }
            for j in 0..TS {
                let mut row = _mm_setzero_si128();
                for (k, x) in v.iter().enumerate() {
                    let pick = _mm_loadu_si128(m[k][j].as_ptr().cast());
                    row = _mm_or_si128(row, _mm_shuffle_epi8(*x, pick));
                }
                _mm_storeu_si128(dest.add(j * n + i).cast(), row);
            }
        }
        i += 16;
    }
}

/// Elements per stage: rows of 256 to 512 bytes, a buffer of at most 32 KiB for the
/// type sizes that get staged in practice.
fn stage_elems(ts: usize) -> usize {
    ((16384 / ts).clamp(256, 512)) & !31
}

/// Shuffles a whole block of `n` elements straight into its `ts` rows when the type size
/// is 2, 4, 8 or 16, `n` a multiple of 32 and the rows need no staging; false (nothing
/// done) otherwise or without AVX2. Skips the general path's head, tail and narrower
/// kernels, which cost about 340 instructions per call, a sixth of the kernel's own on an
/// 8 KiB block of 2-byte items.
pub(crate) fn shuffle_block(ts: usize, n: usize, src: &[u8], dest: &mut [u8]) -> bool {
    if n == 0 || n % 32 != 0 || !matches!(ts, 2 | 4 | 8 | 16) || staged(ts, n) {
        return false;
    }
    if !crate::cpu::has(crate::cpu::Feature::Avx2) {
        return false;
    }
    assert!(src.len() >= n * ts && dest.len() >= n * ts);
    let (s, d) = (src.as_ptr(), dest.as_mut_ptr());
    // SAFETY: AVX2 was detected above; both buffers hold `n * ts` bytes (asserted) and
    // `n` is a multiple of 32.
    unsafe {
        match ts {
            2 => shuffle_pow2::<2, 1>(s, d, n, 0, n),
            4 => shuffle_pow2::<4, 2>(s, d, n, 0, n),
            8 => shuffle_pow2::<8, 3>(s, d, n, 0, n),
            _ => shuffle_pow2::<16, 4>(s, d, n, 0, n),
        }
    }
    true
}

/// Unshuffles elements `start..` in steps of 32; returns the first element not processed.
///
/// Always direct: unlike [`shuffle`], staging never paid here (measured on 32 KiB to
/// 1 MiB blocks of 16-, 32- and 64-byte types: the direct walk was as fast or faster).
pub(crate) fn unshuffle(rows: &[&[u8]], n: usize, dest: &mut [u8], start: usize) -> usize {
    let ts = rows.len();
    if ts == 12 {
        return unshuffle_12(rows, n, dest, start);
    }
    if matches!(ts, 3 | 5..=7 | 9..=11 | 13..=15) {
        return unshuffle_narrow(rows, n, dest, start);
    }
    let Some(end) = super::shuffle::simd_span(ts, n, start, 32) else {
        return start;
    };
    if !crate::cpu::has(crate::cpu::Feature::Avx2) {
        return start;
    }
    assert!(rows.iter().all(|r| r.len() >= n) && dest.len() >= n * ts);
    let d = dest.as_mut_ptr();
    // SAFETY: every row holds at least `n` bytes and `dest` at least `n * ts` (asserted
    // above); the kernels read bytes `start..end` (end <= n) of each row and write the
    // elements `start..end`.
    unsafe {
        match ts {
            2 => unshuffle_pow2::<2, 1>(row_ptrs(rows), d, start, end),
            4 => unshuffle_pow2::<4, 2>(row_ptrs(rows), d, start, end),
            8 => unshuffle_pow2::<8, 3>(row_ptrs(rows), d, start, end),
            16 => unshuffle_pow2::<16, 4>(row_ptrs(rows), d, start, end),
            _ => unshuffle_tiled_any(RowPtrs::Slices(rows), ts, n, d, start, end),
        }
    }
    end
}

/// [`unshuffle`] of the type sizes under 16 that are not powers of two (12 aside), 16
/// elements at a time: the inverse of [`shuffle_narrow`]. Each 32 bytes of a step's output
/// are gathered from the `ts` rows' 16 bytes (in both lanes) with one byte shuffle per row
/// ([`NarrowUnmasks`]), `ts * ts / 2` shuffles per `16 * ts` bytes. The scalar loop it
/// replaces ran at 6-7 GB/s and held the bit unshuffle of these sizes (which ends in a byte
/// unshuffle) at 0.81-0.94x the reference's on 8 and 32 KiB blocks.
fn unshuffle_narrow(rows: &[&[u8]], n: usize, dest: &mut [u8], start: usize) -> usize {
    let ts = rows.len();
    let end = start + n.saturating_sub(start) / 16 * 16;
    if end == start || !crate::cpu::has(crate::cpu::Feature::Avx2) {
        return start;
    }
    assert!(rows.iter().all(|r| r.len() >= n) && dest.len() >= n * ts);
    let d = dest.as_mut_ptr();
    macro_rules! narrow {
        ($($t:literal)*) => {
            match ts {
                // SAFETY: AVX2 was detected; every row holds at least `n >= end` bytes and
                // `dest` at least `n * ts` (asserted); `end - start` is a multiple of 16.
                $($t => unsafe { unshuffle_narrow_steps::<$t>(row_ptrs(rows), d, start, end) },)*
                _ => return start,
            }
        };
    }
    narrow!(3 5 6 7 9 10 11 13 14 15);
    end
}

/// Byte-shuffle controls for [`unshuffle_narrow_steps`]: `M[c][j]` picks, from row `j`'s
/// bytes of 16 consecutive elements (the same 16 bytes in both lanes), the bytes of output
/// bytes `32 * c..32 * c + 32` of those elements, and zeros (0x80) everywhere else. Entries
/// from `c = TS.div_ceil(2)` on are never used (8 covers the largest `TS`, 15).
struct NarrowUnmasks<const TS: usize>;

impl<const TS: usize> NarrowUnmasks<TS> {
    const M: [[[u8; 32]; TS]; 8] = {
        let mut m = [[[0x80u8; 32]; TS]; 8];
        let mut p = 0;
        while p < 16 * TS {
            m[p / 32][p % TS][p % 32] = (p / TS) as u8;
            p += 1;
        }
        m
    };
}

/// # Safety
/// AVX2 available; each of the `TS` pointers in `rows` is readable for `end` bytes;
/// `dest` is writable for `end * TS` bytes; `end - start` is a multiple of 16.
#[target_feature(enable = "avx2")]
unsafe fn unshuffle_narrow_steps<const TS: usize>(
    rows: [*const u8; TS],
    dest: *mut u8,
    start: usize,
    end: usize,
) {
    let m = &NarrowUnmasks::<TS>::M;
    let mut i = start;
    while i < end {
        // SAFETY: the step reads bytes `i..i + 16` of each row and writes output bytes
        // `i * TS..(i + 16) * TS`, all below element `end`: the last store of an odd `TS`
        // is 16 bytes, ending at `(i + 16) * TS`.
        unsafe {
            let mut v = [_mm256_setzero_si256(); TS];
            for (x, row) in v.iter_mut().zip(rows) {
                *x = _mm256_broadcastsi128_si256(_mm_loadu_si128(row.add(i).cast()));
            }
            let at = dest.add(i * TS);
            for (c, masks) in m.iter().enumerate().take(TS.div_ceil(2)) {
                let mut out = _mm256_setzero_si256();
                for (x, pick) in v.iter().zip(masks) {
                    let pick = _mm256_loadu_si256(pick.as_ptr().cast());
                    out = _mm256_or_si256(out, _mm256_shuffle_epi8(*x, pick));
                }
                if 2 * c + 1 < TS {
                    _mm256_storeu_si256(at.add(32 * c).cast(), out);
                } else {
                    _mm_storeu_si128(at.add(32 * c).cast(), _mm256_castsi256_si128(out));
                }
            }
        }
        i += 16;
    }
}

/// [`unshuffle`] of 12-byte items (three 32-bit values: points, colours), with a kernel
/// of its own rather than [`unshuffle_narrow`]'s gathers: the reference has a fast one for
/// this size, and the scalar loop ran at a quarter of its speed (5 against 20 GB/s,
/// Emerald Rapids).
fn unshuffle_12(rows: &[&[u8]], n: usize, dest: &mut [u8], start: usize) -> usize {
    let end = start + n.saturating_sub(start) / 32 * 32;
    if end == start || !crate::cpu::has(crate::cpu::Feature::Avx2) {
        return start;
    }
    assert!(rows.iter().all(|r| r.len() >= n) && dest.len() >= n * 12);
    let (ptrs, d) = (row_ptrs(rows), dest.as_mut_ptr());
    // SAFETY: AVX2 (and for the first, AVX-512VL) was detected; every row holds at least
    // `n >= end` bytes and `dest` at least `n * 12` (asserted); `end - start` is a
    // multiple of 32.
    unsafe {
        if crate::cpu::has(crate::cpu::Feature::Avx512vl) {
            unshuffle12_vl(ptrs, d, start, end);
        } else {
            unshuffle12(ptrs, d, start, end);
        }
    }
    end
}

/// [`unshuffle12`] with AVX-512VL's 32 vector registers: the network's 16 registers and
/// its constants no longer fit AVX2's 16, and the spills made it run at half the
/// reference's speed with the buffers 16 bytes off a line.
///
/// # Safety
/// As [`unshuffle12`], with AVX-512VL available.
#[target_feature(enable = "avx2,avx512f,avx512vl")]
unsafe fn unshuffle12_vl(src: [*const u8; 12], dest: *mut u8, start: usize, end: usize) {
    // SAFETY: the caller's contract is unshuffle12's.
    unsafe { unshuffle12_steps(src, dest, start, end) }
}

/// # Safety
/// As [`unshuffle12_steps`].
#[target_feature(enable = "avx2")]
unsafe fn unshuffle12(src: [*const u8; 12], dest: *mut u8, start: usize, end: usize) {
    // SAFETY: the caller's contract is unshuffle12_steps'.
    unsafe { unshuffle12_steps(src, dest, start, end) }
}

/// The 16-byte network on the 12 rows and four rows of zeros, then each pair of elements
/// packed from 32 bytes (12 and 4 zeros, twice) into 24 and stored in address order: a
/// 32-byte store whose last 8 bytes the next store overwrites, and for the last pair of a
/// step exactly 24 bytes, so that nothing past element `end` is written.
///
/// Inlined into the two callers above, each with its own target features.
///
/// # Safety
/// AVX2 available; each of the 12 pointers in `src` is readable for `end` bytes; `dest`
/// is writable for `end * 12` bytes; `end - start` is a multiple of 32.
#[inline(always)]
unsafe fn unshuffle12_steps(src: [*const u8; 12], dest: *mut u8, start: usize, end: usize) {
    // SAFETY: loads stay below byte `end` of each row; the stores of elements e, e + 1
    // (e + 1 < end) reach byte 12 * e + 32 <= 12 * (e + 2) + 8, and the last pair of the
    // step, element end - 1 at most, is stored as 24 bytes.
    unsafe {
        let pack = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 7, 7);
        let mut i = start;
        while i < end {
            let mut v = [_mm256_setzero_si256(); 16];
            for (x, row) in v.iter_mut().zip(src) {
                *x = _mm256_loadu_si256(row.add(i).cast());
            }
            for _ in 0..4 {
                zip(&mut v);
            }
            // Low lanes hold elements i..i+16, high lanes i+16..i+32 (see the module).
            for q in 0..8 {
                let pair = _mm256_permute2x128_si256(v[2 * q], v[2 * q + 1], 0x20);
                let at = dest.add((i + 2 * q) * 12);
                _mm256_storeu_si256(at.cast(), _mm256_permutevar8x32_epi32(pair, pack));
            }
            for q in 0..8 {
                let pair = _mm256_permutevar8x32_epi32(
                    _mm256_permute2x128_si256(v[2 * q], v[2 * q + 1], 0x31),
                    pack,
                );
                let at = dest.add((i + 16 + 2 * q) * 12);
                if q == 7 {
                    let lo = _mm256_castsi256_si128(pair);
                    _mm_storeu_si128(at.cast(), lo);
                    _mm_storel_epi64(at.add(16).cast(), _mm256_extracti128_si256(pair, 1));
                } else {
                    _mm256_storeu_si256(at.cast(), pair);
                }
            }
            i += 32;
        }
    }
}

/// [`super::shuffle_avx512::unshuffle_block`] with these kernels: a whole contiguous
/// block of `n >= peel + 32` elements, type sizes 2, 4, 8 and 16 (and the tiled kernel's
/// above 16, without a peel); false (nothing done) otherwise or without AVX2.
pub(crate) fn unshuffle_block(ts: usize, n: usize, peel: usize, src: &[u8], dest: &mut [u8]) -> bool {
    if ts > 16 {
        return unshuffle_tiled_block(ts, n, src, dest);
    }
    unshuffle_pow2_whole(ts, n, peel, src, dest)
}

/// [`unshuffle_block`] for type sizes 2, 4, 8 and 16 (false for others), always inlined:
/// `shuffle::unshuffle_small` calls it straight from the exported function's path.
#[inline(always)]
pub(crate) fn unshuffle_pow2_whole(ts: usize, n: usize, peel: usize, src: &[u8], dest: &mut [u8]) -> bool {
    if !matches!(ts, 2 | 4 | 8 | 16) || !super::avx2_detected() || n < peel + 32 {
        return false;
    }
    assert!(src.len() >= n * ts && dest.len() >= n * ts);
    // SAFETY: AVX2 was detected above; `src` holds the `ts` rows of `n` bytes and `dest`
    // `n * ts` bytes (asserted), and `n >= peel + 32`.
    unsafe { unshuffle_pow2_block(ts, src.as_ptr(), n, dest.as_mut_ptr(), peel) };
    true
}

/// [`unshuffle_block`] for a power-of-two `ts` up to 16: the spans of
/// `shuffle::block_spans`, in one function with the kernels inlined. A call per span
/// from a function without AVX2 enabled, the spans passed through memory, cost the
/// exported `blosc2_unshuffle` of 64 bytes more than twice the reference's time (AMD
/// Zen 4).
///
/// # Safety
/// AVX2 available; `src` readable for `ts` rows of `n` bytes and `dest` writable for
/// `n * ts` bytes; `n >= peel + 32`.
#[target_feature(enable = "avx2")]
unsafe fn unshuffle_pow2_block(ts: usize, s: *const u8, n: usize, d: *mut u8, peel: usize) {
    let Some(spans) = super::shuffle::block_spans(n, peel, 32) else {
        return;
    };
    // SAFETY: per the contract, each span empty or whole steps of 32 below `n`.
    unsafe {
        match ts {
            2 => spans.iter().for_each(|&(a, b)| unshuffle_pow2::<2, 1>(strided_ptrs(s, n), d, a, b)),
            4 => spans.iter().for_each(|&(a, b)| unshuffle_pow2::<4, 2>(strided_ptrs(s, n), d, a, b)),
            8 => spans.iter().for_each(|&(a, b)| unshuffle_pow2::<8, 3>(strided_ptrs(s, n), d, a, b)),
            _ => spans.iter().for_each(|&(a, b)| unshuffle_pow2::<16, 4>(strided_ptrs(s, n), d, a, b)),
        }
    }
}

/// [`unshuffle_block`] of type sizes above 16: the tiled kernel over the whole steps of
/// 32 elements, then one more step over the last 32 elements (rewriting some with the same
/// bytes, see `shuffle::block_spans`), so a block of at least 32 elements needs no scalar
/// tail. The general path's 64 row slices for 64-byte items, built and checked twice,
/// cost a tenth of an 8 KiB block (0.87-0.91x the reference on AMD Zen 4 through it).
/// False (nothing done) for fewer than 32 elements or without AVX2.
#[inline(never)]
pub(crate) fn unshuffle_tiled_block(ts: usize, n: usize, src: &[u8], dest: &mut [u8]) -> bool {
    if !super::avx2_detected() {
        return false;
    }
    let Some(spans) = super::shuffle::block_spans(n, 0, 32) else {
        return false;
    };
    assert!(ts > 16 && src.len() >= n * ts && dest.len() >= n * ts);
    let [run, head, mut tail] = spans;
    // A few elements past the last whole step go byte by byte rather than through one
    // more step of 32 over the block's end, which for 8 KiB of 17-byte items (481 of
    // them) redid 31 elements to place 1: 0.89-0.92x the reference, whose scalar code
    // takes the rest.
    let rest = n - run.1;
    let by_bytes = tail.0 < tail.1 && rest * ts <= SCALAR_TAIL_BYTES;
    if by_bytes {
        tail = (0, 0);
    }
    let (s, d) = (src.as_ptr(), dest.as_mut_ptr());
    for (a, b) in [run, head, tail].into_iter().filter(|(a, b)| a < b) {
        // SAFETY: AVX2 was detected; `src` holds the `ts` rows of `n` bytes and `dest` the
        // `n` elements (asserted); each span is whole steps of 32 elements below `n`.
        unsafe { unshuffle_tiled_any(RowPtrs::Strided(s, n), ts, n, d, a, b) };
    }
    if by_bytes {
        for i in run.1..n {
            for (j, b) in dest[i * ts..(i + 1) * ts].iter_mut().enumerate() {
                *b = src[j * n + i];
            }
        }
    }
    true
}

/// The most bytes of elements past the last whole step that [`unshuffle_tiled_block`]
/// places byte by byte (more take an overlapping step).
const SCALAR_TAIL_BYTES: usize = 128;

/// Where the tiled unshuffle finds row `j`: a slice per row, or rows of `n` bytes laid
/// end to end.
#[derive(Clone, Copy)]
enum RowPtrs<'a> {
    Slices(&'a [&'a [u8]]),
    Strided(*const u8, usize),
}

impl RowPtrs<'_> {
    /// # Safety
    /// `j` is a row of the block (below its type size).
    #[inline(always)]
    unsafe fn row(self, j: usize) -> *const u8 {
        match self {
            // SAFETY: `j` indexes one of the slices (caller contract).
            RowPtrs::Slices(rows) => unsafe { rows.get_unchecked(j).as_ptr() },
            RowPtrs::Strided(base, n) => base.wrapping_add(j * n),
        }
    }
}

/// The tiled unshuffle of `ts`-byte items (`ts >= 16`) over elements `start..end`, in
/// the walk and with the registers the row length and the CPU call for.
///
/// # Safety
/// AVX2 available; every row holds at least `end` bytes; `dest` is writable for
/// `end * ts` bytes; `end - start` is a multiple of 32.
unsafe fn unshuffle_tiled_any(rows: RowPtrs<'_>, ts: usize, n: usize, dest: *mut u8, start: usize, end: usize) {
    let vl = crate::cpu::has(crate::cpu::Feature::Avx512vl);
    // SAFETY: the caller's contract is the kernels'; AVX-512VL is checked for the `_vl`
    // builds.
    unsafe {
        match (unshuffle_by_columns(ts, n), vl) {
            (true, true) => unshuffle_tiled_vl::<true>(rows, ts, dest, start, end),
            (true, false) => unshuffle_tiled::<true>(rows, ts, dest, start, end),
            (false, true) => unshuffle_tiled_vl::<false>(rows, ts, dest, start, end),
            (false, false) => unshuffle_tiled::<false>(rows, ts, dest, start, end),
        }
    }
}

/// Unshuffles elements `start..` of `ts`-byte items whose bytes from `rows.len()` up are
/// zero, 16 at a time; returns the first element not processed (`start` for the shapes
/// without a kernel here: the low bytes must fill at most half an element).
pub(crate) fn unshuffle_zero_high(
    rows: &[&[u8]],
    ts: usize,
    n: usize,
    dest: &mut [u8],
    start: usize,
) -> usize {
    let end = start + n.saturating_sub(start) / 16 * 16;
    if end == start || !crate::cpu::has(crate::cpu::Feature::Avx2) {
        return start;
    }
    assert!(rows.iter().all(|r| r.len() >= n) && dest.len() >= n * ts);
    let d = dest.as_mut_ptr();
    // SAFETY: every row holds at least `n` bytes and `dest` at least `n * ts` (asserted
    // above); each kernel reads bytes `start..end` (end <= n) of its `LIVE` rows (the
    // match checks `rows.len()`) and writes the elements `start..end`.
    unsafe {
        match (ts, rows.len()) {
            (2, 1) => widen::<2, 1, 1>(rows, d, start, end),
            (4, 1) => widen::<4, 1, 1>(rows, d, start, end),
            (4, 2) => widen::<4, 2, 2>(rows, d, start, end),
            (8, 1) => widen::<8, 1, 1>(rows, d, start, end),
            (8, 2) => widen::<8, 2, 2>(rows, d, start, end),
            (8, 3) => widen::<8, 3, 4>(rows, d, start, end),
            (8, 4) => widen::<8, 4, 4>(rows, d, start, end),
            _ => return start,
        }
    }
    end
}

/// Interleaves `LIVE` rows into words of `W` bytes (`W` the power of two at or above
/// `LIVE`, the rows between zeros), then zero-extends each word to `S` bytes: the moves
/// that widen (`vpmovzx`) also put the 128-bit halves in place, which the full transpose
/// needs a lane permute for.
///
/// # Safety
/// AVX2 available; `rows` holds at least `LIVE` rows of at least `end` bytes; `dest` is
/// writable for `end * S` bytes; `end - start` is a multiple of 16; `W <= S / 2`.
#[target_feature(enable = "avx2")]
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
            let words = zero_high_words::<LIVE, W>(&src, i);
            let out = dest.add(i * S);
            for (k, &w) in words[..W].iter().enumerate() {
                // Each word vector becomes `S / W` halves of 32-byte stores.
                let o = out.add(k * 16 * S / W);
                macro_rules! store {
                    ($at:expr, $v:expr) => {
                        _mm256_storeu_si256(o.add($at).cast(), $v)
                    };
                }
                match (W, S) {
                    (1, 2) => store!(0, _mm256_cvtepu8_epi16(w)),
                    (2, 4) => store!(0, _mm256_cvtepu16_epi32(w)),
                    (4, 8) => store!(0, _mm256_cvtepu32_epi64(w)),
                    (1, 4) => {
                        store!(0, _mm256_cvtepu8_epi32(w));
                        store!(32, _mm256_cvtepu8_epi32(_mm_unpackhi_epi64(w, w)));
                    }
                    (2, 8) => {
                        store!(0, _mm256_cvtepu16_epi64(w));
                        store!(32, _mm256_cvtepu16_epi64(_mm_unpackhi_epi64(w, w)));
                    }
                    _ => {
                        store!(0, _mm256_cvtepu8_epi64(w));
                        store!(32, _mm256_cvtepu8_epi64(_mm_srli_si128::<4>(w)));
                        store!(64, _mm256_cvtepu8_epi64(_mm_srli_si128::<8>(w)));
                        store!(96, _mm256_cvtepu8_epi64(_mm_srli_si128::<12>(w)));
                    }
                }
            }
        }
        i += 16;
    }
}

/// The bytes of elements `i..i + 16` in `LIVE` rows interleaved into words of `W` bytes
/// (`W` the power of two at or above `LIVE`, the bytes from `LIVE` up zero): `words[k]`
/// holds elements `k * 16 / W..` in order (the entries from `W` up are unspecified). SSE2
/// only, shared by the AVX2 and AVX-512 zero-extending kernels.
///
/// # Safety
/// Each of `src` is readable for 16 bytes at offset `i`.
#[inline(always)]
pub(super) unsafe fn zero_high_words<const LIVE: usize, const W: usize>(
    src: &[*const u8; LIVE],
    i: usize,
) -> [__m128i; 4] {
    // SAFETY: the 16-byte loads are in bounds (caller contract); the rest is register
    // arithmetic in SSE2, which every x86-64 CPU has.
    unsafe {
        let r: [__m128i; 4] = core::array::from_fn(|j| {
            if j < LIVE { _mm_loadu_si128(src[j].add(i).cast()) } else { _mm_setzero_si128() }
        });
        match W {
            1 => [r[0]; 4],
            2 => [_mm_unpacklo_epi8(r[0], r[1]), _mm_unpackhi_epi8(r[0], r[1]), r[0], r[0]],
            _ => {
                let (a, b) = (_mm_unpacklo_epi8(r[0], r[1]), _mm_unpackhi_epi8(r[0], r[1]));
                let (c, e) = (_mm_unpacklo_epi8(r[2], r[3]), _mm_unpackhi_epi8(r[2], r[3]));
                [
                    _mm_unpacklo_epi16(a, c),
                    _mm_unpackhi_epi16(a, c),
                    _mm_unpacklo_epi16(b, e),
                    _mm_unpackhi_epi16(b, e),
                ]
            }
        }
    }
}

/// Whether [`shuffle`] goes through a staging buffer.
///
/// The kernels touch all `ts` rows (`n` bytes apart) for every 32 elements. When `n` is a
/// multiple of a large power of two those rows fall into a handful of L1 sets (8 ways of
/// 64 sets of 64-byte lines, 4 KiB per way) and evict each other's half-used lines before
/// the next step comes back to them; blocks of 64 KiB and more of 16-, 32- or 64-byte
/// types do exactly that (direct stores ran at 8 GB/s, staged at 15-19). Below 16 rows,
/// when the rows spread over enough sets, or for 32 KiB blocks (where the rows still fit
/// the cache and the extra copy costs more than it saves), direct access is faster.
pub(super) fn staged(ts: usize, n: usize) -> bool {
    fn gcd(mut a: usize, mut b: usize) -> usize {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    }
    ts >= 16 && n * ts >= 65536 && ts * gcd(n, 4096) > 16384
}

/// Lane-wise perfect unshuffle (even bytes first), see `shuffle_sse2::unzip`.
#[inline]
#[target_feature(enable = "avx2")]
#[allow(unused_unsafe)]
unsafe fn unzip<const S: usize>(v: &mut [__m256i; S]) {
    // SAFETY: register arithmetic only; AVX2 is enabled for this function.
    unsafe {
        let low = _mm256_set1_epi16(0x00FF);
        let mut out = [_mm256_setzero_si256(); S];
        for k in 0..S / 2 {
            let (a, b) = (v[2 * k], v[2 * k + 1]);
            out[k] = _mm256_packus_epi16(_mm256_and_si256(a, low), _mm256_and_si256(b, low));
            out[S / 2 + k] = _mm256_packus_epi16(_mm256_srli_epi16(a, 8), _mm256_srli_epi16(b, 8));
        }
        *v = out;
    }
}

/// Lane-wise inverse of [`unzip`].
#[inline]
#[target_feature(enable = "avx2")]
#[allow(unused_unsafe)]
unsafe fn zip<const S: usize>(v: &mut [__m256i; S]) {
    // SAFETY: register arithmetic only; AVX2 is enabled for this function.
    unsafe {
        let mut out = [_mm256_setzero_si256(); S];
        for k in 0..S / 2 {
            let (a, b) = (v[k], v[S / 2 + k]);
            out[2 * k] = _mm256_unpacklo_epi8(a, b);
            out[2 * k + 1] = _mm256_unpackhi_epi8(a, b);
        }
        *v = out;
    }
}

/// Lane-wise forward transpose, see `shuffle_sse2::forward_rounds`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn forward_rounds<const S: usize>(v: &mut [__m256i; S]) {
    // SAFETY: register arithmetic only; AVX2 is enabled for this function.
    unsafe {
        if S == 2 {
            unzip(v);
        } else {
            for _ in 0..4 {
                zip(v);
            }
        }
    }
}

/// Loads 16 bytes at `lo` into the low lane and 16 bytes at `hi` into the high lane.
///
/// # Safety
/// Both pointers must be valid for 16 bytes.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn load_pair(lo: *const u8, hi: *const u8) -> __m256i {
    // SAFETY: the caller guarantees 16 readable bytes at each pointer.
    unsafe {
        _mm256_inserti128_si256(
            _mm256_castsi128_si256(_mm_loadu_si128(lo.cast())),
            _mm_loadu_si128(hi.cast()),
            1,
        )
    }
}

/// Stores the low lane at `lo` and the high lane at `hi`.
///
/// # Safety
/// Both pointers must be valid for 16 bytes of writes.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn store_pair(lo: *mut u8, hi: *mut u8, v: __m256i) {
    // SAFETY: the caller guarantees 16 writable bytes at each pointer.
    unsafe {
        _mm_storeu_si128(lo.cast(), _mm256_castsi256_si128(v));
        _mm_storeu_si128(hi.cast(), _mm256_extracti128_si256(v, 1));
    }
}

/// Transposes the 32 elements at `src + i * S` into `S` rows of 32 bytes.
///
/// # Safety
/// AVX2 available; `src` readable for `(i + 32) * S` bytes.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn transpose32<const S: usize>(src: *const u8, i: usize) -> [__m256i; S] {
    // SAFETY: the 32 * S bytes read are in bounds (caller contract).
    unsafe {
        // Register 2q + h gets bytes 32q + 16h.. of group A (elements i..i+16) in its low
        // lane and the same bytes of group B (elements i+16..) in its high lane: two full
        // loads and two lane permutes per pair.
        let mut v = [_mm256_setzero_si256(); S];
        for q in 0..S / 2 {
            let a = _mm256_loadu_si256(src.add(i * S + 32 * q).cast());
            let b = _mm256_loadu_si256(src.add((i + 16) * S + 32 * q).cast());
            v[2 * q] = _mm256_permute2x128_si256(a, b, 0x20);
            v[2 * q + 1] = _mm256_permute2x128_si256(a, b, 0x31);
        }
        forward_rounds(&mut v);
        v
    }
}

/// # Safety
/// AVX2 available; `src`, `dest` valid for `n * S` bytes; `end <= n`, `end - start` a
/// multiple of 32.
#[target_feature(enable = "avx2")]
unsafe fn shuffle_pow2<const S: usize, const LOG: usize>(
    src: *const u8,
    dest: *mut u8,
    n: usize,
    start: usize,
    end: usize,
) {
    let mut i = start;
    // Two steps at a time for up to 8 rows, so that each row receives a whole 64-byte
    // line per iteration instead of two halves an iteration apart.
    if S <= 8 {
        while i + 64 <= end {
            // SAFETY: elements i..i+64 lie below n, so the source bytes read and the 64
            // row bytes written at j*n + i are in bounds (caller contract).
            unsafe {
                let v = transpose32::<S>(src, i);
                let w = transpose32::<S>(src, i + 32);
                for j in 0..S {
                    _mm256_storeu_si256(dest.add(j * n + i).cast(), v[j]);
                    _mm256_storeu_si256(dest.add(j * n + i + 32).cast(), w[j]);
                }
            }
            i += 64;
        }
    }
    while i < end {
        // SAFETY: elements i..i+32 lie below n, so the 32*S source bytes at i*S and the
        // 32 row bytes at j*n + i are in bounds (caller contract).
        unsafe {
            let v = transpose32::<S>(src, i);
            for (j, x) in v.iter().enumerate() {
                _mm256_storeu_si256(dest.add(j * n + i).cast(), *x);
            }
        }
        i += 32;
    }
}

/// # Safety
/// Each of the `S` pointers in `src` is readable for `end` bytes; `dest` is writable for
/// `end * S` bytes; `end - start` is a multiple of 32.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn unshuffle_pow2<const S: usize, const LOG: usize>(
    src: [*const u8; S],
    dest: *mut u8,
    start: usize,
    end: usize,
) {
    // One step of 32 elements at a time: two steps per iteration (whole 64-byte lines
    // from each row) measured slower here, unlike in `shuffle_pow2`.
    let mut i = start;
    while i < end {
        // SAFETY: row offsets stay below `end`, element bytes below `end * S`.
        unsafe {
            let mut v = [_mm256_setzero_si256(); S];
            for (j, x) in v.iter_mut().enumerate() {
                *x = _mm256_loadu_si256(src[j].add(i).cast());
            }
            untranspose32::<S, LOG>(v, dest, i);
        }
        i += 32;
    }
}

/// Interleaves `S` rows of 32 bytes back into the 32 elements at `dest + i * S`.
///
/// # Safety
/// AVX2 available; `dest` writable for `(i + 32) * S` bytes.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn untranspose32<const S: usize, const LOG: usize>(
    mut v: [__m256i; S],
    dest: *mut u8,
    i: usize,
) {
    // SAFETY: the 32 * S bytes written are in bounds (caller contract).
    unsafe {
        for _ in 0..LOG {
            zip(&mut v);
        }
        // Inverse of the load pattern of `transpose32`, stored in address order: the
        // same stores interleaved between the two halves ran at two thirds of the speed
        // on 32 KiB to 1 MiB blocks.
        for q in 0..S / 2 {
            let (x, y) = (v[2 * q], v[2 * q + 1]);
            _mm256_storeu_si256(
                dest.add(i * S + 32 * q).cast(),
                _mm256_permute2x128_si256(x, y, 0x20),
            );
        }
        for q in 0..S / 2 {
            let (x, y) = (v[2 * q], v[2 * q + 1]);
            _mm256_storeu_si256(
                dest.add((i + 16) * S + 32 * q).cast(),
                _mm256_permute2x128_si256(x, y, 0x31),
            );
        }
    }
}

/// # Safety
/// AVX2 available; `ts >= 16`; `src`, `dest` valid for `n * ts` bytes; `end <= n`,
/// `end - start` a multiple of 32.
#[target_feature(enable = "avx2")]
unsafe fn shuffle_tiled(
    ts: usize,
    src: *const u8,
    dest: *mut u8,
    n: usize,
    start: usize,
    end: usize,
) {
    // Two steps per column while they last, so that each row gets a whole 64-byte line
    // at once rather than half of one per step: exported `blosc2_shuffle` on AMD Zen 4,
    // 64-byte items in 32 KiB blocks 0.82-0.86x the reference -> 1.05-1.25x, 32-byte
    // items 0.92-0.98x -> 1.01-1.40x. Not where rows alias in L1 (see [`ALIASED_ROWS`]):
    // 64-byte items in 256 KiB blocks ran 5-7% slower that way.
    let mut i = start;
    while i + 64 <= end && n % ALIASED_ROWS != 0 {
        for col in super::shuffle::tile_columns(ts) {
            // SAFETY: elements i..i+64 <= end <= n, as below.
            unsafe {
                shuffle_tile(ts, src, dest, n, col, i);
                shuffle_tile(ts, src, dest, n, col, i + 32);
            }
        }
        i += 64;
    }
    while i < end {
        for col in super::shuffle::tile_columns(ts) {
            // SAFETY: element rows i..i+32 < n and columns col..col+16 <= ts keep every
            // access inside the n * ts bytes of each buffer.
            unsafe { shuffle_tile(ts, src, dest, n, col, i) };
        }
        i += 32;
    }
}

/// One tile of [`shuffle_tiled`]: bytes `col..col + 16` of elements `i..i + 32`.
///
/// # Safety
/// AVX2 available; `i + 32 <= n`, `col + 16 <= ts`, both buffers `n * ts` bytes.
#[inline(always)]
unsafe fn shuffle_tile(ts: usize, src: *const u8, dest: *mut u8, n: usize, col: usize, i: usize) {
    // SAFETY: per the contract, every access lies inside the n * ts bytes of each buffer.
    unsafe {
        // Element pointers stepped by `ts`, as in `unshuffle_tiled_steps`.
        let mut v = [_mm256_setzero_si256(); 16];
        let (mut lo, far) = (src.add(i * ts + col), 16 * ts);
        for x in v.iter_mut() {
            *x = load_pair(lo, lo.add(far));
            lo = lo.add(ts);
        }
        forward_rounds(&mut v);
        for (b, x) in v.iter().enumerate() {
            _mm256_storeu_si256(dest.add((col + b) * n + i).cast(), *x);
        }
    }
}

/// Row lengths (the distance between the rows of a contiguous block) at which the tiled
/// unshuffle walks the block a column of 16 rows at a time, as the reference does, rather
/// than all rows per step of 32 elements. Rows a multiple of 2 KiB apart fall into at most
/// two groups of L1 sets, so a step over 32 or 64 rows wants 16 or 32 lines of one set and
/// an 8-way L1 (AMD Zen 4: 32 KiB) evicts each line before the next step reads its second
/// half. Measured on Zen 4, exported `blosc2_unshuffle`: 32-byte items in 64 to 256 KiB
/// blocks and 64-byte items in 128 and 256 KiB blocks went from 0.64-0.89x the reference to
/// 0.96-1.13x; at other row lengths the step order stays, being faster where the block's
/// destination stays in L1 (64-byte items at 8 and 32 KiB: 0.81-0.86x by columns).
const ALIASED_ROWS: usize = 2048;

/// Whether the tiled unshuffle of `n` items of `ts` bytes walks the block by columns (see
/// [`ALIASED_ROWS`]). Measured apart per vendor, `blosc2_unshuffle` against the reference:
/// on AMD Zen 4 (L1 32 KiB, 8-way) by columns where rows are a multiple of
/// [`ALIASED_ROWS`] apart. On an Intel Xeon (model 167, L1 48 KiB, 12-way, 2026-12-06)
/// that walk was the slower one there (32-byte items in 48-256 KiB blocks 0.81-0.91x by
/// columns, 1.15-1.27x by steps; 64-byte items in 48-256 KiB blocks 1.01-1.09x against
/// 1.69-1.91x), and the faster one only for 64-byte items in blocks of 24 and 32 KiB (rows
/// 384 and 512 bytes apart: 0.92-1.07x against 0.76-0.80x by steps).
#[inline]
fn unshuffle_by_columns(ts: usize, n: usize) -> bool {
    if crate::copy::amd_like() {
        n % ALIASED_ROWS == 0
    } else {
        ts >= 64 && (384..=512).contains(&n)
    }
}

/// # Safety
/// AVX2 available; as [`unshuffle_tiled_steps`].
#[target_feature(enable = "avx2")]
unsafe fn unshuffle_tiled<const BY_COLUMNS: bool>(
    rows: RowPtrs<'_>,
    ts: usize,
    dest: *mut u8,
    start: usize,
    end: usize,
) {
    // SAFETY: the caller's contract is unshuffle_tiled_steps'.
    unsafe { unshuffle_tiled_steps::<BY_COLUMNS>(rows, ts, dest, start, end) }
}

/// [`unshuffle_tiled`] with AVX-512VL's 32 vector registers (as [`unshuffle12_vl`]).
///
/// # Safety
/// AVX2 and AVX-512VL available; as [`unshuffle_tiled_steps`].
#[target_feature(enable = "avx2,avx512f,avx512vl")]
unsafe fn unshuffle_tiled_vl<const BY_COLUMNS: bool>(
    rows: RowPtrs<'_>,
    ts: usize,
    dest: *mut u8,
    start: usize,
    end: usize,
) {
    // SAFETY: the caller's contract is unshuffle_tiled_steps'.
    unsafe { unshuffle_tiled_steps::<BY_COLUMNS>(rows, ts, dest, start, end) }
}

/// Inlined into the two callers above, each with its own target features.
///
/// # Safety
/// `ts >= 16` rows, each holding at least `end` bytes; `dest` is writable for `end * ts`
/// bytes; `end - start` is a multiple of 32.
/// `BY_COLUMNS` chooses the walk (see [`ALIASED_ROWS`]): each column of 16 rows over all
/// the elements, or all the columns for each step of 32 elements.
#[inline(always)]
unsafe fn unshuffle_tiled_steps<const BY_COLUMNS: bool>(
    rows: RowPtrs<'_>,
    ts: usize,
    dest: *mut u8,
    start: usize,
    end: usize,
) {
    if BY_COLUMNS {
        for col in super::shuffle::tile_columns(ts) {
            let mut i = start;
            while i < end {
                // SAFETY: a tile of the caller's rows and elements.
                unsafe { unshuffle_tile(rows, ts, dest, col, i) };
                i += 32;
            }
        }
    } else {
        let mut i = start;
        while i < end {
            for col in super::shuffle::tile_columns(ts) {
                // SAFETY: a tile of the caller's rows and elements.
                unsafe { unshuffle_tile(rows, ts, dest, col, i) };
            }
            i += 32;
        }
    }
}

/// One tile of the tiled unshuffle: bytes `col..col + 16` of elements `i..i + 32`.
///
/// # Safety
/// As [`unshuffle_tiled_steps`], with `col + 16 <= rows.len()` and `i + 32 <= end`.
#[inline(always)]
unsafe fn unshuffle_tile(rows: RowPtrs<'_>, ts: usize, dest: *mut u8, col: usize, i: usize) {
    // SAFETY: rows `col + b < ts`, row offsets below `end`, element bytes below `end * ts`.
    unsafe {
        let mut v = [_mm256_setzero_si256(); 16];
        for (b, x) in v.iter_mut().enumerate() {
            *x = _mm256_loadu_si256(rows.row(col + b).add(i).cast());
        }
        for _ in 0..4 {
            zip(&mut v);
        }
        // Element pointers by one step of `ts` each: written as `(i + e) * ts`, the 32
        // products were computed ahead and spilled (a quarter of the time of an 8 KiB
        // block of 32-byte items).
        let (mut lo, far) = (dest.add(i * ts + col), 16 * ts);
        for x in &v {
            store_pair(lo, lo.add(far), *x);
            lo = lo.add(ts);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both builds of the 12-byte shuffle against the model, on steps that start past 0,
    /// with the source ending 4 bytes after the last element's 12 as the kernel allows.
    #[test]
    fn shuffle12_builds_match_model() {
        if !crate::cpu::has(crate::cpu::Feature::Avx2) {
            return;
        }
        let n = 32 * 5 + 7;
        let (start, end) = (32, 32 * 5);
        let src = crate::filters::tests::data(12 * end + 4, 21);
        let mut want = vec![0xEE; 12 * n];
        for i in start..end {
            for j in 0..12 {
                want[j * n + i] = src[12 * i + j];
            }
        }
        let vl = crate::cpu::has(crate::cpu::Feature::Avx512vl);
        for build in 0..if vl { 2 } else { 1 } {
            let mut out = vec![0xEE; 12 * n];
            // SAFETY: AVX2 (and AVX-512VL for build 1) detected; `src` holds end * 12 + 4
            // bytes, `out` n * 12; end - start is a multiple of 32.
            unsafe {
                if build == 0 {
                    shuffle12(src.as_ptr(), out.as_mut_ptr(), n, start, end);
                } else {
                    shuffle12_vl(src.as_ptr(), out.as_mut_ptr(), n, start, end);
                }
            }
            assert!(out == want, "shuffle12 build {build}");
        }
    }

    /// Both builds of the 12-byte unshuffle (the dispatcher takes only the AVX-512VL one
    /// where it can), against the model, on steps that start past 0 and bytes after the
    /// last element that must stay untouched.
    #[test]
    fn unshuffle12_builds_match_model() {
        if !crate::cpu::has(crate::cpu::Feature::Avx2) {
            return;
        }
        let n = 32 * 5 + 7;
        let src = crate::filters::tests::data(12 * n, 12);
        let rows: Vec<&[u8]> = src.chunks_exact(n).collect();
        let (start, end) = (32, 32 * 5);
        let mut want = vec![0xEE; 12 * n];
        for i in start..end {
            for (j, row) in rows.iter().enumerate() {
                want[12 * i + j] = row[i];
            }
        }
        let vl = crate::cpu::has(crate::cpu::Feature::Avx512vl);
        for build in 0..if vl { 2 } else { 1 } {
            let mut out = vec![0xEE; 12 * n];
            let ptrs = row_ptrs::<12>(&rows);
            // SAFETY: AVX2 (and AVX-512VL for build 1) detected; each row holds n >= end
            // bytes, `out` n * 12; end - start is a multiple of 32.
            unsafe {
                if build == 0 {
                    unshuffle12(ptrs, out.as_mut_ptr(), start, end);
                } else {
                    unshuffle12_vl(ptrs, out.as_mut_ptr(), start, end);
                }
            }
            assert!(out == want, "unshuffle12 build {build}");
        }
    }
}
