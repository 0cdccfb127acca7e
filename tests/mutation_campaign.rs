//! Hostile bytes at every decoding entry point: a deterministic mutation campaign over the
//! valid inputs of the fuzz seed corpus (chunks of every codec and filter pipeline written
//! by this library and by the reference, VL-block, special and dictionary chunks,
//! contiguous frames and b2nd arrays, the compat fixtures), plus b2nd arrays compressed
//! with NDLZ, ZFP, ndcell and ndmean by both libraries.
//!
//! Each seed gets structured mutations, not only random ones: bit flips (mostly in the
//! headers), truncation at every header boundary, 32- and 64-bit fields set to boundary
//! values (0, 1, -1, `i32::MAX`, `i32::MIN`, the input length and its neighbours, huge),
//! block offsets pointing outside the chunk, msgpack sizes and lengths that lie, and spliced
//! bytes. Every mutant goes through the fuzz targets' own checks (tests/fuzz_corpus.rs, and
//! fuzz/fuzz_targets/common.rs: guard bytes around every output, return codes within the
//! destination, agreement between 1 and 2 threads, getitem and whole decompression, ...);
//! frames are also written to disk and opened by path and at an offset inside a larger
//! file, and as sparse frames (a directory) with one of their files mutated, with every
//! chunk, lazy chunk, slice and metalayer read into guarded buffers.
//!
//! A crash fails the test process; a case that runs past `CASE_LIMIT` aborts it naming the
//! case; a panic or a guard byte overwritten fails the test, and the input is saved under
//! `target/mutation-failures/` for replay. The mutant sequence is fixed; `MUTATION_SECONDS`
//! (default 90) bounds the run, which reports how many cases it reached.

mod common;

#[path = "../fuzz/fuzz_targets/common.rs"]
mod fuzz_common;

use std::ffi::{c_void, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use blosc2::ffi::abi::{b2nd_array_t, b2nd_context_t, blosc2_metalayer, blosc2_schunk, blosc2_storage};
use blosc2::ffi::meta::{blosc2_vlmeta_get, blosc2_vlmeta_get_names};
use blosc2::ffi::schunk::{
    blosc2_schunk_decompress_chunk, blosc2_schunk_free, blosc2_schunk_get_lazychunk, blosc2_schunk_get_slice_buffer,
    blosc2_schunk_open, blosc2_schunk_open_offset,
};
use common::Rng;

/// Longest a single case may run before the campaign calls it a hang.
const CASE_LIMIT: Duration = Duration::from_secs(30);
/// Mutants per seed and target.
const PER_SEED: usize = 600;
/// Guard bytes on each side of an output buffer read here (the fuzz targets guard theirs).
const GUARD: usize = 64;

static PANICS: AtomicUsize = AtomicUsize::new(0);
static MESSAGES: Mutex<Vec<String>> = Mutex::new(Vec::new());
static RUNNING: AtomicBool = AtomicBool::new(false);

fn install_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !RUNNING.load(Ordering::SeqCst) {
                return default_hook(info);
            }
            PANICS.fetch_add(1, Ordering::SeqCst);
            let loc = info.location().map(|l| format!("{}:{}", l.file(), l.line())).unwrap_or_default();
            let msg = info
                .payload()
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| info.payload().downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            MESSAGES.lock().unwrap_or_else(|e| e.into_inner()).push(format!("{msg} (at {loc})"));
        }));
    });
}

/// The boundary values a length, offset or count field is set to.
fn boundary_i32(len: usize) -> [i32; 10] {
    let l = len.min(i32::MAX as usize) as i32;
    [0, 1, -1, i32::MAX, i32::MIN, l, l.wrapping_sub(1), l.wrapping_add(1), 0x7fff_fff0, 16]
}

fn put(buf: &mut [u8], at: usize, bytes: &[u8]) {
    if at < buf.len() {
        let n = bytes.len().min(buf.len() - at);
        buf[at..at + n].copy_from_slice(&bytes[..n]);
    }
}

