//! A decoder of LZ4 blocks (lz4's `doc/lz4_Block_format.md`), used in place of liblz4's
//! `LZ4_decompress_safe` for streams without a dictionary.
//!
//! Why our own: the streams that shuffled integers produce are mostly runs and long
//! repeats (the high bytes of a ramp are one value for hundreds of bytes, the low byte
//! repeats every 256), and liblz4 copies runs 8 bytes at a time. Here runs are `fill`s and
//! long repeats are copied by whole periods, the rest is plain safe Rust.
//!
//! It accepts exactly the streams liblz4 1.10 accepts and decodes them to the same bytes,
//! including its leniencies on malformed input, so that a chunk decodes (or fails) alike in
//! both libraries: liblz4 has a fast loop while the output is 64 bytes or more from its end
//! and a careful one after, and each checks the format's end conditions ("the last 5 bytes
//! are literals", "the last match starts 12 bytes before the end") at its own places; both
//! are followed here, state for state. A match offset of 0 (invalid by the format) fills
//! with zeros, which is what liblz4's copy produces. The tests compare the two decoders on
//! valid, truncated, mutated and random streams.

use super::lz77::copy_overlapping;
use crate::copy::copy_bytes;

const MINMATCH: usize = 4;
/// The last 5 bytes of a block are literals.
const LASTLITERALS: isize = 5;
/// The last match starts at least 12 bytes before the end of the block; liblz4 also keeps
/// its match copies that far from the end of the output (its `MATCH_SAFEGUARD_DISTANCE`).
const MFLIMIT: isize = 12;
/// liblz4's fast loop runs while this much output room is left (`FASTLOOP_SAFE_DISTANCE`).
const FAST_ROOM: usize = 64;

/// Decode one LZ4 block into `dst`: the number of bytes written, or `None` where
/// `LZ4_decompress_safe(src, dst, src.len(), dst.len())` returns an error. Bytes of `dst`
/// past the returned length may be overwritten, as liblz4 does.
#[inline(never)]
pub fn decompress(src: &[u8], dst: &mut [u8]) -> Option<usize> {
    let (m, n) = (src.len(), dst.len());
    if n == 0 {
        return (m == 1 && src[0] == 0).then_some(0);
    }
    if m == 0 {
        return None;
    }
    let (mi, ni) = (m as isize, n as isize);
    let (mut ip, mut op) = (0usize, 0usize);
    // The fast regime never comes back once left.
    let mut fast = n >= FAST_ROOM;
    'sequences: loop {
        let token = *src.get(ip)? as usize;
        ip += 1;
        let mut lit = token >> 4;
        let code = token & 15;
        // The offset, when the careful regime's shortcut has read it already.
        let mut read_offset = None;
        'literals: {
            if fast {
                if lit == 15 {
                    lit += length_extension(src, &mut ip, mi - 15, true)?;
                    if ((op + lit) as isize) <= ni - 32 && ((ip + lit) as isize) <= mi - 32 {
                        copy_literals(dst, op, src, ip, lit);
                        ip += lit;
                        op += lit;
                        break 'literals;
                    }
                } else if ip + 17 <= m {
                    // Up to 14 literals, copied as 16 (`op` is 64 bytes from the end).
                    dst[op..op + 16].copy_from_slice(&src[ip..ip + 16]);
                    ip += lit;
                    op += lit;
                    break 'literals;
                }
                fast = false;
            } else if lit != 15 && (ip as isize) < mi - 16 && (op as isize) <= ni - 32 {
                // The careful regime's shortcut: short literals, then a short match that
                // does not overlap, with no end checks (there is room for both).
                dst[op..op + 16].copy_from_slice(&src[ip..ip + 16]);
                op += lit;
                ip += lit;
                let offset = read_le16(src, ip)?;
                ip += 2;
                if code != 15 && offset >= 8 && offset <= op {
                    let from = op - offset;
                    dst.copy_within(from..from + 8, op);
                    dst.copy_within(from + 8..from + 16, op + 8);
                    dst.copy_within(from + 16..from + 18, op + 16);
                    op += code + MINMATCH;
                    continue 'sequences;
                }
                read_offset = Some(offset);
                break 'literals;
            } else if lit == 15 {
                lit += length_extension(src, &mut ip, mi - 15, true)?;
            }
            // Literals near an end of either buffer: they must be the block's last sequence,
            // ending exactly at the end of the input.
            let end = op + lit;
            if end as isize > ni - MFLIMIT || (ip + lit) as isize > mi - (3 + LASTLITERALS) {
                if ip + lit != m || end > n {
                    return None;
                }
                copy_bytes(&mut dst[op..end], &src[ip..]);
                return Some(end);
            }
            copy_literals(dst, op, src, ip, lit);
            ip += lit;
            op = end;
        }
        let offset = match read_offset {
            Some(offset) => offset,
            None => {
                let offset = read_le16(src, ip)?;
                ip += 2;
                offset
            }
        };
        let mut len = code;
        if len == 15 {
            len += length_extension(src, &mut ip, mi - LASTLITERALS + 1, false)?;
        }
        len += MINMATCH;
        if offset > op {
            return None;
        }
        if fast && op + len < n - FAST_ROOM {
            copy_match(dst, op, offset, len);
            op += len;
            continue;
        }
        fast = false;
        let end = op + len;
        if end as isize > ni - LASTLITERALS {
            return None;
        }
        copy_match(dst, op, offset, len);
        op = end;
    }
}

