//! N-dimensional arrays (`b2nd_*`): the C face of [`crate::b2nd`].
//!
//! An array is a `calloc`ed `b2nd_array_t` (C reads its fields) over a super-chunk of this
//! library. Every operation is [`crate::b2nd::ops`]'s, run on a [`Layout`] converted from
//! the public fields (re-derived and validated on every call, as C code may have changed
//! them) and on the super-chunk's handle, locked for each short step. This file converts
//! arguments, keeps the side tables of live contexts and arrays (so a stale or foreign
//! pointer is an error code instead of a crash) and writes the results back into the
//! public struct. Contexts are opaque Rust boxes.

use std::ffi::CString;

use libc::{c_char, c_int, c_void};

use super::abi::*;
use super::boundary::{guard, slice, slice_mut, PANIC_CODE};
use super::schunk::{
    append_file_impl, copy_impl, free_schunk, from_buffer_impl, malloc_copy, new_impl, open_impl, released, to_buffer_impl,
    Released,
};
use crate::b2nd::ops::{self, Buffer, Fill};
use crate::b2nd::{meta, Layout, MAX_DIM};
use crate::chunk::Special;
use crate::error::{Error, Result};
use crate::b2nd::layout::stored_meta;
use crate::schunk::{Holder, Own};

use super::b2nd_structs::*;

// ----- contexts -----

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

/// A new array as `ctx` describes it, its chunks filled as `fill` says.
fn new_filled(ctx: &mut Context, fill: &Fill) -> Result<*mut b2nd_array_t> {
    let mut l = Layout::new(ctx.geometry()?, Some(ctx.dtype.clone()), ctx.dtype_format);
    let mut st = ctx.storage();
    let sc = new_impl(&mut st).map_err(|_| Error::Failure)?;
    let extra: Vec<(String, Vec<u8>)> =
        ctx.metalayers.iter().map(|(n, c)| (n.to_string_lossy().into_owned(), c.clone())).collect();
    let r = released(sc).and_then(|h| ops::create(&h, &mut l, &extra, fill)).and_then(|()| new_array(&l, sc));
    if r.is_err() {
        free_schunk(sc);
    }
    r
}

/// # Safety
/// `ctx` live or NULL; `array` writable or NULL.
unsafe fn create(ctx: *mut b2nd_context_t, array: *mut *mut b2nd_array_t, fill: Fill) -> c_int {
    guard(PANIC_CODE, || {
        if array.is_null() {
            return Error::NullPointer.code();
        }
        // SAFETY: per contract.
        let r = unsafe { ctx_of(ctx) }.and_then(|c| new_filled(c, &fill));
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
    unsafe { create(ctx, array, Fill::Special(Special::Uninit)) }
}

/// An array of zeros (the reference fills "empty" arrays with zeros too).
///
/// # Safety
/// As `b2nd_uninit`.
#[no_mangle]
pub unsafe extern "C" fn b2nd_empty(ctx: *mut b2nd_context_t, array: *mut *mut b2nd_array_t) -> c_int {
    // SAFETY: forwarded.
    unsafe { create(ctx, array, Fill::Special(Special::Zero)) }
}

/// An array of zeros.
///
/// # Safety
/// As `b2nd_uninit`.
#[no_mangle]
pub unsafe extern "C" fn b2nd_zeros(ctx: *mut b2nd_context_t, array: *mut *mut b2nd_array_t) -> c_int {
    // SAFETY: forwarded.
    unsafe { create(ctx, array, Fill::Special(Special::Zero)) }
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
            new_filled(c, &Fill::Special(Special::Nan))
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
    guard(PANIC_CODE, || {
        if array.is_null() {
            return Error::NullPointer.code();
        }
        // SAFETY: per contract.
        let r = unsafe { ctx_of(ctx) }.and_then(|c| {
            c.geometry()?;
            if fill_value.is_null() {
                return Err(Error::NullPointer);
            }
            // SAFETY: readable for typesize bytes per contract.
            let v = unsafe { slice(fill_value as *const u8, c.cparams.typesize.max(0) as usize) }.to_vec();
            new_filled(c, &Fill::Value(v))
        });
        // SAFETY: writable per contract.
        unsafe { hand_array(array, r) }
    })
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
    let h = released(sc)?;
    let l = Layout::read(&h)?;
    new_array(&l, sc)
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

/// Make an array of a super-chunk just opened or built, freeing the super-chunk on failure.
///
/// # Safety
/// `array` writable.
unsafe fn adopt(sc: Result<*mut blosc2_schunk>, array: *mut *mut b2nd_array_t) -> c_int {
    let r = sc.and_then(|sc| from_schunk(sc).inspect_err(|_| {
        free_schunk(sc);
    }));
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
                let (l, h) = parts(a)?;
                let v = ops::view_frame(&h, &l)?;
                // SAFETY: out-pointers writable per contract.
                unsafe {
                    *cframe = malloc_copy(&v)?;
                    *needs_free = true;
                    *cframe_len = v.len() as i64;
                }
                return Ok(0);
            }
            // SAFETY: out-pointers writable.
            let n = unsafe { to_buffer_impl(a.sc, cframe, needs_free) }.unwrap_or_else(|e| e.code() as i64);
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
        let sc = from_buffer_impl(cframe, cframe_len, copy).map_err(|_| Error::Failure);
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
        let sc = open_impl(urlpath, 0).map_err(|_| Error::NullPointer);
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
        let sc = open_impl(urlpath, offset).map_err(|_| Error::NullPointer);
        // SAFETY: writable.
        unsafe { adopt(sc, array) }
    })
}

