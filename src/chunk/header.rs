//! The chunk header: 16 bytes in Blosc1 (format versions 1-2) and 32 bytes in Blosc2
//! (extended header, signalled by setting both shuffle bits of `flags`).
//! Field names follow README_CHUNK_FORMAT.rst.

use crate::error::{Error, Result};

/// Bytes of the Blosc1 chunk header (`BLOSC_MIN_HEADER_LENGTH`).
pub const MIN_HEADER_LENGTH: usize = 16;
/// Bytes of the Blosc2 extended chunk header (`BLOSC_EXTENDED_HEADER_LENGTH`).
pub const EXTENDED_HEADER_LENGTH: usize = 32;
/// Most bytes compression adds to its input (`BLOSC2_MAX_OVERHEAD`): one extended header,
/// which is what an incompressible (memcpyed) chunk costs.
pub const MAX_OVERHEAD: usize = EXTENDED_HEADER_LENGTH;
/// Largest uncompressed size one chunk can hold (`BLOSC2_MAX_BUFFERSIZE`), so that `cbytes`
/// still fits an `i32`.
pub const MAX_BUFFERSIZE: i64 = i32::MAX as i64 - MAX_OVERHEAD as i64;
/// Largest `blocksize` a header may declare (`BLOSC2_MAXBLOCKSIZE`); larger is invalid.
pub const MAX_BLOCKSIZE: i32 = 536_866_816;
/// Largest typesize the one-byte `typesize` field stores (`BLOSC_MAX_TYPESIZE`); larger
/// typesizes are written as 1 (no shuffle).
pub const MAX_TYPESIZE: i32 = 255;
/// `BLOSC_MIN_BUFFERSIZE`: inputs shorter than this many bytes are stored memcpyed; it is also
/// the fewest items per block for which the automatic split mode splits a block.
pub const MIN_BUFFERSIZE: i32 = 32;
/// Slots in a filter pipeline (`BLOSC2_MAX_FILTERS`), bytes 16-21 of the extended header.
pub const MAX_FILTERS: usize = 6;

// Chunk format versions (byte 0).
/// `BLOSC2_VERSION_FORMAT_ALPHA` (3): blosc2 alpha chunks, whose last filter slot is garbage.
pub const VERSION_FORMAT_ALPHA: u8 = 3;
/// `BLOSC2_VERSION_FORMAT_STABLE` (5): chunks of blosc2 2.0 and later.
pub const VERSION_FORMAT_STABLE: u8 = 5;
/// `BLOSC2_VERSION_FORMAT_VL_BLOCKS` (6): first version that may hold variable-length blocks.
pub const VERSION_FORMAT_VL_BLOCKS: u8 = 6;
/// The newest chunk format this library reads and writes.
pub const VERSION_FORMAT: u8 = VERSION_FORMAT_VL_BLOCKS;

// `flags` (byte 2) bits.
/// `BLOSC_DOSHUFFLE`: byte shuffle applied (with [`DOBITSHUFFLE`] also set: extended header).
pub const DOSHUFFLE: u8 = 0x1;
/// `BLOSC_MEMCPYED`: the data follows the header uncompressed, without block starts.
pub const MEMCPYED: u8 = 0x2;
/// `BLOSC_DOBITSHUFFLE`: bit shuffle applied (with [`DOSHUFFLE`] also set: extended header).
pub const DOBITSHUFFLE: u8 = 0x4;
/// `BLOSC_DODELTA`: Blosc1 delta filter applied before the shuffle.
pub const DODELTA: u8 = 0x8;
/// Blocks are compressed as one stream each, not split into one stream per byte of the type.
pub const DONT_SPLIT: u8 = 0x10;

