//! Tuners (`blosc2_register_tuner`, `cparams.tuner_id`): the user's hooks run around every
//! chunk a compression context writes.
//!
//! A context with a registered tuner calls its `init(tuner_params, cctx, NULL)` when it is
//! created (a failure refuses the context), then, for each chunk, `next_cparams` when the
//! context was given tuner parameters or `next_blocksize` when not, and, with parameters,
//! `update(ctime)` after the chunk and `free` when the context is freed. The reference never
//! hands `tuner_params` to its contexts, so there only `init` and `next_blocksize` ever run
//! (REFERENCE-DEFECTS.md); here the parameters are kept. Hooks get the context pointer and may
//! read it with `blosc2_ctx_get_cparams`; the block size and parameters stay the context's.
//!
//! The reference's own BTune tuner (id 32) is registered without functions and loaded as a
//! plugin at first use ([`super::plugin`]).

use std::ffi::CString;
use std::sync::{Arc, OnceLock, RwLock};

use libc::{c_int, c_void};

use super::abi::*;
use super::boundary::{cstr, guard, PANIC_CODE};
use super::plugin::Plugin;
use crate::chunk::hooks::Tuner;
use crate::error::Error;

type InitFn = unsafe extern "C" fn(*mut c_void, *mut blosc2_context, *mut blosc2_context) -> c_int;
type CtxFn = unsafe extern "C" fn(*mut blosc2_context) -> c_int;
type UpdateFn = unsafe extern "C" fn(*mut blosc2_context, f64) -> c_int;

/// All five hooks; a tuner is usable only with every one of them.
#[derive(Clone, Copy)]
struct TunerFns {
    init: InitFn,
    next_blocksize: CtxFn,
    next_cparams: CtxFn,
    update: UpdateFn,
    free: CtxFn,
}

impl TunerFns {
    fn from_struct(t: &blosc2_tuner) -> Option<TunerFns> {
        Some(TunerFns {
            init: t.init?,
            next_blocksize: t.next_blocksize?,
            next_cparams: t.next_cparams?,
            update: t.update?,
            free: t.free?,
        })
    }
}

struct RegisteredTuner {
    id: c_int,
    name: CString,
    given: Option<TunerFns>,
    loaded: OnceLock<Option<TunerFns>>,
}

impl RegisteredTuner {
    fn fns(&self) -> Option<TunerFns> {
        self.given.or_else(|| *self.loaded.get_or_init(|| load(self.name.to_str().unwrap_or(""))))
    }
}

/// The hooks of the tuner plugin `name`, through its `tuner_info` symbol.
fn load(name: &str) -> Option<TunerFns> {
    let lib = Plugin::load(name)?;
    let info = lib.symbol(c"info") as *const tuner_info;
    if info.is_null() {
        return None;
    }
    // SAFETY: a tuner plugin's `info` is a `tuner_info` of five C strings (or NULLs).
    let syms = unsafe {
        let i = &*info;
        [i.init, i.next_blocksize, i.next_cparams, i.update, i.free].map(|n| lib.symbol_named_by(n))
    };
    if syms.iter().any(|p| p.is_null()) {
        return None;
    }
    // SAFETY: the plugin contract: these symbols are functions with the tuner signatures.
    let fns = unsafe {
        TunerFns {
            init: std::mem::transmute::<*mut c_void, InitFn>(syms[0]),
            next_blocksize: std::mem::transmute::<*mut c_void, CtxFn>(syms[1]),
            next_cparams: std::mem::transmute::<*mut c_void, CtxFn>(syms[2]),
            update: std::mem::transmute::<*mut c_void, UpdateFn>(syms[3]),
            free: std::mem::transmute::<*mut c_void, CtxFn>(syms[4]),
        }
    };
    lib.keep();
    Some(fns)
}

// SAFETY: plain function pointers and owned data; the hooks are called as the reference
// calls them (from the thread compressing).
unsafe impl Send for RegisteredTuner {}
unsafe impl Sync for RegisteredTuner {}

static TUNERS: RwLock<Vec<Arc<RegisteredTuner>>> = RwLock::new(Vec::new());

