//! Structs, callback typedefs and opaque handles of `blosc2.h`, plus the Rust values of the
//! header's `BLOSC2_*_DEFAULTS` initialisers.
//!
//! Function-pointer typedefs are `Option<unsafe extern "C" fn ..>` so that NULL is `None`.
//! The `*_DEFAULTS` consts carry `cbindgen:ignore`: the C side gets its `static const`
//! initialisers from `c/blosc2.trailer.h`, and `layout_tests` checks both say the same thing.

use core::marker::{PhantomData, PhantomPinned};
use core::ptr;

use libc::{c_char, c_int, c_void, size_t};

use super::consts::*;

// ---------------------------------------------------------------------------------------------
// Opaque handles
// ---------------------------------------------------------------------------------------------

/// Compression or decompression context (C: `struct blosc2_context_s`, only ever used through
/// a pointer). The real state is private to the library; cast pointers to it as needed.
///
/// cbindgen:ignore
#[repr(C)]
pub struct blosc2_context_s {
    _opaque: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}

/// C: `typedef struct blosc2_context_s blosc2_context;` (emitted verbatim).
///
/// cbindgen:ignore
pub type blosc2_context = blosc2_context_s;

/// Frame backing a super-chunk (C: `struct blosc2_frame_s`, only used through a pointer).
///
/// cbindgen:ignore
#[repr(C)]
pub struct blosc2_frame_s {
    _opaque: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}

/// C: `typedef struct blosc2_frame_s blosc2_frame;` (emitted verbatim).
///
/// cbindgen:ignore
pub type blosc2_frame = blosc2_frame_s;

/// Timestamp used by the timing helpers: `struct timespec` on POSIX systems.
/// The C typedef is emitted verbatim (cbindgen would drop the `struct` keyword).
///
/// cbindgen:ignore
pub type blosc_timestamp_t = libc::timespec;

// ---------------------------------------------------------------------------------------------
// Instrumentation
// ---------------------------------------------------------------------------------------------

/// Per-block measurements stored instead of data when `instr_codec` is set.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct blosc2_instr {
    /// Compression ratio of the block.
    pub cratio: f32,
    /// Compression speed.
    pub cspeed: f32,
    /// Speed of the filter pipeline.
    pub filter_speed: f32,
    /// Flags describing the block (special values, splitting...).
    pub flags: [u8; 4],
}

// ---------------------------------------------------------------------------------------------
// Threads
// ---------------------------------------------------------------------------------------------

/// Replacement thread pool: the library calls it with `numjobs` jobs of `jobdata_elsize`
/// bytes each stored back to back at `jobdata`; the pool must call `dojob` on each element and
/// return when all are done.
pub type blosc_threads_callback = Option<
    unsafe extern "C" fn(
        callback_data: *mut c_void,
        dojob: Option<unsafe extern "C" fn(*mut c_void)>,
        numjobs: c_int,
        jobdata_elsize: size_t,
        jobdata: *mut c_void,
    ),
>;

// ---------------------------------------------------------------------------------------------
// I/O backends
// ---------------------------------------------------------------------------------------------

/// Opens `urlpath` with an fopen-style `mode`; returns the stream handle or NULL.
pub type blosc2_open_cb = Option<
    unsafe extern "C" fn(
        urlpath: *const c_char,
        mode: *const c_char,
        params: *mut c_void,
    ) -> *mut c_void,
>;
/// Closes a stream; 0 on success.
pub type blosc2_close_cb = Option<unsafe extern "C" fn(stream: *mut c_void) -> c_int>;
/// Size in bytes of a stream, or a negative error.
pub type blosc2_size_cb = Option<unsafe extern "C" fn(stream: *mut c_void) -> i64>;
/// Writes `nitems` items of `size` bytes at byte `position`; returns the items written.
pub type blosc2_write_cb = Option<
    unsafe extern "C" fn(
        ptr: *const c_void,
        size: i64,
        nitems: i64,
        position: i64,
        stream: *mut c_void,
    ) -> i64,
>;
/// Reads `nitems` items of `size` bytes at byte `position` into `*ptr` (a backend may replace
/// `*ptr` with a pointer into its own memory); returns the items read.
pub type blosc2_read_cb = Option<
    unsafe extern "C" fn(
        ptr: *mut *mut c_void,
        size: i64,
        nitems: i64,
        position: i64,
        stream: *mut c_void,
    ) -> i64,
