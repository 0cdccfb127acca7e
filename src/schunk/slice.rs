//! Reading and writing items across chunk boundaries (`blosc2_schunk_get_slice_buffer` and
//! `blosc2_schunk_set_slice_buffer`).

use super::engines::{compress_in, decompress_chunk_in, with_decompressor, Holder, Own};
use super::SuperChunk;
use crate::chunk::decompress::{Decompressor, PARALLEL_MIN_BYTES};
use crate::error::{Error, Result};

/// A chunk a slice touches: its index, first byte and size.
type Span = (usize, i64, i64);

impl SuperChunk {
    /// Start byte and size of every chunk (walks the chunk headers when sizes vary).
    fn chunk_spans(&mut self) -> Result<Vec<(i64, i64)>> {
        let n = self.nchunks();
        let mut spans = Vec::with_capacity(n as usize);
        let mut at = 0i64;
        for i in 0..n {
            let nb = if self.chunksize > 0 {
                (self.nbytes - at).min(self.chunksize as i64)
            } else {
                self.chunk_nbytes(i)? as i64
            };
            spans.push((at, nb));
            at += nb;
        }
        Ok(spans)
    }

    fn byte_range(&self, start: i64, stop: i64) -> Result<(i64, i64)> {
        let ts = self.cparams.typesize as i64;
        let nitems = self.nbytes / ts;
        if start < 0 || stop < start || stop > nitems {
            return Err(Error::InvalidParam);
        }
        Ok((start * ts, stop * ts))
    }

    /// The chunks holding items `start..stop` (`blosc2_get_slice_nchunks`): from the one
    /// holding the first byte to the one holding the byte before the stop, counted as the
    /// reference does (an empty range inside a chunk counts that chunk). `None` when there
    /// are no chunks at all; fixed-size chunks only.
    pub fn slice_chunks(&self, start: i64, stop: i64) -> Result<Option<std::ops::Range<i64>>> {
        if self.nchunks() == 0 {
            return Ok(None);
        }
        let ts = self.cparams.typesize as i64;
        let cs = self.chunksize as i64;
        let end = stop.checked_mul(ts).ok_or(Error::InvalidParam)?;
        if start < 0 || stop < start || end > self.nbytes || cs <= 0 {
            return Err(Error::InvalidParam);
        }
        Ok(Some(start * ts / cs..(end + cs - 1) / cs))
    }

    /// Decompress items `start..stop` into `dest` (exactly `(stop - start) * typesize` bytes).
    pub fn get_slice(&mut self, start: i64, stop: i64, dest: &mut [u8]) -> Result<()> {
        get_slice_in(&Own::new(self), start, stop, dest)
    }

    /// Overwrite items `start..stop` with `src`, recompressing each chunk touched.
    pub fn set_slice(&mut self, start: i64, stop: i64, src: &[u8]) -> Result<()> {
        set_slice_in(&Own::new(self), start, stop, src)
    }

    /// The byte range of items `start..stop` and the chunks it touches, as (index, start
    /// byte, size). With a fixed chunk size they are computed, not walked.
    fn slice_plan(&mut self, start: i64, stop: i64) -> Result<(i64, i64, Vec<Span>)> {
        let (b0, b1) = self.byte_range(start, stop)?;
        if b0 == b1 {
            return Ok((b0, b1, Vec::new()));
        }
        let spans = if self.chunksize > 0 {
            let cs = self.chunksize as i64;
            (b0 / cs..=(b1 - 1) / cs).map(|i| (i as usize, i * cs, (self.nbytes - i * cs).min(cs))).collect()
        } else {
            let touched = |&(_, (at, len)): &(usize, (i64, i64))| at < b1 && at + len > b0;
            self.chunk_spans()?.into_iter().enumerate().filter(touched).map(|(i, (at, len))| (i, at, len)).collect()
        };
        Ok((b0, b1, spans))
    }
}

/// [`SuperChunk::get_slice`] with the super-chunk held only between engine runs. A slice
/// under [`PARALLEL_MIN_BYTES`] is read in the step that plans it as far as its chunks can
/// be decoded in place ([`SuperChunk::decode_in_place`]); the rest with the engine lent
/// and the super-chunk released (each step takes the super-chunk's lock, and the C
/// layer's steps publish its public struct: four steps made a 16-item slice of a small
/// chunk cost six times the reference's).
pub fn get_slice_in<H: Holder>(h: &H, start: i64, stop: i64, dest: &mut [u8]) -> Result<()> {
    let (b0, b1, spans, done) = h.hold(|s| {
        let (b0, b1, spans) = s.slice_plan(start, stop)?;
        if dest.len() as i64 != b1 - b0 {
            return Err(Error::InvalidParam);
        }
        let done = s.get_slice_here(b0, b1, &spans, dest)?;
        Ok((b0, b1, spans, done))
    })?;
    if done == spans.len() {
        return Ok(());
    }
    with_decompressor(h, |dctx| {
        for &(i, cstart, clen) in &spans[done..] {
            let Some((lo, hi)) = overlap(b0, b1, cstart, clen) else { continue };
            let out = &mut dest[(lo - b0) as usize..(hi - b0) as usize];
            let chunk = h.hold(|s| s.held_chunk(i as i64, true))?;
            read_part(dctx, &chunk, i, lo - cstart, out)?;
        }
        Ok(())
    })
}

