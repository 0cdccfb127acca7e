//! The logic of every fuzz target, shared by the cargo-fuzz binaries (fuzz_targets/*.rs) and
//! by the corpus replay test (tests/fuzz_corpus.rs), so it exists once.
//!
//! Each target reads a few control bytes from the front of its input, then hands the rest to
//! the library's C-ABI functions (called as Rust functions). Checks made on every input:
//! - no panic (under libFuzzer the panic hook aborts, even for panics the library's own
//!   panic boundary catches; the replay test counts them with its own hook);
//! - every destination buffer is surrounded by guard bytes, which must stay untouched;
//! - return codes are in range (never more bytes than the destination holds);
//! - when two ways of decoding the same chunk both succeed, they agree (1 vs 2 threads,
//!   context vs global decompression, getitem vs full decompression, one VL block vs all);
//! - a compressed chunk decompresses back to its source (where the reference's would: see
//!   `lossless`).
//!
//! Input layouts (all integers little-endian; missing control bytes read as 0):
//!
//! ```text
//! - decompress: 8 control bytes, then the chunk (`srcsize` = its exact length).
//!     [0] bit0: nthreads 2 (else 1); bits1-2: dest-size mode (0 = header nbytes,
//!         1 = nbytes - delta, 2 = nbytes + delta, 3 = delta); bit3: also decompress with
//!         the other thread count and compare; bit4: also call the global blosc2_decompress;
//!         bits5-6: getitem dest-size mode (same meanings, on nitems * typesize)
//!     [1..3] u16 delta  [3..5] i16 getitem start  [5..7] i16 getitem nitems  [7] unused
//! - compress: 24 control bytes, then the data to compress.
//!     [0] codec (< 240: one of 0,1,2,4,5; else an invalid id)  [1] clevel % 11
//!     [2..4] u16 typesize % 301  [4..10] filters  [10..16] filters_meta
//!     [16] blocksize mode (% 4: 0 auto, 1 = u16 [17..19], 2 = u16 << 4, 3 = i16 * 64,
//!          negative too)  [17..19] blocksize bits  [19] splitmode % 6
//!     [20] bit0: nthreads 2; bit1: use_dict; bits2-3: dest-size mode (0 = srcsize + 32,
//!          1 = srcsize + 32 - delta, 2 = delta, 3 = srcsize + 32 + delta); bit4: decompress
//!          with the other thread count; bit5: compcode_meta = [23]
//!     [21..23] u16 delta  [23] compcode_meta
//! - vlblocks: 4 control bytes, then the chunk.
//!     [0] bit0: nthreads 2; bit1: also plain-decompress the chunk  [1] maxblocks
//!         (255 = as many as the header says, capped)  [2..4] i16 block index
//! - lz4: 3 control bytes, then one LZ4 block (no blosc2 header).
//!     [0..3] u24 output size, modulo MAX_DEST + 1
//! ```
#![allow(dead_code)]

use std::ffi::c_void;

use blosc2::ffi::abi::*;
use blosc2::ffi::chunk::{
    blosc1_cbuffer_metainfo, blosc1_cbuffer_validate, blosc2_cbuffer_complib, blosc2_cbuffer_sizes,
    blosc2_cbuffer_versions, blosc2_getitem, blosc2_vlchunk_get_nblocks, blosc2_vldecompress_block_ctx,
    blosc2_vldecompress_ctx,
};
use blosc2::ffi::context::{
    blosc2_compress_ctx, blosc2_create_cctx, blosc2_create_dctx, blosc2_decompress_ctx, blosc2_free_ctx,
    blosc2_getitem_ctx,
};
use blosc2::ffi::global::blosc2_decompress;

/// Largest destination buffer a target allocates.
pub const MAX_DEST: usize = 1 << 20;
/// Largest source a compress input may hold (more is ignored).
pub const MAX_SRC: usize = 1 << 20;
const GUARD_LEN: usize = 64;
const GUARD: u8 = 0xA5;
/// What the inside of a destination holds before a call (equal for every buffer, so two
/// decodes of an uninitialised-special chunk compare equal).
const FILL: u8 = 0xCC;

pub const DECOMPRESS_CTL: usize = 8;
pub const COMPRESS_CTL: usize = 24;
pub const VLBLOCKS_CTL: usize = 4;
pub const LZ4_CTL: usize = 3;

/// Control bytes read from the front of an input; 0 once exhausted.
pub struct Ctl<'a>(&'a [u8]);

impl<'a> Ctl<'a> {
    pub fn split(data: &'a [u8], n: usize) -> (Ctl<'a>, &'a [u8]) {
        let n = n.min(data.len());
        (Ctl(&data[..n]), &data[n..])
    }
    pub fn u8(&self, i: usize) -> u8 {
        self.0.get(i).copied().unwrap_or(0)
    }
    pub fn u16(&self, i: usize) -> u16 {
        u16::from_le_bytes([self.u8(i), self.u8(i + 1)])
    }
    pub fn i16(&self, i: usize) -> i16 {
        self.u16(i) as i16
    }
    pub fn i32(&self, i: usize) -> i32 {
        i32::from_le_bytes([self.u8(i), self.u8(i + 1), self.u8(i + 2), self.u8(i + 3)])
    }
}

/// A destination buffer with `GUARD_LEN` guard bytes on each side.
pub struct Guarded {
    buf: Vec<u8>,
    len: usize,
}

