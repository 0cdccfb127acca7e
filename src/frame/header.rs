//! The frame header (README_CFRAME_FORMAT.rst, "header"): a msgpack fixarray of 14 items with
//! fixed-width fields at fixed positions, followed by the metalayers (array of 3: index size,
//! map name -> offset, array of `bin32` contents).
//!
//! The first [`HEADER_MINLEN`] bytes always have the same layout, so the reference (and this
//! library) patch single fields such as the frame length in place.

use super::msgpack::{self, Reader, Writer};
use crate::error::{Error, Result};

/// Magic string at byte 2 (`fixstr` of 8 bytes including the trailing NUL).
pub const MAGIC: &[u8; 8] = b"b2frame\0";

// Byte positions of the fixed fields (each is the position of the value, after its marker).
/// `header_len` (`int32`): bytes of the whole header, metalayers included.
pub const POS_HEADER_LEN: usize = 11;
/// `frame_len` (`uint64`): bytes of the whole frame.
pub const POS_FRAME_LEN: usize = 16;
/// `general_flags`: format version, offset width, variable chunks, VL blocks.
pub const POS_GENERAL_FLAGS: usize = 25;
/// Frame type byte ([`FrameType::code`]): contiguous or sparse.
pub const POS_FRAME_TYPE: usize = 26;
/// Codec flags: codec id in bits 0-3 ([`UDCODEC_FORMAT`] for user codecs), clevel in 4-7.
pub const POS_CODEC_FLAGS: usize = 27;
/// Other flags: split mode minus 1 in bits 0-1.
pub const POS_OTHER_FLAGS: usize = 28;
/// `nbytes` (`int64`): uncompressed bytes of all chunks, metadata excluded.
pub const POS_NBYTES: usize = 30;
/// `cbytes` (`int64`): compressed bytes of all chunks, metadata excluded.
pub const POS_CBYTES: usize = 39;
/// `typesize` (`int32`): bytes per item.
pub const POS_TYPESIZE: usize = 48;
/// `blocksize` (`int32`): the super-chunk's block size (0 = automatic).
pub const POS_BLOCKSIZE: usize = 53;
/// `chunksize` (`int32`): bytes per chunk; 0 for variable sizes, -1 before the first chunk.
pub const POS_CHUNKSIZE: usize = 58;
/// `nthreads_c` (`int16`): compression threads.
pub const POS_NTHREADS_C: usize = 63;
/// `nthreads_d` (`int16`): decompression threads.
pub const POS_NTHREADS_D: usize = 66;
/// `has_vlmetalayers` (msgpack bool): whether the trailer holds variable-length metalayers.
pub const POS_HAS_VLMETALAYERS: usize = 68;
/// The `fixext16` type byte holds the number of filters; 16 bytes of pipeline follow.
pub const POS_FILTER_PIPELINE: usize = 70;
/// Pipeline byte 6: the codec id when the codec flags say [`UDCODEC_FORMAT`].
pub const POS_UDCODEC: usize = 77;
/// Pipeline byte 7: the codec's meta byte (`compcode_meta`).
pub const POS_CODEC_META: usize = 78;
/// Pipeline bytes 8-13: each filter's meta byte.
pub const POS_FILTERS_META: usize = 79;
/// Pipeline byte 14: second flags byte ([`USE_DICT`]).
pub const POS_OTHER_FLAGS2: usize = 85;
/// Length of the fixed part; metalayers start here.
pub const HEADER_MINLEN: usize = 87;
/// Slots reserved for filters in the pipeline extension.
pub const FILTER_PIPELINE_MAX: usize = 8;

/// Number of filters of a chunk pipeline.
pub const MAX_FILTERS: usize = crate::chunk::header::MAX_FILTERS;
/// At most this many metalayers fit in the header.
pub const MAX_METALAYERS: usize = 16;
/// Longest metalayer name (a msgpack `fixstr` holds 31 bytes).
pub const METALAYER_NAME_MAXLEN: usize = 31;

