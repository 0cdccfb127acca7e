//! The four built-in filters of the blosc2 pipeline: byte shuffle, bit shuffle, delta and
//! precision truncation, forward and backward.
//!
//! Everything here works on plain slices and is byte-identical to c-blosc2 3.3 (checked by
//! differential tests against the reference library). The public functions pick the best
//! kernel for the running CPU (AVX2, then SSE2 on x86-64; NEON on aarch64; else portable
//! scalar code); every SIMD kernel has a scalar twin that produces the same bytes. The
//! NEON kernels are checked against their twins under qemu-user (`scripts/test-aarch64.sh`).
//!
//! # Layouts
//!
//! * **Byte shuffle** of a block of `n = len / typesize` elements writes byte `j` of element
//!   `i` to `dest[j * n + i]`. The trailing `len % typesize` bytes, which do not form a whole
//!   element, are copied unchanged to the same position.
//! * **Bit shuffle** works on the largest multiple of 8 elements, `m = n - n % 8`. It
//!   produces `8 * typesize` bit planes of `m / 8` bytes each: plane `8 * j + k` holds bit
//!   `k` of byte `j` of every element, element `8 * g + b` landing in bit `b` of byte `g`.
//!   Everything after the first `m * typesize` bytes is copied unchanged.
//!
//! # Errors
//!
//! The fallible functions return [`FilterError`]; [`FilterError::code`] gives the
//! `BLOSC2_ERROR_*` value a C caller expects.
#![deny(unsafe_op_in_unsafe_fn)]

mod bitshuffle;
pub mod bytedelta;
mod delta;
pub mod int_trunc;
pub mod ndcell;
pub mod registry;
mod shuffle;
mod trunc_prec;

#[cfg(target_arch = "x86_64")]
mod bitshuffle_avx2;
#[cfg(target_arch = "x86_64")]
mod bitshuffle_avx512;
#[cfg(target_arch = "x86_64")]
mod bitshuffle_sse2;
#[cfg(target_arch = "x86_64")]
mod shuffle_avx2;
#[cfg(target_arch = "x86_64")]
mod shuffle_avx512;
#[cfg(target_arch = "x86_64")]
mod shuffle_sse2;
#[cfg(target_arch = "aarch64")]
mod bitshuffle_neon;
#[cfg(target_arch = "aarch64")]
mod shuffle_neon;

#[cfg(test)]
pub(crate) mod tests;

use std::fmt;

pub use delta::{delta_decode, delta_decode_chunk, delta_encode};
pub use trunc_prec::trunc_prec;

/// Chunk format version written by c-blosc 1.x (`BLOSC_VERSION_FORMAT` 2).
///
/// Bit-shuffled blocks of that format whose element count is not a multiple of 8 were
/// stored without any bit shuffling at all, so [`bitunshuffle`] must copy them verbatim.
pub const BLOSC1_FORMAT_VERSION: u8 = 2;

/// Chunk format version written by c-blosc2 3.3 (`BLOSC2_VERSION_FORMAT`); pass it to
/// [`bitunshuffle`] for buffers that do not come from an old chunk (this is what the
/// reference's exported `blosc2_bitunshuffle` does).
pub const CURRENT_FORMAT_VERSION: u8 = 6;

/// Why a filter refused to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FilterError {
    /// `typesize` was 0.
    ZeroTypesize,
    /// `src` and `dest` have different lengths.
    LengthMismatch { /** Length of `src`. */ src: usize, /** Length of `dest`. */ dest: usize },
    /// Precision truncation only knows 4-byte and 8-byte floats.
    UnsupportedTypesize(usize),
    /// `prec_bits` keeps no mantissa bit, or more than the type has.
    PrecisionOutOfRange { /** Signed bit count. */ prec_bits: i8, /** Bytes per item. */ typesize: usize },
}

impl FilterError {
    /// The `BLOSC2_ERROR_*` code for this error.
    ///
    /// Bad parameters map to `BLOSC2_ERROR_INVALID_PARAM` (-12), as the reference's exported
    /// shuffle functions return. A precision truncation that cannot run maps to
    /// `BLOSC2_ERROR_FILTER_PIPELINE` (-18), which is what a failed filter makes the
    /// reference's compressor report.
    pub fn code(self) -> i32 {
        match self {
            FilterError::ZeroTypesize | FilterError::LengthMismatch { .. } => -12,
            FilterError::UnsupportedTypesize(_) | FilterError::PrecisionOutOfRange { .. } => -18,
        }
    }
}

