//! Scratch areas and thread pools of dropped contexts, and block buffers between calls,
//! handed to the next context that needs one.
//!
//! Programs often make a context per call (python-blosc2's `compress2`, numcodecs through
//! `blosc_compress_ctx`). A fresh scratch area pays a page fault for every page it first
//! writes: 64 for a 256 KiB block, which cost three to five times the codec's own time on
//! a 256 KiB buffer. The references get warm memory back from glibc's heap; keeping a few
//! areas here gives the same reuse without depending on the allocator's thresholds.
//! Contexts also leave their large block buffers here between calls, so that the contexts
//! a program uses in turn (a super-chunk's compression and decompression contexts, say)
//! write the same pages instead of each keeping its own: the reference's contexts share
//! their threads' buffers the same way.

use crate::threads::Pool;
use std::sync::{Mutex, TryLockError};

/// Up to `N` spare `T`s in fixed slots. Items are taken and given (for block buffers at the
/// start and end of every call) from any number of threads at once, so no operation here
/// ever waits: a slot another thread holds for a moment is skipped (a `take` may then make
/// a new item, a `give` hands its item back). The slots are static storage, so keeping
/// items never allocates.
pub struct Spare<T, const N: usize> {
    slots: [Mutex<Option<T>>; N],
}

impl<T: Default, const N: usize> Default for Spare<T, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Default, const N: usize> Spare<T, N> {
    /// `N` empty slots (usable in a `static`).
    pub const fn new() -> Spare<T, N> {
        Spare { slots: [const { Mutex::new(None) }; N] }
    }

    /// A spare item (the one in the lowest free slot, so that a caller that gives and takes
    /// in turn gets its own item back), or a new one.
    pub fn take(&self) -> T {
        self.take_kept().unwrap_or_default()
    }

    /// A spare item (as [`take`](Self::take)), or `None` when no slot holds one.
    pub fn take_kept(&self) -> Option<T> {
        for slot in &self.slots {
            let item = match slot.try_lock() {
                Ok(mut g) => g.take(),
                Err(TryLockError::Poisoned(p)) => p.into_inner().take(),
                Err(TryLockError::WouldBlock) => None,
            };
            if item.is_some() {
                return item;
            }
        }
        None
    }

    /// Keep `item` in the lowest empty slot; when every slot is full or busy it is handed
    /// back (the caller keeps or drops it).
    pub fn give(&self, item: T) -> Option<T> {
        let mut item = Some(item);
        for slot in &self.slots {
            let mut g = match slot.try_lock() {
                Ok(g) => g,
                Err(TryLockError::Poisoned(p)) => p.into_inner(),
                Err(TryLockError::WouldBlock) => continue,
            };
            if g.is_none() {
                *g = item.take();
                return None;
            }
        }
        item
    }

    /// Free every kept item, except one that another thread is putting in or taking out at
    /// this moment (it stays for the next clear). Never waiting also means a child process
    /// forked while some thread held a slot cannot hang here: that slot stays busy for good
    /// and is only ever skipped.
    pub fn clear(&self) {
        for slot in &self.slots {
            let item = match slot.try_lock() {
                Ok(mut g) => g.take(),
                Err(TryLockError::Poisoned(p)) => p.into_inner().take(),
                Err(TryLockError::WouldBlock) => None,
            };
            drop(item);
        }
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
    super::workers::SPARE_BUFS.clear();
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
    fn keeps_at_most_n_and_hands_back_the_lowest_slot() {
        let s: Spare<Vec<u8>, 2> = Spare::new();
        assert_eq!(s.give(vec![1]), None);
        assert_eq!(s.give(vec![2]), None);
        assert_eq!(s.give(vec![3]), Some(vec![3]), "full: handed back");
        assert_eq!(s.take(), vec![1]);
        assert_eq!(s.give(vec![4]), None);
        assert_eq!(s.take(), vec![4], "a caller that gives and takes gets its item back");
        assert_eq!(s.take(), vec![2]);
        assert_eq!(s.take(), Vec::<u8>::new(), "empty: a new one");
        s.give(vec![5]);
        s.clear();
        assert!(s.take().is_empty());
    }

    #[test]
    fn busy_slots_are_skipped_not_waited_for() {
        let s: Spare<Vec<u8>, 2> = Spare::new();
        s.give(vec![1]);
        s.give(vec![2]);
        let held = s.slots[0].lock().unwrap();
        assert_eq!(s.take(), vec![2], "slot 0 is busy: take from slot 1");
        s.give(vec![3]);
        assert_eq!(s.take(), vec![3]);
        s.give(vec![4]);
        assert_eq!(s.give(vec![5]), Some(vec![5]), "slot 0 busy, slot 1 full: handed back");
        drop(held);
        assert_eq!(s.take(), vec![1], "the busy slot kept its item");
        assert_eq!(s.take(), vec![4]);
        assert!(s.take().is_empty());
        s.give(vec![6]);
        s.give(vec![7]);
        let held = s.slots[1].lock().unwrap();
        s.clear();
        drop(held);
        assert_eq!(s.take(), vec![7], "clear skipped the busy slot instead of waiting");
        assert!(s.take().is_empty(), "and emptied the other one");
    }
}
