//! Zstandard through the bundled libzstd 1.5.7, with per-thread contexts and dictionaries.

use zstd_sys as zs;

/// Blosc clevel (1..=9) to zstd level, as the reference maps it: odd levels 1..15, then the
/// maximum level at 9.
pub fn zstd_level(clevel: u8) -> i32 {
    // SAFETY: pure library query.
    let max = unsafe { zs::ZSTD_maxCLevel() };
    let mut level = if clevel < 9 { clevel as i32 * 2 - 1 } else { max };
    if level == 8 {
        level = max - 2;
    }
    level
}

/// Clevel from which [`ZstdState::compress`] first asks whether a stream is noise
/// ([`noise::incompressible`](super::noise::incompressible)), and stores it without a search
/// when it is: at clevel 9 (zstd level 22) zstd reads random bytes at 0.01 GB/s, the probe at
/// 0.4-0.6 GB/s; at 7 and 8 (levels 13 and 20) zstd reads them at 0.4-0.5 GB/s, about the
/// probe's own pace, and below at 2-5 GB/s.
pub const NOISE_PROBE: u8 = 9;

/// Lazily created compression and decompression contexts, owned by one worker.
#[derive(Default)]
pub struct ZstdState {
    cctx: Option<std::ptr::NonNull<zs::ZSTD_CCtx>>,
    dctx: Option<std::ptr::NonNull<zs::ZSTD_DCtx>>,
}

// SAFETY: the contexts are used by one thread at a time (the owner of the state).
unsafe impl Send for ZstdState {}

impl ZstdState {
    /// No contexts yet (they are created on first use); usable in a `static`.
    pub const fn new() -> ZstdState {
        ZstdState { cctx: None, dctx: None }
    }

    fn cctx(&mut self) -> Option<*mut zs::ZSTD_CCtx> {
        if self.cctx.is_none() {
            // SAFETY: plain allocation; null is handled.
            self.cctx = std::ptr::NonNull::new(unsafe { zs::ZSTD_createCCtx() });
        }
        self.cctx.map(|p| p.as_ptr())
    }

    fn dctx(&mut self) -> Option<*mut zs::ZSTD_DCtx> {
        if self.dctx.is_none() {
            // SAFETY: plain allocation; null is handled.
            self.dctx = std::ptr::NonNull::new(unsafe { zs::ZSTD_createDCtx() });
        }
        self.dctx.map(|p| p.as_ptr())
    }

    /// 0 when the output does not fit (or any zstd error), or, from clevel [`NOISE_PROBE`],
    /// when the stream is noise zstd could not fit in fewer bytes than it has: the caller
    /// stores the stream raw.
    pub fn compress(&mut self, src: &[u8], dest: &mut [u8], clevel: u8) -> usize {
        if clevel >= NOISE_PROBE && super::noise::incompressible(src) {
            return 0;
        }
        self.compress_searching(src, dest, clevel)
    }

    /// [`compress`](Self::compress) without asking whether the stream is noise: what zstd
    /// itself writes (0 when it does not fit).
    pub(super) fn compress_searching(&mut self, src: &[u8], dest: &mut [u8], clevel: u8) -> usize {
        let Some(cctx) = self.cctx() else { return 0 };
        // SAFETY: cctx is live; buffers are valid for their lengths.
        let code = unsafe {
            zs::ZSTD_compressCCtx(
                cctx,
                dest.as_mut_ptr().cast(),
                dest.len(),
                src.as_ptr().cast(),
                src.len(),
                zstd_level(clevel),
            )
        };
        // SAFETY: pure function.
        if unsafe { zs::ZSTD_isError(code) } != 0 {
            0
        } else {
            code
        }
    }

    /// [`compress`](Self::compress) against a digested dictionary, at the level `dict` was made with;
    /// 0 when the output does not fit.
    pub fn compress_with_dict(&mut self, src: &[u8], dest: &mut [u8], dict: &CDict) -> usize {
        let Some(cctx) = self.cctx() else { return 0 };
        // SAFETY: cctx and the cdict are live; buffers are valid for their lengths.
        let code = unsafe {
            zs::ZSTD_compress_usingCDict(
                cctx,
                dest.as_mut_ptr().cast(),
                dest.len(),
                src.as_ptr().cast(),
                src.len(),
                dict.0.as_ptr(),
            )
        };
        // SAFETY: pure function.
        if unsafe { zs::ZSTD_isError(code) } != 0 {
            0
        } else {
            code
        }
    }