/// Positions right after msgpack markers of sized values (uint32/int32/uint64/int64, str,
/// bin, array and map lengths): where a frame's header and trailer keep their sizes.
fn msgpack_fields(b: &[u8]) -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    for (i, &m) in b.iter().enumerate() {
        let width = match m {
            0xce | 0xd2 | 0xc6 | 0xdb | 0xdd | 0xdf => 4,
            0xcf | 0xd3 => 8,
            0xc5 | 0xda | 0xdc | 0xde => 2,
            _ => continue,
        };
        if i + 1 + width <= b.len() {
            v.push((i + 1, width));
        }
    }
    v
}

/// Mutant `k` of `payload` (deterministic in `rng`), with a short description.
fn mutate(payload: &[u8], k: usize, rng: &mut Rng) -> (String, Vec<u8>) {
    let mut b = payload.to_vec();
    let len = b.len();
    if len == 0 {
        return ("empty".into(), b);
    }
    let pick = |rng: &mut Rng, n: usize| (rng.next() % n.max(1) as u64) as usize;
    match k % 8 {
        0 => {
            // Bit flips, three in four in the first 64 bytes (the headers).
            let flips = 1 + pick(rng, 4);
            let mut at = Vec::new();
            for _ in 0..flips {
                let p = if rng.next() % 4 != 0 { pick(rng, len.min(64)) } else { pick(rng, len) };
                b[p] ^= 1 << (rng.next() % 8);
                at.push(p);
            }
            (format!("bitflip@{at:?}"), b)
        }
        1 => {
            // Truncation at a header boundary (chunk headers, block-start tables, frame
            // header fields) or anywhere.
            let nblocks = if len >= 16 { i32::from_le_bytes([b[4], b[5], b[6], b[7]]) as usize / i32::from_le_bytes([b[8], b[9], b[10], b[11]]).max(1) as usize } else { 0 };
            let cuts = [1, 2, 4, 8, 12, 15, 16, 17, 31, 32, 33, 48, 32 + 4 * nblocks.min(1 << 16), len / 2, len - 1];
            let c = if rng.next() % 3 == 0 { pick(rng, len) } else { cuts[pick(rng, cuts.len())].min(len - 1) };
            b.truncate(c);
            (format!("truncate@{c}"), b)
        }
        2 | 3 => {
            // A 32-bit field set to a boundary value: aligned in the first 64 bytes (chunk
            // header, first block starts) or anywhere.
            let v = boundary_i32(len)[pick(rng, 10)];
            let at = if k % 8 == 2 { 4 * pick(rng, 16) } else { pick(rng, len) };
            put(&mut b, at, &v.to_le_bytes());
            (format!("i32@{at}={v}"), b)
        }
        4 => {
            // A 64-bit field set to a boundary value (frame lengths and offsets are int64).
            let vals = [0i64, 1, -1, i64::MAX, i64::MIN, len as i64, len as i64 + 1, 1 << 40, i32::MAX as i64 + 1];
            let v = vals[pick(rng, vals.len())];
            let at = pick(rng, len);
            put(&mut b, at, &v.to_be_bytes());
            (format!("i64be@{at}={v}"), b)
        }
        5 => {
            // A msgpack size or length that lies (big-endian, as msgpack writes them).
            let fields = msgpack_fields(&b);
            if fields.is_empty() {
                let at = pick(rng, len);
                b[at] = b[at].wrapping_add(1 + pick(rng, 255) as u8);
                return (format!("byte@{at}"), b);
            }
            let (at, width) = fields[pick(rng, fields.len())];
            let v = boundary_i32(len)[pick(rng, 10)];
            let bytes = (v as i64).to_be_bytes();
            put(&mut b, at, &bytes[8 - width..]);
            (format!("msgpack@{at}/{width}={v}"), b)
        }
        6 => {
            // Block starts (chunk offset 32 + 4j) pointing outside or into the header.
            let j = pick(rng, 8);
            let vals = [0i32, 8, 31, len as i32, len as i32 - 1, i32::MAX, -16];
            let v = vals[pick(rng, vals.len())];
            put(&mut b, 32 + 4 * j, &v.to_le_bytes());
            (format!("bstart{j}={v}"), b)
        }
        _ => {
            // Bytes spliced from elsewhere in the input.
            let from = pick(rng, len);
            let to = pick(rng, len);
            let n = (1 + pick(rng, 64)).min(len - from).min(len - to);
            let piece = b[from..from + n].to_vec();
            b[to..to + n].copy_from_slice(&piece);
            (format!("splice {from}->{to} x{n}"), b)
        }
    }
}