// `general_flags` bits.
/// Bits 0-3: frame format version.
pub const VERSION_MASK: u8 = 0x0f;
/// `BLOSC2_VERSION_FRAME_FORMAT_BETA2` (1): frames of blosc2 beta.2.
pub const FRAME_FORMAT_BETA2: u8 = 1;
/// `BLOSC2_VERSION_FRAME_FORMAT_RC1` (2): frames of 2.x, still written when no 3.x feature
/// is used.
pub const FRAME_FORMAT_RC1: u8 = 2;
/// Version 3 added variable-size chunks and VL-block chunks.
pub const FRAME_FORMAT_VL_BLOCKS: u8 = 3;
/// `BLOSC2_VERSION_FRAME_FORMAT`: the newest frame format version this library reads.
pub const FRAME_FORMAT: u8 = FRAME_FORMAT_VL_BLOCKS;
/// Bits 4-5 = 1: 64-bit chunk offsets (the only width ever written).
pub const OFFSETS_64BIT: u8 = 0x10;
/// Bit 6: chunks have variable sizes (header `chunksize` is 0).
pub const VARIABLE_CHUNKS: u8 = 0x40;
/// Bit 7: chunks use variable-length blocks.
pub const VL_BLOCKS: u8 = 0x80;

/// `other_flags2` bit 0: the codec uses a dictionary.
pub const USE_DICT: u8 = 0x01;

/// Codec flag value meaning "user-defined codec, id in the udcodec byte".
pub const UDCODEC_FORMAT: u8 = 6;
/// First codec id that does not fit in the 4-bit codec flags.
pub const LAST_CODEC: u8 = 6;

/// Whether the chunks live inside the frame file or in a directory next to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameType {
    /// Header, chunks, offsets and trailer in one buffer or file (`FRAME_CONTIGUOUS_TYPE`, 0).
    Contiguous,
    /// A directory: the frame file `chunks.b2frame` plus one `%08X.chunk` file per chunk
    /// (`FRAME_DIRECTORY_TYPE`, 1).
    Sparse,
}

impl FrameType {
    /// The value stored in the frame type byte ([`POS_FRAME_TYPE`]).
    pub fn code(self) -> u8 {
        match self {
            FrameType::Contiguous => 0,
            FrameType::Sparse => 1,
        }
    }

    /// The type for a stored code; `None` for an unknown one ([`Error::FrameType`] to readers).
    pub fn from_code(c: u8) -> Option<FrameType> {
        match c {
            0 => Some(FrameType::Contiguous),
            1 => Some(FrameType::Sparse),
            _ => None,
        }
    }
}

/// A named blob of user metadata (header metalayers and trailer vlmetalayers share this shape).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Metalayer {
    /// Name, at most [`METALAYER_NAME_MAXLEN`] bytes (e.g. `"b2nd"`).
    pub name: String,
    /// Content, opaque to the frame (msgpack by convention), stored as a `bin32`.
    pub content: Vec<u8>,
}

