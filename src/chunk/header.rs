//! The chunk header: 16 bytes in Blosc1 (format versions 1-2) and 32 bytes in Blosc2
//! (extended header, signalled by setting both shuffle bits of `flags`).
//! Field names follow README_CHUNK_FORMAT.rst.

use crate::error::{Error, Result};

pub const MIN_HEADER_LENGTH: usize = 16;
pub const EXTENDED_HEADER_LENGTH: usize = 32;
pub const MAX_OVERHEAD: usize = EXTENDED_HEADER_LENGTH;
pub const MAX_BUFFERSIZE: i64 = i32::MAX as i64 - MAX_OVERHEAD as i64;
pub const MAX_BLOCKSIZE: i32 = 536_866_816;
pub const MAX_TYPESIZE: i32 = 255;
pub const MIN_BUFFERSIZE: i32 = 32;
pub const MAX_FILTERS: usize = 6;

/// Chunk format versions (byte 0).
pub const VERSION_FORMAT_ALPHA: u8 = 3;
pub const VERSION_FORMAT_STABLE: u8 = 5;
pub const VERSION_FORMAT_VL_BLOCKS: u8 = 6;
/// The newest chunk format this library reads and writes.
pub const VERSION_FORMAT: u8 = VERSION_FORMAT_VL_BLOCKS;

// `flags` (byte 2) bits.
pub const DOSHUFFLE: u8 = 0x1;
pub const MEMCPYED: u8 = 0x2;
pub const DOBITSHUFFLE: u8 = 0x4;
pub const DODELTA: u8 = 0x8;
pub const DONT_SPLIT: u8 = 0x10;

// `blosc2_flags` (byte 31) bits.
pub const USEDICT: u8 = 0x1;
pub const BIGENDIAN: u8 = 0x2;
pub const LAZY: u8 = 0x8;
pub const INSTR_CODEC: u8 = 0x80;
// `blosc2_flags2` (byte 30) bits.
pub const VL_BLOCKS: u8 = 0x1;

// Filter ids.
pub const NOFILTER: u8 = 0;
pub const SHUFFLE: u8 = 1;
pub const BITSHUFFLE: u8 = 2;
pub const DELTA: u8 = 3;
pub const TRUNC_PREC: u8 = 4;

/// What a whole chunk holds when it has no data blocks (bits 4-6 of `blosc2_flags`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Special {
    None,
    Zero,
    Nan,
    Value,
    Uninit,
}

impl Special {
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
    pub version: u8,
    pub versionlz: u8,
    pub flags: u8,
    pub typesize: u8,
    pub nbytes: i32,
    pub blocksize: i32,
    pub cbytes: i32,
    pub filters: [u8; MAX_FILTERS],
    pub udcompcode: u8,
    pub compcode_meta: u8,
    pub filters_meta: [u8; MAX_FILTERS],
    pub blosc2_flags2: u8,
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
    pub fn read(src: &[u8]) -> Result<ChunkHeader> {
        Self::read_impl(src, true)
    }

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

    pub fn header_len(&self) -> usize {
        if self.extended {
            EXTENDED_HEADER_LENGTH
        } else {
            MIN_HEADER_LENGTH
        }
    }

    pub fn memcpyed(&self) -> bool {
        self.flags & MEMCPYED != 0
    }

    pub fn dont_split(&self) -> bool {
        self.flags & DONT_SPLIT != 0
    }

    /// The 3-bit codec format of `flags`.
    pub fn compformat(&self) -> u8 {
        self.flags >> 5
    }

    pub fn special(&self) -> Option<Special> {
        if !self.extended {
            return Some(Special::None);
        }
        Special::from_bits((self.blosc2_flags >> 4) & 0x7)
    }

    pub fn use_dict(&self) -> bool {
        self.extended && self.blosc2_flags & USEDICT != 0
    }

    pub fn lazy(&self) -> bool {
        self.extended && self.blosc2_flags & LAZY != 0
    }

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
