//! The process-wide side of the library: the settings that c-blosc2's blosc1-style setters
//! change (`blosc1_set_compressor`, `blosc2_set_nthreads`, ...), the one compressor and
//! decompressor its non-contextual calls share (`blosc2_compress`, `blosc2_decompress`), and
//! the `BLOSC_*` environment variables that override programmatic settings, parsed the way
//! the reference parses them.
//!
//! The environment is read through [`Vars`], so that the rules can be tested without
//! touching the process environment. The real ones: [`crate::environ::BloscVars`], all
//! `BLOSC_*` variables in one pass, for the calls that read them every time
//! ([`Overrides::of_process`]), and [`ProcessVars`], one variable by name, for the few read
//! elsewhere (not all of them named `BLOSC_*`).

use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock, TryLockError};

use crate::chunk::blocksize::{ALWAYS_SPLIT, AUTO_SPLIT, FORWARD_COMPAT_SPLIT, NEVER_SPLIT};
use crate::chunk::compress::Compressor;
use crate::chunk::decompress::Decompressor;
use crate::chunk::{CompressParams, DecompressParams};
use crate::codecs::Codec;
use crate::environ::BloscVars;
use crate::error::{Error, Result};
use crate::chunk::header::{BITSHUFFLE, DELTA, SHUFFLE};
use crate::Generation;

/// `strtol(s, NULL, 10)`: leading whitespace, a sign and digits; anything else ends the
/// number, and no digits at all gives 0.
pub fn strtol(s: &str) -> i64 {
    let t = s.trim_start();
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let mut v: i64 = 0;
    for b in digits.bytes() {
        if !b.is_ascii_digit() {
            break;
        }
        v = v.saturating_mul(10).saturating_add((b - b'0') as i64);
    }
    if neg {
        -v
    } else {
        v
    }
}

/// Where `BLOSC_*` variables come from.
pub trait Vars {
    /// The variable's value, if set.
    fn var(&self, name: &str) -> Option<String>;

    /// An integer variable as `strtol` reads it, if set.
    fn int(&self, name: &str) -> Option<i64> {
        self.var(name).map(|v| strtol(&v))
    }
}

/// The process environment, read at each call (C programs change it with `setenv`).
pub struct ProcessVars;

impl Vars for ProcessVars {
    fn var(&self, name: &str) -> Option<String> {
        std::env::var_os(name).map(|v| v.to_string_lossy().into_owned())
    }
}

/// Whether `BLOSC_LOCKING` asks for frame locking: set, non-empty and not exactly "0" (any
/// other text, "false" and "off" included, turns it on, as in the reference).
pub fn locking_requested(vars: &dyn Vars) -> bool {
    vars.var("BLOSC_LOCKING").is_some_and(|v| !v.is_empty() && v != "0")
}

/// The shuffle a `doshuffle` argument or `BLOSC_SHUFFLE` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shuffle {
    /// `BLOSC_NOSHUFFLE` (0).
    None = 0,
    /// `BLOSC_SHUFFLE` (1): bytes.
    Byte = 1,
    /// `BLOSC_BITSHUFFLE` (2): bits.
    Bit = 2,
}

/// What the `BLOSC_*` variables ask for at one call; `None` where a variable is not set (or,
/// for the named values, not one of the names the reference knows).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Overrides {
    /// `BLOSC_CLEVEL`, as read (range checks differ between callers).
    pub clevel: Option<i64>,
    /// `BLOSC_SHUFFLE`: `NOSHUFFLE`, `SHUFFLE` or `BITSHUFFLE`.
    pub shuffle: Option<Shuffle>,
    /// `BLOSC_DELTA`: on when exactly "1".
    pub delta: Option<bool>,
    /// `BLOSC_TYPESIZE`.
    pub typesize: Option<i64>,
    /// `BLOSC_COMPRESSOR`, the name as given.
    pub compressor: Option<String>,
    /// `BLOSC_BLOCKSIZE`.
    pub blocksize: Option<i64>,
    /// `BLOSC_NTHREADS`.
    pub nthreads: Option<i64>,
    /// `BLOSC_SPLITMODE`: `Some(None)` when set to a name the reference does not know.
    pub splitmode: Option<Option<i32>>,
    /// `BLOSC_BLOSC1_COMPAT` set: global compression writes 16-byte (blosc1) headers.
    pub blosc1_compat: bool,
    /// `BLOSC_NOLOCK` set: global calls use an engine of their own, not the shared one.
    pub nolock: bool,
}

