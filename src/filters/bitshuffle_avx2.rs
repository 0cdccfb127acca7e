//! AVX2 bit-transpose kernels for one byte row of a tile: the SSE2 scheme on 32 bytes
//! at a time (see `bitshuffle_sse2`), with the SSE2 kernels finishing what is left.

use core::arch::x86_64::*;

use super::bitshuffle_sse2;

/// Same contract as `bitshuffle_sse2::transpose_row`; returns the bytes of `row` done
/// (a multiple of 16).
pub(crate) fn transpose_row(row: &[u8], out: &mut [u8], base: usize, stride: usize) -> usize {
    let len = row.len() / 32 * 32;
    if len == 0 || !std::arch::is_x86_feature_detected!("avx2") {
        return bitshuffle_sse2::transpose_row(row, out, base, stride);
    }
    assert!(stride >= len / 8 && base + 7 * stride + len / 8 <= out.len());
    // SAFETY: AVX2 was detected above. The kernel reads `len <= row.len()` bytes of `row`
    // and writes bytes `base + k * stride + g`, `k < 8`, `g < len / 8`, all below
    // `out.len()` by the assertion.
    unsafe { transpose_kernel(row.as_ptr(), len, out.as_mut_ptr().add(base), stride) };
    len + bitshuffle_sse2::transpose_row(&row[len..], out, base + len / 8, stride)
}

/// Same contract as `bitshuffle_sse2::untranspose_row`; returns the bytes of `row` done
/// (a multiple of 64).
pub(crate) fn untranspose_row(inp: &[u8], base: usize, stride: usize, row: &mut [u8]) -> usize {
    let len = row.len() / 256 * 256;
    if len == 0 || !std::arch::is_x86_feature_detected!("avx2") {
        return bitshuffle_sse2::untranspose_row(inp, base, stride, row);
    }
    assert!(base + 7 * stride + len / 8 <= inp.len());
    // SAFETY: AVX2 was detected above. The kernel reads bytes `base + k * stride + g`,
    // `k < 8`, `g < len / 8` (in bounds by the assertion) and writes `len <= row.len()`
    // bytes of `row`.
    unsafe { untranspose_kernel(inp.as_ptr().add(base), stride, row.as_mut_ptr(), len) };
    len + bitshuffle_sse2::untranspose_row(inp, base + len / 8, stride, &mut row[len..])
}

/// # Safety
/// AVX2 available; `src` readable for `len` bytes (`len % 32 == 0`); `out + k * stride`
/// writable for `len / 8` bytes for every `k < 8`.
#[target_feature(enable = "avx2")]
unsafe fn transpose_kernel(src: *const u8, len: usize, out: *mut u8, stride: usize) {
    let mut p = 0;
    while p < len {
        let g = p / 8;
        // SAFETY: p + 32 <= len and g + 4 <= len / 8 (caller contract).
        unsafe {
            let mut v = _mm256_loadu_si256(src.add(p).cast());
            for k in (0..8).rev() {
                let bits = (_mm256_movemask_epi8(v) as u32).to_le_bytes();
                core::ptr::copy_nonoverlapping(bits.as_ptr(), out.add(k * stride + g), 4);
                v = _mm256_add_epi8(v, v);
            }
        }
        p += 32;
    }
}

/// 8x8 bit transpose of each 64-bit lane (see `bitshuffle::transpose8x8`).
#[inline]
#[target_feature(enable = "avx2")]
#[allow(unused_unsafe)]
unsafe fn transpose_lanes(x: __m256i) -> __m256i {
    // SAFETY: register arithmetic only; AVX2 is enabled for this function.
    unsafe {
        let m1 = _mm256_set1_epi64x(0x00AA_00AA_00AA_00AA);
        let m2 = _mm256_set1_epi64x(0x0000_CCCC_0000_CCCC);
        let m3 = _mm256_set1_epi64x(0x0000_0000_F0F0_F0F0);
        let t = _mm256_and_si256(_mm256_xor_si256(x, _mm256_srli_epi64(x, 7)), m1);
        let x = _mm256_xor_si256(x, _mm256_xor_si256(t, _mm256_slli_epi64(t, 7)));
        let t = _mm256_and_si256(_mm256_xor_si256(x, _mm256_srli_epi64(x, 14)), m2);
        let x = _mm256_xor_si256(x, _mm256_xor_si256(t, _mm256_slli_epi64(t, 14)));
        let t = _mm256_and_si256(_mm256_xor_si256(x, _mm256_srli_epi64(x, 28)), m3);
        _mm256_xor_si256(x, _mm256_xor_si256(t, _mm256_slli_epi64(t, 28)))
    }
}

