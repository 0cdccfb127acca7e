//! LZ4 and LZ4HC through the bundled liblz4 1.10 (the reference's version), or through the
//! system liblz4 in builds with the `system-codecs` feature (the c-blosc 1.x face).

use crate::error::{Error, Result};
use libc::{c_char, c_int, c_void};

#[cfg(not(feature = "system-codecs"))]
use lz4_sys as lz4_api;

/// The four functions this module takes from lz4-sys, declared against the system liblz4.
#[cfg(feature = "system-codecs")]
mod lz4_api {
    use libc::{c_char, c_int, c_uint};
    #[link(name = "lz4")]
    extern "C" {
        pub fn LZ4_compress_fast(src: *const c_char, dst: *mut c_char, src_size: c_int, dst_capacity: c_int, acceleration: c_int) -> c_int;
        pub fn LZ4_compress_HC(src: *const c_char, dst: *mut c_char, src_size: c_int, dst_capacity: c_int, level: c_int) -> c_int;
        pub fn LZ4_decompress_safe(src: *const c_char, dst: *mut c_char, compressed_size: c_int, dst_capacity: c_int) -> c_int;
        pub fn LZ4_versionNumber() -> c_uint;
    }
}

extern "C" {
    // Present in every liblz4 since 1.9 (bundled or system), but not declared by lz4-sys.
    fn LZ4_initStream(buffer: *mut c_void, size: usize) -> *mut c_void;
    fn LZ4_sizeofState() -> c_int;
    fn LZ4_loadDict(stream: *mut c_void, dict: *const c_char, dict_size: c_int) -> c_int;
    fn LZ4_compress_fast_continue(
        stream: *mut c_void,
        src: *const c_char,
        dst: *mut c_char,
        src_size: c_int,
        dst_capacity: c_int,
        acceleration: c_int,
    ) -> c_int;
    fn LZ4_decompress_safe_usingDict(
        src: *const c_char,
        dst: *mut c_char,
        compressed_size: c_int,
        dst_capacity: c_int,
        dict_start: *const c_char,
        dict_size: c_int,
    ) -> c_int;
    fn LZ4_sizeofStateHC() -> c_int;
    fn LZ4_initStreamHC(buffer: *mut c_void, size: usize) -> *mut c_void;
    fn LZ4_resetStreamHC_fast(stream: *mut c_void, level: c_int);
    fn LZ4_loadDictHC(stream: *mut c_void, dict: *const c_char, dict_size: c_int) -> c_int;
    fn LZ4_compress_HC_continue(
        stream: *mut c_void,
        src: *const c_char,
        dst: *mut c_char,
        src_size: c_int,
        dst_capacity: c_int,
    ) -> c_int;
}

fn clamp_len(n: usize) -> c_int {
    n.min(i32::MAX as usize) as c_int
}

/// LZ4 with the given acceleration (the reference uses `10 - clevel`).
pub fn compress(src: &[u8], dest: &mut [u8], accel: i32) -> Result<usize> {
    if src.len() > i32::MAX as usize {
        return Err(Error::TwoGbLimit);
    }
    // SAFETY: both pointers come from live slices and the lengths passed are theirs.
    let n = unsafe {
        lz4_api::LZ4_compress_fast(
            src.as_ptr() as *const c_char,
            dest.as_mut_ptr() as *mut c_char,
            src.len() as c_int,
            clamp_len(dest.len()),
            accel.max(1),
        )
    };
    if n < 0 {
        return Err(Error::Data);
    }
    Ok(n as usize)
}

