//! c-blosc 1.x chunks (format version 2, 16-byte header), written byte for byte as c-blosc
//! 1.21.3 writes them and read with its checks and error outcomes. The c-blosc 1.x face
//! (`libblosc.so.1`, the `blosc1/` crate) is a thin layer over this module.
//!
//! # Layout
//! A 16-byte header (format version 2, codec format version 1, flags, typesize, then the
//! uncompressed size, block size and chunk size as little-endian `i32`), one `i32` start
//! offset per block (absent when the chunk is stored raw: flag `MEMCPYED`), then the
//! blocks. A block is one stream, or `typesize` streams when it is split (flag bit 4 clear),
//! each preceded by its length; a stream as long as its uncompressed part is stored raw.
//!
//! # How 1.x decides (and differs from c-blosc2)
//! * Block size: 32 KiB scaled by the clevel (doubled for zlib, zstd and LZ4HC) for buffers
//!   of at least 32 KiB, then, for blocks that will be split, multiplied by the typesize
//!   within 64 KiB..1 MiB, capped at the buffer and rounded down to the typesize. A forced
//!   block size (at least 128 bytes) goes through the same split enlargement.
//! * Splitting follows the global split mode, by default "forward compatible": every codec
//!   but zstd splits when the typesize is at most 16 and a block holds at least 128 items.
//!   Readers only split blocks that satisfy that last rule (older writers had no flag), so
//!   chunks written with `ALWAYS` and larger typesizes do not read back in c-blosc 1.x.
//! * Bit-shuffle only transposes blocks whose item count is a multiple of 8; other blocks
//!   are stored as they are.
//! * BloscLZ streams use the 1.x variant of the encoder ([`blosclz::compress_v1`]).
//! * With several threads, blocks land in the chunk in the order they finish (the block
//!   starts say where), so the bytes vary from run to run but the sizes do not.

use crate::copy::{copy_bytes, copy_stored, Deferred, DeferredCopies};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use super::blocksize::clevel_block;
use super::workers::Workers;
use crate::codecs::{self, blosclz, lz4, snappy, CodecScratch, DDict};
use crate::error::{Error, Result};
use crate::filters;
use super::spare::Spare;
use crate::scratch::ScratchBuf;
use crate::threads::Reserved;

/// The format version c-blosc 1.x writes and the only one it reads.
pub const VERSION_FORMAT: u8 = 2;
/// Every codec's stream format version.
pub const CODEC_VERSION_FORMAT: u8 = 1;
/// Bytes of the c-blosc 1.x chunk header (`BLOSC_MIN_HEADER_LENGTH`).
pub const HEADER_LEN: usize = 16;
/// Largest typesize (`BLOSC_MAX_TYPESIZE`); a larger one is compressed as typesize 1.
pub const MAX_TYPESIZE: usize = 255;
/// Most threads c-blosc 1.x accepts (`BLOSC_MAX_THREADS`).
pub const MAX_THREADS: i32 = 256;
/// Largest input: what still fits an `i32` chunk size with its header.
pub const MAX_BUFFERSIZE: usize = i32::MAX as usize - HEADER_LEN;
/// Largest block a reader accepts (and a forced block size is capped to).
pub const MAX_BLOCKSIZE: usize = (i32::MAX as usize - MAX_TYPESIZE * 4) / 3;

// Header flag bits.
/// `BLOSC_DOSHUFFLE`: the blocks were byte-shuffled.
pub const DOSHUFFLE: u8 = 0x1;
/// `BLOSC_MEMCPYED`: the data follows the header raw, without block starts.
pub const MEMCPYED: u8 = 0x2;
/// `BLOSC_DOBITSHUFFLE`: the blocks were bit-shuffled.
pub const DOBITSHUFFLE: u8 = 0x4;
/// Reserved; readers refuse chunks that set it.
const FUTURE_FLAG: u8 = 0x8;
const DONT_SPLIT: u8 = 0x10;

/// Buffers smaller than this are stored raw; a forced block size is at least this.
const MIN_BUFFERSIZE: usize = 128;
/// Blocks are split into at most this many streams (readers' rule).
const MAX_SPLITS: usize = 16;
const L1: usize = 32 * 1024;

/// The codecs c-blosc 1.x knows, with its codes (`BLOSC_BLOSCLZ` ... `BLOSC_ZSTD`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec1 {
    /// `BLOSC_BLOSCLZ` (0).
    BloscLz,
    /// `BLOSC_LZ4` (1).
    Lz4,
    /// `BLOSC_LZ4HC` (2): LZ4 high-compression; its streams are LZ4 streams.
    Lz4Hc,
    /// `BLOSC_SNAPPY` (3); writing it needs the `snappy-compress` feature.
    Snappy,
    /// `BLOSC_ZLIB` (4).
    Zlib,
    /// `BLOSC_ZSTD` (5).
    Zstd,
}

impl Codec1 {
    /// Every codec, in code order.
    pub const ALL: [Codec1; 6] =
        [Codec1::BloscLz, Codec1::Lz4, Codec1::Lz4Hc, Codec1::Snappy, Codec1::Zlib, Codec1::Zstd];

    /// The `BLOSC_*` compressor code (`blosc_compname_to_compcode`).
    pub fn code(self) -> i32 {
        self as i32
    }

    /// The codec with `BLOSC_*` code `code`; `None` if unknown.
    pub fn from_code(code: i32) -> Option<Codec1> {
        Codec1::ALL.into_iter().find(|c| c.code() == code)
    }

    /// The name used by `blosc_set_compressor` and friends.
    pub fn name(self) -> &'static str {
        match self {
            Codec1::BloscLz => "blosclz",
            Codec1::Lz4 => "lz4",
            Codec1::Lz4Hc => "lz4hc",
            Codec1::Snappy => "snappy",
            Codec1::Zlib => "zlib",
            Codec1::Zstd => "zstd",
        }
    }

    /// The codec called `name` (exact, lower-case, as [`Codec1::name`]); `None` if unknown.
    pub fn from_name(name: &[u8]) -> Option<Codec1> {
        Codec1::ALL.into_iter().find(|c| c.name().as_bytes() == name)
    }

    /// The library/format code stored in the flags' top 3 bits (LZ4 and LZ4HC share one).
    pub fn format(self) -> u8 {
        match self {
            Codec1::BloscLz => 0,
            Codec1::Lz4 | Codec1::Lz4Hc => 1,
            Codec1::Snappy => 2,
            Codec1::Zlib => 3,
            Codec1::Zstd => 4,
        }
    }

    /// Whether this build can write the codec (snappy needs the `snappy-compress` feature).
    pub fn can_compress(self) -> bool {
        self != Codec1::Snappy || cfg!(feature = "snappy-compress")
    }

    /// Codecs meant for high compression ratios get larger blocks.
    fn is_hcr(self) -> bool {
        matches!(self, Codec1::Lz4Hc | Codec1::Zlib | Codec1::Zstd)
    }
}

