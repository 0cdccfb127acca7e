//! Per-context worker state: the thread pool, and during a call one scratch area per thread.
//!
//! Scratch areas of block-sized buffers belong to no context between calls: each call
//! takes them from [`SPARE`] and leaves them there when it returns ([`Workers::park`]), so
//! contexts used in turn write the same pages. A super-chunk's decompression context used to keep a block buffer
//! per thread beside its compression context's (0.5 MiB more resident at two threads with
//! 256 KiB blocks, `c_tests/test_memory_reuse.c`); the reference's contexts share their
//! threads' buffers the same way.

use super::pipeline::Buffers;
use super::spare::{self, Spare};
use crate::codecs::CodecScratch;
use crate::error::{Error, Result};
use crate::scratch::ScratchBuf;
use crate::threads::Pool;
use std::sync::Mutex;

/// Buffers and codec contexts one thread reuses from block to block, and calls from call
/// to call (of any context: nothing in it belongs to one).
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

impl Scratch {
    /// Bytes of buffers this area holds.
    fn held(&self) -> usize {
        self.bufs.held() + self.out.len() + self.block.capacity() + self.lazy.capacity()
    }
}

/// A context keeps scratch areas that hold less than this between calls (see
/// [`Workers::park`]); larger ones go back to [`SPARE`] after each call.
const LEND_FROM: usize = 128 * 1024;

/// Scratch areas not in use (see [`super::spare`]): contexts take theirs at the start of a
/// call and leave them at the end. Four slots cover a compression and a decompression
/// context used in turn at two threads; when they are full a context keeps its areas (so
/// many contexts working at once never make and free areas call after call), and a dropped
/// context's areas are freed.
pub(crate) static SPARE: Spare<Box<Scratch>, 4> = Spare::new();

/// The worker threads of one compression or decompression context, and the scratch areas
/// it holds during a call.
#[derive(Default)]
pub struct Workers {
    pool: Option<Pool>,
    /// One scratch area per thread, indexed by thread id; boxed, so that taking and
    /// leaving one each call moves a pointer, not the whole struct.
    pub scratch: Vec<Mutex<Box<Scratch>>>,
}

impl Workers {
    /// No threads and no scratch yet (usable in a `static`).
    pub const fn new() -> Workers {
        Workers { pool: None, scratch: Vec::new() }
    }

    /// Make sure `n` threads and scratch areas exist; threads persist between calls, the
    /// areas until [`park`](Self::park).
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

    /// Leave the scratch areas for the next call of this or any other context (threads are
    /// kept). Called at the end of each call; the next [`ensure`](Self::ensure) takes areas
    /// again. Areas that all hold less than [`LEND_FROM`] stay: sharing them would save
    /// little memory, and taking and leaving them cost small calls a few percent (18 KiB
    /// chunks decompressed 2-7% slower).
    pub fn park(&mut self) {
        let small = self.scratch.iter_mut().all(|s| s.get_mut().unwrap_or_else(|e| e.into_inner()).held() < LEND_FROM);
        if small {
            return;
        }
        // Areas the set has no room for stay (their order does not matter).
        for i in (0..self.scratch.len()).rev() {
            let s = self.scratch.swap_remove(i).into_inner().unwrap_or_else(|e| e.into_inner());
            if let Some(back) = SPARE.give(s) {
                self.scratch.push(Mutex::new(back));
            }
        }
    }

    /// Exclusive access to thread `tid`'s scratch (uncontended: one thread per tid).
    pub fn scratch(&self, tid: usize) -> std::sync::MutexGuard<'_, Box<Scratch>> {
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
            // What the set has no room for is freed here.
            drop(SPARE.give(s.into_inner().unwrap_or_else(|e| e.into_inner())));
        }
    }
}
