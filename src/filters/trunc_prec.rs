//! Precision truncation of IEEE 754 floats (lossy; nothing to undo when decompressing).

use super::FilterError;

/// Zeroes low mantissa bits of every 4-byte (`f32`) or 8-byte (`f64`) element.
///
/// `prec_bits` follows the reference (it is the filter's meta byte read as `i8`):
/// * positive: keep that many mantissa bits (1 ..= 23 for `f32`, 1 ..= 52 for `f64`);
/// * negative: zero `-prec_bits` mantissa bits (at most 22 resp. 51).
///
/// Anything that would keep no mantissa bit (so that a NaN could turn into an infinity)
/// or ask for more bits than the mantissa has is refused, as the reference does.
/// Elements are read in native byte order, like the reference's integer casts.
///
/// The `len % typesize` trailing bytes are copied unchanged; the reference leaves them
/// unwritten (whatever the scratch buffer held), which is never what a caller wants.
///
/// # Errors
/// [`FilterError::UnsupportedTypesize`] unless `typesize` is 4 or 8,
/// [`FilterError::PrecisionOutOfRange`] for a bad `prec_bits`,
/// [`FilterError::LengthMismatch`] if the buffers differ in length.
pub fn trunc_prec(
    prec_bits: i8,
    typesize: usize,
    src: &[u8],
    dest: &mut [u8],
) -> Result<(), FilterError> {
    let mantissa: i32 = match typesize {
        4 => 23,
        8 => 52,
        _ => return Err(FilterError::UnsupportedTypesize(typesize)),
    };
    if src.len() != dest.len() {
        return Err(FilterError::LengthMismatch {
            src: src.len(),
            dest: dest.len(),
        });
    }
    let p = i32::from(prec_bits);
    let zeroed = if p >= 0 { mantissa - p } else { -p };
    if p.abs() > mantissa || zeroed >= mantissa {
        return Err(FilterError::PrecisionOutOfRange {
            prec_bits,
            typesize,
        });
    }
    let body = src.len() / typesize * typesize;
    if typesize == 4 {
        let mask = !((1u32 << zeroed) - 1);
        for (d, s) in dest[..body]
            .chunks_exact_mut(4)
            .zip(src[..body].chunks_exact(4))
        {
            let v = u32::from_ne_bytes(s.try_into().expect("4-byte element")) & mask;
            d.copy_from_slice(&v.to_ne_bytes());
        }
    } else {
        let mask = !((1u64 << zeroed) - 1);
        for (d, s) in dest[..body]
            .chunks_exact_mut(8)
            .zip(src[..body].chunks_exact(8))
        {
            let v = u64::from_ne_bytes(s.try_into().expect("8-byte element")) & mask;
            d.copy_from_slice(&v.to_ne_bytes());
        }
    }
    dest[body..].copy_from_slice(&src[body..]);
    Ok(())
}
