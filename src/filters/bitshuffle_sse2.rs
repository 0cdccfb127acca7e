//! SSE2 bit-transpose kernels for one byte row of a tile.
//!
//! Forward: `movemask` gathers the top bit of 16 bytes, i.e. one bit plane of 16
//! elements; doubling every byte moves the next bit to the top, eight times.
//! Backward: the 8 plane bytes of each group of 8 elements are brought together into one
//! 64-bit lane with three rounds of byte interleaves, and each lane is then transposed as
//! an 8x8 bit matrix with shift/xor/mask steps, or where the CPU has GFNI with one
//! `gf2p8affineqb` (see `bitshuffle_avx2`).

use core::arch::x86_64::*;

/// Transposes the longest prefix of `row` that is a multiple of 16 bytes; returns its
/// length. Same contract as `bitshuffle::transpose_row`.
pub(crate) fn transpose_row(row: &[u8], out: &mut [u8], base: usize, stride: usize) -> usize {
    let len = row.len() / 16 * 16;
    if len == 0 {
        return 0;
    }
    assert!(stride >= len / 8 && base + 7 * stride + len / 8 <= out.len());
    // SAFETY: SSE2 is baseline on x86_64. The kernel reads `len <= row.len()` bytes of
    // `row` and writes bytes `base + k * stride + g` with `k < 8`, `g < len / 8`, all
    // below `out.len()` by the assertion.
    unsafe { transpose_kernel(row.as_ptr(), len, out.as_mut_ptr().add(base), stride) };
    len
}

/// Untransposes the longest prefix of `row` that is a multiple of 64 bytes; returns its
/// length. Same contract as `bitshuffle::untranspose_row`.
pub(crate) fn untranspose_row(inp: &[u8], base: usize, stride: usize, row: &mut [u8]) -> usize {
    let len = row.len() / 64 * 64;
    if len == 0 {
        return 0;
    }
    assert!(base + 7 * stride + len / 8 <= inp.len());
    // SAFETY: SSE2 is baseline on x86_64, and GFNI is detected before the kernel that
    // uses it. The kernels read bytes `base + k * stride + g`, `k < 8`, `g < len / 8` (in
    // bounds by the assertion) and write `len <= row.len()` bytes of `row`.
    unsafe {
        if crate::cpu::has(crate::cpu::Feature::Gfni) {
            untranspose_kernel_gfni(inp.as_ptr().add(base), stride, row.as_mut_ptr(), len);
        } else {
            untranspose_kernel(inp.as_ptr().add(base), stride, row.as_mut_ptr(), len);
        }
    }
    len
}

/// # Safety
/// `src` readable for `len` bytes (`len % 16 == 0`); `out + k * stride` writable for
/// `len / 8` bytes for every `k < 8`.
#[target_feature(enable = "sse2")]
unsafe fn transpose_kernel(src: *const u8, len: usize, out: *mut u8, stride: usize) {
    let mut p = 0;
    while p < len {
        let g = p / 8;
        // SAFETY: p + 16 <= len, and g + 2 <= len / 8 (caller contract).
        unsafe {
            let mut v = _mm_loadu_si128(src.add(p).cast());
            for k in (0..8).rev() {
                let bits = (_mm_movemask_epi8(v) as u16).to_le_bytes();
                core::ptr::copy_nonoverlapping(bits.as_ptr(), out.add(k * stride + g), 2);
                v = _mm_add_epi8(v, v);
            }
        }
        p += 16;
    }
}

/// 8x8 bit transpose of each 64-bit lane (see `bitshuffle::transpose8x8`).
#[inline(always)]
#[allow(unused_unsafe)]
pub(crate) fn transpose_lanes(x: __m128i) -> __m128i {
    // SAFETY: SSE2 register arithmetic only, baseline on x86_64.
    unsafe {
        let m1 = _mm_set1_epi64x(0x00AA_00AA_00AA_00AA);
        let m2 = _mm_set1_epi64x(0x0000_CCCC_0000_CCCC);
        let m3 = _mm_set1_epi64x(0x0000_0000_F0F0_F0F0);
        let t = _mm_and_si128(_mm_xor_si128(x, _mm_srli_epi64(x, 7)), m1);
        let x = _mm_xor_si128(x, _mm_xor_si128(t, _mm_slli_epi64(t, 7)));
        let t = _mm_and_si128(_mm_xor_si128(x, _mm_srli_epi64(x, 14)), m2);
        let x = _mm_xor_si128(x, _mm_xor_si128(t, _mm_slli_epi64(t, 14)));
        let t = _mm_and_si128(_mm_xor_si128(x, _mm_srli_epi64(x, 28)), m3);
        _mm_xor_si128(x, _mm_xor_si128(t, _mm_slli_epi64(t, 28)))
    }
}