// `blosc2_flags` (byte 31) bits.
/// `BLOSC2_USEDICT`: a codec dictionary is stored after the block starts.
pub const USEDICT: u8 = 0x1;
/// `BLOSC2_BIGENDIAN`: the data was written on a big-endian machine.
pub const BIGENDIAN: u8 = 0x2;
/// Lazy chunk: only the header and block starts are in memory, followed by a trailer saying
/// where the blocks are in the frame (set by the frame reader, never stored on disk).
pub const LAZY: u8 = 0x8;
/// `BLOSC2_INSTR_CODEC`: the chunk holds codec instrumentation records instead of data.
pub const INSTR_CODEC: u8 = 0x80;
// `blosc2_flags2` (byte 30) bits.
/// `BLOSC2_VL_BLOCKS`: variable-length blocks; `blocksize` then holds the number of blocks and
/// each block starts with its uncompressed size.
pub const VL_BLOCKS: u8 = 0x1;

// Filter ids.
/// `BLOSC_NOFILTER`: empty pipeline slot.
pub const NOFILTER: u8 = 0;
/// `BLOSC_SHUFFLE`: byte shuffle by typesize.
pub const SHUFFLE: u8 = 1;
/// `BLOSC_BITSHUFFLE`: bit shuffle by typesize.
pub const BITSHUFFLE: u8 = 2;
/// `BLOSC_DELTA`: XOR of each block against the first block of the chunk.
pub const DELTA: u8 = 3;
/// `BLOSC_TRUNC_PREC`: floating-point mantissa truncation (meta: mantissa bits kept,
/// or dropped when negative).
pub const TRUNC_PREC: u8 = 4;

/// What a whole chunk holds when it has no data blocks (bits 4-6 of `blosc2_flags`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Special {
    /// `BLOSC2_NO_SPECIAL`: a regular chunk with data blocks.
    None,
    /// `BLOSC2_SPECIAL_ZERO`: every byte is zero.
    Zero,
    /// `BLOSC2_SPECIAL_NAN`: every item is a NaN (only readable for 4- or 8-byte floats).
    Nan,
    /// `BLOSC2_SPECIAL_VALUE`: every item repeats the value stored after the header.
    Value,
    /// `BLOSC2_SPECIAL_UNINIT`: contents are undefined (nothing is written on decompression).
    Uninit,
}

impl Special {
    /// The kind coded by `bits` (already shifted down from `blosc2_flags`); `None` past 4.
    pub fn from_bits(bits: u8) -> Option<Special> {
        Some(match bits {
            0 => Special::None,
            1 => Special::Zero,
            2 => Special::Nan,
            3 => Special::Value,
            4 => Special::Uninit,
            _ => return None,
        })
    }

    /// The 3-bit code of this kind, before shifting into bits 4-6 of `blosc2_flags`.
    pub fn bits(self) -> u8 {
        match self {
            Special::None => 0,
            Special::Zero => 1,
            Special::Nan => 2,
            Special::Value => 3,
            Special::Uninit => 4,
        }
    }
}

/// A parsed chunk header. For a 16-byte header the filter pipeline is derived from `flags`
/// exactly as Blosc1 meant it (shuffle/bitshuffle in the last slot, delta before it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkHeader {
    /// Chunk format version (byte 0), one of the `VERSION_FORMAT*` values or a Blosc1 1-2.
    pub version: u8,
    /// Codec format version (byte 1): 1 for built-in codecs, a user codec's registered version.
    pub versionlz: u8,
    /// Byte 2: [`DOSHUFFLE`], [`MEMCPYED`], [`DOBITSHUFFLE`], [`DODELTA`], [`DONT_SPLIT`] and
    /// the 3-bit codec format in bits 5-7 (see [`ChunkHeader::compformat`]).
    pub flags: u8,
    /// Bytes per item (byte 3), 1-255.
    pub typesize: u8,
    /// Uncompressed size in bytes, header excluded (bytes 4-7).
    pub nbytes: i32,
    /// Uncompressed bytes per block (bytes 8-11; the last block may be shorter). Clamped to
    /// `nbytes` when larger; with [`VL_BLOCKS`] it is the number of blocks instead.
    pub blocksize: i32,
    /// Compressed size of the whole chunk in bytes, header included (bytes 12-15).
    pub cbytes: i32,
    /// Filter ids applied in slot order on compression (bytes 16-21); for a 16-byte header,
    /// derived from `flags`.
    pub filters: [u8; MAX_FILTERS],
    /// Codec id (byte 22), used when the codec format is `BLOSC_UDCODEC_FORMAT` (user or
    /// plugin codec); 0 in 16-byte headers.
    pub udcompcode: u8,
    /// Codec metadata byte (byte 23), e.g. the cell size of NDLZ or the mode parameter of ZFP.
    pub compcode_meta: u8,
    /// Per-slot filter metadata (bytes 24-29), e.g. the bits kept by truncation.
    pub filters_meta: [u8; MAX_FILTERS],
    /// Second Blosc2 flags byte (byte 30): [`VL_BLOCKS`]; other bits announce newer features.
    pub blosc2_flags2: u8,
    /// Blosc2 flags byte (byte 31): [`USEDICT`], [`BIGENDIAN`], [`LAZY`], the [`Special`] kind
    /// in bits 4-6 and [`INSTR_CODEC`].
    pub blosc2_flags: u8,
    /// Whether the 32-byte header is present.
    pub extended: bool,
}

