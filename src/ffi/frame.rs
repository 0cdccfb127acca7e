//! I/O backends of frames: the registry of `blosc2_io_cb` (`blosc2_register_io_cb`,
//! `blosc2_get_io_cb`) and super-chunks whose contiguous frame is read and written through
//! user callbacks (`blosc2_schunk_open_udio`, `blosc2_schunk_open_offset_udio`, and
//! `blosc2_schunk_new` with a non-default `storage->io`). A [`CallbackStorage`] implements
//! the frame's [`Storage`] trait on top of the callbacks.

use std::ffi::CString;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use libc::{c_char, c_int, c_void};

use super::abi::*;
use super::boundary::{cstr, guard, PANIC_CODE};
use super::schunk::{register_opened, with_handle};
use crate::chunk::decompress::LazyReader;
use crate::error::{Error, Result};
use crate::frame::io::{Opener, Storage};
use crate::frame::FrameKind;
use crate::schunk::{StorageSpec, SuperChunk};

/// A registered backend (boxed so `blosc2_get_io_cb` can hand out stable pointers).
struct Registered(Box<blosc2_io_cb>);
// SAFETY: the callbacks and the name are process-global data the user registered for use
// from any thread, as in the reference.
unsafe impl Send for Registered {}

fn registry() -> &'static Mutex<Vec<Registered>> {
    static R: OnceLock<Mutex<Vec<Registered>>> = OnceLock::new();
    R.get_or_init(|| {
        let stdio = blosc2_io_cb {
            id: BLOSC2_IO_FILESYSTEM as u8,
            name: c"filesystem".as_ptr() as *mut c_char,
            is_allocation_necessary: true,
            open: Some(super::stdio::blosc2_stdio_open),
            close: Some(super::stdio::blosc2_stdio_close),
            size: Some(super::stdio::blosc2_stdio_size),
            write: Some(super::stdio::blosc2_stdio_write),
            read: Some(super::stdio::blosc2_stdio_read),
            truncate: Some(super::stdio::blosc2_stdio_truncate),
            destroy: Some(super::stdio::blosc2_stdio_destroy),
        };
        // The memory-mapped backend: reads hand out pointers into the mapping, so callers do
        // not allocate read buffers for it.
        let mmap = blosc2_io_cb {
            id: BLOSC2_IO_FILESYSTEM_MMAP as u8,
            name: c"filesystem_mmap".as_ptr() as *mut c_char,
            is_allocation_necessary: false,
            open: Some(super::stdio::blosc2_stdio_mmap_open),
            close: Some(super::stdio::blosc2_stdio_mmap_close),
            size: Some(super::stdio::blosc2_stdio_mmap_size),
            write: Some(super::stdio::blosc2_stdio_mmap_write),
            read: Some(super::stdio::blosc2_stdio_mmap_read),
            truncate: Some(super::stdio::blosc2_stdio_mmap_truncate),
            destroy: Some(super::stdio::blosc2_stdio_mmap_destroy),
        };
        Mutex::new(vec![Registered(Box::new(stdio)), Registered(Box::new(mmap))])
    })
}

fn find_cb(id: u8) -> Option<blosc2_io_cb> {
    let r = registry().lock().unwrap_or_else(|e| e.into_inner());
    r.iter().find(|c| c.0.id == id).map(|c| *c.0)
}