impl Overrides {
    /// What the process environment asks for now, in one pass over it (see
    /// [`crate::environ`]); nothing to parse in the usual case where no `BLOSC_*` variable
    /// is set.
    pub fn of_process() -> Overrides {
        let vars = BloscVars::read();
        if vars.is_empty() {
            Overrides::default()
        } else {
            Overrides::read(&vars)
        }
    }

    /// Read every variable once.
    pub fn read(vars: &dyn Vars) -> Overrides {
        Overrides {
            clevel: vars.int("BLOSC_CLEVEL"),
            shuffle: vars.var("BLOSC_SHUFFLE").and_then(|s| match s.as_str() {
                "NOSHUFFLE" => Some(Shuffle::None),
                "SHUFFLE" => Some(Shuffle::Byte),
                "BITSHUFFLE" => Some(Shuffle::Bit),
                _ => None,
            }),
            delta: vars.var("BLOSC_DELTA").map(|s| s == "1"),
            typesize: vars.int("BLOSC_TYPESIZE"),
            compressor: vars.var("BLOSC_COMPRESSOR"),
            blocksize: vars.int("BLOSC_BLOCKSIZE"),
            nthreads: vars.int("BLOSC_NTHREADS"),
            splitmode: vars.var("BLOSC_SPLITMODE").map(|s| match s.as_str() {
                "ALWAYS" => Some(ALWAYS_SPLIT),
                "NEVER" => Some(NEVER_SPLIT),
                "AUTO" => Some(AUTO_SPLIT),
                "FORWARD_COMPAT" => Some(FORWARD_COMPAT_SPLIT),
                _ => None,
            }),
            blosc1_compat: vars.var("BLOSC_BLOSC1_COMPAT").is_some(),
            nolock: vars.var("BLOSC_NOLOCK").is_some(),
        }
    }

    /// A positive `BLOSC_NTHREADS`, capped to what a thread count holds.
    pub fn thread_count(&self) -> Option<i16> {
        self.nthreads.filter(|&n| n > 0).map(|n| n.min(i16::MAX as i64) as i16)
    }

    /// Apply what the reference's contexts honour to the parameters of a new compression
    /// context: a level within 0-9, the shuffle and delta slots of the pipeline, a positive
    /// type size or block size or thread count, a built-in codec name and a known split
    /// mode; anything else is ignored.
    pub fn apply_to_context(&self, p: &mut CompressParams) {
        if let Some(v) = self.clevel.filter(|v| (0..=9).contains(v)) {
            p.clevel = v as u8;
        }
        let last = p.filters.len() - 1;
        if let Some(s) = self.shuffle {
            p.filters[last] = s as u8;
        }
        if let Some(on) = self.delta {
            p.filters[last - 1] = if on { DELTA } else { 0 };
        }
        if let Some(v) = self.typesize.filter(|&v| v > 0) {
            p.typesize = v.min(i32::MAX as i64) as i32;
        }
        if let Some(c) = self.compressor.as_deref().and_then(Codec::from_name) {
            p.compcode = c.code();
        }
        if let Some(v) = self.blocksize.filter(|&v| v > 0) {
            p.blocksize = v.min(i32::MAX as i64) as i32;
        }
        if let Some(n) = self.thread_count() {
            p.nthreads = n;
        }
        if let Some(Some(m)) = self.splitmode {
            p.splitmode = m;
        }
    }
}

