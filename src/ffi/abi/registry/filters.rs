//! `blosc2/filters-registry.h`: ids of the globally registered filters and the symbol names a
//! dynamically loaded filter plugin exports.

use libc::{c_char, c_int};

/// Groups the items of each N-dimensional cell together.
pub const BLOSC_FILTER_NDCELL: c_int = 32;
/// Replaces each N-dimensional cell by its mean.
pub const BLOSC_FILTER_NDMEAN: c_int = 33;
/// Early, faulty byte-delta; kept only to read old data.
pub const BLOSC_FILTER_BYTEDELTA_BUGGY: c_int = 34;
/// Byte-wise delta over the typesize byte streams (use after a shuffle).
pub const BLOSC_FILTER_BYTEDELTA: c_int = 35;
/// Integer precision truncation (bits to keep, or to clear if negative, in `filters_meta`).
pub const BLOSC_FILTER_INT_TRUNC: c_int = 36;

/// Names of the forward and backward functions exported by a dynamically loaded filter.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct filter_info {
    /// Name of the plugin's forward (encoding) function (`blosc2_filter::forward`).
    pub forward: *mut c_char,
    /// Name of the plugin's backward (decoding) function (`blosc2_filter::backward`).
    pub backward: *mut c_char,
}
