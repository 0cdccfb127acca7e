//! zlib streams through zlib-ng in zlib-compatible mode (what the reference bundles), or the
//! system zlib in builds with the `system-codecs` feature (the c-blosc 1.x face).

use libz_sys as z;

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
        // The bundled version (a system-codecs build reports the system library's).
        if cfg!(not(feature = "system-codecs")) {
            assert_eq!(version(), "2.3.3");
        }
    }
}
