//! The "b2nd" metalayer: a msgpack array of 7 entries (version, ndim, shape as int64s,
//! chunkshape and blockshape as int32s, dtype format, dtype as str32), laid out exactly as
//! the reference writes it so frames are byte-identical.
//!
//! It lives with the codecs because the n-dimensional codecs (NDLZ, ZFP) are its lowest
//! reader: super-chunks hand them an array's shapes from it ([`super::registry::B2ndShapes`]).
//! [`crate::b2nd`] re-exports it as `b2nd::meta`, with [`MAX_DIM`].

use crate::error::{Error, Result};

/// Most dimensions an array can have (`B2ND_MAX_DIM`).
pub const MAX_DIM: usize = 16;

/// Version of the metalayer layout written.
pub const VERSION: u8 = 0;

/// Decoded contents of a "b2nd" (or legacy "caterva") metalayer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Meta {
    /// Items along each dimension.
    pub shape: Vec<i64>,
    /// Items along each dimension of a chunk.
    pub chunkshape: Vec<i32>,
    /// Items along each dimension of a block.
    pub blockshape: Vec<i32>,
    /// `None` for old caterva metalayers that end after the blockshape.
    pub dtype: Option<(i8, Vec<u8>)>,
}

/// Encode; `dtype_format` must be 0..=127 (a positive fixint) and `ndim` at most 15 (a fixarray).
pub fn encode(shape: &[i64], chunkshape: &[i32], blockshape: &[i32], dtype: &[u8], dtype_format: i8) -> Result<Vec<u8>> {
    let nd = shape.len();
    if dtype_format < 0 || nd > MAX_DIM || chunkshape.len() != nd || blockshape.len() != nd {
        return Err(Error::Failure);
    }
    if dtype.len() > i32::MAX as usize {
        return Err(Error::Failure);
    }
    let mut out = Vec::with_capacity(3 + 3 + nd * 19 + 6 + dtype.len());
    out.push(0x90 + 7);
    out.push(VERSION);
    out.push(nd as u8);
    out.push(0x90u8.wrapping_add(nd as u8));
    for s in shape {
        out.push(0xd3);
        out.extend_from_slice(&s.to_be_bytes());
    }
    for dims in [chunkshape, blockshape] {
        out.push(0x90u8.wrapping_add(nd as u8));
        for d in dims {
            out.push(0xd2);
            out.extend_from_slice(&d.to_be_bytes());
        }
    }
    out.push(dtype_format as u8);
    out.push(0xdb);
    out.extend_from_slice(&(dtype.len() as i32).to_be_bytes());
    out.extend_from_slice(dtype);
    Ok(out)
}

/// A cursor that fails with `Failure` (the reference's code for a malformed metalayer)
/// instead of reading past the end.
struct Cursor<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.b.len()).ok_or(Error::Failure)?;
        let s = &self.b[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn byte(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }
}

/// Decode; returns the metadata and the number of bytes consumed. As the reference, the
/// marker bytes of the arrays and numbers are skipped, not checked (only the dtype's str32
/// marker is), and a metalayer ending after the blockshape has no dtype.
pub fn decode(b: &[u8]) -> Result<(Meta, usize)> {
    if b.is_empty() {
        return Err(Error::Failure);
    }
    let mut c = Cursor { b, pos: 0 };
    c.byte()?; // array marker
    c.byte()?; // version
    let nd = c.byte()? as i8;
    if nd < 0 || nd as usize > MAX_DIM {
        return Err(Error::Failure);
    }
    let nd = nd as usize;
    c.byte()?;
    let mut shape = Vec::with_capacity(nd);
    for _ in 0..nd {
        c.byte()?;
        let v = c.take(8)?;
        shape.push(i64::from_be_bytes(v.try_into().map_err(|_| Error::Failure)?));
    }
    let mut dims = [Vec::with_capacity(nd), Vec::with_capacity(nd)];
    for d in &mut dims {
        c.byte()?;
        for _ in 0..nd {
            c.byte()?;
            let v = c.take(4)?;
            d.push(i32::from_be_bytes(v.try_into().map_err(|_| Error::Failure)?));
        }
    }
    let [chunkshape, blockshape] = dims;
    let mut dtype = None;
    if c.pos < b.len() {
        if b.len() - c.pos < 6 {
            return Err(Error::Failure);
        }
        let format = c.byte()? as i8;
        if c.byte()? != 0xdb {
            return Err(Error::Failure);
        }
        let len = i32::from_be_bytes(c.take(4)?.try_into().map_err(|_| Error::Failure)?);
        if len < 0 {
            return Err(Error::Failure);
        }
        dtype = Some((format, c.take(len as usize)?.to_vec()));
    }
    Ok((Meta { shape, chunkshape, blockshape, dtype }, c.pos))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_matches_the_spec() {
        let m = encode(&[10], &[4], &[2], b"<i4", 0).unwrap();
        let want: Vec<u8> = [
            &[0x97, 0, 1, 0x91, 0xd3][..],
            &10i64.to_be_bytes(),
            &[0x91, 0xd2],
            &4i32.to_be_bytes(),
            &[0x91, 0xd2],
            &2i32.to_be_bytes(),
            &[0, 0xdb, 0, 0, 0, 3],
            b"<i4",
        ]
        .concat();
        assert_eq!(m, want);
    }

    #[test]
    fn round_trip_and_truncation() {
        let m = encode(&[3, 0, 7], &[2, 0, 7], &[1, 0, 3], b"|S16", 0).unwrap();
        let (d, n) = decode(&m).unwrap();
        assert_eq!(n, m.len());
        assert_eq!(d.shape, vec![3, 0, 7]);
        assert_eq!(d.blockshape, vec![1, 0, 3]);
        assert_eq!(d.dtype, Some((0, b"|S16".to_vec())));
        for cut in 1..m.len() {
            let r = decode(&m[..cut]);
            // Cutting right after the blockshape leaves a valid dtype-less (caterva) layer.
            if cut == m.len() - 10 {
                assert_eq!(r.unwrap().0.dtype, None);
            } else {
                assert_eq!(r, Err(Error::Failure), "cut {cut}");
            }
        }
        assert_eq!(decode(&[0x97, 0, 17]), Err(Error::Failure));
        assert_eq!(decode(&[]), Err(Error::Failure));
    }
}