    /// Decode one zstd frame; the bytes written, `None` for a corrupt frame or one that does
    /// not fit.
    pub fn decompress(&mut self, src: &[u8], dest: &mut [u8]) -> Option<usize> {
        let dctx = self.dctx()?;
        // SAFETY: dctx is live; zstd bounds-checks both buffers.
        let code = unsafe {
            zs::ZSTD_decompressDCtx(
                dctx,
                dest.as_mut_ptr().cast(),
                dest.len(),
                src.as_ptr().cast(),
                src.len(),
            )
        };
        // SAFETY: pure function.
        (unsafe { zs::ZSTD_isError(code) } == 0).then_some(code)
    }

    /// [`decompress`](Self::decompress) for a frame compressed against the same dictionary.
    pub fn decompress_with_dict(
        &mut self,
        src: &[u8],
        dest: &mut [u8],
        dict: &DDict,
    ) -> Option<usize> {
        let dctx = self.dctx()?;
        // SAFETY: dctx and ddict are live; zstd bounds-checks both buffers.
        let code = unsafe {
            zs::ZSTD_decompress_usingDDict(
                dctx,
                dest.as_mut_ptr().cast(),
                dest.len(),
                src.as_ptr().cast(),
                src.len(),
                dict.0.as_ptr(),
            )
        };
        // SAFETY: pure function.
        (unsafe { zs::ZSTD_isError(code) } == 0).then_some(code)
    }
}

impl Drop for ZstdState {
    fn drop(&mut self) {
        // SAFETY: each context was created by zstd and is freed exactly once.
        unsafe {
            if let Some(c) = self.cctx.take() {
                zs::ZSTD_freeCCtx(c.as_ptr());
            }
            if let Some(d) = self.dctx.take() {
                zs::ZSTD_freeDCtx(d.as_ptr());
            }
        }
    }
}

/// A digested compression dictionary.
pub struct CDict(std::ptr::NonNull<zs::ZSTD_CDict>);
// SAFETY: a ZSTD_CDict is read-only after creation and may be shared between threads.
unsafe impl Send for CDict {}
unsafe impl Sync for CDict {}

impl CDict {
    /// Digest `dict` for compressing at zstd `level` (see [`zstd_level`]); `None` if zstd refuses it.
    pub fn new(dict: &[u8], level: i32) -> Option<CDict> {
        // SAFETY: zstd copies the dictionary content.
        let p = unsafe { zs::ZSTD_createCDict(dict.as_ptr().cast(), dict.len(), level) };
        std::ptr::NonNull::new(p).map(CDict)
    }
}

impl Drop for CDict {
    fn drop(&mut self) {
        // SAFETY: created by ZSTD_createCDict, freed once.
        unsafe { zs::ZSTD_freeCDict(self.0.as_ptr()) };
    }
}

/// A digested decompression dictionary.
pub struct DDict(std::ptr::NonNull<zs::ZSTD_DDict>);
// SAFETY: a ZSTD_DDict is read-only after creation.
unsafe impl Send for DDict {}
unsafe impl Sync for DDict {}

impl DDict {
    /// Digest `dict` for decompression; `None` if zstd refuses it.
    pub fn new(dict: &[u8]) -> Option<DDict> {
        // SAFETY: zstd copies the dictionary content.
        let p = unsafe { zs::ZSTD_createDDict(dict.as_ptr().cast(), dict.len()) };
        std::ptr::NonNull::new(p).map(DDict)
    }
}

impl Drop for DDict {
    fn drop(&mut self) {
        // SAFETY: created by ZSTD_createDDict, freed once.
        unsafe { zs::ZSTD_freeDDict(self.0.as_ptr()) };
    }
}

/// Train a dictionary of at most `max_size` bytes from equally sized samples.
pub fn train_dict(samples: &[u8], sample_sizes: &[usize], max_size: usize) -> Option<Vec<u8>> {
    let mut buf = vec![0u8; max_size];
    // SAFETY: samples holds at least the sum of sample_sizes bytes (checked below by caller
    // construction); buf is writable for max_size bytes.
    debug_assert!(sample_sizes.iter().sum::<usize>() <= samples.len());
    let n = unsafe {
        zs::ZDICT_trainFromBuffer(
            buf.as_mut_ptr().cast(),
            buf.len(),
            samples.as_ptr().cast(),
            sample_sizes.as_ptr(),
            sample_sizes.len() as u32,
        )
    };
    // SAFETY: pure function.
    if unsafe { zs::ZDICT_isError(n) } != 0 || n == 0 {
        return None;
    }
    buf.truncate(n);
    Some(buf)
}

