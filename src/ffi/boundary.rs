//! The panic boundary: every exported function runs its body through [`guard`], so a bug
//! shows up as an error code instead of unwinding into C (undefined behaviour).

use std::panic::{catch_unwind, AssertUnwindSafe};

/// Run `f`, returning `on_panic` if it panics.
pub fn guard<R>(on_panic: R, f: impl FnOnce() -> R) -> R {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(on_panic)
}

/// `BLOSC2_ERROR_FAILURE`, what a caught panic reports where an `int` is returned.
pub const PANIC_CODE: i32 = -1;

/// Build a read-only slice from C, treating null or non-positive lengths as empty.
///
/// # Safety
/// When `ptr` is non-null it must be valid for reads of `len` bytes.
pub unsafe fn slice<'a>(ptr: *const u8, len: usize) -> &'a [u8] {
    if ptr.is_null() || len == 0 {
        &[]
    } else {
        // SAFETY: guaranteed by the caller.
        unsafe { std::slice::from_raw_parts(ptr, len) }
    }
}

/// Build a writable slice from C.
///
/// # Safety
/// When `ptr` is non-null it must be valid for writes of `len` bytes and not aliased.
pub unsafe fn slice_mut<'a>(ptr: *mut u8, len: usize) -> &'a mut [u8] {
    if ptr.is_null() || len == 0 {
        &mut []
    } else {
        // SAFETY: guaranteed by the caller.
        unsafe { std::slice::from_raw_parts_mut(ptr, len) }
    }
}

/// Read a C string; `None` for null or invalid UTF-8.
///
/// # Safety
/// `p` must be null or point to a NUL-terminated string.
pub unsafe fn cstr<'a>(p: *const libc::c_char) -> Option<&'a str> {
    if p.is_null() {
        return None;
    }
    // SAFETY: guaranteed by the caller.
    unsafe { std::ffi::CStr::from_ptr(p) }.to_str().ok()
}
