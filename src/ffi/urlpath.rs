//! Path helpers (`blosc2_remove_dir`, `blosc2_remove_urlpath`, `blosc2_rename_urlpath`) and
//! index conversions (`blosc2_unidim_to_multidim`, `blosc2_multidim_to_unidim`): the C face
//! of [`crate::frame::urlpath`] and of the index functions of [`crate::b2nd`].

use std::path::Path;

use libc::{c_char, c_int};

use super::boundary::{cstr, guard, PANIC_CODE};
use crate::error::Error;
use crate::frame::urlpath;

fn code(r: crate::Result<()>) -> c_int {
    r.map_or_else(|e| e.code(), |()| 0)
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
        code(urlpath::remove_dir(Path::new(p)))
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
        code(urlpath::remove(Path::new(p)))
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
        code(urlpath::rename(Path::new(a), Path::new(b)))
    })
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
        let (shape, out) = unsafe { (std::slice::from_raw_parts(shape as *const i64, n), std::slice::from_raw_parts_mut(index, n)) };
        crate::b2nd::unravel_unbounded(i, shape, out);
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
            acc = crate::b2nd::ravel(ix, st);
        }
        // SAFETY: writable per contract.
        unsafe { *i = acc };
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_conversions() {
        let mut shape = [3i64, 4, 5];
        let mut idx = [0i64; 3];
        // SAFETY: valid arrays of 3 items.
        unsafe { blosc2_unidim_to_multidim(3, shape.as_mut_ptr(), 37, idx.as_mut_ptr()) };
        assert_eq!(idx, [1, 3, 2]);
        let strides = [20i64, 5, 1];
        let mut i = 0;
        // SAFETY: as above.
        unsafe { blosc2_multidim_to_unidim([1i64, 3, 2].as_ptr(), 3, strides.as_ptr(), &mut i) };
        assert_eq!(i, 37);
    }
}
