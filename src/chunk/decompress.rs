//! Reading a chunk back: full decompression, partial reads of items or bytes, special-value
//! chunks, memcpyed chunks, dictionaries and variable-length blocks. Every offset and length
//! taken from the chunk is checked against the buffer before use.

use crate::copy::copy_bytes;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::header::*;
use super::hooks::{BlockInfo, Postfilter};
use super::params::DecompressParams;
use super::pipeline::{PipelineParams, Slot};
use super::workers::{Scratch, Workers};
use crate::codecs::{self, registry as codec_registry, DDict};
use crate::error::{Error, Result};
use crate::filters::registry::FilterCallContext;
use crate::filters::{self, registry as filter_registry};

/// Below this many bytes a chunk is handled by the calling thread alone: waking workers
/// costs more than the work.
pub const PARALLEL_MIN_BYTES: usize = 128 * 1024;

/// Bytes a worker of a parallel compression or decompression claims at once (a run of
/// consecutive blocks), when the chunk has enough blocks for every thread to get several runs.
pub const CLAIM_MIN_BYTES: usize = 128 * 1024;

/// How many consecutive blocks of `blocksize` bytes a worker claims at once, out of `nblocks`
/// shared by `nthreads` (see `CLAIM_MIN_BYTES`): claiming small blocks one at a time costs
/// more than the work, each claim moving the shared counter's and a lock's cache lines
/// between the cores.
pub fn blocks_per_claim(blocksize: usize, nblocks: usize, nthreads: usize) -> usize {
    (CLAIM_MIN_BYTES / blocksize.max(1)).clamp(1, (nblocks / (4 * nthreads.max(1))).max(1))
}

pub use super::lazy::LazyReader;
use super::lazy::LazyTrailer;

/// A decompression context.
pub struct Decompressor {
    /// Thread count and typesize, as set by `blosc2_dparams`.
    pub params: DecompressParams,
    /// Called on every decoded block, writing its destination (`dparams.postfilter`).
    pub postfilter: Option<Arc<dyn Postfilter>>,
    /// Blocks to skip in the next call only (`blosc2_set_maskout`).
    pub maskout: Option<Vec<bool>>,
    /// Chunk number reported to the postfilter (-1 when not in a super-chunk).
    pub nchunk: i64,
    /// Passed through to user codec and filter callbacks.
    pub call: FilterCallContext,
    /// Where the blocks of lazy chunks are read from (the frame they came from); without it a
    /// lazy chunk cannot be decoded.
    pub lazy: Option<Arc<dyn LazyReader>>,
    workers: Workers,
}

enum ChunkDict {
    None,
    Zstd(codecs::zstd::DDict),
    Lz4(Vec<u8>),
}

impl ChunkDict {
    fn new(format: u8, d: &[u8]) -> Result<ChunkDict> {
        Ok(match format {
            codecs::FORMAT_ZSTD => ChunkDict::Zstd(codecs::zstd::DDict::new(d).ok_or(Error::CodecDict)?),
            codecs::FORMAT_LZ4 => ChunkDict::Lz4(d.to_vec()),
            // Codecs without dictionaries skip it (the reference embeds one in VL-block
            // chunks of any codec when asked to).
            _ => ChunkDict::None,
        })
    }
}

/// A validated chunk, ready to have its blocks decoded.
pub struct ChunkView<'a> {
    src: &'a [u8],
    /// The chunk's validated header.
    pub header: ChunkHeader,
    hlen: usize,
    /// Bytes per item, from the header.
    pub typesize: usize,
    /// Uncompressed bytes of a full block; for VL-block chunks, of the largest block.
    pub blocksize: usize,
    /// Number of blocks, the last one included.
    pub nblocks: usize,
    leftover: usize,
    /// Uncompressed size of the whole chunk in bytes.
    pub nbytes: usize,
    special: Special,
    memcpyed: bool,
    dict: ChunkDict,
    /// For variable-length-block chunks: each block's uncompressed size and start offset.
    vl: Option<Vec<(usize, usize)>>,
    /// For lazy chunks: where the blocks are on disk. VL-block sizes, a dictionary and the
    /// blocks themselves are then read through the decompressor's [`LazyReader`]. Boxed:
    /// the view is returned by value on every call, and in place the trailer doubled its
    /// size (a 204-byte copy per decompression of an in-memory chunk).
    lazy: Option<Box<LazyTrailer<'a>>>,
    /// How every block is decoded, worked out once per chunk rather than per block (a
    /// small chunk's blocks cost as much to set up as to copy).
    plan: BlockPlan,
}

/// What the header says about decoding every block of a chunk.
#[derive(Clone, Copy)]
struct BlockPlan {
    /// The filters to undo, last applied first, with their metadata (no-ops and truncation,
    /// which has nothing to undo, left out); the first `nstages` entries count.
    stages: [(u8, u8); MAX_FILTERS],
    nstages: u8,
    /// No filter but delta (or none): streams are decoded straight into the destination.
    direct: bool,
    /// Whether full blocks are split in `typesize` streams. Blosc1-format chunks (version
    /// <= 2), written before the "don't split" flag existed, were split only for small
    /// types, and c-blosc 1.x readers apply the same rule; dictionary chunks split like any
    /// other (c-blosc2 3.x writes split zstd dictionary chunks).
    split: bool,
    /// Delta is among the filters: blocks decode against block 0.
    delta: bool,
    /// `direct`, and the chunk is an ordinary one in memory (not special or memcpyed, no
    /// dictionary, VL or lazy blocks): its blocks take [`BlockDecoder::decode_block_direct`].
    plain: bool,
}

impl BlockPlan {
    #[inline(always)]
    fn new(header: &ChunkHeader, typesize: usize, blocksize: usize) -> BlockPlan {
        let mut stages = [(0u8, 0u8); MAX_FILTERS];
        let mut nstages = 0;
        let mut direct = true;
        let mut delta = false;
        for i in (0..MAX_FILTERS).rev() {
            let f = header.filters[i];
            if f != NOFILTER && f != TRUNC_PREC {
                stages[nstages] = (f, header.filters_meta[i]);
                nstages += 1;
                direct &= f == DELTA;
            }
            delta |= f == DELTA;
        }
        let legacy_unsplit =
            !header.extended && (typesize > 16 || blocksize / typesize.max(1) < MIN_BUFFERSIZE as usize);
        let split = !header.dont_split() && !legacy_unsplit;
        BlockPlan { stages, nstages: nstages as u8, direct, split, delta, plain: false }
    }

    fn stages(&self) -> &[(u8, u8)] {
        &self.stages[..self.nstages as usize]
    }
}

