//! Compression/decompression contexts (`blosc2_context`) and the `*_ctx` chunk API.
//!
//! A `blosc2_context*` handed to C points to a boxed [`Context`]; the opaque C type is never
//! dereferenced on the C side.

use std::sync::Arc;

use libc::{c_int, c_void};

use super::abi::*;
use super::boundary::{guard, slice, slice_mut, PANIC_CODE};
use crate::settings::Overrides;
use super::global::{chunk_slice, result_code};
use crate::chunk::compress::Compressor;
use crate::chunk::decompress::Decompressor;
use crate::chunk::hooks::{BlockInfo, Postfilter, Prefilter, ThreadScratch, Tuner};
use crate::chunk::{CompressParams, DecompressParams};
use crate::error::Error;
use crate::filters::registry::CallContext;

/// The codec machinery a context drives: a compressor or a decompressor.
pub enum Engine {
    /// A compression context (`blosc2_create_cctx`).
    Compress(Compressor),
    /// A decompression context (`blosc2_create_dctx`).
    Decompress(Decompressor),
}

/// What a `blosc2_context*` points to.
pub struct Context {
    /// Unique for the life of the process: a context freed and another made at the same
    /// address still tell apart (super-chunks notice contexts their callers replaced).
    pub id: u64,
    /// The compressor or decompressor behind the context.
    pub engine: Engine,
    /// The parameters as the user gave them (after env overrides), for `ctx_get_*params`.
    pub cparams: blosc2_cparams,
    /// The decompression parameters as the user gave them (the defaults in a compression
    /// context).
    pub dparams: blosc2_dparams,
    /// Our own copies of the callback parameter structs (the caller's may go away).
    preparams: Option<Box<blosc2_prefilter_params>>,
    postparams: Option<Box<blosc2_postfilter_params>>,
    /// A decompressor for getitem calls made on a compression context.
    side: Option<Decompressor>,
    /// The user tuner started for this (compression) context, if any.
    tuner: Option<Arc<super::tuner::TunerHooks>>,
}

impl Context {
    fn new(engine: Engine, cparams: blosc2_cparams, dparams: blosc2_dparams) -> Box<Context> {
        static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let id = NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let (preparams, postparams, side, tuner) = (None, None, None, None);
        Box::new(Context { id, engine, cparams, dparams, preparams, postparams, side, tuner })
    }
}

/// Our copy of a callback's parameter struct (the caller's may go away): theirs, or zeros
/// when the callback comes without one; none without a callback.
///
/// # Safety
/// `given` NULL or valid; `T` a C struct of integers and pointers (valid as all zeros).
unsafe fn kept_params<T: Copy>(has_callback: bool, given: *const T) -> Option<Box<T>> {
    // SAFETY: per contract.
    has_callback.then(|| Box::new(unsafe { given.as_ref() }.copied().unwrap_or_else(|| unsafe { std::mem::zeroed() })))
}

/// Raw pointers carried into worker threads; only handed back to C callbacks.
#[derive(Clone, Copy)]
struct SendPtr(*mut c_void);
// SAFETY: these pointers are opaque to us and only passed back to the user's callbacks,
// which the reference also calls from its worker threads.
unsafe impl Send for SendPtr {}
unsafe impl Sync for SendPtr {}

struct CPrefilter {
    f: unsafe extern "C" fn(*mut blosc2_prefilter_params) -> c_int,
    template: blosc2_prefilter_params,
    ctx: SendPtr,
    /// `cparams.schunk`: the chunk number of a call made outside the super-chunk's own
    /// operations is the `current_nchunk` its public struct holds then.
    schunk: SendPtr,
    tmp: ThreadScratch,
}
// SAFETY: the template only holds the user's opaque pointers (see SendPtr).
unsafe impl Send for CPrefilter {}
unsafe impl Sync for CPrefilter {}

