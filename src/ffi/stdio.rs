//! The default filesystem I/O backend (`blosc2_stdio_*`, declared in
//! `blosc2/blosc2-stdio.h`): positioned reads and writes over a C `FILE*` held in a
//! `malloc`ed `blosc2_stdio_file`, as the reference's callbacks that user backends may wrap.

use libc::{c_char, c_int, c_void, FILE};

use super::abi::*;
use super::boundary::{guard, PANIC_CODE};
use crate::frame::mmap::{Mapping, Mode};

/// Whether a super-chunk created or opened with `io` locks its frame: only with the default
/// filesystem backend, when its `blosc2_stdio_params` ask for it or `BLOSC_LOCKING` is on
/// (the variable cannot be overridden by `locking = false`, as in the reference).
pub fn locking_requested(io: &blosc2_io) -> bool {
    if io.id as c_int != BLOSC2_IO_FILESYSTEM {
        return false;
    }
    // SAFETY: params of the filesystem backend is NULL or a blosc2_stdio_params that
    // outlives the super-chunk (per the blosc2_io contract).
    let explicit = unsafe { (io.params as *const blosc2_stdio_params).as_ref() }.is_some_and(|p| p.locking);
    explicit || crate::settings::locking_requested(&crate::settings::ProcessVars)
}

/// # Safety
/// `stream` NULL or a stream from `blosc2_stdio_open`.
unsafe fn file_of(stream: *mut c_void) -> Option<*mut FILE> {
    // SAFETY: per contract.
    let s = unsafe { (stream as *mut blosc2_stdio_file).as_ref() }?;
    (!s.file.is_null()).then_some(s.file)
}

/// Open `urlpath` with an fopen `mode`; NULL on failure. `params` (a `blosc2_stdio_params`)
/// is not needed here: frame locking is decided when a super-chunk is created or opened
/// (see [`locking_requested`]).
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
        let h = super::cmem::c_malloc(std::mem::size_of::<blosc2_stdio_file>(), false) as *mut blosc2_stdio_file;
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

/// Size of the file in bytes; the file position is left where it was.
///
/// # Safety
/// `stream` from `blosc2_stdio_open`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_size(stream: *mut c_void) -> i64 {
    guard(PANIC_CODE as i64, || {
        // SAFETY: per contract.
        let Some(f) = (unsafe { file_of(stream) }) else { return -1 };
        // The caller's position survives the call, as in the reference (user backends may
        // wrap these callbacks and rely on it).
        // SAFETY: f is an open FILE.
        unsafe {
            let here = libc::ftello(f);
            if here < 0 {
                return -1;
            }
            if libc::fseeko(f, 0, libc::SEEK_END) != 0 {
                libc::fseeko(f, here, libc::SEEK_SET);
                return -1;
            }
            let size = libc::ftello(f);
            if libc::fseeko(f, here, libc::SEEK_SET) != 0 {
                return -1;
            }
            size
        }
    })
}

/// Move `n` bytes between `buf` and the file behind `f` at `position` with positioned I/O on
/// its descriptor (as the reference): the FILE's position and buffer are left alone, so
/// handles never see bytes staled by their own buffering. Returns the bytes transferred; a
/// short count means end of file or an error.
///
/// # Safety
/// `f` an open FILE; `buf` valid for `n` bytes (writable when reading).
unsafe fn positioned_io(f: *mut FILE, buf: *mut u8, n: usize, position: i64, write: bool) -> usize {
    // SAFETY: f is an open FILE per contract.
    let fd = unsafe { libc::fileno(f) };
    if fd < 0 {
        return 0;
    }
    let mut done = 0usize;
    while done < n {
        let Some(off) = position.checked_add(done as i64) else { break };
        // Keep each call well under SSIZE_MAX; short transfers are looped anyway.
        let chunk = (n - done).min(1 << 30);
        // SAFETY: buf + done .. + chunk lies inside the caller's buffer.
        let r = unsafe {
            let p = buf.add(done) as *mut c_void;
            if write {
                libc::pwrite(fd, p, chunk, off as libc::off_t)
            } else {
                libc::pread(fd, p, chunk, off as libc::off_t)
            }
        };
        if r < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            break;
        }
        if r == 0 {
            break;
        }
        done += r as usize;
    }
    done
}