fn get_i32(src: &[u8], at: usize) -> Result<i32> {
    let b = src.get(at..at + 4).ok_or(Error::ReadBuffer)?;
    Ok(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

impl<'a> ChunkView<'a> {
    /// Parse and validate `src`.
    ///
    /// Inlined: returned by value, the view (over 200 bytes, just written) was copied out
    /// through the stack on every call, 5% of a 1 KiB chunk's decompression.
    #[inline(always)]
    pub fn new(src: &'a [u8]) -> Result<ChunkView<'a>> {
        let header = ChunkHeader::read(src)?;
        let hlen = header.header_len();
        let lazy_flag = header.lazy();
        let special = header.special().ok_or(Error::Data)?;
        let cbytes = header.cbytes as usize;
        if !lazy_flag && cbytes > src.len() {
            return Err(Error::InvalidHeader);
        }
        let src = if lazy_flag { src } else { &src[..cbytes] };
        let memcpyed = header.memcpyed();
        let nbytes = header.nbytes as usize;
        let typesize = header.typesize as usize;
        let vlblocks = header.vlblocks();
        let (blocksize, nblocks, leftover) = if vlblocks {
            (0, header.blocksize as usize, 0)
        } else {
            let bs = header.blocksize as usize;
            (bs, nbytes.div_ceil(bs), nbytes % bs)
        };
        if !header.memcpyed_sizes_agree() {
            return Err(Error::Data);
        }
        let mut plan = BlockPlan::new(&header, typesize, blocksize);
        let max_lazy_csize = blocksize as i64 + 4 * typesize as i64;
        // What only some chunks have is worked out first, so that the view is written once,
        // where the caller keeps it (built and then amended, it was copied on every call).
        let (dict, vl, lazy, blocksize) = 'rare: {
            if special != Special::None || memcpyed || nbytes == 0 {
                if special == Special::Value && src.len() <= hlen {
                    return Err(Error::ReadBuffer);
                }
                let lazy = if lazy_flag && special == Special::None && nbytes > 0 {
                    // Memcpyed: the trailer follows a zeroed block-starts table.
                    Some(Box::new(LazyTrailer::parse(src, hlen + 4 * nblocks, nblocks, max_lazy_csize)?))
                } else {
                    None
                };
                break 'rare (ChunkDict::None, None, lazy, blocksize);
            }
            let bstarts_end = hlen + 4 * nblocks;
            if src.len() < bstarts_end {
                return Err(Error::ReadBuffer);
            }
            if lazy_flag {
                let mut t = LazyTrailer::parse(src, bstarts_end, nblocks, max_lazy_csize)?;
                let vl = if vlblocks {
                    // Block sizes are on disk, in front of each block: read when needed.
                    let starts = t.set_vl_spans(src, hlen, nblocks, cbytes, typesize)?;
                    Some(starts.into_iter().map(|s| (0, s)).collect())
                } else {
                    None
                };
                // A dictionary is on disk too (see `Decompressor::load_lazy_dict`).
                break 'rare (ChunkDict::None, vl, Some(Box::new(t)), blocksize);
            }
            let mut data_start = bstarts_end;
            let mut dict = ChunkDict::None;
            if header.use_dict() {
                let dsize = get_i32(src, bstarts_end)?;
                if dsize <= 0 || dsize as usize > super::compress::MAX_READ_DICT_SIZE {
                    return Err(Error::CodecDict);
                }
                let d = src
                    .get(bstarts_end + 4..bstarts_end + 4 + dsize as usize)
                    .ok_or(Error::ReadBuffer)?;
                dict = ChunkDict::new(header.compformat(), d)?;
                data_start += 4 + dsize as usize;
            }
            if !vlblocks {
                break 'rare (dict, None, None, blocksize);
            }
            let mut v = Vec::with_capacity(nblocks);
            let mut total = 0usize;
            for j in 0..nblocks {
                let start = get_i32(src, hlen + 4 * j)?;
                if (start as i64) < data_start as i64 || start as usize + 4 > src.len() {
                    return Err(Error::Data);
                }
                let usize_ = get_i32(src, start as usize)?;
                if usize_ <= 0 {
                    return Err(Error::Data);
                }
                total += usize_ as usize;
                v.push((usize_ as usize, start as usize));
            }
            if total != nbytes {
                return Err(Error::Data);
            }
            let largest = v.iter().map(|b| b.0).max().unwrap_or(0);
            (dict, Some(v), None, largest)
        };
        plan.plain = plan.direct
            && special == Special::None
            && !memcpyed
            && matches!(dict, ChunkDict::None)
            && vl.is_none()
            && lazy.is_none();
        Ok(ChunkView {
            src,
            header,
            hlen,
            typesize,
            blocksize,
            nblocks,
            leftover,
            nbytes,
            special,
            memcpyed,
            dict,
            vl,
            lazy,
            plan,
        })
    }

    /// How block `j` (`bsize` bytes) is stored: how many streams, each how long. Full
    /// blocks of split chunks hold one stream per byte of an item; VL blocks and a chunk's
    /// last, shorter block hold one.
    #[inline(always)]
    fn streams_of(&self, j: usize, bsize: usize) -> Result<(usize, usize)> {
        let leftoverblock = self.leftover > 0 && j + 1 == self.nblocks;
        let nstreams = if self.vl.is_none() && self.plan.split && !leftoverblock { self.typesize } else { 1 };
        // (No division for unsplit blocks: it costs as much as the rest of the setup.)
        let neblock = if nstreams == 1 { bsize } else { bsize / nstreams };
        if neblock == 0 {
            return Err(Error::Failure);
        }
        Ok((nstreams, neblock))
    }

    /// Whether the chunk has variable-length blocks.
    pub fn is_vlblocks(&self) -> bool {
        self.vl.is_some()
    }

    /// Uncompressed size of block `j`.
    pub fn block_len(&self, j: usize) -> usize {
        if let Some(v) = &self.vl {
            return v[j].0;
        }
        if self.leftover > 0 && j + 1 == self.nblocks {
            self.leftover
        } else {
            self.blocksize
        }
    }

    /// Offset of block `j` in the uncompressed data.
    pub fn block_offset(&self, j: usize) -> usize {
        match &self.vl {
            Some(v) => v[..j].iter().map(|b| b.0).sum(),
            None => j * self.blocksize,
        }
    }

    /// The repeated value of a [`Special::Value`] chunk: every byte after the header (the
    /// chunk is `src[..cbytes]`).
    fn special_value(&self) -> &[u8] {
        self.src.get(self.hlen..self.header.cbytes as usize).unwrap_or(&[])
    }

    fn has_delta(&self) -> bool {
        self.plan.delta
    }
}

impl Decompressor {
    /// A context with `params`, no hooks and no threads started yet.
    pub fn new(params: DecompressParams) -> Decompressor {
        Decompressor {
            params,
            postfilter: None,
            maskout: None,
            nchunk: -1,
            call: FilterCallContext::default(),
            lazy: None,
            workers: Workers::default(),
        }
    }

    /// Become what `Decompressor::new` with `o`'s parameters, postfilter, call context and
    /// lazy-chunk reader would be, keeping this engine's threads and scratch (a
    /// super-chunk's stand-in engine, reused from loan to loan).
    pub fn stand_in_for(&mut self, o: &Decompressor) {
        self.params.clone_from(&o.params);
        self.postfilter.clone_from(&o.postfilter);
        self.maskout = None;
        self.nchunk = -1;
        self.call.clone_from(&o.call);
        self.lazy.clone_from(&o.lazy);
    }

    /// Release worker threads (they come back on the next parallel call).
    pub fn release_threads(&mut self) {
        self.workers.release();
    }

    /// Read the dictionary of a lazy chunk from disk (it follows the block starts there).
    fn load_lazy_dict(&self, view: &mut ChunkView<'_>) -> Result<()> {
        let Some(t) = &view.lazy else { return Ok(()) };
        if !view.header.use_dict() || view.memcpyed || view.special != Special::None {
            return Ok(());
        }
        let at = (view.hlen + 4 * view.nblocks) as i64;
        let cbytes = view.header.cbytes as i64;
        if cbytes < at + 4 {
            return Err(Error::InvalidHeader);
        }
        let dsize = get_i32(&t.fetch_bytes(self.lazy.as_deref(), at, 4)?, 0)?;
        if dsize <= 0 || dsize as usize > super::compress::MAX_READ_DICT_SIZE {
            return Err(Error::CodecDict);
        }
        if cbytes < at + 4 + dsize as i64 {
            return Err(Error::InvalidHeader);
        }
        let d = t.fetch_bytes(self.lazy.as_deref(), at + 4, dsize as usize)?;
        view.dict = ChunkDict::new(view.header.compformat(), &d)?;
        Ok(())
    }

    /// Read the uncompressed sizes of a lazy VL-block chunk's blocks from disk: block `only`,
    /// or all of them (which must then add up to the chunk's size).
    fn resolve_lazy_vl(&self, view: &mut ChunkView<'_>, only: Option<usize>) -> Result<()> {
        let (Some(t), Some(v)) = (&mut view.lazy, &mut view.vl) else { return Ok(()) };
        let range = match only {
            Some(j) => j..j + 1,
            None => 0..v.len(),
        };
        for j in range {
            if v[j].0 == 0 {
                v[j].0 = t.vl_block_len(self.lazy.as_deref(), j, v[j].1 as i64)?;
                t.admit_block_len(v[j].0, view.typesize);
            }
        }
        if only.is_none() && v.iter().map(|b| b.0).sum::<usize>() != view.nbytes {
            return Err(Error::Data);
        }
        view.blocksize = v.iter().map(|b| b.0).max().unwrap_or(0);
        Ok(())
    }

    /// Run one call, then leave the large block buffers for the next call of any context
    /// ([`Workers::park`]), whatever the call returned.
    fn parking<R>(&mut self, call: impl FnOnce(&mut Self) -> R) -> R {
        let r = call(self);
        self.workers.park();
        r
    }

    /// The block decoder (the hooks) and the worker state, borrowed apart.
    fn split(&mut self) -> (BlockDecoder<'_>, &mut Workers) {
        let dec = BlockDecoder {
            postfilter: self.postfilter.as_deref(),
            nchunk: self.nchunk,
            call: &self.call,
            lazy: self.lazy.as_deref(),
        };
        (dec, &mut self.workers)
    }

    /// Decompress a whole chunk into `dest`. Returns the bytes decompressed.
    pub fn decompress(&mut self, src: &[u8], dest: &mut [u8]) -> Result<usize> {
        if let Some(r) = self.copy_stored(src, dest) {
            return r;
        }
        if let Some(r) = self.copy_raw_blocks(src, dest) {
            return r;
        }
        self.parking(|d| d.decompress_chunk(src, dest))
    }

    /// A chunk stored as it is (memcpyed), copied without the block walk: the bytes copied,
    /// `None` for every other chunk and call (lazy, special and VL chunks, a mask or
    /// postfilter), which take the general path, errors included. Building the block view,
    /// the worker setup and the per-block dispatch cost a stored 18 KiB chunk 30-60 ns of
    /// the 335-363 ns it took (0.95-0.97x the reference's; 275-305 ns whole, README
    /// "Stored chunks copied whole"). Threads copy it in pieces of their own size, not
    /// block by block: see [`copy_in_pieces`].
    #[inline]
    fn copy_stored(&mut self, src: &[u8], dest: &mut [u8]) -> Option<Result<usize>> {
        // (The flags byte first: other chunks must not pay for a second header parse.)
        if src.get(2).is_none_or(|f| f & MEMCPYED == 0) || self.maskout.is_some() || self.postfilter.is_some() {
            return None;
        }
        let h = ChunkHeader::read(src).ok()?;
        if !h.memcpyed() || h.lazy() || h.vlblocks() || h.special() != Some(Special::None) {
            return None;
        }
        let (nbytes, cbytes, hlen) = (h.nbytes as usize, h.cbytes as usize, h.header_len());
        // What the general path checks first: its errors stay its own.
        if cbytes > src.len() || !h.memcpyed_sizes_agree() || nbytes > dest.len() {
            return None;
        }
        let nblocks = nbytes.div_ceil(h.blocksize as usize);
        let (dest, src) = (&mut dest[..nbytes], &src[hlen..hlen + nbytes]);
        let nthreads = self.params.nthreads.max(1) as usize;
        if decoded_serially(nthreads, nbytes, nblocks) {
            copy_bytes(dest, src);
            return Some(Ok(nbytes));
        }
        Some(self.parking(|d| copy_in_pieces(&mut d.workers, nthreads, dest, src).map(|()| nbytes)))
    }

    /// A chunk without filters whose every stream is stored as it is (noise given a
    /// destination with room for the block format, so not memcpyed), copied without the
    /// block walk: the bytes copied, `None` for any other chunk or call, which
    /// takes the general path (errors included). Every stream is checked before the first
    /// byte is written. Such an 18 KiB chunk (two blocks) took 143-150 ns through the general
    /// path, more than the reference's 138-142; 127-133 ns this way (README "Stored chunks:
    /// pieces for threads, raw blocks without the walk").
    /// Threads copy it in pieces of about [`CLAIM_MIN_BYTES`], as [`copy_in_pieces`] does a
    /// memcpyed chunk, whatever its block size.
    #[inline]
    fn copy_raw_blocks(&mut self, src: &[u8], dest: &mut [u8]) -> Option<Result<usize>> {
        if self.maskout.is_some() || self.postfilter.is_some() {
            return None;
        }
        // Stored streams take at least the data's bytes: a compressed chunk (most chunks) is
        // declined from two fields, before the header parse the general path does again.
        if get_i32(src, 12).ok()? < get_i32(src, 4).ok()? {
            return None;
        }
        let h = ChunkHeader::read(src).ok()?;
        if h.memcpyed() || h.lazy() || h.vlblocks() || h.use_dict() || h.special() != Some(Special::None) {
            return None;
        }
        let (nbytes, cbytes, hlen, bs) = (h.nbytes as usize, h.cbytes as usize, h.header_len(), h.blocksize as usize);
        if nbytes == 0 || cbytes > src.len() || nbytes > dest.len() {
            return None;
        }
        let nblocks = nbytes.div_ceil(bs);
        let nthreads = self.params.nthreads.max(1) as usize;
        let serial = decoded_serially(nthreads, nbytes, nblocks);
        let typesize = h.typesize as usize;
        let plan = BlockPlan::new(&h, typesize, bs);
        if plan.nstages != 0 {
            return None;
        }
        let src = &src[..cbytes];
        let layout = RawLayout { hlen, nbytes, bs, nblocks, nstreams: if plan.split { typesize } else { 1 } };
        if !layout.walk(src, |_, _, _| {}) {
            return None;
        }
        if serial {
            layout.walk(src, |to, from, len| copy_bytes(&mut dest[to..to + len], &src[from..from + len]));
            return Some(Ok(nbytes));
        }
        // The streams tile the destination in order: cut it along them into pieces.
        let mut pieces: Vec<Vec<(&mut [u8], &[u8])>> = Vec::new();
        let mut piece: Vec<(&mut [u8], &[u8])> = Vec::new();
        let (mut filled, mut rest) = (0usize, &mut dest[..nbytes]);
        layout.walk(src, |_, from, len| {
            let mut stream = &src[from..from + len];
            while !stream.is_empty() {
                let take = stream.len().min(CLAIM_MIN_BYTES - filled);
                let (d, r) = std::mem::take(&mut rest).split_at_mut(take);
                rest = r;
                piece.push((d, &stream[..take]));
                stream = &stream[take..];
                filled += take;
                if filled == CLAIM_MIN_BYTES {
                    pieces.push(std::mem::take(&mut piece));
                    filled = 0;
                }
            }
        });
        if !piece.is_empty() {
            pieces.push(piece);
        }
        Some(self.parking(|d| copy_pieces_on_threads(&mut d.workers, nthreads, pieces).map(|()| nbytes)))
    }

    fn decompress_chunk(&mut self, src: &[u8], dest: &mut [u8]) -> Result<usize> {
        let maskout = self.maskout.take();
        // Used where it was parsed rather than moved out of the `Result` (the view is about
        // 180 bytes; together with building it in one piece, see `ChunkView::new`, this
        // keeps it from being copied on every call).
        let mut parsed = ChunkView::new(src);
        let view = match &mut parsed {
            Ok(v) => v,
            Err(e) => return Err(*e),
        };
        if view.nbytes > dest.len() {
            return Err(Error::WriteBuffer);
        }
        if let Some(m) = &maskout {
            if m.len() != view.nblocks {
                return Err(Error::Data);
            }
        }
        if view.nbytes == 0 {
            return Ok(0);
        }
        if view.lazy.is_some() {
            self.load_lazy_dict(view)?;
            self.resolve_lazy_vl(view, None)?;
        }
        let dest = &mut dest[..view.nbytes];
        let wanted = self.params.nthreads.max(1) as usize;
        let nthreads = wanted.min(view.nblocks);
        let (dec, workers) = self.split();
        workers.ensure(wanted)?;
        let masked = |j: usize| maskout.as_ref().is_some_and(|m| m[j]);

        // With delta, block 0 goes first: every other block decodes against it. Otherwise all
        // blocks are independent and share the workers from the start.
        let delta = view.has_delta() && !view.is_vlblocks();
        let (dref, tail, start): (Option<&[u8]>, &mut [u8], usize) = if delta {
            let (first, rest) = dest.split_at_mut(view.block_len(0));
            if !masked(0) {
                dec.decode_block(view, 0, 0, first, None, workers.scratch_mut(0))?;
            }
            (Some(&*first), rest, 1)
        } else {
            (None, dest, 0)
        };
        if start >= view.nblocks {
            return Ok(view.nbytes);
        }
        if decoded_serially(nthreads, view.nbytes, view.nblocks - start) {
            // Serial: walk the blocks in place.
            let sc = workers.scratch_mut(0);
            let mut tail = tail;
            for j in start..view.nblocks {
                let (out, t) = std::mem::take(&mut tail).split_at_mut(view.block_len(j));
                tail = t;
                if !masked(j) {
                    dec.decode_block(view, j, 0, out, dref, sc)?;
                }
            }
        } else {
            // Parallel: hand out disjoint output slices, each a run of consecutive blocks
            // (`blocks_per_claim`; 4 MiB stored as 16 KiB blocks, two threads, claimed one
            // block at a time: 17.5 GB/s, below one thread's 22.9).
            let nblocks = view.nblocks - start;
            let per_claim = blocks_per_claim(view.block_len(0), nblocks, nthreads);
            let mut runs: Vec<Mutex<Option<&mut [u8]>>> = Vec::with_capacity(nblocks.div_ceil(per_claim));
            let mut tail = tail;
            for first in (start..view.nblocks).step_by(per_claim) {
                let last = (first + per_claim).min(view.nblocks);
                let len = (first..last).map(|j| view.block_len(j)).sum();
                let (b, t) = std::mem::take(&mut tail).split_at_mut(len);
                runs.push(Mutex::new(Some(b)));
                tail = t;
            }
            let next = AtomicUsize::new(0);
            let failed = AtomicBool::new(false);
            let error: Mutex<Option<Error>> = Mutex::new(None);
            let workers = &*workers;
            let work = |tid: usize| {
                let mut sc = workers.scratch(tid);
                loop {
                    let r = next.fetch_add(1, Ordering::Relaxed);
                    if r >= runs.len() || failed.load(Ordering::Relaxed) {
                        return;
                    }
                    let out = runs[r].lock().unwrap_or_else(|e| e.into_inner()).take();
                    let Some(mut out) = out else { continue };
                    let first = start + r * per_claim;
                    for j in first..(first + per_claim).min(view.nblocks) {
                        let (block, rest) = std::mem::take(&mut out).split_at_mut(view.block_len(j));
                        out = rest;
                        if masked(j) {
                            continue;
                        }
                        if let Err(e) = dec.decode_block(view, j, tid, block, dref, &mut sc) {
                            *error.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
                            failed.store(true, Ordering::Relaxed);
                            return;
                        }
                    }
                }
            };
            workers.run(nthreads, &work)?;
            if let Some(e) = error.into_inner().unwrap_or_else(|e| e.into_inner()) {
                return Err(e);
            }
        }
        Ok(view.nbytes)
    }

    /// Decode `nbytes` bytes starting at byte `start` of the uncompressed data into `dest`,
    /// touching only the blocks that hold them.
    pub fn get_bytes(&mut self, src: &[u8], start: usize, nbytes: usize, dest: &mut [u8]) -> Result<usize> {
        self.parking(|d| d.get_bytes_of(src, start, nbytes, dest))
    }

    fn get_bytes_of(&mut self, src: &[u8], start: usize, nbytes: usize, dest: &mut [u8]) -> Result<usize> {
        let mut view = ChunkView::new(src)?;
        if nbytes == 0 {
            return Ok(0);
        }
        if nbytes > dest.len() {
            return Err(Error::WriteBuffer);
        }
        let stop = start.checked_add(nbytes).ok_or(Error::InvalidParam)?;
        if start > view.nbytes || stop > view.nbytes {
            return Err(Error::InvalidParam);
        }
        if view.is_vlblocks() {
            return Err(Error::InvalidParam);
        }
        self.load_lazy_dict(&mut view)?;
        let (dec, workers) = self.split();
        workers.ensure(1)?;
        let sc = workers.scratch_mut(0);
        let dest = &mut dest[..nbytes];
        // Special and memcpyed chunks need no block decoding, unless a postfilter must see
        // every block (the reference runs it on special chunks too); memcpyed lazy chunks
        // have their data on disk: they go block by block below.
        let in_place = view.special != Special::None || (view.memcpyed && view.lazy.is_none());
        if in_place && dec.postfilter.is_none() {
            match view.special {
                Special::Zero => dest.fill(0),
                Special::Nan => fill_nans(view.typesize, dest)?,
                Special::Value => fill_value_at(view.special_value(), view.nbytes, start, dest)?,
                Special::Uninit => {}
                Special::None => {
                    let s = view.hlen + start;
                    copy_bytes(dest, view.src.get(s..s + nbytes).ok_or(Error::ReadBuffer)?);
                }
            }
            return Ok(nbytes);
        }
        // Delta needs the first block decoded.
        let mut first = Vec::new();
        if view.has_delta() && stop > view.blocksize {
            first.resize(view.block_len(0), 0);
            dec.decode_block(&view, 0, 0, &mut first, None, sc)?;
        }
        let mut written = 0usize;
        let mut block = std::mem::take(&mut sc.out);
        let first_block = start / view.blocksize;
        let last_block = (stop - 1) / view.blocksize;
        let mut result = Ok(());
        for j in first_block..=last_block {
            let boff = j * view.blocksize;
            let blen = view.block_len(j);
            let from = start.max(boff) - boff;
            let to = stop.min(boff + blen) - boff;
            let dref = if j == 0 { None } else if view.has_delta() { Some(&first[..]) } else { None };
            if from == 0 && to == blen {
                // Whole block wanted: decode in place.
                if let Err(e) = dec.decode_block(&view, j, 0, &mut dest[written..written + blen], dref, sc) {
                    result = Err(e);
                    break;
                }
            } else {
                block.grow_to(blen);
                if let Err(e) = dec.decode_block(&view, j, 0, &mut block[..blen], dref, sc) {
                    result = Err(e);
                    break;
                }
                copy_bytes(&mut dest[written..written + to - from], &block[from..to]);
            }
            written += to - from;
        }
        sc.out = block;
        result?;
        Ok(written)
    }

    /// Whether decoding `src` could run code from outside this library: a postfilter, a
    /// user codec or a filter from the registry (ids above the built-in range). When not,
    /// an owner may decode with its own state locked.
    ///
    /// Asked before every small in-memory read of a super-chunk, so only the bytes naming
    /// codec and filters are looked at (a whole header read and validation was 9% of a
    /// 64-byte chunk's read); a header that is not valid fails when decoded either way.
    pub fn may_run_user_code(&self, src: &[u8]) -> bool {
        if self.postfilter.is_some() {
            return true;
        }
        let (Some(&version), Some(&flags)) = (src.first(), src.get(2)) else { return true };
        if flags >> 5 == codecs::FORMAT_UDCODEC {
            return true;
        }
        if !ChunkHeader::flags_say_extended(flags) {
            // A 16-byte header: its filters are the flags' shuffle, bitshuffle and delta.
            return false;
        }
        let Some(filters) = src.get(16..22) else { return true };
        // Alpha writers left the last slot uninitialised (see `ChunkHeader::read`).
        let used = if version == VERSION_FORMAT_ALPHA { &filters[..5] } else { filters };
        used.iter().any(|&f| f > LAST_CORE_FILTER)
    }

    /// Decode the blocks of `src` marked in `needed`, one at a time on the calling thread,
    /// handing each to `sink` (block number and its bytes) while it is still in cache. A
    /// reader that scatters blocks elsewhere (n-dimensional slices) so needs no buffer for
    /// the whole chunk. VL-block chunks are refused (`InvalidParam`); `needed` must have one
    /// entry per block, as a maskout.
    pub fn decompress_blocks(
        &mut self,
        src: &[u8],
        needed: &[bool],
        sink: &mut dyn FnMut(usize, &[u8]) -> Result<()>,
    ) -> Result<()> {
        self.parking(|d| d.decompress_blocks_into(src, needed, sink))
    }

    fn decompress_blocks_into(
        &mut self,
        src: &[u8],
        needed: &[bool],
        sink: &mut dyn FnMut(usize, &[u8]) -> Result<()>,
    ) -> Result<()> {
        let mut view = ChunkView::new(src)?;
        if view.is_vlblocks() {
            return Err(Error::InvalidParam);
        }
        if needed.len() != view.nblocks && view.nbytes > 0 {
            return Err(Error::Data);
        }
        if !needed.contains(&true) {
            return Ok(());
        }
        self.load_lazy_dict(&mut view)?;
        let (dec, workers) = self.split();
        workers.ensure(1)?;
        let sc = workers.scratch_mut(0);
        // Delta decodes every block against the first one.
        let mut first = Vec::new();
        let delta = view.has_delta();
        if delta {
            first.resize(view.block_len(0), 0);
            dec.decode_block(&view, 0, 0, &mut first, None, sc)?;
        }
        let mut block = std::mem::take(&mut sc.out);
        let mut result = Ok(());
        for (j, _) in needed.iter().enumerate().filter(|(_, &n)| n) {
            if j == 0 && delta {
                result = sink(0, &first);
            } else {
                let blen = view.block_len(j);
                block.grow_to(blen);
                let out = &mut block[..blen];
                if view.special == Special::Uninit {
                    // Nothing to decode: hand out zeros rather than the previous block.
                    out.fill(0);
                }
                let dref = if delta { Some(&first[..]) } else { None };
                result = dec.decode_block(&view, j, 0, out, dref, sc).and_then(|()| sink(j, out));
            }
            if result.is_err() {
                break;
            }
        }
        sc.out = block;
        result
    }

    /// Decode every block of a VL-block chunk into its own buffer.
    pub fn vl_decompress(&mut self, src: &[u8]) -> Result<Vec<Vec<u8>>> {
        self.parking(|d| d.vl_decompress_all(src))
    }

    fn vl_decompress_all(&mut self, src: &[u8]) -> Result<Vec<Vec<u8>>> {
        let mut view = ChunkView::new(src)?;
        if !view.is_vlblocks() {
            return Err(Error::InvalidParam);
        }
        self.load_lazy_dict(&mut view)?;
        self.resolve_lazy_vl(&mut view, None)?;
        let (dec, workers) = self.split();
        workers.ensure(1)?;
        let sc = workers.scratch_mut(0);
        let mut out = Vec::with_capacity(view.nblocks);
        for j in 0..view.nblocks {
            let mut b = vec![0u8; view.block_len(j)];
            dec.decode_block(&view, j, 0, &mut b, None, sc)?;
            out.push(b);
        }
        Ok(out)
    }

    /// Decode block `nblock` of a VL-block chunk.
    pub fn vl_decompress_block(&mut self, src: &[u8], nblock: usize) -> Result<Vec<u8>> {
        self.parking(|d| d.vl_decompress_one(src, nblock))
    }

    fn vl_decompress_one(&mut self, src: &[u8], nblock: usize) -> Result<Vec<u8>> {
        let mut view = ChunkView::new(src)?;
        if !view.is_vlblocks() || nblock >= view.nblocks {
            return Err(Error::InvalidParam);
        }
        self.load_lazy_dict(&mut view)?;
        self.resolve_lazy_vl(&mut view, Some(nblock))?;
        let (dec, workers) = self.split();
        workers.ensure(1)?;
        let sc = workers.scratch_mut(0);
        let mut b = vec![0u8; view.block_len(nblock)];
        dec.decode_block(&view, nblock, 0, &mut b, None, sc)?;
        Ok(b)
    }
}

/// What decoding a block reads of its decompression context: the hooks, borrowed apart from
/// the context's scratch areas so that a serial call can use its area without locking it.
struct BlockDecoder<'a> {
    postfilter: Option<&'a dyn Postfilter>,
    nchunk: i64,
    call: &'a FilterCallContext,
    lazy: Option<&'a dyn LazyReader>,
}

impl BlockDecoder<'_> {
    /// Decode block `j` into `out` (exactly the block's length).
    #[inline]
    fn decode_block(
        &self,
        view: &ChunkView<'_>,
        j: usize,
        tid: usize,
        out: &mut [u8],
        dref: Option<&[u8]>,
        sc: &mut Scratch,
    ) -> Result<()> {
        match self.postfilter {
            Some(pf) => self.decode_block_postfiltered(pf, view, j, tid, out, dref, sc),
            None if view.plan.plain => self.decode_block_direct(view, j, out, dref, &mut sc.codec),
            None => self.decode_block_raw(view, j, out, dref, sc),
        }
    }

    /// Decode block `j` into scratch, then let the postfilter write the destination.
    #[cold]
    #[allow(clippy::too_many_arguments)]
    fn decode_block_postfiltered(
        &self,
        pf: &dyn Postfilter,
        view: &ChunkView<'_>,
        j: usize,
        tid: usize,
        out: &mut [u8],
        dref: Option<&[u8]>,
        sc: &mut Scratch,
    ) -> Result<()> {
        let bsize = out.len();
        let offset = view.block_offset(j);
        let mut tmp = std::mem::take(&mut sc.block);
        tmp.resize(bsize, 0);
        let r = self.decode_block_raw(view, j, &mut tmp, dref, sc);
        let r = r.and_then(|_| {
            let info = BlockInfo {
                nchunk: self.nchunk,
                nblock: j as i32,
                offset: offset as i32,
                size: bsize as i32,
                typesize: view.typesize as i32,
                tid: tid as i32,
            };
            if pf.apply(&info, &tmp, out) != 0 {
                Err(Error::Postfilter)
            } else {
                Ok(())
            }
        });
        sc.block = tmp;
        r
    }

    /// Decode block `j` of a [`BlockPlan::plain`] chunk: its streams straight into `out`,
    /// then delta if the chunk has it. The general path's checks for special, lazy, VL and
    /// filtered blocks cost as much as copying a small block, so this case has its own.
    fn decode_block_direct(
        &self,
        view: &ChunkView<'_>,
        j: usize,
        out: &mut [u8],
        dref: Option<&[u8]>,
        cscratch: &mut codecs::CodecScratch,
    ) -> Result<()> {
        let bsize = out.len();
        let end = view.src.len();
        let mut pos = get_i32(view.src, view.hlen + 4 * j)? as usize;
        if pos == 0 || pos >= end {
            return Err(Error::Data);
        }
        let (nstreams, neblock) = view.streams_of(j, bsize)?;
        let (streamed, unstreamed) = out.split_at_mut(nstreams * neblock);
        for s in 0..nstreams {
            let target = &mut streamed[s * neblock..(s + 1) * neblock];
            let (stream, next) = Stream::at(view.src, pos)?;
            pos = next;
            match stream {
                Stream::Fill(b) => target.fill(b),
                Stream::Coded(c) if c.len() == neblock => copy_bytes(target, c),
                Stream::Coded(c) => decode_stream(view, c, target, cscratch, &DDict::None, self.call)?,
            }
        }
        // Bytes no stream holds (see `decode_block_raw`): zeros.
        if !unstreamed.is_empty() {
            unstreamed.fill(0);
        }
        for _ in view.plan.stages() {
            filters::delta_decode(dref.unwrap_or(&[]), j * view.blocksize, out, view.typesize);
        }
        Ok(())
    }

    fn decode_block_raw(
        &self,
        view: &ChunkView<'_>,
        j: usize,
        out: &mut [u8],
        dref: Option<&[u8]>,
        sc: &mut Scratch,
    ) -> Result<()> {
        let bsize = out.len();
        // VL blocks are independent units (delta's reference is the block itself).
        let (offset, dref) = if view.vl.is_some() { (0, None) } else { (view.block_offset(j), dref) };
        match view.special {
            Special::Zero => {
                out.fill(0);
                return Ok(());
            }
            Special::Nan => return fill_nans(view.typesize, out),
            Special::Value => return fill_value(view.special_value(), out),
            Special::Uninit => return Ok(()),
            Special::None => {}
        }
        if view.memcpyed {
            let start = view.hlen + offset;
            if let Some(t) = &view.lazy {
                t.fetch_memcpyed_block_into(self.lazy, j, start as i64, bsize, &mut sc.lazy)?;
                copy_bytes(out, &sc.lazy);
                return Ok(());
            }
            let chunk = view.src.get(start..start + bsize).ok_or(Error::ReadBuffer)?;
            copy_bytes(out, chunk);
            return Ok(());
        }
        // Where this block's streams are, fetching them from disk for lazy chunks (into this
        // worker's reused buffer).
        let (bsrc, mut pos, end): (&[u8], usize, usize) = match &view.lazy {
            Some(t) => {
                let start = match &view.vl {
                    Some(v) => v[j].1 as i64,
                    None => get_i32(view.src, view.hlen + 4 * j)? as i64,
                };
                t.fetch_block_into(self.lazy, j, start, view.vl.is_some(), &mut sc.lazy)?;
                let lazy_buf = &sc.lazy;
                // A VL block's stream runs to the next block's start.
                let end = match &t.vl_spans {
                    Some(spans) if spans[j] <= 4 || spans[j] > lazy_buf.len() => return Err(Error::Data),
                    Some(spans) => spans[j],
                    None => lazy_buf.len(),
                };
                (&lazy_buf[..], 0, end)
            }
            None => {
                let start = match &view.vl {
                    Some(v) => v[j].1,
                    None => get_i32(view.src, view.hlen + 4 * j)? as usize,
                };
                if start == 0 || start >= view.src.len() {
                    return Err(Error::Data);
                }
                let end = match &view.vl {
                    Some(v) => v.get(j + 1).map(|b| b.1).unwrap_or(view.src.len()),
                    None => view.src.len(),
                };
                if end < start {
                    return Err(Error::Data);
                }
                (view.src, start, end)
            }
        };
        let (nstreams, neblock) = view.streams_of(j, bsize)?;
        let pp = PipelineParams {
            filters: &view.header.filters,
            filters_meta: &view.header.filters_meta,
            typesize: view.typesize,
            format_version: view.header.version,
            call: self.call,
        };
        let stages = view.plan.stages();
        let Scratch { bufs, codec: cscratch, .. } = sc;
        // Streams go straight into `out` when no filter needs undoing.
        let direct = view.plan.direct;
        if !direct {
            bufs.ensure(bsize);
        }
        let dict = match &view.dict {
            ChunkDict::None => DDict::None,
            ChunkDict::Zstd(d) => DDict::Zstd(d),
            ChunkDict::Lz4(d) => DDict::Lz4(d),
        };
        // A block whose only filter is a shuffle of its streams is unshuffled from where each
        // stream is: the streams stored uncompressed are read in the chunk itself (the
        // reference copies them next to the decoded ones first: a third of the time of a
        // block of noisy data). `raw_at[s]` is where stream `s` lies in `bsrc`, 0 when it was
        // decoded (a stream's bytes follow its 4-byte size, so never start at 0).
        let shuffled_streams = |meta: u8| super::pipeline::shuffle_streams(view.typesize, meta) == nstreams;
        let rows_path = (2..=MAX_ROWS).contains(&nstreams)
            && view.vl.is_none()
            && matches!(stages, [(SHUFFLE, meta)] if shuffled_streams(*meta));
        // (32-bit: 64 bytes to clear per block, where 128 took a `memset` call.)
        let mut raw_at = [0u32; MAX_ROWS];
        // Streams of one repeated byte (the zero high bytes of small integers, mostly) are
        // written out once per value: `row_of[s]` is the stream whose decoded bytes stream
        // `s` reads, `s` itself unless an earlier stream holds the same repeated byte. On the
        // int64 ramp five of eight streams are zeros: each block's decoding then writes 3/8
        // of the block instead of all of it before the unshuffle.
        let mut row_of: [u8; MAX_ROWS] = std::array::from_fn(|s| s as u8);
        let mut fills: [(u8, u8); MAX_ROWS] = [(0, 0); MAX_ROWS];
        let mut nfills = 0;
        let mut shared = false;
        // Streams of zeros are only noted while reading (bit `s`): when they are the high
        // bytes of every element (the usual case), none of them is written at all and the
        // unshuffle widens the low bytes (`unshuffle_zero_high`).
        let mut zeros = 0u32;
        // A block held in one stream stored uncompressed (a block of noise through a codec
        // that does not split, or a typesize past 16) is read by the first filter stage
        // where it lies in the chunk, instead of being copied into the pipeline buffer
        // first (the reference copies it; on an 18 KiB block the copy was a third of our time).
        // Not when delta comes first: it works in place on the buffer.
        let lone_raw = nstreams == 1
            && neblock == bsize
            && view.vl.is_none()
            && !direct
            && stages.first().is_some_and(|s| s.0 != DELTA);
        let mut raw_block: Option<&[u8]> = None;
        // Where the streams go: `out` itself, or the first pipeline buffer.
        let streams_dst: &mut [u8] = if direct {
            &mut *out
        } else {
            // (The address of the first stream's bytes, after its 4-byte size.)
            bufs.place_a(bsrc.as_ptr().wrapping_add(pos + 4));
            bufs.a_mut(bsize)
        };
        let (streamed, unstreamed) = streams_dst.split_at_mut(nstreams * neblock);
        let streams = bsrc.get(..end).ok_or(Error::ReadBuffer)?;
        // (Indexed rather than `chunks_exact_mut`, whose count is a division.)
        for s in 0..nstreams {
            let target = &mut streamed[s * neblock..(s + 1) * neblock];
            if view.vl.is_some() {
                // VL blocks: the field holds the uncompressed size; the stream runs to the
                // next block's start.
                if pos + 4 > end {
                    return Err(Error::ReadBuffer);
                }
                let csize = get_i32(bsrc, pos)?;
                pos += 4;
                if csize as usize != target.len() {
                    return Err(Error::Data);
                }
                let cdata = &bsrc[pos..end];
                if cdata.len() == target.len() {
                    copy_bytes(target, cdata);
                } else {
                    decode_stream(view, cdata, target, cscratch, &dict, self.call)?;
                }
                pos = end;
                continue;
            }
            let (stream, next) = Stream::at(streams, pos)?;
            match stream {
                Stream::Fill(0) if rows_path => zeros |= 1 << s,
                Stream::Fill(b) if rows_path => match fills[..nfills].iter().find(|f| f.0 == b) {
                    Some(&(_, first)) => {
                        row_of[s] = first;
                        shared = true;
                    }
                    None => {
                        target.fill(b);
                        fills[nfills] = (b, s as u8);
                        nfills += 1;
                    }
                },
                Stream::Fill(b) => target.fill(b),
                // Where the bytes start (after the size field). Chunks and lazily read
                // blocks are under 2 GiB (32-bit sizes).
                Stream::Coded(c) if c.len() == neblock && rows_path => raw_at[s] = (next - neblock) as u32,
                Stream::Coded(c) if c.len() == neblock && lone_raw => raw_block = Some(c),
                Stream::Coded(c) if c.len() == neblock => copy_bytes(target, c),
                Stream::Coded(c) => decode_stream(view, c, target, cscratch, &dict, self.call)?,
            }
            pos = next;
        }
        // A block that is not a whole number of streams (split by a writer whose block
        // size is not a multiple of the typesize, as the reference does) has bytes no stream
        // holds: zeros, never what an earlier call left in the scratch.
        if !unstreamed.is_empty() {
            unstreamed.fill(0);
        }
        // The streams below the first of the high zero streams; the zero streams among
        // them, if any, are written once and shared like other repeated bytes.
        // (`zeros` is only ever set on the rows path, at most `MAX_ROWS` streams.)
        let (live, inner_zeros) = if zeros == 0 {
            (nstreams, 0)
        } else {
            let nonzero = !zeros & ((1u32 << nstreams) - 1);
            let live = (u32::BITS - nonzero.leading_zeros()) as usize;
            (live, zeros & ((1u32 << live) - 1))
        };
        if inner_zeros != 0 {
            let first = inner_zeros.trailing_zeros() as usize;
            streamed[first * neblock..(first + 1) * neblock].fill(0);
            for s in (first + 1..live).filter(|&s| inner_zeros & 1 << s != 0) {
                row_of[s] = first as u8;
                shared = true;
            }
        }
        if rows_path && (shared || live < nstreams || raw_at[..nstreams].iter().any(|&p| p != 0)) {
            let decoded = bufs.get(&[], Slot::A, bsize);
            let mut rows: [&[u8]; MAX_ROWS] = [&[]; MAX_ROWS];
            for (s, row) in rows[..nstreams].iter_mut().enumerate() {
                let r = row_of[s] as usize;
                *row = match raw_at[s] as usize {
                    0 => &decoded[r * neblock..(r + 1) * neblock],
                    p => &bsrc[p..p + neblock],
                };
            }
            let (body, tail) = out.split_at_mut(nstreams * neblock);
            if live < nstreams {
                filters::unshuffle_zero_high(&rows[..live], nstreams, neblock, body);
            } else {
                filters::unshuffle_rows(&rows[..nstreams], neblock, body);
            }
            // What the buffer's zeroed tail would have given.
            tail.fill(0);
            return Ok(());
        }
        if direct {
            for _ in stages {
                filters::delta_decode(dref.unwrap_or(&[]), offset, out, view.typesize);
            }
            return Ok(());
        }
        // Undo the filters; the last non-delta stage writes into `out`.
        let last_writer = stages.iter().rposition(|s| s.0 != DELTA).expect("not direct");
        let mut cur = Slot::A;
        let mut in_out = false;
        for (k, &(f, meta)) in stages.iter().enumerate() {
            if f == DELTA {
                let data: &mut [u8] = if in_out { out } else { bufs.get_mut(cur, bsize) };
                filters::delta_decode(dref.unwrap_or(&[]), offset, data, view.typesize);
                continue;
            }
            // (`raw_block` is only ever set for stage 0, which is then not a delta.)
            let (src, dst): (&[u8], &mut [u8]) = if k == last_writer {
                in_out = true;
                (raw_block.take().unwrap_or_else(|| bufs.get(&[], cur, bsize)), &mut *out)
            } else {
                let to = if cur == Slot::A { Slot::B } else { Slot::A };
                let (a, b) = bufs.both_mut(bsize);
                let r = if to == Slot::B { (&*a, b) } else { (&*b, a) };
                cur = to;
                (raw_block.take().unwrap_or(r.0), r.1)
            };
            run_backward_stage(&pp, f, meta, src, dst)?;
        }
        Ok(())
    }
}