/// The settings of the non-contextual API.
pub struct Settings {
    compressor: AtomicI32,
    delta: AtomicI32,
    nthreads: AtomicI32,
    blocksize: AtomicI32,
    splitmode: AtomicI32,
}

/// The one set of settings of the process.
pub static SETTINGS: Settings = Settings {
    compressor: AtomicI32::new(0),
    delta: AtomicI32::new(0),
    nthreads: AtomicI32::new(1),
    blocksize: AtomicI32::new(0),
    splitmode: AtomicI32::new(FORWARD_COMPAT_SPLIT),
};

impl Settings {
    /// The codec id global compression uses.
    pub fn compressor(&self) -> i32 {
        self.compressor.load(Ordering::Relaxed)
    }

    /// Use the built-in codec `code` (0-5); user codecs are chosen through a context's
    /// parameters only, as in the reference.
    pub fn set_compressor(&self, code: i32) -> Result<()> {
        if !(0..=5).contains(&code) {
            return Err(Error::Failure);
        }
        self.compressor.store(code, Ordering::Relaxed);
        Ok(())
    }

    /// Whether delta runs before the shuffle (`blosc2_set_delta`).
    pub fn delta(&self) -> bool {
        self.delta.load(Ordering::Relaxed) != 0
    }

    /// `blosc2_set_delta`: any non-zero value turns it on.
    pub fn set_delta(&self, on: i32) {
        self.delta.store(on, Ordering::Relaxed);
    }

    /// Threads of global calls.
    pub fn nthreads(&self) -> i16 {
        self.nthreads.load(Ordering::Relaxed) as i16
    }

    /// Set the threads of global calls; the previous count. Refuses 0 or fewer.
    pub fn set_nthreads(&self, n: i16) -> Result<i16> {
        if n <= 0 {
            return Err(Error::InvalidParam);
        }
        Ok(self.nthreads.swap(n as i32, Ordering::Relaxed) as i16)
    }

    /// The forced block size (0: automatic).
    pub fn blocksize(&self) -> i32 {
        self.blocksize.load(Ordering::Relaxed)
    }

    /// Force a block size (0: automatic); as in the reference, the value is kept as given.
    pub fn set_blocksize(&self, blocksize: usize) {
        self.blocksize.store(blocksize as i32, Ordering::Relaxed);
    }

    /// The split mode of global compression.
    pub fn splitmode(&self) -> i32 {
        self.splitmode.load(Ordering::Relaxed)
    }

    /// Set the split mode of global compression.
    pub fn set_splitmode(&self, mode: i32) {
        self.splitmode.store(mode, Ordering::Relaxed);
    }

    /// Apply `BLOSC_NTHREADS` (global compression and decompression both do).
    pub fn take_nthreads(&self, o: &Overrides) -> Result<()> {
        if let Some(n) = o.nthreads.filter(|&n| n > 0) {
            self.set_nthreads(n.min(i16::MAX as i64) as i16)?;
        }
        Ok(())
    }

    /// Apply the overrides of a global compression call, in the reference's order: the
    /// level, shuffle and type size of this call, and (for this and every later call) the
    /// delta, codec, block size, threads and split mode. `codec_by_name` resolves
    /// `BLOSC_COMPRESSOR` (plugins and user codecs included: the setter then refuses
    /// those). An unknown codec or split mode is an error.
    pub fn take_compress_overrides(
        &self,
        o: &Overrides,
        call: &mut GlobalCall,
        codec_by_name: impl Fn(&str) -> Option<i32>,
    ) -> Result<()> {
        if let Some(v) = o.clevel.filter(|&v| v >= 0) {
            call.clevel = v.min(i32::MAX as i64) as i32;
        }
        if let Some(s) = o.shuffle {
            call.doshuffle = s as i32;
        }
        if let Some(on) = o.delta {
            self.set_delta(on as i32);
        }
        if let Some(v) = o.typesize.filter(|&v| v > 0) {
            call.typesize = v.min(i32::MAX as i64) as i32;
        }
        if let Some(name) = &o.compressor {
            let code = codec_by_name(name).ok_or(Error::CodecSupport)?;
            self.set_compressor(code).map_err(|_| Error::CodecSupport)?;
        }
        if let Some(v) = o.blocksize.filter(|&v| v > 0) {
            self.set_blocksize(v as usize);
        }
        self.take_nthreads(o)?;
        match o.splitmode {
            Some(Some(m)) => self.set_splitmode(m),
            Some(None) => return Err(Error::InvalidParam),
            None => {}
        }
        Ok(())
    }