/// Name of the library behind a format code (`blosc_cbuffer_complib`).
pub fn format_lib_name(format: u8) -> Option<&'static str> {
    Some(match format {
        0 => "BloscLZ",
        1 => "LZ4",
        2 => "Snappy",
        3 => "Zlib",
        4 => "Zstd",
        _ => return None,
    })
}

/// The library code behind a compressor name (`blosc_get_complib_info`).
pub fn name_to_format(name: &[u8]) -> Option<u8> {
    Codec1::from_name(name).map(Codec1::format)
}

/// How blocks are split into streams (`blosc_set_splitmode`); any other value set by a
/// caller behaves as "always" (c-blosc 1.x treats its "unsupported" answer as true).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SplitMode {
    /// `BLOSC_ALWAYS_SPLIT` (1): split every block.
    Always,
    /// `BLOSC_NEVER_SPLIT` (2): never split.
    Never,
    /// `BLOSC_AUTO_SPLIT` (3): split for BloscLZ and Snappy when the block qualifies.
    Auto,
    /// `BLOSC_FORWARD_COMPAT_SPLIT` (4), the default: split for every codec but zstd when the
    /// block qualifies (typesize at most 16, at least 128 items per block).
    ForwardCompat,
    /// Any other code a caller set; behaves as [`SplitMode::Always`] but is reported back as is.
    Other(i32),
}

impl SplitMode {
    /// The mode for a `blosc_set_splitmode` code; unknown codes are kept in [`SplitMode::Other`].
    pub fn from_code(code: i32) -> SplitMode {
        match code {
            1 => SplitMode::Always,
            2 => SplitMode::Never,
            3 => SplitMode::Auto,
            4 => SplitMode::ForwardCompat,
            other => SplitMode::Other(other),
        }
    }

    /// The `BLOSC_*_SPLIT` code of this mode (the caller's value for [`SplitMode::Other`]).
    pub fn code(self) -> i32 {
        match self {
            SplitMode::Always => 1,
            SplitMode::Never => 2,
            SplitMode::Auto => 3,
            SplitMode::ForwardCompat => 4,
            SplitMode::Other(c) => c,
        }
    }
}

/// Compression parameters as the C functions receive them: `clevel`, `shuffle` and
/// `nthreads` are checked by [`Context1::compress`] in c-blosc 1.x's order, so that every
/// combination gets its answer (0, -1, -5 or -10 in C).
#[derive(Debug, Clone, Copy)]
pub struct Params1 {
    /// Compression level; 0 (stored raw) to 9, anything else is refused.
    pub clevel: i32,
    /// 0 none, 1 byte shuffle, 2 bit shuffle.
    pub shuffle: i32,
    /// Bytes per item; above [`MAX_TYPESIZE`] treated as 1, and 0 is refused.
    pub typesize: usize,
    /// `None`: a name or code the library does not know.
    pub codec: Option<Codec1>,
    /// 0: automatic.
    pub blocksize: usize,
    /// Whether blocks are split into one stream per byte of the item.
    pub splitmode: SplitMode,
    /// Threads to use, 1..=[`MAX_THREADS`]; only checked when more than one block is to run.
    pub nthreads: i32,
}

/// The 16-byte header, read without any check (c-blosc 1.x's `blosc_cbuffer_*` functions
/// report whatever is there).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header1 {
    /// Chunk format version (byte 0): [`VERSION_FORMAT`] for chunks c-blosc 1.x can read.
    pub version: u8,
    /// Codec stream format version (byte 1), [`CODEC_VERSION_FORMAT`].
    pub versionlz: u8,
    /// Byte 2: [`DOSHUFFLE`], [`MEMCPYED`], [`DOBITSHUFFLE`], bit 4 set when blocks are not
    /// split, and the codec's [`Codec1::format`] in bits 5-7.
    pub flags: u8,
    /// Bytes per item (byte 3).
    pub typesize: u8,
    /// Uncompressed size in bytes (bytes 4-7).
    pub nbytes: i32,
    /// Uncompressed bytes per block, the last one may be shorter (bytes 8-11).
    pub blocksize: i32,
    /// Size of the whole chunk, header included (bytes 12-15).
    pub cbytes: i32,
}

impl Header1 {
    /// Decode the 16 header bytes as they are, without any validation.
    pub fn read(src: &[u8; HEADER_LEN]) -> Header1 {
        let word = |at: usize| i32::from_le_bytes([src[at], src[at + 1], src[at + 2], src[at + 3]]);
        Header1 {
            version: src[0],
            versionlz: src[1],
            flags: src[2],
            typesize: src[3],
            nbytes: word(4),
            blocksize: word(8),
            cbytes: word(12),
        }
    }

    fn memcpyed(&self) -> bool {
        self.flags & MEMCPYED != 0
    }

    fn format(&self) -> u8 {
        self.flags >> 5
    }

    /// (number of blocks, bytes in the last block when it is short, else 0).
    fn block_count(&self) -> (usize, usize) {
        let nbytes = self.nbytes.max(0) as usize;
        let bs = self.blocksize.max(1) as usize;
        let leftover = nbytes % bs;
        (nbytes / bs + usize::from(leftover > 0), leftover)
    }

    /// The codec checks both readers make: an unknown format is -5 in C, a known one with a
    /// stream version other than 1 is -9.
    fn check_codec(&self) -> Result<()> {
        if self.format() > 4 {
            return Err(Error::CodecSupport);
        }
        if self.versionlz != CODEC_VERSION_FORMAT {
            return Err(Error::VersionSupport);
        }
        Ok(())
    }