/// Write `nitems` items of `size` bytes at `position`; returns the items written. The FILE
/// position does not move.
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
        let Some(n) = size.checked_mul(nitems).and_then(|n| usize::try_from(n).ok()) else { return 0 };
        // SAFETY: f open; ptr readable for n bytes per contract (only read from).
        let done = unsafe { positioned_io(f, ptr as *mut u8, n, position, true) };
        if size > 0 {
            done as i64 / size
        } else {
            0
        }
    })
}

/// Read `nitems` items of `size` bytes at `position` into `*ptr`; returns the items read.
/// The FILE position does not move.
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
        let Some(n) = size.checked_mul(nitems).and_then(|n| usize::try_from(n).ok()) else { return 0 };
        // SAFETY: ptr valid per contract.
        let dest = unsafe { *ptr };
        if dest.is_null() && n > 0 {
            return 0;
        }
        // SAFETY: f open; dest writable for n bytes per contract.
        let done = unsafe { positioned_io(f, dest as *mut u8, n, position, false) };
        if size > 0 {
            done as i64 / size
        } else {
            0
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
        if size < 0 {
            return -1;
        }
        // Writes here go straight to the descriptor; what the caller buffered in the FILE
        // is not flushed first (as in the reference).
        // SAFETY: f open.
        unsafe { libc::ftruncate(libc::fileno(f), size) }
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

// ---------------------------------------------------------------------------------------------
// Memory-mapped backend (`BLOSC2_IO_FILESYSTEM_MMAP`): the mapping rules are
// [`crate::frame::mmap`]'s. As in the reference, the whole state lives in the caller's
// `blosc2_stdio_mmap` (the backend `params`), and that struct is also the stream: a file is
// mapped once, and every later `open` of the same path hands back the same mapping. A NULL
// or already destroyed stream is an error.
// ---------------------------------------------------------------------------------------------

/// The live mapping behind a stream: `None` for NULL or a destroyed/never-opened struct
/// (no address). A caller may fill `addr`, `file_size` and `mapping_size` itself, without a
/// file, and read or write that memory through the backend, as the reference allows; only
/// growing such a mapping fails (there is no file to extend).
///
/// # Safety
/// `stream` NULL or a valid `blosc2_stdio_mmap` not accessed concurrently for writing, whose
/// `addr` (when set) maps at least `mapping_size` bytes.
unsafe fn live_mmap<'a>(stream: *mut c_void) -> Option<(&'a mut blosc2_stdio_mmap, Mapping)> {
    // SAFETY: per contract.
    let m = unsafe { (stream as *mut blosc2_stdio_mmap).as_mut() }?;
    if m.addr.is_null() {
        return None;
    }
    let owns_file = !m.file.is_null();
    // SAFETY: per contract; a struct with a file was filled by blosc2_stdio_mmap_open.
    let mapping = unsafe { Mapping::from_parts(m.addr as *mut u8, m.file_size, m.mapping_size, m.fd, m.is_memory_only, owns_file) };
    Some((m, mapping))
}

/// Publish a mapping's current address and sizes in its struct.
fn store_mapping(m: &mut blosc2_stdio_mmap, mapping: &Mapping) {
    m.addr = mapping.addr() as *mut c_char;
    m.file_size = mapping.file_size();
    m.mapping_size = mapping.mapping_size();
}

