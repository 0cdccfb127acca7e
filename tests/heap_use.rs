//! What parallel calls ask of the heap, counted by a global allocator of this test binary:
//! the thread pool allocates nothing per call. (Its unbounded channels allocated a block
//! every 31 messages wherever the heap's end was at the time; a block that lived on pinned
//! glibc's heap above freed chunks, and a super-chunk made three times at two threads
//! peaked 4-5 MiB higher on its third run; see `bench/mem.c schunk 2`.)
//!
//! One test function, so no other test allocates while it counts.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

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
fn parallel_calls_allocate_nothing() {
    // 200 parallel calls of a two-thread pool: no allocation at all.
    let pool = Pool::new(2).expect("threads");
    let hits = AtomicUsize::new(0);
    pool.run(&|_| {
        hits.fetch_add(1, Ordering::Relaxed);
    });
    let n = counted(|| {
        for _ in 0..200 {
            assert!(pool.run(&|_| {
                hits.fetch_add(1, Ordering::Relaxed);
            }));
        }
    });
    assert_eq!(hits.load(Ordering::Relaxed), 402);
    assert_eq!(n, 0, "the pool allocated {n} times in 200 calls");
}