impl Guarded {
    pub fn new(len: usize) -> Guarded {
        let mut buf = vec![GUARD; len + 2 * GUARD_LEN];
        buf[GUARD_LEN..GUARD_LEN + len].fill(FILL);
        Guarded { buf, len }
    }
    pub fn ptr(&mut self) -> *mut c_void {
        // SAFETY: GUARD_LEN < buf.len().
        unsafe { self.buf.as_mut_ptr().add(GUARD_LEN) as *mut c_void }
    }
    pub fn size(&self) -> i32 {
        self.len as i32
    }
    pub fn data(&self) -> &[u8] {
        &self.buf[GUARD_LEN..GUARD_LEN + self.len]
    }
    /// Panics if a guard byte changed.
    pub fn check(&self, what: &str) {
        let before = self.buf[..GUARD_LEN].iter().position(|&b| b != GUARD);
        let after = self.buf[GUARD_LEN + self.len..].iter().position(|&b| b != GUARD);
        assert!(
            before.is_none() && after.is_none(),
            "{what}: guard bytes overwritten (dest size {}, first bad byte before: {:?} from the start of the guard, after: {:?} past the end)",
            self.len,
            before,
            after
        );
    }
}

fn header_i32(chunk: &[u8], at: usize) -> i32 {
    if chunk.len() >= at + 4 {
        i32::from_le_bytes(chunk[at..at + 4].try_into().unwrap())
    } else {
        0
    }
}

/// A destination size from a base, a mode and a delta, within 0..=MAX_DEST.
fn dest_size(base: i64, mode: u8, delta: u16) -> usize {
    let d = delta as i64;
    let v = match mode & 3 {
        0 => base,
        1 => base - d,
        2 => base + d,
        _ => d,
    };
    v.clamp(0, MAX_DEST as i64) as usize
}

struct Dctx(*mut blosc2_context);

impl Dctx {
    fn new(nthreads: i16) -> Dctx {
        let mut dp = BLOSC2_DPARAMS_DEFAULTS;
        dp.nthreads = nthreads;
        let c = blosc2_create_dctx(dp);
        assert!(!c.is_null(), "blosc2_create_dctx returned NULL");
        Dctx(c)
    }
}

impl Drop for Dctx {
    fn drop(&mut self) {
        // SAFETY: created by blosc2_create_dctx/cctx, freed once.
        unsafe { blosc2_free_ctx(self.0) };
    }
}

/// Decompress `chunk` with a fresh context into a guarded buffer of `dsize` bytes.
fn decompress_with(chunk: &[u8], nthreads: i16, dsize: usize, what: &str) -> (i32, Guarded) {
    let ctx = Dctx::new(nthreads);
    let mut out = Guarded::new(dsize);
    // SAFETY: chunk readable for its length; out writable for its size.
    let rc = unsafe { blosc2_decompress_ctx(ctx.0, chunk.as_ptr() as *const c_void, chunk.len() as i32, out.ptr(), out.size()) };
    out.check(what);
    assert!(rc <= out.size(), "{what}: returned {rc} > dest size {}", out.size());
    (rc, out)
}

/// The header inspectors (each reads 16 bytes, so only called on inputs that long).
fn inspect(chunk: &[u8]) -> Option<usize> {
    if chunk.len() < 16 {
        return None;
    }
    let p = chunk.as_ptr() as *const c_void;
    let (mut nbytes, mut cbytes, mut blocksize) = (0i32, 0i32, 0i32);
    let mut vnbytes = usize::MAX;
    let (mut ts, mut flags, mut v, mut vlz) = (0usize, 0i32, 0i32, 0i32);
    // SAFETY: 16 readable bytes (and chunk.len() for validate); out pointers are locals.
    unsafe {
        let rc = blosc2_cbuffer_sizes(p, &mut nbytes, &mut cbytes, &mut blocksize);
        assert!(rc <= 0, "blosc2_cbuffer_sizes returned {rc}");
        let rcv = blosc1_cbuffer_validate(p, chunk.len(), &mut vnbytes);
        assert!(rcv <= 0, "blosc1_cbuffer_validate returned {rcv}");
        blosc1_cbuffer_metainfo(p, &mut ts, &mut flags);
        blosc2_cbuffer_versions(p, &mut v, &mut vlz);
        let name = blosc2_cbuffer_complib(p);
        if !name.is_null() {
            let _ = std::ffi::CStr::from_ptr(name).to_bytes().len();
        }
        if rcv == 0 {
            assert!(rc == 0, "validate accepted a chunk blosc2_cbuffer_sizes rejected ({rc})");
            assert_eq!(vnbytes, nbytes as usize, "validate's nbytes differs from blosc2_cbuffer_sizes'");
            Some(vnbytes)
        } else {
            assert_eq!(vnbytes, 0, "validate failed ({rcv}) but set nbytes = {vnbytes}");
            None
        }
    }
}

