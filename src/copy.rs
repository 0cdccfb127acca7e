//! Copying bytes between buffers without `memcpy`'s worst case.
//!
//! glibc's `memcpy` moves mid-sized buffers (a few KiB up to about its non-temporal
//! threshold) with `rep movsb`, smaller ones with forward vector loops. On AMD Zen 3/4
//! processors both slow down when the destination starts a few bytes after the source modulo
//! 4 KiB (their page offsets nearly alias, so a load of the next piece waits on the store of
//! the last one): measured on an AMD EPYC (Zen 4, 2026-12-02), a 128 KiB copy with the
//! destination 4 bytes past the source's page offset ran at 3.5 GB/s, 48 bytes past at 42,
//! any other distance 58. Chunks hit that often: a stream is copied to just after a 4-byte
//! size, a block to just after a header, between buffers that the allocator aligned alike. On
//! those processors such copies run backwards ([`copy_backward`]): loads then move away from
//! the stores just made instead of towards them, and the copy runs at full speed (55-58 GB/s
//! at every distance, 128 KiB; 65-115 GB/s at 2-18 KiB). (Copies of a MiB and more are left
//! to `memcpy`, which does not slow down there: neither its non-temporal path nor, on the
//! Zen 4 VM of 2026-12-07 whose glibc puts that path's threshold at 240 MiB, `rep movsb`,
//! 48-51 GB/s at 1 and 4 MiB, 4 bytes apart.)
//!
//! Intel processors are the other way round: their `rep movsb` (with fast short strings)
//! does not care about the distance, while vector loops suffer from their 4 KiB aliasing.
//! Measured on an Intel Xeon VM (2026-11-29), an 18 KiB copy 4 bytes apart: `memcpy` 73 GB/s,
//! 1 KiB pieces 6.2 GB/s; 32 bytes apart 77 against 28 GB/s. So the backward copy is used on
//! AMD (and Hygon, the same cores) only; everywhere else a copy is one `memcpy`, as in the
//! reference.

use std::sync::atomic::{AtomicU8, Ordering};

/// Copies up to this length are left to `memcpy` at every distance: glibc moves them with
/// vector loads made before any store, which nothing slows down (measured on Zen 4: 100-110
/// GB/s at 2 KiB whatever the distance; 4 KiB 4 bytes apart: 3.6).
const SMALL: usize = 2048;

/// From this length on, `memcpy` no longer slows down near aliasing: glibc copies with
/// non-temporal stores from a threshold that depends on its version and the cache size
/// (between 512 KiB and 1 MiB on the VMs of 2026-12-02; 1 and 4 MiB at 48-49 GB/s at every
/// distance, as the backward copy, measured on Zen 4), and where that threshold is higher its
/// `rep movsb` keeps full speed at this size too (240 MiB on the Zen 4 VM of 2026-12-07).
const LARGE: usize = 1 << 20;

/// Whether this processor's `memcpy` slows down near aliasing and the backward copy does
/// not: 0 not asked yet, 1 yes, 2 no. Asked once; a race only asks twice.
static BACKWARD: AtomicU8 = AtomicU8::new(0);

/// Whether this is an AMD (or Hygon) processor, asked once: the backward copy and the
/// stored 1.x chunks' forward copy here and the walk of the tiled unshuffle
/// (`shuffle_avx2::unshuffle_by_columns`) were tuned apart on AMD and Intel cores.
#[inline]
pub(crate) fn amd_like() -> bool {
    backward_pays()
}

