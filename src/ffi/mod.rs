//! The C ABI: the only code that touches raw pointers from C. Each exported function
//! validates its arguments, converts them to slices and Rust types, calls the safe core and
//! maps `Result`s to `BLOSC2_ERROR_*` codes. No panic crosses this boundary
//! ([`boundary::guard`]).

pub mod abi;
pub mod boundary;
pub mod b2nd;
pub mod b2nd_structs;
pub mod chunk;
pub mod cmem;
pub mod context;
pub mod frame;
pub mod global;
pub mod handle;
pub mod lazy_readers;
pub mod registry;
pub mod meta;
pub mod plugin;
pub mod schunk;
pub mod urlpath;
pub mod shuffle;
pub mod stdio;
pub mod tuner;
