//! Copying bytes between buffers without `memcpy`'s worst case.
//!
//! glibc's `memcpy` moves mid-sized buffers (a few KiB up to about its non-temporal
//! threshold) with `rep movsb`. On AMD Zen 3/4 processors that instruction slows down about
//! fifteenfold when the destination starts a few bytes after the source modulo 4 KiB (their
//! page offsets nearly alias): measured on an AMD EPYC (Zen 4), a 64 KiB copy ran at
//! 3.4 GB/s with the destination 4 bytes past the source's page offset, 57 GB/s otherwise.
//! Chunks hit that often: a stream is copied to just after a 4-byte size, a block to just
//! after a header, between buffers that the allocator aligned alike. On those processors such
//! copies are made in pieces small enough for glibc's vector loops, which do not slow down
//! there. (Copies of a MiB and more are left to `memcpy`: they take another path.)
//!
//! Intel processors are the other way round: their `rep movsb` (with fast short strings)
//! does not care about the distance, while vector loops suffer from their 4 KiB aliasing
//! (a load waits for an earlier store whose address has the same low 12 bits). Measured on
//! an Intel Xeon VM (2026-11-29), an 18 KiB copy 4 bytes apart: `memcpy` 73 GB/s, 1 KiB
//! pieces 6.2 GB/s; 32 bytes apart 77 against 28 GB/s. So the pieces are used on AMD (and
//! Hygon, the same cores) only; everywhere else a copy is one `memcpy`, as in the reference.

use std::sync::atomic::{AtomicU8, Ordering};

/// Piece size for nearly aliased copies: under every glibc `rep movsb` threshold (at least
/// 2 KiB), and as fast as one call at any distance on AMD Zen 4 (measured).
const PIECE: usize = 1024;

/// From this length on, glibc copies with non-temporal stores instead (its threshold depends
/// on the cache size: between 512 KiB and 1 MiB here), which do not slow down, and run
/// faster than pieces (4 MiB: 46 against 28-31 GB/s, measured).
const LARGE: usize = 1 << 20;

/// Whether this processor's `rep movsb` slows down near aliasing: 0 not asked yet, 1 yes,
/// 2 no. Asked once; a race only asks twice.
static PIECES: AtomicU8 = AtomicU8::new(0);

/// Whether nearly aliased copies should go in pieces here (AMD and Hygon processors).
#[inline]
fn pieces_pay() -> bool {
    match PIECES.load(Ordering::Relaxed) {
        1 => true,
        2 => false,
        _ => {
            let yes = rep_movsb_slows_near_aliasing();
            PIECES.store(if yes { 1 } else { 2 }, Ordering::Relaxed);
            yes
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[cold]
fn rep_movsb_slows_near_aliasing() -> bool {
    // SAFETY: `cpuid` leaf 0 exists on every x86_64 processor and only reads registers.
    #[allow(unused_unsafe)]
    let id = unsafe { std::arch::x86_64::__cpuid(0) };
    let mut vendor = [0u8; 12];
    vendor[..4].copy_from_slice(&id.ebx.to_le_bytes());
    vendor[4..8].copy_from_slice(&id.edx.to_le_bytes());
    vendor[8..].copy_from_slice(&id.ecx.to_le_bytes());
    &vendor == b"AuthenticAMD" || &vendor == b"HygonGenuine"
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
    if len <= 2 * PIECE
        || len >= LARGE
        || distance == 0
        || distance >= 64
        || dest.len() != len
        || !pieces_pay()
    {
        // (A length mismatch panics here, as copy_from_slice does.)
        dest.copy_from_slice(src);
        return;
    }
    copy_in_pieces(dest, src);
}

/// The copy in `PIECE`-sized `memcpy` calls.
fn copy_in_pieces(dest: &mut [u8], src: &[u8]) {
    for (d, s) in dest.chunks_mut(PIECE).zip(src.chunks(PIECE)) {
        d.copy_from_slice(s);
    }
}

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

    /// Every length and distance copies the bytes exactly (pieces included).
    #[test]
    fn copies_at_every_distance() {
        let src: Vec<u8> = (0..20_000u32).map(|i| (i * 7 + i / 251) as u8).collect();
        let mut buf = vec![0u8; 8192 + 20_000 + 4096];
        for len in [0, 1, 2048, 2049, 5000, 20_000] {
            for shift in [0usize, 1, 4, 17, 63, 64, 100, 4095] {
                // Place the destination `shift` bytes past the source's page offset.
                let base = (buf.as_ptr() as usize) % 4096;
                let want = (src.as_ptr() as usize + shift) % 4096;
                let at = (want + 4096 - base) % 4096;
                for copy in [copy_bytes, copy_in_pieces] {
                    buf.iter_mut().for_each(|b| *b = 0xAA);
                    copy(&mut buf[at..at + len], &src[..len]);
                    assert_eq!(&buf[at..at + len], &src[..len], "len {len}, shift {shift}");
                    assert!(buf[..at].iter().all(|&b| b == 0xAA));
                    assert!(buf[at + len..].iter().all(|&b| b == 0xAA));
                }
            }
        }
    }
}
