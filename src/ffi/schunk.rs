//! Super-chunks (`blosc2_schunk_*`): the C face of [`SuperChunk`].
//!
//! A `blosc2_schunk*` handed to C is a `calloc`ed public struct whose fields C code (and the
//! header's inline `blosc2_meta_exists`/`blosc2_meta_get`) read directly. The Rust state lives
//! in a [`Handle`] found through a side table keyed by that pointer, so an unknown or freed
//! pointer is an error code instead of a crash. After every operation [`Handle::sync`] copies
//! the current state back into the public struct (counters, parameters, metalayer arrays).

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use libc::{c_char, c_int, c_void};

use super::abi::*;
use super::abi::edition;
use super::boundary::{cstr, guard, slice, slice_mut, PANIC_CODE};
use super::context::{blosc2_create_cctx_impl, blosc2_create_dctx_impl, blosc2_free_ctx_impl, core_cparams, ctx_mut, Context, Engine};
use crate::chunk::header::{ChunkHeader, MIN_HEADER_LENGTH};
use crate::chunk::{DecompressParams, Special};
use crate::error::{Error, Result};
use crate::frame::header::Metalayer;
use crate::schunk::{ChunkEdit, Holder, StorageSpec, SuperChunk};

/// The Rust side of one `blosc2_schunk`.
pub struct Handle {
    pub sc: SuperChunk,
    public: *mut blosc2_schunk,
    /// Chunks handed over with `copy == false`: the reference keeps (and frees) them, so they
    /// stay valid for the caller until the super-chunk is freed.
    adopted: Vec<*mut u8>,
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

type Shared = Arc<Mutex<Handle>>;

/// Hashes the addresses that key the handle table: they are unique already, so one
/// multiply spreads them (SipHash cost a fifth of a small chunk's read).
#[derive(Default)]
struct AddrHasher(u64);

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

type AddrMap<V> = HashMap<usize, V, std::hash::BuildHasherDefault<AddrHasher>>;

fn table() -> &'static Mutex<AddrMap<Shared>> {
    static T: OnceLock<Mutex<AddrMap<Shared>>> = OnceLock::new();
    T.get_or_init(|| Mutex::new(AddrMap::default()))
}

fn lookup(schunk: *const blosc2_schunk) -> Option<Shared> {
    if schunk.is_null() {
        return None;
    }
    let t = table().lock().unwrap_or_else(|e| e.into_inner());
    t.get(&(schunk as usize)).cloned()
}

thread_local! {
    /// The handles this thread has locked right now. Code run under a handle's lock (an I/O
    /// backend's callbacks) that calls back into the same super-chunk gets an error instead
    /// of waiting for itself.
    static LOCKED_HERE: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// A handle locked by this thread (see [`lock`]).
struct Locked<'a> {
    guard: MutexGuard<'a, Handle>,
    key: usize,
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
        LOCKED_HERE.with(|l| {
            let mut l = l.borrow_mut();
            if let Some(i) = l.iter().rposition(|&k| k == self.key) {
                l.remove(i);
            }
        });
    }
}

/// Lock a handle; `BLOSC2_ERROR_LOCK` when this thread already holds it.
///
/// The lock is only ever held while the super-chunk's own state is read or changed: the
/// engines, which run user codecs, filters, prefilters, postfilters and the threads
/// callback, run with it released (see [`crate::schunk::Holder`]), so those callbacks may
/// use this super-chunk freely. Only I/O backend callbacks run under it.
fn lock(shared: &Shared) -> Result<Locked<'_>> {
    let key = Arc::as_ptr(shared) as usize;
    if LOCKED_HERE.with(|l| l.borrow().contains(&key)) {
        return Err(Error::Lock);
    }
    let mut guard = shared.lock().unwrap_or_else(|e| e.into_inner());
    LOCKED_HERE.with(|l| l.borrow_mut().push(key));
    guard.absorb();
    Ok(Locked { guard, key })
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

fn code_i64(r: Result<i64>) -> i64 {
    r.unwrap_or_else(|e| e.code() as i64)
}

fn code_int(r: Result<c_int>) -> c_int {
    r.unwrap_or_else(|e| e.code())
}

pub use super::cmem::malloc_copy;
use super::cmem::{c_box, c_free, c_realloc, c_strdup};

/// The public copy of a metalayer; nothing is left allocated when it fails.
fn alloc_metalayer(m: &Metalayer) -> Result<*mut blosc2_metalayer> {
    let name = c_strdup(&m.name)?;
    let content = malloc_copy(&m.content).inspect_err(|_| c_free(name))?;
    c_box(blosc2_metalayer { name, content, content_len: m.content.len() as i32 }).inspect_err(|_| {
        c_free(name);
        c_free(content);
    })
}

