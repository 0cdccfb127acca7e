//! Automatic block size and split decisions (the reference's "stune" tuner), so that our
//! chunks have the same layout as the reference's for the same parameters.

use super::header::{DOSHUFFLE, MIN_BUFFERSIZE};
use crate::codecs::Codec;

const L1: i32 = 32 * 1024;
/// The most streams a block is split into.
const MAX_STREAMS: i32 = 16;

/// `BLOSC_ALWAYS_SPLIT`: split every block into one stream per byte of the type.
pub const ALWAYS_SPLIT: i32 = 1;
/// `BLOSC_NEVER_SPLIT`: compress every block as one stream.
pub const NEVER_SPLIT: i32 = 2;
/// `BLOSC_AUTO_SPLIT`: let [`split_block`] decide (fast codecs with byte shuffle).
pub const AUTO_SPLIT: i32 = 3;
/// `BLOSC_FORWARD_COMPAT_SPLIT`, the default: meant to keep chunks readable by c-blosc 1.x;
/// [`split_block`] decides it by the same rule as [`AUTO_SPLIT`].
pub const FORWARD_COMPAT_SPLIT: i32 = 4;

/// Whether blocks are split into `typesize` streams. `filter_flags` are the Blosc1 flag bits of
/// the pipeline (only byte shuffle makes splitting worthwhile).
pub fn split_block(
    splitmode: i32,
    codec: Codec,
    clevel: u8,
    filter_flags: u8,
    typesize: i32,
    blocksize: i32,
) -> bool {
    match splitmode {
        ALWAYS_SPLIT => return true,
        NEVER_SPLIT => return false,
        _ => {}
    }
    let fast_codec = matches!(codec, Codec::BloscLz | Codec::Lz4)
        || (codec == Codec::Zstd && clevel <= 5);
    fast_codec
        && filter_flags & DOSHUFFLE != 0
        && typesize <= MAX_STREAMS
        && typesize > 0
        && blocksize / typesize >= MIN_BUFFERSIZE
}

/// The automatic block size of a buffer of at least 32 KiB before any split adjustment, as
/// both c-blosc2 and c-blosc 1.x pick it: 32 KiB (64 KiB for the high-ratio codecs) scaled by
/// the clevel, from a quarter at clevel 0 to 8x at 6-9 (16x for high-ratio codecs at 9).
/// Levels above 9 leave it unscaled.
pub(crate) fn clevel_block(clevel: u8, hcr: bool) -> usize {
    let base = if hcr { 2 * L1 as usize } else { L1 as usize };
    match clevel {
        0 => base / 4,
        1 => base / 2,
        2 => base,
        3 => base * 2,
        4 | 5 => base * 4,
        6..=8 => base * 8,
        9 if hcr => base * 16,
        9 => base * 8,
        _ => base,
    }
}

/// The block size for a buffer of `nbytes`; `user_blocksize` (0 = automatic) wins when set.
pub fn compute_blocksize(
    codec: Codec,
    clevel: u8,
    typesize: i32,
    nbytes: i32,
    user_blocksize: i32,
    splitmode: i32,
    filter_flags: u8,
) -> i32 {
    if nbytes < typesize {
        return 1;
    }
    if user_blocksize != 0 {
        // A forced block size is only capped to the buffer, never rounded to the typesize.
        return user_blocksize.min(nbytes).max(1);
    }
    let split = split_block(splitmode, codec, clevel, filter_flags, typesize, nbytes);
    let mut blocksize = nbytes;
    {
        if nbytes >= L1 {
            blocksize = clevel_block(clevel, codec.is_hcr()) as i32;
        }
        if clevel > 0 && split {
            blocksize = match clevel {
                1..=3 => 32 * 1024,
                4..=6 => 64 * 1024,
                7 => 128 * 1024,
                8 => 256 * 1024,
                _ => 512 * 1024,
            };
            blocksize = blocksize.saturating_mul(typesize).clamp(32 * 1024, 4 * 1024 * 1024);
        }
    }
    if blocksize > nbytes {
        blocksize = nbytes;
    }
    if blocksize > typesize {
        blocksize = blocksize / typesize * typesize;
    }
    blocksize
}