impl Prefilter for CPrefilter {
    fn apply(&self, info: &BlockInfo, input: &[u8], output: &mut [u8], disposable: bool) -> i32 {
        self.tmp.with(info.tid, 4 * (output.len() + 4 * info.typesize as usize), |tmp| {
            let mut p = self.template;
            p.input = if input.is_empty() { std::ptr::null() } else { input.as_ptr() };
            p.output = output.as_mut_ptr();
            p.output_size = info.size;
            p.output_typesize = info.typesize;
            p.output_offset = info.offset;
            p.nchunk = chunk_number(info.nchunk, self.schunk.0);
            p.nblock = info.nblock;
            p.tid = info.tid;
            (p.ttmp, p.ttmp_nbytes) = (tmp.as_mut_ptr(), tmp.len());
            p.ctx = self.ctx.0 as *mut blosc2_context;
            p.output_is_disposable = disposable;
            // SAFETY: calling the user's callback with a fully initialised parameter block
            // whose buffers are valid for the sizes stated.
            unsafe { (self.f)(&mut p) }
        })
    }
}

struct CPostfilter {
    f: unsafe extern "C" fn(*mut blosc2_postfilter_params) -> c_int,
    template: blosc2_postfilter_params,
    ctx: SendPtr,
    /// `dparams.schunk`, as for the prefilter.
    schunk: SendPtr,
    tmp: ThreadScratch,
}
// SAFETY: as for CPrefilter.
unsafe impl Send for CPostfilter {}
unsafe impl Sync for CPostfilter {}

impl Postfilter for CPostfilter {
    fn apply(&self, info: &BlockInfo, input: &[u8], output: &mut [u8]) -> i32 {
        self.tmp.with(info.tid, 4 * (output.len() + 4 * info.typesize as usize), |tmp| {
            let mut p = self.template;
            p.input = input.as_ptr();
            p.output = output.as_mut_ptr();
            p.size = info.size;
            p.typesize = info.typesize;
            p.offset = info.offset;
            p.nchunk = chunk_number(info.nchunk, self.schunk.0);
            p.nblock = info.nblock;
            p.tid = info.tid;
            (p.ttmp, p.ttmp_nbytes) = (tmp.as_mut_ptr(), tmp.len());
            p.ctx = self.ctx.0 as *mut blosc2_context;
            // SAFETY: as for the prefilter.
            unsafe { (self.f)(&mut p) }
        })
    }
}

/// The chunk number callbacks see: the one a super-chunk operation is working on, or, for a
/// chunk compressed or decompressed directly with a context naming a super-chunk, the
/// `current_nchunk` of that super-chunk's public struct, which callers set before such calls
/// (as python-blosc2 does); -1 without a super-chunk.
fn chunk_number(engine_nchunk: i64, schunk: *mut c_void) -> i64 {
    if engine_nchunk >= 0 || schunk.is_null() {
        return engine_nchunk;
    }
    // SAFETY: per the API a non-NULL `schunk` in the parameters is a live blosc2_schunk.
    unsafe { (*(schunk as *const blosc2_schunk)).current_nchunk }
}

/// Apply the environment overrides the reference honours for contexts (see
/// [`Overrides::apply_to_context`]) to the public parameters.
fn env_cparams(cp: &mut blosc2_cparams) {
    let mut p = core_cparams(cp);
    Overrides::of_process().apply_to_context(&mut p);
    cp.clevel = p.clevel;
    cp.filters = p.filters;
    cp.typesize = p.typesize;
    cp.compcode = p.compcode;
    cp.blocksize = p.blocksize;
    cp.nthreads = p.nthreads;
    cp.splitmode = p.splitmode;
}

/// The core compression parameters (`CompressParams`) of the public `blosc2_cparams`.
pub fn core_cparams(cp: &blosc2_cparams) -> CompressParams {
    CompressParams {
        compcode: cp.compcode,
        compcode_meta: cp.compcode_meta,
        clevel: cp.clevel,
        use_dict: cp.use_dict != 0,
        typesize: cp.typesize,
        nthreads: cp.nthreads,
        blocksize: cp.blocksize,
        splitmode: cp.splitmode,
        filters: cp.filters,
        filters_meta: cp.filters_meta,
        instr_codec: cp.instr_codec,
        generation: super::abi::edition::GENERATION,
    }
}