/// Target `decompress`.
pub fn fuzz_decompress(data: &[u8]) {
    let (ctl, chunk) = Ctl::split(data, DECOMPRESS_CTL);
    let c0 = ctl.u8(0);
    let nthreads: i16 = if c0 & 1 != 0 { 2 } else { 1 };
    let delta = ctl.u16(1);
    let nbytes = header_i32(chunk, 4) as i64;
    let typesize = chunk.get(3).copied().unwrap_or(0) as i64;
    let dsize = dest_size(nbytes, c0 >> 1, delta);

    inspect(chunk);

    let (rc, full) = decompress_with(chunk, nthreads, dsize, "blosc2_decompress_ctx");
    if rc > 0 {
        assert_eq!(rc as i64, nbytes, "blosc2_decompress_ctx succeeded with {rc} bytes but the header says nbytes = {nbytes}");
    }

    if c0 & 8 != 0 {
        let other = if nthreads == 1 { 2 } else { 1 };
        let (rc2, full2) = decompress_with(chunk, other, dsize, "blosc2_decompress_ctx (other nthreads)");
        if rc > 0 && rc2 > 0 {
            assert_eq!(rc, rc2, "nthreads {nthreads} and {other} return different sizes");
            assert!(full.data() == full2.data(), "nthreads {nthreads} and {other} decode differently");
        }
    }

    if c0 & 16 != 0 {
        let mut out = Guarded::new(dsize);
        // SAFETY: chunk readable for its length; out writable for its size.
        let rcg = unsafe { blosc2_decompress(chunk.as_ptr() as *const c_void, chunk.len() as i32, out.ptr(), out.size()) };
        out.check("blosc2_decompress");
        assert!(rcg <= out.size(), "blosc2_decompress returned {rcg} > dest size {}", out.size());
        if rc > 0 && rcg > 0 {
            assert_eq!(rc, rcg, "blosc2_decompress and blosc2_decompress_ctx return different sizes");
            assert!(full.data() == out.data(), "blosc2_decompress and blosc2_decompress_ctx decode differently");
        }
    }

    // getitem, with a context and without.
    let start = ctl.i16(3) as i32;
    let nitems = ctl.i16(5) as i32;
    let gsize = dest_size(nitems as i64 * typesize, c0 >> 5, delta);
    let ctx = Dctx::new(nthreads);
    let mut g1 = Guarded::new(gsize);
    // SAFETY: chunk readable for its length; g1 writable for its size.
    let r1 = unsafe { blosc2_getitem_ctx(ctx.0, chunk.as_ptr() as *const c_void, chunk.len() as i32, start, nitems, g1.ptr(), g1.size()) };
    g1.check("blosc2_getitem_ctx");
    assert!(r1 <= g1.size(), "blosc2_getitem_ctx returned {r1} > dest size {}", g1.size());
    let mut g2 = Guarded::new(gsize);
    // SAFETY: as above.
    let r2 = unsafe { blosc2_getitem(chunk.as_ptr() as *const c_void, chunk.len() as i32, start, nitems, g2.ptr(), g2.size()) };
    g2.check("blosc2_getitem");
    assert!(r2 <= g2.size(), "blosc2_getitem returned {r2} > dest size {}", g2.size());
    if r1 > 0 && r2 > 0 {
        assert_eq!(r1, r2, "blosc2_getitem and blosc2_getitem_ctx return different sizes");
        assert!(g1.data()[..r1 as usize] == g2.data()[..r1 as usize], "blosc2_getitem and blosc2_getitem_ctx differ");
    }
    if r1 > 0 && rc > 0 && start >= 0 {
        let from = start as usize * typesize as usize;
        let to = from + r1 as usize;
        assert!(to <= rc as usize, "getitem returned items [{from}, {to}) past the chunk's {rc} bytes");
        assert!(
            g1.data()[..r1 as usize] == full.data()[from..to],
            "blosc2_getitem_ctx(start {start}, nitems {nitems}) differs from the full decompression"
        );
    }

    // A plain chunk is not a VL-block one; either way this must not misbehave.
    let mut nb = -12345i32;
    // SAFETY: chunk readable for its length.
    let rv = unsafe { blosc2_vlchunk_get_nblocks(chunk.as_ptr() as *const c_void, chunk.len() as i32, &mut nb) };
    if rv < 0 {
        assert_eq!(nb, -12345, "blosc2_vlchunk_get_nblocks failed ({rv}) but wrote nblocks");
    }
}

/// Whether a pipeline must give the source back: every pipeline but trunc_prec (lossy).
/// Delta anywhere, and any number of deltas, round-trips here; the reference's own round
/// trip breaks with delta in pipelines of three or more filters (README, reference defects).
pub fn lossless(filters: &[u8; 6]) -> bool {
    !filters.contains(&(BLOSC_TRUNC_PREC as u8))
}

/// What a `compress` input asks for.
pub struct CompressCase<'a> {
    pub cparams: blosc2_cparams,
    /// Destination size for the compressed chunk.
    pub dsize: usize,
    /// Threads for the decompression that checks the round trip.
    pub dthreads: i16,
    pub src: &'a [u8],
}

/// Parse a `compress` input (layout at the top of this file).
pub fn compress_case(data: &[u8]) -> CompressCase<'_> {
    let (ctl, src) = Ctl::split(data, COMPRESS_CTL);
    let src = &src[..src.len().min(MAX_SRC)];
    let mut cp = BLOSC2_CPARAMS_DEFAULTS;
    let b0 = ctl.u8(0);
    cp.compcode = if b0 < 240 { [0u8, 1, 2, 4, 5][b0 as usize % 5] } else { [3u8, 6, 7, 31, 32, 159, 160, 255][b0 as usize % 8] };
    cp.clevel = ctl.u8(1) % 11;
    cp.typesize = (ctl.u16(2) % 301) as i32;
    for i in 0..6 {
        let f = ctl.u8(4 + i);
        cp.filters[i] = match f {
            0..=223 => [0u8, 0, 1, 2, 3, 4][f as usize % 6],
            224..=239 => f - 224 + 5,
            _ => f,
        };
        cp.filters_meta[i] = ctl.u8(10 + i);
    }
    cp.blocksize = match ctl.u8(16) % 4 {
        0 => 0,
        1 => ctl.u16(17) as i32,
        2 => (ctl.u16(17) as i32) << 4,
        _ => ctl.i16(17) as i32 * 64,
    };
    cp.splitmode = (ctl.u8(19) % 6) as i32;
    let b20 = ctl.u8(20);
    cp.nthreads = if b20 & 1 != 0 { 2 } else { 1 };
    cp.use_dict = ((b20 >> 1) & 1) as i32;
    if b20 & 32 != 0 {
        cp.compcode_meta = ctl.u8(23);
    }
    let delta = ctl.u16(21);
    let dsize = dest_size(src.len() as i64 + BLOSC2_MAX_OVERHEAD as i64, b20 >> 2, delta);
    let dsize = dsize.min(MAX_SRC + BLOSC2_MAX_OVERHEAD as usize);
    let dthreads = if b20 & 16 != 0 { 3 - cp.nthreads } else { cp.nthreads };
    CompressCase { cparams: cp, dsize, dthreads, src }
}