/// Where the streams of a chunk are when every one is stored as it is (see
/// `Decompressor::copy_raw_blocks`).
struct RawLayout {
    hlen: usize,
    nbytes: usize,
    bs: usize,
    nblocks: usize,
    /// Streams of a full block (the last, shorter block has one).
    nstreams: usize,
}

impl RawLayout {
    /// Visit every stream of `src` as (where it goes, where its bytes are, how many); false
    /// as soon as one is not stored as it is or lies outside `src`.
    #[inline(always)]
    fn walk(&self, src: &[u8], mut visit: impl FnMut(usize, usize, usize)) -> bool {
        let end = src.len();
        for j in 0..self.nblocks {
            let bsize = self.bs.min(self.nbytes - j * self.bs);
            let nstreams = if bsize == self.bs { self.nstreams } else { 1 };
            let neblock = bsize / nstreams;
            if neblock * nstreams != bsize {
                return false;
            }
            let Ok(start) = get_i32(src, self.hlen + 4 * j) else { return false };
            let mut pos = start as usize;
            if start <= 0 || pos >= end {
                return false;
            }
            for s in 0..nstreams {
                match get_i32(src, pos) {
                    Ok(csize) if csize as usize == neblock && pos + 4 + neblock <= end => {}
                    _ => return false,
                }
                visit(j * self.bs + s * neblock, pos + 4, neblock);
                pos += 4 + neblock;
            }
        }
        true
    }
}

