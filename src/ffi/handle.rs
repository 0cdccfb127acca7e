//! The Rust side of each `blosc2_schunk` handed to C: a [`Handle`] (the core
//! [`SuperChunk`] plus what C sees of it) found through a side table keyed by the public
//! pointer, locked per call, with the public struct kept current ([`Handle::sync`]) and
//! caller edits of its fields taken in (`Handle::absorb`): the bookkeeping half of
//! `ffi/schunk.rs`, whose other half is the exported functions.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, RwLock};

use libc::{c_int, c_void};

use super::abi::*;
use super::abi::edition;
use super::cmem::{c_box, c_free, c_realloc, c_strdup};
use super::context::{blosc2_create_cctx_impl, blosc2_create_dctx_impl, blosc2_free_ctx_impl, ctx_mut, Context, Engine};
use crate::error::{Error, Result};
use crate::frame::header::Metalayer;
use crate::schunk::{ChunkEdit, Holder, SuperChunk};

pub use super::cmem::malloc_copy;

/// The Rust side of one `blosc2_schunk`.
pub struct Handle {
    /// The core super-chunk.
    pub sc: SuperChunk,
    pub(crate) public: *mut blosc2_schunk,
    /// Chunks handed over with `copy == false`: the reference keeps (and frees) them, so they
    /// stay valid for the caller until the super-chunk is freed.
    pub(crate) adopted: Vec<*mut u8>,
    /// Our own copies of the public metalayer structs (rebuilt when they change).
    meta_shadow: Vec<Metalayer>,
    vlmeta_shadow: Vec<Metalayer>,
    /// Arrays of names returned by `blosc2_vlmeta_get_names` point into the vlmetalayer
    /// structs, which live until the next change.
    /// How much of the public `data` array (chunk addresses of an in-memory super-chunk)
    /// is current: valid entries, and the store's edit count they were taken at.
    data_view: (usize, u64),
    /// The public fields C code may write, as the last [`Handle::sync`] left them: a
    /// difference at the next call is the caller's change, taken in by [`Handle::absorb`].
    seen: Seen,
    /// I/O backend bookkeeping (user callbacks), released at free.
    pub io_release: Option<Box<dyn FnOnce() + Send>>,
}

// SAFETY: the raw pointers are allocations owned by this handle; every access goes through
// the handle's mutex.
unsafe impl Send for Handle {}

pub(crate) type Shared = Arc<Slot>;

/// A handle and the thread that holds it locked right now, so that code run under the lock
/// (an I/O backend's callbacks) that calls back into the same super-chunk gets an error
/// instead of waiting for itself. (A per-thread list of held handles, searched and edited
/// on every call, took about a tenth of a small chunk's read.)
pub(crate) struct Slot {
    /// The locking thread's [`thread_token`], 0 when unlocked. Only the holder writes it
    /// while it holds the lock, and clears it before unlocking, so a thread finds its own
    /// token here exactly when it holds the lock.
    owner: AtomicUsize,
    handle: Mutex<Handle>,
}

impl Slot {
    pub(crate) fn new(h: Handle) -> Slot {
        Slot { owner: AtomicUsize::new(0), handle: Mutex::new(h) }
    }
}

impl std::ops::Deref for Slot {
    type Target = Mutex<Handle>;
    fn deref(&self) -> &Mutex<Handle> {
        &self.handle
    }
}

/// A non-zero number no other live thread has: its `pthread_t`, read without a
/// thread-local access.
fn thread_token() -> usize {
    // SAFETY: pthread_self has no preconditions and cannot fail.
    (unsafe { libc::pthread_self() }) as usize | 1
}

/// Hashes the addresses that key the handle table: they are unique already, so one
/// multiply spreads them (SipHash cost a fifth of a small chunk's read).
#[derive(Default)]
pub(crate) struct AddrHasher(u64);

impl std::hash::Hasher for AddrHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_usize(b as usize ^ self.0 as usize);
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.0 = (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_right(29);
    }
}

