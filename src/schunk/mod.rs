//! Super-chunks: an ordered list of chunks with shared parameters, user metadata and running
//! totals, stored either as a list of chunks in memory or in a frame (contiguous in memory,
//! contiguous in a file, or sparse in a directory). See `crate::frame` for the formats.
//!
//! The model mirrors `blosc2_schunk`: `chunksize` is -1 before the first chunk, the size of
//! every chunk (but a shorter last one) while they agree, and 0 once sizes vary; `cbytes`
//! counts stored bytes (in a contiguous frame, the payload length, which keeps the bytes of
//! deleted chunks as the reference does).

mod chunk_list;
mod engines;
pub mod meta;
mod slice;
mod sparse;

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use chunk_list::ChunkList;

use crate::chunk::compress::Compressor;
use crate::chunk::decompress::Decompressor;
use crate::chunk::header::{ChunkHeader, EXTENDED_HEADER_LENGTH, VL_BLOCKS};
use crate::chunk::special::write_special;
use crate::chunk::{CompressParams, DecompressParams, Special};
use crate::error::{Error, Result};
use crate::Generation;
use crate::filters::registry::FilterCallContext;
use crate::frame::cframe::chunk_sizes;
use crate::frame::header::{FrameHeader, FrameType, Metalayer};
use crate::frame::io::{fs_opener, FileStorage, MemStorage, Opener, Storage};
use crate::frame::lock::FrameLock;
use crate::frame::offsets::storable_special;
use crate::frame::trailer::FrameTrailer;
use crate::frame::{sframe, Frame, FrameKind};

pub use engines::{
    append_buffer_in, compress_in, decompress_blocks_in, decompress_chunk_in, decompress_masked_in, vlblock_in, with_decompressor,
    Held, Holder, Own, PartialChunk,
};
pub use slice::{get_slice_in, set_slice_in};
pub use sparse::get_sparse_in;

/// Where a new super-chunk keeps its chunks (`blosc2_storage` without the parameters).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StorageSpec {
    /// A frame (true) or separate chunks (false).
    pub contiguous: bool,
    /// On disk at this path (a file when contiguous, a directory when not).
    pub urlpath: Option<PathBuf>,
}

enum Store {
    /// Separate chunks in memory, shared so that a chunk can be decompressed while the
    /// super-chunk itself is released (see [`Holder`]).
    Memory(ChunkList),
    Frame(Box<Frame>),
}

/// A chunk of an in-memory super-chunk. Appended chunks stay in the `Vec` the compressor
/// built them in: an `Arc<[u8]>` would copy every one, and the copy (made from the heap while
/// the compressor's buffer came from its own mapping) left freed super-chunks' memory in
/// glibc's heap instead of returning it. Chunks copied from bytes handed in (a frame opened
/// with copy, chunks appended or updated by reference) are one allocation with their counts.
/// (Tried before [`ChunkList`] and found no faster; measured again on 2026-12-06, opening
/// a buffer of 10^6 chunks took 95-127 ms against 134-217 with two allocations a chunk,
/// the reference 67-73.)
#[derive(Clone, Debug)]
pub enum MemChunk {
    /// A vector taken over as it is: the compressor's output, which appends keep without a
    /// copy (chunks of megabytes).
    Adopted(Arc<Vec<u8>>),
    /// Bytes copied in with their counts, one allocation: chunks handed in by reference
    /// (chunks appended or updated by reference, large chunks of a frame opened with copy).
    Copied(Arc<[u8]>),
    /// A stretch of the payload of a frame opened with copy whose chunks are small: the
    /// payload is copied once and its chunks point into it (see [`Slab`]).
    InSlab(SlabChunk),
}

impl std::ops::Deref for MemChunk {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            MemChunk::Adopted(v) => v,
            MemChunk::Copied(b) => b,
            MemChunk::InSlab(c) => &c.slab[c.start as usize..c.start as usize + c.len as usize],
        }
    }
}

/// The payload of a frame opened with copy, copied whole, when its chunks are small
/// ([`SLAB_MAX_AVERAGE`]): one allocation and one copy instead of one of each per chunk.
/// At 10^6 chunks of 96 bytes the allocations (and, on free, their release) were most of
/// the time of `blosc2_schunk_from_buffer(copy = true)`: 141-179 ms against the reference's
/// 104-134, each chunk also carrying an allocation's overhead. The slab lives as long as
/// any of its chunks; a chunk replaced or deleted keeps its bytes until then (at most the
/// payload opened, and only for frames of small chunks). Chunks never move out of it,
/// since C callers hold pointers to chunks they did not change (`blosc2_schunk_get_chunk`
/// lends them).
pub(crate) type Slab = Arc<crate::scratch::ScratchBuf>;

/// Frames whose stored chunks average at most this many bytes are opened into a [`Slab`].
const SLAB_MAX_AVERAGE: u64 = 4096;

/// A chunk of a [`Slab`]: its stretch of it.
#[derive(Clone)]
pub struct SlabChunk {
    slab: Slab,
    start: u32,
    len: u32,
}

impl std::fmt::Debug for SlabChunk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SlabChunk({}..+{})", self.start, self.len)
    }
}

/// A stored copy of chunk bytes handed in by reference.
fn mem_chunk(chunk: &[u8]) -> MemChunk {
    MemChunk::Copied(Arc::from(chunk))
}

/// Size of a chunk that is its header alone (`BLOSC2_MAX_OVERHEAD`).
const MAX_OVERHEAD_BYTES: usize = 32;

/// One change to the chunks of a super-chunk held in memory (see
/// [`SuperChunk::last_memory_edit`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChunkEdit {
    /// A chunk inserted at this position (the later ones moved up by one).
    Insert(usize),
    /// The chunk at this position replaced.
    Replace(usize),
    /// The chunk at this position removed (the later ones moved down by one).
    Remove(usize),
    /// Anything else (a reorder, a new set of chunks).
    Other,
}

