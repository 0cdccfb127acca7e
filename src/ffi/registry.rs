//! Registration of user codecs and filters from C (`blosc2_register_codec`,
//! `blosc2_register_filter`), wrapping the C callbacks in the core's traits.

use std::ffi::CString;
use std::sync::{Arc, OnceLock};

use libc::{c_char, c_int, c_void};

use super::abi::*;
use super::boundary::{cstr, guard, PANIC_CODE};
use super::plugin::Plugin;
use crate::codecs::registry::{self as codec_reg, CodecCallContext, UserCodec};
use crate::error::Error;
use crate::filters::registry::{self as filter_reg, CallContext, UserFilter};

/// Plugins the reference registers itself at init (ids in the 32..159 range): the codecs
/// it only knows by name are registered without functions, so that their plugin library is
/// looked up at first use, as there. (NDLZ and ZFP, 32-35, are built in: see
/// `codecs::registry::builtin`.)
pub fn register_builtin_plugins() {
    for &(id, name) in PLUGIN_CODECS.iter().filter(|p| LOADABLE_PLUGIN_CODECS.contains(&p.0)) {
        let cc = CCodec {
            id,
            name: name.to_owned(),
            complib: id,
            version: 1,
            fns: Functions::new((None, None)),
        };
        // A repeated init finds them registered already.
        let _ = codec_reg::register(Arc::new(cc));
    }
}

/// Ids of the plugin codecs the reference resolves by name at first use.
const LOADABLE_PLUGIN_CODECS: [u8; 5] = [36, 37, 38, 39, 40];

/// The codec plugins the reference knows by id and name (some are loaded on demand there).
/// Their names are reported like the reference reports them; compressing with one that is
/// not available fails with `BLOSC2_ERROR_CODEC_SUPPORT`.
pub const PLUGIN_CODECS: [(u8, &std::ffi::CStr); 9] = [
    (32, c"ndlz"),
    (33, c"zfp_acc"),
    (34, c"zfp_prec"),
    (35, c"zfp_rate"),
    (36, c"openhtj2k"),
    (37, c"grok"),
    (38, c"openzl"),
    (39, c"j2k"),
    (40, c"htj2k"),
];

/// The static name of the reference's plugin codec `id` (32-40), if it is one.
pub fn plugin_codec_name(id: u8) -> Option<*const c_char> {
    PLUGIN_CODECS.iter().find(|p| p.0 == id).map(|p| p.1.as_ptr())
}

/// The id of the reference's plugin codec called `name`, if it is one.
pub fn plugin_codec_by_name(name: &str) -> Option<u8> {
    PLUGIN_CODECS.iter().find(|p| p.1.to_str() == Ok(name)).map(|p| p.0)
}

fn cparams_for(ctx: &CodecCallContext) -> blosc2_cparams {
    let mut cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.compcode = ctx.compcode;
    cp.compcode_meta = ctx.compcode_meta;
    cp.clevel = ctx.clevel;
    cp.use_dict = ctx.use_dict as c_int;
    cp.typesize = ctx.typesize;
    cp.nthreads = ctx.nthreads.max(1);
    cp.blocksize = ctx.blocksize;
    cp.splitmode = ctx.splitmode;
    cp.filters = ctx.filters;
    cp.filters_meta = ctx.filters_meta;
    cp.schunk = ctx.opaque[0] as *mut c_void;
    cp.codec_params = ctx.opaque[1] as *mut c_void;
    cp
}

fn dparams_for(ctx: &CodecCallContext) -> blosc2_dparams {
    let mut dp = BLOSC2_DPARAMS_DEFAULTS;
    dp.nthreads = ctx.nthreads.max(1);
    dp.typesize = ctx.typesize;
    dp.schunk = ctx.opaque[0] as *mut c_void;
    dp
}

/// A callback field of the C API: an optional function pointer.
trait Callback: Copy {
    fn is_set(&self) -> bool;
}

impl<F: Copy> Callback for Option<F> {
    fn is_set(&self) -> bool {
        self.is_some()
    }
}

/// The two functions of a user codec (encoder, decoder) or filter (forward, backward): the
/// ones given at registration when both are, else both from the plugin library of the
/// codec's or filter's name, loaded at first use (see [`super::plugin`]).
struct Functions<A, B> {
    given: (A, B),
    loaded: OnceLock<(A, B)>,
}

