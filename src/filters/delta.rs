//! Delta filter: XOR of every block against the first block of its chunk.
//!
//! The reference works in *units* rather than elements: 1, 2, 4 or 8 bytes for those
//! type sizes, 8 bytes for any other multiple of 8 (so a 16-byte type is delta-coded as
//! two 8-byte halves) and single bytes for everything else. Since XOR acts byte by byte,
//! the unit only decides where the full-unit region ends and how far back the first block
//! looks:
//!
//! * first block (`offset == 0`): the first unit is the reference's own first unit, and
//!   every later unit is XORed with the *previous unit of the reference block*;
//! * other blocks: every unit is XORed with the unit at the same position of the
//!   reference block.
//!
//! Decoding the first block therefore runs a prefix XOR over it (the reference decodes it
//! in place, reading the units it has just restored).
//!
//! # Trailing bytes
//!
//! The reference never writes the `len % unit` bytes after the last full unit (they stay
//! whatever the scratch buffer held, so they are lost). Here the encoder copies them
//! verbatim and the decoder leaves them alone, so they round-trip; the full units are
//! encoded and decoded exactly as the reference does, so chunks written by the reference
//! decode identically on every full unit.

/// The delta unit the reference uses for `typesize` (0 counts as a multiple of 8).
#[inline]
fn unit(typesize: usize) -> usize {
    match typesize {
        1 | 2 | 4 | 8 => typesize,
        t if t % 8 == 0 => 8,
        _ => 1,
    }
}

/// Delta-encodes one block.
///
/// * `dref`: the chunk's first block *as given to the compressor* (the reference passes
///   the chunk source, not the output of earlier filters).
/// * `offset`: the byte offset of this block in the chunk; only `offset == 0` matters
///   (it marks the reference block itself).
/// * `src`: this block after the earlier filters of the pipeline; `dest`: same length.
///
/// # Panics
/// If `dest.len() != src.len()` or `dref` is shorter than `src` (the first block of a
/// chunk is never shorter than any other block).
pub fn delta_encode(dref: &[u8], offset: usize, src: &[u8], dest: &mut [u8], typesize: usize) {
    assert_eq!(src.len(), dest.len(), "delta_encode: length mismatch");
    assert!(
        dref.len() >= src.len(),
        "delta_encode: reference block too short"
    );
    let len = src.len();
    let u = unit(typesize);
    let full = len / u * u;
    let tail = if offset == 0 {
        let head = u.min(len);
        dest[..head].copy_from_slice(&dref[..head]);
        if full > u {
            xor_into(&mut dest[u..full], &src[u..full], &dref[..full - u]);
        }
        full.max(head)
    } else {
        xor_into(&mut dest[..full], &src[..full], &dref[..full]);
        full
    };
    dest[tail..].copy_from_slice(&src[tail..]);
}

/// Undoes [`delta_encode`] in place on one decoded block.
///
/// * `offset == 0`: `data` is the chunk's first block; `dref` is ignored (the reference
///   decodes this block against itself, in place) and may be empty.
/// * `offset != 0`: `dref` is the chunk's first block, already fully decoded.
///
/// # Panics
/// If `offset != 0` and `dref` is shorter than `data`.
pub fn delta_decode(dref: &[u8], offset: usize, data: &mut [u8], typesize: usize) {
    let len = data.len();
    let u = unit(typesize);
    let full = len / u * u;
    if offset == 0 {
        prefix_xor(&mut data[..full], u);
    } else {
        assert!(dref.len() >= len, "delta_decode: reference block too short");
        let d = &mut data[..full];
        let r = &dref[..full];
        for (x, y) in d.iter_mut().zip(r) {
            *x ^= *y;
        }
    }
}

/// Convenience form of [`delta_decode`] for a caller that decodes into the chunk buffer
/// (as the reference does): decodes `chunk[offset..offset + len]`, using `chunk[..len]`
/// as the reference block when `offset != 0`.
///
/// # Panics
/// If `offset + len > chunk.len()`, or `0 < offset < len` (the first block is never
/// shorter than the others, so a later block starts at or after its end).
pub fn delta_decode_chunk(chunk: &mut [u8], offset: usize, len: usize, typesize: usize) {
    if offset == 0 {
        delta_decode(&[], 0, &mut chunk[..len], typesize);
    } else {
        assert!(
            offset >= len,
            "delta_decode_chunk: block overlaps the reference block"
        );
        let (head, tail) = chunk.split_at_mut(offset);
        delta_decode(head, offset, &mut tail[..len], typesize);
    }
}

/// `dest = a ^ b`, all three the same length.
#[inline]
fn xor_into(dest: &mut [u8], a: &[u8], b: &[u8]) {
    for ((d, x), y) in dest.iter_mut().zip(a).zip(b) {
        *d = *x ^ *y;
    }
}

