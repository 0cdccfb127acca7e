//! The codecs that compress one stream of a block: the built-in ones (BloscLZ, LZ4, LZ4HC,
//! zlib, zstd), the decode-only legacy snappy, and the registry of user codecs.
//!
//! Every codec follows the chunk layer's contract (README_CHUNK_FORMAT, "Compressed Data
//! Streams"): compression returns the number of bytes written, or 0 when the stream did not
//! fit in the output (the chunk layer then stores it raw); decompression must produce exactly
//! the expected number of bytes or fail.

pub mod b2nd_meta;
pub mod blosclz;
pub mod lz4;
pub mod lz4_block;
mod lz77;
pub mod ndlz;
// Its segment judge serves the zlib encoder choice, which only the libdeflate build makes.
#[cfg_attr(not(feature = "libdeflate"), allow(dead_code))]
mod noise;
pub mod registry;
pub mod snappy;
#[cfg(feature = "libdeflate")]
pub mod deflate;
pub mod zlib;
pub mod zfp;
pub mod zfp_lib;
pub mod zstd;

use crate::error::{Error, Result};

/// Codec ids as stored in cparams and in the extended header's `udcompcode` byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Codec {
    /// `BLOSC_BLOSCLZ` (0), the default codec.
    BloscLz,
    /// `BLOSC_LZ4` (1).
    Lz4,
    /// `BLOSC_LZ4HC` (2): LZ4's high-compression encoder; the streams are plain LZ4.
    Lz4Hc,
    /// `BLOSC_ZLIB` (4).
    Zlib,
    /// `BLOSC_ZSTD` (5).
    Zstd,
    /// A codec registered at run time (ids 32..=255).
    User(u8),
}

impl Codec {
    /// The codec for a `BLOSC_*` compressor code; ids 32 and up are [`Codec::User`]. `None` for
    /// snappy (3, which Blosc2 chunks cannot be written with) and the other reserved ids.
    pub fn from_code(code: u8) -> Option<Codec> {
        Some(match code {
            0 => Codec::BloscLz,
            1 => Codec::Lz4,
            2 => Codec::Lz4Hc,
            4 => Codec::Zlib,
            5 => Codec::Zstd,
            c if c >= 32 => Codec::User(c),
            _ => return None,
        })
    }

    /// The `BLOSC_*` compressor code (`compcode` of `blosc2_cparams`).
    pub fn code(self) -> u8 {
        match self {
            Codec::BloscLz => 0,
            Codec::Lz4 => 1,
            Codec::Lz4Hc => 2,
            Codec::Zlib => 4,
            Codec::Zstd => 5,
            Codec::User(c) => c,
        }
    }

    /// The 3-bit format code stored in the chunk `flags` byte (bits 5-7).
    pub fn format(self) -> u8 {
        match self {
            Codec::BloscLz => FORMAT_BLOSCLZ,
            Codec::Lz4 | Codec::Lz4Hc => FORMAT_LZ4,
            Codec::Zlib => FORMAT_ZLIB,
            Codec::Zstd => FORMAT_ZSTD,
            Codec::User(_) => FORMAT_UDCODEC,
        }
    }

    /// The name `blosc2_compcode_to_compname` reports; `None` for user codecs (their name is
    /// in the registry).
    pub fn name(self) -> Option<&'static str> {
        match self {
            Codec::BloscLz => Some("blosclz"),
            Codec::Lz4 => Some("lz4"),
            Codec::Lz4Hc => Some("lz4hc"),
            Codec::Zlib => Some("zlib"),
            Codec::Zstd => Some("zstd"),
            Codec::User(_) => None,
        }
    }

    /// The built-in codec called `name` (as [`Codec::name`]); user codecs are looked up in
    /// [`registry`].
    pub fn from_name(name: &str) -> Option<Codec> {
        Some(match name {
            "blosclz" => Codec::BloscLz,
            "lz4" => Codec::Lz4,
            "lz4hc" => Codec::Lz4Hc,
            "zlib" => Codec::Zlib,
            "zstd" => Codec::Zstd,
            _ => return None,
        })
    }

    /// "High compression ratio" codecs get larger automatic blocks (see `chunk::blocksize`).
    pub fn is_hcr(self) -> bool {
        matches!(self, Codec::Lz4Hc | Codec::Zlib | Codec::Zstd)
    }
}

/// The BloscLZ format version this implementation is byte-compatible with.
pub const BLOSCLZ_VERSION: &str = "2.5.3";

