//! A decoder for raw Snappy streams, used only to read chunks written by c-blosc 1.x with the
//! snappy codec (format code 2), which c-blosc2 itself can no longer decode.
//!
//! Written here instead of linking libsnappy: it is ~100 lines, bounds-checked on every read
//! and write, and spares the library a C++ runtime dependency. It is tested against the real
//! libsnappy (snappy-sys dev-dependency).

/// The largest stream Snappy may write for `n` input bytes (libsnappy's
/// `snappy_max_compressed_length`): c-blosc 1.x gives the codec that much room.
pub fn max_compressed_len(n: usize) -> usize {
    32 + n + n / 6
}

/// Compress with the system libsnappy (only in builds with the `snappy-compress` feature,
/// which the c-blosc 1.x face enables: c-blosc 1.x writes snappy chunks, and the same bytes
/// as its own build need the same library). Returns 0 when libsnappy refuses, which it does
/// whenever `dest` is smaller than [`max_compressed_len`] of the input.
#[cfg(feature = "snappy-compress")]
pub fn compress(src: &[u8], dest: &mut [u8]) -> usize {
    let mut len: libc::size_t = dest.len();
    // SAFETY: libsnappy reads `src.len()` bytes of `src` and writes at most `len` (the length
    // of `dest`) bytes into `dest`, reporting how many in `len`.
    let status = unsafe {
        snappy_sys::snappy_compress(src.as_ptr(), src.len(), dest.as_mut_ptr(), &mut len)
    };
    if status != 0 || len > dest.len() {
        return 0;
    }
    len
}

/// Decode with the system libsnappy (builds with `snappy-compress`): same contract as
/// [`decompress`]. libsnappy validates its input (it is meant for untrusted data).
#[cfg(feature = "snappy-compress")]
pub fn decompress_with_libsnappy(src: &[u8], dest: &mut [u8]) -> Option<usize> {
    let mut len: libc::size_t = dest.len();
    // SAFETY: libsnappy reads `src.len()` bytes of `src` and writes at most `len` (the length
    // of `dest`) bytes into `dest`, refusing a stream that would need more.
    let status = unsafe {
        snappy_sys::snappy_uncompress(src.as_ptr(), src.len(), dest.as_mut_ptr(), &mut len)
    };
    (status == 0 && len <= dest.len()).then_some(len)
}

/// Decode a raw Snappy stream into `dest`. Returns the decoded length, which is the length the
/// stream's preamble announces; `None` on any malformed input or if it exceeds `dest`.
pub fn decompress(src: &[u8], dest: &mut [u8]) -> Option<usize> {
    let (total, mut ip) = read_varint(src)?;
    let total = usize::try_from(total).ok()?;
    if total > dest.len() {
        return None;
    }
    let out = &mut dest[..total];
    let mut op = 0usize;
    while ip < src.len() {
        let tag = src[ip];
        ip += 1;
        match tag & 3 {
            0 => {
                let mut len = (tag >> 2) as usize;
                if len >= 60 {
                    let extra = len - 59;
                    let bytes = src.get(ip..ip + extra)?;
                    len = bytes.iter().rev().fold(0usize, |acc, &b| (acc << 8) | b as usize);
                    ip += extra;
                }
                let len = len + 1;
                let lit = src.get(ip..ip.checked_add(len)?)?;
                out.get_mut(op..op + len)?.copy_from_slice(lit);
                ip += len;
                op += len;
            }
            kind => {
                let (len, offset) = match kind {
                    1 => {
                        let b = *src.get(ip)? as usize;
                        ip += 1;
                        (4 + ((tag >> 2) & 7) as usize, (((tag >> 5) as usize) << 8) | b)
                    }
                    2 => {
                        let b = src.get(ip..ip + 2)?;
                        ip += 2;
                        ((tag >> 2) as usize + 1, u16::from_le_bytes([b[0], b[1]]) as usize)
                    }
                    _ => {
                        let b = src.get(ip..ip + 4)?;
                        ip += 4;
                        let off = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize;
                        ((tag >> 2) as usize + 1, off)
                    }
                };
                if offset == 0 || offset > op || op + len > out.len() {
                    return None;
                }
                copy_match(out, op, offset, len);
                op += len;
            }
        }
    }
    (op == total).then_some(total)
}

/// Copy `len` bytes from `op - offset` to `op`; overlapping copies repeat the pattern.
fn copy_match(out: &mut [u8], op: usize, offset: usize, len: usize) {
    if offset >= len {
        out.copy_within(op - offset..op - offset + len, op);
    } else {
        for i in 0..len {
            out[op + i] = out[op - offset + i];
        }
    }
}

fn read_varint(src: &[u8]) -> Option<(u64, usize)> {
    let mut v = 0u64;
    for (i, &b) in src.iter().enumerate().take(5) {
        v |= ((b & 0x7f) as u64) << (7 * i);
        if b & 0x80 == 0 {
            return (v <= u32::MAX as u64).then_some((v, i + 1));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snappy_compress(src: &[u8]) -> Vec<u8> {
        let mut len = unsafe { snappy_sys::snappy_max_compressed_length(src.len()) };
        let mut out = vec![0u8; len];
        let rc = unsafe {
            snappy_sys::snappy_compress(src.as_ptr(), src.len(), out.as_mut_ptr(), &mut len)
        };
        assert_eq!(rc, 0, "snappy_compress failed");
        out.truncate(len);
        out
    }

    #[test]
    fn decodes_what_libsnappy_writes() {
        let mut inputs: Vec<Vec<u8>> = vec![vec![], vec![7], b"abcabcabcabcabcabcabc".to_vec()];
        inputs.push((0..100_000u32).map(|i| (i % 97) as u8).collect());
        inputs.push((0..70_000u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect());
        inputs.push(vec![0u8; 200_000]);
        for src in &inputs {
            let c = snappy_compress(src);
            let mut d = vec![0u8; src.len()];
            assert_eq!(decompress(&c, &mut d), Some(src.len()));
            assert_eq!(&d, src);
            // Truncations and a too-small output never panic and never succeed wrongly.
            for cut in [1usize, 2, 5] {
                if c.len() > cut && !src.is_empty() {
                    assert_ne!(decompress(&c[..c.len() - cut], &mut d), Some(src.len()));
                }
            }
            if !src.is_empty() {
                let mut small = vec![0u8; src.len() - 1];
                assert_eq!(decompress(&c, &mut small), None);
            }
        }
    }

    #[test]
    fn garbage_is_rejected_without_panicking() {
        let mut state = 0x1234_5678u32;
        let mut out = vec![0u8; 4096];
        for _ in 0..20_000 {
            let n = (state % 64) as usize;
            let buf: Vec<u8> = (0..n)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 17;
                    state ^= state << 5;
                    state as u8
                })
                .collect();
            let _ = decompress(&buf, &mut out);
        }
    }
}
