//! Integer constants of `blosc2.h`.
//!
//! In the reference most of these are members of anonymous `enum`s; our header emits each as
//! a `#define` with the same value (an `int` expression in both cases). Items carrying
//! `#[cfg(not(blosc_h))]` are wrapped in `#if !defined(BLOSC_H)` in the header, exactly where
//! the reference guards them, so `blosc2.h` can be included after the blosc1 `blosc.h`.
//!
//! Rust types: `c_int` (the type of a C enum constant), except the few counts that size
//! Rust arrays (`BLOSC2_MAX_FILTERS`, `BLOSC2_MAX_UDFILTERS`, `BLOSC2_MAX_METALAYERS`,
//! `BLOSC2_MAX_VLMETALAYERS`, the `*_NAME_MAXLEN` pair), which are `usize`.
//!
//! String constants (`BLOSC2_VERSION_STRING`, `BLOSC_*_COMPNAME`, `BLOSC_*_LIBNAME`) are
//! `&str` here and ignored by cbindgen (it cannot emit string literals); their C `#define`s
//! are verbatim text in `c/blosc2.preamble.h`, and `tests/headers.rs` checks that both agree.

use libc::c_int;

// ---------------------------------------------------------------------------------------------
// Library version
// ---------------------------------------------------------------------------------------------

/// Major version of the c-blosc2 API this library implements.
pub const BLOSC2_VERSION_MAJOR: c_int = 3;
/// Minor version of the c-blosc2 API this library implements.
pub const BLOSC2_VERSION_MINOR: c_int = 3;
/// Release (patch) version of the c-blosc2 API this library implements.
pub const BLOSC2_VERSION_RELEASE: c_int = 5;
/// cbindgen:ignore
pub const BLOSC2_VERSION_STRING: &str = "3.3.5";
/// cbindgen:ignore
pub const BLOSC2_VERSION_DATE: &str = "$Date:: 2026-09-24 #$";

// ---------------------------------------------------------------------------------------------
// Format versions
// ---------------------------------------------------------------------------------------------

/// Chunk format of blosc 1.x before 1.0 (pre-release).
pub const BLOSC1_VERSION_FORMAT_PRE1: c_int = 1;
/// Chunk format written by blosc 1.x.
pub const BLOSC1_VERSION_FORMAT: c_int = 2;
/// Chunk format of the blosc2 alpha series.
pub const BLOSC2_VERSION_FORMAT_ALPHA: c_int = 3;
/// Chunk format of blosc2 beta.1.
pub const BLOSC2_VERSION_FORMAT_BETA1: c_int = 4;
/// Chunk format of blosc2 2.0 stable.
pub const BLOSC2_VERSION_FORMAT_STABLE: c_int = 5;
/// Chunk format with variable-length blocks.
pub const BLOSC2_VERSION_FORMAT_VL_BLOCKS: c_int = 6;
/// Chunk format version written by this library.
pub const BLOSC2_VERSION_FORMAT: c_int = BLOSC2_VERSION_FORMAT_VL_BLOCKS;

/// Frame format of blosc2 beta.2.
pub const BLOSC2_VERSION_FRAME_FORMAT_BETA2: c_int = 1;
/// Frame format of blosc2 rc.1.
pub const BLOSC2_VERSION_FRAME_FORMAT_RC1: c_int = 2;
/// Frame format able to hold variable-length-block chunks.
pub const BLOSC2_VERSION_FRAME_FORMAT_VL_BLOCKS: c_int = 3;
/// Frame format version written by this library.
pub const BLOSC2_VERSION_FRAME_FORMAT: c_int = BLOSC2_VERSION_FRAME_FORMAT_VL_BLOCKS;

// ---------------------------------------------------------------------------------------------
// Header sizes and buffer limits
// ---------------------------------------------------------------------------------------------

/// Size in bytes of the short (blosc1) chunk header.
#[cfg(not(blosc_h))]
pub const BLOSC_MIN_HEADER_LENGTH: c_int = 16;
/// Size in bytes of the extended (blosc2) chunk header.
pub const BLOSC_EXTENDED_HEADER_LENGTH: c_int = 32;
/// Largest number of bytes compression may add on top of the input.
pub const BLOSC2_MAX_OVERHEAD: c_int = BLOSC_EXTENDED_HEADER_LENGTH;
/// Largest uncompressed buffer a single chunk may hold.
pub const BLOSC2_MAX_BUFFERSIZE: c_int = i32::MAX - BLOSC2_MAX_OVERHEAD;
/// Largest type size accepted by the blosc1-compatible API (`UINT8_MAX`).
#[cfg(not(blosc_h))]
pub const BLOSC_MAX_TYPESIZE: c_int = 255;
/// Below this many bytes a buffer is stored without compression.
pub const BLOSC_MIN_BUFFERSIZE: c_int = 32;