/// `data[i] ^= data[i - u]` for `i` from `u` upwards (each step reads the value just
/// restored), for a unit `u` in {1, 2, 4, 8}; `data.len()` is a multiple of `u`.
fn prefix_xor(data: &mut [u8], u: usize) {
    if data.len() <= u {
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if crate::filters::avx2_detected() && data.len() >= 32 {
        // SAFETY: AVX2 CPUs have SSSE3.
        let done = unsafe { ssse3::prefix_xor(data, u) };
        // The bytes after the last whole 16-byte group, each against the unit before it.
        for i in done..data.len() {
            data[i] ^= data[i - u];
        }
        return;
    }
    prefix_xor_words(data, u);
}

/// [`prefix_xor`] on 8-byte words: the units inside a word with log-steps, then the last
/// unit of the previous word folded in; the SIMD kernel's twin.
fn prefix_xor_words(data: &mut [u8], u: usize) {
    if data.len() <= u {
        return;
    }
    // Whole 8-byte words: prefix-XOR the units inside the word with log-steps, then fold
    // in the last unit of the previous word, replicated over the word.
    let words = data.len() / 8;
    let mut carry_unit: u64 = 0;
    let (unit_mask, shifts): (u64, &[u32]) = match u {
        1 => (0xFF, &[8, 16, 32]),
        2 => (0xFFFF, &[16, 32]),
        4 => (0xFFFF_FFFF, &[32]),
        _ => (u64::MAX, &[]),
    };
    let top = 64 - 8 * u as u32;
    for w in 0..words {
        let chunk = &mut data[8 * w..8 * w + 8];
        let mut x = u64::from_le_bytes(chunk.try_into().expect("8-byte chunk"));
        for &s in shifts {
            x ^= x << s;
        }
        x ^= replicate(carry_unit, u);
        carry_unit = (x >> top) & unit_mask;
        chunk.copy_from_slice(&x.to_le_bytes());
    }
    // Fewer than 8 bytes left (u < 8 here, as the length is a multiple of u).
    let rest = words * 8;
    let start = if rest == 0 { u } else { rest };
    for i in start..data.len() {
        data[i] ^= data[i - u];
    }
}

/// The first block's prefix XOR 16 bytes a step: log-steps inside the group (shifts by
/// `u`, `2u`, ... bytes), then the previous group's last unit, broadcast (`pshufb`), folded
/// in: two operations on the chain from one group to the next, where the word loop has a
/// shift, a multiply and a XOR per 8 bytes (the reference's loop, one unit at a time,
/// decoded an 18 KiB first block of 4-byte units twice as fast as that).
#[cfg(target_arch = "x86_64")]
mod ssse3 {
    use core::arch::x86_64::*;

    /// Does the whole 16-byte groups of `data` (unit `u` in {1, 2, 4, 8}) and returns how
    /// many bytes that was.
    ///
    /// # Safety
    /// The CPU must have SSSE3.
    #[target_feature(enable = "ssse3")]
    pub(super) unsafe fn prefix_xor(data: &mut [u8], u: usize) -> usize {
        let n = data.len() / 16;
        let p = data.as_mut_ptr();
        // Each arm: the prefix XOR within a group (`x` to `inside`), then the previous
        // groups' last unit folded in (`carry`); the next carry is this one with the group's
        // own last unit broadcast into it (`last`: its `pshufb` indices), so the chain from
        // group to group is one XOR, not an XOR and a shuffle.
        macro_rules! groups {
            ($last:expr, |$x:ident| $inside:expr) => {{
                let last = $last;
                let mut carry = _mm_setzero_si128();
                for g in 0..n {
                    // SAFETY: group `g` lies within `data`.
                    let $x = unsafe { _mm_loadu_si128(p.add(16 * g).cast()) };
                    let inside = $inside;
                    // SAFETY: as above.
                    unsafe { _mm_storeu_si128(p.add(16 * g).cast(), _mm_xor_si128(inside, carry)) };
                    carry = _mm_xor_si128(carry, _mm_shuffle_epi8(inside, last));
                }
            }};
        }
        match u {
            1 => groups!(_mm_set1_epi8(15), |x| {
                let x = _mm_xor_si128(x, _mm_slli_si128::<1>(x));
                let x = _mm_xor_si128(x, _mm_slli_si128::<2>(x));
                let x = _mm_xor_si128(x, _mm_slli_si128::<4>(x));
                _mm_xor_si128(x, _mm_slli_si128::<8>(x))
            }),
            2 => groups!(_mm_set1_epi16(0x0F0E), |x| {
                let x = _mm_xor_si128(x, _mm_slli_si128::<2>(x));
                let x = _mm_xor_si128(x, _mm_slli_si128::<4>(x));
                _mm_xor_si128(x, _mm_slli_si128::<8>(x))
            }),
            4 => groups!(_mm_set1_epi32(0x0F0E_0D0C), |x| {
                let x = _mm_xor_si128(x, _mm_slli_si128::<4>(x));
                _mm_xor_si128(x, _mm_slli_si128::<8>(x))
            }),
            _ => groups!(_mm_set1_epi64x(0x0F0E_0D0C_0B0A_0908), |x| _mm_xor_si128(x, _mm_slli_si128::<8>(x))),
        }
        16 * n
    }
}

/// Repeats the `u`-byte value `v` across a 64-bit word.
#[inline]
fn replicate(v: u64, u: usize) -> u64 {
    match u {
        1 => v * 0x0101_0101_0101_0101,
        2 => v * 0x0001_0001_0001_0001,
        4 => v * 0x0000_0001_0000_0001,
        _ => v,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The SIMD and word kernels restore what XORing each unit with the one before it,
    /// in order, restores, for every unit and lengths around the groups.
    #[test]
    fn prefix_xor_kernels_match_the_definition() {
        let mut rng = crate::test_rng::Rng::new(3);
        for u in [1usize, 2, 4, 8] {
            for units in (0..80).chain([511, 512, 513, 4659]) {
                let n = units * u;
                let mut src = vec![0u8; n];
                rng.fill(&mut src);
                let mut want = src.clone();
                for i in u..n {
                    want[i] ^= want[i - u];
                }
                let mut got = src.clone();
                prefix_xor(&mut got, u);
                assert_eq!(got, want, "u {u} n {n}");
                let mut words = src.clone();
                prefix_xor_words(&mut words, u);
                assert_eq!(words, want, "words: u {u} n {n}");
            }
        }
    }
}