fn free_metalayer(p: *mut blosc2_metalayer) {
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
fn free_storage(st: *mut blosc2_storage) {
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
fn alloc_storage(
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
struct Seen {
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
fn context_id(ctx: *mut blosc2_context) -> u64 {
    // SAFETY: a context pointer in the public struct is NULL or a live context.
    unsafe { ctx_mut(ctx) }.map_or(0, |c| c.id)
}

impl Seen {
    fn of(s: &blosc2_schunk) -> Seen {
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
    fn absorb(&mut self) {
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
    fn storage(&self) -> Option<&blosc2_storage> {
        // SAFETY: public is live while the handle exists; storage is ours or NULL.
        unsafe { (*self.public).storage.as_ref() }
    }

    pub fn public(&self) -> *mut blosc2_schunk {
        self.public
    }

    /// Make room in the public `data` array of an in-memory super-chunk for one more chunk
    /// before a change that adds one, so that the array is never left shorter than `nchunks`
    /// says when it cannot grow (the change is refused instead). Called by the adding
    /// functions only: the array grows when the reference's does.
    fn reserve_chunk_address(&mut self) -> Result<()> {
        let Some((chunks, _)) = self.sc.memory_chunks() else { return Ok(()) };
        // SAFETY: public is live and exclusively ours under the handle lock.
        let s = unsafe { &mut *self.public };
        let needed = (chunks.len() + 1) * std::mem::size_of::<*mut u8>();
        if needed <= s.data_len {
            return Ok(());
        }
        let new_len = needed.div_ceil(DATA_PAGE) * DATA_PAGE;
        let grown = c_realloc(s.data as *mut u8, new_len) as *mut *mut u8;
        if grown.is_null() {
            return Err(Error::MemoryAlloc);
        }
        // The new slots stay unpublished (NULL) until the next sync fills them.
        // SAFETY: grown holds new_len bytes; the slots past the old length are ours to set.
        unsafe {
            std::ptr::write_bytes((grown as *mut u8).add(s.data_len), 0, new_len - s.data_len);
        }
        s.data = grown;
        s.data_len = new_len;
        Ok(())
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
            for slot in s.metalayers.iter_mut() {
                free_metalayer(std::mem::replace(slot, std::ptr::null_mut()));
            }
            let metas = sc.metalayers().to_vec();
            let made = publish_metalayers(&mut s.metalayers, &metas);
            s.nmetalayers = made as u16;
            if made == metas.len().min(BLOSC2_MAX_METALAYERS) {
                self.meta_shadow = metas;
            } else {
                // Published in part: the next sync tries again.
                self.meta_shadow.clear();
                failed = true;
            }
        }
        if vl_changed {
            for slot in s.vlmetalayers.iter_mut() {
                free_metalayer(std::mem::replace(slot, std::ptr::null_mut()));
            }
            let vls = sc.vlmetalayers_raw().to_vec();
            let made = publish_metalayers(&mut s.vlmetalayers, &vls);
            s.nvlmetalayers = made as i16;
            if made == vls.len().min(BLOSC2_MAX_VLMETALAYERS) {
                self.vlmeta_shadow = vls;
            } else {
                self.vlmeta_shadow.clear();
                failed = true;
            }
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
const DATA_PAGE: usize = 4096;

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
fn publish_chunk_addresses(
    s: &mut blosc2_schunk,
    chunks: &[Arc<[u8]>],
    (edits, last): (u64, ChunkEdit),
    view: &mut (usize, u64),
) -> bool {
    let ptr_size = std::mem::size_of::<*mut u8>();
    let needed = chunks.len() * ptr_size;
    if needed > s.data_len {
        let new_len = needed.div_ceil(DATA_PAGE).max(1) * DATA_PAGE;
        let grown = c_realloc(s.data as *mut u8, new_len) as *mut *mut u8;
        if grown.is_null() {
            return false;
        }
        s.data = grown;
        s.data_len = new_len;
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
    for (slot, chunk) in slots[start..chunks.len()].iter_mut().zip(&chunks[start..]) {
        // C only reads through these; the chunks stay owned (and freed) by the super-chunk.
        *slot = chunk.as_ptr() as *mut u8;
    }
    for slot in &mut slots[chunks.len()..view.0.max(chunks.len()).min(capacity)] {
        *slot = std::ptr::null_mut();
    }
    *view = (chunks.len(), edits);
    true
}

/// Publish `metas` into the public `slots`, freeing what was there; how many were made (all
/// that fit, or fewer when an allocation failed).
fn publish_metalayers(slots: &mut [*mut blosc2_metalayer], metas: &[Metalayer]) -> usize {
    let mut made = 0;
    for (slot, m) in slots.iter_mut().zip(metas) {
        match alloc_metalayer(m) {
            Ok(p) => {
                *slot = p;
                made += 1;
            }
            Err(_) => break,
        }
    }
    made
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
    table().lock().unwrap_or_else(|e| e.into_inner()).insert(public as usize, Arc::new(Mutex::new(h)));
    Ok(public)
}

/// Parameters of a new super-chunk as given in a storage (defaults for NULL pointers).
///
/// # Safety
/// `storage` is NULL or valid, with valid (or NULL) nested pointers.
unsafe fn storage_params(storage: *const blosc2_storage) -> (blosc2_storage, blosc2_cparams, blosc2_dparams, blosc2_io) {
    // SAFETY: per contract.
    let st = unsafe { storage.as_ref() }.copied().unwrap_or(BLOSC2_STORAGE_DEFAULTS);
    // SAFETY: per contract.
    let cp = unsafe { st.cparams.as_ref() }.copied().unwrap_or(BLOSC2_CPARAMS_DEFAULTS);
    // SAFETY: per contract.
    let dp = unsafe { st.dparams.as_ref() }.copied().unwrap_or(BLOSC2_DPARAMS_DEFAULTS);
    // SAFETY: per contract.
    let io = unsafe { st.io.as_ref() }.copied().unwrap_or(BLOSC2_IO_DEFAULTS);
    (st, cp, dp, io)
}

fn core_dparams(dp: &blosc2_dparams, typesize: i32) -> DecompressParams {
    DecompressParams { nthreads: dp.nthreads.max(1), typesize }
}

/// The user I/O backends are provided by `ffi::frame`; this resolves what `new` needs.
pub fn new_impl(storage: *const blosc2_storage) -> Result<*mut blosc2_schunk> {
    // SAFETY: per the API contract of blosc2_schunk_new.
    let (st, mut cp, dp, io) = unsafe { storage_params(storage) };
    // SAFETY: urlpath is NULL or a C string.
    let url = unsafe { cstr(st.urlpath) }.map(|u| super::urlpath::local_path(u).to_owned());
    if cp.nthreads <= 0 {
        cp.nthreads = 1;
    }
    // BTUNE_TRADEOFF (any value) asks for the BTune tuner, as in the reference; without its
    // plugin installed, creating the super-chunk then fails.
    if crate::settings::Vars::var(&crate::settings::ProcessVars, "BTUNE_TRADEOFF").is_some() {
        cp.tuner_id = BLOSC_BTUNE;
    }
    // The reference builds the super-chunk's compression context first and gives up when
    // that fails (unknown tuner, undefined filter ids).
    if !super::context::cparams_acceptable(&cp) {
        return Err(Error::InvalidParam);
    }
    let spec = StorageSpec { contiguous: st.contiguous, urlpath: url.as_ref().map(PathBuf::from) };
    if io.id as c_int != BLOSC2_IO_FILESYSTEM && url.is_some() {
        let (sc, release) = super::frame::new_with_io(&cp, &dp, &spec, &io)?;
        let p = register(sc, cp, dp, st.contiguous, url.as_deref(), &io)?;
        with_handle(p, |h| h.io_release = release);
        return Ok(p);
    }
    let mut sc = SuperChunk::new(core_cparams(&cp), core_dparams(&dp, cp.typesize), &spec)?;
    if super::stdio::locking_requested(&io) {
        sc.enable_locking();
    }
    register(sc, cp, dp, st.contiguous, url.as_deref(), &io)
}

/// Create a new super-chunk described by `storage` (NULL means the defaults).
///
/// # Safety
/// `storage` is NULL or a valid `blosc2_storage` whose pointers are valid or NULL.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_new(storage: *mut blosc2_storage) -> *mut blosc2_schunk {
    guard(std::ptr::null_mut(), || new_impl(storage).unwrap_or(std::ptr::null_mut()))
}

/// Release a super-chunk (on-disk data stays).
///
/// # Safety
/// `schunk` is NULL or a live super-chunk; it must not be used afterwards.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_free(schunk: *mut blosc2_schunk) -> c_int {
    guard(PANIC_CODE, || free_schunk(schunk))
}

/// Release the super-chunk behind `schunk` (0), or say why not (an unknown pointer, or one
/// this thread holds locked right now).
pub fn free_schunk(schunk: *mut blosc2_schunk) -> c_int {
    if schunk.is_null() {
        return 0;
    }
    if let Some(shared) = lookup(schunk) {
        // Freeing from a callback run under this very handle's lock cannot wait for it.
        if let Err(e) = lock(&shared) {
            return e.code();
        }
    }
    let removed = table().lock().unwrap_or_else(|e| e.into_inner()).remove(&(schunk as usize));
    match removed {
        Some(shared) => {
            super::lazy_readers::withdraw(schunk as *const c_void);
            // Wait for a concurrent user, then drop the handle (frees the public struct).
            drop(shared.lock().unwrap_or_else(|e| e.into_inner()));
            drop(shared);
            0
        }
        None => Error::NullPointer.code(),
    }
}

/// Read a chunk of unknown length from C: 16 header bytes first, then `cbytes`.
///
/// # Safety
/// `chunk` is NULL or points to a chunk whose header's `cbytes` bytes are readable.
unsafe fn chunk_from_c<'a>(chunk: *const u8) -> Result<&'a [u8]> {
    if chunk.is_null() {
        return Err(Error::NullPointer);
    }
    // SAFETY: every chunk has at least a 16-byte header.
    let head = unsafe { slice(chunk, MIN_HEADER_LENGTH) };
    let h = ChunkHeader::read_min(head)?;
    if (h.cbytes as usize) < MIN_HEADER_LENGTH {
        return Err(Error::ReadBuffer);
    }
    // SAFETY: the chunk holds cbytes bytes per contract.
    Ok(unsafe { slice(chunk, h.cbytes as usize) })
}

/// Append a compressed chunk; returns the new number of chunks.
///
/// # Safety
/// `schunk` live; `chunk` a valid compressed chunk. With `copy == false` the chunk must be
/// heap-allocated (`malloc`): the super-chunk takes ownership and frees it.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_append_chunk(schunk: *mut blosc2_schunk, chunk: *mut u8, copy: bool) -> i64 {
    guard(PANIC_CODE as i64, || {
        code_i64(with(schunk, |h| {
            // SAFETY: per contract.
            let c = unsafe { chunk_from_c(chunk) }?;
            h.reserve_chunk_address()?;
            h.sc.set_current_nchunk(h.sc.nchunks());
            let n = h.sc.append_chunk(c)?;
            if !copy {
                h.adopted.push(chunk);
            }
            Ok(n)
        }))
    })
}

/// Insert a compressed chunk before chunk `nchunk`.
///
/// # Safety
/// As `blosc2_schunk_append_chunk`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_insert_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut u8,
    copy: bool,
) -> i64 {
    guard(PANIC_CODE as i64, || {
        code_i64(with(schunk, |h| {
            // SAFETY: per contract.
            let c = unsafe { chunk_from_c(chunk) }?;
            if nchunk < 0 || nchunk > h.sc.nchunks() {
                return Err(Error::InvalidParam);
            }
            h.reserve_chunk_address()?;
            let n = h.sc.insert_chunk(nchunk, c)?;
            h.sc.set_current_nchunk(nchunk);
            if !copy {
                h.adopted.push(chunk);
            }
            Ok(n)
        }))
    })
}

/// Replace chunk `nchunk`.
///
/// # Safety
/// As `blosc2_schunk_append_chunk`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_update_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut u8,
    copy: bool,
) -> i64 {
    guard(PANIC_CODE as i64, || {
        code_i64(with(schunk, |h| {
            // SAFETY: per contract.
            let c = unsafe { chunk_from_c(chunk) }?;
            if nchunk < 0 || nchunk >= h.sc.nchunks() {
                return Err(Error::InvalidParam);
            }
            let n = h.sc.update_chunk(nchunk, c)?;
            h.sc.set_current_nchunk(nchunk);
            if !copy {
                h.adopted.push(chunk);
            }
            Ok(n)
        }))
    })
}

/// Remove chunk `nchunk`; returns the new number of chunks.
///
/// # Safety
/// `schunk` live.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_delete_chunk(schunk: *mut blosc2_schunk, nchunk: i64) -> i64 {
    guard(PANIC_CODE as i64, || {
        code_i64(with(schunk, |h| {
            if nchunk < 0 || nchunk >= h.sc.nchunks() {
                return Err(Error::InvalidParam);
            }
            let n = h.sc.delete_chunk(nchunk)?;
            h.sc.set_current_nchunk(nchunk);
            Ok(n)
        }))
    })
}

/// Compress `nbytes` bytes of `src` and append them as a new chunk.
///
/// # Safety
/// `schunk` live; `src` readable for `nbytes` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_append_buffer(schunk: *mut blosc2_schunk, src: *const c_void, nbytes: i32) -> i64 {
    guard(PANIC_CODE as i64, || {
        code_i64((|| {
            let sc = released(schunk)?;
            if nbytes < 0 {
                // A negative size reads as a huge one there.
                return Err(Error::MaxBufsizeExceeded);
            }
            if src.is_null() && nbytes > 0 {
                return Err(Error::NullPointer);
            }
            // SAFETY: readable for nbytes per contract.
            let s = unsafe { slice(src as *const u8, nbytes as usize) };
            with(schunk, |h| h.reserve_chunk_address())?;
            // The codecs, filters and prefilter run with the handle released.
            let n = crate::schunk::append_buffer_in(&sc, s)?;
            with(schunk, |h| {
                h.sc.set_current_nchunk(n - 1);
                Ok(n)
            })
        })())
    })
}

/// Decompress chunk `nchunk` into `dest` (`nbytes` bytes); returns the decompressed size.
///
/// # Safety
/// `schunk` live; `dest` writable for `nbytes` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_decompress_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    dest: *mut c_void,
    nbytes: i32,
) -> c_int {
    guard(PANIC_CODE, || {
        code_int((|| {
            let sc = released(schunk)?;
            if nbytes < 0 {
                // Checked after the chunk number (below) in the reference's order.
                sc.hold(|s| if nchunk < 0 || nchunk >= s.nchunks() { Err(Error::InvalidParam) } else { Ok(()) })?;
                return Err(Error::InvalidParam);
            }
            if dest.is_null() {
                sc.hold(|s| if nchunk < 0 || nchunk >= s.nchunks() { Err(Error::InvalidParam) } else { Ok(()) })?;
                return Err(Error::NullPointer);
            }
            // SAFETY: writable for nbytes per contract.
            let d = unsafe { slice_mut(dest as *mut u8, nbytes as usize) };
            // The codecs, filters and postfilter run with the handle released; on success
            // the core records the chunk as the current one.
            match crate::schunk::decompress_chunk_in(&sc, nchunk, d) {
                // Separate chunks go through the chunk API, which says INVALID_PARAM here.
                Err(Error::WriteBuffer) if sc.hold(|s| Ok(s.frame_kind().is_none()))? => Err(Error::InvalidParam),
                r => r.map(|n| n as c_int),
            }
        })())
    })
}

/// Hand a chunk to C: a pointer into our storage when borrowed, else a `malloc`ed copy.
///
/// # Safety
/// `chunk` and `needs_free` writable.
unsafe fn hand_out(c: Cow<'_, [u8]>, chunk: *mut *mut u8, needs_free: *mut bool) -> Result<c_int> {
    let len = c.len() as c_int;
    let (p, nf) = match c {
        Cow::Borrowed(b) => (b.as_ptr() as *mut u8, false),
        Cow::Owned(v) => (malloc_copy(&v)?, true),
    };
    // SAFETY: writable per contract.
    unsafe {
        *chunk = p;
        *needs_free = nf;
    }
    Ok(len)
}

/// Get compressed chunk `nchunk`; returns its size.
///
/// # Safety
/// `schunk` live; `chunk` and `needs_free` writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut *mut u8,
    needs_free: *mut bool,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { get_chunk_with(schunk, nchunk, chunk, needs_free, false) }
}