/// Register the reference's global tuners (BTune, loaded by name on first use).
pub fn register_builtin_tuners() {
    let mut v = TUNERS.write().unwrap_or_else(|e| e.into_inner());
    if !v.iter().any(|t| t.id == BLOSC_BTUNE) {
        v.push(Arc::new(RegisteredTuner { id: BLOSC_BTUNE, name: c"btune".to_owned(), given: None, loaded: OnceLock::new() }));
    }
}

fn find(id: c_int) -> Option<Arc<RegisteredTuner>> {
    TUNERS.read().unwrap_or_else(|e| e.into_inner()).iter().find(|t| t.id == id).cloned()
}

/// Register a tuner. Ids below `BLOSC2_USER_REGISTERED_TUNER_START` are refused with
/// `BLOSC2_ERROR_FAILURE`, as is an id taken under another name; the same tuner again is
/// accepted.
///
/// # Safety
/// `tuner` must be null or point to a valid `blosc2_tuner` whose `name` is a C string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_register_tuner(tuner: *mut blosc2_tuner) -> c_int {
    guard(PANIC_CODE, || {
        // SAFETY: per contract.
        let Some(t) = (unsafe { tuner.as_ref() }) else { return Error::InvalidParam.code() };
        if t.id < BLOSC2_USER_REGISTERED_TUNER_START {
            return Error::Failure.code();
        }
        // SAFETY: name is a C string or null.
        let name = unsafe { cstr(t.name) }.unwrap_or("");
        let mut v = TUNERS.write().unwrap_or_else(|e| e.into_inner());
        if let Some(old) = v.iter().find(|o| o.id == t.id) {
            return if old.name.to_str() == Ok(name) { 0 } else { Error::Failure.code() };
        }
        if v.len() >= u8::MAX as usize {
            return Error::CodecSupport.code();
        }
        v.push(Arc::new(RegisteredTuner {
            id: t.id,
            name: CString::new(name).unwrap_or_default(),
            given: TunerFns::from_struct(t),
            loaded: OnceLock::new(),
        }));
        0
    })
}

/// A context's link to its tuner.
pub struct TunerHooks {
    fns: TunerFns,
    ctx: *mut blosc2_context,
    /// Whether the context was given tuner parameters (then `next_cparams`, `update` and
    /// `free` run; otherwise `next_blocksize`).
    with_params: bool,
}

// SAFETY: the context pointer is only handed back to the user's hooks, which the reference
// calls from the compressing thread as well.
unsafe impl Send for TunerHooks {}
unsafe impl Sync for TunerHooks {}

impl Tuner for TunerHooks {
    fn before_chunk(&self) -> i32 {
        // SAFETY: user hooks called with the live context they were initialised with.
        unsafe {
            if self.with_params {
                (self.fns.next_cparams)(self.ctx)
            } else {
                (self.fns.next_blocksize)(self.ctx)
            }
        }
    }

    fn after_chunk(&self, seconds: f64) -> i32 {
        if !self.with_params {
            return 0;
        }
        // SAFETY: as above.
        unsafe { (self.fns.update)(self.ctx, seconds) }
    }
}

impl TunerHooks {
    /// The hook run when the context is freed.
    pub fn release(&self) {
        if self.with_params {
            // SAFETY: the context is still alive (freed right after this call).
            unsafe { (self.fns.free)(self.ctx) };
        }
    }
}

/// Start the tuner `tuner_id` for the new compression context `ctx`: `Ok(None)` for the
/// built-in tuner, the hooks when `init` succeeded, an error when the tuner is unknown,
/// cannot be loaded or refuses.
pub fn start(tuner_id: c_int, tuner_params: *mut c_void, ctx: *mut blosc2_context) -> Result<Option<Arc<TunerHooks>>, Error> {
    if tuner_id <= BLOSC_STUNE {
        return Ok(None);
    }
    let fns = find(tuner_id).and_then(|t| t.fns()).ok_or(Error::Tuner)?;
    // SAFETY: the user's init hook, called with the context being created.
    if unsafe { (fns.init)(tuner_params, ctx, std::ptr::null_mut()) } < 0 {
        return Err(Error::Tuner);
    }
    Ok(Some(Arc::new(TunerHooks { fns, ctx, with_params: !tuner_params.is_null() })))
}
