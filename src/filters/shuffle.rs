//! Byte shuffle: a transpose of the `n x typesize` byte matrix of a block.
//!
//! The dispatchers below run the widest available SIMD kernel on as many whole vector
//! groups of elements as it can, then finish the remaining elements with the scalar code,
//! then copy the trailing `len % typesize` bytes. All kernels compute the same transpose,
//! so the output does not depend on the instruction set.

use super::Isa;

/// Elements per cache block of the scalar loops, given the type size: keeps the source
/// slice of one block (read once per output row) around 16 KiB, well inside L1.
#[inline]
fn scalar_block(typesize: usize) -> usize {
    (16384 / typesize).max(16)
}

pub(crate) fn shuffle_with(isa: Isa, typesize: usize, src: &[u8], dest: &mut [u8]) {
    assert_eq!(
        src.len(),
        dest.len(),
        "shuffle: source and destination lengths differ"
    );
    if typesize <= 1 {
        dest.copy_from_slice(src);
        return;
    }
    let n = src.len() / typesize;
    let body = n * typesize;
    let start = simd_shuffle(isa, typesize, n, src, dest);
    shuffle_scalar(typesize, n, src, dest, start);
    dest[body..].copy_from_slice(&src[body..]);
}

pub(crate) fn unshuffle_with(isa: Isa, typesize: usize, src: &[u8], dest: &mut [u8]) {
    assert_eq!(
        src.len(),
        dest.len(),
        "unshuffle: source and destination lengths differ"
    );
    if typesize <= 1 {
        dest.copy_from_slice(src);
        return;
    }
    let n = src.len() / typesize;
    let body = n * typesize;
    let start = simd_unshuffle(isa, typesize, n, src, dest);
    unshuffle_scalar(typesize, n, src, dest, start);
    dest[body..].copy_from_slice(&src[body..]);
}

/// Runs the SIMD kernels of `isa` on a prefix of the elements; returns where the scalar
/// code must take over.
#[inline]
fn simd_shuffle(isa: Isa, typesize: usize, n: usize, src: &[u8], dest: &mut [u8]) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        match isa {
            Isa::Avx2 => {
                let start = super::shuffle_avx2::shuffle(typesize, n, src, dest, 0);
                super::shuffle_sse2::shuffle(typesize, n, src, dest, start)
            }
            Isa::Sse2 => super::shuffle_sse2::shuffle(typesize, n, src, dest, 0),
            Isa::Scalar | Isa::Neon => 0,
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        match isa {
            Isa::Neon => super::shuffle_neon::shuffle(typesize, n, src, dest, 0),
            _ => 0,
        }
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        let _ = (isa, typesize, n, src, dest);
        0
    }
}

#[inline]
fn simd_unshuffle(isa: Isa, typesize: usize, n: usize, src: &[u8], dest: &mut [u8]) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        match isa {
            Isa::Avx2 => {
                let start = super::shuffle_avx2::unshuffle(typesize, n, src, dest, 0);
                super::shuffle_sse2::unshuffle(typesize, n, src, dest, start)
            }
            Isa::Sse2 => super::shuffle_sse2::unshuffle(typesize, n, src, dest, 0),
            Isa::Scalar | Isa::Neon => 0,
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        match isa {
            Isa::Neon => super::shuffle_neon::unshuffle(typesize, n, src, dest, 0),
            _ => 0,
        }
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        let _ = (isa, typesize, n, src, dest);
        0
    }
}

/// The elements `start..end` a SIMD kernel that works `group` elements at a time takes:
/// whole groups only, and only for the type sizes the kernels handle (2, 4, 8, or 16 and
/// up). `None` when that is nothing.
#[inline]
pub(super) fn simd_span(ts: usize, n: usize, start: usize, group: usize) -> Option<usize> {
    let end = start + n.saturating_sub(start) / group * group;
    (end > start && (ts == 2 || ts == 4 || ts == 8 || ts >= 16)).then_some(end)
}