/// Register user I/O callbacks under an id from `BLOSC2_IO_REGISTERED` on. As in the
/// reference, registering an id again under the same name keeps the first registration and
/// succeeds, under another name it is `BLOSC2_ERROR_PLUGIN_IO`; NULL is
/// `BLOSC2_ERROR_INVALID_PARAM`.
///
/// # Safety
/// `io` NULL or valid; its callbacks and name must stay valid for the process lifetime.
#[no_mangle]
pub unsafe extern "C" fn blosc2_register_io_cb(io: *const blosc2_io_cb) -> c_int {
    guard(PANIC_CODE, || {
        // SAFETY: per contract.
        let Some(io) = (unsafe { io.as_ref() }) else { return Error::InvalidParam.code() };
        if (io.id as c_int) < BLOSC2_IO_REGISTERED {
            return Error::PluginIo.code();
        }
        let mut r = registry().lock().unwrap_or_else(|e| e.into_inner());
        match r.iter().find(|c| c.0.id == io.id) {
            Some(old) => {
                // SAFETY: names are NULL or C strings valid for the process lifetime.
                let same = unsafe { (cstr(old.0.name), cstr(io.name)) };
                if same.0 == same.1 {
                    0
                } else {
                    Error::PluginIo.code()
                }
            }
            None if r.len() >= u8::MAX as usize => Error::PluginIo.code(),
            None => {
                r.push(Registered(Box::new(*io)));
                0
            }
        }
    })
}

/// The callbacks registered under `id` (0 is the built-in filesystem backend), or NULL; NULL
/// also outside `blosc2_init`/`blosc2_destroy`, as in the reference.
#[no_mangle]
pub extern "C" fn blosc2_get_io_cb(id: u8) -> *mut blosc2_io_cb {
    guard(std::ptr::null_mut(), || {
        if !super::global::INITIALIZED.load(std::sync::atomic::Ordering::Acquire) {
            return std::ptr::null_mut();
        }
        let mut r = registry().lock().unwrap_or_else(|e| e.into_inner());
        r.iter_mut().find(|c| c.0.id == id).map_or(std::ptr::null_mut(), |c| &mut *c.0 as *mut blosc2_io_cb)
    })
}

/// A file reached through user callbacks. As in the reference, a stream is opened for each
/// operation and closed before it returns ("rb" to read, "rb+" to write, "wb" to create), so
/// no stream stays open between API calls.
pub struct CallbackStorage {
    cb: blosc2_io_cb,
    path: CString,
    /// The backend's `params` (a pointer the user owns).
    params: usize,
}

// SAFETY: holds the user's process-global callbacks, an owned path and the user's params
// pointer, which the backend must accept from any thread (as in the reference).
unsafe impl Send for CallbackStorage {}

/// A stream open for one operation; closed when dropped.
struct Stream<'a> {
    cb: &'a blosc2_io_cb,
    raw: *mut c_void,
}

impl Drop for Stream<'_> {
    fn drop(&mut self) {
        if let Some(close) = self.cb.close {
            // SAFETY: the stream came from the same backend's open and is closed once.
            unsafe { close(self.raw) };
        }
    }
}

impl CallbackStorage {
    fn new(cb: blosc2_io_cb, path: &Path, params: *mut c_void) -> Result<CallbackStorage> {
        let path = path.to_str().and_then(|p| CString::new(p).ok()).ok_or(Error::InvalidParam)?;
        Ok(CallbackStorage { cb, path, params: params as usize })
    }

    fn stream(&self, mode: &std::ffi::CStr) -> Result<Stream<'_>> {
        let open = self.cb.open.ok_or(Error::PluginIo)?;
        // SAFETY: calling the user's open with C strings and their params.
        let raw = unsafe { open(self.path.as_ptr(), mode.as_ptr(), self.params as *mut c_void) };
        if raw.is_null() {
            return Err(Error::FileOpen);
        }
        Ok(Stream { cb: &self.cb, raw })
    }
}

/// A stream open for several reads (lazy-chunk blocks); closed when dropped.
struct OwnedStream {
    cb: blosc2_io_cb,
    stream: *mut c_void,
}

impl Drop for OwnedStream {
    fn drop(&mut self) {
        if let Some(close) = self.cb.close {
            // SAFETY: the stream came from the same backend's open and is closed once.
            unsafe { close(self.stream) };
        }
    }
}