impl<A: Callback, B: Callback> Functions<A, B> {
    fn new(given: (A, B)) -> Functions<A, B> {
        Functions { given, loaded: OnceLock::new() }
    }

    fn get(&self, name: &CString) -> (A, B) {
        if self.given.0.is_set() && self.given.1.is_set() {
            return self.given;
        }
        *self.loaded.get_or_init(|| load_pair(name.to_str().unwrap_or("")).unwrap_or(self.given))
    }
}

/// The two functions a plugin's `info` names (`codec_info` and `filter_info` are both two C
/// strings, checked in `abi::layout`), as the optional function pointers `A` and `B`.
fn load_pair<A: Callback, B: Callback>(name: &str) -> Option<(A, B)> {
    let lib = Plugin::load(name)?;
    let info = lib.symbol(c"info") as *const [*const c_char; 2];
    if info.is_null() {
        return None;
    }
    // SAFETY: a plugin's `info` holds two C strings (or NULLs).
    let (a, b) = unsafe { (lib.symbol_named_by((*info)[0]), lib.symbol_named_by((*info)[1])) };
    if a.is_null() || b.is_null() {
        return None;
    }
    assert!(size_of::<A>() == size_of::<*mut c_void>() && size_of::<B>() == size_of::<*mut c_void>());
    // SAFETY: A and B are optional function pointers (pointer-sized, checked above) of the
    // signatures the plugin contract gives these symbols; both are non-NULL.
    let fns = unsafe { (std::mem::transmute_copy::<*mut c_void, A>(&a), std::mem::transmute_copy::<*mut c_void, B>(&b)) };
    lib.keep();
    Some(fns)
}

struct CCodec {
    id: u8,
    name: CString,
    complib: u8,
    version: u8,
    fns: Functions<blosc2_codec_encoder_cb, blosc2_codec_decoder_cb>,
}
// SAFETY: only plain function pointers and owned data; the callbacks are called from worker
// threads exactly as the reference calls them.
unsafe impl Send for CCodec {}
unsafe impl Sync for CCodec {}

impl UserCodec for CCodec {
    fn id(&self) -> u8 {
        self.id
    }
    fn name(&self) -> &str {
        self.name.to_str().unwrap_or("")
    }
    fn version(&self) -> u8 {
        self.version
    }
    fn complib(&self) -> u8 {
        self.complib
    }
    fn available(&self) -> bool {
        let (e, d) = self.fns.get(&self.name);
        e.is_some() && d.is_some()
    }
    fn encode(&self, src: &[u8], dest: &mut [u8], meta: u8, ctx: &CodecCallContext) -> i32 {
        let Some(f) = self.fns.get(&self.name).0 else { return Error::CodecSupport.code() };
        let mut cp = cparams_for(ctx);
        // SAFETY: buffers valid for the lengths passed; cp lives across the call.
        unsafe { f(src.as_ptr(), src.len() as i32, dest.as_mut_ptr(), dest.len() as i32, meta, &mut cp, std::ptr::null()) }
    }
    fn decode(&self, src: &[u8], dest: &mut [u8], meta: u8, ctx: &CodecCallContext) -> i32 {
        let Some(f) = self.fns.get(&self.name).1 else { return Error::CodecSupport.code() };
        let mut dp = dparams_for(ctx);
        // SAFETY: as for encode.
        unsafe { f(src.as_ptr(), src.len() as i32, dest.as_mut_ptr(), dest.len() as i32, meta, &mut dp, std::ptr::null()) }
    }
}

struct CFilter {
    id: u8,
    name: CString,
    version: u8,
    fns: Functions<blosc2_filter_forward_cb, blosc2_filter_backward_cb>,
}
// SAFETY: as for CCodec.
unsafe impl Send for CFilter {}
unsafe impl Sync for CFilter {}

impl UserFilter for CFilter {
    fn id(&self) -> u8 {
        self.id
    }
    fn name(&self) -> &str {
        self.name.to_str().unwrap_or("")
    }
    fn version(&self) -> u8 {
        self.version
    }
    fn forward(&self, src: &[u8], dest: &mut [u8], meta: u8, ctx: &CallContext) -> i32 {
        let Some(f) = self.fns.get(&self.name).0 else { return Error::FilterPipeline.code() };
        let mut cp = cparams_for(&ctx.codec);
        // SAFETY: src/dest valid for src.len() bytes (same length by construction).
        unsafe { f(src.as_ptr(), dest.as_mut_ptr(), src.len() as i32, meta, &mut cp, self.id) }
    }
    fn backward(&self, src: &[u8], dest: &mut [u8], meta: u8, ctx: &CallContext) -> i32 {
        let Some(f) = self.fns.get(&self.name).1 else { return Error::FilterPipeline.code() };
        let mut dp = dparams_for(&ctx.codec);
        // SAFETY: as for forward.
        unsafe { f(src.as_ptr(), dest.as_mut_ptr(), src.len() as i32, meta, &mut dp, self.id) }
    }
}

