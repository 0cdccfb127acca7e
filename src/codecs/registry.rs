//! Run-time registered codecs (ids 32..=255): the safe side of `blosc2_register_codec`.
//!
//! The C layer wraps the user's callbacks in [`UserCodec`]; the chunk engine only sees this
//! trait, so it stays free of raw pointers.

use std::sync::{Arc, RwLock};

/// A codec implemented outside this library.
///
/// ```
/// use std::sync::Arc;
/// use blosc2::chunk::{self, CompressParams};
/// use blosc2::codecs::registry::{self, CodecCallContext, UserCodec};
/// use blosc2::codecs::Codec;
///
/// /// Stores a run of bytes that go up by one as its first byte and length.
/// struct Ramp;
///
/// impl UserCodec for Ramp {
///     fn id(&self) -> u8 { 240 }
///     fn name(&self) -> &str { "ramp" }
///     fn version(&self) -> u8 { 1 }
///     fn complib(&self) -> u8 { 240 }
///     fn encode(&self, src: &[u8], dest: &mut [u8], _meta: u8, _ctx: &CodecCallContext) -> i32 {
///         let ramp = src.iter().enumerate().all(|(i, &b)| b == src[0].wrapping_add(i as u8));
///         if !ramp || dest.len() < 5 {
///             return 0; // does not fit: the block is stored as it is
///         }
///         dest[0] = src[0];
///         dest[1..5].copy_from_slice(&(src.len() as u32).to_le_bytes());
///         5
///     }
///     fn decode(&self, src: &[u8], dest: &mut [u8], _meta: u8, _ctx: &CodecCallContext) -> i32 {
///         let n = u32::from_le_bytes([src[1], src[2], src[3], src[4]]) as usize;
///         if src.len() != 5 || n > dest.len() {
///             return -1;
///         }
///         (0..n).for_each(|i| dest[i] = src[0].wrapping_add(i as u8));
///         n as i32
///     }
/// }
///
/// registry::register(Arc::new(Ramp)).expect("id 240 is free");
/// let data: Vec<u8> = (0..65_536u32).map(|i| i as u8).collect();
/// let params = CompressParams::default().with_codec(Codec::User(240)).with_typesize(1).with_filters(&[]);
/// let c = chunk::compress(&data, &params)?;
/// assert!(c.len() < 200); // a few bytes per block
/// assert_eq!(chunk::decompress(&c)?, data);
/// # Ok::<(), blosc2::Error>(())
/// ```
pub trait UserCodec: Send + Sync {
    /// The codec id stored in chunks (`compcode`, 32-255).
    fn id(&self) -> u8;
    /// The name `blosc2_compname_to_compcode` finds it by.
    fn name(&self) -> &str;
    /// The codec's format version, written to byte 1 (`versionlz`) of its chunks.
    fn version(&self) -> u8;
    /// The library code `blosc2_get_complib_info` reports for it.
    fn complib(&self) -> u8;
    /// Whether the codec can run (a plugin registered without functions may fail to load).
    fn available(&self) -> bool {
        true
    }
    /// Returns bytes written, 0 when it did not fit, negative on error.
    fn encode(&self, src: &[u8], dest: &mut [u8], meta: u8, ctx: &CodecCallContext) -> i32;
    /// Returns bytes written or a negative error.
    fn decode(&self, src: &[u8], dest: &mut [u8], meta: u8, ctx: &CodecCallContext) -> i32;
}

/// What a user codec or filter callback may want to know about the call (the C layer turns it
/// into `blosc2_cparams`/`blosc2_dparams`).
#[derive(Clone, Copy, Debug, Default)]
pub struct CodecCallContext {
    /// Bytes per item of the chunk.
    pub typesize: i32,
    /// Compression level (0-9).
    pub clevel: u8,
    /// Block size of the context's parameters (0: automatic).
    pub blocksize: i32,
    /// Threads of the context.
    pub nthreads: i16,
    /// The codec id being called.
    pub compcode: u8,
    /// The codec's meta byte, as stored in the chunk header (byte 23).
    pub compcode_meta: u8,
    /// The chunk's filter pipeline.
    pub filters: [u8; 6],
    /// Each filter slot's meta byte.
    pub filters_meta: [u8; 6],
    /// Split mode (`BLOSC_*_SPLIT`).
    pub splitmode: i32,
    /// Whether dictionaries were asked for.
    pub use_dict: bool,
    /// Opaque user pointers carried through (schunk, codec params), as integers.
    pub opaque: [usize; 4],
    /// The typesize of the super-chunk the call works for, if any: the bytedelta filter
    /// falls back to it when its meta is 0, as the reference does.
    pub schunk_typesize: Option<i32>,
    /// Whether the call works for a super-chunk at all (`cparams.schunk`/`dparams.schunk`
    /// set): some plugins tell that case apart from a missing metalayer.
    pub in_schunk: bool,
    /// The shapes of that super-chunk's "b2nd" metalayer, when it has one that decodes:
    /// the n-dimensional plugins (ndcell, ndmean, NDLZ, ZFP) work block by block on them.
    pub b2nd: Option<B2ndShapes>,
}