/// "MAJOR.MINOR.RELEASE" of the linked libzstd.
pub fn version() -> String {
    // SAFETY: pure library query.
    let v = unsafe { zs::ZSTD_versionNumber() };
    format!("{}.{}.{}", v / 10000, (v / 100) % 100, v % 100)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::{records, Rng};

    #[test]
    fn levels_match_reference_mapping() {
        assert_eq!(zstd_level(1), 1);
        assert_eq!(zstd_level(5), 9);
        assert_eq!(zstd_level(8), 15);
        assert_eq!(zstd_level(9), 22);
        // The bundled version (a system-codecs build reports the system library's).
        if cfg!(not(feature = "system-codecs")) {
            assert_eq!(version(), "1.5.7");
        }
    }

    #[test]
    fn round_trip() {
        let mut st = ZstdState::default();
        let src: Vec<u8> = (0..80_000u32).map(|i| (i % 13) as u8).collect();
        let mut c = vec![0u8; 80_000];
        let n = st.compress(&src, &mut c, 5);
        assert!(n > 0);
        let mut d = vec![0u8; src.len()];
        assert_eq!(st.decompress(&c[..n], &mut d), Some(src.len()));
        assert_eq!(d, src);
        assert_eq!(st.decompress(&c[..n - 1], &mut d), None);
    }

    /// The bundled decoder is built with scripts/zstd/near-match-first.patch (x86-64): its
    /// near matches must decode to the bytes zstd's encoder was given, into an output of the
    /// exact size and into one with room to spare. The literal-heavy input makes zstd keep
    /// the literals of a block with little output room left partly in the output (its
    /// "split" literal buffer, the patch's second caller).
    #[test]
    fn near_matches_decode_exactly() {
        let mut st = ZstdState::default();
        let inputs = [(1, 300_000, 3, 64), (2, 300_000, 6, 64), (3, 5_000, 2, 64), (4, 40_000, 8, 64), (5, 300_000, 3, 1)];
        for (seed, total, changed, burst_every) in inputs {
            let src = records(total, changed, burst_every, seed);
            let mut c = vec![0u8; total + total / 8 + 1024];
            for clevel in [1, 5, 9] {
                let n = st.compress(&src, &mut c, clevel);
                assert!(n > 0 && n < total, "seed {seed} clevel {clevel}: {n} bytes");
                for slack in [0, 256 << 10] {
                    let mut d = vec![0xA5u8; total + slack];
                    assert_eq!(st.decompress(&c[..n], &mut d), Some(total), "seed {seed} clevel {clevel}");
                    assert!(d[..total] == src[..], "seed {seed} clevel {clevel} slack {slack}: wrong bytes");
                }
            }
        }
    }

    /// The bundled encoder is built with scripts/zstd/seq-codes-bsr.patch (x86-64), which
    /// computes each sequence's offset code (the width of its offset) in code of its own. A
    /// wrong code writes the offset with the wrong number of bits, which the decoder reads
    /// back as other bytes or rejects. The input is random bytes with 48-byte copies at
    /// distances of every width from 1 to 2^22 and their neighbours, so every offset code
    /// the window allows is written; clevel 9 (zstd's level 22, its window 8 MiB) must find
    /// most copies, which the size checks (92% here).
    #[test]
    fn offsets_of_every_width_round_trip() {
        const COPY: usize = 48;
        let mut distances = Vec::new();
        for bits in 0..=22 {
            let d = 1usize << bits;
            distances.extend([d.saturating_sub(1).max(1), d, d + 1]);
            if bits < 22 {
                distances.push(d + d / 2);
            }
        }
        let total = 6 << 20;
        let mut src = vec![0u8; total];
        Rng::new(18).fill(&mut src);
        // Copies from the 4.5 MiB mark on (past the longest distance), every 1 KiB, cycling
        // through the distances (each one several times).
        let mut copies = 0;
        for (i, at) in ((9 << 19)..total - COPY).step_by(1024).enumerate() {
            let d = distances[i % distances.len()];
            for k in at..at + COPY {
                src[k] = src[k - d];
            }
            copies += 1;
        }
        let mut st = ZstdState::default();
        let mut c = vec![0u8; total + total / 8 + 1024];
        for clevel in [1, 5, 9] {
            let n = st.compress(&src, &mut c, clevel);
            assert!(n > 0 && n < total, "clevel {clevel}: {n} bytes");
            let mut d = vec![0u8; total];
            assert_eq!(st.decompress(&c[..n], &mut d), Some(total), "clevel {clevel}");
            assert!(d == src, "clevel {clevel}: wrong bytes");
            if clevel == 9 {
                assert!(n < total - copies * COPY * 3 / 4, "clevel 9 found few copies: {n} bytes of {total}, {copies} copies");
            }
        }
    }
}