/// # Safety
/// AVX2 available; `inp + k * stride` readable for `len / 8` bytes for every `k < 8`;
/// `dst` writable for `len` bytes; `len % 256 == 0`.
#[target_feature(enable = "avx2")]
unsafe fn untranspose_kernel(inp: *const u8, stride: usize, dst: *mut u8, len: usize) {
    let mut p = 0;
    while p < len {
        let g = p / 8;
        // SAFETY: g + 32 <= len / 8, so each 32-byte plane load is in bounds, and the
        // 256 bytes written at p are below len (caller contract).
        unsafe {
            let mut pl = [_mm256_setzero_si256(); 8];
            for (k, x) in pl.iter_mut().enumerate() {
                *x = _mm256_loadu_si256(inp.add(k * stride + g).cast());
            }
            // Each lane holds 16 groups; the low lane groups 0..16, the high lane 16..32.
            let a0 = _mm256_unpacklo_epi8(pl[0], pl[1]);
            let a1 = _mm256_unpackhi_epi8(pl[0], pl[1]);
            let a2 = _mm256_unpacklo_epi8(pl[2], pl[3]);
            let a3 = _mm256_unpackhi_epi8(pl[2], pl[3]);
            let a4 = _mm256_unpacklo_epi8(pl[4], pl[5]);
            let a5 = _mm256_unpackhi_epi8(pl[4], pl[5]);
            let a6 = _mm256_unpacklo_epi8(pl[6], pl[7]);
            let a7 = _mm256_unpackhi_epi8(pl[6], pl[7]);
            let b0 = _mm256_unpacklo_epi16(a0, a2);
            let b1 = _mm256_unpackhi_epi16(a0, a2);
            let b2 = _mm256_unpacklo_epi16(a4, a6);
            let b3 = _mm256_unpackhi_epi16(a4, a6);
            let b4 = _mm256_unpacklo_epi16(a1, a3);
            let b5 = _mm256_unpackhi_epi16(a1, a3);
            let b6 = _mm256_unpacklo_epi16(a5, a7);
            let b7 = _mm256_unpackhi_epi16(a5, a7);
            // Register q holds groups 2q, 2q+1 (low lane) and 16+2q, 17+2q (high lane).
            let c = [
                _mm256_unpacklo_epi32(b0, b2),
                _mm256_unpackhi_epi32(b0, b2),
                _mm256_unpacklo_epi32(b1, b3),
                _mm256_unpackhi_epi32(b1, b3),
                _mm256_unpacklo_epi32(b4, b6),
                _mm256_unpackhi_epi32(b4, b6),
                _mm256_unpacklo_epi32(b5, b7),
                _mm256_unpackhi_epi32(b5, b7),
            ];
            for q in 0..4 {
                let lo = transpose_lanes(c[2 * q]);
                let hi = transpose_lanes(c[2 * q + 1]);
                // Groups 4q..4q+4 and 16+4q..20+4q, 32 contiguous bytes each.
                _mm256_storeu_si256(
                    dst.add(p + 32 * q).cast(),
                    _mm256_permute2x128_si256(lo, hi, 0x20),
                );
                _mm256_storeu_si256(
                    dst.add(p + 128 + 32 * q).cast(),
                    _mm256_permute2x128_si256(lo, hi, 0x31),
                );
            }
        }
        p += 256;
    }
}
