//! Compression and decompression parameters of a context, in safe Rust terms.

use super::blocksize::FORWARD_COMPAT_SPLIT;
use super::header::MAX_FILTERS;
use crate::codecs::Codec;

/// How a chunk is compressed (`blosc2_cparams` without its C callbacks): codec, level,
/// filter pipeline, item size, threads and block size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompressParams {
    /// The codec id as given by the user (a built-in id or a registered one).
    pub compcode: u8,
    /// A byte handed to the codec (user codecs read it; ZFP takes its tolerance from it).
    pub compcode_meta: u8,
    /// Compression level, 0 (store) to 9.
    pub clevel: u8,
    /// Whether each chunk is compressed with a dictionary trained on its blocks (zstd, LZ4).
    pub use_dict: bool,
    /// Bytes per item: what the shuffle filters and the block size work with.
    pub typesize: i32,
    /// Threads that compress the blocks of a chunk.
    pub nthreads: i16,
    /// 0 means automatic.
    pub blocksize: i32,
    /// Whether blocks are split into one stream per byte of an item (`BLOSC_*_SPLIT`).
    pub splitmode: i32,
    /// The filter pipeline, applied in order before the codec (`BLOSC_NOFILTER` = 0 slots
    /// are skipped).
    pub filters: [u8; MAX_FILTERS],
    /// A byte per filter, handed to it (e.g. `BLOSC_TRUNC_PREC`'s precision in bits).
    pub filters_meta: [u8; MAX_FILTERS],
    /// The C struct's `instr_codec`, carried along: this library writes no instrumentation
    /// chunks.
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

    /// The codec `compcode` names, if it is one this library knows.
    pub fn codec(&self) -> Option<Codec> {
        Codec::from_code(self.compcode)
    }
}

/// How chunks are decompressed (`blosc2_dparams` without its C callbacks).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecompressParams {
    /// Threads that decompress the blocks of a chunk.
    pub nthreads: i16,
    /// The item size callbacks are told (chunks carry their own).
    pub typesize: i32,
}

impl Default for DecompressParams {
    fn default() -> Self {
        DecompressParams { nthreads: 1, typesize: 8 }
    }
}