/// Decode `out.len()` bytes of chunk `i` (`chunk`) from its byte `from` into `out`.
fn read_part(dctx: &mut Decompressor, chunk: &[u8], i: usize, from: i64, out: &mut [u8]) -> Result<()> {
    dctx.nchunk = i as i64;
    let got = dctx.get_bytes(chunk, from as usize, out.len(), out)?;
    if got != out.len() {
        return Err(Error::Failure);
    }
    Ok(())
}

/// The bytes `b0..b1` of the chunk spanning `cstart..cstart + clen`, if any.
fn overlap(b0: i64, b1: i64, cstart: i64, clen: i64) -> Option<(i64, i64)> {
    let (lo, hi) = (b0.max(cstart), b1.min(cstart + clen));
    (lo < hi).then_some((lo, hi))
}

impl SuperChunk {
    /// Read the slice `b0..b1` (bytes) of the chunks in `spans` into `dest` with the chunks
    /// decoded in place, while they can be and when the slice is under
    /// [`PARALLEL_MIN_BYTES`] (so the hold stays short); how many spans were done.
    fn get_slice_here(&mut self, b0: i64, b1: i64, spans: &[Span], dest: &mut [u8]) -> Result<usize> {
        if b1 - b0 >= PARALLEL_MIN_BYTES as i64 {
            return Ok(0);
        }
        for (k, &(i, cstart, clen)) in spans.iter().enumerate() {
            let Some((lo, hi)) = overlap(b0, b1, cstart, clen) else { continue };
            let out = &mut dest[(lo - b0) as usize..(hi - b0) as usize];
            let done = self.decode_in_place(i, |chunk, dctx| read_part(dctx, chunk, i, lo - cstart, out).map(Some))?;
            if done.is_none() {
                return Ok(k);
            }
        }
        Ok(spans.len())
    }
}

/// [`SuperChunk::set_slice`] with the super-chunk held only between engine runs.
pub fn set_slice_in<H: Holder>(h: &H, start: i64, stop: i64, src: &[u8]) -> Result<()> {
    let (b0, b1, spans) = h.hold(|s| s.slice_plan(start, stop))?;
    if src.len() as i64 != b1 - b0 {
        return Err(Error::InvalidParam);
    }
    for (i, cstart, clen) in spans {
        let Some((lo, hi)) = overlap(b0, b1, cstart, clen) else { continue };
        let mut buf = vec![0u8; clen as usize];
        decompress_chunk_in(h, i as i64, &mut buf)?;
        buf[(lo - cstart) as usize..(hi - cstart) as usize].copy_from_slice(&src[(lo - b0) as usize..(hi - b0) as usize]);
        let chunk = compress_in(h, &buf)?;
        h.hold(|s| s.update_chunk(i as i64, &chunk))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::{self, CompressParams, DecompressParams};
    use crate::filters::registry::{self, CallContext, UserFilter};
    use crate::schunk::engines::tests::stores_in_memory_and_a_file;
    use std::sync::Arc;

    /// A user filter (id 251, used by no other test) that leaves the bytes as they are.
    struct Same;

    impl UserFilter for Same {
        fn id(&self) -> u8 {
            251
        }
        fn name(&self) -> &str {
            "same"
        }
        fn version(&self) -> u8 {
            1
        }
        fn forward(&self, src: &[u8], dest: &mut [u8], _: u8, _: &CallContext) -> i32 {
            dest.copy_from_slice(src);
            0
        }
        fn backward(&self, src: &[u8], dest: &mut [u8], _: u8, _: &CallContext) -> i32 {
            dest.copy_from_slice(src);
            0
        }
    }

    /// Small slices are read in place up to the first chunk that cannot be (one whose
    /// pipeline has a user filter), the rest with the engine lent; large
    /// slices with the engine lent throughout. The bytes are the same either way, in every
    /// in-memory store and a frame file.
    #[test]
    fn slices_read_in_place_then_released_are_whole() {
        registry::register(Arc::new(Same)).unwrap();
        let (dir, specs) = stores_in_memory_and_a_file("slices");
        const CHUNK: usize = 64 * 1024;
        let data: Vec<u8> = (0..(4 * CHUNK / 4) as u32).flat_map(|i| ((i / 3) ^ (i % 11)).to_le_bytes()).collect();
        for spec in &specs {
            let cp = CompressParams { typesize: 4, nthreads: 1, ..CompressParams::default() };
            let mut sc = SuperChunk::new(cp.clone(), DecompressParams::default(), spec).unwrap();
            for (n, part) in data.chunks(CHUNK).enumerate() {
                if n == 2 {
                    let c = chunk::compress(part, &cp.clone().with_filters(&[251, 1])).unwrap();
                    sc.append_chunk(&c).unwrap();
                } else {
                    sc.append_buffer(part).unwrap();
                }
            }
            // items: chunk 0 only; chunks 1-3 (in place up to chunk 2); large, from chunk 0.
            for (start, stop, lends) in [(100i64, 200i64, false), (16380, 32800, true), (10, 40000, true)] {
                sc.stand_ins.dctx = None;
                let mut out = vec![0u8; (stop - start) as usize * 4];
                sc.get_slice(start, stop, &mut out).unwrap();
                assert!(out[..] == data[start as usize * 4..stop as usize * 4], "{spec:?} {start}..{stop}");
                let in_memory = spec.urlpath.is_none();
                assert_eq!(sc.stand_ins.dctx.is_some(), lends || !in_memory, "{spec:?} {start}..{stop}");
            }
            let mut out = vec![0u8; 8];
            assert_eq!(sc.get_slice(0, 3, &mut out).unwrap_err(), Error::InvalidParam);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