pub(crate) type AddrMap<V> = HashMap<usize, V, std::hash::BuildHasherDefault<AddrHasher>>;

/// Every live super-chunk of the C API, by the address of its public struct. Read on every
/// call and written only when a super-chunk is made or freed: a read-write lock, so calls on
/// different super-chunks from different threads never wait for each other here.
pub(crate) fn table() -> &'static RwLock<AddrMap<Shared>> {
    static T: OnceLock<RwLock<AddrMap<Shared>>> = OnceLock::new();
    T.get_or_init(|| RwLock::new(AddrMap::default()))
}

pub(crate) fn lookup(schunk: *const blosc2_schunk) -> Option<Shared> {
    if schunk.is_null() {
        return None;
    }
    let t = table().read().unwrap_or_else(|e| e.into_inner());
    t.get(&(schunk as usize)).cloned()
}

/// A handle locked by this thread (see [`lock`]).
pub(crate) struct Locked<'a> {
    guard: MutexGuard<'a, Handle>,
    owner: &'a AtomicUsize,
}

impl std::ops::Deref for Locked<'_> {
    type Target = Handle;
    fn deref(&self) -> &Handle {
        &self.guard
    }
}

impl std::ops::DerefMut for Locked<'_> {
    fn deref_mut(&mut self) -> &mut Handle {
        &mut self.guard
    }
}

impl Drop for Locked<'_> {
    fn drop(&mut self) {
        // Before the guard unlocks (fields drop after this).
        self.owner.store(0, Ordering::Relaxed);
    }
}

/// Lock a handle; `BLOSC2_ERROR_LOCK` when this thread already holds it.
///
/// The lock is only ever held while the super-chunk's own state is read or changed: the
/// engines, which run user codecs, filters, prefilters, postfilters and the threads
/// callback, run with it released (see [`crate::schunk::Holder`]), so those callbacks may
/// use this super-chunk freely. Only I/O backend callbacks run under it.
pub(crate) fn lock(shared: &Shared) -> Result<Locked<'_>> {
    let me = thread_token();
    if shared.owner.load(Ordering::Relaxed) == me {
        return Err(Error::Lock);
    }
    let mut guard = shared.handle.lock().unwrap_or_else(|e| e.into_inner());
    shared.owner.store(me, Ordering::Relaxed);
    guard.absorb();
    Ok(Locked { guard, owner: &shared.owner })
}

/// Run `f` on the handle of `schunk` (for other C-layer modules such as b2nd), then refresh
/// the public struct. `None` when `schunk` is not a live super-chunk of this library (or
/// this thread holds it already).
pub fn with_handle<R>(schunk: *mut blosc2_schunk, f: impl FnOnce(&mut Handle) -> R) -> Option<R> {
    let shared = lookup(schunk)?;
    let mut h = lock(&shared).ok()?;
    let r = f(&mut h);
    let _ = h.sync();
    Some(r)
}

/// Record chunk `n` as the one last decompressed (`current_nchunk`), for C-layer modules
/// that decompress through the core (b2nd slices).
pub fn set_current_nchunk(schunk: *mut blosc2_schunk, n: i64) {
    with_handle(schunk, |h| h.sc.set_current_nchunk(n));
}

/// Like [`with_handle`], mapping an unknown pointer to `BLOSC2_ERROR_NULL_POINTER` and a
/// handle this thread holds already to `BLOSC2_ERROR_LOCK`.
pub fn with<R>(schunk: *mut blosc2_schunk, f: impl FnOnce(&mut Handle) -> Result<R>) -> Result<R> {
    let shared = lookup(schunk).ok_or(Error::NullPointer)?;
    let mut h = lock(&shared)?;
    let r = f(&mut h);
    let published = h.sync();
    r.and_then(|v| published.map(|_| v))
}

/// A super-chunk for operations that run an engine: each step locks the handle briefly,
/// the engine runs with it released.
pub struct Released(Shared);

