//! Byte shuffle: a transpose of the `n x typesize` byte matrix of a block.
//!
//! The dispatchers below run the widest available SIMD kernel on as many whole vector
//! groups of elements as it can, then finish the remaining elements with the scalar code,
//! then copy the trailing `len % typesize` bytes. All kernels compute the same transpose,
//! so the output does not depend on the instruction set.

use crate::copy::copy_bytes;
use super::Isa;

/// Elements per cache block of the scalar loops, given the type size: keeps the source
/// slice of one block (read once per output row) around 16 KiB, well inside L1.
#[inline]
fn scalar_block(typesize: usize) -> usize {
    (16384 / typesize).max(16)
}

/// The whole `typesize`-byte elements in `len` bytes (`typesize >= 1`), power-of-two sizes
/// by a shift: a division's latency delayed every step of the unshuffle after it.
#[inline(always)]
fn whole_elements(len: usize, typesize: usize) -> usize {
    if typesize.is_power_of_two() {
        len >> typesize.trailing_zeros()
    } else {
        len / typesize
    }
}

pub(crate) fn shuffle_with(isa: Isa, typesize: usize, src: &[u8], dest: &mut [u8]) {
    assert_eq!(
        src.len(),
        dest.len(),
        "shuffle: source and destination lengths differ"
    );
    if typesize <= 1 {
        copy_bytes(dest, src);
        return;
    }
    let n = whole_elements(src.len(), typesize);
    let body = n * typesize;
    let peel = shuffle_peel(isa, typesize, n, dest.as_ptr() as usize);
    let whole = peel == 0 && simd_shuffle_block(isa, typesize, n, src, dest);
    if !whole {
        shuffle_scalar_range(typesize, n, src, dest, 0, peel);
        let start = simd_shuffle(isa, typesize, n, src, dest, peel);
        let tail_done = start > peel
            && simd_tail(n, start).is_some_and(|from| simd_shuffle(isa, typesize, n, src, dest, from) == n);
        if !tail_done {
            shuffle_scalar(typesize, n, src, dest, start);
        }
    }
    if body < dest.len() {
        dest[body..].copy_from_slice(&src[body..]);
    }
}

