//! Replays every file of the fuzz corpus (fuzz/corpus/<target>/) through the same code the
//! cargo-fuzz targets run (fuzz/fuzz_targets/common.rs), without a fuzzing engine: no input
//! may panic (not even a panic the library's own boundary catches) and every guard byte must
//! stay intact.
//!
//! Also holds the seed-corpus generator, `#[ignore]`d:
//!   cargo test --test fuzz_corpus -- --ignored generate_seed_corpus
//! It rewrites the `seed-*` files (chunks written by this library and by the reference,
//! the compat fixtures, and corrupted variants) and leaves files the fuzzer added alone.

mod common;

#[path = "../fuzz/fuzz_targets/common.rs"]
mod fuzz_common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// Panics seen by the hook, with their messages (the library's boundary swallows its own
/// panics, so the hook is the only place they show).
static PANICS: AtomicUsize = AtomicUsize::new(0);
static MESSAGES: Mutex<Vec<String>> = Mutex::new(Vec::new());
/// One replay at a time, so a panic is charged to the right file.
static SERIAL: Mutex<()> = Mutex::new(());
/// Whether a replay runs (the hook then records panics instead of printing them).
static REPLAYING: AtomicBool = AtomicBool::new(false);

fn install_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !REPLAYING.load(Ordering::SeqCst) {
                return default_hook(info);
            }
            PANICS.fetch_add(1, Ordering::SeqCst);
            let msg = info
                .payload()
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| info.payload().downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            let loc = info.location().map(|l| format!("{}:{}", l.file(), l.line())).unwrap_or_default();
            MESSAGES.lock().unwrap_or_else(|e| e.into_inner()).push(format!("{msg} (at {loc})"));
        }));
    });
}

fn fuzz_dir() -> PathBuf {
    common::project_root().join("fuzz")
}

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(rd) => rd.map(|e| e.unwrap().path()).filter(|p| p.is_file()).collect(),
        Err(_) => Vec::new(),
    };
    v.retain(|p| !p.file_name().unwrap().to_string_lossy().starts_with('.'));
    v.sort();
    v
}

/// Run `f` on every file of `dir`; returns (files run, failures).
/// The caller holds `SERIAL`.
fn replay_dir(dir: &Path, f: fn(&[u8])) -> (usize, Vec<String>) {
    install_hook();
    let files = files_in(dir);
    let mut failures = Vec::new();
    REPLAYING.store(true, Ordering::SeqCst);
    for path in &files {
        let data = std::fs::read(path).unwrap();
        MESSAGES.lock().unwrap_or_else(|e| e.into_inner()).clear();
        let before = PANICS.load(Ordering::SeqCst);
        let r = catch_unwind(AssertUnwindSafe(|| f(&data)));
        let after = PANICS.load(Ordering::SeqCst);
        if r.is_err() || after != before {
            let msgs = MESSAGES.lock().unwrap_or_else(|e| e.into_inner()).join(" | ");
            failures.push(format!("{}: {msgs}", path.display()));
        }
    }
    REPLAYING.store(false, Ordering::SeqCst);
    (files.len(), failures)
}

fn replay(target: &str, f: fn(&[u8])) {
    // Held through the final assert too, so its panic never lands in another replay.
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = fuzz_dir().join("corpus").join(target);
    let (n, failures) = replay_dir(&dir, f);
    assert!(n >= 10, "only {n} corpus files in {}", dir.display());
    assert!(failures.is_empty(), "{} of {n} {target} corpus files failed:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn replay_decompress_corpus() {
    replay("decompress", fuzz_common::fuzz_decompress);
}

#[test]
fn replay_compress_corpus() {
    replay("compress", fuzz_common::fuzz_compress);
}

#[test]
fn replay_frame_corpus() {
    replay("frame", fuzz_common::fuzz_frame);
}

#[test]
fn replay_vlblocks_corpus() {
    replay("vlblocks", fuzz_common::fuzz_vlblocks);
}

#[test]
fn replay_b2nd_corpus() {
    replay("b2nd", fuzz_common::fuzz_b2nd);
}

#[test]
fn replay_lz4_corpus() {
    replay("lz4", fuzz_common::fuzz_lz4);
}

/// The reproducers of failures the fuzzers found (fuzz/artifacts-found/<target>/), kept as
/// regression tests now that they are fixed.
#[test]
fn replay_artifacts_found() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut all = Vec::new();
    for (target, f) in targets() {
        let (_, failures) = replay_dir(&fuzz_dir().join("artifacts-found").join(target), f);
        all.extend(failures);
    }
    assert!(all.is_empty(), "{} reproducers still fail:\n{}", all.len(), all.join("\n"));
}

