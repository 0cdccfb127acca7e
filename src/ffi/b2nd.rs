//! N-dimensional arrays (`b2nd_*`): the C face of [`crate::b2nd`].
//!
//! An array is a `calloc`ed `b2nd_array_t` (C reads its fields) over a super-chunk of this
//! library, driven through the super-chunk's own C entry points so that chunks, metalayers and
//! frames go exactly the way `blosc2_schunk_*` writes them. Contexts are opaque Rust boxes.
//! Live contexts and arrays are kept in side tables, so a stale or foreign pointer is an
//! error code instead of a crash. The geometry is re-derived (and validated) from the public
//! fields on every call.

use std::collections::HashSet;
use std::ffi::CString;
use std::sync::{Mutex, OnceLock};

use libc::{c_char, c_int, c_void};

use super::abi::*;
use super::boundary::{cstr, guard, slice, slice_mut, PANIC_CODE};
use super::chunk::blosc2_chunk_repeatval;
use super::context::blosc2_compress_ctx;
use super::meta::{blosc2_meta_add, blosc2_meta_update, blosc2_vlmeta_add};
use super::schunk::*;
use crate::b2nd::slice::ChunkIo;
use crate::b2nd::{meta, slice as nd, Geometry, MAX_DIM};
use crate::chunk::header::MAX_OVERHEAD;
use crate::error::{Error, Result};

// ----- live pointers -----

fn live() -> &'static Mutex<HashSet<usize>> {
    static T: OnceLock<Mutex<HashSet<usize>>> = OnceLock::new();
    T.get_or_init(|| Mutex::new(HashSet::new()))
}

fn remember(p: usize) {
    live().lock().unwrap_or_else(|e| e.into_inner()).insert(p);
}

fn forget(p: usize) -> bool {
    live().lock().unwrap_or_else(|e| e.into_inner()).remove(&p)
}

fn is_live(p: usize) -> bool {
    p != 0 && live().lock().unwrap_or_else(|e| e.into_inner()).contains(&p)
}

/// Arrays made by squeeze/expand_dims: they share their super-chunk with the array they view
/// and do not own it.
fn views() -> &'static Mutex<HashSet<usize>> {
    static T: OnceLock<Mutex<HashSet<usize>>> = OnceLock::new();
    T.get_or_init(|| Mutex::new(HashSet::new()))
}

fn is_view(p: *const b2nd_array_t) -> bool {
    views().lock().unwrap_or_else(|e| e.into_inner()).contains(&(p as usize))
}

fn code(r: Result<c_int>) -> c_int {
    r.unwrap_or_else(|e| e.code())
}

// ----- contexts -----

/// What `b2nd_create_ctx` captured: owned copies of everything the caller passed.
struct Context {
    contiguous: bool,
    urlpath: Option<CString>,
    cparams: blosc2_cparams,
    dparams: Option<blosc2_dparams>,
    io: Option<blosc2_io>,
    ndim: usize,
    shape: [i64; MAX_DIM],
    chunkshape: [i32; MAX_DIM],
    blockshape: [i32; MAX_DIM],
    dtype: Vec<u8>,
    dtype_format: i8,
    metalayers: Vec<(CString, Vec<u8>)>,
}

impl Context {
    /// A `blosc2_storage` pointing into this context (valid while it is not moved/changed).
    fn storage(&mut self) -> blosc2_storage {
        blosc2_storage {
            contiguous: self.contiguous,
            urlpath: self.urlpath.as_ref().map_or(std::ptr::null_mut(), |s| s.as_ptr() as *mut c_char),
            cparams: &mut self.cparams,
            dparams: self.dparams.as_mut().map_or(std::ptr::null_mut(), |d| d as *mut _),
            io: self.io.as_mut().map_or(std::ptr::null_mut(), |d| d as *mut _),
        }
    }

    fn geometry(&self) -> Result<Geometry> {
        let n = self.ndim;
        Geometry::new(&self.shape[..n], &self.chunkshape[..n], &self.blockshape[..n])
    }
}

/// # Safety
/// `ctx` NULL or any pointer; dereferenced only when it is a live context.
unsafe fn ctx_of<'a>(ctx: *mut b2nd_context_t) -> Result<&'a mut Context> {
    if ctx.is_null() {
        return Err(Error::NullPointer);
    }
    if !is_live(ctx as usize) {
        return Err(Error::InvalidParam);
    }
    // SAFETY: live contexts are Box<Context> leaked by b2nd_create_ctx.
    Ok(unsafe { &mut *(ctx as *mut Context) })
}

/// # Safety
/// Pointers valid for `ndim` items (or NULL), as the C API states.
#[allow(clippy::too_many_arguments)] // the arguments of b2nd_create_ctx
unsafe fn create_ctx(
    storage: *const blosc2_storage,
    ndim: i8,
    shape: *const i64,
    chunkshape: *const i32,
    blockshape: *const i32,
    dtype: *const c_char,
    dtype_format: i8,
    metalayers: *const blosc2_metalayer,
    nmetalayers: i32,
) -> Result<Box<Context>> {
    if ndim < 0 || ndim as usize > MAX_DIM {
        return Err(Error::InvalidParam);
    }
    let n = ndim as usize;
    let mut c_shape = [0i64; MAX_DIM];
    let mut c_chunk = [0i32; MAX_DIM];
    let mut c_block = [0i32; MAX_DIM];
    if n > 0 {
        if shape.is_null() || chunkshape.is_null() || blockshape.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: readable for ndim items per contract.
        unsafe {
            c_shape[..n].copy_from_slice(std::slice::from_raw_parts(shape, n));
            c_chunk[..n].copy_from_slice(std::slice::from_raw_parts(chunkshape, n));
            c_block[..n].copy_from_slice(std::slice::from_raw_parts(blockshape, n));
        }
        crate::b2nd::validate(&c_shape[..n], &c_chunk[..n], &c_block[..n])?;
    }
    // SAFETY: storage NULL or valid per contract.
    let st = unsafe { storage.as_ref() }.copied().unwrap_or(BLOSC2_STORAGE_DEFAULTS);
    // SAFETY: nested pointers NULL or valid per contract.
    let mut cparams = unsafe { st.cparams.as_ref() }.copied().unwrap_or(BLOSC2_CPARAMS_DEFAULTS);
    // SAFETY: as above.
    let dparams = unsafe { st.dparams.as_ref() }.copied();
    // SAFETY: as above.
    let io = unsafe { st.io.as_ref() }.copied();
    // SAFETY: as above.
    let urlpath = unsafe { cstr(st.urlpath) }.map(|s| CString::new(s).map_err(|_| Error::InvalidParam)).transpose()?;
    let dtype = if dtype.is_null() {
        format!("|S{}", cparams.typesize).into_bytes()
    } else {
        // SAFETY: a C string per contract.
        unsafe { std::ffi::CStr::from_ptr(dtype) }.to_bytes().to_vec()
    };
    // One block per compressed block: the block size is the blockshape's bytes.
    let blocknitems = c_block[..n].iter().try_fold(1i32, |a, &b| a.checked_mul(b)).ok_or(Error::InvalidParam)?;
    cparams.blocksize = blocknitems.checked_mul(cparams.typesize).ok_or(Error::InvalidParam)?;
    if nmetalayers < 0 || nmetalayers as usize > B2ND_MAX_METALAYERS {
        return Err(Error::InvalidParam);
    }
    let mut metas = Vec::new();
    if nmetalayers > 0 {
        if metalayers.is_null() {
            return Err(Error::NullPointer);
        }
        // SAFETY: nmetalayers structs readable per contract.
        let ms = unsafe { std::slice::from_raw_parts(metalayers, nmetalayers as usize) };
        for m in ms {
            // SAFETY: name is a C string per contract.
            let name = unsafe { cstr(m.name) }.ok_or(Error::NullPointer)?;
            if m.content_len < 0 || (m.content.is_null() && m.content_len > 0) {
                return Err(Error::InvalidParam);
            }
            // SAFETY: content readable for content_len bytes.
            let content = unsafe { slice(m.content, m.content_len as usize) }.to_vec();
            metas.push((CString::new(name).map_err(|_| Error::InvalidParam)?, content));
        }
    }
    Ok(Box::new(Context {
        contiguous: st.contiguous,
        urlpath,
        cparams,
        dparams,
        io,
        ndim: n,
        shape: c_shape,
        chunkshape: c_chunk,
        blockshape: c_block,
        dtype,
        dtype_format,
        metalayers: metas,
    }))
}

/// Create a context describing arrays to build; NULL on bad parameters.
///
/// # Safety
/// `b2_storage` NULL or valid; `shape`, `chunkshape`, `blockshape` readable for `ndim` items;
/// `dtype` NULL or a C string; `metalayers` readable for `nmetalayers` entries.
#[no_mangle]
pub unsafe extern "C" fn b2nd_create_ctx(
    b2_storage: *const blosc2_storage,
    ndim: i8,
    shape: *const i64,
    chunkshape: *const i32,
    blockshape: *const i32,
    dtype: *const c_char,
    dtype_format: i8,
    metalayers: *const blosc2_metalayer,
    nmetalayers: i32,
) -> *mut b2nd_context_t {
    guard(std::ptr::null_mut(), || {
        // SAFETY: forwarded contract.
        match unsafe {
            create_ctx(b2_storage, ndim, shape, chunkshape, blockshape, dtype, dtype_format, metalayers, nmetalayers)
        } {
            Ok(b) => {
                let p = Box::into_raw(b) as *mut b2nd_context_t;
                remember(p as usize);
                p
            }
            Err(_) => std::ptr::null_mut(),
        }
    })
}

/// Release a context.
///
/// # Safety
/// `ctx` NULL or from `b2nd_create_ctx`, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn b2nd_free_ctx(ctx: *mut b2nd_context_t) -> c_int {
    guard(PANIC_CODE, || {
        if ctx.is_null() {
            return Error::NullPointer.code();
        }
        if !forget(ctx as usize) {
            return Error::InvalidParam.code();
        }
        // SAFETY: live contexts are leaked boxes; removed from the table above.
        drop(unsafe { Box::from_raw(ctx as *mut Context) });
        0
    })
}

// ----- the super-chunk behind an array -----

/// Chunk access through the super-chunk's C entry points.
struct ScIo {
    sc: *mut blosc2_schunk,
    /// Whether this operation has looked for other handles' changes to the frame already:
    /// chunks read after the first one do not look again.
    fresh: bool,
    /// The super-chunk's decompression threads, once asked.
    threads: Option<i16>,
}

impl ScIo {
    fn new(sc: *mut blosc2_schunk) -> ScIo {
        ScIo { sc, fresh: false, threads: None }
    }

    fn on_disk(&self) -> bool {
        // SAFETY: sc live (checked by the callers).
        unsafe { (*self.sc).storage.as_ref() }.is_some_and(|s| !s.urlpath.is_null())
    }

    /// `current_nchunk` as the reference leaves it: set by reads that decompress the chunk
    /// (more than a quarter of its bytes wanted on disk, a sixteenth in memory), not by
    /// reads of a few blocks.
    fn note_read(&self, n: i64, needed: &[bool]) {
        let count = needed.iter().filter(|&&b| b).count();
        let frac = if self.on_disk() { 4 } else { 16 };
        if count * frac > needed.len() {
            set_current_nchunk(self.sc, n);
        }
    }
}

impl ChunkIo for ScIo {
    fn read_chunk(&mut self, n: i64, dest: &mut [u8]) -> Result<()> {
        let len = i32::try_from(dest.len()).map_err(|_| Error::InvalidParam)?;
        // SAFETY: dest writable for len bytes; sc checked live by the caller (and re-checked
        // by the callee).
        let rc = unsafe { blosc2_schunk_decompress_chunk(self.sc, n, dest.as_mut_ptr() as *mut c_void, len) };
        if rc < 0 {
            return Err(Error::Failure);
        }
        Ok(())
    }

    /// Decompress only the needed blocks (the super-chunk's decompressor skips masked
    /// blocks, on its threads); falls back to the whole chunk when that fails, so errors
    /// are the whole chunk's.
    fn read_blocks(&mut self, n: i64, needed: &[bool], dest: &mut [u8]) -> Result<()> {
        let r = released(self.sc).and_then(|h| crate::schunk::decompress_masked_in(&h, n, needed, !self.fresh, dest));
        match r {
            Ok(_) => {
                self.fresh = true;
                self.note_read(n, needed);
                Ok(())
            }
            Err(_) => self.read_chunk(n, dest),
        }
    }

