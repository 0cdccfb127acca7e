//! Per-block callbacks supplied by the user (prefilter, postfilter) and the block-level
//! information handed to them. The C layer implements these traits over C function pointers.

/// Where a block sits, for callbacks.
#[derive(Debug, Clone, Copy)]
pub struct BlockInfo {
    /// Chunk number in the super-chunk (-1 outside one).
    pub nchunk: i64,
    /// Index of the block in its chunk.
    pub nblock: i32,
    /// Byte offset of the block inside the chunk's uncompressed data.
    pub offset: i32,
    /// Uncompressed bytes of the block (the last block may be shorter).
    pub size: i32,
    /// Bytes per item of the chunk.
    pub typesize: i32,
    /// Index of the thread running the callback (0 for the caller's thread).
    pub tid: i32,
}

/// Produces the data of a block before the filter pipeline runs.
pub trait Prefilter: Send + Sync {
    /// `input` is the source from the block's start to the end of the buffer (may be empty when
    /// the caller compresses with no source); `output` is exactly the block.
    /// Returns 0 on success.
    fn apply(&self, info: &BlockInfo, input: &[u8], output: &mut [u8], output_is_disposable: bool)
        -> i32;
}

/// Transforms a decompressed block after the filter pipeline ran.
pub trait Postfilter: Send + Sync {
    /// `input` is the decoded block; `output` the block's place in the destination.
    fn apply(&self, info: &BlockInfo, input: &[u8], output: &mut [u8]) -> i32;
}

/// A tuner's hooks around each chunk a compressor writes (`blosc2_register_tuner`). They
/// observe the compression; the block size and parameters stay those of the compressor.
pub trait Tuner: Send + Sync {
    /// Before a chunk is compressed. A negative return fails the compression.
    fn before_chunk(&self) -> i32;
    /// After a chunk was written, with the seconds it took. A negative return fails the call.
    fn after_chunk(&self, seconds: f64) -> i32;
}

/// Scratch memory for callbacks, one buffer per worker thread (the reference's `ttmp`):
/// a prefilter or postfilter gets the buffer of the thread running it, grown to the size
/// asked and kept for the next block.
pub struct ThreadScratch(Vec<std::sync::Mutex<Vec<u8>>>);

impl Default for ThreadScratch {
    fn default() -> ThreadScratch {
        ThreadScratch((0..64).map(|_| std::sync::Mutex::new(Vec::new())).collect())
    }
}

impl ThreadScratch {
    /// Run `f` with thread `tid`'s buffer, at least `size` bytes long. A buffer in use (the
    /// callback re-entered this context, or two contexts' threads share a slot) is not
    /// waited for: that call gets a buffer of its own, so no callback waits on a lock here.
    pub fn with<R>(&self, tid: i32, size: usize, f: impl FnOnce(&mut [u8]) -> R) -> R {
        let slot = &self.0[(tid.max(0) as usize) % self.0.len()];
        let mut own = Vec::new();
        let mut held = match slot.try_lock() {
            Ok(g) => Some(g),
            Err(std::sync::TryLockError::Poisoned(e)) => Some(e.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => None,
        };
        let v = held.as_deref_mut().unwrap_or(&mut own);
        if v.len() < size {
            v.resize(size, 0);
        }
        f(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scratch_is_kept_per_thread_and_never_shared_while_in_use() {
        let s = ThreadScratch::default();
        let first = s.with(3, 100, |b| {
            b[0] = 7;
            b.as_ptr() as usize
        });
        // The same thread gets its buffer back, with what it left there.
        assert_eq!(s.with(3, 10, |b| (b.as_ptr() as usize, b.len(), b[0])), (first, 100, 7));
        // A re-entrant call gets a buffer of its own instead of waiting for the held one.
        s.with(3, 8, |outer| {
            let inner = s.with(3, 8, |b| b.as_ptr() as usize);
            assert_ne!(inner, outer.as_ptr() as usize);
        });
        assert!(s.with(-1, 16, |b| b.len()) >= 16);
    }
}
