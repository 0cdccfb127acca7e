//! The ZFP library (1.0.1, the version the reference links, built from source by the
//! `zfp-sys` crate) behind a safe interface: compress or decompress one block of float32 or
//! float64 items of 1 to 4 dimensions in one of ZFP's three modes.
//!
//! ZFP reads its bit stream a 64-bit word at a time without knowing where the input ends, so
//! decompression works on a copy padded with zeros to the most a stream of this shape and
//! mode can take, and a stream whose decoding reaches into that padding is refused: a short
//! or corrupt stream gives an error instead of a read past the buffer.

use libc::c_void;
use zfp_sys as z;

/// ZFP's compression modes, with their parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Mode {
    /// Absolute error tolerance.
    Accuracy(f64),
    /// Bit planes kept.
    Precision(u32),
    /// Bits per value.
    Rate(f64),
}

/// Owns a ZFP stream, its bit stream and a field; frees them on drop.
struct Session {
    zfp: *mut z::zfp_stream,
    bits: *mut z::bitstream,
    field: *mut z::zfp_field,
}

impl Drop for Session {
    fn drop(&mut self) {
        // SAFETY: each pointer is null or came from the matching ZFP constructor, and is
        // freed once.
        unsafe {
            if !self.field.is_null() {
                z::zfp_field_free(self.field);
            }
            if !self.zfp.is_null() {
                z::zfp_stream_close(self.zfp);
            }
            if !self.bits.is_null() {
                z::stream_close(self.bits);
            }
        }
    }
}

impl Session {
    /// A stream in `mode` over `buf` and a field of `dims` (C order, slowest first) over
    /// `data`, which must hold the field's items.
    ///
    /// # Safety
    /// `buf` and `data` must stay valid (and `data` hold `dims` items of the type) for the
    /// life of the session.
    unsafe fn new(mode: Mode, double: bool, dims: &[usize], data: *mut c_void, buf: *mut u8, buf_len: usize) -> Option<Session> {
        let ty = if double { z::zfp_type_zfp_type_double } else { z::zfp_type_zfp_type_float };
        // SAFETY: plain constructors; the pointers are checked below and owned by Session.
        unsafe {
            let mut s = Session { zfp: z::zfp_stream_open(std::ptr::null_mut()), bits: std::ptr::null_mut(), field: std::ptr::null_mut() };
            if s.zfp.is_null() {
                return None;
            }
            s.field = match *dims {
                [a] => z::zfp_field_1d(data, ty, a),
                [a, b] => z::zfp_field_2d(data, ty, b, a),
                [a, b, c] => z::zfp_field_3d(data, ty, c, b, a),
                [a, b, c, d] => z::zfp_field_4d(data, ty, d, c, b, a),
                _ => return None,
            };
            if s.field.is_null() {
                return None;
            }
            match mode {
                Mode::Accuracy(t) => {
                    z::zfp_stream_set_accuracy(s.zfp, t);
                }
                Mode::Precision(p) => {
                    z::zfp_stream_set_precision(s.zfp, p);
                }
                Mode::Rate(r) => {
                    z::zfp_stream_set_rate(s.zfp, r, ty, dims.len() as _, 0 as _);
                }
            }
            s.bits = z::stream_open(buf as *mut c_void, buf_len);
            if s.bits.is_null() {
                return None;
            }
            z::zfp_stream_set_bit_stream(s.zfp, s.bits);
            z::zfp_stream_rewind(s.zfp);
            Some(s)
        }
    }

    fn maximum_size(&self) -> usize {
        // SAFETY: a live stream and field.
        unsafe { z::zfp_stream_maximum_size(self.zfp, self.field) }
    }
}

fn item_count(dims: &[usize], item: usize, bytes: usize) -> Option<usize> {
    let n = dims.iter().try_fold(1usize, |a, &d| a.checked_mul(d))?;
    (n.checked_mul(item)? == bytes).then_some(n)
}

/// Word-aligned scratch buffers (items, stream) kept per thread between blocks, so that the
/// blocks of a chunk do not each allocate and clear their own.
#[derive(Default)]
struct Scratch {
    items: Vec<u64>,
    /// Streams being written (compression): never read, so never cleared.
    out: Vec<u64>,
    /// Streams being read (decompression), zero past the input; bytes from
    /// `stream_dirty` on are known to be zero already, so each block clears only what the
    /// previous ones wrote past its own stream.
    stream: Vec<u64>,
    stream_dirty: usize,
}

impl Scratch {
    fn words(v: &mut Vec<u64>, bytes: usize) -> &mut [u64] {
        let w = bytes.div_ceil(8);
        if v.len() < w {
            v.resize(w, 0);
        }
        &mut v[..w]
    }
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

/// Run `f` with this thread's scratch (a fresh one if it is in use, which ZFP, never calling
/// back, does not cause).
fn with_scratch<R>(f: impl FnOnce(&mut Scratch) -> R) -> R {
    SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut s) => f(&mut s),
        Err(_) => f(&mut Scratch::default()),
    })
}

