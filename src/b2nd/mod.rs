//! N-dimensional arrays on top of super-chunks (the `b2nd.h` API), as a safe core.
//!
//! An array of `shape` is cut into chunks of `chunkshape` (one super-chunk chunk each, the
//! grid walked in C order) and every chunk into blocks of `blockshape` (one compressed
//! block each, also in C order). Edge chunks and blocks are padded: a chunk always holds
//! `extchunkshape` items (chunkshape rounded up to whole blocks), stored block after block,
//! each block in C order. [`Geometry`] holds the derived sizes and strides the C struct
//! exposes, [`meta`] the "b2nd" metalayer, [`copy`] strided copies between n-dim buffers and
//! [`mod@slice`] reading and writing hyper-rectangles through any [`slice::ChunkIo`].

pub mod array;
pub mod copy;
pub mod layout;
/// The "b2nd" metalayer format (kept with the codecs, its lowest reader).
pub use crate::codecs::b2nd_meta as meta;
pub mod ops;
pub mod ortho;
pub mod resize;
pub mod slice;
pub mod store;

pub use array::{Array, ArraySpec};
pub use layout::Layout;
pub use ops::Fill;

use crate::error::{Error, Result};

pub use crate::codecs::b2nd_meta::MAX_DIM;

/// Shape of an array with every derived size, as `b2nd_array_t` exposes them.
///
/// Dimensions past `ndim` hold 1 in the shapes (so products ignore them) and 0 in the strides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Geometry {
    /// Number of dimensions (at most [`MAX_DIM`]).
    pub ndim: usize,
    /// Items along each dimension.
    pub shape: [i64; MAX_DIM],
    /// Items along each dimension of a chunk (one super-chunk chunk).
    pub chunkshape: [i32; MAX_DIM],
    /// Items along each dimension of a block (one compressed block of a chunk).
    pub blockshape: [i32; MAX_DIM],
    /// `shape` rounded up to whole chunks.
    pub extshape: [i64; MAX_DIM],
    /// `chunkshape` rounded up to whole blocks.
    pub extchunkshape: [i64; MAX_DIM],
    /// Items in the array.
    pub nitems: i64,
    /// Items in `extshape` (the array padded to whole chunks).
    pub extnitems: i64,
    /// Items in `extchunkshape` (a chunk padded to whole blocks): what a chunk stores.
    pub extchunknitems: i64,
    /// Items in a chunk.
    pub chunknitems: i32,
    /// Items in a block.
    pub blocknitems: i32,
    /// C-order strides, in items, of the array's `shape`.
    pub item_array_strides: [i64; MAX_DIM],
    /// C-order strides, in items, of `chunkshape`.
    pub item_chunk_strides: [i64; MAX_DIM],
    /// C-order strides, in items, of `extchunkshape` (positions inside a stored chunk).
    pub item_extchunk_strides: [i64; MAX_DIM],
    /// C-order strides, in items, of `blockshape` (positions inside a block).
    pub item_block_strides: [i64; MAX_DIM],
    /// C-order strides of the grid of blocks in a chunk.
    pub block_chunk_strides: [i64; MAX_DIM],
    /// Chunk strides in the chunk grid (the reference multiplies by `extshape * chunkshape`
    /// instead of dividing; no code of either library reads this field, so it is right here).
    pub chunk_array_strides: [i64; MAX_DIM],
}

/// Checks shared by contexts and arrays: no negative sizes, and a zero blockshape only where
/// the chunkshape is zero too (the reference's placeholder for empty arrays).
pub fn validate(shape: &[i64], chunkshape: &[i32], blockshape: &[i32]) -> Result<()> {
    if shape.len() > MAX_DIM || chunkshape.len() != shape.len() || blockshape.len() != shape.len() {
        return Err(Error::InvalidParam);
    }
    for i in 0..shape.len() {
        if shape[i] < 0 || chunkshape[i] < 0 || blockshape[i] < 0 {
            return Err(Error::InvalidParam);
        }
        if blockshape[i] == 0 && chunkshape[i] != 0 {
            return Err(Error::InvalidParam);
        }
        // A non-empty dimension needs chunks to live in (the reference divides by zero).
        if shape[i] != 0 && chunkshape[i] == 0 {
            return Err(Error::InvalidParam);
        }
    }
    Ok(())
}

fn mul64(a: i64, b: i64) -> Result<i64> {
    if a < 0 || b < 0 {
        return Err(Error::InvalidParam);
    }
    a.checked_mul(b).ok_or(Error::InvalidParam)
}

fn mul32(a: i32, b: i32) -> Result<i32> {
    if a < 0 || b < 0 {
        return Err(Error::InvalidParam);
    }
    a.checked_mul(b).ok_or(Error::InvalidParam)
}

