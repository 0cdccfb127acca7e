//! Bit shuffle: bit planes of the bytes of every element.
//!
//! Output plane `8 * j + k` (`m / 8` bytes) holds bit `k` of byte `j` of the `m` elements
//! that take part (`m` = element count rounded down to a multiple of 8), element `8g + b`
//! in bit `b` of byte `g`. The rest of the block is copied.
//!
//! The work is split into tiles of elements (see [`tile_elems`]): a tile is first
//! byte-shuffled into a scratch buffer (one row of `tile` bytes per byte position `j`),
//! then every row is bit-transposed straight into its 8 output planes. Unshuffling runs the
//! same two steps backwards. The reference instead makes three passes over the whole block
//! through a block-sized scratch buffer (byte transpose, bit transpose, row regrouping);
//! here the block is read and written once.

use std::cell::RefCell;

use crate::scratch::ScratchBuf;
use super::{FilterError, Isa, BLOSC1_FORMAT_VERSION};

/// Elements per tile.
///
/// Small types: about 16 KiB of scratch, so the tile stays in L1. Larger types: at least
/// 2048 elements (up to 512 KiB of scratch, in L2), because each tile reads or writes a
/// `tile / 8`-byte slice of each of the `8 * typesize` planes, and slices of 256 bytes or
/// more keep that strided traffic efficient (short slices made the 32- and 255-byte cases
/// three to four times slower). Always a multiple of 32 elements, the AVX2 step.
#[inline]
fn tile_elems(typesize: usize) -> usize {
    let elems = (16 * 1024 / typesize).max((512 * 1024 / typesize).min(2048));
    (elems & !31).max(32)
}

fn check(typesize: usize, src: &[u8], dest: &[u8]) -> Result<(), FilterError> {
    if typesize == 0 {
        return Err(FilterError::ZeroTypesize);
    }
    if src.len() != dest.len() {
        return Err(FilterError::LengthMismatch {
            src: src.len(),
            dest: dest.len(),
        });
    }
    Ok(())
}

pub(crate) fn bitshuffle_with(
    isa: Isa,
    typesize: usize,
    src: &[u8],
    dest: &mut [u8],
) -> Result<(), FilterError> {
    check(typesize, src, dest)?;
    let n = src.len() / typesize;
    let m = n - n % 8;
    let body = m * typesize;
    if m > 0 {
        forward(isa, typesize, m, &src[..body], &mut dest[..body]);
    }
    dest[body..].copy_from_slice(&src[body..]);
    Ok(())
}

pub(crate) fn bitunshuffle_with(
    isa: Isa,
    typesize: usize,
    src: &[u8],
    dest: &mut [u8],
    format_version: u8,
) -> Result<(), FilterError> {
    check(typesize, src, dest)?;
    let n = src.len() / typesize;
    if format_version == BLOSC1_FORMAT_VERSION && !n.is_multiple_of(8) {
        // c-blosc 1.x left such blocks untouched when compressing.
        dest.copy_from_slice(src);
        return Ok(());
    }
    let m = n - n % 8;
    let body = m * typesize;
    if m > 0 {
        backward(isa, typesize, m, &src[..body], &mut dest[..body]);
    }
    dest[body..].copy_from_slice(&src[body..]);
    Ok(())
}

/// `src` and `dest` are exactly `m * ts` bytes, `m` a positive multiple of 8.
fn forward(isa: Isa, ts: usize, m: usize, src: &[u8], dest: &mut [u8]) {
    let stride = m / 8;
    let tile = tile_elems(ts).min(m);
    if ts == 1 {
        let mut t0 = 0;
        while t0 < m {
            let tl = tile.min(m - t0);
            transpose_row(isa, &src[t0..t0 + tl], dest, t0 / 8, stride);
            t0 += tl;
        }
        return;
    }
    with_tile_scratch(tile * ts, |tmp| {
        let mut t0 = 0;
        while t0 < m {
            let tl = tile.min(m - t0);
            let rows = &mut tmp[..tl * ts];
            super::shuffle::shuffle_with(isa, ts, &src[t0 * ts..(t0 + tl) * ts], rows);
            for (j, row) in rows.chunks_exact(tl).enumerate() {
                transpose_row(isa, row, dest, 8 * j * stride + t0 / 8, stride);
            }
            t0 += tl;
        }
    });
}

/// `src` and `dest` are exactly `m * ts` bytes, `m` a positive multiple of 8.
fn backward(isa: Isa, ts: usize, m: usize, src: &[u8], dest: &mut [u8]) {
    let stride = m / 8;
    let tile = tile_elems(ts).min(m);
    if ts == 1 {
        let mut t0 = 0;
        while t0 < m {
            let tl = tile.min(m - t0);
            untranspose_row(isa, src, t0 / 8, stride, &mut dest[t0..t0 + tl]);
            t0 += tl;
        }
        return;
    }
    with_tile_scratch(tile * ts, |tmp| {
        let mut t0 = 0;
        while t0 < m {
            let tl = tile.min(m - t0);
            let rows = &mut tmp[..tl * ts];
            for (j, row) in rows.chunks_exact_mut(tl).enumerate() {
                untranspose_row(isa, src, 8 * j * stride + t0 / 8, stride, row);
            }
            let bytes = isa.unshuffle_isa(ts);
            super::shuffle::unshuffle_with(bytes, ts, rows, &mut dest[t0 * ts..(t0 + tl) * ts]);
            t0 += tl;
        }
    });
}