    /// Whether the block-start table fits in the chunk (`strict`: getitem's `>=` test, one
    /// entry stricter than decompression's).
    fn starts_fit(&self, nblocks: usize, strict: bool) -> bool {
        // C's truncating division: a chunk size under 16 gives 0 (or a negative quotient).
        let room = (self.cbytes as i64 - HEADER_LEN as i64) / 4;
        let n = nblocks as i64;
        if strict {
            n < room
        } else {
            n <= room
        }
    }
}

/// A c-blosc 1.x context: the threads it keeps and the scratch each thread (and the caller,
/// for serial work) reuses from block to block and call to call.
#[derive(Default)]
pub struct Context1 {
    /// Only the thread pool is used (`ensure_pool`): the scratch is `serial` and `threads`.
    workers: Workers,
    /// The caller's scratch, taken from [`SPARE`] at first use.
    serial: Option<BlockScratch>,
    threads: Vec<Mutex<BlockScratch>>,
}

/// Scratch of dropped 1.x contexts (see [`super::spare`]).
static SPARE: Spare<BlockScratch, 4> = Spare::new();

/// Free the spare 1.x scratch areas.
pub(crate) fn release_spare() {
    SPARE.clear();
}

impl Drop for Context1 {
    fn drop(&mut self) {
        // Runs return only when their threads are done, so no thread holds a scratch area;
        // the thread pool goes to the next context when `workers` drops.
        for s in self.serial.take().into_iter().chain(self.threads.drain(..).map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner()))) {
            drop(SPARE.give(s));
        }
    }
}

/// Per-call layout decisions.
#[derive(Clone, Copy)]
struct Plan {
    clevel: u8,
    codec: Codec1,
    typesize: usize,
    flags: u8,
    blocksize: usize,
    nblocks: usize,
    leftover: usize,
}

impl Plan {
    fn split(&self) -> bool {
        self.flags & DONT_SPLIT == 0
    }

    fn block_len(&self, j: usize, nbytes: usize) -> usize {
        if j + 1 == self.nblocks && self.leftover > 0 {
            self.leftover
        } else {
            self.blocksize.min(nbytes - j * self.blocksize)
        }
    }
}

/// c-blosc 1.x's split decision for a codec, typesize and block size.
fn split_block(mode: SplitMode, codec: Codec1, typesize: usize, blocksize: usize) -> bool {
    let fits = typesize <= MAX_SPLITS && blocksize / typesize >= MIN_BUFFERSIZE;
    match mode {
        SplitMode::Always | SplitMode::Other(_) => true,
        SplitMode::Never => false,
        SplitMode::Auto => matches!(codec, Codec1::BloscLz | Codec1::Snappy) && fits,
        SplitMode::ForwardCompat => codec != Codec1::Zstd && fits,
    }
}

/// c-blosc 1.x's block size for `nbytes` of `typesize`-byte items (`forced`: 0 = automatic).
fn compute_blocksize(
    mode: SplitMode,
    codec: Codec1,
    clevel: u8,
    typesize: usize,
    nbytes: usize,
    forced: usize,
) -> usize {
    if nbytes < typesize {
        return 1;
    }
    let mut blocksize = nbytes;
    if forced != 0 {
        blocksize = forced.clamp(MIN_BUFFERSIZE, MAX_BLOCKSIZE);
    } else if nbytes >= L1 {
        blocksize = clevel_block(clevel, codec.is_hcr());
    }
    if clevel > 0 && split_block(mode, codec, typesize, blocksize) {
        blocksize = blocksize.min(1 << 18) * typesize;
        blocksize = blocksize.clamp(1 << 16, 1 << 20);
    }
    blocksize = blocksize.min(nbytes);
    if blocksize > typesize {
        blocksize = blocksize / typesize * typesize;
    }
    blocksize
}

fn put_i32(dest: &mut [u8], at: usize, v: usize) {
    dest[at..at + 4].copy_from_slice(&(v as i32).to_le_bytes());
}

fn get_i32(src: &[u8], at: usize) -> i32 {
    i32::from_le_bytes([src[at], src[at + 1], src[at + 2], src[at + 3]])
}

/// Scratch one block needs: the filtered block, a compressed block (parallel compression
/// places it in the chunk afterwards) and the codec state.
#[derive(Default)]
struct BlockScratch {
    filtered: ScratchBuf,
    out: ScratchBuf,
    codec: CodecScratch,
    /// Raw streams whose copy [`compress_serial`] defers.
    raw: DeferredCopies,
}

impl Context1 {
    /// A context with no threads yet (usable in a `static`).
    pub const fn new() -> Context1 {
        Context1 { workers: Workers::new(), serial: None, threads: Vec::new() }
    }

    /// Start `n` threads (kept between calls) and give each its scratch.
    fn ensure_threads(&mut self, n: usize) -> Result<()> {
        self.workers.ensure_pool(n)?;
        while self.threads.len() < n {
            self.threads.push(Mutex::new(SPARE.take()));
        }
        Ok(())
    }


    /// Drop the threads (`blosc_free_resources`); they come back when next needed.
    pub fn release_threads(&mut self) {
        self.workers.release();
    }