impl Geometry {
    /// Derive every size of an array; `InvalidParam` for inconsistent or overflowing shapes.
    pub fn new(shape: &[i64], chunkshape: &[i32], blockshape: &[i32]) -> Result<Geometry> {
        validate(shape, chunkshape, blockshape)?;
        let ndim = shape.len();
        let mut g = Geometry {
            ndim,
            shape: [1; MAX_DIM],
            chunkshape: [1; MAX_DIM],
            blockshape: [1; MAX_DIM],
            extshape: [1; MAX_DIM],
            extchunkshape: [1; MAX_DIM],
            nitems: 1,
            extnitems: 1,
            extchunknitems: 1,
            chunknitems: 1,
            blocknitems: 1,
            item_array_strides: [0; MAX_DIM],
            item_chunk_strides: [0; MAX_DIM],
            item_extchunk_strides: [0; MAX_DIM],
            item_block_strides: [0; MAX_DIM],
            block_chunk_strides: [0; MAX_DIM],
            chunk_array_strides: [0; MAX_DIM],
        };
        for i in 0..ndim {
            let (s, c, b) = (shape[i], chunkshape[i], blockshape[i]);
            g.shape[i] = s;
            g.chunkshape[i] = c;
            g.blockshape[i] = b;
            if c == 0 {
                g.extshape[i] = 0;
                g.extchunkshape[i] = 0;
            } else {
                let c64 = c as i64;
                g.extshape[i] = if s % c64 == 0 {
                    s
                } else {
                    s.checked_add(c64 - s % c64).ok_or(Error::InvalidParam)?
                };
                let b64 = b as i64;
                g.extchunkshape[i] = if c64 % b64 == 0 { c64 } else { c64 + b64 - c64 % b64 };
            }
        }
        for i in 0..ndim {
            g.nitems = mul64(g.nitems, g.shape[i])?;
            g.extnitems = mul64(g.extnitems, g.extshape[i])?;
            g.extchunknitems = mul64(g.extchunknitems, g.extchunkshape[i])?;
            g.chunknitems = mul32(g.chunknitems, g.chunkshape[i])?;
            g.blocknitems = mul32(g.blocknitems, g.blockshape[i])?;
        }
        if ndim > 0 {
            let last = ndim - 1;
            g.item_array_strides[last] = 1;
            g.item_chunk_strides[last] = 1;
            g.item_extchunk_strides[last] = 1;
            g.item_block_strides[last] = 1;
            g.block_chunk_strides[last] = 1;
            g.chunk_array_strides[last] = 1;
            for i in (0..last).rev() {
                let n = i + 1;
                if g.shape[n] == 0 || g.chunkshape[n] == 0 || g.blockshape[n] == 0 {
                    continue; // strides into an empty dimension are moot: left 0
                }
                // Checked: with an empty dimension elsewhere the products above are 0 and
                // say nothing about these (a damaged metalayer can claim any sizes).
                g.item_array_strides[i] = mul64(g.item_array_strides[n], g.shape[n])?;
                g.item_chunk_strides[i] = mul64(g.item_chunk_strides[n], g.chunkshape[n] as i64)?;
                g.item_extchunk_strides[i] = mul64(g.item_extchunk_strides[n], g.extchunkshape[n])?;
                g.item_block_strides[i] = mul64(g.item_block_strides[n], g.blockshape[n] as i64)?;
                g.block_chunk_strides[i] = mul64(g.block_chunk_strides[n], g.extchunkshape[n] / g.blockshape[n] as i64)?;
                g.chunk_array_strides[i] = mul64(g.chunk_array_strides[n], g.extshape[n] / g.chunkshape[n] as i64)?;
            }
        }
        Ok(g)
    }

    /// The shape, `ndim` dimensions.
    pub fn shape(&self) -> &[i64] {
        &self.shape[..self.ndim]
    }

    /// The chunk shape, `ndim` dimensions.
    pub fn chunkshape(&self) -> &[i32] {
        &self.chunkshape[..self.ndim]
    }

    /// The block shape, `ndim` dimensions.
    pub fn blockshape(&self) -> &[i32] {
        &self.blockshape[..self.ndim]
    }

    /// Chunks along each dimension.
    pub fn chunks_per_dim(&self) -> [i64; MAX_DIM] {
        let mut n = [1i64; MAX_DIM];
        for ((n, &ext), &cs) in n.iter_mut().zip(&self.extshape).zip(&self.chunkshape).take(self.ndim) {
            *n = if cs == 0 { 0 } else { ext / cs as i64 };
        }
        n
    }

    /// Blocks along each dimension of a chunk.
    pub fn blocks_per_dim(&self) -> [i64; MAX_DIM] {
        let mut n = [1i64; MAX_DIM];
        for ((n, &ext), &bs) in n.iter_mut().zip(&self.extchunkshape).zip(&self.blockshape).take(self.ndim) {
            *n = if bs == 0 { 0 } else { ext / bs as i64 };
        }
        n
    }

    /// Number of chunks of the super-chunk behind a non-empty array.
    pub fn nchunks(&self) -> i64 {
        if self.nitems == 0 {
            return 0;
        }
        self.extnitems / self.chunknitems.max(1) as i64
    }

    /// Number of chunks in the chunk grid (also for arrays with no items).
    pub fn nchunks_grid(&self) -> i64 {
        self.chunks_per_dim()[..self.ndim].iter().product()
    }