/// A fuzz target: its corpus directory name and its logic.
type Target = (&'static str, fn(&[u8]));

fn targets() -> [Target; 6] {
    [
        ("decompress", fuzz_common::fuzz_decompress as fn(&[u8])),
        ("compress", fuzz_common::fuzz_compress),
        ("vlblocks", fuzz_common::fuzz_vlblocks),
        ("frame", fuzz_common::fuzz_frame),
        ("b2nd", fuzz_common::fuzz_b2nd),
        ("lz4", fuzz_common::fuzz_lz4),
    ]
}

// ---------------------------------------------------------------------------------------------
// Seed corpus generator
// ---------------------------------------------------------------------------------------------

mod gen {
    use super::common::{dataset, shared_dir, Reference, Rng};
    use super::fuzz_common::{B2ND_CTL, COMPRESS_CTL, DECOMPRESS_CTL, VLBLOCKS_CTL};
    use blosc2::ffi::abi::*;
    use blosc2::ffi::chunk as ochunk;
    use blosc2::ffi::context as ours;
    use std::ffi::c_void;
    use std::path::PathBuf;

    pub struct Seeds {
        dir: PathBuf,
        /// Largest seed accepted.
        pub max: usize,
        pub count: usize,
        pub bytes: usize,
        seen: std::collections::HashSet<Vec<u8>>,
    }

    impl Seeds {
        pub fn new(target: &str) -> Seeds {
            let dir = super::fuzz_dir().join("corpus").join(target);
            std::fs::create_dir_all(&dir).unwrap();
            for p in super::files_in(&dir) {
                if p.file_name().unwrap().to_string_lossy().starts_with("seed-") {
                    std::fs::remove_file(p).unwrap();
                }
            }
            Seeds { dir, max: 64 * 1024, count: 0, bytes: 0, seen: Default::default() }
        }
        pub fn put(&mut self, name: &str, data: &[u8]) {
            assert!(data.len() <= self.max, "seed {name} too large");
            if !self.seen.insert(data.to_vec()) {
                return;
            }
            let clean: String =
                name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '.' { c } else { '_' }).collect();
            std::fs::write(self.dir.join(format!("seed-{:03}-{clean}", self.count)), data).unwrap();
            self.count += 1;
            self.bytes += data.len();
        }
    }

    #[derive(Clone, Copy, PartialEq)]
    pub enum Lib {
        Ours,
        Ref,
    }

    pub fn cparams(codec: u8, clevel: u8, typesize: i32, filters: [u8; 6], meta: [u8; 6]) -> blosc2_cparams {
        let mut cp = BLOSC2_CPARAMS_DEFAULTS;
        cp.compcode = codec;
        cp.clevel = clevel;
        cp.typesize = typesize;
        cp.filters = filters;
        cp.filters_meta = meta;
        cp
    }

    pub fn compress(lib: Lib, r: &Reference, cp: blosc2_cparams, src: &[u8]) -> Option<Vec<u8>> {
        let mut out = vec![0u8; src.len() + BLOSC2_MAX_OVERHEAD as usize + 64];
        let n = unsafe {
            match lib {
                Lib::Ours => {
                    let ctx = ours::blosc2_create_cctx(cp);
                    let n = ours::blosc2_compress_ctx(ctx, src.as_ptr() as *const c_void, src.len() as i32, out.as_mut_ptr() as *mut c_void, out.len() as i32);
                    ours::blosc2_free_ctx(ctx);
                    n
                }
                Lib::Ref => {
                    let ctx = (r.blosc2_create_cctx)(cp);
                    let n = (r.blosc2_compress_ctx)(ctx, src.as_ptr() as *const c_void, src.len() as i32, out.as_mut_ptr() as *mut c_void, out.len() as i32);
                    (r.blosc2_free_ctx)(ctx);
                    n
                }
            }
        };
        if n <= 0 {
            eprintln!("compress failed ({n}) for codec {} filters {:?}", cp.compcode, cp.filters);
            return None;
        }
        out.truncate(n as usize);
        Some(out)
    }

    pub fn vlcompress(lib: Lib, r: &Reference, cp: blosc2_cparams, blocks: &[Vec<u8>]) -> Option<Vec<u8>> {
        let ptrs: Vec<*const c_void> = blocks.iter().map(|b| b.as_ptr() as *const c_void).collect();
        let sizes: Vec<i32> = blocks.iter().map(|b| b.len() as i32).collect();
        let total: usize = blocks.iter().map(|b| b.len()).sum();
        let mut out = vec![0u8; total + 64 + 8 * blocks.len() + 64];
        let n = unsafe {
            match lib {
                Lib::Ours => {
                    let ctx = ours::blosc2_create_cctx(cp);
                    let n = ours::blosc2_vlcompress_ctx(ctx, ptrs.as_ptr(), sizes.as_ptr(), blocks.len() as i32, out.as_mut_ptr() as *mut c_void, out.len() as i32);
                    ours::blosc2_free_ctx(ctx);
                    n
                }
                Lib::Ref => {
                    let ctx = (r.blosc2_create_cctx)(cp);
                    let n = (r.blosc2_vlcompress_ctx)(ctx, ptrs.as_ptr(), sizes.as_ptr(), blocks.len() as i32, out.as_mut_ptr() as *mut c_void, out.len() as i32);
                    (r.blosc2_free_ctx)(ctx);
                    n
                }
            }
        };
        if n <= 0 {
            eprintln!("vlcompress failed ({n}) for codec {}", cp.compcode);
            return None;
        }
        out.truncate(n as usize);
        Some(out)
    }

    /// Special chunks (zeros, NaNs, uninit, repeated value) of `nbytes`.
    pub fn specials(lib: Lib, r: &Reference, typesize: i32, nbytes: i32) -> Vec<(String, Vec<u8>)> {
        let cp = cparams(1, 5, typesize, [0, 0, 0, 0, 0, 1], [0; 6]);
        let value = [0x11u8, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88];
        let mut v = Vec::new();
        for kind in 0..4 {
            let mut out = vec![0u8; 64 + typesize as usize];
            let n = unsafe {
                let d = out.as_mut_ptr() as *mut c_void;
                let l = out.len() as i32;
                match (lib, kind) {
                    (Lib::Ours, 0) => ochunk::blosc2_chunk_zeros(cp, nbytes, d, l),
                    (Lib::Ours, 1) => ochunk::blosc2_chunk_nans(cp, nbytes, d, l),
                    (Lib::Ours, 2) => ochunk::blosc2_chunk_uninit(cp, nbytes, d, l),
                    (Lib::Ours, _) => ochunk::blosc2_chunk_repeatval(cp, nbytes, d, l, value.as_ptr() as *const c_void),
                    (Lib::Ref, 0) => (r.blosc2_chunk_zeros)(cp, nbytes, d, l),
                    (Lib::Ref, 1) => (r.blosc2_chunk_nans)(cp, nbytes, d, l),
                    (Lib::Ref, 2) => (r.blosc2_chunk_uninit)(cp, nbytes, d, l),
                    (Lib::Ref, _) => (r.blosc2_chunk_repeatval)(cp, nbytes, d, l, value.as_ptr() as *const c_void),
                }
            };
            if n > 0 {
                out.truncate(n as usize);
                v.push((["zeros", "nans", "uninit", "repeatval"][kind].to_string(), out));
            }
        }
        v
    }

    /// Chunks embedded in a frame file: every offset whose bytes our validator accepts as a
    /// whole chunk with an extended header.
    pub fn chunks_in_frame(frame: &[u8]) -> Vec<Vec<u8>> {
        let mut v = Vec::new();
        let mut i = 0;
        while i + 32 <= frame.len() {
            let h = &frame[i..];
            let cbytes = i32::from_le_bytes(h[12..16].try_into().unwrap());
            let ok_shape = (2..=6).contains(&h[0]) && h[2] & 0x05 == 0x05 && h[3] > 0 && cbytes >= 32 && i + cbytes as usize <= frame.len();
            if ok_shape {
                let c = &frame[i..i + cbytes as usize];
                let mut nbytes = 0usize;
                let rc = unsafe { ochunk::blosc1_cbuffer_validate(c.as_ptr() as *const c_void, c.len(), &mut nbytes) };
                if rc == 0 {
                    v.push(c.to_vec());
                    i += cbytes as usize;
                    continue;
                }
            }
            i += 1;
        }
        v
    }

    pub fn put_i32(c: &mut [u8], at: usize, v: i32) {
        if c.len() >= at + 4 {
            c[at..at + 4].copy_from_slice(&v.to_le_bytes());
        }
    }

    /// Corrupted variants of a valid chunk.
    pub fn corruptions(c: &[u8], rng: &mut Rng) -> Vec<(String, Vec<u8>)> {
        let mut v: Vec<(String, Vec<u8>)> = Vec::new();
        let len = c.len();
        let nbytes = i32::from_le_bytes(c[4..8].try_into().unwrap());
        let ext = c[2] & 0x05 == 0x05;
        let hlen = if ext { 32 } else { 16 };
        for cut in [16usize, 31, 32, hlen + 4, len / 2, len - 1] {
            if cut < len {
                v.push((format!("trunc{cut}"), c[..cut].to_vec()));
            }
        }
        let mut m = c.to_vec();
        put_i32(&mut m, 4, nbytes + 1);
        v.push(("nbytes+1".into(), m));
        let mut m = c.to_vec();
        put_i32(&mut m, 4, i32::MAX);
        v.push(("nbytes-max".into(), m));
        let mut m = c.to_vec();
        put_i32(&mut m, 8, 1);
        v.push(("blocksize1".into(), m));
        let mut m = c.to_vec();
        put_i32(&mut m, 8, (nbytes / 3).max(1));
        v.push(("blocksize-third".into(), m));
        let mut m = c.to_vec();
        put_i32(&mut m, 12, len as i32 + 1000);
        v.push(("cbytes-long".into(), m));
        let mut m = c.to_vec();
        m[2] ^= 0x10; // memcpyed / dont_split bits
        v.push(("flags-x10".into(), m));
        let mut m = c.to_vec();
        m[2] ^= 0xe0; // codec format
        v.push(("flags-codec".into(), m));
        let mut m = c.to_vec();
        m[3] = m[3].wrapping_mul(3).max(1);
        v.push(("typesize".into(), m));
        if len > hlen + 4 {
            let mut m = c.to_vec();
            put_i32(&mut m, hlen, -1);
            v.push(("bstart0-neg".into(), m));
            let mut m = c.to_vec();
            put_i32(&mut m, hlen, 4);
            v.push(("bstart0-inhdr".into(), m));
            let mut m = c.to_vec();
            put_i32(&mut m, hlen, len as i32 - 2);
            v.push(("bstart0-end".into(), m));
        }
        if ext {
            let mut m = c.to_vec();
            m[16..22].copy_from_slice(&[7, 4, 3, 2, 1, 0]);
            v.push(("filters".into(), m));
            let mut m = c.to_vec();
            m[31] ^= 0x70; // special bits
            v.push(("blosc2flags-special".into(), m));
            let mut m = c.to_vec();
            m[31] ^= 0x08; // lazy
            v.push(("blosc2flags-lazy".into(), m));
        }
        let mut m = c.to_vec();
        for _ in 0..8 {
            let at = hlen + (rng.next() as usize) % (len - hlen).max(1);
            if at < len {
                m[at] ^= 1 << (rng.next() % 8);
            }
        }
        v.push(("bitflips".into(), m));
        v
    }

    pub fn dctl(i: usize, start: i16, nitems: i16) -> [u8; DECOMPRESS_CTL] {
        // Mostly: exact dest size, both thread counts, the global API; sometimes short/long.
        let c0 = match i % 6 {
            0 | 3 => 0x18,
            1 | 4 => 0x19,
            2 => 0x1b,  // nbytes - delta
            _ => 0x5d, // nbytes + delta, getitem dest nitems*ts - delta
        };
        let delta: u16 = [0u16, 1, 3, 100][i % 4];
        let mut c = [0u8; DECOMPRESS_CTL];
        c[0] = c0;
        c[1..3].copy_from_slice(&delta.to_le_bytes());
        c[3..5].copy_from_slice(&start.to_le_bytes());
        c[5..7].copy_from_slice(&nitems.to_le_bytes());
        c
    }

    pub fn with_ctl(ctl: &[u8], chunk: &[u8]) -> Vec<u8> {
        let mut v = ctl.to_vec();
        v.extend_from_slice(chunk);
        v
    }

    pub fn gen_decompress(r: &Reference) -> Seeds {
        let mut s = Seeds::new("decompress");
        let mut rng = Rng::new(7);
        let mut i = 0usize;
        let mut chunks_seen = std::collections::HashSet::new();
        let mut put = |s: &mut Seeds, name: &str, chunk: &[u8], i: &mut usize| {
            if !chunks_seen.insert(chunk.to_vec()) {
                return;
            }
            let ctl = dctl(*i, (*i % 5) as i16 * 3, 40 + (*i % 7) as i16 * 30);
            s.put(name, &with_ctl(&ctl, chunk));
            *i += 1;
        };
        let pipes: [(&str, [u8; 6], [u8; 6]); 5] = [
            ("nofilter", [0; 6], [0; 6]),
            ("shuffle", [0, 0, 0, 0, 0, 1], [0; 6]),
            ("bitshuffle", [0, 0, 0, 0, 0, 2], [0; 6]),
            ("delta-shuffle", [0, 0, 0, 0, 3, 1], [0; 6]),
            ("truncprec-shuffle", [0, 0, 0, 0, 4, 1], [0, 0, 0, 0, 12, 0]),
        ];
        let mut bases: Vec<Vec<u8>> = Vec::new();
        for lib in [Lib::Ours, Lib::Ref] {
            let ln = if lib == Lib::Ours { "ours" } else { "ref" };
            for (ci, codec) in [0u8, 1, 2, 4, 5].into_iter().enumerate() {
                let ks: &[usize] = if lib == Lib::Ours { &[1, (ci + 2) % 5] } else { &[(ci + 3) % 5] };
                for &k in ks {
                    let (pn, f, m) = pipes[k];
                    let ts = if k == 4 { 4 } else { [4, 8, 2, 4, 8][ci] };
                    let mut cp = cparams(codec, 5, ts, f, m);
                    cp.blocksize = if ci % 2 == 0 { 2048 } else { 0 };
                    let data = dataset(ci % 4, 6000, 10 + ci as u64);
                    if let Some(c) = compress(lib, r, cp, &data) {
                        put(&mut s, &format!("{ln}-codec{codec}-{pn}-ts{ts}"), &c, &mut i);
                        if k == 1 || lib == Lib::Ref {
                            bases.push(c);
                        }
                    }
                }
            }
            // Odd shapes.
            let mut extra: Vec<(String, blosc2_cparams, Vec<u8>)> = Vec::new();
            extra.push(("memcpy-clevel0".into(), cparams(1, 0, 4, [0, 0, 0, 0, 0, 1], [0; 6]), dataset(2, 3000, 1)));
            extra.push(("incompressible".into(), cparams(0, 9, 1, [0; 6], [0; 6]), dataset(2, 5000, 2)));
            let mut cp = cparams(0, 5, 1, [0, 0, 0, 0, 0, 1], [0; 6]);
            cp.blocksize = 1024;
            extra.push(("runs-ts1-bs1024".into(), cp, dataset(3, 7000, 3)));
            extra.push(("ts16-bitshuffle".into(), cparams(1, 5, 16, [0, 0, 0, 0, 0, 2], [0; 6]), dataset(0, 4000, 4)));
            extra.push(("ts255".into(), cparams(4, 5, 255, [0, 0, 0, 0, 0, 1], [0; 6]), dataset(1, 4000, 5)));
            extra.push(("leftover-ts8".into(), cparams(1, 5, 8, [0, 0, 0, 0, 0, 1], [0; 6]), dataset(1, 4003, 6)));
            for (sm, name) in [(1, "always-split"), (2, "never-split")] {
                let mut cp = cparams(1, 5, 8, [0, 0, 0, 0, 0, 1], [0; 6]);
                cp.splitmode = sm;
                cp.blocksize = 2048;
                extra.push((name.into(), cp, dataset(0, 6000, 7)));
            }
            let mut cp = cparams(5, 5, 4, [0, 0, 0, 0, 0, 1], [0; 6]);
            cp.use_dict = 1;
            cp.blocksize = 1024;
            extra.push(("zstd-dict".into(), cp, dataset(1, 8000, 8)));
            let mut cp = cparams(1, 5, 4, [0, 0, 0, 0, 0, 1], [0; 6]);
            cp.use_dict = 1;
            cp.blocksize = 1024;
            extra.push(("lz4-dict".into(), cp, dataset(0, 8000, 9)));
            let mut cp = cparams(0, 5, 8, [0, 0, 0, 0, 0, 1], [0; 6]);
            cp.nthreads = 2;
            cp.blocksize = 1024;
            extra.push(("nthreads2".into(), cp, dataset(0, 6000, 10)));
            extra.push(("empty".into(), cparams(0, 5, 8, [0, 0, 0, 0, 0, 1], [0; 6]), Vec::new()));
            extra.push(("one-byte".into(), cparams(0, 5, 1, [0, 0, 0, 0, 0, 1], [0; 6]), vec![42]));
            for (name, cp, data) in extra {
                let ours_too = ["memcpy-clevel0", "runs-ts1-bs1024", "ts255", "leftover-ts8", "nthreads2", "empty", "one-byte"];
                if lib == Lib::Ours && !ours_too.contains(&name.as_str()) {
                    continue;
                }
                if let Some(c) = compress(lib, r, cp, &data) {
                    put(&mut s, &format!("{ln}-{name}"), &c, &mut i);
                }
            }
            for ts in [if lib == Lib::Ours { 4 } else { 8 }] {
                for (name, c) in specials(lib, r, ts, 4000) {
                    put(&mut s, &format!("{ln}-special-{name}-ts{ts}"), &c, &mut i);
                }
            }
        }
        // Compat fixtures: whole when small, else their first 4 KB (header, block starts and
        // the first blocks: still good for getitem and the header checks).
        let dir = shared_dir().join("fixtures/compat");
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
            .filter(|n| n.starts_with("blosc-") && n.ends_with(".cdata"))
            .collect();
        names.sort();
        for n in &names {
            let data = std::fs::read(dir.join(n)).unwrap();
            if data.len() <= 16 * 1024 {
                put(&mut s, &format!("compat-{n}"), &data, &mut i);
            } else {
                put(&mut s, &format!("compat-{n}-first4k"), &data[..4096], &mut i);
            }
        }
        for f in ["varchunks-lz4-3.0.0.b2frame"] {
            let frame = std::fs::read(dir.join(f)).unwrap();
            for (j, c) in chunks_in_frame(&frame).iter().enumerate() {
                put(&mut s, &format!("frame-{f}-{j}"), c, &mut i);
            }
        }
        // Corrupted variants of a few of the valid chunks.
        // Each of three bases (ours BloscLZ, ours Zlib, a reference chunk) gets a third of them.
        for (k, b) in [0usize, 3, bases.len() - 2].into_iter().enumerate() {
            for (name, c) in corruptions(&bases[b], &mut rng).into_iter().skip(k).step_by(3) {
                put(&mut s, &format!("corrupt{b}-{name}"), &c, &mut i);
            }
        }
        s.put("tiny-empty", &[]);
        s.put("tiny-ctl-only", &dctl(0, 0, 1));
        s
    }

    #[allow(clippy::too_many_arguments)]
    pub fn cctl(
        codec_b: u8,
        clevel: u8,
        typesize: u16,
        filters: [u8; 6],
        meta: [u8; 6],
        bs_mode: u8,
        bs: i32,
        split: u8,
        b20: u8,
        delta: u16,
    ) -> [u8; COMPRESS_CTL] {
        let mut c = [0u8; COMPRESS_CTL];
        c[0] = codec_b;
        c[1] = clevel;
        c[2..4].copy_from_slice(&typesize.to_le_bytes());
        // filter bytes < 224 map through [0,0,1,2,3,4][f % 6]
        for k in 0..6 {
            c[4 + k] = match filters[k] {
                0 => 0,
                f @ 1..=4 => f + 1,
                f => f,
            };
        }
        c[10..16].copy_from_slice(&meta);
        c[16] = bs_mode;
        let bits: u16 = match bs_mode {
            1 => bs as u16,
            2 => (bs >> 4) as u16,
            3 => (bs / 64) as i16 as u16,
            _ => 0,
        };
        c[17..19].copy_from_slice(&bits.to_le_bytes());
        c[19] = split;
        c[20] = b20;
        c[21..23].copy_from_slice(&delta.to_le_bytes());
        c
    }

    pub fn gen_compress() -> Seeds {
        let mut s = Seeds::new("compress");
        let sh = [0, 0, 0, 0, 0, 1];
        let bsh = [0, 0, 0, 0, 0, 2];
        let none = [0u8; 6];
        let m0 = [0u8; 6];
        // codec byte: b % 5 indexes [0,1,2,4,5]
        let mut items: Vec<(String, [u8; COMPRESS_CTL], Vec<u8>)> = Vec::new();
        for (ci, name) in ["blosclz", "lz4", "lz4hc", "zlib", "zstd"].iter().enumerate() {
            for (pi, (pn, f)) in [("shuffle", sh), ("bitshuffle", bsh), ("none", none)].iter().enumerate() {
                let ts = [4u16, 8, 1][pi];
                let b20 = ((ci + pi) % 2) as u8 | if pi == 2 { 0x10 } else { 0 };
                let data = dataset((ci + pi) % 4, 1500 + 500 * pi, (ci * 3 + pi) as u64);
                items.push((format!("{name}-{pn}"), cctl(ci as u8, 5, ts, *f, m0, 0, 0, 4, b20, 0), data));
            }
        }
        items.push(("delta".into(), cctl(0, 5, 8, [0, 0, 0, 0, 3, 1], m0, 0, 0, 4, 0, 0), dataset(1, 3000, 1)));
        items.push(("truncprec4".into(), cctl(1, 5, 4, [0, 0, 0, 0, 4, 1], [0, 0, 0, 0, 10, 0], 0, 0, 4, 0, 0), dataset(0, 3000, 2)));
        items.push(("truncprec8".into(), cctl(4, 5, 8, [0, 0, 0, 0, 4, 2], [0, 0, 0, 0, 30, 0], 0, 0, 4, 0, 0), dataset(0, 3000, 3)));
        items.push(("truncprec-neg".into(), cctl(0, 5, 4, [0, 0, 0, 0, 4, 0], [0, 0, 0, 0, 0xfb, 0], 0, 0, 4, 0, 0), dataset(0, 2000, 3)));
        items.push(("all-filters".into(), cctl(5, 3, 2, [1, 2, 3, 1, 2, 3], m0, 0, 0, 4, 1, 0), dataset(1, 2000, 4)));
        items.push(("clevel0".into(), cctl(1, 0, 4, sh, m0, 0, 0, 4, 0, 0), dataset(0, 2000, 5)));
        items.push(("clevel9".into(), cctl(2, 9, 4, sh, m0, 0, 0, 4, 1, 0), dataset(3, 4000, 6)));
        items.push(("clevel10".into(), cctl(0, 10, 4, sh, m0, 0, 0, 4, 0, 0), dataset(0, 1000, 7)));
        for (ts, k) in [(0u16, 0usize), (3, 1), (16, 0), (255, 1), (256, 2), (300, 0)] {
            items.push((format!("ts{ts}"), cctl(k as u8, 5, ts, sh, m0, 0, 0, 4, 0, 0), dataset(k, 2500, ts as u64)));
        }
        items.push(("bs-small".into(), cctl(0, 5, 4, sh, m0, 1, 256, 1, 1, 0), dataset(0, 4000, 8)));
        items.push(("bs-odd".into(), cctl(1, 5, 8, sh, m0, 1, 1000, 2, 0, 0), dataset(1, 4000, 9)));
        items.push(("bs-tiny".into(), cctl(4, 5, 8, sh, m0, 1, 3, 3, 0, 0), dataset(1, 1000, 10)));
        items.push(("bs-large".into(), cctl(0, 5, 4, sh, m0, 2, 0x8000, 4, 0, 0), dataset(0, 2000, 11)));
        items.push(("bs-negative".into(), cctl(0, 5, 4, sh, m0, 3, -4096, 0, 0, 0), dataset(0, 2000, 12)));
        for sm in [0u8, 1, 2, 3, 5] {
            items.push((format!("split{sm}"), cctl(1, 5, 4, sh, m0, 0, 0, sm, 1, 0), dataset(0, 3000, 13 + sm as u64)));
        }
        items.push(("zstd-dict".into(), cctl(4, 5, 4, sh, m0, 1, 512, 4, 2, 0), dataset(1, 6000, 14)));
        items.push(("lz4-dict".into(), cctl(1, 5, 4, sh, m0, 1, 512, 4, 3, 0), dataset(0, 6000, 15)));
        items.push(("dest-exact".into(), cctl(0, 5, 4, sh, m0, 0, 0, 4, 0, 0), dataset(2, 2000, 16)));
        items.push(("dest-short".into(), cctl(0, 5, 4, sh, m0, 0, 0, 4, 0x04, 40), dataset(2, 2000, 17)));
        items.push(("dest-tiny".into(), cctl(1, 5, 4, sh, m0, 0, 0, 4, 0x08, 20), dataset(0, 2000, 18)));
        items.push(("dest-long".into(), cctl(5, 5, 4, sh, m0, 0, 0, 4, 0x0c, 3000), dataset(0, 2000, 19)));
        for bad in [240u8, 241, 242, 245, 247] {
            items.push((format!("badcodec{bad}"), cctl(bad, 5, 4, sh, m0, 0, 0, 4, 0, 0), dataset(0, 500, 20)));
        }
        items.push(("badfilter".into(), cctl(0, 5, 4, [0, 0, 0, 0, 230, 1], m0, 0, 0, 4, 0, 0), dataset(0, 500, 21)));
        items.push(("compcode-meta".into(), cctl(0, 5, 4, sh, m0, 0, 0, 4, 0x20, 0), dataset(0, 500, 22)));
        items.push(("empty".into(), cctl(0, 5, 4, sh, m0, 0, 0, 4, 0, 0), Vec::new()));
        items.push(("one-byte".into(), cctl(1, 5, 1, sh, m0, 0, 0, 4, 0, 0), vec![7]));
        for (name, ctl, data) in items {
            let mut v = ctl.to_vec();
            v.extend_from_slice(&data);
            s.put(&name, &v);
        }
        s
    }

    pub fn vctl(c0: u8, maxblocks: u8, nblock: i16) -> [u8; VLBLOCKS_CTL] {
        let mut c = [0u8; VLBLOCKS_CTL];
        c[0] = c0;
        c[1] = maxblocks;
        c[2..4].copy_from_slice(&nblock.to_le_bytes());
        c
    }

    /// LZ4 blocks of the data kinds, of the byte streams a shuffled int64 ramp splits into
    /// (the streams our decoder is chosen for), and of short inputs, by the fast and the HC
    /// compressor, each with its exact output size and a wrong one.
    pub fn gen_lz4() -> Seeds {
        use blosc2::codecs::lz4;
        let mut s = Seeds::new("lz4");
        let mut inputs: Vec<(String, Vec<u8>)> = Vec::new();
        for kind in 0..4 {
            for n in [0usize, 1, 13, 64, 100, 4096, 40_000] {
                inputs.push((format!("kind{kind}-{n}"), dataset(kind, n, n as u64)));
            }
        }
        let ramp = dataset(1, 8 * 4096, 0);
        for byte in [0usize, 1, 2, 7] {
            inputs.push((format!("ramp-byte{byte}"), ramp.iter().skip(byte).step_by(8).copied().collect()));
        }
        for (name, data) in &inputs {
            for hc in [false, true] {
                let mut c = vec![0u8; data.len() + data.len() / 255 + 32];
                let k = if hc { lz4::compress_hc(data, &mut c, 9) } else { lz4::compress(data, &mut c, 1) };
                let Ok(k) = k else { continue };
                c.truncate(k);
                let which = if hc { "hc" } else { "fast" };
                for (tag, n) in [("exact", data.len()), ("short", data.len().saturating_sub(1)), ("long", data.len() + 70)] {
                    let size = (n as u32).to_le_bytes();
                    s.put(&format!("{name}-{which}-{tag}"), &with_ctl(&size[..3], &c));
                }
            }
        }
        s
    }

    pub fn gen_vlblocks(r: &Reference) -> Seeds {
        let mut s = Seeds::new("vlblocks");
        let mut rng = Rng::new(11);
        let mut bases = Vec::new();
        let mut i = 0usize;
        for lib in [Lib::Ours, Lib::Ref] {
            let ln = if lib == Lib::Ours { "ours" } else { "ref" };
            for (ci, codec) in [0u8, 1, 2, 4, 5].into_iter().enumerate() {
                for (pn, f) in [("shuffle", [0, 0, 0, 0, 0, 1u8]), ("none", [0; 6]), ("bitshuffle", [0, 0, 0, 0, 0, 2])] {
                    if pn != "shuffle" && (ci + pn.len()) % 3 != 0 {
                        continue;
                    }
                    let nb = [1usize, 3, 5, 2, 7][ci];
                    let blocks: Vec<Vec<u8>> =
                        (0..nb).map(|j| dataset((ci + j) % 4, 100 + 337 * j + 50 * ci, (ci * 10 + j) as u64)).collect();
                    let cp = cparams(codec, 5, [1, 4, 8, 2, 4][ci], f, [0; 6]);
                    if let Some(c) = vlcompress(lib, r, cp, &blocks) {
                        let ctl = vctl((i % 4) as u8, 255, (i % 3) as i16);
                        s.put(&format!("{ln}-codec{codec}-{pn}-{nb}blocks"), &with_ctl(&ctl, &c));
                        bases.push(c);
                        i += 1;
                    }
                }
            }
        }
        let dir = shared_dir().join("fixtures/compat");
        for f in ["vlblocks-lz4-fixed-3.0.0.b2frame", "vlblocks-lz4-variable-3.0.0.b2frame", "varchunks-lz4-3.0.0.b2frame"] {
            let frame = std::fs::read(dir.join(f)).unwrap();
            for (j, c) in chunks_in_frame(&frame).iter().enumerate() {
                s.put(&format!("frame-{f}-{j}"), &with_ctl(&vctl(2 + (j % 2) as u8, 255, j as i16), c));
                if f.starts_with("vlblocks") && j == 0 {
                    bases.push(c.clone());
                }
            }
        }
        // maxblocks too small, block index out of range.
        if let Some(c) = bases.iter().find(|c| i32::from_le_bytes(c[8..12].try_into().unwrap()) >= 3) {
            s.put("maxblocks-short", &with_ctl(&vctl(0, 1, 0), c));
            s.put("maxblocks-zero", &with_ctl(&vctl(1, 0, -1), c));
            s.put("nblock-past-end", &with_ctl(&vctl(0, 255, 100), c));
        }
        // Each of three bases (ours, reference, the 3.0.0 frame's) gets a third of them.
        let picks = [0usize, bases.len() / 2, bases.len() - 1];
        for (k, b) in picks.into_iter().enumerate() {
            for (name, c) in corruptions(&bases[b], &mut rng).into_iter().skip(k).step_by(3) {
                s.put(&format!("corrupt{b}-{name}"), &with_ctl(&vctl(b as u8 & 3, 255, 1), &c));
            }
        }
        s.put("tiny-empty", &[]);
        s
    }

    /// A b2nd array written by this library, as a contiguous frame (None when the context is
    /// rejected).
    pub fn b2nd_frame(shape: &[i64], chunk: &[i32], block: &[i32], typesize: i32, codec: u8, dtype: &str, seed: u64) -> Option<Vec<u8>> {
        use blosc2::ffi::b2nd::*;
        let mut cp = cparams(codec, 5, typesize, [0, 0, 0, 0, 0, 1], [0; 6]);
        cp.nthreads = 1;
        let st = blosc2_storage { cparams: &mut cp, ..BLOSC2_STORAGE_DEFAULTS };
        let dt = std::ffi::CString::new(dtype).unwrap();
        let n: i64 = shape.iter().product();
        let src = dataset(seed as usize % 4, n as usize * typesize as usize, seed);
        unsafe {
            let ctx = b2nd_create_ctx(&st, shape.len() as i8, shape.as_ptr(), chunk.as_ptr(), block.as_ptr(), dt.as_ptr(), 0, std::ptr::null(), 0);
            if ctx.is_null() {
                eprintln!("b2nd_create_ctx rejected shape {shape:?} chunk {chunk:?} block {block:?}");
                return None;
            }
            let mut a = std::ptr::null_mut();
            let rc = if seed % 5 == 4 {
                b2nd_zeros(ctx, &mut a)
            } else {
                b2nd_from_cbuffer(ctx, &mut a, src.as_ptr() as *const c_void, src.len() as i64)
            };
            b2nd_free_ctx(ctx);
            if rc != 0 {
                eprintln!("b2nd_from_cbuffer failed ({rc}) for shape {shape:?}");
                return None;
            }
            let (mut p, mut len, mut nf) = (std::ptr::null_mut(), 0i64, false);
            assert_eq!(b2nd_to_cframe(a, &mut p, &mut len, &mut nf), 0);
            let f = std::slice::from_raw_parts(p, len as usize).to_vec();
            if nf {
                libc::free(p as *mut c_void);
            }
            b2nd_free(a);
            Some(f)
        }
    }

    /// A "b2nd" metalayer as b2nd_serialize_meta writes it.
    pub fn b2nd_smeta(shape: &[i64], chunk: &[i32], block: &[i32], dtype: &str) -> Vec<u8> {
        use blosc2::ffi::b2nd::b2nd_serialize_meta;
        let dt = std::ffi::CString::new(dtype).unwrap();
        let mut p = std::ptr::null_mut();
        unsafe {
            let n = b2nd_serialize_meta(shape.len() as i8, shape.as_ptr(), chunk.as_ptr(), block.as_ptr(), dt.as_ptr(), 0, &mut p);
            assert!(n > 0, "b2nd_serialize_meta failed ({n})");
            let v = std::slice::from_raw_parts(p, n as usize).to_vec();
            libc::free(p as *mut c_void);
            v
        }
    }

    /// Damaged copies of a "b2nd" metalayer found at `at` in `buf` (`len` bytes long):
    /// ndim, the first shape item, chunkshape, dtype and random bytes changed.
    pub fn b2nd_meta_corruptions(buf: &[u8], at: usize, len: usize, rng: &mut Rng) -> Vec<(String, Vec<u8>)> {
        let mut v = Vec::new();
        let mut edit = |name: &str, f: &dyn Fn(&mut [u8])| {
            let mut m = buf.to_vec();
            f(&mut m[at..at + len]);
            v.push((name.to_string(), m));
        };
        edit("ndim0", &|c| c[2] = 0);
        edit("ndim9", &|c| c[2] = 9);
        edit("ndim17", &|c| c[2] = 17);
        edit("ndim-neg", &|c| c[2] = 0xff);
        edit("version", &|c| c[1] = 5);
        edit("shape-huge", &|c| c[5] = 0x7f);
        edit("shape-neg", &|c| c[5] = 0x80);
        edit("shape-marker", &|c| c[4] = 0xd2);
        edit("shapes-count", &|c| c[3] ^= 0x01);
        edit("chunk-zero", &|c| {
            // The chunkshape array follows the shape one: 0x9n, then n × (0xd3 + 8 bytes).
            let n = (c[3] & 0x0f) as usize;
            let at = 4 + 9 * n + 1;
            if at + 5 <= c.len() {
                c[at + 1..at + 5].fill(0);
            }
        });
        edit("chunk-neg", &|c| {
            let n = (c[3] & 0x0f) as usize;
            let at = 4 + 9 * n + 1;
            if at + 1 < c.len() {
                c[at + 1] = 0xff;
            }
        });
        edit("tail-ff", &|c| {
            let l = c.len();
            c[l - 1] = 0xff;
        });
        edit("dtype-len", &|c| {
            let l = c.len();
            if l > 8 {
                c[l - 6] = 0x7f;
            }
        });
        let r: Vec<usize> = (0..6).map(|_| rng.next() as usize % len).collect();
        edit("bitflips", &|c| {
            for (k, &i) in r.iter().enumerate() {
                c[i] ^= 1 << (k % 8);
            }
        });
        v
    }

    pub fn gen_b2nd() -> Seeds {
        let mut s = Seeds::new("b2nd");
        s.max = 192 * 1024;
        let mut rng = Rng::new(23);
        let ctl = |i: usize| -> [u8; B2ND_CTL] {
            let mut c = [0u8; B2ND_CTL];
            c[0] = (i % 16) as u8 | 1;
            for (k, b) in c.iter_mut().enumerate().skip(1) {
                *b = (i * 31 + k * 7) as u8;
            }
            c
        };
        type Case = (&'static [i64], &'static [i32], &'static [i32], i32, u8, &'static str);
        let cases: [Case; 10] = [
            (&[100], &[30], &[7], 1, 1, "|u1"),
            (&[10, 12], &[4, 5], &[2, 3], 4, 5, "<i4"),
            (&[5, 6, 7], &[3, 4, 5], &[2, 2, 2], 8, 0, "<f8"),
            (&[3, 4, 2, 5], &[2, 2, 2, 3], &[1, 2, 1, 2], 2, 2, "<u2"),
            (&[9, 9], &[9, 9], &[3, 9], 3, 1, "|V3"),
            (&[0], &[5], &[5], 4, 1, "<f4"),
            (&[2, 2, 2, 2, 2, 2, 2, 2], &[1, 2, 1, 2, 2, 1, 2, 2], &[1, 1, 1, 2, 1, 1, 1, 2], 1, 1, "|u1"),
            (&[20, 30], &[8, 8], &[4, 4], 8, 1, "<f8"),
            (&[], &[], &[], 8, 1, "<f8"),
            (&[1000], &[1000], &[250], 2, 5, "<i2"),
        ];
        let mut frames: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
        for (i, (shape, chunk, block, ts, codec, dtype)) in cases.iter().enumerate() {
            if let Some(f) = b2nd_frame(shape, chunk, block, *ts, *codec, dtype, i as u64) {
                s.put(&format!("ours-{}d-ts{ts}-codec{codec}", shape.len()), &with_ctl(&ctl(i), &f));
                let m = b2nd_smeta(shape, chunk, block, dtype);
                s.put(&format!("meta-{}d", shape.len()), &with_ctl(&ctl(i + 3), &m));
                frames.push((f, m));
            }
        }
        let dir = shared_dir().join("fixtures/b2nd");
        let mut fixtures = Vec::new();
        for f in ["example_day_month_temp.b2nd", "example_item_prices.b2nd"] {
            let frame = std::fs::read(dir.join(f)).unwrap();
            s.put(&format!("fixture-{f}"), &with_ctl(&ctl(7), &frame));
            fixtures.push(frame);
        }
        // Truncations and metalayer damage of a few frames (ours 2-D, 3-D, 8-D, the small fixture).
        let mut bases: Vec<(String, Vec<u8>, Option<Vec<u8>>)> = [1usize, 2, 6]
            .iter()
            .filter_map(|&i| frames.get(i).map(|(f, m)| (format!("ours{i}"), f.clone(), Some(m.clone()))))
            .collect();
        bases.push(("fixture-temp".into(), fixtures[0].clone(), None));
        for (k, (name, f, m)) in bases.iter().enumerate() {
            let len = f.len();
            for cut in [16usize, 90, len / 2, len - 1] {
                if cut < len {
                    s.put(&format!("{name}-cut{cut}"), &with_ctl(&ctl(k), &f[..cut]));
                }
            }
            // The metalayer: where our serialisation of it sits in the frame, or (for the
            // fixture) the msgpack array after the "b2nd" name's content.
            let found = match m {
                Some(m) => f.windows(m.len()).position(|w| w == &m[..]).map(|at| (at, m.len())),
                None => f.windows(3).position(|w| w[0] == 0x97 && w[1] == 0 && (1..=8).contains(&w[2])).map(|at| (at, 40.min(len - at))),
            };
            let Some((at, mlen)) = found else {
                eprintln!("{name}: b2nd metalayer not found");
                continue;
            };
            for (cname, c) in b2nd_meta_corruptions(f, at, mlen, &mut rng).into_iter().skip(k % 2).step_by(2) {
                s.put(&format!("{name}-meta-{cname}"), &with_ctl(&ctl(k + 5), &c));
            }
        }
        // Bare metalayers, damaged (they never open as frames: deserialize_meta only).
        if let Some((_, m)) = frames.get(2) {
            for (cname, c) in b2nd_meta_corruptions(m, 0, m.len(), &mut rng) {
                s.put(&format!("meta3d-{cname}"), &with_ctl(&ctl(2), &c));
            }
            s.put("meta3d-cut", &with_ctl(&ctl(2), &m[..m.len() / 2]));
        }
        s.put("tiny-empty", &[]);
        s.put("tiny-ctl-only", &ctl(1));
        s
    }
}

