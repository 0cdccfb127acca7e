//! TEMPORARY scalar filters until the SIMD filters module lands (not committed).
pub mod registry;

pub fn shuffle_with_meta(typesize: usize, _meta: u8, src: &[u8], dst: &mut [u8]) {
    shuffle::shuffle(typesize, src, dst)
}
pub fn unshuffle_with_meta(typesize: usize, _meta: u8, src: &[u8], dst: &mut [u8]) {
    shuffle::unshuffle(typesize, src, dst)
}
pub mod shuffle {
    pub fn shuffle(ts: usize, src: &[u8], dst: &mut [u8]) {
        let n = src.len() / ts;
        for i in 0..n { for b in 0..ts { dst[b * n + i] = src[i * ts + b]; } }
        dst[n * ts..].copy_from_slice(&src[n * ts..]);
    }
    pub fn unshuffle(ts: usize, src: &[u8], dst: &mut [u8]) {
        let n = src.len() / ts;
        for i in 0..n { for b in 0..ts { dst[i * ts + b] = src[b * n + i]; } }
        dst[n * ts..].copy_from_slice(&src[n * ts..]);
    }
}
pub mod bitshuffle {
    pub fn bitshuffle(_ts: usize, _s: &[u8], _d: &mut [u8]) -> Result<(), ()> { Err(()) }
    pub fn bitunshuffle(_ts: usize, _s: &[u8], _d: &mut [u8], _v: u8) -> Result<(), ()> { Err(()) }
}
pub mod delta {
    pub fn delta_encode(_dref: &[u8], _offset: usize, src: &[u8], dst: &mut [u8], _ts: usize) { dst.copy_from_slice(src) }
    pub fn delta_decode(_dref: Option<&[u8]>, _offset: usize, _data: &mut [u8], _ts: usize) {}
}
pub mod trunc_prec {
    pub fn trunc_prec(_p: i8, _ts: usize, src: &[u8], dst: &mut [u8]) -> Result<(), ()> { dst.copy_from_slice(src); Ok(()) }
}
