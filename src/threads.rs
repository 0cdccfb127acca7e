//! The persistent worker pool a context uses to run blocks in parallel.
//!
//! Threads are created once per context (and when `nthreads` changes), then reused for every
//! call, as the reference does. A caller can instead hand the work to its own pool through
//! [`set_external_executor`] (`blosc2_set_threads_callback`).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{channel, Receiver, Sender};
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
    tx: Sender<ErasedJob>,
    handle: Option<JoinHandle<()>>,
}

/// `nthreads - 1` parked threads plus the calling thread.
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
        let (done_tx, done_rx) = channel::<bool>();
        let mut workers = Vec::with_capacity(nthreads - 1);
        for tid in 1..nthreads {
            let (tx, rx) = channel::<ErasedJob>();
            let done = done_tx.clone();
            let handle = std::thread::Builder::new()
                .name(format!("blosc2-worker-{tid}"))
                .spawn(move || worker_loop(tid, rx, done))?;
            workers.push(Worker { tx, handle: Some(handle) });
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
            if w.tx.send(ErasedJob(erased)).is_ok() {
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

fn worker_loop(tid: usize, rx: Receiver<ErasedJob>, done: Sender<bool>) {
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
            let (dead_tx, _) = channel();
            drop(std::mem::replace(&mut w.tx, dead_tx));
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