// ---------------------------------------------------------------------------------------------
// Tuners
// ---------------------------------------------------------------------------------------------

/// First id reserved for tuners built into the library.
pub const BLOSC2_DEFINED_TUNER_START: c_int = 0;
/// Last id reserved for tuners built into the library.
pub const BLOSC2_DEFINED_TUNER_STOP: c_int = 31;
/// First id of the globally registered (plugin) tuners.
pub const BLOSC2_GLOBAL_REGISTERED_TUNER_START: c_int = 32;
/// Last id of the globally registered (plugin) tuners.
pub const BLOSC2_GLOBAL_REGISTERED_TUNER_STOP: c_int = 159;
/// How many global tuners are registered by default.
pub const BLOSC2_GLOBAL_REGISTERED_TUNERS: c_int = 0;
/// First id available for tuners registered by the user.
pub const BLOSC2_USER_REGISTERED_TUNER_START: c_int = 160;
/// Last id available for tuners registered by the user.
pub const BLOSC2_USER_REGISTERED_TUNER_STOP: c_int = 255;

/// The built-in simple tuner.
pub const BLOSC_STUNE: c_int = 0;
/// One past the last built-in tuner id.
pub const BLOSC_LAST_TUNER: c_int = 1;
/// Id of the last globally registered tuner.
pub const BLOSC_LAST_REGISTERED_TUNE: c_int =
    BLOSC2_GLOBAL_REGISTERED_TUNER_START + BLOSC2_GLOBAL_REGISTERED_TUNERS - 1;

// ---------------------------------------------------------------------------------------------
// Filters
// ---------------------------------------------------------------------------------------------

/// First id reserved for filters built into the library.
pub const BLOSC2_DEFINED_FILTERS_START: c_int = 0;
/// Last id reserved for filters built into the library.
pub const BLOSC2_DEFINED_FILTERS_STOP: c_int = 31;
/// First id of the globally registered (plugin) filters.
pub const BLOSC2_GLOBAL_REGISTERED_FILTERS_START: c_int = 32;
/// Last id of the globally registered (plugin) filters.
pub const BLOSC2_GLOBAL_REGISTERED_FILTERS_STOP: c_int = 159;
/// How many global filters are registered by default.
pub const BLOSC2_GLOBAL_REGISTERED_FILTERS: c_int = 5;
/// First id available for filters registered by the user.
pub const BLOSC2_USER_REGISTERED_FILTERS_START: c_int = 160;
/// Last id available for filters registered by the user.
pub const BLOSC2_USER_REGISTERED_FILTERS_STOP: c_int = 255;
/// Number of slots in a filter pipeline.
pub const BLOSC2_MAX_FILTERS: usize = 6;
/// Maximum number of user-defined filters that can be registered.
pub const BLOSC2_MAX_UDFILTERS: usize = 16;

/// Filter slot left empty (no shuffling).
#[cfg(not(blosc_h))]
pub const BLOSC_NOSHUFFLE: c_int = 0;
/// Same as `BLOSC_NOSHUFFLE`: the slot applies no filter.
#[cfg(not(blosc_h))]
pub const BLOSC_NOFILTER: c_int = 0;
/// Byte shuffle.
#[cfg(not(blosc_h))]
pub const BLOSC_SHUFFLE: c_int = 1;
/// Bit shuffle.
#[cfg(not(blosc_h))]
pub const BLOSC_BITSHUFFLE: c_int = 2;
/// Delta against the first block.
pub const BLOSC_DELTA: c_int = 3;
/// Precision truncation of floating point values.
pub const BLOSC_TRUNC_PREC: c_int = 4;
/// One past the last built-in filter id.
pub const BLOSC_LAST_FILTER: c_int = 5;
/// Id of the last globally registered filter.
pub const BLOSC_LAST_REGISTERED_FILTER: c_int =
    BLOSC2_GLOBAL_REGISTERED_FILTERS_START + BLOSC2_GLOBAL_REGISTERED_FILTERS - 1;