    /// Compress `src` into `dest` as c-blosc 1.21.3 does. `Ok(0)`: the result does not fit
    /// in `dest` (or `src` is over [`MAX_BUFFERSIZE`], or `dest` under 16 bytes), as in C.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] for a clevel outside 0..=9, a shuffle outside 0..=2 or a zero
    /// typesize with data (-10 in C; c-blosc 1.x divides by zero on the last), and
    /// [`Error::CodecSupport`] for an unknown or unavailable codec (-5);
    /// [`Error::Failure`] for a thread count outside 1..=256 when threads are needed (-1).
    pub fn compress(&mut self, p: &Params1, src: &[u8], dest: &mut [u8]) -> Result<usize> {
        let nbytes = src.len();
        if nbytes > MAX_BUFFERSIZE || dest.len() < HEADER_LEN {
            return Ok(0);
        }
        if !(0..=9).contains(&p.clevel) || !(0..=2).contains(&p.shuffle) {
            return Err(Error::InvalidParam);
        }
        let typesize = if p.typesize > MAX_TYPESIZE { 1 } else { p.typesize };
        if typesize == 0 {
            return Err(Error::InvalidParam);
        }
        let codec = match p.codec {
            Some(c) if c.can_compress() => c,
            _ => return Err(Error::CodecSupport),
        };
        let clevel = p.clevel as u8;
        // Chunk sizes are i32: never plan past what the header can say.
        let destsize = dest.len().min(i32::MAX as usize);
        let dest = &mut dest[..destsize];

        let blocksize = compute_blocksize(p.splitmode, codec, clevel, typesize, nbytes, p.blocksize);
        let leftover = nbytes % blocksize;
        let nblocks = nbytes / blocksize + usize::from(leftover > 0);

        let mut flags = codec.format() << 5;
        if clevel == 0 || nbytes < MIN_BUFFERSIZE {
            flags |= MEMCPYED;
        }
        flags |= match p.shuffle {
            1 => DOSHUFFLE,
            2 => DOBITSHUFFLE,
            _ => 0,
        };
        if !split_block(p.splitmode, codec, typesize, blocksize) {
            flags |= DONT_SPLIT;
        }
        let plan = Plan { clevel, codec, typesize, flags, blocksize, nblocks, leftover };

        dest[0] = VERSION_FORMAT;
        dest[1] = CODEC_VERSION_FORMAT;
        dest[2] = flags;
        dest[3] = typesize as u8;
        put_i32(dest, 4, nbytes);
        put_i32(dest, 8, blocksize);

        // c-blosc 1.x checks the thread count only when it is about to start threads.
        let parallel = p.nthreads != 1 && nbytes / blocksize > 1;
        let bad_threads = p.nthreads <= 0 || p.nthreads > MAX_THREADS;
        let mut total = if flags & MEMCPYED != 0 {
            if nbytes + HEADER_LEN > destsize {
                return Ok(0);
            }
            if parallel && bad_threads {
                return Err(Error::Failure);
            }
            self.copy(parallel, p.nthreads, src, &mut dest[HEADER_LEN..HEADER_LEN + nbytes])?;
            nbytes + HEADER_LEN
        } else if parallel {
            if bad_threads {
                return Err(Error::Failure);
            }
            self.compress_parallel(&plan, p.nthreads as usize, src, dest)?
        } else {
            compress_serial(&plan, src, dest, self.serial.get_or_insert_with(|| SPARE.take()))?
        };
        if total == 0 && nbytes + HEADER_LEN <= destsize {
            // Incompressible: store the buffer raw after all.
            dest[2] |= MEMCPYED;
            self.copy(parallel, p.nthreads, src, &mut dest[HEADER_LEN..HEADER_LEN + nbytes])?;
            total = nbytes + HEADER_LEN;
        }
        put_i32(dest, 12, total);
        Ok(total)
    }

    /// Copy `src` to `dest` (same length), split among `nthreads` workers when `parallel`
    /// (a raw chunk with several threads is copied by all of them, as in c-blosc 1.x).
    fn copy(&mut self, parallel: bool, nthreads: i32, src: &[u8], dest: &mut [u8]) -> Result<()> {
        if !parallel || src.len() < 1 << 20 {
            copy_stored(dest, src);
            return Ok(());
        }
        let n = nthreads as usize;
        self.workers.ensure_pool(n)?;
        let part = src.len().div_ceil(n);
        let parts: Vec<Mutex<(&[u8], &mut [u8])>> =
            src.chunks(part).zip(dest.chunks_mut(part)).map(Mutex::new).collect();
        self.workers.run(n, &|tid| {
            if let Some(p) = parts.get(tid) {
                let mut p = p.lock().unwrap_or_else(|e| e.into_inner());
                let (s, d) = &mut *p;
                copy_stored(d, s);
            }
        })
    }

    /// Blocks compressed by `nthreads` workers, each taking the next place in `dest` when it
    /// is done (c-blosc 1.x's order, so its sizes and its give-up point). The places come
    /// from an atomic counter and each worker copies its block in without holding a lock
    /// (copying under the lock that handed out the places serialised the copies).
    fn compress_parallel(
        &mut self,
        plan: &Plan,
        nthreads: usize,
        src: &[u8],
        dest: &mut [u8],
    ) -> Result<usize> {
        self.ensure_threads(nthreads)?;
        let starts_end = HEADER_LEN + 4 * plan.nblocks;
        if starts_end > dest.len() {
            return Ok(0);
        }
        // A worker's block is at most this long (the room c-blosc 1.x gives it).
        let ebsize = plan.blocksize + plan.typesize * 4;
        let next = AtomicUsize::new(0);
        let failed = AtomicBool::new(false);
        let error: Mutex<Option<Error>> = Mutex::new(None);
        // Where each block went (0: not placed).
        let starts: Vec<AtomicUsize> = (0..plan.nblocks).map(|_| AtomicUsize::new(0)).collect();
        let places = Reserved::new(dest, starts_end);
        let threads = &self.threads;
        // Cleared here, not by each worker: a list a worker left from an earlier call would
        // otherwise be applied below should that worker not run.
        for t in &threads[..nthreads] {
            t.lock().unwrap_or_else(|e| e.into_inner()).raw.clear();
        }
        self.workers.run(nthreads, &|tid| {
            let mut bs = thread_scratch(threads, tid);
            let bs = &mut *bs;
            let mut kept = std::mem::take(&mut bs.out);
            kept.grow_to(ebsize);
            let out = &mut kept[..ebsize];
            // Raw streams of unfiltered blocks are copied from `src` at the end, once the
            // chunk is known to fit (as `compress_serial` does): data that does not compress
            // ends up stored whole, and its blocks are then never copied at all (they were
            // copied twice, into `out` and into their place).
            let mut raw = std::mem::take(&mut bs.raw);
            while !failed.load(Ordering::Relaxed) {
                let j = next.fetch_add(1, Ordering::Relaxed);
                if j >= plan.nblocks {
                    break;
                }
                let len = plan.block_len(j, src.len());
                let block = &src[j * plan.blocksize..j * plan.blocksize + len];
                let leftover = plan.leftover > 0 && j + 1 == plan.nblocks;
                let mark = raw.mark();
                let deferred = Deferred { copies: &mut raw, src: j * plan.blocksize, chunk: 0 };
                match compress_block(plan, block, leftover, out, 0, ebsize, bs, Some(deferred)) {
                    Err(e) => {
                        *error.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
                        failed.store(true, Ordering::Relaxed);
                    }
                    Ok(n) => match places.take(n).filter(|_| n > 0) {
                        Some((at, place)) => {
                            raw.place(mark, &out[..n], place, at);
                            starts[j].store(at, Ordering::Relaxed);
                        }
                        None => failed.store(true, Ordering::Relaxed),
                    },
                }
            }
            bs.raw = raw;
            bs.out = kept;
        })?;
        let end = places.end();
        if let Some(e) = error.into_inner().unwrap_or_else(|e| e.into_inner()) {
            return Err(e);
        }
        if failed.load(Ordering::Relaxed) {
            return Ok(0);
        }
        for (j, at) in starts.iter().enumerate() {
            match at.load(Ordering::Relaxed) {
                0 => return Err(Error::Failure),
                at => put_i32(dest, HEADER_LEN + 4 * j, at),
            }
        }
        for t in &self.threads[..nthreads] {
            t.lock().unwrap_or_else(|e| e.into_inner()).raw.apply(src, dest);
        }
        Ok(end)
    }