/// Reads the extension bytes of a literal or match length (each 255 continues); `None` when
/// `ip` passes `limit`, where liblz4 stops (`initial` checks before the first byte too).
#[inline(always)]
fn length_extension(src: &[u8], ip: &mut usize, limit: isize, initial: bool) -> Option<usize> {
    if initial && *ip as isize >= limit {
        return None;
    }
    let mut len = 0usize;
    loop {
        let s = *src.get(*ip)?;
        *ip += 1;
        len += s as usize;
        if *ip as isize > limit {
            return None;
        }
        if s != 255 {
            return Some(len);
        }
    }
}

#[inline(always)]
fn read_le16(src: &[u8], ip: usize) -> Option<usize> {
    let b = src.get(ip..ip + 2)?;
    Some(u16::from_le_bytes([b[0], b[1]]) as usize)
}

/// Copies `lit` literals from `src[ip..]` to `dst[op..]`, both in bounds; short runs as one
/// fixed-size copy when there is room (bytes past `op + lit` may be overwritten), long ones
/// through [`copy_bytes`] (`memcpy` slows down on some processors when the destination
/// nearly aliases the source modulo 4 KiB).
#[inline(always)]
fn copy_literals(dst: &mut [u8], op: usize, src: &[u8], ip: usize, lit: usize) {
    if lit <= 16 && dst.len() - op >= 16 && src.len() - ip >= 16 {
        dst[op..op + 16].copy_from_slice(&src[ip..ip + 16]);
    } else if lit <= 32 && dst.len() - op >= 32 && src.len() - ip >= 32 {
        dst[op..op + 32].copy_from_slice(&src[ip..ip + 32]);
    } else {
        copy_bytes(&mut dst[op..op + lit], &src[ip..ip + lit]);
    }
}

