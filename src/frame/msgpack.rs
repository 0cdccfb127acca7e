//! The small subset of msgpack that frame headers and trailers use (README_CFRAME_FORMAT.rst):
//! fixed-width big-endian integers, short strings, `bin32` blobs, fixarrays, `array16`/`map16`
//! and `fixext16`. Frames are written with fixed widths on purpose (so fields can be patched in
//! place), so the writer never picks the shortest encoding the way a general encoder would.

use crate::error::{Error, Result};

// Markers used by frames.
/// `fixarray` marker; the low 4 bits hold the element count (0-15).
pub const FIXARRAY: u8 = 0x90;
/// `fixstr` marker; the low 5 bits hold the length in bytes (0-31).
pub const FIXSTR: u8 = 0xa0;
/// `false`.
pub const FALSE: u8 = 0xc2;
/// `true`.
pub const TRUE: u8 = 0xc3;
/// `bin 32`: a big-endian 32-bit length, then that many bytes (metalayer contents).
pub const BIN32: u8 = 0xc6;
/// `uint 16`, followed by 2 big-endian bytes.
pub const UINT16: u8 = 0xcd;
/// `uint 32`, followed by 4 big-endian bytes.
pub const UINT32: u8 = 0xce;
/// `uint 64`, followed by 8 big-endian bytes (the frame size).
pub const UINT64: u8 = 0xcf;
/// `int 16`, followed by 2 big-endian bytes (thread counts).
pub const INT16: u8 = 0xd1;
/// `int 32`, followed by 4 big-endian bytes.
pub const INT32: u8 = 0xd2;
/// `int 64`, followed by 8 big-endian bytes.
pub const INT64: u8 = 0xd3;
/// `fixext 16`: a type byte and 16 data bytes (the filter pipeline, the trailer's fingerprint).
pub const FIXEXT16: u8 = 0xd8;
/// `array 16`, followed by a big-endian 16-bit element count.
pub const ARRAY16: u8 = 0xdc;
/// `map 16`, followed by a big-endian 16-bit entry count (the metalayer index).
pub const MAP16: u8 = 0xde;

/// Appends msgpack items to a byte vector.
#[derive(Debug, Default)]
pub struct Writer {
    /// The bytes written so far; take it when done.
    pub buf: Vec<u8>,
}

impl Writer {
    /// An empty writer.
    pub fn new() -> Writer {
        Writer { buf: Vec::new() }
    }

