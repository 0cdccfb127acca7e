//! b2nd arrays cross-read between this library and the reference (loaded in-process):
//! frames in memory and files (contiguous and sparse) written by one are opened by the
//! other, and every item, a window across chunk and block edges, and the frames match.

mod common;

use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use blosc2::ffi::abi::*;
use blosc2::ffi::b2nd::*;
use common::{RefLib, Rng};

type Arr = *mut c_void;

/// A scratch directory removed at drop.
struct TempDir(std::path::PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!("{name}_{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[allow(clippy::type_complexity)]
struct Ref {
    _lib: RefLib,
    create_ctx: unsafe extern "C" fn(
        *const blosc2_storage,
        i8,
        *const i64,
        *const i32,
        *const i32,
        *const i8,
        i8,
        *const blosc2_metalayer,
        i32,
    ) -> *mut c_void,
    free_ctx: unsafe extern "C" fn(*mut c_void) -> i32,
    from_cbuffer: unsafe extern "C" fn(*mut c_void, *mut Arr, *const c_void, i64) -> i32,
    to_cbuffer: unsafe extern "C" fn(Arr, *mut c_void, i64) -> i32,
    to_cframe: unsafe extern "C" fn(Arr, *mut *mut u8, *mut i64, *mut bool) -> i32,
    from_cframe: unsafe extern "C" fn(*mut u8, i64, bool, *mut Arr) -> i32,
    get_slice: unsafe extern "C" fn(Arr, *const i64, *const i64, *mut c_void, *const i64, i64) -> i32,
    set_slice: unsafe extern "C" fn(*const c_void, *const i64, i64, *const i64, *const i64, Arr) -> i32,
    save: unsafe extern "C" fn(Arr, *const i8) -> i32,
    open: unsafe extern "C" fn(*const i8, *mut Arr) -> i32,
    free: unsafe extern "C" fn(Arr) -> i32,
}

fn reference() -> Option<Ref> {
    let lib = RefLib::open()?;
    // SAFETY: the symbols have these C signatures (b2nd.h of 3.3.5).
    unsafe {
        let init: unsafe extern "C" fn() = std::mem::transmute(lib.sym("blosc2_init"));
        init();
        Some(Ref {
            create_ctx: std::mem::transmute(lib.sym("b2nd_create_ctx")),
            free_ctx: std::mem::transmute(lib.sym("b2nd_free_ctx")),
            from_cbuffer: std::mem::transmute(lib.sym("b2nd_from_cbuffer")),
            to_cbuffer: std::mem::transmute(lib.sym("b2nd_to_cbuffer")),
            to_cframe: std::mem::transmute(lib.sym("b2nd_to_cframe")),
            from_cframe: std::mem::transmute(lib.sym("b2nd_from_cframe")),
            get_slice: std::mem::transmute(lib.sym("b2nd_get_slice_cbuffer")),
            set_slice: std::mem::transmute(lib.sym("b2nd_set_slice_cbuffer")),
            save: std::mem::transmute(lib.sym("b2nd_save")),
            open: std::mem::transmute(lib.sym("b2nd_open")),
            free: std::mem::transmute(lib.sym("b2nd_free")),
            _lib: lib,
        })
    }
}

struct Case {
    shape: Vec<i64>,
    chunk: Vec<i32>,
    block: Vec<i32>,
    typesize: i32,
}

impl Case {
    fn random(rng: &mut Rng) -> Case {
        let nd = 1 + (rng.next() % 5) as usize;
        let side = [60, 20, 9, 6, 4][nd - 1];
        let shape: Vec<i64> = (0..nd).map(|_| 1 + (rng.next() % side) as i64).collect();
        let chunk: Vec<i32> = shape.iter().map(|&s| 1 + (rng.next() % s as u64 + 1) as i32).collect();
        let block: Vec<i32> = chunk.iter().map(|&c| 1 + (rng.next() % c as u64) as i32).collect();
        let typesize = [1, 2, 4, 8, 3, 16][(rng.next() % 6) as usize];
        Case { shape, chunk, block, typesize }
    }
    fn nbytes(&self) -> usize {
        self.shape.iter().product::<i64>() as usize * self.typesize as usize
    }
    fn cparams(&self) -> blosc2_cparams {
        blosc2_cparams { typesize: self.typesize, nthreads: 1, ..BLOSC2_CPARAMS_DEFAULTS }
    }
    fn window(&self) -> (Vec<i64>, Vec<i64>, Vec<i64>) {
        let start: Vec<i64> = self.shape.iter().map(|&s| s / 3).collect();
        let stop: Vec<i64> = self.shape.iter().map(|&s| s - s / 4).collect();
        let ws = start.iter().zip(&stop).map(|(a, b)| b - a).collect();
        (start, stop, ws)
    }
}

fn data(n: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    (0..n).map(|i| if i % 3 == 0 { rng.next() as u8 } else { (i / 7) as u8 }).collect()
}

/// (all items, window items, cframe) of one of our arrays.
unsafe fn ours_read(a: *mut b2nd_array_t, c: &Case) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let mut all = vec![0u8; c.nbytes()];
    assert_eq!(b2nd_to_cbuffer(a, all.as_mut_ptr() as *mut c_void, all.len() as i64), 0);
    let (start, stop, ws) = c.window();
    let mut win = vec![0u8; ws.iter().product::<i64>() as usize * c.typesize as usize];
    let rc = b2nd_get_slice_cbuffer(a, start.as_ptr(), stop.as_ptr(), win.as_mut_ptr() as *mut c_void, ws.as_ptr(), win.len() as i64);
    assert_eq!(rc, 0);
    let (mut p, mut len, mut nf) = (null_mut(), 0i64, false);
    assert_eq!(b2nd_to_cframe(a, &mut p, &mut len, &mut nf), 0);
    let frame = std::slice::from_raw_parts(p, len as usize).to_vec();
    if nf {
        libc::free(p as *mut c_void);
    }
    (all, win, frame)
}

unsafe fn ref_read(r: &Ref, a: Arr, c: &Case) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let mut all = vec![0u8; c.nbytes()];
    assert_eq!((r.to_cbuffer)(a, all.as_mut_ptr() as *mut c_void, all.len() as i64), 0);
    let (start, stop, ws) = c.window();
    let mut win = vec![0u8; ws.iter().product::<i64>() as usize * c.typesize as usize];
    let rc = (r.get_slice)(a, start.as_ptr(), stop.as_ptr(), win.as_mut_ptr() as *mut c_void, ws.as_ptr(), win.len() as i64);
    assert_eq!(rc, 0);
    let (mut p, mut len, mut nf) = (null_mut(), 0i64, false);
    assert_eq!((r.to_cframe)(a, &mut p, &mut len, &mut nf), 0);
    let frame = std::slice::from_raw_parts(p, len as usize).to_vec();
    if nf {
        libc::free(p as *mut c_void);
    }
    (all, win, frame)
}

