//! Copies of hyper-rectangles between dense C-order buffers of different (padded) shapes.

use crate::copy::copy_bytes;
use super::{strides_of, MAX_DIM};
use crate::error::{Error, Result};

/// One side of a copy: a dense C-order buffer of `pad_shape` items and the corner where the
/// copied region starts.
pub struct Region<'a> {
    /// The buffer's shape, in items (padding included).
    pub pad_shape: &'a [i64],
    /// Where the region starts in the buffer, per dimension.
    pub start: &'a [i64],
}

/// Byte range touched by a region of `shape` items at `start` inside a buffer of
/// `pad_shape`, checked to lie inside it. `None` when the region is empty.
fn extent(itemsize: usize, side: &Region, shape: &[i64]) -> Result<Option<(usize, usize, [i64; MAX_DIM])>> {
    let nd = shape.len();
    if side.pad_shape.len() != nd || side.start.len() != nd {
        return Err(Error::InvalidParam);
    }
    if shape.contains(&0) {
        return Ok(None);
    }
    for ((&start, &len), &pad) in side.start.iter().zip(shape).zip(side.pad_shape) {
        let end = start.checked_add(len).ok_or(Error::InvalidParam)?;
        if start < 0 || len < 0 || end > pad {
            return Err(Error::InvalidParam);
        }
    }
    let st = strides_of(side.pad_shape);
    let first: i64 = (0..nd).map(|i| side.start[i] * st[i]).sum();
    let last: i64 = first + (0..nd).map(|i| (shape[i] - 1) * st[i]).sum::<i64>();
    let lo = usize::try_from(first).map_err(|_| Error::InvalidParam)?.checked_mul(itemsize).ok_or(Error::InvalidParam)?;
    let hi = usize::try_from(last + 1).map_err(|_| Error::InvalidParam)?.checked_mul(itemsize).ok_or(Error::InvalidParam)?;
    Ok(Some((lo, hi, st)))
}

/// Copy the region of `shape` items from `src` to `dst`; both sides are bounds-checked
/// against their buffers first, so nothing is written on error.
pub fn copy_region(itemsize: usize, shape: &[i64], src: &[u8], s: &Region, dst: &mut [u8], d: &Region) -> Result<()> {
    let nd = shape.len();
    let (Some((slo, shi, sst)), Some((dlo, dhi, dst_st))) = (extent(itemsize, s, shape)?, extent(itemsize, d, shape)?)
    else {
        return Ok(());
    };
    if shi > src.len() || dhi > dst.len() {
        return Err(Error::InvalidParam);
    }
    if nd == 0 {
        dst[dlo..dlo + itemsize].copy_from_slice(&src[slo..slo + itemsize]);
        return Ok(());
    }
    // Merge trailing dimensions that are contiguous on both sides into one run.
    let mut inner = nd - 1;
    let mut run = shape[nd - 1];
    while inner > 0 && shape[inner] == s.pad_shape[inner] && shape[inner] == d.pad_shape[inner] {
        inner -= 1;
        run *= shape[inner];
    }
    let run_bytes = run as usize * itemsize;
    if inner == 0 {
        copy_bytes(&mut dst[dlo..dlo + run_bytes], &src[slo..slo + run_bytes]);
        return Ok(());
    }
    // Runs along the outer dimensions (0..inner), walked with offsets kept up to date by
    // adding and rewinding byte strides; the innermost of them is a plain loop.
    let mut sstep = [0usize; MAX_DIM];
    let mut dstep = [0usize; MAX_DIM];
    for i in 0..inner {
        sstep[i] = sst[i] as usize * itemsize;
        dstep[i] = dst_st[i] as usize * itemsize;
    }
    let last = inner - 1;
    let rows = shape[last] as usize;
    let mut idx = [0i64; MAX_DIM];
    let (mut so, mut dof) = (slo, dlo);
    loop {
        let (mut s1, mut d1) = (so, dof);
        for _ in 0..rows {
            copy_run(&mut dst[d1..d1 + run_bytes], &src[s1..s1 + run_bytes]);
            s1 += sstep[last];
            d1 += dstep[last];
        }
        // Next position over dimensions 0..last.
        let mut i = last;
        loop {
            if i == 0 {
                return Ok(());
            }
            i -= 1;
            idx[i] += 1;
            so += sstep[i];
            dof += dstep[i];
            if idx[i] < shape[i] {
                break;
            }
            so -= sstep[i] * shape[i] as usize;
            dof -= dstep[i] * shape[i] as usize;
            idx[i] = 0;
        }
    }
}