impl fmt::Display for FilterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FilterError::ZeroTypesize => write!(f, "typesize must be at least 1"),
            FilterError::LengthMismatch { src, dest } => {
                write!(f, "source has {src} bytes but destination has {dest}")
            }
            FilterError::UnsupportedTypesize(ts) => {
                write!(f, "precision truncation supports typesize 4 or 8, not {ts}")
            }
            FilterError::PrecisionOutOfRange {
                prec_bits,
                typesize,
            } => write!(
                f,
                "precision {prec_bits} bits is out of range for {}-byte floats",
                typesize
            ),
        }
    }
}

impl std::error::Error for FilterError {}

/// Instruction-set level of a kernel.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isa {
    Scalar,
    Sse2,
    Avx2,
    /// x86-64 AVX-512F + AVX-512BW + GFNI: bit shuffle, byte unshuffle and the byte
    /// shuffle of 16-byte items with kernels of their own, the AVX2 byte-shuffle kernels
    /// for the other type sizes (and, on Intel CPUs and AMD Zen 4, for the unshuffle of
    /// some type sizes: [`Isa::best_unshuffle`]).
    Avx512,
    /// aarch64 Advanced SIMD (part of the architecture's baseline).
    Neon,
}

/// The processor families whose 512-bit shuffles cost more than the AVX-512 kernels were
/// made for (AMD Zen 5, whose 512-bit units are full width), asked once per process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cpu {
    /// CPUID vendor "GenuineIntel": 512-bit byte shuffles issue on one port, 256-bit ones
    /// on two.
    Intel,
    /// "AuthenticAMD" family 19h with AVX-512: Zen 4, which splits every 512-bit
    /// operation into two 256-bit halves (family 19h without AVX-512 is Zen 3, which
    /// never reaches the AVX-512 kernels).
    Zen4,
    Other,
}

/// [`cpu`]'s answer, 0 until the first call stores it (see [`Cpu::code`]).
#[cfg(target_arch = "x86_64")]
static KIND: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

#[cfg(target_arch = "x86_64")]
impl Cpu {
    /// The nonzero code [`KIND`] keeps for each kind.
    const fn code(self) -> u8 {
        match self {
            Cpu::Intel => 1,
            Cpu::Zen4 => 2,
            Cpu::Other => 3,
        }
    }
}

/// The kind of CPU, asked once: one load of [`KIND`] after the first call (always inlined,
/// the first call's CPUID kept out of line, so that the kernels' dispatch on small blocks
/// costs no call).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn cpu() -> Cpu {
    use std::sync::atomic::Ordering;
    match KIND.load(Ordering::Relaxed) {
        1 => Cpu::Intel,
        2 => Cpu::Zen4,
        3 => Cpu::Other,
        _ => cpu_asked(),
    }
}

/// [`cpu`]'s first call: asks CPUID and stores the answer in [`KIND`].
#[cfg(target_arch = "x86_64")]
#[cold]
#[inline(never)]
fn cpu_asked() -> Cpu {
    use crate::cpu::{family, vendor, Vendor};
    let kind = match vendor() {
        Vendor::Intel => Cpu::Intel,
        Vendor::Amd if family() == 0x19 => Cpu::Zen4,
        _ => Cpu::Other,
    };
    KIND.store(kind.code(), std::sync::atomic::Ordering::Relaxed);
    kind
}

#[cfg(not(target_arch = "x86_64"))]
fn cpu() -> Cpu {
    Cpu::Other
}

/// Whether the CPU has AVX2, from [`Isa::level`]'s cache (the standard library's
/// `is_x86_feature_detected!`, used before `crate::cpu`, read its cache through the GOT, an
/// extra dependent load before each kernel of a small block; see [`Isa::level`]).
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn avx2_detected() -> bool {
    matches!(Isa::level(), Isa::Avx2 | Isa::Avx512)
}

