//! Memory handed to C: buffers and structs that callers read and release with `free()`
//! (frames from `blosc2_schunk_to_buffer`, chunk copies, VL blocks, the public super-chunk
//! and its storage, metalayers, b2nd arrays).
//!
//! Every such allocation goes through [`c_malloc`] or [`c_realloc`], so that each can fail
//! with `BLOSC2_ERROR_MEMORY_ALLOC` instead of aborting as Rust's own allocations do, and so
//! that a test can make the Nth of them fail (`c_tests/faults/alloc_shim.c` recognises them
//! by their caller: these two functions, never inlined, and returning through
//! `black_box` so that the allocator is called, not jumped to, from inside them).

use libc::{c_char, c_void};

use crate::error::{Error, Result};

/// `malloc` (or zeroed `calloc`) of `len` bytes, at least one; NULL when it fails.
#[inline(never)]
pub fn c_malloc(len: usize, zeroed: bool) -> *mut u8 {
    // SAFETY: plain allocations; the result is checked by every caller.
    let p = unsafe {
        if zeroed {
            libc::calloc(1, len.max(1)) as *mut u8
        } else {
            libc::malloc(len.max(1)) as *mut u8
        }
    };
    std::hint::black_box(p)
}

/// `realloc` of `p` (NULL or from these functions) to `len` bytes; NULL when it fails, `p`
/// then unchanged.
#[inline(never)]
pub fn c_realloc(p: *mut u8, len: usize) -> *mut u8 {
    // SAFETY: p is NULL or came from the C allocator, per contract.
    let q = unsafe { libc::realloc(p as *mut c_void, len.max(1)) as *mut u8 };
    std::hint::black_box(q)
}

/// A `malloc`ed copy of `data`.
pub fn malloc_copy(data: &[u8]) -> Result<*mut u8> {
    let p = c_malloc(data.len(), false);
    if p.is_null() {
        return Err(Error::MemoryAlloc);
    }
    // SAFETY: p is valid for data.len() bytes and does not overlap data.
    unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), p, data.len()) };
    Ok(p)
}

/// A `malloc`ed NUL-terminated copy of `s`.
pub fn c_strdup(s: &str) -> Result<*mut c_char> {
    let p = c_malloc(s.len() + 1, false);
    if p.is_null() {
        return Err(Error::MemoryAlloc);
    }
    // SAFETY: p is valid for s.len() + 1 bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(s.as_ptr(), p, s.len());
        *p.add(s.len()) = 0;
    }
    Ok(p as *mut c_char)
}

/// One `T` moved into zeroed C memory (for the plain C structs of the ABI).
pub fn c_box<T>(v: T) -> Result<*mut T> {
    let p = c_malloc(std::mem::size_of::<T>(), true) as *mut T;
    if p.is_null() {
        return Err(Error::MemoryAlloc);
    }
    // SAFETY: p is valid and aligned (malloc alignment suffices for the ABI's structs).
    unsafe { p.write(v) };
    Ok(p)
}

/// Free what these functions returned (NULL is fine).
pub fn c_free<T>(p: *mut T) {
    // SAFETY: p is NULL or came from the C allocator.
    unsafe { libc::free(p as *mut c_void) }
}
