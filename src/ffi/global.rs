//! Library-wide state and the non-contextual API: init/destroy, the global settings
//! (`blosc1_*` setters; kept by [`crate::settings`]) and `blosc2_compress`/
//! `blosc2_decompress`, names and versions, error strings and timestamps.

use std::ffi::CString;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use libc::{c_char, c_int};

use super::abi::*;
use super::boundary::{cstr, guard, slice, slice_mut, PANIC_CODE};
use crate::chunk::ChunkHeader;
use crate::codecs::{self, Codec};
use crate::error::Error;
use crate::settings::{self, GlobalCall, Overrides, SETTINGS};

/// Whether `blosc2_init` ran (and `blosc2_destroy` did not since).
pub static INITIALIZED: AtomicBool = AtomicBool::new(false);

/// Initialise the library once (registers the plugin codecs and tuners known by name);
/// does nothing while it is initialised already.
pub fn ensure_init() {
    if !INITIALIZED.swap(true, Ordering::AcqRel) {
        super::registry::register_builtin_plugins();
        super::tuner::register_builtin_tuners();
    }
}

/// The C return value of a core result: the count on success, the (negative) error code
/// otherwise.
pub fn result_code(r: crate::Result<usize>) -> c_int {
    match r {
        Ok(n) => n as c_int,
        Err(e) => e.code(),
    }
}

/// Initialise the library: registers the plugin codecs and tuners the reference knows by
/// name (loaded at first use). Calling it again before `blosc2_destroy` does nothing.
#[no_mangle]
pub extern "C" fn blosc2_init() {
    guard((), ensure_init)
}

/// Tear down the library: releases the threads of the global calls (when initialised).
#[no_mangle]
pub extern "C" fn blosc2_destroy() {
    guard((), || {
        if INITIALIZED.swap(false, Ordering::AcqRel) {
            settings::release_threads();
        }
    })
}

/// Release the threads of the global calls; 0 on success, a negative error code when the
/// library is not initialised.
#[no_mangle]
pub extern "C" fn blosc2_free_resources() -> c_int {
    guard(PANIC_CODE, || {
        if !INITIALIZED.load(Ordering::Acquire) {
            return Error::Failure.code();
        }
        settings::release_threads();
        0
    })
}

/// The version of c-blosc2 this library stands in for, as a static C string.
#[no_mangle]
pub extern "C" fn blosc2_get_version_string() -> *const c_char {
    super::abi::edition::VERSION_STRING.as_ptr()
}

/// The names of the built-in codecs, comma-separated, as a static C string.
#[no_mangle]
pub extern "C" fn blosc2_list_compressors() -> *const c_char {
    c"blosclz,lz4,lz4hc,zlib,zstd".as_ptr()
}

/// Static NUL-terminated codec names, so `compname` pointers stay valid forever.
fn static_name(c: Codec) -> *const c_char {
    match c {
        Codec::BloscLz => c"blosclz".as_ptr(),
        Codec::Lz4 => c"lz4".as_ptr(),
        Codec::Lz4Hc => c"lz4hc".as_ptr(),
        Codec::Zlib => c"zlib".as_ptr(),
        Codec::Zstd => c"zstd".as_ptr(),
        Codec::User(_) => std::ptr::null(),
    }
}

/// # Safety
/// `compname` must be null or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_compcode_to_compname(compcode: c_int, compname: *mut *const c_char) -> c_int {
    guard(PANIC_CODE, || {
        let (name, code) = match u8::try_from(compcode).ok().and_then(Codec::from_code) {
            Some(Codec::User(id)) => match super::registry::user_codec_name(id)
                .or_else(|| super::registry::plugin_codec_name(id))
            {
                Some(n) => (n, compcode),
                None => (std::ptr::null(), -1),
            },
            Some(c) => (static_name(c), compcode),
            None => (std::ptr::null(), -1),
        };
        if !compname.is_null() {
            // SAFETY: checked non-null; the caller provides a writable pointer slot.
            unsafe { *compname = name };
        }
        code
    })
}

/// # Safety
/// `compname` must be null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_compname_to_compcode(compname: *const c_char) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { blosc2_compname_to_compcode_impl(compname) }
}

/// `blosc2_compname_to_compcode`, for this library's other C functions.
///
/// # Safety
/// As `blosc2_compname_to_compcode`.
pub(crate) unsafe fn blosc2_compname_to_compcode_impl(compname: *const c_char) -> c_int {
    guard(PANIC_CODE, || {
        // SAFETY: the caller passes a C string or null.
        let Some(name) = (unsafe { cstr(compname) }) else { return -1 };
        match Codec::from_name(name) {
            Some(c) => c.code() as c_int,
            // The plugins are registered before any user codec, so their names win.
            None => super::registry::plugin_codec_by_name(name)
                .or_else(|| super::registry::user_codec_by_name(name))
                .map(|id| id as c_int)
                .unwrap_or(-1),
        }
    })
}