fn le_i32(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

impl ChunkHeader {
    /// Whether `flags` announce a 32-byte header.
    pub fn flags_say_extended(flags: u8) -> bool {
        flags & DOSHUFFLE != 0 && flags & DOBITSHUFFLE != 0
    }

    /// Read only the first 16 bytes (what the `cbuffer` inspectors look at), validating the
    /// fields the reference validates there.
    pub fn read_min(src: &[u8]) -> Result<ChunkHeader> {
        Self::read_impl(src, false)
    }

    /// Read and validate a full header (16 or 32 bytes as the flags say).
    #[inline]
    pub fn read(src: &[u8]) -> Result<ChunkHeader> {
        Self::read_impl(src, true)
    }

    #[inline(always)]
    fn read_impl(src: &[u8], extended_wanted: bool) -> Result<ChunkHeader> {
        if src.len() < MIN_HEADER_LENGTH {
            return Err(Error::ReadBuffer);
        }
        let mut h = ChunkHeader {
            version: src[0],
            versionlz: src[1],
            flags: src[2],
            typesize: src[3],
            nbytes: le_i32(src, 4),
            blocksize: le_i32(src, 8),
            cbytes: le_i32(src, 12),
            filters: [0; MAX_FILTERS],
            udcompcode: 0,
            compcode_meta: 0,
            filters_meta: [0; MAX_FILTERS],
            blosc2_flags2: 0,
            blosc2_flags: 0,
            extended: false,
        };
        if h.cbytes < MIN_HEADER_LENGTH as i32 {
            return Err(Error::InvalidHeader);
        }
        if h.nbytes < 0 {
            return Err(Error::InvalidHeader);
        }
        if h.blocksize <= 0 {
            return Err(Error::InvalidHeader);
        }
        if h.blocksize > MAX_BLOCKSIZE {
            return Err(Error::InvalidHeader);
        }
        if h.typesize == 0 {
            return Err(Error::InvalidHeader);
        }
        if extended_wanted && Self::flags_say_extended(h.flags) {
            if h.cbytes < EXTENDED_HEADER_LENGTH as i32 {
                return Err(Error::InvalidHeader);
            }
            if src.len() < EXTENDED_HEADER_LENGTH {
                return Err(Error::ReadBuffer);
            }
            h.extended = true;
            h.filters.copy_from_slice(&src[16..22]);
            h.udcompcode = src[22];
            h.compcode_meta = src[23];
            h.filters_meta.copy_from_slice(&src[24..30]);
            h.blosc2_flags2 = src[30];
            h.blosc2_flags = src[31];
            if h.version == VERSION_FORMAT_ALPHA {
                // Alpha writers left the last slot uninitialised.
                h.filters[5] = 0;
                h.filters_meta[5] = 0;
            }
            if h.blosc2_flags2 & VL_BLOCKS != 0 && h.version < VERSION_FORMAT_VL_BLOCKS {
                return Err(Error::InvalidHeader);
            }
            let special = h.special().ok_or(Error::Data)?;
            if special != Special::None {
                if h.blosc2_flags2 & VL_BLOCKS != 0 {
                    return Err(Error::InvalidHeader);
                }
                // A special chunk may end with a partial element (the reference writes
                // all-zero chunks of any length), so nbytes need not be a multiple of typesize;
                // but value and NaN chunks are filled block by block, so their blocks must hold
                // whole items.
                let ts = h.typesize as i32;
                if special == Special::Nan && h.nbytes > 0 && (h.nbytes % ts != 0 || h.blocksize % ts != 0) {
                    return Err(Error::InvalidHeader);
                }
                if special == Special::Value {
                    // The value is everything after the header: its width is cbytes - 32,
                    // whatever the typesize byte says (as the reference reads it).
                    let width = h.cbytes - EXTENDED_HEADER_LENGTH as i32;
                    if width <= 0 || (h.nbytes > 0 && (width > h.nbytes || h.nbytes % width != 0)) {
                        return Err(Error::InvalidHeader);
                    }
                }
            }
        } else if !Self::flags_say_extended(h.flags) || !extended_wanted {
            h.filters = filters_from_flags(h.flags);
        }
        // A newer format version is still read as long as it announces no feature this
        // library does not know: new features come with a `blosc2_flags2` bit.
        if h.version > VERSION_FORMAT && h.blosc2_flags2 & !VL_BLOCKS != 0 {
            return Err(Error::VersionSupport);
        }
        // A block larger than the whole buffer is read as one block of nbytes (as the
        // reference does); in VL-block chunks the field counts blocks of 1 byte or more.
        if h.nbytes > 0 && h.blocksize > h.nbytes {
            if h.vlblocks() {
                return Err(Error::InvalidHeader);
            }
            h.blocksize = h.nbytes;
        }
        Ok(h)
    }

    /// Header length in bytes: [`EXTENDED_HEADER_LENGTH`] or [`MIN_HEADER_LENGTH`].
    pub fn header_len(&self) -> usize {
        if self.extended {
            EXTENDED_HEADER_LENGTH
        } else {
            MIN_HEADER_LENGTH
        }
    }

    /// Whether the data is stored uncompressed right after the header ([`MEMCPYED`]).
    pub fn memcpyed(&self) -> bool {
        self.flags & MEMCPYED != 0
    }

    /// False when the chunk says [`MEMCPYED`] but its `cbytes` is not `nbytes` plus the
    /// header. Readers reject such a chunk whatever else it says, special kinds included,
    /// as the reference does: a forged frame index uses exactly that to claim hundreds of
    /// millions of chunks in a few hundred bytes.
    pub fn memcpyed_sizes_agree(&self) -> bool {
        !self.memcpyed() || self.cbytes as i64 == self.nbytes as i64 + self.header_len() as i64
    }

    /// Whether each block is one codec stream ([`DONT_SPLIT`]) rather than typesize streams.
    pub fn dont_split(&self) -> bool {
        self.flags & DONT_SPLIT != 0
    }

    /// The 3-bit codec format of `flags`.
    pub fn compformat(&self) -> u8 {
        self.flags >> 5
    }

    /// The special kind of the chunk ([`Special::None`] for 16-byte headers); `None` when the
    /// bits hold an unknown kind.
    pub fn special(&self) -> Option<Special> {
        if !self.extended {
            return Some(Special::None);
        }
        Special::from_bits((self.blosc2_flags >> 4) & 0x7)
    }

    /// Whether a codec dictionary follows the block starts ([`USEDICT`]).
    pub fn use_dict(&self) -> bool {
        self.extended && self.blosc2_flags & USEDICT != 0
    }

    /// Whether this is a lazy chunk whose blocks are still on disk ([`LAZY`]).
    pub fn lazy(&self) -> bool {
        self.extended && self.blosc2_flags & LAZY != 0
    }

    /// Whether the chunk has variable-length blocks ([`VL_BLOCKS`]).
    pub fn vlblocks(&self) -> bool {
        self.extended && self.blosc2_flags2 & VL_BLOCKS != 0
    }

    /// Serialise into the first 16 or 32 bytes of `dest` (which must be long enough).
    pub fn write(&self, dest: &mut [u8]) {
        dest[0] = self.version;
        dest[1] = self.versionlz;
        dest[2] = self.flags;
        dest[3] = self.typesize;
        dest[4..8].copy_from_slice(&self.nbytes.to_le_bytes());
        dest[8..12].copy_from_slice(&self.blocksize.to_le_bytes());
        dest[12..16].copy_from_slice(&self.cbytes.to_le_bytes());
        if self.extended {
            dest[16..22].copy_from_slice(&self.filters);
            dest[22] = self.udcompcode;
            dest[23] = self.compcode_meta;
            dest[24..30].copy_from_slice(&self.filters_meta);
            dest[30] = self.blosc2_flags2;
            dest[31] = self.blosc2_flags;
        }
    }
}

/// The Blosc1 meaning of the filter bits of `flags`, as a six-slot pipeline.
pub fn filters_from_flags(flags: u8) -> [u8; MAX_FILTERS] {
    let mut f = [0u8; MAX_FILTERS];
    if flags & DOSHUFFLE != 0 {
        f[MAX_FILTERS - 1] = SHUFFLE;
    }
    if flags & DOBITSHUFFLE != 0 {
        f[MAX_FILTERS - 1] = BITSHUFFLE;
    }
    if flags & DODELTA != 0 {
        f[MAX_FILTERS - 2] = DELTA;
    }
    f
}

/// The Blosc1 `flags` bits that describe a pipeline.
pub fn flags_from_filters(filters: &[u8; MAX_FILTERS]) -> u8 {
    let mut flags = 0;
    for &f in filters {
        match f {
            SHUFFLE => flags |= DOSHUFFLE,
            BITSHUFFLE => flags |= DOBITSHUFFLE,
            DELTA => flags |= DODELTA,
            _ => {}
        }
    }
    flags
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> ChunkHeader {
        ChunkHeader {
            version: 5,
            versionlz: 1,
            flags: DOSHUFFLE | DOBITSHUFFLE | (1 << 5),
            typesize: 4,
            nbytes: 1000,
            blocksize: 1000,
            cbytes: 100,
            filters: [0, 0, 0, 0, 0, 1],
            udcompcode: 1,
            compcode_meta: 0,
            filters_meta: [0; 6],
            blosc2_flags2: 0,
            blosc2_flags: 0,
            extended: true,
        }
    }

    #[test]
    fn write_read_round_trip() {
        let h = sample();
        let mut buf = [0u8; 32];
        h.write(&mut buf);
        assert_eq!(ChunkHeader::read(&buf).unwrap(), h);
    }

    #[test]
    fn rejects_bad_fields() {
        let mut buf = [0u8; 32];
        sample().write(&mut buf);
        let mut b = buf;
        b[0] = 7;
        assert_eq!(ChunkHeader::read(&b).map(|h| h.version), Ok(7), "a newer version without new features");
        b[30] = 0x2;
        assert_eq!(ChunkHeader::read(&b), Err(Error::VersionSupport), "a newer version with an unknown feature");
        b[0] = VERSION_FORMAT;
        assert!(ChunkHeader::read(&b).is_ok(), "unknown flags2 bits of a known version are ignored");
        let mut b = buf;
        b[3] = 0;
        assert_eq!(ChunkHeader::read(&b), Err(Error::InvalidHeader));
        let mut b = buf;
        b[8..12].copy_from_slice(&0i32.to_le_bytes());
        assert_eq!(ChunkHeader::read(&b), Err(Error::InvalidHeader));
        let mut b = buf;
        b[12..16].copy_from_slice(&20i32.to_le_bytes());
        assert_eq!(ChunkHeader::read(&b), Err(Error::InvalidHeader));
        assert_eq!(ChunkHeader::read(&buf[..20]), Err(Error::ReadBuffer));
        assert_eq!(ChunkHeader::read(&buf[..10]), Err(Error::ReadBuffer));
    }
}
