//! The persistent worker pool a context uses to run blocks in parallel.
//!
//! Threads are created once per context (and when `nthreads` changes), then reused for every
//! call, as the reference does. A caller can instead hand the work to its own pool through
//! [`set_external_executor`] (`blosc2_set_threads_callback`).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Mutex, RwLock};
use std::thread::JoinHandle;

/// Runs `job(i)` for every `i` in `0..njobs` and returns when all have finished.
pub type Executor = dyn Fn(usize, &(dyn Fn(usize) + Sync)) + Send + Sync;

static EXTERNAL: RwLock<Option<Arc<Executor>>> = RwLock::new(None);

/// Route all parallel work of every context through `exec` (or back to our threads).
pub fn set_external_executor(exec: Option<Arc<Executor>>) {
    *EXTERNAL.write().unwrap_or_else(|e| e.into_inner()) = exec;
}

fn external() -> Option<Arc<Executor>> {
    EXTERNAL.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Run `job(i)` for every `i` in `0..njobs`, in parallel, and return when all are done:
/// through the caller's pool when one is set (one call of its callback), else on threads of
/// our own (the calling thread takes job 0). False if a job panicked.
pub fn run_jobs(njobs: usize, job: &(dyn Fn(usize) + Sync)) -> bool {
    let ok = std::sync::atomic::AtomicBool::new(true);
    let run = |i: usize| {
        if catch_unwind(AssertUnwindSafe(|| job(i))).is_err() {
            ok.store(false, std::sync::atomic::Ordering::Relaxed);
        }
    };
    if let Some(exec) = external() {
        exec(njobs, &run);
        return ok.into_inner();
    }
    std::thread::scope(|s| {
        for i in 1..njobs {
            let run = &run;
            if std::thread::Builder::new().spawn_scoped(s, move || run(i)).is_err() {
                // No thread to be had: do the job here rather than lose it.
                run(i);
            }
        }
        if njobs > 0 {
            run(0);
        }
    });
    ok.into_inner()
}

/// A job with its borrow lifetime erased; see the SAFETY note in [`Pool::run`].
struct ErasedJob(*const (dyn Fn(usize) + Sync));
// SAFETY: the pointee is `Sync` and outlives every use (run() waits for all workers).
unsafe impl Send for ErasedJob {}

struct Worker {
    /// `None` once closed (which ends the worker's loop).
    tx: Option<SyncSender<ErasedJob>>,
    handle: Option<JoinHandle<()>>,
}

/// `nthreads - 1` parked threads plus the calling thread.
///
/// The channels are bounded (a job slot per worker, a reply slot per worker): their buffers
/// are allocated once, here. Unbounded channels allocate a block every few dozen messages,
/// wherever the heap's end is at the time, and a block that lives on pins the heap there:
/// glibc could not give back the memory below it, and a 256 MiB super-chunk run three times
/// at two threads peaked 4-5 MiB higher on its third run (`bench/mem.c schunk 2`).
pub struct Pool {
    nthreads: usize,
    workers: Vec<Worker>,
    done_rx: Mutex<Receiver<bool>>,
}

impl Pool {
    /// Start `nthreads - 1` worker threads (`nthreads` 0 counts as 1); the error is the OS's
    /// refusal to spawn one (`BLOSC2_ERROR_THREAD_CREATE` at the C layer).
    pub fn new(nthreads: usize) -> std::io::Result<Pool> {
        let nthreads = nthreads.max(1);
        let (done_tx, done_rx) = sync_channel::<bool>(nthreads - 1);
        let mut workers = Vec::with_capacity(nthreads - 1);
        for tid in 1..nthreads {
            let (tx, rx) = sync_channel::<ErasedJob>(1);
            let done = done_tx.clone();
            let handle = std::thread::Builder::new()
                .name(worker_name(tid))
                .spawn(move || worker_loop(tid, rx, done))?;
            workers.push(Worker { tx: Some(tx), handle: Some(handle) });
        }
        Ok(Pool { nthreads, workers, done_rx: Mutex::new(done_rx) })
    }

    /// Threads a [`Pool::run`] call uses, the caller's included (at least 1).
    pub fn nthreads(&self) -> usize {
        self.nthreads
    }

    /// Run `f(tid)` once on each of the pool's threads (tid 0 on the caller's thread) and
    /// wait for all. Returns false if any of them panicked.
    pub fn run(&self, f: &(dyn Fn(usize) + Sync)) -> bool {
        if let Some(exec) = external() {
            let ok = std::sync::atomic::AtomicBool::new(true);
            let wrapped = |tid: usize| {
                if catch_unwind(AssertUnwindSafe(|| f(tid))).is_err() {
                    ok.store(false, std::sync::atomic::Ordering::Relaxed);
                }
            };
            exec(self.nthreads, &wrapped);
            return ok.into_inner();
        }
        // SAFETY: the erased pointer is only dereferenced by workers between the send below
        // and their reply on `done_rx`; this function does not return (nor unwind: the local
        // call is wrapped in catch_unwind) before every sent job has replied, so `f` outlives
        // all uses.
        let erased: *const (dyn Fn(usize) + Sync) = unsafe { std::mem::transmute(f) };
        let mut sent = 0;
        for w in &self.workers {
            // Never blocks: the worker took its previous job before replying to it.
            if w.tx.as_ref().is_some_and(|tx| tx.send(ErasedJob(erased)).is_ok()) {
                sent += 1;
            }
        }
        let mut ok = catch_unwind(AssertUnwindSafe(|| f(0))).is_ok();
        let done_rx = self.done_rx.lock().unwrap_or_else(|e| e.into_inner());
        for _ in 0..sent {
            match done_rx.recv() {
                Ok(worker_ok) => ok &= worker_ok,
                Err(_) => return false,
            }
        }
        // Jobs that could not be sent (a dead worker) are done here so no work is lost.
        if sent < self.workers.len() {
            for tid in sent + 1..self.nthreads {
                ok &= catch_unwind(AssertUnwindSafe(|| f(tid))).is_ok();
            }
        }
        ok
    }
}

/// "blosc2-worker-N", written digit by digit: `format!` would read the standard library's
/// digit table, a page of read-only data nothing else on a super-chunk's path reads (the
/// kernel maps 64 KiB of the library around it: README, "Memory").
fn worker_name(tid: usize) -> String {
    let mut digits = Vec::new();
    let mut n = tid;
    loop {
        digits.push(char::from(b'0' + (n % 10) as u8));
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let mut name = String::from("blosc2-worker-");
    name.extend(digits.iter().rev());
    name
}

fn worker_loop(tid: usize, rx: Receiver<ErasedJob>, done: SyncSender<bool>) {
    while let Ok(job) = rx.recv() {
        // SAFETY: see Pool::run — the job stays alive until we report on `done`.
        let f = unsafe { &*job.0 };
        let ok = catch_unwind(AssertUnwindSafe(|| f(tid))).is_ok();
        if done.send(ok).is_err() {
            break;
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        for w in &mut self.workers {
            // Closing the channel ends the worker's loop.
            w.tx = None;
        }
        for w in &mut self.workers {
            if let Some(h) = w.handle.take() {
                let _ = h.join();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worker_names_count_in_decimal() {
        for tid in [0usize, 1, 9, 10, 63, 100, 4096] {
            assert_eq!(worker_name(tid), format!("blosc2-worker-{tid}"));
        }
    }

    /// Places taken by several threads at once never overlap, cover the buffer from the
    /// start offset without gaps, and stop at its end.
    #[test]
    fn reserved_places_are_disjoint() {
        let mut buf = vec![0u8; 10_000];
        let r = Reserved::new(&mut buf, 16);
        let refused = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|s| {
            for t in 1..=4u8 {
                let (r, refused) = (&r, &refused);
                s.spawn(move || loop {
                    let n = 1 + (t as usize * 37) % 90;
                    match r.take(n) {
                        Some((_, out)) => out.iter_mut().for_each(|b| *b |= 1 << (t - 1)),
                        None => {
                            refused.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            break;
                        }
                    }
                });
            }
        });
        assert_eq!(refused.into_inner(), 4);
        // Once a place was refused, `end` says the whole buffer.
        assert_eq!(r.end(), 10_000);
        // Each thread sets its own bit: a byte handed out twice would have two.
        assert!(buf[..16].iter().all(|&b| b == 0));
        let written = buf[16..].iter().take_while(|&&b| b != 0).count();
        let end = 16 + written;
        assert!(buf[end..].iter().all(|&b| b == 0), "a gap in the places at {end}");
        assert!(end + 90 > 10_000, "stopped early at {end}");
        assert!(buf[16..end].iter().all(|&b| b.count_ones() == 1));
    }
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn every_thread_runs_once_and_pool_is_reused() {
        let pool = Pool::new(4).unwrap();
        for _ in 0..50 {
            let hits: Vec<AtomicUsize> = (0..4).map(|_| AtomicUsize::new(0)).collect();
            assert!(pool.run(&|tid| {
                hits[tid].fetch_add(1, Ordering::Relaxed);
            }));
            assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
        }
    }

    #[test]
    fn a_panicking_job_is_reported_not_propagated() {
        let pool = Pool::new(2).unwrap();
        assert!(!pool.run(&|tid| {
            if tid == 1 {
                panic!("boom");
            }
        }));
        // The pool still works afterwards.
        assert!(pool.run(&|_| {}));
    }
}

/// An output buffer that several workers fill at once, each in places it reserved. The
/// places are handed out in the order asked for by an atomic counter, so no two overlap and
/// no lock is held while a worker writes its bytes.
pub struct Reserved<'a> {
    ptr: *mut u8,
    len: usize,
    next: std::sync::atomic::AtomicUsize,
    _buf: std::marker::PhantomData<&'a mut [u8]>,
}

// SAFETY: workers only reach the buffer through `take`, whose ranges never overlap; the
// buffer is borrowed mutably for 'a, so nothing else touches it meanwhile.
unsafe impl Sync for Reserved<'_> {}
// SAFETY: as above; the pointer is into a buffer borrowed for 'a.
unsafe impl Send for Reserved<'_> {}

impl<'a> Reserved<'a> {
    /// Places are handed out from `buf[start..]`.
    pub fn new(buf: &'a mut [u8], start: usize) -> Reserved<'a> {
        Reserved {
            ptr: buf.as_mut_ptr(),
            len: buf.len(),
            next: std::sync::atomic::AtomicUsize::new(start.min(buf.len())),
            _buf: std::marker::PhantomData,
        }
    }

    /// The next `n` bytes and their offset in the buffer, or `None` when they would pass its
    /// end (every later request then fails too: the counter has moved past the end).
    pub fn take(&self, n: usize) -> Option<(usize, &'a mut [u8])> {
        let at = self.next.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
        // The counter only grows, so once a request passes the end every later one does.
        if at > self.len || n > self.len - at {
            return None;
        }
        // SAFETY: [at, at + n) is inside the buffer, and the atomic counter gives each range
        // to one caller only (fetch_add), so this slice aliases no other one handed out; the
        // buffer stays mutably borrowed for 'a.
        Some((at, unsafe { std::slice::from_raw_parts_mut(self.ptr.add(at), n) }))
    }

    /// Where the places handed out end (the buffer's length once one was refused).
    pub fn end(&self) -> usize {
        self.next.load(std::sync::atomic::Ordering::Relaxed).min(self.len)
    }
}

/// Blocks of one chunk written into their places in block order (each right after the one
/// before), while several workers are still compressing others. A block's place is known
/// once the sizes of all blocks before it are: a worker reports each block's size, then
/// copies into the chunk every block of its own whose place has become known, while it is
/// still in its cache (copying them all once every block was compressed read them back
/// from memory, and took another wake-up of the workers). The chunk is the same as a
/// serial compression's. Blocks are copied early only once the chunk is sure to fit (the
/// sizes reported plus the bounds of the blocks not reported yet): a chunk that ends up
/// not fitting is stored otherwise, and copies into it would be wasted.
pub struct Ordered<'a> {
    ptr: *mut u8,
    len: usize,
    /// Blocks before this one may be placed: their places are known and the chunk is sure
    /// to fit. Read without the lock, so that workers asking for blocks that must still
    /// wait do not contend for it (they ask after every block they compress). Once the
    /// chunk is sure to fit it stays so (a report replaces a block's bound by its size, no
    /// larger), so this only grows and no overflow can follow.
    ready: std::sync::atomic::AtomicUsize,
    state: Mutex<OrderedState>,
    _buf: std::marker::PhantomData<&'a mut [u8]>,
}

/// A block's place in an [`Ordered`] buffer, written from its start one piece after the
/// other ([`Ordered::place_pieces`]). The place may not be initialized memory, so it is
/// only written, never handed out as a slice.
pub struct Pieces<'a> {
    ptr: *mut u8,
    len: usize,
    done: usize,
    _buf: std::marker::PhantomData<&'a mut [u8]>,
}

impl Pieces<'_> {
    /// Append `bytes` (what passes the end of the place is dropped).
    pub fn put(&mut self, bytes: &[u8]) {
        let n = bytes.len().min(self.len - self.done);
        // SAFETY: [done, done + n) is inside the place, which this writer alone writes;
        // `bytes` is not in the buffer (a worker's own buffer, or the source).
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.ptr.add(self.done), n) };
        self.done += n;
    }
}