/// Whether nearly aliased copies should run backwards here (AMD and Hygon processors).
#[inline]
fn backward_pays() -> bool {
    match BACKWARD.load(Ordering::Relaxed) {
        1 => true,
        2 => false,
        _ => {
            let yes = rep_movsb_slows_near_aliasing();
            BACKWARD.store(if yes { 1 } else { 2 }, Ordering::Relaxed);
            yes
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[cold]
fn rep_movsb_slows_near_aliasing() -> bool {
    crate::cpu::vendor() == crate::cpu::Vendor::Amd
}

/// Other architectures' `memcpy` has no `rep movsb`.
#[cfg(not(target_arch = "x86_64"))]
#[cold]
fn rep_movsb_slows_near_aliasing() -> bool {
    false
}

/// Copy `src` into `dest`, which must have the same length (as `copy_from_slice`).
#[inline]
pub fn copy_bytes(dest: &mut [u8], src: &[u8]) {
    let distance = (dest.as_ptr() as usize).wrapping_sub(src.as_ptr() as usize) % 4096;
    let len = src.len();
    if len <= SMALL
        || len >= LARGE
        || distance == 0
        || distance >= 64
        || dest.len() != len
        || !backward_pays()
    {
        // (A length mismatch panics here, as copy_from_slice does.)
        dest.copy_from_slice(src);
        return;
    }
    copy_backward(dest, src);
}

/// Copy the data of a stored c-blosc 1.x chunk (`MEMCPYED`) into `dest`, which must have the
/// same length, as that library does on x86: a forward loop of 16-byte vectors. On AMD
/// processors, for copies of `LARGE` bytes and more, this is faster than glibc's `memcpy`
/// (`rep movsb` up to its non-temporal threshold, 240 MiB on the Zen 4 VM of 2026-12-07)
/// when the source was just written, as a chunk is by its compression, and when neither
/// buffer is in the cache: 4 MiB, median of three runs at 13 distances, 44-46 against 40-42
/// GB/s and 17-19 against 15-17 GB/s; with both buffers already in the cache, 50 against 49.
/// Elsewhere, and below that size, this is [`copy_bytes`].
pub(crate) fn copy_stored(dest: &mut [u8], src: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    if src.len() >= LARGE && dest.len() == src.len() && amd_like() {
        // SAFETY: SSE2 is part of x86_64; the slices have the same length.
        unsafe { forward_sse2(dest, src) };
        return;
    }
    copy_bytes(dest, src);
}

/// The forward 16-byte copy of [`copy_stored`]: the first and last vectors unaligned, the
/// body with stores aligned to 16 bytes (unaligned ones straddle cache lines: measured,
/// 39-40 against 48-50 GB/s when the destination is not aligned). Written in assembly
/// because LLVM turns the same loop of intrinsics back into a `memcpy` call.
///
/// # Safety
/// `dest` and `src` must have the same length.
#[cfg(target_arch = "x86_64")]
unsafe fn forward_sse2(dest: &mut [u8], src: &[u8]) {
    use std::arch::x86_64::*;
    let n = src.len();
    debug_assert_eq!(n, dest.len());
    if n < 32 {
        dest.copy_from_slice(src);
        return;
    }
    let s = src.as_ptr();
    let d = dest.as_mut_ptr();
    // The first aligned store's offset (below 16), and the end of the aligned stores: every
    // store in [start, end) stays inside `dest`, the head vector covers [0, start) and the
    // tail vector [end, n), since end > n - 16.
    let start = (16 - d as usize % 16) % 16;
    let end = start + (n - start) / 16 * 16;
    // SAFETY: `n >= 32`, so the head and tail vectors are inside both slices and `end > start`
    // (the loop runs at least once, as its test comes last); each load reads 16 bytes at
    // `s + i` and each store writes them at `d + i`, `i + 16 <= end <= n`, `d + i` aligned to
    // 16; the slices do not overlap (`dest` is borrowed mutably).
    unsafe {
        let head = _mm_loadu_si128(s as *const __m128i);
        let tail = _mm_loadu_si128(s.add(n - 16) as *const __m128i);
        std::arch::asm!(
            ".p2align 5",
            "2:",
            "movdqu {v}, xmmword ptr [{s} + {i}]",
            "movaps xmmword ptr [{d} + {i}], {v}",
            "add {i}, 16",
            "cmp {i}, {end}",
            "jne 2b",
            s = in(reg) s,
            d = in(reg) d,
            end = in(reg) end,
            i = inout(reg) start => _,
            v = out(xmm_reg) _,
            options(nostack),
        );
        _mm_storeu_si128(d as *mut __m128i, head);
        _mm_storeu_si128(d.add(n - 16) as *mut __m128i, tail);
    }
}

/// The copy from the last byte to the first. The two slices never overlap (one is borrowed
/// mutably), so the order changes nothing but speed.
#[cfg(target_arch = "x86_64")]
fn copy_backward(dest: &mut [u8], src: &[u8]) {
    assert_eq!(dest.len(), src.len());
    if crate::cpu::has(crate::cpu::Feature::Avx2) {
        // SAFETY: the CPU has AVX2 (checked just above); the slices have the same length.
        unsafe { backward_avx2(dest, src) }
    } else {
        // SAFETY: SSE2 is part of x86_64; the slices have the same length.
        unsafe { backward_sse2(dest, src) }
    }
}

/// Elsewhere nothing calls for it; a plain copy keeps the function (and its test) there.
#[cfg(not(target_arch = "x86_64"))]
fn copy_backward(dest: &mut [u8], src: &[u8]) {
    dest.copy_from_slice(src);
}

/// Defines a backward copy with `$lane`-byte vectors: the first and last vectors are copied
/// unaligned up front, the body in runs of four from the end with stores aligned to `$lane`
/// (aligned stores are what keeps it at full speed: measured, 55-58 against 50-53 GB/s with
/// unaligned ones), then single vectors; the head vector covers what is left before the
/// first aligned store.
macro_rules! backward_copy {
    ($name:ident, $feature:literal, $lane:literal, $vec:ident, $load:ident, $store:ident, $storeu:ident) => {
        /// # Safety
        /// The CPU must have the target feature; `dest` and `src` must have the same length.
        #[target_feature(enable = $feature)]
        unsafe fn $name(dest: &mut [u8], src: &[u8]) {
            use std::arch::x86_64::*;
            const LANE: usize = $lane;
            let n = src.len();
            debug_assert_eq!(n, dest.len());
            if n < 4 * LANE {
                dest.copy_from_slice(src);
                return;
            }
            let s = src.as_ptr();
            let d = dest.as_mut_ptr();
            // SAFETY (for every access below): `n >= 4 * LANE`; each load reads `LANE` bytes
            // at `s + i` and each store writes them at `d + i` with `i + LANE <= n`, so all
            // stay inside the two slices, which do not overlap (`dest` is borrowed mutably).
            unsafe {
                let head = $load(s as *const $vec);
                let tail = $load(s.add(n - LANE) as *const $vec);
                // `d + i` aligned, `i` in (n - LANE, n]: what lies past it is the tail's.
                let mut i = n - (d.add(n) as usize % LANE);
                while i >= 5 * LANE {
                    i -= 4 * LANE;
                    let a = $load(s.add(i + 3 * LANE) as *const $vec);
                    let b = $load(s.add(i + 2 * LANE) as *const $vec);
                    let c = $load(s.add(i + LANE) as *const $vec);
                    let e = $load(s.add(i) as *const $vec);
                    $store(d.add(i + 3 * LANE) as *mut $vec, a);
                    $store(d.add(i + 2 * LANE) as *mut $vec, b);
                    $store(d.add(i + LANE) as *mut $vec, c);
                    $store(d.add(i) as *mut $vec, e);
                }
                while i >= 2 * LANE {
                    i -= LANE;
                    $store(d.add(i) as *mut $vec, $load(s.add(i) as *const $vec));
                }
                // `i` in [LANE, 2 * LANE): bytes [LANE, i) are still to copy; the head vector
                // covers [0, LANE).
                if i > LANE {
                    std::ptr::copy_nonoverlapping(s.add(LANE), d.add(LANE), i - LANE);
                }
                $storeu(d as *mut $vec, head);
                $storeu(d.add(n - LANE) as *mut $vec, tail);
            }
        }
    };
}

#[cfg(target_arch = "x86_64")]
backward_copy!(backward_avx2, "avx2", 32, __m256i, _mm256_loadu_si256, _mm256_store_si256, _mm256_storeu_si256);
#[cfg(target_arch = "x86_64")]
backward_copy!(backward_sse2, "sse2", 16, __m128i, _mm_loadu_si128, _mm_store_si128, _mm_storeu_si128);

/// Copies from a compressor's source into its chunk, left for last. A compressor stores a
/// stream that does not compress raw; for a block no filter changed, that stream is a range
/// of the source, so it can be copied once the chunk is known to fit. When it does not
/// (poorly compressible data, the usual case for raw streams), the whole buffer is stored
/// instead and copying the streams first would only have doubled the work.
#[derive(Default)]
pub(crate) struct DeferredCopies {
    /// `(offset in the source, length, offset in the chunk)`.
    list: Vec<(usize, usize, usize)>,
}

impl DeferredCopies {
    pub(crate) fn clear(&mut self) {
        self.list.clear();
    }

    /// Make the recorded copies from `src` into `chunk`.
    pub(crate) fn apply(&self, src: &[u8], chunk: &mut [u8]) {
        for &(from, len, at) in &self.list {
            copy_bytes(&mut chunk[at..at + len], &src[from..from + len]);
        }
    }

    /// How many copies are recorded: a mark for [`place`](Self::place).
    pub(crate) fn mark(&self) -> usize {
        self.list.len()
    }

    /// The copies recorded from `mark` to `end` (marks): `(offset in the source, length,
    /// offset in the output)`, in the order recorded.
    pub(crate) fn between(&self, mark: usize, end: usize) -> &[(usize, usize, usize)] {
        &self.list[mark..end]
    }

    /// A block's output, written to `out` with the copies recorded since `mark` left out
    /// (their offsets relative to `out`), goes to `place`, which is at offset `at` of the
    /// chunk: `out`'s other bytes are copied there, and those copies are moved to `at` on.
    /// Used where threads compress blocks into their own buffers and only then learn where
    /// each goes.
    pub(crate) fn place(&mut self, mark: usize, out: &[u8], place: &mut [u8], at: usize) {
        let mut done = 0;
        for entry in &mut self.list[mark..] {
            let (_, len, rel) = *entry;
            copy_bytes(&mut place[done..rel], &out[done..rel]);
            done = rel + len;
            entry.2 = at + rel;
        }
        copy_bytes(&mut place[done..], &out[done..]);
    }
}

/// Where one block's deferred copies go: offsets given relative to the block (in the source)
/// and to the block's output (in the chunk) are made absolute.
pub(crate) struct Deferred<'a> {
    pub(crate) copies: &'a mut DeferredCopies,
    /// Offset of the block in the source.
    pub(crate) src: usize,
    /// Offset in the chunk of the output the block is written to.
    pub(crate) chunk: usize,
}

impl Deferred<'_> {
    /// Record the copy of `len` bytes at `from` in the block to `at` in its output.
    pub(crate) fn record(&mut self, from: usize, len: usize, at: usize) {
        self.copies.list.push((self.src + from, len, self.chunk + at));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every length and distance copies the bytes exactly (the backward copy included).
    #[test]
    fn copies_at_every_distance() {
        let src: Vec<u8> = (0..20_000u32).map(|i| (i * 7 + i / 251) as u8).collect();
        let mut buf = vec![0u8; 8192 + 20_000 + 4096];
        // Lengths around the vector loops' steps (four 16- or 32-byte vectors, and the one
        // vector before and after them) and around `SMALL`.
        for len in [0, 1, 31, 63, 64, 65, 127, 128, 129, 159, 160, 161, 191, 255, 2048, 2049, 5000, 20_000] {
            for shift in [0usize, 1, 4, 17, 31, 32, 63, 64, 100, 4095] {
                // Place the destination `shift` bytes past the source's page offset.
                let base = (buf.as_ptr() as usize) % 4096;
                let want = (src.as_ptr() as usize + shift) % 4096;
                let at = (want + 4096 - base) % 4096;
                let copies: &[fn(&mut [u8], &[u8])] = &[
                    copy_bytes,
                    copy_stored,
                    copy_backward,
                    #[cfg(target_arch = "x86_64")]
                    // SAFETY: the slices have the same length.
                    |d, s| unsafe { forward_sse2(d, s) },
                    #[cfg(target_arch = "x86_64")]
                    // SAFETY: SSE2 is part of x86_64; the slices have the same length.
                    |d, s| unsafe { backward_sse2(d, s) },
                ];
                for copy in copies {
                    buf.iter_mut().for_each(|b| *b = 0xAA);
                    copy(&mut buf[at..at + len], &src[..len]);
                    assert_eq!(&buf[at..at + len], &src[..len], "len {len}, shift {shift}");
                    assert!(buf[..at].iter().all(|&b| b == 0xAA));
                    assert!(buf[at + len..].iter().all(|&b| b == 0xAA));
                }
            }
        }
    }

    /// A stored chunk's copy at and above `LARGE` (the forward loop on AMD) copies exactly,
    /// whatever the alignment of either end.
    #[test]
    fn stored_copies_from_large_on() {
        let src: Vec<u8> = (0..LARGE as u32 + 100).map(|i| (i * 13 + i / 509) as u8).collect();
        let mut buf = vec![0u8; LARGE + 200];
        for (from, at, len) in [(0, 0, LARGE), (3, 17, LARGE + 5), (16, 1, LARGE + 31), (5, 64, LARGE + 80)] {
            buf.iter_mut().for_each(|b| *b = 0xAA);
            copy_stored(&mut buf[at..at + len], &src[from..from + len]);
            assert_eq!(&buf[at..at + len], &src[from..from + len], "from {from}, at {at}, len {len}");
            assert!(buf[..at].iter().all(|&b| b == 0xAA));
            assert!(buf[at + len..].iter().all(|&b| b == 0xAA));
        }
    }
}