/// A super-chunk: chunks compressed with shared parameters, metalayers, and a store (chunks
/// in memory, or a contiguous or sparse frame in memory or on disk). Frames are the
/// reference's format, byte for byte.
///
/// ```
/// use blosc2::chunk::{CompressParams, DecompressParams};
/// use blosc2::schunk::{StorageSpec, SuperChunk};
///
/// let cparams = CompressParams::default().with_typesize(8);
/// let spec = StorageSpec { contiguous: true, urlpath: None };
/// let mut sc = SuperChunk::new(cparams, DecompressParams::default(), &spec)?;
/// sc.meta_add("units", b"metres")?; // fixed-size metalayers go before any data
/// let chunk: Vec<u8> = (0..1000u64).flat_map(|i| i.to_le_bytes()).collect();
/// for _ in 0..3 {
///     sc.append_buffer(&chunk)?;
/// }
/// sc.vlmeta_add("note", b"any length, compressed", None)?;
/// assert_eq!((sc.nchunks(), sc.nbytes()), (3, 24_000));
///
/// // The whole super-chunk as one contiguous frame, and back.
/// let frame = sc.to_buffer()?.into_owned();
/// let mut back = SuperChunk::from_buffer_copy(&frame)?;
/// let mut out = vec![0u8; chunk.len()];
/// back.decompress_chunk(2, &mut out)?;
/// assert_eq!(out, chunk);
/// assert_eq!(back.meta_get("units")?, b"metres");
/// assert_eq!(back.vlmeta_get("note")?, b"any length, compressed");
///
/// // On disk: a frame file any c-blosc2 opens (`blosc2_schunk_open`).
/// let path = std::env::temp_dir().join(format!("doc-{}.b2frame", std::process::id()));
/// back.to_file(&path)?;
/// let mut opened = SuperChunk::open(&path, 0)?;
/// assert_eq!(opened.nchunks(), 3);
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), blosc2::Error>(())
/// ```
pub struct SuperChunk {
    cparams: CompressParams,
    dparams: DecompressParams,
    cctx: Box<Compressor>,
    dctx: Box<Decompressor>,
    /// The engines that stood in for `cctx`/`dctx` while those were lent out (see
    /// [`SuperChunk::take_decompressor`]), kept for the next loan.
    stand_ins: engines::StandIns,
    nbytes: i64,
    /// Stored bytes for memory and sparse stores (contiguous frames report their payload).
    cbytes: i64,
    chunksize: i32,
    /// The block size the frame header records (the requested one, or the special fill's).
    blocksize: i32,
    /// Block size of the last chunk compressed here (what the reference's context remembers).
    last_blocksize: i32,
    /// `blosc2_flags2` of the first chunk (VL blocks).
    flags2: u8,
    metalayers: Vec<Metalayer>,
    /// Contents as stored: compressed chunks.
    vlmetalayers: Vec<Metalayer>,
    store: Store,
    urlpath: Option<PathBuf>,
    /// Count of edits that moved or replaced in-memory chunks (anything but an append) and
    /// the last of them, so a view of the chunk addresses knows whether it can follow with
    /// one change (or an extension, after appends) rather than be rebuilt.
    memory_edits: u64,
    last_memory_edit: ChunkEdit,
    /// The opt-in frame lock shared with other handles and processes (on-disk frames only).
    lock: Option<FrameLock>,
    /// How deep inside locked operations this handle is: only the outermost one looks for
    /// other handles' changes, so nothing is re-read in the middle of an operation.
    guard_depth: u32,
    /// How many times this handle re-read its frame after another handle changed it.
    refreshes: i64,
    /// Successful changes of the (vl)metalayers made through this handle (with
    /// `refreshes`, the reference's `change_tick`: how arrays notice a new shape).
    meta_changes: i64,
    /// The chunk the last operation worked on (the reference's `current_nchunk`, which
    /// prefilters and C callers see).
    current_nchunk: i64,
}

fn chunk_nbytes_of(chunk: &[u8]) -> Result<i32> {
    Ok(ChunkHeader::read_min(chunk)?.nbytes)
}

/// The `blosc2_flags2` byte of a chunk: only chunks with the extended header (both shuffle
/// bits set in `flags`, at least 32 bytes) have one; in a 16-byte-header chunk offset 0x1e
/// is payload.
fn chunk_flags2(chunk: &[u8]) -> u8 {
    const DOSHUFFLE: u8 = 0x1;
    const DOBITSHUFFLE: u8 = 0x4;
    let flags = chunk.get(2).copied().unwrap_or(0);
    if flags & DOSHUFFLE == 0 || flags & DOBITSHUFFLE == 0 || chunk.len() < EXTENDED_HEADER_LENGTH {
        return 0;
    }
    chunk[30]
}

impl SuperChunk {
    /// Create an empty super-chunk. On disk, an existing contiguous file is refused, and a
    /// sparse directory must not exist yet (as in the reference).
    pub fn new(cparams: CompressParams, dparams: DecompressParams, storage: &StorageSpec) -> Result<SuperChunk> {
        Self::new_on(cparams, dparams, storage, fs_opener())
    }

    /// As [`new`](Self::new), with the frame's files opened through `files`.
    pub fn new_on(
        cparams: CompressParams,
        dparams: DecompressParams,
        storage: &StorageSpec,
        files: Arc<dyn Opener>,
    ) -> Result<SuperChunk> {
        if cparams.typesize <= 0 {
            return Err(Error::InvalidParam);
        }
        let mut s = SuperChunk {
            cctx: Box::new(Compressor::new(cparams.clone())),
            dctx: Box::new(Decompressor::new(dparams.clone())),
            stand_ins: Default::default(),
            blocksize: cparams.blocksize,
            last_blocksize: cparams.blocksize,
            cparams,
            dparams,
            nbytes: 0,
            cbytes: 0,
            chunksize: -1,
            flags2: 0,
            metalayers: Vec::new(),
            vlmetalayers: Vec::new(),
            store: Store::Memory(ChunkList::default()),
            urlpath: storage.urlpath.clone(),
            memory_edits: 0,
            last_memory_edit: ChunkEdit::Other,
            lock: None,
            guard_depth: 0,
            refreshes: 0,
            meta_changes: 0,
            current_nchunk: 0,
        };
        s.bind_calls();
        let (kind, store): (FrameKind, Box<dyn Storage>) = match (&storage.urlpath, storage.contiguous) {
            (None, false) => return Ok(s),
            (None, true) => (FrameKind::Contiguous { path: None }, Box::new(MemStorage::default())),
            (Some(p), true) => {
                if p.exists() {
                    return Err(Error::FileOpen);
                }
                (FrameKind::Contiguous { path: Some(p.clone()) }, files.create(p)?)
            }
            (Some(p), false) => {
                sframe::create_dir(p)?;
                let idx = files.create(&sframe::index_path(p))?;
                (FrameKind::Sparse { dir: p.clone() }, idx)
            }
        };
        let ftype = if matches!(kind, FrameKind::Sparse { .. }) { FrameType::Sparse } else { FrameType::Contiguous };
        let header = s.frame_header(ftype);
        let mut frame = Frame::create(store, 0, kind, header, FrameTrailer::default())?;
        frame.set_opener(files);
        s.dctx.lazy = frame.lazy_reader();
        s.store = Store::Frame(Box::new(frame));
        Ok(s)
    }

    /// The header the reference writes for the current state.
    fn frame_header(&self, frame_type: FrameType) -> FrameHeader {
        let p = &self.cparams;
        FrameHeader {
            header_len: 0,
            frame_len: 0,
            general_flags: FrameHeader::general_flags_for(self.chunksize, self.flags2 & VL_BLOCKS != 0),
            frame_type,
            compcode: p.compcode,
            clevel: p.clevel,
            compcode_meta: p.compcode_meta,
            splitmode: p.splitmode as u8,
            use_dict: p.use_dict,
            nbytes: self.nbytes,
            cbytes: self.cbytes,
            typesize: p.typesize,
            blocksize: self.blocksize,
            chunksize: self.chunksize,
            nthreads_c: p.nthreads,
            nthreads_d: self.dparams.nthreads,
            has_vlmetalayers: !self.vlmetalayers.is_empty(),
            filters: p.filters,
            filters_meta: p.filters_meta,
            metalayers: self.metalayers.clone(),
        }
    }

    /// Copy the state into the frame header and trailer (the frame then commits them).
    fn sync_frame(&mut self) {
        let mut header = self.frame_header(FrameType::Contiguous);
        if let Store::Frame(f) = &mut self.store {
            header.frame_type = f.header.frame_type;
            header.header_len = f.header.header_len;
            f.header = header;
            f.trailer.vlmetalayers = self.vlmetalayers.clone();
        }
    }

    /// Write header and trailer of a frame store after a metadata change.
    /// See [`Frame::defer_commits`]; nothing to do for super-chunks without a frame.
    fn defer_frame_commits(&mut self, on: bool) -> Result<()> {
        self.sync_frame();
        if let Store::Frame(f) = &mut self.store {
            f.defer_commits(on)?;
        }
        Ok(())
    }

