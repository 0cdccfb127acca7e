//! Test helpers shared by the integration tests: the reference library loaded in-process
//! (dlopen, so both implementations run side by side), and data generators.
#![allow(dead_code)]

use std::ffi::{c_void, CString};
use std::path::PathBuf;

use blosc2::ffi::abi::{blosc2_context, blosc2_cparams, blosc2_dparams};

pub fn project_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn shared_dir() -> PathBuf {
    project_root().join("..").join("shared")
}

/// Path of the reference libblosc2.so.9; tests that need it fail under CI when missing.
pub fn reference_lib_path() -> Option<PathBuf> {
    let p = project_root().join("reference/blosc2/lib/libblosc2.so.9");
    if p.exists() {
        return Some(p);
    }
    if std::env::var_os("CI").is_some() {
        panic!("reference library missing at {}: run scripts/fetch-reference.sh", p.display());
    }
    eprintln!("reference library missing; run scripts/fetch-reference.sh (test skipped)");
    None
}

macro_rules! ref_fns {
    ($($name:ident : fn($($arg:ty),*) -> $ret:ty;)*) => {
        /// Function pointers into the reference library.
        #[allow(non_snake_case)]
        pub struct Reference {
            _handle: *mut c_void,
            $(pub $name: unsafe extern "C" fn($($arg),*) -> $ret,)*
        }
        unsafe impl Send for Reference {}
        unsafe impl Sync for Reference {}

        impl Reference {
            fn load(path: &std::path::Path) -> Reference {
                let c = CString::new(path.to_str().unwrap()).unwrap();
                let handle = unsafe {
                    libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL | libc::RTLD_DEEPBIND)
                };
                assert!(!handle.is_null(), "dlopen of the reference failed");
                $(
                    let sym = CString::new(stringify!($name)).unwrap();
                    let p = unsafe { libc::dlsym(handle, sym.as_ptr()) };
                    assert!(!p.is_null(), "reference lacks {}", stringify!($name));
                    let $name: unsafe extern "C" fn($($arg),*) -> $ret = unsafe { std::mem::transmute(p) };
                )*
                let r = Reference { _handle: handle, $($name,)* };
                unsafe { (r.blosc2_init)() };
                r
            }
        }
    };
}

ref_fns! {
    blosc2_init: fn() -> ();
    blosc2_compress: fn(i32, i32, i32, *const c_void, i32, *mut c_void, i32) -> i32;
    blosc2_decompress: fn(*const c_void, i32, *mut c_void, i32) -> i32;
    blosc2_create_cctx: fn(blosc2_cparams) -> *mut blosc2_context;
    blosc2_create_dctx: fn(blosc2_dparams) -> *mut blosc2_context;
    blosc2_free_ctx: fn(*mut blosc2_context) -> ();
    blosc2_compress_ctx: fn(*mut blosc2_context, *const c_void, i32, *mut c_void, i32) -> i32;
    blosc2_decompress_ctx: fn(*mut blosc2_context, *const c_void, i32, *mut c_void, i32) -> i32;
    blosc2_getitem_ctx: fn(*mut blosc2_context, *const c_void, i32, i32, i32, *mut c_void, i32) -> i32;
    blosc2_shuffle: fn(i32, i32, *const c_void, *mut c_void) -> i32;
    blosc2_unshuffle: fn(i32, i32, *const c_void, *mut c_void) -> i32;
    blosc2_bitshuffle: fn(i32, i32, *const c_void, *mut c_void) -> i32;
    blosc2_bitunshuffle: fn(i32, i32, *const c_void, *mut c_void) -> i32;
    blosc2_chunk_zeros: fn(blosc2_cparams, i32, *mut c_void, i32) -> i32;
    blosc2_chunk_nans: fn(blosc2_cparams, i32, *mut c_void, i32) -> i32;
    blosc2_chunk_uninit: fn(blosc2_cparams, i32, *mut c_void, i32) -> i32;
    blosc2_chunk_repeatval: fn(blosc2_cparams, i32, *mut c_void, i32, *const c_void) -> i32;
    blosc2_vlcompress_ctx: fn(*mut blosc2_context, *const *const c_void, *const i32, i32, *mut c_void, i32) -> i32;
    blosc2_vldecompress_ctx: fn(*mut blosc2_context, *const c_void, i32, *mut *mut c_void, *mut i32, i32) -> i32;
    blosc2_getitem: fn(*const c_void, i32, i32, i32, *mut c_void, i32) -> i32;
    blosc2_cbuffer_sizes: fn(*const c_void, *mut i32, *mut i32, *mut i32) -> i32;
}

/// The reference library opened on its own (for tests that need functions the shared
/// [`Reference`] table does not list); `None` when it is missing outside CI.
pub struct RefLib(*mut c_void);

impl RefLib {
    pub fn open() -> Option<RefLib> {
        let p = reference_lib_path()?;
        let c = CString::new(p.to_str().unwrap()).unwrap();
        // SAFETY: loading a shared library by path.
        let h = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL | libc::RTLD_DEEPBIND) };
        assert!(!h.is_null(), "dlopen of the reference failed");
        Some(RefLib(h))
    }

    /// Address of function `name` (asserted present).
    pub fn sym(&self, name: &str) -> *mut c_void {
        let s = CString::new(name).unwrap();
        // SAFETY: dlsym on a live handle.
        let p = unsafe { libc::dlsym(self.0, s.as_ptr()) };
        assert!(!p.is_null(), "reference lacks {name}");
        p
    }
}

pub fn reference() -> Option<&'static Reference> {
    static R: std::sync::OnceLock<Option<Reference>> = std::sync::OnceLock::new();
    R.get_or_init(|| reference_lib_path().map(|p| Reference::load(&p))).as_ref()
}

/// A deterministic xorshift generator.
pub struct Rng(u64);
impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E3779B97F4A7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Data sets: smooth floats with a little noise, an integer ramp, random bytes, and runs.
pub fn dataset(kind: usize, n: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed + kind as u64);
    match kind {
        0 => (0..n.div_ceil(4))
            .flat_map(|i| ((i as f32 * 0.01).sin() * 1000.0 + (rng.next() % 8) as f32 * 0.001).to_le_bytes())
            .take(n)
            .collect(),
        1 => (0..n.div_ceil(8)).flat_map(|i| (i as u64 * 3).to_le_bytes()).take(n).collect(),
        2 => (0..n).map(|_| rng.next() as u8).collect(),
        _ => (0..n).map(|i| ((i / 5000) % 3) as u8 * 7).collect(),
    }
}