    /// The parameters of a global compression call.
    pub fn compress_params(&self, call: &GlobalCall, generation: Generation) -> Result<CompressParams> {
        if !(0..=9).contains(&call.clevel) {
            return Err(Error::CodecParam);
        }
        let mut filters = [0u8; 6];
        match call.doshuffle {
            1 if call.typesize > 1 => filters[5] = SHUFFLE,
            2 => filters[5] = BITSHUFFLE,
            _ => {}
        }
        if self.delta() {
            filters[4] = DELTA;
        }
        Ok(CompressParams {
            compcode: self.compressor() as u8,
            compcode_meta: 0,
            clevel: call.clevel as u8,
            use_dict: false,
            typesize: call.typesize,
            nthreads: self.nthreads(),
            blocksize: self.blocksize(),
            splitmode: self.splitmode(),
            filters,
            filters_meta: [0; 6],
            instr_codec: false,
            generation,
        })
    }
}

/// The arguments of a `blosc2_compress` call that the environment may override.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GlobalCall {
    /// Compression level (0-9 once overridden).
    pub clevel: i32,
    /// 0 no shuffle, 1 byte shuffle (for type sizes over 1), 2 bit shuffle.
    pub doshuffle: i32,
    /// Item size in bytes.
    pub typesize: i32,
}

/// The engines behind the global API, serialised by one lock as the reference does.
pub struct Engines {
    /// Global compression.
    pub cctx: Compressor,
    /// Global decompression.
    pub dctx: Decompressor,
}

/// The engines of the process, made at first use.
pub fn engines() -> &'static Mutex<Engines> {
    static G: OnceLock<Mutex<Engines>> = OnceLock::new();
    G.get_or_init(|| {
        Mutex::new(Engines {
            cctx: Compressor::new(CompressParams::default()),
            dctx: Decompressor::new(DecompressParams::default()),
        })
    })
}

/// The engines unless they are in use: never waited for, since the codecs and filters they
/// run may be user code calling back into the library (a call then gets an engine of its
/// own, as it does with `BLOSC_NOLOCK`).
fn idle_engines() -> Option<MutexGuard<'static, Engines>> {
    match engines().try_lock() {
        Ok(g) => Some(g),
        Err(TryLockError::Poisoned(e)) => Some(e.into_inner()),
        Err(TryLockError::WouldBlock) => None,
    }
}

/// Compress with the global engine (`blosc2_compress`); `extended` false writes a blosc1
/// header.
pub fn compress(params: CompressParams, src: &[u8], dest: &mut [u8], extended: bool, nolock: bool) -> Result<usize> {
    match if nolock { None } else { idle_engines() } {
        Some(mut g) => {
            g.cctx.params = params;
            g.cctx.compress_with_header(src, dest, extended)
        }
        None => Compressor::new(params).compress_with_header(src, dest, extended),
    }
}

/// Decompress with the global engine (`blosc2_decompress`).
pub fn decompress(src: &[u8], dest: &mut [u8], nolock: bool) -> Result<usize> {
    let params = DecompressParams { nthreads: SETTINGS.nthreads(), typesize: 8 };
    match if nolock { None } else { idle_engines() } {
        Some(mut g) => {
            g.dctx.params = params;
            g.dctx.decompress(src, dest)
        }
        None => Decompressor::new(params).decompress(src, dest),
    }
}

