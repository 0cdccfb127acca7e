//! `blosc2/tuners-registry.h`: ids of the globally registered tuners and the symbol names a
//! dynamically loaded tuner plugin exports.

use libc::{c_char, c_int};

/// The BTune tuner plugin.
pub const BLOSC_BTUNE: c_int = 32;

/// Names of the functions exported by a dynamically loaded tuner.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct tuner_info {
    pub init: *mut c_char,
    pub next_blocksize: *mut c_char,
    pub next_cparams: *mut c_char,
    pub update: *mut c_char,
    pub free: *mut c_char,
}
