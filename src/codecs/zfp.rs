//! The ZFP codec plugins (33 fixed accuracy, 34 fixed precision, 35 fixed rate): lossy
//! compression of float32/float64 blocks of 1 to 4 dimensions, the block shape taken from
//! the super-chunk's "b2nd" metalayer. ZFP itself runs through [`zfp_lib`](super::zfp_lib).
//!
//! `compcode_meta` sets the mode's parameter as the reference reads it: accuracy
//! 10^(meta as a signed byte); precision meta + 5, 7, 9 or 11 bit planes for 1 to 4
//! dimensions (at most 64); rate meta percent of the item's bits per value.

use super::registry::{CodecCallContext, UserCodec};
use super::zfp_lib::{self as z, Mode};

/// `BLOSC_CODEC_ZFP_FIXED_ACCURACY` (33): the meta byte sets the absolute error bound.
pub const ZFP_ACC: u8 = 33;
/// `BLOSC_CODEC_ZFP_FIXED_PRECISION` (34): the meta byte sets the bit planes kept.
pub const ZFP_PREC: u8 = 34;
/// `BLOSC_CODEC_ZFP_FIXED_RATE` (35): the meta byte sets the bits per value, as a percentage.
pub const ZFP_RATE: u8 = 35;

/// Most dimensions ZFP handles.
const MAX_DIM: usize = 4;
/// Most bit planes.
const MAX_PREC: u32 = 64;
const FAILURE: i32 = -1;

/// One of the three ZFP codecs as a [`UserCodec`].
pub struct Zfp {
    /// Which one: [`ZFP_ACC`], [`ZFP_PREC`] or [`ZFP_RATE`].
    pub id: u8,
}

impl Zfp {
    fn mode(&self, meta: u8, ndim: usize, typesize: i32) -> Mode {
        match self.id {
            ZFP_ACC => Mode::Accuracy(10f64.powf(meta as i8 as f64)),
            ZFP_PREC => Mode::Precision((meta as u32 + 3 + 2 * ndim as u32).min(MAX_PREC)),
            _ => Mode::Rate(meta as f64 / 100.0 * typesize as f64 * 8.0),
        }
    }
}

/// The block shape, when the metalayer has 1 to 4 dimensions.
fn block_dims(ctx: &CodecCallContext) -> Option<Vec<i32>> {
    let b2 = ctx.b2nd?;
    let nd = b2.ndim as usize;
    (1..=MAX_DIM).contains(&nd).then(|| b2.blockshape().to_vec())
}