/// Copy `src` into `dest` (as long) on `nthreads` threads, each claiming the next
/// [`CLAIM_MIN_BYTES`] piece until none is left. A stored chunk's blocks can be as large as
/// 1 MiB (clevel 9 of the high-ratio codecs): two threads claiming the four blocks of a
/// 4 MiB chunk, the worker a little late, copied it at 23.6 GB/s (median) against 26.8 for
/// the same chunk in 256 KiB blocks.
fn copy_in_pieces(workers: &mut Workers, nthreads: usize, dest: &mut [u8], src: &[u8]) -> Result<()> {
    let pieces = dest.chunks_mut(CLAIM_MIN_BYTES).zip(src.chunks(CLAIM_MIN_BYTES)).map(|p| vec![p]).collect();
    copy_pieces_on_threads(workers, nthreads, pieces)
}

/// Copy each piece (a list of destination and source slices of equal lengths) on one of
/// `nthreads` threads, each claiming the next piece until none is left.
fn copy_pieces_on_threads(workers: &mut Workers, nthreads: usize, pieces: Vec<Vec<(&mut [u8], &[u8])>>) -> Result<()> {
    workers.ensure_pool(nthreads)?;
    let pieces: Vec<Mutex<Option<Vec<(&mut [u8], &[u8])>>>> = pieces.into_iter().map(|p| Mutex::new(Some(p))).collect();
    let next = AtomicUsize::new(0);
    let work = |_tid: usize| loop {
        let Some(piece) = pieces.get(next.fetch_add(1, Ordering::Relaxed)) else { return };
        if let Some(spans) = piece.lock().unwrap_or_else(|e| e.into_inner()).take() {
            for (d, s) in spans {
                copy_bytes(d, s);
            }
        }
    };
    workers.run(nthreads, &work)
}

