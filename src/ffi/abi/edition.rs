//! The one place where the two C faces built from this crate differ.
//!
//! By default the crate's C face is c-blosc2 3.3's ABI (`libblosc2.so.9`). With the `abi2`
//! feature it is c-blosc2 2.23's (`libblosc2.so.7`, see the README's table "c-blosc2 2.23 and
//! 3.3"): the same functions minus the twelve 3.x additions (the link step's version script
//! leaves them out), a `blosc2_schunk` without `flags2`, `use_dict` and `change_tick` (the
//! `#[cfg]` fields in [`super::types`]), 2.23's version string, and the core's
//! [`Generation::V2`] rules for what it writes. Everything else (every other struct, constant,
//! error code and default) is identical in the two ABIs, so no other code needs to know.

use core::ffi::CStr;

use super::types::blosc2_schunk;
use crate::Generation;

/// What `blosc2_get_version_string` reports.
#[cfg(not(feature = "abi2"))]
pub const VERSION_STRING: &CStr = c"3.3.5";
/// What `blosc2_get_version_string` reports.
#[cfg(feature = "abi2")]
pub const VERSION_STRING: &CStr = c"2.23.1";

/// Which c-blosc2 generation's rules the core follows for this face.
#[cfg(not(feature = "abi2"))]
pub const GENERATION: Generation = Generation::V3;
/// Which c-blosc2 generation's rules the core follows for this face.
#[cfg(feature = "abi2")]
pub const GENERATION: Generation = Generation::V2;

/// The lowest error code of this face's `blosc2.h` (2.23 ends at `BLOSC2_ERROR_TUNER`; 3.x
/// added `BLOSC2_ERROR_LOCK`): `blosc2_error_string` calls anything lower unknown.
#[cfg(not(feature = "abi2"))]
pub const LOWEST_ERROR_CODE: core::ffi::c_int = super::consts::BLOSC2_ERROR_LOCK;
/// The lowest error code of this face's `blosc2.h`.
#[cfg(feature = "abi2")]
pub const LOWEST_ERROR_CODE: core::ffi::c_int = super::consts::BLOSC2_ERROR_TUNER;

/// Publish the fields only 3.x's `blosc2_schunk` has (nothing to do in the 2.x layout).
#[allow(unused_variables)]
pub fn publish_v3_schunk_fields(s: &mut blosc2_schunk, flags2: u8, use_dict: bool, change_tick: i64) {
    #[cfg(not(feature = "abi2"))]
    {
        s.flags2 = flags2;
        s.use_dict = use_dict as u8;
        s.change_tick = change_tick;
    }
}