/// The per-block records of an [`Ordered`], handed back by [`Ordered::finish`] so that its
/// owner can keep them for the next chunk: placing blocks then allocates nothing (small
/// blocks allocated and freed for every chunk, held in glibc's per-thread caches, kept its
/// heap from shrinking; see `tests/heap_use.rs`).
#[derive(Default)]
pub struct Placement {
    /// Each block's size once reported.
    sizes: Vec<Option<usize>>,
    /// Each block's offset, for blocks before `known`.
    starts: Vec<usize>,
    placed: Vec<bool>,
}

impl Placement {
    /// Each block's offset in the buffer (complete once [`Ordered::finish`] succeeded).
    pub fn starts(&self) -> &[usize] {
        &self.starts
    }

    fn reset(&mut self, nblocks: usize) {
        self.sizes.clear();
        self.sizes.resize(nblocks, None);
        self.starts.clear();
        self.starts.resize(nblocks, 0);
        self.placed.clear();
        self.placed.resize(nblocks, false);
    }
}

struct OrderedState {
    blocks: Placement,
    /// Blocks before this one have known places.
    known: usize,
    /// Where block `known` starts.
    end: usize,
    /// Where the blocks start, plus every size reported so far.
    total: usize,
    /// The most the blocks not reported yet can take.
    unreported_bound: usize,
    /// The blocks reported so far do not fit.
    overflow: bool,
}