/// `BLOSC_BLOSCLZ_FORMAT`: chunk `flags` bits 5-7 of BloscLZ streams.
pub const FORMAT_BLOSCLZ: u8 = 0;
/// `BLOSC_LZ4_FORMAT`: LZ4 and LZ4HC streams.
pub const FORMAT_LZ4: u8 = 1;
/// Snappy streams (c-blosc 1.x's `BLOSC_SNAPPY_FORMAT`): Blosc2 chunks are only read with it.
pub const FORMAT_SNAPPY: u8 = 2;
/// `BLOSC_ZLIB_FORMAT`: zlib streams.
pub const FORMAT_ZLIB: u8 = 3;
/// `BLOSC_ZSTD_FORMAT`: zstd streams.
pub const FORMAT_ZSTD: u8 = 4;
/// `BLOSC_UDCODEC_FORMAT`: a user or plugin codec, its id in header byte 22 (`udcompcode`).
pub const FORMAT_UDCODEC: u8 = 6;

/// The names and versions `blosc2_get_complib_info` reports, per library.
pub fn complib_name(format: u8) -> Option<&'static str> {
    match format {
        FORMAT_BLOSCLZ => Some("BloscLZ"),
        FORMAT_LZ4 => Some("LZ4"),
        FORMAT_SNAPPY => Some("Snappy"),
        FORMAT_ZLIB => Some("Zlib"),
        FORMAT_ZSTD => Some("Zstd"),
        _ => None,
    }
}

/// The version of the library behind a compression format, as `*_get_complib_info` reports
/// it: the bundled BloscLZ's, or the linked lz4's, zlib's and zstd's own version strings.
/// `None` for formats whose library reports none here (snappy, user codecs).
pub fn complib_version(format: u8) -> Option<String> {
    match format {
        FORMAT_BLOSCLZ => Some(BLOSCLZ_VERSION.to_string()),
        FORMAT_LZ4 => Some(lz4::version()),
        FORMAT_ZLIB => Some(zlib::version()),
        FORMAT_ZSTD => Some(zstd::version()),
        _ => None,
    }
}

/// Per-thread codec state reused between blocks: zstd contexts are costly to create, and
/// LZ4HC and zlib would otherwise allocate and clear a few hundred KiB for every stream.
#[derive(Default)]
pub struct CodecScratch {
    /// zstd compression and decompression contexts.
    pub zstd: zstd::ZstdState,
    /// The LZ4HC stream state (without a dictionary).
    pub lz4hc: lz4::Lz4HcState,
    /// The deflate stream.
    pub zlib: zlib::ZlibState,
    /// BloscLZ's hash table.
    pub blosclz: blosclz::HashTable,
}

impl CodecScratch {
    /// Nothing allocated yet; usable in a `static`.
    pub const fn new() -> CodecScratch {
        CodecScratch {
            zstd: zstd::ZstdState::new(),
            lz4hc: lz4::Lz4HcState::new(),
            zlib: zlib::ZlibState::new(),
            blosclz: blosclz::HashTable::new(),
        }
    }
}