thread_local! {
    /// Each thread's tile buffer, kept between calls: a zeroed allocation per block cost
    /// more than the bit transpose itself on highly compressible data (calloc of the
    /// tile, 26% of the instructions decompressing a bit-shuffled int64 ramp).
    static TILE_SCRATCH: RefCell<ScratchBuf> = RefCell::new(ScratchBuf::default());
}

/// Runs `f` on at least `len` bytes of this thread's tile buffer (contents unspecified).
fn with_tile_scratch(len: usize, f: impl FnOnce(&mut [u8])) {
    TILE_SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut buf) => {
            buf.grow_to(len);
            f(&mut buf[..len]);
        }
        // Only reachable if `f` itself bit-shuffled on this thread; give it its own.
        Err(_) => f(&mut vec![0u8; len]),
    });
}

/// Bit-transposes `row` (one byte of each of `row.len()` elements, a multiple of 8) into
/// the 8 planes `out[base + k * stride..][..row.len() / 8]`.
#[inline]
fn transpose_row(isa: Isa, row: &[u8], out: &mut [u8], base: usize, stride: usize) {
    let done = match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => super::bitshuffle_avx512::transpose_row(row, out, base, stride),
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => super::bitshuffle_avx2::transpose_row(row, out, base, stride),
        #[cfg(target_arch = "x86_64")]
        Isa::Sse2 => super::bitshuffle_sse2::transpose_row(row, out, base, stride),
        #[cfg(target_arch = "aarch64")]
        Isa::Neon => super::bitshuffle_neon::transpose_row(row, out, base, stride),
        _ => 0,
    };
    transpose_row_scalar(row, out, base, stride, done / 8);
}

/// Inverse of [`transpose_row`]: gathers the planes `inp[base + k * stride..]` back into
/// `row`.
#[inline]
fn untranspose_row(isa: Isa, inp: &[u8], base: usize, stride: usize, row: &mut [u8]) {
    let done = match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => super::bitshuffle_avx512::untranspose_row(inp, base, stride, row),
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => super::bitshuffle_avx2::untranspose_row(inp, base, stride, row),
        #[cfg(target_arch = "x86_64")]
        Isa::Sse2 => super::bitshuffle_sse2::untranspose_row(inp, base, stride, row),
        #[cfg(target_arch = "aarch64")]
        Isa::Neon => super::bitshuffle_neon::untranspose_row(inp, base, stride, row),
        _ => 0,
    };
    untranspose_row_scalar(inp, base, stride, row, done / 8);
}

/// Transposes the 8x8 bit matrix whose row `r` is byte `r` (little-endian) of `x`:
/// bit `c` of byte `r` moves to bit `r` of byte `c`.
#[inline(always)]
pub(crate) fn transpose8x8(mut x: u64) -> u64 {
    let t = (x ^ (x >> 7)) & 0x00AA_00AA_00AA_00AA;
    x ^= t ^ (t << 7);
    let t = (x ^ (x >> 14)) & 0x0000_CCCC_0000_CCCC;
    x ^= t ^ (t << 14);
    let t = (x ^ (x >> 28)) & 0x0000_0000_F0F0_F0F0;
    x ^= t ^ (t << 28);
    x
}

/// Scalar twin of the SIMD row transposes, for groups `first_group..`.
pub(crate) fn transpose_row_scalar(
    row: &[u8],
    out: &mut [u8],
    base: usize,
    stride: usize,
    first_group: usize,
) {
    let groups = row.len() / 8;
    if first_group >= groups {
        return;
    }
    let planes = &mut out[base..base + 7 * stride + groups];
    for (g, bytes) in row.chunks_exact(8).enumerate().skip(first_group) {
        let mut word = [0u8; 8];
        word.copy_from_slice(bytes);
        let y = transpose8x8(u64::from_le_bytes(word)).to_le_bytes();
        for (k, &b) in y.iter().enumerate() {
            planes[k * stride + g] = b;
        }
    }
}

/// Scalar twin of the SIMD row untransposes, for groups `first_group..`.
pub(crate) fn untranspose_row_scalar(
    inp: &[u8],
    base: usize,
    stride: usize,
    row: &mut [u8],
    first_group: usize,
) {
    let groups = row.len() / 8;
    if first_group >= groups {
        return;
    }
    let planes = &inp[base..base + 7 * stride + groups];
    for (g, bytes) in row.chunks_exact_mut(8).enumerate().skip(first_group) {
        let mut word = [0u8; 8];
        for (k, w) in word.iter_mut().enumerate() {
            *w = planes[k * stride + g];
        }
        bytes.copy_from_slice(&transpose8x8(u64::from_le_bytes(word)).to_le_bytes());
    }
}
