//! The exported shuffle kernels (`blosc2_shuffle` & co.). Argument checks return what the
//! reference returns (typesize 1..=256, non-negative blocksize), without its crashes.

use super::boundary::{guard, slice, slice_mut, PANIC_CODE};
use crate::error::Error;
use crate::filters;

/// # Safety
/// `src` readable and `dest` writable for `blocksize` bytes.
unsafe fn run(typesize: i32, blocksize: i32, src: *const libc::c_void, dest: *mut libc::c_void, max_typesize: i32, f: impl FnOnce(usize, &[u8], &mut [u8]) -> Result<(), ()>) -> i32 {
    guard(PANIC_CODE, || {
        if typesize <= 0 || typesize > max_typesize || blocksize < 0 {
            return Error::InvalidParam.code();
        }
        if (src.is_null() || dest.is_null()) && blocksize > 0 {
            return Error::NullPointer.code();
        }
        // SAFETY: per contract.
        let (s, d) = unsafe { (slice(src as *const u8, blocksize as usize), slice_mut(dest as *mut u8, blocksize as usize)) };
        match f(typesize as usize, s, d) {
            Ok(()) => blocksize,
            Err(()) => Error::FilterPipeline.code(),
        }
    })
}

/// # Safety
/// `src` readable and `dest` writable for `blocksize` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_shuffle(typesize: i32, blocksize: i32, src: *const libc::c_void, dest: *mut libc::c_void) -> i32 {
    // SAFETY: forwarded.
    unsafe { run(typesize, blocksize, src, dest, 256, |t, s, d| { filters::shuffle(t, s, d); Ok(()) }) }
}

/// # Safety
/// As `blosc2_shuffle`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_unshuffle(typesize: i32, blocksize: i32, src: *const libc::c_void, dest: *mut libc::c_void) -> i32 {
    // SAFETY: forwarded.
    unsafe { run(typesize, blocksize, src, dest, 256, |t, s, d| { filters::unshuffle_here(t, s, d); Ok(()) }) }
}

/// # Safety
/// As `blosc2_shuffle`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_bitshuffle(typesize: i32, blocksize: i32, src: *const libc::c_void, dest: *mut libc::c_void) -> i32 {
    // SAFETY: forwarded.
    unsafe { run(typesize, blocksize, src, dest, 256, |t, s, d| filters::bitshuffle(t, s, d).map_err(|_| ())) }
}

/// # Safety
/// As `blosc2_shuffle`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_bitunshuffle(typesize: i32, blocksize: i32, src: *const libc::c_void, dest: *mut libc::c_void) -> i32 {
    // SAFETY: forwarded.
    unsafe {
        // The reference does not bound the typesize here (any positive value works).
        run(typesize, blocksize, src, dest, i32::MAX, |t, s, d| {
            filters::bitunshuffle(t, s, d, filters::CURRENT_FORMAT_VERSION).map_err(|_| ())
        })
    }
}