    /// Serially, block by block, unless several threads would do a large read sooner (the
    /// caller then goes through `read_blocks`). A failure falls back to that path too, so
    /// errors are reported as they always were.
    fn for_blocks(
        &mut self,
        n: i64,
        needed: &[bool],
        chunk_bytes: usize,
        sink: &mut dyn FnMut(usize, &[u8]) -> Result<()>,
    ) -> Result<bool> {
        if self.threads.is_none() {
            self.threads = with_handle(self.sc, |h| h.sc.decompressor().params.nthreads);
        }
        let Some(threads) = self.threads else { return Ok(false) };
        if threads > 1 {
            let count = needed.iter().filter(|&&b| b).count();
            let block = chunk_bytes / needed.len().max(1);
            if count * block >= crate::chunk::decompress::PARALLEL_MIN_BYTES {
                return Ok(false);
            }
        }
        let max_nbytes = chunk_bytes;
        let r = released(self.sc)
            .and_then(|h| crate::schunk::decompress_blocks_in(&h, n, needed, max_nbytes, !self.fresh, sink));
        if r.is_err() {
            return Ok(false);
        }
        self.fresh = true;
        self.note_read(n, needed);
        Ok(true)
    }

    fn write_chunk(&mut self, n: i64, data: &[u8]) -> Result<()> {
        let len = i32::try_from(data.len()).map_err(|_| Error::InvalidParam)?;
        let mut out = vec![0u8; data.len() + MAX_OVERHEAD];
        // SAFETY: sc live; its cctx is the super-chunk's compression context.
        let cctx = unsafe { (*self.sc).cctx };
        // SAFETY: data readable for len bytes, out writable for len + MAX_OVERHEAD.
        let rc = unsafe {
            blosc2_compress_ctx(cctx, data.as_ptr() as *const c_void, len, out.as_mut_ptr() as *mut c_void, out.len() as i32)
        };
        if rc <= 0 {
            return Err(Error::Failure);
        }
        // SAFETY: out holds a complete chunk; copied by the callee.
        if unsafe { blosc2_schunk_update_chunk(self.sc, n, out.as_mut_ptr(), true) } < 0 {
            return Err(Error::Failure);
        }
        Ok(())
    }
}

fn sc_live(sc: *mut blosc2_schunk) -> bool {
    with_handle(sc, |_| ()).is_some()
}

/// # Safety
/// `sc` live.
unsafe fn typesize_of(sc: *mut blosc2_schunk) -> Result<i32> {
    // SAFETY: live public struct.
    let t = unsafe { (*sc).typesize };
    if t <= 0 {
        return Err(Error::InvalidParam);
    }
    Ok(t)
}

fn meta_of(sc: *mut blosc2_schunk) -> Result<Vec<u8>> {
    with_handle(sc, |h| {
        h.sc.meta_get("b2nd").or_else(|_| h.sc.meta_get("caterva")).map(<[u8]>::to_vec)
    })
    .ok_or(Error::NullPointer)?
    .map_err(|_| Error::MetalayerNotFound)
}

// ----- arrays -----

/// # Safety
/// `a` NULL or any pointer; dereferenced only when it is a live array.
unsafe fn array_of<'a>(a: *const b2nd_array_t) -> Result<&'a mut b2nd_array_t> {
    if a.is_null() {
        return Err(Error::NullPointer);
    }
    if !is_live(a as usize) {
        return Err(Error::InvalidParam);
    }
    // SAFETY: live arrays are our calloc'ed structs.
    Ok(unsafe { &mut *(a as *mut b2nd_array_t) })
}

fn geometry_of(a: &b2nd_array_t) -> Result<Geometry> {
    if a.ndim < 0 || a.ndim as usize > MAX_DIM {
        return Err(Error::InvalidParam);
    }
    let n = a.ndim as usize;
    Geometry::new(&a.shape[..n], &a.chunkshape[..n], &a.blockshape[..n])
}

/// The array's geometry and live super-chunk (with its typesize).
///
/// # Safety
/// `a` a live array.
unsafe fn parts(a: &b2nd_array_t) -> Result<(Geometry, *mut blosc2_schunk, i32)> {
    let g = geometry_of(a)?;
    if !sc_live(a.sc) {
        return Err(Error::NullPointer);
    }
    // SAFETY: checked live.
    let ts = unsafe { typesize_of(a.sc) }?;
    Ok((g, a.sc, ts))
}

fn fill_fields(a: &mut b2nd_array_t, g: &Geometry) {
    a.ndim = g.ndim as i8;
    a.shape = g.shape;
    a.chunkshape = g.chunkshape;
    a.blockshape = g.blockshape;
    a.extshape = g.extshape;
    a.extchunkshape = g.extchunkshape;
    a.nitems = g.nitems;
    a.extnitems = g.extnitems;
    a.extchunknitems = g.extchunknitems;
    a.chunknitems = g.chunknitems;
    a.blocknitems = g.blocknitems;
    a.item_array_strides = g.item_array_strides;
    a.item_chunk_strides = g.item_chunk_strides;
    a.item_extchunk_strides = g.item_extchunk_strides;
    a.item_block_strides = g.item_block_strides;
    a.block_chunk_strides = g.block_chunk_strides;
    a.chunk_array_strides = g.chunk_array_strides;
}

/// A new public array struct over `sc` (NULL allowed), registered as live.
fn new_array(g: &Geometry, sc: *mut blosc2_schunk, dtype: Option<&[u8]>, dtype_format: i8) -> Result<*mut b2nd_array_t> {
    let dt = match dtype {
        Some(d) => {
            let mut v = d.to_vec();
            v.push(0);
            malloc_copy(&v)? as *mut c_char
        }
        None => std::ptr::null_mut(),
    };
    // SAFETY: plain allocation; all-zero is a valid b2nd_array_t.
    let p = unsafe { libc::calloc(1, std::mem::size_of::<b2nd_array_t>()) } as *mut b2nd_array_t;
    if p.is_null() {
        // SAFETY: dt NULL or malloc'ed above.
        unsafe { libc::free(dt as *mut c_void) };
        return Err(Error::MemoryAlloc);
    }
    // SAFETY: p freshly allocated and zeroed.
    let a = unsafe { &mut *p };
    fill_fields(a, g);
    a.sc = sc;
    a.dtype = dt;
    a.dtype_format = dtype_format;
    a.chunk_cache = chunk_cache_s { data: std::ptr::null_mut(), nchunk: -1 };
    if !sc.is_null() {
        a.last_tick = schunk_tick(sc);
    }
    remember(p as usize);
    Ok(p)
}

/// Free an array struct (and its super-chunk when `with_sc`).
fn drop_array(p: *mut b2nd_array_t, with_sc: bool) {
    if !forget(p as usize) {
        return;
    }
    let with_sc = with_sc && !views().lock().unwrap_or_else(|e| e.into_inner()).remove(&(p as usize));
    // SAFETY: p was live: our calloc'ed struct with a malloc'ed dtype.
    unsafe {
        if with_sc && !(*p).sc.is_null() {
            blosc2_schunk_free((*p).sc);
        }
        libc::free((*p).dtype as *mut c_void);
        libc::free(p as *mut c_void);
    }
}

/// Store a new array in `*out` (or free it when `out` cannot take it).
///
/// # Safety
/// `out` writable.
unsafe fn hand_array(out: *mut *mut b2nd_array_t, r: Result<*mut b2nd_array_t>) -> c_int {
    match r {
        Ok(p) => {
            // SAFETY: writable per contract.
            unsafe { *out = p };
            0
        }
        Err(e) => {
            // SAFETY: as above.
            unsafe { *out = std::ptr::null_mut() };
            e.code()
        }
    }
}

/// What array creation fills the chunks with.
#[derive(Clone, Copy, PartialEq)]
enum Fill {
    Special(c_int),
    Value(*const c_void),
}

fn new_filled(ctx: &mut Context, fill: Fill) -> Result<*mut b2nd_array_t> {
    let g = ctx.geometry()?;
    let mut st = ctx.storage();
    // SAFETY: st points into ctx, valid for the call.
    let sc = unsafe { blosc2_schunk_new(&mut st) };
    if sc.is_null() {
        return Err(Error::Failure);
    }
    let r = (|| {
        // SAFETY: sc live.
        let ts = unsafe { typesize_of(sc) }?;
        let chunk_bytes = g.chunk_nbytes(ts)?;
        with_handle(sc, |h| h.sc.set_chunksize(chunk_bytes));
        let smeta = meta::encode(g.shape(), g.chunkshape(), g.blockshape(), &ctx.dtype, ctx.dtype_format)?;
        let name = c"b2nd";
        // SAFETY: sc live; name a C string; smeta readable.
        if unsafe { blosc2_meta_add(sc, name.as_ptr(), smeta.as_ptr() as *mut u8, smeta.len() as i32) } < 0 {
            return Err(Error::Failure);
        }
        for (n, c) in &ctx.metalayers {
            // SAFETY: as above.
            if unsafe { blosc2_meta_add(sc, n.as_ptr(), c.as_ptr() as *mut u8, c.len() as i32) } < 0 {
                return Err(Error::Failure);
            }
        }
        if g.nitems != 0 {
            let nitems = g.nchunks() * g.extchunknitems;
            let special = match fill {
                Fill::Special(s) => s,
                Fill::Value(_) => BLOSC2_SPECIAL_ZERO,
            };
            // SAFETY: sc live.
            if unsafe { blosc2_schunk_fill_special(sc, nitems, special, chunk_bytes) } < 0 {
                return Err(Error::Failure);
            }
            if let Fill::Value(v) = fill {
                fill_value(sc, ts, chunk_bytes, v)?;
            }
        }
        new_array(&g, sc, Some(&ctx.dtype), ctx.dtype_format)
    })();
    if r.is_err() {
        // SAFETY: sc live and ours.
        unsafe { blosc2_schunk_free(sc) };
    }
    r
}

/// Replace every chunk by a run-length chunk of `value` (as `b2nd_full` does).
fn fill_value(sc: *mut blosc2_schunk, ts: i32, chunk_bytes: i32, value: *const c_void) -> Result<()> {
    if value.is_null() {
        return Err(Error::NullPointer);
    }
    let mut cp: *mut blosc2_cparams = std::ptr::null_mut();
    // SAFETY: sc live; cp writable.
    if unsafe { blosc2_schunk_get_cparams(sc, &mut cp) } != 0 || cp.is_null() {
        return Err(Error::Failure);
    }
    // SAFETY: allocated by the call above.
    let params = unsafe { *cp };
    // SAFETY: as above.
    unsafe { libc::free(cp as *mut c_void) };
    let mut chunk = vec![0u8; MAX_OVERHEAD + ts as usize];
    // SAFETY: chunk writable for its length; value readable for typesize bytes per contract.
    let rc = unsafe {
        blosc2_chunk_repeatval(params, chunk_bytes, chunk.as_mut_ptr() as *mut c_void, chunk.len() as i32, value)
    };
    if rc < 0 {
        return Err(Error::Failure);
    }
    // SAFETY: sc live.
    let nchunks = unsafe { (*sc).nchunks };
    for i in 0..nchunks {
        // SAFETY: chunk is a complete chunk; copied by the callee.
        if unsafe { blosc2_schunk_update_chunk(sc, i, chunk.as_mut_ptr(), true) } < 0 {
            return Err(Error::Failure);
        }
    }
    Ok(())
}

/// # Safety
/// `ctx` live or NULL; `array` writable or NULL.
unsafe fn create(ctx: *mut b2nd_context_t, array: *mut *mut b2nd_array_t, fill: Fill) -> c_int {
    guard(PANIC_CODE, || {
        if array.is_null() {
            return Error::NullPointer.code();
        }
        // SAFETY: per contract.
        let r = unsafe { ctx_of(ctx) }.and_then(|c| new_filled(c, fill));
        // SAFETY: array writable.
        unsafe { hand_array(array, r) }
    })
}

/// An array whose items are undefined (stored as uninitialised special chunks).
///
/// # Safety
/// `ctx` from `b2nd_create_ctx`; `array` writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_uninit(ctx: *mut b2nd_context_t, array: *mut *mut b2nd_array_t) -> c_int {
    // SAFETY: forwarded.
    unsafe { create(ctx, array, Fill::Special(BLOSC2_SPECIAL_UNINIT)) }
}

