//! The super-chunk behind an array, reached through a [`Holder`].
//!
//! Array operations never keep a super-chunk to themselves while a codec runs: a C face's
//! holder locks its handle only for each short step (so user codecs, filters and I/O
//! callbacks may use the same super-chunk), while a Rust caller's [`crate::schunk::Own`]
//! simply borrows it. [`SchunkIo`] is the [`ChunkIo`] every slice walk reads and writes
//! chunks through.

use super::slice::ChunkIo;
use crate::chunk::decompress::PARALLEL_MIN_BYTES;
use crate::error::{Error, Result};
use crate::schunk::{compress_in, decompress_blocks_in, decompress_chunk_in, decompress_masked_in, Holder};

/// The super-chunk's item size (`typesize`), which must be positive for an array.
pub fn typesize<H: Holder>(h: &H) -> Result<usize> {
    let t = h.hold(|s| Ok(s.typesize()))?;
    if t <= 0 {
        return Err(Error::InvalidParam);
    }
    Ok(t as usize)
}

/// Run `f` under the super-chunk's frame lock when locking is enabled, so other handles see
/// a multi-chunk change at once (`BLOSC2_ERROR_LOCK` when it cannot be taken).
pub fn locked<H: Holder, R>(h: &H, f: impl FnOnce() -> Result<R>) -> Result<R> {
    let locking = h.hold(|s| Ok(s.locking())).unwrap_or(false);
    if locking {
        h.hold(|s| s.lock()).map_err(|_| Error::Lock)?;
    }
    let r = f();
    if locking {
        // An unlock failure leaves the lock to the handle's drop; the change itself is done.
        let _ = h.hold(|s| s.unlock());
    }
    r
}

/// Chunk access for slice walks: whole chunks, masked blocks or block by block, each
/// decoded with the super-chunk's own decompressor (and threads), released while it runs.
pub struct SchunkIo<'h, H: Holder> {
    h: &'h H,
    /// Whether this operation has looked for other handles' changes to the frame already:
    /// chunks read after the first one do not look again.
    fresh: bool,
    /// The super-chunk's decompression threads, once asked.
    threads: Option<i16>,
    /// Whether the super-chunk is on disk, once asked.
    on_disk: Option<bool>,
}

impl<'h, H: Holder> SchunkIo<'h, H> {
    /// Chunk access to `h`; `fresh` when the caller has just checked the frame is current.
    pub fn new(h: &'h H, fresh: bool) -> SchunkIo<'h, H> {
        SchunkIo { h, fresh, threads: None, on_disk: None }
    }

    /// `current_nchunk` as the reference leaves it: set by reads that decompress the chunk
    /// (more than a quarter of its bytes wanted on disk, a sixteenth in memory), not by
    /// reads of a few blocks.
    fn note_read(&mut self, n: i64, needed: &[bool]) {
        let count = needed.iter().filter(|&&b| b).count();
        if self.on_disk.is_none() {
            self.on_disk = self.h.hold(|s| Ok(s.urlpath().is_some())).ok();
        }
        let frac = if self.on_disk == Some(true) { 4 } else { 16 };
        if count * frac > needed.len() {
            let _ = self.h.hold(|s| {
                s.set_current_nchunk(n);
                Ok(())
            });
        }
    }
}

impl<H: Holder> ChunkIo for SchunkIo<'_, H> {
    fn read_chunk(&mut self, n: i64, dest: &mut [u8]) -> Result<()> {
        i32::try_from(dest.len()).map_err(|_| Error::InvalidParam)?;
        let nchunks = self.h.hold(|s| Ok(s.nchunks())).map_err(|_| Error::Failure)?;
        if n < 0 || n >= nchunks {
            return Err(Error::Failure);
        }
        decompress_chunk_in(self.h, n, dest).map_err(|_| Error::Failure)?;
        self.h.hold(|s| {
            s.set_current_nchunk(n);
            Ok(())
        })
    }

    /// Decompress only the needed blocks (the super-chunk's decompressor skips masked
    /// blocks, on its threads); falls back to the whole chunk when that fails, so errors
    /// are the whole chunk's.
    fn read_blocks(&mut self, n: i64, needed: &[bool], dest: &mut [u8]) -> Result<()> {
        match decompress_masked_in(self.h, n, needed, !self.fresh, dest) {
            Ok(_) => {
                self.fresh = true;
                self.note_read(n, needed);
                Ok(())
            }
            Err(_) => self.read_chunk(n, dest),
        }
    }

    /// Serially, block by block, unless several threads would do a large read sooner (the
    /// caller then goes through `read_blocks`). A failure falls back to that path too, so
    /// errors are reported as they always were.
    fn for_blocks(
        &mut self,
        n: i64,
        needed: &[bool],
        chunk_bytes: usize,
        sink: &mut dyn FnMut(usize, &[u8]) -> Result<()>,
    ) -> Result<bool> {
        if self.threads.is_none() {
            self.threads = self.h.hold(|s| Ok(s.decompressor().params.nthreads)).ok();
        }
        let Some(threads) = self.threads else { return Ok(false) };
        if threads > 1 {
            let count = needed.iter().filter(|&&b| b).count();
            let block = chunk_bytes / needed.len().max(1);
            if count * block >= PARALLEL_MIN_BYTES {
                return Ok(false);
            }
        }
        if decompress_blocks_in(self.h, n, needed, chunk_bytes, !self.fresh, sink).is_err() {
            return Ok(false);
        }
        self.fresh = true;
        self.note_read(n, needed);
        Ok(true)
    }

    fn write_chunk(&mut self, n: i64, data: &[u8]) -> Result<()> {
        i32::try_from(data.len()).map_err(|_| Error::InvalidParam)?;
        let chunk = compress_in(self.h, data).map_err(|_| Error::Failure)?;
        self.h
            .hold(|s| {
                if n < 0 || n >= s.nchunks() {
                    return Err(Error::InvalidParam);
                }
                s.update_chunk(n, &chunk)?;
                s.set_current_nchunk(n);
                Ok(())
            })
            .map_err(|_| Error::Failure)
    }
}