/// Get chunk `nchunk` as a lazy chunk (on-disk frames) or the chunk itself.
///
/// # Safety
/// As `blosc2_schunk_get_chunk`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_lazychunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut *mut u8,
    needs_free: *mut bool,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { get_chunk_with(schunk, nchunk, chunk, needs_free, true) }
}

/// Shared body of `blosc2_schunk_get_chunk` and `_get_lazychunk`.
///
/// # Safety
/// `schunk` live; `chunk` and `needs_free` writable.
unsafe fn get_chunk_with(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut *mut u8,
    needs_free: *mut bool,
    lazy: bool,
) -> c_int {
    guard(PANIC_CODE, || {
        code_int(with(schunk, |h| {
            if chunk.is_null() || needs_free.is_null() {
                return Err(Error::NullPointer);
            }
            if nchunk < 0 || nchunk >= h.sc.nchunks() {
                return Err(Error::InvalidParam);
            }
            let c = if lazy { h.sc.get_lazy_chunk(nchunk)? } else { h.sc.get_chunk(nchunk)? };
            // SAFETY: per contract.
            unsafe { hand_out(c, chunk, needs_free) }
        }))
    })
}

/// Decompress VL block `nblock` of chunk `nchunk` into a new `malloc`ed buffer.
///
/// # Safety
/// `schunk` live; `dest` and `destsize` writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_vlblock(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    nblock: i32,
    dest: *mut *mut u8,
    destsize: *mut i32,
) -> c_int {
    guard(PANIC_CODE, || {
        code_int((|| {
            if schunk.is_null() || dest.is_null() || destsize.is_null() {
                return Err(Error::InvalidParam);
            }
            let block = crate::schunk::vlblock_in(&released(schunk)?, nchunk, nblock)?;
            let p = malloc_copy(&block)?;
            // SAFETY: writable per contract.
            unsafe {
                *dest = p;
                *destsize = block.len() as i32;
            }
            Ok(block.len() as c_int)
        })())
    })
}

