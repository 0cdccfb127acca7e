//! Reading and writing hyper-rectangles (`[start, stop)` per dimension) of an array.
//!
//! Chunks are visited in C order of the chunk grid, only those the slice touches, and inside
//! a chunk the blocks in C order; writes recompress each touched chunk once. That order and
//! the padding left in edge chunks (zeros for chunks the slice covers entirely, the previous
//! contents otherwise) are the reference's, so the chunks written are byte-identical.

use super::copy::{copy_region, Region};
use super::{strides_of, unravel, Geometry, MAX_DIM};
use crate::error::{Error, Result};

/// Where the chunks of an array live (a super-chunk, in practice).
pub trait ChunkIo {
    /// Decompress chunk `n` into `dest` (one padded chunk).
    fn read_chunk(&mut self, n: i64, dest: &mut [u8]) -> Result<()>;
    /// Decompress at least the blocks marked in `needed` of chunk `n` into their places in
    /// `dest`; other blocks may be left untouched.
    fn read_blocks(&mut self, n: i64, needed: &[bool], dest: &mut [u8]) -> Result<()> {
        let _ = needed;
        self.read_chunk(n, dest)
    }
    /// Decompress block `nblock` of chunk `n` into `dest` (one block), if this store can do
    /// that cheaply; `Ok(false)` when it cannot (the caller then reads blocks in a chunk).
    fn read_block(&mut self, n: i64, nblock: usize, dest: &mut [u8]) -> Result<bool> {
        let _ = (n, nblock, dest);
        Ok(false)
    }
    /// Decode the blocks marked in `needed` of chunk `n` one at a time, handing each to
    /// `sink` with its number while it is in cache, if this store can do that; `Ok(false)`
    /// when it cannot (the caller then reads them into a chunk buffer).
    /// `chunk_bytes` is what a chunk of the array holds, decoded.
    fn for_blocks(
        &mut self,
        n: i64,
        needed: &[bool],
        chunk_bytes: usize,
        sink: &mut dyn FnMut(usize, &[u8]) -> Result<()>,
    ) -> Result<bool> {
        let _ = (n, needed, chunk_bytes, sink);
        Ok(false)
    }
    /// Reads touching at most one block in this many go block by block.
    fn compact_ratio(&self) -> usize {
        16
    }
    /// Compress `data` (one padded chunk) and store it as chunk `n`.
    fn write_chunk(&mut self, n: i64, data: &[u8]) -> Result<()>;
}

/// `start`/`stop` must lie inside the shape with `start <= stop` (the reference does not
/// check this and reads or writes the in-bounds part only).
pub fn check_bounds(g: &Geometry, start: &[i64], stop: &[i64]) -> Result<()> {
    if start.len() != g.ndim || stop.len() != g.ndim {
        return Err(Error::InvalidParam);
    }
    for i in 0..g.ndim {
        if start[i] < 0 || start[i] > stop[i] || stop[i] > g.shape[i] {
            return Err(Error::InvalidParam);
        }
    }
    Ok(())
}

/// The buffer must hold the slice laid out with `bufshape`: every dimension at least as
/// large as the slice's, and `buflen` bytes reaching its last item.
pub fn check_buffer(typesize: usize, start: &[i64], stop: &[i64], bufshape: &[i64], buflen: usize) -> Result<()> {
    let nd = start.len();
    if bufshape.len() != nd {
        return Err(Error::InvalidParam);
    }
    let mut nitems: i64 = 1;
    for i in 0..nd {
        let len = stop[i] - start[i];
        if len > bufshape[i] || bufshape[i] < 0 {
            return Err(Error::InvalidParam);
        }
        nitems = nitems.checked_mul(len).ok_or(Error::InvalidParam)?;
    }
    if nitems == 0 {
        return Ok(());
    }
    let st = strides_of(bufshape);
    let last: i64 = (0..nd).map(|i| (stop[i] - start[i] - 1) * st[i]).sum();
    let need = (last as u128 + 1) * typesize as u128;
    let slice_bytes = nitems as u128 * typesize as u128;
    if (buflen as u128) < need.max(slice_bytes) {
        return Err(Error::InvalidParam);
    }
    Ok(())
}

