//! Run-time registered filters (ids 32..=255): the safe side of `blosc2_register_filter`.

use std::sync::{Arc, RwLock};

use crate::codecs::registry::CodecCallContext;

/// What filter callbacks get to know about the call.
pub type FilterCallContext = CallContext;

/// Parameters handed to user codecs and filters, plus opaque C pointers the C layer needs.
#[derive(Clone, Debug, Default)]
pub struct CallContext {
    /// The parameters of the call (shared with codec callbacks).
    pub codec: CodecCallContext,
}

/// A filter implemented outside this library.
///
/// ```
/// use std::sync::Arc;
/// use blosc2::chunk::{self, CompressParams};
/// use blosc2::filters::registry::{self, CallContext, UserFilter};
///
/// /// Flips every bit: `backward` undoes `forward`.
/// struct Invert;
///
/// impl UserFilter for Invert {
///     fn id(&self) -> u8 { 200 }
///     fn name(&self) -> &str { "invert" }
///     fn version(&self) -> u8 { 1 }
///     fn forward(&self, src: &[u8], dest: &mut [u8], _meta: u8, _ctx: &CallContext) -> i32 {
///         dest.iter_mut().zip(src).for_each(|(d, s)| *d = !s);
///         0
///     }
///     fn backward(&self, src: &[u8], dest: &mut [u8], meta: u8, ctx: &CallContext) -> i32 {
///         self.forward(src, dest, meta, ctx)
///     }
/// }
///
/// registry::register(Arc::new(Invert)).expect("id 200 is free");
/// let data: Vec<u8> = (0..50_000u32).flat_map(|i| i.to_le_bytes()).collect();
/// // The user filter, then byte shuffle (1), before the codec.
/// let c = chunk::compress(&data, &CompressParams::default().with_typesize(4).with_filters(&[200, 1]))?;
/// assert_eq!(chunk::decompress(&c)?, data);
/// # Ok::<(), blosc2::Error>(())
/// ```
pub trait UserFilter: Send + Sync {
    /// The filter id stored in chunk pipelines (32-255).
    fn id(&self) -> u8;
    /// The name given at registration (`blosc2_filter.name`).
    fn name(&self) -> &str;
    /// The version given at registration (`blosc2_filter.version`); not stored in chunks.
    fn version(&self) -> u8;
    /// 0 on success.
    fn forward(&self, src: &[u8], dest: &mut [u8], meta: u8, ctx: &CallContext) -> i32;
    /// 0 on success, or a negative `BLOSC2_ERROR_*`.
    fn backward(&self, src: &[u8], dest: &mut [u8], meta: u8, ctx: &CallContext) -> i32;
}

static FILTERS: RwLock<Vec<Arc<dyn UserFilter>>> = RwLock::new(Vec::new());

/// Registration outcome, mapped to the reference's codes by the C layer.
#[derive(Debug, PartialEq, Eq)]
pub enum RegisterError {
    /// No room for another filter.
    Full,
    /// The id is taken; `same_name` tells whether by a filter of the same name (a repeated
    /// registration, which the reference accepts) or by another one (refused).
    Duplicate { /** Taken by a filter of this name. */ same_name: bool },
}

/// Register `filter` for its id (`blosc2_register_filter`). Ids of the built-in plugins
/// ([`builtin`]) cannot be taken.
pub fn register(filter: Arc<dyn UserFilter>) -> Result<(), RegisterError> {
    let mut v = FILTERS.write().unwrap_or_else(|e| e.into_inner());
    if v.len() >= 255 {
        return Err(RegisterError::Full);
    }
    if let Some(old) = builtin(filter.id()).or_else(|| v.iter().find(|f| f.id() == filter.id()).cloned()) {
        return Err(RegisterError::Duplicate { same_name: old.name() == filter.name() });
    }
    v.push(filter);
    Ok(())
}

/// The filter with id `id`: a built-in plugin or a registered filter.
pub fn find(id: u8) -> Option<Arc<dyn UserFilter>> {
    if let Some(b) = builtin(id) {
        return Some(b);
    }
    let v = FILTERS.read().unwrap_or_else(|e| e.into_inner());
    v.iter().find(|f| f.id() == id).cloned()
}

// Ids of the filter plugins the reference registers at start-up and this library implements.
/// `BLOSC_FILTER_BYTEDELTA_BUGGY` (34): the first, buggy bytedelta, kept for old data.
pub const BYTEDELTA_BUGGY: u8 = 34;
/// `BLOSC_FILTER_BYTEDELTA` (35); meta: number of byte streams (0: the super-chunk's typesize).
pub const BYTEDELTA: u8 = 35;
/// `BLOSC_FILTER_INT_TRUNC` (36): integer precision truncation; meta: signed bits.
pub const INT_TRUNC: u8 = 36;
/// `BLOSC_FILTER_NDCELL` (32): regroups a b2nd block by cells of meta items per side.
pub const NDCELL: u8 = 32;
/// `BLOSC_FILTER_NDMEAN` (33): replaces each cell of a b2nd block by its mean (lossy).
pub const NDMEAN: u8 = 33;

