//! Lazy chunks: a chunk of an on-disk frame handed out as its header and block starts only,
//! marked lazy (`blosc2_flags` bit 0x08), followed by a trailer: the chunk number (i32), the
//! chunk's position in the frame (i64) and each block's compressed size (i32 per block).
//! Decoding fetches each block's bytes from the frame through a [`LazyReader`].
//!
//! The checks and error codes follow the reference, so a damaged trailer is reported the
//! same way by both libraries (sizes that cannot be a block are `InvalidHeader`, a trailer
//! past the end of the buffer or a short block read is `ReadBuffer`).

use crate::error::{Error, Result};

/// Reads the blocks of a lazy chunk (one whose data stayed on disk) on demand.
pub trait LazyReader: Send + Sync {
    /// Read `len` bytes of chunk `nchunk` starting at byte `offset` of that chunk, where the
    /// chunk starts at `chunk_offset` in its frame.
    fn read(&self, nchunk: i32, chunk_offset: i64, offset: i64, len: usize) -> Result<Vec<u8>>;
    /// [`read`](Self::read) into `buf` (its length becomes what was read), for readers that
    /// can reuse the caller's buffer instead of allocating one per block.
    fn read_into(&self, nchunk: i32, chunk_offset: i64, offset: i64, len: usize, buf: &mut Vec<u8>) -> Result<()> {
        *buf = self.read(nchunk, chunk_offset, offset, len)?;
        Ok(())
    }
}

/// Bytes of one lazy chunk read ahead from disk in one go (the span covering the blocks a
/// reader is about to decode), served from memory; anything else goes to `fallback`.
pub struct Prefetched {
    /// Chunk number the read-ahead was made for (as in its lazy trailer).
    pub nchunk: i32,
    /// Chunk position the read-ahead was made for (as in its lazy trailer).
    pub chunk_offset: i64,
    /// Where `bytes` start in the chunk.
    pub start: i64,
    /// The bytes read ahead.
    pub bytes: Vec<u8>,
    /// Reader for anything outside `bytes`; without one such reads fail with `InvalidParam`.
    pub fallback: Option<std::sync::Arc<dyn LazyReader>>,
}

impl LazyReader for Prefetched {
    fn read(&self, nchunk: i32, chunk_offset: i64, offset: i64, len: usize) -> Result<Vec<u8>> {
        if nchunk == self.nchunk && chunk_offset == self.chunk_offset && offset >= self.start {
            let from = usize::try_from(offset - self.start).ok();
            if let Some(b) = from.and_then(|f| self.bytes.get(f..f.checked_add(len)?)) {
                return Ok(b.to_vec());
            }
        }
        match &self.fallback {
            Some(f) => f.read(nchunk, chunk_offset, offset, len),
            None => Err(Error::InvalidParam),
        }
    }
}

/// The chunk number and position its trailer records, and the byte span `[lo, hi)` of a
/// lazy chunk (as [`crate::frame::cframe::Frame::lazy_chunk`] builds it) that holds the
/// blocks marked in `needed`, from its block starts (or, memcpyed, the block size) and
/// trailer. `None` when there is nothing to read ahead (no block needed, special or
/// VL-block chunks, a chunk claiming more than `max_nbytes` uncompressed bytes, or sizes
/// that could not be blocks: the decoder then reports them as usual). The span is never
/// larger than the chunk's blocks could be, so a damaged chunk cannot make it allocate more.
pub fn needed_span(lazy: &[u8], needed: &[bool], max_nbytes: usize) -> Option<(i32, i64, i64, i64)> {
    use super::header::ChunkHeader;
    let h = ChunkHeader::read(lazy).ok()?;
    if !h.lazy() || h.vlblocks() || h.special() != Some(super::header::Special::None) {
        return None;
    }
    if h.nbytes as usize > max_nbytes {
        return None;
    }
    let (hlen, cbytes) = (h.header_len(), h.cbytes as i64);
    let nblocks = (h.nbytes.max(0) as usize).div_ceil(h.blocksize.max(1) as usize);
    if needed.len() != nblocks {
        return None;
    }
    let max_csize = h.blocksize as i64 + 4 * h.typesize as i64;
    let trailer = LazyTrailer::parse(lazy, hlen + 4 * nblocks, nblocks, max_csize).ok()?;
    let (mut lo, mut hi) = (i64::MAX, 0i64);
    let bs = h.blocksize as i64;
    for (j, _) in needed.iter().enumerate().filter(|(_, &n)| n) {
        let mut csize = trailer.csize(j)? as i64;
        let start = if h.memcpyed() {
            // Blocks lie one after the other; a block is read whole, or as far as the
            // trailer says when that is more.
            csize = csize.max(bs.min(h.nbytes as i64 - j as i64 * bs));
            hlen as i64 + j as i64 * bs
        } else {
            le_i32(lazy, hlen + 4 * j).ok()? as i64
        };
        if start <= 0 || csize <= 0 || csize > max_csize || start + csize > cbytes {
            return None;
        }
        lo = lo.min(start);
        hi = hi.max(start + csize);
    }
    (lo < hi && hi - lo <= nblocks as i64 * max_csize).then_some((trailer.nchunk, trailer.chunk_offset, lo, hi))
}

