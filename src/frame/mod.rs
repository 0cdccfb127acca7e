//! Frames: the serialised form of a super-chunk (README_CFRAME_FORMAT.rst and
//! README_SFRAME_FORMAT.rst). `msgpack` holds the encoding helpers, `header` and `trailer` the
//! two msgpack sections, `offsets` the index chunk (`entries` its decoded form), `cframe` the frame as a whole on a
//! [`io::Storage`], and `sframe` the directory layout of sparse frames.

pub mod cframe;
pub mod entries;
pub mod header;
pub mod index_blocks;
pub mod io;
pub mod journal;
pub mod lock;
pub mod mmap;
pub mod msgpack;
pub mod offsets;
pub mod packed_index;
pub mod sframe;
pub mod trailer;
pub mod urlpath;

pub use cframe::{Frame, FrameKind};
pub use header::{FrameHeader, FrameType, Metalayer};
pub use trailer::FrameTrailer;