/// One chunk touched by a slice.
struct ChunkVisit {
    n: i64,
    start: [i64; MAX_DIM],
    /// Clipped to the array's shape.
    stop: [i64; MAX_DIM],
}

/// The chunks touched by `[start, stop)`, in the order the reference visits them.
fn touched_chunks(g: &Geometry, start: &[i64], stop: &[i64]) -> Vec<ChunkVisit> {
    let nd = g.ndim;
    let per_dim = g.chunks_per_dim();
    let grid_strides = strides_of(&per_dim[..nd]);
    let mut first = [0i64; MAX_DIM];
    let mut count = [1i64; MAX_DIM];
    for i in 0..nd {
        let cs = g.chunkshape[i] as i64;
        first[i] = start[i] / cs;
        let end = ((stop[i] + cs - 1) / cs).max(first[i] + 1);
        count[i] = end - first[i];
    }
    let total: i64 = count[..nd].iter().product();
    let mut out = Vec::new();
    let mut idx = [0i64; MAX_DIM];
    for k in 0..total {
        unravel(k, &count[..nd], &mut idx[..nd]);
        let mut v = ChunkVisit { n: 0, start: [0; MAX_DIM], stop: [0; MAX_DIM] };
        let mut empty = false;
        for i in 0..nd {
            let c = first[i] + idx[i];
            v.n += c * grid_strides[i];
            v.start[i] = c * g.chunkshape[i] as i64;
            v.stop[i] = (v.start[i] + g.chunkshape[i] as i64).min(g.shape[i]);
            empty |= v.stop[i] <= start[i] || v.start[i] >= stop[i];
        }
        if !empty {
            out.push(v);
        }
    }
    out
}

/// The part of block `nblock` of a chunk that lies in the slice: `(block_start, lo, hi)` in
/// array coordinates, `None` if nothing.
fn block_part(
    g: &Geometry,
    c: &ChunkVisit,
    nblock: i64,
    start: &[i64],
    stop: &[i64],
) -> Option<([i64; MAX_DIM], [i64; MAX_DIM], [i64; MAX_DIM])> {
    let nd = g.ndim;
    let per_dim = g.blocks_per_dim();
    let mut bidx = [0i64; MAX_DIM];
    unravel(nblock, &per_dim[..nd], &mut bidx[..nd]);
    let (mut bstart, mut lo, mut hi) = ([0i64; MAX_DIM], [0i64; MAX_DIM], [0i64; MAX_DIM]);
    for i in 0..nd {
        let bs = g.blockshape[i] as i64;
        bstart[i] = c.start[i] + bidx[i] * bs;
        let bstop = (bstart[i] + bs).min(c.stop[i]);
        lo[i] = bstart[i].max(start[i]);
        hi[i] = bstop.min(stop[i]);
        if lo[i] >= hi[i] {
            return None;
        }
    }
    Some((bstart, lo, hi))
}

/// Which blocks of a chunk the slice touches (one flag per block, in C order): those whose
/// index lies, along every dimension, between the blocks holding the slice's first and last
/// items inside the chunk.
fn needed_blocks(g: &Geometry, c: &ChunkVisit, start: &[i64], stop: &[i64]) -> Vec<bool> {
    let nd = g.ndim;
    let per_dim = g.blocks_per_dim();
    let mut first = [0i64; MAX_DIM];
    let mut last = [-1i64; MAX_DIM];
    for i in 0..nd {
        let bs = g.blockshape[i] as i64;
        let lo = start[i].max(c.start[i]);
        let hi = stop[i].min(c.stop[i]);
        if bs > 0 && lo < hi {
            first[i] = (lo - c.start[i]) / bs;
            last[i] = (hi - 1 - c.start[i]) / bs;
        }
    }
    let nb = nblocks(g).max(0) as usize;
    let mut out = vec![false; nb];
    if nb == 0 || (0..nd).any(|i| last[i] < first[i]) {
        return out;
    }
    // Only the box of needed blocks is visited (a chunk may hold millions of blocks).
    let strides = strides_of(&per_dim[..nd]);
    let count: Vec<i64> = (0..nd).map(|i| last[i] - first[i] + 1).collect();
    let total: i64 = count.iter().product();
    let mut idx = [0i64; MAX_DIM];
    for k in 0..total {
        unravel(k, &count, &mut idx[..nd]);
        let b: i64 = (0..nd).map(|i| (first[i] + idx[i]) * strides[i]).sum();
        if let Some(o) = out.get_mut(b as usize) {
            *o = true;
        }
    }
    out
}

