//! The C ABI of c-blosc2 3.3.x, spelled in Rust.
//!
//! Every `#[repr(C)]` struct, callback typedef and constant that the public headers
//! (`blosc2.h`, `b2nd.h`, `blosc2/*.h`) declare lives here under its C name, with the exact
//! size, alignment and field offsets of the reference on x86_64 and aarch64 Linux. The files
//! in `include/` are generated from these definitions (plus the verbatim C text in `c/`) by
//! `tests/headers.rs`; run `scripts/gen-headers.sh` after changing anything here or adding an
//! `extern "C"` function in `src/ffi/`.
//!
//! Layout of this module (one file per header area):
//! - [`consts`] for every integer constant of `blosc2.h` (string constants are Rust-only values;
//!   their C `#define`s are verbatim text in `c/blosc2.preamble.h`).
//! - [`types`] for the structs and callback typedefs of `blosc2.h`, opaque handles, and the
//!   `BLOSC2_*_DEFAULTS` values.
//! - [`stdio`] for `blosc2/blosc2-stdio.h` (file and mmap I/O backends).
//! - [`registry`] for `blosc2/{codecs,filters,tuners}-registry.h`.
//! - [`b2nd`] for `b2nd.h`.
//!
//! Everything is re-exported flat, so other code writes `crate::ffi::abi::blosc2_cparams` or
//! `crate::ffi::abi::BLOSC2_MAX_FILTERS`.
//!
//! Defaults are plain `pub const` values (e.g. [`BLOSC2_CPARAMS_DEFAULTS`]), not statics: a
//! `const` may hold raw pointers without a `Sync` wrapper, and each use gets a fresh copy.
//! The only non-null pointers in them point at string literals (`c"filesystem"`, `c"r"`),
//! which are `'static` and never written through. The same values back `impl Default`.

#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case)]

pub mod b2nd;
pub mod consts;
pub mod edition;
pub mod registry;
pub mod stdio;
pub mod types;

pub use b2nd::*;
pub use consts::*;
pub use registry::*;
pub use stdio::*;
pub use types::*;

// Compile-time checks that every struct has the reference's size, alignment and field
// offsets on 64-bit Linux (x86_64, aarch64).
mod layout;
