//! Chunk inspection (`blosc1_cbuffer_*`, `blosc2_cbuffer_*`), the context-free getitem calls,
//! special-value chunk constructors and the VL-block chunk calls.

use libc::{c_char, c_int, c_void};

use super::abi::*;
use super::boundary::{guard, slice, slice_mut, PANIC_CODE};
use super::context::{core_cparams, ctx_mut, getitem_impl, lazy_capable};
use super::global::{chunk_slice, result_code};
use super::cmem::{c_free, malloc_copy};
use crate::chunk::decompress::Decompressor;
use crate::chunk::special::{check_special, write_special};
use crate::chunk::{ChunkHeader, DecompressParams, Special};
use crate::codecs;
use crate::error::Error;

/// Read the 16-byte header the way the inspectors do.
///
/// # Safety
/// `cbuffer` must be null or readable for 16 bytes.
unsafe fn min_header(cbuffer: *const c_void) -> Result<ChunkHeader, Error> {
    if cbuffer.is_null() {
        return Err(Error::NullPointer);
    }
    // SAFETY: 16 readable bytes per contract.
    ChunkHeader::read_min(unsafe { slice(cbuffer as *const u8, 16) })
}

/// # Safety
/// `cbuffer` readable for 16 bytes; out pointers null or writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_cbuffer_sizes(
    cbuffer: *const c_void,
    nbytes: *mut i32,
    cbytes: *mut i32,
    blocksize: *mut i32,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { blosc2_cbuffer_sizes_impl(cbuffer, nbytes, cbytes, blocksize) }
}

/// `blosc2_cbuffer_sizes`, for this library's other C functions.
///
/// # Safety
/// As `blosc2_cbuffer_sizes`.
pub(crate) unsafe fn blosc2_cbuffer_sizes_impl(
    cbuffer: *const c_void,
    nbytes: *mut i32,
    cbytes: *mut i32,
    blocksize: *mut i32,
) -> c_int {
    guard(PANIC_CODE, || {
        // SAFETY: per contract.
        let r = unsafe { min_header(cbuffer) };
        let (n, c, b, rc) = match &r {
            Ok(h) => (h.nbytes, h.cbytes, h.blocksize, 0),
            Err(e) => (0, 0, 0, e.code()),
        };
        for (p, v) in [(nbytes, n), (cbytes, c), (blocksize, b)] {
            if !p.is_null() {
                // SAFETY: non-null out pointer, writable per contract.
                unsafe { *p = v };
            }
        }
        rc
    })
}

/// # Safety
/// As `blosc2_cbuffer_sizes`, with `size_t` outputs.
#[no_mangle]
pub unsafe extern "C" fn blosc1_cbuffer_sizes(
    cbuffer: *const c_void,
    nbytes: *mut usize,
    cbytes: *mut usize,
    blocksize: *mut usize,
) {
    guard((), || {
        let (mut n, mut c, mut b) = (0i32, 0i32, 0i32);
        // SAFETY: per contract.
        unsafe { blosc2_cbuffer_sizes_impl(cbuffer, &mut n, &mut c, &mut b) };
        for (p, v) in [(nbytes, n), (cbytes, c), (blocksize, b)] {
            if !p.is_null() {
                // SAFETY: non-null out pointer, writable per contract.
                unsafe { *p = v as usize };
            }
        }
    })
}

/// # Safety
/// `cbuffer` readable for `cbytes` (or 16) bytes; `nbytes` writable.
#[no_mangle]
pub unsafe extern "C" fn blosc1_cbuffer_validate(cbuffer: *const c_void, cbytes: usize, nbytes: *mut usize) -> c_int {
    guard(PANIC_CODE, || {
        let set = |v: usize| {
            if !nbytes.is_null() {
                // SAFETY: non-null, writable per contract.
                unsafe { *nbytes = v };
            }
        };
        if cbytes < 16 {
            set(0);
            return Error::WriteBuffer.code();
        }
        // SAFETY: per contract.
        match unsafe { min_header(cbuffer) } {
            Err(e) => {
                set(0);
                e.code()
            }
            Ok(h) => {
                if h.cbytes as usize != cbytes {
                    set(0);
                    return Error::InvalidHeader.code();
                }
                if h.nbytes as i64 > crate::chunk::header::MAX_BUFFERSIZE {
                    set(0);
                    return Error::MemoryAlloc.code();
                }
                set(h.nbytes as usize);
                0
            }
        }
    })
}

/// # Safety
/// `cbuffer` readable for 16 bytes; outputs writable.
#[no_mangle]
pub unsafe extern "C" fn blosc1_cbuffer_metainfo(cbuffer: *const c_void, typesize: *mut usize, flags: *mut c_int) {
    guard((), || {
        // SAFETY: per contract.
        let (t, f) = match unsafe { min_header(cbuffer) } {
            Ok(h) => (h.typesize as usize, h.flags as c_int),
            Err(_) => (0, 0),
        };
        if !typesize.is_null() {
            // SAFETY: writable per contract.
            unsafe { *typesize = t };
        }
        if !flags.is_null() {
            // SAFETY: writable per contract.
            unsafe { *flags = f };
        }
    })
}