fn call_context(cp: &blosc2_cparams) -> CallContext {
    let mut c = CallContext::default();
    c.codec.typesize = cp.typesize;
    c.codec.clevel = cp.clevel;
    c.codec.blocksize = cp.blocksize;
    c.codec.nthreads = cp.nthreads;
    c.codec.compcode = cp.compcode;
    c.codec.compcode_meta = cp.compcode_meta;
    c.codec.filters = cp.filters;
    c.codec.filters_meta = cp.filters_meta;
    c.codec.splitmode = cp.splitmode;
    c.codec.use_dict = cp.use_dict != 0;
    c.codec.opaque = [cp.schunk as usize, cp.codec_params as usize, 0, 0];
    c.codec.schunk_typesize = schunk_typesize(cp.schunk);
    c.codec.in_schunk = !cp.schunk.is_null();
    c.codec.b2nd = schunk_b2nd(cp.schunk);
    c
}

/// What decompression callbacks get: the user's schunk pointer and typesize.
fn dcall_context(dp: &blosc2_dparams) -> CallContext {
    let mut c = CallContext::default();
    c.codec.typesize = dp.typesize;
    c.codec.nthreads = dp.nthreads;
    c.codec.opaque = [dp.schunk as usize, 0, 0, 0];
    c.codec.schunk_typesize = schunk_typesize(dp.schunk);
    c.codec.in_schunk = !dp.schunk.is_null();
    c.codec.b2nd = schunk_b2nd(dp.schunk);
    c
}

/// The shapes in the "b2nd" metalayer of the super-chunk a `cparams.schunk`/`dparams.schunk`
/// points to, read from its public metalayer list as the header's `blosc2_meta_get` does.
fn schunk_b2nd(schunk: *mut c_void) -> Option<crate::codecs::registry::B2ndShapes> {
    if schunk.is_null() {
        return None;
    }
    // SAFETY: per the API a non-NULL `schunk` in the parameters is a live blosc2_schunk,
    // whose first `nmetalayers` entries are valid metalayers (name a C string, content
    // `content_len` bytes).
    unsafe {
        let s = &*(schunk as *const blosc2_schunk);
        let n = (s.nmetalayers as usize).min(s.metalayers.len());
        for &m in &s.metalayers[..n] {
            let Some(m) = m.as_ref() else { continue };
            if m.name.is_null() || std::ffi::CStr::from_ptr(m.name).to_bytes() != b"b2nd" {
                continue;
            }
            if m.content.is_null() || m.content_len <= 0 {
                return None;
            }
            let content = std::slice::from_raw_parts(m.content, m.content_len as usize);
            return crate::codecs::registry::B2ndShapes::from_metalayer(content);
        }
    }
    None
}

/// The typesize of the super-chunk a `cparams.schunk`/`dparams.schunk` points to, if any
/// (the reference reads it from there too). Super-chunks made here set it again once their
/// public struct is filled in.
fn schunk_typesize(schunk: *mut c_void) -> Option<i32> {
    if schunk.is_null() {
        return None;
    }
    // SAFETY: per the API a non-NULL `schunk` in the parameters is a live blosc2_schunk.
    let t = unsafe { (*(schunk as *const blosc2_schunk)).typesize };
    (t > 0).then_some(t)
}

/// Whether a context may be created with filter id `f` in its pipeline. As in the reference,
/// undefined built-in ids and unassigned ids of the global plugin range are refused here,
/// while the ids of the global plugins and the whole user range are accepted: an
/// unregistered user filter fails later, when a chunk is compressed.
fn filter_id_ok(f: u8) -> bool {
    let f = f as c_int;
    !((BLOSC_LAST_FILTER..=BLOSC2_DEFINED_FILTERS_STOP).contains(&f)
        || (BLOSC_LAST_REGISTERED_FILTER + 1..=BLOSC2_GLOBAL_REGISTERED_FILTERS_STOP).contains(&f))
}