// ---------------------------------------------------------------------------------------------
// Header flags
// ---------------------------------------------------------------------------------------------

/// Flags byte: byte shuffle was applied.
#[cfg(not(blosc_h))]
pub const BLOSC_DOSHUFFLE: c_int = 0x1;
/// Flags byte: data was stored uncompressed.
#[cfg(not(blosc_h))]
pub const BLOSC_MEMCPYED: c_int = 0x2;
/// Flags byte: bit shuffle was applied.
#[cfg(not(blosc_h))]
pub const BLOSC_DOBITSHUFFLE: c_int = 0x4;
/// Flags byte: delta filter was applied.
pub const BLOSC_DODELTA: c_int = 0x8;

/// blosc2 flags byte: a dictionary is used by the codec.
pub const BLOSC2_USEDICT: c_int = 0x1;
/// blosc2 flags byte: data was produced on a big-endian machine.
pub const BLOSC2_BIGENDIAN: c_int = 0x2;
/// blosc2 flags byte: the chunk holds codec instrumentation instead of data.
pub const BLOSC2_INSTR_CODEC: c_int = 0x80;

/// Second blosc2 flags byte: the chunk is made of variable-length blocks.
pub const BLOSC2_VL_BLOCKS: c_int = 0x1;

// ---------------------------------------------------------------------------------------------
// Dictionaries and block limits
// ---------------------------------------------------------------------------------------------

/// Largest dictionary a codec may be trained with.
pub const BLOSC2_MAXDICTSIZE: c_int = 32 * 1024;
/// Smallest dictionary considered worth using.
pub const BLOSC2_MINUSEFULDICT: c_int = 256;
/// Largest block size supported.
pub const BLOSC2_MAXBLOCKSIZE: c_int = 536866816;
/// Largest type size supported.
pub const BLOSC2_MAXTYPESIZE: c_int = BLOSC2_MAXBLOCKSIZE;

// ---------------------------------------------------------------------------------------------
// Codecs
// ---------------------------------------------------------------------------------------------

/// First id reserved for codecs built into the library.
pub const BLOSC2_DEFINED_CODECS_START: c_int = 0;
/// Last id reserved for codecs built into the library.
pub const BLOSC2_DEFINED_CODECS_STOP: c_int = 31;
/// First id of the globally registered (plugin) codecs.
pub const BLOSC2_GLOBAL_REGISTERED_CODECS_START: c_int = 32;
/// Last id of the globally registered (plugin) codecs.
pub const BLOSC2_GLOBAL_REGISTERED_CODECS_STOP: c_int = 159;
/// How many global codecs are registered by default.
pub const BLOSC2_GLOBAL_REGISTERED_CODECS: c_int = 5;
/// First id available for codecs registered by the user.
pub const BLOSC2_USER_REGISTERED_CODECS_START: c_int = 160;
/// Last id available for codecs registered by the user.
pub const BLOSC2_USER_REGISTERED_CODECS_STOP: c_int = 255;

/// Codec id of BloscLZ.
#[cfg(not(blosc_h))]
pub const BLOSC_BLOSCLZ: c_int = 0;
/// Codec id of LZ4.
#[cfg(not(blosc_h))]
pub const BLOSC_LZ4: c_int = 1;
/// Codec id of LZ4 in high-compression mode.
#[cfg(not(blosc_h))]
pub const BLOSC_LZ4HC: c_int = 2;
/// Codec id of zlib (deflate).
#[cfg(not(blosc_h))]
pub const BLOSC_ZLIB: c_int = 4;
/// Codec id of Zstandard.
#[cfg(not(blosc_h))]
pub const BLOSC_ZSTD: c_int = 5;
/// One past the last built-in codec id.
pub const BLOSC_LAST_CODEC: c_int = 6;
/// Id of the last globally registered codec.
pub const BLOSC_LAST_REGISTERED_CODEC: c_int =
    BLOSC2_GLOBAL_REGISTERED_CODECS_START + BLOSC2_GLOBAL_REGISTERED_CODECS - 1;