/// A guarded output buffer: `n` usable bytes between two guard zones.
struct Guarded(Vec<u8>, usize);

impl Guarded {
    fn new(n: usize) -> Guarded {
        Guarded(vec![0xA5; n + 2 * GUARD], n)
    }
    fn ptr(&mut self) -> *mut c_void {
        self.0[GUARD..].as_mut_ptr() as *mut c_void
    }
    fn intact(&self) -> bool {
        self.0[..GUARD].iter().all(|&x| x == 0xA5) && self.0[GUARD + self.1..].iter().all(|&x| x == 0xA5)
    }
}

/// Reads everything an opened super-chunk claims to hold, into guarded buffers; panics on a
/// guard overwritten or an impossible size.
///
/// # Safety
/// `sc` is a live super-chunk.
unsafe fn read_all(sc: *mut blosc2_schunk, what: &str) {
    // SAFETY: per contract; fields of a live super-chunk.
    let (nchunks, chunksize, typesize, nbytes) =
        unsafe { ((*sc).nchunks.clamp(0, 16), (*sc).chunksize, (*sc).typesize.max(1), (*sc).nbytes) };
    let cap = if chunksize > 0 { (chunksize as usize).min(4 << 20) } else { 1 << 16 };
    for n in 0..nchunks {
        let mut out = Guarded::new(cap);
        // SAFETY: out holds cap writable bytes.
        let rc = unsafe { blosc2_schunk_decompress_chunk(sc, n, out.ptr(), cap as i32) };
        assert!(out.intact(), "{what}: chunk {n} wrote outside its buffer");
        assert!(rc <= cap as i32, "{what}: chunk {n} claims {rc} bytes of {cap}");
        let mut chunk: *mut u8 = std::ptr::null_mut();
        let mut needs_free = false;
        // SAFETY: valid out-pointers.
        let clen = unsafe { blosc2_schunk_get_lazychunk(sc, n, &mut chunk, &mut needs_free) };
        if clen > 0 && !chunk.is_null() {
            // SAFETY: the library hands out clen readable bytes; touch them all.
            let sum = unsafe { std::slice::from_raw_parts(chunk, clen as usize) }.iter().fold(0u8, |a, &x| a ^ x);
            std::hint::black_box(sum);
        }
        if needs_free && !chunk.is_null() {
            // SAFETY: allocated by the library with malloc.
            unsafe { libc::free(chunk as *mut c_void) };
        }
    }
    // A slice across the first chunks.
    let items = (nbytes.clamp(0, 1 << 18) / typesize as i64).min((1 << 18) / typesize as i64);
    if items > 0 {
        let len = (items * typesize as i64) as usize;
        let mut out = Guarded::new(len);
        // SAFETY: out holds len bytes = items * typesize.
        let rc = unsafe { blosc2_schunk_get_slice_buffer(sc, 0, items, out.ptr()) };
        assert!(out.intact(), "{what}: slice wrote outside its buffer (rc {rc})");
    }
    // Metalayers: every content byte must be readable.
    // SAFETY: the metalayer array of a live super-chunk; contents are content_len bytes.
    unsafe {
        for i in 0..((*sc).nmetalayers as usize).min(16) {
            let m = (*sc).metalayers[i];
            if !m.is_null() && !(*m).content.is_null() && (*m).content_len > 0 {
                let s = std::slice::from_raw_parts((*m).content, (*m).content_len as usize);
                std::hint::black_box(s.iter().fold(0u8, |a, &x| a ^ x));
            }
        }
        let mut names: Vec<*mut libc::c_char> = vec![std::ptr::null_mut(); 64];
        let nv = blosc2_vlmeta_get_names(sc, names.as_mut_ptr());
        for name in names.iter().take(nv.clamp(0, 64) as usize) {
            if name.is_null() {
                continue;
            }
            let mut content: *mut u8 = std::ptr::null_mut();
            let mut clen = 0i32;
            if blosc2_vlmeta_get(sc, *name, &mut content, &mut clen) >= 0 && !content.is_null() {
                let s = std::slice::from_raw_parts(content, clen.max(0) as usize);
                std::hint::black_box(s.iter().fold(0u8, |a, &x| a ^ x));
                libc::free(content as *mut c_void);
            }
        }
    }
}