    /// Bytes written so far (the offset the next item starts at).
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// Whether nothing was written yet.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// A single raw byte (a marker or a payload byte).
    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }

    /// Raw bytes, without any marker.
    pub fn raw(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }

    /// A `fixarray` header for `n` (< 16) elements.
    pub fn fixarray(&mut self, n: u8) {
        debug_assert!(n < 16);
        self.buf.push(FIXARRAY | n);
    }

    /// A `fixstr` (at most 31 bytes).
    pub fn fixstr(&mut self, s: &[u8]) -> Result<()> {
        if s.len() > 31 {
            return Err(Error::InvalidParam);
        }
        self.buf.push(FIXSTR | s.len() as u8);
        self.buf.extend_from_slice(s);
        Ok(())
    }

    /// A msgpack boolean.
    pub fn bool(&mut self, v: bool) {
        self.buf.push(if v { TRUE } else { FALSE });
    }

    /// A `uint 16`, always 3 bytes.
    pub fn uint16(&mut self, v: u16) {
        self.buf.push(UINT16);
        self.buf.extend_from_slice(&v.to_be_bytes());
    }

    /// A `uint 32`, always 5 bytes.
    pub fn uint32(&mut self, v: u32) {
        self.buf.push(UINT32);
        self.buf.extend_from_slice(&v.to_be_bytes());
    }

    /// A `uint 64`, always 9 bytes.
    pub fn uint64(&mut self, v: u64) {
        self.buf.push(UINT64);
        self.buf.extend_from_slice(&v.to_be_bytes());
    }

    /// An `int 16`, always 3 bytes.
    pub fn int16(&mut self, v: i16) {
        self.buf.push(INT16);
        self.buf.extend_from_slice(&v.to_be_bytes());
    }

    /// An `int 32`, always 5 bytes.
    pub fn int32(&mut self, v: i32) {
        self.buf.push(INT32);
        self.buf.extend_from_slice(&v.to_be_bytes());
    }

    /// An `int 64`, always 9 bytes.
    pub fn int64(&mut self, v: i64) {
        self.buf.push(INT64);
        self.buf.extend_from_slice(&v.to_be_bytes());
    }

    /// A `map 16` header for `n` key/value pairs.
    pub fn map16(&mut self, n: u16) {
        self.buf.push(MAP16);
        self.buf.extend_from_slice(&n.to_be_bytes());
    }

    /// An `array 16` header for `n` elements.
    pub fn array16(&mut self, n: u16) {
        self.buf.push(ARRAY16);
        self.buf.extend_from_slice(&n.to_be_bytes());
    }

    /// A `bin32` blob.
    pub fn bin32(&mut self, b: &[u8]) -> Result<()> {
        let n = i32::try_from(b.len()).map_err(|_| Error::TwoGbLimit)?;
        self.buf.push(BIN32);
        self.buf.extend_from_slice(&n.to_be_bytes());
        self.buf.extend_from_slice(b);
        Ok(())
    }

    /// Overwrite 2/4 big-endian bytes at `at` (for sizes known only later).
    pub fn patch_u16(&mut self, at: usize, v: u16) {
        self.buf[at..at + 2].copy_from_slice(&v.to_be_bytes());
    }

    /// Overwrite 4 big-endian bytes at `at` with `v` (the value of an `int 32` written earlier).
    pub fn patch_i32(&mut self, at: usize, v: i32) {
        self.buf[at..at + 4].copy_from_slice(&v.to_be_bytes());
    }
}