/// Whether the CPU has everything the AVX-512 kernels use, from the same cache.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn avx512_detected() -> bool {
    Isa::level() == Isa::Avx512
}

/// Whether the CPU is Intel's.
fn intel() -> bool {
    cpu() == Cpu::Intel
}

/// [`Isa::level`]'s answer, 0 until its first call stores a nonzero code.
static BEST: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

impl Isa {
    /// The fastest level the running CPU supports, worked out once per process (see
    /// [`Isa::level`], which the library's own calls use).
    pub fn best() -> Isa {
        Self::level()
    }

    /// [`Isa::best`], cached: asked of the feature tests every time it took four
    /// cached loads and as many tests, a tenth of what the exported `blosc2_unshuffle`
    /// spent outside its kernel.
    ///
    /// Crate-private, and behind a public function that is not `#[inline]`, so that its
    /// cache stays private too. The library is also built as an rlib, and a static that a
    /// public inline function touches is then reachable from other crates: the shared
    /// library reaches such statics through the GOT, one more load at the head of a chain
    /// of dependent loads before every kernel (a fifth of the time of the exported
    /// `blosc2_unshuffle` of 64 bytes on AMD Zen 4).
    #[inline(always)]
    pub(crate) fn level() -> Isa {
        use std::sync::atomic::Ordering;
        match BEST.load(Ordering::Relaxed) {
            1 => Isa::Scalar,
            2 => Isa::Sse2,
            3 => Isa::Avx2,
            4 => Isa::Avx512,
            5 => Isa::Neon,
            _ => Self::level_asked(),
        }
    }

    /// [`Isa::level`]'s first call, kept out of line: detects and stores the level.
    #[cold]
    #[inline(never)]
    fn level_asked() -> Isa {
        let isa = Self::detect();
        BEST.store(isa.code(), std::sync::atomic::Ordering::Relaxed);
        isa
    }

    /// The nonzero code [`BEST`] keeps for each level ([`Isa::level`] reads it back).
    const fn code(self) -> u8 {
        match self {
            Isa::Scalar => 1,
            Isa::Sse2 => 2,
            Isa::Avx2 => 3,
            Isa::Avx512 => 4,
            Isa::Neon => 5,
        }
    }

    /// [`Isa::best`] for the byte unshuffle of `typesize`-byte items: AVX2 rather than
    /// AVX-512 for type sizes 4, 8 and 16 on Intel CPUs, which issue 512-bit byte
    /// shuffles on one port and 256-bit ones on two (Emerald Rapids, exported
    /// `blosc2_unshuffle` of 8 KiB: 0.79-0.94x the reference with the AVX-512 kernels,
    /// 0.98-1.08x with AVX2; 32 KiB of 8-byte items 1.18-1.24x against 1.28-1.66x), and
    /// for 2, 4 and 8 on AMD Zen 4, which runs a 512-bit operation as two 256-bit ones
    /// (8 KiB: 0.73-0.89x with AVX-512, 0.95-1.01x with AVX2; 16-byte items, whose
    /// AVX-512 kernel needs half the shuffles, 1.04-1.73x against 0.98-1.12x). The
    /// AVX-512 kernels were made on AMD Zen 5, whose 512-bit units are full width, and
    /// stay there and for 2-byte items on Intel (1.29-1.36x against 1.00-1.14x at 8 KiB).
    pub fn best_unshuffle(typesize: usize) -> Isa {
        Self::unshuffle_level(typesize)
    }

    /// [`Isa::best_unshuffle`] for the library's own calls (see [`Isa::level`]).
    #[inline(always)]
    pub(crate) fn unshuffle_level(typesize: usize) -> Isa {
        Self::level().unshuffle_isa(typesize)
    }

    /// The level whose byte-unshuffle kernels to run for `typesize`-byte items when
    /// `self` is the level available (see [`Isa::best_unshuffle`]); also for the byte
    /// step of the bit unshuffle, which would otherwise take the AVX-512 kernels there.
    pub fn for_unshuffle(self, typesize: usize) -> Isa {
        self.unshuffle_isa(typesize)
    }