    fn commit_frame(&mut self) -> Result<()> {
        self.sync_frame();
        if let Store::Frame(f) = &mut self.store {
            f.commit()?;
        }
        Ok(())
    }

    // ----- accessors -----

    /// The compression parameters of new chunks.
    pub fn cparams(&self) -> &CompressParams {
        &self.cparams
    }

    /// The decompression parameters.
    pub fn dparams(&self) -> &DecompressParams {
        &self.dparams
    }

    /// The parameters the frame header records, as C code may change them by writing the
    /// public struct's fields (python-blosc2 does when it swaps the contexts); the frame
    /// header takes them with its next write.
    pub fn cparams_mut(&mut self) -> &mut CompressParams {
        &mut self.cparams
    }

    /// The compression context (to set prefilters and the like).
    pub fn compressor(&mut self) -> &mut Compressor {
        &mut self.cctx
    }

    /// The decompression engine (threads, postfilter, lazy-chunk reader).
    pub fn decompressor(&mut self) -> &mut Decompressor {
        &mut self.dctx
    }

    /// Replaces what the compression engine hands to user filters and codecs (the C layer
    /// passes its public contexts this way), keeping this super-chunk's typesize in it.
    pub fn set_compress_call(&mut self, call: FilterCallContext) {
        self.cctx.call = call;
        self.bind_calls();
    }

    /// As [`SuperChunk::set_compress_call`], for the decompression engine.
    pub fn set_decompress_call(&mut self, call: FilterCallContext) {
        self.dctx.call = call;
        self.bind_calls();
    }

    /// Tell the filters and codecs that both engines work for this super-chunk (its typesize
    /// is what bytedelta uses when its meta is 0). Called on creation and by the setters of
    /// the engines' call contexts.
    pub(crate) fn bind_calls(&mut self) {
        let t = Some(self.cparams.typesize).filter(|&t| t > 0);
        self.cctx.call.codec.schunk_typesize = t;
        self.dctx.call.codec.schunk_typesize = t;
        let b2nd = self.meta_get("b2nd").ok().and_then(crate::codecs::registry::B2ndShapes::from_metalayer);
        for c in [&mut self.cctx.call.codec, &mut self.dctx.call.codec] {
            c.in_schunk = true;
            c.b2nd = b2nd;
        }
    }

    /// The chunks of a super-chunk kept as separate chunks in memory (`None` for frames),
    /// with the count of edits that moved or replaced them (appends leave earlier chunks,
    /// and their addresses, untouched).
    pub fn memory_chunks(&self) -> Option<(&ChunkList, u64)> {
        match &self.store {
            Store::Memory(v) => Some((v, self.memory_edits)),
            Store::Frame(_) => None,
        }
    }

    /// The last edit counted by [`memory_chunks`](Self::memory_chunks).
    pub fn last_memory_edit(&self) -> ChunkEdit {
        self.last_memory_edit
    }

    fn note_memory_edit(&mut self, e: ChunkEdit) {
        self.memory_edits += 1;
        self.last_memory_edit = e;
    }

    /// Number of chunks.
    pub fn nchunks(&self) -> i64 {
        match &self.store {
            Store::Memory(v) => v.len() as i64,
            Store::Frame(f) => f.nchunks() as i64,
        }
    }

    /// Uncompressed bytes of all the chunks.
    pub fn nbytes(&self) -> i64 {
        self.nbytes
    }

    /// Compressed bytes of all the chunks (for a contiguous frame, its whole chunk payload).
    pub fn cbytes(&self) -> i64 {
        match &self.store {
            Store::Frame(f) if !f.is_sparse() => f.payload_len(),
            _ => self.cbytes,
        }
    }

    /// Uncompressed bytes of a chunk (every chunk but the last has this size); -1 until the
    /// first chunk says.
    pub fn chunksize(&self) -> i32 {
        self.chunksize
    }

    /// Declare the chunk size before any chunk exists, as C code may by writing the public
    /// `chunksize` field (b2nd does, so even an empty array's frame header records it). The
    /// frame header picks it up with the next metadata write.
    pub fn set_chunksize(&mut self, chunksize: i32) {
        self.chunksize = chunksize;
    }

    /// Bytes per item.
    pub fn typesize(&self) -> i32 {
        self.cparams.typesize
    }

    /// The block size the frame header records (the parameters' until one is read or a
    /// chunk sets it; 0 means automatic).
    pub fn blocksize(&self) -> i32 {
        self.blocksize
    }

    /// The `blosc2_flags2` byte of the first chunk (whether chunks hold variable-length
    /// blocks).
    pub fn flags2(&self) -> u8 {
        self.flags2
    }

    /// Where the super-chunk's frame is on disk; `None` in memory.
    pub fn urlpath(&self) -> Option<&Path> {
        self.urlpath.as_deref()
    }

    /// Whether chunks live in a frame, and which kind.
    pub fn frame_kind(&self) -> Option<&FrameKind> {
        match &self.store {
            Store::Frame(f) => Some(f.kind()),
            Store::Memory(_) => None,
        }
    }

    /// Length of the frame behind this super-chunk (`None` for separate chunks).
    pub fn frame_len(&self) -> Option<i64> {
        match &self.store {
            Store::Frame(f) => Some(f.len()),
            Store::Memory(_) => None,
        }
    }

    /// The frame, when there is one (for the C layer's frame-level calls).
    pub fn frame_mut(&mut self) -> Option<&mut Frame> {
        match &mut self.store {
            Store::Frame(f) => Some(f),
            Store::Memory(_) => None,
        }
    }

    // ----- several handles on one frame -----

    /// Serialise this handle's accesses to its on-disk frame with the other handles and
    /// processes that opt in too (see [`crate::frame::lock`]). Ignored for super-chunks that
    /// are not on disk.
    pub fn enable_locking(&mut self) {
        if let (Some(path), Store::Frame(f)) = (&self.urlpath, &self.store) {
            self.lock = Some(FrameLock::new(path, f.is_sparse()));
        }
    }

    /// Whether accesses to the frame take its advisory lock (see [`crate::frame::lock`]).
    pub fn locking(&self) -> bool {
        self.lock.is_some()
    }

    /// Hold the exclusive frame lock across several operations, which then nest on it
    /// (re-entrant). A no-op without locking.
    pub fn lock(&mut self) -> Result<()> {
        match &mut self.lock {
            Some(l) => l.acquire(true),
            None => Ok(()),
        }
    }

    /// Release one level of [`lock`](Self::lock); releasing what is not held is a no-op.
    pub fn unlock(&mut self) -> Result<()> {
        match &mut self.lock {
            Some(l) => l.release(),
            None => Ok(()),
        }
    }

    /// How many times this handle re-read its frame because another handle changed it.
    pub fn refreshes(&self) -> i64 {
        self.refreshes
    }

    /// Changes of the metalayers made here plus re-reads of other handles' changes: when
    /// it moves, whatever was derived from the metalayers (an array's shape) may be stale.
    pub fn change_tick(&self) -> i64 {
        self.meta_changes + self.refreshes
    }

    /// Set the count of local metalayer changes (a copy counts each metalayer it added).
    pub fn set_meta_changes(&mut self, n: i64) {
        self.meta_changes = n;
    }

    /// The chunk the last operation worked on, as the reference's `current_nchunk`.
    pub fn current_nchunk(&self) -> i64 {
        self.current_nchunk
    }

    /// Record chunk `n` as the one last worked on.
    pub fn set_current_nchunk(&mut self, n: i64) {
        self.current_nchunk = n;
    }