/// Items `start..stop` decompressed into `buffer`.
///
/// # Safety
/// `schunk` live; `buffer` writable for `(stop - start) * typesize` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_slice_buffer(
    schunk: *mut blosc2_schunk,
    start: i64,
    stop: i64,
    buffer: *mut c_void,
) -> c_int {
    guard(PANIC_CODE, || {
        code_int((|| {
            let sc = released(schunk)?;
            // A negative start finds no chunk there: FAILURE.
            let n = sc.hold(|s| slice_len(s, start, stop)).map_err(|e| if start < 0 { Error::Failure } else { e })?;
            let Some(n) = n else { return Ok(0) };
            if buffer.is_null() && n > 0 {
                return Err(Error::NullPointer);
            }
            // SAFETY: writable for n bytes per contract.
            let d = unsafe { slice_mut(buffer as *mut u8, n) };
            crate::schunk::get_slice_in(&sc, start, stop, d)?;
            Ok(0)
        })())
    })
}

/// Bytes of the slice `start..stop`; `None` for an inverted range, which the reference
/// treats as empty (nothing read or written, success).
fn slice_len(sc: &SuperChunk, start: i64, stop: i64) -> Result<Option<usize>> {
    let ts = sc.typesize() as i64;
    if start < 0 {
        return Err(Error::InvalidParam);
    }
    if stop < start {
        return Ok(None);
    }
    if stop * ts > sc.nbytes() {
        // What the reference reports for a slice past the end.
        return Err(Error::Failure);
    }
    usize::try_from((stop - start) * ts).map(Some).map_err(|_| Error::InvalidParam)
}