#[test]
#[ignore]
fn generate_seed_corpus() {
    let r = common::reference().expect("the reference library is needed: scripts/fetch-reference.sh");
    let d = gen::gen_decompress(r);
    let c = gen::gen_compress();
    let v = gen::gen_vlblocks(r);
    let b = gen::gen_b2nd();
    let l = gen::gen_lz4();
    for (name, s) in [("decompress", &d), ("compress", &c), ("vlblocks", &v), ("b2nd", &b), ("lz4", &l)] {
        eprintln!("{name}: {} seeds, {} bytes", s.count, s.bytes);
    }
}

/// The `b2nd` seeds alone (no reference library needed):
/// `cargo test --test fuzz_corpus -- --ignored generate_b2nd_seed_corpus`.
#[test]
#[ignore]
fn generate_b2nd_seed_corpus() {
    let b = gen::gen_b2nd();
    eprintln!("b2nd: {} seeds, {} bytes", b.count, b.bytes);
}

/// Triage aid: how the reference and this library decode the chunk of a `decompress` input
/// (`FUZZ_FILE=path cargo test --test fuzz_corpus -- --ignored --nocapture
/// decompress_input_vs_reference`): return codes, and the first differing byte.
#[test]
#[ignore]
fn decompress_input_vs_reference() {
    use blosc2::ffi::abi::*;
    use blosc2::ffi::context as ours;
    use std::ffi::c_void;
    let Some(path) = std::env::var_os("FUZZ_FILE") else { return };
    let r = common::reference().expect("reference library");
    let data = std::fs::read(path).unwrap();
    let (ctl, chunk) = fuzz_common::Ctl::split(&data, fuzz_common::DECOMPRESS_CTL);
    let nbytes = if chunk.len() >= 8 { i32::from_le_bytes(chunk[4..8].try_into().unwrap()).clamp(0, 1 << 20) } else { 0 };
    let ts = chunk.get(3).copied().unwrap_or(1).max(1) as i32;
    let (start, nitems) = (ctl.i16(3) as i32, ctl.i16(5) as i32);
    let gsize = (nitems.max(0) * ts).min(1 << 20);
    let first_diff = |a: &[u8], b: &[u8]| a.iter().zip(b).position(|(x, y)| x != y);
    for nthreads in [1i16, 2] {
        let mut dp = BLOSC2_DPARAMS_DEFAULTS;
        dp.nthreads = nthreads;
        let (mut a, mut b) = (vec![0xCCu8; nbytes as usize], vec![0xCCu8; nbytes as usize]);
        let (mut ga, mut gb) = (vec![0xCCu8; gsize as usize], vec![0xCCu8; gsize as usize]);
        let p = chunk.as_ptr() as *const c_void;
        let n = chunk.len() as i32;
        unsafe {
            let c = ours::blosc2_create_dctx(dp);
            let ra = ours::blosc2_decompress_ctx(c, p, n, a.as_mut_ptr() as *mut c_void, nbytes);
            let gra = ours::blosc2_getitem_ctx(c, p, n, start, nitems, ga.as_mut_ptr() as *mut c_void, gsize);
            ours::blosc2_free_ctx(c);
            let c = (r.blosc2_create_dctx)(dp);
            let rb = (r.blosc2_decompress_ctx)(c, p, n, b.as_mut_ptr() as *mut c_void, nbytes);
            let grb = (r.blosc2_getitem_ctx)(c, p, n, start, nitems, gb.as_mut_ptr() as *mut c_void, gsize);
            (r.blosc2_free_ctx)(c);
            eprintln!("nthreads {nthreads}: decompress ours {ra} ref {rb}, first diff {:?}; getitem({start}, {nitems}) ours {gra} ref {grb}, first diff {:?}", first_diff(&a, &b), first_diff(&ga, &gb));
            if ra > 0 && gra > 0 && start >= 0 {
                let from = (start * ts) as usize;
                eprintln!("  ours: getitem vs decompress first diff {:?}", first_diff(&ga[..gra as usize], &a[from..from + gra as usize]));
            }
            if rb > 0 && grb > 0 && start >= 0 {
                let from = (start * ts) as usize;
                eprintln!("  ref: getitem vs decompress first diff {:?}", first_diff(&gb[..grb as usize], &b[from..from + grb as usize]));
            }
            let show = |v: &[u8]| v.iter().take(16).map(|x| format!("{x:02x}")).collect::<String>();
            eprintln!("  ours decompress[..16] {} getitem[..16] {}; ref decompress[..16] {} getitem[..16] {}", show(&a), show(&ga), show(&b), show(&gb));
        }
    }
}