impl CallbackStorage {
    /// Open `path` with the first of `modes` the backend accepts.
    fn open(cb: blosc2_io_cb, path: &CString, modes: &[&std::ffi::CStr], params: *mut c_void) -> Result<OwnedStream> {
        let open = cb.open.ok_or(Error::PluginIo)?;
        for m in modes {
            // SAFETY: calling the user's open with C strings and their params.
            let stream = unsafe { open(path.as_ptr(), m.as_ptr(), params) };
            if !stream.is_null() {
                return Ok(OwnedStream { cb, stream });
            }
        }
        Err(Error::FileOpen)
    }
}

/// Read through a backend's read callback, which may hand back its own pointer.
fn cb_read(cb: &blosc2_io_cb, stream: *mut c_void, pos: u64, buf: &mut [u8]) -> Result<()> {
    let read = cb.read.ok_or(Error::PluginIo)?;
    if buf.is_empty() {
        return Ok(());
    }
    let mut p = buf.as_mut_ptr() as *mut c_void;
    // SAFETY: p points to buf.len() writable bytes; the backend may replace it.
    let n = unsafe { read(&mut p, 1, buf.len() as i64, pos as i64, stream) };
    if n != buf.len() as i64 || p.is_null() {
        return Err(Error::FileRead);
    }
    if p != buf.as_mut_ptr() as *mut c_void {
        // SAFETY: the backend returned a pointer to at least n readable bytes.
        let src = unsafe { std::slice::from_raw_parts(p as *const u8, buf.len()) };
        buf.copy_from_slice(src);
    }
    Ok(())
}

impl Storage for CallbackStorage {
    fn len(&mut self) -> Result<u64> {
        let size = self.cb.size.ok_or(Error::PluginIo)?;
        let s = self.stream(c"rb")?;
        // SAFETY: stream from this backend.
        let n = unsafe { size(s.raw) };
        u64::try_from(n).map_err(|_| Error::FileRead)
    }

    fn read_at(&mut self, pos: u64, buf: &mut [u8]) -> Result<()> {
        let s = self.stream(c"rb")?;
        cb_read(&self.cb, s.raw, pos, buf)
    }

    /// One stream for the size check and the read (each open may be costly for a backend).
    fn read_vec(&mut self, pos: u64, len: usize) -> Result<Vec<u8>> {
        let size = self.cb.size.ok_or(Error::PluginIo)?;
        let s = self.stream(c"rb")?;
        // SAFETY: stream from this backend.
        let total = u64::try_from(unsafe { size(s.raw) }).map_err(|_| Error::FileRead)?;
        // Lengths come from untrusted frames: check before allocating.
        if pos.checked_add(len as u64).is_none_or(|end| end > total) {
            return Err(Error::FileRead);
        }
        let mut v = vec![0u8; len];
        cb_read(&self.cb, s.raw, pos, &mut v)?;
        Ok(v)
    }

    fn write_at(&mut self, pos: u64, data: &[u8]) -> Result<()> {
        let write = self.cb.write.ok_or(Error::PluginIo)?;
        if data.is_empty() {
            return Ok(());
        }
        let s = self.stream(c"rb+")?;
        // SAFETY: data readable for its length; stream from this backend.
        let n = unsafe { write(data.as_ptr() as *const c_void, 1, data.len() as i64, pos as i64, s.raw) };
        if n != data.len() as i64 {
            return Err(Error::FileWrite);
        }
        Ok(())
    }

    fn truncate(&mut self, len: u64) -> Result<()> {
        let truncate = self.cb.truncate.ok_or(Error::PluginIo)?;
        let s = self.stream(c"rb+")?;
        // SAFETY: stream from this backend.
        if unsafe { truncate(s.raw, len as i64) } != 0 {
            return Err(Error::FileTruncate);
        }
        Ok(())
    }
}

/// Opens the files of a frame (frame file, sparse index and chunk files) through a user
/// backend.
struct CallbackOpener {
    cb: blosc2_io_cb,
    params: usize,
}

// SAFETY: as for CallbackStorage.
unsafe impl Send for CallbackOpener {}
unsafe impl Sync for CallbackOpener {}