    /// Decompress a c-blosc 1.x chunk into `dest` with c-blosc 1.21.3's checks. `src` holds
    /// the chunk (the caller sizes it from the header's chunk size; at least 16 bytes).
    ///
    /// # Errors
    /// Every refusal of c-blosc 1.x's `blosc_decompress` is [`Error::Failure`] (-1 in C),
    /// except an unknown codec ([`Error::CodecSupport`], -5) and a codec stream version
    /// other than 1 ([`Error::VersionSupport`], -9).
    pub fn decompress(&mut self, src: &[u8], dest: &mut [u8], nthreads: i32) -> Result<usize> {
        let hdr = read_header(src)?;
        if hdr.nbytes == 0 {
            return Ok(0);
        }
        if hdr.blocksize <= 0
            || hdr.blocksize as usize > dest.len()
            || hdr.blocksize as usize > MAX_BLOCKSIZE
            || hdr.typesize == 0
            || hdr.version != VERSION_FORMAT
            || hdr.flags & FUTURE_FLAG != 0
            || hdr.nbytes < 0
            || hdr.nbytes as usize > dest.len()
        {
            return Err(Error::Failure);
        }
        let (nblocks, _) = hdr.block_count();
        let nbytes = hdr.nbytes as usize;
        let bs = hdr.blocksize as usize;
        let parallel = nthreads != 1 && nbytes / bs > 1;
        let bad_threads = nthreads <= 0 || nthreads > MAX_THREADS;
        if hdr.memcpyed() {
            if hdr.nbytes as i64 + HEADER_LEN as i64 != hdr.cbytes as i64 {
                return Err(Error::Failure);
            }
        } else {
            hdr.check_codec()?;
            if !hdr.starts_fit(nblocks, false) {
                return Err(Error::Failure);
            }
        }
        if parallel && bad_threads {
            return Err(Error::Failure);
        }
        // The chunk must be all there (the C face always passes the header's size).
        let src = src.get(..hdr.cbytes as usize).ok_or(Error::Failure)?;
        if hdr.memcpyed() {
            self.copy(parallel, nthreads, &src[HEADER_LEN..HEADER_LEN + nbytes], &mut dest[..nbytes])?;
            return Ok(nbytes);
        }
        let dest = &mut dest[..nbytes];
        if !parallel {
            let scratch = self.serial.get_or_insert_with(|| SPARE.take());
            let r: Result<usize> = dest
                .chunks_mut(bs)
                .enumerate()
                .try_fold(0, |n, (j, out)| Ok(n + decode_block(&hdr, src, j, out, scratch)?));
            return r.map_err(|_| Error::Failure);
        }
        let nthreads = nthreads as usize;
        self.ensure_threads(nthreads)?;
        // Contiguous runs of blocks per thread, as c-blosc 1.x hands them out.
        let per = nblocks.div_ceil(nthreads);
        let parts: Vec<Mutex<&mut [u8]>> = dest.chunks_mut(per * bs).map(Mutex::new).collect();
        let failed = std::sync::atomic::AtomicBool::new(false);
        let produced = AtomicUsize::new(0);
        let threads = &self.threads;
        self.workers.run(nthreads, &|tid| {
            let Some(part) = parts.get(tid) else { return };
            let mut part = part.lock().unwrap_or_else(|e| e.into_inner());
            let mut scratch = thread_scratch(threads, tid);
            for (k, out) in part.chunks_mut(bs).enumerate() {
                if failed.load(Ordering::Relaxed) {
                    break;
                }
                match decode_block(&hdr, src, tid * per + k, out, &mut scratch) {
                    Ok(n) => {
                        produced.fetch_add(n, Ordering::Relaxed);
                    }
                    Err(_) => {
                        failed.store(true, Ordering::Relaxed);
                        break;
                    }
                }
            }
        })?;
        if failed.into_inner() {
            return Err(Error::Failure);
        }
        Ok(produced.into_inner())
    }