/// Whether the calling thread decodes `nblocks` blocks (`nbytes` in all) alone, rather than
/// `nthreads` threads sharing them: small chunks are not worth waking the others for.
fn decoded_serially(nthreads: usize, nbytes: usize, nblocks: usize) -> bool {
    nthreads <= 1 || nbytes < PARALLEL_MIN_BYTES || nblocks < 2
}

/// One stream of a block, as its 4-byte size field says it is stored.
enum Stream<'a> {
    /// Every byte is this value (size 0: zeros; a negative size: a run of `-size`).
    Fill(u8),
    /// Compressed bytes, or the stream itself when as long as the stream.
    Coded(&'a [u8]),
}

impl<'a> Stream<'a> {
    /// The stream whose size field is at `pos` in `src`, and where the next begins.
    #[inline(always)]
    fn at(src: &'a [u8], pos: usize) -> Result<(Stream<'a>, usize)> {
        let csize = get_i32(src, pos)?;
        let pos = pos + 4;
        if csize == 0 {
            return Ok((Stream::Fill(0), pos));
        }
        if csize < 0 {
            let token = *src.get(pos).ok_or(Error::ReadBuffer)?;
            if token & 0x1 == 0 || csize < -255 {
                return Err(Error::RunLength);
            }
            return Ok((Stream::Fill((-csize) as u8), pos + 1));
        }
        let cdata = src.get(pos..pos + csize as usize).ok_or(Error::ReadBuffer)?;
        Ok((Stream::Coded(cdata), pos + csize as usize))
    }
}

fn decode_stream(
    view: &ChunkView<'_>,
    cdata: &[u8],
    target: &mut [u8],
    scratch: &mut codecs::CodecScratch,
    dict: &DDict<'_>,
    call: &FilterCallContext,
) -> Result<()> {
    let format = view.header.compformat();
    if format == codecs::FORMAT_UDCODEC {
        let id = view.header.udcompcode;
        let codec = codec_registry::find(id).filter(|c| c.available()).ok_or(Error::CodecSupport)?;
        // What the decompression parameters say (the super-chunk and its b2nd shapes, which
        // the n-dimensional codecs need), with the chunk's own codec and typesize.
        let ctx = codec_registry::CodecCallContext {
            typesize: view.typesize as i32,
            compcode: id,
            compcode_meta: view.header.compcode_meta,
            ..call.codec
        };
        let n = codec.decode(cdata, target, view.header.compcode_meta, &ctx);
        if n < 0 || n as usize != target.len() {
            return Err(Error::Data);
        }
        return Ok(());
    }
    codecs::decompress_stream_of(format, cdata, target, scratch, dict, records_of(view))
}

/// What a chunk's streams hold for the decoder: whole items of 8 bytes or more when nothing
/// in the pipeline moves bytes (delta and truncation keep items where they are).
fn records_of(view: &ChunkView<'_>) -> codecs::Records {
    let in_place = view.header.filters.iter().all(|&f| matches!(f, NOFILTER | DELTA | TRUNC_PREC));
    if view.typesize >= 8 && in_place {
        codecs::Records::Wide
    } else {
        codecs::Records::Unknown
    }
}

/// Blocks of at most this many streams are unshuffled from where their streams lie (see
/// `decode_block_raw`): the type sizes of nearly all shuffled data.
const MAX_ROWS: usize = 16;

/// Filter ids up to this one are the pipeline's own (shuffles, delta, truncation); the ones
/// above come from the filter registry (plugins and user filters).
const LAST_CORE_FILTER: u8 = 31;

fn run_backward_stage(p: &PipelineParams<'_>, f: u8, meta: u8, src: &[u8], dst: &mut [u8]) -> Result<()> {
    match f {
        SHUFFLE => {
            filters::unshuffle(super::pipeline::shuffle_streams(p.typesize, meta), src, dst);
            Ok(())
        }
        BITSHUFFLE => filters::bitunshuffle(p.typesize, src, dst, p.format_version)
            .map_err(|_| Error::FilterPipeline),
        id if id <= LAST_CORE_FILTER => Err(Error::FilterPipeline),
        id => {
            let uf = filter_registry::find(id).ok_or(Error::FilterPipeline)?;
            // User filters see the chunk's typesize, not the context's, as in the reference.
            let mut call = p.call.clone();
            call.codec.typesize = p.typesize as i32;
            let rc = uf.backward(src, dst, meta, &call);
            if rc != 0 {
                Err(Error::from_code(rc).unwrap_or(Error::FilterPipeline))
            } else {
                Ok(())
            }
        }
    }
}

/// NaN chunks exist only for 4- and 8-byte floats.
fn fill_nans(typesize: usize, out: &mut [u8]) -> Result<()> {
    match typesize {
        4 => fill_value(&f32::NAN.to_le_bytes(), out),
        8 => fill_value(&f64::NAN.to_le_bytes(), out),
        _ => Err(Error::Data),
    }
}