/// [`unshuffle_with`] for the commonest blocks, or false (nothing done): fewer bytes than
/// the peel threshold (so no peel), at least one step of the level's kernel, and either a
/// whole number of 2-, 4-, 8- or 16-byte items or items above 16 bytes (the tiled kernel,
/// the bytes past the last whole item copied). Inlined into the caller down to the
/// kernel: through the general path's layers (the division, the peel, the jump on the
/// level, three calls), the exported `blosc2_unshuffle` of 64 bytes took 14 ns against the
/// reference's 5, and of 8 KiB 0.90x its speed (AMD Zen 4).
#[inline(always)]
pub(crate) fn unshuffle_small(isa: Isa, typesize: usize, src: &[u8], dest: &mut [u8]) -> bool {
    let len = src.len();
    if len >= PEEL_FROM || len != dest.len() {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    {
        if typesize > 16 && matches!(isa, Isa::Avx2 | Isa::Avx512) {
            // The tiled kernel (both levels run AVX2's), then the bytes past the last
            // whole element.
            let n = len / typesize;
            let body = n * typesize;
            if !super::shuffle_avx2::unshuffle_tiled_block(typesize, n, src, dest) {
                return false;
            }
            dest[body..].copy_from_slice(&src[body..]);
            return true;
        }
        if !matches!(typesize, 2 | 4 | 8 | 16) || len & (typesize - 1) != 0 {
            return false;
        }
        let n = len >> typesize.trailing_zeros();
        match isa {
            Isa::Avx512 => super::shuffle_avx512::unshuffle_block(typesize, n, 0, src, dest),
            Isa::Avx2 => super::shuffle_avx2::unshuffle_pow2_whole(typesize, n, 0, src, dest),
            Isa::Sse2 | Isa::Scalar | Isa::Neon => false,
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (isa, typesize, src, dest);
        false
    }
}

pub(crate) fn unshuffle_with(isa: Isa, typesize: usize, src: &[u8], dest: &mut [u8]) {
    assert_eq!(
        src.len(),
        dest.len(),
        "unshuffle: source and destination lengths differ"
    );
    if typesize <= 1 {
        copy_bytes(dest, src);
        return;
    }
    let n = whole_elements(src.len(), typesize);
    let body = n * typesize;
    let peel = unshuffle_peel(isa, typesize, n, dest.as_ptr() as usize);
    let whole = simd_unshuffle_block(isa, typesize, n, peel, src, dest);
    if !whole {
        unshuffle_by_rows(isa, typesize, n, src, &mut dest[..body]);
    }
    if body < dest.len() {
        dest[body..].copy_from_slice(&src[body..]);
    }
}

/// The general path of [`unshuffle_with`], kept out of line: its row array (4 KiB for
/// the larger type sizes) would otherwise give the whole-block path a stack probe and a
/// frame it does not need.
#[inline(never)]
fn unshuffle_by_rows(isa: Isa, typesize: usize, n: usize, src: &[u8], dest: &mut [u8]) {
    with_rows(typesize, n, src, |rows| unshuffle_rows_with(isa, rows, n, dest));
}

/// Row slices of a shuffled buffer: row `j` is `src[j * n..(j + 1) * n]`. The pipeline's
/// type sizes (up to 255) keep them on the stack, in an array no larger than needed (a
/// 256-entry array costs small blocks its 4 KiB of initialisation: a fifth of the time
/// of an 8 KiB unshuffle of 32-byte items); only the exported function's larger type
/// sizes allocate.
fn with_rows<R>(typesize: usize, n: usize, src: &[u8], f: impl FnOnce(&[&[u8]]) -> R) -> R {
    fn on_stack<const N: usize, R>(
        typesize: usize,
        n: usize,
        src: &[u8],
        f: impl FnOnce(&[&[u8]]) -> R,
    ) -> R {
        let mut rows: [&[u8]; N] = [&[]; N];
        for (j, r) in rows[..typesize].iter_mut().enumerate() {
            *r = &src[j * n..(j + 1) * n];
        }
        f(&rows[..typesize])
    }
    match typesize {
        0..=16 => on_stack::<16, R>(typesize, n, src, f),
        17..=32 => on_stack::<32, R>(typesize, n, src, f),
        33..=64 => on_stack::<64, R>(typesize, n, src, f),
        65..=256 => on_stack::<256, R>(typesize, n, src, f),
        _ => f(&(0..typesize).map(|j| &src[j * n..(j + 1) * n]).collect::<Vec<_>>()),
    }
}

/// Unshuffle from rows that need not be adjacent: byte `j` of element `i` is `rows[j][i]`
/// (every row at least `n` bytes long, `rows.len() >= 2`) and `dest` receives the `n`
/// elements of `rows.len()` bytes. The decompressor passes rows that a block stores
/// uncompressed straight from the chunk, where each is preceded by its 4-byte size,
/// instead of first copying them next to the decoded ones.
pub(crate) fn unshuffle_rows_with(isa: Isa, rows: &[&[u8]], n: usize, dest: &mut [u8]) {
    let typesize = rows.len();
    assert!(typesize >= 2, "unshuffle: fewer than two rows");
    assert!(rows.iter().all(|r| r.len() >= n), "unshuffle: a row is shorter than n");
    assert_eq!(dest.len(), n * typesize, "unshuffle: destination is not n elements");
    let peel = unshuffle_peel(isa, typesize, n, dest.as_ptr() as usize);
    let start = simd_unshuffle(isa, rows, n, dest, peel);
    if start == peel {
        // No kernel for this type size or length.
        unshuffle_scalar_range(rows, n, dest, 0, n);
        return;
    }
    if !unshuffle_head(isa, rows, n, dest, peel) {
        unshuffle_scalar_range(rows, n, dest, 0, peel);
    }
    if start < n
        && simd_tail(n, start).is_none_or(|from| simd_unshuffle(isa, rows, n, dest, from) < n)
    {
        unshuffle_scalar_range(rows, n, dest, start, n);
    }
}

/// Where one more kernel call should start to finish the elements `start..n` the aligned
/// run left: the whole steps of 16 elements that end at `n`, rewriting some elements of
/// the run with the same bytes. That is cheaper than the scalar loop, which took about a
/// tenth of the unshuffle of an 18 KiB block of 4-byte items (callgrind). `None` when
/// nothing is left or there are too few elements.
fn simd_tail(n: usize, start: usize) -> Option<usize> {
    let len = n.checked_sub(start).filter(|&l| l > 0)?.next_multiple_of(16);
    n.checked_sub(len)
}

/// Unshuffles the `peel` elements the aligned run left at the head with one kernel call
/// over the whole steps of 16 elements that start at 0 (rewriting some elements of the run
/// with the same bytes). Returns false when that is not possible (rows of more than 16
/// bytes, too few elements, no kernel), leaving them to the scalar loop.
fn unshuffle_head(isa: Isa, rows: &[&[u8]], n: usize, dest: &mut [u8], peel: usize) -> bool {
    if peel == 0 {
        return true;
    }
    let ts = rows.len();
    let len = peel.next_multiple_of(16);
    if ts > 16 || len > n {
        return false;
    }
    let mut window: [&[u8]; 16] = [&[]; 16];
    for (w, r) in window.iter_mut().zip(rows) {
        *w = &r[..len];
    }
    simd_unshuffle(isa, &window[..ts], len, &mut dest[..len * ts], 0) == len
}

/// Zeros standing in for the rows [`unshuffle_zero_high_with`] is not given, a piece at a
/// time, where no kernel of its own handles the type size (4 KiB: read again for every
/// piece, it stays in L1).
static ZERO_ROW: [u8; 4096] = [0; 4096];

/// Unshuffle of elements whose high bytes are zero: `rows` holds the low `rows.len()`
/// rows of `typesize`-byte elements, bytes `rows.len()..typesize` of every element are 0.
/// No row of zeros has to exist, so a decoder that learns from a block's stream sizes that
/// its high streams are zeros (small integers in wide types: the int64 ramp has five of
/// eight) writes none of them, and the AVX2 kernels widen the low bytes with zero-extending
/// moves instead of interleaving zeros (a quarter to a half fewer shuffle operations).
pub(crate) fn unshuffle_zero_high_with(
    isa: Isa,
    rows: &[&[u8]],
    typesize: usize,
    n: usize,
    dest: &mut [u8],
) {
    let live = rows.len();
    assert!(live < typesize && typesize <= 16, "unshuffle: {live} of {typesize} rows");
    assert!(rows.iter().all(|r| r.len() >= n), "unshuffle: a row is shorter than n");
    assert_eq!(dest.len(), n * typesize, "unshuffle: destination is not n elements");
    if live == 0 {
        dest.fill(0);
        return;
    }
    let peel = widen_peel(isa, typesize, n, dest.as_ptr() as usize);
    let end = simd_unshuffle_zero_high(isa, rows, typesize, n, dest, peel);
    if end == peel {
        unshuffle_zero_high_pieces(isa, rows, typesize, dest, 0, n);
    } else {
        unshuffle_zero_high_pieces(isa, rows, typesize, dest, 0, peel);
        unshuffle_zero_high_pieces(isa, rows, typesize, dest, end, n);
    }
}

/// Elements `start..end` through the general kernels, the missing rows read from
/// [`ZERO_ROW`] one piece of at most its length at a time.
fn unshuffle_zero_high_pieces(
    isa: Isa,
    rows: &[&[u8]],
    ts: usize,
    dest: &mut [u8],
    start: usize,
    end: usize,
) {
    let mut i0 = start;
    while i0 < end {
        let i1 = end.min(i0 + ZERO_ROW.len());
        let mut full: [&[u8]; 16] = [&[]; 16];
        for (j, r) in full[..ts].iter_mut().enumerate() {
            *r = match rows.get(j) {
                Some(row) => &row[i0..i1],
                None => &ZERO_ROW[..i1 - i0],
            };
        }
        unshuffle_rows_with(isa, &full[..ts], i1 - i0, &mut dest[i0 * ts..i1 * ts]);
        i0 = i1;
    }
}

/// The zero-extending SIMD kernel of `isa` for `typesize`, on elements `from..`; returns
/// where it stopped (`from` when there is none).
#[inline]
fn simd_unshuffle_zero_high(
    isa: Isa,
    rows: &[&[u8]],
    typesize: usize,
    n: usize,
    dest: &mut [u8],
    from: usize,
) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        match isa {
            Isa::Avx512 => {
                let start = super::shuffle_avx512::unshuffle_zero_high(rows, typesize, n, dest, from);
                if start > from {
                    return start;
                }
                super::shuffle_avx2::unshuffle_zero_high(rows, typesize, n, dest, from)
            }
            Isa::Avx2 => super::shuffle_avx2::unshuffle_zero_high(rows, typesize, n, dest, from),
            Isa::Sse2 | Isa::Scalar | Isa::Neon => from,
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (isa, rows, typesize, n, dest);
        from
    }
}

/// The store width the SIMD kernels of `isa` write with, when lining their stores up on
/// it pays (x86: a vector store that straddles two cache lines costs about as much as
/// two, and the kernels are store-bound on blocks that miss L1). `None` elsewhere.
fn store_align(isa: Isa) -> Option<usize> {
    match isa {
        Isa::Avx2 | Isa::Avx512 => Some(32),
        Isa::Sse2 => Some(16),
        Isa::Scalar | Isa::Neon => None,
    }
}

/// Leading elements for the scalar code so that the shuffle kernels' row stores (at
/// `dest + j * n + i`) start on a store-width boundary: possible when `n` is a multiple
/// of that width, which block sizes nearly always are. Measured on 32 KiB blocks of
/// 2-byte items with the destination 16 bytes off: 28 GB/s without, 53 GB/s with.
///
/// The AVX2 kernels for type sizes up to 8 store two vectors per row and step, so they
/// line rows up on whole cache lines (64 bytes): rows 32 bytes off a line ran at two
/// thirds of the speed of line-aligned rows (32 KiB blocks of 2-byte items).
///
/// Not for 16-byte items on AVX-512, whose kernel (`shuffle_avx512::shuffle16_block`)
/// takes whole unpeeled blocks only: 32 KiB blocks 16 and 48 bytes off a line shuffled at
/// 0.99x the reference through the peeled AVX2 path, 1.29-1.31x unpeeled (Zen 5).
fn shuffle_peel(isa: Isa, ts: usize, n: usize, dest_addr: usize) -> usize {
    if isa == Isa::Avx512 && ts == 16 {
        return 0;
    }
    let a = match store_align(isa) {
        Some(32) if ts <= 8 => 64,
        Some(a) => a,
        None => return 0,
    };
    if ts > 16 || n % a != 0 || n * ts < PEEL_FROM {
        return 0;
    }
    (a - dest_addr % a) % a
}

/// Blocks below this size stay in L1, where the stores cost little and the source loads
/// the peel misaligns cost more (8 KiB blocks of 8- and 16-byte items: 25% slower
/// peeled).
pub(super) const PEEL_FROM: usize = 16384;

/// Leading elements for the scalar code so that the unshuffle kernels' element stores
/// (at `dest + i * ts`) start on a store-width boundary, for the power-of-two type sizes
/// whose kernels store whole vectors of elements. Measured on 32 KiB blocks of 2-byte
/// items with the destination 16 bytes off: 40 GB/s without, 53 GB/s with.
///
/// The AVX-512 byte kernels peel to 64 bytes on Intel only. On AMD they ran as fast or
/// faster on unaligned destinations (Zen 5, 32 KiB blocks 16 to 48 bytes off a line:
/// 0.94-1.36x the reference unpeeled, 0.86-1.16x peeled; 256 KiB blocks within a few per
/// cent), and an unpeeled block of whole steps takes the shorter whole-block path. On
/// Intel a 64-byte store across two lines costs more: 2-byte items (the one size Intel
/// CPUs unshuffle with AVX-512, see `Isa::for_unshuffle`) 16 or 48 bytes off a line, 32
/// and 256 KiB, read 0.93x the reference unpeeled and 1.19-1.25x peeled.
fn unshuffle_peel(isa: Isa, ts: usize, n: usize, dest_addr: usize) -> usize {
    if isa == Isa::Avx512 {
        return if super::intel() { peel_to(Some(64), ts, n, dest_addr) } else { 0 };
    }
    peel_to(store_align(isa), ts, n, dest_addr)
}

/// The peel of the zero-extending kernels, whose AVX-512 shapes store whole 64-byte lines
/// and keep it.
fn widen_peel(isa: Isa, ts: usize, n: usize, dest_addr: usize) -> usize {
    let align = if isa == Isa::Avx512 { Some(64) } else { store_align(isa) };
    peel_to(align, ts, n, dest_addr)
}

/// Elements of `ts` bytes before `dest_addr + i * ts` is a multiple of `align`.
fn peel_to(align: Option<usize>, ts: usize, n: usize, dest_addr: usize) -> usize {
    let Some(a) = align else {
        return 0;
    };
    if !matches!(ts, 2 | 4 | 8 | 16) || n * ts < PEEL_FROM || dest_addr % ts != 0 {
        return 0;
    }
    (a - dest_addr % a) % a / ts
}

/// Runs the SIMD kernels of `isa` on a prefix of the elements; returns where the scalar
/// code must take over.
#[inline]
fn simd_shuffle(isa: Isa, typesize: usize, n: usize, src: &[u8], dest: &mut [u8], from: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        match isa {
            Isa::Avx2 | Isa::Avx512 => {
                let start = super::shuffle_avx2::shuffle(typesize, n, src, dest, from);
                super::shuffle_sse2::shuffle(typesize, n, src, dest, start)
            }
            Isa::Sse2 => super::shuffle_sse2::shuffle(typesize, n, src, dest, from),
            Isa::Scalar | Isa::Neon => from,
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        match isa {
            Isa::Neon => super::shuffle_neon::shuffle(typesize, n, src, dest, from),
            _ => from,
        }
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        let _ = (isa, typesize, n, src, dest);
        from
    }
}

/// The start of each of the first `S` rows (the caller has checked there are `S`).
#[inline(always)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // Used by the x86 kernels.
pub(super) fn row_ptrs<const S: usize>(rows: &[&[u8]]) -> [*const u8; S] {
    core::array::from_fn(|j| rows[j].as_ptr())
}

/// The starts of `S` rows of `n` bytes laid end to end from `base` (pointer arithmetic
/// only: the caller has checked that `S * n` bytes are there).
#[inline(always)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // Used by the x86 kernels.
pub(super) fn strided_ptrs<const S: usize>(base: *const u8, n: usize) -> [*const u8; S] {
    core::array::from_fn(|j| base.wrapping_add(j * n))
}

/// The whole-block shuffle kernel of `isa` (see `shuffle_avx2::shuffle_block`); false
/// when nothing was done.
#[inline]
fn simd_shuffle_block(isa: Isa, typesize: usize, n: usize, src: &[u8], dest: &mut [u8]) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        match isa {
            Isa::Avx512 => {
                (typesize == 16
                    && super::shuffle_avx512::shuffle16_block(n, src, dest, super::shuffle_avx2::staged(16, n)))
                    || super::shuffle_avx2::shuffle_block(typesize, n, src, dest)
            }
            Isa::Avx2 => super::shuffle_avx2::shuffle_block(typesize, n, src, dest),
            Isa::Sse2 | Isa::Scalar | Isa::Neon => false,
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (isa, typesize, n, src, dest);
        false
    }
}

