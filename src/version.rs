//! The API version this library implements (c-blosc2 3.3.x).

pub const VERSION_MAJOR: u32 = 3;
pub const VERSION_MINOR: u32 = 3;
pub const VERSION_RELEASE: u32 = 5;
/// Reported by `blosc2_get_version_string`: the reference API version we are compatible with.
pub const VERSION_STRING: &str = "3.3.5";
pub const VERSION_DATE: &str = "$Date:: 2026-09-24 #$";