/// Repeat `value` over `out`, which must hold a whole number of values (as the reference
/// requires of each block and of a getitem's output; a crafted chunk may break that).
/// Bytes `start..start + out.len()` of a chunk of `nbytes` repeating `value`: the bytes the
/// whole chunk has there. A range that is not a whole number of values is refused
/// (`BLOSC2_ERROR_DATA`), as the reference refuses it. A range that starts inside a value
/// only happens when a damaged header makes the value wider than the items; the reference
/// then restarts the value at the range's start, giving bytes the chunk does not hold there.
fn fill_value_at(value: &[u8], nbytes: usize, start: usize, out: &mut [u8]) -> Result<()> {
    let w = value.len();
    if w == 0 || !nbytes.is_multiple_of(w) || !out.len().is_multiple_of(w) {
        return Err(Error::Data);
    }
    let phase = start % w;
    let head = w.min(out.len());
    for (i, b) in out[..head].iter_mut().enumerate() {
        *b = value[(phase + i) % w];
    }
    // Doubling copies: `filled` stays a multiple of the value width.
    let mut filled = head;
    while filled < out.len() {
        let n = filled.min(out.len() - filled);
        out.copy_within(0..n, filled);
        filled += n;
    }
    Ok(())
}

fn fill_value(value: &[u8], out: &mut [u8]) -> Result<()> {
    if value.is_empty() || !out.len().is_multiple_of(value.len()) {
        return Err(Error::Data);
    }
    for c in out.chunks_exact_mut(value.len()) {
        c.copy_from_slice(value);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::blocksize::{ALWAYS_SPLIT, NEVER_SPLIT};
    use super::super::compress::Compressor;
    use super::super::params::CompressParams;
    use super::*;

    /// The quick user-code check agrees with the rule read from a whole header (postfilter,
    /// user codec format, a filter id above the built-in range), for 16- and 32-byte
    /// headers, alpha chunks (last filter slot ignored) and every filter slot.
    #[test]
    fn user_code_check_reads_codec_and_filters_only() {
        use crate::chunk::compress;
        let data: Vec<u8> = (0..4096u32).flat_map(|i| (i / 3).to_le_bytes()).collect();
        let slow = |d: &Decompressor, c: &[u8]| {
            let h = ChunkHeader::read(c).unwrap();
            let used = if h.version == VERSION_FORMAT_ALPHA { &h.filters[..5] } else { &h.filters[..] };
            d.postfilter.is_some() || h.compformat() == codecs::FORMAT_UDCODEC || used.iter().any(|&f| f > LAST_CORE_FILTER)
        };
        let plain = Decompressor::new(DecompressParams::default());
        let base = compress(&data, &CompressParams::default().with_typesize(4).with_filters(&[3, 1])).unwrap();
        let mut cases = vec![base.clone()];
        for slot in 16..22 {
            for id in [0u8, 1, 31, 32, 200, 255] {
                let mut c = base.clone();
                c[slot] = id;
                cases.push(c.clone());
                c[0] = VERSION_FORMAT_ALPHA;
                cases.push(c);
            }
        }
        let mut udc = base.clone();
        udc[2] = (udc[2] & 0x1f) | (codecs::FORMAT_UDCODEC << 5);
        cases.push(udc);
        // A 16-byte header (c-blosc 1.x flags: shuffle, no extended header).
        let mut v1 = base[..16].to_vec();
        v1[2] = 0x01;
        v1.extend_from_slice(&[0u8; 16]);
        v1[16] = 240;
        cases.push(v1);
        let mut found = 0;
        for c in &cases {
            let want = slow(&plain, c);
            assert_eq!(plain.may_run_user_code(c), want, "header {:?}", &c[..32]);
            found += want as usize;
        }
        assert!(found > 10 && found < cases.len() - 10, "{found} of {}", cases.len());
        struct Copy;
        impl Postfilter for Copy {
            fn apply(&self, _: &BlockInfo, input: &[u8], output: &mut [u8]) -> i32 {
                output.copy_from_slice(input);
                0
            }
        }
        let mut with_post = Decompressor::new(DecompressParams::default());
        with_post.postfilter = Some(Arc::new(Copy));
        assert!(with_post.may_run_user_code(&base));
        assert!(plain.may_run_user_code(&base[..2]));
    }

    /// Items whose even bytes are noise (stored uncompressed) and odd bytes a slow ramp
    /// (compressed): a shuffled block then mixes streams read in place with decoded ones.
    fn half_noisy(nbytes: usize, typesize: usize) -> Vec<u8> {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        (0..nbytes)
            .map(|i| {
                if (i % typesize) % 2 == 0 {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                } else {
                    (i / 4096) as u8
                }
            })
            .collect()
    }

    /// Compressed stream sizes of block `j` (as written in the chunk).
    fn stream_sizes(chunk: &[u8], j: usize, nstreams: usize) -> Vec<i32> {
        let mut pos = get_i32(chunk, 32 + 4 * j).unwrap() as usize;
        (0..nstreams)
            .map(|_| {
                let c = get_i32(chunk, pos).unwrap();
                pos += 4 + c.max(0) as usize + usize::from(c < 0);
                c
            })
            .collect()
    }

    #[test]
    fn shuffled_blocks_with_uncompressed_streams_decode_in_place() {
        let shapes = [(4, 4096, 4096 * 5 + 12), (2, 8192, 8192 * 3), (8, 16384, 40000), (16, 32768, 65536)];
        for (typesize, blocksize, nbytes) in shapes {
            let src = half_noisy(nbytes, typesize);
            let mut c = Compressor::new(CompressParams {
                typesize: typesize as i32,
                blocksize,
                clevel: 5,
                filters: [0, 0, 0, 0, 0, SHUFFLE],
                ..CompressParams::default()
            });
            let mut chunk = vec![0u8; nbytes + MAX_OVERHEAD];
            let n = c.compress(&src, &mut chunk).expect("compress");
            // The case under test: the first block holds both kinds of stream.
            let sizes = stream_sizes(&chunk, 0, typesize);
            let neblock = blocksize as usize / typesize;
            assert!(sizes.iter().any(|&c| c as usize == neblock), "{typesize}: {sizes:?}");
            assert!(sizes.iter().any(|&c| (c as usize) < neblock), "{typesize}: {sizes:?}");
            for nthreads in [1, 2] {
                let mut d = Decompressor::new(DecompressParams { nthreads, ..DecompressParams::default() });
                let mut out = vec![0xA5u8; nbytes];
                assert_eq!(d.decompress(&chunk[..n], &mut out), Ok(nbytes));
                assert!(out == src, "typesize {typesize}, {nthreads} threads");
                // Partial reads go through the same block decoder.
                let mut part = vec![0u8; 1000];
                assert_eq!(d.get_bytes(&chunk[..n], nbytes / 3, 1000, &mut part), Ok(1000));
                assert!(part[..] == src[nbytes / 3..nbytes / 3 + 1000]);
            }
        }
    }

    /// A block held in one stream stored as is (noise through a codec that does not split
    /// streams, or a typesize past 16) decodes through every filter pipeline, read in place
    /// by the first stage or copied first when that stage is a delta: whole chunks and
    /// parts, one and two threads, after a chunk that left other bytes in the scratch.
    #[test]
    fn lone_stored_streams_are_filtered_where_they_lie() {
        use crate::chunk::header::BITSHUFFLE;
        let pipelines: [[u8; 6]; 6] = [
            [0, 0, 0, 0, 0, SHUFFLE],
            [0, 0, 0, 0, 0, BITSHUFFLE],
            [0, 0, 0, 0, DELTA, SHUFFLE],
            [0, 0, 0, 0, SHUFFLE, DELTA],
            [0, 0, 0, 0, SHUFFLE, BITSHUFFLE],
            [0, 0, 0, DELTA, SHUFFLE, BITSHUFFLE],
        ];
        // (codec, typesize): zlib and LZ4HC do not split here; BloscLZ does not past 16 bytes.
        for (compcode, typesize) in [(4u8, 4usize), (4, 8), (2, 2), (0, 32)] {
            let blocksize = 16384;
            // Block 1 noise (its one stream stored as is), the others compressible (block 0
            // too: it is delta's reference).
            let ramp = |n: usize| (0..n).map(|i| (i / 512) as u8).collect::<Vec<u8>>();
            let mut src = ramp(blocksize);
            src.extend(half_noisy(blocksize, 1));
            src.extend(ramp(blocksize + 4 * typesize));
            let dirt: Vec<u8> = (0..src.len()).map(|i| (i * 7 / 3) as u8).collect();
            for filters in pipelines {
                let mut c = Compressor::new(CompressParams {
                    typesize: typesize as i32,
                    blocksize: blocksize as i32,
                    clevel: 1,
                    compcode,
                    filters,
                    ..CompressParams::default()
                });
                let mut chunk = vec![0u8; src.len() + MAX_OVERHEAD];
                let n = c.compress(&src, &mut chunk).expect("compress");
                chunk.truncate(n);
                let what = format!("codec {compcode}, typesize {typesize}, filters {filters:?}");
                // The case under test: block 1 is one stream of the whole block, stored.
                assert_eq!(stream_sizes(&chunk, 1, 1), [blocksize as i32], "{what}");
                let dirty = shuffled_chunk(&dirt, typesize, blocksize, 5, compcode);
                for nthreads in [1, 2] {
                    let mut d = Decompressor::new(DecompressParams { nthreads, ..DecompressParams::default() });
                    let starts = [0, blocksize + 100, 2 * blocksize - 50, 2 * blocksize + 3];
                    decodes_after_dirt(&mut d, &dirty, &chunk, &src, &starts, 700, &what);
                }
            }
        }
    }

    /// Parallel decompression hands out runs of consecutive blocks: every block of every
    /// run is decoded once (chunks of 4 KiB blocks, stored whole or compressed, with delta,
    /// a last run shorter than the others, a last block shorter than the others), masked
    /// blocks are left as they were, and a damaged block in the middle of a run fails the
    /// call at any thread count.
    #[test]
    fn parallel_runs_of_blocks_decode_every_block_once() {
        use crate::chunk::header::BITSHUFFLE;
        let blocksize = 4096usize;
        let noise = half_noisy(blocksize * 101 + 100, 1);
        let ramp: Vec<u8> = (0..blocksize * 101 + 100).map(|i| (i / 700) as u8).collect();
        for (src, filters) in [
            (&noise, [0, 0, 0, 0, 0, 0]),
            (&ramp, [0, 0, 0, 0, 0, SHUFFLE]),
            (&ramp, [0, 0, 0, 0, DELTA, BITSHUFFLE]),
        ] {
            let mut c = Compressor::new(CompressParams {
                typesize: 4,
                blocksize: blocksize as i32,
                clevel: 5,
                filters,
                ..CompressParams::default()
            });
            let mut chunk = vec![0u8; src.len() + MAX_OVERHEAD];
            let n = c.compress(src, &mut chunk).expect("compress");
            chunk.truncate(n);
            let nblocks = src.len().div_ceil(blocksize);
            let mask: Vec<bool> = (0..nblocks).map(|j| j % 7 == 3).collect();
            for nthreads in [1, 2, 3] {
                let what = format!("filters {filters:?}, {nthreads} threads");
                let mut d = Decompressor::new(DecompressParams { nthreads, ..DecompressParams::default() });
                let mut out = vec![0xA5u8; src.len()];
                assert_eq!(d.decompress(&chunk, &mut out), Ok(src.len()), "{what}");
                assert!(out == *src, "{what}");
                let mut out = vec![0xA5u8; src.len()];
                d.maskout = Some(mask.clone());
                assert_eq!(d.decompress(&chunk, &mut out), Ok(src.len()), "{what}");
                for (j, piece) in out.chunks(blocksize).enumerate() {
                    let want = &src[j * blocksize..(j * blocksize + piece.len())];
                    if mask[j] {
                        assert!(piece.iter().all(|&b| b == 0xA5), "{what}: masked block {j} written");
                    } else {
                        assert!(piece == want, "{what}: block {j}");
                    }
                }
            }
            // A block start pointing past the chunk, in the middle of the chunk.
            if filters[5] != 0 {
                let mut bad = chunk.clone();
                let at = 32 + 4 * 50;
                bad[at..at + 4].copy_from_slice(&(n as i32 + 10).to_le_bytes());
                for nthreads in [1, 2, 3] {
                    let mut d = Decompressor::new(DecompressParams { nthreads, ..DecompressParams::default() });
                    let mut out = vec![0u8; src.len()];
                    assert!(d.decompress(&bad, &mut out).is_err(), "damaged, {nthreads} threads");
                }
            }
        }
    }

    /// `src` compressed with a shuffle only, cut to its length.
    fn shuffled_chunk(src: &[u8], typesize: usize, blocksize: usize, clevel: u8, compcode: u8) -> Vec<u8> {
        let mut c = Compressor::new(CompressParams {
            typesize: typesize as i32,
            blocksize: blocksize as i32,
            clevel,
            compcode,
            filters: [0, 0, 0, 0, 0, SHUFFLE],
            ..CompressParams::default()
        });
        let mut chunk = vec![0u8; src.len() + MAX_OVERHEAD];
        let n = c.compress(src, &mut chunk).expect("compress");
        chunk.truncate(n);
        chunk
    }

    /// After `dirt` (a chunk of as many bytes) left its bytes in `d`'s scratch, `chunk`
    /// decodes to `src` whole and in parts of `len` bytes at `starts`.
    fn decodes_after_dirt(
        d: &mut Decompressor,
        dirt: &[u8],
        chunk: &[u8],
        src: &[u8],
        starts: &[usize],
        len: usize,
        what: &str,
    ) {
        let mut out = vec![0u8; src.len()];
        assert_eq!(d.decompress(dirt, &mut out), Ok(src.len()), "{what}");
        let mut out = vec![0xA5u8; src.len()];
        assert_eq!(d.decompress(chunk, &mut out), Ok(src.len()), "{what}");
        assert!(out == src, "{what}");
        for &start in starts {
            let mut part = vec![0u8; len];
            assert_eq!(d.get_bytes(chunk, start, len, &mut part), Ok(len), "{what} at {start}");
            assert!(part[..] == src[start..start + len], "{what} at {start}");
        }
    }

    /// Streams of one repeated byte (zeros, and runs of other values, some shared by two
    /// streams) next to decoded and stored ones: every stream reads the right bytes when
    /// the repeated ones are written once per value, whole chunks and partial reads, one
    /// and two threads, the scratch dirty from an earlier chunk.
    #[test]
    fn repeated_byte_streams_are_written_once_per_value() {
        let (typesize, blocksize, nbytes) = (8usize, 16384usize, 16384 * 3 + 8 * 100);
        // Byte 0 noise (a stream stored as is) or a short cycle (decoded).
        let make = |noise: bool| {
            let mut x = 0x2545_F491_4F6C_DD1Du64;
            (0..nbytes)
                .map(|i| match i % typesize {
                    0 if noise => {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        x as u8
                    }
                    0 => (i / 8 * 3) as u8,
                    1 => (i / 512) as u8,
                    2 | 5 => 0x40,
                    6 => 7,
                    _ => 0,
                })
                .collect::<Vec<u8>>()
        };
        let noisy = half_noisy(nbytes, typesize);
        let mut d1 = Decompressor::new(DecompressParams::default());
        let mut d2 = Decompressor::new(DecompressParams { nthreads: 2, ..DecompressParams::default() });
        for (compcode, src) in [0u8, 1, 5].into_iter().flat_map(|c| [(c, make(true)), (c, make(false))]) {
            let chunk = shuffled_chunk(&src, typesize, blocksize, 5, compcode);
            let sizes = stream_sizes(&chunk, 0, typesize);
            assert!(sizes.iter().filter(|&&c| c <= 0).count() >= 4, "{compcode}: {sizes:?}");
            let other = shuffled_chunk(&noisy, typesize, blocksize, 5, compcode);
            let starts = [0, 5, blocksize - 3, nbytes - 900];
            for d in [&mut d1, &mut d2] {
                decodes_after_dirt(d, &other, &chunk, &src, &starts, 900, &format!("codec {compcode}"));
            }
        }
    }

    /// Small integers in wide types: the high streams of each block are zeros, which the
    /// decoder never writes (the low rows are widened), also when a zero stream sits
    /// between live ones, when a live stream is stored as is, and after another chunk left
    /// its bytes in the scratch. (All zeros: a chunk marked as zeros.)
    #[test]
    fn high_zero_streams_are_never_written() {
        let blocksize = 16384;
        // (typesize, live low bytes, an inner zero byte)
        let shapes = [
            (2, 1, None),
            (4, 1, None),
            (4, 2, None),
            (4, 3, Some(1)),
            (8, 1, None),
            (8, 2, None),
            (8, 3, None),
            (8, 4, Some(2)),
            (8, 6, None),
            (16, 5, Some(3)),
            (8, 0, None),
        ];
        let mut d1 = Decompressor::new(DecompressParams::default());
        let mut d2 = Decompressor::new(DecompressParams { nthreads: 2, ..DecompressParams::default() });
        for (typesize, live, inner) in shapes {
            let nbytes = blocksize * 3 + typesize * 37;
            for noise in [false, true] {
                let mut x = 0x9E37_79B9_7F4A_7C15u64;
                let src: Vec<u8> = (0..nbytes)
                    .map(|i| {
                        let (e, b) = (i / typesize, i % typesize);
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        match b {
                            _ if b >= live || Some(b) == inner => 0,
                            0 if noise => x as u8,
                            0 => (e * 3) as u8,
                            _ => (e >> (4 + b)) as u8 | 1,
                        }
                    })
                    .collect();
                for compcode in [0u8, 1] {
                    let chunk = shuffled_chunk(&src, typesize, blocksize, 5, compcode);
                    if live > 0 {
                        let sizes = stream_sizes(&chunk, 0, typesize);
                        let zero_streams = sizes.iter().filter(|&&c| c == 0).count();
                        let want_zero = typesize - live + usize::from(inner.is_some());
                        assert_eq!(zero_streams, want_zero, "{typesize}/{live}: {sizes:?}");
                    }
                    let dirt = shuffled_chunk(&vec![0xC3u8; nbytes], typesize, blocksize, 0, compcode);
                    let starts = [0, 3, blocksize - 5, nbytes - 700];
                    let what = format!("{typesize}/{live}/{inner:?} codec {compcode} noise {noise}");
                    for d in [&mut d1, &mut d2] {
                        decodes_after_dirt(d, &dirt, &chunk, &src, &starts, 700, &what);
                    }
                }
            }
        }
    }

    /// A hand-made chunk of 4-byte items with one block of `nbytes` and `filter`, its
    /// streams given as (size field, bytes after it).
    fn one_block_chunk(nbytes: i32, filter: u8, streams: &[(i32, &[u8])]) -> Vec<u8> {
        let mut chunk = vec![0u8; 32];
        chunk[0] = 5; // format version
        chunk[1] = 1;
        chunk[2] = DOSHUFFLE | DOBITSHUFFLE; // both: the 32-byte header
        chunk[3] = 4;
        chunk[4..8].copy_from_slice(&nbytes.to_le_bytes());
        chunk[8..12].copy_from_slice(&nbytes.to_le_bytes());
        chunk[16 + 5] = filter;
        chunk.extend_from_slice(&36i32.to_le_bytes()); // block start
        for &(size, bytes) in streams {
            chunk.extend_from_slice(&size.to_le_bytes());
            chunk.extend_from_slice(bytes);
        }
        let cbytes = chunk.len() as i32;
        chunk[12..16].copy_from_slice(&cbytes.to_le_bytes());
        chunk
    }

    /// Hand-made split blocks of 4-byte items whose streams are all zeros (no writer of ours
    /// makes one: it marks the chunk as zeros instead), or zeros around stored ones.
    #[test]
    fn zero_streams_with_nothing_else_decode_to_zeros() {
        let stored: Vec<u8> = (1..=16).collect();
        for (sizes, want_rows) in [([0, 0, 0, 0], [false; 4]), ([16, 0, 16, 0], [true, false, true, false])] {
            let streams = sizes.map(|size| (size as i32, &stored[..size]));
            let chunk = one_block_chunk(64, SHUFFLE, &streams);
            let want: Vec<u8> = (0..64)
                .map(|i| if want_rows[i % 4] { stored[i / 4] } else { 0 })
                .collect();
            for nthreads in [1, 2] {
                let mut d = Decompressor::new(DecompressParams { nthreads, ..DecompressParams::default() });
                let mut out = [0xFFu8; 64];
                assert_eq!(d.decompress(&chunk, &mut out), Ok(64));
                assert_eq!(out[..], want[..], "{sizes:?}");
            }
        }
    }

    /// A block that is not a whole number of streams (a writer split it although the block
    /// size is not a multiple of the typesize) decodes its last bytes as zeros whether its
    /// streams are read in place or decoded.
    #[test]
    fn bytes_no_stream_holds_are_zeros() {
        // Hand-made chunk: typesize 4, one block of 10 bytes, split into 4 streams of 2
        // bytes stored uncompressed (csize == neblock), bytes 8-9 in no stream.
        let streams: [[u8; 2]; 4] = [[1, 2], [3, 4], [5, 6], [7, 8]];
        let mut chunk = one_block_chunk(10, SHUFFLE, &streams.each_ref().map(|s| (2, &s[..])));
        let mut d = Decompressor::new(DecompressParams::default());
        let mut out = [0xFFu8; 10];
        assert_eq!(d.decompress(&chunk, &mut out), Ok(10));
        assert_eq!(out, [1, 3, 5, 7, 2, 4, 6, 8, 0, 0]);
        // Without the shuffle, the streams go straight into the destination.
        chunk[16 + 5] = NOFILTER;
        let mut out = [0xFFu8; 10];
        assert_eq!(d.decompress(&chunk, &mut out), Ok(10));
        assert_eq!(out, [1, 2, 3, 4, 5, 6, 7, 8, 0, 0]);
    }

    /// Passes blocks through unchanged: a decompressor with it decodes every block on the
    /// general path (`decode_block_raw`).
    struct Passthrough;
    impl Postfilter for Passthrough {
        fn apply(&self, _: &BlockInfo, input: &[u8], output: &mut [u8]) -> i32 {
            output.copy_from_slice(input);
            0
        }
    }

    /// Blocks of plain chunks (no filter but delta) take their own decoder; it gives what
    /// the general one gives, on good chunks (streams of zeros, runs, stored and compressed
    /// bytes, split or not, a leftover block) and on every truncation and many corruptions.
    #[test]
    fn direct_blocks_decode_as_the_general_path() {
        let mut data: Vec<u8> = (0..6000u32).flat_map(|i| ((i / 7) * 3).to_le_bytes()).collect();
        data[8000..12000].fill(0);
        data[12000..14000].fill(9);
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for b in &mut data[16000..20000] {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            *b = x as u8;
        }
        let mut chunks = Vec::new();
        for filters in [[0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, DELTA], [0, 0, 0, 0, DELTA, DELTA]] {
            // BloscLZ, LZ4 and zstd.
            for (compcode, clevel) in [(0, 5), (1, 1), (5, 3)] {
                for splitmode in [ALWAYS_SPLIT, NEVER_SPLIT] {
                    let params = CompressParams {
                        typesize: 4,
                        blocksize: 4096,
                        compcode,
                        clevel,
                        filters,
                        splitmode,
                        ..CompressParams::default()
                    };
                    let mut c = Compressor::new(params);
                    let mut chunk = vec![0u8; data.len() + MAX_OVERHEAD];
                    let n = c.compress(&data[..data.len() - 6], &mut chunk).expect("compress");
                    chunk.truncate(n);
                    chunks.push(chunk);
                }
            }
        }
        let mut direct = Decompressor::new(DecompressParams::default());
        let mut general = Decompressor::new(DecompressParams::default());
        general.postfilter = Some(Arc::new(Passthrough));
        let nbytes = data.len() - 6;
        let mut checked = 0;
        for chunk in &chunks {
            assert!(ChunkView::new(chunk).unwrap().plan.plain);
            let mut a = vec![0u8; nbytes];
            assert_eq!(direct.decompress(chunk, &mut a), Ok(nbytes));
            assert!(a[..] == data[..nbytes]);
            let mut variants: Vec<Vec<u8>> = (32..chunk.len()).step_by(7).map(|n| chunk[..n].to_vec()).collect();
            // Block starts at and around the ends of the chunk.
            let nblocks = nbytes.div_ceil(4096);
            for j in 0..nblocks {
                for start in [0, 1, 31, chunk.len() - 4, chunk.len() - 1, chunk.len(), chunk.len() + 3] {
                    let mut c = chunk.clone();
                    c[32 + 4 * j..36 + 4 * j].copy_from_slice(&(start as i32).to_le_bytes());
                    variants.push(c);
                }
            }
            for at in (32..chunk.len()).step_by(5) {
                for flip in [0x01u8, 0x80, 0xFF] {
                    let mut c = chunk.clone();
                    c[at] ^= flip;
                    variants.push(c);
                }
            }
            for v in &variants {
                let mut a = vec![0x5Au8; nbytes];
                let mut b = vec![0x5Au8; nbytes];
                let ra = direct.decompress(v, &mut a);
                let rb = general.decompress(v, &mut b);
                assert_eq!(ra, rb);
                if ra.is_ok() {
                    assert!(a == b);
                }
                checked += 1;
            }
        }
        assert!(checked > 5000, "{checked}");
    }

    /// Chunks whose every stream is stored as it is, copied without the block walk
    /// (`copy_raw_blocks`), give what the general path gives: the same bytes for good chunks
    /// (one stream per block or one per byte of an item, a short last block, 16- and
    /// 32-byte headers); truncated and corrupted ones are declined before anything is
    /// written, and answer as the general path answers them. Chunks with one compressed
    /// stream among stored ones and chunks with a filter are left to the general path.
    #[test]
    fn raw_blocks_copied_without_the_walk_decode_as_the_general_path() {
        // The largest are copied by two threads in pieces: whole 256 KiB blocks cut in two,
        // and 4 KiB blocks (in four streams of 1 KiB when split) gathered.
        let largest = 3 * CLAIM_MIN_BYTES + 4321;
        let data = crate::filters::tests::data(largest, 7);
        let mut chunks = Vec::new();
        let sizes = [(18_639, 0), (18_639, 4096), (16_384, 4096), (1000, 0), (12_000, 3000), (largest, 0), (largest, 4096)];
        for (n, blocksize) in sizes {
            for splitmode in [ALWAYS_SPLIT, NEVER_SPLIT] {
                let params = CompressParams {
                    typesize: 4,
                    blocksize,
                    splitmode,
                    compcode: 0,
                    clevel: 5,
                    filters: [0; MAX_FILTERS],
                    ..CompressParams::default()
                };
                // Room for the block format: the chunk is not memcpyed.
                let mut chunk = vec![0u8; 2 * n + 1024];
                let len = Compressor::new(params).compress(&data[..n], &mut chunk).expect("compress");
                chunk.truncate(len);
                assert_eq!(chunk[2] & MEMCPYED, 0, "{n} bytes stored whole");
                chunks.push((chunk, n));
            }
        }
        // A Blosc1 chunk (16-byte header, no flags: full blocks of 2048 bytes split in four
        // streams of 512), every stream stored, the last block 100 bytes.
        let (n, bs) = (2 * 2048 + 100, 2048usize);
        let mut v1 = vec![2u8, 1, 0, 4];
        let bstarts = 16 + 4 * 3;
        let cbytes = bstarts + 2 * 4 * (4 + 512) + 4 + 100;
        for f in [n as i32, bs as i32, cbytes as i32] {
            v1.extend_from_slice(&f.to_le_bytes());
        }
        for j in 0..3 {
            v1.extend_from_slice(&((bstarts + j * 4 * (4 + 512)) as i32).to_le_bytes());
        }
        for (j, streams, len) in [(0, 4, 512), (1, 4, 512), (2, 1, 100)] {
            for s in 0..streams {
                v1.extend_from_slice(&(len as i32).to_le_bytes());
                let at = j * bs + s * len;
                v1.extend_from_slice(&data[at..at + len]);
            }
        }
        assert_eq!(v1.len(), cbytes);
        chunks.push((v1, n));
        let mut checked = 0;
        for ((chunk, nbytes), nthreads) in chunks.iter().flat_map(|c| [(c, 1), (c, 2)]) {
            let mut raw = Decompressor::new(DecompressParams { nthreads, ..DecompressParams::default() });
            let mut general = Decompressor::new(DecompressParams { nthreads, ..DecompressParams::default() });
            general.postfilter = Some(Arc::new(Passthrough));
            let nbytes = *nbytes;
            let mut good = vec![0u8; nbytes];
            assert_eq!(raw.copy_raw_blocks(chunk, &mut good), Some(Ok(nbytes)), "{nbytes} bytes");
            assert!(good == data[..nbytes], "{nbytes} bytes, {nthreads} threads");
            let hlen = if chunk[2] & DOSHUFFLE != 0 && chunk[2] & DOBITSHUFFLE != 0 { 32 } else { 16 };
            let nblocks = (get_i32(chunk, hlen).unwrap() as usize - hlen) / 4;
            let mut variants: Vec<Vec<u8>> =
                (0..chunk.len()).step_by(97.max(chunk.len() / 100)).map(|n| chunk[..n].to_vec()).collect();
            variants.push(chunk[..chunk.len() - 1].to_vec());
            // Block starts in and around the chunk, stream sizes one off or compressed-looking.
            // (Of many blocks, the first and last three.)
            for j in (0..nblocks).filter(|&j| j < 3 || j + 3 >= nblocks) {
                for start in [-1, 0, 1, hlen as i32, chunk.len() as i32 - 4, chunk.len() as i32, i32::MAX] {
                    let mut c = chunk.clone();
                    c[hlen + 4 * j..hlen + 4 * j + 4].copy_from_slice(&start.to_le_bytes());
                    variants.push(c);
                }
                let pos = get_i32(chunk, hlen + 4 * j).unwrap() as usize;
                let csize = get_i32(chunk, pos).unwrap();
                for size in [csize - 1, csize + 1, 0, -3, 7] {
                    let mut c = chunk.clone();
                    c[pos..pos + 4].copy_from_slice(&size.to_le_bytes());
                    variants.push(c);
                }
            }
            // A filter (delta, or shuffle on 16-byte headers) changes what the bytes mean.
            let mut filtered = chunk.clone();
            if hlen == 32 {
                filtered[21] = DELTA;
            } else {
                filtered[2] |= DOSHUFFLE;
            }
            variants.push(filtered);
            for v in &variants {
                let mut a = vec![0x5Au8; nbytes];
                let mut b = vec![0x5Au8; nbytes];
                let taken = raw.copy_raw_blocks(v, &mut a);
                let rb = general.decompress(v, &mut b);
                match taken {
                    Some(r) => {
                        assert_eq!(r, rb, "{nbytes} bytes, {} given", v.len());
                        assert!(a == b);
                    }
                    // Declined: nothing written, and the whole call answers as the general path.
                    None => {
                        assert!(a.iter().all(|&c| c == 0x5A));
                        let ra = raw.decompress(v, &mut a);
                        assert_eq!(ra, rb, "{nbytes} bytes, {} given", v.len());
                        if ra.is_ok() {
                            assert!(a == b);
                        }
                    }
                }
                checked += 1;
            }
        }
        assert!(checked > 1000, "{checked}");
    }

    /// Stored (memcpyed) chunks copied whole give what the general path gives: the same
    /// bytes for good chunks (16- and 32-byte headers, one and two threads, sizes around
    /// the parallel threshold, and one that two threads copy in several pieces), the same
    /// error for truncated, resized and too-large ones, and no write into the destination
    /// when they fail.
    #[test]
    fn stored_chunks_copied_whole_decode_as_the_general_path() {
        // The largest is copied by two threads in four pieces, the last one short.
        let largest = 3 * CLAIM_MIN_BYTES + 4321;
        let data = crate::filters::tests::data(largest, 12);
        let mut chunks = Vec::new();
        for n in [1, 31, 256, 18_639, PARALLEL_MIN_BYTES - 1, PARALLEL_MIN_BYTES + 5000, largest] {
            for blocksize in [0, 4096] {
                let params = CompressParams { typesize: 4, blocksize, compcode: 1, clevel: 5, ..CompressParams::default() };
                let mut chunk = vec![0u8; n + MAX_OVERHEAD];
                let len = Compressor::new(params).compress(&data[..n], &mut chunk).expect("compress");
                chunk.truncate(len);
                assert!(chunk[2] & MEMCPYED != 0, "{n} bytes not stored");
                chunks.push(chunk);
            }
        }
        // A Blosc1 chunk: 16-byte header, stored.
        let mut v1 = vec![2u8, 1, MEMCPYED | DOSHUFFLE, 4];
        for f in [300i32, 300, 316] {
            v1.extend_from_slice(&f.to_le_bytes());
        }
        v1.extend_from_slice(&data[..300]);
        chunks.push(v1);
        let mut checked = 0;
        for nthreads in [1, 2] {
            let mut whole = Decompressor::new(DecompressParams { nthreads, ..DecompressParams::default() });
            let mut general = Decompressor::new(DecompressParams { nthreads, ..DecompressParams::default() });
            general.postfilter = Some(Arc::new(Passthrough));
            for chunk in &chunks {
                let nbytes = i32::from_le_bytes(chunk[4..8].try_into().unwrap()) as usize;
                let mut good = vec![0u8; nbytes];
                let taken = whole.copy_stored(chunk, &mut good);
                assert_eq!(taken, Some(Ok(nbytes)), "{nbytes} bytes, {nthreads} threads");
                assert!(good == data[..nbytes], "{nbytes} bytes, {nthreads} threads");
                let mut variants: Vec<Vec<u8>> =
                    [0, 1, 15, 16, 31, 32, chunk.len() / 2, chunk.len() - 1].iter().map(|&n| chunk[..n].to_vec()).collect();
                for (at, value) in [(4, nbytes as i32 + 1), (4, nbytes as i32 - 1), (12, chunk.len() as i32 + 1), (12, 0)] {
                    let mut c = chunk.clone();
                    c[at..at + 4].copy_from_slice(&value.to_le_bytes());
                    variants.push(c);
                }
                let mut longer = chunk.clone();
                longer.extend_from_slice(&[7; 9]);
                variants.push(longer);
                variants.push(chunk.clone());
                for v in &variants {
                    for destlen in [nbytes, nbytes + 3, nbytes.saturating_sub(1)] {
                        let mut a = vec![0x5Au8; destlen];
                        let mut b = vec![0x5Au8; destlen];
                        let ra = whole.decompress(v, &mut a);
                        let rb = general.decompress(v, &mut b);
                        assert_eq!(ra, rb, "{nbytes} bytes, {} given, dest {destlen}", v.len());
                        assert!(a == b);
                        if ra.is_err() {
                            assert!(a.iter().all(|&c| c == 0x5A));
                        } else {
                            assert!(a[..nbytes] == data[..nbytes]);
                        }
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 500, "{checked}");
    }
}
