//! Constants and types of `b2nd.h` (N-dimensional arrays on top of super-chunks).

use core::marker::{PhantomData, PhantomPinned};

use libc::{c_char, c_int};

use super::consts::BLOSC2_MAX_METALAYERS;
use super::types::blosc2_schunk;

/// Version of the "b2nd" metalayer layout.
pub const B2ND_METALAYER_VERSION: c_int = 0;
/// Maximum number of dimensions of an array.
pub const B2ND_MAX_DIM: usize = 16;
/// Maximum number of user metalayers of an array (one slot is taken by "b2nd").
pub const B2ND_MAX_METALAYERS: usize = BLOSC2_MAX_METALAYERS - 1;
/// dtype strings follow NumPy's array-protocol type strings.
pub const DTYPE_NUMPY_FORMAT: c_int = 0;
/// cbindgen:ignore
pub const B2ND_DEFAULT_DTYPE: &str = "|u1";
/// Format of `B2ND_DEFAULT_DTYPE`.
pub const B2ND_DEFAULT_DTYPE_FORMAT: c_int = DTYPE_NUMPY_FORMAT;

/// The decompressed chunk last read from an array, kept for repeated item access.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct chunk_cache_s {
    /// Decompressed chunk contents, or NULL.
    pub data: *mut u8,
    /// Chunk number of `data`.
    pub nchunk: i64,
}

/// Creation parameters of an array (C: `struct b2nd_context_s`, only used through a pointer).
///
/// cbindgen:ignore
#[repr(C)]
pub struct b2nd_context_s {
    _opaque: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}

/// C: `typedef struct b2nd_context_s b2nd_context_t;` (emitted verbatim).
///
/// cbindgen:ignore
pub type b2nd_context_t = b2nd_context_s;

/// An N-dimensional array.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct b2nd_array_t {
    /// Super-chunk holding the data.
    pub sc: *mut blosc2_schunk,
    /// Shape of the array.
    pub shape: [i64; B2ND_MAX_DIM],
    /// Shape of each chunk.
    pub chunkshape: [i32; B2ND_MAX_DIM],
    /// Shape of the array padded to whole chunks.
    pub extshape: [i64; B2ND_MAX_DIM],
    /// Shape of each block.
    pub blockshape: [i32; B2ND_MAX_DIM],
    /// Shape of a chunk padded to whole blocks.
    pub extchunkshape: [i64; B2ND_MAX_DIM],
    /// Number of items in the array.
    pub nitems: i64,
    /// Number of items in a chunk.
    pub chunknitems: i32,
    /// Number of items in the padded array.
    pub extnitems: i64,
    /// Number of items in a block.
    pub blocknitems: i32,
    /// Number of items in a padded chunk.
    pub extchunknitems: i64,
    /// Number of dimensions.
    pub ndim: i8,
    /// Cache of the last decompressed chunk.
    pub chunk_cache: chunk_cache_s,
    /// Item strides of the array.
    pub item_array_strides: [i64; B2ND_MAX_DIM],
    /// Item strides within a chunk.
    pub item_chunk_strides: [i64; B2ND_MAX_DIM],
    /// Item strides within a padded chunk.
    pub item_extchunk_strides: [i64; B2ND_MAX_DIM],
    /// Item strides within a block.
    pub item_block_strides: [i64; B2ND_MAX_DIM],
    /// Block strides within a chunk.
    pub block_chunk_strides: [i64; B2ND_MAX_DIM],
    /// Chunk strides within the array.
    pub chunk_array_strides: [i64; B2ND_MAX_DIM],
    /// dtype string of the items.
    pub dtype: *mut c_char,
    /// Format of `dtype` (`DTYPE_NUMPY_FORMAT`).
    pub dtype_format: i8,
    /// `change_tick` of the super-chunk when this view was last synchronised.
    pub last_tick: i64,
}