/// LZ4HC at level `clevel`; `Ok(0)` when the output does not fit in `dest`. Inputs over 2 GiB
/// are [`Error::TwoGbLimit`].
pub fn compress_hc(src: &[u8], dest: &mut [u8], clevel: u8) -> Result<usize> {
    if src.len() > (2usize << 30) {
        return Err(Error::TwoGbLimit);
    }
    // SAFETY: as above; LZ4_compress_HC never writes past `dstCapacity`.
    let n = unsafe {
        lz4_api::LZ4_compress_HC(
            src.as_ptr() as *const c_char,
            dest.as_mut_ptr() as *mut c_char,
            src.len() as c_int,
            clamp_len(dest.len()),
            clevel as c_int,
        )
    };
    if n < 0 {
        return Err(Error::Data);
    }
    Ok(n as usize)
}

/// Clevel from which [`Lz4HcState::compress`] first asks whether a stream is noise
/// ([`noise::incompressible`](super::noise::incompressible)), and stores it without a search
/// when it is (`Ok(0)`, as when LZ4HC's output does not fit): from its level 3, LZ4HC's chain
/// search reads random bytes at 0.06 GB/s, the probe at 0.4-0.6 GB/s (and it turns
/// compressible streams away in a microsecond or two). Levels 1 and 2 of lz4 1.10 (the
/// bundled one) give up on noise by themselves, at 3-4 GB/s; an older lz4 (the system's, as
/// the c-blosc 1.x face links Debian 12's 1.9.4) searches there too, at 0.2 GB/s, and is
/// asked from level 1 ([`noise_probe_from`]).
pub const NOISE_PROBE: u8 = 3;

/// The clevel from which the linked lz4's LZ4HC is asked about noise: [`NOISE_PROBE`] for
/// lz4 1.10 or later, whose levels 1 and 2 are its fast "mid" strategy, 1 before.
pub fn noise_probe_from() -> u8 {
    // SAFETY: a pure library query.
    if unsafe { lz4_api::LZ4_versionNumber() } >= 11000 {
        NOISE_PROBE
    } else {
        1
    }
}

/// An LZ4HC stream state kept between compressions. `LZ4_compress_HC` allocates and clears
/// 256 KiB of tables for every stream; a kept state is reset with `LZ4_resetStreamHC_fast`,
/// which leaves the old table entries in place but out of reach (they sit before the new
/// stream's lowest index, as entries of a cleared table do), so the output is the same.
#[derive(Default)]
pub struct Lz4HcState {
    /// The `LZ4_streamHC_t`, 8-byte aligned; empty until the first compression.
    buf: Vec<u64>,
}

impl Lz4HcState {
    /// Nothing allocated yet; usable in a `static`.
    pub const fn new() -> Lz4HcState {
        Lz4HcState { buf: Vec::new() }
    }

    /// LZ4HC at level `clevel`, the bytes `LZ4_compress_HC` writes; `Ok(0)` when the output
    /// does not fit in `dest`, or, from clevel [`noise_probe_from`], when the stream is noise that
    /// LZ4HC could not fit in fewer bytes than it has. Inputs over 2 GiB are
    /// [`Error::TwoGbLimit`].
    pub fn compress(&mut self, src: &[u8], dest: &mut [u8], clevel: u8) -> Result<usize> {
        if src.len() > i32::MAX as usize {
            return Err(Error::TwoGbLimit);
        }
        if clevel >= noise_probe_from() && super::noise::incompressible(src) {
            return Ok(0);
        }
        // SAFETY: LZ4 sizes its own state; the buffer is 8-byte aligned, initialised by
        // LZ4_initStreamHC once and only used through LZ4's functions afterwards; the
        // slices give valid pointers and their lengths.
        let n = unsafe {
            if self.buf.is_empty() {
                let size = LZ4_sizeofStateHC() as usize;
                self.buf = vec![0u64; size.div_ceil(8)];
                if LZ4_initStreamHC(self.buf.as_mut_ptr() as *mut c_void, size).is_null() {
                    self.buf = Vec::new();
                    return Err(Error::MemoryAlloc);
                }
            }
            let s = self.buf.as_mut_ptr() as *mut c_void;
            LZ4_resetStreamHC_fast(s, clevel as c_int);
            LZ4_compress_HC_continue(
                s,
                src.as_ptr() as *const c_char,
                dest.as_mut_ptr() as *mut c_char,
                src.len() as c_int,
                clamp_len(dest.len()),
            )
        };
        if n < 0 {
            return Err(Error::Data);
        }
        Ok(n as usize)
    }
}