/// # Safety
/// `cbuffer` readable for 16 bytes; outputs writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_cbuffer_versions(cbuffer: *const c_void, version: *mut c_int, versionlz: *mut c_int) {
    guard((), || {
        // SAFETY: per contract.
        let (v, l) = match unsafe { min_header(cbuffer) } {
            Ok(h) => (h.version as c_int, h.versionlz as c_int),
            Err(_) => (0, 0),
        };
        if !version.is_null() {
            // SAFETY: writable per contract.
            unsafe { *version = v };
        }
        if !versionlz.is_null() {
            // SAFETY: writable per contract.
            unsafe { *versionlz = l };
        }
    })
}

/// # Safety
/// `cbuffer` readable for 16 bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_cbuffer_complib(cbuffer: *const c_void) -> *const c_char {
    guard(std::ptr::null(), || {
        // SAFETY: per contract.
        let Ok(h) = (unsafe { min_header(cbuffer) }) else { return std::ptr::null() };
        match h.compformat() {
            codecs::FORMAT_BLOSCLZ => c"BloscLZ".as_ptr(),
            codecs::FORMAT_LZ4 => c"LZ4".as_ptr(),
            codecs::FORMAT_ZLIB => c"Zlib".as_ptr(),
            codecs::FORMAT_ZSTD => c"Zstd".as_ptr(),
            codecs::FORMAT_SNAPPY => c"Snappy".as_ptr(),
            _ => std::ptr::null(),
        }
    })
}

/// # Safety
/// `src` readable for `srcsize` bytes; `dest` writable for `destsize` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_getitem(
    src: *const c_void,
    srcsize: i32,
    start: c_int,
    nitems: c_int,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { blosc2_getitem_impl(src, srcsize, start, nitems, dest, destsize) }
}

/// `blosc2_getitem`, for this library's other C functions.
///
/// # Safety
/// As `blosc2_getitem`.
pub(crate) unsafe fn blosc2_getitem_impl(
    src: *const c_void,
    srcsize: i32,
    start: c_int,
    nitems: c_int,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    guard(PANIC_CODE, || {
        let mut dec = Decompressor::new(DecompressParams::default());
        // SAFETY: forwarded contract.
        unsafe { getitem_impl(&mut dec, src, srcsize, start as i64, nitems as i64, dest, destsize, true) }
    })
}

/// # Safety
/// `src` holds a complete chunk; `dest` large enough for `nitems` items.
#[no_mangle]
pub unsafe extern "C" fn blosc1_getitem(src: *const c_void, start: c_int, nitems: c_int, dest: *mut c_void) -> c_int {
    // SAFETY: forwarded contract (sizes trusted as the blosc1 API does).
    unsafe { blosc2_getitem_impl(src, i32::MAX, start, nitems, dest, i32::MAX) }
}

/// # Safety
/// `dest` writable for `destsize` bytes; `repeatval` readable for typesize bytes.
unsafe fn special(cparams: blosc2_cparams, nbytes: i32, dest: *mut c_void, destsize: i32, kind: Special, value: *const c_void) -> c_int {
    if dest.is_null() {
        return Error::NullPointer.code();
    }
    if destsize < 0 {
        return Error::InvalidParam.code();
    }
    let p = core_cparams(&cparams);
    // SAFETY: writable per contract.
    let d = unsafe { slice_mut(dest as *mut u8, destsize as usize) };
    let v = if kind == Special::Value {
        if value.is_null() {
            return Error::NullPointer.code();
        }
        // SAFETY: readable for typesize bytes per contract.
        Some(unsafe { slice(value as *const u8, cparams.typesize.max(0) as usize) })
    } else {
        None
    };
    if let Err(e) = check_special(&p, nbytes, kind, d.len()).and_then(|()| super::context::special_chunk_round(&cparams)) {
        return e.code();
    }
    result_code(write_special(&p, nbytes, kind, v, d))
}

/// # Safety
/// See `special`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_chunk_zeros(cparams: blosc2_cparams, nbytes: i32, dest: *mut c_void, destsize: i32) -> c_int {
    // SAFETY: forwarded.
    guard(PANIC_CODE, || unsafe { special(cparams, nbytes, dest, destsize, Special::Zero, std::ptr::null()) })
}

/// # Safety
/// See `special`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_chunk_nans(cparams: blosc2_cparams, nbytes: i32, dest: *mut c_void, destsize: i32) -> c_int {
    // SAFETY: forwarded.
    guard(PANIC_CODE, || unsafe { special(cparams, nbytes, dest, destsize, Special::Nan, std::ptr::null()) })
}