    /// `nitems` items from item `start` of a chunk into `dest`, with c-blosc 1.21.3's checks
    /// (`blosc_getitem`). `dest` must hold `nitems * typesize` bytes.
    ///
    /// # Errors
    /// [`Error::VersionSupport`] (-9) for a format version other than 2,
    /// [`Error::CodecSupport`] (-5), [`Error::Failure`] (-1) for a refused header or range and
    /// a bad block offset, [`Error::Stream`] (-2) when a stream does not decode to its size.
    /// A negative `nitems` reaching into the data is refused (c-blosc 1.x copies a negative
    /// length there).
    pub fn getitem(&mut self, src: &[u8], start: i32, nitems: i32, dest: &mut [u8]) -> Result<usize> {
        let hdr = read_header(src)?;
        if hdr.version != VERSION_FORMAT {
            return Err(Error::VersionSupport);
        }
        let ts = hdr.typesize as i64;
        if hdr.blocksize <= 0
            || hdr.blocksize > hdr.nbytes
            || hdr.blocksize as usize > MAX_BLOCKSIZE
            || ts == 0
        {
            return Err(Error::Failure);
        }
        let (nblocks, leftover) = hdr.block_count();
        if hdr.memcpyed() {
            if hdr.nbytes as i64 + HEADER_LEN as i64 != hdr.cbytes as i64 {
                return Err(Error::Failure);
            }
        } else {
            hdr.check_codec()?;
            if !hdr.starts_fit(nblocks, true) {
                return Err(Error::Failure);
            }
        }
        let src = src.get(..hdr.cbytes.max(0) as usize).ok_or(Error::Failure)?;
        let nbytes = hdr.nbytes as i64;
        let start = start as i64;
        let stop = start + nitems as i64;
        if start < 0 || start * ts > nbytes || stop < 0 || stop * ts > nbytes {
            return Err(Error::Failure);
        }
        let bs = hdr.blocksize as i64;
        let scratch = self.serial.get_or_insert_with(|| SPARE.take());
        let mut block = Vec::new();
        let mut written = 0usize;
        for j in 0..nblocks {
            let mut startb = start * ts - j as i64 * bs;
            let mut stopb = stop * ts - j as i64 * bs;
            if startb >= bs || stopb <= 0 {
                continue;
            }
            startb = startb.max(0);
            stopb = stopb.min(bs);
            if stopb < startb {
                return Err(Error::Failure);
            }
            let (a, b) = (startb as usize, stopb as usize);
            let n = b - a;
            if dest.len() < written + n {
                return Err(Error::Failure);
            }
            if hdr.memcpyed() {
                let at = HEADER_LEN + j * bs as usize;
                copy_bytes(&mut dest[written..written + n], &src[at + a..at + b]);
            } else {
                let len = if j + 1 == nblocks && leftover > 0 { leftover } else { bs as usize };
                block.resize(len, 0);
                decode_block(&hdr, src, j, &mut block, scratch)?;
                // A short last block: c-blosc 1.x copies from its block-sized scratch.
                let have = b.min(len);
                copy_bytes(&mut dest[written..written + have.saturating_sub(a)], &block[a.min(have)..have]);
                dest[written + have.saturating_sub(a)..written + n].fill(0);
            }
            written += n;
        }
        Ok(written)
    }
}

/// The header of `src`, which must hold at least [`HEADER_LEN`] bytes.
fn read_header(src: &[u8]) -> Result<Header1> {
    let head: &[u8; HEADER_LEN] = src
        .get(..HEADER_LEN)
        .and_then(|h| h.try_into().ok())
        .ok_or(Error::Failure)?;
    Ok(Header1::read(head))
}


/// Thread `tid`'s scratch (uncontended: one thread per tid).
fn thread_scratch(threads: &[Mutex<BlockScratch>], tid: usize) -> std::sync::MutexGuard<'_, BlockScratch> {
    threads[tid].lock().unwrap_or_else(|e| e.into_inner())
}

/// Compress the blocks one after the other into `dest`; raw streams of unfiltered blocks are
/// copied at the end, once the chunk is known to fit (see [`DeferredCopies`]).
fn compress_serial(plan: &Plan, src: &[u8], dest: &mut [u8], scratch: &mut BlockScratch) -> Result<usize> {
    let mut raw = std::mem::take(&mut scratch.raw);
    raw.clear();
    let r = place_blocks(plan, src, dest, scratch, &mut raw);
    if matches!(r, Ok(n) if n > 0) {
        raw.apply(src, dest);
    }
    scratch.raw = raw;
    r
}

/// Blocks one after the other straight into `dest`, each limited by the room left; raw
/// streams of unfiltered blocks go to `raw` instead (see [`compress_serial`]).
fn place_blocks(
    plan: &Plan,
    src: &[u8],
    dest: &mut [u8],
    scratch: &mut BlockScratch,
    raw: &mut DeferredCopies,
) -> Result<usize> {
    let destsize = dest.len();
    let mut pos = HEADER_LEN + 4 * plan.nblocks;
    for j in 0..plan.nblocks {
        if HEADER_LEN + 4 * j + 4 > destsize {
            return Ok(0);
        }
        put_i32(dest, HEADER_LEN + 4 * j, pos);
        let len = plan.block_len(j, src.len());
        let start = j * plan.blocksize;
        let block = &src[start..start + len];
        let leftover = plan.leftover > 0 && j + 1 == plan.nblocks;
        let deferred = Deferred { copies: &mut *raw, src: start, chunk: 0 };
        let n = compress_block(plan, block, leftover, dest, pos, destsize, scratch, Some(deferred))?;
        if n == 0 {
            return Ok(0);
        }
        pos += n;
    }
    Ok(pos)
}

/// Filter and compress one block into `out` at `pos`, using at most `maxbytes - pos` bytes
/// of it. Returns the bytes written, or 0 when they do not fit. With `deferred`, a raw
/// stream of an unfiltered block is not copied but recorded there (its room is checked and
/// its size written as usual).
#[allow(clippy::too_many_arguments)] // one block's inputs, output and scratch
fn compress_block(
    plan: &Plan,
    block: &[u8],
    leftover: bool,
    out: &mut [u8],
    mut pos: usize,
    maxbytes: usize,
    scratch: &mut BlockScratch,
    mut deferred: Option<Deferred<'_>>,
) -> Result<usize> {
    let ts = plan.typesize;
    let bsize = block.len();
    let data: &[u8] = if plan.flags & DOSHUFFLE != 0 && ts > 1 {
        scratch.filtered.grow_to(bsize);
        filters::shuffle(ts, block, &mut scratch.filtered[..bsize]);
        &scratch.filtered[..bsize]
    } else if plan.flags & DOBITSHUFFLE != 0 && bsize >= ts {
        scratch.filtered.grow_to(bsize);
        let filtered = &mut scratch.filtered[..bsize];
        if (bsize / ts).is_multiple_of(8) {
            filters::bitshuffle(ts, block, filtered).map_err(|_| Error::Failure)?;
        } else {
            copy_bytes(filtered, block);
        }
        &scratch.filtered[..bsize]
    } else {
        block
    };
    // Raw streams of an unfiltered block are ranges of the source buffer.
    let unfiltered = std::ptr::eq(data.as_ptr(), block.as_ptr());
    let nsplits = if plan.split() && !leftover { ts } else { 1 };
    let neblock = bsize / nsplits;
    let start = pos;
    for k in 0..nsplits {
        // (`neblock` is 0 when a split block is smaller than its typesize.)
        let part = &data[k * neblock..(k + 1) * neblock];
        pos += 4;
        let mut maxout = if plan.codec == Codec1::Snappy {
            snappy::max_compressed_len(neblock)
        } else {
            neblock
        };
        if pos + maxout > maxbytes {
            if pos >= maxbytes {
                return Ok(0);
            }
            maxout = maxbytes - pos;
        }
        let dst = &mut out[pos..pos + maxout];
        let clevel = plan.clevel;
        let n = match plan.codec {
            Codec1::BloscLz => blosclz::compress_v1_in(&mut scratch.codec.blosclz, clevel as i32, part, dst, plan.split()),
            Codec1::Lz4 => lz4::compress(part, dst, 10 - clevel as i32).map_err(|_| Error::Failure)?,
            Codec1::Lz4Hc => scratch.codec.lz4hc.compress(part, dst, clevel).map_err(|_| Error::Failure)?,
            Codec1::Snappy => snappy_compress(part, dst),
            Codec1::Zlib => scratch.codec.zlib.compress(part, dst, clevel),
            Codec1::Zstd => scratch.codec.zstd.compress(part, dst, clevel),
        };
        if n > maxout {
            return Err(Error::Failure);
        }
        let n = if n == 0 || n == neblock {
            // Not compressible: the stream is stored raw, if it fits.
            if pos + neblock > maxbytes {
                return Ok(0);
            }
            match deferred.as_mut() {
                Some(d) if unfiltered => d.record(k * neblock, neblock, pos),
                _ => copy_bytes(&mut out[pos..pos + neblock], part),
            }
            neblock
        } else {
            n
        };
        put_i32(out, pos - 4, n);
        pos += n;
    }
    Ok(pos - start)
}