/// Compress with a dictionary (`use_dict` with lz4/lz4hc): a fresh stream that knows only
/// the dictionary, so each stream decodes on its own. LZ4 takes the reference's acceleration
/// `10 - clevel`, LZ4HC the clevel.
pub fn compress_with_dict(
    src: &[u8],
    dest: &mut [u8],
    dict: &[u8],
    hc: bool,
    clevel: u8,
) -> Result<usize> {
    // State buffers must be 8-byte aligned: use u64 storage.
    let n = if hc {
        // SAFETY: the state buffer is sized by LZ4 itself, aligned to 8 and initialised by
        // LZ4_initStreamHC before use; slices provide valid pointers and lengths.
        unsafe {
            let size = LZ4_sizeofStateHC() as usize;
            let mut state = vec![0u64; size.div_ceil(8)];
            let s = LZ4_initStreamHC(state.as_mut_ptr() as *mut c_void, size);
            if s.is_null() {
                return Err(Error::MemoryAlloc);
            }
            LZ4_resetStreamHC_fast(s, clevel as c_int);
            LZ4_loadDictHC(s, dict.as_ptr() as *const c_char, clamp_len(dict.len()));
            LZ4_compress_HC_continue(
                s,
                src.as_ptr() as *const c_char,
                dest.as_mut_ptr() as *mut c_char,
                clamp_len(src.len()),
                clamp_len(dest.len()),
            )
        }
    } else {
        // SAFETY: as above for the fast LZ4 stream state.
        unsafe {
            let size = LZ4_sizeofState() as usize;
            let mut state = vec![0u64; size.div_ceil(8)];
            let s = LZ4_initStream(state.as_mut_ptr() as *mut c_void, size);
            if s.is_null() {
                return Err(Error::MemoryAlloc);
            }
            LZ4_loadDict(s, dict.as_ptr() as *const c_char, clamp_len(dict.len()));
            LZ4_compress_fast_continue(
                s,
                src.as_ptr() as *const c_char,
                dest.as_mut_ptr() as *mut c_char,
                clamp_len(src.len()),
                clamp_len(dest.len()),
                10 - clevel.min(9) as c_int,
            )
        }
    };
    if n < 0 {
        return Err(Error::Data);
    }
    Ok(n as usize)
}

/// Decode one LZ4 stream into `dest`; the bytes written, `None` for a corrupt stream or one
/// that does not fit.
pub fn decompress(src: &[u8], dest: &mut [u8]) -> Option<usize> {
    decode_with(lz4_api::LZ4_decompress_safe, src, dest)
}

/// An LZ4_decompress_safe-like C decoder: (source, destination, compressed size, capacity).
type Decoder = unsafe extern "C" fn(*const c_char, *mut c_char, c_int, c_int) -> c_int;

/// Run `decoder` on `src` into `dest`, refusing lengths a C int cannot hold.
fn decode_with(decoder: Decoder, src: &[u8], dest: &mut [u8]) -> Option<usize> {
    if src.len() > i32::MAX as usize || dest.len() > i32::MAX as usize {
        return None;
    }
    // SAFETY: every `Decoder` passed here (LZ4_decompress_safe and the patched
    // LZ4_decompress_safe_nearFirst, its template with one more case in the fast loop) is
    // bounds-checked on both buffers by design.
    let n = unsafe {
        decoder(src.as_ptr() as *const c_char, dest.as_mut_ptr() as *mut c_char, src.len() as c_int, dest.len() as c_int)
    };
    (n >= 0).then_some(n as usize)
}