/// # Safety
/// See `special`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_chunk_uninit(cparams: blosc2_cparams, nbytes: i32, dest: *mut c_void, destsize: i32) -> c_int {
    // SAFETY: forwarded.
    guard(PANIC_CODE, || unsafe { special(cparams, nbytes, dest, destsize, Special::Uninit, std::ptr::null()) })
}

/// # Safety
/// See `special`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_chunk_repeatval(
    cparams: blosc2_cparams,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
    repeatval: *const c_void,
) -> c_int {
    // SAFETY: forwarded.
    guard(PANIC_CODE, || unsafe { special(cparams, nbytes, dest, destsize, Special::Value, repeatval) })
}

/// # Safety
/// `src` readable for `srcsize`; `nblocks` writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlchunk_get_nblocks(src: *const c_void, srcsize: i32, nblocks: *mut i32) -> c_int {
    guard(PANIC_CODE, || {
        if src.is_null() || nblocks.is_null() {
            return Error::NullPointer.code();
        }
        if srcsize < 32 {
            return Error::ReadBuffer.code();
        }
        // SAFETY: readable per contract.
        let s = unsafe { slice(src as *const u8, srcsize as usize) };
        match ChunkHeader::read(s) {
            Ok(h) if h.vlblocks() => {
                // SAFETY: writable per contract.
                unsafe { *nblocks = h.blocksize };
                0
            }
            Ok(_) => Error::InvalidParam.code(),
            Err(e) => e.code(),
        }
    })
}

/// # Safety
/// `context` live; `src` readable for `srcsize`; `dests`/`destsizes` writable for
/// `maxblocks` entries.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vldecompress_ctx(
    context: *mut blosc2_context,
    src: *const c_void,
    srcsize: i32,
    dests: *mut *mut c_void,
    destsizes: *mut i32,
    maxblocks: i32,
) -> c_int {
    guard(PANIC_CODE, || {
        // SAFETY: per contract.
        let Some(c) = (unsafe { ctx_mut(context) }) else { return Error::NullPointer.code() };
        let Some(dec) = lazy_capable(c) else { return Error::InvalidParam.code() };
        if dests.is_null() || destsizes.is_null() {
            return Error::NullPointer.code();
        }
        // SAFETY: per contract.
        let s = match unsafe { chunk_slice(src as *const u8, srcsize) } {
            Ok(s) => s,
            Err(e) => return e.code(),
        };
        let blocks = match dec.vl_decompress(s) {
            Ok(b) => b,
            Err(e) => return e.code(),
        };
        if blocks.len() > maxblocks.max(0) as usize {
            return Error::InvalidParam.code();
        }
        // Every copy is made before any output is written, so that a failed allocation
        // leaves the caller's arrays untouched and nothing allocated.
        let mut copies = Vec::with_capacity(blocks.len());
        for b in &blocks {
            match malloc_copy(b) {
                Ok(p) => copies.push(p),
                Err(e) => {
                    copies.into_iter().for_each(c_free);
                    return e.code();
                }
            }
        }
        for (i, (b, p)) in blocks.iter().zip(copies).enumerate() {
            // SAFETY: i < maxblocks; arrays writable per contract.
            unsafe {
                *dests.add(i) = p as *mut c_void;
                *destsizes.add(i) = b.len() as i32;
            }
        }
        blocks.len() as c_int
    })
}

/// # Safety
/// As `blosc2_vldecompress_ctx` for one block.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vldecompress_block_ctx(
    context: *mut blosc2_context,
    src: *const c_void,
    srcsize: i32,
    nblock: i32,
    dest: *mut *mut u8,
    destsize: *mut i32,
) -> c_int {
    guard(PANIC_CODE, || {
        // SAFETY: per contract.
        let Some(c) = (unsafe { ctx_mut(context) }) else { return Error::NullPointer.code() };
        let Some(dec) = lazy_capable(c) else { return Error::InvalidParam.code() };
        if dest.is_null() || destsize.is_null() {
            return Error::NullPointer.code();
        }
        if nblock < 0 {
            return Error::InvalidParam.code();
        }
        // SAFETY: per contract.
        let s = match unsafe { chunk_slice(src as *const u8, srcsize) } {
            Ok(s) => s,
            Err(e) => return e.code(),
        };
        match dec.vl_decompress_block(s, nblock as usize) {
            Ok(b) => match malloc_copy(&b) {
                Ok(p) => {
                    // SAFETY: writable per contract.
                    unsafe {
                        *dest = p;
                        *destsize = b.len() as i32;
                    }
                    b.len() as c_int
                }
                Err(e) => e.code(),
            },
            Err(e) => e.code(),
        }
    })
}