/// Re-read the array's geometry if another handle changed it: 1 when it did, 0 when current.
///
/// # Safety
/// `array` live.
#[no_mangle]
pub unsafe extern "C" fn b2nd_refresh(array: *mut b2nd_array_t) -> c_int {
    guard(PANIC_CODE, || {
        code((|| {
            // SAFETY: per contract.
            let a = unsafe { array_of(array) }?;
            on_array(a, |h, l| ops::refresh(h, l)).map(|(changed, _)| changed as c_int)
        })())
    })
}

fn dims<'a>(p: *const i64, n: usize) -> Result<&'a [i64]> {
    if p.is_null() {
        return Err(Error::NullPointer);
    }
    // SAFETY: callers pass pointers readable for ndim items (C API contract).
    Ok(unsafe { std::slice::from_raw_parts(p, n) })
}

/// The arguments both slice directions take, checked: the live array, `start`, `stop` and
/// `buffershape` as slices of its dimension count.
///
/// # Safety
/// `array` NULL or live; `start`, `stop`, `buffershape` NULL or readable for ndim items.
unsafe fn slice_args<'a>(
    array: *const b2nd_array_t,
    buffer_is_null: bool,
    start: *const i64,
    stop: *const i64,
    buffershape: *const i64,
    buffersize: i64,
) -> Result<(&'a mut b2nd_array_t, Layout, Released, bool, [&'a [i64]; 3])> {
    // SAFETY: per contract.
    let a = unsafe { array_of(array) }?;
    if buffer_is_null {
        return Err(Error::NullPointer);
    }
    let (mut l, h) = parts(a)?;
    let (_, fresh) = ops::refresh(&h, &mut l)?;
    store_back(a, &l);
    let n = l.geometry.ndim;
    let args = [dims(start, n)?, dims(stop, n)?, dims(buffershape, n)?];
    if buffersize < 0 {
        return Err(Error::InvalidParam);
    }
    Ok((a, l, h, fresh, args))
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
    guard(PANIC_CODE, || {
        code((|| {
            // SAFETY: per contract.
            let (_, l, h, fresh, [start, stop, bshape]) =
                unsafe { slice_args(array, buffer.is_null(), start, stop, buffershape, buffersize) }?;
            // SAFETY: buffer writable for buffersize bytes per contract.
            let buf = unsafe { slice_mut(buffer as *mut u8, buffersize as usize) };
            ops::get_slice(&h, &l, start, stop, buf, bshape, fresh).map(|()| 0)
        })())
    })
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
    guard(PANIC_CODE, || {
        code((|| {
            // SAFETY: per contract.
            let (_, l, h, _, [start, stop, bshape]) =
                unsafe { slice_args(array, buffer.is_null(), start, stop, buffershape, buffersize) }?;
            // SAFETY: buffer readable for buffersize bytes per contract.
            let buf = unsafe { slice(buffer as *const u8, buffersize as usize) };
            ops::set_slice(&h, &l, start, stop, buf, bshape).map(|()| 0)
        })())
    })
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
            let p = new_filled(c, &Fill::Special(Special::Zero))?;
            if g.nitems == 0 {
                return Ok(p);
            }
            // SAFETY: readable for buffersize bytes per contract.
            let buf = unsafe { slice(buffer as *const u8, buffersize as usize) };
            // SAFETY: p is live (just made).
            let a = unsafe { &mut *p };
            let zero = vec![0i64; g.ndim];
            let r = on_array(a, |h, l| {
                ops::refresh(h, l)?;
                ops::set_slice(h, l, &zero, g.shape(), buf, g.shape())
            });
            match r {
                Ok(()) => Ok(p),
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
            on_array(a, |h, l| {
                ops::refresh(h, l)?;
                let ts = crate::b2nd::store::typesize(h)?;
                if (buffersize as i128) < l.geometry.nitems as i128 * ts as i128 {
                    return Err(Error::InvalidParam);
                }
                if l.geometry.nitems == 0 {
                    return Ok(0);
                }
                let (_, fresh) = ops::refresh(h, l)?;
                // SAFETY: writable for buffersize bytes per contract.
                let buf = unsafe { slice_mut(buffer as *mut u8, buffersize as usize) };
                let shape = l.geometry.shape().to_vec();
                let zero = vec![0i64; shape.len()];
                ops::get_slice(h, l, &zero, &shape, buf, &shape, fresh).map(|()| 0)
            })
        })())
    })
}

