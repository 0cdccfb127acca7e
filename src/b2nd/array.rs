//! [`Array`]: an n-dimensional array in a super-chunk, for Rust programs.
//!
//! The same operations the C face's `b2nd_*` functions run ([`super::ops`]), on a
//! super-chunk the array owns. Files and frames are the reference's: an array saved here is
//! opened by c-blosc2's `b2nd_open` and the other way round.

use std::path::Path;

use super::layout::Layout;
use super::ops::{self, Buffer, Fill};
use super::{Geometry, MAX_DIM};
use crate::chunk::{CompressParams, DecompressParams};
use crate::error::{Error, Result};
use crate::schunk::{Own, StorageSpec, SuperChunk};

/// How to make a new array: its shapes, item type, compression and storage.
///
/// `cparams.typesize` is the item size; the block size is always the blockshape's bytes (one
/// compressed block per block of items).
#[derive(Debug, Clone)]
pub struct ArraySpec {
    /// Items along each dimension.
    pub shape: Vec<i64>,
    /// Items along each dimension of a chunk (what one super-chunk chunk holds).
    pub chunkshape: Vec<i32>,
    /// Items along each dimension of a block (what one compressed block holds).
    pub blockshape: Vec<i32>,
    /// NumPy's dtype string; `|S<typesize>` (raw bytes) when `None`.
    pub dtype: Option<String>,
    /// The format of `dtype` (0: NumPy).
    pub dtype_format: i8,
    /// Compression of the chunks (its `typesize` is the item size).
    pub cparams: CompressParams,
    /// Decompression of the chunks.
    pub dparams: DecompressParams,
    /// In memory or on disk, contiguous or sparse.
    pub storage: StorageSpec,
    /// Fixed-size metalayers to add besides "b2nd".
    pub metalayers: Vec<(String, Vec<u8>)>,
}

impl ArraySpec {
    /// An in-memory array of `typesize`-byte items with the default compression (blosclz,
    /// level 5, byte shuffle).
    pub fn new(shape: &[i64], chunkshape: &[i32], blockshape: &[i32], typesize: i32) -> ArraySpec {
        let cparams = CompressParams { typesize, ..CompressParams::default() };
        ArraySpec {
            shape: shape.to_vec(),
            chunkshape: chunkshape.to_vec(),
            blockshape: blockshape.to_vec(),
            dtype: None,
            dtype_format: 0,
            cparams,
            dparams: DecompressParams::default(),
            storage: StorageSpec::default(),
            metalayers: Vec::new(),
        }
    }

    fn layout(&self) -> Result<Layout> {
        super::validate(&self.shape, &self.chunkshape, &self.blockshape)?;
        let g = Geometry::new(&self.shape, &self.chunkshape, &self.blockshape)?;
        let dtype = self.dtype.clone().unwrap_or_else(|| format!("|S{}", self.cparams.typesize));
        Ok(Layout::new(g, Some(dtype.into_bytes()), self.dtype_format))
    }

    fn schunk(&self) -> Result<SuperChunk> {
        let g = Geometry::new(&self.shape, &self.chunkshape, &self.blockshape)?;
        let mut cparams = self.cparams.clone();
        cparams.blocksize = g.blocknitems.checked_mul(cparams.typesize).ok_or(Error::InvalidParam)?;
        let dparams = DecompressParams { typesize: cparams.typesize, ..self.dparams.clone() };
        SuperChunk::new(cparams, dparams, &self.storage)
    }
}

/// An n-dimensional array of fixed-size items, chunked and compressed in a super-chunk.
///
/// ```
/// use blosc2::b2nd::{Array, ArraySpec};
///
/// // A 100 x 50 array of f64, in 20 x 25 chunks of 10 x 25 blocks.
/// let spec = ArraySpec::new(&[100, 50], &[20, 25], &[10, 25], 8);
/// let mut a = Array::zeros(&spec)?;
/// let row: Vec<u8> = (0..50).flat_map(|i| (i as f64).to_le_bytes()).collect();
/// a.set_slice(&[7, 0], &[8, 50], &row)?;
/// assert_eq!(a.slice(&[7, 0], &[8, 50])?, row);
/// assert_eq!(a.slice(&[8, 0], &[9, 1])?, vec![0u8; 8]);
///
/// // Frames are c-blosc2's: this one could be handed to `b2nd_from_cframe`.
/// let frame = a.to_frame()?;
/// let mut b = blosc2::b2nd::Array::from_frame(&frame)?;
/// assert_eq!(b.shape(), &[100, 50]);
/// assert_eq!(b.slice(&[7, 0], &[8, 50])?, row);
/// # Ok::<(), blosc2::Error>(())
/// ```
pub struct Array {
    sc: SuperChunk,
    layout: Layout,
}

