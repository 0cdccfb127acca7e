//! Super-chunk tests: round trips through every store, fixtures, corruption, and byte-for-byte
//! comparison with the frames the reference library writes for the same operations (loaded
//! in-process with dlopen; skipped when `reference/` has not been fetched).

use std::ffi::{c_char, c_void, CString};
use std::path::{Path, PathBuf};

use super::*;
use crate::chunk::{CompressParams, DecompressParams, Special};
use crate::ffi::abi::{blosc2_cparams, blosc2_dparams};

fn params(typesize: i32) -> (CompressParams, DecompressParams) {
    let c = CompressParams { typesize, nthreads: 1, ..CompressParams::default() };
    (c, DecompressParams::default())
}

fn data(n: usize, seed: u32) -> Vec<u8> {
    (0..n as u32).flat_map(|i| (i.wrapping_mul(7).wrapping_add(seed) % 1000).to_le_bytes()).collect()
}

fn tmpdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("b2schunk-{}-{}", tag, std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn shared(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("shared").join(rel)
}

// ----- the reference, loaded in-process -----

#[repr(C)]
struct Storage {
    contiguous: bool,
    urlpath: *mut c_char,
    cparams: *mut blosc2_cparams,
    dparams: *mut blosc2_dparams,
    io: *mut c_void,
}

type Sc = *mut c_void;

#[allow(clippy::type_complexity)]
struct Reference {
    cparams_defaults: unsafe extern "C" fn() -> blosc2_cparams,
    dparams_defaults: unsafe extern "C" fn() -> blosc2_dparams,
    new: unsafe extern "C" fn(*mut Storage) -> Sc,
    open: unsafe extern "C" fn(*const c_char) -> Sc,
    free: unsafe extern "C" fn(Sc) -> i32,
    append_buffer: unsafe extern "C" fn(Sc, *const c_void, i32) -> i64,
    append_chunk: unsafe extern "C" fn(Sc, *mut u8, bool) -> i64,
    insert_chunk: unsafe extern "C" fn(Sc, i64, *mut u8, bool) -> i64,
    update_chunk: unsafe extern "C" fn(Sc, i64, *mut u8, bool) -> i64,
    delete_chunk: unsafe extern "C" fn(Sc, i64) -> i64,
    reorder: unsafe extern "C" fn(Sc, *const i64) -> i32,
    to_buffer: unsafe extern "C" fn(Sc, *mut *mut u8, *mut bool) -> i64,
    meta_add: unsafe extern "C" fn(Sc, *const c_char, *const u8, i32) -> i32,
    vlmeta_add: unsafe extern "C" fn(Sc, *const c_char, *const u8, i32, *mut blosc2_cparams) -> i32,
    fill_special: unsafe extern "C" fn(Sc, i64, i32, i32) -> i32,
}

#[allow(clippy::missing_transmute_annotations)]
fn reference() -> Option<&'static Reference> {
    static REF: std::sync::OnceLock<Option<Reference>> = std::sync::OnceLock::new();
    REF.get_or_init(|| {
        let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("reference/blosc2/lib/libblosc2.so.9");
        if !p.exists() {
            eprintln!("reference library missing; differential test skipped");
            return None;
        }
        let c = CString::new(p.to_str()?).ok()?;
        // SAFETY: loading a shared library by path; it stays loaded for the process.
        let h = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL | libc::RTLD_DEEPBIND) };
        assert!(!h.is_null());
        let sym = |name: &str| {
            let n = CString::new(name).unwrap();
            // SAFETY: `h` is a valid handle; a null result is checked.
            let p = unsafe { libc::dlsym(h, n.as_ptr()) };
            assert!(!p.is_null(), "{name}");
            p
        };
        // SAFETY: every symbol is cast to its C prototype from blosc2.h.
        unsafe {
            let init: unsafe extern "C" fn() = std::mem::transmute(sym("blosc2_init"));
            init();
            Some(Reference {
                cparams_defaults: std::mem::transmute(sym("blosc2_get_blosc2_cparams_defaults")),
                dparams_defaults: std::mem::transmute(sym("blosc2_get_blosc2_dparams_defaults")),
                new: std::mem::transmute(sym("blosc2_schunk_new")),
                open: std::mem::transmute(sym("blosc2_schunk_open")),
                free: std::mem::transmute(sym("blosc2_schunk_free")),
                append_buffer: std::mem::transmute(sym("blosc2_schunk_append_buffer")),
                append_chunk: std::mem::transmute(sym("blosc2_schunk_append_chunk")),
                insert_chunk: std::mem::transmute(sym("blosc2_schunk_insert_chunk")),
                update_chunk: std::mem::transmute(sym("blosc2_schunk_update_chunk")),
                delete_chunk: std::mem::transmute(sym("blosc2_schunk_delete_chunk")),
                reorder: std::mem::transmute(sym("blosc2_schunk_reorder_offsets")),
                to_buffer: std::mem::transmute(sym("blosc2_schunk_to_buffer")),
                meta_add: std::mem::transmute(sym("blosc2_meta_add")),
                vlmeta_add: std::mem::transmute(sym("blosc2_vlmeta_add")),
                fill_special: std::mem::transmute(sym("blosc2_schunk_fill_special")),
            })
        }
    })
    .as_ref()
}

