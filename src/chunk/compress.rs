//! Building a chunk: header, block starts, optional dictionary and the compressed streams of
//! every block (README_CHUNK_FORMAT.rst), with the reference's decisions on block size,
//! splitting, runs, memcpy fallback and all-zero chunks.

use crate::copy::{copy_bytes, Deferred, DeferredCopies};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::blocksize::{compute_blocksize, split_block};
use super::dest::{Dest, Growing};
use super::header::*;
use super::hooks::{BlockInfo, Prefilter, Tuner};
use super::params::CompressParams;
use super::pipeline::{self, PipelineParams, Slot};
use super::runs::is_run;
use super::workers::{Scratch, Waiting, Workers};
use crate::threads::Ordered;
use crate::codecs::{self, registry as codec_registry, Codec, Dict};
use crate::error::{Error, Result};
use crate::Generation;
use crate::filters::registry::{self as filter_registry, FilterCallContext};

/// Dictionaries are never larger than this (`BLOSC2_MAXDICTSIZE` of 3.x; 2.x wrote up to
/// [`Generation::max_dict_size`] of [`Generation::V2`], which readers accept).
pub const MAX_DICT_SIZE: usize = 32 * 1024;
/// The largest dictionary a chunk may carry when read: 2.x's limit, the larger one.
pub const MAX_READ_DICT_SIZE: usize = Generation::V2.max_dict_size();
/// A trained dictionary smaller than this is not worth it (`BLOSC2_MINUSEFULDICT`).
pub const MIN_USEFUL_DICT: usize = 256;

/// A compression context: parameters, user hooks and the worker threads it keeps.
///
/// Keep one for many chunks: threads, codec state and scratch buffers are made once.
///
/// ```
/// use blosc2::chunk::compress::Compressor;
/// use blosc2::chunk::decompress::Decompressor;
/// use blosc2::chunk::{CompressParams, DecompressParams};
/// use blosc2::codecs::Codec;
///
/// let params = CompressParams::default().with_codec(Codec::Lz4).with_typesize(8).with_nthreads(2);
/// let mut comp = Compressor::new(params);
/// let mut dec = Decompressor::new(DecompressParams { nthreads: 2, typesize: 8 });
/// let mut out = vec![0u8; 1 << 20];
/// for k in 0..3u64 {
///     let data: Vec<u8> = (0..(1u64 << 17)).flat_map(|i| (i * k).to_le_bytes()).collect();
///     let chunk = comp.compress_to_vec(&data)?; // blocks compressed by two threads
///     assert_eq!(dec.decompress(&chunk, &mut out)?, data.len());
///     assert_eq!(out, data);
///     // Bytes 800..816 (items 100 and 101), decoding only the block that holds them.
///     let mut two = [0u8; 16];
///     dec.get_bytes(&chunk, 800, 16, &mut two)?;
///     assert_eq!(two[..], data[800..816]);
/// }
/// # Ok::<(), blosc2::Error>(())
/// ```
pub struct Compressor {
    /// Codec, level, typesize, filters, threads and the rest of `blosc2_cparams`.
    pub params: CompressParams,
    /// Called for every block to produce its data before the filters (`cparams.prefilter`).
    pub prefilter: Option<Arc<dyn Prefilter>>,
    /// A user tuner's hooks, run around every chunk.
    pub tuner: Option<Arc<dyn Tuner>>,
    /// Chunk number reported to prefilters (-1 when not in a super-chunk).
    pub nchunk: i64,
    /// Passed through to user codec/filter callbacks.
    pub call: FilterCallContext,
    /// Block size of the last chunk written (0 before the first): what a context reports
    /// as its block size once used. It does not feed the next chunk's choice.
    pub last_blocksize: i32,
    workers: Workers,
}

/// The codec a chunk is written with.
#[derive(Clone)]
enum ChunkCodec {
    Builtin(Codec),
    User(Arc<dyn codec_registry::UserCodec>),
}

impl ChunkCodec {
    fn resolve(compcode: u8) -> Result<ChunkCodec> {
        match Codec::from_code(compcode) {
            Some(Codec::User(id)) => codec_registry::find(id)
                .map(ChunkCodec::User)
                .ok_or(Error::CodecSupport),
            Some(c) => Ok(ChunkCodec::Builtin(c)),
            None => Err(Error::CodecSupport),
        }
    }

    /// The codec the block-size tuner reasons about (user codecs behave like BloscLZ there).
    fn tuning(&self) -> Codec {
        match self {
            ChunkCodec::Builtin(c) => *c,
            ChunkCodec::User(u) => Codec::User(u.id()),
        }
    }

    fn versionlz(&self) -> u8 {
        match self {
            ChunkCodec::Builtin(_) => 1,
            ChunkCodec::User(u) => u.version(),
        }
    }

    fn format(&self) -> u8 {
        self.tuning().format()
    }
}

/// Everything fixed for one chunk, shared by the block workers.
#[derive(Clone)]
struct Job<'a> {
    src: &'a [u8],
    nbytes: usize,
    typesize: usize,
    blocksize: usize,
    nblocks: usize,
    leftover: usize,
    dont_split: bool,
    extended: bool,
    clevel: u8,
    codec: ChunkCodec,
    compcode_meta: u8,
    filters: [u8; MAX_FILTERS],
    filters_meta: [u8; MAX_FILTERS],
    prefilter: Option<&'a dyn Prefilter>,
    nchunk: i64,
    call: &'a FilterCallContext,
    dict: DictMode<'a>,
    /// Delta's reference for blocks after the first: the first block as decoded.
    dref: &'a [u8],
    /// Whose codec settings to use (LZ4's acceleration).
    generation: Generation,
}

#[derive(Clone, Copy)]
enum DictMode<'a> {
    None,
    /// First pass: blocks are filtered and copied raw, to train a dictionary from.
    Training,
    Zstd(&'a codecs::zstd::CDict),
    Lz4(&'a [u8]),
}

impl<'a> Job<'a> {
    /// Block `j` of the source (empty when a prefilter produces all the data).
    fn block_input(&self, j: usize) -> &'a [u8] {
        if self.src.is_empty() {
            return &[];
        }
        let offset = j * self.blocksize;
        &self.src[offset..offset + self.block_len(j)]
    }

    fn pipeline(&self) -> PipelineParams<'_> {
        PipelineParams {
            filters: &self.filters,
            filters_meta: &self.filters_meta,
            typesize: self.typesize,
            format_version: VERSION_FORMAT_STABLE,
            call: self.call,
        }
    }

    fn block_len(&self, j: usize) -> usize {
        if j == self.nblocks - 1 && self.leftover > 0 {
            self.leftover
        } else {
            self.blocksize
        }
    }

    fn nstreams(&self, j: usize) -> usize {
        let leftoverblock = j == self.nblocks - 1 && self.leftover > 0;
        if !self.dont_split && !leftoverblock && !matches!(self.dict, DictMode::Training) {
            self.typesize
        } else {
            1
        }
    }

    /// The most bytes block `j` can take once compressed (raw streams plus their sizes).
    fn block_bound(&self, j: usize) -> usize {
        self.block_len(j) + self.nstreams(j) * 5
    }
}