#[cfg(all(lz4_near_first, not(feature = "system-codecs")))]
extern "C" {
    // Added to the bundled lz4.c by scripts/lz4/near-match-first.patch (build.rs checks).
    fn LZ4_decompress_safe_nearFirst(src: *const c_char, dst: *mut c_char, compressed_size: c_int, dst_capacity: c_int) -> c_int;
}

/// [`decompress`] for a stream of whole items of 8 bytes or more (data of such a type with
/// no shuffle): its sequences are then mostly matches 8 to 15 bytes back, which the
/// patched decoder reads before the literals that precede them (an int64 ramp decodes
/// 3.5x faster; on other streams it costs up to 18%, hence the separate entry). Builds
/// whose lz4 lacks the patch decode with [`decompress`].
pub fn decompress_records(src: &[u8], dest: &mut [u8]) -> Option<usize> {
    #[cfg(all(lz4_near_first, not(feature = "system-codecs")))]
    return decode_with(LZ4_decompress_safe_nearFirst, src, dest);
    #[cfg(not(all(lz4_near_first, not(feature = "system-codecs"))))]
    decompress(src, dest)
}

/// [`decompress`] for a stream compressed against `dict` (see [`compress_with_dict`]).
pub fn decompress_with_dict(src: &[u8], dest: &mut [u8], dict: &[u8]) -> Option<usize> {
    if src.len() > i32::MAX as usize || dest.len() > i32::MAX as usize {
        return None;
    }
    // SAFETY: the _usingDict variant is bounds-checked like LZ4_decompress_safe; the
    // dictionary slice is only read.
    let n = unsafe {
        LZ4_decompress_safe_usingDict(
            src.as_ptr() as *const c_char,
            dest.as_mut_ptr() as *mut c_char,
            src.len() as c_int,
            dest.len() as c_int,
            dict.as_ptr() as *const c_char,
            clamp_len(dict.len()),
        )
    };
    (n >= 0).then_some(n as usize)
}

