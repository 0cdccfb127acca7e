//! AVX-512 bit-transpose kernels for one byte row of a tile (x86-64 with AVX-512F,
//! AVX-512BW and GFNI), 64 bytes (forward) or 512 bytes (backward) at a time; the AVX2
//! kernels finish what is left.
//!
//! Forward: `vpmovb2m` takes the top bit of 64 bytes at once, so each of the 8 planes gets
//! 8 bytes per step (AVX2's `vpmovmskb` gives 4).
//!
//! Backward: the 8 planes' bytes of 64 groups are interleaved into one 64-bit word per
//! group with three rounds of unpacks (lane-wise, as in the AVX2 kernel), and each word's
//! 8x8 bit matrix is transposed by one `gf2p8affineqb`: with the constant
//! `0x8040201008040201` as the transformed operand and the word as the matrix, the
//! instruction returns the transpose of the byte-reversed word, so the planes are loaded
//! in reverse order. A 4x4 transpose of 128-bit lanes puts the groups back in order.

use core::arch::x86_64::*;

use super::bitshuffle_avx2;

/// Whether the running CPU has everything these kernels use.
#[inline]
pub(crate) fn detected() -> bool {
    crate::cpu::has(crate::cpu::Feature::Avx512f)
        && crate::cpu::has(crate::cpu::Feature::Avx512bw)
        && crate::cpu::has(crate::cpu::Feature::Gfni)
}

/// Same contract as `bitshuffle_sse2::transpose_row`; returns the bytes of `row` done.
pub(crate) fn transpose_row(row: &[u8], out: &mut [u8], base: usize, stride: usize) -> usize {
    let len = row.len() / 64 * 64;
    if len == 0 || !detected() {
        return bitshuffle_avx2::transpose_row(row, out, base, stride);
    }
    assert!(stride >= len / 8 && base + 7 * stride + len / 8 <= out.len());
    // SAFETY: the CPU features were detected above. The kernel reads `len <= row.len()`
    // bytes of `row` and writes bytes `base + k * stride + g`, `k < 8`, `g < len / 8`, all
    // below `out.len()` by the assertion.
    unsafe { transpose_kernel(row.as_ptr(), len, out.as_mut_ptr().add(base), stride) };
    len + bitshuffle_avx2::transpose_row(&row[len..], out, base + len / 8, stride)
}

/// Same contract as `bitshuffle_sse2::untranspose_row`; returns the bytes of `row` done.
pub(crate) fn untranspose_row(inp: &[u8], base: usize, stride: usize, row: &mut [u8]) -> usize {
    let len = row.len() / 512 * 512;
    if len == 0 || !detected() {
        return bitshuffle_avx2::untranspose_row(inp, base, stride, row);
    }
    assert!(base + 7 * stride + len / 8 <= inp.len());
    // SAFETY: the CPU features were detected above. The kernel reads bytes
    // `base + k * stride + g`, `k < 8`, `g < len / 8` (in bounds by the assertion) and
    // writes `len <= row.len()` bytes of `row`.
    unsafe { untranspose_kernel(inp.as_ptr().add(base), stride, row.as_mut_ptr(), len) };
    len + bitshuffle_avx2::untranspose_row(inp, base + len / 8, stride, &mut row[len..])
}

/// # Safety
/// AVX-512F/BW available; `src` readable for `len` bytes (`len % 64 == 0`);
/// `out + k * stride` writable for `len / 8` bytes for every `k < 8`.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn transpose_kernel(src: *const u8, len: usize, out: *mut u8, stride: usize) {
    let mut p = 0;
    while p < len {
        let g = p / 8;
        // SAFETY: p + 64 <= len and g + 8 <= len / 8 (caller contract).
        unsafe {
            let mut v = _mm512_loadu_si512(src.add(p).cast());
            for k in (0..8).rev() {
                let bits = _mm512_movepi8_mask(v).to_le_bytes();
                core::ptr::copy_nonoverlapping(bits.as_ptr(), out.add(k * stride + g), 8);
                v = _mm512_add_epi8(v, v);
            }
        }
        p += 64;
    }
}

