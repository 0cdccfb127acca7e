//! Per-context worker state: the thread pool and one scratch area per thread.

use super::pipeline::Buffers;
use super::spare::{self, Spare};
use crate::codecs::CodecScratch;
use crate::error::{Error, Result};
use crate::scratch::ScratchBuf;
use crate::threads::Pool;
use std::sync::Mutex;

/// Buffers and codec contexts one thread reuses from block to block and call to call.
#[derive(Default)]
pub struct Scratch {
    /// The filter pipeline's two block buffers.
    pub bufs: Buffers,
    /// Codec contexts (zstd, zlib, ...) kept between blocks.
    pub codec: CodecScratch,
    /// Where a parallel worker compresses a block before it is placed in the chunk (a
    /// block's bound of it is offered to the codec, a few pages of it written).
    pub out: ScratchBuf,
    /// A decoded block, for partial reads and postfilters.
    pub block: Vec<u8>,
    /// A lazy chunk's block as read from disk.
    pub lazy: Vec<u8>,
    /// Raw streams whose copy a serial compression defers.
    pub(crate) raw: crate::copy::DeferredCopies,
}

/// Scratch areas of dropped contexts (see [`super::spare`]): four cover a context per
/// call at two threads, for compression and decompression.
pub(crate) static SPARE: Spare<Scratch> = Spare::new(4);

/// The worker threads of one compression or decompression context and their scratch areas.
#[derive(Default)]
pub struct Workers {
    pool: Option<Pool>,
    /// One scratch area per thread, indexed by thread id.
    pub scratch: Vec<Mutex<Scratch>>,
}

impl Workers {
    /// No threads and no scratch yet (usable in a `static`).
    pub const fn new() -> Workers {
        Workers { pool: None, scratch: Vec::new() }
    }

    /// Make sure `n` threads (and scratch areas) exist; threads persist between calls.
    pub fn ensure(&mut self, n: usize) -> Result<()> {
        let n = n.max(1);
        while self.scratch.len() < n {
            self.scratch.push(Mutex::new(SPARE.take()));
        }
        self.ensure_pool(n)
    }

    /// Make sure `n` threads exist, without scratch areas (for callers that keep their own).
    pub fn ensure_pool(&mut self, n: usize) -> Result<()> {
        let n = n.max(1);
        if n > 1 && self.pool.as_ref().map(|p| p.nthreads()) != Some(n) {
            if let Some(old) = self.pool.take() {
                spare::give_pool(old);
            }
            self.pool = Some(match spare::take_pool(n) {
                Some(p) => p,
                None => Pool::new(n).map_err(|_| Error::ThreadCreate)?,
            });
        }
        Ok(())
    }

    /// Exclusive access to thread `tid`'s scratch (uncontended: one thread per tid).
    pub fn scratch(&self, tid: usize) -> std::sync::MutexGuard<'_, Scratch> {
        self.scratch[tid].lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Run `f(tid)` on `n` threads (just the caller when `n == 1`).
    pub fn run(&self, n: usize, f: &(dyn Fn(usize) + Sync)) -> Result<()> {
        match &self.pool {
            Some(pool) if n > 1 && pool.nthreads() == n => {
                if pool.run(f) {
                    Ok(())
                } else {
                    Err(Error::ThreadCreate)
                }
            }
            _ => {
                f(0);
                Ok(())
            }
        }
    }

    /// Drop the threads (`blosc2_free_resources`); they are recreated on demand.
    pub fn release(&mut self) {
        self.pool = None;
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        // Every job has returned (runs wait for their threads), so no thread holds a
        // scratch area; the pool and the areas go to the next context.
        if let Some(pool) = self.pool.take() {
            spare::give_pool(pool);
        }
        for s in self.scratch.drain(..) {
            SPARE.give(s.into_inner().unwrap_or_else(|e| e.into_inner()));
        }
    }
}