/// Byte offsets of the 16-byte column slices that cover an element of `ts >= 16` bytes,
/// for the tiled SIMD kernels: every 16 bytes, the last slice ending at `ts` (overlapping
/// the one before when 16 does not divide `ts`; overlapping stores write equal bytes).
#[inline(always)]
pub(super) fn tile_columns(ts: usize) -> impl Iterator<Item = usize> {
    let last = ts - 16;
    (0..ts).step_by(16).map(move |c| c.min(last))
}

/// Scalar shuffle of elements `start..n` (whole elements only).
pub(crate) fn shuffle_scalar(typesize: usize, n: usize, src: &[u8], dest: &mut [u8], start: usize) {
    if start >= n {
        return;
    }
    macro_rules! fixed {
        ($($ts:literal)*) => {
            match typesize {
                $($ts => shuffle_fixed::<$ts>(n, src, dest, start),)*
                _ => shuffle_dyn(typesize, n, src, dest, start),
            }
        };
    }
    fixed!(2 3 4 5 6 7 8 9 10 11 12 13 14 15 16);
}

/// Scalar unshuffle of elements `start..n` (whole elements only).
pub(crate) fn unshuffle_scalar(
    typesize: usize,
    n: usize,
    src: &[u8],
    dest: &mut [u8],
    start: usize,
) {
    if start >= n {
        return;
    }
    macro_rules! fixed {
        ($($ts:literal)*) => {
            match typesize {
                $($ts => unshuffle_fixed::<$ts>(n, src, dest, start),)*
                _ => unshuffle_dyn(typesize, n, src, dest, start),
            }
        };
    }
    fixed!(2 3 4 5 6 7 8 9 10 11 12 13 14 15 16);
}

/// Small type sizes get a monomorphised loop so the per-element byte gather is unrolled.
fn shuffle_fixed<const TS: usize>(n: usize, src: &[u8], dest: &mut [u8], start: usize) {
    let block = scalar_block(TS);
    let mut i0 = start;
    while i0 < n {
        let i1 = (i0 + block).min(n);
        let elems = &src[i0 * TS..i1 * TS];
        for j in 0..TS {
            let row = &mut dest[j * n + i0..j * n + i1];
            for (d, e) in row.iter_mut().zip(elems.chunks_exact(TS)) {
                *d = e[j];
            }
        }
        i0 = i1;
    }
}

fn unshuffle_fixed<const TS: usize>(n: usize, src: &[u8], dest: &mut [u8], start: usize) {
    let block = scalar_block(TS);
    let mut i0 = start;
    while i0 < n {
        let i1 = (i0 + block).min(n);
        let elems = &mut dest[i0 * TS..i1 * TS];
        for j in 0..TS {
            let row = &src[j * n + i0..j * n + i1];
            for (e, &b) in elems.chunks_exact_mut(TS).zip(row) {
                e[j] = b;
            }
        }
        i0 = i1;
    }
}

fn shuffle_dyn(ts: usize, n: usize, src: &[u8], dest: &mut [u8], start: usize) {
    let block = scalar_block(ts);
    let mut i0 = start;
    while i0 < n {
        let i1 = (i0 + block).min(n);
        let elems = &src[i0 * ts..i1 * ts];
        for j in 0..ts {
            let row = &mut dest[j * n + i0..j * n + i1];
            for (d, e) in row.iter_mut().zip(elems.chunks_exact(ts)) {
                *d = e[j];
            }
        }
        i0 = i1;
    }
}

fn unshuffle_dyn(ts: usize, n: usize, src: &[u8], dest: &mut [u8], start: usize) {
    let block = scalar_block(ts);
    let mut i0 = start;
    while i0 < n {
        let i1 = (i0 + block).min(n);
        let elems = &mut dest[i0 * ts..i1 * ts];
        for j in 0..ts {
            let row = &src[j * n + i0..j * n + i1];
            for (e, &b) in elems.chunks_exact_mut(ts).zip(row) {
                e[j] = b;
            }
        }
        i0 = i1;
    }
}
