//! Path helpers (`blosc2_remove_dir`, `blosc2_remove_urlpath`, `blosc2_rename_urlpath`) and
//! index conversions (`blosc2_unidim_to_multidim`, `blosc2_multidim_to_unidim`).

use std::path::Path;

use libc::{c_char, c_int};

use super::boundary::{cstr, guard, PANIC_CODE};
use crate::error::Error;

/// The local path an urlpath names: a leading `file:///` is dropped (so `file:///name` is
/// the relative path `name`, as in the reference). The super-chunk calls that take an
/// urlpath (`blosc2_schunk_new`, `_copy`, `_open*`) accept it; the file helpers do not.
pub fn local_path(urlpath: &str) -> &str {
    urlpath.strip_prefix("file:///").unwrap_or(urlpath)
}

/// Remove a directory and its content; `BLOSC2_ERROR_NOT_FOUND` if it does not exist.
///
/// # Safety
/// `path` NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_remove_dir(path: *const c_char) -> c_int {
    guard(PANIC_CODE, || {
        // SAFETY: per contract.
        let Some(p) = (unsafe { cstr(path) }) else { return Error::NullPointer.code() };
        let p = Path::new(p);
        if !p.is_dir() {
            return Error::NotFound.code();
        }
        match std::fs::remove_dir_all(p) {
            Ok(()) => 0,
            Err(_) => Error::FileRemove.code(),
        }
    })
}

/// Remove a file or a directory; a NULL or missing path is not an error.
///
/// # Safety
/// `path` NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_remove_urlpath(path: *const c_char) -> c_int {
    guard(PANIC_CODE, || {
        // SAFETY: per contract.
        let Some(p) = (unsafe { cstr(path) }) else { return 0 };
        let p = Path::new(p);
        let r = match std::fs::symlink_metadata(p) {
            Err(_) => return 0,
            // A sparse frame's lock sidecar lives inside its directory.
            Ok(m) if m.is_dir() => std::fs::remove_dir_all(p),
            Ok(_) => std::fs::remove_file(p).inspect(|()| {
                // A contiguous frame's lock sidecar (if any) goes with it.
                let _ = std::fs::remove_file(crate::frame::lock::sidecar_path(p, false));
            }),
        };
        match r {
            Ok(()) => 0,
            Err(_) => Error::FileRemove.code(),
        }
    })
}

/// Rename a file or directory.
///
/// # Safety
/// Both arguments NULL or C strings.
#[no_mangle]
pub unsafe extern "C" fn blosc2_rename_urlpath(old_urlpath: *mut c_char, new_path: *mut c_char) -> c_int {
    guard(PANIC_CODE, || {
        // SAFETY: per contract.
        let (Some(a), Some(b)) = (unsafe { cstr(old_urlpath) }, unsafe { cstr(new_path) }) else {
            return Error::NullPointer.code();
        };
        match std::fs::rename(a, b) {
            Ok(()) => 0,
            Err(_) => Error::Failure.code(),
        }
    })
}

/// Row-major strides of `shape`.
fn strides_of(shape: &[i64]) -> Vec<i64> {
    let mut s = vec![1i64; shape.len()];
    for j in (0..shape.len().saturating_sub(1)).rev() {
        s[j] = s[j + 1].wrapping_mul(shape[j + 1]);
    }
    s
}

/// Split a linear index into per-dimension indexes of a row-major array of `shape` (the first
/// index is not wrapped, so indexes past the end show up there).
///
/// # Safety
/// `shape` readable and `index` writable for `ndim` items.
#[no_mangle]
pub unsafe extern "C" fn blosc2_unidim_to_multidim(ndim: u8, shape: *mut i64, i: i64, index: *mut i64) {
    guard((), || {
        if ndim == 0 || shape.is_null() || index.is_null() {
            return;
        }
        let n = ndim as usize;
        // SAFETY: per contract.
        let shape = unsafe { std::slice::from_raw_parts(shape as *const i64, n) };
        // SAFETY: per contract.
        let out = unsafe { std::slice::from_raw_parts_mut(index, n) };
        let strides = strides_of(shape);
        for j in 0..n {
            let rem = if j == 0 { i } else { i.checked_rem(strides[j - 1]).unwrap_or(0) };
            out[j] = rem.checked_div(strides[j]).unwrap_or(0);
        }
    })
}

/// Linear index of a multidimensional `index` given `strides`.
///
/// # Safety
/// `index`, `strides` readable for `ndim` items; `i` writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_multidim_to_unidim(index: *const i64, ndim: i8, strides: *const i64, i: *mut i64) {
    guard((), || {
        if i.is_null() {
            return;
        }
        let n = ndim.max(0) as usize;
        let mut acc = 0i64;
        if n > 0 && !index.is_null() && !strides.is_null() {
            // SAFETY: per contract.
            let (ix, st) = unsafe { (std::slice::from_raw_parts(index, n), std::slice::from_raw_parts(strides, n)) };
            acc = ix.iter().zip(st).fold(0i64, |a, (x, s)| a.wrapping_add(x.wrapping_mul(*s)));
        }
        // SAFETY: writable per contract.
        unsafe { *i = acc };
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_url_prefix_is_dropped() {
        assert_eq!(local_path("file:///a/b.b2frame"), "a/b.b2frame");
        assert_eq!(local_path("file:////abs"), "/abs");
        assert_eq!(local_path("x/file:///y"), "x/file:///y");
        assert_eq!(local_path("file://host/y"), "file://host/y");
    }

    #[test]
    fn index_conversions() {
        let mut shape = [3i64, 4, 5];
        let mut idx = [0i64; 3];
        // SAFETY: valid arrays of 3 items.
        unsafe { blosc2_unidim_to_multidim(3, shape.as_mut_ptr(), 37, idx.as_mut_ptr()) };
        assert_eq!(idx, [1, 3, 2]);
        // SAFETY: as above.
        unsafe { blosc2_unidim_to_multidim(3, shape.as_mut_ptr(), 100, idx.as_mut_ptr()) };
        assert_eq!(idx, [5, 0, 0]);
        let strides = [20i64, 5, 1];
        let mut i = 0;
        // SAFETY: as above.
        unsafe { blosc2_multidim_to_unidim([1i64, 3, 2].as_ptr(), 3, strides.as_ptr(), &mut i) };
        assert_eq!(i, 37);
    }
}