/// # Safety
/// `inp + k * stride` readable for `len / 8` bytes for every `k < 8`; `dst` writable for
/// `len` bytes; `len % 64 == 0`.
#[target_feature(enable = "sse2")]
unsafe fn untranspose_kernel(inp: *const u8, stride: usize, dst: *mut u8, len: usize) {
    // SAFETY: the caller's contract is untranspose_steps'.
    unsafe { untranspose_steps::<false>(inp, stride, dst, len) }
}

/// # Safety
/// As [`untranspose_kernel`], with GFNI available.
#[target_feature(enable = "sse2,gfni")]
unsafe fn untranspose_kernel_gfni(inp: *const u8, stride: usize, dst: *mut u8, len: usize) {
    // SAFETY: the caller's contract is untranspose_steps'; GFNI is enabled here.
    unsafe { untranspose_steps::<true>(inp, stride, dst, len) }
}

/// The backward kernel's steps, inlined into the two wrappers above.
///
/// # Safety
/// GFNI available if `GFNI`; `inp + k * stride` readable for `len / 8` bytes for every
/// `k < 8`; `dst` writable for `len` bytes; `len % 64 == 0`.
#[inline(always)]
unsafe fn untranspose_steps<const GFNI: bool>(inp: *const u8, stride: usize, dst: *mut u8, len: usize) {
    let mut p = 0;
    while p < len {
        let g = p / 8;
        // SAFETY: g + 8 <= len / 8, so each 8-byte plane load is in bounds, and the
        // 64 bytes written at p are below len (caller contract).
        unsafe {
            // `gf2p8affineqb` transposes the byte-reversed word: plane 7 goes first.
            let ld = |k: usize| {
                let plane = if GFNI { 7 - k } else { k };
                _mm_loadl_epi64(inp.add(plane * stride + g).cast())
            };
            // Planes (0,1), (2,3), (4,5), (6,7) byte-interleaved: groups 0..8.
            let a0 = _mm_unpacklo_epi8(ld(0), ld(1));
            let a1 = _mm_unpacklo_epi8(ld(2), ld(3));
            let a2 = _mm_unpacklo_epi8(ld(4), ld(5));
            let a3 = _mm_unpacklo_epi8(ld(6), ld(7));
            // Planes 0..4 and 4..8 for groups 0..4 and 4..8.
            let b0 = _mm_unpacklo_epi16(a0, a1);
            let b1 = _mm_unpackhi_epi16(a0, a1);
            let b2 = _mm_unpacklo_epi16(a2, a3);
            let b3 = _mm_unpackhi_epi16(a2, a3);
            // All 8 planes of two groups per register.
            let c = [
                _mm_unpacklo_epi32(b0, b2),
                _mm_unpackhi_epi32(b0, b2),
                _mm_unpacklo_epi32(b1, b3),
                _mm_unpackhi_epi32(b1, b3),
            ];
            let eye = _mm_set1_epi64x(0x8040_2010_0804_0201_u64 as i64);
            for (q, x) in c.iter().enumerate() {
                let bits = if GFNI {
                    _mm_gf2p8affine_epi64_epi8::<0>(eye, *x)
                } else {
                    transpose_lanes(*x)
                };
                _mm_storeu_si128(dst.add(p + 16 * q).cast(), bits);
            }
        }
        p += 64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both builds of the backward kernel (the dispatcher takes only the GFNI one where
    /// it can) against the scalar untranspose, planes further apart than a row needs.
    #[test]
    fn untranspose_builds_match_scalar() {
        let (len, stride) = (192, 40);
        let inp = crate::filters::tests::data(8 * stride, 9);
        let mut want = vec![0; len];
        crate::filters::bitshuffle::untranspose_row_scalar(&inp, 8, stride, &mut want, 0);
        let gfni = crate::cpu::has(crate::cpu::Feature::Gfni);
        for build in 0..if gfni { 2 } else { 1 } {
            let mut out = vec![0xEE; len];
            // SAFETY: GFNI detected for build 1; planes 8 + k * stride hold len / 8 = 24
            // bytes each within `inp`; `out` holds len bytes, a multiple of 64.
            unsafe {
                let p = inp.as_ptr().add(8);
                if build == 0 {
                    untranspose_kernel(p, stride, out.as_mut_ptr(), len);
                } else {
                    untranspose_kernel_gfni(p, stride, out.as_mut_ptr(), len);
                }
            }
            assert!(out == want, "untranspose build {build}");
        }
    }
}
