//! Scratch areas of dropped contexts, handed to the next context that needs one.
//!
//! Programs often make a context per call (python-blosc2's `compress2`, numcodecs through
//! `blosc_compress_ctx`). A fresh scratch area pays a page fault for every page it first
//! writes: 64 for a 256 KiB block, which cost three to five times the codec's own time on
//! a 256 KiB buffer. The references get warm memory back from glibc's heap; keeping a few
//! areas here gives the same reuse without depending on the allocator's thresholds.

use crate::threads::Pool;
use std::sync::Mutex;

/// A small stack of spare `T`s.
pub struct Spare<T> {
    items: Mutex<Vec<T>>,
    max: usize,
}

impl<T: Default> Spare<T> {
    /// Keeps at most `max` items.
    pub const fn new(max: usize) -> Spare<T> {
        Spare { items: Mutex::new(Vec::new()), max }
    }

    /// A spare item, or a new one.
    pub fn take(&self) -> T {
        let mut items = self.items.lock().unwrap_or_else(|e| e.into_inner());
        // Room for every item is made here, when a context starts, not when the first one
        // is given back: that allocation would land at the top of the heap after a
        // context's work and keep glibc from returning the memory below it.
        items.reserve_exact(self.max);
        items.pop().unwrap_or_default()
    }

    /// Keep `item` for later, unless `max` are kept already.
    pub fn give(&self, item: T) {
        let mut items = self.items.lock().unwrap_or_else(|e| e.into_inner());
        if items.len() < self.max {
            items.push(item);
        }
    }

    /// Free every kept item.
    pub fn clear(&self) {
        let items = std::mem::take(&mut *self.items.lock().unwrap_or_else(|e| e.into_inner()));
        drop(items);
    }
}

/// Worker pools of dropped contexts, each with the process that started it. Starting and
/// joining threads for every context made a two-thread context per call slower than the
/// reference's; a kept pool's threads just wait for the next job. After a `fork` the child
/// has none of the parent's threads, so a pool from another process is never used (nor
/// joined: it is forgotten).
static POOLS: Mutex<Vec<(u32, Pool)>> = Mutex::new(Vec::new());

/// At most this many pools wait in [`POOLS`] (one compression and one decompression
/// context per call).
const POOLS_MAX: usize = 2;

/// A kept pool of `nthreads` threads started by this process, if there is one.
pub fn take_pool(nthreads: usize) -> Option<Pool> {
    let pid = std::process::id();
    let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    pools.reserve_exact(POOLS_MAX); // as in `Spare::take`
    forget_inherited(&mut pools, pid);
    let i = pools.iter().position(|(_, p)| p.nthreads() == nthreads)?;
    Some(pools.swap_remove(i).1)
}

/// Keep `pool` for a later context (or stop its threads when enough are kept).
pub fn give_pool(pool: Pool) {
    let pid = std::process::id();
    let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    forget_inherited(&mut pools, pid);
    if pools.len() < POOLS_MAX {
        pools.push((pid, pool));
        return;
    }
    drop(pools);
    drop(pool);
}

fn forget_inherited(pools: &mut Vec<(u32, Pool)>, pid: u32) {
    for (_, p) in pools.extract_if(.., |(owner, _)| *owner != pid) {
        std::mem::forget(p);
    }
}

/// Free the scratch areas and stop the pools kept for later contexts (`blosc2_destroy`,
/// `blosc2_free_resources`, and the 1.x face's `blosc_destroy`/`blosc_free_resources`).
pub fn release_spare() {
    super::workers::SPARE.clear();
    super::v1::release_spare();
    let pid = std::process::id();
    let pools = std::mem::take(&mut *POOLS.lock().unwrap_or_else(|e| e.into_inner()));
    for (owner, p) in pools {
        if owner == pid {
            drop(p);
        } else {
            std::mem::forget(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Spare;

    #[test]
    fn keeps_at_most_max_and_hands_back_the_last_given() {
        let s: Spare<Vec<u8>> = Spare::new(2);
        s.give(vec![1]);
        s.give(vec![2]);
        s.give(vec![3]);
        assert_eq!(s.take(), vec![2]);
        assert_eq!(s.take(), vec![1]);
        assert_eq!(s.take(), Vec::<u8>::new(), "empty: a new one");
        s.give(vec![4]);
        s.clear();
        assert!(s.take().is_empty());
    }
}