impl Array {
    fn create(spec: &ArraySpec, fill: &Fill) -> Result<Array> {
        let mut layout = spec.layout()?;
        let mut sc = spec.schunk()?;
        ops::create(&Own::new(&mut sc), &mut layout, &spec.metalayers, fill)?;
        Ok(Array { sc, layout })
    }

    /// An array of zeros (stored as special chunks: nothing is compressed).
    pub fn zeros(spec: &ArraySpec) -> Result<Array> {
        Array::create(spec, &Fill::Special(crate::chunk::Special::Zero))
    }

    /// An array whose items are undefined until written (read as zeros here).
    pub fn uninit(spec: &ArraySpec) -> Result<Array> {
        Array::create(spec, &Fill::Special(crate::chunk::Special::Uninit))
    }

    /// An array of NaNs; the items must be 4- or 8-byte floats.
    pub fn nans(spec: &ArraySpec) -> Result<Array> {
        if spec.cparams.typesize != 4 && spec.cparams.typesize != 8 {
            return Err(Error::Data);
        }
        Array::create(spec, &Fill::Special(crate::chunk::Special::Nan))
    }

    /// An array with every item equal to `value` (`typesize` bytes).
    pub fn full(spec: &ArraySpec, value: &[u8]) -> Result<Array> {
        if value.len() != spec.cparams.typesize.max(0) as usize {
            return Err(Error::InvalidParam);
        }
        Array::create(spec, &Fill::Value(value.to_vec()))
    }

    /// An array holding `data`, the whole array in C order.
    pub fn from_buffer(spec: &ArraySpec, data: &[u8]) -> Result<Array> {
        let mut a = Array::zeros(spec)?;
        let shape = a.shape().to_vec();
        if (data.len() as u128) < a.layout.geometry.nitems as u128 * a.typesize() as u128 {
            return Err(Error::InvalidParam);
        }
        a.set_slice(&vec![0; shape.len()], &shape, data)?;
        Ok(a)
    }

    /// The array a super-chunk with a "b2nd" (or older "caterva") metalayer holds.
    pub fn from_schunk(mut sc: SuperChunk) -> Result<Array> {
        let layout = Layout::read(&Own::new(&mut sc))?;
        Ok(Array { sc, layout })
    }

    /// An array from a contiguous frame (copied into memory).
    pub fn from_frame(frame: &[u8]) -> Result<Array> {
        Array::from_schunk(SuperChunk::from_buffer_copy(frame)?)
    }

    /// Open the array stored at `path` (a frame file, or a sparse frame directory).
    pub fn open(path: &Path) -> Result<Array> {
        Array::from_schunk(SuperChunk::open(path, 0)?)
    }

    /// Open the array whose frame starts at byte `offset` of the file `path`.
    pub fn open_offset(path: &Path, offset: u64) -> Result<Array> {
        Array::from_schunk(SuperChunk::open(path, offset)?)
    }

    /// The array as one contiguous frame.
    pub fn to_frame(&mut self) -> Result<Vec<u8>> {
        Ok(self.sc.to_buffer()?.into_owned())
    }

    /// Write the array as a frame file at `path` (which must not exist); its length.
    pub fn save(&mut self, path: &Path) -> Result<i64> {
        if path.exists() {
            return Err(Error::SchunkCopy);
        }
        self.sc.to_file(path)
    }

    /// The super-chunk holding the chunks.
    pub fn schunk(&self) -> &SuperChunk {
        &self.sc
    }

