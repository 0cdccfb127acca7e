//! Frame locking shared with the reference library: a handle of ours and a handle of the
//! reference (loaded in-process) on one frame take the same sidecar lock, bump the same
//! generation counter and follow each other's changes, including a same-length update that
//! only the counter reveals; an exclusive bracket held by one library blocks a writer of the
//! other until it is released.

mod common;

use std::ffi::{c_void, CString};
use std::sync::mpsc;
use std::time::Duration;

use blosc2::ffi::abi::{
    blosc2_io, blosc2_schunk, blosc2_stdio_params, blosc2_storage, BLOSC2_CPARAMS_DEFAULTS, BLOSC2_IO_FILESYSTEM,
};
use blosc2::ffi::schunk as ours;

struct Ref {
    _lib: common::RefLib,
    new: unsafe extern "C" fn(*mut blosc2_storage) -> *mut blosc2_schunk,
    append_buffer: unsafe extern "C" fn(*mut blosc2_schunk, *const c_void, i32) -> i64,
    update_chunk: unsafe extern "C" fn(*mut blosc2_schunk, i64, *mut u8, bool) -> i64,
    decompress_chunk: unsafe extern "C" fn(*mut blosc2_schunk, i64, *mut c_void, i32) -> i32,
    get_chunk: unsafe extern "C" fn(*mut blosc2_schunk, i64, *mut *mut u8, *mut bool) -> i32,
    refresh: unsafe extern "C" fn(*mut blosc2_schunk) -> i32,
    lock: unsafe extern "C" fn(*mut blosc2_schunk) -> i32,
    unlock: unsafe extern "C" fn(*mut blosc2_schunk) -> i32,
    free: unsafe extern "C" fn(*mut blosc2_schunk) -> i32,
}
// SAFETY: plain function pointers into a library that stays loaded.
unsafe impl Send for Ref {}
unsafe impl Sync for Ref {}

fn reference() -> Option<Ref> {
    let lib = common::RefLib::open()?;
    // SAFETY: the symbols have the signatures declared in `Ref`.
    unsafe {
        let init: unsafe extern "C" fn() = std::mem::transmute(lib.sym("blosc2_init"));
        init();
        Some(Ref {
            new: std::mem::transmute(lib.sym("blosc2_schunk_new")),
            append_buffer: std::mem::transmute(lib.sym("blosc2_schunk_append_buffer")),
            update_chunk: std::mem::transmute(lib.sym("blosc2_schunk_update_chunk")),
            decompress_chunk: std::mem::transmute(lib.sym("blosc2_schunk_decompress_chunk")),
            get_chunk: std::mem::transmute(lib.sym("blosc2_schunk_get_chunk")),
            refresh: std::mem::transmute(lib.sym("blosc2_schunk_refresh")),
            lock: std::mem::transmute(lib.sym("blosc2_schunk_lock")),
            unlock: std::mem::transmute(lib.sym("blosc2_schunk_unlock")),
            free: std::mem::transmute(lib.sym("blosc2_schunk_free")),
            _lib: lib,
        })
    }
}

const ITEMS: usize = 1000;

fn chunk_data(value: i32) -> Vec<u8> {
    (0..ITEMS as i32).flat_map(|i| (value + i).to_le_bytes()).collect()
}

/// First item of chunk `n`, or the error code.
unsafe fn first(
    dec: unsafe extern "C" fn(*mut blosc2_schunk, i64, *mut c_void, i32) -> i32,
    s: *mut blosc2_schunk,
    n: i64,
) -> i32 {
    let mut out = vec![0u8; ITEMS * 4];
    let r = dec(s, n, out.as_mut_ptr() as *mut c_void, out.len() as i32);
    if r < 0 {
        return r;
    }
    i32::from_le_bytes(out[..4].try_into().unwrap())
}

fn generation(sidecar: &std::path::Path) -> u64 {
    let b = std::fs::read(sidecar).unwrap();
    u64::from_ne_bytes(b[8..16].try_into().unwrap())
}