/// Writes `frame` to disk and opens it by path and at an offset inside a larger file.
fn frame_on_disk(frame: &[u8], dir: &Path) {
    let plain = dir.join("m.b2frame");
    std::fs::write(&plain, frame).unwrap();
    let c = CString::new(plain.to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path.
    let sc = unsafe { blosc2_schunk_open(c.as_ptr()) };
    if !sc.is_null() {
        // SAFETY: live super-chunk, freed once.
        unsafe {
            read_all(sc, "file frame");
            blosc2_schunk_free(sc);
        }
    }
    let offset = dir.join("o.bin");
    let mut bytes = vec![0x5Au8; 77];
    bytes.extend_from_slice(frame);
    bytes.extend_from_slice(&[0xC3; 13]);
    std::fs::write(&offset, &bytes).unwrap();
    let c = CString::new(offset.to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path.
    let sc = unsafe { blosc2_schunk_open_offset(c.as_ptr(), 77) };
    if !sc.is_null() {
        // SAFETY: live super-chunk, freed once.
        unsafe {
            read_all(sc, "frame at an offset");
            blosc2_schunk_free(sc);
        }
    }
}

type CreateCtx = unsafe extern "C" fn(
    *const blosc2_storage,
    i8,
    *const i64,
    *const i32,
    *const i32,
    *const libc::c_char,
    i8,
    *const blosc2_metalayer,
    i32,
) -> *mut b2nd_context_t;
type FromCbuffer = unsafe extern "C" fn(*mut b2nd_context_t, *mut *mut b2nd_array_t, *const c_void, i64) -> i32;
type ToCframe = unsafe extern "C" fn(*const b2nd_array_t, *mut *mut u8, *mut i64, *mut bool) -> i32;
type FreeArray = unsafe extern "C" fn(*mut b2nd_array_t) -> i32;
type FreeCtx = unsafe extern "C" fn(*mut b2nd_context_t) -> i32;

/// The b2nd calls that build an array frame, from one library.
struct B2ndLib(CreateCtx, FromCbuffer, ToCframe, FreeArray, FreeCtx);

fn b2nd_libs() -> Vec<(&'static str, B2ndLib)> {
    use blosc2::ffi::b2nd as b;
    let mut v = vec![("ours", B2ndLib(b::b2nd_create_ctx, b::b2nd_from_cbuffer, b::b2nd_to_cframe, b::b2nd_free, b::b2nd_free_ctx))];
    if let Some(r) = common::RefLib::open() {
        // SAFETY: the reference's functions have these C signatures (b2nd.h); it is
        // initialised first, as every program using it must.
        unsafe {
            std::mem::transmute::<*mut c_void, unsafe extern "C" fn()>(r.sym("blosc2_init"))();
            v.push((
                "ref",
                B2ndLib(
                    std::mem::transmute::<*mut c_void, CreateCtx>(r.sym("b2nd_create_ctx")),
                    std::mem::transmute::<*mut c_void, FromCbuffer>(r.sym("b2nd_from_cbuffer")),
                    std::mem::transmute::<*mut c_void, ToCframe>(r.sym("b2nd_to_cframe")),
                    std::mem::transmute::<*mut c_void, FreeArray>(r.sym("b2nd_free")),
                    std::mem::transmute::<*mut c_void, FreeCtx>(r.sym("b2nd_free_ctx")),
                ),
            ));
            std::mem::forget(r);
        }
    }
    v
}

/// b2nd array frames compressed with the n-dimensional codecs (NDLZ 4x4 and 8x8 cells, ZFP
/// in its three modes) and filters (ndcell, ndmean), written by both libraries: the fuzz
/// corpus has none, and these codecs read their geometry from the frame's metalayer.
fn nd_codec_seeds() -> Vec<(String, Vec<u8>)> {
    // (name, codec, codec meta, filter, filter meta, typesize, float data)
    let cases: [(&str, u8, u8, u8, u8, i32, bool); 8] = [
        ("plain", 0, 0, 1, 0, 4, true),
        ("ndlz4", 32, 4, 0, 0, 1, false),
        ("ndlz8", 32, 8, 0, 0, 1, false),
        ("zfp-acc", 33, 5, 0, 0, 8, true),
        ("zfp-prec", 34, 20, 0, 0, 4, true),
        ("zfp-rate", 35, 30, 0, 0, 8, true),
        ("ndcell", 1, 0, 32, 4, 4, true),
        ("ndmean", 1, 0, 33, 4, 4, true),
    ];
    let (shape, chunk, block) = ([100i64, 75], [50i32, 40], [25i32, 20]);
    let mut out = Vec::new();
    for (lname, lib) in b2nd_libs() {
        for &(name, codec, cmeta, filter, fmeta, ts, float) in &cases {
            let n = (shape[0] * shape[1]) as usize;
            let data: Vec<u8> = if !float {
                (0..n).map(|i| ((i / 7) % 5) as u8 * 9).collect()
            } else if ts == 4 {
                (0..n).flat_map(|i| ((i as f32 * 0.05).sin() * 10.0).to_le_bytes()).collect()
            } else {
                (0..n).flat_map(|i| ((i as f64 * 0.05).cos() * 10.0).to_le_bytes()).collect()
            };
            let mut cp = blosc2::ffi::abi::BLOSC2_CPARAMS_DEFAULTS;
            cp.typesize = ts;
            cp.compcode = codec;
            cp.compcode_meta = cmeta;
            cp.filters = [0; 6];
            cp.filters[5] = filter;
            cp.filters_meta[5] = fmeta;
            cp.nthreads = 1;
            let st = blosc2_storage { contiguous: true, cparams: &mut cp, ..blosc2::ffi::abi::BLOSC2_STORAGE_DEFAULTS };
            let dtype = CString::new(match (float, ts) { (false, _) => "|u1", (true, 4) => "<f4", _ => "<f8" }).unwrap();
            // SAFETY: C API calls with valid arguments; the frame is copied before it is freed.
            unsafe {
                let ctx = (lib.0)(&st, 2, shape.as_ptr(), chunk.as_ptr(), block.as_ptr(), dtype.as_ptr(), 0, std::ptr::null(), 0);
                assert!(!ctx.is_null(), "{lname} {name}: no b2nd context");
                let mut arr: *mut b2nd_array_t = std::ptr::null_mut();
                let rc = (lib.1)(ctx, &mut arr, data.as_ptr() as *const c_void, data.len() as i64);
                if lname == "ref" && rc < 0 {
                    // Not every geometry suits the reference's plugins; ours must write all.
                    eprintln!("mutation campaign: the reference cannot write {name} here ({rc})");
                    (lib.4)(ctx);
                    continue;
                }
                assert_eq!(rc, 0, "{lname} {name}: from_cbuffer");
                let mut p: *mut u8 = std::ptr::null_mut();
                let mut len = 0i64;
                let mut needs_free = false;
                assert!((lib.2)(arr, &mut p, &mut len, &mut needs_free) >= 0 && len > 0, "{lname} {name}: to_cframe");
                let frame = std::slice::from_raw_parts(p, len as usize).to_vec();
                if needs_free {
                    libc::free(p as *mut c_void);
                }
                (lib.3)(arr);
                (lib.4)(ctx);
                out.push((format!("nd-{lname}-{name}"), frame));
            }
        }
    }
    out
}

/// A sparse frame (a directory: `chunks.b2frame` index plus one file per chunk) made from
/// the valid contiguous frame `frame`, as the list of its files and their bytes; `None`
/// when the frame does not open.
fn sparse_of(frame: &[u8], dir: &Path) -> Option<Vec<(PathBuf, Vec<u8>)>> {
    let sdir = dir.join("s.b2frame");
    let _ = std::fs::remove_dir_all(&sdir);
    let c = CString::new(sdir.to_str().unwrap()).unwrap();
    let mut copy = frame.to_vec();
    // SAFETY: C API calls on valid arguments; both super-chunks are freed once.
    unsafe {
        let sc = blosc2::ffi::schunk::blosc2_schunk_from_buffer(copy.as_mut_ptr(), copy.len() as i64, true);
        if sc.is_null() {
            return None;
        }
        let mut st = blosc2::ffi::abi::BLOSC2_STORAGE_DEFAULTS;
        st.contiguous = false;
        st.urlpath = c.as_ptr() as *mut libc::c_char;
        let sparse = blosc2::ffi::schunk::blosc2_schunk_copy(sc, &mut st);
        blosc2_schunk_free(sc);
        if sparse.is_null() {
            return None;
        }
        blosc2_schunk_free(sparse);
    }
    let mut files: Vec<(PathBuf, Vec<u8>)> =
        std::fs::read_dir(&sdir).ok()?.map(|e| e.unwrap().path()).map(|p| { let b = std::fs::read(&p).unwrap(); (p, b) }).collect();
    files.sort();
    Some(files)
}

/// Sparse frames on disk: one file of the directory (the index or a chunk) mutated, the
/// directory opened and read like the contiguous ones.
fn sparse_mutants(
    frame_seeds: &[(String, Vec<u8>)],
    dir: &Path,
    t0: Instant,
    budget: Duration,
    watch: (&Mutex<String>, &AtomicU64),
    failures: &mut Vec<String>,
) -> usize {
    let mut ran = 0;
    for (si, (name, frame)) in frame_seeds.iter().enumerate() {
        let Some(files) = sparse_of(frame, dir) else { continue };
        let sdir = dir.join("s.b2frame");
        let mut rng = Rng::new(0x5_9A85E + si as u64);
        for k in 0..PER_SEED / 8 {
            if t0.elapsed() > budget {
                return ran;
            }
            let (victim, bytes) = &files[(rng.next() % files.len() as u64) as usize];
            let (desc, mutant) = mutate(bytes, k, &mut rng);
            for (p, b) in &files {
                std::fs::write(p, if p == victim { &mutant } else { b }).unwrap();
            }
            let label = format!("sparse/{name} #{k} {} {desc}", victim.file_name().unwrap().to_string_lossy());
            *watch.0.lock().unwrap_or_else(|e| e.into_inner()) = label.clone();
            watch.1.store(t0.elapsed().as_millis() as u64 + 1, Ordering::SeqCst);
            MESSAGES.lock().unwrap_or_else(|e| e.into_inner()).clear();
            let before = PANICS.load(Ordering::SeqCst);
            let c = CString::new(sdir.to_str().unwrap()).unwrap();
            let r = catch_unwind(AssertUnwindSafe(|| {
                // SAFETY: a NUL-terminated path; the super-chunk is freed once.
                unsafe {
                    let sc = blosc2_schunk_open(c.as_ptr());
                    if !sc.is_null() {
                        read_all(sc, "sparse frame");
                        blosc2_schunk_free(sc);
                    }
                }
            }));
            watch.1.store(0, Ordering::SeqCst);
            ran += 1;
            if r.is_err() || PANICS.load(Ordering::SeqCst) != before {
                let msgs = MESSAGES.lock().unwrap_or_else(|e| e.into_inner()).join(" | ");
                failures.push(format!("{label}: {msgs}"));
            }
        }
    }
    ran
}

struct Campaign {
    target: &'static str,
    ctl: usize,
    run: fn(&[u8]),
    on_disk: bool,
}

fn seeds(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = common::project_root().join("fuzz").join("corpus").join(target);
    let mut v: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            n.starts_with("seed-") || n.starts_with("fixture-")
        })
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    v.sort();
    v
}

