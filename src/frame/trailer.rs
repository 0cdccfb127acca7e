//! The frame trailer (README_CFRAME_FORMAT.rst, "trailer"): a msgpack fixarray of 4 items:
//! trailer version, the variable-length metalayers (same shape as the header metalayers, with
//! offsets relative to the trailer start), the trailer length (`uint32`) and a `fixext16`
//! fingerprint (type byte + 16 bytes; the reference always writes type 0 and zeros).
//!
//! The trailer always ends the frame, and its length sits at a fixed distance from the end,
//! which is how a reader finds it: [`TRAILER_MINLEN`] bytes from the end, a `uint32` marker.

use super::header::{read_layers, write_layers, Metalayer};
use super::msgpack::{self, Reader, Writer};
use crate::error::{Error, Result};

/// Shortest possible trailer (no vlmetalayers).
pub const TRAILER_MINLEN: usize = 35;
/// Distance from the frame end to the trailer length value.
pub const TRAILER_LEN_OFFSET: usize = 22;
/// Version written in the trailer.
pub const TRAILER_VERSION: u8 = 1;
/// Most vlmetalayers the reference accepts.
pub const MAX_VLMETALAYERS: usize = 8 * 1024;

/// A parsed trailer. vlmetalayer contents are kept exactly as stored (the reference stores
/// each one as a compressed Blosc chunk; the super-chunk layer compresses and decompresses).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FrameTrailer {
    /// Variable-length metalayers, contents as stored (at most [`MAX_VLMETALAYERS`]).
    pub vlmetalayers: Vec<Metalayer>,
    /// Fingerprint type: 0 none, 1 32-bit, 2 64-bit, 3 128-bit; written as 0.
    pub fingerprint_type: u8,
    /// Fingerprint, left-padded to 16 bytes; written as zeros.
    pub fingerprint: [u8; 16],
}

impl FrameTrailer {
    /// Find the trailer length from the last bytes of a frame (at least
    /// `TRAILER_LEN_OFFSET + 1` bytes, ending where the frame ends).
    pub fn len_from_end(tail: &[u8], frame_len: i64) -> Result<u32> {
        if tail.len() < TRAILER_LEN_OFFSET + 1 {
            return Err(Error::ReadBuffer);
        }
        let at = tail.len() - TRAILER_LEN_OFFSET - 1;
        let mut r = Reader::at(tail, at);
        let len = r.uint32().map_err(|_| Error::InvalidHeader)?;
        if (len as usize) < TRAILER_MINLEN
            || len > i32::MAX as u32
            || len as i64 > frame_len - super::header::HEADER_MINLEN as i64
        {
            return Err(Error::InvalidHeader);
        }
        Ok(len)
    }

    /// Parse a trailer from exactly its bytes.
    pub fn parse(buf: &[u8]) -> Result<FrameTrailer> {
        let mut r = Reader::new(buf);
        if r.u8()? != msgpack::FIXARRAY + 4 {
            return Err(Error::Data);
        }
        let _version = r.u8()?;
        let vlmetalayers = read_layers(buf, r.pos(), MAX_VLMETALAYERS)?;
        // The length and fingerprint sit at fixed distances from the end.
        if buf.len() < TRAILER_LEN_OFFSET + 1 {
            return Err(Error::ReadBuffer);
        }
        let mut r = Reader::at(buf, buf.len() - TRAILER_LEN_OFFSET - 1);
        let len = r.uint32()?;
        if len as usize != buf.len() {
            return Err(Error::Data);
        }
        r.expect(msgpack::FIXEXT16)?;
        let fingerprint_type = r.u8()?;
        let mut fingerprint = [0u8; 16];
        fingerprint.copy_from_slice(r.bytes(16)?);
        Ok(FrameTrailer { vlmetalayers, fingerprint_type, fingerprint })
    }

    /// Serialise exactly as the reference does.
    pub fn serialize(&self) -> Result<Vec<u8>> {
        if self.vlmetalayers.len() > MAX_VLMETALAYERS {
            return Err(Error::InvalidParam);
        }
        let mut w = Writer::new();
        w.fixarray(4);
        w.u8(TRAILER_VERSION);
        write_layers(&mut w, &self.vlmetalayers, false)?;
        let total = w.len() + 1 + 4 + 1 + 1 + 16;
        let total = u32::try_from(total).map_err(|_| Error::TwoGbLimit)?;
        w.uint32(total);
        w.u8(msgpack::FIXEXT16);
        w.u8(self.fingerprint_type);
        w.raw(&self.fingerprint);
        Ok(w.buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        let s: String = s.chars().filter(|c| c.is_ascii_hexdigit()).collect();
        (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
    }

    #[test]
    fn empty_matches_reference() {
        let t = FrameTrailer::default();
        let b = t.serialize().unwrap();
        let want = hex("9401 93cd0006de0000dc0000 ce00000023 d800 00000000000000000000000000000000");
        assert_eq!(b, want);
        assert_eq!(FrameTrailer::parse(&b).unwrap(), t);
        assert_eq!(FrameTrailer::len_from_end(&b, 200).unwrap(), 35);
    }

    #[test]
    fn vlmeta_matches_reference() {
        let content = hex("0501070803000000010000002300000000000000000100000000000000000000010203");
        let t = FrameTrailer {
            vlmetalayers: vec![Metalayer { name: "vl1".into(), content }],
            ..Default::default()
        };
        let b = t.serialize().unwrap();
        let want = hex(
            "9401 93cd000fde0001a3766c31d200000015dc0001c600000023 \
             0501070803000000010000002300000000000000000100000000000000000000010203 \
             ce00000054 d800 00000000000000000000000000000000",
        );
        assert_eq!(b, want);
        assert_eq!(FrameTrailer::parse(&b).unwrap(), t);
    }

    #[test]
    fn truncation_never_panics() {
        let t = FrameTrailer {
            vlmetalayers: vec![Metalayer { name: "a".into(), content: vec![1; 5] }],
            ..Default::default()
        };
        let b = t.serialize().unwrap();
        for n in 0..b.len() {
            assert!(FrameTrailer::parse(&b[..n]).is_err());
            let _ = FrameTrailer::len_from_end(&b[..n], 1000);
        }
        for i in 0..b.len() {
            let mut c = b.clone();
            c[i] ^= 0xff;
            let _ = FrameTrailer::parse(&c);
        }
    }
}
