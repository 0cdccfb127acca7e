//! Running the engines (compression, decompression) with the super-chunk released.
//!
//! Codecs, filters, prefilters, postfilters and the threads callback may be user code, and
//! user code may call back into the super-chunk it works for (to read its metalayers or a
//! chunk, say). An owner that keeps a super-chunk behind a lock (the C layer) must not hold
//! that lock while such code runs, so the operations that run an engine are written against
//! a [`Holder`]: every step that touches the super-chunk's state borrows it briefly through
//! [`Holder::hold`], while the engine, taken out of the super-chunk for the duration, works
//! on chunk bytes the operation owns ([`Held`]). A call made meanwhile finds the super-chunk
//! available and, if it needs an engine, gets a spare one set up like the one that is out.

use std::cell::RefCell;
use std::ops::Deref;
use std::sync::Arc;

use super::{Store, SuperChunk};
use crate::chunk::compress::Compressor;
use crate::chunk::decompress::Decompressor;
use crate::chunk::header::{ChunkHeader, MAX_OVERHEAD};
use crate::error::{Error, Result};
use crate::frame::cframe::chunk_sizes;

/// Gives an operation short, exclusive access to a super-chunk, step by step.
pub trait Holder {
    /// Run `f` with the super-chunk to itself.
    fn hold<R>(&self, f: impl FnOnce(&mut SuperChunk) -> Result<R>) -> Result<R>;
}

/// The trivial holder: a super-chunk borrowed mutably for the whole operation.
pub struct Own<'a>(RefCell<&'a mut SuperChunk>);

impl<'a> Own<'a> {
    pub fn new(sc: &'a mut SuperChunk) -> Own<'a> {
        Own(RefCell::new(sc))
    }
}

impl Holder for Own<'_> {
    fn hold<R>(&self, f: impl FnOnce(&mut SuperChunk) -> Result<R>) -> Result<R> {
        // Steps never nest (each returns before the next), so the borrow is always free.
        let mut sc = self.0.try_borrow_mut().map_err(|_| Error::Failure)?;
        f(&mut sc)
    }
}

/// Chunk bytes an operation keeps while the super-chunk is released: shared with an
/// in-memory store (no copy), or read out of a frame.
pub enum Held {
    Shared(Arc<[u8]>),
    Owned(Vec<u8>),
}

impl Deref for Held {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Held::Shared(a) => a,
            Held::Owned(v) => v,
        }
    }
}

impl SuperChunk {
    /// Chunk `n` as bytes the caller keeps; `lazy` asks on-disk frames for a lazy chunk.
    pub fn held_chunk(&mut self, n: i64, lazy: bool) -> Result<Held> {
        let idx = self.check_index(n)?;
        if let Store::Memory(v) = &self.store {
            return Ok(Held::Shared(Arc::clone(&v[idx])));
        }
        let c = if lazy { self.get_lazy_chunk(n)? } else { self.get_chunk(n)? };
        Ok(Held::Owned(c.into_owned()))
    }

    /// Take the compression engine out, ready for the next chunk; a spare configured the
    /// same way stays in its place for calls made while it is out.
    pub fn take_compressor(&mut self) -> Compressor {
        let mut spare = Compressor::new(self.cctx.params.clone());
        spare.prefilter = self.cctx.prefilter.clone();
        spare.call = self.cctx.call.clone();
        let mut c = std::mem::replace(&mut self.cctx, spare);
        c.nchunk = self.nchunks();
        // The reference's context keeps the block size it used last and forces it on the
        // next chunk (observed with 3.3.5: a 800-byte chunk after a 200-byte one gets
        // 200-byte blocks); the frames only match if we do the same.
        c.params.blocksize = self.last_blocksize;
        c
    }

    /// Put back an engine from [`take_compressor`](Self::take_compressor), with the chunk
    /// it made (its block size is the one the next chunk gets).
    pub fn put_compressor(&mut self, c: Compressor, made: Option<&[u8]>) {
        if let Some(h) = made.and_then(|m| ChunkHeader::read_min(m).ok()) {
            self.last_blocksize = h.blocksize;
        }
        self.cctx = c;
    }

    /// Take the decompression engine out (see [`take_compressor`](Self::take_compressor)).
    pub fn take_decompressor(&mut self) -> Decompressor {
        let mut spare = Decompressor::new(self.dctx.params.clone());
        spare.postfilter = self.dctx.postfilter.clone();
        spare.call = self.dctx.call.clone();
        spare.lazy = self.dctx.lazy.clone();
        std::mem::replace(&mut self.dctx, spare)
    }

    pub fn put_decompressor(&mut self, d: Decompressor) {
        self.dctx = d;
    }
}

/// Compress `src` with the super-chunk's engine, released while it runs.
pub fn compress_in<H: Holder>(h: &H, src: &[u8]) -> Result<Vec<u8>> {
    if src.len() > i32::MAX as usize - MAX_OVERHEAD {
        return Err(Error::MaxBufsizeExceeded);
    }
    let mut engine = h.hold(|s| Ok(s.take_compressor()))?;
    let mut out = vec![0u8; src.len() + MAX_OVERHEAD];
    let r = engine.compress(src, &mut out);
    let made = match r {
        Ok(n) if n > 0 => {
            out.truncate(n);
            Ok(out)
        }
        Ok(_) => Err(Error::Failure),
        Err(e) => Err(e),
    };
    let chunk = made.as_ref().ok().map(|v| &v[..]);
    h.hold(|s| {
        s.put_compressor(engine, chunk);
        Ok(())
    })?;
    made
}

/// Compress `src` and append it (`blosc2_schunk_append_buffer`); the new number of chunks.
pub fn append_buffer_in<H: Holder>(h: &H, src: &[u8]) -> Result<i64> {
    let chunk = compress_in(h, src)?;
    h.hold(|s| s.append_chunk(&chunk))
}

/// Run `f` with the decompression engine taken out of the super-chunk, putting it back
/// whatever `f` returns.
pub fn with_decompressor<H: Holder, R>(h: &H, f: impl FnOnce(&mut Decompressor) -> Result<R>) -> Result<R> {
    let mut engine = h.hold(|s| Ok(s.take_decompressor()))?;
    let r = f(&mut engine);
    h.hold(|s| {
        s.put_decompressor(engine);
        Ok(())
    })?;
    r
}

/// Decompress chunk `n` into `dest`; its uncompressed size.
pub fn decompress_chunk_in<H: Holder>(h: &H, n: i64, dest: &mut [u8]) -> Result<usize> {
    let chunk = h.hold(|s| s.held_chunk(n, false))?;
    let (nbytes, _) = chunk_sizes(&chunk)?;
    if (nbytes as usize) > dest.len() {
        return Err(Error::WriteBuffer);
    }
    let got = with_decompressor(h, |d| {
        d.nchunk = n;
        d.decompress(&chunk, dest)
    })?;
    if got != nbytes as usize {
        return Err(Error::Failure);
    }
    Ok(got)
}