fn failure_dir() -> PathBuf {
    let d = common::project_root().join("target").join("mutation-failures");
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn hostile_bytes_at_every_decoding_entry_point() {
    let budget = Duration::from_secs(std::env::var("MUTATION_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(90));
    let campaigns = [
        Campaign { target: "decompress", ctl: fuzz_common::DECOMPRESS_CTL, run: fuzz_common::fuzz_decompress, on_disk: false },
        Campaign { target: "vlblocks", ctl: fuzz_common::VLBLOCKS_CTL, run: fuzz_common::fuzz_vlblocks, on_disk: false },
        Campaign { target: "frame", ctl: 0, run: fuzz_common::fuzz_frame, on_disk: true },
        Campaign { target: "b2nd", ctl: fuzz_common::B2ND_CTL, run: fuzz_common::fuzz_b2nd, on_disk: true },
    ];
    // MUTATION_ONLY=<text>: run only the cases whose label contains it (to replay one).
    let only = std::env::var("MUTATION_ONLY").ok();
    install_hook();
    let dir = std::env::temp_dir().join(format!("b2mut-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();

    // Watchdog: a case running past CASE_LIMIT is a hang; say which and stop the process.
    let current = Arc::new(Mutex::new(String::new()));
    let started_ms = Arc::new(AtomicU64::new(0));
    let t0 = Instant::now();
    {
        let (current, started_ms) = (current.clone(), started_ms.clone());
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_millis(500));
            let s = started_ms.load(Ordering::SeqCst);
            let now = t0.elapsed().as_millis() as u64;
            if s != 0 && now.saturating_sub(s) > CASE_LIMIT.as_millis() as u64 {
                eprintln!("mutation campaign: HANG in {}", current.lock().unwrap_or_else(|e| e.into_inner()));
                std::process::abort();
            }
        });
    }

    let mut failures = Vec::new();
    let mut ran = 0usize;
    let mut planned = 0usize;
    let mut out_of_time = false;
    let mut sparse_ran = 0usize;
    let nd = nd_codec_seeds();
    assert!(nd.len() >= 7);
    RUNNING.store(true, Ordering::SeqCst);
    for (ci, c) in campaigns.iter().enumerate() {
        let mut seeds = seeds(c.target);
        // The n-dimensional codecs' frames, as frames and as b2nd arrays (after control
        // bytes that read every slice kind).
        if c.target == "frame" || c.target == "b2nd" {
            seeds.extend(nd.iter().map(|(n, f)| {
                let mut v = vec![0u8; c.ctl];
                v.extend_from_slice(f);
                (n.clone(), v)
            }));
        }
        assert!(seeds.len() >= 10, "only {} seeds for {}", seeds.len(), c.target);
        planned += seeds.len() * PER_SEED;
        for (si, (name, seed)) in seeds.iter().enumerate() {
            if seed.len() <= c.ctl {
                continue;
            }
            let (ctl, payload) = seed.split_at(c.ctl);
            let mut rng = Rng::new(0xB10C_0000 + (ci as u64) * 100_000 + si as u64);
            for k in 0..PER_SEED {
                if t0.elapsed() > budget {
                    out_of_time = true;
                    break;
                }
                let (desc, mutant) = mutate(payload, k, &mut rng);
                let mut input = ctl.to_vec();
                input.extend_from_slice(&mutant);
                let label = format!("{}/{name} #{k} {desc}", c.target);
                if only.as_deref().is_some_and(|o| !label.contains(o)) {
                    continue;
                }
                *current.lock().unwrap_or_else(|e| e.into_inner()) = label.clone();
                started_ms.store(t0.elapsed().as_millis() as u64 + 1, Ordering::SeqCst);
                MESSAGES.lock().unwrap_or_else(|e| e.into_inner()).clear();
                let before = PANICS.load(Ordering::SeqCst);
                let r = catch_unwind(AssertUnwindSafe(|| {
                    (c.run)(&input);
                    if c.on_disk {
                        frame_on_disk(&mutant, &dir);
                    }
                }));
                started_ms.store(0, Ordering::SeqCst);
                ran += 1;
                if r.is_err() || PANICS.load(Ordering::SeqCst) != before {
                    let msgs = MESSAGES.lock().unwrap_or_else(|e| e.into_inner()).join(" | ");
                    let file = failure_dir().join(format!("{}-{}-{k}", c.target, name));
                    std::fs::write(&file, &input).unwrap();
                    failures.push(format!("{label}: {msgs} (input: {})", file.display()));
                }
            }
            if out_of_time {
                break;
            }
        }
        if out_of_time {
            break;
        }
    }
    // Sparse frames: the frame seeds written as directories, one file mutated at a time.
    if !out_of_time && only.is_none() {
        let mut frames = seeds("frame");
        frames.extend(nd.iter().cloned());
        sparse_ran = sparse_mutants(&frames, &dir, t0, budget, (&current, &started_ms), &mut failures);
        ran += sparse_ran;
    }
    RUNNING.store(false, Ordering::SeqCst);
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "mutation campaign: {ran} cases ({} of {planned} planned in memory and files, {sparse_ran} on sparse frames) in {:.1} s{}",
        ran - sparse_ran,
        t0.elapsed().as_secs_f64(),
        if out_of_time { " (time budget reached)" } else { "" }
    );
    assert!(ran >= 1000 || only.is_some(), "only {ran} cases ran");
    assert!(failures.is_empty(), "{} of {ran} mutants failed:\n{}", failures.len(), failures.join("\n"));
}