    /// Give up the array, keeping its super-chunk.
    pub fn into_schunk(self) -> SuperChunk {
        self.sc
    }

    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.layout.geometry.ndim
    }

    /// Items along each dimension.
    pub fn shape(&self) -> &[i64] {
        self.layout.geometry.shape()
    }

    /// Items along each dimension of a chunk.
    pub fn chunkshape(&self) -> &[i32] {
        self.layout.geometry.chunkshape()
    }

    /// Items along each dimension of a block.
    pub fn blockshape(&self) -> &[i32] {
        self.layout.geometry.blockshape()
    }

    /// Every size derived from the shapes (strides, padded shapes, item counts).
    pub fn geometry(&self) -> &Geometry {
        &self.layout.geometry
    }

    /// Bytes per item.
    pub fn typesize(&self) -> usize {
        self.sc.typesize().max(0) as usize
    }

    /// The dtype string, if the metalayer records one.
    pub fn dtype(&self) -> Option<&[u8]> {
        self.layout.dtype.as_deref()
    }

    /// Re-read the shape if another handle of the same frame file changed it; whether it did.
    pub fn refresh(&mut self) -> Result<bool> {
        let h = Own::new(&mut self.sc);
        ops::refresh(&h, &mut self.layout).map(|(changed, _)| changed)
    }

    /// Items `[start, stop)` in C order.
    pub fn slice(&mut self, start: &[i64], stop: &[i64]) -> Result<Vec<u8>> {
        let shape = self.slice_shape(start, stop)?;
        let n: i64 = shape.iter().product();
        let mut out = vec![0u8; n as usize * self.typesize()];
        self.slice_into(start, stop, &mut out, &shape)?;
        Ok(out)
    }

    /// The shape of `[start, stop)`, checked to lie inside the array.
    fn slice_shape(&mut self, start: &[i64], stop: &[i64]) -> Result<Vec<i64>> {
        let h = Own::new(&mut self.sc);
        ops::slice_shape(&h, &mut self.layout, start, stop)
    }

    /// Items `[start, stop)` into `buf`, a C-order array of `bufshape` (at least the
    /// slice's shape; the rest of it is zeroed).
    pub fn slice_into(&mut self, start: &[i64], stop: &[i64], buf: &mut [u8], bufshape: &[i64]) -> Result<()> {
        let h = Own::new(&mut self.sc);
        let (_, fresh) = ops::refresh(&h, &mut self.layout)?;
        ops::get_slice(&h, &self.layout, start, stop, buf, bufshape, fresh)
    }

    /// The whole array in C order.
    pub fn to_vec(&mut self) -> Result<Vec<u8>> {
        let shape = self.shape().to_vec();
        self.slice(&vec![0; shape.len()], &shape)
    }

    /// Write `data` (C order, the slice's shape) into items `[start, stop)`.
    pub fn set_slice(&mut self, start: &[i64], stop: &[i64], data: &[u8]) -> Result<()> {
        let shape: Vec<i64> = start.iter().zip(stop).map(|(a, b)| b - a).collect();
        let h = Own::new(&mut self.sc);
        ops::refresh(&h, &mut self.layout)?;
        ops::set_slice(&h, &self.layout, start, stop, data, &shape)
    }

    /// Items at every combination of `selection[i]` (indices along dimension `i`), in C
    /// order of the selection.
    pub fn orthogonal(&mut self, selection: &[&[i64]]) -> Result<Vec<u8>> {
        let shape: Vec<i64> = selection.iter().map(|s| s.len() as i64).collect();
        let n: i64 = shape.iter().product();
        let mut out = vec![0u8; n as usize * self.typesize()];
        let h = Own::new(&mut self.sc);
        ops::refresh(&h, &mut self.layout)?;
        ops::orthogonal(&h, &self.layout, selection, Buffer::Out(&mut out), &shape)?;
        Ok(out)
    }

    /// Write `data` (C order of the selection) to the items at every combination of
    /// `selection[i]`.
    pub fn set_orthogonal(&mut self, selection: &[&[i64]], data: &[u8]) -> Result<()> {
        let shape: Vec<i64> = selection.iter().map(|s| s.len() as i64).collect();
        let h = Own::new(&mut self.sc);
        ops::refresh(&h, &mut self.layout)?;
        ops::orthogonal(&h, &self.layout, selection, Buffer::In(data), &shape)
    }

    /// The items at C-order positions `coords`, one after the other.
    pub fn items(&mut self, coords: &[i64]) -> Result<Vec<u8>> {
        let mut out = vec![0u8; coords.len() * self.typesize()];
        let h = Own::new(&mut self.sc);
        ops::refresh(&h, &mut self.layout)?;
        ops::get_sparse(&h, &self.layout, coords, &mut out)?;
        Ok(out)
    }

    /// Change the shape: grow (with zeros) or shrink at the end of each dimension, or at
    /// `start` by whole chunks.
    pub fn resize(&mut self, shape: &[i64], start: Option<&[i64]>) -> Result<()> {
        ops::resize(&Own::new(&mut self.sc), &mut self.layout, shape, start)
    }

    /// Insert `data` (whole hyper-slabs across the other dimensions) before position `at`
    /// of `axis`.
    pub fn insert(&mut self, data: &[u8], axis: usize, at: i64) -> Result<()> {
        ops::insert(&Own::new(&mut self.sc), &mut self.layout, data, axis, at)
    }

    /// Append `data` (whole hyper-slabs across the other dimensions) at the end of `axis`.
    pub fn append(&mut self, data: &[u8], axis: usize) -> Result<()> {
        ops::append(&Own::new(&mut self.sc), &mut self.layout, data, axis)
    }

    /// Remove `len` items along `axis` from `start`.
    pub fn delete(&mut self, axis: usize, start: i64, len: i64) -> Result<()> {
        ops::delete(&Own::new(&mut self.sc), &mut self.layout, axis, start, len)
    }

    /// A new array made as `spec` says (its shape is ignored) holding items
    /// `[start, stop)` of this one.
    pub fn copy_slice(&mut self, spec: &ArraySpec, start: &[i64], stop: &[i64]) -> Result<Array> {
        let shape = self.slice_shape(start, stop)?;
        let spec = ArraySpec { shape, ..spec.clone() };
        let mut out = Array::zeros(&spec)?;
        {
            let (src, dst) = (Own::new(&mut self.sc), Own::new(&mut out.sc));
            ops::copy_items(&src, &mut self.layout, &dst, &out.layout, start)?;
        }
        Ok(out)
    }

    /// Append `other`'s items after this array's along `axis` (every other dimension must
    /// match, and the item sizes).
    pub fn concatenate(&mut self, other: &mut Array, axis: usize) -> Result<()> {
        let g1 = self.layout.geometry.clone();
        let g2 = other.layout.geometry.clone();
        ops::check_concatenation(&g1, self.typesize(), &g2, other.typesize(), axis)?;
        let (dst, src) = (Own::new(&mut self.sc), Own::new(&mut other.sc));
        ops::concat_into(&dst, &mut self.layout, &src, &mut other.layout, axis, g1.chunkshape(), g1.shape[axis])
    }

    /// The array seen without its dimensions of length 1, as a frame of its own (the
    /// reference's `b2nd_squeeze` view, saved).
    pub fn squeezed_frame(&mut self) -> Result<Vec<u8>> {
        let g = &self.layout.geometry;
        let drop: Vec<bool> = (0..g.ndim).map(|i| g.shape[i] == 1).collect();
        let view = self.layout.squeezed(&drop)?;
        self.view_frame(&view)
    }

    /// The array seen with new dimensions of length 1 where `new_dim` is true (the
    /// reference's `b2nd_expand_dims` view, saved as a frame of its own).
    pub fn expanded_frame(&mut self, new_dim: &[bool]) -> Result<Vec<u8>> {
        if new_dim.len() > MAX_DIM {
            return Err(Error::InvalidParam);
        }
        let view = self.layout.expanded(new_dim)?;
        self.view_frame(&view)
    }

    fn view_frame(&mut self, view: &Layout) -> Result<Vec<u8>> {
        let h = Own::new(&mut self.sc);
        if !ops::viewable(&h)? {
            return Err(Error::InvalidParam);
        }
        ops::view_frame(&h, view)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ramp(n: usize, ts: usize) -> Vec<u8> {
        (0..n * ts).map(|i| (i / ts) as u8 ^ (i % ts) as u8).collect()
    }

    #[test]
    fn buffer_round_trip_and_edits() {
        let spec = ArraySpec::new(&[9, 7], &[4, 3], &[2, 2], 2);
        let data = ramp(63, 2);
        let mut a = Array::from_buffer(&spec, &data).unwrap();
        assert_eq!(a.to_vec().unwrap(), data);
        // Row 2 (14 bytes) out.
        let row = a.slice(&[2, 0], &[3, 7]).unwrap();
        assert_eq!(row, data[28..42]);
        // Inside the array only whole chunks (4 rows) move; at the end any count does.
        assert_eq!(a.delete(0, 2, 1), Err(Error::InvalidParam));
        a.delete(0, 4, 4).unwrap();
        assert_eq!(a.shape(), &[5, 7]);
        assert_eq!(a.slice(&[4, 0], &[5, 7]).unwrap(), data[112..126]);
        a.append(&row, 0).unwrap();
        assert_eq!(a.shape(), &[6, 7]);
        assert_eq!(a.slice(&[5, 0], &[6, 7]).unwrap(), row);
        let four_rows = [&row[..], &row, &row, &row].concat();
        a.insert(&four_rows, 0, 0).unwrap();
        assert_eq!(a.shape(), &[10, 7]);
        assert_eq!(a.slice(&[0, 0], &[4, 7]).unwrap(), four_rows);
        assert_eq!(a.slice(&[4, 0], &[5, 7]).unwrap(), data[..14]);
        a.resize(&[5, 2], None).unwrap();
        assert_eq!(a.to_vec().unwrap(), [&row[..4], &row[..4], &row[..4], &row[..4], &data[..4]].concat());
    }

    #[test]
    fn frames_keep_everything() {
        let mut spec = ArraySpec::new(&[5, 5, 5], &[2, 5, 3], &[1, 5, 3], 4);
        spec.dtype = Some("<i4".into());
        spec.metalayers.push(("units".into(), b"m/s".to_vec()));
        let mut a = Array::full(&spec, &7i32.to_le_bytes()).unwrap();
        let mut b = Array::from_frame(&a.to_frame().unwrap()).unwrap();
        assert_eq!(b.dtype(), Some(&b"<i4"[..]));
        assert_eq!(b.schunk().meta_get("units").unwrap(), b"m/s");
        assert_eq!(b.items(&[0, 124]).unwrap(), [7i32.to_le_bytes(), 7i32.to_le_bytes()].concat());
        assert_eq!(Array::full(&spec, &[1]).err(), Some(Error::InvalidParam));
    }

    #[test]
    fn bad_arguments_are_errors() {
        let spec = ArraySpec::new(&[4, 4], &[2, 2], &[1, 1], 1);
        let mut a = Array::zeros(&spec).unwrap();
        assert!(a.slice(&[0, 0], &[5, 1]).is_err());
        assert!(a.slice(&[2, 0], &[1, 1]).is_err());
        assert!(a.set_slice(&[0, 0], &[2, 2], &[0u8; 3]).is_err());
        assert!(a.delete(2, 0, 1).is_err());
        assert!(a.resize(&[4], None).is_err());
        let bad = ArraySpec::new(&[4, 4], &[0, 2], &[1, 1], 1);
        assert!(Array::zeros(&bad).is_err());
    }

    #[test]
    fn concatenate_and_views() {
        let spec = ArraySpec::new(&[4, 1, 3], &[2, 1, 3], &[2, 1, 3], 1);
        let data = ramp(12, 1);
        let mut a = Array::from_buffer(&spec, &data).unwrap();
        let mut b = Array::from_buffer(&spec, &data).unwrap();
        a.concatenate(&mut b, 0).unwrap();
        assert_eq!(a.shape(), &[8, 1, 3]);
        assert_eq!(a.to_vec().unwrap(), [&data[..], &data[..]].concat());
        let mut sq = Array::from_frame(&a.squeezed_frame().unwrap()).unwrap();
        assert_eq!(sq.shape(), &[8, 3]);
        assert_eq!(sq.to_vec().unwrap(), a.to_vec().unwrap());
        let mut part = a.copy_slice(&ArraySpec::new(&[], &[1, 1, 2], &[1, 1, 1], 1), &[1, 0, 1], &[3, 1, 3]).unwrap();
        assert_eq!(part.to_vec().unwrap(), vec![data[4], data[5], data[7], data[8]]);
    }
}
