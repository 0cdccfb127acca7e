//! Unit tests: every kernel against a naive model of the layout and against its scalar
//! twin, on awkward shapes; round trips; delta and trunc_prec semantics.

use super::*;

const TYPESIZES: &[usize] = &[
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 24, 32, 64, 255, 256, 1000,
];
const LENGTHS: &[usize] = &[
    0,
    1,
    7,
    8,
    15,
    16,
    17,
    63,
    64,
    65,
    255,
    256,
    1000,
    4095,
    4096,
    4097,
    65536 + 13,
    1 << 20,
];

/// Pseudo-random bytes (xorshift) no codec can shorten; also used by the chunk tests.
pub(crate) fn data(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

fn naive_shuffle(ts: usize, src: &[u8]) -> Vec<u8> {
    let n = src.len() / ts;
    let mut out = src.to_vec();
    for i in 0..n {
        for j in 0..ts {
            out[j * n + i] = src[i * ts + j];
        }
    }
    out
}

fn naive_bitshuffle(ts: usize, src: &[u8]) -> Vec<u8> {
    let n = src.len() / ts;
    let m = n - n % 8;
    let mut out = src.to_vec();
    out[..m * ts].fill(0);
    for e in 0..m {
        for j in 0..ts {
            for k in 0..8 {
                let bit = (src[e * ts + j] >> k) & 1;
                out[(8 * j + k) * (m / 8) + e / 8] |= bit << (e % 8);
            }
        }
    }
    out
}

#[test]
fn transpose8x8_is_a_transpose() {
    for seed in 0..64u64 {
        let x = u64::from_le_bytes(data(8, seed + 1).try_into().unwrap());
        let y = bitshuffle::transpose8x8(x);
        for r in 0..8 {
            for c in 0..8 {
                assert_eq!((x >> (8 * r + c)) & 1, (y >> (8 * c + r)) & 1);
            }
        }
    }
}

#[test]
fn shuffle_kernels_match_model_and_invert() {
    for &ts in TYPESIZES {
        for &len in LENGTHS {
            let src = data(len, (ts * 31 + len) as u64);
            let want = naive_shuffle(ts, &src);
            for isa in Isa::available() {
                let mut out = vec![0xA5; len];
                assert!(kernels::shuffle(isa, ts, &src, &mut out));
                assert!(out == want, "shuffle {isa:?} ts={ts} len={len}");
                let mut back = vec![0x5A; len];
                assert!(kernels::unshuffle(isa, ts, &out, &mut back));
                assert!(back == src, "unshuffle {isa:?} ts={ts} len={len}");
            }
        }
    }
}

#[test]
fn bitshuffle_kernels_match_model_and_invert() {
    for &ts in TYPESIZES {
        for &len in LENGTHS {
            let src = data(len, (ts * 17 + len) as u64);
            let want = naive_bitshuffle(ts, &src);
            for isa in Isa::available() {
                let mut out = vec![0xA5; len];
                kernels::bitshuffle(isa, ts, &src, &mut out)
                    .unwrap()
                    .unwrap();
                assert!(out == want, "bitshuffle {isa:?} ts={ts} len={len}");
                let mut back = vec![0x5A; len];
                kernels::bitunshuffle(isa, ts, &out, &mut back, CURRENT_FORMAT_VERSION)
                    .unwrap()
                    .unwrap();
                assert!(back == src, "bitunshuffle {isa:?} ts={ts} len={len}");
            }
        }
    }
}

#[test]
fn bitunshuffle_of_arbitrary_bytes_matches_scalar() {
    // Unshuffling is not only used on our own output; compare the kernels on raw noise.
    for &ts in TYPESIZES {
        for &len in LENGTHS {
            let src = data(len, (ts * 7 + len + 3) as u64);
            let mut want = vec![0; len];
            kernels::bitunshuffle(Isa::Scalar, ts, &src, &mut want, CURRENT_FORMAT_VERSION)
                .unwrap()
                .unwrap();
            let mut want_unsh = vec![0; len];
            kernels::unshuffle(Isa::Scalar, ts, &src, &mut want_unsh);
            for isa in Isa::available() {
                let mut out = vec![0; len];
                kernels::bitunshuffle(isa, ts, &src, &mut out, CURRENT_FORMAT_VERSION)
                    .unwrap()
                    .unwrap();
                assert!(out == want, "bitunshuffle {isa:?} ts={ts} len={len}");
                kernels::unshuffle(isa, ts, &src, &mut out);
                assert!(out == want_unsh, "unshuffle {isa:?} ts={ts} len={len}");
            }
        }
    }
}

/// Every SIMD kernel against its scalar twin on the shapes where kernels hand over to
/// scalar code (around 16 and 64 elements, tile and type-size edges), both directions.
/// Smaller than the model tests above, so that it also runs in reasonable time under
/// emulation (the test suite runs it for aarch64 under qemu, for the NEON kernels).
#[test]
fn simd_kernels_match_scalar_twins() {
    const TS: &[usize] = &[1, 2, 3, 4, 8, 16, 17, 24, 32, 255, 256];
    const ELEMS: &[usize] = &[0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 200, 1024 + 8, 2048 + 24];
    for &ts in TS {
        for &n in ELEMS {
            for extra in [0, ts / 2] {
                let len = n * ts + extra;
                let src = data(len, (ts * 131 + n + extra) as u64);
                let run = |isa: Isa| {
                    let (mut sh, mut unsh) = (vec![0xA5; len], vec![0x5A; len]);
                    assert!(kernels::shuffle(isa, ts, &src, &mut sh));
                    assert!(kernels::unshuffle(isa, ts, &src, &mut unsh));
                    let (mut bsh, mut bunsh) = (vec![0xA5; len], vec![0x5A; len]);
                    kernels::bitshuffle(isa, ts, &src, &mut bsh).unwrap().unwrap();
                    kernels::bitunshuffle(isa, ts, &src, &mut bunsh, CURRENT_FORMAT_VERSION)
                        .unwrap()
                        .unwrap();
                    (sh, unsh, bsh, bunsh)
                };
                let want = run(Isa::Scalar);
                for isa in Isa::available().into_iter().skip(1) {
                    let got = run(isa);
                    assert!(got.0 == want.0, "shuffle {isa:?} ts={ts} n={n} extra={extra}");
                    assert!(got.1 == want.1, "unshuffle {isa:?} ts={ts} n={n} extra={extra}");
                    assert!(got.2 == want.2, "bitshuffle {isa:?} ts={ts} n={n} extra={extra}");
                    assert!(got.3 == want.3, "bitunshuffle {isa:?} ts={ts} n={n} extra={extra}");
                }
            }
        }
    }
}

/// Unshuffling from scattered rows (some in one buffer at odd offsets with bytes between
/// them, as uncompressed streams lie in a chunk, the others in a second buffer) gives what
/// unshuffling the adjacent rows gives, for every kernel, including destinations the
/// kernels peel for alignment.
#[test]
fn unshuffle_from_scattered_rows_matches_adjacent_rows() {
    const TS: &[usize] = &[2, 3, 4, 7, 8, 16, 17, 24, 32, 255];
    const ELEMS: &[usize] = &[0, 1, 15, 16, 17, 64, 65, 200, 4659, 8192];
    for &ts in TS {
        for &n in ELEMS {
            if n * ts > 1 << 20 {
                continue;
            }
            let adjacent = data(n * ts, (ts * 7 + n) as u64);
            let mut want = vec![0u8; n * ts];
            assert!(kernels::unshuffle(Isa::Scalar, ts, &adjacent, &mut want));
            // Odd rows in `chunk`, each after a 4-byte gap of 0xEE and followed by 3 more;
            // even rows in `decoded`, in place.
            let mut chunk = Vec::new();
            let mut at = vec![0; ts];
            for j in (1..ts).step_by(2) {
                chunk.extend_from_slice(&[0xEE; 4]);
                at[j] = chunk.len();
                chunk.extend_from_slice(&adjacent[j * n..(j + 1) * n]);
                chunk.extend_from_slice(&[0xEE; 3]);
            }
            let decoded = adjacent.clone();
            let rows: Vec<&[u8]> = (0..ts)
                .map(|j| if j % 2 == 1 { &chunk[at[j]..at[j] + n] } else { &decoded[j * n..(j + 1) * n] })
                .collect();
            for isa in Isa::available() {
                for off in [0, 1, 16] {
                    let mut buf = vec![0x5A; n * ts + off];
                    assert!(kernels::unshuffle_rows(isa, &rows, n, &mut buf[off..]));
                    assert!(buf[off..] == want[..], "{isa:?} ts={ts} n={n} off={off}");
                }
            }
        }
    }
}

/// Elements whose high bytes are zero, given only their low rows, unshuffle as the full
/// rows with rows of zeros would, on every kernel level, for every count of low rows,
/// lengths around the kernels' 16-element steps and the 4 KiB pieces of the fallback, and
/// destinations on and off the store alignment (the peel starts at 16 KiB).
#[test]
fn zero_high_rows_unshuffle_as_rows_of_zeros() {
    for ts in 2..=16usize {
        for &n in &[0usize, 1, 15, 16, 17, 33, 4095, 4097, 8192 + 5, 3000] {
            let bytes = data(n * ts, (ts * 31 + n) as u64);
            for live in 0..ts {
                let zeros = vec![0u8; n];
                let full: Vec<&[u8]> =
                    (0..ts).map(|j| if j < live { &bytes[j * n..(j + 1) * n] } else { &zeros[..] }).collect();
                let mut want = vec![0u8; n * ts];
                assert!(kernels::unshuffle_rows(Isa::Scalar, &full, n, &mut want));
                for isa in Isa::available() {
                    for off in [0, 8, 16, 1] {
                        let mut buf = vec![0x5A; n * ts + off];
                        assert!(kernels::unshuffle_zero_high(isa, &full[..live], ts, n, &mut buf[off..]));
                        assert!(buf[off..] == want[..], "{isa:?} ts={ts} live={live} n={n} off={off}");
                    }
                }
            }
        }
    }
}

/// The dispatcher picks a SIMD level wherever the target has one.
#[test]
fn best_isa_is_simd_on_simd_targets() {
    let best = Isa::best();
    assert!(best.is_available());
    if cfg!(target_arch = "aarch64") {
        assert_eq!(best, Isa::Neon);
    }
    if cfg!(target_arch = "x86_64") {
        assert!(matches!(best, Isa::Sse2 | Isa::Avx2 | Isa::Avx512), "{best:?}");
    }
}

#[test]
fn legacy_bitunshuffle_copies_blocks_not_multiple_of_8() {
    for &ts in &[1usize, 2, 4, 8, 3] {
        for &n in &[0usize, 5, 8, 13, 16, 100, 128] {
            for extra in [0usize, 1] {
                let len = n * ts + if ts > 1 { extra } else { 0 };
                let src = data(len, (n + ts) as u64);
                let mut legacy = vec![0; len];
                bitunshuffle(ts, &src, &mut legacy, BLOSC1_FORMAT_VERSION).unwrap();
                let mut current = vec![0; len];
                bitunshuffle(ts, &src, &mut current, CURRENT_FORMAT_VERSION).unwrap();
                if n % 8 == 0 {
                    assert_eq!(legacy, current, "ts={ts} n={n}");
                } else {
                    assert_eq!(legacy, src, "ts={ts} n={n}");
                }
            }
        }
    }
}

#[test]
fn bitshuffle_rejects_bad_arguments() {
    let mut out = [0u8; 8];
    assert_eq!(
        bitshuffle(0, &[0; 8], &mut out),
        Err(FilterError::ZeroTypesize)
    );
    assert_eq!(
        bitshuffle(1, &[0; 7], &mut out),
        Err(FilterError::LengthMismatch { src: 7, dest: 8 })
    );
    assert_eq!(
        bitunshuffle(0, &[0; 8], &mut out, CURRENT_FORMAT_VERSION),
        Err(FilterError::ZeroTypesize)
    );
    assert_eq!(FilterError::ZeroTypesize.code(), -12);
}

/// The reference's delta filter, spelled out element by element (units of 1/2/4/8 bytes,
/// little-endian words XOR the same as bytes), leaving the bytes it never writes at
/// `fill`.
fn model_delta_encode(dref: &[u8], offset: usize, src: &[u8], ts: usize, fill: u8) -> Vec<u8> {
    let u = match ts {
        1 | 2 | 4 | 8 => ts,
        t if t % 8 == 0 => 8,
        _ => 1,
    };
    let units = src.len() / u;
    let mut out = vec![fill; src.len()];
    for i in 0..units {
        for b in 0..u {
            let p = i * u + b;
            out[p] = if offset == 0 {
                if i == 0 {
                    dref[b]
                } else {
                    src[p] ^ dref[p - u]
                }
            } else {
                src[p] ^ dref[p]
            };
        }
    }
    if offset == 0 && units == 0 {
        // The reference writes the first unit unconditionally (past the end, for a block
        // shorter than one unit); within the block that is dref's prefix.
        out.copy_from_slice(&dref[..src.len()]);
    }
    out
}

#[test]
fn delta_matches_reference_model_on_full_units_and_round_trips() {
    for &ts in &[1usize, 2, 3, 4, 5, 7, 8, 11, 16, 17, 24, 32, 255, 256, 0] {
        for &blocksize in &[1usize, 3, 7, 8, 9, 16, 17, 64, 100, 1000, 4099] {
            for &nblocks in &[1usize, 2, 3] {
                let last = if nblocks > 1 {
                    blocksize - blocksize / 3
                } else {
                    blocksize
                };
                let total = blocksize * (nblocks - 1) + last;
                let chunk = data(total, (ts * 13 + blocksize + nblocks) as u64);
                let mut encoded = vec![0u8; total];
                for b in 0..nblocks {
                    let off = b * blocksize;
                    let len = if b == nblocks - 1 { last } else { blocksize };
                    let src = &chunk[off..off + len];
                    delta_encode(&chunk, off, src, &mut encoded[off..off + len], ts);
                    let model = model_delta_encode(&chunk, off, src, ts, 0);
                    let u = match ts {
                        1 | 2 | 4 | 8 => ts,
                        t if t % 8 == 0 => 8,
                        _ => 1,
                    };
                    let full = len / u * u;
                    // Bytes the reference writes inside the block.
                    let written = if off == 0 { full.max(len.min(u)) } else { full };
                    let got = &encoded[off..off + len];
                    assert_eq!(
                        &got[..written],
                        &model[..written],
                        "encode ts={ts} bs={blocksize} block={b}"
                    );
                    // The bytes it leaves unwritten are carried over verbatim.
                    assert_eq!(
                        &got[written..],
                        &src[written..],
                        "tail ts={ts} bs={blocksize} block={b}"
                    );
                }
                // Decode block 0 first (it is the reference), then the others.
                let mut decoded = encoded.clone();
                for b in 0..nblocks {
                    let off = b * blocksize;
                    let len = if b == nblocks - 1 { last } else { blocksize };
                    delta_decode_chunk(&mut decoded, off, len, ts);
                }
                assert_eq!(
                    decoded, chunk,
                    "round trip ts={ts} bs={blocksize} n={nblocks}"
                );
            }
        }
    }
}

#[test]
fn delta_decodes_reference_style_garbage_tails_on_full_units() {
    // A chunk written by the reference has unspecified bytes after the last full unit;
    // whatever they are, the full units must decode as the reference decodes them.
    let ts = 4;
    let blocksize = 22; // 5 full units + 2 trailing bytes
    let chunk = data(blocksize * 2, 99);
    let mut enc = Vec::new();
    for b in 0..2 {
        let off = b * blocksize;
        enc.extend(model_delta_encode(
            &chunk,
            off,
            &chunk[off..off + blocksize],
            ts,
            0xEE,
        ));
    }
    let mut dec = enc.clone();
    delta_decode_chunk(&mut dec, 0, blocksize, ts);
    delta_decode_chunk(&mut dec, blocksize, blocksize, ts);
    for b in 0..2 {
        let off = b * blocksize;
        assert_eq!(&dec[off..off + 20], &chunk[off..off + 20]);
        assert_eq!(&dec[off + 20..off + 22], &[0xEE, 0xEE]);
    }
}

#[test]
fn trunc_prec_semantics() {
    let vals32: Vec<f32> = vec![
        1.0,
        -std::f32::consts::PI,
        1.0e-30,
        f32::MAX,
        f32::NAN,
        f32::INFINITY,
        0.1,
    ];
    let src: Vec<u8> = vals32
        .iter()
        .flat_map(|v| v.to_ne_bytes())
        .chain([7u8, 9])
        .collect();
    let mut dest = vec![0u8; src.len()];
    // Keep 10 bits: zero the 13 low mantissa bits.
    trunc_prec(10, 4, &src, &mut dest).unwrap();
    for (i, v) in vals32.iter().enumerate() {
        let got = u32::from_ne_bytes(dest[4 * i..4 * i + 4].try_into().unwrap());
        assert_eq!(got, v.to_bits() & !((1 << 13) - 1));
    }
    assert_eq!(&dest[dest.len() - 2..], &[7, 9]);
    // Zero 5 bits.
    trunc_prec(-5, 4, &src, &mut dest).unwrap();
    for (i, v) in vals32.iter().enumerate() {
        let got = u32::from_ne_bytes(dest[4 * i..4 * i + 4].try_into().unwrap());
        assert_eq!(got, v.to_bits() & !0x1F);
    }
    // Limits.
    for p in [1i8, 23, -1, -22] {
        assert!(trunc_prec(p, 4, &src, &mut dest).is_ok(), "{p}");
    }
    trunc_prec(23, 4, &src, &mut dest).unwrap();
    assert_eq!(dest, src);
    for p in [0i8, 24, -23, -24, i8::MIN, i8::MAX] {
        assert_eq!(
            trunc_prec(p, 4, &src, &mut dest),
            Err(FilterError::PrecisionOutOfRange {
                prec_bits: p,
                typesize: 4
            }),
            "{p}"
        );
    }

    let vals64: Vec<f64> = vec![1.0, -std::f64::consts::E, 1.0e-300, f64::NAN, 1.0 / 3.0];
    let src: Vec<u8> = vals64.iter().flat_map(|v| v.to_ne_bytes()).collect();
    let mut dest = vec![0u8; src.len()];
    trunc_prec(20, 8, &src, &mut dest).unwrap();
    for (i, v) in vals64.iter().enumerate() {
        let got = u64::from_ne_bytes(dest[8 * i..8 * i + 8].try_into().unwrap());
        assert_eq!(got, v.to_bits() & !((1u64 << 32) - 1));
    }
    trunc_prec(-40, 8, &src, &mut dest).unwrap();
    for (i, v) in vals64.iter().enumerate() {
        let got = u64::from_ne_bytes(dest[8 * i..8 * i + 8].try_into().unwrap());
        assert_eq!(got, v.to_bits() & !((1u64 << 40) - 1));
    }
    for p in [1i8, 52, -51] {
        assert!(trunc_prec(p, 8, &src, &mut dest).is_ok(), "{p}");
    }
    for p in [0i8, 53, -52, i8::MIN] {
        assert!(trunc_prec(p, 8, &src, &mut dest).is_err(), "{p}");
    }
    for ts in [1usize, 2, 3, 16] {
        assert_eq!(
            trunc_prec(5, ts, &[0; 16], &mut [0; 16]),
            Err(FilterError::UnsupportedTypesize(ts))
        );
    }
    assert_eq!(
        trunc_prec(5, 4, &[0; 16], &mut [0; 12]),
        Err(FilterError::LengthMismatch { src: 16, dest: 12 })
    );
    assert_eq!(FilterError::UnsupportedTypesize(3).code(), -18);
}

/// The dispatchers leave a few leading elements to the scalar code so the vector stores
/// line up, and stage large blocks of wide types: every destination alignment, with and
/// without those paths, must give the model's bytes.
#[test]
fn kernels_match_model_at_every_destination_alignment() {
    for &(ts, n) in &[(2, 8192), (4, 4096), (8, 2048), (16, 1024), (16, 4096), (32, 2048), (24, 96), (2, 100), (8, 512),
        // The tiled unshuffle by columns (rows 2 KiB apart on AMD, 384 to 512 bytes apart for
        // 64-byte and wider items elsewhere), by steps, and with an overlapping last step.
        (64, 2048), (40, 4096), (17, 481), (64, 512), (64, 384), (96, 448), (64, 640)] {
        let len = ts * n + 3;
        let src = data(len, (ts * 7 + n) as u64);
        let want = naive_shuffle(ts, &src);
        for isa in Isa::available() {
            for off in [0, 1, 2, 4, 8, 16, 24, 31, 48] {
                let mut buf = vec![0xA5; len + 64];
                assert!(kernels::shuffle(isa, ts, &src, &mut buf[off..off + len]));
                assert!(buf[off..off + len] == want[..], "shuffle {isa:?} ts={ts} n={n} off={off}");
                let mut back = vec![0x5A; len + 64];
                assert!(kernels::unshuffle(isa, ts, &want, &mut back[off..off + len]));
                assert!(back[off..off + len] == src[..], "unshuffle {isa:?} ts={ts} n={n} off={off}");
            }
        }
    }
}

#[test]
fn unshuffle_level_is_one_the_cpu_has() {
    for ts in [1, 2, 3, 4, 8, 12, 16, 32] {
        assert!(Isa::best_unshuffle(ts).is_available(), "type size {ts}");
    }
    // Only the type sizes with a choice of kernel move off the best level, and only from
    // AVX-512 to AVX2.
    for ts in [1, 3, 12, 32, 64] {
        assert_eq!(Isa::best_unshuffle(ts), Isa::best(), "type size {ts}");
    }
    for ts in [2, 4, 8, 16] {
        let isa = Isa::best_unshuffle(ts);
        assert!(isa == Isa::best() || (Isa::best() == Isa::Avx512 && isa == Isa::Avx2), "type size {ts}");
    }
}

#[test]
fn unshuffle_of_small_blocks_matches_model() {
    // `unshuffle`'s own path for blocks below the peel threshold (`shuffle::unshuffle_small`,
    // which the kernel-level entry points above do not take): every power-of-two type size
    // and some of the tiled kernel's, element counts around one step of the AVX2 (32) and
    // AVX-512 (64) kernels and around the threshold, lengths with a remainder, odd
    // destinations, and nothing written outside the destination.
    for ts in [2usize, 4, 8, 16, 17, 24, 32, 64] {
        let edge = shuffle::PEEL_FROM / ts;
        for n in [0, 1, 31, 32, 33, 63, 64, 65, 95, 96, 127, 128, 129, 1000, edge - 1, edge, edge + 1] {
            for extra in [0, 1, ts - 1] {
                let len = n * ts + extra;
                let src = data(len, (ts * 131 + n * 7 + extra) as u64);
                let shuffled = naive_shuffle(ts, &src);
                for off in [0, 1, 16, 40] {
                    let mut buf = vec![0x5A; len + 128];
                    unshuffle(ts, &shuffled, &mut buf[off..off + len]);
                    assert!(buf[off..off + len] == src[..], "ts={ts} n={n} extra={extra} off={off}");
                    assert!(buf[..off].iter().chain(&buf[off + len..]).all(|&b| b == 0x5A), "ts={ts} n={n} off={off}: wrote outside");
                }
            }
        }
    }
}
