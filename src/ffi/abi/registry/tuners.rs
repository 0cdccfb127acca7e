//! `blosc2/tuners-registry.h`: ids of the globally registered tuners and the symbol names a
//! dynamically loaded tuner plugin exports.

use libc::{c_char, c_int};

/// The BTune tuner plugin.
pub const BLOSC_BTUNE: c_int = 32;

/// Names of the functions exported by a dynamically loaded tuner.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct tuner_info {
    /// Name of the plugin's `init` function (`blosc2_tuner::init`).
    pub init: *mut c_char,
    /// Name of the plugin's `next_blocksize` function (`blosc2_tuner::next_blocksize`).
    pub next_blocksize: *mut c_char,
    /// Name of the plugin's `next_cparams` function (`blosc2_tuner::next_cparams`).
    pub next_cparams: *mut c_char,
    /// Name of the plugin's `update` function (`blosc2_tuner::update`).
    pub update: *mut c_char,
    /// Name of the plugin's `free` function (`blosc2_tuner::free`).
    pub free: *mut c_char,
}