/// An array of zeros (the reference fills "empty" arrays with zeros too).
///
/// # Safety
/// As `b2nd_uninit`.
#[no_mangle]
pub unsafe extern "C" fn b2nd_empty(ctx: *mut b2nd_context_t, array: *mut *mut b2nd_array_t) -> c_int {
    // SAFETY: forwarded.
    unsafe { create(ctx, array, Fill::Special(BLOSC2_SPECIAL_ZERO)) }
}

/// An array of zeros.
///
/// # Safety
/// As `b2nd_uninit`.
#[no_mangle]
pub unsafe extern "C" fn b2nd_zeros(ctx: *mut b2nd_context_t, array: *mut *mut b2nd_array_t) -> c_int {
    // SAFETY: forwarded.
    unsafe { create(ctx, array, Fill::Special(BLOSC2_SPECIAL_ZERO)) }
}

/// An array of NaNs (float32 or float64 items only).
///
/// # Safety
/// As `b2nd_uninit`.
#[no_mangle]
pub unsafe extern "C" fn b2nd_nans(ctx: *mut b2nd_context_t, array: *mut *mut b2nd_array_t) -> c_int {
    guard(PANIC_CODE, || {
        if array.is_null() {
            return Error::NullPointer.code();
        }
        // SAFETY: per contract.
        let r = unsafe { ctx_of(ctx) }.and_then(|c| {
            // The reference builds the array first and then reports -3 (leaking it).
            if c.cparams.typesize != 4 && c.cparams.typesize != 8 {
                c.geometry()?;
                return Err(Error::Data);
            }
            new_filled(c, Fill::Special(BLOSC2_SPECIAL_NAN))
        });
        // SAFETY: writable per contract.
        unsafe { hand_array(array, r) }
    })
}

/// An array with every item equal to `fill_value` (typesize bytes).
///
/// # Safety
/// As `b2nd_uninit`; `fill_value` readable for typesize bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_full(ctx: *mut b2nd_context_t, array: *mut *mut b2nd_array_t, fill_value: *const c_void) -> c_int {
    // SAFETY: forwarded.
    unsafe { create(ctx, array, Fill::Value(fill_value)) }
}

/// Free an array and its super-chunk.
///
/// # Safety
/// `array` NULL or from this library, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn b2nd_free(array: *mut b2nd_array_t) -> c_int {
    guard(PANIC_CODE, || {
        if array.is_null() {
            return Error::NullPointer.code();
        }
        if !is_live(array as usize) {
            return Error::InvalidParam.code();
        }
        drop_array(array, true);
        0
    })
}

/// Build an array struct over an existing super-chunk (which the array then owns).
fn from_schunk(sc: *mut blosc2_schunk) -> Result<*mut b2nd_array_t> {
    if sc.is_null() || !sc_live(sc) {
        return Err(Error::NullPointer);
    }
    let smeta = meta_of(sc)?;
    let (m, _) = meta::decode(&smeta)?;
    let g = Geometry::new(&m.shape, &m.chunkshape, &m.blockshape)?;
    let (dtype, fmt) = match &m.dtype {
        Some((f, d)) => (Some(d.as_slice()), *f),
        None => (None, 0),
    };
    new_array(&g, sc, dtype, fmt)
}

/// View a super-chunk with a "b2nd" (or "caterva") metalayer as an array.
///
/// # Safety
/// `schunk` NULL or live; `array` writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_from_schunk(schunk: *mut blosc2_schunk, array: *mut *mut b2nd_array_t) -> c_int {
    guard(PANIC_CODE, || {
        if array.is_null() || schunk.is_null() {
            return Error::NullPointer.code();
        }
        // SAFETY: writable per contract.
        unsafe { hand_array(array, from_schunk(schunk)) }
    })
}

/// Open/build a super-chunk and make an array of it, freeing the super-chunk on failure.
///
/// # Safety
/// `array` writable.
unsafe fn adopt(sc: *mut blosc2_schunk, array: *mut *mut b2nd_array_t) -> c_int {
    if sc.is_null() {
        // SAFETY: writable per contract.
        unsafe { *array = std::ptr::null_mut() };
        return Error::NullPointer.code();
    }
    let r = from_schunk(sc);
    if r.is_err() {
        // SAFETY: sc live, ours.
        unsafe { blosc2_schunk_free(sc) };
    }
    // SAFETY: as above.
    unsafe { hand_array(array, r) }
}

/// Serialise an array as a contiguous frame.
///
/// # Safety
/// `array` live; the out-pointers writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_to_cframe(
    array: *const b2nd_array_t,
    cframe: *mut *mut u8,
    cframe_len: *mut i64,
    needs_free: *mut bool,
) -> c_int {
    guard(PANIC_CODE, || {
        code((|| {
            // SAFETY: per contract.
            let a = unsafe { array_of(array) }?;
            if cframe.is_null() || cframe_len.is_null() || needs_free.is_null() {
                return Err(Error::NullPointer);
            }
            if is_view(a) {
                let v = view_frame(a)?;
                // SAFETY: out-pointers writable per contract.
                unsafe {
                    *cframe = malloc_copy(&v)?;
                    *needs_free = true;
                    *cframe_len = v.len() as i64;
                }
                return Ok(0);
            }
            // SAFETY: sc checked by the callee; out-pointers writable.
            let n = unsafe { blosc2_schunk_to_buffer(a.sc, cframe, needs_free) };
            // SAFETY: writable.
            unsafe { *cframe_len = n };
            if n <= 0 {
                return Err(Error::Failure);
            }
            Ok(0)
        })())
    })
}

/// An array from a contiguous frame in memory (copied, or used in place when `!copy`).
///
/// # Safety
/// `cframe` readable for `cframe_len` bytes (and kept alive when `!copy`); `array` writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_from_cframe(cframe: *mut u8, cframe_len: i64, copy: bool, array: *mut *mut b2nd_array_t) -> c_int {
    guard(PANIC_CODE, || {
        if cframe.is_null() || array.is_null() {
            return Error::NullPointer.code();
        }
        // SAFETY: forwarded.
        let sc = unsafe { blosc2_schunk_from_buffer(cframe, cframe_len, copy) };
        if sc.is_null() {
            // SAFETY: writable.
            unsafe { *array = std::ptr::null_mut() };
            return Error::Failure.code();
        }
        // SAFETY: writable.
        unsafe { adopt(sc, array) }
    })
}

/// Open an array stored at `urlpath`.
///
/// # Safety
/// `urlpath` a C string; `array` writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_open(urlpath: *const c_char, array: *mut *mut b2nd_array_t) -> c_int {
    guard(PANIC_CODE, || {
        if urlpath.is_null() || array.is_null() {
            return Error::NullPointer.code();
        }
        // SAFETY: forwarded.
        let sc = unsafe { blosc2_schunk_open(urlpath) };
        // SAFETY: writable.
        unsafe { adopt(sc, array) }
    })
}

/// Open an array stored in a file at byte `offset`.
///
/// # Safety
/// As `b2nd_open`.
#[no_mangle]
pub unsafe extern "C" fn b2nd_open_offset(urlpath: *const c_char, array: *mut *mut b2nd_array_t, offset: i64) -> c_int {
    guard(PANIC_CODE, || {
        if urlpath.is_null() || array.is_null() {
            return Error::NullPointer.code();
        }
        // SAFETY: forwarded.
        let sc = unsafe { blosc2_schunk_open_offset(urlpath, offset) };
        // SAFETY: writable.
        unsafe { adopt(sc, array) }
    })
}

/// Follow another handle's change of the array's shape: 1 when the geometry was re-read,
/// 0 when current.
fn refresh(a: &mut b2nd_array_t) -> Result<c_int> {
    refresh_checked(a).map(|(changed, _)| changed)
}

/// [`refresh`], also saying whether the frame was found current and readable just now, so
/// that the chunks the same call reads need not look again (`false` when in doubt: a view,
/// or a frame file cut short, whose first chunk read then fails as it always did).
fn refresh_checked(a: &mut b2nd_array_t) -> Result<(c_int, bool)> {
    if a.sc.is_null() || !sc_live(a.sc) {
        return Err(Error::NullPointer);
    }
    if is_view(a) {
        // A view's geometry is its own; the metalayer describes the viewed array.
        return Ok((0, false));
    }
    // SAFETY: live.
    if unsafe { (*a.sc).frame }.is_null() {
        return Ok((0, true));
    }
    let fresh = with(a.sc, |h| h.sc.refresh_status()).map_err(|_| Error::Failure)?.1;
    let tick = schunk_tick(a.sc);
    if tick == a.last_tick {
        return Ok((0, fresh));
    }
    let Ok(smeta) = meta_of(a.sc) else { return Ok((0, fresh)) };
    let (m, _) = meta::decode(&smeta)?;
    let n = a.ndim as usize;
    if m.shape.len() != n || m.chunkshape[..] != a.chunkshape[..n] || m.blockshape[..] != a.blockshape[..n] {
        return Err(Error::Data);
    }
    let g = Geometry::new(&m.shape, &m.chunkshape, &m.blockshape)?;
    fill_fields(a, &g);
    a.last_tick = tick;
    Ok((1, fresh))
}

/// Re-read the array's geometry if another handle changed it.
///
/// # Safety
/// `array` live.
#[no_mangle]
pub unsafe extern "C" fn b2nd_refresh(array: *mut b2nd_array_t) -> c_int {
    // SAFETY: per contract.
    guard(PANIC_CODE, || code(unsafe { array_of(array) }.and_then(refresh)))
}

fn dims<'a>(p: *const i64, n: usize) -> Result<&'a [i64]> {
    if p.is_null() {
        return Err(Error::NullPointer);
    }
    // SAFETY: callers pass pointers readable for ndim items (C API contract).
    Ok(unsafe { std::slice::from_raw_parts(p, n) })
}

/// What both slice directions check and read first: the live array (refreshed), its
/// geometry, super-chunk and typesize, and `start`/`stop`/`buffershape` as slices.
struct SliceArgs<'a> {
    g: Geometry,
    sc: *mut blosc2_schunk,
    ts: i32,
    start: &'a [i64],
    stop: &'a [i64],
    bshape: &'a [i64],
    /// The frame was found current just now (see [`refresh_checked`]).
    fresh: bool,
}

/// # Safety
/// `array` NULL or live; `start`, `stop`, `buffershape` NULL or readable for ndim items.
unsafe fn slice_args<'a>(
    array: *const b2nd_array_t,
    buffer_is_null: bool,
    start: *const i64,
    stop: *const i64,
    buffershape: *const i64,
    buffersize: i64,
) -> Result<SliceArgs<'a>> {
    // SAFETY: per contract.
    let a = unsafe { array_of(array) }?;
    if buffer_is_null {
        return Err(Error::NullPointer);
    }
    let (_, fresh) = refresh_checked(a)?;
    // SAFETY: live.
    let (g, sc, ts) = unsafe { parts(a) }?;
    let n = g.ndim;
    let (start, stop, bshape) = (dims(start, n)?, dims(stop, n)?, dims(buffershape, n)?);
    if buffersize < 0 {
        return Err(Error::InvalidParam);
    }
    Ok(SliceArgs { g, sc, ts, start, stop, bshape, fresh })
}

/// # Safety
/// As `b2nd_get_slice_cbuffer`.
unsafe fn get_slice_impl(
    array: *const b2nd_array_t,
    start: *const i64,
    stop: *const i64,
    buffer: *mut c_void,
    buffershape: *const i64,
    buffersize: i64,
) -> Result<c_int> {
    // SAFETY: per contract.
    let SliceArgs { g, sc, ts, start, stop, bshape, fresh } =
        unsafe { slice_args(array, buffer.is_null(), start, stop, buffershape, buffersize) }?;
    // SAFETY: buffer writable for buffersize bytes per contract.
    let buf = unsafe { slice_mut(buffer as *mut u8, buffersize as usize) };
    nd::check_bounds(&g, start, stop)?;
    nd::check_buffer(ts as usize, start, stop, bshape, buf.len())?;
    // Parts of the buffer the slice does not cover read as zeros, as the reference's (the
    // slice's own items are all written below).
    let dense = (0..g.ndim).all(|i| bshape[i] == stop[i] - start[i]);
    let slice_bytes: usize = (0..g.ndim).map(|i| (stop[i] - start[i]) as usize).product::<usize>() * ts as usize;
    if dense && slice_bytes > 0 {
        buf[slice_bytes..].fill(0);
    } else {
        buf.fill(0);
    }
    nd::get(&g, ts as usize, &mut ScIo { fresh, ..ScIo::new(sc) }, start, stop, buf, bshape)?;
    Ok(0)
}

