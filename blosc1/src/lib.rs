//! `libblosc.so.1`: the C API of c-blosc 1.21.3 over the libblosc2 Rust core.
//!
//! Every function converts its C arguments, reads the settings c-blosc 1.x keeps in globals
//! (and the `BLOSC_*` environment variables it consults on each call), and hands the work to
//! [`blosc2::chunk::v1`], which writes and reads c-blosc 1.x chunks. Nothing here compresses
//! or parses chunks itself.
//!
//! Where c-blosc 1.21.3 dereferences a null pointer, divides by zero or copies a negative
//! length, these functions return an error (or do nothing, for `void` functions) instead.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Mutex, MutexGuard};

use blosc2::chunk::v1::{self, Codec1, Context1, Header1, Params1, SplitMode};
use blosc2::environ::BloscVars;
use blosc2::settings::Vars;
use blosc2::Error;

/// The c-blosc release this library stands in for (`BLOSC_VERSION_STRING`).
pub const VERSION_STRING: &str = "1.21.3";
/// What `blosc_get_version_string` returns, NUL-terminated.
static VERSION_CSTR: &[u8] = b"1.21.3\0";
/// `blosc_list_compressors`: every codec this build writes and reads.
static COMPRESSORS_CSTR: &[u8] = b"blosclz,lz4,lz4hc,snappy,zlib,zstd\0";
/// Version of the BloscLZ encoder variant of c-blosc 1.21.3 that `chunk::v1` reproduces.
const BLOSCLZ_VERSION: &str = "2.5.1";

/// `EINVAL`: c-blosc 1.x ignores an environment value that parses to this number (it
/// compares `strtol`'s result with the error constant).
const EINVAL_VALUE: i64 = 22;

/// The library-wide settings and the context `blosc_compress`/`blosc_decompress` share.
struct Global {
    initialized: bool,
    /// Compressor code; -1 after `blosc_set_compressor` with an unknown name.
    compressor: i32,
    nthreads: i32,
    /// Forced block size as c-blosc 1.x stores it (an `int32_t`; 0 = automatic).
    blocksize: i32,
    splitmode: i32,
    ctx: Context1,
}

static GLOBAL: Mutex<Global> = Mutex::new(Global {
    initialized: false,
    compressor: 0,
    nthreads: 1,
    blocksize: 0,
    splitmode: 4,
    ctx: Context1::new(),
});

fn global() -> MutexGuard<'static, Global> {
    GLOBAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `f`, turning a panic into `on_panic` so that none crosses into C.
fn guard<R>(on_panic: R, f: impl FnOnce() -> R) -> R {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(on_panic)
}

/// The C code of a core error, as c-blosc 1.x reports each case.
fn code(e: Error) -> c_int {
    match e {
        Error::InvalidParam => -10,
        Error::CodecSupport => -5,
        Error::VersionSupport => -9,
        Error::Stream => -2,
        _ => -1,
    }
}

fn answer(r: blosc2::Result<usize>) -> c_int {
    match r {
        Ok(n) => n as c_int,
        Err(e) => code(e),
    }
}

/// C's `strtol(s, NULL, 10)`: optional blanks and sign, then digits; 0 when none; saturated.
fn strtol(s: &[u8]) -> i64 {
    let mut i = s.iter().take_while(|b| b" \t\n\r\x0b\x0c".contains(b)).count();
    let neg = match s.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let mut v: i64 = 0;
    for &b in s[i.min(s.len())..].iter().take_while(|b| b.is_ascii_digit()) {
        v = v.saturating_mul(10).saturating_add((b - b'0') as i64);
    }
    if neg {
        -v
    } else {
        v
    }
}

/// `name`'s value in the snapshot of the `BLOSC_*` variables taken at the start of the call
/// (one pass over the environment for all of them, see `blosc2::environ`).
fn env(vars: &BloscVars, name: &str) -> Option<Vec<u8>> {
    vars.var(name).map(String::into_bytes)
}

