//! Truncated frame files: a small contiguous frame (several chunks, a metalayer, two
//! vlmetalayers) cut at every byte offset must either fail to open or open with chunks that
//! decompress to exactly the original data or fail with an error code — never garbage, never
//! a crash. Run through the C API (`blosc2_schunk_open`, and `blosc2_schunk_open_udio` with the
//! memory-mapped backend), as a C program would. A second pass also rewrites the header's
//! frame length to the cut length, so that the parser reaches the (missing or misplaced)
//! trailer and index instead of stopping at the length check.

use std::ffi::{c_void, CString};
use std::path::{Path, PathBuf};

use blosc2::ffi::abi::*;
use blosc2::ffi::frame::blosc2_schunk_open_udio;
use blosc2::ffi::meta::{blosc2_meta_add, blosc2_vlmeta_add, blosc2_vlmeta_get};
use blosc2::ffi::schunk::*;

struct Original {
    chunks: Vec<Vec<u8>>,
    vlmeta: Vec<(CString, Vec<u8>)>,
    meta: (String, Vec<u8>),
    bytes: Vec<u8>,
}

fn tmpdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("b2trunc-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn cpath(p: &Path) -> CString {
    CString::new(p.to_str().unwrap()).unwrap()
}

/// Write the frame with our library and remember what went in.
fn make_frame(dir: &Path, compcode: u8, filter: u8) -> Original {
    let path = dir.join("full.b2frame");
    let c = cpath(&path);
    let mut cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4;
    cp.compcode = compcode;
    cp.clevel = 5;
    cp.nthreads = 1;
    cp.filters[BLOSC2_MAX_FILTERS - 1] = filter;
    let mut st = BLOSC2_STORAGE_DEFAULTS;
    st.contiguous = true;
    st.urlpath = c.as_ptr() as *mut _;
    st.cparams = &mut cp;
    let mut chunks = Vec::new();
    let meta = ("grid".to_string(), b"\x93\x01\x02\x03".to_vec());
    let vlmeta = vec![(CString::new("author").unwrap(), b"someone".to_vec()), (CString::new("big").unwrap(), vec![42u8; 300])];
    unsafe {
        let s = blosc2_schunk_new(&mut st);
        assert!(!s.is_null());
        let name = CString::new(meta.0.clone()).unwrap();
        let mut m = meta.1.clone();
        assert!(blosc2_meta_add(s, name.as_ptr(), m.as_mut_ptr(), m.len() as i32) >= 0);
        for (k, v) in &vlmeta {
            let mut v = v.clone();
            assert!(blosc2_vlmeta_add(s, k.as_ptr(), v.as_mut_ptr(), v.len() as i32, std::ptr::null_mut()) >= 0);
        }
        for k in 0..4u32 {
            if k == 3 {
                // A special (zeros) chunk too.
                let mut z = vec![0u8; BLOSC_EXTENDED_HEADER_LENGTH as usize];
                assert!(blosc2::ffi::chunk::blosc2_chunk_zeros(cp, 4000, z.as_mut_ptr() as *mut c_void, z.len() as i32) > 0);
                assert!(blosc2_schunk_append_chunk(s, z.as_mut_ptr(), true) > 0);
                chunks.push(vec![0u8; 4000]);
            }
            let n = if k == 3 { 300 } else { 1000 };
            let data: Vec<u8> = (0..n).flat_map(|i: u32| (i * 7 + k * 1000 + (i % 13)).to_le_bytes()).collect();
            assert!(blosc2_schunk_append_buffer(s, data.as_ptr() as *const c_void, data.len() as i32) > 0);
            chunks.push(data);
        }
        assert_eq!(blosc2_schunk_free(s), 0);
    }
    let bytes = std::fs::read(&path).unwrap();
    Original { chunks, vlmeta, meta, bytes }
}