/// Read items `[start, stop)` into `buffer`, a dense array of `buffershape`.
///
/// # Safety
/// `array` live; `start`, `stop`, `buffershape` readable for ndim items; `buffer` writable
/// for `buffersize` bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_get_slice_cbuffer(
    array: *const b2nd_array_t,
    start: *const i64,
    stop: *const i64,
    buffer: *mut c_void,
    buffershape: *const i64,
    buffersize: i64,
) -> c_int {
    // SAFETY: forwarded.
    guard(PANIC_CODE, || code(unsafe { get_slice_impl(array, start, stop, buffer, buffershape, buffersize) }))
}

/// # Safety
/// As `b2nd_set_slice_cbuffer`.
unsafe fn set_slice_impl(
    buffer: *const c_void,
    buffershape: *const i64,
    buffersize: i64,
    start: *const i64,
    stop: *const i64,
    array: *mut b2nd_array_t,
) -> Result<c_int> {
    // SAFETY: per contract.
    let SliceArgs { g, sc, ts, start, stop, bshape, .. } =
        unsafe { slice_args(array, buffer.is_null(), start, stop, buffershape, buffersize) }?;
    // SAFETY: buffer readable for buffersize bytes per contract.
    let buf = unsafe { slice(buffer as *const u8, buffersize as usize) };
    // Other handles see the whole slice at once when the frame is locked.
    let locked = with_handle(sc, |h| h.sc.locking()).unwrap_or(false);
    // SAFETY: live.
    if locked && unsafe { blosc2_schunk_lock(sc) } < 0 {
        return Err(Error::Lock);
    }
    let r = nd::set(&g, ts as usize, &mut ScIo::new(sc), start, stop, buf, bshape);
    if locked {
        // SAFETY: live.
        unsafe { blosc2_schunk_unlock(sc) };
    }
    r.map(|()| 0)
}

/// Write `buffer` (a dense array of `buffershape`) into items `[start, stop)`.
///
/// # Safety
/// `array` live; `start`, `stop`, `buffershape` readable for ndim items; `buffer` readable
/// for `buffersize` bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_set_slice_cbuffer(
    buffer: *const c_void,
    buffershape: *const i64,
    buffersize: i64,
    start: *const i64,
    stop: *const i64,
    array: *mut b2nd_array_t,
) -> c_int {
    // SAFETY: forwarded.
    guard(PANIC_CODE, || code(unsafe { set_slice_impl(buffer, buffershape, buffersize, start, stop, array) }))
}

/// An array filled from a C-order buffer of its shape.
///
/// # Safety
/// `ctx` live; `array` writable; `buffer` readable for `buffersize` bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_from_cbuffer(
    ctx: *mut b2nd_context_t,
    array: *mut *mut b2nd_array_t,
    buffer: *const c_void,
    buffersize: i64,
) -> c_int {
    guard(PANIC_CODE, || {
        if array.is_null() || buffer.is_null() {
            return Error::NullPointer.code();
        }
        let r = (|| {
            // SAFETY: per contract.
            let c = unsafe { ctx_of(ctx) }?;
            let g = c.geometry()?;
            if buffersize < 0 || (buffersize as i128) < g.nitems as i128 * c.cparams.typesize as i128 {
                return Err(Error::InvalidParam);
            }
            let p = new_filled(c, Fill::Special(BLOSC2_SPECIAL_ZERO))?;
            if g.nitems == 0 {
                return Ok(p);
            }
            let zero = [0i64; MAX_DIM];
            // SAFETY: p is live; buffer readable for buffersize per contract.
            let r = unsafe { set_slice_impl(buffer, g.shape.as_ptr(), buffersize, zero.as_ptr(), g.shape.as_ptr(), p) };
            match r {
                Ok(_) => Ok(p),
                Err(e) => {
                    drop_array(p, true);
                    Err(e)
                }
            }
        })();
        // SAFETY: writable.
        unsafe { hand_array(array, r) }
    })
}

/// Copy the whole array into a C-order buffer.
///
/// # Safety
/// `array` live; `buffer` writable for `buffersize` bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_to_cbuffer(array: *const b2nd_array_t, buffer: *mut c_void, buffersize: i64) -> c_int {
    guard(PANIC_CODE, || {
        code((|| {
            // SAFETY: per contract.
            let a = unsafe { array_of(array) }?;
            if buffer.is_null() {
                return Err(Error::NullPointer);
            }
            refresh(a)?;
            // SAFETY: live.
            let (g, _, ts) = unsafe { parts(a) }?;
            if (buffersize as i128) < g.nitems as i128 * ts as i128 {
                return Err(Error::InvalidParam);
            }
            if g.nitems == 0 {
                return Ok(0);
            }
            let zero = [0i64; MAX_DIM];
            // SAFETY: forwarded contract.
            unsafe { get_slice_impl(array, zero.as_ptr(), a.shape.as_ptr(), buffer, a.shape.as_ptr(), buffersize) }
        })())
    })
}

/// Write the array to `urlpath` (contiguous or sparse like the array's own storage).
///
/// # Safety
/// `array` live; `urlpath` a C string.
#[no_mangle]
pub unsafe extern "C" fn b2nd_save(array: *const b2nd_array_t, urlpath: *mut c_char) -> c_int {
    guard(PANIC_CODE, || {
        code((|| {
            // SAFETY: per contract.
            let a = unsafe { array_of(array) }?;
            if urlpath.is_null() {
                return Err(Error::NullPointer);
            }
            // SAFETY: live.
            let (_, sc, _) = unsafe { parts(a) }?;
            // SAFETY: live public struct; storage is the super-chunk's own copy.
            let contiguous = unsafe { (*sc).storage.as_ref() }.is_some_and(|s| s.contiguous);
            let mut st = blosc2_storage { contiguous, urlpath, ..BLOSC2_STORAGE_DEFAULTS };
            if is_view(a) {
                let mut v = view_frame(a)?;
                // SAFETY: v holds a frame; copied.
                let tmp = unsafe { blosc2_schunk_from_buffer(v.as_mut_ptr(), v.len() as i64, true) };
                if tmp.is_null() {
                    return Err(Error::Failure);
                }
                // SAFETY: tmp live; st valid.
                let copy = unsafe { blosc2_schunk_copy(tmp, &mut st) };
                // SAFETY: ours.
                unsafe { blosc2_schunk_free(tmp) };
                if copy.is_null() {
                    return Err(Error::Failure);
                }
                // SAFETY: ours.
                unsafe { blosc2_schunk_free(copy) };
                return Ok(0);
            }
            // SAFETY: sc live; st valid for the call.
            let copy = unsafe { blosc2_schunk_copy(sc, &mut st) };
            if copy.is_null() {
                return Err(Error::Failure);
            }
            // SAFETY: our copy.
            unsafe { blosc2_schunk_free(copy) };
            Ok(0)
        })())
    })
}

/// Append the array as a contiguous frame to the file at `urlpath`; returns its offset.
///
/// # Safety
/// `array` live; `urlpath` a C string.
#[no_mangle]
pub unsafe extern "C" fn b2nd_save_append(array: *const b2nd_array_t, urlpath: *const c_char) -> i64 {
    guard(PANIC_CODE as i64, || {
        // SAFETY: per contract.
        match unsafe { array_of(array) } {
            Ok(a) if is_view(a) => (|| {
                let mut v = view_frame(a)?;
                // SAFETY: v holds a frame; copied.
                let tmp = unsafe { blosc2_schunk_from_buffer(v.as_mut_ptr(), v.len() as i64, true) };
                if tmp.is_null() {
                    return Err(Error::Failure);
                }
                // SAFETY: tmp live; the callee checks urlpath.
                let off = unsafe { blosc2_schunk_append_file(tmp, urlpath) };
                // SAFETY: ours.
                unsafe { blosc2_schunk_free(tmp) };
                Ok(off)
            })()
            .unwrap_or_else(|e| e.code() as i64),
            // SAFETY: forwarded (the callee checks sc and urlpath).
            Ok(a) => unsafe { blosc2_schunk_append_file(a.sc, urlpath) },
            Err(e) => e.code() as i64,
        }
    })
}

/// Print the array's metalayer (same text as the reference).
///
/// # Safety
/// `array` live.
#[no_mangle]
pub unsafe extern "C" fn b2nd_print_meta(array: *const b2nd_array_t) -> c_int {
    guard(PANIC_CODE, || {
        code((|| {
            // SAFETY: per contract.
            let a = unsafe { array_of(array) }?;
            let smeta = if is_view(a) {
                let g = geometry_of(a)?;
                meta::encode(g.shape(), g.chunkshape(), g.blockshape(), &dtype_bytes(a), a.dtype_format)?
            } else {
                meta_of(a.sc)?
            };
            let (m, _) = meta::decode(&smeta)?;
            let join = |v: Vec<String>| v.join(", ");
            let mut s = format!(
                "b2nd metalayer parameters:\n Ndim:       {}\n shape:      {}\n chunkshape: {}",
                m.shape.len(),
                join(m.shape.iter().map(i64::to_string).collect()),
                join(m.chunkshape.iter().map(i32::to_string).collect())
            );
            if let Some((_, d)) = &m.dtype {
                s.push_str("\n dtype: ");
                s.push_str(&String::from_utf8_lossy(d));
            }
            s.push_str("\n blockshape: ");
            s.push_str(&join(m.blockshape.iter().map(i32::to_string).collect()));
            s.push('\n');
            let c = CString::new(s.replace('\0', "")).map_err(|_| Error::Failure)?;
            // SAFETY: "%s" with a C string; goes through C's stdout buffer like the caller's.
            unsafe { libc::printf(c"%s".as_ptr(), c.as_ptr()) };
            Ok(0)
        })())
    })
}

/// Encode a "b2nd" metalayer into a new `malloc`ed buffer; returns its length.
///
/// # Safety
/// `shape`, `chunkshape`, `blockshape` readable for `ndim` items; `dtype` NULL or a C string;
/// `smeta` writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_serialize_meta(
    ndim: i8,
    shape: *const i64,
    chunkshape: *const i32,
    blockshape: *const i32,
    dtype: *const c_char,
    dtype_format: i8,
    smeta: *mut *mut u8,
) -> c_int {
    guard(PANIC_CODE, || {
        code((|| {
            if smeta.is_null() {
                return Err(Error::NullPointer);
            }
            if ndim < 0 || ndim as usize > MAX_DIM {
                return Err(Error::InvalidParam);
            }
            let n = ndim as usize;
            if n > 0 && (shape.is_null() || chunkshape.is_null() || blockshape.is_null()) {
                return Err(Error::NullPointer);
            }
            // SAFETY: readable for ndim items per contract (empty when ndim == 0).
            let (s, c, b) = unsafe {
                if n == 0 {
                    (&[][..], &[][..], &[][..])
                } else {
                    (
                        std::slice::from_raw_parts(shape, n),
                        std::slice::from_raw_parts(chunkshape, n),
                        std::slice::from_raw_parts(blockshape, n),
                    )
                }
            };
            let d = if dtype.is_null() {
                B2ND_DEFAULT_DTYPE.as_bytes()
            } else {
                // SAFETY: a C string per contract.
                unsafe { std::ffi::CStr::from_ptr(dtype) }.to_bytes()
            };
            let v = meta::encode(s, c, b, d, dtype_format)?;
            // SAFETY: writable per contract.
            unsafe { *smeta = malloc_copy(&v)? };
            Ok(v.len() as c_int)
        })())
    })
}

