//! libblosc2 in Rust: a C-ABI drop-in replacement for c-blosc2 3.3, and a Rust library for
//! the same formats.
//!
//! The safe core knows nothing of C: [`chunk`] (one compressed chunk: compress, decompress,
//! get items, special and variable-length-block chunks), [`codecs`] and [`filters`] (the
//! stages inside a chunk), [`schunk`] (super-chunks: chunks plus metalayers, in memory or in
//! a frame), [`frame`] (contiguous and sparse frames, on disk or in memory) and [`b2nd`]
//! (n-dimensional arrays). `ffi` (the `c-api` feature, on by default) is the only place that
//! touches raw pointers: it converts C arguments and structs, calls the core, and turns
//! [`Error`]s into `BLOSC2_ERROR_*` codes. Without that feature the crate exports no C symbol.
//!
//! Published on the registry as `libblosc2` (the name `blosc2` there belongs to bindings to
//! the C library); the library itself is `blosc2`, so Rust code writes `blosc2::...` and the
//! C library it builds is `libblosc2.so`.
//!
//! ```
//! use blosc2::b2nd::{Array, ArraySpec};
//! use blosc2::chunk::{self, CompressParams};
//! use blosc2::codecs::Codec;
//!
//! // A chunk, as blosc2_compress_ctx writes it.
//! let data: Vec<u8> = (0..4096u32).flat_map(|i| i.to_le_bytes()).collect();
//! let c = chunk::compress(&data, &CompressParams::default().with_typesize(4).with_codec(Codec::Lz4))?;
//! assert_eq!(chunk::decompress(&c)?, data);
//!
//! // A 64 x 64 array of u32 in 16 x 64 chunks, as b2nd_from_cbuffer makes it.
//! let spec = ArraySpec::new(&[64, 64], &[16, 64], &[4, 64], 4);
//! let mut a = Array::from_buffer(&spec, &data)?;
//! assert_eq!(a.slice(&[1, 0], &[2, 2])?, data[256..264]);
//! # Ok::<(), blosc2::Error>(())
//! ```

// Every public item is documented (the C API too: cbindgen copies the comments into the
// headers); a new one without a doc comment is flagged.
#![warn(missing_docs)]

pub mod b2nd;
pub mod chunk;
pub mod codecs;
pub mod error;
#[cfg(feature = "c-api")]
pub mod ffi;
pub mod filters;
pub mod frame;
pub mod schunk;
pub(crate) mod copy;
#[cfg(target_arch = "x86_64")]
pub(crate) mod cpu;
pub(crate) mod scratch;
pub mod environ;
pub mod settings;
pub mod threads;
pub mod version;
#[cfg(test)]
mod test_rng;

pub use error::{Error, Result};
pub use version::Generation;