/// # Safety
/// `compname` must be a C string or null; `complib`/`version` null or writable. The strings
/// returned are `malloc`ed and owned by the caller, as in the reference.
#[no_mangle]
pub unsafe extern "C" fn blosc2_get_complib_info(
    compname: *const c_char,
    complib: *mut *mut c_char,
    version: *mut *mut c_char,
) -> c_int {
    guard(PANIC_CODE, || {
        // SAFETY: the caller passes a C string or null.
        let name = unsafe { cstr(compname) };
        let (code, lib, ver): (c_int, String, String) = match name.and_then(Codec::from_name) {
            Some(c) => {
                let fmt = c.format();
                let ver = codecs::complib_version(fmt).unwrap_or_default();
                (fmt as c_int, codecs::complib_name(fmt).unwrap_or("").to_string(), ver)
            }
            None => match name.and_then(super::registry::codec_info_by_name) {
                Some((lib, libname)) => (lib as c_int, libname, "unknown".to_string()),
                None => {
                    // The reference crashes here (strdup(NULL)); we report "not found".
                    for out in [complib, version] {
                        if !out.is_null() {
                            // SAFETY: checked non-null, writable per contract.
                            unsafe { *out = std::ptr::null_mut() };
                        }
                    }
                    return Error::NotFound.code();
                }
            },
        };
        for (out, s) in [(complib, lib), (version, ver)] {
            if !out.is_null() {
                let c = CString::new(s).unwrap_or_default();
                // SAFETY: strdup copies the NUL-terminated string into malloc'ed memory,
                // which the caller frees with free() as with the reference.
                unsafe { *out = libc::strdup(c.as_ptr()) };
            }
        }
        code
    })
}

/// The message of error code `error_code` as a static C string ("Unknown error" for
/// any other code).
#[no_mangle]
pub extern "C" fn blosc2_error_string(error_code: c_int) -> *const c_char {
    match Error::from_code(error_code) {
        Some(e) if error_code >= super::abi::edition::LOWEST_ERROR_CODE => error_cstr(e),
        _ => c"Unknown error".as_ptr(),
    }
}

fn error_cstr(e: Error) -> *const c_char {
    static TABLE: OnceLock<Vec<CString>> = OnceLock::new();
    let t = TABLE.get_or_init(|| Error::ALL.iter().map(|e| CString::new(e.message()).unwrap_or_default()).collect());
    t[(-e.code() - 1) as usize].as_ptr()
}

/// The number of threads of the global compression and decompression calls.
#[no_mangle]
pub extern "C" fn blosc2_get_nthreads() -> i16 {
    SETTINGS.nthreads()
}

/// Set the number of threads of the global calls; returns the previous number, or a
/// negative error code when `nthreads` is not positive.
#[no_mangle]
pub extern "C" fn blosc2_set_nthreads(nthreads: i16) -> i16 {
    blosc2_set_nthreads_impl(nthreads)
}

/// `blosc2_set_nthreads`, for this library's other C functions.
pub(crate) fn blosc2_set_nthreads_impl(nthreads: i16) -> i16 {
    guard(-1, || {
        ensure_init();
        SETTINGS.set_nthreads(nthreads).unwrap_or_else(|e| e.code() as i16)
    })
}

/// The name of the codec of the global compression calls as a static C string; NULL when
/// the code is unknown.
#[no_mangle]
pub extern "C" fn blosc1_get_compressor() -> *const c_char {
    let code = SETTINGS.compressor();
    match u8::try_from(code).ok().and_then(Codec::from_code) {
        Some(Codec::User(id)) => super::registry::user_codec_name(id).unwrap_or(std::ptr::null()),
        Some(c) => static_name(c),
        None => std::ptr::null(),
    }
}

/// # Safety
/// `compname` must be null or a C string.
#[no_mangle]
pub unsafe extern "C" fn blosc1_set_compressor(compname: *const c_char) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { blosc1_set_compressor_impl(compname) }
}

/// `blosc1_set_compressor`, for this library's other C functions.
///
/// # Safety
/// As `blosc1_set_compressor`.
pub(crate) unsafe fn blosc1_set_compressor_impl(compname: *const c_char) -> c_int {
    guard(PANIC_CODE, || {
        // SAFETY: forwarded contract.
        let code = unsafe { blosc2_compname_to_compcode_impl(compname) };
        if SETTINGS.set_compressor(code).is_err() {
            return -1;
        }
        ensure_init();
        code
    })
}

/// Turn the delta filter of the global compression calls on (non-zero) or off (0).
#[no_mangle]
pub extern "C" fn blosc2_set_delta(dodelta: c_int) {
    SETTINGS.set_delta(dodelta);
    guard((), ensure_init)
}