/// # Safety
/// `p` is null or a NUL-terminated string.
unsafe fn c_bytes<'a>(p: *const c_char) -> Option<&'a [u8]> {
    // SAFETY: the caller promises a valid C string when non-null.
    (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_bytes())
}

/// The 16-byte header at `p`.
///
/// # Safety
/// `p` points to at least 16 readable bytes.
unsafe fn header_at(p: *const c_void) -> Header1 {
    // SAFETY: the caller guarantees 16 readable bytes.
    let head = unsafe { &*(p as *const [u8; v1::HEADER_LEN]) };
    Header1::read(head)
}

/// The chunk at `p` as a slice of the length its header states (at least the header), the
/// only length the C API gives.
///
/// # Safety
/// `p` points to a chunk whose header tells the truth about its size, as the C API requires.
unsafe fn chunk_at<'a>(p: *const c_void) -> &'a [u8] {
    // SAFETY: as the caller guarantees.
    let hdr = unsafe { header_at(p) };
    let len = (hdr.cbytes.max(0) as usize).max(v1::HEADER_LEN);
    // SAFETY: the header says `cbytes` bytes are there (and at least 16 are).
    unsafe { std::slice::from_raw_parts(p as *const u8, len) }
}

/// Stores `v` through a C out-parameter, unless the caller passed null for it.
///
/// # Safety
/// `p` is null or valid for a write of `T`.
unsafe fn put<T>(p: *mut T, v: T) {
    if !p.is_null() {
        // SAFETY: non-null, and valid for writes by the caller's contract.
        unsafe { p.write(v) };
    }
}

fn ensure_init(g: &mut Global) {
    g.initialized = true;
}

/// Initialize the library (optional: every function initializes it when needed).
#[no_mangle]
pub extern "C" fn blosc_init() {
    guard((), || ensure_init(&mut global()))
}

/// Release the threads and the global context; the library can be initialized again.
#[no_mangle]
pub extern "C" fn blosc_destroy() {
    guard((), || {
        let mut g = global();
        if g.initialized {
            g.initialized = false;
            g.ctx.release_threads();
            blosc2::chunk::spare::release_spare();
        }
    })
}

/// Applies the environment variables c-blosc 1.x reads in `blosc_compress`, updating the
/// global settings the way it does. Returns an error code to give back, if any.
fn compress_env(vars: &BloscVars, g: &mut Global, clevel: &mut i32, shuffle: &mut i32, typesize: &mut usize) -> Option<c_int> {
    if let Some(v) = env(vars, "BLOSC_CLEVEL") {
        let n = strtol(&v);
        if n != EINVAL_VALUE && n >= 0 {
            *clevel = n as i32;
        }
    }
    if let Some(v) = env(vars, "BLOSC_SHUFFLE") {
        match v.as_slice() {
            b"NOSHUFFLE" => *shuffle = 0,
            b"SHUFFLE" => *shuffle = 1,
            b"BITSHUFFLE" => *shuffle = 2,
            _ => {}
        }
    }
    if let Some(v) = env(vars, "BLOSC_TYPESIZE") {
        let n = strtol(&v);
        if n != EINVAL_VALUE && n > 0 {
            *typesize = n as i32 as usize;
        }
    }
    if let Some(v) = env(vars, "BLOSC_COMPRESSOR") {
        let code = set_compressor(g, &v);
        if code < 0 {
            return Some(code);
        }
    }
    if let Some(v) = env(vars, "BLOSC_BLOCKSIZE") {
        let n = strtol(&v);
        if n != EINVAL_VALUE && n > 0 {
            g.blocksize = n as i32;
        }
    }
    threads_env(vars, g);
    if let Some(v) = env(vars, "BLOSC_SPLITMODE") {
        g.splitmode = match v.as_slice() {
            b"FORWARD_COMPAT" => 4,
            b"AUTO" => 3,
            b"ALWAYS" => 1,
            b"NEVER" => 2,
            _ => {
                eprintln!(
                    "BLOSC_SPLITMODE environment variable '{}' not recognized",
                    String::from_utf8_lossy(&v)
                );
                return Some(-1);
            }
        };
    }
    None
}