/// Whether `blosc2_create_cctx` accepts these filter ids.
pub fn cparams_acceptable(cp: &blosc2_cparams) -> bool {
    cp.filters.iter().all(|&f| filter_id_ok(f))
}

/// Create a compression context from `cparams` (after the environment overrides); free it
/// with `blosc2_free_ctx`. Returns NULL when a filter id is refused or the tuner cannot be
/// started.
#[no_mangle]
pub extern "C" fn blosc2_create_cctx(cparams: blosc2_cparams) -> *mut blosc2_context {
    blosc2_create_cctx_impl(cparams)
}

/// `blosc2_create_cctx`, for this library's other C functions.
pub(crate) fn blosc2_create_cctx_impl(cparams: blosc2_cparams) -> *mut blosc2_context {
    guard(std::ptr::null_mut(), || new_cctx(cparams).map_or(std::ptr::null_mut(), |c| Box::into_raw(c) as *mut blosc2_context))
}

/// A compression context as `blosc2_create_cctx` makes it (its tuner started); `None` when
/// the parameters are refused or the tuner cannot be started.
fn new_cctx(cparams: blosc2_cparams) -> Option<Box<Context>> {
    {
        let mut cp = cparams;
        env_cparams(&mut cp);
        if !cparams_acceptable(&cp) {
            return None;
        }
        if cp.nthreads <= 0 {
            cp.nthreads = 1;
        }
        let mut comp = Compressor::new(core_cparams(&cp));
        comp.call = call_context(&cp);
        let mut ctx = Context::new(Engine::Compress(comp), cp, BLOSC2_DPARAMS_DEFAULTS);
        // SAFETY: the caller passes a valid preparams (or NULL) when a prefilter is set.
        ctx.preparams = unsafe { kept_params(cp.prefilter.is_some(), cp.preparams) };
        let self_ptr = &mut *ctx as *mut Context as *mut c_void;
        // The tuner's init sees the new context; a tuner that cannot be found, loaded or
        // started refuses the context, as in the reference.
        match super::tuner::start(cp.tuner_id, cp.tuner_params, self_ptr as *mut blosc2_context) {
            Ok(Some(hooks)) => {
                if let Engine::Compress(c) = &mut ctx.engine {
                    c.tuner = Some(hooks.clone());
                }
                ctx.tuner = Some(hooks);
            }
            Ok(None) => {}
            Err(_) => return None,
        }
        if let (Some(f), Some(pp)) = (cp.prefilter, ctx.preparams.as_deref()) {
            let schunk = SendPtr(cp.schunk);
            let pf = CPrefilter { f, template: *pp, ctx: SendPtr(self_ptr), schunk, tmp: ThreadScratch::default() };
            if let Engine::Compress(c) = &mut ctx.engine {
                c.prefilter = Some(Arc::new(pf));
            }
            let pp_ptr = ctx.preparams.as_deref_mut().map(|p| p as *mut _).unwrap_or(std::ptr::null_mut());
            ctx.cparams.preparams = pp_ptr;
        }
        Some(ctx)
    }
}

/// What the reference runs before it writes a special chunk (`blosc2_chunk_zeros` & co.):
/// a compression context made from `cparams` (so a user tuner's `init` runs) and the
/// tuner's hook for one chunk (`next_blocksize`, or `next_cparams` with tuner parameters).
/// A context that cannot be made gives `BLOSC2_ERROR_NULL_POINTER` and a failing hook
/// `BLOSC2_ERROR_TUNER`, as there.
pub fn special_chunk_round(cparams: &blosc2_cparams) -> Result<(), Error> {
    let ctx = new_cctx(*cparams).ok_or(Error::NullPointer)?;
    let rc = ctx.tuner.as_ref().map_or(0, |t| t.before_chunk());
    free_ctx(ctx);
    if rc < 0 {
        Err(Error::Tuner)
    } else {
        Ok(())
    }
}

/// Frees a context: its tuner's `free` hook runs first, as in the reference.
fn free_ctx(ctx: Box<Context>) {
    if let Some(t) = &ctx.tuner {
        t.release();
    }
    drop(ctx);
}

