//! Run-time registered filters (ids 32..=255): the safe side of `blosc2_register_filter`.

use std::sync::{Arc, RwLock};

use crate::codecs::registry::CodecCallContext;

/// What filter callbacks get to know about the call.
pub type FilterCallContext = CallContext;

/// Parameters handed to user codecs and filters, plus opaque C pointers the C layer needs.
#[derive(Clone, Debug, Default)]
pub struct CallContext {
    pub codec: CodecCallContext,
}

/// A filter implemented outside this library.
pub trait UserFilter: Send + Sync {
    fn id(&self) -> u8;
    fn name(&self) -> &str;
    fn version(&self) -> u8;
    /// 0 on success.
    fn forward(&self, src: &[u8], dest: &mut [u8], meta: u8, ctx: &CallContext) -> i32;
    /// 0 on success, or a negative `BLOSC2_ERROR_*`.
    fn backward(&self, src: &[u8], dest: &mut [u8], meta: u8, ctx: &CallContext) -> i32;
}

static FILTERS: RwLock<Vec<Arc<dyn UserFilter>>> = RwLock::new(Vec::new());

#[derive(Debug, PartialEq, Eq)]
pub enum RegisterError {
    Full,
    Duplicate,
}

pub fn register(filter: Arc<dyn UserFilter>) -> Result<(), RegisterError> {
    let mut v = FILTERS.write().unwrap_or_else(|e| e.into_inner());
    if v.len() >= 255 {
        return Err(RegisterError::Full);
    }
    if builtin(filter.id()).is_some() || v.iter().any(|f| f.id() == filter.id()) {
        return Err(RegisterError::Duplicate);
    }
    v.push(filter);
    Ok(())
}

pub fn find(id: u8) -> Option<Arc<dyn UserFilter>> {
    if let Some(b) = builtin(id) {
        return Some(b);
    }
    let v = FILTERS.read().unwrap_or_else(|e| e.into_inner());
    v.iter().find(|f| f.id() == id).cloned()
}

/// Filter ids the reference registers itself (BLOSC_FILTER_BYTEDELTA_BUGGY = 34,
/// BLOSC_FILTER_BYTEDELTA = 35) that this library implements natively. They are available
/// without `blosc2_init`, and a user cannot register over them.
pub fn builtin(id: u8) -> Option<Arc<dyn UserFilter>> {
    match id {
        34 | 35 => Some(Arc::new(ByteDelta { buggy: id == 34 })),
        _ => None,
    }
}

struct ByteDelta {
    buggy: bool,
}

impl ByteDelta {
    /// `meta` is the number of streams; 0 means the data's typesize.
    fn streams(meta: u8, ctx: &CallContext) -> usize {
        if meta != 0 {
            meta as usize
        } else {
            ctx.codec.typesize.max(1) as usize
        }
    }
}

impl UserFilter for ByteDelta {
    fn id(&self) -> u8 {
        if self.buggy {
            34
        } else {
            35
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
        super::bytedelta::forward(Self::streams(meta, ctx), self.buggy, src, dest);
        0
    }
    fn backward(&self, src: &[u8], dest: &mut [u8], meta: u8, ctx: &CallContext) -> i32 {
        super::bytedelta::backward(Self::streams(meta, ctx), self.buggy, src, dest);
        0
    }
}