/// Map the file `urlpath` as described by `params` (a `blosc2_stdio_mmap`); `mode` is
/// ignored (the struct's `mode` decides). Opening a path that is already mapped through
/// the same struct returns it again; another path is refused (sparse frames cannot be
/// memory-mapped). NULL on failure.
///
/// # Safety
/// `urlpath` NULL or a C string; `params` NULL or a valid `blosc2_stdio_mmap` whose `mode`
/// is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_open(urlpath: *const c_char, mode: *const c_char, params: *mut c_void) -> *mut c_void {
    guard(std::ptr::null_mut(), || {
        let _ = mode;
        if urlpath.is_null() {
            return std::ptr::null_mut();
        }
        // SAFETY: per contract.
        let Some(m) = (unsafe { (params as *mut blosc2_stdio_mmap).as_mut() }) else { return std::ptr::null_mut() };
        // SAFETY: per contract.
        let path = unsafe { std::ffi::CStr::from_ptr(urlpath) };
        if !m.addr.is_null() {
            if m.urlpath.is_null() {
                return std::ptr::null_mut();
            }
            // SAFETY: urlpath was set by a previous open to our own copy.
            let mapped = unsafe { std::ffi::CStr::from_ptr(m.urlpath) };
            return if mapped == path { params } else { std::ptr::null_mut() };
        }
        if m.mode.is_null() {
            return std::ptr::null_mut();
        }
        // SAFETY: per contract.
        let Some(md) = Mode::parse(unsafe { std::ffi::CStr::from_ptr(m.mode) }.to_bytes()) else {
            return std::ptr::null_mut();
        };
        // SAFETY: C string per contract.
        let file = unsafe { libc::fopen(urlpath, md.open_mode.as_ptr()) };
        if file.is_null() {
            return std::ptr::null_mut();
        }
        // SAFETY: file is open.
        let fd = unsafe { libc::fileno(file) };
        // SAFETY: all-zero is a valid `struct stat` to be filled in.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: fd open; st writable.
        let file_size = if unsafe { libc::fstat(fd, &mut st) } == 0 { usize::try_from(st.st_size).ok() } else { None };
        // SAFETY: fd is the open file of file_size bytes, opened as the mode needs, kept
        // open (in the struct) until destroy unmaps.
        let mapping = file_size.and_then(|n| unsafe { Mapping::map(fd, n, &md, m.initial_mapping_size) });
        let fail = || {
            // SAFETY: file was opened above and is not used afterwards.
            unsafe { libc::fclose(file) };
            std::ptr::null_mut()
        };
        let Some(mapping) = mapping else { return fail() };
        // SAFETY: a NUL-terminated copy of the path, freed by destroy.
        let url_copy = unsafe { libc::strdup(urlpath) };
        if url_copy.is_null() {
            mapping.unmap(false);
            return fail();
        }
        store_mapping(m, &mapping);
        m.urlpath = url_copy;
        m.file = file;
        m.fd = fd;
        m.is_memory_only = md.memory_only;
        m.access_flags = md.prot() as i64;
        m.map_flags = md.flags() as i64;
        if crate::settings::Vars::var(&crate::settings::ProcessVars, "BLOSC_INFO").is_some() {
            // The reference's informational line (python-blosc2's tests read it).
            // SAFETY: urlpath and the mode string are C strings per contract.
            let (u, md_s) = unsafe { (std::ffi::CStr::from_ptr(urlpath), std::ffi::CStr::from_ptr(m.mode)) };
            eprintln!(
                "[INFO] - Opened memory-mapped file {} in mode {} with an mapping size of {} bytes.",
                u.to_string_lossy(),
                md_s.to_string_lossy(),
                m.mapping_size
            );
        }
        // The mode string belongs to the caller and may not outlive this call.
        m.mode = std::ptr::null();
        params
    })
}

/// Nothing to do: the mapping lives until `blosc2_stdio_mmap_destroy`.
///
/// # Safety
/// Any pointer.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_close(stream: *mut c_void) -> c_int {
    guard(PANIC_CODE, || {
        let _ = stream;
        0
    })
}

/// Logical size of the mapped file; -1 for a stream that is not mapped.
///
/// # Safety
/// `stream` NULL or a `blosc2_stdio_mmap`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_size(stream: *mut c_void) -> i64 {
    guard(PANIC_CODE as i64, || {
        // SAFETY: per contract.
        let Some((m, _)) = (unsafe { live_mmap(stream) }) else { return -1 };
        i64::try_from(m.file_size).unwrap_or(i64::MAX)
    })
}

/// Copy `nitems` items of `size` bytes to `position` of the mapping, extending the file
/// and growing the mapping as needed; returns the items written (0 on failure).
///
/// # Safety
/// `ptr` readable for `size * nitems` bytes; `stream` NULL or a `blosc2_stdio_mmap`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_write(
    ptr: *const c_void,
    size: i64,
    nitems: i64,
    position: i64,
    stream: *mut c_void,
) -> i64 {
    guard(0, || {
        // SAFETY: per contract.
        let Some((m, mut mapping)) = (unsafe { live_mmap(stream) }) else { return 0 };
        if ptr.is_null() || size < 0 || nitems < 0 || position < 0 {
            return 0;
        }
        let Some(nbytes) = size.checked_mul(nitems) else { return 0 };
        let Some(end) = position.checked_add(nbytes) else { return 0 };
        if nbytes == 0 || m.access_flags & libc::PROT_WRITE as i64 == 0 {
            return 0;
        }
        let (Ok(pos), Ok(_), Ok(n)) = (usize::try_from(position), usize::try_from(end), usize::try_from(nbytes)) else {
            return 0;
        };
        // SAFETY: ptr readable for n bytes per contract; the mapping is writable.
        let written = unsafe { mapping.write(pos, ptr as *const u8, n) };
        store_mapping(m, &mapping);
        if written {
            nitems
        } else {
            0
        }
    })
}