>;
/// Truncates (or extends) a stream to `size` bytes; 0 on success.
pub type blosc2_truncate_cb = Option<unsafe extern "C" fn(stream: *mut c_void, size: i64) -> c_int>;
/// Releases the `params` of an I/O backend; 0 on success.
pub type blosc2_destroy_cb = Option<unsafe extern "C" fn(params: *mut c_void) -> c_int>;

/// Callbacks of an I/O backend, registered with `blosc2_register_io_cb`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_io_cb {
    /// Backend id (see the `BLOSC2_IO_*` ranges).
    pub id: u8,
    /// Backend name.
    pub name: *mut c_char,
    /// Whether reads need a caller-allocated buffer (false when the backend hands out
    /// pointers into its own memory, as mmap does).
    pub is_allocation_necessary: bool,
    /// Opens a stream (`blosc2_open_cb`).
    pub open: blosc2_open_cb,
    /// Closes a stream (`blosc2_close_cb`).
    pub close: blosc2_close_cb,
    /// Size of a stream (`blosc2_size_cb`).
    pub size: blosc2_size_cb,
    /// Writes to a stream (`blosc2_write_cb`).
    pub write: blosc2_write_cb,
    /// Reads from a stream (`blosc2_read_cb`).
    pub read: blosc2_read_cb,
    /// Truncates or extends a stream (`blosc2_truncate_cb`).
    pub truncate: blosc2_truncate_cb,
    /// Releases the backend's `params` (`blosc2_destroy_cb`).
    pub destroy: blosc2_destroy_cb,
}

/// Selects an I/O backend for a storage.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_io {
    /// Backend id.
    pub id: u8,
    /// Backend name.
    pub name: *const c_char,
    /// Backend-specific parameters (e.g. `blosc2_stdio_params`, `blosc2_stdio_mmap`).
    pub params: *mut c_void,
}

// ---------------------------------------------------------------------------------------------
// Tuners
// ---------------------------------------------------------------------------------------------

/// A tuner: callbacks that pick block sizes and compression parameters on the fly.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_tuner {
    /// Called when a compression context using the tuner is created, with the context's
    /// `tuner_params`, the new context and NULL; a negative return refuses the context.
    pub init: Option<
        unsafe extern "C" fn(
            config: *mut c_void,
            cctx: *mut blosc2_context,
            dctx: *mut blosc2_context,
        ) -> c_int,
    >,
    /// Called before each chunk when the context has no tuner parameters; negative on error.
    pub next_blocksize: Option<unsafe extern "C" fn(context: *mut blosc2_context) -> c_int>,
    /// Called before each chunk when the context has tuner parameters; negative on error.
    pub next_cparams: Option<unsafe extern "C" fn(context: *mut blosc2_context) -> c_int>,
    /// Called after each chunk (with tuner parameters) with its compression time in seconds.
    pub update: Option<unsafe extern "C" fn(context: *mut blosc2_context, ctime: f64) -> c_int>,
    /// Called when the compression context is freed (with tuner parameters).
    pub free: Option<unsafe extern "C" fn(context: *mut blosc2_context) -> c_int>,
    /// Tuner id.
    pub id: c_int,
    /// Tuner name.
    pub name: *mut c_char,
}

// ---------------------------------------------------------------------------------------------
// Prefilters and postfilters
// ---------------------------------------------------------------------------------------------

/// What a prefilter callback receives for each block before compression.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_prefilter_params {
    /// The `user_data` given in `blosc2_cparams::preparams`.
    pub user_data: *mut c_void,
    /// Source data of the block.
    pub input: *const u8,
    /// Where the prefilter writes its result.
    pub output: *mut u8,
    /// Bytes to write to `output`.
    pub output_size: i32,
    /// Type size of the output items.
    pub output_typesize: i32,
    /// Offset of the block from the start of the chunk.
    pub output_offset: i32,
    /// Chunk number within the super-chunk.
    pub nchunk: i64,
    /// Block number within the chunk.
    pub nblock: i32,
    /// Id of the calling thread.
    pub tid: i32,
    /// Per-thread scratch buffer.
    pub ttmp: *mut u8,
    /// Size of `ttmp`.
    pub ttmp_nbytes: size_t,
    /// Compression context.
    pub ctx: *mut blosc2_context,
    /// Whether `output` may be overwritten after the filter pipeline ran.
    pub output_is_disposable: bool,
}