/// Copy one run: short runs (block rows of a few items) as two overlapping fixed-size
/// moves, which compile to a couple of vector loads and stores instead of a call.
#[inline(always)]
fn copy_run(dst: &mut [u8], src: &[u8]) {
    let n = src.len();
    fn pair<const W: usize>(dst: &mut [u8], src: &[u8]) {
        let n = src.len();
        let a: [u8; W] = src[..W].try_into().expect("W bytes");
        let b: [u8; W] = src[n - W..].try_into().expect("W bytes");
        dst[..W].copy_from_slice(&a);
        dst[n - W..].copy_from_slice(&b);
    }
    match n {
        8..=16 => pair::<8>(dst, src),
        17..=32 => pair::<16>(dst, src),
        33..=64 => pair::<32>(dst, src),
        _ => copy_bytes(dst, src),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_a_window_between_paddings() {
        // src 3x4 holding 0..12, copy rows 1..3, cols 1..3 into a 4x5 at (2,3)? out of
        // bounds: 2+2 <= 4 rows, 3+2 <= 5 cols -> fits.
        let src: Vec<u8> = (0..12).collect();
        let mut dst = vec![0xffu8; 20];
        copy_region(
            1,
            &[2, 2],
            &src,
            &Region { pad_shape: &[3, 4], start: &[1, 1] },
            &mut dst,
            &Region { pad_shape: &[4, 5], start: &[2, 3] },
        )
        .unwrap();
        assert_eq!(&dst[13..15], &[5, 6]);
        assert_eq!(&dst[18..20], &[9, 10]);
        assert_eq!(dst.iter().filter(|&&b| b != 0xff).count(), 4);
    }

    #[test]
    fn out_of_bounds_writes_nothing() {
        let src = vec![1u8; 16];
        let mut dst = vec![0u8; 16];
        let r = copy_region(
            2,
            &[2, 3],
            &src,
            &Region { pad_shape: &[2, 4], start: &[0, 0] },
            &mut dst,
            &Region { pad_shape: &[2, 4], start: &[0, 2] },
        );
        assert_eq!(r, Err(Error::InvalidParam));
        assert!(dst.iter().all(|&b| b == 0));
    }

    /// Windows of every row length from 1 to 80 bytes (the short-run moves and the plain
    /// copy) in 3 dimensions, item by item against a naive copy.
    #[test]
    fn windows_of_every_row_length() {
        let pad = [5i64, 6, 100];
        for itemsize in [1usize, 2, 4] {
            let src: Vec<u8> = (0..5 * 6 * 100 * itemsize).map(|i| (i * 31 % 253) as u8).collect();
            for len in 1..=(80 / itemsize as i64) {
                let shape = [3i64, 4, len];
                let (s0, d0) = ([1i64, 2, 3], [2i64, 1, 0]);
                let mut dst = vec![0u8; src.len()];
                let s = Region { pad_shape: &pad, start: &s0 };
                let d = Region { pad_shape: &pad, start: &d0 };
                copy_region(itemsize, &shape, &src, &s, &mut dst, &d).unwrap();
                let mut want = vec![0u8; src.len()];
                for a in 0..shape[0] {
                    for b in 0..shape[1] {
                        for c in 0..shape[2] {
                            let si = (((s0[0] + a) * 6 + s0[1] + b) * 100 + s0[2] + c) as usize * itemsize;
                            let di = (((d0[0] + a) * 6 + d0[1] + b) * 100 + d0[2] + c) as usize * itemsize;
                            want[di..di + itemsize].copy_from_slice(&src[si..si + itemsize]);
                        }
                    }
                }
                assert_eq!(dst, want, "itemsize {itemsize} row {len}");
            }
        }
    }

    #[test]
    fn merges_contiguous_dims() {
        let src: Vec<u8> = (0..24).collect();
        let mut dst = vec![0u8; 24];
        let r = Region { pad_shape: &[2, 3, 4], start: &[0, 0, 0] };
        copy_region(1, &[2, 3, 4], &src, &r, &mut dst, &Region { pad_shape: &[2, 3, 4], start: &[0, 0, 0] }).unwrap();
        assert_eq!(src, dst);
    }
}
