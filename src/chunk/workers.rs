//! Per-context worker state: the thread pool and one scratch area per thread.

use super::pipeline::Buffers;
use crate::codecs::CodecScratch;
use crate::error::{Error, Result};
use crate::threads::Pool;
use std::sync::Mutex;

/// Buffers and codec contexts one thread reuses from block to block and call to call.
#[derive(Default)]
pub struct Scratch {
    /// The filter pipeline's two block buffers.
    pub bufs: Buffers,
    /// Codec contexts (zstd, zlib, ...) kept between blocks.
    pub codec: CodecScratch,
    /// Where a parallel worker compresses a block before it is placed in the chunk.
    pub out: Vec<u8>,
    /// A decoded block, for partial reads and postfilters.
    pub block: Vec<u8>,
    /// A lazy chunk's block as read from disk.
    pub lazy: Vec<u8>,
    /// Raw streams whose copy a serial compression defers.
    pub(crate) raw: crate::copy::DeferredCopies,
}

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
            self.scratch.push(Mutex::new(Scratch::default()));
        }
        if n > 1 && self.pool.as_ref().map(|p| p.nthreads()) != Some(n) {
            self.pool = None;
            self.pool = Some(Pool::new(n).map_err(|_| Error::ThreadCreate)?);
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
