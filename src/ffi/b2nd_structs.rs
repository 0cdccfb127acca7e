//! The public structs of `b2nd.h` on the Rust side: the side tables of live arrays and
//! views (a stale or foreign pointer is an error code, not a crash), creation contexts
//! (opaque Rust boxes), and the conversions between a `b2nd_array_t`'s fields and the
//! core's [`Layout`]. The exported functions are in `ffi/b2nd.rs`.

use std::collections::HashSet;
use std::ffi::CString;
use std::sync::{OnceLock, RwLock};

use libc::{c_char, c_int, c_void};

use super::abi::*;
use super::boundary::{cstr, slice};
use super::schunk::{free_schunk, malloc_copy, released, with_handle, Released};
use crate::b2nd::{Geometry, Layout, MAX_DIM};
use crate::error::{Error, Result};

// ----- live pointers -----

/// Arrays made by this library and not yet freed. Checked on every call, changed only when
/// an array is made or freed: a read-write lock, so that calls on different arrays do not
/// wait for each other.
pub(crate) fn live() -> &'static RwLock<HashSet<usize>> {
    static T: OnceLock<RwLock<HashSet<usize>>> = OnceLock::new();
    T.get_or_init(|| RwLock::new(HashSet::new()))
}

pub(crate) fn remember(p: usize) {
    live().write().unwrap_or_else(|e| e.into_inner()).insert(p);
}

pub(crate) fn forget(p: usize) -> bool {
    live().write().unwrap_or_else(|e| e.into_inner()).remove(&p)
}

pub(crate) fn is_live(p: usize) -> bool {
    p != 0 && live().read().unwrap_or_else(|e| e.into_inner()).contains(&p)
}

/// Arrays made by squeeze/expand_dims: they share their super-chunk with the array they view
/// and do not own it.
pub(crate) fn views() -> &'static RwLock<HashSet<usize>> {
    static T: OnceLock<RwLock<HashSet<usize>>> = OnceLock::new();
    T.get_or_init(|| RwLock::new(HashSet::new()))
}

pub(crate) fn is_view(p: *const b2nd_array_t) -> bool {
    views().read().unwrap_or_else(|e| e.into_inner()).contains(&(p as usize))
}

pub(crate) fn code(r: Result<c_int>) -> c_int {
    r.unwrap_or_else(|e| e.code())
}

// ----- contexts -----

/// What `b2nd_create_ctx` captured: owned copies of everything the caller passed.
pub(crate) struct Context {
    pub(crate) contiguous: bool,
    pub(crate) urlpath: Option<CString>,
    pub(crate) cparams: blosc2_cparams,
    pub(crate) dparams: Option<blosc2_dparams>,
    pub(crate) io: Option<blosc2_io>,
    pub(crate) ndim: usize,
    pub(crate) shape: [i64; MAX_DIM],
    pub(crate) chunkshape: [i32; MAX_DIM],
    pub(crate) blockshape: [i32; MAX_DIM],
    pub(crate) dtype: Vec<u8>,
    pub(crate) dtype_format: i8,
    pub(crate) metalayers: Vec<(CString, Vec<u8>)>,
}

impl Context {
    /// A `blosc2_storage` pointing into this context (valid while it is not moved/changed).
    pub(crate) fn storage(&mut self) -> blosc2_storage {
        blosc2_storage {
            contiguous: self.contiguous,
            urlpath: self.urlpath.as_ref().map_or(std::ptr::null_mut(), |s| s.as_ptr() as *mut c_char),
            cparams: &mut self.cparams,
            dparams: self.dparams.as_mut().map_or(std::ptr::null_mut(), |d| d as *mut _),
            io: self.io.as_mut().map_or(std::ptr::null_mut(), |d| d as *mut _),
        }
    }

    pub(crate) fn geometry(&self) -> Result<Geometry> {
        let n = self.ndim;
        Geometry::new(&self.shape[..n], &self.chunkshape[..n], &self.blockshape[..n])
    }
}