impl Holder for Released {
    fn hold<R>(&self, f: impl FnOnce(&mut SuperChunk) -> Result<R>) -> Result<R> {
        let mut h = lock(&self.0)?;
        let r = f(&mut h.sc);
        let published = h.sync();
        r.and_then(|v| published.map(|_| v))
    }
}

/// The [`Released`] holder of `schunk` (`BLOSC2_ERROR_NULL_POINTER` when unknown).
pub fn released(schunk: *mut blosc2_schunk) -> Result<Released> {
    lookup(schunk).map(Released).ok_or(Error::NullPointer)
}

pub(crate) fn code_i64(r: Result<i64>) -> i64 {
    r.unwrap_or_else(|e| e.code() as i64)
}

pub(crate) fn code_int(r: Result<c_int>) -> c_int {
    r.unwrap_or_else(|e| e.code())
}

/// The public copy of a metalayer; nothing is left allocated when it fails.
pub(crate) fn alloc_metalayer(m: &Metalayer) -> Result<*mut blosc2_metalayer> {
    let name = c_strdup(&m.name)?;
    let content = malloc_copy(&m.content).inspect_err(|_| c_free(name))?;
    c_box(blosc2_metalayer { name, content, content_len: m.content.len() as i32 }).inspect_err(|_| {
        c_free(name);
        c_free(content);
    })
}

pub(crate) fn free_metalayer(p: *mut blosc2_metalayer) {
    if p.is_null() {
        return;
    }
    // SAFETY: p came from alloc_metalayer.
    let m = unsafe { &*p };
    c_free(m.name);
    c_free(m.content);
    c_free(p);
}

/// Free the storage copy made by `alloc_storage`.
pub(crate) fn free_storage(st: *mut blosc2_storage) {
    if st.is_null() {
        return;
    }
    // SAFETY: st came from alloc_storage.
    let s = unsafe { &*st };
    c_free(s.urlpath);
    c_free(s.cparams);
    c_free(s.dparams);
    c_free(s.io);
    c_free(st);
}

/// Our own copy of a storage description, with its strings and parameter structs.
pub(crate) fn alloc_storage(
    contiguous: bool,
    urlpath: Option<&str>,
    cparams: blosc2_cparams,
    dparams: blosc2_dparams,
    io: &blosc2_io,
) -> Result<*mut blosc2_storage> {
    // A plain copy, as the reference keeps: `io.name` is only the caller's label, never read
    // here. Callers leave it uninitialised (python-blosc2's mmap backend mallocs the struct
    // and sets only `id` and `params`), so reading it would read garbage.
    // Built empty first, so that one free_storage undoes any part that was allocated.
    let st = c_box(blosc2_storage {
        contiguous,
        urlpath: std::ptr::null_mut(),
        cparams: std::ptr::null_mut(),
        dparams: std::ptr::null_mut(),
        io: std::ptr::null_mut(),
    })?;
    let fill = || -> Result<()> {
        // SAFETY: st is a live allocation of ours.
        let s = unsafe { &mut *st };
        s.io = c_box(*io)?;
        s.cparams = c_box(cparams)?;
        s.dparams = c_box(dparams)?;
        if let Some(u) = urlpath {
            s.urlpath = c_strdup(u)?;
        }
        Ok(())
    };
    fill().inspect_err(|_| free_storage(st))?;
    Ok(st)
}

/// The caller-writable fields of the public struct, as published.
#[derive(Clone, Copy, PartialEq)]
pub(crate) struct Seen {
    /// The contexts, by pointer and by [`Context::id`] (a replacement may reuse the address).
    cctx: (*mut blosc2_context, u64),
    dctx: (*mut blosc2_context, u64),
    compcode: u8,
    compcode_meta: u8,
    clevel: u8,
    splitmode: u8,
    typesize: i32,
    chunksize: i32,
    filters: [u8; BLOSC2_MAX_FILTERS],
    filters_meta: [u8; BLOSC2_MAX_FILTERS],
    current_nchunk: i64,
}

