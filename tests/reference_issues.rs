//! Regression tests for memory-safety reports against the reference (c-blosc2 issues #639,
//! #656, #738/#795, #800, #801), with inputs built from the reports' descriptions: this
//! library must answer each with an error code (or the right data), never a read or write
//! outside the buffers it was given. Output buffers are exactly the size the API asks for,
//! with guard bytes around them.

use std::ffi::c_void;

use blosc2::ffi::abi::*;
use blosc2::ffi::context::{blosc2_compress_ctx, blosc2_create_cctx, blosc2_create_dctx, blosc2_decompress_ctx, blosc2_free_ctx};
use blosc2::ffi::global::{blosc2_compress, blosc2_decompress};
use blosc2::ffi::meta::{blosc2_meta_add, blosc2_vlmeta_add};
use blosc2::ffi::schunk::{
    blosc2_schunk_append_buffer, blosc2_schunk_append_chunk, blosc2_schunk_decompress_chunk, blosc2_schunk_free, blosc2_schunk_from_buffer,
    blosc2_schunk_new, blosc2_schunk_to_buffer,
};

const GUARD: usize = 64;

/// A buffer of `n` usable bytes between guard zones.
struct Guarded(Vec<u8>, usize);

impl Guarded {
    fn new(n: usize) -> Guarded {
        Guarded(vec![0xA5; n + 2 * GUARD], n)
    }
    fn ptr(&mut self) -> *mut c_void {
        self.0[GUARD..].as_mut_ptr() as *mut c_void
    }
    fn data(&self) -> &[u8] {
        &self.0[GUARD..GUARD + self.1]
    }
    fn assert_intact(&self, what: &str) {
        assert!(
            self.0[..GUARD].iter().all(|&x| x == 0xA5) && self.0[GUARD + self.1..].iter().all(|&x| x == 0xA5),
            "{what}: wrote outside the destination"
        );
    }
}