/// The parsed fixed part of a frame header plus its metalayers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameHeader {
    /// Length of the whole header including metalayers (recomputed by [`serialize`](Self::serialize)).
    pub header_len: i32,
    /// Length of the whole frame (header + chunks + offsets + trailer).
    pub frame_len: i64,
    /// Format version in bits 0-3, [`OFFSETS_64BIT`], [`VARIABLE_CHUNKS`], [`VL_BLOCKS`]; see
    /// [`FrameHeader::general_flags_for`].
    pub general_flags: u8,
    /// Contiguous or sparse.
    pub frame_type: FrameType,
    /// Codec id (user codecs included, resolved through the udcodec byte).
    pub compcode: u8,
    /// Compression level of the super-chunk's cparams (0-9).
    pub clevel: u8,
    /// The codec's meta byte of the super-chunk's cparams.
    pub compcode_meta: u8,
    /// `BLOSC_*_SPLIT` (1-4).
    pub splitmode: u8,
    /// Whether chunks are compressed with a dictionary ([`USE_DICT`]).
    pub use_dict: bool,
    /// Uncompressed bytes of all chunks (metalayers excluded).
    pub nbytes: i64,
    /// Compressed bytes of all chunks (metalayers excluded).
    pub cbytes: i64,
    /// Bytes per item (at least 1).
    pub typesize: i32,
    /// The super-chunk's block size; 0 for automatic.
    pub blocksize: i32,
    /// -1: no chunk yet; 0: variable; otherwise the size of every chunk but maybe the last.
    pub chunksize: i32,
    /// Compression threads of the super-chunk's cparams.
    pub nthreads_c: i16,
    /// Decompression threads of the super-chunk's dparams.
    pub nthreads_d: i16,
    /// Whether the trailer holds variable-length metalayers.
    pub has_vlmetalayers: bool,
    /// Filter pipeline of the super-chunk's cparams (ids, in compression order).
    pub filters: [u8; MAX_FILTERS],
    /// Meta byte of each filter slot.
    pub filters_meta: [u8; MAX_FILTERS],
    /// The fixed-size metalayers stored after the fixed part (at most [`MAX_METALAYERS`]).
    pub metalayers: Vec<Metalayer>,
}

impl FrameHeader {
    /// The frame format version (bits 0-3 of `general_flags`).
    pub fn version(&self) -> u8 {
        self.general_flags & VERSION_MASK
    }

    /// Whether chunks may have different sizes ([`VARIABLE_CHUNKS`], a 3.x feature).
    pub fn variable_chunks(&self) -> bool {
        self.general_flags & VARIABLE_CHUNKS != 0
    }

    /// Whether chunks may have variable-length blocks ([`VL_BLOCKS`], a 3.x feature).
    pub fn vlblocks(&self) -> bool {
        self.general_flags & VL_BLOCKS != 0
    }

    /// The `general_flags` the reference writes for a frame with this chunk size and
    /// VL-block setting: version 3 only when a 3.x feature is in use, so that frames of
    /// fixed-size regular chunks stay readable by 2.x.
    pub fn general_flags_for(chunksize: i32, vlblocks: bool) -> u8 {
        let version3 = chunksize == 0 || vlblocks;
        let mut f = if version3 { FRAME_FORMAT_VL_BLOCKS } else { FRAME_FORMAT_RC1 };
        f |= OFFSETS_64BIT;
        if chunksize == 0 {
            f |= VARIABLE_CHUNKS;
        }
        if vlblocks {
            f |= VL_BLOCKS;
        }
        f
    }

    /// The lengths stored in the fixed part: `(header_len, frame_len)`. Needs the first
    /// [`HEADER_MINLEN`] bytes; checks only what is needed to know how much more to read.
    pub fn peek_lengths(fixed: &[u8]) -> Result<(i32, i64)> {
        if fixed.len() < HEADER_MINLEN {
            return Err(Error::ReadBuffer);
        }
        let mut r = Reader::at(fixed, POS_HEADER_LEN - 1);
        let header_len = r.int32()?;
        let frame_len = r.uint64()?;
        if header_len < HEADER_MINLEN as i32 || frame_len > i64::MAX as u64 || (frame_len as i64) < header_len as i64 {
            return Err(Error::InvalidHeader);
        }
        Ok((header_len, frame_len as i64))
    }

