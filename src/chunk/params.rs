//! Compression and decompression parameters of a context, in safe Rust terms.

use super::blocksize::FORWARD_COMPAT_SPLIT;
use super::header::MAX_FILTERS;
use crate::codecs::Codec;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompressParams {
    /// The codec id as given by the user (a built-in id or a registered one).
    pub compcode: u8,
    pub compcode_meta: u8,
    pub clevel: u8,
    pub use_dict: bool,
    pub typesize: i32,
    pub nthreads: i16,
    /// 0 means automatic.
    pub blocksize: i32,
    pub splitmode: i32,
    pub filters: [u8; MAX_FILTERS],
    pub filters_meta: [u8; MAX_FILTERS],
    pub instr_codec: bool,
    /// Whose rules to write by (dictionaries here; chunk sizes in super-chunks).
    pub generation: crate::Generation,
}

impl Default for CompressParams {
    /// The reference's `BLOSC2_CPARAMS_DEFAULTS`.
    fn default() -> Self {
        CompressParams {
            compcode: 0,
            compcode_meta: 0,
            clevel: 5,
            use_dict: false,
            typesize: 8,
            nthreads: 1,
            blocksize: 0,
            splitmode: FORWARD_COMPAT_SPLIT,
            filters: [0, 0, 0, 0, 0, 1],
            filters_meta: [0; MAX_FILTERS],
            instr_codec: false,
            generation: crate::Generation::V3,
        }
    }
}

impl CompressParams {
    /// These parameters with codec `codec`.
    pub fn with_codec(mut self, codec: Codec) -> Self {
        self.compcode = codec.code();
        self
    }

    /// These parameters with compression level `clevel` (0 stores, 9 compresses most).
    pub fn with_clevel(mut self, clevel: u8) -> Self {
        self.clevel = clevel;
        self
    }

    /// These parameters for items of `typesize` bytes (what shuffle regroups by).
    pub fn with_typesize(mut self, typesize: i32) -> Self {
        self.typesize = typesize;
        self
    }

    /// These parameters with `nthreads` compression threads.
    pub fn with_nthreads(mut self, nthreads: i16) -> Self {
        self.nthreads = nthreads;
        self
    }

    /// These parameters with the filter pipeline `filters` (ids such as
    /// [`super::header::SHUFFLE`], [`super::header::BITSHUFFLE`], [`super::header::DELTA`]),
    /// run in order before the codec; at most six.
    pub fn with_filters(mut self, filters: &[u8]) -> Self {
        let n = filters.len().min(MAX_FILTERS);
        self.filters = [0; MAX_FILTERS];
        self.filters[MAX_FILTERS - n..].copy_from_slice(&filters[..n]);
        self
    }

    pub fn codec(&self) -> Option<Codec> {
        Codec::from_code(self.compcode)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecompressParams {
    pub nthreads: i16,
    pub typesize: i32,
}

impl Default for DecompressParams {
    fn default() -> Self {
        DecompressParams { nthreads: 1, typesize: 8 }
    }
}
