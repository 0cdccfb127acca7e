//! What an array is beyond its chunks: its geometry and item type, as the "b2nd" metalayer
//! records them, and the views (squeeze, expand_dims) that re-describe the same chunks.

use super::{meta, Geometry, MAX_DIM};
use crate::error::{Error, Result};
use crate::schunk::Holder;

/// The dtype the metalayer records for an array created without one (`B2ND_DEFAULT_DTYPE`).
pub const DEFAULT_DTYPE: &[u8] = b"|u1";

/// Geometry and item type of an array, plus the super-chunk's change count it was read at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// Shapes and every size derived from them.
    pub geometry: Geometry,
    /// The dtype string (NumPy's by default); `None` for arrays read from dtype-less
    /// "caterva" metalayers.
    pub dtype: Option<Vec<u8>>,
    /// 0 for NumPy dtype strings.
    pub dtype_format: i8,
    /// [`crate::schunk::SuperChunk::change_tick`] when the geometry was last read or
    /// written: a different value means another handle may have changed the shape.
    pub last_tick: i64,
    /// A view (squeezed or expanded): its geometry is its own, not the metalayer's (which
    /// describes the viewed array), so it is never refreshed and cannot change shape.
    pub view: bool,
}

impl Layout {
    /// A layout for `geometry` with a dtype.
    pub fn new(geometry: Geometry, dtype: Option<Vec<u8>>, dtype_format: i8) -> Layout {
        Layout { geometry, dtype, dtype_format, last_tick: 0, view: false }
    }

    /// The dtype as the metalayer stores it (the default when there is none).
    pub fn dtype_or_default(&self) -> &[u8] {
        self.dtype.as_deref().unwrap_or(DEFAULT_DTYPE)
    }

    /// The "b2nd" metalayer describing this layout.
    pub fn encode(&self) -> Result<Vec<u8>> {
        let g = &self.geometry;
        meta::encode(g.shape(), g.chunkshape(), g.blockshape(), self.dtype_or_default(), self.dtype_format)
    }

    /// A layout from a "b2nd" (or older "caterva") metalayer's bytes.
    pub fn decode(smeta: &[u8]) -> Result<Layout> {
        let (m, _) = meta::decode(smeta)?;
        let geometry = Geometry::new(&m.shape, &m.chunkshape, &m.blockshape)?;
        let (dtype, dtype_format) = match m.dtype {
            Some((f, d)) => (Some(d), f),
            None => (None, 0),
        };
        Ok(Layout { geometry, dtype, dtype_format, last_tick: 0, view: false })
    }

    /// The layout a super-chunk's "b2nd" (or "caterva") metalayer describes
    /// (`BLOSC2_ERROR_METALAYER_NOT_FOUND` without one), at its current change count.
    pub fn read<H: Holder>(h: &H) -> Result<Layout> {
        let (smeta, tick) = h.hold(|s| Ok((stored_meta(s)?, s.change_tick())))?;
        let mut l = Layout::decode(&smeta)?;
        l.last_tick = tick;
        Ok(l)
    }

    /// Whether a copy chunked as `chunkshape` / `blockshape` can take this array's frame as
    /// it is: the same chunking, and not a view (a view's super-chunk describes the viewed
    /// array, so its items are copied instead).
    pub fn copies_as_frame(&self, chunkshape: &[i32], blockshape: &[i32]) -> bool {
        !self.view && self.geometry.chunkshape() == chunkshape && self.geometry.blockshape() == blockshape
    }

    /// The same chunks seen without the dimensions marked in `drop` (each of length 1).
    pub fn squeezed(&self, drop: &[bool]) -> Result<Layout> {
        let g = &self.geometry;
        if drop.len() != g.ndim {
            return Err(Error::InvalidParam);
        }
        let (mut s, mut c, mut b) = (Vec::new(), Vec::new(), Vec::new());
        for (i, &d) in drop.iter().enumerate() {
            if d {
                if g.shape[i] != 1 {
                    return Err(Error::InvalidIndex);
                }
                // Dropping a dimension keeps the chunk layout only when it spans one item; the
                // reference's view of a wider one reads the wrong items.
                if g.extchunkshape[i] != 1 {
                    return Err(Error::InvalidParam);
                }
            } else {
                s.push(g.shape[i]);
                c.push(g.chunkshape[i]);
                b.push(g.blockshape[i]);
            }
        }
        self.with_geometry(Geometry::new(&s, &c, &b)?)
    }