/// The block size forced for the global compression calls (0: automatic).
#[no_mangle]
pub extern "C" fn blosc1_get_blocksize() -> c_int {
    SETTINGS.blocksize()
}

/// Force the block size of the global compression calls (0: automatic).
#[no_mangle]
pub extern "C" fn blosc1_set_blocksize(blocksize: usize) {
    SETTINGS.set_blocksize(blocksize)
}

/// Set the split mode (`BLOSC_*_SPLIT`) of the global compression calls.
#[no_mangle]
pub extern "C" fn blosc1_set_splitmode(splitmode: c_int) {
    SETTINGS.set_splitmode(splitmode)
}

// ---- Global compression and decompression ----

/// # Safety
/// `src` must be readable for `srcsize` bytes and `dest` writable for `destsize` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_compress(
    clevel: c_int,
    doshuffle: c_int,
    typesize: i32,
    src: *const libc::c_void,
    srcsize: i32,
    dest: *mut libc::c_void,
    destsize: i32,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { blosc2_compress_impl(clevel, doshuffle, typesize, src, srcsize, dest, destsize) }
}

/// `blosc2_compress`, for this library's other C functions.
///
/// # Safety
/// As `blosc2_compress`.
pub(crate) unsafe fn blosc2_compress_impl(
    clevel: c_int,
    doshuffle: c_int,
    typesize: i32,
    src: *const libc::c_void,
    srcsize: i32,
    dest: *mut libc::c_void,
    destsize: i32,
) -> c_int {
    guard(PANIC_CODE, || {
        ensure_init();
        let env = Overrides::of_process();
        let mut call = GlobalCall { clevel, doshuffle, typesize };
        let by_name = |name: &str| {
            let c = CString::new(name).ok()?;
            // SAFETY: a valid C string.
            Some(unsafe { blosc2_compname_to_compcode_impl(c.as_ptr()) }).filter(|&code| code >= 0)
        };
        if let Err(e) = SETTINGS.take_compress_overrides(&env, &mut call, by_name) {
            return e.code();
        }
        if srcsize < 0 || destsize < 0 {
            return Error::InvalidParam.code();
        }
        if (src.is_null() && srcsize > 0) || dest.is_null() {
            return Error::NullPointer.code();
        }
        let params = match SETTINGS.compress_params(&call, super::abi::edition::GENERATION) {
            Ok(p) => p,
            Err(e) => return e.code(),
        };
        // SAFETY: sizes checked non-negative; pointers valid per the function contract.
        let (s, d) = unsafe { (slice(src as *const u8, srcsize as usize), slice_mut(dest as *mut u8, destsize as usize)) };
        result_code(settings::compress(params, s, d, !env.blosc1_compat, env.nolock))
    })
}

/// # Safety
/// `src` must be readable for `srcsize` bytes and `dest` writable for `destsize` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_decompress(
    src: *const libc::c_void,
    srcsize: i32,
    dest: *mut libc::c_void,
    destsize: i32,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { blosc2_decompress_impl(src, srcsize, dest, destsize) }
}

/// `blosc2_decompress`, for this library's other C functions.
///
/// # Safety
/// As `blosc2_decompress`.
pub(crate) unsafe fn blosc2_decompress_impl(
    src: *const libc::c_void,
    srcsize: i32,
    dest: *mut libc::c_void,
    destsize: i32,
) -> c_int {
    guard(PANIC_CODE, || {
        ensure_init();
        let env = Overrides::of_process();
        if let Err(e) = SETTINGS.take_nthreads(&env) {
            return e.code();
        }
        if src.is_null() || (dest.is_null() && destsize > 0) {
            return Error::NullPointer.code();
        }
        if srcsize < 0 || destsize < 0 {
            return Error::InvalidParam.code();
        }
        // SAFETY: pointers valid per contract; the chunk header bounds what is read.
        let s = unsafe { chunk_slice(src as *const u8, srcsize) };
        let s = match s {
            Ok(s) => s,
            Err(e) => return e.code(),
        };
        // SAFETY: as above.
        let d = unsafe { slice_mut(dest as *mut u8, destsize as usize) };
        result_code(settings::decompress(s, d, env.nolock))
    })
}