/// The trailer of a lazy chunk, validated against the buffer it came in.
#[derive(Debug, Clone)]
pub struct LazyTrailer<'a> {
    /// Chunk number the frame recorded: the chunk's index in a contiguous frame, its file
    /// number in a sparse one. Handed back to the [`LazyReader`].
    pub nchunk: i32,
    /// Where the chunk is: its byte position in a contiguous frame, its file number in a
    /// sparse frame. Handed back to the [`LazyReader`].
    pub chunk_offset: i64,
    /// Compressed size of each block, as the frame recorded it: the table as it lies in the
    /// chunk (little-endian i32s), read an entry at a time (a call reading one block of a
    /// chunk of thousands should not copy them all).
    csizes: &'a [u8],
    /// The largest compressed size a block may claim: the block size plus one 4-byte stream
    /// header per byte of the type (for VL blocks, the widest gap between block starts).
    pub max_csize: i64,
    /// VL-block chunks: each block's span in the chunk (gap to the next block start).
    pub vl_spans: Option<Vec<usize>>,
}

fn le_i32(src: &[u8], at: usize) -> Result<i32> {
    let b = src.get(at..at + 4).ok_or(Error::ReadBuffer)?;
    Ok(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

impl<'a> LazyTrailer<'a> {
    /// Parse the trailer that starts at `at` (just past the block starts, which memcpyed
    /// chunks leave zeroed) for `nblocks` blocks.
    pub fn parse(src: &'a [u8], at: usize, nblocks: usize, max_csize: i64) -> Result<LazyTrailer<'a>> {
        let end = nblocks.checked_mul(4).and_then(|n| n.checked_add(at + 12)).ok_or(Error::ReadBuffer)?;
        if src.len() < end {
            return Err(Error::ReadBuffer);
        }
        let nchunk = le_i32(src, at)?;
        let chunk_offset = i64::from_le_bytes(src[at + 4..at + 12].try_into().expect("8 bytes"));
        let csizes = &src[at + 12..end];
        Ok(LazyTrailer { nchunk, chunk_offset, csizes, max_csize, vl_spans: None })
    }

    /// The compressed size the trailer records for block `j`.
    pub fn csize(&self, j: usize) -> Option<i32> {
        let b = self.csizes.get(j.checked_mul(4)?..j.checked_mul(4)? + 4)?;
        Some(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// Check and record the block starts of a lazy VL-block chunk of `cbytes` bytes on disk:
    /// they must rise strictly from the end of the starts table. Returns the starts.
    pub fn set_vl_spans(&mut self, src: &[u8], hlen: usize, nblocks: usize, cbytes: usize, typesize: usize) -> Result<Vec<usize>> {
        let bstarts_end = hlen + 4 * nblocks;
        let mut starts = Vec::with_capacity(nblocks);
        let mut spans = Vec::with_capacity(nblocks);
        for j in 0..nblocks {
            let start = le_i32(src, hlen + 4 * j)? as i64;
            let next = if j + 1 < nblocks { le_i32(src, hlen + 4 * (j + 1))? as i64 } else { cbytes as i64 };
            if start < bstarts_end as i64 || next <= start || next > cbytes as i64 {
                return Err(Error::InvalidHeader);
            }
            starts.push(start as usize);
            spans.push((next - start) as usize);
        }
        let widest = spans.iter().copied().max().unwrap_or(0) as i64;
        self.max_csize = widest + 4 * typesize as i64;
        self.vl_spans = Some(spans);
        Ok(starts)
    }

    /// The compressed size of block `j`, checked as a block size.
    fn block_csize(&self, j: usize, vl: bool) -> Result<usize> {
        let c = self.csize(j).ok_or(Error::InvalidHeader)?;
        if c <= 0 || c as i64 > self.max_csize || (vl && c <= 4) {
            return Err(Error::InvalidHeader);
        }
        Ok(c as usize)
    }

    fn reader(reader: Option<&dyn LazyReader>) -> Result<&dyn LazyReader> {
        // A lazy chunk decodes only in a context tied to the super-chunk it came from.
        reader.ok_or(Error::InvalidParam)
    }

    /// A negative position in the chunk is a damaged header. (The chunk's own position is
    /// the reader's to check: sparse frames do not use it.)
    fn check_position(&self, start: i64) -> Result<()> {
        if start < 0 {
            return Err(Error::InvalidHeader);
        }
        Ok(())
    }

    /// Allow blocks as large as `len` uncompressed bytes (plus stream headers), as the
    /// reference does once it knows the size of a VL block.
    pub fn admit_block_len(&mut self, len: usize, typesize: usize) {
        self.max_csize = self.max_csize.max(len as i64 + 4 * typesize as i64);
    }

    /// The stored bytes of block `j`, which starts at byte `start` of the chunk.
    pub fn fetch_block(&self, reader: Option<&dyn LazyReader>, j: usize, start: i64, vl: bool) -> Result<Vec<u8>> {
        let mut buf = Vec::new();
        self.fetch_block_into(reader, j, start, vl, &mut buf)?;
        Ok(buf)
    }

    /// [`fetch_block`](Self::fetch_block) into `buf` (reused between blocks).
    pub fn fetch_block_into(&self, reader: Option<&dyn LazyReader>, j: usize, start: i64, vl: bool, buf: &mut Vec<u8>) -> Result<()> {
        let reader = Self::reader(reader)?;
        let len = self.block_csize(j, vl)?;
        self.read_block_into(reader, start, len, buf)
    }

    /// The `len` bytes of memcpyed block `j`, which starts at byte `start` of the chunk. Its
    /// length is known from the header. The trailer's size is checked as a block size and,
    /// when larger, read too (a read past the end of the data fails as in the reference);
    /// a smaller one does not shorten the block (the reference would copy stale bytes).
    pub fn fetch_memcpyed_block(&self, reader: Option<&dyn LazyReader>, j: usize, start: i64, len: usize) -> Result<Vec<u8>> {
        let mut buf = Vec::new();
        self.fetch_memcpyed_block_into(reader, j, start, len, &mut buf)?;
        Ok(buf)
    }

    /// [`fetch_memcpyed_block`](Self::fetch_memcpyed_block) into `buf` (reused between
    /// blocks).
    pub fn fetch_memcpyed_block_into(&self, reader: Option<&dyn LazyReader>, j: usize, start: i64, len: usize, buf: &mut Vec<u8>) -> Result<()> {
        let reader = Self::reader(reader)?;
        let csize = self.block_csize(j, false)?;
        self.read_block_into(reader, start, len.max(csize), buf)?;
        buf.truncate(len);
        Ok(())
    }

    fn read_block_into(&self, reader: &dyn LazyReader, start: i64, len: usize, buf: &mut Vec<u8>) -> Result<()> {
        self.check_position(start)?;
        match reader.read_into(self.nchunk, self.chunk_offset, start, len, buf) {
            Ok(()) if buf.len() == len => Ok(()),
            Ok(()) | Err(Error::FileRead) => Err(Error::ReadBuffer),
            Err(e) => Err(e),
        }
    }

    /// `len` bytes at byte `offset` of the chunk (metadata such as a dictionary).
    pub fn fetch_bytes(&self, reader: Option<&dyn LazyReader>, offset: i64, len: usize) -> Result<Vec<u8>> {
        let reader = Self::reader(reader)?;
        self.check_position(offset)?;
        match reader.read(self.nchunk, self.chunk_offset, offset, len) {
            Ok(v) if v.len() == len => Ok(v),
            Ok(_) | Err(Error::ReadBuffer) => Err(Error::FileRead),
            Err(e) => Err(e),
        }
    }

    /// The uncompressed size of VL block `j` (the first 4 bytes of its span on disk).
    pub fn vl_block_len(&self, reader: Option<&dyn LazyReader>, j: usize, start: i64) -> Result<usize> {
        let reader = Self::reader(reader)?;
        let c = self.csize(j).ok_or(Error::InvalidHeader)?;
        if c < 4 {
            return Err(Error::InvalidHeader);
        }
        self.check_position(start)?;
        let head = match reader.read(self.nchunk, self.chunk_offset, start, 4) {
            Ok(v) if v.len() == 4 => v,
            Ok(_) | Err(Error::ReadBuffer) => return Err(Error::FileRead),
            Err(e) => return Err(e),
        };
        let n = le_i32(&head, 0)?;
        if n <= 0 {
            return Err(Error::InvalidHeader);
        }
        Ok(n as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Serves reads from one in-memory chunk.
    struct Mem(Vec<u8>);

    impl LazyReader for Mem {
        fn read(&self, _nchunk: i32, _chunk_offset: i64, offset: i64, len: usize) -> Result<Vec<u8>> {
            let s = offset as usize;
            self.0.get(s..s + len).map(<[u8]>::to_vec).ok_or(Error::ReadBuffer)
        }
    }

    fn trailer(csizes: &[i32]) -> Vec<u8> {
        let mut t = 7i32.to_le_bytes().to_vec();
        t.extend_from_slice(&100i64.to_le_bytes());
        for c in csizes {
            t.extend_from_slice(&c.to_le_bytes());
        }
        t
    }

    #[test]
    fn parse_reads_fields_and_rejects_short_buffers() {
        let mut src = vec![0u8; 8];
        src.extend(trailer(&[10, 20]));
        let t = LazyTrailer::parse(&src, 8, 2, 64).unwrap();
        assert_eq!((t.nchunk, t.chunk_offset, t.csize(0), t.csize(1), t.csize(2)), (7, 100, Some(10), Some(20), None));
        assert_eq!(LazyTrailer::parse(&src[..src.len() - 1], 8, 2, 64).unwrap_err(), Error::ReadBuffer);
    }

    #[test]
    fn block_sizes_that_cannot_be_blocks_are_invalid_headers() {
        let bytes = trailer(&[0, 65, 3, 16]);
        let t = LazyTrailer::parse(&bytes, 0, 4, 64).unwrap();
        let r = Mem(vec![9u8; 200]);
        assert_eq!(t.fetch_block(Some(&r), 0, 0, false).unwrap_err(), Error::InvalidHeader);
        assert_eq!(t.fetch_block(Some(&r), 1, 0, false).unwrap_err(), Error::InvalidHeader);
        assert_eq!(t.fetch_block(Some(&r), 2, 0, true).unwrap_err(), Error::InvalidHeader);
        assert_eq!(t.fetch_block(Some(&r), 3, 0, false).unwrap(), vec![9u8; 16]);
        assert_eq!(t.fetch_block(Some(&r), 3, -1, false).unwrap_err(), Error::InvalidHeader);
        assert_eq!(t.fetch_memcpyed_block(Some(&r), 3, 0, 40).unwrap(), vec![9u8; 40]);
        assert_eq!(t.fetch_memcpyed_block(Some(&r), 3, 0, 8).unwrap(), vec![9u8; 8]);
        assert_eq!(t.fetch_memcpyed_block(Some(&r), 3, 190, 8).unwrap_err(), Error::ReadBuffer);
        assert_eq!(t.fetch_memcpyed_block(Some(&r), 1, 0, 40).unwrap_err(), Error::InvalidHeader);
        let mut wide = t.clone();
        wide.admit_block_len(100, 4);
        assert_eq!(wide.fetch_block(Some(&r), 1, 0, false).unwrap(), vec![9u8; 65]);
        assert_eq!(t.fetch_block(Some(&r), 3, 190, false).unwrap_err(), Error::ReadBuffer);
        assert_eq!(t.fetch_block(None, 3, 0, false).unwrap_err(), Error::InvalidParam);
        // Without a reader nothing else is looked at (as the reference checks the super-chunk first).
        assert_eq!(t.fetch_block(None, 0, 0, false).unwrap_err(), Error::InvalidParam);
        assert_eq!(t.fetch_memcpyed_block(None, 1, 0, 8).unwrap_err(), Error::InvalidParam);
    }

    #[test]
    fn vl_spans_must_rise_from_the_starts_table() {
        // header of 32 bytes, 2 starts, then the trailer; blocks at 40 and 50 of a 60-byte chunk
        let mut src = vec![0u8; 32];
        src.extend_from_slice(&40i32.to_le_bytes());
        src.extend_from_slice(&50i32.to_le_bytes());
        src.extend(trailer(&[10, 10]));
        let mut t = LazyTrailer::parse(&src, 40, 2, 0).unwrap();
        assert_eq!(t.set_vl_spans(&src, 32, 2, 60, 1).unwrap(), vec![40, 50]);
        assert_eq!(t.vl_spans, Some(vec![10, 10]));
        assert_eq!(t.max_csize, 14);
        assert_eq!(t.set_vl_spans(&src, 32, 2, 45, 1).unwrap_err(), Error::InvalidHeader);
        let mut moved = src.clone();
        moved[32] = 36;
        assert_eq!(t.set_vl_spans(&moved, 32, 2, 60, 1).unwrap_err(), Error::InvalidHeader);
    }

    #[test]
    fn vl_block_len_peeks_the_size_prefix() {
        let bytes = trailer(&[8, 2]);
        let t = LazyTrailer::parse(&bytes, 0, 2, 64).unwrap();
        let mut disk = vec![0u8; 8];
        disk[..4].copy_from_slice(&5i32.to_le_bytes());
        let r = Mem(disk);
        assert_eq!(t.vl_block_len(Some(&r), 0, 0).unwrap(), 5);
        assert_eq!(t.vl_block_len(Some(&r), 1, 0).unwrap_err(), Error::InvalidHeader);
        assert_eq!(t.vl_block_len(Some(&r), 0, 6).unwrap_err(), Error::FileRead);
        assert_eq!(t.vl_block_len(Some(&r), 0, 4).unwrap_err(), Error::InvalidHeader);
    }
}