impl Default for Seen {
    fn default() -> Seen {
        Seen {
            cctx: (std::ptr::null_mut(), 0),
            dctx: (std::ptr::null_mut(), 0),
            compcode: 0,
            compcode_meta: 0,
            clevel: 0,
            splitmode: 0,
            typesize: 0,
            chunksize: 0,
            filters: [0; BLOSC2_MAX_FILTERS],
            filters_meta: [0; BLOSC2_MAX_FILTERS],
            current_nchunk: 0,
        }
    }
}

/// The id of a context of ours (0 for NULL).
pub(crate) fn context_id(ctx: *mut blosc2_context) -> u64 {
    // SAFETY: a context pointer in the public struct is NULL or a live context.
    unsafe { ctx_mut(ctx) }.map_or(0, |c| c.id)
}

impl Seen {
    pub(crate) fn of(s: &blosc2_schunk) -> Seen {
        Seen {
            cctx: (s.cctx, context_id(s.cctx)),
            dctx: (s.dctx, context_id(s.dctx)),
            compcode: s.compcode,
            compcode_meta: s.compcode_meta,
            clevel: s.clevel,
            splitmode: s.splitmode,
            typesize: s.typesize,
            chunksize: s.chunksize,
            filters: s.filters,
            filters_meta: s.filters_meta,
            current_nchunk: s.current_nchunk,
        }
    }
}

impl Handle {
    /// Take in what C code wrote into the public struct since the last call, as the
    /// reference (which keeps no other copy) sees it: contexts it replaced (python-blosc2
    /// frees `schunk->cctx`/`dctx` and makes new ones when parameters change), the parameter
    /// fields the frame header records, `chunksize` and `current_nchunk`.
    pub(crate) fn absorb(&mut self) {
        // SAFETY: public is live while the handle exists; we hold the handle's lock.
        let now = Seen::of(unsafe { &*self.public });
        let was = self.seen;
        if now == was {
            return;
        }
        if now.cctx != was.cctx {
            // SAFETY: a context pointer in the public struct is NULL or a live context.
            if let Some(Context { engine: Engine::Compress(comp), .. }) = unsafe { ctx_mut(now.cctx.0) } {
                let (params, prefilter, tuner, call) =
                    (comp.params.clone(), comp.prefilter.clone(), comp.tuner.clone(), comp.call.clone());
                let c = self.sc.compressor();
                c.params = params;
                c.prefilter = prefilter;
                c.tuner = tuner;
                self.sc.set_compress_call(call);
            }
        }
        if now.dctx != was.dctx {
            // SAFETY: as above.
            if let Some(Context { engine: Engine::Decompress(dec), .. }) = unsafe { ctx_mut(now.dctx.0) } {
                let (params, postfilter, call) = (dec.params.clone(), dec.postfilter.clone(), dec.call.clone());
                let d = self.sc.decompressor();
                d.params = params;
                d.postfilter = postfilter;
                self.sc.set_decompress_call(call);
            }
        }
        let p = self.sc.cparams_mut();
        if now.compcode != was.compcode {
            p.compcode = now.compcode;
        }
        if now.compcode_meta != was.compcode_meta {
            p.compcode_meta = now.compcode_meta;
        }
        if now.clevel != was.clevel {
            p.clevel = now.clevel;
        }
        if now.splitmode != was.splitmode {
            p.splitmode = now.splitmode as i32;
        }
        if now.typesize != was.typesize && now.typesize > 0 {
            p.typesize = now.typesize;
        }
        if now.filters != was.filters {
            p.filters = now.filters;
        }
        if now.filters_meta != was.filters_meta {
            p.filters_meta = now.filters_meta;
        }
        if now.chunksize != was.chunksize {
            self.sc.set_chunksize(now.chunksize);
        }
        if now.current_nchunk != was.current_nchunk {
            self.sc.set_current_nchunk(now.current_nchunk);
        }
    }

    /// The public struct's storage copy.
    pub(crate) fn storage(&self) -> Option<&blosc2_storage> {
        // SAFETY: public is live while the handle exists; storage is ours or NULL.
        unsafe { (*self.public).storage.as_ref() }
    }