/// `BLOSC_NTHREADS`, read by both `blosc_compress` and `blosc_decompress`.
fn threads_env(vars: &BloscVars, g: &mut Global) {
    if let Some(v) = env(vars, "BLOSC_NTHREADS") {
        let n = strtol(&v);
        if n != EINVAL_VALUE && n > 0 {
            set_nthreads(g, n as i32);
        }
    }
}

fn set_compressor(g: &mut Global, name: &[u8]) -> c_int {
    let code = Codec1::from_name(name).map_or(-1, Codec1::code);
    g.compressor = code;
    ensure_init(g);
    code
}

fn set_nthreads(g: &mut Global, n: i32) -> i32 {
    ensure_init(g);
    let old = g.nthreads;
    if n != old {
        g.ctx.release_threads();
        g.nthreads = n;
    }
    old
}

/// A forced block size as the core takes it: c-blosc 1.x keeps an `int32_t`, and any
/// non-zero value below 128 (negative ones included) means 128.
fn forced_blocksize(bs: i32) -> usize {
    if bs == 0 {
        0
    } else {
        bs.max(1) as usize
    }
}

/// The compression shared by `blosc_compress` and `blosc_compress_ctx`.
///
/// # Safety
/// `src` holds `nbytes` readable bytes and `dest` `destsize` writable ones (checked for null).
unsafe fn compress_with(
    ctx: &mut Context1,
    p: Params1,
    nbytes: usize,
    src: *const c_void,
    dest: *mut c_void,
    destsize: usize,
) -> c_int {
    if nbytes > v1::MAX_BUFFERSIZE || destsize < v1::HEADER_LEN {
        return 0;
    }
    if dest.is_null() || (src.is_null() && nbytes > 0) {
        return -1;
    }
    // SAFETY: the caller's buffers, of the sizes it gave (a null source only when empty).
    let src = if nbytes == 0 { &[][..] } else { unsafe { std::slice::from_raw_parts(src as *const u8, nbytes) } };
    let destsize = destsize.min(i32::MAX as usize);
    // SAFETY: as above.
    let dest = unsafe { std::slice::from_raw_parts_mut(dest as *mut u8, destsize) };
    answer(ctx.compress(&p, src, dest))
}

/// Compress `nbytes` bytes of `src` into `dest` (at most `destsize` bytes) with the global
/// settings. Returns the compressed size, 0 when it does not fit, or a negative error.
#[no_mangle]
pub unsafe extern "C" fn blosc_compress(
    clevel: c_int,
    doshuffle: c_int,
    typesize: usize,
    nbytes: usize,
    src: *const c_void,
    dest: *mut c_void,
    destsize: usize,
) -> c_int {
    guard(-1, || {
        let vars = BloscVars::read();
        let mut g = global();
        ensure_init(&mut g);
        let (mut clevel, mut shuffle, mut typesize) = (clevel, doshuffle, typesize);
        if let Some(code) = compress_env(&vars, &mut g, &mut clevel, &mut shuffle, &mut typesize) {
            return code;
        }
        let p = Params1 {
            clevel,
            shuffle,
            typesize,
            codec: Codec1::from_code(g.compressor),
            blocksize: forced_blocksize(g.blocksize),
            splitmode: SplitMode::from_code(g.splitmode),
            nthreads: g.nthreads,
        };
        if env(&vars, "BLOSC_NOLOCK").is_some() {
            // A private context, as c-blosc 1.x does (it then compresses by name, and an
            // unknown global compressor has no name: the same -5 either way).
            drop(g);
            let mut ctx = Context1::new();
            // SAFETY: the caller's buffers.
            return unsafe { compress_with(&mut ctx, p, nbytes, src, dest, destsize) };
        }
        let g = &mut *g;
        // SAFETY: the caller's buffers.
        unsafe { compress_with(&mut g.ctx, p, nbytes, src, dest, destsize) }
    })
}