/// "MAJOR.MINOR.RELEASE" of the linked liblz4.
pub fn version() -> String {
    // SAFETY: a pure function of the library.
    let v = unsafe { lz4_api::LZ4_versionNumber() };
    format!("{}.{}.{}", v / 10000, (v / 100) % 100, v % 100)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::{records, words, Rng};

    #[test]
    fn round_trip_and_bad_input() {
        let src: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        let mut c = vec![0u8; 200_000];
        let n = compress(&src, &mut c, 1).unwrap();
        assert!(n > 0 && n < src.len());
        let mut d = vec![0u8; src.len()];
        assert_eq!(decompress(&c[..n], &mut d), Some(src.len()));
        assert_eq!(d, src);
        let mut small = vec![0u8; 10];
        assert_eq!(decompress(&c[..n], &mut small), None);
        assert_eq!(decompress(&c[..n / 2], &mut d), None);
        let nh = compress_hc(&src, &mut c, 9).unwrap();
        assert_eq!(decompress(&c[..nh], &mut d), Some(src.len()));
        // The bundled version (a system-codecs build reports the system library's).
        if cfg!(not(feature = "system-codecs")) {
            assert_eq!(version(), "1.10.0");
        }
    }

    /// The kept state writes what `LZ4_compress_HC` writes, for every level, for streams
    /// larger than LZ4's 64 KiB window, after a stream that did not fit (which leaves the
    /// state dirty) and after other data.
    #[test]
    fn kept_hc_state_writes_what_compress_hc_writes() {
        let inputs: Vec<Vec<u8>> = vec![
            (0..200_000u32).map(|i| (i % 251) as u8 ^ (i >> 11) as u8).collect(),
            (0..20_000u32).flat_map(|i| (i * 3).to_le_bytes()).collect(),
            (0..50_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8).collect(),
            (0..3_000u32).map(|i| (i / 10) as u8).collect(),
        ];
        let mut state = Lz4HcState::new();
        let mut tiny = [0u8; 16];
        for level in [9u8, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 1] {
            for src in &inputs {
                let mut a = vec![0u8; src.len() + src.len() / 200 + 64];
                let mut b = a.clone();
                let na = compress_hc(src, &mut a, level).unwrap();
                let nb = state.compress(src, &mut b, level).unwrap();
                assert!(na > 0);
                assert_eq!(&a[..na], &b[..nb], "level {level}, {} bytes", src.len());
                assert_eq!(state.compress(src, &mut tiny, level).unwrap(), 0);
            }
        }
    }

    /// lz4.c is built with scripts/lz4/near-match-first.patch (x86-64), whose decoder
    /// ([`decompress_records`]) reads short matches 8 to 15 bytes back whose first bytes
    /// precede the literals before the literals are written. Records of 8 to 15 bytes have
    /// such matches behind literals of every length (and others that start within the
    /// literals); LZ4 and LZ4HC streams of them must decode, by both decoders, to the bytes
    /// the encoder was given, into outputs of the exact size and with room to spare, and
    /// with a dictionary (the decoder's other prefix).
    #[test]
    fn near_matches_decode_exactly() {
        let inputs = [(1, 300_000, 3, 64), (2, 100_000, 6, 64), (3, 5_000, 2, 64), (4, 60_000, 3, 1)];
        for (seed, total, changed, burst_every) in inputs {
            let src = records(total, changed, burst_every, seed);
            let mut c = vec![0u8; total + total / 200 + 64];
            let n = compress(&src, &mut c, 1).unwrap();
            let mut all = vec![(c[..n].to_vec(), "lz4".to_string())];
            for level in [1, 5, 9] {
                let n = compress_hc(&src, &mut c, level).unwrap();
                all.push((c[..n].to_vec(), format!("lz4hc {level}")));
            }
            for (stream, what) in &all {
                assert!(stream.len() < total, "seed {seed} {what}: {} bytes", stream.len());
                for slack in [0, 4096] {
                    for records_first in [false, true] {
                        let decode = if records_first { decompress_records } else { decompress };
                        let mut d = vec![0xA5u8; total + slack];
                        assert_eq!(decode(stream, &mut d), Some(total), "seed {seed} {what} {records_first}");
                        assert!(d[..total] == src[..], "seed {seed} {what} slack {slack} {records_first}: wrong bytes");
                    }
                }
                let mut small = vec![0u8; total - 1];
                assert_eq!(decompress_records(stream, &mut small), None, "seed {seed} {what}: too small");
                assert_eq!(decompress_records(&stream[..stream.len() / 2], &mut vec![0u8; total]), None);
            }
            let dict = records(4096, changed, burst_every, seed + 100);
            for hc in [false, true] {
                let n = compress_with_dict(&src, &mut c, &dict, hc, 5).unwrap();
                let mut d = vec![0u8; total];
                assert_eq!(decompress_with_dict(&c[..n], &mut d, &dict), Some(total), "seed {seed} dict hc {hc}");
                assert!(d == src, "seed {seed} dict hc {hc}: wrong bytes");
            }
        }
    }

    /// Runs of one- and two-byte patterns (what level 9's pattern analysis looks for), 4 to
    /// 400 bytes long, between a few other bytes, all below 0x80.
    fn repeated_patterns(len: usize, seed: u64) -> Vec<u8> {
        let mut rng = Rng::new(seed);
        let mut out = Vec::with_capacity(len + 420);
        while out.len() < len {
            for _ in 0..1 + rng.below(12) {
                out.push(rng.below(0x80) as u8);
            }
            let a = [0, 0x20, 0x41, 0x7f][rng.below(4)];
            let b = if rng.below(2) == 0 { a } else { rng.below(0x80) as u8 };
            let run = 4 + rng.below(397);
            out.extend((0..run).map(|k| if k % 2 == 0 { a } else { b }));
        }
        out
    }

    /// lz4hc.c is built with scripts/lz4/hc-prefix-chain.patch (x86-64): a search that
    /// lies within the stream's own prefix walks the hash chain in a loop of its own, one
    /// without pattern analysis (levels 3 to 8) and one with it (level 9, in a function of
    /// its own). A stream with a dictionary takes lz4's loop while the dictionary is within
    /// reach (its first 64 KiB), and a dictionary that shares no byte with the input (bytes
    /// from 0x80 up, the input's below) changes nothing else: its positions are older than
    /// the input's, so they come last in every chain, after the input's candidates in the
    /// same order, and never match. So both must write the same bytes at every level (they
    /// do with lz4 1.10.0 unpatched).
    #[test]
    fn hc_prefix_chain_writes_what_the_dictionary_path_writes() {
        let ramp: Vec<u8> = (0..40_000u64).flat_map(|i| (i & 0x7f7f).to_le_bytes()).collect();
        let inputs = [
            ramp,
            records(200_000, 3, 64, 7),
            records(30_000, 8, 2, 8),
            words(150_000, 9),
            (0..3_000u32).map(|i| (i / 10) as u8 & 0x7f).collect(),
            repeated_patterns(60_000, 11),
        ];
        let mut rng = Rng::new(10);
        let dict: Vec<u8> = (0..65_536).map(|_| 0x80 | rng.next_u64() as u8).collect();
        for src in &inputs {
            let mut a = vec![0u8; src.len() + src.len() / 200 + 64];
            let mut b = a.clone();
            for level in 1..=12u8 {
                let na = compress_hc(src, &mut a, level).unwrap();
                let nb = compress_with_dict(src, &mut b, &dict, true, level).unwrap();
                assert!(na > 0 && na < src.len(), "level {level}, {} bytes", src.len());
                assert!(a[..na] == b[..nb], "level {level}, {} bytes: {na} and {nb} bytes written", src.len());
            }
        }
    }

    /// Level 9's pattern analysis within the prefix (scripts/lz4/hc-prefix-chain.patch)
    /// extends a run backwards only as far as LZ4's 64 KiB window. Runs of one and two bytes
    /// longer than the window (which the test above cannot reach: past the dictionary both
    /// of its streams take the new loop) must decode to themselves. A round trip only: a
    /// build that lets that extension go past the window and its distance guard as far
    /// still passes, because the encoder then keeps a nearer match of the run.
    #[test]
    fn hc_runs_longer_than_the_window_round_trip() {
        let mut runs = vec![0u8; 300_000];
        runs.extend((0..200_000u32).map(|i| if i % 2 == 0 { b'a' } else { b'b' }));
        runs.extend(repeated_patterns(20_000, 12));
        runs.extend(std::iter::repeat_n(0x7f, 150_000));
        // A run after one byte that breaks it: the first run, seen from the second, reaches
        // past the window.
        runs.push(b'x');
        runs.extend(std::iter::repeat_n(0x7f, 120_000));
        for level in [9, 10, 12] {
            let mut c = vec![0u8; runs.len() + runs.len() / 200 + 64];
            let n = compress_hc(&runs, &mut c, level).unwrap();
            assert!(n > 0 && n < runs.len() / 50, "level {level}: {n} bytes");
            let mut d = vec![0u8; runs.len()];
            assert_eq!(decompress(&c[..n], &mut d), Some(runs.len()), "level {level}");
            assert!(d == runs, "level {level}: wrong bytes");
        }
    }

    #[test]
    fn dict_round_trip() {
        let dict: Vec<u8> = (0..4096u32).map(|i| (i * 7 % 256) as u8).collect();
        let src: Vec<u8> = (0..8192u32).map(|i| (i * 7 % 256) as u8).collect();
        for hc in [false, true] {
            let mut c = vec![0u8; 10_000];
            let n = compress_with_dict(&src, &mut c, &dict, hc, 5).unwrap();
            let mut d = vec![0u8; src.len()];
            assert_eq!(decompress_with_dict(&c[..n], &mut d, &dict), Some(src.len()));
            assert_eq!(d, src);
        }
    }
}