/// Create a decompression context from `dparams` (`BLOSC_NTHREADS` overrides its thread
/// count); free it with `blosc2_free_ctx`. Returns NULL only on an internal failure.
#[no_mangle]
pub extern "C" fn blosc2_create_dctx(dparams: blosc2_dparams) -> *mut blosc2_context {
    blosc2_create_dctx_impl(dparams)
}

/// `blosc2_create_dctx`, for this library's other C functions.
pub(crate) fn blosc2_create_dctx_impl(dparams: blosc2_dparams) -> *mut blosc2_context {
    guard(std::ptr::null_mut(), || {
        let mut dp = dparams;
        if let Some(n) = Overrides::of_process().thread_count() {
            dp.nthreads = n;
        }
        if dp.nthreads <= 0 {
            dp.nthreads = 1;
        }
        let mut dec = Decompressor::new(DecompressParams { nthreads: dp.nthreads, typesize: dp.typesize });
        dec.call = dcall_context(&dp);
        let mut ctx = Context::new(Engine::Decompress(dec), BLOSC2_CPARAMS_DEFAULTS, dp);
        // SAFETY: valid (or NULL) when a postfilter is set, per the API contract.
        ctx.postparams = unsafe { kept_params(dp.postfilter.is_some(), dp.postparams) };
        let self_ptr = &mut *ctx as *mut Context as *mut c_void;
        if let (Some(f), Some(pp)) = (dp.postfilter, ctx.postparams.as_deref()) {
            let schunk = SendPtr(dp.schunk);
            let pf = CPostfilter { f, template: *pp, ctx: SendPtr(self_ptr), schunk, tmp: ThreadScratch::default() };
            if let Engine::Decompress(d) = &mut ctx.engine {
                d.postfilter = Some(Arc::new(pf));
            }
            let pp_ptr = ctx.postparams.as_deref_mut().map(|p| p as *mut _).unwrap_or(std::ptr::null_mut());
            ctx.dparams.postparams = pp_ptr;
        }
        Box::into_raw(ctx) as *mut blosc2_context
    })
}

/// # Safety
/// `context` must be null or a context from `blosc2_create_*ctx` not yet freed.
#[no_mangle]
pub unsafe extern "C" fn blosc2_free_ctx(context: *mut blosc2_context) {
    // SAFETY: forwarded contract.
    unsafe { blosc2_free_ctx_impl(context) }
}

/// `blosc2_free_ctx`, for this library's other C functions.
///
/// # Safety
/// As `blosc2_free_ctx`.
pub(crate) unsafe fn blosc2_free_ctx_impl(context: *mut blosc2_context) {
    guard((), || {
        if !context.is_null() {
            // SAFETY: created by Box::into_raw in create_*ctx, freed once.
            free_ctx(unsafe { Box::from_raw(context as *mut Context) });
        }
    })
}

/// # Safety
/// `ctx` must be null or a live context.
pub unsafe fn ctx_mut<'a>(ctx: *mut blosc2_context) -> Option<&'a mut Context> {
    // SAFETY: per contract, a non-null ctx points to a live boxed Context.
    unsafe { (ctx as *mut Context).as_mut() }
}

/// # Safety
/// `ctx` live context, `cparams` writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_ctx_get_cparams(ctx: *mut blosc2_context, cparams: *mut blosc2_cparams) -> c_int {
    guard(PANIC_CODE, || {
        // SAFETY: per contract.
        let (Some(c), false) = (unsafe { ctx_mut(ctx) }, cparams.is_null()) else {
            return Error::NullPointer.code();
        };
        let mut cp = c.cparams;
        if let Engine::Compress(comp) = &c.engine {
            cp.compcode = comp.params.compcode;
            cp.clevel = comp.params.clevel;
            cp.typesize = comp.params.typesize;
            // Once used, the block size the last chunk was written with, as the reference
            // reports it.
            cp.blocksize = if comp.last_blocksize > 0 { comp.last_blocksize } else { comp.params.blocksize };
        }
        // SAFETY: checked non-null, writable per contract.
        unsafe { *cparams = cp };
        0
    })
}