    /// [`Isa::for_unshuffle`] for the library's own calls (see [`Isa::level`]).
    #[inline(always)]
    pub(crate) fn unshuffle_isa(self, typesize: usize) -> Isa {
        if self != Isa::Avx512 {
            return self;
        }
        let narrower = match cpu() {
            Cpu::Intel => matches!(typesize, 4 | 8 | 16),
            Cpu::Zen4 => matches!(typesize, 2 | 4 | 8),
            Cpu::Other => false,
        };
        if narrower {
            Isa::Avx2
        } else {
            self
        }
    }

    /// [`Isa::best`] asked of the CPU.
    fn detect() -> Isa {
        #[cfg(target_arch = "x86_64")]
        {
            if crate::cpu::has(crate::cpu::Feature::Avx2) {
                if bitshuffle_avx512::detected() {
                    return Isa::Avx512;
                }
                return Isa::Avx2;
            }
            if crate::cpu::has(crate::cpu::Feature::Sse2) {
                return Isa::Sse2;
            }
        }
        #[cfg(target_arch = "aarch64")]
        {
            if std::arch::is_aarch64_feature_detected!("neon") {
                return Isa::Neon;
            }
        }
        Isa::Scalar
    }

    /// Whether the running CPU can execute kernels of this level.
    pub fn is_available(self) -> bool {
        match self {
            Isa::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            Isa::Sse2 => crate::cpu::has(crate::cpu::Feature::Sse2),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => crate::cpu::has(crate::cpu::Feature::Avx2),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => {
                crate::cpu::has(crate::cpu::Feature::Avx2) && bitshuffle_avx512::detected()
            }
            #[cfg(target_arch = "aarch64")]
            Isa::Neon => std::arch::is_aarch64_feature_detected!("neon"),
            #[allow(unreachable_patterns)]
            _ => false,
        }
    }

    /// Every level the running CPU supports, scalar first.
    pub fn available() -> Vec<Isa> {
        [Isa::Scalar, Isa::Sse2, Isa::Avx2, Isa::Avx512, Isa::Neon]
            .into_iter()
            .filter(|isa| isa.is_available())
            .collect()
    }
}

/// Byte-shuffles `src` into `dest` (see the module docs for the layout).
///
/// A `typesize` of 0 or 1 is a plain copy: the reference refuses 0 in its exported
/// function, and never shuffles with it inside the pipeline.
///
/// # Panics
/// If `src.len() != dest.len()`: the pipeline always passes two buffers of `blocksize`
/// bytes, so anything else is a caller bug.
pub fn shuffle(typesize: usize, src: &[u8], dest: &mut [u8]) {
    shuffle::shuffle_with(Isa::level(), typesize, src, dest);
}

/// Inverse of [`shuffle`]; same conventions.
///
/// # Panics
/// If `src.len() != dest.len()`.
pub fn unshuffle(typesize: usize, src: &[u8], dest: &mut [u8]) {
    unshuffle_here(typesize, src, dest);
}

/// [`unshuffle`] inlined into the library's own callers (the exported
/// `blosc2_unshuffle`): a public function is called through the GOT (see [`Isa::level`]),
/// and its frame came on top of the face's.
#[inline(always)]
pub(crate) fn unshuffle_here(typesize: usize, src: &[u8], dest: &mut [u8]) {
    let isa = Isa::unshuffle_level(typesize);
    if !shuffle::unshuffle_small(isa, typesize, src, dest) {
        shuffle::unshuffle_with(isa, typesize, src, dest);
    }
}

/// [`unshuffle`] from rows that need not be adjacent: byte `j` of element `i` is
/// `rows[j][i]`; `dest` receives `n` elements of `rows.len()` bytes (`dest.len()` must be
/// `n * rows.len()`, each row at least `n` bytes, and there must be two rows or more).
///
/// # Panics
/// When those lengths do not hold.
pub fn unshuffle_rows(rows: &[&[u8]], n: usize, dest: &mut [u8]) {
    shuffle::unshuffle_rows_with(Isa::unshuffle_level(rows.len()), rows, n, dest);
}