    /// Re-read the frame now if another handle (or process) changed it since this handle
    /// last looked; `Ok(true)` when it did. Data access does this by itself; this is for
    /// watching the counters and metalayers without touching data.
    pub fn refresh(&mut self) -> Result<bool> {
        self.refresh_status().map(|(changed, _)| changed)
    }

    /// [`refresh`](Self::refresh), also saying whether the frame's header could be read
    /// (`false` for a frame file cut short, where data access fails).
    pub fn refresh_status(&mut self) -> Result<(bool, bool)> {
        let before = self.refreshes;
        match self.guarded(false, |_| Ok(())) {
            // A frame file cut inside its header: nothing new to read (the reference's poll
            // says so too), though data access fails.
            Err(Error::FileRead) => return Ok((false, false)),
            r => r?,
        }
        Ok((self.refreshes != before, true))
    }

    /// Run `f` under the frame lock (shared or exclusive) when locking is on, after catching
    /// up with other handles' changes.
    fn guarded<T>(&mut self, exclusive: bool, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        self.guarded_with(exclusive, true, f)
    }

    /// [`guarded`](Self::guarded), looking for other handles' changes only when `fresh` (or
    /// when locking is on, where the lock's generation says it cheaply).
    fn guarded_with<T>(&mut self, exclusive: bool, fresh: bool, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        if let Some(l) = &mut self.lock {
            l.acquire(exclusive)?;
        }
        let fresh = fresh || self.lock.is_some();
        self.guard_depth += 1;
        let r = if self.guard_depth == 1 && fresh { self.refresh_if_stale().map(|_| ()) } else { Ok(()) };
        let r = r.and_then(|()| f(self));
        self.guard_depth -= 1;
        let released = match &mut self.lock {
            Some(l) => l.release(),
            None => Ok(()),
        };
        let v = r?;
        released?;
        Ok(v)
    }

    /// Re-read an on-disk frame when another handle changed it: its generation moved (with
    /// locking) or the length its header records is not the one this handle knows. An
    /// unreadable header counts as "no news", like the reference's poll.
    fn refresh_if_stale(&mut self) -> Result<bool> {
        if self.urlpath.is_none() {
            return Ok(false);
        }
        let forced = self.lock.as_mut().is_some_and(FrameLock::take_stale);
        let Store::Frame(f) = &mut self.store else { return Ok(false) };
        // A file replaced at the frame's path is read from now on, whatever its length.
        let replaced = f.follow_path();
        // A header that cannot be read any more (the file was cut short) fails the access,
        // as the reference's header read before each chunk access does; one that reads but
        // does not parse counts as "no news", like the reference's poll.
        let moved = match f.stored_len() {
            Err(Error::FileRead) => return Err(Error::FileRead),
            r => r.is_ok_and(|len| len != f.len()),
        };
        if !(forced || replaced || moved) {
            return Ok(false);
        }
        f.reload()?;
        let h = f.header.clone();
        self.cbytes = if f.is_sparse() { h.cbytes } else { f.payload_len() };
        self.vlmetalayers = f.trailer.vlmetalayers.clone();
        self.flags2 = if f.nchunks() > 0 { chunk_flags2(&f.chunk(0)?) } else { 0 };
        self.nbytes = h.nbytes;
        self.chunksize = h.chunksize;
        self.blocksize = h.blocksize;
        self.metalayers = h.metalayers;
        self.refreshes += 1;
        Ok(true)
    }

    // ----- chunk access -----

    fn check_index(&self, n: i64) -> Result<usize> {
        if n < 0 || n >= self.nchunks() {
            return Err(Error::InvalidIndex);
        }
        Ok(n as usize)
    }