/// The shapes of a "b2nd" metalayer, in a fixed-size form the call context can copy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct B2ndShapes {
    /// Number of dimensions in use (the first `ndim` entries of each shape).
    pub ndim: u8,
    /// Shape of the whole array, in items.
    pub shape: [i64; super::b2nd_meta::MAX_DIM],
    /// Shape of a chunk, in items.
    pub chunkshape: [i32; super::b2nd_meta::MAX_DIM],
    /// Shape of a block, in items.
    pub blockshape: [i32; super::b2nd_meta::MAX_DIM],
}

impl B2ndShapes {
    /// Decode a "b2nd" metalayer's content; `None` when it is malformed.
    pub fn from_metalayer(content: &[u8]) -> Option<B2ndShapes> {
        let (m, _) = super::b2nd_meta::decode(content).ok()?;
        let mut s = B2ndShapes { ndim: m.shape.len() as u8, ..Default::default() };
        s.shape[..m.shape.len()].copy_from_slice(&m.shape);
        s.chunkshape[..m.chunkshape.len()].copy_from_slice(&m.chunkshape);
        s.blockshape[..m.blockshape.len()].copy_from_slice(&m.blockshape);
        Some(s)
    }

    /// The block shape's `ndim` dimensions.
    pub fn blockshape(&self) -> &[i32] {
        &self.blockshape[..self.ndim as usize]
    }
}

static CODECS: RwLock<Vec<Arc<dyn UserCodec>>> = RwLock::new(Vec::new());

/// Registration outcome, mapped to the reference's codes by the C layer.
#[derive(Debug, PartialEq, Eq)]
pub enum RegisterError {
    /// No room for another codec.
    Full,
    /// The id is taken; `same_name` tells whether by a codec of the same name (a repeated
    /// registration, which the reference accepts) or by another one (refused).
    Duplicate { /** Taken by a codec of this name. */ same_name: bool },
}

/// Register `codec` for its id (`blosc2_register_codec`). Ids of the built-in plugins
/// ([`builtin`]) cannot be taken.
pub fn register(codec: Arc<dyn UserCodec>) -> Result<(), RegisterError> {
    let mut v = CODECS.write().unwrap_or_else(|e| e.into_inner());
    if v.len() >= 255 {
        return Err(RegisterError::Full);
    }
    if let Some(old) = builtin(codec.id()).or_else(|| v.iter().find(|c| c.id() == codec.id()).cloned()) {
        return Err(RegisterError::Duplicate { same_name: old.name() == codec.name() });
    }
    v.push(codec);
    Ok(())
}

/// The codec with id `id`: a built-in plugin or a registered codec.
pub fn find(id: u8) -> Option<Arc<dyn UserCodec>> {
    if let Some(b) = builtin(id) {
        return Some(b);
    }
    let v = CODECS.read().unwrap_or_else(|e| e.into_inner());
    v.iter().find(|c| c.id() == id).cloned()
}

/// The codec called `name`: a built-in plugin or a registered codec.
pub fn find_by_name(name: &str) -> Option<Arc<dyn UserCodec>> {
    if let Some(b) = BUILTIN_IDS.iter().filter_map(|&id| builtin(id)).find(|c| c.name() == name) {
        return Some(b);
    }
    let v = CODECS.read().unwrap_or_else(|e| e.into_inner());
    v.iter().find(|c| c.name() == name).cloned()
}

/// The first codec reporting library code `lib` (see [`UserCodec::complib`]).
pub fn find_by_complib(lib: u8) -> Option<Arc<dyn UserCodec>> {
    if let Some(b) = BUILTIN_IDS.iter().filter_map(|&id| builtin(id)).find(|c| c.complib() == lib) {
        return Some(b);
    }
    let v = CODECS.read().unwrap_or_else(|e| e.into_inner());
    v.iter().find(|c| c.complib() == lib).cloned()
}

/// Id of the NDLZ codec plugin the reference registers at start-up.
pub const NDLZ: u8 = 32;

/// Ids of the codec plugins implemented in this library.
const BUILTIN_IDS: [u8; 4] = [NDLZ, super::zfp::ZFP_ACC, super::zfp::ZFP_PREC, super::zfp::ZFP_RATE];

/// The native implementation of one of the reference's start-up codec plugins: available
/// without `blosc2_init`, and a user cannot register over it. Made once per process (the
/// codec is looked up for every block; an `Arc` clone costs less than an allocation).
pub fn builtin(id: u8) -> Option<Arc<dyn UserCodec>> {
    use super::zfp::{Zfp, ZFP_ACC, ZFP_PREC, ZFP_RATE};
    static PLUGINS: std::sync::OnceLock<[Arc<dyn UserCodec>; 4]> = std::sync::OnceLock::new();
    let [ndlz, acc, prec, rate] = PLUGINS.get_or_init(|| {
        [
            Arc::new(super::ndlz::Ndlz),
            Arc::new(Zfp { id: ZFP_ACC }),
            Arc::new(Zfp { id: ZFP_PREC }),
            Arc::new(Zfp { id: ZFP_RATE }),
        ]
    });
    let plugin = match id {
        NDLZ => ndlz,
        ZFP_ACC => acc,
        ZFP_PREC => prec,
        ZFP_RATE => rate,
        _ => return None,
    };
    Some(Arc::clone(plugin))
}