/// The native implementation of one of those ids: available without `blosc2_init`, and a
/// user cannot register over them. Made once per process (a block's pipeline asks for its
/// filter on every block; an `Arc` clone costs less than an allocation).
pub fn builtin(id: u8) -> Option<Arc<dyn UserFilter>> {
    static PLUGINS: std::sync::OnceLock<[Arc<dyn UserFilter>; 5]> = std::sync::OnceLock::new();
    let [buggy, bytedelta, int_trunc, ndcell, ndmean] = PLUGINS.get_or_init(|| {
        [
            Arc::new(ByteDelta { buggy: true }),
            Arc::new(ByteDelta { buggy: false }),
            Arc::new(IntTrunc),
            Arc::new(NdCell { mean: false }),
            Arc::new(NdCell { mean: true }),
        ]
    });
    let plugin = match id {
        BYTEDELTA_BUGGY => buggy,
        BYTEDELTA => bytedelta,
        INT_TRUNC => int_trunc,
        NDCELL => ndcell,
        NDMEAN => ndmean,
        _ => return None,
    };
    Some(Arc::clone(plugin))
}

struct ByteDelta {
    buggy: bool,
}

impl ByteDelta {
    /// `meta` is the number of streams; 0 means the typesize of the super-chunk the call
    /// works for. Outside a super-chunk there is none, and the reference fails the call.
    fn streams(meta: u8, ctx: &CallContext) -> Option<usize> {
        if meta != 0 {
            Some(meta as usize)
        } else {
            ctx.codec.schunk_typesize.filter(|&t| t > 0).map(|t| t as usize)
        }
    }
}

/// What a filter plugin returns when it cannot run (`BLOSC2_ERROR_FAILURE`).
const PLUGIN_FAILURE: i32 = -1;

impl UserFilter for ByteDelta {
    fn id(&self) -> u8 {
        if self.buggy {
            BYTEDELTA_BUGGY
        } else {
            BYTEDELTA
        }
    }
    fn name(&self) -> &str {
        if self.buggy {
            "bytedelta_buggy"
        } else {
            "bytedelta"
        }
    }
    fn version(&self) -> u8 {
        1
    }
    fn forward(&self, src: &[u8], dest: &mut [u8], meta: u8, ctx: &CallContext) -> i32 {
        let Some(streams) = Self::streams(meta, ctx) else { return PLUGIN_FAILURE };
        super::bytedelta::forward(streams, self.buggy, src, dest);
        0
    }
    fn backward(&self, src: &[u8], dest: &mut [u8], meta: u8, ctx: &CallContext) -> i32 {
        let Some(streams) = Self::streams(meta, ctx) else { return PLUGIN_FAILURE };
        super::bytedelta::backward(streams, self.buggy, src, dest);
        0
    }
}

/// `BLOSC_FILTER_INT_TRUNC`: `meta` is the signed precision (see `filters::int_trunc`).
struct IntTrunc;

impl UserFilter for IntTrunc {
    fn id(&self) -> u8 {
        INT_TRUNC
    }
    fn name(&self) -> &str {
        "int_trunc"
    }
    fn version(&self) -> u8 {
        1
    }
    fn forward(&self, src: &[u8], dest: &mut [u8], meta: u8, ctx: &CallContext) -> i32 {
        match super::int_trunc::forward(ctx.codec.typesize.max(0) as usize, meta, src, dest) {
            Ok(()) => 0,
            Err(_) => PLUGIN_FAILURE,
        }
    }
    fn backward(&self, src: &[u8], dest: &mut [u8], _meta: u8, _ctx: &CallContext) -> i32 {
        // Truncation cannot be undone: the bytes go through. (`copy_bytes`: the block often
        // lands 16 bytes past its scratch copy modulo 4 KiB, as a `malloc`ed output lies,
        // where `memcpy`'s `rep movsb` is slow on AMD.)
        crate::copy::copy_bytes(dest, src);
        0
    }
}

/// `BLOSC_FILTER_NDCELL` and `BLOSC_FILTER_NDMEAN` (see `filters::ndcell`): they need the
/// block shape of the super-chunk's "b2nd" metalayer. Compression takes the typesize of the
/// parameters, decompression the super-chunk's (as the reference does).
struct NdCell {
    mean: bool,
}

impl UserFilter for NdCell {
    fn id(&self) -> u8 {
        if self.mean {
            NDMEAN
        } else {
            NDCELL
        }
    }
    fn name(&self) -> &str {
        if self.mean {
            "ndmean"
        } else {
            "ndcell"
        }
    }
    fn version(&self) -> u8 {
        1
    }
    fn forward(&self, src: &[u8], dest: &mut [u8], meta: u8, ctx: &CallContext) -> i32 {
        let Some(b2) = ctx.codec.b2nd.filter(|_| ctx.codec.in_schunk) else { return PLUGIN_FAILURE };
        let ts = ctx.codec.typesize.max(0) as usize;
        let r = if self.mean {
            super::ndcell::ndmean_forward(b2.blockshape(), meta, ts, src, dest)
        } else {
            super::ndcell::ndcell_forward(b2.blockshape(), meta, ts, src, dest)
        };
        if r.is_ok() {
            0
        } else {
            PLUGIN_FAILURE
        }
    }
    fn backward(&self, src: &[u8], dest: &mut [u8], meta: u8, ctx: &CallContext) -> i32 {
        let Some(b2) = ctx.codec.b2nd.filter(|_| ctx.codec.in_schunk) else { return PLUGIN_FAILURE };
        let Some(ts) = ctx.codec.schunk_typesize else { return PLUGIN_FAILURE };
        // NDMEAN reads the super-chunk's typesize as a signed byte.
        let ts = if self.mean { ts as i8 as i32 } else { ts };
        if ts <= 0 {
            return PLUGIN_FAILURE;
        }
        let r = if self.mean {
            super::ndcell::ndmean_backward(b2.blockshape(), meta, ts as usize, src, dest)
        } else {
            super::ndcell::ndcell_backward(b2.blockshape(), meta, ts as usize, src, dest)
        };
        if r.is_ok() {
            0
        } else {
            PLUGIN_FAILURE
        }
    }
}