    /// Parse a header from untrusted bytes. `buf` must hold at least `header_len` bytes
    /// (it may hold the whole frame). Every marker, length and offset is checked.
    pub fn parse(buf: &[u8]) -> Result<FrameHeader> {
        if buf.len() < HEADER_MINLEN {
            return Err(Error::ReadBuffer);
        }
        let mut r = Reader::new(buf);
        let m = r.u8()?;
        if m & 0xf0 != msgpack::FIXARRAY {
            return Err(Error::InvalidHeader);
        }
        if r.fixstr()? != MAGIC {
            return Err(Error::InvalidHeader);
        }
        let header_len = r.int32()?;
        let frame_len = r.uint64()?;
        if frame_len > i64::MAX as u64 {
            return Err(Error::InvalidHeader);
        }
        let frame_len = frame_len as i64;
        if header_len < HEADER_MINLEN as i32 || header_len as i64 > frame_len {
            return Err(Error::InvalidHeader);
        }
        if buf.len() < header_len as usize {
            return Err(Error::ReadBuffer);
        }
        let buf = &buf[..header_len as usize];
        let flags = r.fixstr()?;
        if flags.len() != 4 {
            return Err(Error::InvalidHeader);
        }
        let general_flags = flags[0];
        if general_flags & VERSION_MASK > FRAME_FORMAT {
            return Err(Error::VersionSupport);
        }
        let frame_type = FrameType::from_code(flags[1]).ok_or(Error::FrameType)?;
        let codec_flags = flags[2];
        let other_flags = flags[3];
        let nbytes = r.int64()?;
        let cbytes = r.int64()?;
        let typesize = r.int32()?;
        let blocksize = r.int32()?;
        let chunksize = r.int32()?;
        let nthreads_c = r.int16()?;
        let nthreads_d = r.int16()?;
        let has_vlmetalayers = r.bool()?;
        r.expect(msgpack::FIXEXT16)?;
        let nfilters = r.u8()? as usize;
        let pipeline = r.bytes(16)?;
        debug_assert_eq!(r.pos(), HEADER_MINLEN);
        if nbytes < 0 || cbytes < 0 || typesize <= 0 || blocksize < 0 || chunksize < -1 {
            return Err(Error::InvalidHeader);
        }
        if nfilters > MAX_FILTERS {
            return Err(Error::InvalidHeader);
        }
        let mut filters = [0u8; MAX_FILTERS];
        let mut filters_meta = [0u8; MAX_FILTERS];
        filters[..nfilters].copy_from_slice(&pipeline[..nfilters]);
        let meta_at = POS_FILTERS_META - POS_FILTER_PIPELINE - 1;
        filters_meta[..nfilters].copy_from_slice(&pipeline[meta_at..meta_at + nfilters]);
        let mut compcode = codec_flags & 0x0f;
        if compcode == UDCODEC_FORMAT {
            compcode = buf[POS_UDCODEC];
        }
        let metalayers = parse_header_metalayers(buf)?;
        Ok(FrameHeader {
            header_len,
            frame_len,
            general_flags,
            frame_type,
            compcode,
            clevel: codec_flags >> 4,
            compcode_meta: buf[POS_CODEC_META],
            splitmode: (other_flags & 0x03) + 1,
            use_dict: buf[POS_OTHER_FLAGS2] & USE_DICT != 0,
            nbytes,
            cbytes,
            typesize,
            blocksize,
            chunksize,
            nthreads_c,
            nthreads_d,
            has_vlmetalayers,
            filters,
            filters_meta,
            metalayers,
        })
    }