/// The whole-block SIMD kernel of `isa` on all `n` elements of a contiguous shuffled
/// block, when its shape allows (see `shuffle_avx512::unshuffle_block`); false when
/// nothing was done.
#[inline]
fn simd_unshuffle_block(isa: Isa, typesize: usize, n: usize, peel: usize, src: &[u8], dest: &mut [u8]) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        match isa {
            // The tiled kernel of type sizes above 16 is AVX2's at both levels (and has
            // no peel).
            Isa::Avx512 if typesize > 16 => super::shuffle_avx2::unshuffle_block(typesize, n, 0, src, dest),
            Isa::Avx512 => super::shuffle_avx512::unshuffle_block(typesize, n, peel, src, dest),
            Isa::Avx2 => super::shuffle_avx2::unshuffle_block(typesize, n, peel, src, dest),
            Isa::Sse2 | Isa::Scalar | Isa::Neon => false,
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (isa, typesize, n, peel, src, dest);
        false
    }
}

/// The element spans a whole-block kernel of `step` elements per step runs over to cover
/// all `n` elements with its stores aligned from element `peel` on: the aligned run of
/// whole steps, then one step over the first elements if there was a peel and one over
/// the last if the run stops short of `n`, both rewriting some of the run's elements
/// with the same bytes. Empty spans are `(0, 0)`. `None` when `n` is below `peel + step`.
///
/// Taking a block this way rather than through the row slices of the general path saves
/// that path's setup (about 400 instructions per call), which cost the 18 KiB rainfall
/// chunk's 4-byte items 0.87-0.92x the reference on AMD Zen 4.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // Used by the x86 kernels.
pub(super) fn block_spans(n: usize, peel: usize, step: usize) -> Option<[(usize, usize); 3]> {
    if n < peel + step {
        return None;
    }
    let run_end = peel + (n - peel) / step * step;
    let head = if peel > 0 { (0, step) } else { (0, 0) };
    let tail = if run_end < n { (n - step, n) } else { (0, 0) };
    Some([(peel, run_end), head, tail])
}