fn put_i32(dest: &mut [u8], at: usize, v: i32) {
    dest[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// Run the prefilter and the filter pipeline over block `j`; returns where the filtered
/// bytes are (`Slot::Input`: the source block itself, nothing to do).
fn filter_block(job: &Job<'_>, j: usize, tid: usize, sc: &mut Scratch) -> Result<Slot> {
    let bsize = job.block_len(j);
    let offset = j * job.blocksize;
    sc.bufs.ensure(job.blocksize.max(bsize));
    let input = job.block_input(j);
    let mut start = Slot::Input;
    if let Some(pf) = job.prefilter {
        apply_prefilter(job, pf, j, tid, sc.bufs.a_mut(bsize), true)?;
        start = Slot::A;
    }
    if pipeline::forward_is_noop(&job.filters) {
        return Ok(start);
    }
    pipeline::forward(&job.pipeline(), job.dref, offset, input, bsize, start, &mut sc.bufs)
}

/// The first block as a decoder will restore it: delta's reference for the other blocks.
///
/// A decoder XORs every later block with the first block it has already decoded, so that is
/// the reference the encoder must use. It equals the source's first block unless something
/// before the decoder's last step is lossy or not undone: trunc_prec, a prefilter, or a user
/// filter. The reference always uses the source block and so writes chunks that decode wrong
/// past the first block in those cases (README, reference defects).
fn decoded_first_block(job: &Job<'_>) -> Result<Vec<u8>> {
    let bsize = job.block_len(0);
    let mut sc = Scratch::default();
    let cur = filter_block(job, 0, 0, &mut sc)?;
    if cur == Slot::Input {
        return Ok(job.block_input(0).to_vec());
    }
    let back = pipeline::backward(&job.pipeline(), 0, bsize, cur, &mut sc.bufs, None)?;
    Ok(sc.bufs.get(&[], back, bsize).to_vec())
}

/// Whether delta's reference block must be computed by [`decoded_first_block`] rather than
/// taken from the source (see there).
fn needs_decoded_reference(filters: &[u8; MAX_FILTERS], has_prefilter: bool) -> bool {
    let exact = |f: u8| matches!(f, NOFILTER | SHUFFLE | BITSHUFFLE | DELTA | filter_registry::BYTEDELTA);
    filters.contains(&DELTA) && (has_prefilter || !filters.iter().all(|&f| exact(f)))
}

/// Place a block a worker holds ([`Waiting`]): its output from `arena`, its streams stored
/// as they are from `src`, as `raw` records them. False when its place is not known yet
/// (see [`Ordered::place`]).
fn place_waiting(ordered: &Ordered<'_>, w: &Waiting, arena: &[u8], raw: &DeferredCopies, src: &[u8]) -> bool {
    ordered.place_pieces(w.block, w.len, |p| {
        let mut done = w.at;
        for &(from, len, at) in raw.between(w.raw.0, w.raw.1) {
            p.put(&arena[done..at]);
            p.put(&src[from..from + len]);
            done = at + len;
        }
        p.put(&arena[done..w.at + w.len]);
    })
}

/// Compress block `j` into `out` (whose length is the space left in the chunk). Returns the
/// bytes written, or 0 when the block does not fit. With `deferred`, the raw streams of a
/// block that no filter changed are recorded there instead of copied (their room is checked
/// and their sizes written as usual).
fn compress_block(
    job: &Job<'_>,
    j: usize,
    tid: usize,
    out: &mut [u8],
    sc: &mut Scratch,
    mut deferred: Option<Deferred<'_>>,
) -> Result<usize> {
    let bsize = job.block_len(j);
    let input = job.block_input(j);
    let cur = filter_block(job, j, tid, sc)?;
    if cur != Slot::Input {
        deferred = None;
    }
    let Scratch { bufs, codec: cscratch, .. } = sc;
    let data = bufs.get(input, cur, bsize);

    if matches!(job.dict, DictMode::Training) {
        if out.len() < bsize {
            return Ok(0);
        }
        copy_bytes(&mut out[..bsize], data);
        return Ok(bsize);
    }

    let nstreams = job.nstreams(j);
    let neblock = bsize / nstreams;
    let mut pos = 0usize;
    for s in 0..nstreams {
        let stream = &data[s * neblock..(s + 1) * neblock];
        if out.len() < pos + 4 {
            return Ok(0);
        }
        pos += 4;
        if job.extended && is_run(stream) {
            let value = stream[0];
            put_i32(out, pos - 4, -(value as i32));
            if value > 0 {
                if out.len() < pos + 1 {
                    return Ok(0);
                }
                out[pos] = 0x1; // token: run of a non-zero byte
                pos += 1;
            }
            continue;
        }
        let maxout = neblock.min(out.len() - pos);
        if maxout == 0 {
            return Ok(0);
        }
        let dst = &mut out[pos..pos + maxout];
        let cbytes = match &job.codec {
            ChunkCodec::Builtin(c) => {
                let dict = match job.dict {
                    DictMode::Zstd(d) => Dict::Zstd(d),
                    DictMode::Lz4(d) => Dict::Lz4(d),
                    _ => Dict::None,
                };
                codecs::compress_stream(*c, job.clevel, job.generation, stream, dst, cscratch, &dict)?
            }
            ChunkCodec::User(u) => {
                if !u.available() {
                    return Err(Error::CodecSupport);
                }
                let mut ctx = job.call.codec;
                ctx.compcode_meta = job.compcode_meta;
                let rc = u.encode(stream, dst, job.compcode_meta, &ctx);
                if rc < 0 {
                    return Err(Error::Data);
                }
                rc as usize
            }
        };
        if cbytes > maxout {
            return Err(Error::WriteBuffer);
        }
        let cbytes = if cbytes == 0 || cbytes == neblock {
            if out.len() < pos + neblock {
                return Ok(0);
            }
            match deferred.as_mut() {
                Some(d) => d.record(s * neblock, neblock, pos),
                None => copy_bytes(&mut out[pos..pos + neblock], stream),
            }
            neblock
        } else {
            cbytes
        };
        put_i32(out, pos - 4, cbytes as i32);
        pos += cbytes;
    }
    Ok(pos)
}

/// Store blocks `blocks` raw in `out` (which starts at the first of them), through the
/// prefilter when there is one, run as thread `tid`.
fn copy_block_range(job: &Job<'_>, blocks: std::ops::Range<usize>, out: &mut [u8], tid: usize) -> Result<()> {
    let base = blocks.start * job.blocksize;
    let Some(pf) = job.prefilter else {
        copy_bytes(out, &job.src[base..base + out.len()]);
        return Ok(());
    };
    for j in blocks {
        let at = j * job.blocksize - base;
        apply_prefilter(job, pf, j, tid, &mut out[at..at + job.block_len(j)], false)?;
    }
    Ok(())
}

/// Run the prefilter for block `j` as thread `tid` into `out` (the block's length);
/// `disposable`: the output only feeds the filters and codec (not stored as it is).
fn apply_prefilter(job: &Job<'_>, pf: &dyn Prefilter, j: usize, tid: usize, out: &mut [u8], disposable: bool) -> Result<()> {
    let offset = j * job.blocksize;
    let info = BlockInfo {
        nchunk: job.nchunk,
        nblock: j as i32,
        offset: offset as i32,
        size: out.len() as i32,
        typesize: job.typesize as i32,
        tid: tid as i32,
    };
    let rest = if job.src.is_empty() { &[][..] } else { &job.src[offset..] };
    if pf.apply(&info, rest, out, disposable) != 0 {
        return Err(Error::FilterPipeline);
    }
    Ok(())
}

impl Compressor {
    /// A context with `params`, no hooks and no threads started yet.
    pub fn new(params: CompressParams) -> Compressor {
        Compressor {
            params,
            prefilter: None,
            tuner: None,
            nchunk: -1,
            call: FilterCallContext::default(),
            last_blocksize: 0,
            workers: Workers::default(),
        }
    }

    /// Become what `Compressor::new` with `o`'s parameters, prefilter and call context
    /// would be, keeping this engine's threads and scratch (a super-chunk's stand-in engine,
    /// reused from loan to loan).
    pub fn stand_in_for(&mut self, o: &Compressor) {
        self.params.clone_from(&o.params);
        self.prefilter.clone_from(&o.prefilter);
        self.tuner = None;
        self.nchunk = -1;
        self.call.clone_from(&o.call);
        self.last_blocksize = 0;
    }

    /// Release worker threads (they come back on the next parallel call).
    pub fn release_threads(&mut self) {
        self.workers.release();
    }

    /// Compress `src` into `dest` with a 32-byte header. `Ok(0)` means the result does not fit
    /// in `dest` (the reference's "not compressible into this buffer").
    pub fn compress(&mut self, src: &[u8], dest: &mut [u8]) -> Result<usize> {
        self.compress_impl(src, src.len(), &mut { dest }, true, true)
    }

    /// Compress `src` into a new vector holding exactly the chunk.
    ///
    /// The worst case is reserved but only the pages the chunk takes are touched (see
    /// `Growing`); the buffer is then shrunk in place, as the reference `realloc`s its
    /// own. (Measured with glibc on a 256 MiB super-chunk: a buffer kept by the context
    /// and copied out, or a fresh exact copy per chunk, both left the heap more fragmented
    /// and peaked 1-4 MiB higher.)
    pub fn compress_to_vec(&mut self, src: &[u8]) -> Result<Vec<u8>> {
        self.compress_to_vec_within(src, src.len() + MAX_OVERHEAD)
    }

    /// [`compress_to_vec`](Self::compress_to_vec) into at most `limit` bytes, as
    /// [`compress`](Self::compress) into a buffer of that length would (`Error::Failure`
    /// when it does not fit).
    pub fn compress_to_vec_within(&mut self, src: &[u8], limit: usize) -> Result<Vec<u8>> {
        if src.len() > i32::MAX as usize - MAX_OVERHEAD {
            return Err(Error::MaxBufsizeExceeded);
        }
        let mut out = Vec::new();
        let made = self.compress_impl(src, src.len(), &mut Growing::new(&mut out, limit), true, true);
        match made {
            Ok(0) => Err(Error::Failure),
            Ok(n) => {
                out.truncate(n);
                out.shrink_to_fit();
                Ok(out)
            }
            Err(e) => Err(e),
        }
    }

    /// Like [`compress`](Self::compress), optionally with a Blosc1 16-byte header
    /// (`BLOSC_BLOSC1_COMPAT`).
    pub fn compress_with_header(&mut self, src: &[u8], dest: &mut [u8], extended: bool) -> Result<usize> {
        self.compress_impl(src, src.len(), &mut { dest }, extended, true)
    }

    /// Compress `nbytes` produced entirely by the prefilter (no source buffer; without a
    /// prefilter only an empty chunk can be made that way).
    pub fn compress_from_prefilter(&mut self, nbytes: usize, dest: &mut [u8]) -> Result<usize> {
        if self.prefilter.is_none() && nbytes > 0 {
            return Err(Error::InvalidParam);
        }
        self.compress_impl(&[], nbytes, &mut { dest }, true, false)
    }

    /// Validate the parameters for a buffer of `nbytes` and compute the chunk layout.
    /// `has_src`: the caller gave a source buffer (only then is a dictionary request checked
    /// against the codec up front, as the reference does).
    fn plan(&self, nbytes: usize, destlen: usize, has_src: bool) -> Result<(ChunkCodec, usize, usize, usize)> {
        let p = &self.params;
        if nbytes as i64 > MAX_BUFFERSIZE {
            return Err(Error::MaxBufsizeExceeded);
        }
        if destlen < MAX_OVERHEAD {
            return Err(Error::MaxBufsizeExceeded);
        }
        if p.clevel > 9 {
            return Err(Error::CodecParam);
        }
        if has_src && p.use_dict && !codec_has_dicts(p.compcode, p.generation) {
            // 3.x refuses the parameters; 2.x compresses and then gives up for want of a
            // dictionary (`BLOSC2_ERROR_CODEC_DICT`).
            return Err(match p.generation {
                Generation::V2 => Error::CodecDict,
                Generation::V3 => Error::CodecParam,
            });
        }
        if p.typesize <= 0 {
            return Err(Error::InvalidParam);
        }
        for &f in &p.filters {
            if (5..=31).contains(&f) {
                return Err(Error::FilterPipeline);
            }
        }
        let codec = ChunkCodec::resolve(p.compcode)?;
        let filter_flags = flags_from_filters(&p.filters);
        let blocksize = compute_blocksize(
            codec.tuning(),
            p.clevel,
            p.typesize,
            nbytes as i32,
            p.blocksize.max(0),
            p.splitmode,
            filter_flags,
        ) as usize;
        let typesize = if p.typesize > MAX_TYPESIZE { 1 } else { p.typesize as usize };
        // 2.x rounds a forced block size down to whole items too (3.x only caps it).
        let blocksize = if p.generation == Generation::V2 && p.blocksize > 0 && blocksize > typesize {
            blocksize / typesize * typesize
        } else {
            blocksize
        };
        Ok((codec, typesize, blocksize.max(1), filter_flags as usize))
    }

    fn compress_impl(
        &mut self,
        src: &[u8],
        nbytes: usize,
        dest: &mut dyn Dest,
        extended: bool,
        has_src: bool,
    ) -> Result<usize> {
        let made = self.tuned(|c| c.compress_chunk(src, nbytes, dest, extended, has_src));
        self.workers.park();
        made
    }

    /// Run `write` (one chunk) between the tuner's hooks, when there is a tuner.
    fn tuned(&mut self, write: impl FnOnce(&mut Self) -> Result<usize>) -> Result<usize> {
        let Some(tuner) = self.tuner.clone() else { return write(self) };
        let started = std::time::Instant::now();
        if tuner.before_chunk() < 0 {
            return Err(Error::Tuner);
        }
        let n = write(self)?;
        if tuner.after_chunk(started.elapsed().as_secs_f64()) < 0 {
            return Err(Error::Tuner);
        }
        Ok(n)
    }

    fn compress_chunk(
        &mut self,
        src: &[u8],
        nbytes: usize,
        dest: &mut dyn Dest,
        extended: bool,
        has_src: bool,
    ) -> Result<usize> {
        let (codec, typesize, blocksize, filter_flags) = self.plan(nbytes, dest.limit(), has_src)?;
        self.last_blocksize = blocksize as i32;
        let filter_flags = filter_flags as u8;
        let p = self.params.clone();
        if p.use_dict && p.clevel > 0 && !codec_has_dicts(p.compcode, p.generation) {
            // Only reachable without a source buffer (see `plan`): the reference gathers its
            // samples and then finds the codec cannot take a dictionary.
            return Err(Error::CodecDict);
        }
        let nblocks = nbytes.div_ceil(blocksize);
        let leftover = nbytes % blocksize;
        let hlen = if extended { EXTENDED_HEADER_LENGTH } else { MIN_HEADER_LENGTH };
        // Plain copy when asked (clevel 0), when the buffer is tiny, or when not even the
        // block starts would fit in `dest`.
        let memcpyed = p.clevel == 0 || nbytes < MIN_BUFFERSIZE as usize || hlen + 4 * nblocks > dest.limit();
        let use_dict = p.use_dict
            && !memcpyed
            && matches!(codec.tuning(), Codec::Zstd | Codec::Lz4 | Codec::Lz4Hc);
        // A block that is not a whole number of items is never split: the reference splits it
        // anyway and loses its last bytes (they fall outside the equal-size streams).
        let dont_split = blocksize % typesize != 0
            || !split_block(p.splitmode, codec.tuning(), p.clevel, filter_flags, typesize as i32, blocksize as i32);

        let mut flags = if extended { DOSHUFFLE | DOBITSHUFFLE } else { 0 };
        if memcpyed {
            flags |= MEMCPYED;
        } else {
            flags |= filter_flags;
            if dont_split {
                flags |= DONT_SPLIT;
            }
            flags |= codec.format() << 5;
        }
        let mut header = ChunkHeader {
            version: VERSION_FORMAT_STABLE,
            versionlz: codec.versionlz(),
            flags,
            typesize: typesize as u8,
            nbytes: nbytes as i32,
            blocksize: blocksize as i32,
            cbytes: 0,
            filters: if extended { p.filters } else { [0; MAX_FILTERS] },
            udcompcode: if extended { p.compcode } else { 0 },
            compcode_meta: if extended { p.compcode_meta } else { 0 },
            filters_meta: if extended { p.filters_meta } else { [0; MAX_FILTERS] },
            blosc2_flags2: 0,
            blosc2_flags: if use_dict { USEDICT } else { 0 },
            extended,
        };

        // Dictionary storage must outlive the job that borrows it.
        let trained: Vec<u8>;
        let zdict: codecs::zstd::CDict;
        let nthreads = (p.nthreads.max(1) as usize).min(nblocks.max(1));
        self.workers.ensure(p.nthreads.max(1) as usize)?;
        let call = self.call.clone();
        let mut job = Job {
            src,
            nbytes,
            typesize,
            blocksize,
            nblocks,
            leftover,
            dont_split,
            extended,
            clevel: p.clevel,
            codec: codec.clone(),
            compcode_meta: p.compcode_meta,
            filters: p.filters,
            filters_meta: p.filters_meta,
            prefilter: self.prefilter.as_deref(),
            nchunk: self.nchunk,
            call: &call,
            dict: DictMode::None,
            dref: &src[..blocksize.min(src.len())],
            generation: p.generation,
        };
        let decoded_first: Vec<u8>;
        if !memcpyed && nblocks > 1 && needs_decoded_reference(&p.filters, job.prefilter.is_some()) {
            decoded_first = decoded_first_block(&job)?;
            job.dref = &decoded_first;
        }

        let mut cbytes = 0usize;
        let mut is_memcpyed = memcpyed;
        if !memcpyed {
            let mut start = hlen + 4 * nblocks;
            if use_dict {
                match self.train_dict(&job, nthreads)? {
                    Some(d) => {
                        trained = d;
                        if dest.limit() < start + 4 + trained.len() {
                            return Ok(0);
                        }
                        let out = dest.upto(start + 4 + trained.len());
                        put_i32(out, start, trained.len() as i32);
                        out[start + 4..].copy_from_slice(&trained);
                        start += 4 + trained.len();
                        if codec.tuning() == Codec::Zstd {
                            zdict = codecs::zstd::CDict::new(&trained, DICT_ZSTD_LEVEL).ok_or(Error::CodecDict)?;
                            job.dict = DictMode::Zstd(&zdict);
                        } else {
                            job.dict = DictMode::Lz4(&trained);
                        }
                    }
                    None => {
                        // Nothing useful to learn: write a plain chunk.
                        header.blosc2_flags &= !USEDICT;
                        job.dict = DictMode::None;
                    }
                }
            }
            let written = self.compress_blocks(&job, dest, hlen, start, nthreads)?;
            if written == 0 {
                is_memcpyed = true;
                header.flags |= MEMCPYED;
                header.blosc2_flags &= !USEDICT;
            } else {
                cbytes = written;
                // All streams being zero runs means the chunk is all zeros: keep just the header.
                let nstreams = if dont_split {
                    nblocks
                } else if leftover > 0 {
                    (nblocks - 1) * typesize + 1
                } else {
                    nblocks * typesize
                };
                if extended && job.dict_is_none() && cbytes == hlen + 4 * nblocks + 4 * nstreams {
                    header.blosc2_flags |= Special::Zero.bits() << 4;
                    cbytes = hlen;
                }
            }
        }
        if is_memcpyed {
            if nbytes + hlen > dest.limit() {
                return Ok(0);
            }
            job.dict = DictMode::None;
            self.copy_blocks(&job, &mut dest.upto(hlen + nbytes)[hlen..], nthreads)?;
            cbytes = nbytes + hlen;
        }
        header.cbytes = cbytes as i32;
        header.write(dest.upto(hlen));
        Ok(cbytes)
    }

    /// Build a chunk of variable-length blocks (format version 6): one stream per block, whose
    /// size field holds the block's uncompressed length; `blocksize` in the header holds the
    /// number of blocks. Returns 0 when the chunk does not fit in `dest`.
    pub fn vl_compress(&mut self, blocks: &[&[u8]], dest: &mut [u8]) -> Result<usize> {
        let made = self.vl_compress_blocks(blocks, dest);
        self.workers.park();
        made
    }

    fn vl_compress_blocks(&mut self, blocks: &[&[u8]], dest: &mut [u8]) -> Result<usize> {
        self.tuned(|c| c.vl_compress_chunk(blocks, dest))
    }

    fn vl_compress_chunk(&mut self, blocks: &[&[u8]], dest: &mut [u8]) -> Result<usize> {
        if blocks.is_empty() || blocks.iter().any(|b| b.is_empty()) {
            return Err(Error::InvalidParam);
        }
        let total: usize = blocks.iter().map(|b| b.len()).sum();
        let maxblock = blocks.iter().map(|b| b.len()).max().unwrap_or(0);
        let (codec, typesize, _, filter_flags) = self.plan(total, dest.len().max(MAX_OVERHEAD), false)?;
        let p = self.params.clone();
        let nblocks = blocks.len();
        let hlen = EXTENDED_HEADER_LENGTH;
        if dest.len() < hlen + 4 * nblocks {
            return Ok(0);
        }
        let call = self.call.clone();
        self.workers.ensure(1)?;
        // A dictionary first, when asked for and worth it: trained from the filtered blocks.
        let dict = if p.use_dict && p.clevel > 0 { self.vl_dict(blocks, typesize, codec.tuning(), &call)? } else { None };
        let mut pos = hlen + 4 * nblocks;
        let zdict: codecs::zstd::CDict;
        let mut dict_mode = DictMode::None;
        if let Some(d) = &dict {
            if dest.len() < pos + 4 + d.len() {
                return Ok(0);
            }
            put_i32(dest, pos, d.len() as i32);
            dest[pos + 4..pos + 4 + d.len()].copy_from_slice(d);
            pos += 4 + d.len();
            match codec.tuning() {
                Codec::Zstd => {
                    zdict = codecs::zstd::CDict::new(d, DICT_ZSTD_LEVEL).ok_or(Error::CodecDict)?;
                    dict_mode = DictMode::Zstd(&zdict);
                }
                Codec::Lz4 | Codec::Lz4Hc => dict_mode = DictMode::Lz4(d),
                // Other codecs ignore the dictionary the chunk carries.
                _ => {}
            }
        }
        let header = ChunkHeader {
            version: VERSION_FORMAT_VL_BLOCKS,
            versionlz: codec.versionlz(),
            flags: DOSHUFFLE | DOBITSHUFFLE | (filter_flags as u8) | DONT_SPLIT | (codec.format() << 5),
            typesize: typesize as u8,
            nbytes: total as i32,
            blocksize: nblocks as i32,
            cbytes: 0,
            filters: p.filters,
            udcompcode: p.compcode,
            compcode_meta: p.compcode_meta,
            filters_meta: p.filters_meta,
            blosc2_flags2: VL_BLOCKS,
            blosc2_flags: if dict.is_some() { USEDICT } else { 0 },
            extended: true,
        };
        self.workers.ensure(1)?;
        let mut sc = self.workers.scratch(0);
        for (j, block) in blocks.iter().enumerate() {
            put_i32(dest, hlen + 4 * j, pos as i32);
            if dest.len() < pos + 4 {
                return Ok(0);
            }
            put_i32(dest, pos, block.len() as i32);
            pos += 4;
            // Each block is its own unit: filters see it alone (delta's reference is itself).
            let job = Job {
                src: block,
                nbytes: block.len(),
                typesize,
                blocksize: block.len(),
                nblocks: 1,
                leftover: 0,
                dont_split: true,
                extended: true,
                clevel: p.clevel.max(1),
                codec: codec.clone(),
                compcode_meta: p.compcode_meta,
                filters: p.filters,
                filters_meta: p.filters_meta,
                prefilter: None,
                nchunk: self.nchunk,
                call: &call,
                dict: DictMode::None,
                dref: block,
                generation: p.generation,
            };
            sc.bufs.ensure(maxblock);
            let pp = PipelineParams {
                filters: &job.filters,
                filters_meta: &job.filters_meta,
                typesize,
                format_version: VERSION_FORMAT_VL_BLOCKS,
                call: &call,
            };
            let cur = if pipeline::forward_is_noop(&job.filters) {
                Slot::Input
            } else {
                pipeline::forward(&pp, block, 0, block, block.len(), Slot::Input, &mut sc.bufs)?
            };
            let Scratch { bufs, codec: cscratch, .. } = &mut *sc;
            let data = bufs.get(block, cur, block.len());
            let room = dest.len() - pos;
            let maxout = block.len().min(room);
            let n = if maxout == 0 {
                0
            } else {
                let dst = &mut dest[pos..pos + maxout];
                let dict = match dict_mode {
                    DictMode::Zstd(d) => Dict::Zstd(d),
                    DictMode::Lz4(d) => Dict::Lz4(d),
                    _ => Dict::None,
                };
                match &job.codec {
                    ChunkCodec::Builtin(c) => codecs::compress_stream(*c, job.clevel, job.generation, data, dst, cscratch, &dict)?,
                    ChunkCodec::User(u) if !u.available() => return Err(Error::CodecSupport),
                    ChunkCodec::User(u) => u.encode(data, dst, job.compcode_meta, &call.codec).max(0) as usize,
                }
            };
            let n = if n == 0 || n >= block.len() {
                if room < block.len() {
                    return Ok(0);
                }
                copy_bytes(&mut dest[pos..pos + block.len()], data);
                block.len()
            } else {
                n
            };
            pos += n;
        }
        let mut header = header;
        header.cbytes = pos as i32;
        header.write(dest);
        Ok(pos)
    }

    /// The dictionary of a VL-block chunk, sized like the reference's: at most
    /// `min(32 KiB, total / 20)` bytes, none for fewer than 8 blocks or too little data.
    /// The samples are the filtered blocks, one sample each.
    fn vl_dict(&self, blocks: &[&[u8]], typesize: usize, codec: Codec, call: &FilterCallContext) -> Result<Option<Vec<u8>>> {
        let total: usize = blocks.iter().map(|b| b.len()).sum();
        let max = MAX_DICT_SIZE.min(total / 20);
        if max < MIN_USEFUL_DICT || blocks.len() < 8 || total / blocks.len() / 16 == 0 {
            return Ok(None);
        }
        let p = &self.params;
        let mut samples = Vec::with_capacity(total);
        let mut sc = self.workers.scratch(0);
        for block in blocks {
            let pp = PipelineParams {
                filters: &p.filters,
                filters_meta: &p.filters_meta,
                typesize,
                format_version: VERSION_FORMAT_VL_BLOCKS,
                call,
            };
            sc.bufs.ensure(block.len());
            let cur = if pipeline::forward_is_noop(&p.filters) {
                Slot::Input
            } else {
                pipeline::forward(&pp, block, 0, block, block.len(), Slot::Input, &mut sc.bufs)?
            };
            samples.extend_from_slice(sc.bufs.get(block, cur, block.len()));
        }
        let sizes: Vec<usize> = blocks.iter().map(|b| b.len()).collect();
        Ok(dict_from_samples(codec, &samples, &sizes, max, blocks.len()))
    }

    /// Memcpy path: the blocks are stored raw right after the header (prefilter still runs).
    /// With several threads and a large enough chunk, each thread copies a contiguous run
    /// of blocks: one core does not reach the memory bandwidth on its own, and this copy
    /// follows a compression attempt that already went through the whole source.
    fn copy_blocks(&self, job: &Job<'_>, out: &mut [u8], nthreads: usize) -> Result<()> {
        let parts = if job.nbytes >= super::decompress::PARALLEL_MIN_BYTES { nthreads.min(job.nblocks) } else { 1 };
        if parts <= 1 {
            return copy_block_range(job, 0..job.nblocks, out, 0);
        }
        let per = job.nblocks.div_ceil(parts);
        let mut pieces = Vec::with_capacity(parts);
        let mut rest = out;
        for first in (0..job.nblocks).step_by(per) {
            let last = (first + per).min(job.nblocks);
            let len = (last * job.blocksize).min(job.nbytes) - first * job.blocksize;
            let (head, tail) = std::mem::take(&mut rest).split_at_mut(len);
            pieces.push((first..last, head));
            rest = tail;
        }
        let error: Mutex<Option<Error>> = Mutex::new(None);
        // (`nthreads`, not the number of pieces: the pool runs only jobs of its own size.)
        self.workers.run_pieces(nthreads, pieces, &|tid, (blocks, out)| {
            if let Err(e) = copy_block_range(job, blocks, out, tid) {
                *error.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
            }
        })?;
        match error.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Compress every block after the header and bstarts; `start` is where the first stream
    /// goes. Returns the chunk length, or 0 when it does not fit in `dest`.
    fn compress_blocks(&self, job: &Job<'_>, dest: &mut dyn Dest, hlen: usize, start: usize, nthreads: usize) -> Result<usize> {
        let training = matches!(job.dict, DictMode::Training);
        let limit = dest.limit();
        if nthreads <= 1 || job.nblocks <= 1 || job.nbytes < super::decompress::PARALLEL_MIN_BYTES {
            let mut sc = self.workers.scratch(0);
            let mut copies = std::mem::take(&mut sc.raw);
            copies.clear();
            let mut pos = start;
            for j in 0..job.nblocks {
                // A block never takes more than its bound, so offering that much (or what is
                // left) decides exactly as offering the whole rest of the buffer.
                let out = dest.upto(limit.min(pos + job.block_bound(j)));
                if !training {
                    put_i32(out, hlen + 4 * j, pos as i32);
                }
                let deferred = Deferred { copies: &mut copies, src: j * job.blocksize, chunk: pos };
                let n = compress_block(job, j, 0, &mut out[pos..], &mut sc, Some(deferred))?;
                if n == 0 {
                    pos = 0;
                    break;
                }
                pos += n;
            }
            if pos > 0 {
                copies.apply(job.src, dest.upto(pos));
            }
            sc.raw = copies;
            return Ok(pos);
        }
        // Parallel: each thread compresses its blocks into its own arena (kept between calls,
        // so no allocation or page faults per block) and copies each into the chunk as soon
        // as the sizes of all blocks before it are known (`Ordered`), so the chunk is
        // byte-identical to the serial one. Blocks still waiting when the workers are done
        // are copied last.
        dest.upto(start); // Header and block starts: written below, initialized now.
        let area = dest.as_mut_ptr();
        let bound = (0..job.nblocks).map(|j| job.block_bound(j)).sum();
        // The per-block records and each thread's list of blocks waiting for their place
        // are kept in the scratch from chunk to chunk: a parallel compression allocates
        // nothing once they have grown (see `threads::Placement`).
        let records = std::mem::take(&mut self.workers.scratch(0).placement);
        // SAFETY: `area` is valid for writes of `limit` bytes (Dest::as_mut_ptr); nothing
        // else touches `dest` until `ordered` is finished below.
        let ordered = unsafe { Ordered::from_raw(area, limit, start, job.nblocks, bound, records) };
        let next = AtomicUsize::new(0);
        let failed = AtomicBool::new(false);
        let error: Mutex<Option<Error>> = Mutex::new(None);
        // Blocks are claimed in runs of consecutive ones (`blocks_per_claim`).
        let per_claim = super::decompress::blocks_per_claim(job.blocksize, job.nblocks, nthreads);
        // Every thread's waiting blocks and raw streams start empty here rather than in the
        // worker: one that a threads callback did not run would otherwise leave an earlier
        // call's for `place_own` below.
        for tid in 0..nthreads {
            let mut sc = self.workers.scratch(tid);
            sc.pending.clear();
            sc.raw.clear();
        }
        self.workers.run(nthreads, &|tid| {
            let mut sc = self.workers.scratch(tid);
            let mut arena = std::mem::take(&mut sc.out);
            let mut used = 0usize;
            // This thread's blocks not in the chunk yet, in block order (empty: cleared
            // above, with `raw`).
            let mut mine = std::mem::take(&mut sc.pending);
            // Streams stored as they are (of blocks no filter changed) stay in the source
            // until their block is placed, and are copied from there (as the serial path
            // does at its end): when the chunk does not fit, as with data that does not
            // compress, they are then never copied at all (they were copied twice, into the
            // arena and into the chunk, before the chunk was stored whole).
            let mut raw = std::mem::take(&mut sc.raw);
            'runs: loop {
                if failed.load(Ordering::Relaxed) {
                    break;
                }
                let first = next.fetch_add(1, Ordering::Relaxed).saturating_mul(per_claim);
                if first >= job.nblocks {
                    break;
                }
                for j in first..(first + per_claim).min(job.nblocks) {
                    let bound = job.block_bound(j);
                    arena.grow_to(used + bound);
                    // The arena's bytes, taken once per block.
                    let bytes: &mut [u8] = &mut arena;
                    let mark = raw.mark();
                    let deferred = Deferred { copies: &mut raw, src: j * job.blocksize, chunk: used };
                    match compress_block(job, j, tid, &mut bytes[used..used + bound], &mut sc, Some(deferred)) {
                        Ok(n) if n > 0 && ordered.report(j, n, bound) => {
                            mine.push_back(Waiting { block: j, at: used, len: n, raw: (mark, raw.mark()) });
                            used += n;
                            // Places become known in block order: once one must wait, so do
                            // the later ones.
                            while let Some(w) = mine.front() {
                                if !place_waiting(&ordered, w, bytes, &raw, job.src) {
                                    break;
                                }
                                mine.pop_front();
                            }
                            // Nothing of this thread waits any more: the next block can
                            // reuse the arena from its start, so the arena's touched pages
                            // stay near one block's output instead of the thread's share of
                            // the chunk.
                            if mine.is_empty() {
                                used = 0;
                                raw.clear();
                            }
                        }
                        Ok(_) => {
                            failed.store(true, Ordering::Relaxed);
                            break 'runs;
                        }
                        Err(e) => {
                            *error.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
                            failed.store(true, Ordering::Relaxed);
                            break 'runs;
                        }
                    }
                }
            }
            sc.pending = mine;
            sc.out = arena;
            sc.raw = raw;
        })?;
        let error = error.into_inner().unwrap_or_else(|e| e.into_inner());
        if error.is_some() || failed.load(Ordering::Relaxed) {
            self.workers.scratch(0).placement = ordered.finish().0;
            return error.map_or(Ok(0), Err);
        }
        // The blocks still waiting (the chunk was not sure to fit until the end, as with
        // poorly compressible data: nearly all of them) are copied by the threads that hold
        // them, unless only this thread's are left. (A block not placed makes `finish` fail.)
        let place_own = |tid: usize| {
            let mut sc = self.workers.scratch(tid);
            let mut own = std::mem::take(&mut sc.pending);
            for w in &own {
                place_waiting(&ordered, w, &sc.out, &sc.raw, job.src);
            }
            own.clear();
            sc.pending = own;
        };
        if (1..nthreads).all(|tid| self.workers.scratch(tid).pending.is_empty()) {
            place_own(0);
        } else {
            self.workers.run_pieces(nthreads, vec![(); nthreads], &|tid, ()| place_own(tid))?;
        }
        let (records, end) = ordered.finish();
        let Some(pos) = end else {
            self.workers.scratch(0).placement = records;
            return Err(Error::Failure);
        };
        // SAFETY: `upto(start)` initialized the bytes before `start`, and the blocks, placed
        // one after the other from `start`, wrote every byte up to `pos`.
        unsafe { dest.assume_written(pos) };
        let out = dest.upto(pos);
        if !training {
            for (j, &at) in records.starts().iter().enumerate() {
                put_i32(out, hlen + 4 * j, at as i32);
            }
        }
        self.workers.scratch(0).placement = records;
        Ok(pos)
    }

    /// Build a chunk's dictionary from its filtered blocks, the way the reference sizes and
    /// samples it (so both write the same chunk): `max(8, streams)` samples of
    /// `nbytes / samples / 16` bytes from the start of the filtered data, at most
    /// `min(32 KiB, nbytes / 20)` bytes of dictionary. LZ4 takes those bytes as they are,
    /// zstd trains on them. `None`: too little data, or training failed (plain chunk).
    fn train_dict(&self, job: &Job<'_>, nthreads: usize) -> Result<Option<Vec<u8>>> {
        let generation = self.params.generation;
        let max = generation.max_dict_size().min(job.nbytes / 20);
        let streams = if job.dont_split { job.nblocks } else { job.nblocks * job.typesize };
        let nsamples = streams.max(8);
        let sample_size = job.nbytes / nsamples / 16;
        // 3.x then writes a plain chunk; 2.x's training fails and it gives up.
        let no_dict = || match generation {
            Generation::V2 => Err(Error::CodecDict),
            Generation::V3 => Ok(None),
        };
        if max < generation.min_useful_dict() || sample_size == 0 {
            return no_dict();
        }
        let tjob = Job { dict: DictMode::Training, ..job.clone() };
        let mut samples = vec![0u8; job.nbytes];
        let n = self.compress_blocks(&tjob, &mut &mut samples[..], 0, 0, nthreads)?;
        if n != job.nbytes {
            return Ok(None);
        }
        match dict_from_samples(job.codec.tuning(), &samples, &vec![sample_size; nsamples], max, job.nblocks) {
            Some(d) => Ok(Some(d)),
            None => no_dict(),
        }
    }
}

/// Zstd dictionaries are digested at this level whatever the chunk's clevel (as the
/// reference does, so the streams come out the same).
const DICT_ZSTD_LEVEL: i32 = 1;

/// Codecs that can use a dictionary (`use_dict`): zstd, lz4 and lz4hc (2.x: zstd only).
fn codec_has_dicts(compcode: u8, generation: Generation) -> bool {
    match generation {
        Generation::V2 => Codec::from_code(compcode) == Some(Codec::Zstd),
        Generation::V3 => matches!(Codec::from_code(compcode), Some(Codec::Zstd | Codec::Lz4 | Codec::Lz4Hc)),
    }
}

/// The dictionary for `codec` from `samples` (laid out back to back, `sizes` long each):
/// LZ4 uses the first `max` bytes of the samples directly; every other codec gets a trained
/// zstd dictionary (the reference also embeds one for VL-block chunks of codecs that then
/// ignore it). `None` when zstd cannot train one.
///
/// `nblocks` places one quirk of the reference's LZ4 dictionaries: it gathers the samples
/// in the chunk buffer right after the header, writes the dictionary's size where the
/// bstarts end (over sample bytes `4 * nblocks..+4`) and only then copies the dictionary out
/// of the samples, so those four bytes of every LZ4 dictionary hold its own size. Doing the
/// same keeps the chunks byte-identical (the dictionary is stored in the chunk either way).
fn dict_from_samples(codec: Codec, samples: &[u8], sizes: &[usize], max: usize, nblocks: usize) -> Option<Vec<u8>> {
    let total: usize = sizes.iter().sum();
    match codec {
        Codec::Lz4 | Codec::Lz4Hc => {
            let mut d = samples[..total.min(max).min(samples.len())].to_vec();
            let size = (d.len() as i32).to_le_bytes();
            for (i, b) in size.iter().enumerate() {
                if let Some(x) = d.get_mut(4 * nblocks + i) {
                    *x = *b;
                }
            }
            Some(d)
        }
        _ => codecs::zstd::train_dict(&samples[..total.min(samples.len())], sizes, max),
    }
}

impl<'a> Job<'a> {
    fn dict_is_none(&self) -> bool {
        matches!(self.dict, DictMode::None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::super::decompress::Decompressor;
    use super::super::params::DecompressParams;

    fn params(filters: [u8; MAX_FILTERS], meta: [u8; MAX_FILTERS], typesize: i32) -> CompressParams {
        CompressParams { typesize, blocksize: 1024, filters, filters_meta: meta, ..CompressParams::default() }
    }

    fn round_trip(c: &mut Compressor, src: &[u8], nbytes: usize, nthreads: i16) -> Vec<u8> {
        let mut chunk = vec![0u8; nbytes + MAX_OVERHEAD];
        let n = if src.is_empty() { c.compress_from_prefilter(nbytes, &mut chunk) } else { c.compress(src, &mut chunk) };
        let n = n.expect("compress");
        assert!(n > 0 && n < nbytes, "the chunk should compress ({n} bytes)");
        let mut d = Decompressor::new(DecompressParams { nthreads, ..DecompressParams::default() });
        let mut out = vec![0u8; nbytes];
        assert_eq!(d.decompress(&chunk[..n], &mut out), Ok(nbytes));
        out
    }

    /// A float ramp whose low mantissa bits vary, over several blocks.
    fn floats(n: usize) -> Vec<u8> {
        (0..n).flat_map(|i| (1000.0f32 + i as f32 * 0.37 + (i % 7) as f32 * 1e-3).to_le_bytes()).collect()
    }

    #[test]
    fn trunc_prec_before_delta_decodes_every_block() {
        let src = floats(2048);
        let keep = |b: &[u8]| -> Vec<u8> {
            b.chunks(4)
                .flat_map(|x| (u32::from_le_bytes(x.try_into().unwrap()) & !((1u32 << 13) - 1)).to_le_bytes())
                .collect()
        };
        for filters in [[0, 0, 0, 0, TRUNC_PREC, DELTA], [0, 0, 0, TRUNC_PREC, DELTA, SHUFFLE], [0, 0, 0, TRUNC_PREC, SHUFFLE, DELTA]] {
            let meta = filters.map(|f| if f == TRUNC_PREC { 10 } else { 0 });
            let mut c = Compressor::new(params(filters, meta, 4));
            for nthreads in [1, 2] {
                let out = round_trip(&mut c, &src, src.len(), nthreads);
                assert!(out == keep(&src), "{filters:?}, {nthreads} threads: not the truncated source");
            }
        }
    }

    /// Adds one to every byte of the source, or writes a ramp when there is no source.
    struct PlusOne;
    impl Prefilter for PlusOne {
        fn apply(&self, info: &BlockInfo, input: &[u8], output: &mut [u8], _: bool) -> i32 {
            for (i, o) in output.iter_mut().enumerate() {
                *o = match input.get(i) {
                    Some(b) => b.wrapping_add(1),
                    None => ((info.offset as usize + i) / 3) as u8,
                };
            }
            0
        }
    }

    #[test]
    fn prefilter_then_delta_decodes_to_the_prefilter_output() {
        let src: Vec<u8> = (0..8192u32).map(|i| (i / 5) as u8).collect();
        let want: Vec<u8> = src.iter().map(|b| b.wrapping_add(1)).collect();
        let ramp: Vec<u8> = (0..8192usize).map(|i| (i / 3) as u8).collect();
        for filters in [[0, 0, 0, 0, 0, DELTA], [0, 0, 0, 0, DELTA, SHUFFLE], [0, 0, 0, 0, SHUFFLE, DELTA]] {
            let mut c = Compressor::new(params(filters, [0; MAX_FILTERS], 2));
            c.prefilter = Some(Arc::new(PlusOne));
            assert!(round_trip(&mut c, &src, src.len(), 1) == want, "{filters:?} with a source");
            assert!(round_trip(&mut c, &[], ramp.len(), 2) == ramp, "{filters:?} without a source");
        }
    }

    fn dict_params(compcode: u8) -> CompressParams {
        CompressParams { compcode, typesize: 4, use_dict: true, ..CompressParams::default() }
    }

    #[test]
    fn dictionaries_only_for_codecs_that_take_them() {
        let src: Vec<u8> = (0..40_000u32).flat_map(|i| (i / 3).to_le_bytes()).collect();
        let mut chunk = vec![0u8; src.len() + MAX_OVERHEAD];
        for code in [0u8, 4] {
            let mut c = Compressor::new(dict_params(code));
            assert_eq!(c.compress(&src, &mut chunk), Err(Error::CodecParam), "codec {code} with a source");
            assert_eq!(c.compress_from_prefilter(0, &mut chunk), Err(Error::CodecDict), "codec {code} without one");
            c.params.clevel = 0;
            assert_eq!(c.compress(&src, &mut chunk), Err(Error::CodecParam), "codec {code} at clevel 0");
        }
        for code in [1u8, 2, 5] {
            let mut c = Compressor::new(dict_params(code));
            let n = c.compress(&src, &mut chunk).unwrap();
            assert_eq!(chunk[31] & USEDICT, USEDICT, "codec {code}");
            let mut d = Decompressor::new(DecompressParams::default());
            let mut out = vec![0u8; src.len()];
            assert_eq!(d.decompress(&chunk[..n], &mut out), Ok(src.len()));
            assert!(out == src, "codec {code}");
        }
    }

    #[test]
    fn generation_v2_dictionaries() {
        // 2.x: zstd only (others give up with CODEC_DICT), dictionaries up to 128 KiB.
        // Tokens drawn from a large random vocabulary: worth a big dictionary.
        let mut x = 0x9E3779B97F4A7C15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let vocab: Vec<[u8; 16]> = (0..20_000).map(|_| { let (a, b) = (next(), next()); let mut t = [0u8; 16]; t[..8].copy_from_slice(&a.to_le_bytes()); t[8..].copy_from_slice(&b.to_le_bytes()); t }).collect();
        let src: Vec<u8> = (0..250_000).flat_map(|_| vocab[(next() % 20_000) as usize]).collect();
        let mut chunk = vec![0u8; src.len() + MAX_OVERHEAD];
        for code in [0u8, 1, 2, 4] {
            let mut c = Compressor::new(CompressParams { generation: Generation::V2, ..dict_params(code) });
            assert_eq!(c.compress(&src, &mut chunk), Err(Error::CodecDict), "codec {code}");
        }
        let mut c = Compressor::new(CompressParams { generation: Generation::V2, typesize: 1, filters: [0; MAX_FILTERS], ..dict_params(5) });
        let n = c.compress(&src, &mut chunk).unwrap();
        assert_eq!(chunk[31] & USEDICT, USEDICT);
        let blocksize = i32::from_le_bytes(chunk[8..12].try_into().unwrap()) as usize;
        let nblocks = src.len().div_ceil(blocksize);
        let at = EXTENDED_HEADER_LENGTH + 4 * nblocks;
        let dsize = i32::from_le_bytes(chunk[at..at + 4].try_into().unwrap()) as usize;
        assert!(dsize > MAX_DICT_SIZE && dsize <= Generation::V2.max_dict_size(), "dictionary of {dsize} bytes");
        let mut d = Decompressor::new(DecompressParams::default());
        let mut out = vec![0u8; src.len()];
        assert_eq!(d.decompress(&chunk[..n], &mut out), Ok(src.len()), "3.x readers take 2.x dictionaries");
        assert!(out == src);
    }

    #[test]
    fn a_dictionary_chunk_that_does_not_fit_is_stored_plain() {
        // Random data plus a dictionary cannot fit in nbytes + 32: the memcpyed chunk must not
        // keep the dictionary flag (the reference keeps it and then cannot read the chunk).
        let mut x = 88172645463325252u64;
        let src: Vec<u8> = (0..200_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        for code in [1u8, 5] {
            let mut c = Compressor::new(dict_params(code));
            let mut chunk = vec![0u8; src.len() + MAX_OVERHEAD];
            let n = c.compress(&src, &mut chunk).unwrap();
            assert_eq!(n, src.len() + MAX_OVERHEAD);
            assert_eq!(chunk[2] & MEMCPYED, MEMCPYED);
            assert_eq!(chunk[31] & USEDICT, 0, "codec {code}");
            let mut d = Decompressor::new(DecompressParams::default());
            let mut out = vec![0u8; src.len()];
            assert_eq!(d.decompress(&chunk[..n], &mut out), Ok(src.len()));
            assert!(out == src);
        }
    }

    #[test]
    fn lz4_dictionaries_carry_their_size_where_the_bstarts_end() {
        let samples: Vec<u8> = (0..4000u32).map(|i| (i % 251) as u8).collect();
        let d = dict_from_samples(Codec::Lz4, &samples, &[250; 16], 600, 3).unwrap();
        assert_eq!(d.len(), 600);
        assert_eq!(&d[12..16], &600i32.to_le_bytes());
        assert_eq!(&d[..12], &samples[..12]);
        assert_eq!(&d[16..], &samples[16..600]);
        // A dictionary that ends inside those four bytes takes what fits.
        let d = dict_from_samples(Codec::Lz4Hc, &samples, &[300], 300, 74).unwrap();
        assert_eq!(&d[296..], &300i32.to_le_bytes()[..4]);
        let d = dict_from_samples(Codec::Lz4, &samples, &[300], 300, 75).unwrap();
        assert!(d == samples[..300], "past the dictionary: untouched");
    }

    /// Raw streams among compressed ones: a one-thread compression copies them last (see
    /// `Deferred`), and writes the same chunk as two threads, which copy them at once.
    #[test]
    fn deferred_raw_streams_are_stored() {
        let nbytes = 512 << 10;
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let src: Vec<u8> = (0..nbytes)
            .map(|i| {
                if (i / (16 << 10)) % 2 == 0 {
                    (i / 64) as u8
                } else {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                }
            })
            .collect();
        let mut chunks = Vec::new();
        for nthreads in [1i16, 2] {
            let p = CompressParams { blocksize: 16 << 10, nthreads, ..params([0; MAX_FILTERS], [0; MAX_FILTERS], 4) };
            let mut c = Compressor::new(p);
            let mut chunk = vec![0u8; nbytes + MAX_OVERHEAD];
            let n = c.compress(&src, &mut chunk).expect("compress");
            assert!(n > nbytes / 2 && n < nbytes, "half raw, half compressed: {n} bytes");
            chunk.truncate(n);
            let mut d = Decompressor::new(DecompressParams::default());
            let mut out = vec![0u8; nbytes];
            assert_eq!(d.decompress(&chunk, &mut out), Ok(nbytes));
            assert!(out == src, "{nthreads} thread(s)");
            chunks.push(chunk);
        }
        assert!(chunks[0] == chunks[1]);
    }

    #[test]
    fn exact_pipelines_take_the_source_block() {
        assert!(!needs_decoded_reference(&[0, 0, 0, SHUFFLE, DELTA, 35], false));
        assert!(!needs_decoded_reference(&[0, 0, 0, 0, TRUNC_PREC, SHUFFLE], true));
        assert!(needs_decoded_reference(&[0, 0, 0, 0, TRUNC_PREC, DELTA], false));
        assert!(needs_decoded_reference(&[0, 0, 0, 0, 0, DELTA], true));
        assert!(needs_decoded_reference(&[0, 0, 0, 0, DELTA, 200], false));
    }

    #[test]
    fn stored_chunks_copied_by_threads_equal_the_serial_copy() {
        use crate::filters::tests::data as noise;
        // 19 blocks, the last one short: the threads' runs of blocks are of unequal length;
        // 5 blocks for 4 threads: 3 runs of 2 blocks, one thread has none.
        for src in [noise(18 * 16384 + 4000, 1), noise(4 * 16384 + 1000, 2)] {
            for clevel in [0u8, 5] {
                for with_prefilter in [false, true] {
                    let mut chunks = Vec::new();
                    for nthreads in [1i16, 2, 3, 4] {
                        let p = CompressParams { typesize: 4, blocksize: 16384, clevel, nthreads, ..CompressParams::default() };
                        let mut c = Compressor::new(p);
                        if with_prefilter {
                            c.prefilter = Some(Arc::new(PlusOne));
                        }
                        let mut chunk = vec![0u8; src.len() + MAX_OVERHEAD];
                        let n = c.compress(&src, &mut chunk).expect("compress");
                        assert_eq!(n, src.len() + EXTENDED_HEADER_LENGTH, "clevel {clevel}, {nthreads} threads");
                        assert_eq!(chunk[2] & MEMCPYED, MEMCPYED);
                        chunk.truncate(n);
                        chunks.push(chunk);
                    }
                    let want: Vec<u8> = if with_prefilter { src.iter().map(|b| b.wrapping_add(1)).collect() } else { src.clone() };
                    assert!(chunks[0][EXTENDED_HEADER_LENGTH..] == want[..], "clevel {clevel}: payload is not the source");
                    assert!(chunks.iter().all(|c| *c == chunks[0]), "clevel {clevel}, prefilter {with_prefilter}: threads changed the chunk");
                }
            }
        }
    }

    /// Blocks compressed by several threads and placed as their sizes become known make the
    /// serial chunk, byte for byte, in a caller's buffer and in a growing vector; a buffer
    /// too small for the blocks gets the stored chunk, as serially.
    #[test]
    fn blocks_placed_by_threads_make_the_serial_chunk() {
        use crate::filters::tests::data as noise;
        // Blocks of very different compressed sizes: runs, a ramp, noise, in turns.
        let mut src = Vec::new();
        for k in 0..37usize {
            match k % 3 {
                0 => src.extend(std::iter::repeat_n(k as u8, 16384)),
                1 => src.extend((0..16384u32).map(|i| (i / 7) as u8)),
                _ => src.extend(noise(16384, k as u64)),
            }
        }
        src.truncate(src.len() - 5000);
        let chunk_with = |nthreads: i16, room: usize, to_vec: bool| -> Vec<u8> {
            let p = CompressParams { typesize: 4, blocksize: 16384, clevel: 5, nthreads, ..CompressParams::default() };
            let mut c = Compressor::new(p);
            if to_vec {
                return c.compress_to_vec(&src).expect("compress");
            }
            let mut chunk = vec![0xA5u8; room];
            let n = c.compress(&src, &mut chunk).expect("compress");
            chunk.truncate(n);
            chunk
        };
        let serial = chunk_with(1, src.len() + MAX_OVERHEAD, false);
        assert_eq!(serial[2] & MEMCPYED, 0, "compressed");
        assert!(serial.len() < src.len() * 3 / 4);
        for nthreads in [2i16, 3, 4] {
            for _ in 0..5 {
                assert!(chunk_with(nthreads, src.len() + MAX_OVERHEAD, false) == serial, "{nthreads} threads, buffer");
                assert!(chunk_with(nthreads, 0, true) == serial, "{nthreads} threads, vector");
            }
            // Room for the header and the block starts only: stored or refused, as serially.
            let tight = EXTENDED_HEADER_LENGTH + 4 * src.len().div_ceil(16384) + 100;
            assert!(chunk_with(nthreads, tight, false) == chunk_with(1, tight, false), "{nthreads} threads, tight");
        }
        let mut back = vec![0u8; src.len()];
        let mut d = crate::chunk::decompress::Decompressor::new(Default::default());
        assert_eq!(d.decompress(&serial, &mut back).expect("decompress"), src.len());
        assert!(back == src);
    }
}