/// Check one opened (possibly truncated) super-chunk against the original.
unsafe fn check_opened(s: *mut blosc2_schunk, orig: &Original, cut: usize, how: &str) -> usize {
    let sc = &*s;
    assert!(
        sc.nchunks >= 0 && sc.nchunks as usize <= orig.chunks.len(),
        "{how} cut {cut}: nchunks {}",
        sc.nchunks
    );
    // Metalayers present must be intact.
    for i in 0..sc.nmetalayers as usize {
        let m = &*sc.metalayers[i];
        let name = std::ffi::CStr::from_ptr(m.name).to_str().unwrap();
        assert_eq!(name, orig.meta.0, "{how} cut {cut}: metalayer name");
        let content = std::slice::from_raw_parts(m.content, m.content_len as usize);
        assert_eq!(content, &orig.meta.1[..], "{how} cut {cut}: metalayer content");
    }
    for (k, v) in &orig.vlmeta {
        let mut content: *mut u8 = std::ptr::null_mut();
        let mut len = 0i32;
        let r = blosc2_vlmeta_get(s, k.as_ptr(), &mut content, &mut len);
        if r >= 0 {
            assert_eq!(std::slice::from_raw_parts(content, len as usize), &v[..], "{how} cut {cut}: vlmeta");
            libc::free(content as *mut c_void);
        }
    }
    let mut good = 0;
    let mut out = vec![0u8; 8000];
    for i in 0..sc.nchunks {
        let r = blosc2_schunk_decompress_chunk(s, i, out.as_mut_ptr() as *mut c_void, out.len() as i32);
        if r >= 0 {
            let want = &orig.chunks[i as usize];
            assert_eq!(&out[..r as usize], &want[..], "{how} cut {cut}: chunk {i} garbage");
            good += 1;
        }
        let mut chunk: *mut u8 = std::ptr::null_mut();
        let mut needs_free = false;
        if blosc2_schunk_get_chunk(s, i, &mut chunk, &mut needs_free) > 0 && needs_free {
            libc::free(chunk as *mut c_void);
        }
    }
    let _ = blosc2_schunk_get_slice_buffer(s, 0, 100, out.as_mut_ptr() as *mut c_void);
    good
}

/// The cut frame as a file; with `patch_len`, the header's frame length (a msgpack uint64
/// at byte 16) is set to the cut length so that opening goes past the length check and parses
/// whatever the cut left where the trailer should be.
fn cut_bytes(orig: &[u8], cut: usize, patch_len: bool) -> Vec<u8> {
    let mut v = orig[..cut].to_vec();
    if patch_len && v.len() >= 25 && v[16] == 0xcf {
        v[17..25].copy_from_slice(&(cut as u64).to_be_bytes());
    }
    v
}

fn run(tag: &str, compcode: u8, filter: u8) {
    run_cuts(tag, compcode, filter, false);
    run_cuts(tag, compcode, filter, true);
}

fn run_cuts(tag: &str, compcode: u8, filter: u8, patch_len: bool) {
    let dir = tmpdir(&format!("{tag}-{patch_len}"));
    let orig = make_frame(&dir, compcode, filter);
    let cut_path = dir.join("cut.b2frame");
    let c = cpath(&cut_path);
    let mut opened = 0;
    for cut in 0..=orig.bytes.len() {
        std::fs::write(&cut_path, cut_bytes(&orig.bytes, cut, patch_len)).unwrap();
        unsafe {
            let s = blosc2_schunk_open(c.as_ptr());
            if !s.is_null() {
                opened += 1;
                let good = check_opened(s, &orig, cut, "stdio");
                if cut == orig.bytes.len() {
                    assert_eq!(good, orig.chunks.len(), "the whole frame must read back");
                }
                assert_eq!(blosc2_schunk_free(s), 0);
            } else {
                assert!(cut < orig.bytes.len(), "the whole frame must open");
            }
            let mut mm = BLOSC2_STDIO_MMAP_DEFAULTS;
            let mut io = BLOSC2_IO_DEFAULTS;
            io.id = BLOSC2_IO_FILESYSTEM_MMAP as u8;
            io.params = &mut mm as *mut blosc2_stdio_mmap as *mut c_void;
            let s = blosc2_schunk_open_udio(c.as_ptr(), &io);
            if !s.is_null() {
                check_opened(s, &orig, cut, "mmap");
                assert_eq!(blosc2_schunk_free(s), 0);
            } else {
                assert!(cut < orig.bytes.len(), "the whole frame must open through mmap");
                // A failed open may leave the mapping behind; release it.
                if !mm.addr.is_null() {
                    blosc2::ffi::stdio::blosc2_stdio_mmap_destroy(io.params);
                }
            }
        }
    }
    eprintln!("{tag} (frame length patched: {patch_len}): {} bytes, {opened} cuts open", orig.bytes.len());
    assert!(opened >= 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn truncated_blosclz_frame() {
    run("blosclz", BLOSC_BLOSCLZ as u8, BLOSC_SHUFFLE as u8);
}

#[test]
fn truncated_zstd_bitshuffle_frame() {
    run("zstd", BLOSC_ZSTD as u8, BLOSC_BITSHUFFLE as u8);
}
