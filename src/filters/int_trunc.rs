//! Integer precision truncation, the reference's `BLOSC_FILTER_INT_TRUNC` plugin (id 36):
//! zero the low bits of every 1-, 2-, 4- or 8-byte unsigned integer. Lossy, so decoding is a
//! plain copy.
//!
//! `meta` is a signed count of bits: a positive value is how many bits to *keep*, a negative
//! one how many to *zero* (as in Python slicing). Zeroing every bit of the type (or more) is
//! refused, as the reference does.

/// Why a block cannot be truncated (the reference's filter returns -1 for both).
#[derive(Debug, PartialEq, Eq)]
pub enum IntTruncError {
    /// Only 1-, 2-, 4- and 8-byte items are integers here.
    Typesize(usize),
    /// The request would zero the whole item.
    TooManyBits(i8),
}

/// How many low bits to zero in a `bits`-bit integer for `meta`.
fn zeroed_bits(meta: u8, bits: u32) -> Result<u32, IntTruncError> {
    let prec = meta as i8;
    let zeroed = if prec >= 0 { bits as i32 - prec as i32 } else { -(prec as i32) };
    // A precision above the type's width would zero a negative number of bits: the
    // reference computes that in an unsigned byte, where it wraps to a refused count.
    if zeroed < 0 || zeroed >= bits as i32 {
        return Err(IntTruncError::TooManyBits(prec));
    }
    Ok(zeroed as u32)
}

/// Truncate `src` into `dest` (same length). Bytes after the last whole item are copied.
pub fn forward(typesize: usize, meta: u8, src: &[u8], dest: &mut [u8]) -> Result<(), IntTruncError> {
    assert_eq!(src.len(), dest.len(), "int_trunc: length mismatch");
    if !matches!(typesize, 1 | 2 | 4 | 8) {
        return Err(IntTruncError::Typesize(typesize));
    }
    let zeroed = zeroed_bits(meta, 8 * typesize as u32)?;
    // Items are little-endian integers; clearing the low `zeroed` bits of each is the same as
    // clearing them byte by byte with a per-byte mask pattern. The type size divides 8, so
    // the pattern repeated over 8 bytes masks whole words (which the compiler vectorizes).
    let item = (u64::MAX << zeroed).to_le_bytes();
    let pattern: [u8; 8] = std::array::from_fn(|i| item[i % typesize]);
    let word = u64::from_le_bytes(pattern);
    let full = src.len() / typesize * typesize;
    let words = full / 8 * 8;
    for (d, s) in dest[..words].chunks_exact_mut(8).zip(src[..words].chunks_exact(8)) {
        let v = u64::from_le_bytes(s.try_into().expect("8 bytes")) & word;
        d.copy_from_slice(&v.to_le_bytes());
    }
    for (i, (d, s)) in dest[words..full].iter_mut().zip(&src[words..full]).enumerate() {
        *d = s & pattern[i];
    }
    dest[full..].copy_from_slice(&src[full..]);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_or_zeroes_bits() {
        let src: Vec<u8> = 0xABCD_EF01_2345_6789u64.to_le_bytes().repeat(3);
        let mut out = vec![0u8; src.len()];
        // Keep 12 of 16 bits: zero 4.
        forward(2, 12, &src, &mut out).unwrap();
        for (o, s) in out.chunks(2).zip(src.chunks(2)) {
            assert_eq!(u16::from_le_bytes([o[0], o[1]]), u16::from_le_bytes([s[0], s[1]]) & 0xFFF0);
        }
        // Zero 20 low bits of each u32 (meta -20).
        forward(4, (-20i8) as u8, &src, &mut out).unwrap();
        for (o, s) in out.chunks(4).zip(src.chunks(4)) {
            let (o, s) = (u32::from_le_bytes(o.try_into().unwrap()), u32::from_le_bytes(s.try_into().unwrap()));
            assert_eq!(o, s & !0xF_FFFF);
        }
        // Keep all 64 bits: unchanged.
        forward(8, 64, &src, &mut out).unwrap();
        assert_eq!(out, src);
    }

    /// Whole words and the items after the last one are masked alike, for every type size
    /// and length (the per-byte rule is the reference).
    #[test]
    fn words_and_rest_mask_like_bytes() {
        let src: Vec<u8> = (0..203u32).map(|i| (i * 37 + 11) as u8).collect();
        for ts in [1usize, 2, 4, 8] {
            for zero in 1..(8 * ts as i32) {
                let meta = (-zero) as i8 as u8;
                let mask = (u64::MAX << zero).to_le_bytes();
                for n in [0usize, 1, 7, 8, 9, 15, 16, 17, 24, 31, 200, 203] {
                    let mut out = vec![0x5Au8; n];
                    forward(ts, meta, &src[..n], &mut out).unwrap();
                    let full = n / ts * ts;
                    let want: Vec<u8> = (0..n).map(|i| if i < full { src[i] & mask[i % ts] } else { src[i] }).collect();
                    assert_eq!(out, want, "ts {ts} zero {zero} n {n}");
                }
            }
        }
    }

    #[test]
    fn tail_is_copied() {
        let src = [0xFFu8; 11];
        let mut out = [0u8; 11];
        forward(4, 4, &src, &mut out).unwrap();
        assert_eq!(&out[..8], &[0, 0, 0, 0xF0, 0, 0, 0, 0xF0]);
        assert_eq!(&out[8..], &[0xFF; 3]);
    }

    #[test]
    fn refuses_what_the_reference_refuses() {
        let src = [1u8; 8];
        let mut out = [0u8; 8];
        assert_eq!(forward(3, 4, &src[..6], &mut out[..6]), Err(IntTruncError::Typesize(3)));
        assert_eq!(forward(1, 0, &src, &mut out), Err(IntTruncError::TooManyBits(0)));
        assert_eq!(forward(1, 9, &src, &mut out), Err(IntTruncError::TooManyBits(9)));
        assert_eq!(forward(2, (-16i8) as u8, &src, &mut out), Err(IntTruncError::TooManyBits(-16)));
        assert!(forward(2, (-15i8) as u8, &src, &mut out).is_ok());
        assert_eq!(out, [0u8; 8], "0x0101 keeps only its top bit, which is clear");
    }
}