/// # Safety
/// `ctx` live context, `dparams` writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_ctx_get_dparams(ctx: *mut blosc2_context, dparams: *mut blosc2_dparams) -> c_int {
    guard(PANIC_CODE, || {
        // SAFETY: per contract.
        let (Some(c), false) = (unsafe { ctx_mut(ctx) }, dparams.is_null()) else {
            return Error::NullPointer.code();
        };
        // SAFETY: checked non-null.
        unsafe { *dparams = c.dparams };
        0
    })
}

/// # Safety
/// `ctx` live context; `maskout` readable for `nblocks` bools.
#[no_mangle]
pub unsafe extern "C" fn blosc2_set_maskout(ctx: *mut blosc2_context, maskout: *mut bool, nblocks: c_int) -> c_int {
    guard(PANIC_CODE, || {
        // SAFETY: per contract.
        let Some(c) = (unsafe { ctx_mut(ctx) }) else { return Error::NullPointer.code() };
        if maskout.is_null() || nblocks < 0 {
            return Error::InvalidParam.code();
        }
        // SAFETY: readable for nblocks elements per contract.
        let m = unsafe { std::slice::from_raw_parts(maskout as *const bool, nblocks as usize) }.to_vec();
        match &mut c.engine {
            Engine::Decompress(d) => {
                d.maskout = Some(m);
                0
            }
            // The reference accepts it (a compression context never reads it).
            Engine::Compress(_) => 0,
        }
    })
}

/// # Safety
/// `context` live; `src` readable for `srcsize`; `dest` writable for `destsize`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_compress_ctx(
    context: *mut blosc2_context,
    src: *const c_void,
    srcsize: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    guard(PANIC_CODE, || {
        // SAFETY: per contract.
        let Some(c) = (unsafe { ctx_mut(context) }) else { return Error::NullPointer.code() };
        let Engine::Compress(comp) = &mut c.engine else { return Error::InvalidParam.code() };
        refresh_schunk_view(&mut comp.call, c.cparams.schunk);
        if srcsize < 0 || destsize < 0 {
            return Error::InvalidParam.code();
        }
        if dest.is_null() {
            return Error::NullPointer.code();
        }
        // SAFETY: sizes validated; pointers valid per contract.
        let d = unsafe { slice_mut(dest as *mut u8, destsize as usize) };
        if src.is_null() {
            if srcsize > 0 && comp.prefilter.is_none() {
                return Error::NullPointer.code();
            }
            return result_code(comp.compress_from_prefilter(srcsize as usize, d));
        }
        // SAFETY: as above.
        let s = unsafe { slice(src as *const u8, srcsize as usize) };
        result_code(comp.compress(s, d))
    })
}

/// # Safety
/// `context` live; `src` readable for `srcsize`; `dest` writable for `destsize`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_decompress_ctx(
    context: *mut blosc2_context,
    src: *const c_void,
    srcsize: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    guard(PANIC_CODE, || {
        // SAFETY: per contract.
        let Some(c) = (unsafe { ctx_mut(context) }) else { return Error::NullPointer.code() };
        let Some(dec) = lazy_capable(c) else { return Error::InvalidParam.code() };
        if destsize < 0 {
            return Error::InvalidParam.code();
        }
        if dest.is_null() && destsize > 0 {
            return Error::NullPointer.code();
        }
        // SAFETY: per contract.
        let s = match unsafe { chunk_slice(src as *const u8, srcsize) } {
            Ok(s) => s,
            Err(e) => return e.code(),
        };
        // SAFETY: per contract.
        let d = unsafe { slice_mut(dest as *mut u8, destsize as usize) };
        result_code(dec.decompress(s, d))
    })
}