/// Target `compress`.
pub fn fuzz_compress(data: &[u8]) {
    let CompressCase { cparams: cp, dsize, dthreads: dn, src } = compress_case(data);
    let cctx = blosc2_create_cctx(cp);
    if cctx.is_null() {
        return; // rejected parameters
    }
    let cctx = Dctx(cctx);
    let mut out = Guarded::new(dsize);
    // SAFETY: src readable for its length; out writable for its size.
    let rc = unsafe { blosc2_compress_ctx(cctx.0, src.as_ptr() as *const c_void, src.len() as i32, out.ptr(), out.size()) };
    out.check("blosc2_compress_ctx");
    assert!(rc <= out.size(), "blosc2_compress_ctx returned {rc} > dest size {}", out.size());
    if rc <= 0 {
        return;
    }
    let chunk = &out.data()[..rc as usize];
    assert!(rc >= 16, "blosc2_compress_ctx wrote a {rc}-byte chunk");
    assert_eq!(inspect(chunk), Some(src.len()), "our own chunk does not validate (nbytes {})", src.len());
    let (mut nbytes, mut cbytes, mut blocksize) = (0i32, 0i32, 0i32);
    // SAFETY: 16 readable bytes; out pointers are locals.
    unsafe { blosc2_cbuffer_sizes(chunk.as_ptr() as *const c_void, &mut nbytes, &mut cbytes, &mut blocksize) };
    assert_eq!(cbytes, rc, "header cbytes differs from the size compress returned");

    let (drc, back) = decompress_with(chunk, dn, src.len(), "blosc2_decompress_ctx of our chunk");
    assert_eq!(drc as usize, src.len(), "our chunk does not decompress (returned {drc})");
    if lossless(&cp.filters) {
        assert!(back.data() == src, "round trip differs from the source");
    }
}

const SENTINEL: usize = 0x5EED_0000;

/// Target `vlblocks`.
pub fn fuzz_vlblocks(data: &[u8]) {
    let (ctl, chunk) = Ctl::split(data, VLBLOCKS_CTL);
    let c0 = ctl.u8(0);
    let nthreads: i16 = if c0 & 1 != 0 { 2 } else { 1 };
    let ctx = Dctx::new(nthreads);
    let src = chunk.as_ptr() as *const c_void;
    let srcsize = chunk.len() as i32;

    let mut nb = -12345i32;
    // SAFETY: chunk readable for its length.
    let rn = unsafe { blosc2_vlchunk_get_nblocks(src, srcsize, &mut nb) };
    if rn < 0 {
        assert_eq!(nb, -12345, "blosc2_vlchunk_get_nblocks failed ({rn}) but wrote nblocks");
    } else {
        assert!(nb >= 0, "blosc2_vlchunk_get_nblocks gave {nb} blocks");
    }

    let maxblocks: i32 = match ctl.u8(1) {
        255 if rn >= 0 => nb.clamp(0, 4096),
        m => m as i32,
    };
    let n = maxblocks as usize + 8;
    let mut dests: Vec<*mut c_void> = vec![SENTINEL as *mut c_void; n];
    let mut sizes: Vec<i32> = vec![-7777; n];
    // SAFETY: chunk readable; the arrays hold maxblocks (+ 8 guard) entries.
    let rc = unsafe { blosc2_vldecompress_ctx(ctx.0, src, srcsize, dests.as_mut_ptr(), sizes.as_mut_ptr(), maxblocks) };
    let filled = rc.max(0) as usize;
    assert!(rc <= maxblocks, "blosc2_vldecompress_ctx returned {rc} blocks > maxblocks {maxblocks}");
    for i in filled..n {
        assert!(
            dests[i] as usize == SENTINEL && sizes[i] == -7777,
            "blosc2_vldecompress_ctx returned {rc} but wrote entry {i} (maxblocks {maxblocks})"
        );
    }
    let mut blocks: Vec<Vec<u8>> = Vec::with_capacity(filled);
    for i in 0..filled {
        assert!(!dests[i].is_null() && sizes[i] >= 0, "block {i}: NULL buffer or negative size {}", sizes[i]);
        // SAFETY: the library malloc'ed sizes[i] bytes for us; freed once with free().
        unsafe {
            blocks.push(std::slice::from_raw_parts(dests[i] as *const u8, sizes[i] as usize).to_vec());
            libc::free(dests[i]);
        }
    }
    if rc >= 0 && rn >= 0 {
        assert_eq!(rc, nb, "blosc2_vldecompress_ctx gave {rc} blocks, blosc2_vlchunk_get_nblocks says {nb}");
    }

    // One block at a time: the first few, and the one the input names.
    let mut wanted: Vec<i32> = (0..filled.min(8) as i32).collect();
    wanted.push(ctl.i16(2) as i32);
    for j in wanted {
        let mut p: *mut u8 = SENTINEL as *mut u8;
        let mut sz = -7777i32;
        // SAFETY: chunk readable; out pointers are locals.
        let r = unsafe { blosc2_vldecompress_block_ctx(ctx.0, src, srcsize, j, &mut p, &mut sz) };
        if r < 0 {
            assert!(p as usize == SENTINEL || p.is_null(), "blosc2_vldecompress_block_ctx failed ({r}) but returned a buffer");
            continue;
        }
        assert!(!p.is_null() && p as usize != SENTINEL, "blosc2_vldecompress_block_ctx({j}) returned {r} without a buffer");
        assert_eq!(r, sz, "blosc2_vldecompress_block_ctx({j}) returned {r} but destsize {sz}");
        // SAFETY: malloc'ed by the library for sz bytes; freed once.
        let b = unsafe {
            let v = std::slice::from_raw_parts(p, sz as usize).to_vec();
            libc::free(p as *mut c_void);
            v
        };
        if (j as usize) < blocks.len() {
            assert!(b == blocks[j as usize], "block {j} alone differs from block {j} of blosc2_vldecompress_ctx");
        }
    }

    if c0 & 2 != 0 {
        let dsize = dest_size(header_i32(chunk, 4) as i64, 0, 0);
        let _ = decompress_with(chunk, nthreads, dsize, "blosc2_decompress_ctx of a VL-block chunk");
    }
}