/// Like `blosc_compress`, with every setting given and a private context: no global state,
/// no environment variables (except the global split mode, as in c-blosc 1.x).
#[no_mangle]
pub unsafe extern "C" fn blosc_compress_ctx(
    clevel: c_int,
    doshuffle: c_int,
    typesize: usize,
    nbytes: usize,
    src: *const c_void,
    dest: *mut c_void,
    destsize: usize,
    compressor: *const c_char,
    blocksize: usize,
    numinternalthreads: c_int,
) -> c_int {
    guard(-1, || {
        let splitmode = global().splitmode;
        // SAFETY: null or a C string.
        let codec = unsafe { c_bytes(compressor) }.and_then(Codec1::from_name);
        let p = Params1 {
            clevel,
            shuffle: doshuffle,
            typesize,
            codec,
            blocksize: forced_blocksize(blocksize as i32),
            splitmode: SplitMode::from_code(splitmode),
            nthreads: numinternalthreads,
        };
        let mut ctx = Context1::new();
        // SAFETY: the caller's buffers.
        unsafe { compress_with(&mut ctx, p, nbytes, src, dest, destsize) }
    })
}

/// # Safety
/// `src` is a chunk whose header tells its size; `dest` holds `destsize` writable bytes.
unsafe fn decompress_with(ctx: &mut Context1, src: *const c_void, dest: *mut c_void, destsize: usize, nthreads: i32) -> c_int {
    if src.is_null() || (dest.is_null() && destsize > 0) {
        return -1;
    }
    // SAFETY: the caller's chunk.
    let chunk = unsafe { chunk_at(src) };
    let destsize = destsize.min(isize::MAX as usize);
    let dest = if destsize == 0 {
        &mut [][..]
    } else {
        // SAFETY: the caller's buffer of `destsize` bytes.
        unsafe { std::slice::from_raw_parts_mut(dest as *mut u8, destsize) }
    };
    answer(ctx.decompress(chunk, dest, nthreads))
}

/// Decompress the chunk at `src` into `dest` (`destsize` bytes). Returns the decompressed
/// size or a negative error.
#[no_mangle]
pub unsafe extern "C" fn blosc_decompress(src: *const c_void, dest: *mut c_void, destsize: usize) -> c_int {
    guard(-1, || {
        let vars = BloscVars::read();
        let mut g = global();
        ensure_init(&mut g);
        threads_env(&vars, &mut g);
        let nthreads = g.nthreads;
        if env(&vars, "BLOSC_NOLOCK").is_some() {
            drop(g);
            let mut ctx = Context1::new();
            // SAFETY: the caller's buffers.
            return unsafe { decompress_with(&mut ctx, src, dest, destsize, nthreads) };
        }
        let g = &mut *g;
        // SAFETY: the caller's buffers.
        unsafe { decompress_with(&mut g.ctx, src, dest, destsize, nthreads) }
    })
}

/// `blosc_decompress` with a private context and thread count.
#[no_mangle]
pub unsafe extern "C" fn blosc_decompress_ctx(
    src: *const c_void,
    dest: *mut c_void,
    destsize: usize,
    numinternalthreads: c_int,
) -> c_int {
    guard(-1, || {
        let mut ctx = Context1::new();
        // SAFETY: the caller's buffers.
        unsafe { decompress_with(&mut ctx, src, dest, destsize, numinternalthreads) }
    })
}

/// Decompress `nitems` items starting at item `start` of the chunk at `src` into `dest`.
/// Returns the number of bytes written or a negative error.
#[no_mangle]
pub unsafe extern "C" fn blosc_getitem(src: *const c_void, start: c_int, nitems: c_int, dest: *mut c_void) -> c_int {
    guard(-1, || {
        if src.is_null() {
            return -1;
        }
        // SAFETY: the caller's chunk.
        let chunk = unsafe { chunk_at(src) };
        let typesize = chunk[3] as usize;
        let want = (nitems.max(0) as usize).saturating_mul(typesize);
        if dest.is_null() && want > 0 {
            return -1;
        }
        let dest = if want == 0 {
            &mut [][..]
        } else {
            // SAFETY: the API requires room for `nitems` items in `dest`.
            unsafe { std::slice::from_raw_parts_mut(dest as *mut u8, want) }
        };
        answer(Context1::new().getitem(chunk, start, nitems, dest))
    })
}