/// cbindgen:ignore
pub const BLOSC_BLOSCLZ_COMPNAME: &str = "blosclz";
/// cbindgen:ignore
pub const BLOSC_LZ4_COMPNAME: &str = "lz4";
/// cbindgen:ignore
pub const BLOSC_LZ4HC_COMPNAME: &str = "lz4hc";
/// cbindgen:ignore
pub const BLOSC_ZLIB_COMPNAME: &str = "zlib";
/// cbindgen:ignore
pub const BLOSC_ZSTD_COMPNAME: &str = "zstd";

/// Library code of BloscLZ (stored in chunk headers).
#[cfg(not(blosc_h))]
pub const BLOSC_BLOSCLZ_LIB: c_int = 0;
/// Library code of LZ4 (also used by LZ4HC).
#[cfg(not(blosc_h))]
pub const BLOSC_LZ4_LIB: c_int = 1;
/// Library code of zlib.
#[cfg(not(blosc_h))]
pub const BLOSC_ZLIB_LIB: c_int = 3;
/// Library code of Zstandard.
#[cfg(not(blosc_h))]
pub const BLOSC_ZSTD_LIB: c_int = 4;
/// Library code of a user-defined codec.
pub const BLOSC_UDCODEC_LIB: c_int = 6;
/// Library code used for super-chunk special chunks.
pub const BLOSC_SCHUNK_LIB: c_int = 7;

/// cbindgen:ignore
pub const BLOSC_BLOSCLZ_LIBNAME: &str = "BloscLZ";
/// cbindgen:ignore
pub const BLOSC_LZ4_LIBNAME: &str = "LZ4";
/// cbindgen:ignore
pub const BLOSC_ZLIB_LIBNAME: &str = "Zlib";
/// cbindgen:ignore
pub const BLOSC_ZSTD_LIBNAME: &str = "Zstd";

/// Stream format of BloscLZ.
#[cfg(not(blosc_h))]
pub const BLOSC_BLOSCLZ_FORMAT: c_int = BLOSC_BLOSCLZ_LIB;
/// Stream format of LZ4.
#[cfg(not(blosc_h))]
pub const BLOSC_LZ4_FORMAT: c_int = BLOSC_LZ4_LIB;
/// Stream format of LZ4HC (the LZ4 format).
#[cfg(not(blosc_h))]
pub const BLOSC_LZ4HC_FORMAT: c_int = BLOSC_LZ4_LIB;
/// Stream format of zlib.
#[cfg(not(blosc_h))]
pub const BLOSC_ZLIB_FORMAT: c_int = BLOSC_ZLIB_LIB;
/// Stream format of Zstandard.
#[cfg(not(blosc_h))]
pub const BLOSC_ZSTD_FORMAT: c_int = BLOSC_ZSTD_LIB;
/// Stream format of a user-defined codec.
pub const BLOSC_UDCODEC_FORMAT: c_int = BLOSC_UDCODEC_LIB;

/// Version of the BloscLZ stream format.
#[cfg(not(blosc_h))]
pub const BLOSC_BLOSCLZ_VERSION_FORMAT: c_int = 1;
/// Version of the LZ4 stream format.
#[cfg(not(blosc_h))]
pub const BLOSC_LZ4_VERSION_FORMAT: c_int = 1;
/// Version of the LZ4HC stream format.
#[cfg(not(blosc_h))]
pub const BLOSC_LZ4HC_VERSION_FORMAT: c_int = 1;
/// Version of the zlib stream format.
#[cfg(not(blosc_h))]
pub const BLOSC_ZLIB_VERSION_FORMAT: c_int = 1;
/// Version of the Zstandard stream format.
#[cfg(not(blosc_h))]
pub const BLOSC_ZSTD_VERSION_FORMAT: c_int = 1;
/// Version of the user-defined codec stream format.
pub const BLOSC_UDCODEC_VERSION_FORMAT: c_int = 1;

// ---------------------------------------------------------------------------------------------
// Split modes
// ---------------------------------------------------------------------------------------------

/// Always split blocks into one stream per byte of the type.
#[cfg(not(blosc_h))]
pub const BLOSC_ALWAYS_SPLIT: c_int = 1;
/// Never split blocks.
#[cfg(not(blosc_h))]
pub const BLOSC_NEVER_SPLIT: c_int = 2;
/// Let the library decide whether to split.
#[cfg(not(blosc_h))]
pub const BLOSC_AUTO_SPLIT: c_int = 3;
/// Split only where blosc 1.x readers expect it (the default).
#[cfg(not(blosc_h))]
pub const BLOSC_FORWARD_COMPAT_SPLIT: c_int = 4;