/// Decode a "b2nd" metalayer; returns the bytes consumed. `dtype` (a `malloc`ed C string,
/// or NULL for dtype-less caterva layers) and `dtype_format` are optional.
///
/// # Safety
/// `smeta` readable for `smeta_len` bytes; `shape`, `chunkshape`, `blockshape` writable for
/// `B2ND_MAX_DIM` items; the rest writable or NULL.
#[no_mangle]
pub unsafe extern "C" fn b2nd_deserialize_meta(
    smeta: *const u8,
    smeta_len: i32,
    ndim: *mut i8,
    shape: *mut i64,
    chunkshape: *mut i32,
    blockshape: *mut i32,
    dtype: *mut *mut c_char,
    dtype_format: *mut i8,
) -> c_int {
    guard(PANIC_CODE, || {
        code((|| {
            if smeta.is_null() || ndim.is_null() || shape.is_null() || chunkshape.is_null() || blockshape.is_null() {
                return Err(Error::NullPointer);
            }
            // SAFETY: optional out-pointers writable when non-null.
            unsafe {
                if !dtype.is_null() {
                    *dtype = std::ptr::null_mut();
                }
                if !dtype_format.is_null() {
                    *dtype_format = 0;
                }
            }
            if smeta_len <= 0 {
                return Err(Error::Failure);
            }
            // SAFETY: readable per contract.
            let b = unsafe { slice(smeta, smeta_len as usize) };
            let (m, used) = meta::decode(b)?;
            let n = m.shape.len();
            // SAFETY: writable for at least ndim (<= B2ND_MAX_DIM) items per contract.
            unsafe {
                *ndim = n as i8;
                std::slice::from_raw_parts_mut(shape, n).copy_from_slice(&m.shape);
                std::slice::from_raw_parts_mut(chunkshape, n).copy_from_slice(&m.chunkshape);
                std::slice::from_raw_parts_mut(blockshape, n).copy_from_slice(&m.blockshape);
            }
            if dtype.is_null() || dtype_format.is_null() {
                // Without the dtype outputs the reference stops after the blockshape.
                return Ok((used - m.dtype.as_ref().map_or(0, |(_, d)| 6 + d.len())) as c_int);
            }
            if let Some((f, d)) = &m.dtype {
                let mut v = d.clone();
                v.push(0);
                // SAFETY: writable per contract.
                unsafe {
                    *dtype = malloc_copy(&v)? as *mut c_char;
                    *dtype_format = *f;
                }
            }
            Ok(used as c_int)
        })())
    })
}

/// Copy a hyper-rectangle between two C-order buffers of (padded) shapes.
///
/// # Safety
/// Shape/start/stop arrays readable for `ndim` items; `src` and `dst` large enough for their
/// padded shapes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_copy_buffer2(
    ndim: i8,
    itemsize: i32,
    src: *const c_void,
    src_pad_shape: *const i64,
    src_start: *const i64,
    src_stop: *const i64,
    dst: *mut c_void,
    dst_pad_shape: *const i64,
    dst_start: *const i64,
) -> c_int {
    guard(PANIC_CODE, || {
        code((|| {
            if ndim < 0 || ndim as usize > MAX_DIM || itemsize <= 0 {
                return Err(Error::InvalidParam);
            }
            let n = ndim as usize;
            if src.is_null() || dst.is_null() {
                return Err(Error::NullPointer);
            }
            let (sp, ss, se, dp, ds) = if n == 0 {
                (&[][..], &[][..], &[][..], &[][..], &[][..])
            } else {
                (dims(src_pad_shape, n)?, dims(src_start, n)?, dims(src_stop, n)?, dims(dst_pad_shape, n)?, dims(dst_start, n)?)
            };
            let mut shape = [0i64; MAX_DIM];
            for i in 0..n {
                shape[i] = se[i] - ss[i];
                if shape[i] == 0 {
                    return Ok(0);
                }
            }
            let total = |pad: &[i64]| -> Result<usize> {
                let items = pad.iter().try_fold(1i64, |a, &d| if d < 0 { None } else { a.checked_mul(d) });
                items
                    .and_then(|i| usize::try_from(i).ok())
                    .and_then(|i| i.checked_mul(itemsize as usize))
                    .ok_or(Error::InvalidParam)
            };
            let (slen, dlen) = (total(sp)?, total(dp)?);
            // SAFETY: per contract, the buffers hold their padded shapes.
            let (s, d) = unsafe { (slice(src as *const u8, slen), slice_mut(dst as *mut u8, dlen)) };
            crate::b2nd::copy::copy_region(
                itemsize as usize,
                &shape[..n],
                s,
                &crate::b2nd::copy::Region { pad_shape: sp, start: ss },
                d,
                &crate::b2nd::copy::Region { pad_shape: dp, start: ds },
            )?;
            Ok(0)
        })())
    })
}

/// The old signature of [`b2nd_copy_buffer2`] (8-bit item size).
///
/// # Safety
/// As `b2nd_copy_buffer2`.
#[no_mangle]
pub unsafe extern "C" fn b2nd_copy_buffer(
    ndim: i8,
    itemsize: u8,
    src: *const c_void,
    src_pad_shape: *const i64,
    src_start: *const i64,
    src_stop: *const i64,
    dst: *mut c_void,
    dst_pad_shape: *const i64,
    dst_start: *const i64,
) -> c_int {
    // SAFETY: forwarded.
    unsafe {
        b2nd_copy_buffer2(ndim, itemsize as i32, src, src_pad_shape, src_start, src_stop, dst, dst_pad_shape, dst_start)
    }
}

// ----- resizing -----

/// The array's dtype as stored (NULL means the default, as the reference serialises it).
fn dtype_bytes(a: &b2nd_array_t) -> Vec<u8> {
    if a.dtype.is_null() {
        return B2ND_DEFAULT_DTYPE.as_bytes().to_vec();
    }
    // SAFETY: our arrays keep a NUL-terminated malloc'ed dtype.
    unsafe { std::ffi::CStr::from_ptr(a.dtype) }.to_bytes().to_vec()
}

/// Write the array's current geometry into its "b2nd" metalayer.
fn publish_meta(a: &mut b2nd_array_t, g: &Geometry) -> Result<()> {
    let smeta = meta::encode(g.shape(), g.chunkshape(), g.blockshape(), &dtype_bytes(a), a.dtype_format)?;
    let name = c"b2nd";
    // SAFETY: sc live (checked by the callers); name a C string; smeta readable.
    let rc = unsafe { blosc2_meta_update(a.sc, name.as_ptr(), smeta.as_ptr() as *mut u8, smeta.len() as i32) };
    if rc < 0 {
        // SAFETY: as above.
        if unsafe { blosc2_meta_add(a.sc, name.as_ptr(), smeta.as_ptr() as *mut u8, smeta.len() as i32) } < 0 {
            return Err(Error::Failure);
        }
    }
    a.last_tick = schunk_tick(a.sc);
    Ok(())
}

/// Items that were padding of the old edge chunks and are inside the new shape must read as
/// zeros (the reference shows what a shrink left there). Rewrites only chunks where that
/// padding is not zero already, so ordinary growth writes nothing.
fn clear_exposed(sc: *mut blosc2_schunk, old: &Geometry, new: &Geometry, ts: usize) -> Result<()> {
    let nd = new.ndim;
    if old.nitems == 0 || (0..nd).all(|i| old.shape[i] % old.chunkshape[i].max(1) as i64 == 0) {
        return Ok(());
    }
    let per_dim = new.chunks_per_dim();
    let chunk_bytes = new.chunk_nbytes(ts as i32)? as usize;
    let mut data = vec![0u8; chunk_bytes];
    let mut idx = [0i64; MAX_DIM];
    let mut io = ScIo::new(sc);
    for n in 0..new.nchunks_grid() {
        crate::b2nd::unravel(n, &per_dim[..nd], &mut idx[..nd]);
        let cstart: Vec<i64> = (0..nd).map(|i| idx[i] * new.chunkshape[i] as i64).collect();
        // Only chunks that existed before and are cut by the old shape.
        if (0..nd).any(|i| cstart[i] >= old.shape[i]) {
            continue;
        }
        if !(0..nd).any(|i| cstart[i] + (new.chunkshape[i] as i64) > old.shape[i] && new.shape[i] > old.shape[i]) {
            continue;
        }
        io.read_chunk(n, &mut data)?;
        let mut dirty = false;
        let bper = new.blocks_per_dim();
        let mut bidx = [0i64; MAX_DIM];
        let mut item = [0i64; MAX_DIM];
        let bn = new.blocknitems as i64;
        for pos in 0..new.extchunknitems {
            let (nb, inb) = (pos / bn, pos % bn);
            crate::b2nd::unravel(nb, &bper[..nd], &mut bidx[..nd]);
            crate::b2nd::unravel(inb, &new.blockshape.map(i64::from)[..nd], &mut item[..nd]);
            let x: Vec<i64> = (0..nd).map(|i| cstart[i] + bidx[i] * new.blockshape[i] as i64 + item[i]).collect();
            let exposed = (0..nd).all(|i| x[i] < new.shape[i]) && (0..nd).any(|i| x[i] >= old.shape[i]);
            if exposed {
                let b = &mut data[pos as usize * ts..(pos as usize + 1) * ts];
                if b.iter().any(|&v| v != 0) {
                    b.fill(0);
                    dirty = true;
                }
            }
        }
        if dirty {
            io.write_chunk(n, &data)?;
        }
    }
    Ok(())
}

/// Shrink to `new_shape` (each <= the current), removing the band at `start` (default: the end).
fn shrink(a: &mut b2nd_array_t, new_shape: &[i64], start: Option<&[i64]>) -> Result<()> {
    let old = geometry_of(a)?;
    let nd = old.ndim;
    if (0..nd).all(|i| new_shape[i] == old.shape[i]) {
        return Ok(());
    }
    let new = Geometry::new(new_shape, old.chunkshape(), old.blockshape())?;
    fill_fields(a, &new);
    publish_meta(a, &new)?;
    let start = start.unwrap_or(new_shape);
    let delta: Vec<i64> = (0..nd).map(|i| old.shape[i] - new_shape[i]).collect();
    // SAFETY: live.
    let nchunks = unsafe { (*a.sc).nchunks };
    for n in crate::b2nd::resize::deleted(&old, start, &delta) {
        if n >= nchunks {
            continue;
        }
        // SAFETY: live.
        if unsafe { blosc2_schunk_delete_chunk(a.sc, n) } < 0 {
            return Err(Error::Failure);
        }
    }
    Ok(())
}

/// Grow to `new_shape` (each >= the current), inserting zero chunks at `start` (default: the end).
fn extend(a: &mut b2nd_array_t, new_shape: &[i64], start: Option<&[i64]>, ts: i32) -> Result<()> {
    let old = geometry_of(a)?;
    let nd = old.ndim;
    if (0..nd).all(|i| new_shape[i] == old.shape[i]) {
        return Ok(());
    }
    let new = Geometry::new(new_shape, old.chunkshape(), old.blockshape())?;
    let chunk_bytes = new.chunk_nbytes(ts)?;
    // Data first, shape last: a reader never sees a shape whose chunks are missing.
    let start_v: Vec<i64> = start.map_or_else(|| old.shape().to_vec(), <[i64]>::to_vec);
    let delta: Vec<i64> = (0..nd).map(|i| new_shape[i] - old.shape[i]).collect();
    // SAFETY: live.
    let old_nchunks = unsafe { (*a.sc).nchunks };
    if new.nchunks_grid() != old_nchunks {
        let mut cp: *mut blosc2_cparams = std::ptr::null_mut();
        // SAFETY: live; cp writable.
        if unsafe { blosc2_schunk_get_cparams(a.sc, &mut cp) } != 0 || cp.is_null() {
            return Err(Error::Failure);
        }
        // SAFETY: allocated by the call above.
        let params = unsafe { *cp };
        // SAFETY: as above.
        unsafe { libc::free(cp as *mut c_void) };
        let mut zeros = vec![0u8; MAX_OVERHEAD];
        // SAFETY: zeros writable for its length.
        if unsafe { super::chunk::blosc2_chunk_zeros(params, chunk_bytes, zeros.as_mut_ptr() as *mut c_void, MAX_OVERHEAD as i32) } < 0 {
            return Err(Error::Failure);
        }
        for n in crate::b2nd::resize::inserted(&new, &start_v, &delta) {
            // SAFETY: live; zeros is a complete chunk, copied by the callee.
            if unsafe { blosc2_schunk_insert_chunk(a.sc, n, zeros.as_mut_ptr(), true) } < 0 {
                return Err(Error::Failure);
            }
        }
    }
    if start.is_none_or(|s| s == old.shape()) {
        clear_exposed(a.sc, &old, &new, ts as usize)?;
    }
    fill_fields(a, &new);
    publish_meta(a, &new)
}