/// # Safety
/// AVX-512F/BW and GFNI available; `inp + k * stride` readable for `len / 8` bytes for
/// every `k < 8`; `dst` writable for `len` bytes; `len % 512 == 0`.
#[target_feature(enable = "avx512f,avx512bw,gfni")]
unsafe fn untranspose_kernel(inp: *const u8, stride: usize, dst: *mut u8, len: usize) {
    let mut p = 0;
    while p < len {
        let g = p / 8;
        // SAFETY: g + 64 <= len / 8, so each 64-byte plane load is in bounds, and the 512
        // bytes written at p are below len (caller contract).
        unsafe {
            // Plane 7 first: the bit transpose below wants each group's word byte-reversed.
            let mut pl = [_mm512_setzero_si512(); 8];
            for (k, x) in pl.iter_mut().enumerate() {
                *x = _mm512_loadu_si512(inp.add((7 - k) * stride + g).cast());
            }
            // Lane L of every register covers groups 16L..16L+16 of this step.
            let a0 = _mm512_unpacklo_epi8(pl[0], pl[1]);
            let a1 = _mm512_unpackhi_epi8(pl[0], pl[1]);
            let a2 = _mm512_unpacklo_epi8(pl[2], pl[3]);
            let a3 = _mm512_unpackhi_epi8(pl[2], pl[3]);
            let a4 = _mm512_unpacklo_epi8(pl[4], pl[5]);
            let a5 = _mm512_unpackhi_epi8(pl[4], pl[5]);
            let a6 = _mm512_unpacklo_epi8(pl[6], pl[7]);
            let a7 = _mm512_unpackhi_epi8(pl[6], pl[7]);
            let b0 = _mm512_unpacklo_epi16(a0, a2);
            let b1 = _mm512_unpackhi_epi16(a0, a2);
            let b2 = _mm512_unpacklo_epi16(a4, a6);
            let b3 = _mm512_unpackhi_epi16(a4, a6);
            let b4 = _mm512_unpacklo_epi16(a1, a3);
            let b5 = _mm512_unpackhi_epi16(a1, a3);
            let b6 = _mm512_unpacklo_epi16(a5, a7);
            let b7 = _mm512_unpackhi_epi16(a5, a7);
            // Register j holds, in lane L, the words of groups 16L+2j and 16L+2j+1.
            let c = [
                _mm512_unpacklo_epi32(b0, b2),
                _mm512_unpackhi_epi32(b0, b2),
                _mm512_unpacklo_epi32(b1, b3),
                _mm512_unpackhi_epi32(b1, b3),
                _mm512_unpacklo_epi32(b4, b6),
                _mm512_unpackhi_epi32(b4, b6),
                _mm512_unpacklo_epi32(b5, b7),
                _mm512_unpackhi_epi32(b5, b7),
            ];
            let eye = _mm512_set1_epi64(0x8040_2010_0804_0201_u64 as i64);
            let t = c.map(|x| _mm512_gf2p8affine_epi64_epi8::<0>(eye, x));
            // Output bytes 128L + 16j.. come from lane L of t[j]: gather the lanes.
            for h in 0..2 {
                let (t0, t1, t2, t3) = (t[4 * h], t[4 * h + 1], t[4 * h + 2], t[4 * h + 3]);
                let u0 = _mm512_shuffle_i64x2::<0b01_00_01_00>(t0, t1);
                let u1 = _mm512_shuffle_i64x2::<0b11_10_11_10>(t0, t1);
                let u2 = _mm512_shuffle_i64x2::<0b01_00_01_00>(t2, t3);
                let u3 = _mm512_shuffle_i64x2::<0b11_10_11_10>(t2, t3);
                let o = [
                    _mm512_shuffle_i64x2::<0b10_00_10_00>(u0, u2),
                    _mm512_shuffle_i64x2::<0b11_01_11_01>(u0, u2),
                    _mm512_shuffle_i64x2::<0b10_00_10_00>(u1, u3),
                    _mm512_shuffle_i64x2::<0b11_01_11_01>(u1, u3),
                ];
                for (l, x) in o.iter().enumerate() {
                    _mm512_storeu_si512(dst.add(p + 128 * l + 64 * h).cast(), *x);
                }
            }
        }
        p += 512;
    }
}