#[inline]
fn simd_unshuffle(isa: Isa, rows: &[&[u8]], n: usize, dest: &mut [u8], from: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        match isa {
            // Each narrower kernel only takes what the wider one left; the calls are
            // skipped once nothing is (their checks were a tenth of the time of an 8 KiB
            // unshuffle).
            Isa::Avx512 => {
                let start = super::shuffle_avx512::unshuffle(rows, n, dest, from);
                if start == n {
                    return n;
                }
                let start = super::shuffle_avx2::unshuffle(rows, n, dest, start);
                if start == n {
                    return n;
                }
                super::shuffle_sse2::unshuffle(rows, n, dest, start)
            }
            Isa::Avx2 => {
                let start = super::shuffle_avx2::unshuffle(rows, n, dest, from);
                if start == n {
                    return n;
                }
                super::shuffle_sse2::unshuffle(rows, n, dest, start)
            }
            Isa::Sse2 => super::shuffle_sse2::unshuffle(rows, n, dest, from),
            Isa::Scalar | Isa::Neon => from,
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        match isa {
            Isa::Neon => super::shuffle_neon::unshuffle(rows, n, dest, from),
            _ => from,
        }
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        let _ = (isa, rows, n, dest);
        from
    }
}

/// The elements `start..end` a SIMD kernel that works `group` elements at a time takes:
/// whole groups only, and only for the type sizes the kernels handle (2, 4, 8, or 16 and
/// up). `None` when that is nothing.
#[inline]
pub(super) fn simd_span(ts: usize, n: usize, start: usize, group: usize) -> Option<usize> {
    let end = start + n.saturating_sub(start) / group * group;
    (end > start && (ts == 2 || ts == 4 || ts == 8 || ts >= 16)).then_some(end)
}