fn i32_at(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn set_i32(b: &mut [u8], at: usize, v: i32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// A one-block, one-stream chunk of `codec` over `src` (typesize 1, no filter).
fn one_stream_chunk(codec: i32, src: &[u8]) -> Vec<u8> {
    let mut cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.compcode = codec as u8;
    cp.clevel = 5;
    cp.typesize = 1;
    cp.filters = [0; 6];
    cp.blocksize = src.len() as i32;
    cp.splitmode = BLOSC_NEVER_SPLIT as i32;
    cp.nthreads = 1;
    let cctx = blosc2_create_cctx(cp);
    assert!(!cctx.is_null());
    let mut out = vec![0u8; src.len() + 64];
    // SAFETY: valid buffers of the lengths passed; the context is freed once.
    let n = unsafe {
        let n = blosc2_compress_ctx(cctx, src.as_ptr() as *const c_void, src.len() as i32, out.as_mut_ptr() as *mut c_void, out.len() as i32);
        blosc2_free_ctx(cctx);
        n
    };
    assert!(n > 32, "compression failed: {n}");
    out.truncate(n as usize);
    assert_eq!(out[2] & 0x02, 0, "the chunk must not be memcpyed");
    assert_eq!(i32_at(&out, 8), src.len() as i32, "one block");
    out
}

/// Replaces the single stream of a one-block chunk by `payload` (with a csize of `csize`).
fn with_stream(chunk: &[u8], payload: &[u8], csize: i32) -> Vec<u8> {
    let start = i32_at(chunk, 32) as usize;
    let mut c = chunk[..start].to_vec();
    c.extend_from_slice(&csize.to_le_bytes());
    c.extend_from_slice(payload);
    let len = c.len() as i32;
    set_i32(&mut c, 12, len);
    c
}

/// Decompresses `chunk` with 1 and 2 threads into exact-size guarded buffers; returns the
/// codes.
fn decompress_guarded(chunk: &[u8], nbytes: usize, what: &str) -> Vec<i32> {
    let mut codes = Vec::new();
    for nthreads in [1i16, 2] {
        let mut dp = BLOSC2_DPARAMS_DEFAULTS;
        dp.nthreads = nthreads;
        let dctx = blosc2_create_dctx(dp);
        let mut out = Guarded::new(nbytes);
        // SAFETY: the chunk and the destination are valid for the lengths passed.
        let rc = unsafe {
            let rc = blosc2_decompress_ctx(dctx, chunk.as_ptr() as *const c_void, chunk.len() as i32, out.ptr(), nbytes as i32);
            blosc2_free_ctx(dctx);
            rc
        };
        out.assert_intact(what);
        assert!(rc <= nbytes as i32, "{what}: claims {rc} bytes of {nbytes}");
        codes.push(rc);
    }
    codes
}

/// #801 (and c-blosc #405): a BloscLZ long match whose length bytes are ~8.4 million 0xFF,
/// enough to wrap a 32-bit length negative and slip past the reference's bounds check.
#[test]
fn issue_801_blosclz_match_length_overflow() {
    let chunk = one_stream_chunk(BLOSC_BLOSCLZ as i32, &[b'A'; 256]);
    // One literal, then a long match (ctrl >> 5 == 7, distance 1) whose length runs on.
    let mut payload = vec![0x00, b'A', 0xE0];
    payload.extend(std::iter::repeat_n(0xFFu8, 8_421_510));
    payload.extend_from_slice(&[0x00, 0x00]);
    let crafted = with_stream(&chunk, &payload, payload.len() as i32);
    for rc in decompress_guarded(&crafted, 256, "#801") {
        assert!(rc < 0, "#801: a match longer than the block must fail, got {rc}");
    }
}

/// #639: a zlib stream in a frame's chunk that runs past the chunk (inflate read beyond the
/// chunk buffer in the reference): a stream size pointing past the end, and a stream cut
/// short with consistent sizes.
#[test]
fn issue_639_zlib_stream_past_the_chunk() {
    let src: Vec<u8> = (0..20000u32).map(|i| (i % 251) as u8 ^ (i / 97) as u8).collect();
    let chunk = one_stream_chunk(BLOSC_ZLIB as i32, &src);
    let start = i32_at(&chunk, 32) as usize;
    let csize = i32_at(&chunk, start);
    // The stream claims 1000 bytes more than the chunk has.
    let mut long = chunk.clone();
    set_i32(&mut long, start, csize + 1000);
    // The stream is cut in half, sizes consistent.
    let half = &chunk[start + 4..start + 4 + csize as usize / 2];
    let cut = with_stream(&chunk, half, half.len() as i32);
    for (what, c) in [("#639 long csize", &long), ("#639 cut stream", &cut)] {
        for rc in decompress_guarded(c, src.len(), what) {
            assert!(rc < 0, "{what}: got {rc}");
        }
        // The same chunk inside a frame (appended as it is), read through the super-chunk.
        let mut cp = BLOSC2_CPARAMS_DEFAULTS;
        cp.typesize = 1;
        cp.compcode = BLOSC_ZLIB as u8;
        let mut st = blosc2_storage { contiguous: true, cparams: &mut cp, ..BLOSC2_STORAGE_DEFAULTS };
        // SAFETY: C API calls on valid arguments; each super-chunk is freed once.
        unsafe {
            let sc = blosc2_schunk_new(&mut st);
            assert!(!sc.is_null());
            let mut damaged = c.clone();
            let appended = blosc2_schunk_append_chunk(sc, damaged.as_mut_ptr(), true);
            let mut p: *mut u8 = std::ptr::null_mut();
            let mut needs_free = false;
            let n = blosc2_schunk_to_buffer(sc, &mut p, &mut needs_free);
            assert!(n > 0);
            let mut frame = std::slice::from_raw_parts(p, n as usize).to_vec();
            if needs_free {
                libc::free(p as *mut c_void);
            }
            blosc2_schunk_free(sc);
            let sc = blosc2_schunk_from_buffer(frame.as_mut_ptr(), frame.len() as i64, true);
            assert_eq!(appended, 1, "{what}: the super-chunk takes the chunk as it is");
            assert!(!sc.is_null(), "{what}: the frame reopens (the damage is inside the chunk)");
            {
                let mut out = Guarded::new(src.len());
                let rc = blosc2_schunk_decompress_chunk(sc, 0, out.ptr(), src.len() as i32);
                out.assert_intact(what);
                assert!(rc < 0, "{what} in a frame: got {rc}");
            }
            if !sc.is_null() {
                blosc2_schunk_free(sc);
            }
        }
    }
}

/// #656: compressing into a destination too small for the header and block-start table
/// wrote past it in the reference; every destination size from 0 up must be respected.
#[test]
fn issue_656_compress_into_a_tiny_destination() {
    let src: Vec<u8> = (0..4096u32).map(|i| (i * 7 % 13) as u8).collect();
    let mut cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4;
    cp.blocksize = 64; // 64 blocks: a 256-byte block-start table
    cp.nthreads = 1;
    for nthreads in [1i16, 2] {
        cp.nthreads = nthreads;
        let cctx = blosc2_create_cctx(cp);
        for dsize in (0..64).chain([100, 200, 287, 288, 289, 300]) {
            let mut out = Guarded::new(dsize);
            // SAFETY: the source and the destination are valid for the lengths passed.
            let rc = unsafe { blosc2_compress_ctx(cctx, src.as_ptr() as *const c_void, src.len() as i32, out.ptr(), dsize as i32) };
            out.assert_intact(&format!("#656 destsize {dsize}"));
            assert!(rc <= dsize as i32, "#656: {rc} bytes claimed in a {dsize}-byte destination");
            if rc > 0 {
                let mut back = Guarded::new(src.len());
                // SAFETY: valid buffers.
                let d = unsafe { blosc2_decompress(out.data().as_ptr() as *const c_void, rc, back.ptr(), src.len() as i32) };
                assert_eq!(d, src.len() as i32);
                assert_eq!(back.data(), &src[..]);
            }
        }
        // SAFETY: freed once.
        unsafe { blosc2_free_ctx(cctx) };
        // The global entry point too.
        for dsize in 0..48 {
            let mut out = Guarded::new(dsize);
            // SAFETY: valid buffers.
            let rc = unsafe { blosc2_compress(5, 1, 4, src.as_ptr() as *const c_void, src.len() as i32, out.ptr(), dsize as i32) };
            out.assert_intact("#656 blosc2_compress");
            assert!(rc <= dsize as i32);
        }
    }
}

/// #738 / #795 (frame parsing): metalayer and vlmetalayer lengths of `INT32_MAX`, a
/// trailer vlmetalayer count of 0xffff, and chunk offsets past the frame must be refused
/// (or read within bounds), as must the same damage anywhere in the header.
#[test]
fn issues_738_795_crafted_frame_metadata() {
    let mut cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4;
    let mut st = blosc2_storage { contiguous: true, cparams: &mut cp, ..BLOSC2_STORAGE_DEFAULTS };
    let src: Vec<u8> = (0..8000u32).flat_map(|i| i.to_le_bytes()).collect();
    // SAFETY: C API calls on valid arguments; the frame is copied before the free.
    let frame = unsafe {
        let sc = blosc2_schunk_new(&mut st);
        let mut meta = *b"metalayer-content";
        assert!(blosc2_meta_add(sc, c"mymeta".as_ptr(), meta.as_mut_ptr(), meta.len() as i32) >= 0);
        for _ in 0..3 {
            assert!(blosc2_schunk_append_buffer(sc, src.as_ptr() as *const c_void, src.len() as i32) > 0);
        }
        let mut vl = *b"variable-length";
        assert!(blosc2_vlmeta_add(sc, c"myvl".as_ptr(), vl.as_mut_ptr(), vl.len() as i32, std::ptr::null_mut()) >= 0);
        let mut p: *mut u8 = std::ptr::null_mut();
        let mut needs_free = false;
        let n = blosc2_schunk_to_buffer(sc, &mut p, &mut needs_free);
        let f = std::slice::from_raw_parts(p, n as usize).to_vec();
        if needs_free {
            libc::free(p as *mut c_void);
        }
        blosc2_schunk_free(sc);
        f
    };
    let mut variants: Vec<(String, Vec<u8>)> = Vec::new();
    // Every msgpack bin32/str32/int32 size field (marker 0xc6, 0xdb, 0xd2, 0xce), set to the
    // boundary values; every map16 count (0xde) set to 0xffff.
    for i in 0..frame.len().saturating_sub(5) {
        match frame[i] {
            0xc6 | 0xdb | 0xd2 | 0xce => {
                for v in [i32::MAX, i32::MAX - 2, -1, i32::MIN, frame.len() as i32] {
                    let mut f = frame.clone();
                    f[i + 1..i + 5].copy_from_slice(&v.to_be_bytes());
                    variants.push((format!("size field @{i} = {v}"), f));
                }
            }
            0xde => {
                let mut f = frame.clone();
                f[i + 1..i + 3].copy_from_slice(&[0xff, 0xff]);
                variants.push((format!("map16 count @{i} = 0xffff"), f));
            }
            _ => {}
        }
    }
    assert!(variants.len() > 20);
    for (what, mut f) in variants {
        // SAFETY: a valid buffer; copy = true; the super-chunk is freed once.
        unsafe {
            let sc = blosc2_schunk_from_buffer(f.as_mut_ptr(), f.len() as i64, true);
            if sc.is_null() {
                continue;
            }
            for n in 0..(*sc).nchunks.clamp(0, 8) {
                let mut out = Guarded::new(src.len());
                let rc = blosc2_schunk_decompress_chunk(sc, n, out.ptr(), src.len() as i32);
                out.assert_intact(&what);
                assert!(rc <= src.len() as i32, "{what}: chunk {n} claims {rc}");
            }
            for i in 0..((*sc).nmetalayers as usize).min(16) {
                let m = (*sc).metalayers[i];
                if !m.is_null() && (*m).content_len > 0 {
                    // Every byte the library claims to hold must be readable.
                    let s = std::slice::from_raw_parts((*m).content, (*m).content_len as usize);
                    std::hint::black_box(s.iter().fold(0u8, |a, &x| a ^ x));
                }
            }
            assert!((*sc).nvlmetalayers >= 0, "{what}: negative vlmetalayer count");
            blosc2_schunk_free(sc);
        }
    }
}

/// #800: ZFP fixed rate (codec 35) with meta 255 (the highest rate), don't-split, and a
/// one-byte block payload: the reference's decoder read 8-byte words past the chunk. Here
/// the stream is decoded from a padded copy and a decode that runs into the padding is an
/// error.
#[test]
fn issue_800_zfp_rate_one_byte_payload() {
    let (shape, chunk, block) = ([16i64, 16], [16i32, 16], [8i32, 8]);
    let mut cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 8;
    cp.compcode = 35;
    cp.compcode_meta = 255;
    cp.filters = [0; 6];
    cp.splitmode = BLOSC_NEVER_SPLIT as i32;
    cp.blocksize = 8 * 8 * 8;
    cp.nthreads = 1;
    let content = blosc2::b2nd::meta::encode(&shape, &chunk, &block, b"<f8", 0).unwrap();
    let mut st = blosc2_storage { contiguous: false, cparams: &mut cp, ..BLOSC2_STORAGE_DEFAULTS };
    let data: Vec<u8> = (0..256).flat_map(|i| ((i as f64) * 0.25).sin().to_le_bytes()).collect();
    // SAFETY: C API calls on valid arguments; everything is freed once.
    unsafe {
        let sc = blosc2_schunk_new(&mut st);
        assert!(!sc.is_null());
        assert!(blosc2_meta_add(sc, c"b2nd".as_ptr(), content.as_ptr() as *mut u8, content.len() as i32) >= 0);
        cp.schunk = sc as *mut c_void;
        let cctx = blosc2_create_cctx(cp);
        let mut dp = BLOSC2_DPARAMS_DEFAULTS;
        dp.schunk = sc as *mut c_void;
        dp.nthreads = 1;
        let dctx = blosc2_create_dctx(dp);
        assert!(!cctx.is_null() && !dctx.is_null());
        let mut out = vec![0u8; data.len() + 64 + 4096];
        let n = blosc2_compress_ctx(cctx, data.as_ptr() as *const c_void, data.len() as i32, out.as_mut_ptr() as *mut c_void, out.len() as i32);
        assert!(n > 0, "ZFP rate compression failed: {n}");
        out.truncate(n as usize);
        // Every block's stream cut to one byte (block starts rewritten accordingly).
        let nblocks = (i32_at(&out, 4) as usize).div_ceil(i32_at(&out, 8) as usize);
        let hlen = 32 + 4 * nblocks;
        let mut crafted = out[..hlen].to_vec();
        for j in 0..nblocks {
            let pos = crafted.len() as i32;
            set_i32(&mut crafted, 32 + 4 * j, pos);
            crafted.extend_from_slice(&1i32.to_le_bytes());
            crafted.push(0xFF);
        }
        let len = crafted.len() as i32;
        set_i32(&mut crafted, 12, len);
        // The chunk sits alone in its own allocation, so a read past it is a read past
        // the heap block (the test runs under valgrind in scripts/valgrind.sh).
        let boxed: Box<[u8]> = crafted.into_boxed_slice();
        let mut dest = Guarded::new(data.len());
        let rc = blosc2_decompress_ctx(dctx, boxed.as_ptr() as *const c_void, boxed.len() as i32, dest.ptr(), data.len() as i32);
        dest.assert_intact("#800");
        assert!(rc < 0, "#800: a stream shorter than its fixed rate must fail, got {rc}");
        blosc2_free_ctx(cctx);
        blosc2_free_ctx(dctx);
        blosc2_schunk_free(sc);
    }
}
