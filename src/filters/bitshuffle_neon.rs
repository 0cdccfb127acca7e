//! NEON bit-transpose kernels for one byte row of a tile, for aarch64 (64 bytes per step).
//!
//! NEON has no `movemask`, so both directions work on 8-byte groups: each 64-bit lane
//! (one group of 8 elements) is transposed as an 8x8 bit matrix with shift/xor/mask steps,
//! after which byte `k` of the lane is plane `k` of the group. Eight groups then form an
//! 8x8 byte matrix (group x plane) that three whole-stream splits (`uzp1`/`uzp2`, see
//! `shuffle_neon`) transpose into plane-major order, ready to store 8 bytes per plane.
//! Backward runs the same steps in reverse: three interleaves, then the lane transposes
//! (an 8x8 bit transpose is its own inverse).

use core::arch::aarch64::*;

use super::shuffle_neon::{unzip, zip};

/// Transposes the longest prefix of `row` that is a multiple of 64 bytes; returns its
/// length. Same contract as `bitshuffle::transpose_row`.
pub(crate) fn transpose_row(row: &[u8], out: &mut [u8], base: usize, stride: usize) -> usize {
    let len = row.len() / 64 * 64;
    if len == 0 {
        return 0;
    }
    assert!(stride >= len / 8 && base + 7 * stride + len / 8 <= out.len());
    // SAFETY: NEON is baseline on aarch64. The kernel reads `len <= row.len()` bytes of
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
    // SAFETY: NEON is baseline on aarch64. The kernel reads bytes `base + k * stride + g`,
    // `k < 8`, `g < len / 8` (in bounds by the assertion) and writes `len <= row.len()`
    // bytes of `row`.
    unsafe { untranspose_kernel(inp.as_ptr().add(base), stride, row.as_mut_ptr(), len) };
    len
}

/// 8x8 bit transpose of each 64-bit lane (see `bitshuffle::transpose8x8`).
#[inline(always)]
#[allow(unused_unsafe)]
fn transpose_lanes(x: uint8x16_t) -> uint8x16_t {
    // SAFETY: NEON register arithmetic only, baseline on aarch64.
    unsafe {
        let x = vreinterpretq_u64_u8(x);
        let m1 = vdupq_n_u64(0x00AA_00AA_00AA_00AA);
        let m2 = vdupq_n_u64(0x0000_CCCC_0000_CCCC);
        let m3 = vdupq_n_u64(0x0000_0000_F0F0_F0F0);
        let t = vandq_u64(veorq_u64(x, vshrq_n_u64::<7>(x)), m1);
        let x = veorq_u64(x, veorq_u64(t, vshlq_n_u64::<7>(t)));
        let t = vandq_u64(veorq_u64(x, vshrq_n_u64::<14>(x)), m2);
        let x = veorq_u64(x, veorq_u64(t, vshlq_n_u64::<14>(t)));
        let t = vandq_u64(veorq_u64(x, vshrq_n_u64::<28>(x)), m3);
        vreinterpretq_u8_u64(veorq_u64(x, veorq_u64(t, vshlq_n_u64::<28>(t))))
    }
}

/// # Safety
/// `src` readable for `len` bytes (`len % 64 == 0`); `out + k * stride` writable for
/// `len / 8` bytes for every `k < 8`.
#[target_feature(enable = "neon")]
unsafe fn transpose_kernel(src: *const u8, len: usize, out: *mut u8, stride: usize) {
    let mut p = 0;
    while p < len {
        let g = p / 8;
        // SAFETY: p + 64 <= len, and g + 8 <= len / 8 (caller contract).
        unsafe {
            let mut v = [vdupq_n_u8(0); 4];
            for (q, x) in v.iter_mut().enumerate() {
                *x = transpose_lanes(vld1q_u8(src.add(p + 16 * q)));
            }
            // Group-major (group * 8 + plane) to plane-major (plane * 8 + group).
            for _ in 0..3 {
                unzip(&mut v);
            }
            for (q, x) in v.iter().enumerate() {
                vst1_u8(out.add(2 * q * stride + g), vget_low_u8(*x));
                vst1_u8(out.add((2 * q + 1) * stride + g), vget_high_u8(*x));
            }
        }
        p += 64;
    }
}

/// # Safety
/// `inp + k * stride` readable for `len / 8` bytes for every `k < 8`; `dst` writable for
/// `len` bytes; `len % 64 == 0`.
#[target_feature(enable = "neon")]
unsafe fn untranspose_kernel(inp: *const u8, stride: usize, dst: *mut u8, len: usize) {
    let mut p = 0;
    while p < len {
        let g = p / 8;
        // SAFETY: g + 8 <= len / 8, so each 8-byte plane load is in bounds, and the
        // 64 bytes written at p are below len (caller contract).
        unsafe {
            let ld = |k: usize| vld1_u8(inp.add(k * stride + g));
            let mut v = [
                vcombine_u8(ld(0), ld(1)),
                vcombine_u8(ld(2), ld(3)),
                vcombine_u8(ld(4), ld(5)),
                vcombine_u8(ld(6), ld(7)),
            ];
            // Plane-major back to group-major.
            for _ in 0..3 {
                zip(&mut v);
            }
            for (q, x) in v.iter().enumerate() {
                vst1q_u8(dst.add(p + 16 * q), transpose_lanes(*x));
            }
        }
        p += 64;
    }
}