// ---------------------------------------------------------------------------------------------
// Byte offsets of the fields of a chunk header
// ---------------------------------------------------------------------------------------------

/// Offset of the format version byte.
pub const BLOSC2_CHUNK_VERSION: c_int = 0x0;
/// Offset of the codec format version byte.
pub const BLOSC2_CHUNK_VERSIONLZ: c_int = 0x1;
/// Offset of the flags byte.
pub const BLOSC2_CHUNK_FLAGS: c_int = 0x2;
/// Offset of the type size byte.
pub const BLOSC2_CHUNK_TYPESIZE: c_int = 0x3;
/// Offset of the uncompressed size (int32, little endian).
pub const BLOSC2_CHUNK_NBYTES: c_int = 0x4;
/// Offset of the block size (int32, little endian).
pub const BLOSC2_CHUNK_BLOCKSIZE: c_int = 0x8;
/// Offset of the compressed size (int32, little endian).
pub const BLOSC2_CHUNK_CBYTES: c_int = 0xc;
/// Offset of the filter pipeline codes (extended header).
pub const BLOSC2_CHUNK_FILTER_CODES: c_int = 0x10;
/// Offset of the filter pipeline meta bytes (extended header).
pub const BLOSC2_CHUNK_FILTER_META: c_int = 0x18;
/// Offset of the second blosc2 flags byte.
pub const BLOSC2_CHUNK_BLOSC2_FLAGS2: c_int = 0x1e;
/// Offset of the blosc2 flags byte.
pub const BLOSC2_CHUNK_BLOSC2_FLAGS: c_int = 0x1F;

// ---------------------------------------------------------------------------------------------
// Special chunk kinds
// ---------------------------------------------------------------------------------------------

/// Regular chunk.
pub const BLOSC2_NO_SPECIAL: c_int = 0x0;
/// Every byte is zero.
pub const BLOSC2_SPECIAL_ZERO: c_int = 0x1;
/// Every item is a NaN (float32/float64 only).
pub const BLOSC2_SPECIAL_NAN: c_int = 0x2;
/// Every item repeats one value stored after the header.
pub const BLOSC2_SPECIAL_VALUE: c_int = 0x3;
/// Contents are undefined.
pub const BLOSC2_SPECIAL_UNINIT: c_int = 0x4;
/// Highest special kind in use.
pub const BLOSC2_SPECIAL_LASTID: c_int = 0x4;
/// Mask selecting the special kind bits of the blosc2 flags byte.
pub const BLOSC2_SPECIAL_MASK: c_int = 0x7;

// ---------------------------------------------------------------------------------------------
// Error codes (see `crate::error::Error`)
// ---------------------------------------------------------------------------------------------