    /// The public `blosc2_schunk` struct handed to C for this super-chunk.
    pub fn public(&self) -> *mut blosc2_schunk {
        self.public
    }

    /// Make room in the public `data` array of an in-memory super-chunk for one more chunk
    /// before a change that adds one, so that the array is never left shorter than `nchunks`
    /// says when it cannot grow (the change is refused instead). Called by the adding
    /// functions only: the array grows when the reference's does.
    pub(crate) fn reserve_chunk_address(&mut self) -> Result<()> {
        let Some((chunks, _)) = self.sc.memory_chunks() else { return Ok(()) };
        // SAFETY: public is live and exclusively ours under the handle lock.
        let s = unsafe { &mut *self.public };
        if grow_chunk_addresses(s, chunks.len() + 1) {
            Ok(())
        } else {
            Err(Error::MemoryAlloc)
        }
    }

    /// Copy the current state into the public struct. `BLOSC2_ERROR_MEMORY_ALLOC` when a
    /// part of it (metalayers, the chunk address array) could not be allocated: the rest is
    /// published, and the next sync tries again.
    pub fn sync(&mut self) -> Result<()> {
        let sc = &mut self.sc;
        let p = sc.cparams().clone();
        let frame_backed = sc.frame_kind().is_some();
        let nchunks = sc.nchunks();
        let metas_changed = self.meta_shadow != sc.metalayers();
        let vl_changed = self.vlmeta_shadow != sc.vlmetalayers_raw();
        // SAFETY: public is live and exclusively ours under the handle lock.
        let s = unsafe { &mut *self.public };
        s.version = 0;
        s.compcode = p.compcode;
        s.compcode_meta = p.compcode_meta;
        s.clevel = p.clevel;
        s.splitmode = p.splitmode as u8;
        s.typesize = p.typesize;
        s.blocksize = sc.blocksize();
        s.chunksize = sc.chunksize();
        s.filters = p.filters;
        s.filters_meta = p.filters_meta;
        s.nchunks = nchunks;
        s.current_nchunk = sc.current_nchunk();
        s.nbytes = sc.nbytes();
        s.cbytes = sc.cbytes();
        // The frame pointer is opaque to C; only its NULL-ness means something (frame-backed).
        s.frame = if frame_backed { self.public as *mut blosc2_frame } else { std::ptr::null_mut() };
        // Local metalayer changes plus re-reads of what other handles changed.
        edition::publish_v3_schunk_fields(s, sc.flags2(), p.use_dict, sc.change_tick());
        let mut failed = false;
        if let Some((chunks, edits)) = sc.memory_chunks() {
            failed = !publish_chunk_addresses(s, chunks, (edits, sc.last_memory_edit()), &mut self.data_view);
        }
        if metas_changed {
            let made = publish_metalayers(&mut s.metalayers, sc.metalayers(), &mut self.meta_shadow);
            s.nmetalayers = made.unwrap_or_else(|n| n) as u16;
            failed |= made.is_err();
        }
        if vl_changed {
            let made = publish_metalayers(&mut s.vlmetalayers, sc.vlmetalayers_raw(), &mut self.vlmeta_shadow);
            s.nvlmetalayers = made.unwrap_or_else(|n| n) as i16;
            failed |= made.is_err();
        }
        self.seen = Seen::of(s);
        if failed {
            return Err(Error::MemoryAlloc);
        }
        Ok(())
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        if let Some(f) = self.io_release.take() {
            f();
        }
        for p in self.adopted.drain(..) {
            c_free(p);
        }
        if self.public.is_null() {
            return;
        }
        // SAFETY: public came from c_box in register and is freed only here.
        let s = unsafe { &mut *self.public };
        for slot in s.metalayers.iter_mut().chain(s.vlmetalayers.iter_mut()) {
            free_metalayer(std::mem::replace(slot, std::ptr::null_mut()));
        }
        // SAFETY: contexts were created by blosc2_create_*ctx for this handle.
        unsafe {
            blosc2_free_ctx_impl(s.cctx);
            blosc2_free_ctx_impl(s.dctx);
        }
        free_storage(s.storage);
        c_free(s.blockshape);
        c_free(s.data as *mut c_void);
        c_free(self.public);
    }
}