fn resize(a: &mut b2nd_array_t, new_shape: &[i64], start: Option<&[i64]>) -> Result<()> {
    if is_view(a) {
        // A view's shape is tied to the array it views.
        return Err(Error::InvalidParam);
    }
    refresh(a)?;
    // SAFETY: live array.
    let (g, sc, ts) = unsafe { parts(a) }?;
    let nd = g.ndim;
    if new_shape.len() != nd || new_shape.iter().any(|&s| s < 0) {
        return Err(Error::InvalidParam);
    }
    if let Some(st) = start {
        for i in 0..nd {
            if st[i] < 0 || st[i] > g.shape[i] {
                return Err(Error::InvalidParam);
            }
            let cs = g.chunkshape[i] as i64;
            let grows_inside = new_shape[i] > g.shape[i] && st[i] != g.shape[i];
            let shrinks_inside = new_shape[i] < g.shape[i] && st[i] + g.shape[i] - new_shape[i] != g.shape[i];
            if grows_inside || shrinks_inside {
                // Whole chunks only, unless the end of the array moves.
                if cs == 0 || st[i] % cs != 0 || (new_shape[i] - g.shape[i]) % cs != 0 {
                    return Err(Error::InvalidParam);
                }
                if shrinks_inside && st[i] + g.shape[i] - new_shape[i] > g.shape[i] {
                    return Err(Error::InvalidParam);
                }
            }
        }
    }
    // Everything must be representable before anything changes.
    Geometry::new(new_shape, g.chunkshape(), g.blockshape())?.chunk_nbytes(ts)?;
    let shrunk: Vec<i64> = (0..nd).map(|i| new_shape[i].min(g.shape[i])).collect();
    let locked = with_handle(sc, |h| h.sc.locking()).unwrap_or(false);
    // SAFETY: live.
    if locked && unsafe { blosc2_schunk_lock(sc) } < 0 {
        return Err(Error::Lock);
    }
    let r = shrink(a, &shrunk, start).and_then(|()| extend(a, new_shape, start, ts));
    if locked {
        // SAFETY: live.
        unsafe { blosc2_schunk_unlock(sc) };
    }
    r
}

/// Change the shape: grow (zeros) or shrink at the end, or at `start` by whole chunks.
///
/// # Safety
/// `array` live; `new_shape` (and `start` when not NULL) readable for ndim items.
#[no_mangle]
pub unsafe extern "C" fn b2nd_resize(array: *mut b2nd_array_t, new_shape: *const i64, start: *const i64) -> c_int {
    guard(PANIC_CODE, || {
        code((|| {
            // SAFETY: per contract.
            let a = unsafe { array_of(array) }?;
            let nd = a.ndim.clamp(0, MAX_DIM as i8) as usize;
            let ns = dims(new_shape, nd)?.to_vec();
            let st = if start.is_null() { None } else { Some(dims(start, nd)?.to_vec()) };
            resize(a, &ns, st.as_deref()).map(|()| 0)
        })())
    })
}

/// Insert `buffer` (whole hyper-slabs along `axis`) at `insert_start`.
fn insert(a: &mut b2nd_array_t, buf: &[u8], axis: i8, insert_start: i64) -> Result<()> {
    refresh(a)?;
    // SAFETY: live array.
    let (g, _, ts) = unsafe { parts(a) }?;
    let nd = g.ndim;
    if axis < 0 || axis as usize >= nd {
        return Err(Error::InvalidParam);
    }
    let ax = axis as usize;
    if insert_start < 0 || insert_start > g.shape[ax] {
        return Err(Error::InvalidParam);
    }
    let slab: i64 = (0..nd).filter(|&i| i != ax).map(|i| g.shape[i]).product::<i64>() * ts as i64;
    if slab == 0 || buf.len() as i64 % slab != 0 {
        return Err(Error::InvalidParam);
    }
    let added = buf.len() as i64 / slab;
    let mut new_shape = g.shape().to_vec();
    new_shape[ax] += added;
    let mut start = vec![0i64; nd];
    start[ax] = insert_start;
    if insert_start == g.shape[ax] {
        resize(a, &new_shape, None)?;
    } else {
        resize(a, &new_shape, Some(&start))?;
    }
    let mut bshape = g.shape().to_vec();
    bshape[ax] = added;
    let mut stop = new_shape.clone();
    stop[ax] = insert_start + added;
    // SAFETY: a is live; buf readable.
    unsafe {
        set_slice_impl(buf.as_ptr() as *const c_void, bshape.as_ptr(), buf.len() as i64, start.as_ptr(), stop.as_ptr(), a)
    }
    .map(|_| ())
}

/// # Safety
/// `buffer` readable for `buffersize` bytes (non-negative).
unsafe fn buf_of<'a>(buffer: *const c_void, buffersize: i64) -> Result<&'a [u8]> {
    if buffer.is_null() {
        return Err(Error::NullPointer);
    }
    if buffersize < 0 {
        return Err(Error::InvalidParam);
    }
    // SAFETY: per contract.
    Ok(unsafe { slice(buffer as *const u8, buffersize as usize) })
}

/// Insert items along `axis` before position `insert_start`.
///
/// # Safety
/// `array` live; `buffer` readable for `buffersize` bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_insert(
    array: *mut b2nd_array_t,
    buffer: *const c_void,
    buffersize: i64,
    axis: i8,
    insert_start: i64,
) -> c_int {
    guard(PANIC_CODE, || {
        code((|| {
            // SAFETY: per contract.
            let (a, b) = unsafe { (array_of(array)?, buf_of(buffer, buffersize)?) };
            insert(a, b, axis, insert_start).map(|()| 0)
        })())
    })
}

/// Append items at the end of `axis`.
///
/// # Safety
/// As `b2nd_insert`.
#[no_mangle]
pub unsafe extern "C" fn b2nd_append(array: *mut b2nd_array_t, buffer: *const c_void, buffersize: i64, axis: i8) -> c_int {
    guard(PANIC_CODE, || {
        code((|| {
            // SAFETY: per contract.
            let (a, b) = unsafe { (array_of(array)?, buf_of(buffer, buffersize)?) };
            if is_view(a) {
                return Err(Error::InvalidParam);
            }
            refresh(a)?;
            // SAFETY: live.
            let (g, sc, ts) = unsafe { parts(a) }?;
            if axis < 0 || axis as usize >= g.ndim {
                return Err(Error::InvalidParam);
            }
            // One whole chunk at the end of axis 0, laid out like the buffer (one chunk across
            // every other axis, blocks spanning them): append it as is, as the reference
            // does. Its own fast path also fires when other axes hold several chunks and then
            // loses the data; those go through the general insertion here.
            let nd = g.ndim;
            let chunk_bytes = g.chunk_nbytes(ts)? as usize;
            let fast = axis == 0
                && b.len() == chunk_bytes
                && g.shape[0] % g.chunkshape[0] as i64 == 0
                && g.extchunknitems == g.chunknitems as i64
                && (1..nd).all(|i| g.chunkshape[i] == g.blockshape[i] && g.shape[i] == g.chunkshape[i] as i64)
                // SAFETY: live.
                && unsafe { (*sc).nchunks } == g.nchunks_grid();
            if !fast {
                return insert(a, b, axis, g.shape[axis as usize]).map(|()| 0);
            }
            // SAFETY: live; b readable for its length.
            if unsafe { blosc2_schunk_append_buffer(sc, b.as_ptr() as *const c_void, b.len() as i32) } < 0 {
                return Err(Error::Failure);
            }
            let mut new_shape = g.shape().to_vec();
            new_shape[0] += g.chunkshape[0] as i64;
            resize(a, &new_shape, None).map(|()| 0)
        })())
    })
}

/// Remove `delete_len` items along `axis` from `delete_start`.
///
/// # Safety
/// `array` live.
#[no_mangle]
pub unsafe extern "C" fn b2nd_delete(array: *mut b2nd_array_t, axis: i8, delete_start: i64, delete_len: i64) -> c_int {
    guard(PANIC_CODE, || {
        code((|| {
            // SAFETY: per contract.
            let a = unsafe { array_of(array) }?;
            refresh(a)?;
            let g = geometry_of(a)?;
            if axis < 0 || axis as usize >= g.ndim {
                return Err(Error::InvalidParam);
            }
            let ax = axis as usize;
            if delete_len < 0 || delete_start < 0 || delete_start.checked_add(delete_len).is_none_or(|e| e > g.shape[ax]) {
                return Err(Error::InvalidParam);
            }
            let mut new_shape = g.shape().to_vec();
            new_shape[ax] -= delete_len;
            if delete_start == g.shape[ax] - delete_len {
                resize(a, &new_shape, None)
            } else {
                let mut start = vec![0i64; g.ndim];
                start[ax] = delete_start;
                resize(a, &new_shape, Some(&start))
            }
            .map(|()| 0)
        })())
    })
}

// ----- copies and views of data -----

/// A new array of `ctx`'s chunk and block shapes holding `src[start..stop]`.
fn get_slice_array(c: &mut Context, src: &mut b2nd_array_t, start: &[i64], stop: &[i64]) -> Result<*mut b2nd_array_t> {
    refresh(src)?;
    let sg = geometry_of(src)?;
    nd::check_bounds(&sg, start, stop)?;
    let nd_ = sg.ndim;
    c.ndim = nd_;
    for i in 0..nd_ {
        c.shape[i] = stop[i] - start[i];
    }
    let p = new_filled(c, Fill::Special(BLOSC2_SPECIAL_ZERO))?;
    let r = (|| {
        // SAFETY: p is a live array we just made.
        let a = unsafe { &mut *p };
        let g = geometry_of(a)?;
        if g.nitems == 0 {
            return Ok(());
        }
        // SAFETY: live.
        let ts = unsafe { typesize_of(a.sc) }? as usize;
        let per_dim = g.chunks_per_dim();
        let mut idx = [0i64; MAX_DIM];
        for n in 0..g.nchunks_grid() {
            crate::b2nd::unravel(n, &per_dim[..nd_], &mut idx[..nd_]);
            let cstart: Vec<i64> = (0..nd_).map(|i| idx[i] * g.chunkshape[i] as i64).collect();
            let cstop: Vec<i64> = (0..nd_).map(|i| (cstart[i] + g.chunkshape[i] as i64).min(g.shape[i])).collect();
            let cshape: Vec<i64> = (0..nd_).map(|i| cstop[i] - cstart[i]).collect();
            let sstart: Vec<i64> = (0..nd_).map(|i| cstart[i] + start[i]).collect();
            let sstop: Vec<i64> = (0..nd_).map(|i| cstop[i] + start[i]).collect();
            let mut buf = vec![0u8; cshape.iter().product::<i64>() as usize * ts];
            // SAFETY: src and a live; buf sized for the chunk's items.
            unsafe {
                get_slice_impl(src, sstart.as_ptr(), sstop.as_ptr(), buf.as_mut_ptr() as *mut c_void, cshape.as_ptr(), buf.len() as i64)?;
                set_slice_impl(buf.as_ptr() as *const c_void, cshape.as_ptr(), buf.len() as i64, cstart.as_ptr(), cstop.as_ptr(), p)?;
            }
        }
        Ok(())
    })();
    if let Err(e) = r {
        drop_array(p, true);
        return Err(e);
    }
    Ok(p)
}

/// A new array (storage and chunking from `ctx`) with the items `[start, stop)` of `src`.
///
/// # Safety
/// `ctx`, `src` live; `array` writable; `start`, `stop` readable for ndim items.
#[no_mangle]
pub unsafe extern "C" fn b2nd_get_slice(
    ctx: *mut b2nd_context_t,
    array: *mut *mut b2nd_array_t,
    src: *const b2nd_array_t,
    start: *const i64,
    stop: *const i64,
) -> c_int {
    guard(PANIC_CODE, || {
        if array.is_null() {
            return Error::NullPointer.code();
        }
        let r = (|| {
            // SAFETY: per contract.
            let (c, s) = unsafe { (ctx_of(ctx)?, array_of(src)?) };
            let nd_ = s.ndim.clamp(0, MAX_DIM as i8) as usize;
            let (st, sp) = (dims(start, nd_)?.to_vec(), dims(stop, nd_)?.to_vec());
            get_slice_array(c, s, &st, &sp)
        })();
        // SAFETY: writable.
        unsafe { hand_array(array, r) }
    })
}