/// Target `frame`: the input is a contiguous frame (no control bytes). Open it as a
/// super-chunk from a copy of the buffer, then read everything it claims to hold: every chunk
/// (decompressed into a guarded buffer of the size the chunk header states, capped), every
/// metalayer and vlmetalayer, and serialise it back.
pub fn fuzz_frame(data: &[u8]) {
    use blosc2::ffi::meta::{blosc2_meta_add, blosc2_vlmeta_get, blosc2_vlmeta_get_names};
    use blosc2::ffi::schunk::{
        blosc2_schunk_decompress_chunk, blosc2_schunk_free, blosc2_schunk_from_buffer, blosc2_schunk_get_chunk,
        blosc2_schunk_to_buffer,
    };
    let mut copy = data.to_vec();
    // SAFETY: a valid buffer of that length; copy = true, so the super-chunk owns its bytes.
    let sc = unsafe { blosc2_schunk_from_buffer(copy.as_mut_ptr(), copy.len() as i64, true) };
    if sc.is_null() {
        return;
    }
    // SAFETY: sc is a live super-chunk returned above; all out-pointers are valid locals.
    unsafe {
        let nchunks = (*sc).nchunks.clamp(0, 64);
        for n in 0..nchunks {
            let mut chunk: *mut u8 = std::ptr::null_mut();
            let mut needs_free = false;
            let clen = blosc2_schunk_get_chunk(sc, n, &mut chunk, &mut needs_free);
            let mut nbytes = 0i32;
            if clen > 0 && !chunk.is_null() {
                blosc2_cbuffer_sizes(chunk as *const c_void, &mut nbytes, std::ptr::null_mut(), std::ptr::null_mut());
            }
            if needs_free && !chunk.is_null() {
                libc::free(chunk as *mut c_void);
            }
            let dsize = (nbytes.max(0) as usize).min(MAX_DEST);
            let mut dest = Guarded::new(dsize);
            let r = blosc2_schunk_decompress_chunk(sc, n, dest.ptr(), dest.size());
            assert!(r <= dest.size(), "frame: decompress_chunk returned {r} for a {dsize}-byte buffer");
            dest.check("frame: decompress_chunk");
        }
        let nmeta = ((*sc).nmetalayers as usize).min(BLOSC2_MAX_METALAYERS);
        for i in 0..nmeta {
            let m = (*sc).metalayers[i];
            assert!(!m.is_null(), "frame: metalayer {i} of {nmeta} is NULL");
            assert!((*m).content_len >= 0);
        }
        let nvl = ((*sc).nvlmetalayers.max(0) as usize).min(BLOSC2_MAX_VLMETALAYERS);
        if nvl > 0 {
            let mut names = vec![std::ptr::null_mut::<libc::c_char>(); nvl];
            let got = blosc2_vlmeta_get_names(sc, names.as_mut_ptr());
            if got > 0 {
                for &name in names.iter().take(got as usize) {
                    let mut content: *mut u8 = std::ptr::null_mut();
                    let mut clen = 0i32;
                    if !name.is_null() && blosc2_vlmeta_get(sc, name, &mut content, &mut clen) >= 0 && !content.is_null() {
                        libc::free(content as *mut c_void);
                    }
                }
            }
        }
        // A metalayer cannot be added once chunks exist; either way no crash.
        let mut c = [1u8, 2, 3];
        let _ = blosc2_meta_add(sc, c"fuzz".as_ptr(), c.as_mut_ptr(), 3);
        let mut out: *mut u8 = std::ptr::null_mut();
        let mut needs_free = false;
        let len = blosc2_schunk_to_buffer(sc, &mut out, &mut needs_free);
        if len > 0 && needs_free && !out.is_null() {
            libc::free(out as *mut c_void);
        }
        blosc2_schunk_free(sc);
    }
}

pub const B2ND_CTL: usize = 8;
/// Largest slice (in items) the `b2nd` target reads, so tiny chunks cannot make one input
/// decompress thousands of chunks.
const B2ND_MAX_SLICE_ITEMS: i128 = 4096;
/// Largest padded chunk (in bytes) the `b2nd` target reads from: a forged chunkshape can claim
/// gigabytes per chunk, which is an out-of-memory, not a finding.
const B2ND_MAX_CHUNK_BYTES: i128 = 16 << 20;

/// xorshift64, seeded from control bytes: where the `b2nd` slices fall.
struct Xs(u64);

impl Xs {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// A value in `lo..=hi` (`lo <= hi`).
    fn range(&mut self, lo: i128, hi: i128) -> i128 {
        lo + (self.next() as i128).rem_euclid(hi - lo + 1)
    }
}

/// What the `b2nd` target reads of one opened array.
#[derive(Default, PartialEq, Debug)]
struct B2ndReads {
    full: Option<Vec<u8>>,
    slices: Vec<Option<Vec<u8>>>,
    ortho: Vec<Option<Vec<u8>>>,
}

/// The items of the C-order `full` array of `shape` in the box `[start, stop)`, C order.
fn extract(full: &[u8], shape: &[i64], ts: usize, start: &[i64], stop: &[i64]) -> Vec<u8> {
    let lists: Vec<Vec<i64>> = start.iter().zip(stop).map(|(&a, &b)| (a..b).collect()).collect();
    pick(full, shape, ts, &lists)
}