fn nblocks(g: &Geometry) -> i64 {
    if g.blocknitems == 0 {
        0
    } else {
        g.extchunknitems / g.blocknitems as i64
    }
}

type Part = ([i64; MAX_DIM], [i64; MAX_DIM], [i64; MAX_DIM]);

/// The copy between one block and the user's buffer: shape of the part, where it starts in
/// the block and in the buffer, and the block's shape.
fn block_copy_spec(g: &Geometry, part: &Part, start: &[i64]) -> [[i64; MAX_DIM]; 4] {
    let (bstart, lo, hi) = part;
    let mut spec = [[0i64; MAX_DIM]; 4];
    for i in 0..g.ndim {
        spec[0][i] = hi[i] - lo[i];
        spec[1][i] = lo[i] - bstart[i];
        spec[2][i] = lo[i] - start[i];
        spec[3][i] = g.blockshape[i] as i64;
    }
    spec
}

/// Copy the part of one decoded block (`block`, exactly one block) that lies in the slice
/// into the user's buffer.
fn copy_block_out(
    g: &Geometry,
    typesize: usize,
    block: &[u8],
    part: &Part,
    start: &[i64],
    dst: &mut [u8],
    bufshape: &[i64],
) -> Result<()> {
    let nd = g.ndim;
    let [shape, in_block, in_buf, bshape] = block_copy_spec(g, part, start);
    let b = Region { pad_shape: &bshape[..nd], start: &in_block[..nd] };
    let u = Region { pad_shape: bufshape, start: &in_buf[..nd] };
    copy_region(typesize, &shape[..nd], block, &b, dst, &u)
}

/// Block `nblock` of a decompressed chunk.
fn block_of<'a>(g: &Geometry, typesize: usize, chunk: &'a mut [u8], nblock: i64) -> Result<&'a mut [u8]> {
    let block_bytes = g.blocknitems as usize * typesize;
    let off = nblock as usize * block_bytes;
    chunk.get_mut(off..off + block_bytes).ok_or(Error::Failure)
}

/// Copy the user's buffer into the part of block `nblock` of a decompressed chunk that
/// lies in the slice.
#[allow(clippy::too_many_arguments)] // each is one coordinate of the copy; a struct would only rename them
fn copy_block_in(
    g: &Geometry,
    typesize: usize,
    chunk: &mut [u8],
    nblock: i64,
    part: &Part,
    start: &[i64],
    src: &[u8],
    bufshape: &[i64],
) -> Result<()> {
    let nd = g.ndim;
    let [shape, in_block, in_buf, bshape] = block_copy_spec(g, part, start);
    let block = block_of(g, typesize, chunk, nblock)?;
    let b = Region { pad_shape: &bshape[..nd], start: &in_block[..nd] };
    let u = Region { pad_shape: bufshape, start: &in_buf[..nd] };
    copy_region(typesize, &shape[..nd], src, &u, block, &b)
}