/// Byte offsets of the 16-byte column slices that cover an element of `ts >= 16` bytes,
/// for the tiled SIMD kernels: every 16 bytes, the last slice ending at `ts` (overlapping
/// the one before when 16 does not divide `ts`; overlapping stores write equal bytes).
#[inline(always)]
pub(super) fn tile_columns(ts: usize) -> impl Iterator<Item = usize> {
    let last = ts - 16;
    (0..ts).step_by(16).map(move |c| c.min(last))
}

/// Scalar shuffle of elements `start..n` (whole elements only).
pub(crate) fn shuffle_scalar(typesize: usize, n: usize, src: &[u8], dest: &mut [u8], start: usize) {
    shuffle_scalar_range(typesize, n, src, dest, start, n);
}

/// Scalar shuffle of elements `start..end` of `n`.
fn shuffle_scalar_range(typesize: usize, n: usize, src: &[u8], dest: &mut [u8], start: usize, end: usize) {
    let end = end.min(n);
    if start >= end {
        return;
    }
    macro_rules! fixed {
        ($($ts:literal)*) => {
            match typesize {
                $($ts => shuffle_fixed::<$ts>(n, src, dest, start, end),)*
                _ => shuffle_dyn(typesize, n, src, dest, start, end),
            }
        };
    }
    fixed!(2 3 4 5 6 7 8 9 10 11 12 13 14 15 16);
}