/// What a postfilter callback receives for each block after decompression.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_postfilter_params {
    /// The `user_data` given in `blosc2_dparams::postparams`.
    pub user_data: *mut c_void,
    /// Decompressed data of the block.
    pub input: *const u8,
    /// Where the postfilter writes its result.
    pub output: *mut u8,
    /// Bytes of the block.
    pub size: i32,
    /// Type size of the items.
    pub typesize: i32,
    /// Offset of the block from the start of the chunk.
    pub offset: i32,
    /// Chunk number within the super-chunk.
    pub nchunk: i64,
    /// Block number within the chunk.
    pub nblock: i32,
    /// Id of the calling thread.
    pub tid: i32,
    /// Per-thread scratch buffer.
    pub ttmp: *mut u8,
    /// Size of `ttmp`.
    pub ttmp_nbytes: size_t,
    /// Decompression context.
    pub ctx: *mut blosc2_context,
}

/// Prefilter callback: 0 on success, negative to abort compression.
pub type blosc2_prefilter_fn =
    Option<unsafe extern "C" fn(params: *mut blosc2_prefilter_params) -> c_int>;
/// Postfilter callback: 0 on success, negative to abort decompression.
pub type blosc2_postfilter_fn =
    Option<unsafe extern "C" fn(params: *mut blosc2_postfilter_params) -> c_int>;

// ---------------------------------------------------------------------------------------------
// Compression and decompression parameters
// ---------------------------------------------------------------------------------------------

/// Parameters of a compression context.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_cparams {
    /// Codec id (`BLOSC_BLOSCLZ`, `BLOSC_LZ4`...).
    pub compcode: u8,
    /// Codec-specific meta byte.
    pub compcode_meta: u8,
    /// Compression level, 0 (none) to 9 (max).
    pub clevel: u8,
    /// Whether to use a dictionary (ZSTD, LZ4/LZ4HC).
    pub use_dict: c_int,
    /// Size in bytes of one item.
    pub typesize: i32,
    /// Number of threads.
    pub nthreads: i16,
    /// Block size in bytes; 0 lets the library choose.
    pub blocksize: i32,
    /// One of the `BLOSC_*_SPLIT` modes.
    pub splitmode: i32,
    /// Owning super-chunk (a `blosc2_schunk *`), if any.
    pub schunk: *mut c_void,
    /// Filter pipeline, applied first to last.
    pub filters: [u8; BLOSC2_MAX_FILTERS],
    /// Meta byte of each filter.
    pub filters_meta: [u8; BLOSC2_MAX_FILTERS],
    /// Optional prefilter.
    pub prefilter: blosc2_prefilter_fn,
    /// Parameters handed to the prefilter.
    pub preparams: *mut blosc2_prefilter_params,
    /// Tuner parameters.
    pub tuner_params: *mut c_void,
    /// Tuner id.
    pub tuner_id: c_int,
    /// Store instrumentation (`blosc2_instr`) instead of compressed data.
    pub instr_codec: bool,
    /// Codec-specific parameters (user-defined codecs).
    pub codec_params: *mut c_void,
    /// Filter-specific parameters, one per slot (user-defined filters).
    pub filter_params: [*mut c_void; BLOSC2_MAX_FILTERS],
}

/// Parameters of a decompression context.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_dparams {
    /// Number of threads.
    pub nthreads: i16,
    /// Owning super-chunk (a `blosc2_schunk *`), if any.
    pub schunk: *mut c_void,
    /// Optional postfilter.
    pub postfilter: blosc2_postfilter_fn,
    /// Parameters handed to the postfilter.
    pub postparams: *mut blosc2_postfilter_params,
    /// Size in bytes of one item.
    pub typesize: i32,
}

// ---------------------------------------------------------------------------------------------
// Super-chunks
// ---------------------------------------------------------------------------------------------

/// Where and how a super-chunk is stored.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_storage {
    /// Contiguous frame (true) or sparse directory frame (false).
    pub contiguous: bool,
    /// Path on disk; NULL for an in-memory super-chunk.
    pub urlpath: *mut c_char,
    /// Compression parameters; NULL means the defaults.
    pub cparams: *mut blosc2_cparams,
    /// Decompression parameters; NULL means the defaults.
    pub dparams: *mut blosc2_dparams,
    /// I/O backend; NULL means the default filesystem backend.
    pub io: *mut blosc2_io,
}

