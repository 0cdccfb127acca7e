//! Reading and writing items across chunk boundaries (`blosc2_schunk_get_slice_buffer` and
//! `blosc2_schunk_set_slice_buffer`).

use super::SuperChunk;
use crate::error::{Error, Result};

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

    /// Decompress items `start..stop` into `dest` (exactly `(stop - start) * typesize` bytes).
    pub fn get_slice(&mut self, start: i64, stop: i64, dest: &mut [u8]) -> Result<()> {
        let (b0, b1) = self.byte_range(start, stop)?;
        if dest.len() as i64 != b1 - b0 {
            return Err(Error::InvalidParam);
        }
        for (i, (cstart, clen)) in self.chunk_spans()?.into_iter().enumerate() {
            let lo = b0.max(cstart);
            let hi = b1.min(cstart + clen);
            if lo >= hi {
                continue;
            }
            let out = &mut dest[(lo - b0) as usize..(hi - b0) as usize];
            self.dctx.nchunk = i as i64;
            let chunk = super::store_chunk_lazy(&mut self.store, i)?;
            let got = self.dctx.get_bytes(&chunk, (lo - cstart) as usize, (hi - lo) as usize, out)?;
            if got != (hi - lo) as usize {
                return Err(Error::Failure);
            }
        }
        Ok(())
    }

    /// Overwrite items `start..stop` with `src`, recompressing each chunk touched.
    pub fn set_slice(&mut self, start: i64, stop: i64, src: &[u8]) -> Result<()> {
        let (b0, b1) = self.byte_range(start, stop)?;
        if src.len() as i64 != b1 - b0 {
            return Err(Error::InvalidParam);
        }
        for (i, (cstart, clen)) in self.chunk_spans()?.into_iter().enumerate() {
            let lo = b0.max(cstart);
            let hi = b1.min(cstart + clen);
            if lo >= hi {
                continue;
            }
            let mut buf = vec![0u8; clen as usize];
            self.decompress_chunk(i as i64, &mut buf)?;
            buf[(lo - cstart) as usize..(hi - cstart) as usize]
                .copy_from_slice(&src[(lo - b0) as usize..(hi - b0) as usize]);
            self.cctx.nchunk = i as i64;
            let chunk = self.compress(&buf)?;
            self.update_chunk(i as i64, &chunk)?;
        }
        Ok(())
    }
}
