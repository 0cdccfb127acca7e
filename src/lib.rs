//! libblosc2 in Rust: a C-ABI drop-in replacement for c-blosc2 3.3.
//!
//! The safe core (`chunk`, `codecs`, `filters`, `threads`) knows nothing of C; `ffi` is the
//! only place that touches raw pointers and turns `Result`s into `BLOSC2_ERROR_*` codes.

pub mod b2nd;
pub mod chunk;
pub mod codecs;
pub mod error;
pub mod ffi;
pub mod filters;
pub mod frame;
pub mod schunk;
pub(crate) mod scratch;
pub mod threads;
pub mod version;

pub use error::{Error, Result};
pub use version::Generation;
