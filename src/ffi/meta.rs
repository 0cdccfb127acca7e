//! Metalayers (`blosc2_meta_*`) and variable-length metalayers (`blosc2_vlmeta_*`).
//!
//! The header's inline `blosc2_meta_exists`/`blosc2_meta_get` read `schunk->metalayers[]`
//! directly; [`super::schunk::Handle::sync`] keeps those arrays current after every call here.
//! Each successful change bumps `change_tick` once, as the reference does (the core super-chunk counts them).

use libc::{c_char, c_int};

use super::abi::*;
use super::boundary::{cstr, guard, slice, PANIC_CODE};
use super::context::core_cparams;
use super::schunk::{malloc_copy, Handle};
use crate::error::{Error, Result};
use crate::schunk::meta::{compress_vlmeta, decompress_vlmeta};
use crate::frame::header::METALAYER_NAME_MAXLEN;

fn run(schunk: *mut blosc2_schunk, f: impl FnOnce(&mut Handle) -> Result<c_int>) -> c_int {
    guard(PANIC_CODE, || locked(schunk, f).unwrap_or_else(|e| e.code()))
}

fn locked<R>(schunk: *mut blosc2_schunk, f: impl FnOnce(&mut Handle) -> Result<R>) -> Result<R> {
    super::schunk::with(schunk, f)
}

/// The reference's first check in the add/update/get calls: a NULL super-chunk or name is
/// `BLOSC2_ERROR_INVALID_PARAM`.
fn null_args(schunk: *mut blosc2_schunk, name: *const c_char) -> Option<c_int> {
    (schunk.is_null() || name.is_null()).then(|| Error::InvalidParam.code())
}

/// # Safety
/// `name` NULL or a C string.
unsafe fn name_of<'a>(name: *const c_char) -> Result<&'a str> {
    if name.is_null() {
        return Err(Error::NullPointer);
    }
    // SAFETY: per contract.
    unsafe { cstr(name) }.ok_or(Error::InvalidParam)
}

/// # Safety
/// `content` readable for `len` bytes when non-null.
unsafe fn content_of<'a>(content: *const u8, len: i32) -> Result<&'a [u8]> {
    if len < 0 {
        return Err(Error::InvalidParam);
    }
    if content.is_null() && len > 0 {
        return Err(Error::NullPointer);
    }
    // SAFETY: per contract.
    Ok(unsafe { slice(content, len as usize) })
}

/// Add a fixed-length metalayer; returns its index.
///
/// # Safety
/// `schunk` live; `name` a C string; `content` readable for `content_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_meta_add(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content: *mut u8,
    content_len: i32,
) -> c_int {
    if let Some(code) = null_args(schunk, name) {
        return code;
    }
    run(schunk, |h| {
        // SAFETY: per contract.
        let (n, c) = unsafe { (name_of(name)?, content_of(content, content_len)?) };
        if n.len() > METALAYER_NAME_MAXLEN {
            // The reference crashes here; an error is the documented intent.
            return Err(Error::InvalidParam);
        }
        let i = h.sc.meta_add(n, c)?;
        Ok(i as c_int)
    })
}

/// Overwrite a metalayer in place. Content longer than the original is ignored (the
/// reference returns the index and changes nothing); shorter content overwrites a prefix.
///
/// # Safety
/// As `blosc2_meta_add`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_meta_update(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content: *mut u8,
    content_len: i32,
) -> c_int {
    if let Some(code) = null_args(schunk, name) {
        return code;
    }
    run(schunk, |h| {
        // SAFETY: per contract.
        let (n, c) = unsafe { (name_of(name)?, content_of(content, content_len)?) };
        if n.len() > METALAYER_NAME_MAXLEN {
            return Err(Error::InvalidParam);
        }
        let i = h.sc.meta_exists(n).ok_or(Error::NotFound)?;
        if c.len() > h.sc.metalayers()[i].content.len() {
            return Ok(i as c_int);
        }
        let i = h.sc.meta_update(n, c)?;
        Ok(i as c_int)
    })
}

/// Index of vlmetalayer `name`, or `BLOSC2_ERROR_NOT_FOUND`.
///
/// # Safety
/// `schunk` live; `name` a C string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_exists(schunk: *mut blosc2_schunk, name: *const c_char) -> c_int {
    run(schunk, |h| {
        // SAFETY: per contract.
        let n = unsafe { name_of(name) }?;
        if n.len() > METALAYER_NAME_MAXLEN {
            return Err(Error::InvalidParam);
        }
        // Another handle may have changed the vlmetalayers: look before answering.
        h.sc.refresh()?;
        h.sc.vlmeta_exists(n).map(|i| i as c_int).ok_or(Error::NotFound)
    })
}

/// Compression parameters for a vlmetalayer (`BLOSC2_CPARAMS_DEFAULTS` for NULL).
///
/// # Safety
/// `cparams` NULL or valid.
unsafe fn vl_params(cparams: *const blosc2_cparams) -> crate::chunk::CompressParams {
    // SAFETY: per contract.
    let cp = unsafe { cparams.as_ref() }.copied().unwrap_or(BLOSC2_CPARAMS_DEFAULTS);
    let mut p = core_cparams(&cp);
    p.nthreads = p.nthreads.max(1);
    p
}

