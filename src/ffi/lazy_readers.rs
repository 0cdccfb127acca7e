//! Which frame the blocks of a lazy chunk come from, for any context that names a super-chunk.
//!
//! `blosc2_schunk_get_lazychunk` on an on-disk frame hands out a chunk whose blocks stay on
//! disk. Every decompression context whose `dparams.schunk` (or, for getitem on a compression
//! context, `cparams.schunk`) is that super-chunk must be able to read them: the super-chunk's
//! own `schunk->dctx` as much as one the caller made. Those contexts are separate from the
//! super-chunk's internal engine, so the reader is published here, keyed by the public
//! `blosc2_schunk*`, when the super-chunk is registered, and withdrawn when it is freed.
//!
//! Looking a reader up never takes a super-chunk handle's lock: a decompression may run
//! inside a user callback (a postfilter, a codec, an I/O backend) that the super-chunk is
//! itself executing.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};

use libc::c_void;

use crate::chunk::decompress::LazyReader;

type Readers = RwLock<HashMap<usize, Arc<dyn LazyReader>>>;

fn readers() -> &'static Readers {
    static R: OnceLock<Readers> = OnceLock::new();
    R.get_or_init(|| RwLock::new(HashMap::new()))
}

/// Record (or, with `None`, clear) the reader of the super-chunk at `schunk`.
pub fn publish(schunk: *const c_void, reader: Option<Arc<dyn LazyReader>>) {
    let mut map = readers().write().unwrap_or_else(|e| e.into_inner());
    match reader {
        Some(r) => {
            map.insert(schunk as usize, r);
        }
        None => {
            map.remove(&(schunk as usize));
        }
    }
}

/// Forget the super-chunk at `schunk` (it is being freed; its address may be reused).
pub fn withdraw(schunk: *const c_void) {
    publish(schunk, None);
}

/// The reader of the super-chunk a context's parameters name, if it is an on-disk one.
pub fn reader_for(schunk: *const c_void) -> Option<Arc<dyn LazyReader>> {
    if schunk.is_null() {
        return None;
    }
    readers().read().unwrap_or_else(|e| e.into_inner()).get(&(schunk as usize)).cloned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Result;

    struct Fixed(u8);

    impl LazyReader for Fixed {
        fn read(&self, _: i32, _: i64, _: i64, len: usize) -> Result<Vec<u8>> {
            Ok(vec![self.0; len])
        }
    }

    #[test]
    fn readers_are_found_by_address_until_withdrawn() {
        let key = Box::new(0u64);
        let p = &*key as *const u64 as *const c_void;
        assert!(reader_for(p).is_none());
        publish(p, Some(Arc::new(Fixed(3))));
        assert_eq!(reader_for(p).unwrap().read(0, 0, 0, 2).unwrap(), vec![3, 3]);
        publish(p, Some(Arc::new(Fixed(4))));
        assert_eq!(reader_for(p).unwrap().read(0, 0, 0, 1).unwrap(), vec![4]);
        withdraw(p);
        assert!(reader_for(p).is_none());
        assert!(reader_for(std::ptr::null()).is_none());
    }
}