/// # Safety
/// `ctx` NULL or any pointer; dereferenced only when it is a live context.
pub(crate) unsafe fn ctx_of<'a>(ctx: *mut b2nd_context_t) -> Result<&'a mut Context> {
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
pub(crate) unsafe fn create_ctx(
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

// ----- arrays -----

/// # Safety
/// `a` NULL or any pointer; dereferenced only when it is a live array.
pub(crate) unsafe fn array_of<'a>(a: *const b2nd_array_t) -> Result<&'a mut b2nd_array_t> {
    if a.is_null() {
        return Err(Error::NullPointer);
    }
    if !is_live(a as usize) {
        return Err(Error::InvalidParam);
    }
    // SAFETY: live arrays are our calloc'ed structs.
    Ok(unsafe { &mut *(a as *mut b2nd_array_t) })
}

pub(crate) fn geometry_of(a: &b2nd_array_t) -> Result<Geometry> {
    if a.ndim < 0 || a.ndim as usize > MAX_DIM {
        return Err(Error::InvalidParam);
    }
    let n = a.ndim as usize;
    Geometry::new(&a.shape[..n], &a.chunkshape[..n], &a.blockshape[..n])
}

/// The array's dtype (NULL for arrays of dtype-less "caterva" metalayers).
pub(crate) fn dtype_of(a: &b2nd_array_t) -> Option<Vec<u8>> {
    if a.dtype.is_null() {
        return None;
    }
    // SAFETY: our arrays keep a NUL-terminated malloc'ed dtype.
    Some(unsafe { std::ffi::CStr::from_ptr(a.dtype) }.to_bytes().to_vec())
}

/// The public fields as a [`Layout`].
pub(crate) fn layout_of(a: &b2nd_array_t) -> Result<Layout> {
    let mut l = Layout::new(geometry_of(a)?, dtype_of(a), a.dtype_format);
    l.last_tick = a.last_tick;
    l.view = is_view(a);
    Ok(l)
}

/// The array's layout and its super-chunk's handle (`BLOSC2_ERROR_NULL_POINTER` when the
/// super-chunk is gone).
pub(crate) fn parts(a: &b2nd_array_t) -> Result<(Layout, Released)> {
    let l = layout_of(a)?;
    let h = released(a.sc)?;
    Ok((l, h))
}

/// Write what an operation changed back into the public fields.
pub(crate) fn store_back(a: &mut b2nd_array_t, l: &Layout) {
    let g = &l.geometry;
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
    a.last_tick = l.last_tick;
}

/// Run `f` on the array's layout and super-chunk, then publish the layout's changes (also
/// those made before a failure: chunks already moved stay moved, as in the reference).
pub(crate) fn on_array<R>(a: &mut b2nd_array_t, f: impl FnOnce(&Released, &mut Layout) -> Result<R>) -> Result<R> {
    let (mut l, h) = parts(a)?;
    let r = f(&h, &mut l);
    store_back(a, &l);
    r
}

/// A new public array struct of `l` over `sc` (NULL allowed), registered as live.
pub(crate) fn new_array(l: &Layout, sc: *mut blosc2_schunk) -> Result<*mut b2nd_array_t> {
    let dt = match &l.dtype {
        Some(d) => {
            let mut v = d.clone();
            v.push(0);
            malloc_copy(&v)? as *mut c_char
        }
        None => std::ptr::null_mut(),
    };
    // All-zero is a valid b2nd_array_t.
    let p = crate::ffi::cmem::c_malloc(std::mem::size_of::<b2nd_array_t>(), true) as *mut b2nd_array_t;
    if p.is_null() {
        // SAFETY: dt NULL or malloc'ed above.
        unsafe { libc::free(dt as *mut c_void) };
        return Err(Error::MemoryAlloc);
    }
    // SAFETY: p freshly allocated and zeroed.
    let a = unsafe { &mut *p };
    store_back(a, l);
    a.sc = sc;
    a.dtype = dt;
    a.dtype_format = l.dtype_format;
    a.chunk_cache = chunk_cache_s { data: std::ptr::null_mut(), nchunk: -1 };
    a.last_tick = with_handle(sc, |h| h.sc.change_tick()).unwrap_or(0);
    remember(p as usize);
    Ok(p)
}

/// Free an array struct (and its super-chunk when `with_sc`).
pub(crate) fn drop_array(p: *mut b2nd_array_t, with_sc: bool) {
    if !forget(p as usize) {
        return;
    }
    let with_sc = with_sc && !views().write().unwrap_or_else(|e| e.into_inner()).remove(&(p as usize));
    // SAFETY: p was live: our calloc'ed struct with a malloc'ed dtype.
    unsafe {
        if with_sc && !(*p).sc.is_null() {
            free_schunk((*p).sc);
        }
        libc::free((*p).dtype as *mut c_void);
        libc::free(p as *mut c_void);
    }
}

/// Store a new array in `*out` (or free it when `out` cannot take it).
///
/// # Safety
/// `out` writable.
pub(crate) unsafe fn hand_array(out: *mut *mut b2nd_array_t, r: Result<*mut b2nd_array_t>) -> c_int {
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