/// # Safety
/// As `blosc2_decompress_ctx`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_getitem_ctx(
    context: *mut blosc2_context,
    src: *const c_void,
    srcsize: i32,
    start: c_int,
    nitems: c_int,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    guard(PANIC_CODE, || {
        // SAFETY: per contract.
        let Some(c) = (unsafe { ctx_mut(context) }) else { return Error::NullPointer.code() };
        // SAFETY: per contract.
        unsafe { getitem_impl(dec_of_any(c), src, srcsize, start as i64, nitems as i64, dest, destsize, true) }
    })
}

/// # Safety
/// As `blosc2_decompress_ctx`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_getitem_bytes_ctx(
    context: *mut blosc2_context,
    src: *const c_void,
    srcsize: i32,
    start: i32,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    guard(PANIC_CODE, || {
        // SAFETY: per contract.
        let Some(c) = (unsafe { ctx_mut(context) }) else { return Error::NullPointer.code() };
        // SAFETY: per contract.
        unsafe { getitem_impl(dec_of_any(c), src, srcsize, start as i64, nbytes as i64, dest, destsize, false) }
    })
}

/// The decompressor of a decompression context, able to read the blocks of lazy chunks of
/// the super-chunk its `dparams.schunk` names (looked up on each call: the super-chunk may
/// have been freed, or its address reused, since the context was made).
pub fn lazy_capable(c: &mut Context) -> Option<&mut Decompressor> {
    let Engine::Decompress(d) = &mut c.engine else { return None };
    d.lazy = super::lazy_readers::reader_for(c.dparams.schunk);
    refresh_schunk_view(&mut d.call, c.dparams.schunk);
    Some(d)
}

/// Read again what codecs and filters learn from the context's super-chunk (its typesize and
/// "b2nd" shapes), as the reference's plugins read them at each call: metalayers are often
/// added after the super-chunk and its contexts were made (b2nd arrays are).
fn refresh_schunk_view(call: &mut CallContext, schunk: *mut c_void) {
    if schunk.is_null() {
        return;
    }
    if let Some(t) = schunk_typesize(schunk) {
        call.codec.schunk_typesize = Some(t);
    }
    call.codec.b2nd = schunk_b2nd(schunk);
}

/// Getitem may be called on a compression context too; it then uses a side decompressor
/// (with the lazy-chunk reader of `cparams.schunk`).
fn dec_of_any(c: &mut Context) -> &mut Decompressor {
    if let Engine::Compress(comp) = &c.engine {
        let schunk = c.cparams.schunk;
        let d = c.side.get_or_insert_with(|| {
            let mut d = Decompressor::new(DecompressParams { nthreads: 1, typesize: comp.params.typesize });
            d.call = comp.call.clone();
            d
        });
        d.lazy = super::lazy_readers::reader_for(schunk);
        refresh_schunk_view(&mut d.call, schunk);
        return d;
    }
    lazy_capable(c).expect("a decompression context")
}

/// Shared body of the getitem entry points; `items` says whether start/n count items of the
/// chunk's typesize or bytes.
///
/// # Safety
/// Pointers valid for the stated sizes.
#[allow(clippy::too_many_arguments)]
pub unsafe fn getitem_impl(
    dec: &mut Decompressor,
    src: *const c_void,
    srcsize: i32,
    start: i64,
    n: i64,
    dest: *mut c_void,
    destsize: i32,
    items: bool,
) -> c_int {
    // SAFETY: per contract.
    let s = match unsafe { chunk_slice(src as *const u8, srcsize) } {
        Ok(s) => s,
        Err(e) => return e.code(),
    };
    let header = match crate::chunk::ChunkHeader::read(s) {
        Ok(h) => h,
        Err(e) => return e.code(),
    };
    if header.vlblocks() {
        return Error::InvalidParam.code();
    }
    let ts = header.typesize as i64;
    let (bstart, bn) = if items { (start * ts, n * ts) } else { (start, n) };
    if !items && (start % ts != 0 || n % ts != 0) {
        return Error::InvalidParam.code();
    }
    if n == 0 {
        return 0;
    }
    // The reference's order: the count, then the room in dest, then the range.
    if n < 0 {
        return Error::InvalidParam.code();
    }
    if destsize < 0 || bn > destsize as i64 {
        return Error::WriteBuffer.code();
    }
    if start < 0 || bstart + bn > header.nbytes as i64 {
        return Error::InvalidParam.code();
    }
    if dest.is_null() {
        return Error::NullPointer.code();
    }
    // SAFETY: writable for destsize >= bn bytes per contract.
    let d = unsafe { slice_mut(dest as *mut u8, bn as usize) };
    result_code(dec.get_bytes(s, bstart as usize, bn as usize, d))
}