/// Scalar unshuffle of elements `start..end` of `n` (see [`unshuffle_rows_with`]).
fn unshuffle_scalar_range(rows: &[&[u8]], n: usize, dest: &mut [u8], start: usize, end: usize) {
    let end = end.min(n);
    if start >= end {
        return;
    }
    macro_rules! fixed {
        ($($ts:literal)*) => {
            match rows.len() {
                $($ts => unshuffle_fixed::<$ts>(rows, dest, start, end),)*
                _ => unshuffle_dyn(rows, dest, start, end),
            }
        };
    }
    fixed!(2 3 4 5 6 7 8 9 10 11 12 13 14 15 16);
}

/// Small type sizes get a monomorphised loop so the per-element byte gather is unrolled.
fn shuffle_fixed<const TS: usize>(n: usize, src: &[u8], dest: &mut [u8], start: usize, end: usize) {
    let block = scalar_block(TS);
    let mut i0 = start;
    while i0 < end {
        let i1 = (i0 + block).min(end);
        let elems = &src[i0 * TS..i1 * TS];
        for j in 0..TS {
            let row = &mut dest[j * n + i0..j * n + i1];
            for (d, e) in row.iter_mut().zip(elems.chunks_exact(TS)) {
                *d = e[j];
            }
        }
        i0 = i1;
    }
}