/// Compress `input` (the items of a block of shape `dims`) into `dest`; the stream's length,
/// or `None` when ZFP fails or the stream does not fit `dest`.
pub fn compress(mode: Mode, double: bool, dims: &[usize], input: &[u8], dest: &mut [u8]) -> Option<usize> {
    let item = if double { 8 } else { 4 };
    item_count(dims, item, input.len())?;
    with_scratch(|sc| {
        // ZFP reads the items as floats or doubles: in place when aligned for them, else
        // from an aligned copy. It never writes them while compressing.
        let data = if (input.as_ptr() as usize) % item == 0 {
            input.as_ptr() as *mut c_void
        } else {
            let w = Scratch::words(&mut sc.items, input.len());
            // SAFETY: `w` holds at least input.len() bytes; the regions are distinct.
            unsafe { std::ptr::copy_nonoverlapping(input.as_ptr(), w.as_mut_ptr() as *mut u8, input.len()) };
            w.as_mut_ptr() as *mut c_void
        };
        // First a session without a buffer, to size the output for this mode.
        // SAFETY: `data` holds the items and outlives both sessions; the first one's stream
        // is never written.
        let max = unsafe { Session::new(mode, double, dims, data, std::ptr::null_mut(), 0)? }.maximum_size();
        // ZFP writes whole words and never reads the buffer while compressing, so the
        // reused buffer needs no clearing.
        let out = Scratch::words(&mut sc.out, max + 8);
        // SAFETY: `out` holds max + 8 bytes (the most ZFP writes here) and outlives the
        // session; `data` as above.
        let written = unsafe {
            let s = Session::new(mode, double, dims, data, out.as_mut_ptr() as *mut u8, out.len() * 8)?;
            z::zfp_compress(s.zfp, s.field)
        };
        if written == 0 || written > max || written > dest.len() {
            return None;
        }
        // SAFETY: `out` holds at least `written` bytes, `dest` was checked to.
        unsafe { std::ptr::copy_nonoverlapping(out.as_ptr() as *const u8, dest.as_mut_ptr(), written) };
        Some(written)
    })
}

/// Decompress a stream into `output` (the items of a block of shape `dims`); `false` when
/// ZFP fails.
pub fn decompress(mode: Mode, double: bool, dims: &[usize], input: &[u8], output: &mut [u8]) -> bool {
    let item = if double { 8 } else { 4 };
    if item_count(dims, item, output.len()).is_none() {
        return false;
    }
    with_scratch(|sc| {
        // Items are written in place when `output` is aligned for them, else to a copy.
        let direct = (output.as_ptr() as usize) % item == 0;
        let data = if direct {
            output.as_mut_ptr() as *mut c_void
        } else {
            Scratch::words(&mut sc.items, output.len()).as_mut_ptr() as *mut c_void
        };
        // SAFETY: `data` holds the items and outlives the sessions; the first one only
        // sizes the stream.
        let Some(max) = (unsafe { Session::new(mode, double, dims, data, std::ptr::null_mut(), 0) }).map(|s| s.maximum_size())
        else {
            return false;
        };
        // The stream, zero-padded to the most ZFP may read for this shape and mode.
        let words = max.max(input.len()).div_ceil(8) + 2;
        Scratch::words(&mut sc.stream, words * 8);
        let all: &mut [u8] = {
            // SAFETY: the whole u64 buffer seen as its bytes (u8 has no alignment or validity
            // needs).
            unsafe { std::slice::from_raw_parts_mut(sc.stream.as_mut_ptr() as *mut u8, sc.stream.len() * 8) }
        };
        all[..input.len()].copy_from_slice(input);
        if sc.stream_dirty > input.len() {
            all[input.len()..sc.stream_dirty].fill(0);
        }
        sc.stream_dirty = input.len();
        // SAFETY: the stream buffer (at least `words` words) and `data` outlive the session.
        let read = unsafe {
            let Some(s) = Session::new(mode, double, dims, data, all.as_mut_ptr(), words * 8) else { return false };
            z::zfp_decompress(s.zfp, s.field)
        };
        // A stream whose decoding ran into the padding was cut short (ZFP streams are whole
        // words, and a chunk stores all of them): an error, as the reference's decoder
        // would report if it did not read past the block instead (c-blosc2 #800).
        if read == 0 || read > input.len().div_ceil(8) * 8 {
            return false;
        }
        if !direct {
            // SAFETY: the scratch items hold output.len() bytes.
            unsafe { std::ptr::copy_nonoverlapping(sc.items.as_ptr() as *const u8, output.as_mut_ptr(), output.len()) };
        }
        true
    })
}