/// Write a pattern into the window of both arrays.
unsafe fn write_window(r: &Ref, ours: *mut b2nd_array_t, theirs: Arr, c: &Case) {
    let (start, stop, ws) = c.window();
    let buf = data(ws.iter().product::<i64>() as usize * c.typesize as usize, 99);
    let n = buf.len() as i64;
    assert_eq!(b2nd_set_slice_cbuffer(buf.as_ptr() as *const c_void, ws.as_ptr(), n, start.as_ptr(), stop.as_ptr(), ours), 0);
    assert_eq!((r.set_slice)(buf.as_ptr() as *const c_void, ws.as_ptr(), n, start.as_ptr(), stop.as_ptr(), theirs), 0);
}

#[test]
fn frames_cross_read_both_ways() {
    let Some(r) = reference() else { return };
    let mut rng = Rng::new(7);
    for k in 0..40 {
        let c = Case::random(&mut rng);
        let src = data(c.nbytes(), k);
        let nd = c.shape.len() as i8;
        let mut cp = c.cparams();
        let st = blosc2_storage { cparams: &mut cp, ..BLOSC2_STORAGE_DEFAULTS };
        unsafe {
            // Ours writes, the reference reads (and the other way round), after a partial write.
            let ctx = b2nd_create_ctx(&st, nd, c.shape.as_ptr(), c.chunk.as_ptr(), c.block.as_ptr(), std::ptr::null(), 0, std::ptr::null(), 0);
            let mut ours = null_mut();
            assert_eq!(b2nd_from_cbuffer(ctx, &mut ours, src.as_ptr() as *const c_void, src.len() as i64), 0);
            let rctx = (r.create_ctx)(&st, nd, c.shape.as_ptr(), c.chunk.as_ptr(), c.block.as_ptr(), std::ptr::null(), 0, std::ptr::null(), 0);
            let mut theirs: Arr = null_mut();
            assert_eq!((r.from_cbuffer)(rctx, &mut theirs, src.as_ptr() as *const c_void, src.len() as i64), 0);
            write_window(&r, ours, theirs, &c);
            let mine = ours_read(ours, &c);
            let refs = ref_read(&r, theirs, &c);
            assert_eq!(mine.0, refs.0, "items, case {k}");
            assert_eq!(mine.1, refs.1, "window, case {k}");
            assert_eq!(mine.2, refs.2, "frame bytes, case {k}");

            let mut f = mine.2.clone();
            let mut back: Arr = null_mut();
            assert_eq!((r.from_cframe)(f.as_mut_ptr(), f.len() as i64, true, &mut back), 0);
            assert_eq!(ref_read(&r, back, &c).0, refs.0, "reference reads ours, case {k}");
            (r.free)(back);
            let mut f = refs.2.clone();
            let mut back2 = null_mut();
            assert_eq!(b2nd_from_cframe(f.as_mut_ptr(), f.len() as i64, true, &mut back2), 0);
            let again = ours_read(back2, &c);
            assert_eq!((again.0, again.1), (refs.0.clone(), refs.1.clone()), "ours reads the reference's, case {k}");
            b2nd_free(back2);

            // Files: each saves, the other opens.
            let dir = TempDir::new(&format!("b2nd_interop_{k}"));
            for contiguous in [true, false] {
                let p1 = CString::new(dir.0.join(format!("ours{k}{contiguous}.b2nd")).to_str().unwrap()).unwrap();
                let p2 = CString::new(dir.0.join(format!("ref{k}{contiguous}.b2nd")).to_str().unwrap()).unwrap();
                // b2nd_save keeps the array's own contiguity; copy through a frame to pick it.
                let mut cp2 = c.cparams();
                let st2 = blosc2_storage { cparams: &mut cp2, contiguous, urlpath: p1.as_ptr() as *mut _, ..BLOSC2_STORAGE_DEFAULTS };
                let ctx2 = b2nd_create_ctx(&st2, nd, c.shape.as_ptr(), c.chunk.as_ptr(), c.block.as_ptr(), std::ptr::null(), 0, std::ptr::null(), 0);
                let mut on_disk = null_mut();
                assert_eq!(b2nd_from_cbuffer(ctx2, &mut on_disk, src.as_ptr() as *const c_void, src.len() as i64), 0);
                b2nd_free(on_disk);
                b2nd_free_ctx(ctx2);
                let mut opened: Arr = null_mut();
                assert_eq!((r.open)(p1.as_ptr(), &mut opened), 0, "reference opens our file, case {k}");
                let got = ref_read(&r, opened, &c);
                assert_eq!(got.0, src, "reference reads our file, case {k}");
                assert_eq!((r.save)(opened, p2.as_ptr()), 0);
                (r.free)(opened);
                let mut mine2 = null_mut();
                assert_eq!(b2nd_open(p2.as_ptr(), &mut mine2), 0, "we open the reference's file, case {k}");
                let got2 = ours_read(mine2, &c);
                assert_eq!(got2.0, src, "we read the reference's file, case {k}");
                assert_eq!(got2.2, got.2, "frames of the two files, case {k}");
                b2nd_free(mine2);
            }

            b2nd_free(ours);
            b2nd_free_ctx(ctx);
            (r.free)(theirs);
            (r.free_ctx)(rctx);
        }
    }
}