fn unshuffle_fixed<const TS: usize>(rows: &[&[u8]], dest: &mut [u8], start: usize, end: usize) {
    let block = scalar_block(TS);
    let mut i0 = start;
    while i0 < end {
        let i1 = (i0 + block).min(end);
        let elems = &mut dest[i0 * TS..i1 * TS];
        for j in 0..TS {
            for (e, &b) in elems.chunks_exact_mut(TS).zip(&rows[j][i0..i1]) {
                e[j] = b;
            }
        }
        i0 = i1;
    }
}

fn shuffle_dyn(ts: usize, n: usize, src: &[u8], dest: &mut [u8], start: usize, end: usize) {
    let block = scalar_block(ts);
    let mut i0 = start;
    while i0 < end {
        let i1 = (i0 + block).min(end);
        let elems = &src[i0 * ts..i1 * ts];
        for j in 0..ts {
            let row = &mut dest[j * n + i0..j * n + i1];
            for (d, e) in row.iter_mut().zip(elems.chunks_exact(ts)) {
                *d = e[j];
            }
        }
        i0 = i1;
    }
}

fn unshuffle_dyn(rows: &[&[u8]], dest: &mut [u8], start: usize, end: usize) {
    let ts = rows.len();
    let block = scalar_block(ts);
    let mut i0 = start;
    while i0 < end {
        let i1 = (i0 + block).min(end);
        let elems = &mut dest[i0 * ts..i1 * ts];
        for (j, row) in rows.iter().enumerate() {
            for (e, &b) in elems.chunks_exact_mut(ts).zip(&row[i0..i1]) {
                e[j] = b;
            }
        }
        i0 = i1;
    }
}