/// Copies a match of `len` bytes from `offset` bytes back (`offset <= op`, `op + len <=
/// dst.len()`), with LZ77 semantics; offset 0 writes zeros (see the module's comment).
/// Bytes past `op + len` may be overwritten while they are inside `dst`.
#[inline(always)]
fn copy_match(dst: &mut [u8], op: usize, offset: usize, len: usize) {
    let room = dst.len() - op;
    let from = op.wrapping_sub(offset);
    if offset >= 16 && len <= 32 && room >= 32 {
        // Two 16-byte steps; the second may read what the first wrote.
        dst.copy_within(from..from + 16, op);
        dst.copy_within(from + 16..from + 32, op + 16);
    } else if offset >= len {
        // The source ends before the destination starts: one copy.
        if len <= 16 && room >= 16 {
            // Moved as 16 bytes (loaded before stored): the first `len` are right.
            dst.copy_within(from..from + 16, op);
        } else if len > 32 {
            let (done, rest) = dst.split_at_mut(op);
            copy_bytes(&mut rest[..len], &done[from..from + len]);
        } else {
            dst.copy_within(from..from + len, op);
        }
    } else if offset == 0 {
        dst[op..op + len].fill(0);
    } else if offset == 1 {
        // A run.
        let b = dst[op - 1];
        if len <= 32 && room >= 32 {
            dst[op..op + 32].copy_from_slice(&[b; 32]);
        } else {
            dst[op..op + len].fill(b);
        }
    } else if offset >= 8 && len <= 16 && room >= 16 {
        // Two 8-byte steps; the second may read what the first wrote.
        dst.copy_within(from..from + 8, op);
        dst.copy_within(from + 8..from + 16, op + 8);
    } else {
        copy_overlapping(dst, op, offset, len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Rng;
    use crate::codecs::lz4;

    /// Both decoders on one input and output size: the same verdict, the same bytes.
    fn same_as_liblz4(src: &[u8], n: usize, what: &str) -> Option<usize> {
        let mut ours = vec![0xA5u8; n];
        let mut theirs = vec![0x5Au8; n];
        let a = decompress(src, &mut ours);
        let b = lz4::decompress(src, &mut theirs);
        assert_eq!(a, b, "{what}: n {n}, src {} bytes", src.len());
        if let Some(k) = a {
            assert!(ours[..k] == theirs[..k], "{what}: n {n}: bytes differ");
        }
        a
    }

    fn inputs() -> Vec<(String, Vec<u8>)> {
        let mut rng = Rng::new(7);
        let mut v = Vec::new();
        for &n in &[0usize, 1, 5, 12, 13, 31, 63, 64, 65, 100, 300, 4096, 70_000] {
            v.push((format!("zeros{n}"), vec![0u8; n]));
            let mut r = vec![0u8; n];
            rng.fill(&mut r);
            v.push((format!("random{n}"), r));
            // Shuffled int64 ramp streams: the low byte repeating every 256, runs of the next.
            v.push((format!("low{n}"), (0..n).map(|i| (3 * i) as u8).collect()));
            v.push((format!("runs{n}"), (0..n).map(|i| ((3 * i) >> 8) as u8).collect()));
            // Short periods (2 to 15) and text-like data with matches at every distance.
            let p = 2 + n % 14;
            v.push((format!("period{n}"), (0..n).map(|i| (i % p) as u8 * 7).collect()));
            let words: Vec<u8> = (0..n).map(|_| b"abcab "[rng.below(6)]).collect();
            v.push((format!("words{n}"), words));
        }
        v
    }

    fn compressed(data: &[u8], hc: bool) -> Vec<u8> {
        let mut c = vec![0u8; data.len() + data.len() / 255 + 32];
        let k = if hc { lz4::compress_hc(data, &mut c, 9) } else { lz4::compress(data, &mut c, 1) };
        c.truncate(k.unwrap());
        c
    }

    #[test]
    fn valid_streams_decode_as_liblz4_at_every_output_size() {
        for (name, data) in inputs() {
            for hc in [false, true] {
                let c = compressed(&data, hc);
                assert_eq!(same_as_liblz4(&c, data.len(), &name), Some(data.len()), "{name}");
                let mut out = vec![0u8; data.len()];
                decompress(&c, &mut out);
                assert!(out == data, "{name}");
                for n in [data.len().saturating_sub(1), data.len() + 1, data.len() + 17, data.len() + 100] {
                    same_as_liblz4(&c, n, &name);
                }
            }
        }
    }

    #[test]
    fn damaged_streams_fail_or_decode_as_liblz4() {
        let mut rng = Rng::new(11);
        for (name, data) in inputs() {
            let c = compressed(&data, rng.below(2) == 1);
            for cut in 0..c.len().min(40) {
                same_as_liblz4(&c[..c.len() - cut], data.len(), &name);
            }
            for _ in 0..200 {
                let mut d = c.clone();
                for _ in 0..1 + rng.below(3) {
                    if !d.is_empty() {
                        let at = rng.below(d.len());
                        d[at] = rng.next_u64() as u8;
                    }
                }
                let n = match rng.below(3) {
                    0 => data.len(),
                    1 => rng.below(data.len() + 100),
                    _ => data.len() + rng.below(70),
                };
                same_as_liblz4(&d, n, &name);
            }
        }
    }

    /// The extension bytes of a length whose token nibble is 15 (none for shorter ones).
    fn push_length_extension(s: &mut Vec<u8>, len: usize) {
        if len >= 15 {
            let mut r = len - 15;
            while r >= 255 {
                s.push(255);
                r -= 255;
            }
            s.push(r as u8);
        }
    }

    /// Random sequences (literal and match lengths, offsets including 0 and past the start)
    /// ending near the end of the output: exercises every end condition of both regimes.
    #[test]
    fn random_sequences_meet_the_end_conditions_as_liblz4() {
        let mut rng = Rng::new(5);
        let mut accepted = 0;
        for round in 0..30_000 {
            let mut s = Vec::new();
            let mut out = 0usize;
            for _ in 0..1 + rng.below(6) {
                let lit = [0, 1, 3, 14, 15, 16, 40, 300][rng.below(8)];
                let ml = [0, 1, 4, 10, 14, 15, 16, 60, 300][rng.below(9)];
                s.push(((lit.min(15) << 4) | ml.min(15)) as u8);
                push_length_extension(&mut s, lit);
                for _ in 0..lit {
                    s.push(rng.next_u64() as u8);
                }
                out += lit;
                let offset = match rng.below(6) {
                    0 => 0,
                    1 => out + 1,
                    2 => 1,
                    3 => 8,
                    _ => 1 + rng.below(out.max(1)),
                };
                s.extend_from_slice(&(offset as u16).to_le_bytes());
                push_length_extension(&mut s, ml);
                out += ml + MINMATCH;
            }
            let last = [0, 1, 4, 5, 6, 12, 20][rng.below(7)];
            s.push(((last.min(15)) << 4) as u8);
            for _ in 0..last {
                s.push(rng.next_u64() as u8);
            }
            out += last;
            let slack = [0usize, 1, 4, 5, 6, 11, 12, 13, 32, 63, 64, 65, 80][rng.below(13)];
            let n = if round % 7 == 0 { rng.below(out + 2) } else { out + slack };
            if same_as_liblz4(&s, n, "sequences").is_some() {
                accepted += 1;
            }
        }
        // Both verdicts occur, so the comparison means something.
        assert!(accepted > 3000 && accepted < 27_000, "{accepted}");
    }

    #[test]
    fn random_bytes_fail_or_decode_as_liblz4() {
        let mut rng = Rng::new(3);
        for _ in 0..20_000 {
            let mut s = vec![0u8; rng.below(80)];
            rng.fill(&mut s);
            same_as_liblz4(&s, rng.below(200), "random bytes");
        }
    }
}