// SAFETY: workers reach the buffer only through `place`, which copies each block once into
// a range no other block's range overlaps (offsets are sums of the sizes before); the
// buffer is borrowed mutably (or, for `from_raw`, reserved by the caller) for 'a.
unsafe impl Sync for Ordered<'_> {}
// SAFETY: as above.
unsafe impl Send for Ordered<'_> {}

impl<'a> Ordered<'a> {
    /// `nblocks` blocks placed one after the other in `buf[start..]`; `bound` is the most
    /// they can take together.
    pub fn new(buf: &'a mut [u8], start: usize, nblocks: usize, bound: usize) -> Ordered<'a> {
        // SAFETY: a borrowed slice is valid for writes of its length for 'a.
        unsafe { Ordered::from_raw(buf.as_mut_ptr(), buf.len(), start, nblocks, bound, Placement::default()) }
    }

    /// As [`Ordered::new`], over `len` bytes at `ptr` that may not be initialized: they are
    /// only ever written (never read or referenced) here; the per-block records go into
    /// `blocks` (whatever it held is dropped, its capacity kept).
    ///
    /// # Safety
    /// `ptr` must be valid for writes of `len` bytes for 'a, and nothing else may access
    /// `ptr[start..len]` meanwhile.
    pub unsafe fn from_raw(
        ptr: *mut u8,
        len: usize,
        start: usize,
        nblocks: usize,
        bound: usize,
        mut blocks: Placement,
    ) -> Ordered<'a> {
        blocks.reset(nblocks);
        let state = OrderedState {
            blocks,
            known: 0,
            end: start,
            total: start,
            unreported_bound: bound,
            overflow: start > len,
        };
        Ordered {
            ptr,
            len,
            ready: std::sync::atomic::AtomicUsize::new(0),
            state: Mutex::new(state),
            _buf: std::marker::PhantomData,
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, OrderedState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Record that block `j` takes `n` bytes of at most `bound`. False when the blocks
    /// reported so far no longer fit in the buffer (the chunk will be stored otherwise), or
    /// `j` was reported already or is out of range, or `n` passes `bound`.
    pub fn report(&self, j: usize, n: usize, bound: usize) -> bool {
        let mut st = self.state();
        let st = &mut *st;
        if st.overflow || n > bound || st.blocks.sizes.get(j).is_none_or(|s| s.is_some()) {
            return false;
        }
        st.blocks.sizes[j] = Some(n);
        st.total = st.total.saturating_add(n);
        st.unreported_bound = st.unreported_bound.saturating_sub(bound);
        if st.total > self.len {
            st.overflow = true;
            return false;
        }
        while let Some(&Some(size)) = st.blocks.sizes.get(st.known) {
            st.blocks.starts[st.known] = st.end;
            st.end += size;
            st.known += 1;
        }
        if st.total.saturating_add(st.unreported_bound) <= self.len {
            self.ready.store(st.known, std::sync::atomic::Ordering::Relaxed);
        }
        true
    }

    /// Copy block `j` (`bytes`, as long as reported) into its place. False when its place
    /// is not known yet (a block before it has not been reported), or the chunk is not sure
    /// to fit yet, or the block was placed already, or it does not match its report, or the
    /// blocks overflowed.
    pub fn place(&self, j: usize, bytes: &[u8]) -> bool {
        self.place_pieces(j, bytes.len(), |p| p.put(bytes))
    }

    /// [`place`](Self::place) for a block of `len` bytes that `fill` writes piece after
    /// piece (from a worker's buffer and, for streams stored as they are, from the source
    /// itself: see `DeferredCopies`). Bytes `fill` leaves unwritten are zeroed.
    pub fn place_pieces(&self, j: usize, len: usize, fill: impl FnOnce(&mut Pieces<'_>)) -> bool {
        if j >= self.ready.load(std::sync::atomic::Ordering::Relaxed) {
            return false;
        }
        let at = {
            let mut st = self.state();
            if st.blocks.placed[j] || st.blocks.sizes[j] != Some(len) {
                return false;
            }
            st.blocks.placed[j] = true;
            st.blocks.starts[j]
        };
        // SAFETY: [at, at + len) lies within the buffer (`at` is the start plus the sizes
        // before block j, fixed by `report` while their sum with block j's fitted), overlaps no
        // other block's range, and is written by this call only (`placed`).
        let mut pieces = Pieces { ptr: unsafe { self.ptr.add(at) }, len, done: 0, _buf: std::marker::PhantomData };
        fill(&mut pieces);
        let Pieces { ptr, done, .. } = pieces;
        // SAFETY: [done, len) of the place is inside it and written by no one else.
        unsafe { std::ptr::write_bytes(ptr.add(done), 0, len - done) };
        true
    }

    /// The per-block records (each block's offset in [`Placement::starts`]) and, if every
    /// block was placed, where the last one ends.
    pub fn finish(self) -> (Placement, Option<usize>) {
        let st = self.state.into_inner().unwrap_or_else(|e| e.into_inner());
        let complete = !st.overflow && st.blocks.placed.iter().all(|&p| p);
        let end = st.end;
        (st.blocks, complete.then_some(end))
    }
}

#[cfg(test)]
mod ordered_tests {
    use super::*;

    /// Blocks reported and placed by several threads in any order land one after the other
    /// in block order; places are refused until known, and only once.
    #[test]
    fn blocks_land_in_block_order_whatever_the_order_of_reports() {
        let sizes: Vec<usize> = (0..40).map(|j| 1 + (j * 37) % 50).collect();
        let total: usize = sizes.iter().sum();
        let mut buf = vec![0u8; 8 + total];
        let o = Ordered::new(&mut buf, 8, sizes.len(), total);
        assert!(!o.place(1, &vec![2; sizes[1]]), "not reported yet");
        std::thread::scope(|s| {
            for t in 0..4 {
                let (o, sizes) = (&o, &sizes);
                s.spawn(move || {
                    // Each thread takes every fourth block, last first.
                    let mine: Vec<usize> = (0..sizes.len()).rev().filter(|j| j % 4 == t).collect();
                    let mut waiting = Vec::new();
                    for &j in &mine {
                        assert!(o.report(j, sizes[j], sizes[j]));
                        waiting.push(j);
                        waiting.retain(|&k| !o.place(k, &vec![k as u8 + 1; sizes[k]]));
                    }
                    while !waiting.is_empty() {
                        waiting.retain(|&k| !o.place(k, &vec![k as u8 + 1; sizes[k]]));
                        std::thread::yield_now();
                    }
                });
            }
        });
        assert!(!o.place(3, &vec![4; sizes[3]]), "placed twice");
        let (blocks, end) = o.finish();
        let starts = blocks.starts();
        assert_eq!(end, Some(buf.len()), "all placed");
        let mut at = 8;
        for (j, &n) in sizes.iter().enumerate() {
            assert_eq!(starts[j], at);
            assert!(buf[at..at + n].iter().all(|&b| b == j as u8 + 1), "block {j}");
            at += n;
        }
        assert!(buf[..8].iter().all(|&b| b == 0));
    }

    /// Until the blocks not reported yet could no longer make the chunk overflow, nothing
    /// is copied.
    #[test]
    fn blocks_wait_until_the_chunk_is_sure_to_fit() {
        let mut buf = vec![0u8; 20];
        let o = Ordered::new(&mut buf, 0, 3, 30);
        assert!(o.report(0, 5, 10));
        assert!(!o.place(0, &[1; 5]), "5 + 20 of bounds > 20");
        assert!(o.report(1, 5, 10));
        assert!(o.place(0, &[1; 5]), "10 + 10 of bounds fit");
        assert!(o.place(1, &[2; 5]));
        assert!(o.report(2, 9, 10));
        assert!(o.place(2, &[3; 9]));
        assert_eq!(o.finish().1, Some(19));
        assert_eq!(&buf[..20], &[1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 0]);
    }

    /// A block placed in pieces lands as they were put, one after the other; what passes
    /// the place is dropped, and what no piece covers is zeroed.
    #[test]
    fn blocks_placed_in_pieces() {
        let mut buf = vec![0xEEu8; 16];
        let o = Ordered::new(&mut buf, 0, 3, 16);
        assert!(o.report(0, 5, 5) && o.report(1, 4, 4) && o.report(2, 7, 7));
        assert!(o.place_pieces(0, 5, |p| {
            p.put(&[1, 2]);
            p.put(&[]);
            p.put(&[3, 4, 5, 6, 7]);
        }));
        assert!(o.place_pieces(1, 4, |p| p.put(&[8])));
        assert!(o.place_pieces(2, 7, |p| p.put(&[9; 7])));
        assert!(!o.place_pieces(2, 7, |_| panic!("placed twice")));
        assert_eq!(o.finish().1, Some(16));
        assert_eq!(buf, [1, 2, 3, 4, 5, 8, 0, 0, 0, 9, 9, 9, 9, 9, 9, 9]);
    }

    /// Records handed back by one chunk's `finish` serve the next, of another block count,
    /// with nothing of the first left in them.
    #[test]
    fn records_are_reused_across_chunks() {
        let mut big = vec![0u8; 100];
        let o = Ordered::new(&mut big, 0, 5, 100);
        for j in 0..5 {
            assert!(o.report(j, 10, 20));
        }
        for j in 0..5 {
            assert!(o.place(j, &[j as u8; 10]));
        }
        let (records, end) = o.finish();
        assert_eq!(end, Some(50));
        let mut small = vec![0u8; 12];
        // SAFETY: a borrowed buffer, valid for its length while `o` lives.
        let o = unsafe { Ordered::from_raw(small.as_mut_ptr(), small.len(), 2, 2, 10, records) };
        assert!(!o.place(0, &[7; 4]), "no report carried over");
        assert!(o.report(1, 6, 6) && o.report(0, 4, 4));
        assert!(o.place(1, &[8; 6]) && o.place(0, &[7; 4]));
        let (records, end) = o.finish();
        assert_eq!((records.starts(), end), (&[2, 6][..], Some(12)));
        assert_eq!(small, [0, 0, 7, 7, 7, 7, 8, 8, 8, 8, 8, 8]);
        // Unfinished blocks are reported as such, whatever the records held.
        let mut one = vec![0u8; 8];
        // SAFETY: as above.
        let o = unsafe { Ordered::from_raw(one.as_mut_ptr(), one.len(), 0, 1, 8, records) };
        assert_eq!(o.finish().1, None);
    }

    #[test]
    fn blocks_that_do_not_fit_are_refused() {
        let mut buf = vec![0u8; 20];
        let o = Ordered::new(&mut buf, 4, 3, 30);
        assert!(o.report(2, 10, 10));
        assert!(!o.report(2, 1, 1), "reported twice");
        assert!(!o.report(0, 7, 10), "4 + 10 + 7 > 20");
        assert!(!o.report(1, 1, 10), "after an overflow");
        assert!(!o.place(0, &[0; 7]));
        assert!(o.finish().1.is_none());
        assert!(buf.iter().all(|&b| b == 0), "nothing written");
    }
}

