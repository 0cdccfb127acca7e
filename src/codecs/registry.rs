//! Run-time registered codecs (ids 32..=255): the safe side of `blosc2_register_codec`.
//!
//! The C layer wraps the user's callbacks in [`UserCodec`]; the chunk engine only sees this
//! trait, so it stays free of raw pointers.

use std::sync::{Arc, RwLock};

/// A codec implemented outside this library.
pub trait UserCodec: Send + Sync {
    fn id(&self) -> u8;
    fn name(&self) -> &str;
    fn version(&self) -> u8;
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
    pub typesize: i32,
    pub clevel: u8,
    pub blocksize: i32,
    pub nthreads: i16,
    pub compcode: u8,
    pub compcode_meta: u8,
    pub filters: [u8; 6],
    pub filters_meta: [u8; 6],
    pub splitmode: i32,
    pub use_dict: bool,
    /// Opaque user pointers carried through (schunk, codec params), as integers.
    pub opaque: [usize; 4],
    /// The typesize of the super-chunk the call works for, if any: the bytedelta filter
    /// falls back to it when its meta is 0, as the reference does.
    pub schunk_typesize: Option<i32>,
}

static CODECS: RwLock<Vec<Arc<dyn UserCodec>>> = RwLock::new(Vec::new());

/// Registration outcome, mapped to the reference's codes by the C layer.
#[derive(Debug, PartialEq, Eq)]
pub enum RegisterError {
    Full,
    /// The id is taken; `same_name` tells whether by a codec of the same name (a repeated
    /// registration, which the reference accepts) or by another one (refused).
    Duplicate { same_name: bool },
}

pub fn register(codec: Arc<dyn UserCodec>) -> Result<(), RegisterError> {
    let mut v = CODECS.write().unwrap_or_else(|e| e.into_inner());
    if v.len() >= 255 {
        return Err(RegisterError::Full);
    }
    if let Some(old) = v.iter().find(|c| c.id() == codec.id()) {
        return Err(RegisterError::Duplicate { same_name: old.name() == codec.name() });
    }
    v.push(codec);
    Ok(())
}

pub fn find(id: u8) -> Option<Arc<dyn UserCodec>> {
    let v = CODECS.read().unwrap_or_else(|e| e.into_inner());
    v.iter().find(|c| c.id() == id).cloned()
}

pub fn find_by_name(name: &str) -> Option<Arc<dyn UserCodec>> {
    let v = CODECS.read().unwrap_or_else(|e| e.into_inner());
    v.iter().find(|c| c.name() == name).cloned()
}

pub fn find_by_complib(lib: u8) -> Option<Arc<dyn UserCodec>> {
    let v = CODECS.read().unwrap_or_else(|e| e.into_inner());
    v.iter().find(|c| c.complib() == lib).cloned()
}