/// The number of threads used by `blosc_compress` and `blosc_decompress`.
#[no_mangle]
pub extern "C" fn blosc_get_nthreads() -> c_int {
    guard(1, || global().nthreads)
}

/// Set the number of threads; returns the previous number.
#[no_mangle]
pub extern "C" fn blosc_set_nthreads(nthreads: c_int) -> c_int {
    guard(-1, || set_nthreads(&mut global(), nthreads))
}

/// The name of the current compressor (NULL if an unknown one was set).
#[no_mangle]
pub extern "C" fn blosc_get_compressor() -> *const c_char {
    guard(std::ptr::null(), || name_ptr(global().compressor))
}

/// Select the compressor by name. Returns its code, or -1 if unknown.
#[no_mangle]
pub unsafe extern "C" fn blosc_set_compressor(compname: *const c_char) -> c_int {
    guard(-1, || {
        // SAFETY: null or a C string.
        match unsafe { c_bytes(compname) } {
            Some(name) => set_compressor(&mut global(), name),
            None => -1,
        }
    })
}

/// Static NUL-terminated name of a compressor code, or null.
fn name_ptr(code: i32) -> *const c_char {
    match Codec1::from_code(code) {
        Some(Codec1::BloscLz) => c"blosclz".as_ptr(),
        Some(Codec1::Lz4) => c"lz4".as_ptr(),
        Some(Codec1::Lz4Hc) => c"lz4hc".as_ptr(),
        Some(Codec1::Snappy) => c"snappy".as_ptr(),
        Some(Codec1::Zlib) => c"zlib".as_ptr(),
        Some(Codec1::Zstd) => c"zstd".as_ptr(),
        None => std::ptr::null(),
    }
}

/// Store the name of `compcode` in `*compname` (NULL if unknown); returns the code, or -1.
#[no_mangle]
pub unsafe extern "C" fn blosc_compcode_to_compname(compcode: c_int, compname: *mut *const c_char) -> c_int {
    guard(-1, || {
        // SAFETY: the caller's pointer slot.
        unsafe { put(compname, name_ptr(compcode)) };
        Codec1::from_code(compcode).map_or(-1, Codec1::code)
    })
}

/// The code of a compressor name, or -1 if unknown.
#[no_mangle]
pub unsafe extern "C" fn blosc_compname_to_compcode(compname: *const c_char) -> c_int {
    guard(-1, || {
        // SAFETY: null or a C string.
        unsafe { c_bytes(compname) }
            .and_then(Codec1::from_name)
            .map_or(-1, Codec1::code)
    })
}

/// The compressors this library supports, comma-separated.
#[no_mangle]
pub extern "C" fn blosc_list_compressors() -> *const c_char {
    COMPRESSORS_CSTR.as_ptr() as *const c_char
}

/// The c-blosc version whose API and format this library implements.
#[no_mangle]
pub extern "C" fn blosc_get_version_string() -> *const c_char {
    VERSION_CSTR.as_ptr() as *const c_char
}