    /// Serialise exactly as the reference does; `header_len` in the output is computed (and
    /// also stored back into `self`).
    pub fn serialize(&mut self) -> Result<Vec<u8>> {
        if self.metalayers.len() > MAX_METALAYERS {
            return Err(Error::InvalidParam);
        }
        let mut w = Writer::new();
        w.fixarray(14);
        w.fixstr(MAGIC)?;
        w.int32(0); // header_len, patched below
        w.uint64(self.frame_len as u64);
        let codec_flags = if self.compcode >= LAST_CODEC { UDCODEC_FORMAT } else { self.compcode };
        w.u8(msgpack::FIXSTR | 4);
        w.raw(&[
            self.general_flags,
            self.frame_type.code(),
            codec_flags.wrapping_add(self.clevel << 4),
            self.splitmode.wrapping_sub(1),
        ]);
        w.int64(self.nbytes);
        w.int64(self.cbytes);
        w.int32(self.typesize);
        w.int32(self.blocksize);
        w.int32(self.chunksize);
        w.int16(self.nthreads_c);
        w.int16(self.nthreads_d);
        w.bool(self.has_vlmetalayers);
        w.u8(msgpack::FIXEXT16);
        w.u8(MAX_FILTERS as u8);
        let mut pipeline = [0u8; 16];
        pipeline[..MAX_FILTERS].copy_from_slice(&self.filters);
        pipeline[POS_UDCODEC - POS_FILTER_PIPELINE - 1] = self.compcode;
        pipeline[POS_CODEC_META - POS_FILTER_PIPELINE - 1] = self.compcode_meta;
        let meta_at = POS_FILTERS_META - POS_FILTER_PIPELINE - 1;
        pipeline[meta_at..meta_at + MAX_FILTERS].copy_from_slice(&self.filters_meta);
        pipeline[POS_OTHER_FLAGS2 - POS_FILTER_PIPELINE - 1] = if self.use_dict { USE_DICT } else { 0 };
        w.raw(&pipeline);
        debug_assert_eq!(w.len(), HEADER_MINLEN);
        // The header's index size counts from the array marker.
        write_layers(&mut w, &self.metalayers, true)?;
        let len = i32::try_from(w.len()).map_err(|_| Error::TwoGbLimit)?;
        w.patch_i32(POS_HEADER_LEN, len);
        self.header_len = len;
        Ok(w.buf)
    }
}

/// Write `[index size, map name -> offset, array of bin32]` at the end of `w`. Offsets are
/// positions in `w` (the header or the trailer). The index size counts from the array marker
/// in the header and from the size field in the trailer (`count_from_marker`): the reference
/// does so, and readers ignore the value.
pub(crate) fn write_layers(w: &mut Writer, layers: &[Metalayer], count_from_marker: bool) -> Result<()> {
    let n = u16::try_from(layers.len()).map_err(|_| Error::InvalidParam)?;
    let array_pos = w.len();
    w.fixarray(3);
    let idx_pos = w.len() + 1;
    let idx_from = if count_from_marker { array_pos } else { array_pos + 1 };
    w.uint16(0);
    w.map16(n);
    let mut slots = Vec::with_capacity(layers.len());
    for l in layers {
        if l.name.len() > METALAYER_NAME_MAXLEN {
            return Err(Error::InvalidParam);
        }
        w.fixstr(l.name.as_bytes())?;
        w.int32(0);
        slots.push(w.len() - 4);
    }
    let idx_size = u16::try_from(w.len() - idx_from).map_err(|_| Error::InvalidParam)?;
    w.patch_u16(idx_pos, idx_size);
    w.array16(n);
    for (l, slot) in layers.iter().zip(slots) {
        let at = i32::try_from(w.len()).map_err(|_| Error::TwoGbLimit)?;
        w.patch_i32(slot, at);
        w.bin32(&l.content)?;
    }
    Ok(())
}

/// Read the `[index size, map, array]` structure at `start` of `buf`, where the map's offsets
/// are positions in `buf`. `max` bounds the number of entries.
pub(crate) fn read_layers(buf: &[u8], start: usize, max: usize) -> Result<Vec<Metalayer>> {
    let mut r = Reader::at(buf, start);
    if r.u8()? != msgpack::FIXARRAY + 3 {
        return Err(Error::Data);
    }
    let _idx_size = r.uint16()?;
    let n = r.map16()? as usize;
    if n > max {
        return Err(Error::Data);
    }
    let mut layers = Vec::with_capacity(n);
    for _ in 0..n {
        let name = r.fixstr()?;
        let name = std::str::from_utf8(name).map_err(|_| Error::Data)?.to_owned();
        let offset = r.int32()?;
        if offset < 0 || offset as usize >= buf.len() {
            return Err(Error::Data);
        }
        let content = Reader::at(buf, offset as usize).bin32()?.to_vec();
        layers.push(Metalayer { name, content });
    }
    Ok(layers)
}