/// Overwrite items `start..stop` with `buffer`.
///
/// # Safety
/// `schunk` live; `buffer` readable for `(stop - start) * typesize` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_set_slice_buffer(
    schunk: *mut blosc2_schunk,
    start: i64,
    stop: i64,
    buffer: *mut c_void,
) -> c_int {
    guard(PANIC_CODE, || {
        code_int((|| {
            let sc = released(schunk)?;
            let n = sc.hold(|s| slice_len(s, start, stop))?;
            let Some(n) = n else { return Ok(0) };
            if buffer.is_null() && n > 0 {
                return Err(Error::NullPointer);
            }
            // SAFETY: readable for n bytes per contract.
            let s = unsafe { slice(buffer as *const u8, n) };
            crate::schunk::set_slice_in(&sc, start, stop, s)?;
            with(schunk, |h| {
                // The reference leaves the last chunk it rewrote as the current one.
                let cs = h.sc.chunksize() as i64;
                if stop > start && cs > 0 {
                    h.sc.set_current_nchunk(((stop * h.sc.typesize() as i64) - 1) / cs);
                }
                Ok(0)
            })
        })())
    })
}

/// Items at `coords[0..ncoords]` gathered into `buffer`, in parallel on the decompression
/// thread count when nothing needs the items one by one (as the reference).
///
/// # Safety
/// `schunk` live; `coords` readable for `ncoords` items; `buffer` writable for
/// `ncoords * typesize` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_sparse_buffer(
    schunk: *mut blosc2_schunk,
    ncoords: i64,
    coords: *const i64,
    buffer: *mut c_void,
) -> c_int {
    guard(PANIC_CODE, || {
        code_int((|| {
            // The reference reports every bad argument as INVALID_PARAM here.
            let sc = released(schunk).map_err(|_| Error::InvalidParam)?;
            if ncoords < 0 {
                return Err(Error::InvalidParam);
            }
            if ncoords == 0 {
                return Ok(0);
            }
            if coords.is_null() || buffer.is_null() {
                return Err(Error::InvalidParam);
            }
            let ts = sc.hold(|s| Ok(s.typesize().max(0) as usize))?;
            let n = usize::try_from(ncoords).map_err(|_| Error::InvalidParam)?;
            // SAFETY: readable for ncoords items per contract.
            let cs = unsafe { std::slice::from_raw_parts(coords, n) };
            // SAFETY: writable for ncoords * typesize bytes per contract.
            let out = unsafe { slice_mut(buffer as *mut u8, n * ts) };
            crate::schunk::get_sparse_in(&sc, cs, out)?;
            Ok(0)
        })())
    })
}

/// A `malloc`ed copy of the compression parameters.
///
/// # Safety
/// `schunk` live; `cparams` writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_cparams(schunk: *mut blosc2_schunk, cparams: *mut *mut blosc2_cparams) -> c_int {
    guard(PANIC_CODE, || {
        code_int(with(schunk, |h| {
            if cparams.is_null() {
                return Err(Error::NullPointer);
            }
            let p = h.sc.cparams().clone();
            let mut cp = BLOSC2_CPARAMS_DEFAULTS;
            cp.compcode = p.compcode;
            cp.compcode_meta = p.compcode_meta;
            cp.clevel = p.clevel;
            cp.use_dict = p.use_dict as c_int;
            cp.typesize = p.typesize;
            cp.blocksize = p.blocksize;
            cp.splitmode = p.splitmode;
            cp.filters = p.filters;
            cp.filters_meta = p.filters_meta;
            cp.schunk = h.public as *mut c_void;
            if let Some(st) = h.storage() {
                // SAFETY: our own copy.
                if let Some(s) = unsafe { st.cparams.as_ref() } {
                    cp.nthreads = s.nthreads;
                    cp.tuner_id = s.tuner_id;
                    cp.tuner_params = s.tuner_params;
                    cp.codec_params = s.codec_params;
                    cp.filter_params = s.filter_params;
                }
            }
            let out = c_box(cp)?;
            // SAFETY: writable per contract.
            unsafe { *cparams = out };
            Ok(0)
        }))
    })
}