/// The items of the C-order `full` array at every combination of `lists[i]`, C order.
fn pick(full: &[u8], shape: &[i64], ts: usize, lists: &[Vec<i64>]) -> Vec<u8> {
    let n = shape.len();
    let mut out = Vec::new();
    if lists.iter().any(|l| l.is_empty()) {
        return out;
    }
    let mut idx = vec![0usize; n];
    loop {
        let mut off = 0usize;
        for d in 0..n {
            off = off * shape[d] as usize + lists[d][idx[d]] as usize;
        }
        out.extend_from_slice(&full[off * ts..(off + 1) * ts]);
        let mut d = n;
        loop {
            if d == 0 {
                return out;
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < lists[d].len() {
                break;
            }
            idx[d] = 0;
        }
    }
}

/// Whether every chunk of the array is one the array's geometry asks for: as many chunks as
/// the chunk grid holds, each a valid chunk of the array's typesize, padded-chunk size and
/// block size, none "uninitialised". Only then are the array's items defined: a damaged frame
/// can hold chunks of the wrong size or uninitialised ones, whose bytes the reference leaves
/// unspecified (it decompresses into an uninitialised buffer and ignores a short result), or
/// chunks whose blocks are not the array's blocks, so reading some blocks only (both
/// libraries mask blocks out by the array's block numbering) picks other bytes than a whole
/// decompression. The target compares two reads of the same items only for well-formed arrays.
///
/// # Safety
/// `a` is a live array.
unsafe fn b2nd_well_formed(a: &blosc2::ffi::abi::b2nd_array_t, ts: i32) -> bool {
    use blosc2::ffi::schunk::blosc2_schunk_get_chunk;
    let ndim = a.ndim as usize;
    let mut grid: i128 = 1;
    for d in 0..ndim {
        if a.chunkshape[d] <= 0 {
            return false;
        }
        grid *= (a.shape[d] as i128 + a.chunkshape[d] as i128 - 1) / a.chunkshape[d] as i128;
    }
    // SAFETY: the array's super-chunk is live while the array is.
    let nchunks = unsafe { (*a.sc).nchunks };
    if nchunks as i128 != grid || nchunks > 256 || !(1..=255).contains(&ts) {
        return false;
    }
    let want = a.extchunknitems as i128 * ts as i128;
    (0..nchunks).all(|n| {
        let mut chunk: *mut u8 = std::ptr::null_mut();
        let mut needs_free = false;
        // SAFETY: live super-chunk; out-pointers are locals.
        let len = unsafe { blosc2_schunk_get_chunk(a.sc, n, &mut chunk, &mut needs_free) };
        if len <= 0 || chunk.is_null() {
            return false;
        }
        // SAFETY: the library returned `len` readable bytes, freed once below when it says so.
        let ok = unsafe {
            let c = std::slice::from_raw_parts(chunk, len as usize);
            let mut nbytes = 0usize;
            let valid = c.len() >= 32
                && blosc1_cbuffer_validate(chunk as *const c_void, c.len(), &mut nbytes) == 0
                && c[3] as i32 == ts
                && nbytes as i128 == want
                && i32::from_le_bytes(c[8..12].try_into().unwrap()) as i128 == a.blocknitems as i128 * ts as i128
                && (c[BLOSC2_CHUNK_BLOSC2_FLAGS as usize] >> 4) as i32 & BLOSC2_SPECIAL_MASK != BLOSC2_SPECIAL_UNINIT;
            if needs_free {
                libc::free(chunk as *mut c_void);
            }
            valid
        };
        ok
    })
}

/// Read what the input asks of an opened array: the whole array (right-sized and one byte
/// short), three slices and two orthogonal selections, each into a guarded buffer.
///
/// # Safety
/// `arr` is a live array from `b2nd_from_cframe`.
unsafe fn b2nd_reads(arr: *mut blosc2::ffi::abi::b2nd_array_t, ctl: &Ctl) -> B2ndReads {
    use blosc2::ffi::b2nd::{b2nd_get_orthogonal_selection, b2nd_get_slice_cbuffer, b2nd_to_cbuffer};
    let mut reads = B2ndReads::default();
    // SAFETY: live per contract.
    let a = unsafe { &*arr };
    let ndim = a.ndim as usize;
    assert!(ndim <= B2ND_MAX_DIM, "b2nd_from_cframe: ndim {ndim}");
    assert!(!a.sc.is_null(), "b2nd_from_cframe: array without a super-chunk");
    // SAFETY: the array's super-chunk is live while the array is.
    let ts = unsafe { (*a.sc).typesize };
    assert!(ts > 0, "b2nd_from_cframe: typesize {ts}");
    let shape = &a.shape[..ndim];
    assert!(shape.iter().all(|&s| s >= 0), "b2nd_from_cframe: negative shape {shape:?}");
    let nitems: i128 = shape.iter().map(|&s| s as i128).product();
    if a.extchunknitems as i128 * ts as i128 > B2ND_MAX_CHUNK_BYTES || a.extchunknitems < 0 {
        return reads;
    }
    // SAFETY: live per contract.
    let defined = unsafe { b2nd_well_formed(a, ts) };
    let mut rng = Xs(u64::from_le_bytes(std::array::from_fn(|i| ctl.u8(i))) | 1);
    let flags = ctl.u8(0);

    // The whole array, when small; and one byte short, which must fail untouched.
    let whole = nitems * ts as i128;
    if nitems <= B2ND_MAX_SLICE_ITEMS && whole <= MAX_DEST as i128 {
        let mut out = Guarded::new(whole as usize);
        // SAFETY: out writable for its size.
        let rc = unsafe { b2nd_to_cbuffer(arr, out.ptr(), whole as i64) };
        out.check("b2nd_to_cbuffer");
        assert!(rc <= 0, "b2nd_to_cbuffer returned {rc}");
        if rc == 0 {
            reads.full = Some(out.data().to_vec());
        }
        if whole > 0 {
            let mut short = Guarded::new(whole as usize - 1);
            // SAFETY: short writable for its size.
            let rs = unsafe { b2nd_to_cbuffer(arr, short.ptr(), whole as i64 - 1) };
            short.check("b2nd_to_cbuffer (one byte short)");
            assert!(rs < 0, "b2nd_to_cbuffer succeeded ({rs}) into a buffer one byte short");
            assert!(short.data().iter().all(|&b| b == FILL), "b2nd_to_cbuffer failed ({rs}) but wrote the buffer");
        }
    }

    // Slices: mostly inside the shape, sometimes one past either end or reversed; the buffer
    // shape is the slice's, padded, or (for the last) one byte short.
    for k in 0..3 {
        let mut start = [0i64; B2ND_MAX_DIM];
        let mut stop = [0i64; B2ND_MAX_DIM];
        let mut bshape = [0i64; B2ND_MAX_DIM];
        let mut items: i128 = 1;
        let mut inside = true;
        // One slice in four may step outside the shape or run backwards.
        let wild = rng.next() % 4 == 0;
        for d in 0..ndim {
            let s = shape[d] as i128;
            let (a0, len) = if wild && rng.next() & 1 == 0 {
                (rng.range(-1, s + 1), rng.range(-1, s.min(16) + 1))
            } else if s == 0 {
                (0, 0)
            } else {
                let a0 = rng.range(0, s - 1);
                (a0, rng.range(1, (s - a0).min(16)))
            };
            let b0 = a0 + len;
            start[d] = a0.clamp(i64::MIN as i128, i64::MAX as i128) as i64;
            stop[d] = b0.clamp(i64::MIN as i128, i64::MAX as i128) as i64;
            inside &= a0 >= 0 && a0 <= b0 && b0 <= s;
            let pad = if flags & 4 != 0 && k == 0 { rng.range(0, 2) } else { 0 };
            bshape[d] = (len.max(0) + pad) as i64;
            items *= len.max(0) + pad;
        }
        if items > B2ND_MAX_SLICE_ITEMS {
            reads.slices.push(None);
            continue;
        }
        let mut size = (items * ts as i128) as usize;
        if k == 2 && flags & 8 != 0 && size > 0 {
            size -= 1;
        }
        let mut out = Guarded::new(size);
        // SAFETY: start/stop/bshape hold B2ND_MAX_DIM >= ndim items; out writable for its size.
        let rc = unsafe { b2nd_get_slice_cbuffer(arr, start.as_ptr(), stop.as_ptr(), out.ptr(), bshape.as_ptr(), size as i64) };
        out.check("b2nd_get_slice_cbuffer");
        assert!(rc <= 0, "b2nd_get_slice_cbuffer returned {rc}");
        if rc == 0 {
            assert!(inside, "b2nd_get_slice_cbuffer read [{:?}, {:?}) of shape {shape:?}", &start[..ndim], &stop[..ndim]);
            let exact = (0..ndim).all(|d| bshape[d] == stop[d] - start[d]);
            if let (true, true, Some(full)) = (defined, exact, &reads.full) {
                let want = extract(full, shape, ts as usize, &start[..ndim], &stop[..ndim]);
                assert!(out.data() == want, "b2nd_get_slice_cbuffer differs from b2nd_to_cbuffer's items");
            }
            reads.slices.push(Some(out.data().to_vec()));
        } else {
            reads.slices.push(None);
        }
    }

    // Orthogonal selections: up to 3 indices per dimension, sometimes out of range.
    for _ in 0..2 {
        let mut lists: Vec<Vec<i64>> = Vec::with_capacity(ndim);
        let mut inside = true;
        for d in 0..ndim {
            let s = shape[d] as i128;
            let n = if rng.next() % 8 == 0 { 0 } else { rng.range(1, 3) as usize };
            // Mostly inside the shape; one index in eight may be -1 or one past the end.
            let l: Vec<i64> = (0..n)
                .map(|_| {
                    let v = if s == 0 || rng.next() % 8 == 0 { [-1, s][rng.next() as usize & 1] } else { rng.range(0, s - 1) };
                    v.clamp(i64::MIN as i128, i64::MAX as i128) as i64
                })
                .collect();
            inside &= l.iter().all(|&i| i >= 0 && (i as i128) < s);
            lists.push(l);
        }
        let mut ptrs: Vec<*mut i64> = lists.iter_mut().map(|l| l.as_mut_ptr()).collect();
        let mut sizes: Vec<i64> = lists.iter().map(|l| l.len() as i64).collect();
        let mut bshape = sizes.clone();
        let items: i128 = sizes.iter().map(|&n| n as i128).product();
        let size = (items * ts as i128) as usize;
        if ndim == 0 {
            ptrs.push(std::ptr::null_mut());
            sizes.push(0);
            bshape.push(0);
        }
        let mut out = Guarded::new(size);
        // SAFETY: ptrs/sizes/bshape hold ndim entries, each list its size; out writable for its size.
        let rc = unsafe {
            b2nd_get_orthogonal_selection(arr, ptrs.as_mut_ptr(), sizes.as_mut_ptr(), out.ptr(), bshape.as_mut_ptr(), size as i64)
        };
        out.check("b2nd_get_orthogonal_selection");
        assert!(rc <= 0, "b2nd_get_orthogonal_selection returned {rc}");
        // A 0-d array has no index lists, and a selection of it reads nothing (src/b2nd/ortho.rs).
        if rc == 0 && inside && ndim > 0 && defined {
            if let Some(full) = &reads.full {
                let want = pick(full, shape, ts as usize, &lists);
                assert!(out.data() == want, "b2nd_get_orthogonal_selection differs from b2nd_to_cbuffer's items");
            }
        }
        reads.ortho.push(if rc == 0 { Some(out.data().to_vec()) } else { None });
    }
    reads
}

/// `b2nd_deserialize_meta` on untrusted bytes: outputs stay within their B2ND_MAX_DIM items,
/// the count consumed within the input, the dtype a C string. Returns (rc, ndim, shape).
fn b2nd_meta(meta: &[u8], with_dtype: bool) -> (i32, i8, Vec<i64>) {
    use blosc2::ffi::b2nd::b2nd_deserialize_meta;
    const EXTRA: usize = 4;
    let mut ndim = -99i8;
    let mut shape = [i64::MIN; B2ND_MAX_DIM + EXTRA];
    let mut chunkshape = [i32::MIN; B2ND_MAX_DIM + EXTRA];
    let mut blockshape = [i32::MIN; B2ND_MAX_DIM + EXTRA];
    let mut dtype: *mut libc::c_char = 0x5EED as *mut libc::c_char;
    let mut fmt = -99i8;
    let (dp, fp) = if with_dtype { (&mut dtype as *mut _, &mut fmt as *mut i8) } else { (std::ptr::null_mut(), std::ptr::null_mut()) };
    // A non-null pointer even for an empty input, as a C caller's would be.
    let one = [0u8];
    let src = if meta.is_empty() { one.as_ptr() } else { meta.as_ptr() };
    // SAFETY: src readable for meta.len() bytes; the outputs hold B2ND_MAX_DIM items.
    let rc = unsafe {
        b2nd_deserialize_meta(src, meta.len() as i32, &mut ndim, shape.as_mut_ptr(), chunkshape.as_mut_ptr(), blockshape.as_mut_ptr(), dp, fp)
    };
    assert!(rc <= meta.len() as i32, "b2nd_deserialize_meta consumed {rc} of {} bytes", meta.len());
    assert!(
        shape[B2ND_MAX_DIM..].iter().all(|&v| v == i64::MIN)
            && chunkshape[B2ND_MAX_DIM..].iter().all(|&v| v == i32::MIN)
            && blockshape[B2ND_MAX_DIM..].iter().all(|&v| v == i32::MIN),
        "b2nd_deserialize_meta wrote past B2ND_MAX_DIM items"
    );
    if with_dtype && dtype as usize != 0x5EED && !dtype.is_null() {
        // SAFETY: a malloc'ed C string from the library, freed once.
        unsafe {
            let _ = std::ffi::CStr::from_ptr(dtype).to_bytes().len();
            libc::free(dtype as *mut c_void);
        }
    }
    if rc < 0 {
        return (rc, ndim, Vec::new());
    }
    assert!((0..=B2ND_MAX_DIM as i8).contains(&ndim), "b2nd_deserialize_meta succeeded with ndim {ndim}");
    (rc, ndim, shape[..ndim as usize].to_vec())
}

/// Target `b2nd`: 8 control bytes, then a contiguous frame holding a b2nd array. The rest is
/// also decoded as a bare "b2nd" metalayer. When the frame opens (from a copy, and with bit 0
/// of the first control byte also in place from a private buffer), read the whole array, three
/// slices and two orthogonal selections placed by the control bytes, and free it.
pub fn fuzz_b2nd(data: &[u8]) {
    use blosc2::ffi::b2nd::{b2nd_free, b2nd_from_cframe};
    let (ctl, frame) = Ctl::split(data, B2ND_CTL);
    let flags = ctl.u8(0);
    b2nd_meta(frame, flags & 2 != 0);

    let mut copy = frame.to_vec();
    let mut arr: *mut b2nd_array_t = 0x5EED as *mut b2nd_array_t;
    // SAFETY: copy readable for its length; copy = true, so the array owns its bytes.
    let rc = unsafe { b2nd_from_cframe(copy.as_mut_ptr(), copy.len() as i64, true, &mut arr) };
    drop(copy);
    if rc < 0 {
        assert!(arr.is_null() || arr as usize == 0x5EED, "b2nd_from_cframe failed ({rc}) but returned an array");
        return;
    }
    assert!(rc == 0 && !arr.is_null(), "b2nd_from_cframe returned {rc} / {arr:?}");
    // SAFETY: arr is live until b2nd_free below.
    let first = unsafe {
        let a = &*arr;
        // The "b2nd" metalayer the array came from decodes to the array's shape.
        let sc = &*a.sc;
        for i in 0..(sc.nmetalayers.max(0) as usize).min(BLOSC2_MAX_METALAYERS) {
            let m = &*sc.metalayers[i];
            if std::ffi::CStr::from_ptr(m.name).to_bytes() == b"b2nd" && m.content_len > 0 {
                let content = std::slice::from_raw_parts(m.content, m.content_len as usize);
                let (mrc, nd, shape) = b2nd_meta(content, true);
                if mrc >= 0 {
                    assert_eq!(nd, a.ndim, "the b2nd metalayer's ndim differs from the array's");
                    assert_eq!(shape[..], a.shape[..a.ndim as usize], "the b2nd metalayer's shape differs from the array's");
                }
            }
        }
        let r = b2nd_reads(arr, &ctl);
        assert_eq!(b2nd_free(arr), 0, "b2nd_free failed");
        r
    };

    if flags & 1 != 0 {
        let mut private = frame.to_vec();
        let mut arr2: *mut b2nd_array_t = std::ptr::null_mut();
        // SAFETY: private outlives the array (freed below, before it drops).
        let rc2 = unsafe { b2nd_from_cframe(private.as_mut_ptr(), private.len() as i64, false, &mut arr2) };
        assert_eq!(rc2, 0, "b2nd_from_cframe opened the frame with copy but not without ({rc2})");
        // SAFETY: arr2 live until freed here.
        let second = unsafe {
            let r = b2nd_reads(arr2, &ctl);
            assert_eq!(b2nd_free(arr2), 0, "b2nd_free failed (copy = false)");
            r
        };
        assert!(first == second, "an array read in place differs from the same array read from a copy");
    }
}

/// The `lz4` target: our LZ4 block decoder (`codecs::lz4_block`, which chunks use for
/// streams of high ratio) against liblz4's `LZ4_decompress_safe` on the same block and output
/// size: the same verdict, the same bytes. Chunks reach our decoder only through the ratio
/// gate; this target feeds it every block, gated or not.
pub fn fuzz_lz4(data: &[u8]) {
    use blosc2::codecs::{lz4, lz4_block};
    let (ctl, block) = Ctl::split(data, LZ4_CTL);
    let n = (ctl.u16(0) as usize | (ctl.u8(2) as usize) << 16) % (MAX_DEST + 1);
    let mut ours = vec![FILL; n];
    let mut theirs = vec![FILL; n];
    let a = lz4_block::decompress(block, &mut ours);
    let b = lz4::decompress(block, &mut theirs);
    assert_eq!(a, b, "lz4: verdicts differ (output size {n}, block {} bytes)", block.len());
    if let Some(k) = a {
        assert!(k <= n);
        if let Some(at) = ours[..k].iter().zip(&theirs[..k]).position(|(x, y)| x != y) {
            panic!("lz4: decoded bytes differ at {at} of {k}");
        }
    }
}
