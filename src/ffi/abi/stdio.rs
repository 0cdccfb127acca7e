//! Types of `blosc2/blosc2-stdio.h`: the built-in filesystem and memory-mapped I/O backends.
//!
//! Only the POSIX layout is provided (the reference adds a Windows `HANDLE` to
//! `blosc2_stdio_mmap` under `_WIN32`; this library targets Linux).

use core::ptr;

use libc::{c_char, c_int, size_t, FILE};

/// Stream handle of the default filesystem backend.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_stdio_file {
    /// The open stdio file.
    pub file: *mut FILE,
}

/// Parameters of the default filesystem backend (`BLOSC2_IO_FILESYSTEM`), passed through
/// `blosc2_io::params`; NULL params mean all defaults. Must outlive the super-chunks using it.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct blosc2_stdio_params {
    /// Take advisory locks on a sidecar lock file around frame accesses (shared for readers,
    /// exclusive for writers). Also switched on globally by a non-empty, non-"0"
    /// `BLOSC_LOCKING` environment variable.
    pub locking: bool,
}

/// Parameters and state of the memory-mapped backend (`BLOSC2_IO_FILESYSTEM_MMAP`). Only
/// contiguous frames can be memory-mapped.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_stdio_mmap {
    /// Mapping mode, as for numpy.memmap: "r" (read only), "r+" (read and extend an existing
    /// file), "w+" (create a new file) or "c" (copy-on-write: changes stay in memory).
    pub mode: *const c_char,
    /// Size of the first mapping for the writable modes; it is grown as needed.
    pub initial_mapping_size: size_t,
    /// Whether the destroy callback must free this struct (true if it was heap allocated).
    pub needs_free: bool,
    /// Start of the mapping (internal).
    pub addr: *mut c_char,
    /// Path of the mapped file (internal).
    pub urlpath: *mut c_char,
    /// Current size of the file (internal).
    pub file_size: size_t,
    /// Current size of the mapping, at least `file_size` (internal).
    pub mapping_size: size_t,
    /// True in "c" mode, where the file on disk is never modified (internal).
    pub is_memory_only: bool,
    /// Underlying stdio file (internal).
    pub file: *mut FILE,
    /// Underlying file descriptor (internal).
    pub fd: c_int,
    /// Page protection flags of the mapping (internal).
    pub access_flags: i64,
    /// mmap flags of the mapping (internal).
    pub map_flags: i64,
}

/// Same as C `BLOSC2_STDIO_PARAMS_DEFAULTS`: locking off.
///
/// cbindgen:ignore
pub const BLOSC2_STDIO_PARAMS_DEFAULTS: blosc2_stdio_params =
    blosc2_stdio_params { locking: false };

/// Same as C `BLOSC2_STDIO_MMAP_DEFAULTS`: read-only mode, a 1 GiB initial mapping, not heap
/// allocated, no mapping yet, file descriptor and flags -1. `mode` points at a `'static`
/// NUL-terminated literal (never written through).
///
/// cbindgen:ignore
pub const BLOSC2_STDIO_MMAP_DEFAULTS: blosc2_stdio_mmap = blosc2_stdio_mmap {
    mode: c"r".as_ptr(),
    initial_mapping_size: 1 << 30,
    needs_free: false,
    addr: ptr::null_mut(),
    urlpath: ptr::null_mut(),
    file_size: 0,
    mapping_size: 0,
    is_memory_only: false,
    file: ptr::null_mut(),
    fd: -1,
    access_flags: -1,
    map_flags: -1,
};

impl Default for blosc2_stdio_mmap {
    fn default() -> Self {
        BLOSC2_STDIO_MMAP_DEFAULTS
    }
}