/// Dictionaries a chunk is compressed or decompressed with (`BLOSC2_USEDICT`).
pub enum Dict<'a> {
    /// No dictionary.
    None,
    /// A digested zstd dictionary.
    Zstd(&'a zstd::CDict),
    /// The raw dictionary bytes, for LZ4 and LZ4HC.
    Lz4(&'a [u8]),
}

/// Compress one stream with a built-in codec. `Ok(0)` means "did not fit in `dest`".
pub fn compress_stream(
    codec: Codec,
    clevel: u8,
    generation: crate::Generation,
    src: &[u8],
    dest: &mut [u8],
    scratch: &mut CodecScratch,
    dict: &Dict<'_>,
) -> Result<usize> {
    match codec {
        Codec::BloscLz => Ok(blosclz::compress_in(&mut scratch.blosclz, clevel as i32, src, dest)),
        Codec::Lz4 => match dict {
            Dict::Lz4(d) => lz4::compress_with_dict(src, dest, d, false, clevel),
            _ => lz4::compress(src, dest, generation.lz4_acceleration(clevel)),
        },
        Codec::Lz4Hc => match dict {
            Dict::Lz4(d) => lz4::compress_with_dict(src, dest, d, true, clevel),
            _ => scratch.lz4hc.compress(src, dest, clevel),
        },
        Codec::Zlib => Ok(scratch.zlib.compress(src, dest, clevel)),
        Codec::Zstd => match dict {
            Dict::Zstd(cd) => Ok(scratch.zstd.compress_with_dict(src, dest, cd)),
            _ => Ok(scratch.zstd.compress(src, dest, clevel)),
        },
        Codec::User(_) => Err(Error::CodecSupport),
    }
}

/// LZ4 streams that expand at least this many times are decoded by [`lz4_block`], the rest by
/// liblz4. At such ratios a sequence yields 48 bytes or more on average, long runs and
/// repeats where our decoder is faster (shuffled int64 ramp, 16 MB, one thread: lz4 +12%,
/// lz4hc +58%, bitshuffled lz4 +24%); on streams of short sequences liblz4's loop is about
/// twice as fast as ours (0.46-0.64x at ratios 1.6-18), so those stay with it. Any value from
/// 4 to 32 measured alike on the benchmark's data.
const RUNS_RATIO: usize = 16;

/// Decompress one stream whose codec is given by the chunk's format code. The output must be
/// filled exactly; anything else is `Error::Data`.
pub fn decompress_stream(
    format: u8,
    src: &[u8],
    dest: &mut [u8],
    scratch: &mut CodecScratch,
    dict: &DDict<'_>,
) -> Result<()> {
    decompress_stream_of(format, src, dest, scratch, dict, Records::Unknown)
}

/// [`decompress_stream`] for a stream known to hold `records` (the decoder may then take a
/// path made for them; the bytes decoded are the same).
pub fn decompress_stream_of(
    format: u8,
    src: &[u8],
    dest: &mut [u8],
    scratch: &mut CodecScratch,
    dict: &DDict<'_>,
    records: Records,
) -> Result<()> {
    let n = match format {
        FORMAT_BLOSCLZ => blosclz::decompress(src, dest),
        FORMAT_LZ4 => match dict {
            DDict::Lz4(d) => lz4::decompress_with_dict(src, dest, d),
            _ if dest.len() / RUNS_RATIO >= src.len() => lz4_block::decompress(src, dest),
            _ if records == Records::Wide => lz4::decompress_records(src, dest),
            _ => lz4::decompress(src, dest),
        },
        // Builds that link libsnappy (the c-blosc 1.x face) decode with it: about twice as
        // fast as the Rust decoder, which the other builds keep (no C++ dependency).
        #[cfg(feature = "snappy-compress")]
        FORMAT_SNAPPY => snappy::decompress_with_libsnappy(src, dest),
        #[cfg(not(feature = "snappy-compress"))]
        FORMAT_SNAPPY => snappy::decompress(src, dest),
        FORMAT_ZLIB => scratch.zlib.decompress(src, dest),
        FORMAT_ZSTD => match dict {
            DDict::Zstd(d) => scratch.zstd.decompress_with_dict(src, dest, d),
            _ => scratch.zstd.decompress(src, dest),
        },
        _ => return Err(Error::CodecSupport),
    };
    match n {
        Some(n) if n == dest.len() => Ok(()),
        _ => Err(Error::Data),
    }
}

/// What a stream holds, as far as its decoder's choice goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Records {
    /// Nothing known (shuffled data, narrow items, user filters).
    Unknown,
    /// Whole items of 8 bytes or more, in order (no shuffle): LZ4 then decodes with its
    /// near matches read first ([`lz4::decompress_records`]).
    Wide,
}

/// Dictionaries for decompression.
pub enum DDict<'a> {
    /// No dictionary.
    None,
    /// A digested zstd dictionary.
    Zstd(&'a zstd::DDict),
    /// The raw dictionary bytes, for LZ4 streams.
    Lz4(&'a [u8]),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::{words, Rng};

    /// Noise skips the slow searches (stored: `Ok(0)`, even with room for the encoder's
    /// expanded output) where the probe is asked, and only there; compressible streams are
    /// still compressed.
    #[test]
    fn noise_skips_the_slow_searches() {
        let mut noise = vec![0u8; 256 << 10];
        Rng::new(1).fill(&mut noise);
        let text = words(256 << 10, 2);
        let mut dest = vec![0u8; noise.len() + 4096];
        let mut scratch = CodecScratch::new();
        let mut run = |codec, clevel, src: &[u8]| {
            compress_stream(codec, clevel, crate::Generation::V3, src, &mut dest, &mut scratch, &Dict::None).unwrap()
        };
        let probed = [(Codec::Lz4Hc, lz4::noise_probe_from()), (Codec::Lz4Hc, 9), (Codec::Zlib, 1), (Codec::Zlib, 5), (Codec::Zlib, 9), (Codec::Zstd, zstd::NOISE_PROBE)];
        for (codec, clevel) in probed {
            assert_eq!(run(codec, clevel, &noise), 0, "{codec:?} {clevel}");
            let n = run(codec, clevel, &text);
            assert!(n > 0 && n < text.len() / 2, "{codec:?} {clevel}: {n}");
        }
        // Below those clevels the encoders run, and write noise expanded.
        if lz4::noise_probe_from() > 1 {
            assert!(run(Codec::Lz4Hc, lz4::noise_probe_from() - 1, &noise) > noise.len());
        }
        assert!(run(Codec::Zstd, zstd::NOISE_PROBE - 1, &noise) > noise.len());
    }
}