/// Read `[start, stop)` into `buf`, laid out as a dense array of `bufshape` with the slice at
/// its origin. Only the blocks the slice touches are asked for.
pub fn get(
    g: &Geometry,
    typesize: usize,
    io: &mut dyn ChunkIo,
    start: &[i64],
    stop: &[i64],
    buf: &mut [u8],
    bufshape: &[i64],
) -> Result<()> {
    check_bounds(g, start, stop)?;
    check_buffer(typesize, start, stop, bufshape, buf.len())?;
    if g.nitems == 0 {
        return Ok(());
    }
    let chunk_bytes = g.chunk_nbytes(typesize as i32)? as usize;
    let block_bytes = g.blocknitems as usize * typesize;
    // Both scratch buffers are allocated on first use: a small read never touches a chunk's.
    let mut data: Vec<u8> = Vec::new();
    let mut block: Vec<u8> = Vec::new();
    let nb = nblocks(g);
    for c in touched_chunks(g, start, stop) {
        let needed = needed_blocks(g, &c, start, stop);
        // Block by block, each copied out while still in cache.
        let mut sink = |b: usize, bytes: &[u8]| match block_part(g, &c, b as i64, start, stop) {
            Some(p) => copy_block_out(g, typesize, bytes, &p, start, buf, bufshape),
            None => Ok(()),
        };
        if io.for_blocks(c.n, &needed, chunk_bytes, &mut sink)? {
            continue;
        }
        // The parts of the needed blocks, worked out one at a time (a chunk may hold millions
        // of one-item blocks: nothing per block is kept).
        let part = |b: usize| if needed[b] { block_part(g, &c, b as i64, start, stop) } else { None };
        let count = needed.iter().filter(|&&b| b).count();
        if count.saturating_mul(io.compact_ratio()) <= needed.len() {
            block.resize(block_bytes, 0);
            let mut done = true;
            for b in 0..nb as usize {
                let Some(p) = part(b) else { continue };
                if !io.read_block(c.n, b, &mut block)? {
                    done = false;
                    break;
                }
                copy_block_out(g, typesize, &block, &p, start, buf, bufshape)?;
            }
            if done {
                continue;
            }
        }
        // Every block read lands in its place (the others are not looked at): the buffer
        // needs no clearing between chunks.
        if data.len() != chunk_bytes {
            data.resize(chunk_bytes, 0);
        }
        io.read_blocks(c.n, &needed, &mut data)?;
        for b in 0..nb as usize {
            if let Some(p) = part(b) {
                let blk = block_of(g, typesize, &mut data, b as i64)?;
                copy_block_out(g, typesize, blk, &p, start, buf, bufshape)?;
            }
        }
    }
    Ok(())
}

