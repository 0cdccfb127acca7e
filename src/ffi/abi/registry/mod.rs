//! The plugin registries: `blosc2/codecs-registry.h`, `blosc2/filters-registry.h` and
//! `blosc2/tuners-registry.h`, one submodule (and one generated header) each.

pub mod codecs;
pub mod filters;
pub mod tuners;

pub use codecs::*;
pub use filters::*;
pub use tuners::*;