#[test]
fn ours_and_reference_share_the_frame_lock() {
    let Some(r) = reference() else { return };
    let dir = std::env::temp_dir().join(format!("b2lock-interop-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for contiguous in [true, false] {
        let path = dir.join(if contiguous { "f.b2frame" } else { "f.b2dir" });
        let sidecar = if contiguous { dir.join("f.b2frame.b2lock") } else { path.join(".b2lock") };
        let cpath = CString::new(path.to_str().unwrap()).unwrap();
        let mut params = blosc2_stdio_params { locking: true };
        let io = blosc2_io {
            id: BLOSC2_IO_FILESYSTEM as u8,
            name: c"filesystem".as_ptr(),
            params: &mut params as *mut _ as *mut c_void,
        };
        let mut cp = BLOSC2_CPARAMS_DEFAULTS;
        cp.typesize = 4;
        // SAFETY: C API calls with valid arguments on both libraries.
        unsafe {
            // The reference creates and fills the frame under its lock.
            let mut st = blosc2_storage {
                contiguous,
                urlpath: cpath.as_ptr() as *mut _,
                cparams: &mut cp,
                io: &io as *const _ as *mut _,
                ..Default::default()
            };
            let rs = (r.new)(&mut st);
            assert!(!rs.is_null());
            for k in 0..3 {
                let d = chunk_data(k * 10_000);
                assert_eq!((r.append_buffer)(rs, d.as_ptr() as *const c_void, d.len() as i32), k as i64 + 1);
            }
            assert_eq!(generation(&sidecar), 3);
            // Ours opens it with locking and reads it.
            let os = blosc2::ffi::frame::blosc2_schunk_open_udio(cpath.as_ptr(), &io);
            assert!(!os.is_null());
            assert_eq!((*os).nchunks, 3);
            assert_eq!(first(ours::blosc2_schunk_decompress_chunk, os, 2), 20_000);

            // Ours appends; the reference follows on its next access.
            let d = chunk_data(30_000);
            assert_eq!(ours::blosc2_schunk_append_buffer(os, d.as_ptr() as *const c_void, d.len() as i32), 4);
            assert_eq!(generation(&sidecar), 4);
            assert_eq!((r.refresh)(rs), 1);
            assert_eq!((*rs).nchunks, 4);
            assert_eq!(first(r.decompress_chunk, rs, 3), 30_000);

            // The reference rewrites chunk 0 with a chunk of the same length: only the
            // generation counter tells ours, which must not serve the old data.
            let mut c0: *mut u8 = std::ptr::null_mut();
            let mut nf = false;
            let len = (r.get_chunk)(rs, 1, &mut c0, &mut nf);
            assert!(len > 0);
            let mut copy = std::slice::from_raw_parts(c0, len as usize).to_vec();
            if nf {
                libc::free(c0 as *mut c_void);
            }
            let before =
                std::fs::metadata(if contiguous { path.clone() } else { path.join("chunks.b2frame") }).unwrap().len();
            assert_eq!((r.update_chunk)(rs, 0, copy.as_mut_ptr(), true), 4);
            let after =
                std::fs::metadata(if contiguous { path.clone() } else { path.join("chunks.b2frame") }).unwrap().len();
            if !contiguous {
                assert_eq!(before, after, "a sparse update leaves the index file length alone");
            }
            assert_eq!(first(ours::blosc2_schunk_decompress_chunk, os, 0), 10_000);

            // An exclusive bracket of ours blocks the reference's writer until released.
            assert_eq!(ours::blosc2_schunk_lock(os), 0);
            let (tx, rx) = mpsc::channel();
            let rs_addr = rs as usize;
            let rref = &r;
            std::thread::scope(|scope| {
                scope.spawn(move || {
                    let d = chunk_data(40_000);
                    let n = (rref.append_buffer)(
                        rs_addr as *mut blosc2_schunk,
                        d.as_ptr() as *const c_void,
                        d.len() as i32,
                    );
                    tx.send(n).unwrap();
                });
                assert!(
                    rx.recv_timeout(Duration::from_millis(300)).is_err(),
                    "the reference wrote through our exclusive lock"
                );
                assert_eq!(ours::blosc2_schunk_unlock(os), 0);
                assert_eq!(rx.recv_timeout(Duration::from_secs(30)).unwrap(), 5);
            });
            // Like the reference, decompressing checks the index against the counters this
            // handle has; a refresh brings them up to date.
            assert_eq!(ours::blosc2_schunk_refresh(os), 1);
            assert_eq!((*os).nchunks, 5);
            assert_eq!(first(ours::blosc2_schunk_decompress_chunk, os, 4), 40_000);

            // And the other way round: the reference's bracket blocks our writer.
            assert_eq!((r.lock)(rs), 0);
            let (tx, rx) = mpsc::channel();
            let os_addr = os as usize;
            std::thread::scope(|scope| {
                scope.spawn(move || {
                    let d = chunk_data(50_000);
                    let n = ours::blosc2_schunk_append_buffer(
                        os_addr as *mut blosc2_schunk,
                        d.as_ptr() as *const c_void,
                        d.len() as i32,
                    );
                    tx.send(n).unwrap();
                });
                assert!(
                    rx.recv_timeout(Duration::from_millis(300)).is_err(),
                    "ours wrote through the reference's exclusive lock"
                );
                assert_eq!((r.unlock)(rs), 0);
                assert_eq!(rx.recv_timeout(Duration::from_secs(30)).unwrap(), 6);
            });
            assert_eq!((r.refresh)(rs), 1);
            assert_eq!((*rs).nchunks, 6);
            assert_eq!(first(r.decompress_chunk, rs, 5), 50_000);

            ours::blosc2_schunk_free(os);
            (r.free)(rs);
            assert_eq!(blosc2::ffi::urlpath::blosc2_remove_urlpath(cpath.as_ptr()), 0);
            assert!(!sidecar.exists(), "the sidecar goes with the frame");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
