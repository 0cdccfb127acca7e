//! Super-chunks (`blosc2_schunk_*`): the C face of [`SuperChunk`].
//!
//! A `blosc2_schunk*` handed to C is a `calloc`ed public struct whose fields C code (and the
//! header's inline `blosc2_meta_exists`/`blosc2_meta_get`) read directly. The Rust state lives
//! in a [`Handle`] found through a side table keyed by that pointer, so an unknown or freed
//! pointer is an error code instead of a crash. After every operation [`Handle::sync`] copies
//! the current state back into the public struct (counters, parameters, metalayer arrays);
//! that bookkeeping lives in [`super::handle`].

use std::borrow::Cow;
use std::path::PathBuf;

use libc::{c_char, c_int, c_void};

use super::abi::*;
use super::boundary::{cstr, guard, slice, slice_mut, PANIC_CODE};
use super::context::core_cparams;
use crate::chunk::header::{ChunkHeader, MIN_HEADER_LENGTH};
use crate::chunk::{DecompressParams, Special};
use crate::error::{Error, Result};
use crate::schunk::{Holder, StorageSpec, SuperChunk};

pub use super::handle::*;
use super::cmem::c_box;

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
    let url = unsafe { cstr(st.urlpath) }.map(|u| crate::frame::urlpath::local_path(u).to_owned());
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
    let removed = table().write().unwrap_or_else(|e| e.into_inner()).remove(&(schunk as usize));
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
    // SAFETY: per contract.
    unsafe {
        store_chunk(schunk, chunk, copy, |h, c| {
            h.reserve_chunk_address()?;
            h.sc.set_current_nchunk(h.sc.nchunks());
            h.sc.append_chunk(c)
        })
    }
}

/// Store a chunk handed over from C with `op` under the handle's lock; a chunk given with
/// `copy == false` is kept (and freed with the super-chunk) once `op` has taken it.
///
/// # Safety
/// As `blosc2_schunk_append_chunk`.
unsafe fn store_chunk(
    schunk: *mut blosc2_schunk,
    chunk: *mut u8,
    copy: bool,
    op: impl FnOnce(&mut Handle, &[u8]) -> Result<i64>,
) -> i64 {
    guard(PANIC_CODE as i64, || {
        code_i64(with(schunk, |h| {
            // SAFETY: per contract.
            let n = op(h, unsafe { chunk_from_c(chunk) }?)?;
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
    // SAFETY: per contract.
    unsafe {
        store_chunk(schunk, chunk, copy, |h, c| {
            if nchunk < 0 || nchunk > h.sc.nchunks() {
                return Err(Error::InvalidParam);
            }
            h.reserve_chunk_address()?;
            let n = h.sc.insert_chunk(nchunk, c)?;
            h.sc.set_current_nchunk(nchunk);
            Ok(n)
        })
    }
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
    // SAFETY: per contract.
    unsafe {
        store_chunk(schunk, chunk, copy, |h, c| {
            if nchunk < 0 || nchunk >= h.sc.nchunks() {
                return Err(Error::InvalidParam);
            }
            let n = h.sc.update_chunk(nchunk, c)?;
            h.sc.set_current_nchunk(nchunk);
            Ok(n)
        })
    }
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
            if nbytes < 0 || dest.is_null() {
                // The chunk number is checked first, in the reference's order.
                sc.hold(|s| if nchunk < 0 || nchunk >= s.nchunks() { Err(Error::InvalidParam) } else { Ok(()) })?;
                return Err(if nbytes < 0 { Error::InvalidParam } else { Error::NullPointer });
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
            // Cleared before the read, as the reference does for frames: a caller that frees
            // when `needs_free` is set without checking the result must not free a pointer
            // a previous call handed out.
            // SAFETY: writable per contract (checked non-NULL above).
            unsafe {
                *chunk = std::ptr::null_mut();
                *needs_free = false;
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
    if cframe.is_null() || needs_free.is_null() {
        return Err(Error::NullPointer);
    }
    // Cleared first, as the reference does, so that a failed call hands out nothing to free.
    // SAFETY: writable per contract (checked non-NULL above).
    unsafe {
        *cframe = std::ptr::null_mut();
        *needs_free = false;
    }
    with(schunk, |h| {
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
            let p = std::path::Path::new(if in_memory { p } else { crate::frame::urlpath::local_path(p) });
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

/// `blosc2_schunk_open_offset` (and `blosc2_schunk_open` at offset 0) without the panic
/// guard: the super-chunk stored at `urlpath` from byte `offset`, or the error.
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
    let path = std::path::Path::new(crate::frame::urlpath::local_path(p));
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

/// `blosc2_schunk_from_buffer` without the panic guard: the super-chunk of the contiguous
/// frame of `len` bytes at `cframe`, or the error.
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

/// `blosc2_schunk_copy` without the panic guard: a copy of `schunk` in `storage`
/// (recompressed when `storage` gives compression parameters), or the error.
pub fn copy_impl(schunk: *mut blosc2_schunk, storage: *const blosc2_storage) -> Result<*mut blosc2_schunk> {
    if storage.is_null() {
        return Err(Error::NullPointer);
    }
    // SAFETY: per the API contract.
    let (st, given_cp, dp, io) = unsafe { storage_params(storage) };
    // SAFETY: urlpath is NULL or a C string.
    let url = unsafe { cstr(st.urlpath) }.map(|u| crate::frame::urlpath::local_path(u).to_owned());
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