    /// Compressed chunk `n` (borrowed from memory stores and in-memory frames).
    pub fn get_chunk(&mut self, n: i64) -> Result<Cow<'_, [u8]>> {
        if self.urlpath.is_some() {
            // On disk the chunk is read into a buffer anyway: read it under the lock.
            let owned = self.guarded(false, |s| {
                let n = s.check_index(n)?;
                Ok(store_chunk(&mut s.store, n)?.into_owned())
            })?;
            return Ok(Cow::Owned(owned));
        }
        let n = self.check_index(n)?;
        store_chunk(&mut self.store, n)
    }

    /// Chunk `n` for partial reads: from on-disk frames only the header and block starts
    /// (marked lazy, with a trailer of block sizes) so blocks are read on demand through the
    /// decompressor's [`LazyReader`](crate::chunk::decompress::LazyReader).
    pub fn get_lazy_chunk(&mut self, n: i64) -> Result<Cow<'_, [u8]>> {
        if self.urlpath.is_some() {
            let owned = self.guarded(false, |s| {
                let n = s.check_index(n)?;
                match &mut s.store {
                    Store::Memory(v) => Ok(v[n].to_vec()),
                    Store::Frame(f) => Ok(f.lazy_chunk(n)?.into_owned()),
                }
            })?;
            return Ok(Cow::Owned(owned));
        }
        let n = self.check_index(n)?;
        store_chunk_lazy(&mut self.store, n)
    }

    /// Decompress chunk `n` into `dest`; returns its uncompressed size.
    pub fn decompress_chunk(&mut self, n: i64, dest: &mut [u8]) -> Result<usize> {
        engines::decompress_chunk_in(&Own::new(self), n, dest)
    }

    /// Uncompressed size of chunk `n`.
    pub fn chunk_nbytes(&mut self, n: i64) -> Result<i32> {
        let n = self.check_index(n)?;
        match &mut self.store {
            Store::Memory(v) => chunk_nbytes_of(&v[n]),
            Store::Frame(f) => f.chunk_nbytes(n),
        }
    }

    // ----- mutations -----

    /// Compress `src` with the super-chunk's parameters and append it. Returns the new number
    /// of chunks.
    pub fn append_buffer(&mut self, src: &[u8]) -> Result<i64> {
        engines::append_buffer_in(&Own::new(self), src)
    }

    /// Validate a chunk handed in from outside and return `(nbytes, cbytes)`.
    fn check_chunk(chunk: &[u8]) -> Result<(i32, i32)> {
        let h = ChunkHeader::read(chunk)?;
        if (h.cbytes as usize) > chunk.len() {
            return Err(Error::ReadBuffer);
        }
        Ok((h.nbytes, h.cbytes))
    }

    /// Stored size of a chunk in this super-chunk (frames do not store zeros/NaN/uninit).
    fn stored_cbytes(&self, chunk: &[u8], cbytes: i32) -> i64 {
        match &self.store {
            Store::Frame(_) if storable_special(chunk).is_some() => 0,
            _ => cbytes as i64,
        }
    }

    fn last_chunk_nbytes(&mut self) -> Result<Option<i32>> {
        let n = self.nchunks();
        if n == 0 {
            return Ok(None);
        }
        self.chunk_nbytes(n - 1).map(Some)
    }

    /// After a change, fall back to variable chunks if the fixed size no longer describes
    /// the chunks (the header derives the chunk count from it).
    fn settle_chunksize(&mut self) {
        if self.chunksize > 0 {
            let cs = self.chunksize as i64;
            if (self.nbytes + cs - 1) / cs != self.nchunks() {
                self.chunksize = 0;
            }
        }
    }

    /// Under [`Generation::V2`] rules, refuse a chunk of `nbytes` that would break "every
    /// chunk has the chunk size, except a smaller last one" (`error` is the operation's code,
    /// as c-blosc2 2.x returns). `last` is the size of the chunk that stays before it at the
    /// end when it is appended (`None` otherwise), `ends` whether it becomes the last chunk.
    fn check_fixed_size(&self, nbytes: i32, last: Option<i32>, ends: bool, error: Error) -> Result<()> {
        if !self.cparams.generation.fixed_chunksize() || self.chunksize <= 0 {
            return Ok(());
        }
        let small = nbytes < self.chunksize;
        if nbytes > self.chunksize || (small && !ends) || last.is_some_and(|l| l < self.chunksize) {
            return Err(error);
        }
        Ok(())
    }

    /// Follow `generation`'s writing rules from now on (frames do not record one).
    pub fn set_generation(&mut self, generation: Generation) {
        self.cparams.generation = generation;
        self.cctx.params.generation = generation;
    }

    /// Refuse a chunk whose kind (VL blocks or regular) differs from the chunks this
    /// super-chunk holds (`error` is the operation's code, as the reference's); record the
    /// first chunk's flags2. `other` says whether another chunk stays to compare with.
    fn check_chunk_kind(&mut self, chunk: &[u8], other: bool, error: Error) -> Result<()> {
        let flags2 = chunk_flags2(chunk);
        if !other {
            self.flags2 = flags2;
            return Ok(());
        }
        // Every chunk has the kind of the first one, whose flags2 is kept.
        if (self.flags2 & VL_BLOCKS != 0) != (flags2 & VL_BLOCKS != 0) {
            return Err(error);
        }
        Ok(())
    }

    /// Append a compressed chunk. Returns the new number of chunks.
    pub fn append_chunk(&mut self, chunk: &[u8]) -> Result<i64> {
        self.guarded(true, |s| s.append_chunk_unlocked(Cow::Borrowed(chunk)))
    }

    /// [`append_chunk`](Self::append_chunk) taking the chunk's buffer, which an in-memory
    /// super-chunk keeps as it is (no copy).
    pub fn append_chunk_vec(&mut self, chunk: Vec<u8>) -> Result<i64> {
        self.guarded(true, |s| s.append_chunk_unlocked(Cow::Owned(chunk)))
    }

    fn append_chunk_unlocked(&mut self, whole: Cow<'_, [u8]>) -> Result<i64> {
        let (nbytes, cbytes) = Self::check_chunk(&whole)?;
        let chunk = &whole[..cbytes as usize];
        let last = self.last_chunk_nbytes()?;
        // What to restore when the frame cannot take the chunk (its file was removed, say):
        // the counters must keep describing the chunks there are.
        let before = (self.chunksize, self.nbytes, self.cbytes, self.flags2);
        self.check_fixed_size(nbytes, last, true, Error::ChunkAppend)?;
        self.check_chunk_kind(chunk, self.nchunks() > 0, Error::ChunkAppend)?;
        if self.chunksize == -1 {
            self.chunksize = nbytes;
        } else if self.chunksize > 0 && (nbytes > self.chunksize || last.is_some_and(|l| l < self.chunksize)) {
            self.chunksize = 0;
        }
        self.nbytes += nbytes as i64;
        self.cbytes += self.stored_cbytes(chunk, cbytes);
        match &mut self.store {
            Store::Memory(v) => v.push(match whole {
                Cow::Owned(mut own) => {
                    own.truncate(cbytes as usize);
                    MemChunk::Adopted(Arc::new(own))
                }
                Cow::Borrowed(b) => mem_chunk(&b[..cbytes as usize]),
            }),
            Store::Frame(_) => {
                self.sync_frame();
                let Store::Frame(f) = &mut self.store else { unreachable!() };
                if f.append(chunk).is_err() {
                    (self.chunksize, self.nbytes, self.cbytes, self.flags2) = before;
                    self.sync_frame();
                    return Err(Error::ChunkAppend);
                }
            }
        }
        self.after_change()
    }

    fn after_change(&mut self) -> Result<i64> {
        let before = self.chunksize;
        self.settle_chunksize();
        if before != self.chunksize {
            self.commit_frame()?;
        }
        Ok(self.nchunks())
    }

    /// Insert a compressed chunk before chunk `n` (`n == nchunks` appends).
    pub fn insert_chunk(&mut self, n: i64, chunk: &[u8]) -> Result<i64> {
        self.guarded(true, |s| s.insert_chunk_unlocked(n, chunk))
    }

    fn insert_chunk_unlocked(&mut self, n: i64, chunk: &[u8]) -> Result<i64> {
        if n < 0 || n > self.nchunks() {
            return Err(Error::InvalidIndex);
        }
        let (nbytes, cbytes) = Self::check_chunk(chunk)?;
        let chunk = &chunk[..cbytes as usize];
        self.check_chunk_kind(chunk, self.nchunks() > 0, Error::ChunkInsert)?;
        if n == self.nchunks() {
            return self.append_chunk(chunk);
        }
        self.check_fixed_size(nbytes, None, false, Error::ChunkInsert)?;
        if self.chunksize == -1 {
            self.chunksize = nbytes;
        } else if self.chunksize > 0 && nbytes != self.chunksize {
            self.chunksize = 0;
        }
        self.nbytes += nbytes as i64;
        self.cbytes += self.stored_cbytes(chunk, cbytes);
        match &mut self.store {
            Store::Memory(v) => {
                // `n` was checked against the count above.
                let inserted = v.insert(n as usize, mem_chunk(chunk));
                debug_assert!(inserted);
                self.note_memory_edit(ChunkEdit::Insert(n as usize));
            }
            Store::Frame(_) => {
                self.sync_frame();
                let Store::Frame(f) = &mut self.store else { unreachable!() };
                f.insert(n as usize, chunk).map_err(|_| Error::ChunkInsert)?;
            }
        }
        self.after_change()
    }

    /// Replace chunk `n` by a compressed chunk.
    pub fn update_chunk(&mut self, n: i64, chunk: &[u8]) -> Result<i64> {
        self.guarded(true, |s| s.update_chunk_unlocked(n, chunk))
    }

    fn update_chunk_unlocked(&mut self, n: i64, chunk: &[u8]) -> Result<i64> {
        let idx = self.check_index(n)?;
        let (nbytes, cbytes) = Self::check_chunk(chunk)?;
        let chunk = &chunk[..cbytes as usize];
        self.check_chunk_kind(chunk, self.nchunks() > 1, Error::ChunkUpdate)?;
        let is_last = n + 1 == self.nchunks();
        self.check_fixed_size(nbytes, None, is_last, Error::ChunkUpdate)?;
        if self.chunksize == -1 {
            self.chunksize = nbytes;
        } else if self.chunksize > 0 && nbytes != self.chunksize && !(is_last && nbytes < self.chunksize) {
            self.chunksize = 0;
        }
        let (old_nbytes, old_stored) = {
            let is_frame = matches!(self.store, Store::Frame(_));
            let old = store_chunk(&mut self.store, idx)?;
            let (onb, ocb) = chunk_sizes(&old)?;
            // A replaced or removed chunk of header size only counts for nothing, as the
            // reference counts it (for in-memory super-chunks its cbytes thus keeps the
            // 32 bytes of a special chunk that a b2nd array later fills; clients print it).
            let header_only = ocb as usize == MAX_OVERHEAD_BYTES;
            let stored = if header_only || (is_frame && storable_special(&old).is_some()) { 0 } else { ocb as i64 };
            (onb, stored)
        };
        self.nbytes += nbytes as i64 - old_nbytes as i64;
        self.cbytes += self.stored_cbytes(chunk, cbytes) - old_stored;
        match &mut self.store {
            Store::Memory(v) => {
                if let Some(slot) = v.get_mut(idx) {
                    *slot = mem_chunk(chunk);
                }
                self.note_memory_edit(ChunkEdit::Replace(idx));
            }
            Store::Frame(_) => {
                self.sync_frame();
                let Store::Frame(f) = &mut self.store else { unreachable!() };
                f.update(idx, chunk).map_err(|_| Error::ChunkUpdate)?;
            }
        }
        self.after_change()
    }

    /// Remove chunk `n`.
    pub fn delete_chunk(&mut self, n: i64) -> Result<i64> {
        self.guarded(true, |s| s.delete_chunk_unlocked(n))
    }

    fn delete_chunk_unlocked(&mut self, n: i64) -> Result<i64> {
        let idx = self.check_index(n)?;
        let (old_nbytes, old_stored) = {
            let is_frame = matches!(self.store, Store::Frame(_));
            let old = store_chunk(&mut self.store, idx)?;
            let (onb, ocb) = chunk_sizes(&old)?;
            // A replaced or removed chunk of header size only counts for nothing, as the
            // reference counts it (for in-memory super-chunks its cbytes thus keeps the
            // 32 bytes of a special chunk that a b2nd array later fills; clients print it).
            let header_only = ocb as usize == MAX_OVERHEAD_BYTES;
            let stored = if header_only || (is_frame && storable_special(&old).is_some()) { 0 } else { ocb as i64 };
            (onb, stored)
        };
        self.nbytes -= old_nbytes as i64;
        self.cbytes -= old_stored;
        match &mut self.store {
            Store::Memory(v) => {
                v.remove(idx);
                self.note_memory_edit(ChunkEdit::Remove(idx));
            }
            Store::Frame(_) => {
                self.sync_frame();
                let Store::Frame(f) = &mut self.store else { unreachable!() };
                f.delete(idx).map_err(|_| Error::ChunkUpdate)?;
            }
        }
        if self.nchunks() == 0 {
            self.flags2 = 0;
        }
        self.after_change()
    }

    /// Reorder chunks: new chunk `i` is old chunk `order[i]`.
    pub fn reorder_offsets(&mut self, order: &[i64]) -> Result<()> {
        self.guarded(true, |s| s.reorder_offsets_unlocked(order))
    }

    fn reorder_offsets_unlocked(&mut self, order: &[i64]) -> Result<()> {
        let n = self.nchunks() as usize;
        if order.len() != n {
            return Err(Error::InvalidParam);
        }
        let mut seen = vec![false; n];
        let mut ord = Vec::with_capacity(n);
        for &o in order {
            // Not a chunk index: bad data, as the reference says.
            if o < 0 || o as usize >= n {
                return Err(Error::Data);
            }
            // A repeated index is not a permutation (the reference reports it as bad data).
            if std::mem::replace(&mut seen[o as usize], true) {
                return Err(Error::Data);
            }
            ord.push(o as usize);
        }
        match &mut self.store {
            Store::Memory(v) => {
                let mut old: Vec<Option<MemChunk>> = v.take_all().into_iter().map(Some).collect();
                *v = ord.iter().filter_map(|&o| old[o].take()).collect();
                self.note_memory_edit(ChunkEdit::Other);
            }
            Store::Frame(_) => {
                self.sync_frame();
                if let Store::Frame(f) = &mut self.store {
                    f.reorder(&ord)?;
                }
            }
        }
        let before = self.chunksize;
        self.settle_chunksize();
        if before != self.chunksize {
            self.commit_frame()?;
        }
        Ok(())
    }

    /// Fill an empty super-chunk with `nitems` items of a special value, in chunks of
    /// `chunksize` bytes (`blosc2_schunk_fill_special`). Returns the number of chunks.
    pub fn fill_special(&mut self, nitems: i64, kind: Special, chunksize: i32) -> Result<i64> {
        self.guarded(true, |s| s.fill_special_unlocked(nitems, kind, chunksize))
    }

    fn fill_special_unlocked(&mut self, nitems: i64, kind: Special, chunksize: i32) -> Result<i64> {
        if nitems == 0 {
            return Ok(0);
        }
        if !matches!(kind, Special::Zero | Special::Nan | Special::Uninit) {
            return Err(Error::SchunkSpecial);
        }
        let typesize = self.cparams.typesize;
        if nitems < 0 || chunksize <= 0 {
            return Err(Error::InvalidParam);
        }
        if self.nbytes > 0 || self.cbytes() > 0 {
            return Err(Error::FrameSpecial);
        }
        let chunkitems = chunksize / typesize;
        if chunkitems <= 0 {
            // Not even one item per chunk.
            return Err(Error::InvalidParam);
        }
        let full = nitems / chunkitems as i64;
        let leftover = nitems % chunkitems as i64;
        if full + (leftover != 0) as i64 > i32::MAX as i64 {
            return Err(Error::SchunkSpecial);
        }
        let mk = |params: &CompressParams, nbytes: i32| -> Result<Vec<u8>> {
            let mut c = vec![0u8; EXTENDED_HEADER_LENGTH];
            let n = write_special(params, nbytes, kind, None, &mut c)?;
            c.truncate(n);
            Ok(c)
        };
        let sample = mk(&self.cparams, chunksize)?;
        if let Store::Memory(_) = self.store {
            let last = mk(&self.cparams, (leftover * typesize as i64) as i32)?;
            for _ in 0..full {
                self.append_chunk(&sample)?;
            }
            if leftover != 0 {
                self.append_chunk(&last)?;
            }
            return Ok(self.nchunks());
        }
        let nchunks = (full + (leftover != 0) as i64) as usize;
        self.chunksize = chunksize;
        self.nbytes = nitems * typesize as i64;
        self.blocksize = ChunkHeader::read_min(&sample)?.blocksize;
        let mut idx_params = self.cparams.clone();
        idx_params.typesize = 8;
        idx_params.blocksize = 16 * 1024;
        idx_params.clevel = 5;
        idx_params.compcode = 0;
        self.sync_frame();
        let Store::Frame(f) = &mut self.store else { unreachable!() };
        f.fill_special(nchunks, kind, &idx_params)?;
        Ok(self.nchunks())
    }

    // ----- frames -----

    /// The super-chunk as a contiguous frame. An in-memory frame is returned as is
    /// (borrowed); anything else is serialised the way the reference's copy does.
    pub fn to_buffer(&mut self) -> Result<Cow<'_, [u8]>> {
        if let Store::Frame(f) = &self.store {
            if matches!(f.kind(), FrameKind::Contiguous { path: None }) {
                let Store::Frame(f) = &mut self.store else { unreachable!() };
                return f.to_bytes();
            }
        }
        // The reference copies into a new frame made with the default decompression
        // parameters, so the header records one decompression thread whatever this
        // super-chunk uses (and the bytes equal those of a re-opened copy).
        let dparams = DecompressParams { nthreads: 1, ..self.dparams.clone() };
        let mut copy = copy_to_in(&Own::new(self), &StorageSpec { contiguous: true, urlpath: None }, None, dparams)?;
        if self.nchunks() == 0 {
            // The reference serialises the super-chunk's own header fields here, so a chunk
            // size declared before any chunk (b2nd's empty arrays) shows in the frame.
            copy.chunksize = self.chunksize;
            copy.commit_frame()?;
        }
        let Store::Frame(f) = &mut copy.store else { unreachable!() };
        Ok(Cow::Owned(f.to_bytes()?.into_owned()))
    }

    /// Write the super-chunk as a contiguous frame file at `path`; returns its length.
    pub fn to_file(&mut self, path: &Path) -> Result<i64> {
        let bytes = self.to_buffer()?.into_owned();
        // A file that cannot be created is FileOpen, a failed write FileWrite (as in the
        // reference).
        let mut f = FileStorage::create(path)?;
        f.write_at(0, &bytes)?;
        f.sync()?;
        Ok(bytes.len() as i64)
    }

    /// Append the super-chunk as a contiguous frame at the end of the file at `path`
    /// (created if missing). Returns the offset where the frame starts.
    pub fn append_file(&mut self, path: &Path) -> Result<i64> {
        let bytes = self.to_buffer()?.into_owned();
        let mut f = FileStorage::open_or_create(path)?;
        let at = f.len()?;
        f.write_at(at, &bytes)?;
        Ok(at as i64)
    }

    /// A copy with new storage (`blosc2_schunk_copy`), keeping metalayers, chunks and
    /// vlmetalayers, in the order the reference copies them.
    ///
    /// With `params == None` the copy keeps this super-chunk's parameters and chunks
    /// verbatim. With new parameters the copy is created with them, and the chunks are kept
    /// verbatim only when the parameters that shape a chunk (typesize, clevel, codec,
    /// dictionary, block size, filters) are the same and no pre/postfilter must run;
    /// otherwise every chunk is decompressed and compressed again, as the reference does.
    /// A block size of 0 in `params` means "the one this super-chunk used last".
    pub fn copy_to(&mut self, storage: &StorageSpec, params: Option<CompressParams>) -> Result<SuperChunk> {
        let dparams = self.dparams.clone();
        copy_to_in(&Own::new(self), storage, params, dparams)
    }

    /// The empty copy [`copy_to`](Self::copy_to) starts from, with its metalayers, and
    /// whether chunks can be copied verbatim; the copy gets `dparams` (its typesize follows
    /// the copy's compression parameters).
    fn copy_shell(
        &mut self,
        storage: &StorageSpec,
        params: Option<CompressParams>,
        dparams: DecompressParams,
    ) -> Result<(SuperChunk, bool)> {
        let (mut new, verbatim) = match params {
            None => {
                let mut cparams = self.cparams.clone();
                if cparams.blocksize == 0 {
                    // The reference copies the block size its context used last.
                    cparams.blocksize = self.last_blocksize;
                }
                // The reference's copy carries no thread count for compression.
                cparams.nthreads = 0;
                let dparams = DecompressParams { typesize: cparams.typesize, ..dparams };
                let mut new = SuperChunk::new(cparams, dparams, storage)?;
                new.cctx.params.nthreads = self.cparams.nthreads.max(1);
                (new, true)
            }
            Some(p) => {
                let blocksize = if p.blocksize == 0 { self.last_blocksize } else { p.blocksize };
                let mine = &self.cparams;
                let same_shape = p.typesize == mine.typesize
                    && p.clevel == mine.clevel
                    && p.compcode == mine.compcode
                    && p.use_dict == mine.use_dict
                    && blocksize == self.last_blocksize
                    && p.filters == mine.filters
                    && p.filters_meta == mine.filters_meta;
                let callbacks = self.cctx.prefilter.is_some() || self.dctx.postfilter.is_some();
                let dparams = DecompressParams { typesize: p.typesize, ..dparams };
                (SuperChunk::new(p, dparams, storage)?, same_shape && !callbacks)
            }
        };
        for m in self.metalayers.clone() {
            new.meta_add(&m.name, &m.content)?;
        }
        Ok((new, verbatim))
    }

    /// Open a super-chunk from a contiguous frame owned by the caller (no copy: the frame
    /// stays the storage and further changes are made to it).
    pub fn from_frame_vec(frame: Vec<u8>) -> Result<SuperChunk> {
        Self::from_store(Box::new(MemStorage::new(frame)), 0, FrameKind::Contiguous { path: None }, None)
    }

    /// Open a super-chunk from frame bytes, copying the chunks into memory
    /// (`blosc2_schunk_from_buffer(copy=true)`): the result is not frame-backed.
    pub fn from_buffer_copy(bytes: &[u8]) -> Result<SuperChunk> {
        // The chunks are copied straight from `bytes`; the frame keeps only its metadata.
        let frame = Frame::open_skeleton(bytes)?;
        let mut chunks = ChunkList::default();
        let mut cbytes = 0i64;
        let mut nbytes = 0i64;
        let mut blocksize = None;
        let slab = Self::slab_for(&frame, bytes);
        for c in frame.chunks_in(bytes) {
            let c = c?;
            let h = ChunkHeader::read_min(&c)?;
            cbytes += h.cbytes as i64;
            nbytes += h.nbytes as i64;
            blocksize = match blocksize {
                None => Some(h.blocksize),
                Some(b) if b == h.blocksize => Some(b),
                Some(_) => Some(0),
            };
            if let (Some((slab, at)), Cow::Borrowed(b)) = (&slab, &c) {
                // Within the payload: `chunks_in` checks every stored chunk's bounds.
                let start = (b.as_ptr() as usize).wrapping_sub(*at as usize + bytes.as_ptr() as usize);
                if start.checked_add(b.len()).is_some_and(|end| end <= slab.len()) {
                    chunks.push(MemChunk::InSlab(SlabChunk { slab: slab.clone(), start: start as u32, len: b.len() as u32 }));
                    continue;
                }
            }
            // Runs of equal special chunks (a frame of a million zero chunks, say) share
            // one copy: a chunk costs its pointer, not an allocation each.
            match chunks.last() {
                Some(prev) if c.len() <= 64 && prev[..] == c[..] => chunks.push(prev.clone()),
                _ => chunks.push(mem_chunk(&c)),
            }
        }
        if let Some((slab, _)) = slab {
            // A payload mostly of deleted chunks' bytes is not kept: its chunks are copied
            // out one by one (nothing has lent them yet).
            let held: u64 = chunks.iter().map(|c| if let MemChunk::InSlab(c) = c { c.len as u64 } else { 0 }).sum();
            if held * 2 < slab.len() as u64 {
                for n in 0..chunks.len() {
                    if let Some(c) = chunks.get_mut(n) {
                        if matches!(c, MemChunk::InSlab(_)) {
                            *c = mem_chunk(c);
                        }
                    }
                }
            }
        }
        let flags2 = chunks.get(0).map_or(0, |c| chunk_flags2(c));
        let mut s = Self::with_frame(frame, None, flags2);
        // The copy must hold what the frame header says it holds; the reference refuses a
        // frame whose chunks decode to another size (only when copying, as here).
        if nbytes != s.nbytes {
            return Err(Error::InvalidHeader);
        }
        s.cbytes = cbytes;
        s.blocksize = blocksize.unwrap_or(s.blocksize);
        s.store = Store::Memory(chunks);
        s.note_memory_edit(ChunkEdit::Other);
        Ok(s)
    }

    /// The payload of `frame` (in `bytes`) copied into a [`Slab`] with its position in
    /// `bytes`, when its chunks are small enough to be held that way.
    fn slab_for(frame: &Frame, bytes: &[u8]) -> Option<(Slab, u64)> {
        let (at, len) = (frame.payload_pos(), u64::try_from(frame.payload_len()).ok()?);
        let n = frame.nchunks() as u64;
        // Offsets fit the chunks' 32-bit handles (frames of small chunks this large are
        // rare; they are copied chunk by chunk).
        if n == 0 || len > u32::MAX as u64 || len / n > SLAB_MAX_AVERAGE {
            return None;
        }
        let end = usize::try_from(at.checked_add(len)?).ok()?;
        Some((Arc::new(crate::scratch::ScratchBuf::copy_of(bytes.get(at as usize..end)?)), at))
    }

    /// Open the super-chunk stored at `path`: a contiguous frame file (starting at `offset`)
    /// or a sparse frame directory.
    pub fn open(path: &Path, offset: u64) -> Result<SuperChunk> {
        Self::open_on(path, offset, fs_opener())
    }

    /// As [`open`](Self::open), with the frame's files opened through `files`.
    pub fn open_on(path: &Path, offset: u64, files: Arc<dyn Opener>) -> Result<SuperChunk> {
        let meta = std::fs::metadata(path).map_err(|_| Error::FileOpen)?;
        let (store, offset, kind) = if meta.is_dir() {
            let idx_path = sframe::index_path(path);
            let idx = files.open(&idx_path, true).or_else(|_| files.open(&idx_path, false))?;
            (idx, 0, FrameKind::Sparse { dir: path.to_path_buf() })
        } else {
            let store = files.open(path, true).or_else(|_| files.open(path, false))?;
            (store, offset, FrameKind::Contiguous { path: Some(path.to_path_buf()) })
        };
        Self::from_store_on(store, offset, kind, Some(path), files)
    }

    /// Open like [`open`](Self::open) for a handle that locks its frame. The first read is
    /// retried for a while (about 50 ms), since a writer may be in the middle of growing the
    /// frame; then the shared lock is taken and, if the frame was changed under locking
    /// since (its generation moved), it is read again under the lock.
    pub fn open_locking(path: &Path, offset: u64) -> Result<SuperChunk> {
        const TRIES: u32 = 50;
        let mut tries = 0;
        let mut sc = loop {
            match Self::open(path, offset) {
                Ok(sc) => break sc,
                Err(e) => {
                    tries += 1;
                    if tries >= TRIES {
                        return Err(e);
                    }
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
            }
        };
        sc.enable_locking();
        sc.refresh()?;
        // Catching up while opening is not a change this handle saw happen.
        sc.refreshes = 0;
        Ok(sc)
    }

    /// Open a super-chunk over a frame in any storage (the C layer's I/O backends).
    pub fn from_store(store: Box<dyn Storage>, base: u64, kind: FrameKind, path: Option<&Path>) -> Result<SuperChunk> {
        Self::from_store_on(store, base, kind, path, fs_opener())
    }

    fn from_store_on(
        store: Box<dyn Storage>,
        base: u64,
        kind: FrameKind,
        path: Option<&Path>,
        files: Arc<dyn Opener>,
    ) -> Result<SuperChunk> {
        let mut frame = Frame::open(store, base, kind)?;
        frame.set_opener(files);
        let flags2 = if frame.nchunks() > 0 { chunk_flags2(&frame.chunk(0)?) } else { 0 };
        Ok(Self::with_frame(frame, path, flags2))
    }

    /// A super-chunk over an opened frame, whose first chunk has the flags2 `flags2`.
    fn with_frame(frame: Frame, path: Option<&Path>, flags2: u8) -> SuperChunk {
        let h = frame.header.clone();
        let cparams = CompressParams {
            compcode: h.compcode,
            compcode_meta: h.compcode_meta,
            clevel: h.clevel,
            use_dict: h.use_dict,
            typesize: h.typesize,
            // Like the reference, thread counts are not taken from the (untrusted) header.
            nthreads: 1,
            blocksize: h.blocksize,
            splitmode: h.splitmode as i32,
            filters: h.filters,
            filters_meta: h.filters_meta,
            ..CompressParams::default()
        };
        let dparams = DecompressParams { nthreads: 1, typesize: h.typesize };
        let mut dctx = Decompressor::new(dparams.clone());
        dctx.lazy = frame.lazy_reader();
        let cbytes = if frame.is_sparse() { h.cbytes } else { frame.payload_len() };
        let mut s = SuperChunk {
            cctx: Box::new(Compressor::new(cparams.clone())),
            dctx: Box::new(dctx),
            stand_ins: Default::default(),
            last_blocksize: h.blocksize,
            blocksize: h.blocksize,
            cparams,
            dparams,
            nbytes: h.nbytes,
            cbytes,
            chunksize: h.chunksize,
            flags2,
            metalayers: h.metalayers,
            vlmetalayers: frame.trailer.vlmetalayers.clone(),
            store: Store::Frame(Box::new(frame)),
            urlpath: path.map(Path::to_path_buf),
            memory_edits: 0,
            last_memory_edit: ChunkEdit::Other,
            lock: None,
            guard_depth: 0,
            refreshes: 0,
            meta_changes: 0,
            current_nchunk: 0,
        };
        s.bind_calls();
        s
    }

    /// Give back the frame bytes of an in-memory frame (e.g. to hand them to C).
    pub fn into_frame_vec(self) -> Option<Vec<u8>> {
        match self.store {
            Store::Frame(f) if matches!(f.kind(), FrameKind::Contiguous { path: None }) => {
                let mut s = (*f).into_storage();
                let len = s.len().ok()? as usize;
                s.read_vec(0, len).ok()
            }
            _ => None,
        }
    }
}