impl Opener for CallbackOpener {
    fn open(&self, path: &Path, writable: bool) -> Result<Box<dyn Storage>> {
        let s = CallbackStorage::new(self.cb, path, self.params as *mut c_void)?;
        // Fail now, as an open would, when the file is not there (or not writable).
        drop(s.stream(if writable { c"rb+" } else { c"rb" })?);
        Ok(Box::new(s))
    }

    fn create(&self, path: &Path) -> Result<Box<dyn Storage>> {
        let s = CallbackStorage::new(self.cb, path, self.params as *mut c_void)?;
        drop(s.stream(c"wb")?);
        Ok(Box::new(s))
    }
}

/// Reads blocks of lazy chunks through the backend (a stream per read, as lazy reads may
/// come from worker threads).
struct CallbackLazyReader {
    cb: blosc2_io_cb,
    path: CString,
    params: usize,
    base: u64,
}

// SAFETY: holds the user's process-global callbacks and an owned path; the backend must
// accept calls from any thread (lazy reads happen on worker threads, as in the reference).
unsafe impl Send for CallbackLazyReader {}
unsafe impl Sync for CallbackLazyReader {}

impl LazyReader for CallbackLazyReader {
    fn read(&self, _nchunk: i32, chunk_offset: i64, offset: i64, len: usize) -> Result<Vec<u8>> {
        let pos = crate::frame::cframe::lazy_block_position(self.base, chunk_offset, offset)?;
        let s = CallbackStorage::open(self.cb, &self.path, &[c"rb"], self.params as *mut c_void)?;
        let mut v = vec![0u8; len];
        cb_read(&s.cb, s.stream, pos, &mut v)?;
        Ok(v)
    }
}

/// What to run when the super-chunk goes away (the backend's destroy callback).
type Release = Option<Box<dyn FnOnce() + Send>>;

fn release_for(cb: &blosc2_io_cb, params: *mut c_void) -> Release {
    let destroy = cb.destroy?;
    let params = params as usize;
    Some(Box::new(move || {
        // SAFETY: the user's destroy callback with the params given at open time.
        unsafe { destroy(params as *mut c_void) };
    }))
}

fn opener_for(io: &blosc2_io) -> Result<(blosc2_io_cb, Arc<dyn Opener>)> {
    let cb = find_cb(io.id).ok_or(Error::PluginIo)?;
    Ok((cb, Arc::new(CallbackOpener { cb, params: io.params as usize })))
}

/// Open the frame at `offset` of `path` (a contiguous frame file or a sparse frame
/// directory) through the backend `io`.
fn open_with(path: &str, offset: u64, io: &blosc2_io) -> Result<(SuperChunk, Release)> {
    let (cb, files) = opener_for(io)?;
    let mut sc = SuperChunk::open_on(Path::new(path), offset, files)?;
    if matches!(sc.frame_kind(), Some(FrameKind::Contiguous { .. })) {
        let cpath = CString::new(path).map_err(|_| Error::InvalidParam)?;
        sc.decompressor().lazy = Some(Arc::new(CallbackLazyReader { cb, path: cpath, params: io.params as usize, base: offset }));
    }
    Ok((sc, release_for(&cb, io.params)))
}

/// A new, empty super-chunk whose frame (contiguous or sparse) goes through the backend `io`.
pub fn new_with_io(cp: &blosc2_cparams, dp: &blosc2_dparams, spec: &StorageSpec, io: &blosc2_io) -> Result<(SuperChunk, Release)> {
    let path = spec.urlpath.as_ref().and_then(|p| p.to_str()).ok_or(Error::InvalidParam)?.to_owned();
    let (cb, files) = opener_for(io)?;
    let params = super::context::core_cparams(cp);
    let dparams = crate::chunk::DecompressParams { nthreads: dp.nthreads.max(1), typesize: cp.typesize };
    let mut sc = SuperChunk::new_on(params, dparams, spec, files)?;
    if spec.contiguous {
        let cpath = CString::new(path).map_err(|_| Error::InvalidParam)?;
        sc.decompressor().lazy = Some(Arc::new(CallbackLazyReader { cb, path: cpath, params: io.params as usize, base: 0 }));
    }
    sc.compressor().params.nthreads = cp.nthreads.max(1);
    Ok((sc, release_for(&cb, io.params)))
}

