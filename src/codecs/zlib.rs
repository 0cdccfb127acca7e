//! zlib streams through zlib-ng in zlib-compatible mode (what the reference bundles), or the
//! system zlib in builds with the `system-codecs` feature (the c-blosc 1.x face).

use libz_sys as z;

/// What `compress2` does (`deflateInit`, one `deflate(Z_FINISH)`, `deflateEnd`), with zlib's
/// allocations served from memory kept between streams: `compress2` allocates and releases
/// about 256 KiB for every stream, which costs more than compressing a small stream of
/// compressible data (the allocator hands the memory back to the system and faults it in
/// again). Each stream still starts from a freshly initialised deflate state, so the output
/// is `compress2`'s byte for byte. (Resetting one kept stream with `deflateReset` instead
/// would save the initialisation too, but zlib-ng's level 1 then writes different bytes.)
#[derive(Default)]
pub struct ZlibState {
    /// Boxed so that its address, handed to zlib as the allocator's `opaque`, is stable.
    arena: Option<Box<Arena>>,
}

/// Memory zlib allocates from during one stream: a bump allocator over `buf`, reset between
/// streams; requests that do not fit go to `malloc` and make `buf` grow for the next stream.
struct Arena {
    buf: Vec<u64>,
    /// Bytes of `buf` handed out in this stream.
    used: usize,
    /// Bytes this stream asked for in all (with alignment), to size `buf` for the next one.
    wanted: usize,
}

/// Alignment of each allocation (zlib-ng aligns its own buffers within what it gets).
const ARENA_ALIGN: usize = 64;

extern "C" fn arena_alloc(opaque: z::voidpf, items: z::uInt, size: z::uInt) -> z::voidpf {
    // SAFETY: `opaque` is the `Arena` of the ZlibState running this stream (set in
    // `ZlibState::compress`, which holds it mutably for the whole stream).
    let arena = unsafe { &mut *(opaque as *mut Arena) };
    let Some(n) = (items as usize).checked_mul(size as usize) else {
        return std::ptr::null_mut();
    };
    let start = arena.used.next_multiple_of(ARENA_ALIGN);
    arena.wanted = arena.wanted.next_multiple_of(ARENA_ALIGN) + n;
    let base = arena.buf.as_mut_ptr() as usize;
    // The buffer is 8-byte aligned; pad its start up to ARENA_ALIGN.
    let pad = base.next_multiple_of(ARENA_ALIGN) - base;
    if pad + start + n <= arena.buf.len() * 8 {
        arena.used = start + n;
        return (base + pad + start) as z::voidpf;
    }
    // SAFETY: plain allocation; zlib handles null.
    unsafe { libc::malloc(n) }
}

extern "C" fn arena_free(opaque: z::voidpf, address: z::voidpf) {
    // SAFETY: as in `arena_alloc`.
    let arena = unsafe { &*(opaque as *const Arena) };
    let base = arena.buf.as_ptr() as usize;
    let addr = address as usize;
    if !(base..base + arena.buf.len() * 8).contains(&addr) {
        // SAFETY: not arena memory, so it came from the malloc in `arena_alloc`.
        unsafe { libc::free(address) }
    }
}

impl ZlibState {
    /// Nothing allocated yet (the arena is sized by the first stream); usable in a `static`.
    pub const fn new() -> ZlibState {
        ZlibState { arena: None }
    }

    /// Compress `src` as one zlib stream at `clevel`, the bytes `compress2` writes; 0 when
    /// the output does not fit in `dest` or zlib fails.
    pub fn compress(&mut self, src: &[u8], dest: &mut [u8], clevel: u8) -> usize {
        // One deflate call takes at most 4 GiB each way; streams here are far smaller.
        let (Ok(avail_in), Ok(avail_out)) = (z::uInt::try_from(src.len()), z::uInt::try_from(dest.len()))
        else {
            return compress(src, dest, clevel);
        };
        let arena = self.arena.get_or_insert_with(|| Box::new(Arena { buf: Vec::new(), used: 0, wanted: 0 }));
        arena.used = 0;
        arena.wanted = ARENA_ALIGN;
        let opaque = &mut **arena as *mut Arena as z::voidpf;
        let mut strm = z::z_stream {
            next_in: src.as_ptr() as *mut z::Bytef,
            avail_in,
            total_in: 0,
            next_out: dest.as_mut_ptr(),
            avail_out,
            total_out: 0,
            msg: std::ptr::null_mut(),
            state: std::ptr::null_mut(),
            zalloc: arena_alloc,
            zfree: arena_free,
            opaque,
            data_type: 0,
            adler: 0,
            reserved: 0,
        };
        // SAFETY: the stream lives on this frame until deflateEnd; deflate reads `avail_in`
        // bytes of `src` and writes at most `avail_out` bytes of `dest`; the allocator's
        // `opaque` is the boxed arena, not touched elsewhere until deflateEnd returns. The
        // version and size passed are this build's, as zlib's deflateInit macro passes them.
        let rc = unsafe {
            let size = std::mem::size_of::<z::z_stream>() as libc::c_int;
            if z::deflateInit_(&mut strm, clevel as i32, z::zlibVersion(), size) != z::Z_OK {
                return 0;
            }
            let rc = z::deflate(&mut strm, z::Z_FINISH);
            z::deflateEnd(&mut strm);
            rc
        };
        // Room for all of the next stream's allocations (zlib asks the same each time).
        let arena = self.arena.as_mut().expect("made above");
        let want = arena.wanted.div_ceil(8);
        if want > arena.buf.len() {
            arena.buf = vec![0u64; want];
        }
        if rc == z::Z_STREAM_END {
            dest.len() - strm.avail_out as usize
        } else {
            0
        }
    }
}