/// A fixed-length metalayer of a super-chunk.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_metalayer {
    /// NUL-terminated name.
    pub name: *mut c_char,
    /// Content bytes.
    pub content: *mut u8,
    /// Length of `content`.
    pub content_len: i32,
}

/// A super-chunk: a sequence of chunks sharing parameters, plus metalayers.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_schunk {
    /// Format version.
    pub version: u8,
    /// Codec id.
    pub compcode: u8,
    /// Codec meta byte.
    pub compcode_meta: u8,
    /// Compression level.
    pub clevel: u8,
    /// Split mode.
    pub splitmode: u8,
    /// Size in bytes of one item.
    pub typesize: i32,
    /// Block size.
    pub blocksize: i32,
    /// Size of each chunk (0 while unknown, -1 if chunks differ).
    pub chunksize: i32,
    /// Second blosc2 flags byte of the chunks (3.x only: absent from the 2.x face's layout).
    #[cfg(not(feature = "abi2"))]
    pub flags2: u8,
    /// Whether chunks use a dictionary (3.x only).
    #[cfg(not(feature = "abi2"))]
    pub use_dict: u8,
    /// Filter pipeline.
    pub filters: [u8; BLOSC2_MAX_FILTERS],
    /// Meta byte of each filter.
    pub filters_meta: [u8; BLOSC2_MAX_FILTERS],
    /// Number of chunks.
    pub nchunks: i64,
    /// Chunk currently being worked on (for prefilters/postfilters).
    pub current_nchunk: i64,
    /// Uncompressed size of all chunks.
    pub nbytes: i64,
    /// Compressed size of all chunks.
    pub cbytes: i64,
    /// Chunk pointers (in-memory super-chunks without a frame).
    pub data: *mut *mut u8,
    /// Length of `data`.
    pub data_len: size_t,
    /// Storage description.
    pub storage: *mut blosc2_storage,
    /// Frame backing the super-chunk, if any.
    pub frame: *mut blosc2_frame,
    /// Compression context.
    pub cctx: *mut blosc2_context,
    /// Decompression context.
    pub dctx: *mut blosc2_context,
    /// Fixed-length metalayers.
    pub metalayers: [*mut blosc2_metalayer; BLOSC2_MAX_METALAYERS],
    /// Number of fixed-length metalayers.
    pub nmetalayers: u16,
    /// Variable-length metalayers.
    pub vlmetalayers: [*mut blosc2_metalayer; BLOSC2_MAX_VLMETALAYERS],
    /// Number of variable-length metalayers.
    pub nvlmetalayers: i16,
    /// Tuner parameters.
    pub tuner_params: *mut c_void,
    /// Tuner id.
    pub tuner_id: c_int,
    /// Number of dimensions (b2nd arrays), else 0.
    pub ndim: i8,
    /// Block shape (b2nd arrays), else NULL.
    pub blockshape: *mut i64,
    /// Whether this is a view that does not own its data.
    pub view: bool,
    /// Incremented on every change, so views can tell they are stale (3.x only).
    #[cfg(not(feature = "abi2"))]
    pub change_tick: i64,
}

// ---------------------------------------------------------------------------------------------
// User-defined codecs and filters
// ---------------------------------------------------------------------------------------------

/// Encoder of a user-defined codec: returns the compressed size, 0 if the output does not
/// fit, or a negative error.
pub type blosc2_codec_encoder_cb = Option<
    unsafe extern "C" fn(
        input: *const u8,
        input_len: i32,
        output: *mut u8,
        output_len: i32,
        meta: u8,
        cparams: *mut blosc2_cparams,
        chunk: *const c_void,
    ) -> c_int,
>;
/// Decoder of a user-defined codec: returns the decompressed size or a negative error.
pub type blosc2_codec_decoder_cb = Option<
    unsafe extern "C" fn(
        input: *const u8,
        input_len: i32,
        output: *mut u8,
        output_len: i32,
        meta: u8,
        dparams: *mut blosc2_dparams,
        chunk: *const c_void,
    ) -> c_int,
>;