/// Write `buf` (laid out as `bufshape`, slice at its origin) into `[start, stop)`. All
/// checks happen before the first chunk is written.
pub fn set(
    g: &Geometry,
    typesize: usize,
    io: &mut dyn ChunkIo,
    start: &[i64],
    stop: &[i64],
    buf: &[u8],
    bufshape: &[i64],
) -> Result<()> {
    check_bounds(g, start, stop)?;
    check_buffer(typesize, start, stop, bufshape, buf.len())?;
    if g.nitems == 0 {
        return Ok(());
    }
    let chunk_bytes = g.chunk_nbytes(typesize as i32)? as usize;
    let mut data = vec![0u8; chunk_bytes];
    let nb = nblocks(g);
    for c in touched_chunks(g, start, stop) {
        let partial = (0..g.ndim).any(|i| c.start[i] < start[i] || c.stop[i] > stop[i]);
        if partial {
            io.read_chunk(c.n, &mut data)?;
        } else {
            data.fill(0);
        }
        for b in 0..nb {
            if let Some(p) = block_part(g, &c, b, start, stop) {
                copy_block_in(g, typesize, &mut data, b, &p, start, buf, bufshape)?;
            }
        }
        io.write_chunk(c.n, &data)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Chunks kept uncompressed, with a log of the writes.
    struct Mem {
        chunks: Vec<Vec<u8>>,
        writes: Vec<i64>,
    }

    impl ChunkIo for Mem {
        fn read_chunk(&mut self, n: i64, dest: &mut [u8]) -> Result<()> {
            dest.copy_from_slice(&self.chunks[n as usize]);
            Ok(())
        }
        fn write_chunk(&mut self, n: i64, data: &[u8]) -> Result<()> {
            self.chunks[n as usize] = data.to_vec();
            self.writes.push(n);
            Ok(())
        }
    }

    /// The same chunks, read block by block through `for_blocks` (as the super-chunk does);
    /// counts the blocks handed out.
    struct Blockwise(Mem, usize);

    impl ChunkIo for Blockwise {
        fn read_chunk(&mut self, n: i64, dest: &mut [u8]) -> Result<()> {
            self.0.read_chunk(n, dest)
        }
        fn write_chunk(&mut self, n: i64, data: &[u8]) -> Result<()> {
            self.0.write_chunk(n, data)
        }
        fn for_blocks(
            &mut self,
            n: i64,
            needed: &[bool],
            chunk_bytes: usize,
            sink: &mut dyn FnMut(usize, &[u8]) -> Result<()>,
        ) -> Result<bool> {
            let chunk = &self.0.chunks[n as usize];
            assert_eq!(chunk.len(), chunk_bytes);
            let bs = chunk.len() / needed.len();
            for (b, _) in needed.iter().enumerate().filter(|(_, &x)| x) {
                self.1 += 1;
                sink(b, &chunk[b * bs..(b + 1) * bs])?;
            }
            Ok(true)
        }
    }

    /// Block by block or through a chunk buffer, a read gives the same bytes, asks only for
    /// the blocks the slice touches, and leaves the buffer outside the slice alone.
    #[test]
    fn blockwise_reads_match_chunk_reads() {
        let shape = [11i64, 9, 7];
        let g = Geometry::new(&shape, &[5, 4, 7], &[2, 3, 3]).unwrap();
        let ts = 4;
        let n = g.nitems as usize * ts;
        let src: Vec<u8> = (0..n).map(|i| (i * 13 % 251) as u8).collect();
        let mut io = mem(&g, ts);
        set(&g, ts, &mut io, &[0, 0, 0], &shape, &src, &shape).unwrap();
        let mut bw = Blockwise(Mem { chunks: io.chunks.clone(), writes: vec![] }, 0);
        for (start, stop) in [([0i64, 0, 0], shape), ([1, 2, 3], [9, 8, 5]), ([4, 3, 2], [5, 4, 3]), ([5, 0, 0], [10, 4, 7])] {
            let bufshape = [12i64, 10, 8];
            let mut a = vec![0xaau8; 12 * 10 * 8 * ts];
            let mut b = a.clone();
            get(&g, ts, &mut io, &start, &stop, &mut a, &bufshape).unwrap();
            bw.1 = 0;
            get(&g, ts, &mut bw, &start, &stop, &mut b, &bufshape).unwrap();
            assert_eq!(a, b, "{start:?}..{stop:?}");
            let touched: usize = touched_chunks(&g, &start, &stop)
                .iter()
                .map(|c| (0..nblocks(&g)).filter(|&k| block_part(&g, c, k, &start, &stop).is_some()).count())
                .sum();
            assert_eq!(bw.1, touched);
            let inside: usize = (0..3).map(|i| (stop[i] - start[i]) as usize).product();
            assert!(b.iter().filter(|&&x| x == 0xaa).count() >= (12 * 10 * 8 - inside) * ts);
        }
    }

    /// `needed_blocks` marks exactly the blocks `block_part` finds a piece of the slice in.
    #[test]
    fn needed_blocks_agree_with_block_parts() {
        for (shape, cs, bs) in [
            (vec![10i64, 7], vec![4, 5], vec![3, 2]),
            (vec![5, 4, 3], vec![2, 3, 2], vec![2, 2, 1]),
            (vec![9], vec![4], vec![3]),
            (vec![6, 6, 6, 6], vec![3, 4, 5, 6], vec![2, 3, 2, 4]),
        ] {
            let g = Geometry::new(&shape, &cs, &bs).unwrap();
            let nd = shape.len();
            for k in 0..40i64 {
                let start: Vec<i64> = (0..nd).map(|i| (k * (i as i64 + 3)) % shape[i]).collect();
                let stop: Vec<i64> = (0..nd).map(|i| (start[i] + 1 + (k * 7 + i as i64) % 5).min(shape[i])).collect();
                for c in touched_chunks(&g, &start, &stop) {
                    let want: Vec<bool> =
                        (0..nblocks(&g)).map(|b| block_part(&g, &c, b, &start, &stop).is_some()).collect();
                    assert_eq!(needed_blocks(&g, &c, &start, &stop), want, "{shape:?} {start:?}..{stop:?}");
                }
            }
        }
    }

    fn mem(g: &Geometry, ts: usize) -> Mem {
        Mem { chunks: vec![vec![0; g.extchunknitems as usize * ts]; g.nchunks() as usize], writes: vec![] }
    }

    #[test]
    fn whole_array_round_trip_with_uneven_edges() {
        for (shape, cs, bs) in [
            (vec![10i64, 7], vec![4, 5], vec![3, 2]),
            (vec![5, 4, 3], vec![2, 3, 2], vec![2, 2, 1]),
            (vec![9], vec![4], vec![3]),
        ] {
            let g = Geometry::new(&shape, &cs, &bs).unwrap();
            let ts = 2;
            let mut io = mem(&g, ts);
            let n = g.nitems as usize * ts;
            let src: Vec<u8> = (0..n).map(|i| (i * 7 % 251) as u8).collect();
            let zero = vec![0i64; shape.len()];
            set(&g, ts, &mut io, &zero, &shape, &src, &shape).unwrap();
            assert_eq!(io.writes, (0..g.nchunks()).collect::<Vec<_>>());
            let mut out = vec![0u8; n];
            get(&g, ts, &mut io, &zero, &shape, &mut out, &shape).unwrap();
            assert_eq!(out, src);
            // A window crossing chunk and block edges, read into a larger buffer.
            let start: Vec<i64> = shape.iter().map(|&s| s / 3).collect();
            let stop: Vec<i64> = shape.iter().map(|&s| s - 1).collect();
            let bufshape: Vec<i64> = shape.iter().map(|&s| s).collect();
            let mut win = vec![0u8; n];
            get(&g, ts, &mut io, &start, &stop, &mut win, &bufshape).unwrap();
            let st = strides_of(&shape);
            let mut idx = vec![0i64; shape.len()];
            let wshape: Vec<i64> = (0..shape.len()).map(|i| stop[i] - start[i]).collect();
            let total: i64 = wshape.iter().product();
            for k in 0..total {
                unravel(k, &wshape, &mut idx);
                let a: i64 = (0..shape.len()).map(|i| (idx[i] + start[i]) * st[i]).sum();
                let b: i64 = (0..shape.len()).map(|i| idx[i] * st[i]).sum();
                let (a, b) = (a as usize * ts, b as usize * ts);
                assert_eq!(&win[b..b + ts], &src[a..a + ts]);
            }
        }
    }

    #[test]
    fn partial_write_keeps_the_rest_of_the_chunk() {
        let g = Geometry::new(&[6], &[4], &[2]).unwrap();
        let mut io = mem(&g, 1);
        set(&g, 1, &mut io, &[0], &[6], &[1, 2, 3, 4, 5, 6], &[6]).unwrap();
        set(&g, 1, &mut io, &[3], &[5], &[9, 9], &[2]).unwrap();
        assert_eq!(io.writes, vec![0, 1, 0, 1]);
        assert_eq!(io.chunks[0], vec![1, 2, 3, 9]);
        assert_eq!(io.chunks[1], vec![9, 6, 0, 0]);
    }

    #[test]
    fn bad_slices_and_buffers() {
        let g = Geometry::new(&[6, 6], &[4, 4], &[2, 2]).unwrap();
        let mut io = mem(&g, 1);
        let mut b = vec![0u8; 36];
        assert_eq!(get(&g, 1, &mut io, &[0, 0], &[7, 6], &mut b, &[6, 6]), Err(Error::InvalidParam));
        assert_eq!(get(&g, 1, &mut io, &[3, 0], &[2, 6], &mut b, &[6, 6]), Err(Error::InvalidParam));
        assert_eq!(get(&g, 1, &mut io, &[-1, 0], &[2, 6], &mut b, &[6, 6]), Err(Error::InvalidParam));
        assert_eq!(get(&g, 1, &mut io, &[0, 0], &[6, 6], &mut b[..35], &[6, 6]), Err(Error::InvalidParam));
        assert_eq!(get(&g, 1, &mut io, &[0, 0], &[6, 6], &mut b, &[6, 5]), Err(Error::InvalidParam));
        assert_eq!(set(&g, 1, &mut io, &[0, 0], &[3, 3], &b[..8], &[3, 3]), Err(Error::InvalidParam));
        assert!(io.writes.is_empty());
    }
}