/// The public `data` array grows by this many bytes at a time, as the reference's.
pub(crate) const DATA_PAGE: usize = 4096;

/// Keep the public `data` array of an in-memory super-chunk pointing at its chunks, as the
/// reference's does (C code may read `schunk->data[i]`). The array grows by 4 KiB pages and
/// `data_len` counts its bytes, like the reference's; after an append only the new tail is
/// written, any other edit rewrites it all.
/// `false` when the array could not grow: it then keeps the addresses it had (valid for
/// as many chunks as it has room for).
///
/// An edit since the last view costs what it costs the reference: one slot for a replaced
/// chunk, a move of the later slots for an insert or a removal; only other changes (or
/// several edits between two views) rewrite the whole array.
pub(crate) fn publish_chunk_addresses(
    s: &mut blosc2_schunk,
    chunks: &crate::schunk::ChunkList,
    (edits, last): (u64, ChunkEdit),
    view: &mut (usize, u64),
) -> bool {
    let ptr_size = std::mem::size_of::<*mut u8>();
    if !grow_chunk_addresses(s, chunks.len()) {
        return false;
    }
    if s.data.is_null() {
        return true;
    }
    let capacity = s.data_len / ptr_size;
    // SAFETY: s.data holds `capacity` pointer slots and chunks.len() <= capacity.
    let slots = unsafe { std::slice::from_raw_parts_mut(s.data, capacity) };
    let (seen, len) = (view.0.min(capacity), chunks.len());
    let address = |i: usize| chunks[i].as_ptr() as *mut u8;
    // One edit since the last view, and no append around it (the lengths tell).
    let followed = view.1 + 1 == edits
        && match last {
            ChunkEdit::Replace(i) if len == seen && i < len => {
                slots[i] = address(i);
                true
            }
            ChunkEdit::Insert(i) if len == seen + 1 && i < len => {
                slots.copy_within(i..seen, i + 1);
                slots[i] = address(i);
                true
            }
            ChunkEdit::Remove(i) if len + 1 == seen && i <= len => {
                slots.copy_within(i + 1..seen, i);
                slots[len] = std::ptr::null_mut();
                true
            }
            _ => false,
        };
    if followed {
        *view = (len, edits);
        return true;
    }
    let start = if view.1 == edits { view.0.min(chunks.len()) } else { 0 };
    for (slot, chunk) in slots[start..chunks.len()].iter_mut().zip(chunks.iter_from(start)) {
        // C only reads through these; the chunks stay owned (and freed) by the super-chunk.
        *slot = chunk.as_ptr() as *mut u8;
    }
    for slot in &mut slots[chunks.len()..view.0.max(chunks.len()).min(capacity)] {
        *slot = std::ptr::null_mut();
    }
    *view = (chunks.len(), edits);
    true
}

/// Make the public `data` array hold at least `count` chunk addresses (grown by whole pages;
/// new slots NULL until published); `false` when it cannot grow (it is then unchanged).
fn grow_chunk_addresses(s: &mut blosc2_schunk, count: usize) -> bool {
    let needed = count * std::mem::size_of::<*mut u8>();
    if needed <= s.data_len {
        return true;
    }
    let new_len = needed.div_ceil(DATA_PAGE) * DATA_PAGE;
    let grown = c_realloc(s.data as *mut u8, new_len);
    if grown.is_null() {
        return false;
    }
    // SAFETY: grown holds new_len bytes; the slots past the old length are ours to set.
    unsafe { std::ptr::write_bytes(grown.add(s.data_len), 0, new_len - s.data_len) };
    s.data = grown as *mut *mut u8;
    s.data_len = new_len;
    true
}

