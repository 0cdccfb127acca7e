//! One Blosc chunk: header, compression and decompression of its blocks, partial reads,
//! special-value chunks and variable-length-block chunks (README_CHUNK_FORMAT.rst).

pub mod blocksize;
pub mod compress;
pub mod decompress;
pub mod header;
pub mod hooks;
pub mod lazy;
pub mod params;
pub mod pipeline;
pub mod special;
pub mod v1;
pub mod workers;

pub use header::{ChunkHeader, Special};
pub use params::{CompressParams, DecompressParams};
