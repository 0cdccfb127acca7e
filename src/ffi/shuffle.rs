//! The exported shuffle kernels (`blosc2_shuffle` & co.).

use super::boundary::{guard, slice, slice_mut, PANIC_CODE};
use crate::error::Error;
use crate::filters;

/// # Safety
/// `src` readable and `dest` writable for `blocksize` bytes.
unsafe fn run(typesize: i32, blocksize: i32, src: *const libc::c_void, dest: *mut libc::c_void, f: impl FnOnce(usize, &[u8], &mut [u8]) -> Result<(), ()>) -> i32 {
    guard(PANIC_CODE, || {
        if src.is_null() || dest.is_null() {
            return Error::NullPointer.code();
        }
        if typesize <= 0 || blocksize < 0 {
            return Error::InvalidParam.code();
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
    unsafe { run(typesize, blocksize, src, dest, |t, s, d| { filters::shuffle::shuffle(t, s, d); Ok(()) }) }
}

/// # Safety
/// As `blosc2_shuffle`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_unshuffle(typesize: i32, blocksize: i32, src: *const libc::c_void, dest: *mut libc::c_void) -> i32 {
    // SAFETY: forwarded.
    unsafe { run(typesize, blocksize, src, dest, |t, s, d| { filters::shuffle::unshuffle(t, s, d); Ok(()) }) }
}

/// # Safety
/// As `blosc2_shuffle`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_bitshuffle(typesize: i32, blocksize: i32, src: *const libc::c_void, dest: *mut libc::c_void) -> i32 {
    // SAFETY: forwarded.
    unsafe { run(typesize, blocksize, src, dest, |t, s, d| filters::bitshuffle::bitshuffle(t, s, d).map_err(|_| ())) }
}

/// # Safety
/// As `blosc2_shuffle`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_bitunshuffle(typesize: i32, blocksize: i32, src: *const libc::c_void, dest: *mut libc::c_void) -> i32 {
    // SAFETY: forwarded.
    unsafe {
        run(typesize, blocksize, src, dest, |t, s, d| {
            filters::bitshuffle::bitunshuffle(t, s, d, crate::chunk::header::VERSION_FORMAT).map_err(|_| ())
        })
    }
}
