//! One Blosc chunk: header, compression and decompression of its blocks, partial reads,
//! special-value chunks and variable-length-block chunks (README_CHUNK_FORMAT.rst).

pub mod blocksize;
pub mod compress;
pub mod decompress;
mod dest;
pub mod header;
pub mod hooks;
pub mod lazy;
pub mod params;
pub mod pipeline;
mod runs;
pub mod special;
pub mod v1;
pub mod spare;
pub mod workers;

pub use header::{ChunkHeader, Special};
pub use params::{CompressParams, DecompressParams};

use crate::error::{Error, Result};

/// Compress `src` into a new chunk with `params`, as `blosc2_compress_ctx` does.
///
/// For many chunks keep a [`compress::Compressor`]: it keeps its threads and scratch
/// buffers between calls.
///
/// ```
/// use blosc2::chunk::{self, CompressParams};
/// use blosc2::codecs::Codec;
///
/// let data: Vec<u8> = (0..10_000u32).flat_map(|i| i.to_le_bytes()).collect();
/// let params = CompressParams::default().with_codec(Codec::Zstd).with_clevel(5).with_typesize(4);
/// let c = chunk::compress(&data, &params)?;
/// assert!(c.len() < data.len() / 10);
/// assert_eq!(chunk::decompress(&c)?, data);
/// // Items 100..103 (typesize 4), decoding only the block that holds them.
/// assert_eq!(chunk::getitem(&c, 100, 3)?, data[400..412]);
/// # Ok::<(), blosc2::Error>(())
/// ```
pub fn compress(src: &[u8], params: &CompressParams) -> Result<Vec<u8>> {
    compress::Compressor::new(params.clone()).compress_to_vec(src)
}

/// Decompress a whole chunk (written by this library, any c-blosc2, or c-blosc 1.x).
pub fn decompress(chunk: &[u8]) -> Result<Vec<u8>> {
    let h = ChunkHeader::read(chunk)?;
    let mut out = vec![0u8; h.nbytes.max(0) as usize];
    let n = decompress::Decompressor::new(DecompressParams::default()).decompress(chunk, &mut out)?;
    out.truncate(n);
    Ok(out)
}

/// Items `start..start + nitems` of a chunk (its header's typesize), decoding only the
/// blocks that hold them (`blosc2_getitem`).
pub fn getitem(chunk: &[u8], start: usize, nitems: usize) -> Result<Vec<u8>> {
    let h = ChunkHeader::read(chunk)?;
    let ts = h.typesize.max(1) as usize;
    let (from, len) = (start.checked_mul(ts), nitems.checked_mul(ts));
    let (Some(from), Some(len)) = (from, len) else { return Err(Error::InvalidParam) };
    let mut out = vec![0u8; len];
    let n = decompress::Decompressor::new(DecompressParams::default()).get_bytes(chunk, from, len, &mut out)?;
    out.truncate(n);
    Ok(out)
}