    /// The same chunks seen with `new_dim.len()` dimensions: new ones of length 1 where
    /// `new_dim[i]` is true, this layout's own (all of them, in order) elsewhere.
    pub fn expanded(&self, new_dim: &[bool]) -> Result<Layout> {
        let g = &self.geometry;
        if new_dim.len() > MAX_DIM {
            return Err(Error::InvalidParam);
        }
        let (mut s, mut c, mut b) = (Vec::new(), Vec::new(), Vec::new());
        let mut old = 0usize;
        for &added in new_dim {
            if added {
                s.push(1);
                c.push(1);
                b.push(1);
            } else {
                if old == g.ndim {
                    return Err(Error::InvalidParam);
                }
                s.push(g.shape[old]);
                c.push(g.chunkshape[old]);
                b.push(g.blockshape[old]);
                old += 1;
            }
        }
        // Every dimension of the array must be kept (the reference drops the rest).
        if old != g.ndim {
            return Err(Error::InvalidParam);
        }
        self.with_geometry(Geometry::new(&s, &c, &b)?)
    }

    fn with_geometry(&self, geometry: Geometry) -> Result<Layout> {
        Ok(Layout { geometry, dtype: self.dtype.clone(), dtype_format: self.dtype_format, last_tick: self.last_tick, view: true })
    }

    /// The metalayer as `b2nd_print_meta` shows it.
    pub fn describe(smeta: &[u8]) -> Result<String> {
        let (m, _) = meta::decode(smeta)?;
        let join = |v: Vec<String>| v.join(", ");
        let mut s = format!(
            "b2nd metalayer parameters:\n Ndim:       {}\n shape:      {}\n chunkshape: {}",
            m.shape.len(),
            join(m.shape.iter().map(i64::to_string).collect()),
            join(m.chunkshape.iter().map(i32::to_string).collect())
        );
        if let Some((_, d)) = &m.dtype {
            s.push_str("\n dtype: ");
            s.push_str(&String::from_utf8_lossy(d));
        }
        s.push_str("\n blockshape: ");
        s.push_str(&join(m.blockshape.iter().map(i32::to_string).collect()));
        s.push('\n');
        Ok(s)
    }
}

/// The "b2nd" metalayer's bytes, or the "caterva" one's in files of older versions.
pub fn stored_meta(s: &crate::schunk::SuperChunk) -> Result<Vec<u8>> {
    s.meta_get("b2nd").or_else(|_| s.meta_get("caterva")).map(<[u8]>::to_vec).map_err(|_| Error::MetalayerNotFound)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(shape: &[i64], chunk: &[i32], block: &[i32]) -> Layout {
        Layout::new(Geometry::new(shape, chunk, block).unwrap(), Some(b"<f8".to_vec()), 0)
    }

    #[test]
    fn frames_are_copied_only_with_the_same_chunking_and_not_from_views() {
        let mut l = layout(&[10, 7], &[5, 7], &[5, 3]);
        assert!(l.copies_as_frame(&[5, 7], &[5, 3]));
        assert!(!l.copies_as_frame(&[5, 7], &[5, 7]));
        assert!(!l.copies_as_frame(&[10, 7], &[5, 3]));
        l.view = true;
        assert!(!l.copies_as_frame(&[5, 7], &[5, 3]));
    }

    #[test]
    fn metalayer_round_trip_keeps_dtype() {
        let l = layout(&[10, 1, 7], &[5, 1, 7], &[5, 1, 3]);
        let back = Layout::decode(&l.encode().unwrap()).unwrap();
        assert_eq!(back.geometry, l.geometry);
        assert_eq!(back.dtype.as_deref(), Some(&b"<f8"[..]));
    }

    #[test]
    fn squeeze_and_expand_are_inverse_on_unit_dims() {
        let l = layout(&[10, 1, 7], &[5, 1, 7], &[5, 1, 3]);
        let s = l.squeezed(&[false, true, false]).unwrap();
        assert_eq!(s.geometry.shape(), &[10, 7]);
        let e = s.expanded(&[false, true, false]).unwrap();
        assert_eq!(e.geometry, l.geometry);
        // A dimension longer than 1 cannot be dropped; all old dimensions must be kept.
        assert_eq!(l.squeezed(&[true, false, false]), Err(Error::InvalidIndex));
        assert_eq!(s.expanded(&[true, false]), Err(Error::InvalidParam));
    }

    #[test]
    fn describe_lists_shapes_and_dtype() {
        let l = layout(&[4, 6], &[2, 3], &[1, 3]);
        let text = Layout::describe(&l.encode().unwrap()).unwrap();
        assert!(text.contains(" shape:      4, 6\n"), "{text}");
        assert!(text.contains(" dtype: <f8\n blockshape: 1, 3\n"), "{text}");
    }
}