/// One operation applied to both implementations.
#[derive(Clone)]
enum Op {
    Append(Vec<u8>),
    AppendChunk(Vec<u8>),
    Insert(i64, Vec<u8>),
    Update(i64, Vec<u8>),
    Delete(i64),
    Reorder(Vec<i64>),
    Meta(&'static str, Vec<u8>),
    VlMeta(&'static str, Vec<u8>),
    Fill(i64, Special, i32),
}

fn ref_frame(r: &Reference, s: Sc) -> Vec<u8> {
    let mut p: *mut u8 = std::ptr::null_mut();
    let mut nf = false;
    // SAFETY: `s` is a live schunk; the buffer is copied and freed when owned.
    unsafe {
        let n = (r.to_buffer)(s, &mut p, &mut nf);
        assert!(n > 0);
        let v = std::slice::from_raw_parts(p, n as usize).to_vec();
        if nf {
            libc::free(p as *mut c_void);
        }
        v
    }
}

/// Run `ops` on a reference schunk and on ours (same storage kind) and compare the frames
/// after every step.
fn differential(typesize: i32, contiguous: bool, ops: &[Op]) {
    let Some(r) = reference() else { return };
    // SAFETY: plain C calls with valid pointers that outlive them.
    unsafe {
        let mut cp = (r.cparams_defaults)();
        cp.typesize = typesize;
        cp.nthreads = 1;
        let mut dp = (r.dparams_defaults)();
        let mut st = Storage {
            contiguous,
            urlpath: std::ptr::null_mut(),
            cparams: &mut cp,
            dparams: &mut dp,
            io: std::ptr::null_mut(),
        };
        let rs = (r.new)(&mut st);
        assert!(!rs.is_null());
        let (c, d) = params(typesize);
        let mut ours = SuperChunk::new(c, d, &StorageSpec { contiguous, urlpath: None }).unwrap();
        assert_eq!(ours.to_buffer().unwrap().as_ref(), ref_frame(r, rs).as_slice(), "empty");
        for (step, op) in ops.iter().enumerate() {
            match op {
                Op::Append(b) => {
                    let rr = (r.append_buffer)(rs, b.as_ptr() as *const c_void, b.len() as i32);
                    assert_eq!(ours.append_buffer(b).unwrap(), rr, "step {step}");
                }
                Op::AppendChunk(ch) => {
                    let mut c2 = ch.clone();
                    let rr = (r.append_chunk)(rs, c2.as_mut_ptr(), true);
                    assert_eq!(ours.append_chunk(ch).unwrap(), rr, "step {step}");
                }
                Op::Insert(n, ch) => {
                    let mut c2 = ch.clone();
                    let rr = (r.insert_chunk)(rs, *n, c2.as_mut_ptr(), true);
                    assert_eq!(ours.insert_chunk(*n, ch).unwrap(), rr, "step {step}");
                }
                Op::Update(n, ch) => {
                    let mut c2 = ch.clone();
                    let rr = (r.update_chunk)(rs, *n, c2.as_mut_ptr(), true);
                    assert_eq!(ours.update_chunk(*n, ch).unwrap(), rr, "step {step}");
                }
                Op::Delete(n) => {
                    let rr = (r.delete_chunk)(rs, *n);
                    assert_eq!(ours.delete_chunk(*n).unwrap(), rr, "step {step}");
                }
                Op::Reorder(o) => {
                    assert_eq!((r.reorder)(rs, o.as_ptr()), 0);
                    ours.reorder_offsets(o).unwrap();
                }
                Op::Meta(name, b) => {
                    let n = CString::new(*name).unwrap();
                    let rr = (r.meta_add)(rs, n.as_ptr(), b.as_ptr(), b.len() as i32);
                    assert_eq!(ours.meta_add(name, b).unwrap() as i32, rr, "step {step}");
                }
                Op::VlMeta(name, b) => {
                    let n = CString::new(*name).unwrap();
                    let rr = (r.vlmeta_add)(rs, n.as_ptr(), b.as_ptr(), b.len() as i32, std::ptr::null_mut());
                    assert_eq!(ours.vlmeta_add(name, b, None).unwrap() as i32, rr, "step {step}");
                }
                Op::Fill(nitems, kind, cs) => {
                    let rr = (r.fill_special)(rs, *nitems, kind.bits() as i32, *cs);
                    assert_eq!(ours.fill_special(*nitems, *kind, *cs).unwrap(), rr as i64, "step {step}");
                }
            }
            let want = ref_frame(r, rs);
            let got = ours.to_buffer().unwrap().into_owned();
            if got != want {
                let at = got.iter().zip(&want).position(|(a, b)| a != b).unwrap_or(got.len().min(want.len()));
                panic!(
                    "step {step} (contiguous={contiguous}): frames differ at byte {at} (len ours {} ref {})",
                    got.len(),
                    want.len()
                );
            }
            // Our own frame must read back to the same content.
            let back = SuperChunk::from_frame_vec(got.clone()).unwrap();
            assert_eq!(back.nchunks(), ours.nchunks());
            assert_eq!(back.nbytes(), ours.nbytes());
        }
        (r.free)(rs);
    }
}

fn compressed(typesize: i32, src: &[u8]) -> Vec<u8> {
    let (c, _) = params(typesize);
    let mut out = vec![0u8; src.len() + 32];
    let n = Compressor::new(c).compress(src, &mut out).unwrap();
    out.truncate(n);
    out
}

fn special(typesize: i32, nbytes: i32, kind: Special) -> Vec<u8> {
    let (c, _) = params(typesize);
    let mut out = vec![0u8; 32];
    let n = write_special(&c, nbytes, kind, None, &mut out).unwrap();
    out.truncate(n);
    out
}

#[test]
fn reference_appends_and_metalayers() {
    for contiguous in [true, false] {
        differential(
            4,
            contiguous,
            &[
                Op::Meta("m1", vec![1, 2, 3]),
                Op::Meta("m2", vec![9; 40]),
                Op::Append(data(100, 1)),
                Op::Append(data(100, 2)),
                Op::AppendChunk(special(4, 400, Special::Zero)),
                Op::VlMeta("vl1", vec![1, 2, 3]),
                Op::VlMeta("vl2", data(300, 5)),
                Op::Append(data(50, 3)),
            ],
        );
    }
}

#[test]
fn reference_insert_update_delete_reorder() {
    let full = compressed(4, &data(100, 7));
    let short = compressed(4, &data(30, 8));
    for contiguous in [true, false] {
        differential(
            4,
            contiguous,
            &[
                Op::Append(data(100, 1)),
                Op::Append(data(100, 2)),
                Op::Append(data(100, 3)),
                Op::Insert(1, full.clone()),
                Op::Update(0, compressed(4, &data(100, 9))),
                Op::Update(2, special(4, 400, Special::Nan)),
                Op::Update(2, full.clone()),
                Op::Delete(1),
                Op::Reorder(vec![2, 0, 1]),
                Op::Append(data(30, 4)),
                Op::Update(1, short.clone()),
                Op::Append(data(200, 4)),
            ],
        );
    }
}

/// A frame file whose every chunk was deleted opens with both libraries, whichever wrote it:
/// the reference writes it as header and trailer (no payload, no index) and reads the
/// trailer right after the header when the frame has no chunks; we left the old payload and
/// an empty index in between, which the reference could not open ("Cannot access the
/// vlmetalayers"), and refused its file (its header keeps the old cbytes).
#[test]
fn reference_frames_emptied_by_deletes_cross_open() {
    let Some(r) = reference() else { return };
    let dir = tmpdir("emptied");
    for contiguous in [true, false] {
        for writer_is_ref in [true, false] {
            let path = dir.join(format!("f-{contiguous}-{writer_is_ref}.b2frame"));
            let cpath = CString::new(path.to_str().unwrap()).unwrap();
            let what = format!("contiguous={contiguous}, written by {}", if writer_is_ref { "the reference" } else { "us" });
            // SAFETY: plain C calls of the reference with valid pointers that outlive them.
            unsafe {
                if writer_is_ref {
                    let mut cp = (r.cparams_defaults)();
                    cp.typesize = 4;
                    let mut dp = (r.dparams_defaults)();
                    let mut st = Storage {
                        contiguous,
                        urlpath: cpath.as_ptr() as *mut c_char,
                        cparams: &mut cp,
                        dparams: &mut dp,
                        io: std::ptr::null_mut(),
                    };
                    let rs = (r.new)(&mut st);
                    assert!(!rs.is_null());
                    for seed in [1, 2] {
                        let b = data(1000, seed);
                        assert!((r.append_buffer)(rs, b.as_ptr() as *const c_void, b.len() as i32) >= 0);
                    }
                    let n = CString::new("vl").unwrap();
                    assert!((r.vlmeta_add)(rs, n.as_ptr(), [1u8, 2, 3].as_ptr(), 3, std::ptr::null_mut()) >= 0);
                    assert_eq!((r.delete_chunk)(rs, 1), 1);
                    assert_eq!((r.delete_chunk)(rs, 0), 0);
                    (r.free)(rs);
                } else {
                    let (c, d) = params(4);
                    let spec = StorageSpec { contiguous, urlpath: Some(path.clone()) };
                    let mut s = SuperChunk::new(c, d, &spec).unwrap();
                    s.append_buffer(&data(1000, 1)).unwrap();
                    s.append_buffer(&data(1000, 2)).unwrap();
                    s.vlmeta_add("vl", &[1, 2, 3], None).unwrap();
                    s.delete_chunk(1).unwrap();
                    s.delete_chunk(0).unwrap();
                }
                let rs = (r.open)(cpath.as_ptr());
                assert!(!rs.is_null(), "the reference opens the emptied frame ({what})");
                (r.free)(rs);
            }
            let mut s = SuperChunk::open(&path, 0).unwrap_or_else(|e| panic!("we open the emptied frame ({what}): {e:?}"));
            assert_eq!(s.nchunks(), 0, "{what}");
            assert_eq!(s.vlmeta_get("vl").unwrap(), [1, 2, 3], "{what}");
            // And it takes chunks again, readable by both.
            s.append_buffer(&data(1000, 3)).unwrap();
            drop(s);
            let s = SuperChunk::open(&path, 0).unwrap();
            assert_eq!(s.nchunks(), 1, "{what}");
            // SAFETY: as above.
            unsafe {
                let rs = (r.open)(cpath.as_ptr());
                assert!(!rs.is_null(), "the reference opens the refilled frame ({what})");
                (r.free)(rs);
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn reference_variable_chunks() {
    for contiguous in [true, false] {
        differential(
            4,
            contiguous,
            &[Op::Append(data(100, 1)), Op::Append(data(50, 2)), Op::Append(data(200, 3)), Op::Append(data(10, 4))],
        );
    }
}

#[test]
fn reference_fill_special() {
    for kind in [Special::Zero, Special::Uninit, Special::Nan] {
        differential(4, true, &[Op::Fill(1000, kind, 400)]);
        differential(4, false, &[Op::Fill(1000, kind, 400)]);
    }
}

// ----- own behaviour -----

fn all_stores(tag: &str) -> Vec<(StorageSpec, PathBuf)> {
    let d = tmpdir(tag);
    vec![
        (StorageSpec { contiguous: false, urlpath: None }, d.clone()),
        (StorageSpec { contiguous: true, urlpath: None }, d.clone()),
        (StorageSpec { contiguous: true, urlpath: Some(d.join("c.b2frame")) }, d.clone()),
        (StorageSpec { contiguous: false, urlpath: Some(d.join("s.b2frame")) }, d),
    ]
}

#[test]
fn round_trip_every_store() {
    for (spec, dir) in all_stores("rt") {
        let (c, d) = params(4);
        let mut s = SuperChunk::new(c, d, &spec).unwrap();
        s.meta_add("shape", b"xyz").unwrap();
        let bufs: Vec<Vec<u8>> = (0..5).map(|i| data(1000, i)).collect();
        for b in &bufs {
            s.append_buffer(b).unwrap();
        }
        s.append_chunk(&special(4, 4000, Special::Zero)).unwrap();
        s.vlmeta_add("info", b"hello world", None).unwrap();
        assert_eq!(s.nchunks(), 6);
        assert_eq!(s.nbytes(), 24000);
        assert_eq!(s.chunksize(), 4000);
        let mut out = vec![0u8; 4000];
        for (i, b) in bufs.iter().enumerate() {
            assert_eq!(s.decompress_chunk(i as i64, &mut out).unwrap(), 4000);
            assert_eq!(&out, b);
        }
        s.decompress_chunk(5, &mut out).unwrap();
        assert!(out.iter().all(|&b| b == 0));
        // Slices across chunk boundaries.
        let mut sl = vec![0u8; 4 * 1500];
        s.get_slice(500, 2000, &mut sl).unwrap_or_else(|e| panic!("{spec:?}: {e:?}"));
        let all: Vec<u8> = bufs.concat();
        assert_eq!(&sl[..], &all[2000..8000]);
        let patch = data(1500, 99);
        s.set_slice(500, 2000, &patch).unwrap();
        s.get_slice(500, 2000, &mut sl).unwrap();
        assert_eq!(sl, patch);
        // Serialise and read back.
        let frame = s.to_buffer().unwrap().into_owned();
        let mut back = SuperChunk::from_buffer_copy(&frame).unwrap();
        assert_eq!(back.nchunks(), 6);
        assert_eq!(back.meta_get("shape").unwrap(), b"xyz");
        assert_eq!(back.vlmeta_get("info").unwrap(), b"hello world");
        back.get_slice(500, 2000, &mut sl).unwrap();
        assert_eq!(sl, patch);
        // Files: to_file + open, and reopening on-disk stores.
        let f = dir.join(format!("out-{}.b2frame", spec.contiguous as u8 + 2 * spec.urlpath.is_some() as u8));
        s.to_file(&f).unwrap();
        assert_eq!(std::fs::read(&f).unwrap(), frame);
        let mut o = SuperChunk::open(&f, 0).unwrap();
        assert_eq!(o.nchunks(), 6);
        o.decompress_chunk(4, &mut out).unwrap();
        assert_eq!(out, bufs[4]);
        if let Some(p) = &spec.urlpath {
            drop(s);
            let mut re = SuperChunk::open(p, 0).unwrap();
            assert_eq!(re.nchunks(), 6);
            re.get_slice(500, 2000, &mut sl).unwrap();
            assert_eq!(sl, patch);
            re.append_buffer(&bufs[0]).unwrap();
            re.delete_chunk(0).unwrap();
            let mut re2 = SuperChunk::open(p, 0).unwrap();
            assert_eq!(re2.nchunks(), 6);
            re2.decompress_chunk(5, &mut out).unwrap();
            assert_eq!(out, bufs[0]);
            assert_eq!(re2.vlmeta_get("info").unwrap(), b"hello world");
        }
    }
}

#[test]
fn lazy_chunks_read_blocks_on_demand() {
    let d = tmpdir("lazy");
    for spec in [
        StorageSpec { contiguous: true, urlpath: Some(d.join("c.b2frame")) },
        StorageSpec { contiguous: false, urlpath: Some(d.join("s.b2frame")) },
    ] {
        let (mut c, dp) = params(4);
        c.blocksize = 4096;
        let mut s = SuperChunk::new(c, dp, &spec).unwrap();
        let b = data(20000, 3);
        s.append_buffer(&b).unwrap();
        s.append_buffer(&b).unwrap();
        drop(s);
        let mut s = SuperChunk::open(spec.urlpath.as_ref().unwrap(), 0).unwrap();
        let lazy = s.get_lazy_chunk(1).unwrap().into_owned();
        let full = s.get_chunk(1).unwrap().into_owned();
        assert!(lazy.len() < full.len());
        assert_ne!(lazy[31] & crate::chunk::header::LAZY, 0);
        let mut out = vec![0u8; 40000];
        s.get_slice(15000, 25000, &mut out[..40000]).unwrap();
        assert_eq!(&out[..], &[&b[60000..], &b[..20000]].concat()[..]);
    }
}

/// A sparse frame keeps read handles on the chunk files its lazy chunks read; a lazy chunk
/// made after its chunk file was replaced (an update, a deleted id used again) must read the
/// new file, header, trailer and blocks alike.
#[test]
fn sparse_lazy_chunks_follow_replaced_chunk_files() {
    use crate::chunk::decompress::Decompressor;
    let d = tmpdir("lazy-sparse");
    let spec = StorageSpec { contiguous: false, urlpath: Some(d.join("s.b2frame")) };
    let (mut c, dp) = params(4);
    c.blocksize = 4096;
    let mut s = SuperChunk::new(c, dp, &spec).unwrap();
    let (a, b, e) = (data(20000, 3), data(20000, 7), data(20000, 11));
    s.append_buffer(&a).unwrap();
    s.append_buffer(&a).unwrap();
    let decode = |s: &mut SuperChunk, n: i64| {
        let lazy = s.get_lazy_chunk(n).unwrap().into_owned();
        assert_ne!(lazy[31] & crate::chunk::header::LAZY, 0);
        let mut dec = Decompressor::new(DecompressParams::default());
        dec.lazy = s.decompressor().lazy.clone();
        let mut out = vec![0u8; 80000];
        assert_eq!(dec.decompress(&lazy, &mut out).unwrap(), 80000);
        out
    };
    assert_eq!(decode(&mut s, 1), a);
    // The chunk file of chunk 1 is replaced by an update.
    let mut chunk = vec![0u8; b.len() + 64];
    let n = s.compressor().compress(&b, &mut chunk).unwrap();
    s.update_chunk(1, &chunk[..n]).unwrap();
    assert_eq!(decode(&mut s, 1), b);
    // The last chunk's id is freed by a delete and given to the next append.
    s.delete_chunk(1).unwrap();
    s.append_buffer(&e).unwrap();
    assert_eq!(decode(&mut s, 1), e);
    assert_eq!(decode(&mut s, 0), a);
}

/// Memcpyed and VL-block chunks of on-disk frames come out lazy too; any decompressor given
/// the frame's reader decodes them (whole, by items, by VL block), and none without it.
#[test]
fn lazy_memcpyed_and_vl_chunks_decode_with_the_frame_reader() {
    use crate::chunk::compress::Compressor;
    use crate::chunk::decompress::Decompressor;
    let d = tmpdir("lazy2");
    for contiguous in [true, false] {
        // Memcpyed: incompressible items stored as they are.
        let (mut c, dp) = params(4);
        c.blocksize = 1984;
        c.filters = [0; 6];
        let spec = StorageSpec { contiguous, urlpath: Some(d.join(format!("m{contiguous}.b2frame"))) };
        let mut s = SuperChunk::new(c.clone(), dp.clone(), &spec).unwrap();
        let mut x = 12345u32;
        let b: Vec<u8> = (0..8000)
            .map(|_| {
                x = x.wrapping_mul(1103515245).wrapping_add(12345);
                (x >> 16) as u8
            })
            .collect();
        let mut chunk = vec![0u8; b.len() + 32];
        let n = Compressor::new(c).compress(&b, &mut chunk).unwrap();
        assert_ne!(chunk[2] & crate::chunk::header::MEMCPYED, 0);
        s.append_chunk(&chunk[..n]).unwrap();
        let lazy = s.get_lazy_chunk(0).unwrap().into_owned();
        assert_ne!(lazy[31] & crate::chunk::header::LAZY, 0);
        let mut dec = Decompressor::new(DecompressParams::default());
        let mut out = vec![0u8; b.len()];
        assert_eq!(dec.decompress(&lazy, &mut out), Err(Error::InvalidParam));
        dec.lazy = s.decompressor().lazy.clone();
        assert_eq!(dec.decompress(&lazy, &mut out).unwrap(), b.len());
        assert_eq!(out, b);
        let mut part = vec![0u8; 12];
        assert_eq!(dec.get_bytes(&lazy, 1980, 12, &mut part).unwrap(), 12);
        assert_eq!(part, b[1980..1992]);
        let mut slice = vec![0u8; 12];
        s.get_slice(1997, 2000, &mut slice).unwrap();
        assert_eq!(slice, b[7988..]);

        // VL blocks: sizes and data are on disk.
        let (c, dp) = params(1);
        let spec = StorageSpec { contiguous, urlpath: Some(d.join(format!("v{contiguous}.b2frame"))) };
        let mut s = SuperChunk::new(c.clone(), dp, &spec).unwrap();
        let blocks: [&[u8]; 3] = [b"alpha", &[7u8; 3000], b"charlie-charlie"];
        let mut chunk = vec![0u8; 4096];
        let n = Compressor::new(c).vl_compress(&blocks, &mut chunk).unwrap();
        s.append_chunk(&chunk[..n]).unwrap();
        let lazy = s.get_lazy_chunk(0).unwrap().into_owned();
        assert_ne!(lazy[31] & crate::chunk::header::LAZY, 0);
        let mut dec = Decompressor::new(DecompressParams::default());
        dec.lazy = s.decompressor().lazy.clone();
        assert_eq!(dec.vl_decompress_block(&lazy, 2).unwrap(), blocks[2]);
        assert_eq!(dec.vl_decompress(&lazy).unwrap(), blocks.map(<[u8]>::to_vec).to_vec());
        let mut all = vec![0u8; 3020];
        assert_eq!(dec.decompress(&lazy, &mut all).unwrap(), 3020);
        assert_eq!(all, blocks.concat());
    }
}

#[test]
fn append_file_and_open_at_offset() {
    let d = tmpdir("appf");
    let f = d.join("multi.bin");
    std::fs::write(&f, b"some leading bytes").unwrap();
    let (c, dp) = params(4);
    let mut s = SuperChunk::new(c, dp, &StorageSpec::default()).unwrap();
    s.append_buffer(&data(500, 1)).unwrap();
    let at = s.append_file(&f).unwrap();
    assert_eq!(at, 18);
    let mut o = SuperChunk::open(&f, at as u64).unwrap();
    let mut out = vec![0u8; 2000];
    o.decompress_chunk(0, &mut out).unwrap();
    assert_eq!(out, data(500, 1));
}

#[test]
fn fixtures_open_and_decode() {
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in ["fixtures/frames", "fixtures/compat", "fixtures/b2nd"] {
        let Ok(rd) = std::fs::read_dir(shared(dir)) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
            if ext == "b2frame" || ext == "b2nd" {
                files.push(p);
            }
        }
    }
    if files.is_empty() {
        eprintln!("no frame fixtures found; skipped");
        return;
    }
    for p in files {
        let bytes = std::fs::read(&p).unwrap();
        let mut s = SuperChunk::from_frame_vec(bytes.clone()).unwrap_or_else(|e| panic!("{}: {e:?}", p.display()));
        let mut total = 0i64;
        for n in 0..s.nchunks() {
            let nb = s.chunk_nbytes(n).unwrap() as usize;
            let mut out = vec![0u8; nb];
            assert_eq!(s.decompress_chunk(n, &mut out).unwrap(), nb, "{} chunk {n}", p.display());
            total += nb as i64;
        }
        assert_eq!(total, s.nbytes(), "{}", p.display());
        // Unchanged frames serialise to the same bytes.
        assert_eq!(s.to_buffer().unwrap().as_ref(), &bytes[..], "{}", p.display());
        let mut f = SuperChunk::open(&p, 0).unwrap();
        assert_eq!(f.nchunks(), s.nchunks());
        for n in 0..f.nchunks() {
            let nb = f.chunk_nbytes(n).unwrap() as usize;
            let mut a = vec![0u8; nb];
            let mut b = vec![0u8; nb];
            f.decompress_chunk(n, &mut a).unwrap();
            s.decompress_chunk(n, &mut b).unwrap();
            assert_eq!(a, b);
        }
        if p.extension().is_some_and(|e| e == "b2nd") {
            assert!(s.meta_exists("b2nd").is_some());
        }
    }
}

#[test]
fn truncated_and_corrupt_frames_never_panic() {
    let (c, d) = params(4);
    let mut s = SuperChunk::new(c, d, &StorageSpec { contiguous: true, urlpath: None }).unwrap();
    s.meta_add("m", b"abc").unwrap();
    s.append_buffer(&data(100, 1)).unwrap();
    s.append_buffer(&data(60, 2)).unwrap();
    s.vlmeta_add("v", b"123", None).unwrap();
    let frame = s.to_buffer().unwrap().into_owned();
    assert!(SuperChunk::from_frame_vec(frame.clone()).is_ok());
    for n in 0..frame.len() {
        assert!(SuperChunk::from_frame_vec(frame[..n].to_vec()).is_err(), "len {n}");
    }
    for i in 0..frame.len() {
        for v in [0u8, 0xff, 0x7f, 0x80, 1] {
            let mut b = frame.clone();
            b[i] = v;
            if let Ok(mut s) = SuperChunk::from_frame_vec(b) {
                let mut out = vec![0u8; 1 << 16];
                for n in 0..s.nchunks().min(4) {
                    let _ = s.decompress_chunk(n, &mut out);
                    let _ = s.get_lazy_chunk(n);
                }
                let _ = s.vlmeta_get("v");
            }
        }
    }
}

#[test]
fn errors() {
    let (c, d) = params(4);
    let mut s = SuperChunk::new(c.clone(), d.clone(), &StorageSpec { contiguous: true, urlpath: None }).unwrap();
    assert_eq!(s.get_chunk(0).err(), Some(Error::InvalidIndex));
    assert_eq!(s.meta_get("x").err(), Some(Error::MetalayerNotFound));
    s.append_buffer(&data(10, 1)).unwrap();
    assert_eq!(s.meta_add("late", b"x").err(), Some(Error::InvalidParam));
    assert_eq!(s.append_chunk(&[1, 2, 3]).err(), Some(Error::ReadBuffer));
    // Not a chunk index: bad data, as the reference.
    assert_eq!(s.reorder_offsets(&[1]).err(), Some(Error::Data));
    let mut small = vec![0u8; 4];
    assert_eq!(s.decompress_chunk(0, &mut small).err(), Some(Error::WriteBuffer));
    let d2 = tmpdir("err");
    let p = d2.join("exists");
    std::fs::write(&p, b"x").unwrap();
    assert!(SuperChunk::new(c, d, &StorageSpec { contiguous: true, urlpath: Some(p) }).is_err());
    assert!(SuperChunk::open(&d2.join("missing"), 0).is_err());
}

/// A copy with new parameters recompresses every chunk; a partial last chunk keeps its own
/// size (the reference pads it to the full chunk size with whatever its buffer held, which
/// changes `nbytes` and the data: REFERENCE-DEFECTS, not copied here).
#[test]
fn copy_recompresses_partial_last_chunk() {
    let (c, d) = params(4);
    for contiguous in [false, true] {
        let mut s = SuperChunk::new(c.clone(), d.clone(), &StorageSpec { contiguous, urlpath: None }).unwrap();
        s.meta_add("m", b"abc").unwrap();
        let chunks = [data(1000, 1), data(1000, 2), data(600, 3)];
        for ch in &chunks {
            s.append_buffer(ch).unwrap();
        }
        s.vlmeta_add("v", b"hello", None).unwrap();
        let lz4 = CompressParams { compcode: 1, clevel: 9, ..c.clone() };
        let mut copy = s.copy_to(&StorageSpec { contiguous: true, urlpath: None }, Some(lz4)).unwrap();
        assert_eq!(copy.cparams().compcode, 1);
        assert_eq!(copy.nbytes(), s.nbytes());
        assert_eq!(copy.nchunks(), 3);
        for (n, ch) in chunks.iter().enumerate() {
            let mut out = vec![0u8; 4000];
            let len = copy.decompress_chunk(n as i64, &mut out).unwrap();
            assert_eq!(&out[..len], &ch[..], "chunk {n}");
            let raw = copy.get_chunk(n as i64).unwrap().into_owned();
            assert_eq!(raw[2] >> 5, 1, "chunk {n} is LZ4");
        }
        assert_eq!(copy.meta_get("m").unwrap(), b"abc");
        assert_eq!(copy.vlmeta_get("v").unwrap(), b"hello");
        // Equal parameters keep the chunks verbatim.
        let mut same = s.copy_to(&StorageSpec { contiguous: false, urlpath: None }, Some(c.clone())).unwrap();
        for n in 0..3 {
            assert_eq!(same.get_chunk(n).unwrap(), s.get_chunk(n).unwrap());
        }
    }
}

/// A frame filled with millions of special chunks keeps a single-value index: it opens,
/// reads and rewrites its metadata without a per-chunk cost, keeps the index bytes as
/// written, and an edit still works (the index then becomes a list of entries).
#[test]
fn huge_special_fill_keeps_a_single_value_index() {
    let d = tmpdir("hugefill");
    let (c, dp) = params(4);
    const NCHUNKS: i64 = 8 << 20;
    for contiguous in [true, false] {
        let path = d.join(if contiguous { "z.b2frame" } else { "z.b2dir" });
        let spec = StorageSpec { contiguous, urlpath: Some(path.clone()) };
        let mut s = SuperChunk::new(c.clone(), dp.clone(), &spec).unwrap();
        assert_eq!(s.fill_special(NCHUNKS * 100, Special::Zero, 400).unwrap(), NCHUNKS);
        let len_before = s.frame_len().unwrap();
        s.vlmeta_add("note", b"sparse", None).unwrap();
        drop(s);
        let mut o = SuperChunk::open(&path, 0).unwrap();
        assert_eq!(o.nchunks(), NCHUNKS);
        assert!(matches!(o.frame_mut().unwrap().offsets(), crate::frame::offsets::Index::Uniform { .. }));
        assert!(o.frame_len().unwrap() < len_before + 200, "the index was not expanded");
        let mut out = vec![1u8; 400];
        assert_eq!(o.decompress_chunk(NCHUNKS - 1, &mut out).unwrap(), 400);
        assert!(out.iter().all(|&b| b == 0));
        o.update_chunk(3, &compressed(4, &data(100, 5))).unwrap();
        assert_eq!(o.decompress_chunk(3, &mut out).unwrap(), 400);
        assert_eq!(out, data(100, 5));
        assert_eq!(o.nchunks(), NCHUNKS);
        drop(o);
        let mut o = SuperChunk::open(&path, 0).unwrap();
        assert_eq!(o.decompress_chunk(3, &mut out).unwrap(), 400);
        assert_eq!(out, data(100, 5));
        assert_eq!(o.vlmeta_get("note").unwrap(), b"sparse");
    }
    std::fs::remove_dir_all(&d).unwrap();
}

/// The blocks a partial read needs are read ahead in one go and served from memory; other
/// reads go to the frame's own reader; nothing is read ahead for chunks larger than allowed,
/// masks of the wrong length or no needed block.
#[test]
fn read_ahead_serves_the_needed_blocks() {
    use crate::chunk::decompress::LazyReader;
    let d = tmpdir("ahead");
    for spec in [
        StorageSpec { contiguous: true, urlpath: Some(d.join("c.b2frame")) },
        StorageSpec { contiguous: false, urlpath: Some(d.join("s.b2frame")) },
    ] {
        let (mut c, dp) = params(4);
        c.blocksize = 4096;
        let mut s = SuperChunk::new(c, dp, &spec).unwrap();
        s.append_buffer(&data(8192, 5)).unwrap();
        s.append_buffer(&data(8192, 9)).unwrap();
        let own = s.decompressor().lazy.clone().unwrap();
        let lazy = s.get_lazy_chunk(1).unwrap().into_owned();
        let nb = 8;
        let needed = [false, false, true, false, true, false, false, false];
        let f = s.frame_mut().unwrap();
        assert!(f.read_ahead(&lazy, &needed, 32767).is_none(), "larger than allowed");
        assert!(f.read_ahead(&lazy, &needed[..7], 32768).is_none(), "mask of the wrong length");
        assert!(f.read_ahead(&lazy, &[false; 8], 32768).is_none(), "nothing needed");
        let mut ahead = f.read_ahead(&lazy, &needed, 32768).unwrap();
        let (nchunk, pos) = (ahead.nchunk, ahead.chunk_offset);
        let start = |j: usize| i32::from_le_bytes(lazy[32 + 4 * j..36 + 4 * j].try_into().unwrap()) as i64;
        let csize = |j: usize| {
            let at = 32 + 4 * nb + 12 + 4 * j;
            i32::from_le_bytes(lazy[at..at + 4].try_into().unwrap()) as usize
        };
        assert_eq!(ahead.start, start(2));
        assert_eq!(ahead.bytes.len() as i64, start(4) + csize(4) as i64 - start(2));
        for j in [2, 3, 4] {
            let want = own.read(nchunk, pos, start(j), csize(j)).unwrap();
            assert_eq!(ahead.read(nchunk, pos, start(j), csize(j)).unwrap(), want);
        }
        // Outside the span, or another chunk: only through the fallback.
        assert_eq!(ahead.read(nchunk, pos, start(5), csize(5)).unwrap_err(), Error::InvalidParam);
        assert_eq!(ahead.read(nchunk + 1, pos + 1, start(2), csize(2)).unwrap_err(), Error::InvalidParam);
        ahead.fallback = Some(own.clone());
        assert_eq!(ahead.read(nchunk, pos, start(5), csize(5)).unwrap(), own.read(nchunk, pos, start(5), csize(5)).unwrap());
    }
    std::fs::remove_dir_all(&d).unwrap();
}

/// A masked read of a delta chunk that does not ask for the first block still decodes
/// against it (on two threads too), where the reference decodes against whatever the
/// output held there; so does a block-by-block read.
#[test]
fn masked_delta_reads_without_the_first_block() {
    let cp = CompressParams { typesize: 4, nthreads: 1, blocksize: 4096, filters: [0, 0, 0, 0, 3, 1], ..CompressParams::default() };
    let dp = DecompressParams { nthreads: 2, typesize: 4 };
    let mut sc = SuperChunk::new(cp, dp, &StorageSpec::default()).unwrap();
    let src: Vec<u8> = (0..65536u32).flat_map(|i| (i * 3 + i % 17).to_le_bytes()).collect();
    sc.append_buffer(&src).unwrap();
    let mut whole = vec![0u8; 262144];
    sc.decompress_chunk(0, &mut whole).unwrap();
    assert!(whole == src, "whole");
    let needed: Vec<bool> = (0..64).map(|j| j >= 32).collect();
    let mut masked = vec![0u8; 262144];
    let mut serial = vec![0u8; 262144];
    let mut sink = |j: usize, b: &[u8]| {
        serial[j * 4096..j * 4096 + b.len()].copy_from_slice(b);
        Ok(())
    };
    let h = Own::new(&mut sc);
    decompress_masked_in(&h, 0, &needed, true, &mut masked).unwrap();
    assert!(masked[131072..] == src[131072..], "masked");
    decompress_blocks_in(&h, 0, &needed, 262144, true, &mut sink).unwrap();
    assert!(serial[131072..] == src[131072..] && serial[..131072].iter().all(|&b| b == 0), "block by block");
}

/// Under the 2.x rules every chunk has the chunk size except a smaller last one, so the
/// frame keeps the 2.x format (version 2, no variable-chunk flag); 3.x accepts the same
/// requests and switches to variable chunks.
#[test]
fn generation_v2_keeps_fixed_chunk_sizes() {
    let full = data(1000, 1);
    let small = data(300, 2);
    let big = data(1200, 3);
    for contiguous in [false, true] {
        let (mut c, d) = params(4);
        c.generation = Generation::V2;
        let spec = StorageSpec { contiguous, urlpath: None };
        let mut s = SuperChunk::new(c.clone(), d.clone(), &spec).unwrap();
        assert_eq!(s.append_buffer(&full).unwrap(), 1);
        assert_eq!(s.append_buffer(&big), Err(Error::ChunkAppend), "larger chunk");
        assert_eq!(s.append_buffer(&small).unwrap(), 2, "a smaller last chunk is fine");
        assert_eq!(s.append_buffer(&small), Err(Error::ChunkAppend), "nothing after a small chunk");
        assert_eq!(s.append_buffer(&full), Err(Error::ChunkAppend), "nothing after a small chunk");
        assert_eq!(s.nchunks(), 2, "refusals leave the chunks alone");
        assert_eq!(s.nbytes(), (full.len() + small.len()) as i64);
        let chunk_of = |s: &mut SuperChunk, src: &[u8]| {
            let mut out = vec![0u8; src.len() + 64];
            let n = s.compressor().compress(src, &mut out).unwrap();
            out.truncate(n);
            out
        };
        let small_chunk = chunk_of(&mut s, &small);
        let full_chunk = chunk_of(&mut s, &full);
        assert_eq!(s.insert_chunk(0, &small_chunk), Err(Error::ChunkInsert));
        assert_eq!(s.update_chunk(0, &small_chunk), Err(Error::ChunkUpdate));
        assert_eq!(s.insert_chunk(0, &full_chunk).unwrap(), 3);
        assert_eq!(s.update_chunk(2, &small_chunk).unwrap(), 3, "the last may be smaller");
        assert_eq!(s.chunksize(), full.len() as i32);
        let frame = s.to_buffer().unwrap().into_owned();
        let h = FrameHeader::parse(&frame).unwrap();
        assert_eq!(h.version(), crate::frame::header::FRAME_FORMAT_RC1);
        assert!(!h.variable_chunks());

        // The same requests under 3.x rules are accepted (variable chunks).
        let (c3, _) = params(4);
        let mut s3 = SuperChunk::new(c3, d, &spec).unwrap();
        s3.append_buffer(&full).unwrap();
        assert_eq!(s3.append_buffer(&big).unwrap(), 2);
        assert_eq!(s3.chunksize(), 0);
    }
}

/// The in-memory contiguous frame of a super-chunk (`params(4)`) with `chunks` appended.
fn frame_of(chunks: &[Vec<u8>]) -> Vec<u8> {
    let (c, d) = params(4);
    let mut s = SuperChunk::new(c, d, &StorageSpec { contiguous: true, urlpath: None }).unwrap();
    for ch in chunks {
        s.append_buffer(ch).unwrap();
    }
    s.to_buffer().unwrap().into_owned()
}

/// A writer stopped between the tail and the header of an append leaves a stale header; the
/// frame then reads as its tail describes it (the appended chunk included), and a frame
/// whose new tail went past the old end before the chunk was written reads as before.
#[test]
fn stale_header_after_an_interrupted_append_reads_the_tail() {
    let chunks: Vec<Vec<u8>> = (0..4).map(|k| data(3000, k)).collect();
    let before = frame_of(&chunks[..3]);
    let after = frame_of(&chunks[..4]);
    let hlen = FrameHeader::parse(&after).unwrap().header_len as usize;
    // The new tail and the cut, but the old header.
    let mut stale = after.clone();
    stale[..hlen].copy_from_slice(&before[..hlen]);
    // Only a frame file can have been left half-written: in memory such bytes are refused,
    // as the reference refuses them.
    assert!(SuperChunk::from_buffer_copy(&stale).is_err());
    let dir = tmpdir("stale-header");
    let file = |name: &str, bytes: &[u8]| {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    };
    let mut r = SuperChunk::open(&file("stale.b2frame", &stale), 0).unwrap();
    assert_eq!(r.nchunks(), 4);
    assert_eq!(r.nbytes(), 4 * 12000);
    for (k, want) in chunks.iter().enumerate() {
        let mut out = vec![0u8; want.len()];
        assert_eq!(r.decompress_chunk(k as i64, &mut out).unwrap(), want.len());
        assert!(&out == want, "chunk {k}");
    }
    // The old frame with the new tail written past its end (the chunk not yet): reads as
    // the old frame.
    let new_index_at = hlen + FrameHeader::parse(&after).unwrap().cbytes as usize;
    assert!(new_index_at >= before.len(), "this chunk is longer than the old index and trailer");
    let mut early = before.clone();
    early.resize(after.len(), 0);
    early[new_index_at..].copy_from_slice(&after[new_index_at..]);
    let r = SuperChunk::open(&file("early.b2frame", &early), 0).unwrap();
    assert_eq!(r.nchunks(), 3);
    assert_eq!(r.nbytes(), 3 * 12000);
    // A damaged tail is not "recovered" into anything: the stale header with a cut tail fails.
    let cut = &stale[..stale.len() - 10];
    assert!(SuperChunk::open(&file("cut.b2frame", cut), 0).is_err());
    drop(r);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A writer killed in the middle of writing an appended chunk over the old index and
/// trailer (Linux stops a multi-page `write` between pages on a fatal signal): the old
/// header, the new tail past the old end, and part of the chunk's payload, which is written
/// before the chunk's header. The frame reads as before the append (the new index, found
/// backwards from the trailer, less the new chunk), and the next append writes the frame the
/// library writes without the torn one.
#[test]
fn torn_append_over_the_old_tail_reads_as_before() {
    use crate::chunk::header::EXTENDED_HEADER_LENGTH as H;
    let chunks: Vec<Vec<u8>> = (0..5).map(|k| data(3000, k)).collect();
    let before = frame_of(&chunks[..3]);
    let after = frame_of(&chunks[..4]);
    let h = FrameHeader::parse(&after).unwrap();
    let hlen = h.header_len as usize;
    let chunk_pos = hlen + FrameHeader::parse(&before).unwrap().cbytes as usize;
    let index_pos = hlen + h.cbytes as usize;
    assert!(index_pos >= before.len(), "this chunk is longer than the old index and trailer");
    let want = frame_of(&[chunks[0].clone(), chunks[1].clone(), chunks[2].clone(), chunks[4].clone()]);
    let dir = tmpdir("torn-append");
    let payload = index_pos - chunk_pos - H;
    for k in (0..=payload).step_by(97).chain([1, 2, 7, 8, 9, 31, 33, payload - 1]) {
        // The old frame, the new tail past its end, the first k bytes of the chunk's payload.
        let mut torn = before.clone();
        torn.resize(after.len(), 0);
        torn[index_pos..].copy_from_slice(&after[index_pos..]);
        let from = chunk_pos + H;
        torn[from..from + k].copy_from_slice(&after[from..from + k]);
        let path = dir.join(format!("torn{k}.b2frame"));
        std::fs::write(&path, &torn).unwrap();
        let mut r = SuperChunk::open(&path, 0).unwrap_or_else(|e| panic!("k {k}: {e:?}"));
        assert_eq!((r.nchunks(), r.nbytes()), (3, 3 * 12000), "k {k}");
        for (n, ch) in chunks[..3].iter().enumerate() {
            let mut out = vec![0u8; ch.len()];
            assert_eq!(r.decompress_chunk(n as i64, &mut out).unwrap(), ch.len(), "k {k}");
            assert!(&out == ch, "k {k}, chunk {n}");
        }
        r.append_buffer(&chunks[4]).unwrap();
        drop(r);
        assert!(std::fs::read(&path).unwrap() == want, "k {k}: the frame after the next append");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Storage that stops writing once a shared budget of writes is spent, as a writer killed
/// at that point would: every later write, truncate or sync fails and changes nothing.
struct Cut {
    inner: Box<dyn crate::frame::io::Storage>,
    budget: Arc<std::sync::atomic::AtomicI64>,
}

impl Cut {
    fn spend(&self) -> Result<()> {
        use std::sync::atomic::Ordering;
        if self.budget.fetch_sub(1, Ordering::SeqCst) <= 0 {
            return Err(Error::FileWrite);
        }
        Ok(())
    }
}

impl crate::frame::io::Storage for Cut {
    fn len(&mut self) -> Result<u64> {
        self.inner.len()
    }
    fn read_at(&mut self, pos: u64, buf: &mut [u8]) -> Result<()> {
        self.inner.read_at(pos, buf)
    }
    fn write_at(&mut self, pos: u64, data: &[u8]) -> Result<()> {
        self.spend()?;
        self.inner.write_at(pos, data)
    }
    fn truncate(&mut self, len: u64) -> Result<()> {
        self.spend()?;
        self.inner.truncate(len)
    }
}

struct CutOpener(Arc<std::sync::atomic::AtomicI64>);

impl Opener for CutOpener {
    fn open(&self, path: &Path, writable: bool) -> Result<Box<dyn crate::frame::io::Storage>> {
        Ok(Box::new(Cut { inner: fs_opener().open(path, writable)?, budget: self.0.clone() }))
    }
    fn create(&self, path: &Path) -> Result<Box<dyn crate::frame::io::Storage>> {
        Ok(Box::new(Cut { inner: fs_opener().create(path)?, budget: self.0.clone() }))
    }
    /// As the `std::fs` opener's (a new file renamed over the old): stopped before the
    /// rename, the old file stays.
    fn replace(&self, path: &Path, data: &[u8]) -> Result<()> {
        Cut { inner: Box::new(crate::frame::io::MemStorage::default()), budget: self.0.clone() }.spend()?;
        fs_opener().replace(path, data)
    }
}

/// The chunks of the frame at `path` as a fresh handle reads them (`None`: it does not open).
fn chunks_at(path: &Path) -> Option<Vec<Vec<u8>>> {
    let mut sc = SuperChunk::open(path, 0).ok()?;
    (0..sc.nchunks()).map(|i| sc.get_chunk(i).ok().map(|c| c.into_owned())).collect()
}

/// Every change, stopped after each of its writes: the frame then opens as it was before
/// the change or as it is after, never anything else, and a handle whose update failed
/// holds the index the frame opens with (contiguous frame files go through the
/// redo journal where the write order alone cannot do it; sparse frames replace chunk files
/// whole and journal their index file).
#[test]
fn changes_stopped_at_any_write_leave_old_or_new_frame() {
    use std::sync::atomic::{AtomicI64, Ordering};
    let dir = tmpdir("cut");
    let (cp, dp) = params(4);
    type Change = fn(&mut SuperChunk) -> Result<()>;
    let changes: [(&str, Change); 6] = [
        ("update middle", |s| {
            let c = chunk_of(s, &data(2000, 99));
            s.update_chunk(3, &c).map(drop)
        }),
        ("update smaller", |s| {
            let c = chunk_of(s, &[7u8; 8000]);
            s.update_chunk(2, &c).map(drop)
        }),
        ("delete", |s| s.delete_chunk(1).map(drop)),
        ("insert", |s| {
            let c = chunk_of(s, &data(2000, 42));
            s.insert_chunk(2, &c).map(drop)
        }),
        ("append small", |s| {
            let c = chunk_of(s, &[1u8; 8000]);
            s.append_chunk(&c).map(drop)
        }),
        ("vlmetalayer", |s| s.vlmeta_add("note", &data(300, 5), None).map(drop)),
    ];
    for contiguous in [true, false] {
        for (name, change) in changes {
            let path = dir.join(format!("f-{contiguous}-{}", name.replace(' ', "_")));
            for cut in 0..64 {
                let _ = std::fs::remove_dir_all(&path);
                let _ = std::fs::remove_file(&path);
                let budget = Arc::new(AtomicI64::new(i64::MAX));
                let spec = StorageSpec { contiguous, urlpath: Some(path.clone()) };
                let mut sc = SuperChunk::new_on(cp.clone(), dp.clone(), &spec, Arc::new(CutOpener(budget.clone()))).unwrap();
                for k in 0..6 {
                    sc.append_buffer(&data(2000, k)).unwrap();
                }
                let before = chunks_at(&path).expect("the frame before the change opens");
                budget.store(cut, Ordering::SeqCst);
                let done = change(&mut sc).is_ok();
                // An update's index after the change, kept or undone, is the one the frame
                // opens with (the journal finishes a change whose record was complete). (Not
                // yet so for deletes and inserts whose journal record was complete but whose
                // writes then failed twice: they put their entry back.)
                let held: Vec<i64> = sc.frame_mut().unwrap().offsets().iter().collect();
                drop(sc);
                let after = chunks_at(&path);
                if after.is_some() && name.starts_with("update") {
                    let mut reopened = SuperChunk::open(&path, 0).unwrap();
                    let stored: Vec<i64> = reopened.frame_mut().unwrap().offsets().iter().collect();
                    assert_eq!(held, stored, "{name}, contiguous {contiguous}, cut after {cut} writes: index held");
                }
                // What the change makes, done without interruption on a copy.
                let reference = {
                    let p2 = dir.join("whole");
                    let _ = std::fs::remove_dir_all(&p2);
                    let _ = std::fs::remove_file(&p2);
                    let spec2 = StorageSpec { contiguous, urlpath: Some(p2.clone()) };
                    let mut s2 = SuperChunk::new(cp.clone(), dp.clone(), &spec2).unwrap();
                    for k in 0..6 {
                        s2.append_buffer(&data(2000, k)).unwrap();
                    }
                    change(&mut s2).unwrap();
                    drop(s2);
                    chunks_at(&p2).unwrap()
                };
                let after = after.unwrap_or_else(|| panic!("{name}, contiguous {contiguous}, cut after {cut} writes: does not open"));
                assert!(after == before || after == reference, "{name}, contiguous {contiguous}, cut after {cut} writes: neither state");
                if done {
                    assert_eq!(after, reference, "{name}, contiguous {contiguous}: completed change not there");
                    break;
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn chunk_of(s: &mut SuperChunk, bytes: &[u8]) -> Vec<u8> {
    crate::chunk::compress(bytes, &s.cparams().clone()).unwrap()
}

/// A frame with more chunks than `PACK_FROM_ENTRIES` keeps its index compressed after open:
/// every chunk reads right in any order, edits turn it into a list and persist, the
/// unedited index is written back verbatim, and a damaged index refuses the open.
#[test]
fn large_frames_keep_their_index_compressed() {
    use crate::frame::offsets::Index;
    use crate::frame::packed_index::PACK_FROM_ENTRIES;
    let (c, dp) = params(4);
    let n = PACK_FROM_ENTRIES as i64 + 1000;
    let mut s = SuperChunk::new(c, dp, &StorageSpec { contiguous: false, urlpath: None }).unwrap();
    let item = |k: i64| -> Vec<u8> { (0..4).flat_map(|i| ((k * 4 + i) as u32).to_le_bytes()).collect() };
    for k in 0..n {
        s.append_buffer(&item(k)).unwrap();
    }
    let frame = s.to_buffer().unwrap().into_owned();
    let mut o = SuperChunk::from_frame_vec(frame.clone()).unwrap();
    assert_eq!(o.nchunks(), n);
    assert!(matches!(o.frame_mut().unwrap().offsets(), Index::Packed(_)));
    let mut out = [0u8; 16];
    for k in [n - 1, 0, n / 2, 2047, 2048, 1].into_iter().chain(0..n) {
        assert_eq!(o.decompress_chunk(k, &mut out).unwrap(), 16);
        assert_eq!(out[..], item(k)[..], "chunk {k}");
    }
    assert_eq!(o.to_buffer().unwrap().into_owned(), frame, "an unedited index is kept verbatim");
    // Opened with copy, the chunks come out in one walk of the packed index.
    let mut copied = SuperChunk::from_buffer_copy(&frame).unwrap();
    assert_eq!(copied.nchunks(), n);
    for k in (0..n).rev() {
        assert_eq!(copied.decompress_chunk(k, &mut out).unwrap(), 16);
        assert_eq!(out[..], item(k)[..], "copied chunk {k}");
    }
    o.update_chunk(7, &compressed(4, &item(-1))).unwrap();
    o.delete_chunk(9).unwrap();
    assert!(matches!(o.frame_mut().unwrap().offsets(), Index::Dense(_)));
    let edited = o.to_buffer().unwrap().into_owned();
    let mut back = SuperChunk::from_frame_vec(edited.clone()).unwrap();
    assert_eq!(back.nchunks(), n - 1);
    back.decompress_chunk(7, &mut out).unwrap();
    assert_eq!(out[..], item(-1)[..]);
    back.decompress_chunk(9, &mut out).unwrap();
    assert_eq!(out[..], item(10)[..]);
    // The index is the last chunk before the trailer: damage its first block's data.
    let (cut, at) = {
        let f = back.frame_mut().unwrap();
        (f.offsets().len(), edited.len())
    };
    assert_eq!(cut as i64, n - 1);
    let mut bad = edited.clone();
    let idx = (0..at - 32).rev().find(|&p| {
        crate::chunk::ChunkHeader::read(&bad[p..]).is_ok_and(|h| h.nbytes as i64 == (n - 1) * 8)
    });
    let idx = idx.expect("index chunk found");
    let h = crate::chunk::ChunkHeader::read(&bad[idx..]).unwrap();
    assert!(h.cbytes > 100);
    for b in &mut bad[idx + 40..idx + 60] {
        *b ^= 0x5a;
    }
    assert!(SuperChunk::from_frame_vec(bad.clone()).is_err(), "a damaged index must not open");
    assert!(SuperChunk::from_buffer_copy(&bad).is_err(), "nor with copy");
    // Nor with damage in the index's last block (the whole index is checked at open).
    let mut late = edited.clone();
    let end = idx + h.cbytes as usize;
    for b in &mut late[end - 30..end - 10] {
        *b ^= 0x5a;
    }
    assert!(SuperChunk::from_frame_vec(late.clone()).is_err());
    assert!(SuperChunk::from_buffer_copy(&late).is_err(), "a damaged index block must not open with copy");
}

/// Opening a frame with copy reads the chunks from the caller's bytes while the frame keeps
/// only a skeleton of its own (header, index, trailer): the chunks equal those the whole
/// frame gives, and damaged frames (cut short, a byte changed anywhere) are refused or read
/// the same way, never with a panic.
#[test]
fn from_buffer_copy_reads_the_chunks_a_whole_frame_reads() {
    let (c, d) = params(4);
    let spec = StorageSpec { contiguous: true, urlpath: None };
    let mut s = SuperChunk::new(c, d, &spec).unwrap();
    for k in 0..4 {
        s.append_buffer(&data(750, k)).unwrap();
        s.append_chunk(&special(4, 3000, Special::Zero)).unwrap();
    }
    let frame = s.to_buffer().unwrap().into_owned();
    let chunks_of = |bytes: &[u8], copy: bool| -> Result<Vec<Vec<u8>>> {
        let mut s = if copy { SuperChunk::from_buffer_copy(bytes)? } else { SuperChunk::from_frame_vec(bytes.to_vec())? };
        (0..s.nchunks()).map(|n| s.get_chunk(n).map(|c| c.into_owned())).collect()
    };
    let whole = chunks_of(&frame, false).unwrap();
    assert_eq!(whole.len(), 8);
    assert_eq!(chunks_of(&frame, true).unwrap(), whole);
    let mut back = SuperChunk::from_buffer_copy(&frame).unwrap();
    let mut out = vec![1u8; 3000];
    back.decompress_chunk(3, &mut out).unwrap();
    assert!(out.iter().all(|&b| b == 0));
    back.decompress_chunk(2, &mut out).unwrap();
    assert_eq!(out, data(750, 1));

    let mut damaged = Vec::new();
    for cut in (0..frame.len()).step_by(7) {
        damaged.push(frame[..cut].to_vec());
    }
    for at in 0..frame.len() {
        let mut f = frame.clone();
        f[at] ^= 0x5a;
        damaged.push(f);
    }
    for f in &damaged {
        // Chunks the whole frame reads are what the copy holds; a frame the whole-frame
        // route cannot read fully may not open with copy either.
        if let Ok(copied) = chunks_of(f, true) {
            assert_eq!(Ok(copied), chunks_of(f, false));
        }
    }
}

/// A frame of small chunks opened with copy holds them in one copy of its payload; they
/// read as the whole frame's, whatever is replaced, deleted or inserted after, and outlive
/// the super-chunk when lent. A payload mostly of deleted chunks' bytes is not kept whole.
#[test]
fn small_chunks_opened_with_copy_share_one_slab() {
    let (c, d) = params(4);
    let spec = StorageSpec { contiguous: true, urlpath: None };
    let mut s = SuperChunk::new(c, d, &spec).unwrap();
    for k in 0..200 {
        s.append_buffer(&data(64, k as u32)).unwrap();
    }
    s.append_chunk(&special(4, 256, Special::Zero)).unwrap();
    let frame = s.to_buffer().unwrap().into_owned();
    let in_slab = |s: &SuperChunk| match &s.store {
        Store::Memory(v) => v.iter().filter(|c| matches!(c, MemChunk::InSlab(_))).count(),
        Store::Frame(_) => panic!("opened with copy: chunks in memory"),
    };
    let mut copy = SuperChunk::from_buffer_copy(&frame).unwrap();
    assert_eq!(in_slab(&copy), 200);
    let lent = copy.get_chunk(7).unwrap().into_owned();
    for n in 0..201 {
        assert_eq!(copy.get_chunk(n).unwrap(), s.get_chunk(n).unwrap(), "chunk {n}");
    }
    let new = s.get_chunk(150).unwrap().into_owned();
    copy.update_chunk(3, &new).unwrap();
    copy.delete_chunk(5).unwrap();
    copy.insert_chunk(9, &new).unwrap();
    let mut out = vec![0u8; 4 * 64];
    assert_eq!(copy.decompress_chunk(3, &mut out).unwrap(), out.len());
    assert_eq!(out, data(64, 150));
    drop(s);
    let mut want = SuperChunk::from_frame_vec(frame.clone()).unwrap();
    want.update_chunk(3, &new).unwrap();
    want.delete_chunk(5).unwrap();
    want.insert_chunk(9, &new).unwrap();
    for n in 0..want.nchunks() {
        assert_eq!(copy.get_chunk(n).unwrap(), want.get_chunk(n).unwrap(), "chunk {n} after edits");
    }
    drop(copy);
    // Chunk 7 then, 6 since the delete.
    assert_eq!(lent, want.get_chunk(6).unwrap().into_owned());

    // The same frame after most chunks were deleted: their bytes stay in its payload.
    let mut thin = SuperChunk::from_frame_vec(frame.clone()).unwrap();
    for _ in 0..150 {
        thin.delete_chunk(0).unwrap();
    }
    let thin_frame = thin.to_buffer().unwrap().into_owned();
    let mut copy = SuperChunk::from_buffer_copy(&thin_frame).unwrap();
    assert_eq!(in_slab(&copy), 0, "a payload mostly deleted is copied chunk by chunk");
    for n in 0..thin.nchunks() {
        assert_eq!(copy.get_chunk(n).unwrap(), thin.get_chunk(n).unwrap(), "chunk {n} of the thinned frame");
    }
}