/// Compress with `compress2`; 0 when the output does not fit.
pub fn compress(src: &[u8], dest: &mut [u8], clevel: u8) -> usize {
    let mut out_len = dest.len() as z::uLongf;
    // SAFETY: compress2 writes at most `out_len` bytes into `dest` and reads `src.len()`.
    let rc = unsafe {
        z::compress2(
            dest.as_mut_ptr(),
            &mut out_len,
            src.as_ptr(),
            src.len() as z::uLong,
            clevel as i32,
        )
    };
    if rc != z::Z_OK {
        return 0;
    }
    out_len as usize
}

/// Decode one zlib stream with `uncompress`; the bytes written, `None` for a corrupt stream
/// or one that does not fit.
pub fn decompress(src: &[u8], dest: &mut [u8]) -> Option<usize> {
    let mut out_len = dest.len() as z::uLongf;
    // SAFETY: uncompress is bounds-checked on both buffers.
    let rc = unsafe {
        z::uncompress(dest.as_mut_ptr(), &mut out_len, src.as_ptr(), src.len() as z::uLong)
    };
    (rc == z::Z_OK).then_some(out_len as usize)
}

/// The zlib-ng version (the reference reports zlib-ng's version, not the zlib-compat one);
/// read from the zlib-ng headers at build time.
#[cfg(not(feature = "system-codecs"))]
pub fn version() -> String {
    env!("BLOSC2_ZLIBNG_VERSION").to_string()
}

/// The version of the system zlib this build links (`zlibVersion()`).
#[cfg(feature = "system-codecs")]
pub fn version() -> String {
    // SAFETY: zlibVersion returns a static NUL-terminated string.
    unsafe { std::ffi::CStr::from_ptr(z::zlibVersion()) }.to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kept stream writes what `compress2` writes, across levels, after a stream that
    /// did not fit and after other data (a reset that left state behind would show here).
    #[test]
    fn kept_stream_writes_what_compress2_writes() {
        let mut state = ZlibState::new();
        let inputs: Vec<Vec<u8>> = vec![
            (0..70_000u32).map(|i| (i % 251) as u8 ^ (i >> 9) as u8).collect(),
            (0..40_000u32).flat_map(|i| (i * 3).to_le_bytes()).collect(),
            (0..30_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8).collect(),
            Vec::new(),
        ];
        let mut tiny = [0u8; 8];
        for (round, level) in [1u8, 5, 5, 9, 1].into_iter().enumerate() {
            for src in &inputs {
                // (zlib-ng's level 1 may expand random bytes by ~1/8.)
                let mut a = vec![0u8; src.len() * 2 + 64];
                let mut b = a.clone();
                let na = compress(src, &mut a, level);
                let nb = state.compress(src, &mut b, level);
                assert!(na > 0);
                assert!(a[..na] == b[..nb], "level {level}, {} bytes, {na} vs {nb}, round {round}", src.len());
                if src.len() > 1000 {
                    assert_eq!(state.compress(src, &mut tiny, level), 0);
                }
            }
        }
    }

    #[test]
    fn round_trip() {
        let src: Vec<u8> = (0..50_000u32).map(|i| (i / 7) as u8).collect();
        let mut c = vec![0u8; 60_000];
        let n = compress(&src, &mut c, 5);
        assert!(n > 0 && n < src.len());
        let mut d = vec![0u8; src.len()];
        assert_eq!(decompress(&c[..n], &mut d), Some(src.len()));
        assert_eq!(d, src);
        assert_eq!(decompress(&c[..n - 3], &mut d), None);
        let mut tiny = [0u8; 4];
        assert_eq!(compress(&src, &mut tiny, 5), 0);
        let mut state = ZlibState::new();
        assert_eq!(state.compress(&src, &mut tiny, 5), 0);
        // The bundled version (a system-codecs build reports the system library's).
        if cfg!(not(feature = "system-codecs")) {
            assert_eq!(version(), "2.3.3");
        }
    }
}