fn copy_array(c: &mut Context, src: &mut b2nd_array_t) -> Result<*mut b2nd_array_t> {
    refresh(src)?;
    let sg = geometry_of(src)?;
    let n = sg.ndim;
    c.ndim = n;
    c.shape[..n].copy_from_slice(sg.shape());
    // A view's super-chunk describes the viewed array: copy its items instead.
    let same = sg.chunkshape() == &c.chunkshape[..n] && sg.blockshape() == &c.blockshape[..n] && !is_view(src);
    if same {
        let g = c.geometry()?;
        let mut st = c.storage();
        // SAFETY: src.sc checked by the callee; st points into c.
        let sc = unsafe { blosc2_schunk_copy(src.sc, &mut st) };
        if sc.is_null() {
            return Err(Error::Failure);
        }
        return new_array(&g, sc, Some(&c.dtype), c.dtype_format).inspect_err(|_| {
            // SAFETY: our copy.
            unsafe { blosc2_schunk_free(sc) };
        });
    }
    // Other chunking: copy the items, then the user metalayers and vlmetalayers.
    let (metas, vlmetas) = with_handle(src.sc, |h| {
        let m: Vec<(String, Vec<u8>)> =
            h.sc.metalayers().iter().filter(|m| m.name != "b2nd").map(|m| (m.name.clone(), m.content.clone())).collect();
        let names: Vec<String> = h.sc.vlmeta_names().iter().map(|s| s.to_string()).collect();
        let v: Result<Vec<(String, Vec<u8>)>> = names.into_iter().map(|nm| h.sc.vlmeta_get(&nm).map(|c| (nm, c))).collect();
        (m, v)
    })
    .ok_or(Error::NullPointer)?;
    let vlmetas = vlmetas?;
    let saved = std::mem::take(&mut c.metalayers);
    for (name, content) in metas {
        c.metalayers.push((CString::new(name).map_err(|_| Error::Failure)?, content));
    }
    let stop = sg.shape().to_vec();
    let r = get_slice_array(c, src, &vec![0; n], &stop);
    c.metalayers = saved;
    let p = r?;
    // SAFETY: p live.
    let sc = unsafe { (*p).sc };
    for (name, content) in vlmetas {
        let cname = CString::new(name).map_err(|_| Error::Failure)?;
        // Compressed with the default parameters, as the reference's copy does (its chunk
        // headers show typesize 8, not the array's).
        // SAFETY: sc live; content readable.
        let rc = unsafe {
            blosc2_vlmeta_add(sc, cname.as_ptr(), content.as_ptr() as *mut u8, content.len() as i32, std::ptr::null_mut())
        };
        if rc < 0 {
            drop_array(p, true);
            return Err(Error::Failure);
        }
    }
    Ok(p)
}

/// A copy of `src` with the storage and chunking of `ctx`.
///
/// # Safety
/// `ctx`, `src` live; `array` writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_copy(ctx: *mut b2nd_context_t, src: *const b2nd_array_t, array: *mut *mut b2nd_array_t) -> c_int {
    guard(PANIC_CODE, || {
        if array.is_null() {
            return Error::NullPointer.code();
        }
        // SAFETY: per contract.
        let r = unsafe { ctx_of(ctx).and_then(|c| array_of(src).and_then(|s| copy_array(c, s))) };
        // SAFETY: writable.
        unsafe { hand_array(array, r) }
    })
}

/// Read the items at C-order positions `coords` into `buffer`, one after the other.
///
/// # Safety
/// `array` live; `coords` readable for `ncoords` items; `buffer` writable for `buffersize`.
#[no_mangle]
pub unsafe extern "C" fn b2nd_get_sparse_cbuffer(
    array: *const b2nd_array_t,
    ncoords: i64,
    coords: *const i64,
    buffer: *mut c_void,
    buffersize: i64,
) -> c_int {
    guard(PANIC_CODE, || {
        code((|| {
            // SAFETY: per contract.
            let a = unsafe { array_of(array) }?;
            refresh(a)?;
            // SAFETY: live.
            let (g, sc, ts) = unsafe { parts(a) }?;
            if ncoords < 0 {
                return Err(Error::InvalidParam);
            }
            if ncoords == 0 {
                return Ok(0);
            }
            if coords.is_null() || buffer.is_null() {
                return Err(Error::NullPointer);
            }
            if (buffersize as i128) < ncoords as i128 * ts as i128 {
                return Err(Error::InvalidParam);
            }
            if g.ndim == 0 {
                return Err(Error::InvalidParam);
            }
            // SAFETY: readable per contract.
            let cs = unsafe { std::slice::from_raw_parts(coords, ncoords as usize) };
            let nd_ = g.ndim;
            let grid = crate::b2nd::strides_of(&g.chunks_per_dim()[..nd_]);
            let mut storage = Vec::with_capacity(cs.len());
            let mut x = [0i64; MAX_DIM];
            for &c in cs {
                if c < 0 || c >= g.nitems {
                    return Err(Error::InvalidParam);
                }
                crate::b2nd::unravel(c, g.shape(), &mut x[..nd_]);
                let (mut nchunk, mut nblock, mut item) = (0i64, 0i64, 0i64);
                for j in 0..nd_ {
                    let (cs_, bs) = (g.chunkshape[j] as i64, g.blockshape[j] as i64);
                    let in_chunk = x[j] % cs_;
                    nchunk += (x[j] / cs_) * grid[j];
                    nblock += (in_chunk / bs) * g.block_chunk_strides[j];
                    item += (in_chunk % bs) * g.item_block_strides[j];
                }
                storage.push(nchunk * g.extchunknitems + nblock * g.blocknitems as i64 + item);
            }
            // SAFETY: sc live; storage readable; buffer writable for ncoords * typesize.
            let rc = unsafe { blosc2_schunk_get_sparse_buffer(sc, ncoords, storage.as_ptr(), buffer) };
            if rc < 0 {
                return Err(Error::Failure);
            }
            Ok(0)
        })())
    })
}

// ----- orthogonal selections -----

/// # Safety
/// As `b2nd_get_orthogonal_selection`; `buffer` readable (set) or writable (get).
unsafe fn orthogonal(
    array: *const b2nd_array_t,
    selection: *mut *mut i64,
    selection_size: *mut i64,
    buffer: *mut c_void,
    buffershape: *mut i64,
    buffersize: i64,
    get: bool,
) -> Result<c_int> {
    // SAFETY: per contract.
    let a = unsafe { array_of(array) }?;
    if selection.is_null() || selection_size.is_null() || buffer.is_null() {
        return Err(Error::NullPointer);
    }
    refresh(a)?;
    // SAFETY: live.
    let (g, sc, ts) = unsafe { parts(a) }?;
    let n = g.ndim;
    // SAFETY: readable for ndim entries per contract.
    let (sels, sizes) = unsafe { (std::slice::from_raw_parts(selection, n), std::slice::from_raw_parts(selection_size, n)) };
    let mut lists: Vec<&[i64]> = Vec::with_capacity(n);
    for i in 0..n {
        if sizes[i] < 0 {
            return Err(Error::InvalidParam);
        }
        if sels[i].is_null() {
            if sizes[i] > 0 {
                return Err(Error::NullPointer);
            }
            lists.push(&[]);
        } else {
            // SAFETY: readable for selection_size[i] items per contract.
            lists.push(unsafe { std::slice::from_raw_parts(sels[i], sizes[i] as usize) });
        }
    }
    let bshape = dims(buffershape, n)?;
    if buffersize < 0 {
        return Err(Error::InvalidParam);
    }
    let mut io = ScIo::new(sc);
    if get {
        // SAFETY: writable for buffersize bytes per contract.
        let buf = unsafe { slice_mut(buffer as *mut u8, buffersize as usize) };
        crate::b2nd::ortho::get(&g, ts as usize, &mut io, &lists, buf, bshape)?;
    } else {
        // SAFETY: readable for buffersize bytes per contract.
        let buf = unsafe { slice(buffer as *const u8, buffersize as usize) };
        crate::b2nd::ortho::set(&g, ts as usize, &mut io, &lists, buf, bshape)?;
    }
    Ok(0)
}

/// Read the items at every combination of `selection[i]` (one index list per dimension) into
/// `buffer`, a dense array of `buffershape`.
///
/// # Safety
/// `array` live; `selection` and `selection_size` readable for ndim entries, each list for its
/// size; `buffershape` readable for ndim items; `buffer` writable for `buffersize` bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_get_orthogonal_selection(
    array: *const b2nd_array_t,
    selection: *mut *mut i64,
    selection_size: *mut i64,
    buffer: *mut c_void,
    buffershape: *mut i64,
    buffersize: i64,
) -> c_int {
    // SAFETY: forwarded.
    guard(PANIC_CODE, || code(unsafe { orthogonal(array, selection, selection_size, buffer, buffershape, buffersize, true) }))
}

/// Write `buffer` (a dense array of `buffershape`) to the items at every combination of
/// `selection[i]`.
///
/// # Safety
/// As `b2nd_get_orthogonal_selection`, with `buffer` readable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_set_orthogonal_selection(
    array: *mut b2nd_array_t,
    selection: *mut *mut i64,
    selection_size: *mut i64,
    buffer: *const c_void,
    buffershape: *mut i64,
    buffersize: i64,
) -> c_int {
    guard(PANIC_CODE, || {
        // SAFETY: forwarded.
        code(unsafe { orthogonal(array, selection, selection_size, buffer as *mut c_void, buffershape, buffersize, false) })
    })
}

// ----- concatenation -----