/// A `malloc`ed copy of the decompression parameters.
///
/// # Safety
/// `schunk` live; `dparams` writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_dparams(schunk: *mut blosc2_schunk, dparams: *mut *mut blosc2_dparams) -> c_int {
    guard(PANIC_CODE, || {
        code_int(with(schunk, |h| {
            if dparams.is_null() {
                return Err(Error::NullPointer);
            }
            // The reference fills in the thread count and the owner only.
            // SAFETY: all-zero is a valid blosc2_dparams.
            let mut dp: blosc2_dparams = unsafe { std::mem::zeroed() };
            dp.nthreads = h.sc.dparams().nthreads;
            dp.schunk = h.public as *mut c_void;
            let out = c_box(dp)?;
            // SAFETY: writable per contract.
            unsafe { *dparams = out };
            Ok(0)
        }))
    })
}

/// Reorder chunks: new chunk `i` is old chunk `offsets_order[i]`.
///
/// # Safety
/// `schunk` live; `offsets_order` readable for `nchunks` items.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_reorder_offsets(schunk: *mut blosc2_schunk, offsets_order: *mut i64) -> c_int {
    guard(PANIC_CODE, || {
        code_int(with(schunk, |h| {
            if offsets_order.is_null() {
                return Err(Error::NullPointer);
            }
            let n = h.sc.nchunks() as usize;
            // SAFETY: readable for nchunks items per contract.
            let order = unsafe { std::slice::from_raw_parts(offsets_order, n) }.to_vec();
            h.sc.reorder_offsets(&order)?;
            Ok(0)
        }))
    })
}

/// Length of the frame (for separate chunks, an estimate: data plus an 8-byte index entry
/// per chunk, as the reference says).
///
/// # Safety
/// `schunk` live.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_frame_len(schunk: *mut blosc2_schunk) -> i64 {
    guard(PANIC_CODE as i64, || {
        code_i64(with(schunk, |h| Ok(h.sc.frame_len().unwrap_or_else(|| h.sc.cbytes() + 8 * h.sc.nchunks()))))
    })
}

/// Fill an empty super-chunk with `nitems` items of a special value.
///
/// # Safety
/// `schunk` live.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_fill_special(
    schunk: *mut blosc2_schunk,
    nitems: i64,
    special_value: c_int,
    chunksize: i32,
) -> i64 {
    guard(PANIC_CODE as i64, || {
        code_i64(with(schunk, |h| {
            if nitems != 0 && (h.sc.nbytes() > 0 || h.sc.cbytes() > 0) {
                // Only an empty super-chunk can be filled (checked first, as the reference).
                return Err(Error::FrameSpecial);
            }
            let kind = match special_value {
                BLOSC2_SPECIAL_ZERO => Special::Zero,
                BLOSC2_SPECIAL_NAN => Special::Nan,
                BLOSC2_SPECIAL_UNINIT => Special::Uninit,
                _ => return Err(Error::SchunkSpecial),
            };
            h.sc.fill_special(nitems, kind, chunksize)
        }))
    })
}

/// The super-chunk as a contiguous frame: a pointer into an in-memory frame
/// (`*needs_free = false`) or a new `malloc`ed buffer.
///
/// # Safety
/// `schunk` live; `cframe` and `needs_free` writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_to_buffer(
    schunk: *mut blosc2_schunk,
    cframe: *mut *mut u8,
    needs_free: *mut bool,
) -> i64 {
    // SAFETY: per contract.
    guard(PANIC_CODE as i64, || code_i64(unsafe { to_buffer_impl(schunk, cframe, needs_free) }))
}

/// See `blosc2_schunk_to_buffer`.
///
/// # Safety
/// `cframe` and `needs_free` NULL or writable.
pub unsafe fn to_buffer_impl(schunk: *mut blosc2_schunk, cframe: *mut *mut u8, needs_free: *mut bool) -> Result<i64> {
    with(schunk, |h| {
        if cframe.is_null() || needs_free.is_null() {
            return Err(Error::NullPointer);
        }
        let b = h.sc.to_buffer()?;
        // SAFETY: per contract.
        unsafe { hand_out(b, cframe, needs_free) }.map(|n| n as i64)
    })
}

/// Write the super-chunk as a contiguous frame file (which must not exist yet).
///
/// # Safety
/// `schunk` live; `urlpath` a C string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_to_file(schunk: *mut blosc2_schunk, urlpath: *const c_char) -> i64 {
    guard(PANIC_CODE as i64, || {
        // SAFETY: per contract.
        let Some(p) = (unsafe { cstr(urlpath) }) else { return Error::InvalidParam.code() as i64 };
        let r = with(schunk, |h| {
            // An in-memory frame is written out as is (replacing a file), through the
            // super-chunk's I/O backend; anything else is copied into a new frame file, which
            // must not exist yet (as the reference does). Only the copy, like any new
            // super-chunk, drops a `file:///` prefix.
            let in_memory = matches!(h.sc.frame_kind(), Some(crate::frame::FrameKind::Contiguous { path: None }));
            if let Some(io) = user_io(h).filter(|_| in_memory) {
                return Ok(Err((h.sc.to_buffer()?.into_owned(), io)));
            }
            let p = std::path::Path::new(if in_memory { p } else { super::urlpath::local_path(p) });
            if p.exists() && !in_memory {
                return Err(Error::SchunkCopy);
            }
            h.sc.to_file(p).map(Ok)
        });
        // User callbacks run after the handle is released.
        code_i64(r.and_then(|r| r.or_else(|(bytes, io)| super::frame::write_frame_via(&io, p, &bytes, false))))
    })
}

/// Append the super-chunk as a contiguous frame to a file; returns the frame's offset.
///
/// # Safety
/// `schunk` live; `urlpath` a C string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_append_file(schunk: *mut blosc2_schunk, urlpath: *const c_char) -> i64 {
    // SAFETY: per contract.
    guard(PANIC_CODE as i64, || code_i64(unsafe { append_file_impl(schunk, urlpath) }))
}