/// Triage aid: the parameters of a `compress` input, and whether each library round-trips
/// them (`FUZZ_FILE=path cargo test --test fuzz_corpus -- --ignored --nocapture
/// compress_input_vs_reference`).
#[test]
#[ignore]
fn compress_input_vs_reference() {
    use blosc2::ffi::context as ours;
    use std::ffi::c_void;
    let Some(path) = std::env::var_os("FUZZ_FILE") else { return };
    let r = common::reference().expect("reference library");
    let data = std::fs::read(path).unwrap();
    let case = fuzz_common::compress_case(&data);
    let cp = case.cparams;
    let src = case.src;
    eprintln!(
        "codec {} clevel {} typesize {} filters {:?} meta {:?} blocksize {} splitmode {} nthreads {} use_dict {} compcode_meta {} srclen {} dsize {}",
        cp.compcode, cp.clevel, cp.typesize, cp.filters, cp.filters_meta, cp.blocksize, cp.splitmode, cp.nthreads, cp.use_dict, cp.compcode_meta, src.len(), case.dsize
    );
    for lib in 0..2 {
        let mut out = vec![0u8; case.dsize];
        let mut back = vec![0xCCu8; src.len()];
        let (n, m) = unsafe {
            if lib == 0 {
                let c = ours::blosc2_create_cctx(cp);
                let n = ours::blosc2_compress_ctx(c, src.as_ptr() as *const c_void, src.len() as i32, out.as_mut_ptr() as *mut c_void, out.len() as i32);
                ours::blosc2_free_ctx(c);
                (n, if n > 0 { blosc2::ffi::global::blosc2_decompress(out.as_ptr() as *const c_void, n, back.as_mut_ptr() as *mut c_void, back.len() as i32) } else { 0 })
            } else {
                let c = (r.blosc2_create_cctx)(cp);
                let n = (r.blosc2_compress_ctx)(c, src.as_ptr() as *const c_void, src.len() as i32, out.as_mut_ptr() as *mut c_void, out.len() as i32);
                (r.blosc2_free_ctx)(c);
                (n, if n > 0 { (r.blosc2_decompress)(out.as_ptr() as *const c_void, n, back.as_mut_ptr() as *mut c_void, back.len() as i32) } else { 0 })
            }
        };
        let diff = back.iter().zip(src).position(|(a, b)| a != b);
        let hdr: String = out.iter().take(32.min(n.max(0) as usize)).map(|x| format!("{x:02x}")).collect();
        eprintln!("{}: compress {n}, decompress {m}, first diff {diff:?}, header {hdr}", ["ours", "ref "][lib]);
    }
}