fn parse_header_metalayers(header: &[u8]) -> Result<Vec<Metalayer>> {
    if header.len() == HEADER_MINLEN {
        // Very old writers could stop here; no metalayers.
        return Ok(Vec::new());
    }
    read_layers(header, HEADER_MINLEN, MAX_METALAYERS)
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn sample() -> FrameHeader {
        FrameHeader {
            header_len: 0,
            frame_len: 132,
            general_flags: FrameHeader::general_flags_for(-1, false),
            frame_type: FrameType::Contiguous,
            compcode: 0,
            clevel: 5,
            compcode_meta: 0,
            splitmode: 4,
            use_dict: false,
            nbytes: 0,
            cbytes: 0,
            typesize: 4,
            blocksize: 0,
            chunksize: -1,
            nthreads_c: 1,
            nthreads_d: 1,
            has_vlmetalayers: false,
            filters: [0, 0, 0, 0, 0, 1],
            filters_meta: [0; 6],
            metalayers: vec![],
        }
    }

    /// What the reference writes for a new, empty contiguous frame (typesize 4, defaults).
    const EMPTY_REF: &str = "9ea862326672616d6500d200000061cf0000000000000084a412005003d30000000000000000d300\
        00000000000000d200000004d200000000d2ffffffffd10001d10001c2d806000000000001000000\
        0000000000000093cd0007de0000dc0000";

    pub(crate) fn hex(s: &str) -> Vec<u8> {
        let s: String = s.chars().filter(|c| c.is_ascii_hexdigit()).collect();
        (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
    }

    #[test]
    fn empty_header_matches_reference() {
        let mut h = sample();
        let bytes = h.serialize().unwrap();
        assert_eq!(bytes, hex(EMPTY_REF));
        assert_eq!(h.header_len, 97);
        let mut p = FrameHeader::parse(&bytes).unwrap();
        assert_eq!(p, h);
        assert_eq!(p.serialize().unwrap(), bytes);
    }

    #[test]
    fn metalayers_match_reference() {
        let mut h = sample();
        h.frame_len = 163;
        h.metalayers = vec![
            Metalayer { name: "m1".into(), content: vec![1, 2, 3] },
            Metalayer { name: "m2".into(), content: vec![1, 2] },
        ];
        let bytes = h.serialize().unwrap();
        let tail = hex("93cd0017de0002a26d31d200000071a26d32d200000079dc0002c600000003010203c6000000020102");
        assert_eq!(&bytes[HEADER_MINLEN..], &tail[..]);
        assert_eq!(h.header_len, 0x80);
        assert_eq!(FrameHeader::parse(&bytes).unwrap(), h);
    }

    #[test]
    fn truncated_and_corrupt_headers_fail() {
        let mut h = sample();
        h.metalayers = vec![Metalayer { name: "abc".into(), content: vec![9; 10] }];
        let bytes = h.serialize().unwrap();
        for n in 0..bytes.len() {
            assert!(FrameHeader::parse(&bytes[..n]).is_err(), "len {n}");
        }
        for i in 0..bytes.len() {
            for v in [0u8, 0xff, 0x80, 0x7f] {
                let mut b = bytes.clone();
                b[i] = v;
                let _ = FrameHeader::parse(&b); // must not panic
            }
        }
        let mut b = bytes.clone();
        b[3] = b'x';
        assert_eq!(FrameHeader::parse(&b), Err(Error::InvalidHeader));
        let mut b = bytes.clone();
        b[POS_GENERAL_FLAGS] = 0x1f;
        assert_eq!(FrameHeader::parse(&b), Err(Error::VersionSupport));
    }
}