/// Write a whole frame to `path` through the backend `io`, as the reference's `to_file`
/// ("wb", returns the length) or `append_file` ("rb+", created with "ab" when missing;
/// returns the offset where the frame starts) do for in-memory frames.
pub fn write_frame_via(io: &blosc2_io, path: &str, frame: &[u8], append: bool) -> Result<i64> {
    let cb = find_cb(io.id).ok_or(Error::PluginIo)?;
    let cpath = CString::new(path).map_err(|_| Error::InvalidParam)?;
    let params = io.params;
    let s = if append {
        CallbackStorage::open(cb, &cpath, &[c"rb+"], params).or_else(|_| {
            drop(CallbackStorage::open(cb, &cpath, &[c"ab"], params)?);
            CallbackStorage::open(cb, &cpath, &[c"rb+"], params)
        })?
    } else {
        CallbackStorage::open(cb, &cpath, &[c"wb"], params)?
    };
    let pos = if append {
        let size = cb.size.ok_or(Error::PluginIo)?;
        // SAFETY: stream from this backend.
        let n = unsafe { size(s.stream) };
        if n < 0 {
            return Err(Error::FileRead);
        }
        n
    } else {
        0
    };
    let write = cb.write.ok_or(Error::PluginIo)?;
    // SAFETY: frame readable for its length; stream from this backend.
    let n = unsafe { write(frame.as_ptr() as *const c_void, frame.len() as i64, 1, pos, s.stream) };
    if n != 1 {
        return Err(Error::FileWrite);
    }
    Ok(if append { pos } else { frame.len() as i64 })
}

fn open_udio_impl(urlpath: *const c_char, offset: i64, udio: *const blosc2_io) -> Result<*mut blosc2_schunk> {
    // SAFETY: per the API contract.
    let raw = unsafe { cstr(urlpath) }.ok_or(Error::NullPointer)?;
    // SAFETY: per the API contract.
    let io = unsafe { udio.as_ref() }.copied().unwrap_or(BLOSC2_IO_DEFAULTS);
    if offset < 0 {
        return Err(Error::InvalidParam);
    }
    if io.id as c_int == BLOSC2_IO_FILESYSTEM {
        return super::schunk::open_filesystem(raw, offset, &io);
    }
    let (sc, rel) = open_with(crate::frame::urlpath::local_path(raw), offset as u64, &io)?;
    let contiguous = matches!(sc.frame_kind(), Some(FrameKind::Contiguous { .. }));
    // The public storage records the urlpath as given, as the reference's does.
    let s = register_opened(sc, contiguous, Some(raw), &io)?;
    with_handle(s, |h| h.io_release = rel);
    Ok(s)
}

/// Open a super-chunk through a user I/O backend.
///
/// # Safety
/// `urlpath` a C string; `udio` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_open_udio(urlpath: *const c_char, udio: *const blosc2_io) -> *mut blosc2_schunk {
    guard(std::ptr::null_mut(), || open_udio_impl(urlpath, 0, udio).unwrap_or(std::ptr::null_mut()))
}

/// Open the frame at `offset` of `urlpath` through a user I/O backend.
///
/// # Safety
/// As `blosc2_schunk_open_udio`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_open_offset_udio(
    urlpath: *const c_char,
    offset: i64,
    udio: *const blosc2_io,
) -> *mut blosc2_schunk {
    guard(std::ptr::null_mut(), || open_udio_impl(urlpath, offset, udio).unwrap_or(std::ptr::null_mut()))
}