/// A view's frame as a super-chunk of our own, to save or append it like an array's.
fn view_schunk(a: &b2nd_array_t) -> Result<*mut blosc2_schunk> {
    let (l, h) = parts(a)?;
    let mut v = ops::view_frame(&h, &l)?;
    from_buffer_impl(v.as_mut_ptr(), v.len() as i64, true).map_err(|_| Error::Failure)
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
            released(a.sc)?;
            // SAFETY: live public struct; storage is the super-chunk's own copy.
            let contiguous = unsafe { (*a.sc).storage.as_ref() }.is_some_and(|s| s.contiguous);
            let st = blosc2_storage { contiguous, urlpath, ..BLOSC2_STORAGE_DEFAULTS };
            let (src, temporary) = if is_view(a) { (view_schunk(a)?, true) } else { (a.sc, false) };
            let copy = copy_impl(src, &st);
            if temporary {
                free_schunk(src);
            }
            free_schunk(copy.map_err(|_| Error::Failure)?);
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
        let r = unsafe { array_of(array) }.and_then(|a| {
            if is_view(a) {
                let tmp = view_schunk(a)?;
                // SAFETY: urlpath NULL or a C string per contract.
                let off = unsafe { append_file_impl(tmp, urlpath) };
                free_schunk(tmp);
                off
            } else {
                // SAFETY: as above.
                unsafe { append_file_impl(a.sc, urlpath) }
            }
        });
        r.unwrap_or_else(|e| e.code() as i64)
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
                layout_of(a)?.encode()?
            } else {
                released(a.sc)?.hold(|s| stored_meta(s))?
            };
            let text = Layout::describe(&smeta)?;
            let c = CString::new(text.replace('\0', "")).map_err(|_| Error::Failure)?;
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
    // SAFETY: forwarded.
    guard(PANIC_CODE, || code(unsafe { copy_buffer_impl(ndim, itemsize, src, src_pad_shape, src_start, src_stop, dst, dst_pad_shape, dst_start) }))
}