/// See `blosc2_schunk_append_file`.
///
/// # Safety
/// `urlpath` NULL or a C string.
pub unsafe fn append_file_impl(schunk: *mut blosc2_schunk, urlpath: *const c_char) -> Result<i64> {
    // SAFETY: per contract.
    let Some(p) = (unsafe { cstr(urlpath) }) else { return Err(Error::InvalidParam) };
    let r = with(schunk, |h| match user_io(h) {
        Some(io) => Ok(Err((h.sc.to_buffer()?.into_owned(), io))),
        None => h.sc.append_file(std::path::Path::new(p)).map(Ok),
    });
    // User callbacks run after the handle is released.
    r.and_then(|r| r.or_else(|(bytes, io)| super::frame::write_frame_via(&io, p, &bytes, true)))
}

/// The super-chunk's I/O backend when it is not the default filesystem one (the reference
/// writes `to_file`/`append_file` output of in-memory frames through it).
fn user_io(h: &Handle) -> Option<blosc2_io> {
    // SAFETY: the storage's io is NULL or our own copy.
    let io = unsafe { h.storage()?.io.as_ref() }.copied()?;
    (io.id as c_int != BLOSC2_IO_FILESYSTEM).then_some(io)
}

/// Parameters the reference gives a super-chunk opened from a frame.
fn opened_params(sc: &SuperChunk) -> (blosc2_cparams, blosc2_dparams) {
    let p = sc.cparams();
    let mut cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.compcode = p.compcode;
    cp.compcode_meta = p.compcode_meta;
    cp.clevel = p.clevel;
    cp.use_dict = p.use_dict as c_int;
    cp.typesize = p.typesize;
    cp.blocksize = p.blocksize;
    cp.splitmode = p.splitmode;
    cp.filters = p.filters;
    cp.filters_meta = p.filters_meta;
    cp.nthreads = 1;
    (cp, BLOSC2_DPARAMS_DEFAULTS)
}

/// Register a super-chunk opened from a frame.
pub fn register_opened(sc: SuperChunk, contiguous: bool, urlpath: Option<&str>, io: &blosc2_io) -> Result<*mut blosc2_schunk> {
    let (cp, dp) = opened_params(&sc);
    register(sc, cp, dp, contiguous, urlpath, io)
}

pub fn open_impl(urlpath: *const c_char, offset: i64) -> Result<*mut blosc2_schunk> {
    // SAFETY: per the API contract.
    let p = unsafe { cstr(urlpath) }.ok_or(Error::NullPointer)?;
    if offset < 0 {
        return Err(Error::InvalidParam);
    }
    open_filesystem(p, offset, &BLOSC2_IO_DEFAULTS)
}

/// Open a frame through the default filesystem backend, with locking when `io` (or the
/// environment) asks for it. `p` is the urlpath as given (recorded in the public storage,
/// as the reference does); a `file:///` prefix is dropped to reach the file.
pub fn open_filesystem(p: &str, offset: i64, io: &blosc2_io) -> Result<*mut blosc2_schunk> {
    let path = std::path::Path::new(super::urlpath::local_path(p));
    let sc = if super::stdio::locking_requested(io) {
        SuperChunk::open_locking(path, offset as u64)?
    } else {
        SuperChunk::open(path, offset as u64)?
    };
    let contiguous = !path.is_dir();
    register_opened(sc, contiguous, Some(p), io)
}

/// Open the super-chunk stored at `urlpath` (contiguous file or sparse directory).
///
/// # Safety
/// `urlpath` NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_open(urlpath: *const c_char) -> *mut blosc2_schunk {
    guard(std::ptr::null_mut(), || open_impl(urlpath, 0).unwrap_or(std::ptr::null_mut()))
}

/// Open the contiguous frame starting at byte `offset` of the file `urlpath`.
///
/// # Safety
/// `urlpath` NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_open_offset(urlpath: *const c_char, offset: i64) -> *mut blosc2_schunk {
    guard(std::ptr::null_mut(), || open_impl(urlpath, offset).unwrap_or(std::ptr::null_mut()))
}

pub fn from_buffer_impl(cframe: *mut u8, len: i64, copy: bool) -> Result<*mut blosc2_schunk> {
    if cframe.is_null() {
        return Err(Error::NullPointer);
    }
    if len <= 0 {
        return Err(Error::InvalidParam);
    }
    let len = usize::try_from(len).map_err(|_| Error::InvalidParam)?;
    // SAFETY: readable for len bytes per contract.
    let bytes = unsafe { slice(cframe, len) };
    if copy {
        let sc = SuperChunk::from_buffer_copy(bytes)?;
        register_opened(sc, false, None, &BLOSC2_IO_DEFAULTS)
    } else {
        // The frame is copied into our own buffer; the caller's buffer is left alone (the
        // reference does not free it either).
        let sc = SuperChunk::from_frame_vec(bytes.to_vec())?;
        register_opened(sc, true, None, &BLOSC2_IO_DEFAULTS)
    }
}

/// Open a super-chunk from a contiguous frame in memory.
///
/// # Safety
/// `cframe` readable for `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_from_buffer(cframe: *mut u8, len: i64, copy: bool) -> *mut blosc2_schunk {
    guard(std::ptr::null_mut(), || from_buffer_impl(cframe, len, copy).unwrap_or(std::ptr::null_mut()))
}

/// Whether the frame buffer given to `blosc2_schunk_from_buffer` is freed with the
/// super-chunk. Frames are always copied here, so the caller's buffer is never freed by us.
///
/// # Safety
/// `schunk` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_avoid_cframe_free(schunk: *mut blosc2_schunk, avoid_cframe_free: bool) {
    guard((), || {
        let _ = (schunk, avoid_cframe_free);
    })
}

