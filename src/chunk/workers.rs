//! Per-context worker state: the thread pool and one scratch area per thread.
//!
//! Large block buffers belong to no context between calls: a call that needs them takes
//! them from [`SPARE_BUFS`] (at its first write into them) and leaves them there when it
//! returns ([`Workers::park`]), so contexts used in turn write the same pages. A
//! super-chunk's decompression context used to keep a block buffer per thread beside its
//! compression context's (0.5 MiB more resident at two threads with 256 KiB blocks,
//! `c_tests/test_memory_reuse.c`); the reference's contexts share their threads' buffers
//! the same way.

use super::pipeline::Buffers;
use super::spare::{self, Spare};
use crate::codecs::CodecScratch;
use crate::error::{Error, Result};
use crate::scratch::ScratchBuf;
use crate::threads::Pool;
use std::sync::Mutex;

/// Buffers and codec contexts one thread reuses from block to block and call to call (its
/// large block buffers are lent to other contexts between calls, see [`Workers::park`]).
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
    /// A parallel compression's blocks this thread holds in `out`, not in the chunk yet,
    /// in block order.
    pub(crate) pending: std::collections::VecDeque<Waiting>,
    /// The per-block records of a parallel compression (the calling thread's, tid 0), kept
    /// from chunk to chunk. Only tid 0's is used (the others stay empty vectors); it lives
    /// here rather than in [`Workers`] so that it travels with the scratch areas a dropped
    /// context leaves to the next one ([`SPARE`]), and a context made per call finds it
    /// grown.
    pub(crate) placement: crate::threads::Placement,
}

/// A block a parallel compression's worker holds, not in the chunk yet: its output is
/// `len` bytes at `at` in the worker's `out`, except the streams stored as they are, which
/// are still in the source: the copies between marks `raw.0` and `raw.1` of the worker's
/// `raw` list (offsets in `out`; see `DeferredCopies`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Waiting {
    pub(crate) block: usize,
    pub(crate) at: usize,
    pub(crate) len: usize,
    pub(crate) raw: (usize, usize),
}

/// Block buffers at least this large go back to [`SPARE_BUFS`] after each call (see
/// [`Workers::park`]); smaller ones stay with their context (taking and leaving them cost
/// small calls a few percent, for little memory: 18 KiB chunks decompressed 2-7% slower).
const LEND_FROM: usize = 128 * 1024;

/// Scratch areas of dropped contexts (see [`super::spare`]): four cover a context per call
/// at two threads, for compression and decompression.
pub(crate) static SPARE: Spare<Scratch, 4> = Spare::new();

/// Block buffers not in use. Contexts take them at the start of a call and leave them at
/// the end, so that contexts used in turn (a super-chunk's compression and decompression
/// contexts) write the same pages; four slots cover two such contexts at two threads. Only
/// the pipeline buffers move: codec state stays with its context (areas that travelled
/// whole between contexts gathered compression and decompression state of every codec
/// and, with 16 threads making contexts, grew the process by 40 MiB from one round of
/// `c_tests/test_load.c` to the next). When the slots are full a context keeps its
/// buffers.
pub(crate) static SPARE_BUFS: Spare<Buffers, 4> = Spare::new();

/// The worker threads of one compression or decompression context and their scratch
/// areas (whose large block buffers it holds only during a call).
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

    /// Make sure `n` threads and scratch areas exist; threads and areas persist between
    /// calls. (An area takes block buffers, those [`park`](Self::park) left included, when
    /// it first writes into them.)
    ///
    /// Inlined check: on every call but the first nothing is to be done.
    #[inline]
    pub fn ensure(&mut self, n: usize) -> Result<()> {
        let n = n.max(1);
        if self.scratch.len() >= n && (n == 1 || self.has_pool_of(n)) {
            return Ok(());
        }
        while self.scratch.len() < n {
            self.scratch.push(Mutex::new(SPARE.take()));
        }
        self.ensure_pool(n)
    }

    fn has_pool_of(&self, n: usize) -> bool {
        self.pool.as_ref().map(|p| p.nthreads()) == Some(n)
    }

    /// Make sure `n` threads exist, without scratch areas (for callers that keep their own).
    pub fn ensure_pool(&mut self, n: usize) -> Result<()> {
        let n = n.max(1);
        if n > 1 && !self.has_pool_of(n) {
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

    /// Leave the block buffers of at least [`LEND_FROM`] bytes for the next call of this or
    /// any other context (threads, codec state and smaller buffers stay). Called at the end
    /// of each call; the next call that writes block buffers takes them again.
    pub fn park(&mut self) {
        for s in &mut self.scratch {
            let s = s.get_mut().unwrap_or_else(|e| e.into_inner());
            if s.bufs.held() >= LEND_FROM {
                if let Some(back) = SPARE_BUFS.give(std::mem::take(&mut s.bufs)) {
                    s.bufs = back;
                }
            }
        }
    }

    /// Exclusive access to thread `tid`'s scratch (uncontended: one thread per tid).
    pub fn scratch(&self, tid: usize) -> std::sync::MutexGuard<'_, Scratch> {
        self.scratch[tid].lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Thread `tid`'s scratch without locking (the caller holds the context exclusively).
    pub fn scratch_mut(&mut self, tid: usize) -> &mut Scratch {
        self.scratch[tid].get_mut().unwrap_or_else(|e| e.into_inner())
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

    /// Run `f(tid, piece)` once for each of `pieces`, piece `i` on thread `i` of `n`. A
    /// piece no thread took (more pieces than threads, or a threads callback that ran
    /// fewer) runs on the caller afterwards, with its own index as `tid`.
    pub fn run_pieces<T: Send>(&self, n: usize, pieces: Vec<T>, f: &(dyn Fn(usize, T) + Sync)) -> Result<()> {
        let slots: Vec<Mutex<Option<T>>> = pieces.into_iter().map(|p| Mutex::new(Some(p))).collect();
        let take = |tid: usize| {
            let piece = slots.get(tid).and_then(|s| s.lock().unwrap_or_else(|e| e.into_inner()).take());
            if let Some(piece) = piece {
                f(tid, piece);
            }
        };
        self.run(n, &take)?;
        (0..slots.len()).for_each(take);
        Ok(())
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
