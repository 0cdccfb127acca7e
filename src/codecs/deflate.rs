//! libdeflate's whole-buffer zlib encoder and decoder, behind safe owners.
//!
//! Blosc hands a codec whole blocks, never a stream in pieces, which is what libdeflate is
//! built for: it needs no streaming state and, on this project's benchmark data, writes zlib
//! streams at clevel 5 1.3-1.7x faster than zlib-ng and reads zlib-ng's streams 1.5-1.7x
//! faster (README, "zlib through libdeflate"). [`super::zlib`] decides, stream by stream,
//! which library serves a call.

use libdeflate_sys as ld;
use std::ptr::NonNull;

/// A libdeflate compressor for one level, freed on drop. It holds 652 KiB at levels 2-9 (its
/// match finder and the sequences of a block), so a thread keeps one and reuses it.
pub struct Compressor {
    raw: NonNull<ld::libdeflate_compressor>,
    level: u8,
}

// SAFETY: a libdeflate compressor is plain memory owned by this value; libdeflate keeps no
// reference to the thread that made it, and `&mut self` lets one caller use it at a time.
unsafe impl Send for Compressor {}

impl Compressor {
    /// A compressor for libdeflate `level` (1-12); `None` when the allocation fails.
    pub fn new(level: u8) -> Option<Compressor> {
        // SAFETY: plain allocation; libdeflate returns null for an invalid level or no memory.
        let raw = NonNull::new(unsafe { ld::libdeflate_alloc_compressor(i32::from(level)) })?;
        Some(Compressor { raw, level })
    }

    /// The level it was made for.
    pub fn level(&self) -> u8 {
        self.level
    }

    /// Compress `src` as one zlib stream into `dest`; 0 when it does not fit.
    pub fn zlib_compress(&mut self, src: &[u8], dest: &mut [u8]) -> usize {
        // SAFETY: libdeflate reads `src.len()` bytes of `src` and writes at most `dest.len()`
        // bytes of `dest`; the compressor is ours alone for the call.
        unsafe {
            ld::libdeflate_zlib_compress(
                self.raw.as_ptr(),
                src.as_ptr().cast(),
                src.len(),
                dest.as_mut_ptr().cast(),
                dest.len(),
            )
        }
    }
}

impl Drop for Compressor {
    fn drop(&mut self) {
        // SAFETY: made by libdeflate_alloc_compressor and freed only here.
        unsafe { ld::libdeflate_free_compressor(self.raw.as_ptr()) }
    }
}

/// A libdeflate decompressor (about 11 KiB of decoding tables), freed on drop.
pub struct Decompressor {
    raw: NonNull<ld::libdeflate_decompressor>,
}

// SAFETY: as for `Compressor`.
unsafe impl Send for Decompressor {}

impl Decompressor {
    /// `None` when the allocation fails.
    pub fn new() -> Option<Decompressor> {
        // SAFETY: plain allocation; null when out of memory.
        let raw = NonNull::new(unsafe { ld::libdeflate_alloc_decompressor() })?;
        Some(Decompressor { raw })
    }

    /// Decode the zlib stream at the start of `src` into `dest`: the bytes written, `None`
    /// for a corrupt stream (libdeflate checks the header and the Adler-32) or one whose
    /// output does not fit in `dest`. Bytes after the stream are ignored, as zlib does.
    pub fn zlib_decompress(&mut self, src: &[u8], dest: &mut [u8]) -> Option<usize> {
        let mut written = 0usize;
        // SAFETY: libdeflate reads at most `src.len()` bytes of `src`, writes at most
        // `dest.len()` bytes of `dest` and stores the count in `written`; the decompressor
        // is ours alone for the call.
        let rc = unsafe {
            ld::libdeflate_zlib_decompress(
                self.raw.as_ptr(),
                src.as_ptr().cast(),
                src.len(),
                dest.as_mut_ptr().cast(),
                dest.len(),
                &mut written,
            )
        };
        (rc == ld::libdeflate_result_LIBDEFLATE_SUCCESS).then_some(written)
    }
}

impl Drop for Decompressor {
    fn drop(&mut self) {
        // SAFETY: made by libdeflate_alloc_decompressor and freed only here.
        unsafe { ld::libdeflate_free_decompressor(self.raw.as_ptr()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::words;

    #[test]
    fn round_trip_at_every_level_and_through_zlib() {
        let src = words(100_000, 7);
        let mut dec = Decompressor::new().unwrap();
        for level in 1..=12 {
            let mut c = Compressor::new(level).unwrap();
            assert_eq!(c.level(), level);
            let mut z = vec![0u8; src.len() + 1024];
            let n = c.zlib_compress(&src, &mut z);
            assert!(n > 0 && n < src.len() / 2, "level {level}: {n} bytes");
            let mut out = vec![0u8; src.len()];
            assert_eq!(dec.zlib_decompress(&z[..n], &mut out), Some(src.len()));
            assert_eq!(out, src);
            // zlib (zlib-ng here) reads it too: the stream is plain zlib format.
            out.fill(0);
            assert_eq!(super::super::zlib::decompress(&z[..n], &mut out), Some(src.len()));
            assert_eq!(out, src);
        }
    }

    #[test]
    fn too_small_a_destination_is_refused() {
        let src = words(10_000, 3);
        let mut c = Compressor::new(6).unwrap();
        let mut z = vec![0u8; 20_000];
        let n = c.zlib_compress(&src, &mut z);
        assert!(n > 0);
        assert_eq!(c.zlib_compress(&src, &mut z[..n - 1]), 0);
        let mut dec = Decompressor::new().unwrap();
        let mut out = vec![0u8; src.len() - 1];
        assert_eq!(dec.zlib_decompress(&z[..n], &mut out), None);
        // A larger destination is fine: the count says how much was written.
        let mut out = vec![0u8; src.len() + 5];
        assert_eq!(dec.zlib_decompress(&z[..n], &mut out), Some(src.len()));
        // Bytes after the stream are ignored; a stream cut short is not.
        let mut long = z[..n].to_vec();
        long.extend_from_slice(b"trailing");
        assert_eq!(dec.zlib_decompress(&long, &mut out), Some(src.len()));
        assert_eq!(dec.zlib_decompress(&z[..n - 1], &mut out), None);
    }
}