/// Point `*ptr` at `position` inside the mapping (no copy: the backend does not need a
/// caller buffer) when `size * nitems` bytes are available there; returns `nitems`, or 0
/// with `*ptr = NULL` on failure.
///
/// # Safety
/// `ptr` NULL or writable; `stream` NULL or a `blosc2_stdio_mmap`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_read(
    ptr: *mut *mut c_void,
    size: i64,
    nitems: i64,
    position: i64,
    stream: *mut c_void,
) -> i64 {
    guard(0, || {
        if ptr.is_null() {
            return 0;
        }
        let fail = || {
            // SAFETY: ptr writable per contract.
            unsafe { *ptr = std::ptr::null_mut() };
            0
        };
        // SAFETY: per contract.
        let Some((_, mapping)) = (unsafe { live_mmap(stream) }) else { return fail() };
        if size < 0 || nitems < 0 || position < 0 {
            return fail();
        }
        let Some(n) = size.checked_mul(nitems).filter(|n| position.checked_add(*n).is_some()) else { return fail() };
        let (Ok(pos), Ok(n)) = (usize::try_from(position), usize::try_from(n)) else { return fail() };
        let Some(p) = mapping.range(pos, n) else { return fail() };
        // SAFETY: ptr writable per contract.
        unsafe { *ptr = p as *mut c_void };
        nitems
    })
}

/// Set the size of the mapped file (in "c" mode only the in-memory size changes).
///
/// # Safety
/// `stream` NULL or a `blosc2_stdio_mmap`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_truncate(stream: *mut c_void, size: i64) -> c_int {
    guard(PANIC_CODE, || {
        // SAFETY: per contract.
        let Some((m, mut mapping)) = (unsafe { live_mmap(stream) }) else { return -1 };
        let Ok(size) = usize::try_from(size) else { return -1 };
        if size > m.file_size && m.access_flags & libc::PROT_WRITE as i64 == 0 {
            return -1;
        }
        let done = mapping.set_size(size);
        store_mapping(m, &mapping);
        if done {
            0
        } else {
            -1
        }
    })
}