/// Release the global engines' worker threads and the scratch kept for later contexts
/// (`blosc2_destroy`, `blosc2_free_resources`).
pub fn release_threads() {
    let mut g = engines().lock().unwrap_or_else(|e| e.into_inner());
    g.cctx.release_threads();
    g.dctx.release_threads();
    crate::chunk::spare::release_spare();
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    struct Map(HashMap<&'static str, &'static str>);

    impl Vars for Map {
        fn var(&self, name: &str) -> Option<String> {
            self.0.get(name).map(|s| s.to_string())
        }
    }

    /// No variable set reads as the default overrides (what `of_process` returns without
    /// parsing), and one set does not.
    #[test]
    fn nothing_set_is_the_default() {
        assert_eq!(Overrides::read(&BloscVars::from_pairs(&[])), Overrides::default());
        assert_ne!(Overrides::read(&BloscVars::from_pairs(&[("BLOSC_NOLOCK", "")])), Overrides::default());
    }

    #[test]
    fn strtol_like_c() {
        assert_eq!(strtol(" 12abc"), 12);
        assert_eq!(strtol("-3"), -3);
        assert_eq!(strtol("x"), 0);
        assert_eq!(strtol(""), 0);
    }

    #[test]
    fn overrides_read_as_the_reference_reads_them() {
        let o = Overrides::read(&Map(HashMap::from([
            ("BLOSC_CLEVEL", " 7x"),
            ("BLOSC_SHUFFLE", "shuffle"),
            ("BLOSC_DELTA", "yes"),
            ("BLOSC_SPLITMODE", "SOMETIMES"),
            ("BLOSC_NTHREADS", "99999"),
            ("BLOSC_LOCKING", "off"),
        ])));
        assert_eq!(o.clevel, Some(7));
        assert_eq!(o.shuffle, None, "names are case-sensitive");
        assert_eq!(o.delta, Some(false));
        assert_eq!(o.splitmode, Some(None));
        assert_eq!(o.thread_count(), Some(i16::MAX));
        assert!(!o.nolock);
        assert!(locking_requested(&Map(HashMap::from([("BLOSC_LOCKING", "off")]))));
        assert!(!locking_requested(&Map(HashMap::from([("BLOSC_LOCKING", "0")]))));
    }

    #[test]
    fn contexts_ignore_what_global_calls_refuse() {
        let o = Overrides {
            clevel: Some(12),
            splitmode: Some(None),
            compressor: Some("nosuch".into()),
            shuffle: Some(Shuffle::Bit),
            delta: Some(true),
            ..Overrides::default()
        };
        let mut p = CompressParams::default();
        let before = p.clone();
        o.apply_to_context(&mut p);
        assert_eq!((p.clevel, p.splitmode, p.compcode), (before.clevel, before.splitmode, before.compcode));
        assert_eq!(p.filters[5], BITSHUFFLE);
        assert_eq!(p.filters[4], DELTA);
        let s = Settings {
            compressor: AtomicI32::new(0),
            delta: AtomicI32::new(0),
            nthreads: AtomicI32::new(1),
            blocksize: AtomicI32::new(0),
            splitmode: AtomicI32::new(FORWARD_COMPAT_SPLIT),
        };
        let mut call = GlobalCall { clevel: 5, doshuffle: 1, typesize: 4 };
        let unknown = s.take_compress_overrides(&o, &mut call, |_| None);
        assert_eq!(unknown, Err(Error::CodecSupport));
        let o = Overrides { compressor: None, ..o };
        assert_eq!(s.take_compress_overrides(&o, &mut call, |_| None), Err(Error::InvalidParam));
        assert_eq!(call.clevel, 12);
        assert_eq!(s.compress_params(&call, Generation::V3), Err(Error::CodecParam));
        assert!(s.delta());
    }
}