#[cfg(feature = "snappy-compress")]
fn snappy_compress(src: &[u8], dest: &mut [u8]) -> usize {
    snappy::compress(src, dest)
}

#[cfg(not(feature = "snappy-compress"))]
fn snappy_compress(_src: &[u8], _dest: &mut [u8]) -> usize {
    // Unreachable: `Codec1::can_compress` refuses snappy in such builds.
    0
}

/// Decode block `j` (its length is `out.len()`) of a chunk with c-blosc 1.x's reader rules.
/// Returns the bytes its streams produced: less than the block when a crafted block size is
/// not a multiple of the stream count (c-blosc 1.x then reports the smaller total; the bytes
/// no stream covers are zeros here, where it leaves whatever was in memory).
///
/// # Errors
/// [`Error::Failure`] for a block or stream offset outside the chunk, [`Error::Stream`] for a
/// stream that does not decode to its size.
fn decode_block(hdr: &Header1, src: &[u8], j: usize, out: &mut [u8], scratch: &mut BlockScratch) -> Result<usize> {
    let ts = hdr.typesize as usize;
    let bsize = out.len();
    let leftover = bsize < hdr.blocksize as usize;
    let shuffled = hdr.flags & DOSHUFFLE != 0 && ts > 1;
    let bitshuffled = !shuffled && hdr.flags & DOBITSHUFFLE != 0 && bsize >= ts;
    let split = hdr.flags & DONT_SPLIT == 0 && ts <= MAX_SPLITS && bsize / ts >= MIN_BUFFERSIZE && !leftover;
    let nsplits = if split { ts } else { 1 };
    let neblock = bsize / nsplits;
    let cbytes = src.len() as i64;
    let mut off = get_i32(src, HEADER_LEN + 4 * j) as i64;
    {
        let target: &mut [u8] = if shuffled || bitshuffled {
            scratch.filtered.grow_to(bsize);
            &mut scratch.filtered[..bsize]
        } else {
            out
        };
        for k in 0..nsplits {
            if off < 0 || off > cbytes - 4 {
                return Err(Error::Failure);
            }
            let csize = get_i32(src, off as usize) as i64;
            off += 4;
            if csize < 0 || csize > cbytes - off {
                return Err(Error::Failure);
            }
            let stream = &src[off as usize..(off + csize) as usize];
            let dst = &mut target[k * neblock..(k + 1) * neblock];
            if csize as usize == neblock {
                copy_bytes(dst, stream);
            } else {
                codecs::decompress_stream(hdr.format(), stream, dst, &mut scratch.codec, &DDict::None)
                    .map_err(|_| Error::Stream)?;
            }
            off += csize;
        }
        // Bytes no stream covers (a block size that is not a multiple of the split count,
        // only in crafted chunks): zeros rather than whatever was there.
        target[nsplits * neblock..bsize].fill(0);
    }
    if shuffled {
        filters::unshuffle(ts, &scratch.filtered[..bsize], out);
    } else if bitshuffled {
        filters::bitunshuffle(ts, &scratch.filtered[..bsize], out, VERSION_FORMAT).map_err(|_| Error::Failure)?;
    }
    Ok(nsplits * neblock)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(codec: Codec1, clevel: i32, shuffle: i32, typesize: usize) -> Params1 {
        Params1 {
            clevel,
            shuffle,
            typesize,
            codec: Some(codec),
            blocksize: 0,
            splitmode: SplitMode::ForwardCompat,
            nthreads: 1,
        }
    }

    fn data(n: usize) -> Vec<u8> {
        (0..n).map(|i| ((i / 7) as u32).wrapping_mul(2654435761).to_le_bytes()[3] & 0x1f).collect()
    }

    #[test]
    fn round_trips_every_codec_and_filter() {
        let mut ctx = Context1::new();
        for codec in Codec1::ALL.into_iter().filter(|c| c.can_compress()) {
            for shuffle in 0..=2 {
                for (n, ts) in [(0, 4), (100, 4), (1000, 1), (70_000, 8), (300_001, 3), (1 << 20, 32)] {
                    let src = data(n);
                    let mut comp = vec![0; n + HEADER_LEN];
                    let c = ctx.compress(&params(codec, 5, shuffle, ts), &src, &mut comp).unwrap();
                    assert!(c >= HEADER_LEN && c <= n + HEADER_LEN, "{codec:?} {n}");
                    let mut back = vec![0xAA; n];
                    for threads in [1, 2] {
                        assert_eq!(ctx.decompress(&comp[..c], &mut back, threads), Ok(n));
                        assert_eq!(back, src, "{codec:?} shuffle {shuffle} n {n} ts {ts}");
                    }
                    if n >= 8 * ts && n > 0 {
                        let mut part = vec![0; 5 * ts];
                        assert_eq!(ctx.getitem(&comp[..c], 3, 5, &mut part), Ok(5 * ts));
                        assert_eq!(part, src[3 * ts..8 * ts]);
                    }
                }
            }
        }
    }

    /// Raw streams of unfiltered blocks are copied last, once the chunk fits: a chunk mixing
    /// compressed and raw streams must hold the raw ones, with one thread and with two
    /// (whose workers record their blocks' raw streams as they place them); the same bytes
    /// both ways when there is one block (with several, threads place them as they finish).
    #[test]
    fn raw_streams_among_compressed_ones_are_stored() {
        let mut ctx = Context1::new();
        let noise = crate::test_rng::xorshift_low_bytes(5 << 16, 0x2545_F491_4F6C_DD1D);
        let mut noise = noise.chunks(64 << 10);
        // Compressible and random stretches, split so that some streams of a block compress
        // and others are stored raw.
        let mut src = Vec::new();
        for i in 0..16 {
            if i % 3 == 1 {
                src.extend_from_slice(noise.next().expect("five stretches of noise"));
            } else {
                src.extend(data(64 << 10));
            }
        }
        for codec in [Codec1::BloscLz, Codec1::Lz4, Codec1::Zstd] {
            // The whole buffer in one block, and 8 blocks of 128 KiB (run by both threads).
            for blocksize in [0, 128 << 10] {
                let p = Params1 { blocksize, ..params(codec, 9, 0, 4) };
                let mut comp = vec![0xEE; src.len() + HEADER_LEN];
                let c = ctx.compress(&p, &src, &mut comp).unwrap();
                assert_eq!(comp[2] & MEMCPYED, 0, "{codec:?}");
                assert!(c < src.len(), "{codec:?}");
                let mut back = vec![0; src.len()];
                assert_eq!(ctx.decompress(&comp[..c], &mut back, 1), Ok(src.len()));
                assert_eq!(back, src, "{codec:?}");
                let mut comp2 = vec![0x11; src.len() + HEADER_LEN];
                let c2 = ctx.compress(&Params1 { nthreads: 2, ..p }, &src, &mut comp2).unwrap();
                assert_eq!(comp2[2] & MEMCPYED, 0, "{codec:?}");
                assert_eq!(c2, c, "{codec:?}");
                if blocksize == 0 {
                    assert_eq!(comp2[..c2], comp[..c], "{codec:?}");
                }
                back.fill(0);
                assert_eq!(ctx.decompress(&comp2[..c2], &mut back, 1), Ok(src.len()));
                assert_eq!(back, src, "{codec:?} {blocksize}");
            }
        }
    }

    #[test]
    fn threads_give_the_same_size() {
        let mut ctx = Context1::new();
        let src = data(2 << 20);
        for codec in [Codec1::BloscLz, Codec1::Lz4, Codec1::Zstd] {
            let mut one = vec![0; src.len() + HEADER_LEN];
            let mut two = one.clone();
            let p1 = params(codec, 7, 1, 4);
            let p2 = Params1 { nthreads: 2, ..p1 };
            let a = ctx.compress(&p1, &src, &mut one).unwrap();
            let b = ctx.compress(&p2, &src, &mut two).unwrap();
            assert_eq!(a, b);
            let mut back = vec![0; src.len()];
            assert_eq!(ctx.decompress(&two[..b], &mut back, 2), Ok(src.len()));
            assert_eq!(back, src);
        }
    }

    #[test]
    fn bad_parameters_and_small_destinations() {
        let mut ctx = Context1::new();
        let src = data(10_000);
        let mut dest = vec![0; 20_000];
        let p = params(Codec1::Lz4, 5, 1, 4);
        assert_eq!(ctx.compress(&Params1 { clevel: 10, ..p }, &src, &mut dest), Err(Error::InvalidParam));
        assert_eq!(ctx.compress(&Params1 { shuffle: 3, ..p }, &src, &mut dest), Err(Error::InvalidParam));
        assert_eq!(ctx.compress(&Params1 { codec: None, ..p }, &src, &mut dest), Err(Error::CodecSupport));
        assert_eq!(ctx.compress(&p, &src, &mut dest[..15]), Ok(0));
        // Random bytes do not compress and do not fit raw in less than nbytes + 16.
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let noise: Vec<u8> = (0..10_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 32) as u8
            })
            .collect();
        assert_eq!(ctx.compress(&p, &noise, &mut dest[..10_000]), Ok(0));
        assert_eq!(ctx.compress(&p, &noise, &mut dest[..10_016]), Ok(10_016));
        assert_eq!(dest[2] & MEMCPYED, MEMCPYED);
    }

    #[test]
    fn corrupt_chunks_are_refused() {
        let mut ctx = Context1::new();
        let src = data(100_000);
        let mut comp = vec![0; src.len() + HEADER_LEN];
        let c = ctx.compress(&params(Codec1::BloscLz, 5, 1, 4), &src, &mut comp).unwrap();
        let comp = &comp[..c];
        let mut out = vec![0; src.len()];
        let mut bad = comp.to_vec();
        bad[0] = 3;
        assert_eq!(ctx.decompress(&bad, &mut out, 1), Err(Error::Failure));
        assert_eq!(ctx.getitem(&bad, 0, 1, &mut out), Err(Error::VersionSupport));
        let mut bad = comp.to_vec();
        bad[1] = 2;
        assert_eq!(ctx.decompress(&bad, &mut out, 1), Err(Error::VersionSupport));
        let mut bad = comp.to_vec();
        bad[2] |= 0xe0;
        assert_eq!(ctx.decompress(&bad, &mut out, 1), Err(Error::CodecSupport));
        // A block start pointing outside the chunk.
        let mut bad = comp.to_vec();
        bad[16..20].copy_from_slice(&(c as i32).to_le_bytes());
        assert_eq!(ctx.decompress(&bad, &mut out, 1), Err(Error::Failure));
        assert_eq!(ctx.getitem(&bad, 0, 1, &mut out), Err(Error::Failure));
        // Too small a destination.
        assert_eq!(ctx.decompress(comp, &mut out[..99_999], 1), Err(Error::Failure));
        // Truncation at every length never panics.
        for cut in 0..c {
            let _ = ctx.decompress(&comp[..cut], &mut out, 1);
        }
    }
}