/// Write modified pages back (except in "c" mode), unmap, close the file and forget the
/// path; frees `params` itself when its `needs_free` is set. Returns 0, or -1 if a step
/// failed (the remaining steps still run).
///
/// # Safety
/// `params` NULL or a `blosc2_stdio_mmap` (heap-allocated with `malloc` if `needs_free`),
/// not used by any super-chunk afterwards.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_destroy(params: *mut c_void) -> c_int {
    guard(PANIC_CODE, || {
        // SAFETY: per contract.
        let Some(m) = (unsafe { (params as *mut blosc2_stdio_mmap).as_mut() }) else { return -1 };
        let mut err = 0;
        if m.addr.is_null() || m.file.is_null() {
            err = -1;
        } else {
            // SAFETY: a struct with a file and an address was filled by blosc2_stdio_mmap_open;
            // its mapping is released once here (addr is cleared below).
            let mapping = unsafe { Mapping::from_parts(m.addr as *mut u8, m.file_size, m.mapping_size, m.fd, m.is_memory_only, true) };
            if !mapping.unmap(m.access_flags & libc::PROT_WRITE as i64 != 0) {
                err = -1;
            }
        }
        if !m.file.is_null() {
            // SAFETY: the file opened by blosc2_stdio_mmap_open, closed once here.
            if unsafe { libc::fclose(m.file) } != 0 {
                err = -1;
            }
        }
        m.file = std::ptr::null_mut();
        m.addr = std::ptr::null_mut();
        // SAFETY: urlpath is NULL or our strdup'ed copy.
        unsafe { libc::free(m.urlpath as *mut c_void) };
        m.urlpath = std::ptr::null_mut();
        if m.needs_free {
            // SAFETY: the caller allocated the struct with malloc and set needs_free.
            unsafe { libc::free(params) };
        }
        err
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CString;

    fn tmp(name: &str) -> (std::path::PathBuf, CString) {
        let dir = std::env::temp_dir().join(format!("b2mmap-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("f.bin");
        let c = CString::new(p.to_str().unwrap()).unwrap();
        (p, c)
    }

    fn read_back(s: *mut c_void, pos: i64, n: usize) -> Option<Vec<u8>> {
        let mut p: *mut c_void = std::ptr::null_mut();
        // SAFETY: p writable; s a live mapping.
        let r = unsafe { blosc2_stdio_mmap_read(&mut p, 1, n as i64, pos, s) };
        // SAFETY: the backend returned a pointer to n readable bytes when r == n.
        (r == n as i64).then(|| unsafe { std::slice::from_raw_parts(p as *const u8, n) }.to_vec())
    }

    #[test]
    fn copy_on_write_grows_past_the_file_pages() {
        let (p, c) = tmp("c");
        std::fs::write(&p, vec![7u8; 5000]).unwrap();
        let mut m = BLOSC2_STDIO_MMAP_DEFAULTS;
        m.mode = c"c".as_ptr();
        m.initial_mapping_size = 1;
        let params = &mut m as *mut blosc2_stdio_mmap as *mut c_void;
        // SAFETY: valid path and params.
        let s = unsafe { blosc2_stdio_mmap_open(c.as_ptr(), c"r".as_ptr(), params) };
        assert_eq!(s, params);
        let data: Vec<u8> = (0..20000u32).map(|i| i as u8).collect();
        // Past the file's last page, then again to force a second growth (a copy).
        for pos in [4990i64, 30000] {
            // SAFETY: data readable; s live.
            assert_eq!(unsafe { blosc2_stdio_mmap_write(data.as_ptr() as *const c_void, 1, data.len() as i64, pos, s) }, data.len() as i64);
            assert_eq!(read_back(s, pos, data.len()).unwrap(), data);
        }
        assert_eq!(read_back(s, 0, 10).unwrap(), vec![7u8; 10]);
        // The gap reads as zeros, also after a shrink and a regrowth.
        assert_eq!(read_back(s, 24990, 100).unwrap(), vec![0u8; 100]);
        // SAFETY: s live.
        assert_eq!(unsafe { blosc2_stdio_mmap_truncate(s, 10) }, 0);
        // SAFETY: s live.
        assert_eq!(unsafe { blosc2_stdio_mmap_truncate(s, 100) }, 0);
        assert_eq!(read_back(s, 10, 90).unwrap(), vec![0u8; 90]);
        // SAFETY: params is the struct opened above.
        assert_eq!(unsafe { blosc2_stdio_mmap_destroy(params) }, 0);
        assert_eq!(std::fs::read(&p).unwrap(), vec![7u8; 5000]);
        std::fs::remove_dir_all(p.parent().unwrap()).unwrap();
    }

    #[test]
    fn read_only_and_bad_streams_fail_cleanly() {
        let (p, c) = tmp("r");
        std::fs::write(&p, b"abcdef").unwrap();
        let mut m = BLOSC2_STDIO_MMAP_DEFAULTS;
        let params = &mut m as *mut blosc2_stdio_mmap as *mut c_void;
        // SAFETY: valid path and params (mode "r").
        let s = unsafe { blosc2_stdio_mmap_open(c.as_ptr(), std::ptr::null(), params) };
        assert_eq!(s, params);
        // SAFETY: valid buffer; s live (read-only mapping: refused, not a fault).
        assert_eq!(unsafe { blosc2_stdio_mmap_write(b"x".as_ptr() as *const c_void, 1, 1, 0, s) }, 0);
        // SAFETY: s live.
        assert_eq!(unsafe { blosc2_stdio_mmap_truncate(s, 100) }, -1);
        assert_eq!(read_back(s, 0, 6).unwrap(), b"abcdef");
        // SAFETY: params live.
        assert_eq!(unsafe { blosc2_stdio_mmap_destroy(params) }, 0);
        // Destroyed or NULL streams.
        for s in [params, std::ptr::null_mut()] {
            // SAFETY: NULL or a destroyed (but still allocated) struct.
            unsafe {
                assert_eq!(blosc2_stdio_mmap_size(s), -1);
                assert_eq!(blosc2_stdio_mmap_write(b"x".as_ptr() as *const c_void, 1, 1, 0, s), 0);
                assert_eq!(blosc2_stdio_mmap_truncate(s, 0), -1);
            }
            assert!(read_back(s, 0, 1).is_none());
        }
        // SAFETY: destroying twice reports an error without touching freed state.
        assert_eq!(unsafe { blosc2_stdio_mmap_destroy(params) }, -1);
        assert_eq!(std::fs::read(&p).unwrap(), b"abcdef");
        std::fs::remove_dir_all(p.parent().unwrap()).unwrap();
    }
}