/// Add a variable-length metalayer; returns its index.
///
/// # Safety
/// `schunk` live; `name` a C string; `content` readable for `content_len`; `cparams` NULL or
/// valid.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_add(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content: *mut u8,
    content_len: i32,
    cparams: *mut blosc2_cparams,
) -> c_int {
    let check = |h: &mut Handle, n: &str| {
        if n.len() > METALAYER_NAME_MAXLEN {
            return Err(Error::Failure);
        }
        if h.sc.vlmeta_exists(n).is_some() {
            return Err(Error::InvalidParam);
        }
        Ok(())
    };
    // SAFETY: per contract.
    unsafe { vlmeta_store(schunk, name, content, content_len, cparams, check, |h, n, v| h.sc.vlmeta_add_compressed(n, v)) }
}

/// Replace the content of a vlmetalayer; returns its index.
///
/// # Safety
/// As `blosc2_vlmeta_add`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_update(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content: *mut u8,
    content_len: i32,
    cparams: *mut blosc2_cparams,
) -> c_int {
    let check = |h: &mut Handle, n: &str| h.sc.vlmeta_exists(n).map(drop).ok_or(Error::NotFound);
    // SAFETY: per contract.
    unsafe { vlmeta_store(schunk, name, content, content_len, cparams, check, |h, n, v| h.sc.vlmeta_update_compressed(n, v)) }
}

/// Compress a vlmetalayer's content and store it: `check` runs under the handle's lock
/// first, then the compression with the handle released (the codec may be user code), then
/// `store` under the lock again. Returns the metalayer's index or an error code.
///
/// # Safety
/// As `blosc2_vlmeta_add`.
unsafe fn vlmeta_store(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content: *mut u8,
    content_len: i32,
    cparams: *mut blosc2_cparams,
    check: impl FnOnce(&mut Handle, &str) -> Result<()>,
    store: impl FnOnce(&mut Handle, &str, Vec<u8>) -> Result<usize>,
) -> c_int {
    if let Some(code) = null_args(schunk, name) {
        return code;
    }
    guard(PANIC_CODE, || {
        let r = (|| {
            // SAFETY: per contract.
            let (n, c) = unsafe { (name_of(name)?, content_of(content, content_len)?) };
            locked(schunk, |h| check(h, n))?;
            // SAFETY: per contract.
            let stored = compress_vlmeta(c, Some(&unsafe { vl_params(cparams) }))?;
            locked(schunk, |h| store(h, n, stored).map(|i| i as c_int))
        })();
        r.unwrap_or_else(|e| e.code())
    })
}

/// A `malloc`ed copy of the decompressed content of a vlmetalayer; returns its index.
///
/// # Safety
/// `schunk` live; `name` a C string; `content`, `content_len` writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_get(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content: *mut *mut u8,
    content_len: *mut i32,
) -> c_int {
    if let Some(code) = null_args(schunk, name) {
        return code;
    }
    guard(PANIC_CODE, || {
        let r = (|| {
            // SAFETY: per contract.
            let n = unsafe { name_of(name) }?;
            if content.is_null() || content_len.is_null() {
                return Err(Error::InvalidParam);
            }
            let (i, stored) = locked(schunk, |h| {
                h.sc.refresh()?;
                let i = h.sc.vlmeta_exists(n).ok_or(Error::NotFound)?;
                Ok((i, h.sc.vlmeta_compressed(n)?))
            })?;
            // The codec may be user code: decompressed with the handle released. A content
            // that does not decode leaves the outputs empty, as in the reference.
            let data = decompress_vlmeta(&stored).inspect_err(|_| {
                // SAFETY: writable per contract (checked non-NULL above).
                unsafe {
                    *content = std::ptr::null_mut();
                    *content_len = 0;
                }
            })?;
            let p = malloc_copy(&data)?;
            // SAFETY: writable per contract.
            unsafe {
                *content = p;
                *content_len = data.len() as i32;
            }
            Ok(i as c_int)
        })();
        r.unwrap_or_else(|e| e.code())
    })
}

/// Remove a vlmetalayer; returns how many remain.
///
/// # Safety
/// `schunk` live; `name` a C string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_delete(schunk: *mut blosc2_schunk, name: *const c_char) -> c_int {
    run(schunk, |h| {
        // SAFETY: per contract.
        let n = unsafe { name_of(name) }?;
        if h.sc.vlmeta_exists(n).is_none() {
            return Err(Error::NotFound);
        }
        let left = h.sc.vlmeta_delete(n)?;
        Ok(left as c_int)
    })
}

/// Store pointers to the vlmetalayer names (owned by the super-chunk, valid until its next
/// vlmetalayer change) in `names`; returns how many.
///
/// # Safety
/// `schunk` live; `names` writable for `nvlmetalayers` pointers.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_get_names(schunk: *mut blosc2_schunk, names: *mut *mut c_char) -> c_int {
    run(schunk, |h| {
        if names.is_null() {
            return Err(Error::NullPointer);
        }
        h.sync()?;
        let p = h.public();
        // SAFETY: the public struct is live under the handle lock; its vlmetalayer structs are
        // ours and current after sync.
        let s = unsafe { &*p };
        let n = s.nvlmetalayers.max(0) as usize;
        for i in 0..n {
            // SAFETY: names is writable for n entries per contract; slots 0..n are allocated.
            unsafe { *names.add(i) = (*s.vlmetalayers[i]).name };
        }
        Ok(n as c_int)
    })
}