/// See `b2nd_copy_buffer2`.
///
/// # Safety
/// As `b2nd_copy_buffer2`.
#[allow(clippy::too_many_arguments)] // the arguments of b2nd_copy_buffer2
unsafe fn copy_buffer_impl(
    ndim: i8,
    itemsize: i32,
    src: *const c_void,
    src_pad_shape: *const i64,
    src_start: *const i64,
    src_stop: *const i64,
    dst: *mut c_void,
    dst_pad_shape: *const i64,
    dst_start: *const i64,
) -> Result<c_int> {
    (|| {
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
    })()
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
    guard(PANIC_CODE, || {
        // SAFETY: forwarded.
        code(unsafe {
            copy_buffer_impl(ndim, itemsize as i32, src, src_pad_shape, src_start, src_stop, dst, dst_pad_shape, dst_start)
        })
    })
}

// ----- changing the shape -----

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
            if is_view(a) {
                // A view's shape is tied to the array it views.
                return Err(Error::InvalidParam);
            }
            on_array(a, |h, l| ops::resize(h, l, &ns, st.as_deref())).map(|()| 0)
        })())
    })
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

/// An axis argument as an index (`BLOSC2_ERROR_INVALID_PARAM` when negative; the core
/// checks the upper bound).
fn axis_of(axis: i8) -> Result<usize> {
    usize::try_from(axis).map_err(|_| Error::InvalidParam)
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
            on_array(a, |h, l| ops::insert(h, l, b, axis_of(axis)?, insert_start)).map(|()| 0)
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
            on_array(a, |h, l| ops::append(h, l, b, axis_of(axis)?)).map(|()| 0)
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
            on_array(a, |h, l| ops::delete(h, l, axis_of(axis)?, delete_start, delete_len)).map(|()| 0)
        })())
    })
}

// ----- copies -----