/// A user-defined codec, registered with `blosc2_register_codec`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_codec {
    /// Codec id.
    pub compcode: u8,
    /// Codec name.
    pub compname: *mut c_char,
    /// Library code stored in chunk headers.
    pub complib: u8,
    /// Codec format version.
    pub version: u8,
    /// Compression function.
    pub encoder: blosc2_codec_encoder_cb,
    /// Decompression function.
    pub decoder: blosc2_codec_decoder_cb,
}

/// Forward pass of a user-defined filter: (src, dest, size, meta, cparams, filter id).
pub type blosc2_filter_forward_cb =
    Option<unsafe extern "C" fn(*const u8, *mut u8, i32, u8, *mut blosc2_cparams, u8) -> c_int>;
/// Backward pass of a user-defined filter: (src, dest, size, meta, dparams, filter id).
pub type blosc2_filter_backward_cb =
    Option<unsafe extern "C" fn(*const u8, *mut u8, i32, u8, *mut blosc2_dparams, u8) -> c_int>;

/// A user-defined filter, registered with `blosc2_register_filter`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct blosc2_filter {
    /// Filter id.
    pub id: u8,
    /// Filter name.
    pub name: *mut c_char,
    /// Filter format version.
    pub version: u8,
    /// Applied when compressing.
    pub forward: blosc2_filter_forward_cb,
    /// Applied when decompressing.
    pub backward: blosc2_filter_backward_cb,
}

// ---------------------------------------------------------------------------------------------
// Defaults (Rust values of the header's `static const` initialisers)
// ---------------------------------------------------------------------------------------------

/// Same as C `BLOSC2_CPARAMS_DEFAULTS`: BloscLZ at level 5, typesize 8, one thread,
/// automatic block size, forward-compatible splitting, byte shuffle in the last filter slot.
///
/// cbindgen:ignore
pub const BLOSC2_CPARAMS_DEFAULTS: blosc2_cparams = blosc2_cparams {
    compcode: BLOSC_BLOSCLZ as u8,
    compcode_meta: 0,
    clevel: 5,
    use_dict: 0,
    typesize: 8,
    nthreads: 1,
    blocksize: 0,
    splitmode: BLOSC_FORWARD_COMPAT_SPLIT,
    schunk: ptr::null_mut(),
    filters: [0, 0, 0, 0, 0, BLOSC_SHUFFLE as u8],
    filters_meta: [0; BLOSC2_MAX_FILTERS],
    prefilter: None,
    preparams: ptr::null_mut(),
    tuner_params: ptr::null_mut(),
    tuner_id: 0,
    instr_codec: false,
    codec_params: ptr::null_mut(),
    filter_params: [ptr::null_mut(); BLOSC2_MAX_FILTERS],
};

/// Same as C `BLOSC2_DPARAMS_DEFAULTS`: one thread, typesize 8, everything else NULL.
///
/// cbindgen:ignore
pub const BLOSC2_DPARAMS_DEFAULTS: blosc2_dparams = blosc2_dparams {
    nthreads: 1,
    schunk: ptr::null_mut(),
    postfilter: None,
    postparams: ptr::null_mut(),
    typesize: 8,
};

/// Same as C `BLOSC2_STORAGE_DEFAULTS`: sparse, in memory, default parameters and I/O.
///
/// cbindgen:ignore
pub const BLOSC2_STORAGE_DEFAULTS: blosc2_storage = blosc2_storage {
    contiguous: false,
    urlpath: ptr::null_mut(),
    cparams: ptr::null_mut(),
    dparams: ptr::null_mut(),
    io: ptr::null_mut(),
};

/// Same as C `BLOSC2_IO_DEFAULTS`: the filesystem backend, named `"filesystem"`. `name`
/// points at a `'static` NUL-terminated literal (never written through).
///
/// cbindgen:ignore
pub const BLOSC2_IO_DEFAULTS: blosc2_io = blosc2_io {
    id: BLOSC2_IO_FILESYSTEM as u8,
    name: c"filesystem".as_ptr(),
    params: ptr::null_mut(),
};

impl Default for blosc2_cparams {
    fn default() -> Self {
        BLOSC2_CPARAMS_DEFAULTS
    }
}

impl Default for blosc2_dparams {
    fn default() -> Self {
        BLOSC2_DPARAMS_DEFAULTS
    }
}

impl Default for blosc2_storage {
    fn default() -> Self {
        BLOSC2_STORAGE_DEFAULTS
    }
}

impl Default for blosc2_io {
    fn default() -> Self {
        BLOSC2_IO_DEFAULTS
    }
}