/// The frame reproducers open (or fail to open) as they do with the reference, and each is
/// quick: forged indexes claiming 10^8 chunks (a memcpyed special chunk whose `cbytes` does
/// not match, which the reference rejects), the header-recovery walk over such an index, and
/// a bytedelta filter told to use 654 million byte streams for 500 bytes.
#[test]
fn found_frames_open_as_with_the_reference() {
    use blosc2::ffi::abi::types::blosc2_schunk;
    use blosc2::ffi::schunk::{blosc2_schunk_free, blosc2_schunk_from_buffer};
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(lib) = common::RefLib::open() else {
        assert!(std::env::var_os("CI").is_none(), "the reference library is missing");
        return;
    };
    type FromBuffer = unsafe extern "C" fn(*mut u8, i64, bool) -> *mut blosc2_schunk;
    type Free = unsafe extern "C" fn(*mut blosc2_schunk) -> i32;
    // SAFETY: the reference's functions with these C signatures.
    let (ref_open, ref_free): (FromBuffer, Free) = unsafe {
        (std::mem::transmute(lib.sym("blosc2_schunk_from_buffer")), std::mem::transmute(lib.sym("blosc2_schunk_free")))
    };
    // SAFETY: blosc2_init of the reference (its plugins, bytedelta among them, register there).
    unsafe { std::mem::transmute::<*mut libc::c_void, unsafe extern "C" fn()>(lib.sym("blosc2_init"))() };
    let files = files_in(&fuzz_dir().join("artifacts-found").join("frame"));
    assert!(files.len() >= 6, "reproducers missing");
    for path in files {
        let data = std::fs::read(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let t = std::time::Instant::now();
        let mut a = data.clone();
        // SAFETY: a valid buffer of that length, copied by the library (copy = true).
        let ours = unsafe { blosc2_schunk_from_buffer(a.as_mut_ptr(), a.len() as i64, true) };
        let ours_nchunks = if ours.is_null() { -1 } else { unsafe { (*ours).nchunks } };
        if !ours.is_null() {
            // SAFETY: returned by from_buffer above.
            unsafe { blosc2_schunk_free(ours) };
        }
        let mut b = data.clone();
        // SAFETY: as above, with the reference's own functions.
        let theirs = unsafe { ref_open(b.as_mut_ptr(), b.len() as i64, true) };
        let ref_nchunks = if theirs.is_null() { -1 } else { unsafe { (*theirs).nchunks } };
        if !theirs.is_null() {
            // SAFETY: returned by the reference's from_buffer above.
            unsafe { ref_free(theirs) };
        }
        assert_eq!(ours_nchunks, ref_nchunks, "{name}: chunks seen at open (-1: refused)");
        fuzz_common::fuzz_frame(&data);
        assert!(t.elapsed().as_secs_f64() < 5.0, "{name} took {:?}", t.elapsed());
    }
}

/// Frames that must be refused at open, in either copy mode, although the reference's answer
/// on them is not reliable: their offsets index is an "uninitialized" special chunk, which the
/// reference decodes into a buffer it never fills (it refused them in the frame differential,
/// on whatever its fresh buffer held). We read every chunk of one of them as the first chunk,
/// with no error, before the index check.
#[test]
fn frames_with_an_undefined_index_are_refused() {
    use blosc2::ffi::schunk::{blosc2_schunk_free, blosc2_schunk_from_buffer};
    let files = files_in(&fuzz_dir().join("artifacts-found").join("frame-refused"));
    assert!(files.len() >= 2, "reproducers missing");
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let data = std::fs::read(&path).unwrap();
        for copy in [true, false] {
            let mut a = data.clone();
            // SAFETY: a valid buffer of that length, alive until after the free below.
            let s = unsafe { blosc2_schunk_from_buffer(a.as_mut_ptr(), a.len() as i64, copy) };
            if !s.is_null() {
                // SAFETY: returned by from_buffer above.
                unsafe { blosc2_schunk_free(s) };
            }
            assert!(s.is_null(), "{name}: opened (copy = {copy})");
        }
        fuzz_common::fuzz_frame(&data);
    }
}