/// [`unshuffle_rows`] for elements of `typesize` bytes whose bytes `rows.len()..typesize`
/// are all zero: only the low rows are given (none at all means every byte is zero), the
/// others need not exist anywhere. `typesize` is at most 16 and above `rows.len()`.
///
/// # Panics
/// When those bounds or the lengths of [`unshuffle_rows`] do not hold.
pub fn unshuffle_zero_high(rows: &[&[u8]], typesize: usize, n: usize, dest: &mut [u8]) {
    shuffle::unshuffle_zero_high_with(Isa::level(), rows, typesize, n, dest);
}

/// Bit-shuffles `src` into `dest` (see the module docs for the layout).
///
/// Like the reference, only the largest multiple of 8 elements is transposed and the rest
/// is copied, so no block is ever refused for its length. Any `typesize >= 1` works (the
/// reference's exported function caps it at 256, the pipeline at 255).
///
/// # Errors
/// [`FilterError::ZeroTypesize`] or [`FilterError::LengthMismatch`].
pub fn bitshuffle(typesize: usize, src: &[u8], dest: &mut [u8]) -> Result<(), FilterError> {
    bitshuffle::bitshuffle_with(Isa::level(), typesize, src, dest)
}

/// Inverse of [`bitshuffle`].
///
/// `format_version` is the version byte of the chunk the block comes from (byte 0 of its
/// header). The reference treats version [`BLOSC1_FORMAT_VERSION`] (c-blosc 1.x) specially,
/// because c-blosc 1.x only bit-shuffled blocks whose element count is a multiple of 8 and
/// stored every other block as is: for such a chunk a block with `n % 8 != 0` is copied
/// verbatim. Every other version uses the current rule (transpose the largest multiple of
/// 8 elements, copy the rest). Pass [`CURRENT_FORMAT_VERSION`] for a bare buffer.
///
/// # Errors
/// [`FilterError::ZeroTypesize`] or [`FilterError::LengthMismatch`]. (The reference's
/// exported `blosc2_bitunshuffle` does not validate its arguments at all and crashes on a
/// typesize below 1.)
pub fn bitunshuffle(
    typesize: usize,
    src: &[u8],
    dest: &mut [u8],
    format_version: u8,
) -> Result<(), FilterError> {
    bitshuffle::bitunshuffle_with(Isa::level(), typesize, src, dest, format_version)
}

/// Kernel-level entry points, one per instruction-set level, for tests and benchmarks.
///
/// Each function returns `false` (doing nothing) when the running CPU lacks `isa`.
#[doc(hidden)]
pub mod kernels {
    use super::{FilterError, Isa};

    pub fn shuffle(isa: Isa, typesize: usize, src: &[u8], dest: &mut [u8]) -> bool {
        if !isa.is_available() {
            return false;
        }
        super::shuffle::shuffle_with(isa, typesize, src, dest);
        true
    }

    pub fn unshuffle(isa: Isa, typesize: usize, src: &[u8], dest: &mut [u8]) -> bool {
        if !isa.is_available() {
            return false;
        }
        super::shuffle::unshuffle_with(isa, typesize, src, dest);
        true
    }

    pub fn unshuffle_rows(isa: Isa, rows: &[&[u8]], n: usize, dest: &mut [u8]) -> bool {
        if !isa.is_available() {
            return false;
        }
        super::shuffle::unshuffle_rows_with(isa, rows, n, dest);
        true
    }

    pub fn unshuffle_zero_high(
        isa: Isa,
        rows: &[&[u8]],
        typesize: usize,
        n: usize,
        dest: &mut [u8],
    ) -> bool {
        if !isa.is_available() {
            return false;
        }
        super::shuffle::unshuffle_zero_high_with(isa, rows, typesize, n, dest);
        true
    }

    pub fn bitshuffle(
        isa: Isa,
        typesize: usize,
        src: &[u8],
        dest: &mut [u8],
    ) -> Option<Result<(), FilterError>> {
        if !isa.is_available() {
            return None;
        }
        Some(super::bitshuffle::bitshuffle_with(isa, typesize, src, dest))
    }

    pub fn bitunshuffle(
        isa: Isa,
        typesize: usize,
        src: &[u8],
        dest: &mut [u8],
        format_version: u8,
    ) -> Option<Result<(), FilterError>> {
        if !isa.is_available() {
            return None;
        }
        Some(super::bitshuffle::bitunshuffle_with(
            isa,
            typesize,
            src,
            dest,
            format_version,
        ))
    }
}
