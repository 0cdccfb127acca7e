//! Reading and writing items across chunk boundaries (`blosc2_schunk_get_slice_buffer` and
//! `blosc2_schunk_set_slice_buffer`).

use super::engines::{compress_in, decompress_chunk_in, with_decompressor, Holder, Own};
use super::SuperChunk;
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

/// [`SuperChunk::get_slice`] with the super-chunk held only between engine runs.
pub fn get_slice_in<H: Holder>(h: &H, start: i64, stop: i64, dest: &mut [u8]) -> Result<()> {
    let (b0, b1, spans) = h.hold(|s| s.slice_plan(start, stop))?;
    if dest.len() as i64 != b1 - b0 {
        return Err(Error::InvalidParam);
    }
    with_decompressor(h, |dctx| {
        for (i, cstart, clen) in spans {
            let lo = b0.max(cstart);
            let hi = b1.min(cstart + clen);
            if lo >= hi {
                continue;
            }
            let out = &mut dest[(lo - b0) as usize..(hi - b0) as usize];
            let chunk = h.hold(|s| s.held_chunk(i as i64, true))?;
            dctx.nchunk = i as i64;
            let got = dctx.get_bytes(&chunk, (lo - cstart) as usize, (hi - lo) as usize, out)?;
            if got != (hi - lo) as usize {
                return Err(Error::Failure);
            }
        }
        Ok(())
    })
}

/// [`SuperChunk::set_slice`] with the super-chunk held only between engine runs.
pub fn set_slice_in<H: Holder>(h: &H, start: i64, stop: i64, src: &[u8]) -> Result<()> {
    let (b0, b1, spans) = h.hold(|s| s.slice_plan(start, stop))?;
    if src.len() as i64 != b1 - b0 {
        return Err(Error::InvalidParam);
    }
    for (i, cstart, clen) in spans {
        let lo = b0.max(cstart);
        let hi = b1.min(cstart + clen);
        if lo >= hi {
            continue;
        }
        let mut buf = vec![0u8; clen as usize];
        decompress_chunk_in(h, i as i64, &mut buf)?;
        buf[(lo - cstart) as usize..(hi - cstart) as usize].copy_from_slice(&src[(lo - b0) as usize..(hi - b0) as usize]);
        let chunk = compress_in(h, &buf)?;
        h.hold(|s| s.update_chunk(i as i64, &chunk))?;
    }
    Ok(())
}