/// [`SuperChunk::copy_to`] with the source held only between engine runs (recompressing
/// runs its postfilter and codecs).
pub fn copy_to_in<H: Holder>(
    h: &H,
    storage: &StorageSpec,
    params: Option<CompressParams>,
    dparams: DecompressParams,
) -> Result<SuperChunk> {
    let (mut new, verbatim) = h.hold(|s| s.copy_shell(storage, params, dparams))?;
    let nchunks = h.hold(|s| Ok(s.nchunks()))?;
    let mut buf = Vec::new();
    // One commit at the end: committing per chunk rewrote the whole index each time
    // (quadratic; a frame of many special chunks took minutes to copy).
    new.defer_frame_commits(true)?;
    for n in 0..nchunks {
        if verbatim {
            let c = h.hold(|s| s.held_chunk(n, false))?;
            new.append_chunk(&c)?;
        } else {
            buf.resize(h.hold(|s| s.chunk_nbytes(n))?.max(0) as usize, 0);
            let len = decompress_chunk_in(h, n, &mut buf)?;
            new.append_buffer(&buf[..len])?;
        }
    }
    new.defer_frame_commits(false)?;
    for m in h.hold(|s| Ok(s.vlmetalayers.clone()))? {
        new.vlmetalayers.push(m);
    }
    if !new.vlmetalayers.is_empty() {
        new.commit_frame()?;
    }
    Ok(new)
}

/// Chunk `n` of a store (borrowed where possible).
fn store_chunk(store: &mut Store, n: usize) -> Result<Cow<'_, [u8]>> {
    match store {
        Store::Memory(v) => v.get(n).map(|c| Cow::Borrowed(&c[..])).ok_or(Error::InvalidIndex),
        Store::Frame(f) => f.chunk(n),
    }
}

/// Chunk `n` of a store for partial reads (lazy from on-disk frames).
fn store_chunk_lazy(store: &mut Store, n: usize) -> Result<Cow<'_, [u8]>> {
    match store {
        Store::Memory(v) => v.get(n).map(|c| Cow::Borrowed(&c[..])).ok_or(Error::InvalidIndex),
        Store::Frame(f) => f.lazy_chunk(n),
    }
}

// Differential tests against the reference, through the C API's structs.
#[cfg(all(test, feature = "c-api"))]
mod tests;