    /// Bytes of one (padded) chunk, checked against what a chunk can hold.
    pub fn chunk_nbytes(&self, typesize: i32) -> Result<i32> {
        let n = mul64(self.extchunknitems, typesize as i64)?;
        if n > i32::MAX as i64 - crate::chunk::header::MAX_OVERHEAD as i64 {
            return Err(Error::MaxBufsizeExceeded);
        }
        Ok(n as i32)
    }
}

/// C-order strides of a dense buffer of `shape`.
pub fn strides_of(shape: &[i64]) -> [i64; MAX_DIM] {
    let mut st = [0i64; MAX_DIM];
    let mut acc = 1i64;
    for i in (0..shape.len()).rev() {
        st[i] = acc;
        acc = acc.saturating_mul(shape[i]);
    }
    st
}

/// The multi-index of linear position `i` in a C-order grid of `dims`.
pub fn unravel(mut i: i64, dims: &[i64], out: &mut [i64]) {
    for d in (0..dims.len()).rev() {
        if dims[d] == 0 {
            out[d] = 0;
            continue;
        }
        out[d] = i % dims[d];
        i /= dims[d];
    }
}

/// The multi-index of linear position `i` in a C-order array of `shape`, as
/// `blosc2_unidim_to_multidim` gives it: the first index is not wrapped, so a position past
/// the end shows up there, and a dimension of length 0 (or strides that overflow, which wrap)
/// gives 0 instead of a division by zero.
pub fn unravel_unbounded(i: i64, shape: &[i64], out: &mut [i64]) {
    let n = shape.len().min(out.len());
    let mut strides = vec![1i64; n];
    for j in (0..n.saturating_sub(1)).rev() {
        strides[j] = strides[j + 1].wrapping_mul(shape[j + 1]);
    }
    for j in 0..n {
        let rem = if j == 0 { i } else { i.checked_rem(strides[j - 1]).unwrap_or(0) };
        out[j] = rem.checked_div(strides[j]).unwrap_or(0);
    }
}

/// The linear position of `index` with `strides` (wrapping, as the reference's C arithmetic).
pub fn ravel(index: &[i64], strides: &[i64]) -> i64 {
    index.iter().zip(strides).fold(0i64, |a, (x, s)| a.wrapping_add(x.wrapping_mul(*s)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edge_chunks_and_blocks_are_padded() {
        let g = Geometry::new(&[10, 7], &[4, 5], &[3, 2]).unwrap();
        assert_eq!(&g.extshape[..2], &[12, 10]);
        assert_eq!(&g.extchunkshape[..2], &[6, 6]);
        assert_eq!((g.nitems, g.extnitems, g.extchunknitems), (70, 120, 36));
        assert_eq!((g.chunknitems, g.blocknitems), (20, 6));
        assert_eq!(g.item_array_strides[0], 7);
        assert_eq!(g.item_extchunk_strides[0], 6);
        assert_eq!(g.block_chunk_strides[0], 3);
        assert_eq!(g.chunk_array_strides[0], 2);
        assert_eq!(g.nchunks(), 6);
        assert_eq!(g.shape[2], 1);
    }

    #[test]
    fn bad_shapes_are_rejected() {
        assert_eq!(Geometry::new(&[-1], &[1], &[1]), Err(Error::InvalidParam));
        assert_eq!(Geometry::new(&[4], &[2], &[0]), Err(Error::InvalidParam));
        assert_eq!(Geometry::new(&[4], &[0], &[0]), Err(Error::InvalidParam));
        assert!(Geometry::new(&[0], &[0], &[0]).is_ok());
        assert_eq!(Geometry::new(&[i64::MAX, 4], &[3, 1], &[1, 1]), Err(Error::InvalidParam));
        assert_eq!(Geometry::new(&[1 << 40, 1 << 40], &[1, 1], &[1, 1]), Err(Error::InvalidParam));
    }

    #[test]
    fn zero_dims() {
        let g = Geometry::new(&[], &[], &[]).unwrap();
        assert_eq!((g.nitems, g.extchunknitems, g.nchunks()), (1, 1, 1));
    }

    #[test]
    fn unravel_is_c_order() {
        let mut o = [0i64; 3];
        unravel(23, &[2, 3, 4], &mut o);
        assert_eq!(o, [1, 2, 3]);
    }

    #[test]
    fn unbounded_index_conversions() {
        let mut idx = [0i64; 3];
        unravel_unbounded(37, &[3, 4, 5], &mut idx);
        assert_eq!(idx, [1, 3, 2]);
        unravel_unbounded(100, &[3, 4, 5], &mut idx);
        assert_eq!(idx, [5, 0, 0]);
        // A zero length makes the strides before it zero: those indexes read 0.
        unravel_unbounded(7, &[3, 0, 5], &mut idx);
        assert_eq!(idx, [0, 0, 2]);
        assert_eq!(ravel(&[1, 3, 2], &[20, 5, 1]), 37);
        assert_eq!(ravel(&[], &[]), 0);
    }
}