/// Replace the public metalayer `slots` (freeing what was there) with `metas`, and record in
/// `shadow` what they show. `Ok(count)` when all that fit were made; `Err(count)` when an
/// allocation failed after `count` of them (the shadow is then cleared, so the next sync
/// tries again).
pub(crate) fn publish_metalayers(
    slots: &mut [*mut blosc2_metalayer],
    metas: &[Metalayer],
    shadow: &mut Vec<Metalayer>,
) -> std::result::Result<usize, usize> {
    for slot in slots.iter_mut() {
        free_metalayer(std::mem::replace(slot, std::ptr::null_mut()));
    }
    let mut made = 0;
    for (slot, m) in slots.iter_mut().zip(metas) {
        match alloc_metalayer(m) {
            Ok(p) => {
                *slot = p;
                made += 1;
            }
            Err(_) => {
                shadow.clear();
                return Err(made);
            }
        }
    }
    *shadow = metas.to_vec();
    Ok(made)
}

/// Wrap a [`SuperChunk`] into a new public struct; `cparams`/`dparams` are what the storage
/// copy and the contexts get.
pub fn register(
    mut sc: SuperChunk,
    mut cparams: blosc2_cparams,
    mut dparams: blosc2_dparams,
    contiguous: bool,
    urlpath: Option<&str>,
    io: &blosc2_io,
) -> Result<*mut blosc2_schunk> {
    sc.set_generation(edition::GENERATION);
    // SAFETY: all-zero is a valid blosc2_schunk (integers 0, pointers NULL, bools false).
    let public = c_box(unsafe { std::mem::zeroed::<blosc2_schunk>() })?;
    cparams.schunk = public as *mut c_void;
    dparams.schunk = public as *mut c_void;
    let cctx = blosc2_create_cctx_impl(cparams);
    let dctx = blosc2_create_dctx_impl(dparams);
    if cctx.is_null() || dctx.is_null() {
        // SAFETY: each is NULL or a context just created here.
        unsafe {
            blosc2_free_ctx_impl(cctx);
            blosc2_free_ctx_impl(dctx);
        }
        c_free(public);
        return Err(Error::InvalidParam);
    }
    // Callbacks set in the parameters (prefilter, postfilter) run through the super-chunk's
    // own engines, with the public contexts as their `ctx`.
    // SAFETY: freshly created contexts (or NULL).
    if let Some(c) = unsafe { ctx_mut(cctx) } {
        if let Engine::Compress(comp) = &c.engine {
            sc.compressor().prefilter = comp.prefilter.clone();
            sc.compressor().tuner = comp.tuner.clone();
            sc.set_compress_call(comp.call.clone());
        }
    }
    // SAFETY: as above.
    if let Some(d) = unsafe { ctx_mut(dctx) } {
        if let Engine::Decompress(dec) = &d.engine {
            sc.decompressor().postfilter = dec.postfilter.clone();
            sc.set_decompress_call(dec.call.clone());
        }
    }
    let storage = match alloc_storage(contiguous, urlpath, cparams, dparams, io) {
        Ok(st) => st,
        Err(e) => {
            // SAFETY: contexts just created here, not published anywhere.
            unsafe {
                blosc2_free_ctx_impl(cctx);
                blosc2_free_ctx_impl(dctx);
            }
            c_free(public);
            return Err(e);
        }
    };
    // SAFETY: public is a valid, exclusively owned allocation.
    unsafe {
        (*public).storage = storage;
        (*public).cctx = cctx;
        (*public).dctx = dctx;
        (*public).tuner_params = cparams.tuner_params;
        (*public).tuner_id = cparams.tuner_id;
    }
    let mut h = Handle {
        sc,
        public,
        adopted: Vec::new(),
        meta_shadow: Vec::new(),
        vlmeta_shadow: Vec::new(),
        data_view: (0, 0),
        seen: Seen::default(),
        io_release: None,
    };
    // On failure dropping the handle frees everything made so far.
    h.sync()?;
    super::lazy_readers::publish(public as *const c_void, h.sc.decompressor().lazy.clone());
    table().write().unwrap_or_else(|e| e.into_inner()).insert(public as usize, Arc::new(Slot::new(h)));
    Ok(public)
}