impl UserCodec for Zfp {
    fn id(&self) -> u8 {
        self.id
    }
    fn name(&self) -> &str {
        match self.id {
            ZFP_ACC => "zfp_acc",
            ZFP_PREC => "zfp_prec",
            _ => "zfp_rate",
        }
    }
    fn version(&self) -> u8 {
        1
    }
    fn complib(&self) -> u8 {
        self.id
    }
    fn encode(&self, src: &[u8], dest: &mut [u8], meta: u8, ctx: &CodecCallContext) -> i32 {
        // Outside a super-chunk the reference's plugin declines (the block is stored).
        if !ctx.in_schunk {
            return 0;
        }
        let Some(bs) = block_dims(ctx) else { return FAILURE };
        if bs.iter().any(|&d| d < 4) {
            return FAILURE;
        }
        let ts = ctx.typesize;
        let block_bytes = bs.iter().fold(ts as i64, |a, &d| a * d as i64);
        // Only whole blocks (not split streams) are compressed.
        if block_bytes != src.len() as i64 {
            return 0;
        }
        if ts != 4 && ts != 8 {
            return FAILURE;
        }
        let dims: Vec<usize> = bs.iter().map(|&d| d as usize).collect();
        match z::compress(self.mode(meta, dims.len(), ts), ts == 8, &dims, src, dest) {
            Some(n) if n < src.len() => n as i32,
            _ => 0,
        }
    }
    fn decode(&self, src: &[u8], dest: &mut [u8], meta: u8, ctx: &CodecCallContext) -> i32 {
        if !ctx.in_schunk {
            return 0;
        }
        let Some(b2) = ctx.b2nd else { return FAILURE };
        let nd = b2.ndim as usize;
        let ts = ctx.schunk_typesize.unwrap_or(0);
        if !(1..=MAX_DIM).contains(&nd) || ts <= 0 {
            return FAILURE;
        }
        let mut bytes = ts as i64;
        for &d in b2.blockshape() {
            if d <= 0 {
                return FAILURE;
            }
            bytes = bytes.saturating_mul(d as i64);
        }
        if bytes > dest.len() as i64 {
            return FAILURE;
        }
        if ts != 4 && ts != 8 {
            return FAILURE;
        }
        let dims: Vec<usize> = b2.blockshape().iter().map(|&d| d as usize).collect();
        let out = &mut dest[..bytes as usize];
        if !z::decompress(self.mode(meta, nd, ts), ts == 8, &dims, src, out) {
            return 0;
        }
        dest.len() as i32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codecs::registry::B2ndShapes;

    fn ctx(block: &[i32], ts: i32) -> CodecCallContext {
        let mut b = B2ndShapes { ndim: block.len() as u8, ..Default::default() };
        b.blockshape[..block.len()].copy_from_slice(block);
        CodecCallContext { typesize: ts, schunk_typesize: Some(ts), in_schunk: true, b2nd: Some(b), ..Default::default() }
    }

    #[test]
    fn every_mode_round_trips_within_its_promise() {
        let block = [8, 12, 5];
        let n = 8 * 12 * 5;
        let vals: Vec<f64> = (0..n).map(|i| (i as f64 * 0.05).sin() * 10.0).collect();
        let src: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
        let c = ctx(&block, 8);
        for (id, meta) in [(ZFP_ACC, (-3i8) as u8), (ZFP_PREC, 30), (ZFP_RATE, 50)] {
            let codec = Zfp { id };
            let mut out = vec![0u8; src.len()];
            let k = codec.encode(&src, &mut out, meta, &c);
            assert!(k > 0, "mode {id}");
            let mut back = vec![0u8; src.len()];
            assert_eq!(codec.decode(&out[..k as usize], &mut back, meta, &c), src.len() as i32);
            let err = back
                .chunks_exact(8)
                .zip(&vals)
                .map(|(b, v)| (f64::from_le_bytes(b.try_into().unwrap()) - v).abs())
                .fold(0.0, f64::max);
            assert!(err < 0.01, "mode {id}: error {err}");
        }
    }

    #[test]
    fn fixed_rate_above_the_references_limit_is_sized_for_the_rate() {
        // The reference sizes its buffer without the rate and corrupts its heap here.
        let block = [20, 13];
        let vals: Vec<f32> = (0..260).map(|i| (i as f32 * 0.3).cos() * 1e3).collect();
        let src: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
        let c = ctx(&block, 4);
        for meta in [107u8, 120, 200, 255] {
            let mut out = vec![0u8; src.len() * 3];
            let k = Zfp { id: ZFP_RATE }.encode(&src, &mut out, meta, &c);
            // At these rates the stream is not smaller than the data: stored instead.
            assert_eq!(k, 0, "meta {meta}");
        }
        let mut out = vec![0u8; src.len()];
        assert!(Zfp { id: ZFP_RATE }.encode(&src, &mut out, 50, &c) > 0);
    }

    #[test]
    fn bad_parameters_fail() {
        let src = vec![0u8; 16 * 16 * 2];
        let mut out = vec![0u8; src.len()];
        // typesize 2, blocks thinner than 4, no metalayer.
        assert_eq!(Zfp { id: ZFP_ACC }.encode(&src, &mut out, 0, &ctx(&[16, 16], 2)), FAILURE);
        assert_eq!(Zfp { id: ZFP_ACC }.encode(&src, &mut out, 0, &ctx(&[2, 128], 2)), FAILURE);
        let mut c = ctx(&[16, 16], 2);
        c.b2nd = None;
        assert_eq!(Zfp { id: ZFP_RATE }.encode(&src, &mut out, 0, &c), FAILURE);
        // Garbage streams decode to something, never past the buffers.
        let c = ctx(&[16, 8], 4);
        for meta in [0u8, 100, 200] {
            for id in [ZFP_ACC, ZFP_PREC, ZFP_RATE] {
                let junk: Vec<u8> = (0..40).map(|i| (i * 37 + 11) as u8).collect();
                let _ = Zfp { id }.decode(&junk, &mut out[..512], meta, &c);
            }
        }
    }
}
