//! Super-chunk C API against the reference library loaded in-process: frames written by one
//! library open in the other and decompress byte-equal, and every fixture frame decompresses
//! the same with both. (More cases live in `c_tests/test_schunk_basic.c`.)

use std::ffi::{c_void, CString};
use std::path::PathBuf;

use blosc2::ffi::abi::{blosc2_cparams, blosc2_schunk, blosc2_storage, BLOSC2_CPARAMS_DEFAULTS};
use blosc2::ffi::schunk as ours;

/// The few reference functions this test needs (own loader, see tests/common for the shape).
struct Ref {
    _h: *mut c_void,
    init: unsafe extern "C" fn(),
    from_buffer: unsafe extern "C" fn(*mut u8, i64, bool) -> *mut blosc2_schunk,
    open: unsafe extern "C" fn(*const libc::c_char) -> *mut blosc2_schunk,
    new: unsafe extern "C" fn(*mut blosc2_storage) -> *mut blosc2_schunk,
    append_buffer: unsafe extern "C" fn(*mut blosc2_schunk, *const c_void, i32) -> i64,
    decompress_chunk: unsafe extern "C" fn(*mut blosc2_schunk, i64, *mut c_void, i32) -> i32,
    to_buffer: unsafe extern "C" fn(*mut blosc2_schunk, *mut *mut u8, *mut bool) -> i64,
    free: unsafe extern "C" fn(*mut blosc2_schunk) -> i32,
}

fn reference() -> Option<Ref> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("reference/blosc2/lib/libblosc2.so.9");
    if !p.exists() {
        assert!(std::env::var_os("CI").is_none(), "reference library missing");
        eprintln!("reference library missing: test skipped");
        return None;
    }
    let c = CString::new(p.to_str().unwrap()).unwrap();
    unsafe {
        let h = libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL | libc::RTLD_DEEPBIND);
        assert!(!h.is_null());
        let sym = |n: &str| {
            let s = CString::new(n).unwrap();
            let p = libc::dlsym(h, s.as_ptr());
            assert!(!p.is_null(), "missing {n}");
            p
        };
        let r = Ref {
            _h: h,
            init: std::mem::transmute(sym("blosc2_init")),
            from_buffer: std::mem::transmute(sym("blosc2_schunk_from_buffer")),
            open: std::mem::transmute(sym("blosc2_schunk_open")),
            new: std::mem::transmute(sym("blosc2_schunk_new")),
            append_buffer: std::mem::transmute(sym("blosc2_schunk_append_buffer")),
            decompress_chunk: std::mem::transmute(sym("blosc2_schunk_decompress_chunk")),
            to_buffer: std::mem::transmute(sym("blosc2_schunk_to_buffer")),
            free: std::mem::transmute(sym("blosc2_schunk_free")),
        };
        (r.init)();
        Some(r)
    }
}

/// All chunks of a super-chunk, decompressed with `dec`.
unsafe fn contents(
    s: *mut blosc2_schunk,
    dec: unsafe extern "C" fn(*mut blosc2_schunk, i64, *mut c_void, i32) -> i32,
) -> Vec<Vec<u8>> {
    let n = unsafe { (*s).nchunks };
    (0..n)
        .map(|i| {
            let mut out = vec![0u8; 1 << 22];
            let r = unsafe { dec(s, i, out.as_mut_ptr() as *mut c_void, out.len() as i32) };
            assert!(r >= 0, "chunk {i}: {r}");
            out.truncate(r as usize);
            out
        })
        .collect()
}

#[test]
fn fixture_frames_decompress_like_the_reference() {
    let Some(r) = reference() else { return };
    let shared = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures");
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in ["frames", "compat"] {
        if let Ok(rd) = std::fs::read_dir(shared.join(dir)) {
            files.extend(rd.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "b2frame")));
        }
    }
    for f in files {
        let c = CString::new(f.to_str().unwrap()).unwrap();
        unsafe {
            let a = ours::blosc2_schunk_open(c.as_ptr());
            let b = (r.open)(c.as_ptr());
            assert_eq!(a.is_null(), b.is_null(), "{}", f.display());
            if a.is_null() {
                continue;
            }
            assert_eq!((*a).nchunks, (*b).nchunks, "{}", f.display());
            assert_eq!((*a).nbytes, (*b).nbytes, "{}", f.display());
            assert_eq!(
                contents(a, ours::blosc2_schunk_decompress_chunk),
                contents(b, r.decompress_chunk),
                "{}",
                f.display()
            );
            ours::blosc2_schunk_free(a);
            (r.free)(b);
        }
    }
}

fn fill(
    new: unsafe extern "C" fn(*mut blosc2_storage) -> *mut blosc2_schunk,
    append: unsafe extern "C" fn(*mut blosc2_schunk, *const c_void, i32) -> i64,
    cp: &mut blosc2_cparams,
) -> *mut blosc2_schunk {
    let mut st = blosc2_storage { contiguous: true, cparams: cp, ..Default::default() };
    let s = unsafe { new(&mut st) };
    assert!(!s.is_null());
    for k in 0..5u32 {
        let data: Vec<u8> = (0..40_000u32).flat_map(|i| (i * (k + 1) / 3).to_le_bytes()).collect();
        let n = if k == 4 { 1000 } else { data.len() };
        assert_eq!(unsafe { append(s, data.as_ptr() as *const c_void, n as i32) }, k as i64 + 1);
    }
    s
}

#[test]
fn frames_cross_open_for_every_codec() {
    let Some(r) = reference() else { return };
    for codec in [0u8, 1, 2, 4, 5] {
        let mut cp = BLOSC2_CPARAMS_DEFAULTS;
        cp.typesize = 4;
        cp.compcode = codec;
        unsafe {
            let a = fill(ours::blosc2_schunk_new, ours::blosc2_schunk_append_buffer, &mut cp);
            let b = fill(r.new, r.append_buffer, &mut cp);
            let (mut pa, mut pb) = (std::ptr::null_mut(), std::ptr::null_mut());
            let (mut fa, mut fb) = (false, false);
            let la = ours::blosc2_schunk_to_buffer(a, &mut pa, &mut fa);
            let lb = (r.to_buffer)(b, &mut pb, &mut fb);
            let fa_bytes = std::slice::from_raw_parts(pa, la as usize).to_vec();
            let fb_bytes = std::slice::from_raw_parts(pb, lb as usize).to_vec();
            assert_eq!(fa_bytes, fb_bytes, "codec {codec}: frames differ");
            // Ours opens the reference's frame and vice versa.
            let mut x = fb_bytes.clone();
            let oa = ours::blosc2_schunk_from_buffer(x.as_mut_ptr(), lb, true);
            let mut y = fa_bytes.clone();
            let ob = (r.from_buffer)(y.as_mut_ptr(), la, true);
            assert_eq!(
                contents(oa, ours::blosc2_schunk_decompress_chunk),
                contents(ob, r.decompress_chunk),
                "codec {codec}"
            );
            for s in [a, oa] {
                ours::blosc2_schunk_free(s);
            }
            for s in [b, ob] {
                (r.free)(s);
            }
        }
    }
}