pub fn copy_impl(schunk: *mut blosc2_schunk, storage: *const blosc2_storage) -> Result<*mut blosc2_schunk> {
    if storage.is_null() {
        return Err(Error::NullPointer);
    }
    // SAFETY: per the API contract.
    let (st, given_cp, dp, io) = unsafe { storage_params(storage) };
    // SAFETY: urlpath is NULL or a C string.
    let url = unsafe { cstr(st.urlpath) }.map(|u| super::urlpath::local_path(u).to_owned());
    let spec = StorageSpec { contiguous: st.contiguous, urlpath: url.as_ref().map(PathBuf::from) };
    if st.cparams.is_null() {
        // Same parameters as the source.
        // The copy has the storage's decompression parameters (the defaults when NULL); the
        // source is released while chunks are copied.
        let sc = crate::schunk::copy_to_in(&released(schunk)?, &spec, None, core_dparams(&dp, 0))?;
        let mut cp = opened_params(&sc).0;
        // The reference's copy carries its block size and no compression thread count.
        cp.blocksize = sc.cparams().blocksize;
        cp.nthreads = sc.cparams().nthreads;
        return register_copy(sc, cp, dp, &st, url.as_deref(), &io);
    }
    let mut cp = given_cp;
    if cp.nthreads <= 0 {
        cp.nthreads = 1;
    }
    // Recompressing runs the codecs and the postfilter, with the source released.
    let dparams = core_dparams(&dp, cp.typesize);
    let sc = crate::schunk::copy_to_in(&released(schunk)?, &spec, Some(core_cparams(&cp)), dparams)?;
    register_copy(sc, cp, dp, &st, url.as_deref(), &io)
}

/// Register a copy; it added each metalayer and chunk in turn, and its counters say so as
/// the reference's do.
fn register_copy(
    sc: SuperChunk,
    cp: blosc2_cparams,
    dp: blosc2_dparams,
    st: &blosc2_storage,
    url: Option<&str>,
    io: &blosc2_io,
) -> Result<*mut blosc2_schunk> {
    let (nmeta, nvl, nchunks) = (sc.metalayers().len(), sc.vlmetalayers_raw().len(), sc.nchunks());
    let p = register(sc, cp, dp, st.contiguous, url, io)?;
    with_handle(p, |h| {
        h.sc.set_meta_changes((nmeta + nvl) as i64);
        h.sc.set_current_nchunk((nchunks - 1).max(0));
    });
    Ok(p)
}

/// Copy a super-chunk into new storage.
///
/// # Safety
/// `schunk` live; `storage` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_copy(schunk: *mut blosc2_schunk, storage: *mut blosc2_storage) -> *mut blosc2_schunk {
    guard(std::ptr::null_mut(), || copy_impl(schunk, storage).unwrap_or(std::ptr::null_mut()))
}

/// The index entries of a frame-backed super-chunk as a `malloc`ed array of `nchunks`
/// values; NULL for separate chunks.
///
/// # Safety
/// `schunk` live.
#[no_mangle]
pub unsafe extern "C" fn blosc2_frame_get_offsets(schunk: *mut blosc2_schunk) -> *mut i64 {
    guard(std::ptr::null_mut(), || {
        with(schunk, |h| {
            let f = h.sc.frame_mut().ok_or(Error::InvalidParam)?;
            let bytes: Vec<u8> = f.offsets().iter().flat_map(|o| o.to_le_bytes()).collect();
            Ok(malloc_copy(&bytes)? as *mut i64)
        })
        .unwrap_or(std::ptr::null_mut())
    })
}

/// Indexes of the chunks holding items `start[0]..stop[0]` (one-dimensional super-chunks),
/// in a `malloc`ed array; returns how many.
///
/// # Safety
/// `schunk` live; `start`, `stop` readable; `chunks_idx` writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_get_slice_nchunks(
    schunk: *mut blosc2_schunk,
    start: *mut i64,
    stop: *mut i64,
    chunks_idx: *mut *mut i64,
) -> i64 {
    guard(PANIC_CODE as i64, || {
        code_i64(with(schunk, |h| {
            if start.is_null() || stop.is_null() || chunks_idx.is_null() {
                return Err(Error::NullPointer);
            }
            // SAFETY: readable per contract.
            let (b, e) = unsafe { (*start, *stop) };
            let Some(range) = h.sc.slice_chunks(b, e)? else {
                // No chunks, whatever the range: none, and no array (as the reference).
                // SAFETY: writable per contract.
                unsafe { *chunks_idx = std::ptr::null_mut() };
                return Ok(0);
            };
            let (first, last) = (range.start, range.end);
            let idx: Vec<u8> = (first..last).flat_map(|i| i.to_le_bytes()).collect();
            let p = malloc_copy(&idx)? as *mut i64;
            // SAFETY: writable per contract.
            unsafe { *chunks_idx = p };
            Ok(last - first)
        }))
    })
}

/// Take the exclusive frame lock and hold it across several operations, which nest on it
/// (re-entrant). A no-op returning 0 when locking is not enabled on this handle or the
/// super-chunk is not on disk; `BLOSC2_ERROR_LOCK` when the lock cannot be taken.
///
/// # Safety
/// `schunk` live.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_lock(schunk: *mut blosc2_schunk) -> c_int {
    guard(PANIC_CODE, || code_int(with(schunk, |h| h.sc.lock().map(|()| 0))))
}

/// Release the frame lock taken with `blosc2_schunk_lock` (one level of it). Releasing a
/// lock that is not held, or without locking, is a no-op returning 0.
///
/// # Safety
/// `schunk` live.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_unlock(schunk: *mut blosc2_schunk) -> c_int {
    guard(PANIC_CODE, || code_int(with(schunk, |h| h.sc.unlock().map(|()| 0))))
}

/// Re-read a disk-based super-chunk to see what other handles or processes wrote: 1 when the
/// counters changed, 0 when they were current (or the super-chunk is in memory).
///
/// # Safety
/// `schunk` live.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_refresh(schunk: *mut blosc2_schunk) -> c_int {
    guard(PANIC_CODE, || {
        code_int(with(schunk, |h| {
            let changed = h.sc.refresh()?;
            h.sync()?;
            Ok(changed as c_int)
        }))
    })
}