/// A bounds-checked cursor over untrusted msgpack bytes. Every read that would pass the end
/// returns [`Error::ReadBuffer`]; an unexpected marker returns [`Error::Data`].
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `buf`.
    pub fn new(buf: &'a [u8]) -> Reader<'a> {
        Reader { buf, pos: 0 }
    }

    /// A reader at byte `pos` of `buf` (reads fail if that is past the end).
    pub fn at(buf: &'a [u8], pos: usize) -> Reader<'a> {
        Reader { buf, pos }
    }

    /// Offset in the buffer of the next byte to read.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// The next `n` raw bytes.
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.pos.checked_add(n).ok_or(Error::ReadBuffer)?;
        let s = self.buf.get(self.pos..end).ok_or(Error::ReadBuffer)?;
        self.pos = end;
        Ok(s)
    }

    /// The next raw byte.
    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.bytes(1)?[0])
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let b = self.bytes(N)?;
        let mut a = [0u8; N];
        a.copy_from_slice(b);
        Ok(a)
    }

    /// Consume one byte, which must be `marker` ([`Error::Data`] otherwise).
    pub fn expect(&mut self, marker: u8) -> Result<()> {
        if self.u8()? != marker {
            return Err(Error::Data);
        }
        Ok(())
    }

    /// A raw big-endian `u16` (no marker).
    pub fn be_u16(&mut self) -> Result<u16> {
        Ok(u16::from_be_bytes(self.array()?))
    }

    /// A raw big-endian `i16` (no marker).
    pub fn be_i16(&mut self) -> Result<i16> {
        Ok(i16::from_be_bytes(self.array()?))
    }

    /// A raw big-endian `u32` (no marker).
    pub fn be_u32(&mut self) -> Result<u32> {
        Ok(u32::from_be_bytes(self.array()?))
    }

    /// A raw big-endian `i32` (no marker).
    pub fn be_i32(&mut self) -> Result<i32> {
        Ok(i32::from_be_bytes(self.array()?))
    }

    /// A raw big-endian `i64` (no marker).
    pub fn be_i64(&mut self) -> Result<i64> {
        Ok(i64::from_be_bytes(self.array()?))
    }

    /// A raw big-endian `u64` (no marker).
    pub fn be_u64(&mut self) -> Result<u64> {
        Ok(u64::from_be_bytes(self.array()?))
    }

    /// Marker then value, for each fixed-width integer kind.
    pub fn uint16(&mut self) -> Result<u16> {
        self.expect(UINT16)?;
        self.be_u16()
    }

    /// A `uint 32` (marker and value).
    pub fn uint32(&mut self) -> Result<u32> {
        self.expect(UINT32)?;
        self.be_u32()
    }

    /// A `uint 64` (marker and value).
    pub fn uint64(&mut self) -> Result<u64> {
        self.expect(UINT64)?;
        self.be_u64()
    }

    /// An `int 16` (marker and value).
    pub fn int16(&mut self) -> Result<i16> {
        self.expect(INT16)?;
        self.be_i16()
    }

    /// An `int 32` (marker and value).
    pub fn int32(&mut self) -> Result<i32> {
        self.expect(INT32)?;
        self.be_i32()
    }

    /// An `int 64` (marker and value).
    pub fn int64(&mut self) -> Result<i64> {
        self.expect(INT64)?;
        self.be_i64()
    }

    /// A msgpack boolean; any other byte is [`Error::Data`].
    pub fn bool(&mut self) -> Result<bool> {
        match self.u8()? {
            TRUE => Ok(true),
            FALSE => Ok(false),
            _ => Err(Error::Data),
        }
    }

    /// A `fixstr`; returns its bytes.
    pub fn fixstr(&mut self) -> Result<&'a [u8]> {
        let m = self.u8()?;
        if m & 0xe0 != FIXSTR {
            return Err(Error::Data);
        }
        self.bytes((m & 0x1f) as usize)
    }

    /// A `map 16` header; returns its entry count.
    pub fn map16(&mut self) -> Result<u16> {
        self.expect(MAP16)?;
        self.be_u16()
    }

    /// An `array 16` header; returns its element count.
    pub fn array16(&mut self) -> Result<u16> {
        self.expect(ARRAY16)?;
        self.be_u16()
    }

    /// A `bin32` blob (a negative length is invalid data).
    pub fn bin32(&mut self) -> Result<&'a [u8]> {
        self.expect(BIN32)?;
        let n = self.be_i32()?;
        if n < 0 {
            return Err(Error::Data);
        }
        self.bytes(n as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let mut w = Writer::new();
        w.fixarray(3);
        w.fixstr(b"abc").unwrap();
        w.int32(-5);
        w.int64(1 << 40);
        w.uint64(7);
        w.int16(-2);
        w.uint32(9);
        w.bool(true);
        w.map16(2);
        w.array16(3);
        w.bin32(b"xyz").unwrap();
        let mut r = Reader::new(&w.buf);
        r.expect(0x93).unwrap();
        assert_eq!(r.fixstr().unwrap(), b"abc");
        assert_eq!(r.int32().unwrap(), -5);
        assert_eq!(r.int64().unwrap(), 1 << 40);
        assert_eq!(r.uint64().unwrap(), 7);
        assert_eq!(r.int16().unwrap(), -2);
        assert_eq!(r.uint32().unwrap(), 9);
        assert!(r.bool().unwrap());
        assert_eq!(r.map16().unwrap(), 2);
        assert_eq!(r.array16().unwrap(), 3);
        assert_eq!(r.bin32().unwrap(), b"xyz");
        assert_eq!(r.u8(), Err(Error::ReadBuffer));
    }

    #[test]
    fn rejects_bad_input() {
        assert_eq!(Reader::new(&[INT32, 0, 0]).int32(), Err(Error::ReadBuffer));
        assert_eq!(Reader::new(&[INT64, 0, 0, 0, 0]).int32(), Err(Error::Data));
        assert_eq!(Reader::new(&[BIN32, 0xff, 0, 0, 0]).bin32(), Err(Error::Data));
        assert_eq!(Reader::new(&[BIN32, 0, 0, 0, 9, 1]).bin32(), Err(Error::ReadBuffer));
        assert_eq!(Reader::new(&[0xa5, b'a']).fixstr(), Err(Error::ReadBuffer));
        let mut w = Writer::new();
        assert_eq!(w.fixstr(&[b'a'; 32]), Err(Error::InvalidParam));
    }
}