/// Library name and version behind a compressor name, as strings the caller frees with
/// `free()`. Returns the library code, or -1 (and NULLs) for an unknown name.
#[no_mangle]
pub unsafe extern "C" fn blosc_get_complib_info(compname: *const c_char, complib: *mut *mut c_char, version: *mut *mut c_char) -> c_int {
    guard(-1, || {
        // SAFETY: null or a C string.
        let format = unsafe { c_bytes(compname) }.and_then(v1::name_to_format);
        let info = format.map(|f| {
            // c-blosc 1.21.3 names the BloscLZ of its own sources; the other libraries are
            // the same as libblosc2's.
            let ver = match f {
                0 => BLOSCLZ_VERSION.to_string(),
                _ => blosc2::codecs::complib_version(f).unwrap_or_else(|| "unknown".to_string()),
            };
            (v1::format_lib_name(f).unwrap_or(""), ver)
        });
        let (lib, ver) = match &info {
            Some((lib, ver)) => (strdup(lib), strdup(ver)),
            None => (std::ptr::null_mut(), std::ptr::null_mut()),
        };
        if !complib.is_null() {
            // SAFETY: the caller's pointer slot.
            unsafe { *complib = lib };
        } else if !lib.is_null() {
            // SAFETY: allocated just above with malloc.
            unsafe { libc::free(lib.cast()) };
        }
        if !version.is_null() {
            // SAFETY: the caller's pointer slot.
            unsafe { *version = ver };
        } else if !ver.is_null() {
            // SAFETY: allocated just above with malloc.
            unsafe { libc::free(ver.cast()) };
        }
        format.map_or(-1, |f| f as c_int)
    })
}

/// A malloc'ed copy of `s` (the caller owns it, as with C's `strdup`).
fn strdup(s: &str) -> *mut c_char {
    // SAFETY: a fresh allocation of len + 1 bytes, filled and NUL-terminated here.
    unsafe {
        let p = libc::malloc(s.len() + 1) as *mut u8;
        if !p.is_null() {
            std::ptr::copy_nonoverlapping(s.as_ptr(), p, s.len());
            *p.add(s.len()) = 0;
        }
        p as *mut c_char
    }
}

/// Release the threads of the global context. -1 if the library was never initialized.
#[no_mangle]
pub extern "C" fn blosc_free_resources() -> c_int {
    guard(-1, || {
        let mut g = global();
        if !g.initialized {
            return -1;
        }
        g.ctx.release_threads();
        blosc2::chunk::spare::release_spare();
        0
    })
}

/// Uncompressed size, compressed size and block size of a chunk (zeros if it is not a
/// c-blosc 1.x chunk).
#[no_mangle]
pub unsafe extern "C" fn blosc_cbuffer_sizes(cbuffer: *const c_void, nbytes: *mut usize, cbytes: *mut usize, blocksize: *mut usize) {
    guard((), || {
        if cbuffer.is_null() {
            return;
        }
        // SAFETY: a chunk header.
        let h = unsafe { header_at(cbuffer) };
        let (n, c, b) = if h.version != v1::VERSION_FORMAT {
            (0, 0, 0)
        } else {
            // c-blosc 1.x widens the signed fields to size_t.
            (h.nbytes as isize as usize, h.cbytes as isize as usize, h.blocksize as isize as usize)
        };
        // SAFETY: the caller's out-parameters.
        unsafe {
            put(nbytes, n);
            put(cbytes, c);
            put(blocksize, b);
        }
    })
}

/// Check that `cbuffer` (of `cbytes` bytes) holds a whole chunk; stores its uncompressed
/// size in `*nbytes`. Returns 0, or -1 when it does not.
#[no_mangle]
pub unsafe extern "C" fn blosc_cbuffer_validate(cbuffer: *const c_void, cbytes: usize, nbytes: *mut usize) -> c_int {
    guard(-1, || {
        if cbytes < v1::HEADER_LEN || cbuffer.is_null() {
            return -1;
        }
        // SAFETY: at least 16 bytes, as `cbytes` says.
        let h = unsafe { header_at(cbuffer) };
        let (n, c) = if h.version != v1::VERSION_FORMAT {
            (0, 0)
        } else {
            (h.nbytes as isize as usize, h.cbytes as isize as usize)
        };
        // SAFETY: the caller's out-parameter.
        unsafe { put(nbytes, n) };
        if c != cbytes || n > v1::MAX_BUFFERSIZE {
            return -1;
        }
        0
    })
}

