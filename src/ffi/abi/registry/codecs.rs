//! `blosc2/codecs-registry.h`: ids of the globally registered codecs and the symbol names a
//! dynamically loaded codec plugin exports.

use libc::{c_char, c_int};

/// N-dimensional Lempel-Ziv codec (experimental).
pub const BLOSC_CODEC_NDLZ: c_int = 32;
/// ZFP in fixed-accuracy mode (accuracy in `compcode_meta`).
pub const BLOSC_CODEC_ZFP_FIXED_ACCURACY: c_int = 33;
/// ZFP in fixed-precision mode (precision in `compcode_meta`).
pub const BLOSC_CODEC_ZFP_FIXED_PRECISION: c_int = 34;
/// ZFP in fixed-rate mode (rate in `compcode_meta`).
pub const BLOSC_CODEC_ZFP_FIXED_RATE: c_int = 35;
/// OpenHTJ2K (JPEG 2000 High Throughput) plugin.
pub const BLOSC_CODEC_OPENHTJ2K: c_int = 36;
/// Grok (JPEG 2000) plugin.
pub const BLOSC_CODEC_GROK: c_int = 37;
/// OpenZL plugin.
pub const BLOSC_CODEC_OPENZL: c_int = 38;
/// JPEG 2000 plugin.
pub const BLOSC_CODEC_J2K: c_int = 39;
/// High Throughput JPEG 2000 plugin.
pub const BLOSC_CODEC_HTJ2K: c_int = 40;

/// Names of the encoder and decoder functions exported by a dynamically loaded codec.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct codec_info {
    /// Name of the plugin's encoder function (`blosc2_codec::encoder`).
    pub encoder: *mut c_char,
    /// Name of the plugin's decoder function (`blosc2_codec::decoder`).
    pub decoder: *mut c_char,
}
