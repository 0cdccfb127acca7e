//! The default filesystem I/O backend (`blosc2_stdio_*`, declared in
//! `blosc2/blosc2-stdio.h`): positioned reads and writes over a C `FILE*` held in a
//! `malloc`ed `blosc2_stdio_file`, as the reference's callbacks that user backends may wrap.

use libc::{c_char, c_int, c_void, FILE};

use super::abi::*;
use super::boundary::{guard, PANIC_CODE};

/// # Safety
/// `stream` NULL or a stream from `blosc2_stdio_open`.
unsafe fn file_of(stream: *mut c_void) -> Option<*mut FILE> {
    // SAFETY: per contract.
    let s = unsafe { (stream as *mut blosc2_stdio_file).as_ref() }?;
    (!s.file.is_null()).then_some(s.file)
}

/// Open `urlpath` with an fopen `mode`; NULL on failure. `params` (a `blosc2_stdio_params`)
/// is accepted; locking is not implemented.
///
/// # Safety
/// `urlpath`, `mode` C strings.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_open(urlpath: *const c_char, mode: *const c_char, params: *mut c_void) -> *mut c_void {
    guard(std::ptr::null_mut(), || {
        let _ = params;
        if urlpath.is_null() || mode.is_null() {
            return std::ptr::null_mut();
        }
        // SAFETY: C strings per contract.
        let f = unsafe { libc::fopen(urlpath, mode) };
        if f.is_null() {
            return std::ptr::null_mut();
        }
        // SAFETY: plain allocation of the handle struct.
        let h = unsafe { libc::malloc(std::mem::size_of::<blosc2_stdio_file>()) } as *mut blosc2_stdio_file;
        if h.is_null() {
            // SAFETY: f was opened above.
            unsafe { libc::fclose(f) };
            return std::ptr::null_mut();
        }
        // SAFETY: h is a fresh allocation of the right size.
        unsafe { h.write(blosc2_stdio_file { file: f }) };
        h as *mut c_void
    })
}

/// Close a stream from `blosc2_stdio_open`; returns `fclose`'s result.
///
/// # Safety
/// `stream` from `blosc2_stdio_open`, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_close(stream: *mut c_void) -> c_int {
    guard(PANIC_CODE, || {
        // SAFETY: per contract.
        let Some(f) = (unsafe { file_of(stream) }) else { return -1 };
        // SAFETY: f is open; stream was malloc'ed by blosc2_stdio_open.
        unsafe {
            let r = libc::fclose(f);
            libc::free(stream);
            r
        }
    })
}

/// Size of the file in bytes.
///
/// # Safety
/// `stream` from `blosc2_stdio_open`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_size(stream: *mut c_void) -> i64 {
    guard(PANIC_CODE as i64, || {
        // SAFETY: per contract.
        let Some(f) = (unsafe { file_of(stream) }) else { return -1 };
        // SAFETY: f is an open FILE.
        unsafe {
            if libc::fseeko(f, 0, libc::SEEK_END) != 0 {
                return -1;
            }
            libc::ftello(f)
        }
    })
}

/// Write `nitems` items of `size` bytes at `position`; returns the items written.
///
/// # Safety
/// `ptr` readable for `size * nitems` bytes; `stream` from `blosc2_stdio_open`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_write(
    ptr: *const c_void,
    size: i64,
    nitems: i64,
    position: i64,
    stream: *mut c_void,
) -> i64 {
    guard(PANIC_CODE as i64, || {
        // SAFETY: per contract.
        let Some(f) = (unsafe { file_of(stream) }) else { return 0 };
        if ptr.is_null() || size < 0 || nitems < 0 || position < 0 {
            return 0;
        }
        // SAFETY: f open; ptr readable per contract.
        unsafe {
            if libc::fseeko(f, position, libc::SEEK_SET) != 0 {
                return 0;
            }
            libc::fwrite(ptr, size as usize, nitems as usize, f) as i64
        }
    })
}

/// Read `nitems` items of `size` bytes at `position` into `*ptr`; returns the items read.
///
/// # Safety
/// `*ptr` writable for `size * nitems` bytes; `stream` from `blosc2_stdio_open`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_read(
    ptr: *mut *mut c_void,
    size: i64,
    nitems: i64,
    position: i64,
    stream: *mut c_void,
) -> i64 {
    guard(PANIC_CODE as i64, || {
        // SAFETY: per contract.
        let Some(f) = (unsafe { file_of(stream) }) else { return 0 };
        if ptr.is_null() || size < 0 || nitems < 0 || position < 0 {
            return 0;
        }
        // SAFETY: ptr valid per contract.
        let dest = unsafe { *ptr };
        if dest.is_null() {
            return 0;
        }
        // SAFETY: f open; dest writable per contract.
        unsafe {
            if libc::fseeko(f, position, libc::SEEK_SET) != 0 {
                return 0;
            }
            libc::fread(dest, size as usize, nitems as usize, f) as i64
        }
    })
}

/// Truncate (or extend) the file to `size` bytes.
///
/// # Safety
/// `stream` from `blosc2_stdio_open`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_truncate(stream: *mut c_void, size: i64) -> c_int {
    guard(PANIC_CODE, || {
        // SAFETY: per contract.
        let Some(f) = (unsafe { file_of(stream) }) else { return -1 };
        // SAFETY: f open.
        unsafe {
            libc::fflush(f);
            libc::ftruncate(libc::fileno(f), size)
        }
    })
}

/// Release backend parameters: nothing to do for the filesystem backend.
///
/// # Safety
/// Any pointer.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_destroy(params: *mut c_void) -> c_int {
    guard(PANIC_CODE, || {
        let _ = params;
        0
    })
}
