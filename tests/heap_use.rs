//! What parallel calls ask of the heap, counted by a global allocator of this test binary:
//! the thread pool allocates nothing per call, and a parallel compression no more than a
//! serial one. (Its unbounded channels allocated a block
//! every 31 messages wherever the heap's end was at the time; a block that lived on pinned
//! glibc's heap above freed chunks, and a super-chunk made three times at two threads
//! peaked 4-5 MiB higher on its third run; see `bench/mem.c schunk 2`.)
//!
//! One test function, so no other test allocates while it counts.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use blosc2::chunk::compress::Compressor;
use blosc2::chunk::params::CompressParams;
use blosc2::codecs::Codec;
use blosc2::threads::Pool;

struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards every call to the system allocator unchanged; the counters are atomics.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: the caller's layout, passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note();
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
}

fn note() {
    if COUNTING.load(Ordering::Relaxed) {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations made while `f` runs.
fn counted(f: impl FnOnce()) -> usize {
    ALLOCATIONS.store(0, Ordering::SeqCst);
    COUNTING.store(true, Ordering::SeqCst);
    f();
    COUNTING.store(false, Ordering::SeqCst);
    ALLOCATIONS.load(Ordering::SeqCst)
}

#[test]
fn parallel_calls_allocate_no_more_than_serial_ones() {
    // 200 parallel calls of a two-thread pool: no allocation at all.
    let pool = Pool::new(2).expect("threads");
    let hits = AtomicUsize::new(0);
    // The warm-up call's worker job waits a little, so that this thread blocks on its reply,
    // and the worker gets time to block on its next job before the count starts: the first
    // time a thread blocks on a channel, std allocates its waiting context and the channel
    // its list of waiters, once (2 allocations, traced to this thread's first wait for a
    // reply, when under load the count came first).
    pool.run(&|tid| {
        hits.fetch_add(1, Ordering::Relaxed);
        if tid != 0 {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    });
    std::thread::sleep(std::time::Duration::from_millis(100));
    let n = counted(|| {
        for _ in 0..200 {
            assert!(pool.run(&|_| {
                hits.fetch_add(1, Ordering::Relaxed);
            }));
        }
    });
    assert_eq!(hits.load(Ordering::Relaxed), 402);
    assert_eq!(n, 0, "the pool allocated {n} times in 200 calls");

    // Chunks compressed by two threads, once the context has compressed a few: the chunk's
    // vector and its shrink each, as at one thread (before the per-block records and the
    // threads' waiting lists were kept: 8 a chunk). A few more are allowed: which thread
    // takes which blocks is the scheduler's choice, and a thread's list of waiting blocks
    // grows the first time it holds more of them than before.
    let data: Vec<u8> = (0..1u64 << 19).flat_map(|i| (i / 3 + if i % 7 == 0 { i } else { 0 }).to_le_bytes()).collect();
    for nthreads in [1, 2] {
        let params = CompressParams::default().with_codec(Codec::Lz4).with_typesize(8).with_nthreads(nthreads);
        let mut comp = Compressor::new(params);
        let first = comp.compress_to_vec(&data).expect("compress");
        for _ in 0..4 {
            comp.compress_to_vec(&data).expect("compress");
        }
        let mut same = true;
        let n = counted(|| {
            for _ in 0..20 {
                same &= comp.compress_to_vec(&data).expect("compress") == first;
            }
        });
        assert!(same, "{nthreads} threads: another chunk");
        assert!(n <= 2 * 20 + 6, "{nthreads} threads: {n} allocations for 20 chunks");
    }
}