/// # Safety
/// `context` live; `srcs[i]` readable for `srcsizes[i]` bytes for `i < nblocks`; `dest`
/// writable for `destsize` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlcompress_ctx(
    context: *mut blosc2_context,
    srcs: *const *const c_void,
    srcsizes: *const i32,
    nblocks: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    guard(PANIC_CODE, || {
        // SAFETY: per contract.
        let Some(c) = (unsafe { ctx_mut(context) }) else { return Error::NullPointer.code() };
        let Engine::Compress(comp) = &mut c.engine else { return Error::InvalidParam.code() };
        refresh_schunk_view(&mut comp.call, c.cparams.schunk);
        if nblocks <= 0 || destsize < 0 {
            return Error::InvalidParam.code();
        }
        if srcs.is_null() || srcsizes.is_null() || dest.is_null() {
            return Error::NullPointer.code();
        }
        let mut blocks = Vec::with_capacity(nblocks as usize);
        for i in 0..nblocks as usize {
            // SAFETY: arrays hold nblocks entries per contract.
            let (p, n) = unsafe { (*srcs.add(i), *srcsizes.add(i)) };
            if n <= 0 {
                return Error::InvalidParam.code();
            }
            if p.is_null() {
                return Error::NullPointer.code();
            }
            // SAFETY: readable for n bytes per contract.
            blocks.push(unsafe { slice(p as *const u8, n as usize) });
        }
        // SAFETY: writable per contract.
        let d = unsafe { slice_mut(dest as *mut u8, destsize as usize) };
        result_code(comp.vl_compress(&blocks, d))
    })
}

/// Hand all parallel block work to the caller's thread pool (`callback(data, dojob, numjobs,
/// jobdata_elsize, jobdata)` must run `dojob(jobdata + i * jobdata_elsize)` for every `i` and
/// return when all are done), or back to our own threads with a NULL callback.
///
/// # Safety
/// `callback` must honour that contract.
#[no_mangle]
pub unsafe extern "C" fn blosc2_set_threads_callback(callback: blosc_threads_callback, callback_data: *mut c_void) {
    guard((), || {
        let Some(cb) = callback else {
            crate::threads::set_external_executor(None);
            return;
        };
        let data = SendPtr(callback_data);
        let exec = move |njobs: usize, job: &(dyn Fn(usize) + Sync)| {
            /// One job record handed to C; `dojob` gets a pointer to it.
            #[repr(C)]
            struct JobRecord {
                job: *const (dyn Fn(usize) + Sync),
                index: usize,
            }
            unsafe extern "C" fn dojob(p: *mut c_void) {
                // SAFETY: p points to a JobRecord of the array below, alive during the call.
                let rec = unsafe { &*(p as *const JobRecord) };
                // SAFETY: the closure outlives the callback invocation (see below).
                let f = unsafe { &*rec.job };
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(rec.index)));
            }
            // SAFETY: lifetime erased only for the duration of the callback, which must finish
            // every job before returning (the threads-callback contract).
            let job_static: *const (dyn Fn(usize) + Sync) = unsafe { std::mem::transmute(job) };
            let mut recs: Vec<JobRecord> = (0..njobs).map(|i| JobRecord { job: job_static, index: i }).collect();
            let d = data;
            // SAFETY: calling the user's pool with a valid job array.
            unsafe {
                cb(d.0, Some(dojob), njobs as c_int, std::mem::size_of::<JobRecord>(), recs.as_mut_ptr() as *mut c_void)
            };
        };
        crate::threads::set_external_executor(Some(std::sync::Arc::new(exec)));
    })
}