/// # Safety
/// `codec` must be null or point to a valid `blosc2_codec`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_register_codec(codec: *mut blosc2_codec) -> c_int {
    guard(PANIC_CODE, || {
        // SAFETY: per contract.
        let Some(c) = (unsafe { codec.as_ref() }) else { return Error::InvalidParam.code() };
        if c.compcode < BLOSC2_USER_REGISTERED_CODECS_START as u8 {
            return Error::CodecParam.code();
        }
        // SAFETY: compname is a C string or null.
        let name = unsafe { cstr(c.compname) }.unwrap_or("");
        let cc = CCodec {
            id: c.compcode,
            name: CString::new(name).unwrap_or_default(),
            complib: c.complib,
            version: c.version,
            fns: Functions::new((c.encoder, c.decoder)),
        };
        match codec_reg::register(Arc::new(cc)) {
            Ok(()) => 0,
            Err(codec_reg::RegisterError::Full) => Error::CodecSupport.code(),
            // The same codec again is accepted (the first registration stays); another codec
            // under a taken id is refused, as in the reference.
            Err(codec_reg::RegisterError::Duplicate { same_name: true }) => 0,
            Err(codec_reg::RegisterError::Duplicate { same_name: false }) => Error::CodecParam.code(),
        }
    })
}

/// # Safety
/// `filter` must be null or point to a valid `blosc2_filter`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_register_filter(filter: *mut blosc2_filter) -> c_int {
    guard(PANIC_CODE, || {
        // SAFETY: per contract.
        let Some(f) = (unsafe { filter.as_ref() }) else { return Error::InvalidParam.code() };
        if f.id < BLOSC2_USER_REGISTERED_FILTERS_START as u8 {
            return Error::Failure.code();
        }
        // SAFETY: name is a C string or null.
        let name = unsafe { cstr(f.name) }.unwrap_or("");
        let cf = CFilter {
            id: f.id,
            name: CString::new(name).unwrap_or_default(),
            version: f.version,
            fns: Functions::new((f.forward, f.backward)),
        };
        match filter_reg::register(Arc::new(cf)) {
            Ok(()) => 0,
            Err(filter_reg::RegisterError::Full) => Error::CodecSupport.code(),
            // As for codecs, with the reference's code for filters.
            Err(filter_reg::RegisterError::Duplicate { same_name: true }) => 0,
            Err(filter_reg::RegisterError::Duplicate { same_name: false }) => Error::Failure.code(),
        }
    })
}

/// Names handed out to C must stay valid: keep them for the life of the process.
fn leak_name(s: &str) -> *const c_char {
    use std::collections::HashMap;
    use std::sync::Mutex;
    static NAMES: Mutex<Option<HashMap<String, CString>>> = Mutex::new(None);
    let mut g = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    let map = g.get_or_insert_with(HashMap::new);
    map.entry(s.to_string()).or_insert_with(|| CString::new(s).unwrap_or_default()).as_ptr()
}

/// The name of the user-registered codec `id` (kept for the life of the process), if any.
pub fn user_codec_name(id: u8) -> Option<*const c_char> {
    codec_reg::find(id).map(|c| leak_name(c.name()))
}

/// The id of the user-registered codec called `name`, if any.
pub fn user_codec_by_name(name: &str) -> Option<u8> {
    codec_reg::find_by_name(name).map(|c| c.id())
}

/// (complib code, library name) of a codec known by name beyond the built-in ones: the
/// reference's plugin codecs (their id as complib code, as it registers them), then the
/// user's.
pub fn codec_info_by_name(name: &str) -> Option<(u8, String)> {
    if let Some(id) = plugin_codec_by_name(name) {
        return Some((id, name.to_string()));
    }
    codec_reg::find_by_name(name).map(|c| (c.complib(), c.name().to_string()))
}