/// Typesize and the three filter flags (shuffle, memcpyed, bit-shuffle) of a chunk.
#[no_mangle]
pub unsafe extern "C" fn blosc_cbuffer_metainfo(cbuffer: *const c_void, typesize: *mut usize, flags: *mut c_int) {
    guard((), || {
        if cbuffer.is_null() {
            return;
        }
        // SAFETY: a chunk header.
        let h = unsafe { header_at(cbuffer) };
        let (t, f) = if h.version != v1::VERSION_FORMAT { (0, 0) } else { (h.typesize as usize, (h.flags & 7) as c_int) };
        // SAFETY: the caller's out-parameters.
        unsafe {
            put(typesize, t);
            put(flags, f);
        }
    })
}

/// Format version and codec format version of a chunk.
#[no_mangle]
pub unsafe extern "C" fn blosc_cbuffer_versions(cbuffer: *const c_void, version: *mut c_int, versionlz: *mut c_int) {
    guard((), || {
        if cbuffer.is_null() {
            return;
        }
        // SAFETY: a chunk header.
        let h = unsafe { header_at(cbuffer) };
        // SAFETY: the caller's out-parameters.
        unsafe {
            put(version, h.version as c_int);
            put(versionlz, h.versionlz as c_int);
        }
    })
}

/// Name of the compression library a chunk was written with (NULL if unknown).
#[no_mangle]
pub unsafe extern "C" fn blosc_cbuffer_complib(cbuffer: *const c_void) -> *const c_char {
    guard(std::ptr::null(), || {
        if cbuffer.is_null() {
            return std::ptr::null();
        }
        // SAFETY: a chunk header.
        let h = unsafe { header_at(cbuffer) };
        match h.flags >> 5 {
            0 => c"BloscLZ".as_ptr(),
            1 => c"LZ4".as_ptr(),
            2 => c"Snappy".as_ptr(),
            3 => c"Zlib".as_ptr(),
            4 => c"Zstd".as_ptr(),
            _ => std::ptr::null(),
        }
    })
}

/// The forced block size (0: automatic).
#[no_mangle]
pub extern "C" fn blosc_get_blocksize() -> c_int {
    guard(0, || global().blocksize)
}

/// Force a block size for `blosc_compress` (0: automatic).
#[no_mangle]
pub extern "C" fn blosc_set_blocksize(blocksize: usize) {
    guard((), || global().blocksize = blocksize as i32)
}

/// Set how blocks are split into streams (`BLOSC_ALWAYS_SPLIT`, `BLOSC_NEVER_SPLIT`,
/// `BLOSC_AUTO_SPLIT`, `BLOSC_FORWARD_COMPAT_SPLIT`).
#[no_mangle]
pub extern "C" fn blosc_set_splitmode(splitmode: c_int) {
    guard((), || global().splitmode = splitmode)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strtol_like_c() {
        assert_eq!(strtol(b"  42abc"), 42);
        assert_eq!(strtol(b"-7"), -7);
        assert_eq!(strtol(b"+3"), 3);
        assert_eq!(strtol(b"abc"), 0);
        assert_eq!(strtol(b""), 0);
        assert_eq!(strtol(b"99999999999999999999999"), i64::MAX);
    }

    #[test]
    fn round_trip_through_the_c_functions() {
        let src: Vec<u8> = (0..100_000u32).flat_map(|i| (i / 3).to_le_bytes()).collect();
        let mut comp = vec![0u8; src.len() + 16];
        // SAFETY: buffers of the sizes passed.
        let c = unsafe {
            blosc_compress(5, 1, 4, src.len(), src.as_ptr().cast(), comp.as_mut_ptr().cast(), comp.len())
        };
        assert!(c > 16 && (c as usize) < src.len() / 4, "{c}");
        let mut back = vec![0u8; src.len()];
        // SAFETY: as above.
        let d = unsafe { blosc_decompress(comp.as_ptr().cast(), back.as_mut_ptr().cast(), back.len()) };
        assert_eq!(d as usize, src.len());
        assert_eq!(back, src);
        let mut item = [0u8; 8];
        // SAFETY: as above; 2 items of 4 bytes.
        let g = unsafe { blosc_getitem(comp.as_ptr().cast(), 1000, 2, item.as_mut_ptr().cast()) };
        assert_eq!(g, 8);
        assert_eq!(item[..], src[4000..4008]);
    }
}