/// The Rust API ([`blosc2::b2nd::Array`]) against the reference: same frame bytes for the
/// same array and writes, and each side opens the other's files.
#[test]
fn rust_api_matches_the_reference() {
    use blosc2::b2nd::{Array, ArraySpec};
    let Some(r) = reference() else { return };
    let mut rng = Rng::new(11);
    for k in 0..30 {
        let c = Case::random(&mut rng);
        let src = data(c.nbytes(), k + 100);
        let nd = c.shape.len() as i8;
        let mut cp = c.cparams();
        let st = blosc2_storage { cparams: &mut cp, ..BLOSC2_STORAGE_DEFAULTS };
        let spec = ArraySpec::new(&c.shape, &c.chunk, &c.block, c.typesize);
        let mut a = Array::from_buffer(&spec, &src).unwrap();
        let (start, stop, ws) = c.window();
        let buf = data(ws.iter().product::<i64>() as usize * c.typesize as usize, 99);
        a.set_slice(&start, &stop, &buf).unwrap();
        unsafe {
            let rctx = (r.create_ctx)(&st, nd, c.shape.as_ptr(), c.chunk.as_ptr(), c.block.as_ptr(), std::ptr::null(), 0, std::ptr::null(), 0);
            let mut theirs: Arr = null_mut();
            assert_eq!((r.from_cbuffer)(rctx, &mut theirs, src.as_ptr() as *const c_void, src.len() as i64), 0);
            let n = buf.len() as i64;
            assert_eq!((r.set_slice)(buf.as_ptr() as *const c_void, ws.as_ptr(), n, start.as_ptr(), stop.as_ptr(), theirs), 0);
            let refs = ref_read(&r, theirs, &c);
            assert_eq!(a.to_vec().unwrap(), refs.0, "items, case {k}");
            assert_eq!(a.slice(&start, &stop).unwrap(), refs.1, "window, case {k}");
            let frame = a.to_frame().unwrap();
            assert_eq!(frame, refs.2, "frame bytes, case {k}");

            let dir = TempDir::new(&format!("b2nd_rust_api_{k}"));
            let ours_path = dir.0.join("ours.b2nd");
            a.save(&ours_path).unwrap();
            let p1 = CString::new(ours_path.to_str().unwrap()).unwrap();
            let mut opened: Arr = null_mut();
            assert_eq!((r.open)(p1.as_ptr(), &mut opened), 0, "reference opens our file, case {k}");
            assert_eq!(ref_read(&r, opened, &c).0, refs.0, "reference reads our file, case {k}");
            (r.free)(opened);
            let p2 = CString::new(dir.0.join("ref.b2nd").to_str().unwrap()).unwrap();
            assert_eq!((r.save)(theirs, p2.as_ptr()), 0);
            let mut back = Array::open(&dir.0.join("ref.b2nd")).unwrap();
            assert_eq!(back.shape(), &c.shape[..]);
            assert_eq!(back.to_vec().unwrap(), refs.0, "we read the reference's file, case {k}");
            (r.free)(theirs);
            (r.free_ctx)(rctx);
        }
    }
}