fn concatenate(
    ctx: *mut b2nd_context_t,
    src1: *const b2nd_array_t,
    src2: *const b2nd_array_t,
    axis: i8,
    copy: bool,
) -> Result<*mut b2nd_array_t> {
    // SAFETY: checked live by array_of.
    let (s1, s2) = unsafe { (array_of(src1)?, array_of(src2)?) };
    refresh(s1)?;
    refresh(s2)?;
    // SAFETY: live.
    let ((g1, _, ts1), (g2, sc2, ts2)) = unsafe { (parts(s1)?, parts(s2)?) };
    if axis < 0 || axis as usize >= g1.ndim {
        return Err(Error::InvalidParam);
    }
    if ts1 != ts2 || g1.ndim == 0 || g1.ndim != g2.ndim {
        return Err(Error::InvalidParam);
    }
    let ax = axis as usize;
    let nd_ = g1.ndim;
    if (0..nd_).any(|i| i != ax && g1.shape[i] != g2.shape[i]) {
        return Err(Error::InvalidParam);
    }
    let mut new_shape = g1.shape().to_vec();
    new_shape[ax] = g1.shape[ax].checked_add(g2.shape[ax]).ok_or(Error::InvalidParam)?;
    // Joining an array to itself in place: the resize moves the chunks being read, so read
    // them from a snapshot.
    let snapshot = if !copy && s1.sc == s2.sc {
        let mut st = BLOSC2_STORAGE_DEFAULTS;
        // SAFETY: sc2 live; default storage: an in-memory copy.
        let sc = unsafe { blosc2_schunk_copy(sc2, &mut st) };
        if sc.is_null() {
            return Err(Error::Failure);
        }
        Some(new_array(&g2, sc, None, 0).inspect_err(|_| {
            // SAFETY: ours.
            unsafe { blosc2_schunk_free(sc) };
        })?)
    } else {
        None
    };
    let src2 = snapshot.map_or(src2, |p| p as *const b2nd_array_t);
    // SAFETY: live (the snapshot shares src2's geometry).
    let sc2 = unsafe { (*src2).sc };
    let dest = if copy {
        // SAFETY: ctx checked live by ctx_of.
        let c = unsafe { ctx_of(ctx) };
        match c.and_then(|c| copy_array(c, s1)) {
            Ok(p) => p,
            Err(e) => {
                snapshot.inspect(|&p| drop_array(p, true));
                return Err(e);
            }
        }
    } else {
        src1 as *mut b2nd_array_t
    };
    let r = (|| {
        // SAFETY: dest live (src1 or our copy).
        let d = unsafe { &mut *dest };
        resize(d, &new_shape, None)?;
        let gd = geometry_of(d)?;
        let aligned = g1.chunkshape() == g2.chunkshape()
            && g2.blockshape() == gd.blockshape()
            && g1.shape[ax] % gd.chunkshape[ax] as i64 == 0;
        let dgrid = crate::b2nd::strides_of(&gd.chunks_per_dim()[..nd_]);
        let sper = g2.chunks_per_dim();
        let mut idx = [0i64; MAX_DIM];
        let chunk_bytes = g2.chunk_nbytes(ts2)? as usize;
        let mut buf = vec![0u8; chunk_bytes];
        let cshape: Vec<i64> = g2.chunkshape().iter().map(|&c| c as i64).collect();
        // The chunks of src2 as it was: with `src2 == src1` in place, the resize above grew it.
        let n2 = g2.nchunks();
        for n in 0..n2 {
            crate::b2nd::unravel(n, &sper[..nd_], &mut idx[..nd_]);
            if aligned {
                idx[ax] += g1.shape[ax] / gd.chunkshape[ax] as i64;
                let dn: i64 = (0..nd_).map(|i| idx[i] * dgrid[i]).sum();
                let (mut p, mut nf) = (std::ptr::null_mut(), false);
                // SAFETY: sc2 live; out-pointers valid.
                if unsafe { blosc2_schunk_get_chunk(sc2, n, &mut p, &mut nf) } < 0 {
                    return Err(Error::Failure);
                }
                // SAFETY: dest live; p a complete chunk, copied by the callee.
                let rc = unsafe { blosc2_schunk_update_chunk(d.sc, dn, p, true) };
                if nf {
                    // SAFETY: handed out malloc'ed.
                    unsafe { libc::free(p as *mut c_void) };
                }
                if rc < 0 {
                    return Err(Error::Failure);
                }
            } else {
                let mut start: Vec<i64> = (0..nd_).map(|i| idx[i] * cshape[i]).collect();
                let mut stop: Vec<i64> = (0..nd_).map(|i| (start[i] + cshape[i]).min(g2.shape[i])).collect();
                // SAFETY: src2 live; buf holds a padded chunk, laid out as chunkshape.
                unsafe {
                    get_slice_impl(src2, start.as_ptr(), stop.as_ptr(), buf.as_mut_ptr() as *mut c_void, cshape.as_ptr(), buf.len() as i64)?;
                }
                start[ax] += g1.shape[ax];
                stop[ax] += g1.shape[ax];
                // SAFETY: dest live.
                unsafe {
                    set_slice_impl(buf.as_ptr() as *const c_void, cshape.as_ptr(), buf.len() as i64, start.as_ptr(), stop.as_ptr(), dest)?;
                }
            }
        }
        Ok(())
    })();
    if let Some(p) = snapshot {
        drop_array(p, true);
    }
    match r {
        Ok(()) => Ok(dest),
        Err(e) => {
            if copy {
                drop_array(dest, true);
            }
            Err(e)
        }
    }
}

/// Join `src2` after `src1` along `axis`: into a copy made with `ctx` (`copy`), or into
/// `src1` itself (then `*array` is `src1`).
///
/// # Safety
/// `src1`, `src2` live; `ctx` live when `copy`; `array` writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_concatenate(
    ctx: *mut b2nd_context_t,
    src1: *const b2nd_array_t,
    src2: *const b2nd_array_t,
    axis: i8,
    copy: bool,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    guard(PANIC_CODE, || {
        if array.is_null() {
            return Error::NullPointer.code();
        }
        match concatenate(ctx, src1, src2, axis, copy) {
            Ok(p) => {
                // SAFETY: writable.
                unsafe { *array = p };
                0
            }
            Err(e) => e.code(),
        }
    })
}

// ----- views (squeeze, expand_dims) -----

/// A frame of a view: its own "b2nd" metalayer over the viewed array's chunks, as an
/// in-memory super-chunk would hold them.
fn view_frame(a: &b2nd_array_t) -> Result<Vec<u8>> {
    let g = geometry_of(a)?;
    if !sc_live(a.sc) {
        return Err(Error::NullPointer);
    }
    // SAFETY: live.
    let ts = unsafe { typesize_of(a.sc) }?;
    let mut cp: *mut blosc2_cparams = std::ptr::null_mut();
    // SAFETY: live; cp writable.
    if unsafe { blosc2_schunk_get_cparams(a.sc, &mut cp) } != 0 || cp.is_null() {
        return Err(Error::Failure);
    }
    // SAFETY: allocated by the call above.
    let mut params = unsafe { *cp };
    // SAFETY: as above.
    unsafe { libc::free(cp as *mut c_void) };
    params.schunk = std::ptr::null_mut();
    let mut st = blosc2_storage { cparams: &mut params, ..BLOSC2_STORAGE_DEFAULTS };
    // SAFETY: st valid for the call.
    let tmp = unsafe { blosc2_schunk_new(&mut st) };
    if tmp.is_null() {
        return Err(Error::Failure);
    }
    let r = (|| {
        with_handle(tmp, |h| h.sc.set_chunksize(g.chunk_nbytes(ts).unwrap_or(0)));
        let smeta = meta::encode(g.shape(), g.chunkshape(), g.blockshape(), &dtype_bytes(a), a.dtype_format)?;
        // SAFETY: tmp live; smeta readable.
        if unsafe { blosc2_meta_add(tmp, c"b2nd".as_ptr(), smeta.as_ptr() as *mut u8, smeta.len() as i32) } < 0 {
            return Err(Error::Failure);
        }
        // SAFETY: live.
        let n = unsafe { (*a.sc).nchunks };
        for i in 0..n {
            let (mut p, mut nf) = (std::ptr::null_mut(), false);
            // SAFETY: live; out-pointers valid.
            if unsafe { blosc2_schunk_get_chunk(a.sc, i, &mut p, &mut nf) } < 0 {
                return Err(Error::Failure);
            }
            // SAFETY: p a complete chunk, copied by the callee.
            let rc = unsafe { blosc2_schunk_append_chunk(tmp, p, true) };
            if nf {
                // SAFETY: handed out malloc'ed.
                unsafe { libc::free(p as *mut c_void) };
            }
            if rc < 0 {
                return Err(Error::Failure);
            }
        }
        let (mut p, mut nf) = (std::ptr::null_mut(), false);
        // SAFETY: tmp live; out-pointers valid.
        let len = unsafe { blosc2_schunk_to_buffer(tmp, &mut p, &mut nf) };
        if len <= 0 {
            return Err(Error::Failure);
        }
        // SAFETY: p holds len bytes.
        let v = unsafe { slice(p, len as usize) }.to_vec();
        if nf {
            // SAFETY: handed out malloc'ed.
            unsafe { libc::free(p as *mut c_void) };
        }
        Ok(v)
    })();
    // SAFETY: our temporary.
    unsafe { blosc2_schunk_free(tmp) };
    r
}

/// A view of `a` with another geometry over the same chunks. Only arrays whose sole
/// metalayer is "b2nd" can be viewed (as the reference requires).
fn new_view(a: &b2nd_array_t, shape: &[i64], chunk: &[i32], block: &[i32]) -> Result<*mut b2nd_array_t> {
    let only_b2nd = with_handle(a.sc, |h| h.sc.metalayers().iter().all(|m| m.name == "b2nd")).ok_or(Error::NullPointer)?;
    if !only_b2nd {
        return Err(Error::InvalidParam);
    }
    let g = Geometry::new(shape, chunk, block)?;
    let dt = if a.dtype.is_null() { None } else { Some(dtype_bytes(a)) };
    let p = new_array(&g, a.sc, dt.as_deref(), a.dtype_format)?;
    views().lock().unwrap_or_else(|e| e.into_inner()).insert(p as usize);
    Ok(p)
}

/// # Safety
/// `index` readable for ndim bools.
unsafe fn squeeze_with(a: &mut b2nd_array_t, index: *const bool) -> Result<*mut b2nd_array_t> {
    refresh(a)?;
    let g = geometry_of(a)?;
    if index.is_null() {
        return Err(Error::NullPointer);
    }
    // SAFETY: readable for ndim items per contract.
    let idx = unsafe { std::slice::from_raw_parts(index, g.ndim) };
    let (mut s, mut c, mut b) = (Vec::new(), Vec::new(), Vec::new());
    for (i, &drop) in idx.iter().enumerate() {
        if drop {
            if g.shape[i] != 1 {
                return Err(Error::InvalidIndex);
            }
            // Dropping a dimension keeps the chunk layout only when it spans one item; the
            // reference's view of a wider one reads the wrong items.
            if g.extchunkshape[i] != 1 {
                return Err(Error::InvalidParam);
            }
        } else {
            s.push(g.shape[i]);
            c.push(g.chunkshape[i]);
            b.push(g.blockshape[i]);
        }
    }
    new_view(a, &s, &c, &b)
}

/// A view without the dimensions marked in `index` (each must have length 1).
///
/// # Safety
/// `array` live; `view` writable; `index` readable for ndim bools.
#[no_mangle]
pub unsafe extern "C" fn b2nd_squeeze_index(array: *mut b2nd_array_t, view: *mut *mut b2nd_array_t, index: *const bool) -> c_int {
    guard(PANIC_CODE, || {
        if view.is_null() {
            return Error::NullPointer.code();
        }
        // SAFETY: per contract.
        let r = unsafe { array_of(array).and_then(|a| squeeze_with(a, index)) };
        // SAFETY: writable.
        unsafe { hand_array(view, r) }
    })
}

/// A view without the dimensions of length 1.
///
/// # Safety
/// `array` live; `view` writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_squeeze(array: *mut b2nd_array_t, view: *mut *mut b2nd_array_t) -> c_int {
    guard(PANIC_CODE, || {
        if view.is_null() {
            return Error::NullPointer.code();
        }
        // SAFETY: per contract.
        let r = unsafe { array_of(array) }.and_then(|a| {
            let n = a.ndim.clamp(0, MAX_DIM as i8) as usize;
            let idx: Vec<bool> = (0..n).map(|i| a.shape[i] == 1).collect();
            // SAFETY: idx holds ndim bools.
            unsafe { squeeze_with(a, idx.as_ptr()) }
        });
        // SAFETY: writable.
        unsafe { hand_array(view, r) }
    })
}

/// A view with `final_dims` dimensions: new ones of length 1 where `axis[i]` is true, the
/// array's own (all of them, in order) elsewhere.
///
/// # Safety
/// `array` live; `view` writable; `axis` readable for `final_dims` bools.
#[no_mangle]
pub unsafe extern "C" fn b2nd_expand_dims(
    array: *const b2nd_array_t,
    view: *mut *mut b2nd_array_t,
    axis: *const bool,
    final_dims: u8,
) -> c_int {
    guard(PANIC_CODE, || {
        if view.is_null() {
            return Error::NullPointer.code();
        }
        let r = (|| {
            // SAFETY: per contract.
            let a = unsafe { array_of(array) }?;
            refresh(a)?;
            let g = geometry_of(a)?;
            if axis.is_null() {
                return Err(Error::NullPointer);
            }
            if final_dims as usize > MAX_DIM {
                return Err(Error::InvalidParam);
            }
            // SAFETY: readable for final_dims items per contract.
            let ax = unsafe { std::slice::from_raw_parts(axis, final_dims as usize) };
            let (mut s, mut c, mut b) = (Vec::new(), Vec::new(), Vec::new());
            let mut old = 0usize;
            for &new_dim in ax {
                if new_dim {
                    s.push(1);
                    c.push(1);
                    b.push(1);
                } else {
                    if old == g.ndim {
                        return Err(Error::InvalidParam);
                    }
                    s.push(g.shape[old]);
                    c.push(g.chunkshape[old]);
                    b.push(g.blockshape[old]);
                    old += 1;
                }
            }
            // Every dimension of the array must be kept (the reference drops the rest).
            if old != g.ndim {
                return Err(Error::InvalidParam);
            }
            new_view(a, &s, &c, &b)
        })();
        // SAFETY: writable.
        unsafe { hand_array(view, r) }
    })
}

/// The super-chunk's metalayer change count (0 for an unknown pointer).
fn schunk_tick(sc: *mut blosc2_schunk) -> i64 {
    super::schunk::with_handle(sc, |h| h.change_tick()).unwrap_or(0)
}