/// The readable extent of a chunk whose caller gave `srcsize` (possibly `INT32_MAX` for
/// "trust the header", as the blosc1 API does): the header's `cbytes` bounds it.
///
/// # Safety
/// `src` must be readable for `min(srcsize, cbytes)` bytes, and for 16 bytes at least.
pub unsafe fn chunk_slice<'a>(src: *const u8, srcsize: i32) -> Result<&'a [u8], Error> {
    if src.is_null() {
        return Err(Error::NullPointer);
    }
    if srcsize < MIN_HEADER_LEN as i32 {
        return Err(Error::ReadBuffer);
    }
    // SAFETY: at least 16 bytes are readable per contract.
    let head = unsafe { slice(src, MIN_HEADER_LEN) };
    let cbytes = i32::from_le_bytes([head[12], head[13], head[14], head[15]]);
    let lazy = ChunkHeader::flags_say_extended(head[2]) && srcsize >= 32 && {
        // SAFETY: srcsize >= 32 readable.
        let h = unsafe { slice(src, 32) };
        h[31] & 0x08 != 0
    };
    let len = if lazy || cbytes <= 0 { srcsize } else { srcsize.min(cbytes.max(MIN_HEADER_LEN as i32)) };
    // SAFETY: len <= srcsize, readable per contract.
    Ok(unsafe { slice(src, len as usize) })
}

const MIN_HEADER_LEN: usize = 16;

/// # Safety
/// As `blosc2_compress`; sizes are `size_t`.
#[no_mangle]
pub unsafe extern "C" fn blosc1_compress(
    clevel: c_int,
    doshuffle: c_int,
    typesize: usize,
    nbytes: usize,
    src: *const libc::c_void,
    dest: *mut libc::c_void,
    destsize: usize,
) -> c_int {
    if nbytes > i32::MAX as usize {
        return Error::MaxBufsizeExceeded.code();
    }
    let destsize = destsize.min(i32::MAX as usize) as i32;
    let typesize = typesize.min(i32::MAX as usize) as i32;
    // SAFETY: forwarded contract.
    unsafe { blosc2_compress_impl(clevel, doshuffle, typesize, src, nbytes as i32, dest, destsize) }
}

/// # Safety
/// `src` must hold a complete chunk; `dest` writable for `destsize` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc1_decompress(src: *const libc::c_void, dest: *mut libc::c_void, destsize: usize) -> c_int {
    let destsize = destsize.min(i32::MAX as usize) as i32;
    // SAFETY: forwarded contract; the header's cbytes bounds the read.
    unsafe { blosc2_decompress_impl(src, i32::MAX, dest, destsize) }
}

// ---- Timestamps ----

/// # Safety
/// `timestamp` must be null or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc_set_timestamp(timestamp: *mut blosc_timestamp_t) {
    if timestamp.is_null() {
        return;
    }
    // SAFETY: writable per contract; clock_gettime fills the struct.
    unsafe {
        libc::clock_gettime(libc::CLOCK_MONOTONIC, timestamp);
    }
}

fn nsecs(start: &blosc_timestamp_t, end: &blosc_timestamp_t) -> f64 {
    let s = (end.tv_sec - start.tv_sec) as f64 * 1e9;
    s + (end.tv_nsec - start.tv_nsec) as f64
}

/// Nanoseconds elapsed between two timestamps taken with `blosc_set_timestamp`.
#[no_mangle]
pub extern "C" fn blosc_elapsed_nsecs(start_time: blosc_timestamp_t, end_time: blosc_timestamp_t) -> f64 {
    nsecs(&start_time, &end_time)
}

/// Seconds elapsed between two timestamps taken with `blosc_set_timestamp`.
#[no_mangle]
pub extern "C" fn blosc_elapsed_secs(start_time: blosc_timestamp_t, end_time: blosc_timestamp_t) -> f64 {
    nsecs(&start_time, &end_time) / 1e9
}

// ---- Defaults getters ----

/// A copy of `BLOSC2_CPARAMS_DEFAULTS` (for callers that cannot use the header's constants).
#[no_mangle]
pub extern "C" fn blosc2_get_blosc2_cparams_defaults() -> blosc2_cparams {
    BLOSC2_CPARAMS_DEFAULTS
}

/// A copy of `BLOSC2_DPARAMS_DEFAULTS` (for callers that cannot use the header's constants).
#[no_mangle]
pub extern "C" fn blosc2_get_blosc2_dparams_defaults() -> blosc2_dparams {
    BLOSC2_DPARAMS_DEFAULTS
}

/// A copy of `BLOSC2_STORAGE_DEFAULTS` (for callers that cannot use the header's constants).
#[no_mangle]
pub extern "C" fn blosc2_get_blosc2_storage_defaults() -> blosc2_storage {
    BLOSC2_STORAGE_DEFAULTS
}

/// A copy of `BLOSC2_IO_DEFAULTS` (for callers that cannot use the header's constants).
#[no_mangle]
pub extern "C" fn blosc2_get_blosc2_io_defaults() -> blosc2_io {
    BLOSC2_IO_DEFAULTS
}

/// A copy of `BLOSC2_STDIO_MMAP_DEFAULTS` (for callers that cannot use the header's
/// constants).
#[no_mangle]
pub extern "C" fn blosc2_get_blosc2_stdio_mmap_defaults() -> blosc2_stdio_mmap {
    BLOSC2_STDIO_MMAP_DEFAULTS
}