/// No error.
pub const BLOSC2_ERROR_SUCCESS: c_int = 0;
/// Unspecified failure.
pub const BLOSC2_ERROR_FAILURE: c_int = -1;
/// Bad stream.
pub const BLOSC2_ERROR_STREAM: c_int = -2;
/// Invalid data.
pub const BLOSC2_ERROR_DATA: c_int = -3;
/// Allocation failed.
pub const BLOSC2_ERROR_MEMORY_ALLOC: c_int = -4;
/// Source buffer is not large enough.
pub const BLOSC2_ERROR_READ_BUFFER: c_int = -5;
/// Destination buffer is not large enough.
pub const BLOSC2_ERROR_WRITE_BUFFER: c_int = -6;
/// Codec not available.
pub const BLOSC2_ERROR_CODEC_SUPPORT: c_int = -7;
/// Invalid codec parameter.
pub const BLOSC2_ERROR_CODEC_PARAM: c_int = -8;
/// Dictionary could not be built or used.
pub const BLOSC2_ERROR_CODEC_DICT: c_int = -9;
/// Format version not supported.
pub const BLOSC2_ERROR_VERSION_SUPPORT: c_int = -10;
/// Invalid header contents.
pub const BLOSC2_ERROR_INVALID_HEADER: c_int = -11;
/// Invalid function argument.
pub const BLOSC2_ERROR_INVALID_PARAM: c_int = -12;
/// Reading a file failed.
pub const BLOSC2_ERROR_FILE_READ: c_int = -13;
/// Writing a file failed.
pub const BLOSC2_ERROR_FILE_WRITE: c_int = -14;
/// Opening a file failed.
pub const BLOSC2_ERROR_FILE_OPEN: c_int = -15;
/// Item not found.
pub const BLOSC2_ERROR_NOT_FOUND: c_int = -16;
/// Bad run-length encoding.
pub const BLOSC2_ERROR_RUN_LENGTH: c_int = -17;
/// Filter pipeline failed.
pub const BLOSC2_ERROR_FILTER_PIPELINE: c_int = -18;
/// Inserting a chunk failed.
pub const BLOSC2_ERROR_CHUNK_INSERT: c_int = -19;
/// Appending a chunk failed.
pub const BLOSC2_ERROR_CHUNK_APPEND: c_int = -20;
/// Updating a chunk failed.
pub const BLOSC2_ERROR_CHUNK_UPDATE: c_int = -21;
/// A size would exceed 2 GB.
pub const BLOSC2_ERROR_2GB_LIMIT: c_int = -22;
/// Copying a super-chunk failed.
pub const BLOSC2_ERROR_SCHUNK_COPY: c_int = -23;
/// Wrong kind of frame.
pub const BLOSC2_ERROR_FRAME_TYPE: c_int = -24;
/// Truncating a file failed.
pub const BLOSC2_ERROR_FILE_TRUNCATE: c_int = -25;
/// Creating a thread failed.
pub const BLOSC2_ERROR_THREAD_CREATE: c_int = -26;
/// The postfilter callback failed.
pub const BLOSC2_ERROR_POSTFILTER: c_int = -27;
/// Special frame chunk failed.
pub const BLOSC2_ERROR_FRAME_SPECIAL: c_int = -28;
/// Special super-chunk chunk failed.
pub const BLOSC2_ERROR_SCHUNK_SPECIAL: c_int = -29;
/// I/O plugin failed.
pub const BLOSC2_ERROR_PLUGIN_IO: c_int = -30;
/// Removing a file failed.
pub const BLOSC2_ERROR_FILE_REMOVE: c_int = -31;
/// A required pointer is NULL.
pub const BLOSC2_ERROR_NULL_POINTER: c_int = -32;
/// Index out of range.
pub const BLOSC2_ERROR_INVALID_INDEX: c_int = -33;
/// Metalayer does not exist.
pub const BLOSC2_ERROR_METALAYER_NOT_FOUND: c_int = -34;
/// Maximum buffer size exceeded.
pub const BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED: c_int = -35;
/// Tuner failed.
pub const BLOSC2_ERROR_TUNER: c_int = -36;
/// Taking or releasing a frame lock failed.
pub const BLOSC2_ERROR_LOCK: c_int = -37;

// ---------------------------------------------------------------------------------------------
// I/O backends
// ---------------------------------------------------------------------------------------------

/// Default I/O: plain files through stdio.
pub const BLOSC2_IO_FILESYSTEM: c_int = 0;
/// Memory-mapped file I/O.
pub const BLOSC2_IO_FILESYSTEM_MMAP: c_int = 1;
/// One past the last I/O backend built into the library.
pub const BLOSC_IO_LAST_BLOSC_DEFINED: c_int = 2;
/// One past the last globally registered I/O backend.
pub const BLOSC_IO_LAST_REGISTERED: c_int = 32;

/// First id of the globally registered I/O backends.
pub const BLOSC2_IO_BLOSC_DEFINED: c_int = 32;
/// First id available for user-defined I/O backends.
pub const BLOSC2_IO_REGISTERED: c_int = 160;
/// One past the last valid I/O backend id.
pub const BLOSC2_IO_USER_DEFINED: c_int = 256;

// ---------------------------------------------------------------------------------------------
// Metalayers
// ---------------------------------------------------------------------------------------------

/// Maximum number of fixed-length metalayers of a super-chunk.
pub const BLOSC2_MAX_METALAYERS: usize = 16;
/// Maximum length (without the NUL) of a metalayer name.
pub const BLOSC2_METALAYER_NAME_MAXLEN: usize = 31;
/// Maximum number of variable-length metalayers of a super-chunk.
pub const BLOSC2_MAX_VLMETALAYERS: usize = 8 * 1024;
/// Maximum length (without the NUL) of a variable-length metalayer name.
pub const BLOSC2_VLMETALAYERS_NAME_MAXLEN: usize = BLOSC2_METALAYER_NAME_MAXLEN;
