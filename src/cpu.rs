//! What an x86-64 processor can do, asked of CPUID once per process.
//!
//! The standard library's `is_x86_feature_detected!` asks CPUID about ten times on its
//! first use. In a virtual machine every CPUID leaves for the hypervisor: 3.6 us each on the
//! AMD EPYC VM of the scale table, so 35 us added to the first call of every process (the
//! first `blosc2_schunk_from_buffer` of 10^3 chunks took 220-310 us against the
//! reference's 140-210). Three leaves (0, 1 and 7) and `XGETBV` answer every feature the
//! kernels dispatch on, and the vendor and family that some dispatch choices depend on.
//! Features are enabled under the same conditions as the standard library's: the CPUID bit,
//! and for AVX and AVX-512 the operating system's saving of their registers (XCR0).

use std::sync::atomic::{AtomicU64, Ordering};

/// A feature the kernels dispatch on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Feature {
    Sse2,
    Avx2,
    Avx512f,
    Avx512bw,
    Avx512vl,
    Gfni,
}

impl Feature {
    const fn bit(self) -> u64 {
        1 << self as u32
    }
}

/// Who made the processor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Vendor {
    Intel,
    /// AMD, and Hygon (AMD's cores under licence).
    Amd,
    Other,
}

/// The answers, packed: features in bits 0-7, vendor in bits 8-9, family in bits 16-31, and
/// [`ASKED`] once set. Zero until the first question.
static ANSWERS: AtomicU64 = AtomicU64::new(0);
const ASKED: u64 = 1 << 63;

#[inline(always)]
fn answers() -> u64 {
    let a = ANSWERS.load(Ordering::Relaxed);
    if a & ASKED != 0 {
        a
    } else {
        ask()
    }
}

/// Whether the processor (and the system) can run instructions of `f`.
#[inline]
pub(crate) fn has(f: Feature) -> bool {
    answers() & f.bit() != 0
}

/// The processor's vendor.
pub(crate) fn vendor() -> Vendor {
    match (answers() >> 8) & 3 {
        1 => Vendor::Intel,
        2 => Vendor::Amd,
        _ => Vendor::Other,
    }
}

/// The processor's family as CPUID reports it (base family plus extended family).
pub(crate) fn family() -> u32 {
    ((answers() >> 16) & 0xFFFF) as u32
}

#[cold]
#[inline(never)]
fn ask() -> u64 {
    let a = detect() | ASKED;
    // A race only asks twice and stores the same answer.
    ANSWERS.store(a, Ordering::Relaxed);
    a
}

fn detect() -> u64 {
    use core::arch::x86_64::{__cpuid, __cpuid_count};
    let bit = |reg: u32, n: u32| reg >> n & 1 != 0;
    #[allow(unused_unsafe)]
    // SAFETY: CPUID leaves 0 and 1 exist on every x86-64 processor; leaf 7 is asked only
    // when leaf 0 reports it. CPUID only reads registers.
    let (l0, l1) = unsafe { (__cpuid(0), __cpuid(1)) };
    #[allow(unused_unsafe)]
    // SAFETY: as above.
    let l7 = (l0.eax >= 7).then(|| unsafe { __cpuid_count(7, 0) });
    let (b7, c7) = l7.map_or((0, 0), |r| (r.ebx, r.ecx));
    let vendor: u64 = match (l0.ebx, l0.edx, l0.ecx) {
        (0x756e_6547, 0x4965_6e69, 0x6c65_746e) => 1,                                  // GenuineIntel
        (0x6874_7541, 0x6974_6e65, 0x444d_4163) | (0x6f67_7948, 0x6e65_476e, 0x656e_6975) => 2, // AuthenticAMD, HygonGenuine
        _ => 0,
    };
    let family = ((l1.eax >> 8) & 0xF) + ((l1.eax >> 20) & 0xFF);
    let mut f = 0u64;
    let mut enable = |on: bool, feature: Feature| {
        if on {
            f |= feature.bit();
        }
    };
    enable(bit(l1.edx, 26), Feature::Sse2);
    enable(bit(c7, 8), Feature::Gfni);
    // XSAVE and OSXSAVE: the system saves extended registers, and says which in XCR0.
    if bit(l1.ecx, 26) && bit(l1.ecx, 27) {
        let xcr0 = xgetbv0();
        if xcr0 & 6 == 6 {
            enable(bit(b7, 5), Feature::Avx2);
            if xcr0 & 0xE0 == 0xE0 {
                enable(bit(b7, 16), Feature::Avx512f);
                enable(bit(b7, 30), Feature::Avx512bw);
                enable(bit(b7, 31), Feature::Avx512vl);
            }
        }
    }
    f | vendor << 8 | (family as u64) << 16
}

/// XCR0, the register states the system saves. Only asked when CPUID reports OSXSAVE.
fn xgetbv0() -> u64 {
    let (lo, hi): (u32, u32);
    // SAFETY: XGETBV with ECX = 0 is valid whenever CPUID reports OSXSAVE (checked by the
    // caller); it only writes EAX and EDX.
    unsafe {
        std::arch::asm!("xgetbv", in("ecx") 0u32, out("eax") lo, out("edx") hi, options(nomem, nostack, preserves_flags));
    }
    (hi as u64) << 32 | lo as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every feature as the standard library's detection says, and the vendor as CPUID's
    /// leaf 0 spells it.
    #[test]
    fn answers_agree_with_the_standard_library() {
        assert_eq!(has(Feature::Sse2), std::arch::is_x86_feature_detected!("sse2"));
        assert_eq!(has(Feature::Avx2), std::arch::is_x86_feature_detected!("avx2"));
        assert_eq!(has(Feature::Avx512f), std::arch::is_x86_feature_detected!("avx512f"));
        assert_eq!(has(Feature::Avx512bw), std::arch::is_x86_feature_detected!("avx512bw"));
        assert_eq!(has(Feature::Avx512vl), std::arch::is_x86_feature_detected!("avx512vl"));
        assert_eq!(has(Feature::Gfni), std::arch::is_x86_feature_detected!("gfni"));
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let named = |v: &str| cpuinfo.lines().any(|l| l.starts_with("vendor_id") && l.ends_with(v));
        if named("GenuineIntel") {
            assert_eq!(vendor(), Vendor::Intel);
        } else if named("AuthenticAMD") || named("HygonGenuine") {
            assert_eq!(vendor(), Vendor::Amd);
        }
        if let Some(l) = cpuinfo.lines().find(|l| l.starts_with("cpu family")) {
            let want: u32 = l.rsplit(':').next().unwrap().trim().parse().unwrap();
            assert_eq!(family(), want);
        }
    }
}
