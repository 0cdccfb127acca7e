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
