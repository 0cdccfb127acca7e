//! The API version this library implements (c-blosc2 3.3.x).

/// Major number of the c-blosc2 API version implemented (`BLOSC2_VERSION_MAJOR`).
pub const VERSION_MAJOR: u32 = 3;
/// Minor number of that version (`BLOSC2_VERSION_MINOR`).
pub const VERSION_MINOR: u32 = 3;
/// Release (patch) number of that version (`BLOSC2_VERSION_RELEASE`).
pub const VERSION_RELEASE: u32 = 5;
/// Reported by `blosc2_get_version_string`: the reference API version we are compatible with.
pub const VERSION_STRING: &str = "3.3.5";
/// Release date string in c-blosc2's SVN-keyword form (`BLOSC2_VERSION_DATE`).
pub const VERSION_DATE: &str = "$Date:: 2026-09-24 #$";

/// Which c-blosc2 generation's writing rules to follow.
///
/// Readers accept what either generation wrote; the generation only decides what is written
/// and which requests are refused, so that files made for a 2.x program stay readable by
/// c-blosc2 2.x (`libblosc2.so.7`, whose face this crate also provides with the `abi2`
/// feature).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Generation {
    /// c-blosc2 2.23: every chunk of a super-chunk has its chunk size except a smaller last
    /// one (anything else is refused, so frames never need the 3.x variable-chunk format);
    /// dictionaries only with zstd, up to 128 KiB, and a failed training is an error.
    V2,
    /// c-blosc2 3.3: variable chunk sizes, dictionaries with zstd, lz4 and lz4hc, up to
    /// 32 KiB and only when at least 256 bytes are worth training.
    #[default]
    V3,
}

impl Generation {
    /// Largest dictionary written into a chunk (`BLOSC2_MAXDICTSIZE` of that generation).
    pub const fn max_dict_size(self) -> usize {
        match self {
            Generation::V2 => 128 * 1024,
            Generation::V3 => 32 * 1024,
        }
    }

    /// Dictionaries that could hold fewer bytes than this are not trained (plain chunk).
    pub const fn min_useful_dict(self) -> usize {
        match self {
            Generation::V2 => 1,
            Generation::V3 => 256,
        }
    }

    /// LZ4's acceleration at `clevel`: 3.x speeds up the low levels (`10 - clevel`), 2.x
    /// always used 1 (it matched what its IPP build writes).
    pub const fn lz4_acceleration(self, clevel: u8) -> i32 {
        match self {
            Generation::V2 => 1,
            Generation::V3 => 10 - if clevel > 9 { 9 } else { clevel as i32 },
        }
    }

    /// Whether every chunk but the last must have the super-chunk's chunk size.
    pub const fn fixed_chunksize(self) -> bool {
        matches!(self, Generation::V2)
    }
}