/// A new array of `ctx`'s storage, chunking and metalayers holding `src[start..stop)`.
fn get_slice_array(c: &mut Context, src: &mut b2nd_array_t, start: &[i64], stop: &[i64]) -> Result<*mut b2nd_array_t> {
    let shape = on_array(src, |h, l| ops::slice_shape(h, l, start, stop))?;
    c.ndim = shape.len();
    c.shape[..shape.len()].copy_from_slice(&shape);
    let p = new_filled(c, &Fill::Special(Special::Zero))?;
    // SAFETY: p is a live array we just made.
    let dst = unsafe { &mut *p };
    let r = (|| {
        let (dl, dh) = parts(dst)?;
        on_array(src, |sh, sl| ops::copy_items(sh, sl, &dh, &dl, start))
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
    let sl = on_array(src, |h, l| ops::refresh(h, l).map(|_| l.clone()))?;
    let sg = &sl.geometry;
    let n = sg.ndim;
    c.ndim = n;
    c.shape[..n].copy_from_slice(sg.shape());
    if sl.copies_as_frame(&c.chunkshape[..n], &c.blockshape[..n]) {
        let l = Layout::new(c.geometry()?, Some(c.dtype.clone()), c.dtype_format);
        let mut st = c.storage();
        let sc = copy_impl(src.sc, &mut st).map_err(|_| Error::Failure)?;
        return new_array(&l, sc).inspect_err(|_| {
        free_schunk(sc);
    });
    }
    // Other chunking: copy the items, then the user metalayers and vlmetalayers.
    let (metas, vlmetas) = ops::user_metadata(&released(src.sc)?)?;
    let saved = std::mem::take(&mut c.metalayers);
    for (name, content) in metas {
        c.metalayers.push((CString::new(name).map_err(|_| Error::Failure)?, content));
    }
    let stop = sg.shape().to_vec();
    let r = get_slice_array(c, src, &vec![0; n], &stop);
    c.metalayers = saved;
    let p = r?;
    // SAFETY: p live.
    let added = released(unsafe { (*p).sc }).and_then(|h| ops::add_vlmetas(&h, &vlmetas));
    if let Err(e) = added {
        drop_array(p, true);
        return Err(e);
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
            on_array(a, |h, l| {
                ops::refresh(h, l)?;
                let ts = crate::b2nd::store::typesize(h)?;
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
                // SAFETY: readable per contract.
                let cs = unsafe { std::slice::from_raw_parts(coords, ncoords as usize) };
                // SAFETY: writable for buffersize bytes per contract.
                let out = unsafe { slice_mut(buffer as *mut u8, buffersize as usize) };
                ops::get_sparse(h, l, cs, out).map(|()| 0)
            })
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
    on_array(a, |h, l| {
        ops::refresh(h, l)?;
        crate::b2nd::store::typesize(h)?;
        let n = l.geometry.ndim;
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
        let buf = if get {
            // SAFETY: writable for buffersize bytes per contract.
            Buffer::Out(unsafe { slice_mut(buffer as *mut u8, buffersize as usize) })
        } else {
            // SAFETY: readable for buffersize bytes per contract.
            Buffer::In(unsafe { slice(buffer as *const u8, buffersize as usize) })
        };
        ops::orthogonal(h, l, &lists, buf, bshape).map(|()| 0)
    })
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
    let g1 = on_array(s1, |h, l| ops::refresh(h, l).map(|_| l.geometry.clone()))?;
    let (mut l2, h2) = parts(s2)?;
    ops::refresh(&h2, &mut l2)?;
    store_back(s2, &l2);
    let (ts1, ts2) = (crate::b2nd::store::typesize(&released(s1.sc)?)?, crate::b2nd::store::typesize(&h2)?);
    let ax = axis_of(axis)?;
    ops::check_concatenation(&g1, ts1, &l2.geometry, ts2, ax)?;
    // Joining an array to itself in place: the resize moves the chunks being read, so read
    // them from a snapshot.
    let mut snapshot = if !copy && s1.sc == s2.sc { Some(ops::snapshot(&h2)?) } else { None };
    let dest = if copy {
        // SAFETY: ctx checked live by ctx_of.
        unsafe { ctx_of(ctx) }.and_then(|c| copy_array(c, s1))?
    } else {
        src1 as *mut b2nd_array_t
    };
    // SAFETY: dest live (src1 or our copy).
    let d = unsafe { &mut *dest };
    let r = on_array(d, |dh, dl| match snapshot.as_mut() {
        Some(sc) => {
            l2.view = false;
            l2.last_tick = sc.change_tick();
            ops::concat_into(dh, dl, &Own::new(sc), &mut l2, ax, g1.chunkshape(), g1.shape[ax])
        }
        None => ops::concat_into(dh, dl, &h2, &mut l2, ax, g1.chunkshape(), g1.shape[ax]),
    });
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

/// A view of `a` with the layout `view` over the same chunks.
fn new_view(a: &b2nd_array_t, view: &Layout) -> Result<*mut b2nd_array_t> {
    if !ops::viewable(&released(a.sc)?)? {
        return Err(Error::InvalidParam);
    }
    let p = new_array(view, a.sc)?;
    views().write().unwrap_or_else(|e| e.into_inner()).insert(p as usize);
    Ok(p)
}

/// # Safety
/// `index` NULL or readable for ndim bools.
unsafe fn squeeze_with(a: &mut b2nd_array_t, index: *const bool) -> Result<*mut b2nd_array_t> {
    let l = on_array(a, |h, l| ops::refresh(h, l).map(|_| l.clone()))?;
    if index.is_null() {
        return Err(Error::NullPointer);
    }
    // SAFETY: readable for ndim items per contract.
    let idx = unsafe { std::slice::from_raw_parts(index, l.geometry.ndim) };
    new_view(a, &l.squeezed(idx)?)
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
            let l = on_array(a, |h, l| ops::refresh(h, l).map(|_| l.clone()))?;
            if axis.is_null() {
                return Err(Error::NullPointer);
            }
            if final_dims as usize > MAX_DIM {
                return Err(Error::InvalidParam);
            }
            // SAFETY: readable for final_dims items per contract.
            let ax = unsafe { std::slice::from_raw_parts(axis, final_dims as usize) };
            new_view(a, &l.expanded(ax)?)
        })();
        // SAFETY: writable.
        unsafe { hand_array(view, r) }
    })
}
